//! Articulation points and biconnected components of a symmetric graph, by the Tarjan–Vishkin
//! reduction to connectivity as in GBBS and Sage (§4.3.2), connectivity running on a view of the
//! graph that leaves out the edges it must not see.
//!
//! 1. A BFS forest, one tree per connected component, rooted at its smallest vertex; then
//!    preorder numbers and subtree sizes (level by level), so the subtree of v is the interval
//!    [pre(v), pre(v) + size(v)); then low(v) and high(v), the smallest and largest preorder
//!    number reachable from v's subtree by one non-tree edge (or inside it).
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
//!    two children's differ (root).
//!
//! Both answers are unique, so they are the same for every thread count. Isolated vertices and
//! self-loops belong to no biconnected component. State: parent, order, preorder, size, low,
//! high, connectivity's forest and label per vertex: O(n) words.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::{
    edge_map, Adjacency, EdgeMapCounters, EdgeMapFn, EdgeMapOptions, Graph, PredicateView, Vertex,
    VertexSubset,
};

use crate::cc::{connected_components, CcParams};
use crate::common::{require_symmetric, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): a spanning forest, its Euler-tour
/// numbering, low/high values and connectivity's forest and labels.
pub const STATE: StateSize = StateSize::per_vertex(36);

const ALGORITHM: &str = "biconnectivity";

const NO_PARENT: u32 = u32::MAX;

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct BiconnectivityParams {}

#[derive(Debug)]
pub struct BiconnectivityResult {
    /// 1 for the articulation points (cut vertices), 0 for the others.
    pub articulation: Vec<u8>,
    pub num_biconnected_components: u64,
    /// `iterations` = BFS levels; extra: `biconnected_components`, `articulation_points`,
    /// `components`.
    pub stats: RunStats,
}

/// BFS step: claim unvisited vertices for the frontier vertex reaching them first.
struct Claim<'a> {
    parent: &'a [AtomicU32],
}

impl EdgeMapFn for Claim<'_> {
    fn update(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        self.parent[d as usize].store(s, Relaxed);
        true
    }
    fn update_atomic(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        self.parent[d as usize]
            .compare_exchange(NO_PARENT, s, Relaxed, Relaxed)
            .is_ok()
    }
    fn cond(&self, d: Vertex) -> bool {
        self.parent[d as usize].load(Relaxed) == NO_PARENT
    }
}

/// A BFS forest: parents (a root is its own) and the vertices level by level.
struct Forest {
    parent: Vec<AtomicU32>,
    /// Vertices in BFS order; `levels[i]..levels[i + 1]` is level i (level 0: the roots).
    order: Vec<Vertex>,
    levels: Vec<usize>,
}

impl Forest {
    fn level(&self, i: usize) -> &[Vertex] {
        &self.order[self.levels[i]..self.levels[i + 1]]
    }
    #[inline]
    fn parent(&self, v: Vertex) -> Vertex {
        self.parent[v as usize].load(Relaxed)
    }
    #[inline]
    fn is_root(&self, v: Vertex) -> bool {
        self.parent(v) == v
    }
}

fn bfs_forest<A: Adjacency>(
    g: &Graph<A>,
    roots: Vec<Vertex>,
    counters: &EdgeMapCounters,
) -> Forest {
    let n = g.num_vertices();
    let parent: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(NO_PARENT))
        .collect();
    roots
        .par_iter()
        .for_each(|&r| parent[r as usize].store(r, Relaxed));
    let mut order = Vec::with_capacity(n);
    let mut levels = vec![0];
    let opts = EdgeMapOptions::with_counters(counters);
    let claim = Claim { parent: &parent };
    let mut frontier = VertexSubset::from_ids(n, roots);
    // Level 0 exists even without roots (a graph without vertices), so that every level
    // below it can be asked for.
    loop {
        let next = edge_map(g, &frontier, &claim, &opts);
        order.extend(frontier.to_sorted_ids());
        levels.push(order.len());
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    Forest {
        parent,
        order,
        levels,
    }
}

/// Per vertex: preorder number, subtree size, low and high.
struct Numbering {
    pre: Vec<AtomicU32>,
    size: Vec<AtomicU32>,
    low: Vec<AtomicU32>,
    high: Vec<AtomicU32>,
}

fn number<A: Adjacency>(adj: &A, forest: &Forest) -> Numbering {
    let n = adj.num_vertices();
    let depth = forest.levels.len() - 1;
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
    // Preorder top-down: the roots one after another, then the children of each vertex in
    // their order in its neighbour list, each after the subtrees of the ones before it.
    let mut next = 0;
    for &r in forest.level(0) {
        pre[r as usize].store(next, Relaxed);
        next += size[r as usize].load(Relaxed);
    }
    for i in 0..depth {
        forest.level(i).par_iter().for_each(|&p| {
            let mut next = pre[p as usize].load(Relaxed) + 1;
            adj.for_each_neighbor(p, |c| {
                if c != p && forest.parent(c) == p {
                    pre[c as usize].store(next, Relaxed);
                    next += size[c as usize].load(Relaxed);
                }
            });
        });
    }
    // low / high: each vertex over its own non-tree neighbours, then bottom-up over subtrees.
    let pre_of = |v: Vertex| pre[v as usize].load(Relaxed);
    let (low, high): (Vec<AtomicU32>, Vec<AtomicU32>) = (0..n as Vertex)
        .into_par_iter()
        .map(|v| {
            let (mut lo, mut hi) = (pre_of(v), pre_of(v));
            let p = forest.parent(v);
            adj.for_each_neighbor(v, |w| {
                if w != p {
                    lo = lo.min(pre_of(w));
                    hi = hi.max(pre_of(w));
                }
            });
            (AtomicU32::new(lo), AtomicU32::new(hi))
        })
        .unzip();
    for i in (1..depth).rev() {
        forest.level(i).par_iter().for_each(|&v| {
            let p = forest.parent(v) as usize;
            low[p].fetch_min(low[v as usize].load(Relaxed), Relaxed);
            high[p].fetch_max(high[v as usize].load(Relaxed), Relaxed);
        });
    }
    Numbering {
        pre,
        size,
        low,
        high,
    }
}

pub fn biconnectivity<A: Adjacency>(
    g: &Graph<A>,
    _params: &BiconnectivityParams,
) -> Result<BiconnectivityResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    let adj = g.out();
    let counters = EdgeMapCounters::default();

    let components = connected_components(g, &CcParams::default())?;
    let roots: Vec<Vertex> = (0..n as Vertex)
        .into_par_iter()
        .filter(|&v| components.labels[v as usize] == v)
        .collect();
    let num_components = roots.len() as u64;
    drop(components);
    let forest = bfs_forest(g, roots, &counters);
    let num = number(adj, &forest);
    let get = |a: &[AtomicU32], v: Vertex| a[v as usize].load(Relaxed);

    // The auxiliary graph: non-tree edges, and tree edges p–c with p not a root whose child's
    // subtree reaches outside p's subtree.
    let keep = |u: Vertex, v: Vertex| {
        if u == v {
            return false;
        }
        let (p, c) = if forest.parent(v) == u {
            (u, v)
        } else if forest.parent(u) == v {
            (v, u)
        } else {
            return true;
        };
        !forest.is_root(p)
            && (get(&num.low, c) < get(&num.pre, p)
                || get(&num.high, c) >= get(&num.pre, p) + get(&num.size, p))
    };
    // `keep` is symmetric: a tree edge is decided by its child whichever end asks.
    let kept = PredicateView::new(adj, keep).into_graph(true);
    let labels = connected_components(&kept, &CcParams::default())?.labels;

    let articulation: Vec<u8> = (0..n as Vertex)
        .into_par_iter()
        .map(|v| {
            // The component of v's edge to its parent, or of its first child's edge at a root.
            let mut own = (!forest.is_root(v)).then(|| labels[v as usize]);
            let split = !adj.try_for_each_neighbor(v, |c| {
                if c == v || forest.parent(c) != v {
                    return true;
                }
                let l = labels[c as usize];
                *own.get_or_insert(l) == l
            });
            split as u8
        })
        .collect();
    let num_biconnected_components = (0..n as Vertex)
        .into_par_iter()
        .filter(|&v| !forest.is_root(v) && labels[v as usize] == v)
        .count() as u64;
    let articulation_points = articulation.par_iter().map(|&a| a as u64).sum::<u64>();
    let stats = RunStats {
        iterations: (forest.levels.len() - 1) as u64,
        edges_traversed: counters.edges() + 3 * g.num_arcs(),
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
            weights: false,
        },
        state: STATE,
        resumable: false,
        state_in_passes: None,
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
