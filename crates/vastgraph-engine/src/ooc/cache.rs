//! A cache of short neighbour lists, held in the part of the budget the offsets, the vertex
//! state and the buffer pool leave free.
//!
//! Why: a selective pass reads whole pages. On a graph whose ids are not ordered by degree, the
//! lists of a few million low-degree vertices lie scattered over every page of the file, so a
//! pass that needs only their few megabytes reads gigabytes (Kronecker scale 25, BFS's last
//! dense levels: 2.5 GB read for 9 MB of lists). Those same vertices tend to be active again in
//! the next passes: the unvisited ones pulled in one BFS level are pushed in the next; SSSP
//! relaxes a vertex again when its distance drops.
//!
//! Admission is on second sight: a selective pass marks every list it reads as seen, and
//! caches a short list (at most [`MAX_CACHED_ARCS`]) when it was seen before, while the cache
//! has room; or at first sight when the algorithm says the vertex will be active in the next
//! pass (BFS: a vertex its pull leaves unvisited), so the next pass need not read it at all.
//! Lists are never evicted: the adjacency is read-only, so a cached list stays valid, and
//! vertices that came back once are the likeliest to come back again. Later passes serve
//! cached active vertices from memory and leave them out of the I/O plan.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;
use vastgraph_store::{WeightType, WeightsRef};

use super::bits::{count_in_range, for_each_in_range};
use super::scan::Weights;
use crate::bitmap::Bitmap;
use crate::Vertex;

/// Lists up to this many arcs (1 KiB of ids) are cached: shorter than a quarter of the 4 KiB
/// page a direct read fetches for them, so reading them costs at least 4× their size.
pub const MAX_CACHED_ARCS: usize = 256;

/// A batch whose range holds fewer active vertices than its own count over this serves them
/// by binary search: about the cost of a search (log2 of a batch's thousands of lists) against
/// a bit test a cached list.
const SPARSE_LOOKUP: usize = 16;

/// Below this much room, the cache is not worth its two bitmaps.
const MIN_CACHE_BYTES: u64 = 1 << 20;

/// Cached lists, appended in batches: one batch per loaded piece.
#[derive(Default)]
pub(crate) struct Batch {
    vertices: Vec<Vertex>,
    /// `ends[i]`: where the list of `vertices[i]` ends in `arcs`.
    ends: Vec<u32>,
    arcs: Vec<Vertex>,
    /// The weights of the arcs, as their bits (i32 or f32 per the store).
    weights: Vec<u32>,
}

impl Batch {
    pub fn push(&mut self, v: Vertex, neighbors: &[Vertex], weights: Weights<'_>) {
        self.vertices.push(v);
        self.arcs.extend_from_slice(neighbors);
        match weights {
            Some(WeightsRef::I32(w)) => self.weights.extend(w.iter().map(|&x| x as u32)),
            Some(WeightsRef::F32(w)) => self.weights.extend(w.iter().map(|x| x.to_bits())),
            None => {}
        }
        self.ends.push(self.arcs.len() as u32);
    }

    fn bytes(&self) -> u64 {
        (4 * (self.vertices.len() + self.ends.len() + self.arcs.len() + self.weights.len())) as u64
    }

    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }
}

pub(crate) struct ListCache {
    /// Room for lists, in bytes (their ids, weights and index).
    capacity: u64,
    used: AtomicU64,
    /// Vertices whose list a selective pass has read.
    seen: Bitmap,
    /// Vertices whose list is in `batches`.
    cached: Bitmap,
    batches: Mutex<Vec<Batch>>,
    weight_type: Option<WeightType>,
}

impl ListCache {
    /// A cache for `n` vertices in `room` bytes (its bitmaps included); disabled (it caches
    /// nothing) when the room is too small.
    pub fn new(n: usize, room: u64, weight_type: Option<WeightType>) -> ListCache {
        // Seen and cached, and the uncached copy of the frontier each pass makes.
        let bitmaps = 3 * n.div_ceil(64) as u64 * 8;
        // Three quarters of the rest: the allocator's own overhead on many small batches, and
        // transient buffers the vertex state does not declare, must still fit the budget.
        let capacity = room.saturating_sub(bitmaps) / 4 * 3;
        let enabled = capacity >= MIN_CACHE_BYTES;
        let bits = if enabled { n } else { 0 };
        ListCache {
            capacity: if enabled { capacity } else { 0 },
            used: AtomicU64::new(0),
            seen: Bitmap::new(bits),
            cached: Bitmap::new(bits),
            batches: Mutex::new(Vec::new()),
            weight_type,
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.capacity > 0
    }

    /// Bytes held: lists plus, when enabled, the two bitmaps (a pass's uncached copy of the
    /// frontier comes and goes).
    pub fn bytes(&self) -> u64 {
        self.used.load(Relaxed) + (self.seen.bytes() + self.cached.bytes()) as u64
    }

    /// Forgets every list and every sighting (a new run starts cold).
    pub fn clear(&self) {
        self.batches
            .lock()
            .expect("the list cache is not poisoned")
            .clear();
        self.used.store(0, Relaxed);
        for w in self.seen.words().iter().chain(self.cached.words()) {
            w.store(0, Relaxed);
        }
    }

    pub fn holds_any(&self) -> bool {
        self.used.load(Relaxed) > 0
    }

    /// `active` without the cached vertices: the ones a pass must read.
    pub fn uncached(&self, active: &Bitmap) -> Bitmap {
        let words = (0..active.num_words())
            .into_par_iter()
            .map(|w| active.word(w) & !self.cached.word(w))
            .collect();
        Bitmap::from_words(words, active.len())
    }

    /// Calls `visit` on every cached vertex of `active`, from several threads; returns the
    /// vertices and arcs served.
    pub fn visit_active<V>(&self, active: &Bitmap, visit: &V) -> (u64, u64)
    where
        V: Fn(Vertex, &[Vertex], Weights<'_>) + Sync,
    {
        let batches = self.batches.lock().expect("the list cache is not poisoned");
        batches
            .par_iter()
            .map(|b| {
                let (mut vertices, mut arcs) = (0u64, 0u64);
                let (Some(&lo), Some(&hi)) = (b.vertices.first(), b.vertices.last()) else {
                    return (0, 0);
                };
                let in_range = count_in_range(active, lo, hi + 1);
                if in_range == 0 {
                    return (0, 0);
                }
                let mut serve = |i: usize| {
                    let start = if i == 0 { 0 } else { b.ends[i - 1] as usize };
                    let end = b.ends[i] as usize;
                    let weights = self.weight_type.map(|t| match t {
                        WeightType::I32 => WeightsRef::I32(as_i32(&b.weights[start..end])),
                        WeightType::F32 => WeightsRef::F32(as_f32(&b.weights[start..end])),
                    });
                    visit(b.vertices[i], &b.arcs[start..end], weights);
                    vertices += 1;
                    arcs += (end - start) as u64;
                };
                // A batch's vertices ascend (one loaded piece's lists, in order). When few of
                // its range are active (BFS's last levels: thousands of 1.8M cached vertices),
                // each active one is looked up rather than every cached one tested.
                if in_range * SPARSE_LOOKUP < b.vertices.len() {
                    for_each_in_range(active, lo, hi + 1, |v| {
                        if let Ok(i) = b.vertices.binary_search(&v) {
                            serve(i);
                        }
                    });
                } else {
                    for (i, &v) in b.vertices.iter().enumerate() {
                        if active.get(v as usize) {
                            serve(i);
                        }
                    }
                }
                (vertices, arcs)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Whether a selective pass should add `v`'s list (of `degree` arcs, read whole), marking
    /// it seen: it is short, is not cached yet, and was read in an earlier pass or, asked only
    /// then, will be active in the next one (`again`).
    pub fn admits(&self, v: Vertex, degree: usize, again: impl FnOnce(Vertex) -> bool) -> bool {
        if !self.is_enabled() || degree == 0 || degree > MAX_CACHED_ARCS {
            return false;
        }
        let seen_before = !self.seen.set_atomic(v as usize);
        (seen_before || again(v)) && !self.cached.get(v as usize)
    }

    /// The longest list (at most [`MAX_CACHED_ARCS`] arcs) such that the lists of `active` of
    /// that length or shorter fit the room left, their index and weights included: the ones a
    /// streaming pass caches when its caller says they come back, shortest first, as they cost
    /// the most (a page each) when read again selectively. 0 when not even the shortest fit.
    pub fn shortest_that_fit(
        &self,
        active: &Bitmap,
        degree: impl Fn(Vertex) -> usize + Sync,
    ) -> usize {
        if !self.is_enabled() {
            return 0;
        }
        let arc_bytes = if self.weight_type.is_some() { 8 } else { 4 };
        let lists = active
            .words()
            .par_iter()
            .enumerate()
            .fold(
                || vec![0u64; MAX_CACHED_ARCS + 1],
                |mut lists, (w, word)| {
                    crate::bitmap::for_each_in_word(word.load(Relaxed), (64 * w) as Vertex, |v| {
                        let d = degree(v);
                        if d <= MAX_CACHED_ARCS {
                            lists[d] += 1;
                        }
                    });
                    lists
                },
            )
            .reduce(
                || vec![0u64; MAX_CACHED_ARCS + 1],
                |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
            );
        let room = self.capacity.saturating_sub(self.used.load(Relaxed));
        let mut bytes = 0u64;
        for (d, &count) in lists.iter().enumerate().skip(1) {
            bytes += count * (8 + arc_bytes * d as u64);
            if bytes > room {
                return d - 1;
            }
        }
        MAX_CACHED_ARCS
    }

    /// Adds a batch if it fits in what is left; returns whether it did.
    pub fn insert(&self, mut batch: Batch) -> bool {
        batch.vertices.shrink_to_fit();
        batch.ends.shrink_to_fit();
        batch.arcs.shrink_to_fit();
        batch.weights.shrink_to_fit();
        let bytes = batch.bytes();
        let fits = self
            .used
            .fetch_update(Relaxed, Relaxed, |used| {
                (used + bytes <= self.capacity).then_some(used + bytes)
            })
            .is_ok();
        if fits {
            for &v in &batch.vertices {
                self.cached.set_atomic(v as usize);
            }
            self.batches
                .lock()
                .expect("the list cache is not poisoned")
                .push(batch);
        }
        fits
    }
}

fn as_i32(bits: &[u32]) -> &[i32] {
    // SAFETY: u32 and i32 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts(bits.as_ptr() as *const i32, bits.len()) }
}

fn as_f32(bits: &[u32]) -> &[f32] {
    // SAFETY: u32 and f32 have the same size and alignment; every bit pattern is an f32.
    unsafe { std::slice::from_raw_parts(bits.as_ptr() as *const f32, bits.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_short_lists_on_second_sight_and_serves_them_within_capacity() {
        let cache = ListCache::new(1000, 1 << 22, Some(WeightType::F32));
        assert!(cache.is_enabled());
        let never = |_| false;
        assert!(
            !cache.admits(7, 3, never),
            "first sight only marks the list seen"
        );
        assert!(cache.admits(7, 3, never), "second sight admits");
        assert!(
            cache.admits(5, 3, |v| v == 5),
            "active again: first sight admits"
        );
        assert!(
            !cache.admits(8, MAX_CACHED_ARCS + 1, |_| true),
            "long lists are not cached"
        );
        assert!(!cache.admits(8, MAX_CACHED_ARCS + 1, never));
        let mut batch = Batch::default();
        batch.push(7, &[1, 2, 3], Some(WeightsRef::F32(&[0.5, 1.5, -2.0])));
        assert!(cache.insert(batch));
        assert!(
            !cache.admits(7, 3, |_| true),
            "a cached list is not added again"
        );

        let mut active = Bitmap::new(1000);
        active.set(7);
        active.set(9);
        let uncached = cache.uncached(&active);
        assert_eq!(uncached.to_sorted_ids(), vec![9]);
        let got = Mutex::new(Vec::new());
        let served = cache.visit_active(&active, &|v, arcs: &[Vertex], w: Weights<'_>| {
            let Some(WeightsRef::F32(w)) = w else {
                panic!("f32 weights expected")
            };
            got.lock().unwrap().push((v, arcs.to_vec(), w.to_vec()));
        });
        assert_eq!(served, (1, 3));
        assert_eq!(
            got.into_inner().unwrap(),
            vec![(7, vec![1, 2, 3], vec![0.5, 1.5, -2.0])]
        );

        // A batch beyond the capacity is refused and leaves nothing cached.
        let mut big = Batch::default();
        let long: Vec<Vertex> = (0..MAX_CACHED_ARCS as Vertex).collect();
        let w = vec![0.0f32; MAX_CACHED_ARCS];
        // 4 MiB of ids and weights: more than three quarters of the room.
        for _ in 0..2048 {
            big.push(9, &long, Some(WeightsRef::F32(&w)));
        }
        assert!(!cache.insert(big));
        assert!(cache.uncached(&active).get(9) && !cache.uncached(&active).get(7));
        assert!(cache.bytes() < 1 << 22);

        cache.clear();
        assert!(!cache.holds_any());
        assert!(!cache.admits(7, 3, |_| false), "cleared: first sight again");
    }

    #[test]
    fn a_few_active_vertices_among_many_cached_are_served_by_lookup_all_of_them_by_walk() {
        let n = 10_000;
        let cache = ListCache::new(n, 1 << 24, None);
        // Two batches: the even vertices below 8000 (list [v, v + 1]), and 9000..9010.
        let mut evens = Batch::default();
        for v in (0..8000).step_by(2) {
            evens.push(v, &[v, v + 1], None);
        }
        let mut high = Batch::default();
        for v in 9000..9010 {
            high.push(v, &[v], None);
        }
        assert!(cache.insert(evens) && cache.insert(high));
        let serve = |active: &Bitmap| {
            let got = Mutex::new(Vec::new());
            let served = cache.visit_active(active, &|v, arcs: &[Vertex], _: Weights<'_>| {
                got.lock().unwrap().push((v, arcs.to_vec()));
            });
            let mut got = got.into_inner().unwrap();
            got.sort();
            (served, got)
        };
        // Sparse: 3 active vertices in the evens' range (one odd, so not cached), none in the
        // other batch's.
        let mut sparse = Bitmap::new(n);
        for v in [10, 4001, 7998, 9500] {
            sparse.set(v);
        }
        let (served, got) = serve(&sparse);
        assert_eq!(served, (2, 4));
        assert_eq!(got, vec![(10, vec![10, 11]), (7998, vec![7998, 7999])]);
        // Dense: every vertex active; every cached list once.
        let mut all = Bitmap::new(n);
        for v in 0..n {
            all.set(v);
        }
        let (served, got) = serve(&all);
        assert_eq!(served, (4010, 8010));
        assert_eq!(got.len(), 4010);
        assert_eq!(got[4000], (9000, vec![9000]));
    }

    #[test]
    fn too_little_room_disables_the_cache() {
        let cache = ListCache::new(1 << 20, 1 << 18, None);
        assert!(!cache.is_enabled());
        assert!(!cache.admits(1, 1, |_| true) && !cache.admits(1, 1, |_| true));
        assert_eq!(cache.bytes(), 0);
    }
}
