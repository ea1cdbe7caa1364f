//! Decoding: the read-only view of a direction's encoded lists, the bounds-checked walk over a
//! list's blocks that every codec's decoder runs in, and the full validation pass. Each is
//! generic over the codec's [`BlockCodec`]; the public functions resolve the [`ListCodec`]
//! once per call (`with_codec!`).

use std::ops::Range;

use crate::codec::{with_codec, BlockCodec, BlockEnd, BlockIds, BlockSpan};
use crate::{CodecError, ListCodec, ListVisitor, BLOCK_EDGES};

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
    with_codec!(codec, c => c.decode_ids(ListBytes::whole(data), span, f))
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
    with_codec!(codec, c => c.decode_blocks(ListBytes::whole(data), span, f))
}

/// [`decode_list_blocks`] on a list whose codes are `data[..end]`, where `data` runs on past
/// them (the lists after it, in a buffer read whole): the decoders that read a word or a group
/// at a time then read ahead within `data`, where at a slice's end they would copy its last
/// bytes out first; no byte past `end` is used. `end` is clamped to `data`'s length.
#[inline]
pub fn decode_list_blocks_in<F: FnMut(&[u32]) -> bool>(
    codec: ListCodec,
    data: &[u8],
    end: usize,
    span: ListSpan,
    f: F,
) -> bool {
    let list = ListBytes {
        data,
        end: end.min(data.len()),
    };
    with_codec!(codec, c => c.decode_blocks(list, span, f))
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
    pub(crate) fn codes(&self) -> &'a [u8] {
        &self.data[..self.end]
    }
}

/// [`BlockCodec::decode_ids`] block by block: each block of positions `span.lo..span.hi`
/// decoded by `codec.block_ids`, its ids handed to `f` as they are decoded.
#[inline(always)]
pub(crate) fn decode_ids_with<C: BlockCodec, F: FnMut(u32) -> bool>(
    codec: C,
    list: ListBytes<'_>,
    list_span: ListSpan,
    mut f: F,
) -> bool {
    let ListSpan { degree, lo, hi, .. } = list_span;
    let mut scratch = BlockIds::new();
    walk_blocks(
        list.codes(),
        degree,
        lo,
        hi,
        // Inlined: compiled on its own, a block step loses the target features of the
        // function it is called from (Stream VByte's SSSE3 copy).
        #[inline(always)]
        |pos, span| codec.block_ids(list, pos, list_span, span, &mut scratch, &mut f),
    )
}

/// [`BlockCodec::decode_blocks`] block by block: each block decoded whole by
/// `codec.block_into`, then handed to `f` as a slice.
#[inline(always)]
pub(crate) fn decode_blocks_with<C: BlockCodec, F: FnMut(&[u32]) -> bool>(
    codec: C,
    list: ListBytes<'_>,
    list_span: ListSpan,
    mut f: F,
) -> bool {
    let ListSpan { degree, lo, hi, .. } = list_span;
    let mut ids = BlockIds::new();
    walk_blocks(list.codes(), degree, lo, hi, |pos, span| {
        match codec.block_into(list, *pos, list_span, span, &mut ids) {
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

/// [`ByteCodeLists::visit_lists`] with `codec`'s blocks.
///
/// Lists are decoded into a batch of about [`BATCH_IDS`] ids, each block prefetched by the
/// visitor as it is decoded; only then are the batch's lists handed over. Handing each block
/// over as soon as it is decoded left the decoder's instructions queued behind the visitor's
/// cache misses on the block before, so misses and decoding took turns.
#[inline(always)]
pub(crate) fn visit_lists_with<C: BlockCodec, V: ListVisitor>(
    codec: C,
    lists: &ByteCodeLists<'_>,
    vertices: Range<u32>,
    visitor: &mut V,
) {
    let n = lists.num_vertices() as u64;
    if !visitor.wants_prefetch() {
        for v in vertices {
            let list = lists.list_bytes(v as usize);
            let span = ListSpan::whole(v, lists.degree(v), n);
            decode_blocks_with(codec, list, span, |ids| {
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
        decode_blocks_with(codec, list, span, |ids| {
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
    with_codec!(codec, c => validate_list_with(c, data, source, degree, n))
}

/// [`validate_list`] with `codec`'s blocks.
fn validate_list_with<C: BlockCodec>(
    codec: C,
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
        let (end, first, last) = codec
            .validate_block(data, pos, source, n, count)
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

    /// The span of `v`'s list at positions `lo..hi`.
    #[inline(always)]
    fn span(&self, v: u32, lo: usize, hi: usize) -> ListSpan {
        ListSpan {
            source: v,
            degree: self.degree(v),
            n: self.num_vertices() as u64,
            lo,
            hi,
        }
    }

    /// [`decode_list`] on `v`'s list: its neighbours at positions `lo..hi`, until `f` returns
    /// false.
    #[inline]
    pub fn for_each_in<F: FnMut(u32) -> bool>(&self, v: u32, lo: usize, hi: usize, f: F) -> bool {
        with_codec!(self.codec, c => self.for_each_in_with(c, v, lo, hi, f))
    }

    /// [`Self::for_each_in`] with `codec`'s decoder.
    #[inline(always)]
    fn for_each_in_with<C: BlockCodec, F: FnMut(u32) -> bool>(
        &self,
        codec: C,
        v: u32,
        lo: usize,
        hi: usize,
        f: F,
    ) -> bool {
        codec.decode_ids(self.list_bytes(v as usize), self.span(v, lo, hi), f)
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
        let span = self.span(v, lo, hi);
        with_codec!(self.codec, c => c.decode_blocks(list, span, f))
    }

    /// The lists of `vertices` in order, a block at a time, to `visitor`: what
    /// [`Self::for_each_block_in`] does for each, in one call for the whole range (compiled for
    /// SSSE3 once, the visitor inlined), so that a pass over every list does not pay a call
    /// and its set-up per list. A corrupt list ends early, as in `for_each_block_in`.
    pub fn visit_lists<V: ListVisitor>(&self, vertices: Range<u32>, visitor: &mut V) {
        with_codec!(self.codec, c => c.visit_lists(self, vertices, visitor))
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
        arc: F,
    ) -> u64 {
        with_codec!(self.codec, c => self.walk_word_with(c, base, word, from, arc))
    }

    /// [`Self::walk_word_from`] with `codec`: the lists its own walk leaves, one by one.
    #[inline]
    fn walk_word_with<C: BlockCodec, F: FnMut(u32, u32) -> bool>(
        &self,
        codec: C,
        base: u32,
        word: u64,
        from: usize,
        mut arc: F,
    ) -> u64 {
        let (mut left, mut offered) = codec.walk_word(self, base, word, from, &mut arc);
        while left != 0 {
            let v = base + left.trailing_zeros();
            left &= left - 1;
            self.for_each_in_with(codec, v, from, usize::MAX, |u| {
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
        found: F,
    ) -> u64 {
        assert!(
            bitmap.len() as u64 * 64 >= self.num_vertices() as u64,
            "a bit per vertex"
        );
        with_codec!(self.codec, c => self.find_word_with(c, base, word, from, bitmap, found))
    }

    /// [`Self::find_word_in_bitmap`] with `codec`: the lists its own search leaves, walked
    /// with the bit tested one id at a time.
    #[inline]
    fn find_word_with<C: BlockCodec, F: FnMut(u32, u32)>(
        &self,
        codec: C,
        base: u32,
        word: u64,
        from: usize,
        bitmap: &[std::sync::atomic::AtomicU64],
        mut found: F,
    ) -> u64 {
        let (left, looked_at) =
            codec.find_word_in_bitmap(self, base, word, from, bitmap, &mut found);
        let is_set = |u: u32| {
            bitmap[u as usize / 64].load(std::sync::atomic::Ordering::Relaxed) >> (u % 64) & 1 == 1
        };
        looked_at
            + self.walk_word_with(codec, base, left, from, |v, u| {
                if is_set(u) {
                    found(v, u);
                    return false;
                }
                true
            })
    }

    /// Hands `emit(v, Σ values[u] for u in v's list)` over for the vertices of `vertices` in
    /// order, summed in the lanes of [`crate::lanes`], and returns the first vertex it did not
    /// hand over: `vertices.end`, or earlier where the rest must go through the general
    /// decoder (a list near the end of the codes, codes that disagree with the byte offsets or
    /// give an id at or above n, or the Varint codec, or Stream VByte on a CPU without AVX2
    /// and BMI2).
    ///
    /// `values` holds one value per vertex and then 0.0, at index n: unused lanes read it,
    /// which costs less than choosing between a value and zero. It may go on past n: the
    /// frame-of-reference sums use zeros after the 0.0 (see `frame::sum_lists`).
    pub fn sum_lists<E: FnMut(u32, f64)>(
        &self,
        vertices: Range<u32>,
        values: &[f64],
        mut emit: E,
    ) -> u32 {
        let n = self.num_vertices();
        assert!(values.len() > n, "one value per vertex, then 0.0");
        assert_eq!(values[n], 0.0, "the value after the vertices' must be 0.0");
        with_codec!(self.codec, c => c.sum_lists(self, vertices, values, &mut emit))
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
