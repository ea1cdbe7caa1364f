//! The algorithms' correctness tests, one module per kernel, through the crates' public
//! interfaces, in the library's own test binary. Each test binary compiles again every generic
//! kernel it reaches, and the library's unit tests reach them all on the graph types these
//! tests use; in that binary rather than one of their own, the kernels are compiled for tests
//! once. (The memory tests stay separate binaries, each with its own counting global
//! allocator; they run kernels through the registry, which compiles none again.)

#[path = "../../tests/support/mod.rs"]
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
