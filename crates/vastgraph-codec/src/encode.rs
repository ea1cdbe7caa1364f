//! Encoding one vertex's list. The store writer calls [`encode_list`] per vertex, or, for a
//! list too long to encode in memory at once, [`encode_block_index`] and then [`encode_block`]
//! per block, streaming the blocks out.

use crate::varint::{varint_len, write_varint, zigzag};
use crate::{CodecError, BLOCK_EDGES};

fn unencodable(source: u32, reason: String) -> CodecError {
    CodecError::Unencodable {
        vertex: source as u64,
        reason,
    }
}

/// The block's numbers in order: the first neighbour relative to the source, then gaps minus
/// one. Errors when the block is not strictly increasing.
#[inline]
fn block_codes(source: u32, block: &[u32]) -> impl Iterator<Item = Result<u64, CodecError>> + '_ {
    let first = block.first().map(|&w| Ok(zigzag(w as i64 - source as i64)));
    let gaps = block.windows(2).map(move |pair| {
        if pair[1] > pair[0] {
            Ok((pair[1] - pair[0] - 1) as u64)
        } else {
            Err(unencodable(
                source,
                format!(
                    "neighbour {} follows {} (lists must be strictly increasing)",
                    pair[1], pair[0]
                ),
            ))
        }
    });
    first.into_iter().chain(gaps)
}

fn check_block_size(source: u32, block: &[u32]) -> Result<(), CodecError> {
    if block.is_empty() || block.len() > BLOCK_EDGES {
        return Err(unencodable(
            source,
            format!(
                "a block holds 1 to {BLOCK_EDGES} neighbours, not {}",
                block.len()
            ),
        ));
    }
    Ok(())
}

/// Appends one block (1 to [`BLOCK_EDGES`] neighbours of `source`, strictly increasing).
pub fn encode_block(source: u32, block: &[u32], out: &mut Vec<u8>) -> Result<(), CodecError> {
    check_block_size(source, block)?;
    for code in block_codes(source, block) {
        write_varint(code?, out);
    }
    Ok(())
}

fn block_len(source: u32, block: &[u32]) -> Result<u64, CodecError> {
    block_codes(source, block).try_fold(0u64, |len, code| Ok(len + varint_len(code?) as u64))
}

/// Appends the block index of `list`: the start of every block but the first, as a u32 relative
/// to the list's first byte. Checks the whole list is strictly increasing; errors when the list
/// would take more than 4 GiB.
pub fn encode_block_index(source: u32, list: &[u32], out: &mut Vec<u8>) -> Result<(), CodecError> {
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
        start += block_len(source, block)?;
    }
    Ok(())
}

/// Appends the encoding of `source`'s neighbour list (strictly increasing) to `out`.
pub fn encode_list(source: u32, list: &[u32], out: &mut Vec<u8>) -> Result<(), CodecError> {
    encode_block_index(source, list, out)?;
    for block in list.chunks(BLOCK_EDGES) {
        encode_block(source, block, out)?;
    }
    Ok(())
}

/// The bytes `encode_list(source, list)` appends (for a valid list).
pub fn encoded_len(source: u32, list: &[u32]) -> Result<u64, CodecError> {
    let blocks = list.len().div_ceil(BLOCK_EDGES) as u64;
    list.chunks(BLOCK_EDGES)
        .try_fold(4 * blocks.saturating_sub(1), |len, block| {
            Ok(len + block_len(source, block)?)
        })
}
