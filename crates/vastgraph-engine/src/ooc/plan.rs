//! Which byte ranges an iteration reads. Both planners are lazy iterators over the frontier
//! bitmap, so a plan never needs memory in proportion to the frontier; each yields [`Piece`]s
//! whose page-widened width fits one I/O buffer.

use std::ops::Range;

use vastgraph_io::{Extent, ALIGN};

use super::bits::any_in_range;
use crate::bitmap::Bitmap;
use crate::Vertex;

/// Bytes per neighbour id in the raw layout.
pub(crate) const ARC_BYTES: u64 = 4;

/// A range of arcs to read and the vertices whose lists overlap it (active or not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub arcs: Range<u64>,
    pub verts: Range<Vertex>,
}

impl Piece {
    pub fn extent(&self) -> Extent {
        Extent {
            offset: self.arcs.start * ARC_BYTES,
            len: ((self.arcs.end - self.arcs.start) * ARC_BYTES) as usize,
        }
    }

    /// Bytes the device delivers for this piece: whole pages.
    pub fn aligned_bytes(&self) -> u64 {
        aligned_width(self.arcs.start, self.arcs.end)
    }
}

fn aligned_width(start_arc: u64, end_arc: u64) -> u64 {
    let a = ALIGN as u64;
    (end_arc * ARC_BYTES).next_multiple_of(a) - (start_arc * ARC_BYTES) / a * a
}

/// Selective mode: the lists of the active vertices in ascending order, merged while the gap
/// between two lists is at most `gap` bytes and the merged range fits a buffer; a list longer
/// than a buffer is cut at buffer boundaries.
pub(crate) struct Selective<'a> {
    offsets: &'a [u64],
    active: &'a Bitmap,
    chunk: u64,
    gap: u64,
    word: usize,
    bits: u64,
    open: Option<Piece>,
    /// A long list being cut: (vertex, next arc, end arc).
    split: Option<(Vertex, u64, u64)>,
}

impl<'a> Selective<'a> {
    pub fn new(offsets: &'a [u64], active: &'a Bitmap, chunk: u64, gap: u64) -> Self {
        Selective {
            offsets,
            active,
            chunk,
            gap,
            word: 0,
            bits: if active.num_words() > 0 {
                active.word(0)
            } else {
                0
            },
            open: None,
            split: None,
        }
    }

    fn next_active(&mut self) -> Option<Vertex> {
        while self.bits == 0 {
            self.word += 1;
            if self.word >= self.active.num_words() {
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
            if let Some((v, pos, end)) = self.split {
                let a = ALIGN as u64;
                let limit = ((pos * ARC_BYTES) / a * a + self.chunk) / ARC_BYTES;
                let stop = end.min(limit);
                self.split = (stop < end).then_some((v, stop, end));
                return Some(Piece {
                    arcs: pos..stop,
                    verts: v..v + 1,
                });
            }
            let Some(v) = self.next_active() else {
                return self.open.take();
            };
            let (a, b) = (self.offsets[v as usize], self.offsets[v as usize + 1]);
            if a == b {
                continue;
            }
            if let Some(open) = &mut self.open {
                if (a - open.arcs.end) * ARC_BYTES <= self.gap
                    && aligned_width(open.arcs.start, b) <= self.chunk
                {
                    open.arcs.end = b;
                    open.verts.end = v + 1;
                    continue;
                }
            }
            let previous = self.open.take();
            if aligned_width(a, b) > self.chunk {
                self.split = Some((v, a, b));
            } else {
                self.open = Some(Piece {
                    arcs: a..b,
                    verts: v..v + 1,
                });
            }
            if previous.is_some() {
                return previous;
            }
        }
    }
}

/// Streaming mode: the file in `chunk`-byte pieces at page-aligned boundaries, skipping pieces
/// with no vertex set in `active` (or in `also`, the vertices activated during an asynchronous
/// pass, tested when the iterator reaches the piece).
pub(crate) struct Streaming<'a> {
    offsets: &'a [u64],
    active: &'a Bitmap,
    also: Option<&'a Bitmap>,
    chunk_arcs: u64,
    next_chunk: u64,
    chunks: u64,
}

impl<'a> Streaming<'a> {
    pub fn new(
        offsets: &'a [u64],
        active: &'a Bitmap,
        also: Option<&'a Bitmap>,
        chunk: u64,
    ) -> Self {
        let arcs = *offsets.last().unwrap_or(&0);
        let chunk_arcs = chunk / ARC_BYTES;
        Streaming {
            offsets,
            active,
            also,
            chunk_arcs,
            next_chunk: 0,
            chunks: arcs.div_ceil(chunk_arcs),
        }
    }
}

impl Iterator for Streaming<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        let arcs = *self.offsets.last().unwrap_or(&0);
        let n = self.offsets.len() - 1;
        while self.next_chunk < self.chunks {
            let a = self.next_chunk * self.chunk_arcs;
            let b = (a + self.chunk_arcs).min(arcs);
            self.next_chunk += 1;
            // Vertices whose lists end at or before a, and those starting before b.
            let lo = self.offsets[1..].partition_point(|&o| o <= a) as Vertex;
            let hi = self.offsets[..n].partition_point(|&o| o < b) as Vertex;
            if any_in_range(self.active, lo, hi)
                || self.also.is_some_and(|also| any_in_range(also, lo, hi))
            {
                return Some(Piece {
                    arcs: a..b,
                    verts: lo..hi,
                });
            }
        }
        None
    }
}

/// (page-widened bytes, requests) of a plan.
pub(crate) fn measure(pieces: impl Iterator<Item = Piece>) -> (u64, u64) {
    pieces.fold((0, 0), |(bytes, n), p| (bytes + p.aligned_bytes(), n + 1))
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

    #[test]
    fn selective_merges_small_gaps_and_cuts_long_lists() {
        // Degrees: v0 10, v1 4000 (16000 B), v2 2000 (8000 B), v3 10, v4 10.
        let degrees = [10u64, 4000, 2000, 10, 10];
        let mut offsets = vec![0u64];
        for d in degrees {
            offsets.push(offsets.last().unwrap() + d);
        }
        // Active 0, 3, 4: v3 and v4 are adjacent, v0 far from them.
        let active = bitmap(5, &[0, 3, 4]);
        let pieces: Vec<Piece> = Selective::new(&offsets, &active, 16384, 4096).collect();
        assert_eq!(
            pieces,
            vec![
                Piece {
                    arcs: 0..10,
                    verts: 0..1
                },
                Piece {
                    arcs: 6010..6030,
                    verts: 3..5
                }
            ]
        );
        // A large gap allowance merges everything that fits one buffer.
        let pieces: Vec<Piece> = Selective::new(&offsets, &active, 32768, 32768).collect();
        assert_eq!(
            pieces,
            vec![Piece {
                arcs: 0..6030,
                verts: 0..5
            }]
        );
        // v1's 16000 bytes start at byte 40 and need 5 pages: cut at page-aligned 8 KiB marks.
        let active = bitmap(5, &[1]);
        let pieces: Vec<Piece> = Selective::new(&offsets, &active, 8192, 4096).collect();
        assert_eq!(pieces.first().unwrap().arcs, 10..2048);
        assert_eq!(pieces.last().unwrap().arcs.end, 4010);
        assert!(pieces
            .iter()
            .all(|p| p.aligned_bytes() <= 8192 && p.verts == (1..2)));
        assert!(pieces.windows(2).all(|w| w[0].arcs.end == w[1].arcs.start));
    }

    #[test]
    fn streaming_skips_chunks_without_active_vertices() {
        let degrees = [1024u64, 1024, 1024, 1024];
        let mut offsets = vec![0u64];
        for d in degrees {
            offsets.push(offsets.last().unwrap() + d);
        }
        let active = bitmap(4, &[2]);
        let pieces: Vec<Piece> = Streaming::new(&offsets, &active, None, 4096).collect();
        assert_eq!(
            pieces,
            vec![Piece {
                arcs: 2048..3072,
                verts: 2..3
            }]
        );
        let all = bitmap(4, &[0, 1, 2, 3]);
        let pieces: Vec<Piece> = Streaming::new(&offsets, &all, None, 8192).collect();
        assert_eq!(pieces.len(), 2);
        assert_eq!(
            pieces[1],
            Piece {
                arcs: 2048..4096,
                verts: 2..4
            }
        );
        assert_eq!(measure(pieces.into_iter()), (16384, 2));
    }
}
