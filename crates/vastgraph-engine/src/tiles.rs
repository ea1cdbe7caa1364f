//! Passes over a store's tiles ([`vastgraph_store::tiles`]): Pull-Reduce-Apply, one column of
//! tiles (one block of targets) per task.
//!
//! A task owns its targets' entries of the output for the whole column, so it folds every
//! in-arc into them in place, with no atomics, while they stay in the L2 cache (the side is
//! chosen so that a block of f64 fits there); the sources come in ascending order, tile after
//! tile, so their values are read as a stream. Each target's in-arcs are folded in ascending
//! source order, the order of its in-list: a sum here equals the sequential sum over that list
//! bit for bit, whatever the thread count.

use rayon::prelude::*;
use vastgraph_store::tiles::{unpack, Tile, TilesRef};

/// `out[v] = Σ_{u→v} values[u]` for every vertex v, over the tiles. `values` and `out` hold
/// one entry a vertex.
pub fn sum_in_arcs(tiles: &TilesRef<'_>, values: &[f64], out: &mut [f64]) {
    assert_eq!(values.len(), out.len(), "one value and one sum a vertex");
    let k = tiles.side_log2();
    out.par_chunks_mut(tiles.side())
        .enumerate()
        .with_max_len(1)
        .for_each(|(c, sums)| {
            sums.fill(0.0);
            for tile in tiles.column(c) {
                sum_tile(&tile, k, values, sums);
            }
        });
}

/// Folds one tile's arcs into its column's sums: `sums[t] += values[row·2^k + s]`.
#[inline]
pub(crate) fn sum_tile(tile: &Tile<'_>, k: u32, values: &[f64], sums: &mut [f64]) {
    let first = (tile.row as usize) << k;
    let sources = &values[first..(first + (1 << k)).min(values.len())];
    // The store validated every arc of an opened tile against its blocks (`TilesRef` comes
    // only from there): s < the row's block length, t < the column's.
    assert!(sources.len() >= tile.sources && sums.len() >= tile.targets);
    for &edge in tile.edges {
        let (s, t) = unpack(edge);
        // SAFETY: s < tile.sources ≤ sources.len() and t < tile.targets ≤ sums.len(), as
        // checked by the store when it opened the tiles, and asserted above.
        unsafe { *sums.get_unchecked_mut(t) += *sources.get_unchecked(s) };
    }
}
