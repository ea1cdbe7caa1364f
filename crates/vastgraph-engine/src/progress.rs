//! What the run in progress has done, for a host to show while it waits: the CLI's status line
//! and the callback of Python's `progress=`. The engine's operations (`edge_map`, a pass, a
//! pull) count themselves here with the frontier they start from, kernels report the
//! iterations they finish, and the out-of-core engine the bytes each pass read.
//!
//! Process-wide, like [`crate::interrupt`]: a host calls [`start`] before a run and reads
//! [`snapshot`] from another thread. Every field is a relaxed atomic, so a snapshot may mix two
//! adjacent moments of the run (a status line tolerates that), and two runs at once in one
//! process add into the same counts. Nothing here decides anything: it is only shown.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

static OPERATIONS: AtomicU64 = AtomicU64::new(0);
static ACTIVE: AtomicU64 = AtomicU64::new(0);
static ITERATIONS: AtomicU64 = AtomicU64::new(0);
static PASSES: AtomicU64 = AtomicU64::new(0);
static BYTES_READ: AtomicU64 = AtomicU64::new(0);
/// The last pass's I/O mode, an index into [`MODES`] plus one (0: no pass yet).
static MODE: AtomicU8 = AtomicU8::new(0);

const MODES: [&str; 2] = ["selective", "streaming"];

/// A run's progress as [`snapshot`] reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunProgress {
    /// Engine operations started: `edge_map` calls, passes over lists, pulls.
    pub operations: u64,
    /// Vertices in the frontier of the latest `edge_map`.
    pub active: u64,
    /// Iterations the kernel reports finished (0 for a kernel that reports none).
    pub iterations: u64,
    /// Out-of-core passes finished, the bytes they read and the last one's I/O mode.
    pub passes: u64,
    pub bytes_read: u64,
    pub mode: Option<&'static str>,
}

/// Zeroes the counts: a host calls it as a run begins.
pub fn start() {
    for counter in [&OPERATIONS, &ACTIVE, &ITERATIONS, &PASSES, &BYTES_READ] {
        counter.store(0, Relaxed);
    }
    MODE.store(0, Relaxed);
}

/// An engine operation begins; `active` is its frontier's size when it has one.
#[inline]
pub fn operation(active: Option<u64>) {
    OPERATIONS.fetch_add(1, Relaxed);
    if let Some(active) = active {
        ACTIVE.store(active, Relaxed);
    }
}

/// The kernel finished iteration `done` (counted from 1).
#[inline]
pub fn iteration(done: u64) {
    ITERATIONS.store(done, Relaxed);
}

/// An out-of-core pass finished, having read `bytes` in `mode` ("selective" or "streaming").
pub fn pass(bytes: u64, mode: &str) {
    PASSES.fetch_add(1, Relaxed);
    BYTES_READ.fetch_add(bytes, Relaxed);
    let index = MODES
        .iter()
        .position(|m| *m == mode)
        .map_or(0, |i| i as u8 + 1);
    MODE.store(index, Relaxed);
}

/// The counts now.
pub fn snapshot() -> RunProgress {
    let mode = MODE.load(Relaxed);
    RunProgress {
        operations: OPERATIONS.load(Relaxed),
        active: ACTIVE.load(Relaxed),
        iterations: ITERATIONS.load(Relaxed),
        passes: PASSES.load(Relaxed),
        bytes_read: BYTES_READ.load(Relaxed),
        mode: (mode > 0).then(|| MODES[(mode - 1) as usize % MODES.len()]),
    }
}
