//! A small valid store (raw symmetric and weighted; compressed; directed with a transpose; each
//! with page checksums and without) damaged by the input: bytes of one of its files flipped,
//! the file cut short, or the manifest edited. Opening it, verifying it, and running an
//! algorithm on it in memory and out of core (where pages are validated as they arrive) give
//! results or errors, never a panic.
//!
//! Each input damages one file of a working copy, which is put back from the pristine bytes
//! afterwards, so an input costs one file written twice rather than a store copied.
//!
//! Shared by the fuzz target `store_open` and the replay of its corpus in the test command.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::ThreadPool;

use vastgraph_algos::budget;
use vastgraph_algos::registry::{self, Params};
use vastgraph_engine::ooc::{BackendChoice, DeviceProfile, IoMode, OocOptions};
use vastgraph_store::{BuildOptions, Codec, Store, StoreBuilder};

/// The algorithms an input picks from: those that walk every list (pagerank, cc, kcore, tc)
/// or follow a frontier (bfs, sssp), in memory and, out of core, in passes or over the lists.
const ALGORITHMS: [&str; 6] = ["bfs", "pagerank", "cc", "sssp", "kcore", "tc"];

/// A store to damage: its working copy and each of its files' pristine bytes, sorted by name.
struct Pristine {
    dir: PathBuf,
    files: Vec<(PathBuf, Vec<u8>)>,
}

/// The working copies of the stores an input damages, in a temporary directory removed when
/// they are dropped. Built once, on the pool's one thread.
pub struct Stores {
    _dir: tempfile::TempDir,
    stores: Vec<Pristine>,
}

impl Stores {
    pub fn build() -> Stores {
        one_thread().install(build_stores)
    }

    /// Damages one store's file as `input` says, opens, verifies and runs an algorithm on it,
    /// and puts the file back.
    pub fn run(&self, input: &[u8]) {
        if input.len() < 3 {
            return;
        }
        // On the pool's one thread, the kernels' parallel loops run inline rather than each
        // handed to it and waited for.
        one_thread().install(|| damage_and_run(&self.stores, input));
    }
}

fn build_stores() -> Stores {
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
        for page_sums in [true, false] {
            let target = dir.path().join(format!("{name}-{page_sums}"));
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
            // Without page checksums, damage reaches the structural checks on their own.
            if !page_sums {
                vastgraph_testkit::without_page_sums(&target);
            }
            // The out-of-core path is taken for every algorithm the store serves, not
            // skipped as too small (kcore and tc refuse the directed store before that).
            for algorithm in ALGORITHMS {
                let needs = registry::descriptor(algorithm).expect("registered").needs;
                if needs.symmetric && !symmetrize {
                    continue;
                }
                let params = Params::default();
                if let Err(e) = budget::open_out_of_core(
                    &target,
                    algorithm,
                    &params,
                    BUDGET,
                    options(&[0, 0, 0]),
                ) {
                    panic!("{algorithm} on {}: {e:#}", target.display());
                }
            }
            stores.push(Pristine {
                files: files_of(&target),
                dir: target,
            });
        }
    }
    Stores { _dir: dir, stores }
}

/// The out-of-core runs' budget: room for each file's pool and the cache of blocks, no more
/// (the buffers are allocated and zeroed for every input).
const BUDGET: u64 = 2 << 20;

fn options(input: &[u8]) -> OocOptions {
    OocOptions {
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
    }
}

fn files_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("the store")
        .map(|e| {
            let path = e.expect("an entry").path();
            let bytes = std::fs::read(&path).expect("read");
            (path, bytes)
        })
        .collect();
    files.sort();
    files
}

/// One thread: the inputs are tiny, and a pool's threads would only spin. Its own pool rather
/// than the global one, so that a test process running this beside other tests keeps their
/// thread counts.
fn one_thread() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a thread pool")
    })
}

fn damage_and_run(stores: &[Pristine], input: &[u8]) {
    let store = &stores[input[0] as usize % stores.len()];
    let (file, pristine) = &store.files[input[1] as usize % store.files.len()];
    let mut bytes = pristine.clone();
    if input[2] & 1 == 0 {
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

    let algorithm = ALGORITHMS[(input[2] as usize / 2) % ALGORITHMS.len()];
    let params = Params::default();
    if let Ok(store) = Store::open(&store.dir) {
        let _ = store.verify_structure();
        let _ = registry::run_on_store(&store, algorithm, &params, false);
    }
    // kcore and tc run their in-memory kernels over the lists on disk, through the cache of
    // blocks (a budget would let them map a store this small).
    if let Ok(g) = budget::open_out_of_core(&store.dir, algorithm, &params, BUDGET, options(input))
    {
        let _ = budget::run(algorithm, &g, &params, false);
    }
    std::fs::write(file, pristine).expect("put back");
}
