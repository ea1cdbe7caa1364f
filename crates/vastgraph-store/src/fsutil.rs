//! Small file-system helpers shared by the store writer, the run files and the staging
//! directory: durable directory entries, page-cache hints, freeing consumed runs, free
//! space, and unique temporary names.

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

/// Give a consumed range of a temporary file back to the file system (a hole), so that a
/// merge frees its input runs as it reads them rather than when it ends: the disk then holds
/// little more than the larger of a merge's input and output, not their sum. Best effort:
/// a file system without hole punching keeps the bytes until the file is removed.
pub(crate) fn release_range(file: &File, offset: u64, len: u64) {
    // SAFETY: plain syscall on a valid descriptor; no memory is passed.
    unsafe {
        libc::fallocate(
            file.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            offset as libc::off_t,
            len as libc::off_t,
        );
    }
}

/// Bytes available to an unprivileged writer on the file system holding `path`.
pub(crate) fn available_bytes(path: &Path) -> Result<u64, StoreError> {
    let stat = nix_statvfs(path).map_err(|e| StoreError::io(path, e))?;
    Ok(stat.f_bavail as u64 * stat.f_frsize as u64)
}

/// The device holding `path`: two paths on one device share its free space.
pub(crate) fn device_of(path: &Path) -> Result<u64, StoreError> {
    use std::os::unix::fs::MetadataExt;
    Ok(std::fs::metadata(path)
        .map_err(|e| StoreError::io(path, e))?
        .dev())
}

fn nix_statvfs(path: &Path) -> std::io::Result<libc::statvfs> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c_path` is a valid NUL-terminated string and `stat` points to writable
    // memory of the right type, which statvfs fills on success.
    let rc = unsafe { libc::statvfs(c_path.as_ptr(), stat.as_mut_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: statvfs returned 0, so it initialised `stat`.
    Ok(unsafe { stat.assume_init() })
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
