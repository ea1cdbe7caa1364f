//! Spanning forest of a symmetric graph by parallel Borůvka: every round, each component picks
//! its cheapest edge to another component and hooks along it, until no component has one.
//!
//! "Cheapest" is the lexicographic order of (min(u,v), max(u,v)): all edge keys differ, so the
//! choices form no cycle other than two components picking the same edge (the smaller root then
//! stays a root), and the result is the unique minimum spanning forest under that order, the
//! same forest a serial Kruskal pass over the edges in lexicographic order builds, for every
//! thread count. At most ⌈log2 n⌉ rounds. A vertex all of whose neighbours are already in its
//! component never has an outgoing edge again and leaves the active list. State: a component
//! label and a best-edge word per vertex, the active list: O(n).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::{Adjacency, Graph, Vertex};

use crate::common::{require_symmetric, AlgoError, RunStats, StateSize, VerifyError};
use crate::serial_check::{check_edges_of, components, UnionFind};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): the forest's parents and the edges
/// it outputs (two ids each).
pub const STATE: StateSize = StateSize::per_vertex(64);

const ALGORITHM: &str = "spanning-forest";

const NO_EDGE: u64 = u64::MAX;

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SpanningForestParams {}

#[derive(Debug)]
pub struct SpanningForestResult {
    /// Forest edges, each as [u, v] with u < v, sorted: n − (number of components) of them.
    pub edges: Vec<[u32; 2]>,
    /// `iterations` = Borůvka rounds; extra: `components`.
    pub stats: RunStats,
}

#[inline]
fn edge_key(u: Vertex, v: Vertex) -> u64 {
    ((u.min(v) as u64) << 32) | u.max(v) as u64
}

#[inline]
fn edge_of(key: u64) -> [u32; 2] {
    [(key >> 32) as u32, key as u32]
}

pub fn spanning_forest<A: Adjacency>(
    g: &Graph<A>,
    _params: &SpanningForestParams,
) -> Result<SpanningForestResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    let out = g.out();
    let comp: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
    let best: Vec<AtomicU64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU64::new(NO_EDGE))
        .collect();
    let label = |v: Vertex| comp[v as usize].load(Relaxed);
    let mut active: Vec<Vertex> = (0..n as Vertex)
        .into_par_iter()
        .filter(|&v| out.degree(v) > 0)
        .collect();
    let mut forest: Vec<[u32; 2]> = Vec::new();
    let (mut rounds, mut scanned) = (0u64, 0u64);

    loop {
        // 1. Every component's cheapest outgoing edge; vertices with none leave for good.
        scanned += active
            .par_iter()
            .map(|&u| out.degree(u) as u64)
            .sum::<u64>();
        active = active
            .into_par_iter()
            .filter(|&u| {
                let cu = label(u);
                let mut cheapest = NO_EDGE;
                out.for_each_neighbor(u, |v| {
                    if label(v) != cu {
                        cheapest = cheapest.min(edge_key(u, v));
                    }
                });
                if cheapest != NO_EDGE {
                    best[cu as usize].fetch_min(cheapest, Relaxed);
                }
                cheapest != NO_EDGE
            })
            .collect();
        let roots: Vec<Vertex> = (0..n as Vertex)
            .into_par_iter()
            .filter(|&c| label(c) == c && best[c as usize].load(Relaxed) != NO_EDGE)
            .collect();
        if roots.is_empty() {
            break;
        }
        rounds += 1;

        // 2. Hook each root along its edge, except the smaller root of a pair that chose the
        //    same edge. Decided from a snapshot, then applied, so no hook sees another's write.
        let hooks: Vec<(Vertex, Vertex, u64)> = roots
            .par_iter()
            .filter_map(|&c| {
                let key = best[c as usize].load(Relaxed);
                let [a, b] = edge_of(key);
                let other = if label(a) == c { label(b) } else { label(a) };
                let mutual = best[other as usize].load(Relaxed) == key;
                (!(mutual && c < other)).then_some((c, other, key))
            })
            .collect();
        forest.par_extend(hooks.par_iter().map(|&(_, _, key)| edge_of(key)));
        hooks
            .par_iter()
            .for_each(|&(c, other, _)| comp[c as usize].store(other, Relaxed));
        roots
            .par_iter()
            .for_each(|&c| best[c as usize].store(NO_EDGE, Relaxed));

        // 3. Pointer jumping among the old roots until each points at its tree's root, then one
        //    jump for everybody else (whose label is an old root).
        loop {
            let changed = roots
                .par_iter()
                .map(|&c| {
                    let p = label(c);
                    let pp = label(p);
                    if pp != p {
                        comp[c as usize].store(pp, Relaxed);
                        true
                    } else {
                        false
                    }
                })
                .reduce(|| false, |a, b| a | b);
            if !changed {
                break;
            }
        }
        (0..n).into_par_iter().for_each(|v| {
            let p = comp[v].load(Relaxed);
            comp[v].store(label(p), Relaxed);
        });
    }

    forest.par_sort_unstable();
    let components = (n - forest.len()) as u64;
    let stats = RunStats {
        iterations: rounds,
        edges_traversed: scanned,
        ..Default::default()
    }
    .with("components", components);
    Ok(SpanningForestResult {
        edges: forest,
        stats,
    })
}

/// Checks that the edges are edges of G (as [u, v], u < v), contain no cycle (union-find), and
/// number n − c, c being G's connected components (serial union-find over G): together, a
/// spanning forest.
pub fn verify_spanning_forest<A: Adjacency>(
    g: &Graph<A>,
    result: &SpanningForestResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    if let Err(m) = check_edges_of(g, &result.edges) {
        return fail(m);
    }
    let mut forest = UnionFind::new(n);
    for &[u, v] in &result.edges {
        if !forest.union(u, v) {
            return fail(format!("edge [{u}, {v}] closes a cycle"));
        }
    }
    let mut uf = components(g.out());
    let c = (0..n as Vertex).filter(|&v| uf.find(v) == v).count();
    if result.edges.len() != n - c {
        return fail(format!(
            "{} edges, but a spanning forest of {n} vertices in {c} components has {}",
            result.edges.len(),
            n - c
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn two_triangles_and_an_isolated_vertex() {
        let g =
            InMemoryGraph::from_edges(7, &[(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)], true);
        let r = spanning_forest(&g.view(), &SpanningForestParams::default()).unwrap();
        // Kruskal in lexicographic order keeps (0,1), (0,2) and (3,4), (3,5).
        assert_eq!(r.edges, vec![[0, 1], [0, 2], [3, 4], [3, 5]]);
        assert_eq!(r.stats.extra["components"].as_u64(), Some(3));
        verify_spanning_forest(&g.view(), &r).unwrap();
        let mut bad = r;
        bad.edges[1] = [1, 2];
        bad.edges.push([0, 2]);
        assert!(verify_spanning_forest(&g.view(), &bad).is_err());
    }
}
