//! A small valid store (raw symmetric and weighted; compressed; directed with a transpose, with
//! page checksums or without) damaged by the input: bytes of one of its files flipped, the file
//! cut short, or the manifest edited. Opening it, verifying it, and running algorithms on it in
//! memory and out of core (where pages are validated as they arrive) give results or errors,
//! never a panic.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use vastgraph_algos::budget::{self, BudgetFit};
use vastgraph_algos::registry::{self, Params};
use vastgraph_engine::ooc::{BackendChoice, DeviceProfile, IoMode, OocOptions};
use vastgraph_store::{BuildOptions, Codec, Store, StoreBuilder};

/// The pristine stores, built once per process.
fn pristine() -> &'static (tempfile::TempDir, Vec<PathBuf>) {
    static STORES: OnceLock<(tempfile::TempDir, Vec<PathBuf>)> = OnceLock::new();
    STORES.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut x = 7u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges: Vec<(u32, u32)> = (0..400)
            .map(|_| ((next() % 60) as u32, (next() % 60) as u32))
            .collect();
        let src: Vec<u32> = edges.iter().map(|e| e.0).collect();
        let dst: Vec<u32> = edges.iter().map(|e| e.1).collect();
        let weights: Vec<f64> = (0..edges.len()).map(|i| (i % 9 + 1) as f64).collect();
        let mut stores = Vec::new();
        for (name, symmetrize, codec) in [
            ("raw", true, Codec::Raw),
            ("compressed", true, Codec::FrameOfReference64),
            ("directed", false, Codec::Raw),
        ] {
            let target = dir.path().join(name);
            let mut builder = StoreBuilder::create(
                &target,
                BuildOptions {
                    symmetrize,
                    transpose: !symmetrize,
                    weighted: true,
                    memory_bytes: 16 << 20,
                    codec,
                    ..Default::default()
                },
            )
            .expect("a builder");
            builder
                .push_batch(&src, &dst, Some(&weights))
                .expect("edges");
            builder.finish().expect("a store");
            stores.push(target);
        }
        (dir, stores)
    })
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir(to).expect("a copy");
    for entry in std::fs::read_dir(from).expect("the store") {
        let path = entry.expect("an entry").path();
        std::fs::copy(&path, to.join(path.file_name().expect("a name"))).expect("copied");
    }
}

fuzz_target!(|input: &[u8]| {
    if input.len() < 3 {
        return;
    }
    let (_, stores) = pristine();
    let work = tempfile::tempdir().expect("a temporary directory");
    let dir = work.path().join("g");
    copy(&stores[input[0] as usize % stores.len()], &dir);
    // Without page checksums, so that damage reaches the structural checks on their own.
    if input[2] % 4 == 1 {
        vastgraph_testkit::without_page_sums(&dir);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the copy")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    let file = &files[input[1] as usize % files.len()];
    let mut bytes = std::fs::read(file).expect("read");
    if input[2] % 4 == 0 {
        // Cut short.
        bytes.truncate(u16::from_le_bytes([input[2], *input.get(3).unwrap_or(&0)]) as usize);
    }
    // Then (position, xor) pairs.
    for pair in input[3..].chunks_exact(3) {
        if bytes.is_empty() {
            break;
        }
        let at = u16::from_le_bytes([pair[0], pair[1]]) as usize % bytes.len();
        bytes[at] ^= pair[2];
    }
    std::fs::write(file, &bytes).expect("written");

    if let Ok(store) = Store::open(&dir) {
        let _ = store.verify_structure();
        for algorithm in ["bfs", "pagerank", "cc", "sssp", "kcore"] {
            let _ = registry::run_on_store(&store, algorithm, &Params::default(), false);
        }
    }
    let options = || OocOptions {
        mode: [IoMode::Adaptive, IoMode::Selective, IoMode::Streaming][input[1] as usize % 3],
        max_reentries: 2,
        backend: BackendChoice::Pread,
        direct: false,
        profile: Some(DeviceProfile {
            sequential_bytes_per_second: 2e9,
            random_reads_per_second: 2e5,
        }),
        recalibrate: false,
        ..OocOptions::default()
    };
    // kcore and tc run their in-memory kernels over the lists on disk.
    for algorithm in ["bfs", "pagerank", "cc", "sssp", "kcore", "tc"] {
        let params = Params::default();
        if let Ok(BudgetFit::OutOfCore(g)) =
            budget::open_within_budget(&dir, algorithm, &params, 8 << 20, options())
        {
            let _ = budget::run(algorithm, &g, &params, false);
        }
    }
});
