//! Sampling the Kronecker recursion several levels at a time. Choosing a quadrant per level
//! costs a draw and three comparisons; instead, the 4^k joint outcomes of k levels are
//! sampled at once from a Walker/Vose alias table: one table lookup and one comparison per
//! k levels, the table (256 entries for k = 4) staying in L1 cache.

/// Levels sampled per draw.
pub(crate) const LEVELS_PER_DRAW: u32 = 4;

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    /// Take `primary` when the 32-bit coin is below this (≤ 2^32), else `alias`.
    threshold: u64,
    primary: (u32, u32),
    alias: (u32, u32),
}

/// The joint distribution of `levels` consecutive levels' (row bits, column bits).
#[derive(Clone, Debug)]
pub(crate) struct LevelSampler {
    levels: u32,
    table: Vec<Entry>,
}

impl LevelSampler {
    /// `abcd` are the probabilities of quadrants (0,0), (0,1), (1,0), (1,1).
    pub(crate) fn new(abcd: [f64; 4], levels: u32) -> LevelSampler {
        let outcomes = 1usize << (2 * levels);
        // Outcome o holds, per level from the most significant, 2 bits: row then column.
        let bits = |o: usize| -> (u32, u32) {
            let (mut row, mut col) = (0, 0);
            for level in (0..levels).rev() {
                let q = (o >> (2 * level)) & 3;
                row = (row << 1) | (q >> 1) as u32;
                col = (col << 1) | (q & 1) as u32;
            }
            (row, col)
        };
        let probability =
            |o: usize| -> f64 { (0..levels).map(|l| abcd[(o >> (2 * l)) & 3]).product() };

        // Vose: scale to mean 1, pair each under-full outcome with an over-full one.
        let mut scaled: Vec<f64> = (0..outcomes)
            .map(|o| probability(o) * outcomes as f64)
            .collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) =
            (0..outcomes).partition(|&o| scaled[o] < 1.0);
        let mut table = vec![Entry::default(); outcomes];
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            table[s] = Entry {
                threshold: (scaled[s] * 4294967296.0).round() as u64,
                primary: bits(s),
                alias: bits(l),
            };
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // What is left has probability 1 up to rounding: always take the primary.
        for o in small.into_iter().chain(large) {
            table[o] = Entry {
                threshold: 1 << 32,
                primary: bits(o),
                alias: bits(o),
            };
        }
        LevelSampler { levels, table }
    }

    pub(crate) fn levels(&self) -> u32 {
        self.levels
    }

    /// (row bits, column bits) of `levels` levels from one 64-bit draw: the high bits pick
    /// the table entry, the low 32 bits are the coin.
    #[inline(always)]
    pub(crate) fn sample(&self, r: u64) -> (u32, u32) {
        let index = (r >> 32) as usize & (self.table.len() - 1);
        let entry = &self.table[index];
        if (r as u32 as u64) < entry.threshold {
            entry.primary
        } else {
            entry.alias
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream_rng, Stream};
    use crate::KRONECKER_ABCD;
    use rand::RngCore;

    /// Per-level quadrant frequencies must match ABCD, and levels must be independent.
    #[test]
    fn levels_follow_abcd_independently() {
        for levels in 1..=LEVELS_PER_DRAW {
            let sampler = LevelSampler::new(KRONECKER_ABCD, levels);
            let mut rng = stream_rng(3, 0, Stream::Edges);
            let samples = 400_000;
            let mut per_level = vec![[0u32; 4]; levels as usize];
            let mut first_last = [[0u32; 4]; 4];
            for _ in 0..samples {
                let (row, col) = sampler.sample(rng.next_u64());
                let quadrant = |l: u32| (((row >> l) & 1) * 2 + ((col >> l) & 1)) as usize;
                for l in 0..levels {
                    per_level[l as usize][quadrant(l)] += 1;
                }
                first_last[quadrant(0)][quadrant(levels - 1)] += 1;
            }
            let freq = |c: u32| c as f64 / samples as f64;
            for counts in &per_level {
                for (q, &p) in KRONECKER_ABCD.iter().enumerate() {
                    assert!(
                        (freq(counts[q]) - p).abs() < 0.004,
                        "levels {levels}: {per_level:?}"
                    );
                }
            }
            if levels > 1 {
                for (a, &pa) in KRONECKER_ABCD.iter().enumerate() {
                    for (b, &pb) in KRONECKER_ABCD.iter().enumerate() {
                        let joint = freq(first_last[a][b]);
                        assert!(
                            (joint - pa * pb).abs() < 0.004,
                            "levels {levels}: {first_last:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn table_probabilities_sum_to_one() {
        let sampler = LevelSampler::new(KRONECKER_ABCD, 4);
        // Each entry contributes threshold/2^32 to its primary and the rest to its alias.
        let mut mass = vec![0.0f64; 256];
        let index_of = |(row, col): (u32, u32)| {
            (0..4).rev().fold(0usize, |o, l| {
                (o << 2) | ((((row >> l) & 1) * 2 + ((col >> l) & 1)) as usize)
            })
        };
        for e in &sampler.table {
            let p = e.threshold as f64 / 4294967296.0 / 256.0;
            mass[index_of(e.primary)] += p;
            mass[index_of(e.alias)] += 1.0 / 256.0 - p;
        }
        for (o, m) in mass.iter().enumerate() {
            let want: f64 = (0..4).map(|l| KRONECKER_ABCD[(o >> (2 * l)) & 3]).product();
            assert!((m - want).abs() < 1e-9, "outcome {o}: {m} vs {want}");
        }
    }
}
