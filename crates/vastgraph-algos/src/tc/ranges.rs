//! Triangle counting on a graph read from disk in passes (out of core), after the published
//! out-of-core triangle listings (Chu and Cheng; MGT, Hu et al. 2013): the marking method needs
//! a lower neighbour's list at random for every arc, which on disk is a read per arc, so here
//! the lists come in planned passes instead.
//!
//! The vertices are taken in ranges of consecutive ids whose lists fit `range_bytes`. For a
//! range R, the higher neighbours N⁺(v) of each v in R are held in memory, with the pairs
//! (u, v) of each lower neighbour u of v, sorted by u; one pass then reads the list of every
//! such u, and each triangle u < v < w by rank (degree, id) is counted at its middle vertex v,
//! as by the marking method: w ∈ N(u) ∩ N⁺(v). A list may arrive in pieces: the count of a
//! piece against N⁺(v) adds up to the list's. A range holds about 8 bytes an arc (4 for an id
//! of N⁺, 8 for a pair, each arc one or the other), so the passes number about
//! 8m / `range_bytes`.
//!
//! On a graph whose lists are walked one at a time (in memory), the same passes walk them, so
//! the method is tested against the marking method on any graph.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::{Adjacency, Bitmap, Vertex};

use super::{rank, scan_marked, Apex, CountOnly};

/// (triangles, lower neighbours examined, ranges); per-vertex counts go to `counts`.
pub(super) fn count_all<A: Adjacency>(
    adj: &A,
    counts: Option<&[AtomicU64]>,
    range_bytes: u64,
) -> (u64, u64, u64) {
    let n = adj.num_vertices();
    let (mut triangles, mut intersections, mut ranges) = (0, 0, 0);
    let mut start = 0;
    while start < n {
        let mut end = start;
        let mut bytes = 0u64;
        // At least one vertex a range, however long its list.
        while end < n
            && (end == start || bytes + 8 * adj.degree(end as Vertex) as u64 <= range_bytes)
        {
            bytes += 8 * adj.degree(end as Vertex) as u64;
            end += 1;
        }
        let (t, i) = count_range(adj, start as Vertex..end as Vertex, counts);
        triangles += t;
        intersections += i;
        ranges += 1;
        start = end;
    }
    (triangles, intersections, ranges)
}

/// The N⁺ lists of a range's vertices, and the (lower neighbour, vertex) pairs sorted.
struct Range {
    first: Vertex,
    /// `higher[ends[i - 1]..ends[i]]`: N⁺ of vertex `first + i`, in id order.
    ends: Vec<usize>,
    higher: Vec<Vertex>,
    pairs: Vec<(Vertex, Vertex)>,
}

impl Range {
    fn higher_of(&self, v: Vertex) -> &[Vertex] {
        let i = (v - self.first) as usize;
        let from = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.higher[from..self.ends[i]]
    }
}

/// A chunk of a range as `load` gathers it: each vertex's count of higher neighbours, those
/// neighbours, and its (lower neighbour, vertex) pairs.
type LoadedChunk = (Vec<usize>, Vec<Vertex>, Vec<(Vertex, Vertex)>);

fn load<A: Adjacency>(adj: &A, vertices: std::ops::Range<Vertex>) -> Range {
    let parts: Vec<LoadedChunk> = vertices
        .clone()
        .into_par_iter()
        .chunks(256)
        .map(|chunk| {
            let (mut lens, mut higher, mut pairs) = (Vec::new(), Vec::new(), Vec::new());
            for v in chunk {
                let rv = rank(adj, v);
                let (h0, p0) = (higher.len(), pairs.len());
                adj.for_each_neighbor(v, |x| {
                    let rx = rank(adj, x);
                    if rx > rv {
                        higher.push(x);
                    } else if rx < rv {
                        pairs.push((x, v));
                    }
                });
                // Without higher or lower neighbours, v is the middle of no triangle.
                if higher.len() == h0 || pairs.len() == p0 {
                    higher.truncate(h0);
                    pairs.truncate(p0);
                }
                lens.push(higher.len() - h0);
            }
            (lens, higher, pairs)
        })
        .collect();
    let mut ends = Vec::with_capacity(vertices.len());
    let mut higher = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    let mut pairs = Vec::with_capacity(parts.iter().map(|p| p.2.len()).sum());
    for (lens, h, p) in parts {
        for len in lens {
            ends.push(ends.last().copied().unwrap_or(0) + len);
        }
        higher.extend_from_slice(&h);
        pairs.extend_from_slice(&p);
    }
    pairs.par_sort_unstable();
    Range {
        first: vertices.start,
        ends,
        higher,
        pairs,
    }
}

/// (triangles, pairs) whose middle vertex is in `vertices`.
fn count_range<A: Adjacency>(
    adj: &A,
    vertices: std::ops::Range<Vertex>,
    counts: Option<&[AtomicU64]>,
) -> (u64, u64) {
    let n = adj.num_vertices();
    let range = load(adj, vertices);
    let lower = Bitmap::new(n);
    range.pairs.par_iter().for_each(|&(u, _)| {
        lower.set_atomic(u as usize);
    });
    let triangles = AtomicU64::new(0);
    let each = |w: Vertex| {
        if let Some(c) = counts {
            c[w as usize].fetch_add(1, Relaxed);
        }
    };
    // A piece of u's list against N⁺ of each v that u is a lower neighbour of: merged with it,
    // or, for a u of several such v, marked once in the thread's bitmap that each N⁺(v) then
    // probes within the piece's ids (a merge a pair would walk the piece again each time).
    let visit = |u: Vertex, piece: &[Vertex]| {
        let (Some(&first), Some(&last)) = (piece.first(), piece.last()) else {
            return;
        };
        let from = range.pairs.partition_point(|&(x, _)| x < u);
        let count = range.pairs[from..].partition_point(|&(x, _)| x == u);
        let middles = &range.pairs[from..from + count];
        let marked = middles.len() >= MARK_FROM;
        if marked {
            MARKED.with_borrow_mut(|bits| {
                bits.resize(n.div_ceil(64), 0);
                for &w in piece {
                    bits[w as usize / 64] |= 1 << (w % 64);
                }
            });
        }
        let mut found = 0;
        for &(_, v) in middles {
            let higher = range.higher_of(v);
            let here = match marked {
                true => {
                    let lo = higher.partition_point(|&x| x < first);
                    let hi = lo + higher[lo..].partition_point(|&x| x <= last);
                    let ids = &higher[lo..hi];
                    MARKED.with_borrow(|bits| match counts {
                        None => scan_marked(ids, last, bits, &mut CountOnly),
                        Some(c) => scan_marked(ids, last, bits, &mut Tally(c)),
                    })
                }
                false => intersect(piece, higher, each),
            };
            if here > 0 {
                if let Some(c) = counts {
                    c[v as usize].fetch_add(here, Relaxed);
                }
                found += here;
            }
        }
        if marked {
            MARKED.with_borrow_mut(|bits| {
                for &w in piece {
                    bits[w as usize / 64] = 0;
                }
            });
        }
        if found > 0 {
            if let Some(c) = counts {
                c[u as usize].fetch_add(found, Relaxed);
            }
            triangles.fetch_add(found, Relaxed);
        }
    };
    let scanned = adj.scan_lists(&lower, false, |u, piece, _| visit(u, piece));
    if !scanned {
        lower.par_for_each_set(|u| {
            adj.try_for_each_neighbor_block(u, |block| {
                visit(u, block);
                true
            });
        });
    }
    (triangles.into_inner(), range.pairs.len() as u64)
}

thread_local! {
    /// The marked piece: n bits, all clear between pieces.
    static MARKED: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Adds each apex found to its per-vertex count.
struct Tally<'a>(&'a [AtomicU64]);

impl Apex for Tally<'_> {
    const RECORDS: bool = true;
    #[inline]
    fn found(&mut self, w: Vertex) {
        self.0[w as usize].fetch_add(1, Relaxed);
    }
}

/// The middle vertices a lower neighbour's piece must have for it to be marked rather than
/// merged with each one's N⁺.
const MARK_FROM: usize = 2;

/// |a ∩ b| of two sorted lists, each common member reported. A list far shorter than the
/// other is looked up in it (a hub's list against a few higher neighbours), otherwise the two
/// are merged.
fn intersect(a: &[Vertex], b: &[Vertex], mut each: impl FnMut(Vertex)) -> u64 {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() * (usize::BITS - long.len().leading_zeros()) as usize <= long.len() {
        let mut rest = long;
        let mut common = 0;
        for &x in short {
            let at = rest.partition_point(|&y| y < x);
            rest = &rest[at..];
            match rest.first() {
                None => break,
                Some(&y) if y == x => {
                    each(x);
                    common += 1;
                    rest = &rest[1..];
                }
                Some(_) => {}
            }
        }
        return common;
    }
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                each(a[i]);
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}
