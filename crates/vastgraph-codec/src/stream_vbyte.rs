//! Stream VByte (Lemire, Kurz and Rupp, 2017) for the gaps of a block: a control byte per
//! group of four gaps, two bits a gap giving its length, then the gaps' bytes back to back.
//! Lengths are 0, 1, 2 or 4 bytes (the "0124" variant): a gap of zero (the next id follows the
//! previous one, the commonest gap in web graphs) takes no data byte at all.
//!
//! Decoding a group needs no branch on the lengths: one table lookup gives the group's byte
//! count, and on x86-64 with SSSE3 one byte shuffle moves the four values into the four lanes
//! of a vector, where a prefix sum turns gaps into ids.

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
static GROUP_BYTES: [u8; 256] = group_bytes();

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
static SHUFFLES: [[u8; 16]; 256] = shuffles();

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

/// Room for a block's ids when its gaps are decoded four at a time: the first id, then up to
/// 16 groups of four.
pub(crate) const DECODE_SLOTS: usize = crate::BLOCK_EDGES + 4;

/// How decoding a block's gaps ended.
pub(crate) enum GapsEnd {
    /// Every group was decoded; the block ends at this byte.
    Done(usize),
    /// The consumer asked to stop.
    Stopped,
    /// The codes run past the list's end.
    Corrupt,
}

/// Decodes the gaps of a block whose first id is `first`: `gaps` of them, with their control
/// bytes at `data[at..]`. Hands each group's four ids (`first + gap + 1`, running on) to
/// `emit(group, ids)`, in order, until it returns false; the last group's lanes past `gaps`
/// are garbage. The list ends at `data[end]`; bytes from there on belong to other lists, and
/// reading them (a group is read 16 bytes at a time) is harmless as no code selects them. Ids
/// are u32 and wrap on corrupt input: the consumer checks them against n.
#[inline(always)]
pub(crate) fn decode_gaps<E: FnMut(usize, &[u32; 4]) -> bool>(
    data: &[u8],
    end: usize,
    at: usize,
    first: u32,
    gaps: usize,
    emit: E,
) -> GapsEnd {
    let Some(controls) = at
        .checked_add(gaps.div_ceil(4))
        .and_then(|stop| data[..end].get(at..stop))
    else {
        return GapsEnd::Corrupt;
    };
    let pos = at + controls.len();
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("ssse3") {
            // SAFETY: the CPU has SSSE3, checked just above.
            return unsafe { decode_groups_ssse3(data, end, pos, controls, first, emit) };
        }
    }
    decode_groups_scalar(data, end, pos, controls, first, emit)
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

/// The loop both decoders share: for each control byte, checks that its group's data bytes lie
/// within the list, has `group` turn the 16 bytes from the group's start into its four ids,
/// and hands them to `emit`.
#[inline(always)]
fn decode_groups<G, E>(
    data: &[u8],
    end: usize,
    mut pos: usize,
    controls: &[u8],
    mut group: G,
    mut emit: E,
) -> GapsEnd
where
    G: FnMut(&[u8; 16], u8) -> [u32; 4],
    E: FnMut(usize, &[u32; 4]) -> bool,
{
    let mut padded = [0u8; 16];
    for (index, &control) in controls.iter().enumerate() {
        let bytes = GROUP_BYTES[control as usize] as usize;
        if pos + bytes > end {
            return GapsEnd::Corrupt;
        }
        let ids = group(group_bytes_at(data, pos, &mut padded), control);
        pos += bytes;
        if !emit(index, &ids) {
            return GapsEnd::Stopped;
        }
    }
    GapsEnd::Done(pos)
}

/// Each group in one byte shuffle and a vector prefix sum.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn decode_groups_ssse3<E: FnMut(usize, &[u32; 4]) -> bool>(
    data: &[u8],
    end: usize,
    pos: usize,
    controls: &[u8],
    first: u32,
    emit: E,
) -> GapsEnd {
    use std::arch::x86_64::*;
    let ones = _mm_set1_epi32(1);
    let mut previous = _mm_set1_epi32(first as i32);
    let group = |bytes: &[u8; 16], control: u8| {
        // SAFETY: both loads read 16-byte arrays, the store writes one.
        unsafe {
            let loaded = _mm_loadu_si128(bytes.as_ptr() as *const __m128i);
            let mask = _mm_loadu_si128(SHUFFLES[control as usize].as_ptr() as *const __m128i);
            let mut x = _mm_add_epi32(_mm_shuffle_epi8(loaded, mask), ones);
            // Prefix sum of the four lanes, then add the previous id to each.
            x = _mm_add_epi32(x, _mm_slli_si128::<4>(x));
            x = _mm_add_epi32(x, _mm_slli_si128::<8>(x));
            x = _mm_add_epi32(x, previous);
            previous = _mm_shuffle_epi32::<0xff>(x);
            let mut ids = [0u32; 4];
            _mm_storeu_si128(ids.as_mut_ptr() as *mut __m128i, x);
            ids
        }
    };
    decode_groups(data, end, pos, controls, group, emit)
}

/// The portable decoder: the same groups, one gap at a time.
#[inline(always)]
fn decode_groups_scalar<E: FnMut(usize, &[u32; 4]) -> bool>(
    data: &[u8],
    end: usize,
    pos: usize,
    controls: &[u8],
    first: u32,
    emit: E,
) -> GapsEnd {
    let mut previous = first;
    let group = |bytes: &[u8; 16], control: u8| {
        let mut ids = [0u32; 4];
        let mut at = 0;
        for (lane, id) in ids.iter_mut().enumerate() {
            let len = CODE_BYTES[(control as usize >> (2 * lane)) & 3];
            let mut word = [0u8; 4];
            word[..len].copy_from_slice(&bytes[at..at + len]);
            at += len;
            previous = previous
                .wrapping_add(u32::from_le_bytes(word))
                .wrapping_add(1);
            *id = previous;
        }
        ids
    };
    decode_groups(data, end, pos, controls, group, emit)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A consumer that appends every group's lanes to `ids`.
    fn collect(ids: &mut Vec<u32>) -> impl FnMut(usize, &[u32; 4]) -> bool + '_ {
        move |group, lanes| {
            assert_eq!(ids.len(), 4 * group);
            ids.extend_from_slice(lanes);
            true
        }
    }

    fn round_trip(first: u32, gaps: &[u32]) -> Vec<u32> {
        let mut data = Vec::new();
        write_gaps(gaps.iter().copied(), gaps.len(), &mut data);
        assert_eq!(data.len(), gaps_len(gaps.iter().copied(), gaps.len()));
        let mut ids = vec![first];
        let mut vector = Vec::new();
        let end = decode_gaps(
            &data,
            data.len(),
            0,
            first,
            gaps.len(),
            collect(&mut vector),
        );
        assert!(matches!(end, GapsEnd::Done(e) if e == data.len()));
        ids.extend_from_slice(&vector);
        let mut scalar = Vec::new();
        let controls = &data[..gaps.len().div_ceil(4)];
        let scalar_end = decode_groups_scalar(
            &data,
            data.len(),
            controls.len(),
            controls,
            first,
            collect(&mut scalar),
        );
        assert!(matches!(scalar_end, GapsEnd::Done(e) if e == data.len()));
        assert_eq!(scalar, vector);
        assert_eq!(
            validate_gaps(&data, 0, first as u64, gaps.len(), u32::MAX as u64 + 1),
            Ok((data.len(), ids[gaps.len()] as u64))
        );
        ids[1..=gaps.len()].to_vec()
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
        let short = decode_gaps(&data, data.len() - 1, 0, 0, 2, |_, _| true);
        assert!(matches!(short, GapsEnd::Corrupt));
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
    }
}
