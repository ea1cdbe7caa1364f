//! PageRank variants on one delta-propagation kernel:
//! - [`delta_pagerank`] (as in Galois / PartitionedVC): only vertices whose pending change
//!   exceeds a threshold push it to their out-neighbours; the fixed point and the convergence rule
//!   is standard PageRank's (damping 0.85, dangling mass spread uniformly; scores sum to 1);
//! - [`personalized_pagerank`]: the teleport goes to a source set (uniformly) instead of all
//!   vertices, and so does the mass of dangling vertices (the random surfer at a dead end
//!   restarts at the sources).
//!
//! Kernel. With t the teleport distribution, PageRank is the fixed point of
//! p = (1−d)·t + d·T(p), T(x)[v] = Σ_{u→v} x[u]/deg(u) + t[v]·Σ_{u dangling} x[u].
//! We keep p and the pending change δ with the invariant p = (1−d)·t + d·T(p − δ), starting from
//! p = δ = (1−d)·t. A round takes the active set A = {u : δ[u] > threshold}, adds
//! inc = d·T(δ_A) to both p and δ and clears δ on A, which keeps the invariant; the round's
//! change is ‖inc‖₁. δ stays ≥ 0, so a vertex below the threshold simply holds its change back
//! until more arrives. When the run stops, p is rescaled to sum 1.
//!
//! Stopping rule. The run starts from the mass 1−d, not from a distribution as [`pagerank`]
//! does, so a round's change is the mass it moved, about (1−d)·d^k in round k: measured as
//! pagerank measures its change, a damping near 1 would stop it before anything moved. It
//! stops when a round's change is below (1−d)·`tolerance` (or after `max_iters` rounds), with
//! the default threshold (1−d)·`tolerance`/n. What is still to move is then below
//! d/(1−d)·(change + held back) ≤ 2·`tolerance` (mass is conserved: a dangling vertex's goes
//! to the teleport targets), and the rescaled scores are within about 4·`tolerance` of the
//! fixed point in L1, whatever the damping. The verifiers accept that distance, or the one a
//! run stopped by `max_iters` reports, from a tightly converged power iteration.
//!
//! [`pagerank`]: crate::pagerank
//!
//! Determinism: the per-arc contributions are summed in fixed point (an i64 in units of 2^-60,
//! exact and order-free under concurrent adds) and every f64 reduction runs over fixed chunks,
//! so scores are bit-identical for every thread count and push/pull choice. State: p, δ and
//! the accumulator per vertex, the active list: O(n).
//!
//! On a graph on disk the same kernel spreads each round in one pass over the active vertices'
//! lists ([`Traversal::pass`]: selective or streaming by the engine's cost model) and updates
//! every vertex; the fixed-point sums make the scores bit-identical to the in-memory run's.
//!
//! Where the store has tiles (`vastgraph tile`), a round in which more than a twentieth of
//! the vertices are active ([`DENSE_RATIO`]) sums every arc over them instead
//! ([`Traversal::sum_in_arcs`], in memory or streamed from disk), the inactive vertices' shares
//! set to 0: the same fixed-point sums, so the same scores bit for bit. A tile whose sources are
//! all inactive adds nothing and is skipped. `tile_rounds` in the stats counts those rounds,
//! `tile_arcs_skipped` the arcs of the tiles they skipped, and `layout` is `tiles` when there
//! was one.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::atomics::AtomicF64;
use vastgraph_engine::ooc::ScanSpec;
use vastgraph_engine::{
    edge_map, Adjacency, Bitmap, EdgeMapCounters, EdgeMapFn, EdgeMapOptions, Graph, Traversal,
    Vertex, VertexSubset,
};

use crate::checkpoint::{self, Checkpoint, Column, State};
use crate::common::{check_source, read_error, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]) of delta-pagerank: scores, residuals,
/// accumulated changes and the frontier.
pub const DELTA_STATE: StateSize = StateSize::per_vertex(48);

/// The DRAM the kernel keeps beside the graph ([`StateSize`]) of personalized-pagerank: as
/// delta-pagerank's, with the teleport set.
pub const PERSONALIZED_STATE: StateSize = StateSize::per_vertex(48);

/// Bytes of state the kernel keeps on a graph on disk (one pass a round): score, pending
/// change, share and arrivals (8 bytes each), the sparse rounds' flag (1), the scores handed
/// out (8), the bitmaps of this round's and the next round's active vertices, and the teleport
/// set's.
pub fn state_in_passes(n: u64) -> u64 {
    41 * n + 3 * n.div_ceil(64) * 8
}

const DELTA_PAGERANK: &str = "delta-pagerank";
const PERSONALIZED: &str = "personalized-pagerank";

/// L1 distance to the serial reference the verifiers accept.
pub const VERIFY_L1: f64 = 1e-4;

#[derive(Clone, Debug, serde::Serialize)]
pub struct DeltaPageRankParams {
    pub damping: f64,
    /// Stop when one round moves less than (1−d)·tolerance (module doc): the scores are then
    /// within about 4·tolerance of the fixed point in L1.
    pub tolerance: f64,
    pub max_iters: u32,
    /// A vertex pushes its pending change only when it exceeds this; None = (1−d)·tolerance /
    /// n.
    pub push_threshold: Option<f64>,
}

impl Default for DeltaPageRankParams {
    fn default() -> Self {
        DeltaPageRankParams {
            damping: 0.85,
            tolerance: 1e-6,
            max_iters: 100,
            push_threshold: None,
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct PersonalizedPageRankParams {
    /// The teleport set (repeats are ignored); must not be empty.
    pub sources: Vec<u64>,
    pub damping: f64,
    pub tolerance: f64,
    pub max_iters: u32,
    /// As in [`DeltaPageRankParams::push_threshold`].
    pub push_threshold: Option<f64>,
}

impl Default for PersonalizedPageRankParams {
    fn default() -> Self {
        PersonalizedPageRankParams {
            sources: vec![0],
            damping: 0.85,
            tolerance: 1e-6,
            max_iters: 100,
            push_threshold: None,
        }
    }
}

#[derive(Debug)]
pub struct RankResult {
    /// Score per vertex; they sum to 1.
    pub scores: Vec<f64>,
    /// `iterations` = rounds; extra: `l1_change` (of the last round), `converged`, `pushes`
    /// (active vertices summed over rounds).
    pub stats: RunStats,
}

/// Where the random surfer restarts: all vertices, or a set of them.
enum Teleport {
    /// Each vertex gets `share` = 1/n.
    Uniform { share: f64 },
    /// Each source gets `share` = 1/|sources|.
    To {
        set: Bitmap,
        ids: Vec<Vertex>,
        share: f64,
    },
}

impl Teleport {
    #[inline]
    fn weight(&self, v: Vertex) -> f64 {
        match self {
            Teleport::Uniform { share } => *share,
            Teleport::To { set, share, .. } if set.get(v as usize) => *share,
            Teleport::To { .. } => 0.0,
        }
    }
}

struct Settings {
    algorithm: &'static str,
    damping: f64,
    tolerance: f64,
    max_iters: u32,
    push_threshold: Option<f64>,
}

impl Settings {
    /// A round that moves less than this ends the run (module doc).
    fn stop_below(&self) -> f64 {
        (1.0 - self.damping) * self.tolerance
    }

    /// The pending change a vertex pushes above: the one given, or `stop_below` / n.
    fn threshold(&self, n: usize) -> f64 {
        self.push_threshold
            .unwrap_or(self.stop_below() / n.max(1) as f64)
    }
}

impl DeltaPageRankParams {
    fn settings(&self) -> Settings {
        Settings {
            algorithm: DELTA_PAGERANK,
            damping: self.damping,
            tolerance: self.tolerance,
            max_iters: self.max_iters,
            push_threshold: self.push_threshold,
        }
    }
}

impl PersonalizedPageRankParams {
    fn settings(&self) -> Settings {
        Settings {
            algorithm: PERSONALIZED,
            damping: self.damping,
            tolerance: self.tolerance,
            max_iters: self.max_iters,
            push_threshold: self.push_threshold,
        }
    }
}

fn check_settings(s: &Settings) -> Result<(), AlgoError> {
    let bad = |message: String| {
        Err(AlgoError::InvalidParameter {
            algorithm: s.algorithm,
            message,
        })
    };
    if !(0.0..1.0).contains(&s.damping) {
        return bad(format!("damping must be in [0, 1), got {}", s.damping));
    }
    if !(s.tolerance >= 0.0 && s.tolerance.is_finite()) {
        return bad(format!(
            "tolerance must be a non-negative number, got {}",
            s.tolerance
        ));
    }
    match s.push_threshold {
        Some(t) if !(t >= 0.0 && t.is_finite()) => {
            bad(format!("push_threshold must be non-negative, got {t}"))
        }
        _ => Ok(()),
    }
}

/// Fixed-point units per 1.0: 2^60 leaves room for sums up to 8 in an i64, far above the total
/// mass of 1, with a resolution of 1e-18.
const FIXED_ONE: f64 = (1u64 << 60) as f64;

/// Truncates (a plain conversion; `round` would be a libm call on every arc).
#[inline]
fn to_fixed(x: f64) -> i64 {
    (x * FIXED_ONE) as i64
}

#[inline]
fn from_fixed(x: i64) -> f64 {
    x as f64 / FIXED_ONE
}

/// Vertices per chunk of the deterministic reductions.
const CHUNK: usize = 4096;

/// Sums `f` over fixed chunks of `xs`, then the chunk sums in order: the same result for every
/// thread count (rayon's own float sum is not).
fn chunked_sum<T: Sync>(xs: &[T], f: impl Fn(&T) -> f64 + Sync) -> f64 {
    let parts: Vec<f64> = xs
        .par_chunks(CHUNK)
        .map(|c| c.iter().map(&f).sum::<f64>())
        .collect();
    parts.iter().sum()
}

/// Adds each active source's share (its pending change over its out-degree, in fixed point) to
/// its targets. In a sparse round it also outputs each target once (the `queued` flag), so that
/// only the vertices that received something are updated.
struct Spread<'a> {
    share: &'a [AtomicI64],
    incoming: &'a [AtomicI64],
    queued: Option<&'a [AtomicBool]>,
}

impl EdgeMapFn for Spread<'_> {
    fn update(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        // Pull: only this thread writes `d`, so no read-modify-write is needed.
        let slot = &self.incoming[d as usize];
        slot.store(
            slot.load(Relaxed) + self.share[s as usize].load(Relaxed),
            Relaxed,
        );
        self.queued
            .is_some_and(|queued| !queued[d as usize].swap(true, Relaxed))
    }
    fn update_atomic(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        self.incoming[d as usize].fetch_add(self.share[s as usize].load(Relaxed), Relaxed);
        self.queued.is_some_and(|queued| {
            !queued[d as usize].load(Relaxed) && !queued[d as usize].swap(true, Relaxed)
        })
    }
}

/// The kernel's per-vertex state. Atomics so that a round can update any subset of vertices in
/// parallel; relaxed loads and stores compile to plain moves.
struct RankState {
    score: Vec<AtomicF64>,
    pending: Vec<AtomicF64>,
    /// The pending change over the out-degree, in fixed point, of the vertices active next.
    share: Vec<AtomicI64>,
    /// Fixed-point sum of the shares that arrived this round.
    incoming: Vec<AtomicI64>,
    /// The vertex is on this (sparse) round's list of vertices to update.
    queued: Vec<AtomicBool>,
}

fn atomics<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    (0..n).into_par_iter().map(f).collect()
}

/// A round is dense (every vertex updated, the active set a bitmap) when more than 1/DENSE_RATIO
/// of the vertices are active, or when uniform teleport spreads dangling mass to all of them.
const DENSE_RATIO: usize = 20;

/// Runs the kernel; with a checkpoint, saves p and δ after rounds (the active set and the
/// shares follow from δ), or continues from those saved there.
fn propagate<A: Adjacency>(
    g: &Graph<A>,
    teleport: &Teleport,
    settings: &Settings,
    checkpoint: Option<&Checkpoint>,
    parameters: &impl serde::Serialize,
) -> Result<RankResult, AlgoError> {
    let n = g.num_vertices();
    let out = g.out();
    let d = settings.damping;
    // The rule of the module doc: changes and the threshold in units of the mass 1−d.
    let (stop_below, threshold) = (settings.stop_below(), settings.threshold(n));
    let start = |v: usize| (1.0 - d) * teleport.weight(v as Vertex);
    let (mut rounds, mut pushes, mut change) = (0u64, 0u64, f64::INFINITY);
    let (score, pending) = match checkpoint::begin(checkpoint, settings.algorithm, parameters)? {
        Some(mut saved) => {
            rounds = saved.iteration;
            pushes = saved.u64("pushes")?;
            change = saved.f64("change")?;
            let score = saved.column::<f64>("scores", n)?;
            let pending = saved.column::<f64>("pending", n)?;
            (
                score.into_iter().map(AtomicF64::new).collect(),
                pending.into_iter().map(AtomicF64::new).collect(),
            )
        }
        None => (
            atomics(n, |v| AtomicF64::new(start(v))),
            atomics(n, |v| AtomicF64::new(start(v))),
        ),
    };
    let state = RankState {
        score,
        pending,
        share: atomics(n, |_| AtomicI64::new(0)),
        incoming: atomics(n, |_| AtomicI64::new(0)),
        queued: atomics(n, |_| AtomicBool::new(false)),
    };
    // Makes `v` active if its pending change exceeds the threshold (fixing its share).
    let activate = |v: Vertex| {
        let pending = state.pending[v as usize].load();
        let degree = out.degree(v);
        if pending > threshold && degree > 0 {
            state.share[v as usize].store(to_fixed(pending / degree as f64), Relaxed);
        }
        pending > threshold
    };
    // Applies what arrived at `v` this round (plus its teleported share of the dangling mass):
    // the increment in fixed point, and whether `v` is active next round.
    let update = |v: Vertex, dangling: f64, sparse: bool| {
        let i = v as usize;
        let arrived = from_fixed(state.incoming[i].load(Relaxed));
        state.incoming[i].store(0, Relaxed);
        if sparse {
            state.queued[i].store(false, Relaxed);
        }
        let inc = d * (arrived + dangling * teleport.weight(v));
        // An active vertex pushed its whole pending change this round.
        let pending = state.pending[i].load();
        let kept = if pending > threshold { 0.0 } else { pending };
        state.pending[i].store(kept + inc);
        state.score[i].store(state.score[i].load() + inc);
        (to_fixed(inc), activate(v))
    };
    let counters = EdgeMapCounters::default();
    // On disk, each round is one pass over the active vertices' lists (`Traversal::pass`),
    // as Sage's edgeMap over a graph on storage; in memory, `edge_map` picks push or pull.
    let on_disk = out.on_disk().is_some();
    // Where the store has tiles, a round with many active vertices sums over them instead
    // (`Traversal::sum_in_arcs`), in memory and on disk.
    let on_tiles = g.has_tiles();
    let (mut arcs_in_passes, mut tile_rounds, mut tile_arcs_skipped) = (0u64, 0u64, 0u64);
    let sparse_opts = EdgeMapOptions::with_counters(&counters);
    let dense_opts = EdgeMapOptions {
        output: false,
        ..sparse_opts
    };

    let mut active = VertexSubset::from_bitmap(dense_pass(n, |v| (0, activate(v))).1);
    let mut converged = false;
    while rounds < settings.max_iters as u64 {
        if active.is_empty() {
            converged = true;
            break;
        }
        rounds += 1;
        pushes += active.len() as u64;
        let dangling_fixed = AtomicI64::new(0);
        active.par_for_each(|u| {
            if out.degree(u) == 0 {
                dangling_fixed.fetch_add(to_fixed(state.pending[u as usize].load()), Relaxed);
            }
        });
        let dangling = from_fixed(dangling_fixed.into_inner());
        let many_active = active.len() > n / DENSE_RATIO;
        let dense = many_active || (dangling > 0.0 && matches!(teleport, Teleport::Uniform { .. }));
        // The change is summed in fixed point, so its value does not depend on the order.
        let (changed, next) = if on_tiles && many_active {
            // Every arc from the tiles, the inactive sources' shares zeroed: the sums equal
            // the lists' bit for bit (fixed point), at the cost of a pass over all arcs.
            tile_rounds += 1;
            let active_bits = active.into_dense();
            let bits = active_bits.dense_bits().expect("converted to dense");
            state.share.par_iter().enumerate().for_each(|(u, share)| {
                if !bits.get(u) {
                    share.store(0, Relaxed);
                }
            });
            // SAFETY: no other thread reads or writes `share` or `incoming` during the sum, and
            // an AtomicI64 has the size and bit validity of an i64.
            let (values, sums) = unsafe { (plain(&state.share), plain_mut(&state.incoming)) };
            // Tiles whose sources are all inactive are skipped.
            let (folded, _) = g
                .sum_in_arcs(values, sums, |_, _| ())
                .map_err(read_error(settings.algorithm))?;
            arcs_in_passes += folded;
            tile_arcs_skipped += g.num_arcs() - folded;
            let (changed, next) = dense_pass(n, |v| update(v, dangling, false));
            (changed, VertexSubset::from_bitmap(next))
        } else if on_disk {
            // A pass over the active vertices' lists, then every vertex updated: a vertex no
            // share reached keeps its values (it was not active, so its pending change is at
            // most the threshold, and nothing teleports to it), so the result is the sparse
            // round's, without the lists of reached vertices.
            let active_bits = active.into_dense();
            let spec = ScanSpec {
                ids_only: true,
                ..ScanSpec::new(active_bits.dense_bits().expect("converted to dense"))
            };
            arcs_in_passes += g
                .pass(&spec, |u, targets, _| {
                    let share = state.share[u as usize].load(Relaxed);
                    for &v in targets {
                        state.incoming[v as usize].fetch_add(share, Relaxed);
                    }
                })
                .map_err(read_error(settings.algorithm))?;
            let (changed, next) = dense_pass(n, |v| update(v, dangling, false));
            (changed, VertexSubset::from_bitmap(next))
        } else if dense {
            let spread = Spread {
                share: &state.share,
                incoming: &state.incoming,
                queued: None,
            };
            edge_map(g, &active, &spread, &dense_opts);
            let (changed, next) = dense_pass(n, |v| update(v, dangling, false));
            (changed, VertexSubset::from_bitmap(next))
        } else {
            let VertexSubset::Sparse { ids: to_update, .. } = active.into_sparse() else {
                unreachable!()
            };
            to_update
                .par_iter()
                .for_each(|&v| state.queued[v as usize].store(true, Relaxed));
            let frontier = VertexSubset::from_ids(n, to_update);
            let spread = Spread {
                share: &state.share,
                incoming: &state.incoming,
                queued: Some(&state.queued),
            };
            let reached = edge_map(g, &frontier, &spread, &sparse_opts).into_sparse();
            let VertexSubset::Sparse {
                ids: mut to_update, ..
            } = frontier
            else {
                unreachable!()
            };
            to_update.extend_from_slice(reached.sparse_ids().expect("converted to sparse"));
            drop(reached);
            // Dangling mass reaches the teleport targets (here: the source set).
            if let (true, Teleport::To { ids, .. }) = (dangling > 0.0, teleport) {
                to_update.extend(
                    ids.iter()
                        .filter(|&&v| !state.queued[v as usize].swap(true, Relaxed)),
                );
            }
            let updated: Vec<(i64, Vertex, bool)> = to_update
                .into_par_iter()
                .map(|v| {
                    let (inc, now_active) = update(v, dangling, true);
                    (inc, v, now_active)
                })
                .collect();
            let changed = updated.par_iter().map(|u| u.0).sum();
            let next = updated
                .into_par_iter()
                .filter(|u| u.2)
                .map(|u| u.1)
                .collect();
            (changed, VertexSubset::from_ids(n, next))
        };
        active = next;
        change = from_fixed(changed);
        if change < stop_below {
            converged = true;
            break;
        }
        checkpoint::after_iteration(checkpoint, settings.algorithm, parameters, rounds, || {
            State::new(vec![
                Column::from_fn("scores", n, |v| state.score[v].load()),
                Column::from_fn("pending", n, |v| state.pending[v].load()),
            ])
            .with("pushes", pushes)
            .with("change", change)
        })?;
    }
    let mut scores: Vec<f64> = state.score.into_par_iter().map(|s| s.load()).collect();
    let total = chunked_sum(&scores, |&p| p);
    if total > 0.0 {
        scores.par_iter_mut().for_each(|p| *p /= total);
    }
    let stats = RunStats {
        iterations: rounds,
        edges_traversed: counters.edges() + arcs_in_passes,
        ..Default::default()
    }
    .with("l1_change", if change.is_finite() { change } else { 0.0 })
    .with("converged", converged)
    .with("pushes", pushes)
    .with("tile_rounds", tile_rounds)
    .with("tile_arcs_skipped", tile_arcs_skipped)
    .with("layout", crate::pagerank::layout_name(tile_rounds > 0));
    Ok(RankResult { scores, stats })
}

/// `xs` as plain integers.
///
/// # Safety
/// No thread may write `xs` while the result lives.
unsafe fn plain(xs: &[AtomicI64]) -> &[i64] {
    std::slice::from_raw_parts(xs.as_ptr() as *const i64, xs.len())
}

/// `xs` as plain integers to write.
///
/// # Safety
/// No thread may read or write `xs` otherwise while the result lives. (The atomics' cells
/// allow writes through a shared reference.)
#[allow(clippy::mut_from_ref)]
unsafe fn plain_mut(xs: &[AtomicI64]) -> &mut [i64] {
    std::slice::from_raw_parts_mut(xs.as_ptr() as *mut i64, xs.len())
}

/// Runs `step` on every vertex, 64 at a time: the sum of the returned increments, and the
/// vertices it reported active as a bitmap (built word by word, without atomics).
fn dense_pass(n: usize, step: impl Fn(Vertex) -> (i64, bool) + Sync) -> (i64, Bitmap) {
    let mut words = vec![0u64; n.div_ceil(64)];
    let sum = words
        .par_chunks_mut(CHUNK / 64)
        .enumerate()
        .map(|(ci, chunk)| {
            let mut sum = 0i64;
            for (wi, word) in chunk.iter_mut().enumerate() {
                let base = (ci * (CHUNK / 64) + wi) * 64;
                for j in 0..64.min(n - base) {
                    let (inc, active) = step((base + j) as Vertex);
                    sum += inc;
                    *word |= (active as u64) << j;
                }
            }
            sum
        })
        .sum();
    (sum, Bitmap::from_words(words, n))
}

/// Delta-PageRank: standard PageRank's fixed point and stopping rule, pushing only changes above
/// the threshold.
pub fn delta_pagerank<A: Adjacency>(
    g: &Graph<A>,
    params: &DeltaPageRankParams,
) -> Result<RankResult, AlgoError> {
    delta_pagerank_resumable(g, params, None)
}

/// [`delta_pagerank`], saving its state to `checkpoint` after rounds, or continuing from it.
pub fn delta_pagerank_resumable<A: Adjacency>(
    g: &Graph<A>,
    params: &DeltaPageRankParams,
    checkpoint: Option<&Checkpoint>,
) -> Result<RankResult, AlgoError> {
    let settings = params.settings();
    check_settings(&settings)?;
    propagate(
        g,
        &Teleport::Uniform {
            share: 1.0 / g.num_vertices().max(1) as f64,
        },
        &settings,
        checkpoint,
        params,
    )
}

fn teleport_set<A: Adjacency>(g: &Graph<A>, sources: &[u64]) -> Result<Teleport, AlgoError> {
    if sources.is_empty() {
        return Err(AlgoError::InvalidParameter {
            algorithm: PERSONALIZED,
            message: "the source set is empty".into(),
        });
    }
    let mut set = Bitmap::new(g.num_vertices());
    for &s in sources {
        set.set(check_source(g, s)? as usize);
    }
    let ids = set.to_sorted_ids();
    let share = 1.0 / ids.len() as f64;
    Ok(Teleport::To { set, ids, share })
}

/// Personalised PageRank: teleport and dangling mass go to the source set, uniformly.
pub fn personalized_pagerank<A: Adjacency>(
    g: &Graph<A>,
    params: &PersonalizedPageRankParams,
) -> Result<RankResult, AlgoError> {
    personalized_pagerank_resumable(g, params, None)
}

/// [`personalized_pagerank`], saving its state to `checkpoint` after rounds, or continuing
/// from it.
pub fn personalized_pagerank_resumable<A: Adjacency>(
    g: &Graph<A>,
    params: &PersonalizedPageRankParams,
    checkpoint: Option<&Checkpoint>,
) -> Result<RankResult, AlgoError> {
    let settings = params.settings();
    check_settings(&settings)?;
    let teleport = teleport_set(g, &params.sources)?;
    propagate(g, &teleport, &settings, checkpoint, params)
}

/// Serial power iteration p ← (1−d)·t + d·(Σ_{u→v} p[u]/deg(u) + t·dangling), from p = t, run
/// until one step changes less than 1e-13 + n·ε in L1 (or 100 000 steps): the rounding of n
/// scores keeps a step's change near n·ε however long it runs (a star of 2^20 leaves: about
/// 1e-10), which would otherwise take every one of the steps.
fn serial_power_iteration<A: Adjacency>(out: &A, teleport: &[f64], damping: f64) -> Vec<f64> {
    let n = out.num_vertices();
    let mut p = teleport.to_vec();
    for _ in 0..100_000 {
        let mut next: Vec<f64> = teleport.iter().map(|t| (1.0 - damping) * t).collect();
        let mut dangling = 0.0;
        for u in 0..n as Vertex {
            let deg = out.degree(u);
            if deg == 0 {
                dangling += p[u as usize];
            } else {
                let share = damping * p[u as usize] / deg as f64;
                out.for_each_neighbor(u, |v| next[v as usize] += share);
            }
        }
        for (x, t) in next.iter_mut().zip(teleport) {
            *x += damping * dangling * t;
        }
        let step: f64 = next.iter().zip(&p).map(|(a, b)| (a - b).abs()).sum();
        p = next;
        if step < 1e-13 + n as f64 * f64::EPSILON {
            break;
        }
    }
    p
}

/// The L1 distance from the fixed point a run of `settings` on `n` vertices may leave (module
/// doc): at most d/(1−d) times its last change and the mass held back (n·threshold), plus that
/// mass, rescaled, with a margin of 2; [`VERIFY_L1`] at least.
fn distance_allowed(settings: &Settings, n: usize, result: &RankResult) -> f64 {
    let damping = settings.damping;
    let held = n as f64 * settings.threshold(n);
    let change = match result.stats.iterations {
        // Nothing moved: everything is still to move.
        0 => return VERIFY_L1.max(2.0 * held / (1.0 - damping)),
        _ => result.stats.extra["l1_change"]
            .as_f64()
            .unwrap_or(f64::INFINITY),
    };
    let to_move = damping / (1.0 - damping) * (change + held) + held;
    VERIFY_L1.max(4.0 * to_move)
}

/// Checks `result` of a run of `settings` against `reference`: scores non-negative and summing
/// to 1, within [`distance_allowed`] of it in L1.
fn compare_with_reference(
    settings: &Settings,
    result: &RankResult,
    reference: &[f64],
) -> Result<(), VerifyError> {
    let scores = &result.scores;
    let fail = |m: String| Err(VerifyError::new(settings.algorithm, m));
    if scores.len() != reference.len() {
        return fail(format!(
            "{} scores for {} vertices",
            scores.len(),
            reference.len()
        ));
    }
    if let Some(v) = scores.iter().position(|&s| s.is_nan() || s < 0.0) {
        return fail(format!("vertex {v} has score {}", scores[v]));
    }
    let total: f64 = scores.iter().sum();
    if !scores.is_empty() && (total - 1.0).abs() > 1e-9 {
        return fail(format!("scores sum to {total}, not 1"));
    }
    let l1: f64 = scores
        .iter()
        .zip(reference)
        .map(|(a, b)| (a - b).abs())
        .sum();
    let limit = distance_allowed(settings, reference.len(), result);
    if l1.is_nan() || l1 >= limit {
        return fail(format!(
            "L1 distance {l1} from a tightly converged serial power iteration (limit {limit:.3e})"
        ));
    }
    Ok(())
}

/// Compares with a tightly converged serial standard PageRank: L1 distance below what the run's
/// stopping rule leaves (`distance_allowed`), scores non-negative and summing to 1.
pub fn verify_delta_pagerank<A: Adjacency>(
    g: &Graph<A>,
    params: &DeltaPageRankParams,
    result: &RankResult,
) -> Result<(), VerifyError> {
    let n = g.num_vertices();
    let reference = serial_power_iteration(g.out(), &vec![1.0 / n as f64; n], params.damping);
    compare_with_reference(&params.settings(), result, &reference)
}

/// Compares with a serial power iteration with the personalised teleport (and dangling mass to
/// the sources): L1 distance below what the run's stopping rule leaves, scores non-negative and
/// summing to 1.
pub fn verify_personalized_pagerank<A: Adjacency>(
    g: &Graph<A>,
    params: &PersonalizedPageRankParams,
    result: &RankResult,
) -> Result<(), VerifyError> {
    let n = g.num_vertices();
    let mut teleport = vec![0.0; n];
    let mut sources: Vec<u64> = params.sources.clone();
    sources.sort_unstable();
    sources.dedup();
    if sources.is_empty() || sources.iter().any(|&s| s >= n as u64) {
        return Err(VerifyError::new(
            PERSONALIZED,
            format!("bad source set {:?}", params.sources),
        ));
    }
    for &s in &sources {
        teleport[s as usize] = 1.0 / sources.len() as f64;
    }
    let reference = serial_power_iteration(g.out(), &teleport, params.damping);
    compare_with_reference(&params.settings(), result, &reference)
}

// The registry's entry.

use crate::algorithm::{
    source_or_default, Algorithm, Conflict, Descriptor, Needs, Param, Params, SOURCE,
};
use crate::pagerank::{DAMPING, MAX_ITERS, TOLERANCE};
use crate::registry::Values;

pub const SOURCES: Param = Param::vertices("sources", "--source", "the teleport set");
/// `delta-pagerank` in the registry.
pub struct DeltaPageRank;

impl Algorithm for DeltaPageRank {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "delta-pagerank",
        summary: "PageRank by pushing changes above a threshold; stops once a round moves < (1-d)·tolerance",
        params: &[DAMPING, TOLERANCE, MAX_ITERS],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: DELTA_STATE,
        resumable: true,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[],
        state_in_passes: Some(|n, _| Some(state_in_passes(n))),
    };
    type Params = DeltaPageRankParams;
    type Result = RankResult;
    fn params<A: Adjacency>(
        given: &Params,
        _g: &Graph<A>,
    ) -> Result<DeltaPageRankParams, AlgoError> {
        let d = DeltaPageRankParams::default();
        Ok(DeltaPageRankParams {
            damping: given.number(&DAMPING),
            tolerance: given.number(&TOLERANCE),
            max_iters: given.count(&MAX_ITERS).min(u32::MAX as u64) as u32,
            ..d
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &DeltaPageRankParams,
        checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<RankResult, AlgoError> {
        delta_pagerank_resumable(g, q, checkpoint)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &DeltaPageRankParams,
        r: &RankResult,
    ) -> Result<(), VerifyError> {
        verify_delta_pagerank(g, q, r)
    }
    fn output(r: RankResult, _q: &DeltaPageRankParams) -> (Option<Values>, RunStats) {
        (Some(Values::F64(r.scores)), r.stats)
    }
}

/// `personalized-pagerank` in the registry.
pub struct PersonalizedPageRank;

impl Algorithm for PersonalizedPageRank {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "personalized-pagerank",
        summary: "PageRank teleporting to --sources (or --source)",
        params: &[SOURCES, SOURCE, DAMPING, TOLERANCE, MAX_ITERS],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: PERSONALIZED_STATE,
        resumable: true,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[Conflict::Either(&SOURCES, &SOURCE)],
        state_in_passes: Some(|n, _| Some(state_in_passes(n))),
    };
    type Params = PersonalizedPageRankParams;
    type Result = RankResult;
    fn params<A: Adjacency>(
        given: &Params,
        g: &Graph<A>,
    ) -> Result<PersonalizedPageRankParams, AlgoError> {
        let d = PersonalizedPageRankParams::default();
        Ok(PersonalizedPageRankParams {
            sources: given
                .vertices(&SOURCES)
                .unwrap_or_else(|| vec![source_or_default(given, g)]),
            damping: given.number(&DAMPING),
            tolerance: given.number(&TOLERANCE),
            max_iters: given.count(&MAX_ITERS).min(u32::MAX as u64) as u32,
            ..d
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &PersonalizedPageRankParams,
        checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<RankResult, AlgoError> {
        personalized_pagerank_resumable(g, q, checkpoint)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &PersonalizedPageRankParams,
        r: &RankResult,
    ) -> Result<(), VerifyError> {
        verify_personalized_pagerank(g, q, r)
    }
    fn output(r: RankResult, _q: &PersonalizedPageRankParams) -> (Option<Values>, RunStats) {
        (Some(Values::F64(r.scores)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn small_directed_graph_with_a_dangling_vertex() {
        let g = InMemoryGraph::from_edges(4, &[(0, 1), (1, 2), (2, 0), (2, 3), (0, 2)], false);
        let params = DeltaPageRankParams::default();
        let r = delta_pagerank(&g.view(), &params).unwrap();
        verify_delta_pagerank(&g.view(), &params, &r).unwrap();
        assert_eq!(r.stats.extra["converged"], true);
        let ppr = PersonalizedPageRankParams {
            sources: vec![3],
            ..Default::default()
        };
        let r = personalized_pagerank(&g.view(), &ppr).unwrap();
        verify_personalized_pagerank(&g.view(), &ppr, &r).unwrap();
        // Vertex 3 is a sink whose mass returns to itself: it keeps (1-d) + d·its own score.
        assert!((r.scores[3] - 1.0).abs() < 1e-6, "{:?}", r.scores);
    }

    #[test]
    fn a_damping_near_1_runs_until_the_scores_are_within_the_tolerance() {
        // A directed ring with chords and a sink: far from uniform. With d = 0.99 the first
        // round moves 0.0099, below a tolerance of 0.011: measured as pagerank measures its
        // change, the run stopped there with the uniform scores, 0.1 from the fixed point.
        let n = 200u32;
        let mut edges: Vec<(u32, u32)> = (0..n - 1).map(|v| (v, v + 1)).collect();
        edges.extend((0..n - 1).step_by(3).map(|v| (v, (v * 7) % 50)));
        let g = InMemoryGraph::from_edges(n as usize, &edges, false);
        let reference =
            serial_power_iteration(g.view().out(), &vec![1.0 / n as f64; n as usize], 0.99);
        for tolerance in [0.011, 1e-4] {
            let params = DeltaPageRankParams {
                damping: 0.99,
                tolerance,
                max_iters: 100_000,
                ..Default::default()
            };
            let r = delta_pagerank(&g.view(), &params).unwrap();
            let l1: f64 = r
                .scores
                .iter()
                .zip(&reference)
                .map(|(a, b)| (a - b).abs())
                .sum();
            assert!(l1 < 4.0 * tolerance, "tolerance {tolerance}: L1 {l1}");
            verify_delta_pagerank(&g.view(), &params, &r).unwrap();
            let ppr = PersonalizedPageRankParams {
                sources: vec![0, 5],
                damping: 0.99,
                tolerance,
                max_iters: 100_000,
                ..Default::default()
            };
            let r = personalized_pagerank(&g.view(), &ppr).unwrap();
            assert!(r.stats.iterations > 1, "tolerance {tolerance}");
            verify_personalized_pagerank(&g.view(), &ppr, &r).unwrap();
        }
        // Stopped by max_iters far from the fixed point, the run is verified against the
        // distance its last change leaves, and a run that moved nothing is not.
        let capped = DeltaPageRankParams {
            damping: 0.99,
            max_iters: 3,
            ..Default::default()
        };
        let r = delta_pagerank(&g.view(), &capped).unwrap();
        assert_eq!(r.stats.extra["converged"], false);
        verify_delta_pagerank(&g.view(), &capped, &r).unwrap();
        let uniform = RankResult {
            scores: vec![1.0 / n as f64; n as usize],
            stats: RunStats {
                iterations: 1,
                ..Default::default()
            }
            .with("l1_change", 1e-9),
        };
        assert!(verify_delta_pagerank(&g.view(), &capped, &uniform).is_err());
    }

    #[test]
    fn fixed_point_round_trip_and_bad_parameters() {
        for x in [0.0, 1e-17, 0.3, 1.0 / 3.0, 2.0] {
            assert!((from_fixed(to_fixed(x)) - x).abs() < 2e-18);
        }
        let g = InMemoryGraph::from_edges(2, &[(0, 1)], true);
        let bad = DeltaPageRankParams {
            damping: 1.0,
            ..Default::default()
        };
        assert!(delta_pagerank(&g.view(), &bad).is_err());
        let empty = PersonalizedPageRankParams {
            sources: vec![],
            ..Default::default()
        };
        assert!(personalized_pagerank(&g.view(), &empty).is_err());
        let far = PersonalizedPageRankParams {
            sources: vec![7],
            ..Default::default()
        };
        assert!(matches!(
            personalized_pagerank(&g.view(), &far),
            Err(AlgoError::SourceOutOfRange { .. })
        ));
    }
}
