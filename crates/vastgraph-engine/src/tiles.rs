//! Passes over a store's tiles ([`vastgraph_store::tiles`]): Pull-Reduce-Apply, a *stripe* of
//! columns (blocks of targets) per task.
//!
//! A task owns its stripe's targets for the whole pass, so it folds every in-arc into them in
//! place, with no atomics. It goes through the stripe row by row: the tiles of one row (one
//! block of sources) across the stripe's columns, then the next row, so each block of source
//! values is read once per stripe and reused by all its tiles. A stripe is one column (its
//! 8·2^k bytes of sums stay in L2) while the source values fit half the last-level cache
//! ([`values_fit_cache`]); past that the values come from DRAM and a tile of a sparse graph
//! reads about one line of them an arc, so a stripe spans [`STRIPE_BYTES`] of sums, which stay
//! in the last-level cache, and the values are streamed once per stripe instead of once per
//! column.
//!
//! Each target's in-arcs are folded in ascending source order (rows in order, a tile's arcs
//! sorted by source), the order of its in-list: a sum here equals the sequential sum over that
//! list bit for bit, whatever the thread count or the stripe width, so a pass may choose its
//! stripes freely. A column's sums are handed to the pass's `apply` as soon as they are
//! complete, in the task that summed them, so that an iteration needs no pass over the
//! vertices of its own.

use rayon::prelude::*;
pub use vastgraph_store::tiles::{last_level_cache_bytes, set_last_level_cache_bytes};
use vastgraph_store::tiles::{unpack, values_fit_cache, Tile, TilesRef};

/// A value summed over in-arcs: `f64`, or `i64` in fixed point, whose sums are exact and so
/// equal in any order (delta-PageRank's). Both take 8 bytes, which [`stripe_columns`] assumes.
pub trait ArcValue: Copy + Send + Sync + 'static {
    const ZERO: Self;
    fn add(&mut self, x: Self);
    /// Whether adding the value to any sum leaves the sum as it was: a sum starts at +0 and
    /// never becomes −0, so ±0.0 and 0 qualify.
    fn is_zero(self) -> bool;
}

impl ArcValue for f64 {
    const ZERO: f64 = 0.0;
    #[inline(always)]
    fn is_zero(self) -> bool {
        self == 0.0
    }
    #[inline(always)]
    fn add(&mut self, x: f64) {
        *self += x;
    }
}

impl ArcValue for i64 {
    const ZERO: i64 = 0;
    #[inline(always)]
    fn is_zero(self) -> bool {
        self == 0
    }
    /// Wrapping, as the atomic adds of the lists' path: fixed-point sums stay far below the
    /// bound, and a wrapped partial sum still gives the exact total.
    #[inline(always)]
    fn add(&mut self, x: i64) {
        *self = self.wrapping_add(x);
    }
}

/// The sums a stripe of several columns spans: a share of the last-level cache per thread.
pub const STRIPE_BYTES: usize = 4 << 20;

/// Columns a stripe takes: 1 while the `values` (8 bytes a vertex) fit the last-level cache
/// ([`values_fit_cache`]), else as many as [`STRIPE_BYTES`] of sums hold.
pub fn stripe_columns(vertices: usize, side_log2: u32) -> usize {
    if values_fit_cache(vertices as u64) {
        1
    } else {
        (STRIPE_BYTES >> (side_log2 + 3)).max(1)
    }
}

/// For each row (block of 2^k sources), whether all its values are zero: its tiles add
/// nothing to any sum, and a pass skips them (Mosaic's selective scheduling; delta-PageRank
/// zeroes its inactive vertices' shares). One read of the values, against a pass's m arcs.
pub(crate) fn zero_rows<T: ArcValue>(values: &[T], k: u32) -> Vec<bool> {
    values
        .par_chunks(1 << k)
        .map(|block| block.iter().all(|v| v.is_zero()))
        .collect()
}

/// `out[v] = Σ_{u→v} values[u]` for every vertex v, over the tiles, then
/// `apply(first, sums)` on each column's sums (targets `first..first + sums.len()`) as soon as
/// they are complete, in the task that summed them, while they are in its cache. Tiles whose
/// sources' values are all zero are skipped ([`zero_rows`]). Returns the arcs folded and
/// `apply`'s results in column order. `values` and `out` hold one entry a vertex.
pub fn sum_in_arcs<T: ArcValue, R: Send>(
    tiles: &TilesRef<'_>,
    values: &[T],
    out: &mut [T],
    apply: impl Fn(usize, &mut [T]) -> R + Sync,
) -> (u64, Vec<R>) {
    assert_eq!(values.len(), out.len(), "one value and one sum a vertex");
    let k = tiles.side_log2();
    let zero = zero_rows(values, k);
    // A sum does not depend on the stripes: at least four of them a thread, for balance.
    let tasks = 4 * rayon::current_num_threads();
    let width = stripe_columns(values.len(), k).min(tiles.num_columns().div_ceil(tasks).max(1));
    let stripes: Vec<(u64, Vec<R>)> = out
        .par_chunks_mut(tiles.side() * width)
        .enumerate()
        .with_max_len(1)
        .map(|(stripe, sums)| {
            sums.fill(T::ZERO);
            let first = stripe * width;
            let columns: Vec<Vec<Tile<'_>>> = (first..(first + width).min(tiles.num_columns()))
                .map(|c| tiles.column(c).collect())
                .collect();
            let mut folded = 0u64;
            let result: Result<(), std::convert::Infallible> =
                fold_stripe(&columns, sums, k, |_, _, tile, sums| {
                    if !zero[tile.row as usize] {
                        sum_tile(tile, k, values, sums);
                        folded += tile.edges.len() as u64;
                    }
                    Ok(())
                });
            let Ok(()) = result;
            let applied = sums
                .chunks_mut(tiles.side())
                .enumerate()
                .map(|(i, sums)| apply((first + i) << k, sums))
                .collect();
            (folded, applied)
        })
        .collect();
    let folded = stripes.iter().map(|(arcs, _)| arcs).sum();
    (folded, stripes.into_iter().flat_map(|(_, r)| r).collect())
}

/// For every column, in parallel, the values of its targets' in-neighbours gathered in one
/// buffer, for a reduction that is not a sum (the most frequent label):
/// `visit(first, starts, gathered, out)`, where target `first + t` has its in-neighbours'
/// values at `gathered[starts[t]..starts[t + 1]]`, in ascending source order (the visitor may
/// reorder them), and its result slot at `out[t]`. `values` and `out` hold one entry a vertex.
/// A task holds one column's in-arcs: 8 bytes a target and `size_of::<T>()` an arc.
pub fn gather_in_arcs<T, O>(
    tiles: &TilesRef<'_>,
    values: &[T],
    out: &mut [O],
    visit: impl Fn(usize, &[usize], &mut [T], &mut [O]) + Sync,
) where
    T: Copy + Default + Send + Sync,
    O: Send,
{
    assert_eq!(values.len(), out.len(), "one value and one result a vertex");
    let k = tiles.side_log2();
    out.par_chunks_mut(tiles.side())
        .enumerate()
        .with_max_len(1)
        .for_each_init(Gathered::default, |buffers, (c, out)| {
            let column: Vec<Tile<'_>> = tiles.column(c).collect();
            gather_column(&column, k, values, c << k, out, buffers, &visit);
        });
}

/// A task's buffers for [`gather_column`], kept from one column to the next.
#[derive(Default)]
pub(crate) struct Gathered<T> {
    starts: Vec<usize>,
    next: Vec<usize>,
    values: Vec<T>,
}

/// Gathers the in-neighbours' values of one column's targets (`first..first + out.len()`)
/// from its tiles, in row order, and hands them to `visit` ([`gather_in_arcs`]). The tiles'
/// arcs must have been checked against their blocks: a target beyond `out` panics.
pub(crate) fn gather_column<T: Copy + Default, O>(
    column: &[Tile<'_>],
    k: u32,
    values: &[T],
    first: usize,
    out: &mut [O],
    buffers: &mut Gathered<T>,
    visit: &(impl Fn(usize, &[usize], &mut [T], &mut [O]) + Sync),
) {
    let Gathered {
        starts,
        next,
        values: gathered,
    } = buffers;
    let targets = out.len();
    // Counts, then starts, then each value placed at its target's next slot.
    starts.clear();
    starts.resize(targets + 1, 0);
    for tile in column {
        for &edge in tile.edges {
            starts[unpack(edge).1 + 1] += 1;
        }
    }
    for t in 0..targets {
        starts[t + 1] += starts[t];
    }
    gathered.clear();
    gathered.resize(starts[targets], T::default());
    next.clear();
    next.extend_from_slice(&starts[..targets]);
    for tile in column {
        let sources = &values[(tile.row as usize) << k..];
        for &edge in tile.edges {
            let (s, t) = unpack(edge);
            gathered[next[t]] = sources[s];
            next[t] += 1;
        }
    }
    visit(first, starts, gathered, out);
}

/// Walks the tiles of a stripe of consecutive columns (`columns[i]`: the tiles of its i-th
/// column, by row) row by row, calling `fold(i, j, tile, sums of column i)` on each, `tile`
/// being `columns[i][j]`: `sums` holds the stripe's targets' sums, 2^k a column.
pub(crate) fn fold_stripe<T, E>(
    columns: &[Vec<Tile<'_>>],
    sums: &mut [T],
    k: u32,
    mut fold: impl FnMut(usize, usize, &Tile<'_>, &mut [T]) -> Result<(), E>,
) -> Result<(), E> {
    let side = 1usize << k;
    let mut next = vec![0usize; columns.len()];
    loop {
        // The lowest row any column still has.
        let Some(row) = (0..columns.len())
            .filter_map(|i| columns[i].get(next[i]).map(|t| t.row))
            .min()
        else {
            return Ok(());
        };
        for (i, tiles) in columns.iter().enumerate() {
            if let Some(tile) = tiles.get(next[i]).filter(|t| t.row == row) {
                let start = i * side;
                let end = (start + side).min(sums.len());
                fold(i, next[i], tile, &mut sums[start..end])?;
                next[i] += 1;
            }
        }
    }
}

/// [`sum_tile`] for arcs nobody has checked yet (read from disk): each arc must ascend, after
/// `previous` (the last arc of the piece of the tile before, if any), and lie inside its
/// blocks; the first that does not is returned, with the sums left partly folded. A tile of a
/// `zero_row` ([`zero_rows`]) is checked, not folded. The arcs are
/// checked first, in loops without branches, then folded as [`sum_tile`] does: a check inside
/// the fold took Kronecker 24's passes within 1 GiB to 1.36 s of computing each, against 0.77 s
/// in memory.
#[inline]
pub(crate) fn sum_tile_checked<T: ArcValue>(
    tile: &Tile<'_>,
    k: u32,
    values: &[T],
    sums: &mut [T],
    previous: Option<u32>,
    zero_row: bool,
) -> Result<(), u32> {
    if arcs_in_order(tile, previous) {
        if !zero_row {
            sum_tile(tile, k, values, sums);
        }
        return Ok(());
    }
    let first = (tile.row as usize) << k;
    let sources = &values[first..(first + (1 << k)).min(values.len())];
    let targets = tile.targets.min(sums.len());
    let sums = &mut sums[..targets];
    let mut after = previous.map_or(-1, i64::from);
    for &edge in tile.edges {
        let (s, t) = unpack(edge);
        if i64::from(edge) <= after || s >= tile.sources {
            return Err(edge);
        }
        match (sources.get(s), sums.get_mut(t)) {
            (Some(value), Some(sum)) => sum.add(*value),
            _ => return Err(edge),
        }
        after = i64::from(edge);
    }
    Ok(())
}

/// Whether every arc of `tile` ascends, after `previous`, with both ends inside its blocks.
pub(crate) fn arcs_in_order(tile: &Tile<'_>, previous: Option<u32>) -> bool {
    let (Some(&head), Some(&last)) = (tile.edges.first(), tile.edges.last()) else {
        return true;
    };
    // One flag for all the pairs, with no branch: the loop vectorises.
    let targets = tile.targets as u32;
    let edges = tile.edges;
    let bad = edges.iter().zip(&edges[1..]).fold(0u32, |bad, (&a, &b)| {
        bad | u32::from(a >= b) | u32::from(b & 0xffff >= targets)
    });
    // Ascending arcs have ascending sources: the last one's is the largest.
    bad == 0
        && previous.is_none_or(|p| p < head)
        && unpack(head).1 < tile.targets
        && unpack(last).0 < tile.sources
}

/// Folds one tile's arcs into its column's sums: `sums[t] += values[row·2^k + s]`.
#[inline]
fn sum_tile<T: ArcValue>(tile: &Tile<'_>, k: u32, values: &[T], sums: &mut [T]) {
    let first = (tile.row as usize) << k;
    let sources = &values[first..(first + (1 << k)).min(values.len())];
    // The store validated every arc of an opened tile against its blocks (`TilesRef` comes
    // only from there), and a reader from disk checks each tile before folding it: s < the
    // row's block length, t < the column's.
    assert!(sources.len() >= tile.sources && sums.len() >= tile.targets);
    for &edge in tile.edges {
        let (s, t) = unpack(edge);
        // SAFETY: s < tile.sources ≤ sources.len() and t < tile.targets ≤ sums.len(), as
        // checked by the store or the reader, and asserted above.
        unsafe { sums.get_unchecked_mut(t).add(*sources.get_unchecked(s)) };
    }
}
