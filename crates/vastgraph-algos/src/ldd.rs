//! Low-diameter decomposition (Miller, Peng, Xu 2013): partitions a graph into connected
//! clusters of radius O(log n / β) w.h.p. such that each edge joins two clusters with
//! probability at most 1 − e^(−β) < β.
//!
//! Every vertex v draws a shift δ_v ~ Exp(β) from a seeded hash of its id; its start time is
//! `δ_max − δ_v`. Round r lets every still-unsettled vertex whose start time falls in [r, r+1)
//! offer itself as a centre, and grows all clusters one BFS hop from the vertices settled in
//! round r−1 with one [`edge_map`]. A vertex takes the offer that arrives first in real time
//! (start time of the centre + hops; within a round, the smaller fractional part of the start
//! time, then the smaller centre id), which is MPX's exact rule, "the centre minimising
//! distance − δ_c". The result depends on the seed only, never on the thread count. State: one
//! packed word per vertex, the start round per vertex, a settled bitmap and the frontiers (plus a
//! parent per vertex when BFS trees are asked for): O(n).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::{
    edge_map, Adjacency, Bitmap, EdgeMapCounters, EdgeMapFn, EdgeMapOptions, Graph, Vertex,
    VertexSubset,
};

use crate::common::{require_symmetric, AlgoError, RunStats, StateSize, VerifyError};
use crate::hashing::unit_interval;

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): shifts, cluster ids, start rounds
/// and the order of the starts.
pub const STATE: StateSize = StateSize::per_vertex(32);

const ALGORITHM: &str = "ldd";

/// A packed (cluster, parent) word of a vertex no cluster has reached yet.
const UNASSIGNED: u64 = u64::MAX;

#[derive(Clone, Debug, serde::Serialize)]
pub struct LddParams {
    /// Cut fraction: expected inter-cluster edges ≤ β·m, cluster radius O(log n / β). 0 < β.
    pub beta: f64,
    pub seed: u64,
}

impl Default for LddParams {
    fn default() -> Self {
        LddParams { beta: 0.2, seed: 1 }
    }
}

#[derive(Debug)]
pub struct LddResult {
    /// The cluster of every vertex, named by its centre (a vertex with `clusters[c] == c`).
    pub clusters: Vec<u32>,
    /// `iterations` = BFS rounds; extra: `clusters`, `inter_cluster_arcs` (arcs whose ends lie in
    /// different clusters; each undirected edge counts twice), `max_radius` (deepest BFS level
    /// any cluster grew to).
    pub stats: RunStats,
}

/// The clusters as grown: what [`ldd`] returns, connectivity and the spanner build on.
pub(crate) struct ClusterForest {
    /// (arrival rank << 32) | centre per vertex (see [`Grow`]).
    packed: Vec<u64>,
    /// The BFS-tree parent of every vertex (a centre is its own), when grown with trees.
    parents: Option<Vec<u32>>,
    pub rounds: u64,
    pub max_radius: u64,
}

impl ClusterForest {
    #[inline]
    pub fn cluster(&self, v: Vertex) -> Vertex {
        self.packed[v as usize] as Vertex
    }
    /// The BFS-tree parent; only for a forest from [`grow_cluster_trees`].
    #[inline]
    pub fn parent(&self, v: Vertex) -> Vertex {
        self.parents.as_ref().expect("grown without trees")[v as usize]
    }
    pub fn into_clusters(self) -> Vec<u32> {
        self.packed.into_par_iter().map(|p| p as u32).collect()
    }
}

/// One BFS hop. A vertex's word is (rank << 32) | centre, the rank being the fractional part
/// of its centre's start time `δ_max − δ_c` in units of 2^-32: of the clusters reaching a vertex
/// in the same round, the one whose real-valued arrival time `δ_max − δ_c + distance` is
/// smallest wins, as in MPX's exact definition (argmin over centres of distance − δ_c), and a
/// smaller word is exactly that. Vertices settled in earlier rounds take no offers.
struct Grow<'a> {
    packed: &'a [AtomicU64],
    settled: &'a Bitmap,
}

impl EdgeMapFn for Grow<'_> {
    fn update(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        let offer = self.packed[s as usize].load(Relaxed);
        let slot = &self.packed[d as usize];
        let current = slot.load(Relaxed);
        if offer < current {
            slot.store(offer, Relaxed);
        }
        current == UNASSIGNED
    }

    fn update_atomic(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        let offer = self.packed[s as usize].load(Relaxed);
        let slot = &self.packed[d as usize];
        // Only the first offer puts `d` in the output; later smaller ones still lower it.
        offer < slot.load(Relaxed) && slot.fetch_min(offer, Relaxed) == UNASSIGNED
    }

    fn cond(&self, d: Vertex) -> bool {
        !self.settled.get(d as usize)
    }
}

/// Start times `δ_max − δ_v`, δ_v = −ln(U_v)/β: the start round of every vertex (the integer
/// part) and a function giving a vertex's word as a centre (with the fractional part as rank).
fn start_times(n: usize, beta: f64, seed: u64) -> (Vec<u32>, impl Fn(Vertex) -> u64 + Sync) {
    let shift = move |v: usize| -unit_interval(seed, v as u64).ln() / beta;
    let max_shift = (0..n).into_par_iter().map(shift).reduce(|| 0.0, f64::max);
    let start = (0..n)
        .into_par_iter()
        .map(|v| (max_shift - shift(v)).floor() as u32)
        .collect();
    let centre_word = move |v: Vertex| {
        let t = max_shift - shift(v as usize);
        let rank = ((t - t.floor()) * 4_294_967_296.0).min(u32::MAX as f64) as u64;
        (rank << 32) | v as u64
    };
    (start, centre_word)
}

/// Grows the clusters (β positive and finite). On a directed graph clusters grow along the arcs.
pub(crate) fn grow_clusters<A: Adjacency>(
    g: &Graph<A>,
    beta: f64,
    seed: u64,
    counters: &EdgeMapCounters,
) -> ClusterForest {
    grow(g, beta, seed, counters, false)
}

/// Grows the clusters with a BFS tree each (symmetric graph): every reached vertex's parent is
/// its smallest neighbour in the same cluster from the previous round.
pub(crate) fn grow_cluster_trees<A: Adjacency>(
    g: &Graph<A>,
    beta: f64,
    seed: u64,
    counters: &EdgeMapCounters,
) -> ClusterForest {
    grow(g, beta, seed, counters, true)
}

fn grow<A: Adjacency>(
    g: &Graph<A>,
    beta: f64,
    seed: u64,
    counters: &EdgeMapCounters,
    trees: bool,
) -> ClusterForest {
    let n = g.num_vertices();
    let (start, centre_word) = start_times(n, beta, seed);
    // Vertices by start round, so each round's candidate centres are one slice.
    let mut by_start: Vec<Vertex> = (0..n as Vertex).collect();
    by_start.par_sort_unstable_by_key(|&v| (start[v as usize], v));
    let packed: Vec<AtomicU64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU64::new(UNASSIGNED))
        .collect();
    let parents: Option<Vec<AtomicU32>> =
        trees.then(|| (0..n as u32).into_par_iter().map(AtomicU32::new).collect());
    let settled = Bitmap::new(n);
    let grow = Grow {
        packed: &packed,
        settled: &settled,
    };
    let opts = EdgeMapOptions::with_counters(counters);

    // Vertices settled in the previous round: the frontier.
    let mut frontier: Vec<Vertex> = Vec::new();
    let mut next_candidate = 0;
    // `round` is the clock of the start times; `executed` counts the rounds that ran.
    let (mut round, mut max_radius, mut executed) = (0u32, 0u64, 0u64);
    while next_candidate < n || !frontier.is_empty() {
        // Unsettled vertices whose start round has come offer themselves as centres...
        let end = next_candidate
            + by_start[next_candidate..].partition_point(|&v| start[v as usize] <= round);
        let mut settling: Vec<Vertex> = by_start[next_candidate..end]
            .par_iter()
            .copied()
            .filter(|&v| !settled.get(v as usize))
            .collect();
        next_candidate = end;
        settling
            .par_iter()
            .for_each(|&c| packed[c as usize].store(centre_word(c), Relaxed));
        // ...and compete with the clusters growing one hop from the frontier.
        let grown = edge_map(g, &VertexSubset::from_ids(n, frontier), &grow, &opts).into_sparse();
        settling.extend_from_slice(grown.sparse_ids().expect("converted to sparse"));
        drop(grown);
        if let Some(parents) = &parents {
            settling.par_iter().for_each(|&v| {
                let cluster = packed[v as usize].load(Relaxed) as u32;
                if cluster != v {
                    let mut parent = Vertex::MAX;
                    g.out().for_each_neighbor(v, |s| {
                        if settled.get(s as usize)
                            && packed[s as usize].load(Relaxed) as u32 == cluster
                        {
                            parent = parent.min(s);
                        }
                    });
                    parents[v as usize].store(parent, Relaxed);
                }
            });
        }
        let depth = settling
            .par_iter()
            .map(|&v| {
                settled.set_atomic(v as usize);
                let centre = packed[v as usize].load(Relaxed) as u32;
                (round - start[centre as usize]) as u64
            })
            .max()
            .unwrap_or(0);
        max_radius = max_radius.max(depth);
        frontier = settling;
        round += 1;
        executed += 1;
        if frontier.is_empty() && next_candidate < n {
            // Nothing grows: the rounds until the next centre starts would do nothing (a small
            // β spreads the start rounds over up to 37/β of them).
            round = round.max(start[by_start[next_candidate] as usize]);
        }
    }
    ClusterForest {
        packed: packed.into_par_iter().map(AtomicU64::into_inner).collect(),
        parents: parents.map(|p| p.into_par_iter().map(AtomicU32::into_inner).collect()),
        rounds: executed,
        max_radius,
    }
}

/// The decomposition itself, for reuse (connectivity, spanners): the cluster (centre id) of
/// every vertex. `g` must be symmetric and `beta` positive and finite; use
/// [`low_diameter_decomposition`] for checked input and statistics.
pub fn ldd<A: Adjacency>(g: &Graph<A>, beta: f64, seed: u64) -> Vec<u32> {
    assert!(
        beta > 0.0 && beta.is_finite(),
        "ldd: beta must be positive and finite, got {beta}"
    );
    grow_clusters(g, beta, seed, &EdgeMapCounters::default()).into_clusters()
}

/// The smallest β: start rounds reach 37/β (the shift of the least draw, 2^-53), which
/// must stay well within a round's u32.
pub const MIN_BETA: f64 = 1e-6;

pub(crate) fn check_beta(algorithm: &'static str, beta: f64) -> Result<(), AlgoError> {
    if beta >= MIN_BETA && beta.is_finite() {
        Ok(())
    } else {
        Err(AlgoError::InvalidParameter {
            algorithm,
            message: format!("beta must be a finite number of at least {MIN_BETA}, got {beta}"),
        })
    }
}

/// Arcs whose two ends lie in different clusters.
fn inter_cluster_arcs<A: Adjacency>(adj: &A, clusters: &[u32]) -> u64 {
    (0..adj.num_vertices() as Vertex)
        .into_par_iter()
        .map(|u| {
            let mut cut = 0u64;
            adj.for_each_neighbor(u, |v| {
                cut += (clusters[u as usize] != clusters[v as usize]) as u64
            });
            cut
        })
        .sum()
}

pub fn low_diameter_decomposition<A: Adjacency>(
    g: &Graph<A>,
    params: &LddParams,
) -> Result<LddResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    check_beta(ALGORITHM, params.beta)?;
    let counters = EdgeMapCounters::default();
    let forest = grow_clusters(g, params.beta, params.seed, &counters);
    let (rounds, max_radius) = (forest.rounds, forest.max_radius);
    let clusters = forest.into_clusters();
    let centres = clusters
        .par_iter()
        .enumerate()
        .filter(|&(v, &c)| v == c as usize)
        .count() as u64;
    let cut = inter_cluster_arcs(g.out(), &clusters);
    let stats = RunStats {
        iterations: rounds,
        edges_traversed: counters.edges() + g.num_arcs(),
        ..Default::default()
    }
    .with("clusters", centres)
    .with("inter_cluster_arcs", cut)
    .with("max_radius", max_radius);
    Ok(LddResult { clusters, stats })
}

/// Checks that every cluster is named by a centre inside it and is connected (a serial BFS from
/// the centre that stays inside the cluster reaches all its members), and that the reported
/// cluster and inter-cluster arc counts are right.
pub fn verify_ldd<A: Adjacency>(g: &Graph<A>, result: &LddResult) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    let clusters = &result.clusters;
    if clusters.len() != n {
        return fail(format!("{} cluster ids for {n} vertices", clusters.len()));
    }
    for (v, &c) in clusters.iter().enumerate() {
        if c as usize >= n || clusters[c as usize] != c {
            return fail(format!(
                "vertex {v} is in cluster {c}, which is not a centre of its own cluster"
            ));
        }
    }
    let mut seen = vec![false; n];
    let mut queue = std::collections::VecDeque::new();
    let (mut centres, mut cut) = (0u64, 0u64);
    for c in 0..n as Vertex {
        if clusters[c as usize] != c {
            continue;
        }
        centres += 1;
        seen[c as usize] = true;
        queue.push_back(c);
        while let Some(u) = queue.pop_front() {
            g.out().for_each_neighbor(u, |v| {
                if clusters[v as usize] != c {
                    cut += 1;
                } else if !seen[v as usize] {
                    seen[v as usize] = true;
                    queue.push_back(v);
                }
            });
        }
    }
    if let Some(v) = seen.iter().position(|&s| !s) {
        return fail(format!(
            "vertex {v} is not connected to the centre of its cluster {} inside it",
            clusters[v]
        ));
    }
    let reported = |key: &str| result.stats.extra.get(key).and_then(|x| x.as_u64());
    if reported("clusters") != Some(centres) {
        return fail(format!(
            "{centres} clusters, but the stats report {:?}",
            reported("clusters")
        ));
    }
    if reported("inter_cluster_arcs") != Some(cut) {
        return fail(format!(
            "{cut} inter-cluster arcs, but the stats report {:?}",
            reported("inter_cluster_arcs")
        ));
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Param, Params, SEED};
use crate::registry::Values;
use std::ops::Bound::{Included, Unbounded};

/// The exponential shifts' rate β: clusters of diameter O(log n / β), about β·m arcs between them.
pub const BETA: Param = Param::number(
    "beta",
    0.2,
    (Included(MIN_BETA), Unbounded),
    "the decomposition's rate β",
);
/// `ldd` in the registry.
pub struct Ldd;

impl Algorithm for Ldd {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "ldd",
        summary: "low-diameter decomposition (--beta, --seed): cluster id per vertex",
        params: &[BETA, SEED],
        needs: Needs {
            symmetric: true,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: false,
        vertex_values: crate::algorithm::VertexValues::Yes,
        conflicts: &[],
        state_in_passes: None,
    };
    type Params = LddParams;
    type Result = LddResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<LddParams, AlgoError> {
        Ok(LddParams {
            beta: given.number(&BETA),
            seed: given.count(&SEED),
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &LddParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<LddResult, AlgoError> {
        low_diameter_decomposition(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        _q: &LddParams,
        r: &LddResult,
    ) -> Result<(), VerifyError> {
        verify_ldd(g, r)
    }
    fn output(r: LddResult, _q: &LddParams) -> (Option<Values>, RunStats) {
        (Some(Values::U32(r.clusters)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn path_splits_into_connected_clusters() {
        let edges: Vec<(u32, u32)> = (0..199).map(|i| (i, i + 1)).collect();
        let g = InMemoryGraph::from_edges(200, &edges, true);
        let r = low_diameter_decomposition(&g.view(), &LddParams { beta: 0.3, seed: 5 }).unwrap();
        verify_ldd(&g.view(), &r).unwrap();
        let clusters = r.stats.extra["clusters"].as_u64().unwrap();
        assert!(clusters > 1 && clusters < 200, "{clusters} clusters");
        // Clusters of a path are intervals, so the cut arcs are 2 per boundary.
        assert_eq!(
            r.stats.extra["inter_cluster_arcs"].as_u64().unwrap(),
            2 * (clusters - 1)
        );
    }

    #[test]
    fn directed_and_bad_beta_are_refused() {
        let g = InMemoryGraph::from_edges(2, &[(0, 1)], false);
        assert!(matches!(
            low_diameter_decomposition(&g.view(), &LddParams::default()),
            Err(AlgoError::NeedsSymmetric { .. })
        ));
        let g = InMemoryGraph::from_edges(2, &[(0, 1)], true);
        for beta in [0.0, MIN_BETA / 2.0] {
            let bad = LddParams {
                beta,
                ..Default::default()
            };
            assert!(matches!(
                low_diameter_decomposition(&g.view(), &bad),
                Err(AlgoError::InvalidParameter { .. })
            ));
        }
    }

    #[test]
    fn a_small_beta_skips_the_rounds_in_which_nothing_grows() {
        // At β = 1e-6 the start rounds spread over millions of rounds, almost all empty: a
        // round each took the run 8.6M iterations on 2,500 vertices.
        let n = 2_000u32;
        let edges: Vec<(Vertex, Vertex)> = (0..n).map(|v| (v, (v * 7 + 1) % n)).collect();
        let g = InMemoryGraph::from_edges(n as usize, &edges, true);
        let params = LddParams {
            beta: MIN_BETA,
            seed: 3,
        };
        let r = low_diameter_decomposition(&g.view(), &params).unwrap();
        verify_ldd(&g.view(), &r).unwrap();
        assert!(
            r.stats.iterations < 10 * n as u64,
            "{} rounds",
            r.stats.iterations
        );
    }
}
