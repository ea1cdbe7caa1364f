//! `vastgraph run --memory`: the out-of-core path end to end. A run inside a cgroup-v1 memory
//! cgroup limited to the budget plus the process allowance succeeds on a graph several times
//! larger than the budget and gives the in-memory result; a budget below the O(n) state is
//! refused before anything runs, naming the minimum.

use std::fs;
use std::path::Path;

use vastgraph_testkit::MemoryCgroup;

use crate::common::vastgraph;

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
    // No out-of-core kernel and too big for the budget: a clear refusal.
    let o = vastgraph(&["run", "kcore", &store, "--memory", "1MiB"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no out-of-core kernel"));
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
        let modes = s["iteration_modes"].as_array().unwrap();
        assert_eq!(modes.len() as u64, s["iterations"].as_u64().unwrap());
        if mode != "adaptive" {
            assert!(modes.iter().all(|m| m == mode), "{modes:?}");
        }
        assert!(s["io_amplification"].as_f64().unwrap() >= 1.0);
        assert!(s["peak_rss_bytes"].as_u64().is_some());
    }
}

#[test]
fn out_of_core_bfs_stays_within_budget_in_a_memory_cgroup() {
    let budget = 8 * MIB;
    let limit = budget + PROCESS_ALLOWANCE;
    let cgroup = match MemoryCgroup::create("vastgraph-ooc-test", limit) {
        Ok(c) => c,
        Err(reason) => {
            println!("SKIP out_of_core_bfs_stays_within_budget_in_a_memory_cgroup: {reason}");
            return;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    // 2^18 vertices, ~7.6M arcs: 29 MiB of neighbour ids, several times the budget.
    let store = generate(tmp.path(), 18);
    let neighbors = fs::metadata(Path::new(&store).join("neighbors.u32"))
        .unwrap()
        .len();
    assert!(neighbors > 3 * budget);
    let reference = tmp.path().join("in-memory.npy");
    let o = vastgraph(&["run", "bfs", &store, "-o", reference.to_str().unwrap()]);
    assert!(o.status.success());
    for algorithm in ["bfs", "pagerank"] {
        let out = tmp.path().join(format!("{algorithm}.npy"));
        let stats_path = tmp.path().join(format!("{algorithm}.json"));
        let output = cgroup
            .command(env!("CARGO_BIN_EXE_vastgraph"))
            .args([
                "--quiet",
                "run",
                algorithm,
                &store,
                "--memory",
                &budget.to_string(),
            ])
            .args([
                "--max-iters",
                "5",
                "-o",
                out.to_str().unwrap(),
                "--stats",
                stats_path.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let max_usage = cgroup.max_usage();
        println!(
            "{algorithm}: {stderr}cgroup limit {} MiB, max usage {} MiB",
            limit / MIB,
            max_usage / MIB
        );
        assert!(
            output.status.success(),
            "{algorithm} failed ({:?}): {stderr}",
            output.status
        );
        assert!(max_usage <= limit);
        assert_eq!(cgroup.oom_kills(), 0, "{algorithm} was OOM-killed");
        let s = stats(&stats_path);
        let peak = s["peak_rss_bytes"].as_u64().unwrap();
        assert!(
            peak <= limit,
            "peak RSS {} MiB over {} MiB",
            peak / MIB,
            limit / MIB
        );
        assert!(s["bytes_read"].as_u64().unwrap() >= neighbors / 2);
        if algorithm == "bfs" {
            assert_eq!(fs::read(&out).unwrap(), fs::read(&reference).unwrap());
        }
    }
}
