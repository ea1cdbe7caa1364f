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
use vastgraph_engine::memory::huge_page_vec;
use vastgraph_engine::ooc::{ScanSpec, Weights};
use vastgraph_engine::traverse::label_correcting;
use vastgraph_engine::{Adjacency, Bitmap, EngineError, Graph, PullSpec, Traversal, Vertex};

use crate::checkpoint::{self, Checkpoint, Column, State};
use crate::common::{check_source, read_error, AlgoError, RunStats, StateSize, VerifyError};

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
    if checkpoint.is_none() && g.out().on_disk().is_some() {
        return in_passes(g, params);
    }
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

/// The state [`in_passes`] keeps for `n` vertices: distances with the parents packed in, the
/// frontier, next and unvisited bitmaps and the engine's pull's two, and a word a vertex more
/// for the parents output.
pub fn state_in_passes(n: u64, parents: bool) -> u64 {
    8 * n + 5 * n.div_ceil(64) * 8 + if parents { 8 * n } else { 0 }
}

/// BFS over any [`Traversal`], one pass a level, with the in-memory kernel's results
/// (distances, and parents = the smallest in-neighbour one level closer).
///
/// **Symmetric graphs: level-synchronous and direction-optimising**, with the in-memory
/// switching rule. A *push* level hands over the frontier's lists and offers each neighbour a
/// packed `depth << 32 | parent` word with an atomic minimum, so the smallest parent of the
/// first level wins. A *pull* level walks the lists of the unvisited vertices and stops each at
/// its first neighbour in the frontier bitmap (n/8 bytes, cache-resident): on a dense level, on
/// disk, that is a sequential read of most of the file and a few arcs of CPU per vertex, where a
/// push would do one random atomic per arc. A search still pushing after [`DEEP_LEVELS`] levels
/// (a long-diameter graph) goes on label-correcting from its last level, with the same result.
///
/// **Directed graphs** (no in-edges to pull): label-correcting passes
/// ([`label_correcting`]); parents are one more pass.
pub fn in_passes<G: Traversal>(g: &G, params: &BfsParams) -> Result<BfsResult, AlgoError> {
    let n = g.num_vertices();
    if params.source >= n as u64 {
        return Err(AlgoError::SourceOutOfRange {
            vertex: params.source,
            vertices: n as u64,
        });
    }
    let source = params.source as Vertex;
    let (distances, parents, stats, counted) = if g.is_symmetric() {
        direction_optimising(g, source, params.parents)?
    } else {
        correcting_from_source(g, source, params.parents)?
    };
    // Level-synchronous levels count what they reach; otherwise two passes over the distances.
    let (reached, max_depth) = counted.unwrap_or_else(|| {
        (
            distances.par_iter().filter(|&&d| d >= 0).count() as u64,
            distances.par_iter().copied().max().unwrap_or(0),
        )
    });
    Ok(BfsResult {
        distances,
        parents,
        stats: stats.with("reached", reached).with("max_depth", max_depth),
    })
}

/// An unreached vertex's distance in the label-correcting passes (above every real one).
const FAR: i64 = i64::MAX;

/// Distances, parents, statistics, and (vertices reached, greatest depth) when the search
/// counted them.
type Outcome = (Vec<i64>, Option<Vec<i64>>, RunStats, Option<(u64, i64)>);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Push,
    Pull,
}

fn direction_optimising<G: Traversal>(
    g: &G,
    source: Vertex,
    parents: bool,
) -> Result<Outcome, AlgoError> {
    let mut sources = Bitmap::new(g.num_vertices());
    sources.set(source as usize);
    let Searched {
        reached,
        stats,
        counted,
    } = search_levels(g, sources).map_err(read_error(ALGORITHM))?;
    let parents = parents.then(|| {
        reached
            .par_iter()
            .map(|w| match w.load(Relaxed) {
                NO_PARENT => -1,
                w => (w & u32::MAX as u64) as i64,
            })
            .collect()
    });
    // Unwrapping in place reuses the allocation (same size and alignment).
    let distances = reached
        .into_iter()
        .map(|w| match w.into_inner() {
            NO_PARENT => -1,
            w => (w >> 32) as i64,
        })
        .collect();
    Ok((distances, parents, stats, counted))
}

/// What [`search_levels`] leaves: each vertex's packed `depth << 32 | parent` word
/// ([`NO_PARENT`] where no source reaches it), the statistics, and (vertices reached, greatest
/// depth) when the levels counted them.
pub(crate) struct Searched {
    pub reached: Vec<AtomicU64>,
    pub stats: RunStats,
    pub counted: Option<(u64, i64)>,
}

/// A level-synchronous, direction-optimising search of a symmetric graph from every vertex of
/// `sources` at once (depth 0, each its own parent): BFS from one source, and the BFS forest of
/// biconnectivity from a root in each component. Each vertex ends with its least depth and,
/// among its neighbours one level closer, the smallest: the same words for every thread count.
pub(crate) fn search_levels<G: Traversal>(g: &G, sources: Bitmap) -> Result<Searched, EngineError> {
    let n = g.num_vertices();
    // depth << 32 | parent per vertex: the distance and the parent in one word, NO_PARENT until
    // a level reaches the vertex.
    let reached: Vec<AtomicU64> = huge_page_vec(n, |_| AtomicU64::new(NO_PARENT));
    let mut front = sources;
    front.par_for_each_set(|s| reached[s as usize].store(pack(0, s), Relaxed));
    let mut next = Bitmap::new(n);
    // A vertex without arcs is never reached (bar a source) and has no list to pull: leaving
    // the isolated ones out (half of Kronecker 25's) spares each pull's plan a walk over them.
    let unvisited = g.vertices_with_arcs();
    remove(&unvisited, &front);

    let mut direction = Direction::Push;
    let mut scout = g.degree_sum(&front);
    let mut unexplored = g.num_arcs();
    // The arcs of the unvisited vertices' lists (what a pull would read), kept from the
    // frontiers' degree sums rather than summed over the unvisited at each pull.
    let mut unvisited_arcs = g.num_arcs() - scout;
    let mut awake = front.count_ones();
    let mut reached_count = awake as u64;
    let mut depth = 0i64;
    let (mut edges, mut directions) = (0u64, Vec::new());
    let mut correcting_passes = 0u64;
    // The last level that reached a vertex; unknown once label-correcting takes over.
    let mut max_depth = Some(0i64);
    while awake > 0 {
        depth += 1;
        if direction == Direction::Push && scout > unexplored / ALPHA {
            direction = Direction::Pull;
        }
        let before = awake;
        edges += match direction {
            Direction::Push => {
                unexplored = unexplored.saturating_sub(scout);
                push(g, &reached, &unvisited, &front, &next, depth)?
            }
            Direction::Pull => pull(
                g,
                &reached,
                &unvisited,
                unvisited_arcs,
                &front,
                &next,
                depth,
            )?,
        };
        directions.push(match direction {
            Direction::Push => "push",
            Direction::Pull => "pull",
        });
        std::mem::swap(&mut front, &mut next);
        next.clear_all();
        remove(&unvisited, &front);
        awake = front.count_ones();
        reached_count += awake as u64;
        if direction == Direction::Push {
            scout = g.degree_sum(&front);
            unvisited_arcs -= scout;
        } else {
            // After a pull the next level pulls again or pushes with `scout` 1 (below), so only
            // the unvisited arcs are needed: summed over whichever set is smaller. (On
            // Kronecker 25 the first pull's frontier has 15M vertices, the unvisited 1.8M.)
            let left = unvisited.count_ones();
            unvisited_arcs = match left < awake {
                true => g.degree_sum(&unvisited),
                false => unvisited_arcs - g.degree_sum(&front),
            };
            if awake < before && awake <= n / BETA {
                direction = Direction::Push;
                // As in memory: the level after a pull phase is a push, whatever its out-degree.
                scout = 1;
            }
        }
        if awake > 0 {
            max_depth = Some(depth);
        }
        if direction == Direction::Push && depth >= DEEP_LEVELS && awake > 0 {
            let (passes, arcs) = finish_label_correcting(g, &reached, front)?;
            correcting_passes = passes;
            edges += arcs;
            max_depth = None;
            break;
        }
    }
    let pushes = directions.iter().filter(|&&d| d == "push").count();
    let stats = RunStats {
        iterations: directions.len() as u64 + correcting_passes,
        edges_traversed: edges,
        ..Default::default()
    }
    .with("push_steps", pushes)
    .with("pull_steps", directions.len() - pushes)
    .with("label_correcting_passes", correcting_passes)
    .with("directions", directions);
    let counted = max_depth.map(|depth| (reached_count, depth));
    Ok(Searched {
        reached,
        stats,
        counted,
    })
}

/// Levels after which a BFS still pushing goes on label-correcting. A graph whose frontier is
/// still sparse this deep has a long diameter (a road network: Luxembourg's has 951 levels),
/// and one synchronous pass a level reads the pages of a few hundred vertices each time, at
/// the disk's latency. Label-correcting passes with reentry settle many levels per pass inside
/// each loaded range (on Luxembourg, 180–250 passes instead of 951 levels, a fifth of the bytes).
/// Kronecker and web graphs finish or turn to pulling well before.
const DEEP_LEVELS: i64 = 16;

/// Goes on from the level-synchronous state, whose words are exact for every vertex reached so
/// far and whose last level is `front`, with label-correcting passes: a vertex offers
/// `depth + 1` and itself to its neighbours, and one whose depth drops is activated. A vertex
/// offers its final depth at least once (it is active after its last drop), and the atomic
/// minimum of the packed words keeps the smallest depth and, among its offers, the smallest
/// parent: the same words as the synchronous levels would have left, on any thread count.
/// Returns the passes and the arcs processed.
fn finish_label_correcting<G: Traversal>(
    g: &G,
    reached: &[AtomicU64],
    front: Bitmap,
) -> Result<(u64, u64), EngineError> {
    let relax = |v: Vertex, neighbors: &[Vertex], _: Weights<'_>, activated: &Bitmap| {
        let offer = pack((reached[v as usize].load(Relaxed) >> 32) as i64 + 1, v);
        for &u in neighbors {
            let slot = &reached[u as usize];
            if slot.load(Relaxed) > offer {
                let before = slot.fetch_min(offer, Relaxed);
                // A smaller parent at the same depth changes nothing to relax.
                if before >> 32 > offer >> 32 {
                    activated.set_atomic(u as usize);
                }
            }
        }
    };
    label_correcting(g, front, relax, || true)
}

/// One top-down level: every frontier vertex offers itself to its neighbours; a neighbour no
/// level had reached joins `next`. Returns the arcs processed.
fn push<G: Traversal>(
    g: &G,
    reached: &[AtomicU64],
    unvisited: &Bitmap,
    front: &Bitmap,
    next: &Bitmap,
    depth: i64,
) -> Result<u64, EngineError> {
    g.pass(&ScanSpec::new(front), |v, neighbors, _| {
        let offer = pack(depth, v);
        for &u in neighbors {
            // Vertices of earlier levels are rejected by the bitmap (n/8 bytes, cached) before
            // their words (8n bytes, a cache miss an arc), as in memory: on Kronecker 25 a push
            // of 1.8M vertices took 21 ms through the words and 10 ms in memory. Vertices this
            // level reaches are still in `unvisited`, so the smallest parent still wins.
            if !unvisited.get(u as usize) {
                continue;
            }
            let slot = &reached[u as usize];
            if slot.load(Relaxed) > offer && slot.fetch_min(offer, Relaxed) == NO_PARENT {
                next.set_atomic(u as usize);
            }
        }
    })
}

/// One bottom-up level: every unvisited vertex takes its first neighbour in the frontier (the
/// smallest: lists are sorted) and stops, through the engine's pull, which may offer the first
/// id or the first few alone before the rest of a list (see [`Traversal::pull`]). A list that
/// comes in pieces, possibly on several threads, is settled by the minimum across them: a piece
/// whose first id is not below the parent already found has nothing smaller to offer. The
/// vertices settled are set in `next`. Returns the ids looked at.
fn pull<G: Traversal>(
    g: &G,
    reached: &[AtomicU64],
    unvisited: &Bitmap,
    unvisited_arcs: u64,
    front: &Bitmap,
    next: &Bitmap,
    depth: i64,
) -> Result<u64, EngineError> {
    let spec = PullSpec {
        arcs: Some(unvisited_arcs),
        // A vertex this level leaves unvisited is pulled again at the next.
        repeats: true,
        ..PullSpec::new(unvisited, next)
    };
    g.pull(&spec, |v, ids| {
        let slot = &reached[v as usize];
        let Some(&first) = ids.first() else {
            return false;
        };
        if slot.load(Relaxed) <= pack(depth, first) {
            return true;
        }
        match first_in(ids, front) {
            Some(u) => {
                slot.fetch_min(pack(depth, u), Relaxed);
                true
            }
            None => false,
        }
    })
}

/// The first of `ids` in `front`. Up to [`LOOKUPS_AT_ONCE`] ids are all looked up, not each
/// until the first hit: the frontier (n/8 bytes) is not in the core's cache, and lookups that
/// do not wait on each other's branch overlap their misses.
fn first_in(ids: &[Vertex], front: &Bitmap) -> Option<Vertex> {
    let (head, rest) = ids.split_at(ids.len().min(LOOKUPS_AT_ONCE));
    let hits = head.iter().enumerate().fold(0u32, |hits, (i, &u)| {
        hits | u32::from(front.get(u as usize)) << i
    });
    match hits {
        0 => rest.iter().copied().find(|&u| front.get(u as usize)),
        _ => Some(head[hits.trailing_zeros() as usize]),
    }
}

/// Ids of a piece whose frontier lookups are issued together: a list head's.
const LOOKUPS_AT_ONCE: usize = 8;

/// Clears the members of `visited` from `unvisited`.
fn remove(unvisited: &Bitmap, visited: &Bitmap) {
    unvisited
        .words()
        .par_iter()
        .zip(visited.words())
        .for_each(|(u, v)| u.store(u.load(Relaxed) & !v.load(Relaxed), Relaxed));
}

/// A directed graph (no in-edges to pull): label-correcting passes from the source, then one
/// pass for the parents when asked for.
fn correcting_from_source<G: Traversal>(
    g: &G,
    source: Vertex,
    parents: bool,
) -> Result<Outcome, AlgoError> {
    let n = g.num_vertices();
    let dist: Vec<AtomicI64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicI64::new(FAR))
        .collect();
    dist[source as usize].store(0, Relaxed);
    let relax = |v: Vertex, neighbors: &[Vertex], _: Weights<'_>, activated: &Bitmap| {
        let next = dist[v as usize].load(Relaxed) + 1;
        for &u in neighbors {
            let slot = &dist[u as usize];
            if slot.load(Relaxed) > next && slot.fetch_min(next, Relaxed) > next {
                activated.set_atomic(u as usize);
            }
        }
    };
    let mut start = Bitmap::new(n);
    start.set(source as usize);
    let (passes, mut edges) =
        label_correcting(g, start, relax, || true).map_err(read_error(ALGORITHM))?;

    let parents = if parents {
        // Reached vertices offer themselves to their out-neighbours one level further.
        let reached = Bitmap::new(n);
        dist.par_iter().enumerate().for_each(|(v, d)| {
            if d.load(Relaxed) != FAR {
                reached.set_atomic(v);
            }
        });
        let parent: Vec<AtomicI64> = (0..n)
            .into_par_iter()
            .map(|_| AtomicI64::new(i64::MAX))
            .collect();
        edges += g
            .pass(&ScanSpec::new(&reached), |v, neighbors, _| {
                let next = dist[v as usize].load(Relaxed) + 1;
                for &u in neighbors {
                    if dist[u as usize].load(Relaxed) == next {
                        parent[u as usize].fetch_min(v as i64, Relaxed);
                    }
                }
            })
            .map_err(read_error(ALGORITHM))?;
        parent[source as usize].store(source as i64, Relaxed);
        Some(
            parent
                .into_iter()
                .map(|p| match p.into_inner() {
                    i64::MAX => -1,
                    p => p,
                })
                .collect(),
        )
    } else {
        None
    };
    let distances = dist
        .into_iter()
        .map(|d| match d.into_inner() {
            FAR => UNREACHED,
            d => d,
        })
        .collect();
    let stats = RunStats {
        iterations: passes,
        edges_traversed: edges,
        ..Default::default()
    };
    Ok((distances, parents, stats, None))
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

// The registry's entry.

use crate::algorithm::{source_or_default, Algorithm, Descriptor, Needs, Param, Params, SOURCE};
use crate::registry::Values;

pub const PARENTS: Param = Param::flag(
    "parents",
    "output the BFS tree's parents instead of distances",
);
/// `bfs` in the registry.
pub struct Bfs;

impl Algorithm for Bfs {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "bfs",
        summary: "hop distance from --source (-1 unreachable); --parents for the BFS tree",
        params: &[SOURCE, PARENTS],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: true,
        vertex_values: crate::algorithm::VertexValues::WhenSet("parents"),
        conflicts: &[],
        state_in_passes: Some(|n, p| Some(state_in_passes(n, p.flag(&PARENTS)))),
    };
    type Params = BfsParams;
    type Result = BfsResult;
    fn params<A: Adjacency>(given: &Params, g: &Graph<A>) -> Result<BfsParams, AlgoError> {
        Ok(BfsParams {
            source: source_or_default(given, g),
            parents: given.flag(&PARENTS),
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &BfsParams,
        checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<BfsResult, AlgoError> {
        bfs_resumable(g, q, checkpoint)
    }
    fn verify<A: Adjacency>(g: &Graph<A>, q: &BfsParams, r: &BfsResult) -> Result<(), VerifyError> {
        verify_bfs(g, q, r)
    }
    fn output(r: BfsResult, q: &BfsParams) -> (Option<Values>, RunStats) {
        let values = if q.parents {
            r.parents.unwrap_or_default()
        } else {
            r.distances
        };
        (Some(Values::I64(values)), r.stats)
    }
}
