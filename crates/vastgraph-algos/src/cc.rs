//! Connected components; on a directed graph, *weakly* connected components (arcs taken as
//! undirected edges). Every vertex is labelled with the smallest vertex id of its component, so
//! labels are the same whatever the method, thread count or tool.
//!
//! Both methods build one lock-free union-find forest in which every pointer goes from a larger
//! id to a smaller one (`comp[x] <= x`). Linking always hangs a root under a smaller id, so a
//! tree's root is its smallest member, no cycle can form, and after the final pointer jumping
//! each vertex points straight at the smallest id of its component: the label.
//!
//! - [`CcMethod::Afforest`] (Sutton, Ben-Nun & Barak 2018), the default: link every vertex to
//!   its first `sample_rounds` neighbours and compress, which already joins most of a skewed
//!   graph into one giant tree; sample 1024 vertices to find that tree; then link the remaining
//!   arcs of every vertex *outside* it. Arcs inside the giant component are never read again.
//!   Skipping is sound when each skipped arc u→v is also seen from v's side: on a symmetric
//!   graph (v→u exists) or with a stored transpose (v scans its in-arcs). A directed graph
//!   without a transpose links all arcs of all vertices instead.
//! - [`CcMethod::Ldd`] (as in GBBS/Sage): a low-diameter decomposition with β (default 0.2)
//!   puts every vertex in a cluster connected to its centre, then only the arcs between clusters
//!   (about β·m of them) are linked in a union-find over centres.
//!
//! On Kronecker graphs Afforest is several times faster (see the crate's kernel_timing example):
//! both read every arc at most once, but the LDD spends BFS rounds before its link pass.

use std::str::FromStr;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::memory::prefetch;
use vastgraph_engine::{Adjacency, EdgeMapCounters, Graph, Vertex};

use crate::common::{AlgoError, RunStats, StateSize, VerifyError};
use crate::hashing::{below, seeded_hash};
use crate::ldd::{check_beta, grow_clusters};
use crate::serial_check::UnionFind;

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): the u32 forest (afforest), or the
/// LDD's packed cluster and parent words, rounds and order (ldd).
pub const STATE: StateSize = StateSize::per_vertex(32);

const ALGORITHM: &str = "cc";

/// Vertices sampled to find the giant component.
const SAMPLES: u64 = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CcMethod {
    /// Sampled union-find that skips the giant component (the default: fastest).
    Afforest,
    /// Low-diameter decomposition, then union-find over the inter-cluster arcs.
    Ldd,
}

impl CcMethod {
    pub fn name(self) -> &'static str {
        match self {
            CcMethod::Afforest => "afforest",
            CcMethod::Ldd => "ldd",
        }
    }
}

impl FromStr for CcMethod {
    type Err = AlgoError;
    fn from_str(s: &str) -> Result<Self, AlgoError> {
        match s {
            "afforest" => Ok(CcMethod::Afforest),
            "ldd" => Ok(CcMethod::Ldd),
            _ => Err(AlgoError::InvalidParameter {
                algorithm: ALGORITHM,
                message: format!("unknown method {s:?}; expected \"afforest\" or \"ldd\""),
            }),
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct CcParams {
    pub method: CcMethod,
    /// Afforest: neighbours per vertex linked before sampling.
    pub sample_rounds: usize,
    /// LDD: the decomposition's β (0 < β; about β·m arcs end up between clusters).
    pub beta: f64,
    /// Seeds the random choices (Afforest's sample, LDD's shifts); labels never depend on it.
    pub seed: u64,
}

impl Default for CcParams {
    fn default() -> Self {
        CcParams {
            method: CcMethod::Afforest,
            sample_rounds: 2,
            beta: 0.2,
            seed: 1,
        }
    }
}

#[derive(Debug)]
pub struct CcResult {
    /// The smallest vertex id of each vertex's component.
    pub labels: Vec<Vertex>,
    pub num_components: u64,
    /// `iterations`: Afforest's sampling rounds + 1, or the LDD's BFS rounds + 1; extra:
    /// `components`, `method`.
    pub stats: RunStats,
}

pub fn connected_components<A: Adjacency>(
    g: &Graph<A>,
    params: &CcParams,
) -> Result<CcResult, AlgoError> {
    let (comp, iterations, edges) = match params.method {
        CcMethod::Afforest => afforest(g, params.sample_rounds, params.seed),
        CcMethod::Ldd => {
            check_beta(ALGORITHM, params.beta)?;
            ldd_union(g, params.beta, params.seed)
        }
    };
    let labels: Vec<Vertex> = comp.into_iter().map(AtomicU32::into_inner).collect();
    // Each component has one vertex labelled by itself: its smallest.
    let num_components = labels
        .par_iter()
        .enumerate()
        .filter(|&(v, &l)| v == l as usize)
        .count() as u64;
    let stats = RunStats {
        iterations,
        edges_traversed: edges,
        ..Default::default()
    }
    .with("components", num_components)
    .with("method", params.method.name());
    Ok(CcResult {
        labels,
        num_components,
        stats,
    })
}

fn identity_forest(n: usize) -> Vec<AtomicU32> {
    (0..n as Vertex)
        .into_par_iter()
        .map(AtomicU32::new)
        .collect()
}

/// Joins the trees of `u` and `v` (GAPBS's lock-free link): hang the larger of the two current
/// parents under the smaller, but only while the larger is still a root; otherwise climb and
/// retry. Keeps `comp[x] <= x` for every x.
#[inline]
pub(crate) fn link(comp: &[AtomicU32], u: Vertex, v: Vertex) {
    let mut p1 = comp[u as usize].load(Relaxed);
    let mut p2 = comp[v as usize].load(Relaxed);
    while p1 != p2 {
        let (high, low) = if p1 > p2 { (p1, p2) } else { (p2, p1) };
        let p_high = comp[high as usize].load(Relaxed);
        if p_high == low {
            return;
        }
        if p_high == high
            && comp[high as usize]
                .compare_exchange(high, low, Relaxed, Relaxed)
                .is_ok()
        {
            return;
        }
        p1 = comp[comp[high as usize].load(Relaxed) as usize].load(Relaxed);
        p2 = comp[low as usize].load(Relaxed);
    }
}

/// Links `u` with each of `neighbors` in order while `u` does not hang straight under `until`
/// (when given, the giant tree's root), and returns how many links it made. Each link starts with a
/// load of `comp` at a neighbour that is, on a large graph, a cache miss, and one link's
/// branches keep the processor from running far enough ahead to start the next ones: so the
/// entries a few neighbours ahead are prefetched, and several misses are in flight at once.
#[inline]
pub(crate) fn link_all(
    comp: &[AtomicU32],
    u: Vertex,
    neighbors: &[Vertex],
    until: Option<Vertex>,
) -> usize {
    const AHEAD: usize = 8;
    for &v in neighbors.iter().take(AHEAD) {
        prefetch(&comp[v as usize]);
    }
    for (i, &v) in neighbors.iter().enumerate() {
        if until.is_some_and(|root| comp[u as usize].load(Relaxed) == root) {
            return i;
        }
        if let Some(&ahead) = neighbors.get(i + AHEAD) {
            prefetch(&comp[ahead as usize]);
        }
        link(comp, u, v);
    }
    neighbors.len()
}

/// Pointer jumping: every vertex ends pointing at its root. Only `v`'s task writes `comp[v]`.
pub(crate) fn compress(comp: &[AtomicU32]) {
    comp.par_iter().with_min_len(1024).for_each(|c| loop {
        let p = c.load(Relaxed);
        let grand = comp[p as usize].load(Relaxed);
        if p == grand {
            break;
        }
        c.store(grand, Relaxed);
    });
}

/// Vertices whose sampled neighbours Afforest reads before it links them.
const SAMPLE_CHUNK: usize = 256;

/// Returns the forest (compressed: each entry is the component's smallest id), the number of
/// passes and the arcs read.
fn afforest<A: Adjacency>(g: &Graph<A>, rounds: usize, seed: u64) -> (Vec<AtomicU32>, u64, u64) {
    let n = g.num_vertices();
    let out = g.out();
    let comp = identity_forest(n);
    let mut edges = 0u64;
    for r in 0..rounds {
        edges += (0..n.div_ceil(SAMPLE_CHUNK))
            .into_par_iter()
            .with_min_len(16)
            .map(|chunk| {
                let vertices = chunk * SAMPLE_CHUNK..((chunk + 1) * SAMPLE_CHUNK).min(n);
                // Each vertex's r-th neighbour first, its `comp` entry prefetched, then the
                // links: each link starts with a cache miss at that entry, and one link's
                // branches keep the processor from starting the next one's.
                let mut sampled = [(0, 0); SAMPLE_CHUNK];
                let mut len = 0;
                for u in vertices.map(|u| u as Vertex) {
                    let v = if r == 0 {
                        // From the store's side file of first neighbours, when it has one.
                        out.first_neighbor(u)
                    } else if out.degree(u) > r {
                        let mut at = None;
                        out.for_each_neighbor_in(u, r, r + 1, |v, _| at = Some(v));
                        at
                    } else {
                        None
                    };
                    if let Some(v) = v {
                        prefetch(&comp[v as usize]);
                        sampled[len] = (u, v);
                        len += 1;
                    }
                }
                for &(u, v) in &sampled[..len] {
                    link(&comp, u, v);
                }
                len as u64
            })
            .sum::<u64>();
        compress(&comp);
    }
    // Skipping the giant component needs every arc to be visible from both ends.
    let incoming = if g.is_symmetric() { None } else { g.incoming() };
    let giant = (g.is_symmetric() || incoming.is_some())
        .then(|| most_frequent_root(&comp, seed))
        .flatten();
    edges += (0..n as Vertex)
        .into_par_iter()
        .with_min_len(256)
        .map(|u| {
            if Some(comp[u as usize].load(Relaxed)) == giant {
                return 0;
            }
            let mut position = 0;
            out.for_each_neighbor(u, |v| {
                if position >= rounds {
                    link(&comp, u, v);
                }
                position += 1;
            });
            let mut read = out.degree(u).saturating_sub(rounds) as u64;
            if let Some(incoming) = incoming {
                incoming.for_each_neighbor(u, |v| link(&comp, u, v));
                read += incoming.degree(u) as u64;
            }
            read
        })
        .sum::<u64>();
    compress(&comp);
    (comp, rounds as u64 + 1, edges)
}

/// The root most of a random sample of vertices point to (after compression): the giant
/// component, if there is one; None for a graph without vertices.
pub(crate) fn most_frequent_root(comp: &[AtomicU32], seed: u64) -> Option<Vertex> {
    let n = comp.len() as u64;
    if n == 0 {
        return None;
    }
    let mut sample: Vec<Vertex> = (0..SAMPLES)
        .map(|i| comp[below(seeded_hash(seed, i), n) as usize].load(Relaxed))
        .collect();
    sample.sort_unstable();
    let mut best = (0usize, sample[0]);
    for run in sample.chunk_by(|a, b| a == b) {
        best = best.max((run.len(), run[0]));
    }
    Some(best.1)
}

/// LDD, then one pass linking the clusters of every arc's ends in a forest over centre ids,
/// then relabelling each component by its smallest member.
fn ldd_union<A: Adjacency>(g: &Graph<A>, beta: f64, seed: u64) -> (Vec<AtomicU32>, u64, u64) {
    let n = g.num_vertices();
    let counters = EdgeMapCounters::default();
    // Clusters grow along arcs (out-arcs, or in-arcs read backwards), so every vertex is
    // connected to its centre, also on a directed graph; that is all the union below needs.
    let forest = grow_clusters(g, beta, seed, &counters);
    let rounds = forest.rounds;
    let clusters: Vec<AtomicU32> = forest
        .into_clusters()
        .into_iter()
        .map(AtomicU32::new)
        .collect();
    let centres = identity_forest(n);
    let symmetric = g.is_symmetric();
    let out = g.out();
    (0..n as Vertex)
        .into_par_iter()
        .with_min_len(256)
        .for_each(|u| {
            let cu = clusters[u as usize].load(Relaxed);
            out.for_each_neighbor(u, |v| {
                // A symmetric graph holds each edge twice; one direction is enough.
                if symmetric && v < u {
                    return;
                }
                let cv = clusters[v as usize].load(Relaxed);
                if cu != cv {
                    link(&centres, cu, cv);
                }
            });
        });
    compress(&centres);
    // Each vertex now learns its component's root (the smallest centre in it); the roots'
    // entries are then lowered to the smallest vertex id in the component.
    clusters
        .par_iter()
        .for_each(|c| c.store(centres[c.load(Relaxed) as usize].load(Relaxed), Relaxed));
    clusters.par_iter().enumerate().for_each(|(v, root)| {
        centres[root.load(Relaxed) as usize].fetch_min(v as Vertex, Relaxed);
    });
    clusters
        .par_iter()
        .for_each(|c| c.store(centres[c.load(Relaxed) as usize].load(Relaxed), Relaxed));
    (clusters, rounds + 1, counters.edges() + g.num_arcs())
}

/// Checks the labels against a serial union-find over every arc: the same partition, each
/// component labelled by its smallest id, and the reported component count.
pub fn verify_cc<A: Adjacency>(g: &Graph<A>, result: &CcResult) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    if result.labels.len() != n {
        return fail(format!("{} labels for {n} vertices", result.labels.len()));
    }
    let mut sets = UnionFind::new(n);
    for u in 0..n as Vertex {
        g.out().for_each_neighbor(u, |v| {
            sets.union(u, v);
        });
    }
    // Ascending order: the first member seen of each set is its smallest.
    let mut smallest = vec![Vertex::MAX; n];
    let mut components = 0u64;
    for v in 0..n as Vertex {
        let root = sets.find(v) as usize;
        if smallest[root] == Vertex::MAX {
            smallest[root] = v;
            components += 1;
        }
        let want = smallest[root];
        if result.labels[v as usize] != want {
            return fail(format!(
                "vertex {v}: label {} but its component's smallest id is {want}",
                result.labels[v as usize]
            ));
        }
    }
    if result.num_components != components {
        return fail(format!(
            "{} components reported, {components} found",
            result.num_components
        ));
    }
    Ok(())
}
