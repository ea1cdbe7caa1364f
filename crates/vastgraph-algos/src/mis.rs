//! Maximal independent set of a symmetric graph by the random-priority greedy in parallel rounds
//! (Blelloch, Fineman, Shun 2012): every vertex gets a seeded random priority; a vertex joins
//! the set once all its higher-priority neighbours are decided *out*, and a vertex next to a
//! member is out. Each round: the ready vertices join, one [`edge_map`] knocks out their
//! undecided neighbours, a second releases the neighbours those waited for.
//!
//! The set is exactly the one the sequential greedy in priority order picks (the
//! lexicographically first MIS in that order), so it depends on the seed only; O(log² n) rounds
//! w.h.p. Self-loops are ignored. State: one decision byte and one counter per vertex, the
//! priority ranks, the frontiers: O(n).

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::{
    edge_map, Adjacency, EdgeMapCounters, EdgeMapFn, EdgeMapOptions, Graph, Vertex, VertexSubset,
};

use crate::common::{require_symmetric, AlgoError, RunStats, StateSize, VerifyError};
use crate::priority::{ReleaseLower, VertexPriority};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): priorities, counts of higher-
/// priority neighbours and the decisions.
pub const STATE: StateSize = StateSize::per_vertex(24);

const ALGORITHM: &str = "mis";

const UNDECIDED: u8 = 0;
const IN: u8 = 1;
const OUT: u8 = 2;

#[derive(Clone, Debug, serde::Serialize)]
pub struct MisParams {
    pub seed: u64,
}

impl Default for MisParams {
    fn default() -> Self {
        MisParams { seed: 1 }
    }
}

#[derive(Debug)]
pub struct MisResult {
    /// 1 for the members of the set, 0 for the others.
    pub in_set: Vec<u8>,
    /// `iterations` = rounds; extra: `set_size`.
    pub stats: RunStats,
}

/// Neighbours of new members are out.
struct KnockOut<'a> {
    state: &'a [AtomicU8],
}

impl EdgeMapFn for KnockOut<'_> {
    fn update(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        self.update_atomic(s, d, 1.0)
    }
    fn update_atomic(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        s != d
            && self.state[d as usize]
                .compare_exchange(UNDECIDED, OUT, Relaxed, Relaxed)
                .is_ok()
    }
    fn cond(&self, d: Vertex) -> bool {
        self.state[d as usize].load(Relaxed) == UNDECIDED
    }
}

fn into_ids(s: VertexSubset) -> Vec<Vertex> {
    match s.into_sparse() {
        VertexSubset::Sparse { ids, .. } => ids,
        VertexSubset::Dense { .. } => unreachable!("converted to sparse"),
    }
}

pub fn maximal_independent_set<A: Adjacency>(
    g: &Graph<A>,
    params: &MisParams,
) -> Result<MisResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    let priority = VertexPriority::random(n, params.seed);
    let waiting: Vec<AtomicU32> = priority.count_higher_neighbors(g.out());
    let state: Vec<AtomicU8> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU8::new(UNDECIDED))
        .collect();
    let knock_out = KnockOut { state: &state };
    let release = ReleaseLower {
        priority: &priority,
        waiting: &waiting,
        open: |d: Vertex| state[d as usize].load(Relaxed) == UNDECIDED,
    };
    let counters = EdgeMapCounters::default();
    let opts = EdgeMapOptions::with_counters(&counters);

    let mut ready: Vec<Vertex> = (0..n as Vertex)
        .into_par_iter()
        .filter(|&v| waiting[v as usize].load(Relaxed) == 0)
        .collect();
    let (mut rounds, mut members) = (0u64, 0u64);
    while !ready.is_empty() {
        rounds += 1;
        members += ready.len() as u64;
        ready
            .par_iter()
            .for_each(|&v| state[v as usize].store(IN, Relaxed));
        let joined = VertexSubset::from_ids(n, std::mem::take(&mut ready));
        let knocked = edge_map(g, &joined, &knock_out, &opts);
        drop(joined);
        ready = into_ids(edge_map(g, &knocked, &release, &opts));
    }

    let in_set: Vec<u8> = state
        .into_par_iter()
        .map(|s| (s.into_inner() == IN) as u8)
        .collect();
    let stats = RunStats {
        iterations: rounds,
        edges_traversed: counters.edges() + g.num_arcs(),
        ..Default::default()
    }
    .with("set_size", members);
    Ok(MisResult { in_set, stats })
}

/// Checks independence (no edge inside the set, self-loops aside) and maximality (every vertex
/// outside the set has a neighbour in it).
pub fn verify_mis<A: Adjacency>(g: &Graph<A>, result: &MisResult) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    let in_set = &result.in_set;
    if in_set.len() != n {
        return fail(format!("{} flags for {n} vertices", in_set.len()));
    }
    for u in 0..n as Vertex {
        let mut member_neighbor = None;
        g.out().for_each_neighbor(u, |v| {
            if v != u && in_set[v as usize] == 1 {
                member_neighbor = Some(v);
            }
        });
        match (in_set[u as usize], member_neighbor) {
            (1, Some(v)) => {
                return fail(format!("adjacent vertices {u} and {v} are both in the set"))
            }
            (0, None) => {
                return fail(format!(
                    "vertex {u} is outside the set but has no neighbour in it: not maximal"
                ))
            }
            (0 | 1, _) => {}
            (flag, _) => return fail(format!("vertex {u} has flag {flag}, not 0 or 1")),
        }
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Params, SEED};
use crate::registry::Values;

/// `mis` in the registry.
pub struct Mis;

impl Algorithm for Mis {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "mis",
        summary: "maximal independent set, random-priority greedy (--seed); 1 = in the set",
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
        state_in_passes: None,
    };
    type Params = MisParams;
    type Result = MisResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<MisParams, AlgoError> {
        Ok(MisParams {
            seed: given.count(&SEED),
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &MisParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<MisResult, AlgoError> {
        maximal_independent_set(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        _q: &MisParams,
        r: &MisResult,
    ) -> Result<(), VerifyError> {
        verify_mis(g, r)
    }
    fn output(r: MisResult, _q: &MisParams) -> (Option<Values>, RunStats) {
        (Some(Values::U8(r.in_set)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn star_and_path() {
        // The star's centre either is the set alone, or all leaves are; both are maximal.
        let g = InMemoryGraph::from_edges(6, &[(0, 1), (0, 2), (0, 3), (0, 4), (1, 5)], true);
        for seed in 0..20 {
            let r = maximal_independent_set(&g.view(), &MisParams { seed }).unwrap();
            verify_mis(&g.view(), &r).unwrap();
        }
        let r = maximal_independent_set(&g.view(), &MisParams::default()).unwrap();
        let mut bad = r;
        let member = bad.in_set.iter().position(|&x| x == 1).unwrap();
        bad.in_set[member] = 0;
        assert!(verify_mis(&g.view(), &bad).is_err());
    }
}
