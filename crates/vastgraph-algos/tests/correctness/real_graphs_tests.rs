//! The algorithms without a module of their own here, on the real graphs of shared/data (skipped,
//! with a message, when absent): every one on road-luxembourg-osm and social-fb100-cornell5
//! (symmetrised; widest path with deterministic integer weights 1..=255), colouring / MIS /
//! spanning forest also on social-ego-twitter. Each run is timed on a 2-thread pool and checked by its verifier.

use std::time::{Duration, Instant};

use crate::support::{load_real, with_hashed_weights, with_threads, EdgeList};
use vastgraph_algos::coloring::{coloring, verify_coloring, ColoringParams};
use vastgraph_algos::densest::{densest_subgraph, verify_densest_subgraph, DensestParams};
use vastgraph_algos::label_propagation::{
    label_propagation, verify_label_propagation, LabelPropagationParams,
};
use vastgraph_algos::ldd::{low_diameter_decomposition, verify_ldd, LddParams};
use vastgraph_algos::mis::{maximal_independent_set, verify_mis, MisParams};
use vastgraph_algos::pagerank_variants::{
    delta_pagerank, personalized_pagerank, verify_delta_pagerank, verify_personalized_pagerank,
    DeltaPageRankParams, PersonalizedPageRankParams,
};
use vastgraph_algos::random_walk::{random_walks, verify_random_walks, RandomWalkParams};
use vastgraph_algos::spanner::{spanner, verify_spanner, SpannerParams};
use vastgraph_algos::spanning_forest::{
    spanning_forest, verify_spanning_forest, SpanningForestParams,
};
use vastgraph_algos::widest::{verify_widest_path, widest_path, WidestMethod, WidestParams};
use vastgraph_algos::{RunStats, VerifyError};
use vastgraph_engine::{CsrGraph, InMemoryGraph};

/// Runs `algo` once on 2 threads, prints its time and stats, and verifies the result.
fn timed<R>(
    graph: &str,
    name: &str,
    run: impl FnOnce() -> R + Send,
    stats: impl Fn(&R) -> &RunStats,
    verify: impl FnOnce(&R) -> Result<(), VerifyError>,
) -> R
where
    R: Send,
{
    let start = Instant::now();
    let result = with_threads(2, run);
    let took: Duration = start.elapsed();
    let s = stats(&result);
    println!(
        "{graph:>28} {name:<22} {:>9.1} ms  iterations {:>5}  edges {:>11}  {}",
        took.as_secs_f64() * 1e3,
        s.iterations,
        s.edges_traversed,
        serde_json::Value::Object(s.extra.clone())
    );
    verify(&result).unwrap_or_else(|e| panic!("{graph}: {e}"));
    result
}

fn structural(graph: &str, g: &CsrGraph) {
    let r = timed(
        graph,
        "coloring",
        || coloring(g, &ColoringParams::default()).unwrap(),
        |r| &r.stats,
        |r| verify_coloring(g, r),
    );
    assert!(
        r.stats.extra["colors_used"].as_u64().unwrap()
            <= r.stats.extra["max_degree"].as_u64().unwrap() + 1
    );
    timed(
        graph,
        "mis",
        || maximal_independent_set(g, &MisParams::default()).unwrap(),
        |r| &r.stats,
        |r| verify_mis(g, r),
    );
    timed(
        graph,
        "spanning_forest",
        || spanning_forest(g, &SpanningForestParams::default()).unwrap(),
        |r| &r.stats,
        |r| verify_spanning_forest(g, r),
    );
}

fn all_algorithms(name: &str) {
    let Some(EdgeList { n, edges }) = load_real(name) else {
        return;
    };
    let plain = InMemoryGraph::from_edges(n, &edges, true);
    let g = &plain.view();
    let weighted = InMemoryGraph::from_weighted_edges(n, &with_hashed_weights(&edges), true);
    let wg = &weighted.view();
    drop(edges);

    for method in [WidestMethod::Frontier, WidestMethod::Buckets] {
        let params = WidestParams {
            method,
            ..Default::default()
        };
        timed(
            name,
            &format!("widest {method:?}"),
            || widest_path(wg, &params).unwrap(),
            |r| &r.stats,
            |r| verify_widest_path(wg, &params, r),
        );
    }
    let params = LddParams::default();
    let r = timed(
        name,
        "ldd",
        || low_diameter_decomposition(g, &params).unwrap(),
        |r| &r.stats,
        |r| verify_ldd(g, r),
    );
    // Each edge is cut with probability ≤ 1 − e^(−β) < β (MPX); over ~10^5+ edges the
    // fraction stays below β.
    let cut = r.stats.extra["inter_cluster_arcs"].as_u64().unwrap() as f64;
    assert!(
        cut < params.beta * g.num_arcs() as f64,
        "{cut} of {} arcs cut",
        g.num_arcs()
    );
    let params = SpannerParams::default();
    let r = timed(
        name,
        "spanner",
        || spanner(g, &params).unwrap(),
        |r| &r.stats,
        |r| verify_spanner(g, r),
    );
    // R ≤ 8k fails with probability below n^-3 (see spanner.rs): an O(k) stretch in practice.
    let k = r.stats.extra["k"].as_u64().unwrap();
    assert!(
        r.stats.extra["max_radius"].as_u64().unwrap() <= 8 * k,
        "{:?}",
        r.stats
    );
    structural(name, g);
    let params = DensestParams::default();
    timed(
        name,
        "densest",
        || densest_subgraph(g, &params).unwrap(),
        |r| &r.stats,
        |r| verify_densest_subgraph(g, &params, r),
    );
    let params = LabelPropagationParams::default();
    timed(
        name,
        "label_propagation",
        || label_propagation(g, &params).unwrap(),
        |r| &r.stats,
        |r| verify_label_propagation(g, &params, r),
    );
    let params = RandomWalkParams {
        every: 10,
        length: 40,
        ..Default::default()
    };
    timed(
        name,
        "random_walk",
        || random_walks(g, &params).unwrap(),
        |r| &r.stats,
        |r| verify_random_walks(g, &params, r),
    );
    let params = DeltaPageRankParams::default();
    timed(
        name,
        "delta_pagerank",
        || delta_pagerank(g, &params).unwrap(),
        |r| &r.stats,
        |r| verify_delta_pagerank(g, &params, r),
    );
    let params = PersonalizedPageRankParams {
        sources: vec![0, n as u64 / 2],
        ..Default::default()
    };
    timed(
        name,
        "personalized_pagerank",
        || personalized_pagerank(g, &params).unwrap(),
        |r| &r.stats,
        |r| verify_personalized_pagerank(g, &params, r),
    );
}

#[test]
fn road_luxembourg_all_algorithms() {
    all_algorithms("road-luxembourg-osm");
}

#[test]
fn social_cornell5_all_algorithms() {
    all_algorithms("social-fb100-cornell5");
}

#[test]
fn social_ego_twitter_coloring_mis_forest() {
    let name = "social-ego-twitter-undirected";
    let Some(EdgeList { n, edges }) = load_real(name) else {
        return;
    };
    let g = InMemoryGraph::from_edges(n, &edges, true);
    structural(name, &g.view());
}
