//! Which byte ranges an iteration reads. Both planners are lazy iterators over the frontier
//! bitmap, so a plan never needs memory in proportion to the frontier; each yields [`Piece`]s
//! whose page-widened width fits one I/O buffer in every file read, except a compressed list too
//! long for a buffer, which comes alone as a *long* piece and is read apart.

use std::ops::Range;

use vastgraph_io::{Extent, ALIGN, MAX_PARTS};

use super::bits::any_in_range;
use super::offsets::{partition_point_from, ByteOffsets};
use crate::bitmap::Bitmap;
use crate::Vertex;

/// Bytes per neighbour id in the raw layout, and per weight.
pub(crate) const ARC_BYTES: u64 = 4;

/// Where the lists lie in the files a pass reads.
#[derive(Clone, Copy)]
pub(crate) struct Layout<'a> {
    /// CSR edge offsets (n+1): degrees, and where raw ids and weights lie (4 bytes per arc).
    pub arcs: &'a [u64],
    /// A compressed store's byte offsets of each list's codes (n+1); None for raw ids.
    pub codes: Option<&'a ByteOffsets>,
    /// Whether the weights are read beside the ids.
    pub weights: bool,
}

impl Layout<'_> {
    fn num_vertices(&self) -> usize {
        self.arcs.len() - 1
    }

    /// Where `v`'s list starts in the file of ids (or codes); `v = n` gives its length.
    #[inline]
    pub fn byte(&self, v: usize) -> u64 {
        match self.codes {
            Some(codes) => codes.get(v),
            None => self.arcs[v] * ARC_BYTES,
        }
    }

    /// Raw lists may be cut between any two ids; compressed codes only decode whole.
    pub fn cuttable(&self) -> bool {
        self.codes.is_none()
    }

    /// How many lists end at or before byte `b` of the ids' file; at least `from` of them.
    fn lists_ending_by(&self, from: usize, b: u64) -> usize {
        partition_point_from(from, self.num_vertices(), |v| self.byte(v + 1) <= b)
    }

    /// How many lists start before byte `b` of the ids' file; at least `from` of them.
    fn lists_starting_before(&self, from: usize, b: u64) -> usize {
        partition_point_from(from, self.num_vertices(), |v| self.byte(v) < b)
    }

    /// The vertices whose whole list lies in `piece`.
    pub fn whole_lists(&self, piece: &Piece) -> Range<usize> {
        // Every list before the piece's first vertex ends by its start: both counts are at
        // least that vertex (and the searches answer no less).
        let first = piece.verts.start as usize;
        let lo = self.lists_starting_before(first, piece.bytes.start);
        let hi = self.lists_ending_by(first, piece.bytes.end);
        lo..hi.min(piece.verts.end as usize)
    }

    /// The bytes of the weight file a piece needs: a raw piece's arcs, a compressed piece's
    /// whole lists.
    pub fn weight_bytes(&self, piece: &Piece) -> Range<u64> {
        match self.codes {
            None => piece.bytes.clone(),
            Some(_) => {
                let (lo, hi) = (piece.verts.start as usize, piece.verts.end as usize);
                self.arcs[lo] * ARC_BYTES..self.arcs[hi] * ARC_BYTES
            }
        }
    }

    /// Whether the lists `verts`, whose ids take `bytes`, fit one buffer in every file read.
    pub fn fits(&self, bytes: Range<u64>, verts: Range<Vertex>, chunk: u64) -> bool {
        let piece = Piece {
            bytes,
            verts,
            long: false,
        };
        aligned_width(&piece.bytes) <= chunk
            && !(self.weights && aligned_width(&self.weight_bytes(&piece)) > chunk)
    }

    /// What the I/O engine reads for `piece`, per file: nothing for a long piece.
    pub fn extents(&self, piece: &Piece) -> [Extent; MAX_PARTS] {
        if piece.long {
            return [Extent::NOTHING; MAX_PARTS];
        }
        let extent = |r: Range<u64>| Extent {
            offset: r.start,
            len: (r.end - r.start) as usize,
        };
        let weights = if self.weights {
            extent(self.weight_bytes(piece))
        } else {
            Extent::NOTHING
        };
        [extent(piece.bytes.clone()), weights]
    }

    /// (page-widened bytes, requests) the device serves for `piece`, over every file read.
    pub fn cost(&self, piece: &Piece) -> (u64, u64) {
        let ids = aligned_width(&piece.bytes);
        if self.weights {
            (ids + aligned_width(&self.weight_bytes(piece)), 2)
        } else {
            (ids, 1)
        }
    }
}

/// A range of the ids' (or codes') file to read, and the vertices whose lists overlap it
/// (active or not). A *long* piece is one compressed list too long for a buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub bytes: Range<u64>,
    pub verts: Range<Vertex>,
    pub long: bool,
}

impl Piece {
    /// The arcs of a raw piece.
    pub fn arcs(&self) -> Range<u64> {
        self.bytes.start / ARC_BYTES..self.bytes.end / ARC_BYTES
    }
}

/// Whether a range ending at byte `end` and one starting at byte `start` (not before it) lie in
/// the same page or in adjacent pages: reading both in one request reads no other page.
fn pages_touch(end: u64, start: u64) -> bool {
    let a = ALIGN as u64;
    start / a <= end.div_ceil(a)
}

/// Bytes the device delivers for a range: whole pages.
fn aligned_width(bytes: &Range<u64>) -> u64 {
    let a = ALIGN as u64;
    bytes.end.next_multiple_of(a) - bytes.start / a * a
}

/// Selective mode: the lists of the active vertices in ascending order, merged while the merged
/// range fits a buffer and the two lists' pages touch (no whole page lies between them), or
/// the gap between them is at most `gap` bytes; a raw list longer than a buffer is cut at
/// buffer boundaries, a compressed one comes as a long piece. With `gap` 0 a plan reads each
/// page holding an active list once and no other page (PartitionedVC's and FlashGraph's
/// selective reads); the adaptive mode passes the device's break-even gap.
pub(crate) struct Selective<'a> {
    layout: Layout<'a>,
    active: &'a Bitmap,
    chunk: u64,
    gap: u64,
    word: usize,
    /// The word after the last one the plan covers.
    end_word: usize,
    bits: u64,
    open: Option<Piece>,
    /// A long raw list being cut: (vertex, next byte, end byte).
    split: Option<(Vertex, u64, u64)>,
    /// A long compressed list, due after the open piece.
    queued: Option<Piece>,
}

impl<'a> Selective<'a> {
    pub fn new(layout: Layout<'a>, active: &'a Bitmap, chunk: u64, gap: u64) -> Self {
        Self::within(layout, active, chunk, gap, 0..active.num_words())
    }

    /// The plan of the active vertices in the bitmap words `words` only.
    fn within(
        layout: Layout<'a>,
        active: &'a Bitmap,
        chunk: u64,
        gap: u64,
        words: Range<usize>,
    ) -> Self {
        Selective {
            layout,
            active,
            chunk,
            gap,
            word: words.start,
            end_word: words.end,
            bits: if words.start < words.end {
                active.word(words.start)
            } else {
                0
            },
            open: None,
            split: None,
            queued: None,
        }
    }

    fn next_active(&mut self) -> Option<Vertex> {
        while self.bits == 0 {
            self.word += 1;
            if self.word >= self.end_word {
                return None;
            }
            self.bits = self.active.word(self.word);
        }
        let v = (self.word * 64) as Vertex + self.bits.trailing_zeros();
        self.bits &= self.bits - 1;
        Some(v)
    }
}

impl Iterator for Selective<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        loop {
            if let Some(piece) = self.queued.take() {
                return Some(piece);
            }
            if let Some((v, pos, end)) = self.split {
                let a = ALIGN as u64;
                // A page boundary is also an arc boundary.
                let stop = end.min(pos / a * a + self.chunk);
                self.split = (stop < end).then_some((v, stop, end));
                return Some(Piece {
                    bytes: pos..stop,
                    verts: v..v + 1,
                    long: false,
                });
            }
            let Some(v) = self.next_active() else {
                return self.open.take();
            };
            let (a, b) = (
                self.layout.byte(v as usize),
                self.layout.byte(v as usize + 1),
            );
            if a == b {
                continue;
            }
            if let Some(open) = &mut self.open {
                if (pages_touch(open.bytes.end, a) || a - open.bytes.end <= self.gap)
                    && self
                        .layout
                        .fits(open.bytes.start..b, open.verts.start..v + 1, self.chunk)
                {
                    open.bytes.end = b;
                    open.verts.end = v + 1;
                    continue;
                }
            }
            let previous = self.open.take();
            if self.layout.fits(a..b, v..v + 1, self.chunk) {
                self.open = Some(Piece {
                    bytes: a..b,
                    verts: v..v + 1,
                    long: false,
                });
            } else if self.layout.cuttable() {
                self.split = Some((v, a, b));
            } else {
                self.queued = Some(Piece {
                    bytes: a..b,
                    verts: v..v + 1,
                    long: true,
                });
            }
            if previous.is_some() {
                return previous;
            }
        }
    }
}

/// Streaming mode: the file in pieces of up to `chunk` bytes, skipping pieces with no vertex
/// set in `active` (or in `also`, the vertices activated during an asynchronous pass, tested
/// when the iterator reaches the piece). Raw pieces lie on a grid of `chunk`-byte boundaries;
/// compressed ones end at the last list that fits, and a list that fits no buffer is a long
/// piece of its own.
pub(crate) struct Streaming<'a> {
    layout: Layout<'a>,
    active: &'a Bitmap,
    also: Option<&'a Bitmap>,
    chunk: u64,
    /// Raw: the next grid chunk; compressed: the next vertex.
    next: u64,
    /// Raw: the last chunk's vertex bounds, where the next chunk's searches start.
    bounds: (usize, usize),
}

impl<'a> Streaming<'a> {
    pub fn new(
        layout: Layout<'a>,
        active: &'a Bitmap,
        also: Option<&'a Bitmap>,
        chunk: u64,
    ) -> Self {
        Streaming {
            layout,
            active,
            also,
            chunk,
            next: 0,
            bounds: (0, 0),
        }
    }

    fn wanted(&self, lo: usize, hi: usize) -> bool {
        let (lo, hi) = (lo as Vertex, hi as Vertex);
        any_in_range(self.active, lo, hi)
            || self.also.is_some_and(|also| any_in_range(also, lo, hi))
    }

    fn next_raw(&mut self) -> Option<Piece> {
        let total = self.layout.byte(self.layout.num_vertices());
        while self.next * self.chunk < total {
            let a = self.next * self.chunk;
            let b = (a + self.chunk).min(total);
            self.next += 1;
            // Both bounds grow with the chunk: each search starts from the last one's answer.
            let lo = self.layout.lists_ending_by(self.bounds.0, a);
            let hi = self.layout.lists_starting_before(self.bounds.1, b);
            self.bounds = (lo, hi);
            if self.wanted(lo, hi) {
                return Some(Piece {
                    bytes: a..b,
                    verts: lo as Vertex..hi as Vertex,
                    long: false,
                });
            }
        }
        None
    }

    fn next_compressed(&mut self, codes: &ByteOffsets) -> Option<Piece> {
        let layout = self.layout;
        let n = layout.num_vertices();
        let a_page = |x: u64| x / ALIGN as u64 * ALIGN as u64;
        while (self.next as usize) < n {
            let lo = self.next as usize;
            let a = codes.get(lo);
            // The most lists from `lo` on whose codes (and weights) fit a buffer.
            let mut hi = layout.lists_ending_by(lo, a_page(a) + self.chunk);
            if layout.weights {
                let w = layout.arcs[lo] * ARC_BYTES;
                let limit = a_page(w) + self.chunk;
                hi = hi.min(partition_point_from(lo, n, |v| {
                    layout.arcs[v + 1] * ARC_BYTES <= limit
                }));
            }
            let long = hi <= lo;
            let hi = if long { lo + 1 } else { hi };
            self.next = hi as u64;
            let b = codes.get(hi);
            if b > a && self.wanted(lo, hi) {
                return Some(Piece {
                    bytes: a..b,
                    verts: lo as Vertex..hi as Vertex,
                    long,
                });
            }
        }
        None
    }
}

impl Iterator for Streaming<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        match self.layout.codes {
            None => self.next_raw(),
            Some(codes) => self.next_compressed(codes),
        }
    }
}

/// (page-widened bytes, requests) of a plan, over every file read.
pub(crate) fn measure(layout: Layout<'_>, pieces: impl Iterator<Item = Piece>) -> (u64, u64) {
    pieces.fold((0, 0), |(bytes, n), p| {
        let (b, r) = layout.cost(&p);
        (bytes + b, n + r)
    })
}

/// [`measure`] of the [`Selective`] plan, its parts planned on several threads: the walk over
/// the active vertices' offsets comes before a pass's first read (14 ms of BFS's first pull on
/// Kronecker 25, 1.9M active vertices, on one thread). Pieces that the whole plan would merge
/// across a part's boundary count apart: at most one request and one page more a boundary, for
/// a cost estimate.
pub(crate) fn measure_selective(
    layout: Layout<'_>,
    active: &Bitmap,
    chunk: u64,
    gap: u64,
) -> (u64, u64) {
    // 32K words: 2M vertices a part, whose offsets take 16 MB.
    measure_selective_in_parts(layout, active, chunk, gap, 1 << 15)
}

fn measure_selective_in_parts(
    layout: Layout<'_>,
    active: &Bitmap,
    chunk: u64,
    gap: u64,
    part_words: usize,
) -> (u64, u64) {
    use rayon::prelude::*;
    let words = active.num_words();
    (0..words.div_ceil(part_words))
        .into_par_iter()
        .map(|p| {
            let part = p * part_words..((p + 1) * part_words).min(words);
            measure(layout, Selective::within(layout, active, chunk, gap, part))
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bitmap(n: usize, set: &[usize]) -> Bitmap {
        let mut b = Bitmap::new(n);
        for &v in set {
            b.set(v);
        }
        b
    }

    fn prefix_sums(sizes: &[u64]) -> Vec<u64> {
        let mut offsets = vec![0u64];
        for d in sizes {
            offsets.push(offsets.last().unwrap() + d);
        }
        offsets
    }

    fn raw(arcs: &[u64]) -> Layout<'_> {
        Layout {
            arcs,
            codes: None,
            weights: false,
        }
    }

    /// A raw piece of arcs `a..b`.
    fn piece(arcs: Range<u64>, verts: Range<Vertex>) -> Piece {
        Piece {
            bytes: arcs.start * ARC_BYTES..arcs.end * ARC_BYTES,
            verts,
            long: false,
        }
    }

    #[test]
    fn selective_merges_small_gaps_and_cuts_long_lists() {
        // Degrees: v0 10, v1 4000 (16000 B), v2 2000 (8000 B), v3 10, v4 10.
        let offsets = prefix_sums(&[10, 4000, 2000, 10, 10]);
        // Active 0, 3, 4: v3 and v4 are adjacent, v0 far from them.
        let active = bitmap(5, &[0, 3, 4]);
        let pieces: Vec<Piece> = Selective::new(raw(&offsets), &active, 16384, 4096).collect();
        assert_eq!(pieces, vec![piece(0..10, 0..1), piece(6010..6030, 3..5)]);

        // A large gap allowance merges everything that fits one buffer.
        let pieces: Vec<Piece> = Selective::new(raw(&offsets), &active, 32768, 32768).collect();
        assert_eq!(pieces, vec![piece(0..6030, 0..5)]);
        // v1's 16000 bytes start at byte 40 and need 5 pages: cut at page-aligned 8 KiB marks.
        let active = bitmap(5, &[1]);
        let pieces: Vec<Piece> = Selective::new(raw(&offsets), &active, 8192, 4096).collect();
        assert_eq!(pieces.first().unwrap().arcs(), 10..2048);
        assert_eq!(pieces.last().unwrap().arcs().end, 4010);
        assert!(pieces
            .iter()
            .all(|p| aligned_width(&p.bytes) <= 8192 && p.verts == (1..2) && !p.long));
        assert!(pieces
            .windows(2)
            .all(|w| w[0].bytes.end == w[1].bytes.start));
    }

    #[test]
    fn without_a_gap_allowance_selective_reads_each_active_page_once() {
        // Bytes: v0 0..40, v1 40..4040, v2 4040..4080, v3 4080..12080, v4 12080..12120.
        let offsets = prefix_sums(&[10, 1000, 10, 2000, 10]);
        let active = bitmap(5, &[0, 2, 4]);
        // v0 and v2 share page 0 and merge across v1's 4000 bytes; page 1 lies whole between
        // v2 and v4 (page 2), so they are two requests.
        let pieces: Vec<Piece> = Selective::new(raw(&offsets), &active, 16384, 0).collect();
        assert_eq!(pieces, vec![piece(0..1020, 0..3), piece(3020..3030, 4..5)]);
        // Lists on adjacent pages (v0 on page 0, v2 at 4120..4160 on page 1) are one request:
        // it reads no page more.
        let adjacent = prefix_sums(&[10, 1020, 10]);
        let active = bitmap(3, &[0, 2]);
        let pieces: Vec<Piece> = Selective::new(raw(&adjacent), &active, 16384, 0).collect();
        assert_eq!(pieces, vec![piece(0..1040, 0..3)]);
        // An allowance of the 8000-byte gap merges v2 and v4 too.
        let active = bitmap(5, &[0, 2, 4]);
        let pieces: Vec<Piece> = Selective::new(raw(&offsets), &active, 16384, 8000).collect();
        assert_eq!(pieces, vec![piece(0..3030, 0..5)]);
    }

    #[test]
    fn a_selective_plan_measured_in_parts_counts_at_most_a_page_and_a_request_more_a_part() {
        // 2,000 vertices of 1 to 700 arcs, every third one active and a run of 300 actives
        // whose lists merge across the parts' boundaries.
        let sizes: Vec<u64> = (0..2000u64).map(|v| 1 + v * 7919 % 700).collect();
        let offsets = prefix_sums(&sizes);
        let set: Vec<usize> = (0..2000)
            .filter(|v| v % 3 == 0 || (900..1200).contains(v))
            .collect();
        let active = bitmap(2000, &set);
        let words = active.num_words();
        for gap in [0, 4096, 65536] {
            let (bytes, requests) = measure(
                raw(&offsets),
                Selective::new(raw(&offsets), &active, 1 << 20, gap),
            );
            let whole = measure_selective_in_parts(raw(&offsets), &active, 1 << 20, gap, words);
            assert_eq!(whole, (bytes, requests), "one part is the plan itself");
            for part_words in [1, 2, 5] {
                let (b, r) =
                    measure_selective_in_parts(raw(&offsets), &active, 1 << 20, gap, part_words);
                let boundaries = (words.div_ceil(part_words) - 1) as u64;
                assert!(
                    (bytes..=bytes + boundaries * ALIGN as u64).contains(&b),
                    "gap {gap}, parts of {part_words} words: {b} bytes against {bytes}"
                );
                assert!(
                    (requests..=requests + boundaries).contains(&r),
                    "gap {gap}, parts of {part_words} words: {r} requests against {requests}"
                );
            }
        }
    }

    #[test]
    fn streaming_skips_chunks_without_active_vertices() {
        let offsets = prefix_sums(&[1024, 1024, 1024, 1024]);
        let active = bitmap(4, &[2]);
        let pieces: Vec<Piece> = Streaming::new(raw(&offsets), &active, None, 4096).collect();
        assert_eq!(pieces, vec![piece(2048..3072, 2..3)]);
        let all = bitmap(4, &[0, 1, 2, 3]);
        let pieces: Vec<Piece> = Streaming::new(raw(&offsets), &all, None, 8192).collect();
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[1], piece(2048..4096, 2..4));
        assert_eq!(measure(raw(&offsets), pieces.into_iter()), (16384, 2));
    }

    #[test]
    fn compressed_lists_are_never_cut_and_a_list_longer_than_a_buffer_comes_alone() {
        // Code bytes per list: v2's 20000 do not fit a 16 KiB buffer; the others are small.
        let codes = prefix_sums(&[3000, 5000, 20000, 100, 0, 7000, 9000]);
        let arcs = prefix_sums(&[700, 2600, 6000, 20, 0, 1500, 2500]);
        let packed = ByteOffsets::Plain(codes.clone());
        let layout = Layout {
            arcs: &arcs,
            codes: Some(&packed),
            weights: false,
        };
        let chunk = 16384;
        let every = bitmap(7, &[0, 1, 2, 3, 4, 5, 6]);
        for pieces in [
            Streaming::new(layout, &every, None, chunk).collect::<Vec<_>>(),
            Selective::new(layout, &every, chunk, 1 << 20).collect(),
        ] {
            // Every list is in exactly one piece, whole; only v2's piece is long.
            let verts: Vec<Vertex> = pieces.iter().flat_map(|p| p.verts.clone()).collect();
            assert!(verts.windows(2).all(|w| w[0] < w[1]), "{pieces:?}");
            for p in &pieces {
                let (lo, hi) = (p.verts.start as usize, p.verts.end as usize);
                assert_eq!(p.bytes, codes[lo]..codes[hi], "{pieces:?}");
                assert_eq!(p.long, p.verts == (2..3), "{pieces:?}");
                assert!(p.long || aligned_width(&p.bytes) <= chunk, "{pieces:?}");
                assert_eq!(layout.extents(p)[0].len == 0, p.long);
                assert_eq!(layout.whole_lists(p), lo..hi);
            }
        }
        // With weights (4 bytes per arc) the weight ranges must fit too: the codes of v0 and v1
        // fit a 12 KiB buffer together, their 13200 bytes of weights do not.
        let weighted = Layout {
            weights: true,
            ..layout
        };
        let pieces: Vec<Piece> = Streaming::new(weighted, &every, None, 12288).collect();
        for p in &pieces {
            assert!(
                p.long
                    || weighted.extents(p).iter().all(|e| {
                        let r = e.offset..e.offset + e.len as u64;
                        aligned_width(&r) <= 12288
                    })
            );
        }
        assert_eq!(pieces[0].verts, 0..1);
        let unweighted: Vec<Piece> = Streaming::new(layout, &every, None, 12288).collect();
        assert_eq!(unweighted[0].verts, 0..2);
        // Streaming skips pieces without an active vertex, selective reads only active lists.
        let some = bitmap(7, &[6]);
        let streamed: Vec<Piece> = Streaming::new(layout, &some, None, chunk).collect();
        assert_eq!(streamed.len(), 1);
        assert!(streamed[0].verts.contains(&6));
        let selected: Vec<Piece> = Selective::new(layout, &some, chunk, 4096).collect();
        assert_eq!(
            selected,
            vec![Piece {
                bytes: codes[6]..codes[7],
                verts: 6..7,
                long: false
            }]
        );
    }
}
