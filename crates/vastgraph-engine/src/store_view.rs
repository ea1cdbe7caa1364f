//! The graph view of an opened store.

use vastgraph_store::Store;

use crate::graph::{CsrAdjacency, CsrGraph, Graph};

impl<'a> CsrGraph<'a> {
    /// The raw CSR view of an opened store (which validated its arrays when it was opened).
    pub fn from_store(store: &'a Store) -> Self {
        let incoming = match (store.in_offsets(), store.in_neighbors()) {
            (Some(o), Some(n)) => Some(CsrAdjacency::new(o, n, store.in_weights())),
            _ => None,
        };
        let symmetric = !store.manifest().directed;
        Graph::new(
            CsrAdjacency::new(store.offsets(), store.neighbors(), store.weights()),
            if symmetric { None } else { incoming },
            symmetric,
        )
    }
}
