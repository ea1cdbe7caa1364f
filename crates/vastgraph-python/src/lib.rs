//! `vastgraph._native`: the Rust half of the `vastgraph` Python package. It opens stores,
//! builds them (from files through the ingest crate, or from NumPy arrays), and runs the
//! algorithms of the registry that the CLI uses too. Everything user-facing (argument checks,
//! names, docstrings, pandas/pyarrow/NetworkX glue) lives in the pure-Python layer.
//!
//! Long work runs on a worker thread while the calling thread waits with the GIL released and
//! wakes every 100 ms to let Python handle Ctrl-C (see `background`).

use pyo3::prelude::*;

/// Heap accounting, as in the `vastgraph` binary: runs from Python and from the `vastgraph`
/// command this package installs report the algorithms' `peak_mutable_bytes` too.
#[global_allocator]
static ALLOCATOR: vastgraph_engine::memory::CountingAllocator =
    vastgraph_engine::memory::CountingAllocator;

/// The `vastgraph` command of the Python package: the same command line as the binary, from
/// the same build. `args` are the arguments after the program name; returns the exit code.
/// For a process of its own (the console script): it sets up the thread pool, logging and
/// the interrupt handlers as the binary does.
#[pyfunction]
fn cli_main(py: Python<'_>, args: Vec<std::ffi::OsString>) -> u8 {
    let argv: Vec<std::ffi::OsString> = std::iter::once("vastgraph".into()).chain(args).collect();
    py.detach(move || vastgraph_cli::main_with(argv))
}

mod algorithms;
mod background;
mod build;
mod errors;
mod export;
mod store;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // A store's file truncated under a mapped read: a message before the process ends.
    vastgraph_store::explain_bus_errors(vastgraph_store::AfterBusError::PreviousHandler);
    m.add("MAX_VERTICES", vastgraph_store::MAX_VERTICES)?;
    m.add("MIN_MEMORY_BYTES", vastgraph_store::MIN_MEMORY_BYTES)?;
    m.add_class::<store::NativeStore>()?;
    m.add_function(wrap_pyfunction!(algorithms::algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::run_algorithm, m)?)?;
    m.add_function(wrap_pyfunction!(build::convert, m)?)?;
    m.add_function(wrap_pyfunction!(build::build_from_edges, m)?)?;
    m.add_function(wrap_pyfunction!(build::reorder, m)?)?;
    m.add_function(wrap_pyfunction!(export::export_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(cli_main, m)?)?;
    Ok(())
}
