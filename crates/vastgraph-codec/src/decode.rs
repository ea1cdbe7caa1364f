//! Decoding: the read-only view of a direction's encoded lists, its bounds-checked hot
//! decoder, and the full validation pass.

use std::ops::Range;

#[cfg(target_arch = "x86_64")]
use crate::stream_vbyte::Ssse3;
use crate::stream_vbyte::{self, BlockIds, GapsEnd, GroupDecoder, Scalar};
use crate::varint::{read_varint, unzigzag};
use crate::{frame, CodecError, ListCodec, ListVisitor, BLOCK_EDGES};

/// One direction's encoded adjacency, borrowed (usually from memory-mapped store files):
/// the codec, CSR edge offsets (n+1; they give degrees), byte offsets (n+1; where each list's
/// code starts in `bytes`), and the codes themselves.
#[derive(Clone, Copy, Debug)]
pub struct ByteCodeLists<'a> {
    codec: ListCodec,
    offsets: &'a [u64],
    byte_offsets: &'a [u64],
    bytes: &'a [u8],
}

/// One adjacency list as the decoders read it: its vertex, its length, the graph's vertex count
/// (every id must be below it), and the positions `lo..hi` of the neighbours wanted (`hi` is
/// clamped to `degree`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListSpan {
    /// The list's vertex: each block's first neighbour is coded relative to it.
    pub source: u32,
    /// The number of neighbours in the list.
    pub degree: usize,
    /// The graph's number of vertices: no id handed over is at or above it.
    pub n: u64,
    /// The first list position wanted.
    pub lo: usize,
    /// The list position after the last one wanted (clamped to `degree`).
    pub hi: usize,
}

impl ListSpan {
    /// All of the list of `source`, of `degree` neighbours below `n`: positions `0..degree`.
    #[inline]
    pub fn whole(source: u32, degree: usize, n: u64) -> Self {
        ListSpan {
            source,
            degree,
            n,
            lo: 0,
            hi: degree,
        }
    }
}

/// Bytes of the block index of a list of `degree` neighbours.
#[inline]
pub(crate) fn index_bytes(degree: usize) -> usize {
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

/// The first neighbour of the block at `codes[at..]` (a varint relative to `source`) and where
/// its code ends; None when the code is truncated or overlong or the id is not below `n`.
#[inline(always)]
fn block_first(codes: &[u8], at: usize, source: u32, n: u64) -> Option<(u32, usize)> {
    let (code, after) = read_varint(codes, at)?;
    // |difference| < 2^34 and source < 2^32: no overflow in i64.
    let first = source as i64 + unzigzag(code);
    (first >= 0 && (first as u64) < n).then_some((first as u32, after))
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
    let Some((first, mut at)) = block_first(data, *pos, source, n) else {
        return BlockEnd::Corrupt;
    };
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

/// Calls `f` on the neighbours at list positions `span.lo..span.hi` (clamped to `span.degree`)
/// of the list of `span.source` encoded by `codec` in `data` (exactly that list's bytes), in
/// increasing order, until `f` returns false; returns false if it did. Jumps straight to the
/// block holding position `span.lo`. On corrupt codes it stops early, having handed over only
/// ids below `span.n`.
#[inline]
pub fn decode_list<F: FnMut(u32) -> bool>(
    codec: ListCodec,
    data: &[u8],
    span: ListSpan,
    f: F,
) -> bool {
    decode_ids(codec, ListBytes::whole(data), span, f)
}

/// [`decode_list`] a block at a time: calls `f` on consecutive slices of at most
/// [`BLOCK_EDGES`] ids (one per block) that together are the neighbours at positions
/// `span.lo..span.hi`, in increasing order, until `f` returns false; returns false if it did.
/// Each block is decoded whole before `f` sees it, so the decoding loop and the consumer's
/// loop run apart and neither stalls the other: a consumer of every neighbour, such as a sum,
/// gains; one that stops at the first few is better served by [`decode_list`]. On corrupt
/// codes it stops early, having handed over only ids below `span.n`.
#[inline]
pub fn decode_list_blocks<F: FnMut(&[u32]) -> bool>(
    codec: ListCodec,
    data: &[u8],
    span: ListSpan,
    f: F,
) -> bool {
    decode_blocks(codec, ListBytes::whole(data), span, f)
}

/// The part of a block a caller wants: the block holds `len` neighbours, of which the first
/// `count` must be decoded and those from `skip` on handed over.
#[derive(Clone, Copy)]
struct BlockSpan {
    len: usize,
    count: usize,
    skip: usize,
}

/// One list's codes, `data[..end]`, where `data` may run on into the lists after it: a
/// decoder that reads several bytes at once may read past `end` without stepping out of
/// `data`, but uses no byte there.
#[derive(Clone, Copy)]
pub(crate) struct ListBytes<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) end: usize,
}

impl<'a> ListBytes<'a> {
    /// A list's bytes with nothing after them.
    #[inline]
    fn whole(data: &'a [u8]) -> Self {
        ListBytes {
            data,
            end: data.len(),
        }
    }

    #[inline]
    fn codes(&self) -> &'a [u8] {
        &self.data[..self.end]
    }
}

#[inline(always)]
fn decode_ids<F: FnMut(u32) -> bool>(
    codec: ListCodec,
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
    // A walk from the first or second neighbour to the end takes the unchecked loop where the
    // list lies far enough from the end of the codes.
    if codec == ListCodec::FrameOfReference && lo <= 1 && hi >= degree && degree > lo {
        let walked = frame::walk_list(
            list.data,
            list.end,
            source,
            degree,
            n,
            lo,
            &mut frame::EachId(&mut f),
        );
        if let Some((finished, _)) = walked {
            return finished;
        }
    }
    #[cfg(target_arch = "x86_64")]
    if codec == ListCodec::StreamVByte {
        // A walk from the first or second neighbour to the end (BFS, and every visit of a
        // whole list) takes the fast decoder where the list lies far enough from the end of
        // the codes.
        if lo <= 1 && hi >= degree && degree > lo && crate::fast::available() {
            // SAFETY: the CPU has what the fast decoder is compiled for.
            if let Some(finished) =
                unsafe { crate::fast::walk_ids(list.data, list.end, source, degree, n, lo, &mut f) }
            {
                return finished;
            }
        }
        if let Some(ssse3) = Ssse3::detect() {
            // SAFETY: `ssse3` exists only where the CPU has SSSE3.
            return unsafe { decode_ids_ssse3(ssse3, list, span, f) };
        }
    }
    decode_ids_with(Scalar, codec, list, span, f)
}

/// [`decode_ids`] of Stream VByte codes compiled for SSSE3, the consumer inlined.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn decode_ids_ssse3<F: FnMut(u32) -> bool>(
    ssse3: Ssse3,
    list: ListBytes<'_>,
    span: ListSpan,
    f: F,
) -> bool {
    decode_ids_with(ssse3, ListCodec::StreamVByte, list, span, f)
}

/// [`decode_ids`] with `decoder` for Stream VByte's groups.
#[inline(always)]
fn decode_ids_with<D: GroupDecoder, F: FnMut(u32) -> bool>(
    decoder: D,
    codec: ListCodec,
    list: ListBytes<'_>,
    list_span: ListSpan,
    mut f: F,
) -> bool {
    let ListSpan {
        source,
        degree,
        n,
        lo,
        hi,
    } = list_span;
    let codes = list.codes();
    match codec {
        ListCodec::Varint => walk_blocks(codes, degree, lo, hi, |pos, span| {
            decode_block(codes, pos, source, n, span.count, span.skip, &mut f)
        }),
        // Each id stands on its own, so the walk starts right at position `skip`.
        ListCodec::FrameOfReference => walk_blocks(codes, degree, lo, hi, |pos, span| {
            let Some(block) = frame::Block::read(codes, *pos, source, n, span.len) else {
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
        }),
        // The first group of four gaps a group at a time, so that a consumer that stops at
        // its first few neighbours (a bottom-up BFS step on a skewed graph stops at its
        // first parent, mostly the first or second neighbour) decodes no more than it reads.
        // One that reads on gets the rest of the block decoded whole and handed over from a
        // slice, as `decode_blocks` does: a step that scans whole lists (bottom-up BFS on a
        // web graph) decodes them faster that way: 8% on cnr-2000. (The whole block's decoder
        // starts again from the block's first id, decoding the first group twice: one group,
        // against a second decoder that would start mid-block.) The closure must be
        // inlined: compiled on its own it loses the SSSE3 target feature and calls every
        // intrinsic (BFS on cnr-2000 then took 1.8 times as long).
        ListCodec::StreamVByte => {
            let mut ids = BlockIds::new();
            walk_blocks(
                codes,
                degree,
                lo,
                hi,
                #[inline(always)]
                |pos, span| {
                    let Some((first, at)) = block_first(codes, *pos, source, n) else {
                        return BlockEnd::Corrupt;
                    };
                    if span.skip == 0 && !f(first) {
                        return BlockEnd::Stopped;
                    }
                    let lazy_end = span.count.min(1 + 4);
                    // Why the consumer closure stopped the decoder, if it did.
                    let (mut corrupt, mut stopped) = (false, false);
                    let gaps = stream_vbyte::decode_gaps(
                        decoder,
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
                    let Some(end) =
                        decode_whole_block(decoder, codec, list, *pos, list_span, span, &mut ids)
                    else {
                        return BlockEnd::Corrupt;
                    };
                    *pos = end;
                    for &w in &ids.ids()[span.skip.max(lazy_end)..span.count] {
                        if !f(w) {
                            return BlockEnd::Stopped;
                        }
                    }
                    BlockEnd::Done
                },
            )
        }
    }
}

#[inline(always)]
fn decode_blocks<F: FnMut(&[u32]) -> bool>(
    codec: ListCodec,
    list: ListBytes<'_>,
    span: ListSpan,
    f: F,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if codec == ListCodec::StreamVByte {
        if let Some(ssse3) = Ssse3::detect() {
            // SAFETY: `ssse3` exists only where the CPU has SSSE3.
            return unsafe { decode_blocks_ssse3(ssse3, list, span, f) };
        }
    }
    decode_blocks_with(Scalar, codec, list, span, f)
}

/// [`decode_blocks`] of Stream VByte codes compiled for SSSE3, the consumer inlined.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn decode_blocks_ssse3<F: FnMut(&[u32]) -> bool>(
    ssse3: Ssse3,
    list: ListBytes<'_>,
    span: ListSpan,
    f: F,
) -> bool {
    decode_blocks_with(ssse3, ListCodec::StreamVByte, list, span, f)
}

/// [`decode_blocks`] with `decoder` for Stream VByte's groups.
#[inline(always)]
fn decode_blocks_with<D: GroupDecoder, F: FnMut(&[u32]) -> bool>(
    decoder: D,
    codec: ListCodec,
    list: ListBytes<'_>,
    list_span: ListSpan,
    mut f: F,
) -> bool {
    let ListSpan { degree, lo, hi, .. } = list_span;
    let mut ids = BlockIds::new();
    walk_blocks(list.codes(), degree, lo, hi, |pos, span| {
        match decode_whole_block(decoder, codec, list, *pos, list_span, span, &mut ids) {
            Some(end) => *pos = end,
            None => return BlockEnd::Corrupt,
        }
        if f(&ids.ids()[span.skip..span.count]) {
            BlockEnd::Done
        } else {
            BlockEnd::Stopped
        }
    })
}

/// [`ByteCodeLists::visit_lists`] compiled for SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn visit_lists_ssse3<V: ListVisitor>(
    ssse3: Ssse3,
    lists: &ByteCodeLists<'_>,
    vertices: Range<u32>,
    visitor: &mut V,
) {
    visit_lists_with(ssse3, lists, vertices, visitor)
}

/// [`ByteCodeLists::visit_lists`] with `decoder` for Stream VByte's groups.
///
/// Lists are decoded into a batch of about [`BATCH_IDS`] ids, each block prefetched by the
/// visitor as it is decoded; only then are the batch's lists handed over. Handing each block
/// over as soon as it is decoded left the decoder's instructions queued behind the visitor's
/// cache misses on the block before, so misses and decoding took turns.
#[inline(always)]
fn visit_lists_with<D: GroupDecoder, V: ListVisitor>(
    decoder: D,
    lists: &ByteCodeLists<'_>,
    vertices: Range<u32>,
    visitor: &mut V,
) {
    let n = lists.num_vertices() as u64;
    if !visitor.wants_prefetch() {
        for v in vertices {
            let list = lists.list_bytes(v as usize);
            let span = ListSpan::whole(v, lists.degree(v), n);
            decode_blocks_with(decoder, lists.codec, list, span, |ids| {
                visitor.block(ids);
                true
            });
            visitor.end_list(v);
        }
        return;
    }
    let mut batch = Batch::new();
    for v in vertices {
        let list = lists.list_bytes(v as usize);
        let span = ListSpan::whole(v, lists.degree(v), n);
        decode_blocks_with(decoder, lists.codec, list, span, |ids| {
            visitor.prefetch(ids);
            if !batch.push(ids) {
                batch.hand_over(visitor);
                batch.push(ids);
            }
            true
        });
        if !batch.end_list(v) {
            batch.hand_over(visitor);
            batch.end_list(v);
        }
    }
    batch.hand_over(visitor);
}

/// Ids decoded ahead of the visitor in [`visit_lists_with`].
const BATCH_IDS: usize = 512;
/// Lists ended in one batch at most.
const BATCH_LISTS: usize = 128;

struct Batch {
    ids: [std::mem::MaybeUninit<u32>; BATCH_IDS],
    len: usize,
    /// (end of the list's ids in `ids`, the vertex) of the lists that ended in the batch.
    ends: [(u32, u32); BATCH_LISTS],
    lists: usize,
}

impl Batch {
    #[inline(always)]
    fn new() -> Self {
        Batch {
            ids: [const { std::mem::MaybeUninit::uninit() }; BATCH_IDS],
            len: 0,
            ends: [(0, 0); BATCH_LISTS],
            lists: 0,
        }
    }

    /// Appends a block; false, appending nothing, when it does not fit.
    #[inline(always)]
    fn push(&mut self, block: &[u32]) -> bool {
        let Some(slots) = self.ids.get_mut(self.len..self.len + block.len()) else {
            return false;
        };
        for (slot, &id) in slots.iter_mut().zip(block) {
            slot.write(id);
        }
        self.len += block.len();
        true
    }

    /// Records that `v`'s list ended; false when the batch holds as many lists as it can.
    #[inline(always)]
    fn end_list(&mut self, v: u32) -> bool {
        let Some(end) = self.ends.get_mut(self.lists) else {
            return false;
        };
        *end = (self.len as u32, v);
        self.lists += 1;
        true
    }

    /// Hands the batch's lists to `visitor` and empties it. The ids after the last ended list
    /// (the start of a list that goes on in the next batch) go over as a block of their own;
    /// as a batch is cut only between blocks, every block but a list's last still holds a
    /// whole number of blocks of the store.
    #[inline(always)]
    fn hand_over<V: ListVisitor>(&mut self, visitor: &mut V) {
        // SAFETY: slots `..len` were written by `push`, and MaybeUninit<u32> has the layout
        // of u32.
        let ids = unsafe {
            &*(&self.ids[..self.len] as *const [std::mem::MaybeUninit<u32>] as *const [u32])
        };
        let mut start = 0;
        for &(end, v) in &self.ends[..self.lists] {
            let end = end as usize;
            if end > start {
                visitor.block(&ids[start..end]);
            }
            visitor.end_list(v);
            start = end;
        }
        if self.len > start {
            visitor.block(&ids[start..]);
        }
        self.len = 0;
        self.lists = 0;
    }
}

/// Runs `block(pos, span)` on each block that holds list positions `lo..hi` (clamped to
/// `degree`) of the list `codes`, in order: `pos` is where the block starts (and is left where
/// it ends, when the whole block is decoded). Jumps straight to the block holding position
/// `lo`. Returns false if a block was stopped.
#[inline(always)]
fn walk_blocks<B: FnMut(&mut usize, BlockSpan) -> BlockEnd>(
    codes: &[u8],
    degree: usize,
    lo: usize,
    hi: usize,
    mut block: B,
) -> bool {
    let hi = hi.min(degree);
    if lo >= hi {
        return true;
    }
    let first_block = lo / BLOCK_EDGES;
    let mut pos = if first_block == 0 {
        index_bytes(degree)
    } else {
        match read_u32(codes, 4 * (first_block - 1)) {
            Some(at) => at as usize,
            None => return true,
        }
    };
    let mut block_start = first_block * BLOCK_EDGES;
    let mut skip = lo - block_start;
    // Blocks are contiguous: each one ends where the next begins, so after the first jump
    // the index is not read again.
    while block_start < hi {
        let span = BlockSpan {
            len: (degree - block_start).min(BLOCK_EDGES),
            count: (hi - block_start).min(BLOCK_EDGES),
            skip,
        };
        match block(&mut pos, span) {
            BlockEnd::Done => {}
            BlockEnd::Stopped => return false,
            BlockEnd::Corrupt => return true,
        }
        skip = 0;
        block_start += BLOCK_EDGES;
    }
    true
}

/// Decodes at least the first `span.count` neighbours of the block of `list_span.source`'s
/// list that starts at byte `at` into `ids` and returns where they end. (Varints decode just
/// those; Stream VByte decodes the whole block, as its data starts after all its control
/// bytes.) With no callback between two codes and one check of the ids per block instead of
/// one per id, the loop is as short as it gets. None when the codes are truncated or
/// overlong, or give an id at or above `list_span.n`: then `ids` holds garbage that must not
/// be handed over.
#[inline(always)]
fn decode_whole_block<D: GroupDecoder>(
    decoder: D,
    codec: ListCodec,
    list: ListBytes<'_>,
    at: usize,
    list_span: ListSpan,
    span: BlockSpan,
    ids: &mut BlockIds,
) -> Option<usize> {
    let ListSpan { source, n, .. } = list_span;
    let codes = list.codes();
    if codec == ListCodec::FrameOfReference {
        let block = frame::Block::read(codes, at, source, n, span.len)?;
        return block
            .decode_into(list.data, span.count, n, ids)
            .then_some(block.end);
    }
    let (first, mut at) = block_first(codes, at, source, n)?;
    match codec {
        ListCodec::Varint => {
            ids.start(first);
            // Ids only grow within a block and each step adds less than 2^35 + 1, so the u64
            // sum of at most 64 steps never overflows, and checking the last id against n
            // checks them all.
            let mut id = first as u64;
            ids.fill(span.count, || {
                let (gap, after) = read_varint(codes, at)?;
                at = after;
                id += gap + 1;
                Some(id as u32)
            })?;
            (id < n).then_some(at)
        }
        ListCodec::StreamVByte => {
            stream_vbyte::decode_block_gaps(decoder, list, at, first, span.len - 1, n, ids)
        }
        ListCodec::FrameOfReference => unreachable!("decoded above"),
    }
}

/// Decodes the list of `source` in `data` completely and checks that `data` is exactly a
/// valid encoding by `codec` of a strictly increasing list of `degree` ids below `n`: a block
/// index that points at each block, no truncated or overlong code, nothing left over. The
/// error says what is wrong and where.
pub fn validate_list(
    codec: ListCodec,
    data: &[u8],
    source: u32,
    degree: usize,
    n: u64,
) -> Result<(), String> {
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
        let (end, first, last) = validate_block(codec, data, pos, source, n, count)
            .map_err(|reason| format!("block {block}: {reason}"))?;
        if let Some(p) = previous.filter(|&p| first <= p) {
            return Err(format!(
                "block {block}: neighbour {first} follows {p} (lists must be strictly increasing)"
            ));
        }
        previous = Some(last);
        pos = end;
    }
    if pos != data.len() {
        return Err(format!(
            "{} bytes left over after the last block",
            data.len() - pos
        ));
    }
    Ok(())
}

/// Checks the block of `count` neighbours at `data[at..]`: its codes lie within `data`, and
/// its ids are below `n` (and increasing, as gaps are never negative). Returns where the block
/// ends, its first id and its last.
fn validate_block(
    codec: ListCodec,
    data: &[u8],
    at: usize,
    source: u32,
    n: u64,
    count: usize,
) -> Result<(usize, u64, u64), String> {
    if codec == ListCodec::FrameOfReference {
        return frame::validate_block(data, at, source, n, count);
    }
    let truncated =
        |pos: usize| format!("truncated or overlong code at byte {pos} of {}", data.len());
    let (code, mut pos) = read_varint(data, at).ok_or_else(|| truncated(at))?;
    // Codes are below 2^35 and ids below 2^32: no overflow in i64.
    let first = source as i64 + unzigzag(code);
    if first < 0 || first as u64 >= n {
        return Err(format!("neighbour {first} is not in 0..{n}"));
    }
    let mut id = first as u64;
    let (end, last) = match codec {
        ListCodec::Varint => {
            for _ in 1..count {
                let (gap, after) = read_varint(data, pos).ok_or_else(|| truncated(pos))?;
                pos = after;
                id += gap + 1;
                if id >= n {
                    return Err(format!("neighbour {id} is not in 0..{n}"));
                }
            }
            (pos, id)
        }
        ListCodec::StreamVByte => stream_vbyte::validate_gaps(data, pos, id, count - 1, n)?,
        ListCodec::FrameOfReference => unreachable!("validated above"),
    };
    Ok((end, first as u64, last))
}

impl<'a> ByteCodeLists<'a> {
    /// Checks what is O(1) to check: the arrays' lengths and first and last byte offsets.
    /// Whatever else is wrong cannot make the decoder misbehave; [`Self::validate_vertex`]
    /// finds it.
    pub fn new(
        codec: ListCodec,
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
            codec,
            offsets,
            byte_offsets,
            bytes,
        })
    }

    pub fn codec(&self) -> ListCodec {
        self.codec
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

    /// The codes of `v`'s list, running on to the end of all codes; empty when its byte
    /// offsets are out of order or out of range.
    #[inline]
    pub(crate) fn list_bytes(&self, v: usize) -> ListBytes<'a> {
        let (start, end) = (self.byte_offsets[v], self.byte_offsets[v + 1]);
        match self.bytes.get(start as usize..) {
            Some(data) if start <= end && end - start <= data.len() as u64 => ListBytes {
                data,
                end: (end - start) as usize,
            },
            _ => ListBytes::whole(&[]),
        }
    }

    /// [`decode_list`] on `v`'s list: its neighbours at positions `lo..hi`, until `f` returns
    /// false.
    #[inline]
    pub fn for_each_in<F: FnMut(u32) -> bool>(&self, v: u32, lo: usize, hi: usize, f: F) -> bool {
        let list = self.list_bytes(v as usize);
        let n = self.num_vertices() as u64;
        let span = ListSpan {
            source: v,
            degree: self.degree(v),
            n,
            lo,
            hi,
        };
        decode_ids(self.codec, list, span, f)
    }

    /// [`decode_list_blocks`] on `v`'s list: its neighbours at positions `lo..hi`, a block
    /// (slice) at a time, until `f` returns false.
    #[inline]
    pub fn for_each_block_in<F: FnMut(&[u32]) -> bool>(
        &self,
        v: u32,
        lo: usize,
        hi: usize,
        f: F,
    ) -> bool {
        let list = self.list_bytes(v as usize);
        let n = self.num_vertices() as u64;
        let span = ListSpan {
            source: v,
            degree: self.degree(v),
            n,
            lo,
            hi,
        };
        decode_blocks(self.codec, list, span, f)
    }

    /// The lists of `vertices` in order, a block at a time, to `visitor`: what
    /// [`Self::for_each_block_in`] does for each, in one call for the whole range (compiled for
    /// SSSE3 once, the visitor inlined), so that a pass over every list does not pay a call
    /// and its set-up per list. A corrupt list ends early, as in `for_each_block_in`.
    pub fn visit_lists<V: ListVisitor>(&self, vertices: Range<u32>, visitor: &mut V) {
        #[cfg(target_arch = "x86_64")]
        if self.codec == ListCodec::StreamVByte {
            if let Some(ssse3) = Ssse3::detect() {
                // SAFETY: `ssse3` exists only where the CPU has SSSE3.
                return unsafe { visit_lists_ssse3(ssse3, self, vertices, visitor) };
            }
        }
        visit_lists_with(Scalar, self, vertices, visitor)
    }

    /// For each vertex `v = base + i` of the set bits `i` of `word`, in order, calls `arc(v, u)`
    /// on `v`'s neighbours from list position `from` (0 or 1) on, until it returns false for
    /// that list: [`Self::for_each_in`] for up to 64 lists in one call, as a bottom-up BFS step
    /// walks them (Stream VByte lists then go through the fast decoder, compiled once for the
    /// whole word with `arc` inlined). Returns how many arcs it offered `arc` (counted here, in
    /// a register, for a caller whose own count would cost a store per arc).
    pub fn walk_word_from<F: FnMut(u32, u32) -> bool>(
        &self,
        base: u32,
        word: u64,
        from: usize,
        mut arc: F,
    ) -> u64 {
        let (mut left, mut offered) = (word, 0);
        if self.codec == ListCodec::FrameOfReference && from <= 1 {
            let n = self.num_vertices() as u64;
            left = self.for_each_list_of_word(base, word, from, |v, list, degree| {
                let sink = &mut frame::EachId(&mut |u| arc(v, u));
                let (finished, handed) =
                    frame::walk_list(list.data, list.end, v, degree, n, from, sink)?;
                offered += handed;
                Some(finished)
            });
        }
        #[cfg(target_arch = "x86_64")]
        if self.codec == ListCodec::StreamVByte && from <= 1 && crate::fast::available() {
            // SAFETY: the CPU has what the fast decoder is compiled for.
            (left, offered) = unsafe { crate::fast::walk_word(self, base, word, from, &mut arc) };
        }
        while left != 0 {
            let v = base + left.trailing_zeros();
            left &= left - 1;
            self.for_each_in(v, from, usize::MAX, |u| {
                offered += 1;
                arc(v, u)
            });
        }
        offered
    }

    /// For each vertex `v = base + i` of the set bits `i` of `word`, in order, the first of
    /// `v`'s neighbours from list position `from` (0 or 1) on whose bit is set in `bitmap` (at
    /// least n bits, as u64 words), handed over as `found(v, u)`: a bottom-up BFS step's search
    /// for a parent in the frontier; the bitmap must not change while it runs (the fast
    /// decoder reads it with plain loads). Returns how many neighbours it looked at. What
    /// [`Self::walk_word_from`] with a closure that tests the bit does, faster: the fast
    /// decoder tests a group of four ids with one gather instead of taking them out of the
    /// vector one by one.
    pub fn find_word_in_bitmap<F: FnMut(u32, u32)>(
        &self,
        base: u32,
        word: u64,
        from: usize,
        bitmap: &[std::sync::atomic::AtomicU64],
        mut found: F,
    ) -> u64 {
        assert!(
            bitmap.len() as u64 * 64 >= self.num_vertices() as u64,
            "a bit per vertex"
        );
        let (mut left, mut looked_at) = (word, 0);
        if self.codec == ListCodec::FrameOfReference && from <= 1 {
            let n = self.num_vertices() as u64;
            let mut sink = frame::FirstInBitmap {
                bitmap,
                found: None,
            };
            left = self.for_each_list_of_word(base, word, from, |v, list, degree| {
                let (finished, handed) =
                    frame::walk_list(list.data, list.end, v, degree, n, from, &mut sink)?;
                looked_at += handed;
                if let Some(u) = sink.found.take() {
                    found(v, u);
                }
                Some(finished)
            });
        }
        #[cfg(target_arch = "x86_64")]
        if self.codec == ListCodec::StreamVByte && from <= 1 && crate::fast::available() {
            // SAFETY: the CPU has what the fast decoder is compiled for; the bitmap has a bit
            // per vertex.
            (left, looked_at) = unsafe {
                crate::fast::find_word_in_bitmap(self, base, word, from, bitmap, &mut found)
            };
        }
        // The lists left over, walked with the bit tested one id at a time.
        let is_set = |u: u32| {
            bitmap[u as usize / 64].load(std::sync::atomic::Ordering::Relaxed) >> (u % 64) & 1 == 1
        };
        looked_at
            + self.walk_word_from(base, left, from, |v, u| {
                if is_set(u) {
                    found(v, u);
                    return false;
                }
                true
            })
    }

    /// `(v, degree, first byte, end byte)` of the list of each vertex of `vertices`, in
    /// order: the lists a fused decoder (the sums) reads one after another. The byte offsets
    /// are as recorded, unchecked.
    #[inline(always)]
    pub(crate) fn lists_in(
        &self,
        vertices: Range<u32>,
    ) -> impl Iterator<Item = (u32, usize, usize, usize)> + 'a {
        let (start, end) = (vertices.start as usize, vertices.end as usize);
        let edges = self.offsets[start..=end].windows(2);
        let bytes = self.byte_offsets[start..=end].windows(2);
        vertices.zip(edges.zip(bytes)).map(|(v, (edges, bytes))| {
            let degree = (edges[1] - edges[0]) as usize;
            (v, degree, bytes[0] as usize, bytes[1] as usize)
        })
    }

    /// Calls `walk(v, list, degree)` for each vertex `v = base + i` of the set bits `i` of
    /// `word` whose list is longer than `lo`, in order; returns the bits of those for which
    /// `walk` returned None (left for the general decoder). The fast decoders' walks over a
    /// bottom-up step's word of lists.
    #[inline(always)]
    pub(crate) fn for_each_list_of_word(
        &self,
        base: u32,
        mut word: u64,
        lo: usize,
        mut walk: impl FnMut(u32, ListBytes<'_>, usize) -> Option<bool>,
    ) -> u64 {
        let mut left = 0;
        while word != 0 {
            let bit = word.trailing_zeros();
            word &= word - 1;
            let v = base + bit;
            let degree = self.degree(v);
            if degree > lo && walk(v, self.list_bytes(v as usize), degree).is_none() {
                left |= 1 << bit;
            }
        }
        left
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
        let n = self.num_vertices() as u64;
        validate_list(self.codec, data, v, (hi - lo) as usize, n).map_err(corrupt)
    }

    /// [`Self::validate_vertex`] for every vertex in `vertices`, stopping at the first error.
    pub fn validate_vertices(&self, vertices: Range<usize>) -> Result<(), CodecError> {
        vertices
            .into_iter()
            .try_for_each(|v| self.validate_vertex(v as u32))
    }
}
