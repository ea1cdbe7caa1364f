//! Seeded, stateless pseudo-randomness: every random choice an algorithm makes is a hash of
//! (seed, vertex or walk/step index), so results depend on the seed alone and never on how rayon
//! splits the work or which thread gets there first.

/// SplitMix64's finaliser: a bijection on u64 with good avalanche.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A 64-bit hash of `x` under `seed`.
#[inline]
pub fn seeded_hash(seed: u64, x: u64) -> u64 {
    // Mixing the seed first keeps seeds s and s+1 from giving shifted copies of one sequence.
    mix64(mix64(seed ^ 0x9E37_79B9_7F4A_7C15).wrapping_add(x))
}

/// A hash of the pair (a, b) under `seed` (for per-walk, per-step choices).
#[inline]
pub fn seeded_hash2(seed: u64, a: u64, b: u64) -> u64 {
    seeded_hash(seeded_hash(seed, a), b)
}

/// A uniform draw from (0, 1] determined by (seed, x): never 0, so its logarithm is finite.
#[inline]
pub fn unit_interval(seed: u64, x: u64) -> f64 {
    ((seeded_hash(seed, x) >> 11) + 1) as f64 / (1u64 << 53) as f64
}

/// Maps a hash to 0..bound without the bias of `%` (Lemire's multiply-shift).
#[inline]
pub fn below(hash: u64, bound: u64) -> u64 {
    ((hash as u128 * bound as u128) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_in_range_and_spread() {
        let mut lo = 0;
        for x in 0..10_000 {
            let u = unit_interval(7, x);
            assert!(u > 0.0 && u <= 1.0);
            lo += (u < 0.5) as u32;
            assert!(below(seeded_hash(7, x), 10) < 10);
        }
        // A fair coin over 10k draws lands within 5 sigma of 5000.
        assert!((4750..5250).contains(&lo), "{lo} draws below 0.5");
        assert_ne!(seeded_hash(1, 5), seeded_hash(2, 5));
        assert_ne!(seeded_hash2(1, 2, 3), seeded_hash2(1, 3, 2));
    }
}
