//! The fast decoders of Stream VByte lists, for x86-64 with AVX2 and BMI2: Σ values[u] over
//! each of a range of lists, the decoding and the sum in one loop (PageRank's pull), and a
//! walk over one list's ids that may stop at any of them (BFS).
//!
//! Decoding a block into ids and then handing them over from there (what
//! [`crate::ListVisitor`] and the general decoder do) cost more than twice a raw traversal on
//! the small web and social graphs, where the values stay in cache. Most of the difference
//! was work per list and per block, not per group: the branchy first varint, a loop for the
//! last partial group with its own exit, a first group decoded twice, and a bounds check per
//! group. Here each list is read from its own start; the first id's varint is read without a
//! branch; reads are not bounds-checked, as a list is taken only where it ends at least a
//! block's reach ([`BLOCK_READ`]) before the end of the codes (the rest go through the
//! general decoder); and ids are checked against n as they are decoded, or clamped below n
//! where they are only looked up (the sums and the bitmap search), so that no id at or above
//! n is ever used.
//!
//! The sum is the one the raw view computes: four lanes by list position mod 4 (a block holds
//! 64 positions, so a block's first id falls in lane 0 and group k's four ids in lanes 1, 2, 3,
//! 0), each lane added in list order, then (l0 + l1) + (l2 + l3). Every block's last group
//! goes through the same code whether it is full or not: its unused lanes read a 0.0 stored
//! after the values, which leaves a lane unchanged (x + 0.0 = x for every x but −0.0, and a
//! lane, which starts at +0.0, is never −0.0). There ids are clamped into range and their
//! maximum checked once per list, so that no branch depends on the data.

use std::ops::Range;

use super::{group_lanes, GROUP_BYTES};
use crate::decode::ByteCodeLists;
use crate::BLOCK_EDGES;

/// The most bytes decoding one block reads from its start: a five-byte varint, 16 control
/// bytes, and 16 bytes for each of 16 groups (each group is loaded 16 bytes at a time, at most
/// 16 bytes after the one before). A block that starts at least this far before the end of
/// the codes is decoded without a bounds check.
pub(crate) const BLOCK_READ: usize = 5 + 16 + 16 * 16;

/// Whether this CPU runs the fast decoders.
#[inline]
pub(crate) fn available() -> bool {
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
}

/// [`ByteCodeLists::sum_lists`] compiled for AVX2 and BMI2 (the three-operand encoding of
/// the SSE instructions saves the register copies the two-operand one needs), as is
/// [`walk_ids`].
#[target_feature(enable = "ssse3,sse4.1,avx,avx2,bmi1,bmi2")]
pub(crate) unsafe fn sum_lists_x86<E: FnMut(u32, f64)>(
    lists: &ByteCodeLists<'_>,
    vertices: Range<u32>,
    values: &[f64],
    emit: &mut E,
) -> u32 {
    use std::arch::x86_64::*;

    let codes = lists.bytes();
    let n = lists.num_vertices();
    let zero_slot = _mm_set1_epi32(n as i32);
    let lane_numbers = _mm_set_epi32(3, 2, 1, 0);
    // Blocks that start at or before this byte are read without bounds checks.
    let Some(unchecked_end) = codes.len().checked_sub(BLOCK_READ) else {
        return vertices.start;
    };
    for (v, degree, mut pos, list_end) in lists.lists_in(vertices.clone()) {
        let blocks = degree.div_ceil(BLOCK_EDGES);
        // Skip the block index: blocks follow one another.
        pos += 4 * blocks.saturating_sub(1);
        let mut lanes = [0.0f64; 4];
        // The largest id met in the list, before clamping; a first id out of range counts as
        // u32::MAX.
        let mut largest_met = _mm_setzero_si128();
        let mut largest_first = 0u32;
        let mut left = degree;
        while left > 0 {
            let len = left.min(BLOCK_EDGES);
            left -= len;
            if pos > unchecked_end {
                return v;
            }
            // SAFETY (every unchecked read below): the block starts at `pos` ≤ `unchecked_end`
            // and reads at most BLOCK_READ bytes from there; values are read at ids clamped to
            // n < values.len().
            let (code, after) = read_varint_unchecked(codes, pos);
            let first = v as i64 + crate::varint::unzigzag(code);
            let first = if (0..n as i64).contains(&first) {
                first as u32
            } else {
                u32::MAX
            };
            largest_first = largest_first.max(first);
            lanes[0] += *values.get_unchecked((first as usize).min(n));
            let gaps = len - 1;
            let groups = gaps.div_ceil(4);
            let controls = after;
            let mut data = after + groups;
            if groups > 0 {
                let mut previous = _mm_set1_epi32(first as i32);
                for k in 0..groups - 1 {
                    let control = *codes.get_unchecked(controls + k);
                    let ids = group_lanes(codes.as_ptr().add(data), control, &mut previous);
                    largest_met = _mm_max_epu32(largest_met, ids);
                    add_group(&mut lanes, ids, zero_slot, values);
                    data += GROUP_BYTES[control as usize] as usize;
                }
                // The last group, whose lanes from `used` on are not ids: they are left out of
                // the largest id and sent to the zero slot.
                let control = *codes.get_unchecked(controls + groups - 1);
                let ids = group_lanes(codes.as_ptr().add(data), control, &mut previous);
                let used = (gaps - 4 * (groups - 1)) as i32;
                let unused = _mm_cmpgt_epi32(lane_numbers, _mm_set1_epi32(used - 1));
                largest_met = _mm_max_epu32(largest_met, _mm_andnot_si128(unused, ids));
                add_group(&mut lanes, _mm_or_si128(ids, unused), zero_slot, values);
                data += GROUP_BYTES[control as usize] as usize;
            }
            pos = data;
        }
        // Every id below n: the largest met is at most n − 1 in every lane.
        let largest_lanes = _mm_set1_epi32((n - 1).min(u32::MAX as usize) as u32 as i32);
        if lanes_at_most(largest_met, largest_lanes) != 0xffff
            || largest_first as usize >= n
            || pos != list_end
        {
            // The general decoder takes the list again from its recorded start.
            return v;
        }
        emit(v, crate::lanes::lanes_total(lanes));
    }
    vertices.end
}

/// Calls `f` on the neighbours of `source`'s Stream VByte list `data[..end]` (`data` runs on
/// into the lists after it) from position `lo` (0 or 1) to its end, in order, until `f`
/// returns false; returns whether it went to the end. None, before calling `f`, when the
/// list ends within [`BLOCK_READ`] bytes of the end of `data`. On corrupt codes it stops
/// early, having handed over only ids below `n`: each group is checked to lie within the list
/// and to give ids below n before any of its ids is handed over.
///
/// # Safety
/// [`available`] is true.
#[target_feature(enable = "ssse3,sse4.1,avx,avx2,bmi1,bmi2")]
pub(crate) unsafe fn walk_ids<F: FnMut(u32) -> bool>(
    data: &[u8],
    end: usize,
    source: u32,
    degree: usize,
    n: u64,
    lo: usize,
    f: &mut F,
) -> Option<bool> {
    walk_list(data, end, source, degree, n, lo, &mut EachId(f))
}

/// [`walk_ids`] for each vertex `base + i` of the set bits `i` of `word`, in order, handing
/// `arc(v, u)` over for each neighbour `u` of `v`'s list until it returns false for that list:
/// a bottom-up BFS step's 64 vertices in one call. Returns the bits of the vertices it left
/// for the general decoder (lists within [`BLOCK_READ`] bytes of the end of the codes), and
/// how many arcs it handed over.
///
/// # Safety
/// [`available`] is true.
#[target_feature(enable = "ssse3,sse4.1,avx,avx2,bmi1,bmi2")]
pub(crate) unsafe fn walk_word<F: FnMut(u32, u32) -> bool>(
    lists: &ByteCodeLists<'_>,
    base: u32,
    word: u64,
    lo: usize,
    arc: &mut F,
) -> (u64, u64) {
    let n = lists.num_vertices() as u64;
    let mut offered = 0;
    let left = lists.for_each_list_of_word(base, word, lo, |v, list, degree| {
        let mut f = |u| {
            offered += 1;
            arc(v, u)
        };
        walk_list(list.data, list.end, v, degree, n, lo, &mut EachId(&mut f))
    });
    (left, offered)
}

/// For each vertex `v = base + i` of the set bits `i` of `word`, in order, the first id of
/// `v`'s list from position `lo` (0 or 1) whose bit is set in `bitmap` (n bits or more, as
/// u64 words), handed over as `found(v, u)`: a bottom-up BFS step's search for a parent in
/// the frontier. Returns the bits of the vertices it left for the general decoder (as
/// [`walk_word`]) and how many ids it looked at. On corrupt codes (which opening a store
/// rejects) it may hand over a vertex that is not a neighbour, but only one below n whose bit
/// is set, and at most one per list.
///
/// # Safety
/// [`available`] is true, and `bitmap` holds at least n bits.
#[target_feature(enable = "ssse3,sse4.1,avx,avx2,bmi1,bmi2")]
pub(crate) unsafe fn find_word_in_bitmap<F: FnMut(u32, u32)>(
    lists: &ByteCodeLists<'_>,
    base: u32,
    word: u64,
    lo: usize,
    bitmap: &[std::sync::atomic::AtomicU64],
    found: &mut F,
) -> (u64, u64) {
    let n = lists.num_vertices() as u64;
    debug_assert!(bitmap.len() as u64 * 64 >= n);
    let mut sink = FirstInBitmap {
        words: bitmap.as_ptr() as *const i32,
        largest: std::arch::x86_64::_mm_set1_epi32((n - 1).min(u32::MAX as u64) as u32 as i32),
        looked_at: 0,
        found: None,
    };
    let left = lists.for_each_list_of_word(base, word, lo, |v, list, degree| {
        let walked = walk_list(list.data, list.end, v, degree, n, lo, &mut sink);
        if let Some(u) = sink.found.take() {
            found(v, u);
        }
        walked
    });
    (left, sink.looked_at)
}

/// What a walk hands its ids to: one at a time (a block's first), or a group of four lanes of
/// which the first `used` are ids (the others are garbage). Each returns false to stop the
/// walk.
trait IdSink {
    /// Whether the walk must check each group before handing it over: that its ids are below
    /// n and its bytes within the list. A sink that clamps ids into range itself skips the
    /// checks, as nothing it does with an id can then read out of range; it may then be handed
    /// wrong ids, but only from codes that opening a store rejects (every list is decoded and
    /// checked then).
    const CHECKS_GROUPS: bool;
    fn one(&mut self, id: u32) -> bool;
    /// # Safety
    /// The CPU has AVX2.
    unsafe fn group(&mut self, ids: std::arch::x86_64::__m128i, used: usize) -> bool;
}

/// Hands each id to a closure, in order.
struct EachId<'f, F>(&'f mut F);

impl<F: FnMut(u32) -> bool> IdSink for EachId<'_, F> {
    // A closure may use an id as an index: each must be a neighbour, or at least below n.
    const CHECKS_GROUPS: bool = true;
    #[inline(always)]
    fn one(&mut self, id: u32) -> bool {
        (self.0)(id)
    }
    #[inline(always)]
    unsafe fn group(&mut self, ids: std::arch::x86_64::__m128i, used: usize) -> bool {
        use std::arch::x86_64::*;
        let ids = [
            _mm_extract_epi32::<0>(ids) as u32,
            _mm_extract_epi32::<1>(ids) as u32,
            _mm_extract_epi32::<2>(ids) as u32,
            _mm_extract_epi32::<3>(ids) as u32,
        ];
        if used == 4 {
            // The common case, unrolled without a check per lane.
            ids.into_iter().all(&mut *self.0)
        } else {
            ids[..used].iter().all(|&id| (self.0)(id))
        }
    }
}

/// Looks for the first id whose bit is set in a bitmap (`words`, read as 32-bit words: bit i
/// of a little-endian u64 word array is bit i % 32 of its 32-bit word i / 32), counting the
/// ids it looks at. A group's four bits are gathered at once (`vpgatherdd`): taking the ids out
/// of the vector to test them one by one took 17% longer in a scan of all of cnr-2000's lists
/// against a sparse bitmap on one core (6.0 against 5.1 ms; 3.7 ms on the raw lists, where a
/// gather does not help).
struct FirstInBitmap {
    words: *const i32,
    /// The largest id, in every lane: the unused lanes of a group are clamped to it, so that
    /// every gathered address lies within the bitmap.
    largest: std::arch::x86_64::__m128i,
    looked_at: u64,
    found: Option<u32>,
}

impl IdSink for FirstInBitmap {
    // Ids are clamped before the gather (and a hit hands the clamped id over), so they stay
    // below n. Checking each group took 13–14% of a search of every list of cnr-2000 and
    // ego-Twitter against a sparse bitmap (one core, 5.9 against 5.2 ms and 2.9 against 2.6).
    const CHECKS_GROUPS: bool = false;
    #[inline(always)]
    fn one(&mut self, id: u32) -> bool {
        self.looked_at += 1;
        // SAFETY: `id` is below n, and the bitmap has n bits.
        let word = unsafe { *self.words.add(id as usize / 32) } as u32;
        if word >> (id % 32) & 1 == 1 {
            self.found = Some(id);
            return false;
        }
        true
    }
    #[inline(always)]
    unsafe fn group(&mut self, ids: std::arch::x86_64::__m128i, used: usize) -> bool {
        use std::arch::x86_64::*;
        let ids = _mm_min_epu32(ids, self.largest);
        let words = _mm_i32gather_epi32::<4>(self.words, _mm_srli_epi32::<5>(ids));
        let ones = _mm_set1_epi32(1);
        let bits = _mm_and_si128(
            _mm_srlv_epi32(words, _mm_and_si128(ids, _mm_set1_epi32(31))),
            ones,
        );
        let hits = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(bits, ones))) as u32
            & ((1 << used) - 1);
        if hits == 0 {
            self.looked_at += used as u64;
            return true;
        }
        let lane = hits.trailing_zeros();
        self.looked_at += lane as u64 + 1;
        let lanes: [u32; 4] = std::mem::transmute(ids);
        self.found = Some(lanes[lane as usize]);
        false
    }
}

/// The body of [`walk_ids`], [`walk_word`] and [`find_word_in_bitmap`], inlined into them
/// (compiled for AVX2 and BMI2).
#[inline(always)]
unsafe fn walk_list<S: IdSink>(
    data: &[u8],
    end: usize,
    source: u32,
    degree: usize,
    n: u64,
    lo: usize,
    sink: &mut S,
) -> Option<bool> {
    use std::arch::x86_64::*;

    debug_assert!(lo <= 1 && n >= 1);
    if end.checked_add(BLOCK_READ)? > data.len() {
        return None;
    }
    // Ids are u32: with n = 2^32 every one is in range.
    let largest = (n - 1).min(u32::MAX as u64) as u32;
    let largest_lanes = _mm_set1_epi32(largest as i32);
    let blocks = degree.div_ceil(BLOCK_EDGES);
    let mut pos = 4 * blocks.saturating_sub(1);
    let mut left = degree;
    let mut skip_first = lo == 1;
    while left > 0 {
        let len = left.min(BLOCK_EDGES);
        left -= len;
        // SAFETY (every unchecked read below): the block starts at `pos` ≤ `end`, at least
        // BLOCK_READ bytes before the end of `data`, and reads at most BLOCK_READ bytes.
        if pos > end {
            return Some(true);
        }
        let (code, after) = read_varint_unchecked(data, pos);
        let first = source as i64 + crate::varint::unzigzag(code);
        if !(0..n as i64).contains(&first) {
            return Some(true);
        }
        let first = first as u32;
        if !std::mem::take(&mut skip_first) && !sink.one(first) {
            return Some(false);
        }
        let gaps = len - 1;
        let groups = gaps.div_ceil(4);
        let controls = after;
        let mut at = after + groups;
        let mut previous = _mm_set1_epi32(first as i32);
        // Every group but the last holds four ids; the last, gaps - 4·(groups - 1).
        for k in 0..groups {
            let used = if k + 1 < groups {
                4
            } else {
                gaps - 4 * (groups - 1)
            };
            let control = *data.get_unchecked(controls + k);
            let ids = group_lanes(data.as_ptr().add(at), control, &mut previous);
            at += GROUP_BYTES[control as usize] as usize;
            // The lanes that hold ids must be in range: four bits of the byte mask per lane.
            // Without the check, a group that runs past the list's end still reads within
            // BLOCK_READ bytes of its block's start, and the next block's start is checked.
            let wanted = (1u32 << (4 * used)) - 1;
            if S::CHECKS_GROUPS
                && (at > end || lanes_at_most(ids, largest_lanes) & wanted != wanted)
            {
                return Some(true);
            }
            if !sink.group(ids, used) {
                return Some(false);
            }
        }
        pos = at;
    }
    Some(true)
}

/// The byte mask (four bits a lane, as `_mm_movemask_epi8` gives) of the lanes of `ids` at
/// most `largest` (in every lane), compared unsigned.
///
/// # Safety
/// The CPU has SSE4.1.
#[inline(always)]
unsafe fn lanes_at_most(
    ids: std::arch::x86_64::__m128i,
    largest: std::arch::x86_64::__m128i,
) -> u32 {
    use std::arch::x86_64::*;
    _mm_movemask_epi8(_mm_cmpeq_epi32(_mm_max_epu32(ids, largest), largest)) as u32
}

/// Adds the values at a group's ids to `lanes`: its lanes 0, 1, 2, 3 hold list positions 1, 2,
/// 3, 0 mod 4. Ids are clamped to `zero_slot` (n in every lane) first, where `values` holds
/// 0.0, so that corrupt codes read no value out of range and the unused lanes of a block's
/// last group (set to all ones by the caller) add 0.0.
///
/// # Safety
/// The CPU has SSE4.1, and `values` has n + 1 values.
#[inline(always)]
unsafe fn add_group(
    lanes: &mut [f64; 4],
    ids: std::arch::x86_64::__m128i,
    zero_slot: std::arch::x86_64::__m128i,
    values: &[f64],
) {
    use std::arch::x86_64::*;
    let ids = _mm_min_epu32(ids, zero_slot);
    let value = |id: i32| *values.get_unchecked(id as u32 as usize);
    lanes[1] += value(_mm_extract_epi32::<0>(ids));
    lanes[2] += value(_mm_extract_epi32::<1>(ids));
    lanes[3] += value(_mm_extract_epi32::<2>(ids));
    lanes[0] += value(_mm_extract_epi32::<3>(ids));
}

/// The varint at `codes[pos..]`, without a branch on its length: eight bytes loaded at once,
/// the length found from their stop bits and the seven-bit digits gathered by one `pext`. A
/// code without a stop bit in its first five bytes (corrupt) is read as five bytes. The caller
/// guarantees eight readable bytes at `pos`.
#[target_feature(enable = "bmi1,bmi2")]
#[inline]
unsafe fn read_varint_unchecked(codes: &[u8], pos: usize) -> (u64, usize) {
    use std::arch::x86_64::{_bzhi_u64, _pext_u64};
    let word = u64::from_le_bytes(codes.as_ptr().add(pos).cast::<[u8; 8]>().read_unaligned());
    let stops = !word & 0x0000_0080_8080_8080;
    let len = ((stops.trailing_zeros() as usize >> 3) + 1).min(crate::varint::MAX_VARINT_BYTES);
    let digits = _pext_u64(word, 0x0000_007f_7f7f_7f7f);
    (_bzhi_u64(digits, 7 * len as u32), pos + len)
}
