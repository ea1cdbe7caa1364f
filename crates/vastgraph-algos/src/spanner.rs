//! O(k)-spanner of a symmetric unweighted graph (Miller, Peng, Vladu, Xu 2015): a low-diameter
//! decomposition with β = ln(n) / (2k), then the BFS-tree edges of every cluster plus one edge
//! between each pair of adjacent clusters.
//!
//! Stretch: with R the deepest BFS level any cluster reached, an edge inside a cluster is
//! replaced by the tree path through the centre (≤ 2R) and an edge between two clusters by
//! tree path, the kept bridge edge, tree path (≤ 4R + 1). So the stretch is at most 4R + 1
//! always, and R ≤ δ_max ≤ 2·ln(n)/β = 4k with probability ≥ 1 − 1/n, i.e. stretch O(k) w.h.p.
//! Size O(n^(1+1/k)) edges in expectation (MPVX); with the default k = ⌈log2 n⌉ that is O(n).
//!
//! The bridge between two clusters is the lexicographically first edge (u, v) with u in the
//! lower-id cluster, so the output depends on the seed only. State: the LDD's O(n) words, a
//! vertex order by cluster, and per task a map over the adjacent clusters of one cluster (whose
//! size is bounded by that cluster's share of the output).

use std::collections::{HashMap, VecDeque};

use rayon::prelude::*;
use vastgraph_engine::{Adjacency, EdgeMapCounters, Graph, Vertex};

use crate::common::{require_symmetric, AlgoError, RunStats, StateSize, VerifyError};
use crate::hashing::{below, seeded_hash};
use crate::ldd::{check_beta, grow_cluster_trees};
use crate::serial_check::{check_edges_of, undirected_lists, UnionFind};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): the clustering's arrays and the
/// spanner's edges (O(n) for the default k).
pub const STATE: StateSize = StateSize::per_vertex(36);

const ALGORITHM: &str = "spanner";

#[derive(Clone, Debug, serde::Serialize)]
pub struct SpannerParams {
    /// Stretch parameter; None = ⌈log2 n⌉ (at least 1).
    pub k: Option<u32>,
    pub seed: u64,
}

impl Default for SpannerParams {
    fn default() -> Self {
        SpannerParams { k: None, seed: 1 }
    }
}

#[derive(Debug)]
pub struct SpannerResult {
    /// The spanner's edges, each once as [u, v] with u < v, sorted.
    pub edges: Vec<[u32; 2]>,
    /// `iterations` = LDD rounds; extra: `k`, `beta`, `clusters`, `tree_edges`, `bridge_edges`,
    /// `max_radius` (R), `stretch_bound` (4R + 1).
    pub stats: RunStats,
}

/// ⌈log2 n⌉, at least 1.
fn default_k(n: usize) -> u32 {
    (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1)
}

pub fn spanner<A: Adjacency>(
    g: &Graph<A>,
    params: &SpannerParams,
) -> Result<SpannerResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    let k = params.k.unwrap_or_else(|| default_k(n));
    if k == 0 {
        return Err(AlgoError::InvalidParameter {
            algorithm: ALGORITHM,
            message: "k must be at least 1".into(),
        });
    }
    // ln n vanishes for n ≤ 2; any positive β is fine there (at most one edge). A k so large
    // that β falls below the least the decomposition takes gives that β's spanner, whose
    // stretch is below the one asked for.
    let beta = ((n.max(3) as f64).ln() / (2.0 * k as f64)).max(crate::ldd::MIN_BETA);
    check_beta(ALGORITHM, beta)?;
    let counters = EdgeMapCounters::default();
    let forest = grow_cluster_trees(g, beta, params.seed, &counters);

    let tree: Vec<[u32; 2]> = (0..n as Vertex)
        .into_par_iter()
        .filter(|&v| forest.parent(v) != v)
        .map(|v| ordered(v, forest.parent(v)))
        .collect();

    // Members grouped by cluster, ascending within each, so a cluster is one slice.
    let mut by_cluster: Vec<Vertex> = (0..n as Vertex).collect();
    by_cluster.par_sort_unstable_by_key(|&v| (forest.cluster(v), v));
    let mut starts: Vec<usize> = (0..n)
        .filter(|&i| i == 0 || forest.cluster(by_cluster[i - 1]) != forest.cluster(by_cluster[i]))
        .collect();
    let clusters = starts.len() as u64;
    starts.push(n);
    let bridges: Vec<[u32; 2]> = starts
        .par_windows(2)
        .flat_map_iter(|w| {
            let members = &by_cluster[w[0]..w[1]];
            let mut first_edge: HashMap<Vertex, [u32; 2]> = HashMap::new();
            for &u in members {
                let cu = forest.cluster(u);
                g.out().for_each_neighbor(u, |v| {
                    let cv = forest.cluster(v);
                    if cv > cu {
                        first_edge.entry(cv).or_insert_with(|| ordered(u, v));
                    }
                });
            }
            first_edge.into_values()
        })
        .collect();
    drop(by_cluster);

    let (tree_edges, bridge_edges) = (tree.len() as u64, bridges.len() as u64);
    let mut edges = tree;
    edges.extend(bridges);
    edges.par_sort_unstable();
    let stats = RunStats {
        iterations: forest.rounds,
        edges_traversed: counters.edges() + g.num_arcs(),
        ..Default::default()
    }
    .with("k", k)
    .with("beta", beta)
    .with("clusters", clusters)
    .with("tree_edges", tree_edges)
    .with("bridge_edges", bridge_edges)
    .with("max_radius", forest.max_radius)
    .with("stretch_bound", 4 * forest.max_radius + 1);
    Ok(SpannerResult { edges, stats })
}

#[inline]
fn ordered(a: Vertex, b: Vertex) -> [u32; 2] {
    [a.min(b), a.max(b)]
}

/// Edges of G sampled for the stretch check.
pub const STRETCH_SAMPLES: u64 = 100;

/// Checks that the edges are distinct edges of G (as [u, v], u < v), that the spanner has the
/// same connected components as G, and that for [`STRETCH_SAMPLES`] pseudo-randomly sampled
/// edges (u, v) of G a BFS in the spanner finds v within 4R + 1 hops of u, R being the
/// `max_radius` the run reports (the construction's guarantee, see the module comment).
pub fn verify_spanner<A: Adjacency>(
    g: &Graph<A>,
    result: &SpannerResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    let edges = &result.edges;
    if let Err(m) = check_edges_of(g, edges) {
        return fail(m);
    }
    if edges.windows(2).any(|w| w[0] >= w[1]) {
        return fail("edges are not sorted and distinct".into());
    }
    let mut kept = UnionFind::new(n);
    for &[u, v] in edges {
        kept.union(u, v);
    }
    for u in 0..n as Vertex {
        if !g
            .out()
            .try_for_each_neighbor(u, |v| kept.find(u) == kept.find(v))
        {
            return fail(format!(
                "vertex {u} and one of its neighbours are disconnected in the spanner"
            ));
        }
    }
    let Some(radius) = result
        .stats
        .extra
        .get("max_radius")
        .and_then(|r| r.as_u64())
    else {
        return fail("the stats do not report max_radius".into());
    };
    let bound = 4 * radius + 1;
    let lists = undirected_lists(n, edges);
    let mut dist = vec![u64::MAX; n];
    for i in 0..STRETCH_SAMPLES.min(n as u64) {
        let u = below(seeded_hash(0x5eed, i), n as u64) as Vertex;
        let deg = g.out().degree(u);
        if deg == 0 {
            continue;
        }
        let pick = below(seeded_hash(0x5eed + 1, i), deg as u64) as usize;
        let mut v = u;
        g.out()
            .for_each_neighbor_in(u, pick, pick + 1, |x, _| v = x);
        if v == u {
            continue; // a self-loop needs no path
        }
        match hops_within(&lists, u, v, bound, &mut dist) {
            Some(_) => {}
            None => {
                return fail(format!(
                    "edge ({u}, {v}) of G has no path of at most {bound} hops in the spanner"
                ))
            }
        }
    }
    Ok(())
}

/// Hop distance from `from` to `to` in `lists` if at most `limit` (BFS cut off at `limit`).
/// `dist` is scratch of length n, all u64::MAX on entry and on return.
fn hops_within(
    lists: &[Vec<Vertex>],
    from: Vertex,
    to: Vertex,
    limit: u64,
    dist: &mut [u64],
) -> Option<u64> {
    let mut touched = vec![from];
    let mut queue = VecDeque::from([from]);
    dist[from as usize] = 0;
    let mut found = None;
    while let Some(x) = queue.pop_front() {
        if x == to {
            found = Some(dist[x as usize]);
            break;
        }
        let next = dist[x as usize] + 1;
        if next > limit {
            continue;
        }
        for &y in &lists[x as usize] {
            if dist[y as usize] == u64::MAX {
                dist[y as usize] = next;
                touched.push(y);
                queue.push_back(y);
            }
        }
    }
    for t in touched {
        dist[t as usize] = u64::MAX;
    }
    found
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Param, Params, SEED};
use crate::registry::Values;

pub const K: Param =
    Param::count("k", 1, 1, "the stretch parameter k: an O(k)-spanner").computed("ceil(log2 n)");
/// `spanner` in the registry.
pub struct Spanner;

impl Algorithm for Spanner {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "spanner",
        summary: "O(k)-spanner edges (--k, default ceil(log2 n))",
        params: &[K, SEED],
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
        state_in_passes: None,
    };
    type Params = SpannerParams;
    type Result = SpannerResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<SpannerParams, AlgoError> {
        Ok(SpannerParams {
            k: given.given_count(&K).map(|k| k.min(u32::MAX as u64) as u32),
            seed: given.count(&SEED),
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &SpannerParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<SpannerResult, AlgoError> {
        spanner(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        _q: &SpannerParams,
        r: &SpannerResult,
    ) -> Result<(), VerifyError> {
        verify_spanner(g, r)
    }
    fn output(r: SpannerResult, _q: &SpannerParams) -> (Option<Values>, RunStats) {
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
    fn clique_spanner_is_sparse_and_valid() {
        let n = 60u32;
        let edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
            .collect();
        let g = InMemoryGraph::from_edges(n as usize, &edges, true);
        let r = spanner(&g.view(), &SpannerParams::default()).unwrap();
        verify_spanner(&g.view(), &r).unwrap();
        assert!(
            r.edges.len() < edges.len() / 2,
            "{} of {} edges kept",
            r.edges.len(),
            edges.len()
        );
        assert!(r.edges.len() >= n as usize - 1);
    }

    #[test]
    fn verifier_rejects_a_missing_bridge() {
        let edges: Vec<(u32, u32)> = (0..9).map(|i| (i, i + 1)).collect();
        let g = InMemoryGraph::from_edges(10, &edges, true);
        let mut r = spanner(&g.view(), &SpannerParams::default()).unwrap();
        assert_eq!(r.edges.len(), 9, "a tree is its own only spanner");
        r.edges.remove(4);
        assert!(verify_spanner(&g.view(), &r).is_err());
    }
}
