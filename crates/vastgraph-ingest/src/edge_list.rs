//! Text edge lists (SNAP, TSV, CSV, ...): one `src dst [weight]` per line, separated by
//! whitespace, tabs or commas; `#` and `%` lines and blank lines are skipped. A field may be
//! quoted as in CSV (`"carol smith"`), the quotes not part of it. Ids are either non-negative
//! integers used as they are, or labels (any text) remapped to dense ids.

use std::io::Read;
use std::path::Path;

use crate::blocks::LineReader;
use crate::labels::{LABEL_BREAKS, LABEL_BREAK_REFUSAL};
use crate::text::{Edges, LineParser};
use crate::tokens::{
    is_blank_or_comment, is_separator, leading_vertex, parse_vertex, parse_weight, separators_end,
    Fields, IdError, NOT_A_STORABLE_WEIGHT,
};
use crate::IngestError;

const COMMENT_MARKERS: &[u8] = b"#%";

/// Whether vertex ids are used as integers or remapped as labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdMode {
    Integer,
    Labels,
}

pub(crate) struct EdgeListParser {
    pub(crate) ids: IdMode,
    /// Expect a third (weight) column on every data line.
    pub(crate) weighted: bool,
}

impl LineParser for EdgeListParser {
    #[inline]
    fn parse_line(&self, line: &[u8], offset: usize, out: &mut Edges) -> Result<bool, String> {
        self.parse_general(line, offset, out)
    }

    #[inline]
    fn parse_fast(&self, text: &[u8], start: usize, out: &mut Edges) -> Option<usize> {
        match self.ids {
            IdMode::Integer => fast_integer_line(text, start, self.weighted, out),
            IdMode::Labels => None,
        }
    }
}

impl EdgeListParser {
    /// Any line, any id mode: tokenizes, then checks columns, ids and weight.
    fn parse_general(&self, line: &[u8], offset: usize, out: &mut Edges) -> Result<bool, String> {
        if is_blank_or_comment(line, COMMENT_MARKERS) {
            return Ok(false);
        }
        let mut fields = Fields::new(line);
        let mut next_field = || fields.next().transpose().map_err(String::from);
        let Some(first) = next_field()? else {
            return Ok(false);
        };
        let Some(second) = next_field()? else {
            let mut message =
                "expected 'src dst' or 'src dst weight', found one column".to_string();
            if let Some(&other) = line.iter().find(|b| b";|".contains(b)) {
                message += &format!(
                    " (columns are separated by spaces, tabs or commas, not '{}': `tr '{0}' ','` \
                     rewrites them)",
                    other as char
                );
            }
            return Err(message);
        };
        let third = next_field()?;
        if next_field()?.is_some() {
            return Err("too many columns (expected 'src dst' or 'src dst weight')".into());
        }
        let weight = match (third, self.weighted) {
            (Some(w), true) => Some(parse_weight(&line[w.clone()]).ok_or_else(|| {
                // A word where the weight goes is a header's column name, or the rest of a
                // label that held a space.
                let number = std::str::from_utf8(&line[w]).is_ok_and(|t| t.parse::<f64>().is_ok());
                match number {
                    true => format!("the weight is {NOT_A_STORABLE_WEIGHT}"),
                    false => "the third column is not a number: if this line is a header, \
                        --header skips it; a label ends at a space, tab or comma unless quoted (\"carol smith\")"
                        .to_string(),
                }
            })?),
            (None, false) => None,
            (None, true) => {
                return Err("missing weight: this input is weighted (its first data line has 3 columns)".into())
            }
            (Some(_), false) => {
                return Err("unexpected third (weight) column: this input is unweighted (its first data line has 2 columns)".into())
            }
        };
        match self.ids {
            IdMode::Integer => {
                out.src.push(integer_id(&line[first])?);
                out.dst.push(integer_id(&line[second])?);
            }
            IdMode::Labels => {
                for token in [first, second] {
                    let Ok(label) = std::str::from_utf8(&line[token.clone()]) else {
                        return Err("vertex label is not valid UTF-8".into());
                    };
                    // Only a quoted field can hold these, or be empty.
                    if label.contains(LABEL_BREAKS) {
                        return Err(format!("vertex label {label:?} {LABEL_BREAK_REFUSAL}"));
                    }
                    if label.is_empty() {
                        return Err("a vertex label is empty (\"\")".into());
                    }
                    // Blocks are at most a few tens of MiB, so offsets fit u32.
                    let start = (offset + token.start) as u32;
                    out.label_spans.push(start..start + token.len() as u32);
                }
            }
        }
        if let Some(w) = weight {
            out.weights.push(w);
        }
        Ok(true)
    }
}

/// The common line `<id><sep><id>[<sep><weight>][<sep>]` followed by a newline (or the end
/// of `text`), parsed without tokenizing or searching for the line end first. Returns the
/// start of the next line, or `None` (having appended nothing) for any other shape, which
/// the general path then parses or reports.
#[inline]
fn fast_integer_line(text: &[u8], start: usize, weighted: bool, out: &mut Edges) -> Option<usize> {
    // A run of two commas is an empty field, which the general path reports.
    let skip_separators = |pos: usize| separators_end(text, pos, 1);
    let (u, after_u) = leading_vertex(text, start)?;
    let pos = skip_separators(after_u)?;
    if pos == after_u {
        return None;
    }
    let (v, after_v) = leading_vertex(text, pos)?;
    let mut pos = skip_separators(after_v)?;
    let weight = if weighted {
        let weight_start = pos;
        if weight_start == after_v {
            return None;
        }
        while pos < text.len() && !is_separator(text[pos]) && text[pos] != b'\n' {
            pos += 1;
        }
        let weight = parse_weight(&text[weight_start..pos])?;
        pos = skip_separators(pos)?;
        Some(weight)
    } else {
        None
    };
    let next = match text.get(pos) {
        None => pos,
        Some(b'\n') => pos + 1,
        Some(_) => return None,
    };
    out.src.push(u);
    out.dst.push(v);
    if let Some(w) = weight {
        out.weights.push(w);
    }
    Some(next)
}

fn integer_id(token: &[u8]) -> Result<u32, String> {
    parse_vertex(token).map_err(|e| match e {
        IdError::NotInteger => format!(
            "vertex id '{}' is not a non-negative integer, and the ids are integers (the first \
             data line of the first input says so); use --relabel to read every id as a label",
            String::from_utf8_lossy(&token[..token.len().min(64)])
        ),
        IdError::TooLarge(v) => format!(
            "vertex id {v} is not below the limit of {} vertices (ids are u32); \
             use --relabel to remap sparse ids to dense ones",
            vastgraph_store::MAX_VERTICES
        ),
    })
}

/// What the first data lines of an edge list reveal. The id kind is decided here, once: the
/// ids are integers unless the first data line (after a header) holds a token that is not one,
/// and a token of the other kind further on is an error rather than a reason to renumber.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct EdgeListSniff {
    /// Columns of the first data line (`None`: no data line at all).
    pub(crate) first_columns: Option<usize>,
    /// The first data line's ids are not all non-negative integers: the input has labels.
    pub(crate) has_non_integer_ids: bool,
    /// The header line to skip: its 1-based number and text. Given (`header`), or detected:
    /// a first data line with a non-integer id followed by one whose ids are integers.
    pub(crate) header: Option<(u64, String)>,
    /// The first data line, read as an edge between labels, when its ids are column names
    /// such as `src,dst` or `source target`: most likely a header that `--header` skips.
    pub(crate) header_like: Option<(u64, String)>,
}

/// Words a header names an edge list's id columns with (compared in lowercase).
const ID_COLUMN_NAMES: &[&str] = &[
    "src",
    "dst",
    "source",
    "target",
    "from",
    "to",
    "u",
    "v",
    "node1",
    "node2",
    "head",
    "tail",
    "id1",
    "id2",
    "from_id",
    "to_id",
    "src_id",
    "dst_id",
    "source_id",
    "target_id",
];

impl EdgeListSniff {
    /// Weighted iff the first data line has a third column; `None` for an empty input.
    pub(crate) fn weighted(&self) -> Option<bool> {
        self.first_columns.map(|c| c >= 3)
    }
}

/// The columns of a data line, and whether its two ids are non-negative integers.
fn line_shape(line: &[u8]) -> (usize, bool) {
    // A malformed field ends the line; parsing it reports why, with its number.
    let tokens: Vec<_> = Fields::new(line).map_while(Result::ok).collect();
    let integer_ids = tokens
        .iter()
        .take(2)
        .all(|t| crate::tokens::parse_u64(&line[t.clone()]).is_some());
    (tokens.len(), integer_ids)
}

/// Looks at the first two data lines of an edge list; with `header`, the first is a header.
pub(crate) fn sniff(
    path: &Path,
    stream: impl Read,
    header: bool,
) -> Result<EdgeListSniff, IngestError> {
    let mut reader = LineReader::new(stream);
    let mut line = Vec::new();
    // (line number, text) of the first two data lines.
    let mut data: Vec<(u64, Vec<u8>)> = Vec::with_capacity(2);
    while data.len() < 2 && reader.next_line_in(path, &mut line)? {
        if !is_blank_or_comment(&line, COMMENT_MARKERS) {
            data.push((reader.lines, line.clone()));
        }
    }
    let shapes: Vec<(usize, bool)> = data.iter().map(|(_, l)| line_shape(l)).collect();
    let detected = matches!(shapes[..], [(_, false), (_, true)]);
    let header_line = (header || detected).then(|| data.first()).flatten();
    let body = usize::from(header_line.is_some());
    let names_columns = |line: &[u8]| {
        let fields: Vec<_> = Fields::new(line).map_while(Result::ok).take(2).collect();
        fields.len() == 2
            && fields.into_iter().all(|f| {
                let word = String::from_utf8_lossy(&line[f]).to_lowercase();
                ID_COLUMN_NAMES.contains(&word.as_str())
            })
    };
    let header_like = match (header_line, data.first()) {
        (None, Some((number, text))) if names_columns(text) => {
            Some((*number, String::from_utf8_lossy(text).into_owned()))
        }
        _ => None,
    };
    Ok(EdgeListSniff {
        header_like,
        first_columns: shapes.get(body).map(|s| s.0),
        has_non_integer_ids: shapes.get(body).is_some_and(|s| !s.1),
        header: header_line
            .map(|(number, text)| (*number, String::from_utf8_lossy(text).into_owned())),
    })
}

/// Skips `stream`'s lines up to and including line `header` (1-based); returns the rest.
pub(crate) fn skip_header<R: Read>(
    path: &Path,
    stream: R,
    header: u64,
) -> Result<std::io::BufReader<R>, IngestError> {
    let mut reader = LineReader::new(stream);
    let mut line = Vec::new();
    // At the end of the file (it changed since it was sniffed) what is left is parsed as it is.
    while reader.lines < header && reader.next_line_in(path, &mut line)? {}
    Ok(reader.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(parser: &EdgeListParser, line: &str) -> Result<Option<Edges>, String> {
        let mut out = Edges::default();
        Ok(parser
            .parse_line(line.as_bytes(), 0, &mut out)?
            .then_some(out))
    }

    const PLAIN: EdgeListParser = EdgeListParser {
        ids: IdMode::Integer,
        weighted: false,
    };
    const WEIGHTED: EdgeListParser = EdgeListParser {
        ids: IdMode::Integer,
        weighted: true,
    };

    #[test]
    fn integer_lines_with_any_separator_parse_and_comments_skip() {
        for line in ["3\t4", "3,4", " 3  4 \r", "3, 4"] {
            let e = parse(&PLAIN, line).unwrap().unwrap();
            assert_eq!((e.src, e.dst), (vec![3], vec![4]), "{line:?}");
        }
        for line in ["", "  ", "# 1 2", "% x", "\r"] {
            assert!(parse(&PLAIN, line).unwrap().is_none(), "{line:?}");
        }
    }

    #[test]
    fn an_empty_csv_field_is_refused_not_skipped() {
        // Read as the fast path reads a line, and as the general path does.
        let fast = |parser: &EdgeListParser, line: &str| {
            let mut out = Edges::default();
            parser.parse_fast(line.as_bytes(), 0, &mut out)
        };
        for (parser, line) in [
            (&WEIGHTED, "5,,7,9"),
            (&PLAIN, "0,,1"),
            (&PLAIN, ",0,1"),
            (&PLAIN, " , 0,1"),
            (&PLAIN, "0, ,1"),
            (&PLAIN, "0,1,,"),
            (&WEIGHTED, "0,1,,2"),
        ] {
            assert_eq!(fast(parser, line), None, "{line:?}");
            let err = parse(parser, line).unwrap_err();
            assert!(err.contains("a field is empty"), "{line:?}: {err}");
        }
        // One comma closing a line is a trailing separator; commas inside quotes are text.
        assert!(fast(&PLAIN, "0,1,").is_some());
        assert_eq!(parse(&PLAIN, "0,1,").unwrap().unwrap().dst, [1]);
        let labels = EdgeListParser {
            ids: IdMode::Labels,
            weighted: false,
        };
        assert!(parse(&labels, r#""a,,b",c"#).unwrap().is_some());
        assert!(parse(&labels, r#""a",,c"#)
            .unwrap_err()
            .contains("a field is empty"));
    }

    #[test]
    fn weights_must_be_present_exactly_when_the_input_is_weighted() {
        let e = parse(&WEIGHTED, "1 2 0.5").unwrap().unwrap();
        assert_eq!(e.weights, [0.5]);
        assert!(parse(&WEIGHTED, "1 2")
            .unwrap_err()
            .contains("missing weight"));
        assert!(parse(&PLAIN, "1 2 3")
            .unwrap_err()
            .contains("unexpected third"));
        // A word: a header's column, or a label cut at a space; a number float32 cannot hold.
        let word = parse(&WEIGHTED, "1 2 weight").unwrap_err();
        assert!(
            word.contains("not a number") && word.contains("--header"),
            "{word}"
        );
        let big = parse(&WEIGHTED, "1 2 1e40").unwrap_err();
        assert!(big.contains("float32's range"), "{big}");
        assert!(parse(&PLAIN, "1 2 3 4").unwrap_err().contains("too many"));
        assert!(parse(&PLAIN, "1").unwrap_err().contains("one column"));
        let semicolons = parse(&PLAIN, "1;2").unwrap_err();
        assert!(
            semicolons.contains("one column") && semicolons.contains("not ';'"),
            "{semicolons}"
        );
    }

    #[test]
    fn integer_mode_errors_suggest_relabel() {
        let err = parse(&PLAIN, "1 b").unwrap_err();
        assert!(err.contains("--relabel"), "{err}");
        let err = parse(&PLAIN, "1 4294967295").unwrap_err();
        assert!(
            err.contains("4294967295") && err.contains("--relabel"),
            "{err}"
        );
    }

    #[test]
    fn label_mode_records_spans_relative_to_the_block() {
        let parser = EdgeListParser {
            ids: IdMode::Labels,
            weighted: false,
        };
        let mut out = Edges::default();
        assert!(parser.parse_line(b"ab,c", 10, &mut out).unwrap());
        assert_eq!(out.label_spans, [10..12, 13..14]);
        assert!(parser.parse_line(b"a \xff", 0, &mut out).is_err());
    }

    proptest::proptest! {
        /// Whatever the fast path accepts, the general path parses identically.
        #[test]
        fn fast_path_agrees_with_the_general_path(
            tokens in proptest::collection::vec(
                proptest::sample::select(vec![
                    "0", "12", "4294967294", "4294967295", "12345678901", "1.5", "x", "-3",
                    " ", "\t", ",", "\r", "#",
                ]),
                0..7,
            ),
            weighted in proptest::bool::ANY,
        ) {
            let line = tokens.concat();
            let text = format!("{line}\nnext");
            let mut fast = Edges::default();
            if let Some(next) = fast_integer_line(text.as_bytes(), 0, weighted, &mut fast) {
                proptest::prop_assert_eq!(next, line.len() + 1);
                let parser = EdgeListParser { ids: IdMode::Integer, weighted };
                let mut general = Edges::default();
                proptest::prop_assert_eq!(parser.parse_general(line.as_bytes(), 0, &mut general), Ok(true));
                proptest::prop_assert_eq!(
                    (fast.src, fast.dst, fast.weights),
                    (general.src, general.dst, general.weights)
                );
            } else {
                proptest::prop_assert!(fast.src.is_empty() && fast.weights.is_empty());
            }
        }
    }

    #[test]
    fn sniff_decides_the_id_kind_from_the_first_data_line() {
        let s = sniff(Path::new("x"), &b"# c\n\n1 2 3\n4 5\n"[..], false).unwrap();
        assert_eq!(s.weighted(), Some(true));
        assert!(!s.has_non_integer_ids && s.header.is_none());
        // A later label does not turn the input into a labelled one: it is an error then.
        let s = sniff(Path::new("x"), &b"1 2\nalice bob\n"[..], false).unwrap();
        assert!(!s.has_non_integer_ids && s.header.is_none());
        let s = sniff(Path::new("x"), &b"alice bob\ncarol 5\n"[..], false).unwrap();
        assert!(s.has_non_integer_ids && s.header.is_none());
        let s = sniff(Path::new("x"), &b"# only comments\n"[..], false).unwrap();
        assert_eq!(s.weighted(), None);
    }

    #[test]
    fn a_header_is_detected_before_integer_lines_or_given() {
        let s = sniff(Path::new("x"), &b"# c\nsrc,dst,w\n5,7,1\n"[..], false).unwrap();
        assert_eq!(s.header, Some((2, "src,dst,w".to_string())));
        assert!(!s.has_non_integer_ids);
        assert_eq!(s.weighted(), Some(true));
        let s = sniff(Path::new("x"), &b"from to\nalice bob\n"[..], true).unwrap();
        assert_eq!(s.header, Some((1, "from to".to_string())));
        assert!(s.has_non_integer_ids);
        let rest = skip_header(Path::new("x"), &b"# c\nsrc dst\n5 7\n"[..], 2).unwrap();
        assert_eq!(std::io::read_to_string(rest).unwrap(), "5 7\n");
    }

    #[test]
    fn quoted_fields_read_as_csv_and_malformed_quoting_is_refused() {
        let labels = EdgeListParser {
            ids: IdMode::Labels,
            weighted: true,
        };
        let mut out = Edges::default();
        let line = r#""bob","carol smith",2.5"#;
        assert!(labels.parse_line(line.as_bytes(), 0, &mut out).unwrap());
        let spans: Vec<_> = out
            .label_spans
            .iter()
            .map(|r| &line[r.start as usize..r.end as usize])
            .collect();
        assert_eq!(
            (spans, out.weights),
            (vec!["bob", "carol smith"], vec![2.5])
        );
        let e = parse(&PLAIN, r#""3","4""#).unwrap().unwrap();
        assert_eq!((e.src, e.dst), (vec![3], vec![4]));
        // A quoted label may start with a comment marker; only a bare one comments a line.
        assert!(parse(&labels, r##""#1",b,1"##).unwrap().is_some());
        for (line, reason) in [
            (r#""a,b 1"#, "no closing quote"),
            (r#""a""b",c,1"#, "doubled quote"),
            (r#""a"x,b,1"#, "closing quote"),
            ("\"a\tb\",c,1", "tab or a line break"),
            (r#""",c,1"#, "empty"),
        ] {
            let err = parse(&labels, line).unwrap_err();
            assert!(err.contains(reason), "{line}: {err}");
        }
    }

    #[test]
    fn a_quoted_header_above_quoted_integers_is_detected() {
        let s = sniff(
            Path::new("x"),
            &br#""src","dst"
"1","2"
"#[..],
            false,
        )
        .unwrap();
        assert_eq!(s.header, Some((1, r#""src","dst""#.to_string())));
        assert!(!s.has_non_integer_ids);
        let s = sniff(Path::new("x"), &b"\"alice smith\",bob\n"[..], false).unwrap();
        assert_eq!((s.first_columns, s.has_non_integer_ids), (Some(2), true));
        assert_eq!(s.header_like, None);
    }

    #[test]
    fn column_names_above_labels_are_flagged_as_a_likely_header() {
        let s = sniff(
            Path::new("x"),
            &b"# c\n\"Source\",Target\nalice,bob\n"[..],
            false,
        )
        .unwrap();
        assert!(s.has_non_integer_ids && s.header.is_none());
        assert_eq!(s.header_like, Some((2, "\"Source\",Target".to_string())));
        // Given as a header, or a line of labels that are not column names: nothing to flag.
        let s = sniff(Path::new("x"), &b"src dst\nalice bob\n"[..], true).unwrap();
        assert_eq!(s.header_like, None);
        let s = sniff(Path::new("x"), &b"src carol\nalice bob\n"[..], false).unwrap();
        assert_eq!(s.header_like, None);
    }

    #[test]
    fn a_stray_token_in_an_integer_input_names_itself() {
        let err = parse(&PLAIN, "2 x7").unwrap_err();
        assert!(err.contains("'x7'") && err.contains("--relabel"), "{err}");
    }
}
