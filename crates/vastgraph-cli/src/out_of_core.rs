//! `vastgraph run ALGO STORE --memory BUDGET`: the out-of-core path. Checks the budget against
//! the O(n) state before reading anything, opens the graph for direct reads, runs the kernel and
//! reports what the I/O did alongside the usual statistics.

use std::time::Instant;

use vastgraph_algos::budget::{self, BudgetFit};
use vastgraph_algos::registry::Params;
use vastgraph_engine::memory;
use vastgraph_engine::ooc::{OocOptions, PROCESS_BASELINE_BYTES};

use crate::run::{write_output, write_stats, RunArgs};
use crate::signals::StopAtOnce;
use crate::size::human;

/// Runs `args` out of core within `budget` bytes. Returns false when the algorithm has no kernel
/// of passes and the mapped graph with its state fits the budget, so the caller runs it in memory.
pub fn run(args: &RunArgs, params: &Params, budget: u64, quiet: bool) -> anyhow::Result<bool> {
    let baseline_rss = memory::rss_bytes();
    memory::set_budget(budget);
    let options = OocOptions {
        mode: args.io_mode,
        max_reentries: args.mrt,
        backend: args.io_backend,
        recalibrate: args.recalibrate,
        ..Default::default()
    };
    let opened = Instant::now();
    let graph =
        match budget::open_within_budget(&args.store, &args.algorithm, params, budget, options)? {
            BudgetFit::OutOfCore(graph) => graph,
            BudgetFit::InMemory { need } => {
                log::info!(
                    "{}: the mapped graph and the kernel's state (about {}) fit the budget of {}, \
                     so it runs in memory",
                    args.algorithm,
                    human(need),
                    human(budget)
                );
                return Ok(false);
            }
        };
    let manifest = graph.manifest().clone();
    let load_seconds = opened.elapsed().as_secs_f64();

    let mut trial_seconds = Vec::with_capacity(args.trials);
    let mut runs = Vec::with_capacity(args.trials);
    let mut last = None;
    let stop_at_once = StopAtOnce::unless(params.checkpoint.is_some());
    let spinner = crate::progress::run_spinner(&format!("{} out of core", args.algorithm), quiet);
    if let Some(bar) = &spinner {
        let bar = bar.clone();
        graph.observe_passes(Box::new(move |index, record| {
            bar.set_message(crate::progress::pass_line(index, record))
        }));
    }
    for trial in 0..args.trials {
        let out = budget::run(&args.algorithm, &graph, params, args.verify && trial == 0)?;
        trial_seconds.push(out.output.wall_seconds);
        runs.push(out.io.clone());
        last = Some(out);
    }
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    drop(stop_at_once);
    // Before any output is written: the verifier and text output may map the store.
    let peak_rss = memory::peak_rss_bytes();
    let out = last.expect("at least one trial");
    let mut sorted = trial_seconds.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    if let Some(path) = &args.output {
        let values =
            out.output.values.as_ref().ok_or_else(|| {
                anyhow::anyhow!("{} produces no per-vertex output", args.algorithm)
            })?;
        let store_dir = args.store.clone();
        write_output(path, values, &move || {
            Ok(vastgraph_store::Store::open(&store_dir)?.labels()?)
        })?;
    }
    crate::run::print_top(args, out.output.values.as_ref())?;
    let io = &out.io;
    let stats = serde_json::json!({
        "algorithm": args.algorithm,
        "parameters": { "given": params, "resolved": out.output.parameters },
        "store": args.store.display().to_string(),
        "vertices": manifest.vertices,
        "arcs": manifest.arcs,
        "threads": rayon::current_num_threads(),
        "load_seconds": load_seconds,
        "wall_seconds": median,
        "trial_seconds": trial_seconds,
        "iterations": out.output.stats.iterations,
        "edges_traversed": out.output.stats.edges_traversed,
        "peak_rss_bytes": peak_rss,
        "baseline_rss_bytes": baseline_rss,
        "memory_budget_bytes": budget,
        "process_baseline_allowance_bytes": PROCESS_BASELINE_BYTES,
        "peak_mutable_bytes": out.output.peak_mutable_bytes,
        "verified": out.output.verify_seconds.is_some(),
        "verify_seconds": out.output.verify_seconds,
        "resumed_from_iteration": params.checkpoint.as_ref().and_then(|c| c.resumed_from()),
        "extra": out.output.stats.extra,
        "top": crate::top::top_record(out.output.values.as_ref(), args.top.unwrap_or(crate::top::STATS_TOP)),
        "bytes_read": io["bytes_read"],
        "io_requests": io["requests"],
        "read_mb_per_s": io["read_mb_per_s"],
        "io_amplification": io["io_amplification"],
        "io_wait_seconds": io["io_wait_seconds"],
        "compute_seconds": io["compute_seconds"],
        "iteration_modes": io["iteration_modes"],
        "out_of_core": io,
        "out_of_core_trials": if runs.len() > 1 { serde_json::Value::from(runs) } else { serde_json::Value::Null },
    });
    write_stats(args.stats.as_deref(), &stats)?;
    let modes: Vec<&str> = io["iteration_modes"]
        .as_array()
        .map(|a| a.iter().filter_map(|m| m.as_str()).collect())
        .unwrap_or_default();
    eprintln!(
        "{} on {} out of core ({}, {} backend): {:.4} s{}, {} iterations{}{}, read {} in {} requests \
         ({:.0} MB/s, amplification {:.2}, I/O wait {:.3} s, compute {:.3} s){}, peak RSS {}{}",
        args.algorithm,
        args.store.display(),
        if graph.options().random_access { "random access" } else { args.io_mode.name() },
        graph.backend_name(),
        median,
        if args.trials > 1 { format!(" (median of {})", args.trials) } else { String::new() },
        out.output.stats.iterations,
        crate::run::convergence(&out.output.stats) + &crate::run::resumed_note(params),
        passes_summary(&modes, graph.options().random_access),
        human(io["bytes_read"].as_u64().unwrap_or(0)),
        io["requests"],
        io["read_mb_per_s"].as_f64().unwrap_or(0.0),
        io["io_amplification"].as_f64().unwrap_or(0.0),
        io["io_wait_seconds"].as_f64().unwrap_or(0.0),
        io["compute_seconds"].as_f64().unwrap_or(0.0),
        match io["cached_bytes"].as_u64().unwrap_or(0) {
            0 => String::new(),
            b => format!(", {} of short lists served from the cache", human(b)),
        },
        peak_rss.map_or("?".into(), human),
        if out.output.verify_seconds.is_some() { ", verified" } else { "" },
    );
    Ok(true)
}

/// " in 5 passes [selective x3, streaming x2]", or for a kernel that read its lists at random
/// through the cache of blocks, " (lists read through the block cache)". In a run of passes,
/// the lists a label-correcting queue read one at a time are "one at a time".
fn passes_summary(modes: &[&str], random_access: bool) -> String {
    match modes {
        ["random"] if random_access => " (lists read through the block cache)".to_string(),
        _ => {
            let shown: Vec<&str> = modes
                .iter()
                .map(|&m| if m == "random" { "one at a time" } else { m })
                .collect();
            format!(" in {} passes [{}]", modes.len(), summarize_modes(&shown))
        }
    }
}

/// "selective x3, streaming x2, selective" for a run of iteration modes.
fn summarize_modes(modes: &[&str]) -> String {
    let mut parts: Vec<(String, usize)> = Vec::new();
    for &m in modes {
        match parts.last_mut() {
            Some((last, count)) if last == m => *count += 1,
            _ => parts.push((m.to_string(), 1)),
        }
    }
    parts
        .iter()
        .map(|(m, c)| {
            if *c > 1 {
                format!("{m} x{c}")
            } else {
                m.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
