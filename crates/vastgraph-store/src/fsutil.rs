//! Small file-system helpers shared by the store writer, the run files and the staging
//! directory: durable directory entries, page-cache hints, freeing consumed runs, free
//! space, and unique temporary names.

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::StoreError;

/// fsync a directory, so that the entries created or renamed in it survive a crash.
pub fn fsync_dir(dir: &Path) -> Result<(), StoreError> {
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
pub fn available_bytes(path: &Path) -> Result<u64, StoreError> {
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
    let c_path = c_path(path)?;
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

/// Whether `error` (or an error it wraps) is a full disk or an exhausted quota.
pub fn is_disk_full(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if matches!(io.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) {
                return true;
            }
        }
        if matches!(
            e.downcast_ref::<StoreError>(),
            Some(StoreError::DiskFull { .. })
        ) {
            return true;
        }
        cause = e.source();
    }
    false
}

/// The directory holding `path` ("." for a bare name).
pub fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// `<pid>-<nanoseconds>-<counter>`: distinct across processes and across builds within one
/// process, even two started in the same nanosecond.
pub fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{}-{}-{}", std::process::id(), nanos, count)
}

/// What putting a finished output at its name does with one already there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Fail with `AlreadyExists`, even when it appeared after the writer's first check.
    Refuse,
    /// Take its place.
    Replace,
}

/// Renames `staged` (a finished, synced file or directory beside `target`) to `target` in one
/// step, so that the path names the whole old output or the whole new one at every moment,
/// a crash included. Replacing swaps the two (`RENAME_EXCHANGE`) and returns where the old
/// output now lies (`staged`'s path), for the caller to delete; a file system without the
/// swap gets the old output moved aside first (`.NAME.old-…`), a moment with nothing at the
/// path. Refusing renames with `RENAME_NOREPLACE`, so that an output written meanwhile by
/// another process is never replaced. `target`'s directory is not synced here.
pub fn rename_into_place(
    staged: &Path,
    target: &Path,
    existing: Existing,
) -> std::io::Result<Option<PathBuf>> {
    let exists = || std::fs::symlink_metadata(target).is_ok();
    match existing {
        Existing::Refuse => match renameat2(staged, target, libc::RENAME_NOREPLACE) {
            Err(e) if flags_unsupported(&e) => {
                if exists() {
                    return Err(std::io::ErrorKind::AlreadyExists.into());
                }
                std::fs::rename(staged, target).map(|()| None)
            }
            done => done.map(|()| None),
        },
        Existing::Replace => match renameat2(staged, target, libc::RENAME_EXCHANGE) {
            Ok(()) => Ok(Some(staged.to_path_buf())),
            Err(_) if !exists() => std::fs::rename(staged, target).map(|()| None),
            Err(e) if flags_unsupported(&e) => {
                let name = target.file_name().unwrap_or_default().to_string_lossy();
                let aside = target.with_file_name(format!(".{name}.old-{}", unique_suffix()));
                std::fs::rename(target, &aside)?;
                if let Err(e) = std::fs::rename(staged, target) {
                    // Put the old output back rather than leave nothing at the path.
                    let _ = std::fs::rename(&aside, target);
                    return Err(e);
                }
                Ok(Some(aside))
            }
            Err(e) => Err(e),
        },
    }
}

/// The file system (or the kernel) takes no flags on a rename.
fn flags_unsupported(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP)
    )
}

fn renameat2(from: &Path, to: &Path, flags: libc::c_uint) -> std::io::Result<()> {
    let (from, to) = (c_path(from)?, c_path(to)?);
    // SAFETY: both are valid NUL-terminated paths, relative to the working directory.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            flags,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn c_path(path: &Path) -> std::io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacing_swaps_and_hands_back_the_old_output() {
        let dir = tempfile::tempdir().unwrap();
        let (staged, target) = (dir.path().join(".t.tmp-1"), dir.path().join("t"));
        std::fs::write(&staged, "new").unwrap();
        std::fs::write(&target, "old").unwrap();
        let old = rename_into_place(&staged, &target, Existing::Replace).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(old.unwrap()).unwrap(), "old");
        // Nothing there: a plain rename, nothing to delete.
        std::fs::write(&staged, "first").unwrap();
        let fresh = dir.path().join("fresh");
        assert_eq!(
            rename_into_place(&staged, &fresh, Existing::Replace).unwrap(),
            None
        );
        assert_eq!(std::fs::read_to_string(&fresh).unwrap(), "first");
    }

    #[test]
    fn refusing_leaves_an_output_that_appeared_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let (staged, target) = (dir.path().join(".t.tmp-1"), dir.path().join("t"));
        std::fs::write(&staged, "mine").unwrap();
        std::fs::write(&target, "theirs").unwrap();
        let err = rename_into_place(&staged, &target, Existing::Refuse).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");
        assert!(staged.exists());
        // A dangling link is something at the path too.
        std::fs::remove_file(&target).unwrap();
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &target).unwrap();
        let err = rename_into_place(&staged, &target, Existing::Refuse).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        std::fs::remove_file(&target).unwrap();
        assert_eq!(
            rename_into_place(&staged, &target, Existing::Refuse).unwrap(),
            None
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
    }
}
