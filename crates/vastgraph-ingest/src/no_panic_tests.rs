//! Property tests: every reader returns `Ok` or `Err` on arbitrary input, never panics;
//! and the result never depends on where blocks are cut.

use std::io::Cursor;
use std::path::Path;

use proptest::prelude::*;

use crate::binary::{ingest_binary, BinFormat};
use crate::edge_list::{sniff, EdgeListParser, IdMode};
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

/// Every text reader on `bytes`, at two block sizes; the results must agree unless the
/// small blocks hit a line longer than a block.
fn all_text_readers(bytes: &[u8]) {
    let _ = sniff(Path::new("p"), bytes, false);
    let _ = sniff(Path::new("p"), bytes, true);
    for ids in [IdMode::Integer, IdMode::Labels] {
        for weighted in [false, true] {
            let parser = EdgeListParser { ids, weighted };
            let labels = ids == IdMode::Labels;
            let small = run_body(bytes, &parser, labels, 1, None, 13);
            let large = run_body(bytes, &parser, labels, 1, None, 1 << 20);
            if !matches!(&small, Err(e) if e.contains("line too long")) {
                assert_eq!(small, large);
            }
        }
    }
    if let Ok((header, reader)) = matrix_market::read_header(Path::new("p"), bytes) {
        let mut rest = Vec::new();
        let _ = std::io::Read::read_to_end(&mut reader.into_inner(), &mut rest);
        let declared = Some(DeclaredCount {
            count: header.entries,
            what: "entries",
        });
        let parser = matrix_market::MatrixMarketParser { header };
        let _ = run_body(&rest, &parser, false, header.header_lines + 1, declared, 13);
        let _ = run_body(
            &rest,
            &parser,
            false,
            header.header_lines + 1,
            declared,
            1 << 20,
        );
    }
    if let Ok((header, reader)) = dimacs::read_header(Path::new("p"), bytes) {
        let mut rest = Vec::new();
        let _ = std::io::Read::read_to_end(&mut reader.into_inner(), &mut rest);
        let declared = Some(DeclaredCount {
            count: header.arcs,
            what: "arcs",
        });
        let parser = dimacs::DimacsParser { header };
        let _ = run_body(
            &rest,
            &parser,
            false,
            header.header_lines + 1,
            declared,
            1 << 20,
        );
    }
    for format in [BinFormat::Bin32, BinFormat::Bin64] {
        let result: Result<u64, IngestError> = ingest_binary(
            Path::new("p"),
            bytes,
            format,
            &mut VecSink::default(),
            &mut || {},
        );
        let _ = result;
    }
}

/// Lines made of tokens that mean something to some parser, to get past the headers.
fn line_soup() -> impl Strategy<Value = Vec<u8>> {
    let token = prop::sample::select(vec![
        "0",
        "1",
        "2",
        "3",
        "-1",
        "7.5",
        "1e3",
        "nan",
        "4294967295",
        "99999999999999999999",
        "a",
        "b",
        "é",
        "\u{ff}",
        "%%MatrixMarket",
        "matrix",
        "coordinate",
        "array",
        "pattern",
        "integer",
        "real",
        "general",
        "symmetric",
        "p",
        "sp",
        "c",
        "#",
        "%",
        ",",
        "\t",
        " ",
        "",
        "\r",
    ]);
    let line = prop::collection::vec(token, 0..6).prop_map(|t| t.join(" "));
    prop::collection::vec(line, 0..40).prop_map(|lines| lines.join("\n").into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        all_text_readers(&bytes);
    }

    #[test]
    fn arbitrary_lines_never_panic(bytes in line_soup()) {
        all_text_readers(&bytes);
    }

    #[test]
    fn headers_with_arbitrary_bodies_never_panic(
        header in prop::sample::select(vec![
            "%%MatrixMarket matrix coordinate pattern general\n3 4 5\n",
            "%%MatrixMarket matrix coordinate real symmetric\n% c\n4 4 2\n",
            "c x\np sp 4 3\n",
        ]),
        body in line_soup(),
    ) {
        let mut bytes = header.as_bytes().to_vec();
        bytes.extend(body);
        all_text_readers(&bytes);
    }
}
