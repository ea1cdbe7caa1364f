//! The `vastgraph` binary end to end: what a user sees for good and bad input.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{fixture, ok, stderr, vastgraph};

/// Nothing at the target and no temporary sibling left behind.
fn assert_nothing_written(dir: &Path, target: &Path) {
    assert!(
        !target.exists(),
        "{} must not exist after a failed build",
        target.display()
    );
    let leftovers: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(
        leftovers
            .iter()
            .all(|p| !p.file_name().unwrap().to_string_lossy().contains("tmp")),
        "temporary files left behind: {leftovers:?}"
    );
}

#[test]
fn malformed_line_names_file_line_and_text_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("edges.tsv");
    std::fs::write(&input, "# header\n0\t1\n1\t2\n2\tthree point five\n").unwrap();
    let target = dir.path().join("store");
    let o = vastgraph(&[
        "convert",
        input.to_str().unwrap(),
        "-o",
        target.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert_eq!(o.status.code(), Some(1), "an error exit, not a panic");
    let e = stderr(&o);
    assert!(e.contains("edges.tsv:4"), "file and line in: {e}");
    assert!(e.contains("three point five"), "offending text in: {e}");
    assert_nothing_written(dir.path(), &target);
}

#[test]
fn id_beyond_u32_names_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    let o = vastgraph(&[
        "convert",
        &fixture("big-id.tsv"),
        "-o",
        target.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("4294967295"), "{}", stderr(&o));
    assert_nothing_written(dir.path(), &target);
}

#[test]
fn missing_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    let o = vastgraph(&[
        "convert",
        "/nonexistent/edges.tsv",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("/nonexistent/edges.tsv"),
        "{}",
        stderr(&o)
    );
    assert_nothing_written(dir.path(), &target);
}

#[test]
fn existing_target_needs_force() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    let t = target.to_str().unwrap();
    assert!(vastgraph(&["convert", &fixture("tiny.tsv"), "-o", t])
        .status
        .success());
    let o = vastgraph(&["convert", &fixture("tiny.tsv"), "-o", t]);
    assert!(!o.status.success());
    assert!(vastgraph(&[
        "convert",
        &fixture("tiny.tsv"),
        "-o",
        t,
        "--force",
        "--symmetrize"
    ])
    .status
    .success());
    let info = vastgraph(&["info", t, "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(
        j["directed"], false,
        "the forced rebuild replaced the old store"
    );
}

#[test]
fn symmetrising_reports_reciprocal_pairs_apart_from_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    // 0-1 given both ways (one reciprocal pair), 1 2 twice (one duplicate), 2-3 once.
    std::fs::write(&input, "0 1\n1 0\n1 2\n1 2\n2 3\n").unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    let o = vastgraph(&["convert", input.to_str().unwrap(), "--symmetrize", "-o", s]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "dropped 0 self-loops and 1 duplicate arcs; merged 1 reciprocal pairs (edges given in both directions)"
        ),
        "{}",
        stderr(&o)
    );
    let info = vastgraph(&["info", s, "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(j["arcs"], 6);
    assert_eq!(j["dropped"]["duplicate_arcs"], 1);
    assert_eq!(j["dropped"]["reciprocal_pairs"], 1);
}

#[test]
fn convert_info_export_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    // Duplicates, a self-loop, weights and comments: export gives the sorted, cleaned arcs.
    std::fs::write(&input, "% comment\n2,0,5\n0,1,2.5\n0,1,1.5\n1,1,9\n1,2,4\n").unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    let o = vastgraph(&["convert", input.to_str().unwrap(), "-o", s]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = vastgraph(&["info", s, "--json", "--verify"]);
    assert!(info.status.success(), "{}", stderr(&info));
    let j: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(
        (j["vertices"].as_u64(), j["arcs"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(
        (j["directed"].as_bool(), j["weighted"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(j["dropped"]["self_loops"], 1);
    assert_eq!(j["dropped"]["duplicate_arcs"], 1);
    let out = dir.path().join("out.tsv");
    assert!(
        vastgraph(&["export", s, "--format", "tsv", "-o", out.to_str().unwrap()])
            .status
            .success()
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "0\t1\t1.5\n1\t2\t4\n2\t0\t5\n"
    );
}

/// A TSV export names vertices by their labels, and says what `convert` must be told (or
/// cannot learn) to read it back as the same graph.
#[test]
fn a_tsv_export_reads_back_as_the_same_graph() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(path("in.tsv"), "alice\tbob\nbob\tbob\nbob\tcarol\n").unwrap();
    let flags = ["--symmetrize", "--keep-self-loops"];
    ok(&[&["convert", &path("in.tsv"), "-o", &path("s")][..], &flags].concat());
    let o = ok(&["export", &path("s"), "-o", &path("s.tsv")]);
    assert!(
        stderr(&o).contains("convert it back with --symmetrize --keep-self-loops"),
        "{}",
        stderr(&o)
    );
    let text = std::fs::read_to_string(path("s.tsv")).unwrap();
    assert!(
        text.starts_with("alice\tbob\n") && text.contains("bob\tbob\n"),
        "{text}"
    );
    ok(&[
        &["convert", &path("s.tsv"), "-o", &path("back")][..],
        &flags,
    ]
    .concat());
    ok(&["export", &path("back"), "-o", &path("back.tsv")]);
    assert_eq!(std::fs::read_to_string(path("back.tsv")).unwrap(), text);
    // Matrix Market declares 4 vertices; the last has no arc, and no line of a TSV.
    std::fs::write(
        path("m.mtx"),
        "%%MatrixMarket matrix coordinate pattern general\n4 4 2\n1 2\n2 3\n",
    )
    .unwrap();
    ok(&["convert", &path("m.mtx"), "-o", &path("m")]);
    let o = ok(&["export", &path("m"), "-o", &path("m.tsv")]);
    assert!(
        stderr(&o).contains("its 1 vertex without arcs is on no line"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("convert it back"), "{}", stderr(&o));
    // Labels holding a separator or starting with a comment marker are quoted, and read back
    // as themselves: unquoted, "b 2" would be a weight and "#x" a comment.
    std::fs::write(
        path("q.txt"),
        "a \"b 2\"\n\"#x\" y\n\"%z\" \"c,d\"\ne\"f x#\n",
    )
    .unwrap();
    ok(&["convert", &path("q.txt"), "-o", &path("q")]);
    ok(&["export", &path("q"), "-o", &path("q.tsv")]);
    let text = std::fs::read_to_string(path("q.tsv")).unwrap();
    assert_eq!(text, "a\t\"b 2\"\n\"#x\"\ty\n\"%z\"\t\"c,d\"\ne\"f\tx#\n");
    ok(&["convert", &path("q.tsv"), "-o", &path("q2")]);
    ok(&["export", &path("q2"), "-o", &path("q2.tsv")]);
    assert_eq!(std::fs::read_to_string(path("q2.tsv")).unwrap(), text);
}

#[test]
fn export_parquet_writes_tables_and_refuses_to_mix_with_old_ones() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.tsv");
    std::fs::write(&input, "a\tb\nb\tc\nc\ta\n").unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    let o = vastgraph(&["convert", input.to_str().unwrap(), "-o", s, "--relabel"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("tables");
    let t = out.to_str().unwrap();
    let o = vastgraph(&["export", s, "--format", "parquet", "-o", t]);
    assert!(o.status.success(), "{}", stderr(&o));
    for table in ["edges", "vertices"] {
        let part = out.join(table).join("part-00000.parquet");
        let bytes = std::fs::read(&part).unwrap();
        // The Parquet magic at both ends: a complete file with its footer.
        assert!(
            bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"),
            "{}",
            part.display()
        );
    }
    let o = vastgraph(&["export", s, "--format", "parquet", "-o", t]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("not empty"), "{}", stderr(&o));
    let o = vastgraph(&["export", s, "--format", "parquet", "-o", t, "--overwrite"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A file of the user's in a table directory is not deleted by overwriting: refused.
    std::fs::write(out.join("edges").join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join("README"), "mine").unwrap();
    let o = vastgraph(&["export", s, "--format", "parquet", "-o", t, "--overwrite"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds more than Parquet files (notes.txt)"),
        "{}",
        stderr(&o)
    );
    assert!(out.join("edges").join("notes.txt").exists() && out.join("README").exists());
    std::fs::remove_file(out.join("edges").join("notes.txt")).unwrap();
    let o = vastgraph(&["export", s, "--format", "parquet", "-o", t, "--overwrite"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("README").exists());
    let o = vastgraph(&["export", s, "--format", "csv", "-o", t]);
    assert!(
        !o.status.success() && stderr(&o).contains("csv"),
        "{}",
        stderr(&o)
    );
    // The Parquet options name their format when given to a TSV export, which would ignore
    // them (a user asking for --compression zstd would get an uncompressed file), and nothing
    // is written.
    let tsv = dir.path().join("arcs.tsv");
    for flag in [
        &["--compression", "zstd"][..],
        &["--chunk-rows", "10"],
        &["--rows-per-file", "10"],
    ] {
        let o = vastgraph(&[&["export", s, "-o", tsv.to_str().unwrap()][..], flag].concat());
        assert_eq!(o.status.code(), Some(2), "{flag:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("{} applies to --format parquet", flag[0])),
            "{}",
            stderr(&o)
        );
        assert!(!tsv.exists(), "{flag:?}");
    }
    // With parquet they apply: one row a group and a file, three files of edges.
    let o = vastgraph(&[
        "export",
        s,
        "--format",
        "parquet",
        "-o",
        t,
        "--overwrite",
        "--chunk-rows",
        "1",
        "--rows-per-file",
        "1",
        "--compression",
        "snappy",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("edges").join("part-00002.parquet").exists());
    assert!(!out.join("edges").join("part-00003.parquet").exists());
    // Writing to a device goes straight to it instead of renaming over it.
    let o = vastgraph(&["export", s, "-o", "/dev/null"]);
    assert!(o.status.success(), "{}", stderr(&o));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

/// An export directory whose edge and vertex tables come from two exports (what an export
/// killed between replacing one table and the other leaves) is refused by `convert`, which
/// would otherwise name the new arcs' vertices by the old labels.
#[test]
fn tables_of_two_exports_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (first, second) = (
        input("a.tsv", "a\tb\nb\tc\n"),
        input("b.tsv", "x\ty\ny\tz\n"),
    );
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (input, name) in [(&first, "a"), (&second, "b")] {
        ok(&["convert", input, "-o", &path(name)]);
        ok(&[
            "export",
            &path(name),
            "--format",
            "parquet",
            "-o",
            &path(&format!("{name}.pq")),
        ]);
    }
    ok(&["convert", &path("a.pq"), "-o", &path("a.back")]);
    std::fs::remove_dir_all(dir.path().join("a.pq/vertices")).unwrap();
    std::fs::rename(
        dir.path().join("b.pq/vertices"),
        dir.path().join("a.pq/vertices"),
    )
    .unwrap();
    let o = vastgraph(&["convert", &path("a.pq"), "-o", &path("mixed")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("its tables come from two exports"),
        "{}",
        stderr(&o)
    );
    assert_nothing_written(dir.path(), &dir.path().join("mixed"));
    // Overwriting an export replaces both tables: it converts again.
    ok(&[
        "export",
        &path("b"),
        "--format",
        "parquet",
        "-o",
        &path("a.pq"),
        "--force",
    ]);
    ok(&["convert", &path("a.pq"), "-o", &path("b.back")]);
}

/// A Parquet export converts back to the store it came from: the same arcs, weights, labels,
/// symmetry and self-loops, file for file (the manifest records the conversion, so it
/// differs).
#[test]
fn a_parquet_export_converts_back_to_the_same_store() {
    let dir = tempfile::tempdir().unwrap();
    let labelled = fixture("labels.tsv");
    let weighted = fixture("weights.csv");
    let looped = fixture("tiny.tsv");
    for (name, input, flag) in [
        ("labels-directed", &labelled, None),
        ("labels-symmetric", &labelled, Some("--symmetrize")),
        ("weights-symmetric", &weighted, Some("--symmetrize")),
        ("self-loops", &looped, Some("--keep-self-loops")),
    ] {
        let store = dir.path().join(name);
        let s = store.to_str().unwrap();
        let args = [&["convert", input.as_str(), "-o", s][..], flag.as_slice()].concat();
        ok(&args);
        let tables = dir.path().join(format!("{name}.parquet"));
        let t = tables.to_str().unwrap();
        ok(&["export", s, "--format", "parquet", "-o", t]);
        let back = dir.path().join(format!("{name}.back"));
        ok(&["convert", t, "-o", back.to_str().unwrap()]);
        let mut files: Vec<_> = std::fs::read_dir(&store)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|f| f != "manifest.json")
            .collect();
        files.sort();
        assert!(files.iter().any(|f| f == "neighbors.u32"), "{files:?}");
        for file in &files {
            assert!(
                std::fs::read(store.join(file)).unwrap() == std::fs::read(back.join(file)).unwrap(),
                "{name}: {file:?} differs after the round trip"
            );
        }
        let info =
            String::from_utf8_lossy(&ok(&["info", back.to_str().unwrap()]).stdout).into_owned();
        let kind = if flag == Some("--symmetrize") {
            "(symmetric"
        } else {
            "(directed"
        };
        assert!(info.contains(kind), "{name}: {info}");
        if flag == Some("--keep-self-loops") {
            assert!(
                info.contains("6 (directed"),
                "the self-loop is kept: {info}"
            );
        }
    }
}

#[test]
fn truncated_or_corrupted_store_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    assert!(
        vastgraph(&["generate", "kron", "--scale", "10", "--symmetrize", "-o", s])
            .status
            .success()
    );
    let neighbors = store.join("neighbors.u32");
    let bytes = std::fs::read(&neighbors).unwrap();
    // A flipped byte keeps the sizes right, and may keep every list valid: the checksum of its
    // page names it wherever the store is read, in memory or out of core; --verify checks the
    // whole files.
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x40;
    std::fs::write(&neighbors, &flipped).unwrap();
    for args in [
        vec!["info", s, "--verify"],
        vec!["run", "bfs", s],
        vec!["run", "cc", s, "--memory", "16MiB"],
    ] {
        let o = vastgraph(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("neighbors.u32") && e.contains("checksum"),
            "{args:?}: {e}"
        );
    }
    // Truncation is caught on open, before any algorithm runs.
    std::fs::write(&neighbors, &bytes[..bytes.len() - 4]).unwrap();
    for args in [
        vec!["info", s],
        vec!["run", "bfs", s],
        vec!["export", s, "-o", "/dev/null"],
    ] {
        let o = vastgraph(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("neighbors.u32"), "{}", stderr(&o));
    }
}

#[test]
fn run_writes_npy_and_stats_and_rejects_bad_requests() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    assert!(vastgraph(&["generate", "kron", "--scale", "10", "-o", s])
        .status
        .success());
    let npy = dir.path().join("d.npy");
    let stats = dir.path().join("s.json");
    let o = vastgraph(&[
        "run",
        "bfs",
        s,
        "--source",
        "3",
        "--output",
        npy.to_str().unwrap(),
        "--stats",
        stats.to_str().unwrap(),
        "--verify",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let npy = std::fs::read(&npy).unwrap();
    assert_eq!(&npy[..6], b"\x93NUMPY");
    let header_len = u16::from_le_bytes([npy[8], npy[9]]) as usize;
    assert_eq!(npy.len() - 10 - header_len, 1024 * 8, "one i64 per vertex");
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    for key in [
        "algorithm",
        "parameters",
        "wall_seconds",
        "iterations",
        "edges_traversed",
        "peak_rss_bytes",
        "peak_mutable_bytes",
    ] {
        assert!(j.get(key).is_some(), "stats lack {key}: {j}");
    }
    assert_eq!(j["verified"], true);

    let o = vastgraph(&["run", "bfs", s, "--source", "1024"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("out of range"), "{}", stderr(&o));
    let o = vastgraph(&["run", "sssp", s]);
    assert!(stderr(&o).contains("weights"), "{}", stderr(&o));
    let o = vastgraph(&["run", "kcore", s]);
    assert!(stderr(&o).contains("--symmetrize"), "{}", stderr(&o));
}

#[test]
fn generated_store_is_identical_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut manifests = vec![];
    for threads in ["1", "2"] {
        let store = dir.path().join(format!("k{threads}"));
        let o = Command::new(env!("CARGO_BIN_EXE_vastgraph"))
            .args([
                "--quiet",
                "--threads",
                threads,
                "generate",
                "kron",
                "--scale",
                "12",
                "--symmetrize",
                "--weighted",
            ])
            .args(["--memory", "16MiB", "-o", store.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(store.join("manifest.json")).unwrap()).unwrap();
        manifests.push(m["files"].clone());
    }
    assert_eq!(
        manifests[0], manifests[1],
        "the same files, byte for byte (checksums), for 1 and 2 threads"
    );
}

#[test]
fn interrupt_leaves_no_store() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("big");
    // Large enough to take several seconds; interrupted after half a second.
    let mut child = Command::new(env!("CARGO_BIN_EXE_vastgraph"))
        .args([
            "--quiet",
            "generate",
            "uniform",
            "--vertices",
            "1000000",
            "--edges",
            "400000000",
            "--memory",
            "64MiB",
        ])
        .args(["-o", target.to_str().unwrap()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert!(!status.success(), "an interrupted build must fail");
    assert_nothing_written(dir.path(), &target);
}

#[test]
fn labels_are_kept_and_used_in_tsv_output() {
    let dir = tempfile::tempdir().unwrap();
    let store = people(dir.path());
    let s = store.to_str().unwrap();
    let out = dir.path().join("cc.tsv");
    assert!(
        vastgraph(&["run", "cc", s, "--output", out.to_str().unwrap()])
            .status
            .success()
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let label_of = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{name}\t")))
            .unwrap()
            .split('\t')
            .nth(1)
            .unwrap()
            .to_string()
    };
    assert_eq!(label_of("alice"), label_of("carol"));
    assert_eq!(label_of("dave"), label_of("erin"));
    assert_ne!(label_of("alice"), label_of("dave"));
}

/// `-o -` writes what a file would hold to standard output, through the descriptor the shell
/// gave, so `>> FILE` appends; `--top`, which prints there too, is refused beside it.
#[test]
fn a_dash_writes_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let store = people(dir.path());
    let s = store.to_str().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let stdout = |o: std::process::Output| String::from_utf8(o.stdout).unwrap();
    let file = |name: &str| std::fs::read_to_string(path(name)).unwrap();
    ok(&["run", "cc", s, "-o", &path("cc.tsv")]);
    assert_eq!(stdout(ok(&["run", "cc", s, "-o", "-"])), file("cc.tsv"));
    ok(&["export", s, "-o", &path("arcs.tsv")]);
    assert_eq!(stdout(ok(&["export", s, "-o", "-"])), file("arcs.tsv"));
    let stats: serde_json::Value =
        serde_json::from_str(&stdout(ok(&["run", "cc", s, "--stats", "-"]))).unwrap();
    assert_eq!(stats["algorithm"], "cc");
    assert!(!Path::new("-").exists(), "a file named - was written");

    std::fs::write(path("appended.tsv"), "before\n").unwrap();
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .open(path("appended.tsv"))
        .unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_vastgraph"))
        .args(["--quiet", "run", "cc", s, "-o", "-"])
        .stdout(appended)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(file("appended.tsv"), format!("before\n{}", file("cc.tsv")));

    let o = vastgraph(&["run", "cc", s, "-o", "-", "--top", "2"]);
    assert!(
        stderr(&o).contains("--top prints to standard output"),
        "{}",
        stderr(&o)
    );
    let o = vastgraph(&["export", s, "--format", "parquet", "-o", "-"]);
    assert!(
        stderr(&o).contains("a Parquet export is a directory"),
        "{}",
        stderr(&o)
    );
    assert!(!o.status.success() && o.stdout.is_empty());
}

/// A labelled symmetric store in `dir`: alice - bob - carol, and dave - erin.
fn people(dir: &Path) -> PathBuf {
    let input = dir.join("people.tsv");
    std::fs::write(&input, "alice\tbob\nbob\tcarol\ndave\terin\n").unwrap();
    let store = dir.join("s");
    ok(&[
        "convert",
        input.to_str().unwrap(),
        "-o",
        store.to_str().unwrap(),
        "--symmetrize",
    ]);
    store
}

/// `args`, plus `--memory BUDGET` when a budget is given.
fn within<'a>(mut args: Vec<&'a str>, budget: Option<&'a str>) -> Vec<&'a str> {
    args.extend(budget.iter().flat_map(|b| ["--memory", b]));
    args
}

#[test]
fn a_source_is_named_by_its_label_in_memory_and_within_a_budget() {
    let dir = tempfile::tempdir().unwrap();
    let store = people(dir.path());
    let s = store.to_str().unwrap();
    for budget in [None, Some("64MiB")] {
        let out = dir.path().join("bfs.tsv");
        let o = out.to_str().unwrap();
        let args = vec!["run", "bfs", s, "--source", "carol", "-o", o, "--force"];
        ok(&within(args, budget));
        let text = std::fs::read_to_string(&out).unwrap();
        let depth: std::collections::HashMap<&str, &str> =
            text.lines().filter_map(|l| l.split_once('\t')).collect();
        assert_eq!(
            ["alice", "bob", "carol", "dave"].map(|v| depth[v]),
            ["2", "1", "0", "-1"],
            "{budget:?}: {text}"
        );
        let refused = vastgraph(&within(vec!["run", "bfs", s, "--source", "zed"], budget));
        assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
        assert!(
            stderr(&refused).contains("--source: no vertex of")
                && stderr(&refused).contains("is labelled \"zed\""),
            "{}",
            stderr(&refused)
        );
    }
}

/// On a store whose labels are integers (sparse ids converted with --relabel), an integer is
/// a label: one the store lacks is refused, not taken for the vertex of that dense id. Where
/// no label is an integer, an integer is a dense id.
#[test]
fn an_integer_source_names_a_label_where_labels_are_integers() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("sparse.tsv");
    std::fs::write(&input, "7\t1000000\n1000000\t3\n").unwrap();
    let store = dir.path().join("sparse");
    let s = store.to_str().unwrap();
    ok(&["convert", input.to_str().unwrap(), "-o", s, "--relabel"]);
    let out = dir.path().join("bfs.tsv");
    let o = out.to_str().unwrap();
    ok(&["run", "bfs", s, "--source", "1000000", "-o", o]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("1000000\t0\n") && text.contains("3\t1\n"),
        "{text}"
    );
    for source in ["1", "2"] {
        let refused = vastgraph(&["run", "bfs", s, "--source", source]);
        let e = stderr(&refused);
        assert_eq!(refused.status.code(), Some(2), "{e}");
        assert!(
            e.contains(&format!("is labelled \"{source}\"")) && e.contains("labels are integers"),
            "{e}"
        );
    }
    let people = people(dir.path());
    let p = people.to_str().unwrap();
    ok(&["run", "bfs", p, "--source", "1", "-o", o, "--force"]);
}

#[test]
fn top_names_the_vertices_with_the_largest_values_by_label() {
    let dir = tempfile::tempdir().unwrap();
    // bob is the only vertex with two neighbours: the largest PageRank.
    let store = people(dir.path());
    let s = store.to_str().unwrap();
    for budget in [None, Some("64MiB")] {
        let args = within(vec!["run", "pagerank", s, "--top", "2"], budget);
        let out = String::from_utf8(ok(&args).stdout).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{budget:?}: {out}");
        assert_eq!(lines[0], "top 2 by pagerank:");
        assert!(lines[1].contains("bob"), "{budget:?}: {out}");
    }
    // A component is named by its smallest vertex: by label, as --output writes it.
    let out = String::from_utf8(ok(&["run", "cc", s, "--top", "1"]).stdout).unwrap();
    let first = out.lines().nth(1).unwrap();
    assert_eq!(first.matches("dave").count(), 2, "{out}");
    let walks = vastgraph(&["run", "random-walk", s, "--top", "2"]);
    assert!(!walks.status.success());
    assert!(stderr(&walks).contains("rows"), "{}", stderr(&walks));
}

/// Triangles per vertex are counted when they are ranked, as when they are written.
#[test]
fn top_ranks_vertices_by_their_triangles() {
    let dir = tempfile::tempdir().unwrap();
    // Two triangles share carol: she is in both, everyone else in one.
    let input = dir.path().join("two-triangles.tsv");
    std::fs::write(
        &input,
        "alice\tbob\nbob\tcarol\ncarol\talice\ncarol\tdave\ndave\terin\nerin\tcarol\n",
    )
    .unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    ok(&["convert", input.to_str().unwrap(), "-o", s, "--symmetrize"]);
    for budget in [None, Some("64MiB")] {
        let out = String::from_utf8(ok(&within(vec!["run", "tc", s, "--top", "1"], budget)).stdout)
            .unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{budget:?}: {out}");
        assert!(
            lines[1].contains("carol") && lines[1].contains('2'),
            "{budget:?}: {out}"
        );
    }
}

/// Unreachable vertices (infinitely far) are not ranked: the top are the farthest reached.
#[test]
fn top_ranks_the_farthest_reachable_vertices() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("d.gr");
    std::fs::write(&input, "p sp 5 3\na 1 2 5\na 2 3 1.5\na 4 5 1\n").unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    ok(&["convert", input.to_str().unwrap(), "-o", s]);
    let stats = dir.path().join("stats.json");
    for budget in [None, Some("64MiB")] {
        let st = stats.to_str().unwrap();
        let args = vec!["run", "sssp", s, "--top", "3", "--stats", st, "--force"];
        let out = String::from_utf8(ok(&within(args, budget)).stdout).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[0].contains("not ranked: 2 vertices"),
            "{budget:?}: {out}"
        );
        let ranked: Vec<&str> = lines[1..]
            .iter()
            .map(|l| l.split_whitespace().nth(1).unwrap())
            .collect();
        assert_eq!(ranked, ["2", "1", "0"], "{budget:?}: {out}");
        let record: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
        let values: Vec<f64> = record["top"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["value"].as_f64().unwrap())
            .collect();
        assert_eq!(values, [6.5, 5.0, 0.0], "{budget:?}");
    }
}

/// A kept self-loop counts once in its vertex's degree, in memory and out of core alike.
#[test]
fn a_self_loop_counts_once_in_the_coreness() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("loop.tsv");
    std::fs::write(&input, "0\t0\n1\t2\n2\t3\n3\t1\n").unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    let i = input.to_str().unwrap();
    ok(&["convert", i, "-o", s, "--symmetrize", "--keep-self-loops"]);
    let out = dir.path().join("core.tsv");
    for budget in [None, Some("64MiB")] {
        let o = out.to_str().unwrap();
        let args = vec!["run", "kcore", s, "--verify", "-o", o, "--force"];
        ok(&within(args, budget));
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text, "0\t1\n1\t2\n2\t2\n3\t2\n", "{budget:?}");
    }
}

#[test]
fn completions_cover_the_commands_and_their_options() {
    let bash = String::from_utf8(ok(&["completions", "bash"]).stdout).unwrap();
    for word in ["convert", "quickstart", "--memory", "--io-mode"] {
        assert!(bash.contains(word), "bash completions lack {word}");
    }
    assert!(!vastgraph(&["completions", "tcsh"]).status.success());
}

/// `vastgraph info STORE | head -1` after head has exited: the closed pipe ends the process
/// quietly (by SIGPIPE, as it does `cat`), not with a panic from `println!`.
#[test]
fn a_closed_stdout_ends_quietly() {
    use std::os::fd::FromRawFd;
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("g");
    let out = vastgraph(&[
        "convert",
        &fixture("tiny.tsv"),
        "-o",
        store.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut ends = [0; 2];
    assert_eq!(unsafe { libc::pipe(ends.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just opened by pipe() and are owned here alone.
    let (reader, writer) = unsafe {
        (
            std::fs::File::from_raw_fd(ends[0]),
            std::fs::File::from_raw_fd(ends[1]),
        )
    };
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_vastgraph"))
        .args(["info", store.to_str().unwrap()])
        .stdout(writer)
        .output()
        .unwrap();
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
}

/// In `.tsv` output, values that are vertices (cc's component labels, bfs's parents) are named
/// as the vertices are, by the store's labels: a relabelled store printed "100\t1" for 100's
/// parent 200 (dense id 1), and "5\t3" for 5's component.
#[test]
fn tsv_values_that_are_vertices_are_named_by_their_labels() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("named.tsv");
    std::fs::write(&input, "100\t200\n200\t300\n5\t6\n").unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    let o = vastgraph(&[
        "convert",
        input.to_str().unwrap(),
        "-o",
        s,
        "--relabel",
        "--symmetrize",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |name: &str, args: &[&str]| {
        let out = dir.path().join(name);
        let o = vastgraph(&[args, &["-o", out.to_str().unwrap()]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        let mut lines: Vec<String> = std::fs::read_to_string(out)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        lines.sort();
        lines
    };
    assert_eq!(
        read("p.tsv", &["run", "bfs", s, "--parents", "--source", "300"]),
        ["100\t200", "200\t300", "300\t300", "5\t-1", "6\t-1"]
    );
    // Distances stay numbers.
    assert_eq!(
        read("d.tsv", &["run", "bfs", s, "--source", "300"]),
        ["100\t2", "200\t1", "300\t0", "5\t-1", "6\t-1"]
    );
    // The smallest dense id of each component, named: 100 (id 0) and 5 (id 3).
    assert_eq!(
        read("c.tsv", &["run", "cc", s]),
        ["100\t100", "200\t100", "300\t100", "5\t5", "6\t5"]
    );
}

/// Integral weights that float32 rounds (a store that is not all int32 keeps float32 weights)
/// are named in a warning; weights float32 holds exactly are not.
#[test]
fn integral_weights_rounded_to_float32_are_named() {
    let dir = tempfile::tempdir().unwrap();
    for (text, warned) in [
        ("0\t1\t16777217\n1\t2\t0.5\n", true),
        ("0\t1\t16777216\n1\t2\t0.5\n", false),
        ("0\t1\t16777217\n1\t2\t5\n", false),
        // A real in exponent notation past 2^53 is no integer a user wrote.
        ("0\t1\t3.4e38\n1\t2\t0.5\n", false),
    ] {
        let input = dir.path().join("w.tsv");
        std::fs::write(&input, text).unwrap();
        let store = dir.path().join("s");
        let o = vastgraph(&[
            "convert",
            input.to_str().unwrap(),
            "-o",
            store.to_str().unwrap(),
            "--force",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let said = stderr(&o).contains("rounds some integers");
        assert!(!said || stderr(&o).contains("16777217 becomes 16777216"));
        assert_eq!(said, warned, "{text:?}: {}", stderr(&o));
    }
}

/// A store without arcs (every edge a self-loop, dropped) has no size per arc to report.
#[test]
fn a_store_without_arcs_reports_no_size_per_arc() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(path("loops.txt"), "0 0\n1 1\n").unwrap();
    ok(&["convert", &path("loops.txt"), "-o", &path("s")]);
    for args in [
        vec!["compress", &path("s"), "-o", &path("z")],
        vec!["tile", &path("s")],
    ] {
        let e = stderr(&ok(&args));
        assert!(e.contains("(no arcs"), "{args:?}: {e}");
    }
    let text = String::from_utf8(ok(&["info", &path("s")]).stdout).unwrap();
    assert!(text.contains("(no arcs)"), "{text}");
    let json: serde_json::Value =
        serde_json::from_slice(&ok(&["info", &path("s"), "--json"]).stdout).unwrap();
    assert!(json["bytes_per_arc"].is_null(), "{json}");
    assert!(json["tiles"]["bytes_per_arc"].is_null(), "{json}");
}
