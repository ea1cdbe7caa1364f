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
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::memory::{huge_page_vec, prefetch};
use vastgraph_engine::ooc::ScanSpec;
use vastgraph_engine::{Adjacency, Bitmap, EdgeMapCounters, Graph, PullSpec, Traversal, Vertex};

use crate::common::{read_error, AlgoError, RunStats, StateSize, VerifyError};
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
    if params.method == CcMethod::Afforest && g.out().on_disk().is_some() {
        return in_passes(g, params);
    }
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

/// The state [`in_passes`] keeps for `n` vertices: one union-find word a vertex (it becomes the
/// labels), and the bitmaps of the vertices of each pass.
pub fn state_in_passes(n: u64) -> u64 {
    4 * n + 3 * n.div_ceil(64) * 8
}

/// The share of the arcs that the highest-degree vertices' lists link before the giant
/// component is sampled, in [`in_passes`]. On Kronecker graphs 2% (177 hubs on scale 25)
/// already names a giant tree that every later list soon reaches; more costs links that,
/// unlike those of the second pass, do not overlap the reads (kron25: 10% took 1.4 s of linking
/// to save 0.7 s of the second pass's).
const HUB_ARCS: f64 = 0.02;

/// Connected components in at most one sequential read of the arcs (CLIP's
/// beyond-neighbourhood processing) over any [`Traversal`], with the lock-free union-find of
/// the in-memory kernel and, on a symmetric graph, Afforest's skipping of the giant component:
///
/// 1. The lists of the highest-degree vertices, holding about [`HUB_ARCS`] of the arcs, link
///    every arc. On a skewed graph this joins the hubs and their neighbours into one tree.
/// 2. Where first neighbours are cheap (in memory, or a store with their side file), every
///    later vertex links its first arc (Afforest's sampling), which on a skewed graph hangs
///    most vertices under the hubs' tree.
/// 3. Pointer jumping, then sampled vertices name that giant tree and its root.
/// 4. A pull over the vertices outside the giant tree: each links its arcs in order and stops
///    as soon as it hangs straight under the giant root (on a skewed graph, after its first arc
///    to a hub). The engine reads the heads of their lists first where that pays, and the
///    lists of the vertices in the giant tree are never read.
///
/// Sound because every edge is stored from both ends, and every vertex either links all its
/// arcs or ends in the giant tree (which only grows): of an edge's two ends, either both end
/// in the giant tree, or one of them linked the edge. A directed graph (no reverse arcs to
/// rely on) links every arc in one pass. Pointer jumping finally labels every vertex with the
/// smallest id of its component: the labels equal the in-memory kernel's.
pub fn in_passes<G: Traversal>(g: &G, params: &CcParams) -> Result<CcResult, AlgoError> {
    let n = g.num_vertices();
    let comp: Vec<AtomicU32> = huge_page_vec(n, |v| AtomicU32::new(v as Vertex));
    let symmetric = g.is_symmetric();
    let degree = |v: usize| g.degree(v as Vertex) as u64;
    // The vertices whose lists link every arc first: on a symmetric graph its highest degrees.
    let hubs = match symmetric {
        true => highest_degrees(n, degree, (g.num_arcs() as f64 * HUB_ARCS) as u64),
        false => Bitmap::full(n),
    };
    let linked = AtomicU64::new(0);
    g.pass(&ScanSpec::new(&hubs), |v, neighbors, _| {
        let links = link_all(&comp, v, neighbors, None);
        linked.fetch_add(links as u64, Relaxed);
    })
    .map_err(read_error(ALGORITHM))?;
    let mut passes = 1;
    if symmetric {
        let later = Bitmap::from_fn(n, |v| !hubs.get(v));
        drop(hubs);
        let sampled = g.first_neighbors_cheap();
        let mut sampled_vertices = 0;
        if sampled {
            sampled_vertices = g
                .first_neighbors(&later, |v, first| {
                    link_all(&comp, v, &[first], None);
                })
                .map_err(read_error(ALGORITHM))?;
            linked.fetch_add(sampled_vertices, Relaxed);
        }
        compress(&comp);
        let Some(giant) = most_frequent_root(&comp, params.seed) else {
            return Ok(CcResult {
                labels: Vec::new(),
                num_components: 0,
                stats: RunStats::default(),
            });
        };
        // The later vertices outside the giant tree (their forest entries are compressed)
        // with arcs not yet linked: a vertex with one arc linked it in the sampling.
        let linked_arcs = u64::from(sampled);
        let outside = Bitmap::from_fn(n, |v| {
            later.get(v) && degree(v) > linked_arcs && comp[v].load(Relaxed) != giant
        });
        drop(later);
        let done = Bitmap::new(n);
        // Links made since `outside` was taken may have hung a vertex in the giant tree, whose
        // root may since have been hung under a smaller one.
        let in_giant = |v: Vertex| find(&comp, v) == find(&comp, giant);
        let spec = PullSpec {
            first_settled: sampled
                .then(|| 1.0 - outside.count_ones() as f64 / sampled_vertices.max(1) as f64),
            done_anyway: Some(&in_giant),
            ..PullSpec::new(&outside, &done)
        };
        g.pull(&spec, |v, ids| {
            let links = link_all(&comp, v, ids, Some(giant));
            linked.fetch_add(links as u64, Relaxed);
            comp[v as usize].load(Relaxed) == giant
        })
        .map_err(read_error(ALGORITHM))?;
        passes += 1;
    }
    compress(&comp);
    let labels: Vec<Vertex> = comp.into_iter().map(AtomicU32::into_inner).collect();
    let num_components = labels
        .par_iter()
        .enumerate()
        .filter(|&(v, &l)| v as Vertex == l)
        .count() as u64;
    let stats = RunStats {
        iterations: passes,
        edges_traversed: linked.into_inner(),
        ..Default::default()
    }
    .with("components", num_components)
    .with(
        "method",
        "union-find in one pass, skipping the giant component",
    );
    Ok(CcResult {
        labels,
        num_components,
        stats,
    })
}

/// The vertices of highest degree whose lists hold about `target` arcs (at least that many,
/// unless the graph has fewer): a degree threshold found from a histogram of the arcs by the
/// degree's power of two, refined within the power where the target falls.
fn highest_degrees(n: usize, degree: impl Fn(usize) -> u64 + Sync, target: u64) -> Bitmap {
    if target == 0 {
        return Bitmap::new(n);
    }
    // On a store ordered by degree they are the prefix that reaches the target, through the
    // list that reaches it: one pass to see the order (which stops at the first rise of any
    // other order) instead of three over the degrees (30 ms on Kronecker 25).
    let by_degree = (0..n.saturating_sub(1))
        .into_par_iter()
        .with_min_len(1 << 16)
        .all(|v| degree(v) >= degree(v + 1));
    if by_degree {
        let (mut prefix, mut arcs) = (0, 0);
        while prefix < n && arcs < target {
            arcs += degree(prefix);
            prefix += 1;
        }
        return Bitmap::from_fn(n, |v| v < prefix);
    }
    // Bucket k holds degrees 2^(k-1)..2^k (bucket 0, degree 0).
    let by_power = arcs_by_degree(n, &degree, 65, |d| Some(64 - d.leading_zeros() as usize));
    // The power where the arcs of higher degrees reach the target.
    let (mut k, mut above) = (64usize, 0u64);
    while k > 1 && above + by_power[k] < target {
        above += by_power[k];
        k -= 1;
    }
    let (lo, hi) = (1u64 << (k - 1), 1u64 << k.min(63));
    // Within it, buckets of equal width, at most 2^16 of them and no more than a bucket for 64
    // vertices: on a small graph the histograms would outweigh the vertex state.
    let most = (n as u64 / 64).clamp(1, 1 << 16);
    let width = ((hi - lo) / most).max(1);
    let buckets = ((hi - lo) / width) as usize;
    let fine = arcs_by_degree(n, &degree, buckets, |d| {
        (lo..hi).contains(&d).then(|| ((d - lo) / width) as usize)
    });
    let mut b = buckets;
    while b > 0 && above < target {
        b -= 1;
        above += fine[b];
    }
    let threshold = (lo + b as u64 * width).max(1);
    Bitmap::from_fn(n, |v| degree(v) >= threshold)
}

/// The arcs of the vertices by the bucket `bucket` gives their degree (none: not counted),
/// summed over tasks of 1M vertices, each with its own histogram.
fn arcs_by_degree(
    n: usize,
    degree: &(impl Fn(usize) -> u64 + Sync),
    buckets: usize,
    bucket: impl Fn(u64) -> Option<usize> + Sync,
) -> Vec<u64> {
    const TASK: usize = 1 << 20;
    (0..n.div_ceil(TASK))
        .into_par_iter()
        .map(|t| {
            let mut arcs = vec![0u64; buckets];
            for v in t * TASK..((t + 1) * TASK).min(n) {
                let d = degree(v);
                if let Some(b) = bucket(d) {
                    arcs[b] += d;
                }
            }
            arcs
        })
        .reduce(
            || vec![0u64; buckets],
            |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
        )
}

/// The root of `v`'s tree, without changing the forest.
fn find(comp: &[AtomicU32], mut v: Vertex) -> Vertex {
    loop {
        let parent = comp[v as usize].load(Relaxed);
        if parent == v {
            return v;
        }
        v = parent;
    }
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

// The registry's entry.

use crate::algorithm::{Algorithm, Conflict, Descriptor, Needs, Param, Params, SEED};
use crate::registry::Values;

pub const METHOD: Param = Param::choice(
    "method",
    &["afforest", "ldd"],
    "afforest (sampling, then linking) or ldd (a low-diameter decomposition, then contraction)",
);
/// `cc` in the registry.
pub struct Cc;

impl Algorithm for Cc {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "cc",
        summary:
            "connected components (weak on directed graphs), label = smallest id in the component",
        params: &[METHOD, SEED, crate::ldd::BETA],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: false,
        vertex_values: crate::algorithm::VertexValues::Yes,
        conflicts: &[Conflict::OnlyWith(&crate::ldd::BETA, &METHOD, "ldd")],
        state_in_passes: Some(|n, p| (p.choice(&METHOD) == "afforest").then(|| state_in_passes(n))),
    };
    type Params = CcParams;
    type Result = CcResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<CcParams, AlgoError> {
        let method = match given.choice(&METHOD) {
            "ldd" => CcMethod::Ldd,
            _ => CcMethod::Afforest,
        };
        Ok(CcParams {
            method,
            seed: given.count(&SEED),
            beta: given.number(&crate::ldd::BETA),
            ..Default::default()
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &CcParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<CcResult, AlgoError> {
        connected_components(g, q)
    }
    fn verify<A: Adjacency>(g: &Graph<A>, _q: &CcParams, r: &CcResult) -> Result<(), VerifyError> {
        verify_cc(g, r)
    }
    fn output(r: CcResult, _q: &CcParams) -> (Option<Values>, RunStats) {
        (Some(Values::U32(r.labels)), r.stats)
    }
}

#[cfg(test)]
mod in_passes_tests {
    use super::*;

    fn highest(offsets: &[u64], target: u64) -> Bitmap {
        let n = offsets.len() - 1;
        highest_degrees(n, |v| offsets[v + 1] - offsets[v], target)
    }

    fn offsets_of(degrees: &[u64]) -> Vec<u64> {
        let mut offsets = vec![0];
        for d in degrees {
            offsets.push(offsets.last().unwrap() + d);
        }
        offsets
    }

    #[test]
    fn the_highest_degrees_hold_the_target_and_no_lower_degree_is_left_above_them() {
        // Degrees scattered over the ids: 3 hubs (5000, 3000, 3000), a tail of small ones and
        // isolated vertices.
        let mut degrees: Vec<u64> = (0..5000u64).map(|v| v % 7).collect();
        degrees[4321] = 5000;
        degrees[17] = 3000;
        degrees[2500] = 3000;
        let offsets = offsets_of(&degrees);
        let total = *offsets.last().unwrap();
        for target in [1, 4000, 5000, 5001, 8000, 11_000, 11_001, total / 2, total] {
            let hubs = highest(&offsets, target);
            let chosen: u64 = hubs
                .to_sorted_ids()
                .iter()
                .map(|&v| degrees[v as usize])
                .sum();
            assert!(chosen >= target, "target {target}: {chosen} arcs");
            // A threshold: every vertex of a higher degree than a chosen one is chosen too.
            let lowest = hubs
                .to_sorted_ids()
                .iter()
                .map(|&v| degrees[v as usize])
                .min();
            let lowest = lowest.expect("a target above 0 chooses a vertex");
            assert!(
                (0..5000).all(|v| degrees[v] < lowest || hubs.get(v)),
                "target {target}"
            );
            assert!(lowest > 0, "isolated vertices are never hubs");
        }
        assert_eq!(highest(&offsets, 5000).to_sorted_ids(), vec![4321]);
        assert_eq!(
            highest(&offsets, 11_000).to_sorted_ids(),
            vec![17, 2500, 4321]
        );
        assert_eq!(highest(&offsets_of(&[0, 0]), 0).count_ones(), 0);

        // Ordered by degree: the prefix through the list that reaches the target.
        let mut sorted = degrees.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let offsets = offsets_of(&sorted);
        assert_eq!(highest(&offsets, 5000).to_sorted_ids(), vec![0]);
        assert_eq!(highest(&offsets, 5001).to_sorted_ids(), vec![0, 1]);
        assert_eq!(highest(&offsets, 11_001).to_sorted_ids(), vec![0, 1, 2, 3]);
    }
}
