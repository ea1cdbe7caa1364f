//! Cancellation (Ctrl-C) stops ingestion between batches. In its own test binary because
//! the flag is process-wide.

use std::path::{Path, PathBuf};

use vastgraph_ingest::{ingest, plan, IngestError, IngestOptions, VecSink};

#[test]
fn a_cancel_request_stops_ingest_with_cancelled() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let inputs: Vec<PathBuf> = ["tiny.tsv", "tiny.bin32"]
        .iter()
        .map(|n| fixtures.join(n))
        .collect();
    let plan = plan(&inputs, &IngestOptions::default()).unwrap();
    vastgraph_store::request_cancel();
    let mut sink = VecSink::default();
    let result = ingest(&plan, &mut sink, &mut |_| {});
    vastgraph_store::clear_cancel();
    assert!(matches!(result, Err(IngestError::Cancelled)), "{result:?}");
    // Stopped after the first input's first block: the second input was never read.
    assert_eq!(sink.src.len(), 6);
    assert!(ingest(&plan, &mut VecSink::default(), &mut |_| {}).is_ok());
}
