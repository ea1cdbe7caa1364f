//! Strongly connected components of a directed graph by colouring (Orzan 2004; Slota, Rajamanickam
//! and Madduri 2014), on out-lists only. Each round, over the vertices not yet assigned:
//!
//! 1. **Forward colouring.** Every vertex takes as colour the smallest id that reaches it, by
//!    [`edge_map`] pushing the minimum along the arcs until nothing changes.
//! 2. **Backward closure.** A vertex whose colour is its own id is the smallest of its component
//!    (every vertex of the component reaches it, so none is smaller), and its component is the
//!    vertices of its colour that reach it. A vertex of colour c joins when one of its
//!    out-neighbours of colour c has joined: pulled over the candidates' out-lists until nothing
//!    joins, so no transpose is needed.
//!
//! The joined vertices are labelled with their colour and leave the graph; each round assigns at
//! least the component of every colour. A long chain (a path, a long cycle) makes colouring
//! quadratic: one step per vertex of the chain, each over the whole frontier, and so does the
//! closure of a chain whose colour arrived in few steps (0 → 1 → … → n−1 → 0 pushed in id order
//! colours it in one, then joins one vertex a pass). So a round whose forward colouring or
//! backward closure takes more than [`MAX_COLOUR_STEPS`] steps, or a run past
//! [`MAX_ROUNDS`] rounds, hands the vertices left to a serial path-based search (Gabow 2000) on
//! the same lists, O(n + m) with an explicit stack. On a symmetric graph the strong components
//! are the connected ones: the connectivity kernel computes them.
//!
//! The labels, the smallest id of each component, are the unique answer, the same on any thread
//! count and in or out of core. State: colour, label and two flags per vertex, the frontiers, and
//! for the serial search a preorder number and three stacks: O(n).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::{
    edge_map, Adjacency, EdgeMapCounters, EdgeMapFn, EdgeMapOptions, Graph, Vertex, VertexSubset,
};

use crate::algorithm::{Algorithm, Descriptor, Needs, Params};
use crate::cc::{connected_components, CcParams};
use crate::common::{AlgoError, RunStats, StateSize, VerifyError};
use crate::registry::Values;

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): colour and label (4 bytes each),
/// the assigned and joined flags, the unassigned vertices, the frontiers and the candidates;
/// the serial search's preorder numbers and stacks.
pub const STATE: StateSize = StateSize::per_vertex(48);

/// Forward-colouring steps, and backward-closure passes, a round may take before the serial
/// search takes over.
pub const MAX_COLOUR_STEPS: usize = 64;
/// Colouring rounds before the serial search takes over.
pub const MAX_ROUNDS: u64 = 32;

const ALGORITHM: &str = "scc";
const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SccParams {}

#[derive(Debug)]
pub struct SccResult {
    /// The smallest vertex id of each vertex's strongly connected component.
    pub labels: Vec<u32>,
    /// `iterations` = rounds; extra: `components`, `largest` (vertices of the largest).
    pub stats: RunStats,
}

/// Forward colouring: a smaller colour flows along an arc into an unassigned vertex.
struct LowerColour<'a> {
    colour: &'a [AtomicU32],
    assigned: &'a [AtomicBool],
}

impl EdgeMapFn for LowerColour<'_> {
    fn update(&self, s: Vertex, d: Vertex, w: f64) -> bool {
        self.update_atomic(s, d, w)
    }
    fn update_atomic(&self, s: Vertex, d: Vertex, _w: f64) -> bool {
        let c = self.colour[s as usize].load(Relaxed);
        self.colour[d as usize].fetch_min(c, Relaxed) > c
    }
    fn cond(&self, d: Vertex) -> bool {
        !self.assigned[d as usize].load(Relaxed)
    }
}

pub fn strongly_connected_components<A: Adjacency>(
    g: &Graph<A>,
    _params: &SccParams,
) -> Result<SccResult, AlgoError> {
    if g.is_symmetric() {
        let cc = connected_components(g, &CcParams::default())?;
        return Ok(finish(
            cc.labels,
            cc.stats.iterations,
            cc.stats.edges_traversed,
        ));
    }
    let n = g.num_vertices();
    let colour: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(NONE))
        .collect();
    let label: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(NONE))
        .collect();
    let assigned: Vec<AtomicBool> = (0..n)
        .into_par_iter()
        .map(|_| AtomicBool::new(false))
        .collect();
    let joined: Vec<AtomicBool> = (0..n)
        .into_par_iter()
        .map(|_| AtomicBool::new(false))
        .collect();
    let counters = EdgeMapCounters::default();
    let opts = EdgeMapOptions::with_counters(&counters);
    let mut remaining: Vec<Vertex> = (0..n as Vertex).collect();
    let mut rounds = 0u64;
    let mut arcs_pulled = 0u64;
    let mut serial = false;
    while !remaining.is_empty() {
        if rounds == MAX_ROUNDS {
            serial = true;
            break;
        }
        rounds += 1;
        // 1. Forward colouring over the unassigned vertices.
        remaining
            .par_iter()
            .for_each(|&v| colour[v as usize].store(v, Relaxed));
        let lower = LowerColour {
            colour: &colour,
            assigned: &assigned,
        };
        let mut frontier = VertexSubset::from_ids(n, remaining.clone());
        let mut steps = 0;
        while !frontier.is_empty() && steps < MAX_COLOUR_STEPS {
            frontier = edge_map(g, &frontier, &lower, &opts);
            steps += 1;
        }
        if !frontier.is_empty() {
            serial = true;
            break;
        }
        // 2. Backward closure from the roots, pulled over the candidates' out-lists.
        remaining.par_iter().for_each(|&v| {
            joined[v as usize].store(colour[v as usize].load(Relaxed) == v, Relaxed)
        });
        let mut candidates: Vec<Vertex> = remaining
            .par_iter()
            .copied()
            .filter(|&v| !joined[v as usize].load(Relaxed))
            .collect();
        let mut passes = 0;
        let closed = loop {
            if passes == MAX_COLOUR_STEPS {
                break false;
            }
            passes += 1;
            let pulled: u64 = candidates
                .par_iter()
                .map(|&v| {
                    let c = colour[v as usize].load(Relaxed);
                    let mut scanned = 0u64;
                    g.out().try_for_each_neighbor(v, |u| {
                        scanned += 1;
                        let joins = !assigned[u as usize].load(Relaxed)
                            && joined[u as usize].load(Relaxed)
                            && colour[u as usize].load(Relaxed) == c;
                        if joins {
                            joined[v as usize].store(true, Relaxed);
                        }
                        !joins
                    });
                    scanned
                })
                .sum();
            arcs_pulled += pulled;
            let before = candidates.len();
            candidates.retain(|&v| !joined[v as usize].load(Relaxed));
            if candidates.len() == before {
                break true;
            }
        };
        if !closed {
            // Nothing of this round is assigned yet: the serial search takes every vertex left.
            serial = true;
            break;
        }
        // 3. The joined vertices take their colour as label and leave.
        remaining.par_iter().for_each(|&v| {
            if joined[v as usize].load(Relaxed) {
                label[v as usize].store(colour[v as usize].load(Relaxed), Relaxed);
                assigned[v as usize].store(true, Relaxed);
            }
        });
        remaining = remaining
            .into_par_iter()
            .filter(|&v| !assigned[v as usize].load(Relaxed))
            .collect();
        vastgraph_engine::interrupt::check();
    }
    drop(colour);
    drop(joined);
    let mut labels: Vec<u32> = label.into_par_iter().map(AtomicU32::into_inner).collect();
    let mut assigned: Vec<bool> = assigned
        .into_par_iter()
        .map(AtomicBool::into_inner)
        .collect();
    let mut serial_arcs = 0;
    if serial {
        serial_arcs = path_based(g, &remaining, &mut assigned, &mut labels);
    }
    Ok(finish(
        labels,
        rounds,
        counters.edges() + arcs_pulled + serial_arcs,
    ))
}

/// The result of `labels` (each vertex's component's smallest id), with its statistics.
fn finish(labels: Vec<u32>, rounds: u64, edges_traversed: u64) -> SccResult {
    let mut sizes = vec![0u32; labels.len()];
    for &l in &labels {
        sizes[l as usize] += 1;
    }
    let components = sizes.iter().filter(|&&s| s > 0).count() as u64;
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let stats = RunStats {
        iterations: rounds,
        edges_traversed,
        ..Default::default()
    }
    .with("components", components)
    .with("largest", largest);
    SccResult { labels, stats }
}

/// Gabow's path-based search over the vertices of `starts` not yet `assigned`, ignoring arcs
/// into assigned vertices (their components are complete): labels each component found with
/// its smallest id. Returns the arcs scanned. Iterative, with (vertex, next list position)
/// frames, so a long path needs no call stack.
fn path_based<A: Adjacency>(
    g: &Graph<A>,
    starts: &[Vertex],
    assigned: &mut [bool],
    labels: &mut [u32],
) -> u64 {
    let n = g.num_vertices();
    let mut preorder = vec![NONE; n];
    let mut next = 0u32;
    // `path`: the vertices not yet in a component, in preorder; `boundaries`: the first vertex
    // of each component candidate on the search path.
    let (mut path, mut boundaries): (Vec<Vertex>, Vec<Vertex>) = (Vec::new(), Vec::new());
    let mut frames: Vec<(Vertex, usize)> = Vec::new();
    let mut scanned_total = 0u64;
    for &root in starts {
        if assigned[root as usize] || preorder[root as usize] != NONE {
            continue;
        }
        let mut child = Some(root);
        loop {
            if let Some(u) = child.take() {
                preorder[u as usize] = next;
                next += 1;
                path.push(u);
                boundaries.push(u);
                frames.push((u, 0));
            }
            let Some(&(v, position)) = frames.last() else {
                break;
            };
            let mut scanned = 0;
            g.out().try_for_each_neighbor_from(v, position, |u| {
                scanned += 1;
                if assigned[u as usize] {
                    return true;
                }
                if preorder[u as usize] == NONE {
                    child = Some(u);
                    return false;
                }
                // u is on the path: everything after it on the path is in its component.
                while preorder[*boundaries.last().expect("v's boundary") as usize]
                    > preorder[u as usize]
                {
                    boundaries.pop();
                }
                true
            });
            scanned_total += scanned as u64;
            frames.last_mut().expect("v's frame").1 = position + scanned;
            if child.is_some() {
                continue;
            }
            frames.pop();
            if boundaries.last() == Some(&v) {
                boundaries.pop();
                let at = path
                    .iter()
                    .rposition(|&x| x == v)
                    .expect("v is on the path");
                let members = path.split_off(at);
                let smallest = *members.iter().min().expect("v is a member");
                for m in members {
                    assigned[m as usize] = true;
                    labels[m as usize] = smallest;
                }
            }
            vastgraph_engine::interrupt::check();
        }
    }
    scanned_total
}

/// Checks `result` against Tarjan's algorithm, written out serially with an explicit stack of
/// (vertex, next list position) frames: the same partition, each labelled by its smallest id.
/// O(n) memory beside the graph, as the kernel, so that a run within a budget verifies within it.
pub fn verify_scc<A: Adjacency>(g: &Graph<A>, result: &SccResult) -> Result<(), VerifyError> {
    let n = g.num_vertices();
    let fail = |message: String| Err(VerifyError::new(ALGORITHM, message));
    if result.labels.len() != n {
        return fail(format!("{} labels for {n} vertices", result.labels.len()));
    }
    // index[v]: order of discovery (NONE: not yet; DONE: its component is popped); low[v]: the
    // smallest index reached from v's search subtree by one arc into the stack.
    const DONE: u32 = NONE - 1;
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut stack: Vec<Vertex> = Vec::new();
    let mut frames: Vec<(Vertex, usize)> = Vec::new();
    let mut next_index = 0u32;
    for root in 0..n as Vertex {
        if index[root as usize] != NONE {
            continue;
        }
        let mut child = Some(root);
        loop {
            if let Some(u) = child.take() {
                index[u as usize] = next_index;
                low[u as usize] = next_index;
                next_index += 1;
                stack.push(u);
                frames.push((u, 0));
            }
            let Some(&(v, position)) = frames.last() else {
                break;
            };
            // Scan v's list from `position` to its first undiscovered neighbour.
            let mut scanned = 0;
            g.out().try_for_each_neighbor_from(v, position, |u| {
                scanned += 1;
                match index[u as usize] {
                    NONE => {
                        child = Some(u);
                        false
                    }
                    DONE => true,
                    i => {
                        low[v as usize] = low[v as usize].min(i);
                        true
                    }
                }
            });
            frames.last_mut().expect("v's frame").1 = position + scanned;
            if child.is_some() {
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let at = stack
                    .iter()
                    .rposition(|&x| x == v)
                    .expect("v is on the stack");
                let members = stack.split_off(at);
                let smallest = *members.iter().min().expect("v is a member");
                for &m in &members {
                    index[m as usize] = DONE;
                    if result.labels[m as usize] != smallest {
                        return fail(format!(
                            "vertex {m} is labelled {}, but its component's smallest id is {smallest}",
                            result.labels[m as usize]
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// `scc` in the registry.
pub struct Scc;

impl Algorithm for Scc {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "scc",
        summary: "strongly connected components of a directed graph, label = smallest id in the component",
        params: &[],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: false,
        vertex_values: crate::algorithm::VertexValues::Yes,
        conflicts: &[],
        state_in_passes: None,
    };
    type Params = SccParams;
    type Result = SccResult;
    fn params<A: Adjacency>(_given: &Params, _g: &Graph<A>) -> Result<SccParams, AlgoError> {
        Ok(SccParams {})
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &SccParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<SccResult, AlgoError> {
        strongly_connected_components(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        _q: &SccParams,
        r: &SccResult,
    ) -> Result<(), VerifyError> {
        verify_scc(g, r)
    }
    fn output(r: SccResult, _q: &SccParams) -> (Option<Values>, RunStats) {
        (Some(Values::U32(r.labels)), r.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    fn labels(n: usize, edges: &[(Vertex, Vertex)]) -> Vec<u32> {
        let g = InMemoryGraph::from_edges(n, edges, false);
        let r = strongly_connected_components(&g.view(), &SccParams {}).unwrap();
        verify_scc(&g.view(), &r).unwrap();
        r.labels
    }

    #[test]
    fn cycles_chains_and_self_loops_are_labelled_by_their_smallest_id() {
        // 3 → 1 → 2 → 3 is a cycle; 0 → 1 and 2 → 4 → 5 hang off it; 6 has a self-loop.
        let edges = [
            (3, 1),
            (1, 2),
            (2, 3),
            (0, 1),
            (2, 4),
            (4, 5),
            (6, 6),
            (5, 4),
        ];
        assert_eq!(labels(7, &edges), vec![0, 1, 1, 1, 4, 4, 6]);
        assert_eq!(labels(0, &[]), Vec::<u32>::new());
        // A path: one component per vertex, one round each.
        let path: Vec<_> = (0..20).map(|v| (v + 1, v)).collect();
        assert_eq!(labels(21, &path), (0..21).collect::<Vec<u32>>());
    }

    #[test]
    fn long_chains_finish_in_the_serial_search_with_the_same_labels() {
        // A directed cycle of 5,000 and a path 0 → 1 → ... into it: colouring would take a
        // step per vertex; the serial search takes over.
        let n = 10_000u32;
        let mut edges: Vec<(Vertex, Vertex)> = (5_000..n).map(|v| (v, v + 1)).collect();
        edges.pop();
        edges.push((n - 1, 5_000));
        edges.extend((0..5_000).map(|v| (v, v + 1)));
        let got = labels(n as usize, &edges);
        let want: Vec<u32> = (0..n).map(|v| v.min(5_000)).collect();
        assert_eq!(got, want);
        // A cycle in id order, 0 → 1 → … → n−1 → 0: pushed in id order, the colour 0 runs
        // round it in a step or two, and the closure joins one vertex a pass (n²/2 arcs, where
        // the serial search takes n).
        let n = 20_000u32;
        let cycle: Vec<(Vertex, Vertex)> = (0..n).map(|v| (v, (v + 1) % n)).collect();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let g = InMemoryGraph::from_edges(n as usize, &cycle, false);
            let r = pool
                .install(|| strongly_connected_components(&g.view(), &SccParams {}))
                .unwrap();
            assert!(r.labels.iter().all(|&l| l == 0));
            let arcs = r.stats.edges_traversed;
            assert!(
                arcs < 300 * n as u64,
                "{threads} threads: {arcs} arcs traversed"
            );
        }
        // Symmetric: the connected components.
        let g = InMemoryGraph::from_edges(6, &[(0, 1), (2, 3), (3, 4)], true);
        let r = strongly_connected_components(&g.view(), &SccParams {}).unwrap();
        assert_eq!(r.labels, vec![0, 0, 2, 2, 2, 5]);
    }

    #[test]
    fn the_verifier_refuses_a_wrong_partition() {
        let g = InMemoryGraph::from_edges(3, &[(0, 1), (1, 0), (1, 2)], false);
        let wrong = SccResult {
            labels: vec![0, 0, 0],
            stats: RunStats::default(),
        };
        assert!(verify_scc(&g.view(), &wrong).is_err());
        let right = SccResult {
            labels: vec![0, 0, 2],
            stats: RunStats::default(),
        };
        assert!(verify_scc(&g.view(), &right).is_ok());
    }
}
