//! Input formats → edge batches pushed into an [`EdgeSink`] (normally the store builder).
//!
//! Usage: [`plan`] looks at the inputs' headers (the builder needs to know up front whether
//! edges are weighted, whether to symmetrise, ...), then [`ingest`] streams every input, in
//! order, into the sink.
//!
//! Formats: text edge lists (SNAP/TSV/CSV, integer ids or labels, optional weights),
//! Matrix Market coordinate, DIMACS `.gr`, binary u32/u64 pairs, WebGraph BV, Parquet and
//! Arrow IPC edge tables; `.gz` and `.zst` text/binary inputs are decompressed on the fly. Text is parsed in parallel
//! (rayon) block by block; errors name file, line, reason and the offending text.

mod binary;
mod blocks;
mod dimacs;
mod edge_list;
mod error;
mod format;
mod ingest;
mod labels;
mod matrix_market;
mod plan;
mod quiet_panic;
mod sink;
mod source;
mod table;
mod text;
mod tokens;
mod webgraph_input;

#[doc(hidden)]
pub mod fuzzing;
#[cfg(test)]
mod no_panic_tests;

pub use binary::{BinEdgeWriter, BinFormat};
pub use error::IngestError;
pub use format::{detect_format, Compression, InputFormat};
pub use ingest::{ingest, IngestSummary};
pub use plan::{plan, IngestOptions, IngestPlan, PlannedInput};
pub use sink::{CountingSink, EdgeSink, VecSink};
pub use table::{TableColumns, TableLayout};

/// Stops between batches when the user asked to cancel (Ctrl-C).
pub(crate) fn check_cancelled() -> Result<(), IngestError> {
    if vastgraph_store::cancel_requested() {
        Err(IngestError::Cancelled)
    } else {
        Ok(())
    }
}
