//! SSSP, Bellman-Ford, BC, k-core and TC keep O(n) words of state whatever the number of arcs:
//! each one's heap peak (output included) stays under its own limit in words per vertex, and
//! an 8× denser graph on the same vertices does not raise it beyond a small slack.

mod support;

use support::*;
use vastgraph_algos::bc::{bc, BcParams};
use vastgraph_algos::kcore::{kcore, KcoreParams};
use vastgraph_algos::sssp::{bellman_ford, sssp, BellmanFordParams, SsspParams};
use vastgraph_algos::tc::{tc, TcParams};
use vastgraph_engine::memory::{counting_enabled, measure_heap_peak, CountingAllocator};
use vastgraph_engine::{Adjacency, Graph, InMemoryGraph};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Growth allowed from m = 8n to m = 64n, in words per vertex: frontiers and bucket contents
/// grow with density (up to their O(n) bounds), while even 4 bytes per arc would add 28.
const SLACK: f64 = 1.0;

const N: usize = 1 << 16;

type Kernel<'g> = (&'static str, f64, Box<dyn Fn() + 'g>);

/// (kernel, its limit in 8-byte words per vertex, heap peak in bytes).
fn peaks<A: Adjacency>(g: &Graph<A>) -> Vec<(&'static str, f64, usize)> {
    let symmetric = g.is_symmetric();
    let mut kernels: Vec<Kernel> = vec![
        // Distances, flag bytes, buckets (at most 2n ids, in growable vectors), frontier and
        // output ids.
        (
            "sssp",
            4.0,
            Box::new(|| drop(sssp(g, &SsspParams::default()).unwrap())),
        ),
        // Distances, moved flags, frontier and output ids.
        (
            "bellman-ford",
            3.0,
            Box::new(|| drop(bellman_ford(g, &BellmanFordParams::default()).unwrap())),
        ),
        // σ, levels, BFS order, dependencies.
        (
            "bc",
            3.5,
            Box::new(|| drop(bc(g, &BcParams::default()).unwrap())),
        ),
    ];
    if symmetric {
        // Degrees, flag bytes, buckets (at most 2n ids, in growable vectors), frontier and
        // output ids.
        kernels.push((
            "kcore",
            4.0,
            Box::new(|| drop(kcore(g, &KcoreParams::default()).unwrap())),
        ));
        // The N⁺ cache (4 ids per vertex = 2 words, its index, the list of cached vertices).
        kernels.push((
            "tc",
            3.5,
            Box::new(|| drop(tc(g, &TcParams::default()).unwrap())),
        ));
        kernels.push((
            "tc --per-vertex",
            4.5,
            Box::new(|| {
                drop(
                    tc(
                        g,
                        &TcParams {
                            per_vertex: true,
                            ..Default::default()
                        },
                    )
                    .unwrap(),
                )
            }),
        ));
    }
    kernels
        .iter()
        .map(|(name, limit, run)| {
            run(); // warm up: the thread pool and anything else allocated once per process
            (*name, *limit, measure_heap_peak(run).1)
        })
        .collect()
}

/// One test, so that no other test allocates while a peak is measured.
#[test]
fn heap_peaks_are_linear_in_n_and_independent_of_m() {
    assert!(counting_enabled());
    with_threads(2, || {
        let weighted = |m: usize, symmetric: bool| {
            InMemoryGraph::from_weighted_edges(
                N,
                &with_hashed_weights(&skewed_edges(N, m, 4, 1)),
                symmetric,
            )
        };
        let sparse = weighted(8 * N, true);
        let dense = weighted(64 * N, true);
        let directed = weighted(64 * N, false);
        let measured = [
            ("m = 8n", peaks(&sparse.view())),
            ("m = 64n", peaks(&dense.view())),
            (
                "m = 64n directed, no transpose",
                peaks(&without_transpose(&directed)),
            ),
        ];
        let words = |bytes: usize| bytes as f64 / 8.0 / N as f64;
        for (graph, peaks) in &measured {
            for &(kernel, limit, bytes) in peaks {
                println!("{graph:32} {kernel:16} {:.2} words/vertex", words(bytes));
                assert!(
                    words(bytes) <= limit,
                    "{kernel} on {graph}: {:.2} words per vertex > {limit}",
                    words(bytes)
                );
            }
        }
        for ((kernel, _, sparse_peak), (_, _, dense_peak)) in
            measured[0].1.iter().zip(&measured[1].1)
        {
            assert!(
                words(*dense_peak) <= words(*sparse_peak) + SLACK,
                "{kernel}: {:.2} words per vertex with m = 64n, {:.2} with m = 8n",
                words(*dense_peak),
                words(*sparse_peak)
            );
        }
    });
}
