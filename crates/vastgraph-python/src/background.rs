//! Running long work off the calling thread, so that Python stays responsive.
//!
//! Python delivers Ctrl-C by setting a flag that only the main thread acts on, and only when
//! it runs Python code (or calls `PyErr_CheckSignals`). A kernel that held the calling thread
//! for minutes would make Ctrl-C wait that long. So the work runs on a worker thread, and the
//! calling thread waits for it with the GIL released, waking every `POLL` to check signals and
//! to report progress. Other Python threads run freely meanwhile.
//!
//! Two ways to stop on Ctrl-C:
//! - [`run_abandoning`]: for the algorithms without a checkpoint, which have nothing to save.
//!   The run is abandoned (`vastgraph_engine::interrupt`): the kernel unwinds at the engine's
//!   next operation, and `KeyboardInterrupt` is raised once the worker has stopped. A kernel
//!   that reaches no engine operation within [`ABANDON_GRACE`] is left to finish in the
//!   background, its result dropped (it owns everything it uses, so nothing dangles).
//! - [`run_cancellable`]: for store builds, which poll `vastgraph_store::cancel_requested()`.
//!   Cancellation is requested, the worker is awaited (the build removes its temporary files),
//!   and then `KeyboardInterrupt` is raised.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::panic_error;

/// How often the waiting thread wakes: Ctrl-C takes effect within this time.
const POLL: Duration = Duration::from_millis(100);

/// Thread pools by size, built once: `threads=N` on every call should not spawn N threads
/// each time.
fn thread_pool(threads: usize) -> PyResult<Arc<rayon::ThreadPool>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    vastgraph_engine::memory::check_threads(threads)
        .map_err(|e| crate::errors::value_error(format!("threads: {e}")))?;
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(pool) = pools.get(&threads) {
        return Ok(pool.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("vastgraph-{threads}-{i}"))
        .build()
        .map_err(|e| PyValueError::new_err(format!("cannot start {threads} threads: {e}")))?;
    let pool = Arc::new(pool);
    pools.insert(threads, pool.clone());
    Ok(pool)
}

/// Runs `work` in a rayon pool of `threads` threads, or in the global pool.
fn in_pool<T: Send>(pool: Option<Arc<rayon::ThreadPool>>, work: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Waits up to `POLL` for the worker's result with the GIL released. The receiver travels
/// into the released section and back because it is not `Sync`.
fn wait_once<T: Send>(
    py: Python<'_>,
    rx: Receiver<T>,
) -> (Result<T, RecvTimeoutError>, Receiver<T>) {
    py.detach(move || {
        let got = rx.recv_timeout(POLL);
        (got, rx)
    })
}

/// How long Ctrl-C waits for an abandoned kernel to stop before it leaves it to finish in the
/// background.
pub const ABANDON_GRACE: Duration = Duration::from_secs(5);

/// Runs `work` on a worker thread. On Ctrl-C, abandons the run (every kernel in the process
/// stops at its next engine operation), waits up to [`ABANDON_GRACE`] for the worker, and
/// raises `KeyboardInterrupt`; a second Ctrl-C raises it at once.
pub fn run_abandoning<T: Send + 'static>(
    py: Python<'_>,
    threads: Option<usize>,
    report: &dyn Fn() -> PyResult<()>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let pool = threads.map(thread_pool).transpose()?;
    // A request left by an earlier interrupted run must not stop this one.
    vastgraph_engine::interrupt::clear();
    let (tx, mut rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("vastgraph-worker".into())
        .spawn(move || {
            // None: abandoned. The receiver is gone when the caller stopped waiting.
            let outcome = vastgraph_engine::interrupt::catch_abandoned(|| in_pool(pool, work));
            let _ = tx.send(outcome);
        })
        .map_err(|e| PyValueError::new_err(format!("cannot start a worker thread: {e}")))?;
    let mut interrupted: Option<(PyErr, std::time::Instant)> = None;
    loop {
        let (got, back) = wait_once(py, rx);
        rx = back;
        match got {
            Ok(outcome) => {
                return match (interrupted, outcome) {
                    (Some((e, _)), _) => Err(e),
                    (None, Some(value)) => report().map(|()| value),
                    // Abandoned by a Ctrl-C that reached another run of the process.
                    (None, None) => Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(
                        "the run was abandoned: Ctrl-C stops every vastgraph run in the process",
                    )),
                };
            }
            Err(RecvTimeoutError::Timeout) => match &interrupted {
                None => {
                    // Ctrl-C, or the progress callback failed: abandon the run either way.
                    if let Err(e) = py.check_signals().and_then(|()| report()) {
                        vastgraph_engine::interrupt::abandon_runs();
                        interrupted = Some((e, std::time::Instant::now()));
                    }
                }
                Some((_, since)) => {
                    // A second Ctrl-C, or a kernel that reaches no engine operation: stop
                    // waiting for it.
                    let again = py.check_signals();
                    if again.is_err() || since.elapsed() >= ABANDON_GRACE {
                        return Err(interrupted.unwrap().0);
                    }
                }
            },
            Err(RecvTimeoutError::Disconnected) => {
                return Err(match worker.join() {
                    Err(payload) => panic_error(payload),
                    Ok(()) => pyo3::exceptions::PyRuntimeError::new_err(
                        "vastgraph worker thread ended without a result",
                    ),
                })
            }
        }
    }
}

/// What a build reports while it runs: a phase, the work done in that phase and, for the
/// reading phase, the total (input bytes or edges; 0 while unknown).
#[derive(Default)]
pub struct BuildProgress {
    phase: AtomicU8,
    done: AtomicU64,
    total: AtomicU64,
}

/// The build phases, as `BuildProgress::phase` holds them and Python sees them.
pub const PHASE_READING: u8 = 0;
pub const PHASE_BUILDING: u8 = 1;
const PHASE_NAMES: [&str; 2] = ["reading", "building"];

impl BuildProgress {
    pub fn enter(&self, phase: u8) {
        self.phase.store(phase, Ordering::Relaxed);
    }

    pub fn set(&self, done: u64) {
        self.done.store(done, Ordering::Relaxed);
    }

    pub fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }

    /// Calls `callback(phase_name, done, total)`, if any; total is None when not known.
    pub fn report(&self, callback: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let Some(callback) = callback else {
            return Ok(());
        };
        let phase = self.phase.load(Ordering::Relaxed);
        let total = self.total.load(Ordering::Relaxed);
        let total = (phase == PHASE_READING && total > 0).then_some(total);
        let name = PHASE_NAMES[phase as usize % PHASE_NAMES.len()];
        callback.call1((name, self.done.load(Ordering::Relaxed), total))?;
        Ok(())
    }
}

/// Runs a cancellable build on a scoped worker (it may borrow the caller's data, e.g. NumPy
/// arrays). Calls `report` (a progress callback) every `POLL` and once at the end. On Ctrl-C,
/// asks the build to stop, waits for it, and raises `KeyboardInterrupt`.
pub fn run_cancellable<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    report: &dyn Fn() -> PyResult<()>,
    work: impl FnOnce() -> PyResult<T> + Send,
) -> PyResult<T> {
    let pool = threads.map(thread_pool).transpose()?;
    // A cancellation left over from an earlier interrupted build must not stop this one.
    vastgraph_store::clear_cancel();
    // Ok(the build's own result), or Err(why the wait ended without one).
    let outcome: PyResult<PyResult<T>> = std::thread::scope(|scope| {
        let (tx, mut rx) = mpsc::channel();
        let worker = scope.spawn(move || {
            let _ = tx.send(in_pool(pool, work));
        });
        let mut interrupted: Option<PyErr> = None;
        loop {
            let (got, back) = wait_once(py, rx);
            rx = back;
            match got {
                Ok(result) => return interrupted.map_or(Ok(result), Err),
                Err(RecvTimeoutError::Timeout) => {
                    if interrupted.is_some() {
                        continue;
                    }
                    let checked = py.check_signals().and_then(|()| report());
                    if let Err(e) = checked {
                        // Ctrl-C, or the progress callback failed: stop the build either way.
                        vastgraph_store::request_cancel();
                        interrupted = Some(e);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(match worker.join() {
                        Err(payload) => panic_error(payload),
                        Ok(()) => pyo3::exceptions::PyRuntimeError::new_err(
                            "vastgraph build thread ended without a result",
                        ),
                    })
                }
            }
        }
    });
    vastgraph_store::clear_cancel();
    let result = outcome?;
    if result.is_ok() {
        report()?;
    }
    result
}
