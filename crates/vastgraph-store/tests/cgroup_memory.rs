//! The memory budget holds for real: a child process builds a store from an edge stream
//! many times larger than its budget inside a cgroup-v1 memory cgroup limited to
//! budget + 64 MiB, and the result is compared with an independent in-memory computation.
//! Skips (with a message) where no writable v1 memory controller exists.

use vastgraph_store::synthetic::RandomEdges;
use vastgraph_store::Store;
use vastgraph_testkit::MemoryCgroup;

const MIB: u64 = 1 << 20;
const BUDGET: u64 = 32 * MIB;
const SLACK: u64 = 64 * MIB;
/// 8.6x the budget in 8-byte edges.
const EDGES: u64 = 36_000_000;
/// Few enough vertices that many arcs repeat across runs.
const VERTICES: u64 = 1 << 14;
const SEED: u64 = 2024;

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
    let limit = BUDGET + SLACK;
    let cgroup = match MemoryCgroup::create("vastgraph-store-test", limit) {
        Ok(cgroup) => cgroup,
        Err(reason) => {
            println!("SKIP out_of_core_build_stays_within_budget_in_a_memory_cgroup: {reason}");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    let output = cgroup
        .command(env!("CARGO_BIN_EXE_vastgraph-build-bench"))
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
    let (max_usage, oom_kills) = (cgroup.max_usage(), cgroup.oom_kills());
    println!("child: {stdout}");
    println!(
        "cgroup limit {} MiB, max usage {} MiB (page cache included); {oom_kills} OOM kills",
        limit / MIB,
        max_usage / MIB,
    );
    assert!(
        output.status.success(),
        "child failed ({:?}): {stderr}",
        output.status
    );
    assert!(max_usage <= limit);
    assert_eq!(oom_kills, 0);
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
