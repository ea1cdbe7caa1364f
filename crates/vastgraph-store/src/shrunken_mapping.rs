//! A store's file truncated by another process while this one has it mapped faults on the next
//! read of a page past its new end: SIGBUS, which ends the process without a word. The handler
//! installed here says what most likely happened, then either exits with 1 (the command line,
//! whose every mapped read is a store's) or hands the fault to the handler it replaced (a
//! Python interpreter, where the fault may be another library's and `faulthandler` may be
//! waiting for it): it restores that handler and returns, the faulting read runs again and
//! faults again, into it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// What follows the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterBusError {
    /// `_exit(1)`.
    Exit,
    /// The handler that was installed before, or the default action (the process ends).
    PreviousHandler,
}

const EXIT_MESSAGE: &[u8] = b"error: a mapped file of the store shrank while it was read \
    (truncated by another process during the command?); the command stopped without a \
    result, and the next one writing the same target removes what it staged\n";
const HANDOVER_MESSAGE: &[u8] = b"vastgraph: bus error (SIGBUS) while this process reads \
    mapped files: if another process truncated a file of an open store, that is the cause; \
    the process ends\n";

static EXIT: AtomicBool = AtomicBool::new(false);
/// The handler replaced, as installed before (set once, before the new one is).
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

extern "C" fn on_bus_error(_: libc::c_int) {
    // SAFETY: write(2), _exit(2) and sigaction(2) are async-signal-safe, the messages are
    // static buffers, and PREVIOUS was set before this handler was installed.
    unsafe {
        if EXIT.load(Ordering::Relaxed) {
            libc::write(2, EXIT_MESSAGE.as_ptr().cast(), EXIT_MESSAGE.len());
            libc::_exit(1);
        }
        libc::write(2, HANDOVER_MESSAGE.as_ptr().cast(), HANDOVER_MESSAGE.len());
        match PREVIOUS.get() {
            Some(previous) => libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut()),
            None => {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
                0
            }
        };
    }
}

/// Installs the SIGBUS handler (once a process; later calls keep the first one's `after`).
pub fn explain_bus_errors(after: AfterBusError) {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        EXIT.store(after == AfterBusError::Exit, Ordering::Relaxed);
        // SAFETY: a zeroed sigaction is a valid out-parameter; the new action calls only
        // async-signal-safe functions.
        unsafe {
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) == 0 {
                let _ = PREVIOUS.set(previous);
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_bus_error as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    });
}
