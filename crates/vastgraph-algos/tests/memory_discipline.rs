//! The kernels keep O(n) words of state whatever the number of arcs: the heap peak of BFS, CC
//! and PageRank (output included) stays under C words per vertex, and an 8× denser graph on the
//! same vertices does not raise it beyond a small slack.

mod support;

use support::*;
use vastgraph_algos::bfs::{bfs, BfsParams};
use vastgraph_algos::cc::{connected_components, CcMethod, CcParams};
use vastgraph_algos::pagerank::{pagerank, PageRankParams};
use vastgraph_engine::memory::{counting_enabled, measure_heap_peak, CountingAllocator};
use vastgraph_engine::{Adjacency, Graph, InMemoryGraph};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// No kernel may allocate more than C 8-byte words per vertex at its peak, output included;
/// each also has its own, tighter limit below (what it needs, plus a little).
const C: f64 = 4.0;
/// How much more the dense graph's peak may be, in words per vertex (task-local buffers and
/// the like, which depend on how the work is split, not on m).
const SLACK: f64 = 0.25;

const N: usize = 1 << 16;

type Kernel<'g> = (&'static str, f64, Box<dyn Fn() + 'g>);

/// (kernel, its limit in words per vertex, heap peak in bytes).
fn peaks<A: Adjacency>(g: &Graph<A>) -> Vec<(&'static str, f64, usize)> {
    let kernels: Vec<Kernel> = vec![
        // i64 distances + the n/2-word queue + 3 bitmaps.
        (
            "bfs",
            2.0,
            Box::new(|| {
                drop(
                    bfs(
                        g,
                        &BfsParams {
                            source: 0,
                            parents: false,
                        },
                    )
                    .unwrap(),
                )
            }),
        ),
        (
            "bfs --parents",
            3.0,
            Box::new(|| {
                drop(
                    bfs(
                        g,
                        &BfsParams {
                            source: 0,
                            parents: true,
                        },
                    )
                    .unwrap(),
                )
            }),
        ),
        // The u32 forest, which becomes the labels.
        (
            "cc afforest",
            1.0,
            Box::new(|| drop(connected_components(g, &CcParams::default()).unwrap())),
        ),
        // The LDD's packed (cluster, parent) words, start rounds and order, then a u32 forest.
        (
            "cc ldd",
            C,
            Box::new(|| {
                drop(
                    connected_components(
                        g,
                        &CcParams {
                            method: CcMethod::Ldd,
                            ..Default::default()
                        },
                    )
                    .unwrap(),
                )
            }),
        ),
        // Scores + contributions (or atomic sums when pushing), both f64.
        (
            "pagerank",
            2.5,
            Box::new(|| {
                drop(
                    pagerank(
                        g,
                        &PageRankParams {
                            max_iters: 5,
                            ..Default::default()
                        },
                    )
                    .unwrap(),
                )
            }),
        ),
    ];
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
        let sparse = InMemoryGraph::from_edges(N, &skewed_edges(N, 8 * N, 4, 1), true);
        let dense = InMemoryGraph::from_edges(N, &skewed_edges(N, 64 * N, 4, 1), true);
        let directed = InMemoryGraph::from_edges(N, &skewed_edges(N, 64 * N, 4, 1), false);
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
                println!("{graph:32} {kernel:14} {:.2} words/vertex", words(bytes));
                assert!(limit <= C);
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
