//! Decode throughput of a compressed store on one core: every list decoded in order, ids
//! summed so the work cannot be optimised away; with a raw store of the same graph, the same
//! scan over its u32 lists for reference.
//!
//! cargo run --release -p vastgraph-engine --example decode_throughput -- COMPRESSED [RAW] [ROUNDS]

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use vastgraph_engine::{visit_store, Adjacency, Graph, GraphVisitor};
use vastgraph_store::Store;

/// Sums every neighbour id of every vertex, `rounds` times, on the calling thread.
struct Scan {
    rounds: usize,
}

impl GraphVisitor for Scan {
    type Output = (u64, f64);
    fn visit<A: Adjacency>(self, g: &Graph<A>) -> (u64, f64) {
        let mut best = f64::INFINITY;
        let mut sum = 0u64;
        for _ in 0..self.rounds {
            let started = Instant::now();
            sum = 0;
            for v in 0..g.num_vertices() as u32 {
                g.out()
                    .for_each_neighbor(v, |u| sum = sum.wrapping_add(u as u64));
            }
            best = best.min(started.elapsed().as_secs_f64());
        }
        (sum, best)
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(compressed) = args.first() else {
        bail!("usage: decode_throughput COMPRESSED [RAW] [ROUNDS]");
    };
    let rounds: usize = args.get(2).map_or(Ok(5), |r| r.parse()).context("ROUNDS")?;
    let report = |path: &str| -> anyhow::Result<u64> {
        let store = Store::open(&PathBuf::from(path))?;
        let arcs = store.num_arcs();
        let (sum, secs) = visit_store(&store, Scan { rounds });
        println!(
            "{path} ({:?}): {arcs} arcs in {secs:.4} s on one core: {:.0} M arcs/s ({:.2} ns/arc), checksum {sum}",
            store.codec(),
            arcs as f64 / secs / 1e6,
            secs * 1e9 / arcs.max(1) as f64,
        );
        Ok(sum)
    };
    let packed = report(compressed)?;
    if let Some(raw) = args.get(1) {
        let plain = report(raw)?;
        anyhow::ensure!(packed == plain, "the two stores hold different graphs");
    }
    Ok(())
}
