//! SIGINT or SIGTERM during any command that works for a while: the process exits with 128 +
//! the signal, says it was interrupted, and leaves nothing at its output and no staged file
//! beside it; a store it was adding tiles to is left as it was. (A kernel's run is interrupted
//! in `checkpoints.rs`, with a checkpoint and without, in memory and within a budget.)

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::ok;

/// What one interrupted command did.
struct Interrupted {
    code: Option<i32>,
    stderr: String,
    /// From the signal to the process's exit.
    exit_after: Duration,
}

/// Whether process `pid` has a handler for `signal` (its `SigCgt` mask in /proc): sent before,
/// the signal would end the process by its default action, not through the command's handler.
fn catches(pid: u32, signal: i32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (signal - 1)) != 0)
}

/// Runs `vastgraph --quiet ARGS`, sends `signal` `delay` after its handler is installed, and
/// waits for it.
fn interrupt(args: &[&str], signal: i32, delay: Duration) -> Interrupted {
    let child = Command::new(env!("CARGO_BIN_EXE_vastgraph"))
        .arg("--quiet")
        .args(args)
        .env(
            "XDG_CACHE_HOME",
            std::env::temp_dir().join("vastgraph-test-cache"),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the vastgraph binary runs");
    let start = Instant::now();
    while !catches(child.id(), signal) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{args:?}: no handler for the signal"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(delay);
    let sent = Instant::now();
    // SAFETY: kill(2) on the child's pid; the child has not been waited for, so the pid is
    // still the child's.
    unsafe { libc::kill(child.id() as i32, signal) };
    let out = child.wait_with_output().expect("the child is waited for");
    Interrupted {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        exit_after: sent.elapsed(),
    }
}

/// The entries of `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// 2^24 random edges among 2^20 vertices as a binary edge list (128 MiB).
fn random_edges(path: &Path) {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut bytes = Vec::with_capacity(128 << 20);
    for _ in 0..(16u32 << 20) {
        for _ in 0..2 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            bytes.extend_from_slice(&((x % (1 << 20)) as u32).to_le_bytes());
        }
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn an_interrupted_command_exits_with_the_signal_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).display().to_string();
    let store = at("k20");
    ok(&[
        "generate",
        "kron",
        "--scale",
        "20",
        "--symmetrize",
        "--weighted",
        "-o",
        &store,
    ]);
    let edges = at("edges.bin32");
    random_edges(Path::new(&edges));
    let store_files = entries(Path::new(&store));
    let before = entries(dir.path());

    // (arguments, the output that must not appear, the signal)
    let (sigint, sigterm) = (libc::SIGINT, libc::SIGTERM);
    let cases: Vec<(Vec<String>, Option<PathBuf>, i32)> = vec![
        (
            vec!["convert".into(), edges.clone(), "-o".into(), at("conv")],
            Some(at("conv").into()),
            sigint,
        ),
        (
            ["generate", "kron", "--scale", "21", "-o"]
                .map(String::from)
                .into_iter()
                .chain([at("gen")])
                .collect(),
            Some(at("gen").into()),
            sigterm,
        ),
        (
            vec!["compress".into(), store.clone(), "-o".into(), at("comp")],
            Some(at("comp").into()),
            sigint,
        ),
        (
            vec!["reorder".into(), store.clone(), "-o".into(), at("deg")],
            Some(at("deg").into()),
            sigterm,
        ),
        (
            vec![
                "export".into(),
                store.clone(),
                "--format".into(),
                "tsv".into(),
                "-o".into(),
                at("arcs.tsv"),
            ],
            Some(at("arcs.tsv").into()),
            sigint,
        ),
        (
            vec![
                "export".into(),
                store.clone(),
                "--format".into(),
                "parquet".into(),
                "-o".into(),
                at("arcs.pq"),
            ],
            Some(at("arcs.pq").into()),
            sigterm,
        ),
        (
            vec!["info".into(), store.clone(), "--verify".into()],
            None,
            sigint,
        ),
        // Last: it adds to the store the others read.
        (vec!["tile".into(), store.clone()], None, sigint),
    ];
    for (args, output, signal) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = interrupt(&args, signal, Duration::from_millis(150));
        assert_eq!(
            r.code,
            Some(128 + signal),
            "{args:?}: exit code after the signal (a command that finished first needs a \
             larger input); stderr: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains("interrupted"),
            "{args:?}: the message says so: {}",
            r.stderr
        );
        assert!(
            r.exit_after < Duration::from_secs(10),
            "{args:?}: took {:?} to stop",
            r.exit_after
        );
        if let Some(output) = output {
            assert!(
                !output.exists(),
                "{args:?}: {} was written",
                output.display()
            );
        }
        assert_eq!(
            entries(dir.path()),
            before,
            "{args:?}: files left beside the output"
        );
        assert_eq!(
            entries(Path::new(&store)),
            store_files,
            "{args:?}: the store changed"
        );
    }
    // The store is whole after all of it.
    ok(&["info", &store, "--verify"]);
}

/// A store's file truncated by another process under a run that has it mapped: the fault
/// (SIGBUS) ends the run with exit 1 and a message, not with "Bus error" and no word.
#[test]
fn a_file_truncated_under_a_run_ends_it_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("k16");
    let s = store.to_str().unwrap();
    ok(&["generate", "kron", "--scale", "16", "--symmetrize", "-o", s]);
    let args = [
        "--quiet",
        "run",
        "pagerank",
        s,
        "--tolerance",
        "0",
        "--max-iters",
        "1000000",
    ];
    let child = Command::new(env!("CARGO_BIN_EXE_vastgraph"))
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Truncated once the run has its handlers and, a moment later, its map.
    let start = Instant::now();
    while !catches(child.id(), libc::SIGBUS) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(500));
    let neighbors = std::fs::OpenOptions::new()
        .write(true)
        .open(store.join("neighbors.u32"))
        .unwrap();
    neighbors.set_len(4096).unwrap();
    let mut child = child;
    let truncated = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if truncated.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("the run went on for a minute on a truncated file");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("shrank while it was read"), "{stderr}");
}
