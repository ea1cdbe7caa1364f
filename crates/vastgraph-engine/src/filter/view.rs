//! The filtered graph seen through [`Adjacency`]: every algorithm of the engine (edge_map,
//! connectivity, BFS, ...) runs on the active edges of a [`GraphFilter`] without knowing it.
//! A predicate fixed for the whole run needs no bits: see [`crate::traverse::PredicateView`].

use crate::filter::GraphFilter;
use crate::graph::{Adjacency, Graph};
use crate::Vertex;

/// A read-only view of a filter's active edges. Positions (`for_each_neighbor_in`) count active
/// edges only. A symmetric filter's view is a symmetric graph when no vertex is dirty.
pub struct FilteredAdjacency<'f, 'g, A: Adjacency> {
    filter: &'f GraphFilter<'g, A>,
}

impl<A: Adjacency> Clone for FilteredAdjacency<'_, '_, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A: Adjacency> Copy for FilteredAdjacency<'_, '_, A> {}

impl<'f, 'g, A: Adjacency> FilteredAdjacency<'f, 'g, A> {
    pub fn new(filter: &'f GraphFilter<'g, A>) -> Self {
        FilteredAdjacency { filter }
    }

    /// The view as a graph: symmetric when the filter is (its out-edges are then its in-edges),
    /// otherwise directed without in-edges.
    pub fn into_graph(self) -> Graph<Self> {
        let symmetric = self.filter.is_symmetric();
        Graph::new(self, None, symmetric)
    }
}

impl<A: Adjacency> Adjacency for FilteredAdjacency<'_, '_, A> {
    fn num_vertices(&self) -> usize {
        self.filter.num_vertices()
    }
    fn num_arcs(&self) -> u64 {
        self.filter.num_active_arcs()
    }
    #[inline]
    fn degree(&self, v: Vertex) -> usize {
        self.filter.degree(v)
    }
    fn is_weighted(&self) -> bool {
        self.filter.graph_adjacency().is_weighted()
    }
    #[inline]
    fn for_each_neighbor<F: FnMut(Vertex)>(&self, v: Vertex, f: F) {
        self.filter.for_each_active(v, f)
    }
    fn for_each_neighbor_in<F: FnMut(Vertex, f64)>(&self, v: Vertex, lo: usize, hi: usize, f: F) {
        self.filter.for_each_active_in(v, lo, hi, f)
    }
    fn for_each_weighted<F: FnMut(Vertex, f64)>(&self, v: Vertex, mut f: F) {
        self.filter.try_for_each_active_weighted(v, |u, w| {
            f(u, w);
            true
        });
    }
    #[inline]
    fn try_for_each_neighbor<F: FnMut(Vertex) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.filter.try_for_each_active(v, f)
    }
    fn try_for_each_weighted<F: FnMut(Vertex, f64) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.filter.try_for_each_active_weighted(v, f)
    }
}
