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
use vastgraph_algos::registry::{run_on_csr, Params};
use vastgraph_engine::memory::{counting_enabled, CountingAllocator};
use vastgraph_engine::{CsrGraph, InMemoryGraph};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const N: usize = 1 << 16;

/// How much more the dense graph's peak (filter aside) may be, in words per vertex.
const SLACK: f64 = 0.25;

/// (kernel, its limit in words per vertex besides the filter, heap peak, filter bytes). The
/// kernels run through the registry, whose `peak_mutable_bytes` is the kernel's own heap peak.
fn peaks(g: &CsrGraph<'_>) -> Vec<(&'static str, f64, usize, u64)> {
    let kernels: [(&str, &str, Params, f64); 4] = [
        // One phase's edges (8 bytes each, about n/4 of them, twice while gathered), a pointer
        // per vertex, the matched bits, the output (n/2 edges reserved).
        ("matching", "matching", Params::default(), 2.5),
        // Sizes, winner words, chosen flags, covered bits, the buckets' ids (with stale ones),
        // a round's sets, and the residual: a start and at most one element a vertex.
        ("setcover", "setcover", Params::default(), 4.5),
        // Parent, preorder, size, low and high (u32 each) beside connectivity's forest on the
        // view; no filter.
        ("biconnectivity", "biconnectivity", Params::default(), 4.0),
        // The workers' bitmaps and buffers only.
        (
            "tc filter",
            "tc",
            Params::default().with("method", "filter"),
            1.0,
        ),
    ];
    kernels
        .iter()
        .map(|(label, name, params, limit)| {
            // Warm up: the thread pool and anything else allocated once per process.
            run_on_csr(name, g, params, false).unwrap();
            let output = run_on_csr(name, g, params, false).unwrap();
            let filter = output
                .stats
                .extra
                .get("filter_bytes")
                .map_or(0, |b| b.as_u64().unwrap());
            (*label, *limit, output.peak_mutable_bytes as usize, filter)
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
