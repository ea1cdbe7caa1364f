//! The `vastgraph` binary: the command line of [`vastgraph_cli`].

use std::process::ExitCode;

/// Heap accounting for the `peak_mutable_bytes` statistic: the graph is mapped, never on the heap,
/// so the heap is the algorithms' mutable state.
#[global_allocator]
static ALLOCATOR: vastgraph_engine::memory::CountingAllocator =
    vastgraph_engine::memory::CountingAllocator;

fn main() -> ExitCode {
    ExitCode::from(vastgraph_cli::main_with(std::env::args_os()))
}
