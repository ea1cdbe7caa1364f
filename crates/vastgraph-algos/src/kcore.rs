//! Coreness of every vertex of a symmetric graph: the largest k such that the vertex lies in the
//! k-core (the maximal subgraph whose vertices all have degree >= k). A degree counts a vertex's
//! arcs as stored: a self-loop (kept by `convert --keep-self-loops`) counts once, so a vertex whose
//! only arc is a loop has coreness 1. (NetworkX's `core_number` refuses graphs with loops.)
//!
//! Julienne-style peeling: every unpeeled vertex sits in the bucket of its induced degree
//! (degree among unpeeled vertices). Each round extracts the lowest bucket k, gives its vertices
//! coreness k and peels them; one [`edge_map`] then decrements each unpeeled neighbour's degree
//! once per peeled neighbour, but never below k (a neighbour that falls to k belongs to the
//! k-core's boundary and is peeled in a later round with key k), and the neighbours that moved
//! are re-filed. Pushing decrements with a CAS; pulling counts a vertex's peeled in-neighbours
//! and stops as soon as the vertex reaches k. A round of few arcs peels serially instead, each
//! neighbour that falls to k at once (Batagelj–Zaversnik's order within the level): the rounds
//! of a long path or a graph's sparse tail would otherwise cost a parallel step per vertex or
//! two (a path of 10M vertices: 5M rounds, 150 s, against 0.2 s serially). State: degrees, a flag byte per vertex, buckets.
//!
//! Lists on disk ([`in_passes`]): the peeling's rounds would each read the scattered lists of one
//! bucket, page by page (Kronecker 22 within 256 MiB: 647 rounds read 36 times the store). There
//! the coreness is computed as the fixed point of the local h-index (Lü et al. 2016; Montresor
//! et al.'s distributed k-core; Wen et al.'s semi-external SemiCore): every vertex starts at its
//! degree, and a vertex's value becomes the largest h not above it such that at least h
//! neighbours have values of at least h. Values only fall, never below the coreness, and stop
//! exactly at it; a vertex is recomputed only after a neighbour's value fell below its own, in
//! label-correcting passes ([`label_correcting`]) whose first reads every list and whose later
//! ones read fewer. A vertex is recomputed only when the count of its neighbours that reach its
//! value falls below the value (SemiCore*), so a hub's list is read again only when its value
//! must fall. The order of the recomputations changes no value.

use std::cell::RefCell;
use std::sync::atomic::{
    fence, AtomicI64, AtomicU32, AtomicU8, Ordering::Relaxed, Ordering::SeqCst,
};

use rayon::prelude::*;
use vastgraph_engine::bucket::NO_BUCKET;
use vastgraph_engine::memory::prefetch;
use vastgraph_engine::ooc::Weights;
use vastgraph_engine::traverse::{label_correcting, WholeLists};
use vastgraph_engine::{
    edge_map, Adjacency, Bitmap, BucketOrder, Buckets, Direction, EdgeMapCounters, EdgeMapFn,
    EdgeMapOptions, Graph, Traversal, Vertex, VertexSubset,
};

use crate::checkpoint::{self, Checkpoint, Column, State};
use crate::common::{read_error, require_symmetric, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): degrees, coreness and the buckets of
/// the peeling order.
pub const STATE: StateSize = StateSize::per_vertex(28);

const ALGORITHM: &str = "kcore";

#[derive(Clone, Debug, serde::Serialize)]
pub struct KcoreParams {
    /// Push/pull policy of each peeling step.
    pub direction: Direction,
}

impl Default for KcoreParams {
    fn default() -> Self {
        KcoreParams {
            direction: Direction::Auto,
        }
    }
}

#[derive(Debug)]
pub struct KcoreResult {
    /// Coreness per vertex.
    pub coreness: Vec<u32>,
    /// Stats: iterations = peeling rounds; extra `max_core` (the degeneracy).
    pub stats: RunStats,
}

/// A round whose vertices have at most this many arcs in all peels serially
/// ([`peel_serially`]): below it, a parallel round costs more in its fixed overheads than in
/// its arcs, and the peeling of a long path or tail takes one round per vertex or two.
const SERIAL_ARCS: usize = 1 << 12;
/// Vertices a serial peeling keeps waiting at most: a wider front goes back to the buckets,
/// where a parallel round serves it better (Kronecker 20: the same time as without serial
/// rounds, within the noise of ±5%).
const SERIAL_STACK: usize = 64;

/// Per-vertex flag: coreness assigned, no longer in the graph.
const PEELED: u8 = 1;
/// Per-vertex flag: already in this round's output.
const MOVED: u8 = 2;

/// One peeling round at level `k`: decrement unpeeled neighbours that are still above k.
struct Peel<'a> {
    degree: &'a [AtomicU32],
    flags: &'a [AtomicU8],
    k: u32,
}

impl EdgeMapFn for Peel<'_> {
    #[inline(always)]
    fn update(&self, _s: Vertex, d: Vertex, _w: f64) -> bool {
        // `cond` held just before, and only d's owner writes d in the pull direction.
        let slot = &self.degree[d as usize];
        slot.store(slot.load(Relaxed) - 1, Relaxed);
        true
    }

    #[inline(always)]
    fn update_atomic(&self, _s: Vertex, d: Vertex, _w: f64) -> bool {
        let lowered = self.degree[d as usize]
            .fetch_update(Relaxed, Relaxed, |deg| (deg > self.k).then(|| deg - 1))
            .is_ok();
        lowered && self.flags[d as usize].fetch_or(MOVED, Relaxed) & MOVED == 0
    }

    #[inline(always)]
    fn cond(&self, d: Vertex) -> bool {
        self.flags[d as usize].load(Relaxed) & PEELED == 0
            && self.degree[d as usize].load(Relaxed) > self.k
    }
}

/// Coreness of every vertex; the graph must be symmetric.
pub fn kcore<A: Adjacency>(g: &Graph<A>, params: &KcoreParams) -> Result<KcoreResult, AlgoError> {
    kcore_resumable(g, params, None)
}

/// [`kcore`], saving the peeling's state to `checkpoint` after rounds (the degrees, and which
/// vertices are peeled), or continuing from the state saved there.
pub fn kcore_resumable<A: Adjacency>(
    g: &Graph<A>,
    params: &KcoreParams,
    checkpoint: Option<&Checkpoint>,
) -> Result<KcoreResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    if checkpoint.is_none() && g.out().on_disk().is_some() {
        return in_passes(g);
    }
    let n = g.num_vertices();
    let out = g.out();
    let (mut rounds, mut max_core, mut edges_before) = (0u64, 0u32, 0u64);
    let (degree, flags): (Vec<AtomicU32>, Vec<AtomicU8>) =
        match checkpoint::begin(checkpoint, ALGORITHM, params)? {
            Some(mut saved) => {
                rounds = saved.iteration;
                max_core = saved.u64("max_core")? as u32;
                edges_before = saved.u64("edges")?;
                let degree = saved.column::<u32>("degrees", n)?;
                let peeled = saved.column::<u8>("peeled", n)?;
                (
                    degree.into_iter().map(AtomicU32::new).collect(),
                    peeled
                        .into_iter()
                        .map(|p| AtomicU8::new(p & PEELED))
                        .collect(),
                )
            }
            // Degrees above u32::MAX cannot occur: a vertex has fewer than 2^32 distinct
            // neighbours.
            None => (
                (0..n as Vertex)
                    .into_par_iter()
                    .map(|v| AtomicU32::new(out.degree(v) as u32))
                    .collect(),
                (0..n).into_par_iter().map(|_| AtomicU8::new(0)).collect(),
            ),
        };
    let counters = EdgeMapCounters::default();
    let opts = EdgeMapOptions {
        direction: params.direction,
        ..EdgeMapOptions::with_counters(&counters)
    };
    let key = |v: Vertex| {
        if flags[v as usize].load(Relaxed) & PEELED != 0 {
            NO_BUCKET
        } else {
            degree[v as usize].load(Relaxed) as u64
        }
    };
    let save = |rounds: u64, max_core: u32, edges: u64| {
        checkpoint::after_iteration(checkpoint, ALGORITHM, params, rounds, || {
            State::new(vec![
                Column::from_fn("degrees", n, |v| degree[v].load(Relaxed)),
                Column::from_fn("peeled", n, |v| flags[v].load(Relaxed) & PEELED),
            ])
            .with("max_core", max_core)
            .with("edges", edges_before + edges)
        })
    };
    let mut serial_edges = 0u64;
    let mut buckets = Buckets::new(n, key, BucketOrder::Increasing);
    while let Some((k, ids)) = buckets.next_bucket() {
        rounds += 1;
        let k = k as u32;
        max_core = max_core.max(k);
        ids.par_iter().with_min_len(1024).for_each(|&v| {
            flags[v as usize].fetch_or(PEELED, Relaxed);
            // Already k unless the bucket clamped a lower degree up to the current level.
            degree[v as usize].store(k, Relaxed);
        });
        if ids.iter().map(|&v| out.degree(v)).sum::<usize>() <= SERIAL_ARCS {
            let moved = peel_serially(out, &degree, &flags, k, ids, &mut serial_edges);
            for &v in &moved {
                flags[v as usize].fetch_and(!MOVED, Relaxed);
            }
            buckets.update(&moved);
            save(rounds, max_core, serial_edges + counters.edges())?;
            continue;
        }
        let frontier = VertexSubset::from_ids(n, ids);
        let moved = edge_map(
            g,
            &frontier,
            &Peel {
                degree: &degree,
                flags: &flags,
                k,
            },
            &opts,
        )
        .into_sparse();
        let moved = moved.sparse_ids().expect("converted to sparse");
        moved.par_iter().with_min_len(1024).for_each(|&v| {
            flags[v as usize].fetch_and(!MOVED, Relaxed);
        });
        buckets.update(moved);
        save(rounds, max_core, serial_edges + counters.edges())?;
    }
    drop(buckets);

    drop(flags);
    // Sequential on purpose: std collects a Vec's own iterator in place, so the output reuses
    // the atomics' allocation instead of doubling the peak.
    let coreness: Vec<u32> = degree.into_iter().map(AtomicU32::into_inner).collect();
    let stats = RunStats {
        iterations: rounds,
        edges_traversed: edges_before + serial_edges + counters.edges(),
        ..Default::default()
    }
    .with("max_core", max_core);
    Ok(KcoreResult { coreness, stats })
}

/// Peels level `k` from `ids` (already peeled) one vertex at a time, as Batagelj and Zaversnik
/// do: a neighbour whose degree falls to k is peeled at once, where the rounds would peel it in
/// the next round with the same key, so coreness is the same. A neighbour that stays above k,
/// or whose list is too long to walk here ([`SERIAL_ARCS`]), or that finds the stack full, is
/// returned to be re-filed. A path peels in one call instead of n/2 rounds of two vertices.
fn peel_serially<A: Adjacency>(
    out: &A,
    degree: &[AtomicU32],
    flags: &[AtomicU8],
    k: u32,
    ids: Vec<Vertex>,
    edges: &mut u64,
) -> Vec<Vertex> {
    let mut stack = ids;
    let mut moved = Vec::new();
    while let Some(v) = stack.pop() {
        *edges += out.degree(v) as u64;
        out.for_each_neighbor(v, |u| {
            let i = u as usize;
            let f = flags[i].load(Relaxed);
            let d = degree[i].load(Relaxed);
            // Peeled, or waiting in bucket k already (the rule never lowers a degree below k).
            if f & PEELED != 0 || d <= k {
                return;
            }
            degree[i].store(d - 1, Relaxed);
            if d - 1 == k && stack.len() < SERIAL_STACK && out.degree(u) <= SERIAL_ARCS {
                flags[i].store(f | PEELED, Relaxed);
                stack.push(u);
            } else if f & MOVED == 0 {
                flags[i].store(f | MOVED, Relaxed);
                moved.push(u);
            }
        });
    }
    moved
}

/// The state [`in_passes`] keeps for `n` vertices: the values, the counts of neighbours that
/// reach them, and the active and activated bitmaps.
pub fn state_in_passes(n: u64) -> u64 {
    12 * n + 2 * n.div_ceil(64) * 8
}

/// Coreness of every vertex of a symmetric graph over any [`Traversal`], as the fixed point of
/// the local h-index (see the module documentation); the same values as [`kcore`].
pub fn in_passes<G: Traversal>(g: &G) -> Result<KcoreResult, AlgoError> {
    require_symmetric(g, ALGORITHM)?;
    let n = g.num_vertices();
    // Degrees above u32::MAX cannot occur: a vertex has fewer than 2^32 distinct neighbours.
    let value: Vec<AtomicU32> = (0..n as Vertex)
        .into_par_iter()
        .map(|v| AtomicU32::new(g.degree(v) as u32))
        .collect();
    let reaching: Vec<AtomicI64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicI64::new(NOT_COUNTED))
        .collect();
    let lists = WholeLists::new(g);
    let relax = |v: Vertex, piece: &[Vertex], _: Weights<'_>, activated: &Bitmap| {
        lists.whole(v, piece, |neighbors| {
            lower_to_h_index(&value, &reaching, v, neighbors, activated)
        })
    };
    let (passes, edges) = label_correcting(g, g.vertices_with_arcs(), relax, || true)
        .map_err(read_error(ALGORITHM))?;
    let coreness: Vec<u32> = value.into_iter().map(AtomicU32::into_inner).collect();
    let max_core = coreness.par_iter().copied().max().unwrap_or(0);
    let stats = RunStats {
        iterations: passes,
        edges_traversed: edges,
        ..Default::default()
    }
    .with("max_core", max_core);
    Ok(KcoreResult { coreness, stats })
}

/// The count of a vertex not yet computed: the first pass computes every vertex with arcs, so
/// the decrements that reach it before (at most one a neighbour, fewer than 2^32) activate
/// nothing.
const NOT_COUNTED: i64 = i64::MIN / 2;

/// How far ahead in a list [`lower_to_h_index`] starts loading a neighbour's value.
const PREFETCH_AHEAD: usize = 16;

thread_local! {
    /// [`lower_to_h_index`]'s counts, kept between lists.
    static COUNTS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Lowers `v`'s value to the h-index of its neighbours' values (each capped at v's own; v
/// itself, on a self-loop, counts at v's value, as the peeling never lowers a vertex by its
/// own arc), and counts in `reaching[v]` the neighbours whose values reach the new one.
///
/// A vertex needs recomputing only when fewer neighbours reach its value than the value
/// (SemiCore*'s count). So a fall of v from `cap` to `h` takes one off the count of each
/// neighbour u whose value U it reached and no longer does (h < U <= cap), and activates u only
/// when u's count drops below U: a hub is read again only when its value must fall, not each
/// time a low neighbour falls.
///
/// The count is never above the truth, so no fall is missed (it may be below it, which costs a
/// recomputation that resets it):
/// - v zeroes its count before it stores its new value, then adds what it counted after it:
///   a neighbour's decrement that lands before the zero was taken against the old value, and
///   that neighbour had fallen before v's recount looked;
/// - the fences order each pair of a falling neighbour and v: one of the two sees the other's
///   new value, so a neighbour that falls meanwhile is either not counted by v or takes itself
///   off v's count.
///
/// A vertex's list is visited by one task at a time (a pass hands each list over once, and
/// reentry takes a vertex from `activated` in the task that holds its list).
fn lower_to_h_index(
    value: &[AtomicU32],
    reaching: &[AtomicI64],
    v: Vertex,
    neighbors: &[Vertex],
    activated: &Bitmap,
) {
    fence(SeqCst);
    let cap = value[v as usize].load(Relaxed);
    let h = COUNTS.with_borrow_mut(|counts| {
        counts.clear();
        counts.resize(cap as usize + 1, 0);
        for_each_prefetched(value, neighbors, |u| {
            let x = if u == v {
                cap
            } else {
                value[u as usize].load(Relaxed).min(cap)
            };
            counts[x as usize] += 1;
        });
        let mut at_least = 0;
        (0..=cap)
            .rev()
            .find(|&h| {
                at_least += counts[h as usize];
                at_least >= h
            })
            .unwrap_or(0)
    });
    reaching[v as usize].store(0, SeqCst);
    value[v as usize].fetch_min(h, SeqCst);
    fence(SeqCst);
    let mut count = 0i64;
    for_each_prefetched(value, neighbors, |u| {
        if u == v {
            count += 1;
            return;
        }
        let x = value[u as usize].load(Relaxed);
        count += i64::from(x >= h);
        if h < x && x <= cap {
            let left = reaching[u as usize].fetch_sub(1, SeqCst) - 1;
            if left > NOT_COUNTED / 2 && left < i64::from(x) {
                activated.set_atomic(u as usize);
            }
        }
    });
    if reaching[v as usize].fetch_add(count, SeqCst) + count < i64::from(h) {
        activated.set_atomic(v as usize);
    }
}

/// Calls `f` on each id of `neighbors` in order, having started to load the value
/// [`PREFETCH_AHEAD`] ids further on: a value read an arc is otherwise a cache miss an arc.
#[inline]
fn for_each_prefetched(value: &[AtomicU32], neighbors: &[Vertex], mut f: impl FnMut(Vertex)) {
    for (i, &u) in neighbors.iter().enumerate() {
        if let Some(&ahead) = neighbors.get(i + PREFETCH_AHEAD) {
            prefetch(&value[ahead as usize]);
        }
        f(u);
    }
}

/// Checks `result` against the serial Batagelj–Zaversnik bucket algorithm, exactly.
pub fn verify_kcore<A: Adjacency>(g: &Graph<A>, result: &KcoreResult) -> Result<(), VerifyError> {
    let n = g.num_vertices();
    if !g.is_symmetric() {
        return Err(VerifyError::new(ALGORITHM, "the graph is not symmetric"));
    }
    if result.coreness.len() != n {
        return Err(VerifyError::new(
            ALGORITHM,
            format!("{} values for {n} vertices", result.coreness.len()),
        ));
    }
    let reference = batagelj_zaversnik(g.out());
    for (v, (&got, &want)) in result.coreness.iter().zip(&reference).enumerate() {
        if got != want {
            return Err(VerifyError::new(
                ALGORITHM,
                format!("vertex {v}: coreness {got}, expected {want}"),
            ));
        }
    }
    Ok(())
}

/// O(n + m): vertices sorted by degree in an array with bin starts; taking them in order, each
/// one's degree is final, and every neighbour with a larger degree moves down one bin.
fn batagelj_zaversnik<A: Adjacency>(adj: &A) -> Vec<u32> {
    let n = adj.num_vertices();
    let mut deg: Vec<usize> = (0..n as Vertex).map(|v| adj.degree(v)).collect();
    let max_deg = deg.iter().copied().max().unwrap_or(0);
    let mut bin_start = vec![0usize; max_deg + 2];
    for &d in &deg {
        bin_start[d + 1] += 1;
    }
    for d in 0..=max_deg {
        bin_start[d + 1] += bin_start[d];
    }
    let mut pos = vec![0usize; n];
    let mut sorted = vec![0 as Vertex; n];
    let mut next = bin_start.clone();
    for v in 0..n {
        pos[v] = next[deg[v]];
        sorted[pos[v]] = v as Vertex;
        next[deg[v]] += 1;
    }
    for i in 0..n {
        let v = sorted[i] as usize;
        adj.for_each_neighbor(v as Vertex, |u| {
            let u = u as usize;
            if deg[u] > deg[v] {
                // Swap u with the first vertex of its bin, then shrink that bin from the left.
                let du = deg[u];
                let first = bin_start[du];
                let w = sorted[first] as usize;
                if w != u {
                    sorted.swap(pos[u], first);
                    pos[w] = pos[u];
                    pos[u] = first;
                }
                bin_start[du] += 1;
                deg[u] -= 1;
            }
        });
    }
    deg.into_iter().map(|d| d as u32).collect()
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Params};
use crate::registry::Values;

/// `kcore` in the registry.
pub struct Kcore;

impl Algorithm for Kcore {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "kcore",
        summary: "coreness of every vertex (symmetric graphs)",
        params: &[],
        needs: Needs {
            symmetric: true,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: true,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[],
        state_in_passes: Some(|n, _| Some(state_in_passes(n))),
    };
    type Params = KcoreParams;
    type Result = KcoreResult;
    fn params<A: Adjacency>(_given: &Params, _g: &Graph<A>) -> Result<KcoreParams, AlgoError> {
        Ok(KcoreParams::default())
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &KcoreParams,
        checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<KcoreResult, AlgoError> {
        kcore_resumable(g, q, checkpoint)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        _q: &KcoreParams,
        r: &KcoreResult,
    ) -> Result<(), VerifyError> {
        verify_kcore(g, r)
    }
    fn output(r: KcoreResult, _q: &KcoreParams) -> (Option<Values>, RunStats) {
        (Some(Values::U32(r.coreness)), r.stats)
    }
}
