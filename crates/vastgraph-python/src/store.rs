//! An opened store as a Python object, with its arrays as read-only NumPy views of the
//! memory-mapped files (no copy).

use std::path::PathBuf;
use std::sync::Arc;

use numpy::ndarray::ArrayView1;
use numpy::{Element, IntoPyArray, PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use vastgraph_store::{Advice, ByteCodeLists, Store, WeightsRef};

use crate::errors::store_error;

/// An opened, validated store. Shared with worker threads (`Arc`), so that an algorithm left
/// running after Ctrl-C keeps its graph mapped even if Python drops this object.
#[pyclass(frozen, name = "Store", module = "vastgraph._native")]
pub struct NativeStore {
    pub store: Arc<Store>,
}

/// A read-only NumPy array over `values`, kept alive by `owner` (the `NativeStore`).
fn view<'py, T: Element>(owner: &Bound<'py, NativeStore>, values: &[T]) -> Bound<'py, PyAny> {
    let array = ArrayView1::from(values);
    // SAFETY: `values` lies in a mapping owned by the store behind `owner`'s Arc, which is
    // never remapped or unmapped while `owner` lives; NumPy holds `owner` as the array's
    // base object, so `owner` lives at least as long as the array.
    let py_array = unsafe { PyArray1::borrow_from_array(&array, owner.clone().into_any()) };
    // The mapping is read-only: a write through the array would crash the process.
    py_array.readwrite().make_nonwriteable();
    py_array.into_any()
}

/// Every list of a compressed direction, decoded in parallel into one array (CSR order).
fn decoded<'py>(py: Python<'py>, lists: ByteCodeLists<'_>) -> Bound<'py, PyArray1<u32>> {
    let offsets = lists.offsets();
    let mut neighbors = vec![0u32; lists.num_arcs() as usize];
    const VERTICES_PER_TASK: usize = 1 << 12;
    py.detach(|| {
        let vertices = offsets.len() - 1;
        let mut rest = neighbors.as_mut_slice();
        let mut pieces = Vec::with_capacity(vertices / VERTICES_PER_TASK + 1);
        for first in (0..vertices).step_by(VERTICES_PER_TASK) {
            let last = (first + VERTICES_PER_TASK).min(vertices);
            let arcs = (offsets[last] - offsets[first]) as usize;
            let (piece, tail) = rest.split_at_mut(arcs);
            pieces.push((first..last, piece));
            rest = tail;
        }
        pieces.into_par_iter().for_each(|(range, piece)| {
            let mut slots = piece.iter_mut();
            for v in range {
                lists.for_each(v as u32, |u| {
                    if let Some(slot) = slots.next() {
                        *slot = u;
                    }
                });
            }
        });
    });
    neighbors.into_pyarray(py)
}

fn weights_view<'py>(
    owner: &Bound<'py, NativeStore>,
    weights: WeightsRef<'_>,
) -> Bound<'py, PyAny> {
    match weights {
        WeightsRef::I32(w) => view(owner, w),
        WeightsRef::F32(w) => view(owner, w),
    }
}

#[pymethods]
impl NativeStore {
    /// Opens and validates the store in `path` (offsets and neighbour lists are checked); with
    /// `tiles` false, without its tiles (runs then read the lists).
    #[staticmethod]
    #[pyo3(signature = (path, tiles=true))]
    fn open(py: Python<'_>, path: PathBuf, tiles: bool) -> PyResult<NativeStore> {
        let store = py
            .detach(|| match tiles {
                true => Store::open(&path),
                false => Store::open_without_tiles(&path),
            })
            .map_err(store_error)?;
        // As the CLI does: 2 MiB pages keep the randomly read arrays within the TLB's reach.
        store.advise(Advice::HugePage);
        Ok(NativeStore {
            store: Arc::new(store),
        })
    }

    #[getter]
    fn path(&self) -> PathBuf {
        self.store.dir().to_path_buf()
    }

    #[getter]
    fn num_vertices(&self) -> usize {
        self.store.num_vertices()
    }

    #[getter]
    fn num_arcs(&self) -> u64 {
        self.store.num_arcs()
    }

    #[getter]
    fn directed(&self) -> bool {
        self.store.manifest().directed
    }

    #[getter]
    fn weighted(&self) -> bool {
        self.store.manifest().weighted
    }

    #[getter]
    fn has_transpose(&self) -> bool {
        self.store.manifest().has_transpose
    }

    #[getter]
    fn has_labels(&self) -> bool {
        self.store.manifest().has_labels
    }

    /// The manifest as JSON text.
    fn manifest_json(&self) -> PyResult<String> {
        serde_json::to_string(self.store.manifest())
            .map_err(|e| PyValueError::new_err(format!("cannot serialise the manifest: {e}")))
    }

    /// The original labels in dense-id order, or None when the store has none.
    fn labels(&self, py: Python<'_>) -> PyResult<Option<Vec<String>>> {
        let store = self.store.clone();
        py.detach(move || store.labels()).map_err(store_error)
    }

    /// One of the store's arrays as a read-only NumPy view: `offsets` (u64, n+1), `neighbors`
    /// (u32, m), `weights` (i32 or f32, m), and `in_offsets`, `in_neighbors`, `in_weights` for
    /// a stored transpose. None when the store has no such array. A compressed store's
    /// neighbour arrays are decoded into new arrays (m u32 in memory), not views.
    fn array<'py>(slf: &Bound<'py, Self>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        let store = &slf.get().store;
        let py = slf.py();
        Ok(match name {
            "offsets" => Some(view(slf, store.offsets())),
            "neighbors" => Some(match store.byte_code() {
                Some(lists) => decoded(py, lists).into_any(),
                None => view(slf, store.neighbors()),
            }),
            "weights" => store.weights().map(|w| weights_view(slf, w)),
            "in_offsets" => store.in_offsets().map(|o| view(slf, o)),
            "in_neighbors" => match store.in_byte_code() {
                Some(lists) => Some(decoded(py, lists).into_any()),
                None => store.in_neighbors().map(|n| view(slf, n)),
            },
            "in_weights" => store.in_weights().map(|w| weights_view(slf, w)),
            other => {
                return Err(PyValueError::new_err(format!(
                    "no store array named {other:?} (offsets, neighbors, weights, in_offsets, \
                     in_neighbors, in_weights)"
                )))
            }
        })
    }

    /// Recomputes every file's checksum and compares it with the manifest.
    fn verify_checksums(&self, py: Python<'_>) -> PyResult<()> {
        let store = self.store.clone();
        py.detach(move || store.verify_checksums())
            .map_err(store_error)
    }

    /// The checksums, then the structure: a symmetric store's arcs come back, a transpose
    /// agrees with the lists (`vastgraph info --verify`).
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        let store = self.store.clone();
        py.detach(move || store.verify()).map_err(store_error)
    }
}
