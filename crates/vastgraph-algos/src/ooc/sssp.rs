//! Out-of-core single-source shortest paths, label-correcting (Bellman-Ford with a frontier):
//! each pass relaxes the out-arcs of the vertices whose distance dropped, with reentry inside
//! loaded ranges. Weights are read alongside the neighbour ids. Converges to the exact
//! distances for non-negative weights; a negative weight is reported as an error.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use vastgraph_engine::atomics::AtomicF64;
use vastgraph_engine::memory::huge_page_vec;
use vastgraph_engine::ooc::{OocGraph, Weights};
use vastgraph_engine::{Bitmap, Vertex};

use super::{check_source, frontier_passes};
use crate::common::{AlgoError, RunStats};
use crate::sssp::{SsspParams, SsspResult};

const ALGORITHM: &str = "sssp";

pub fn sssp(g: &OocGraph, params: &SsspParams) -> Result<SsspResult, AlgoError> {
    let source = check_source(g, params.source)?;
    if !g.reads_weights() {
        return Err(AlgoError::NeedsWeights {
            algorithm: ALGORITHM,
            hint: "convert the graph from a weighted input",
        });
    }
    let n = g.num_vertices();
    let dist: Vec<AtomicF64> = huge_page_vec(n, |_| AtomicF64::new(f64::INFINITY));
    dist[source as usize].store(0.0);
    let negative = AtomicBool::new(false);
    let relax = |v: Vertex, neighbors: &[Vertex], weights: Weights<'_>, activated: &Bitmap| {
        let dv = dist[v as usize].load();
        let Some(weights) = weights else { return };
        for (i, &u) in neighbors.iter().enumerate() {
            let w = weights.get(i);
            if w < 0.0 {
                negative.store(true, Relaxed);
                continue;
            }
            if dist[u as usize].write_min_nonneg(dv + w) {
                activated.set_atomic(u as usize);
            }
        }
    };
    let check_weights = || match negative.load(Relaxed) {
        true => Err(AlgoError::InvalidInput {
            algorithm: ALGORITHM,
            message: "a reachable arc has a negative weight; use bellman-ford".into(),
        }),
        false => Ok(()),
    };
    let (passes, edges) = frontier_passes(g, ALGORITHM, source, relax, check_weights)?;
    let distances: Vec<f64> = dist.into_iter().map(|d| d.load()).collect();
    let reached = distances.iter().filter(|d| d.is_finite()).count() as u64;
    let stats = RunStats {
        iterations: passes,
        edges_traversed: edges,
        ..Default::default()
    }
    .with("reached", reached);
    Ok(SsspResult { distances, stats })
}
