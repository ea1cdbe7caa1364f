//! Single-source widest (bottleneck) paths: for every vertex, the largest width w such that some
//! path from the source uses only arcs of weight ≥ w. The source has width +inf, vertices it does
//! not reach 0. An arc of weight ≤ 0 (or NaN) carries nothing: a path through it is no wider
//! than no path at all.
//!
//! Two schedules of the same relaxation `width[d] = max(width[d], min(width[s], w(s,d)))`:
//! - [`WidestMethod::Frontier`], Bellman-Ford style: every vertex whose width grew in one round
//!   relaxes its out-arcs in the next, until nothing grows.
//! - [`WidestMethod::Buckets`], the widest-path analogue of delta-stepping: pending vertices sit
//!   in Julienne buckets keyed by `floor(width / bucket_width)`, the *widest* bucket is extracted
//!   first. A relaxation never makes a vertex wider than its source, so once the widest bucket
//!   stops changing its vertices are final and every arc is relaxed from a settled width at most
//!   a few times (exactly once per vertex when every width has its own bucket).
//!
//! Widths are only ever copied (min/max, no arithmetic), so both schedules give bit-identical
//! results for any thread count. State: widths (one f64), one flag byte, the buckets' O(n) ids.
//!
//! Lists on disk take a third schedule ([`in_passes`]): the same relaxation in label-correcting
//! passes with reentry, as sssp does there; a bucket's scattered lists would cost a planned
//! read each (Kronecker 22 within 256 MiB: 400 passes read 15 times the store). The widths
//! are the same.

use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::atomics::AtomicF64;
use vastgraph_engine::bucket::NO_BUCKET;
use vastgraph_engine::ooc::Weights;
use vastgraph_engine::traverse::label_correcting;
use vastgraph_engine::{
    edge_map, Adjacency, Bitmap, BucketOrder, Buckets, Direction, EdgeMapCounters, EdgeMapFn,
    EdgeMapOptions, Graph, Traversal, Vertex, VertexSubset,
};

use crate::common::{check_source, read_error, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): widths (f64), bucket ids and bucket
/// entries, repeated as widths improve.
pub const STATE: StateSize = StateSize {
    bytes_per_vertex: 24,
    bits_per_arc: 1,
};

const ALGORITHM: &str = "widest";

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WidestMethod {
    /// Rounds over the vertices whose width grew (Bellman-Ford style).
    Frontier,
    /// Widest bucket first (delta-stepping style).
    Buckets,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct WidestParams {
    pub source: u64,
    pub method: WidestMethod,
    /// Bucket width for [`WidestMethod::Buckets`]; None picks [`default_bucket_width`].
    pub bucket_width: Option<f64>,
    pub direction: Direction,
}

impl Default for WidestParams {
    fn default() -> Self {
        WidestParams {
            source: 0,
            method: WidestMethod::Buckets,
            bucket_width: None,
            direction: Direction::Auto,
        }
    }
}

#[derive(Debug)]
pub struct WidestResult {
    /// Bottleneck width of the widest path from the source: +inf at the source, 0 when unreached.
    pub widths: Vec<f64>,
    /// `iterations` = relaxation rounds; extra: `reached`, `bucket_width` (bucketed method).
    pub stats: RunStats,
}

/// The width grew since the vertex last relaxed its out-arcs (it belongs in a bucket).
const PENDING: u8 = 1;
/// The vertex is already in this round's output (pushes may raise it several times).
const MOVED: u8 = 2;

/// What an arc of weight `w` passes on from a vertex of width `from`.
#[inline]
fn carried(from: f64, w: f64) -> f64 {
    // `w > 0` is false for NaN too: such arcs carry nothing.
    if w > 0.0 {
        from.min(w)
    } else {
        0.0
    }
}

struct Widen<'a> {
    width: &'a [AtomicF64],
    flags: &'a [AtomicU8],
}

impl EdgeMapFn for Widen<'_> {
    const WEIGHTED: bool = true;

    fn update(&self, s: Vertex, d: Vertex, w: f64) -> bool {
        let candidate = carried(self.width[s as usize].load(), w);
        let slot = &self.width[d as usize];
        if candidate > slot.load() {
            slot.store(candidate);
            self.flags[d as usize].fetch_or(PENDING, Relaxed);
            true
        } else {
            false
        }
    }

    fn update_atomic(&self, s: Vertex, d: Vertex, w: f64) -> bool {
        let candidate = carried(self.width[s as usize].load(), w);
        let slot = &self.width[d as usize];
        // The plain load keeps the atomic read-modify-write off arcs that cannot widen `d`.
        if candidate > slot.load() && slot.write_max_nonneg(candidate) {
            self.flags[d as usize].fetch_or(PENDING | MOVED, Relaxed) & MOVED == 0
        } else {
            false
        }
    }
}

/// The bucket of a width; +inf and widths too large for a key share the top one.
#[inline]
fn bucket_of(width: f64, bucket_width: f64) -> u64 {
    let b = (width / bucket_width).floor();
    if b >= (NO_BUCKET - 1) as f64 {
        NO_BUCKET - 1
    } else {
        b as u64
    }
}

/// Vertices sampled by [`default_bucket_width`].
const SAMPLE_VERTICES: usize = 4096;
/// Buckets the sampled weight range is split into, at most.
const TARGET_BUCKETS: f64 = 4096.0;

/// A bucket width for the graph's weights, from the out-arcs of a deterministic sample of
/// vertices: the smallest positive weight (so integral weights get one bucket per value), widened
/// when the sampled range would need more than 4096 buckets. 1 when no positive weight is seen.
pub fn default_bucket_width<A: Adjacency>(g: &Graph<A>) -> f64 {
    let n = g.num_vertices();
    let step = n.div_ceil(SAMPLE_VERTICES).max(1);
    let (min, max) = (0..n)
        .step_by(step)
        .map(|v| {
            let (mut min, mut max) = (f64::INFINITY, 0.0f64);
            g.out().for_each_weighted(v as Vertex, |_, w| {
                if w > 0.0 && w.is_finite() {
                    min = min.min(w);
                    max = max.max(w);
                }
            });
            (min, max)
        })
        .fold((f64::INFINITY, 0.0f64), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    if min.is_infinite() {
        1.0
    } else {
        min.max((max - min) / TARGET_BUCKETS)
    }
}

/// Widest paths from `params.source` on a weighted graph.
pub fn widest_path<A: Adjacency>(
    g: &Graph<A>,
    params: &WidestParams,
) -> Result<WidestResult, AlgoError> {
    let source = check_source(g, params.source)?;
    if !g.is_weighted() {
        return Err(needs_weights());
    }
    if g.out().on_disk().is_some() {
        return in_passes(g, source);
    }
    let bucket_width = match params.bucket_width {
        Some(b) if b > 0.0 && b.is_finite() => b,
        Some(b) => {
            return Err(AlgoError::InvalidParameter {
                algorithm: ALGORITHM,
                message: format!("bucket_width must be a positive finite number, got {b}"),
            })
        }
        None => default_bucket_width(g),
    };
    let n = g.num_vertices();
    let width: Vec<AtomicF64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicF64::new(0.0))
        .collect();
    let flags: Vec<AtomicU8> = (0..n).into_par_iter().map(|_| AtomicU8::new(0)).collect();
    width[source as usize].store(f64::INFINITY);
    flags[source as usize].store(PENDING, Relaxed);

    let widen = Widen {
        width: &width,
        flags: &flags,
    };
    let counters = EdgeMapCounters::default();
    let opts = EdgeMapOptions {
        direction: params.direction,
        ..EdgeMapOptions::with_counters(&counters)
    };
    // One relaxation round from `frontier`: the vertices it widened, MOVED cleared again.
    let relax_from = |frontier: &VertexSubset| {
        let widened = edge_map(g, frontier, &widen, &opts);
        widened.par_for_each(|v| {
            flags[v as usize].fetch_and(!MOVED, Relaxed);
        });
        widened
    };

    let mut rounds = 0u64;
    match params.method {
        WidestMethod::Frontier => {
            let mut frontier = VertexSubset::single(n, source);
            while !frontier.is_empty() {
                rounds += 1;
                frontier = relax_from(&frontier);
            }
        }
        WidestMethod::Buckets => {
            let key = |v: Vertex| {
                if flags[v as usize].load(Relaxed) & PENDING != 0 {
                    bucket_of(width[v as usize].load(), bucket_width)
                } else {
                    NO_BUCKET
                }
            };
            let mut buckets = Buckets::new(n, key, BucketOrder::Decreasing);
            while let Some((_, ids)) = buckets.next_bucket() {
                rounds += 1;
                ids.par_iter().with_min_len(1024).for_each(|&v| {
                    flags[v as usize].fetch_and(!PENDING, Relaxed);
                });
                let widened = relax_from(&VertexSubset::from_ids(n, ids)).into_sparse();
                buckets.update(widened.sparse_ids().expect("converted to sparse"));
            }
        }
    }

    let widths: Vec<f64> = width.into_par_iter().map(|w| w.load()).collect();
    let reached = widths.par_iter().filter(|&&w| w > 0.0).count() as u64;
    let mut stats = RunStats {
        iterations: rounds,
        edges_traversed: counters.edges(),
        ..Default::default()
    }
    .with("reached", reached);
    if params.method == WidestMethod::Buckets {
        stats = stats.with("bucket_width", bucket_width);
    }
    Ok(WidestResult { widths, stats })
}

const NEEDS_WEIGHTS_HINT: &str =
    "arc weights are the widths; convert a weighted input (third column) or generate with --weighted";

fn needs_weights() -> AlgoError {
    AlgoError::NeedsWeights {
        algorithm: ALGORITHM,
        hint: NEEDS_WEIGHTS_HINT,
    }
}

/// The state [`in_passes`] keeps for `n` vertices: widths, and the active and activated
/// bitmaps.
pub fn state_in_passes(n: u64) -> u64 {
    8 * n + 2 * n.div_ceil(64) * 8
}

/// Widest paths from `source` in label-correcting passes over any [`Traversal`]
/// ([`label_correcting`]): each pass relaxes the out-arcs of the vertices whose width grew.
/// The widths are [`widest_path`]'s, bit for bit.
pub fn in_passes<G: Traversal>(g: &G, source: Vertex) -> Result<WidestResult, AlgoError> {
    if !g.has_weights() {
        return Err(needs_weights());
    }
    let n = g.num_vertices();
    let width: Vec<AtomicF64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicF64::new(0.0))
        .collect();
    width[source as usize].store(f64::INFINITY);
    let relax = |v: Vertex, neighbors: &[Vertex], weights: Weights<'_>, activated: &Bitmap| {
        let Some(weights) = weights else { return };
        let from = width[v as usize].load();
        for (i, &u) in neighbors.iter().enumerate() {
            let candidate = carried(from, weights.get(i));
            let slot = &width[u as usize];
            if candidate > slot.load() && slot.write_max_nonneg(candidate) {
                activated.set_atomic(u as usize);
            }
        }
    };
    let mut start = Bitmap::new(n);
    start.set(source as usize);
    let (passes, edges) =
        label_correcting(g, start, relax, || true).map_err(read_error(ALGORITHM))?;
    let widths: Vec<f64> = width.into_par_iter().map(|w| w.load()).collect();
    let reached = widths.par_iter().filter(|&&w| w > 0.0).count() as u64;
    let stats = RunStats {
        iterations: passes,
        edges_traversed: edges,
        ..Default::default()
    }
    .with("reached", reached);
    Ok(WidestResult { widths, stats })
}

/// Checks every width against a serial Dijkstra variant (a max-heap on the bottleneck width).
/// Widths are copied, never summed, so they must match exactly.
pub fn verify_widest_path<A: Adjacency>(
    g: &Graph<A>,
    params: &WidestParams,
    result: &WidestResult,
) -> Result<(), VerifyError> {
    let n = g.num_vertices();
    if params.source >= n as u64 {
        return Err(VerifyError::new(
            ALGORITHM,
            format!("source {} is out of range (n = {n})", params.source),
        ));
    }
    if result.widths.len() != n {
        return Err(VerifyError::new(
            ALGORITHM,
            format!("{} widths for {n} vertices", result.widths.len()),
        ));
    }
    let source = params.source as Vertex;
    let mut best = vec![0.0f64; n];
    let mut done = vec![false; n];
    best[source as usize] = f64::INFINITY;
    // Non-negative f64s (and +inf) order like their bit patterns.
    let mut heap = BinaryHeap::from([(f64::INFINITY.to_bits(), source)]);
    while let Some((bits, u)) = heap.pop() {
        if done[u as usize] {
            continue;
        }
        done[u as usize] = true;
        let wu = f64::from_bits(bits);
        g.out().for_each_weighted(u, |v, w| {
            let through = if w > 0.0 { wu.min(w) } else { 0.0 };
            if through > best[v as usize] {
                best[v as usize] = through;
                heap.push((through.to_bits(), v));
            }
        });
    }
    match (0..n).find(|&v| best[v].to_bits() != result.widths[v].to_bits()) {
        Some(v) => Err(VerifyError::new(
            ALGORITHM,
            format!(
                "vertex {v}: width {}, a serial max-bottleneck Dijkstra finds {}",
                result.widths[v], best[v]
            ),
        )),
        None => Ok(()),
    }
}

// The registry's entry.

use crate::algorithm::{
    source_or_default, Algorithm, Conflict, Descriptor, Needs, Param, Params, SOURCE,
};
use crate::registry::Values;

pub const METHOD: Param = Param::choice(
    "method",
    &["buckets", "frontier"],
    "buckets (widest first, by width buckets) or frontier (label-correcting rounds)",
);
/// `widest` in the registry.
pub struct Widest;

impl Algorithm for Widest {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "widest",
        summary: "widest (bottleneck) path width from --source; --method frontier|buckets",
        params: &[SOURCE, crate::sssp::DELTA, METHOD],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: Some(NEEDS_WEIGHTS_HINT),
            symmetric_for: None,
        },
        state: STATE,
        resumable: false,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[Conflict::OnlyWith(&crate::sssp::DELTA, &METHOD, "buckets")],
        state_in_passes: Some(|n, _| Some(state_in_passes(n))),
    };
    type Params = WidestParams;
    type Result = WidestResult;
    fn params<A: Adjacency>(given: &Params, g: &Graph<A>) -> Result<WidestParams, AlgoError> {
        let method = match given.choice(&METHOD) {
            "frontier" => WidestMethod::Frontier,
            _ => WidestMethod::Buckets,
        };
        Ok(WidestParams {
            source: source_or_default(given, g),
            method,
            bucket_width: given.given_number(&crate::sssp::DELTA),
            ..Default::default()
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &WidestParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<WidestResult, AlgoError> {
        widest_path(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &WidestParams,
        r: &WidestResult,
    ) -> Result<(), VerifyError> {
        verify_widest_path(g, q, r)
    }
    fn output(r: WidestResult, _q: &WidestParams) -> (Option<Values>, RunStats) {
        (Some(Values::F64(r.widths)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn bottleneck_prefers_the_wide_detour() {
        // 0-1 is narrow (2); 0-2-3-1 is wider (5, 7, 6 → 5). Vertex 4 is only behind a 0-weight arc.
        let edges = [
            (0, 1, 2.0),
            (0, 2, 5.0),
            (2, 3, 7.0),
            (3, 1, 6.0),
            (1, 4, 0.0),
        ];
        let g = InMemoryGraph::from_weighted_edges(5, &edges, true);
        for method in [WidestMethod::Frontier, WidestMethod::Buckets] {
            let params = WidestParams {
                method,
                ..Default::default()
            };
            let r = widest_path(&g.view(), &params).unwrap();
            assert_eq!(r.widths, vec![f64::INFINITY, 5.0, 5.0, 5.0, 0.0]);
            verify_widest_path(&g.view(), &params, &r).unwrap();
        }
    }

    #[test]
    fn unweighted_graph_is_refused() {
        let g = InMemoryGraph::from_edges(2, &[(0, 1)], true);
        let err = widest_path(&g.view(), &WidestParams::default()).unwrap_err();
        assert!(matches!(err, AlgoError::NeedsWeights { .. }));
    }
}
