//! The algorithms without a module of their own here, on generated skewed (R-MAT) graphs big
//! enough that edge_map switches between push and pull and splits hub vertices across tasks:
//! every result passes its verifier and is identical on 1 and 2 threads.

use crate::support::{rmat_edges, with_hashed_weights, with_threads};
use vastgraph_algos::coloring::{coloring, verify_coloring, ColoringParams};
use vastgraph_algos::densest::{densest_subgraph, verify_densest_subgraph, DensestParams};
use vastgraph_algos::label_propagation::{
    label_propagation, verify_label_propagation, LabelPropagationParams,
};
use vastgraph_algos::ldd::{ldd, low_diameter_decomposition, verify_ldd, LddParams};
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
use vastgraph_engine::{Adjacency, InMemoryGraph};

const SCALE: u32 = 15;
const EDGES: usize = 250_000;

/// R-MAT plus one star hub of degree 10 000 (beyond edge_map's split threshold of 8192).
fn skewed_edges(seed: u64) -> Vec<(u32, u32)> {
    let mut edges = rmat_edges(SCALE, EDGES, seed);
    edges.extend((1..=10_000).map(|i| (7, 3 * i)));
    edges
}

fn skewed(symmetric: bool, seed: u64) -> InMemoryGraph {
    InMemoryGraph::from_edges(1 << SCALE, &skewed_edges(seed), symmetric)
}

/// Runs `run` on 1 and on 2 threads and demands equal outputs; returns the 2-thread one.
fn same_on_1_and_2_threads<T: PartialEq + std::fmt::Debug + Send>(
    what: &str,
    run: impl Fn() -> T + Sync,
) -> T {
    let one = with_threads(1, &run);
    let two = with_threads(2, &run);
    assert!(one == two, "{what}: 1 and 2 threads disagree");
    two
}

#[test]
fn hubs_exist_so_heavy_paths_are_exercised() {
    let g = skewed(true, 1);
    let v = g.view();
    let max_degree = (0..v.num_vertices() as u32)
        .map(|u| v.out().degree(u))
        .max()
        .unwrap();
    assert!(max_degree > 8192, "max degree {max_degree}");
}

#[test]
fn widest_path_on_skewed_graphs() {
    for symmetric in [true, false] {
        let edges = skewed_edges(2);
        let g =
            InMemoryGraph::from_weighted_edges(1 << SCALE, &with_hashed_weights(&edges), symmetric);
        let mut all = vec![];
        for method in [WidestMethod::Frontier, WidestMethod::Buckets] {
            let params = WidestParams {
                method,
                ..Default::default()
            };
            let r = same_on_1_and_2_threads("widest", || {
                let r = widest_path(&g.view(), &params).unwrap();
                r.widths.iter().map(|w| w.to_bits()).collect::<Vec<_>>()
            });
            let result = widest_path(&g.view(), &params).unwrap();
            verify_widest_path(&g.view(), &params, &result).unwrap();
            all.push(r);
        }
        assert_eq!(all[0], all[1]);
    }
}

#[test]
fn ldd_spanner_and_forest_on_a_skewed_graph() {
    let g = skewed(true, 3);
    let params = LddParams::default();
    let clusters = same_on_1_and_2_threads("ldd", || {
        low_diameter_decomposition(&g.view(), &params)
            .unwrap()
            .clusters
    });
    let r = low_diameter_decomposition(&g.view(), &params).unwrap();
    verify_ldd(&g.view(), &r).unwrap();
    let cut = r.stats.extra["inter_cluster_arcs"].as_u64().unwrap() as f64;
    assert!(
        cut < params.beta * g.view().num_arcs() as f64,
        "{cut} arcs cut"
    );
    assert_eq!(clusters, ldd(&g.view(), params.beta, params.seed));

    let edges = same_on_1_and_2_threads("spanner", || {
        spanner(&g.view(), &SpannerParams::default()).unwrap().edges
    });
    let r = spanner(&g.view(), &SpannerParams::default()).unwrap();
    assert_eq!(edges, r.edges);
    verify_spanner(&g.view(), &r).unwrap();
    assert!(
        r.edges.len() as u64 * 2 < g.view().num_arcs(),
        "spanner keeps {} edges",
        r.edges.len()
    );

    let forest = same_on_1_and_2_threads("forest", || {
        spanning_forest(&g.view(), &SpanningForestParams::default())
            .unwrap()
            .edges
    });
    let r = spanning_forest(&g.view(), &SpanningForestParams::default()).unwrap();
    assert_eq!(forest, r.edges);
    verify_spanning_forest(&g.view(), &r).unwrap();
}

#[test]
fn coloring_mis_densest_on_a_skewed_graph() {
    let g = skewed(true, 4);
    let colors = same_on_1_and_2_threads("coloring", || {
        coloring(&g.view(), &ColoringParams::default())
            .unwrap()
            .colors
    });
    let r = coloring(&g.view(), &ColoringParams::default()).unwrap();
    assert_eq!(colors, r.colors);
    verify_coloring(&g.view(), &r).unwrap();

    let set = same_on_1_and_2_threads("mis", || {
        maximal_independent_set(&g.view(), &MisParams::default())
            .unwrap()
            .in_set
    });
    let r = maximal_independent_set(&g.view(), &MisParams::default()).unwrap();
    assert_eq!(set, r.in_set);
    verify_mis(&g.view(), &r).unwrap();

    let params = DensestParams::default();
    let chosen = same_on_1_and_2_threads("densest", || {
        densest_subgraph(&g.view(), &params).unwrap().in_subgraph
    });
    let r = densest_subgraph(&g.view(), &params).unwrap();
    assert_eq!(chosen, r.in_subgraph);
    verify_densest_subgraph(&g.view(), &params, &r).unwrap();
}

#[test]
fn label_propagation_walks_and_pagerank_on_skewed_graphs() {
    for symmetric in [true, false] {
        let g = skewed(symmetric, 5);
        let params = LabelPropagationParams::default();
        let labels = same_on_1_and_2_threads("lpa", || {
            label_propagation(&g.view(), &params).unwrap().labels
        });
        let r = label_propagation(&g.view(), &params).unwrap();
        assert_eq!(labels, r.labels);
        verify_label_propagation(&g.view(), &params, &r).unwrap();

        let params = RandomWalkParams {
            every: 7,
            length: 20,
            ..Default::default()
        };
        let walks =
            same_on_1_and_2_threads("walks", || random_walks(&g.view(), &params).unwrap().walks);
        let r = random_walks(&g.view(), &params).unwrap();
        assert_eq!(walks, r.walks);
        verify_random_walks(&g.view(), &params, &r).unwrap();

        let params = DeltaPageRankParams::default();
        let bits = |s: &[f64]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let scores = same_on_1_and_2_threads("delta-pr", || {
            bits(&delta_pagerank(&g.view(), &params).unwrap().scores)
        });
        let r = delta_pagerank(&g.view(), &params).unwrap();
        assert_eq!(scores, bits(&r.scores));
        verify_delta_pagerank(&g.view(), &params, &r).unwrap();

        let params = PersonalizedPageRankParams {
            sources: vec![0, 1, 2, 100],
            ..Default::default()
        };
        let scores = same_on_1_and_2_threads("ppr", || {
            bits(&personalized_pagerank(&g.view(), &params).unwrap().scores)
        });
        let r = personalized_pagerank(&g.view(), &params).unwrap();
        assert_eq!(scores, bits(&r.scores));
        verify_personalized_pagerank(&g.view(), &params, &r).unwrap();
    }
}
