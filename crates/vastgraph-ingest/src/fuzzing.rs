//! Entry points for the fuzz targets (`fuzz/` at the workspace root) and the property tests:
//! each reader of the crate on arbitrary bytes must return `Ok` or `Err`, never panic or hang,
//! and a text reader's result must not depend on where blocks are cut. Not part of the API.

use std::io::Cursor;
use std::path::Path;

use crate::binary::{ingest_binary_in_batches, BinFormat};
use crate::edge_list::{skip_header, sniff, EdgeListParser, IdMode};
use crate::labels::LabelInterner;
use crate::sink::VecSink;
use crate::text::{ingest_text_body, DeclaredCount, LineParser, TextBody};
use crate::{dimacs, matrix_market, IngestError};

/// Edges, weights and labels read from a body.
type Outcome = (Vec<(u32, u32)>, Vec<f64>, Option<Vec<String>>);

/// Runs a text body through `parser` with the given block size; the outcome as a comparable
/// value (edges, labels, or the error message).
fn run_body(
    bytes: &[u8],
    parser: &impl LineParser,
    labels: bool,
    first_line: u64,
    declared: Option<DeclaredCount>,
    block_bytes: usize,
) -> Result<Outcome, String> {
    let mut sink = VecSink::default();
    let mut interner = labels.then(LabelInterner::default);
    let body = TextBody {
        path: Path::new("p"),
        first_line,
        declared,
        block_bytes,
        // The bytes are in memory already: the blocks are cut on this thread (the same
        // blocks as a reader thread cuts, see `blocks::tests`).
        read_ahead: false,
    };
    ingest_text_body(
        &body,
        Cursor::new(bytes.to_vec()),
        parser,
        interner.as_mut(),
        &mut sink,
        &mut || {},
    )
    .map_err(|e| e.to_string())?;
    let labels = interner.map(LabelInterner::into_labels);
    Ok((sink.pairs(), sink.weights, labels))
}

/// Every reader of the crate on `bytes`.
pub fn all_readers(bytes: &[u8]) {
    edge_list(bytes);
    matrix_market(bytes);
    dimacs(bytes);
    binary(bytes);
}

/// Parses `bytes` in blocks of 13 bytes and in one block; the two must agree unless the small
/// blocks hit a line longer than a block. (One block of the input's length plus one behaves as
/// any larger block does, without zero-filling a megabyte for every input.)
fn both_block_sizes(
    bytes: &[u8],
    parser: &impl LineParser,
    labels: bool,
    first_line: u64,
    declared: Option<DeclaredCount>,
) {
    let small = run_body(bytes, parser, labels, first_line, declared, 13);
    let large = run_body(bytes, parser, labels, first_line, declared, bytes.len() + 1);
    if !matches!(&small, Err(e) if e.contains("line too long")) {
        assert_eq!(small, large);
    }
}

/// An edge list (SNAP, TSV, CSV): sniffed with and without `--header`, then parsed from
/// after the header it found, in both id modes, weighted and not.
pub fn edge_list(bytes: &[u8]) {
    for header in [false, true] {
        let Ok(found) = sniff(Path::new("p"), bytes, header) else {
            continue;
        };
        let (first_line, body) = match &found.header {
            Some((line, _)) => match skip_header(Path::new("p"), bytes, *line) {
                Ok(mut rest) => {
                    let mut body = Vec::new();
                    let _ = std::io::Read::read_to_end(&mut rest, &mut body);
                    (line + 1, body)
                }
                Err(_) => continue,
            },
            None => (1, bytes.to_vec()),
        };
        for ids in [IdMode::Integer, IdMode::Labels] {
            for weighted in [false, true] {
                let parser = EdgeListParser { ids, weighted };
                both_block_sizes(&body, &parser, ids == IdMode::Labels, first_line, None);
            }
        }
    }
}

/// A Matrix Market file: its header, then its body against the declared entries.
pub fn matrix_market(bytes: &[u8]) {
    if let Ok((header, reader)) = matrix_market::read_header(Path::new("p"), bytes) {
        let mut rest = Vec::new();
        let _ = std::io::Read::read_to_end(&mut reader.into_inner(), &mut rest);
        let declared = Some(DeclaredCount {
            count: header.entries,
            what: "entries",
        });
        let parser = matrix_market::MatrixMarketParser { header };
        both_block_sizes(&rest, &parser, false, header.header_lines + 1, declared);
    }
}

/// A DIMACS shortest-path file: its problem line, then its arcs against the declared count.
pub fn dimacs(bytes: &[u8]) {
    if let Ok((header, reader)) = dimacs::read_header(Path::new("p"), bytes) {
        let mut rest = Vec::new();
        let _ = std::io::Read::read_to_end(&mut reader.into_inner(), &mut rest);
        let declared = Some(DeclaredCount {
            count: header.arcs,
            what: "arcs",
        });
        let parser = dimacs::DimacsParser { header };
        both_block_sizes(&rest, &parser, false, header.header_lines + 1, declared);
    }
}

/// Binary edge lists, as pairs of u32 and of u64, in batches of 3 edges and in one batch: the
/// edges and the error must not depend on where batches are cut.
pub fn binary(bytes: &[u8]) {
    for format in [BinFormat::Bin32, BinFormat::Bin64] {
        let run = |batch_edges: usize| {
            let mut sink = VecSink::default();
            let result: Result<u64, IngestError> = ingest_binary_in_batches(
                Path::new("p"),
                bytes,
                format,
                batch_edges,
                &mut sink,
                &mut || {},
            );
            // A failed read leaves the batches before the failing one in the sink: only a
            // whole read's edges are compared.
            result.map(|n| (n, sink.pairs())).map_err(|e| e.to_string())
        };
        let whole = bytes.len() / format.pair_bytes() + 1;
        assert_eq!(run(3), run(whole));
    }
}
