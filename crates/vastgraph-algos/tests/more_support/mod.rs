//! Shared helpers of the `more_*` tests: generated graphs, the real graphs of shared/data, and
//! running a closure on a pool of a given size.

#![allow(dead_code)] // each test binary uses a different subset

use std::io::Read;
use std::path::PathBuf;

use rand::{rngs::StdRng, Rng, SeedableRng};
use vastgraph_algos::hashing::seeded_hash2;
use vastgraph_engine::InMemoryGraph;

/// Runs `f` on a rayon pool of `threads` threads.
pub fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// A deterministic pseudo-random integer weight in 1..=100 for the edge {u, v} (same both ways).
pub fn edge_weight(u: u32, v: u32) -> f32 {
    (seeded_hash2(42, u.min(v) as u64, u.max(v) as u64) % 100 + 1) as f32
}

pub fn with_weights(edges: &[(u32, u32)]) -> Vec<(u32, u32, f32)> {
    edges
        .iter()
        .map(|&(u, v)| (u, v, edge_weight(u, v)))
        .collect()
}

/// R-MAT edges (a, b, c = 0.57, 0.19, 0.19) on 2^scale vertices: a skewed degree distribution
/// with hubs, the shape of social and web graphs.
pub fn rmat_edges(scale: u32, m: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..m)
        .map(|_| {
            let (mut u, mut v) = (0u32, 0u32);
            for _ in 0..scale {
                let r: f64 = rng.gen();
                let (bu, bv) = if r < 0.57 {
                    (0, 0)
                } else if r < 0.76 {
                    (0, 1)
                } else if r < 0.95 {
                    (1, 0)
                } else {
                    (1, 1)
                };
                u = (u << 1) | bu;
                v = (v << 1) | bv;
            }
            (u, v)
        })
        .collect()
}

/// The shared/data directory (next to the workspace), if present.
pub fn data_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    dir.is_dir().then_some(dir)
}

/// Reads `<name>.tsv.zst` from shared/data: (vertex count, edges). None (with a printed
/// message) when the file is absent.
pub fn read_real_edges(name: &str) -> Option<(usize, Vec<(u32, u32)>)> {
    let Some(dir) = data_dir() else {
        println!("skipping {name}: shared/data is not present");
        return None;
    };
    let path = dir.join(format!("{name}.tsv.zst"));
    let Ok(file) = std::fs::File::open(&path) else {
        println!("skipping {name}: {} is not present", path.display());
        return None;
    };
    let mut text = String::new();
    zstd::stream::Decoder::new(file)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let mut edges = Vec::new();
    let mut n = 0usize;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split_whitespace().map(|f| f.parse::<u32>());
        match (fields.next(), fields.next()) {
            (Some(Ok(u)), Some(Ok(v))) => {
                n = n.max(u.max(v) as usize + 1);
                edges.push((u, v));
            }
            _ => panic!(
                "{}:{}: not a `src<TAB>dst` line: {line:?}",
                path.display(),
                i + 1
            ),
        }
    }
    Some((n, edges))
}

/// A real graph, symmetrised (each edge both ways), unweighted.
pub fn real_symmetric(name: &str) -> Option<InMemoryGraph> {
    read_real_edges(name).map(|(n, edges)| InMemoryGraph::from_edges(n, &edges, true))
}
