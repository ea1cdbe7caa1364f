//! Property tests of [`crate::fuzzing`]'s readers: every reader returns `Ok` or `Err` on
//! arbitrary input, never panics; and the result never depends on where blocks are cut.

use proptest::prelude::*;

use crate::fuzzing::all_readers as all_text_readers;

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

/// Inputs the fuzz targets found: a record past the declared count and a malformed line after
/// it in one piece of a large block, but in two pieces of small blocks; the error named the
/// malformed line or the extra record depending on the block size.
#[test]
fn the_first_error_is_reported_whatever_the_blocks() {
    let dimacs: &[u8] = &[
        112, 32, 115, 112, 32, 51, 32, 48, 10, 97, 32, 49, 32, 50, 32, 49, 10, 97, 32, 50, 32, 52,
        97, 32, 115, 1, 0, 255, 255, 33, 0, 255, 255, 255, 223, 51, 223, 255, 255, 255, 255, 255,
        255, 47, 50, 1, 2, 74, 112, 26, 0, 0, 0, 0, 0, 32, 50, 32, 52, 32, 49, 10,
    ];
    let matrix_market: &[u8] = &[
        37, 37, 77, 97, 116, 114, 105, 120, 77, 97, 114, 107, 101, 116, 32, 109, 97, 116, 114, 105,
        120, 32, 99, 111, 111, 114, 100, 105, 110, 97, 116, 101, 32, 114, 101, 97, 108, 32, 115,
        121, 109, 109, 101, 116, 114, 105, 99, 10, 51, 32, 51, 32, 49, 10, 49, 32, 49, 32, 50, 46,
        51, 53, 10, 50, 32, 49, 32, 50, 46, 48, 10, 254, 255, 255, 255, 255, 107, 101, 116, 32,
        109, 97, 116, 114, 105, 120, 32, 99, 111, 32, 52, 101, 48, 10,
    ];
    for bytes in [dimacs, matrix_market] {
        all_text_readers(bytes);
    }
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
