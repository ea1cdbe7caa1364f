//! Parquet export of an opened store, by the same code as `vastgraph export --format parquet`.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use vastgraph_engine::{visit_store, Adjacency, Graph, GraphVisitor};
use vastgraph_export::{write_parquet, ExportGraph, ParquetCompression, ParquetOptions};
use vastgraph_store::Store;

use crate::background::{run_cancellable, BuildProgress, PHASE_BUILDING};
use crate::errors::{chain_error, store_error};
use crate::store::NativeStore;

/// Writes `DIR/edges/*.parquet` and, when `vertices`, `DIR/vertices/*.parquet` (id[, label]).
/// Returns the number of (edge files, vertex files) and the export's id, which a vertex table
/// written beside the edges must carry (`vastgraph.export` in its metadata).
#[pyfunction]
#[pyo3(signature = (store, directory, chunk_rows, rows_per_file, compression, overwrite, vertices, threads=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn export_parquet(
    py: Python<'_>,
    store: &NativeStore,
    directory: PathBuf,
    chunk_rows: usize,
    rows_per_file: u64,
    compression: &str,
    overwrite: bool,
    vertices: bool,
    threads: Option<usize>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<(usize, usize, String)> {
    let compression: ParquetCompression = compression.parse().map_err(PyValueError::new_err)?;
    let options = ParquetOptions {
        chunk_rows,
        rows_per_file,
        compression,
        overwrite,
        vertices,
    };
    let store = store.store.clone();
    let state = BuildProgress::default();
    state.enter(PHASE_BUILDING);
    run_cancellable(py, threads, &|| state.report(progress.as_ref()), || {
        let labels = if vertices {
            store.labels().map_err(store_error)?
        } else {
            None
        };
        // Raw or compressed lists: the writer sees the graph through its Adjacency.
        let export = Export {
            store: &store,
            labels: labels.as_deref(),
            directory: &directory,
            options: &options,
            state: &state,
        };
        visit_store(&store, export)
    })
}

struct Export<'a> {
    store: &'a Store,
    labels: Option<&'a [String]>,
    directory: &'a PathBuf,
    options: &'a ParquetOptions,
    state: &'a BuildProgress,
}

impl GraphVisitor for Export<'_> {
    type Output = PyResult<(usize, usize, String)>;
    fn visit<A: Adjacency>(self, graph: &Graph<A>) -> PyResult<(usize, usize, String)> {
        let export = ExportGraph {
            out: graph.out(),
            weight_type: self.store.manifest().weight_type,
            labels: self.labels,
            symmetric: !self.store.manifest().directed,
            self_loops_kept: self.store.manifest().self_loops_kept,
        };
        let summary = write_parquet(&export, self.directory, self.options, &mut |arcs| {
            self.state.set(arcs)
        })
        .map_err(chain_error)?;
        Ok((summary.edge_files, summary.vertex_files, summary.export_id))
    }
}
