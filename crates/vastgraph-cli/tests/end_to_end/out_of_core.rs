//! `vastgraph run --memory`: the out-of-core path end to end. A run inside a cgroup-v1 memory
//! cgroup limited to the budget plus the process allowance succeeds on a graph several times
//! larger than the budget and gives the in-memory result; a budget below the O(n) state is
//! refused before anything runs, naming the minimum.

use std::fs;
use std::path::Path;

use vastgraph_testkit::MemoryCgroup;

use crate::common::{assert_same_npy, vastgraph};

const MIB: u64 = 1 << 20;
/// The engine's allowance for the process itself (code, threads), outside the budget.
const PROCESS_ALLOWANCE: u64 = 48 * MIB;

fn generate(dir: &Path, scale: u32) -> String {
    let store = dir.join(format!("kron{scale}"));
    let s = store.display().to_string();
    let o = vastgraph(&[
        "generate",
        "kron",
        "--scale",
        &scale.to_string(),
        "--symmetrize",
        "-o",
        &s,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    s
}

fn stats(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn too_small_a_budget_fails_before_starting_with_the_minimum() {
    let tmp = tempfile::tempdir().unwrap();
    let store = generate(tmp.path(), 14);
    let o = vastgraph(&["run", "pagerank", &store, "--memory", "256KiB"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("the minimum is --memory"), "{err}");
    // The minimum it names is enough.
    let minimum = err
        .split("the minimum is --memory ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap()
        .to_string();
    let o = vastgraph(&["run", "pagerank", &store, "--memory", &minimum, "--verify"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // An algorithm without a kernel of passes is refused the same way, naming its state.
    let o = vastgraph(&["run", "kcore", &store, "--memory", "256KiB"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("kcore: a memory budget of 256.0 KiB is too small")
            && err.contains("the algorithm's vertex state"),
        "{err}"
    );
}

#[test]
fn modes_agree_and_report_io_statistics() {
    let tmp = tempfile::tempdir().unwrap();
    let store = generate(tmp.path(), 15);
    let reference = tmp.path().join("in-memory.npy");
    let o = vastgraph(&[
        "run",
        "bfs",
        &store,
        "--source",
        "3",
        "-o",
        reference.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    for mode in ["adaptive", "selective", "streaming"] {
        let out = tmp.path().join(format!("{mode}.npy"));
        let stats_path = tmp.path().join(format!("{mode}.json"));
        let o = vastgraph(&[
            "run",
            "bfs",
            &store,
            "--source",
            "3",
            "--memory",
            "4MiB",
            "--io-mode",
            mode,
            "-o",
            out.to_str().unwrap(),
            "--stats",
            stats_path.to_str().unwrap(),
            "--verify",
        ]);
        assert!(
            o.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            fs::read(&out).unwrap(),
            fs::read(&reference).unwrap(),
            "{mode}"
        );
        let s = stats(&stats_path);
        assert!(s["bytes_read"].as_u64().unwrap() > 0);
        // One pass over lists per level, and the side files read by the first pull only (the
        // hub's neighbours make the second level dense): a sample of the first neighbours,
        // then the first neighbours or the list heads or both (on this Kronecker graph in no
        // degree order, the heads spare reads).
        let modes = s["iteration_modes"].as_array().unwrap();
        let side_modes = ["first-neighbours-sample", "first-neighbours", "list-heads"];
        let side = |m: &&serde_json::Value| side_modes.iter().any(|s| *m == s);
        let (sides, lists): (Vec<_>, Vec<_>) = modes.iter().partition(side);
        assert!(
            (2..=3).contains(&sides.len()) && sides[0] == "first-neighbours-sample",
            "{modes:?}"
        );
        assert_eq!(lists.len() as u64, s["iterations"].as_u64().unwrap());
        if mode != "adaptive" {
            assert!(lists.iter().all(|&m| m == mode), "{modes:?}");
        }
        assert!(s["io_amplification"].as_f64().unwrap() >= 1.0);
        assert!(s["peak_rss_bytes"].as_u64().is_some());
    }
}

/// A weighted kernel reads two files per request (ids and weights); measuring the device
/// through that engine (`--recalibrate`, as a first run with no cached profile does) panicked
/// before it read its one file through the first part only.
#[test]
fn a_weighted_run_measures_the_device_and_gives_the_in_memory_distances() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("weighted").display().to_string();
    let o = vastgraph(&[
        "generate",
        "kron",
        "--scale",
        "12",
        "--weighted",
        "--symmetrize",
        "-o",
        &store,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reference = tmp.path().join("in-memory.npy");
    let out = tmp.path().join("out-of-core.npy");
    let o = vastgraph(&["run", "sssp", &store, "-o", reference.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = vastgraph(&[
        "run",
        "sssp",
        &store,
        "--memory",
        "16MiB",
        "--recalibrate",
        "--verify",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read(&out).unwrap(), fs::read(&reference).unwrap());
}

/// Raw and compressed: each store's lists are larger than its budget, and the run (bfs, pagerank)
/// stays inside a memory cgroup of the budget plus the process allowance. A compressed store
/// holds a second offset array (byte offsets), so its budget is larger.
#[test]
fn out_of_core_bfs_stays_within_budget_in_a_memory_cgroup() {
    let tmp = tempfile::tempdir().unwrap();
    // 2^18 vertices, ~7.6M arcs: 29 MiB of neighbour ids, 14 MiB of codes.
    let raw = generate(tmp.path(), 18);
    let packed = tmp.path().join("kron18-svb").display().to_string();
    let o = vastgraph(&["compress", &raw, "-o", &packed]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reference = tmp.path().join("in-memory.npy");
    let o = vastgraph(&["run", "bfs", &raw, "-o", reference.to_str().unwrap()]);
    assert!(o.status.success());
    for (store, ids_file, budget) in [
        (&raw, "neighbors.u32", 8 * MIB),
        (&packed, "neighbors.bc64", 12 * MIB),
    ] {
        let limit = budget + PROCESS_ALLOWANCE;
        let cgroup = match MemoryCgroup::create("vastgraph-ooc-test", limit) {
            Ok(c) => c,
            Err(reason) => {
                println!("SKIP out_of_core_bfs_stays_within_budget_in_a_memory_cgroup: {reason}");
                return;
            }
        };
        let ids = fs::metadata(Path::new(store).join(ids_file)).unwrap().len();
        assert!(ids > budget, "{ids_file}: {ids} bytes");
        for algorithm in ["bfs", "pagerank"] {
            let what = format!("{algorithm} on {ids_file}");
            let out = tmp.path().join(format!("{algorithm}-{ids_file}.npy"));
            let stats_path = tmp.path().join(format!("{algorithm}-{ids_file}.json"));
            let output = cgroup
                .command(env!("CARGO_BIN_EXE_vastgraph"))
                .args(["--quiet", "run", algorithm, store])
                .args(["--memory", &budget.to_string()])
                .args(if algorithm == "pagerank" {
                    &["--max-iters", "5"][..]
                } else {
                    &[]
                })
                .args(["-o", out.to_str().unwrap()])
                .args(["--stats", stats_path.to_str().unwrap()])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            let max_usage = cgroup.max_usage();
            println!(
                "{what}: {stderr}cgroup limit {} MiB, max usage {} MiB",
                limit / MIB,
                max_usage / MIB
            );
            assert!(
                output.status.success(),
                "{what} failed ({:?}): {stderr}",
                output.status
            );
            assert!(max_usage <= limit);
            assert_eq!(cgroup.oom_kills(), 0, "{what} was OOM-killed");
            let s = stats(&stats_path);
            let peak = s["peak_rss_bytes"].as_u64().unwrap();
            assert!(
                peak <= limit,
                "{what}: peak RSS {} MiB over {} MiB",
                peak / MIB,
                limit / MIB
            );
            // pagerank streams every list at each iteration; bfs reads only its frontiers'
            // pages and the list heads, which may be a small part of the file.
            let least = if algorithm == "pagerank" { 5 * ids } else { 1 };
            assert!(s["bytes_read"].as_u64().unwrap() >= least, "{what}");
            if algorithm == "bfs" {
                assert_eq!(
                    fs::read(&out).unwrap(),
                    fs::read(&reference).unwrap(),
                    "{what}"
                );
            }
        }
    }
}

/// A run of many trials within a budget holds one trial's output at a time, as the budget
/// counts it: 32 PageRank trials on 2^18 vertices would hold 64 MiB of scores if each trial's
/// were kept to the end. The output written is the last trial's, the one a single trial gives.
#[test]
fn trials_within_a_budget_hold_one_output_at_a_time() {
    let tmp = tempfile::tempdir().unwrap();
    let store = generate(tmp.path(), 18);
    let budget = 8 * MIB;
    let run = |trials: &str| {
        let out = tmp.path().join(format!("trials-{trials}.npy"));
        let stats_path = tmp.path().join(format!("trials-{trials}.json"));
        let o = vastgraph(&[
            "run",
            "pagerank",
            &store,
            "--memory",
            &budget.to_string(),
            "--max-iters",
            "1",
            "--trials",
            trials,
            "-o",
            out.to_str().unwrap(),
            "--stats",
            stats_path.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (fs::read(&out).unwrap(), stats(&stats_path))
    };
    let (one, _) = run("1");
    let (many, s) = run("32");
    assert_eq!(s["trial_seconds"].as_array().unwrap().len(), 32);
    assert_eq!(
        s["out_of_core"].as_object().map(|o| o.is_empty()),
        Some(false)
    );
    let peak = s["peak_rss_bytes"].as_u64().unwrap();
    assert!(
        peak <= budget + PROCESS_ALLOWANCE,
        "peak RSS {} MiB over {} MiB",
        peak / MIB,
        (budget + PROCESS_ALLOWANCE) / MIB
    );
    assert_eq!(many, one);
}

/// Every algorithm of the registry, within a budget below its store, stays inside a memory
/// cgroup of the budget plus the process allowance, reads its lists from disk, and writes the
/// in-memory result.
#[test]
fn every_algorithm_stays_within_its_budget_in_a_memory_cgroup() {
    let tmp = tempfile::tempdir().unwrap();
    // 2^15 vertices, ~1M arcs: about 3.8 MiB of ids and as much of weights.
    let store = tmp.path().join("kron15w").display().to_string();
    let o = vastgraph(&[
        "generate",
        "kron",
        "--scale",
        "15",
        "--symmetrize",
        "--weighted",
        "-o",
        &store,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let budget = 7 * MIB;
    let limit = budget + PROCESS_ALLOWANCE;
    let cgroup = match MemoryCgroup::create("vastgraph-every-algorithm", limit) {
        Ok(c) => c,
        Err(reason) => {
            println!("SKIP every_algorithm_stays_within_its_budget_in_a_memory_cgroup: {reason}");
            return;
        }
    };
    let graph_bytes: u64 = fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(
        graph_bytes > budget,
        "the store ({graph_bytes} bytes) fits the budget"
    );
    for info in vastgraph_algos::registry::ALGORITHMS {
        let algorithm = info.name;
        let reference = tmp.path().join(format!("{algorithm}-in-memory.npy"));
        let out = tmp.path().join(format!("{algorithm}.npy"));
        let stats_path = tmp.path().join(format!("{algorithm}.json"));
        let o = vastgraph(&["run", algorithm, &store, "-o", reference.to_str().unwrap()]);
        let has_output = o.status.success();
        let mut command = cgroup.command(env!("CARGO_BIN_EXE_vastgraph"));
        command
            .args(["--quiet", "run", algorithm, &store])
            .args(["--memory", &budget.to_string()])
            .args(["--stats", stats_path.to_str().unwrap()]);
        if has_output {
            command.args(["-o", out.to_str().unwrap()]);
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{algorithm} failed ({:?}): {stderr}",
            output.status
        );
        assert_eq!(cgroup.oom_kills(), 0, "{algorithm} was OOM-killed");
        let s = stats(&stats_path);
        let peak = s["peak_rss_bytes"].as_u64().unwrap();
        assert!(
            peak <= limit,
            "{algorithm}: peak RSS {} MiB over {} MiB",
            peak / MIB,
            limit / MIB
        );
        assert!(
            s["bytes_read"].as_u64().unwrap() > 0,
            "{algorithm} read no lists"
        );
        if has_output {
            assert_same_npy(&reference, &out, algorithm);
        }
    }
    assert!(cgroup.max_usage() <= limit);
}

#[test]
fn a_run_that_reads_nothing_reports_zero_seconds_of_io() {
    let tmp = tempfile::tempdir().unwrap();
    // Vertex 2 has no arcs: bfs from it ends before its first pass.
    let edges = tmp.path().join("e.tsv");
    fs::write(&edges, "0\t1\n1\t2\n").unwrap();
    let store = tmp.path().join("g").display().to_string();
    let o = vastgraph(&["convert", edges.to_str().unwrap(), "-o", &store]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json = tmp.path().join("stats.json");
    let o = vastgraph(&[
        "run",
        "bfs",
        &store,
        "--source",
        "2",
        "--memory",
        "64MiB",
        "--stats",
        json.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("I/O wait 0.000 s, compute 0.000 s"), "{err}");
    let s = stats(&json);
    for key in ["io_wait_seconds", "compute_seconds"] {
        assert!(
            s[key].as_f64().unwrap().is_sign_positive(),
            "{key}: {}",
            s[key]
        );
    }
}
