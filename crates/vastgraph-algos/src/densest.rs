//! Approximate densest subgraph of a symmetric graph by parallel peeling (Bahmani, Kumar,
//! Vassilvitskii 2012; as GBBS's approximate densest subgraph): with ρ = edges / vertices of
//! what is left, every round removes *all* vertices of remaining degree ≤ 2(1+ε)ρ at once and
//! updates their neighbours' degrees. The densest of the nested sets seen is the answer, a
//! 2(1+ε)-approximation of the maximum density, in O(log_{1+ε} n) rounds (Charikar's serial
//! peeling removes one minimum-degree vertex at a time for a 2-approximation).
//!
//! Why the guarantee holds: when the first vertex of the k_max-core goes, its degree is ≥ k_max,
//! so 2(1+ε)ρ ≥ k_max at that round; and the maximum density is at most k_max. Density is
//! edges / vertices (self-loops ignored), so a 2(1+ε)-approximation also keeps
//! ρ ≥ k_max / (2(1+ε)), which the verifier checks on every graph.
//!
//! Degrees and counts are integers, so the result depends on the input only. On lists read from
//! disk a round is one planned pass ([`Traversal::pass`]) over the peeled vertices' lists; in
//! memory they are walked in place, without the bitmap a pass takes. State: remaining degree and removal round per vertex, the
//! vertices left and the round's peeled ones: O(n).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::ooc::ScanSpec;
use vastgraph_engine::{Adjacency, Bitmap, Graph, Traversal, Vertex};

use crate::common::{read_error, require_symmetric, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): degrees, the peeling buckets and the
/// chosen set.
pub const STATE: StateSize = StateSize::per_vertex(28);

const ALGORITHM: &str = "densest";

/// The removal round of a vertex not removed yet.
const ALIVE: u32 = u32::MAX;

/// Largest graph the verifier compares with the exact optimum by enumerating subsets.
pub const BRUTE_FORCE_MAX_VERTICES: usize = 16;

#[derive(Clone, Debug, serde::Serialize)]
pub struct DensestParams {
    /// Peeling slack: a round removes degrees ≤ 2(1+ε)ρ. Larger ε, fewer rounds, weaker bound.
    pub epsilon: f64,
}

impl Default for DensestParams {
    fn default() -> Self {
        DensestParams { epsilon: 0.001 }
    }
}

#[derive(Debug)]
pub struct DensestResult {
    /// 1 for the vertices of the chosen subgraph.
    pub in_subgraph: Vec<u8>,
    /// `iterations` = peeling rounds; extra: `density` (edges / vertices of the chosen set),
    /// `vertices`, `edges`.
    pub stats: RunStats,
}

pub fn densest_subgraph<A: Adjacency>(
    g: &Graph<A>,
    params: &DensestParams,
) -> Result<DensestResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let epsilon = params.epsilon;
    if !(epsilon >= 0.0 && epsilon.is_finite()) {
        return Err(AlgoError::InvalidParameter {
            algorithm: ALGORITHM,
            message: format!("epsilon must be a non-negative finite number, got {epsilon}"),
        });
    }
    let n = g.num_vertices();
    let pass = |set: &Bitmap, visit: &(dyn Fn(Vertex, &[Vertex]) + Sync)| {
        g.pass(&ScanSpec::ids_only(set), |v, piece, _| visit(v, piece))
            .map_err(read_error(ALGORITHM))
    };
    // Degrees without self-loops: on disk a pass finds the self-loops, in memory the lists are
    // counted in place.
    let out = g.out();
    let degree: Vec<AtomicU32> = (0..n as Vertex)
        .into_par_iter()
        .map(|v| match A::READS_IN_PASSES {
            true => AtomicU32::new(out.degree(v) as u32),
            false => {
                let mut d = 0;
                out.for_each_neighbor(v, |u| d += (u != v) as u32);
                AtomicU32::new(d)
            }
        })
        .collect();
    if A::READS_IN_PASSES {
        pass(&g.vertices_with_arcs(), &|v, piece| {
            if piece.binary_search(&v).is_ok() {
                degree[v as usize].fetch_sub(1, Relaxed);
            }
        })?;
    }
    let removed_in: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(ALIVE))
        .collect();
    let edges_among = |vs: &[Vertex]| {
        vs.par_iter()
            .map(|&v| degree[v as usize].load(Relaxed) as u64)
            .sum::<u64>()
            / 2
    };

    let mut alive: Vec<Vertex> = (0..n as Vertex).collect();
    // On disk, the round's peeled vertices as the pass's set; cleared after each round.
    let peeled = Bitmap::new(if A::READS_IN_PASSES { n } else { 0 });
    let mut edges = edges_among(&alive);
    // (density, edges, vertices, round) of the densest set seen.
    let mut best = (f64::NEG_INFINITY, 0u64, 0u64, 0u32);
    let (mut round, mut scanned) = (0u32, g.num_arcs());
    while !alive.is_empty() {
        let density = edges as f64 / alive.len() as f64;
        if density > best.0 {
            best = (density, edges, alive.len() as u64, round);
        }
        let threshold = 2.0 * (1.0 + epsilon) * density;
        let (peel, keep): (Vec<Vertex>, Vec<Vertex>) = alive
            .par_iter()
            .partition(|&&v| degree[v as usize].load(Relaxed) as f64 <= threshold);
        peel.par_iter()
            .for_each(|&u| removed_in[u as usize].store(round, Relaxed));
        // Each peeled vertex lowers the degrees of its neighbours still alive.
        let lower = |v: Vertex| {
            if removed_in[v as usize].load(Relaxed) == ALIVE {
                degree[v as usize].fetch_sub(1, Relaxed);
            }
        };
        if A::READS_IN_PASSES {
            peel.par_iter().for_each(|&u| {
                peeled.set_atomic(u as usize);
            });
            scanned += pass(&peeled, &|_, piece| piece.iter().for_each(|&v| lower(v)))?;
            peel.par_iter().for_each(|&u| {
                peeled.take(u as usize);
            });
        } else {
            scanned += peel.par_iter().map(|&u| out.degree(u) as u64).sum::<u64>();
            peel.par_iter()
                .for_each(|&u| out.for_each_neighbor(u, lower));
        }
        edges = edges_among(&keep);
        alive = keep;
        round += 1;
    }

    let best_round = best.3;
    let in_subgraph: Vec<u8> = removed_in
        .into_par_iter()
        .map(|r| (r.into_inner() >= best_round) as u8)
        .collect();
    let stats = RunStats {
        iterations: round as u64,
        edges_traversed: scanned,
        ..Default::default()
    }
    .with("density", if n == 0 { 0.0 } else { best.0 })
    .with("vertices", best.2)
    .with("edges", best.1);
    Ok(DensestResult { in_subgraph, stats })
}

/// Checks the reported density against the chosen set (edges inside / vertices), and the
/// approximation guarantee: density ≥ k_max / (2(1+ε)) with k_max the degeneracy (serial
/// Matula–Beck peeling), and, for graphs of at most [`BRUTE_FORCE_MAX_VERTICES`] vertices,
/// density ≥ exact / (2(1+ε)) against the optimum over all vertex subsets.
pub fn verify_densest_subgraph<A: Adjacency>(
    g: &Graph<A>,
    params: &DensestParams,
    result: &DensestResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    let chosen = &result.in_subgraph;
    if chosen.len() != n {
        return fail(format!("{} flags for {n} vertices", chosen.len()));
    }
    if let Some(v) = chosen.iter().position(|&x| x > 1) {
        return fail(format!("vertex {v} has flag {}, not 0 or 1", chosen[v]));
    }
    let size = chosen.iter().filter(|&&x| x == 1).count();
    if n == 0 {
        return Ok(());
    }
    if size == 0 {
        return fail("the chosen subgraph is empty".into());
    }
    let mut arcs_inside = 0u64;
    for u in (0..n as Vertex).filter(|&u| chosen[u as usize] == 1) {
        g.out().for_each_neighbor(u, |v| {
            arcs_inside += (v != u && chosen[v as usize] == 1) as u64
        });
    }
    let density = (arcs_inside / 2) as f64 / size as f64;
    let Some(reported) = result.stats.extra.get("density").and_then(|d| d.as_f64()) else {
        return fail("the stats do not report the density".into());
    };
    if (reported - density).abs() > 1e-9 * density.max(1.0) {
        return fail(format!(
            "reported density {reported}, but the chosen set has density {density}"
        ));
    }
    let factor = 2.0 * (1.0 + params.epsilon);
    let k_max = degeneracy(g.out());
    if density * factor < k_max as f64 * (1.0 - 1e-12) {
        return fail(format!(
            "density {density} is below k_max / (2(1+ε)) = {k_max} / {factor}"
        ));
    }
    if n <= BRUTE_FORCE_MAX_VERTICES {
        let exact = brute_force_max_density(g.out());
        if density * factor < exact * (1.0 - 1e-12) || density > exact * (1.0 + 1e-12) {
            return fail(format!(
                "density {density}, but the exact maximum is {exact} (factor {factor} allowed)"
            ));
        }
    }
    Ok(())
}

/// The largest k with a non-empty k-core, by serial min-degree peeling with bucket lists.
fn degeneracy<A: Adjacency>(adj: &A) -> u32 {
    let n = adj.num_vertices();
    let mut degree: Vec<usize> = (0..n as Vertex)
        .map(|v| {
            let mut d = 0;
            adj.for_each_neighbor(v, |u| d += (u != v) as usize);
            d
        })
        .collect();
    let max_degree = degree.iter().copied().max().unwrap_or(0);
    let mut bins: Vec<Vec<Vertex>> = vec![Vec::new(); max_degree + 1];
    for v in 0..n {
        bins[degree[v]].push(v as Vertex);
    }
    let mut removed = vec![false; n];
    let (mut k, mut d) = (0usize, 0usize);
    for _ in 0..n {
        // Lazy deletion: a bin entry is live when it matches the vertex's current degree.
        let v = loop {
            match bins[d].pop() {
                Some(v) if !removed[v as usize] && degree[v as usize] == d => break v,
                Some(_) => {}
                None => d += 1,
            }
        };
        removed[v as usize] = true;
        k = k.max(d);
        adj.for_each_neighbor(v, |u| {
            if u != v && !removed[u as usize] {
                degree[u as usize] -= 1;
                bins[degree[u as usize]].push(u);
            }
        });
        d = d.saturating_sub(1);
    }
    k as u32
}

/// The maximum of edges / vertices over all non-empty vertex subsets (n ≤ 16).
fn brute_force_max_density<A: Adjacency>(adj: &A) -> f64 {
    let n = adj.num_vertices();
    let masks: Vec<u32> = (0..n as Vertex)
        .map(|v| {
            let mut m = 0u32;
            adj.for_each_neighbor(v, |u| {
                if u != v {
                    m |= 1 << u
                }
            });
            m
        })
        .collect();
    (1u32..1 << n)
        .map(|set| {
            let arcs: u32 = (0..n)
                .filter(|&v| set >> v & 1 == 1)
                .map(|v| (masks[v] & set).count_ones())
                .sum();
            (arcs / 2) as f64 / set.count_ones() as f64
        })
        .fold(0.0, f64::max)
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Param, Params};
use crate::registry::Values;
use std::ops::Bound::{Included, Unbounded};

pub const EPSILON: Param = Param::number(
    "epsilon",
    0.001,
    (Included(0.0), Unbounded),
    "peel the vertices of degree below 2(1+ε) times the density",
);
/// `densest` in the registry.
pub struct Densest;

impl Algorithm for Densest {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "densest",
        summary: "approximate densest subgraph by peeling (--epsilon); 1 = chosen",
        params: &[EPSILON],
        needs: Needs {
            symmetric: true,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: false,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[],
        state_in_passes: Some(|n, _| Some(STATE.bytes(n, 0, 1))),
    };
    type Params = DensestParams;
    type Result = DensestResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<DensestParams, AlgoError> {
        Ok(DensestParams {
            epsilon: given.number(&EPSILON),
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &DensestParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<DensestResult, AlgoError> {
        densest_subgraph(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &DensestParams,
        r: &DensestResult,
    ) -> Result<(), VerifyError> {
        verify_densest_subgraph(g, q, r)
    }
    fn output(r: DensestResult, _q: &DensestParams) -> (Option<Values>, RunStats) {
        (Some(Values::U8(r.in_subgraph)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn finds_the_clique_behind_a_long_tail() {
        // K6 (density 2.5) plus a path of 30 vertices hanging off it (density → 1).
        let mut edges: Vec<(u32, u32)> = (0..6)
            .flat_map(|u| (u + 1..6).map(move |v| (u, v)))
            .collect();
        edges.extend((5..35).map(|i| (i, i + 1)));
        let g = InMemoryGraph::from_edges(36, &edges, true);
        let params = DensestParams::default();
        let r = densest_subgraph(&g.view(), &params).unwrap();
        verify_densest_subgraph(&g.view(), &params, &r).unwrap();
        assert_eq!(r.stats.extra["density"].as_f64(), Some(2.5));
        assert_eq!(r.in_subgraph[..6], [1; 6]);
        assert_eq!(degeneracy(g.view().out()), 5);
    }

    #[test]
    fn verifier_catches_a_wrong_density_and_a_poor_set() {
        let edges: Vec<(u32, u32)> = (0..5)
            .flat_map(|u| (u + 1..5).map(move |v| (u, v)))
            .chain([(5, 6)])
            .collect();
        let g = InMemoryGraph::from_edges(7, &edges, true);
        let params = DensestParams::default();
        let mut r = densest_subgraph(&g.view(), &params).unwrap();
        assert_eq!(brute_force_max_density(g.view().out()), 2.0);
        r.stats.extra.insert("density".into(), 3.0.into());
        assert!(verify_densest_subgraph(&g.view(), &params, &r).is_err());
        // Just the pendant edge: density 0.5 < 2 / 2.002.
        r.in_subgraph = vec![0, 0, 0, 0, 0, 1, 1];
        r.stats.extra.insert("density".into(), 0.5.into());
        assert!(verify_densest_subgraph(&g.view(), &params, &r).is_err());
    }
}
