//! Where parsed edges go. The store builder is the real sink; tests collect into vectors;
//! benchmarks count; `BinEdgeWriter` (in `binary`) writes a binary edge list.

/// A consumer of edge batches, fed strictly in input order.
pub trait EdgeSink {
    /// One batch of edges `src[i] → dst[i]`; `weights`, when present, has one weight per
    /// edge. All slices have equal lengths.
    fn push_batch(
        &mut self,
        src: &[u32],
        dst: &[u32],
        weights: Option<&[f64]>,
    ) -> anyhow::Result<()>;

    /// The graph has at least `n` vertices (a header-declared count, which may include
    /// isolated vertices that no edge mentions).
    fn ensure_vertices(&mut self, n: u64);

    /// The vertex labels in dense-id order (label mode only; called once, after all edges).
    fn set_labels(&mut self, labels: Vec<String>);
}

impl<S: EdgeSink + ?Sized> EdgeSink for &mut S {
    fn push_batch(
        &mut self,
        src: &[u32],
        dst: &[u32],
        weights: Option<&[f64]>,
    ) -> anyhow::Result<()> {
        (**self).push_batch(src, dst, weights)
    }
    fn ensure_vertices(&mut self, n: u64) {
        (**self).ensure_vertices(n)
    }
    fn set_labels(&mut self, labels: Vec<String>) {
        (**self).set_labels(labels)
    }
}

/// The real sink: edges go straight into the out-of-core store builder.
impl EdgeSink for vastgraph_store::StoreBuilder {
    fn push_batch(
        &mut self,
        src: &[u32],
        dst: &[u32],
        weights: Option<&[f64]>,
    ) -> anyhow::Result<()> {
        Ok(vastgraph_store::StoreBuilder::push_batch(
            self, src, dst, weights,
        )?)
    }
    fn ensure_vertices(&mut self, n: u64) {
        vastgraph_store::StoreBuilder::ensure_vertices(self, n)
    }
    fn set_labels(&mut self, labels: Vec<String>) {
        vastgraph_store::StoreBuilder::set_labels(self, labels)
    }
}

/// Collects everything in memory: for tests and small graphs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VecSink {
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    /// One weight per edge if the batches were weighted, else empty.
    pub weights: Vec<f64>,
    /// The largest `ensure_vertices` argument seen.
    pub declared_vertices: u64,
    pub labels: Option<Vec<String>>,
    pub batches: usize,
}

impl VecSink {
    /// The edges as (src, dst) pairs.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        self.src
            .iter()
            .copied()
            .zip(self.dst.iter().copied())
            .collect()
    }
}

impl EdgeSink for VecSink {
    fn push_batch(
        &mut self,
        src: &[u32],
        dst: &[u32],
        weights: Option<&[f64]>,
    ) -> anyhow::Result<()> {
        anyhow::ensure!(src.len() == dst.len(), "src and dst lengths differ");
        anyhow::ensure!(
            weights.is_some() != self.weights.is_empty() || self.src.is_empty(),
            "weighted and unweighted batches mixed"
        );
        if let Some(w) = weights {
            anyhow::ensure!(w.len() == src.len(), "weights length differs from edges");
            self.weights.extend_from_slice(w);
        }
        self.src.extend_from_slice(src);
        self.dst.extend_from_slice(dst);
        self.batches += 1;
        Ok(())
    }
    fn ensure_vertices(&mut self, n: u64) {
        self.declared_vertices = self.declared_vertices.max(n);
    }
    fn set_labels(&mut self, labels: Vec<String>) {
        self.labels = Some(labels);
    }
}

/// Counts edges and tracks the largest id, keeping nothing: for benchmarks and dry runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CountingSink {
    pub edges: u64,
    pub batches: u64,
    /// One more than the largest id seen (in an edge or declared), i.e. the vertex count.
    pub vertices: u64,
    pub labels: u64,
}

impl EdgeSink for CountingSink {
    fn push_batch(
        &mut self,
        src: &[u32],
        dst: &[u32],
        _weights: Option<&[f64]>,
    ) -> anyhow::Result<()> {
        if !src.is_empty() {
            // Two branch-free folds vectorise; a chained iterator would not.
            let max = |ids: &[u32]| ids.iter().fold(0, |m, &v| m.max(v));
            self.vertices = self.vertices.max(max(src).max(max(dst)) as u64 + 1);
        }
        self.edges += src.len() as u64;
        self.batches += 1;
        Ok(())
    }
    fn ensure_vertices(&mut self, n: u64) {
        self.vertices = self.vertices.max(n);
    }
    fn set_labels(&mut self, labels: Vec<String>) {
        self.labels = labels.len() as u64;
    }
}
