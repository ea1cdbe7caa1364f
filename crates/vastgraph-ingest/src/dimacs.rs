//! DIMACS shortest-path files (`.gr`, 9th DIMACS challenge): `c` comment lines, one problem
//! line `p sp N M`, then `M` arc lines `a u v w` with 1-based vertices and a weight.

use std::io::Read;
use std::path::Path;

use vastgraph_store::MAX_VERTICES;

use crate::blocks::LineReader;
use crate::text::{Edges, LineParser};
use crate::tokens::{is_separator, parse_u64, parse_weight, Tokens, NOT_A_STORABLE_WEIGHT};
use crate::IngestError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DimacsHeader {
    pub(crate) vertices: u64,
    pub(crate) arcs: u64,
    /// Lines up to and including the problem line.
    pub(crate) header_lines: u64,
}

/// The kind of a DIMACS line, by its first non-blank byte.
enum LineKind {
    Blank,
    Comment,
    Problem,
    Arc,
    Other,
}

fn kind(line: &[u8]) -> LineKind {
    match line.iter().find(|&&b| !is_separator(b)) {
        None => LineKind::Blank,
        Some(b'c') => LineKind::Comment,
        Some(b'p') => LineKind::Problem,
        Some(b'a') => LineKind::Arc,
        Some(_) => LineKind::Other,
    }
}

/// Reads up to the problem line; returns the header and the reader positioned after it.
pub(crate) fn read_header<R: Read>(
    path: &Path,
    stream: R,
) -> Result<(DimacsHeader, LineReader<R>), IngestError> {
    let mut reader = LineReader::new(stream);
    let mut line = Vec::new();
    loop {
        if !reader.next_line_in(path, &mut line)? {
            return Err(IngestError::invalid(
                path,
                "no problem line 'p sp <vertices> <arcs>'",
            ));
        }
        let at = reader.lines;
        match kind(&line) {
            LineKind::Blank | LineKind::Comment => continue,
            LineKind::Problem => {
                let (vertices, arcs) =
                    parse_problem(&line).map_err(|r| IngestError::parse(path, at, r, &line))?;
                let header = DimacsHeader {
                    vertices,
                    arcs,
                    header_lines: at,
                };
                return Ok((header, reader));
            }
            _ => {
                return Err(IngestError::parse(
                    path,
                    at,
                    "expected the problem line 'p sp <vertices> <arcs>' before any arc",
                    &line,
                ))
            }
        }
    }
}

fn parse_problem(line: &[u8]) -> Result<(u64, u64), String> {
    let tokens: Vec<&[u8]> = Tokens::new(line).map(|t| &line[t]).collect();
    let [b"p", b"sp", n, m] = tokens[..] else {
        return Err("expected the problem line 'p sp <vertices> <arcs>'".into());
    };
    let (Some(n), Some(m)) = (parse_u64(n), parse_u64(m)) else {
        return Err("the vertex and arc counts must be non-negative integers".into());
    };
    if n > MAX_VERTICES {
        return Err(format!("{n} vertices exceed the limit of {MAX_VERTICES}"));
    }
    Ok((n, m))
}

/// Parses the lines after the problem line.
pub(crate) struct DimacsParser {
    pub(crate) header: DimacsHeader,
}

impl LineParser for DimacsParser {
    #[inline]
    fn parse_line(&self, line: &[u8], _offset: usize, out: &mut Edges) -> Result<bool, String> {
        match kind(line) {
            LineKind::Blank | LineKind::Comment => return Ok(false),
            LineKind::Problem => return Err("a second problem line".into()),
            LineKind::Other => return Err("unknown line type (expected 'c' or 'a')".into()),
            LineKind::Arc => {}
        }
        let mut tokens = Tokens::new(line);
        if tokens.next().map(|t| &line[t]) != Some(b"a") {
            return Err("expected an arc line 'a <from> <to> <weight>'".into());
        }
        let n = self.header.vertices;
        let mut vertex = |what: &str| -> Result<u32, String> {
            let token = tokens
                .next()
                .ok_or_else(|| format!("missing {what} vertex"))?;
            match parse_u64(&line[token]) {
                Some(v) if v >= 1 && v <= n => Ok((v - 1) as u32),
                _ => Err(format!("{what} vertex is not an integer in 1..={n}")),
            }
        };
        let u = vertex("tail")?;
        let v = vertex("head")?;
        let weight = tokens
            .next()
            .and_then(|t| parse_weight(&line[t]))
            .ok_or_else(|| format!("missing arc weight, or one {NOT_A_STORABLE_WEIGHT}"))?;
        if tokens.next().is_some() {
            return Err("too many columns for an arc line".into());
        }
        out.src.push(u);
        out.dst.push(v);
        out.weights.push(weight);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_skips_comments_and_reads_the_problem_line() {
        let (h, _) =
            read_header(Path::new("g.gr"), &b"c hi\n\nc x\np sp 5 7\na 1 2 3\n"[..]).unwrap();
        assert_eq!(
            h,
            DimacsHeader {
                vertices: 5,
                arcs: 7,
                header_lines: 4
            }
        );
        let err = read_header(Path::new("g.gr"), &b"c\na 1 2 3\n"[..])
            .err()
            .unwrap();
        assert!(err.to_string().starts_with("g.gr:2:"), "{err}");
        let err = read_header(Path::new("g.gr"), &b"p max 3 3\n"[..])
            .err()
            .unwrap();
        assert!(err.to_string().starts_with("g.gr:1:"), "{err}");
    }

    #[test]
    fn arcs_parse_and_bad_lines_are_errors() {
        let parser = DimacsParser {
            header: DimacsHeader {
                vertices: 3,
                arcs: 1,
                header_lines: 1,
            },
        };
        let mut out = Edges::default();
        assert!(parser.parse_line(b"a 3 1 17", 0, &mut out).unwrap());
        assert_eq!(
            (out.src, out.dst, out.weights),
            (vec![2], vec![0], vec![17.0])
        );
        let mut out = Edges::default();
        assert!(!parser.parse_line(b"c a 1 2 3", 0, &mut out).unwrap());
        for bad in [
            "a 0 1 1",
            "a 1 4 1",
            "a 1 2",
            "a 1 2 3 4",
            "p sp 3 1",
            "x 1 2",
            "ab 1 2 3",
        ] {
            assert!(
                parser.parse_line(bad.as_bytes(), 0, &mut out).is_err(),
                "{bad}"
            );
        }
    }
}
