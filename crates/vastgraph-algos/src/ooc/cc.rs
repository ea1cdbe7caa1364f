//! Out-of-core connected components in one sequential pass over the arcs (CLIP's
//! beyond-neighbourhood processing), using the lock-free union-find of the in-memory kernel
//! (pointers from larger to smaller ids) and, on a symmetric graph, Afforest's skipping of the
//! giant component (see [`crate::cc`]):
//!
//! 1. The lists of a prefix of the vertices, holding about [`PREFIX_ARCS`] of the arcs, link
//!    every arc. On a skewed graph this already joins most vertices with edges into one tree
//!    (a vertex joins it as soon as one of its neighbours lies in the prefix).
//! 2. Pointer jumping, then 1024 sampled vertices name that giant tree.
//! 3. The rest of the lists: a vertex already in the giant tree is skipped whole; any other
//!    links all its arcs. Sound because every edge is stored from both ends: an edge between a
//!    skipped vertex and a vertex outside the giant tree is linked from the outside end, and one
//!    with an end in the prefix was linked in step 1.
//!
//! The two scans read disjoint ranges of the file, so together they are one pass. A directed
//! graph (no reverse arcs to rely on) links every arc in one scan. Pointer jumping finally
//! labels every vertex with the smallest id of its component.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::memory::huge_page_vec;
use vastgraph_engine::ooc::{IoMode, OocGraph, ScanSpec};
use vastgraph_engine::Vertex;

use super::{io_error, vertex_range};
use crate::cc::{compress, link, most_frequent_root, CcParams, CcResult};
use crate::common::{AlgoError, RunStats};

const ALGORITHM: &str = "cc";

/// The share of the arcs linked before the giant component is sampled: enough for a skewed
/// graph's giant tree to reach most vertices with edges, small next to the arcs it lets skip.
const PREFIX_ARCS: f64 = 0.1;

pub fn connected_components(g: &OocGraph) -> Result<CcResult, AlgoError> {
    let n = g.num_vertices();
    let comp: Vec<AtomicU32> = huge_page_vec(n, |v| AtomicU32::new(v as Vertex));
    let offsets = g.offsets();
    let prefix_end = if g.is_symmetric() {
        let target = (g.num_arcs() as f64 * PREFIX_ARCS) as u64;
        // Through the list that reaches the target: a hub holding more than the prefix still
        // gets its arcs linked before the giant component is sampled.
        (offsets[1..].partition_point(|&o| o < target) + 1).min(n)
    } else {
        n
    };
    let linked = AtomicU64::new(0);
    let scan = |range: std::ops::Range<usize>, giant: Option<Vertex>| {
        let active = vertex_range(n, range);
        let spec = ScanSpec {
            mode: Some(IoMode::Streaming),
            ..ScanSpec::new(&active)
        };
        g.scan(&spec, |v, neighbors, _| {
            if giant.is_some_and(|root| comp[v as usize].load(Relaxed) == root) {
                return;
            }
            for &u in neighbors {
                link(&comp, v, u);
            }
            linked.fetch_add(neighbors.len() as u64, Relaxed);
        })
        .map_err(|e| io_error(ALGORITHM, e))
    };
    scan(0..prefix_end, None)?;
    let mut scans = 1;
    if prefix_end < n {
        compress(&comp);
        let giant = most_frequent_root(&comp, CcParams::default().seed);
        scan(prefix_end..n, Some(giant))?;
        scans += 1;
    }
    compress(&comp);
    let labels: Vec<Vertex> = comp.into_iter().map(AtomicU32::into_inner).collect();
    let num_components = labels
        .par_iter()
        .enumerate()
        .filter(|&(v, &l)| v as Vertex == l)
        .count() as u64;
    let stats = RunStats {
        // One per scan (each reads its own part of the file): the iteration records' count.
        iterations: scans,
        edges_traversed: linked.into_inner(),
        ..Default::default()
    }
    .with("components", num_components)
    .with(
        "method",
        "union-find in one pass, skipping the giant component",
    );
    Ok(CcResult {
        labels,
        num_components,
        stats,
    })
}
