//! Catching a panic inside a third-party decoder (the `webgraph` crate's, Parquet's, Arrow's)
//! as a last resort, so that a damaged input gets an error naming the file, not a backtrace.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Set while this thread runs a decoder whose panics are caught and reported.
    static DECODING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `decode` catching its panic (the `webgraph` crate's sequential decoder, for one, has
/// no error channel and unwraps its reads, so a truncated bit stream panics inside it). The
/// panic hook stays silent for panics caught here (the user gets an error, not a backtrace);
/// any other panic is printed as before.
pub(crate) fn decode_quietly<T>(decode: impl FnOnce() -> T) -> Result<T, String> {
    static QUIET_HOOK: Once = Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !DECODING.with(Cell::get) {
                previous(info);
            }
        }));
    });
    DECODING.with(|d| d.set(true));
    let result = catch_unwind(AssertUnwindSafe(decode));
    DECODING.with(|d| d.set(false));
    result.map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("decoder failure")
            .to_string()
    })
}
