//! Each algorithm declares the DRAM its kernel keeps (its descriptor's `state`), and a run
//! within a memory budget sets that much aside before the rest goes to reading the graph: a
//! kernel that allocates more than it declares overruns the budget. For every algorithm of the
//! registry, and the methods and switches that change what it keeps:
//!
//! - its heap peak, output included, stays within its declaration on sparse and dense weighted
//!   graphs with hubs, on 1 and 2 threads, and on a directed graph without its transpose;
//! - its state is O(n) beside what it declares per arc: an 8× denser graph on the same vertices
//!   raises the peak by no more than a small slack per vertex (frontiers and buckets fill up to
//!   their O(n) bounds) plus its declared bits per arc.

mod support;

use support::*;
use vastgraph_algos::registry::{self, Descriptor, Params, ALGORITHMS};
use vastgraph_engine::memory::{counting_enabled, CountingAllocator};
use vastgraph_engine::{CsrGraph, InMemoryGraph};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const N: usize = 1 << 15;

/// Growth allowed from the sparse to the dense graph, in 8-byte words per vertex, beyond the
/// declared bits per arc: frontiers fill up to their O(n) bounds, and k-core's buckets are as
/// many as the largest degree (at most n).
const SLACK_WORDS: f64 = 2.0;

/// Parameters that change what a kernel keeps: each is measured too.
fn variants() -> Vec<(&'static str, Params)> {
    vec![
        ("bfs", Params::default().with("parents", true)),
        ("cc", Params::default().with("method", "ldd")),
        ("tc", Params::default().with("method", "filter")),
        ("tc", Params::default().with("per_vertex", true)),
        ("widest", Params::default().with("method", "frontier")),
    ]
}

/// (what ran, its heap peak, its declaration) for every algorithm and variant that runs on `g`.
fn peaks(g: &CsrGraph<'_>, threads: u64) -> Vec<(String, usize, u64)> {
    let common = Params::default().with("source", 0).with("max_iters", 20);
    let runs = ALGORITHMS
        .iter()
        .map(|a| (a, Params::default()))
        .chain(variants().into_iter().map(|(name, p)| {
            let a: &Descriptor = registry::descriptor(name).unwrap();
            (a, p)
        }));
    let (n, m) = (g.num_vertices() as u64, g.num_arcs());
    let mut measured = Vec::new();
    for (a, extra) in runs {
        let in_edges = g.is_symmetric() || g.incoming().is_some();
        if (a.needs.symmetric && !g.is_symmetric()) || (a.needs.transpose && !in_edges) {
            continue;
        }
        let mut params = common.only_for(a.name);
        for name in extra.given() {
            params.set(name, extra.get(name).unwrap().clone());
        }
        // Warm up: the thread pool and anything else allocated once per process.
        registry::run_on_csr(a.name, g, &params, false).unwrap();
        let out = registry::run_on_csr(a.name, g, &params, false).unwrap();
        let given: Vec<String> = extra
            .given()
            .map(|name| format!("{name}={}", extra.get(name).unwrap()))
            .collect();
        let what = format!("{} {}", a.name, given.join(" "));
        measured.push((
            what,
            out.peak_mutable_bytes as usize,
            a.state.bytes(n, m, threads),
        ));
    }
    measured
}

fn weighted(degree: usize, symmetric: bool) -> InMemoryGraph {
    let edges: Vec<(u32, u32, f32)> = skewed_edges(N, degree * N / 2, 8, 3)
        .into_iter()
        .enumerate()
        .map(|(i, (u, v))| (u, v, (1 + i % 50) as f32))
        .collect();
    InMemoryGraph::from_weighted_edges(N, &edges, symmetric)
}

/// One test, so that no other test allocates while a peak is measured.
#[test]
fn every_kernel_keeps_its_declared_state_whatever_the_density() {
    assert!(counting_enabled());
    let sparse = weighted(8, true);
    let dense = weighted(64, true);
    let directed = weighted(64, false);
    let mut failures = Vec::new();
    for threads in [1, 2] {
        with_threads(threads, || {
            let on_sparse = peaks(&sparse.view(), threads as u64);
            let on_dense = peaks(&dense.view(), threads as u64);
            let on_directed = peaks(&without_transpose(&directed), threads as u64);
            for (graph, measured) in [
                ("sparse", &on_sparse),
                ("dense", &on_dense),
                ("directed, no transpose", &on_directed),
            ] {
                for (what, peak, declared) in measured {
                    let line = format!(
                        "{what:28} {graph:22} {threads} thread(s): peak {peak:9} bytes, declared {declared:9}"
                    );
                    println!("{line}");
                    if *peak as u64 > *declared {
                        failures.push(line);
                    }
                }
            }
            let arcs_added = dense.view().num_arcs() - sparse.view().num_arcs();
            for ((what, sparse_peak, _), (_, dense_peak, _)) in on_sparse.iter().zip(&on_dense) {
                let name = what.split(' ').next().unwrap();
                let per_arc = registry::descriptor(name).unwrap().state.bits_per_arc;
                let allowed = *sparse_peak as f64
                    + SLACK_WORDS * 8.0 * N as f64
                    + (per_arc * arcs_added) as f64 / 8.0;
                if *dense_peak as f64 > allowed {
                    failures.push(format!(
                        "{what}: {dense_peak} bytes on the dense graph, {sparse_peak} on the \
                         sparse one: more than the slack and its bits per arc"
                    ));
                }
            }
        });
    }
    assert!(
        failures.is_empty(),
        "over their declaration:\n{}",
        failures.join("\n")
    );
}
