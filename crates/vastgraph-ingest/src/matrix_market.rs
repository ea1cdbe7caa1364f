//! Matrix Market coordinate files: `%%MatrixMarket matrix coordinate <field> <symmetry>`,
//! `%` comments, a size line `rows cols nnz`, then `nnz` lines `i j [value]` (1-based).
//! Entry (i, j) becomes the edge i-1 → j-1; `symmetric` files store one triangle, so the
//! store must be symmetrised (reported through the plan).

use std::io::Read;
use std::path::Path;

use vastgraph_store::MAX_VERTICES;

use crate::blocks::LineReader;
use crate::text::{Edges, LineParser};
use crate::tokens::{is_blank_or_comment, parse_u64, parse_weight, Tokens, NOT_A_STORABLE_WEIGHT};
use crate::IngestError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    Pattern,
    Integer,
    Real,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MatrixMarketHeader {
    pub(crate) field: Field,
    pub(crate) symmetric: bool,
    pub(crate) rows: u64,
    pub(crate) cols: u64,
    pub(crate) entries: u64,
    /// Lines taken by the banner, comments and the size line.
    pub(crate) header_lines: u64,
}

impl MatrixMarketHeader {
    pub(crate) fn weighted(&self) -> bool {
        self.field != Field::Pattern
    }

    /// Vertices of the graph: the matrix is read as an adjacency matrix of max(rows, cols).
    pub(crate) fn vertices(&self) -> u64 {
        self.rows.max(self.cols)
    }
}

/// Reads the banner and size line; returns the header and the reader positioned at the
/// first entry line.
pub(crate) fn read_header<R: Read>(
    path: &Path,
    stream: R,
) -> Result<(MatrixMarketHeader, LineReader<R>), IngestError> {
    let mut reader = LineReader::new(stream);
    let mut line = Vec::new();
    let next = |reader: &mut LineReader<R>, line: &mut Vec<u8>| reader.next_line_in(path, line);
    if !next(&mut reader, &mut line)? {
        return Err(IngestError::invalid(
            path,
            "empty file; expected a %%MatrixMarket banner",
        ));
    }
    let (field, symmetric) =
        parse_banner(&line).map_err(|r| IngestError::parse(path, 1, r, &line))?;
    loop {
        if !next(&mut reader, &mut line)? {
            return Err(IngestError::invalid(
                path,
                "the file ends before the size line 'rows cols entries'",
            ));
        }
        if !is_blank_or_comment(&line, b"%") {
            break;
        }
    }
    let size: Vec<Option<u64>> = Tokens::new(&line).map(|t| parse_u64(&line[t])).collect();
    let (rows, cols, entries) = match size[..] {
        [Some(r), Some(c), Some(e)] => (r, c, e),
        _ => {
            return Err(IngestError::parse(
                path,
                reader.lines,
                "expected the size line 'rows cols entries' (three non-negative integers)",
                &line,
            ))
        }
    };
    if rows.max(cols) > MAX_VERTICES {
        return Err(IngestError::parse(
            path,
            reader.lines,
            format!(
                "the matrix has more rows or columns than the limit of {MAX_VERTICES} vertices"
            ),
            &line,
        ));
    }
    let header = MatrixMarketHeader {
        field,
        symmetric,
        rows,
        cols,
        entries,
        header_lines: reader.lines,
    };
    Ok((header, reader))
}

fn parse_banner(line: &[u8]) -> Result<(Field, bool), String> {
    let text = String::from_utf8_lossy(line).to_ascii_lowercase();
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.first() != Some(&"%%matrixmarket") {
        return Err(
            "not a Matrix Market file: the first line must start with %%MatrixMarket".into(),
        );
    }
    let [_, object, format, field, symmetry] = words[..] else {
        return Err("expected '%%MatrixMarket matrix coordinate <field> <symmetry>'".into());
    };
    if object != "matrix" {
        return Err(format!(
            "unsupported Matrix Market object '{object}' (only 'matrix')"
        ));
    }
    if format != "coordinate" {
        return Err(format!(
            "unsupported Matrix Market format '{format}': only sparse 'coordinate' matrices are graphs"
        ));
    }
    let field = match field {
        "pattern" => Field::Pattern,
        "integer" => Field::Integer,
        "real" | "double" => Field::Real,
        other => {
            return Err(format!(
                "unsupported Matrix Market field '{other}' (supported: pattern, integer, real)"
            ))
        }
    };
    let symmetric = match symmetry {
        "general" => false,
        "symmetric" => true,
        other => {
            return Err(format!(
                "unsupported Matrix Market symmetry '{other}' (supported: general, symmetric)"
            ))
        }
    };
    Ok((field, symmetric))
}

/// Parses entry lines `i j [value]` against the header's dimensions.
pub(crate) struct MatrixMarketParser {
    pub(crate) header: MatrixMarketHeader,
}

impl LineParser for MatrixMarketParser {
    #[inline]
    fn parse_line(&self, line: &[u8], _offset: usize, out: &mut Edges) -> Result<bool, String> {
        if is_blank_or_comment(line, b"%") {
            return Ok(false);
        }
        let h = &self.header;
        let mut tokens = Tokens::new(line);
        let mut index = |what: &str, limit: u64| -> Result<u32, String> {
            let token = tokens
                .next()
                .ok_or_else(|| format!("missing {what} index"))?;
            match parse_u64(&line[token]) {
                Some(v) if v >= 1 && v <= limit => Ok((v - 1) as u32),
                _ => Err(format!("{what} index is not an integer in 1..={limit}")),
            }
        };
        let i = index("row", h.rows)?;
        let j = index("column", h.cols)?;
        let weight = match (tokens.next(), h.field) {
            (None, Field::Pattern) => None,
            (Some(_), Field::Pattern) => return Err("a pattern matrix entry has no value".into()),
            (None, _) => return Err("missing the entry's value".into()),
            (Some(v), field) => {
                let weight = parse_weight(&line[v])
                    .ok_or_else(|| format!("the value is {NOT_A_STORABLE_WEIGHT}"))?;
                if field == Field::Integer && weight.fract() != 0.0 {
                    return Err("the value is not an integer (the header says 'integer')".into());
                }
                Some(weight)
            }
        };
        if tokens.next().is_some() {
            return Err("too many columns for a coordinate entry".into());
        }
        if let Some(w) = weight {
            out.weights.push(w);
        }
        out.src.push(i);
        out.dst.push(j);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(text: &str) -> Result<MatrixMarketHeader, String> {
        read_header(Path::new("m.mtx"), text.as_bytes())
            .map(|(h, _)| h)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn header_reads_field_symmetry_and_size() {
        let h = header("%%MatrixMarket matrix coordinate real symmetric\n% c\n\n3 4 5\n1 1 1\n")
            .unwrap();
        assert_eq!(
            (
                h.field,
                h.symmetric,
                h.rows,
                h.cols,
                h.entries,
                h.header_lines
            ),
            (Field::Real, true, 3, 4, 5, 4)
        );
        assert_eq!(h.vertices(), 4);
    }

    #[test]
    fn unsupported_variants_are_named() {
        for (banner, word) in [
            ("%%MatrixMarket matrix array real general", "array"),
            (
                "%%MatrixMarket matrix coordinate complex general",
                "complex",
            ),
            (
                "%%MatrixMarket matrix coordinate real hermitian",
                "hermitian",
            ),
            (
                "%%MatrixMarket matrix coordinate real skew-symmetric",
                "skew-symmetric",
            ),
        ] {
            let err = header(&format!("{banner}\n1 1 1\n")).unwrap_err();
            assert!(err.contains(word) && err.starts_with("m.mtx:1:"), "{err}");
        }
        assert!(header("1 2\n").unwrap_err().contains("%%MatrixMarket"));
        assert!(
            header("%%MatrixMarket matrix coordinate pattern general\n3 3\n")
                .unwrap_err()
                .contains("m.mtx:2:")
        );
    }

    #[test]
    fn entries_are_checked_against_the_dimensions() {
        let parser = MatrixMarketParser {
            header: header("%%MatrixMarket matrix coordinate integer general\n2 3 1\n").unwrap(),
        };
        let mut out = Edges::default();
        assert!(parser.parse_line(b"2 3 -4", 0, &mut out).unwrap());
        assert_eq!(
            (out.src, out.dst, out.weights),
            (vec![1], vec![2], vec![-4.0])
        );
        let mut out = Edges::default();
        for bad in [
            "0 1 1", "3 1 1", "1 4 1", "1 1", "1 1 1.5", "1 1 1 1", "x 1 1",
        ] {
            assert!(
                parser.parse_line(bad.as_bytes(), 0, &mut out).is_err(),
                "{bad}"
            );
        }
    }
}
