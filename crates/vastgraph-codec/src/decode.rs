//! Decoding: the read-only view of a direction's encoded lists, its bounds-checked hot
//! decoder, and the full validation pass.

use std::ops::Range;

use crate::varint::{read_varint, unzigzag};
use crate::{CodecError, BLOCK_EDGES};

/// One direction's encoded adjacency, borrowed (usually from memory-mapped store files):
/// CSR edge offsets (n+1; they give degrees), byte offsets (n+1; where each list's code
/// starts in `bytes`), and the codes themselves.
#[derive(Clone, Copy, Debug)]
pub struct ByteCodeLists<'a> {
    offsets: &'a [u64],
    byte_offsets: &'a [u64],
    bytes: &'a [u8],
}

/// Bytes of the block index of a list of `degree` neighbours.
#[inline]
fn index_bytes(degree: usize) -> usize {
    4 * degree.div_ceil(BLOCK_EDGES).saturating_sub(1)
}

#[inline]
fn read_u32(data: &[u8], at: usize) -> Option<u32> {
    let word = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
}

/// How decoding one block ended.
enum BlockEnd {
    /// Every requested neighbour was handed over.
    Done,
    /// The callback asked to stop.
    Stopped,
    /// The codes are truncated, overlong, or give an id at or above n.
    Corrupt,
}

/// Decodes the `count` neighbours of one block of `source`'s list from `data[*pos..]`,
/// handing those at block positions `skip..count` to `f`. Every id handed over is below `n`.
#[inline(always)]
fn decode_block<F: FnMut(u32) -> bool>(
    data: &[u8],
    pos: &mut usize,
    source: u32,
    n: u64,
    count: usize,
    skip: usize,
    f: &mut F,
) -> BlockEnd {
    // The position stays in a register: read_varint takes and returns it by value.
    let Some((code, mut at)) = read_varint(data, *pos) else {
        return BlockEnd::Corrupt;
    };
    // |difference| < 2^34 and source < 2^32: no overflow in i64.
    let first = source as i64 + unzigzag(code);
    if first < 0 || first as u64 >= n {
        return BlockEnd::Corrupt;
    }
    let mut id = first as u64;
    if skip == 0 && !f(id as u32) {
        return BlockEnd::Stopped;
    }
    for i in 1..count {
        let Some((gap, after)) = read_varint(data, at) else {
            return BlockEnd::Corrupt;
        };
        at = after;
        // gap < 2^35 and id < 2^32: no overflow in u64.
        id += gap + 1;
        if id >= n {
            return BlockEnd::Corrupt;
        }
        if i >= skip && !f(id as u32) {
            return BlockEnd::Stopped;
        }
    }
    *pos = at;
    BlockEnd::Done
}

/// Calls `f` on the neighbours at list positions `lo..hi` (clamped to `degree`) of the list
/// of `source` encoded in `data` (exactly that list's bytes), in increasing order, until `f`
/// returns false; returns false if it did. Jumps straight to the block holding position `lo`.
/// On corrupt codes it stops early, having handed over only ids below `n`.
#[inline]
pub fn decode_list<F: FnMut(u32) -> bool>(
    data: &[u8],
    source: u32,
    degree: usize,
    n: u64,
    lo: usize,
    hi: usize,
    mut f: F,
) -> bool {
    let hi = hi.min(degree);
    if lo >= hi {
        return true;
    }
    let first_block = lo / BLOCK_EDGES;
    let mut pos = if first_block == 0 {
        index_bytes(degree)
    } else {
        match read_u32(data, 4 * (first_block - 1)) {
            Some(at) => at as usize,
            None => return true,
        }
    };
    let mut block_start = first_block * BLOCK_EDGES;
    let mut skip = lo - block_start;
    // Blocks are contiguous: each one ends where the next begins, so after the first jump
    // the index is not read again.
    while block_start < hi {
        let count = (hi - block_start).min(BLOCK_EDGES);
        match decode_block(data, &mut pos, source, n, count, skip, &mut f) {
            BlockEnd::Done => {}
            BlockEnd::Stopped => return false,
            BlockEnd::Corrupt => return true,
        }
        skip = 0;
        block_start += BLOCK_EDGES;
    }
    true
}

/// Decodes the list of `source` in `data` completely and checks that `data` is exactly a
/// valid encoding of a strictly increasing list of `degree` ids below `n`: a block index that
/// points at each block, no truncated or overlong code, nothing left over. The error says what
/// is wrong and where.
pub fn validate_list(data: &[u8], source: u32, degree: usize, n: u64) -> Result<(), String> {
    if degree == 0 {
        if !data.is_empty() {
            return Err(format!("degree 0, but {} bytes of codes", data.len()));
        }
        return Ok(());
    }
    let index = index_bytes(degree);
    if index > data.len() {
        return Err(format!(
            "the block index of a degree-{degree} list takes {index} bytes, but the list has {}",
            data.len()
        ));
    }
    let mut pos = index;
    let mut previous: Option<u64> = None;
    for (block, block_start) in (0..degree).step_by(BLOCK_EDGES).enumerate() {
        if block > 0 {
            let recorded = read_u32(data, 4 * (block - 1)).unwrap_or(u32::MAX);
            if recorded as usize != pos {
                return Err(format!(
                    "the index puts block {block} at byte {recorded}, but block {} ends at byte {pos}",
                    block - 1
                ));
            }
        }
        let count = (degree - block_start).min(BLOCK_EDGES);
        for i in 0..count {
            let (code, after) = read_varint(data, pos).ok_or_else(|| {
                format!(
                    "block {block}: truncated or overlong code at byte {pos} of {}",
                    data.len()
                )
            })?;
            pos = after;
            // Codes are below 2^35 and ids below 2^32: no overflow in i64.
            let id = match previous {
                Some(p) if i > 0 => (p + code + 1) as i64,
                _ => source as i64 + unzigzag(code),
            };
            if id < 0 || id as u64 >= n {
                return Err(format!("block {block}: neighbour {id} is not in 0..{n}"));
            }
            let id = id as u64;
            if let Some(p) = previous.filter(|&p| id <= p) {
                return Err(format!(
                    "block {block}: neighbour {id} follows {p} (lists must be strictly increasing)"
                ));
            }
            previous = Some(id);
        }
    }
    if pos != data.len() {
        return Err(format!(
            "{} bytes left over after the last block",
            data.len() - pos
        ));
    }
    Ok(())
}

impl<'a> ByteCodeLists<'a> {
    /// Checks what is O(1) to check: the arrays' lengths and first and last byte offsets.
    /// Whatever else is wrong cannot make the decoder misbehave; [`Self::validate_vertex`]
    /// finds it.
    pub fn new(
        offsets: &'a [u64],
        byte_offsets: &'a [u64],
        bytes: &'a [u8],
    ) -> Result<Self, CodecError> {
        if offsets.is_empty() {
            return Err(CodecError::Layout(
                "edge offsets hold n+1 entries, got none".into(),
            ));
        }
        if byte_offsets.len() != offsets.len() {
            return Err(CodecError::Layout(format!(
                "{} byte offsets for {} edge offsets (both hold n+1 entries)",
                byte_offsets.len(),
                offsets.len()
            )));
        }
        if offsets.len() - 1 > u32::MAX as usize {
            return Err(CodecError::Layout(format!(
                "{} vertices do not have 32-bit ids",
                offsets.len() - 1
            )));
        }
        let (first, last) = (byte_offsets[0], byte_offsets[byte_offsets.len() - 1]);
        if first != 0 || last != bytes.len() as u64 {
            return Err(CodecError::Layout(format!(
                "byte offsets run from {first} to {last}, but the codes are {} bytes",
                bytes.len()
            )));
        }
        Ok(ByteCodeLists {
            offsets,
            byte_offsets,
            bytes,
        })
    }

    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn num_arcs(&self) -> u64 {
        self.offsets[self.offsets.len() - 1]
    }

    pub fn offsets(&self) -> &'a [u64] {
        self.offsets
    }

    pub fn byte_offsets(&self) -> &'a [u64] {
        self.byte_offsets
    }

    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    #[inline]
    pub fn degree(&self, v: u32) -> usize {
        let v = v as usize;
        self.offsets[v + 1].saturating_sub(self.offsets[v]) as usize
    }

    /// The codes of `v`'s list; empty when its byte offsets are out of order or out of range.
    #[inline]
    fn list_bytes(&self, v: usize) -> &'a [u8] {
        let (start, end) = (self.byte_offsets[v], self.byte_offsets[v + 1]);
        self.bytes.get(start as usize..end as usize).unwrap_or(&[])
    }

    /// [`decode_list`] on `v`'s list: its neighbours at positions `lo..hi`, until `f` returns
    /// false.
    #[inline]
    pub fn for_each_in<F: FnMut(u32) -> bool>(&self, v: u32, lo: usize, hi: usize, f: F) -> bool {
        let data = self.list_bytes(v as usize);
        let n = self.num_vertices() as u64;
        decode_list(data, v, self.degree(v), n, lo, hi, f)
    }

    /// Calls `f` on every neighbour of `v`, in increasing order.
    #[inline]
    pub fn for_each<F: FnMut(u32)>(&self, v: u32, mut f: F) {
        self.for_each_in(v, 0, usize::MAX, |w| {
            f(w);
            true
        });
    }

    /// Appends `v`'s neighbours to `out`.
    pub fn decode_into(&self, v: u32, out: &mut Vec<u32>) {
        out.reserve(self.degree(v));
        self.for_each(v, |w| out.push(w));
    }

    /// Checks `v`'s byte and edge offsets, then [`validate_list`] on its codes.
    pub fn validate_vertex(&self, v: u32) -> Result<(), CodecError> {
        let vertex = v as usize;
        let corrupt = |reason: String| CodecError::Corrupt {
            vertex: v as u64,
            reason,
        };
        let (start, end) = (self.byte_offsets[vertex], self.byte_offsets[vertex + 1]);
        if start > end || end > self.bytes.len() as u64 {
            return Err(corrupt(format!(
                "byte offsets {start}..{end} do not lie in order within the {} bytes of codes",
                self.bytes.len()
            )));
        }
        let (lo, hi) = (self.offsets[vertex], self.offsets[vertex + 1]);
        if lo > hi {
            return Err(corrupt(format!("edge offsets {lo}..{hi} are out of order")));
        }
        let data = &self.bytes[start as usize..end as usize];
        validate_list(data, v, (hi - lo) as usize, self.num_vertices() as u64).map_err(corrupt)
    }

    /// [`Self::validate_vertex`] for every vertex in `vertices`, stopping at the first error.
    pub fn validate_vertices(&self, vertices: Range<usize>) -> Result<(), CodecError> {
        vertices
            .into_iter()
            .try_for_each(|v| self.validate_vertex(v as u32))
    }
}
