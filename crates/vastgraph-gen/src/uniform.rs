//! Uniform random graphs (Erdős–Rényi G(n, m) with replacement): each of the m edges picks
//! its source and destination uniformly among n vertices; self-loops and duplicates occur
//! as they fall (the store builder can drop them).

use rand::RngCore;

use crate::chunk::{chunk_len, EdgeChunk};
use crate::rng::{push_weights, stream_rng, Stream};
use crate::EdgeGenerator;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UniformParams {
    /// Number of vertices, 1..=MAX_VERTICES.
    pub vertices: u64,
    pub edges: u64,
    pub seed: u64,
    /// Draw an integer weight in 1..=255 per edge.
    pub weighted: bool,
}

pub struct Uniform {
    params: UniformParams,
}

impl Uniform {
    pub fn new(params: UniformParams) -> anyhow::Result<Uniform> {
        anyhow::ensure!(
            (1..=vastgraph_store::MAX_VERTICES).contains(&params.vertices),
            "the vertex count must be in 1..={}, got {}",
            vastgraph_store::MAX_VERTICES,
            params.vertices
        );
        Ok(Uniform { params })
    }

    pub fn params(&self) -> &UniformParams {
        &self.params
    }
}

impl EdgeGenerator for Uniform {
    fn num_vertices(&self) -> u64 {
        self.params.vertices
    }

    fn num_edges(&self) -> u64 {
        self.params.edges
    }

    fn weighted(&self) -> bool {
        self.params.weighted
    }

    fn fill_chunk(&self, index: u64, out: &mut EdgeChunk) {
        let n = chunk_len(self.params.edges, index);
        let mut rng = stream_rng(self.params.seed, index, Stream::Edges);
        let vertices = self.params.vertices as u128;
        // Multiply-shift of a 64-bit draw: no rejection loop, and with n < 2^32 the
        // deviation from uniform is below 2^-32 relative.
        let mut id = || ((rng.next_u64() as u128 * vertices) >> 64) as u32;
        out.src.reserve(n);
        out.dst.reserve(n);
        for _ in 0..n {
            out.src.push(id());
            out.dst.push(id());
        }
        if self.params.weighted {
            push_weights(self.params.seed, index, n, &mut out.weights);
        }
    }
}
