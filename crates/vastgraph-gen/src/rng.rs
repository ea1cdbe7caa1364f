//! Independent random streams keyed by (seed, chunk, purpose).

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What a stream is used for: separate streams keep, e.g., the edges of a weighted graph
/// identical to those of the unweighted graph with the same seed.
#[derive(Clone, Copy)]
pub(crate) enum Stream {
    Edges = 1,
    Weights = 2,
    Permutation = 3,
}

/// SplitMix64's finaliser: a bijective mixer with good avalanche.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The generator for `(seed, index, stream)`. Hashing the key in steps (rather than
/// xoring its parts) keeps streams of different seeds from coinciding for shifted chunks.
pub(crate) fn stream_rng(seed: u64, index: u64, stream: Stream) -> Xoshiro256PlusPlus {
    let key = mix(mix(mix(seed) ^ index) ^ stream as u64);
    Xoshiro256PlusPlus::seed_from_u64(key)
}

/// Appends `n` weights for chunk `index`: integers uniform in 1..=255 (as in GAPBS's
/// weighted generators), from the chunk's own weight stream.
pub(crate) fn push_weights(seed: u64, index: u64, n: usize, out: &mut Vec<f64>) {
    let mut rng = stream_rng(seed, index, Stream::Weights);
    out.extend((0..n).map(|_| {
        // Multiply-shift maps a u32 to 0..255 with a negligible (2^-24) bias.
        let r = rng.next_u32() as u64;
        ((r * 255) >> 32) as f64 + 1.0
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_by_seed_index_and_purpose_and_repeat_for_the_same_key() {
        let first = |seed, index, stream| stream_rng(seed, index, stream).next_u64();
        let base = first(1, 0, Stream::Edges);
        assert_eq!(base, first(1, 0, Stream::Edges));
        assert_ne!(base, first(2, 0, Stream::Edges));
        assert_ne!(base, first(1, 1, Stream::Edges));
        assert_ne!(base, first(1, 0, Stream::Weights));
    }

    #[test]
    fn weights_are_integers_covering_1_to_255() {
        let mut w = Vec::new();
        push_weights(7, 3, 100_000, &mut w);
        assert!(w
            .iter()
            .all(|&x| x.fract() == 0.0 && (1.0..=255.0).contains(&x)));
        let distinct: std::collections::BTreeSet<u64> = w.iter().map(|&x| x as u64).collect();
        assert_eq!(distinct.len(), 255);
    }
}
