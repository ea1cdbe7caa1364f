//! The algorithms that delete edges through the graph filter (maximal matching, set cover,
//! biconnectivity) against serial references on random graphs, on a backend without neighbour
//! slices, on one and two threads, and on the real graphs of shared/data (skipped when absent).

use std::collections::HashSet;

use crate::support::*;
use proptest::prelude::*;
use vastgraph_algos::biconnectivity::{
    biconnectivity, serial_biconnectivity, verify_biconnectivity, BiconnectivityParams,
};
use vastgraph_algos::matching::{edge_priority, maximal_matching, verify_matching, MatchingParams};
use vastgraph_algos::setcover::{greedy_cover_size, set_cover, verify_set_cover, SetCoverParams};
use vastgraph_algos::AlgoError;
use vastgraph_engine::{Adjacency, InMemoryGraph, Vertex};

/// The sequential greedy matching scanning the edges in ascending priority order.
fn greedy_matching<A: Adjacency>(adj: &A, seed: u64) -> Vec<[u32; 2]> {
    let mut edges = Vec::new();
    for u in 0..adj.num_vertices() as Vertex {
        adj.for_each_neighbor(u, |v| {
            if u < v {
                edges.push((edge_priority(seed, u, v), u, v));
            }
        });
    }
    edges.sort_unstable();
    let mut used = vec![false; adj.num_vertices()];
    let mut matching = Vec::new();
    for (_, u, v) in edges {
        if !used[u as usize] && !used[v as usize] {
            used[u as usize] = true;
            used[v as usize] = true;
            matching.push([u, v]);
        }
    }
    matching.sort_unstable();
    matching
}

/// Articulation points by definition: removing v splits its component into several.
/// Quadratic; for small graphs only.
fn brute_force_articulation(n: usize, edges: &[(Vertex, Vertex)]) -> Vec<u8> {
    let components = |removed: Option<usize>| {
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for &(u, v) in edges {
            let (u, v) = (u as usize, v as usize);
            if Some(u) == removed || Some(v) == removed {
                continue;
            }
            let (a, b) = (find(&mut parent, u), find(&mut parent, v));
            parent[a] = b;
        }
        (0..n)
            .filter(|&x| Some(x) != removed && find(&mut parent, x) == x)
            .count()
    };
    // Removing an isolated vertex loses a component, any other non-cut vertex keeps the count.
    let whole = components(None);
    (0..n)
        .map(|v| (components(Some(v)) > whole) as u8)
        .collect()
}

fn graph_strategy() -> impl Strategy<Value = (usize, Vec<(Vertex, Vertex)>)> {
    (1usize..80).prop_flat_map(|n| {
        (
            Just(n),
            prop::collection::vec((0..n as u32, 0..n as u32), 0..(3 * n)),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn matching_is_the_sequential_greedy(
        (n, edges) in graph_strategy(),
        seed in 0u64..1000,
        edges_per_phase in prop::sample::select(vec![0usize, 1, 3, 1000]),
    ) {
        let g = InMemoryGraph::from_edges(n, &edges, true);
        let params = MatchingParams { seed, edges_per_phase };
        let r = maximal_matching(&g.view(), &params).unwrap();
        verify_matching(&g.view(), &r).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&r.edges, &greedy_matching(g.view().out(), seed));
        let streamed = maximal_matching(&without_slices(&g), &params).unwrap();
        prop_assert_eq!(&streamed.edges, &r.edges);
    }

    #[test]
    fn set_cover_covers_within_the_bound(
        (n, edges) in graph_strategy(),
        seed in 0u64..1000,
        epsilon in prop::sample::select(vec![0.01f64, 0.1, 0.5, 1.0]),
    ) {
        let g = InMemoryGraph::from_edges(n, &edges, true);
        let params = SetCoverParams { epsilon, seed };
        let r = set_cover(&g.view(), &params).unwrap();
        verify_set_cover(&g.view(), &params, &r).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(
            r.stats.extra["cover_size"].as_u64().unwrap(),
            r.in_cover.iter().map(|&x| x as u64).sum::<u64>()
        );
        let streamed = set_cover(&without_slices(&g), &params).unwrap();
        prop_assert_eq!(&streamed.in_cover, &r.in_cover);
    }

    #[test]
    fn biconnectivity_matches_depth_first_search(
        (n, edges) in graph_strategy(),
    ) {
        let g = InMemoryGraph::from_edges(n, &edges, true);
        let r = biconnectivity(&g.view(), &BiconnectivityParams::default()).unwrap();
        verify_biconnectivity(&g.view(), &r).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let simple: Vec<(Vertex, Vertex)> = edges.iter().copied().filter(|&(u, v)| u != v).collect();
        prop_assert_eq!(&r.articulation, &brute_force_articulation(n, &simple));
        let streamed = biconnectivity(&without_slices(&g), &BiconnectivityParams::default()).unwrap();
        prop_assert_eq!(&streamed.articulation, &r.articulation);
        prop_assert_eq!(streamed.num_biconnected_components, r.num_biconnected_components);
    }
}

#[test]
fn biconnected_components_of_known_shapes() {
    // A cycle is one component; a path of k edges is k; a tree's edges are each a component.
    // 100 vertices: the forest's search goes on label-correcting past its first levels.
    let cycle: Vec<(Vertex, Vertex)> = (0..100).map(|v| (v, (v + 1) % 100)).collect();
    let path: Vec<(Vertex, Vertex)> = (0..99).map(|v| (v, v + 1)).collect();
    for (edges, components, cut) in [(cycle, 1, 0), (path, 99, 98)] {
        let g = InMemoryGraph::from_edges(100, &edges, true);
        let r = biconnectivity(&g.view(), &BiconnectivityParams::default()).unwrap();
        assert_eq!(r.num_biconnected_components, components);
        assert_eq!(r.articulation.iter().map(|&a| a as u64).sum::<u64>(), cut);
        assert_eq!(serial_biconnectivity(g.view().out()).1, components);
    }
}

#[test]
fn directed_graphs_are_refused() {
    let g = InMemoryGraph::from_edges(3, &[(0, 1), (1, 2)], false);
    let v = g.view();
    assert!(matches!(
        maximal_matching(&v, &MatchingParams::default()).unwrap_err(),
        AlgoError::NeedsSymmetric { .. }
    ));
    assert!(matches!(
        set_cover(&v, &SetCoverParams::default()).unwrap_err(),
        AlgoError::NeedsSymmetric { .. }
    ));
    assert!(matches!(
        biconnectivity(&v, &BiconnectivityParams::default()).unwrap_err(),
        AlgoError::NeedsSymmetric { .. }
    ));
}

#[test]
fn bad_epsilon_is_refused() {
    let g = InMemoryGraph::from_edges(3, &[(0, 1), (1, 2)], true);
    for epsilon in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let err = set_cover(&g.view(), &SetCoverParams { epsilon, seed: 1 }).unwrap_err();
        assert!(matches!(err, AlgoError::InvalidParameter { .. }), "{err}");
    }
}

/// One and two threads give the same answers; the verifiers accept them.
fn same_on_one_and_two_threads(name: &str, g: &InMemoryGraph) {
    let view = g.view();
    let matching = |threads| {
        with_threads(threads, || {
            maximal_matching(&view, &MatchingParams::default()).unwrap()
        })
    };
    let (one, two) = (matching(1), matching(2));
    assert_eq!(one.edges, two.edges, "{name}");
    verify_matching(&view, &two).unwrap_or_else(|e| panic!("{name}: {e}"));
    // Matched vertices are distinct: a sanity check on top of the verifier.
    let ends: HashSet<u32> = two.edges.iter().flatten().copied().collect();
    assert_eq!(ends.len(), 2 * two.edges.len(), "{name}");

    let params = SetCoverParams::default();
    let cover = |threads| with_threads(threads, || set_cover(&view, &params).unwrap());
    let (one, two) = (cover(1), cover(2));
    assert_eq!(one.in_cover, two.in_cover, "{name}");
    verify_set_cover(&view, &params, &two).unwrap_or_else(|e| panic!("{name}: {e}"));
    let size = two.stats.extra["cover_size"].as_u64().unwrap() as f64;
    let greedy = greedy_cover_size(view.out()) as f64;
    // Far inside the proven bound: with ε = 0.01 the parallel greedy stays near the sequential
    // one. (On road networks the sequential greedy, breaking ties by id, sweeps along the roads
    // and beats any random order of equal sets by about 10%: 39.8k vs 43.8k on Luxembourg.)
    assert!(
        size <= 1.15 * greedy,
        "{name}: cover {size}, greedy {greedy}"
    );
    println!("{name}: set cover {size}, sequential greedy {greedy}");

    let bicon = |threads| {
        with_threads(threads, || {
            biconnectivity(&view, &BiconnectivityParams::default()).unwrap()
        })
    };
    let (one, two) = (bicon(1), bicon(2));
    assert_eq!(one.articulation, two.articulation, "{name}");
    assert_eq!(
        one.num_biconnected_components, two.num_biconnected_components,
        "{name}"
    );
    verify_biconnectivity(&view, &two).unwrap_or_else(|e| panic!("{name}: {e}"));
}

#[test]
fn skewed_graph() {
    let n = 20_000;
    let g = InMemoryGraph::from_edges(n, &skewed_edges(n, 100_000, 16, 11), true);
    same_on_one_and_two_threads("skewed", &g);
}

#[test]
fn real_undirected_graphs() {
    for name in [
        "social-fb100-cornell5",
        "road-luxembourg-osm",
        "social-ego-twitter-undirected",
    ] {
        let Some(real) = load_real(name) else {
            continue;
        };
        let g = InMemoryGraph::from_edges(real.n, &real.edges, true);
        same_on_one_and_two_threads(name, &g);
    }
}
