//! `reorder_store`: the copy holds the same arcs (and weights, and transpose) under the new
//! ids, its degrees do not increase with the id, and labels.txt leads back to the source's
//! vertices, whatever the codec, direction and weights.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::*;
use proptest::prelude::*;
use vastgraph_store::{
    reorder_store, BuildOptions, Codec, ReorderOptions, Store, StoreBuilder, StoreError,
};

fn reorder_opts(memory: u64) -> ReorderOptions {
    ReorderOptions {
        memory_bytes: memory,
        overwrite: false,
        command: "test".into(),
        carry_provenance: false,
        progress: Default::default(),
    }
}

/// Every arc of one direction of a store as (source, target) → weight, both ends named by
/// `name` (the identity for the source store, labels.txt for the reordered one).
fn arcs(
    store: &Store,
    transpose: bool,
    name: &dyn Fn(u32) -> String,
) -> BTreeMap<(String, String), u64> {
    let (offsets, weights) = if transpose {
        (store.in_offsets().unwrap(), store.in_weights())
    } else {
        (store.offsets(), store.weights())
    };
    let lists = if transpose {
        store.in_byte_code()
    } else {
        store.byte_code()
    };
    let raw = if transpose {
        store.in_neighbors().unwrap()
    } else {
        store.neighbors()
    };
    let mut out = BTreeMap::new();
    for v in 0..offsets.len() - 1 {
        let list: Vec<u32> = match &lists {
            Some(lists) => {
                let mut list = Vec::new();
                lists.decode_into(v as u32, &mut list);
                list
            }
            None => raw[offsets[v] as usize..offsets[v + 1] as usize].to_vec(),
        };
        for (j, u) in list.into_iter().enumerate() {
            let weight = weights.map_or(0.0, |w| w.get(offsets[v] as usize + j));
            let key = (name(v as u32), name(u));
            assert!(
                out.insert(key, weight.to_bits()).is_none(),
                "a duplicate arc"
            );
        }
    }
    out
}

fn check_reordered(source: &Path, reordered: &Path) {
    let before = Store::open(source).unwrap();
    let after = Store::open(reordered).unwrap();
    after.verify_checksums().unwrap();
    let (m0, m1) = (before.manifest(), after.manifest());
    assert_eq!(
        (
            m0.vertices,
            m0.arcs,
            m0.directed,
            m0.weighted,
            m0.has_transpose,
            m0.codec
        ),
        (
            m1.vertices,
            m1.arcs,
            m1.directed,
            m1.weighted,
            m1.has_transpose,
            m1.codec
        )
    );
    assert!(m1.has_labels);
    // What the source's build dropped and merged stays the record: the inputs are the same.
    assert_eq!(m0.dropped, m1.dropped);
    assert_eq!(m0.provenance.input_edges, m1.provenance.input_edges);
    let degrees: Vec<u64> = after.offsets().windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        degrees.windows(2).all(|d| d[0] >= d[1]),
        "degrees increase somewhere: {degrees:?}"
    );
    let old_names = before.labels().unwrap();
    let old_name = |v: u32| match &old_names {
        Some(names) => names[v as usize].clone(),
        None => v.to_string(),
    };
    let new_names = after.labels().unwrap().unwrap();
    let mut seen: Vec<&String> = new_names.iter().collect();
    seen.sort();
    let mut all: Vec<String> = (0..before.num_vertices() as u32).map(old_name).collect();
    all.sort();
    assert_eq!(
        seen,
        all.iter().collect::<Vec<_>>(),
        "labels are not a renaming"
    );
    let new_name = |v: u32| new_names[v as usize].clone();
    assert_eq!(
        arcs(&before, false, &old_name),
        arcs(&after, false, &new_name)
    );
    if m0.has_transpose {
        assert_eq!(
            arcs(&before, true, &old_name),
            arcs(&after, true, &new_name)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn reorder_keeps_every_arc_under_new_ids(
        (n, edges) in (1u32..40).prop_flat_map(|n| {
            let edge = (0..n, 0..n, -5i32..20).prop_map(|(src, dst, w)| Edge { src, dst, weight: w as f64 });
            (Just(n), prop::collection::vec(edge, 0..300))
        }),
        symmetrize: bool,
        transpose: bool,
        keep_self_loops: bool,
        weighted: bool,
        compressed: bool,
        labelled: bool,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("source");
        let opts = BuildOptions {
            symmetrize, transpose, keep_self_loops, weighted,
            codec: if compressed { Codec::COMPRESSED_DEFAULT } else { Codec::Raw },
            ..opts(16 * MIB)
        };
        let mut builder = StoreBuilder::create(&source, opts).unwrap();
        builder.ensure_vertices(n as u64);
        if labelled {
            builder.set_labels((0..n).map(|v| format!("v{v}")).collect());
        }
        let src: Vec<u32> = edges.iter().map(|e| e.src).collect();
        let dst: Vec<u32> = edges.iter().map(|e| e.dst).collect();
        let w: Vec<f64> = edges.iter().map(|e| e.weight).collect();
        builder.push_batch(&src, &dst, weighted.then_some(&w[..])).unwrap();
        builder.finish().unwrap();
        let reordered = dir.path().join("reordered");
        reorder_store(&source, &reordered, &reorder_opts(32 * MIB)).unwrap();
        check_reordered(&source, &reordered);
        prop_assert!(leftovers(dir.path(), ".reordered.").is_empty(), "temporary files left behind");
    }
}

#[test]
fn a_budget_below_the_id_maps_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    let edges: Vec<Edge> = (0..1000u32)
        .map(|v| Edge {
            src: v,
            dst: (v * 7 + 1) % 3_000_000,
            weight: 0.0,
        })
        .collect();
    // 3M vertices: the two id maps alone take 24 MB, more than 32 MiB less the minimum.
    build(
        &source,
        &edges,
        BuildOptions { ..opts(16 * MIB) },
        3_000_000,
        1000,
    )
    .unwrap();
    let target = dir.path().join("reordered");
    let err = reorder_store(&source, &target, &reorder_opts(32 * MIB)).unwrap_err();
    match err {
        StoreError::MemoryBudgetTooSmall { minimum, .. } => {
            assert!(minimum > 32 * MIB, "{minimum}")
        }
        other => panic!("expected a budget error, got {other}"),
    }
    assert!(!target.exists());
    reorder_store(&source, &target, &reorder_opts(64 * MIB)).unwrap();
    check_reordered(&source, &target);
}
