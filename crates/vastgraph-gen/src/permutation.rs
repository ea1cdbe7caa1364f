//! A seeded bijection on `0..2^bits`, used to scramble Kronecker vertex ids. Arithmetic
//! rather than a table: O(1) memory and no cache misses at any scale (a 2^30-entry table
//! would take 4 GiB and a random memory access per endpoint).

use rand::RngCore;

use crate::rng::{stream_rng, Stream};

const ROUNDS: usize = 4;

/// Alternates two bijections of `bits`-bit integers: an affine map `x·m + c mod 2^bits`
/// with odd `m` (carries low bits upwards) and an xorshift `x ^ (x >> s)` (carries high
/// bits downwards); four rounds with seeded `m`, `c` mix every bit into every other.
#[derive(Clone, Debug)]
pub(crate) struct Scramble {
    mask: u64,
    shift: u32,
    keys: [(u64, u64); ROUNDS],
}

impl Scramble {
    pub(crate) fn new(bits: u32, seed: u64) -> Scramble {
        let mut rng = stream_rng(seed, 0, Stream::Permutation);
        let keys = std::array::from_fn(|_| (rng.next_u64() | 1, rng.next_u64()));
        Scramble {
            mask: (1u64 << bits) - 1,
            shift: bits.div_ceil(2).max(1),
            keys,
        }
    }

    #[inline(always)]
    pub(crate) fn apply(&self, x: u32) -> u32 {
        let mut x = x as u64;
        for (multiplier, addend) in self.keys {
            x = x.wrapping_mul(multiplier).wrapping_add(addend) & self.mask;
            x ^= x >> self.shift;
        }
        x as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_a_bijection_for_every_small_width() {
        for bits in 1..=16 {
            let s = Scramble::new(bits, 42);
            let mut seen = vec![false; 1 << bits];
            for x in 0..(1u32 << bits) {
                let y = s.apply(x) as usize;
                assert!(!seen[y], "bits {bits}: {x} collides");
                seen[y] = true;
            }
        }
    }

    #[test]
    fn scatters_neighbouring_ids_and_depends_on_the_seed() {
        let (a, b) = (Scramble::new(20, 1), Scramble::new(20, 2));
        let fixed = (0..1u32 << 20).filter(|&x| a.apply(x) == x).count();
        assert!(fixed < 10, "{fixed} fixed points");
        // Consecutive ids land far apart: the high bits depend on the low ones.
        let high_bit_flips = (0..4096u32)
            .filter(|&x| (a.apply(x) ^ a.apply(x + 1)) >> 19 == 1)
            .count();
        assert!((1500..2600).contains(&high_bit_flips), "{high_bit_flips}");
        assert_ne!(
            (0..64).map(|x| a.apply(x)).collect::<Vec<_>>(),
            (0..64).map(|x| b.apply(x)).collect::<Vec<_>>()
        );
    }
}
