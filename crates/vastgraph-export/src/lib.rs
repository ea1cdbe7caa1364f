//! Writes a graph out of vastgraph again, for the tools users move on to: a TSV edge list
//! (`src<TAB>dst[<TAB>weight]`) and Parquet tables (`DIR/edges/*.parquet` with src, dst[, weight]
//! and `DIR/vertices/*.parquet` with id[, label]) that Spark GraphFrames, DuckDB and Polars read
//! directly. Both the CLI (`vastgraph export`) and the Python package use this crate.
//!
//! Arcs are read through the engine's [`Adjacency`] trait, so every store codec exports the same
//! way, in the store's order (by source, then destination). Nothing is half-written: a file is
//! written under a temporary name and renamed into place; an interrupted export (Ctrl-C, a full
//! disk) leaves no partial output.

mod arcs;
mod atomic;
mod parquet_out;
mod tsv;

pub use atomic::{create_output, write_then_rename, STDOUT};
pub use parquet_out::{write_parquet, ParquetCompression, ParquetOptions, ParquetSummary};
pub use tsv::{write_tsv, TsvSummary};

use vastgraph_engine::Adjacency;
use vastgraph_store::WeightType;

/// What an export needs of a graph: its out-arcs, the stored weight type (weights come through
/// the trait as f64 and are written back in their stored type, which is exact for i32 and f32),
/// the original labels when the store has them, and whether the store is symmetric and kept its
/// self-loops (recorded in a Parquet export's metadata, so that `convert` restores them).
pub struct ExportGraph<'g, A: Adjacency> {
    pub out: &'g A,
    pub weight_type: Option<WeightType>,
    pub labels: Option<&'g [String]>,
    pub symmetric: bool,
    pub self_loops_kept: bool,
}

/// Called with the number of arcs written so far, now and then, for a progress bar.
pub type ProgressFn<'p> = &'p mut dyn FnMut(u64);
