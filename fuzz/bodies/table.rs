//! Arbitrary bytes as a Parquet file and as an Arrow IPC file (the first byte picks which, and
//! whether ids are read as labels): converting it gives edges or an error naming the file,
//! never a panic, a hang or an id the table does not hold.
//!
//! Shared by the fuzz target `table` and the replay of its corpus in the test command.

use vastgraph_ingest::{ingest, plan, IngestOptions, VecSink};

pub fn run(input: &[u8]) {
    let Some((&choice, table)) = input.split_first() else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join(if choice & 1 == 0 {
        "t.parquet"
    } else {
        "t.arrow"
    });
    std::fs::write(&path, table).expect("written");
    let opts = IngestOptions {
        relabel: choice & 2 != 0,
        ..IngestOptions::default()
    };
    let planned = match plan(std::slice::from_ref(&path), &opts) {
        Ok(planned) => planned,
        Err(e) => {
            assert!(
                e.to_string().contains("t."),
                "an error that names no file: {e}"
            );
            return;
        }
    };
    let mut sink = VecSink::default();
    match ingest(&planned, &mut sink, &mut |_| {}) {
        Ok(summary) => {
            assert_eq!(summary.edges, sink.src.len() as u64);
            if let Some(labels) = &sink.labels {
                assert!(sink
                    .src
                    .iter()
                    .chain(&sink.dst)
                    .all(|&v| (v as usize) < labels.len()));
            }
        }
        Err(e) => assert!(
            e.to_string().contains("t."),
            "an error that names no file: {e}"
        ),
    }
}
