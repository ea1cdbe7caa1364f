//! Read-only graph access. Algorithms see the graph only through [`Adjacency`], so the raw CSR
//! here, the compressed codec and the out-of-core backends plug in without touching them.

use crate::bitmap::{for_each_in_word, Bitmap};
use crate::lane_sum::LaneSum;
pub use vastgraph_codec::ListVisitor;
use vastgraph_store::manifest::NO_NEIGHBOR;
use vastgraph_store::{TilesRef, Vertex, WeightsRef};

/// The length of the blocks [`Adjacency::try_for_each_neighbor_block`] hands over when a list
/// is not one slice (the codec's block): a multiple of 4 and 8, so that loops unrolled by
/// either put the same positions in the same lanes whatever the backend.
pub const NEIGHBOR_BLOCK: usize = vastgraph_codec::BLOCK_EDGES;

/// One direction of a graph's adjacency (out-edges, or in-edges of a directed graph).
///
/// Neighbours come in ascending id order. Unweighted graphs report weight 1.0 for every arc.
pub trait Adjacency: Sync {
    /// Whether [`Self::scan_lists`] reads lists in planned passes (a graph on disk): then
    /// `edge_map` hands it whole frontiers rather than walking their lists one at a time.
    const READS_IN_PASSES: bool = false;

    fn num_vertices(&self) -> usize;
    fn num_arcs(&self) -> u64;
    fn degree(&self, v: Vertex) -> usize;
    fn is_weighted(&self) -> bool;

    /// The graph on disk these lists are read from, for views that are one
    /// ([`crate::ooc::OocLists`]): the [`crate::Traversal`] of a graph over them runs its passes
    /// there. None for lists in memory.
    fn on_disk(&self) -> Option<&crate::ooc::OocGraph> {
        None
    }

    /// The tiles of these arcs ([`crate::tiles`]), for lists in memory whose store has them.
    fn tiles(&self) -> Option<vastgraph_store::TilesRef<'_>> {
        None
    }

    /// Calls `f` for every neighbour of `v`.
    fn for_each_neighbor<F: FnMut(Vertex)>(&self, v: Vertex, f: F);

    /// Calls `f` for the neighbours at positions `lo..hi` of `v`'s list, so that one
    /// high-degree vertex can be split across threads.
    fn for_each_neighbor_in<F: FnMut(Vertex, f64)>(&self, v: Vertex, lo: usize, hi: usize, f: F);

    /// Calls `f(neighbour, weight)` for every neighbour of `v`.
    fn for_each_weighted<F: FnMut(Vertex, f64)>(&self, v: Vertex, f: F);

    /// Like `for_each_neighbor`, stopping as soon as `f` returns false. Returns false if stopped.
    fn try_for_each_neighbor<F: FnMut(Vertex) -> bool>(&self, v: Vertex, f: F) -> bool;

    /// Like `try_for_each_neighbor`, from list position `from` on: for a caller that has
    /// checked the first neighbour through [`Self::first_neighbor`] and walks on from 1.
    #[inline]
    fn try_for_each_neighbor_from<F: FnMut(Vertex) -> bool>(
        &self,
        v: Vertex,
        from: usize,
        mut f: F,
    ) -> bool {
        let mut position = 0;
        self.try_for_each_neighbor(v, |u| {
            position += 1;
            position <= from || f(u)
        })
    }

    /// [`Self::try_for_each_neighbor_from`] for each vertex `v = base + i` of the set bits `i`
    /// of `word`, in order, with `arc(v, u)` stopping each list: the lists of a bottom-up
    /// step's word. A compressed graph decodes them in one call. Returns how many arcs it
    /// offered `arc`, counted here rather than by `arc`: a count that `arc` kept would live
    /// in memory behind the closure, and each arc's store to it would make the compiler reload
    /// everything else `arc` reads (on a compressed graph, BFS's bottom-up steps took 5% longer).
    #[inline]
    fn walk_word_from<F: FnMut(Vertex, Vertex) -> bool>(
        &self,
        base: Vertex,
        word: u64,
        from: usize,
        mut arc: F,
    ) -> u64 {
        let mut offered = 0;
        for_each_in_word(word, base, |v| {
            self.try_for_each_neighbor_from(v, from, |u| {
                offered += 1;
                arc(v, u)
            });
        });
        offered
    }

    /// For each vertex `v = base + i` of the set bits `i` of `word`, in order, the first of
    /// `v`'s neighbours from position `from` on that is in `front`, handed over as
    /// `found(v, u)`: a bottom-up BFS step's search for a parent. Returns how many neighbours
    /// it looked at. [`Self::walk_word_from`] with a test of `front`, unless the view tests
    /// several at once (a compressed graph tests a decoded group of four with one gather).
    #[inline]
    fn find_word_in<F: FnMut(Vertex, Vertex)>(
        &self,
        base: Vertex,
        word: u64,
        from: usize,
        front: &Bitmap,
        found: F,
    ) -> u64 {
        self.walk_word_from(base, word, from, until_in(front, found))
    }

    /// `v`'s first (smallest) neighbour, None for an empty list; from a store's side file of
    /// first neighbours without reading the list, where the view has one.
    #[inline]
    fn first_neighbor(&self, v: Vertex) -> Option<Vertex> {
        let mut first = None;
        self.try_for_each_neighbor(v, |u| {
            first = Some(u);
            false
        });
        first
    }

    /// Starts loading the start of `v`'s list into the cache, for a caller that reads several
    /// lists one after another: asked for all of them first, their cache misses overlap instead
    /// of queueing behind the work on each list. A hint; the default does nothing.
    #[inline]
    fn prefetch_list(&self, _v: Vertex) {}

    /// On a graph read from disk in passes: calls `visit(v, neighbours, weights)` for the
    /// lists of the vertices of `set`, read in one planned pass, and returns true. A long list
    /// may arrive in several consecutive pieces, from several threads at once; `weights` are
    /// the pieces' arc weights when `weighted` (1.0 on an unweighted graph), empty otherwise.
    /// A graph whose lists are cheaper to walk one at a time (in memory) returns false without
    /// calling `visit`: the default. [`Self::READS_IN_PASSES`] tells which beforehand.
    fn scan_lists<V: Fn(Vertex, &[Vertex], &[f64]) + Sync>(
        &self,
        _set: &Bitmap,
        _weighted: bool,
        _visit: V,
    ) -> bool {
        false
    }

    /// Like `for_each_weighted`, stopping as soon as `f` returns false. Returns false if stopped.
    fn try_for_each_weighted<F: FnMut(Vertex, f64) -> bool>(&self, v: Vertex, f: F) -> bool;

    /// The neighbours as one slice, when the backend stores them that way (raw CSR). Set
    /// intersection (triangle counting) uses it; other backends return None and are iterated.
    fn neighbor_slice(&self, _v: Vertex) -> Option<&[Vertex]> {
        None
    }

    /// Calls `f` on `v`'s neighbours a block at a time: consecutive slices that together are
    /// the list in order, stopping as soon as `f` returns false (returns false if stopped).
    /// Hot loops run their plain slice loop on each block, so one code path serves every
    /// backend: the raw CSR hands over the whole list as one block, the compressed view one
    /// decoded block at a time. Every block but the last holds a multiple of
    /// [`NEIGHBOR_BLOCK`] neighbours.
    ///
    /// The default serves backends that have only the per-neighbour calls: it gathers their
    /// neighbours into blocks of [`NEIGHBOR_BLOCK`].
    #[inline]
    fn try_for_each_neighbor_block<F: FnMut(&[Vertex]) -> bool>(
        &self,
        v: Vertex,
        mut f: F,
    ) -> bool {
        if let Some(all) = self.neighbor_slice(v) {
            return f(all);
        }
        let mut block = [0 as Vertex; NEIGHBOR_BLOCK];
        let mut len = 0;
        let finished = self.try_for_each_neighbor(v, |u| {
            block[len] = u;
            len += 1;
            if len < NEIGHBOR_BLOCK {
                return true;
            }
            len = 0;
            f(&block)
        });
        finished && (len == 0 || f(&block[..len]))
    }

    /// How many values [`Self::sum_lists`] wants: one per vertex and then a 0.0; more on a
    /// view whose decoder uses zeros after it ([`crate::lane_sum::padded_sum_values_len`]).
    fn sum_values_len(&self) -> usize {
        self.num_vertices() + 1
    }

    /// The lists of `vertices` in order, each a block at a time as
    /// [`Self::try_for_each_neighbor_block`] hands them over, then `visitor.end_list(v)`. For
    /// a pass over every list (PageRank's sums): a compressed graph decodes the whole range in
    /// one call rather than one call per list.
    #[inline]
    fn visit_lists<V: ListVisitor>(&self, vertices: std::ops::Range<Vertex>, visitor: &mut V) {
        for v in vertices {
            self.try_for_each_neighbor_block(v, |neighbors| {
                visitor.block(neighbors);
                true
            });
            visitor.end_list(v);
        }
    }

    /// `emit(v, Σ values[u] over v's list)` for the vertices of `vertices` in order, summed in
    /// the order of [`crate::lane_sum`], which every view keeps, so the sums are the same
    /// whatever the view. `values` holds one value per vertex, then 0.0, then any number of
    /// zeros, [`Self::sum_values_len`] in all (a compressed graph decodes and sums in one
    /// loop, where a list's unused lanes read that 0.0, and a frame-of-reference decoder uses
    /// the zeros after it); the default visits the lists with [`LaneSum`].
    #[inline]
    fn sum_lists<E: FnMut(Vertex, f64)>(
        &self,
        vertices: std::ops::Range<Vertex>,
        values: &[f64],
        emit: E,
    ) {
        // The values past the 0.0 (`Self::sum_values_len`) are not the visitor's.
        let values = &values[..=self.num_vertices()];
        self.visit_lists(vertices, &mut LaneSum::new(values, emit));
    }
}

/// Raw CSR over borrowed arrays: a memory-mapped store or vectors owned elsewhere.
#[derive(Clone, Copy)]
pub struct CsrAdjacency<'a> {
    offsets: &'a [u64],
    neighbors: &'a [Vertex],
    weights: Option<WeightsRef<'a>>,
    first_neighbors: Option<&'a [Vertex]>,
    tiles: Option<TilesRef<'a>>,
}

impl<'a> CsrAdjacency<'a> {
    /// The arrays must already be valid CSR (the store validates them when opened).
    pub fn new(
        offsets: &'a [u64],
        neighbors: &'a [Vertex],
        weights: Option<WeightsRef<'a>>,
    ) -> Self {
        assert!(!offsets.is_empty(), "CSR offsets hold n+1 entries");
        assert_eq!(*offsets.last().unwrap() as usize, neighbors.len());
        if let Some(w) = &weights {
            assert_eq!(w.len(), neighbors.len());
        }
        CsrAdjacency {
            offsets,
            neighbors,
            weights,
            first_neighbors: None,
            tiles: None,
        }
    }

    /// The same lists, with the tiles of their arcs (validated by the store).
    pub fn with_tiles(self, tiles: TilesRef<'a>) -> Self {
        assert_eq!(tiles.num_edges(), self.num_arcs(), "tiles of these arcs");
        CsrAdjacency {
            tiles: Some(tiles),
            ..self
        }
    }

    /// See [`first_then_rest`].
    pub fn with_first_neighbors(self, first_neighbors: &'a [Vertex]) -> Self {
        assert_eq!(
            first_neighbors.len() + 1,
            self.offsets.len(),
            "one per vertex"
        );
        CsrAdjacency {
            first_neighbors: Some(first_neighbors),
            ..self
        }
    }

    #[inline]
    fn range(&self, v: Vertex) -> (usize, usize) {
        let v = v as usize;
        (self.offsets[v] as usize, self.offsets[v + 1] as usize)
    }

    pub fn offsets(&self) -> &'a [u64] {
        self.offsets
    }

    pub fn neighbors(&self) -> &'a [Vertex] {
        self.neighbors
    }

    pub fn weights(&self) -> Option<WeightsRef<'a>> {
        self.weights
    }
}

impl Adjacency for CsrAdjacency<'_> {
    #[inline]
    fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }
    #[inline]
    fn num_arcs(&self) -> u64 {
        self.neighbors.len() as u64
    }
    #[inline]
    fn degree(&self, v: Vertex) -> usize {
        let (a, b) = self.range(v);
        b - a
    }
    fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }
    fn tiles(&self) -> Option<TilesRef<'_>> {
        self.tiles
    }
    #[inline]
    fn for_each_neighbor<F: FnMut(Vertex)>(&self, v: Vertex, mut f: F) {
        let (a, b) = self.range(v);
        for &u in &self.neighbors[a..b] {
            f(u);
        }
    }
    #[inline]
    fn for_each_neighbor_in<F: FnMut(Vertex, f64)>(
        &self,
        v: Vertex,
        lo: usize,
        hi: usize,
        mut f: F,
    ) {
        let (a, _) = self.range(v);
        let (a, b) = (a + lo, a + hi);
        match self.weights {
            None => self.neighbors[a..b].iter().for_each(|&u| f(u, 1.0)),
            Some(WeightsRef::I32(w)) => {
                for (&u, &x) in self.neighbors[a..b].iter().zip(&w[a..b]) {
                    f(u, x as f64)
                }
            }
            Some(WeightsRef::F32(w)) => {
                for (&u, &x) in self.neighbors[a..b].iter().zip(&w[a..b]) {
                    f(u, x as f64)
                }
            }
        }
    }
    #[inline]
    fn for_each_weighted<F: FnMut(Vertex, f64)>(&self, v: Vertex, f: F) {
        self.for_each_neighbor_in(v, 0, self.degree(v), f)
    }
    #[inline]
    fn try_for_each_neighbor<F: FnMut(Vertex) -> bool>(&self, v: Vertex, f: F) -> bool {
        first_then_rest(self.first_neighbors, v, f, |from, f| {
            self.try_for_each_neighbor_from(v, from, f)
        })
    }
    #[inline]
    fn try_for_each_neighbor_from<F: FnMut(Vertex) -> bool>(
        &self,
        v: Vertex,
        from: usize,
        mut f: F,
    ) -> bool {
        let (a, b) = self.range(v);
        self.neighbors[(a + from).min(b)..b].iter().all(|&u| f(u))
    }
    /// The arcs offered are counted from where each list stopped, not one by one.
    #[inline]
    fn walk_word_from<F: FnMut(Vertex, Vertex) -> bool>(
        &self,
        base: Vertex,
        word: u64,
        from: usize,
        mut arc: F,
    ) -> u64 {
        let mut offered = 0;
        for_each_in_word(word, base, |v| {
            let (a, b) = self.range(v);
            let list = &self.neighbors[(a + from).min(b)..b];
            offered += list
                .iter()
                .position(|&u| !arc(v, u))
                .map_or(list.len(), |stop| stop + 1) as u64;
        });
        offered
    }
    #[inline]
    fn try_for_each_weighted<F: FnMut(Vertex, f64) -> bool>(&self, v: Vertex, mut f: F) -> bool {
        let (a, b) = self.range(v);
        match self.weights {
            None => self.neighbors[a..b].iter().all(|&u| f(u, 1.0)),
            Some(WeightsRef::I32(w)) => self.neighbors[a..b]
                .iter()
                .zip(&w[a..b])
                .all(|(&u, &x)| f(u, x as f64)),
            Some(WeightsRef::F32(w)) => self.neighbors[a..b]
                .iter()
                .zip(&w[a..b])
                .all(|(&u, &x)| f(u, x as f64)),
        }
    }
    #[inline]
    fn neighbor_slice(&self, v: Vertex) -> Option<&[Vertex]> {
        let (a, b) = self.range(v);
        Some(&self.neighbors[a..b])
    }
    #[inline(always)]
    fn first_neighbor(&self, v: Vertex) -> Option<Vertex> {
        first_from_side(self.first_neighbors, v, || {
            let (a, b) = self.range(v);
            self.neighbors[a..b].first().copied()
        })
    }
    #[inline]
    fn prefetch_list(&self, v: Vertex) {
        let start = self.offsets[v as usize] as usize;
        crate::memory::prefetch(self.neighbors.as_ptr().wrapping_add(start));
    }
    /// Each list whole; for a visitor that prefetches, lists are handed over in chunks of
    /// [`PREFETCH_CHUNK`] neighbours and the neighbours [`PREFETCH_AHEAD`] positions past the
    /// chunk being visited are prefetched first. A chunk is a multiple of 4 long, as the
    /// compressed blocks are, so a visitor summing in 4 lanes sums in the same order.
    fn visit_lists<V: ListVisitor>(&self, vertices: std::ops::Range<Vertex>, visitor: &mut V) {
        if !visitor.wants_prefetch() {
            for v in vertices {
                let (a, b) = self.range(v);
                visitor.block(&self.neighbors[a..b]);
                visitor.end_list(v);
            }
            return;
        }
        let end = self.offsets[vertices.end as usize] as usize;
        let mut ahead = self.offsets[vertices.start as usize] as usize;
        for v in vertices {
            let (a, b) = self.range(v);
            for (early, piece) in PrefetchedPieces::new(a..b, end, &mut ahead) {
                if !early.is_empty() {
                    visitor.prefetch(&self.neighbors[early]);
                }
                visitor.block(&self.neighbors[piece]);
            }
            visitor.end_list(v);
        }
    }
}

/// The pieces of one list, `ids[list]` of an array of `ids_len` ids laid out list after list,
/// each with the ids to prefetch before visiting it: pieces of at most [`PREFETCH_CHUNK`] ids (a
/// multiple of 4, as the compressed blocks are, so a visitor summing in 4 lanes sums in the same
/// order either way), and the ids from where prefetching has got to through [`PREFETCH_AHEAD`]
/// positions past the piece. The lists that follow are prefetched too, so short lists gain as
/// much as long ones. `ahead` is the position before which every id has been prefetched; it
/// carries over from one list to the next.
pub(crate) struct PrefetchedPieces<'a> {
    /// The next piece's start; None once the list's last piece was handed over.
    at: Option<usize>,
    end: usize,
    ids_len: usize,
    ahead: &'a mut usize,
}

impl<'a> PrefetchedPieces<'a> {
    pub(crate) fn new(list: std::ops::Range<usize>, ids_len: usize, ahead: &'a mut usize) -> Self {
        PrefetchedPieces {
            at: Some(list.start),
            end: list.end,
            ids_len,
            ahead,
        }
    }
}

impl Iterator for PrefetchedPieces<'_> {
    /// (ids to prefetch, the piece to visit), as ranges of positions.
    type Item = (std::ops::Range<usize>, std::ops::Range<usize>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let p = self.at?;
        let q = (p + PREFETCH_CHUNK).min(self.end);
        // An empty list is one empty piece.
        self.at = (q < self.end).then_some(q);
        let target = (q + PREFETCH_AHEAD).min(self.ids_len);
        let from = (*self.ahead).max(p).min(target);
        *self.ahead = (*self.ahead).max(target);
        Some((from..target, p..q))
    }
}

/// Offers `v`'s neighbours to `f` until it returns false (returns false if it did), its first
/// one from `first_neighbors` when given (a store's side file: one per vertex, `NO_NEIGHBOR` for
/// an empty list) and the others through `rest(from, f)`, which offers positions `from..`.
/// A consumer that stops at the first neighbour (most vertices of a bottom-up BFS step) then
/// reads 4 bytes of a dense array instead of a list's offsets and its first cache line, or
/// its codes: on Kronecker 22, BFS went from 0.079 to 0.066 s raw and from 0.124 to 0.087 s on
/// Stream VByte. Where the first neighbour seldom ends the walk (cnr-2000), the extra check
/// costs about 10%.
#[inline(always)]
pub(crate) fn first_then_rest<F: FnMut(Vertex) -> bool>(
    first_neighbors: Option<&[Vertex]>,
    v: Vertex,
    mut f: F,
    rest: impl FnOnce(usize, F) -> bool,
) -> bool {
    match first_neighbors.map(|firsts| firsts[v as usize]) {
        None => rest(0, f),
        Some(NO_NEIGHBOR) => true,
        Some(first) => f(first) && rest(1, f),
    }
}

/// [`Adjacency::first_neighbor`] of a view: from `first_neighbors` when given (a store's side
/// file, as in [`first_then_rest`]), else by `walk`. Inlined whole into a BFS step that asks
/// it of every unvisited vertex, where a call per vertex cost 10% of the step.
#[inline(always)]
pub(crate) fn first_from_side(
    first_neighbors: Option<&[Vertex]>,
    v: Vertex,
    walk: impl FnOnce() -> Option<Vertex>,
) -> Option<Vertex> {
    match first_neighbors {
        Some(firsts) => Some(firsts[v as usize]).filter(|&u| u != NO_NEIGHBOR),
        None => walk(),
    }
}

/// How many vertices ahead [`for_each_list_prefetched`] asks for a list.
const LIST_PREFETCH_AHEAD: usize = 8;

/// Calls `f` on the vertex of each of `items` (`id` reads it) in order, having asked `adj` for
/// the list of the vertex [`LIST_PREFETCH_AHEAD`] places on, so that the cache misses of
/// several lists overlap rather than each waiting behind the work on the list before. For the
/// frontier loops of a push step (BFS top-down, `edge_map`'s sparse push): on Kronecker 22,
/// BFS's top-down levels gained about 4%.
#[inline(always)]
pub fn for_each_list_prefetched<A: Adjacency, T>(
    adj: &A,
    items: &[T],
    id: impl Fn(&T) -> Vertex,
    mut f: impl FnMut(Vertex),
) {
    for item in items.iter().take(LIST_PREFETCH_AHEAD) {
        adj.prefetch_list(id(item));
    }
    for (i, item) in items.iter().enumerate() {
        if let Some(ahead) = items.get(i + LIST_PREFETCH_AHEAD) {
            adj.prefetch_list(id(ahead));
        }
        f(id(item));
    }
}

/// A pull over the vertices of one 64-vertex word: for each `v = base + bit` of `todo`, in
/// order, offers `v`'s neighbours to `arc(v, u)` until it returns false, as a pull that stops
/// at its first useful neighbour wants (BFS's bottom-up step, `edge_map`'s pull).
///
/// First every vertex's first neighbour (from the store's side file where the view has one),
/// which on a skewed graph settles most of them; the lists of the rest are asked for, and only
/// then walked on from their second neighbour. Walking each list as soon as its first
/// neighbour missed made its cache miss wait behind the work on the list before (a compressed
/// list's decoder is long): on Kronecker 22, BFS went from 0.065 to 0.051 s raw and from
/// 0.084 to 0.065 s on Stream VByte.
///
/// Returns how many arcs it offered `arc` (see [`Adjacency::walk_word_from`]).
#[inline(always)]
pub fn pull_word<A: Adjacency>(
    adj: &A,
    base: Vertex,
    todo: u64,
    mut arc: impl FnMut(Vertex, Vertex) -> bool,
) -> u64 {
    let (rest, firsts) = offer_first_neighbors(adj, base, todo, &mut arc);
    firsts + adj.walk_word_from(base, rest, 1, arc)
}

/// [`pull_word`] for a bottom-up BFS step: for each `v = base + bit` of `todo`, its first
/// neighbour in `front`, handed over as `found(v, u)` (through [`Adjacency::find_word_in`]).
/// Returns how many neighbours it looked at.
#[inline(always)]
pub fn find_in_word<A: Adjacency>(
    adj: &A,
    base: Vertex,
    todo: u64,
    front: &Bitmap,
    mut found: impl FnMut(Vertex, Vertex),
) -> u64 {
    let (rest, firsts) = offer_first_neighbors(adj, base, todo, &mut until_in(front, &mut found));
    firsts + adj.find_word_in(base, rest, 1, front, found)
}

/// An arc test that hands `found(v, u)` over and stops `v`'s list at its first neighbour `u` in
/// `front`.
#[inline(always)]
fn until_in<'a>(
    front: &'a Bitmap,
    mut found: impl FnMut(Vertex, Vertex) + 'a,
) -> impl FnMut(Vertex, Vertex) -> bool + 'a {
    move |v, u| {
        if front.get(u as usize) {
            found(v, u);
            return false;
        }
        true
    }
}

/// A word pull's first step: each vertex's first neighbour to `arc`. Returns the vertices whose
/// lists go on (`arc` returned true and the list is longer), their lists asked for, and how
/// many first neighbours it offered.
#[inline(always)]
fn offer_first_neighbors<A: Adjacency>(
    adj: &A,
    base: Vertex,
    todo: u64,
    arc: &mut impl FnMut(Vertex, Vertex) -> bool,
) -> (u64, u64) {
    let (mut rest, mut empty) = (0u64, 0u64);
    for_each_in_word(todo, base, |v| {
        let Some(u) = adj.first_neighbor(v) else {
            empty += 1;
            return;
        };
        if arc(v, u) && adj.degree(v) > 1 {
            adj.prefetch_list(v);
            rest |= 1 << (v - base);
        }
    });
    // One first neighbour offered for each vertex of `todo` but the empty lists.
    (rest, todo.count_ones() as u64 - empty)
}

/// Frontier vertices a push task takes at a time in [`for_each_list_prefetched`]'s callers
/// (rayon splits a frontier down to these).
pub const PUSH_CHUNK: usize = 256;

/// How far ahead (in neighbours) a raw graph's [`Adjacency::visit_lists`] prefetches.
const PREFETCH_AHEAD: usize = 256;
/// The longest piece of a list a raw graph hands over at once when prefetching.
const PREFETCH_CHUNK: usize = 256;

/// A graph: out-edges, and in-edges when they exist (a symmetric graph's in-edges are its
/// out-edges; a directed store has them only when built with a transpose).
pub struct Graph<A: Adjacency> {
    out: A,
    incoming: Option<A>,
    symmetric: bool,
}

pub type CsrGraph<'a> = Graph<CsrAdjacency<'a>>;

impl<A: Adjacency> Graph<A> {
    /// `incoming` must be None for a symmetric graph (its in-edges are `out`).
    pub fn new(out: A, incoming: Option<A>, symmetric: bool) -> Self {
        assert!(
            !(symmetric && incoming.is_some()),
            "a symmetric graph's in-edges are its out-edges"
        );
        Graph {
            out,
            incoming,
            symmetric,
        }
    }
    pub fn out(&self) -> &A {
        &self.out
    }
    /// In-edges: the out-edges themselves when symmetric, the transpose when stored, else None.
    pub fn incoming(&self) -> Option<&A> {
        if self.symmetric {
            Some(&self.out)
        } else {
            self.incoming.as_ref()
        }
    }
    pub fn num_vertices(&self) -> usize {
        self.out.num_vertices()
    }
    pub fn num_arcs(&self) -> u64 {
        self.out.num_arcs()
    }
    pub fn is_symmetric(&self) -> bool {
        self.symmetric
    }
    pub fn is_weighted(&self) -> bool {
        self.out.is_weighted()
    }
}

/// An owned CSR graph built in memory from an edge list: for tests, and for small graphs handed
/// over from Python. Same semantics as the store builder: sorted, deduplicated, self-loops dropped
/// unless kept; duplicate weighted arcs keep the smallest weight.
pub struct InMemoryGraph {
    offsets: Vec<u64>,
    neighbors: Vec<Vertex>,
    weights: Option<Vec<f32>>,
    in_offsets: Option<Vec<u64>>,
    in_neighbors: Option<Vec<Vertex>>,
    in_weights: Option<Vec<f32>>,
    symmetric: bool,
}

impl InMemoryGraph {
    /// `symmetric`: store both directions of every edge. Otherwise directed, with a transpose.
    pub fn from_edges(n: usize, edges: &[(Vertex, Vertex)], symmetric: bool) -> Self {
        let weighted: Vec<(Vertex, Vertex, f32)> =
            edges.iter().map(|&(u, v)| (u, v, 1.0)).collect();
        let mut g = Self::build(n, &weighted, symmetric);
        g.weights = None;
        g.in_weights = None;
        g
    }

    pub fn from_weighted_edges(n: usize, edges: &[(Vertex, Vertex, f32)], symmetric: bool) -> Self {
        Self::build(n, edges, symmetric)
    }

    fn build(n: usize, edges: &[(Vertex, Vertex, f32)], symmetric: bool) -> Self {
        let mut arcs: Vec<(Vertex, Vertex, f32)> = Vec::with_capacity(edges.len() * 2);
        for &(u, v, w) in edges {
            assert!(
                (u as usize) < n && (v as usize) < n,
                "edge ({u},{v}) out of range for n={n}"
            );
            if u == v {
                continue;
            }
            arcs.push((u, v, w));
            if symmetric {
                arcs.push((v, u, w));
            }
        }
        let (offsets, neighbors, weights) = csr_from_arcs(n, &mut arcs);
        let (in_offsets, in_neighbors, in_weights) = if symmetric {
            (None, None, None)
        } else {
            let mut rev: Vec<_> = arcs.iter().map(|&(u, v, w)| (v, u, w)).collect();
            let (o, nb, w) = csr_from_arcs(n, &mut rev);
            (Some(o), Some(nb), Some(w))
        };
        InMemoryGraph {
            offsets,
            neighbors,
            weights: Some(weights),
            in_offsets,
            in_neighbors,
            in_weights,
            symmetric,
        }
    }

    pub fn view(&self) -> CsrGraph<'_> {
        fn w(w: &Option<Vec<f32>>) -> Option<WeightsRef<'_>> {
            w.as_deref().map(WeightsRef::F32)
        }
        let incoming = self.in_offsets.as_ref().map(|o| {
            CsrAdjacency::new(o, self.in_neighbors.as_ref().unwrap(), w(&self.in_weights))
        });
        Graph::new(
            CsrAdjacency::new(&self.offsets, &self.neighbors, w(&self.weights)),
            incoming,
            self.symmetric,
        )
    }
}

/// Sorts arcs by (src, dst, weight), drops duplicates keeping the smallest weight, returns CSR.
fn csr_from_arcs(
    n: usize,
    arcs: &mut Vec<(Vertex, Vertex, f32)>,
) -> (Vec<u64>, Vec<Vertex>, Vec<f32>) {
    arcs.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
    arcs.dedup_by(|b, a| a.0 == b.0 && a.1 == b.1);
    let mut offsets = vec![0u64; n + 1];
    for &(u, _, _) in arcs.iter() {
        offsets[u as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let neighbors = arcs.iter().map(|a| a.1).collect();
    let weights = arcs.iter().map(|a| a.2).collect();
    (offsets, neighbors, weights)
}

/// The raw CSR with its slices hidden, as compressed and out-of-core backends have none: for
/// tests that must drive the code paths those backends take (per-neighbour calls, the
/// trait's default block gathering) on a graph built in memory.
#[derive(Clone, Copy)]
pub struct NoSlices<'a>(pub CsrAdjacency<'a>);

impl Adjacency for NoSlices<'_> {
    fn num_vertices(&self) -> usize {
        self.0.num_vertices()
    }
    fn num_arcs(&self) -> u64 {
        self.0.num_arcs()
    }
    fn degree(&self, v: Vertex) -> usize {
        self.0.degree(v)
    }
    fn is_weighted(&self) -> bool {
        self.0.is_weighted()
    }
    fn for_each_neighbor<F: FnMut(Vertex)>(&self, v: Vertex, f: F) {
        self.0.for_each_neighbor(v, f)
    }
    fn for_each_neighbor_in<F: FnMut(Vertex, f64)>(&self, v: Vertex, lo: usize, hi: usize, f: F) {
        self.0.for_each_neighbor_in(v, lo, hi, f)
    }
    fn for_each_weighted<F: FnMut(Vertex, f64)>(&self, v: Vertex, f: F) {
        self.0.for_each_weighted(v, f)
    }
    fn try_for_each_neighbor<F: FnMut(Vertex) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.0.try_for_each_neighbor(v, f)
    }
    fn try_for_each_weighted<F: FnMut(Vertex, f64) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.0.try_for_each_weighted(v, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_prefetched_ahead_are_each_visited_once_in_order() {
        let g = InMemoryGraph::from_weighted_edges(20, &[(0, 1, 1.0), (19, 2, 1.0)], false);
        for len in [
            0,
            1,
            LIST_PREFETCH_AHEAD - 1,
            LIST_PREFETCH_AHEAD,
            3 * LIST_PREFETCH_AHEAD + 1,
        ] {
            // Items that are not the ids themselves, so that `id` is what gets used.
            let items: Vec<(u8, Vertex)> = (0..len).map(|i| (0, (i * 7 % 20) as Vertex)).collect();
            let mut visited = Vec::new();
            for_each_list_prefetched(g.view().out(), &items, |&(_, v)| v, |v| visited.push(v));
            let want: Vec<Vertex> = items.iter().map(|&(_, v)| v).collect();
            assert_eq!(visited, want, "{len} items");
        }
    }

    #[test]
    fn a_word_pull_offers_each_list_in_order_up_to_where_the_vertex_stops() {
        // Vertex v's list is every u > v with (u + v) % 3 != 0; 70 vertices, so the second
        // word is partial (and vertex 69's list empty). Vertex v stops at the first neighbour
        // u with u % 5 == 0, or never when v % 7 == 0.
        let n = 70u32;
        let edges: Vec<(u32, u32, f32)> = (0..n)
            .flat_map(|v| ((v + 1)..n).map(move |u| (v, u)))
            .filter(|&(v, u)| (u + v) % 3 != 0)
            .map(|(v, u)| (v, u, 1.0))
            .collect();
        let g = InMemoryGraph::from_weighted_edges(n as usize, &edges, false);
        let view = g.view();
        // The raw view's own walk, and the trait's default (which other views share).
        check_word_pulls(view.out());
        check_word_pulls(&NoSlices(*view.out()));
    }

    fn check_word_pulls(adj: &impl Adjacency) {
        let n = adj.num_vertices() as u32;
        for (base, todo) in [
            (0u32, u64::MAX),
            (0, 0xF0F0_0000_1234_8001),
            (64, 0b11_1111),
            (64, 0b10_0100),
        ] {
            let mut offered: Vec<Vec<Vertex>> = vec![Vec::new(); n as usize];
            let count = pull_word(adj, base, todo, |v, u| {
                offered[v as usize].push(u);
                v % 7 == 0 || u % 5 != 0
            });
            let mut wanted_count = 0;
            for v in 0..n {
                let mut list = Vec::new();
                adj.for_each_neighbor(v, |u| list.push(u));
                let bit = v.wrapping_sub(base);
                let wanted = if bit < 64 && todo >> bit & 1 == 1 {
                    let stop = list.iter().position(|&u| v % 7 != 0 && u % 5 == 0);
                    &list[..stop.map_or(list.len(), |i| i + 1)]
                } else {
                    &[][..]
                };
                assert_eq!(
                    offered[v as usize], wanted,
                    "vertex {v}, word at {base}, todo {todo:#x}"
                );
                wanted_count += wanted.len() as u64;
            }
            assert_eq!(
                count, wanted_count,
                "arcs offered, word at {base}, todo {todo:#x}"
            );
        }
    }

    #[test]
    fn in_memory_csr_dedups_sorts_and_transposes() {
        let g = InMemoryGraph::from_weighted_edges(
            4,
            &[
                (0, 2, 5.0),
                (0, 1, 1.0),
                (0, 2, 3.0),
                (3, 3, 1.0),
                (2, 1, 2.0),
            ],
            false,
        );
        let v = g.view();
        assert_eq!(v.num_arcs(), 3);
        assert_eq!(v.out().neighbor_slice(0).unwrap(), &[1, 2]);
        let mut ws = vec![];
        v.out().for_each_weighted(0, |u, w| ws.push((u, w)));
        assert_eq!(ws, vec![(1, 1.0), (2, 3.0)]);
        let inc = v.incoming().unwrap();
        assert_eq!(inc.neighbor_slice(1).unwrap(), &[0, 2]);
        assert_eq!(inc.degree(3), 0);
        let mut part = vec![];
        v.out()
            .for_each_neighbor_in(0, 1, 2, |u, w| part.push((u, w)));
        assert_eq!(part, vec![(2, 3.0)]);
    }

    #[test]
    fn neighbours_come_in_blocks_whatever_the_backend() {
        let hub = 2 * NEIGHBOR_BLOCK + 5;
        let edges: Vec<(Vertex, Vertex)> = (1..=hub as Vertex).map(|v| (0, v)).collect();
        let g = InMemoryGraph::from_edges(hub + 1, &edges, true);
        let view = g.view();
        let hidden = NoSlices(*view.out());
        for v in [0, 1, hub as Vertex] {
            let list = view.out().neighbor_slice(v).unwrap();
            let mut raw = Vec::new();
            assert!(view.out().try_for_each_neighbor_block(v, |b| {
                raw.push(b.to_vec());
                true
            }));
            assert_eq!(raw, vec![list.to_vec()]);
            let mut gathered: Vec<Vec<Vertex>> = Vec::new();
            assert!(hidden.try_for_each_neighbor_block(v, |b| {
                gathered.push(b.to_vec());
                true
            }));
            assert_eq!(gathered.concat(), list);
            let lens: Vec<usize> = gathered.iter().map(Vec::len).collect();
            let expected: Vec<usize> = list.chunks(NEIGHBOR_BLOCK).map(<[_]>::len).collect();
            assert_eq!(lens, expected);
        }
        // Stopping in the second block: the call says so and hands over nothing after it.
        let mut handed = 0;
        assert!(!hidden.try_for_each_neighbor_block(0, |b| {
            handed += b.len();
            handed <= NEIGHBOR_BLOCK
        }));
        assert_eq!(handed, 2 * NEIGHBOR_BLOCK);
    }

    #[test]
    fn symmetric_graph_sees_out_edges_as_incoming() {
        let g = InMemoryGraph::from_edges(3, &[(0, 1), (1, 2)], true);
        let v = g.view();
        assert_eq!(v.num_arcs(), 4);
        assert!(!v.is_weighted());
        assert_eq!(v.incoming().unwrap().neighbor_slice(1).unwrap(), &[0, 2]);
        let mut seen = vec![];
        assert!(!v.out().try_for_each_neighbor(1, |u| {
            seen.push(u);
            false
        }));
        assert_eq!(seen, vec![0]);
    }
}
