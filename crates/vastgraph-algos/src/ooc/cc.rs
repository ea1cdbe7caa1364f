//! Out-of-core connected components in one sequential pass over the arcs (CLIP's
//! beyond-neighbourhood processing), using the lock-free union-find of the in-memory kernel
//! (pointers from larger to smaller ids) and, on a symmetric graph, Afforest's skipping of the
//! giant component (see [`crate::cc`]):
//!
//! 1. The lists of the highest-degree vertices, holding about [`HUB_ARCS`] of the arcs, link
//!    every arc. On a skewed graph this joins the hubs and their neighbours into one tree
//!    (on a degree-ordered store they are a prefix of the ids; in any other order their big
//!    lists are read selectively where they lie).
//! 2. When the store has the side file of first neighbours (4 bytes a vertex), every later
//!    vertex links its first arc, read from that file: on a skewed graph, and most of all on a
//!    degree-ordered one, that hangs most vertices under the hubs' tree (Afforest's sampling).
//! 3. Pointer jumping, then 1024 sampled vertices name that giant tree and its root.
//! 4. When the store has list heads (the first 8 ids of each list) and they cost less than
//!    half of what they spare ([`super::heads_spare_reads`]), the vertices outside the giant
//!    tree link their first 8 arcs from them: all of a list that short, and many of the others
//!    reach the giant tree that way.
//! 5. The rest of the lists, each read once, of the vertices outside the giant tree only: the
//!    others are left out of the scan's active set, so their bytes are not even looked at (and
//!    a stretch of the file holding only their lists, a hub's say, is not read). A vertex links
//!    its arcs in order and stops as soon as it hangs straight under the giant root; on a
//!    skewed graph that is after its first arc to a hub.
//!
//! Sound because every edge is stored from both ends, and every vertex either links all its
//! arcs or ends in the giant tree (which only grows): of an edge's two ends, either both end
//! in the giant tree, or one of them linked the edge. A hub linked all its
//! arcs in step 1, a vertex with one arc in step 2 and one with at most 8 in step 4, so step 5
//! leaves them out.
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
use vastgraph_engine::ooc::{OocGraph, ScanSpec};
use vastgraph_engine::{Bitmap, Vertex};

use super::{heads_spare_reads, io_error, vertex_range, vertices_where};
use crate::cc::{compress, link_all, most_frequent_root, CcParams, CcResult};
use crate::common::{AlgoError, RunStats};
use vastgraph_store::manifest::LIST_HEAD_IDS;

const ALGORITHM: &str = "cc";

/// The share of the arcs that the highest-degree vertices' lists link before the giant
/// component is sampled. On Kronecker graphs 2% (177 hubs on scale 25) already names a giant
/// tree that every later list soon reaches; more costs links that, unlike those of the second
/// scan, do not overlap the reads (kron25: 10% took 1.4 s of linking to save 0.7 s of the
/// second scan's).
const HUB_ARCS: f64 = 0.02;

pub fn connected_components(g: &OocGraph) -> Result<CcResult, AlgoError> {
    let n = g.num_vertices();
    let comp: Vec<AtomicU32> = huge_page_vec(n, |v| AtomicU32::new(v as Vertex));
    let offsets = g.offsets();
    let symmetric = g.is_symmetric();
    // The vertices whose lists link every arc first: on a symmetric graph its highest degrees.
    let hubs = match symmetric {
        true => highest_degrees(offsets, (g.num_arcs() as f64 * HUB_ARCS) as u64),
        false => vertex_range(n, 0..n),
    };
    let linked = AtomicU64::new(0);
    let scan = |active: &Bitmap, giant: Option<Vertex>| {
        // In the run's mode. The hubs' lists, scattered over the file unless it is ordered by
        // degree, are read selectively. On Kronecker 25 in its original order, where the
        // second scan's active vertices are now 74k (not millions), the cost model reads their
        // 0.6 GB selectively rather than 3.9 GB streamed: 0.85 s against 2.2 s. (With an id
        // prefix in step 1, the second scan had to read 2.6 of the 3.9 GB, and streaming the
        // whole file was as fast or faster in 4 of 5 comparisons: it was forced then.)
        g.scan(&ScanSpec::new(active), |v, neighbors, _| {
            // A vertex hung straight under the giant root since the scan began links nothing.
            let links = link_all(&comp, v, neighbors, giant);
            linked.fetch_add(links as u64, Relaxed);
        })
        .map_err(|e| io_error(ALGORITHM, e))
    };
    scan(&hubs, None)?;
    let mut scans = 1;
    if symmetric {
        let later = complement(&hubs);
        // With the side file, every later vertex first links its first arc (Afforest's
        // sampling), read from 4 bytes a vertex instead of its list.
        let sampled = g.has_first_neighbors();
        // The later vertices with arcs.
        let mut sampled_vertices = 0;
        if sampled {
            let record = g
                .scan_first_neighbors(&later, |v, first| {
                    link_all(&comp, v, &[first], None);
                })
                .map_err(|e| io_error(ALGORITHM, e))?;
            linked.fetch_add(record.arcs_processed, Relaxed);
            sampled_vertices = record.arcs_processed;
        }
        compress(&comp);
        // Without vertices there is nothing to scan: no vertex is outside a giant tree of none.
        let Some(mut giant) = most_frequent_root(&comp, CcParams::default().seed) else {
            return Ok(CcResult {
                labels: Vec::new(),
                num_components: 0,
                stats: RunStats::default(),
            });
        };
        // The later vertices outside the giant tree (their forest entries are compressed)
        // with arcs not yet linked: a vertex with one arc linked it in the sampling.
        let linked_arcs = u64::from(sampled);
        let mut outside = vertices_where(n, 0..n, |v| {
            later.get(v)
                && offsets[v + 1] - offsets[v] > linked_arcs
                && comp[v].load(Relaxed) != giant
        });
        // Their list heads, when they cost less than half of what they spare: each links its
        // first 8 arcs, all of a list that short, and the others' lists are read only if they
        // stay outside the giant tree. (Sound as step 5 is: a vertex links all its arcs or ends
        // in the giant tree.) On Kronecker 25 in its original order the 74k vertices outside
        // have lists the planner reads as 0.6 GB in 32k requests.
        let hit_rate = 1.0 - outside.count_ones() as f64 / sampled_vertices.max(1) as f64;
        let heads = sampled
            && heads_spare_reads(g, &outside, hit_rate).map_err(|e| io_error(ALGORITHM, e))?;
        if heads {
            let record = g
                .scan_list_heads(&outside, |v, head| {
                    link_all(&comp, v, head, Some(giant));
                    false
                })
                .map_err(|e| io_error(ALGORITHM, e))?;
            linked.fetch_add(record.arcs_processed, Relaxed);
            compress(&comp);
            // A link may have hung the giant tree under a smaller root.
            giant = comp[giant as usize].load(Relaxed);
            outside = vertices_where(n, 0..n, |v| {
                outside.get(v)
                    && offsets[v + 1] - offsets[v] > LIST_HEAD_IDS
                    && comp[v].load(Relaxed) != giant
            });
        }
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

/// The vertices of highest degree whose lists hold about `target` arcs (at least that many,
/// unless the graph has fewer): a degree threshold found from a histogram of the arcs by the
/// degree's power of two, refined within the power where the target falls.
fn highest_degrees(offsets: &[u64], target: u64) -> Bitmap {
    let n = offsets.len() - 1;
    if target == 0 {
        return Bitmap::new(n);
    }
    let degree = |v: usize| offsets[v + 1] - offsets[v];
    // On a store ordered by degree they are the prefix that reaches the target, through the
    // list that reaches it: one pass to see the order (which stops at the first rise of any
    // other order) instead of three over the offsets (30 ms on Kronecker 25).
    let by_degree = (0..n.saturating_sub(1))
        .into_par_iter()
        .with_min_len(1 << 16)
        .all(|v| degree(v) >= degree(v + 1));
    if by_degree {
        let prefix = offsets[1..].partition_point(|&o| o < target) + 1;
        return vertex_range(n, 0..prefix.min(n));
    }
    // Bucket k holds degrees 2^(k-1)..2^k (bucket 0, degree 0).
    let by_power = arcs_by_degree(offsets, 65, |d| Some(64 - d.leading_zeros() as usize));
    // The power where the arcs of higher degrees reach the target.
    let (mut k, mut above) = (64usize, 0u64);
    while k > 1 && above + by_power[k] < target {
        above += by_power[k];
        k -= 1;
    }
    let (lo, hi) = (1u64 << (k - 1), 1u64 << k.min(63));
    // Within it, buckets of equal width, at most 2^16 of them.
    let width = ((hi - lo) >> 16).max(1);
    let buckets = ((hi - lo) / width) as usize;
    let fine = arcs_by_degree(offsets, buckets, |d| {
        (lo..hi).contains(&d).then(|| ((d - lo) / width) as usize)
    });
    let mut b = buckets;
    while b > 0 && above < target {
        b -= 1;
        above += fine[b];
    }
    let threshold = (lo + b as u64 * width).max(1);
    vertices_where(n, 0..n, |v| degree(v) >= threshold)
}

/// The arcs of the vertices by the bucket `bucket` gives their degree (none: not counted),
/// summed over tasks of 1M vertices, each with its own histogram.
fn arcs_by_degree(
    offsets: &[u64],
    buckets: usize,
    bucket: impl Fn(u64) -> Option<usize> + Sync,
) -> Vec<u64> {
    const TASK: usize = 1 << 20;
    let n = offsets.len() - 1;
    (0..n.div_ceil(TASK))
        .into_par_iter()
        .map(|t| {
            let mut arcs = vec![0u64; buckets];
            let range = t * TASK..((t + 1) * TASK).min(n);
            for pair in offsets[range.start..=range.end].windows(2) {
                let d = pair[1] - pair[0];
                if let Some(b) = bucket(d) {
                    arcs[b] += d;
                }
            }
            arcs
        })
        .reduce(
            || vec![0u64; buckets],
            |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
        )
}

/// The vertices not in `set`.
fn complement(set: &Bitmap) -> Bitmap {
    let n = set.len();
    let words = (0..set.num_words())
        .into_par_iter()
        .map(|w| {
            let valid = match n - 64 * w {
                left if left < 64 => (1u64 << left) - 1,
                _ => u64::MAX,
            };
            !set.word(w) & valid
        })
        .collect();
    Bitmap::from_words(words, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets_of(degrees: &[u64]) -> Vec<u64> {
        let mut offsets = vec![0];
        for d in degrees {
            offsets.push(offsets.last().unwrap() + d);
        }
        offsets
    }

    #[test]
    fn the_highest_degrees_hold_the_target_and_no_lower_degree_is_left_above_them() {
        // Degrees scattered over the ids: 3 hubs (5000, 3000, 3000), a tail of small ones and
        // isolated vertices.
        let mut degrees: Vec<u64> = (0..5000u64).map(|v| v % 7).collect();
        degrees[4321] = 5000;
        degrees[17] = 3000;
        degrees[2500] = 3000;
        let offsets = offsets_of(&degrees);
        let total = *offsets.last().unwrap();
        for target in [1, 4000, 5000, 5001, 8000, 11_000, 11_001, total / 2, total] {
            let hubs = highest_degrees(&offsets, target);
            let chosen: u64 = hubs
                .to_sorted_ids()
                .iter()
                .map(|&v| degrees[v as usize])
                .sum();
            assert!(chosen >= target, "target {target}: {chosen} arcs");
            // A threshold: every vertex of a higher degree than a chosen one is chosen too.
            let lowest = hubs
                .to_sorted_ids()
                .iter()
                .map(|&v| degrees[v as usize])
                .min();
            let lowest = lowest.expect("a target above 0 chooses a vertex");
            assert!(
                (0..5000).all(|v| degrees[v] < lowest || hubs.get(v)),
                "target {target}"
            );
            assert!(lowest > 0, "isolated vertices are never hubs");
        }
        assert_eq!(highest_degrees(&offsets, 5000).to_sorted_ids(), vec![4321]);
        assert_eq!(
            highest_degrees(&offsets, 11_000).to_sorted_ids(),
            vec![17, 2500, 4321]
        );
        assert_eq!(highest_degrees(&offsets_of(&[0, 0]), 0).count_ones(), 0);

        // Ordered by degree: the prefix through the list that reaches the target.
        let mut sorted = degrees.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let offsets = offsets_of(&sorted);
        assert_eq!(highest_degrees(&offsets, 5000).to_sorted_ids(), vec![0]);
        assert_eq!(highest_degrees(&offsets, 5001).to_sorted_ids(), vec![0, 1]);
        assert_eq!(
            highest_degrees(&offsets, 11_001).to_sorted_ids(),
            vec![0, 1, 2, 3]
        );
    }

    #[test]
    fn the_complement_leaves_the_bits_past_the_end_clear() {
        let mut set = Bitmap::new(130);
        for v in [0, 64, 129] {
            set.set(v);
        }
        let rest = complement(&set);
        assert_eq!(rest.count_ones(), 127);
        assert!(!rest.get(0) && !rest.get(64) && !rest.get(129) && rest.get(1) && rest.get(128));
    }
}
