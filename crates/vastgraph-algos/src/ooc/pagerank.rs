//! Out-of-core PageRank: the in-memory rule exactly (see [`crate::pagerank`]), one streaming
//! pass per iteration. On a symmetric graph each vertex sums its neighbours' contributions
//! p[u]/deg(u) over the piece of its list that arrived (one atomic add per piece); a directed
//! graph pushes each vertex's contribution along its out-arcs. To keep the state at two words
//! per vertex, the scores array holds the contributions p[u]/deg(u) during the pass (a vertex
//! without out-arcs, whose contribution nobody reads, keeps its score), and the old score is
//! recovered from it for the L1 change. Results equal the in-memory ones up to floating-point
//! summation order.

use rayon::prelude::*;
use vastgraph_engine::atomics::AtomicF64;
use vastgraph_engine::memory::huge_page_vec;
use vastgraph_engine::ooc::{IoMode, OocGraph, PrefetchFn, ScanSpec};

use super::{all_vertices, io_error};
use crate::common::AlgoError;
use crate::pagerank::{PageRankParams, PageRankResult};
use vastgraph_engine::lane_sum::{gather_misses_cache, lane_sum, prefetch_gather};

const ALGORITHM: &str = "pagerank";
const BLOCK: usize = 2048;

pub fn pagerank(g: &OocGraph, params: &PageRankParams) -> Result<PageRankResult, AlgoError> {
    let valid_tolerance = params.tolerance >= 0.0 && params.tolerance.is_finite();
    if !(0.0..1.0).contains(&params.damping) || !valid_tolerance {
        return Err(AlgoError::InvalidParameter {
            algorithm: ALGORITHM,
            message: format!(
                "damping must be in [0, 1) and tolerance a finite number ≥ 0, got {} and {}",
                params.damping, params.tolerance
            ),
        });
    }
    let n = g.num_vertices();
    let d = params.damping;
    let offsets = g.offsets();
    let degree = |v: usize| offsets[v + 1] - offsets[v];
    // Both are read or updated at random, once per arc or per piece of a list.
    let mut scores: Vec<f64> = huge_page_vec(n, |_| 1.0 / n as f64);
    let sums: Vec<AtomicF64> = huge_page_vec(n, |_| AtomicF64::new(0.0));
    let all = all_vertices(n);
    let symmetric = g.is_symmetric();
    let (mut iterations, mut delta) = (0u64, f64::INFINITY);
    while iterations < params.max_iters && n > 0 {
        iterations += 1;
        // One pass over the vertices: the dangling mass, and each score turned into its
        // contribution (one array read per arc instead of a score and two offsets).
        let dangling: f64 =
            ordered_sum(scores.par_chunks_mut(BLOCK).enumerate().map(|(b, block)| {
                let mut dangling = 0.0;
                for (i, p) in block.iter_mut().enumerate() {
                    match degree(b * BLOCK + i) {
                        0 => dangling += *p,
                        deg => *p /= deg as f64,
                    }
                }
                dangling
            }));
        let c = &scores;
        let prefetch = |ids: &[u32]| prefetch_gather(c, ids);
        // As in memory, the gather is prefetched once the contributions miss the cache.
        let prefetches = symmetric && gather_misses_cache(c);
        let spec = ScanSpec {
            mode: Some(IoMode::Streaming),
            prefetch: prefetches.then_some(&prefetch as PrefetchFn),
            ..ScanSpec::new(&all)
        };
        g.scan(&spec, |v, neighbors, _| {
            if symmetric {
                sums[v as usize].fetch_add(lane_sum(neighbors, c));
            } else {
                let c = c[v as usize];
                for &u in neighbors {
                    sums[u as usize].fetch_add(c);
                }
            }
        })
        .map_err(|e| io_error(ALGORITHM, e))?;
        let base = (1.0 - d) / n as f64 + d * dangling / n as f64;
        delta = ordered_sum(scores.par_chunks_mut(BLOCK).enumerate().map(|(b, block)| {
            let mut change = 0.0;
            for (i, p) in block.iter_mut().enumerate() {
                let deg = degree(b * BLOCK + i);
                let old = if deg > 0 { *p * deg as f64 } else { *p };
                let sum = &sums[b * BLOCK + i];
                let new = base + d * sum.load();
                // Zero again for the next pass.
                sum.store(0.0);
                change += (new - old).abs();
                *p = new;
            }
            change
        }));
        if delta < params.tolerance {
            break;
        }
    }
    let direction = if symmetric { "pull" } else { "push" };
    let stats = crate::pagerank::power_iteration_stats(
        iterations,
        g.num_arcs(),
        delta,
        params.tolerance,
        direction,
    );
    Ok(PageRankResult {
        scores,
        delta,
        stats,
    })
}

fn ordered_sum(partials: impl IndexedParallelIterator<Item = f64>) -> f64 {
    partials.collect::<Vec<f64>>().iter().sum()
}
