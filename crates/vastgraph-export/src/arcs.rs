//! The one walk over a graph's arcs that every export format shares.

use vastgraph_engine::{Adjacency, Vertex};
use vastgraph_store::StoreError;

use crate::ProgressFn;

/// How many vertices pass between checks for Ctrl-C and progress updates.
const VERTICES_PER_CHECK: usize = 1 << 16;

/// Calls `f(src, dst, weight)` for every arc in store order. Stops with an error when the user
/// interrupts (the store crate's cancel flag) or when `f` fails.
pub(crate) fn for_each_arc<A: Adjacency>(
    out: &A,
    progress: ProgressFn,
    mut f: impl FnMut(Vertex, Vertex, f64) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut done = 0u64;
    let mut failed = None;
    for u in 0..out.num_vertices() {
        if u % VERTICES_PER_CHECK == 0 {
            progress(done);
            if vastgraph_store::cancel_requested() {
                return Err(StoreError::Cancelled.into());
            }
        }
        let u = u as Vertex;
        out.try_for_each_weighted(u, |v, w| match f(u, v, w) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        });
        if let Some(e) = failed.take() {
            return Err(e);
        }
        done += out.degree(u) as u64;
    }
    progress(done);
    Ok(())
}
