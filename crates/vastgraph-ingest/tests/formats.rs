//! Every format through the public API (`plan` + `ingest`), on the tiny fixtures in
//! `<workspace>/tests/fixtures`: good files give the expected edges, bad files give errors
//! that name the file, the line and the reason.

use std::io::Write;
use std::path::{Path, PathBuf};

use vastgraph_ingest::{
    ingest, plan, IngestError, IngestOptions, IngestPlan, InputFormat, VecSink,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
}

fn read_with(
    paths: &[PathBuf],
    opts: &IngestOptions,
) -> Result<(IngestPlan, VecSink), IngestError> {
    let plan = plan(paths, opts)?;
    let mut sink = VecSink::default();
    let summary = ingest(&plan, &mut sink, &mut |_| {})?;
    assert_eq!(summary.edges, sink.src.len() as u64);
    Ok((plan, sink))
}

fn read(names: &[&str]) -> Result<(IngestPlan, VecSink), IngestError> {
    let paths: Vec<PathBuf> = names.iter().map(|n| fixture(n)).collect();
    read_with(&paths, &IngestOptions::default())
}

fn error(names: &[&str]) -> String {
    read(names).expect_err("expected an error").to_string()
}

#[test]
fn snap_edge_list_skips_comments_and_blank_lines() {
    let (plan, sink) = read(&["tiny.tsv"]).unwrap();
    assert!(!plan.weighted && !plan.labels && !plan.symmetric);
    assert_eq!(plan.declared_vertices, None);
    assert_eq!(
        sink.pairs(),
        [(0, 1), (0, 2), (1, 2), (2, 0), (3, 4), (4, 4)]
    );
    assert!(sink.weights.is_empty() && sink.labels.is_none());
}

#[test]
fn labels_are_remapped_in_first_appearance_order() {
    let (plan, sink) = read(&["labels.tsv"]).unwrap();
    assert!(plan.labels);
    assert_eq!(sink.pairs(), [(0, 1), (1, 2), (2, 0), (3, 0)]);
    assert_eq!(sink.labels.unwrap(), ["alice", "bob", "carol", "dave"]);
}

#[test]
fn labels_with_weights_keep_both() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lw.csv");
    std::fs::write(&path, "a,b,1.5\nb,c,2\nc,a,3\n").unwrap();
    let (plan, sink) = read_with(&[path], &IngestOptions::default()).unwrap();
    assert!(plan.labels && plan.weighted);
    assert_eq!(sink.pairs(), [(0, 1), (1, 2), (2, 0)]);
    assert_eq!(sink.weights, [1.5, 2.0, 3.0]);
    assert_eq!(sink.labels.unwrap(), ["a", "b", "c"]);
}

/// A UTF-8 byte order mark before the first line (as spreadsheets write CSV) is not part of
/// it: the first label is "a", the same vertex as the later lines' "a", and an integer first
/// line is an edge, not a header; in a compressed file too. A binary list keeps its bytes.
#[test]
fn a_byte_order_mark_is_not_part_of_the_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let bom = "\u{feff}";
    let labelled = dir.path().join("bom.csv");
    std::fs::write(&labelled, format!("{bom}a,b\nb,a\n")).unwrap();
    let (plan, sink) = read_with(&[labelled], &IngestOptions::default()).unwrap();
    assert!(plan.labels);
    assert_eq!(sink.pairs(), [(0, 1), (1, 0)]);
    assert_eq!(sink.labels.unwrap(), ["a", "b"]);
    let numbered = dir.path().join("bom.tsv.zst");
    let text = format!("{bom}0\t1\n1\t2\n");
    std::fs::write(&numbered, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
    let (plan, sink) = read_with(&[numbered], &IngestOptions::default()).unwrap();
    assert!(!plan.labels);
    assert_eq!(sink.pairs(), [(0, 1), (1, 2)]);
    let mtx = dir.path().join("bom.mtx");
    let text = format!("{bom}%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n");
    std::fs::write(&mtx, text).unwrap();
    let (_, sink) = read_with(&[mtx], &IngestOptions::default()).unwrap();
    assert_eq!(sink.pairs(), [(0, 1)]);
    // 0xEF 0xBB 0xBF 0x00 is the little-endian id 0x00BFBBEF in a .bin32 list: kept.
    let binary = dir.path().join("bom.bin32");
    let ids: [u32; 2] = [0x00BF_BBEF, 7];
    let bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
    std::fs::write(&binary, bytes).unwrap();
    let (_, sink) = read_with(&[binary], &IngestOptions::default()).unwrap();
    assert_eq!(sink.pairs(), [(0x00BF_BBEF, 7)]);
}

/// A Matrix Market file named as an edge list is read by its banner: as an edge list its size
/// line was an edge and its ids 1-based. A `--format` given is obeyed.
#[test]
fn a_matrix_market_banner_is_read_as_matrix_market_whatever_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sym.txt");
    let text = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n";
    std::fs::write(&path, text).unwrap();
    let (plan, sink) = read_with(std::slice::from_ref(&path), &IngestOptions::default()).unwrap();
    assert_eq!(plan.inputs[0].format, InputFormat::MatrixMarket);
    assert_eq!(sink.pairs(), [(1, 0), (2, 1)]);
    let forced = IngestOptions {
        format: Some(InputFormat::EdgeList),
        ..Default::default()
    };
    assert_eq!(
        vastgraph_ingest::plan(&[path], &forced).unwrap().inputs[0].format,
        InputFormat::EdgeList
    );
}

#[test]
fn relabel_maps_sparse_64_bit_ids_to_dense_ones() {
    let opts = IngestOptions {
        relabel: true,
        ..Default::default()
    };
    let (plan, sink) = read_with(&[fixture("sparse-ids.tsv")], &opts).unwrap();
    assert!(plan.labels);
    assert_eq!(sink.pairs(), [(0, 1), (2, 3)]);
    assert_eq!(sink.labels.unwrap(), ["0", "1", "5000000000", "2"]);
}

#[test]
fn csv_weights_accept_integers_and_reals() {
    let (plan, sink) = read(&["weights.csv"]).unwrap();
    assert!(plan.weighted);
    assert_eq!(sink.pairs(), [(0, 1), (1, 2), (2, 0)]);
    assert_eq!(sink.weights, [2.5, 3.0, -1e-3]);
}

#[test]
fn edge_list_errors_name_file_line_reason_and_text() {
    let err = error(&["bad-line.tsv"]);
    assert!(
        err.contains("bad-line.tsv:4: ") && err.contains("one column"),
        "{err}"
    );
    assert!(err.ends_with(": '2'"), "{err}");

    let err = error(&["mixed-weights.tsv"]);
    assert!(err.contains("mixed-weights.tsv:3: missing weight"), "{err}");

    let err = error(&["big-id.tsv"]);
    assert!(
        err.contains("big-id.tsv:2: ") && err.contains("4294967295"),
        "{err}"
    );
}

#[test]
fn non_integer_ids_after_the_sniffed_lines_are_reported_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("late.tsv");
    let mut text = String::new();
    for i in 0..5000 {
        text.push_str(&format!("{i} {}\n", i + 1));
    }
    text.push_str("7 seven\n");
    std::fs::write(&path, text).unwrap();
    let err = read_with(&[path], &IngestOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("late.tsv:5001: ") && err.contains("--relabel") && err.ends_with("'7 seven'"),
        "{err}"
    );
}

#[test]
fn matrix_market_pattern_general_is_one_based_with_declared_size() {
    let (plan, sink) = read(&["tiny.mtx"]).unwrap();
    assert_eq!(plan.inputs[0].format, InputFormat::MatrixMarket);
    assert!(!plan.weighted && !plan.symmetric);
    assert_eq!(plan.declared_vertices, Some(5));
    assert_eq!(sink.declared_vertices, 5);
    assert_eq!(sink.pairs(), [(0, 1), (1, 2), (3, 4), (2, 0)]);
}

#[test]
fn matrix_market_symmetric_real_asks_for_symmetrisation() {
    let (plan, sink) = read(&["tiny-symmetric.mtx"]).unwrap();
    assert!(plan.weighted && plan.symmetric);
    assert_eq!(sink.pairs(), [(0, 0), (1, 0), (2, 0), (2, 1)]);
    assert_eq!(sink.weights, [1.5, 2.0, -3.0, 4.0]);
}

#[test]
fn matrix_market_entry_count_must_match_the_size_line() {
    let err = error(&["short-nnz.mtx"]);
    assert!(
        err.contains("short-nnz.mtx: ") && err.contains("2 of the 3 entries"),
        "{err}"
    );
    let err = error(&["long-nnz.mtx"]);
    assert!(
        err.contains("long-nnz.mtx:4: more than the 1 entries") && err.ends_with("'2 3 8'"),
        "{err}"
    );
    let err = error(&["array.mtx"]);
    assert!(
        err.contains("array.mtx:1: ") && err.contains("'array'"),
        "{err}"
    );
}

#[test]
fn dimacs_arcs_are_weighted_and_counted() {
    let (plan, sink) = read(&["tiny.gr"]).unwrap();
    assert!(plan.weighted);
    assert_eq!(plan.declared_vertices, Some(4));
    assert_eq!(sink.pairs(), [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]);
    assert_eq!(sink.weights, [10.0, 20.0, 30.0, 40.0, 5.0]);
    let err = error(&["short-arcs.gr"]);
    assert!(
        err.contains("short-arcs.gr: ") && err.contains("2 of the 3 arcs"),
        "{err}"
    );
    let err = error(&["bad-vertex.gr"]);
    assert!(
        err.contains("bad-vertex.gr:3: head vertex") && err.ends_with("'a 2 4 1'"),
        "{err}"
    );
}

#[test]
fn binary_edge_lists_in_both_widths_agree() {
    let want = [(0, 1), (1, 2), (2, 0), (3, 3), (1, 3)];
    assert_eq!(read(&["tiny.bin32"]).unwrap().1.pairs(), want);
    assert_eq!(read(&["tiny.bin64"]).unwrap().1.pairs(), want);
    let err = error(&["truncated.bin32"]);
    assert!(
        err.contains("truncated.bin32: holds 37 bytes, not a multiple of 8"),
        "{err}"
    );
    let err = error(&["big-id.bin64"]);
    assert!(
        err.contains("big-id.bin64: edge 1 ") && err.contains("4294967296"),
        "{err}"
    );
}

#[test]
fn compressed_inputs_read_like_the_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "tiny.tsv",
        "tiny.mtx",
        "tiny.gr",
        "tiny.bin32",
        "labels.tsv",
    ] {
        let plain = std::fs::read(fixture(name)).unwrap();
        let gz = dir.path().join(format!("{name}.gz"));
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&plain).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let zst = dir.path().join(format!("{name}.zst"));
        std::fs::write(&zst, zstd::encode_all(&plain[..], 3).unwrap()).unwrap();

        let (_, want) = read(&[name]).unwrap();
        for path in [gz, zst] {
            let (plan, got) =
                read_with(std::slice::from_ref(&path), &IngestOptions::default()).unwrap();
            assert_eq!(
                plan.inputs[0].format,
                read(&[name]).unwrap().0.inputs[0].format
            );
            assert_eq!(got, want, "{}", path.display());
        }
    }
}

#[test]
fn several_inputs_are_read_in_order_and_must_agree_on_weights() {
    let (plan, sink) = read(&["tiny.tsv", "tiny.bin32"]).unwrap();
    assert_eq!(plan.inputs.len(), 2);
    assert_eq!(sink.src.len(), 6 + 5);
    assert_eq!(sink.pairs()[6], (0, 1));

    let err = error(&["tiny.tsv", "weights.csv"]);
    assert!(
        err.contains("weights.csv is weighted but") && err.contains("tiny.tsv"),
        "{err}"
    );
    let err = error(&["labels.tsv", "tiny.mtx"]);
    assert!(
        err.contains("edge lists and tables only") && err.contains("tiny.mtx"),
        "{err}"
    );
}

#[test]
fn explicit_format_overrides_the_name() {
    let opts = IngestOptions {
        format: Some(InputFormat::EdgeList),
        ..Default::default()
    };
    // tiny.gr read as an edge list: 'c tiny DIMACS ...' has too many columns.
    let err = read_with(&[fixture("tiny.gr")], &opts)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("tiny.gr:1: too many columns"), "{err}");
}

#[test]
fn missing_inputs_are_named() {
    let err = error(&["does-not-exist.tsv"]);
    assert!(
        err.contains("does-not-exist.tsv") && err.contains("cannot read"),
        "{err}"
    );
    let err = error(&["does-not-exist.graph"]);
    assert!(err.contains("does-not-exist.graph"), "{err}");
}

#[test]
fn progress_reaches_the_total_bytes() {
    let plan = plan(
        &[fixture("tiny.tsv"), fixture("tiny.gr")],
        &IngestOptions::default(),
    );
    let err = plan.err().unwrap().to_string();
    // tiny.tsv is unweighted, tiny.gr weighted: refused before reading.
    assert!(err.contains("is weighted but"), "{err}");

    let plan = vastgraph_ingest::plan(
        &[fixture("tiny.tsv"), fixture("tiny.bin64")],
        &IngestOptions::default(),
    )
    .unwrap();
    let mut seen = Vec::new();
    ingest(&plan, &mut VecSink::default(), &mut |b| seen.push(b)).unwrap();
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert_eq!(seen.last().copied(), plan.total_bytes());
    assert!(plan.total_bytes().is_some());

    // A device has no length: no total, rather than a total of 0 bytes read past.
    let device = vastgraph_ingest::plan(
        &[std::path::PathBuf::from("/dev/null")],
        &IngestOptions {
            format: Some(vastgraph_ingest::InputFormat::Bin32),
            ..IngestOptions::default()
        },
    )
    .unwrap();
    assert_eq!(device.total_bytes(), None);
}
