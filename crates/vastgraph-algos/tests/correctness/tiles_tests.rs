//! PageRank over tiles: the same scores as over the lists (within rounding), bit for bit the
//! same for any thread count, in memory or out of core, and resumed from a checkpoint;
//! delta-PageRank and personalised PageRank over tiles give the lists' scores bit for bit, with
//! the tiles of inactive sources skipped; label propagation gives the lists' labels, in memory
//! and out of core (a column spanning several chunks); damaged tiles out of core are an error
//! naming the file, and `tiles: false` runs on the lists past them; a page altered in order is
//! refused by its checksum.

use std::path::Path;

use vastgraph_algos::harness::{self, Request};
use vastgraph_algos::registry::{Params, Values};
use vastgraph_engine::ooc::OocOptions;
use vastgraph_store::tiles::{build_tiles, TileOptions};
use vastgraph_store::{BuildOptions, StoreBuilder};

const MIB: u64 = 1 << 20;

/// A skewed graph: a quarter of the arcs leave three hubs, some vertices have no arcs.
fn build(dir: &Path, n: u32, m: usize, symmetric: bool) {
    build_with(dir, n, m, symmetric, false)
}

/// [`build`], with the transpose of a directed graph when `transpose`.
fn build_with(dir: &Path, n: u32, m: usize, symmetric: bool, transpose: bool) {
    let mut builder = StoreBuilder::create(
        dir,
        BuildOptions {
            symmetrize: symmetric,
            transpose,
            memory_bytes: 64 * MIB,
            ..Default::default()
        },
    )
    .unwrap();
    let mut rng = vastgraph_store::synthetic::SplitMix64::new(11);
    let live = u64::from(n - 50);
    let src: Vec<u32> = (0..m)
        .map(|i| {
            if i % 4 == 0 {
                rng.below(3)
            } else {
                rng.below(live)
            }
        })
        .collect();
    let dst: Vec<u32> = (0..m).map(|_| rng.below(live)).collect();
    builder.push_batch(&src, &dst, None).unwrap();
    builder.finish().unwrap();
}

fn tile(dir: &Path, side_log2: u32) {
    let opts = TileOptions {
        side_log2,
        memory_bytes: 64 * MIB,
        progress: Default::default(),
    };
    build_tiles(dir, &opts).unwrap();
}

/// A verified run of `algorithm` on `threads` threads; `memory` runs out of core, `tiles: false`
/// on the lists.
fn run(
    dir: &Path,
    algorithm: &str,
    params: &Params,
    memory: Option<u64>,
    tiles: bool,
    threads: usize,
) -> harness::Report {
    try_run(dir, algorithm, params, memory, tiles, threads).unwrap()
}

/// [`run`], its error returned.
fn try_run(
    dir: &Path,
    algorithm: &str,
    params: &Params,
    memory: Option<u64>,
    tiles: bool,
    threads: usize,
) -> anyhow::Result<harness::Report> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        harness::run(Request {
            memory,
            out_of_core: OocOptions::default(),
            tiles,
            verify: true,
            ..Request::new(dir, algorithm, params)
        })
    })
}

/// PageRank's scores and its layout, 30 iterations; `memory` runs out of core.
fn pagerank(dir: &Path, memory: Option<u64>, tiles: bool, threads: usize) -> (Vec<f64>, String) {
    let (scores, layout, _) = pagerank_requests(dir, memory, tiles, threads);
    (scores, layout)
}

/// [`pagerank`], with the read requests of the last pass out of core.
fn pagerank_requests(
    dir: &Path,
    memory: Option<u64>,
    tiles: bool,
    threads: usize,
) -> (Vec<f64>, String, u64) {
    let params = Params::default()
        .with("max_iters", 30)
        .with("tolerance", 0.0);
    let report = run(dir, "pagerank", &params, memory, tiles, threads);
    let layout = report.record.extra["layout"].as_str().unwrap().to_string();
    let requests = report.record.io_requests.unwrap_or(0);
    match report.values {
        Some(Values::F64(scores)) => (scores, layout, requests),
        _ => panic!("pagerank gives f64 scores"),
    }
}

fn l1(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

#[test]
fn tiled_pagerank_matches_the_lists_in_memory_and_out_of_core() {
    let tmp = tempfile::tempdir().unwrap();
    for symmetric in [true, false] {
        let dir = tmp.path().join(format!("g-{symmetric}"));
        // 1.6 to 3.2 MB of tiles: several chunks a pass within the budget below.
        build(&dir, 20_000, 400_000, symmetric);
        let (lists, layout) = pagerank(&dir, None, true, 2);
        assert_eq!(layout, "lists");
        tile(&dir, 7);
        let (tiled, layout) = pagerank(&dir, None, true, 2);
        assert_eq!(layout, "tiles");
        assert!(l1(&tiled, &lists) < 1e-12, "{}", l1(&tiled, &lists));
        let (one_thread, _) = pagerank(&dir, None, true, 1);
        assert_eq!(tiled, one_thread, "the same sums for any thread count");
        let (ooc, layout, requests) = pagerank_requests(&dir, Some(6 * MIB), true, 2);
        assert_eq!(layout, "tiles");
        assert!(requests > 30, "{requests} reads: more than a chunk a pass");
        assert_eq!(tiled, ooc, "streamed tiles give the in-memory sums");
        let (ooc_lists, layout) = pagerank(&dir, Some(6 * MIB), false, 2);
        assert_eq!(layout, "lists");
        assert!(l1(&ooc_lists, &lists) < 1e-12);
    }
}

#[test]
fn damaged_tiles_out_of_core_are_an_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 2000, 30_000, true);
    tile(&dir, 6);
    let edges = dir.join(vastgraph_store::manifest::files::TILE_EDGES);
    let mut bytes = std::fs::read(&edges).unwrap();
    bytes[5000] ^= 0x40;
    std::fs::write(&edges, &bytes).unwrap();
    let params = Params::default().with("max_iters", 3);
    for memory in [None, Some(8 * MIB)] {
        let e = harness::run(Request {
            memory,
            ..Request::new(&dir, "pagerank", &params)
        })
        .map(drop)
        .unwrap_err();
        let e = format!("{e:#}");
        assert!(e.contains("tile_edges.u32"), "{e}");
        harness::run(Request {
            memory,
            tiles: false,
            ..Request::new(&dir, "pagerank", &params)
        })
        .unwrap();
    }
}

/// Out of core, a tile's pages are checked by the task that folds it, just before: a page
/// whose arcs were altered but stay in order and in their blocks, which only its checksum can
/// tell, is refused wherever it lies in the file (its first arcs, inside a chunk, its last
/// page).
#[test]
fn a_tile_page_altered_in_order_is_refused_by_its_checksum_out_of_core() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 20_000, 400_000, true);
    tile(&dir, 7);
    let edges = dir.join(vastgraph_store::manifest::files::TILE_EDGES);
    let original = std::fs::read(&edges).unwrap();
    let arcs: Vec<u32> = original
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let params = Params::default().with("max_iters", 3);
    let report = run(&dir, "pagerank", &params, Some(6 * MIB), true, 2);
    assert_eq!(report.record.extra["layout"], "tiles");
    let reads = report.record.io_requests.unwrap_or(0);
    assert!(
        reads > 2 * report.record.iterations,
        "{reads} reads: several chunks a pass"
    );
    for at in [1, arcs.len() / 2 + 1, arcs.len() - 1] {
        // The first arc from `at` on that can be one less and still follow the arc before it
        // and keep its target in its block: the arc check cannot see the change.
        let i = (at..arcs.len())
            .find(|&i| arcs[i] & 0xffff > 0 && arcs[i] - 1 > arcs[i - 1])
            .unwrap();
        let mut damaged = original.clone();
        damaged[4 * i..4 * i + 4].copy_from_slice(&(arcs[i] - 1).to_le_bytes());
        std::fs::write(&edges, &damaged).unwrap();
        let e = try_run(&dir, "pagerank", &params, Some(6 * MIB), true, 2)
            .map(drop)
            .unwrap_err();
        let e = format!("{e:#}");
        assert!(
            e.contains("tile_edges.u32") && e.contains("page checksum"),
            "arc {i}: {e}"
        );
    }
}

/// The scores of a rank variant and its stats' `tile_rounds`.
fn rank_variant(
    dir: &Path,
    algorithm: &str,
    memory: Option<u64>,
    tiles: bool,
    threads: usize,
) -> (Vec<f64>, u64) {
    let mut params = Params::default().with("tolerance", 1e-9);
    if algorithm == "personalized-pagerank" {
        params.set("sources", vec![0u64, 7, 19]);
    }
    let report = run(dir, algorithm, &params, memory, tiles, threads);
    let rounds = report.record.extra["tile_rounds"].as_u64().unwrap();
    match report.values {
        Some(Values::F64(scores)) => (scores, rounds),
        _ => panic!("{algorithm} gives f64 scores"),
    }
}

#[test]
fn delta_and_personalized_pagerank_over_tiles_give_the_lists_scores() {
    let tmp = tempfile::tempdir().unwrap();
    for symmetric in [true, false] {
        let dir = tmp.path().join(format!("g-{symmetric}"));
        build(&dir, 20_000, 400_000, symmetric);
        let lists: Vec<_> = ["delta-pagerank", "personalized-pagerank"]
            .map(|a| rank_variant(&dir, a, None, true, 2))
            .into();
        tile(&dir, 7);
        for (algorithm, (lists, rounds)) in ["delta-pagerank", "personalized-pagerank"]
            .into_iter()
            .zip(lists)
        {
            assert_eq!(rounds, 0, "{algorithm}: no tiles yet");
            let (tiled, rounds) = rank_variant(&dir, algorithm, None, true, 2);
            assert!(rounds > 0, "{algorithm}: its dense rounds read the tiles");
            assert_eq!(tiled, lists, "{algorithm}: fixed-point sums, in any order");
            assert_eq!(rank_variant(&dir, algorithm, None, true, 1).0, lists);
            let (ooc, ooc_rounds) = rank_variant(&dir, algorithm, Some(6 * MIB), true, 2);
            assert_eq!(ooc_rounds, rounds, "{algorithm}: the same rounds on tiles");
            assert_eq!(ooc, lists, "{algorithm}: streamed tiles");
            let (ooc_lists, none) = rank_variant(&dir, algorithm, Some(6 * MIB), false, 2);
            assert_eq!((ooc_lists, none), (lists.clone(), 0));
        }
    }
}

#[test]
fn label_propagation_over_tiles_gives_the_lists_labels() {
    let tmp = tempfile::tempdir().unwrap();
    for symmetric in [true, false] {
        let dir = tmp.path().join(format!("g-{symmetric}"));
        // Labels of a quarter of the last-level cache: enough for the kernel to read the tiles.
        // The cache is taken as 4 MiB, whatever sysfs says (a virtual machine may report a
        // host's 300 MiB, which would make n 20M), so that n is 2^18: the other tests' results
        // do not depend on it (it picks a layout or a default tile side, not a result).
        vastgraph_engine::tiles::set_last_level_cache_bytes(4 << 20);
        let n = vastgraph_engine::tiles::last_level_cache_bytes() / 16 + 64;
        build_with(&dir, n as u32, 3 * n, symmetric, !symmetric);
        let params = Params::default().with("max_iters", 8);
        let labels = |threads: usize| {
            let report = run(&dir, "label-propagation", &params, None, true, threads);
            let layout = report.record.extra["layout"].as_str().unwrap().to_string();
            match report.values {
                Some(Values::U32(labels)) => (labels, layout),
                _ => panic!("label-propagation gives u32 labels"),
            }
        };
        let (lists, layout) = labels(2);
        assert_eq!(layout, "lists");
        tile(&dir, 12);
        let (tiled, layout) = labels(2);
        assert_eq!(layout, "tiles");
        assert_eq!(tiled, lists, "symmetric: {symmetric}");
        assert_eq!(labels(1).0, lists);
    }
}

#[test]
fn tiled_pagerank_resumed_from_a_checkpoint_gives_the_uninterrupted_scores() {
    use std::sync::Arc;
    use vastgraph_algos::checkpoint::{store_fingerprint, Checkpoint, CheckpointOptions, Every};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 3_000, 40_000, true);
    tile(&dir, 6);
    let (whole, layout) = pagerank(&dir, None, true, 2);
    assert_eq!(layout, "tiles");
    let saves = tmp.path().join("checkpoint");
    let run = |resume: bool, stop_after: Option<u64>| {
        let options = CheckpointOptions {
            every: Every::Iterations(1),
            resume,
            stop_after,
        };
        let checkpoint = Checkpoint::open(&saves, &store_fingerprint(&dir).unwrap(), options);
        let mut params = Params::default()
            .with("max_iters", 30)
            .with("tolerance", 0.0);
        params.checkpoint = Some(Arc::new(checkpoint.unwrap()));
        harness::run(Request::new(&dir, "pagerank", &params))
    };
    assert!(run(false, Some(7)).is_err(), "stopped after iteration 7");
    let resumed = run(true, None).unwrap();
    match resumed.values {
        Some(Values::F64(scores)) => assert_eq!(scores, whole),
        _ => panic!("pagerank gives f64 scores"),
    }
}

#[test]
fn tiles_of_inactive_sources_are_skipped_with_the_lists_scores() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    // Two components, each a ring with chords: 0..256 (rows 0-3 of 64 vertices) and 256..1024.
    // Personalised PageRank from 0 never reaches the second: its rows stay zero.
    let mut builder = StoreBuilder::create(
        &dir,
        BuildOptions {
            symmetrize: true,
            memory_bytes: 64 * MIB,
            ..Default::default()
        },
    )
    .unwrap();
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    for (first, len) in [(0u32, 256u32), (256, 768)] {
        for i in 0..len {
            for step in [1, 7, 31] {
                src.push(first + i);
                dst.push(first + (i + step) % len);
            }
        }
    }
    builder.push_batch(&src, &dst, None).unwrap();
    builder.finish().unwrap();
    let params = Params::default()
        .with("tolerance", 1e-9)
        .with("sources", vec![0u64]);
    let scores = |memory, tiles| {
        let report = run(&dir, "personalized-pagerank", &params, memory, tiles, 2);
        let extra = &report.record.extra;
        let counts = [&extra["tile_rounds"], &extra["tile_arcs_skipped"]].map(|c| c.as_u64());
        match report.values {
            Some(Values::F64(scores)) => (scores, counts.map(Option::unwrap)),
            _ => panic!("personalized-pagerank gives f64 scores"),
        }
    };
    let (lists, _) = scores(None, true);
    tile(&dir, 6);
    for memory in [None, Some(6 * MIB)] {
        let (tiled, [rounds, skipped]) = scores(memory, true);
        assert!(rounds > 0, "its dense rounds read the tiles");
        // Each round over tiles skips at least the second component's 4608 arcs (768 × 6).
        assert!(
            skipped >= 4608 * rounds,
            "{skipped} arcs skipped in {rounds} rounds"
        );
        assert_eq!(tiled, lists, "memory {memory:?}");
        assert!(tiled[256..].iter().all(|&s| s == 0.0));
    }
}

/// A directed store without a transpose has its in-arcs in its tiles alone: label-propagation
/// reads them there, small as the graph is, with the labels of the same graph's transpose.
#[test]
fn label_propagation_on_a_directed_store_reads_in_arcs_from_tiles_without_a_transpose() {
    let tmp = tempfile::tempdir().unwrap();
    let (with, without) = (tmp.path().join("transpose"), tmp.path().join("tiles"));
    build_with(&with, 5000, 20_000, false, true);
    build_with(&without, 5000, 20_000, false, false);
    let params = Params::default().with("max_iters", 6);
    let labels = |dir: &Path| -> anyhow::Result<(Vec<u32>, String)> {
        let report = try_run(dir, "label-propagation", &params, None, true, 2)?;
        let layout = report.record.extra["layout"].as_str().unwrap().to_string();
        match report.values {
            Some(Values::U32(labels)) => Ok((labels, layout)),
            _ => panic!("label-propagation gives u32 labels"),
        }
    };
    let (lists, layout) = labels(&with).unwrap();
    assert_eq!(layout, "lists");
    // Out of core without tiles, no budget serves but one that runs in memory on the
    // transpose: the refusal names it, and it runs, with the same labels.
    let within =
        |dir: &Path, memory| try_run(dir, "label-propagation", &params, Some(memory), true, 2);
    let refused = within(&with, MIB).err().expect("refused").to_string();
    assert!(
        refused.contains("add them with `vastgraph tile STORE`"),
        "{refused}"
    );
    assert!(
        refused.contains("or run in memory on the store's transpose: the minimum is --memory"),
        "{refused}"
    );
    let named: u64 = refused
        .rsplit_once('(')
        .and_then(|(_, t)| t.split_whitespace().next()?.parse().ok())
        .expect(&refused);
    match within(&with, named).unwrap().values {
        Some(Values::U32(labels)) => assert_eq!(labels, lists),
        _ => panic!("label-propagation gives u32 labels"),
    }
    let again = within(&with, named - 1).err().expect("refused");
    assert_eq!(again.to_string(), refused);
    let refused = labels(&without).unwrap_err().to_string();
    assert!(
        refused.contains("--transpose") && refused.contains("vastgraph tile STORE"),
        "{refused}"
    );
    tile(&without, 10);
    let (tiled, layout) = labels(&without).unwrap();
    assert_eq!((tiled, layout.as_str()), (lists, "tiles"));
}

#[test]
fn label_propagation_out_of_core_gathers_from_the_tiles_with_the_lists_labels() {
    let tmp = tempfile::tempdir().unwrap();
    let params = Params::default().with("max_iters", 3);
    for symmetric in [true, false] {
        // 2^17 vertices and 8M random arcs, and a column of 6 MiB of arcs, which spans several
        // chunks: 24,576 vertices link to each of the vertices 0..64, in column 0 (2^8 wide).
        let dir = tmp.path().join(format!("g-{symmetric}"));
        let mut builder = StoreBuilder::create(
            &dir,
            BuildOptions {
                symmetrize: symmetric,
                transpose: !symmetric,
                memory_bytes: 64 * MIB,
                ..Default::default()
            },
        )
        .unwrap();
        let mut rng = vastgraph_store::synthetic::SplitMix64::new(5);
        let (mut src, mut dst): (Vec<u32>, Vec<u32>) = (0..8_000_000)
            .map(|_| (rng.below(1 << 17), rng.below(1 << 17)))
            .unzip();
        src.extend((0..24_576u32).flat_map(|u| [u + 64; 64]));
        dst.extend((0..24_576u32).flat_map(|_| 0..64u32));
        builder.push_batch(&src, &dst, None).unwrap();
        builder.finish().unwrap();
        let labels = |memory, tiles, threads| {
            let report = try_run(&dir, "label-propagation", &params, memory, tiles, threads)?;
            let layout = report.record.extra["layout"].as_str().unwrap().to_string();
            // Reads a round: more than one when a round's pass takes several chunks.
            let rounds = report.record.iterations.max(1);
            let reads = report.record.io_requests.unwrap_or(0) as f64 / rounds as f64;
            // Out of core, with the tiles left unread: the least budget that streams them.
            let io = report.record.out_of_core.as_ref();
            let tiles_budget = io.and_then(|io| io["tiles_budget"].as_u64());
            match report.values {
                Some(Values::U32(labels)) => anyhow::Ok((labels, layout, reads, tiles_budget)),
                _ => panic!("label-propagation gives u32 labels"),
            }
        };
        let (lists, ..) = labels(None, true, 2).unwrap();
        tile(&dir, 8);
        // The smallest budget that gathers from the tiles (their 6 MiB column needs about
        // 30 MiB): the chunks are then the smallest, about 1 MiB, so the column spans several.
        let memory = match symmetric {
            // Out of core the lists give no in-arcs of a directed graph: a budget without room
            // for the tiles is refused before the run, naming the least with it. That one
            // streams them, and a byte less is refused.
            false => {
                let e = format!("{}", labels(Some(1), true, 2).unwrap_err());
                assert!(e.contains("the tiles' index, chunks and buffers"), "{e}");
                let named = e.split(" bytes)").next().and_then(|t| t.rsplit('(').next());
                let named: u64 = named.and_then(|b| b.parse().ok()).expect(&e);
                assert_eq!(labels(Some(named), true, 2).unwrap().1, "tiles");
                let again = format!("{}", labels(Some(named - 1), true, 2).unwrap_err());
                assert!(again.contains(&format!("({named} bytes)")), "{again}");
                named
            }
            // A budget too small for them reads the lists, with the same labels, and its
            // record names the least that streams them; a byte less reads the lists.
            true => {
                let run = |memory| {
                    let (ooc, layout, _, tiles_budget) = labels(Some(memory), true, 2).unwrap();
                    (layout, tiles_budget, ooc == lists)
                };
                let (layout, named, same) = run(24 * MIB);
                assert_eq!((layout.as_str(), same), ("lists", true));
                let named = named.expect("the record names the least budget for the tiles");
                // Past about 80 MiB the whole graph fits, and runs in memory.
                assert!(named < 72 * MIB, "{named}");
                assert_eq!(run(named).0, "tiles");
                assert_eq!(run(named - 1), ("lists".to_string(), Some(named), true));
                named
            }
        };
        for threads in [1, 2] {
            let (ooc, layout, reads, _) = labels(Some(memory), true, threads).unwrap();
            assert_eq!(layout, "tiles");
            // On 2 threads (the loop's), chunks of at most 2 MiB: more reads than the tiles'
            // MiB over 2. One thread's gather takes less, and leaves room for larger chunks.
            let bytes = std::fs::metadata(dir.join(vastgraph_store::manifest::files::TILE_EDGES))
                .unwrap()
                .len();
            let least = if threads == 2 {
                bytes as f64 / (2 * MIB) as f64
            } else {
                4.0
            };
            assert!(reads > least, "{reads} reads a round on {threads} threads");
            assert_eq!(ooc, lists, "symmetric {symmetric}, {threads} threads");
        }
        if !symmetric {
            // Where the tiles fit, a run told not to read them is refused the same way.
            let e = labels(Some(memory), false, 2).unwrap_err();
            assert!(format!("{e}").contains("leave out --no-tiles"), "{e}");
        }
    }
}
