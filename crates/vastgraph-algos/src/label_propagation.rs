//! Community detection by synchronous label propagation (as in PartitionedVC): labels start as
//! the vertex ids; every round, every vertex takes the most frequent label among its
//! in-neighbours' labels of the previous round (ties → the smallest label; a vertex without
//! in-neighbours keeps its label). Stops when no label changes or after `max_iters` rounds.
//!
//! Synchronous LPA need not converge: on a bipartite graph two sides can swap labels forever
//! (a single edge 0–1 flips between {0,1} and {1,0}), hence the cap; `converged` in the stats
//! says which case ended the run. On a symmetric graph "in-neighbours" are the neighbours; on a
//! directed graph labels flow along the arcs, which needs the stored transpose. Every round reads
//! only the previous round's labels, so the result is the same for every thread count. State:
//! two label arrays: O(n). Where the store has tiles (`vastgraph tile`) and the labels (4n
//! bytes) take a quarter of the last-level cache or more, a round gathers each column of
//! targets' in-neighbours' labels from the tiles instead of the in-lists (the same multisets,
//! so the same labels), one column's in-arcs buffered a thread: the sources come in order, a
//! block at a time, where the in-lists read the labels at random. Below that the labels stay
//! in cache and the gather's two extra passes over the arcs cost more (10 rounds on Kronecker
//! 20, 4 MiB of labels: 1.05 s over tiles, 0.80 s over lists; Kronecker 22, 16 MiB: 4.5–4.8 s
//! against 4.9–5.6 s). Out of core (`--memory`) a round is one streamed pass over the tiles
//! whatever the size, where the in-lists would be read a block at a time. `layout` in the stats
//! says which.
//!
//! The semi-synchronous schedule (Cordasco and Gargano, 2010; NetworkX's
//! `label_propagation_communities`) needs a symmetric graph. The vertices are coloured greedily
//! in order of decreasing degree (ties by id), each taking the smallest colour none of its
//! neighbours holds; then every round updates the colour classes one after another, in colour
//! order, each class at once from its neighbours' current labels (no two vertices of a class
//! are adjacent, so the order within a class does not matter). A vertex keeps its label when it
//! is among its neighbours' most frequent, and otherwise takes the largest of those ("Prec-Max").
//! The run stops after a round that changes no label: every vertex's label is then among its
//! neighbours' most frequent, which is where NetworkX stops (a round earlier: it checks before
//! each round). This schedule converges (the paper's theorem); `max_iters` still caps it. The
//! result equals NetworkX's on the same graph with nodes in id order. State: labels, colours and
//! the vertices grouped by colour, 12 bytes a vertex, and 4 more while colouring.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::tiles::last_level_cache_bytes;
use vastgraph_engine::{Adjacency, Bitmap, CsrAdjacency, Graph, Traversal, Vertex};

use crate::checkpoint::{self, Checkpoint, Column, State};
use crate::common::{read_error, AlgoError, RunStats, StateSize, VerifyError};

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): two label arrays and the changed
/// flags.
pub const STATE: StateSize = StateSize::per_vertex(16);

const ALGORITHM: &str = "label-propagation";

/// In which order a round updates the labels: see the module documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Schedule {
    /// Every vertex from the previous round's labels.
    #[default]
    Synchronous,
    /// Colour class by colour class, from the current labels.
    SemiSynchronous,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct LabelPropagationParams {
    pub max_iters: u32,
    pub schedule: Schedule,
}

impl Default for LabelPropagationParams {
    fn default() -> Self {
        LabelPropagationParams {
            max_iters: 20,
            schedule: Schedule::Synchronous,
        }
    }
}

#[derive(Debug)]
pub struct LabelPropagationResult {
    /// Community label (a vertex id) of every vertex.
    pub labels: Vec<u32>,
    /// `iterations` = rounds run; extra: `converged` (the last round changed nothing),
    /// `changed_last_round`, `communities` (distinct labels).
    pub stats: RunStats,
}

/// The most frequent value in `labels` (sorted here), the smallest among equally frequent ones.
fn most_frequent(labels: &mut [u32]) -> Option<u32> {
    labels.sort_unstable();
    let mut best: Option<(usize, u32)> = None;
    for run in labels.chunk_by(|a, b| a == b) {
        if best.is_none_or(|(count, _)| run.len() > count) {
            best = Some((run.len(), run[0]));
        }
    }
    best.map(|(_, label)| label)
}

pub fn label_propagation<A: Adjacency>(
    g: &Graph<A>,
    params: &LabelPropagationParams,
) -> Result<LabelPropagationResult, AlgoError> {
    label_propagation_resumable(g, params, None)
}

/// [`label_propagation`], saving the labels to `checkpoint` after rounds, or continuing from
/// the labels saved there.
pub fn label_propagation_resumable<A: Adjacency>(
    g: &Graph<A>,
    params: &LabelPropagationParams,
    checkpoint: Option<&Checkpoint>,
) -> Result<LabelPropagationResult, AlgoError> {
    if params.schedule == Schedule::SemiSynchronous {
        return semi_synchronous(g, params, checkpoint);
    }
    let n = g.num_vertices();
    // The tiles hold every vertex's in-arcs too, by column: read when the labels outgrow the
    // cache, always out of core, where the in-lists are read a block at a time (see the module
    // documentation), and on a directed store without a transpose, whose in-arcs they alone hold.
    let incoming = g.incoming();
    let on_tiles = g.has_tiles()
        && (incoming.is_none()
            || g.out().on_disk().is_some()
            || 4 * n >= last_level_cache_bytes() / 4);
    if incoming.is_none() && !on_tiles {
        return Err(match g.out().on_disk() {
            Some(ooc) => AlgoError::NeedsTilesOutOfCore {
                algorithm: ALGORITHM,
                has_tiles: ooc.manifest().tiles.is_some(),
                tiles_budget: ooc.tiles_budget(),
                in_memory: None,
            },
            None => AlgoError::NeedsTranspose {
                algorithm: ALGORITHM,
            },
        });
    }
    let (mut rounds, mut changed) = (0u64, 0u64);
    let mut labels: Vec<u32> = match checkpoint::begin(checkpoint, ALGORITHM, params)? {
        Some(mut saved) => {
            rounds = saved.iteration;
            changed = saved.u64("changed")?;
            saved.column("labels", n)?
        }
        None => (0..n as u32).collect(),
    };
    let mut next = vec![0u32; n];
    while rounds < params.max_iters as u64 {
        rounds += 1;
        changed = match on_tiles {
            true => {
                let changed = AtomicU64::new(0);
                g.gather_in_arcs(&labels, &mut next, |first, starts, seen, out| {
                    let mut count = 0;
                    for (t, slot) in out.iter_mut().enumerate() {
                        let own = labels[first + t];
                        *slot = most_frequent(&mut seen[starts[t]..starts[t + 1]]).unwrap_or(own);
                        count += (*slot != own) as u64;
                    }
                    changed.fetch_add(count, Relaxed);
                })
                .map_err(read_error(ALGORITHM))?;
                changed.into_inner()
            }
            // Leaves of at most 1024 vertices: see `vastgraph_engine::bitmap::WORDS_PER_TASK`.
            false => {
                let incoming = incoming.expect("the in-lists, checked above");
                next.par_iter_mut()
                    .with_max_len(1024)
                    .enumerate()
                    .map_init(Vec::new, |seen: &mut Vec<u32>, (v, slot)| {
                        seen.clear();
                        incoming.for_each_neighbor(v as Vertex, |u| seen.push(labels[u as usize]));
                        *slot = most_frequent(seen).unwrap_or(labels[v]);
                        (*slot != labels[v]) as u64
                    })
                    .sum()
            }
        };
        std::mem::swap(&mut labels, &mut next);
        if changed == 0 {
            break;
        }
        checkpoint::after_iteration(checkpoint, ALGORITHM, params, rounds, || {
            State::new(vec![Column::of("labels", &labels)]).with("changed", changed)
        })?;
    }
    drop(next);
    let mut result = finish(g, labels, rounds, changed);
    result.stats = result
        .stats
        .with("layout", crate::pagerank::layout_name(on_tiles));
    Ok(result)
}

/// The result and its statistics after `rounds` rounds, the last of which changed `changed`
/// labels.
fn finish<A: Adjacency>(
    g: &Graph<A>,
    labels: Vec<u32>,
    rounds: u64,
    changed: u64,
) -> LabelPropagationResult {
    let n = labels.len();
    let used = Bitmap::new(n);
    labels.par_iter().for_each(|&l| {
        used.set_atomic(l as usize);
    });
    let stats = RunStats {
        iterations: rounds,
        edges_traversed: rounds * g.num_arcs(),
        ..Default::default()
    }
    .with("converged", (changed == 0 && rounds > 0) || n == 0)
    .with("changed_last_round", changed)
    .with("communities", used.count_ones() as u64);
    LabelPropagationResult { labels, stats }
}

/// Prec-Max: `current` when it is among the most frequent of `labels` (sorted here), else the
/// largest of the most frequent; `current` when `labels` is empty.
fn prec_max(labels: &mut [u32], current: u32) -> u32 {
    labels.sort_unstable();
    let (mut best, mut largest, mut own) = (0, current, 0);
    for run in labels.chunk_by(|a, b| a == b) {
        if run.len() >= best {
            (best, largest) = (run.len(), run[0]);
        }
        if run[0] == current {
            own = run.len();
        }
    }
    if own == best || labels.is_empty() {
        current
    } else {
        largest
    }
}

/// The greedy colouring in order of decreasing degree (ties by id): each vertex takes the
/// smallest colour none of its coloured neighbours holds. Serial: each choice depends on the
/// ones before it. Returns the vertices grouped by colour (ids increasing within a group) and
/// where each group starts.
fn colour_classes<A: Adjacency>(out: &A, n: usize) -> (Vec<u32>, Vec<usize>) {
    let mut order: Vec<u32> = (0..n as u32).collect();
    // Stable: equal degrees stay in id order.
    order.par_sort_by_key(|&v| std::cmp::Reverse(out.degree(v)));
    const NONE: u32 = u32::MAX;
    let mut colour = vec![NONE; n];
    // taken[c] == u: a neighbour of u holds colour c.
    let mut taken: Vec<u32> = Vec::new();
    for &u in &order {
        out.for_each_neighbor(u, |v| {
            let c = colour[v as usize];
            if c != NONE {
                taken[c as usize] = u;
            }
        });
        let free = taken.iter().position(|&t| t != u).unwrap_or(taken.len());
        if free == taken.len() {
            taken.push(NONE);
        }
        colour[u as usize] = free as u32;
    }
    drop(order);
    // A counting sort of the vertices by colour.
    let mut starts = vec![0usize; taken.len() + 1];
    for &c in &colour {
        starts[c as usize + 1] += 1;
    }
    for c in 0..taken.len() {
        starts[c + 1] += starts[c];
    }
    let mut next = starts.clone();
    let mut members = vec![0u32; n];
    for (v, &c) in colour.iter().enumerate() {
        members[next[c as usize]] = v as u32;
        next[c as usize] += 1;
    }
    (members, starts)
}

/// The run that refuses a directed graph, as its refusal names it.
const SEMI_SYNCHRONOUS_RUN: &str = "label-propagation --schedule semi-synchronous";

/// The semi-synchronous schedule; see the module documentation.
fn semi_synchronous<A: Adjacency>(
    g: &Graph<A>,
    params: &LabelPropagationParams,
    checkpoint: Option<&Checkpoint>,
) -> Result<LabelPropagationResult, AlgoError> {
    if !g.is_symmetric() {
        return Err(AlgoError::NeedsSymmetric {
            algorithm: SEMI_SYNCHRONOUS_RUN,
        });
    }
    let (out, n) = (g.out(), g.num_vertices());
    let (members, starts) = colour_classes(out, n);
    let (mut rounds, mut changed) = (0u64, 0u64);
    let mut labels: Vec<u32> = match checkpoint::begin(checkpoint, ALGORITHM, params)? {
        Some(mut saved) => {
            rounds = saved.iteration;
            changed = saved.u64("changed")?;
            saved.column("labels", n)?
        }
        None => (0..n as u32).collect(),
    };
    let mut updated: Vec<u32> = Vec::new();
    while rounds < params.max_iters as u64 && !(rounds > 0 && changed == 0) {
        rounds += 1;
        changed = 0;
        for class in starts.windows(2) {
            let class = &members[class[0]..class[1]];
            // No two vertices of a class are adjacent: each reads only other classes' labels.
            class
                .par_iter()
                .with_max_len(1024)
                .map_init(Vec::new, |seen: &mut Vec<u32>, &v| {
                    seen.clear();
                    out.for_each_neighbor(v, |u| seen.push(labels[u as usize]));
                    prec_max(seen, labels[v as usize])
                })
                .collect_into_vec(&mut updated);
            for (&v, &label) in class.iter().zip(&updated) {
                changed += (labels[v as usize] != label) as u64;
                labels[v as usize] = label;
            }
        }
        checkpoint::after_iteration(checkpoint, ALGORITHM, params, rounds, || {
            State::new(vec![Column::of("labels", &labels)]).with("changed", changed)
        })?;
    }
    Ok(finish(g, labels, rounds, changed))
}

/// The in-lists of a graph of `n` vertices from its out-lists `out`: offsets and sources, in
/// CSR order (a verifier's serial transpose, O(m) words).
fn in_lists_of<A: Adjacency>(out: &A, n: usize) -> (Vec<u64>, Vec<Vertex>) {
    let mut offsets = vec![0u64; n + 1];
    for v in 0..n as Vertex {
        out.for_each_neighbor(v, |u| offsets[u as usize + 1] += 1);
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut next = offsets[..n].to_vec();
    let mut sources = vec![0; offsets[n] as usize];
    for v in 0..n as Vertex {
        out.for_each_neighbor(v, |u| {
            sources[next[u as usize] as usize] = v;
            next[u as usize] += 1;
        });
    }
    (offsets, sources)
}

/// Re-runs the rule serially (counting labels in a hash map) for the same number of rounds and
/// demands the same labels; when the run reports convergence, also checks the fixed point:
/// every vertex with in-neighbours holds one of their most frequent labels.
pub fn verify_label_propagation<A: Adjacency>(
    g: &Graph<A>,
    params: &LabelPropagationParams,
    result: &LabelPropagationResult,
) -> Result<(), VerifyError> {
    if params.schedule == Schedule::SemiSynchronous {
        return verify_semi_synchronous(g, params, result);
    }
    let n = g.num_vertices();
    if result.labels.len() != n {
        return Err(VerifyError::new(
            ALGORITHM,
            format!("{} labels for {n} vertices", result.labels.len()),
        ));
    }
    match g.incoming() {
        Some(incoming) => rerun_along(incoming, params, result),
        // A directed store without a transpose (the kernel read its in-arcs from the tiles):
        // the in-lists are gathered here from the out-lists, independently of the tiles.
        None => {
            let (offsets, sources) = in_lists_of(g.out(), n);
            rerun_along(&CsrAdjacency::new(&offsets, &sources, None), params, result)
        }
    }
}

/// [`verify_label_propagation`]'s re-run and fixed-point check along the in-lists `incoming`.
fn rerun_along<I: Adjacency>(
    incoming: &I,
    params: &LabelPropagationParams,
    result: &LabelPropagationResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = result.labels.len();
    let counts_around = |v: Vertex, labels: &[u32]| {
        let mut counts: HashMap<u32, u32> = HashMap::new();
        incoming.for_each_neighbor(v, |u| *counts.entry(labels[u as usize]).or_default() += 1);
        counts
    };
    let mut labels: Vec<u32> = (0..n as u32).collect();
    for _ in 0..params.max_iters {
        let next: Vec<u32> = (0..n as Vertex)
            .map(|v| {
                let counts = counts_around(v, &labels);
                let top = counts.values().copied().max();
                counts
                    .iter()
                    .filter(|&(_, &c)| Some(c) == top)
                    .map(|(&l, _)| l)
                    .min()
                    .unwrap_or(labels[v as usize])
            })
            .collect();
        let same = next == labels;
        labels = next;
        if same {
            break;
        }
    }
    if let Some(v) = (0..n).find(|&v| labels[v] != result.labels[v]) {
        return fail(format!(
            "vertex {v}: label {}, a serial re-run gives {}",
            result.labels[v], labels[v]
        ));
    }
    if result
        .stats
        .extra
        .get("converged")
        .and_then(|c| c.as_bool())
        == Some(true)
    {
        for v in 0..n as Vertex {
            let counts = counts_around(v, &result.labels);
            let top = counts.values().copied().max();
            if top.is_some() && counts.get(&result.labels[v as usize]).copied() != top {
                return fail(format!(
                    "converged, but vertex {v}'s label is not among its neighbours' most frequent"
                ));
            }
        }
    }
    Ok(())
}

/// Re-runs the semi-synchronous schedule as NetworkX writes it (a colouring by a degree-ordered
/// greedy pass, label counts in a hash map, rounds until every label is among its neighbours'
/// most frequent) and demands the same labels.
fn verify_semi_synchronous<A: Adjacency>(
    g: &Graph<A>,
    params: &LabelPropagationParams,
    result: &LabelPropagationResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let (out, n) = (g.out(), g.num_vertices());
    if result.labels.len() != n {
        return fail(format!("{} labels for {n} vertices", result.labels.len()));
    }
    let neighbours = |v: usize| {
        let mut list = Vec::new();
        out.for_each_neighbor(v as Vertex, |u| list.push(u as usize));
        list
    };
    let mut by_degree: Vec<usize> = (0..n).collect();
    by_degree.sort_by_key(|&v| std::cmp::Reverse(out.degree(v as Vertex)));
    let mut colour: HashMap<usize, usize> = HashMap::new();
    for &u in &by_degree {
        let held: std::collections::HashSet<usize> = neighbours(u)
            .iter()
            .filter_map(|v| colour.get(v).copied())
            .collect();
        colour.insert(u, (0..).find(|c| !held.contains(c)).unwrap());
    }
    let colours = colour.values().max().map_or(0, |&c| c + 1);
    let mut classes: Vec<Vec<usize>> = vec![Vec::new(); colours];
    for &u in &by_degree {
        classes[colour[&u]].push(u);
    }
    let most_frequent = |v: usize, labels: &[u32]| -> Vec<u32> {
        let mut counts: HashMap<u32, usize> = HashMap::new();
        for u in neighbours(v) {
            *counts.entry(labels[u]).or_default() += 1;
        }
        let top = counts.values().copied().max().unwrap_or(0);
        counts
            .into_iter()
            .filter(|&(_, c)| c == top)
            .map(|(l, _)| l)
            .collect()
    };
    let complete = |labels: &[u32]| {
        (0..n)
            .all(|v| out.degree(v as Vertex) == 0 || most_frequent(v, labels).contains(&labels[v]))
    };
    let mut labels: Vec<u32> = (0..n as u32).collect();
    let mut rounds = 0;
    while rounds < params.max_iters && !complete(&labels) {
        rounds += 1;
        for class in &classes {
            for &v in class {
                let high = most_frequent(v, &labels);
                if !high.is_empty() && !high.contains(&labels[v]) {
                    labels[v] = *high.iter().max().unwrap();
                }
            }
        }
    }
    if let Some(v) = (0..n).find(|&v| labels[v] != result.labels[v]) {
        return fail(format!(
            "vertex {v}: label {}, a serial semi-synchronous re-run gives {}",
            result.labels[v], labels[v]
        ));
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Descriptor, Needs, Param, Params};
use crate::registry::Values;

pub const MAX_ITERS: Param = Param::count("max_iters", 20, 0, "the most rounds");
pub const SCHEDULE: Param = Param::choice(
    "schedule",
    &["synchronous", "semi-synchronous"],
    "synchronous (every vertex from the last round's labels) or semi-synchronous (colour class by colour class, as NetworkX's label_propagation_communities; symmetric graphs)",
);
/// `label-propagation` in the registry.
pub struct LabelPropagation;

impl Algorithm for LabelPropagation {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "label-propagation",
        summary: "community labels by label propagation",
        params: &[MAX_ITERS, SCHEDULE],
        needs: Needs {
            symmetric: false,
            transpose: true,
            weights: None,
            symmetric_for: Some((&SCHEDULE, "semi-synchronous", SEMI_SYNCHRONOUS_RUN)),
        },
        state: STATE,
        resumable: true,
        vertex_values: crate::algorithm::VertexValues::Yes,
        conflicts: &[],
        state_in_passes: None,
    };
    type Params = LabelPropagationParams;
    type Result = LabelPropagationResult;
    fn params<A: Adjacency>(
        given: &Params,
        _g: &Graph<A>,
    ) -> Result<LabelPropagationParams, AlgoError> {
        Ok(LabelPropagationParams {
            max_iters: given.count(&MAX_ITERS).min(u32::MAX as u64) as u32,
            schedule: match given.choice(&SCHEDULE) {
                "semi-synchronous" => Schedule::SemiSynchronous,
                _ => Schedule::Synchronous,
            },
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &LabelPropagationParams,
        checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<LabelPropagationResult, AlgoError> {
        label_propagation_resumable(g, q, checkpoint)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &LabelPropagationParams,
        r: &LabelPropagationResult,
    ) -> Result<(), VerifyError> {
        verify_label_propagation(g, q, r)
    }
    fn output(
        r: LabelPropagationResult,
        _q: &LabelPropagationParams,
    ) -> (Option<Values>, RunStats) {
        (Some(Values::U32(r.labels)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn two_cliques_with_a_bridge_settle_on_two_labels() {
        let clique =
            |base: u32| (0..5u32).flat_map(move |u| (u + 1..5).map(move |v| (base + u, base + v)));
        let edges: Vec<(u32, u32)> = clique(0).chain(clique(5)).chain([(4, 5)]).collect();
        let g = InMemoryGraph::from_edges(10, &edges, true);
        let params = LabelPropagationParams::default();
        let r = label_propagation(&g.view(), &params).unwrap();
        verify_label_propagation(&g.view(), &params, &r).unwrap();
        assert_eq!(r.stats.extra["converged"], true);
        assert_eq!(r.labels[..5], [r.labels[0]; 5]);
        assert_eq!(r.labels[5..], [r.labels[5]; 5]);
        assert_ne!(r.labels[0], r.labels[5]);
    }

    #[test]
    fn one_edge_oscillates_until_the_cap() {
        let g = InMemoryGraph::from_edges(2, &[(0, 1)], true);
        let params = LabelPropagationParams {
            max_iters: 5,
            ..Default::default()
        };
        let r = label_propagation(&g.view(), &params).unwrap();
        assert_eq!(r.stats.iterations, 5);
        assert_eq!(r.stats.extra["converged"], false);
        assert_eq!(r.labels, vec![1, 0]);
        verify_label_propagation(&g.view(), &params, &r).unwrap();
        assert_eq!(most_frequent(&mut [3, 1, 3, 1, 2]), Some(1));
    }

    #[test]
    fn the_semi_synchronous_schedule_matches_its_serial_rerun_and_converges() {
        let semi = LabelPropagationParams {
            max_iters: 1000,
            schedule: Schedule::SemiSynchronous,
        };
        // A random graph with uneven degrees (many ties in the colouring order), and the
        // single edge on which the synchronous schedule never settles.
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        let edges: Vec<(u32, u32)> = (0..3000)
            .map(|_| (next() % 500, next() % (1 + next() % 500)))
            .collect();
        for (n, edges) in [(500, edges), (2, vec![(0, 1)])] {
            let g = InMemoryGraph::from_edges(n, &edges, true);
            let r = label_propagation(&g.view(), &semi).unwrap();
            assert_eq!(r.stats.extra["converged"], true);
            verify_label_propagation(&g.view(), &semi, &r).unwrap();
            let mut wrong = r.labels.clone();
            wrong[0] ^= 1;
            let forged = LabelPropagationResult {
                labels: wrong,
                stats: RunStats::default(),
            };
            assert!(verify_label_propagation(&g.view(), &semi, &forged).is_err());
        }
        assert_eq!(
            prec_max(&mut [3, 1, 3, 1, 2], 1),
            1,
            "kept: among the most frequent"
        );
        assert_eq!(
            prec_max(&mut [3, 1, 3, 1, 2], 2),
            3,
            "else the largest of them"
        );
        assert_eq!(prec_max(&mut [], 9), 9);
    }

    #[test]
    fn the_semi_synchronous_schedule_refuses_a_directed_graph() {
        let g = InMemoryGraph::from_edges(2, &[(0, 1)], false);
        let semi = LabelPropagationParams {
            schedule: Schedule::SemiSynchronous,
            ..Default::default()
        };
        assert!(matches!(
            label_propagation(&g.view(), &semi),
            Err(AlgoError::NeedsSymmetric { .. })
        ));
    }
}
