//! The algorithms' test helpers: the real graphs of shared/data (skipped with a message when
//! absent), generated graphs with hubs (random with a few hubs, R-MAT), deterministic weights,
//! running on a fixed number of threads, and views without neighbour slices or transpose.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
pub use vastgraph_engine::NoSlices;
use vastgraph_engine::{CsrAdjacency, Graph, InMemoryGraph, Vertex};

/// `<workspace>/../shared/data`.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

pub struct EdgeList {
    pub n: usize,
    pub edges: Vec<(Vertex, Vertex)>,
}

/// Reads `<data>/<name>.tsv.zst` (`#` headers, one `src<TAB>dst` per line). None, after printing
/// why, when the file is absent: users do not have the shared data.
pub fn load_real(name: &str) -> Option<EdgeList> {
    let path = data_dir().join(format!("{name}.tsv.zst"));
    if !path.exists() {
        println!("skipping: {} is absent", path.display());
        return None;
    }
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let decoder = zstd::stream::read::Decoder::new(file)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut n = 0usize;
    let mut edges = Vec::new();
    for (i, line) in BufReader::new(decoder).lines().enumerate() {
        let line = line.unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1));
        if let Some(header) = line.strip_prefix('#') {
            // "# vertices: 114599  edges: 119666" declares isolated vertices past the last id.
            let mut words = header.split_whitespace();
            while let Some(w) = words.next() {
                if w == "vertices:" {
                    n = n.max(words.next().and_then(|x| x.parse().ok()).unwrap_or(0));
                }
            }
            continue;
        }
        let mut fields = line.split('\t').map(|f| f.trim().parse::<Vertex>());
        match (fields.next(), fields.next()) {
            (Some(Ok(u)), Some(Ok(v))) => {
                n = n.max(u.max(v) as usize + 1);
                edges.push((u, v));
            }
            _ => panic!("{}:{}: not `src<TAB>dst`: {line:?}", path.display(), i + 1),
        }
    }
    Some(EdgeList { n, edges })
}

/// Random edges where a third of them touch one of a few hubs, so degrees are skewed (heavy
/// vertices, push/pull switches, galloping intersections all get exercised).
pub fn skewed_edges(n: usize, m: usize, hubs: usize, seed: u64) -> Vec<(Vertex, Vertex)> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..m)
        .map(|i| {
            let u = if i % 3 == 0 {
                rng.gen_range(0..hubs)
            } else {
                rng.gen_range(0..n)
            };
            (u as Vertex, rng.gen_range(0..n) as Vertex)
        })
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

/// A deterministic integer weight in 1..=255 that does not depend on the edge's direction.
pub fn hashed_weight(u: Vertex, v: Vertex) -> f32 {
    let (a, b) = if u < v { (u, v) } else { (v, u) };
    let mut x = ((a as u64) << 32 | b as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    (x % 255 + 1) as f32
}

pub fn with_hashed_weights(edges: &[(Vertex, Vertex)]) -> Vec<(Vertex, Vertex, f32)> {
    edges
        .iter()
        .map(|&(u, v)| (u, v, hashed_weight(u, v)))
        .collect()
}

/// Runs `f` on a pool of `threads` threads.
pub fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// The same graph through [`NoSlices`].
pub fn without_slices<'a>(g: &'a InMemoryGraph) -> Graph<NoSlices<'a>> {
    let view = g.view();
    Graph::new(
        NoSlices(*view.out()),
        view.incoming()
            .filter(|_| !view.is_symmetric())
            .map(|a| NoSlices(*a)),
        view.is_symmetric(),
    )
}

/// A directed graph's out-edges alone, as a store built without a transpose.
pub fn without_transpose(g: &InMemoryGraph) -> Graph<CsrAdjacency<'_>> {
    let view = g.view();
    assert!(!view.is_symmetric());
    Graph::new(*view.out(), None, false)
}
