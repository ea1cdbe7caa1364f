//! Approximate set cover of a symmetric graph read as a set system: the sets are the closed
//! neighbourhoods N[v] = {v} ∪ N(v), the elements the vertices, so a cover is a dominating set.
//!
//! The parallel greedy of Blelloch, Peng and Tangwongsan (2011) as in GBBS and Sage (§4.3.3):
//! sets wait in Julienne buckets by ⌊log_{1+ε} |uncovered elements|⌋, and the highest bucket b
//! is processed next. Its sets' sizes are counted first; sets that fell below the bucket move
//! down. The rest draw seeded random priorities, every uncovered element goes to the best set
//! containing it, and a set that won at least ⌈(1+ε)^(b−1)⌉ elements joins the cover and covers
//! them. The best set wins all its elements, so each round chooses one set or more. Each chosen
//! set covers at least 1/(1+ε)² of what the best set could, which bounds the cover by
//! (1+ε)²·H(Δ+1) times the optimum. The cover depends on the seed and ε only, never on the
//! thread count or where the lists are read from.
//!
//! A round is two passes ([`Traversal::pass`]), each handing over whole lists: over the
//! bucket's sets, which count their uncovered elements and, if still in the bucket, claim them;
//! then over those, which count what they won and, if enough, cover it. The covered bits
//! decide which elements a set still holds, so no graph filter is kept (Sage deletes the
//! covered elements' edges in one): in memory the passes walk the lists, on disk each is one
//! planned read. A long list that is mostly covered when sized is kept in DRAM, its uncovered
//! elements only, within a room of 2 bytes a vertex ([`KeptLists`]): a hub falls through many
//! buckets and would otherwise be read whole in each. Once the incidences of the uncovered
//! elements (the sum of their degrees) fit one id a vertex, the uncovered elements of every set
//! are gathered into DRAM ([`Residual`]), from two passes over the uncovered elements' own lists
//! (e ∈ N[s] exactly when s ∈ N[e]), and the rounds after read no list: the late rounds, whose
//! buckets hold most sets with few elements left, read most of the bytes otherwise. The
//! filter, packed a list at a time through the cache of blocks on disk, took Kronecker 20
//! within 100 MiB 30.1 s and 14.8 GiB of reads.
//! State: a size, a winner word, a covered bit and a chosen flag per vertex, the buckets and a
//! round's sets: O(n) words ([`STATE`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;
use vastgraph_engine::bucket::NO_BUCKET;
use vastgraph_engine::ooc::ScanSpec;
use vastgraph_engine::traverse::WholeLists;
use vastgraph_engine::{Adjacency, Bitmap, BucketOrder, Buckets, Graph, Traversal, Vertex};

use crate::common::{read_error, require_symmetric, AlgoError, RunStats, StateSize, VerifyError};
use crate::hashing::seeded_hash2;

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): a size (4 bytes), a winner
/// (8), a chosen flag (1) and four bits (covered, the round's sets, the active ones, self-loops
/// at the start) a vertex, the buckets' ids (at most 2n + 1024 of 4 bytes), a round's sets
/// and active sets (at most n ids each), and either the kept lists
/// ([`KEPT_BYTES_PER_VERTEX`]) or, once they are dropped, the residual ([`Residual`]: a start
/// and [`RESIDUAL_IDS_PER_VERTEX`] ids a vertex).
pub const STATE: StateSize = StateSize::per_vertex(30 + RESIDUAL_BYTES_PER_VERTEX);

/// The residual is built once the uncovered elements' incidences fit this many ids a vertex.
const RESIDUAL_IDS_PER_VERTEX: u64 = 1;
const RESIDUAL_BYTES_PER_VERTEX: u64 = 4 + 4 * RESIDUAL_IDS_PER_VERTEX;
const _: () = assert!(KEPT_BYTES_PER_VERTEX <= RESIDUAL_BYTES_PER_VERTEX);

const ALGORITHM: &str = "setcover";

/// An element no set has claimed yet: above every key.
const UNCLAIMED: u64 = u64::MAX;

/// A claim's key is (stamp, priority, set) in 16, 16 and 32 bits, the stamp falling by one a
/// round, so that a round's claims outrank those left from earlier rounds without a pass to
/// release them. Every `STAMPS` rounds the stamps wrap, and the claims are cleared.
const STAMPS: u64 = 1 << 16;

#[derive(Clone, Debug, serde::Serialize)]
pub struct SetCoverParams {
    /// Bucket ratio: sets whose sizes are within 1+ε of each other are treated alike. 0 < ε.
    pub epsilon: f64,
    pub seed: u64,
}

impl Default for SetCoverParams {
    fn default() -> Self {
        SetCoverParams {
            epsilon: 0.01,
            seed: 1,
        }
    }
}

#[derive(Debug)]
pub struct SetCoverResult {
    /// 1 for the vertices whose closed neighbourhoods form the cover, 0 for the others.
    pub in_cover: Vec<u8>,
    /// `iterations` = rounds; extra: `cover_size`, `buckets` (buckets processed).
    pub stats: RunStats,
}

/// Sizes and bucket numbers for one ε.
struct Scale {
    inverse_log: f64,
    epsilon: f64,
}

impl Scale {
    fn bucket(&self, size: u32) -> u64 {
        if size == 0 {
            NO_BUCKET
        } else {
            (self.inverse_log * (size as f64).ln()).floor() as u64
        }
    }

    /// Elements a set of bucket `b` must win to join the cover: ⌈(1+ε)^(b−1)⌉, at least 1, and
    /// at most the smallest size [`Self::bucket`] files in b or above. A set in bucket b has more than
    /// (1+ε)^(b−1) elements, so the best set always qualifies; the bound keeps that true where
    /// rounding puts a size in a bucket one too high, or the power above the size (a small ε,
    /// whose threshold is within rounding of the sizes themselves: the run waited forever).
    fn threshold(&self, b: u64) -> u32 {
        let t = (1.0 + self.epsilon).powf(b as f64 - 1.0).ceil();
        let mut t = (t.min(u32::MAX as f64) as u32).max(1);
        // Sizes are filed in order (`bucket` is monotone): one below t filed in b or above
        // means t is too high.
        while t > 1 && self.bucket(t - 1) >= b {
            t -= 1;
        }
        t
    }
}

pub fn set_cover<G: Traversal>(
    g: &G,
    params: &SetCoverParams,
) -> Result<SetCoverResult, AlgoError> {
    let n = g.num_vertices() as u64;
    let rooms = Rooms {
        kept_ids: n * KEPT_BYTES_PER_VERTEX / 4,
        residual_ids: n * RESIDUAL_IDS_PER_VERTEX,
    };
    set_cover_within(g, params, rooms)
}

/// Room, in ids, for the kept lists and for the residual.
#[derive(Clone, Copy)]
struct Rooms {
    kept_ids: u64,
    residual_ids: u64,
}

/// [`set_cover`] within `rooms`: the cover is the same for any.
fn set_cover_within<G: Traversal>(
    g: &G,
    params: &SetCoverParams,
    rooms: Rooms,
) -> Result<SetCoverResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let epsilon = params.epsilon;
    if !(epsilon >= MIN_EPSILON && epsilon.is_finite()) {
        return Err(AlgoError::InvalidParameter {
            algorithm: ALGORITHM,
            message: format!("--epsilon must be a number of at least {MIN_EPSILON}, got {epsilon}"),
        });
    }
    let scale = Scale {
        inverse_log: 1.0 / epsilon.ln_1p(),
        epsilon,
    };
    let n = g.num_vertices();
    let pass = |set: &Bitmap, visit: &(dyn Fn(Vertex, &[Vertex]) + Sync)| {
        g.pass(&ScanSpec::ids_only(set), |s, piece, _| visit(s, piece))
            .map_err(read_error(ALGORITHM))
    };
    let covered = Bitmap::new(n);
    // Set s holds its uncovered neighbours and itself while uncovered; a self-loop is the
    // set's own element, counted once.
    let self_loop = Bitmap::new(n);
    pass(&g.vertices_with_arcs(), &|s, piece| {
        if piece.binary_search(&s).is_ok() {
            self_loop.set_atomic(s as usize);
        }
    })?;
    let size: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|s| AtomicU32::new(g.degree(s as Vertex) as u32 + !self_loop.get(s) as u32))
        .collect();
    drop(self_loop);
    let winner: Vec<AtomicU64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU64::new(UNCLAIMED))
        .collect();
    let mut in_cover = vec![0u8; n];
    let mut buckets = Buckets::new(
        n,
        |s| scale.bucket(size[s as usize].load(Relaxed)),
        BucketOrder::Decreasing,
    );
    // The sets a pass reads; clear between passes.
    let marks = Bitmap::new(n);
    // Hands `visit(s, elements, read)` each set of `sets`: with the residual, its elements
    // there; else a set with a list in `taken` its kept elements, a set without arcs none, the
    // others their whole lists from one pass (`read`). Returns the arcs the pass read.
    let each_set = |sets: &[Vertex],
                    taken: &[(Vertex, Vec<Vertex>)],
                    residual: Option<&Residual>,
                    visit: &(dyn Fn(Vertex, &[Vertex], bool) + Sync)| {
        if let Some(residual) = residual {
            sets.par_iter()
                .for_each(|&s| visit(s, residual.elements(s), false));
            return Ok(0);
        }
        for &s in sets {
            if g.degree(s) == 0 {
                visit(s, &[], false);
            } else {
                marks.set_atomic(s as usize);
            }
        }
        taken
            .par_iter()
            .filter(|(s, _)| marks.take(*s as usize))
            .for_each(|(s, list)| visit(*s, list, false));
        let lists = WholeLists::new(g);
        let arcs = pass(&marks, &|s, piece| {
            lists.whole(s, piece, |l| visit(s, l, true))
        });
        for &s in sets {
            marks.take(s as usize);
        }
        arcs
    };
    let kept = KeptLists::new(rooms.kept_ids);
    // The uncovered elements' incidences: the sum of their degrees, falling as they are
    // covered; the residual is built when it fits its room.
    let incidences = AtomicU64::new(g.num_arcs());
    let mut residual: Option<Residual> = None;
    let (mut rounds, mut buckets_seen, mut last_bucket) = (0u64, 0u64, NO_BUCKET);
    let mut scanned = 0u64;
    while let Some((b, sets)) = buckets.next_bucket() {
        if residual.is_none() && incidences.load(Relaxed) <= rooms.residual_ids {
            kept.clear();
            residual = Some(Residual::gather(g, &covered, ALGORITHM)?);
        }
        rounds += 1;
        if b != last_bucket {
            buckets_seen += 1;
            last_bucket = b;
        }
        if rounds % STAMPS == 0 {
            // The stamps wrap: claims of earlier rounds would outrank this round's.
            winner.par_iter().for_each(|w| w.store(UNCLAIMED, Relaxed));
        }
        let key = |s: Vertex| {
            let stamp = STAMPS - 1 - rounds % STAMPS;
            let priority = seeded_hash2(params.seed, rounds, s as u64) >> 48;
            stamp << 48 | priority << 32 | s as u64
        };
        // 1. Sizes, and claims: each set counts its uncovered elements; a set still in bucket
        //    b claims them for itself, unless a better set does (the best key wins each
        //    element); the others move down.
        let size_and_claim = |s: Vertex, list: &[Vertex]| {
            let own = !covered.get(s as usize);
            let held = |e: &&Vertex| **e != s && !covered.get(**e as usize);
            let count = own as u32 + list.iter().filter(held).count() as u32;
            size[s as usize].store(count, Relaxed);
            if scale.bucket(count) == b {
                let k = key(s);
                if own {
                    winner[s as usize].fetch_min(k, Relaxed);
                }
                for &e in list.iter().filter(held) {
                    winner[e as usize].fetch_min(k, Relaxed);
                }
            }
            count
        };
        // The sets whose uncovered elements are kept in DRAM are sized from them; the others'
        // lists are read, and a long one that is mostly covered is kept.
        let mut taken = kept.take(&sets);
        scanned += each_set(&sets, &taken, residual.as_ref(), &|s, list, read| {
            let count = size_and_claim(s, list);
            if read {
                kept.offer(s, list, count as usize, |e| {
                    e != s && !covered.get(e as usize)
                });
            }
        })?;
        taken.par_iter_mut().for_each(|(s, list)| {
            kept.shrink(*s, list, |e| !covered.get(e as usize));
        });
        let active: Vec<Vertex> = sets
            .iter()
            .copied()
            .filter(|&s| scale.bucket(size[s as usize].load(Relaxed)) == b)
            .collect();
        // 2. Sets that won enough join the cover and cover what they won. Only s covers an
        //    element s won, so a set's count is the same whenever the others are chosen.
        //    Claims are never released: the next round's stamp outranks them.
        let threshold = scale.threshold(b);
        let chosen = Mutex::new(Vec::new());
        let choose = |s: Vertex, list: &[Vertex]| {
            let k = key(s);
            let mine =
                |e: &Vertex| !covered.get(*e as usize) && winner[*e as usize].load(Relaxed) == k;
            let won = mine(&s) as u32 + list.iter().filter(|&e| *e != s && mine(e)).count() as u32;
            if won >= threshold {
                for &e in list.iter().chain([&s]) {
                    if winner[e as usize].load(Relaxed) == k && covered.set_atomic(e as usize) {
                        incidences.fetch_sub(g.degree(e) as u64, Relaxed);
                    }
                }
                chosen.lock().unwrap().push(s);
            }
        };
        each_set(&active, &taken, residual.as_ref(), &|s, list, _| {
            choose(s, list)
        })?;
        let chosen = chosen.into_inner().unwrap();
        for &s in &chosen {
            in_cover[s as usize] = 1;
            size[s as usize].store(0, Relaxed);
        }
        // A chosen set leaves the buckets: its kept elements are dropped.
        kept.give_back(taken, |s| in_cover[s as usize] == 0);
        kept.drop_lists(&chosen);
        // 5. Re-file every set of the bucket: the unchosen stay (their sizes are refreshed when
        //    next sized), the moved go down, the chosen leave.
        buckets.update(&sets);
    }
    let cover_size = in_cover.iter().map(|&x| x as u64).sum::<u64>();
    let stats = RunStats {
        iterations: rounds,
        edges_traversed: scanned,
        ..Default::default()
    }
    .with("cover_size", cover_size)
    .with("buckets", buckets_seen);
    Ok(SetCoverResult { in_cover, stats })
}

/// The room of [`KeptLists`], in bytes a vertex (of 4-byte ids).
const KEPT_BYTES_PER_VERTEX: u64 = 2;

/// A list is kept only when it has at least this many ids (a shorter one is a page or less to
/// read again) and at most an eighth of them are still uncovered.
const KEEP_FROM_DEGREE: usize = 1024;
const KEEP_SHARE: usize = 8;

/// Each id kept costs one id of room, and each list this many more (its entry in the map).
const KEPT_ENTRY_IDS: u64 = 16;

/// The uncovered elements of long, mostly covered sets, kept in DRAM within a room of ids so
/// that a hub is not read whole every time it is sized again (a set's size only falls, so a hub
/// is sized in many buckets). A kept list holds every uncovered element of its set (and maybe
/// covered ones, which the counts skip), so the rounds are the same with it or without.
struct KeptLists {
    lists: Mutex<HashMap<Vertex, Vec<Vertex>>>,
    /// Ids that may still be kept.
    room: AtomicI64,
}

impl KeptLists {
    fn new(room: u64) -> Self {
        KeptLists {
            lists: Mutex::new(HashMap::new()),
            room: AtomicI64::new(room as i64),
        }
    }

    fn cost(len: usize) -> i64 {
        (len as u64 + KEPT_ENTRY_IDS) as i64
    }

    /// Takes out the kept lists of `sets`, for a round.
    fn take(&self, sets: &[Vertex]) -> Vec<(Vertex, Vec<Vertex>)> {
        let mut lists = self.lists.lock().unwrap();
        if lists.is_empty() {
            return Vec::new();
        }
        sets.iter()
            .filter_map(|&s| lists.remove(&s).map(|l| (s, l)))
            .collect()
    }

    /// Keeps `s`'s elements that pass `uncovered` when its `list` is long and at most
    /// `count` of them are, and the room allows.
    fn offer(&self, s: Vertex, list: &[Vertex], count: usize, uncovered: impl Fn(Vertex) -> bool) {
        if list.len() < KEEP_FROM_DEGREE || count * KEEP_SHARE > list.len() {
            return;
        }
        let cost = Self::cost(count);
        if self.room.fetch_sub(cost, Relaxed) < cost {
            self.room.fetch_add(cost, Relaxed);
            return;
        }
        let elements: Vec<Vertex> = list.iter().copied().filter(|&e| uncovered(e)).collect();
        self.room
            .fetch_add(cost - Self::cost(elements.len()), Relaxed);
        self.lists.lock().unwrap().insert(s, elements);
    }

    /// Drops the elements of a taken list that `uncovered` no longer holds.
    fn shrink(&self, s: Vertex, list: &mut Vec<Vertex>, uncovered: impl Fn(Vertex) -> bool) {
        let before = list.len();
        list.retain(|&e| e != s && uncovered(e));
        list.shrink_to_fit();
        self.room.fetch_add((before - list.len()) as i64, Relaxed);
    }

    /// Puts back the taken lists of the sets `stays` keeps; the others' room is given back.
    fn give_back(&self, taken: Vec<(Vertex, Vec<Vertex>)>, stays: impl Fn(Vertex) -> bool) {
        let mut lists = self.lists.lock().unwrap();
        for (s, list) in taken {
            if stays(s) {
                lists.insert(s, list);
            } else {
                self.room.fetch_add(Self::cost(list.len()), Relaxed);
            }
        }
    }

    /// Drops every kept list, and the room with them.
    fn clear(&self) {
        let mut lists = self.lists.lock().unwrap();
        *lists = HashMap::new();
        self.room.store(0, Relaxed);
    }

    /// Drops the kept lists of `sets`.
    fn drop_lists(&self, sets: &[Vertex]) {
        let mut lists = self.lists.lock().unwrap();
        for s in sets {
            if let Some(list) = lists.remove(s) {
                self.room.fetch_add(Self::cost(list.len()), Relaxed);
            }
        }
    }
}

/// The uncovered elements of every set other than the set's own vertex, as they were when
/// gathered: a set's later rounds skip the ones covered since, as they skip them in its list.
struct Residual {
    /// `starts[s]..starts[s + 1]`: set s's elements in `elements`.
    starts: Vec<u32>,
    elements: Vec<Vertex>,
}

impl Residual {
    /// From two passes over the lists of the uncovered elements: on a symmetric graph e lies in
    /// N[s] exactly when s lies in N[e], so each uncovered e, read once to count and once to
    /// place, names the sets it is in. A set's elements come in no particular order, which no
    /// count or claim depends on.
    fn gather<G: Traversal>(
        g: &G,
        covered: &Bitmap,
        algorithm: &'static str,
    ) -> Result<Residual, AlgoError> {
        let n = g.num_vertices();
        let uncovered = Bitmap::from_fn(n, |e| !covered.get(e) && g.degree(e as Vertex) > 0);
        let each_incidence = |visit: &(dyn Fn(Vertex, Vertex) + Sync)| {
            g.pass(&ScanSpec::ids_only(&uncovered), |e, piece, _| {
                for &s in piece.iter().filter(|&&s| s != e) {
                    visit(s, e);
                }
            })
            .map_err(read_error(algorithm))
        };
        // Counted, then placed: each set's cursor starts at its start and ends at the next
        // set's.
        let cursor: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
        each_incidence(&|s, _| {
            cursor[s as usize].fetch_add(1, Relaxed);
        })?;
        let mut total = 0u32;
        for c in &cursor {
            let count = c.load(Relaxed);
            c.store(total, Relaxed);
            total += count;
        }
        let elements: Vec<AtomicU32> = (0..total)
            .into_par_iter()
            .map(|_| AtomicU32::new(0))
            .collect();
        each_incidence(&|s, e| {
            let at = cursor[s as usize].fetch_add(1, Relaxed);
            elements[at as usize].store(e, Relaxed);
        })?;
        let starts = std::iter::once(0)
            .chain(cursor.into_iter().map(AtomicU32::into_inner))
            .collect();
        let elements = elements.into_iter().map(AtomicU32::into_inner).collect();
        Ok(Residual { starts, elements })
    }

    fn elements(&self, s: Vertex) -> &[Vertex] {
        let s = s as usize;
        &self.elements[self.starts[s] as usize..self.starts[s + 1] as usize]
    }
}

/// The sequential greedy set cover of the closed neighbourhoods: repeatedly the set covering
/// the most uncovered elements (the smallest id among ties). A reference for the cover's size.
pub fn greedy_cover_size<A: Adjacency>(adj: &A) -> u64 {
    let n = adj.num_vertices();
    let mut covered = vec![false; n];
    let uncovered_in = |s: Vertex, covered: &[bool]| {
        let mut count = !covered[s as usize] as u32;
        adj.for_each_neighbor(s, |e| count += (e != s && !covered[e as usize]) as u32);
        count
    };
    // Sizes only shrink, so a popped set whose size is still current is the best one.
    let mut heap: BinaryHeap<(u32, Reverse<Vertex>)> = (0..n as Vertex)
        .map(|s| (uncovered_in(s, &covered), Reverse(s)))
        .collect();
    let mut chosen = 0;
    while let Some((size, Reverse(s))) = heap.pop() {
        if size == 0 {
            break;
        }
        let now = uncovered_in(s, &covered);
        if now < size {
            heap.push((now, Reverse(s)));
            continue;
        }
        chosen += 1;
        covered[s as usize] = true;
        adj.for_each_neighbor(s, |e| covered[e as usize] = true);
    }
    chosen
}

/// H(k) = 1 + 1/2 + ... + 1/k.
fn harmonic(k: usize) -> f64 {
    (1..=k).map(|i| 1.0 / i as f64).sum()
}

/// Checks that every vertex is in a chosen closed neighbourhood, and that the cover is no larger
/// than the approximation guarantee allows: (1+ε)²·H(Δ+1) times the sequential greedy cover (an
/// upper bound of the optimum).
pub fn verify_set_cover<A: Adjacency>(
    g: &Graph<A>,
    params: &SetCoverParams,
    result: &SetCoverResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices();
    let adj = g.out();
    let in_cover = &result.in_cover;
    if in_cover.len() != n {
        return fail(format!("{} flags for {n} vertices", in_cover.len()));
    }
    if let Some(v) = (0..n).find(|&v| in_cover[v] > 1) {
        return fail(format!("vertex {v} has flag {}, not 0 or 1", in_cover[v]));
    }
    for v in 0..n as Vertex {
        if in_cover[v as usize] == 0 && adj.try_for_each_neighbor(v, |s| in_cover[s as usize] == 0)
        {
            return fail(format!(
                "vertex {v} is not covered: neither it nor a neighbour is chosen"
            ));
        }
    }
    let size = in_cover.iter().filter(|&&x| x == 1).count() as f64;
    let greedy = greedy_cover_size(adj) as f64;
    let max_degree = (0..n as Vertex).map(|v| adj.degree(v)).max().unwrap_or(0);
    let bound = (1.0 + params.epsilon).powi(2) * harmonic(max_degree + 1) * greedy;
    if size > bound + 1e-9 {
        return fail(format!(
            "{size} sets chosen, more than (1+ε)²·H(Δ+1) = {:.3} times the greedy cover of {greedy}",
            bound / greedy
        ));
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Param, Params, SEED};
use crate::registry::Values;
use std::ops::Bound::{Included, Unbounded};

/// The smallest ε: below it the buckets' numbers, ln(size)/ln(1+ε), outgrow what a bucket's key
/// holds exactly (at 1e-20 every size fell in no bucket, and the cover came out empty), and
/// the run is the exact greedy anyway, a set a round.
pub const MIN_EPSILON: f64 = 1e-9;

pub const EPSILON: Param = Param::number(
    "epsilon",
    0.01,
    (Included(MIN_EPSILON), Unbounded),
    "the ratio of the cost buckets, 1+ε",
);
/// `setcover` in the registry.
pub struct SetCover;

impl Algorithm for SetCover {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "setcover",
        summary: "(1+ε)-approximate set cover of the closed neighbourhoods (--epsilon, --seed); 1 = chosen",
        params: &[EPSILON, SEED],
        needs: Needs {
            symmetric: true,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: false,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[],
        state_in_passes: Some(|n, _| Some(STATE.bytes(n, 0, 1))),
    };
    type Params = SetCoverParams;
    type Result = SetCoverResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<SetCoverParams, AlgoError> {
        Ok(SetCoverParams {
            epsilon: given.number(&EPSILON),
            seed: given.count(&SEED),
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &SetCoverParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<SetCoverResult, AlgoError> {
        set_cover(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &SetCoverParams,
        r: &SetCoverResult,
    ) -> Result<(), VerifyError> {
        verify_set_cover(g, q, r)
    }
    fn output(r: SetCoverResult, _q: &SetCoverParams) -> (Option<Values>, RunStats) {
        (Some(Values::U8(r.in_cover)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn stars_are_covered_by_their_centres() {
        // Two stars joined by their centres 0 and 10, plus an isolated vertex 20.
        let mut edges: Vec<(Vertex, Vertex)> = (1..10).map(|v| (0, v)).collect();
        edges.extend((11..20).map(|v| (10, v)));
        edges.push((0, 10));
        let g = InMemoryGraph::from_edges(21, &edges, true);
        // MIN_EPSILON: sizes' thresholds within rounding of the sizes (at 1e-10 the best set
        // of a bucket could fall short of it and the run went on forever).
        for epsilon in [MIN_EPSILON, 0.01, 0.5, 2.0] {
            let params = SetCoverParams { epsilon, seed: 3 };
            let r = set_cover(&g.view(), &params).unwrap();
            verify_set_cover(&g.view(), &params, &r).unwrap();
            let chosen: Vec<usize> = (0..21).filter(|&v| r.in_cover[v] == 1).collect();
            assert_eq!(chosen, vec![0, 10, 20], "ε = {epsilon}");
        }
        assert_eq!(greedy_cover_size(g.view().out()), 3);
        let params = SetCoverParams::default();
        let mut r = set_cover(&g.view(), &params).unwrap();
        r.in_cover[10] = 0;
        assert!(verify_set_cover(&g.view(), &params, &r).is_err());
        for epsilon in [0.0, 1e-20, MIN_EPSILON / 2.0] {
            let params = SetCoverParams { epsilon, seed: 1 };
            assert!(set_cover(&g.view(), &params).is_err(), "ε = {epsilon}");
        }
    }

    #[test]
    fn every_threshold_admits_the_smallest_size_of_its_bucket() {
        for epsilon in [MIN_EPSILON, 1e-7, 1e-4, 0.01, 0.3, 2.0] {
            let scale = Scale {
                inverse_log: 1.0 / f64::ln_1p(epsilon),
                epsilon,
            };
            let mut size = 1u32;
            while size < 5_000_000 {
                let b = scale.bucket(size);
                assert!(scale.threshold(b) <= size, "ε = {epsilon}, size {size}");
                size += 1 + size / 97;
            }
        }
    }

    #[test]
    fn a_hub_sized_again_from_its_kept_elements_gets_the_same_cover() {
        // Hub 0 with 2,048 leaves; four larger stars, each also holding 500 of the hub's leaves,
        // are chosen first, so the hub is next sized with 49 of its 2,049 elements uncovered:
        // its list is kept, and it is sized again from it, not from the graph.
        let leaves = 2048u32;
        let mut edges: Vec<(Vertex, Vertex)> = (1..=leaves).map(|v| (0, v)).collect();
        let mut next = leaves + 5;
        for j in 0..4 {
            let centre = leaves + 1 + j;
            edges.extend((1 + 500 * j..1 + 500 * (j + 1)).map(|v| (centre, v)));
            edges.extend((next..next + 3000).map(|v| (centre, v)));
            next += 3000;
        }
        let g = InMemoryGraph::from_edges(next as usize, &edges, true);
        let params = SetCoverParams::default();
        let rooms = |kept_ids| Rooms {
            kept_ids,
            residual_ids: 0,
        };
        let with = set_cover_within(&g.view(), &params, rooms(1 << 20)).unwrap();
        let without = set_cover_within(&g.view(), &params, rooms(0)).unwrap();
        verify_set_cover(&g.view(), &params, &with).unwrap();
        assert_eq!(with.in_cover, without.in_cover);
        assert_eq!(with.stats.iterations, without.stats.iterations);
        // The hub's list is read once with the room, twice without.
        assert_eq!(
            without.stats.edges_traversed - with.stats.edges_traversed,
            leaves as u64
        );
    }

    #[test]
    fn the_residual_gives_the_cover_and_rounds_of_the_lists() {
        // A skewed graph with self-loops: the residual gathered before the first round, when
        // the incidences fall to about one a vertex, and never.
        let n = 5_000u32;
        let mut x = 11u64;
        let mut edges: Vec<(Vertex, Vertex)> = (0..40_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let u = (x % n as u64) as Vertex;
                ((u * u / n) % n, ((x >> 32) % n as u64) as Vertex)
            })
            .collect();
        edges.extend((0..n).step_by(7).map(|v| (v, v)));
        let g = InMemoryGraph::from_edges(n as usize, &edges, true);
        for seed in [1, 2] {
            let params = SetCoverParams {
                epsilon: 0.01,
                seed,
            };
            let within = |residual_ids| {
                let rooms = Rooms {
                    kept_ids: 1 << 16,
                    residual_ids,
                };
                set_cover_within(&g.view(), &params, rooms).unwrap()
            };
            let never = within(0);
            verify_set_cover(&g.view(), &params, &never).unwrap();
            for room in [u64::MAX, n as u64] {
                let r = within(room);
                assert_eq!(r.in_cover, never.in_cover, "seed {seed}, room {room}");
                assert_eq!(r.stats.iterations, never.stats.iterations);
                assert!(r.stats.edges_traversed < never.stats.edges_traversed);
            }
            // Gathered before the first round, no list is read by a round.
            assert_eq!(within(u64::MAX).stats.edges_traversed, 0);
        }
    }
}
