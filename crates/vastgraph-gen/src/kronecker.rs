//! Graph500 Kronecker (R-MAT) graphs: 2^scale vertices, edge_factor · 2^scale edges; each
//! edge picks one quadrant of the adjacency matrix per level with probabilities
//! A, B, C, D = 0.57, 0.19, 0.19, 0.05; vertex ids are then scrambled by a seeded
//! permutation so that degree does not correlate with id.

use rand::RngCore;

use crate::chunk::{chunk_len, EdgeChunk};
use crate::permutation::Scramble;
use crate::quadrants::{LevelSampler, LEVELS_PER_DRAW};
use crate::rng::{push_weights, stream_rng, Stream};
use crate::EdgeGenerator;

/// The Graph500 initiator probabilities A, B, C, D.
pub const KRONECKER_ABCD: [f64; 4] = [0.57, 0.19, 0.19, 0.05];

/// Largest scale whose 2^scale vertices fit u32 ids below `MAX_VERTICES`.
const MAX_SCALE: u32 = 31;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KroneckerParams {
    /// log2 of the number of vertices (1..=31).
    pub scale: u32,
    /// Edges per vertex: the graph has edge_factor · 2^scale edges.
    pub edge_factor: u64,
    pub seed: u64,
    /// Draw an integer weight in 1..=255 per edge.
    pub weighted: bool,
}

pub struct Kronecker {
    params: KroneckerParams,
    edges: u64,
    /// Samples `LEVELS_PER_DRAW` levels at a time...
    full: LevelSampler,
    /// ...and the `scale % LEVELS_PER_DRAW` remaining levels, if any.
    rest: Option<LevelSampler>,
    /// Scrambles generated ids.
    permutation: Scramble,
}

impl Kronecker {
    /// Checks the parameters and draws the vertex permutation.
    pub fn new(params: KroneckerParams) -> anyhow::Result<Kronecker> {
        anyhow::ensure!(
            (1..=MAX_SCALE).contains(&params.scale),
            "Kronecker scale must be in 1..={MAX_SCALE} (2^scale vertices must fit u32 ids), got {}",
            params.scale
        );
        let vertices = 1u64 << params.scale;
        let edges = params
            .edge_factor
            .checked_mul(vertices)
            .ok_or_else(|| anyhow::anyhow!("edge_factor · 2^scale overflows u64"))?;
        Ok(Kronecker {
            params,
            edges,
            full: LevelSampler::new(KRONECKER_ABCD, LEVELS_PER_DRAW),
            rest: (!params.scale.is_multiple_of(LEVELS_PER_DRAW))
                .then(|| LevelSampler::new(KRONECKER_ABCD, params.scale % LEVELS_PER_DRAW)),
            permutation: Scramble::new(params.scale, params.seed),
        })
    }

    pub fn params(&self) -> &KroneckerParams {
        &self.params
    }
}

impl EdgeGenerator for Kronecker {
    fn num_vertices(&self) -> u64 {
        1u64 << self.params.scale
    }

    fn num_edges(&self) -> u64 {
        self.edges
    }

    fn weighted(&self) -> bool {
        self.params.weighted
    }

    fn fill_chunk(&self, index: u64, out: &mut EdgeChunk) {
        let n = chunk_len(self.edges, index);
        let mut rng = stream_rng(self.params.seed, index, Stream::Edges);
        let full_draws = self.params.scale / LEVELS_PER_DRAW;
        out.src.reserve(n);
        out.dst.reserve(n);
        for _ in 0..n {
            let (mut u, mut v) = (0u32, 0u32);
            for _ in 0..full_draws {
                let (row, col) = self.full.sample(rng.next_u64());
                u = (u << LEVELS_PER_DRAW) | row;
                v = (v << LEVELS_PER_DRAW) | col;
            }
            if let Some(rest) = &self.rest {
                let (row, col) = rest.sample(rng.next_u64());
                u = (u << rest.levels()) | row;
                v = (v << rest.levels()) | col;
            }
            out.src.push(self.permutation.apply(u));
            out.dst.push(self.permutation.apply(v));
        }
        if self.params.weighted {
            push_weights(self.params.seed, index, n, &mut out.weights);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_are_refused() {
        let p = |scale, edge_factor| KroneckerParams {
            scale,
            edge_factor,
            seed: 0,
            weighted: false,
        };
        assert!(Kronecker::new(p(0, 16)).is_err());
        assert!(Kronecker::new(p(32, 16)).is_err());
        assert!(Kronecker::new(p(1, u64::MAX)).is_err());
    }
}
