//! Graph algorithms on the vastgraph engine. One file per algorithm, each with an independent
//! verifier beside it (GAP-style: a simple sequential check that shares no code with the
//! parallel kernel). All mutable state is O(n) words.

pub mod bc;
pub mod bfs;
pub mod cc;
pub mod common;
pub mod kcore;
pub mod pagerank;
pub mod sssp;
pub mod tc;

pub use common::{AlgoError, RunStats, VerifyError};
