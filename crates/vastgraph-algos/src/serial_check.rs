//! Plain sequential building blocks for the verifiers (never used by the parallel kernels, so a
//! bug in a kernel cannot hide behind the same bug in its check).

use vastgraph_engine::{Adjacency, Graph, Vertex};

/// Union-find with path halving and union by size.
pub(crate) struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    pub(crate) fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    pub(crate) fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Joins the sets of `a` and `b`; false if they were already one set.
    pub(crate) fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut ra, mut rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        if self.size[ra as usize] < self.size[rb as usize] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb as usize] = ra;
        self.size[ra as usize] += self.size[rb as usize];
        true
    }
}

/// Whether the arc u→v exists (neighbour lists are sorted, so a slice is binary-searched).
pub(crate) fn has_arc<A: Adjacency>(adj: &A, u: Vertex, v: Vertex) -> bool {
    match adj.neighbor_slice(u) {
        Some(s) => s.binary_search(&v).is_ok(),
        None => !adj.try_for_each_neighbor(u, |x| x != v),
    }
}

/// Connected components of a symmetric adjacency as union-find sets.
pub(crate) fn components<A: Adjacency>(adj: &A) -> UnionFind {
    let mut uf = UnionFind::new(adj.num_vertices());
    for u in 0..adj.num_vertices() as Vertex {
        adj.for_each_neighbor(u, |v| {
            uf.union(u, v);
        });
    }
    uf
}

/// Adjacency lists of an edge list, both directions (for BFS inside a spanner or forest).
pub(crate) fn undirected_lists(n: usize, edges: &[[Vertex; 2]]) -> Vec<Vec<Vertex>> {
    let mut lists = vec![Vec::new(); n];
    for &[u, v] in edges {
        lists[u as usize].push(v);
        lists[v as usize].push(u);
    }
    lists
}

/// Checks every edge is [u, v] with u < v < n and an edge of G.
pub(crate) fn check_edges_of<A: Adjacency>(g: &Graph<A>, edges: &[[u32; 2]]) -> Result<(), String> {
    let n = g.num_vertices();
    for &[u, v] in edges {
        if u >= v || v as usize >= n {
            return Err(format!(
                "edge [{u}, {v}] is not an ordered pair of distinct vertices below {n}"
            ));
        }
        if !has_arc(g.out(), u, v) {
            return Err(format!("edge [{u}, {v}] is not an edge of the graph"));
        }
    }
    Ok(())
}
