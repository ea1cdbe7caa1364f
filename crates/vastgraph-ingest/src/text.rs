//! The parallel text pipeline shared by all line-oriented formats: a reader thread yields
//! blocks of whole lines; each block is cut at newlines into pieces parsed in parallel by a
//! format's `LineParser`; the pieces' edges go to the sink strictly in input order. Line
//! numbers are kept exact by adding up the pieces' line counts in order.

use std::io::Read;
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use crate::blocks::{BlockError, BlockReader};
use crate::labels::{LabelInterner, TooManyLabels};
use crate::sink::EdgeSink;
use crate::{check_cancelled, IngestError};

/// Pieces smaller than this are not worth a rayon task. Unit tests use tiny pieces so that
/// small inputs cross piece boundaries too.
const MIN_PIECE_BYTES: usize = if cfg!(test) { 16 } else { 64 << 10 };

/// Edges parsed from one piece of a block.
#[derive(Debug, Default)]
pub(crate) struct Edges {
    pub(crate) src: Vec<u32>,
    pub(crate) dst: Vec<u32>,
    /// Empty for unweighted inputs, else one weight per edge.
    pub(crate) weights: Vec<f64>,
    /// Label mode only: byte ranges (in the block) of the source and destination labels,
    /// two per edge; turned into ids sequentially so ids follow first appearance.
    pub(crate) label_spans: Vec<Range<u32>>,
}

/// A text format's per-line parser. Must be pure: pieces are parsed concurrently.
pub(crate) trait LineParser: Sync {
    /// Parses one line (newline stripped) that starts at byte `offset` of its block.
    /// `Ok(true)`: the line held an edge, appended to `out`; `Ok(false)`: a line to skip
    /// (blank, comment); `Err(reason)`: a malformed line.
    fn parse_line(&self, line: &[u8], offset: usize, out: &mut Edges) -> Result<bool, String>;

    /// Optional fast path for the most common line shape. Parses the line starting at
    /// `text[start]` (`text` ends where the piece ends) and returns where the next line
    /// starts, or returns `None` having appended nothing; the caller then finds the line's
    /// end and calls `parse_line`. Whatever it accepts, `parse_line` must parse the same.
    #[inline]
    fn parse_fast(&self, _text: &[u8], _start: usize, _out: &mut Edges) -> Option<usize> {
        None
    }
}

/// A record count declared in a header (Matrix Market nnz, DIMACS arcs), to be checked.
#[derive(Clone, Copy)]
pub(crate) struct DeclaredCount {
    pub(crate) count: u64,
    /// Names what was declared, e.g. "entries declared in the size line".
    pub(crate) what: &'static str,
}

/// Where a text body starts and what to check.
pub(crate) struct TextBody<'a> {
    pub(crate) path: &'a Path,
    /// 1-based number of the first line of `stream` (after any header).
    pub(crate) first_line: u64,
    pub(crate) declared: Option<DeclaredCount>,
    pub(crate) block_bytes: usize,
    /// Read the next block on a thread while this one is parsed (see [`BlockReader::new`]).
    pub(crate) read_ahead: bool,
}

struct Failure {
    line_in_piece: u64,
    reason: String,
    line: Range<usize>,
}

struct Piece {
    range: Range<usize>,
    edges: Edges,
    lines: u64,
    records: u64,
    failure: Option<Failure>,
    /// Where `scan_piece` stopped on request: line index in the piece and byte range.
    stopped_at: Option<(u64, Range<usize>)>,
}

/// Streams the body of a text input through `parser` into `sink`; returns the number of
/// edges (records) read. `labels` is `Some` in label mode.
pub(crate) fn ingest_text_body(
    body: &TextBody,
    stream: impl Read + Send + 'static,
    parser: &impl LineParser,
    mut labels: Option<&mut LabelInterner>,
    sink: &mut dyn EdgeSink,
    after_block: &mut dyn FnMut(),
) -> Result<u64, IngestError> {
    let path = body.path;
    let mut reader = BlockReader::new(stream, body.block_bytes, body.read_ahead);
    let mut next_line = body.first_line;
    let mut records: u64 = 0;
    let mut ids: (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    while let Some(block) = reader.next_block() {
        let block = block.map_err(|e| block_error(path, next_line, e))?;
        let pieces = parse_block(&block, parser);
        for piece in pieces {
            // Before the piece's failure: the records it counted all precede the failing line,
            // so a record past the declared count is the earlier error, whatever the blocks.
            if let Some(declared) = body.declared {
                if records + piece.records > declared.count {
                    let fitting = declared.count - records;
                    let (rel, text) = nth_record_line(&block, &piece.range, parser, fitting);
                    return Err(IngestError::parse(
                        path,
                        next_line + rel,
                        format!("more than the {} {}", declared.count, declared.what),
                        &block[text],
                    ));
                }
            }
            if let Some(f) = &piece.failure {
                let line = next_line + f.line_in_piece;
                return Err(IngestError::parse(
                    path,
                    line,
                    &f.reason,
                    &block[f.line.clone()],
                ));
            }
            let Edges {
                src,
                dst,
                weights,
                label_spans,
            } = &piece.edges;
            let (src, dst) = match labels.as_deref_mut() {
                Some(interner) if !label_spans.is_empty() => {
                    intern_spans(&block, label_spans, interner, &mut ids)
                        .map_err(|_| too_many_labels(path, next_line))?;
                    (&ids.0, &ids.1)
                }
                _ => (src, dst),
            };
            if !src.is_empty() {
                let weights = (!weights.is_empty()).then_some(&weights[..]);
                sink.push_batch(src, dst, weights)
                    .map_err(|source| IngestError::Sink {
                        path: path.to_path_buf(),
                        source,
                    })?;
            }
            records += piece.records;
            next_line += piece.lines;
        }
        reader.recycle(block);
        after_block();
        check_cancelled()?;
    }
    if let Some(declared) = body.declared {
        if records < declared.count {
            return Err(IngestError::invalid(
                path,
                format!(
                    "the file ends after {records} of the {} {}",
                    declared.count, declared.what
                ),
            ));
        }
    }
    Ok(records)
}

fn block_error(path: &Path, line: u64, e: BlockError) -> IngestError {
    match e {
        BlockError::Io(e) => IngestError::io(path, e),
        BlockError::LineTooLong(start) => IngestError::parse(
            path,
            line,
            "line too long (is this a text edge list?)",
            &start,
        ),
    }
}

fn too_many_labels(path: &Path, line: u64) -> IngestError {
    IngestError::invalid(
        path,
        format!(
            "more than {} distinct vertex labels by line {line}",
            vastgraph_store::MAX_VERTICES
        ),
    )
}

/// Cuts `block` at newlines into about `threads × 4` pieces and parses them in parallel.
fn parse_block(block: &[u8], parser: &impl LineParser) -> Vec<Piece> {
    let wanted = (rayon::current_num_threads() * 4).clamp(1, block.len() / MIN_PIECE_BYTES + 1);
    let mut ranges = Vec::with_capacity(wanted);
    let mut start = 0;
    for k in 1..=wanted {
        let target = block.len() * k / wanted;
        if target <= start {
            continue;
        }
        let end = if k == wanted {
            block.len()
        } else {
            match memchr::memchr(b'\n', &block[target - 1..]) {
                Some(i) => target + i,
                None => block.len(),
            }
        };
        ranges.push(start..end);
        start = end;
        if start == block.len() {
            break;
        }
    }
    ranges
        .into_par_iter()
        .map(|range| scan_piece(block, range, parser, u64::MAX))
        .collect()
}

/// Parses the lines of `block[range]`, stopping at the first malformed one, or after the
/// record numbered `stop_after` (then `Piece::stopped_at` tells where it was).
fn scan_piece(
    block: &[u8],
    range: Range<usize>,
    parser: &impl LineParser,
    stop_after: u64,
) -> Piece {
    // Lines never extend past the piece: the fast path sees only the piece's bytes.
    let text = &block[..range.end];
    let mut piece = Piece {
        range: range.clone(),
        edges: Edges::default(),
        lines: 0,
        records: 0,
        failure: None,
        stopped_at: None,
    };
    let mut pos = range.start;
    while pos < range.end {
        let (line_end, next, is_record) = match parser.parse_fast(text, pos, &mut piece.edges) {
            Some(next) => (
                if text[next - 1] == b'\n' {
                    next - 1
                } else {
                    next
                },
                next,
                true,
            ),
            None => {
                let end = memchr::memchr(b'\n', &text[pos..]).map_or(range.end, |i| pos + i);
                match parser.parse_line(&text[pos..end], pos, &mut piece.edges) {
                    Ok(is_record) => (end, end + 1, is_record),
                    Err(reason) => {
                        piece.failure = Some(Failure {
                            line_in_piece: piece.lines,
                            reason,
                            line: pos..end,
                        });
                        return piece;
                    }
                }
            }
        };
        if is_record {
            piece.records += 1;
            if piece.records == stop_after {
                piece.stopped_at = Some((piece.lines, pos..line_end));
                return piece;
            }
        }
        piece.lines += 1;
        pos = next;
    }
    piece
}

/// The line (index in the piece, byte range) of record number `k + 1` of a piece that holds
/// more than `k` records before its failure, if it has one.
fn nth_record_line(
    block: &[u8],
    range: &Range<usize>,
    parser: &impl LineParser,
    k: u64,
) -> (u64, Range<usize>) {
    let piece = scan_piece(block, range.clone(), parser, k + 1);
    // The fallback (piece start) is unreachable under the precondition.
    piece.stopped_at.unwrap_or((0, range.start..range.start))
}

fn intern_spans(
    block: &[u8],
    spans: &[Range<u32>],
    interner: &mut LabelInterner,
    ids: &mut (Vec<u32>, Vec<u32>),
) -> Result<(), TooManyLabels> {
    ids.0.clear();
    ids.1.clear();
    for pair in spans.chunks_exact(2) {
        let label = |r: &Range<u32>| &block[r.start as usize..r.end as usize];
        ids.0.push(interner.id_of(label(&pair[0]))?);
        ids.1.push(interner.id_of(label(&pair[1]))?);
    }
    Ok(())
}
