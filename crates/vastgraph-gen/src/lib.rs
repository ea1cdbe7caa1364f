//! Synthetic graph generators (Graph500 Kronecker, uniform random) that stream edge batches
//! to a callback — normally the store builder — without ever holding the edge list.
//!
//! Determinism: edges are produced in fixed-size chunks; chunk `i` depends only on the
//! seed and `i`, chunks are generated in parallel a window at a time and handed over
//! strictly in chunk order, so the output is identical for any number of threads.

mod chunk;
mod kronecker;
mod permutation;
mod quadrants;
mod rng;
mod uniform;

pub use chunk::{EdgeChunk, CHUNK_EDGES};
pub use kronecker::{Kronecker, KroneckerParams, KRONECKER_ABCD};
pub use uniform::{Uniform, UniformParams};

use rayon::prelude::*;

/// The callback receiving batches: `src[i] → dst[i]`, with one weight per edge when the
/// generator is weighted.
pub type BatchFn<'a> = dyn FnMut(&[u32], &[u32], Option<&[f64]>) -> anyhow::Result<()> + 'a;

/// A deterministic, chunked edge generator.
pub trait EdgeGenerator: Sync {
    /// Vertex ids are in `0..num_vertices()`.
    fn num_vertices(&self) -> u64;

    /// Exactly this many edges are produced (self-loops and duplicates included).
    fn num_edges(&self) -> u64;

    /// Edges carry integer weights in 1..=255 (as f64).
    fn weighted(&self) -> bool;

    /// Appends the edges of chunk `index` (edges `index·CHUNK_EDGES ..`, at most
    /// `CHUNK_EDGES` of them) to `out`. Must depend only on the parameters and `index`.
    fn fill_chunk(&self, index: u64, out: &mut EdgeChunk);

    /// Streams all edges to `f`, one chunk per call, in chunk order. Stops early with `f`'s
    /// error, or with `StoreError::Cancelled` when cancellation was requested.
    fn for_each_batch(&self, f: &mut BatchFn<'_>) -> anyhow::Result<()> {
        let chunks = self.num_edges().div_ceil(CHUNK_EDGES);
        // The window only bounds memory (and parallel slack); it does not affect the output.
        let window = (rayon::current_num_threads() * 4).max(8) as u64;
        let mut buffers: Vec<EdgeChunk> = Vec::new();
        let mut first = 0;
        while first < chunks {
            if vastgraph_store::cancel_requested() {
                return Err(vastgraph_store::StoreError::Cancelled.into());
            }
            let count = window.min(chunks - first) as usize;
            buffers.resize_with(count.max(buffers.len()), EdgeChunk::default);
            buffers[..count]
                .par_iter_mut()
                .enumerate()
                .for_each(|(i, buffer)| {
                    buffer.clear();
                    self.fill_chunk(first + i as u64, buffer);
                });
            for buffer in &buffers[..count] {
                let weights = self.weighted().then_some(&buffer.weights[..]);
                f(&buffer.src, &buffer.dst, weights)?;
            }
            first += count as u64;
        }
        Ok(())
    }
}
