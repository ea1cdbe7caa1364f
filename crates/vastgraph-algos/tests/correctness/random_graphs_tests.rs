//! The algorithms without a module of their own here, against their verifiers on small random
//! graphs (proptest), plus the exact-equality claims: MIS and colouring equal the sequential
//! greedy in priority order, the spanning forest equals serial Kruskal in lexicographic edge
//! order, and both widest-path schedules give the same widths.

use proptest::prelude::*;
use vastgraph_algos::coloring::{coloring, verify_coloring, ColoringParams};
use vastgraph_algos::densest::{densest_subgraph, verify_densest_subgraph, DensestParams};
use vastgraph_algos::label_propagation::{
    label_propagation, verify_label_propagation, LabelPropagationParams, Schedule,
};
use vastgraph_algos::ldd::{low_diameter_decomposition, verify_ldd, LddParams};
use vastgraph_algos::mis::{maximal_independent_set, verify_mis, MisParams};
use vastgraph_algos::pagerank_variants::{
    delta_pagerank, personalized_pagerank, verify_delta_pagerank, verify_personalized_pagerank,
    DeltaPageRankParams, PersonalizedPageRankParams,
};
use vastgraph_algos::priority::VertexPriority;
use vastgraph_algos::random_walk::{random_walks, verify_random_walks, RandomWalkParams};
use vastgraph_algos::spanner::{spanner, verify_spanner, SpannerParams};
use vastgraph_algos::spanning_forest::{
    spanning_forest, verify_spanning_forest, SpanningForestParams,
};
use vastgraph_algos::widest::{verify_widest_path, widest_path, WidestMethod, WidestParams};
use vastgraph_engine::{Adjacency, InMemoryGraph};

/// (n, edges) with n in 1..max_n and up to 3n edges (self-loops and repeats included).
fn graph(max_n: u32) -> impl Strategy<Value = (u32, Vec<(u32, u32)>)> {
    (1..max_n).prop_flat_map(|n| {
        (
            Just(n),
            prop::collection::vec((0..n, 0..n), 0..(3 * n as usize + 1)),
        )
    })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 96,
        ..ProptestConfig::default()
    }
}

/// The sequential greedy MIS: vertices in priority order join unless a neighbour already did.
fn greedy_mis(g: &InMemoryGraph, order: &[u32]) -> Vec<u8> {
    let v = g.view();
    let mut in_set = vec![0u8; order.len()];
    for &u in order {
        let mut blocked = false;
        v.out()
            .for_each_neighbor(u, |w| blocked |= w != u && in_set[w as usize] == 1);
        in_set[u as usize] = (!blocked) as u8;
    }
    in_set
}

/// The sequential greedy colouring: in priority order, the smallest colour no coloured
/// neighbour has.
fn greedy_coloring(g: &InMemoryGraph, order: &[u32]) -> Vec<u32> {
    let v = g.view();
    let mut colors = vec![u32::MAX; order.len()];
    for &u in order {
        let mut taken = vec![];
        v.out().for_each_neighbor(u, |w| {
            if w != u && colors[w as usize] != u32::MAX {
                taken.push(colors[w as usize]);
            }
        });
        colors[u as usize] = (0..).find(|c| !taken.contains(c)).unwrap();
    }
    colors
}

/// Kruskal over the edges in lexicographic (min, max) order.
fn kruskal_lexicographic(n: usize, edges: &[(u32, u32)]) -> Vec<[u32; 2]> {
    let mut sorted: Vec<[u32; 2]> = edges
        .iter()
        .filter(|e| e.0 != e.1)
        .map(|&(a, b)| [a.min(b), a.max(b)])
        .collect();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            x = p[x as usize];
        }
        x
    }
    let mut forest = vec![];
    for [a, b] in sorted {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            parent[ra as usize] = rb;
            forest.push([a, b]);
        }
    }
    forest
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn widest_both_schedules_match_serial_dijkstra(
        (n, edges) in graph(40),
        weights in prop::collection::vec(0u8..12, 120),
        symmetric: bool,
        source_pick: u32,
        width in prop::option::of(0.5f64..5.0),
    ) {
        let weighted: Vec<(u32, u32, f32)> =
            edges.iter().enumerate().map(|(i, &(u, v))| (u, v, weights[i % weights.len()] as f32))
                .collect();
        let g = InMemoryGraph::from_weighted_edges(n as usize, &weighted, symmetric);
        let mut results = vec![];
        for method in [WidestMethod::Frontier, WidestMethod::Buckets] {
            let source = (source_pick % n) as u64;
            let params = WidestParams { source, method, bucket_width: width, ..Default::default() };
            let r = widest_path(&g.view(), &params).unwrap();
            verify_widest_path(&g.view(), &params, &r).unwrap();
            results.push(r.widths);
        }
        prop_assert_eq!(&results[0], &results[1]);
    }

    #[test]
    fn ldd_clusters_are_connected(
        (n, edges) in graph(60),
        beta in 0.05f64..2.0,
        seed: u64,
    ) {
        let g = InMemoryGraph::from_edges(n as usize, &edges, true);
        let r = low_diameter_decomposition(&g.view(), &LddParams { beta, seed }).unwrap();
        verify_ldd(&g.view(), &r).unwrap();
    }

    #[test]
    fn spanner_is_a_connected_subgraph_with_bounded_stretch(
        (n, edges) in graph(60),
        k in prop::option::of(1u32..6),
        seed: u64,
    ) {
        let g = InMemoryGraph::from_edges(n as usize, &edges, true);
        let r = spanner(&g.view(), &SpannerParams { k, seed }).unwrap();
        verify_spanner(&g.view(), &r).unwrap();
    }

    #[test]
    fn spanning_forest_is_lexicographic_kruskal((n, edges) in graph(60)) {
        let g = InMemoryGraph::from_edges(n as usize, &edges, true);
        let r = spanning_forest(&g.view(), &SpanningForestParams::default()).unwrap();
        verify_spanning_forest(&g.view(), &r).unwrap();
        prop_assert_eq!(r.edges, kruskal_lexicographic(n as usize, &edges));
    }

    #[test]
    fn coloring_is_proper_and_the_priority_greedy((n, edges) in graph(60), seed: u64) {
        let g = InMemoryGraph::from_edges(n as usize, &edges, true);
        let r = coloring(&g.view(), &ColoringParams { seed }).unwrap();
        verify_coloring(&g.view(), &r).unwrap();
        let order = VertexPriority::largest_log_degree_first(g.view().out(), seed).order();
        prop_assert_eq!(r.colors, greedy_coloring(&g, &order));
    }

    #[test]
    fn mis_is_maximal_and_the_priority_greedy((n, edges) in graph(60), seed: u64) {
        let g = InMemoryGraph::from_edges(n as usize, &edges, true);
        let r = maximal_independent_set(&g.view(), &MisParams { seed }).unwrap();
        verify_mis(&g.view(), &r).unwrap();
        let order = VertexPriority::random(n as usize, seed).order();
        prop_assert_eq!(r.in_set, greedy_mis(&g, &order));
    }

    #[test]
    fn densest_is_within_the_bound_of_the_exact_optimum(
        (n, edges) in graph(17),
        epsilon in prop::sample::select(vec![0.0, 0.001, 0.1, 1.0]),
    ) {
        let g = InMemoryGraph::from_edges(n as usize, &edges, true);
        let params = DensestParams { epsilon };
        let r = densest_subgraph(&g.view(), &params).unwrap();
        verify_densest_subgraph(&g.view(), &params, &r).unwrap();
    }

    #[test]
    fn label_propagation_matches_a_serial_rerun(
        (n, edges) in graph(60),
        symmetric: bool,
        max_iters in 0u32..25,
    ) {
        let g = InMemoryGraph::from_edges(n as usize, &edges, symmetric);
        let params = LabelPropagationParams { max_iters, schedule: Schedule::Synchronous };
        let r = label_propagation(&g.view(), &params).unwrap();
        verify_label_propagation(&g.view(), &params, &r).unwrap();
        if symmetric {
            let params = LabelPropagationParams { max_iters, schedule: Schedule::SemiSynchronous };
            let r = label_propagation(&g.view(), &params).unwrap();
            verify_label_propagation(&g.view(), &params, &r).unwrap();
        }
    }

    #[test]
    fn random_walks_follow_arcs(
        (n, edges) in graph(40),
        symmetric: bool,
        length in 0usize..12,
        every in 1u64..4,
        seed: u64,
    ) {
        let g = InMemoryGraph::from_edges(n as usize, &edges, symmetric);
        let params = RandomWalkParams { sources: None, every, length, seed };
        let r = random_walks(&g.view(), &params).unwrap();
        verify_random_walks(&g.view(), &params, &r).unwrap();
        let again = random_walks(&g.view(), &params).unwrap();
        prop_assert_eq!(r.walks, again.walks);
    }

    #[test]
    fn pagerank_variants_match_serial_power_iteration(
        (n, edges) in graph(50),
        symmetric: bool,
        sources in prop::collection::vec(any::<u32>(), 1..4),
    ) {
        let g = InMemoryGraph::from_edges(n as usize, &edges, symmetric);
        let params = DeltaPageRankParams::default();
        let r = delta_pagerank(&g.view(), &params).unwrap();
        verify_delta_pagerank(&g.view(), &params, &r).unwrap();
        let sources = sources.iter().map(|&s| (s % n) as u64).collect();
        let params = PersonalizedPageRankParams { sources, ..Default::default() };
        let r = personalized_pagerank(&g.view(), &params).unwrap();
        verify_personalized_pagerank(&g.view(), &params, &r).unwrap();
    }
}
