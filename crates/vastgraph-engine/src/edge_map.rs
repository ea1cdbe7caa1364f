//! `edge_map`: apply an update along every arc leaving a frontier, returning the vertices whose
//! update succeeded. Direction-optimising as in Ligra: a small frontier pushes over its out-edges
//! with atomic updates; a large one (|F| + out-degree sum > arcs / threshold_divisor) pulls over
//! the in-edges of every vertex that still wants an update, without atomics and with early exit.
//!
//! The sparse push never materialises an array as long as the frontier's degree sum (Ligra does;
//! Sage's edgeMapChunked does not): every task keeps the destinations it won, and the output is
//! one parallel concatenation, so intermediate memory is bounded by the output, i.e. O(n).

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::bitmap::{for_each_in_word, Bitmap, WORDS_PER_TASK};
use crate::graph::{for_each_list_prefetched, pull_word, Adjacency, Graph, PUSH_CHUNK};
use crate::subset::VertexSubset;
use crate::Vertex;

/// The per-arc logic of one edge_map call.
pub trait EdgeMapFn: Sync {
    /// Whether the update uses the arc weight; when false no weight is read.
    const WEIGHTED: bool = false;
    /// Pull direction: only the thread that owns `d` calls this, so plain writes to `d` are safe.
    fn update(&self, s: Vertex, d: Vertex, w: f64) -> bool;
    /// Push direction: other threads may update `d` at the same time.
    fn update_atomic(&self, s: Vertex, d: Vertex, w: f64) -> bool;
    /// Whether `d` still wants updates. Pull stops scanning `d`'s in-edges once it is false.
    fn cond(&self, _d: Vertex) -> bool {
        true
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Choose per call by frontier size.
    Auto,
    Push,
    /// Pull when in-edges exist (symmetric graph, or a stored transpose); push otherwise.
    Pull,
}

/// Running totals across calls, for the run statistics.
#[derive(Default, Debug)]
pub struct EdgeMapCounters {
    pub edges_traversed: AtomicU64,
    pub push_steps: AtomicU64,
    pub pull_steps: AtomicU64,
}

impl EdgeMapCounters {
    pub fn edges(&self) -> u64 {
        self.edges_traversed.load(Ordering::Relaxed)
    }
}

#[derive(Clone, Copy)]
pub struct EdgeMapOptions<'c> {
    pub direction: Direction,
    /// Pull when |frontier| + its out-degree sum exceeds arcs / this (Ligra's default 20).
    pub threshold_divisor: u64,
    /// Build the output subset. Algorithms that only want the side effects (PageRank) say false.
    pub output: bool,
    pub counters: Option<&'c EdgeMapCounters>,
}

impl Default for EdgeMapOptions<'_> {
    fn default() -> Self {
        EdgeMapOptions {
            direction: Direction::Auto,
            threshold_divisor: 20,
            output: true,
            counters: None,
        }
    }
}

impl<'c> EdgeMapOptions<'c> {
    pub fn with_counters(counters: &'c EdgeMapCounters) -> Self {
        EdgeMapOptions {
            counters: Some(counters),
            ..Default::default()
        }
    }
}

/// On a graph read in passes, a push from at most this many vertices walks their lists one at a
/// time instead.
const WALK_MAX_LISTS: usize = 32;

/// Vertices with more out-edges than this are split across tasks when pushing.
const HEAVY_DEGREE: usize = 1 << 13;

pub fn edge_map<A: Adjacency, F: EdgeMapFn>(
    g: &Graph<A>,
    frontier: &VertexSubset,
    f: &F,
    opts: &EdgeMapOptions,
) -> VertexSubset {
    crate::interrupt::check();
    crate::progress::operation(Some(frontier.len() as u64));
    let n = g.num_vertices();
    if frontier.is_empty() {
        return VertexSubset::empty(n);
    }
    let out = g.out();
    let degree_sum: u64 = match frontier {
        VertexSubset::Sparse { ids, .. } => ids.par_iter().map(|&v| out.degree(v) as u64).sum(),
        VertexSubset::Dense { bits, .. } => sum_over_set(bits, |v| out.degree(v) as u64),
    };
    let heavy = frontier.len() as u64 + degree_sum > g.num_arcs() / opts.threshold_divisor.max(1);
    let pull_from = match opts.direction {
        Direction::Push => None,
        Direction::Pull => g.incoming(),
        Direction::Auto => g.incoming().filter(|_| heavy),
    };
    let count_step = |pull: bool, edges: u64| {
        if let Some(c) = opts.counters {
            c.edges_traversed.fetch_add(edges, Ordering::Relaxed);
            let step = if pull { &c.pull_steps } else { &c.push_steps };
            step.fetch_add(1, Ordering::Relaxed);
        }
    };

    // A push from a few vertices walks their lists: a planned pass would cost more to plan
    // than the few reads it saves.
    let few_lists = frontier.len() <= WALK_MAX_LISTS && pull_from.is_none();
    if !few_lists {
        if let Some((result, scanned)) = by_passes(g, frontier, f, opts, pull_from.is_some()) {
            count_step(pull_from.is_some(), scanned);
            return result;
        }
    }
    if let Some(incoming) = pull_from {
        let converted;
        let bits = match frontier.dense_bits() {
            Some(b) => b,
            None => {
                converted = sparse_to_bitmap(n, frontier.sparse_ids().unwrap());
                &converted
            }
        };
        let (result, scanned) = pull(incoming, bits, f, n, opts.output);
        count_step(true, scanned);
        return result;
    }

    count_step(false, degree_sum);
    match frontier {
        VertexSubset::Dense { bits, .. } if heavy => push_dense(out, bits, f, n, opts.output),
        VertexSubset::Dense { bits, .. } => {
            push_sparse(out, &bits.to_sorted_ids(), f, n, opts.output)
        }
        VertexSubset::Sparse { ids, .. } => push_sparse(out, ids, f, n, opts.output),
    }
}

/// On a graph read from disk in passes ([`Adjacency::scan_lists`]): one planned read of the
/// frontier's lists (push), or of the lists of the vertices that still want an update (pull),
/// each list's arcs applied while `cond` holds. Both directions update atomically: the pieces
/// of one long list may be handled by several threads at once. Returns the output and the arcs
/// looked at, or None on a graph whose lists are walked one at a time.
fn by_passes<A: Adjacency, F: EdgeMapFn>(
    g: &Graph<A>,
    frontier: &VertexSubset,
    f: &F,
    opts: &EdgeMapOptions,
    pull: bool,
) -> Option<(VertexSubset, u64)> {
    if !A::READS_IN_PASSES {
        return None;
    }
    let n = g.num_vertices();
    let converted;
    let bits = match frontier.dense_bits() {
        Some(b) => b,
        None => {
            converted = sparse_to_bitmap(n, frontier.sparse_ids()?);
            &converted
        }
    };
    let won = Bitmap::new(if opts.output { n } else { 0 });
    let looked = AtomicU64::new(0);
    let weight = |ws: &[f64], i: usize| if F::WEIGHTED { ws[i] } else { 1.0 };
    let scanned = match (pull, g.incoming()) {
        (true, Some(incoming)) => {
            let wanting = vertices_where(n, |d| f.cond(d));
            incoming.scan_lists(&wanting, F::WEIGHTED, |d, sources, ws| {
                let mut seen = 0;
                for (i, &s) in sources.iter().enumerate() {
                    if !f.cond(d) {
                        break;
                    }
                    seen += 1;
                    if bits.get(s as usize) && f.update_atomic(s, d, weight(ws, i)) && opts.output {
                        won.set_atomic(d as usize);
                    }
                }
                looked.fetch_add(seen, Ordering::Relaxed);
            })
        }
        _ => g.out().scan_lists(bits, F::WEIGHTED, |s, targets, ws| {
            for (i, &d) in targets.iter().enumerate() {
                if f.cond(d) && f.update_atomic(s, d, weight(ws, i)) && opts.output {
                    won.set_atomic(d as usize);
                }
            }
            looked.fetch_add(targets.len() as u64, Ordering::Relaxed);
        }),
    };
    if !scanned {
        return None;
    }
    let result = match opts.output {
        true => VertexSubset::from_bitmap(won),
        false => VertexSubset::empty(n),
    };
    Some((result, looked.into_inner()))
}

/// The vertices `d` for which `keep(d)` holds, as a bitmap built a word at a time.
fn vertices_where<K: Fn(Vertex) -> bool + Sync>(n: usize, keep: K) -> Bitmap {
    let words = (0..n.div_ceil(64))
        .into_par_iter()
        .map(|w| {
            (64 * w..(64 * w + 64).min(n))
                .filter(|&d| keep(d as Vertex))
                .fold(0u64, |word, d| word | 1 << (d - 64 * w))
        })
        .collect();
    Bitmap::from_words(words, n)
}

fn sparse_to_bitmap(n: usize, ids: &[Vertex]) -> Bitmap {
    let bits = Bitmap::new(n);
    ids.par_iter().for_each(|&v| {
        bits.set_atomic(v as usize);
    });
    bits
}

fn sum_over_set<G: Fn(Vertex) -> u64 + Sync>(bits: &Bitmap, g: G) -> u64 {
    (0..bits.num_words())
        .into_par_iter()
        .with_min_len(WORDS_PER_TASK)
        .map(|w| {
            let mut word = bits.word(w);
            let mut s = 0;
            while word != 0 {
                s += g((w * 64) as Vertex + word.trailing_zeros());
                word &= word - 1;
            }
            s
        })
        .sum()
}

/// Visits the out-edges of `s` (weights only when the update wants them).
#[inline(always)]
fn visit<A: Adjacency, F: EdgeMapFn, V: FnMut(Vertex, f64)>(adj: &A, s: Vertex, mut visit: V) {
    if F::WEIGHTED {
        adj.for_each_weighted(s, visit)
    } else {
        adj.for_each_neighbor(s, |d| visit(d, 1.0))
    }
}

fn push_sparse<A: Adjacency, F: EdgeMapFn>(
    adj: &A,
    ids: &[Vertex],
    f: &F,
    n: usize,
    output: bool,
) -> VertexSubset {
    let try_arc = |s: Vertex, d: Vertex, w: f64, won: &mut Vec<Vertex>| {
        if f.cond(d) && f.update_atomic(s, d, w) && output {
            won.push(d);
        }
    };
    let parts: Vec<Vec<Vertex>> = ids
        .par_chunks(PUSH_CHUNK)
        .fold(Vec::new, |mut won, chunk| {
            for_each_list_prefetched(
                adj,
                chunk,
                |&s| s,
                |s| push_one::<A, F, _>(adj, s, &try_arc, &mut won),
            );
            won
        })
        .collect();
    VertexSubset::from_ids(n, concat(parts))
}

/// The arcs of `s`, one frontier vertex of a sparse push, through `try_arc`.
#[inline(always)]
fn push_one<A: Adjacency, F: EdgeMapFn, T: Fn(Vertex, Vertex, f64, &mut Vec<Vertex>) + Sync>(
    adj: &A,
    s: Vertex,
    try_arc: &T,
    won: &mut Vec<Vertex>,
) {
    let deg = adj.degree(s);
    if deg > HEAVY_DEGREE {
        // One huge vertex would serialise the step: split its list across tasks.
        let pieces: Vec<Vec<Vertex>> = (0..deg.div_ceil(HEAVY_DEGREE))
            .into_par_iter()
            .map(|p| {
                let mut local = Vec::new();
                let hi = ((p + 1) * HEAVY_DEGREE).min(deg);
                adj.for_each_neighbor_in(s, p * HEAVY_DEGREE, hi, |d, w| {
                    try_arc(s, d, w, &mut local)
                });
                local
            })
            .collect();
        pieces.iter().for_each(|p| won.extend_from_slice(p));
    } else {
        visit::<A, F, _>(adj, s, |d, w| try_arc(s, d, w, won));
    }
}

/// Concatenates per-task outputs with one prefix sum and a parallel copy.
pub fn concat(parts: Vec<Vec<Vertex>>) -> Vec<Vertex> {
    if parts.len() == 1 {
        return parts.into_iter().next().unwrap();
    }
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut out = vec![0 as Vertex; total];
    let mut slices = Vec::with_capacity(parts.len());
    let mut rest = out.as_mut_slice();
    for p in &parts {
        let (head, tail) = rest.split_at_mut(p.len());
        slices.push(head);
        rest = tail;
    }
    slices
        .into_par_iter()
        .zip(parts.par_iter())
        .for_each(|(dst, src)| dst.copy_from_slice(src));
    out
}

fn push_dense<A: Adjacency, F: EdgeMapFn>(
    adj: &A,
    frontier: &Bitmap,
    f: &F,
    n: usize,
    output: bool,
) -> VertexSubset {
    let won = Bitmap::new(if output { n } else { 0 });
    frontier.par_for_each_set(|s| {
        visit::<A, F, _>(adj, s, |d, w| {
            if f.cond(d) && f.update_atomic(s, d, w) && output {
                won.set_atomic(d as usize);
            }
        })
    });
    if output {
        VertexSubset::from_bitmap(won)
    } else {
        VertexSubset::empty(n)
    }
}

/// Each task owns whole 64-vertex words of the output, so no write needs an atomic.
fn pull<A: Adjacency, F: EdgeMapFn>(
    incoming: &A,
    frontier: &Bitmap,
    f: &F,
    n: usize,
    output: bool,
) -> (VertexSubset, u64) {
    let mut words = vec![0u64; n.div_ceil(64)];
    let scanned: u64 = words
        .par_chunks_mut(WORDS_PER_TASK)
        .with_max_len(1)
        .enumerate()
        .map(|(ci, chunk)| {
            let mut scanned = 0u64;
            for (wi, word) in chunk.iter_mut().enumerate() {
                let base = (ci * WORDS_PER_TASK + wi) * 64;
                let mut bits = 0u64;
                // The arcs scanned are counted apart from `arc`, which a count kept in it
                // would slow (see `Adjacency::walk_word_from`).
                let mut arc = |d: Vertex, s: Vertex, w: f64| {
                    if frontier.get(s as usize) && f.update(s, d, w) {
                        bits |= 1 << (d as usize - base);
                    }
                    f.cond(d)
                };
                // Only this task updates (and so changes `cond` of) the word's vertices.
                let todo = (0..64.min(n - base))
                    .filter(|&j| f.cond((base + j) as Vertex))
                    .fold(0u64, |todo, j| todo | 1 << j);
                if F::WEIGHTED {
                    for_each_in_word(todo, base as Vertex, |d| {
                        incoming.try_for_each_weighted(d, |s, w| {
                            scanned += 1;
                            arc(d, s, w)
                        });
                    });
                } else {
                    scanned += pull_word(incoming, base as Vertex, todo, |d, s| arc(d, s, 1.0));
                }
                *word = bits;
            }
            scanned
        })
        .sum();
    let result = if output {
        VertexSubset::from_bitmap(Bitmap::from_words(words, n))
    } else {
        VertexSubset::empty(n)
    };
    (result, scanned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::InMemoryGraph;
    use std::sync::atomic::AtomicU32;

    /// BFS visit: claim unvisited destinations.
    struct Claim<'a> {
        parent: &'a [AtomicU32],
    }
    impl EdgeMapFn for Claim<'_> {
        fn update(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
            self.parent[d as usize].store(s, Ordering::Relaxed);
            true
        }
        fn update_atomic(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
            self.parent[d as usize]
                .compare_exchange(u32::MAX, s, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        }
        fn cond(&self, d: Vertex) -> bool {
            self.parent[d as usize].load(Ordering::Relaxed) == u32::MAX
        }
    }

    fn bfs_levels(g: &InMemoryGraph, n: usize, src: Vertex, direction: Direction) -> Vec<i64> {
        let view = g.view();
        let parent: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
        parent[src as usize].store(src, Ordering::Relaxed);
        let mut level = vec![-1i64; n];
        level[src as usize] = 0;
        let mut frontier = VertexSubset::single(n, src);
        let opts = EdgeMapOptions {
            direction,
            ..Default::default()
        };
        let mut depth = 0;
        while !frontier.is_empty() {
            depth += 1;
            frontier = edge_map(&view, &frontier, &Claim { parent: &parent }, &opts);
            for v in frontier.to_sorted_ids() {
                assert_eq!(level[v as usize], -1, "vertex {v} reached twice");
                level[v as usize] = depth;
            }
        }
        level
    }

    fn reference_levels(n: usize, edges: &[(u32, u32)], symmetric: bool, src: u32) -> Vec<i64> {
        let mut adj = vec![vec![]; n];
        for &(u, v) in edges {
            if u != v {
                adj[u as usize].push(v);
                if symmetric {
                    adj[v as usize].push(u);
                }
            }
        }
        let mut level = vec![-1i64; n];
        level[src as usize] = 0;
        let mut q = std::collections::VecDeque::from([src]);
        while let Some(u) = q.pop_front() {
            for &v in &adj[u as usize] {
                if level[v as usize] < 0 {
                    level[v as usize] = level[u as usize] + 1;
                    q.push_back(v);
                }
            }
        }
        level
    }

    fn random_edges(n: u32, m: usize, seed: u64) -> Vec<(u32, u32)> {
        let mut x = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // A few hubs so that both the heavy-vertex split and the pull switch are exercised.
        (0..m)
            .map(|i| {
                let u = if i % 3 == 0 {
                    (next() % 4) as u32
                } else {
                    (next() % n as u64) as u32
                };
                (u, (next() % n as u64) as u32)
            })
            .collect()
    }

    #[test]
    fn every_direction_gives_bfs_levels() {
        for (symmetric, seed) in [(true, 1), (false, 2), (true, 3)] {
            let n = 20_000;
            let edges = random_edges(n as u32, 60_000, seed);
            let g = InMemoryGraph::from_edges(n, &edges, symmetric);
            let want = reference_levels(n, &edges, symmetric, 0);
            for d in [Direction::Auto, Direction::Push, Direction::Pull] {
                assert_eq!(
                    bfs_levels(&g, n, 0, d),
                    want,
                    "direction {d:?} symmetric {symmetric}"
                );
            }
        }
    }

    #[test]
    fn counters_and_no_output() {
        let n = 1000;
        let edges = random_edges(n as u32, 5000, 9);
        let g = InMemoryGraph::from_edges(n, &edges, true);
        let view = g.view();
        let parent: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
        let counters = EdgeMapCounters::default();
        let opts = EdgeMapOptions {
            output: false,
            direction: Direction::Push,
            ..EdgeMapOptions::with_counters(&counters)
        };
        let all = VertexSubset::all(n);
        let out = edge_map(&view, &all, &Claim { parent: &parent }, &opts);
        assert!(out.is_empty());
        assert_eq!(counters.edges(), view.num_arcs());
        assert_eq!(counters.push_steps.load(Ordering::Relaxed), 1);
        let reached = parent
            .iter()
            .filter(|p| p.load(Ordering::Relaxed) != u32::MAX)
            .count();
        assert!(reached > 0);
    }

    #[test]
    fn concat_keeps_order() {
        assert_eq!(
            concat(vec![vec![1, 2], vec![], vec![3], vec![4, 5]]),
            vec![1, 2, 3, 4, 5]
        );
    }
}
