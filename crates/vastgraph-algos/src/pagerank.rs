//! PageRank by power iteration.
//!
//! The rule, exactly: with n vertices, damping d (default 0.85) and out-degree deg(u),
//!
//! ```text
//! p₀[v]   = 1/n
//! D       = Σ_{u : deg(u) = 0} p[u]                      (the dangling mass)
//! p'[v]   = (1 − d)/n + d·( Σ_{u→v} p[u]/deg(u) + D/n )
//! δ       = Σ_v |p'[v] − p[v]|                           (L1 change)
//! ```
//!
//! Iteration stops after the first iteration with δ < `tolerance` (default 1e-6) or after
//! `max_iters` iterations (default 100), whichever comes first; the scores returned are that
//! iteration's p'. They sum to 1 (up to rounding): each iteration conserves total mass, since
//! the dangling mass is spread uniformly over all vertices. Duplicate arcs do not exist in a
//! store; a self-loop, when stored, is an ordinary arc.
//!
//! Pull-based when in-edges exist (symmetric graph, or a stored transpose): each iteration
//! first writes every vertex's contribution p[u]/deg(u) into one array, then each vertex sums
//! its in-neighbours' contributions, with no atomics, in in-edge order. A directed graph without
//! a transpose is pushed instead: each vertex adds its contribution to its out-neighbours' sums
//! with atomic f64 adds. Reductions (dangling mass, δ) are summed per fixed block of vertices,
//! then the block sums in order, so pull results are bit-identical for any thread count (push
//! results differ only by the order of the atomic additions). Heap: two f64 arrays, 2n + 1 words.
//!
//! On lists on disk ([`Adjacency::on_disk`]), without a checkpoint, each iteration is one
//! streamed pass ([`in_passes`]): on a symmetric graph each vertex sums its neighbours'
//! contributions over the piece of its list that arrived (one atomic add per piece); a directed
//! graph pushes each vertex's contribution along its out-arcs. To keep the state at two words a
//! vertex, the scores array holds the contributions p[u]/deg(u) during the pass (a vertex
//! without out-arcs, whose contribution nobody reads, keeps its score), and the old score is
//! recovered from it for the L1 change. Results equal the in-memory ones up to the order of
//! summation.

use rayon::prelude::*;
use vastgraph_engine::atomics::AtomicF64;
use vastgraph_engine::lane_sum::{gather_misses_cache, lane_sum, prefetch_gather};
use vastgraph_engine::memory::{advise_huge_pages, huge_page_vec};
use vastgraph_engine::ooc::{IoMode, PrefetchFn, ScanSpec};
use vastgraph_engine::{Adjacency, Bitmap, Graph, Traversal, Vertex};

use crate::checkpoint::{self, Checkpoint, Column, State};
use crate::common::{read_error, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): scores and contributions, both f64.
pub const STATE: StateSize = StateSize::per_vertex(20);

const ALGORITHM: &str = "pagerank";

/// Vertices per block of the deterministic reductions; blocks are split down to single tasks
/// for the reason given at `vastgraph_engine::bitmap::WORDS_PER_TASK`.
const BLOCK: usize = 2048;

#[derive(Clone, Debug, serde::Serialize)]
pub struct PageRankParams {
    /// d in the rule above; 0 ≤ d < 1.
    pub damping: f64,
    /// Stop once the L1 change of an iteration is below this (≥ 0; 0 runs `max_iters`).
    pub tolerance: f64,
    pub max_iters: u64,
}

impl Default for PageRankParams {
    fn default() -> Self {
        PageRankParams {
            damping: 0.85,
            tolerance: 1e-6,
            max_iters: 100,
        }
    }
}

#[derive(Debug)]
pub struct PageRankResult {
    pub scores: Vec<f64>,
    /// The L1 change of the last iteration (`l1_delta` in the stats, with `converged` and
    /// `direction`); `stats.iterations` counts iterations.
    pub delta: f64,
    pub stats: RunStats,
}

/// The statistics of a power-iteration PageRank run, in memory or out of core: every iteration
/// reads every arc once.
pub(crate) fn power_iteration_stats(
    iterations: u64,
    vertices: usize,
    arcs: u64,
    delta: f64,
    tolerance: f64,
    direction: &'static str,
) -> RunStats {
    RunStats {
        iterations,
        edges_traversed: iterations * arcs,
        ..Default::default()
    }
    .with("l1_delta", if delta.is_finite() { delta } else { 0.0 })
    // An empty graph has no score to change: converged in 0 iterations, whatever the tolerance.
    .with("converged", vertices == 0 || delta < tolerance)
    .with("direction", direction)
}

pub fn pagerank<A: Adjacency>(
    g: &Graph<A>,
    params: &PageRankParams,
) -> Result<PageRankResult, AlgoError> {
    pagerank_resumable(g, params, None)
}

/// [`pagerank`], saving the scores to `checkpoint` after iterations, or continuing from the
/// scores saved there.
pub fn pagerank_resumable<A: Adjacency>(
    g: &Graph<A>,
    params: &PageRankParams,
    checkpoint: Option<&Checkpoint>,
) -> Result<PageRankResult, AlgoError> {
    check_params(params)?;
    if g.has_tiles() {
        return tiled(g, params, checkpoint);
    }
    if checkpoint.is_none() && g.out().on_disk().is_some() {
        return in_passes(g, params);
    }
    let n = g.num_vertices();
    let mut iterations = 0;
    let mut delta = f64::INFINITY;
    let mut scores: Vec<f64> = match checkpoint::begin(checkpoint, ALGORITHM, params)? {
        Some(mut saved) => {
            iterations = saved.iteration;
            delta = saved.f64("delta")?;
            saved.column("scores", n)?
        }
        None => (0..n).into_par_iter().map(|_| 1.0 / n as f64).collect(),
    };
    // Contributions (pull) or incoming sums (push): read or updated at random once per arc.
    // Zeroed, so still unmapped: the advice applies from the first touch.
    // More than n: a pull sums through `Adjacency::sum_lists`, which wants a 0.0 after the
    // contributions, and on some views zeros after that (`Adjacency::sum_values_len`).
    let mut work: Vec<f64> = vec![0.0; g.incoming().unwrap_or(g.out()).sum_values_len()];
    advise_huge_pages(&mut work);
    while iterations < params.max_iters && n > 0 {
        iterations += 1;
        delta = match g.incoming() {
            Some(incoming) => {
                pull_iteration(g.out(), incoming, params.damping, &mut scores, &mut work)
            }
            None => push_iteration(
                g.out(),
                params.damping,
                &mut scores,
                as_atomic(&mut work[..n]),
            ),
        };
        if delta < params.tolerance {
            break;
        }
        checkpoint::after_iteration(checkpoint, ALGORITHM, params, iterations, || {
            State::new(vec![Column::of("scores", &scores)]).with("delta", delta)
        })?;
    }
    let direction = if g.incoming().is_some() {
        "pull"
    } else {
        "push"
    };
    let stats = power_iteration_stats(
        iterations,
        g.num_vertices(),
        g.num_arcs(),
        delta,
        params.tolerance,
        direction,
    )
    .with("layout", layout_name(false));
    Ok(PageRankResult {
        scores,
        delta,
        stats,
    })
}

/// The state [`in_passes`] keeps for `n` vertices: scores and incoming sums, and the
/// all-vertices bitmap.
pub fn state_in_passes(n: u64) -> u64 {
    16 * n + n.div_ceil(64) * 8
}

/// PageRank as one streamed pass an iteration over any [`Traversal`]; see the module
/// documentation.
pub fn in_passes<G: Traversal>(
    g: &G,
    params: &PageRankParams,
) -> Result<PageRankResult, AlgoError> {
    check_params(params)?;
    if g.has_tiles() {
        return tiled(g, params, None);
    }
    let n = g.num_vertices();
    let d = params.damping;
    let degree = |v: usize| g.degree(v as Vertex);
    // Both are read or updated at random, once per arc or per piece of a list.
    let mut scores: Vec<f64> = huge_page_vec(n, |_| 1.0 / n as f64);
    let sums: Vec<AtomicF64> = huge_page_vec(n, |_| AtomicF64::new(0.0));
    let all = Bitmap::full(n);
    let symmetric = g.is_symmetric();
    let (mut iterations, mut delta) = (0u64, f64::INFINITY);
    while iterations < params.max_iters && n > 0 {
        iterations += 1;
        // One pass over the vertices: the dangling mass, and each score turned into its
        // contribution (one array read per arc instead of a score and a degree).
        let dangling: f64 =
            ordered_sum(scores.par_chunks_mut(BLOCK).enumerate().map(|(b, block)| {
                let mut dangling = 0.0;
                for (i, p) in block.iter_mut().enumerate() {
                    match degree(b * BLOCK + i) {
                        0 => dangling += *p,
                        deg => *p /= deg as f64,
                    }
                }
                dangling
            }));
        let c = &scores;
        let prefetch = |ids: &[u32]| prefetch_gather(c, ids);
        // As in memory, the gather is prefetched once the contributions miss the cache.
        let prefetches = symmetric && gather_misses_cache(c);
        let spec = ScanSpec {
            mode: Some(IoMode::Streaming),
            prefetch: prefetches.then_some(&prefetch as PrefetchFn),
            ..ScanSpec::new(&all)
        };
        g.pass(&spec, |v, neighbors, _| {
            if symmetric {
                sums[v as usize].fetch_add(lane_sum(neighbors, c));
            } else {
                let c = c[v as usize];
                for &u in neighbors {
                    sums[u as usize].fetch_add(c);
                }
            }
        })
        .map_err(read_error(ALGORITHM))?;
        let base = (1.0 - d) / n as f64 + d * dangling / n as f64;
        delta = ordered_sum(scores.par_chunks_mut(BLOCK).enumerate().map(|(b, block)| {
            let mut change = 0.0;
            for (i, p) in block.iter_mut().enumerate() {
                let deg = degree(b * BLOCK + i);
                let old = if deg > 0 { *p * deg as f64 } else { *p };
                let sum = &sums[b * BLOCK + i];
                let new = base + d * sum.load();
                // Zero again for the next pass.
                sum.store(0.0);
                change += (new - old).abs();
                *p = new;
            }
            change
        }));
        vastgraph_engine::progress::iteration(iterations);
        if delta < params.tolerance {
            break;
        }
    }
    let direction = if symmetric { "pull" } else { "push" };
    let stats = power_iteration_stats(
        iterations,
        g.num_vertices(),
        g.num_arcs(),
        delta,
        params.tolerance,
        direction,
    )
    .with("layout", layout_name(false));
    Ok(PageRankResult {
        scores,
        delta,
        stats,
    })
}

/// PageRank over the tiles ([`Traversal::sum_in_arcs`]), in memory or streamed from disk,
/// each iteration one pass over them ([`tiled_iteration`]). Two arrays of n f64: this
/// iteration's contributions, read by the pass, and the next one's, written by it. A score is
/// its contribution times the out-degree (within a rounding of the lists' score), or the
/// contribution itself for a vertex without out-arcs.
fn tiled<G: Traversal>(
    g: &G,
    params: &PageRankParams,
    checkpoint: Option<&Checkpoint>,
) -> Result<PageRankResult, AlgoError> {
    let n = g.num_vertices();
    let degree = |v: usize| g.degree(v as Vertex).max(1) as f64;
    let (mut iterations, mut delta) = (0u64, f64::INFINITY);
    // A checkpoint saved here holds the contributions too, so that a resumed run continues
    // from them exactly; one saved over the lists holds the scores alone.
    let (mut contrib, are_scores): (Vec<f64>, bool) =
        match checkpoint::begin(checkpoint, ALGORITHM, params)? {
            Some(mut saved) => {
                iterations = saved.iteration;
                delta = saved.f64("delta")?;
                match saved.has_column("contributions") {
                    true => (saved.column("contributions", n)?, false),
                    false => (saved.column("scores", n)?, true),
                }
            }
            None => (huge_page_vec(n, |_| 1.0 / n as f64), true),
        };
    // Scores become their contributions; the dangling mass is summed.
    let mut dangling = ordered_sum(contrib.par_chunks_mut(BLOCK).enumerate().map(|(b, block)| {
        let mut dangling = 0.0;
        for (i, p) in block.iter_mut().enumerate() {
            match g.degree((b * BLOCK + i) as Vertex) {
                0 => dangling += *p,
                deg if are_scores => *p /= deg as f64,
                _ => {}
            }
        }
        dangling
    }));
    let mut next: Vec<f64> = huge_page_vec(n, |_| 0.0);
    while iterations < params.max_iters && n > 0 {
        iterations += 1;
        (delta, dangling) = tiled_iteration(g, params.damping, &contrib, &mut next, dangling)?;
        std::mem::swap(&mut contrib, &mut next);
        vastgraph_engine::progress::iteration(iterations);
        if delta < params.tolerance {
            break;
        }
        checkpoint::after_iteration(checkpoint, ALGORITHM, params, iterations, || {
            State::new(vec![
                Column::from_fn("scores", n, |v| contrib[v] * degree(v)),
                Column::of("contributions", &contrib),
            ])
            .with("delta", delta)
        })?;
    }
    drop(next);
    contrib
        .par_iter_mut()
        .enumerate()
        .for_each(|(v, c)| *c *= degree(v));
    let stats = power_iteration_stats(
        iterations,
        g.num_vertices(),
        g.num_arcs(),
        delta,
        params.tolerance,
        "pull",
    )
    .with("layout", layout_name(true));
    Ok(PageRankResult {
        scores: contrib,
        delta,
        stats,
    })
}

fn check_params(params: &PageRankParams) -> Result<(), AlgoError> {
    let invalid = |message: String| {
        Err(AlgoError::InvalidParameter {
            algorithm: ALGORITHM,
            message,
        })
    };
    if !(0.0..1.0).contains(&params.damping) {
        return invalid(format!("damping must be in [0, 1), got {}", params.damping));
    }
    if !(params.tolerance >= 0.0 && params.tolerance.is_finite()) {
        return invalid(format!(
            "tolerance must be a finite number ≥ 0, got {}",
            params.tolerance
        ));
    }
    Ok(())
}

/// Sums per-block partial sums in block order: the same result for any thread count.
fn ordered_sum(partials: impl IndexedParallelIterator<Item = f64>) -> f64 {
    partials.collect::<Vec<f64>>().iter().sum()
}

/// p'[v] = base + d·Σ_{u→v} c[u] with c = `contrib`; returns δ. `contrib` has
/// `Adjacency::sum_values_len` entries, those from n on 0.0 (for `Adjacency::sum_lists`).
fn pull_iteration<A: Adjacency>(
    out: &A,
    incoming: &A,
    d: f64,
    scores: &mut [f64],
    contrib: &mut [f64],
) -> f64 {
    let n = scores.len();
    let dangling = ordered_sum(
        contrib[..n]
            .par_chunks_mut(BLOCK)
            .zip(scores.par_chunks(BLOCK))
            .enumerate()
            .map(|(block, (contrib, scores))| {
                let mut dangling = 0.0;
                for (i, (c, &p)) in contrib.iter_mut().zip(scores).enumerate() {
                    let degree = out.degree((block * BLOCK + i) as Vertex);
                    if degree == 0 {
                        dangling += p;
                        *c = 0.0;
                    } else {
                        *c = p / degree as f64;
                    }
                }
                dangling
            }),
    );
    let base = (1.0 - d) / n as f64 + d * dangling / n as f64;
    let contrib = &*contrib;
    ordered_sum(
        scores
            .par_chunks_mut(BLOCK)
            .with_max_len(1)
            .enumerate()
            .map(|(block, scores)| {
                let first = block * BLOCK;
                let vertices = first as Vertex..(first + scores.len()) as Vertex;
                let mut delta = 0.0;
                incoming.sum_lists(vertices, contrib, |v, sum| {
                    let new = base + d * sum;
                    let p = &mut scores[v as usize - first];
                    delta += (new - *p).abs();
                    *p = new;
                });
                delta
            }),
    )
}

/// What a run read its arcs from, for the stats: the tiles, or the lists.
pub(crate) fn layout_name(tiles: bool) -> &'static str {
    if tiles {
        "tiles"
    } else {
        "lists"
    }
}

/// One iteration over the tiles: `contrib` holds p[u]/deg(u) (p[u] for a vertex without
/// out-arcs, whose contribution no tile reads) and `dangling` the mass of those vertices. The
/// pass sums the contributions into `next`, and as each column's sums are complete, the task
/// that summed them turns them into the new scores' contributions while they are in its cache:
/// no pass over the vertices of its own. Returns δ and the new dangling mass, each summed by
/// column, then over the columns in order: the same for any thread count and in memory or out
/// of core.
fn tiled_iteration<G: Traversal>(
    g: &G,
    d: f64,
    contrib: &[f64],
    next: &mut [f64],
    dangling: f64,
) -> Result<(f64, f64), AlgoError> {
    let n = contrib.len();
    let base = (1.0 - d) / n as f64 + d * dangling / n as f64;
    let (_, columns) = g
        .sum_in_arcs(contrib, next, |first, sums| {
            // LANES independent sums, vertex i's in lane i % LANES, then the lanes in order:
            // the divisions of a group of vertices overlap, and the result is still fixed.
            const LANES: usize = 4;
            let (mut delta, mut dangling) = ([0.0; LANES], [0.0; LANES]);
            for (i, x) in sums.iter_mut().enumerate() {
                let v = first + i;
                let degree = g.degree(v as Vertex);
                // A vertex without out-arcs keeps its score as its "contribution".
                let divisor = degree.max(1) as f64;
                let new = base + d * *x;
                delta[i % LANES] += (new - contrib[v] * divisor).abs();
                dangling[i % LANES] += if degree == 0 { new } else { 0.0 };
                *x = new / divisor;
            }
            (delta.iter().sum::<f64>(), dangling.iter().sum::<f64>())
        })
        .map_err(read_error(ALGORITHM))?;
    Ok(columns
        .iter()
        .fold((0.0, 0.0), |(delta, dangling), column| {
            (delta + column.0, dangling + column.1)
        }))
}

/// The same iteration over out-edges only: `incoming_sum[v]` (zero on entry, zero again on
/// return) collects Σ_{u→v} p[u]/deg(u) by atomic adds.
fn push_iteration<A: Adjacency>(
    out: &A,
    d: f64,
    scores: &mut [f64],
    incoming_sum: &[AtomicF64],
) -> f64 {
    let n = scores.len();
    let scores_read = &*scores;
    let dangling = ordered_sum(
        scores_read
            .par_chunks(BLOCK)
            .with_max_len(1)
            .enumerate()
            .map(|(block, scores)| {
                let mut dangling = 0.0;
                for (i, &p) in scores.iter().enumerate() {
                    let u = (block * BLOCK + i) as Vertex;
                    let degree = out.degree(u);
                    if degree == 0 {
                        dangling += p;
                    } else {
                        let c = p / degree as f64;
                        out.for_each_neighbor(u, |v| {
                            incoming_sum[v as usize].fetch_add(c);
                        });
                    }
                }
                dangling
            }),
    );
    let base = (1.0 - d) / n as f64 + d * dangling / n as f64;
    ordered_sum(
        scores
            .par_chunks_mut(BLOCK)
            .zip(incoming_sum.par_chunks(BLOCK))
            .map(|(scores, sums)| {
                let mut delta = 0.0;
                for (p, sum) in scores.iter_mut().zip(sums) {
                    let new = base + d * sum.load();
                    sum.store(0.0);
                    delta += (new - *p).abs();
                    *p = new;
                }
                delta
            }),
    )
}

/// Views an f64 array as atomics for the push iteration (same size and alignment).
fn as_atomic(values: &mut [f64]) -> &[AtomicF64] {
    const _: () = assert!(std::mem::align_of::<AtomicF64>() == std::mem::align_of::<f64>());
    const _: () = assert!(std::mem::size_of::<AtomicF64>() == std::mem::size_of::<f64>());
    // SAFETY: AtomicF64 is a transparent AtomicU64, which has f64's size and (asserted) alignment
    // and accepts every bit pattern; the exclusive borrow rules out non-atomic access meanwhile.
    unsafe { std::slice::from_raw_parts(values.as_mut_ptr() as *const AtomicF64, values.len()) }
}

/// Checks the scores as GAPBS does, by one plain sequential power step from them (pushed over
/// the out-lists, independent of the kernels' pull and push): the scores must be finite, ≥ 0,
/// sum to 1 (within 1e-9), and their residual r = ‖T(p) − p‖₁ must be what a power iteration
/// whose last step changed the scores by δ = `result.delta` leaves: r ≤ d·δ, since T is a
/// contraction by d in L1. That holds for a converged run and for one stopped by `max_iters`
/// (e.g. 10 iterations with tolerance 0); a wrong rule, damping or score fails it. The distance
/// to the fixed point is then at most r / (1 − d), with no need to compute the fixed point: on
/// Kronecker 25 that took 13 minutes serially, this check one pass. The δ claimed is checked
/// against the iteration count, so a result cannot pass by claiming a large one.
pub fn verify_pagerank<A: Adjacency>(
    g: &Graph<A>,
    params: &PageRankParams,
    result: &PageRankResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    if result.scores.len() != n {
        return fail(format!("{} scores for {n} vertices", result.scores.len()));
    }
    if n == 0 {
        return Ok(());
    }
    if let Some(v) = result
        .scores
        .iter()
        .position(|s| !(s.is_finite() && *s >= 0.0))
    {
        return fail(format!("vertex {v} has score {}", result.scores[v]));
    }
    let total: f64 = result.scores.iter().sum();
    if (total - 1.0).abs() > 1e-9 {
        return fail(format!("scores sum to {total}, not 1"));
    }
    let d = params.damping;
    // The claimed δ must itself fit the run: from uniform scores the first step moves them by at
    // most 2 (both are distributions) and each later one by at most d times the one before.
    let iterations = result.stats.iterations;
    if iterations > 0 {
        let most =
            2.0 * d.powi((iterations - 1).min(i32::MAX as u64) as i32) * (1.0 + 1e-6) + 1e-10;
        if result.delta.is_nan() || result.delta > most {
            return fail(format!(
                "a last change of {:.3e} cannot follow {iterations} power steps (at most {most:.3e})",
                result.delta
            ));
        }
    }
    let mut next = vec![0.0; n];
    let dangling: f64 = (0..n)
        .filter(|&u| g.out().degree(u as Vertex) == 0)
        .map(|u| result.scores[u])
        .sum();
    next.fill((1.0 - d) / n as f64 + d * dangling / n as f64);
    for (u, &pu) in result.scores.iter().enumerate() {
        let degree = g.out().degree(u as Vertex);
        g.out()
            .for_each_neighbor(u as Vertex, |v| next[v as usize] += d * pu / degree as f64);
    }
    let residual: f64 = result
        .scores
        .iter()
        .zip(&next)
        .map(|(a, b)| (a - b).abs())
        .sum();
    // Slack for rounding: the sums run in another order than the kernel's, over values ~1/n.
    let limit = d * result.delta * (1.0 + 1e-6) + 1e-10;
    if residual.is_nan() || residual > limit {
        return fail(format!(
            "one power step from the scores changes them by {residual:.3e} (L1), but a run whose \
             last step changed them by {:.3e} leaves at most {limit:.3e}",
            result.delta
        ));
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Param, Params};
use crate::registry::Values;
use std::ops::Bound::{Excluded, Included, Unbounded};

pub const DAMPING: Param = Param::number(
    "damping",
    0.85,
    (Included(0.0), Excluded(1.0)),
    "the damping factor",
);
pub const TOLERANCE: Param = Param::number(
    "tolerance",
    1e-6,
    (Included(0.0), Unbounded),
    "stop when an iteration's L1 change is below this",
);
pub const MAX_ITERS: Param = Param::count("max_iters", 100, 0, "the most iterations");
/// `pagerank` in the registry.
pub struct PageRank;

impl Algorithm for PageRank {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "pagerank",
        summary: "PageRank, damping 0.85, stop at L1 change < --tolerance or --max-iters",
        params: &[DAMPING, TOLERANCE, MAX_ITERS],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: true,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[],
        state_in_passes: Some(|n, _| Some(state_in_passes(n))),
    };
    type Params = PageRankParams;
    type Result = PageRankResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<PageRankParams, AlgoError> {
        Ok(PageRankParams {
            damping: given.number(&DAMPING),
            tolerance: given.number(&TOLERANCE),
            max_iters: given.count(&MAX_ITERS),
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &PageRankParams,
        checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<PageRankResult, AlgoError> {
        pagerank_resumable(g, q, checkpoint)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &PageRankParams,
        r: &PageRankResult,
    ) -> Result<(), VerifyError> {
        verify_pagerank(g, q, r)
    }
    fn output(r: PageRankResult, _q: &PageRankParams) -> (Option<Values>, RunStats) {
        (Some(Values::F64(r.scores)), r.stats)
    }
}
