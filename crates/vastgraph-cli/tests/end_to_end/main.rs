//! The `vastgraph` binary end to end, in one test binary (one link instead of one per file).

mod common;

mod bad_input;
mod basics;
mod checkpoints;
mod compressed;
mod fuzz_corpora;
mod interrupts;
mod out_of_core;
mod reorder;
mod tiles;
