//! Small file-system helpers shared by the store writer, the run files and the staging
//! directory: durable directory entries, page-cache hints, and unique temporary names.

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::StoreError;

/// fsync a directory, so that the entries created or renamed in it survive a crash.
pub(crate) fn fsync_dir(dir: &Path) -> Result<(), StoreError> {
    let handle = File::open(dir).map_err(|e| StoreError::io(dir, e))?;
    handle.sync_all().map_err(|e| StoreError::write(dir, e))
}

/// Start writing back `len` bytes at `offset` without waiting. Keeps the amount of dirty
/// page cache small (the memory cgroup charges it to the build) and lets the final fsync
/// find most of the data already on disk. Best effort: errors surface at fsync.
pub(crate) fn start_writeback(file: &File, offset: u64, len: u64) {
    // SAFETY: plain syscall on a valid descriptor; no memory is passed.
    unsafe {
        libc::sync_file_range(
            file.as_raw_fd(),
            offset as libc::off64_t,
            len as libc::off64_t,
            libc::SYNC_FILE_RANGE_WRITE,
        );
    }
}

/// Tell the kernel that the cached pages of a range are no longer needed (clean pages are
/// dropped at once). Used on run files after they have been read. Best effort.
pub(crate) fn drop_cached(file: &File, offset: u64, len: u64) {
    // SAFETY: plain syscall on a valid descriptor; no memory is passed.
    unsafe {
        libc::posix_fadvise(
            file.as_raw_fd(),
            offset as libc::off_t,
            len as libc::off_t,
            libc::POSIX_FADV_DONTNEED,
        );
    }
}

/// `<pid>-<nanoseconds>-<counter>`: distinct across processes and across builds within one
/// process, even two started in the same nanosecond.
pub(crate) fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{}-{}-{}", std::process::id(), nanos, count)
}
