//! Maximal matching of a symmetric graph, as in Sage (§4.3.3): phases of random-priority
//! matching on O(n) edges at a time, the read-only graph never copied.
//!
//! Every edge gets a seeded random priority ([`edge_priority`], ties broken by the edge). A
//! phase extracts the active edges whose priority lies in the next window, sized to hold about
//! `edges_per_phase` of them, and matches them by the parallel greedy of Blelloch, Fineman and
//! Shun (2012): in each round every vertex points at its lowest-ranked remaining edge, the edges
//! both of whose ends point at them join the matching, and the edges touching a matched vertex
//! drop out. An extracted edge never survives its phase (each gets a matched end). Windows
//! follow each other in priority order, so the result is exactly the matching the sequential
//! greedy builds scanning all edges in priority order: it depends on the seed only, never on the
//! thread count, the phase size or where the lists are read from.
//!
//! An edge is active exactly when both its ends are unmatched and distinct, so the matched bits
//! are the whole of Sage's graph filter here: a phase is one pass ([`Traversal::pass`]) over
//! the lists of the unmatched vertices, which gathers its window's edges and counts those
//! beyond it (the next window's size). In memory the pass walks the lists; on disk it is one
//! planned read, selective or streaming by the cost model. A filter's bits (2 bits an arc and
//! 28 bytes a vertex) and its packs, a list at a time, took twice as long in memory (Kronecker
//! 22: 1.48–1.62 s against 0.71–0.73 s) and 40× as long on disk (Kronecker 20 within 100 MiB:
//! 19.9 s, 5.9 GiB read, against 0.48 s). State: a matched bit and a pointer per vertex, the
//! matching and a phase's edges: O(n) words ([`STATE`]).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;
use vastgraph_engine::ooc::ScanSpec;
use vastgraph_engine::{Adjacency, Bitmap, Graph, Traversal, Vertex};

use crate::common::{read_error, require_symmetric, AlgoError, RunStats, StateSize, VerifyError};
use crate::hashing::seeded_hash;
use crate::serial_check::check_edges_of;

/// The DRAM the kernel keeps beside the graph ([`StateSize`]), at its peak: a pointer and a
/// matched bit a vertex, the matching (at most n/2 edges of 8 bytes, reserved), a phase's n/4
/// edges of 8 bytes gathered in per-thread vectors (at most twice their length) and then copied
/// into one, and the pass's bitmap of unmatched vertices.
pub const STATE: StateSize = StateSize::per_vertex(15);

/// A phase extracts about n / this many edges. Sage's O(n) edges a phase; a quarter keeps the
/// phase's edges at 6 bytes a vertex while they are gathered (the result does not depend on the
/// phase size).
const DEFAULT_PHASE_DIVISOR: usize = 4;

const ALGORITHM: &str = "matching";

/// Marks a vertex no remaining edge points at.
const NO_EDGE: u32 = u32::MAX;

#[derive(Clone, Debug, serde::Serialize)]
pub struct MatchingParams {
    pub seed: u64,
    /// Edges extracted per phase (0: one per four vertices, Sage's O(n); see [`STATE`]).
    pub edges_per_phase: usize,
}

impl Default for MatchingParams {
    fn default() -> Self {
        MatchingParams {
            seed: 1,
            edges_per_phase: 0,
        }
    }
}

#[derive(Debug)]
pub struct MatchingResult {
    /// Matched edges, each as [u, v] with u < v, sorted.
    pub edges: Vec<[u32; 2]>,
    /// `iterations` = greedy rounds over all phases; extra: `matching_size`, `phases`,
    /// `max_phase_edges`.
    pub stats: RunStats,
}

/// The priority of edge {u, v} under `seed`: the matching is the sequential greedy in
/// ascending (priority, min(u, v), max(u, v)) order.
#[inline]
pub fn edge_priority(seed: u64, u: Vertex, v: Vertex) -> u64 {
    seeded_hash(seed, ((u.min(v) as u64) << 32) | u.max(v) as u64)
}

/// Edges extracted a phase: the given number, or a quarter of the vertices; below NO_EDGE, as
/// a batch's edges are numbered in u32.
fn edges_per_phase(n: usize, params: &MatchingParams) -> u128 {
    (if params.edges_per_phase == 0 {
        n.div_ceil(DEFAULT_PHASE_DIVISOR).max(1)
    } else {
        params.edges_per_phase.min(NO_EDGE as usize - 1)
    }) as u128
}

/// The last priority of the window that starts at `floor` and holds about `per_phase` of the
/// `edges_left` edges whose priorities lie uniformly in `floor..=u64::MAX`.
fn window_ceiling(floor: u64, per_phase: u128, edges_left: u64) -> u64 {
    let edges_left = edges_left.max(1) as u128;
    if edges_left <= per_phase {
        u64::MAX
    } else {
        let width = (u64::MAX - floor) as u128 * per_phase / edges_left;
        floor.saturating_add(width.max(1) as u64 - 1)
    }
}

/// The maximal matching of `g` for `params.seed` (see the module documentation).
pub fn maximal_matching<G: Traversal>(
    g: &G,
    params: &MatchingParams,
) -> Result<MatchingResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    let per_phase = edges_per_phase(n, params);
    let seed = params.seed;
    let matched = Bitmap::new(n);
    let pointer: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(NO_EDGE))
        .collect();
    let mut matching: Vec<[u32; 2]> = Vec::with_capacity(n / 2);
    let (mut phases, mut rounds, mut scanned, mut max_phase_edges) = (0u64, 0u64, 0u64, 0usize);
    // An upper bound on the edges left: every edge at first, then those the last pass found
    // beyond its window (some of which that phase's matches removed).
    let mut edges_left = g.num_arcs().div_ceil(2);
    let mut floor = 0u64;
    while edges_left > 0 {
        let ceiling = window_ceiling(floor, per_phase, edges_left);
        let unmatched = Bitmap::from_fn(n, |v| !matched.get(v) && g.degree(v as Vertex) > 0);
        let window = gather_window(g, &unmatched, &matched, seed, floor, ceiling)?;
        drop(unmatched);
        scanned += window.arcs;
        edges_left = window.beyond;
        let mut batch = window.edges;
        if !batch.is_empty() {
            phases += 1;
            max_phase_edges = max_phase_edges.max(batch.len());
            batch.par_sort_unstable_by_key(|&[u, v]| (edge_priority(seed, u, v), u, v));
            rounds += greedy_rounds(&batch, &pointer, &matched, &mut matching);
        }
        if ceiling == u64::MAX {
            break;
        }
        floor = ceiling + 1;
    }
    matching.par_sort_unstable();
    let stats = RunStats {
        iterations: rounds,
        edges_traversed: scanned,
        ..Default::default()
    }
    .with("matching_size", matching.len() as u64)
    .with("phases", phases)
    .with("max_phase_edges", max_phase_edges as u64);
    Ok(MatchingResult {
        edges: matching,
        stats,
    })
}

/// What one pass of [`maximal_matching`] found.
struct Window {
    /// The active edges [u, v], u < v, with priorities in the window.
    edges: Vec<[Vertex; 2]>,
    /// Active edges with priorities above the window.
    beyond: u64,
    /// Arcs the pass read.
    arcs: u64,
}

/// One pass over the lists of `unmatched`: the active edges (both ends unmatched, distinct)
/// whose priority lies in `floor..=ceiling`, each once from its smaller end, and the count of
/// those above `ceiling`. Each thread gathers into its own vector; they are then copied into
/// one array of the exact total.
fn gather_window<G: Traversal>(
    g: &G,
    unmatched: &Bitmap,
    matched: &Bitmap,
    seed: u64,
    floor: u64,
    ceiling: u64,
) -> Result<Window, AlgoError> {
    let slots: Vec<Mutex<Vec<[Vertex; 2]>>> = (0..rayon::current_num_threads() + 1)
        .map(|_| Mutex::new(Vec::new()))
        .collect();
    let beyond = AtomicU64::new(0);
    let arcs = g
        .pass(&ScanSpec::ids_only(unmatched), |u, piece, _| {
            let mut above = 0u64;
            // This thread's vector, locked at the piece's first edge in the window.
            let mut mine = None;
            for &v in piece {
                if u < v && !matched.get(v as usize) {
                    let p = edge_priority(seed, u, v);
                    if p > ceiling {
                        above += 1;
                    } else if p >= floor {
                        mine.get_or_insert_with(|| {
                            let t = rayon::current_thread_index().map_or(0, |t| t + 1);
                            slots[t % slots.len()].lock().unwrap()
                        })
                        .push([u, v]);
                    }
                }
            }
            if above > 0 {
                beyond.fetch_add(above, Relaxed);
            }
        })
        .map_err(read_error(ALGORITHM))?;
    let pieces: Vec<Vec<[Vertex; 2]>> =
        slots.into_iter().map(|s| s.into_inner().unwrap()).collect();
    let mut edges = Vec::with_capacity(pieces.iter().map(Vec::len).sum());
    for piece in pieces {
        edges.extend_from_slice(&piece);
    }
    Ok(Window {
        edges,
        beyond: beyond.into_inner(),
        arcs,
    })
}

/// The parallel greedy on `batch` (sorted: index = rank): appends the matched edges to
/// `matching`, sets their ends in `matched`, and returns the rounds taken. `pointer` is all
/// NO_EDGE before and after.
fn greedy_rounds(
    batch: &[[Vertex; 2]],
    pointer: &[AtomicU32],
    matched: &Bitmap,
    matching: &mut Vec<[u32; 2]>,
) -> u64 {
    let mut remaining: Vec<u32> = (0..batch.len() as u32).collect();
    let mut rounds = 0;
    while !remaining.is_empty() {
        rounds += 1;
        remaining.par_iter().for_each(|&i| {
            let [u, v] = batch[i as usize];
            pointer[u as usize].fetch_min(i, Relaxed);
            pointer[v as usize].fetch_min(i, Relaxed);
        });
        // An edge both ends point at is the lowest-ranked remaining edge at both: the sequential
        // greedy takes it too. Such edges share no vertex.
        let winners: Vec<[u32; 2]> = remaining
            .par_iter()
            .filter_map(|&i| {
                let [u, v] = batch[i as usize];
                let mine = pointer[u as usize].load(Relaxed) == i
                    && pointer[v as usize].load(Relaxed) == i;
                mine.then_some([u, v])
            })
            .collect();
        remaining.par_iter().for_each(|&i| {
            let [u, v] = batch[i as usize];
            pointer[u as usize].store(NO_EDGE, Relaxed);
            pointer[v as usize].store(NO_EDGE, Relaxed);
        });
        winners.par_iter().for_each(|&[u, v]| {
            matched.set_atomic(u as usize);
            matched.set_atomic(v as usize);
        });
        remaining = remaining
            .into_par_iter()
            .filter(|&i| {
                let [u, v] = batch[i as usize];
                !matched.get(u as usize) && !matched.get(v as usize)
            })
            .collect();
        matching.extend(winners);
    }
    rounds
}

/// Checks that the edges are edges of G (as [u, v], u < v), that no vertex is in two of them,
/// and that the matching is maximal: every edge of G (self-loops aside) has a matched end.
pub fn verify_matching<A: Adjacency>(
    g: &Graph<A>,
    result: &MatchingResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    if let Err(m) = check_edges_of(g, &result.edges) {
        return fail(m);
    }
    let mut mate = vec![u32::MAX; n];
    for &[u, v] in &result.edges {
        for (x, y) in [(u, v), (v, u)] {
            if mate[x as usize] != u32::MAX {
                return fail(format!(
                    "vertex {x} is matched twice: to {} and to {y}",
                    mate[x as usize]
                ));
            }
            mate[x as usize] = y;
        }
    }
    for u in 0..n as Vertex {
        if mate[u as usize] != u32::MAX {
            continue;
        }
        let mut free_neighbor = None;
        g.out().try_for_each_neighbor(u, |v| {
            if v != u && mate[v as usize] == u32::MAX {
                free_neighbor = Some(v);
                return false;
            }
            true
        });
        if let Some(v) = free_neighbor {
            return fail(format!(
                "edge [{}, {}] has no matched end: the matching is not maximal",
                u.min(v),
                u.max(v)
            ));
        }
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Params, SEED};
use crate::registry::Values;

/// `matching` in the registry.
pub struct Matching;

impl Algorithm for Matching {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "matching",
        summary: "maximal matching, random-priority greedy in phases, one pass each (--seed): k × 2 edges",
        params: &[SEED],
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
        state_in_passes: Some(|n, _| Some(STATE.bytes(n, 0, 1))),
    };
    type Params = MatchingParams;
    type Result = MatchingResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<MatchingParams, AlgoError> {
        Ok(MatchingParams {
            seed: given.count(&SEED),
            ..Default::default()
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &MatchingParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<MatchingResult, AlgoError> {
        maximal_matching(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        _q: &MatchingParams,
        r: &MatchingResult,
    ) -> Result<(), VerifyError> {
        verify_matching(g, r)
    }
    fn output(r: MatchingResult, _q: &MatchingParams) -> (Option<Values>, RunStats) {
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
    fn path_and_triangle() {
        // A path 0-1-2-3 and a triangle 4-5-6 with a self-loop at 6.
        let g =
            InMemoryGraph::from_edges(7, &[(0, 1), (1, 2), (2, 3), (4, 5), (5, 6), (4, 6)], true);
        for seed in 0..20 {
            for edges_per_phase in [0, 1, 2] {
                let r = maximal_matching(
                    &g.view(),
                    &MatchingParams {
                        seed,
                        edges_per_phase,
                    },
                )
                .unwrap();
                verify_matching(&g.view(), &r).unwrap();
                // The triangle always gives one edge; the path one or two.
                assert!((2..=3).contains(&r.edges.len()), "{:?}", r.edges);
            }
        }
        let r = maximal_matching(&g.view(), &MatchingParams::default()).unwrap();
        let mut not_maximal = r.edges.clone();
        not_maximal.pop();
        let bad = MatchingResult {
            edges: not_maximal,
            stats: RunStats::default(),
        };
        assert!(verify_matching(&g.view(), &bad).is_err());
        let mut shared = r.edges.clone();
        shared.push([1, 2]);
        shared.push([0, 1]);
        let bad = MatchingResult {
            edges: shared,
            stats: RunStats::default(),
        };
        assert!(verify_matching(&g.view(), &bad).is_err());
    }
}
