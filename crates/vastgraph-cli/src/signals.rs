//! Ctrl-C: the first interrupt asks the running build to stop (it then removes its temporary
//! directory and exits non-zero, leaving nothing at the target path); a second one exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_signal: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // Second Ctrl-C: the user wants out now. _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
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

/// A closed pipe ends the process quietly, as it does `cat` or `grep`: `vastgraph info STORE
/// | head` must not panic in `println!` (Rust ignores SIGPIPE by default, which turns the
/// closed pipe into a write error).
pub fn die_quietly_on_closed_pipe() {
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
