//! Each algorithm declares the DRAM its kernel keeps (`STATE`, in the registry's table), and a
//! run within a memory budget sets that much aside before the rest goes to reading the graph:
//! a kernel that allocates more than it declares overruns the budget. Every kernel's heap
//! peak, output included, on sparse and dense weighted graphs with hubs and on 1 and 2 threads,
//! stays within its declaration.

mod support;

use support::*;
use vastgraph_algos::registry::{self, Params, ALGORITHMS};
use vastgraph_engine::memory::{counting_enabled, CountingAllocator};
use vastgraph_engine::InMemoryGraph;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const N: usize = 1 << 15;

/// One test, so that no other test allocates while a peak is measured.
#[test]
fn every_kernel_stays_within_its_declared_state() {
    assert!(counting_enabled());
    let params = Params::default().with("source", 0).with("max_iters", 20);
    let mut failures = Vec::new();
    for degree in [8, 48] {
        let edges: Vec<(u32, u32, f32)> = skewed_edges(N, degree * N / 2, 8, 3)
            .into_iter()
            .enumerate()
            .map(|(i, (u, v))| (u, v, (1 + i % 50) as f32))
            .collect();
        let g = InMemoryGraph::from_weighted_edges(N, &edges, true);
        let view = g.view();
        let (n, m) = (view.num_vertices() as u64, view.num_arcs());
        for threads in [1, 2] {
            with_threads(threads, || {
                for info in ALGORITHMS {
                    // Warm up: the thread pool and anything else allocated once per process.
                    let params = params.only_for(info.name);
                    registry::run(info.name, &view, &params, false).unwrap();
                    let out = registry::run(info.name, &view, &params, false).unwrap();
                    let declared = info.state.bytes(n, m, threads as u64);
                    let line = format!(
                        "{:22} m = {m:8}, {threads} thread(s): peak {:9} bytes, declared {declared:9}",
                        info.name, out.peak_mutable_bytes
                    );
                    println!("{line}");
                    if out.peak_mutable_bytes > declared {
                        failures.push(line);
                    }
                }
            });
        }
    }
    assert!(
        failures.is_empty(),
        "over their declaration:\n{}",
        failures.join("\n")
    );
}
