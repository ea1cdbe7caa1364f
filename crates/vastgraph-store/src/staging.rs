//! Temporary directories and the final rename: a store appears at its target path only
//! complete, or not at all.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::fsutil::{fsync_dir, parent_dir, rename_into_place, unique_suffix, Existing};
use crate::manifest::MANIFEST_FILE;
use crate::reader::read_manifest;
use crate::StoreError;

/// A directory that is removed with everything in it when dropped, unless `keep` was called.
pub(crate) struct TempDir {
    path: PathBuf,
    removed_on_drop: bool,
}

impl TempDir {
    /// Create `<parent>/.<name>.<kind>-<pid>-<nanos>-<n>`.
    pub(crate) fn create_in(parent: &Path, name: &str, kind: &str) -> Result<TempDir, StoreError> {
        let path = parent.join(format!(".{name}.{kind}-{}", unique_suffix()));
        fs::create_dir(&path).map_err(|e| StoreError::write(&path, e))?;
        Ok(TempDir {
            path,
            removed_on_drop: true,
        })
    }

    /// Takes charge of the directory a writer makes (or left) at `path`: removed on drop, if
    /// there, unless committed.
    pub(crate) fn adopt(path: PathBuf) -> TempDir {
        TempDir {
            path,
            removed_on_drop: true,
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn keep(mut self) -> PathBuf {
        self.removed_on_drop = false;
        std::mem::take(&mut self.path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if self.removed_on_drop {
            // A directory its writer never created is no leftover.
            match fs::remove_dir_all(&self.path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => log::warn!(
                    "could not remove temporary directory {}: {e}",
                    self.path.display()
                ),
                _ => {}
            }
        }
    }
}

/// The directory a store path names: a symbolic link to a directory names the directory it
/// points to, so that a store reached through a link is replaced, tiled and locked where it
/// is, and the link keeps pointing at it (a directory cannot be renamed over a link). Any
/// other path, a dangling link included, is returned as it is.
pub(crate) fn through_link(path: &Path) -> PathBuf {
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link && fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        if let Ok(resolved) = path.canonicalize() {
            return resolved;
        }
    }
    path.to_path_buf()
}

/// The target's parent directory and final name; "store" means "./store".
pub(crate) fn split_target(target: &Path) -> Result<(PathBuf, String), StoreError> {
    let name = match target.file_name().and_then(|n| n.to_str()) {
        Some(name) => name.to_string(),
        None => {
            return Err(StoreError::invalid_input(format!(
                "{}: a store path must end in a UTF-8 directory name",
                target.display()
            )))
        }
    };
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match fs::metadata(&parent) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(StoreError::io(
                &parent,
                std::io::Error::from_raw_os_error(libc::ENOTDIR),
            ))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(StoreError::io(
                &parent,
                std::io::Error::new(e.kind(), "parent directory does not exist"),
            ))
        }
        Err(e) => return Err(StoreError::io(&parent, e)),
    }
    Ok((parent, name))
}

/// Refuses a `target` inside the store `source`: the copy would become a foreign entry of the
/// store it came from, and the source could then be neither replaced nor tiled.
pub(crate) fn refuse_inside(source: &Path, target: &Path) -> Result<(), StoreError> {
    split_target(target)?;
    if written_inside(source, target) {
        return Err(StoreError::invalid_input(format!(
            "{} is inside the store {}: write the copy beside it",
            target.display(),
            source.display()
        )));
    }
    Ok(())
}

/// Whether the directory `target` is written in (its parent; links and `..` resolved) lies
/// inside the store `store`. False where either cannot be resolved: a missing store or parent
/// is its own error.
pub fn written_inside(store: &Path, target: &Path) -> bool {
    match (store.canonicalize(), parent_dir(target).canonicalize()) {
        (Ok(store), Ok(parent)) => parent.starts_with(store),
        _ => false,
    }
}

/// Whether an existing `target` may be replaced: only a previous store holding nothing but its
/// own files, or an empty directory, so that a mistyped output path cannot wipe unrelated data
/// (a replaced store is deleted whole: a user's file or another store put inside it would go
/// with it).
pub(crate) fn check_replaceable(target: &Path, overwrite: bool) -> Result<(), StoreError> {
    let meta = match fs::symlink_metadata(target) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(StoreError::io(target, e)),
    };
    // What --force could not replace is named as such, with or without it: "--force replaces
    // it" would promise what it then refuses.
    let refusal = if meta.file_type().is_symlink() {
        // A link to a directory was followed (`through_link`): this one points to nothing a
        // store could replace, and a directory cannot be renamed over a link.
        Some(match fs::read_link(target) {
            Ok(to) => format!(
                "it is a symbolic link to {}, which is not a directory",
                to.display()
            ),
            Err(_) => "it is a symbolic link".to_string(),
        })
    } else if !meta.is_dir() {
        Some("it is not a directory".to_string())
    } else if target.join(MANIFEST_FILE).is_file() {
        foreign_entry(target)?.map(|foreign| {
            format!(
                "it holds {foreign}, which is not a file of the store; move it out first (a \
                 replaced store is deleted whole)"
            )
        })
    } else if fs::read_dir(target)
        .map_err(|e| StoreError::io(target, e))?
        .next()
        .is_some()
    {
        Some(format!(
            "it is a non-empty directory without {MANIFEST_FILE}"
        ))
    } else {
        None
    };
    if let Some(reason) = refusal {
        return Err(StoreError::NotOverwritable {
            path: target.to_path_buf(),
            reason,
        });
    }
    if !overwrite {
        return Err(StoreError::TargetExists {
            path: target.to_path_buf(),
        });
    }
    Ok(())
}

/// The first entry (by name) of the store directory `dir` that its manifest does not list: not
/// the manifest, a file or a file's page checksums. A manifest that cannot be read lists
/// nothing to go by, and a damaged store may be replaced: `None`.
fn foreign_entry(dir: &Path) -> Result<Option<String>, StoreError> {
    let Ok(manifest) = read_manifest(dir) else {
        return Ok(None);
    };
    let mut own: HashSet<&str> = HashSet::from([MANIFEST_FILE]);
    for file in &manifest.files {
        own.insert(&file.name);
        if let Some(sums) = &file.page_sums {
            own.insert(&sums.name);
        }
    }
    let mut first: Option<String> = None;
    for entry in fs::read_dir(dir).map_err(|e| StoreError::io(dir, e))? {
        let name = entry.map_err(|e| StoreError::io(dir, e))?.file_name();
        let name = name.to_string_lossy();
        if !own.contains(name.as_ref()) && first.as_deref().is_none_or(|f| *name < *f) {
            first = Some(name.into_owned());
        }
    }
    Ok(first)
}

/// Move a fully written staging directory to `target`. With `overwrite`, an existing store
/// is swapped with it in one step (so that the path names a whole store throughout), then
/// deleted.
pub(crate) fn commit(staging: TempDir, target: &Path, overwrite: bool) -> Result<(), StoreError> {
    let (parent, _) = split_target(target)?;
    fsync_dir(staging.path())?;
    check_replaceable(target, overwrite)?;
    let existing = if overwrite {
        Existing::Replace
    } else {
        Existing::Refuse
    };
    let old = match rename_into_place(staging.path(), target, existing) {
        Ok(old) => old,
        // A store put there by another process since the check: its own refusal.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            check_replaceable(target, false)?;
            return Err(StoreError::write(target, e));
        }
        Err(e) => return Err(StoreError::write(target, e)),
    };
    staging.keep();
    fsync_dir(&parent)?;
    if let Some(old) = old {
        if let Err(e) = fs::remove_dir_all(&old) {
            log::warn!("could not remove the replaced store {}: {e}", old.display());
        }
    }
    Ok(())
}
