//! Base-128 varints (seven bits a byte, high bit = more bytes follow), the zig-zag map that
//! gives small signed numbers small codes, and the Varint codec ([`crate::ListCodec::Varint`],
//! Ligra+'s byte codes). A block of `len` neighbours of `source` is
//!
//! ```text
//! [ first − source, zig-zagged, varint ] [ len − 1 gaps, varints ]
//! ```
//!
//! where each gap is an id minus the one before it minus one (lists are strictly increasing,
//! so gaps are at least one). Stream VByte blocks code the first number and the gaps the same
//! way, the gaps in groups: [`first_code`], [`gaps`], [`block_first`] and [`validate_first`]
//! serve both gap codecs.

use crate::codec::{BlockCodec, BlockEnd, BlockIds, BlockSpan};
use crate::decode::{ListBytes, ListSpan};

/// The longest code: a zig-zagged difference of two u32 ids needs 33 bits, five 7-bit bytes.
pub(crate) const MAX_VARINT_BYTES: usize = 5;

#[inline]
pub(crate) fn zigzag(x: i64) -> u64 {
    ((x << 1) ^ (x >> 63)) as u64
}

#[inline]
pub(crate) fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// Bytes of `x`'s code.
#[inline]
pub(crate) fn varint_len(x: u64) -> usize {
    // 1 + floor(bits / 7), with x = 0 taking one byte.
    let bits = 64 - (x | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

#[inline]
pub(crate) fn write_varint(mut x: u64, out: &mut Vec<u8>) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The varint at `bytes[pos..]` and the position just past it. None when the bytes end first
/// or the code is longer than [`MAX_VARINT_BYTES`]. Positions are passed by value so that the
/// decoder keeps them in registers.
#[inline(always)]
pub(crate) fn read_varint(bytes: &[u8], pos: usize) -> Option<(u64, usize)> {
    let first = *bytes.get(pos)?;
    if first < 0x80 {
        return Some((first as u64, pos + 1));
    }
    read_varint_tail(bytes, pos + 1, first)
}

/// The second and later bytes of a multi-byte code (most codes of lists with sparse ids).
#[inline(always)]
fn read_varint_tail(bytes: &[u8], mut pos: usize, first: u8) -> Option<(u64, usize)> {
    let mut value = (first & 0x7f) as u64;
    let mut shift = 7;
    for _ in 1..MAX_VARINT_BYTES {
        let b = *bytes.get(pos)?;
        pos += 1;
        value |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return Some((value, pos));
        }
        shift += 7;
    }
    None
}

/// The first neighbour of a gap codec's block relative to the source, zig-zagged.
#[inline]
pub(crate) fn first_code(source: u32, block: &[u32]) -> u64 {
    zigzag(block[0] as i64 - source as i64)
}

/// The gaps of a checked block, each minus one.
#[inline]
pub(crate) fn gaps(block: &[u32]) -> impl Iterator<Item = u32> + '_ {
    block.windows(2).map(|pair| pair[1] - pair[0] - 1)
}

/// The first neighbour of the gap codec's block at `codes[at..]` (a varint relative to
/// `source`) and where its code ends; None when the code is truncated or overlong or the id is
/// not below `n`.
#[inline(always)]
pub(crate) fn block_first(codes: &[u8], at: usize, source: u32, n: u64) -> Option<(u32, usize)> {
    let (code, after) = read_varint(codes, at)?;
    // |difference| < 2^34 and source < 2^32: no overflow in i64.
    let first = source as i64 + unzigzag(code);
    (first >= 0 && (first as u64) < n).then_some((first as u32, after))
}

/// What validation says of a varint at `data[pos..]` that is truncated or overlong.
fn truncated(data: &[u8], pos: usize) -> String {
    format!("truncated or overlong code at byte {pos} of {}", data.len())
}

/// Checks the first neighbour of the gap codec's block at `data[at..]` as [`block_first`]
/// reads it; returns the id and where its code ends.
pub(crate) fn validate_first(
    data: &[u8],
    at: usize,
    source: u32,
    n: u64,
) -> Result<(u64, usize), String> {
    let (code, pos) = read_varint(data, at).ok_or_else(|| truncated(data, at))?;
    // Codes are below 2^35 and ids below 2^32: no overflow in i64.
    let first = source as i64 + unzigzag(code);
    if first < 0 || first as u64 >= n {
        return Err(format!("neighbour {first} is not in 0..{n}"));
    }
    Ok((first as u64, pos))
}

/// The Varint codec: each gap a varint of its own.
#[derive(Clone, Copy)]
pub(crate) struct Varint;

impl BlockCodec for Varint {
    fn block_len(self, source: u32, block: &[u32]) -> usize {
        varint_len(first_code(source, block))
            + gaps(block).map(|gap| varint_len(gap as u64)).sum::<usize>()
    }

    fn write_block(self, source: u32, block: &[u32], out: &mut Vec<u8>) {
        write_varint(first_code(source, block), out);
        gaps(block).for_each(|gap| write_varint(gap as u64, out));
    }

    fn validate_block(
        self,
        data: &[u8],
        at: usize,
        source: u32,
        n: u64,
        len: usize,
    ) -> Result<(usize, u64, u64), String> {
        let (first, mut pos) = validate_first(data, at, source, n)?;
        let mut id = first;
        for _ in 1..len {
            let (gap, after) = read_varint(data, pos).ok_or_else(|| truncated(data, pos))?;
            pos = after;
            id += gap + 1;
            if id >= n {
                return Err(format!("neighbour {id} is not in 0..{n}"));
            }
        }
        Ok((pos, first, id))
    }

    /// Decodes the `block.count` first neighbours, handing over those from `block.skip` on.
    #[inline(always)]
    fn block_ids<F: FnMut(u32) -> bool>(
        self,
        list: ListBytes<'_>,
        at: &mut usize,
        list_span: ListSpan,
        block: BlockSpan,
        _scratch: &mut BlockIds,
        f: &mut F,
    ) -> BlockEnd {
        let ListSpan { source, n, .. } = list_span;
        let data = list.codes();
        let BlockSpan { count, skip, .. } = block;
        // The position stays in a register: read_varint takes and returns it by value.
        let Some((first, mut pos)) = block_first(data, *at, source, n) else {
            return BlockEnd::Corrupt;
        };
        let mut id = first as u64;
        if skip == 0 && !f(id as u32) {
            return BlockEnd::Stopped;
        }
        for i in 1..count {
            let Some((gap, after)) = read_varint(data, pos) else {
                return BlockEnd::Corrupt;
            };
            pos = after;
            // gap < 2^35 and id < 2^32: no overflow in u64.
            id += gap + 1;
            if id >= n {
                return BlockEnd::Corrupt;
            }
            if i >= skip && !f(id as u32) {
                return BlockEnd::Stopped;
            }
        }
        *at = pos;
        BlockEnd::Done
    }

    /// Decodes just the `block.count` first neighbours.
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
        let codes = list.codes();
        let (first, mut at) = block_first(codes, at, source, n)?;
        ids.start(first);
        // Ids only grow within a block and each step adds less than 2^35 + 1, so the u64
        // sum of at most 64 steps never overflows, and checking the last id against n
        // checks them all.
        let mut id = first as u64;
        ids.fill(block.count, || {
            let (gap, after) = read_varint(codes, at)?;
            at = after;
            id += gap + 1;
            Some(id as u32)
        })?;
        (id < n).then_some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_at_every_length_boundary() {
        for x in [
            0u64,
            1,
            127,
            128,
            16383,
            16384,
            (1 << 21) - 1,
            1 << 21,
            (1 << 33) - 1,
        ] {
            let mut out = Vec::new();
            write_varint(x, &mut out);
            assert_eq!(out.len(), varint_len(x), "{x}");
            assert_eq!(read_varint(&out, 0), Some((x, out.len())));
        }
    }

    #[test]
    fn truncated_and_overlong_codes_are_rejected() {
        assert_eq!(read_varint(&[0x80, 0x80], 0), None);
        assert_eq!(read_varint(&[0xff; 6], 0), None);
        assert_eq!(read_varint(&[], 0), None);
    }

    #[test]
    fn zigzag_is_a_bijection_on_id_differences() {
        for x in [0i64, 1, -1, 2, -2, u32::MAX as i64, -(u32::MAX as i64)] {
            assert_eq!(unzigzag(zigzag(x)), x);
            assert!(varint_len(zigzag(x)) <= MAX_VARINT_BYTES);
        }
    }
}
