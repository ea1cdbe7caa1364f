//! Encoding one vertex's list. The store writer calls [`encode_list`] per vertex, or, for a
//! list too long to encode in memory at once, [`encode_block_index`] and then [`encode_block`]
//! per block, streaming the blocks out.

use crate::varint::{varint_len, write_varint, zigzag};
use crate::{frame, stream_vbyte};
use crate::{CodecError, ListCodec, BLOCK_EDGES};

fn unencodable(source: u32, reason: String) -> CodecError {
    CodecError::Unencodable {
        vertex: source as u64,
        reason,
    }
}

/// Errors when the block is not 1 to [`BLOCK_EDGES`] strictly increasing neighbours.
fn check_block(source: u32, block: &[u32]) -> Result<(), CodecError> {
    if block.is_empty() || block.len() > BLOCK_EDGES {
        return Err(unencodable(
            source,
            format!(
                "a block holds 1 to {BLOCK_EDGES} neighbours, not {}",
                block.len()
            ),
        ));
    }
    match block.windows(2).find(|pair| pair[1] <= pair[0]) {
        Some(pair) => Err(unencodable(
            source,
            format!(
                "neighbour {} follows {} (lists must be strictly increasing)",
                pair[1], pair[0]
            ),
        )),
        None => Ok(()),
    }
}

/// The first neighbour of a block relative to the source, zig-zagged.
#[inline]
fn first_code(source: u32, block: &[u32]) -> u64 {
    zigzag(block[0] as i64 - source as i64)
}

/// The gaps of a checked block, each minus one.
#[inline]
fn gaps(block: &[u32]) -> impl Iterator<Item = u32> + '_ {
    block.windows(2).map(|pair| pair[1] - pair[0] - 1)
}

/// Appends one block (1 to [`BLOCK_EDGES`] neighbours of `source`, strictly increasing).
pub fn encode_block(
    codec: ListCodec,
    source: u32,
    block: &[u32],
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    check_block(source, block)?;
    if codec == ListCodec::FrameOfReference {
        frame::write_block(source, block, out);
        return Ok(());
    }
    write_varint(first_code(source, block), out);
    match codec {
        ListCodec::Varint => gaps(block).for_each(|gap| write_varint(gap as u64, out)),
        ListCodec::StreamVByte => stream_vbyte::write_gaps(gaps(block), block.len() - 1, out),
        ListCodec::FrameOfReference => unreachable!("written above"),
    }
    Ok(())
}

fn block_len(codec: ListCodec, source: u32, block: &[u32]) -> Result<u64, CodecError> {
    check_block(source, block)?;
    let first = || varint_len(first_code(source, block));
    let len = match codec {
        ListCodec::Varint => first() + gaps(block).map(|gap| varint_len(gap as u64)).sum::<usize>(),
        ListCodec::StreamVByte => first() + stream_vbyte::gaps_len(gaps(block), block.len() - 1),
        ListCodec::FrameOfReference => frame::block_len(source, block),
    };
    Ok(len as u64)
}

/// Appends the block index of `list`: the start of every block but the first, as a u32 relative
/// to the list's first byte. Checks the whole list is strictly increasing; errors when the list
/// would take more than 4 GiB.
pub fn encode_block_index(
    codec: ListCodec,
    source: u32,
    list: &[u32],
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    let blocks = list.len().div_ceil(BLOCK_EDGES);
    let index_bytes = 4 * blocks.saturating_sub(1) as u64;
    let mut start = index_bytes;
    for (k, block) in list.chunks(BLOCK_EDGES).enumerate() {
        if k > 0 {
            let at = u32::try_from(start).map_err(|_| {
                unencodable(
                    source,
                    format!("{} neighbours take more than 4 GiB encoded", list.len()),
                )
            })?;
            out.extend_from_slice(&at.to_le_bytes());
            if block[0] <= list[k * BLOCK_EDGES - 1] {
                return Err(unencodable(
                    source,
                    format!(
                        "neighbour {} follows {} (lists must be strictly increasing)",
                        block[0],
                        list[k * BLOCK_EDGES - 1]
                    ),
                ));
            }
        }
        start += block_len(codec, source, block)?;
    }
    Ok(())
}

/// Appends the encoding of `source`'s neighbour list (strictly increasing) to `out`.
pub fn encode_list(
    codec: ListCodec,
    source: u32,
    list: &[u32],
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    encode_block_index(codec, source, list, out)?;
    for block in list.chunks(BLOCK_EDGES) {
        encode_block(codec, source, block, out)?;
    }
    Ok(())
}

/// The bytes `encode_list(source, list)` appends (for a valid list).
pub fn encoded_len(codec: ListCodec, source: u32, list: &[u32]) -> Result<u64, CodecError> {
    let blocks = list.len().div_ceil(BLOCK_EDGES) as u64;
    list.chunks(BLOCK_EDGES)
        .try_fold(4 * blocks.saturating_sub(1), |len, block| {
            Ok(len + block_len(codec, source, block)?)
        })
}
