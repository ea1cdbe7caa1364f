//! Single-source betweenness (Brandes): the dependency δ_s(v) = Σ_t σ_st(v)/σ_st of every vertex
//! v on the source s, over hop-count shortest paths (σ_st counts shortest s-t paths, σ_st(v)
//! those through v). δ_s(s) = 0, and 0 for vertices s does not reach.
//!
//! Forward phase: a BFS whose [`edge_map`] also sums path counts, σ(d) = Σ σ(s) over the
//! frontier vertices s with an arc to d (an atomic add when pushing, a plain one when pulling,
//! where only d's owner writes it). The levels are kept as one array of ids in BFS order with
//! the offset of each level, n ids in all.
//!
//! Backward phase, deepest level first: δ(v) = σ(v) Σ_w (1 + δ(w)) / σ(w) over v's out-neighbours
//! w one level deeper (its successors on shortest paths). Each vertex reads its own out-edges
//! and writes only its own δ, so there are no atomics and no in-edges are needed: a directed
//! graph without a transpose works too (its forward phase just always pushes).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::atomics::AtomicF64;
use vastgraph_engine::{
    edge_map, Adjacency, Direction, EdgeMapCounters, EdgeMapFn, EdgeMapOptions, Graph, Vertex,
    VertexSubset,
};

use crate::common::{check_source, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): path counts and dependencies (f64),
/// levels and the per-level frontiers.
pub const STATE: StateSize = StateSize::per_vertex(32);

const ALGORITHM: &str = "bc";

/// Relative tolerance of the verifier: path counts and dependencies are sums taken in a
/// different order by the parallel kernel.
pub const VERIFY_TOLERANCE: f64 = 1e-9;

const UNVISITED: u32 = u32::MAX;

#[derive(Clone, Debug, serde::Serialize)]
pub struct BcParams {
    pub source: u64,
    /// Push/pull policy of the forward BFS.
    pub direction: Direction,
}

impl Default for BcParams {
    fn default() -> Self {
        BcParams {
            source: 0,
            direction: Direction::Auto,
        }
    }
}

#[derive(Debug)]
pub struct BcResult {
    /// δ_s(v) for every vertex v.
    pub dependencies: Vec<f64>,
    pub stats: RunStats,
}

/// The forward step: unvisited destinations collect the path counts of their frontier
/// in-neighbours; the first contribution puts a destination in the next frontier.
struct CountPaths<'a> {
    sigma: &'a [AtomicF64],
    level: &'a [AtomicU32],
}

impl EdgeMapFn for CountPaths<'_> {
    #[inline(always)]
    fn update(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        let slot = &self.sigma[d as usize];
        let before = slot.load();
        slot.store(before + self.sigma[s as usize].load());
        before == 0.0
    }

    #[inline(always)]
    fn update_atomic(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        self.sigma[d as usize].fetch_add(self.sigma[s as usize].load()) == 0.0
    }

    #[inline(always)]
    fn cond(&self, d: Vertex) -> bool {
        self.level[d as usize].load(Relaxed) == UNVISITED
    }
}

/// Brandes' dependencies of every vertex on `params.source`.
pub fn bc<A: Adjacency>(g: &Graph<A>, params: &BcParams) -> Result<BcResult, AlgoError> {
    let source = check_source(g, params.source)?;
    let n = g.num_vertices();
    let sigma: Vec<AtomicF64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicF64::new(0.0))
        .collect();
    let level: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(UNVISITED))
        .collect();
    sigma[source as usize].store(1.0);
    level[source as usize].store(0, Relaxed);

    // Vertices in BFS order; level d is order[level_start[d]..level_start[d + 1]].
    let mut order: Vec<Vertex> = Vec::with_capacity(n);
    order.push(source);
    let mut level_start: Vec<usize> = vec![0, 1];
    let counters = EdgeMapCounters::default();
    let opts = EdgeMapOptions {
        direction: params.direction,
        ..EdgeMapOptions::with_counters(&counters)
    };
    let step = CountPaths {
        sigma: &sigma,
        level: &level,
    };
    let mut frontier = VertexSubset::single(n, source);
    let mut depth = 0u32;
    loop {
        frontier = edge_map(g, &frontier, &step, &opts);
        if frontier.is_empty() {
            break;
        }
        depth += 1;
        frontier.par_for_each(|v| level[v as usize].store(depth, Relaxed));
        match &frontier {
            VertexSubset::Sparse { ids, .. } => order.extend_from_slice(ids),
            VertexSubset::Dense { bits, .. } => order.extend(bits.to_sorted_ids()),
        }
        level_start.push(order.len());
    }
    let forward_edges = counters.edges();

    // Once a level is done, each of its vertices w only ever contributes (1 + δ(w)) / σ(w) to
    // its predecessors, so that ratio replaces σ(w) in place: a successor costs one read of
    // `sigma` and no division.
    let ratio = &sigma;
    let dependency: Vec<AtomicF64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicF64::new(0.0))
        .collect();
    let out = g.out();
    let deepest = &order[level_start[depth as usize]..level_start[depth as usize + 1]];
    deepest
        .par_iter()
        .with_min_len(1024)
        .for_each(|&w| ratio[w as usize].store(1.0 / sigma[w as usize].load()));
    // Level 0 is the source, whose dependency stays 0.
    let backward_edges: u64 = (1..depth as usize)
        .rev()
        .map(|d| {
            let succ_level = d as u32 + 1;
            order[level_start[d]..level_start[d + 1]]
                .par_iter()
                .with_min_len(64)
                .map(|&v| {
                    let mut sum = 0.0;
                    out.for_each_neighbor(v, |w| {
                        if level[w as usize].load(Relaxed) == succ_level {
                            sum += ratio[w as usize].load();
                        }
                    });
                    // Only level d - 1 reads v's slot, and it waits for this level to finish.
                    let paths = sigma[v as usize].load();
                    let delta = paths * sum;
                    dependency[v as usize].store(delta);
                    ratio[v as usize].store((1.0 + delta) / paths);
                    out.degree(v) as u64
                })
                .sum::<u64>()
        })
        .sum();

    let reached = order.len() as u64;
    drop((sigma, level, order));
    // Sequential on purpose: std collects a Vec's own iterator in place, so the output reuses
    // the atomics' allocation instead of doubling the peak.
    let dependencies: Vec<f64> = dependency.into_iter().map(|d| d.load()).collect();
    let max_dependency = dependencies.par_iter().copied().reduce(|| 0.0, f64::max);
    let stats = RunStats {
        iterations: depth as u64,
        edges_traversed: forward_edges + backward_edges,
        ..Default::default()
    }
    .with("reached", reached)
    .with("max_dependency", max_dependency);
    Ok(BcResult {
        dependencies,
        stats,
    })
}

/// Checks `result` against serial Brandes from `params.source`.
pub fn verify_bc<A: Adjacency>(
    g: &Graph<A>,
    params: &BcParams,
    result: &BcResult,
) -> Result<(), VerifyError> {
    let n = g.num_vertices();
    if params.source >= n as u64 {
        return Err(VerifyError::new(
            ALGORITHM,
            format!("source {} is out of range (n = {n})", params.source),
        ));
    }
    if result.dependencies.len() != n {
        return Err(VerifyError::new(
            ALGORITHM,
            format!(
                "{} dependencies for {n} vertices",
                result.dependencies.len()
            ),
        ));
    }
    let reference = serial_brandes(g.out(), params.source as Vertex);
    for (v, (&got, &want)) in result.dependencies.iter().zip(&reference).enumerate() {
        if (got - want).abs() > VERIFY_TOLERANCE * got.abs().max(want.abs()) || got.is_nan() {
            return Err(VerifyError::new(
                ALGORITHM,
                format!("vertex {v}: dependency {got}, expected {want}"),
            ));
        }
    }
    Ok(())
}

/// Queue BFS counting paths, then the vertices in reverse BFS order accumulate over out-edges.
fn serial_brandes<A: Adjacency>(out: &A, source: Vertex) -> Vec<f64> {
    let n = out.num_vertices();
    let mut hops = vec![u64::MAX; n];
    let mut paths = vec![0.0f64; n];
    let mut visit_order = Vec::new();
    hops[source as usize] = 0;
    paths[source as usize] = 1.0;
    visit_order.push(source);
    let mut head = 0;
    while head < visit_order.len() {
        let u = visit_order[head];
        head += 1;
        out.for_each_neighbor(u, |v| {
            if hops[v as usize] == u64::MAX {
                hops[v as usize] = hops[u as usize] + 1;
                visit_order.push(v);
            }
            if hops[v as usize] == hops[u as usize] + 1 {
                paths[v as usize] += paths[u as usize];
            }
        });
    }
    let mut delta = vec![0.0f64; n];
    for &u in visit_order.iter().rev() {
        if u == source {
            continue;
        }
        let mut acc = 0.0;
        out.for_each_neighbor(u, |v| {
            if hops[v as usize] == hops[u as usize] + 1 {
                acc += paths[u as usize] / paths[v as usize] * (1.0 + delta[v as usize]);
            }
        });
        delta[u as usize] = acc;
    }
    delta
}

// The registry's entry.

use crate::algorithm::{source_or_default, Algorithm, Descriptor, Needs, Params, SOURCE};
use crate::registry::Values;

/// `bc` in the registry.
pub struct Bc;

impl Algorithm for Bc {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "bc",
        summary: "single-source betweenness dependency from --source (Brandes)",
        params: &[SOURCE],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: false,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[],
        state_in_passes: None,
    };
    type Params = BcParams;
    type Result = BcResult;
    fn params<A: Adjacency>(given: &Params, g: &Graph<A>) -> Result<BcParams, AlgoError> {
        Ok(BcParams {
            source: source_or_default(given, g),
            ..Default::default()
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &BcParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<BcResult, AlgoError> {
        bc(g, q)
    }
    fn verify<A: Adjacency>(g: &Graph<A>, q: &BcParams, r: &BcResult) -> Result<(), VerifyError> {
        verify_bc(g, q, r)
    }
    fn output(r: BcResult, _q: &BcParams) -> (Option<Values>, RunStats) {
        (Some(Values::F64(r.dependencies)), r.stats)
    }
}
