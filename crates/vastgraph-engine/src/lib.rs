//! The semi-asymmetric engine (Sage's model): the graph is read-only and reached only through
//! [`Adjacency`]; every algorithm keeps its mutable state in DRAM in O(n) words. On top of that
//! sit Ligra-style primitives: [`VertexSubset`], [`edge_map`] (push/pull by frontier size, with
//! O(n) intermediate memory), [`vertex_map`], Julienne-style [`Buckets`], and Sage's
//! [`GraphFilter`] for deleting edges of the read-only graph in O(m) bits.

pub mod atomics;
pub mod bitmap;
pub mod bucket;
pub mod compressed;
pub mod edge_map;
pub mod error;
pub mod filter;
pub mod graph;
pub mod interrupt;
pub mod lane_sum;
pub mod memory;
pub mod ooc;
pub mod progress;
pub mod store_view;
pub mod subset;
pub mod tiles;
pub mod traverse;
pub mod vertex_map;

pub use bitmap::Bitmap;
pub use bucket::{BucketOrder, Buckets};
pub use compressed::CompressedAdjacency;
pub use edge_map::{edge_map, Direction, EdgeMapCounters, EdgeMapFn, EdgeMapOptions};
pub use error::EngineError;
pub use filter::{
    make_filter, FilterStats, FilteredAdjacency, GraphFilter, PackedSubset, FILTER_BLOCK_SIZE,
};
pub use graph::{
    Adjacency, CsrAdjacency, CsrGraph, Graph, InMemoryGraph, ListVisitor, NoSlices, NEIGHBOR_BLOCK,
};
pub use store_view::{visit_store, CompressedGraph, GraphVisitor};
pub use subset::VertexSubset;
pub use traverse::{PredicateView, PullSpec, Traversal};
pub use vastgraph_store::Vertex;
pub use vertex_map::{vertex_filter, vertex_map};
