//! A subset of the vertices (a frontier), held sparse (a list of ids) or dense (a bitmap),
//! whichever suits its size; [`crate::edge_map`] converts between them as it switches direction.

use rayon::prelude::*;

use crate::bitmap::Bitmap;
use crate::Vertex;

pub enum VertexSubset {
    /// Distinct ids, in no particular order.
    Sparse { n: usize, ids: Vec<Vertex> },
    Dense {
        n: usize,
        bits: Bitmap,
        count: usize,
    },
}

impl VertexSubset {
    pub fn empty(n: usize) -> Self {
        VertexSubset::Sparse { n, ids: Vec::new() }
    }

    pub fn single(n: usize, v: Vertex) -> Self {
        assert!((v as usize) < n);
        VertexSubset::Sparse { n, ids: vec![v] }
    }

    /// Every vertex.
    pub fn all(n: usize) -> Self {
        let mut words = vec![u64::MAX; n.div_ceil(64)];
        if !n.is_multiple_of(64) {
            *words.last_mut().unwrap() = (1u64 << (n % 64)) - 1;
        }
        VertexSubset::Dense {
            n,
            bits: Bitmap::from_words(words, n),
            count: n,
        }
    }

    /// `ids` must be distinct and < n.
    pub fn from_ids(n: usize, ids: Vec<Vertex>) -> Self {
        VertexSubset::Sparse { n, ids }
    }

    pub fn from_bitmap(bits: Bitmap) -> Self {
        let count = bits.count_ones();
        VertexSubset::Dense {
            n: bits.len(),
            bits,
            count,
        }
    }

    pub fn num_vertices(&self) -> usize {
        match self {
            VertexSubset::Sparse { n, .. } | VertexSubset::Dense { n, .. } => *n,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            VertexSubset::Sparse { ids, .. } => ids.len(),
            VertexSubset::Dense { count, .. } => *count,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn is_dense(&self) -> bool {
        matches!(self, VertexSubset::Dense { .. })
    }

    /// Converts to a bitmap (no-op when already dense).
    pub fn into_dense(self) -> Self {
        match self {
            VertexSubset::Sparse { n, ids } => {
                let bits = Bitmap::new(n);
                ids.par_iter().for_each(|&v| {
                    bits.set_atomic(v as usize);
                });
                VertexSubset::Dense {
                    n,
                    count: ids.len(),
                    bits,
                }
            }
            d => d,
        }
    }

    /// Converts to an id list (ascending when converted from dense).
    pub fn into_sparse(self) -> Self {
        match self {
            VertexSubset::Dense { n, bits, .. } => VertexSubset::Sparse {
                n,
                ids: bits.to_sorted_ids(),
            },
            s => s,
        }
    }

    /// The ids, when sparse.
    pub fn sparse_ids(&self) -> Option<&[Vertex]> {
        match self {
            VertexSubset::Sparse { ids, .. } => Some(ids),
            VertexSubset::Dense { .. } => None,
        }
    }

    /// The bitmap, when dense.
    pub fn dense_bits(&self) -> Option<&Bitmap> {
        match self {
            VertexSubset::Dense { bits, .. } => Some(bits),
            VertexSubset::Sparse { .. } => None,
        }
    }

    /// The ids in ascending order (allocates).
    pub fn to_sorted_ids(&self) -> Vec<Vertex> {
        match self {
            VertexSubset::Sparse { ids, .. } => {
                let mut v = ids.clone();
                v.par_sort_unstable();
                v
            }
            VertexSubset::Dense { bits, .. } => bits.to_sorted_ids(),
        }
    }

    /// Membership test: O(1) when dense, O(len) when sparse (use only on small sets or in tests).
    pub fn contains(&self, v: Vertex) -> bool {
        match self {
            VertexSubset::Sparse { ids, .. } => ids.contains(&v),
            VertexSubset::Dense { bits, .. } => bits.get(v as usize),
        }
    }

    /// Calls `f` on every member, in parallel.
    pub fn par_for_each<F: Fn(Vertex) + Sync + Send>(&self, f: F) {
        match self {
            VertexSubset::Sparse { ids, .. } => {
                ids.par_iter().with_min_len(256).for_each(|&v| f(v))
            }
            VertexSubset::Dense { bits, .. } => bits.par_for_each_set(f),
        }
    }

    /// Bytes this subset occupies (for memory reporting).
    pub fn bytes(&self) -> usize {
        match self {
            VertexSubset::Sparse { ids, .. } => ids.capacity() * 4,
            VertexSubset::Dense { bits, .. } => bits.bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_keep_members() {
        let s = VertexSubset::from_ids(130, vec![129, 3, 64]);
        let d = s.into_dense();
        assert!(d.is_dense() && d.len() == 3 && d.contains(64) && !d.contains(65));
        let s2 = d.into_sparse();
        assert_eq!(s2.sparse_ids().unwrap(), &[3, 64, 129]);
        let all = VertexSubset::all(130);
        assert_eq!(all.len(), 130);
        assert_eq!(all.dense_bits().unwrap().count_ones(), 130);
        assert_eq!(all.to_sorted_ids().len(), 130);
    }
}
