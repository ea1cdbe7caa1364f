//! Elias–Fano coding of a non-decreasing sequence of `count` integers in `0..=upper`: the form
//! of a compressed store's offsets (its arcs' and its codes' bytes), `2 + ⌈log₂(upper/count)⌉`
//! bits a value instead of 64.
//!
//! Each value `x` is split at `low_bits = ⌊log₂(upper/count)⌋` (0 when `upper < count`): its low
//! bits go, in order, into the *low* array of `count × low_bits` bits; its high part
//! `h = x >> low_bits` sets bit `h + i` of the *high* array for the `i`-th value, so that the
//! high array holds `count` ones in `count + (upper >> low_bits) + 1` bits, each preceded by as
//! many zeros as its high part exceeds the one before. The encoding is unique: the same
//! sequence always gives the same bytes.
//!
//! The bytes (little-endian throughout):
//!
//! ```text
//! [ u64 count ] [ u64 upper ]
//! [ low array:  ⌈count × low_bits / 64⌉ u64 words, value i at bit i × low_bits ]
//! [ high array: ⌈(count + (upper >> low_bits) + 1) / 64⌉ u64 words ]
//! ```
//!
//! Bits are numbered from the least significant bit of each word up; the bits past either
//! array's end are zero. A reader decodes the values in order ([`EliasFanoReader`]), checking as
//! it goes what a damaged file could break: exactly `count` ones, no value above `upper`, the
//! last value equal to `upper`, and zero padding. Values decoded this way never decrease.

use crate::CodecError;

const HEADER_BYTES: usize = 16;

/// `⌊log₂(upper / count)⌋`, the bits of each value kept verbatim.
fn low_bits(count: u64, upper: u64) -> u32 {
    match count {
        0 => 0,
        _ if upper < count => 0,
        _ => (upper / count).ilog2(),
    }
}

/// Bits of the high array.
fn high_bits_len(count: u64, upper: u64) -> u64 {
    count + (upper >> low_bits(count, upper)) + 1
}

/// The low and high arrays' lengths in words.
fn words(count: u64, upper: u64) -> (u64, u64) {
    let low = (count * low_bits(count, upper) as u64).div_ceil(64);
    (low, high_bits_len(count, upper).div_ceil(64))
}

/// Bytes of the encoding of `count` values whose last is `upper`: what a store's manifest must
/// record for such a file. None when that overflows (no such file can exist).
pub fn elias_fano_bytes(count: u64, upper: u64) -> Option<u64> {
    let low = count
        .checked_mul(low_bits(count, upper) as u64)?
        .div_ceil(64);
    let high = count
        .checked_add(upper >> low_bits(count, upper))?
        .checked_add(1)?
        .div_ceil(64);
    low.checked_add(high)?
        .checked_mul(8)?
        .checked_add(HEADER_BYTES as u64)
}

/// Encodes `count` values pushed in order, the last of them `upper`.
pub struct EliasFanoWriter {
    count: u64,
    upper: u64,
    low_bits: u32,
    low: Vec<u64>,
    high: Vec<u64>,
    pushed: u64,
    previous: u64,
}

impl EliasFanoWriter {
    /// A writer for `count` values in `0..=upper`, the last one `upper`. Its memory is the
    /// encoding's size.
    pub fn new(count: u64, upper: u64) -> Result<EliasFanoWriter, CodecError> {
        if elias_fano_bytes(count, upper).is_none_or(|b| b > isize::MAX as u64) {
            return Err(CodecError::Layout(format!(
                "{count} values up to {upper} are too many to encode"
            )));
        }
        let (low, high) = words(count, upper);
        Ok(EliasFanoWriter {
            count,
            upper,
            low_bits: low_bits(count, upper),
            low: vec![0; low as usize],
            high: vec![0; high as usize],
            pushed: 0,
            previous: 0,
        })
    }

    /// Appends the next value: at least the one before, at most `upper`.
    pub fn push(&mut self, value: u64) -> Result<(), CodecError> {
        let i = self.pushed;
        if i == self.count || value < self.previous || value > self.upper {
            return Err(CodecError::Layout(format!(
                "value {i} ({value}) is not in order within 0..={} or is one too many \
                 (after {} of {})",
                self.upper, self.previous, self.count
            )));
        }
        if self.low_bits > 0 {
            let low = value & ((1u64 << self.low_bits) - 1);
            let at = i * self.low_bits as u64;
            let (word, shift) = ((at / 64) as usize, at % 64);
            self.low[word] |= low << shift;
            if shift + self.low_bits as u64 > 64 {
                self.low[word + 1] |= low >> (64 - shift);
            }
        }
        let at = (value >> self.low_bits) + i;
        self.high[(at / 64) as usize] |= 1 << (at % 64);
        self.pushed += 1;
        self.previous = value;
        Ok(())
    }

    /// The encoding, once every value was pushed and the last was `upper`.
    pub fn finish(self) -> Result<Vec<u8>, CodecError> {
        if self.pushed != self.count || (self.count > 0 && self.previous != self.upper) {
            return Err(CodecError::Layout(format!(
                "{} of {} values pushed, the last {} (must be {})",
                self.pushed, self.count, self.previous, self.upper
            )));
        }
        let mut bytes = Vec::with_capacity(HEADER_BYTES + 8 * (self.low.len() + self.high.len()));
        bytes.extend_from_slice(&self.count.to_le_bytes());
        bytes.extend_from_slice(&self.upper.to_le_bytes());
        for word in self.low.iter().chain(&self.high) {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        Ok(bytes)
    }
}

/// Decodes the values of an encoding (`bytes`, owned or borrowed) in order, checking it as it
/// goes.
pub struct EliasFanoReader<B: AsRef<[u8]>> {
    bytes: B,
    /// Where the high array starts in `bytes` (the low array starts after the header).
    high_start: usize,
    count: u64,
    upper: u64,
    low_bits: u32,
    /// Values decoded so far.
    next: u64,
    previous: u64,
    /// The end was checked: no one follows the last value in the high array.
    ended: bool,
    /// The high array's current word, the ones already decoded cleared.
    word: u64,
    word_index: usize,
    /// The low bits not yet taken of the low array's words read so far (`low_held` of them,
    /// from the least significant up), and the next word to read.
    low_buffer: u64,
    low_held: u32,
    low_word_index: usize,
}

impl<B: AsRef<[u8]>> EliasFanoReader<B> {
    /// A reader of `bytes`, which must encode `count` values whose last is `upper` (what the
    /// caller expects; the header must say the same).
    pub fn new(bytes: B, count: u64, upper: u64) -> Result<EliasFanoReader<B>, CodecError> {
        let bad = |reason: String| Err(CodecError::Layout(reason));
        let Some(expected) = elias_fano_bytes(count, upper) else {
            return bad(format!("{count} values up to {upper} cannot be encoded"));
        };
        let data = bytes.as_ref();
        if data.len() as u64 != expected {
            return bad(format!(
                "{} bytes, but {count} values up to {upper} take {expected}",
                data.len()
            ));
        }
        let header = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().expect("8"));
        if (header(0), header(8)) != (count, upper) {
            return bad(format!(
                "the header says {} values up to {}, expected {count} up to {upper}",
                header(0),
                header(8)
            ));
        }
        let (low_words, _) = words(count, upper);
        let mut reader = EliasFanoReader {
            bytes,
            high_start: HEADER_BYTES + 8 * low_words as usize,
            count,
            upper,
            low_bits: low_bits(count, upper),
            next: 0,
            previous: 0,
            ended: false,
            word: 0,
            word_index: 0,
            low_buffer: 0,
            low_held: 0,
            low_word_index: 0,
        };
        reader.check_padding()?;
        reader.word = reader.high_word(0);
        Ok(reader)
    }

    fn low(&self) -> &[u8] {
        &self.bytes.as_ref()[HEADER_BYTES..self.high_start]
    }

    fn high(&self) -> &[u8] {
        &self.bytes.as_ref()[self.high_start..]
    }

    fn high_word(&self, index: usize) -> u64 {
        self.high()
            .get(8 * index..8 * index + 8)
            .map_or(0, |w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
    }

    /// The bits past the end of each array are zero.
    fn check_padding(&self) -> Result<(), CodecError> {
        let last_word_past = |bytes: &[u8], bits: u64| {
            let word = match bytes.len() {
                0 => 0,
                len => u64::from_le_bytes(bytes[len - 8..].try_into().expect("8 bytes")),
            };
            match bits % 64 {
                0 => 0,
                used => word >> used,
            }
        };
        let low = last_word_past(self.low(), self.count * self.low_bits as u64);
        let high = last_word_past(self.high(), high_bits_len(self.count, self.upper));
        match (low, high) {
            (0, 0) => Ok(()),
            _ => Err(CodecError::Layout(
                "bits are set past the end of the encoding".into(),
            )),
        }
    }

    /// Fills `out` with the next values; returns how many (fewer than `out.len()` only at the
    /// end, 0 once every value was read).
    pub fn read(&mut self, out: &mut [u64]) -> Result<usize, CodecError> {
        let take = out.len().min((self.count - self.next) as usize);
        // The loop works on copies of the cursor, in registers, written back at its end.
        let data = self.bytes.as_ref();
        let (low, high) = (
            &data[HEADER_BYTES..self.high_start],
            &data[self.high_start..],
        );
        let word_at = |bytes: &[u8], index: usize| {
            bytes
                .get(8 * index..8 * index + 8)
                .map_or(0, |w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
        };
        let (bits, upper) = (self.low_bits, self.upper);
        let mask = match bits {
            0 => 0,
            _ => (1u64 << bits) - 1,
        };
        let high_words = high.len() / 8;
        let (mut word, mut word_index) = (self.word, self.word_index);
        let (mut buffer, mut held, mut low_index) =
            (self.low_buffer, self.low_held, self.low_word_index);
        let (mut next, mut previous) = (self.next, self.previous);
        let mut failure = None;
        for slot in &mut out[..take] {
            while word == 0 {
                word_index += 1;
                if word_index >= high_words {
                    break;
                }
                word = word_at(high, word_index);
            }
            if word == 0 {
                failure = Some(format!(
                    "the high bits hold {next} values, expected {}",
                    self.count
                ));
                break;
            }
            let position = 64 * word_index as u64 + word.trailing_zeros() as u64;
            word &= word - 1;
            // The low bits, in order: from the buffer, or running into the next word (`held`
            // < `bits` < 64 of them before it).
            let low_part = if held >= bits {
                let part = buffer & mask;
                buffer = buffer.checked_shr(bits).unwrap_or(0);
                held -= bits;
                part
            } else {
                let fresh = word_at(low, low_index);
                low_index += 1;
                let part = (buffer | fresh << held) & mask;
                let used = bits - held;
                buffer = fresh >> used;
                held = 64 - used;
                part
            };
            let value = ((position - next) << bits) | low_part;
            if value > upper || value < previous {
                failure = Some(format!(
                    "value {next} is {value}, not within {previous}..={upper}"
                ));
                break;
            }
            *slot = value;
            next += 1;
            previous = value;
        }
        (self.word, self.word_index) = (word, word_index);
        (self.low_buffer, self.low_held, self.low_word_index) = (buffer, held, low_index);
        (self.next, self.previous) = (next, previous);
        if let Some(reason) = failure {
            return Err(CodecError::Layout(reason));
        }
        if self.next == self.count && !self.ended {
            if self.count > 0 && self.previous != self.upper {
                return Err(CodecError::Layout(format!(
                    "the last value is {}, expected {}",
                    self.previous, self.upper
                )));
            }
            self.check_no_more_ones()?;
            self.ended = true;
        }
        Ok(take)
    }

    /// After the last value, the high array holds no further one.
    fn check_no_more_ones(&self) -> Result<(), CodecError> {
        let rest = (self.word_index + 1..self.high().len() / 8).any(|i| self.high_word(i) != 0);
        if self.word != 0 || rest {
            return Err(CodecError::Layout(format!(
                "the high bits hold more than {} values",
                self.count
            )));
        }
        Ok(())
    }

    /// Every value, in a vector (whose `count` words are the caller's to account for).
    pub fn read_all(mut self) -> Result<Vec<u64>, CodecError> {
        let count = usize::try_from(self.count)
            .map_err(|_| CodecError::Layout(format!("{} values", self.count)))?;
        let mut values = vec![0; count];
        self.read(&mut values)?;
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encode(values: &[u64]) -> Vec<u8> {
        let upper = values.last().copied().unwrap_or(0);
        let mut writer = EliasFanoWriter::new(values.len() as u64, upper).unwrap();
        for &v in values {
            writer.push(v).unwrap();
        }
        writer.finish().unwrap()
    }

    fn decode(bytes: &[u8], count: u64, upper: u64) -> Result<Vec<u64>, CodecError> {
        EliasFanoReader::new(bytes, count, upper)?.read_all()
    }

    proptest! {
        #[test]
        fn any_sorted_sequence_round_trips_in_the_size_announced(
            mut values in proptest::collection::vec(0u64..1 << 40, 0..600),
            scale in 0u32..24,
        ) {
            for v in &mut values {
                *v >>= scale;
            }
            values.sort_unstable();
            let bytes = encode(&values);
            let upper = values.last().copied().unwrap_or(0);
            prop_assert_eq!(Some(bytes.len() as u64), elias_fano_bytes(values.len() as u64, upper));
            prop_assert_eq!(decode(&bytes, values.len() as u64, upper).unwrap(), values);
        }

        #[test]
        fn a_flipped_bit_is_refused_or_decodes_to_another_sorted_sequence(
            mut values in proptest::collection::vec(0u64..5000, 1..300),
            flip in any::<prop::sample::Index>(),
        ) {
            values.sort_unstable();
            let upper = *values.last().unwrap();
            let mut bytes = encode(&values);
            let bit = flip.index(8 * bytes.len());
            bytes[bit / 8] ^= 1 << (bit % 8);
            if let Ok(decoded) = decode(&bytes, values.len() as u64, upper) {
                prop_assert_ne!(&decoded, &values);
                prop_assert!(decoded.windows(2).all(|w| w[0] <= w[1]));
                prop_assert_eq!(decoded.last(), Some(&upper));
            }
        }
    }

    #[test]
    fn offsets_take_two_bits_and_the_logarithm_of_the_average_gap() {
        // 1M vertices of average degree 16: 2 + log2(16) = 6 bits a vertex.
        let values: Vec<u64> = (0..=1u64 << 20).map(|v| 16 * v + v % 3).collect();
        let bytes = encode(&values);
        let bits_a_value = 8.0 * bytes.len() as f64 / values.len() as f64;
        assert!((6.0..6.1).contains(&bits_a_value), "{bits_a_value}");
    }

    #[test]
    fn values_past_four_billion_round_trip() {
        let values = [0, 1 << 32, (1 << 32) + 5, 3 << 33, u64::MAX >> 1];
        assert_eq!(
            decode(&encode(&values), 5, u64::MAX >> 1).unwrap(),
            values.to_vec()
        );
    }

    #[test]
    fn a_reader_reads_in_pieces_what_it_reads_whole() {
        let values: Vec<u64> = (0..1000u64).map(|v| v * v / 7).collect();
        let bytes = encode(&values);
        let upper = *values.last().unwrap();
        let mut reader = EliasFanoReader::new(&bytes, 1000, upper).unwrap();
        let (mut got, mut piece) = (Vec::new(), [0u64; 37]);
        loop {
            let n = reader.read(&mut piece).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&piece[..n]);
        }
        assert_eq!(got, values);
    }

    #[test]
    fn a_wrong_length_header_or_count_is_refused_with_its_reason() {
        let values = [0u64, 3, 3, 9, 20];
        let bytes = encode(&values);
        let message = |r: Result<Vec<u64>, CodecError>| r.unwrap_err().to_string();
        assert!(message(decode(&bytes[..bytes.len() - 8], 5, 20)).contains("bytes"));
        assert!(message(decode(&bytes, 5, 1 << 20)).contains("take"));
        // As long, but another sequence.
        assert!(message(decode(&bytes, 5, 21)).contains("header"));
        let mut header = bytes.clone();
        header[8] = 19;
        assert!(message(decode(&header, 5, 20)).contains("header"));
        // Two low bits a value; high parts 0, 0, 0, 2, 5 at bits 0, 1, 2, 5, 9. A one at bit 3
        // makes a fourth value 0 × 4 + 1 = 1, below the 3 before it.
        let high_start = HEADER_BYTES + 8 * words(5, 20).0 as usize;
        let mut extra = bytes.clone();
        extra[high_start] |= 1 << 3;
        assert!(message(decode(&extra, 5, 20)).contains("not within 3..=20"));
        // A one past the last value.
        let mut after = bytes.clone();
        after[high_start + 1] |= 1 << 2;
        assert!(message(decode(&after, 5, 20)).contains("more than 5"));
    }

    #[test]
    fn writing_out_of_order_or_stopping_short_is_an_error() {
        let mut writer = EliasFanoWriter::new(3, 10).unwrap();
        writer.push(4).unwrap();
        assert!(writer.push(3).is_err());
        assert!(writer.push(11).is_err());
        writer.push(10).unwrap();
        assert!(writer.finish().is_err());
    }
}
