//! Hostile and broken input, end to end: each gets an error that names the file and the reason
//! (or a clear refusal with the numbers), exits with status 1 or 2, prints no panic and leaves
//! nothing half-written.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{fixture, ok, stderr, vastgraph};
use vastgraph_testkit::SmallTmpfs;

/// The run failed cleanly: an error exit, no panic message or backtrace.
fn assert_clean_failure(o: &std::process::Output, context: &str) -> String {
    let e = stderr(o);
    assert!(
        matches!(o.status.code(), Some(1 | 2)),
        "{context}: exit {:?}: {e}",
        o.status
    );
    assert!(
        !e.contains("panicked") && !e.contains("backtrace") && !e.contains("RUST_BACKTRACE"),
        "{context}: a panic reached the user: {e}"
    );
    e
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Copies the tiny WebGraph fixture into `dir` as `NAME.graph`/`.properties`, edited.
fn webgraph_copy(dir: &Path, name: &str, edit: impl FnOnce(&mut Vec<u8>, &mut String)) -> String {
    let mut graph = std::fs::read(fixture("tiny-webgraph.graph")).unwrap();
    let mut properties = std::fs::read_to_string(fixture("tiny-webgraph.properties")).unwrap();
    edit(&mut graph, &mut properties);
    let base = dir.join(name);
    std::fs::write(base.with_extension("graph"), graph).unwrap();
    std::fs::write(base.with_extension("properties"), properties).unwrap();
    s(&base.with_extension("graph")).to_string()
}

/// Each damaged WebGraph file, with the real cnr-2000 graph's damage when ../shared is there.
#[test]
fn damaged_webgraph_input_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases: Vec<(String, String)> = vec![
        (
            "truncated".into(),
            webgraph_copy(dir.path(), "truncated", |g, _| g.truncate(3)),
        ),
        (
            "zeroed".into(),
            webgraph_copy(dir.path(), "zeroed", |g, _| {
                g.iter_mut().for_each(|b| *b = 0)
            }),
        ),
        (
            "window 0".into(),
            webgraph_copy(dir.path(), "window", |_, p| {
                *p = p.replace("windowsize=7", "windowsize=0")
            }),
        ),
        (
            "more nodes declared".into(),
            webgraph_copy(dir.path(), "nodes", |_, p| {
                *p = p.replace("nodes=7", "nodes=9000")
            }),
        ),
        (
            "fewer arcs declared".into(),
            webgraph_copy(dir.path(), "arcs", |_, p| {
                *p = p.replace("arcs=13", "arcs=5")
            }),
        ),
    ];
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/webgraph");
    if shared.join("cnr-2000.graph").exists() {
        let graph = std::fs::read(shared.join("cnr-2000.graph")).unwrap();
        let properties = std::fs::read_to_string(shared.join("cnr-2000.properties")).unwrap();
        let mut real = |name: &str, edit: &dyn Fn(&mut Vec<u8>, &mut String)| {
            let (mut g, mut p) = (graph.clone(), properties.clone());
            edit(&mut g, &mut p);
            let base = dir.path().join(name);
            std::fs::write(base.with_extension("graph"), g).unwrap();
            std::fs::write(base.with_extension("properties"), p).unwrap();
            cases.push((name.into(), s(&base.with_extension("graph")).to_string()));
        };
        real("cnr-truncated", &|g, _| g.truncate(500_000));
        real("cnr-zeroed-page", &|g, _| g[200_000..204_096].fill(0));
        real("cnr-flags", &|_, p| {
            *p = p.replace("compressionflags=", "compressionflags=OUTDEGREES_DELTA")
        });
        real("cnr-window", &|_, p| {
            *p = p.replace("windowsize=7", "windowsize=0")
        });
        real("cnr-nodes", &|_, p| {
            *p = p.replace("nodes=325557", "nodes=400000")
        });
    } else {
        eprintln!("skipping the cnr-2000 cases: ../shared/data/webgraph is absent");
    }
    for (name, input) in cases {
        let target = dir.path().join(format!("store-{name}"));
        let started = Instant::now();
        let o = vastgraph(&["convert", &input, "-o", s(&target)]);
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{name}: too slow"
        );
        let e = assert_clean_failure(&o, &name);
        assert!(
            e.contains(".graph") || e.contains(".properties"),
            "{name}: {e}"
        );
        assert!(!target.exists(), "{name}: a store was written");
    }
}

#[test]
fn a_stray_token_in_an_integer_edge_list_names_file_line_and_token() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("edges.tsv");
    std::fs::write(&input, "0 1\n1 2\n2 x7\n3 4\n").unwrap();
    let target = dir.path().join("store");
    let o = vastgraph(&["convert", s(&input), "-o", s(&target)]);
    let e = assert_clean_failure(&o, "stray token");
    assert!(e.contains("edges.tsv:3") && e.contains("'x7'"), "{e}");
    assert!(!target.exists());
    // Labels are for a file that starts with them, or for --relabel.
    ok(&["convert", s(&input), "-o", s(&target), "--relabel"]);
}

/// A table compressed with a codec the reader lacks (brotli) is named with the remedy.
#[test]
fn a_table_in_an_unread_codec_names_the_codecs_that_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    let input = fixture("brotli-compressed.parquet");
    let o = vastgraph(&["convert", &input, "-o", s(&target)]);
    let e = assert_clean_failure(&o, "brotli");
    assert!(
        e.contains("brotli-compressed.parquet") && e.contains("rewrite it with zstd"),
        "{e}"
    );
    assert!(!target.exists());
}

#[test]
fn a_header_line_is_detected_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("edges.csv");
    std::fs::write(&input, "src,dst\n5,7\n7,9\n").unwrap();
    let target = dir.path().join("store");
    let o = ok(&["convert", s(&input), "-o", s(&target)]);
    assert!(stderr(&o).contains("line 1 is a header"), "{}", stderr(&o));
    let info = ok(&["info", s(&target), "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    // The ids stay integers: 0..=9, two arcs; the header is no edge.
    assert_eq!(
        (j["vertices"].as_u64(), j["arcs"].as_u64()),
        (Some(10), Some(2))
    );
    assert_eq!(j["has_labels"], false);
}

#[test]
fn a_stray_id_near_the_limit_is_refused_at_once_with_relabel_as_the_way_out() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("edges.tsv");
    std::fs::write(&input, "0 1\n1 4294967294\n").unwrap();
    let target = dir.path().join("store");
    let started = Instant::now();
    let o = vastgraph(&["convert", s(&input), "-o", s(&target)]);
    assert!(started.elapsed() < Duration::from_secs(20));
    let e = assert_clean_failure(&o, "sparse ids");
    assert!(
        e.contains("--relabel") && e.contains("GB of offsets"),
        "{e}"
    );
    ok(&["convert", s(&input), "-o", s(&target), "--relabel"]);
}

#[test]
fn absurd_arguments_are_refused_with_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    ok(&[
        "convert",
        &fixture("tiny.tsv"),
        "-o",
        s(&target),
        "--symmetrize",
    ]);
    let started = Instant::now();
    let o = vastgraph(&["--threads", "100000", "run", "bfs", s(&target)]);
    assert!(started.elapsed() < Duration::from_secs(20));
    let e = assert_clean_failure(&o, "--threads 100000");
    assert!(e.contains("100000") && e.contains("limit"), "{e}");
    // The longest walk --walk-length takes, from one vertex 4096 times: 64 TiB of walks.
    let sources = vec!["0"; 4096].join(",");
    let length = "4294967295";
    for memory in [None, Some("64MiB")] {
        let mut args = vec![
            "run",
            "random-walk",
            s(&target),
            "--walk-length",
            length,
            "--sources",
            &sources,
        ];
        if let Some(m) = memory {
            args.extend(["--memory", m]);
        }
        let o = vastgraph(&args);
        let e = assert_clean_failure(&o, &format!("--walk-length {length}"));
        // In memory, the size of the walks; within a budget, the plan's minimum, which
        // counts them (the walks are random-walk's state in passes).
        match memory {
            None => assert!(e.contains(&format!("walks of length {length}")), "{e}"),
            Some(_) => {
                assert!(
                    e.contains("random-walk") && e.contains("the minimum is"),
                    "{e}"
                )
            }
        }
    }
    // One past the largest count says so, not that it is no integer.
    let o = vastgraph(&[
        "run",
        "pagerank",
        s(&target),
        "--max-iters",
        "18446744073709551616",
    ]);
    let e = assert_clean_failure(&o, "--max-iters 2^64");
    assert!(
        e.contains("--max-iters: 18446744073709551616 is more than 2^64 - 1"),
        "{e}"
    );
}

/// A build killed where every process is process 1 left `.store.tmp-1`; the next build of
/// the same target removes it, says so, and succeeds.
#[test]
fn a_stale_stage_of_the_target_is_removed_by_the_next_build() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    let stale = dir.path().join(".store.tmp-1");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join("offsets.u64"), b"partial").unwrap();
    let other = dir.path().join(".other.tmp-1");
    std::fs::create_dir(&other).unwrap();
    let o = vastgraph(&["convert", &fixture("tiny.tsv"), "-o", s(&target)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
    assert!(!stale.exists() && other.exists());
    // The same for an output file of a run.
    let out = dir.path().join("bfs.tsv");
    std::fs::write(dir.path().join(".bfs.tsv.tmp-1"), b"partial").unwrap();
    ok(&["run", "bfs", s(&target), "--output", s(&out)]);
    assert!(!dir.path().join(".bfs.tsv.tmp-1").exists());
    assert!(!dir.path().join(".bfs.tsv.lock").exists());
}

/// A target under a regular file, where no directory can be: convert, a run's output and an
/// export each name the path and the system's reason, once.
#[test]
fn a_target_that_cannot_be_created_is_named_with_its_reason_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ok(&["convert", &fixture("tiny.tsv"), "-o", s(&store)]);
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let reason = std::io::Error::from_raw_os_error(libc::ENOTDIR).to_string();
    for (what, args) in [
        ("convert", vec!["convert", &fixture("tiny.tsv"), "-o"]),
        ("run", vec!["run", "bfs", s(&store), "-o"]),
        ("export", vec!["export", s(&store), "-o"]),
    ] {
        let target = file.join("x.tsv");
        let mut args: Vec<String> = args.into_iter().map(String::from).collect();
        args.push(s(&target).to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let e = assert_clean_failure(&vastgraph(&args), what);
        assert!(e.contains(s(&file)), "{what}: {e}");
        assert_eq!(e.matches(&reason).count(), 1, "{what}: {e}");
    }
}

/// A store whose manifest claims symmetry its lists do not have passes the open (each list is
/// valid) but not `info --verify`.
#[test]
fn info_verify_catches_a_false_claim_of_symmetry() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    ok(&["convert", &fixture("tiny.tsv"), "-o", s(&target)]);
    ok(&["info", s(&target), "--verify"]);
    let manifest = target.join("manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    m["directed"] = false.into();
    std::fs::write(&manifest, serde_json::to_vec(&m).unwrap()).unwrap();
    let o = vastgraph(&["info", s(&target), "--verify"]);
    let e = assert_clean_failure(&o, "false symmetry");
    assert!(
        e.contains("has no reverse") && e.contains("symmetric"),
        "{e}"
    );
}

/// Output files are replaced only with --force (--overwrite is its alias), checked before the
/// kernel runs; a TSV export and a generated edge list likewise.
#[test]
fn existing_output_files_need_force() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("store");
    ok(&["convert", &fixture("tiny.tsv"), "-o", s(&target)]);
    for (flag, path) in [
        ("--output", dir.path().join("d.tsv")),
        ("--stats", dir.path().join("s.json")),
    ] {
        ok(&["run", "bfs", s(&target), flag, s(&path)]);
        let before = std::fs::read(&path).unwrap();
        let o = vastgraph(&["run", "bfs", s(&target), flag, s(&path), "--source", "3"]);
        let e = assert_clean_failure(&o, flag);
        assert!(e.contains("already exists") && e.contains("--force"), "{e}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "{flag}: the file was touched"
        );
        ok(&[
            "run",
            "bfs",
            s(&target),
            flag,
            s(&path),
            "--source",
            "3",
            "--force",
        ]);
    }
    let tsv = dir.path().join("arcs.tsv");
    ok(&["export", s(&target), "-o", s(&tsv)]);
    assert_clean_failure(&vastgraph(&["export", s(&target), "-o", s(&tsv)]), "export");
    ok(&["export", s(&target), "-o", s(&tsv), "--overwrite"]);
    // A generated edge list likewise, and a store under the --overwrite alias.
    let edges = dir.path().join("e.bin32");
    let generate = [
        "generate",
        "uniform",
        "--vertices",
        "50",
        "--edges",
        "200",
        "--edge-list",
    ];
    ok(&[&generate[..], &[s(&edges)]].concat());
    let before = std::fs::read(&edges).unwrap();
    let o = vastgraph(&[&generate[..], &[s(&edges), "--seed", "9"]].concat());
    let e = assert_clean_failure(&o, "generate --edge-list");
    assert!(e.contains("already exists") && e.contains("--force"), "{e}");
    assert_eq!(
        std::fs::read(&edges).unwrap(),
        before,
        "the edge list was touched"
    );
    ok(&[&generate[..], &[s(&edges), "--seed", "9", "--force"]].concat());
    assert_ne!(std::fs::read(&edges).unwrap(), before);
    // A store's build option would be ignored by an edge list: refused, naming the flag.
    let written = std::fs::read(&edges).unwrap();
    for flag in [
        &["--symmetrize"][..],
        &["--order", "degree"],
        &["--codec", "zeta64"],
    ] {
        let o = vastgraph(&[&generate[..], &[s(&edges), "--force"], flag].concat());
        let e = assert_clean_failure(&o, "generate --edge-list with a store's option");
        assert!(
            e.contains(&format!("{} applies to a store", flag[0])),
            "{e}"
        );
    }
    assert_eq!(std::fs::read(&edges).unwrap(), written);
    // A name promising another format (text, gzip) is refused before anything is written.
    for name in ["e.tsv", "e.bin32.gz"] {
        let path = dir.path().join(name);
        let o = vastgraph(&[&generate[..], &[s(&path)]].concat());
        let e = assert_clean_failure(&o, "generate --edge-list with another format's name");
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(e.contains(".bin32") && e.contains(name), "{e}");
        assert!(!path.exists(), "{name} was written");
    }
    // Vertices enough for gigabytes of offsets and a handful of edges: refused in the
    // generator's terms, before a store is begun.
    let sparse = dir.path().join("sparse");
    let o = vastgraph(&[
        "generate",
        "uniform",
        "--vertices",
        "4294967295",
        "--edges",
        "1",
        "-o",
        s(&sparse),
    ]);
    let e = assert_clean_failure(&o, "generate uniform with sparse vertices");
    assert!(
        e.contains("--vertices 4294967295 with --edges 1") && !e.contains("--relabel"),
        "{e}"
    );
    assert!(!sparse.exists());
    // An output a run cannot write is refused before the kernel runs: no stats either.
    let stats = dir.path().join("refused.json");
    let o = vastgraph(&[
        "run",
        "bfs",
        s(&target),
        "--output",
        s(&dir.path().join("d.csv")),
        "--stats",
        s(&stats),
    ]);
    let e = assert_clean_failure(&o, "run --output d.csv");
    assert!(e.contains("d.csv") && e.contains(".npy"), "{e}");
    assert!(
        !stats.exists() && !e.contains("bfs on"),
        "the kernel ran: {e}"
    );
    ok(&["run", "bfs", s(&target), "-o", s(&dir.path().join("d.TSV"))]);
    ok(&[
        "convert",
        &fixture("tiny.tsv"),
        "-o",
        s(&target),
        "--overwrite",
    ]);
}

#[test]
fn a_build_larger_than_the_disk_is_refused_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let started = Instant::now();
    // 10^15 edges: petabytes of sorted runs, on no test machine's disk. Not quiet, so that
    // the estimate a build states before it starts is printed.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_vastgraph"))
        .args(["generate", "uniform", "--vertices", "1000000"])
        .args(["--edges", "1000000000000000", "-o", s(&store)])
        .output()
        .unwrap();
    let e = assert_clean_failure(&o, "generate past the disk");
    assert!(
        e.contains("not enough disk space") && e.contains("for sorted runs"),
        "{e}"
    );
    assert!(e.contains("the build holds at most"), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "refused at once"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "nothing is created: {left:?}");
}

/// A disk that fills while an export or a compressed copy is written: the error says so, with
/// the numbers a user acts on, and nothing is left on that disk. Needs root for the tmpfs.
#[test]
fn a_disk_that_fills_during_a_write_is_reported_with_the_numbers_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let Some(tmpfs) = SmallTmpfs::mount_in(
        dir.path(),
        "a_disk_that_fills_during_a_write_is_reported_with_the_numbers_and_leaves_nothing",
    ) else {
        return;
    };
    let small = tmpfs.path();
    // 1M random arcs: about 13 MB of TSV lines, 5 MB of Parquet and 3 MB of codes, against
    // 2 MiB.
    let store = dir.path().join("s");
    ok(&[
        "generate",
        "uniform",
        "--vertices",
        "100000",
        "--edges",
        "1000000",
        "-q",
        "-o",
        s(&store),
    ]);

    for (format, output) in [("tsv", "edges.tsv"), ("parquet", "tables")] {
        let o = vastgraph(&[
            "export",
            s(&store),
            "--format",
            format,
            "-o",
            s(&small.join(output)),
        ]);
        let e = assert_clean_failure(&o, &format!("{format} export onto a full disk"));
        assert!(
            e.contains("disk full: the output needs more than the ")
                && e.contains(" written when the disk filled, and that disk had ")
                && e.contains("what was written is removed"),
            "{e}"
        );
    }
    let o = vastgraph(&["compress", s(&store), "-o", s(&small.join("c"))]);
    let e = assert_clean_failure(&o, "compress onto a full disk");
    assert!(
        e.contains("disk full while writing")
            && e.contains("this compression needs about ")
            && e.contains("more than it had"),
        "{e}"
    );
    let left: Vec<_> = std::fs::read_dir(small).unwrap().collect();
    assert!(left.is_empty(), "nothing is left: {left:?}");
}

/// A finite weight beyond float32's range would be stored as an infinity (a store keeps int32
/// or float32 weights): each text format refuses it, naming the file, the line and the range.
#[test]
fn a_weight_beyond_float32_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, line) in [
        ("w.tsv", "0\t1\t2.5\n1\t2\t1e40\n", 2),
        (
            "w.mtx",
            "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 -5e38\n",
            4,
        ),
        (
            "w.gr",
            "p sp 3 2\na 1 2 1\na 2 3 99999999999999999999999999999999999999999\n",
            3,
        ),
    ] {
        let input = dir.path().join(name);
        std::fs::write(&input, text).unwrap();
        let target = dir.path().join(format!("{name}.store"));
        let o = vastgraph(&["convert", s(&input), "-o", s(&target)]);
        let e = assert_clean_failure(&o, name);
        assert!(
            e.contains(&format!("{}:{line}:", s(&input))) && e.contains("float32's range"),
            "{name}: {e}"
        );
        assert!(!target.exists(), "{name}");
    }
}

/// An output that names a directory, or lies in a directory that does not exist, is refused
/// before the kernel runs, saying which (a directory was found only when the finished result
/// was renamed over it, and a missing directory was named through the output's lock file).
#[test]
fn an_output_that_cannot_be_a_file_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ok(&["convert", &fixture("tiny.tsv"), "-o", s(&store)]);
    let taken = dir.path().join("taken.npy");
    std::fs::create_dir(&taken).unwrap();
    let missing = dir.path().join("nodir").join("x.npy");
    for (flag, path, says) in [
        ("--output", &taken, "is a directory"),
        ("--stats", &taken, "is a directory"),
        ("--output", &missing, "does not exist"),
    ] {
        let o = vastgraph(&["run", "bfs", s(&store), flag, s(path), "--force"]);
        let e = assert_clean_failure(&o, flag);
        assert!(e.contains(s(path)) && e.contains(says), "{flag}: {e}");
        assert!(!e.contains("lock"), "{flag}: {e}");
    }
    assert!(std::fs::read_dir(&taken).unwrap().next().is_none());
    assert!(!dir.path().join("nodir").exists());

    // One file for both the values and the statistics would keep only the statistics.
    let both = dir.path().join("both.tsv");
    let also = format!(
        "{}/../{}/both.tsv",
        s(dir.path()),
        dir.path().file_name().unwrap().to_str().unwrap()
    );
    let o = vastgraph(&["run", "bfs", s(&store), "-o", s(&both), "--stats", &also]);
    let e = assert_clean_failure(&o, "one file for both");
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--output and --stats"), "{e}");
    assert!(!both.exists());
    // A device is written in place: nothing to rename, nothing to make durable.
    let values = dir.path().join("values.tsv");
    ok(&[
        "run",
        "bfs",
        s(&store),
        "-o",
        s(&values),
        "--stats",
        "/dev/null",
    ]);
    assert!(values.is_file());
}

#[test]
fn refused_parameters_are_usage_errors_and_leave_no_checkpoint_directory() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ok(&["convert", &fixture("tiny.tsv"), "-o", s(&store)]);
    let ck = dir.path().join("ck");
    // Out of range, not taken, contradictory: exit 2, as clap's own refusals.
    for args in [
        &["run", "pagerank", s(&store), "--damping", "1.5"][..],
        &["run", "bfs", s(&store), "--damping", "0.5"],
        &["run", "bfs", s(&store), "--trials", "0"],
        &["run", "pagerank", s(&store), "--top", "0"],
        &["run", "ldd", s(&store), "--beta", "1e-10"],
        // A parameter the run would ignore beside another, or without its method.
        &["run", "cc", s(&store), "--beta", "0.1"],
        &[
            "run",
            "widest",
            s(&store),
            "--method",
            "frontier",
            "--delta",
            "2",
        ],
        &[
            "run",
            "personalized-pagerank",
            s(&store),
            "--sources",
            "0",
            "--source",
            "1",
        ],
        &[
            "run",
            "random-walk",
            s(&store),
            "--source",
            "0",
            "--every",
            "2",
        ],
        &[
            "run",
            "bfs",
            s(&store),
            "--checkpoint",
            s(&ck),
            "--trials",
            "2",
        ],
    ] {
        let o = vastgraph(args);
        let e = assert_clean_failure(&o, &format!("{args:?}"));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
    }
    // A negative value is refused by the flag's own check, which names it (and a parameter's
    // range), not taken for an unknown flag.
    for (args, named) in [
        (
            &["run", "sssp", s(&store), "--delta", "-1"][..],
            "delta must be",
        ),
        (
            &["run", "pagerank", s(&store), "--damping", "-0.5"],
            "[0, 1)",
        ),
        (&["run", "bfs", s(&store), "--source", "-1"], "--source"),
        (&["run", "bfs", s(&store), "--trials", "-2"], "--trials"),
        (&["--threads", "-1", "run", "bfs", s(&store)], "--threads"),
        (
            &["run", "bfs", s(&store), "--memory", "-1"],
            "'-1' is not a size",
        ),
        (
            &["generate", "kron", "--scale", "-1", "-o", s(&ck)],
            "--scale",
        ),
    ] {
        let o = vastgraph(args);
        let e = assert_clean_failure(&o, &format!("{args:?}"));
        assert!(
            e.contains(named) && !e.contains("unexpected argument"),
            "{args:?}: {e}"
        );
    }
    // A walk too long for its row to be counted is refused for its length, within a budget as
    // without one.
    let too_long = [
        "run",
        "random-walk",
        s(&store),
        "--walk-length",
        "4294967296",
    ];
    let plain = vastgraph(&too_long);
    let budgeted = vastgraph(&[&too_long[..], &["--memory", "2MiB"]].concat());
    for o in [&plain, &budgeted] {
        let e = assert_clean_failure(o, "--walk-length 4294967296");
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(e.contains("walk_length must be in [0, 4294967295]"), "{e}");
    }
    assert_eq!(plain.stderr, budgeted.stderr);
    for args in [
        // cc saves no checkpoint; a resume finds none; a bad value is refused first.
        &["run", "cc", s(&store), "--checkpoint", s(&ck)][..],
        &[
            "run",
            "pagerank",
            s(&store),
            "--checkpoint",
            s(&ck),
            "--resume",
        ],
        &[
            "run",
            "pagerank",
            s(&store),
            "--checkpoint",
            s(&ck),
            "--damping",
            "2",
        ],
    ] {
        let o = vastgraph(args);
        assert_clean_failure(&o, &format!("{args:?}"));
        assert!(!ck.exists(), "{args:?} left {}", ck.display());
    }
    // A file where the checkpoint's directory goes is named as such.
    std::fs::write(&ck, "mine").unwrap();
    let o = vastgraph(&["run", "pagerank", s(&store), "--checkpoint", s(&ck)]);
    let e = assert_clean_failure(&o, "a file");
    assert!(e.contains("is not a directory"), "{e}");
}

/// An output inside the store being read would replace one of its files (with --force) or
/// become a stranger in it: refused as a usage error, the store untouched.
#[test]
fn an_output_inside_the_store_it_reads_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ok(&["convert", &fixture("tiny.tsv"), "-o", s(&store)]);
    let manifest = std::fs::read(store.join("manifest.json")).unwrap();
    let files = std::fs::read_dir(&store).unwrap().count();
    let inside = |name: &str| store.join(name).display().to_string();
    let dotted = format!("{}/../store/out.tsv", store.display());
    for args in [
        vec![
            "export",
            s(&store),
            "-o",
            &inside("manifest.json"),
            "--force",
        ],
        vec![
            "export",
            s(&store),
            "--format",
            "parquet",
            "-o",
            s(&store),
            "--force",
        ],
        vec!["run", "bfs", s(&store), "-o", &inside("out.tsv")],
        vec!["run", "bfs", s(&store), "--stats", &dotted],
        vec!["report", s(&store), "-o", &inside("report.html")],
    ] {
        let o = vastgraph(&args);
        let e = assert_clean_failure(&o, &format!("{args:?}"));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains("is inside the store"), "{args:?}: {e}");
    }
    assert_eq!(
        std::fs::read(store.join("manifest.json")).unwrap(),
        manifest
    );
    assert_eq!(std::fs::read_dir(&store).unwrap().count(), files);
    ok(&["run", "bfs", s(&store)]);
    // Values out of range are the command line's errors too.
    let g = dir.path().join("g");
    let p = dir.path().join("p");
    for args in [
        vec!["generate", "kron", "--scale", "0", "-o", s(&g)],
        vec![
            "generate",
            "uniform",
            "--vertices",
            "0",
            "--edges",
            "5",
            "-o",
            s(&g),
        ],
        vec![
            "export",
            s(&store),
            "--format",
            "parquet",
            "-o",
            s(&p),
            "--chunk-rows",
            "0",
        ],
    ] {
        let o = vastgraph(&args);
        let e = assert_clean_failure(&o, &format!("{args:?}"));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(!g.exists() && !p.exists(), "{args:?}");
    }
}

/// An option the input cannot take is the command line's error (exit 2), naming the input.
#[test]
fn options_an_input_cannot_take_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("x.txt");
    std::fs::write(&text, "0 1\n").unwrap();
    let mtx = dir.path().join("x.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
    )
    .unwrap();
    let store = dir.path().join("s");
    for (input, flag, said) in [
        (
            &text,
            "--src",
            "name the columns of Parquet and Arrow tables",
        ),
        (
            &mtx,
            "--relabel",
            "--relabel applies to edge lists and tables only",
        ),
    ] {
        let mut args = vec!["convert", s(input), "-o", s(&store), flag];
        if flag == "--src" {
            args.push("a");
        }
        let o = vastgraph(&args);
        let e = assert_clean_failure(&o, flag);
        assert_eq!(o.status.code(), Some(2), "{flag}: {e}");
        assert!(e.contains(said) && e.contains(s(input)), "{flag}: {e}");
    }
}
