//! Building stores: from input files (the ingest crate, as `vastgraph convert` does) or from
//! edge arrays handed over by NumPy. Builds run on a worker thread and stop cleanly on Ctrl-C
//! (see `background::run_cancellable`).

use std::path::{Path, PathBuf};
use std::str::FromStr;

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use vastgraph_ingest::{IngestOptions, InputFormat, TableColumns};
use vastgraph_store::{BuildOptions, InputRecord, Manifest, StoreBuilder};

use crate::background::{run_cancellable, BuildProgress, PHASE_BUILDING};
use crate::errors::{ingest_error, store_error};

/// Edges per `push_batch` call when building from arrays: large enough to amortise the call,
/// small enough for timely progress and cancellation.
const ARRAY_BATCH_EDGES: usize = 1 << 20;

/// The build options every way of building a store shares.
struct Settings {
    symmetrize: bool,
    transpose: bool,
    keep_self_loops: bool,
    memory_bytes: u64,
    tmp_dir: Option<PathBuf>,
    overwrite: bool,
}

impl Settings {
    fn build_options(
        &self,
        weighted: bool,
        command: &str,
        options_json: serde_json::Value,
    ) -> BuildOptions {
        BuildOptions {
            symmetrize: self.symmetrize,
            transpose: self.transpose && !self.symmetrize,
            keep_self_loops: self.keep_self_loops,
            weighted,
            memory_bytes: self.memory_bytes,
            tmp_dir: self.tmp_dir.clone(),
            overwrite: self.overwrite,
            command: command.to_string(),
            options_json,
            ..Default::default()
        }
    }
}

fn manifest_json(manifest: &Manifest) -> PyResult<String> {
    serde_json::to_string(manifest)
        .map_err(|e| PyValueError::new_err(format!("cannot serialise the manifest: {e}")))
}

fn parse_options(options_json: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(options_json)
        .map_err(|e| PyValueError::new_err(format!("invalid options JSON: {e}")))
}

/// Builds a store from input files, like `vastgraph convert`. Returns the manifest as JSON.
#[pyfunction]
#[pyo3(signature = (
    inputs, output, *, symmetrize, transpose, keep_self_loops, relabel, memory_bytes,
    format=None, tmp_dir=None, overwrite=false, threads=None, progress=None, options_json="{}",
    compress=false, codec=None, order="input", header=false, src=None, dst=None, weight=None,
    tiles=false
))]
#[allow(clippy::too_many_arguments)]
pub fn convert(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    output: PathBuf,
    symmetrize: bool,
    transpose: bool,
    keep_self_loops: bool,
    relabel: bool,
    memory_bytes: u64,
    format: Option<String>,
    tmp_dir: Option<PathBuf>,
    overwrite: bool,
    threads: Option<usize>,
    progress: Option<Bound<'_, PyAny>>,
    options_json: &str,
    compress: bool,
    codec: Option<String>,
    order: &str,
    header: bool,
    src: Option<String>,
    dst: Option<String>,
    weight: Option<String>,
    tiles: bool,
) -> PyResult<String> {
    let format = format
        .map(|f| InputFormat::from_str(&f))
        .transpose()
        .map_err(ingest_error)?;
    let settings = Settings {
        symmetrize,
        transpose,
        keep_self_loops,
        memory_bytes,
        tmp_dir,
        overwrite,
    };
    let options = parse_options(options_json)?;
    let codec = codec
        .map(|name| vastgraph_store::Codec::compressed_from_name(&name))
        .transpose()
        .map_err(PyValueError::new_err)?;
    let order = vastgraph_store::VertexOrder::from_name(order).map_err(PyValueError::new_err)?;
    let state = BuildProgress::default();
    run_cancellable(py, threads, &|| state.report(progress.as_ref()), || {
        let plan = vastgraph_ingest::plan(
            &inputs,
            &IngestOptions {
                format,
                relabel,
                header,
                columns: TableColumns { src, dst, weight },
            },
        )
        .map_err(ingest_error)?;
        state.set_total(plan.total_bytes().unwrap_or(0));
        // A symmetric Matrix Market file stores one triangle: the store must hold both. An
        // export of a store that kept its self-loops keeps them again.
        let settings = Settings {
            symmetrize: settings.symmetrize || plan.symmetric,
            keep_self_loops: settings.keep_self_loops || plan.self_loops_kept,
            ..settings
        };
        let build = |output: &Path, overwrite: bool| {
            vastgraph_store::build_in_order(
                output,
                overwrite,
                order,
                memory_bytes,
                "convert",
                |path, overwrite| -> Result<Manifest, BuildError> {
                    let mut builder = StoreBuilder::create(
                        path,
                        BuildOptions {
                            codec: match (compress, codec) {
                                (_, Some(codec)) => codec,
                                (true, None) => vastgraph_store::Codec::COMPRESSED_DEFAULT,
                                (false, None) => vastgraph_store::Codec::Raw,
                            },
                            // for64, or zeta64 on a web graph, as `convert --compress` writes.
                            pick_codec: compress && codec.is_none(),
                            overwrite,
                            expected_size: plan.expected_size(),
                            ..settings.build_options(plan.weighted, "convert", options)
                        },
                    )?;
                    for record in plan.input_records() {
                        builder.add_input(record);
                    }
                    vastgraph_ingest::ingest(&plan, &mut builder, &mut |done| state.set(done))
                        .map_err(|e| BuildError::Py(ingest_error(e)))?;
                    state.enter(PHASE_BUILDING);
                    state.set(0);
                    Ok(builder.finish()?)
                },
            )
        };
        // With tiles, the store appears only once tiled: an interrupt while tiling leaves
        // nothing at `output`.
        let tile = |hidden: &Path| {
            let vertices = vastgraph_store::open_manifest(hidden)?.vertices;
            let options = vastgraph_store::TileOptions {
                side_log2: vastgraph_store::tiles::default_side_log2(vertices),
                memory_bytes,
                progress: Default::default(),
            };
            Ok(vastgraph_store::build_tiles(hidden, &options)?)
        };
        let manifest =
            vastgraph_store::build_then_tile(&output, overwrite, build, tiles.then_some(tile))
                .map_err(BuildError::into_py)?;
        manifest_json(&manifest)
    })
}

/// A build step's failure: the store's error, or one already made a Python exception.
enum BuildError {
    Store(vastgraph_store::StoreError),
    Py(PyErr),
}

impl From<vastgraph_store::StoreError> for BuildError {
    fn from(e: vastgraph_store::StoreError) -> Self {
        BuildError::Store(e)
    }
}

impl BuildError {
    fn into_py(self) -> PyErr {
        match self {
            BuildError::Store(e) => store_error(e),
            BuildError::Py(e) => e,
        }
    }
}

/// Builds a store from edge arrays `src[i] -> dst[i]` (dense u32 ids) with optional f64
/// weights. `num_vertices` raises n above max id + 1; `labels` (one per vertex, dense-id
/// order) are stored as the label map. Returns the manifest as JSON.
#[pyfunction]
#[pyo3(signature = (
    output, src, dst, weights=None, *, num_vertices=None, labels=None, symmetrize, transpose,
    keep_self_loops, memory_bytes, tmp_dir=None, overwrite=false, threads=None, progress=None,
    command="from_edges", options_json="{}"
))]
#[allow(clippy::too_many_arguments)]
pub fn build_from_edges(
    py: Python<'_>,
    output: PathBuf,
    src: PyReadonlyArray1<'_, u32>,
    dst: PyReadonlyArray1<'_, u32>,
    weights: Option<PyReadonlyArray1<'_, f64>>,
    num_vertices: Option<u64>,
    labels: Option<Vec<String>>,
    symmetrize: bool,
    transpose: bool,
    keep_self_loops: bool,
    memory_bytes: u64,
    tmp_dir: Option<PathBuf>,
    overwrite: bool,
    threads: Option<usize>,
    progress: Option<Bound<'_, PyAny>>,
    command: &str,
    options_json: &str,
) -> PyResult<String> {
    let contiguous =
        |what: &str| PyValueError::new_err(format!("{what} must be a contiguous array"));
    let src_values = src.as_slice().map_err(|_| contiguous("src"))?;
    let dst_values = dst.as_slice().map_err(|_| contiguous("dst"))?;
    let weight_values = weights
        .as_ref()
        .map(|w| w.as_slice().map_err(|_| contiguous("weights")))
        .transpose()?;
    if src_values.len() != dst_values.len()
        || weight_values.is_some_and(|w| w.len() != src_values.len())
    {
        return Err(PyValueError::new_err(format!(
            "src, dst and weights must have equal lengths (got {}, {}{})",
            src_values.len(),
            dst_values.len(),
            weight_values
                .map(|w| format!(", {}", w.len()))
                .unwrap_or_default()
        )));
    }
    let settings = Settings {
        symmetrize,
        transpose,
        keep_self_loops,
        memory_bytes,
        tmp_dir,
        overwrite,
    };
    let options = parse_options(options_json)?;
    let array_bytes = std::mem::size_of_val(src_values)
        + std::mem::size_of_val(dst_values)
        + weight_values.map_or(0, std::mem::size_of_val);
    let state = BuildProgress::default();
    state.set_total(src_values.len() as u64);
    run_cancellable(py, threads, &|| state.report(progress.as_ref()), || {
        let mut builder = StoreBuilder::create(
            &output,
            BuildOptions {
                expected_size: Some(vastgraph_store::ExpectedSize {
                    edges: src_values.len() as u64,
                    vertices: num_vertices.unwrap_or(0),
                }),
                ..settings.build_options(weight_values.is_some(), command, options)
            },
        )
        .map_err(store_error)?;
        builder.add_input(InputRecord {
            path: "<arrays>".to_string(),
            format: "arrays".to_string(),
            bytes: array_bytes as u64,
            skipped_header_line: None,
            header_like_line: None,
        });
        if let Some(n) = num_vertices {
            builder.ensure_vertices(n);
        }
        for start in (0..src_values.len()).step_by(ARRAY_BATCH_EDGES) {
            let end = (start + ARRAY_BATCH_EDGES).min(src_values.len());
            let batch_weights = weight_values.map(|w| &w[start..end]);
            builder
                .push_batch(
                    &src_values[start..end],
                    &dst_values[start..end],
                    batch_weights,
                )
                .map_err(store_error)?;
            state.set(end as u64);
        }
        if let Some(labels) = labels {
            builder.set_labels(labels);
        }
        state.enter(PHASE_BUILDING);
        state.set(0);
        manifest_json(&builder.finish().map_err(store_error)?)
    })
}

/// Writes a copy of the store at `store` renumbered by decreasing degree, like `vastgraph
/// reorder`. Returns the new store's manifest as JSON.
#[pyfunction]
#[pyo3(signature = (store, output, *, memory_bytes, overwrite=false, threads=None))]
pub fn reorder(
    py: Python<'_>,
    store: PathBuf,
    output: PathBuf,
    memory_bytes: u64,
    overwrite: bool,
    threads: Option<usize>,
) -> PyResult<String> {
    let opts = vastgraph_store::ReorderOptions {
        memory_bytes,
        overwrite,
        command: "reorder".to_string(),
        carry_provenance: false,
        progress: Default::default(),
    };
    run_cancellable(py, threads, &|| Ok(()), || {
        let manifest =
            vastgraph_store::reorder_store(&store, &output, &opts).map_err(store_error)?;
        manifest_json(&manifest)
    })
}
