//! The unit of generation: a fixed number of edges with their own random streams.

/// Edges per chunk. Part of the output's definition: changing it changes every graph.
pub const CHUNK_EDGES: u64 = 1 << 16;

/// The edges of one chunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EdgeChunk {
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    /// One weight per edge for weighted generators, else empty.
    pub weights: Vec<f64>,
}

impl EdgeChunk {
    pub fn clear(&mut self) {
        self.src.clear();
        self.dst.clear();
        self.weights.clear();
    }
}

/// Number of edges in chunk `index` of a graph with `edges` edges.
pub(crate) fn chunk_len(edges: u64, index: u64) -> usize {
    edges
        .saturating_sub(index.saturating_mul(CHUNK_EDGES))
        .min(CHUNK_EDGES) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_edges_exactly() {
        let edges = 3 * CHUNK_EDGES + 17;
        let lens: Vec<usize> = (0..5).map(|i| chunk_len(edges, i)).collect();
        assert_eq!(lens, [1 << 16, 1 << 16, 1 << 16, 17, 0]);
    }
}
