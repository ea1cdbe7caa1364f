//! Test support shared by the integration tests of several crates.
//!
//! [`MemoryCgroup`]: the memory budget is a promise about the whole process, so tests that
//! check it run the process inside a cgroup-v1 memory cgroup limited slightly above the
//! budget, then read the kernel's own peak usage and OOM-kill count.
//!
//! [`SmallTmpfs`]: a disk that fills, for the tests of what a full disk leaves and says.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = "/sys/fs/cgroup/memory";

/// A cgroup-v1 memory cgroup with a limit, removed when dropped.
pub struct MemoryCgroup {
    path: PathBuf,
}

impl MemoryCgroup {
    /// Creates `<root>/<name>-<pid>` limited to `limit` bytes. The error says why not (no v1
    /// memory controller, not root): tests print it and skip.
    pub fn create(name: &str, limit: u64) -> Result<MemoryCgroup, String> {
        let root = Path::new(ROOT);
        if !root.join("memory.limit_in_bytes").exists() {
            return Err(format!("no cgroup v1 memory controller at {ROOT}"));
        }
        let path = root.join(format!("{name}-{}", std::process::id()));
        fs::create_dir(&path)
            .map_err(|e| format!("cannot create {}: {e} (needs root)", path.display()))?;
        let cgroup = MemoryCgroup { path };
        fs::write(cgroup.path.join("memory.limit_in_bytes"), limit.to_string())
            .map_err(|e| format!("cannot limit {}: {e}", cgroup.path.display()))?;
        Ok(cgroup)
    }

    /// A command running `program` inside the cgroup: the shell moves itself in before it
    /// execs, so every byte the program touches is charged to the cgroup.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(r#"echo $$ > "$0/cgroup.procs" && exec "$@""#)
            .arg(&self.path)
            .arg(program);
        command
    }

    /// The most memory the cgroup has used, in bytes.
    pub fn max_usage(&self) -> u64 {
        let text = self.read("memory.max_usage_in_bytes");
        text.trim()
            .parse()
            .unwrap_or_else(|e| panic!("memory.max_usage_in_bytes {text:?}: {e}"))
    }

    /// How many processes the kernel killed for exceeding the limit.
    pub fn oom_kills(&self) -> u64 {
        self.read("memory.oom_control")
            .lines()
            .find_map(|l| l.strip_prefix("oom_kill "))
            .map_or(0, |n| n.trim().parse().unwrap_or(u64::MAX))
    }

    fn read(&self, file: &str) -> String {
        let path = self.path.join(file);
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        let _ = fs::remove_dir(&self.path);
    }
}

/// A 2 MiB tmpfs mounted at a directory (which needs root), unmounted when dropped.
pub struct SmallTmpfs(PathBuf);

impl SmallTmpfs {
    /// Mounts one at `parent/small`, or prints that `test` skips, and why, and gives None.
    pub fn mount_in(parent: &Path, test: &str) -> Option<SmallTmpfs> {
        let dir = parent.join("small");
        let mounted = fs::create_dir(&dir)
            .map_err(|e| e.to_string())
            .and_then(|()| {
                Command::new("mount")
                    .args(["-t", "tmpfs", "-o", "size=2m", "vastgraph-test"])
                    .arg(&dir)
                    .status()
                    .map_err(|e| e.to_string())
            });
        match mounted {
            Ok(status) if status.success() => Some(SmallTmpfs(dir)),
            Ok(status) => {
                println!(
                    "SKIP {test}: cannot mount a tmpfs (mount exited with {status}; needs root)"
                );
                None
            }
            Err(reason) => {
                println!("SKIP {test}: cannot mount a tmpfs ({reason})");
                None
            }
        }
    }

    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for SmallTmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Makes the store in `dir` look as if it predated page checksums: its manifest no longer
/// names their side files. Tests that damage a store to exercise the structural checks (which
/// are all an older store gets) use it, as the page checksums would otherwise report the damage
/// first.
pub fn without_page_sums(dir: &Path) {
    for entry in without_file_field(dir, "page_sums") {
        let name = entry["name"].as_str().expect("a side file has a name");
        fs::remove_file(dir.join(name)).expect("the side file exists");
    }
}

/// Makes the store in `dir` look as if written before its manifest recorded the longest lists
/// beside the Elias–Fano offsets: an out-of-core run must then read the offsets for them.
pub fn without_longest_lists(dir: &Path) {
    without_file_field(dir, "longest_list");
}

/// Removes `field` from every file entry of the manifest of the store in `dir`; returns the
/// values removed.
fn without_file_field(dir: &Path, field: &str) -> Vec<serde_json::Value> {
    let path = dir.join("manifest.json");
    let text = fs::read_to_string(&path).expect("the store has a manifest");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&text).expect("the manifest is JSON");
    let removed = manifest["files"]
        .as_array_mut()
        .expect("the manifest lists files")
        .iter_mut()
        .filter_map(|entry| entry.as_object_mut()?.remove(field))
        .collect();
    fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    removed
}
