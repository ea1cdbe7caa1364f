//! Articulation points and biconnected components of a symmetric graph, by the Tarjan–Vishkin
//! reduction to connectivity as in GBBS and Sage (§4.3.2), connectivity running on a view of the
//! graph that leaves out the edges it must not see. Written against [`Traversal`]: the lists
//! are read in four passes' worth of planned reads (connectivity, the search's levels, low and
//! high, connectivity on the view), in memory and within a budget alike.
//!
//! 1. A BFS forest, one tree per connected component, rooted at its smallest vertex (the
//!    search's levels from all roots at once, [`search_levels`]); then subtree sizes bottom-up
//!    and preorder numbers top-down, level by level, from the parents alone (each child takes
//!    the next interval of its parent's), so the subtree of v is the interval
//!    [pre(v), pre(v) + size(v)); then, in one pass over the lists, low(v) and high(v): the
//!    smallest and largest preorder number reachable from v's subtree by one non-tree edge (or
//!    inside it), closed over subtrees bottom-up.
//! 2. In a BFS tree every non-tree edge joins two vertices neither of which is an ancestor of
//!    the other (their depths differ by at most one), so Tarjan–Vishkin's auxiliary graph on
//!    tree edges becomes a subgraph of G on the non-root vertices, each standing for the tree
//!    edge to its parent: keep every non-tree edge, and keep the tree edge p–c (p not a root)
//!    iff c's subtree has an edge leaving p's subtree, i.e. low(c) < pre(p) or high(c) ≥
//!    pre(p) + size(p). Connectivity runs on the kept edges: a [`PredicateView`] decides each
//!    arc as it is read. Sage keeps a graph filter here, but the predicate is fixed once the
//!    numbering is done, so its bits would only record what the predicate says again (the
//!    filter was 497 MiB of the 945 MiB heap peak on Kronecker 24).
//! 3. The component of a non-root v is the biconnected component of the edge (parent(v), v); a
//!    non-tree edge belongs to its ends' common component. So the number of biconnected
//!    components is the number of components among non-root vertices, and v is an articulation
//!    point iff its edges lie in two components: a child's differs from v's own (non-root), or
//!    two children's differ (root). The children are known from the parents: no list is read.
//!
//! Both answers are unique, so they are the same for every thread count and engine (the order
//! of siblings in the preorder may differ from run to run; no answer depends on it). Isolated
//! vertices and self-loops belong to no biconnected component. State: parent, level order,
//! preorder, size, low, high and connectivity's forest per vertex: O(n) words.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::ooc::ScanSpec;
use vastgraph_engine::{Adjacency, Bitmap, Graph, PredicateView, Traversal, Vertex};

use crate::bfs::{search_levels, Searched};
use crate::cc::{in_passes as connected_components, CcParams};
use crate::common::{read_error, require_symmetric, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): at its peak, connectivity's
/// forest on the view beside the parents, preorder, sizes, low and high (24 bytes a vertex),
/// the level order while low and high close, and the passes' bitmaps; the search's packed
/// words (8 bytes) beside the parents and the order while the forest is laid out.
pub const STATE: StateSize = StateSize::per_vertex(32);

const ALGORITHM: &str = "biconnectivity";

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct BiconnectivityParams {}

#[derive(Debug)]
pub struct BiconnectivityResult {
    /// 1 for the articulation points (cut vertices), 0 for the others.
    pub articulation: Vec<u8>,
    pub num_biconnected_components: u64,
    /// `iterations` = the search's levels; `edges_traversed` = the arcs the two connectivity
    /// runs linked and the low/high pass read (not the search's: how many ids a pull looks at
    /// depends on how the store blocks its lists); extra: `biconnected_components`,
    /// `articulation_points`, `components`.
    pub stats: RunStats,
}

/// A BFS forest: parents (a root is its own) and the vertices level by level.
struct Forest {
    parent: Vec<Vertex>,
    /// Vertices by depth, each level in ascending order; `levels[i]..levels[i + 1]` is level i
    /// (level 0: the roots).
    order: Vec<Vertex>,
    levels: Vec<usize>,
}

impl Forest {
    /// The forest the search's packed `depth << 32 | parent` words describe (every vertex
    /// reached: each component holds a source).
    fn from_words(words: &[std::sync::atomic::AtomicU64]) -> Forest {
        let depth = |v: usize| {
            let word = words[v].load(Relaxed);
            debug_assert_ne!(word, crate::bfs::NO_PARENT, "vertex {v} outside the forest");
            (word >> 32) as usize
        };
        let parent: Vec<Vertex> = words
            .par_iter()
            .map(|w| w.load(Relaxed) as Vertex)
            .collect();
        let deepest = (0..words.len()).into_par_iter().map(depth).max();
        // A counting sort by depth, in one sequential sweep: the levels come out in ascending
        // order, and a graph of many levels (a path) costs no histogram per task.
        let mut levels = vec![0usize; deepest.unwrap_or(0) + 2];
        for v in 0..words.len() {
            levels[depth(v) + 1] += 1;
        }
        for i in 1..levels.len() {
            levels[i] += levels[i - 1];
        }
        let mut cursor = levels.clone();
        let mut order = vec![0; words.len()];
        for v in 0..words.len() {
            let d = depth(v);
            order[cursor[d]] = v as Vertex;
            cursor[d] += 1;
        }
        Forest {
            parent,
            order,
            levels,
        }
    }
    fn depth(&self) -> usize {
        self.levels.len() - 1
    }
    fn level(&self, i: usize) -> &[Vertex] {
        &self.order[self.levels[i]..self.levels[i + 1]]
    }
    #[inline]
    fn parent(&self, v: Vertex) -> Vertex {
        self.parent[v as usize]
    }
}

/// Per vertex: preorder number, subtree size, low and high.
struct Numbering {
    pre: Vec<AtomicU32>,
    size: Vec<AtomicU32>,
    low: Vec<AtomicU32>,
    high: Vec<AtomicU32>,
}

/// Sizes, preorder, and low/high in one pass over the lists. Returns the numbering and the
/// arcs read.
fn number<G: Traversal>(g: &G, forest: &Forest) -> Result<(Numbering, u64), AlgoError> {
    let n = g.num_vertices();
    let depth = forest.depth();
    let atomic = |x: u32| {
        (0..n)
            .into_par_iter()
            .map(|_| AtomicU32::new(x))
            .collect::<Vec<_>>()
    };
    let (size, pre) = (atomic(1), atomic(0));
    // Sizes bottom-up: a level is complete when the level below has added into it.
    for i in (1..depth).rev() {
        forest.level(i).par_iter().for_each(|&v| {
            let s = size[v as usize].load(Relaxed);
            size[forest.parent(v) as usize].fetch_add(s, Relaxed);
        });
    }
    // Preorder top-down: the roots one after another, then each child takes the next interval
    // of its parent's, after the parent itself (`next` holds where that is; low is not yet
    // computed and lends its words).
    let next = atomic(0);
    let mut first = 0;
    for &r in forest.level(0) {
        pre[r as usize].store(first, Relaxed);
        next[r as usize].store(first + 1, Relaxed);
        first += size[r as usize].load(Relaxed);
    }
    for i in 1..depth {
        forest.level(i).par_iter().for_each(|&c| {
            let s = size[c as usize].load(Relaxed);
            let at = next[forest.parent(c) as usize].fetch_add(s, Relaxed);
            pre[c as usize].store(at, Relaxed);
            next[c as usize].store(at + 1, Relaxed);
        });
    }
    // low / high: each vertex over its own non-tree neighbours (a long list in pieces, each
    // folded in), then bottom-up over subtrees.
    let (low, high) = (next, atomic(0));
    (0..n).into_par_iter().for_each(|v| {
        let p = pre[v].load(Relaxed);
        low[v].store(p, Relaxed);
        high[v].store(p, Relaxed);
    });
    let pre_of = |v: Vertex| pre[v as usize].load(Relaxed);
    let arcs = g
        .pass(&ScanSpec::ids_only(&g.vertices_with_arcs()), |v, ids, _| {
            let p = forest.parent(v);
            let (mut lo, mut hi) = (u32::MAX, 0);
            for &w in ids {
                if w != p {
                    lo = lo.min(pre_of(w));
                    hi = hi.max(pre_of(w));
                }
            }
            low[v as usize].fetch_min(lo, Relaxed);
            high[v as usize].fetch_max(hi, Relaxed);
        })
        .map_err(read_error(ALGORITHM))?;
    for i in (1..depth).rev() {
        forest.level(i).par_iter().for_each(|&v| {
            let p = forest.parent(v) as usize;
            low[p].fetch_min(low[v as usize].load(Relaxed), Relaxed);
            high[p].fetch_max(high[v as usize].load(Relaxed), Relaxed);
        });
    }
    Ok((
        Numbering {
            pre,
            size,
            low,
            high,
        },
        arcs,
    ))
}

pub fn biconnectivity<G: Traversal>(
    g: &G,
    _params: &BiconnectivityParams,
) -> Result<BiconnectivityResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();

    let components = connected_components(g, &CcParams::default())?;
    let num_components = components.num_components;
    let mut edges = components.stats.edges_traversed;
    let labels = components.labels;
    let roots = Bitmap::from_fn(n, |v| labels[v] == v as Vertex);
    drop(labels);
    let Searched {
        reached,
        stats: search,
        ..
    } = search_levels(g, roots).map_err(read_error(ALGORITHM))?;
    let forest = Forest::from_words(&reached);
    drop(reached);
    let (num, arcs) = number(g, &forest)?;
    edges += arcs;
    let Forest { parent, order, .. } = forest;
    drop(order);
    let parent_of = |v: Vertex| parent[v as usize];
    let is_root = |v: Vertex| parent_of(v) == v;
    let get = |a: &[AtomicU32], v: Vertex| a[v as usize].load(Relaxed);

    // The auxiliary graph: non-tree edges, and tree edges p–c with p not a root whose child's
    // subtree reaches outside p's subtree.
    let keep = |u: Vertex, v: Vertex| {
        if u == v {
            return false;
        }
        let (p, c) = if parent_of(v) == u {
            (u, v)
        } else if parent_of(u) == v {
            (v, u)
        } else {
            return true;
        };
        !is_root(p)
            && (get(&num.low, c) < get(&num.pre, p)
                || get(&num.high, c) >= get(&num.pre, p) + get(&num.size, p))
    };
    // `keep` is symmetric: a tree edge is decided by its child whichever end asks.
    let kept = PredicateView::new(g, keep, true);
    let aux = connected_components(&kept, &CcParams::default())?;
    edges += aux.stats.edges_traversed;
    let labels = aux.labels;
    drop(num);

    // v is split when a child's component differs from v's own (non-root) or from another
    // child's (root: the first child seen stands for the others).
    const NONE: u32 = u32::MAX;
    let first_child: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(NONE))
        .collect();
    let split = Bitmap::new(n);
    (0..n as Vertex).into_par_iter().for_each(|c| {
        let p = parent_of(c);
        if p == c {
            return;
        }
        let l = labels[c as usize];
        let other = match is_root(p) {
            false => labels[p as usize],
            true => match first_child[p as usize].compare_exchange(NONE, l, Relaxed, Relaxed) {
                Ok(_) => l,
                Err(first) => first,
            },
        };
        if other != l {
            split.set_atomic(p as usize);
        }
    });
    let articulation: Vec<u8> = (0..n).into_par_iter().map(|v| split.get(v) as u8).collect();
    let num_biconnected_components = (0..n as Vertex)
        .into_par_iter()
        .filter(|&v| !is_root(v) && labels[v as usize] == v)
        .count() as u64;
    let articulation_points = articulation.par_iter().map(|&a| a as u64).sum::<u64>();
    let stats = RunStats {
        iterations: search.iterations,
        edges_traversed: edges,
        ..Default::default()
    }
    .with("biconnected_components", num_biconnected_components)
    .with("articulation_points", articulation_points)
    .with("components", num_components);
    Ok(BiconnectivityResult {
        articulation,
        num_biconnected_components,
        stats,
    })
}

/// Articulation points and the number of biconnected components by Hopcroft and Tarjan's
/// depth-first search (iterative, sequential): an independent reference.
pub fn serial_biconnectivity<A: Adjacency>(adj: &A) -> (Vec<u8>, u64) {
    let n = adj.num_vertices();
    const UNSEEN: u32 = u32::MAX;
    let mut disc = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut articulation = vec![0u8; n];
    let mut components = 0u64;
    let mut time = 0u32;
    let lists: Vec<Vec<Vertex>> = (0..n as Vertex)
        .map(|v| {
            let mut l = Vec::with_capacity(adj.degree(v));
            adj.for_each_neighbor(v, |u| {
                if u != v {
                    l.push(u)
                }
            });
            l
        })
        .collect();
    // Stack frames: (vertex, parent, next neighbour index).
    let mut stack: Vec<(Vertex, Vertex, usize)> = Vec::new();
    for root in 0..n as Vertex {
        if disc[root as usize] != UNSEEN || lists[root as usize].is_empty() {
            continue;
        }
        disc[root as usize] = time;
        low[root as usize] = time;
        time += 1;
        let mut root_children = 0;
        stack.push((root, root, 0));
        while let Some(&mut (v, parent, ref mut next)) = stack.last_mut() {
            if let Some(&w) = lists[v as usize].get(*next) {
                *next += 1;
                if disc[w as usize] == UNSEEN {
                    disc[w as usize] = time;
                    low[w as usize] = time;
                    time += 1;
                    stack.push((w, v, 0));
                } else if w != parent {
                    low[v as usize] = low[v as usize].min(disc[w as usize]);
                }
                continue;
            }
            stack.pop();
            if v == root {
                continue;
            }
            low[parent as usize] = low[parent as usize].min(low[v as usize]);
            if low[v as usize] >= disc[parent as usize] {
                // The edge to v closes a biconnected component at `parent`.
                components += 1;
                if parent == root {
                    root_children += 1;
                } else {
                    articulation[parent as usize] = 1;
                }
            }
        }
        if root_children >= 2 {
            articulation[root as usize] = 1;
        }
    }
    (articulation, components)
}

/// Compares the articulation points and the number of biconnected components with
/// [`serial_biconnectivity`].
pub fn verify_biconnectivity<A: Adjacency>(
    g: &Graph<A>,
    result: &BiconnectivityResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    if result.articulation.len() != n {
        return fail(format!(
            "{} flags for {n} vertices",
            result.articulation.len()
        ));
    }
    let (want, components) = serial_biconnectivity(g.out());
    if let Some(v) = (0..n).find(|&v| result.articulation[v] != want[v]) {
        return fail(format!(
            "vertex {v}: articulation flag {}, expected {}",
            result.articulation[v], want[v]
        ));
    }
    if result.num_biconnected_components != components {
        return fail(format!(
            "{} biconnected components, expected {components}",
            result.num_biconnected_components
        ));
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Params};
use crate::registry::Values;

/// `biconnectivity` in the registry.
pub struct Biconnectivity;

impl Algorithm for Biconnectivity {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "biconnectivity",
        summary: "articulation points (1 = cut vertex); biconnected components in the stats",
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
        state_in_passes: Some(|n, _| Some(STATE.bytes(n, 0, 1))),
    };
    type Params = BiconnectivityParams;
    type Result = BiconnectivityResult;
    fn params<A: Adjacency>(
        _given: &Params,
        _g: &Graph<A>,
    ) -> Result<BiconnectivityParams, AlgoError> {
        Ok(BiconnectivityParams::default())
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &BiconnectivityParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<BiconnectivityResult, AlgoError> {
        biconnectivity(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        _q: &BiconnectivityParams,
        r: &BiconnectivityResult,
    ) -> Result<(), VerifyError> {
        verify_biconnectivity(g, r)
    }
    fn output(r: BiconnectivityResult, _q: &BiconnectivityParams) -> (Option<Values>, RunStats) {
        (Some(Values::U8(r.articulation)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn bowtie_path_and_square() {
        // Two triangles sharing 0 (a bow tie), a path 3-7-8 hanging off vertex 3, a square
        // 9-10-11-12 and an isolated vertex 13.
        let edges = [
            (0, 1),
            (1, 2),
            (0, 2),
            (0, 3),
            (3, 4),
            (0, 4),
            (3, 7),
            (7, 8),
            (9, 10),
            (10, 11),
            (11, 12),
            (12, 9),
        ];
        let g = InMemoryGraph::from_edges(14, &edges, true);
        let r = biconnectivity(&g.view(), &BiconnectivityParams::default()).unwrap();
        let cut: Vec<usize> = (0..14).filter(|&v| r.articulation[v] == 1).collect();
        assert_eq!(cut, vec![0, 3, 7]);
        // {0,1,2}, {0,3,4}, {3,7}, {7,8}, the square.
        assert_eq!(r.num_biconnected_components, 5);
        verify_biconnectivity(&g.view(), &r).unwrap();
        let mut bad = r;
        bad.num_biconnected_components = 4;
        assert!(verify_biconnectivity(&g.view(), &bad).is_err());
    }
}
