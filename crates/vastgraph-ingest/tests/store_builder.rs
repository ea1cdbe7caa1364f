//! The ingest → store builder wiring: a plan's flags configure the builder, and the store
//! holds the inputs' edges, declared isolated vertices, weights and labels.

use std::path::{Path, PathBuf};

use vastgraph_ingest::{ingest, plan, IngestOptions};
use vastgraph_store::{BuildOptions, Store, StoreBuilder};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
}

fn convert(inputs: &[&str], dir: &Path) -> Store {
    let inputs: Vec<PathBuf> = inputs.iter().map(|n| fixture(n)).collect();
    let plan = plan(&inputs, &IngestOptions::default()).unwrap();
    let opts = BuildOptions {
        weighted: plan.weighted,
        symmetrize: plan.symmetric,
        keep_self_loops: true,
        memory_bytes: 64 << 20,
        ..BuildOptions::default()
    };
    let target = dir.join("store");
    let mut builder = StoreBuilder::create(&target, opts).unwrap();
    for record in plan.input_records() {
        builder.add_input(record);
    }
    let summary = ingest(&plan, &mut builder, &mut |_| {}).unwrap();
    assert_eq!(builder.edges_pushed(), summary.edges);
    builder.finish().unwrap();
    Store::open(&target).unwrap()
}

/// The store's arcs as (u, v) pairs in CSR order.
fn arcs(store: &Store) -> Vec<(u32, u32)> {
    let (offsets, neighbors) = (store.offsets(), store.neighbors());
    (0..store.num_vertices())
        .flat_map(|u| (offsets[u]..offsets[u + 1]).map(move |i| (u as u32, neighbors[i as usize])))
        .collect()
}

#[test]
fn matrix_market_declared_size_and_symmetry_reach_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = convert(&["tiny.mtx"], dir.path());
    // 4x5 matrix: vertex 4 appears, and the declared size 5 is kept.
    assert_eq!(store.num_vertices(), 5);
    assert_eq!(arcs(&store), [(0, 1), (1, 2), (2, 0), (3, 4)]);
    assert_eq!(store.manifest().provenance.inputs[0].format, "mtx");

    let dir = tempfile::tempdir().unwrap();
    let store = convert(&["tiny-symmetric.mtx"], dir.path());
    assert!(!store.manifest().directed && store.manifest().weighted);
    assert_eq!(
        arcs(&store),
        [(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    );
}

#[test]
fn labels_reach_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = convert(&["labels.tsv"], dir.path());
    assert_eq!(
        store.labels().unwrap().unwrap(),
        ["alice", "bob", "carol", "dave"]
    );
    assert_eq!(arcs(&store), [(0, 1), (1, 2), (2, 0), (3, 0)]);
}

#[test]
fn webgraph_isolated_node_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let store = convert(&["tiny-webgraph.graph"], dir.path());
    assert_eq!(store.num_vertices(), 7);
    assert_eq!(store.num_arcs(), 13);
}
