//! The graph view of a compressed store (either codec): neighbour lists decoded from
//! Ligra+-style byte codes as they are visited, weights read from their raw array. Algorithms
//! reach it through [`Adjacency`] like the raw CSR; only `neighbor_slice` is missing, so set
//! intersections iterate instead.

use vastgraph_codec::{ByteCodeLists, ListCodec};
use vastgraph_store::{TilesRef, Vertex, WeightsRef};

use crate::bitmap::Bitmap;
use crate::graph::{first_from_side, first_then_rest, Adjacency, ListVisitor};
use crate::lane_sum::{gather_misses_cache, padded_sum_values_len, LaneSum};

#[derive(Clone, Copy)]
pub struct CompressedAdjacency<'a> {
    lists: ByteCodeLists<'a>,
    weights: Option<WeightsRef<'a>>,
    first_neighbors: Option<&'a [Vertex]>,
    tiles: Option<TilesRef<'a>>,
}

impl<'a> CompressedAdjacency<'a> {
    /// `weights`, when given, hold one weight per arc in list order (as in a raw store).
    pub fn new(lists: ByteCodeLists<'a>, weights: Option<WeightsRef<'a>>) -> Self {
        if let Some(w) = &weights {
            assert_eq!(w.len() as u64, lists.num_arcs(), "one weight per arc");
        }
        CompressedAdjacency {
            lists,
            weights,
            first_neighbors: None,
            tiles: None,
        }
    }

    /// The same lists, with the tiles of their arcs (validated by the store).
    pub fn with_tiles(self, tiles: TilesRef<'a>) -> Self {
        assert_eq!(
            tiles.num_edges(),
            self.lists.num_arcs(),
            "tiles of these arcs"
        );
        CompressedAdjacency {
            tiles: Some(tiles),
            ..self
        }
    }

    /// The same lists, offering each list's first neighbour from `first_neighbors` without
    /// decoding (see [`first_then_rest`]).
    pub fn with_first_neighbors(self, first_neighbors: &'a [Vertex]) -> Self {
        assert_eq!(
            first_neighbors.len(),
            self.lists.num_vertices(),
            "one per vertex"
        );
        CompressedAdjacency {
            first_neighbors: Some(first_neighbors),
            ..self
        }
    }

    pub fn lists(&self) -> ByteCodeLists<'a> {
        self.lists
    }

    /// The side file's entry of `v` when it is `v`'s whole list (one neighbour): one cache
    /// miss there instead of two (the list's byte offset, then its codes), as many as the raw
    /// CSR takes. Top-down BFS levels of mostly such vertices (Kronecker's fringe) ran
    /// 1.3-1.7x faster reading them there.
    #[inline(always)]
    fn whole_list_in_side(&self, v: Vertex) -> Option<&'a Vertex> {
        let firsts = self.first_neighbors?;
        (self.lists.degree(v) == 1).then(|| &firsts[v as usize])
    }

    /// Weights of `v`'s list positions `lo..hi`, clamped to the list.
    #[inline]
    fn weights_of<T>(&self, w: &'a [T], v: Vertex, lo: usize, hi: usize) -> &'a [T] {
        let first = self.lists.offsets()[v as usize] as usize;
        let hi = hi.min(self.lists.degree(v));
        w.get(first + lo.min(hi)..first + hi).unwrap_or(&[])
    }

    /// The decoder over positions `lo..hi` with each neighbour's weight; stops when `f` does.
    #[inline]
    fn weighted_in<F: FnMut(Vertex, f64) -> bool>(
        &self,
        v: Vertex,
        lo: usize,
        hi: usize,
        mut f: F,
    ) -> bool {
        match self.weights {
            None => self.lists.for_each_in(v, lo, hi, |u| f(u, 1.0)),
            Some(WeightsRef::I32(w)) => {
                let mut weights = self.weights_of(w, v, lo, hi).iter();
                self.lists.for_each_in(v, lo, hi, |u| {
                    weights.next().is_none_or(|&x| f(u, x as f64))
                })
            }
            Some(WeightsRef::F32(w)) => {
                let mut weights = self.weights_of(w, v, lo, hi).iter();
                self.lists.for_each_in(v, lo, hi, |u| {
                    weights.next().is_none_or(|&x| f(u, x as f64))
                })
            }
        }
    }
}

impl Adjacency for CompressedAdjacency<'_> {
    #[inline]
    fn num_vertices(&self) -> usize {
        self.lists.num_vertices()
    }
    #[inline]
    fn num_arcs(&self) -> u64 {
        self.lists.num_arcs()
    }
    #[inline]
    fn degree(&self, v: Vertex) -> usize {
        self.lists.degree(v)
    }
    fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }
    fn tiles(&self) -> Option<TilesRef<'_>> {
        self.tiles
    }
    #[inline]
    fn for_each_neighbor<F: FnMut(Vertex)>(&self, v: Vertex, mut f: F) {
        match self.whole_list_in_side(v) {
            Some(&u) => f(u),
            None => self.lists.for_each(v, f),
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
        self.weighted_in(v, lo, hi, |u, w| {
            f(u, w);
            true
        });
    }
    #[inline]
    fn for_each_weighted<F: FnMut(Vertex, f64)>(&self, v: Vertex, f: F) {
        self.for_each_neighbor_in(v, 0, usize::MAX, f)
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
        f: F,
    ) -> bool {
        self.lists.for_each_in(v, from, usize::MAX, f)
    }
    #[inline]
    fn walk_word_from<F: FnMut(Vertex, Vertex) -> bool>(
        &self,
        base: Vertex,
        word: u64,
        from: usize,
        arc: F,
    ) -> u64 {
        self.lists.walk_word_from(base, word, from, arc)
    }
    #[inline]
    fn find_word_in<F: FnMut(Vertex, Vertex)>(
        &self,
        base: Vertex,
        word: u64,
        from: usize,
        front: &Bitmap,
        found: F,
    ) -> u64 {
        self.lists
            .find_word_in_bitmap(base, word, from, front.words(), found)
    }
    #[inline]
    fn try_for_each_weighted<F: FnMut(Vertex, f64) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.weighted_in(v, 0, usize::MAX, f)
    }
    #[inline(always)]
    fn first_neighbor(&self, v: Vertex) -> Option<Vertex> {
        first_from_side(self.first_neighbors, v, || {
            let mut first = None;
            self.lists.for_each_in(v, 0, 1, |u| {
                first = Some(u);
                false
            });
            first
        })
    }
    #[inline]
    fn prefetch_list(&self, v: Vertex) {
        if let Some(entry) = self.whole_list_in_side(v) {
            crate::memory::prefetch(entry);
            return;
        }
        // The codes begin with the first id and the block index: the decoder's first reads.
        // (Asking for a second cache line where the codes run into it gained 3% of BFS on
        // Kronecker 22 with Stream VByte but cost 6% on cnr-2000, whose lists the hardware
        // prefetcher already fetches.)
        let start = self.lists.byte_offsets()[v as usize] as usize;
        crate::memory::prefetch(self.lists.bytes().as_ptr().wrapping_add(start));
    }
    #[inline]
    fn try_for_each_neighbor_block<F: FnMut(&[Vertex]) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.lists.for_each_block_in(v, 0, usize::MAX, f)
    }
    #[inline]
    fn visit_lists<V: ListVisitor>(&self, vertices: std::ops::Range<Vertex>, visitor: &mut V) {
        self.lists.visit_lists(vertices, visitor)
    }
    /// Frame-of-reference codes mask their offsets into zeros past the 0.0.
    fn sum_values_len(&self) -> usize {
        match self.lists.codec() {
            ListCodec::FrameOfReference => padded_sum_values_len(self.num_vertices()),
            _ => self.num_vertices() + 1,
        }
    }
    /// Decoded and summed in one loop (`ByteCodeLists::sum_lists`) while the values stay in
    /// cache; from where that stops, and when the values miss the cache (the visitor's path
    /// prefetches them as it decodes ahead), by visiting the lists.
    #[inline]
    fn sum_lists<E: FnMut(Vertex, f64)>(
        &self,
        vertices: std::ops::Range<Vertex>,
        values: &[f64],
        mut emit: E,
    ) {
        // The values past the 0.0 (`Self::sum_values_len`) are for the fused decoder only.
        let (padded, values) = (values, &values[..=self.num_vertices()]);
        let rest = if gather_misses_cache(values) {
            vertices.start
        } else {
            self.lists.sum_lists(vertices.clone(), padded, &mut emit)
        };
        self.visit_lists(rest..vertices.end, &mut LaneSum::new(values, emit));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{find_in_word, InMemoryGraph, NoSlices, NEIGHBOR_BLOCK};
    use crate::Graph;
    use vastgraph_codec::{encode_list, ListCodec};
    use vastgraph_store::manifest::NO_NEIGHBOR;

    /// The codes of every list of a raw CSR direction.
    fn encode(codec: ListCodec, adj: &impl Adjacency) -> (Vec<u64>, Vec<u64>, Vec<u8>) {
        let (mut offsets, mut byte_offsets, mut bytes) = (vec![0], vec![0], Vec::new());
        for v in 0..adj.num_vertices() as Vertex {
            let mut list = Vec::new();
            adj.for_each_neighbor(v, |u| list.push(u));
            encode_list(codec, v, &list, &mut bytes).unwrap();
            offsets.push(offsets.last().unwrap() + list.len() as u64);
            byte_offsets.push(bytes.len() as u64);
        }
        (offsets, byte_offsets, bytes)
    }

    /// (neighbour, weight) at positions lo..hi of v's list.
    fn positions(adj: &impl Adjacency, v: Vertex, lo: usize, hi: usize) -> Vec<(Vertex, f64)> {
        let mut out = Vec::new();
        adj.for_each_neighbor_in(v, lo, hi, |u, w| out.push((u, w)));
        out
    }

    /// v's neighbours as the blocks `try_for_each_neighbor_block` hands over, checking that
    /// every block but the last holds a multiple of NEIGHBOR_BLOCK.
    fn blocks_of(adj: &impl Adjacency, v: Vertex) -> Vec<Vec<Vertex>> {
        let mut blocks = Vec::new();
        assert!(adj.try_for_each_neighbor_block(v, |b| {
            blocks.push(b.to_vec());
            true
        }));
        let all_but_last = &blocks[..blocks.len().saturating_sub(1)];
        assert!(all_but_last.iter().all(|b| b.len() % NEIGHBOR_BLOCK == 0));
        blocks
    }

    /// Each vertex's list as `visit_lists` hands it over, with the order of the ends. When
    /// `prefetching`, it asks for prefetches, records them, and checks that every id is
    /// prefetched before it is handed over and that each block but a list's last is a whole
    /// number of NEIGHBOR_BLOCKs (so PageRank's 4-lane sums keep their order).
    #[derive(Default)]
    struct Collect {
        prefetching: bool,
        prefetched: Vec<Vertex>,
        handed: usize,
        /// The length of the current list's last block so far.
        last_block: usize,
        current: Vec<Vertex>,
        lists: Vec<(Vertex, Vec<Vertex>)>,
    }

    impl ListVisitor for Collect {
        fn block(&mut self, neighbors: &[Vertex]) {
            assert_eq!(
                self.last_block % NEIGHBOR_BLOCK,
                0,
                "a short block mid-list"
            );
            self.last_block = neighbors.len();
            self.handed += neighbors.len();
            if self.prefetching {
                assert!(
                    self.prefetched.len() >= self.handed,
                    "handed over unprefetched"
                );
            }
            self.current.extend_from_slice(neighbors);
        }
        fn end_list(&mut self, v: Vertex) {
            self.last_block = 0;
            self.lists.push((v, std::mem::take(&mut self.current)));
        }
        fn wants_prefetch(&self) -> bool {
            self.prefetching
        }
        fn prefetch(&mut self, neighbors: &[Vertex]) {
            self.prefetched.extend_from_slice(neighbors);
        }
    }

    fn visited(
        adj: &impl Adjacency,
        vertices: std::ops::Range<Vertex>,
    ) -> Vec<(Vertex, Vec<Vertex>)> {
        let mut collect = Collect::default();
        adj.visit_lists(vertices.clone(), &mut collect);
        let lists = collect.lists;
        let mut collect = Collect {
            prefetching: true,
            ..Collect::default()
        };
        adj.visit_lists(vertices, &mut collect);
        assert_eq!(collect.lists, lists, "prefetching changed the lists");
        let all: Vec<Vertex> = lists.iter().flat_map(|(_, l)| l.iter().copied()).collect();
        assert_eq!(
            collect.prefetched, all,
            "prefetched other than the lists' ids"
        );
        lists
    }

    /// `sum_lists` per vertex, as bits, with the order of the vertices.
    fn sums_of(
        adj: &impl Adjacency,
        vertices: std::ops::Range<Vertex>,
        values: &[f64],
    ) -> Vec<(Vertex, u64)> {
        let mut sums = Vec::new();
        adj.sum_lists(vertices, values, |v, sum| sums.push((v, sum.to_bits())));
        sums
    }

    #[test]
    fn sums_of_lists_match_the_raw_csr_bit_for_bit() {
        // Hubs over several blocks, every degree from 0 to 80, and (second case) more
        // vertices than make the values fit the cache, so that both the summing decoder and
        // the prefetching visit are compared with the raw view's sums.
        for n in [5000, 600_000] {
            let mut edges: Vec<(Vertex, Vertex, f32)> =
                (1..1500).map(|u| (0, u * 3, 1.0)).collect();
            for v in 1..4000 {
                let degree = v % 81;
                edges.extend((0..degree).map(|k| (v, (v * 13 + k * k * 7 + 1) % n, 1.0)));
            }
            let g = InMemoryGraph::from_weighted_edges(n as usize, &edges, false);
            let raw = g.view();
            let values: Vec<f64> = (0..=n)
                .map(|u| {
                    if u == n {
                        0.0
                    } else {
                        1.0 / (u as f64 + 0.7) - 0.01
                    }
                })
                .collect();
            for codec in ListCodec::ALL {
                let (offsets, byte_offsets, bytes) = encode(codec, raw.out());
                let lists = ByteCodeLists::new(codec, &offsets, &byte_offsets, &bytes).unwrap();
                let compressed = CompressedAdjacency::new(lists, None);
                for range in [0..n, 0..1, 1..2048, 3990..n, 7..7] {
                    let want = sums_of(raw.out(), range.clone(), &values);
                    assert_eq!(want.len(), range.len());
                    assert_eq!(
                        sums_of(&compressed, range.clone(), &values),
                        want,
                        "{codec:?}, {n} vertices, vertices {range:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn prefetching_visits_hand_over_the_same_lists() {
        // Lists longer than a decoder's batch and a raw chunk, cut mid-list, between runs of
        // more short lists than a batch ends, and empty lists.
        let n: Vertex = 3000;
        let mut edges: Vec<(Vertex, Vertex, f32)> = (1..1500).map(|u| (0, u, 1.0)).collect();
        edges.extend((0..700).filter(|&u| u != 1000).map(|u| (1000, u, 1.0)));
        edges.extend(
            (1..n)
                .filter(|v| v % 5 != 0)
                .map(|v| (v, (v * 7 + 1) % n, 1.0)),
        );
        let g = InMemoryGraph::from_weighted_edges(n as usize, &edges, false);
        let raw = g.view();
        for codec in ListCodec::ALL {
            let (offsets, byte_offsets, bytes) = encode(codec, raw.out());
            let lists = ByteCodeLists::new(codec, &offsets, &byte_offsets, &bytes).unwrap();
            let compressed = Graph::new(CompressedAdjacency::new(lists, None), None, false);
            for range in [0..n, 0..1, 999..1001, 1..n, 10..400] {
                let want = visited(raw.out(), range.clone());
                assert_eq!(want.len(), range.len());
                assert_eq!(visited(compressed.out(), range.clone()), want, "{range:?}");
            }
        }
    }

    /// What `try_for_each_neighbor` offers to a consumer that stops after `stop` neighbours,
    /// and what it returns.
    fn offered(adj: &impl Adjacency, v: Vertex, stop: usize) -> (Vec<Vertex>, bool) {
        let mut seen = Vec::new();
        let finished = adj.try_for_each_neighbor(v, |u| {
            seen.push(u);
            seen.len() < stop
        });
        (seen, finished)
    }

    /// [`offered`] through `try_for_each_neighbor_from(v, from, ..)`.
    fn offered_from(
        adj: &impl Adjacency,
        v: Vertex,
        from: usize,
        stop: usize,
    ) -> (Vec<Vertex>, bool) {
        let mut seen = Vec::new();
        let finished = adj.try_for_each_neighbor_from(v, from, |u| {
            seen.push(u);
            seen.len() < stop
        });
        (seen, finished)
    }

    #[test]
    fn a_search_for_frontier_members_finds_what_a_walk_finds_in_every_view() {
        // Lists long enough to lie far from the end of the codes (so that the compressed view's
        // fast decoder takes them), a hub over several blocks, empty lists, and fronts from
        // empty to full.
        let n: Vertex = 3000;
        let mut edges: Vec<(Vertex, Vertex, f32)> = (1..700).map(|u| (5, u * 4, 1.0)).collect();
        edges.extend(
            (0..n)
                .filter(|v| v % 11 != 0)
                .flat_map(|v| (1..=v % 23).map(move |k| (v, (v * 7 + k * k * 131) % n, 1.0))),
        );
        let g = InMemoryGraph::from_weighted_edges(n as usize, &edges, false);
        let raw = g.view();
        let raw = raw.out();
        for codec in ListCodec::ALL {
            let (offsets, byte_offsets, bytes) = encode(codec, raw);
            let lists = ByteCodeLists::new(codec, &offsets, &byte_offsets, &bytes).unwrap();
            let compressed = CompressedAdjacency::new(lists, None);
            // Every vertex in the front, every third, every fortieth, or none (0).
            for every in [1, 3, 40, 0] {
                let front = Bitmap::new(n as usize);
                for u in (0..n as usize).filter(|u| every != 0 && u % every == 0) {
                    front.set_atomic(u);
                }
                for base in (0..n).step_by(64) {
                    let todo = if n - base < 64 {
                        (1u64 << (n - base)) - 1
                    } else {
                        u64::MAX
                    };
                    // The reference: each list walked until its first member of `front`.
                    let mut want = Vec::new();
                    let mut want_count = 0;
                    for v in (base..n).take(64) {
                        let (list, _) = offered(raw, v, usize::MAX);
                        match list.iter().position(|&u| front.get(u as usize)) {
                            Some(i) => {
                                want.push((v, list[i]));
                                want_count += i as u64 + 1;
                            }
                            None => want_count += list.len() as u64,
                        }
                    }
                    // A view's search of the word: each (vertex, parent) found to the
                    // closure, and how many neighbours it looked at.
                    type WordSearch<'a> = dyn Fn(&mut dyn FnMut(Vertex, Vertex)) -> u64 + 'a;
                    // Sorted: first neighbours are tried for the whole word before the rest.
                    let search = |adj: &WordSearch| {
                        let mut found = Vec::new();
                        let count = adj(&mut |v, u| found.push((v, u)));
                        found.sort_unstable();
                        (found, count)
                    };
                    let views = [
                        search(&|f| find_in_word(raw, base, todo, &front, f)),
                        search(&|f| find_in_word(&NoSlices(*raw), base, todo, &front, f)),
                        search(&|f| find_in_word(&compressed, base, todo, &front, f)),
                    ];
                    for (i, got) in views.into_iter().enumerate() {
                        assert_eq!(
                            got,
                            (want.clone(), want_count),
                            "view {i}, {codec:?}, word at {base}, every {every}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_side_array_of_first_neighbours_changes_nothing_offered_but_is_used() {
        // Empty lists, single ones, and a hub spanning several blocks.
        let n: Vertex = 200;
        let mut edges: Vec<(Vertex, Vertex, f32)> = (1..150).map(|u| (3, u, 1.0)).collect();
        edges.extend(
            (10..n)
                .filter(|v| v % 3 != 0)
                .map(|v| (v, (v * 11 + 5) % n, 1.0)),
        );
        let g = InMemoryGraph::from_weighted_edges(n as usize, &edges, false);
        let raw = g.view();
        let firsts: Vec<Vertex> = (0..n)
            .map(|v| {
                offered(raw.out(), v, 1)
                    .0
                    .first()
                    .copied()
                    .unwrap_or(NO_NEIGHBOR)
            })
            .collect();
        assert!(firsts.contains(&NO_NEIGHBOR) && raw.out().degree(3) > 2 * NEIGHBOR_BLOCK);
        let raw_with = raw.out().with_first_neighbors(&firsts);
        for codec in ListCodec::ALL {
            let (offsets, byte_offsets, bytes) = encode(codec, raw.out());
            let lists = ByteCodeLists::new(codec, &offsets, &byte_offsets, &bytes).unwrap();
            let compressed = CompressedAdjacency::new(lists, None);
            let compressed_with = compressed.with_first_neighbors(&firsts);
            for v in 0..n {
                let deg = raw.out().degree(v);
                let (list, _) = offered(raw.out(), v, usize::MAX);
                for stop in [1, 2, 3, 64, 65, deg, usize::MAX] {
                    let want = offered(raw.out(), v, stop);
                    assert_eq!(offered(&raw_with, v, stop), want, "raw, {v} stop {stop}");
                    assert_eq!(offered(&compressed, v, stop), want, "{codec:?}, {v}");
                    assert_eq!(offered(&compressed_with, v, stop), want, "{codec:?}, {v}");
                    // From a position on: the list's tail, whatever the view (the trait's
                    // default included), never the side array's entry.
                    for from in [0, 1, 2, 64, 65, deg, deg + 1] {
                        let tail = &list[from.min(deg)..];
                        // `offered` takes at least one id whatever `stop` (deg may be 0).
                        let take = stop.max(1);
                        let want = (tail[..tail.len().min(take)].to_vec(), tail.len() < take);
                        let views = [
                            offered_from(raw.out(), v, from, stop),
                            offered_from(&raw_with, v, from, stop),
                            offered_from(&NoSlices(raw_with), v, from, stop),
                            offered_from(&compressed, v, from, stop),
                            offered_from(&compressed_with, v, from, stop),
                        ];
                        for (i, got) in views.into_iter().enumerate() {
                            assert_eq!(got, want, "view {i}, {codec:?}, {v} from {from}");
                        }
                    }
                }
            }
            // The side array is trusted (the store validated it): a different first neighbour
            // there is what both views offer first, followed by the list from its second.
            let mut marked = firsts.clone();
            marked[3] = 199;
            let (list, _) = offered(raw.out(), 3, usize::MAX);
            let want: Vec<Vertex> = [199].into_iter().chain(list[1..].iter().copied()).collect();
            let views = [
                offered(&raw.out().with_first_neighbors(&marked), 3, usize::MAX).0,
                offered(&compressed.with_first_neighbors(&marked), 3, usize::MAX).0,
            ];
            assert_eq!(views, [want.clone(), want]);
            // A list of one neighbour is read whole from the side array.
            let all_of = |adj: &CompressedAdjacency, v: Vertex| {
                let mut list = Vec::new();
                adj.for_each_neighbor(v, |u| list.push(u));
                list
            };
            for v in 0..n {
                assert_eq!(
                    all_of(&compressed_with, v),
                    offered(raw.out(), v, usize::MAX).0
                );
            }
            assert_eq!(raw.out().degree(10), 1);
            marked[10] = 7;
            let marked_view = compressed.with_first_neighbors(&marked);
            assert_eq!(all_of(&marked_view, 10), [7]);
            let first_of = |adj: &dyn Fn(Vertex) -> Option<Vertex>| -> Vec<Option<Vertex>> {
                (0..n).map(adj).collect()
            };
            let firsts_given: Vec<Option<Vertex>> = firsts
                .iter()
                .map(|&u| (u != NO_NEIGHBOR).then_some(u))
                .collect();
            assert_eq!(first_of(&|v| compressed.first_neighbor(v)), firsts_given);
            assert_eq!(first_of(&|v| raw_with.first_neighbor(v)), firsts_given);
            assert_eq!(first_of(&|v| raw.out().first_neighbor(v)), firsts_given);
            assert_eq!(
                first_of(&|v| compressed_with.first_neighbor(v)),
                firsts_given
            );
            assert_eq!(marked_view.first_neighbor(3), Some(199));
        }
    }

    #[test]
    fn every_access_matches_the_raw_csr() {
        for codec in ListCodec::ALL {
            every_access_matches_the_raw_csr_with(codec);
        }
    }

    fn every_access_matches_the_raw_csr_with(codec: ListCodec) {
        // A hub spanning several 64-neighbour blocks, weights that tell positions apart.
        let mut edges: Vec<(Vertex, Vertex, f32)> =
            (1..300).map(|v| (0, v, v as f32 * 0.5)).collect();
        edges.extend([(5, 7, 2.0), (7, 5, 3.0), (299, 0, 1.5)]);
        let g = InMemoryGraph::from_weighted_edges(300, &edges, false);
        let raw = g.view();
        let raw_weights: Vec<f32> = {
            let mut w = Vec::new();
            for v in 0..300 {
                raw.out().for_each_weighted(v, |_, x| w.push(x as f32));
            }
            w
        };
        let (offsets, byte_offsets, bytes) = encode(codec, raw.out());
        let lists = ByteCodeLists::new(codec, &offsets, &byte_offsets, &bytes).unwrap();
        let packed = CompressedAdjacency::new(lists, Some(WeightsRef::F32(&raw_weights)));
        let compressed = Graph::new(packed, None, false);
        let (r, c) = (raw.out(), compressed.out());
        assert_eq!(c.num_arcs(), r.num_arcs());
        assert!(c.neighbor_slice(0).is_none());
        for range in [0..300, 0..1, 5..8, 299..300, 7..7] {
            let want = visited(r, range.clone());
            assert_eq!(want.len(), range.len());
            assert_eq!(visited(c, range.clone()), want, "vertices {range:?}");
        }
        for v in 0..300 {
            assert_eq!(c.degree(v), r.degree(v));
            let deg = r.degree(v);
            for (lo, hi) in [(0, deg), (deg / 3, deg / 2), (deg.saturating_sub(1), deg)] {
                assert_eq!(
                    positions(r, v, lo, hi),
                    positions(c, v, lo, hi),
                    "vertex {v} positions {lo}..{hi}"
                );
            }
            assert_eq!(blocks_of(c, v).concat(), blocks_of(r, v).concat());
            assert_eq!(blocks_of(r, v).len(), 1, "the raw CSR hands over one slice");
            let mut handed = 0;
            assert_eq!(
                !c.try_for_each_neighbor_block(v, |b| {
                    handed += b.len();
                    handed < 70
                }),
                deg >= 70
            );
            assert_eq!(handed, deg.min(2 * NEIGHBOR_BLOCK));
            let mut stopped = Vec::new();
            let finished = c.try_for_each_weighted(v, |u, w| {
                stopped.push((u, w));
                stopped.len() < 70
            });
            assert_eq!(finished, deg < 70);
            assert_eq!(stopped.len(), deg.min(70));
        }
    }
}
