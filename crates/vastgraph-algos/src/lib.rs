//! Graph algorithms on the vastgraph engine. One file per algorithm, each with an independent
//! verifier beside it (GAP-style: a simple sequential check that shares no code with the
//! parallel kernel). All mutable state is O(n) words.

pub mod algorithm;
pub mod bc;
pub mod bfs;
pub mod biconnectivity;
pub mod budget;
pub mod cc;
pub mod checkpoint;
pub mod coloring;
pub mod common;
pub mod densest;
pub mod harness;
pub mod hashing;
pub mod kcore;
pub mod label_propagation;
pub mod ldd;
pub mod matching;
pub mod mis;
pub mod pagerank;
pub mod pagerank_variants;
pub mod priority;
pub mod random_walk;
pub mod registry;
pub mod scc;
mod serial_check;
pub mod setcover;
pub mod spanner;
pub mod spanning_forest;
pub mod sssp;
pub mod tc;
pub mod widest;

pub use common::{AlgoError, RunStats, VerifyError};
