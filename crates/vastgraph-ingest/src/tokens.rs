//! Splitting text lines into tokens and parsing numbers, shared by the text formats.
//! Works on bytes (no UTF-8 validation on the hot path); never panics on any input.

use vastgraph_store::MAX_VERTICES;

/// Token separators: whitespace, tab and comma; runs count as one separator, and a trailing
/// `\r` (CRLF files) is a separator too.
#[inline]
pub(crate) fn is_separator(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b',' | b'\r')
}

/// The tokens of a line, as `start..end` offsets into the line.
pub(crate) struct Tokens<'a> {
    line: &'a [u8],
    pos: usize,
}

impl<'a> Tokens<'a> {
    #[inline]
    pub(crate) fn new(line: &'a [u8]) -> Self {
        Tokens { line, pos: 0 }
    }
}

impl Iterator for Tokens<'_> {
    type Item = std::ops::Range<usize>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let line = self.line;
        let mut start = self.pos;
        while start < line.len() && is_separator(line[start]) {
            start += 1;
        }
        if start == line.len() {
            self.pos = start;
            return None;
        }
        let mut end = start + 1;
        while end < line.len() && !is_separator(line[end]) {
            end += 1;
        }
        self.pos = end;
        Some(start..end)
    }
}

/// True when the line is blank or a comment (first non-separator byte is one of `markers`).
#[inline]
pub(crate) fn is_blank_or_comment(line: &[u8], markers: &[u8]) -> bool {
    match line.iter().find(|&&b| !is_separator(b)) {
        None => true,
        Some(b) => markers.contains(b),
    }
}

/// Parses a token of ASCII digits (no sign) as u64; `None` for anything else or on overflow.
#[inline]
pub(crate) fn parse_u64(token: &[u8]) -> Option<u64> {
    if token.is_empty() || token.len() > 20 {
        return None;
    }
    let mut value: u64 = 0;
    for &b in token {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(digit as u64)?;
    }
    Some(value)
}

/// Why a token is not a usable vertex id.
pub(crate) enum IdError {
    NotInteger,
    TooLarge(u64),
}

/// Parses a 0-based vertex id that must fit the store's u32 ids.
#[inline]
pub(crate) fn parse_vertex(token: &[u8]) -> Result<u32, IdError> {
    let value = parse_u64(token).ok_or(IdError::NotInteger)?;
    if value >= MAX_VERTICES {
        return Err(IdError::TooLarge(value));
    }
    Ok(value as u32)
}

/// Parses an edge weight: an integer or a real number; must be finite.
#[inline]
pub(crate) fn parse_weight(token: &[u8]) -> Option<f64> {
    if let Some(v) = parse_u64(token) {
        // Integers beyond 2^53 lose precision as f64; that is the nature of f64 weights.
        return Some(v as f64);
    }
    let text = std::str::from_utf8(token).ok()?;
    let value: f64 = text.parse().ok()?;
    value.is_finite().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(line: &str) -> Vec<&str> {
        Tokens::new(line.as_bytes()).map(|r| &line[r]).collect()
    }

    #[test]
    fn separators_are_space_tab_comma_and_cr_with_runs_merged() {
        assert_eq!(tokens("1\t2"), ["1", "2"]);
        assert_eq!(tokens("  1 ,  2,3.5\r"), ["1", "2", "3.5"]);
        assert_eq!(tokens(""), Vec::<&str>::new());
        assert_eq!(tokens(" ,\t\r"), Vec::<&str>::new());
    }

    #[test]
    fn integers_parse_exactly_and_reject_signs_overflow_and_junk() {
        assert_eq!(parse_u64(b"0"), Some(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"-1"), None);
        assert_eq!(parse_u64(b"+1"), None);
        assert_eq!(parse_u64(b"1a"), None);
        assert_eq!(parse_u64(b""), None);
    }

    #[test]
    fn vertex_ids_must_be_below_the_u32_limit() {
        assert!(matches!(parse_vertex(b"4294967294"), Ok(4294967294)));
        assert!(matches!(
            parse_vertex(b"4294967295"),
            Err(IdError::TooLarge(4294967295))
        ));
        assert!(matches!(parse_vertex(b"x"), Err(IdError::NotInteger)));
    }

    #[test]
    fn weights_accept_integers_and_reals_but_not_nan_or_infinity() {
        assert_eq!(parse_weight(b"7"), Some(7.0));
        assert_eq!(parse_weight(b"-2.5e1"), Some(-25.0));
        assert_eq!(parse_weight(b"nan"), None);
        assert_eq!(parse_weight(b"inf"), None);
        assert_eq!(parse_weight(b"1e999"), None);
        assert_eq!(parse_weight(b"\xff"), None);
    }

    #[test]
    fn comment_and_blank_detection_skips_leading_separators() {
        assert!(is_blank_or_comment(b"  # x", b"#%"));
        assert!(is_blank_or_comment(b"\r", b"#%"));
        assert!(!is_blank_or_comment(b" 1 2", b"#%"));
    }
}
