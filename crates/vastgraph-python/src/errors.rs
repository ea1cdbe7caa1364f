//! Rust errors as the Python exceptions a user would expect: missing files are
//! `FileNotFoundError`, an existing target `FileExistsError`, other I/O `OSError`, a cancelled
//! build `KeyboardInterrupt`, and bad input or parameters `ValueError`. The message is the Rust
//! error's own (it names the file, line and reason), with the remedies it names as the CLI's
//! flags put in the API's keywords ([`in_python_terms`]).

use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyKeyboardInterrupt, PyOSError, PyRuntimeError,
    PyValueError,
};
use pyo3::PyErr;
use vastgraph_engine::error::chain_text;
use vastgraph_ingest::IngestError;
use vastgraph_store::StoreError;

fn io_error(kind: std::io::ErrorKind, message: String) -> PyErr {
    match kind {
        std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        std::io::ErrorKind::AlreadyExists => PyFileExistsError::new_err(message),
        // Bytes that were read but are damaged (a page checksum, an id out of range): the
        // store is at fault, as when opening it finds damage.
        std::io::ErrorKind::InvalidData => PyValueError::new_err(message),
        _ => PyOSError::new_err(message),
    }
}

pub fn store_error(e: StoreError) -> PyErr {
    let message = in_python_terms(&e.to_string());
    store_error_as(&e, message)
}

/// The exception for `e`, carrying `message` (which may add context to `e`'s own).
fn store_error_as(e: &StoreError, message: String) -> PyErr {
    match e {
        StoreError::Io { source, .. } => io_error(source.kind(), message),
        StoreError::DiskFull { .. } | StoreError::NoSpace { .. } => PyOSError::new_err(message),
        StoreError::MissingFile { .. } | StoreError::NotAStore { .. } => {
            PyFileNotFoundError::new_err(message)
        }
        StoreError::TargetExists { .. } | StoreError::NotOverwritable { .. } => {
            PyFileExistsError::new_err(message)
        }
        StoreError::Cancelled => PyKeyboardInterrupt::new_err(message),
        _ => PyValueError::new_err(message),
    }
}

pub fn ingest_error(e: IngestError) -> PyErr {
    let message = e.to_string();
    match &e {
        IngestError::Io { source, .. } => io_error(source.kind(), message),
        IngestError::Cancelled => PyKeyboardInterrupt::new_err(message),
        // The builder refused a batch: the builder's error decides the exception type.
        IngestError::Sink { source, .. } => match source.downcast_ref::<StoreError>() {
            Some(store) => store_error_as(store, message),
            None => value_error(message),
        },
        _ => value_error(message),
    }
}

/// A worker thread panicked: a bug, reported with the panic message.
pub fn panic_error(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    PyRuntimeError::new_err(format!("vastgraph worker thread panicked: {message}"))
}

/// The exception for a failed export or out-of-core run: the kind of the first I/O or store
/// error in the chain (an existing non-empty directory is `FileExistsError`, Ctrl-C
/// `KeyboardInterrupt`), else `ValueError` (e.g. a memory budget below the minimum); the
/// message is the whole chain.
pub fn chain_error(e: anyhow::Error) -> PyErr {
    let message = in_python_terms(&chain_text(&e));
    for cause in e.chain() {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return io_error(io.kind(), message);
        }
        if let Some(store) = cause.downcast_ref::<StoreError>() {
            return store_error_as(store, message);
        }
    }
    PyValueError::new_err(message)
}

/// A `ValueError` carrying `message` in the API's terms ([`in_python_terms`]).
pub fn value_error(message: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(in_python_terms(&message.to_string()))
}

/// `message`, whose remedies name the CLI's flags (`--memory 21MiB`, `--resume`, …), with the
/// keywords the Python API takes for them (`memory="21MiB"`, `resume=True`, …).
fn in_python_terms(message: &str) -> String {
    const PHRASES: [(&str, &str); 8] = [
        (
            "`vastgraph run --no-tiles`",
            "`vastgraph.open(path, tiles=False)`",
        ),
        ("leave out --no-tiles", "open the store with tiles=True"),
        ("--resume", "resume=True"),
        ("--checkpoint", "checkpoint="),
        ("--threads 1", "threads=1"),
        ("--threads", "threads="),
        ("--relabel", "relabel=True"),
        ("--header", "header=True"),
    ];
    let mut text = message.to_string();
    for (flag, keyword) in PHRASES {
        text = text.replace(flag, keyword);
    }
    // `--memory SIZE` becomes `memory="SIZE"`, and `--memory` alone `memory=`.
    const MEMORY: &str = "--memory";
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(MEMORY) {
        out.push_str(&rest[..at]);
        rest = &rest[at + MEMORY.len()..];
        let size = rest
            .strip_prefix(' ')
            .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            .map(|r| &r[..r.find([' ', ',', ';', ')']).unwrap_or(r.len())]);
        match size {
            Some(size) => {
                out.push_str(&format!("memory=\"{size}\""));
                rest = &rest[1 + size.len()..];
            }
            None => out.push_str("memory="),
        }
    }
    out.push_str(rest);
    out
}
