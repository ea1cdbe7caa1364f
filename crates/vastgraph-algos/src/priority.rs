//! Vertex priorities for the greedy algorithms that run as parallel rounds (MIS, colouring): a
//! strict total order on vertices, from a seeded hash, so that "all higher-priority neighbours are
//! decided" defines the same result as the sequential greedy in priority order, for every thread
//! count.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::{Adjacency, EdgeMapFn, Vertex};

use crate::hashing::seeded_hash;

/// Bits of the rank left for the hash below the log-degree class.
const HASH_BITS: u32 = 58;

pub struct VertexPriority {
    /// Compared first; the vertex id breaks the (rare) ties, so the order is strict.
    rank: Vec<u64>,
}

impl VertexPriority {
    /// A uniformly random order determined by `seed`.
    pub fn random(n: usize, seed: u64) -> Self {
        VertexPriority {
            rank: (0..n as u64)
                .into_par_iter()
                .map(|v| seeded_hash(seed, v))
                .collect(),
        }
    }

    /// Largest-log-degree-first (Hasenplaugh et al.): vertices in a higher ⌈log2 degree⌉ class
    /// come first, a seeded random order within a class.
    pub fn largest_log_degree_first<A: Adjacency>(adj: &A, seed: u64) -> Self {
        Self::largest_log_degree_first_by(adj.num_vertices(), |v| adj.degree(v), seed)
    }

    /// [`Self::largest_log_degree_first`] of `n` vertices of the given degrees.
    pub fn largest_log_degree_first_by(
        n: usize,
        degree: impl Fn(Vertex) -> usize + Sync,
        seed: u64,
    ) -> Self {
        let rank = (0..n)
            .into_par_iter()
            .map(|v| {
                let class = ceil_log2(degree(v as Vertex)) as u64;
                (class << HASH_BITS) | (seeded_hash(seed, v as u64) >> (64 - HASH_BITS))
            })
            .collect();
        VertexPriority { rank }
    }

    /// Whether `u` comes before `v`.
    #[inline]
    pub fn outranks(&self, u: Vertex, v: Vertex) -> bool {
        (self.rank[u as usize], u) > (self.rank[v as usize], v)
    }

    /// The vertices in priority order (highest first).
    pub fn order(&self) -> Vec<Vertex> {
        let mut ids: Vec<Vertex> = (0..self.rank.len() as Vertex).collect();
        ids.par_sort_unstable_by(|&a, &b| {
            (self.rank[b as usize], b).cmp(&(self.rank[a as usize], a))
        });
        ids
    }

    /// For every vertex, how many of its neighbours outrank it (self-loops ignored).
    pub fn count_higher_neighbors<A: Adjacency>(&self, adj: &A) -> Vec<AtomicU32> {
        (0..adj.num_vertices() as Vertex)
            .into_par_iter()
            .map(|v| {
                let mut higher = 0;
                adj.for_each_neighbor(v, |u| higher += (u != v && self.outranks(u, v)) as u32);
                AtomicU32::new(higher)
            })
            .collect()
    }
}

/// The edge-map step of the priority rounds: a vertex that is done releases the lower-priority
/// neighbours waiting for it; those with nothing left to wait for (and still `open`) are output.
pub(crate) struct ReleaseLower<'a, Open: Fn(Vertex) -> bool + Sync> {
    pub priority: &'a VertexPriority,
    /// Higher-priority neighbours not yet done, per vertex.
    pub waiting: &'a [AtomicU32],
    pub open: Open,
}

impl<Open: Fn(Vertex) -> bool + Sync> EdgeMapFn for ReleaseLower<'_, Open> {
    fn update(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        self.update_atomic(s, d, 1.0)
    }
    fn update_atomic(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        self.priority.outranks(s, d) && self.waiting[d as usize].fetch_sub(1, Relaxed) == 1
    }
    fn cond(&self, d: Vertex) -> bool {
        self.waiting[d as usize].load(Relaxed) > 0 && (self.open)(d)
    }
}

/// ⌈log2 d⌉, with 0 for d ≤ 1.
fn ceil_log2(d: usize) -> u32 {
    usize::BITS - d.saturating_sub(1).leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn log_degree_classes_and_strict_order() {
        assert_eq!(
            [0, 1, 2, 3, 4, 5, 8, 9].map(ceil_log2),
            [0, 0, 1, 2, 2, 3, 3, 4]
        );
        // A star: the centre (degree 5, class 3) outranks every leaf (degree 1, class 0).
        let g = InMemoryGraph::from_edges(6, &[(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)], true);
        let p = VertexPriority::largest_log_degree_first(g.view().out(), 3);
        for leaf in 1..6 {
            assert!(p.outranks(0, leaf) && !p.outranks(leaf, 0));
        }
        let order = p.order();
        assert_eq!(order[0], 0);
        for w in order.windows(2) {
            assert!(p.outranks(w[0], w[1]));
        }
    }
}
