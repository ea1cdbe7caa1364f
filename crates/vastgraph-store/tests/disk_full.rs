//! A full disk is reported as such, naming the file being written, and the half-written
//! store is removed. Needs root to mount a small tmpfs; skips with a message otherwise.

mod common;

use common::*;
use vastgraph_store::{
    compress_store, BuildOptions, CompressOptions, ExpectedSize, StoreBuilder, StoreError,
};
use vastgraph_testkit::SmallTmpfs;

#[test]
fn disk_full_names_the_file_and_leaves_nothing() {
    let outer = tempfile::tempdir().unwrap();
    let Some(tmpfs) =
        SmallTmpfs::mount_in(outer.path(), "disk_full_names_the_file_and_leaves_nothing")
    else {
        return;
    };
    let mount_point = tmpfs.path();
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
        leftovers(mount_point, ""),
        Vec::<String>::new(),
        "the staging directory is removed"
    );
}

/// The first number of `message` after `prefix`, in bytes ("12.3 MB" or "1.25 GB").
fn bytes_after(message: &str, prefix: &str) -> f64 {
    let rest =
        &message[message.find(prefix).unwrap_or_else(|| panic!("{message}")) + prefix.len()..];
    let mut words = rest.split_whitespace();
    let number: f64 = words.next().unwrap().parse().unwrap();
    match words.next() {
        Some("MB") => number * 1e6,
        Some("GB") => number * 1e9,
        unit => panic!("{unit:?} in {message}"),
    }
}

#[test]
fn a_compression_that_fills_the_disk_says_about_how_much_it_needs() {
    let outer = tempfile::tempdir().unwrap();
    let Some(tmpfs) = SmallTmpfs::mount_in(
        outer.path(),
        "a_compression_that_fills_the_disk_says_about_how_much_it_needs",
    ) else {
        return;
    };
    let mount_point = tmpfs.path();
    // 1M arcs at random among 65,536 vertices: gaps of about 4,096, some 2 bytes an arc of
    // codes in each direction, far over the 2 MiB.
    let raw = outer.path().join("raw");
    let mut builder = StoreBuilder::create(&raw, opts(16 * MIB)).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 48) as u32
    };
    let (src, dst): (Vec<u32>, Vec<u32>) = (0..1_000_000).map(|_| (next(), next())).unzip();
    builder.push_batch(&src, &dst, None).unwrap();
    builder.finish().unwrap();

    let err = compress_store(
        &raw,
        &mount_point.join("store"),
        &CompressOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, StoreError::DiskFull { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("bytes an arc, the rate of the ")
            && message.contains("more than it had")
            && message.contains("its partial files are removed"),
        "{message}"
    );
    assert_eq!(
        leftovers(mount_point, ""),
        Vec::<String>::new(),
        "nothing is left"
    );

    // The estimate against what the compressed copy takes where it fits: at least its files,
    // and at most those and what is staged beside them before it is coded or dropped (the raw
    // offsets and list heads, and 8 bytes a vertex of the codes' byte offsets).
    let estimate = bytes_after(&message, "this compression needs about ");
    let fitted = compress_store(
        &raw,
        &outer.path().join("fits"),
        &CompressOptions::default(),
    )
    .unwrap();
    let written: u64 = fitted.files.iter().map(|f| f.bytes).sum();
    let source = vastgraph_store::Store::open(&raw).unwrap();
    let staged: u64 = source
        .manifest()
        .files
        .iter()
        .filter(|f| f.name.contains("offsets") || f.name.contains("heads"))
        .map(|f| 2 * f.bytes)
        .sum();
    assert!(
        (written as f64 * 0.9..=(written + staged) as f64 * 1.1).contains(&estimate),
        "estimated {estimate} bytes; the copy takes {written}, and {staged} more are staged: \
         {message}"
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
