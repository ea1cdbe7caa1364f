//! Sage's graph filter (Dhulipala et al., VLDB 2020, §4.2): edges deleted from a read-only graph
//! without writing to it. The graph stays where it is (memory-mapped, compressed, on disk); the
//! filter keeps one bit per edge in DRAM, 1 = still active, and the algorithms that delete edges
//! as they go (maximal matching, set cover, biconnectivity, triangle counting) read the graph
//! through it.
//!
//! Layout. Each vertex's neighbour list is cut into blocks of [`FILTER_BLOCK_SIZE`] positions
//! (a multiple of 64, equal to the compressed codec's block, so one filter block is one decoded
//! compression block). Per block slot: its bits, its *original* block id (its position in the
//! neighbour list, still needed after empty blocks are compacted away) and the number of active
//! edges in the vertex's earlier live blocks (so the k-th active edge is found by a binary
//! search). Per vertex: its active degree, the first slot of its region and its live block
//! count; plus one dirty bit. Slots of a vertex are contiguous and never move to another vertex,
//! so packing different vertices in parallel touches disjoint memory. Memory: 12 bytes and a bit
//! a vertex (16 bytes once the slots number 2^32 or more) and 16 bytes a block slot (its bits
//! and its metadata), O(n) words + O(m) bits; [`GraphFilter::stats`] reports it.
//!
//! Packing a vertex evaluates the predicate on its active edges (decoding each block with a
//! non-zero word once), clears the bits of the edges that fail, and when at least a quarter of
//! its live blocks are empty moves the others forward, so that later walks skip no more than a
//! constant fraction of empty blocks. Set bits are walked with trailing-zero counts.
//!
//! Symmetric filters: the predicate must give the same answer for (u, v) and (v, u). Packing u
//! clears only u's copy of each edge and sets the dirty bit of the other end v, whose list still
//! shows u until v is packed; [`GraphFilter::pack_dirty`] packs exactly those vertices, so after
//! it the view is a symmetric graph again. A filter built as not symmetric filters out-edges only
//! (a directed filter, e.g. an orientation for triangle counting) and keeps no dirty bits.

mod view;

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::graph::Adjacency;
use crate::subset::VertexSubset;
use crate::Vertex;

pub use view::FilteredAdjacency;

/// Edges per filter block: Sage's F_B, and the compressed codec's block size.
pub const FILTER_BLOCK_SIZE: usize = 64;

/// Largest block size accepted (a block's decoded neighbours live on the stack while walked).
pub const MAX_FILTER_BLOCK_SIZE: usize = 4096;

/// A vertex with more live blocks than this is packed by several tasks.
const PARALLEL_BLOCKS: usize = 1024;

/// Vertices handed to one task when packing many.
const VERTICES_PER_TASK: usize = 256;

/// Memory and state of a filter, for the run statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilterStats {
    /// Heap bytes of the whole filter (vertex arrays, dirty bits, block bits and metadata).
    pub bytes: u64,
    /// Degree, block start and block count per vertex, and the dirty bits.
    pub vertex_bytes: u64,
    /// Bits and metadata of every block slot.
    pub block_bytes: u64,
    /// Block slots allocated (every block of the graph when built).
    pub block_slots: u64,
    /// Blocks still kept (slots of compacted-away blocks excluded).
    pub live_blocks: u64,
    /// Arcs whose bit is set.
    pub active_arcs: u64,
    /// Times a vertex's empty blocks were compacted away.
    pub compactions: u64,
    /// Edges per block.
    pub block_size: u64,
}

/// The result of [`GraphFilter::edge_map_pack`]: the packed vertices and their new degrees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackedSubset {
    pub ids: Vec<Vertex>,
    /// Active degree of `ids[i]` after packing.
    pub degrees: Vec<u32>,
}

/// A bit-packed, mutable mirror of a read-only adjacency. See the module documentation.
pub struct GraphFilter<'g, A: Adjacency> {
    adj: &'g A,
    symmetric: bool,
    /// 64-bit words per block (block size / 64).
    words_per_block: usize,
    /// First slot of each vertex's region (n + 1 entries); the region is fixed at build time.
    block_start: SlotStarts,
    /// Live blocks of each vertex: the first `block_count[v]` slots of its region.
    block_count: Vec<AtomicU32>,
    /// Active edges of each vertex (bits set in its live blocks).
    degree: Vec<AtomicU32>,
    /// One bit per vertex: an edge of it was cleared from the other side (symmetric filters).
    dirty: Vec<AtomicU64>,
    /// `words_per_block` words per slot.
    bits: Vec<AtomicU64>,
    /// Per slot: (original block id << 32) | active edges in the vertex's earlier live blocks.
    meta: Vec<AtomicU64>,
    active_arcs: u64,
    compactions: AtomicU64,
}

/// The first slot of each vertex's region: 32-bit entries while the slots number fewer than
/// 2^32 (the usual case: half the memory, 64 MiB less on 2^24 vertices), 64-bit beyond.
enum SlotStarts {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl SlotStarts {
    /// The prefix sums of `slots_of(v)` over `0..n`, `n + 1` entries summing to `total`.
    fn new(n: usize, total: u64, slots_of: impl Fn(usize) -> u64) -> SlotStarts {
        fn prefix<T: TryFrom<u64>>(n: usize, slots_of: impl Fn(usize) -> u64) -> Vec<T> {
            let mut starts = Vec::with_capacity(n + 1);
            let mut next = 0u64;
            for v in 0..=n {
                starts.push(
                    T::try_from(next)
                        .ok()
                        .expect("the total fits the entry width"),
                );
                if v < n {
                    next += slots_of(v);
                }
            }
            starts
        }
        match u32::try_from(total) {
            Ok(_) => SlotStarts::Narrow(prefix(n, slots_of)),
            Err(_) => SlotStarts::Wide(prefix(n, slots_of)),
        }
    }

    #[inline]
    fn get(&self, v: usize) -> usize {
        match self {
            SlotStarts::Narrow(s) => s[v] as usize,
            SlotStarts::Wide(s) => s[v] as usize,
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            SlotStarts::Narrow(s) => 4 * s.len() as u64,
            SlotStarts::Wide(s) => 8 * s.len() as u64,
        }
    }
}

#[inline]
fn pack_meta(block_id: u64, before: u64) -> u64 {
    (block_id << 32) | before
}

/// Sage's makeFilter: a filter over `adj` keeping the arcs (u, v) for which `predicate(u, v)`
/// holds. `symmetric`: the graph is symmetric and the predicate gives the same answer both ways.
pub fn make_filter<'g, A, P>(adj: &'g A, predicate: P, symmetric: bool) -> GraphFilter<'g, A>
where
    A: Adjacency,
    P: Fn(Vertex, Vertex) -> bool + Sync,
{
    let mut f = GraphFilter::new(adj, symmetric);
    f.filter_edges(predicate);
    f
}

impl<'g, A: Adjacency> GraphFilter<'g, A> {
    /// A filter with every arc active and blocks of [`FILTER_BLOCK_SIZE`].
    pub fn new(adj: &'g A, symmetric: bool) -> Self {
        Self::with_block_size(adj, symmetric, FILTER_BLOCK_SIZE)
            .expect("the default block size is valid")
    }

    /// A filter with every arc active and blocks of `block_size` edges (a multiple of 64, at
    /// most [`MAX_FILTER_BLOCK_SIZE`]; use the compressed store's block size).
    pub fn with_block_size(adj: &'g A, symmetric: bool, block_size: usize) -> anyhow::Result<Self> {
        anyhow::ensure!(
            block_size >= 64 && block_size.is_multiple_of(64) && block_size <= MAX_FILTER_BLOCK_SIZE,
            "filter block size {block_size} must be a positive multiple of 64, at most {MAX_FILTER_BLOCK_SIZE}"
        );
        let n = adj.num_vertices();
        let degrees: Vec<u32> = (0..n as Vertex)
            .into_par_iter()
            .map(|v| u32::try_from(adj.degree(v)).expect("a vertex has fewer than 2^32 neighbours"))
            .collect();
        let slots_of = |v: usize| (degrees[v] as usize).div_ceil(block_size) as u64;
        let slots: u64 = (0..n).into_par_iter().map(slots_of).sum();
        let block_start = SlotStarts::new(n, slots, slots_of);
        let words_per_block = block_size / 64;
        let bits: Vec<AtomicU64> = (0..slots as usize * words_per_block)
            .into_par_iter()
            .map(|_| AtomicU64::new(0))
            .collect();
        let meta: Vec<AtomicU64> = (0..slots).into_par_iter().map(AtomicU64::new).collect();
        let f = GraphFilter {
            adj,
            symmetric,
            words_per_block,
            block_count: (0..n)
                .into_par_iter()
                .map(|v| AtomicU32::new((block_start.get(v + 1) - block_start.get(v)) as u32))
                .collect(),
            degree: degrees.into_par_iter().map(AtomicU32::new).collect(),
            block_start,
            dirty: (0..n.div_ceil(64))
                .into_par_iter()
                .map(|_| AtomicU64::new(0))
                .collect(),
            bits,
            meta,
            active_arcs: adj.num_arcs(),
            compactions: AtomicU64::new(0),
        };
        // Every position below the degree is active; the unused tail of the last block is 0.
        (0..n)
            .into_par_iter()
            .with_min_len(VERTICES_PER_TASK)
            .for_each(|v| {
                let first = f.block_start.get(v);
                let deg = f.degree[v].load(Relaxed) as usize;
                for i in 0..f.block_count[v].load(Relaxed) as usize {
                    let slot = first + i;
                    f.meta[slot].store(pack_meta(i as u64, (i * block_size) as u64), Relaxed);
                    for k in 0..words_per_block {
                        let lo = i * block_size + 64 * k;
                        let ones = deg.saturating_sub(lo).min(64);
                        let word = if ones == 64 {
                            u64::MAX
                        } else {
                            (1u64 << ones) - 1
                        };
                        f.bits[slot * words_per_block + k].store(word, Relaxed);
                    }
                }
            });
        Ok(f)
    }

    /// The adjacency the filter mirrors.
    pub fn graph_adjacency(&self) -> &'g A {
        self.adj
    }

    pub fn num_vertices(&self) -> usize {
        self.degree.len()
    }

    pub fn is_symmetric(&self) -> bool {
        self.symmetric
    }

    pub fn block_size(&self) -> usize {
        self.words_per_block * 64
    }

    /// Arcs whose bit is set (in a symmetric filter with dirty vertices, this still counts their
    /// copies of edges cleared from the other side).
    pub fn num_active_arcs(&self) -> u64 {
        self.active_arcs
    }

    /// Active edges of `v`.
    #[inline]
    pub fn degree(&self, v: Vertex) -> usize {
        self.degree[v as usize].load(Relaxed) as usize
    }

    #[inline]
    pub fn is_dirty(&self, v: Vertex) -> bool {
        (self.dirty[v as usize / 64].load(Relaxed) >> (v % 64)) & 1 == 1
    }

    /// The dirty vertices, ascending.
    pub fn dirty_vertices(&self) -> Vec<Vertex> {
        let count: usize = self
            .dirty
            .par_iter()
            .map(|w| w.load(Relaxed).count_ones() as usize)
            .sum();
        let mut ids = Vec::with_capacity(count);
        for (i, w) in self.dirty.iter().enumerate() {
            let mut w = w.load(Relaxed);
            while w != 0 {
                ids.push((i * 64) as Vertex + w.trailing_zeros());
                w &= w - 1;
            }
        }
        ids
    }

    /// Sage's filterEdges: packs every vertex with `predicate`; returns the active arcs left.
    /// Both copies of every edge have then been judged, so no vertex is left dirty.
    pub fn filter_edges<P: Fn(Vertex, Vertex) -> bool + Sync>(&mut self, predicate: P) -> u64 {
        crate::interrupt::check();
        let n = self.num_vertices();
        let kept: u64 = (0..n as Vertex)
            .into_par_iter()
            .with_min_len(VERTICES_PER_TASK)
            .map(|v| self.pack_vertex(v, &predicate).1 as u64)
            .sum();
        self.dirty.par_iter_mut().for_each(|w| *w.get_mut() = 0);
        self.active_arcs = kept;
        kept
    }

    /// Sage's edgeMapPack: packs the members of `subset` with `predicate` and returns them with
    /// their new degrees (in `subset`'s order when sparse, ascending when dense).
    pub fn edge_map_pack<P: Fn(Vertex, Vertex) -> bool + Sync>(
        &mut self,
        subset: &VertexSubset,
        predicate: P,
    ) -> PackedSubset {
        crate::interrupt::check();
        let ids = match subset.sparse_ids() {
            Some(ids) => ids.to_vec(),
            None => subset.to_sorted_ids(),
        };
        let removed = AtomicU64::new(0);
        let degrees = ids
            .par_iter()
            .with_min_len(VERTICES_PER_TASK)
            .map(|&v| {
                let (old, new) = self.pack_vertex(v, &predicate);
                removed.fetch_add((old - new) as u64, Relaxed);
                new
            })
            .collect();
        let removed = removed.into_inner();
        self.active_arcs -= removed;
        PackedSubset { ids, degrees }
    }

    /// Packs every dirty vertex with `predicate` (the same predicate that cleared their edges
    /// from the other side), again until none is dirty: packing a dirty vertex dirties the other
    /// ends of the edges it clears, even those that were packed already (which then find nothing
    /// left to clear). Afterwards a symmetric filter is a symmetric graph again. Returns the
    /// number of packs done.
    pub fn pack_dirty<P: Fn(Vertex, Vertex) -> bool + Sync>(&mut self, predicate: P) -> usize {
        crate::interrupt::check();
        let mut packs = 0;
        loop {
            let ids = self.dirty_vertices();
            if ids.is_empty() {
                return packs;
            }
            let removed: u64 = ids
                .par_iter()
                .with_min_len(VERTICES_PER_TASK)
                .map(|&v| {
                    let (old, new) = self.pack_vertex(v, &predicate);
                    (old - new) as u64
                })
                .sum();
            self.active_arcs -= removed;
            packs += ids.len();
        }
    }

    /// Sage's PackVertex: clears the bits of `v`'s active edges that fail `predicate`, compacts
    /// away empty blocks when they are a quarter of its live blocks or more, and recomputes the
    /// active counts. Returns (old degree, new degree). Only one task may pack `v` at a time.
    fn pack_vertex<P: Fn(Vertex, Vertex) -> bool + Sync>(
        &self,
        v: Vertex,
        predicate: &P,
    ) -> (u32, u32) {
        // Cleared first: a neighbour packed at the same time may dirty `v` again, and must not
        // be lost (this pack evaluates the predicate on all of v's edges anyway).
        self.dirty[v as usize / 64].fetch_and(!(1u64 << (v % 64)), Relaxed);
        let old = self.degree[v as usize].load(Relaxed);
        let first = self.block_start.get(v as usize);
        let count = self.block_count[v as usize].load(Relaxed) as usize;
        if old == 0 {
            return (0, 0);
        }
        let clear_block = |i: usize| self.clear_failing(v, first + i, predicate);
        let empty: usize = if count > PARALLEL_BLOCKS {
            (0..count)
                .into_par_iter()
                .with_min_len(PARALLEL_BLOCKS / 4)
                .map(|i| (clear_block(i) == 0) as usize)
                .sum()
        } else {
            (0..count).map(|i| (clear_block(i) == 0) as usize).sum()
        };
        let live = if empty * 4 >= count {
            self.compactions.fetch_add(1, Relaxed);
            self.compact(first, count)
        } else {
            count
        };
        // Active edges before each live block: a prefix sum over the vertex's blocks.
        let mut before = 0u64;
        for slot in first..first + live {
            let id = self.meta[slot].load(Relaxed) >> 32;
            self.meta[slot].store(pack_meta(id, before), Relaxed);
            before += self.block_ones(slot) as u64;
        }
        self.block_count[v as usize].store(live as u32, Relaxed);
        self.degree[v as usize].store(before as u32, Relaxed);
        (old, before as u32)
    }

    /// Clears the bits of the edges in `slot` (a block of `v`) that fail `predicate`, dirtying
    /// their other ends in a symmetric filter; returns the bits left.
    fn clear_failing<P: Fn(Vertex, Vertex) -> bool>(
        &self,
        v: Vertex,
        slot: usize,
        predicate: &P,
    ) -> u32 {
        let wpb = self.words_per_block;
        let base = self.block_id(slot) * self.block_size();
        let slice = self.adj.neighbor_slice(v);
        let mut left = 0;
        for k in 0..wpb {
            let word_at = &self.bits[slot * wpb + k];
            let word = word_at.load(Relaxed);
            if word == 0 {
                continue;
            }
            let mut kept = word;
            self.walk_word(v, slice, base + 64 * k, word, |bit, u, _| {
                if !predicate(v, u) {
                    kept &= !(1u64 << bit);
                    if self.symmetric && u != v {
                        self.dirty[u as usize / 64].fetch_or(1u64 << (u % 64), Relaxed);
                    }
                }
                true
            });
            if kept != word {
                word_at.store(kept, Relaxed);
            }
            left += kept.count_ones();
        }
        left
    }

    /// Moves the non-empty blocks among `count` slots from `first` to the front, keeping their
    /// order; returns how many there are.
    fn compact(&self, first: usize, count: usize) -> usize {
        let wpb = self.words_per_block;
        let mut to = first;
        for from in first..first + count {
            if self.block_ones(from) == 0 {
                continue;
            }
            if to != from {
                self.meta[to].store(self.meta[from].load(Relaxed), Relaxed);
                for k in 0..wpb {
                    let w = self.bits[from * wpb + k].load(Relaxed);
                    self.bits[to * wpb + k].store(w, Relaxed);
                }
            }
            to += 1;
        }
        to - first
    }

    #[inline]
    fn block_id(&self, slot: usize) -> usize {
        (self.meta[slot].load(Relaxed) >> 32) as usize
    }

    #[inline]
    fn block_before(&self, slot: usize) -> usize {
        self.meta[slot].load(Relaxed) as u32 as usize
    }

    #[inline]
    fn block_ones(&self, slot: usize) -> u32 {
        let wpb = self.words_per_block;
        self.bits[slot * wpb..(slot + 1) * wpb]
            .iter()
            .map(|w| w.load(Relaxed).count_ones())
            .sum()
    }

    /// Calls `f(bit, neighbour, weight)` for every set bit of `word`, which covers positions
    /// `lo..lo + 64` of `v`'s list, in ascending order, until `f` returns false; returns false
    /// if stopped. Raw CSR is indexed directly; other backends decode the word's positions once
    /// into a buffer. Weights are read only when `WEIGHTED` (otherwise 1.0).
    #[inline]
    fn walk_word_with<const WEIGHTED: bool, F: FnMut(u32, Vertex, f64) -> bool>(
        &self,
        v: Vertex,
        slice: Option<&[Vertex]>,
        lo: usize,
        word: u64,
        mut f: F,
    ) -> bool {
        let mut rest = word;
        match slice {
            Some(list) if !WEIGHTED => {
                let list = &list[lo..];
                while rest != 0 {
                    let bit = rest.trailing_zeros();
                    if !f(bit, list[bit as usize], 1.0) {
                        return false;
                    }
                    rest &= rest - 1;
                }
            }
            _ => {
                let hi = (lo + 64 - word.leading_zeros() as usize).min(self.adj.degree(v));
                let mut ids = [0 as Vertex; 64];
                let mut weights = [1.0f64; 64];
                let mut k = 0;
                self.adj.for_each_neighbor_in(v, lo, hi, |u, w| {
                    ids[k] = u;
                    if WEIGHTED {
                        weights[k] = w;
                    }
                    k += 1;
                });
                while rest != 0 {
                    let bit = rest.trailing_zeros() as usize;
                    if !f(bit as u32, ids[bit], weights[bit]) {
                        return false;
                    }
                    rest &= rest - 1;
                }
            }
        }
        true
    }

    #[inline]
    fn walk_word<F: FnMut(u32, Vertex, f64) -> bool>(
        &self,
        v: Vertex,
        slice: Option<&[Vertex]>,
        lo: usize,
        word: u64,
        f: F,
    ) -> bool {
        self.walk_word_with::<false, F>(v, slice, lo, word, f)
    }

    /// Walks `v`'s active edges from its `skip`-th on, in ascending order, calling
    /// `f(neighbour, weight)` until it returns false; returns false if stopped.
    fn walk_active<const WEIGHTED: bool, F: FnMut(Vertex, f64) -> bool>(
        &self,
        v: Vertex,
        skip: usize,
        mut f: F,
    ) -> bool {
        let first = self.block_start.get(v as usize);
        let count = self.block_count[v as usize].load(Relaxed) as usize;
        if count == 0 || skip >= self.degree(v) {
            return true;
        }
        // The last live block with fewer than `skip` active edges before it holds the first
        // edge wanted (an empty block shares its count with the next, so it is never chosen).
        let start = if skip == 0 {
            0
        } else {
            let (mut lo, mut hi) = (1, count);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if self.block_before(first + mid) <= skip {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo - 1
        };
        let mut to_skip = skip - self.block_before(first + start);
        let slice = self.adj.neighbor_slice(v);
        let wpb = self.words_per_block;
        let block_size = self.block_size();
        for slot in first + start..first + count {
            let base = self.block_id(slot) * block_size;
            for k in 0..wpb {
                let mut word = self.bits[slot * wpb + k].load(Relaxed);
                if to_skip > 0 {
                    let ones = word.count_ones() as usize;
                    if to_skip >= ones {
                        to_skip -= ones;
                        continue;
                    }
                    for _ in 0..to_skip {
                        word &= word - 1;
                    }
                    to_skip = 0;
                }
                if word != 0
                    && !self.walk_word_with::<WEIGHTED, _>(
                        v,
                        slice,
                        base + 64 * k,
                        word,
                        |_, u, w| f(u, w),
                    )
                {
                    return false;
                }
            }
        }
        true
    }

    /// Calls `f` for every active neighbour of `v`, ascending.
    #[inline]
    pub fn for_each_active<F: FnMut(Vertex)>(&self, v: Vertex, mut f: F) {
        self.walk_active::<false, _>(v, 0, |u, _| {
            f(u);
            true
        });
    }

    /// Like [`GraphFilter::for_each_active`], stopping when `f` returns false; false if stopped.
    #[inline]
    pub fn try_for_each_active<F: FnMut(Vertex) -> bool>(&self, v: Vertex, mut f: F) -> bool {
        self.walk_active::<false, _>(v, 0, |u, _| f(u))
    }

    /// Calls `f(neighbour, weight)` for the active edges at positions `lo..hi` among `v`'s
    /// active edges (weights are 1.0 on unweighted graphs).
    pub fn for_each_active_in<F: FnMut(Vertex, f64)>(
        &self,
        v: Vertex,
        lo: usize,
        hi: usize,
        mut f: F,
    ) {
        let mut left = hi.saturating_sub(lo);
        if left == 0 {
            return;
        }
        let weighted = self.adj.is_weighted();
        let emit = |u: Vertex, w: f64| {
            f(u, w);
            left -= 1;
            left > 0
        };
        if weighted {
            self.walk_active::<true, _>(v, lo, emit);
        } else {
            self.walk_active::<false, _>(v, lo, emit);
        }
    }

    /// Calls `f(neighbour, weight)` for every active edge of `v` until it returns false.
    pub fn try_for_each_active_weighted<F: FnMut(Vertex, f64) -> bool>(
        &self,
        v: Vertex,
        f: F,
    ) -> bool {
        if self.adj.is_weighted() {
            self.walk_active::<true, _>(v, 0, f)
        } else {
            self.walk_active::<false, _>(v, 0, f)
        }
    }

    /// The filtered graph as an [`Adjacency`], so that any algorithm runs on it.
    pub fn view(&self) -> FilteredAdjacency<'_, 'g, A> {
        FilteredAdjacency::new(self)
    }

    pub fn stats(&self) -> FilterStats {
        let n = self.num_vertices() as u64;
        let vertex_bytes = self.block_start.bytes() + n * 4 * 2 + self.dirty.len() as u64 * 8;
        let block_bytes = self.bits.len() as u64 * 8 + self.meta.len() as u64 * 8;
        FilterStats {
            bytes: vertex_bytes + block_bytes,
            vertex_bytes,
            block_bytes,
            block_slots: self.meta.len() as u64,
            live_blocks: self
                .block_count
                .par_iter()
                .map(|c| c.load(Relaxed) as u64)
                .sum(),
            active_arcs: self.active_arcs,
            compactions: self.compactions.load(Relaxed),
            block_size: self.block_size() as u64,
        }
    }
}

#[cfg(test)]
mod tests;
