//! Out-of-core maximal independent set in one sequential pass: the greedy in vertex-id order.
//! Lists arrive in ascending vertex order; a vertex joins unless a smaller neighbour already
//! joined, and smaller neighbours are all decided by the time it arrives. (A long list comes in
//! several pieces: the vertex joins on its first piece and leaves if a later piece finds a
//! member; no larger vertex has looked at it yet.) Vertices without neighbours join.
//!
//! The in-memory kernel's set is the greedy in a random priority order instead: both are
//! maximal independent sets, checked by the same verifier, but not the same set.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::ooc::{IoMode, OocGraph, ScanSpec};

use super::{all_vertices, io_error};
use crate::common::{AlgoError, RunStats};
use crate::mis::MisResult;

const ALGORITHM: &str = "mis";
const UNDECIDED: u8 = 0;
const IN: u8 = 1;
const OUT: u8 = 2;

pub fn maximal_independent_set(g: &OocGraph) -> Result<MisResult, AlgoError> {
    if !g.is_symmetric() {
        return Err(AlgoError::NeedsSymmetric {
            algorithm: ALGORITHM,
        });
    }
    let n = g.num_vertices();
    let state: Vec<AtomicU8> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU8::new(UNDECIDED))
        .collect();
    let all = all_vertices(n);
    let spec = ScanSpec {
        ordered: true,
        mode: Some(IoMode::Streaming),
        ..ScanSpec::new(&all)
    };
    let record = g
        .scan(&spec, |v, neighbors, _| {
            // Lists are sorted: only the prefix below v matters.
            let blocked = neighbors
                .iter()
                .take_while(|&&u| u < v)
                .any(|&u| state[u as usize].load(Relaxed) == IN);
            let slot = &state[v as usize];
            if blocked {
                slot.store(OUT, Relaxed);
            } else if slot.load(Relaxed) == UNDECIDED {
                slot.store(IN, Relaxed);
            }
        })
        .map_err(|e| io_error(ALGORITHM, e))?;
    drop(all);
    let in_set: Vec<u8> = state
        .into_iter()
        .map(|s| matches!(s.into_inner(), IN | UNDECIDED) as u8)
        .collect();
    let members = in_set.par_iter().filter(|&&x| x == 1).count() as u64;
    let stats = RunStats {
        iterations: 1,
        edges_traversed: record.arcs_processed,
        ..Default::default()
    }
    .with("set_size", members);
    Ok(MisResult { in_set, stats })
}
