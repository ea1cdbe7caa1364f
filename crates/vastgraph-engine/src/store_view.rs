//! The graph view of an opened store, and the one place that picks the view a store's codec
//! needs ([`visit_store`]).

use vastgraph_store::{Codec, Store};

use crate::compressed::CompressedAdjacency;
use crate::graph::{Adjacency, CsrAdjacency, CsrGraph, Graph};

pub type CompressedGraph<'a> = Graph<CompressedAdjacency<'a>>;

impl<'a> CsrGraph<'a> {
    /// The raw CSR view of an opened store (which validated its arrays when it was opened).
    /// Raw stores only: [`visit_store`] serves every codec.
    pub fn from_store(store: &'a Store) -> Self {
        assert_eq!(
            store.codec(),
            Codec::Raw,
            "CsrGraph::from_store needs a raw store; use visit_store for any codec"
        );
        let incoming = match (store.in_offsets(), store.in_neighbors()) {
            (Some(o), Some(n)) => Some(CsrAdjacency::new(o, n, store.in_weights())),
            _ => None,
        };
        let symmetric = !store.manifest().directed;
        let mut out = CsrAdjacency::new(store.offsets(), store.neighbors(), store.weights());
        if let Some(firsts) = store.first_neighbors() {
            out = out.with_first_neighbors(firsts);
        }
        if let Some(tiles) = store.tiles() {
            out = out.with_tiles(tiles);
        }
        Graph::new(out, if symmetric { None } else { incoming }, symmetric)
    }
}

impl<'a> CompressedGraph<'a> {
    /// The view of a compressed store (any of `Codec::COMPRESSED`), or None
    /// for a raw one.
    pub fn from_store(store: &'a Store) -> Option<Self> {
        let mut out = CompressedAdjacency::new(store.byte_code()?, store.weights());
        if let Some(firsts) = store.first_neighbors() {
            out = out.with_first_neighbors(firsts);
        }
        if let Some(tiles) = store.tiles() {
            out = out.with_tiles(tiles);
        }
        let symmetric = !store.manifest().directed;
        let incoming = if symmetric {
            None
        } else {
            store
                .in_byte_code()
                .map(|lists| CompressedAdjacency::new(lists, store.in_weights()))
        };
        Some(Graph::new(out, incoming, symmetric))
    }
}

/// Work to run on a store's graph whatever its backend: `visit` is generic over the
/// adjacency, so it is compiled once per backend with the decoder inlined, and the codec is
/// matched once per run rather than once per neighbour.
pub trait GraphVisitor {
    type Output;
    fn visit<A: Adjacency>(self, graph: &Graph<A>) -> Self::Output;
}

/// Runs `visitor` on the graph of `store`, through the view its codec needs.
pub fn visit_store<V: GraphVisitor>(store: &Store, visitor: V) -> V::Output {
    match store.codec() {
        Codec::Raw => visitor.visit(&CsrGraph::from_store(store)),
        Codec::ByteCode64 | Codec::StreamVByte64 | Codec::FrameOfReference64 | Codec::Zeta64 => {
            match CompressedGraph::from_store(store) {
                Some(graph) => visitor.visit(&graph),
                // Store::open checked the codes' layout, so the lists are there.
                None => unreachable!("an opened compressed store has its encoded lists"),
            }
        }
    }
}
