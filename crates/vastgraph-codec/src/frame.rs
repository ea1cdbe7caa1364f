//! The frame-of-reference codec ([`crate::ListCodec::FrameOfReference`]). A block of `len`
//! neighbours of `source` is
//!
//! ```text
//! [ header ] [ first − source, zig-zagged, c bytes LE ] [ len − 1 offsets, w bytes LE each ]
//! ```
//!
//! where the header byte holds `w − 1` in bits 0–1 and `c` (1 to 5) in bits 2–4, and each
//! offset is an id minus the block's first id. `w` (1 to 4) is the fewest bytes that hold the
//! block's span (last id − first id), `c` the fewest that hold the first code; a block of one
//! neighbour has no offsets (its width bits are 0).
//!
//! Why a third codec: on the small web and social graphs, whose raw lists stay in the
//! processor's cache, a traversal of Stream VByte lists took 1.4–1.5 times the raw one, and
//! most of that was the decoding itself (gaps need a prefix sum, groups need a table lookup
//! and a shuffle). Here every id is one load, one mask and one add from the block's first id,
//! with no dependence between ids, and the header gives both lengths at once, so the loops run
//! close to the raw lists' own. The codes are bigger than Stream VByte's (13.4 bits per arc on
//! cnr-2000, against 5.0), as offsets take whole bytes and a block's widest offset sets the
//! width.
//!
//! The loops here ([`sum_lists`], [`walk_list`]) read without bounds checks, as the fast
//! decoder of Stream VByte does, from lists that end at least [`FRAME_READ`] bytes before the
//! end of the codes: an offset is read as four bytes and masked to its width, a first code as
//! eight. They check each block's header and that it ends within its list before reading its
//! offsets; ids are checked against n before they are handed over, or clamped below n where
//! they are only looked up (the sums and the bitmap search), except in blocks whose width
//! cannot reach n (`Block::ids_below`).

use std::ops::Range;
use std::sync::atomic::AtomicU64;

use crate::codec::{BlockCodec, BlockEnd, BlockIds, BlockSpan};
use crate::decode::{decode_ids_with, index_bytes, ByteCodeLists, ListBytes, ListSpan};
use crate::varint::{unzigzag, zigzag};
use crate::BLOCK_EDGES;

/// The widest offset, in bytes.
const MAX_WIDTH: usize = 4;

/// The longest first code, in bytes: a zig-zagged difference of two u32 ids has 33 bits.
const MAX_FIRST_BYTES: usize = 5;

/// The bits of an offset of each width, read as a four-byte word.
const WIDTH_MASKS: [u32; MAX_WIDTH + 1] = [0, 0xff, 0xffff, 0x00ff_ffff, 0xffff_ffff];

/// How far past a list's end the unchecked loops may read: eight bytes from a first code's
/// first byte (read as one word), four from an offset's.
const FRAME_READ: usize = 8;

/// The frame-of-reference codec. Its whole-list loops ([`walk_list`], [`sum_lists`]) take the
/// lists that end far enough from the end of the codes; the rest go block by block.
#[derive(Clone, Copy)]
pub(crate) struct FrameOfReference;

impl BlockCodec for FrameOfReference {
    fn block_len(self, source: u32, block: &[u32]) -> usize {
        block_len(source, block)
    }

    fn write_block(self, source: u32, block: &[u32], out: &mut Vec<u8>) {
        write_block(source, block, out)
    }

    fn validate_block(
        self,
        data: &[u8],
        at: usize,
        source: u32,
        n: u64,
        len: usize,
    ) -> Result<(usize, u64, u64), String> {
        validate_block(data, at, source, n, len)
    }

    /// Each id stands on its own, so the walk starts right at position `block.skip`.
    #[inline(always)]
    fn block_ids<F: FnMut(u32) -> bool>(
        self,
        list: ListBytes<'_>,
        pos: &mut usize,
        list_span: ListSpan,
        span: BlockSpan,
        _scratch: &mut BlockIds,
        f: &mut F,
    ) -> BlockEnd {
        let ListSpan { source, n, .. } = list_span;
        let codes = list.codes();
        let Some(block) = Block::read(codes, *pos, source, n, span.len) else {
            return BlockEnd::Corrupt;
        };
        if span.skip == 0 && !f(block.first) {
            return BlockEnd::Stopped;
        }
        for k in span.skip.max(1) - 1..span.count - 1 {
            let id = block.first as u64 + block.offset_at(codes, k) as u64;
            if id >= n {
                return BlockEnd::Corrupt;
            }
            if !f(id as u32) {
                return BlockEnd::Stopped;
            }
        }
        *pos = block.end;
        BlockEnd::Done
    }

    #[inline(always)]
    fn block_into(
        self,
        list: ListBytes<'_>,
        at: usize,
        list_span: ListSpan,
        span: BlockSpan,
        ids: &mut BlockIds,
    ) -> Option<usize> {
        let ListSpan { source, n, .. } = list_span;
        let block = Block::read(list.codes(), at, source, n, span.len)?;
        block
            .decode_into(list.data, span.count, n, ids)
            .then_some(block.end)
    }

    #[inline(always)]
    fn decode_ids<F: FnMut(u32) -> bool>(
        self,
        list: ListBytes<'_>,
        span: ListSpan,
        mut f: F,
    ) -> bool {
        let ListSpan {
            source,
            degree,
            n,
            lo,
            hi,
        } = span;
        // A walk from the first or second neighbour to the end takes the unchecked loop where
        // the list lies far enough from the end of the codes.
        if lo <= 1 && hi >= degree && degree > lo {
            let walked = walk_list(
                list.data,
                list.end,
                source,
                degree,
                n,
                lo,
                &mut EachId(&mut f),
            );
            if let Some((finished, _)) = walked {
                return finished;
            }
        }
        decode_ids_with(self, list, span, f)
    }

    #[inline(always)]
    fn walk_word<F: FnMut(u32, u32) -> bool>(
        self,
        lists: &ByteCodeLists<'_>,
        base: u32,
        word: u64,
        from: usize,
        arc: &mut F,
    ) -> (u64, u64) {
        if from > 1 {
            return (word, 0);
        }
        let n = lists.num_vertices() as u64;
        let mut offered = 0;
        let left = lists.for_each_list_of_word(base, word, from, |v, list, degree| {
            let sink = &mut EachId(&mut |u| arc(v, u));
            let (finished, handed) = walk_list(list.data, list.end, v, degree, n, from, sink)?;
            offered += handed;
            Some(finished)
        });
        (left, offered)
    }

    #[inline(always)]
    fn find_word_in_bitmap<F: FnMut(u32, u32)>(
        self,
        lists: &ByteCodeLists<'_>,
        base: u32,
        word: u64,
        from: usize,
        bitmap: &[AtomicU64],
        found: &mut F,
    ) -> (u64, u64) {
        if from > 1 {
            return (word, 0);
        }
        let n = lists.num_vertices() as u64;
        let mut looked_at = 0;
        let mut sink = FirstInBitmap {
            bitmap,
            found: None,
        };
        let left = lists.for_each_list_of_word(base, word, from, |v, list, degree| {
            let (finished, handed) = walk_list(list.data, list.end, v, degree, n, from, &mut sink)?;
            looked_at += handed;
            if let Some(u) = sink.found.take() {
                found(v, u);
            }
            Some(finished)
        });
        (left, looked_at)
    }

    #[inline(always)]
    fn sum_lists<E: FnMut(u32, f64)>(
        self,
        lists: &ByteCodeLists<'_>,
        vertices: Range<u32>,
        values: &[f64],
        emit: &mut E,
    ) -> u32 {
        sum_lists(lists, vertices, values, emit)
    }
}

/// The fewest bytes that hold `x` (at least one).
#[inline]
fn bytes_of(x: u64) -> usize {
    (64 - (x | 1).leading_zeros() as usize).div_ceil(8)
}

/// A checked block's (first code, its bytes, offset width); a block of one neighbour has a
/// span of 0, so width 1.
fn layout(source: u32, block: &[u32]) -> (u64, usize, usize) {
    let code = zigzag(block[0] as i64 - source as i64);
    let span = block[block.len() - 1] - block[0];
    (code, bytes_of(code), bytes_of(span as u64))
}

/// Bytes of a checked block (1 to 64 strictly increasing neighbours of `source`).
fn block_len(source: u32, block: &[u32]) -> usize {
    let (_, first_bytes, width) = layout(source, block);
    1 + first_bytes + (block.len() - 1) * width
}

/// Appends a checked block.
fn write_block(source: u32, block: &[u32], out: &mut Vec<u8>) {
    let (code, first_bytes, width) = layout(source, block);
    out.push((first_bytes << 2 | (width - 1)) as u8);
    out.extend_from_slice(&code.to_le_bytes()[..first_bytes]);
    for &id in &block[1..] {
        out.extend_from_slice(&(id - block[0]).to_le_bytes()[..width]);
    }
}

/// A block's header byte: (offset width, first code's bytes); None for a header no block has.
#[inline(always)]
fn header(byte: u8) -> Option<(usize, usize)> {
    let first_bytes = (byte >> 2) as usize;
    (1..=MAX_FIRST_BYTES)
        .contains(&first_bytes)
        .then_some(((byte & 3) as usize + 1, first_bytes))
}

/// A block as the decoders read it: its first id (below n), where its offsets start, their
/// width, its length, and where it ends.
struct Block {
    first: u32,
    offsets: usize,
    width: usize,
    len: usize,
    end: usize,
}

impl Block {
    /// The block of `len` ids of `source`'s list at `codes[at..]`; None when its header is
    /// not one a block has, its first id is not below `n`, or it runs past `codes`.
    #[inline(always)]
    fn read(codes: &[u8], at: usize, source: u32, n: u64, len: usize) -> Option<Block> {
        let (width, first_bytes) = header(*codes.get(at)?)?;
        let code = codes.get(at + 1..at + 1 + first_bytes)?;
        let code = code.iter().rev().fold(0, |x, &b| x << 8 | b as u64);
        Self::new(at, (width, first_bytes), code, source, n, len, codes.len())
    }

    /// The block at `at` with this header and first code, if its first id is below `n` and
    /// it ends by `bound`.
    #[inline(always)]
    fn new(
        at: usize,
        (width, first_bytes): (usize, usize),
        code: u64,
        source: u32,
        n: u64,
        len: usize,
        bound: usize,
    ) -> Option<Block> {
        let first = source as i64 + unzigzag(code);
        let offsets = at + 1 + first_bytes;
        let end = offsets + (len - 1) * width;
        ((0..n as i64).contains(&first) && end <= bound).then_some(Block {
            first: first as u32,
            offsets,
            width,
            len,
            end,
        })
    }

    /// [`Self::read`] without bounds checks, for a block that must end by `end`.
    ///
    /// # Safety
    /// `end + FRAME_READ <= data.len()`.
    #[inline(always)]
    unsafe fn read_unchecked(
        data: &[u8],
        pos: usize,
        end: usize,
        source: u32,
        n: u64,
        len: usize,
    ) -> Option<Block> {
        if pos >= end {
            return None;
        }
        let header = header(*data.get_unchecked(pos))?;
        let word = u64::from_le(data.as_ptr().add(pos + 1).cast::<u64>().read_unaligned());
        let code = word & (u64::MAX >> (64 - 8 * header.1));
        Self::new(pos, header, code, source, n, len, end)
    }

    /// Offset `k` (0 for the block's second id) of a block [`Self::read`] accepted from
    /// `codes`.
    #[inline(always)]
    fn offset_at(&self, codes: &[u8], k: usize) -> u32 {
        let at = self.offsets + k * self.width;
        match codes.get(at..at + 4) {
            Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]) & WIDTH_MASKS[self.width],
            // The last offsets of the codes, a byte at a time.
            None => codes[at..at + self.width]
                .iter()
                .rev()
                .fold(0, |x, &b| x << 8 | b as u32),
        }
    }

    /// Writes the block's first `count` ids into `ids` and returns whether they are all below
    /// `n` (if not, `ids` holds garbage that must not be handed over). `data` holds the
    /// codes [`Self::read`] accepted the block from and may run on past them: where it has
    /// the three bytes after the block that a four-byte read of its last offset takes, no
    /// offset is bounds-checked, and where the block's width cannot reach n
    /// ([`Self::ids_below`]), no id is checked.
    #[inline(always)]
    fn decode_into(&self, data: &[u8], count: usize, n: u64, ids: &mut BlockIds) -> bool {
        let first = self.first as u64;
        ids.start(self.first);
        let unchecked_reads = self.end + 3 <= data.len();
        if unchecked_reads && self.ids_below(n) {
            // SAFETY: every offset's four bytes lie within `data`.
            ids.fill_from(count, |k| self.first + unsafe { self.offset(data, k) });
            return true;
        }
        let mut largest = 0;
        ids.fill_from(count, |k| {
            let offset = if unchecked_reads {
                // SAFETY: as above.
                unsafe { self.offset(data, k) }
            } else {
                self.offset_at(data, k)
            };
            largest = largest.max(offset);
            (first + offset as u64) as u32
        });
        first + (largest as u64) < n
    }

    /// Offset `k`, read as four bytes and masked to the width.
    ///
    /// # Safety
    /// Four bytes are readable at the offset.
    #[inline(always)]
    unsafe fn offset(&self, codes: &[u8], k: usize) -> u32 {
        let at = codes.as_ptr().add(self.offsets + k * self.width);
        u32::from_le(at.cast::<u32>().read_unaligned()) & WIDTH_MASKS[self.width]
    }

    /// Whether every id the block's width can code is below `bound`: its first id plus the
    /// largest offset of its width. Then its ids need neither a check nor a clamp, as a raw
    /// list's do not (clamping each id made a sum take half as long again: 1.53 against 1.04
    /// ns per arc on cnr-2000, one core). That holds for most blocks of one or two bytes.
    #[inline(always)]
    fn ids_below(&self, bound: u64) -> bool {
        self.first as u64 + (WIDTH_MASKS[self.width] as u64) < bound
    }
}

/// Checks the block of `len` neighbours at `data[at..]` exactly: a header a block has, codes
/// within `data`, ids below `n` and strictly increasing. Returns where the block ends, its
/// first id and its last.
fn validate_block(
    data: &[u8],
    at: usize,
    source: u32,
    n: u64,
    len: usize,
) -> Result<(usize, u64, u64), String> {
    let byte = *data
        .get(at)
        .ok_or_else(|| format!("truncated: no block header at byte {at}"))?;
    let (width, first_bytes) =
        header(byte).ok_or_else(|| format!("header {byte:#04x} at byte {at} codes no block"))?;
    let Some(block) = Block::read(data, at, source, n, len) else {
        return Err(if at + 1 + first_bytes > data.len() {
            format!("truncated: the first neighbour's {first_bytes} bytes at byte {} run past the list's {} bytes", at + 1, data.len())
        } else if len > 1 && at + 1 + first_bytes + (len - 1) * width > data.len() {
            format!(
                "truncated: {} offsets of {width} bytes run past the list's {} bytes",
                len - 1,
                data.len()
            )
        } else {
            "the first neighbour is not below n".to_string()
        });
    };
    let first = block.first as u64;
    let mut previous = 0u32;
    for k in 0..len - 1 {
        let offset = block.offset_at(data, k);
        if offset <= previous {
            return Err(format!(
                "offset {offset} follows {previous} (lists must be strictly increasing)"
            ));
        }
        previous = offset;
        if first + offset as u64 >= n {
            return Err(format!(
                "neighbour {} is not in 0..{n}",
                first + offset as u64
            ));
        }
    }
    Ok((block.end, first, first + previous as u64))
}

/// Σ `values[u]` over each list of `vertices`, handed over as `emit(v, sum)` in order, summed
/// in the lanes of [`crate::lanes`] (list position mod 4, a block holding 64 positions), so
/// that the sums are bit-identical to the raw lists'. Returns the first vertex it did not
/// hand over: `vertices.end`, or earlier where the rest must go through the general decoder
/// (a list within [`FRAME_READ`] bytes of the end of the codes, or corrupt codes). `values`
/// holds n values, then 0.0, then any number more: with 2^⌈log2 n⌉ − 1 more or so (n
/// values and then zeros up to n + 2^⌈log2 n⌉ in all), every offset is read with one mask
/// that keeps it within `values` and leaves the offsets of valid codes whole, and no block
/// needs a check or a clamp per id. Without them, blocks whose width could reach past
/// `values` clamp each id (on ego-Twitter's 81k vertices, most blocks).
fn sum_lists<E: FnMut(u32, f64)>(
    lists: &ByteCodeLists<'_>,
    vertices: Range<u32>,
    values: &[f64],
    emit: &mut E,
) -> u32 {
    let codes = lists.bytes();
    let n = lists.num_vertices() as u64;
    assert!(values.len() as u64 > n, "a value per vertex, then 0.0");
    let Some(unchecked_end) = codes.len().checked_sub(FRAME_READ) else {
        return vertices.start;
    };
    // The largest 2^k − 1 that no offset may exceed for any first id below n: n − 1 plus it
    // indexes `values`. Where it is at least n − 1, it leaves every valid offset whole, and
    // masking each offset with it is all a block needs.
    let spare = values.len() as u64 - n;
    let in_values = ((1u64 << (63 - (spare + 1).leading_zeros())) - 1).min(u32::MAX as u64);
    let padding = (in_values + 1 >= n).then_some(in_values as u32);
    for (v, degree, list_start, list_end) in lists.lists_in(vertices.clone()) {
        if list_end > unchecked_end || list_start > list_end {
            return v;
        }
        let mut pos = list_start + index_bytes(degree);
        let mut lanes = [0.0f64; 4];
        let mut left = degree;
        while left > 0 {
            let len = left.min(BLOCK_EDGES);
            left -= len;
            // SAFETY: the list ends FRAME_READ bytes or more before the end of the codes, and
            // the block is checked to lie within the list.
            let Some(block) = (unsafe { Block::read_unchecked(codes, pos, list_end, v, n, len) })
            else {
                return v;
            };
            // SAFETY: as above.
            if !unsafe { sum_block(codes, &block, values, n, padding, &mut lanes) } {
                return v;
            }
            pos = block.end;
        }
        if pos != list_end {
            return v;
        }
        emit(v, crate::lanes::lanes_total(lanes));
    }
    vertices.end
}

/// Adds the values at a block's ids to `lanes` (its first id to lane 0, offset k to lane
/// (k + 1) mod 4) and returns whether every id was below n. Ids never reach past `values`:
/// with `padding` (the mask [`sum_lists`] found the zeros after the values allow) each
/// offset is masked with it; else where the block's width could reach past them, each id is
/// clamped to n (which reads the 0.0 there) and checked after the block.
///
/// # Safety
/// The block lies within `codes`, and four bytes are readable at each of its offsets;
/// `padding`, if any, keeps n − 1 plus any offset within `values`.
#[inline(always)]
unsafe fn sum_block(
    codes: &[u8],
    block: &Block,
    values: &[f64],
    n: u64,
    padding: Option<u32>,
    lanes: &mut [f64; 4],
) -> bool {
    let first = block.first as usize;
    // values[first + offset], from the block's first id.
    let from_first = values.as_ptr().add(first);
    let offsets = block.len - 1;
    if let Some(mask) = padding {
        *lanes = add_offsets(*lanes, offsets, from_first, |k| {
            (block.offset(codes, k) & mask) as usize
        });
        return true;
    }
    if block.ids_below(values.len() as u64) {
        *lanes = add_offsets(*lanes, offsets, from_first, |k| {
            block.offset(codes, k) as usize
        });
        return true;
    }
    let limit = n as usize - first;
    let mut largest = 0;
    *lanes = add_offsets(*lanes, offsets, from_first, |k| {
        let offset = block.offset(codes, k) as usize;
        largest = largest.max(offset);
        offset.min(limit)
    });
    largest < limit
}

/// `lanes` plus `from_first[0]` (lane 0) and `from_first[offset(k)]` for k < `offsets` (lane
/// (k + 1) mod 4), summed in locals as `lanes::add_to_lanes` does.
///
/// # Safety
/// Every offset given is a valid index of `from_first`.
#[inline(always)]
unsafe fn add_offsets(
    mut sums: [f64; 4],
    offsets: usize,
    from_first: *const f64,
    mut offset: impl FnMut(usize) -> usize,
) -> [f64; 4] {
    let mut value = |k: usize| *from_first.add(offset(k));
    sums[0] += *from_first;
    let mut k = 0;
    while k + 4 <= offsets {
        sums[1] += value(k);
        sums[2] += value(k + 1);
        sums[3] += value(k + 2);
        sums[0] += value(k + 3);
        k += 4;
    }
    // The last one to three offsets, in lanes 1, 2 and 3.
    let rest = offsets - k;
    if rest >= 1 {
        sums[1] += value(k);
    }
    if rest >= 2 {
        sums[2] += value(k + 1);
    }
    if rest >= 3 {
        sums[3] += value(k + 2);
    }
    sums
}

/// What [`walk_list`] hands ids to.
trait IdSink {
    /// Whether ids are clamped below n before they are handed over, instead of checked. A
    /// sink that only looks ids up (the bitmap search) clamps: on codes that opening a store
    /// rejects it may then be handed a wrong id, but one below n. Checking stops the walk at
    /// the first id out of range, as a closure that indexes with ids needs.
    const CLAMPS: bool;
    /// Takes the next id; false to stop the walk.
    fn id(&mut self, id: u32) -> bool;
}

/// Hands each id to a closure.
struct EachId<'f, F>(&'f mut F);

impl<F: FnMut(u32) -> bool> IdSink for EachId<'_, F> {
    const CLAMPS: bool = false;
    #[inline(always)]
    fn id(&mut self, id: u32) -> bool {
        (self.0)(id)
    }
}

/// Looks for the first id whose bit is set in a bitmap (n bits or more).
struct FirstInBitmap<'b> {
    bitmap: &'b [AtomicU64],
    found: Option<u32>,
}

impl IdSink for FirstInBitmap<'_> {
    const CLAMPS: bool = true;
    #[inline(always)]
    fn id(&mut self, id: u32) -> bool {
        // SAFETY: ids handed to a clamping sink are below n, and the bitmap has n bits.
        let word = unsafe { self.bitmap.get_unchecked(id as usize / 64) }
            .load(std::sync::atomic::Ordering::Relaxed);
        if word >> (id % 64) & 1 == 1 {
            self.found = Some(id);
            return false;
        }
        true
    }
}

/// Hands the neighbours of `source`'s list `data[..end]` (`data` runs on into the lists after
/// it) from position `lo` (0 or 1) to its end to `sink`, in order, until it returns false;
/// returns whether the walk went to the end (or stopped at corrupt codes, having handed over
/// only ids below n), and how many ids it handed over (counted here, in a register, rather
/// than by the sink, whose count lived in memory: a store per id). None, before handing
/// anything over, when the list ends within [`FRAME_READ`] bytes of the end of `data`.
#[inline(always)]
fn walk_list<S: IdSink>(
    data: &[u8],
    end: usize,
    source: u32,
    degree: usize,
    n: u64,
    lo: usize,
    sink: &mut S,
) -> Option<(bool, u64)> {
    debug_assert!(lo <= 1 && n >= 1);
    if end.checked_add(FRAME_READ)? > data.len() {
        return None;
    }
    let mut pos = index_bytes(degree);
    let mut left = degree;
    let mut skip_first = lo == 1;
    let mut handed = 0;
    while left > 0 {
        let len = left.min(BLOCK_EDGES);
        left -= len;
        // SAFETY: `end + FRAME_READ <= data.len()`, and the block is checked to lie within
        // the list.
        let Some(block) = (unsafe { Block::read_unchecked(data, pos, end, source, n, len) }) else {
            return Some((true, handed));
        };
        if !std::mem::take(&mut skip_first) {
            handed += 1;
            if !sink.id(block.first) {
                return Some((false, handed));
            }
        }
        // SAFETY: as above.
        let (walked, offsets) = unsafe { walk_offsets(data, &block, n, sink) };
        handed += offsets as u64;
        match walked {
            Walked::Done => pos = block.end,
            Walked::Stopped => return Some((false, handed)),
            Walked::Corrupt => return Some((true, handed)),
        }
    }
    Some((true, handed))
}

/// How walking a block's offsets ended.
enum Walked {
    Done,
    Stopped,
    Corrupt,
}

/// Hands the ids of a block after its first to `sink`, and returns how many. Where the block's
/// width could reach n, each id is clamped to n − 1 or checked against n, as the sink asks.
///
/// # Safety
/// The block lies within `data`, and four bytes are readable at each of its offsets.
#[inline(always)]
unsafe fn walk_offsets<S: IdSink>(
    data: &[u8],
    block: &Block,
    n: u64,
    sink: &mut S,
) -> (Walked, usize) {
    let first = block.first as u64;
    let offsets = block.len - 1;
    if block.ids_below(n) {
        for k in 0..offsets {
            if !sink.id((first + block.offset(data, k) as u64) as u32) {
                return (Walked::Stopped, k + 1);
            }
        }
        return (Walked::Done, offsets);
    }
    let limit = n - 1 - first;
    for k in 0..offsets {
        let mut offset = block.offset(data, k) as u64;
        if S::CLAMPS {
            offset = offset.min(limit);
        } else if offset > limit {
            return (Walked::Corrupt, k);
        }
        if !sink.id((first + offset) as u32) {
            return (Walked::Stopped, k + 1);
        }
    }
    (Walked::Done, offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_and_first_codes_take_the_fewest_bytes() {
        for (x, bytes) in [
            (0u64, 1),
            (0xff, 1),
            (0x100, 2),
            (0xffff, 2),
            (0x1_0000, 3),
            (0xff_ffff, 3),
            (0x100_0000, 4),
            (u32::MAX as u64, 4),
            (1 << 32, 5),
        ] {
            assert_eq!(bytes_of(x), bytes, "{x:#x}");
        }
    }

    #[test]
    fn blocks_round_trip_and_are_checked() {
        let (source, n) = (70_000u32, 70_001u64);
        let block = [10u32, 11, 300, 70_000];
        let mut out = Vec::new();
        write_block(source, &block, &mut out);
        assert_eq!(out.len(), block_len(source, &block));
        // A span of 69 990 takes three bytes; zigzag(10 − 70 000) takes three.
        assert_eq!(header(out[0]), Some((3, 3)));
        assert_eq!(
            validate_block(&out, 0, source, n, 4),
            Ok((out.len(), 10, 70_000))
        );
        let read = Block::read(&out, 0, source, n, 4).unwrap();
        let ids: Vec<u32> = (0..3)
            .map(|k| read.first + read.offset_at(&out, k))
            .collect();
        assert_eq!(ids, [11, 300, 70_000]);
        // The last id at n, a header of no block, offsets out of order, a truncated block.
        assert!(validate_block(&out, 0, source, n - 1, 4).is_err());
        for header in [0x00, 0x18, 0x20] {
            let mut bad = out.clone();
            bad[0] = header;
            assert!(validate_block(&bad, 0, source, u64::MAX, 4)
                .unwrap_err()
                .contains("codes no block"));
        }
        let mut swapped = out.clone();
        swapped[4..7].copy_from_slice(&out[7..10]);
        assert!(validate_block(&swapped, 0, source, n, 4)
            .unwrap_err()
            .contains("strictly increasing"));
        assert!(validate_block(&out[..out.len() - 1], 0, source, n, 4)
            .unwrap_err()
            .contains("truncated"));
    }
}
