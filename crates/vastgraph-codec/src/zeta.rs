//! The interval and ζ codec ([`crate::ListCodec::Zeta`]): the residual coding of Boldi and
//! Vigna's BV format (WebGraph) without its references to other lists, so that every block
//! still decodes on its own. A block of `len` neighbours of `source` is a bit stream, read from
//! the least significant bit of each byte up, padded with zeros to a whole byte:
//!
//! ```text
//! [ γ: intervals k ]
//! [ ζ₃: first interval's start − source, zig-zagged ] [ γ: its length − 4 ]
//! [ ζ₃: next start − previous interval's end ] [ γ: length − 4 ] ...   k intervals in all
//! [ ζ₃: first residual − source, zig-zagged ] [ ζ₃: gap − 1 ] ...     len − Σ lengths ids
//! ```
//!
//! An interval is a run of at least [`MIN_INTERVAL`] consecutive ids; the residuals are the
//! block's other ids, in order. Web graphs, whose pages link to runs of pages of their own site
//! and to pages near them, get most of their codes' gain from the runs and the ζ₃ codes of small
//! gaps: on cnr-2000 the codes take 4.1 bits an arc, against 5.5 for Stream VByte and 2.9 for
//! WebGraph with its references.
//!
//! The codes (γ: a unary prefix of ⌊log₂(x+1)⌋ zeros and a one, then the bits of x + 1 below
//! its top one; ζ₃: a unary prefix of h = ⌊log₂(x+1)/3⌋ zeros and a one, then x + 1 − 2^{3h}
//! in a truncated binary code of the range 2^{3h}·7) are those of WebGraph; only the bit order
//! is the opposite, so that a decoder reads a 64-bit little-endian word and counts its trailing
//! zeros. A truncated binary code of z in [0, r), with b = ⌊log₂ r⌋ and u = 2^{b+1} − r, is z in
//! b bits when z < u, else z + u in b + 1 bits, its high b bits first: the first b bits read
//! tell which.

use crate::codec::{BlockCodec, BlockEnd, BlockIds, BlockSpan};
use crate::decode::{ListBytes, ListSpan};
use crate::varint::{unzigzag, zigzag};

/// The shortest run of consecutive ids coded as an interval (WebGraph's default).
pub(crate) const MIN_INTERVAL: u32 = 4;

/// ζ's shrinking factor k (WebGraph's default for web graphs).
const K: u32 = 3;

/// The most intervals a block holds.
const MAX_INTERVALS: usize = crate::BLOCK_EDGES / MIN_INTERVAL as usize;

/// Bits of the γ code of `x`.
#[inline]
fn gamma_bits(x: u64) -> u32 {
    2 * (64 - (x + 1).leading_zeros()) - 1
}

/// Bits of the ζ₃ code of `x`.
#[inline]
fn zeta_bits(x: u64) -> u32 {
    let (h, z_bits) = zeta_parts(x);
    h + 1 + z_bits.1
}

/// For ζ₃ of x: the unary prefix h, and (the value written after it, its bits).
#[inline]
fn zeta_parts(x: u64) -> (u32, (u64, u32)) {
    let y = x + 1;
    let h = (63 - y.leading_zeros()) / K;
    let left = 1u64 << (K * h);
    let range = (1u64 << (K * (h + 1))) - left;
    (h, truncated(y - left, range))
}

/// The truncated binary code of `z` in `[0, range)`: (the value to write, its bits), the value
/// written high bits first when it has b + 1 (see the module doc).
#[inline]
fn truncated(z: u64, range: u64) -> (u64, u32) {
    let b = 63 - range.leading_zeros();
    let u = (2u64 << b) - range;
    if z < u {
        (z, b)
    } else {
        // b + 1 bits, the high b first: written as (x >> 1) in b bits, then x & 1.
        let x = z + u;
        ((x >> 1) | (x & 1) << b, b + 1)
    }
}

/// Appends bits to a byte vector, lowest first.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    filled: u32,
}

impl<'a> BitWriter<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            acc: 0,
            filled: 0,
        }
    }

    /// The low `bits` bits of `value` (at most 57 at a time).
    fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 57 && (bits == 64 || value >> bits == 0));
        self.acc |= value << self.filled;
        self.filled += bits;
        while self.filled >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.filled -= 8;
        }
    }

    fn gamma(&mut self, x: u64) {
        let y = x + 1;
        let top = 63 - y.leading_zeros();
        self.put(1 << top, top + 1);
        self.put(y & ((1 << top) - 1), top);
    }

    fn zeta(&mut self, x: u64) {
        let (h, (value, bits)) = zeta_parts(x);
        self.put(1 << h, h + 1);
        self.put(value, bits);
    }

    /// Pads the last byte with zeros.
    fn finish(self) {
        if self.filled > 0 {
            self.out.push(self.acc as u8);
        }
    }
}

/// Reads the bits of the codes `data[..end]`, lowest first, and `past_end` tells a caller
/// that a code ran past `end`. The bytes of `data` after `end` (the lists after this one) are
/// read ahead, a word at a time, but no valid code uses them; bits past `data`'s end read as
/// zeros. Positions are in bits from `data`'s start.
#[derive(Clone, Copy)]
struct BitReader<'a> {
    data: &'a [u8],
    end: usize,
    pos: usize,
    /// A code failed on a prefix of zeros that ran to the codes' end: the codes are cut short.
    ran_out: bool,
}

impl<'a> BitReader<'a> {
    /// The codes `data[..end]`, read from byte `at_byte`.
    #[inline(always)]
    fn new(data: &'a [u8], end: usize, at_byte: usize) -> Self {
        debug_assert!(end <= data.len());
        BitReader {
            data,
            end,
            pos: 8 * at_byte,
            ran_out: false,
        }
    }

    /// The next 57 bits at least, in the low bits.
    #[inline(always)]
    fn peek(&self) -> u64 {
        let byte = self.pos >> 3;
        let word = match self.data.get(byte..byte + 8) {
            Some(b) => u64::from_le_bytes(b.try_into().unwrap()),
            None => {
                let mut b = [0u8; 8];
                let rest = self.data.get(byte..).unwrap_or(&[]);
                b[..rest.len()].copy_from_slice(rest);
                u64::from_le_bytes(b)
            }
        };
        word >> (self.pos & 7)
    }

    #[inline(always)]
    fn past_end(&self) -> bool {
        self.pos > 8 * self.end
    }

    /// Whether the codes were cut short: a code read past the data's end, or failed on zeros
    /// that ran to it.
    fn truncated(&self) -> bool {
        self.past_end() || self.ran_out
    }

    /// A code's prefix of `zeros` zeros is too long: notes whether they ran to the data's end.
    #[cold]
    fn overlong(&mut self, zeros: u32) -> Option<u64> {
        self.ran_out = self.pos + zeros as usize >= 8 * self.end;
        None
    }

    /// The bits after the last one read, to the end of its byte (zeros past the codes' end
    /// when `data` ends there, as the validator's does).
    fn padding(&self) -> u64 {
        let used = self.pos & 7;
        match used {
            0 => 0,
            _ => self.peek() & ((1 << (8 - used)) - 1),
        }
    }

    /// The byte after the last bit read.
    #[inline(always)]
    fn end_byte(&self) -> usize {
        self.pos.div_ceil(8)
    }

    /// A γ code; None when its prefix is longer than any code of a number below 2^34.
    #[inline(always)]
    fn gamma(&mut self) -> Option<u64> {
        let w = self.peek();
        let top = w.trailing_zeros();
        if top > 34 {
            return self.overlong(top);
        }
        if 2 * top < 57 {
            self.pos += 2 * top as usize + 1;
            let low = (w >> (top + 1)) & ((1 << top) - 1);
            return Some(((1 << top) | low) - 1);
        }
        self.pos += top as usize + 1;
        let low = self.peek() & ((1 << top) - 1);
        self.pos += top as usize;
        Some(((1 << top) | low) - 1)
    }

    /// A ζ₃ code; None when its prefix is longer than any code of a number below 2^34. Codes
    /// of up to [`TABLE_BITS`] bits (gaps below 511) come from [`SHORT_ZETA`].
    #[inline(always)]
    fn zeta(&mut self) -> Option<u64> {
        let w = self.peek();
        let (value, bits) = SHORT_ZETA[(w & TABLE_MASK) as usize];
        if bits != 0 {
            self.pos += bits as usize;
            return Some(value as u64);
        }
        self.zeta_long(w)
    }

    /// A ζ₃ code longer than [`TABLE_BITS`], `w` the bits from its start.
    #[inline(never)]
    fn zeta_long(&mut self, w: u64) -> Option<u64> {
        let h = w.trailing_zeros();
        if h > 34 / K {
            return self.overlong(h);
        }
        let left = 1u64 << (K * h);
        let range = (1u64 << (K * (h + 1))) - left;
        let b = 63 - range.leading_zeros();
        let u = (2u64 << b) - range;
        // h + 1 + b + 1 ≤ 12 + 34 < 57: the whole code is in `w`.
        let v = w >> (h + 1);
        let high = v & ((1 << b) - 1);
        let z = if high < u {
            self.pos += (h + 1 + b) as usize;
            high
        } else {
            self.pos += (h + 2 + b) as usize;
            ((high << 1) | (v >> b) & 1) - u
        };
        Some(left + z - 1)
    }
}

/// Bits of the codes [`SHORT_ZETA`] decodes at once.
const TABLE_BITS: u32 = 12;
const TABLE_MASK: u64 = (1 << TABLE_BITS) - 1;

/// For every pattern of [`TABLE_BITS`] bits that starts with a whole ζ₃ code: (its value, its
/// bits); (0, 0) where the code is longer.
static SHORT_ZETA: [(u16, u8); 1 << TABLE_BITS] = short_zeta_table();

const fn short_zeta_table() -> [(u16, u8); 1 << TABLE_BITS] {
    let mut table = [(0u16, 0u8); 1 << TABLE_BITS];
    let mut x = 0u64;
    loop {
        // The code of x, as BitWriter::zeta writes it: 1 << h in h + 1 bits, then the
        // truncated binary value.
        let y = x + 1;
        let h = (63 - y.leading_zeros()) / K;
        let left = 1u64 << (K * h);
        let range = (1u64 << (K * (h + 1))) - left;
        let b = 63 - range.leading_zeros();
        let u = (2u64 << b) - range;
        let z = y - left;
        let (value, bits) = if z < u {
            (z, b)
        } else {
            let v = z + u;
            ((v >> 1) | (v & 1) << b, b + 1)
        };
        let length = h + 1 + bits;
        if length > TABLE_BITS {
            // Codes only get longer with x.
            return table;
        }
        let code = (1u64 << h) | value << (h + 1);
        // Every pattern whose low `length` bits are the code.
        let mut high = 0u64;
        while high < 1 << (TABLE_BITS - length) {
            table[(code | high << length) as usize] = (x as u16, length as u8);
            high += 1;
        }
        x += 1;
    }
}

/// A block's intervals and residuals, as the encoder cuts them.
fn split(block: &[u32]) -> (Vec<(u32, u32)>, Vec<u32>) {
    let (mut intervals, mut residuals) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < block.len() {
        let mut j = i + 1;
        while j < block.len() && block[j] == block[j - 1] + 1 {
            j += 1;
        }
        let run = (j - i) as u32;
        if run >= MIN_INTERVAL {
            intervals.push((block[i], run));
        } else {
            residuals.extend_from_slice(&block[i..j]);
        }
        i = j;
    }
    (intervals, residuals)
}

/// The numbers of a block's codes, in order, each with whether it is a γ code (else ζ₃).
fn numbers(source: u32, block: &[u32]) -> Vec<(u64, bool)> {
    let (intervals, residuals) = split(block);
    let mut out = vec![(intervals.len() as u64, true)];
    let mut end = None;
    for &(start, len) in &intervals {
        let at = match end {
            None => zigzag(start as i64 - source as i64),
            Some(end) => (start - end) as u64,
        };
        out.push((at, false));
        out.push(((len - MIN_INTERVAL) as u64, true));
        end = Some(start + len);
    }
    let mut previous = None;
    for &id in &residuals {
        let code = match previous {
            None => zigzag(id as i64 - source as i64),
            Some(p) => (id - p - 1) as u64,
        };
        out.push((code, false));
        previous = Some(id);
    }
    out
}

/// Reads a block's interval count and its intervals into `intervals` as (start, length), and
/// returns how many there are and how many ids they cover, leaving `bits` at the residuals.
/// None when they are corrupt: more than [`MAX_INTERVALS`], one past `n` or starting before
/// the previous one ends, or more than `len` ids covered.
#[inline(always)]
fn read_intervals(
    bits: &mut BitReader<'_>,
    source: u32,
    n: u64,
    len: usize,
    intervals: &mut [(u32, u32); MAX_INTERVALS],
) -> Option<(usize, usize)> {
    let count = bits.gamma()? as usize;
    if count > MAX_INTERVALS {
        return None;
    }
    // The previous interval's end; -1 before the first.
    let mut end = -1i64;
    let mut covered = 0u64;
    for interval in &mut intervals[..count] {
        let code = bits.zeta()?;
        let start = match end {
            -1 => source as i64 + unzigzag(code),
            end => end + code as i64,
        };
        let length = bits.gamma()? + MIN_INTERVAL as u64;
        if start < end || start < 0 || start as u64 + length > n {
            return None;
        }
        end = start + length as i64;
        covered += length;
        *interval = (start as u32, length as u32);
    }
    (covered <= len as u64).then_some((count, covered as usize))
}

/// Decodes a block of `len` ids into `ids` (all of them: callers that want the first few
/// take them): the residuals straight in when the block has no intervals, else into a buffer
/// first and then merged with the intervals. Ids are below `n`; their order is the
/// validator's to check. None on corrupt codes.
#[inline(always)]
fn decode_block(
    bits: &mut BitReader<'_>,
    source: u32,
    n: u64,
    len: usize,
    ids: &mut BlockIds,
) -> Option<()> {
    let mut intervals = [(0u32, 0u32); MAX_INTERVALS];
    let (count, covered) = read_intervals(bits, source, n, len, &mut intervals)?;
    let residuals = len - covered;
    if count == 0 {
        return read_residuals(bits, source, n, residuals, ids);
    }
    let mut rest = BlockIds::new();
    read_residuals(bits, source, n, residuals, &mut rest)?;
    let rest = &rest.ids()[..residuals];
    // Merge: an interval goes before the residuals below its start. Slots 0, 1, 2, … are
    // written in turn, covered + residuals = len ≤ BLOCK_EDGES of them.
    let mut at = 0;
    let mut r = 0;
    for &(start, length) in &intervals[..count] {
        while r < residuals && rest[r] < start {
            ids.put_at(at, rest[r]);
            at += 1;
            r += 1;
        }
        for id in start..start + length {
            ids.put_at(at, id);
            at += 1;
        }
    }
    for &id in &rest[r..] {
        ids.put_at(at, id);
        at += 1;
    }
    if at != len {
        return None;
    }
    // SAFETY: slots ..len were written above, one by one from 0, and len ≤ BLOCK_EDGES.
    unsafe { ids.set_len(len) };
    Some(())
}

/// Reads `residuals` residuals into `ids`: the first relative to `source`, then gaps. None
/// when a code is corrupt or an id not below `n`.
#[inline(always)]
fn read_residuals(
    bits: &mut BitReader<'_>,
    source: u32,
    n: u64,
    residuals: usize,
    ids: &mut BlockIds,
) -> Option<()> {
    ids.clear();
    if residuals == 0 {
        return Some(());
    }
    let first = source as i64 + unzigzag(bits.zeta()?);
    if first < 0 || first as u64 >= n {
        return None;
    }
    ids.start(first as u32);
    // Each step adds less than 2^34 + 1 to an id below 2^32: no overflow in u64, and the last
    // id bounds them all. The short codes come from a word of bits kept in a register, loaded
    // again only when fewer than TABLE_BITS are left in it.
    let mut id = first as u64;
    let (mut word, mut left) = (bits.peek(), 64 - (bits.pos & 7) as u32);
    // A plain loop, not a closure handed to the buffer: the compiler may leave a closure out
    // of line, a call per id.
    for at in 1..residuals {
        if left < TABLE_BITS {
            (word, left) = (bits.peek(), 64 - (bits.pos & 7) as u32);
        }
        let (value, length) = SHORT_ZETA[(word & TABLE_MASK) as usize];
        let gap = if length != 0 {
            word >>= length;
            left -= length as u32;
            bits.pos += length as usize;
            value as u64
        } else {
            let gap = bits.zeta_long(bits.peek())?;
            left = 0;
            gap
        };
        id += gap + 1;
        ids.put_at(at, id as u32);
    }
    // SAFETY: slot 0 holds the first id and the loop wrote slots 1..residuals; residuals ≤
    // BLOCK_EDGES.
    unsafe { ids.set_len(residuals) };
    (id < n).then_some(())
}

/// The interval and ζ codec.
#[derive(Clone, Copy)]
pub(crate) struct Zeta;

impl BlockCodec for Zeta {
    fn block_len(self, source: u32, block: &[u32]) -> usize {
        let bits: u64 = numbers(source, block)
            .into_iter()
            .map(|(x, gamma)| match gamma {
                true => gamma_bits(x),
                false => zeta_bits(x),
            } as u64)
            .sum();
        bits.div_ceil(8) as usize
    }

    fn write_block(self, source: u32, block: &[u32], out: &mut Vec<u8>) {
        let mut w = BitWriter::new(out);
        for (x, gamma) in numbers(source, block) {
            match gamma {
                true => w.gamma(x),
                false => w.zeta(x),
            }
        }
        w.finish();
    }

    fn validate_block(
        self,
        data: &[u8],
        at: usize,
        source: u32,
        n: u64,
        len: usize,
    ) -> Result<(usize, u64, u64), String> {
        let mut bits = BitReader::new(data, data.len(), at);
        let corrupt = |bits: &BitReader<'_>, what: &str| match bits.truncated() {
            true => format!(
                "truncated codes in the block at byte {at} of {}",
                data.len()
            ),
            false => format!("{what} in the block at byte {at} of {}", data.len()),
        };
        let mut ids = BlockIds::new();
        if decode_block(&mut bits, source, n, len, &mut ids).is_none() || bits.past_end() {
            return Err(corrupt(&bits, "corrupt codes or ids not below n"));
        }
        let ids = ids.ids();
        if ids.len() != len || ids.windows(2).any(|w| w[0] >= w[1]) {
            return Err(corrupt(&bits, "ids out of order"));
        }
        // The writer pads with zeros; every code holds a one, so a code left in the padding
        // (a block longer than its degree says) shows.
        if bits.padding() != 0 {
            return Err(corrupt(&bits, "codes left over after the last id"));
        }
        let (first, last) = (ids[0] as u64, ids[len - 1] as u64);
        Ok((bits.end_byte(), first, last))
    }

    #[inline(always)]
    fn block_ids<F: FnMut(u32) -> bool>(
        self,
        list: ListBytes<'_>,
        at: &mut usize,
        list_span: ListSpan,
        block: BlockSpan,
        scratch: &mut BlockIds,
        f: &mut F,
    ) -> BlockEnd {
        let Some(end) = self.block_into(list, *at, list_span, block, scratch) else {
            return BlockEnd::Corrupt;
        };
        for &id in &scratch.ids()[block.skip..block.count] {
            if !f(id) {
                return BlockEnd::Stopped;
            }
        }
        *at = end;
        BlockEnd::Done
    }

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
        let mut bits = BitReader::new(list.data, list.end, at);
        decode_block(&mut bits, source, n, block.len, ids)?;
        (!bits.past_end() && ids.len() >= block.count).then(|| bits.end_byte())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(values: &[u64], gamma: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let mut w = BitWriter::new(&mut out);
        for &x in values {
            match gamma {
                true => w.gamma(x),
                false => w.zeta(x),
            }
        }
        w.finish();
        out
    }

    #[test]
    fn gamma_and_zeta_codes_round_trip_at_every_length_boundary() {
        let mut values = vec![0u64, 1, 2, 3, 6, 7, 8];
        for bits in 1..=34 {
            values.extend([(1u64 << bits) - 2, (1 << bits) - 1, 1 << bits]);
        }
        values.retain(|&x| x < 1 << 34);
        for gamma in [true, false] {
            let data = codes(&values, gamma);
            let bits: u64 = values
                .iter()
                .map(|&x| match gamma {
                    true => gamma_bits(x),
                    false => zeta_bits(x),
                } as u64)
                .sum();
            assert_eq!(data.len() as u64, bits.div_ceil(8), "gamma {gamma}");
            let mut r = BitReader::new(&data, data.len(), 0);
            for &x in &values {
                let got = match gamma {
                    true => r.gamma(),
                    false => r.zeta(),
                };
                assert_eq!(got, Some(x), "gamma {gamma}");
            }
            assert!(!r.past_end());
        }
    }

    #[test]
    fn zeta_codes_are_webgraphs_lengths() {
        // ζ₃ of x: 1 + h unary bits and a truncated binary code of 2^{3h}·7 values.
        assert_eq!(zeta_bits(0), 3); // h = 0: 1 + 2 bits (u = 1: z = 0 takes b = 2)
        assert_eq!(zeta_bits(1), 4); // z = 1 ≥ u takes b + 1 = 3 bits
        assert_eq!(zeta_bits(6), 4);
        assert_eq!(zeta_bits(7), 2 + 5); // h = 1: 56 values, b = 5, u = 8: z = 0 < u
        assert_eq!(gamma_bits(0), 1);
        assert_eq!(gamma_bits(1), 3);
        assert_eq!(gamma_bits(6), 5);
    }

    #[test]
    fn runs_become_intervals_and_the_rest_gaps() {
        let block: Vec<u32> = [100, 101, 102, 103, 107, 200, 201, 202, 203, 204, 300, 302].to_vec();
        let (intervals, residuals) = split(&block);
        assert_eq!(intervals, vec![(100, 4), (200, 5)]);
        assert_eq!(residuals, vec![107, 300, 302]);
        let mut out = Vec::new();
        Zeta.write_block(90, &block, &mut out);
        assert_eq!(out.len(), Zeta.block_len(90, &block));
        let (end, first, last) = Zeta.validate_block(&out, 0, 90, 1000, block.len()).unwrap();
        assert_eq!((end, first, last), (out.len(), 100, 302));
        // 64 consecutive ids: one interval, a few bytes.
        let run: Vec<u32> = (5000..5064).collect();
        assert!(Zeta.block_len(5000, &run) <= 3);
    }

    #[test]
    fn a_residual_inside_an_interval_is_refused() {
        // Interval 10..14 and residuals 12, 20 (a forged merge): 12 repeats an id.
        let mut out = Vec::new();
        let mut w = BitWriter::new(&mut out);
        w.gamma(1);
        w.zeta(zigzag(10 - 5));
        w.gamma(0);
        w.zeta(zigzag(12 - 5));
        w.zeta(20 - 12 - 1);
        w.finish();
        let err = Zeta.validate_block(&out, 0, 5, 100, 6).unwrap_err();
        assert!(err.contains("out of order"), "{err}");
    }
}
