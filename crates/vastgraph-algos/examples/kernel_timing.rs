//! Times the BFS, connected-components (both methods) and PageRank kernels on a store, the way
//! GAPBS reports its trials: wall time of the kernel alone, graph already mapped. It runs them
//! through the registry's raw-CSR entry point, so it compiles no kernel of its own.
//!
//! ```text
//! cargo run --release -p vastgraph-algos --example kernel_timing -- STORE [--threads N] [--trials K] [--verify]
//! ```
//!
//! BFS runs from K sources (vertices with out-arcs, picked by a seeded hash); CC runs K times per
//! method; PageRank runs 20 iterations with tolerance 0 (so exactly 20), max(K/4, 1) times.
//! Prints the minimum and median per kernel.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use vastgraph_algos::hashing::{below, seeded_hash};
use vastgraph_algos::registry::{run_on_csr, Params};
use vastgraph_engine::{Adjacency, CsrGraph, Vertex};
use vastgraph_store::Store;

struct Options {
    store: PathBuf,
    threads: usize,
    trials: usize,
    verify: bool,
}

fn parse_args() -> Result<Options> {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        store: PathBuf::new(),
        threads: 2,
        trials: 16,
        verify: false,
    };
    let number = |flag: &str, value: Option<String>| -> Result<usize> {
        let value = value.with_context(|| format!("{flag} needs a value"))?;
        value
            .parse()
            .with_context(|| format!("{flag} {value:?}: not a number"))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--threads" => options.threads = number("--threads", args.next())?,
            "--trials" => options.trials = number("--trials", args.next())?.max(1),
            "--verify" => options.verify = true,
            flag if flag.starts_with("--") => bail!("unknown option {flag}"),
            path => options.store = PathBuf::from(path),
        }
    }
    if options.store.as_os_str().is_empty() {
        bail!("usage: kernel_timing STORE [--threads N] [--trials K] [--verify]");
    }
    Ok(options)
}

/// Runs algorithm `name` `trials` times, with the parameters `params(trial)` give, and prints
/// the minimum and median of the kernel's own time (the registry's `wall_seconds`: parameter
/// checks, output conversion and the verifier are outside it). With `verify`, the first trial
/// is checked by the algorithm's verifier.
fn time(
    g: &CsrGraph<'_>,
    label: &str,
    name: &str,
    trials: usize,
    verify: bool,
    params: impl Fn(usize) -> Params,
) -> Result<()> {
    let mut seconds = Vec::with_capacity(trials);
    for trial in 0..trials {
        let output = run_on_csr(name, g, &params(trial), verify && trial == 0)
            .with_context(|| format!("{label}, trial {trial}"))?;
        seconds.push(output.wall_seconds);
    }
    seconds.sort_by(f64::total_cmp);
    println!(
        "{label:16} min {:.4} s   median {:.4} s   ({trials} trials)",
        seconds[0],
        seconds[trials / 2]
    );
    Ok(())
}

fn main() -> Result<()> {
    let options = parse_args()?;
    let store = Store::open(&options.store)
        .with_context(|| format!("opening {}", options.store.display()))?;
    let g = CsrGraph::from_store(&store);
    let n = g.num_vertices();
    println!(
        "{}: {n} vertices, {} arcs, {}, {} threads",
        options.store.display(),
        g.num_arcs(),
        if g.is_symmetric() {
            "symmetric"
        } else {
            "directed"
        },
        options.threads
    );
    let candidates: Vec<Vertex> = (0..n as Vertex)
        .filter(|&v| g.out().degree(v) > 0)
        .collect();
    if candidates.is_empty() {
        bail!("the graph has no arcs");
    }
    let sources: Vec<u64> = (0..options.trials as u64)
        .map(|i| candidates[below(seeded_hash(27, i), candidates.len() as u64) as usize] as u64)
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()?;
    let (trials, verify) = (options.trials, options.verify);
    pool.install(|| -> Result<()> {
        time(&g, "bfs", "bfs", trials, verify, |trial| {
            Params::default().with("source", sources[trial])
        })?;
        for method in ["afforest", "ldd"] {
            time(&g, &format!("cc {method}"), "cc", trials, verify, |_| {
                Params::default().with("method", method)
            })?;
        }
        time(
            &g,
            "pagerank 20 it",
            "pagerank",
            (trials / 4).max(1),
            false,
            |_| {
                Params::default()
                    .with("tolerance", 0.0)
                    .with("max_iters", 20)
            },
        )
    })
}
