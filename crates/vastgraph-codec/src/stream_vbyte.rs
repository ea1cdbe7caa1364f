//! The Stream VByte codec ([`crate::ListCodec::StreamVByte`]): Stream VByte (Lemire, Kurz and
//! Rupp, 2017) for the gaps of a block. A block of `len` neighbours of `source` is
//!
//! ```text
//! [ first − source, zig-zagged, varint ] [ ⌈(len − 1) / 4⌉ control bytes ] [ data bytes ]
//! ```
//!
//! with the first number as in the Varint codec (the `varint` module), then a control byte per
//! group of four gaps (each gap an id minus the one before minus one), two bits a gap giving its
//! length, low bits first, then the gaps' little-endian bytes back to back. Lengths are 0, 1, 2
//! or 4 bytes (the "0124" variant): a gap of zero (the next id follows the previous one, the
//! commonest gap in web graphs) takes no data byte at all. The unused codes of the last control
//! byte are zero.
//!
//! Decoding a group needs no branch on the lengths: one table lookup gives the group's byte
//! count, and on x86-64 with SSSE3 one byte shuffle moves the four values into the four lanes
//! of a vector, where a prefix sum turns gaps into ids. On x86-64 with AVX2 and BMI2 the `fast`
//! decoders take most lists whole.

#[cfg(target_arch = "x86_64")]
mod fast;

use std::ops::Range;
use std::sync::atomic::AtomicU64;

use crate::codec::{BlockCodec, BlockEnd, BlockIds, BlockSpan};
use crate::decode::{
    decode_blocks_with, decode_ids_with, visit_lists_with, ByteCodeLists, ListBytes, ListSpan,
};
use crate::varint::{self, block_first, first_code, validate_first, varint_len, write_varint};
use crate::ListVisitor;

/// Data bytes of a gap by its 2-bit code.
const CODE_BYTES: [usize; 4] = [0, 1, 2, 4];

/// The 2-bit code of a gap.
#[inline]
fn code_of(gap: u32) -> u8 {
    match gap {
        0 => 0,
        1..=0xff => 1,
        0x100..=0xffff => 2,
        _ => 3,
    }
}

/// Data bytes of a group of four by its control byte.
pub(crate) static GROUP_BYTES: [u8; 256] = group_bytes();

const fn group_bytes() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut control = 0;
    while control < 256 {
        let mut k = 0;
        while k < 4 {
            table[control] += CODE_BYTES[(control >> (2 * k)) & 3] as u8;
            k += 1;
        }
        control += 1;
    }
    table
}

/// Per control byte, the byte shuffle that puts each gap's bytes into its own 32-bit lane,
/// little-endian, and zeroes the rest (an index with the high bit set selects zero).
#[cfg(target_arch = "x86_64")]
pub(crate) static SHUFFLES: [[u8; 16]; 256] = shuffles();

#[cfg(target_arch = "x86_64")]
const fn shuffles() -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut control = 0;
    while control < 256 {
        let mut source = 0u8;
        let mut lane = 0;
        while lane < 4 {
            let bytes = CODE_BYTES[(control >> (2 * lane)) & 3];
            let mut b = 0;
            while b < bytes {
                table[control][4 * lane + b] = source;
                source += 1;
                b += 1;
            }
            lane += 1;
        }
        control += 1;
    }
    table
}

/// Bytes of the control and data of `count` gaps.
#[inline]
pub(crate) fn gaps_len(gaps: impl Iterator<Item = u32>, count: usize) -> usize {
    count.div_ceil(4) + gaps.map(|g| CODE_BYTES[code_of(g) as usize]).sum::<usize>()
}

/// Appends the control bytes and then the data bytes of `count` gaps. Unused codes of the
/// last control byte are zero.
pub(crate) fn write_gaps(gaps: impl Iterator<Item = u32>, count: usize, out: &mut Vec<u8>) {
    let control = out.len();
    out.resize(control + count.div_ceil(4), 0);
    for (i, gap) in gaps.enumerate() {
        let code = code_of(gap);
        out[control + i / 4] |= code << (2 * (i % 4));
        out.extend_from_slice(&gap.to_le_bytes()[..CODE_BYTES[code as usize]]);
    }
}

/// How decoding a block's gaps ended.
pub(crate) enum GapsEnd {
    /// Every group was decoded; the block ends at this byte.
    Done(usize),
    /// The consumer asked to stop.
    Stopped,
    /// The codes run past the list's end.
    Corrupt,
}

/// Turns a group's 16 bytes (its data bytes first) and its control byte into its four ids,
/// running on from the last id of the group before. The scalar decoder and the SSSE3 one
/// implement it; the loops over groups and blocks are written once, generic over it, so that
/// each decoder gets its own copy of them with the group step inlined.
pub(crate) trait GroupDecoder: Copy {
    /// The last id decoded, in whatever form the decoder keeps it.
    type Running: Copy;
    fn start(self, first: u32) -> Self::Running;
    fn group(self, running: &mut Self::Running, bytes: &[u8; 16], control: u8) -> [u32; 4];
}

/// The portable decoder: one gap at a time.
#[derive(Clone, Copy)]
pub(crate) struct Scalar;

impl GroupDecoder for Scalar {
    type Running = u32;

    #[inline(always)]
    fn start(self, first: u32) -> u32 {
        first
    }

    #[inline(always)]
    fn group(self, previous: &mut u32, bytes: &[u8; 16], control: u8) -> [u32; 4] {
        let mut ids = [0u32; 4];
        let mut at = 0;
        for (lane, id) in ids.iter_mut().enumerate() {
            let len = CODE_BYTES[(control as usize >> (2 * lane)) & 3];
            let mut word = [0u8; 4];
            word[..len].copy_from_slice(&bytes[at..at + len]);
            at += len;
            *previous = previous
                .wrapping_add(u32::from_le_bytes(word))
                .wrapping_add(1);
            *id = *previous;
        }
        ids
    }
}

/// Each group in one byte shuffle and a vector prefix sum. A value of this type is the proof
/// that the CPU has SSSE3: [`Ssse3::detect`] is the only way to make one.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Ssse3 {
    _detected: (),
}

#[cfg(target_arch = "x86_64")]
impl Ssse3 {
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        std::is_x86_feature_detected!("ssse3").then_some(Ssse3 { _detected: () })
    }
}

#[cfg(target_arch = "x86_64")]
impl GroupDecoder for Ssse3 {
    type Running = std::arch::x86_64::__m128i;

    #[inline(always)]
    fn start(self, first: u32) -> Self::Running {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { std::arch::x86_64::_mm_set1_epi32(first as i32) }
    }

    #[inline(always)]
    fn group(self, previous: &mut Self::Running, bytes: &[u8; 16], control: u8) -> [u32; 4] {
        use std::arch::x86_64::*;
        // SAFETY: `self` exists only where the CPU has SSSE3; `bytes` is 16 bytes long, and
        // the store writes a 16-byte array.
        unsafe {
            let x = group_lanes(bytes.as_ptr(), control, previous);
            let mut ids = [0u32; 4];
            _mm_storeu_si128(ids.as_mut_ptr() as *mut __m128i, x);
            ids
        }
    }
}

/// A group's four ids in the lanes of a vector: its 16 bytes at `bytes` (its data bytes
/// first) moved into lanes by one byte shuffle, then a prefix sum, running on from the last id
/// of the group before, which `previous` holds in every lane (and is left holding the last id
/// of this group).
///
/// # Safety
/// The CPU has SSSE3, and 16 bytes are readable at `bytes`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn group_lanes(
    bytes: *const u8,
    control: u8,
    previous: &mut std::arch::x86_64::__m128i,
) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::*;
    let loaded = _mm_loadu_si128(bytes as *const __m128i);
    let mask = _mm_loadu_si128(SHUFFLES[control as usize].as_ptr() as *const __m128i);
    // Gaps are stored minus one.
    let mut x = _mm_add_epi32(_mm_shuffle_epi8(loaded, mask), _mm_set1_epi32(1));
    // Prefix sum of the four lanes, then add the previous id to each.
    x = _mm_add_epi32(x, _mm_slli_si128::<4>(x));
    x = _mm_add_epi32(x, _mm_slli_si128::<8>(x));
    x = _mm_add_epi32(x, *previous);
    *previous = _mm_shuffle_epi32::<0xff>(x);
    x
}

/// Decodes the gaps of a block whose first id is `first`: `gaps` of them, with their control
/// bytes at `data[at..]`. Hands each group's four ids (`first + gap + 1`, running on) to
/// `emit(group, ids)`, in order, until it returns false; the last group's lanes past `gaps`
/// are garbage. The list ends at `data[end]`; bytes from there on belong to other lists, and
/// reading them (a group is read 16 bytes at a time) is harmless as no code selects them. Ids
/// are u32 and wrap on corrupt input: the consumer checks them against n.
#[inline(always)]
pub(crate) fn decode_gaps<D: GroupDecoder, E: FnMut(usize, &[u32; 4]) -> bool>(
    decoder: D,
    data: &[u8],
    end: usize,
    at: usize,
    first: u32,
    gaps: usize,
    mut emit: E,
) -> GapsEnd {
    let Some(controls) = at
        .checked_add(gaps.div_ceil(4))
        .and_then(|stop| data[..end].get(at..stop))
    else {
        return GapsEnd::Corrupt;
    };
    let mut pos = at + controls.len();
    let mut running = decoder.start(first);
    let mut padded = [0u8; 16];
    for (index, &control) in controls.iter().enumerate() {
        let bytes = GROUP_BYTES[control as usize] as usize;
        if pos + bytes > end {
            return GapsEnd::Corrupt;
        }
        let ids = decoder.group(
            &mut running,
            group_bytes_at(data, pos, &mut padded),
            control,
        );
        pos += bytes;
        if !emit(index, &ids) {
            return GapsEnd::Stopped;
        }
    }
    GapsEnd::Done(pos)
}

/// [`decode_gaps`] of a whole block of `list` into `ids`: `first`, then the gaps' ids (and a
/// last group's garbage lanes), returning where the block ends; None when its codes run past
/// the list's end or an id is at or above `n` (`first` itself must be below `n`).
///
/// Most blocks lie at least 16 bytes per group before the end of `list.data`, and then no
/// read can leave `list.data` (a group has at most 16 data bytes), so the loop checks only
/// once, after the last group, that the block stayed within its list. The ids decoded from
/// past the list are never handed over, as the caller learns the block is corrupt first.
#[inline(always)]
pub(crate) fn decode_block_gaps<D: GroupDecoder>(
    decoder: D,
    list: ListBytes<'_>,
    at: usize,
    first: u32,
    gaps: usize,
    n: u64,
    ids: &mut BlockIds,
) -> Option<usize> {
    let (data, end) = (list.data, list.end);
    let groups = gaps.div_ceil(4);
    let controls = data[..end].get(at..at.checked_add(groups)?)?;
    let mut pos = at + groups;
    ids.start(first);
    // Both bits set in some 2-bit code: a gap of four bytes.
    let mut four_byte_codes = 0xff;
    if pos + 16 * groups <= data.len() {
        four_byte_codes = 0;
        let mut running = decoder.start(first);
        ids.fill_groups(controls, |control| {
            // Cannot fail: group k starts at most 16·k bytes after the controls, checked above.
            let bytes = data[pos..pos + 16].try_into().expect("16 bytes");
            let lanes = decoder.group(&mut running, bytes, control);
            pos += GROUP_BYTES[control as usize] as usize;
            four_byte_codes |= control & (control >> 1) & 0x55;
            lanes
        });
        if pos > end {
            return None;
        }
    } else {
        let gaps_end = decode_gaps(decoder, data, end, at, first, gaps, |_, lanes| {
            ids.push4(lanes);
            true
        });
        let GapsEnd::Done(block_end) = gaps_end else {
            return None;
        };
        pos = block_end;
    }
    // u32 ids wrap on corrupt gaps, so in general each one is checked (a loop the compiler
    // vectorises). But a block without four-byte codes has gaps below 2^16, which add up to
    // less than 2^22 over 63 gaps: then, unless `first` is within 2^22 of 2^32, no id wraps,
    // the ids increase, and the last is the largest.
    let block = &ids.ids()[..=gaps];
    let largest = if four_byte_codes == 0 && first < u32::MAX - (1 << 22) {
        block[gaps]
    } else {
        block.iter().fold(0, |max, &w| max.max(w))
    };
    ((largest as u64) < n).then_some(pos)
}

/// The 16 bytes from `data[pos..]`, zero-padded past the end of `data`.
#[inline(always)]
fn group_bytes_at<'a>(data: &'a [u8], pos: usize, padded: &'a mut [u8; 16]) -> &'a [u8; 16] {
    match data.get(pos..pos + 16) {
        Some(bytes) => bytes.try_into().expect("16 bytes"),
        None => {
            let rest = data.get(pos..).unwrap_or(&[]);
            *padded = [0; 16];
            padded[..rest.len()].copy_from_slice(rest);
            padded
        }
    }
}

/// Checks the gaps of one block as [`decode_gaps`] reads them, exactly: the control bytes and
/// data lie within `data`, the codes of the last group's unused slots are zero, and every id
/// stays below `n`. Returns the block's end and its last id.
pub(crate) fn validate_gaps(
    data: &[u8],
    at: usize,
    first: u64,
    gaps: usize,
    n: u64,
) -> Result<(usize, u64), String> {
    let control_len = gaps.div_ceil(4);
    let controls = data.get(at..at + control_len).ok_or_else(|| {
        format!(
            "truncated: the {control_len} control bytes at byte {at} run past the list's {} bytes",
            data.len()
        )
    })?;
    let mut pos = at + control_len;
    let mut id = first;
    for i in 0..gaps {
        let len = CODE_BYTES[(controls[i / 4] as usize >> (2 * (i % 4))) & 3];
        let bytes = data.get(pos..pos + len).ok_or_else(|| {
            format!("truncated: gap {i}'s {len} bytes at byte {pos} run past the list")
        })?;
        let mut word = [0u8; 4];
        word[..len].copy_from_slice(bytes);
        pos += len;
        id += u32::from_le_bytes(word) as u64 + 1;
        if id >= n {
            return Err(format!("neighbour {id} is not in 0..{n}"));
        }
    }
    if gaps % 4 != 0 && controls[control_len - 1] >> (2 * (gaps % 4)) != 0 {
        return Err(format!(
            "control byte {:#04x} codes gaps past the block's {gaps}",
            controls[control_len - 1]
        ));
    }
    Ok((pos, id))
}

/// The Stream VByte codec, its groups decoded by `D`. The dispatch makes it with [`Scalar`];
/// the decoders that have an SSSE3 copy switch to `StreamVByte(Ssse3)` where the CPU has
/// SSSE3, and the walks and sums to the `fast` decoders where it has AVX2 and BMI2.
#[derive(Clone, Copy)]
pub(crate) struct StreamVByte<D>(pub(crate) D);

impl<D: GroupDecoder> BlockCodec for StreamVByte<D> {
    fn block_len(self, source: u32, block: &[u32]) -> usize {
        varint_len(first_code(source, block)) + gaps_len(varint::gaps(block), block.len() - 1)
    }

    fn write_block(self, source: u32, block: &[u32], out: &mut Vec<u8>) {
        write_varint(first_code(source, block), out);
        write_gaps(varint::gaps(block), block.len() - 1, out);
    }

    fn validate_block(
        self,
        data: &[u8],
        at: usize,
        source: u32,
        n: u64,
        len: usize,
    ) -> Result<(usize, u64, u64), String> {
        let (first, pos) = validate_first(data, at, source, n)?;
        let (end, last) = validate_gaps(data, pos, first, len - 1, n)?;
        Ok((end, first, last))
    }

    /// The first group of four gaps a group at a time, so that a consumer that stops at its
    /// first few neighbours (a bottom-up BFS step on a skewed graph stops at its first parent,
    /// mostly the first or second neighbour) decodes no more than it reads. One that reads on
    /// gets the rest of the block decoded whole and handed over from a slice, as
    /// `decode_blocks` does: a step that scans whole lists (bottom-up BFS on a web graph)
    /// decodes them faster that way: 8% on cnr-2000. (The whole block's decoder starts again
    /// from the block's first id, decoding the first group twice: one group, against a second
    /// decoder that would start mid-block.) It must be inlined into the walk, and the walk's
    /// closure too: compiled on its own it loses the SSSE3 target feature and calls every
    /// intrinsic (BFS on cnr-2000 then took 1.8 times as long).
    #[inline(always)]
    fn block_ids<F: FnMut(u32) -> bool>(
        self,
        list: ListBytes<'_>,
        pos: &mut usize,
        list_span: ListSpan,
        span: BlockSpan,
        ids: &mut BlockIds,
        f: &mut F,
    ) -> BlockEnd {
        let ListSpan { source, n, .. } = list_span;
        let Some((first, at)) = block_first(list.codes(), *pos, source, n) else {
            return BlockEnd::Corrupt;
        };
        if span.skip == 0 && !f(first) {
            return BlockEnd::Stopped;
        }
        let lazy_end = span.count.min(1 + 4);
        // Why the consumer closure stopped the decoder, if it did.
        let (mut corrupt, mut stopped) = (false, false);
        let gaps = decode_gaps(
            self.0,
            list.data,
            list.end,
            at,
            first,
            span.len - 1,
            |_, lanes| {
                // The lanes of the first group hold block positions 1 to 4.
                for (position, &w) in (1..lazy_end).zip(lanes) {
                    if w as u64 >= n {
                        corrupt = true;
                        return false;
                    }
                    if position >= span.skip && !f(w) {
                        stopped = true;
                        return false;
                    }
                }
                false
            },
        );
        match gaps {
            // A block of one neighbour has no groups.
            GapsEnd::Done(end) => {
                *pos = end;
                return BlockEnd::Done;
            }
            GapsEnd::Corrupt => return BlockEnd::Corrupt,
            _ if corrupt => return BlockEnd::Corrupt,
            _ if stopped => return BlockEnd::Stopped,
            GapsEnd::Stopped => {}
        }
        // A block of at most five neighbours is a list's last, and a block not wanted
        // whole is the last one walked: where it ends does not matter.
        if span.count <= lazy_end {
            return BlockEnd::Done;
        }
        let Some(end) = self.block_into(list, *pos, list_span, span, ids) else {
            return BlockEnd::Corrupt;
        };
        *pos = end;
        for &w in &ids.ids()[span.skip.max(lazy_end)..span.count] {
            if !f(w) {
                return BlockEnd::Stopped;
            }
        }
        BlockEnd::Done
    }

    /// Decodes the whole block, as its data starts after all its control bytes.
    #[inline(always)]
    fn block_into(
        self,
        list: ListBytes<'_>,
        at: usize,
        list_span: ListSpan,
        block: BlockSpan,
        ids: &mut BlockIds,
    ) -> Option<usize> {
        let ListSpan { source, n, .. } = list_span;
        let (first, at) = block_first(list.codes(), at, source, n)?;
        decode_block_gaps(self.0, list, at, first, block.len - 1, n, ids)
    }

    #[inline(always)]
    fn decode_ids<F: FnMut(u32) -> bool>(
        self,
        list: ListBytes<'_>,
        span: ListSpan,
        mut f: F,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            let ListSpan {
                source,
                degree,
                n,
                lo,
                hi,
            } = span;
            // A walk from the first or second neighbour to the end (BFS, and every visit of a
            // whole list) takes the fast decoder where the list lies far enough from the end
            // of the codes.
            if lo <= 1 && hi >= degree && degree > lo && fast::available() {
                // SAFETY: the CPU has what the fast decoder is compiled for.
                if let Some(finished) =
                    unsafe { fast::walk_ids(list.data, list.end, source, degree, n, lo, &mut f) }
                {
                    return finished;
                }
            }
            if let Some(ssse3) = Ssse3::detect() {
                // SAFETY: `ssse3` exists only where the CPU has SSSE3.
                return unsafe { decode_ids_ssse3(ssse3, list, span, f) };
            }
        }
        decode_ids_with(self, list, span, f)
    }

    #[inline(always)]
    fn decode_blocks<F: FnMut(&[u32]) -> bool>(
        self,
        list: ListBytes<'_>,
        span: ListSpan,
        f: F,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Some(ssse3) = Ssse3::detect() {
            // SAFETY: `ssse3` exists only where the CPU has SSSE3.
            return unsafe { decode_blocks_ssse3(ssse3, list, span, f) };
        }
        decode_blocks_with(self, list, span, f)
    }

    #[inline]
    fn visit_lists<V: ListVisitor>(
        self,
        lists: &ByteCodeLists<'_>,
        vertices: Range<u32>,
        visitor: &mut V,
    ) {
        #[cfg(target_arch = "x86_64")]
        if let Some(ssse3) = Ssse3::detect() {
            // SAFETY: `ssse3` exists only where the CPU has SSSE3.
            return unsafe { visit_lists_ssse3(ssse3, lists, vertices, visitor) };
        }
        visit_lists_with(self, lists, vertices, visitor)
    }

    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn walk_word<F: FnMut(u32, u32) -> bool>(
        self,
        lists: &ByteCodeLists<'_>,
        base: u32,
        word: u64,
        from: usize,
        arc: &mut F,
    ) -> (u64, u64) {
        #[cfg(target_arch = "x86_64")]
        if from <= 1 && fast::available() {
            // SAFETY: the CPU has what the fast decoder is compiled for.
            return unsafe { fast::walk_word(lists, base, word, from, arc) };
        }
        (word, 0)
    }

    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn find_word_in_bitmap<F: FnMut(u32, u32)>(
        self,
        lists: &ByteCodeLists<'_>,
        base: u32,
        word: u64,
        from: usize,
        bitmap: &[AtomicU64],
        found: &mut F,
    ) -> (u64, u64) {
        #[cfg(target_arch = "x86_64")]
        if from <= 1 && fast::available() {
            // SAFETY: the CPU has what the fast decoder is compiled for; the bitmap has a bit
            // per vertex (`ByteCodeLists::find_word_in_bitmap` asserts it).
            return unsafe { fast::find_word_in_bitmap(lists, base, word, from, bitmap, found) };
        }
        (word, 0)
    }

    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn sum_lists<E: FnMut(u32, f64)>(
        self,
        lists: &ByteCodeLists<'_>,
        vertices: Range<u32>,
        values: &[f64],
        emit: &mut E,
    ) -> u32 {
        #[cfg(target_arch = "x86_64")]
        if fast::available() {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { fast::sum_lists_x86(lists, vertices, values, emit) };
        }
        vertices.start
    }
}

/// [`BlockCodec::decode_ids`] of Stream VByte codes compiled for SSSE3, the consumer inlined.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn decode_ids_ssse3<F: FnMut(u32) -> bool>(
    ssse3: Ssse3,
    list: ListBytes<'_>,
    span: ListSpan,
    f: F,
) -> bool {
    decode_ids_with(StreamVByte(ssse3), list, span, f)
}

/// [`BlockCodec::decode_blocks`] of Stream VByte codes compiled for SSSE3, the consumer
/// inlined.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn decode_blocks_ssse3<F: FnMut(&[u32]) -> bool>(
    ssse3: Ssse3,
    list: ListBytes<'_>,
    span: ListSpan,
    f: F,
) -> bool {
    decode_blocks_with(StreamVByte(ssse3), list, span, f)
}

/// [`ByteCodeLists::visit_lists`] of Stream VByte codes compiled for SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn visit_lists_ssse3<V: ListVisitor>(
    ssse3: Ssse3,
    lists: &ByteCodeLists<'_>,
    vertices: Range<u32>,
    visitor: &mut V,
) {
    visit_lists_with(StreamVByte(ssse3), lists, vertices, visitor)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `data[..end]` as one list's codes, the bytes after `end` another list's.
    fn list_bytes(data: &[u8], end: usize) -> ListBytes<'_> {
        ListBytes { data, end }
    }

    /// A consumer that appends every group's lanes to `ids`.
    fn collect(ids: &mut Vec<u32>) -> impl FnMut(usize, &[u32; 4]) -> bool + '_ {
        move |group, lanes| {
            assert_eq!(ids.len(), 4 * group);
            ids.extend_from_slice(lanes);
            true
        }
    }

    /// The gaps decoded by `decoder` both ways: group by group, and a whole block at once,
    /// the block once with nothing after the codes (the careful path) and once followed by
    /// other bytes (the path that checks the end once).
    fn decode_all_ways<D: GroupDecoder>(
        decoder: D,
        data: &[u8],
        first: u32,
        gaps: usize,
    ) -> Vec<u32> {
        let mut grouped = Vec::new();
        let end = decode_gaps(
            decoder,
            data,
            data.len(),
            0,
            first,
            gaps,
            collect(&mut grouped),
        );
        assert!(matches!(end, GapsEnd::Done(e) if e == data.len()));
        grouped.truncate(gaps);
        let mut followed = data.to_vec();
        followed.extend_from_slice(&[0xff; 80]);
        for bytes in [data, &followed[..]] {
            let mut ids = BlockIds::new();
            let n = u32::MAX as u64 + 1;
            let list = list_bytes(bytes, data.len());
            let end = decode_block_gaps(decoder, list, 0, first, gaps, n, &mut ids);
            assert_eq!(end, Some(data.len()));
            assert_eq!(ids.ids()[0], first);
            assert_eq!(ids.ids()[1..=gaps], grouped[..]);
        }
        grouped
    }

    fn round_trip(first: u32, gaps: &[u32]) -> Vec<u32> {
        let mut data = Vec::new();
        write_gaps(gaps.iter().copied(), gaps.len(), &mut data);
        assert_eq!(data.len(), gaps_len(gaps.iter().copied(), gaps.len()));
        let scalar = decode_all_ways(Scalar, &data, first, gaps.len());
        #[cfg(target_arch = "x86_64")]
        if let Some(ssse3) = Ssse3::detect() {
            assert_eq!(decode_all_ways(ssse3, &data, first, gaps.len()), scalar);
        }
        assert_eq!(
            validate_gaps(&data, 0, first as u64, gaps.len(), u32::MAX as u64 + 1),
            Ok((data.len(), *scalar.last().unwrap_or(&first) as u64))
        );
        scalar
    }

    #[test]
    fn every_length_decodes_in_every_lane() {
        let values = [0u32, 1, 255, 256, 65535, 65536, 1 << 24, u32::MAX >> 2];
        for lane in 0..4 {
            for &v in &values {
                let mut gaps = vec![3u32; 7];
                gaps[lane] = v;
                gaps[lane + 3] = v;
                let mut expected = Vec::new();
                let mut id = 10u64;
                for &g in &gaps {
                    id += g as u64 + 1;
                    expected.push(id as u32);
                }
                assert_eq!(round_trip(10, &gaps), expected, "lane {lane} value {v}");
            }
        }
    }

    #[test]
    fn zero_gaps_take_no_data_bytes() {
        let mut data = Vec::new();
        write_gaps([0u32; 63].into_iter(), 63, &mut data);
        assert_eq!(data.len(), 16, "16 control bytes and nothing else");
        assert_eq!(round_trip(5, &[0; 63]), (6..69).collect::<Vec<u32>>());
    }

    #[test]
    fn codes_past_the_list_end_or_in_unused_slots_are_refused() {
        let mut data = Vec::new();
        write_gaps([300u32, 2].into_iter(), 2, &mut data);
        // The list ends one byte early: the group's three data bytes do not fit.
        let short = decode_gaps(Scalar, &data, data.len() - 1, 0, 0, 2, |_, _| true);
        assert!(matches!(short, GapsEnd::Corrupt));
        // Also when the codes are followed by other lists' bytes, which the whole-block
        // decoder reads before it checks where the block ended.
        let mut followed = data.clone();
        followed.extend_from_slice(&[0; 32]);
        for bytes in [&data[..], &followed[..]] {
            let mut ids = BlockIds::new();
            let list = list_bytes(bytes, data.len() - 1);
            let short = decode_block_gaps(Scalar, list, 0, 0, 2, 1000, &mut ids);
            assert_eq!(short, None);
        }
        assert!(validate_gaps(&data[..data.len() - 1], 0, 0, 2, 1000).is_err());
        // A code in the third slot of a two-gap group.
        let mut bad = data.clone();
        bad[0] |= 1 << 4;
        bad.push(0);
        assert!(validate_gaps(&bad, 0, 0, 2, 1000)
            .unwrap_err()
            .contains("past the block"));
        // An id at n.
        assert!(validate_gaps(&data, 0, 0, 2, 304).is_err());
        assert!(validate_gaps(&data, 0, 0, 2, 305).is_ok());
        let mut ids = BlockIds::new();
        let list = list_bytes(&data, data.len());
        assert_eq!(
            decode_block_gaps(Scalar, list, 0, 0, 2, 304, &mut ids),
            None
        );
        assert_eq!(
            decode_block_gaps(Scalar, list, 0, 0, 2, 305, &mut ids),
            Some(data.len())
        );
    }

    #[test]
    fn ids_that_wrap_past_u32_are_refused_though_the_last_is_below_n() {
        // 10, then 10 + 0xffff_fff0 + 1 = 0xffff_fffb, then 101 more: 96 after wrapping.
        let mut data = Vec::new();
        write_gaps([0xffff_fff0u32, 100].into_iter(), 2, &mut data);
        data.extend_from_slice(&[0; 32]);
        let end = data.len() - 32;
        let mut ids = BlockIds::new();
        let list = list_bytes(&data, end);
        assert_eq!(
            decode_block_gaps(Scalar, list, 0, 10, 2, 1000, &mut ids),
            None
        );
        assert_eq!(ids.ids()[2], 96, "the wrapped last id alone would pass");
        // Without four-byte gaps nothing wraps, and the last id decides: 10 + 3 + 301.
        let mut data = Vec::new();
        write_gaps([2u32, 300].into_iter(), 2, &mut data);
        data.extend_from_slice(&[0; 32]);
        let end = data.len() - 32;
        let list = list_bytes(&data, end);
        assert_eq!(
            decode_block_gaps(Scalar, list, 0, 10, 2, 314, &mut ids),
            None
        );
        assert_eq!(
            decode_block_gaps(Scalar, list, 0, 10, 2, 315, &mut ids),
            Some(end)
        );
    }
}
