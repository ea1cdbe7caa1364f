//! Community detection by synchronous label propagation (as in PartitionedVC): labels start as
//! the vertex ids; every round, every vertex takes the most frequent label among its
//! in-neighbours' labels of the previous round (ties → the smallest label; a vertex without
//! in-neighbours keeps its label). Stops when no label changes or after `max_iters` rounds.
//!
//! Synchronous LPA need not converge: on a bipartite graph two sides can swap labels forever
//! (a single edge 0–1 flips between {0,1} and {1,0}), hence the cap; `converged` in the stats
//! says which case ended the run. On a symmetric graph "in-neighbours" are the neighbours; on a
//! directed graph labels flow along the arcs, which needs the stored transpose. Every round reads
//! only the previous round's labels, so the result is the same for every thread count. State:
//! two label arrays: O(n).

use std::collections::HashMap;

use rayon::prelude::*;
use vastgraph_engine::{Adjacency, Bitmap, Graph, Vertex};

use crate::checkpoint::{self, Checkpoint, Column, State};
use crate::common::{AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): two label arrays and the changed
/// flags.
pub const STATE: StateSize = StateSize::per_vertex(16);

const ALGORITHM: &str = "label-propagation";

#[derive(Clone, Debug, serde::Serialize)]
pub struct LabelPropagationParams {
    pub max_iters: u32,
}

impl Default for LabelPropagationParams {
    fn default() -> Self {
        LabelPropagationParams { max_iters: 20 }
    }
}

#[derive(Debug)]
pub struct LabelPropagationResult {
    /// Community label (a vertex id) of every vertex.
    pub labels: Vec<u32>,
    /// `iterations` = rounds run; extra: `converged` (the last round changed nothing),
    /// `changed_last_round`, `communities` (distinct labels).
    pub stats: RunStats,
}

/// The most frequent value in `labels` (sorted here), the smallest among equally frequent ones.
fn most_frequent(labels: &mut [u32]) -> Option<u32> {
    labels.sort_unstable();
    let mut best: Option<(usize, u32)> = None;
    for run in labels.chunk_by(|a, b| a == b) {
        if best.is_none_or(|(count, _)| run.len() > count) {
            best = Some((run.len(), run[0]));
        }
    }
    best.map(|(_, label)| label)
}

pub fn label_propagation<A: Adjacency>(
    g: &Graph<A>,
    params: &LabelPropagationParams,
) -> Result<LabelPropagationResult, AlgoError> {
    label_propagation_resumable(g, params, None)
}

/// [`label_propagation`], saving the labels to `checkpoint` after rounds, or continuing from
/// the labels saved there.
pub fn label_propagation_resumable<A: Adjacency>(
    g: &Graph<A>,
    params: &LabelPropagationParams,
    checkpoint: Option<&Checkpoint>,
) -> Result<LabelPropagationResult, AlgoError> {
    let incoming = g.incoming().ok_or(AlgoError::NeedsTranspose {
        algorithm: ALGORITHM,
    })?;
    let n = g.num_vertices();
    let (mut rounds, mut changed) = (0u64, 0u64);
    let mut labels: Vec<u32> = match checkpoint::begin(checkpoint, ALGORITHM, params)? {
        Some(mut saved) => {
            rounds = saved.iteration;
            changed = saved.u64("changed")?;
            saved.column("labels", n)?
        }
        None => (0..n as u32).collect(),
    };
    let mut next = vec![0u32; n];
    while rounds < params.max_iters as u64 {
        rounds += 1;
        // Leaves of at most 1024 vertices: see `vastgraph_engine::bitmap::WORDS_PER_TASK`.
        changed = next
            .par_iter_mut()
            .with_max_len(1024)
            .enumerate()
            .map_init(Vec::new, |seen: &mut Vec<u32>, (v, slot)| {
                seen.clear();
                incoming.for_each_neighbor(v as Vertex, |u| seen.push(labels[u as usize]));
                *slot = most_frequent(seen).unwrap_or(labels[v]);
                (*slot != labels[v]) as u64
            })
            .sum();
        std::mem::swap(&mut labels, &mut next);
        if changed == 0 {
            break;
        }
        checkpoint::after_iteration(checkpoint, ALGORITHM, params, rounds, || {
            State::new(vec![Column::of("labels", &labels)]).with("changed", changed)
        })?;
    }
    drop(next);
    let used = Bitmap::new(n);
    labels.par_iter().for_each(|&l| {
        used.set_atomic(l as usize);
    });
    let stats = RunStats {
        iterations: rounds,
        edges_traversed: rounds * g.num_arcs(),
        ..Default::default()
    }
    .with("converged", (changed == 0 && rounds > 0) || n == 0)
    .with("changed_last_round", changed)
    .with("communities", used.count_ones() as u64);
    Ok(LabelPropagationResult { labels, stats })
}

/// Re-runs the rule serially (counting labels in a hash map) for the same number of rounds and
/// demands the same labels; when the run reports convergence, also checks the fixed point:
/// every vertex with in-neighbours holds one of their most frequent labels.
pub fn verify_label_propagation<A: Adjacency>(
    g: &Graph<A>,
    params: &LabelPropagationParams,
    result: &LabelPropagationResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let Some(incoming) = g.incoming() else {
        return fail("the graph has no in-edges to propagate labels along".into());
    };
    let n = g.num_vertices();
    if result.labels.len() != n {
        return fail(format!("{} labels for {n} vertices", result.labels.len()));
    }
    let counts_around = |v: Vertex, labels: &[u32]| {
        let mut counts: HashMap<u32, u32> = HashMap::new();
        incoming.for_each_neighbor(v, |u| *counts.entry(labels[u as usize]).or_default() += 1);
        counts
    };
    let mut labels: Vec<u32> = (0..n as u32).collect();
    for _ in 0..params.max_iters {
        let next: Vec<u32> = (0..n as Vertex)
            .map(|v| {
                let counts = counts_around(v, &labels);
                let top = counts.values().copied().max();
                counts
                    .iter()
                    .filter(|&(_, &c)| Some(c) == top)
                    .map(|(&l, _)| l)
                    .min()
                    .unwrap_or(labels[v as usize])
            })
            .collect();
        let same = next == labels;
        labels = next;
        if same {
            break;
        }
    }
    if let Some(v) = (0..n).find(|&v| labels[v] != result.labels[v]) {
        return fail(format!(
            "vertex {v}: label {}, a serial re-run gives {}",
            result.labels[v], labels[v]
        ));
    }
    if result
        .stats
        .extra
        .get("converged")
        .and_then(|c| c.as_bool())
        == Some(true)
    {
        for v in 0..n as Vertex {
            let counts = counts_around(v, &result.labels);
            let top = counts.values().copied().max();
            if top.is_some() && counts.get(&result.labels[v as usize]).copied() != top {
                return fail(format!(
                    "converged, but vertex {v}'s label is not among its neighbours' most frequent"
                ));
            }
        }
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Param, Params};
use crate::registry::Values;

pub const MAX_ITERS: Param = Param::count("max_iters", 20, 0, "the most rounds");
/// `label-propagation` in the registry.
pub struct LabelPropagation;

impl Algorithm for LabelPropagation {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "label-propagation",
        summary: "community labels by synchronous label propagation",
        params: &[MAX_ITERS],
        needs: Needs {
            symmetric: false,
            transpose: true,
            weights: false,
        },
        state: STATE,
        resumable: true,
        state_in_passes: None,
    };
    type Params = LabelPropagationParams;
    type Result = LabelPropagationResult;
    fn params<A: Adjacency>(
        given: &Params,
        _g: &Graph<A>,
    ) -> Result<LabelPropagationParams, AlgoError> {
        Ok(LabelPropagationParams {
            max_iters: given.count(&MAX_ITERS).min(u32::MAX as u64) as u32,
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &LabelPropagationParams,
        checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<LabelPropagationResult, AlgoError> {
        label_propagation_resumable(g, q, checkpoint)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &LabelPropagationParams,
        r: &LabelPropagationResult,
    ) -> Result<(), VerifyError> {
        verify_label_propagation(g, q, r)
    }
    fn output(
        r: LabelPropagationResult,
        _q: &LabelPropagationParams,
    ) -> (Option<Values>, RunStats) {
        (Some(Values::U32(r.labels)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn two_cliques_with_a_bridge_settle_on_two_labels() {
        let clique =
            |base: u32| (0..5u32).flat_map(move |u| (u + 1..5).map(move |v| (base + u, base + v)));
        let edges: Vec<(u32, u32)> = clique(0).chain(clique(5)).chain([(4, 5)]).collect();
        let g = InMemoryGraph::from_edges(10, &edges, true);
        let params = LabelPropagationParams::default();
        let r = label_propagation(&g.view(), &params).unwrap();
        verify_label_propagation(&g.view(), &params, &r).unwrap();
        assert_eq!(r.stats.extra["converged"], true);
        assert_eq!(r.labels[..5], [r.labels[0]; 5]);
        assert_eq!(r.labels[5..], [r.labels[5]; 5]);
        assert_ne!(r.labels[0], r.labels[5]);
    }

    #[test]
    fn one_edge_oscillates_until_the_cap() {
        let g = InMemoryGraph::from_edges(2, &[(0, 1)], true);
        let params = LabelPropagationParams { max_iters: 5 };
        let r = label_propagation(&g.view(), &params).unwrap();
        assert_eq!(r.stats.iterations, 5);
        assert_eq!(r.stats.extra["converged"], false);
        assert_eq!(r.labels, vec![1, 0]);
        verify_label_propagation(&g.view(), &params, &r).unwrap();
        assert_eq!(most_frequent(&mut [3, 1, 3, 1, 2]), Some(1));
    }
}
