//! Generation throughput into a no-op sink: `gen_bench kron SCALE [EDGE_FACTOR]` or
//! `gen_bench uniform VERTICES EDGES`.

use std::time::Instant;

use vastgraph_gen::{EdgeGenerator, Kronecker, KroneckerParams, Uniform, UniformParams};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: u64| args.get(i).map_or(Ok(default), |a| a.parse());
    let start = Instant::now();
    let generator: Box<dyn EdgeGenerator> = match args.first().map(String::as_str) {
        Some("uniform") => Box::new(Uniform::new(UniformParams {
            vertices: arg(1, 1 << 24)?,
            edges: arg(2, 16 << 24)?,
            seed: 1,
            weighted: false,
        })?),
        _ => Box::new(Kronecker::new(KroneckerParams {
            scale: arg(1, 24)? as u32,
            edge_factor: arg(2, 16)?,
            seed: 1,
            weighted: false,
        })?),
    };
    let setup = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut checksum = 0u64;
    generator.for_each_batch(&mut |s, d, _| {
        checksum = checksum.wrapping_add(s[0] as u64 ^ d[d.len() - 1] as u64);
        Ok(())
    })?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} edges in {:.2} s (+{:.2} s setup): {:.1} M edges/s ({} threads, checksum {checksum})",
        generator.num_edges(),
        secs,
        setup,
        generator.num_edges() as f64 / secs / 1e6,
        rayon::current_num_threads()
    );
    Ok(())
}
