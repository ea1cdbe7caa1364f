//! Encoding one vertex's list. The store writer calls [`encode_list`] per vertex, or, for a
//! list too long to encode in memory at once, [`encode_block_index`] and then [`encode_block`]
//! per block, streaming the blocks out. The checks and the block index are the same for every
//! codec; a block's bytes are its codec's ([`BlockCodec::write_block`]).

use crate::codec::{with_codec, BlockCodec};
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

/// Appends one block (1 to [`BLOCK_EDGES`] neighbours of `source`, strictly increasing).
pub fn encode_block(
    codec: ListCodec,
    source: u32,
    block: &[u32],
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    with_codec!(codec, c => write_block(c, source, block, out))
}

/// [`encode_block`] in `codec`.
fn write_block<C: BlockCodec>(
    codec: C,
    source: u32,
    block: &[u32],
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    check_block(source, block)?;
    codec.write_block(source, block, out);
    Ok(())
}

fn block_len<C: BlockCodec>(codec: C, source: u32, block: &[u32]) -> Result<u64, CodecError> {
    check_block(source, block)?;
    Ok(codec.block_len(source, block) as u64)
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
    with_codec!(codec, c => write_block_index(c, source, list, out))
}

/// [`encode_block_index`] in `codec`.
fn write_block_index<C: BlockCodec>(
    codec: C,
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
    with_codec!(codec, c => write_list(c, source, list, out))
}

/// [`encode_list`] in `codec`.
fn write_list<C: BlockCodec>(
    codec: C,
    source: u32,
    list: &[u32],
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    write_block_index(codec, source, list, out)?;
    for block in list.chunks(BLOCK_EDGES) {
        write_block(codec, source, block, out)?;
    }
    Ok(())
}

/// The bytes `encode_list(source, list)` appends (for a valid list).
pub fn encoded_len(codec: ListCodec, source: u32, list: &[u32]) -> Result<u64, CodecError> {
    with_codec!(codec, c => list_len(c, source, list))
}

/// [`encoded_len`] in `codec`.
fn list_len<C: BlockCodec>(codec: C, source: u32, list: &[u32]) -> Result<u64, CodecError> {
    let blocks = list.len().div_ceil(BLOCK_EDGES) as u64;
    list.chunks(BLOCK_EDGES)
        .try_fold(4 * blocks.saturating_sub(1), |len, block| {
            Ok(len + block_len(codec, source, block)?)
        })
}
