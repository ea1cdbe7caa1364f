//! The compressed adjacency codecs of vastgraph stores (`Codec::ByteCode64`,
//! `Codec::StreamVByte64` and `Codec::FrameOfReference64` in the manifest): Ligra+'s parallel
//! byte codes, a Stream VByte variant of them, and frame-of-reference offsets; one encoder and
//! one decoder shared by the store writer, the store validator and the engine's graph view.
//!
//! Each vertex's sorted, duplicate-free neighbour list is cut into blocks of [`BLOCK_EDGES`]
//! neighbours. Within a block the first neighbour is stored relative to the source vertex
//! (signed, zig-zag). In the gap codecs every later one is the gap to its predecessor minus one
//! (lists are strictly increasing, so gaps are at least one), and the first number is a
//! little-endian base-128 varint: seven bits per byte, the high bit set on every byte but the
//! last. The gaps are varints too ([`ListCodec::Varint`]), or Stream VByte groups
//! ([`ListCodec::StreamVByte`]). [`ListCodec::FrameOfReference`] has no gaps: a header byte
//! gives the first number's length in bytes and a width of whole bytes, and every later id is
//! its offset from the first in that width (the `frame` module). [`ListCodec::Zeta`] codes a
//! block as a bit stream: its runs of consecutive ids as intervals, the other ids as gaps, in
//! WebGraph's γ and ζ₃ codes (the `zeta` module).
//!
//! A vertex of degree `d > 0` occupies `bytes[byte_offsets[v]..byte_offsets[v + 1]]`:
//!
//! ```text
//! [ u32 LE start of block 1 ] ... [ u32 LE start of block B-1 ]   block index, B = ceil(d / 64)
//! [ block 0 ] [ block 1 ] ... [ block B-1 ]                      contiguous
//! ```
//!
//! Block starts are relative to the vertex's first byte. Because every block restarts from the
//! source vertex, any block decodes on its own: a range `lo..hi` of a high-degree vertex's list
//! is reached by one jump through the index, and pieces of one list decode on different threads.
//! Degrees (and the alignment of a separate weight array) come from the ordinary CSR edge
//! offsets, which a compressed store keeps.
//!
//! Decoding is bounds-checked throughout: corrupt input never reads outside the given slices,
//! never panics, and never yields an id at or above the number of vertices; it stops early
//! instead. [`validate_list`] decodes a list fully and reports exactly what
//! is wrong with it; stores run it on every list when opened.
//!
//! Each codec is one module (`varint`, `stream_vbyte`, `frame`, `zeta`) that implements the block
//! steps of the `codec` module's trait; the block index, ranges of positions and passes over
//! many lists (`decode`, `encode`) are written once, generic over it.

mod codec;
mod decode;
pub mod elias_fano;
mod encode;
mod frame;
pub mod lanes;
mod stream_vbyte;
mod varint;
mod zeta;

pub use decode::{
    decode_list, decode_list_blocks, decode_list_blocks_in, validate_list, ByteCodeLists, ListSpan,
};

/// What a pass over many lists does with them: each list's blocks in order, then its end.
/// A decoder that visits a whole range of lists in one call (instead of one call per list)
/// runs the visitor inlined in its own loop.
pub trait ListVisitor {
    /// The next block of the current list's neighbours, in order.
    fn block(&mut self, neighbors: &[u32]);
    /// Vertex `v`'s list ended (every vertex gets this call, an empty list too).
    fn end_list(&mut self, v: u32);
    /// A hint that `neighbors` will be handed to [`Self::block`] soon: a visitor that reads
    /// memory at each neighbour (PageRank's contributions) starts fetching it here. A decoder
    /// calls it as it decodes and hands the blocks over a while later, so that the misses
    /// overlap the decoding instead of waiting behind it.
    #[inline(always)]
    fn prefetch(&mut self, _neighbors: &[u32]) {}
    /// Whether [`Self::prefetch`] is worth a decoder's while: decoding ahead costs copying
    /// the ids once more, which only pays when the visitor's reads miss the cache.
    fn wants_prefetch(&self) -> bool {
        false
    }
}
pub use encode::{encode_block, encode_block_index, encode_list, encoded_len};

/// How the numbers of a block after its first are coded. The first neighbour of every block
/// is a zig-zagged varint relative to the source in both, and the block index is the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListCodec {
    /// Each gap a base-128 varint: Ligra+'s byte codes.
    Varint,
    /// The gaps in Stream VByte groups of four, lengths 0, 1, 2 or 4 bytes: a control byte per
    /// group, then the data. Decodes four gaps per shuffle without a branch per gap; smaller on
    /// graphs whose lists hold runs of consecutive ids (a gap of zero takes two bits).
    StreamVByte,
    /// No gaps: one byte giving a width of 1 to 4 bytes, then each id after the first as its
    /// offset from the first, in that many bytes. Bigger than the gap codes, but each id
    /// decodes on its own with a load, a mask and an add, so a traversal runs close to the
    /// raw lists' speed where they fit in cache (see the `frame` module).
    FrameOfReference,
    /// Runs of at least four consecutive ids as intervals, the other ids as gaps, all in
    /// WebGraph's γ and ζ₃ bit codes (see the `zeta` module): the smallest codes by far on web
    /// graphs, at the cost of a bit-level decoder.
    Zeta,
}

impl ListCodec {
    pub const ALL: [ListCodec; 4] = [
        ListCodec::Varint,
        ListCodec::StreamVByte,
        ListCodec::FrameOfReference,
        ListCodec::Zeta,
    ];
}

/// Neighbours per block: a block is the unit of random access and of parallel decoding.
pub const BLOCK_EDGES: usize = 64;

/// Why a list cannot be encoded, or why encoded bytes are not a valid encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// The arrays around the encoded bytes do not fit together (lengths, first or last offset).
    #[error("{0}")]
    Layout(String),
    /// Vertex `vertex`'s encoded list is not a valid encoding of a list of its degree.
    #[error("vertex {vertex}: {reason}")]
    Corrupt { vertex: u64, reason: String },
    /// The list handed to the encoder is not strictly increasing, or not below `vertices`.
    #[error("vertex {vertex}: cannot encode: {reason}")]
    Unencodable { vertex: u64, reason: String },
}
