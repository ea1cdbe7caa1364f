//! Runs within a memory budget on an [`OocGraph`], which reads neighbour lists from disk.
//! bfs, sssp, cc and pagerank have kernels of passes: one planned read of the active vertices'
//! lists per iteration; label-correcting ones (bfs, sssp) let the engine reprocess loaded
//! ranges (reentry), cc is one sequential pass (CLIP's beyond-neighbourhood kernels). Every
//! other algorithm runs its one in-memory kernel on [`OocGraph::lists`], the engine's graph
//! interface over a cache of blocks of the files: the same kernel, so the same result as in
//! memory, with `--seed` alike.
//!
//! [`run`] is this module's counterpart of [`crate::registry::run`]: same parameter names, output
//! arrays and verifiers (those of the kernels of passes read the store through the page cache,
//! after the kernel; the others verify on the lists they ran on).

mod bfs;
mod cc;
mod pagerank;
mod sssp;

use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;
use vastgraph_engine::bitmap::WORDS_PER_TASK;
use vastgraph_engine::ooc::OocLists;
use vastgraph_engine::ooc::{
    long_list_reserve, page_sums_reserve, MemoryPlan, OocGraph, OocOptions, Reserved, ScanSpec,
    Weights,
};
use vastgraph_engine::{visit_store, Adjacency, Bitmap, CsrGraph, Graph, GraphVisitor, Vertex};
use vastgraph_store::manifest::LIST_HEAD_IDS;
use vastgraph_store::Store;

use crate::common::{AlgoError, VerifyError};
use crate::registry::{execute, params_json, Output, Params, RunError, Values};

pub use bfs::bfs;
pub use cc::connected_components;
pub use pagerank::pagerank;
pub use sssp::sssp;

/// The algorithms with a kernel of passes: each iteration reads the lists of its active
/// vertices in one planned pass (selective or streaming). Every other algorithm runs its
/// in-memory kernel on the lists read through the cache of blocks ([`OocGraph::lists`]).
pub const PASS_KERNELS: &[&str] = &["bfs", "sssp", "cc", "pagerank"];

/// Whether `name` runs as a kernel of passes with these parameters: one of [`PASS_KERNELS`],
/// without a checkpoint (which only the in-memory kernels save; they then read the lists
/// through the cache of blocks).
pub fn runs_in_passes(name: &str, p: &Params) -> bool {
    PASS_KERNELS.contains(&name) && p.checkpoint.is_none()
}

/// Bytes of vertex state the pass kernel of `name` keeps for `n` vertices (outputs included),
/// or None when it runs none ([`runs_in_passes`]). The budget check adds the offsets and the
/// I/O buffers.
pub fn state_bytes(name: &str, n: u64, p: &Params) -> Option<u64> {
    if !runs_in_passes(name, p) {
        return None;
    }
    let bitmap = n.div_ceil(64) * 8;
    Some(match name {
        // Distances (with the parents packed in, symmetric), frontier, next and unvisited
        // bitmaps, and the pull's vertices left after the first neighbours and after their
        // heads; the parents output adds a word per vertex.
        "bfs" => 8 * n + 5 * bitmap + if p.parents { 8 * n } else { 0 },
        "sssp" => 8 * n + 2 * bitmap,
        // One union-find word per vertex (becomes the labels), the all-vertices bitmap.
        "cc" => 4 * n + bitmap,
        // Scores and incoming sums.
        "pagerank" => 16 * n + bitmap,
        _ => return None,
    })
}

/// How a run of `name` on the store in `dir` fits a memory budget.
pub enum BudgetFit {
    /// The graph is opened for direct reads within the budget: for the kernel of passes, or
    /// for the in-memory kernel reading lists through the cache of blocks.
    OutOfCore(Box<OocGraph>),
    /// The mapped graph and the kernel's state (`need` bytes) fit the budget, and the
    /// algorithm has no kernel of passes: the in-memory kernel runs on the mapped store.
    InMemory { need: u64 },
}

/// Plans a run of `name` within `budget` bytes, for the CLI's `--memory` and Python's `memory=`
/// alike. Fails before anything runs when the state alone does not fit (the message gives the
/// minimum).
pub fn open_within_budget(
    dir: &Path,
    name: &str,
    p: &Params,
    budget: u64,
    options: OocOptions,
) -> anyhow::Result<BudgetFit> {
    let manifest = OocGraph::manifest_of(dir)?;
    let (n, m) = (manifest.vertices, manifest.arcs);
    let threads = rayon::current_num_threads() as u64;
    let (state, weight_files, options) = match state_bytes(name, n, p) {
        Some(state) => (
            state,
            usize::from(reads_weights(name) && manifest.weighted),
            options,
        ),
        None => {
            let info = crate::registry::ALGORITHMS
                .iter()
                .find(|a| a.name == name)
                .ok_or_else(|| RunError::Unknown(name.to_string()))?;
            let state = info.state.bytes(n, m, threads);
            // The mapped graph and the state fit: the in-memory kernel runs as it would
            // without a budget.
            let graph_bytes: u64 = manifest
                .files
                .iter()
                .filter(|f| f.name != vastgraph_store::manifest::files::LABELS)
                .map(|f| f.bytes)
                .sum();
            if graph_bytes + state <= budget {
                return Ok(BudgetFit::InMemory {
                    need: graph_bytes + state,
                });
            }
            let random_access = OocOptions {
                random_access: true,
                ..options
            };
            (state, usize::from(manifest.weighted), random_access)
        }
    };
    let reserved = Reserved {
        long_lists: long_list_reserve(dir, &manifest, weight_files == 1)?,
        page_sums: page_sums_reserve(&manifest, weight_files == 1),
    };
    // A kernel reading lists at random through the cache of blocks also reads whole frontiers
    // in passes (edge_map): a quarter of the room beyond the fixed part goes to their pool, the
    // rest to the blocks.
    let (buffer, depth) = match options.random_access {
        true => {
            let fixed = offsets_bytes(&manifest) + state + reserved.long_lists + reserved.page_sums;
            let per_file = budget.saturating_sub(fixed) / 4 / (1 + weight_files) as u64;
            let buffer = (per_file as usize / PASS_DEPTH / PAGE as usize * PAGE as usize)
                .clamp(MIN_PASS_BUFFER, MAX_PASS_BUFFER);
            (Some(buffer), Some(PASS_DEPTH))
        }
        false => (None, None),
    };
    let plan = MemoryPlan::new(
        budget,
        offsets_bytes(&manifest),
        1 + weight_files,
        state,
        reserved,
        buffer,
        depth,
    )
    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    Ok(BudgetFit::OutOfCore(Box::new(OocGraph::open(
        dir, plan, options,
    )?)))
}

/// The I/O pool of a run that reads lists through the cache of blocks: its depth, and the
/// bounds of its buffers.
const PASS_DEPTH: usize = 16;
const MIN_PASS_BUFFER: usize = 16 << 10;
const MAX_PASS_BUFFER: usize = 1 << 20;

/// Bytes of offsets an out-of-core run holds in DRAM: the edge offsets, and a compressed
/// store's byte offsets of the codes.
pub fn offsets_bytes(manifest: &vastgraph_store::Manifest) -> u64 {
    let compressed = manifest.codec.list_codec().is_some();
    vastgraph_engine::ooc::offsets_bytes(manifest.vertices, compressed)
}

/// Whether the kernel reads edge weights (a second file per request).
pub fn reads_weights(name: &str) -> bool {
    name == "sssp"
}

/// The default source, as in-memory: the vertex with the most out-edges, smallest id among ties.
pub fn default_source(g: &OocGraph) -> u64 {
    let offsets = g.offsets();
    (0..g.num_vertices())
        .into_par_iter()
        .map(|v| (offsets[v + 1] - offsets[v], std::cmp::Reverse(v)))
        .max()
        .map_or(0, |(_, std::cmp::Reverse(v))| v as u64)
}

pub(crate) fn check_source(g: &OocGraph, source: u64) -> Result<Vertex, AlgoError> {
    if source >= g.num_vertices() as u64 {
        return Err(AlgoError::SourceOutOfRange {
            vertex: source,
            vertices: g.num_vertices() as u64,
        });
    }
    Ok(source as Vertex)
}

pub(crate) fn io_error(algorithm: &'static str, e: anyhow::Error) -> AlgoError {
    AlgoError::Io {
        algorithm,
        message: format!("{e:#}"),
    }
}

/// A bitmap with every vertex set: the frontier of a pass over the whole graph.
pub(crate) fn all_vertices(n: usize) -> Bitmap {
    vertex_range(n, 0..n)
}

/// A bitmap over `n` vertices with those in `range` set: a pass over part of the graph.
pub(crate) fn vertex_range(n: usize, range: std::ops::Range<usize>) -> Bitmap {
    vertices_where(n, range, |_| true)
}

/// The vertices with at least one arc, from the CSR offsets (n + 1). A word of 64 vertices
/// whose offsets at both ends agree holds none, and is not read further: on a degree-ordered
/// store the isolated vertices (half of Kronecker 25's) lie together at the end, and half of
/// the offsets' 268 MB is skipped.
pub(crate) fn vertices_with_arcs(offsets: &[u64]) -> Bitmap {
    let n = offsets.len() - 1;
    let words = (0..n.div_ceil(64))
        .into_par_iter()
        .map(|w| {
            let (lo, hi) = (64 * w, (64 * w + 64).min(n));
            if offsets[lo] == offsets[hi] {
                return 0;
            }
            (lo..hi)
                .filter(|&v| offsets[v + 1] > offsets[v])
                .fold(0u64, |word, v| word | 1 << (v - lo))
        })
        .collect();
    Bitmap::from_words(words, n)
}

/// A bitmap over `n` vertices with those `v` in `range` set for which `keep(v)` holds.
pub(crate) fn vertices_where(
    n: usize,
    range: std::ops::Range<usize>,
    keep: impl Fn(usize) -> bool + Sync,
) -> Bitmap {
    let words = (0..n.div_ceil(64))
        .into_par_iter()
        .map(|w| {
            let (lo, hi) = (
                (64 * w).max(range.start),
                (64 * w + 64).min(range.end).min(n),
            );
            (lo..hi)
                .filter(|&v| keep(v))
                .fold(0u64, |word, v| word | 1 << (v - 64 * w))
        })
        .collect();
    Bitmap::from_words(words, n)
}

/// Whether a pass should read the list heads of `rest` before their lists: when the cost
/// model puts the heads below what they would spare of the lists' reads. `hit_rate` is the
/// share of the vertices that a list's first id already took care of (BFS: settled by the
/// first neighbours; CC: hung in the giant tree by them). The lists are costed as an adaptive
/// selective pass would read them: their pages, in runs merged across gaps the device reads
/// faster than it serves another request, each run a request (counted in one walk: the
/// planner itself would cost tens of milliseconds over 5.8M scattered vertices).
///
/// What the heads spare: each of their further 7 ids is taken to succeed as often as the first
/// ids did, so they leave a fraction `(1 - hit_rate)^7` of these vertices whose lists must
/// still be read. Lists share pages, so the pages left are up to that fraction times the lists
/// a page holds. On Kronecker 25 in its original order the first neighbours settle 64% of BFS's
/// first pull, the heads are 313 MiB against 2.4 GiB of pages of lists, and leave 1,883 lists
/// to read; cc's 74k vertices outside the giant tree have 274 MB of pages in 32k runs. On a
/// degree-ordered store the lists left are few and short (BFS: 127 MiB). On a uniform random
/// graph the frontier of the first pull is a twelfth of the vertices, and the heads would leave
/// half the lists, on every page.
pub(crate) fn heads_spare_reads(
    g: &OocGraph,
    rest: &Bitmap,
    hit_rate: f64,
) -> anyhow::Result<bool> {
    let Some(heads) = g.list_heads_seconds(rest)? else {
        return Ok(false);
    };
    let profile = g.profile();
    let gap_pages = profile.break_even_gap_bytes() / PAGE;
    let (lists, pages, runs) = lists_and_pages(g, rest, gap_pages);
    if pages == 0 {
        return Ok(false);
    }
    let lists_seconds = profile.cost_seconds(PAGE * pages, runs);
    let pages_left = heads_leave(hit_rate, LIST_HEAD_IDS - 1, lists, pages);
    Ok(heads < HEADS_MARGIN * lists_seconds * (1.0 - pages_left))
}

/// The share of the pages of `lists` lists that must still be read after `ids` ids of each,
/// each id taken to settle a vertex as often as the first did (`hit_rate`). Lists share pages,
/// so the pages left are up to that share of the vertices times the lists a page holds.
fn heads_leave(hit_rate: f64, ids: u64, lists: u64, pages: u64) -> f64 {
    let left = (1.0 - hit_rate).powi(ids as i32);
    (left * lists as f64 / pages as f64).min(1.0)
}

/// Whether a pass that needs the first ids of the lists of `set`, and that is done with a
/// vertex when one of them `settles`, should read the list heads of all of `set` rather than
/// the first neighbours, then the heads (or the lists) of the vertices they leave.
///
/// Both ways leave the same vertices whose lists must be read. The first costs the first
/// neighbours and, after them, the smaller of the lists left or their heads; and where the
/// first ids settle too few vertices, those left lie in every chunk of the heads, so that the
/// heads cost as much as for all of `set`. A sample of the first neighbours
/// ([`OocGraph::sample_first_neighbors`], a page in 256) tells which: the share they settle,
/// and the pages of the lists they leave, scaled up from the sampled pages' vertices. On
/// Kronecker 25 in its original order the first ids settle 64% of BFS's first pull and the
/// lists left lie on 2.4 GiB of pages: the heads (313 MiB) are read at once, and the first
/// neighbours' 134 MB are spared. On a degree-ordered store the lists left are 127 MiB, and
/// the first neighbours are read first. The same margin as [`heads_spare_reads`] keeps the
/// first way where the model cannot tell them apart.
pub(crate) fn heads_first_pays(
    g: &OocGraph,
    set: &Bitmap,
    settles: impl Fn(Vertex) -> bool + Sync,
) -> anyhow::Result<bool> {
    let Some(heads) = g.list_heads_seconds(set)? else {
        return Ok(false);
    };
    let Some(firsts) = g.first_neighbors_seconds(set)? else {
        return Ok(false);
    };
    let left = Bitmap::new(g.num_vertices());
    let sample = g.sample_first_neighbors(set, |v, first| {
        if !settles(first) {
            left.set_atomic(v as usize);
        }
    })?;
    // Each vertex of `set` in the sampled pages is visited once.
    let sampled = sample.arcs_processed as f64;
    if sampled == 0.0 {
        return Ok(false);
    }
    let hit_rate = 1.0 - left.count_ones() as f64 / sampled;
    let scale = set.count_ones() as f64 / sampled;
    let profile = g.profile();
    let (lists, pages, runs) = lists_and_pages(g, &left, profile.break_even_gap_bytes() / PAGE);
    let runs = scaled_runs(&left, lists, runs, scale);
    let lists_seconds = profile.cost_seconds(PAGE * (pages as f64 * scale) as u64, runs);
    let pages_left = match pages {
        0 => 0.0,
        _ => heads_leave(hit_rate, LIST_HEAD_IDS - 1, lists, pages),
    };
    let spared = firsts + lists_seconds * (1.0 - pages_left);
    log::info!(
        "first ids settle {:.1}% of a sample of {sampled} vertices; heads {heads:.3} s, \
         first neighbours {firsts:.3} s, lists left {lists_seconds:.3} s (modelled)",
        100.0 * hit_rate
    );
    Ok(heads < HEADS_MARGIN * spared)
}

/// The runs a pass over the lists of a whole set would read in, from those of a sample of it
/// (`left`: `lists` lists in `runs` runs) taken in pages of the first neighbours' file, each
/// [`SAMPLE_WINDOW`] consecutive vertices, `scale` times fewer than the set. Each sampled page
/// starts a run of its own, where in the whole pass its first list may go on from the page
/// before's last: scaling those up would count a request for every 1,024 vertices (on a
/// degree-ordered Kronecker 25, 0.16 s of requests for lists read in a few hundred). So a
/// page's first run is taken to be a new one as often as a list in a page started one.
fn scaled_runs(left: &Bitmap, lists: u64, runs: u64, scale: f64) -> u64 {
    let windows = left
        .words()
        .par_chunks(SAMPLE_WINDOW / 64)
        .filter(|words| words.iter().any(|w| w.load(Relaxed) != 0))
        .count() as u64;
    let within = runs.saturating_sub(windows);
    let starts = match lists.saturating_sub(windows) {
        0 => 1.0,
        later => within as f64 / later as f64,
    };
    ((within as f64 + windows as f64 * starts) * scale).max(1.0) as u64
}

/// Vertices whose first neighbours share a page: a sample's unit.
const SAMPLE_WINDOW: usize = PAGE as usize / 4;

/// The share of the lists' modelled reads the heads must stay below. The model is coarse: on
/// the degree-ordered Kronecker 25 it put BFS's lists at 0.10 s where the planner put 0.065 s,
/// the heads at 0.078 s, and reading the heads made the run 1.16× slower (8 paired cold runs).
/// Where they pay, they cost a tenth or less (original order: 0.12 s against 1.5 s for BFS,
/// 0.63 s for CC).
const HEADS_MARGIN: f64 = 0.5;

const PAGE: u64 = 4096;

/// The lists of `set` that are not empty, the pages of the neighbour file read for them (each
/// once, even when several lists share it), and the runs they are read in: consecutive pages,
/// and gaps of up to `gap_pages` read through (a page or a run shared across two tasks is
/// counted twice).
fn lists_and_pages(g: &OocGraph, set: &Bitmap, gap_pages: u64) -> (u64, u64, u64) {
    let offsets = g.offsets();
    set.words()
        .par_chunks(WORDS_PER_TASK)
        .enumerate()
        .map(|(t, words)| {
            let (mut lists, mut pages, mut runs) = (0u64, 0u64, 0u64);
            let mut counted = None::<u64>;
            for (i, word) in words.iter().enumerate() {
                let mut bits = word.load(Relaxed);
                while bits != 0 {
                    let v = (t * WORDS_PER_TASK + i) * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let (a, b) = (offsets[v], offsets[v + 1]);
                    if a == b {
                        continue;
                    }
                    let (first, last) = (4 * a / PAGE, (4 * b - 1) / PAGE);
                    let from = match counted {
                        Some(c) if first > c + 1 + gap_pages => {
                            runs += 1;
                            first
                        }
                        // The gap since the last page is read through.
                        Some(c) => c + 1,
                        None => {
                            runs += 1;
                            first
                        }
                    };
                    pages += (last + 1).saturating_sub(from);
                    counted = Some(last);
                    lists += 1;
                }
            }
            (lists, pages, runs)
        })
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
}

/// The label-correcting loop of bfs and sssp: starting from `source`, each pass scans the
/// out-arcs of the active vertices, where `relax(v, neighbours, weights, activated)` marks in
/// `activated` the vertices whose label dropped (streamed passes reprocess those inside a
/// loaded range: reentry); they are the next pass's active set. `after_pass` runs after each
/// pass and may end the run with an error. Returns the passes and the arcs processed.
pub(crate) fn frontier_passes<R>(
    g: &OocGraph,
    algorithm: &'static str,
    source: Vertex,
    relax: R,
    after_pass: impl FnMut() -> Result<(), AlgoError>,
) -> Result<(u64, u64), AlgoError>
where
    R: Fn(Vertex, &[Vertex], Weights<'_>, &Bitmap) + Sync,
{
    let mut active = Bitmap::new(g.num_vertices());
    active.set(source as usize);
    frontier_passes_from(g, algorithm, active, relax, after_pass)
}

/// [`frontier_passes`] from the vertices of `active` rather than from one source (bfs goes on
/// from a level-synchronous frontier this way).
pub(crate) fn frontier_passes_from<R>(
    g: &OocGraph,
    algorithm: &'static str,
    mut active: Bitmap,
    relax: R,
    mut after_pass: impl FnMut() -> Result<(), AlgoError>,
) -> Result<(u64, u64), AlgoError>
where
    R: Fn(Vertex, &[Vertex], Weights<'_>, &Bitmap) + Sync,
{
    let mut activated = Bitmap::new(g.num_vertices());
    let (mut passes, mut arcs) = (0u64, 0u64);
    while active.count_ones() > 0 {
        passes += 1;
        let spec = ScanSpec {
            activated: Some(&activated),
            ..ScanSpec::new(&active)
        };
        let record = g
            .scan(&spec, |v, neighbors, weights| {
                relax(v, neighbors, weights, &activated)
            })
            .map_err(|e| io_error(algorithm, e))?;
        arcs += record.arcs_processed;
        after_pass()?;
        std::mem::swap(&mut active, &mut activated);
        activated.clear_all();
    }
    Ok((passes, arcs))
}

/// An out-of-core result and the in-memory verifier that checks it, on whichever graph view
/// the store's codec needs.
enum Check<'r> {
    Bfs(&'r crate::bfs::BfsParams, &'r crate::bfs::BfsResult),
    Sssp(u64, &'r crate::sssp::SsspResult),
    Cc(&'r crate::cc::CcResult),
    PageRank(
        &'r crate::pagerank::PageRankParams,
        &'r crate::pagerank::PageRankResult,
    ),
}

impl GraphVisitor for Check<'_> {
    type Output = Result<(), VerifyError>;
    fn visit<A: Adjacency>(self, g: &Graph<A>) -> Self::Output {
        match self {
            Check::Bfs(q, r) => crate::bfs::verify_bfs(g, q, r),
            Check::Sssp(source, r) => crate::sssp::verify_sssp(g, source, r),
            Check::Cc(r) => crate::cc::verify_cc(g, r),
            Check::PageRank(q, r) => crate::pagerank::verify_pagerank(g, q, r),
        }
    }
}

/// An out-of-core run: the registry's output plus what the I/O did.
pub struct OocOutput {
    pub output: Output,
    /// bytes_read, requests, MB/s, amplification, wait vs compute, per-iteration records.
    pub io: serde_json::Value,
}

/// Runs algorithm `name` out of core; with `verify`, checks the result with the in-memory
/// verifier, which opens the store through the page cache after the kernel has finished.
pub fn run(name: &str, g: &OocGraph, p: &Params, verify: bool) -> Result<OocOutput, RunError> {
    let source = || p.source.unwrap_or_else(|| default_source(g));
    let dir = g.dir().to_path_buf();
    // The verifiers take an in-memory graph: map the store (raw or compressed) once the kernel
    // is done.
    let with_store = |check: Check<'_>| {
        let store = Store::open(&dir).map_err(|e| VerifyError::new("store", e.to_string()))?;
        visit_store(&store, check)
    };
    g.take_records();
    g.clear_cache();
    let kernel_records = std::sync::Mutex::new(None);
    let in_passes = runs_in_passes(name, p);
    let output = match name {
        "bfs" if in_passes => {
            let q = crate::bfs::BfsParams {
                source: source(),
                parents: p.parents,
            };
            let check = |r: &crate::bfs::BfsResult| with_store(Check::Bfs(&q, r));
            execute(
                || releasing_cache(g, || bfs(g, &q)),
                verify.then_some(&check as _),
                params_json(&q),
                |r| {
                    let values = if q.parents {
                        r.parents.unwrap_or_default()
                    } else {
                        r.distances
                    };
                    (Some(Values::I64(values)), r.stats)
                },
            )?
        }
        "sssp" if in_passes => {
            let q = crate::sssp::SsspParams {
                source: source(),
                ..Default::default()
            };
            let check = |r: &crate::sssp::SsspResult| with_store(Check::Sssp(q.source, r));
            execute(
                || releasing_cache(g, || sssp(g, &q)),
                verify.then_some(&check as _),
                params_json(&q),
                |r| (Some(Values::F64(r.distances)), r.stats),
            )?
        }
        "cc" if in_passes => {
            let check = |r: &crate::cc::CcResult| with_store(Check::Cc(r));
            execute(
                || releasing_cache(g, || connected_components(g)),
                verify.then_some(&check as _),
                serde_json::json!({"method": "union-find, one pass"}),
                |r| (Some(Values::U32(r.labels)), r.stats),
            )?
        }
        "pagerank" if in_passes => {
            let d = crate::pagerank::PageRankParams::default();
            let q = crate::pagerank::PageRankParams {
                damping: p.damping.unwrap_or(d.damping),
                tolerance: p.tolerance.unwrap_or(d.tolerance),
                max_iters: p.max_iters.unwrap_or(d.max_iters),
            };
            let check = |r: &crate::pagerank::PageRankResult| with_store(Check::PageRank(&q, r));
            execute(
                || releasing_cache(g, || pagerank(g, &q)),
                verify.then_some(&check as _),
                params_json(&q),
                |r| (Some(Values::F64(r.scores)), r.stats),
            )?
        }
        other => {
            let lists = Graph::new(g.lists(), None, g.is_symmetric());
            // The records up to the kernel's end are its own; the verifier reads the mapped
            // store, through the page cache, as those of the kernels of passes do.
            let take = || *kernel_records.lock().unwrap() = Some(g.take_records());
            let output = releasing_cache(g, || match verify {
                false => crate::registry::run_then(other, &lists, p, None::<&CsrGraph>, &take),
                true => {
                    let store =
                        Store::open(&dir).map_err(|e| VerifyError::new("store", e.to_string()))?;
                    visit_store(
                        &store,
                        VerifiedOnStore {
                            name: other,
                            lists: &lists,
                            params: p,
                            after_kernel: &take,
                        },
                    )
                }
            });
            // A read error left some lists empty: whatever the kernel or its verifier made of
            // them, the error is the outcome.
            if let Some(e) = g.take_list_error() {
                let algorithm = crate::registry::ALGORITHMS
                    .iter()
                    .find(|a| a.name == other)
                    .map_or("run", |a| a.name);
                return Err(RunError::Algo(io_error(algorithm, e)));
            }
            output?
        }
    };
    let records = kernel_records
        .into_inner()
        .unwrap()
        .unwrap_or_else(|| g.take_records());
    Ok(OocOutput {
        io: io_summary(g, output.wall_seconds, records),
        output,
    })
}

/// The in-memory kernel of `name` on the lists read through the cache of blocks, verified on
/// the mapped store's graph.
struct VerifiedOnStore<'a, 'g> {
    name: &'a str,
    lists: &'a Graph<OocLists<'g>>,
    params: &'a Params,
    after_kernel: &'a dyn Fn(),
}

impl GraphVisitor for VerifiedOnStore<'_, '_> {
    type Output = Result<Output, RunError>;
    fn visit<A: Adjacency>(self, mapped: &Graph<A>) -> Self::Output {
        crate::registry::run_then(
            self.name,
            self.lists,
            self.params,
            Some(mapped),
            self.after_kernel,
        )
    }
}

/// Runs a kernel, then empties the cache of short lists: the verifier that may follow, and the
/// caller, get its memory back.
fn releasing_cache<R>(g: &OocGraph, kernel: impl FnOnce() -> R) -> R {
    let result = kernel();
    g.clear_cache();
    result
}

/// Totals over the kernel's passes (`records`), and the records themselves.
fn io_summary(
    g: &OocGraph,
    wall_seconds: f64,
    records: Vec<vastgraph_engine::ooc::IterationRecord>,
) -> serde_json::Value {
    let sum = |f: &dyn Fn(&vastgraph_engine::ooc::IterationRecord) -> f64| -> f64 {
        records.iter().map(f).sum()
    };
    let bytes_read = sum(&|r| r.bytes_read as f64);
    let bytes_needed = sum(&|r| r.bytes_needed as f64);
    let io_seconds = sum(&|r| r.seconds);
    serde_json::json!({
        "mode": g.options().mode.name(),
        "backend": g.backend_name(),
        "direct_io": g.direct_io(),
        "max_reentries": g.options().max_reentries,
        "memory_plan": g.plan(),
        "device": g.profile(),
        "bytes_read": bytes_read as u64,
        "requests": sum(&|r| r.requests as f64) as u64,
        "read_mb_per_s": if io_seconds > 0.0 { bytes_read / io_seconds / 1e6 } else { 0.0 },
        "read_mb_per_s_of_kernel": if wall_seconds > 0.0 { bytes_read / wall_seconds / 1e6 } else { 0.0 },
        "bytes_needed": bytes_needed as u64,
        "io_amplification": if bytes_needed > 0.0 { bytes_read / bytes_needed } else { 0.0 },
        "io_wait_seconds": sum(&|r| r.io_wait_seconds),
        "compute_seconds": sum(&|r| r.compute_seconds),
        "reentries": sum(&|r| r.reentries as f64) as u64,
        "cached_bytes": sum(&|r| r.cached_bytes as f64) as u64,
        "list_cache_bytes": g.cache_bytes(),
        // One pass per read of lists: an iteration of the kernel may take several (a side
        // file, then the lists), so these are not the kernel's `iterations`.
        "passes": records.len(),
        "iteration_modes": records.iter().map(|r| r.mode).collect::<Vec<_>>(),
        "iterations": records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_with_arcs_skips_empty_words_and_keeps_every_vertex_with_an_arc() {
        // 300 vertices: arcs for 0..70 but 5 and 64, none for 70..250 (two whole words and
        // parts of two), arcs again for 250..299 but 260, and the last one isolated.
        let n = 300;
        let has = |v: usize| !matches!(v, 5 | 64 | 70..=249 | 260 | 299);
        let mut offsets = vec![0u64];
        for v in 0..n {
            offsets.push(offsets[v] + u64::from(has(v)) * (1 + v as u64 % 3));
        }
        let got = vertices_with_arcs(&offsets);
        let want: Vec<u32> = (0..n).filter(|&v| has(v)).map(|v| v as u32).collect();
        assert_eq!(got.to_sorted_ids(), want);
        assert_eq!(got.len(), n);
    }
}
