//! A full disk is reported as such, naming the file being written, and the half-written
//! store is removed. Needs root to mount a small tmpfs; skips with a message otherwise.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use vastgraph_store::{BuildOptions, StoreBuilder, StoreError};

/// A 2 MiB tmpfs, unmounted when dropped.
struct SmallTmpfs(PathBuf);

impl SmallTmpfs {
    fn mount(dir: &Path) -> Result<SmallTmpfs, String> {
        let status = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                "size=2m",
                "vastgraph-test",
                dir.to_str().unwrap(),
            ])
            .status()
            .map_err(|e| e.to_string())?;
        if status.success() {
            Ok(SmallTmpfs(dir.to_path_buf()))
        } else {
            Err(format!("mount exited with {status}"))
        }
    }
}

impl Drop for SmallTmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn disk_full_names_the_file_and_leaves_nothing() {
    let outer = tempfile::tempdir().unwrap();
    let mount_point = outer.path().join("small");
    std::fs::create_dir(&mount_point).unwrap();
    let _tmpfs = match SmallTmpfs::mount(&mount_point) {
        Ok(tmpfs) => tmpfs,
        Err(reason) => {
            println!("SKIP disk_full_names_the_file_and_leaves_nothing: cannot mount a tmpfs ({reason}; needs root)");
            return;
        }
    };
    let runs = tempfile::tempdir().unwrap();
    let target = mount_point.join("store");
    let opts = BuildOptions {
        tmp_dir: Some(runs.path().to_path_buf()),
        ..opts(16 * MIB)
    };
    let mut builder = StoreBuilder::create(&target, opts).unwrap();
    // 1M arcs: a 4 MB neighbour file does not fit in 2 MiB.
    let src: Vec<u32> = (0..1_000_000).map(|i| i % 1000).collect();
    let dst: Vec<u32> = (0..1_000_000).map(|i| i / 1000).collect();
    builder.push_batch(&src, &dst, None).unwrap();
    let err = builder.finish().unwrap_err();
    match &err {
        StoreError::DiskFull { path } => {
            assert!(
                path.ends_with("neighbors.u32") || path.ends_with("offsets.u64"),
                "{}",
                path.display()
            );
            assert!(
                err.to_string().starts_with("disk full while writing"),
                "{err}"
            );
        }
        other => panic!("expected DiskFull, got {other}"),
    }
    assert_eq!(
        leftovers(&mount_point, ""),
        Vec::<String>::new(),
        "the staging directory is removed"
    );
}
