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

/// The fields of an edge list's line: [`Tokens`], except that a field opening with `"` is
/// quoted as in CSV. Its text runs to the next `"` and may hold spaces and commas; the field
/// is that text without the quotes. A quote inside a quoted field (`""`), no closing quote,
/// or text right after the closing one is an error: the line cannot be read as meant. So is
/// an empty field: two commas with only blanks between, or a comma opening the line (`5,,7`
/// would otherwise read as 5 -> 7). One comma closing the line is a trailing separator.
pub(crate) struct Fields<'a>(Tokens<'a>);

impl<'a> Fields<'a> {
    #[inline]
    pub(crate) fn new(line: &'a [u8]) -> Self {
        Fields(Tokens::new(line))
    }
}

impl Iterator for Fields<'_> {
    type Item = Result<std::ops::Range<usize>, &'static str>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let Tokens { line, pos } = self.0;
        // A field ended before `pos` (its comma counts) unless the line starts there.
        let Some(start) = separators_end(line, pos, usize::from(pos > 0)) else {
            self.0.pos = line.len();
            return Some(Err(EMPTY_FIELD));
        };
        if line.get(start) != Some(&b'"') {
            self.0.pos = start;
            return self.0.next().map(Ok);
        }
        // Whatever happens, the line ends here for this iterator: no field after an error.
        self.0.pos = line.len();
        let text = start + 1;
        let Some(length) = line[text..].iter().position(|&b| b == b'"') else {
            return Some(Err("a quoted field has no closing quote"));
        };
        let close = text + length;
        match line.get(close + 1) {
            None => {}
            Some(&b) if is_separator(b) => self.0.pos = close + 1,
            Some(b'"') => {
                return Some(Err(
                    "a quoted field holds a doubled quote (\"\"), which edge lists do not \
                     read: a label cannot hold a quote",
                ))
            }
            Some(_) => return Some(Err("text follows a quoted field's closing quote")),
        }
        Some(Ok(text..close))
    }
}

/// The refusal of a line with an empty field ([`Fields`]).
pub(crate) const EMPTY_FIELD: &str =
    "a field is empty (two commas with nothing between, or a comma opening the line)";

/// The end of the run of separators at `pos`, or None where it holds more than `commas`
/// commas (1 after a field, 0 at the line's start): an empty field in CSV.
#[inline]
pub(crate) fn separators_end(line: &[u8], mut pos: usize, commas: usize) -> Option<usize> {
    let mut seen = 0;
    while pos < line.len() && is_separator(line[pos]) {
        seen += usize::from(line[pos] == b',');
        pos += 1;
    }
    (seen <= commas).then_some(pos)
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

/// The vertex id whose decimal digits start at `text[start]`, and the position after them;
/// `None` if there is no digit there, or the id is not below `MAX_VERTICES`. Reads eight
/// digits at a time (SWAR) where eight bytes are available: ids in edge lists are long
/// runs of digits, and a digit-by-digit loop is latency-bound on its multiply-add chain.
#[inline]
pub(crate) fn leading_vertex(text: &[u8], start: usize) -> Option<(u32, usize)> {
    let (mut value, mut pos) = match text.get(start..start + 8) {
        Some(eight) => {
            let chunk = u64::from_le_bytes([
                eight[0], eight[1], eight[2], eight[3], eight[4], eight[5], eight[6], eight[7],
            ]);
            let digits = leading_digit_count(chunk);
            if digits == 0 {
                return None;
            }
            (swar_value(chunk, digits), start + digits)
        }
        None => (0, start),
    };
    // Digits beyond the first eight (ids up to 10 digits), or all of them near the end.
    while let Some(&b) = text.get(pos) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 || pos - start > 10 {
            break;
        }
        value = value * 10 + digit as u64;
        pos += 1;
    }
    let digits = pos - start;
    (digits > 0 && digits <= 10 && value < MAX_VERTICES).then_some((value as u32, pos))
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// How many of the 8 bytes of `chunk` (first byte in the low bits) are ASCII digits
/// before the first non-digit.
#[inline(always)]
fn leading_digit_count(chunk: u64) -> usize {
    // A byte is a digit iff its high nibble is 3 and adding 6 leaves the high nibble 3.
    // Carries out of a non-digit byte only disturb later bytes, which do not matter.
    let high = chunk & (0xF0 * ONES);
    let plus6 = chunk.wrapping_add(0x06 * ONES) & (0xF0 * ONES);
    let non_digit = (high ^ (0x30 * ONES)) | (plus6 ^ (0x30 * ONES));
    (non_digit.trailing_zeros() / 8) as usize
}

/// The value of the first `digits` (1..=8) bytes of `chunk`, all ASCII digits.
#[inline(always)]
fn swar_value(chunk: u64, digits: usize) -> u64 {
    // Keep the digits, moved to the top bytes so that the missing leading digits are zeros
    // (digit bytes sit below any non-digit, so the subtraction's borrows cannot reach them).
    let mut v = chunk.wrapping_sub(0x30 * ONES) << (8 * (8 - digits));
    v = (v.wrapping_mul(10) + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    (v.wrapping_mul(10000) + (v >> 32)) & 0xFFFF_FFFF
}

/// Parses an edge weight: an integer or a real number, [storable](storable_weight).
#[inline]
pub(crate) fn parse_weight(token: &[u8]) -> Option<f64> {
    if let Some(v) = parse_u64(token) {
        // Integers beyond 2^53 lose precision as f64; that is the nature of f64 weights.
        return Some(v as f64);
    }
    let text = std::str::from_utf8(token).ok()?;
    let value: f64 = text.parse().ok()?;
    storable_weight(value).then_some(value)
}

/// What a weight that [`storable_weight`] refuses is not.
pub(crate) const NOT_A_STORABLE_WEIGHT: &str =
    "not a finite number within float32's range (±3.4e38, and 0 or at least 1.4e-45 in size; \
     a store keeps int32 or float32 weights)";

/// Whether a weight can be stored: finite and within float32's range, and not so close to 0
/// that float32 holds 0. A store keeps its weights as int32 or float32: a finite weight beyond
/// float32's range would become an infinity there, and a tiny positive one a weight of 0 (a
/// free arc to sssp, a blocked one to widest), each a different graph.
#[inline]
pub(crate) fn storable_weight(value: f64) -> bool {
    value.is_finite() && value.abs() <= f64::from(f32::MAX) && (value == 0.0 || value as f32 != 0.0)
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

    fn fields(line: &str) -> Vec<Result<&str, &'static str>> {
        Fields::new(line.as_bytes())
            .map(|f| f.map(|r| &line[r]))
            .collect()
    }

    #[test]
    fn quoted_fields_lose_their_quotes_and_keep_separators_inside() {
        assert_eq!(fields(r#""a","b c",3"#), [Ok("a"), Ok("b c"), Ok("3")]);
        assert_eq!(
            fields("\"1\"\t 2 ,\"x,y\"\r"),
            [Ok("1"), Ok("2"), Ok("x,y")]
        );
        assert_eq!(fields(r#""" b"#), [Ok(""), Ok("b")]);
        // A quote that does not open a field is text, as in CSV.
        assert_eq!(fields(r#"a"b c"#), [Ok(r#"a"b"#), Ok("c")]);
        // Without quotes, the fields are the tokens.
        let line = "  1 ,  2,3.5\r x";
        let unquoted: Vec<_> = fields(line).into_iter().map(Result::unwrap).collect();
        assert_eq!(unquoted, tokens(line));
    }

    #[test]
    fn malformed_quoting_is_an_error_and_ends_the_line() {
        assert_eq!(
            fields(r#"a "b c"#),
            [Ok("a"), Err("a quoted field has no closing quote")]
        );
        assert!(matches!(fields(r#""a""b" c"#)[..], [Err(e)] if e.contains("doubled quote")));
        assert!(matches!(fields(r#""a"b c"#)[..], [Err(e)] if e.contains("closing quote")));
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

    proptest::proptest! {
        /// The SWAR id reader agrees with the plain one on any text, at any offset.
        #[test]
        fn leading_vertex_matches_a_plain_digit_loop(
            text in "[0-9]{0,12}([ ,x/:\n\t]|[0-9]{0,3}){0,3}",
            start in 0usize..4,
        ) {
            let bytes = text.as_bytes();
            let plain = bytes.get(start..).and_then(|rest| {
                let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                let value = parse_u64(&rest[..digits])?;
                (digits <= 10 && value < MAX_VERTICES).then_some((value as u32, start + digits))
            });
            proptest::prop_assert_eq!(leading_vertex(bytes, start), plain);
        }
    }

    #[test]
    fn weights_accept_integers_and_reals_but_not_nan_or_infinity() {
        assert_eq!(parse_weight(b"7"), Some(7.0));
        assert_eq!(parse_weight(b"-2.5e1"), Some(-25.0));
        assert_eq!(parse_weight(b"nan"), None);
        assert_eq!(parse_weight(b"inf"), None);
        assert_eq!(parse_weight(b"1e999"), None);
        // Finite, but an infinity once stored as float32: refused, as the infinities are.
        assert_eq!(parse_weight(b"1e40"), None);
        assert_eq!(parse_weight(b"-3.5e38"), None);
        assert_eq!(parse_weight(b"-3.4e38"), Some(-3.4e38));
        // Not zero, but zero once stored as float32; float32's smallest subnormal is kept.
        assert_eq!(parse_weight(b"1e-46"), None);
        assert_eq!(parse_weight(b"-1e-50"), None);
        assert_eq!(parse_weight(b"1.5e-45"), Some(1.5e-45));
        assert_eq!(parse_weight(b"0.0"), Some(0.0));
        assert!(!storable_weight(f64::NAN));
        assert_eq!(parse_weight(b"\xff"), None);
    }

    #[test]
    fn comment_and_blank_detection_skips_leading_separators() {
        assert!(is_blank_or_comment(b"  # x", b"#%"));
        assert!(is_blank_or_comment(b"\r", b"#%"));
        assert!(!is_blank_or_comment(b" 1 2", b"#%"));
    }
}
