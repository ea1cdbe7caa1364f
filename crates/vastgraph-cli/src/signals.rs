//! Ctrl-C and SIGTERM: the first interrupt asks the running build or export to stop (it then
//! removes its temporary files and the command exits with 128 + the signal, leaving nothing at
//! the target path); a second one exits at once. While a kernel runs without a checkpoint, or a
//! command that writes nothing reads ([`StopAtOnce`]), there is nothing to save or remove, so the
//! first interrupt exits at once: a kernel's long pass, or `info --verify`'s checksums, do not
//! look at the request, and would otherwise run to their end.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The first interrupt's signal number, 0 before any.
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);
static STOP_AT_ONCE: AtomicBool = AtomicBool::new(false);

/// Exits as a process ended by `signal` is reported by shells (128 + the signal: 130 for
/// SIGINT, 143 for SIGTERM), after the message when there is one. From the handler or from the
/// main thread alike: `write` and `_exit` are async-signal-safe.
fn exit_interrupted(signal: libc::c_int, message: &[u8]) -> ! {
    unsafe {
        libc::write(2, message.as_ptr().cast(), message.len());
        libc::_exit(128 + signal)
    }
}

const NOTHING_WRITTEN: &[u8] = b"\ninterrupted: stopped before writing any output\n";

/// The signal of the first interrupt, if one came.
pub fn interrupted() -> Option<i32> {
    match INTERRUPTED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

extern "C" fn on_interrupt(signal: libc::c_int) {
    if STOP_AT_ONCE.load(Ordering::SeqCst) {
        exit_interrupted(signal, NOTHING_WRITTEN);
    }
    if INTERRUPTED.swap(signal, Ordering::SeqCst) != 0 {
        // Second Ctrl-C: the user wants out now.
        exit_interrupted(signal, b"");
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
/// saves no checkpoint, which write nothing until they are done, and around work that writes
/// nothing at all. An interrupt that came before it (while the store was opened) ends the
/// process when it is taken.
pub struct StopAtOnce(bool);

impl StopAtOnce {
    /// Armed.
    pub fn now() -> StopAtOnce {
        StopAtOnce::unless(false)
    }

    /// Armed unless `checkpointing` (a checkpointed kernel saves, then stops, on an interrupt).
    pub fn unless(checkpointing: bool) -> StopAtOnce {
        if checkpointing {
            return StopAtOnce(false);
        }
        STOP_AT_ONCE.store(true, Ordering::SeqCst);
        match INTERRUPTED.load(Ordering::SeqCst) {
            0 => {}
            signal => exit_interrupted(signal, NOTHING_WRITTEN),
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
