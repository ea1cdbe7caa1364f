//! Running an algorithm of the registry (the same table the CLI's `vastgraph run` uses) and
//! handing its result to NumPy without a copy.

use std::path::PathBuf;
use std::sync::Arc;

use numpy::ndarray::Array2;
use numpy::IntoPyArray;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use vastgraph_algos::checkpoint::{store_fingerprint, Checkpoint, CheckpointOptions, Every};
use vastgraph_algos::harness::{self, Request};
use vastgraph_algos::registry::{Params, Values, ALGORITHMS};
use vastgraph_engine::ooc::OocOptions;

use crate::background::{run_abandoning, run_cancellable};
use crate::errors::{chain_error, value_error};
use crate::store::NativeStore;

/// The registry as JSON text: for each algorithm its name, summary, parameters, whether it
/// saves checkpoints and whether it runs in passes (`vastgraph algorithms --json`).
#[pyfunction]
pub fn algorithms() -> String {
    vastgraph_algos::registry::describe().to_string()
}

/// The per-vertex (or per-row) result as a NumPy array that takes over the Rust vector.
fn values_to_numpy(py: Python<'_>, values: Values) -> PyResult<Bound<'_, PyAny>> {
    Ok(match values {
        Values::I64(v) => v.into_pyarray(py).into_any(),
        Values::U64(v) => v.into_pyarray(py).into_any(),
        Values::U32(v) => v.into_pyarray(py).into_any(),
        Values::U8(v) => v.into_pyarray(py).into_any(),
        Values::F64(v) => v.into_pyarray(py).into_any(),
        Values::Rows { data, cols } => {
            let cols = cols.max(1);
            let rows = data.len() / cols;
            Array2::from_shape_vec((rows, cols), data)
                .map_err(|e| {
                    PyValueError::new_err(format!("result rows do not fit {cols} columns: {e}"))
                })?
                .into_pyarray(py)
                .into_any()
        }
    })
}

/// Calls `callback(status)` with what the run has done so far ([`vastgraph_engine::progress`]):
/// a dict of `iterations` (0 for an algorithm that counts none), `max_iterations` (the cap, or
/// None), `steps` (engine operations), `active` (the latest frontier's size), `passes` and
/// `bytes_read` (out of core), `mode` (the last pass's I/O mode, or None) and `seconds`.
fn report_run(callback: &Bound<'_, PyAny>, bound: Option<u64>, seconds: f64) -> PyResult<()> {
    let p = vastgraph_engine::progress::snapshot();
    let status = pyo3::types::PyDict::new(callback.py());
    status.set_item("iterations", p.iterations)?;
    status.set_item("max_iterations", bound)?;
    status.set_item("steps", p.operations)?;
    status.set_item("active", p.active)?;
    status.set_item("passes", p.passes)?;
    status.set_item("bytes_read", p.bytes_read)?;
    status.set_item("mode", p.mode)?;
    status.set_item("seconds", seconds)?;
    callback.call1((status,))?;
    Ok(())
}

/// Runs registry algorithm `name` on `store` with `params_json` (the registry's `Params`,
/// as JSON) in a pool of `threads` threads (default: all cores). With `memory` (bytes), the run
/// stays within that budget: out of core where the algorithm has a kernel for it, in memory
/// where the graph and its state fit, an error otherwise. Returns the values (None for
/// algorithms with no per-vertex output) and the run statistics as JSON text.
#[pyfunction]
#[pyo3(signature = (store, name, params_json, threads=None, verify=false, memory=None, io_mode=None, mrt=None, recalibrate=false, checkpoint=None, checkpoint_every=None, resume=false, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn run_algorithm<'py>(
    py: Python<'py>,
    store: &Bound<'py, NativeStore>,
    name: &str,
    params_json: &str,
    threads: Option<usize>,
    verify: bool,
    memory: Option<u64>,
    io_mode: Option<&str>,
    mrt: Option<u32>,
    recalibrate: bool,
    checkpoint: Option<PathBuf>,
    checkpoint_every: Option<&str>,
    resume: bool,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<(Option<Bound<'py, PyAny>>, String)> {
    if !ALGORITHMS.iter().any(|a| a.name == name) {
        let known: Vec<&str> = ALGORITHMS.iter().map(|a| a.name).collect();
        return Err(PyValueError::new_err(format!(
            "unknown algorithm {name:?}; known: {}",
            known.join(", ")
        )));
    }
    // The out-of-core options, as `vastgraph run --io-mode --mrt --recalibrate` takes them.
    if memory.is_none() && (io_mode.is_some() || mrt.is_some() || recalibrate) {
        return Err(PyValueError::new_err(
            "io_mode, mrt and recalibrate apply to out-of-core runs: give memory= too",
        ));
    }
    let defaults = OocOptions::default();
    let options = OocOptions {
        mode: match io_mode {
            Some(mode) => mode.parse().map_err(PyValueError::new_err)?,
            None => defaults.mode,
        },
        max_reentries: mrt.unwrap_or(defaults.max_reentries),
        recalibrate,
        ..defaults
    };
    let mut params: Params = serde_json::from_str(params_json)
        .map_err(|e| PyValueError::new_err(format!("invalid parameters for {name}: {e}")))?;
    let shared = store.get().store.clone();
    if checkpoint.is_none() && (checkpoint_every.is_some() || resume) {
        return Err(PyValueError::new_err(
            "checkpoint_every and resume apply to a checkpoint: give checkpoint= too",
        ));
    }
    if let Some(dir) = &checkpoint {
        let options = CheckpointOptions {
            every: match checkpoint_every {
                Some(every) => every.parse().map_err(PyValueError::new_err)?,
                None => Every::default(),
            },
            resume,
            stop_after: None,
        };
        let opened = store_fingerprint(shared.dir())
            .and_then(|fingerprint| Checkpoint::open(dir, &fingerprint, options))
            .map_err(value_error)?;
        params.checkpoint = Some(Arc::new(opened));
    }
    let checkpoint = params.checkpoint.clone();
    let bound = vastgraph_algos::registry::iteration_bound(name, &params);
    let started = std::time::Instant::now();
    let report = || match &progress {
        Some(callback) => report_run(callback, bound, started.elapsed().as_secs_f64()),
        None => Ok(()),
    };
    let algorithm = name.to_string();
    let work = move || -> anyhow::Result<_> {
        harness::run(Request {
            memory,
            verify,
            out_of_core: options,
            // A store opened without its tiles runs on the lists out of core too.
            tiles: shared.tiles().is_some(),
            opened: Some(&*shared),
            ..Request::new(shared.dir(), &algorithm, &params)
        })
    };
    // With a checkpoint, Ctrl-C asks the kernel to save its state and stop, and waits for it;
    // without one, the run is abandoned at the engine's next operation.
    let report = match &checkpoint {
        Some(_) => run_cancellable(py, threads, &report, || work().map_err(chain_error))?,
        None => run_abandoning(py, threads, &report, work)?.map_err(chain_error)?,
    };
    let stats = serde_json::to_string(&report.record)
        .map_err(|e| PyValueError::new_err(format!("cannot write the run record: {e}")))?;
    let out = report;
    let values = out.values.map(|v| values_to_numpy(py, v)).transpose()?;
    if let Some(checkpoint) = checkpoint {
        checkpoint.finish().map_err(value_error)?;
    }
    Ok((values, stats))
}
