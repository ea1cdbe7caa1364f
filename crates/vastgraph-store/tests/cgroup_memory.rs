//! The memory budget holds for real: a child process builds a store from an edge stream
//! many times larger than its budget inside a cgroup-v1 memory cgroup limited to
//! budget + 64 MiB, and the result is compared with an independent in-memory computation.
//! Skips (with a message) where no writable v1 memory controller exists.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use vastgraph_store::synthetic::RandomEdges;
use vastgraph_store::Store;

const MIB: u64 = 1 << 20;
const BUDGET: u64 = 32 * MIB;
const SLACK: u64 = 64 * MIB;
/// 8.6x the budget in 8-byte edges.
const EDGES: u64 = 36_000_000;
/// Few enough vertices that many arcs repeat across runs.
const VERTICES: u64 = 1 << 14;
const SEED: u64 = 2024;

/// A memory cgroup, removed when dropped.
struct Cgroup(PathBuf);

impl Cgroup {
    fn create() -> Result<Cgroup, String> {
        let root = Path::new("/sys/fs/cgroup/memory");
        if !root.join("memory.limit_in_bytes").exists() {
            return Err(format!(
                "no cgroup v1 memory controller at {}",
                root.display()
            ));
        }
        let path = root.join(format!("vastgraph-store-test-{}", std::process::id()));
        fs::create_dir(&path)
            .map_err(|e| format!("cannot create {}: {e} (needs root)", path.display()))?;
        Ok(Cgroup(path))
    }

    fn write(&self, file: &str, value: &str) {
        fs::write(self.0.join(file), value).unwrap_or_else(|e| panic!("write {file}: {e}"));
    }

    fn read(&self, file: &str) -> String {
        fs::read_to_string(self.0.join(file)).unwrap_or_else(|e| panic!("read {file}: {e}"))
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = fs::remove_dir(&self.0);
    }
}

fn field(output: &str, key: &str) -> u64 {
    output
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in {output:?}"))
}

/// The sorted, distinct (src << 32 | dst) keys of the edge stream, self-loops removed.
fn expected_keys(transposed: bool) -> Vec<u64> {
    let mut stream = RandomEdges::new(SEED, VERTICES, EDGES);
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    let mut keys = Vec::with_capacity(EDGES as usize);
    loop {
        stream.next_batch(&mut src, &mut dst, 1 << 20);
        if src.is_empty() {
            break;
        }
        for (&s, &d) in src.iter().zip(&dst) {
            if s != d {
                let (a, b) = if transposed { (d, s) } else { (s, d) };
                keys.push(((a as u64) << 32) | b as u64);
            }
        }
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn assert_direction(offsets: &[u64], neighbors: &[u32], keys: &[u64], what: &str) {
    assert_eq!(neighbors.len(), keys.len(), "{what}: arc count");
    let mut expected_offsets = vec![0u64; VERTICES as usize + 1];
    for &k in keys {
        expected_offsets[(k >> 32) as usize + 1] += 1;
    }
    for v in 0..VERTICES as usize {
        expected_offsets[v + 1] += expected_offsets[v];
    }
    assert!(
        offsets == expected_offsets.as_slice(),
        "{what}: offsets differ"
    );
    assert!(
        neighbors.iter().zip(keys).all(|(&n, &k)| n == k as u32),
        "{what}: neighbours differ"
    );
}

#[test]
fn out_of_core_build_stays_within_budget_in_a_memory_cgroup() {
    let cgroup = match Cgroup::create() {
        Ok(cgroup) => cgroup,
        Err(reason) => {
            println!("SKIP out_of_core_build_stays_within_budget_in_a_memory_cgroup: {reason}");
            return;
        }
    };
    let limit = BUDGET + SLACK;
    cgroup.write("memory.limit_in_bytes", &limit.to_string());
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    // The shell moves itself into the cgroup before exec'ing the builder, so every byte
    // the builder touches is charged there.
    let output = Command::new("sh")
        .arg("-c")
        .arg(r#"echo $$ > "$0/cgroup.procs" && exec "$@""#)
        .arg(&cgroup.0)
        .arg(env!("CARGO_BIN_EXE_vastgraph-build-bench"))
        .args([
            "--edges",
            &EDGES.to_string(),
            "--vertices",
            &VERTICES.to_string(),
        ])
        .args([
            "--memory",
            &BUDGET.to_string(),
            "--seed",
            &SEED.to_string(),
            "--transpose",
            "-o",
        ])
        .arg(&target)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let max_usage: u64 = cgroup
        .read("memory.max_usage_in_bytes")
        .trim()
        .parse()
        .unwrap();
    let oom_control = cgroup.read("memory.oom_control");
    println!("child: {stdout}");
    println!(
        "cgroup limit {} MiB, max usage {} MiB (page cache included); {}",
        limit / MIB,
        max_usage / MIB,
        oom_control.replace('\n', ", ")
    );
    assert!(
        output.status.success(),
        "child failed ({:?}): {stderr}",
        output.status
    );
    assert!(max_usage <= limit);
    assert!(!oom_control
        .lines()
        .any(|l| l.starts_with("oom_kill ") && l != "oom_kill 0"));
    let peak_rss = field(&stdout, "peak_rss_bytes");
    assert!(
        peak_rss <= limit,
        "peak RSS {} MiB exceeds budget + slack {} MiB",
        peak_rss / MIB,
        limit / MIB
    );

    let store = Store::open(&target).unwrap();
    store.verify_checksums().unwrap();
    assert_eq!(store.num_vertices() as u64, VERTICES);
    let forward = expected_keys(false);
    assert_eq!(field(&stdout, "arcs"), forward.len() as u64);
    assert!(
        store.manifest().dropped.duplicate_arcs > 0,
        "the test should exercise de-duplication"
    );
    assert_direction(store.offsets(), store.neighbors(), &forward, "out-edges");
    drop(forward);
    let backward = expected_keys(true);
    assert_direction(
        store.in_offsets().unwrap(),
        store.in_neighbors().unwrap(),
        &backward,
        "in-edges",
    );
}
