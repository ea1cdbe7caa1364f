//! The traversal interface that kernels of passes are written against, implemented by every
//! graph: a [`Graph`] in memory (mapped or built), and the same over lists on disk
//! ([`crate::ooc::OocLists`], or an [`OocGraph`] itself), where each call is one planned read.
//!
//! Three operations, each over a set of vertices:
//! - [`Traversal::pass`] (push): every list of the set, in pieces; with
//!   [`ScanSpec::activated`], vertices the visitor activates may be processed within the same
//!   pass (reentry on disk; in memory they wait for the next pass).
//! - [`Traversal::first_neighbors`]: each vertex's first (smallest) neighbour, from the store's
//!   side file when it has one.
//! - [`Traversal::pull`]: each vertex's list walked in order until the walker is done with the
//!   vertex. On disk the engine chooses, by its cost model, whether the first neighbours and
//!   the list heads (the first 8 ids of each list) go first, so that only the lists of the
//!   vertices they leave open are read; in memory each list is walked in place.
//!
//! An algorithm written against these never sees a page, a buffer or a side file: the same
//! code runs in memory and within a budget, with the same result where its problem has one.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;

use rayon::prelude::*;
use vastgraph_store::WeightsRef;

use crate::bitmap::{Bitmap, WORDS_PER_TASK};
use crate::error::EngineError;
use crate::graph::{Adjacency, Graph};
use crate::ooc::{OocGraph, ScanSpec, Weights};
use crate::tiles::ArcValue;
use crate::Vertex;

/// The error of [`Traversal::sum_in_arcs`] on a graph without tiles.
fn no_tiles() -> EngineError {
    EngineError::read(anyhow::anyhow!("the graph has no tiles open"))
}

/// A pull: the vertices whose lists are walked, and what the caller already knows of them.
pub struct PullSpec<'a> {
    /// The vertices whose lists are walked.
    pub set: &'a Bitmap,
    /// Set by the engine for every vertex whose walk returned true (the caller's bitmap; bits
    /// already set are vertices it is done with, and their lists are not walked).
    pub done: &'a Bitmap,
    /// The arcs of the set's lists, when the caller keeps count (else the engine sums them).
    pub arcs: Option<u64>,
    /// Some(share) when the caller already walked the first neighbour of every vertex of the
    /// set (through [`Traversal::first_neighbors`]), and that share of those it walked was
    /// done after it: the pull then starts at each list's second id, and the share tells the
    /// cost model what the next ids will settle.
    pub first_settled: Option<f64>,
    /// Whether a vertex this pull leaves open is pulled again by the next one: its list, when
    /// short, is then kept in the cache of short lists rather than read again.
    pub repeats: bool,
    /// Asked of each vertex still open before its list (or the rest of it) is read: whether the
    /// caller is done with it all the same, because of what other walks did meanwhile (cc: a
    /// vertex that others' links hung in the giant tree). It is then set in `done`, unread.
    pub done_anyway: Option<&'a (dyn Fn(Vertex) -> bool + Sync)>,
}

impl<'a> PullSpec<'a> {
    pub fn new(set: &'a Bitmap, done: &'a Bitmap) -> PullSpec<'a> {
        PullSpec {
            set,
            done,
            arcs: None,
            first_settled: None,
            repeats: false,
            done_anyway: None,
        }
    }
}

/// A graph that kernels of passes run on; see the module documentation.
pub trait Traversal: Sync {
    fn num_vertices(&self) -> usize;
    fn num_arcs(&self) -> u64;
    fn degree(&self, v: Vertex) -> usize;
    fn is_symmetric(&self) -> bool;
    /// Whether passes hand over arc weights.
    fn has_weights(&self) -> bool;
    /// Whether [`Self::first_neighbors`] costs about a word a vertex (in memory, or a store
    /// with their side file) rather than a pass over the lists.
    fn first_neighbors_cheap(&self) -> bool;

    /// Calls `visit(v, neighbours, weights)` for the lists of `spec.active` (see [`ScanSpec`]),
    /// from several threads at once unless `spec.ordered`. A long list may arrive in several
    /// consecutive pieces, each in its own call, possibly on different threads. Returns the
    /// arcs handed over.
    fn pass<V>(&self, spec: &ScanSpec<'_>, visit: V) -> Result<u64, EngineError>
    where
        V: Fn(Vertex, &[Vertex], Weights<'_>) + Sync;

    /// Hands `v`'s whole list to `f`, with its weights when passes hand them over: one list
    /// read on its own (on disk, through a cache of blocks of the file).
    fn with_list<F>(&self, v: Vertex, f: F) -> Result<(), EngineError>
    where
        F: FnOnce(&[Vertex], Weights<'_>);

    /// Ends a run of [`Self::with_list`] calls: on disk their reads become one record of the
    /// run's I/O, as a pass's do. Nothing in memory.
    fn end_lists_apart(&self) {}

    /// Calls `visit(v, first)` with the first (smallest) neighbour of every vertex of `set`
    /// that has one, from several threads at once. Returns the calls made.
    fn first_neighbors<V>(&self, set: &Bitmap, visit: V) -> Result<u64, EngineError>
    where
        V: Fn(Vertex, Vertex) + Sync;

    /// For each vertex `v` of `spec.set` not yet in `spec.done`, hands its list to
    /// `walk(v, ids)` in order, a piece at a time, until `walk` returns true (the caller is done
    /// with `v`: the engine sets it in `spec.done`) or the list ends. A long list may come in
    /// pieces on several threads at once, each walked in order: a walker that wants the first
    /// hit of the whole list keeps the smallest it sees (lists are sorted). Where the store has
    /// side files the cost model favours, a piece may be the first id, or the first few, alone,
    /// and the rest of the list follows only for vertices still open. Returns the ids handed
    /// over.
    fn pull<W>(&self, spec: &PullSpec<'_>, walk: W) -> Result<u64, EngineError>
    where
        W: Fn(Vertex, &[Vertex]) -> bool + Sync;

    /// Whether [`Self::sum_in_arcs`] can run: the store has tiles (`vastgraph tile`), opened.
    fn has_tiles(&self) -> bool {
        false
    }

    /// `out[v] = Σ_{u→v} values[u]` for every vertex v, over the tiles ([`crate::tiles`]):
    /// each sum takes v's in-arcs in ascending source order, whatever the thread count. Then
    /// `apply(first, sums)` runs on each column's sums (targets `first..first + sums.len()`)
    /// once they are complete, in the task that summed them. Tiles whose sources' values are
    /// all zero add nothing and are not folded (on disk they are still read and checked).
    /// Returns the arcs folded and `apply`'s results in column order; an error when
    /// [`Self::has_tiles`] is false.
    fn sum_in_arcs<T: ArcValue, R: Send>(
        &self,
        _values: &[T],
        _out: &mut [T],
        _apply: impl Fn(usize, &mut [T]) -> R + Sync,
    ) -> Result<(u64, Vec<R>), EngineError> {
        Err(no_tiles())
    }

    /// For every column of the tiles, the values of its targets' in-neighbours gathered in one
    /// buffer and handed to `visit(first, starts, gathered, out)`: target `first + t` has its
    /// in-neighbours' values at `gathered[starts[t]..starts[t + 1]]`, in ascending source
    /// order, and its result slot at `out[t]` ([`crate::tiles::gather_in_arcs`]). Returns the
    /// arcs read; an error when [`Self::has_tiles`] is false.
    fn gather_in_arcs<T, O>(
        &self,
        _values: &[T],
        _out: &mut [O],
        _visit: impl Fn(usize, &[usize], &mut [T], &mut [O]) + Sync,
    ) -> Result<u64, EngineError>
    where
        T: Copy + Default + Send + Sync,
        O: Send,
    {
        Err(no_tiles())
    }

    /// The out-degree sum of `set` (GAPBS's scout count).
    fn degree_sum(&self, set: &Bitmap) -> u64 {
        set.words()
            .par_iter()
            .enumerate()
            .map(|(w, word)| {
                let mut sum = 0;
                crate::bitmap::for_each_in_word(word.load(Relaxed), (64 * w) as Vertex, |v| {
                    sum += self.degree(v) as u64
                });
                sum
            })
            .sum()
    }

    /// The vertices with at least one out-arc.
    fn vertices_with_arcs(&self) -> Bitmap {
        Bitmap::from_fn(self.num_vertices(), |v| self.degree(v as Vertex) > 0)
    }
}

impl Traversal for OocGraph {
    fn num_vertices(&self) -> usize {
        OocGraph::num_vertices(self)
    }
    fn num_arcs(&self) -> u64 {
        OocGraph::num_arcs(self)
    }
    #[inline]
    fn degree(&self, v: Vertex) -> usize {
        OocGraph::degree(self, v)
    }
    fn is_symmetric(&self) -> bool {
        OocGraph::is_symmetric(self)
    }
    fn has_weights(&self) -> bool {
        self.reads_weights()
    }
    fn first_neighbors_cheap(&self) -> bool {
        self.has_first_neighbors()
    }

    fn pass<V>(&self, spec: &ScanSpec<'_>, visit: V) -> Result<u64, EngineError>
    where
        V: Fn(Vertex, &[Vertex], Weights<'_>) + Sync,
    {
        crate::interrupt::check();
        self.scan(spec, visit)
            .map(|record| record.arcs_processed)
            .map_err(EngineError::read)
    }

    fn end_lists_apart(&self) {
        self.keep_block_record();
    }

    fn has_tiles(&self) -> bool {
        OocGraph::has_tiles(self)
    }

    fn sum_in_arcs<T: ArcValue, R: Send>(
        &self,
        values: &[T],
        out: &mut [T],
        apply: impl Fn(usize, &mut [T]) -> R + Sync,
    ) -> Result<(u64, Vec<R>), EngineError> {
        crate::interrupt::check();
        OocGraph::sum_in_arcs(self, values, out, apply).map_err(EngineError::read)
    }

    fn gather_in_arcs<T, O>(
        &self,
        values: &[T],
        out: &mut [O],
        visit: impl Fn(usize, &[usize], &mut [T], &mut [O]) + Sync,
    ) -> Result<u64, EngineError>
    where
        T: Copy + Default + Send + Sync,
        O: Send,
    {
        crate::interrupt::check();
        OocGraph::gather_in_arcs(self, values, out, visit).map_err(EngineError::read)
    }

    fn with_list<F>(&self, v: Vertex, f: F) -> Result<(), EngineError>
    where
        F: FnOnce(&[Vertex], Weights<'_>),
    {
        with_list(&self.lists(), v, self.reads_weights(), f);
        match self.take_list_error() {
            Some(e) => Err(EngineError::read(e)),
            None => Ok(()),
        }
    }

    fn first_neighbors<V>(&self, set: &Bitmap, visit: V) -> Result<u64, EngineError>
    where
        V: Fn(Vertex, Vertex) + Sync,
    {
        crate::interrupt::check();
        if !self.has_first_neighbors() {
            return pass_first_neighbors(self, set, visit);
        }
        self.scan_first_neighbors(set, visit)
            .map(|record| record.arcs_processed)
            .map_err(EngineError::read)
    }

    fn pull<W>(&self, spec: &PullSpec<'_>, walk: W) -> Result<u64, EngineError>
    where
        W: Fn(Vertex, &[Vertex]) -> bool + Sync,
    {
        crate::interrupt::check();
        self.pull_lists(spec, walk).map_err(EngineError::read)
    }

    fn vertices_with_arcs(&self) -> Bitmap {
        crate::ooc::vertices_with_arcs(self.offsets())
    }
}

/// Label-correcting passes (Bellman-Ford with a frontier; bfs and sssp beyond a few levels):
/// each pass hands the lists of the active vertices to `relax(v, neighbours, weights,
/// activated)`, which sets in `activated` the vertices whose label dropped; they are the next
/// pass's active set. On disk, vertices activated inside a loaded range are relaxed while it is
/// in memory (reentry), so a long sparse search takes fewer passes.
///
/// A frontier of at most [`SMALL_FRONTIER`] vertices is relaxed a list at a time instead
/// ([`Traversal::with_list`]), from a queue that each relaxed list feeds with the neighbours it
/// activated, until the queue outgrows the bound or meets a list longer than [`SMALL_LIST`]:
/// on a long path or a road network a planned pass per level would cost its fixed overhead
/// for a handful of vertices. The order of relaxations changes no label: each vertex ends at
/// its least offer either way.
///
/// After each pass (or run of the queue), `go_on()` may end the run early by returning false.
/// Returns the passes (a run of the queue counts as one) and the arcs handed over.
pub fn label_correcting<G, R>(
    g: &G,
    mut active: Bitmap,
    relax: R,
    mut go_on: impl FnMut() -> bool,
) -> Result<(u64, u64), EngineError>
where
    G: Traversal,
    R: Fn(Vertex, &[Vertex], Weights<'_>, &Bitmap) + Sync,
{
    let mut activated = Bitmap::new(g.num_vertices());
    let (mut passes, mut arcs) = (0u64, 0u64);
    loop {
        let count = active.count_ones();
        if count == 0 {
            break;
        }
        passes += 1;
        crate::interrupt::check();
        crate::progress::operation(Some(count as u64));
        if count <= SMALL_FRONTIER {
            let (lists, relaxed, left) = relax_from_queue(g, &active, &relax, &activated)?;
            arcs += relaxed;
            active = left;
            // Unless a long list came first: a pass reads it.
            if lists > 0 {
                if !go_on() {
                    break;
                }
                continue;
            }
        }
        let spec = ScanSpec {
            activated: Some(&activated),
            ..ScanSpec::new(&active)
        };
        arcs += g.pass(&spec, |v, neighbors, weights| {
            relax(v, neighbors, weights, &activated)
        })?;
        if !go_on() {
            break;
        }
        std::mem::swap(&mut active, &mut activated);
        activated.clear_all();
    }
    Ok((passes, arcs))
}

/// Gathers the pieces of lists that a pass hands over in several calls ([`Traversal::pass`]),
/// for visitors that need a vertex's whole list at once (an h-index, a first free colour):
/// [`Self::whole`] hands over a list at once when the piece is all of it, else when its last
/// piece has arrived, in order. Only the lists in pieces are copied, and only until they are
/// whole.
pub struct WholeLists<'g, G: Traversal> {
    g: &'g G,
    pieces: Mutex<HashMap<Vertex, Vec<Vertex>>>,
}

impl<'g, G: Traversal> WholeLists<'g, G> {
    pub fn new(g: &'g G) -> Self {
        WholeLists {
            g,
            pieces: Mutex::new(HashMap::new()),
        }
    }

    /// Calls `f` with `v`'s whole list once `piece`, a piece of it, completes it.
    pub fn whole(&self, v: Vertex, piece: &[Vertex], f: impl FnOnce(&[Vertex])) {
        let degree = self.g.degree(v);
        if piece.len() == degree {
            return f(piece);
        }
        let mut whole = {
            let mut pieces = self.pieces.lock().unwrap_or_else(|e| e.into_inner());
            let ids = pieces
                .entry(v)
                .or_insert_with(|| Vec::with_capacity(degree));
            ids.extend_from_slice(piece);
            if ids.len() < degree {
                return;
            }
            pieces.remove(&v).expect("just completed")
        };
        // Pieces visited on several threads may arrive in any order; a list is sorted.
        whole.sort_unstable();
        f(&whole)
    }
}

/// Frontiers of at most this many vertices are relaxed a list at a time by
/// [`label_correcting`], and its queue goes back to passes when it holds more than
/// `SMALL_FRONTIER` vertices.
pub const SMALL_FRONTIER: usize = 64;

/// The longest list [`label_correcting`] reads on its own: a longer one (a hub) goes back to a
/// pass, which reads it in pieces at depth.
pub const SMALL_LIST: usize = 4096;

/// [`label_correcting`]'s queue: relaxes the lists of `active`, then those of the vertices they
/// activate, one at a time, first in first out, until the queue holds more than
/// [`SMALL_FRONTIER`] vertices or its next vertex has more than [`SMALL_LIST`] arcs. Returns the
/// lists and the arcs relaxed, and the vertices left for the next pass (`activated` is left
/// empty).
fn relax_from_queue<G, R>(
    g: &G,
    active: &Bitmap,
    relax: &R,
    activated: &Bitmap,
) -> Result<(u64, u64, Bitmap), EngineError>
where
    G: Traversal,
    R: Fn(Vertex, &[Vertex], Weights<'_>, &Bitmap) + Sync,
{
    let mut queue: std::collections::VecDeque<Vertex> = active.to_sorted_ids().into();
    let (mut lists, mut arcs) = (0u64, 0u64);
    while let Some(&v) = queue.front() {
        if queue.len() > SMALL_FRONTIER || g.degree(v) > SMALL_LIST {
            break;
        }
        queue.pop_front();
        lists += 1;
        g.with_list(v, |ids, weights| {
            relax(v, ids, weights, activated);
            arcs += ids.len() as u64;
            for &u in ids {
                if activated.take(u as usize) {
                    queue.push_back(u);
                }
            }
        })?;
    }
    g.end_lists_apart();
    let mut left = Bitmap::new(g.num_vertices());
    for v in queue {
        left.set(v as usize);
    }
    Ok((lists, arcs, left))
}

/// The first neighbours of `set` from a pass over their lists, each stopped after its first
/// id: for a store without the side file.
fn pass_first_neighbors<G: Traversal, V>(g: &G, set: &Bitmap, visit: V) -> Result<u64, EngineError>
where
    V: Fn(Vertex, Vertex) + Sync,
{
    let done = Bitmap::new(g.num_vertices());
    let visited = std::sync::atomic::AtomicU64::new(0);
    g.pull(&PullSpec::new(set, &done), |v, ids| {
        if let Some(&first) = ids.first() {
            visit(v, first);
            visited.fetch_add(1, Relaxed);
        }
        true
    })?;
    Ok(visited.into_inner())
}

/// A graph in memory runs each operation over its lists in place; one whose out-edges are
/// lists on disk ([`Adjacency::on_disk`]) hands it to the engine on disk.
impl<A: Adjacency> Traversal for Graph<A> {
    fn num_vertices(&self) -> usize {
        Graph::num_vertices(self)
    }
    fn num_arcs(&self) -> u64 {
        Graph::num_arcs(self)
    }
    #[inline]
    fn degree(&self, v: Vertex) -> usize {
        self.out().degree(v)
    }
    fn is_symmetric(&self) -> bool {
        Graph::is_symmetric(self)
    }
    fn has_weights(&self) -> bool {
        match self.out().on_disk() {
            Some(g) => g.reads_weights(),
            None => self.is_weighted(),
        }
    }
    fn first_neighbors_cheap(&self) -> bool {
        self.out()
            .on_disk()
            .is_none_or(|g| g.first_neighbors_cheap())
    }

    fn has_tiles(&self) -> bool {
        self.out().tiles().is_some() || self.out().on_disk().is_some_and(|g| g.has_tiles())
    }

    fn sum_in_arcs<T: ArcValue, R: Send>(
        &self,
        values: &[T],
        out: &mut [T],
        apply: impl Fn(usize, &mut [T]) -> R + Sync,
    ) -> Result<(u64, Vec<R>), EngineError> {
        crate::progress::operation(None);
        match (self.out().tiles(), self.out().on_disk()) {
            (Some(tiles), _) => Ok(crate::tiles::sum_in_arcs(&tiles, values, out, apply)),
            (None, Some(g)) => Traversal::sum_in_arcs(g, values, out, apply),
            (None, None) => Err(no_tiles()),
        }
    }

    fn gather_in_arcs<T, O>(
        &self,
        values: &[T],
        out: &mut [O],
        visit: impl Fn(usize, &[usize], &mut [T], &mut [O]) + Sync,
    ) -> Result<u64, EngineError>
    where
        T: Copy + Default + Send + Sync,
        O: Send,
    {
        crate::progress::operation(None);
        match (self.out().tiles(), self.out().on_disk()) {
            (Some(tiles), _) => {
                crate::tiles::gather_in_arcs(&tiles, values, out, visit);
                Ok(tiles.num_edges())
            }
            (None, Some(g)) => Traversal::gather_in_arcs(g, values, out, visit),
            (None, None) => Err(no_tiles()),
        }
    }

    fn pass<V>(&self, spec: &ScanSpec<'_>, visit: V) -> Result<u64, EngineError>
    where
        V: Fn(Vertex, &[Vertex], Weights<'_>) + Sync,
    {
        crate::progress::operation(None);
        if let Some(g) = self.out().on_disk() {
            return g.pass(spec, visit);
        }
        crate::interrupt::check();
        let out = self.out();
        let weighted = self.is_weighted() && !spec.ids_only;
        let list = |v: Vertex| -> u64 {
            with_list(out, v, weighted, |ids, weights| visit(v, ids, weights));
            out.degree(v) as u64
        };
        if spec.ordered {
            let mut arcs = 0;
            for v in spec.active.to_sorted_ids() {
                arcs += list(v);
            }
            return Ok(arcs);
        }
        Ok(for_each_set(spec.active, list))
    }

    fn end_lists_apart(&self) {
        if let Some(g) = self.out().on_disk() {
            g.end_lists_apart();
        }
    }

    fn with_list<F>(&self, v: Vertex, f: F) -> Result<(), EngineError>
    where
        F: FnOnce(&[Vertex], Weights<'_>),
    {
        if let Some(g) = self.out().on_disk() {
            return g.with_list(v, f);
        }
        with_list(self.out(), v, self.is_weighted(), f);
        Ok(())
    }

    fn first_neighbors<V>(&self, set: &Bitmap, visit: V) -> Result<u64, EngineError>
    where
        V: Fn(Vertex, Vertex) + Sync,
    {
        crate::progress::operation(None);
        if let Some(g) = self.out().on_disk() {
            return g.first_neighbors(set, visit);
        }
        crate::interrupt::check();
        let out = self.out();
        Ok(for_each_set(set, |v| match out.first_neighbor(v) {
            Some(first) => {
                visit(v, first);
                1
            }
            None => 0,
        }))
    }

    fn pull<W>(&self, spec: &PullSpec<'_>, walk: W) -> Result<u64, EngineError>
    where
        W: Fn(Vertex, &[Vertex]) -> bool + Sync,
    {
        crate::progress::operation(None);
        if let Some(g) = self.out().on_disk() {
            return g.pull(spec, walk);
        }
        crate::interrupt::check();
        let out = self.out();
        let from = usize::from(spec.first_settled.is_some());
        Ok(for_each_set(spec.set, |v| {
            if spec.done.get(v as usize) {
                return 0;
            }
            if spec.done_anyway.is_some_and(|done| done(v)) {
                spec.done.set_atomic(v as usize);
                return 0;
            }
            let mut position = 0usize;
            let mut walked = 0u64;
            out.try_for_each_neighbor_block(v, |block| {
                let skip = from.saturating_sub(position).min(block.len());
                position += block.len();
                let ids = &block[skip..];
                if ids.is_empty() {
                    return true;
                }
                walked += ids.len() as u64;
                if walk(v, ids) {
                    spec.done.set_atomic(v as usize);
                    return false;
                }
                true
            });
            walked
        }))
    }

    fn vertices_with_arcs(&self) -> Bitmap {
        match self.out().on_disk() {
            Some(g) => g.vertices_with_arcs(),
            None => Bitmap::from_fn(self.num_vertices(), |v| self.out().degree(v as Vertex) > 0),
        }
    }
}

/// Calls `f(v)` for every vertex of `set`, from several threads at once, and sums what it
/// returns.
fn for_each_set(set: &Bitmap, f: impl Fn(Vertex) -> u64 + Sync) -> u64 {
    set.words()
        .par_chunks(WORDS_PER_TASK)
        .enumerate()
        .map(|(t, words)| {
            let mut sum = 0;
            for (i, word) in words.iter().enumerate() {
                let base = ((t * WORDS_PER_TASK + i) * 64) as Vertex;
                crate::bitmap::for_each_in_word(word.load(Relaxed), base, |v| sum += f(v));
            }
            sum
        })
        .sum()
}

/// Per-thread buffers that an in-memory pass gathers a list and its weights into, for a
/// view that does not hold them as slices.
#[derive(Default)]
struct ListBuffers {
    ids: Vec<Vertex>,
    integers: Vec<i32>,
    floats: Vec<f32>,
}

thread_local! {
    static BUFFERS: RefCell<ListBuffers> = RefCell::default();
}

/// Hands `v`'s whole list to `f`, with its weights when `weighted`: as stored, integers when
/// every weight of the list is one (a store's weights are all i32 or all f32, and an f32
/// weight that is an integer in i32's range is that i32 exactly), floats otherwise.
fn with_list<A: Adjacency>(
    out: &A,
    v: Vertex,
    weighted: bool,
    f: impl FnOnce(&[Vertex], Weights<'_>),
) {
    if !weighted {
        if let Some(ids) = out.neighbor_slice(v) {
            return f(ids, None);
        }
    }
    // Taken out while `f` runs: a visitor that waits on other tasks may see this thread run
    // another list meanwhile.
    let mut b = BUFFERS.with(|buffers| std::mem::take(&mut *buffers.borrow_mut()));
    b.ids.clear();
    b.integers.clear();
    b.floats.clear();
    let mut integral = true;
    if weighted {
        out.for_each_weighted(v, |u, w| {
            b.ids.push(u);
            b.floats.push(w as f32);
            let i = w as i32;
            integral &= i as f64 == w;
            if integral {
                b.integers.push(i);
            }
        });
    } else {
        out.for_each_neighbor(v, |u| b.ids.push(u));
    }
    let weights = match (weighted, integral) {
        (false, _) => None,
        (true, true) => Some(WeightsRef::I32(&b.integers)),
        (true, false) => Some(WeightsRef::F32(&b.floats)),
    };
    f(&b.ids, weights);
    BUFFERS.with(|buffers| *buffers.borrow_mut() = b);
}

/// The arcs (v, u) of a graph for which `keep(v, u)` holds, decided as each list is read: a
/// graph filter without its bits, for a predicate fixed while the view is used (a
/// [`crate::GraphFilter`] is for deletions that accumulate, pack after pack). It costs no
/// memory, and each operation is the graph's own (one planned read on disk) with the lists cut
/// down to their kept ids, in pieces: so a kernel of passes runs on it unchanged. A list with
/// no kept id may not be handed over at all.
///
/// `degree` and `num_arcs` are the graph's, upper bounds of the kept ones: a caller may use them
/// to plan its work, never to count arcs or to tell when a list is whole ([`WholeLists`] does
/// not apply). First neighbours are never cheap (the store's side file knows nothing of the
/// predicate): they come from a pull that stops at each list's first kept id. No weights are
/// handed over. The view is symmetric when the graph is and `keep(v, u) == keep(u, v)`, which
/// the caller states.
pub struct PredicateView<'g, G, P> {
    g: &'g G,
    keep: P,
    symmetric: bool,
}

impl<'g, G: Traversal, P: Fn(Vertex, Vertex) -> bool + Sync> PredicateView<'g, G, P> {
    pub fn new(g: &'g G, keep: P, symmetric: bool) -> Self {
        PredicateView { g, keep, symmetric }
    }

    /// Calls `f` with the ids of `ids` (part of `v`'s list) that the predicate keeps, in
    /// order, in pieces of at most [`KEPT_PIECE`] ids, until `f` returns false; returns whether
    /// it never did. The pieces are gathered on the stack: a hub's list costs no heap.
    fn kept(&self, v: Vertex, ids: &[Vertex], mut f: impl FnMut(&[Vertex]) -> bool) -> bool {
        let mut piece = [0 as Vertex; KEPT_PIECE];
        let mut len = 0;
        for &u in ids {
            if (self.keep)(v, u) {
                piece[len] = u;
                len += 1;
                if len == KEPT_PIECE {
                    if !f(&piece) {
                        return false;
                    }
                    len = 0;
                }
            }
        }
        len == 0 || f(&piece[..len])
    }
}

/// The most kept ids [`PredicateView`] hands over at once.
const KEPT_PIECE: usize = 256;

impl<G: Traversal, P: Fn(Vertex, Vertex) -> bool + Sync> Traversal for PredicateView<'_, G, P> {
    fn num_vertices(&self) -> usize {
        self.g.num_vertices()
    }
    fn num_arcs(&self) -> u64 {
        self.g.num_arcs()
    }
    #[inline]
    fn degree(&self, v: Vertex) -> usize {
        self.g.degree(v)
    }
    fn is_symmetric(&self) -> bool {
        self.symmetric && self.g.is_symmetric()
    }
    fn has_weights(&self) -> bool {
        false
    }
    fn first_neighbors_cheap(&self) -> bool {
        false
    }

    fn pass<V>(&self, spec: &ScanSpec<'_>, visit: V) -> Result<u64, EngineError>
    where
        V: Fn(Vertex, &[Vertex], Weights<'_>) + Sync,
    {
        let spec = ScanSpec {
            ids_only: true,
            ..*spec
        };
        self.g.pass(&spec, |v, ids, _| {
            self.kept(v, ids, |kept| {
                visit(v, kept, None);
                true
            });
        })
    }

    fn with_list<F>(&self, v: Vertex, f: F) -> Result<(), EngineError>
    where
        F: FnOnce(&[Vertex], Weights<'_>),
    {
        self.g.with_list(v, |ids, _| {
            let kept: Vec<Vertex> = ids.iter().copied().filter(|&u| (self.keep)(v, u)).collect();
            f(&kept, None)
        })
    }

    fn end_lists_apart(&self) {
        self.g.end_lists_apart()
    }

    fn first_neighbors<V>(&self, set: &Bitmap, visit: V) -> Result<u64, EngineError>
    where
        V: Fn(Vertex, Vertex) + Sync,
    {
        pass_first_neighbors(self, set, visit)
    }

    fn pull<W>(&self, spec: &PullSpec<'_>, walk: W) -> Result<u64, EngineError>
    where
        W: Fn(Vertex, &[Vertex]) -> bool + Sync,
    {
        self.g
            .pull(spec, |v, ids| !self.kept(v, ids, |kept| !walk(v, kept)))
    }
}
