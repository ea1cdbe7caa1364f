//! The algorithms that delete edges keep Sage's relaxed budget: O(n) words plus the graph
//! filter's O(m) bits. Their heap peak minus the filter (which each reports in its stats) stays
//! under a few words per vertex whatever the number of arcs, and the filter itself stays under
//! 28 bytes a vertex plus 2 bits an arc (at 64 edges per block: 16 bytes per block, at most one
//! partial block per vertex, and degree, 32-bit block start, block count and a dirty bit).
//! Only `tc --method filter` keeps a filter: biconnectivity runs connectivity on a predicate
//! view, and matching and setcover read whole lists with their matched or covered bits as the
//! predicate, so all of their peak is O(n).

mod support;

use support::*;
use vastgraph_algos::biconnectivity::{biconnectivity, BiconnectivityParams};
use vastgraph_algos::matching::{maximal_matching, MatchingParams};
use vastgraph_algos::setcover::{set_cover, SetCoverParams};
use vastgraph_algos::tc::{tc, TcMethod, TcParams};
use vastgraph_algos::RunStats;
use vastgraph_engine::memory::{counting_enabled, measure_heap_peak, CountingAllocator};
use vastgraph_engine::{Adjacency, Graph, InMemoryGraph};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const N: usize = 1 << 16;

/// How much more the dense graph's peak (filter aside) may be, in words per vertex.
const SLACK: f64 = 0.25;

type Kernel<'g> = (&'static str, f64, Box<dyn Fn() -> RunStats + 'g>);

/// (kernel, its limit in words per vertex besides the filter, heap peak, filter bytes).
fn peaks<A: Adjacency>(g: &Graph<A>) -> Vec<(&'static str, f64, usize, u64)> {
    let kernels: Vec<Kernel> = vec![
        // One phase's edges (8 bytes each, about n/4 of them, twice while gathered), a pointer
        // per vertex, the matched bits, the output (n/2 edges reserved).
        (
            "matching",
            2.5,
            Box::new(|| {
                maximal_matching(g, &MatchingParams::default())
                    .unwrap()
                    .stats
            }),
        ),
        // Sizes, winner words, chosen flags, covered bits, the buckets' ids (with stale ones),
        // a round's sets, and the residual: a start and at most one element a vertex.
        (
            "setcover",
            4.5,
            Box::new(|| set_cover(g, &SetCoverParams::default()).unwrap().stats),
        ),
        // Parent, preorder, size, low and high (u32 each) beside connectivity's forest on the
        // view; no filter.
        (
            "biconnectivity",
            4.0,
            Box::new(|| {
                biconnectivity(g, &BiconnectivityParams::default())
                    .unwrap()
                    .stats
            }),
        ),
        // The workers' bitmaps and buffers only.
        (
            "tc filter",
            1.0,
            Box::new(|| {
                let params = TcParams {
                    method: TcMethod::Filter,
                    ..Default::default()
                };
                tc(g, &params).unwrap().stats
            }),
        ),
    ];
    kernels
        .iter()
        .map(|(name, limit, run)| {
            run(); // warm up: the thread pool and anything else allocated once per process
            let (stats, peak) = measure_heap_peak(run);
            let filter = stats
                .extra
                .get("filter_bytes")
                .map_or(0, |b| b.as_u64().unwrap());
            (*name, *limit, peak, filter)
        })
        .collect()
}

/// One test, so that no other test allocates while a peak is measured.
#[test]
fn state_is_linear_in_n_plus_filter_bits() {
    assert!(counting_enabled());
    with_threads(2, || {
        let sparse = InMemoryGraph::from_edges(N, &skewed_edges(N, 8 * N, 4, 1), true);
        let dense = InMemoryGraph::from_edges(N, &skewed_edges(N, 64 * N, 4, 1), true);
        let words = |bytes: u64| bytes as f64 / 8.0 / N as f64;
        let mut measured = vec![];
        let mut failures = vec![];
        for (graph, g) in [("m = 8n", &sparse), ("m = 64n", &dense)] {
            let arcs = g.view().num_arcs();
            let peaks = peaks(&g.view());
            for &(kernel, limit, peak, filter) in &peaks {
                let rest = words(peak as u64 - filter.min(peak as u64));
                let filter_bound = 28.0 * N as f64 + arcs as f64 * 2.0 / 8.0 + 1024.0;
                println!(
                    "{graph:8} {kernel:15} {rest:.2} words/vertex + filter {:.2} words/vertex = {:.2} bits/arc",
                    words(filter),
                    filter as f64 * 8.0 / arcs as f64
                );
                if filter as f64 > filter_bound {
                    failures.push(format!("{kernel} on {graph}: filter of {filter} bytes"));
                }
                if rest > limit {
                    failures.push(format!(
                        "{kernel} on {graph}: {rest:.2} words per vertex > {limit}"
                    ));
                }
            }
            measured.push(peaks);
        }
        assert!(failures.is_empty(), "{failures:#?}");
        for (s, d) in measured[0].iter().zip(&measured[1]) {
            let rest = |p: &(&str, f64, usize, u64)| words(p.2 as u64 - p.3.min(p.2 as u64));
            assert!(
                rest(d) <= rest(s) + SLACK,
                "{}: {:.2} words per vertex with m = 64n, {:.2} with m = 8n",
                s.0,
                rest(d),
                rest(s)
            );
        }
    });
}
