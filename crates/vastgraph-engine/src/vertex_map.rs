//! `vertex_map` and `vertex_filter` over a subset, in parallel.

use crate::bitmap::Bitmap;
use crate::subset::VertexSubset;
use crate::Vertex;
use rayon::prelude::*;

/// Applies `f` to every vertex of the subset.
pub fn vertex_map<F: Fn(Vertex) + Sync + Send>(subset: &VertexSubset, f: F) {
    crate::interrupt::check();
    subset.par_for_each(f)
}

/// The members for which `keep` is true, in the same representation as the input.
pub fn vertex_filter<F: Fn(Vertex) -> bool + Sync + Send>(
    subset: &VertexSubset,
    keep: F,
) -> VertexSubset {
    crate::interrupt::check();
    let n = subset.num_vertices();
    match subset {
        VertexSubset::Sparse { ids, .. } => {
            VertexSubset::from_ids(n, ids.par_iter().copied().filter(|&v| keep(v)).collect())
        }
        VertexSubset::Dense { bits, .. } => {
            let out = Bitmap::new(n);
            bits.par_for_each_set(|v| {
                if keep(v) {
                    out.set_atomic(v as usize);
                }
            });
            VertexSubset::from_bitmap(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn map_and_filter_both_representations() {
        for s in [
            VertexSubset::from_ids(100, (0..100).collect()),
            VertexSubset::all(100),
        ] {
            let sum = AtomicU64::new(0);
            vertex_map(&s, |v| {
                sum.fetch_add(v as u64, Ordering::Relaxed);
            });
            assert_eq!(sum.into_inner(), 4950);
            let even = vertex_filter(&s, |v| v % 2 == 0);
            assert_eq!(even.len(), 50);
            assert_eq!(even.to_sorted_ids()[..3], [0, 2, 4]);
        }
    }
}
