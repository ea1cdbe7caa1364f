//! Parse throughput into a counting (no-op) sink.
//!
//!   ingest_bench INPUT...                  plan + ingest, print MB/s and edges/s
//!   ingest_bench --store DIR INPUT...      the same into a real store (end-to-end convert)
//!   ingest_bench --make-text PATH EDGES    write a synthetic `u<TAB>v` edge list (ids < 2^24)
//!   ingest_bench --make-bin32 PATH EDGES   the same edges as a .bin32 file

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use vastgraph_ingest::{
    ingest, plan, BinEdgeWriter, BinFormat, CountingSink, EdgeSink, IngestOptions,
};

/// A tiny deterministic edge source (xorshift64*): benchmark input, not a graph model.
fn synthetic_edges(
    edges: u64,
    mut emit: impl FnMut(&[u32], &[u32]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as u32
    };
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    let mut left = edges;
    while left > 0 {
        let n = left.min(1 << 20) as usize;
        src.clear();
        dst.clear();
        for _ in 0..n {
            src.push(next());
            dst.push(next());
        }
        emit(&src, &dst)?;
        left -= n as u64;
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--make-text") => {
            let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&args[1])?);
            synthetic_edges(args[2].parse()?, |s, d| {
                for (u, v) in s.iter().zip(d) {
                    writeln!(out, "{u}\t{v}")?;
                }
                Ok(())
            })?;
            out.flush()?;
        }
        Some("--make-bin32") => {
            let mut out = BinEdgeWriter::create(args[1].as_ref(), BinFormat::Bin32)?;
            synthetic_edges(args[2].parse()?, |s, d| out.push_batch(s, d, None))?;
            out.finish()?;
        }
        Some("--store") => {
            let inputs: Vec<PathBuf> = args[2..].iter().map(PathBuf::from).collect();
            let plan = plan(&inputs, &IngestOptions::default())?;
            let start = Instant::now();
            let opts = vastgraph_store::BuildOptions {
                weighted: plan.weighted,
                symmetrize: plan.symmetric,
                overwrite: true,
                ..Default::default()
            };
            let mut builder = vastgraph_store::StoreBuilder::create(args[1].as_ref(), opts)?;
            let summary = ingest(&plan, &mut builder, &mut |_| {})?;
            let parsed = start.elapsed().as_secs_f64();
            let manifest = builder.finish()?;
            let secs = start.elapsed().as_secs_f64();
            println!(
                "{} edges → store of {} vertices, {} arcs in {secs:.2} s ({parsed:.2} s until the last push): {:.1} M edges/s",
                summary.edges,
                manifest.vertices,
                manifest.arcs,
                summary.edges as f64 / secs / 1e6
            );
        }
        _ => {
            let inputs: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
            let plan = plan(&inputs, &IngestOptions::default())?;
            let mut sink = CountingSink::default();
            let start = Instant::now();
            let summary = ingest(&plan, &mut sink, &mut |_| {})?;
            let secs = start.elapsed().as_secs_f64();
            let mb = plan.total_bytes().unwrap_or(0) as f64 / 1e6;
            println!(
                "{} edges, {} vertices, {:.1} MB on disk in {:.2} s: {:.0} MB/s, {:.1} M edges/s ({} threads)",
                summary.edges,
                sink.vertices,
                mb,
                secs,
                mb / secs,
                summary.edges as f64 / secs / 1e6,
                rayon::current_num_threads()
            );
        }
    }
    Ok(())
}
