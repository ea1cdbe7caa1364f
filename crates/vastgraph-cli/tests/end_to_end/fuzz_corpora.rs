//! Every fuzz target's check, run as an ordinary test: on each input of its corpus
//! (`fuzz/corpus/TARGET`: the committed seeds, and whatever a campaign of `scripts/fuzz.sh` has
//! added there), and on seeded mutations of each (bits flipped, bytes set to edge values, cut
//! short, a run repeated or removed). The checks are the fuzz targets' own bodies
//! (`fuzz/bodies`, and the readers' in `vastgraph_ingest::fuzzing`), so a failure here is one the
//! fuzzer would report: a panic, a broken invariant, or an input that takes longer than
//! libFuzzer's `-timeout` (a hang).
//!
//! An input that fails is written to `fuzz/artifacts/TARGET/replay-…`, where `cargo fuzz run
//! TARGET FILE` runs it again under the sanitizer.

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use vastgraph_store::format_xxh3;
use xxhash_rust::xxh3::xxh3_64;

#[path = "../../../../fuzz/bodies/codec_decode.rs"]
mod codec_decode;
#[path = "../../../../fuzz/bodies/store_open.rs"]
mod store_open;
#[path = "../../../../fuzz/bodies/table.rs"]
mod table;
#[path = "../../../../fuzz/bodies/webgraph.rs"]
mod webgraph;

/// libFuzzer's `-timeout` in `scripts/fuzz.sh`: an input that runs longer is a hang.
const TIMEOUT: Duration = Duration::from_secs(10);

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The inputs of `target`'s corpus, sorted by name.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = fuzz_dir().join("corpus").join(target);
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("a corpus entry").path();
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                bytes,
            )
        })
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "{}: no inputs", dir.display());
    inputs
}

/// A small xorshift generator: the mutations are the same on every run.
struct Mutator(u64);

impl Mutator {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// `input` with one to four edits.
    fn mutate(&mut self, input: &[u8]) -> Vec<u8> {
        let mut bytes = input.to_vec();
        for _ in 0..1 + self.below(4) {
            let at = self.below(bytes.len());
            match self.below(6) {
                0 if !bytes.is_empty() => bytes[at] ^= 1 << self.below(8),
                1 if !bytes.is_empty() => {
                    bytes[at] = [0, 1, 0x7f, 0x80, 0xff, b'\n', b' ', b'-'][self.below(8)]
                }
                2 => bytes.truncate(at),
                3 if !bytes.is_empty() => {
                    let end = (at + 1 + self.below(16)).min(bytes.len());
                    let run = bytes[at..end].to_vec();
                    bytes.splice(at..at, run);
                }
                4 if !bytes.is_empty() => {
                    let end = (at + 1 + self.below(16)).min(bytes.len());
                    bytes.drain(at..end);
                }
                _ => {
                    let word = self.next().to_le_bytes();
                    let len = 1 + self.below(8);
                    bytes.splice(at..at, word[..len].iter().copied());
                }
            }
        }
        bytes
    }
}

/// Runs `check` on every input of `target`'s corpus and on `mutations` mutations of them in all
/// (as many of each input, and at least one); fails naming each input that panicked or hung.
fn replay(target: &'static str, mutations: usize, check: impl Fn(&[u8]) + Send + 'static) {
    let inputs = corpus(target);
    let each = mutations.div_ceil(inputs.len());
    let expected = inputs.len() * (1 + each);
    match run_cases(target, inputs, each, TIMEOUT, check) {
        Ok(ran) => assert_eq!(ran, expected, "{target}: inputs run"),
        Err(failures) => panic!(
            "{target}: {} inputs failed: {}",
            failures.len(),
            failures.join("; ")
        ),
    }
}

/// The cases of [`replay`], each input and `mutations` mutations of it, in a worker thread
/// watched for hangs: how many ran, or what failed.
fn run_cases(
    target: &'static str,
    inputs: Vec<(String, Vec<u8>)>,
    mutations: usize,
    timeout: Duration,
    check: impl Fn(&[u8]) + Send + 'static,
) -> Result<usize, Vec<String>> {
    let (done, progress) = mpsc::channel::<(String, Vec<u8>, Option<String>)>();
    let worker = thread::spawn(move || {
        let mut mutator = Mutator(0x9e37_79b9_7f4a_7c15 ^ target.len() as u64);
        for (name, bytes) in &inputs {
            let mut cases = vec![(name.clone(), bytes.clone())];
            cases.extend(
                (0..mutations).map(|i| (format!("{name} mutation {i}"), mutator.mutate(bytes))),
            );
            for (case, bytes) in cases {
                let outcome = panic::catch_unwind(AssertUnwindSafe(|| check(&bytes)));
                let failure = outcome.err().map(|payload| {
                    payload
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "a panic".to_string())
                });
                if done.send((case, bytes, failure)).is_err() {
                    return;
                }
            }
        }
    });
    let mut failures = Vec::new();
    let mut ran = 0;
    loop {
        match progress.recv_timeout(timeout) {
            Ok((case, bytes, failure)) => {
                ran += 1;
                if let Some(message) = failure {
                    failures.push(format!("{case}: {message} ({})", keep(target, &bytes)));
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // The worker is left running: a hung check cannot be stopped from outside.
                failures.push(format!(
                    "input {} (counting the corpus's inputs and their mutations in order) ran \
                     longer than {timeout:?}",
                    ran + 1
                ));
                return Err(failures);
            }
        }
    }
    worker.join().expect("the replay's worker");
    if failures.is_empty() {
        Ok(ran)
    } else {
        Err(failures)
    }
}

/// Writes a failing input where `cargo fuzz run` finds it; returns where.
fn keep(target: &str, bytes: &[u8]) -> String {
    let dir = fuzz_dir().join("artifacts").join(target);
    let path = dir.join(format!("replay-{}", format_xxh3(xxh3_64(bytes))));
    match std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, bytes)) {
        Ok(()) => format!("written to {}", path.display()),
        Err(e) => format!("not written to {}: {e}", path.display()),
    }
}

#[test]
fn edge_list_corpus() {
    replay("edge_list", 5000, vastgraph_ingest::fuzzing::edge_list);
}

#[test]
fn matrix_market_corpus() {
    replay(
        "matrix_market",
        5000,
        vastgraph_ingest::fuzzing::matrix_market,
    );
}

#[test]
fn dimacs_corpus() {
    replay("dimacs", 5000, vastgraph_ingest::fuzzing::dimacs);
}

#[test]
fn binary_edges_corpus() {
    replay("binary_edges", 5000, vastgraph_ingest::fuzzing::binary);
}

#[test]
fn codec_decode_corpus() {
    replay("codec_decode", 20000, codec_decode::run);
}

#[test]
fn table_corpus() {
    replay("table", 2000, table::run);
}

#[test]
fn webgraph_corpus() {
    replay("webgraph", 5000, webgraph::run);
}

#[test]
fn store_open_corpus() {
    let stores = store_open::Stores::build();
    replay("store_open", 1000, move |input| stores.run(input));
}

/// The replay itself: a check that panics on some inputs, or hangs on one, fails, naming it.
#[test]
fn a_panic_or_a_hang_in_a_check_is_reported() {
    let inputs = vec![
        ("a".to_string(), b"abc".to_vec()),
        ("b".to_string(), b"xyz".to_vec()),
    ];
    let panics_on_y = |bytes: &[u8]| assert!(!bytes.starts_with(b"xy"), "starts with xy");
    let failures = run_cases("replay_self_test", inputs.clone(), 0, TIMEOUT, panics_on_y)
        .expect_err("input b fails");
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].starts_with("b: starts with xy"), "{failures:?}");
    assert_eq!(
        run_cases("replay_self_test", inputs.clone(), 5, TIMEOUT, |_| {}),
        Ok(2 + 10)
    );
    let hangs_on_b = |bytes: &[u8]| {
        if bytes == b"xyz" {
            thread::sleep(Duration::from_secs(3600));
        }
    };
    let failures = run_cases(
        "replay_self_test",
        inputs,
        0,
        Duration::from_millis(300),
        hangs_on_b,
    )
    .expect_err("input b hangs");
    assert!(failures[0].starts_with("input 2 "), "{failures:?}");
    let _ = std::fs::remove_dir_all(fuzz_dir().join("artifacts").join("replay_self_test"));
}
