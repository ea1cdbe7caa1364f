//! Output that appears whole or not at all: everything is written under a temporary name in
//! the same directory (so the rename cannot cross file systems) and renamed at the end.

use std::path::{Path, PathBuf};

use anyhow::Context;
use vastgraph_store::{stage_path, TargetLock};

/// A hidden sibling of `path`, unique to this write: `.NAME.tmp-<pid>-<nanoseconds>-<n>`.
pub(crate) fn temporary_sibling(path: &Path) -> PathBuf {
    stage_path(path, "tmp")
}

/// Runs `write` on a temporary path and renames the result to `target`, holding the lock on
/// writing `target` throughout (a second writer fails at once); on failure removes whatever
/// `write` left (a file or a directory).
pub fn write_then_rename(
    target: &Path,
    write: impl FnOnce(&Path) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    // A device or pipe (`-o /dev/stdout`) is written in place: renaming over it would replace
    // the device node, and a stream has nothing to leave half-written.
    if std::fs::metadata(target).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return write(target);
    }
    let _lock = TargetLock::acquire(target)?;
    let tmp = temporary_sibling(target);
    let result = write(&tmp).and_then(|()| {
        // An interrupt while the file was written: it is dropped rather than put in place.
        if vastgraph_store::cancel_requested() {
            return Err(vastgraph_store::StoreError::Cancelled.into());
        }
        std::fs::rename(&tmp, target)
            .with_context(|| format!("renaming {} to {}", tmp.display(), target.display()))
    });
    if result.is_err() {
        let _ = if tmp.is_dir() {
            std::fs::remove_dir_all(&tmp)
        } else {
            std::fs::remove_file(&tmp)
        };
    }
    result
}
