//! Out-of-core connected components in one sequential pass over the arcs (CLIP's
//! beyond-neighbourhood processing), using the lock-free union-find of the in-memory kernel
//! (pointers from larger to smaller ids) and, on a symmetric graph, Afforest's skipping of the
//! giant component (see [`crate::cc`]):
//!
//! 1. The lists of a prefix of the vertices, holding about [`PREFIX_ARCS`] of the arcs, link
//!    every arc. On a skewed graph this joins the hubs and their neighbours into one tree.
//! 2. When the store has the side file of first neighbours (4 bytes a vertex), every later
//!    vertex links its first arc, read from that file: on a skewed graph, and most of all on a
//!    degree-ordered one, that hangs most vertices under the hubs' tree (Afforest's sampling).
//! 3. Pointer jumping, then 1024 sampled vertices name that giant tree and its root.
//! 4. The rest of the lists, each read once, of the vertices outside the giant tree only: the
//!    others are left out of the scan's active set, so their bytes are not even looked at (and
//!    a stretch of the file holding only their lists, a hub's say, is not read). A vertex links
//!    its arcs in order and stops as soon as it hangs straight under the giant root; on a
//!    skewed graph that is after its first arc to a hub.
//!
//! Sound because every edge is stored from both ends, and every vertex either links all its
//! arcs or ends in the giant tree (which only grows): of an edge's two ends, either both end
//! in the giant tree, or one of them linked the edge. A vertex in the prefix linked all its
//! arcs in step 1, and a vertex with one arc in step 2, so step 4 leaves both out.
//!
//! The two scans of the lists read disjoint ranges of the file, so together they are at most
//! one pass. A
//! directed graph (no reverse arcs to rely on) links every arc in one scan. Pointer jumping
//! finally labels every vertex with the smallest id of its component. Links prefetch (see
//! [`link_all`]): the union-find's random reads of the forest, not the disk, bound the first
//! scan.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use vastgraph_engine::memory::huge_page_vec;
use vastgraph_engine::ooc::{IoMode, OocGraph, ScanSpec};
use vastgraph_engine::{Bitmap, Vertex};

use super::{io_error, vertex_range, vertices_where};
use crate::cc::{compress, link_all, most_frequent_root, CcParams, CcResult};
use crate::common::{AlgoError, RunStats};

const ALGORITHM: &str = "cc";

/// The share of the arcs linked before the giant component is sampled. On Kronecker graphs
/// a 2% prefix already names a giant tree that every later list soon reaches; a larger one
/// costs links that, unlike those of the second scan, do not overlap the reads (kron25: 10%
/// took 1.4 s of linking to save 0.7 s of the second scan's).
const PREFIX_ARCS: f64 = 0.02;

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
    let scan = |active: &Bitmap, giant: Option<Vertex>| {
        // Streamed, whatever the run's mode. With the giant tree's lists left out, the cost
        // model prefers reading the rest selectively (kron25: 2.6 GiB in 67k requests against
        // 3.9 GiB, estimated 2.5 s against 3.0), but in 4 of 5 cold and warm comparisons the
        // stream was as fast or faster: the selective scan ran at 0.9-1.2 GB/s, though fio's
        // random 32-64 KiB reads reach 1.2-1.4 GB/s on that disk. The cost is the engine's
        // work on many small pieces, which the model does not price.
        let spec = ScanSpec {
            mode: Some(IoMode::Streaming),
            ..ScanSpec::new(active)
        };
        g.scan(&spec, |v, neighbors, _| {
            // A vertex hung straight under the giant root since the scan began links nothing.
            let links = link_all(&comp, v, neighbors, giant);
            linked.fetch_add(links as u64, Relaxed);
        })
        .map_err(|e| io_error(ALGORITHM, e))
    };
    scan(&vertex_range(n, 0..prefix_end), None)?;
    let mut scans = 1;
    if prefix_end < n {
        // With the side file, every later vertex first links its first arc (Afforest's
        // sampling), read from 4 bytes a vertex instead of its list.
        let sampled = g.has_first_neighbors();
        if sampled {
            let later = vertex_range(n, prefix_end..n);
            let record = g
                .scan_first_neighbors(&later, |v, first| {
                    link_all(&comp, v, &[first], None);
                })
                .map_err(|e| io_error(ALGORITHM, e))?;
            linked.fetch_add(record.arcs_processed, Relaxed);
        }
        compress(&comp);
        let giant = most_frequent_root(&comp, CcParams::default().seed);
        // The vertices outside the giant tree (their forest entries are compressed) with arcs
        // not yet linked: a vertex with one arc linked it in the sampling.
        let linked_arcs = u64::from(sampled);
        let outside = vertices_where(n, prefix_end..n, |v| {
            offsets[v + 1] - offsets[v] > linked_arcs && comp[v].load(Relaxed) != giant
        });
        scan(&outside, Some(giant))?;
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
        // One per scan of the lists (each reads its own part of the file): the iteration
        // records, but for the side file's.
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
