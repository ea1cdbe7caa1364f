//! (Δ+1)-colouring of a symmetric graph, largest-log-degree-first (Hasenplaugh, Kaler, Schardl,
//! Leiserson 2014; as in GBBS): vertices are ordered by ⌈log2 degree⌉, then by a seeded random
//! hash. A vertex colours itself with the smallest colour none of its higher-priority neighbours
//! has, once all of them are coloured (Jones–Plassmann rounds: a counter of uncoloured
//! higher-priority neighbours per vertex; a vertex whose counter reaches 0 joins the next round).
//!
//! The colouring is the one the sequential greedy in priority order gives, so it depends on the
//! seed only. A vertex has at most `degree` higher-priority neighbours, so its colour is at most
//! its degree: at most Δ+1 colours. Self-loops are ignored. State: colour and counter per
//! vertex, the priority ranks, the frontiers: O(n).
//!
//! Lists on disk ([`in_passes`]): a round per step of the longest chain of priorities would
//! read a few scattered lists each (Kronecker 22 within 256 MiB: 2,713 rounds read 80 times
//! the store). There a pass counts the higher-priority neighbours, then a vertex colours itself
//! and releases its lower neighbours as soon as its counter reaches 0, within the pass that
//! loaded its list when it can ([`label_correcting`]'s reentry): each list is read about once
//! more. The colouring is the same, as it depends on the priorities alone.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, Ordering::Acquire, Ordering::Relaxed, Ordering::Release};

use rayon::prelude::*;
use vastgraph_engine::ooc::{ScanSpec, Weights};
use vastgraph_engine::traverse::{label_correcting, WholeLists};
use vastgraph_engine::{
    edge_map, Adjacency, Bitmap, EdgeMapCounters, EdgeMapOptions, Graph, Traversal, Vertex,
    VertexSubset,
};

use crate::common::{read_error, require_symmetric, AlgoError, RunStats, StateSize, VerifyError};
use crate::priority::{ReleaseLower, VertexPriority};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): colours, priorities and counts of
/// uncoloured higher-priority neighbours.
pub const STATE: StateSize = StateSize::per_vertex(28);

const ALGORITHM: &str = "coloring";

const UNCOLORED: u32 = u32::MAX;

#[derive(Clone, Debug, serde::Serialize)]
pub struct ColoringParams {
    /// Seed of the random order within a log-degree class.
    pub seed: u64,
}

impl Default for ColoringParams {
    fn default() -> Self {
        ColoringParams { seed: 1 }
    }
}

#[derive(Debug)]
pub struct ColoringResult {
    /// Colour of every vertex, 0-based.
    pub colors: Vec<u32>,
    /// `iterations` = rounds; extra: `colors_used`, `max_degree`.
    pub stats: RunStats,
}

pub fn coloring<A: Adjacency>(
    g: &Graph<A>,
    params: &ColoringParams,
) -> Result<ColoringResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    if g.out().on_disk().is_some() {
        return in_passes(g, params);
    }
    let n = g.num_vertices();
    let out = g.out();
    let priority = VertexPriority::largest_log_degree_first(out, params.seed);
    let waiting = priority.count_higher_neighbors(out);
    let colors: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(UNCOLORED))
        .collect();
    let release = ReleaseLower {
        priority: &priority,
        waiting: &waiting,
        open: |_| true,
    };
    let counters = EdgeMapCounters::default();
    let opts = EdgeMapOptions::with_counters(&counters);

    let mut ready: Vec<Vertex> = (0..n as Vertex)
        .into_par_iter()
        .filter(|&v| waiting[v as usize].load(Relaxed) == 0)
        .collect();
    let mut rounds = 0u64;
    while !ready.is_empty() {
        rounds += 1;
        // `taken[c]`: some higher-priority neighbour has colour c (scratch reused per task).
        ready
            .par_iter()
            .for_each_init(Vec::new, |taken: &mut Vec<bool>, &v| {
                let first_free =
                    first_free_color(&priority, &colors, v, out.degree(v), taken, |visit| {
                        out.for_each_neighbor(v, visit)
                    });
                colors[v as usize].store(first_free, Relaxed);
            });
        let frontier = VertexSubset::from_ids(n, std::mem::take(&mut ready));
        ready = match edge_map(g, &frontier, &release, &opts).into_sparse() {
            VertexSubset::Sparse { ids, .. } => ids,
            VertexSubset::Dense { .. } => unreachable!("converted to sparse"),
        };
    }

    finish(g, colors, rounds, counters.edges() + 2 * g.num_arcs())
}

/// The smallest colour that no higher-priority neighbour of `v` has (`taken` is scratch);
/// `neighbors` calls its argument with each of v's `degree` neighbours.
fn first_free_color(
    priority: &VertexPriority,
    colors: &[AtomicU32],
    v: Vertex,
    degree: usize,
    taken: &mut Vec<bool>,
    neighbors: impl FnOnce(&mut dyn FnMut(Vertex)),
) -> u32 {
    taken.clear();
    taken.resize(degree + 1, false);
    neighbors(&mut |u| {
        if u != v && priority.outranks(u, v) {
            let c = colors[u as usize].load(Relaxed) as usize;
            if c < taken.len() {
                taken[c] = true;
            }
        }
    });
    taken
        .iter()
        .position(|&t| !t)
        .expect("degree + 1 slots, at most degree taken") as u32
}

fn finish<G: Traversal>(
    g: &G,
    colors: Vec<AtomicU32>,
    rounds: u64,
    edges: u64,
) -> Result<ColoringResult, AlgoError> {
    let colors: Vec<u32> = colors.into_par_iter().map(AtomicU32::into_inner).collect();
    let used = colors.par_iter().copied().max().map_or(0, |c| c as u64 + 1);
    let max_degree = (0..g.num_vertices() as Vertex)
        .into_par_iter()
        .map(|v| g.degree(v) as u64)
        .max()
        .unwrap_or(0);
    let stats = RunStats {
        iterations: rounds,
        edges_traversed: edges,
        ..Default::default()
    }
    .with("colors_used", used)
    .with("max_degree", max_degree);
    Ok(ColoringResult { colors, stats })
}

/// The state [`in_passes`] keeps for `n` vertices: priority ranks, colours, counters, and the
/// active and activated bitmaps.
pub fn state_in_passes(n: u64) -> u64 {
    16 * n + 2 * n.div_ceil(64) * 8
}

/// The colouring of [`coloring`] over any [`Traversal`], in passes (see the module
/// documentation).
pub fn in_passes<G: Traversal>(
    g: &G,
    params: &ColoringParams,
) -> Result<ColoringResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    let priority = VertexPriority::largest_log_degree_first_by(n, |v| g.degree(v), params.seed);
    let waiting: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    let every = Bitmap::full(n);
    // Every vertex comes back once, to be coloured, most in passes of a few lists: on disk this
    // pass keeps the shortest lists the room holds, whose pages those passes would read again.
    let back = |_: Vertex| true;
    let count = ScanSpec {
        again: Some(&back),
        ..ScanSpec::new(&every)
    };
    let counted = g
        .pass(&count, |v, piece, _| {
            let higher = piece
                .iter()
                .filter(|&&u| u != v && priority.outranks(u, v))
                .count();
            waiting[v as usize].fetch_add(higher as u32, Relaxed);
        })
        .map_err(read_error(ALGORITHM))?;
    // A pass hands over no empty list: a vertex without neighbours takes colour 0 here.
    let colors: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|v| {
            AtomicU32::new(if g.degree(v as Vertex) == 0 {
                0
            } else {
                UNCOLORED
            })
        })
        .collect();
    let ready = Bitmap::from_fn(n, |v| {
        waiting[v].load(Relaxed) == 0 && g.degree(v as Vertex) > 0
    });
    let lists = WholeLists::new(g);
    let relax = |v: Vertex, piece: &[Vertex], _: Weights<'_>, activated: &Bitmap| {
        lists.whole(v, piece, |neighbors| {
            // v's count, 0, read with Acquire: it synchronises with every release that brought
            // it there, so the colours stored before them are seen.
            let released = waiting[v as usize].load(Acquire);
            debug_assert_eq!(released, 0, "a vertex is coloured once it waits for none");
            let color = TAKEN.with_borrow_mut(|taken| {
                let degree = neighbors.len();
                first_free_color(&priority, &colors, v, degree, taken, |visit| {
                    neighbors.iter().for_each(|&u| visit(u))
                })
            });
            colors[v as usize].store(color, Relaxed);
            for &u in neighbors {
                if u != v
                    && priority.outranks(v, u)
                    && waiting[u as usize].fetch_sub(1, Release) == 1
                {
                    activated.set_atomic(u as usize);
                }
            }
        })
    };
    let (passes, edges) =
        label_correcting(g, ready, relax, || true).map_err(read_error(ALGORITHM))?;
    finish(g, colors, passes + 1, counted + edges)
}

thread_local! {
    /// [`first_free_color`]'s scratch in [`in_passes`], kept between lists.
    static TAKEN: RefCell<Vec<bool>> = const { RefCell::new(Vec::new()) };
}

/// Checks that every vertex has a colour, no edge joins two vertices of one colour (self-loops
/// aside), and no colour exceeds Δ (so at most Δ+1 colours).
pub fn verify_coloring<A: Adjacency>(
    g: &Graph<A>,
    result: &ColoringResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    let colors = &result.colors;
    if colors.len() != n {
        return fail(format!("{} colours for {n} vertices", colors.len()));
    }
    let max_degree = (0..n as Vertex)
        .map(|v| g.out().degree(v))
        .max()
        .unwrap_or(0);
    for u in 0..n as Vertex {
        let cu = colors[u as usize];
        if cu as usize > max_degree {
            return fail(format!(
                "vertex {u} has colour {cu}, above the maximum degree {max_degree}"
            ));
        }
        let mut clash = None;
        g.out().for_each_neighbor(u, |v| {
            if v != u && colors[v as usize] == cu {
                clash = Some(v);
            }
        });
        if let Some(v) = clash {
            return fail(format!(
                "adjacent vertices {u} and {v} both have colour {cu}"
            ));
        }
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Params, SEED};
use crate::registry::Values;

/// `coloring` in the registry.
pub struct Coloring;

impl Algorithm for Coloring {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "coloring",
        summary: "(max degree + 1)-colouring, largest-log-degree-first",
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
        state_in_passes: Some(|n, _| Some(state_in_passes(n))),
    };
    type Params = ColoringParams;
    type Result = ColoringResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<ColoringParams, AlgoError> {
        Ok(ColoringParams {
            seed: given.count(&SEED),
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &ColoringParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<ColoringResult, AlgoError> {
        coloring(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        _q: &ColoringParams,
        r: &ColoringResult,
    ) -> Result<(), VerifyError> {
        verify_coloring(g, r)
    }
    fn output(r: ColoringResult, _q: &ColoringParams) -> (Option<Values>, RunStats) {
        (Some(Values::U32(r.colors)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn odd_cycle_needs_three_colours() {
        let edges: Vec<(u32, u32)> = (0..7).map(|i| (i, (i + 1) % 7)).collect();
        let g = InMemoryGraph::from_edges(7, &edges, true);
        let r = coloring(&g.view(), &ColoringParams::default()).unwrap();
        verify_coloring(&g.view(), &r).unwrap();
        assert_eq!(r.stats.extra["colors_used"].as_u64(), Some(3));
        let mut bad = r;
        bad.colors[0] = bad.colors[1];
        assert!(verify_coloring(&g.view(), &bad).is_err());
    }
}
