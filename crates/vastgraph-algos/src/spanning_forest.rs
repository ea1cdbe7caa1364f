//! Spanning forest of a symmetric graph by parallel Borůvka: every round, each component picks
//! its cheapest edge to another component and hooks along it, until no component has one.
//!
//! "Cheapest" is the lexicographic order of (min(u,v), max(u,v)): all edge keys differ, so the
//! choices form no cycle other than two components picking the same edge (the smaller root then
//! stays a root), and the result is the unique minimum spanning forest under that order, the
//! same forest a serial Kruskal pass over the edges in lexicographic order builds, for every
//! thread count, in memory or in passes over lists on disk. At most ⌈log2 n⌉ rounds, each one
//! pass ([`Traversal::pass`]) over the lists of the active vertices: a vertex all of whose
//! neighbours are already in its component never has an outgoing edge again and leaves them.
//!
//! State: a component label and a best-edge word per vertex, and bitmaps. A root that hooks
//! never becomes a root again, so its best-edge word keeps the forest edge it hooked along; the
//! forest is read from those words at the end. 20 bytes a vertex at most (with the output).

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::memory::huge_page_vec;
use vastgraph_engine::ooc::ScanSpec;
use vastgraph_engine::{Adjacency, Bitmap, Graph, Traversal, Vertex};

use crate::common::{read_error, require_symmetric, AlgoError, RunStats, StateSize, VerifyError};
use crate::serial_check::{check_edges_of, components, UnionFind};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): see [`state_in_passes`].
pub const STATE: StateSize = StateSize::per_vertex(21);

/// Bytes of state for `n` vertices: labels (4), best edges (8), the forest's edges at the end
/// (8, with the labels dropped first, so at most 4 + 8 + 8), and five bitmaps.
pub fn state_in_passes(n: u64) -> u64 {
    20 * n + 5 * n.div_ceil(64) * 8
}

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

pub fn spanning_forest<G: Traversal>(
    g: &G,
    _params: &SpanningForestParams,
) -> Result<SpanningForestResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    let comp: Vec<AtomicU32> = huge_page_vec(n, |v| AtomicU32::new(v as Vertex));
    // A root's cheapest edge out of its component during a round; a hooked root's forest edge.
    let best: Vec<AtomicU64> = huge_page_vec(n, |_| AtomicU64::new(NO_EDGE));
    let label = |v: Vertex| comp[v as usize].load(Relaxed);
    let mut active = Bitmap::from_fn(n, |v| g.degree(v as Vertex) > 0);
    let hooked = Bitmap::new(n);
    let (mut rounds, mut scanned) = (0u64, 0u64);

    loop {
        // 1. Every component's cheapest outgoing edge; vertices with none leave for good. A
        //    long list may come in pieces: each piece offers its cheapest.
        let still = Bitmap::new(n);
        scanned += g
            .pass(&ScanSpec::ids_only(&active), |u, neighbors, _| {
                let cu = label(u);
                let cheapest = neighbors
                    .iter()
                    .filter(|&&v| label(v) != cu)
                    .map(|&v| edge_key(u, v))
                    .min();
                if let Some(key) = cheapest {
                    best[cu as usize].fetch_min(key, Relaxed);
                    still.set_atomic(u as usize);
                }
            })
            .map_err(read_error(ALGORITHM))?;
        active = still;
        let roots = Bitmap::from_fn(n, |c| {
            label(c as Vertex) == c as Vertex && best[c].load(Relaxed) != NO_EDGE
        });
        if roots.count_ones() == 0 {
            break;
        }
        rounds += 1;

        // 2. Each root hooks along its edge, except the smaller root of a pair that chose the
        //    same edge: decided from the labels and best edges before any hook is made.
        // The end of root c's edge outside c's component. Only roots are written below, and
        // c's own members still point at c, so the end in c's component is recognised by its
        // label then too: the far end's label is never c, as two components that pick each
        // other's edges pick the same one.
        let far_end = |c: Vertex| {
            let [a, b] = edge_of(best[c as usize].load(Relaxed));
            if label(a) == c {
                b
            } else {
                a
            }
        };
        let hooking = Bitmap::from_fn(n, |c| {
            roots.get(c) && {
                let other = label(far_end(c as Vertex));
                let mutual = best[other as usize].load(Relaxed) == best[c].load(Relaxed);
                !(mutual && c < other as usize)
            }
        });
        // A hooking root points at the far end of its edge (pointer jumping below finds that
        // end's root).
        hooking.par_for_each_set(|c| {
            comp[c as usize].store(far_end(c), Relaxed);
            hooked.set_atomic(c as usize);
        });
        roots.par_for_each_set(|c| {
            if !hooking.get(c as usize) {
                best[c as usize].store(NO_EDGE, Relaxed);
            }
        });

        // 3. Pointer jumping among the old roots until each points at its tree's root, then one
        //    jump for everybody else (whose label is an old root).
        loop {
            let changed = AtomicBool::new(false);
            roots.par_for_each_set(|c| {
                let p = label(c);
                let pp = label(p);
                if pp != p {
                    comp[c as usize].store(pp, Relaxed);
                    changed.store(true, Relaxed);
                }
            });
            if !changed.into_inner() {
                break;
            }
        }
        (0..n).into_par_iter().for_each(|v| {
            let p = comp[v].load(Relaxed);
            comp[v].store(label(p), Relaxed);
        });
    }
    drop(comp);
    drop(active);

    let hooks = hooked.to_sorted_ids();
    drop(hooked);
    let mut forest: Vec<[u32; 2]> = hooks
        .par_iter()
        .map(|&c| edge_of(best[c as usize].load(Relaxed)))
        .collect();
    drop(hooks);
    drop(best);
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

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Params};
use crate::registry::Values;

/// `spanning-forest` in the registry.
pub struct SpanningForest;

impl Algorithm for SpanningForest {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "spanning-forest",
        summary: "spanning forest edges",
        params: &[],
        needs: Needs {
            symmetric: true,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: false,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[],
        state_in_passes: Some(|n, _| Some(state_in_passes(n))),
    };
    type Params = SpanningForestParams;
    type Result = SpanningForestResult;
    fn params<A: Adjacency>(
        _given: &Params,
        _g: &Graph<A>,
    ) -> Result<SpanningForestParams, AlgoError> {
        Ok(SpanningForestParams::default())
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &SpanningForestParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<SpanningForestResult, AlgoError> {
        spanning_forest(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        _q: &SpanningForestParams,
        r: &SpanningForestResult,
    ) -> Result<(), VerifyError> {
        verify_spanning_forest(g, r)
    }
    fn output(r: SpanningForestResult, _q: &SpanningForestParams) -> (Option<Values>, RunStats) {
        (
            Some(Values::Rows {
                data: r.edges.concat(),
                cols: 2,
            }),
            r.stats,
        )
    }
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
