//! Reading text input in large blocks that end at a line boundary, on a background thread
//! so that reading and decompression overlap with parsing. Plain `read()` into owned
//! buffers (no mmap): the memory budget of a conversion counts resident memory.

use std::io::{self, BufRead, BufReader, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread;

use crate::source::read_full;

/// Default block size for text parsing: large enough that per-block overheads (thread
/// hand-off, rayon split) vanish, small enough that a few blocks in flight stay cheap.
pub(crate) const TEXT_BLOCK_BYTES: usize = 8 << 20;

/// Longest line accepted while reading a header (Matrix Market, DIMACS) or sniffing.
const HEADER_LINE_LIMIT: u64 = 1 << 20;

/// What the reader thread hands over.
pub(crate) enum BlockError {
    Io(io::Error),
    /// A line does not fit in one block; carries the line's first bytes for the message.
    LineTooLong(Vec<u8>),
}

/// Iterator over blocks of whole lines (the last block may lack a final newline).
pub(crate) struct BlockReader {
    source: Source,
}

enum Source {
    /// Blocks read one ahead on a thread of their own.
    Ahead {
        /// Taken on drop, so that the reader thread's next send fails and it ends.
        blocks: Option<Receiver<Result<Vec<u8>, BlockError>>>,
        /// Joined on drop: an input abandoned on an early error leaves no thread reading on.
        worker: Option<thread::JoinHandle<()>>,
        /// Used blocks go back to the reader thread: reusing them avoids page-faulting in and
        /// zero-filling a fresh 16 MiB buffer per block.
        spare: SyncSender<Vec<u8>>,
    },
    /// Blocks read when asked for, on the caller's thread: the same blocks, for an input
    /// already in memory, where a thread would overlap nothing.
    InPlace {
        cutter: Cutter<Box<dyn Read + Send>>,
        spare: Option<Vec<u8>>,
    },
}

/// Cuts a stream into blocks of at most `block_bytes` that end at a newline; the bytes after
/// a block's last newline start the next one.
struct Cutter<R> {
    stream: R,
    carry: Vec<u8>,
    block_bytes: usize,
    ended: bool,
}

impl<R: Read> Cutter<R> {
    fn new(stream: R, block_bytes: usize) -> Self {
        Cutter {
            stream,
            carry: Vec::new(),
            block_bytes,
            ended: false,
        }
    }

    /// The next block, filled into `block` (a used one or an empty one); `None` at the end.
    /// After an error, the end.
    fn next(&mut self, mut block: Vec<u8>) -> Option<Result<Vec<u8>, BlockError>> {
        if self.ended {
            return None;
        }
        // Only the part beyond the recycled block's length gets zero-filled.
        block.resize(self.block_bytes.max(self.carry.len() + 1), 0);
        block[..self.carry.len()].copy_from_slice(&self.carry);
        let kept = self.carry.len();
        let read = match read_full(&mut self.stream, &mut block[kept..]) {
            Ok(n) => n,
            Err(e) => {
                self.ended = true;
                return Some(Err(BlockError::Io(e)));
            }
        };
        let filled = kept + read;
        if filled < block.len() {
            self.ended = true;
            block.truncate(filled);
            return (!block.is_empty()).then_some(Ok(block));
        }
        match memchr::memrchr(b'\n', &block) {
            Some(last_newline) => {
                self.carry.clear();
                self.carry.extend_from_slice(&block[last_newline + 1..]);
                block.truncate(last_newline + 1);
                Some(Ok(block))
            }
            None => {
                self.ended = true;
                block.truncate(200);
                Some(Err(BlockError::LineTooLong(block)))
            }
        }
    }
}

impl BlockReader {
    /// Reads `stream` in blocks of `block_bytes`: with `read_ahead`, on a thread that reads one
    /// block ahead while the caller works on the current one.
    pub(crate) fn new(
        stream: impl Read + Send + 'static,
        block_bytes: usize,
        read_ahead: bool,
    ) -> BlockReader {
        if !read_ahead {
            let stream: Box<dyn Read + Send> = Box::new(stream);
            return BlockReader {
                source: Source::InPlace {
                    cutter: Cutter::new(stream, block_bytes),
                    spare: None,
                },
            };
        }
        let mut cutter = Cutter::new(stream, block_bytes);
        let (tx, rx) = sync_channel(1);
        let (spare_tx, spare_rx) = sync_channel::<Vec<u8>>(2);
        // The thread ends at end of input, on an error, or when the receiver is dropped
        // (its next send fails); dropping the reader joins it.
        let worker = thread::spawn(move || {
            while let Some(block) = cutter.next(spare_rx.try_recv().unwrap_or_default()) {
                if tx.send(block).is_err() {
                    return;
                }
            }
        });
        BlockReader {
            source: Source::Ahead {
                blocks: Some(rx),
                worker: Some(worker),
                spare: spare_tx,
            },
        }
    }

    /// The next block; `None` at end of input.
    pub(crate) fn next_block(&mut self) -> Option<Result<Vec<u8>, BlockError>> {
        match &mut self.source {
            Source::Ahead { blocks, .. } => blocks.as_ref()?.recv().ok(),
            Source::InPlace { cutter, spare } => cutter.next(spare.take().unwrap_or_default()),
        }
    }

    /// Hands a consumed block back for reuse.
    pub(crate) fn recycle(&mut self, block: Vec<u8>) {
        match &mut self.source {
            Source::Ahead { spare, .. } => {
                let _ = spare.try_send(block);
            }
            Source::InPlace { spare, .. } => *spare = Some(block),
        }
    }
}

impl Drop for BlockReader {
    fn drop(&mut self) {
        if let Source::Ahead { blocks, worker, .. } = &mut self.source {
            // The thread is at most one block's read from its next send, which now fails.
            blocks.take();
            if let Some(worker) = worker.take() {
                let _ = worker.join();
            }
        }
    }
}

/// Reads the first lines of a text input one at a time (headers, sniffing), counting them.
/// `into_inner` hands the rest of the stream, buffered bytes included, to a `BlockReader`.
pub(crate) struct LineReader<R> {
    inner: BufReader<R>,
    /// Lines consumed so far.
    pub(crate) lines: u64,
}

impl<R: Read> LineReader<R> {
    pub(crate) fn new(stream: R) -> Self {
        LineReader {
            inner: BufReader::with_capacity(1 << 16, stream),
            lines: 0,
        }
    }

    /// Reads the next line into `line` (newline stripped). `Ok(false)` at end of input.
    pub(crate) fn next_line(&mut self, line: &mut Vec<u8>) -> Result<bool, BlockError> {
        line.clear();
        let n = (&mut self.inner)
            .take(HEADER_LINE_LIMIT)
            .read_until(b'\n', line)
            .map_err(BlockError::Io)?;
        if n == 0 {
            return Ok(false);
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        } else if n as u64 == HEADER_LINE_LIMIT {
            line.truncate(200);
            return Err(BlockError::LineTooLong(std::mem::take(line)));
        }
        self.lines += 1;
        Ok(true)
    }

    /// [`Self::next_line`] with its errors as the ingest errors of the file at `path`: an I/O
    /// error, or a line too long, named by its number.
    pub(crate) fn next_line_in(
        &mut self,
        path: &std::path::Path,
        line: &mut Vec<u8>,
    ) -> Result<bool, crate::IngestError> {
        self.next_line(line).map_err(|e| match e {
            BlockError::Io(e) => crate::IngestError::io(path, e),
            BlockError::LineTooLong(start) => {
                crate::IngestError::parse(path, self.lines + 1, "line too long", &start)
            }
        })
    }

    pub(crate) fn into_inner(self) -> BufReader<R> {
        self.inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks of `data`, read ahead on a thread and in place: the two must be the same.
    fn collect_blocks(data: &[u8], block_bytes: usize) -> Vec<Result<Vec<u8>, String>> {
        let [ahead, in_place] = [true, false].map(|read_ahead| {
            let mut reader =
                BlockReader::new(std::io::Cursor::new(data.to_vec()), block_bytes, read_ahead);
            let mut out = Vec::new();
            while let Some(b) = reader.next_block() {
                out.push(b.map_err(|e| match e {
                    BlockError::Io(e) => e.to_string(),
                    BlockError::LineTooLong(_) => "too long".to_string(),
                }));
            }
            out
        });
        assert_eq!(ahead, in_place, "block_bytes {block_bytes}");
        ahead
    }

    #[test]
    fn blocks_end_at_newlines_and_concatenate_to_the_input() {
        let data = b"1 2\n33 44\n555 666\n7 8".to_vec();
        for block_bytes in [10, 11, 12, 64] {
            let blocks: Vec<Vec<u8>> = collect_blocks(&data, block_bytes)
                .into_iter()
                .map(Result::unwrap)
                .collect();
            let (last, full) = blocks.split_last().unwrap();
            for b in full {
                assert_eq!(b.last(), Some(&b'\n'), "block_bytes {block_bytes}");
                assert!(b.len() <= block_bytes);
            }
            assert!(last.len() <= block_bytes);
            assert_eq!(blocks.concat(), data, "block_bytes {block_bytes}");
        }
    }

    #[test]
    fn a_line_longer_than_a_block_is_an_error_not_a_hang() {
        let blocks = collect_blocks(b"1 2\n0123456789012345 6\n", 8);
        assert_eq!(blocks[0].as_deref().unwrap(), b"1 2\n");
        assert_eq!(blocks[1].as_deref().unwrap_err(), "too long");
    }

    #[test]
    fn line_reader_counts_lines_and_hands_over_the_rest() {
        let mut r = LineReader::new(std::io::Cursor::new(b"a\r\nb\nrest\nmore".to_vec()));
        let mut line = Vec::new();
        assert!(r.next_line(&mut line).ok().unwrap());
        assert_eq!(line, b"a\r");
        assert!(r.next_line(&mut line).ok().unwrap());
        assert_eq!((line.as_slice(), r.lines), (&b"b"[..], 2));
        let mut rest = Vec::new();
        r.into_inner().read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"rest\nmore");
    }
}
