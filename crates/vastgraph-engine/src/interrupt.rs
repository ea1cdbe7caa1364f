//! Abandoning a run where it stands. A host that runs kernels on a worker thread (the Python
//! binding, on Ctrl-C) calls [`abandon_runs`]; the engine's operations (`edge_map`,
//! `vertex_map`, a pass over the lists, the next bucket, a filter's pack, a block read from
//! disk) call [`check`], which then unwinds with the [`Abandoned`] payload. The host catches it
//! with [`catch_abandoned`] and reports the interruption, so the kernel stops within one
//! operation instead of running to its end in the background.
//!
//! The unwind is [`std::panic::resume_unwind`], which runs no panic hook: nothing is printed.
//! rayon carries it from a worker thread to the caller of the parallel operation. A kernel's
//! state is its own and is dropped on the way out; the mapped store is read-only. So the only
//! thing an abandoned run leaves behind is the result it never returns.
//!
//! The request is process-wide: it stops every run in the process at its next check, and stays
//! until [`clear`] (a host clears it before each run). It is distinct from the store's
//! cancellation flag (`vastgraph_store::request_cancel`), on which a checkpointing kernel saves
//! its state before it stops: a run with a checkpoint is never abandoned.

use std::sync::atomic::{AtomicBool, Ordering};

static ABANDON: AtomicBool = AtomicBool::new(false);

/// The unwind payload of an abandoned run.
#[derive(Debug)]
pub struct Abandoned;

/// Asks every running kernel in this process to stop at its next check.
pub fn abandon_runs() {
    ABANDON.store(true, Ordering::SeqCst);
}

/// Withdraws the request, so that the next run goes to its end.
pub fn clear() {
    ABANDON.store(false, Ordering::SeqCst);
}

/// Whether [`abandon_runs`] has been called since the last [`clear`].
pub fn requested() -> bool {
    ABANDON.load(Ordering::Relaxed)
}

/// Unwinds with [`Abandoned`] when the run has been abandoned. One relaxed load otherwise.
#[inline]
pub fn check() {
    if requested() {
        abandon_now();
    }
}

#[cold]
#[inline(never)]
fn abandon_now() -> ! {
    std::panic::resume_unwind(Box::new(Abandoned))
}

/// Runs `work`; `None` when it was abandoned. Any other panic continues to unwind.
pub fn catch_abandoned<T>(work: impl FnOnce() -> T) -> Option<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(value) => Some(value),
        Err(payload) if payload.is::<Abandoned>() => None,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    // The process-wide flag is left alone here: other tests of this binary run kernels at the
    // same time. The Python tests set it, each in a process of its own.
    #[test]
    fn an_abandoned_parallel_loop_unwinds_to_the_host() {
        assert_eq!(
            catch_abandoned(|| (0..1000u64).into_par_iter().sum::<u64>()),
            Some(499_500)
        );
        let stopped = catch_abandoned(|| {
            (0..1_000_000u64)
                .into_par_iter()
                .map(|i| {
                    if i == 1000 {
                        abandon_now();
                    }
                    i
                })
                .sum::<u64>()
        });
        assert_eq!(stopped, None);
        // Another panic is not an abandoned run.
        let other = std::panic::catch_unwind(|| catch_abandoned(|| panic!("a bug")));
        assert!(other.is_err());
    }
}
