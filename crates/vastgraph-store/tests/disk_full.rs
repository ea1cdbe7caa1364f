//! A full disk is reported as such, naming the file being written, and the half-written
//! store is removed. Needs root to mount a small tmpfs; skips with a message otherwise.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use vastgraph_store::{BuildOptions, ExpectedSize, StoreBuilder, StoreError};

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
        StoreError::DiskFull { path, .. } => {
            assert!(
                path.ends_with("neighbors.u32") || path.ends_with("offsets.u64"),
                "{}",
                path.display()
            );
            let message = err.to_string();
            assert!(message.starts_with("disk full while writing"), "{message}");
            // 1M arcs need 4 MB of lists and 4 MB of list heads, whatever the file system.
            assert!(
                message.contains("this build needs up to ")
                    && message.contains("free when it started"),
                "{message}"
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

#[test]
fn a_build_that_cannot_fit_is_refused_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    // A petabyte of edges fits on no test machine's disk.
    let opts = BuildOptions {
        expected_size: Some(ExpectedSize {
            edges: 1 << 50,
            vertices: 1 << 31,
        }),
        ..opts(16 * MIB)
    };
    let need = opts.disk_needed(opts.expected_size.unwrap());
    assert!(need.runs >= 8 << 50, "the runs hold every edge: {need:?}");
    assert!(need.store >= 4 << 50, "the lists hold every arc: {need:?}");
    let err = StoreBuilder::create(&target, opts).err().expect("refused");
    match &err {
        StoreError::NoSpace {
            needed, available, ..
        } => assert!(needed > available),
        other => panic!("expected NoSpace, got {other}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("not enough disk space") && message.contains("for sorted runs"),
        "{message}"
    );
    assert_eq!(
        leftovers(dir.path(), ""),
        Vec::<String>::new(),
        "nothing was created"
    );
}

#[test]
fn the_disk_estimate_follows_the_build_plan() {
    let size = ExpectedSize {
        edges: 2_000_000,
        vertices: 1000,
    };
    let small = opts(16 * MIB);
    let large = opts(1 << 30);
    // 16 MB of records spill under a 16 MiB budget and sort in memory under 1 GiB.
    assert_eq!(small.disk_needed(size).runs, 16_000_000);
    assert_eq!(large.disk_needed(size).runs, 0);
    assert_eq!(small.disk_needed(size).store, large.disk_needed(size).store);
    // Symmetrising doubles the arcs; its second sort holds arcs and reverses.
    let symmetric = BuildOptions {
        symmetrize: true,
        ..opts(16 * MIB)
    };
    assert_eq!(symmetric.disk_needed(size).runs, 32_000_000);
    assert!(symmetric.disk_needed(size).store >= 16_000_000);
    assert!(small.disk_needed(size).store >= 8_000_000);
}
