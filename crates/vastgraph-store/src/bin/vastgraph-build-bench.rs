//! Dev tool: build a store from a stream of pseudo-random edges, to measure the builder's
//! speed and memory (and to run it inside a memory cgroup in the tests).
//!
//! vastgraph-build-bench --edges N --vertices N --memory BYTES -o DIR
//!     [--symmetrize] [--transpose] [--weighted] [--seed S] [--overwrite] [--tmp-dir DIR]
//!     [--run-bytes BYTES] [--open]
//!
//! Prints one line of `key=value` pairs, including the process's peak RSS. With `--open`,
//! also times opening (validating) the store and verifying its checksums.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use vastgraph_store::synthetic::{RandomEdges, SplitMix64};
use vastgraph_store::{BuildOptions, Store, StoreBuilder};

const BATCH_EDGES: usize = 1 << 20;

struct Args {
    edges: u64,
    vertices: u64,
    seed: u64,
    output: PathBuf,
    open: bool,
    opts: BuildOptions,
}

/// "1GiB", "64MiB", "512K", "1000000".
fn parse_bytes(text: &str) -> Result<u64> {
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits_end);
    let number: u64 = number
        .parse()
        .with_context(|| format!("bad size {text:?}"))?;
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        _ => bail!("bad size unit in {text:?} (use K, M, G, KiB, MiB, GiB)"),
    };
    number.checked_mul(scale).context("size overflows")
}

fn parse_args() -> Result<Args> {
    let mut edges = None;
    let mut vertices = None;
    let mut output = None;
    let mut seed = 1;
    let mut open = false;
    let mut opts = BuildOptions {
        command: "vastgraph-build-bench".into(),
        ..BuildOptions::default()
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--edges" => edges = Some(value()?.parse().context("--edges")?),
            "--vertices" => vertices = Some(value()?.parse().context("--vertices")?),
            "--memory" => opts.memory_bytes = parse_bytes(&value()?)?,
            "--run-bytes" => opts.run_bytes = Some(parse_bytes(&value()?)?),
            "--seed" => seed = value()?.parse().context("--seed")?,
            "-o" | "--output" => output = Some(PathBuf::from(value()?)),
            "--tmp-dir" => opts.tmp_dir = Some(PathBuf::from(value()?)),
            "--symmetrize" => opts.symmetrize = true,
            "--transpose" => opts.transpose = true,
            "--weighted" => opts.weighted = true,
            "--overwrite" => opts.overwrite = true,
            "--open" => open = true,
            other => bail!("unknown argument {other:?}"),
        }
    }
    let (Some(edges), Some(vertices), Some(output)) = (edges, vertices, output) else {
        bail!("usage: vastgraph-build-bench --edges N --vertices N --memory BYTES -o DIR [--symmetrize] [--transpose] [--weighted] [--seed S] [--overwrite] [--tmp-dir DIR] [--run-bytes BYTES] [--open]");
    };
    opts.options_json = serde_json::json!({
        "edges": edges, "vertices": vertices, "seed": seed, "memory_bytes": opts.memory_bytes,
        "symmetrize": opts.symmetrize, "transpose": opts.transpose, "weighted": opts.weighted,
    });
    Ok(Args {
        edges,
        vertices,
        seed,
        output,
        open,
        opts,
    })
}

/// VmHWM from /proc/self/status, in bytes.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn run() -> Result<()> {
    let args = parse_args()?;
    let weighted = args.opts.weighted;
    let started = Instant::now();
    let mut builder = StoreBuilder::create(&args.output, args.opts)?;
    builder.ensure_vertices(args.vertices);
    let mut stream = RandomEdges::new(args.seed, args.vertices, args.edges);
    let mut weight_rng = SplitMix64::new(args.seed ^ 0x5eed);
    let (mut src, mut dst, mut weights) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        stream.next_batch(&mut src, &mut dst, BATCH_EDGES);
        if src.is_empty() {
            break;
        }
        if weighted {
            weights.clear();
            weights.extend((0..src.len()).map(|_| (weight_rng.below(100) + 1) as f64));
        }
        builder.push_batch(&src, &dst, weighted.then_some(&weights[..]))?;
    }
    let pushed_seconds = started.elapsed().as_secs_f64();
    let manifest = builder.finish()?;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "edges={} arcs={} vertices={} duplicate_arcs={} self_loops={} push_seconds={:.2} seconds={:.2} edges_per_second={:.0} peak_rss_bytes={}",
        args.edges,
        manifest.arcs,
        manifest.vertices,
        manifest.dropped.duplicate_arcs,
        manifest.dropped.self_loops,
        pushed_seconds,
        seconds,
        args.edges as f64 / seconds,
        peak_rss_bytes().unwrap_or(0)
    );
    if args.open {
        let started = Instant::now();
        let store = Store::open(&args.output)?;
        let open_seconds = started.elapsed().as_secs_f64();
        store.verify_checksums()?;
        println!(
            "open_seconds={open_seconds:.2} verify_seconds={:.2}",
            started.elapsed().as_secs_f64() - open_seconds
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vastgraph-build-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}
