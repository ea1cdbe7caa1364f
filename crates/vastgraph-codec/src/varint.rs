//! Base-128 varints (seven bits a byte, high bit = more bytes follow) and the zig-zag map
//! that gives small signed numbers small codes.

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
