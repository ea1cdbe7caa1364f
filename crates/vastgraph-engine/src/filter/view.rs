//! The filtered graph seen through [`Adjacency`]: every algorithm of the engine (edge_map,
//! connectivity, BFS, ...) runs on the active edges of a [`GraphFilter`] without knowing it.

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

/// The arcs (u, v) of a graph for which `keep(u, v)` holds, decided as the lists are walked: a
/// graph filter without its bits, for a predicate that stays fixed while the view is used (a
/// [`GraphFilter`] is for deletions that accumulate, pack after pack). It costs no memory and
/// reads the same lists a filter would, so out of core it is what a fixed predicate wants.
///
/// Positions (`for_each_neighbor_in`) count kept arcs only, as a filter's view does; finding
/// position `lo` walks the list from its start. `degree` and `num_arcs` are the graph's, upper
/// bounds of the kept ones: a caller may use them to bound its work, never to count arcs. The
/// view is a symmetric graph when the graph is symmetric and `keep(u, v) == keep(v, u)`.
pub struct PredicateView<'g, A: Adjacency, P> {
    adj: &'g A,
    keep: P,
}

impl<'g, A: Adjacency, P: Fn(Vertex, Vertex) -> bool + Sync> PredicateView<'g, A, P> {
    pub fn new(adj: &'g A, keep: P) -> Self {
        PredicateView { adj, keep }
    }

    /// The view as a graph without in-edges; `symmetric` as the caller knows it (see above).
    pub fn into_graph(self, symmetric: bool) -> Graph<Self> {
        Graph::new(self, None, symmetric)
    }
}

impl<A: Adjacency, P: Fn(Vertex, Vertex) -> bool + Sync> Adjacency for PredicateView<'_, A, P> {
    fn num_vertices(&self) -> usize {
        self.adj.num_vertices()
    }
    fn num_arcs(&self) -> u64 {
        self.adj.num_arcs()
    }
    #[inline]
    fn degree(&self, v: Vertex) -> usize {
        self.adj.degree(v)
    }
    fn is_weighted(&self) -> bool {
        self.adj.is_weighted()
    }
    #[inline]
    fn for_each_neighbor<F: FnMut(Vertex)>(&self, v: Vertex, mut f: F) {
        self.adj.for_each_neighbor(v, |u| {
            if (self.keep)(v, u) {
                f(u)
            }
        })
    }
    fn for_each_neighbor_in<F: FnMut(Vertex, f64)>(
        &self,
        v: Vertex,
        lo: usize,
        hi: usize,
        mut f: F,
    ) {
        if lo >= hi {
            return;
        }
        let mut position = 0;
        self.adj.try_for_each_weighted(v, |u, w| {
            if (self.keep)(v, u) {
                if position >= lo {
                    f(u, w);
                }
                position += 1;
            }
            position < hi
        });
    }
    fn for_each_weighted<F: FnMut(Vertex, f64)>(&self, v: Vertex, mut f: F) {
        self.adj.for_each_weighted(v, |u, w| {
            if (self.keep)(v, u) {
                f(u, w)
            }
        })
    }
    #[inline]
    fn try_for_each_neighbor<F: FnMut(Vertex) -> bool>(&self, v: Vertex, mut f: F) -> bool {
        self.adj
            .try_for_each_neighbor(v, |u| !(self.keep)(v, u) || f(u))
    }
    fn try_for_each_weighted<F: FnMut(Vertex, f64) -> bool>(&self, v: Vertex, mut f: F) -> bool {
        self.adj
            .try_for_each_weighted(v, |u, w| !(self.keep)(v, u) || f(u, w))
    }
}
