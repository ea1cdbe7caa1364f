//! Builds compared against a naive in-memory CSR, across options and forced run counts.

mod common;

use common::*;
use proptest::prelude::*;
use vastgraph_store::{BuildOptions, Store, StoreBuilder, StoreError, WeightType};

fn arb_weight() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => (-5i32..20).prop_map(f64::from),
        1 => -1000.0f64..1000.0,
        1 => Just(i32::MAX as f64),
        1 => Just(i32::MIN as f64),
    ]
}

fn arb_edges() -> impl Strategy<Value = (u32, Vec<Edge>)> {
    (1u32..40).prop_flat_map(|n| {
        let edge =
            (0..n, 0..n, arb_weight()).prop_map(|(src, dst, weight)| Edge { src, dst, weight });
        (Just(n), prop::collection::vec(edge, 0..400))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn build_matches_naive_csr(
        (n, edges) in arb_edges(),
        symmetrize: bool,
        transpose: bool,
        keep_self_loops: bool,
        weighted: bool,
        run_records in prop::option::of(1u64..64),
        batch in 1usize..100,
        extra_vertices in 0u64..3,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("store");
        let record_bytes = if weighted { 16 } else { 8 };
        let opts = BuildOptions {
            symmetrize, transpose, keep_self_loops, weighted,
            run_bytes: run_records.map(|r| r * record_bytes),
            ..opts(16 * MIB)
        };
        let declared = if extra_vertices > 0 { n as u64 + extra_vertices } else { 0 };
        let manifest = build(&target, &edges, opts.clone(), declared, batch).unwrap();
        let want = expected(&edges, &opts, declared);
        prop_assert_eq!(manifest.arcs, want.out_edges.iter().map(|l| l.len() as u64).sum::<u64>());
        prop_assert_eq!(manifest.provenance.input_edges, edges.len() as u64);
        assert_store_matches(&target, &want, &opts);
        prop_assert!(leftovers(dir.path(), ".store.").is_empty(), "temporary files left behind");
    }
}

fn edge(src: u32, dst: u32, weight: f64) -> Edge {
    Edge { src, dst, weight }
}

#[test]
fn many_runs_merge_in_several_passes() {
    // 8-record runs and a 16 MiB budget give more runs than one merge pass may open.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = vastgraph_store::synthetic::SplitMix64::new(7);
    let edges: Vec<Edge> = (0..20_000)
        .map(|_| {
            edge(
                rng.below(300),
                rng.below(300),
                (rng.below(50) as f64) - 10.0,
            )
        })
        .collect();
    for (weighted, transpose, symmetrize) in [
        (false, false, false),
        (true, true, false),
        (false, false, true),
        (true, false, true),
    ] {
        let target = dir
            .path()
            .join(format!("store-{weighted}-{transpose}-{symmetrize}"));
        let opts = BuildOptions {
            weighted,
            transpose,
            symmetrize,
            run_bytes: Some(8 * if weighted { 16 } else { 8 }),
            ..opts(16 * MIB)
        };
        build(&target, &edges, opts.clone(), 0, 1000).unwrap();
        assert_store_matches(&target, &expected(&edges, &opts, 0), &opts);
    }
}

#[test]
fn weight_type_is_i32_only_when_every_kept_weight_is_an_i32() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, Vec<Edge>, WeightType); 5] = [
        (
            "ints",
            vec![edge(0, 1, 3.0), edge(1, 2, -7.0)],
            WeightType::I32,
        ),
        (
            "i32 bounds",
            vec![edge(0, 1, i32::MAX as f64), edge(1, 0, i32::MIN as f64)],
            WeightType::I32,
        ),
        (
            "fraction",
            vec![edge(0, 1, 3.0), edge(1, 2, 0.5)],
            WeightType::F32,
        ),
        ("above i32", vec![edge(0, 1, 2147483648.0)], WeightType::F32),
        // A dropped self-loop's weight does not count.
        (
            "dropped loop",
            vec![edge(0, 1, 1.0), edge(2, 2, 0.25)],
            WeightType::I32,
        ),
    ];
    for (name, edges, want) in cases {
        let target = dir.path().join(name.replace(' ', "_"));
        let opts = BuildOptions {
            weighted: true,
            ..opts(16 * MIB)
        };
        let manifest = build(&target, &edges, opts, 0, 10).unwrap();
        assert_eq!(manifest.weight_type, Some(want), "{name}");
        let store = Store::open(&target).unwrap();
        assert_eq!(
            store.weights().map(|w| w.weight_type()),
            Some(want),
            "{name}"
        );
        let file = match want {
            WeightType::I32 => "weights.i32",
            WeightType::F32 => "weights.f32",
        };
        assert!(target.join(file).is_file(), "{name}: {file}");
    }
}

#[test]
fn duplicate_weighted_arcs_keep_the_smallest_weight() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("s");
    let edges = [
        edge(0, 1, 5.0),
        edge(0, 1, 2.0),
        edge(1, 0, 9.0),
        edge(0, 1, 4.0),
    ];
    let opts = BuildOptions {
        weighted: true,
        symmetrize: true,
        ..opts(16 * MIB)
    };
    let manifest = build(&target, &edges, opts, 0, 2).unwrap();
    let store = Store::open(&target).unwrap();
    assert_eq!(store.neighbors(), &[1, 0]);
    let w = store.weights().unwrap();
    assert_eq!((w.get(0), w.get(1)), (2.0, 2.0));
    // Three arcs 0 -> 1 (two repeats) and one 1 -> 0, its reverse.
    assert_eq!(manifest.dropped.duplicate_arcs, 2);
    assert_eq!(manifest.dropped.reciprocal_pairs, 1);
}

#[test]
fn empty_stores_open() {
    let dir = tempfile::tempdir().unwrap();
    // n = 0, m = 0.
    let empty = dir.path().join("empty");
    let manifest = build(&empty, &[], opts(16 * MIB), 0, 1).unwrap();
    assert_eq!((manifest.vertices, manifest.arcs), (0, 0));
    let store = Store::open(&empty).unwrap();
    assert_eq!(store.offsets(), &[0]);
    assert!(store.neighbors().is_empty());
    store.verify_checksums().unwrap();
    // n > 0, m = 0 (only self-loops, dropped), weighted with transpose.
    let loops = dir.path().join("loops");
    let opts = BuildOptions {
        weighted: true,
        transpose: true,
        ..opts(16 * MIB)
    };
    let manifest = build(&loops, &[edge(3, 3, 1.5)], opts, 0, 1).unwrap();
    assert_eq!(
        (
            manifest.vertices,
            manifest.arcs,
            manifest.dropped.self_loops
        ),
        (4, 0, 1)
    );
    let store = Store::open(&loops).unwrap();
    assert_eq!(store.offsets(), &[0; 5]);
    assert_eq!(store.in_offsets().unwrap(), &[0; 5]);
    assert!(store.weights().unwrap().is_empty());
    store.verify_checksums().unwrap();
}

#[test]
fn labels_round_trip_and_must_cover_every_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("labelled");
    let mut builder = StoreBuilder::create(&target, opts(16 * MIB)).unwrap();
    builder.push_batch(&[0, 2], &[1, 0], None).unwrap();
    let labels = vec![
        "alpha".to_string(),
        "β".to_string(),
        "gamma delta".to_string(),
    ];
    builder.set_labels(labels.clone());
    let manifest = builder.finish().unwrap();
    assert!(manifest.has_labels);
    let store = Store::open(&target).unwrap();
    assert_eq!(store.labels().unwrap(), Some(labels));
    store.verify_checksums().unwrap();

    // A header declaring more vertices than there are labels is an error, not a short file.
    let short = dir.path().join("short");
    let mut builder = StoreBuilder::create(&short, opts(16 * MIB)).unwrap();
    builder.push_batch(&[0], &[1], None).unwrap();
    builder.set_labels(vec!["a".into(), "b".into()]);
    builder.ensure_vertices(5);
    assert!(matches!(
        builder.finish(),
        Err(StoreError::InvalidInput { .. })
    ));
    assert!(!short.exists());
}

#[test]
fn invalid_input_is_an_error_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("bad");
    let mut builder = StoreBuilder::create(&target, opts(16 * MIB)).unwrap();
    let err = builder
        .push_batch(&[0, u32::MAX], &[1, 2], None)
        .unwrap_err();
    assert!(matches!(err, StoreError::InvalidInput { .. }), "{err}");
    assert!(
        builder.push_batch(&[0, 1], &[1], None).is_err(),
        "length mismatch"
    );
    assert!(
        builder.push_batch(&[0], &[1], Some(&[1.0])).is_err(),
        "weights on unweighted build"
    );
    drop(builder);
    assert!(!target.exists());
    assert!(leftovers(dir.path(), ".bad.").is_empty());

    let weighted = BuildOptions {
        weighted: true,
        ..opts(16 * MIB)
    };
    let mut builder = StoreBuilder::create(&target, weighted).unwrap();
    assert!(
        builder.push_batch(&[0], &[1], None).is_err(),
        "weighted build without weights"
    );
    assert!(
        builder.push_batch(&[0], &[1], Some(&[f64::NAN])).is_err(),
        "NaN weight"
    );
}

#[test]
fn memory_budget_below_minimum_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let err = StoreBuilder::create(&dir.path().join("s"), opts(1 << 20))
        .err()
        .unwrap();
    assert!(
        matches!(err, StoreError::MemoryBudgetTooSmall { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("minimum"), "{err}");
}

#[test]
fn dropping_an_unfinished_builder_removes_all_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("s");
    let mut builder = StoreBuilder::create(
        &target,
        BuildOptions {
            run_bytes: Some(64),
            transpose: true,
            ..opts(16 * MIB)
        },
    )
    .unwrap();
    for i in 0..100u32 {
        builder.push_batch(&[i, i + 1], &[i + 2, i], None).unwrap();
    }
    assert!(
        !leftovers(dir.path(), ".s.").is_empty(),
        "staging and run directories exist while building"
    );
    drop(builder);
    assert!(!target.exists());
    assert_eq!(leftovers(dir.path(), ".s."), Vec::<String>::new());
}

#[test]
fn runs_go_to_the_requested_tmp_dir() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let target = dir.path().join("s");
    let mut builder = StoreBuilder::create(
        &target,
        BuildOptions {
            run_bytes: Some(64),
            tmp_dir: Some(tmp.path().to_path_buf()),
            ..opts(16 * MIB)
        },
    )
    .unwrap();
    for i in 0..100u32 {
        builder.push_batch(&[i], &[i + 1], None).unwrap();
    }
    assert_eq!(leftovers(tmp.path(), ".s.runs-").len(), 1);
    builder.finish().unwrap();
    assert!(leftovers(tmp.path(), ".s.").is_empty());
    assert_eq!(Store::open(&target).unwrap().num_arcs(), 100);
}

#[test]
fn existing_target_needs_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("s");
    build(&target, &[edge(0, 1, 0.0)], opts(16 * MIB), 0, 1).unwrap();

    let err = build(
        &target,
        &[edge(0, 1, 0.0), edge(1, 2, 0.0)],
        opts(16 * MIB),
        0,
        1,
    )
    .unwrap_err();
    assert!(matches!(err, StoreError::TargetExists { .. }), "{err}");
    assert_eq!(
        Store::open(&target).unwrap().num_arcs(),
        1,
        "the old store is untouched"
    );

    let overwrite = BuildOptions {
        overwrite: true,
        ..opts(16 * MIB)
    };
    build(
        &target,
        &[edge(0, 1, 0.0), edge(1, 2, 0.0)],
        overwrite.clone(),
        0,
        1,
    )
    .unwrap();
    assert_eq!(Store::open(&target).unwrap().num_arcs(), 2, "replaced");
    // A store opened before it was replaced reads the new files by name when verified: it
    // says the store was replaced, not that its files are damaged.
    let opened = Store::open(&target).unwrap();
    let three = [edge(0, 1, 0.0), edge(1, 2, 0.0), edge(2, 3, 0.0)];
    build(&target, &three, overwrite.clone(), 0, 1).unwrap();
    let err = opened.verify().unwrap_err();
    assert!(matches!(err, StoreError::Replaced { .. }), "{err}");
    Store::open(&target).unwrap().verify().unwrap();
    build(&target, &three[..2], overwrite.clone(), 0, 1).unwrap();
    assert_eq!(
        leftovers(dir.path(), ".s."),
        Vec::<String>::new(),
        "the old store was deleted"
    );

    // A target that appeared during the build is still refused without overwrite.
    let late = dir.path().join("late");
    let mut builder = StoreBuilder::create(&late, opts(16 * MIB)).unwrap();
    builder.push_batch(&[0], &[1], None).unwrap();
    std::fs::create_dir(&late).unwrap();
    assert!(matches!(
        builder.finish(),
        Err(StoreError::TargetExists { .. })
    ));
    assert!(leftovers(dir.path(), ".late.").is_empty());

    // Overwrite never replaces a directory that is not a store.
    let precious = dir.path().join("precious");
    std::fs::create_dir(&precious).unwrap();
    std::fs::write(precious.join("thesis.txt"), "years of work").unwrap();
    let err = build(&precious, &[edge(0, 1, 0.0)], overwrite.clone(), 0, 1).unwrap_err();
    assert!(matches!(err, StoreError::NotOverwritable { .. }), "{err}");
    assert!(precious.join("thesis.txt").is_file());
    // Without overwrite it says so too, rather than "overwrite replaces it".
    let err = build(&precious, &[edge(0, 1, 0.0)], opts(16 * MIB), 0, 1).unwrap_err();
    assert!(matches!(err, StoreError::NotOverwritable { .. }), "{err}");

    // Nor a store that holds something of the user's: replacing it would delete that too.
    std::fs::write(target.join("notes.txt"), "mine").unwrap();
    let err = build(&target, &[edge(0, 1, 0.0)], overwrite.clone(), 0, 1).unwrap_err();
    assert!(
        matches!(err, StoreError::NotOverwritable { .. }) && err.to_string().contains("notes.txt"),
        "{err}"
    );
    assert!(target.join("notes.txt").is_file());
    assert_eq!(Store::open(&target).unwrap().num_arcs(), 2, "kept");

    // A link to a store names the store it points to: replaced there, the link kept.
    std::fs::remove_file(target.join("notes.txt")).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    build(&link, &[edge(0, 1, 0.0)], overwrite.clone(), 0, 1).unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(
        Store::open(&target).unwrap().num_arcs(),
        1,
        "replaced through the link"
    );
    assert_eq!(leftovers(dir.path(), ".s."), Vec::<String>::new());
    // A link to nothing is named as one, with where it points.
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
    let err = build(&dangling, &[edge(0, 1, 0.0)], overwrite, 0, 1).unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(err, StoreError::NotOverwritable { .. })
            && message.contains("symbolic link")
            && message.contains("nowhere"),
        "{message}"
    );
}

#[test]
fn manifest_records_provenance_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("s");
    let mut builder = StoreBuilder::create(
        &target,
        BuildOptions {
            command: "convert".into(),
            options_json: serde_json::json!({"symmetrize": true}),
            symmetrize: true,
            ..opts(16 * MIB)
        },
    )
    .unwrap();
    builder.add_input(vastgraph_store::InputRecord {
        path: "in.txt".into(),
        format: "snap".into(),
        bytes: 42,
        skipped_header_line: None,
        header_like_line: None,
    });
    builder.push_batch(&[0, 1, 2], &[1, 2, 2], None).unwrap();
    assert_eq!(builder.edges_pushed(), 3);
    let manifest = builder.finish().unwrap();
    let store = Store::open(&target).unwrap();
    assert_eq!(store.manifest(), &manifest);
    assert_eq!(manifest.provenance.command, "convert");
    assert_eq!(manifest.provenance.inputs.len(), 1);
    assert_eq!(manifest.provenance.options["symmetrize"], true);
    assert!(!manifest.directed);
    assert_eq!(manifest.arcs, 4);
    let sizes = store.file_sizes();
    assert!(
        sizes.contains(&("offsets.u64".to_string(), 4 * 8)),
        "{sizes:?}"
    );
    assert!(
        sizes.contains(&("neighbors.u32".to_string(), 4 * 4)),
        "{sizes:?}"
    );
    // One page each: one 4-byte checksum.
    assert!(
        sizes.contains(&("neighbors.u32.pagesums".to_string(), 4)),
        "{sizes:?}"
    );
    assert!(sizes.iter().any(|(name, _)| name == "manifest.json"));
}

#[test]
fn a_stray_id_near_the_u32_limit_is_refused_before_the_offsets_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    let mut builder = StoreBuilder::create(&target, opts(16 * MIB)).unwrap();
    builder
        .push_batch(&[0, 1], &[1, 4_294_967_294], None)
        .unwrap();
    let started = std::time::Instant::now();
    let err = builder.finish().unwrap_err().to_string();
    assert!(
        started.elapsed().as_secs() < 5,
        "took {:?}",
        started.elapsed()
    );
    assert!(
        err.contains("4294967294") && err.contains("--relabel") && err.contains("34.4 GB"),
        "{err}"
    );
    assert!(!target.exists());
    assert!(leftovers(dir.path(), ".store.").is_empty());
    // Isolated vertices are fine while their offsets stay small.
    let mut builder = StoreBuilder::create(&target, opts(16 * MIB)).unwrap();
    builder.push_batch(&[0], &[1_000_000], None).unwrap();
    assert_eq!(builder.finish().unwrap().vertices, 1_000_001);
}

/// A store replaced with `--force` while readers open it: each open gives the old store whole,
/// the new one whole, or an error; never the files of both. The two graphs have files of the
/// same sizes, so only the directory's identity tells them apart.
#[test]
fn a_store_replaced_while_opened_is_never_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    // Two graphs of 64 vertices and 64 arcs each: a cycle one way, then the other way round.
    let forward: Vec<(u32, u32)> = (0..64).map(|v| (v, (v + 1) % 64)).collect();
    let backward: Vec<(u32, u32)> = (0..64).map(|v| (v, (v + 63) % 64)).collect();
    let write = |edges: &[(u32, u32)]| {
        let mut builder = StoreBuilder::create(
            &target,
            BuildOptions {
                overwrite: true,
                ..opts(16 * MIB)
            },
        )
        .unwrap();
        let (src, dst): (Vec<u32>, Vec<u32>) = edges.iter().copied().unzip();
        builder.push_batch(&src, &dst, None).unwrap();
        builder.finish().unwrap();
    };
    write(&forward);
    let lists = |edges: &[(u32, u32)]| edges.iter().map(|e| e.1).collect::<Vec<u32>>();
    let (a, b) = (lists(&forward), lists(&backward));
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (mut whole, mut refused) = (0, 0);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for round in 0..60 {
                write(if round % 2 == 0 { &backward } else { &forward });
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            match Store::open(&target) {
                Ok(store) => {
                    assert!(
                        store.neighbors() == a || store.neighbors() == b,
                        "a mixed store"
                    );
                    whole += 1;
                }
                Err(_) => refused += 1,
            }
        }
    });
    assert!(whole > 0, "no open succeeded ({refused} refused)");
}
