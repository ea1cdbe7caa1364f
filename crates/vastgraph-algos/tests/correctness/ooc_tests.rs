//! Out-of-core kernels give the in-memory registry's results, in every I/O mode, with reentry on
//! and off, through io_uring and the pread fallback, on small stores read with a tiny budget
//! and small buffers so that long lists are split and many requests are in flight.

use std::path::{Path, PathBuf};

use vastgraph_algos::budget;
use vastgraph_algos::registry::{self, Params, Values};
use vastgraph_engine::ooc::{
    long_list_reserve, page_sums_reserve, BackendChoice, DeviceProfile, IoMode, MemoryPlan,
    OocGraph, OocOptions, PoolShape, Reserved, ScanSpec, FIRST_NEIGHBORS_MODE,
    FIRST_NEIGHBORS_SAMPLE_MODE, LIST_HEADS_MODE, MAX_CACHED_ARCS, SIDE_FILE_MODES,
};
use vastgraph_store::{BuildOptions, Codec, Store, StoreBuilder};

const MIB: u64 = 1 << 20;
/// Small buffers: a list of more than 4096 arcs spans several pieces.
const BUFFER: usize = 16 << 10;
/// A fixed device for the cost model (no calibration in tests, nothing cached).
const PROFILE: DeviceProfile = DeviceProfile {
    sequential_bytes_per_second: 2e9,
    random_reads_per_second: 2e5,
};

/// Random edges with a few hubs of degree well above a buffer's 4096 arcs, plus isolated
/// vertices and a separate small component.
fn edges(n: u32, m: usize, seed: u64) -> Vec<(u32, u32, f64)> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let live = n - 100;
    let mut out: Vec<(u32, u32, f64)> = (0..m)
        .map(|i| {
            let u = if i % 4 == 0 {
                (next() % 3) as u32
            } else {
                (next() % live as u64) as u32
            };
            let v = (next() % live as u64) as u32;
            (u, v, (1 + next() % 20) as f64)
        })
        .collect();
    // A path among the last 100 vertices except the final 10 (isolated).
    out.extend((live..n - 11).map(|v| (v, v + 1, 3.0)));
    out
}

fn build(dir: &Path, n: u32, symmetric: bool, weighted: bool, seed: u64) {
    build_from(
        dir,
        &edges(n, 60_000, seed),
        symmetric,
        weighted,
        Codec::Raw,
    );
}

fn build_from(dir: &Path, list: &[(u32, u32, f64)], symmetric: bool, weighted: bool, codec: Codec) {
    let mut builder = StoreBuilder::create(
        dir,
        BuildOptions {
            symmetrize: symmetric,
            weighted,
            memory_bytes: 64 * MIB,
            codec,
            ..Default::default()
        },
    )
    .unwrap();
    let src: Vec<u32> = list.iter().map(|e| e.0).collect();
    let dst: Vec<u32> = list.iter().map(|e| e.1).collect();
    let w: Vec<f64> = list.iter().map(|e| e.2).collect();
    builder
        .push_batch(&src, &dst, weighted.then_some(&w[..]))
        .unwrap();
    builder.finish().unwrap();
}

/// The options of a default run (adaptive, MRT 5), with the tests' device profile.
fn adaptive_options() -> OocOptions {
    OocOptions {
        mode: IoMode::Adaptive,
        max_reentries: 5,
        backend: BackendChoice::Auto,
        direct: true,
        profile: Some(PROFILE),
        recalibrate: false,
        random_access: false,
        tiles: false,
        gather_tiles: false,
    }
}

fn open(dir: &Path, algorithm: &str, mode: IoMode, mrt: u32, backend: BackendChoice) -> OocGraph {
    try_open(dir, algorithm, mode, mrt, backend, true).unwrap()
}

/// Opens `dir` for `algorithm` within a 5 MiB budget of small buffers; `cache` false leaves the
/// cache of short lists no room.
fn try_open(
    dir: &Path,
    algorithm: &str,
    mode: IoMode,
    mrt: u32,
    backend: BackendChoice,
    cache: bool,
) -> anyhow::Result<OocGraph> {
    try_open_within(dir, algorithm, mode, mrt, backend, cache, 5 * MIB)
}

/// [`try_open`] within `budget` bytes.
fn try_open_within(
    dir: &Path,
    algorithm: &str,
    mode: IoMode,
    mrt: u32,
    backend: BackendChoice,
    cache: bool,
    budget: u64,
) -> anyhow::Result<OocGraph> {
    let manifest = OocGraph::manifest_of(dir).unwrap();
    let n = manifest.vertices;
    let state = budget::state_bytes(algorithm, n, &Params::default()).unwrap();
    let files = 1 + usize::from(budget::reads_weights(algorithm) && manifest.weighted);
    let offsets = budget::offsets_bytes(&manifest);
    let mut plan = MemoryPlan::new(
        budget,
        offsets,
        files,
        state,
        Reserved {
            page_sums: page_sums_reserve(&manifest, files == 2, false),
            ..Default::default()
        },
        PoolShape::Given {
            buffer: BUFFER,
            depth: 8,
        },
    )
    .unwrap();
    if !cache {
        plan.cache_bytes = 0;
    }
    OocGraph::open(
        dir,
        plan,
        OocOptions {
            mode,
            max_reentries: mrt,
            backend,
            direct: true,
            profile: Some(PROFILE),
            recalibrate: false,
            random_access: false,
            tiles: false,
            gather_tiles: false,
        },
    )
}

fn in_memory(dir: &Path, algorithm: &str, params: &Params) -> Values {
    let store = Store::open(dir).unwrap();
    registry::run_on_store(&store, algorithm, &params.only_for(algorithm), true)
        .unwrap()
        .values
        .unwrap()
}

fn out_of_core(g: &OocGraph, algorithm: &str, params: &Params) -> (Values, serde_json::Value) {
    let out = budget::run(algorithm, g, &params.only_for(algorithm), true).unwrap();
    (out.output.values.unwrap(), out.io)
}

fn assert_same(a: &Values, b: &Values, what: &str) {
    match (a, b) {
        (Values::I64(a), Values::I64(b)) => assert!(a == b, "{what}: values differ"),
        (Values::U32(a), Values::U32(b)) => assert!(a == b, "{what}: values differ"),
        (Values::U8(a), Values::U8(b)) => assert!(a == b, "{what}: values differ"),
        (Values::U64(a), Values::U64(b)) => assert!(a == b, "{what}: values differ"),
        (Values::Rows { data: a, cols: x }, Values::Rows { data: b, cols: y }) => {
            assert!(a == b && x == y, "{what}: rows differ")
        }
        (Values::F64(a), Values::F64(b)) => {
            let worst = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max);
            assert!(
                a.len() == b.len() && worst <= 1e-12,
                "{what}: differ by {worst}"
            );
        }
        _ => panic!("{what}: different kinds of values"),
    }
}

const MODES: [IoMode; 3] = [IoMode::Adaptive, IoMode::Selective, IoMode::Streaming];

#[test]
fn bfs_matches_in_memory_in_every_mode_with_and_without_reentry() {
    let tmp = tempfile::tempdir().unwrap();
    for (symmetric, seed) in [(true, 1), (false, 2)] {
        let dir = tmp.path().join(format!("g{seed}"));
        build(&dir, 20_000, symmetric, false, seed);
        for parents in [false, true] {
            // Source 0 is a hub; 19_900 starts the separate path.
            for source in [0, 19_900] {
                let params = Params::default()
                    .with("source", source)
                    .with("parents", parents);
                let want = in_memory(&dir, "bfs", &params);
                for mode in MODES {
                    for mrt in [0, 5] {
                        let g = open(&dir, "bfs", mode, mrt, BackendChoice::Auto);
                        let out = budget::run("bfs", &g, &params, true).unwrap();
                        let (got, io) = (out.output.values.unwrap(), out.io);
                        let what = format!(
                            "bfs sym={symmetric} src={source} parents={parents} {mode:?} mrt={mrt}"
                        );
                        assert_same(&want, &got, &what);
                        // The search counts what it reaches (and, without parents, how deep)
                        // as the values show it.
                        let Values::I64(values) = &want else {
                            panic!("{what}: bfs gives integers")
                        };
                        let extra = &out.output.stats.extra;
                        let reached = values.iter().filter(|&&x| x >= 0).count() as u64;
                        assert_eq!(extra["reached"].as_u64(), Some(reached), "{what}");
                        if !parents {
                            let deepest = values.iter().copied().max();
                            assert_eq!(extra["max_depth"].as_i64(), deepest, "{what}");
                        }
                        // From the hub, the dense levels of a symmetric graph are pulled.
                        let pulls = out.output.stats.extra.get("pull_steps");
                        let pulls = pulls.and_then(|p| p.as_u64()).unwrap_or(0);
                        assert_eq!(pulls > 0, symmetric && source == 0, "{what}: {pulls} pulls");
                        let modes = io["iteration_modes"].as_array().unwrap();
                        // The side file of first neighbours is read by the first pull only.
                        let firsts = modes.iter().filter(|&m| m == FIRST_NEIGHBORS_MODE).count();
                        assert_eq!(firsts, usize::from(pulls > 0), "{what}: {modes:?}");
                        // The lists the label-correcting queue reads one at a time ("random")
                        // are neither.
                        let lists = modes
                            .iter()
                            .filter(|&m| !SIDE_FILE_MODES.iter().any(|&s| m == s) && m != "random");
                        if mode != IoMode::Adaptive {
                            assert!(lists.clone().all(|m| m == mode.name()), "{what}: {modes:?}");
                        }
                        // The cost model estimates a mode only where it may run.
                        for record in io["iterations"].as_array().unwrap() {
                            if SIDE_FILE_MODES.iter().any(|&m| record["mode"] == m)
                                || record["mode"] == "random"
                            {
                                continue;
                            }
                            for m in [IoMode::Selective, IoMode::Streaming] {
                                let estimated = record[m.name()]["seconds"].is_f64();
                                let may_run = mode == IoMode::Adaptive || mode == m;
                                assert_eq!(estimated, may_run, "{what}: {m:?} in {record}");
                            }
                        }
                        assert!(io["bytes_read"].as_u64().unwrap() > 0);
                    }
                }
            }
        }
    }
}

/// Frontiers wider than the label-correcting queue's bound are read in passes, and reentry
/// carries a search on through the levels that lie in a loaded chunk: 100 paths of 90 vertices
/// side by side from one source, numbered level by level backwards, so every level is the 100
/// ids before the last one's (a pass that goes on in file order would meet each next level
/// only in the pass after). A frontier of one vertex (a path's) is crossed by the queue in one
/// run instead.
#[test]
fn reentry_needs_fewer_streaming_passes() {
    let tmp = tempfile::tempdir().unwrap();
    let (width, length) = (100u32, 90u32);
    let at = |level: u32, path: u32| 1 + (length - level) * width + path;
    let mut list: Vec<(u32, u32, f64)> = (0..width).map(|p| (0, at(1, p), 1.0)).collect();
    for level in 1..length {
        list.extend((0..width).map(|p| (at(level, p), at(level + 1, p), 1.0)));
    }
    // Directed: label-correcting from the start. Symmetric: level-synchronous (push/pull, no
    // reentry) for 16 levels, then label-correcting from the last level.
    for symmetric in [false, true] {
        let dir = tmp.path().join(format!("paths-{symmetric}"));
        build_from(&dir, &list, symmetric, false, Codec::Raw);
        let params = Params::default().with("source", 0);
        let run = |mrt| {
            let g = open(&dir, "bfs", IoMode::Streaming, mrt, BackendChoice::Auto);
            budget::run("bfs", &g, &params, true).unwrap().output.stats
        };
        let (without, with) = (run(0), run(5));
        let what = format!("symmetric={symmetric}");
        assert!(
            with.iterations < without.iterations,
            "{what}: reentry: {} passes, without: {}",
            with.iterations,
            without.iterations
        );
        let levels = with.extra["max_depth"].as_u64().unwrap();
        assert_eq!(levels, u64::from(length), "{what}");
        assert!(
            with.iterations < levels,
            "{what}: {} passes",
            with.iterations
        );
        if symmetric {
            let correcting = with.extra["label_correcting_passes"].as_u64().unwrap();
            assert!(correcting > 0, "{what}: never went on label-correcting");
        }
    }
    // One path: the queue crosses it in one run, with or without reentry.
    let dir = tmp.path().join("path");
    let path: Vec<(u32, u32, f64)> = (0..length).map(|v| (v, v + 1, 1.0)).collect();
    build_from(&dir, &path, false, false, Codec::Raw);
    let g = open(&dir, "bfs", IoMode::Streaming, 0, BackendChoice::Auto);
    let params = Params::default().with("source", 0);
    let stats = budget::run("bfs", &g, &params, true).unwrap().output.stats;
    assert_eq!(stats.iterations, 1, "a path of {length} levels");
}

/// A grid's vertices mostly have two neighbours one level closer, so the label-correcting
/// passes a long symmetric search turns to after 16 levels must keep the smallest parent among
/// offers that arrive in any order, as the level-synchronous in-memory search does.
#[test]
fn a_long_symmetric_bfs_keeps_the_smallest_parents_after_turning_label_correcting() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("grid");
    let side = 80u32;
    let mut list = Vec::new();
    for r in 0..side {
        for c in 0..side {
            let v = r * side + c;
            if c + 1 < side {
                list.push((v, v + 1, 1.0));
            }
            if r + 1 < side {
                list.push((v, v + side, 1.0));
            }
        }
    }
    build_from(&dir, &list, true, false, Codec::Raw);
    // From a corner and from the middle of an edge.
    for source in [0, side / 2] {
        let params = Params::default()
            .with("source", source)
            .with("parents", true);
        let want = in_memory(&dir, "bfs", &params);
        for mode in MODES {
            for mrt in [0, 5] {
                let g = open(&dir, "bfs", mode, mrt, BackendChoice::Auto);
                let out = budget::run("bfs", &g, &params, true).unwrap();
                let what = format!("src={source} {mode:?} mrt={mrt}");
                assert_same(&want, out.output.values.as_ref().unwrap(), &what);
                let correcting = out.output.stats.extra["label_correcting_passes"].as_u64();
                assert!(correcting.unwrap() > 0, "{what}");
            }
        }
    }
}

/// Lists read by two selective passes are cached and served from memory afterwards: the same
/// distances (bfs; sssp, whose weights come from the cache too). bfs's passes do not depend on
/// thread timing, so there the cache must save reads, and a second run on the same graph,
/// starting cold again, must read exactly as much.
#[test]
fn short_lists_seen_twice_are_served_from_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 20_000, true, true, 8);
    let params = Params::default().with("source", 0);
    for algorithm in ["bfs", "sssp"] {
        let want = in_memory(&dir, algorithm, &params);
        let run = |cache: bool| {
            let g = try_open(
                &dir,
                algorithm,
                IoMode::Selective,
                5,
                BackendChoice::Auto,
                cache,
            )
            .unwrap();
            let (got, io) = out_of_core(&g, algorithm, &params);
            assert_same(&want, &got, &format!("{algorithm} cache={cache}"));
            if algorithm == "bfs" {
                let (_, io_again) = out_of_core(&g, algorithm, &params);
                assert_eq!(io["bytes_read"], io_again["bytes_read"], "runs start cold");
            }
            assert!(g.cache_bytes() <= g.plan().cache_bytes);
            io
        };
        let (with, without) = (run(true), run(false));
        let cached = with["cached_bytes"].as_u64().unwrap();
        assert!(cached > 0, "{algorithm}: nothing served from the cache");
        assert_eq!(without["cached_bytes"].as_u64().unwrap(), 0);
        if algorithm == "bfs" {
            assert!(
                with["bytes_read"].as_u64().unwrap() < without["bytes_read"].as_u64().unwrap(),
                "the cache saved no reads"
            );
        }
    }
}

/// A list the algorithm says will be active again is cached at its first sight, and the next
/// pass serves it from memory unchanged; without that verdict the first sight only marks it.
#[test]
fn lists_active_again_are_cached_at_first_sight() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 20_000, true, false, 6);
    let n = OocGraph::manifest_of(&dir).unwrap().vertices as usize;
    let mut active = vastgraph_engine::Bitmap::new(n);
    (0..n).step_by(3).for_each(|v| active.set(v));
    let again = |v: u32| v.is_multiple_of(2);
    let lists = |g: &OocGraph, spec: &ScanSpec<'_>| {
        let got = std::sync::Mutex::new(Vec::new());
        let record = g
            .scan(spec, |v, ids, _| {
                got.lock().unwrap().push((v, ids.to_vec()))
            })
            .unwrap();
        let mut got = got.into_inner().unwrap();
        got.sort();
        (got, record)
    };
    for first_sight in [true, false] {
        let g = open(&dir, "bfs", IoMode::Selective, 0, BackendChoice::Auto);
        let spec = ScanSpec {
            again: first_sight.then_some(&again as &(dyn Fn(u32) -> bool + Sync)),
            ..ScanSpec::new(&active)
        };
        let (first, _) = lists(&g, &spec);
        let (second, record) = lists(&g, &ScanSpec::new(&active));
        assert_eq!(first, second, "the cache serves the lists that were read");
        let short_even = first
            .iter()
            .filter(|(v, ids)| again(*v) && !ids.is_empty() && ids.len() <= MAX_CACHED_ARCS)
            .count() as u64;
        assert!(short_even > 1000);
        let want = if first_sight { short_even } else { 0 };
        assert_eq!(record.cached_vertices, want, "first_sight={first_sight}");
    }
}

/// With a prefetch hook, a pass over every list prefetches each id before it is visited, up
/// to 256 ids ahead and across lists, and hands long lists over in pieces of at most 256 ids
/// that still add up to the lists.
#[test]
fn a_prefetching_scan_prefetches_each_id_before_visiting_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 20_000, true, false, 7);
    let store = Store::open(&dir).unwrap();
    let n = store.num_vertices();
    let g = open(&dir, "pagerank", IoMode::Streaming, 0, BackendChoice::Auto);
    let all = {
        let mut all = vastgraph_engine::Bitmap::new(n);
        (0..n).for_each(|v| all.set(v));
        all
    };
    enum Event {
        Prefetched(Vec<u32>),
        Visited(u32, Vec<u32>),
    }
    let events = std::sync::Mutex::new(Vec::new());
    let prefetch = |ids: &[u32]| events.lock().unwrap().push(Event::Prefetched(ids.to_vec()));
    let spec = ScanSpec {
        // One thread, pieces in file order: the events are in the order they happened.
        ordered: true,
        prefetch: Some(&prefetch),
        ..ScanSpec::new(&all)
    };
    g.scan(&spec, |v, ids, _| {
        events.lock().unwrap().push(Event::Visited(v, ids.to_vec()))
    })
    .unwrap();
    let (mut prefetched, mut visited) = (Vec::new(), Vec::new());
    let mut lists = vec![Vec::new(); n];
    let (mut longest_piece, mut visits, mut full_lookahead) = (0, 0, 0);
    for event in events.into_inner().unwrap() {
        match event {
            Event::Prefetched(ids) => prefetched.extend(ids),
            Event::Visited(v, ids) => {
                visited.extend_from_slice(&ids);
                assert!(
                    prefetched.len() >= visited.len(),
                    "vertex {v}: ids visited before they were prefetched"
                );
                let ahead = prefetched.len() - visited.len();
                assert!(ahead <= 256, "vertex {v}: {ahead} ids prefetched ahead");
                visits += 1;
                full_lookahead += usize::from(ahead == 256);
                longest_piece = longest_piece.max(ids.len());
                lists[v as usize].extend(ids);
            }
        }
    }
    // Each id once, in file order.
    assert_eq!(prefetched, visited);
    // Lists after the one visited are prefetched too: most lists are short, and all but those
    // near a piece's end are visited with 256 ids prefetched past them.
    assert!(
        full_lookahead * 10 > visits * 9,
        "{full_lookahead} of {visits} visits had 256 ids prefetched ahead"
    );
    assert_eq!(longest_piece, 256);
    let (offsets, neighbors) = (store.offsets(), store.neighbors());
    let list_of = |v: usize| &neighbors[offsets[v] as usize..offsets[v + 1] as usize];
    assert!(
        (0..n).any(|v| list_of(v).len() > 4096),
        "no list spans pieces"
    );
    for (v, list) in lists.iter().enumerate() {
        assert_eq!(list, list_of(v), "vertex {v}");
    }
}

#[test]
fn selective_reads_only_pages_of_active_vertices() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 20_000, true, false, 4);
    let g = open(&dir, "bfs", IoMode::Selective, 0, BackendChoice::Auto);
    let source = 19_950u32;
    let params = Params::default().with("source", source as u64);
    let (_, io) = out_of_core(&g, "bfs", &params);
    let first = &io["iterations"][0];
    let offsets = g.offsets();
    let (a, b) = (
        offsets[source as usize] * 4,
        offsets[source as usize + 1] * 4,
    );
    // Whole pages, except that the file may end inside the last one.
    let pages = b.next_multiple_of(4096).min(g.num_arcs() * 4) - a / 4096 * 4096;
    assert_eq!(first["bytes_read"].as_u64().unwrap(), pages);
    assert_eq!(first["requests"].as_u64().unwrap(), 1);
    assert!(io["io_amplification"].as_f64().unwrap() >= 1.0);
}

/// The fixed selective mode reads only the active lists' pages; adaptive also merges the gaps
/// the cost model finds cheaper to read than to skip. Level for level (a symmetric bfs is
/// level-synchronous, so both modes read the same sets; no cache), every selective plan of
/// adaptive's issues no more requests and reads no fewer bytes, some strictly fewer
/// requests, and the answers are the same.
#[test]
fn adaptive_merges_gaps_the_fixed_selective_mode_leaves() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 20_000, true, false, 41);
    let params = Params::default().with("source", 5);
    let run = |mode| {
        let g = try_open(&dir, "bfs", mode, 0, BackendChoice::Auto, false).unwrap();
        out_of_core(&g, "bfs", &params)
    };
    let ((adaptive, a), (selective, s)) = (run(IoMode::Adaptive), run(IoMode::Selective));
    assert_same(&adaptive, &selective, "bfs adaptive against selective");
    let (a, s) = (
        a["iterations"].as_array().unwrap(),
        s["iterations"].as_array().unwrap(),
    );
    assert_eq!(a.len(), s.len(), "the same passes");
    let mut fewer = 0;
    for (i, (a, s)) in a.iter().zip(s).enumerate() {
        assert_eq!(a["active_vertices"], s["active_vertices"], "pass {i}");
        if a["mode"] != "selective" {
            continue;
        }
        let get = |r: &serde_json::Value, what: &str| r[what].as_u64().unwrap();
        assert!(
            get(a, "requests") <= get(s, "requests"),
            "pass {i}: {a} against {s}"
        );
        assert!(
            get(a, "bytes_read") >= get(s, "bytes_read"),
            "pass {i}: {a} against {s}"
        );
        fewer += usize::from(get(a, "requests") < get(s, "requests"));
    }
    assert!(fewer > 0, "no pass merged a gap: {a:?}");
}

#[test]
fn cc_pagerank_sssp_match_in_memory() {
    let tmp = tempfile::tempdir().unwrap();
    for (symmetric, seed) in [(true, 5), (false, 6)] {
        let dir = tmp.path().join(format!("g{seed}"));
        build(&dir, 20_000, symmetric, true, seed);
        let params = Params::default().with("source", 0).with("tolerance", 1e-10);
        for algorithm in ["cc", "pagerank", "sssp"] {
            let want = in_memory(&dir, algorithm, &params);
            for mode in MODES {
                let g = open(&dir, algorithm, mode, 5, BackendChoice::Auto);
                let (got, _) = out_of_core(&g, algorithm, &params);
                assert_same(
                    &want,
                    &got,
                    &format!("{algorithm} sym={symmetric} {mode:?}"),
                );
            }
        }
    }
}

/// A reachable arc of negative weight is refused by name out of core, as in memory: a path
/// 0 -> 1 -> 2 -> 3 whose one negative arc is 2 -> 3.
#[test]
fn sssp_out_of_core_names_the_negative_arc_it_reaches() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("path");
    let path = [(0, 1, 1.0), (1, 2, 2.0), (2, 3, -4.0)];
    build_from(&dir, &path, false, true, Codec::Raw);
    let params = Params::default().with("source", 0);
    let store = Store::open(&dir).unwrap();
    let in_memory = registry::run_on_store(&store, "sssp", &params, false).err();
    let g = open(&dir, "sssp", IoMode::Adaptive, 5, BackendChoice::Auto);
    let out_of_core = budget::run("sssp", &g, &params, false).err();
    for refused in [in_memory, out_of_core] {
        let message = refused.expect("refused").to_string();
        assert!(message.contains("arc 2 -> 3 has weight -4"), "{message}");
    }
    // From vertex 3 the negative arc is not reached: distances, not an error.
    let from_3 = budget::run("sssp", &g, &Params::default().with("source", 3), false);
    assert!(from_3.is_ok());
}

/// Of many negative arcs a step reaches at once, the refusal names the least by (source,
/// target), on any thread count, in memory and out of core: 0 -> i (weight 1) and i -> 4000 + i
/// (weight -1) for i in 1..=4000.
#[test]
fn sssp_names_the_same_negative_arc_on_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fan");
    let arcs: Vec<(u32, u32, f64)> = (1..=4000u32)
        .flat_map(|i| [(0, i, 1.0), (i, 4000 + i, -1.0)])
        .collect();
    build_from(&dir, &arcs, false, true, Codec::Raw);
    let params = Params::default().with("source", 0);
    let store = Store::open(&dir).unwrap();
    for threads in [1, 2, 4] {
        let (in_memory, out_of_core) = crate::support::with_threads(threads, || {
            let g = open(&dir, "sssp", IoMode::Adaptive, 5, BackendChoice::Auto);
            (
                registry::run_on_store(&store, "sssp", &params, false).err(),
                budget::run("sssp", &g, &params, false).err(),
            )
        });
        for refused in [in_memory, out_of_core] {
            let message = refused.expect("refused").to_string();
            assert!(
                message.contains("arc 1 -> 4001 has weight -1"),
                "{threads} threads: {message}"
            );
        }
    }
}

/// Every algorithm of the registry runs within a budget that does not hold the graph, on a raw
/// and a compressed store, symmetric and directed: those without a kernel of passes run their
/// in-memory kernel on lists read from disk, so each gives the in-memory result (verified on
/// the mapped store), and reads its lists rather than mapping them.
#[test]
fn every_algorithm_within_a_budget_gives_the_in_memory_result() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 20_000u32;
    let list = edges(n, 400_000, 23);
    let threads = rayon::current_num_threads() as u64;
    for (symmetric, codec) in [
        (true, Codec::Raw),
        (true, Codec::FrameOfReference64),
        (false, Codec::Raw),
    ] {
        let dir = tmp.path().join(format!("{symmetric}-{}", codec.name()));
        build_from(&dir, &list, symmetric, true, codec);
        let manifest = OocGraph::manifest_of(&dir).unwrap();
        let graph_bytes: u64 = manifest.files.iter().map(|f| f.bytes).sum();
        for info in registry::ALGORITHMS {
            let what = format!("{} on {}", info.name, dir.display());
            // --sources where an algorithm takes it (it would refuse --source beside it).
            let params = match info.param("sources") {
                Some(_) => Params::default().with("sources", vec![1, 2]),
                None => Params::default().with("source", 1),
            }
            .with("max_iters", 5);
            let store = Store::open(&dir).unwrap();
            let want = registry::run_on_store(&store, info.name, &params, true);
            // The vertex state and a little less than the graph.
            let state = match budget::state_bytes(info.name, manifest.vertices, &params) {
                Some(state) => state,
                None => info.state.bytes(manifest.vertices, manifest.arcs, threads),
            };
            let budget = state + graph_bytes - 64 * 1024;
            let fit =
                budget::open_within_budget(&dir, info.name, &params, budget, adaptive_options());
            let g = match (fit, &want) {
                (Ok(budget::BudgetFit::OutOfCore(g)), _) => g,
                (Ok(budget::BudgetFit::InMemory { .. }), _) => panic!("{what}: ran in memory"),
                // A store the algorithm refuses (directed where it needs symmetry) is refused
                // for that before a budget is planned, with the in-memory message.
                (Err(got), Err(want)) => {
                    assert_eq!(want.to_string(), got.to_string(), "{what}");
                    continue;
                }
                (Err(e), Ok(_)) => panic!("{what}: {e:#}"),
            };
            let started = std::time::Instant::now();
            let got = budget::run(info.name, &g, &params, true);
            println!(
                "{what}: {:.2} s within {budget} bytes",
                started.elapsed().as_secs_f64()
            );
            match (want, got) {
                (Ok(want), Ok(got)) => {
                    if let (Some(a), Some(b)) = (&want.values, &got.output.values) {
                        assert_same(a, b, &what);
                    }
                    assert_eq!(
                        want.stats.extra.get("triangles"),
                        got.output.stats.extra.get("triangles"),
                        "{what}"
                    );
                    assert!(got.io["bytes_read"].as_u64().unwrap() > 0, "{what}");
                }
                // A directed store refused by the algorithm is refused the same way.
                (Err(want), Err(got)) => assert_eq!(want.to_string(), got.to_string(), "{what}"),
                (want, got) => panic!(
                    "{what}: in memory {:?}, within the budget {:?}",
                    want.err().map(|e| e.to_string()),
                    got.err().map(|e| e.to_string())
                ),
            }
        }
    }
}

/// A compressed store (either codec) gives the raw in-memory results in every mode. Hub 0's
/// list (every third vertex) has codes and weights far longer than a 16 KiB buffer, so it is a
/// long piece read apart; the other hubs' weights outgrow a buffer too. kcore, coloring and
/// random-walk need each list whole: hub 0's arrives in pieces.
#[test]
fn compressed_stores_match_in_memory_with_long_lists_read_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 60_000u32;
    let mut list = edges(n, 60_000, 11);
    list.extend((1..n / 3 - 40).map(|k| (0, 3 * k, (k % 7 + 1) as f64)));
    for (symmetric, codec) in [
        (true, Codec::StreamVByte64),
        (false, Codec::ByteCode64),
        (true, Codec::FrameOfReference64),
    ] {
        let raw = tmp.path().join(format!("raw-{symmetric}-{}", codec.name()));
        let packed = tmp
            .path()
            .join(format!("packed-{symmetric}-{}", codec.name()));
        build_from(&raw, &list, symmetric, true, Codec::Raw);
        build_from(&packed, &list, symmetric, true, codec);
        let params = Params::default().with("source", 0).with("tolerance", 1e-10);
        let symmetric_only: &[&str] = if symmetric {
            &["kcore", "coloring", "spanning-forest"]
        } else {
            &[]
        };
        // Every vertex starts a walk, so that many walks step from hub 0 in the same pass.
        let walks = Params::default().with("every", 1).with("walk_length", 6);
        for &algorithm in ["bfs", "sssp", "cc", "pagerank", "widest", "random-walk"]
            .iter()
            .chain(symmetric_only)
        {
            let params = match algorithm {
                "random-walk" => &walks,
                _ => &params,
            };
            let want = in_memory(&raw, algorithm, params);
            for mode in MODES {
                let g = open(&packed, algorithm, mode, 5, BackendChoice::Auto);
                assert!(g.is_compressed());
                let what = format!("{algorithm} {codec:?} sym={symmetric} {mode:?}");
                let (got, io) = out_of_core(&g, algorithm, params);
                assert_same(&want, &got, &what);
                assert!(g.plan().long_list_bytes > 0, "{what}: no list is long");
                let needed = io["bytes_needed"].as_u64().unwrap();
                let read = io["bytes_read"].as_u64().unwrap();
                assert!(
                    needed > 0 && read >= needed,
                    "{what}: {read} read, {needed} needed"
                );
            }
        }
        // A compressed store reads fewer bytes of ids than the raw one for the same pass.
        let read = |dir: &Path| {
            let g = open(dir, "cc", IoMode::Streaming, 5, BackendChoice::Auto);
            let io = out_of_core(&g, "cc", &params).1;
            io["bytes_read"].as_u64().unwrap()
        };
        // No room left beside the pool for the long lists' buffer: refused, with the minimum.
        let opened = try_open(
            &packed,
            "bfs",
            IoMode::Adaptive,
            5,
            BackendChoice::Auto,
            false,
        );
        let message = match opened {
            Ok(_) => panic!("{codec:?}: opened without room for the long lists"),
            Err(e) => e.to_string(),
        };
        assert!(
            message.contains("longest compressed lists")
                && message.contains("the minimum is --memory"),
            "{message}"
        );
        let (packed_read, raw_read) = (read(&packed), read(&raw));
        assert!(
            packed_read < raw_read,
            "{codec:?}: {packed_read} vs {raw_read}"
        );
    }
}

/// A symmetric weighted graph of `n` vertices whose vertex 0 is a hub of about n/3 neighbours,
/// stored raw and compressed (Stream VByte) under `dir`.
fn raw_and_packed_with_a_hub(dir: &Path, n: u32, seed: u64) -> (PathBuf, PathBuf) {
    let mut list = edges(n, 60_000, seed);
    list.extend((1..n / 3 - 40).map(|k| (0, 3 * k, (k % 5 + 1) as f64)));
    let (raw, packed) = (dir.join("raw"), dir.join("packed"));
    build_from(&raw, &list, true, true, Codec::Raw);
    build_from(&packed, &list, true, true, Codec::StreamVByte64);
    (raw, packed)
}

/// The minimum in bytes a refused budget's message names ("... (N bytes)").
fn named_minimum(message: &str) -> u64 {
    message
        .rsplit_once('(')
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|bytes| bytes.parse().ok())
        .unwrap_or_else(|| panic!("no minimum in bytes: {message}"))
}

/// A budget too small for a compressed store whose hub is longer than any buffer is refused
/// before anything is read with a minimum that already counts the hub's buffer: that minimum
/// opens and runs (to the in-memory result), a byte less is refused. The same minimum whether
/// the manifest records the longest lists or (a store written before it did) they are read
/// from the offsets.
#[test]
fn the_minimum_named_for_a_compressed_store_with_long_lists_is_enough() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, packed) = raw_and_packed_with_a_hub(tmp.path(), 60_000, 13);
    let params = Params::default().with("source", 0);
    let options = adaptive_options;
    let recorded = std::fs::read_to_string(packed.join("manifest.json")).unwrap();
    assert!(recorded.contains("longest_list"), "{recorded}");
    let mut minimums = Vec::new();
    for (algorithm, record) in [
        ("bfs", true),
        ("sssp", true),
        ("bfs", false),
        ("sssp", false),
    ] {
        if !record {
            vastgraph_testkit::without_longest_lists(&packed);
        }
        let refused = budget::open_within_budget(&packed, algorithm, &params, 64 << 10, options());
        let message = match refused {
            Ok(_) => panic!("{algorithm}: 64 KiB accepted"),
            Err(e) => e.to_string(),
        };
        assert!(message.contains("longest compressed lists"), "{message}");
        let minimum = named_minimum(&message);
        assert!(
            budget::open_within_budget(&packed, algorithm, &params, minimum - 1, options())
                .is_err(),
            "{algorithm}: a byte below the minimum was accepted"
        );
        let Ok(budget::BudgetFit::OutOfCore(g)) =
            budget::open_within_budget(&packed, algorithm, &params, minimum, options())
        else {
            panic!("{algorithm}: the minimum it named, {minimum} bytes, is refused");
        };
        assert!(g.plan().long_list_bytes > 0, "{algorithm}: no list is long");
        let got = out_of_core(&g, algorithm, &params).0;
        assert_same(&in_memory(&raw, algorithm, &params), &got, algorithm);
        minimums.push(minimum);
    }
    assert_eq!(
        minimums[..2],
        minimums[2..],
        "recorded, then read from the offsets"
    );
}

/// A plan made without the reserve for the threads' list buffers of a kernel reading lists at
/// random takes them from the cache's room when the store is opened. At the plan's own minimum
/// that room is too small: the refusal names a budget that, planned the same way, opens and
/// runs, though the pool takes a share of what the larger budget adds.
#[test]
fn a_refusal_when_the_store_is_opened_names_a_budget_that_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, packed) = raw_and_packed_with_a_hub(tmp.path(), 20_000, 17);
    let manifest = OocGraph::manifest_of(&packed).unwrap();
    let reserved = Reserved {
        long_lists: long_list_reserve(&packed, &manifest, false).unwrap(),
        page_sums: page_sums_reserve(&manifest, false, false),
        list_buffers: 0,
        tiles: 0,
    };
    let plan = |budget| {
        let (offsets, state) = (budget::offsets_bytes(&manifest), 16 * manifest.vertices);
        MemoryPlan::new(budget, offsets, 1, state, reserved, PoolShape::BesideBlocks)
    };
    let options = OocOptions {
        random_access: true,
        ..adaptive_options()
    };
    let open = |budget| OocGraph::open(&packed, plan(budget).unwrap(), options.clone());
    let least = plan(0).unwrap_err().minimum_bytes;
    let message = match open(least) {
        Ok(_) => panic!("the threads' buffers fitted the room of the least budget"),
        Err(e) => e.to_string(),
    };
    assert!(
        message.contains("buffers of the longest lists"),
        "{message}"
    );
    let named = named_minimum(&message);
    let g = open(named).unwrap_or_else(|e| panic!("{named} bytes named, then: {e}"));
    let got = out_of_core(&g, "mis", &Params::default()).0;
    assert_same(&in_memory(&raw, "mis", &Params::default()), &got, "mis");
}

/// The minimum a refused budget names for a kernel that reads lists at random counts each
/// thread's list buffers (at least the 512 KiB of a sweep's read ahead), so that the minimum runs
/// and a byte less does not: on a raw store, whose lists are held a window at a time, and on a
/// compressed one with a hub, held whole.
#[test]
fn the_minimum_named_for_a_kernel_reading_lists_at_random_is_enough() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, packed) = raw_and_packed_with_a_hub(tmp.path(), 20_000, 17);
    let params = Params::default().with("per_vertex", true);
    for dir in [&raw, &packed] {
        for algorithm in ["tc", "mis", "bc"] {
            let params = params.only_for(algorithm);
            let what = format!("{algorithm} on {}", dir.display());
            let open = |budget| {
                budget::open_out_of_core(dir, algorithm, &params, budget, adaptive_options())
            };
            let message = match open(64 << 10) {
                Ok(_) => panic!("{what}: 64 KiB accepted"),
                Err(e) => e.to_string(),
            };
            assert!(
                message.contains("buffers for the longest lists"),
                "{message}"
            );
            let minimum = named_minimum(&message);
            assert!(
                open(minimum - 1).is_err(),
                "{what}: a byte below the minimum ran"
            );
            let g = open(minimum).unwrap_or_else(|e| {
                panic!("{what}: the minimum it named, {minimum} bytes, is refused: {e:#}")
            });
            let got = out_of_core(&g, algorithm, &params).0;
            assert_same(&in_memory(&raw, algorithm, &params), &got, &what);
        }
    }
}

/// `tc --method filter` reads a lower neighbour's list at random, a read per arc from disk: out
/// of core it counts by ranges, as the marking method does, and its stats say so.
#[test]
fn tc_through_the_filter_counts_by_ranges_out_of_core() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, _) = raw_and_packed_with_a_hub(tmp.path(), 20_000, 17);
    let params = Params::default()
        .with("per_vertex", true)
        .with("method", "filter");
    let g = budget::open_out_of_core(&raw, "tc", &params, 64 << 20, adaptive_options()).unwrap();
    let out = budget::run("tc", &g, &params, true).unwrap();
    assert_eq!(out.output.stats.extra["method"], "ranges");
    let got = out.output.values.unwrap();
    assert_same(&in_memory(&raw, "tc", &params), &got, "tc --method filter");
}

/// Damaged codes give an error naming the file, or (where the damage still decodes) a result:
/// never a crash.
#[test]
fn damaged_codes_are_an_error_not_a_crash() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 20_000u32;
    let mut list = edges(n, 60_000, 12);
    list.extend((1..n / 3 - 40).map(|k| (0, 3 * k, 1.0)));
    let dir = tmp.path().join("g");
    build_from(&dir, &list, true, false, Codec::StreamVByte64);
    // The decoder's own checks, all an older store gets, without the page checksums.
    vastgraph_testkit::without_page_sums(&dir);
    let codes = dir.join(vastgraph_store::manifest::files::NEIGHBOR_CODES);
    let clean = std::fs::read(&codes).unwrap();
    let params = Params::default().with("source", 0);
    let mut errors = 0;
    for k in 1..40usize {
        let mut bytes = clean.clone();
        let at = k * 7919 % bytes.len();
        bytes[at] ^= 0xA5;
        std::fs::write(&codes, &bytes).unwrap();
        for mode in [IoMode::Selective, IoMode::Streaming] {
            let g = open(&dir, "bfs", mode, 5, BackendChoice::Auto);
            match budget::run("bfs", &g, &params, false) {
                Ok(_) => {}
                Err(e) => {
                    let message = format!("{e:#}");
                    assert!(message.contains("neighbors.bc64"), "{message}");
                    errors += 1;
                }
            }
        }
    }
    assert!(errors > 0, "no damage was noticed");
}

/// A flipped bit in the lists ends the run with an error naming the file and the damaged page,
/// in either mode and on either backend, whether the page came through the pool or with a list
/// too long for it (read apart). The damage may leave every list valid: only the page checksum
/// can tell.
#[test]
fn a_damaged_page_is_an_error_naming_it_in_every_mode_and_for_lists_read_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 60_000u32;
    let mut list = edges(n, 60_000, 12);
    // Hub 0's codes, about 25 KB, are longer than a pooled buffer (16 KiB): read apart.
    list.extend((1..n / 3 - 40).map(|k| (0, 3 * k, 1.0)));
    let dir = tmp.path().join("g");
    // Weighted, for sssp: label-correcting, it reads the list of every vertex it reaches (a
    // bfs may pull and never read its source's list).
    build_from(&dir, &list, true, true, Codec::StreamVByte64);
    let hub_codes = {
        let store = Store::open(&dir).unwrap();
        let starts = store.byte_code().unwrap().byte_offsets();
        starts[0]..starts[1]
    };
    let codes = dir.join(vastgraph_store::manifest::files::NEIGHBOR_CODES);
    let clean = std::fs::read(&codes).unwrap();
    let params = Params::default().with("source", 0);
    let in_the_hub = (hub_codes.start + hub_codes.end) as usize / 2;
    for at in [in_the_hub, clean.len() / 2] {
        let mut bytes = clean.clone();
        bytes[at] ^= 1;
        std::fs::write(&codes, &bytes).unwrap();
        let page = at / 4096 * 4096;
        for mode in [IoMode::Selective, IoMode::Streaming] {
            for backend in [BackendChoice::Auto, BackendChoice::Pread] {
                let g = open(&dir, "sssp", mode, 5, backend);
                assert!(g.plan().long_list_bytes > 0, "the hub is read apart");
                let Err(e) = budget::run("sssp", &g, &params, false) else {
                    panic!("{mode:?}, {backend:?}: the damage at byte {at} went unnoticed");
                };
                let e = format!("{e:#}");
                let want = format!("neighbors.bc64: bytes {page}..");
                assert!(
                    e.contains(&want) && e.contains("page checksum"),
                    "{mode:?}, {backend:?}, byte {at}: {e}"
                );
            }
        }
    }
}

/// Damaged offsets of a compressed store are named as such before the budget is weighed: read
/// as they were, they made a list look terabytes long, and the run was refused as needing a
/// budget of that size.
#[test]
fn damaged_offsets_of_a_compressed_store_are_named_before_the_budget_is_weighed() {
    use vastgraph_store::manifest::files;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build_from(
        &dir,
        &edges(2_000, 8_000, 21),
        true,
        false,
        Codec::StreamVByte64,
    );
    let params = Params::default().with("source", 0);
    let options = adaptive_options;
    // First as built, where the page checksums name the damage; then as a store without them,
    // where the Elias–Fano decoder's own checks must.
    for page_sums in [true, false] {
        if !page_sums {
            vastgraph_testkit::without_page_sums(&dir);
        }
        for name in [files::BYTE_OFFSETS_EF, files::OFFSETS_EF] {
            let path = dir.join(name);
            let clean = std::fs::read(&path).unwrap();
            // The header's count, then the high bits' last byte.
            for at in [0, clean.len() - 1] {
                let mut bytes = clean.clone();
                bytes[at] ^= 0x5A;
                std::fs::write(&path, &bytes).unwrap();
                let message =
                    match budget::open_within_budget(&dir, "bfs", &params, 64 << 20, options()) {
                        Ok(_) => panic!("{name}: damage at byte {at} went unnoticed"),
                        Err(e) => format!("{e:#}"),
                    };
                let named = match page_sums {
                    true => "page checksum",
                    false => "invalid offsets",
                };
                assert!(
                    message.contains(name) && message.contains(named),
                    "{name}, byte {at}: {message}"
                );
            }
            std::fs::write(&path, &clean).unwrap();
        }
    }
}

/// Writes `id` over the neighbour id at `arc` of a raw store, which is first made to look
/// older than page checksums: they would name the damaged page before any id is looked at, and
/// the check of ids (all an older store gets) must hold on its own.
fn corrupt_id(dir: &Path, arc: u64, id: u32) {
    vastgraph_testkit::without_page_sums(dir);
    let path = dir.join("neighbors.u32");
    let mut file = std::fs::read(&path).unwrap();
    let at = 4 * arc as usize;
    file[at..at + 4].copy_from_slice(&id.to_le_bytes());
    std::fs::write(&path, &file).unwrap();
}

/// The error of a pass that met `id` at `arc`: it names the file, the id and the arc.
fn assert_names_bad_id(error: &str, id: u32, arc: u64, context: &str) {
    assert!(error.contains("neighbors.u32"), "{context}: {error}");
    let want = format!("neighbour id {id} at arc {arc} is not below n");
    assert!(error.contains(&want), "{context}: {error}");
}

/// A raw id at or above n, which the store's open does not look for (that would read the whole
/// file), is an error naming the file and the arc when a pass visits its list.
#[test]
fn an_id_out_of_range_in_a_raw_store_is_an_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let n = 20_000u32;
    build(&dir, n, true, false, 13);
    // Well inside hub 1's list, which spans several pieces.
    let arc = Store::open(&dir).unwrap().offsets()[1] + 5000;
    corrupt_id(&dir, arc, n + 7);
    let params = Params::default().with("source", 1);
    for mode in [IoMode::Selective, IoMode::Streaming] {
        let g = open(&dir, "bfs", mode, 5, BackendChoice::Auto);
        let Err(e) = budget::run("bfs", &g, &params, false) else {
            panic!("{mode:?}: the bad id went unnoticed");
        };
        assert_names_bad_id(&format!("{e:#}"), n + 7, arc, &format!("{mode:?}"));
    }
}

/// Out of core validates what the in-memory open validates: a list with a repeated id (or two
/// ids out of order) is refused by both, in every mode, whether the pair lies within a page,
/// across two pages, in a long list or in a short one.
#[test]
fn a_repeated_or_unordered_id_is_refused_in_both_modes() {
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("g");
    let n = 20_000u32;
    build(&pristine, n, true, false, 17);
    let offsets = Store::open(&pristine).unwrap().offsets().to_vec();
    let ids_of = |dir: &Path| -> Vec<u32> {
        std::fs::read(dir.join("neighbors.u32"))
            .unwrap()
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    let ids = ids_of(&pristine);
    // Inside hub 1's long list; at a page boundary of 1024 ids; in a short list.
    let page_start = (offsets[1] / 1024 + 3) * 1024;
    assert!(
        page_start < offsets[2],
        "hub 1's list crosses the page boundary"
    );
    let short = (2..offsets.len() - 1)
        .find(|&v| (3..50).contains(&(offsets[v + 1] - offsets[v])))
        .unwrap();
    for (k, arc) in [offsets[1] + 5000, page_start, offsets[short] + 1]
        .into_iter()
        .enumerate()
    {
        let before = ids[arc as usize - 1];
        for (what, id) in [
            ("repeated", before),
            ("unordered", before.saturating_sub(1)),
        ] {
            let dir = tmp.path().join(format!("bad-{k}-{what}"));
            std::fs::create_dir(&dir).unwrap();
            for entry in std::fs::read_dir(&pristine).unwrap() {
                let entry = entry.unwrap();
                std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
            }
            corrupt_id(&dir, arc, id);
            let err = Store::open(&dir)
                .err()
                .expect("the in-memory open refuses it")
                .to_string();
            assert!(
                err.contains("strictly increasing"),
                "in memory, {what} at {arc}: {err}"
            );
            for mode in [IoMode::Selective, IoMode::Streaming, IoMode::Adaptive] {
                // PageRank reads every list (a traversal may settle a vertex without reading
                // its list, and then its answer does not depend on it).
                let algorithm = "pagerank";
                let g = open(&dir, algorithm, mode, 5, BackendChoice::Auto);
                let Err(e) = budget::run(algorithm, &g, &Params::default(), false) else {
                    panic!("{algorithm} {mode:?}: the {what} id at arc {arc} went unnoticed");
                };
                let e = format!("{e:#}");
                assert!(
                    e.contains("strictly increasing") && e.contains("neighbors.u32"),
                    "{algorithm} {mode:?}, {what} at {arc}: {e}"
                );
            }
        }
    }
}

/// Ids are checked once per page of the file, and only a page checked whole is trusted
/// afterwards: a bad id on a page whose other lists a pass already read is still an error.
#[test]
fn a_page_checked_in_part_is_checked_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let n = 20_000u32;
    build(&dir, n, true, false, 21);
    let offsets = Store::open(&dir).unwrap().offsets().to_vec();
    // v's list and the start of v + 1's on one page of 1024 ids, the page not starting at v.
    let page = |arc: u64| arc / 1024;
    let v = (3..offsets.len() - 2)
        .find(|&v| {
            let (a, b, c) = (offsets[v], offsets[v + 1], offsets[v + 2]);
            a < b && b < c && a % 1024 != 0 && page(a) == page(b) && b % 1024 != 0
        })
        .unwrap();
    let bad_arc = offsets[v + 1];
    corrupt_id(&dir, bad_arc, n + 3);
    for mode in [IoMode::Selective, IoMode::Streaming] {
        let g = open(&dir, "bfs", mode, 0, BackendChoice::Auto);
        let only = |u: usize| {
            let mut active = vastgraph_engine::Bitmap::new(g.num_vertices());
            active.set(u);
            active
        };
        let scan = |active: &vastgraph_engine::Bitmap| g.scan(&ScanSpec::new(active), |_, _, _| {});
        scan(&only(v)).unwrap();
        let Err(e) = scan(&only(v + 1)) else {
            panic!("{mode:?}: the bad id on a page read in part went unnoticed");
        };
        assert_names_bad_id(&format!("{e:#}"), n + 3, bad_arc, &format!("{mode:?}"));
    }
}

#[test]
fn pread_fallback_gives_the_same_results() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 20_000, true, false, 7);
    let params = Params::default().with("source", 1);
    let want = in_memory(&dir, "bfs", &params);
    for mode in MODES {
        let g = open(&dir, "bfs", mode, 5, BackendChoice::Pread);
        assert_eq!(g.backend_name(), "pread");
        let (got, io) = out_of_core(&g, "bfs", &params);
        assert_same(&want, &got, &format!("pread {mode:?}"));
        assert_eq!(io["backend"], "pread");
    }
    let want = in_memory(&dir, "cc", &params);
    let g = open(&dir, "cc", IoMode::Streaming, 5, BackendChoice::Pread);
    assert_same(&want, &out_of_core(&g, "cc", &params).0, "pread cc");
}

#[test]
fn a_budget_below_the_vertex_state_is_refused_with_the_minimum() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 20_000, true, false, 8);
    let n = OocGraph::manifest_of(&dir).unwrap().vertices;
    let state = budget::state_bytes("pagerank", n, &Params::default()).unwrap();
    let reserved = Reserved {
        page_sums: page_sums_reserve(&OocGraph::manifest_of(&dir).unwrap(), false, false),
        ..Default::default()
    };
    assert!(reserved.page_sums > 0, "the store has page checksums");
    let err =
        MemoryPlan::new(state, 8 * (n + 1), 1, state, reserved, PoolShape::Passes).unwrap_err();
    assert!(err.minimum_bytes > state + 8 * n);
    assert!(err.to_string().contains("minimum"), "{err}");
    let plan = MemoryPlan::new(
        err.minimum_bytes,
        8 * (n + 1),
        1,
        state,
        reserved,
        PoolShape::Passes,
    )
    .unwrap();
    let g = OocGraph::open(
        &dir,
        plan,
        OocOptions {
            profile: Some(PROFILE),
            ..Default::default()
        },
    )
    .unwrap();
    let params = Params::default();
    assert_same(
        &in_memory(&dir, "pagerank", &params),
        &out_of_core(&g, "pagerank", &params).0,
        "pagerank at the minimum budget",
    );
}

/// The minimum a refused budget names is the least that opens, for every algorithm: on a
/// store so small that a kernel without passes runs in memory for less than its out-of-core
/// floor, that is the in-memory budget. The minimum opens, and runs; a byte less is refused.
#[test]
fn the_minimum_a_refusal_names_is_the_least_budget_that_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("path");
    let path: Vec<_> = (0..18u32).map(|v| (v, v + 1, (v % 5 + 1) as f64)).collect();
    build_from(&dir, &path, true, true, Codec::Raw);
    let mut in_memory_minimums = 0;
    for info in registry::ALGORITHMS {
        let params = match info.param("sources") {
            Some(_) => Params::default().with("sources", vec![1, 2]),
            None if info.param("source").is_some() => Params::default().with("source", 1),
            None => Params::default(),
        };
        let open =
            |bytes| budget::open_within_budget(&dir, info.name, &params, bytes, adaptive_options());
        let message = match open(1) {
            Ok(_) => panic!("{}: 1 byte accepted", info.name),
            Err(e) => e.to_string(),
        };
        let minimum = named_minimum(&message);
        assert!(open(minimum - 1).is_err(), "{}: {}", info.name, minimum - 1);
        match open(minimum) {
            Ok(budget::BudgetFit::InMemory { need }) => {
                assert_eq!(need, minimum, "{}", info.name);
                in_memory_minimums += 1;
            }
            Ok(budget::BudgetFit::OutOfCore(g)) => {
                let run = budget::run(info.name, &g, &params, true);
                assert!(
                    run.is_ok(),
                    "{}: {:?}",
                    info.name,
                    run.err().map(|e| e.to_string())
                );
            }
            Err(e) => panic!(
                "{} within the minimum it named, {minimum}: {e:#}",
                info.name
            ),
        }
    }
    // Some kernel without passes runs in memory below its out-of-core floor here.
    assert!(in_memory_minimums > 0);
}

/// A minimum that grows with the thread count says what it is on one thread: for bc, whose
/// in-memory state and threads' list buffers are per thread, the figure named on four threads
/// is the minimum a run on one thread names, and opens there; on one thread nothing is added.
#[test]
fn a_refusal_names_the_lesser_minimum_of_one_thread() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("path");
    let path: Vec<_> = (0..18u32).map(|v| (v, v + 1, (v % 5 + 1) as f64)).collect();
    build_from(&dir, &path, true, true, Codec::Raw);
    let params = Params::default().with("source", 1);
    let refusal = |threads: usize, budget: u64| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            budget::open_within_budget(&dir, "bc", &params, budget, adaptive_options())
                .err()
                .map(|e| e.to_string())
        })
    };
    let on_four = refusal(4, 1).expect("1 byte refused");
    let one_thread = on_four
        .split("with --threads 1 it is --memory ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("no minimum of one thread: {on_four}"));
    let on_one = refusal(1, 1).expect("1 byte refused");
    assert!(!on_one.contains("--threads 1"), "{on_one}");
    assert!(
        on_one.contains(&format!("the minimum is --memory {one_thread} (")),
        "{on_one} against {on_four}"
    );
    let minimum = named_minimum(&on_one);
    assert!(
        minimum < named_minimum(&on_four),
        "{on_one} against {on_four}"
    );
    assert_eq!(refusal(1, minimum), None, "{minimum} bytes on one thread");
}

/// Removes the side file of first neighbours from a store, as if it had been written before
/// the file existed.
fn without_first_neighbors(dir: &Path) {
    without_side_file(dir, "first_neighbors.u32");
}

/// Removes the side file `name` from a store, as if it had been written before it existed.
fn without_side_file(dir: &Path, name: &str) {
    std::fs::remove_file(dir.join(name)).unwrap();
    let path = dir.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    manifest["files"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f["name"] != name);
    std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();
}

/// With page checksums the side file of first neighbours is read only where a chunk holds an
/// active vertex, and each active vertex with arcs gets its smallest neighbour; without them
/// the whole file is read (its checksum covers the whole file).
#[test]
fn the_first_neighbours_are_read_only_around_active_vertices_when_pages_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    for summed in [true, false] {
        let dir = tmp.path().join(format!("g{summed}"));
        build(&dir, 20_000, true, false, 33);
        if !summed {
            vastgraph_testkit::without_page_sums(&dir);
        }
        let store = Store::open(&dir).unwrap();
        let (offsets, neighbors) = (store.offsets(), store.neighbors());
        let n = offsets.len() - 1;
        // The first 100 vertices, and 100 in the file's fourth buffer of 4096 ids.
        let chosen: Vec<usize> = (0..100).chain(13_000..13_100).collect();
        let mut active = vastgraph_engine::Bitmap::new(n);
        for &v in &chosen {
            active.set(v);
        }
        let seen = std::sync::Mutex::new(Vec::new());
        let g = open(&dir, "bfs", IoMode::Adaptive, 5, BackendChoice::Auto);
        let record = g
            .scan_first_neighbors(&active, |v, first| seen.lock().unwrap().push((v, first)))
            .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        let want: Vec<(u32, u32)> = chosen
            .iter()
            .filter(|&&v| offsets[v + 1] > offsets[v])
            .map(|&v| (v as u32, neighbors[offsets[v] as usize]))
            .collect();
        assert_eq!(seen, want, "page checksums {summed}");
        // Reads end with the file, inside its last page.
        let file = std::fs::metadata(dir.join("first_neighbors.u32"))
            .unwrap()
            .len();
        let read = if summed { 2 * BUFFER as u64 } else { file };
        assert_eq!(record.bytes_read, read, "page checksums {summed}");
    }
}

/// A sample of the first neighbours reads one page in 256, evenly spread (here 2 of 586 pages,
/// one in each half of the file), and gives each active vertex with arcs in those pages, and
/// no other, its smallest neighbour; a store without page checksums cannot be sampled.
#[test]
fn a_sample_of_the_first_neighbours_reads_evenly_spread_pages() {
    let tmp = tempfile::tempdir().unwrap();
    for summed in [true, false] {
        let dir = tmp.path().join(format!("g{summed}"));
        let n = 600_000u32;
        build_from(&dir, &edges(n, 300_000, 7), true, false, Codec::Raw);
        if !summed {
            vastgraph_testkit::without_page_sums(&dir);
        }
        let store = Store::open(&dir).unwrap();
        let (offsets, neighbors) = (store.offsets(), store.neighbors());
        let mut active = vastgraph_engine::Bitmap::new(n as usize);
        (0..n as usize)
            .filter(|v| v % 3 != 0)
            .for_each(|v| active.set(v));
        let seen = std::sync::Mutex::new(Vec::new());
        // 600k vertices: offsets and state take more than the other tests' 4 MiB.
        let (mode, backend) = (IoMode::Adaptive, BackendChoice::Auto);
        let g = try_open_within(&dir, "bfs", mode, 5, backend, true, 32 * MIB).unwrap();
        let sampled =
            g.sample_first_neighbors(&active, |v, first| seen.lock().unwrap().push((v, first)));
        if !summed {
            let e = sampled
                .expect_err("a sample needs page checksums")
                .to_string();
            assert!(e.contains("needs page checksums"), "{e}");
            continue;
        }
        let record = sampled.unwrap();
        assert_eq!(record.mode, FIRST_NEIGHBORS_SAMPLE_MODE);
        assert_eq!(record.bytes_read, 2 * 4096);
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        // The pages sampled: 1,024 vertices each, starting on a page boundary.
        let mut pages: Vec<u32> = seen.iter().map(|&(v, _)| v / 1024).collect();
        pages.dedup();
        assert_eq!(pages.len(), 2, "{pages:?}");
        let half = n.div_ceil(1024) / 2;
        assert!(pages[0] < half && pages[1] >= half, "{pages:?}");
        let want: Vec<(u32, u32)> = pages
            .iter()
            .flat_map(|&p| p * 1024..(p + 1) * 1024)
            .map(|v| v as usize)
            .filter(|&v| active.get(v) && offsets[v + 1] > offsets[v])
            .map(|v| (v as u32, neighbors[offsets[v] as usize]))
            .collect();
        assert_eq!(seen, want);
        assert_eq!(record.arcs_processed, want.len() as u64);
    }
}

/// BFS's first pull and CC's sampling read the side file of first neighbours and give the
/// in-memory results, with fewer list bytes read than the same runs on a store without it
/// (which still work, reading the lists). Raw and compressed stores alike.
#[test]
fn bfs_and_cc_settle_vertices_from_the_first_neighbours() {
    let tmp = tempfile::tempdir().unwrap();
    for codec in [Codec::Raw, Codec::StreamVByte64] {
        let dir = tmp.path().join(codec.name());
        build_from(&dir, &edges(20_000, 60_000, 31), true, false, codec);
        let params = Params::default().with("source", 0);
        let runs = |algorithm: &str| -> Vec<(Values, serde_json::Value)> {
            MODES
                .iter()
                .map(|&mode| {
                    out_of_core(
                        &open(&dir, algorithm, mode, 5, BackendChoice::Auto),
                        algorithm,
                        &params,
                    )
                })
                .collect()
        };
        // The bytes of lists read by the pass that the side file makes smaller (bfs's first
        // pull, cc's scan outside the giant tree): the one after the side file's, or the
        // pass in its place on a store without it, which reads no other side file before it
        // (bfs samples the side file first).
        let pass = |io: &serde_json::Value, firsts_at: usize, with: bool, what: &str| -> u64 {
            let pass = if with { firsts_at + 1 } else { firsts_at };
            io["iterations"][pass][what].as_u64().unwrap()
        };
        let before_side_files = |io: &serde_json::Value, at: usize| -> usize {
            let modes = io["iteration_modes"].as_array().unwrap();
            let side = |m: &serde_json::Value| SIDE_FILE_MODES.iter().any(|&s| m == s);
            at - modes[..at].iter().filter(|&m| side(m)).count()
        };
        let algorithms = ["bfs", "cc"];
        let wants: Vec<Values> = algorithms
            .iter()
            .map(|a| in_memory(&dir, a, &params))
            .collect();
        let with: Vec<_> = algorithms.iter().map(|a| runs(a)).collect();
        without_first_neighbors(&dir);
        for ((algorithm, want), with) in algorithms.iter().zip(&wants).zip(with) {
            for (mode, ((got, io), (got_without, io_without))) in
                MODES.iter().zip(with.iter().zip(runs(algorithm)))
            {
                let what = format!("{algorithm} {codec:?} {mode:?}");
                assert_same(want, got, &what);
                assert_same(want, &got_without, &format!("{what} without the side file"));
                let firsts = |io: &serde_json::Value| {
                    io["iteration_modes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|&m| m == FIRST_NEIGHBORS_MODE)
                        .count()
                };
                assert_eq!((firsts(io), firsts(&io_without)), (1, 0), "{what}");
                let at = io["iteration_modes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .position(|m| m == FIRST_NEIGHBORS_MODE)
                    .unwrap();
                let at_without = before_side_files(io, at);
                let active = pass(io, at, true, "active_vertices");
                let active_without = pass(&io_without, at_without, false, "active_vertices");
                assert!(
                    active < active_without,
                    "{what}: {active} lists to read, {active_without} without"
                );
                // Fewer lists: fewer pages, where only their pages are read (bfs's selective
                // pull). A stream skips only chunks without any (cc's scan always streams),
                // and the adaptive choice may stream.
                let read = pass(io, at, true, "bytes_read");
                let read_without = pass(&io_without, at_without, false, "bytes_read");
                let fewer = match mode {
                    IoMode::Selective if *algorithm == "bfs" => read < read_without,
                    IoMode::Adaptive => true,
                    _ => read <= read_without,
                };
                assert!(
                    fewer,
                    "{what}: {read} bytes of lists read with the side file, {read_without} without"
                );
            }
        }
    }
}

/// A damaged side file ends the run with an error naming it, never a wrong answer. Its page
/// checksums catch any damage as the page is read. Without them (an older store), a value that
/// is no vertex is caught as it is read (cc's sampling reads the damaged vertex's; bfs's pull
/// may not, and then the whole file's checksum catches it), another vertex's id by that checksum.
#[test]
fn a_damaged_first_neighbour_file_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 20_000u32;
    let params = Params::default().with("source", 0);
    for summed in [true, false] {
        for (value, needle) in [(n + 5, "first neighbour is recorded as"), (3, "checksum")] {
            let dir = tmp.path().join(format!("g{value}-{summed}"));
            build(&dir, n, true, false, 32);
            if !summed {
                vastgraph_testkit::without_page_sums(&dir);
            }
            // A vertex with arcs far from the hubs.
            let v = 15_000usize;
            let offsets = Store::open(&dir).unwrap().offsets().to_vec();
            assert!(offsets[v + 1] > offsets[v]);
            let path = dir.join("first_neighbors.u32");
            let mut bytes = std::fs::read(&path).unwrap();
            bytes[4 * v..4 * v + 4].copy_from_slice(&value.to_le_bytes());
            std::fs::write(&path, &bytes).unwrap();
            for algorithm in ["bfs", "cc"] {
                let g = open(&dir, algorithm, IoMode::Adaptive, 5, BackendChoice::Auto);
                let Err(e) = budget::run(algorithm, &g, &params.only_for(algorithm), false) else {
                    panic!("{algorithm}: the damaged side file went unnoticed ({value} at {v})");
                };
                let e = format!("{e:#}");
                let needle = match (summed, algorithm) {
                    (true, _) => "page checksum",
                    (false, "bfs") if value >= n => "first_neighbors.u32",
                    _ => needle,
                };
                assert!(
                    e.contains("first_neighbors.u32") && e.contains(needle),
                    "{algorithm}, page checksums {summed}: {e}"
                );
            }
        }
    }
}

/// A vertex of [`hub_edges`]'s hubs.
const HUB: u32 = 1_000;

/// A graph whose hubs have ids scattered among the others', as on a power-law graph in no
/// degree order: 200 hubs (every 100th id) linked with each other, and every vertex linked to
/// 40 hubs and 4 other vertices at random, so that its list of about 48 ids has hubs anywhere
/// in it. A BFS from a hub reaches every hub at its first level, and at the second the first
/// ids of most lists hold one.
fn hub_edges(n: u32, seed: u64) -> Vec<(u32, u32, f64)> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |below: u32| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % below as u64) as u32
    };
    let hubs = n / 100;
    let core = (0..hubs).flat_map(|a| (0..a).map(move |b| (a * 100, b * 100, 1.0)));
    let spokes = (0..n)
        .flat_map(|v| (0..44).map(move |i| (v, i)))
        .map(|(v, i)| match i < 40 {
            true => (v, next(hubs) * 100, 1.0),
            false => (v, next(n), 1.0),
        })
        .collect::<Vec<_>>();
    core.chain(spokes).collect()
}

/// Each active vertex with arcs gets the first 8 ids of its list (all of a shorter one), heads
/// that straddle the reads' boundaries included (16 KiB buffers, 60k heads); a whole list whose
/// visit asks for it is cached, and the next pass serves it without reading.
#[test]
fn the_list_heads_give_each_active_vertex_its_first_ids_and_cache_whole_lists() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 20_000, true, false, 35);
    let store = Store::open(&dir).unwrap();
    let (offsets, neighbors) = (store.offsets(), store.neighbors());
    let n = offsets.len() - 1;
    let head = |v: usize| {
        let (a, b) = (offsets[v] as usize, offsets[v + 1] as usize);
        &neighbors[a..b.min(a + 8)]
    };
    assert!((0..n).any(|v| head(v).len() < offsets[v + 1] as usize - offsets[v] as usize));
    let mut active = vastgraph_engine::Bitmap::new(n);
    (0..n).step_by(3).for_each(|v| active.set(v));
    let g = open(&dir, "bfs", IoMode::Adaptive, 5, BackendChoice::Auto);
    assert!(g.has_list_heads());
    let seen = std::sync::Mutex::new(Vec::new());
    // Even vertices will be active again.
    let record = g
        .scan_list_heads(&active, |v, head| {
            seen.lock().unwrap().push((v, head.to_vec()));
            v % 2 == 0
        })
        .unwrap();
    assert_eq!(record.mode, LIST_HEADS_MODE);
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    let want: Vec<(u32, Vec<u32>)> = (0..n)
        .step_by(3)
        .filter(|&v| offsets[v + 1] > offsets[v])
        .map(|v| (v as u32, head(v).to_vec()))
        .collect();
    assert_eq!(seen, want);
    let mut again = vastgraph_engine::Bitmap::new(n);
    (0..n).step_by(6).for_each(|v| again.set(v));
    let whole = (0..n)
        .step_by(6)
        .filter(|&v| (1..=8).contains(&(offsets[v + 1] - offsets[v])))
        .count() as u64;
    let record = g.scan(&ScanSpec::new(&again), |_, _, _| {}).unwrap();
    assert_eq!(record.cached_vertices, whole);
}

/// On a graph whose lists are long and whose ids follow no degree order, BFS's first pull reads
/// list heads (here those of every unvisited vertex: the vertices their first ids leave have
/// heads in every chunk), and reads fewer bytes than on the same store without them, with the
/// in-memory distances and parents in every mode.
#[test]
fn bfs_settles_vertices_from_the_list_heads() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let list = hub_edges(20_000, 5);
    build_from(&dir, &list, true, false, Codec::Raw);
    let heads = |io: &serde_json::Value| {
        let modes = io["iteration_modes"].as_array().unwrap();
        modes.iter().filter(|&m| m == LIST_HEADS_MODE).count()
    };
    for (what, io, io_without) in bfs_with_and_without_list_heads(&dir, HUB.into()) {
        assert_eq!((heads(&io), heads(&io_without)), (1, 0), "{what}");
    }
}

/// Runs BFS from `source` on the store at `dir`, with parents and without, in every mode, then
/// again with the store's list heads removed: every run must give the in-memory result, and
/// read fewer bytes with the heads. Returns each case's name and its I/O records, with the
/// heads and without.
fn bfs_with_and_without_list_heads(
    dir: &Path,
    source: u64,
) -> Vec<(String, serde_json::Value, serde_json::Value)> {
    let params = |parents: bool| {
        Params::default()
            .with("source", source)
            .with("parents", parents)
    };
    let runs = |parents: bool| -> Vec<(Values, serde_json::Value)> {
        MODES
            .iter()
            .map(|&mode| {
                let g = open(dir, "bfs", mode, 5, BackendChoice::Auto);
                out_of_core(&g, "bfs", &params(parents))
            })
            .collect()
    };
    let wants = [false, true].map(|parents| in_memory(dir, "bfs", &params(parents)));
    let with = [false, true].map(runs);
    without_side_file(dir, "list_heads.u32");
    let without = [false, true].map(runs);
    let read = |io: &serde_json::Value| io["bytes_read"].as_u64().unwrap();
    let mut cases = Vec::new();
    for (p, want) in wants.iter().enumerate() {
        for (m, mode) in MODES.iter().enumerate() {
            let what = format!("bfs parents={} {mode:?}", p == 1);
            let ((got, io), (got_without, io_without)) = (&with[p][m], &without[p][m]);
            assert_same(want, got, &what);
            assert_same(want, got_without, &format!("{what} without list heads"));
            assert!(
                read(io) < read(io_without),
                "{what}: {} bytes, {} without",
                read(io),
                read(io_without)
            );
            cases.push((what, io.clone(), io_without.clone()));
        }
    }
    cases
}

/// Where the first ids settle only half the vertices of BFS's first pull and the rest have long
/// lists on every page, the pull reads the list heads of all of them at once, after a sample
/// of the first neighbours and without reading those whole: fewer bytes than the first
/// neighbours and the lists on the same store without heads, and the in-memory distances and
/// parents in every mode.
#[test]
fn bfs_reads_the_list_heads_first_where_first_ids_settle_few() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    // The source reaches the even vertices; each odd one has 60 random neighbours, so its
    // smallest is in the frontier half the time, and one of its 8 smallest nearly always.
    let n = 20_000u32;
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as u32
    };
    let mut list: Vec<(u32, u32, f64)> = (2..n).step_by(2).map(|v| (0, v, 1.0)).collect();
    for v in (1..n).step_by(2) {
        list.extend((0..60).map(|_| (v, next(), 1.0)));
    }
    build_from(&dir, &list, true, false, Codec::Raw);
    for (what, io, _) in bfs_with_and_without_list_heads(&dir, 0) {
        let modes = io["iteration_modes"].as_array().unwrap();
        let count = |mode: &str| modes.iter().filter(|&m| m == mode).count();
        assert_eq!(
            [
                FIRST_NEIGHBORS_SAMPLE_MODE,
                FIRST_NEIGHBORS_MODE,
                LIST_HEADS_MODE
            ]
            .map(count),
            [1, 0, 1],
            "{what}: {modes:?}"
        );
    }
}

/// A damaged list heads file ends the run with an error naming it (its page checksums catch
/// the damage as the page arrives); a store whose heads have no page checksums does not use
/// them, and gives the in-memory result.
#[test]
fn a_damaged_list_heads_file_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 20_000u32;
    let list = hub_edges(n, 6);
    let params = Params::default().with("source", HUB);
    for summed in [true, false] {
        let dir = tmp.path().join(format!("g{summed}"));
        build_from(&dir, &list, true, false, Codec::Raw);
        let want = in_memory(&dir, "bfs", &params);
        if !summed {
            vastgraph_testkit::without_page_sums(&dir);
        }
        let path = dir.join("list_heads.u32");
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2 / 4 * 4;
        bytes[middle..middle + 4].copy_from_slice(&(n + 5).to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let g = open(&dir, "bfs", IoMode::Adaptive, 5, BackendChoice::Auto);
        assert_eq!(g.has_list_heads(), summed);
        match budget::run("bfs", &g, &params, false) {
            Err(e) => {
                let e = format!("{e:#}");
                assert!(summed, "without page checksums the heads are not read: {e}");
                assert!(
                    e.contains("list_heads.u32") && e.contains("page checksum"),
                    "{e}"
                );
            }
            Ok(out) => {
                assert!(!summed, "the damaged list heads went unnoticed");
                assert_same(&want, &out.output.values.unwrap(), "bfs without the heads");
            }
        }
    }
}

/// The smallest budget a store and algorithm are refused below, from the refusal.
fn smallest_budget(dir: &Path, algorithm: &str, params: &Params) -> u64 {
    let refusal = match budget::open_within_budget(dir, algorithm, params, 1, adaptive_options()) {
        Err(e) => format!("{e:#}"),
        Ok(_) => panic!("{algorithm}: a budget of one byte was accepted"),
    };
    named_minimum(&refusal)
}

/// On a long path the label-correcting queue relaxes one short list after another: within the
/// smallest budget they must come from a few cached blocks, not a read each (a budget whose pool
/// took all the room read a block per vertex, 2^17 blocks here).
#[test]
fn a_long_path_within_its_smallest_budget_reads_each_block_a_few_times() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("path");
    let n = 1u32 << 17;
    let list: Vec<_> = (0..n - 1).map(|v| (v, v + 1, (v % 5 + 1) as f64)).collect();
    build_from(&dir, &list, true, true, Codec::Raw);
    // Both directions of every edge, 4 bytes an id and 4 a weight.
    let file_bytes = 2 * (n as u64 - 1) * 4;
    for algorithm in ["bfs", "sssp", "widest", "kcore"] {
        let params = match algorithm {
            "kcore" => Params::default(),
            _ => Params::default().with("source", 0u32),
        };
        let budget = smallest_budget(&dir, algorithm, &params);
        let g = match budget::open_within_budget(
            &dir,
            algorithm,
            &params,
            budget,
            adaptive_options(),
        ) {
            Ok(budget::BudgetFit::OutOfCore(g)) => g,
            Ok(_) => panic!("{algorithm}: the path fits in memory within {budget} bytes"),
            Err(e) => panic!("{algorithm} within {budget} bytes: {e:#}"),
        };
        let (values, io) = out_of_core(&g, algorithm, &params);
        assert_same(&in_memory(&dir, algorithm, &params), &values, algorithm);
        let files = if budget::reads_weights(algorithm) {
            2
        } else {
            1
        };
        let read = io["bytes_read"].as_u64().unwrap();
        assert!(
            read <= 8 * files * file_bytes,
            "{algorithm} within {budget} bytes read {read} bytes of {} on disk",
            files * file_bytes
        );
    }
}

/// A raw store past 2^32 arcs, without 16 GiB of data: vertex 1, which no arc reaches, owns
/// 2^32 arcs lying in a hole of a sparse neighbour file, so that every list bfs reads after the
/// source's starts past arc 2^32 and byte 2^34. Its pages carry their checksums, and the ids are
/// checked as they arrive, so an offset or a file position cut to 32 bits anywhere on the way
/// (offsets, plans, requests, checksums) reads the hole's zeros and fails, and a pass that read
/// vertex 1's list would fail on its repeated zeros. The answers are those of the same graph
/// with vertex 1's list empty, run in memory.
#[test]
fn lists_past_arc_2_to_the_32_are_read_where_they_are() {
    use std::os::unix::fs::{FileExt, MetadataExt};
    const PAD: u64 = 1 << 32;
    let tmp = tempfile::tempdir().unwrap();
    let small = tmp.path().join("small");
    // 0 → 2 → {3, 4}, 3 → {0, 4}, 5 → 4; vertex 1 has no arcs in the small store.
    let list = [(0, 2), (2, 3), (2, 4), (3, 0), (3, 4), (5, 4)];
    let list: Vec<(u32, u32, f64)> = list.iter().map(|&(u, v)| (u, v, 1.0)).collect();
    build_from(&small, &list, false, false, Codec::Raw);
    let big = tmp.path().join("big");
    std::fs::create_dir(&big).unwrap();
    let small_store = Store::open(&small).unwrap();
    let offsets: Vec<u64> = small_store.offsets().to_vec();
    let neighbors: Vec<u32> = small_store.neighbors().to_vec();
    drop(small_store);
    let n = offsets.len() - 1;
    // Vertex 1's list grows by PAD arcs; the later lists move up by as much.
    let padded: Vec<u64> = offsets
        .iter()
        .enumerate()
        .map(|(v, &o)| if v >= 2 { o + PAD } else { o })
        .collect();
    let arcs = padded[n];
    let file = std::fs::File::create(big.join("neighbors.u32")).unwrap();
    file.set_len(4 * arcs).unwrap();
    if file.metadata().unwrap().blocks() * 512 > 1 << 30 {
        eprintln!(
            "skipped: the file system of {} makes no sparse files",
            big.display()
        );
        return;
    }
    for v in 0..n {
        let ids = &neighbors[offsets[v] as usize..offsets[v + 1] as usize];
        let bytes: Vec<u8> = ids.iter().flat_map(|x| x.to_le_bytes()).collect();
        file.write_all_at(&bytes, 4 * padded[v]).unwrap();
    }
    file.sync_all().unwrap();
    drop(file);
    let offset_bytes: Vec<u8> = padded.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(big.join("offsets.u64"), &offset_bytes).unwrap();

    // The manifest: the small store's, with the new sizes, checksums and page checksums.
    let page = vastgraph_store::PAGE_BYTES;
    let sums_entry = |name: &str, sums: &[u32]| {
        let bytes: Vec<u8> = sums.iter().flat_map(|s| s.to_le_bytes()).collect();
        std::fs::write(big.join(format!("{name}.pagesums")), &bytes).unwrap();
        serde_json::json!({
            "name": format!("{name}.pagesums"),
            "page_bytes": page,
            "bytes": bytes.len(),
            "xxh3": format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)),
        })
    };
    let offset_sums: Vec<u32> = offset_bytes
        .chunks(page as usize)
        .map(vastgraph_store::page_sum)
        .collect();
    let offset_sums = sums_entry("offsets.u64", &offset_sums);
    // The pages of the lists other than vertex 1's hold data; the others are the hole's zeros.
    let data_pages: std::collections::BTreeSet<u64> = (0..n)
        .filter(|&v| v != 1 && padded[v + 1] > padded[v])
        .flat_map(|v| 4 * padded[v] / page..=(4 * padded[v + 1] - 1) / page)
        .collect();
    let neighbor_file = std::fs::File::open(big.join("neighbors.u32")).unwrap();
    let zero_page = vec![0u8; page as usize];
    let zero_sum = vastgraph_store::page_sum(&zero_page);
    let mut whole = xxhash_rust::xxh3::Xxh3::new();
    let neighbor_sums: Vec<u32> = (0..(4 * arcs).div_ceil(page))
        .map(|p| {
            let len = (4 * arcs - p * page).min(page) as usize;
            if data_pages.contains(&p) || len < page as usize {
                let mut buf = vec![0u8; len];
                neighbor_file.read_exact_at(&mut buf, p * page).unwrap();
                whole.update(&buf);
                vastgraph_store::page_sum(&buf)
            } else {
                whole.update(&zero_page);
                zero_sum
            }
        })
        .collect();
    let neighbor_sums = sums_entry("neighbors.u32", &neighbor_sums);
    let manifest_path = small.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    manifest["arcs"] = arcs.into();
    let entry = |name: &str, bytes: u64, xxh3: u64, sums| serde_json::json!({"name": name, "bytes": bytes, "xxh3": format!("{xxh3:016x}"), "page_sums": sums});
    manifest["files"] = serde_json::json!([
        entry(
            "offsets.u64",
            offset_bytes.len() as u64,
            xxhash_rust::xxh3::xxh3_64(&offset_bytes),
            offset_sums
        ),
        entry("neighbors.u32", 4 * arcs, whole.digest(), neighbor_sums),
    ]);
    std::fs::write(
        big.join("manifest.json"),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();

    for parents in [false, true] {
        for source in [0u64, 5] {
            let params = Params::default()
                .with("source", source)
                .with("parents", parents);
            let want = in_memory(&small, "bfs", &params);
            for mode in MODES {
                for backend in [BackendChoice::Auto, BackendChoice::Pread] {
                    // The page checksums of 16 GiB take 16 MiB.
                    let g = try_open_within(&big, "bfs", mode, 5, backend, true, 32 * MIB).unwrap();
                    assert_eq!(g.num_arcs(), arcs);
                    let what = format!("bfs src={source} parents={parents} {mode:?} {backend:?}");
                    // Without the verifier, which would read vertex 1's list: the in-memory
                    // answer checks the result.
                    let out = budget::run("bfs", &g, &params, false).unwrap();
                    let got = out.output.values.unwrap();
                    assert_same(&want, &got, &what);
                }
            }
        }
    }
}
