//! `request_cancel` stops builds with `Cancelled` and leaves nothing behind. The flag is
//! process-wide, so everything here runs in one test, in its own test binary.

mod common;

use std::path::Path;
use std::time::Duration;

use common::*;
use vastgraph_store::synthetic::RandomEdges;
use vastgraph_store::{
    build_then_tile, build_tiles, cancel_requested, clear_cancel, open_manifest, request_cancel,
    BuildOptions, StoreBuilder, StoreError, TileOptions,
};

fn push_random(builder: &mut StoreBuilder, edges: u64) {
    let mut stream = RandomEdges::new(11, 1 << 20, edges);
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    loop {
        stream.next_batch(&mut src, &mut dst, 1 << 16);
        if src.is_empty() {
            break;
        }
        builder.push_batch(&src, &dst, None).unwrap();
    }
}

#[test]
fn cancellation_stops_builds_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("s");
    let opts = BuildOptions {
        transpose: true,
        run_bytes: Some(1 << 20),
        ..opts(16 * MIB)
    };

    // Between batches.
    let mut builder = StoreBuilder::create(&target, opts.clone()).unwrap();
    push_random(&mut builder, 100_000);
    request_cancel();
    assert!(cancel_requested());
    assert!(matches!(
        builder.push_batch(&[0], &[1], None),
        Err(StoreError::Cancelled)
    ));
    assert!(matches!(builder.finish(), Err(StoreError::Cancelled)));
    assert!(!target.exists());
    assert_eq!(leftovers(dir.path(), ".s."), Vec::<String>::new());
    clear_cancel();

    // In the middle of the merge: 3M edges in 1 MiB runs take well over the delay to merge.
    let mut builder = StoreBuilder::create(&target, opts.clone()).unwrap();
    push_random(&mut builder, 3_000_000);
    let canceller = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(30));
        request_cancel();
    });
    let result = builder.finish();
    canceller.join().unwrap();
    assert!(matches!(result, Err(StoreError::Cancelled)), "{result:?}");
    assert!(!target.exists());
    assert_eq!(leftovers(dir.path(), ".s."), Vec::<String>::new());
    clear_cancel();

    // A build with tiles (`convert --tiles`) cancelled after its store is built, before its
    // tiles: nothing appears, and a store it was to replace stays as it was.
    let tile = |dir: &Path| {
        let options = TileOptions {
            side_log2: 14,
            memory_bytes: 16 * MIB,
            progress: Default::default(),
        };
        build_tiles(dir, &options)
    };
    let build_cancelled = |dir: &Path, _| {
        let mut builder = StoreBuilder::create(dir, opts.clone())?;
        push_random(&mut builder, 1000);
        let manifest = builder.finish();
        request_cancel();
        manifest
    };
    let result = build_then_tile(&target, false, build_cancelled, Some(tile));
    assert!(matches!(result, Err(StoreError::Cancelled)), "{result:?}");
    assert!(!target.exists());
    assert_eq!(leftovers(dir.path(), ".s."), Vec::<String>::new());
    clear_cancel();
    let tiled = build_then_tile(
        &target,
        false,
        |dir: &Path, _| {
            let mut builder = StoreBuilder::create(dir, opts.clone())?;
            push_random(&mut builder, 2000);
            builder.finish()
        },
        Some(tile),
    )
    .unwrap();
    assert!(tiled.tiles.is_some());
    assert_eq!(open_manifest(&target).unwrap(), tiled);
    let result = build_then_tile(&target, true, build_cancelled, Some(tile));
    assert!(matches!(result, Err(StoreError::Cancelled)), "{result:?}");
    assert_eq!(open_manifest(&target).unwrap(), tiled);
    assert_eq!(leftovers(dir.path(), ".s."), Vec::<String>::new());
    clear_cancel();
    // Without --force, a store there is refused before any work.
    let result = build_then_tile(&target, false, |_: &Path, _| unreachable!(), Some(tile));
    assert!(
        matches!(result, Err(StoreError::TargetExists { .. })),
        "{result:?}"
    );
    std::fs::remove_dir_all(&target).unwrap();

    // After clearing, builds run again.
    let mut builder = StoreBuilder::create(&target, opts).unwrap();
    push_random(&mut builder, 1000);
    assert_eq!(builder.finish().unwrap().provenance.input_edges, 1000);
}
