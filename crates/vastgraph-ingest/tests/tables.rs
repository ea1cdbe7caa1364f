//! Parquet and Arrow IPC edge tables: the edges, weights and labels they hold, read the same
//! from every container, and errors that name the file, the row and the column.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float32Array, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray, UInt64Array,
};
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use proptest::prelude::*;
use vastgraph_ingest::{ingest, plan, IngestOptions, TableColumns, VecSink};
use vastgraph_store::{TABLE_SYMMETRIC_KEY, TABLE_VERTICES_KEY};

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns.into_iter().map(|(n, a)| (n.to_string(), a))).unwrap()
}

/// Writes `batches` as a Parquet file with row groups of at most `group_rows` rows.
fn write_parquet(path: &Path, batches: &[RecordBatch], group_rows: usize) {
    write_parquet_with(path, batches, group_rows, &[])
}

/// As `write_parquet`, with the key-value `metadata` in the file's footer.
fn write_parquet_with(
    path: &Path,
    batches: &[RecordBatch],
    group_rows: usize,
    metadata: &[(&str, &str)],
) {
    let file = std::fs::File::create(path).unwrap();
    let metadata = metadata
        .iter()
        .map(|(k, v)| KeyValue::new(k.to_string(), v.to_string()))
        .collect::<Vec<_>>();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group_rows))
        .set_key_value_metadata((!metadata.is_empty()).then_some(metadata))
        .build();
    let mut writer = ArrowWriter::try_new(file, batches[0].schema(), Some(props)).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.close().unwrap();
}

fn write_ipc_file(path: &Path, batches: &[RecordBatch]) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer = arrow_ipc::writer::FileWriter::try_new(file, &batches[0].schema()).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.finish().unwrap();
}

fn write_ipc_stream(path: &Path, batches: &[RecordBatch]) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer = arrow_ipc::writer::StreamWriter::try_new(file, &batches[0].schema()).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.finish().unwrap();
}

fn read(paths: &[PathBuf], opts: &IngestOptions) -> Result<VecSink, String> {
    let plan = plan(paths, opts).map_err(|e| e.to_string())?;
    let mut sink = VecSink::default();
    ingest(&plan, &mut sink, &mut |_| {}).map_err(|e| e.to_string())?;
    sink.batches = 0;
    Ok(sink)
}

fn read_one(path: &Path) -> Result<VecSink, String> {
    read(&[path.to_path_buf()], &IngestOptions::default())
}

fn ints(v: &[i64]) -> ArrayRef {
    Arc::new(Int64Array::from(v.to_vec()))
}

#[test]
fn integer_ids_and_weights_read_alike_from_parquet_and_arrow_files_and_streams() {
    let dir = tempfile::tempdir().unwrap();
    let batches = [
        batch(vec![
            ("src", ints(&[0, 1, 2])),
            ("dst", Arc::new(Int32Array::from(vec![1, 2, 0])) as ArrayRef),
            (
                "weight",
                Arc::new(Float32Array::from(vec![0.5, 1.5, 2.0])) as ArrayRef,
            ),
        ]),
        batch(vec![
            ("src", ints(&[3])),
            ("dst", Arc::new(Int32Array::from(vec![7])) as ArrayRef),
            (
                "weight",
                Arc::new(Float32Array::from(vec![4.0])) as ArrayRef,
            ),
        ]),
    ];
    let parquet = dir.path().join("e.parquet");
    let file = dir.path().join("e.arrow");
    let stream = dir.path().join("e.arrows");
    write_parquet(&parquet, &batches, 2);
    write_ipc_file(&file, &batches);
    write_ipc_stream(&stream, &batches);
    for path in [&parquet, &file, &stream] {
        let sink = read_one(path).unwrap();
        assert_eq!(sink.pairs(), [(0, 1), (1, 2), (2, 0), (3, 7)], "{path:?}");
        assert_eq!(sink.weights, [0.5, 1.5, 2.0, 4.0], "{path:?}");
        assert_eq!(sink.labels, None);
    }
}

#[test]
fn string_ids_become_labels_in_first_appearance_order_plain_or_dictionary_encoded() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.parquet");
    write_parquet(
        &plain,
        &[batch(vec![
            (
                "source",
                Arc::new(StringArray::from(vec!["bob", "alice", "bob"])) as ArrayRef,
            ),
            (
                "target",
                Arc::new(StringArray::from(vec!["alice", "carol", "carol"])) as ArrayRef,
            ),
        ])],
        1024,
    );
    let dict = dir.path().join("dict.arrow");
    let keys: DictionaryArray<Int32Type> = vec!["bob", "alice", "bob"].into_iter().collect();
    let values: DictionaryArray<Int32Type> = vec!["alice", "carol", "carol"].into_iter().collect();
    write_ipc_file(
        &dict,
        &[batch(vec![
            ("source", Arc::new(keys) as ArrayRef),
            ("target", Arc::new(values) as ArrayRef),
        ])],
    );
    for path in [&plain, &dict] {
        let sink = read_one(path).unwrap();
        assert_eq!(sink.pairs(), [(0, 1), (1, 2), (0, 2)], "{path:?}");
        assert_eq!(
            sink.labels.as_deref(),
            Some(&["bob".to_string(), "alice".into(), "carol".into()][..])
        );
    }
}

#[test]
fn named_columns_relabel_and_a_directory_of_parts_in_name_order() {
    let dir = tempfile::tempdir().unwrap();
    let parts = dir.path().join("edges");
    std::fs::create_dir(&parts).unwrap();
    let table = |from: &[i64], to: &[i64]| {
        batch(vec![
            ("from", ints(from)),
            ("to", ints(to)),
            (
                "weight",
                Arc::new(Float64Array::from(vec![1.0; from.len()])) as ArrayRef,
            ),
        ])
    };
    write_parquet(
        &parts.join("part-00001.parquet"),
        &[table(&[900], &[5])],
        64,
    );
    write_parquet(
        &parts.join("part-00000.parquet"),
        &[table(&[5, 7], &[7, 900])],
        64,
    );
    std::fs::write(parts.join("_SUCCESS"), b"").unwrap();
    let opts = IngestOptions {
        relabel: true,
        columns: TableColumns {
            src: Some("from".into()),
            dst: Some("to".into()),
            weight: Some("weight".into()),
        },
        ..Default::default()
    };
    let sink = read(std::slice::from_ref(&parts), &opts).unwrap();
    assert_eq!(sink.pairs(), [(0, 1), (1, 2), (2, 0)]);
    assert_eq!(
        sink.labels.as_deref(),
        Some(&["5".to_string(), "7".into(), "900".into()][..])
    );
    // Without names, the table has no column the usual names match.
    let err = read(std::slice::from_ref(&parts), &IngestOptions::default()).unwrap_err();
    assert!(
        err.contains("has no source column")
            && err.contains("from, to, weight")
            && err.contains("--src"),
        "{err}"
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = read(&[empty], &IngestOptions::default()).unwrap_err();
    assert!(err.contains("holding no Parquet or Arrow table"), "{err}");
}

/// Writes a one-column-pair table whose `dst` column is `dst`, in row groups of 2 rows, and
/// returns the error reading it.
fn error_of(dst: ArrayRef, weight: Option<ArrayRef>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.parquet");
    let rows = dst.len() as i64;
    let mut columns = vec![("src", ints(&(0..rows).collect::<Vec<_>>())), ("dst", dst)];
    if let Some(w) = weight {
        columns.push(("weight", w));
    }
    write_parquet(&path, &[batch(columns)], 2);
    read_one(&path).unwrap_err()
}

#[test]
fn bad_values_are_errors_naming_the_file_the_row_and_the_column() {
    let err = error_of(
        Arc::new(Int64Array::from(vec![
            Some(1),
            Some(2),
            Some(0),
            Some(1),
            None,
        ])),
        None,
    );
    assert!(
        err.contains("bad.parquet: row 5: column 'dst' is null"),
        "{err}"
    );
    let err = error_of(ints(&[1, 2, -3]), None);
    assert!(
        err.contains("row 3: column 'dst' holds -3, a negative vertex id"),
        "{err}"
    );
    let err = error_of(Arc::new(UInt64Array::from(vec![1, u64::MAX])), None);
    assert!(
        err.contains("row 2: column 'dst' holds 18446744073709551615") && err.contains("--relabel"),
        "{err}"
    );
    let err = error_of(
        ints(&[1, 0, 1]),
        Some(Arc::new(Float64Array::from(vec![1.0, 2.0, f64::NAN]))),
    );
    assert!(
        err.contains("row 3: column 'weight' holds NaN, not a finite number within float32"),
        "{err}"
    );
    let err = error_of(Arc::new(Float64Array::from(vec![1.0, 0.0])), None);
    assert!(
        err.contains("column 'dst' holds Float64, not vertex ids"),
        "{err}"
    );
    let err = error_of(Arc::new(StringArray::from(vec!["a", "b"])), None);
    assert!(
        err.contains("'src' holds integer ids but 'dst' holds string ids"),
        "{err}"
    );
}

#[test]
fn string_ids_after_an_integer_input_and_columns_for_an_edge_list_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let numbers = dir.path().join("a.parquet");
    write_parquet(
        &numbers,
        &[batch(vec![("src", ints(&[0])), ("dst", ints(&[1]))])],
        8,
    );
    let names = dir.path().join("b.parquet");
    let strings = |v: &[&str]| Arc::new(StringArray::from(v.to_vec())) as ArrayRef;
    write_parquet(
        &names,
        &[batch(vec![
            ("src", strings(&["x"])),
            ("dst", strings(&["y"])),
        ])],
        8,
    );
    let err = read(&[numbers.clone(), names], &IngestOptions::default()).unwrap_err();
    assert!(
        err.contains("b.parquet") && err.contains("give --relabel"),
        "{err}"
    );

    let text = dir.path().join("c.tsv");
    std::fs::write(&text, "0 1\n").unwrap();
    let opts = IngestOptions {
        columns: TableColumns {
            src: Some("a".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let err = read(&[numbers, text], &opts).unwrap_err();
    assert!(
        err.contains("name the columns of Parquet and Arrow tables") && err.contains("c.tsv"),
        "{err}"
    );
}

/// A label with a tab or a line break would read back as other columns or lines: refused at
/// the row that holds it.
#[test]
fn a_label_with_a_tab_or_a_line_break_names_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.parquet");
    let strings = |v: &[&str]| Arc::new(StringArray::from(v.to_vec())) as ArrayRef;
    for bad in ["x\ty", "x\ny"] {
        write_parquet(
            &path,
            &[batch(vec![
                ("src", strings(&["a", "b"])),
                ("dst", strings(&["b", bad])),
            ])],
            8,
        );
        let err = read(std::slice::from_ref(&path), &IngestOptions::default()).unwrap_err();
        assert!(
            err.contains("t.parquet")
                && err.contains("row 2: column 'dst' holds a tab or a line break"),
            "{err}"
        );
    }
}

#[test]
fn damaged_tables_get_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.parquet");
    write_parquet(
        &path,
        &[batch(vec![
            ("src", ints(&[0, 1, 2])),
            ("dst", ints(&[1, 2, 0])),
        ])],
        8,
    );
    let bytes = std::fs::read(&path).unwrap();
    for cut in [0, 4, 12, bytes.len() / 2, bytes.len() - 9] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let err = read_one(&path).unwrap_err();
        assert!(
            err.contains("t.parquet") && err.contains("is not a readable Parquet table"),
            "cut {cut}: {err}"
        );
    }
    // A zeroed page in the middle: the footer still parses, the column chunk does not.
    let mut zeroed = bytes.clone();
    for b in &mut zeroed[4..bytes.len() / 2] {
        *b = 0;
    }
    std::fs::write(&path, &zeroed).unwrap();
    let err = read_one(&path).unwrap_err();
    assert!(err.contains("t.parquet"), "{err}");

    let arrow = dir.path().join("t.arrow");
    write_ipc_file(
        &arrow,
        &[batch(vec![("src", ints(&[0, 1])), ("dst", ints(&[1, 0]))])],
    );
    let bytes = std::fs::read(&arrow).unwrap();
    std::fs::write(&arrow, &bytes[..bytes.len() / 2]).unwrap();
    let err = read_one(&arrow).unwrap_err();
    assert!(
        err.contains("t.arrow") && err.contains("is not a readable Arrow IPC table"),
        "{err}"
    );

    // Feather version 1 (magic "FEA1" at both ends) predates the IPC format: named as such.
    let feather = dir.path().join("t.feather");
    std::fs::write(&feather, b"FEA1\0\0\0\0 columns and metadata FEA1").unwrap();
    let err = read_one(&feather).unwrap_err();
    assert!(
        err.contains("t.feather") && err.contains("Feather version 1") && err.contains("version 2"),
        "{err}"
    );
}

#[test]
fn a_recorded_vertex_count_adds_isolated_vertices_and_a_bad_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.parquet");
    let table = [batch(vec![("src", ints(&[0])), ("dst", ints(&[1]))])];
    write_parquet_with(&path, &table, 8, &[(TABLE_VERTICES_KEY, "10")]);
    assert_eq!(read_one(&path).unwrap().declared_vertices, 10);
    for bad in ["ten", "4294967296"] {
        write_parquet_with(&path, &table, 8, &[(TABLE_VERTICES_KEY, bad)]);
        let err = read_one(&path).unwrap_err();
        assert!(
            err.contains("vastgraph.vertices") && err.contains("not a vertex count"),
            "{err}"
        );
    }
    // An id the recorded count leaves out: the table was edited after it was written.
    write_parquet_with(&path, &table, 8, &[(TABLE_VERTICES_KEY, "1")]);
    let err = read_one(&path).unwrap_err();
    assert!(
        err.contains("row 1: column 'dst' holds 1, past the 1 vertices"),
        "{err}"
    );
}

/// A vertex table's files, each a slice of `(id, label)` rows.
type VertexParts<'a> = &'a [&'a [(i64, &'a str)]];

/// Writes an export's layout under `dir`: `edges/part-00000.parquet` with the arcs and the
/// vertex count (and the symmetric flag), and one `vertices/part-0000K.parquet` per slice of
/// `(id, label)` rows.
fn write_export(
    dir: &Path,
    arcs: &[(i64, i64)],
    vertices: u64,
    symmetric: bool,
    parts: VertexParts,
) {
    std::fs::create_dir_all(dir.join("edges")).unwrap();
    std::fs::create_dir_all(dir.join("vertices")).unwrap();
    let (src, dst): (Vec<i64>, Vec<i64>) = arcs.iter().copied().unzip();
    let count = vertices.to_string();
    let mut metadata = vec![(TABLE_VERTICES_KEY, count.as_str())];
    if symmetric {
        metadata.push((TABLE_SYMMETRIC_KEY, "true"));
    }
    write_parquet_with(
        &dir.join("edges/part-00000.parquet"),
        &[batch(vec![("src", ints(&src)), ("dst", ints(&dst))])],
        8,
        &metadata,
    );
    for (k, rows) in parts.iter().enumerate() {
        let ids: Vec<i64> = rows.iter().map(|r| r.0).collect();
        let labels: Vec<&str> = rows.iter().map(|r| r.1).collect();
        write_parquet(
            &dir.join(format!("vertices/part-{k:05}.parquet")),
            &[batch(vec![
                ("id", ints(&ids)),
                ("label", Arc::new(StringArray::from(labels)) as ArrayRef),
            ])],
            8,
        );
    }
}

#[test]
fn an_export_directory_restores_its_labels_and_its_symmetry() {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("export");
    // Vertex 3 has no arc: the recorded count keeps it, the vertex table names it.
    let arcs = [(0, 1), (1, 0), (1, 2), (2, 1)];
    write_export(
        &export,
        &arcs,
        4,
        true,
        &[&[(0, "ann"), (1, "bo")], &[(2, "cy"), (3, "di")]],
    );
    let planned = plan(std::slice::from_ref(&export), &IngestOptions::default()).unwrap();
    assert!(planned.symmetric && !planned.labels && planned.vertex_labels.len() == 2);
    let sink = read(std::slice::from_ref(&export), &IngestOptions::default()).unwrap();
    assert_eq!(sink.pairs(), vec![(0, 1), (1, 0), (1, 2), (2, 1)]);
    assert_eq!(sink.declared_vertices, 4);
    assert_eq!(sink.labels.unwrap(), ["ann", "bo", "cy", "di"]);
    // The edge tables alone are numbered arcs, directed unless their metadata says otherwise.
    let planned = plan(&[export.join("edges")], &IngestOptions::default()).unwrap();
    assert!(planned.symmetric && planned.vertex_labels.is_empty());
    write_export(
        &export,
        &arcs,
        4,
        false,
        &[&[(0, "ann"), (1, "bo")], &[(2, "cy"), (3, "di")]],
    );
    assert!(
        !plan(std::slice::from_ref(&export), &IngestOptions::default())
            .unwrap()
            .symmetric
    );
    // --relabel would number the ids afresh and lose the labels; other inputs would be
    // numbered against them: both are refused, naming the way that works.
    let relabel = IngestOptions {
        relabel: true,
        ..Default::default()
    };
    let err = plan(std::slice::from_ref(&export), &relabel)
        .unwrap_err()
        .to_string();
    assert!(err.contains("--relabel") && err.contains("edges"), "{err}");
    let other = dir.path().join("more.tsv");
    std::fs::write(&other, "0\t3\n").unwrap();
    let err = plan(&[export.clone(), other], &IngestOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("converts back alone") && err.contains("edges"),
        "{err}"
    );
}

#[test]
fn a_bad_vertex_table_is_an_error_naming_the_file_and_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("export");
    let arcs = [(0, 1)];
    let cases: [(VertexParts, &str, &str); 4] = [
        (
            &[&[(0, "a"), (2, "b")]],
            "part-00000.parquet: row 2",
            "holds 2 where vertex 1 comes",
        ),
        (
            &[&[(0, "a")], &[(1, "a")]],
            "part-00001.parquet: row 1",
            "as vertex 0 has",
        ),
        (&[&[(0, "a"), (1, "b\nc")]], "row 2", "line break"),
        (
            &[&[(0, "a"), (1, "b"), (2, "c")]],
            "vertices",
            "lists 3 vertices, but the edge tables record 2",
        ),
    ];
    for (parts, place, reason) in cases {
        let _ = std::fs::remove_dir_all(&export);
        write_export(&export, &arcs, 2, false, parts);
        let err = read(std::slice::from_ref(&export), &IngestOptions::default()).unwrap_err();
        assert!(err.contains(place) && err.contains(reason), "{err}");
    }
    let _ = std::fs::remove_dir_all(&export);
    write_export(&export, &arcs, 2, false, &[&[(0, "a"), (1, "b")]]);
    write_parquet_with(
        &export.join("edges/part-00000.parquet"),
        &[batch(vec![("src", ints(&[0])), ("dst", ints(&[1]))])],
        8,
        &[(TABLE_SYMMETRIC_KEY, "yes")],
    );
    let err = read(std::slice::from_ref(&export), &IngestOptions::default()).unwrap_err();
    assert!(
        err.contains(TABLE_SYMMETRIC_KEY) && err.contains("neither true nor false"),
        "{err}"
    );
}

#[test]
fn labels_that_cannot_be_read_and_ambiguous_directories_are_refused_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("export");
    let labelled: VertexParts = &[&[(0, "a")], &[(1, "b")]];
    let opts = IngestOptions::default();
    let vertices = |rows: Vec<(&str, ArrayRef)>, file: &str| {
        write_parquet(&export.join("vertices").join(file), &[batch(rows)], 8)
    };
    // Labels that are not strings, or beside ids that are not integers: an error, not a store
    // without labels.
    for (columns, reason) in [
        (
            vec![("id", ints(&[0])), ("label", ints(&[7]))],
            "'label' column of Int64",
        ),
        (
            vec![
                ("id", Arc::new(StringArray::from(vec!["0"])) as ArrayRef),
                ("label", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
            ],
            "an 'id' column of Utf8",
        ),
        (vec![("id", ints(&[0]))], "has no 'label' column"),
    ] {
        let _ = std::fs::remove_dir_all(&export);
        write_export(&export, &[(0, 1)], 2, false, labelled);
        vertices(columns, "part-00000.parquet");
        let err = read(std::slice::from_ref(&export), &opts).unwrap_err();
        assert!(
            err.contains("part-00000.parquet") && err.contains(reason),
            "{err}"
        );
    }
    // An export's edge tables hold integer ids; strings would be numbered afresh.
    let _ = std::fs::remove_dir_all(&export);
    write_export(&export, &[(0, 1)], 2, false, labelled);
    let names = |v: Vec<&str>| Arc::new(StringArray::from(v)) as ArrayRef;
    write_parquet(
        &export.join("edges/part-00000.parquet"),
        &[batch(vec![
            ("src", names(vec!["a"])),
            ("dst", names(vec!["b"])),
        ])],
        8,
    );
    let err = plan(std::slice::from_ref(&export), &opts)
        .unwrap_err()
        .to_string();
    assert!(err.contains("string ids"), "{err}");
    // Tables of its own beside an export's edges/: which one is meant is a guess.
    write_parquet(
        &export.join("stray.parquet"),
        &[batch(vec![("src", ints(&[0])), ("dst", ints(&[1]))])],
        8,
    );
    let err = plan(std::slice::from_ref(&export), &opts)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("stray.parquet") && err.contains("edges"),
        "{err}"
    );
}

/// A Parquet file whose last page header holds an unknown field, a list of 2^31 fixed-size
/// elements (found by the `table` fuzz target): the parquet crate skipped it on empty reads
/// for minutes; reads at the end of the file are errors, so it is refused at once.
#[test]
fn a_page_header_past_the_end_of_the_file_is_an_error_not_a_hang() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/forged-page-header.parquet");
    let started = std::time::Instant::now();
    let err = read_one(&path).unwrap_err();
    assert!(
        err.contains("forged-page-header.parquet") && err.contains("past the end of the file"),
        "{err}"
    );
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
}

/// A Parquet footer whose schema declares 792 million children of one element (found by the
/// `table` fuzz target): the parquet crate reserves room for them all (6.3 GB of address space,
/// never touched) before it finds that the elements are not there. The file is refused with an
/// error naming it; the reservation is the crate's (see scripts/fuzz.sh on `-malloc_limit_mb`).
#[test]
fn a_schema_with_millions_of_declared_children_is_an_error() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/forged-schema-children.parquet");
    let err = read_one(&path).unwrap_err();
    assert!(
        err.contains("forged-schema-children.parquet") && err.contains("not a readable Parquet"),
        "{err}"
    );
}

/// A stream whose message declares a body of 8.9e18 bytes (found by the `table` fuzz target):
/// the Arrow reader would allocate it before reading; the framing check refuses it first.
#[test]
fn a_forged_message_length_is_an_error_not_an_allocation() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/forged-body-length.arrows");
    let err = read_one(&path).unwrap_err();
    assert!(
        err.contains("forged-body-length.arrows") && err.contains("past the file's"),
        "{err}"
    );
    // The same check in an IPC file's footer: a block claiming more than the file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.arrow");
    write_ipc_file(
        &file,
        &[batch(vec![("src", ints(&[0, 1])), ("dst", ints(&[1, 0]))])],
    );
    let mut bytes = std::fs::read(&file).unwrap();
    let footer_len =
        i32::from_le_bytes(bytes[bytes.len() - 10..bytes.len() - 6].try_into().unwrap()) as usize;
    let footer = bytes.len() - 10 - footer_len;
    // Grow every 8-byte field of the footer that holds the body length (8 bytes, small, non-zero).
    let body = bytes[footer..bytes.len() - 10]
        .windows(8)
        .position(|w| {
            let v = i64::from_le_bytes(w.try_into().unwrap());
            v > 0 && v < 4096 && v % 8 == 0
        })
        .expect("a body length in the footer");
    let at = footer + body;
    bytes[at..at + 8].copy_from_slice(&(1i64 << 60).to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    let err = read_one(&file).unwrap_err();
    assert!(err.contains("t.arrow"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Any edges, in row groups of any size, come back in order, ids and weights unchanged.
    #[test]
    fn parquet_round_trips_any_edges(
        edges in prop::collection::vec((0u32..1000, 0u32..1000, -1e6f64..1e6), 1..300),
        group_rows in 1usize..64,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.parquet");
        let src: Vec<i64> = edges.iter().map(|e| e.0 as i64).collect();
        let dst: Vec<i64> = edges.iter().map(|e| e.1 as i64).collect();
        let w: Vec<f64> = edges.iter().map(|e| e.2).collect();
        write_parquet(&path, &[batch(vec![
            ("src", ints(&src)),
            ("dst", ints(&dst)),
            ("weight", Arc::new(Float64Array::from(w.clone())) as ArrayRef),
        ])], group_rows);
        let sink = read_one(&path).unwrap();
        let want: Vec<(u32, u32)> = edges.iter().map(|e| (e.0, e.1)).collect();
        prop_assert_eq!(sink.pairs(), want);
        prop_assert_eq!(sink.weights, w);
    }
}
