//! Uniform random walks along out-arcs, from given sources or from every k-th vertex.
//!
//! Walk i starts at its source; its step j goes to the out-neighbour at index
//! `hash(seed, i, j) mod degree` (multiply-shift, no modulo bias), so every walk depends on
//! (seed, i) alone, whatever the thread count. A walk that reaches a vertex without out-arcs
//! stops there; the rest of its row is padded with [`WALK_END`] (u32::MAX, never a vertex id).
//! State: the output, walks × (length + 1) ids.
//!
//! On lists on disk, where a step of each walk would be a read of its own, the walks move
//! together ([`in_passes`]): step j sorts the live walks by the vertex they stand on and makes
//! one pass over those vertices' lists, in which every walk standing on a vertex takes its
//! step. The same hash picks the same neighbour, so the walks are the in-memory ones.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::memory::huge_page_vec;
use vastgraph_engine::ooc::ScanSpec;
use vastgraph_engine::traverse::WholeLists;
use vastgraph_engine::{Adjacency, Bitmap, Graph, Traversal, Vertex};

use crate::common::{check_source, read_error, AlgoError, RunStats, StateSize, VerifyError};
use crate::hashing::{below, seeded_hash2};
use crate::serial_check::has_arc;

/// The DRAM the kernel keeps beside the graph ([`StateSize`]): the walks (one row of ids per walk)
/// for the default start vertices and length; a longer output is checked against the budget by the
/// kernel.
pub const STATE: StateSize = StateSize::per_vertex(56);

const ALGORITHM: &str = "random-walk";

/// Padding after a walk stopped at a vertex without out-arcs.
pub const WALK_END: u32 = u32::MAX;

#[derive(Clone, Debug, serde::Serialize)]
pub struct RandomWalkParams {
    /// Start vertices, one walk each (repeats allowed). None: every `every`-th vertex
    /// (0, every, 2·every, ...).
    pub sources: Option<Vec<u64>>,
    pub every: u64,
    /// Steps per walk; a row holds `length + 1` vertices.
    pub length: usize,
    pub seed: u64,
}

impl Default for RandomWalkParams {
    fn default() -> Self {
        RandomWalkParams {
            sources: None,
            every: 1,
            length: 10,
            seed: 1,
        }
    }
}

#[derive(Debug)]
pub struct RandomWalkResult {
    /// Row-major walks × (length + 1): row i is walk i, starting at its source.
    pub walks: Vec<u32>,
    pub num_walks: usize,
    /// Vertices per row: length + 1.
    pub row_len: usize,
    /// `iterations` = length; `edges_traversed` = steps taken; extra: `walks`, `stopped_early`.
    pub stats: RunStats,
}

impl RandomWalkResult {
    pub fn walk(&self, i: usize) -> &[u32] {
        &self.walks[i * self.row_len..(i + 1) * self.row_len]
    }
}

/// The walk start vertices the parameters ask for.
fn starts<A: Adjacency>(g: &Graph<A>, params: &RandomWalkParams) -> Result<Vec<Vertex>, AlgoError> {
    match &params.sources {
        Some(sources) => sources.iter().map(|&s| check_source(g, s)).collect(),
        None if params.every == 0 => Err(AlgoError::InvalidParameter {
            algorithm: ALGORITHM,
            message: "every must be at least 1".into(),
        }),
        None => Ok((0..g.num_vertices() as u64)
            .step_by(params.every as usize)
            .map(|v| v as Vertex)
            .collect()),
    }
}

pub fn random_walks<A: Adjacency>(
    g: &Graph<A>,
    params: &RandomWalkParams,
) -> Result<RandomWalkResult, AlgoError> {
    let starts = starts(g, params)?;
    let shape = params
        .length
        .checked_add(1)
        .and_then(|row| Some((row, row.checked_mul(starts.len())?)));
    let Some((row_len, total)) = shape else {
        return Err(AlgoError::InvalidParameter {
            algorithm: ALGORITHM,
            message: format!(
                "{} walks of length {} do not fit in memory",
                starts.len(),
                params.length
            ),
        });
    };
    vastgraph_engine::memory::ensure_fits(
        &format!("{} walks of length {}", starts.len(), params.length),
        (total as u64).saturating_mul(std::mem::size_of::<u32>() as u64),
    )
    .map_err(|message| AlgoError::InvalidParameter {
        algorithm: ALGORITHM,
        message,
    })?;
    let num_walks = starts.len();
    let (walks, steps, stopped) = match g.out().on_disk() {
        Some(_) => in_passes(g, params.seed, starts, row_len)?,
        None => in_memory(g, params.seed, &starts, row_len, total),
    };
    let stats = RunStats {
        iterations: params.length as u64,
        edges_traversed: steps,
        ..Default::default()
    }
    .with("walks", num_walks as u64)
    .with("stopped_early", stopped);
    Ok(RandomWalkResult {
        walks,
        num_walks,
        row_len,
        stats,
    })
}

/// The walks one at a time, each step a lookup in the mapped lists: (walks, steps taken, walks
/// stopped at a vertex without out-arcs).
fn in_memory<A: Adjacency>(
    g: &Graph<A>,
    seed: u64,
    starts: &[Vertex],
    row_len: usize,
    total: usize,
) -> (Vec<u32>, u64, u64) {
    let out = g.out();
    let mut walks = vec![WALK_END; total];
    let (steps, stopped): (u64, u64) = walks
        .par_chunks_mut(row_len)
        .zip(starts.par_iter())
        .enumerate()
        .map(|(i, (row, &start))| {
            row[0] = start;
            let mut at = start;
            for (j, slot) in row.iter_mut().enumerate().skip(1) {
                let degree = out.degree(at);
                if degree == 0 {
                    return (j as u64 - 1, 1);
                }
                let pick = pick(seed, i, j, degree);
                out.for_each_neighbor_in(at, pick, pick + 1, |next, _| at = next);
                *slot = at;
            }
            (row_len as u64 - 1, 0)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    (walks, steps, stopped)
}

/// Bytes of state [`in_passes`] keeps: the walks, one sort key a walk (the start vertices,
/// half that, are dropped before the keys are made), and the bitmap of the vertices a step
/// reads.
pub fn state_in_passes(n: u64, walks: u64, row_len: u64) -> u64 {
    walks
        .saturating_mul(row_len.saturating_mul(4).saturating_add(8))
        .saturating_add(n.div_ceil(64) * 8)
}

/// The index in its list of the neighbour walk `walk` goes to at step `step` from a vertex of
/// `degree` out-arcs: the walks depend on (seed, walk) alone, whichever branch moves them.
#[inline]
fn pick(seed: u64, walk: usize, step: usize, degree: usize) -> usize {
    below(seeded_hash2(seed, walk as u64, step as u64), degree as u64) as usize
}

/// A live walk's sort key: the vertex it stands on, then its index.
#[inline]
fn standing(at: Vertex, walk: usize) -> u64 {
    (at as u64) << 32 | walk as u64
}

/// The walks all together over any [`Traversal`], a pass a step (see the module
/// documentation): (walks, steps taken, walks stopped at a vertex without out-arcs).
pub fn in_passes<G: Traversal>(
    g: &G,
    seed: u64,
    starts: Vec<Vertex>,
    row_len: usize,
) -> Result<(Vec<u32>, u64, u64), AlgoError> {
    let count = starts.len();
    if count > u32::MAX as usize {
        return Err(AlgoError::InvalidParameter {
            algorithm: ALGORITHM,
            message: format!("{count} walks: at most 2^32 walk together over lists on disk"),
        });
    }
    let walks: Vec<AtomicU32> = huge_page_vec(count * row_len, |k| {
        AtomicU32::new(match k % row_len {
            0 => starts[k / row_len],
            _ => WALK_END,
        })
    });
    drop(starts);
    // The walks still moving, by the vertex they stand on: a walk leaves for good at a vertex
    // without out-arcs, so each step sorts only the walks that took the previous one.
    let mut keys: Vec<u64> = (0..count)
        .into_par_iter()
        .map(|i| standing(walks[i * row_len].load(Relaxed), i))
        .collect();
    let lists = WholeLists::new(g);
    let (mut steps, mut stopped) = (0u64, 0u64);
    for j in 1..row_len {
        // Walks that stand on a vertex without out-arcs stop here (their rows stay padded).
        keys.par_iter_mut().for_each(|key| {
            if g.degree((*key >> 32) as Vertex) == 0 {
                *key = u64::MAX;
            }
        });
        keys.par_sort_unstable();
        let moving = keys.partition_point(|&k| k != u64::MAX);
        stopped += (keys.len() - moving) as u64;
        keys.truncate(moving);
        if keys.is_empty() {
            break;
        }
        steps += keys.len() as u64;
        let here = Bitmap::new(g.num_vertices());
        keys.par_iter().for_each(|&k| {
            here.set_atomic((k >> 32) as usize);
        });
        let live = &keys;
        g.pass(&ScanSpec::ids_only(&here), |v, piece, _| {
            lists.whole(v, piece, |list| {
                let from = live.partition_point(|&k| k < standing(v, 0));
                let to = live.partition_point(|&k| k <= standing(v, u32::MAX as usize));
                for &k in &live[from..to] {
                    let i = k as u32 as usize;
                    walks[i * row_len + j].store(list[pick(seed, i, j, list.len())], Relaxed);
                }
            })
        })
        .map_err(read_error(ALGORITHM))?;
        // Every walk that moved stands on the vertex it picked.
        keys.par_iter_mut().for_each(|key| {
            let i = *key as u32 as usize;
            *key = standing(walks[i * row_len + j].load(Relaxed), i);
        });
    }
    let walks = walks.into_iter().map(AtomicU32::into_inner).collect();
    Ok((walks, steps, stopped))
}

/// Checks the shape, that walk i starts at its source, that every step is an arc of G, and
/// that a walk is padded only after a vertex without out-arcs (and stays padded).
pub fn verify_random_walks<A: Adjacency>(
    g: &Graph<A>,
    params: &RandomWalkParams,
    result: &RandomWalkResult,
) -> Result<(), VerifyError> {
    let fail = |m: String| Err(VerifyError::new(ALGORITHM, m));
    let n = g.num_vertices() as u64;
    let expected: Vec<u64> = match &params.sources {
        Some(s) => s.clone(),
        None => (0..n).step_by(params.every.max(1) as usize).collect(),
    };
    if result.num_walks != expected.len() || result.row_len != params.length + 1 {
        return fail(format!(
            "{} walks of {} vertices, expected {} of {}",
            result.num_walks,
            result.row_len,
            expected.len(),
            params.length + 1
        ));
    }
    if result.walks.len() != result.num_walks * result.row_len {
        return fail(format!(
            "{} ids for {} walks of {}",
            result.walks.len(),
            result.num_walks,
            result.row_len
        ));
    }
    for (i, &source) in expected.iter().enumerate() {
        let walk = result.walk(i);
        if walk[0] as u64 != source {
            return fail(format!(
                "walk {i} starts at {}, not at its source {source}",
                walk[0]
            ));
        }
        for j in 1..walk.len() {
            let (from, to) = (walk[j - 1], walk[j]);
            let ok = match (from, to) {
                (WALK_END, WALK_END) => true,
                (WALK_END, _) => false,
                (_, WALK_END) => g.out().degree(from) == 0,
                _ => (to as u64) < n && has_arc(g.out(), from, to),
            };
            if !ok {
                return fail(format!(
                    "walk {i} step {j}: {from} -> {to} is not an arc (or is padding after a vertex with out-arcs)"
                ));
            }
        }
    }
    Ok(())
}

// The registry's entry.

use crate::algorithm::{Algorithm, Conflict, Descriptor, Needs, Param, Params, SEED, SOURCE};
use crate::registry::Values;

pub const SOURCES: Param = Param::vertices(
    "sources",
    "every --every-th vertex",
    "the start vertices, one walk each",
);
pub const EVERY: Param = Param::count(
    "every",
    1,
    1,
    "without sources, start a walk at every N-th vertex",
);
/// A walk's row holds its length + 1 vertex ids: a longer walk than 2^32 - 1 steps would take
/// more than 16 GiB alone, and the rows' size would overflow a byte count.
pub const WALK_LENGTH: Param = Param::count_in(
    "walk_length",
    10,
    (0, u32::MAX as u64),
    "steps of each walk",
);

/// The state of the branch of passes for the walks `p` asks for: it keeps its output, so it
/// depends on how many walks there are and how long they are.
fn state_for(n: u64, p: &Params) -> u64 {
    let walks = match (p.vertices(&SOURCES), p.vertex(&SOURCE)) {
        (Some(sources), _) => sources.len() as u64,
        (None, Some(_)) => 1,
        (None, None) => n.div_ceil(p.count(&EVERY).max(1)),
    };
    let row_len = p.count(&WALK_LENGTH).saturating_add(1);
    state_in_passes(n, walks, row_len)
}
/// `random-walk` in the registry.
pub struct RandomWalk;

impl Algorithm for RandomWalk {
    const DESCRIPTOR: Descriptor = Descriptor {
        name: "random-walk",
        summary: "random walks (--sources or --every, --walk-length, --seed): one row per walk",
        params: &[SOURCES, SOURCE, EVERY, WALK_LENGTH, SEED],
        needs: Needs {
            symmetric: false,
            transpose: false,
            weights: None,
            symmetric_for: None,
        },
        state: STATE,
        resumable: false,
        vertex_values: crate::algorithm::VertexValues::No,
        conflicts: &[
            Conflict::Either(&SOURCES, &SOURCE),
            Conflict::Either(&SOURCES, &EVERY),
            Conflict::Either(&SOURCE, &EVERY),
        ],
        state_in_passes: Some(|n, p| Some(state_for(n, p))),
    };
    type Params = RandomWalkParams;
    type Result = RandomWalkResult;
    fn params<A: Adjacency>(given: &Params, _g: &Graph<A>) -> Result<RandomWalkParams, AlgoError> {
        Ok(RandomWalkParams {
            sources: given
                .vertices(&SOURCES)
                .or(given.vertex(&SOURCE).map(|s| vec![s])),
            every: given.count(&EVERY),
            length: given.count(&WALK_LENGTH).min(usize::MAX as u64) as usize,
            seed: given.count(&SEED),
        })
    }
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &RandomWalkParams,
        _checkpoint: Option<&crate::checkpoint::Checkpoint>,
    ) -> Result<RandomWalkResult, AlgoError> {
        random_walks(g, q)
    }
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &RandomWalkParams,
        r: &RandomWalkResult,
    ) -> Result<(), VerifyError> {
        verify_random_walks(g, q, r)
    }
    fn output(r: RandomWalkResult, _q: &RandomWalkParams) -> (Option<Values>, RunStats) {
        (
            Some(Values::Rows {
                data: r.walks,
                cols: r.row_len,
            }),
            r.stats,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vastgraph_engine::InMemoryGraph;

    #[test]
    fn walks_stop_at_sinks_and_follow_arcs() {
        // 0 → 1 → 2 (a sink), 0 → 3 → 0.
        let g = InMemoryGraph::from_edges(4, &[(0, 1), (1, 2), (0, 3), (3, 0)], false);
        let params = RandomWalkParams {
            sources: Some(vec![0, 1, 2]),
            length: 6,
            ..Default::default()
        };
        let r = random_walks(&g.view(), &params).unwrap();
        verify_random_walks(&g.view(), &params, &r).unwrap();
        assert_eq!(
            r.walk(1),
            [1, 2, WALK_END, WALK_END, WALK_END, WALK_END, WALK_END]
        );
        assert_eq!(r.walk(2)[0], 2);
        assert!(r.walk(2)[1..].iter().all(|&x| x == WALK_END));
        let mut bad = r;
        bad.walks[1] = 2; // 0 → 2 is not an arc
        assert!(verify_random_walks(&g.view(), &params, &bad).is_err());
    }
}
