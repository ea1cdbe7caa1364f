//! The one run harness, for the CLI's `vastgraph run` and Python's `vg.run` alike: it fits the
//! run to the memory budget (out of core, or in memory when the mapped graph and the state
//! fit), runs the trials, takes their median, verifies the first, and writes one
//! [`RunRecord`]. Callers only turn the values into files or arrays.

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use vastgraph_engine::memory;
use vastgraph_engine::ooc::{OocOptions, PROCESS_BASELINE_BYTES};
use vastgraph_store::{Advice, Manifest, Store};

use crate::budget::{self, BudgetFit};
use crate::registry::{self, Output, Params, Values};

/// The version of [`RunRecord`]'s layout: raised when a key changes meaning or goes.
pub const RUN_RECORD_SCHEMA: u32 = 1;

/// Vertices the record ranks in `top` unless asked for another number.
pub const DEFAULT_TOP: usize = 10;

/// A run to do.
pub struct Request<'a> {
    /// The store directory.
    pub store: &'a Path,
    pub algorithm: &'a str,
    pub params: &'a Params,
    /// Kernel runs on the loaded graph; the record gives each one's time and their median.
    pub trials: usize,
    /// Check the first trial's result with the algorithm's verifier.
    pub verify: bool,
    /// The memory budget in bytes; None maps the graph and uses the page cache freely.
    pub memory: Option<u64>,
    /// How a run within the budget reads its lists.
    pub out_of_core: OocOptions,
    /// Vertices ranked in the record's `top`.
    pub top: usize,
    /// The store, when the caller holds it open (a Python graph): a run in memory uses it
    /// instead of opening the directory again.
    pub opened: Option<&'a Store>,
    /// Read the store's tiles when it has them; false runs on the lists alone (as when the
    /// tiles are damaged: opening them is then an error).
    pub tiles: bool,
}

impl<'a> Request<'a> {
    pub fn new(store: &'a Path, algorithm: &'a str, params: &'a Params) -> Request<'a> {
        Request {
            store,
            algorithm,
            params,
            trials: 1,
            verify: false,
            memory: None,
            out_of_core: OocOptions::default(),
            top: DEFAULT_TOP,
            opened: None,
            tiles: true,
        }
    }
}

/// The parameters as given, and as the kernel ran with them (defaults resolved).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ParametersRecord {
    pub given: Params,
    pub resolved: serde_json::Value,
}

/// A ranked vertex of the record's `top`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Ranked {
    pub vertex: u32,
    pub value: f64,
}

/// The statistics of a run, the same keys from the CLI (`run --stats FILE`) and from Python
/// (`vg.run(...).stats`), in memory and out of core; the keys of an out-of-core run are null
/// in memory. Documented in docs/cli.md.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRecord {
    /// [`RUN_RECORD_SCHEMA`].
    pub schema: u32,
    pub algorithm: String,
    pub parameters: ParametersRecord,
    pub store: String,
    /// The store's identity ([`crate::checkpoint::store_fingerprint`]: the xxh3 of its
    /// manifest), by which `vastgraph report` refuses a record of a run on another store.
    #[serde(default)]
    pub store_fingerprint: Option<String>,
    pub vertices: u64,
    pub arcs: u64,
    pub threads: usize,
    /// Opening (and validating) the store.
    pub load_seconds: f64,
    /// The median of the trials' kernel times.
    pub wall_seconds: f64,
    pub trial_seconds: Vec<f64>,
    /// Rounds, levels, sweeps or peeling steps, as the algorithm defines them.
    pub iterations: u64,
    pub edges_traversed: u64,
    /// The process's peak resident set after the trials (before any output is written).
    pub peak_rss_bytes: Option<u64>,
    /// Peak heap above the heap live at the kernel's start: its mutable state.
    pub peak_mutable_bytes: u64,
    pub verified: bool,
    pub verify_seconds: Option<f64>,
    pub resumed_from_iteration: Option<u64>,
    /// Algorithm-specific figures (triangles, components, convergence...).
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// The largest values, largest first (ties: smaller id first); empty for row outputs.
    pub top: Vec<Ranked>,
    /// The budget asked for, or null.
    pub memory_budget_bytes: Option<u64>,
    /// The process's resident set before the run, and what the budget allows the process
    /// beyond the run's own plan (the binary, the allocator, the thread stacks).
    pub baseline_rss_bytes: Option<u64>,
    pub process_baseline_allowance_bytes: Option<u64>,
    /// Out of core: bytes read from the lists' files, requests, the read rate, bytes read over
    /// bytes needed, seconds waiting for I/O and computing, each pass's mode.
    pub bytes_read: Option<u64>,
    pub io_requests: Option<u64>,
    pub read_mb_per_s: Option<f64>,
    pub io_amplification: Option<f64>,
    pub io_wait_seconds: Option<f64>,
    pub compute_seconds: Option<f64>,
    pub iteration_modes: Option<Vec<String>>,
    /// Out of core: the I/O in full (the memory plan, the device, every pass's record).
    pub out_of_core: Option<serde_json::Value>,
    /// Out of core with more than one trial: each trial's I/O.
    pub out_of_core_trials: Option<Vec<serde_json::Value>>,
}

/// What a run gives: the values of the last trial and the record.
pub struct Report {
    pub values: Option<Values>,
    pub record: RunRecord,
}

/// Runs `request`. Errors name the remedy: an unknown algorithm, a parameter it does not take,
/// a budget below its state (with the minimum), a failed verification. What the run has done
/// so far is in [`vastgraph_engine::progress`] while it runs.
/// A run within a budget reads the directory of a store the caller holds open (a Python graph)
/// again: it must still hold the same graph. A store rebuilt in place since then gave the new
/// graph's answer for the old graph. Files both manifests name must have the same checksums;
/// files added since (tiles) are not a change of graph.
fn same_store(dir: &Path, held: &Manifest, on_disk: &Manifest) -> anyhow::Result<()> {
    let changed = held.files.iter().any(|file| {
        on_disk
            .files
            .iter()
            .find(|f| f.name == file.name)
            .is_none_or(|f| f.xxh3 != file.xxh3 || f.bytes != file.bytes)
    });
    anyhow::ensure!(
        !changed && (held.vertices, held.arcs) == (on_disk.vertices, on_disk.arcs),
        "{}: the store was replaced on disk after it was opened (built again in place), and a \
         run within a memory budget reads it from disk: open it again",
        dir.display()
    );
    Ok(())
}

pub fn run(request: Request<'_>) -> anyhow::Result<Report> {
    anyhow::ensure!(request.trials >= 1, "trials must be at least 1");
    let descriptor = registry::descriptor(request.algorithm)?;
    descriptor.check(request.params)?;
    vastgraph_engine::progress::start();
    let baseline_rss = memory::rss_bytes();
    let opened = Instant::now();
    if let Some(budget) = request.memory {
        let fit = budget::open_within_budget(
            request.store,
            request.algorithm,
            request.params,
            budget,
            OocOptions {
                tiles: request.tiles,
                ..request.out_of_core.clone()
            },
        )?;
        match fit {
            BudgetFit::OutOfCore(graph) => {
                if let Some(held) = request.opened {
                    same_store(request.store, held.manifest(), graph.manifest())?;
                }
                let load_seconds = opened.elapsed().as_secs_f64();
                let mut io = Vec::new();
                let trials = Trials::run(request.trials, request.verify, |verify| {
                    let out = budget::run(request.algorithm, &graph, request.params, verify)?;
                    io.push(out.io);
                    Ok(out.output)
                })?;
                let manifest = graph.manifest().clone();
                let mut report = record(
                    &request,
                    trials,
                    (manifest.vertices, manifest.arcs),
                    load_seconds,
                );
                let last_io = io.last().cloned().unwrap_or_default();
                let r = &mut report.record;
                r.baseline_rss_bytes = baseline_rss;
                r.process_baseline_allowance_bytes = Some(PROCESS_BASELINE_BYTES);
                r.bytes_read = last_io["bytes_read"].as_u64();
                r.io_requests = last_io["requests"].as_u64();
                r.read_mb_per_s = last_io["read_mb_per_s"].as_f64();
                r.io_amplification = last_io["io_amplification"].as_f64();
                r.io_wait_seconds = last_io["io_wait_seconds"].as_f64();
                r.compute_seconds = last_io["compute_seconds"].as_f64();
                r.iteration_modes = serde_json::from_value(last_io["iteration_modes"].clone()).ok();
                r.out_of_core_trials = (io.len() > 1).then(|| io.clone());
                r.out_of_core = Some(last_io);
                return Ok(report);
            }
            BudgetFit::InMemory { need } => log::info!(
                "{}: the mapped graph and the kernel's state (about {need} bytes) fit the budget \
                 of {budget} bytes, so it runs in memory",
                request.algorithm
            ),
        }
    }
    let owned;
    let store = match request.opened {
        Some(store) => store,
        None => {
            owned = if request.tiles {
                Store::open(request.store)?
            } else {
                Store::open_without_tiles(request.store)?
            };
            owned.advise(Advice::HugePage);
            &owned
        }
    };
    let load_seconds = opened.elapsed().as_secs_f64();
    let trials = Trials::run(request.trials, request.verify, |verify| {
        Ok(registry::run_on_store(
            store,
            request.algorithm,
            request.params,
            verify,
        )?)
    })?;
    let m = store.manifest();
    let mut report = record(&request, trials, (m.vertices, m.arcs), load_seconds);
    report.record.baseline_rss_bytes = baseline_rss;
    // Within a budget that holds the mapped graph and the state, the process is allowed the
    // same beyond them as out of core.
    if request.memory.is_some() {
        report.record.process_baseline_allowance_bytes = Some(PROCESS_BASELINE_BYTES);
    }
    Ok(report)
}

/// The trials of a run, folded as each one ends: only the last one's output is kept, and the
/// previous one's is dropped before the next starts, so that a run of many trials holds one
/// output, as its memory budget counts, not one a trial.
struct Trials {
    seconds: Vec<f64>,
    peak_mutable_bytes: u64,
    verify_seconds: Option<f64>,
    last: Output,
}

impl Trials {
    /// Runs `count` (at least one) trials of `trial`, which is told whether to verify: the first
    /// one is verified when `verify` is set.
    fn run(
        count: usize,
        verify: bool,
        mut trial: impl FnMut(bool) -> anyhow::Result<Output>,
    ) -> anyhow::Result<Trials> {
        let first = trial(verify)?;
        let mut trials = Trials {
            seconds: vec![first.wall_seconds],
            peak_mutable_bytes: first.peak_mutable_bytes,
            verify_seconds: first.verify_seconds,
            last: first,
        };
        for _ in 1..count {
            trials.last.values = None;
            let out = trial(false)?;
            trials.seconds.push(out.wall_seconds);
            trials.peak_mutable_bytes = trials.peak_mutable_bytes.max(out.peak_mutable_bytes);
            trials.last = out;
        }
        Ok(trials)
    }
}

/// The record of `trials`: the last one's values and statistics, the first one's
/// verification, the largest heap peak, the median time.
fn record(
    request: &Request<'_>,
    trials: Trials,
    (vertices, arcs): (u64, u64),
    load_seconds: f64,
) -> Report {
    let peak_rss_bytes = memory::peak_rss_bytes();
    let Trials {
        seconds: trial_seconds,
        peak_mutable_bytes,
        verify_seconds,
        last,
    } = trials;
    // The progress a host shows last says what the record says: a kernel of passes reports no
    // iterations as it goes, and one that stops on convergence may report its last late.
    vastgraph_engine::progress::iteration(last.stats.iterations);
    let mut sorted = trial_seconds.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let top = last
        .values
        .as_ref()
        .and_then(|v| top_k(v, request.top).ok())
        .unwrap_or_default();
    let record = RunRecord {
        schema: RUN_RECORD_SCHEMA,
        algorithm: request.algorithm.to_string(),
        parameters: ParametersRecord {
            given: request.params.clone(),
            resolved: last.parameters,
        },
        store: request.store.display().to_string(),
        store_fingerprint: crate::checkpoint::store_fingerprint(request.store).ok(),
        vertices,
        arcs,
        threads: rayon::current_num_threads(),
        load_seconds,
        wall_seconds: median,
        trial_seconds,
        iterations: last.stats.iterations,
        edges_traversed: last.stats.edges_traversed,
        peak_rss_bytes,
        peak_mutable_bytes,
        verified: verify_seconds.is_some(),
        verify_seconds,
        resumed_from_iteration: request
            .params
            .checkpoint
            .as_ref()
            .and_then(|c| c.resumed_from()),
        extra: last.stats.extra,
        top,
        memory_budget_bytes: request.memory,
        baseline_rss_bytes: None,
        process_baseline_allowance_bytes: None,
        bytes_read: None,
        io_requests: None,
        read_mb_per_s: None,
        io_amplification: None,
        io_wait_seconds: None,
        compute_seconds: None,
        iteration_modes: None,
        out_of_core: None,
        out_of_core_trials: None,
    };
    Report {
        values: last.values,
        record,
    }
}

impl RunRecord {
    /// "not converged after N iterations" for an iterative kernel that stopped at its bound.
    pub fn convergence_note(&self) -> Option<String> {
        (self.extra.get("converged") == Some(&serde_json::Value::Bool(false)))
            .then(|| format!("not converged after {} iterations", self.iterations))
    }
}

/// The `k` vertices with the largest finite values, largest first (ties: the smaller id first),
/// kept in a heap of `k` so that a run within a budget holds no copy of its values. A value
/// that is not finite ranks nowhere: sssp's unreachable vertices (infinitely far) would
/// otherwise fill the top, and widest's source (infinitely wide) head it. Rows (edges, walks)
/// rank nothing: an error.
pub fn top_k(values: &Values, k: usize) -> anyhow::Result<Vec<Ranked>> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut heap: BinaryHeap<Reverse<Order>> = BinaryHeap::with_capacity(k.min(values.len()) + 1);
    // Once the heap holds k, a value enters only by beating its least, which it replaces: most
    // values are compared with the least and go no further.
    let mut offer = |v: usize, x: f64| {
        let candidate = Order(x, v as u32);
        if heap.len() < k {
            heap.push(Reverse(candidate));
        } else if let Some(mut least) = heap.peek_mut() {
            if candidate > least.0 {
                *least = Reverse(candidate);
            }
        }
    };
    match values {
        Values::I64(v) => v.iter().enumerate().for_each(|(i, &x)| offer(i, x as f64)),
        Values::U64(v) => v.iter().enumerate().for_each(|(i, &x)| offer(i, x as f64)),
        Values::U32(v) => v.iter().enumerate().for_each(|(i, &x)| offer(i, x as f64)),
        Values::U8(v) => v.iter().enumerate().for_each(|(i, &x)| offer(i, x as f64)),
        Values::F64(v) => v
            .iter()
            .enumerate()
            .filter(|(_, x)| x.is_finite())
            .for_each(|(i, &x)| offer(i, x)),
        Values::Rows { .. } => {
            anyhow::bail!("--top ranks vertices by their values; this algorithm gives rows")
        }
    }
    let mut top: Vec<Order> = heap.into_iter().map(|Reverse(r)| r).collect();
    top.sort_by(|a, b| b.cmp(a));
    Ok(top
        .into_iter()
        .map(|Order(value, vertex)| Ranked { vertex, value })
        .collect())
}

/// A value and its vertex, ordered by value (NaN lowest), then by the smaller id.
struct Order(f64, u32);

impl PartialEq for Order {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Order {}
impl PartialOrd for Order {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Order {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let key = |r: &Order| if r.0.is_nan() { f64::NEG_INFINITY } else { r.0 };
        key(self).total_cmp(&key(other)).then(other.1.cmp(&self.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_come_first_and_ties_go_to_the_smaller_id() {
        let ranked = |values: &Values, k| -> Vec<(u32, f64)> {
            top_k(values, k)
                .unwrap()
                .into_iter()
                .map(|r| (r.vertex, r.value))
                .collect()
        };
        let values = Values::F64(vec![0.5, 2.0, f64::NAN, 2.0, 1.0]);
        assert_eq!(ranked(&values, 3), vec![(1, 2.0), (3, 2.0), (4, 1.0)]);
        let degrees = Values::U32(vec![3, 1]);
        assert_eq!(ranked(&degrees, 5), vec![(0, 3.0), (1, 1.0)]);
        let rows = Values::Rows {
            data: vec![0, 1],
            cols: 2,
        };
        assert!(top_k(&rows, 1).is_err());
    }

    #[test]
    fn the_top_k_are_the_first_k_of_all_the_values_sorted() {
        // Few distinct values, so that ties decide most places; some NaN and infinities,
        // which rank nowhere.
        let mut x = 0x9E37_79B9u64;
        let values: Vec<f64> = (0..5000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match x % 23 {
                    0 => f64::NAN,
                    1 => f64::INFINITY,
                    2 => f64::NEG_INFINITY,
                    r => (r % 7) as f64,
                }
            })
            .collect();
        let mut sorted: Vec<Order> = (0..values.len())
            .filter(|&v| values[v].is_finite())
            .map(|v| Order(values[v], v as u32))
            .collect();
        sorted.sort_by(|a, b| b.cmp(a));
        for k in [0, 1, 10, 713, 5000, 6000] {
            let got: Vec<u32> = top_k(&Values::F64(values.clone()), k)
                .unwrap()
                .iter()
                .map(|r| r.vertex)
                .collect();
            let want: Vec<u32> = sorted.iter().take(k).map(|o| o.1).collect();
            assert_eq!(got, want, "k = {k}");
        }
    }
}
