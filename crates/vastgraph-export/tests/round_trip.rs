//! Exports read back: Parquet through the parquet crate's own reader, TSV as text.

use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use vastgraph_engine::InMemoryGraph;
use vastgraph_export::{write_parquet, write_tsv, ExportGraph, ParquetOptions};
use vastgraph_store::{Existing, WeightType};

fn no_progress() -> impl FnMut(u64) {
    |_| {}
}

/// Every row of every `part-*.parquet` file in `dir`, in file order, as fields; and the count of
/// files.
fn read_rows(dir: &Path) -> (Vec<Vec<Field>>, usize) {
    let mut parts: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    parts.sort();
    let mut rows = Vec::new();
    for part in &parts {
        let name = part.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with("part-") && name.ends_with(".parquet"),
            "{name}"
        );
        let reader = SerializedFileReader::new(std::fs::File::open(part).unwrap()).unwrap();
        for row in reader.get_row_iter(None).unwrap() {
            rows.push(
                row.unwrap()
                    .get_column_iter()
                    .map(|(_, f)| f.clone())
                    .collect(),
            );
        }
    }
    (rows, parts.len())
}

/// The rows of each row group of each `part-*.parquet` file in `dir`, in file order.
fn rows_per_part(dir: &Path) -> Vec<Vec<i64>> {
    let mut parts: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    parts.sort();
    parts
        .iter()
        .map(|part| {
            let reader = SerializedFileReader::new(std::fs::File::open(part).unwrap()).unwrap();
            let metadata = reader.metadata();
            metadata.row_groups().iter().map(|g| g.num_rows()).collect()
        })
        .collect()
}

fn weighted_graph() -> InMemoryGraph {
    // A directed graph with an isolated vertex (4) and a heavy vertex 0.
    InMemoryGraph::from_weighted_edges(
        5,
        &[
            (0, 1, 1.5),
            (0, 2, -2.0),
            (0, 3, 0.25),
            (1, 0, 7.0),
            (3, 2, 3.0),
        ],
        false,
    )
}

#[test]
fn parquet_holds_every_arc_in_order_across_parts() {
    let g = weighted_graph();
    let view = g.view();
    let labels: Vec<String> = ["a", "b", "c", "d", "é"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let export = ExportGraph {
        out: view.out(),
        weight_type: Some(WeightType::F32),
        labels: Some(&labels),
        symmetric: false,
        self_loops_kept: false,
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tables");
    let options = ParquetOptions {
        chunk_rows: 2,
        rows_per_file: 3,
        ..Default::default()
    };
    let summary = write_parquet(&export, &out, &options, &mut no_progress()).unwrap();
    assert_eq!(summary.arcs, 5);
    let (edges, files) = read_rows(&out.join("edges"));
    // Row groups of at most 2 rows, cut where a file reaches 3: 2+1 | 1+1.
    assert_eq!((files, summary.edge_files), (2, 2));
    assert_eq!(rows_per_part(&out.join("edges")), [vec![2, 1], vec![1, 1]]);
    assert_eq!(
        rows_per_part(&out.join("vertices")),
        [vec![2, 1], vec![1, 1]]
    );
    let want: Vec<Vec<Field>> = [
        (0, 1, 1.5),
        (0, 2, -2.0),
        (0, 3, 0.25),
        (1, 0, 7.0),
        (3, 2, 3.0),
    ]
    .iter()
    .map(|&(s, d, w)| vec![Field::Long(s), Field::Long(d), Field::Float(w)])
    .collect();
    assert_eq!(edges, want);
    let (vertices, _) = read_rows(&out.join("vertices"));
    let want: Vec<Vec<Field>> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| vec![Field::Long(i as i64), Field::Str(l.clone())])
        .collect();
    assert_eq!(vertices, want);
    // Nothing but the two tables: no staging directory left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1);
}

#[test]
fn integer_weights_and_unweighted_graphs_keep_their_types() {
    let g = InMemoryGraph::from_weighted_edges(3, &[(0, 1, 4.0), (1, 2, -9.0)], true);
    let view = g.view();
    let dir = tempfile::tempdir().unwrap();
    for (weight_type, name) in [(Some(WeightType::I32), "ints"), (None, "plain")] {
        let export = ExportGraph {
            out: view.out(),
            weight_type,
            labels: None,
            symmetric: false,
            self_loops_kept: false,
        };
        let out = dir.path().join(name);
        write_parquet(
            &export,
            &out,
            &ParquetOptions::default(),
            &mut no_progress(),
        )
        .unwrap();
        let (edges, _) = read_rows(&out.join("edges"));
        // Symmetric: both directions of each edge.
        assert_eq!(edges.len(), 4);
        match weight_type {
            Some(_) => assert_eq!(
                edges[1],
                vec![Field::Long(1), Field::Long(0), Field::Int(4)]
            ),
            None => assert_eq!(edges[1], vec![Field::Long(1), Field::Long(0)]),
        }
        let (vertices, _) = read_rows(&out.join("vertices"));
        assert_eq!(
            vertices,
            (0..3).map(|i| vec![Field::Long(i)]).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_non_empty_directory_needs_overwrite() {
    let g = weighted_graph();
    let view = g.view();
    let export = ExportGraph {
        out: view.out(),
        weight_type: Some(WeightType::F32),
        labels: None,
        symmetric: false,
        self_loops_kept: false,
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.txt"), "x").unwrap();
    let err = write_parquet(
        &export,
        &out,
        &ParquetOptions::default(),
        &mut no_progress(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("is not empty"), "{err}");
    // Overwriting twice replaces the tables and leaves other files alone.
    let options = ParquetOptions {
        overwrite: true,
        rows_per_file: 1,
        chunk_rows: 1,
        ..Default::default()
    };
    write_parquet(&export, &out, &options, &mut no_progress()).unwrap();
    let options = ParquetOptions {
        overwrite: true,
        ..Default::default()
    };
    write_parquet(&export, &out, &options, &mut no_progress()).unwrap();
    assert_eq!(read_rows(&out.join("edges")).1, 1);
    assert!(out.join("keep.txt").exists());
}

#[test]
fn an_empty_graph_gets_schema_only_files() {
    let g = InMemoryGraph::from_edges(0, &[], true);
    let view = g.view();
    let export = ExportGraph {
        out: view.out(),
        weight_type: None,
        labels: None,
        symmetric: false,
        self_loops_kept: false,
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let summary = write_parquet(
        &export,
        &out,
        &ParquetOptions::default(),
        &mut no_progress(),
    )
    .unwrap();
    assert_eq!(
        (summary.edge_files, summary.vertex_files, summary.arcs),
        (1, 1, 0)
    );
    assert!(read_rows(&out.join("edges")).0.is_empty());
}

#[test]
fn tsv_prints_weights_in_their_stored_type() {
    let g = weighted_graph();
    let view = g.view();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.tsv");
    let export = ExportGraph {
        out: view.out(),
        weight_type: Some(WeightType::F32),
        labels: None,
        symmetric: false,
        self_loops_kept: false,
    };
    write_tsv(&export, &path, Existing::Refuse, &mut no_progress()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, "0\t1\t1.5\n0\t2\t-2\n0\t3\t0.25\n1\t0\t7\n3\t2\t3\n");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
