//! A deterministic stream of pseudo-random edges (uniform endpoints, SplitMix64), for the
//! build benchmark and for tests that need large inputs without large files.

/// SplitMix64: tiny, fast, and good enough to scatter edge endpoints.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..bound (multiply-shift; bound must be at most 2^32).
    #[inline]
    pub fn below(&mut self, bound: u64) -> u32 {
        (((self.next_u64() >> 32) * bound) >> 32) as u32
    }
}

/// Fills batches of uniformly random edges over `vertices` vertices, `edges` in all.
#[derive(Clone, Debug)]
pub struct RandomEdges {
    rng: SplitMix64,
    vertices: u64,
    remaining: u64,
}

impl RandomEdges {
    pub fn new(seed: u64, vertices: u64, edges: u64) -> RandomEdges {
        RandomEdges {
            rng: SplitMix64::new(seed),
            vertices: vertices.clamp(1, crate::MAX_VERTICES),
            remaining: edges,
        }
    }

    /// Replace the contents of `src`/`dst` with the next at most `max` edges (empty when done).
    pub fn next_batch(&mut self, src: &mut Vec<u32>, dst: &mut Vec<u32>, max: usize) {
        src.clear();
        dst.clear();
        let count = (max as u64).min(self.remaining) as usize;
        for _ in 0..count {
            src.push(self.rng.below(self.vertices));
            dst.push(self.rng.below(self.vertices));
        }
        self.remaining -= count as u64;
    }
}
