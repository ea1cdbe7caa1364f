//! Writes one direction of a compressed store (any of `Codec::COMPRESSED`)
//! from its raw CSR arrays:
//! `byte_offsets.u64` and `neighbors.bc64`. Vertices are encoded in rounds, each round's
//! ranges in parallel into buffers sized from the memory budget, then appended in order; a
//! list longer than a whole round streams out block by block.

use std::cell::Cell;
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;
use vastgraph_codec::{
    decode_list, encode_block, encode_block_index, encode_list, validate_list, CodecError,
    ListCodec, ListSpan, BLOCK_EDGES,
};

use crate::cancel::check_cancel;
use crate::hashed_file::HashedFileWriter;
use crate::manifest::{files, FileEntry};
use crate::progress::Progress;
use crate::StoreError;

/// The names of one direction's compressed files.
pub(crate) struct ByteCodeFileNames {
    pub byte_offsets: &'static str,
    pub codes: &'static str,
    /// The progress phase of writing them.
    pub phase: &'static str,
}

pub(crate) const OUT_CODES: ByteCodeFileNames = ByteCodeFileNames {
    byte_offsets: files::BYTE_OFFSETS,
    codes: files::NEIGHBOR_CODES,
    phase: "compressing the lists",
};

pub(crate) const IN_CODES: ByteCodeFileNames = ByteCodeFileNames {
    byte_offsets: files::IN_BYTE_OFFSETS,
    codes: files::IN_NEIGHBOR_CODES,
    phase: "compressing the transpose's lists",
};

/// Heap bytes per arc of a round: at most 5 bytes of codes plus its share of the block
/// index, and 8 bytes per vertex of byte offsets (a round holds at most as many vertices as
/// arcs), with room to spare for the allocator.
const ROUND_BYTES_PER_ARC: u64 = 32;

/// One direction's lists as a raw CSR, already validated.
pub(crate) struct RawLists<'a> {
    pub offsets: &'a [u64],
    pub neighbors: &'a [u32],
}

/// The arcs coded so far and the bytes their codes took, over every direction written with
/// it: the rate from which a full disk's message estimates the size of all the codes.
#[derive(Default)]
pub(crate) struct CodedSoFar {
    arcs: Cell<u64>,
    bytes: Cell<u64>,
}

impl CodedSoFar {
    fn add(&self, arcs: u64, bytes: u64) {
        self.arcs.set(self.arcs.get() + arcs);
        self.bytes.set(self.bytes.get() + bytes);
    }

    pub(crate) fn arcs(&self) -> u64 {
        self.arcs.get()
    }

    /// Bytes of codes an arc so far; None before any arc is written.
    pub(crate) fn bytes_per_arc(&self) -> Option<f64> {
        let arcs = self.arcs.get();
        (arcs > 0).then(|| self.bytes.get() as f64 / arcs as f64)
    }
}

/// Encodes `lists` into `dir`, adding what it writes to `coded`. `source` names the neighbour
/// file in errors. Returns the two files' entries.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_byte_code(
    codec: ListCodec,
    dir: &Path,
    names: &ByteCodeFileNames,
    lists: RawLists<'_>,
    memory_bytes: u64,
    source: &Path,
    progress: &Progress,
    coded: &CodedSoFar,
) -> Result<Vec<FileEntry>, StoreError> {
    let RawLists { offsets, neighbors } = lists;
    let vertices = offsets.len() - 1;
    progress.phase(names.phase, Some(offsets[vertices]));
    let threads = rayon::current_num_threads().max(1);
    let round_arcs = (memory_bytes / ROUND_BYTES_PER_ARC).clamp(1 << 12, 1 << 27) as usize;
    let piece_arcs = (round_arcs / threads).max(1 << 10);
    let bad_list = |e: CodecError| match e {
        CodecError::Unencodable { vertex, reason } | CodecError::Corrupt { vertex, reason } => {
            StoreError::BadNeighbors {
                path: source.to_path_buf(),
                vertex,
                reason,
            }
        }
        CodecError::Layout(reason) => StoreError::invalid_input(reason),
    };
    let mut codes = HashedFileWriter::create(dir, names.codes)?;
    let mut index = HashedFileWriter::create(dir, names.byte_offsets)?;
    let mut written = 0u64;
    index.write_offsets(&[written])?;
    let mut next = 0;
    while next < vertices {
        check_cancel()?;
        progress.advance(offsets[next]);
        let first_degree = (offsets[next + 1] - offsets[next]) as usize;
        if first_degree > piece_arcs {
            let list = &neighbors[offsets[next] as usize..offsets[next + 1] as usize];
            let bytes = stream_list(codec, next as u32, list, piece_arcs, &mut codes).map_err(
                |e| match e {
                    Streamed::Codec(e) => bad_list(e),
                    Streamed::Store(e) => e,
                },
            )?;
            coded.add(list.len() as u64, bytes);
            written += bytes;
            index.write_offsets(&[written])?;
            next += 1;
            continue;
        }
        let mut pieces = Vec::with_capacity(threads);
        let fits = |v: usize| (offsets[v + 1] - offsets[v]) as usize <= piece_arcs;
        while pieces.len() < threads && next < vertices && fits(next) {
            let end = piece_end(offsets, next, piece_arcs);
            pieces.push(next..end);
            next = end;
        }
        let encoded: Vec<(Vec<u8>, Vec<u64>)> = pieces
            .par_iter()
            .cloned()
            .map(|range| encode_range(codec, offsets, neighbors, range, vertices as u64))
            .collect::<Result<_, _>>()
            .map_err(bad_list)?;
        for ((bytes, ends), range) in encoded.into_iter().zip(pieces) {
            codes.write_bytes(&bytes)?;
            let global: Vec<u64> = ends.iter().map(|&end| written + end).collect();
            index.write_offsets(&global)?;
            written += bytes.len() as u64;
            coded.add(
                offsets[range.end] - offsets[range.start],
                bytes.len() as u64,
            );
        }
    }
    progress.advance(offsets[vertices]);
    Ok(vec![index.finish()?, codes.finish()?])
}

/// The end of a range from `start` of at most `max_arcs` arcs and `max_arcs` vertices, but at
/// least one vertex (whose list then fits: longer ones are streamed).
fn piece_end(offsets: &[u64], start: usize, max_arcs: usize) -> usize {
    let vertices = offsets.len() - 1;
    let limit = (start + max_arcs).min(vertices);
    let budget = offsets[start] + max_arcs as u64;
    // offsets[start+1..=limit] is sorted: count the prefix that stays within the budget.
    let within = offsets[start + 1..=limit].partition_point(|&o| o <= budget);
    start + within.max(1)
}

/// The codes of `range`'s lists and each list's end, relative to the buffer's start. Each
/// list is decoded again and compared with its source before anything is written, so a store
/// never holds codes that do not decode to its lists.
fn encode_range(
    codec: ListCodec,
    offsets: &[u64],
    neighbors: &[u32],
    range: Range<usize>,
    n: u64,
) -> Result<(Vec<u8>, Vec<u64>), CodecError> {
    let arcs = (offsets[range.end] - offsets[range.start]) as usize;
    // Ordered lists mostly take one or two bytes a neighbour.
    let mut bytes = Vec::with_capacity(arcs + arcs / 2 + 64);
    let mut ends = Vec::with_capacity(range.len());
    for v in range {
        let list = &neighbors[offsets[v] as usize..offsets[v + 1] as usize];
        let start = bytes.len();
        encode_list(codec, v as u32, list, &mut bytes)?;
        check_round_trip(codec, &bytes[start..], v as u32, list, n)?;
        ends.push(bytes.len() as u64);
    }
    Ok((bytes, ends))
}

/// `data` is a valid encoding of exactly `list`.
fn check_round_trip(
    codec: ListCodec,
    data: &[u8],
    source: u32,
    list: &[u32],
    n: u64,
) -> Result<(), CodecError> {
    let corrupt = |reason: String| CodecError::Corrupt {
        vertex: source as u64,
        reason: format!("the encoder wrote codes that {reason}"),
    };
    validate_list(codec, data, source, list.len(), n)
        .map_err(|e| corrupt(format!("are invalid: {e}")))?;
    let mut expected = list.iter();
    let span = ListSpan::whole(source, list.len(), n);
    let same = decode_list(codec, data, span, |w| expected.next() == Some(&w));
    if !same {
        return Err(corrupt("decode to another list".into()));
    }
    Ok(())
}

enum Streamed {
    Codec(CodecError),
    Store(StoreError),
}

/// Writes one long list: its block index, then its blocks, `batch_arcs` neighbours at a time.
/// Returns the bytes written.
fn stream_list(
    codec: ListCodec,
    source: u32,
    list: &[u32],
    batch_arcs: usize,
    codes: &mut HashedFileWriter,
) -> Result<u64, Streamed> {
    let mut buffer = Vec::new();
    encode_block_index(codec, source, list, &mut buffer).map_err(Streamed::Codec)?;
    let mut written = 0u64;
    let batch = batch_arcs.div_ceil(BLOCK_EDGES) * BLOCK_EDGES;
    for chunk in list.chunks(batch) {
        check_cancel().map_err(Streamed::Store)?;
        for block in chunk.chunks(BLOCK_EDGES) {
            encode_block(codec, source, block, &mut buffer).map_err(Streamed::Codec)?;
        }
        codes.write_bytes(&buffer).map_err(Streamed::Store)?;
        written += buffer.len() as u64;
        buffer.clear();
    }
    Ok(written)
}
