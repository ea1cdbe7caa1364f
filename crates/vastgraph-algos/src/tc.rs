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

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;
use vastgraph_engine::{Adjacency, Graph, Vertex};

use crate::common::{require_symmetric, AlgoError, RunStats, VerifyError};

const ALGORITHM: &str = "tc";

#[derive(Clone, Debug)]
pub struct TcParams {
    /// Also count the triangles of every vertex (one more word per vertex, atomics per triangle).
    pub per_vertex: bool,
    /// Memory for cached N⁺ lists of high-degree vertices, in ids per vertex of the graph
    /// (0 disables the cache; more ids, fewer neighbours scanned).
    pub cache_ids_per_vertex: usize,
}

impl Default for TcParams {
    fn default() -> Self {
        TcParams { per_vertex: false, cache_ids_per_vertex: 4 }
    }
}

#[derive(Debug)]
pub struct TcResult {
    pub triangles: u64,
    /// Triangles containing each vertex (they sum to 3 × `triangles`), when asked for.
    pub per_vertex: Option<Vec<u64>>,
    /// Stats: iterations = 1; extra `triangles`, `intersections` (oriented edges examined).
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
struct Scratch {
    higher: Vec<Vertex>,
    lower: Vec<Vertex>,
    /// n bits, all clear between vertices: the marks of the current N⁺(v).
    marked: Vec<u64>,
}

/// Where triangles found at one middle vertex are recorded.
trait Tally {
    /// Whether [`Tally::apex`] does anything (the scan is branch-free when it does not).
    const RECORDS_APEX: bool;
    /// `w` closes a triangle (the caller counts it).
    fn apex(&self, w: Vertex);
    /// `u` and `v` are in `found` more triangles.
    fn pair(&self, u: Vertex, v: Vertex, found: u64);
}

/// Only the total.
struct TotalOnly;

impl Tally for TotalOnly {
    const RECORDS_APEX: bool = false;
    #[inline(always)]
    fn apex(&self, _w: Vertex) {}
    #[inline(always)]
    fn pair(&self, _u: Vertex, _v: Vertex, _found: u64) {}
}

struct PerVertex<'a>(&'a [AtomicU64]);

impl Tally for PerVertex<'_> {
    const RECORDS_APEX: bool = true;
    #[inline(always)]
    fn apex(&self, w: Vertex) {
        self.0[w as usize].fetch_add(1, Relaxed);
    }
    #[inline(always)]
    fn pair(&self, u: Vertex, v: Vertex, found: u64) {
        if found > 0 {
            self.0[u as usize].fetch_add(found, Relaxed);
            self.0[v as usize].fetch_add(found, Relaxed);
        }
    }
}

/// Counts triangles; the graph must be symmetric.
pub fn tc<A: Adjacency>(g: &Graph<A>, params: &TcParams) -> Result<TcResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    let (triangles, intersections, per_vertex) = if params.per_vertex {
        let counts: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
        let (t, i) = count_all(g.out(), &PerVertex(&counts), params.cache_ids_per_vertex);
        // In place: std reuses the allocation of a Vec collected from its own iterator.
        (t, i, Some(counts.into_iter().map(AtomicU64::into_inner).collect()))
    } else {
        let (t, i) = count_all(g.out(), &TotalOnly, params.cache_ids_per_vertex);
        (t, i, None)
    };
    let stats = RunStats { iterations: 1, edges_traversed: g.num_arcs(), ..Default::default() }
        .with("triangles", triangles)
        .with("intersections", intersections);
    Ok(TcResult { triangles, per_vertex, stats })
}

/// (triangles, intersections) over all middle vertices.
fn count_all<A: Adjacency, T: Tally + Sync>(adj: &A, tally: &T, cache_ids_per_vertex: usize) -> (u64, u64) {
    let n = adj.num_vertices();
    let cache = UpperCache::build(adj, cache_ids_per_vertex.saturating_mul(n));
    // One scratch space per worker of the current pool; a worker locks only its own.
    let scratch: Vec<Mutex<Option<Scratch>>> = (0..rayon::current_num_threads()).map(|_| Mutex::new(None)).collect();
    (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .map(|block| {
            let slot = &scratch[rayon::current_thread_index().unwrap_or(0) % scratch.len()];
            let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
            let s = guard.get_or_insert_with(|| Scratch {
                higher: Vec::new(),
                lower: Vec::new(),
                marked: vec![0; n.div_ceil(64)],
            });
            let (mut triangles, mut intersections) = (0, 0);
            for v in block * BLOCK..((block + 1) * BLOCK).min(n) {
                let (t, i) = count_at_middle(adj, v as Vertex, s, &cache, tally);
                triangles += t;
                intersections += i;
            }
            (triangles, intersections)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Triangles whose middle-ranked vertex is `v`, and the number of lower neighbours examined.
fn count_at_middle<A: Adjacency, T: Tally>(
    adj: &A,
    v: Vertex,
    s: &mut Scratch,
    cache: &UpperCache,
    tally: &T,
) -> (u64, u64) {
    let rv = rank(adj, v);
    s.higher.clear();
    s.lower.clear();
    adj.for_each_neighbor(v, |x| {
        let rx = rank(adj, x);
        if rx > rv {
            s.higher.push(x);
        } else if rx < rv {
            s.lower.push(x);
        }
    });
    if s.higher.is_empty() || s.lower.is_empty() {
        return (0, 0);
    }
    for &w in &s.higher {
        s.marked[w as usize / 64] |= 1 << (w % 64);
    }
    let mut total = 0;
    for &u in &s.lower {
        let found = match cache.get(u) {
            // Every common vertex is above v, hence above u: N⁺(u) is enough.
            Some(upper) => scan_marked(upper, *s.higher.last().expect("not empty"), &s.marked, tally),
            None => count_marked(adj, u, &s.higher, &s.marked, tally),
        };
        tally.pair(u, v, found);
        total += found;
    }
    for &w in &s.higher {
        s.marked[w as usize / 64] = 0;
    }
    (total, s.lower.len() as u64)
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
            return UpperCache { start: Vec::new(), lists: Vec::new() };
        }
        // Ids each vertex would take: its length word and N⁺. A vertex with an empty N⁺ is never
        // below anything, so it is never looked up.
        let entries: Vec<u32> = (0..n as Vertex)
            .into_par_iter()
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
        let max_degree = (0..n as Vertex).into_par_iter().map(|v| adj.degree(v)).max().unwrap_or(0);
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
            let end = cached.get((i + 1) * CACHE_FILL_BLOCK).map_or(total, |&next| start[next as usize]);
            let (piece, tail) = rest.split_at_mut((end - start[block[0] as usize]) as usize);
            pieces.push((block, piece));
            rest = tail;
        }
        pieces.into_par_iter().for_each(|(block, piece)| {
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

#[inline(always)]
fn is_marked(marked: &[u64], w: Vertex) -> u64 {
    (marked[w as usize / 64] >> (w % 64)) & 1
}

/// |N(u) ∩ higher|, reporting each common vertex; `higher` is sorted and marked.
#[inline]
fn count_marked<A: Adjacency, T: Tally>(adj: &A, u: Vertex, higher: &[Vertex], marked: &[u64], tally: &T) -> u64 {
    let last = *higher.last().expect("higher is not empty");
    match adj.neighbor_slice(u) {
        Some(nu) if nu.len() > GALLOP_RATIO * higher.len() => gallop(higher, nu, tally),
        Some(nu) => scan_marked(nu, last, marked, tally),
        None => {
            let mut count = 0;
            adj.try_for_each_neighbor(u, |w| {
                let hit = is_marked(marked, w);
                if hit != 0 {
                    tally.apex(w);
                }
                count += hit;
                w < last
            });
            count
        }
    }
}

/// Members of `nu` up to `last` that are marked.
#[inline]
fn scan_marked<T: Tally>(nu: &[Vertex], last: Vertex, marked: &[u64], tally: &T) -> u64 {
    let mut count = 0;
    let mut probe = |w: Vertex| {
        let hit = is_marked(marked, w);
        if T::RECORDS_APEX && hit != 0 {
            tally.apex(w);
        }
        count += hit;
    };
    // Whole groups at or below `last` need no exit test per element, so the loop is branch-free.
    let mut groups = nu.chunks_exact(8);
    for group in &mut groups {
        if group[7] > last {
            group.iter().take_while(|&&w| w <= last).for_each(|&w| probe(w));
            return count;
        }
        group.iter().for_each(|&w| probe(w));
    }
    groups.remainder().iter().take_while(|&&w| w <= last).for_each(|&w| probe(w));
    count
}

/// For each element of `short`, an exponential then binary search in `long` from where the
/// previous one stopped: O(|short| log(|long| / |short|)).
fn gallop<T: Tally>(short: &[Vertex], long: &[Vertex], tally: &T) -> u64 {
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
                tally.apex(x);
                count += 1;
                rest = &rest[1..];
            }
            Some(_) => {}
        }
    }
    count
}

/// Checks `result` with a serial count over id order (triangle u < v < w found at its lowest
/// vertex by marking N(u)), exactly, including per-vertex counts when present.
pub fn verify_tc<A: Adjacency>(g: &Graph<A>, result: &TcResult) -> Result<(), VerifyError> {
    if !g.is_symmetric() {
        return Err(VerifyError::new(ALGORITHM, "the graph is not symmetric"));
    }
    let adj = g.out();
    let n = g.num_vertices();
    let mut marked = vec![false; n];
    let mut per_vertex = vec![0u64; n];
    let mut total = 0u64;
    for u in 0..n as Vertex {
        adj.for_each_neighbor(u, |v| marked[v as usize] = true);
        adj.for_each_neighbor(u, |v| {
            if v <= u {
                return;
            }
            adj.for_each_neighbor(v, |w| {
                if w > v && marked[w as usize] {
                    total += 1;
                    per_vertex[u as usize] += 1;
                    per_vertex[v as usize] += 1;
                    per_vertex[w as usize] += 1;
                }
            });
        });
        adj.for_each_neighbor(u, |v| marked[v as usize] = false);
    }
    if result.triangles != total {
        return Err(VerifyError::new(ALGORITHM, format!("{} triangles, expected {total}", result.triangles)));
    }
    if let Some(got) = &result.per_vertex {
        if got.len() != n {
            return Err(VerifyError::new(ALGORITHM, format!("{} per-vertex counts for {n} vertices", got.len())));
        }
        let sum: u64 = got.iter().sum();
        if sum != 3 * total {
            return Err(VerifyError::new(ALGORITHM, format!("per-vertex counts sum to {sum}, expected 3 × {total}")));
        }
        if let Some(v) = (0..n).find(|&v| got[v] != per_vertex[v]) {
            return Err(VerifyError::new(
                ALGORITHM,
                format!("vertex {v}: {} triangles, expected {}", got[v], per_vertex[v]),
            ));
        }
    }
    Ok(())
}
