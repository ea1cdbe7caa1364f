//! Single-source shortest paths: distance per vertex as f64 (+inf when unreachable).
//!
//! [`sssp`] is delta-stepping for non-negative weights (with integral weights and delta 1 it is
//! Sage's weighted BFS). Vertices sit in Julienne-style [`Buckets`] keyed by
//! `floor(distance / delta)`; the lowest bucket is extracted and relaxes its out-edges with one
//! [`edge_map`], and every vertex whose distance dropped is re-filed. A vertex lowered into the
//! bucket being processed (a light or zero-weight arc) is extracted again in the next round,
//! so each bucket is settled before the next one opens. State: distances, one flag byte per
//! vertex and the buckets' O(n) ids.
//!
//! [`bellman_ford`] handles negative weights: only vertices whose distance changed in one round
//! relax their out-edges in the next. Without a negative cycle nothing changes after n-1 rounds
//! (a shortest path has at most n-1 arcs), so a change in round n proves a cycle reachable from
//! the source; a distance below the sum of all negative weights (a bound on every simple path)
//! proves one earlier.

use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;
use vastgraph_engine::atomics::AtomicF64;
use vastgraph_engine::bucket::NO_BUCKET;
use vastgraph_engine::memory::huge_page_vec;
use vastgraph_engine::ooc::Weights;
use vastgraph_engine::traverse::label_correcting;
use vastgraph_engine::{
    edge_map, Adjacency, Bitmap, BucketOrder, Buckets, Direction, EdgeMapCounters, EdgeMapFn,
    EdgeMapOptions, Graph, Traversal, Vertex, VertexSubset,
};

use crate::checkpoint::{self, Checkpoint, Column, State};
use crate::common::{check_source, read_error, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): distances (f64), bucket ids and the
/// buckets, whose entries a relaxed vertex may repeat (about a bit per arc at worst).
pub const STATE: StateSize = StateSize {
    bytes_per_vertex: 24,
    bits_per_arc: 1,
};

const SSSP: &str = "sssp";
const BELLMAN_FORD: &str = "bellman-ford";
const NEEDS_WEIGHTS_HINT: &str =
    "run bfs for hop distances, or convert a weighted input (third column) / generate with --weighted";

/// Relative tolerance of the verifier (integral weights give exact sums in f64, so they match
/// exactly; fractional weights may round differently along equally short paths).
pub const VERIFY_TOLERANCE: f64 = 1e-9;

#[derive(Clone, Debug, serde::Serialize)]
pub struct SsspParams {
    pub source: u64,
    /// Bucket width. None picks [`default_delta`] from the graph's weights.
    pub delta: Option<f64>,
    /// Push/pull policy of each relaxation step. Push by default: any in-neighbour may still
    /// improve a vertex, so pulling cannot stop early and scans every in-arc of the graph.
    pub direction: Direction,
}

impl Default for SsspParams {
    fn default() -> Self {
        SsspParams {
            source: 0,
            delta: None,
            direction: Direction::Push,
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct BellmanFordParams {
    pub source: u64,
    /// As for [`SsspParams::direction`].
    pub direction: Direction,
}

impl Default for BellmanFordParams {
    fn default() -> Self {
        BellmanFordParams {
            source: 0,
            direction: Direction::Push,
        }
    }
}

#[derive(Debug)]
pub struct SsspResult {
    /// Shortest-path distance from the source, +inf for vertices it does not reach.
    pub distances: Vec<f64>,
    pub stats: RunStats,
}

/// Per-vertex flag: the distance dropped since the vertex last relaxed its out-edges, so it
/// belongs in a bucket (a settled vertex has no bucket, whatever its distance says).
const PENDING: u8 = 1;
/// Per-vertex flag: the vertex is already in this step's output (one entry per lowered vertex,
/// however many arcs lowered it).
const MOVED: u8 = 2;

fn require_weights<A: Adjacency>(g: &Graph<A>, algorithm: &'static str) -> Result<(), AlgoError> {
    if g.is_weighted() {
        Ok(())
    } else {
        Err(AlgoError::NeedsWeights {
            algorithm,
            hint: NEEDS_WEIGHTS_HINT,
        })
    }
}

/// The least offending arc, by (source, target), that a step's relaxations saw, reported after
/// the step: the same arc for any thread count, whichever thread reached one first.
#[derive(Default)]
struct BadArc(Mutex<Option<(Vertex, Vertex, f64)>>);

impl BadArc {
    #[cold]
    fn record(&self, s: Vertex, d: Vertex, w: f64) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none_or(|(s0, d0, _)| (s, d) < (s0, d0)) {
            *slot = Some((s, d, w));
        }
    }
    fn take(&self) -> Option<(Vertex, Vertex, f64)> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
    fn is_empty(&self) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).is_none()
    }
}

/// Delta-stepping's (and the passes') refusal of a reachable arc `s -> d` of negative weight.
fn negative_arc(s: Vertex, d: Vertex, w: f64) -> AlgoError {
    AlgoError::InvalidInput {
        algorithm: SSSP,
        message: format!(
            "arc {s} -> {d} has weight {w}, but delta-stepping needs non-negative weights; \
             run bellman-ford for negative weights"
        ),
    }
}

/// Relaxation with non-negative weights.
struct Relax<'a> {
    dist: &'a [AtomicF64],
    flags: &'a [AtomicU8],
    bad: &'a BadArc,
}

impl EdgeMapFn for Relax<'_> {
    const WEIGHTED: bool = true;

    #[inline(always)]
    fn update(&self, s: Vertex, d: Vertex, w: f64) -> bool {
        if w.is_nan() || w < 0.0 {
            self.bad.record(s, d, w);
            return false;
        }
        let candidate = self.dist[s as usize].load() + w;
        let slot = &self.dist[d as usize];
        if candidate < slot.load() {
            slot.store(candidate);
            self.flags[d as usize].fetch_or(PENDING, Relaxed);
            true
        } else {
            false
        }
    }

    #[inline(always)]
    fn update_atomic(&self, s: Vertex, d: Vertex, w: f64) -> bool {
        if w.is_nan() || w < 0.0 {
            self.bad.record(s, d, w);
            return false;
        }
        let candidate = self.dist[s as usize].load() + w;
        let slot = &self.dist[d as usize];
        // The plain load first keeps the atomic read-modify-write off arcs that cannot improve.
        if candidate < slot.load() && slot.write_min_nonneg(candidate) {
            self.flags[d as usize].fetch_or(PENDING | MOVED, Relaxed) & MOVED == 0
        } else {
            false
        }
    }
}

/// The bucket of a (non-negative) distance; distances too large for a key share the last one.
#[inline]
fn bucket_of(distance: f64, delta: f64) -> u64 {
    let b = distance / delta;
    if b >= (NO_BUCKET - 1) as f64 {
        NO_BUCKET - 1
    } else {
        // Truncation is the floor here, without a libm call.
        b as u64
    }
}

/// Vertices sampled by [`default_delta`].
const DELTA_SAMPLE_VERTICES: usize = 4096;

/// A bucket width suited to the weights: the mean arc weight times `n / arcs` (the inverse of
/// the average degree), as Meyer and Sanders' analysis suggests, from the out-arcs of a
/// deterministic sample of vertices; at least the smallest positive weight seen, so that one
/// bucket is never narrower than any arc. Falls back to 1 when no positive weight is sampled.
pub fn default_delta<A: Adjacency>(g: &Graph<A>) -> f64 {
    let n = g.num_vertices();
    if n == 0 || g.num_arcs() == 0 {
        return 1.0;
    }
    let step = n.div_ceil(DELTA_SAMPLE_VERTICES).max(1);
    let (sum, count, min_positive) = (0..n)
        .step_by(step)
        .map(|v| {
            let (mut sum, mut count, mut min) = (0.0f64, 0u64, f64::INFINITY);
            g.out().for_each_weighted(v as Vertex, |_, w| {
                if w.is_finite() && w > 0.0 {
                    sum += w;
                    count += 1;
                    min = min.min(w);
                }
            });
            (sum, count, min)
        })
        .fold((0.0, 0u64, f64::INFINITY), |a, b| {
            (a.0 + b.0, a.1 + b.1, a.2.min(b.2))
        });
    if count == 0 {
        return 1.0;
    }
    let mean = sum / count as f64;
    let average_degree = g.num_arcs() as f64 / n as f64;
    (mean / average_degree).max(min_positive)
}

/// Delta-stepping SSSP from `params.source`; every reachable arc weight must be non-negative.
pub fn sssp<A: Adjacency>(g: &Graph<A>, params: &SsspParams) -> Result<SsspResult, AlgoError> {
    sssp_resumable(g, params, None)
}

/// [`sssp`], saving its state to `checkpoint` after rounds (the distances, and which vertices
/// still wait in a bucket), or continuing from the state saved there.
pub fn sssp_resumable<A: Adjacency>(
    g: &Graph<A>,
    params: &SsspParams,
    checkpoint: Option<&Checkpoint>,
) -> Result<SsspResult, AlgoError> {
    let source = check_source(g, params.source)?;
    require_weights(g, SSSP)?;
    if checkpoint.is_none() && g.out().on_disk().is_some() {
        return in_passes(g, source);
    }
    let delta = match params.delta {
        Some(d) if d > 0.0 && d.is_finite() => d,
        Some(d) => {
            return Err(AlgoError::InvalidParameter {
                algorithm: SSSP,
                message: format!("delta must be a positive finite number, got {d}"),
            })
        }
        None => default_delta(g),
    };
    let n = g.num_vertices();
    let (mut rounds, mut edges_before) = (0u64, 0u64);
    let (dist, flags): (Vec<AtomicF64>, Vec<AtomicU8>) =
        match checkpoint::begin(checkpoint, SSSP, params)? {
            Some(mut saved) => {
                rounds = saved.iteration;
                edges_before = saved.u64("edges")?;
                let dist = saved.column::<f64>("distances", n)?;
                let pending = saved.column::<u8>("pending", n)?;
                (
                    dist.into_iter().map(AtomicF64::new).collect(),
                    pending
                        .into_iter()
                        .map(|p| AtomicU8::new(p & PENDING))
                        .collect(),
                )
            }
            None => {
                let dist: Vec<AtomicF64> = (0..n)
                    .into_par_iter()
                    .map(|_| AtomicF64::new(f64::INFINITY))
                    .collect();
                let flags: Vec<AtomicU8> =
                    (0..n).into_par_iter().map(|_| AtomicU8::new(0)).collect();
                dist[source as usize].store(0.0);
                flags[source as usize].store(PENDING, Relaxed);
                (dist, flags)
            }
        };

    let bad = BadArc::default();
    let relax = Relax {
        dist: &dist,
        flags: &flags,
        bad: &bad,
    };
    let counters = EdgeMapCounters::default();
    let opts = EdgeMapOptions {
        direction: params.direction,
        ..EdgeMapOptions::with_counters(&counters)
    };
    let key = |v: Vertex| {
        if flags[v as usize].load(Relaxed) & PENDING != 0 {
            bucket_of(dist[v as usize].load(), delta)
        } else {
            NO_BUCKET
        }
    };
    let mut buckets = Buckets::new(n, key, BucketOrder::Increasing);
    while let Some((_, ids)) = buckets.next_bucket() {
        rounds += 1;
        ids.par_iter().with_min_len(1024).for_each(|&v| {
            flags[v as usize].fetch_and(!PENDING, Relaxed);
        });
        let frontier = VertexSubset::from_ids(n, ids);
        let lowered = edge_map(g, &frontier, &relax, &opts).into_sparse();
        if let Some((s, d, w)) = bad.take() {
            return Err(negative_arc(s, d, w));
        }
        let lowered = lowered.sparse_ids().expect("converted to sparse");
        lowered.par_iter().with_min_len(1024).for_each(|&v| {
            flags[v as usize].fetch_and(!MOVED, Relaxed);
        });
        buckets.update(lowered);
        checkpoint::after_iteration(checkpoint, SSSP, params, rounds, || {
            State::new(vec![
                Column::from_fn("distances", n, |v| dist[v].load()),
                Column::from_fn("pending", n, |v| flags[v].load(Relaxed) & PENDING),
            ])
            .with("edges", edges_before + counters.edges())
        })?;
    }
    drop(buckets);

    drop(flags);
    // Sequential on purpose: std collects a Vec's own iterator in place, so the output reuses
    // the atomics' allocation instead of doubling the peak.
    let distances: Vec<f64> = dist.into_iter().map(|d| d.load()).collect();
    let stats =
        distance_stats(&distances, rounds, edges_before + counters.edges()).with("delta", delta);
    Ok(SsspResult { distances, stats })
}

/// The state [`in_passes`] keeps for `n` vertices: distances, and the active and activated
/// bitmaps.
pub fn state_in_passes(n: u64) -> u64 {
    8 * n + 2 * n.div_ceil(64) * 8
}

/// SSSP from `source` in label-correcting passes over any [`Traversal`]
/// ([`label_correcting`]): each pass relaxes the out-arcs of the vertices whose distance
/// dropped, with reentry inside loaded ranges on disk. Converges to the exact distances for
/// non-negative weights; a negative weight reached is an error.
pub fn in_passes<G: Traversal>(g: &G, source: Vertex) -> Result<SsspResult, AlgoError> {
    if !g.has_weights() {
        return Err(AlgoError::NeedsWeights {
            algorithm: SSSP,
            hint: NEEDS_WEIGHTS_HINT,
        });
    }
    let n = g.num_vertices();
    let dist: Vec<AtomicF64> = huge_page_vec(n, |_| AtomicF64::new(f64::INFINITY));
    dist[source as usize].store(0.0);
    let negative = BadArc::default();
    let relax = |v: Vertex, neighbors: &[Vertex], weights: Weights<'_>, activated: &Bitmap| {
        let dv = dist[v as usize].load();
        let Some(weights) = weights else { return };
        for (i, &u) in neighbors.iter().enumerate() {
            let w = weights.get(i);
            if w < 0.0 {
                negative.record(v, u, w);
                continue;
            }
            if dist[u as usize].write_min_nonneg(dv + w) {
                activated.set_atomic(u as usize);
            }
        }
    };
    let mut start = Bitmap::new(n);
    start.set(source as usize);
    let (passes, edges) =
        label_correcting(g, start, relax, || negative.is_empty()).map_err(read_error(SSSP))?;
    if let Some((s, d, w)) = negative.take() {
        return Err(negative_arc(s, d, w));
    }
    let distances: Vec<f64> = dist.into_iter().map(|d| d.load()).collect();
    let stats = distance_stats(&distances, passes, edges);
    Ok(SsspResult { distances, stats })
}

fn distance_stats(distances: &[f64], rounds: u64, edges: u64) -> RunStats {
    let reached = distances.par_iter().filter(|d| d.is_finite()).count();
    let max = distances
        .par_iter()
        .copied()
        .filter(|d| d.is_finite())
        .reduce(|| f64::NEG_INFINITY, f64::max);
    RunStats {
        iterations: rounds,
        edges_traversed: edges,
        ..Default::default()
    }
    .with("reached", reached as u64)
    .with("max_distance", if reached > 0 { max } else { 0.0 })
}

/// Relaxation with weights of any sign (a CAS loop on the destination).
struct RelaxSigned<'a> {
    dist: &'a [AtomicF64],
    moved: &'a [AtomicBool],
    /// No simple path is shorter than the sum of the negative weights.
    path_bound: f64,
    /// In a symmetric graph a negative edge is a negative cycle (there and back): reached
    /// from the frontier, it is one reachable from the source. Without this, the run would
    /// go round it until a distance fell below `path_bound`, a round a pass over the graph.
    negative_arc_is_cycle: bool,
    /// Set once a negative cycle is certain.
    below_bound: &'a AtomicBool,
}

impl RelaxSigned<'_> {
    #[inline]
    fn check_bound(&self, candidate: f64) {
        if candidate < self.path_bound {
            self.below_bound.store(true, Relaxed);
        }
    }

    #[inline(always)]
    fn check_arc(&self, w: f64) {
        if self.negative_arc_is_cycle && w < 0.0 {
            self.below_bound.store(true, Relaxed);
        }
    }
}

impl EdgeMapFn for RelaxSigned<'_> {
    const WEIGHTED: bool = true;

    #[inline(always)]
    fn update(&self, s: Vertex, d: Vertex, w: f64) -> bool {
        self.check_arc(w);
        let candidate = self.dist[s as usize].load() + w;
        let slot = &self.dist[d as usize];
        if candidate < slot.load() {
            slot.store(candidate);
            self.check_bound(candidate);
            true
        } else {
            false
        }
    }

    #[inline(always)]
    fn update_atomic(&self, s: Vertex, d: Vertex, w: f64) -> bool {
        self.check_arc(w);
        let candidate = self.dist[s as usize].load() + w;
        let slot = &self.dist[d as usize];
        if candidate < slot.load() && slot.write_min(candidate) {
            self.check_bound(candidate);
            !self.moved[d as usize].swap(true, Relaxed)
        } else {
            false
        }
    }
}

/// Sum of the negative arc weights, and the first NaN weight's arc if there is one.
fn negative_weight_sum<A: Adjacency>(adj: &A) -> (f64, Option<(Vertex, Vertex)>) {
    (0..adj.num_vertices() as Vertex)
        .into_par_iter()
        .map(|u| {
            let (mut sum, mut nan) = (0.0f64, None);
            adj.for_each_weighted(u, |v, w| {
                if w < 0.0 {
                    sum += w;
                } else if w.is_nan() && nan.is_none() {
                    nan = Some((u, v));
                }
            });
            (sum, nan)
        })
        .reduce(|| (0.0, None), |a, b| (a.0 + b.0, a.1.or(b.1)))
}

/// Frontier-based Bellman-Ford from `params.source`; weights may be negative. Fails when a
/// negative cycle is reachable from the source.
pub fn bellman_ford<A: Adjacency>(
    g: &Graph<A>,
    params: &BellmanFordParams,
) -> Result<SsspResult, AlgoError> {
    let source = check_source(g, params.source)?;
    require_weights(g, BELLMAN_FORD)?;
    let (negative_sum, nan_arc) = negative_weight_sum(g.out());
    if let Some((u, v)) = nan_arc {
        return Err(AlgoError::InvalidInput {
            algorithm: BELLMAN_FORD,
            message: format!("arc {u} -> {v} has weight NaN"),
        });
    }
    let n = g.num_vertices();
    let dist: Vec<AtomicF64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicF64::new(f64::INFINITY))
        .collect();
    let moved: Vec<AtomicBool> = (0..n)
        .into_par_iter()
        .map(|_| AtomicBool::new(false))
        .collect();
    dist[source as usize].store(0.0);
    let below_bound = AtomicBool::new(false);
    let relax = RelaxSigned {
        dist: &dist,
        moved: &moved,
        path_bound: negative_sum,
        negative_arc_is_cycle: g.is_symmetric(),
        below_bound: &below_bound,
    };
    let counters = EdgeMapCounters::default();
    let opts = EdgeMapOptions {
        direction: params.direction,
        ..EdgeMapOptions::with_counters(&counters)
    };

    let mut frontier = VertexSubset::single(n, source);
    let mut rounds = 0u64;
    while !frontier.is_empty() {
        if rounds == n as u64 || below_bound.load(Relaxed) {
            let hint = if g.is_symmetric() {
                " (in an undirected graph every negative edge is one)"
            } else {
                ""
            };
            return Err(AlgoError::InvalidInput {
                algorithm: BELLMAN_FORD,
                message: format!(
                    "a negative-weight cycle is reachable from source {source}{hint}, so shortest paths are undefined"
                ),
            });
        }
        rounds += 1;
        frontier = edge_map(g, &frontier, &relax, &opts);
        frontier.par_for_each(|v| moved[v as usize].store(false, Relaxed));
    }

    drop(moved);
    // In place, like `sssp`.
    let distances: Vec<f64> = dist.into_iter().map(|d| d.load()).collect();
    let stats = distance_stats(&distances, rounds, counters.edges());
    Ok(SsspResult { distances, stats })
}

/// Checks `result` against a serial reference from `source`: Dijkstra with a binary heap when
/// no arc weight is negative, serial Bellman-Ford otherwise.
pub fn verify_sssp<A: Adjacency>(
    g: &Graph<A>,
    source: u64,
    result: &SsspResult,
) -> Result<(), VerifyError> {
    let n = g.num_vertices();
    if source >= n as u64 {
        return Err(VerifyError::new(
            SSSP,
            format!("source {source} is out of range (n = {n})"),
        ));
    }
    if result.distances.len() != n {
        return Err(VerifyError::new(
            SSSP,
            format!("{} distances for {n} vertices", result.distances.len()),
        ));
    }
    let out = g.out();
    let any_negative = (0..n as Vertex).any(|u| !out.try_for_each_weighted(u, |_, w| w >= 0.0));
    let reference = if any_negative {
        serial_bellman_ford(out, source as Vertex)?
    } else {
        serial_dijkstra(out, source as Vertex)
    };
    for (v, (&got, &want)) in result.distances.iter().zip(&reference).enumerate() {
        let agree = if want.is_infinite() || got.is_infinite() {
            got == want
        } else {
            (got - want).abs() <= VERIFY_TOLERANCE * got.abs().max(want.abs())
        };
        if !agree {
            return Err(VerifyError::new(
                SSSP,
                format!("vertex {v}: distance {got}, expected {want}"),
            ));
        }
    }
    Ok(())
}

fn serial_dijkstra<A: Adjacency>(out: &A, source: Vertex) -> Vec<f64> {
    let mut dist = vec![f64::INFINITY; out.num_vertices()];
    dist[source as usize] = 0.0;
    // Non-negative f64s order like their bit patterns, so the heap holds (Reverse) bits.
    let mut heap = BinaryHeap::from([std::cmp::Reverse((0f64.to_bits(), source))]);
    while let Some(std::cmp::Reverse((bits, u))) = heap.pop() {
        let du = f64::from_bits(bits);
        if du > dist[u as usize] {
            continue;
        }
        out.for_each_weighted(u, |v, w| {
            let candidate = du + w;
            if candidate < dist[v as usize] {
                dist[v as usize] = candidate;
                heap.push(std::cmp::Reverse((candidate.to_bits(), v)));
            }
        });
    }
    dist
}

/// Rounds over every arc until nothing changes; a change in round n means a negative cycle.
fn serial_bellman_ford<A: Adjacency>(out: &A, source: Vertex) -> Result<Vec<f64>, VerifyError> {
    let n = out.num_vertices();
    let mut dist = vec![f64::INFINITY; n];
    dist[source as usize] = 0.0;
    for _ in 0..n {
        let mut changed = false;
        for u in 0..n as Vertex {
            let du = dist[u as usize];
            if du.is_infinite() {
                continue;
            }
            out.for_each_weighted(u, |v, w| {
                if du + w < dist[v as usize] {
                    dist[v as usize] = du + w;
                    changed = true;
                }
            });
        }
        if !changed {
            return Ok(dist);
        }
    }
    Err(VerifyError::new(
        BELLMAN_FORD,
        "a negative cycle is reachable from the source: there are no distances to check",
    ))
}

// The registry's entry.

use crate::algorithm::{source_or_default, Algorithm, Descriptor, Needs, Param, Params, SOURCE};
use crate::registry::Values;
use std::ops::Bound::{Excluded, Unbounded};

/// Delta-stepping's bucket width.
pub const DELTA: Param = Param::number("delta", 0.0, (Excluded(0.0), Unbounded), "bucket width")
    .computed("from the weights");
/// `sssp` in the registry.
pub struct Sssp;

impl Algorithm for Sssp {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "sssp",
        summary: "shortest-path distance from --source, non-negative weights (delta-stepping); inf unreachable",
        params: &[SOURCE, DELTA],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: Some(NEEDS_WEIGHTS_HINT),
            symmetric_for: None,
        },
        state: STATE,
        resumable: true,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[],
        state_in_passes: Some(|n, _| Some(state_in_passes(n))),
    };
    type Params = SsspParams;
    type Result = SsspResult;
    fn params<A: Adjacency>(given: &Params, g: &Graph<A>) -> Result<SsspParams, AlgoError> {
        Ok(SsspParams {
            source: source_or_default(given, g),
            delta: given.given_number(&DELTA),
            ..Default::default()
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &SsspParams,
        checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<SsspResult, AlgoError> {
        sssp_resumable(g, q, checkpoint)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &SsspParams,
        r: &SsspResult,
    ) -> Result<(), VerifyError> {
        verify_sssp(g, q.source, r)
    }
    fn output(r: SsspResult, _q: &SsspParams) -> (Option<Values>, RunStats) {
        (Some(Values::F64(r.distances)), r.stats)
    }
}

/// `bellman-ford` in the registry.
pub struct BellmanFord;

impl Algorithm for BellmanFord {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "bellman-ford",
        summary: "shortest-path distance from --source, any weights; error on a negative cycle",
        params: &[SOURCE],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: Some(NEEDS_WEIGHTS_HINT),
            symmetric_for: None,
        },
        state: STATE,
        resumable: false,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[],
        state_in_passes: None,
    };
    type Params = BellmanFordParams;
    type Result = SsspResult;
    fn params<A: Adjacency>(given: &Params, g: &Graph<A>) -> Result<BellmanFordParams, AlgoError> {
        Ok(BellmanFordParams {
            source: source_or_default(given, g),
            ..Default::default()
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &BellmanFordParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<SsspResult, AlgoError> {
        bellman_ford(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &BellmanFordParams,
        r: &SsspResult,
    ) -> Result<(), VerifyError> {
        verify_sssp(g, q.source, r)
    }
    fn output(r: SsspResult, _q: &BellmanFordParams) -> (Option<Values>, RunStats) {
        (Some(Values::F64(r.distances)), r.stats)
    }
}
