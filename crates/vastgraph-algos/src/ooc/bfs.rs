//! Out-of-core BFS, with the in-memory kernel's results (distances, and parents = the smallest
//! in-neighbour one level closer).
//!
//! **Symmetric graphs: level-synchronous and direction-optimising**, as in memory, with the same
//! switching rule (frontier out-degree against the unexplored edges). A *push* level reads the
//! frontier's lists and offers each neighbour a packed `depth << 32 | parent` word with an atomic
//! minimum, so the smallest parent of the first level wins. A *pull* level reads the lists of the
//! unvisited vertices instead and stops each at its first neighbour in the frontier bitmap (n/8
//! bytes, cache-resident): on a dense level that is a sequential read of most of the file and a
//! few arcs of CPU per vertex, where a push would do one random atomic per arc. Each level's
//! scan is given the set it reads (frontier or unvisited), so the cost model weighs exactly what
//! selective and streaming would read for the step chosen. A search still pushing after
//! [`DEEP_LEVELS`] levels (a long-diameter graph) goes on label-correcting, as below, from its
//! last level, with the same result.
//!
//! **Directed graphs** (no stored transpose, so no pull): label-correcting. A vertex whose
//! distance drops is activated and every pass relaxes the active lists with an atomic minimum;
//! with reentry, vertices activated inside a loaded range are relaxed at once, so a long sparse
//! search needs fewer passes. Parents are one more pass.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::memory::huge_page_vec;
use vastgraph_engine::ooc::{OocGraph, ScanSpec, Weights};
use vastgraph_engine::{Bitmap, Vertex};

use super::{
    check_source, frontier_passes, frontier_passes_from, heads_first_pays, heads_spare_reads,
    io_error, vertices_with_arcs,
};
use crate::bfs::{pack, BfsParams, BfsResult, ALPHA, BETA, NO_PARENT};
use crate::common::{AlgoError, RunStats};

const ALGORITHM: &str = "bfs";
const UNREACHED: i64 = i64::MAX;

pub fn bfs(g: &OocGraph, params: &BfsParams) -> Result<BfsResult, AlgoError> {
    let source = check_source(g, params.source)?;
    let (distances, parents, stats, counted) = if g.is_symmetric() {
        direction_optimising(g, source, params.parents)?
    } else {
        label_correcting(g, source, params.parents)?
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

/// Distances, parents, statistics, and (vertices reached, greatest depth) when the search
/// counted them.
type Outcome = (Vec<i64>, Option<Vec<i64>>, RunStats, Option<(u64, i64)>);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Push,
    Pull,
}

fn direction_optimising(g: &OocGraph, source: Vertex, parents: bool) -> Result<Outcome, AlgoError> {
    let n = g.num_vertices();
    // depth << 32 | parent per vertex: the distance and the parent in one word, NO_PARENT until
    // a level reaches the vertex.
    let reached: Vec<AtomicU64> = huge_page_vec(n, |_| AtomicU64::new(NO_PARENT));
    reached[source as usize].store(pack(0, source), Relaxed);
    let mut front = Bitmap::new(n);
    let mut next = Bitmap::new(n);
    // A vertex without arcs is never reached (bar the source) and has no list to pull: leaving
    // the isolated ones out (half of Kronecker 25's) spares each pull's plan a walk over them.
    let unvisited = vertices_with_arcs(g.offsets());
    front.set(source as usize);
    remove(&unvisited, &front);

    let mut direction = Direction::Push;
    let mut scout = g.degree(source) as u64;
    let mut unexplored = g.num_arcs();
    // The arcs of the unvisited vertices' lists (what a pull would read), kept from the
    // frontiers' degree sums rather than summed over the unvisited at each pull.
    let mut unvisited_arcs = g.num_arcs() - scout;
    let mut awake = 1usize;
    let mut reached_count = 1u64;
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
            scout = degree_sum(g, &front);
            unvisited_arcs -= scout;
        } else {
            // After a pull the next level pulls again or pushes with `scout` 1 (below), so only
            // the unvisited arcs are needed: summed over whichever set is smaller. (On
            // Kronecker 25 the first pull's frontier has 15M vertices, the unvisited 1.8M.)
            let left = unvisited.count_ones();
            unvisited_arcs = match left < awake {
                true => degree_sum(g, &unvisited),
                false => unvisited_arcs - degree_sum(g, &front),
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
    let counted = max_depth.map(|depth| (reached_count, depth));
    Ok((distances, parents, stats, counted))
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
fn finish_label_correcting(
    g: &OocGraph,
    reached: &[AtomicU64],
    front: Bitmap,
) -> Result<(u64, u64), AlgoError> {
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
    frontier_passes_from(g, ALGORITHM, front, relax, || Ok(()))
}

/// One top-down level: every frontier vertex offers itself to its neighbours; a neighbour no
/// level had reached joins `next`. Returns the arcs processed.
fn push(
    g: &OocGraph,
    reached: &[AtomicU64],
    unvisited: &Bitmap,
    front: &Bitmap,
    next: &Bitmap,
    depth: i64,
) -> Result<u64, AlgoError> {
    g.scan(&ScanSpec::new(front), |v, neighbors, _| {
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
    .map(|record| record.arcs_processed)
    .map_err(|e| io_error(ALGORITHM, e))
}

/// One bottom-up level: every unvisited vertex takes its first neighbour in the frontier (the
/// smallest: lists are sorted) and stops. A list longer than an I/O buffer arrives in several
/// pieces, possibly on several threads: a piece whose first neighbour is not below the parent
/// already found is skipped, and the minimum keeps the smallest across pieces.
///
/// When the unvisited vertices' lists hold more than [`SETTLE_FIRST_ARCS`] arcs a vertex of the
/// graph and the store has the side file of first neighbours, that file is read first: a
/// vertex whose first (smallest) neighbour is in the frontier takes it as its parent, as the
/// in-memory pull would. When the store has list heads and they cost less than the lists of the
/// vertices left ([`heads_spare_reads`]), the first 8 ids of those lists settle most of the rest
/// the same way. Only the lists of the others are read.
/// On a degree-ordered Kronecker 25 the first pull reads the file's 134 MB and 127 MB of lists
/// instead of 2.2 GB of lists. Returns the arcs processed.
fn pull(
    g: &OocGraph,
    reached: &[AtomicU64],
    unvisited: &Bitmap,
    unvisited_arcs: u64,
    front: &Bitmap,
    next: &Bitmap,
    depth: i64,
) -> Result<u64, AlgoError> {
    let n = g.num_vertices() as u64;
    let mut arcs = 0;
    let (rest, unsettled_by_heads);
    // A vertex this level leaves unvisited is pulled again next level (or pushed, once
    // reached): its short list is cached now rather than read again.
    let unreached = |v: Vertex| reached[v as usize].load(Relaxed) == NO_PARENT;
    let to_read = if g.has_first_neighbors() && unvisited_arcs > SETTLE_FIRST_ARCS * n {
        let in_front = |u: Vertex| front.get(u as usize);
        if heads_first_pays(g, unvisited, in_front).map_err(|e| io_error(ALGORITHM, e))? {
            let (longer, read) = settle_from_heads(g, reached, unvisited, front, next, depth, 0)?;
            arcs += read;
            unsettled_by_heads = longer;
            &unsettled_by_heads
        } else {
            let record = g
                .scan_first_neighbors(unvisited, |v, first| {
                    if front.get(first as usize) {
                        // Only this call writes v's slot in this level.
                        reached[v as usize].store(pack(depth, first), Relaxed);
                        next.set_atomic(v as usize);
                    }
                })
                .map_err(|e| io_error(ALGORITHM, e))?;
            arcs += record.arcs_processed;
            let hit_rate = next.count_ones() as f64 / record.arcs_processed.max(1) as f64;
            rest = unsettled(unvisited, next);
            if heads_spare_reads(g, &rest, hit_rate).map_err(|e| io_error(ALGORITHM, e))? {
                // Their first ids are not in the frontier: the first neighbours left them.
                let (longer, read) = settle_from_heads(g, reached, &rest, front, next, depth, 1)?;
                arcs += read;
                unsettled_by_heads = longer;
                &unsettled_by_heads
            } else {
                &rest
            }
        }
    } else {
        unvisited
    };
    let spec = ScanSpec {
        again: Some(&unreached),
        ..ScanSpec::new(to_read)
    };
    g.scan(&spec, |v, neighbors, _| {
        let slot = &reached[v as usize];
        let Some(&first) = neighbors.first() else {
            return;
        };
        if slot.load(Relaxed) <= pack(depth, first) {
            return;
        }
        if let Some(&u) = neighbors.iter().find(|&&u| front.get(u as usize)) {
            if slot.fetch_min(pack(depth, u), Relaxed) == NO_PARENT {
                next.set_atomic(v as usize);
            }
        }
    })
    .map(|record| arcs + record.arcs_processed)
    .map_err(|e| io_error(ALGORITHM, e))
}

/// Settles the vertices of `set` whose list heads, from id `skip` on, hold a frontier vertex:
/// the heads hold the smallest ids of each list, so the first of them in the frontier is the
/// parent a whole list would give. A vertex whose head is its whole list is done with either
/// way (it is pulled again at the next level, and its list goes to the cache for it). Returns
/// the others, whose lists are still to read, and the ids visited.
fn settle_from_heads(
    g: &OocGraph,
    reached: &[AtomicU64],
    set: &Bitmap,
    front: &Bitmap,
    next: &Bitmap,
    depth: i64,
    skip: usize,
) -> Result<(Bitmap, u64), AlgoError> {
    let longer = Bitmap::new(g.num_vertices());
    let record = g
        .scan_list_heads(set, |v, head| {
            // Every id is looked up, not each until the first hit: the frontier (n/8 bytes)
            // is not in the core's cache, and lookups that do not wait on each other's
            // branch overlap their misses.
            let hits = head[skip..].iter().enumerate().fold(0u32, |hits, (i, &u)| {
                hits | u32::from(front.get(u as usize)) << i
            });
            match head.get(skip + hits.trailing_zeros() as usize) {
                Some(&u) if hits != 0 => {
                    // Only this call writes v's slot in this level.
                    reached[v as usize].store(pack(depth, u), Relaxed);
                    next.set_atomic(v as usize);
                    false
                }
                // Unvisited after this level: pulled again at the next, from the cache.
                _ if head.len() == g.degree(v) => true,
                _ => {
                    longer.set_atomic(v as usize);
                    false
                }
            }
        })
        .map_err(|e| io_error(ALGORITHM, e))?;
    Ok((longer, record.arcs_processed))
}

/// Arcs a vertex of the graph that the unvisited vertices' lists must hold before a pull reads
/// the first neighbours first: the side file holds one id a vertex, and a level whose lists are
/// short or cached (on Kronecker graphs, every pull after the first) is cheaper to read
/// directly.
const SETTLE_FIRST_ARCS: u64 = 2;

/// The unvisited vertices that the first neighbours did not settle (not in `settled`). Those
/// with a single arc are among them although their one neighbour is known not to be in the
/// frontier: they will be pulled again at the next level, and read now their lists are cached
/// for it. Left out, on Kronecker 25 in its original order the next two levels read 2.9 GB
/// each for them, where their lists lie scattered over the whole file.
fn unsettled(unvisited: &Bitmap, settled: &Bitmap) -> Bitmap {
    let words = unvisited
        .words()
        .par_iter()
        .zip(settled.words())
        .map(|(u, s)| u.load(Relaxed) & !s.load(Relaxed))
        .collect();
    Bitmap::from_words(words, unvisited.len())
}

/// Clears the members of `visited` from `unvisited`.
fn remove(unvisited: &Bitmap, visited: &Bitmap) {
    unvisited
        .words()
        .par_iter()
        .zip(visited.words())
        .for_each(|(u, v)| u.store(u.load(Relaxed) & !v.load(Relaxed), Relaxed));
}

/// The out-degree sum of a frontier (GAPBS's scout count), from the offsets in DRAM.
fn degree_sum(g: &OocGraph, front: &Bitmap) -> u64 {
    let offsets = g.offsets();
    front
        .words()
        .par_iter()
        .enumerate()
        .map(|(w, word)| {
            let mut bits = word.load(Relaxed);
            let mut sum = 0;
            while bits != 0 {
                let v = w * 64 + bits.trailing_zeros() as usize;
                sum += offsets[v + 1] - offsets[v];
                bits &= bits - 1;
            }
            sum
        })
        .sum()
}

fn label_correcting(g: &OocGraph, source: Vertex, parents: bool) -> Result<Outcome, AlgoError> {
    let n = g.num_vertices();
    let dist: Vec<AtomicI64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicI64::new(UNREACHED))
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
    let (passes, mut edges) = frontier_passes(g, ALGORITHM, source, relax, || Ok(()))?;

    let parents = if parents {
        // Reached vertices offer themselves to their out-neighbours one level further.
        let reached = Bitmap::new(n);
        dist.par_iter().enumerate().for_each(|(v, d)| {
            if d.load(Relaxed) != UNREACHED {
                reached.set_atomic(v);
            }
        });
        let parent: Vec<AtomicI64> = (0..n)
            .into_par_iter()
            .map(|_| AtomicI64::new(i64::MAX))
            .collect();
        let record = g
            .scan(&ScanSpec::new(&reached), |v, neighbors, _| {
                let next = dist[v as usize].load(Relaxed) + 1;
                for &u in neighbors {
                    if dist[u as usize].load(Relaxed) == next {
                        parent[u as usize].fetch_min(v as i64, Relaxed);
                    }
                }
            })
            .map_err(|e| io_error(ALGORITHM, e))?;
        edges += record.arcs_processed;
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
            UNREACHED => -1,
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
