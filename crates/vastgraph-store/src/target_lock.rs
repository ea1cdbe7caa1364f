//! One writer per output: a store, an exported file or a run's output is written under a
//! temporary sibling name (`.NAME.KIND-<pid>-<nanoseconds>-<counter>`, unique even where every
//! run is process 1) while the writer holds an exclusive lock on `.NAME.lock` beside it. A second
//! writer of the same target fails at once, naming the lock. A writer that was killed leaves its
//! stage behind but not its lock (the kernel releases it with the process), so the next writer
//! of that target, holding the lock, knows every stage of the target is stale, removes it and
//! says so.

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::fsutil::{parent_dir, unique_suffix};
use crate::StoreError;

/// The kinds of temporary sibling a writer of a target makes; stale ones are removed. (The
/// `old` sibling, a replaced store moved aside, is never removed here: if a writer died
/// between moving it aside and renaming the new store in, it is the only copy.)
pub const STAGE_KINDS: &[&str] = &[
    "tmp",
    "runs",
    "in-runs",
    "forward-run",
    "reverse-runs",
    "input-order",
    "untiled",
];

/// An exclusive lock on writing `target`, released (and its file removed) on drop.
#[derive(Debug)]
pub struct TargetLock {
    path: PathBuf,
    // Holds the flock; closed after the lock file is unlinked.
    _file: File,
}

/// `.NAME.lock` beside `target`.
fn lock_path(target: &Path) -> PathBuf {
    sibling(target, "lock")
}

/// `.NAME.SUFFIX` beside `target`.
fn sibling(target: &Path, suffix: &str) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.{suffix}"))
}

/// A fresh temporary sibling of `target` of the given kind (one of [`STAGE_KINDS`]):
/// `.NAME.KIND-<pid>-<nanoseconds>-<counter>`.
pub fn stage_path(target: &Path, kind: &str) -> PathBuf {
    debug_assert!(STAGE_KINDS.contains(&kind));
    sibling(target, &format!("{kind}-{}", unique_suffix()))
}

impl TargetLock {
    /// Takes the lock on writing `target`, or fails if another process holds it; then removes
    /// the stages a killed writer of `target` left behind.
    pub fn acquire(target: &Path) -> Result<TargetLock, StoreError> {
        let path = lock_path(target);
        loop {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(|e| StoreError::io(&path, e))?;
            // SAFETY: flock on a descriptor this function owns; no memory is passed.
            let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if locked != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                    return Err(StoreError::Busy {
                        path: target.to_path_buf(),
                        lock: path,
                    });
                }
                return Err(StoreError::io(&path, e));
            }
            // A holder that just finished unlinked the file we opened: lock the new one.
            let ours = file.metadata().map_err(|e| StoreError::io(&path, e))?;
            match fs::metadata(&path) {
                Ok(now) if now.ino() == ours.ino() && now.dev() == ours.dev() => {}
                _ => continue,
            }
            let lock = TargetLock { path, _file: file };
            remove_stale_stages(target, parent_dir(target), |_| true);
            return Ok(lock);
        }
    }

    /// Removes the stages of `target` (the lock's own) in another directory, the sorted runs'
    /// (`--tmp-dir`), that a killed writer left: those whose process (the first number of the
    /// suffix) is gone. Writers of another target of the same name, elsewhere, may share that
    /// directory: a live one's stages stay.
    pub fn remove_dead_stages_in(&self, target: &Path, dir: &Path) {
        remove_stale_stages(target, dir, |pid| {
            // SAFETY: signal 0 sends nothing; it asks whether the process exists.
            let alive = unsafe { libc::kill(pid, 0) } == 0
                || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
            !alive
        });
    }
}

impl Drop for TargetLock {
    fn drop(&mut self) {
        // Unlinked while still locked, so that no one locks a file about to disappear
        // (acquire checks that the file it locked is still the one at the path).
        let _ = fs::remove_file(&self.path);
    }
}

/// Removes `target`'s stages of every kind in `dir` whose writer's process id `gone` says is
/// gone; called with its lock held.
fn remove_stale_stages(target: &Path, dir: &Path, gone: impl Fn(libc::pid_t) -> bool) {
    let Some(name) = target.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    // A stage that is itself a target has stages and a lock of its own, named from it
    // (`..NAME.input-order-<suffix>.tmp-<suffix>`): they go with it.
    let stage_of_stage = format!("..{name}.");
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let (rest, nested) = match file_name.strip_prefix(&stage_of_stage) {
            Some(rest) => (rest, true),
            None => match file_name.strip_prefix(&prefix) {
                Some(rest) => (rest, false),
                None => continue,
            },
        };
        let stale = STAGE_KINDS.iter().any(|kind| {
            rest.strip_prefix(kind)
                .and_then(|r| r.strip_prefix('-'))
                .map(|r| match (nested, r.split_once('.')) {
                    (true, Some((suffix, _))) => suffix,
                    (true, None) => "",
                    (false, _) => r,
                })
                .is_some_and(|suffix| {
                    !suffix.is_empty()
                        && suffix.chars().all(|c| c.is_ascii_digit() || c == '-')
                        && suffix
                            .split('-')
                            .next()
                            .and_then(|pid| pid.parse().ok())
                            .is_some_and(&gone)
                })
        });
        if !stale {
            continue;
        }
        let path = entry.path();
        let removed = if path.is_dir() {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        match removed {
            Ok(()) => log::warn!(
                "removed {}, left by an interrupted write of {}",
                path.display(),
                target.display()
            ),
            Err(e) => log::warn!("could not remove the stale {}: {e}", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_is_done() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("store");
        let first = TargetLock::acquire(&target).unwrap();
        let err = TargetLock::acquire(&target).unwrap_err().to_string();
        assert!(
            err.contains("store") && err.contains(".store.lock"),
            "{err}"
        );
        drop(first);
        assert!(!dir.path().join(".store.lock").exists());
        TargetLock::acquire(&target).unwrap();
    }

    #[test]
    fn stale_stages_of_the_target_go_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("g");
        let stale_dir = stage_path(&target, "tmp");
        fs::create_dir(&stale_dir).unwrap();
        fs::write(stale_dir.join("offsets.u64"), b"x").unwrap();
        // A stage that was a target in turn (the store in input order, before `--order`),
        // with its own stage and lock.
        let nested = stage_path(&target, "input-order");
        let nested_stage = stage_path(&nested, "tmp");
        let nested_lock = lock_path(&nested);
        fs::create_dir(&nested_stage).unwrap();
        fs::write(&nested_lock, b"").unwrap();
        // The name a process-id-only scheme gave, as a killed older writer left it.
        fs::write(dir.path().join(".g.tmp-1"), b"x").unwrap();
        let kept = [".g.old-1-2-3", ".gx.tmp-1", ".g.tmp-notes", "g.tmp-1"];
        for k in kept {
            fs::write(dir.path().join(k), b"x").unwrap();
        }
        let _lock = TargetLock::acquire(&target).unwrap();
        assert!(!stale_dir.exists());
        assert!(!nested_stage.exists() && !nested_lock.exists());
        assert!(!dir.path().join(".g.tmp-1").exists());
        for k in kept {
            assert!(dir.path().join(k).exists(), "{k} was removed");
        }
    }

    #[test]
    fn stages_in_the_runs_directory_go_only_when_their_writer_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("spill");
        fs::create_dir(&runs).unwrap();
        let target = dir.path().join("g");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let (stale, live) = (
            runs.join(format!(".g.forward-run-{dead}-5-0")),
            runs.join(format!(".g.reverse-runs-{}-5-1", std::process::id())),
        );
        fs::write(&stale, b"x").unwrap();
        fs::create_dir(&live).unwrap();
        let lock = TargetLock::acquire(&target).unwrap();
        lock.remove_dead_stages_in(&target, &runs);
        assert!(!stale.exists(), "a dead writer's runs stay");
        assert!(live.exists(), "a live writer's runs were removed");
    }

    #[test]
    fn stage_names_are_unique_within_a_process() {
        let target = Path::new("/x/out.tsv");
        assert_ne!(stage_path(target, "tmp"), stage_path(target, "tmp"));
        let name = stage_path(target, "tmp");
        assert!(name
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".out.tsv.tmp-"));
    }
}
