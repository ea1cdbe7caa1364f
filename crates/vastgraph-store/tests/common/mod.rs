//! Shared by the store's integration tests: a naive in-memory model of what a build must
//! produce, and helpers to build stores and read them back.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use vastgraph_store::{BuildOptions, Manifest, Store, StoreBuilder, StoreError, WeightType};

#[derive(Clone, Debug)]
pub struct Edge {
    pub src: u32,
    pub dst: u32,
    pub weight: f64,
}

/// The CSR a build must produce, computed the obvious way.
#[derive(Debug, PartialEq)]
pub struct Expected {
    pub vertices: u64,
    pub out_edges: Vec<Vec<(u32, f64)>>,
    pub in_edges: Vec<Vec<(u32, f64)>>,
    pub self_loops: u64,
    pub duplicate_arcs: u64,
    pub reciprocal_pairs: u64,
    pub weight_type: Option<WeightType>,
}

pub fn expected(edges: &[Edge], opts: &BuildOptions, declared_vertices: u64) -> Expected {
    let mut arcs: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    let mut self_loops = 0;
    // The input's arcs as given, before any reverse is added.
    let mut given = std::collections::BTreeSet::new();
    let mut pushed = 0u64;
    let mut fits_i32 = true;
    let mut vertices = declared_vertices;
    for e in edges {
        vertices = vertices.max(e.src as u64 + 1).max(e.dst as u64 + 1);
        if e.src == e.dst && !opts.keep_self_loops {
            self_loops += 1;
            continue;
        }
        fits_i32 &=
            e.weight == e.weight.trunc() && (i32::MIN as f64..=i32::MAX as f64).contains(&e.weight);
        pushed += 1;
        given.insert((e.src, e.dst));
        let mut add = |s: u32, d: u32| {
            let w = arcs.entry((s, d)).or_insert(e.weight);
            *w = w.min(e.weight);
        };
        add(e.src, e.dst);
        if opts.symmetrize && e.src != e.dst {
            add(e.dst, e.src);
        }
    }
    let mut out_edges = vec![Vec::new(); vertices as usize];
    let mut in_edges = vec![Vec::new(); vertices as usize];
    for (&(s, d), &w) in &arcs {
        out_edges[s as usize].push((d, w));
        in_edges[d as usize].push((s, w));
    }
    Expected {
        vertices,
        out_edges,
        in_edges,
        self_loops,
        duplicate_arcs: pushed - given.len() as u64,
        // Each pair given both ways counts once.
        reciprocal_pairs: match opts.symmetrize {
            true => given
                .iter()
                .filter(|&&(s, d)| s < d && given.contains(&(d, s)))
                .count() as u64,
            false => 0,
        },
        weight_type: opts.weighted.then_some(if fits_i32 {
            WeightType::I32
        } else {
            WeightType::F32
        }),
    }
}

/// Build a store from `edges`, pushed in batches of `batch` edges.
pub fn build(
    target: &Path,
    edges: &[Edge],
    opts: BuildOptions,
    declared_vertices: u64,
    batch: usize,
) -> Result<Manifest, StoreError> {
    let weighted = opts.weighted;
    let mut builder = StoreBuilder::create(target, opts)?;
    builder.ensure_vertices(declared_vertices);
    for chunk in edges.chunks(batch.max(1)) {
        let src: Vec<u32> = chunk.iter().map(|e| e.src).collect();
        let dst: Vec<u32> = chunk.iter().map(|e| e.dst).collect();
        let weights: Vec<f64> = chunk.iter().map(|e| e.weight).collect();
        builder.push_batch(&src, &dst, weighted.then_some(&weights[..]))?;
    }
    builder.finish()
}

/// One direction of a store, read back as adjacency lists.
pub fn adjacency(
    offsets: &[u64],
    neighbors: &[u32],
    weights: Option<vastgraph_store::WeightsRef<'_>>,
) -> Vec<Vec<(u32, f64)>> {
    (0..offsets.len() - 1)
        .map(|v| {
            (offsets[v]..offsets[v + 1])
                .map(|i| {
                    let i = i as usize;
                    (neighbors[i], weights.map_or(0.0, |w| w.get(i)))
                })
                .collect()
        })
        .collect()
}

/// Expected weights as the store keeps them (f32 rounds).
pub fn as_stored(
    lists: &[Vec<(u32, f64)>],
    weight_type: Option<WeightType>,
) -> Vec<Vec<(u32, f64)>> {
    lists
        .iter()
        .map(|list| {
            list.iter()
                .map(|&(v, w)| match weight_type {
                    None => (v, 0.0),
                    Some(WeightType::I32) => (v, w),
                    Some(WeightType::F32) => (v, w as f32 as f64),
                })
                .collect()
        })
        .collect()
}

/// Assert that the store at `dir` holds exactly `want`.
pub fn assert_store_matches(dir: &Path, want: &Expected, opts: &BuildOptions) {
    let store = Store::open(dir).expect("open the store just built");
    store
        .verify_checksums()
        .expect("checksums of a fresh store");
    let m = store.manifest();
    assert_eq!(m.vertices, want.vertices, "n");
    assert_eq!(store.num_vertices() as u64, want.vertices);
    assert_eq!(m.dropped.self_loops, want.self_loops, "self-loops dropped");
    assert_eq!(
        m.dropped.duplicate_arcs, want.duplicate_arcs,
        "duplicates dropped"
    );
    assert_eq!(
        m.dropped.reciprocal_pairs, want.reciprocal_pairs,
        "reciprocal arcs merged"
    );
    assert_eq!(m.weight_type, want.weight_type, "weight type");
    assert_eq!(m.directed, !opts.symmetrize);
    let arcs: u64 = want.out_edges.iter().map(|l| l.len() as u64).sum();
    assert_eq!(store.num_arcs(), arcs, "m");
    assert_eq!(
        adjacency(store.offsets(), store.neighbors(), store.weights()),
        as_stored(&want.out_edges, want.weight_type),
        "out-edges"
    );
    // The side file of first neighbours: each list's first id, u32::MAX for an empty list.
    let firsts: Vec<u32> = std::fs::read(dir.join("first_neighbors.u32"))
        .expect("first_neighbors.u32")
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want_firsts: Vec<u32> = want
        .out_edges
        .iter()
        .map(|list| list.first().map_or(u32::MAX, |&(v, _)| v))
        .collect();
    assert_eq!(firsts, want_firsts, "first neighbours");
    let transpose = opts.transpose && !opts.symmetrize;
    assert_eq!(m.has_transpose, transpose);
    if transpose {
        let offsets = store.in_offsets().expect("in-offsets");
        let neighbors = store.in_neighbors().expect("in-neighbours");
        assert_eq!(
            adjacency(offsets, neighbors, store.in_weights()),
            as_stored(&want.in_edges, want.weight_type),
            "in-edges"
        );
    } else {
        assert!(store.in_offsets().is_none() && store.in_neighbors().is_none());
    }
}

/// Entries of `dir` whose name starts with `prefix` (temporary build leftovers).
pub fn leftovers(dir: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect()
}

pub fn opts(memory: u64) -> BuildOptions {
    BuildOptions {
        memory_bytes: memory,
        command: "test".into(),
        ..BuildOptions::default()
    }
}

pub const MIB: u64 = 1 << 20;
