//! [`super::TcMethod::Filter`]: triangle counting through Sage's graph filter (§4.2.3, App. C.4).
//!
//! Every arc u→v with rank(u) < rank(v) (rank = (degree, id)) is kept in an out-edges-only
//! filter: one bit per arc of the graph, O(m) bits, in which u's list is N⁺(u). Triangles are
//! counted at their middle vertex as by the marking method, but a lower neighbour u is
//! intersected through its filtered N⁺(u) rather than its whole list: on a compressed backend
//! only the blocks of u that still hold higher neighbours are decoded (the filter has compacted
//! the others away), which plays the part of the marking method's O(n) cache of N⁺ lists for
//! every vertex at once.

use std::sync::atomic::AtomicU64;

use vastgraph_engine::{make_filter, Adjacency, FilterStats, GraphFilter, Vertex};

use super::{count_at_middle, count_until, rank, sum_over_vertices, Apex, CountMarked};

/// (triangles, lower neighbours examined, the filter's statistics); per-vertex counts go to
/// `counts`.
pub(super) fn count_all<A: Adjacency>(
    adj: &A,
    counts: Option<&[AtomicU64]>,
) -> (u64, u64, FilterStats) {
    let oriented = make_filter(adj, |u, v| rank(adj, u) < rank(adj, v), false);
    let (triangles, intersections) = sum_over_vertices(adj.num_vertices(), |v, s| {
        count_at_middle(adj, v, s, &oriented, counts)
    });
    (triangles, intersections, oriented.stats())
}

impl<A: Adjacency> CountMarked for GraphFilter<'_, A> {
    #[inline]
    fn count_marked<T: Apex>(
        &self,
        u: Vertex,
        higher: &[Vertex],
        marked: &[u64],
        apex: &mut T,
    ) -> u64 {
        let last = *higher.last().expect("higher is not empty");
        let mut count = 0;
        self.try_for_each_active(u, count_until(&mut count, last, marked, apex));
        count
    }
}
