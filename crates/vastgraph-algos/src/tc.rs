//! Triangle counting on a symmetric graph: the total, and on request the number of triangles
//! each vertex belongs to.
//!
//! Vertices are ranked by (degree, id) and each triangle u, v, w with rank(u) < rank(v) < rank(w)
//! is counted once, at its middle vertex v: v's higher neighbours N⁺(v) are marked in a
//! per-thread bitmap, and for every lower neighbour u of v the members of N(u) that are marked
//! are the triangles. No oriented copy of the graph is built (that would be O(m) memory); each
//! thread holds only an n-bit bitmap and buffers for one vertex's neighbours. Ranking by degree
//! keeps N⁺(v) short (hubs have few higher neighbours) and makes u the lower-degree end of each
//! edge, so the work is about Σ over edges of the smaller degree (Chiba and Nishizeki), not
//! Σ deg(v)² as without ranks; marking N⁺(v) once per v, rather than merging it with every
//! N(u), takes |N⁺(v)| off each edge's cost.
//!
//! Scanning N(u) stops past the largest marked id. When N(u) is far longer than N⁺(v) (a hub u
//! below a vertex of even higher degree), N⁺(v) gallops through N(u) instead, which needs the
//! neighbour slice of raw CSR; other backends stream N(u) through the bitmap.
//!
//! [`TcMethod::Filter`] (Sage's, in [`filtered`]) builds the orientation once as a graph filter,
//! one bit per arc, and intersects each lower neighbour u through its filtered N⁺(u), so that
//! only the blocks of u that still hold higher neighbours are decoded. It is not the default:
//! on Kronecker scale 20 (2 threads) it is 2-4× slower than the marking method on the raw and
//! on the compressed store alike (e.g. 10.9 s vs 2.5 s raw, 18.9 s vs 4.9 s compressed), because
//! a hub's few higher neighbours lie about one per block, each a cache miss on raw CSR or a
//! whole block decoded on the compressed store, where the cache below keeps them contiguous;
//! and it needs the filter's O(m) bits besides.
//!
//! A high-degree u is scanned once per higher neighbour, and most of N(u) is below u, where no
//! triangle can close; so N⁺(u) of the highest-degree vertices is cached, as many as fit a
//! budget of [`TcParams::cache_ids_per_vertex`] ids per vertex (O(n), unlike caching all of
//! them). On Kronecker graphs (scale 20) 4 ids per vertex cache 1.3% of the vertices and halve
//! the ids scanned.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;
use vastgraph_engine::{Adjacency, Graph, Vertex};

use crate::common::{require_symmetric, AlgoError, RunStats, StateSize, VerifyError};

mod filtered;
mod ranges;

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): ranks by degree, per-vertex counts
/// and the marking arrays of each thread; and for [`TcMethod::Ranges`] a range of lists, half a
/// byte an arc (about 16 passes).
pub const STATE: StateSize = StateSize {
    bytes_per_vertex: 32,
    bits_per_arc: 4,
};

/// The smallest range of [`TcMethod::Ranges`], so that a small graph is not cut into many.
const MIN_RANGE_BYTES: u64 = 256 << 10;

const ALGORITHM: &str = "tc";

/// How triangles are found; both methods give the same counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TcMethod {
    /// Count at the middle vertex with marked higher neighbours; no copy of the graph (the
    /// default: the faster on raw and compressed stores alike).
    Marking,
    /// The same, with the orientation low → high rank kept in a graph filter (O(m) bits) and
    /// lower neighbours' lists read through it.
    Filter,
    /// The same count by ranges of middle vertices, each range's lower neighbours' lists read
    /// in one pass ([`ranges`]): what a graph read from disk runs instead of the marking
    /// method.
    Ranges,
}

impl TcMethod {
    pub fn name(self) -> &'static str {
        match self {
            TcMethod::Marking => "marking",
            TcMethod::Filter => "filter",
            TcMethod::Ranges => "ranges",
        }
    }
}

impl std::str::FromStr for TcMethod {
    type Err = AlgoError;
    fn from_str(s: &str) -> Result<Self, AlgoError> {
        match s {
            "marking" => Ok(TcMethod::Marking),
            "filter" => Ok(TcMethod::Filter),
            "ranges" => Ok(TcMethod::Ranges),
            _ => Err(AlgoError::InvalidParameter {
                algorithm: ALGORITHM,
                message: format!(
                    "unknown method {s:?}; expected \"marking\", \"filter\" or \"ranges\""
                ),
            }),
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct TcParams {
    /// Also count the triangles of every vertex (one more word per vertex, atomics per triangle).
    pub per_vertex: bool,
    /// Memory for cached N⁺ lists of high-degree vertices, in ids per vertex of the graph
    /// (0 disables the cache; more ids, fewer neighbours scanned).
    pub cache_ids_per_vertex: usize,
    pub method: TcMethod,
    /// [`TcMethod::Ranges`]: bytes of lists a range holds (0: half a byte per arc of the
    /// graph, as [`STATE`] declares, and at least 256 KiB).
    pub range_bytes: u64,
}

impl Default for TcParams {
    fn default() -> Self {
        TcParams {
            per_vertex: false,
            cache_ids_per_vertex: 4,
            method: TcMethod::Marking,
            range_bytes: 0,
        }
    }
}

#[derive(Debug)]
pub struct TcResult {
    pub triangles: u64,
    /// Triangles containing each vertex (they sum to 3 × `triangles`), when asked for.
    pub per_vertex: Option<Vec<u64>>,
    /// Stats: iterations = 1; extra `triangles`, `intersections` (oriented edges examined),
    /// `method`; with the filter also `filter_bytes`, `filter_blocks`, `filter_arcs`.
    pub stats: RunStats,
}

/// (degree, id) as one comparable word.
#[inline]
fn rank<A: Adjacency>(adj: &A, v: Vertex) -> u64 {
    ((adj.degree(v) as u64) << 32) | v as u64
}

/// Vertices handed to a worker at a time (one lock of its scratch space per block).
const BLOCK: usize = 64;

/// Per-thread state, reused across vertices.
#[derive(Default)]
struct Scratch {
    higher: Vec<Vertex>,
    lower: Vec<Vertex>,
    /// n bits, all clear between vertices: the marks of the current N⁺(v).
    marked: Vec<u64>,
    /// Per-vertex counting: triangles found so far with each member of N⁺(v) as apex.
    apex_hits: Vec<u64>,
}

/// What a scan does with each triangle's apex, besides counting it.
trait Apex {
    /// False when [`Apex::found`] does nothing (the scan is then branch-free).
    const RECORDS: bool;
    fn found(&mut self, w: Vertex);
}

/// Only the total.
struct CountOnly;

impl Apex for CountOnly {
    const RECORDS: bool = false;
    #[inline(always)]
    fn found(&mut self, _w: Vertex) {}
}

/// Tallies apexes per member of N⁺(v) in thread-local counters, which reach the shared atomics
/// once per (v, apex) rather than once per triangle.
struct ApexHits<'a> {
    higher: &'a [Vertex],
    hits: &'a mut [u64],
}

impl Apex for ApexHits<'_> {
    const RECORDS: bool = true;
    #[inline]
    fn found(&mut self, w: Vertex) {
        let at = self.higher.binary_search(&w).expect("an apex is in N⁺(v)");
        self.hits[at] += 1;
    }
}

/// Counts triangles; the graph must be symmetric.
pub fn tc<A: Adjacency>(g: &Graph<A>, params: &TcParams) -> Result<TcResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    // On a graph read from disk, a lower neighbour's list at random is a read per arc, and the
    // filter's reads through the cache of blocks read the lists thousands of times over.
    let method = match params.method {
        TcMethod::Marking if A::READS_IN_PASSES => TcMethod::Ranges,
        TcMethod::Filter if A::READS_IN_PASSES => {
            log::warn!(
                "tc --method filter reads a lower neighbour's list at random, a read per arc of a \
                 graph read from disk: counting by ranges instead (--method ranges)"
            );
            TcMethod::Ranges
        }
        method => method,
    };
    let counts: Option<Vec<AtomicU64>> = params
        .per_vertex
        .then(|| (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect());
    let mut filter_stats = None;
    let mut ranges_run = None;
    let (triangles, intersections) = match method {
        TcMethod::Filter => {
            let (t, i, fs) = filtered::count_all(g.out(), counts.as_deref());
            filter_stats = Some(fs);
            (t, i)
        }
        TcMethod::Ranges => {
            let range_bytes = match params.range_bytes {
                0 => (STATE.bits_per_arc * g.num_arcs() / 8).max(MIN_RANGE_BYTES),
                bytes => bytes,
            };
            let (t, i, r) = ranges::count_all(g.out(), counts.as_deref(), range_bytes);
            ranges_run = Some(r);
            (t, i)
        }
        _ => count_all(g.out(), counts.as_deref(), params.cache_ids_per_vertex),
    };
    // In place: std reuses the allocation of a Vec collected from its own iterator.
    let per_vertex = counts.map(|c| c.into_iter().map(AtomicU64::into_inner).collect());
    let mut stats = RunStats {
        iterations: 1,
        edges_traversed: g.num_arcs(),
        ..Default::default()
    }
    .with("triangles", triangles)
    .with("intersections", intersections)
    .with("method", method.name());
    if let Some(r) = ranges_run {
        stats = stats.with("ranges", r);
    }
    if let Some(fs) = filter_stats {
        stats = stats
            .with("filter_bytes", fs.bytes)
            .with("filter_blocks", fs.live_blocks)
            .with("filter_arcs", fs.active_arcs);
    }
    Ok(TcResult {
        triangles,
        per_vertex,
        stats,
    })
}

/// (triangles, intersections) over all middle vertices; per-vertex counts go to `counts`.
fn count_all<A: Adjacency>(
    adj: &A,
    counts: Option<&[AtomicU64]>,
    cache_ids_per_vertex: usize,
) -> (u64, u64) {
    let n = adj.num_vertices();
    let lists = GraphLists {
        adj,
        cache: UpperCache::build(adj, cache_ids_per_vertex.saturating_mul(n)),
    };
    sum_over_vertices(n, |v, s| count_at_middle(adj, v, s, &lists, counts))
}

/// Counts the marked members of a lower neighbour's list: where the two methods differ.
trait CountMarked: Sync {
    /// |N(u) ∩ higher| (members above u suffice), reporting each common vertex; `higher` is
    /// N⁺(v), sorted and marked.
    fn count_marked<T: Apex>(
        &self,
        u: Vertex,
        higher: &[Vertex],
        marked: &[u64],
        apex: &mut T,
    ) -> u64;
}

/// [`TcMethod::Marking`]: u's list as the graph stores it, or its cached N⁺.
struct GraphLists<'a, A: Adjacency> {
    adj: &'a A,
    cache: UpperCache,
}

/// Sums `count(v, scratch)` = (triangles, intersections) over all vertices in parallel, each
/// worker with its own scratch space.
fn sum_over_vertices<F>(n: usize, count: F) -> (u64, u64)
where
    F: Fn(Vertex, &mut Scratch) -> (u64, u64) + Sync,
{
    // One scratch space per worker of the current pool; a worker locks only its own.
    let scratch: Vec<Mutex<Scratch>> = (0..rayon::current_num_threads())
        .map(|_| Mutex::default())
        .collect();
    // Single blocks as tasks: see `vastgraph_engine::bitmap::WORDS_PER_TASK`.
    (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .with_max_len(1)
        .map(|block| {
            // A run abandoned from the host stops here (counting has no engine operation).
            vastgraph_engine::interrupt::check();
            let slot = &scratch[rayon::current_thread_index().unwrap_or(0) % scratch.len()];
            let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
            if s.marked.is_empty() {
                s.marked = vec![0; n.div_ceil(64)];
            }
            let (mut triangles, mut intersections) = (0, 0);
            for v in block * BLOCK..((block + 1) * BLOCK).min(n) {
                let (t, i) = count(v as Vertex, &mut s);
                triangles += t;
                intersections += i;
            }
            (triangles, intersections)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Triangles whose middle-ranked vertex is `v`, and the number of lower neighbours examined.
fn count_at_middle<A: Adjacency, L: CountMarked>(
    adj: &A,
    v: Vertex,
    s: &mut Scratch,
    lists: &L,
    counts: Option<&[AtomicU64]>,
) -> (u64, u64) {
    let Scratch {
        higher,
        lower,
        marked,
        apex_hits,
    } = s;
    let rv = rank(adj, v);
    higher.clear();
    lower.clear();
    adj.for_each_neighbor(v, |x| {
        let rx = rank(adj, x);
        if rx > rv {
            higher.push(x);
        } else if rx < rv {
            lower.push(x);
        }
    });
    if higher.is_empty() || lower.is_empty() {
        return (0, 0);
    }
    for &w in higher.iter() {
        marked[w as usize / 64] |= 1 << (w % 64);
    }
    let mut total = 0;
    match counts {
        None => {
            for &u in lower.iter() {
                total += lists.count_marked(u, higher, marked, &mut CountOnly);
            }
        }
        Some(counts) => {
            apex_hits.clear();
            apex_hits.resize(higher.len(), 0);
            for &u in lower.iter() {
                let mut apex = ApexHits {
                    higher,
                    hits: apex_hits,
                };
                let found = lists.count_marked(u, higher, marked, &mut apex);
                if found > 0 {
                    counts[u as usize].fetch_add(found, Relaxed);
                }
                total += found;
            }
            counts[v as usize].fetch_add(total, Relaxed);
            for (&w, &hits) in higher.iter().zip(apex_hits.iter()) {
                if hits > 0 {
                    counts[w as usize].fetch_add(hits, Relaxed);
                }
            }
        }
    }
    for &w in higher.iter() {
        marked[w as usize / 64] = 0;
    }
    (total, lower.len() as u64)
}

/// N⁺(u) of the highest-degree vertices, as many as fit a budget of O(n) ids. A vertex u is
/// scanned once for each of its higher neighbours; for a high-degree u most of N(u) is lower
/// than u and cannot close a triangle there, so scanning its short N⁺(u) instead saves the most.
/// (Caching every N⁺ would be an oriented copy of the graph: O(m).)
struct UpperCache {
    /// Where u's list starts in `lists` (its length first, then the ids), or `NOT_CACHED`.
    start: Vec<u32>,
    lists: Vec<Vertex>,
}

const NOT_CACHED: u32 = u32::MAX;

/// Cached vertices whose lists one task fills.
const CACHE_FILL_BLOCK: usize = 256;

impl UpperCache {
    fn build<A: Adjacency>(adj: &A, budget: usize) -> UpperCache {
        let n = adj.num_vertices();
        if budget == 0 {
            return UpperCache {
                start: Vec::new(),
                lists: Vec::new(),
            };
        }
        // Ids each vertex would take: its length word and N⁺. A vertex with an empty N⁺ is never
        // below anything, so it is never looked up.
        let entries: Vec<u32> = (0..n as Vertex)
            .into_par_iter()
            .with_max_len(BLOCK)
            .map(|v| {
                let rv = rank(adj, v);
                let mut higher = 0;
                adj.for_each_neighbor(v, |x| higher += (rank(adj, x) > rv) as u32);
                if higher == 0 {
                    0
                } else {
                    higher + 1
                }
            })
            .collect();
        // Ids needed to cache all vertices of each degree; take degrees from the top while they fit.
        let max_degree = (0..n as Vertex)
            .into_par_iter()
            .map(|v| adj.degree(v))
            .max()
            .unwrap_or(0);
        let mut per_degree = vec![0u64; max_degree + 1];
        for v in 0..n {
            per_degree[adj.degree(v as Vertex)] += entries[v] as u64;
        }
        let budget = budget.min(u32::MAX as usize) as u64;
        let (mut used, mut threshold) = (0u64, max_degree + 1);
        while threshold > 1 && used + per_degree[threshold - 1] <= budget {
            threshold -= 1;
            used += per_degree[threshold];
        }
        drop(per_degree);
        let cached: Vec<Vertex> = (0..n as Vertex)
            .into_par_iter()
            .filter(|&v| entries[v as usize] > 0 && adj.degree(v) >= threshold)
            .collect();
        let mut start = vec![NOT_CACHED; n];
        let mut total = 0u32;
        for &v in &cached {
            start[v as usize] = total;
            total += entries[v as usize];
        }
        drop(entries);
        // Blocks of cached vertices fill disjoint ranges of the lists in parallel.
        let mut lists = vec![0 as Vertex; total as usize];
        let mut pieces = Vec::new();
        let mut rest = lists.as_mut_slice();
        for (i, block) in cached.chunks(CACHE_FILL_BLOCK).enumerate() {
            let end = cached
                .get((i + 1) * CACHE_FILL_BLOCK)
                .map_or(total, |&next| start[next as usize]);
            let (piece, tail) = rest.split_at_mut((end - start[block[0] as usize]) as usize);
            pieces.push((block, piece));
            rest = tail;
        }
        pieces
            .into_par_iter()
            .with_max_len(1)
            .for_each(|(block, piece)| {
                let mut at = 0;
                for &v in block {
                    let rv = rank(adj, v);
                    let header = at;
                    at += 1;
                    adj.for_each_neighbor(v, |x| {
                        if rank(adj, x) > rv {
                            piece[at] = x;
                            at += 1;
                        }
                    });
                    piece[header] = (at - header - 1) as Vertex;
                }
            });
        UpperCache { start, lists }
    }

    #[inline]
    fn get(&self, u: Vertex) -> Option<&[Vertex]> {
        let at = *self.start.get(u as usize)?;
        (at != NOT_CACHED).then(|| {
            let at = at as usize;
            &self.lists[at + 1..at + 1 + self.lists[at] as usize]
        })
    }
}

/// Lists longer than this many times N⁺(v) are galloped through rather than scanned.
const GALLOP_RATIO: usize = 32;

impl<A: Adjacency> CountMarked for GraphLists<'_, A> {
    #[inline]
    fn count_marked<T: Apex>(
        &self,
        u: Vertex,
        higher: &[Vertex],
        marked: &[u64],
        apex: &mut T,
    ) -> u64 {
        let last = *higher.last().expect("higher is not empty");
        if let Some(upper) = self.cache.get(u) {
            // Every common vertex is above v, hence above u: N⁺(u) is enough.
            return scan_marked(upper, last, marked, apex);
        }
        match self.adj.neighbor_slice(u) {
            Some(nu) if nu.len() > GALLOP_RATIO * higher.len() => gallop(higher, nu, apex),
            Some(nu) => scan_marked(nu, last, marked, apex),
            None => {
                let mut count = 0;
                let visit = count_until(&mut count, last, marked, apex);
                self.adj.try_for_each_neighbor(u, visit);
                count
            }
        }
    }
}

/// The visitor of a streamed list: adds its marked members to `count` and stops past `last`,
/// the largest mark.
#[inline]
fn count_until<'a, T: Apex>(
    count: &'a mut u64,
    last: Vertex,
    marked: &'a [u64],
    apex: &'a mut T,
) -> impl FnMut(Vertex) -> bool + 'a {
    move |w| {
        *count += probe(marked, w, apex);
        w < last
    }
}

/// 1 if `w` is marked (reporting it as a triangle's apex), else 0.
#[inline(always)]
fn probe<T: Apex>(marked: &[u64], w: Vertex, apex: &mut T) -> u64 {
    let hit = (marked[w as usize / 64] >> (w % 64)) & 1;
    if T::RECORDS && hit != 0 {
        apex.found(w);
    }
    hit
}

/// Members of `nu` up to `last` that are marked.
#[inline]
fn scan_marked<T: Apex>(nu: &[Vertex], last: Vertex, marked: &[u64], apex: &mut T) -> u64 {
    let mut count = 0;
    // Whole groups at or below `last` need no exit test per element, so the loop is branch-free.
    let mut groups = nu.chunks_exact(8);
    for group in &mut groups {
        if group[7] > last {
            let below = group.iter().take_while(|&&w| w <= last);
            return count + below.map(|&w| probe(marked, w, apex)).sum::<u64>();
        }
        count += group.iter().map(|&w| probe(marked, w, apex)).sum::<u64>();
    }
    let below = groups.remainder().iter().take_while(|&&w| w <= last);
    count + below.map(|&w| probe(marked, w, apex)).sum::<u64>()
}

/// For each element of `short`, an exponential then binary search in `long` from where the
/// previous one stopped: O(|short| log(|long| / |short|)).
fn gallop<T: Apex>(short: &[Vertex], long: &[Vertex], apex: &mut T) -> u64 {
    let mut rest = long;
    let mut count = 0;
    for &x in short {
        let mut bound = 1;
        while bound < rest.len() && rest[bound] < x {
            bound *= 2;
        }
        let window = &rest[..(bound + 1).min(rest.len())];
        rest = &rest[window.partition_point(|&y| y < x)..];
        match rest.first() {
            None => break,
            Some(&y) if y == x => {
                apex.found(x);
                count += 1;
                rest = &rest[1..];
            }
            Some(_) => {}
        }
    }
    count
}

/// Checks `result` with a serial count, exactly, including per-vertex counts when present. Each
/// triangle is found at its highest vertex a (by degree, then id): with N(a) marked, every lower
/// neighbour b scans its own list for marked vertices c below b. Scanning from the lower end of
/// each edge keeps this near Σ over edges of the smaller degree, fast enough for big graphs.
pub fn verify_tc<A: Adjacency>(g: &Graph<A>, result: &TcResult) -> Result<(), VerifyError> {
    if !g.is_symmetric() {
        return Err(VerifyError::new(ALGORITHM, "the graph is not symmetric"));
    }
    let adj = g.out();
    let n = g.num_vertices();
    let below = |x: Vertex, y: Vertex| (adj.degree(x), x) < (adj.degree(y), y);
    let mut marked = vec![false; n];
    let mut per_vertex = vec![0u64; n];
    let mut total = 0u64;
    for a in 0..n as Vertex {
        adj.for_each_neighbor(a, |x| marked[x as usize] = true);
        adj.for_each_neighbor(a, |b| {
            if !below(b, a) {
                return;
            }
            adj.for_each_neighbor(b, |c| {
                if below(c, b) && marked[c as usize] {
                    total += 1;
                    for x in [a, b, c] {
                        per_vertex[x as usize] += 1;
                    }
                }
            });
        });
        adj.for_each_neighbor(a, |x| marked[x as usize] = false);
    }
    if result.triangles != total {
        return Err(VerifyError::new(
            ALGORITHM,
            format!("{} triangles, expected {total}", result.triangles),
        ));
    }
    if let Some(got) = &result.per_vertex {
        if got.len() != n {
            return Err(VerifyError::new(
                ALGORITHM,
                format!("{} per-vertex counts for {n} vertices", got.len()),
            ));
        }
        let sum: u64 = got.iter().sum();
        if sum != 3 * total {
            return Err(VerifyError::new(
                ALGORITHM,
                format!("per-vertex counts sum to {sum}, expected 3 × {total}"),
            ));
        }
        if let Some(v) = (0..n).find(|&v| got[v] != per_vertex[v]) {
            return Err(VerifyError::new(
                ALGORITHM,
                format!(
                    "vertex {v}: {} triangles, expected {}",
                    got[v], per_vertex[v]
                ),
            ));
        }
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Param, Params};
use crate::registry::Values;

pub const METHOD: Param = Param::choice(
    "method",
    &["marking", "filter", "ranges"],
    "marking (mark a vertex's higher neighbours), filter (the orientation in a graph filter) or ranges (by ranges of vertices, one pass each: what a run within --memory takes)",
);
pub const PER_VERTEX: Param = Param::flag("per_vertex", "output the triangles at each vertex");
/// `tc` in the registry.
pub struct Tc;

impl Algorithm for Tc {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "tc",
        summary: "triangle count (total in stats; --per-vertex for counts per vertex)",
        params: &[METHOD, PER_VERTEX],
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
    type Params = TcParams;
    type Result = TcResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<TcParams, AlgoError> {
        Ok(TcParams {
            per_vertex: given.flag(&PER_VERTEX),
            method: given.choice(&METHOD).parse()?,
            ..Default::default()
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &TcParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<TcResult, AlgoError> {
        tc(g, q)
    }
    fn verify<A: Adjacency>(g: &Graph<A>, _q: &TcParams, r: &TcResult) -> Result<(), VerifyError> {
        verify_tc(g, r)
    }
    fn output(r: TcResult, _q: &TcParams) -> (Option<Values>, RunStats) {
        (r.per_vertex.map(Values::U64), r.stats)
    }
}
