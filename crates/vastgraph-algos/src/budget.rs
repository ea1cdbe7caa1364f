//! Runs within a memory budget on an [`OocGraph`], which reads neighbour lists from disk.
//! Every algorithm runs its one kernel on [`OocGraph::lists`], the engine's graph interface over
//! the files: those with a branch of passes (`state_in_passes` in the registry) take it there
//! ([`vastgraph_engine::Traversal`]: one planned read of the active vertices' lists an
//! iteration, selective or streaming by the cost model), every other kernel reads lists
//! through the engine's cache of blocks. So the result is the in-memory one, with `--seed`
//! alike, and the verifier is the in-memory verifier, run on the mapped store after the kernel.
//!
//! [`open_within_budget`] plans the run's memory and refuses, before any work, a budget below
//! what the algorithm's state needs; [`run`] is the counterpart of [`crate::registry::run`].

use std::path::Path;

use vastgraph_engine::ooc::OocLists;
use vastgraph_engine::ooc::{
    list_buffers_reserve, long_list_reserve, page_sums_reserve, tiles_reserve, BudgetError,
    MemoryPlan, OocGraph, OocOptions, PoolShape, Reserved,
};
use vastgraph_engine::{visit_store, Adjacency, CsrGraph, Graph, GraphVisitor};
use vastgraph_store::Store;

use crate::common::VerifyError;
use crate::registry::{Output, Params, RunError, ALGORITHMS};

/// Whether `name` runs its branch of passes with these parameters: one whose state in passes
/// is known ([`crate::algorithm::Descriptor::state_in_passes`]), without a checkpoint (which
/// only the kernels that read lists one at a time save; they then read them through the cache
/// of blocks).
pub fn runs_in_passes(name: &str, p: &Params) -> bool {
    state_bytes(name, 0, p).is_some()
}

/// Bytes of vertex state the branch of passes of `name` keeps for `n` vertices (outputs
/// included), or None when it runs none ([`runs_in_passes`]). The budget check adds the offsets
/// and the I/O buffers.
pub fn state_bytes(name: &str, n: u64, p: &Params) -> Option<u64> {
    if p.checkpoint.is_some() {
        return None;
    }
    let info = ALGORITHMS.iter().find(|a| a.name == name)?;
    info.state_in_passes.and_then(|state| state(n, p))
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

/// The kernels whose passes over every arc read the store's tiles when it has them
/// ([`vastgraph_engine::Traversal::sum_in_arcs`], or [`GATHERS_TILES`]).
const READS_TILES: &[&str] = &[
    "pagerank",
    "delta-pagerank",
    "personalized-pagerank",
    "label-propagation",
];
/// Those of [`READS_TILES`] that gather each column's in-arcs
/// ([`vastgraph_engine::Traversal::gather_in_arcs`]).
const GATHERS_TILES: &[&str] = &["label-propagation"];

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
    check_graph(name, p, &manifest)?;
    let mut in_memory = None;
    if state_bytes(name, manifest.vertices, p).is_none() {
        // The mapped graph (its Elias–Fano offsets decoded) and the state fit: the in-memory
        // kernel runs as it would without a budget.
        let need = vastgraph_store::resident_bytes(&manifest) + in_memory_state(name, &manifest)?;
        if need <= budget {
            return Ok(BudgetFit::InMemory { need });
        }
        in_memory = Some(need);
    }
    refuse_without_tiles(name, &manifest, options.tiles, in_memory)?;
    let g = open_planned(dir, &manifest, name, p, budget, options, in_memory)?;
    Ok(BudgetFit::OutOfCore(Box::new(g)))
}

/// Opens the store in `dir` out of core for `name` within `budget`, as [`open_within_budget`]
/// does, even where the mapped graph and the state would fit the budget: the out-of-core read
/// paths of the kernels without passes, on graphs small enough for a test or a fuzzing input.
pub fn open_out_of_core(
    dir: &Path,
    name: &str,
    p: &Params,
    budget: u64,
    options: OocOptions,
) -> anyhow::Result<OocGraph> {
    let manifest = OocGraph::manifest_of(dir)?;
    check_graph(name, p, &manifest)?;
    refuse_without_tiles(name, &manifest, options.tiles, None)?;
    open_planned(dir, &manifest, name, p, budget, options, None)
}

/// Whether `name` reads in-arcs out of core from the store's tiles only: a kernel that gathers
/// them ([`GATHERS_TILES`]) on a directed store, whose transpose is not read out of core.
fn needs_tiles(name: &str, manifest: &vastgraph_store::Manifest) -> bool {
    GATHERS_TILES.contains(&name) && manifest.directed
}

/// Refuses, before planning, a run out of core that would need tiles the store lacks or the
/// run was asked not to open (`tiles` false), naming the budget of a run in memory
/// (`in_memory`) where the store's transpose serves it.
fn refuse_without_tiles(
    name: &str,
    manifest: &vastgraph_store::Manifest,
    tiles: bool,
    in_memory: Option<u64>,
) -> Result<(), RunError> {
    if !needs_tiles(name, manifest) || (tiles && manifest.tiles.is_some()) {
        return Ok(());
    }
    Err(RunError::Algo(crate::AlgoError::NeedsTilesOutOfCore {
        algorithm: crate::registry::descriptor(name)?.name,
        has_tiles: manifest.tiles.is_some(),
        tiles_budget: None,
        in_memory: in_memory.filter(|_| manifest.has_transpose),
    }))
}

/// The kernel's refusal of its parameters, then of a directed or unweighted store or of a
/// vertex it lacks, in the order a run in memory makes them, before the budget is planned: a budget too small for a
/// run that could not take place anyway is not the error to report.
fn check_graph(
    name: &str,
    p: &Params,
    manifest: &vastgraph_store::Manifest,
) -> Result<(), RunError> {
    let info = crate::registry::descriptor(name)?;
    info.check(p)?;
    Ok(info.check_graph(p, manifest.vertices, !manifest.directed, manifest.weighted)?)
}

/// The state of `name`'s in-memory kernel on the store `manifest` describes.
fn in_memory_state(name: &str, manifest: &vastgraph_store::Manifest) -> Result<u64, RunError> {
    let info = ALGORITHMS
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| RunError::Unknown(name.to_string()))?;
    let threads = rayon::current_num_threads() as u64;
    Ok(info.state.bytes(manifest.vertices, manifest.arcs, threads))
}

/// Plans the run's memory within `budget` (refusing a budget below what it needs) and opens
/// the store for it: in passes where `name` runs them, otherwise for lists read at random
/// through the cache of blocks. `in_memory`: what the run would take in memory, where a
/// budget that holds it runs there; a refusal names it when it is the lesser minimum.
fn open_planned(
    dir: &Path,
    manifest: &vastgraph_store::Manifest,
    name: &str,
    p: &Params,
    budget: u64,
    options: OocOptions,
    in_memory: Option<u64>,
) -> anyhow::Result<OocGraph> {
    let (plan, options) = match plan(dir, manifest, name, p, budget, options.clone())? {
        Ok(planned) => planned,
        Err(refused) => {
            let refused = match in_memory {
                Some(bytes) => refused.or_in_memory(bytes),
                None => refused,
            };
            let one_thread = one_thread_minimum(dir, manifest, name, p, options, in_memory)?;
            anyhow::bail!("{name}: {}", refused.or_one_thread(one_thread));
        }
    };
    OocGraph::open(dir, plan, options)
}

/// The memory plan of a run of `name` within `budget` and the options the store is opened
/// with, or the plan's refusal of the budget (the outer error: a reserve's file unreadable).
fn plan(
    dir: &Path,
    manifest: &vastgraph_store::Manifest,
    name: &str,
    p: &Params,
    budget: u64,
    options: OocOptions,
) -> anyhow::Result<Result<(MemoryPlan, OocOptions), BudgetError>> {
    let options = OocOptions {
        tiles: options.tiles && READS_TILES.contains(&name),
        gather_tiles: options.tiles && GATHERS_TILES.contains(&name),
        ..options
    };
    let in_passes = state_bytes(name, manifest.vertices, p);
    // Only the kernels that use weights read their file: tc on a weighted store would
    // otherwise read twice the bytes in every pass.
    let weight_files = usize::from(reads_weights(name) && manifest.weighted);
    let (state, options) = match in_passes {
        Some(state) => (state, options),
        None => (
            in_memory_state(name, manifest)?,
            OocOptions {
                random_access: true,
                ..options
            },
        ),
    };
    let reserved = Reserved {
        long_lists: long_list_reserve(dir, manifest, weight_files == 1)?,
        list_buffers: match options.random_access {
            true => list_buffers_reserve(dir, manifest, weight_files == 1)?,
            false => 0,
        },
        page_sums: page_sums_reserve(manifest, weight_files == 1, options.tiles),
        tiles: match needs_tiles(name, manifest) && options.gather_tiles {
            true => tiles_reserve(dir, manifest, true)?,
            false => 0,
        },
    };
    let shape = match options.random_access {
        true => PoolShape::BesideBlocks,
        false => PoolShape::Passes,
    };
    let plan = MemoryPlan::new(
        budget,
        offsets_bytes(manifest),
        1 + weight_files,
        state,
        reserved,
        shape,
    );
    Ok(plan.map(|plan| (plan, options)))
}

/// The least budget of the same run on one thread, where the run has more: the threads' list
/// buffers and the kernels' per-thread state make a refused minimum grow with the thread
/// count, so the refusal says how far `--threads 1` lowers it. Planned in a pool of one
/// thread, the same way as the run's own plan (and its in-memory need, where `in_memory`).
fn one_thread_minimum(
    dir: &Path,
    manifest: &vastgraph_store::Manifest,
    name: &str,
    p: &Params,
    options: OocOptions,
    in_memory: Option<u64>,
) -> anyhow::Result<Option<u64>> {
    if rayon::current_num_threads() == 1 {
        return Ok(None);
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    pool.install(|| {
        let Err(refused) = plan(dir, manifest, name, p, 1, options.clone())? else {
            return Ok(None);
        };
        Ok(Some(match in_memory {
            Some(_) => refused
                .minimum_bytes
                .min(vastgraph_store::resident_bytes(manifest) + in_memory_state(name, manifest)?),
            None => refused.minimum_bytes,
        }))
    })
}

/// Bytes of offsets an out-of-core run holds in DRAM: the edge offsets, and a compressed
/// store's byte offsets of the codes.
pub fn offsets_bytes(manifest: &vastgraph_store::Manifest) -> u64 {
    let compressed = manifest.codec.list_codec().is_some();
    vastgraph_engine::ooc::offsets_bytes(manifest.vertices, compressed)
}

/// Whether the kernel reads edge weights (a second file per request): its descriptor's
/// `needs.weights`, set for the kernels that refuse a graph without them.
pub fn reads_weights(name: &str) -> bool {
    ALGORITHMS
        .iter()
        .find(|a| a.name == name)
        .is_some_and(|a| a.needs.weights.is_some())
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
    let dir = g.dir().to_path_buf();
    g.take_records();
    g.clear_cache();
    let kernel_records = std::sync::Mutex::new(None);
    let lists = Graph::new(g.lists(), None, g.is_symmetric());
    // The records up to the kernel's end are its own, and so is what its cache of short
    // lists holds then; the verifier reads the mapped store, through the page cache, as those
    // of the kernels of passes do.
    let take = || *kernel_records.lock().unwrap() = Some((g.take_records(), g.cache_bytes()));
    let output = releasing_cache(g, || match verify {
        false => crate::registry::run_then(name, &lists, p, None::<&CsrGraph>, &take),
        true => {
            let store = Store::open(&dir).map_err(|e| VerifyError::new("store", e.to_string()))?;
            visit_store(
                &store,
                VerifiedOnStore {
                    name,
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
        let algorithm = ALGORITHMS
            .iter()
            .find(|a| a.name == name)
            .map_or("run", |a| a.name);
        return Err(RunError::Algo(crate::AlgoError::Io {
            algorithm,
            message: vastgraph_engine::error::chain_text(&e),
        }));
    }
    let output = output?;
    let (records, cache_bytes) = kernel_records
        .into_inner()
        .unwrap()
        .unwrap_or_else(|| (g.take_records(), 0));
    Ok(OocOutput {
        io: io_summary(g, output.wall_seconds, records, cache_bytes),
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

/// Totals over the kernel's passes (`records`), and the records themselves; `cache_bytes`, what
/// the cache of short lists held when the kernel ended.
fn io_summary(
    g: &OocGraph,
    wall_seconds: f64,
    records: Vec<vastgraph_engine::ooc::IterationRecord>,
    cache_bytes: u64,
) -> serde_json::Value {
    let sum = |f: &dyn Fn(&vastgraph_engine::ooc::IterationRecord) -> f64| -> f64 {
        // From +0.0: `sum` starts at -0.0, which a run with no pass would print as "-0.000 s".
        records.iter().map(f).fold(0.0, |total, x| total + x)
    };
    let bytes_read = sum(&|r| r.bytes_read as f64);
    let bytes_needed = sum(&|r| r.bytes_needed as f64);
    let io_seconds = sum(&|r| r.seconds);
    serde_json::json!({
        "mode": g.options().mode.name(),
        "random_access": g.options().random_access,
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
        "list_cache_bytes": cache_bytes,
        // The least budget that streams the store's tiles, when this one left them unread.
        "tiles_budget": g.tiles_budget(),
        // One pass per read of lists: an iteration of the kernel may take several (a side
        // file, then the lists), so these are not the kernel's `iterations`.
        "passes": records.len(),
        "iteration_modes": records.iter().map(|r| r.mode).collect::<Vec<_>>(),
        "iterations": records,
    })
}
