//! Maximal matching of a symmetric graph, as in Sage (§4.3.3): phases of random-priority
//! matching on O(n) edges at a time, with a graph filter deleting the edges of matched vertices
//! between phases, so the read-only graph is never copied.
//!
//! Every edge gets a seeded random priority ([`edge_priority`], ties broken by the edge). A
//! phase extracts the still-active edges whose priority lies in the next window, sized to hold
//! about `edges_per_phase` of them, and matches them by the parallel greedy of Blelloch,
//! Fineman and Shun (2012): in each round every vertex points at its lowest-ranked remaining
//! edge, the edges both of whose ends point at them join the matching, and the edges touching a
//! matched vertex drop out. Then the filter packs the matched vertices and their neighbours,
//! removing every edge at a matched vertex; an extracted edge never survives (each has a matched
//! end). Windows follow each other in priority order, so the result is exactly the matching the
//! sequential greedy builds scanning all edges in priority order: it depends on the seed only,
//! never on the thread count. State: the filter (O(m) bits), a matched bit and a pointer per
//! vertex, the phase's edges (O(n) words).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::{Adjacency, Bitmap, Graph, GraphFilter, Vertex, VertexSubset};

use crate::common::{require_symmetric, AlgoError, RunStats, StateSize, VerifyError};
use crate::hashing::seeded_hash;
use crate::serial_check::check_edges_of;

/// The DRAM the kernel keeps beside the graph ([`StateSize`]), at its peak: the graph filter (at
/// most 28 bytes a vertex and 2 bits an arc: 12 bytes of vertex arrays, one 16-byte block slot
/// for every vertex with arcs and one for every 64 arcs), a pointer and a matched bit a vertex,
/// the matching (at most n/2 edges of 8 bytes), and a phase's edges (n/4 edges of 8 bytes,
/// twice while they are gathered) or, after it, the packing's ids and degrees.
pub const STATE: StateSize = StateSize {
    bytes_per_vertex: 44,
    bits_per_arc: 2,
};

/// A phase extracts about n / this many edges. Sage's O(n) edges a phase; a quarter keeps the
/// phase's 16 bytes an edge at 4 bytes a vertex, so that the kernel fits 1 GiB beside the
/// offsets on a 2^24-vertex Kronecker graph (the result does not depend on the phase size).
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
    /// `filter_bytes`, `max_phase_edges`.
    pub stats: RunStats,
}

/// The priority of edge {u, v} under `seed`: the matching is the sequential greedy in
/// ascending (priority, min(u, v), max(u, v)) order.
#[inline]
pub fn edge_priority(seed: u64, u: Vertex, v: Vertex) -> u64 {
    seeded_hash(seed, ((u.min(v) as u64) << 32) | u.max(v) as u64)
}

pub fn maximal_matching<A: Adjacency>(
    g: &Graph<A>,
    params: &MatchingParams,
) -> Result<MatchingResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    // A batch's edges are numbered in u32, below NO_EDGE.
    let per_phase = if params.edges_per_phase == 0 {
        n.div_ceil(DEFAULT_PHASE_DIVISOR).max(1)
    } else {
        params.edges_per_phase.min(NO_EDGE as usize - 1)
    } as u128;
    let seed = params.seed;
    let mut filter = GraphFilter::new(g.out(), true);
    let filter_bytes = filter.stats().bytes;
    let matched = Bitmap::new(n);
    let pointer: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(NO_EDGE))
        .collect();
    // A matching has at most n/2 edges: reserved once, so the output never grows by doubling.
    let mut matching: Vec<[u32; 2]> = Vec::with_capacity(n / 2);
    let (mut phases, mut rounds, mut scanned, mut max_phase_edges) = (0u64, 0u64, 0u64, 0usize);
    // Every active edge has a priority of at least `floor`.
    let mut floor = 0u64;
    loop {
        let active_arcs = filter.num_active_arcs();
        if active_arcs == 0 {
            break;
        }
        // Priorities are uniform, so a window of (edges wanted / edges left) of the remaining
        // range holds about `per_phase` edges.
        let edges_left = (active_arcs / 2).max(1) as u128;
        let ceiling = if edges_left <= per_phase {
            u64::MAX
        } else {
            let width = (u64::MAX - floor) as u128 * per_phase / edges_left;
            floor.saturating_add(width.max(1) as u64 - 1)
        };
        scanned += active_arcs;
        let mut batch = extract_window(&filter, seed, floor, ceiling);
        if batch.is_empty() {
            if ceiling == u64::MAX {
                // Only self-loops are left.
                break;
            }
            floor = ceiling + 1;
            continue;
        }
        phases += 1;
        max_phase_edges = max_phase_edges.max(batch.len());
        // Priorities are recomputed rather than stored: a phase holds 8 bytes per edge.
        batch.par_sort_unstable_by_key(|&[u, v]| (edge_priority(seed, u, v), u, v));
        let start = matching.len();
        let phase_rounds = greedy_rounds(&batch, &pointer, &matched, &mut matching);
        rounds += phase_rounds;
        drop(batch);
        // Delete every edge at a matched vertex: theirs, then their neighbours' copies.
        let keep =
            |u: Vertex, v: Vertex| u != v && !matched.get(u as usize) && !matched.get(v as usize);
        let ends: Vec<Vertex> = matching[start..]
            .iter()
            .flat_map(|&[u, v]| [u, v])
            .collect();
        filter.edge_map_pack(&VertexSubset::from_ids(n, ends), keep);
        filter.pack_dirty(keep);
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
    .with("filter_bytes", filter_bytes)
    .with("max_phase_edges", max_phase_edges as u64);
    Ok(MatchingResult {
        edges: matching,
        stats,
    })
}

/// Vertices whose extracted edges one task collects.
const EXTRACT_CHUNK: usize = 1024;

/// The active edges [u, v], u < v, whose priority lies in `floor..=ceiling`. Each chunk of
/// vertices collects into a vector trimmed to its length, and the pieces are copied into one
/// array of the exact total, so a phase never holds more than twice its edges.
fn extract_window<A: Adjacency>(
    filter: &GraphFilter<'_, A>,
    seed: u64,
    floor: u64,
    ceiling: u64,
) -> Vec<[Vertex; 2]> {
    let n = filter.num_vertices();
    let pieces: Vec<Vec<[Vertex; 2]>> = (0..n.div_ceil(EXTRACT_CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut piece = Vec::new();
            for u in chunk * EXTRACT_CHUNK..((chunk + 1) * EXTRACT_CHUNK).min(n) {
                let u = u as Vertex;
                filter.for_each_active(u, |v| {
                    if u < v && (floor..=ceiling).contains(&edge_priority(seed, u, v)) {
                        piece.push([u, v]);
                    }
                });
            }
            piece.shrink_to_fit();
            piece
        })
        .collect();
    let mut batch = Vec::with_capacity(pieces.iter().map(Vec::len).sum());
    for piece in pieces {
        batch.extend_from_slice(&piece);
    }
    batch
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
        summary: "maximal matching, random-priority greedy through the graph filter (--seed): k × 2 edges",
        params: &[SEED],
        needs: Needs {
            symmetric: true,
            transpose: false,
            weights: false,
        },
        state: STATE,
        resumable: false,
        state_in_passes: None,
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
