//! Output that appears whole or not at all: everything is written under a temporary name in
//! the same directory (so the rename cannot cross file systems) and renamed at the end.

use std::path::{Path, PathBuf};

use vastgraph_store::{gb, rename_into_place, stage_path, Existing, TargetLock};

/// The path that names standard output (`-o -`). It is written through the process's own
/// descriptor, not by opening the path: a shell's `>> FILE` then appends, and `> FILE` is
/// written as a stream, never staged beside the file and renamed.
pub const STDOUT: &str = "/dev/stdout";

/// Opens `path` to write it from the start: a new file, or standard output for [`STDOUT`].
pub fn create_output(path: &Path) -> std::io::Result<std::fs::File> {
    if path == Path::new(STDOUT) {
        use std::os::fd::AsFd;
        return Ok(std::io::stdout().as_fd().try_clone_to_owned()?.into());
    }
    std::fs::File::create(path)
}

/// A hidden sibling of `path`, unique to this write: `.NAME.tmp-<pid>-<nanoseconds>-<n>`.
pub(crate) fn temporary_sibling(path: &Path) -> PathBuf {
    stage_path(path, "tmp")
}

/// Runs `write` on a temporary path and renames the result to `target` in one step (see
/// [`rename_into_place`]), holding the lock on writing `target` throughout (a second writer
/// fails at once); on failure removes whatever `write` left (a file or a directory). With
/// [`Existing::Refuse`], an output that another process put at `target` meanwhile is an
/// error, not replaced.
pub fn write_then_rename(
    target: &Path,
    existing: Existing,
    write: impl FnOnce(&Path) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    // A device or pipe (`-o /dev/stdout`) is written in place: renaming over it would replace
    // the device node, and a stream has nothing to leave half-written.
    let device = std::fs::metadata(target).is_ok_and(|m| !m.is_file() && !m.is_dir());
    if device || target == Path::new(STDOUT) {
        return write(target);
    }
    let _lock = TargetLock::acquire(target)?;
    let tmp = temporary_sibling(target);
    let free_at_start = vastgraph_store::available_bytes(vastgraph_store::parent_dir(target)).ok();
    let written = write(&tmp).map_err(|e| explain_disk_full(e, &tmp, free_at_start));
    let result = written.and_then(|()| {
        // An interrupt while the file was written: it is dropped rather than put in place.
        if vastgraph_store::cancel_requested() {
            return Err(vastgraph_store::StoreError::Cancelled.into());
        }
        let old = rename_into_place(&tmp, target, existing).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                anyhow::anyhow!(
                    "{}: already exists, written by another process meanwhile (--force replaces it)",
                    target.display()
                )
            } else {
                anyhow::Error::new(e).context(format!(
                    "renaming {} to {}",
                    tmp.display(),
                    target.display()
                ))
            }
        })?;
        if let Some(old) = old {
            remove(&old);
        }
        // The new name made durable, as the file's bytes were.
        vastgraph_store::fsync_dir(vastgraph_store::parent_dir(target))?;
        Ok(())
    });
    if result.is_err() {
        remove(&tmp);
    }
    result
}

/// A full disk's error, with what a user needs to act on it: how much of the output was
/// written when the disk filled (the bytes under `tmp` then, a file or a directory of them),
/// and how much the disk had free when the write started. Other errors are returned as they
/// are.
pub(crate) fn explain_disk_full(
    error: anyhow::Error,
    tmp: &Path,
    free_at_start: Option<u64>,
) -> anyhow::Error {
    if !vastgraph_store::is_disk_full(error.as_ref()) {
        return error;
    }
    let written = bytes_under(tmp);
    let free = match free_at_start {
        Some(free) => format!(", and that disk had {} free when it started", gb(free)),
        None => String::new(),
    };
    error.context(format!(
        "disk full: the output needs more than the {} written when the disk filled{free}; \
         what was written is removed",
        gb(written)
    ))
}

/// The bytes of the file at `path`, or of every file under it.
fn bytes_under(path: &Path) -> u64 {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| bytes_under(&entry.path()))
            .sum(),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

/// Removes a file or a directory, if there.
fn remove(path: &Path) {
    let _ = if path.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
}
