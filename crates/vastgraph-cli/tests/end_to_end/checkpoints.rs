//! `run --checkpoint DIR`: a run killed with SIGKILL, or stopped with Ctrl-C, continues with
//! `--resume` to the result of an uninterrupted run, in memory or within a budget. Without a
//! checkpoint, an interrupt stops the run at once and leaves no output.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{assert_same_npy, ok, stderr, vastgraph};

/// A symmetric weighted Kronecker graph of 2^16 vertices and 1.8M arcs.
fn store(dir: &Path) -> String {
    let store = dir.join("k16");
    let s = store.to_str().unwrap().to_string();
    ok(&[
        "generate",
        "kron",
        "--scale",
        "16",
        "--symmetrize",
        "--weighted",
        "-o",
        &s,
    ]);
    s
}

/// PageRank for 3000 iterations, saving after every one: several seconds, whatever the disk.
const PAGERANK: &[&str] = &["run", "pagerank", "--tolerance", "0", "--max-iters", "3000"];

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_vastgraph"))
        .arg("--quiet")
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `file` exists (the first save), then `more`.
fn wait_for(file: &Path, child: &mut Child, more: Duration) {
    let start = Instant::now();
    while !file.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its first save"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no checkpoint after 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(more);
}

fn stats(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_run_killed_with_sigkill_resumes_to_the_uninterrupted_result() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let whole = path("whole.npy");
    ok(&[PAGERANK, &[s.as_str(), "--output", &whole]].concat());

    let checkpoint = path("checkpoint");
    let file = dir.path().join("checkpoint/checkpoint.vgck");
    let mut args = [PAGERANK, &[s.as_str(), "--checkpoint", &checkpoint]].concat();
    args.extend(["--checkpoint-every", "1", "--output", "never.npy"]);
    let mut child = spawn(&args);
    wait_for(&file, &mut child, Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run must still be going"
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    // Without --resume the checkpoint is not overwritten.
    let o = vastgraph(&[PAGERANK, &[s.as_str(), "--checkpoint", &checkpoint]].concat());
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
    // Other parameters are refused, naming the file.
    let o = vastgraph(&[
        "run",
        "pagerank",
        &s,
        "--max-iters",
        "3000",
        "--checkpoint",
        &checkpoint,
        "--resume",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("checkpoint.vgck: saved with other parameters"),
        "{}",
        stderr(&o)
    );

    let (resumed, stats_file) = (path("resumed.npy"), path("stats.json"));
    let mut args = [
        PAGERANK,
        &[s.as_str(), "--checkpoint", &checkpoint, "--resume"],
    ]
    .concat();
    args.extend(["--output", &resumed, "--stats", &stats_file]);
    let o = ok(&args);
    let from = stats(Path::new(&stats_file))["resumed_from_iteration"]
        .as_u64()
        .unwrap();
    assert!((1..3000).contains(&from), "resumed from {from}");
    assert!(stderr(&o).contains(&format!("resumed from iteration {from}")));
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&resumed).unwrap(),
        "bit for bit"
    );
    assert!(!file.exists(), "a finished run removes its checkpoint");
}

#[test]
fn ctrl_c_saves_and_the_run_resumes_within_a_budget() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // Fewer iterations: the resumed run reads the store from disk in every one.
    let pagerank = ["run", "pagerank", "--tolerance", "0", "--max-iters", "300"];
    let whole = path("whole.npy");
    ok(&[&pagerank[..], &[s.as_str(), "--output", &whole]].concat());

    let checkpoint = path("checkpoint");
    let file = dir.path().join("checkpoint/checkpoint.vgck");
    let mut args = [&pagerank[..], &[s.as_str(), "--checkpoint", &checkpoint]].concat();
    args.extend(["--checkpoint-every", "1"]);
    let mut child = spawn(&args);
    wait_for(&file, &mut child, Duration::ZERO);
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("--resume to continue"), "{message}");

    // The store is 15 MB; 6 MiB holds the scores and a cache of blocks.
    let resumed = path("resumed.npy");
    let mut args = [
        &pagerank[..],
        &[s.as_str(), "--checkpoint", &checkpoint, "--resume"],
    ]
    .concat();
    args.extend(["--memory", "6MiB", "--output", &resumed]);
    let o = ok(&args);
    assert!(
        stderr(&o).contains("resumed from iteration"),
        "{}",
        stderr(&o)
    );
    assert_same_npy(
        Path::new(&whole),
        Path::new(&resumed),
        "pagerank resumed within a budget",
    );
}

#[test]
fn checkpoint_options_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let checkpoint = dir.path().join("c");
    let c = checkpoint.to_str().unwrap();
    for (args, expect) in [
        (
            vec!["run", "cc", &s, "--checkpoint", c],
            "does not save checkpoints",
        ),
        (
            vec!["run", "bfs", &s, "--checkpoint", c, "--resume"],
            "no checkpoint to resume from",
        ),
        (
            vec![
                "run",
                "bfs",
                &s,
                "--checkpoint",
                c,
                "--checkpoint-every",
                "0",
            ],
            "above 0",
        ),
        (
            vec!["run", "bfs", &s, "--checkpoint", c, "--trials", "2"],
            "one run",
        ),
        (vec!["run", "bfs", &s, "--resume"], "--checkpoint"),
        // Refused for its budget once the directory is taken.
        (
            vec![
                "run",
                "pagerank",
                &s,
                "--checkpoint",
                c,
                "--memory",
                "256KiB",
            ],
            "the minimum is --memory",
        ),
    ] {
        let o = vastgraph(&args);
        assert!(!o.status.success(), "{args:?}");
        assert!(stderr(&o).contains(expect), "{args:?}: {}", stderr(&o));
        assert!(!checkpoint.exists(), "{args:?} left {c} behind");
    }
    // kcore and bfs run to the end and leave no checkpoint behind.
    for algorithm in ["kcore", "bfs"] {
        ok(&[
            "run",
            algorithm,
            &s,
            "--checkpoint",
            c,
            "--checkpoint-every",
            "1",
        ]);
        assert!(!checkpoint.join("checkpoint.vgck").exists());
        assert!(
            !checkpoint.exists(),
            "the directory the run made is removed with it"
        );
    }
    // A directory the user made stays.
    std::fs::create_dir(&checkpoint).unwrap();
    ok(&["run", "bfs", &s, "--checkpoint", c]);
    assert!(checkpoint.is_dir());
}

#[test]
fn an_interrupt_stops_a_run_without_a_checkpoint_at_once_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    for (budget, signal) in [(None, libc::SIGTERM), (Some("6MiB"), libc::SIGINT)] {
        let output = dir.path().join("scores.npy");
        let stats = dir.path().join("stats.json");
        let mut args = [
            PAGERANK,
            &[&s, "--output", output.to_str().unwrap()],
            &["--stats", stats.to_str().unwrap()],
        ]
        .concat();
        if let Some(budget) = budget {
            args.extend(["--memory", budget]);
        }
        let mut child = spawn(&args);
        std::thread::sleep(Duration::from_millis(700));
        unsafe { libc::kill(child.id() as i32, signal) };
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "a run not stopped 10 s after one interrupt ({budget:?})"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(128 + signal), "{budget:?}");
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(message.contains("interrupted"), "{message}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name != "k16")
            .collect();
        assert!(left.is_empty(), "left behind: {left:?} ({budget:?})");
    }
}
