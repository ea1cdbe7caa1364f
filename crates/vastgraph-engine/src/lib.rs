//! The semi-asymmetric engine (Sage's model): the graph is read-only and reached only through
//! [`Adjacency`]; every algorithm keeps its mutable state in DRAM in O(n) words. On top of that
//! sit Ligra-style primitives: [`VertexSubset`], [`edge_map`] (push/pull by frontier size, with
//! O(n) intermediate memory), [`vertex_map`], and Julienne-style [`Buckets`].

pub mod atomics;
pub mod bitmap;
pub mod bucket;
pub mod edge_map;
pub mod graph;
pub mod memory;
pub mod store_view;
pub mod subset;
pub mod vertex_map;

pub use bitmap::Bitmap;
pub use bucket::{BucketOrder, Buckets};
pub use edge_map::{edge_map, Direction, EdgeMapCounters, EdgeMapFn, EdgeMapOptions};
pub use graph::{Adjacency, CsrAdjacency, CsrGraph, Graph, InMemoryGraph};
pub use subset::VertexSubset;
pub use vastgraph_store::Vertex;
pub use vertex_map::{vertex_filter, vertex_map};
