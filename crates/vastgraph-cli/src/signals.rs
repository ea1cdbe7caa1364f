//! Ctrl-C and SIGTERM: the first interrupt asks the running build to stop (it then removes its
//! temporary directory and exits non-zero, leaving nothing at the target path); a second one
//! exits at once. While a kernel runs without a checkpoint ([`StopAtOnce`]) there is nothing to
//! save and nothing written yet, so the first interrupt exits at once: a kernel's long pass does
//! not look at the request, and would otherwise run to its end.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static STOP_AT_ONCE: AtomicBool = AtomicBool::new(false);

/// Exit status of a process ended by an interrupt (128 + SIGINT), as shells report it.
const INTERRUPTED_STATUS: libc::c_int = 130;

/// Writes the message and exits, from the handler or from the main thread alike: `write` and
/// `_exit` are async-signal-safe.
fn exit_interrupted() -> ! {
    const MESSAGE: &[u8] = b"\ninterrupted: the run stopped before writing any output\n";
    unsafe {
        libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
        libc::_exit(INTERRUPTED_STATUS)
    }
}

extern "C" fn on_interrupt(_signal: libc::c_int) {
    if STOP_AT_ONCE.load(Ordering::SeqCst) {
        exit_interrupted();
    }
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // Second Ctrl-C: the user wants out now.
        unsafe { libc::_exit(INTERRUPTED_STATUS) };
    }
    vastgraph_store::request_cancel();
}

pub fn install_interrupt_handler() {
    let handler = on_interrupt as extern "C" fn(libc::c_int);
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
        libc::signal(libc::SIGTERM, handler as libc::sighandler_t);
    }
}

/// While it lives, an interrupt ends the process at once: around the trials of a run that
/// saves no checkpoint, which write nothing until they are done. An interrupt that came before
/// it (while the store was opened) ends the process when it is taken.
pub struct StopAtOnce(bool);

impl StopAtOnce {
    /// Armed unless `checkpointing` (a checkpointed kernel saves, then stops, on an interrupt).
    pub fn unless(checkpointing: bool) -> StopAtOnce {
        if checkpointing {
            return StopAtOnce(false);
        }
        STOP_AT_ONCE.store(true, Ordering::SeqCst);
        if INTERRUPTED.load(Ordering::SeqCst) {
            exit_interrupted();
        }
        StopAtOnce(true)
    }
}

impl Drop for StopAtOnce {
    fn drop(&mut self) {
        if self.0 {
            STOP_AT_ONCE.store(false, Ordering::SeqCst);
        }
    }
}

/// A closed pipe ends the process quietly, as it does `cat` or `grep`: `vastgraph info STORE
/// | head` must not panic in `println!` (Rust ignores SIGPIPE by default, which turns the
/// closed pipe into a write error).
pub fn die_quietly_on_closed_pipe() {
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
