//! Triangle counting against a serial count.

use crate::support::*;
use proptest::prelude::*;
use vastgraph_algos::tc::{tc, verify_tc, TcMethod, TcParams};
use vastgraph_algos::AlgoError;
use vastgraph_engine::{InMemoryGraph, Vertex};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn matches_serial_count(
        n in 1usize..60,
        raw in prop::collection::vec((0u32..60, 0u32..60), 0..500),
        per_vertex in any::<bool>(),
        // No cache, part of the high-degree lists cached, everything cached.
        cache_ids_per_vertex in prop::sample::select(vec![0usize, 1, 100]),
    ) {
        let edges: Vec<(Vertex, Vertex)> = raw.iter().map(|&(u, v)| (u % n as u32, v % n as u32)).collect();
        let g = InMemoryGraph::from_edges(n, &edges, true);
        let params = TcParams { per_vertex, cache_ids_per_vertex, method: TcMethod::Marking, ..Default::default() };
        let r = tc(&g.view(), &params).unwrap();
        verify_tc(&g.view(), &r).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(r.per_vertex.is_some(), per_vertex);
        // Every method on both backends; ranges of a few lists each, so that a triangle's
        // vertices fall in different ranges.
        for method in [TcMethod::Marking, TcMethod::Filter, TcMethod::Ranges] {
            let params = TcParams { method, range_bytes: 64, ..params.clone() };
            let plain = tc(&without_slices(&g), &params).unwrap();
            prop_assert_eq!(plain.triangles, r.triangles);
            prop_assert_eq!(&plain.per_vertex, &r.per_vertex);
            let sliced = tc(&g.view(), &params).unwrap();
            prop_assert_eq!(sliced.triangles, r.triangles);
            prop_assert_eq!(&sliced.per_vertex, &r.per_vertex);
            prop_assert_eq!(&sliced.stats.extra["method"], method.name());
        }
    }
}

#[test]
fn cliques_have_n_choose_3() {
    for n in [3u64, 4, 10, 40] {
        let mut edges = vec![];
        for u in 0..n as Vertex {
            for v in u + 1..n as Vertex {
                edges.push((u, v));
            }
        }
        let g = InMemoryGraph::from_edges(n as usize, &edges, true);
        let r = tc(
            &g.view(),
            &TcParams {
                per_vertex: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.triangles, n * (n - 1) * (n - 2) / 6);
        // Every vertex is in the triangles of every pair of the others.
        assert!(r
            .per_vertex
            .unwrap()
            .iter()
            .all(|&t| t == (n - 1) * (n - 2) / 2));
    }
}

#[test]
fn directed_graph_is_refused() {
    let g = InMemoryGraph::from_edges(3, &[(0, 1), (1, 2), (2, 0)], false);
    assert!(matches!(
        tc(&g.view(), &TcParams::default()).unwrap_err(),
        AlgoError::NeedsSymmetric { .. }
    ));
}

#[test]
fn wrong_results_are_caught() {
    let g = InMemoryGraph::from_edges(4, &[(0, 1), (1, 2), (2, 0), (2, 3)], true);
    let mut r = tc(
        &g.view(),
        &TcParams {
            per_vertex: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.triangles, 1);
    r.per_vertex.as_mut().unwrap().swap(0, 3);
    assert!(verify_tc(&g.view(), &r).is_err());
    r.triangles = 2;
    assert!(verify_tc(&g.view(), &r).is_err());
}

#[test]
fn skewed_graph_same_on_one_and_two_threads() {
    // Hubs make the galloping intersection and the middle-vertex ordering matter.
    let n = 20_000;
    let g = InMemoryGraph::from_edges(n, &skewed_edges(n, 300_000, 16, 7), true);
    for (cache_ids_per_vertex, method) in [
        (0, TcMethod::Marking),
        (1, TcMethod::Marking),
        (4, TcMethod::Marking),
        (0, TcMethod::Filter),
        (0, TcMethod::Ranges),
    ] {
        let params = TcParams {
            per_vertex: true,
            cache_ids_per_vertex,
            method,
            range_bytes: 4096,
        };
        let one = with_threads(1, || tc(&g.view(), &params).unwrap());
        let two = with_threads(2, || tc(&g.view(), &params).unwrap());
        assert_eq!(one.triangles, two.triangles);
        assert_eq!(one.per_vertex, two.per_vertex);
        assert!(two.triangles > 0);
        verify_tc(&g.view(), &two).unwrap();
        let plain = tc(&without_slices(&g), &params).unwrap();
        assert_eq!(plain.per_vertex, two.per_vertex);
    }
}

#[test]
fn real_undirected_graphs() {
    for name in [
        "social-fb100-cornell5",
        "social-ego-twitter-undirected",
        "road-luxembourg-osm",
    ] {
        let Some(real) = load_real(name) else {
            continue;
        };
        let g = InMemoryGraph::from_edges(real.n, &real.edges, true);
        let params = TcParams {
            per_vertex: true,
            ..Default::default()
        };
        let one = with_threads(1, || tc(&g.view(), &params).unwrap());
        let two = with_threads(2, || tc(&g.view(), &params).unwrap());
        assert_eq!(one.triangles, two.triangles, "{name}");
        assert_eq!(one.per_vertex, two.per_vertex, "{name}");
        let filtered = TcParams {
            method: TcMethod::Filter,
            ..params.clone()
        };
        let through_filter = tc(&without_slices(&g), &filtered).unwrap();
        assert_eq!(through_filter.per_vertex, two.per_vertex, "{name}");
        assert!(through_filter.stats.extra["filter_bytes"].as_u64().unwrap() > 0);
        verify_tc(&g.view(), &two).unwrap_or_else(|e| panic!("{name}: {e}"));
        for graph_params in [
            TcParams {
                cache_ids_per_vertex: 0,
                ..Default::default()
            },
            TcParams::default(),
            TcParams {
                method: TcMethod::Filter,
                ..Default::default()
            },
        ] {
            let plain = tc(&without_slices(&g), &graph_params).unwrap();
            assert_eq!(plain.triangles, two.triangles, "{name}");
            let uncached = tc(&g.view(), &graph_params).unwrap();
            assert_eq!(uncached.triangles, two.triangles, "{name}");
        }
    }
}
