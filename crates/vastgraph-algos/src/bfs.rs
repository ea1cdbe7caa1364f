//! Breadth-first search from one source: hop distance per vertex (−1 when unreachable) and,
//! on request, a BFS parent per vertex (−1 when unreachable, the source is its own parent).
//! The parent is the *smallest* in-neighbour one level closer to the source, so the tree is the
//! same for every thread count and run.
//!
//! Direction-optimising (Beamer, Asanović & Patterson). Small frontiers are expanded *top-down*:
//! each frontier vertex scans its out-edges and claims unvisited destinations with one atomic OR
//! on a visited bitmap. Once the frontier's out-edges outnumber the still-unexplored edges by
//! `1/ALPHA`, levels run *bottom-up*: every unvisited vertex scans its in-edges and stops at the
//! first one in the frontier bitmap, with no atomics at all, until the frontier shrinks below
//! `n/BETA`. A directed graph without a stored transpose has no in-edges and stays top-down.
//!
//! This is a specialisation of the engine's `edge_map` (whose generic push/pull are what it
//! does per level): the visited bitmap (n/8 bytes, cache-resident) replaces the per-arc check of
//! the distance array; one queue of n ids serves every top-down level as a sliding window, so
//! levels allocate nothing; and the switching rule uses the unexplored-edge count, which suits
//! skewed graphs better than a fixed fraction of m. Heap: the distance array (the output), the
//! queue (n/2 words) and three bitmaps (3n/64 words), plus the parents when asked for.
//!
//! Parents are deterministic: bottom-up scans in-neighbours in ascending order and stops at the
//! first in the frontier, which is the smallest; top-down offers every frontier arc to a packed
//! word `depth << 32 | parent` with an atomic minimum, so a vertex keeps the smallest parent of
//! the level that reached it and arcs from later levels (larger depth) never replace it.

use std::ops::Range;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::bitmap::WORDS_PER_TASK;
use vastgraph_engine::graph::{find_in_word, for_each_list_prefetched, PUSH_CHUNK};
use vastgraph_engine::{Adjacency, Bitmap, Graph, Vertex};

use crate::checkpoint::{self, Checkpoint, Column, State};
use crate::common::{check_source, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): distances (i64), the queue and three
/// bitmaps; the parents output adds a word.
pub const STATE: StateSize = StateSize::per_vertex(28);

const ALGORITHM: &str = "bfs";

/// Marks a vertex not reached in the distance and parent arrays.
const UNREACHED: i64 = -1;
/// The packed `depth << 32 | parent` word of a vertex no level has reached yet.
pub(crate) const NO_PARENT: u64 = u64::MAX;
/// Go bottom-up when the frontier's out-edges exceed the unexplored edges / ALPHA.
pub(crate) const ALPHA: u64 = 15;
/// Return to top-down when the bottom-up frontier shrinks below n / BETA.
pub(crate) const BETA: usize = 18;
/// Out-lists longer than this are split across tasks in a top-down step, so that one hub does
/// not serialise its level.
const HEAVY_DEGREE: usize = 1 << 13;
/// Ids a task collects before appending them to the shared queue with one atomic add.
const LOCAL_QUEUE: usize = 1 << 10;

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct BfsParams {
    pub source: u64,
    /// Also record a BFS tree (one more word per vertex).
    pub parents: bool,
}

#[derive(Debug)]
pub struct BfsResult {
    /// Hops from the source, −1 for vertices it does not reach.
    pub distances: Vec<i64>,
    /// The vertex each one was reached from (the source's parent is itself), −1 if unreached.
    pub parents: Option<Vec<i64>>,
    /// `iterations` = levels expanded; extra: `reached`, `max_depth`, `push_steps`
    /// (top-down levels) and `pull_steps` (bottom-up levels).
    pub stats: RunStats,
}

pub fn bfs<A: Adjacency>(g: &Graph<A>, params: &BfsParams) -> Result<BfsResult, AlgoError> {
    bfs_resumable(g, params, None)
}

/// [`bfs`], saving its state to `checkpoint` at the end of levels (the distances and parents
/// found so far), or continuing from the state saved there.
pub fn bfs_resumable<A: Adjacency>(
    g: &Graph<A>,
    params: &BfsParams,
    checkpoint: Option<&Checkpoint>,
) -> Result<BfsResult, AlgoError> {
    let source = check_source(g, params.source)?;
    let n = g.num_vertices();
    let saved = checkpoint::begin(checkpoint, ALGORITHM, params)?;
    let mut resumed = None;
    let (dist, parent) = match saved {
        None => (
            unreached_array(n),
            params.parents.then(|| {
                (0..n)
                    .into_par_iter()
                    .map(|_| AtomicU64::new(NO_PARENT))
                    .collect()
            }),
        ),
        Some(mut saved) => {
            resumed = Some(Levels {
                depth: saved.u64("depth")? as i64,
                reached: saved.u64("reached")?,
                edges: saved.u64("edges")?,
                top_down: saved.u64("top_down")?,
                bottom_up: saved.u64("bottom_up")?,
            });
            let dist = saved.column::<i64>("distances", n)?;
            let parent = match params.parents {
                true => Some(saved.column::<u64>("parents", n)?),
                false => None,
            };
            (
                dist.into_iter().map(AtomicI64::new).collect(),
                parent.map(|p| p.into_iter().map(AtomicU64::new).collect()),
            )
        }
    };
    let search = Search {
        out: g.out(),
        dist,
        parent,
        visited: Bitmap::new(n),
        queue: (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect(),
        tail: AtomicUsize::new(0),
    };
    let save = |levels: &Levels| {
        checkpoint::after_iteration(checkpoint, ALGORITHM, params, levels.depth as u64, || {
            let mut columns = vec![Column::from_fn("distances", n, |v| {
                search.dist[v].load(Relaxed)
            })];
            if let Some(parent) = &search.parent {
                columns.push(Column::from_fn("parents", n, |v| parent[v].load(Relaxed)));
            }
            State::new(columns)
                .with("depth", levels.depth)
                .with("reached", levels.reached)
                .with("edges", levels.edges)
                .with("top_down", levels.top_down)
                .with("bottom_up", levels.bottom_up)
        })
    };
    let levels = search.run(g.incoming(), source, g.num_arcs(), resumed, &save)?;
    let max_depth = levels.depth;
    let stats = RunStats {
        iterations: levels.top_down + levels.bottom_up,
        edges_traversed: levels.edges,
        ..Default::default()
    }
    .with("reached", levels.reached)
    .with("max_depth", max_depth)
    .with("push_steps", levels.top_down)
    .with("pull_steps", levels.bottom_up);
    let Search { dist, parent, .. } = search;
    Ok(BfsResult {
        distances: into_plain(dist),
        parents: parent.map(unpack_parents),
        stats,
    })
}

/// The state of one search. `queue[..tail]` holds every vertex expanded top-down so far, level
/// after level; each top-down level reads one window of it and appends the next.
struct Search<'g, A: Adjacency> {
    out: &'g A,
    dist: Vec<AtomicI64>,
    /// `depth << 32 | parent` per vertex, NO_PARENT until reached.
    parent: Option<Vec<AtomicU64>>,
    visited: Bitmap,
    queue: Vec<AtomicU32>,
    tail: AtomicUsize,
}

#[derive(Default, Clone)]
struct Levels {
    depth: i64,
    reached: u64,
    edges: u64,
    top_down: u64,
    bottom_up: u64,
}

/// A task's private batch of newly claimed vertices, with the out-degree sum of the batch
/// (GAPBS's "scout count", which drives the switch to bottom-up) and the arcs it scanned.
#[derive(Default)]
struct Claimed {
    ids: Vec<Vertex>,
    scout: u64,
    edges: u64,
}

impl Claimed {
    fn merge(mut self, other: Claimed) -> Claimed {
        self.scout += other.scout;
        self.edges += other.edges;
        self
    }
}

impl<A: Adjacency> Search<'_, A> {
    /// Searches from `source`, or from the last level of `resumed` (whose distances are in
    /// `dist`); calls `save` at the end of every level.
    fn run(
        &self,
        incoming: Option<&A>,
        source: Vertex,
        arcs: u64,
        resumed: Option<Levels>,
        save: &dyn Fn(&Levels) -> Result<(), AlgoError>,
    ) -> Result<Levels, AlgoError> {
        let n = self.dist.len();
        let (mut levels, mut scout, mut unexplored) = match resumed {
            None => {
                self.mark(source, source, 0);
                self.visited.set_atomic(source as usize);
                self.queue[0].store(source, Relaxed);
                self.tail.store(1, Relaxed);
                let levels = Levels {
                    reached: 1,
                    ..Default::default()
                };
                (levels, self.out.degree(source) as u64, arcs)
            }
            Some(levels) => {
                let (scout, explored) = self.restore(levels.depth);
                (levels, scout, arcs.saturating_sub(explored))
            }
        };
        // Both bitmaps of the bottom-up steps, allocated once (and only if they can be used).
        let mut bitmaps = incoming.map(|_| (Bitmap::new(n), Bitmap::new(n)));
        let mut window = 0..self.tail.load(Relaxed);
        while !window.is_empty() {
            match (incoming, bitmaps.as_mut()) {
                (Some(incoming), Some((front, next))) if scout > unexplored / ALPHA => {
                    front.clear_all();
                    self.queue[window.clone()].par_iter().for_each(|v| {
                        front.set_atomic(v.load(Relaxed) as usize);
                    });
                    let mut awake = window.len();
                    loop {
                        levels.depth += 1;
                        levels.bottom_up += 1;
                        let before = awake;
                        let (found, scanned) = self.bottom_up(incoming, front, next, levels.depth);
                        std::mem::swap(front, next);
                        awake = found;
                        levels.reached += found as u64;
                        levels.edges += scanned;
                        save(&levels)?;
                        if awake < before && awake <= n / BETA {
                            break;
                        }
                    }
                    window = self.append_to_queue(front);
                    scout = 1;
                }
                _ => {
                    levels.depth += 1;
                    levels.top_down += 1;
                    unexplored = unexplored.saturating_sub(scout);
                    let start = self.tail.load(Relaxed);
                    let step = self.top_down(window, levels.depth);
                    window = start..self.tail.load(Relaxed);
                    levels.reached += window.len() as u64;
                    levels.edges += step.edges;
                    scout = step.scout;
                    save(&levels)?;
                }
            }
        }
        // The last level expanded found nothing.
        levels.depth -= 1;
        Ok(levels)
    }

    /// Rebuilds what a search keeps between levels from the distances of a resumed one: the
    /// visited bitmap, and the vertices at `depth` as the queue's window. Returns their
    /// out-degree sum and that of every vertex visited before them (the direction rule's
    /// inputs).
    fn restore(&self, depth: i64) -> (u64, u64) {
        let n = self.dist.len();
        let (mut scout, mut explored, mut tail) = (0u64, 0u64, 0usize);
        for v in 0..n {
            let d = self.dist[v].load(Relaxed);
            if d == UNREACHED {
                continue;
            }
            self.visited.set_atomic(v);
            let degree = self.out.degree(v as Vertex) as u64;
            if d == depth {
                self.queue[tail].store(v as Vertex, Relaxed);
                tail += 1;
                scout += degree;
            } else {
                explored += degree;
            }
        }
        self.tail.store(tail, Relaxed);
        (scout, explored)
    }

    /// Records that `v` is at `depth` with parent `parent`, when no other thread can touch `v`.
    fn mark(&self, v: Vertex, parent: Vertex, depth: i64) {
        self.dist[v as usize].store(depth, Relaxed);
        if let Some(p) = &self.parent {
            p[v as usize].store(pack(depth, parent), Relaxed);
        }
    }

    /// Offers `u` as the parent of `v` at `depth` during a top-down level, where several frontier
    /// vertices may reach `v` at once; the smallest wins. A vertex reached at an earlier level has
    /// a smaller packed word, so the load alone rejects the offer (as cheap as GAPBS's check of
    /// the parent array per arc).
    #[inline]
    fn offer_parent(&self, parents: &[AtomicU64], v: Vertex, u: Vertex, depth: i64) {
        let offer = pack(depth, u);
        let slot = &parents[v as usize];
        let mut current = slot.load(Relaxed);
        while offer < current {
            match slot.compare_exchange_weak(current, offer, Relaxed, Relaxed) {
                Ok(_) => return,
                Err(now) => current = now,
            }
        }
    }

    /// Expands `queue[window]` over out-edges, appending the vertices it claims to the queue.
    fn top_down(&self, window: Range<usize>, depth: i64) -> Claimed {
        self.queue[window]
            .par_chunks(PUSH_CHUNK)
            .fold(Claimed::default, |mut claimed, chunk| {
                let load = |u: &AtomicU32| u.load(Relaxed);
                for_each_list_prefetched(self.out, chunk, load, |u| {
                    self.expand(u, depth, &mut claimed)
                });
                claimed
            })
            .map(|mut claimed| {
                self.flush(&mut claimed);
                claimed
            })
            .reduce(Claimed::default, Claimed::merge)
    }

    /// Claims the unvisited out-neighbours of `u`, a frontier vertex.
    #[inline]
    fn expand(&self, u: Vertex, depth: i64, claimed: &mut Claimed) {
        let degree = self.out.degree(u);
        claimed.edges += degree as u64;
        if degree > HEAVY_DEGREE {
            let pieces = (0..degree.div_ceil(HEAVY_DEGREE)).into_par_iter().map(|p| {
                let mut local = Claimed::default();
                let hi = ((p + 1) * HEAVY_DEGREE).min(degree);
                self.out
                    .for_each_neighbor_in(u, p * HEAVY_DEGREE, hi, |v, _| {
                        self.claim(u, v, depth, &mut local)
                    });
                self.flush(&mut local);
                local
            });
            claimed.scout += pieces.map(|p| p.scout).sum::<u64>();
        } else {
            self.out
                .for_each_neighbor(u, |v| self.claim(u, v, depth, claimed));
        }
    }

    #[inline]
    fn claim(&self, u: Vertex, v: Vertex, depth: i64, claimed: &mut Claimed) {
        if let Some(parents) = &self.parent {
            self.offer_parent(parents, v, u, depth);
        }
        if self.visited.set_atomic(v as usize) {
            self.dist[v as usize].store(depth, Relaxed);
            claimed.scout += self.out.degree(v) as u64;
            if claimed.ids.capacity() == 0 {
                claimed.ids.reserve_exact(LOCAL_QUEUE);
            }
            claimed.ids.push(v);
            if claimed.ids.len() == LOCAL_QUEUE {
                self.flush(claimed);
            }
        }
    }

    /// Moves a task's batch to the end of the shared queue.
    fn flush(&self, claimed: &mut Claimed) {
        let start = self.tail.fetch_add(claimed.ids.len(), Relaxed);
        for (slot, &v) in self.queue[start..start + claimed.ids.len()]
            .iter()
            .zip(&claimed.ids)
        {
            slot.store(v, Relaxed);
        }
        claimed.ids.clear();
    }

    /// One bottom-up level: every unvisited vertex looks for an in-neighbour in `front`; the
    /// ones that find one form `next`. Each task owns whole words of `next` and `visited`.
    /// Returns (vertices found, arcs scanned).
    fn bottom_up(&self, incoming: &A, front: &Bitmap, next: &Bitmap, depth: i64) -> (usize, u64) {
        let n = self.dist.len();
        next.words()
            .par_chunks(WORDS_PER_TASK)
            .zip(self.visited.words().par_chunks(WORDS_PER_TASK))
            .enumerate()
            .map(|(chunk, (next_words, visited_words))| {
                let (mut found_total, mut scanned) = (0usize, 0u64);
                for (i, (next_word, visited_word)) in
                    next_words.iter().zip(visited_words).enumerate()
                {
                    let base = (chunk * WORDS_PER_TASK + i) * 64;
                    let seen = visited_word.load(Relaxed);
                    let mut todo = !seen;
                    if n - base < 64 {
                        todo &= (1u64 << (n - base)) - 1;
                    }
                    let mut found = 0u64;
                    scanned += find_in_word(incoming, base as Vertex, todo, front, |v, u| {
                        self.mark(v, u, depth);
                        found |= 1 << (v as usize - base);
                    });
                    next_word.store(found, Relaxed);
                    visited_word.store(seen | found, Relaxed);
                    found_total += found.count_ones() as usize;
                }
                (found_total, scanned)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Appends the members of a bottom-up frontier to the queue for the next top-down level.
    fn append_to_queue(&self, front: &Bitmap) -> Range<usize> {
        let ids = front.to_sorted_ids();
        let start = self.tail.fetch_add(ids.len(), Relaxed);
        self.queue[start..start + ids.len()]
            .par_iter()
            .zip(ids.par_iter())
            .for_each(|(slot, &v)| slot.store(v, Relaxed));
        start..start + ids.len()
    }
}

fn unreached_array(n: usize) -> Vec<AtomicI64> {
    (0..n)
        .into_par_iter()
        .map(|_| AtomicI64::new(UNREACHED))
        .collect()
}

/// Unwraps the atomics; the standard library reuses the allocation (same size and alignment).
fn into_plain(v: Vec<AtomicI64>) -> Vec<i64> {
    v.into_iter().map(AtomicI64::into_inner).collect()
}

pub(crate) fn pack(depth: i64, parent: Vertex) -> u64 {
    (depth as u64) << 32 | parent as u64
}

/// The parent half of each packed word, −1 where no level reached the vertex.
fn unpack_parents(v: Vec<AtomicU64>) -> Vec<i64> {
    v.into_iter()
        .map(|w| match w.into_inner() {
            NO_PARENT => UNREACHED,
            w => (w & u32::MAX as u64) as i64,
        })
        .collect()
}

/// Checks a BFS result against a plain sequential BFS: the distances must match exactly, and
/// every parent must be the smallest in-neighbour of its vertex one level closer to the source.
pub fn verify_bfs<A: Adjacency>(
    g: &Graph<A>,
    params: &BfsParams,
    result: &BfsResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    if params.source >= n as u64 {
        return fail(format!("source {} is not a vertex", params.source));
    }
    if result.distances.len() != n {
        return fail(format!(
            "{} distances for {} vertices",
            result.distances.len(),
            n
        ));
    }
    let mut want = vec![UNREACHED; n];
    let mut queue = std::collections::VecDeque::new();
    want[params.source as usize] = 0;
    queue.push_back(params.source as Vertex);
    while let Some(u) = queue.pop_front() {
        let next = want[u as usize] + 1;
        g.out().for_each_neighbor(u, |v| {
            if want[v as usize] == UNREACHED {
                want[v as usize] = next;
                queue.push_back(v);
            }
        });
    }
    if let Some(v) = (0..n).find(|&v| want[v] != result.distances[v]) {
        return fail(format!(
            "vertex {v}: distance {} but a serial BFS finds {}",
            result.distances[v], want[v]
        ));
    }

    let Some(parents) = &result.parents else {
        return if params.parents {
            fail("parents were asked for but not returned".into())
        } else {
            Ok(())
        };
    };
    if parents.len() != n {
        return fail(format!("{} parents for {} vertices", parents.len(), n));
    }
    // The smallest in-neighbour one level closer, found over out-edges so that directed graphs
    // without a transpose can be checked too.
    let mut smallest = vec![UNREACHED; n];
    for u in 0..n {
        if want[u] == UNREACHED {
            continue;
        }
        g.out().for_each_neighbor(u as Vertex, |v| {
            let v = v as usize;
            if want[v] == want[u] + 1 && smallest[v] == UNREACHED {
                // Out-lists are visited in ascending u, so the first offer is the smallest.
                smallest[v] = u as i64;
            }
        });
    }
    for v in 0..n {
        let p = parents[v];
        if want[v] == UNREACHED || v as u64 == params.source {
            let expected = if want[v] == UNREACHED {
                UNREACHED
            } else {
                v as i64
            };
            if p != expected {
                return fail(format!("vertex {v}: parent {p}, expected {expected}"));
            }
            continue;
        }
        if p < 0 || p >= n as i64 {
            return fail(format!(
                "vertex {v} (distance {}): parent {p} is not a vertex",
                want[v]
            ));
        }
        if want[p as usize] != want[v] - 1 {
            return fail(format!(
                "vertex {v} at distance {}: parent {p} is at distance {}",
                want[v], want[p as usize]
            ));
        }
        if p != smallest[v] {
            return fail(format!(
                "vertex {v}: parent {p}, but the smallest in-neighbour one level closer is {}",
                smallest[v]
            ));
        }
    }
    Ok(())
}
