//! The algorithms' correctness tests, one module per kernel, in one test binary: every
//! integration-test binary instantiates all the generic kernels again and links them on its
//! own, so one binary instead of a dozen cuts the test build several times over. (The memory
//! tests stay separate binaries: each installs its own counting global allocator.)

#[path = "../support/mod.rs"]
mod support;

mod bc_tests;
mod bfs_tests;
mod cc_tests;
mod degenerate_tests;
mod filter_algos_tests;
mod kcore_tests;
mod ooc_tests;
mod pagerank_tests;
mod passes_tests;
mod random_graphs_tests;
mod real_graphs_tests;
mod skewed_graphs_tests;
mod sssp_tests;
mod tc_tests;
mod tiles_tests;
