//! A process-wide cancellation flag. The CLI sets it from its SIGINT handler (setting an
//! atomic is async-signal-safe); long-running builds poll it between batches and stop with
//! `StoreError::Cancelled`, which removes their temporary files on the way out.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::StoreError;

static CANCEL_REQUESTED: AtomicBool = AtomicBool::new(false);

/// Ask every running build in this process to stop at its next check.
pub fn request_cancel() {
    CANCEL_REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether `request_cancel` has been called (and not cleared since).
pub fn cancel_requested() -> bool {
    CANCEL_REQUESTED.load(Ordering::Relaxed)
}

/// Withdraw a cancellation request, so that a later build in the same process may run.
pub fn clear_cancel() {
    CANCEL_REQUESTED.store(false, Ordering::SeqCst);
}

/// `Err(Cancelled)` once cancellation has been requested.
pub(crate) fn check_cancel() -> Result<(), StoreError> {
    if cancel_requested() {
        Err(StoreError::Cancelled)
    } else {
        Ok(())
    }
}
