//! What the list codecs differ in: [`BlockCodec`], implemented by one type in each codec's
//! module (`varint::Varint`, `stream_vbyte::StreamVByte`, `frame::FrameOfReference`,
//! `zeta::Zeta`), and
//! [`with_codec!`], the one place where a [`crate::ListCodec`] becomes that type.
//!
//! Everything the codecs share (the block index, ranges `lo..hi` of list positions, passes
//! over many lists, the validation of a whole list, the checks before encoding) is written
//! once in `decode` and `encode`, generic over the codec. Each codec gets its own copy of it
//! with its block steps inlined: the codec is matched once per call, never per block or per
//! id.

use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::atomic::AtomicU64;

use crate::decode::{self, ByteCodeLists, ListBytes, ListSpan};
use crate::ListVisitor;

/// The part of a block a caller wants: the block holds `len` neighbours, of which the first
/// `count` must be decoded and those from `skip` on handed over.
#[derive(Clone, Copy)]
pub(crate) struct BlockSpan {
    pub(crate) len: usize,
    pub(crate) count: usize,
    pub(crate) skip: usize,
}

/// How decoding one block ended.
pub(crate) enum BlockEnd {
    /// Every requested neighbour was handed over.
    Done,
    /// The callback asked to stop.
    Stopped,
    /// The codes are truncated, overlong, or give an id at or above n.
    Corrupt,
}

/// One list codec: how a block is coded, checked and decoded, and the decoders of whole lists
/// where the codec has faster ones than a walk block by block. A value is a zero-sized token
/// (Stream VByte's holds its group decoder), passed by value, so that every function generic
/// over it is compiled once per codec with the codec's steps inlined.
///
/// Every decoder reads only within the list's codes, or within `ListBytes::data` where it
/// reads ahead, and hands over only ids below n. On corrupt codes the walks stop early; the
/// sums and the bitmap searches, which clamp ids below n, may go on with wrong ids.
pub(crate) trait BlockCodec: Copy {
    /// Bytes of a block: 1 to [`crate::BLOCK_EDGES`] strictly increasing neighbours of
    /// `source`, checked by the caller.
    fn block_len(self, source: u32, block: &[u32]) -> usize;

    /// Appends a block, checked as for [`Self::block_len`].
    fn write_block(self, source: u32, block: &[u32], out: &mut Vec<u8>);

    /// Checks the block of `len` neighbours of `source` at `data[at..]` exactly: its codes lie
    /// within `data`, its ids are below `n` and strictly increasing. Returns where the block
    /// ends, its first id and its last; the error says what is wrong and where.
    fn validate_block(
        self,
        data: &[u8],
        at: usize,
        source: u32,
        n: u64,
        len: usize,
    ) -> Result<(usize, u64, u64), String>;

    /// Decodes the block of `list_span.source`'s list that starts at byte `*at` of `list`,
    /// handing its neighbours at block positions `block.skip..block.count` to `f`, in order,
    /// until `f` returns false. On [`BlockEnd::Done`] `*at` is where the block ends (a block
    /// not wanted whole is the last one a walk decodes: there it may be left anywhere).
    /// `scratch` is room for a codec that decodes ids before handing them over.
    fn block_ids<F: FnMut(u32) -> bool>(
        self,
        list: ListBytes<'_>,
        at: &mut usize,
        list_span: ListSpan,
        block: BlockSpan,
        scratch: &mut BlockIds,
        f: &mut F,
    ) -> BlockEnd;

    /// Decodes at least the first `block.count` neighbours of the block of
    /// `list_span.source`'s list that starts at byte `at` into `ids` and returns where the
    /// codes read end: the block's end when it is wanted whole. (A codec may decode more than
    /// `block.count`: Stream VByte decodes the whole block, as its data starts after all its
    /// control bytes.) With no callback between two codes and one check of the ids per block
    /// instead of one per id, the loop is as short as it gets. None when the codes are
    /// truncated or overlong, or give an id at or above `list_span.n`: then `ids` holds
    /// garbage that must not be handed over.
    fn block_into(
        self,
        list: ListBytes<'_>,
        at: usize,
        list_span: ListSpan,
        block: BlockSpan,
        ids: &mut BlockIds,
    ) -> Option<usize>;

    /// Calls `f` on the neighbours at positions `span.lo..span.hi` of the list `list`, in
    /// order, until `f` returns false; returns false if it did (see [`crate::decode_list`]).
    /// Block by block with [`Self::block_ids`], unless the codec has a faster way.
    #[inline(always)]
    fn decode_ids<F: FnMut(u32) -> bool>(self, list: ListBytes<'_>, span: ListSpan, f: F) -> bool {
        decode::decode_ids_with(self, list, span, f)
    }

    /// [`Self::decode_ids`] a block (slice) at a time (see [`crate::decode_list_blocks`]),
    /// each block decoded by [`Self::block_into`].
    #[inline(always)]
    fn decode_blocks<F: FnMut(&[u32]) -> bool>(
        self,
        list: ListBytes<'_>,
        span: ListSpan,
        f: F,
    ) -> bool {
        decode::decode_blocks_with(self, list, span, f)
    }

    /// [`ByteCodeLists::visit_lists`] on lists of this codec.
    #[inline]
    fn visit_lists<V: ListVisitor>(
        self,
        lists: &ByteCodeLists<'_>,
        vertices: Range<u32>,
        visitor: &mut V,
    ) {
        decode::visit_lists_with(self, lists, vertices, visitor)
    }

    /// The lists of a bottom-up step's word that the codec walks faster than
    /// [`Self::decode_ids`] does, for [`ByteCodeLists::walk_word_from`] (same arguments):
    /// returns the bits of the vertices it left to the general decoder, and how many arcs it
    /// offered `arc`. By default it leaves them all.
    #[inline(always)]
    fn walk_word<F: FnMut(u32, u32) -> bool>(
        self,
        _lists: &ByteCodeLists<'_>,
        _base: u32,
        word: u64,
        _from: usize,
        _arc: &mut F,
    ) -> (u64, u64) {
        (word, 0)
    }

    /// The lists of a bottom-up step's word that the codec searches faster than
    /// [`Self::walk_word`] with a test per id, for [`ByteCodeLists::find_word_in_bitmap`]
    /// (same arguments; `bitmap` holds at least n bits, which the caller asserts: the fast
    /// searches read it unchecked): returns the bits of the vertices it left to the general
    /// decoder, and how many ids it looked at. By default it leaves them all.
    #[inline(always)]
    fn find_word_in_bitmap<F: FnMut(u32, u32)>(
        self,
        _lists: &ByteCodeLists<'_>,
        _base: u32,
        word: u64,
        _from: usize,
        _bitmap: &[AtomicU64],
        _found: &mut F,
    ) -> (u64, u64) {
        (word, 0)
    }

    /// [`ByteCodeLists::sum_lists`] where the codec has a loop that decodes and sums at once
    /// (`values` already checked): returns the first vertex it did not hand over. By default
    /// `vertices.start`, leaving every list to the general decoder.
    #[inline(always)]
    fn sum_lists<E: FnMut(u32, f64)>(
        self,
        _lists: &ByteCodeLists<'_>,
        vertices: Range<u32>,
        _values: &[f64],
        _emit: &mut E,
    ) -> u32 {
        vertices.start
    }
}

/// `$body` with `$c` bound to the [`BlockCodec`] of the [`crate::ListCodec`] `$codec`: the one
/// place where the codec named at run time becomes a type. `$body` is compiled once for each
/// codec, and so is the generic code it calls.
macro_rules! with_codec {
    ($codec:expr, $c:ident => $body:expr) => {
        match $codec {
            $crate::ListCodec::Varint => {
                let $c = $crate::varint::Varint;
                $body
            }
            $crate::ListCodec::StreamVByte => {
                // The portable group decoder; the decoders that can move to SSSE3 do.
                let $c = $crate::stream_vbyte::StreamVByte($crate::stream_vbyte::Scalar);
                $body
            }
            $crate::ListCodec::FrameOfReference => {
                let $c = $crate::frame::FrameOfReference;
                $body
            }
            $crate::ListCodec::Zeta => {
                let $c = $crate::zeta::Zeta;
                $body
            }
        }
    };
}
pub(crate) use with_codec;

/// Room for a block's ids when its gaps are decoded four at a time: the first id, then up to
/// 16 groups of four.
pub(crate) const DECODE_SLOTS: usize = crate::BLOCK_EDGES + 4;

/// A block's decoded ids, filled from the front. The slots start uninitialised: zeroing them
/// would cost as much as decoding a short list, and every list needs a fresh buffer.
pub(crate) struct BlockIds {
    slots: [MaybeUninit<u32>; DECODE_SLOTS],
    /// Slots `..written` hold ids.
    written: usize,
}

impl BlockIds {
    #[inline(always)]
    pub(crate) fn new() -> Self {
        BlockIds {
            slots: [const { MaybeUninit::uninit() }; DECODE_SLOTS],
            written: 0,
        }
    }

    /// Starts a block with its first id.
    #[inline(always)]
    pub(crate) fn start(&mut self, first: u32) {
        self.slots[0].write(first);
        self.written = 1;
    }

    /// Writes the ids after the first up to slot `count` from `next`; None, and the block
    /// left at its first id, as soon as `next` gives None.
    #[inline(always)]
    pub(crate) fn fill(
        &mut self,
        count: usize,
        mut next: impl FnMut() -> Option<u32>,
    ) -> Option<()> {
        for slot in &mut self.slots[1..count] {
            slot.write(next()?);
        }
        self.written = count;
        Some(())
    }

    /// Writes the ids after the first up to slot `count`, the id of slot k + 1 as `id(k)`.
    #[inline(always)]
    pub(crate) fn fill_from(&mut self, count: usize, mut id: impl FnMut(usize) -> u32) {
        for (k, slot) in self.slots[1..count].iter_mut().enumerate() {
            slot.write(id(k));
        }
        self.written = count;
    }

    /// Writes a group of four ids for each control byte (16 at most) after the first id, as
    /// `group` decodes them. The count is kept in a local until the end, so that the loop
    /// does not store and reload it per group.
    #[inline(always)]
    pub(crate) fn fill_groups(&mut self, controls: &[u8], mut group: impl FnMut(u8) -> [u32; 4]) {
        let mut filled = 0;
        for (&control, slots) in controls.iter().zip(self.slots[1..].chunks_exact_mut(4)) {
            for (slot, id) in slots.iter_mut().zip(group(control)) {
                slot.write(id);
            }
            filled += 1;
        }
        self.written = 1 + 4 * filled;
    }

    /// Writes `id` to slot `k` mod [`crate::BLOCK_EDGES`] (the mask spares a bound check), for
    /// a decoder that writes slots 0, 1, 2, … in turn and then calls [`Self::set_len`].
    #[inline(always)]
    pub(crate) fn put_at(&mut self, k: usize, id: u32) {
        self.slots[k % crate::BLOCK_EDGES].write(id);
    }

    /// Takes slots `..count` as the block's ids.
    ///
    /// # Safety
    /// Each of slots `..count` was written since the buffer was made (`count` ≤
    /// [`DECODE_SLOTS`]): [`Self::ids`] reads them.
    #[inline(always)]
    pub(crate) unsafe fn set_len(&mut self, count: usize) {
        debug_assert!(count <= DECODE_SLOTS);
        self.written = count;
    }

    /// Forgets the ids written.
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.written = 0;
    }

    /// How many ids are written.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.written
    }

    #[inline(always)]
    pub(crate) fn push4(&mut self, ids: &[u32; 4]) {
        let slots = &mut self.slots[self.written..self.written + 4];
        for (slot, &id) in slots.iter_mut().zip(ids) {
            slot.write(id);
        }
        self.written += 4;
    }

    /// The ids written since the block started (a last group's garbage lanes included).
    #[inline(always)]
    pub(crate) fn ids(&self) -> &[u32] {
        let written = &self.slots[..self.written];
        // SAFETY: slots `..written` were written (`start`, `fill`, `push4`), and
        // MaybeUninit<u32> has the layout of u32.
        unsafe { &*(written as *const [MaybeUninit<u32>] as *const [u32]) }
    }
}
