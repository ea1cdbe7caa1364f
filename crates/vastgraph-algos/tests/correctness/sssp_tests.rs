//! Delta-stepping and Bellman-Ford against the serial verifiers (Dijkstra / Bellman-Ford).

use crate::support::*;
use proptest::prelude::*;
use vastgraph_algos::sssp::{bellman_ford, sssp, verify_sssp, BellmanFordParams, SsspParams};
use vastgraph_algos::AlgoError;
use vastgraph_engine::{Direction, InMemoryGraph, Vertex};

const DIRECTIONS: [Direction; 3] = [Direction::Auto, Direction::Push, Direction::Pull];

fn weighted_graph() -> impl Strategy<Value = (usize, Vec<(Vertex, Vertex, f32)>, bool, u64)> {
    (1usize..40, any::<bool>(), any::<bool>()).prop_flat_map(|(n, symmetric, fractional)| {
        // Integral weights include 0; fractional ones exercise rounding along different paths.
        let weight = if fractional {
            (0u32..1000).prop_map(|w| w as f32 / 7.0).boxed()
        } else {
            (0u32..6).prop_map(|w| w as f32).boxed()
        };
        let edge = (0..n as Vertex, 0..n as Vertex, weight);
        (
            Just(n),
            prop::collection::vec(edge, 0..160),
            Just(symmetric),
            0..n as u64,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn delta_stepping_matches_dijkstra(
        (n, edges, symmetric, source) in weighted_graph(),
        delta in prop::sample::select(vec![None, Some(0.3), Some(1.0), Some(4.0), Some(1e6)]),
        direction in prop::sample::select(DIRECTIONS.to_vec()),
    ) {
        let g = InMemoryGraph::from_weighted_edges(n, &edges, symmetric);
        let params = SsspParams { source, delta, direction };
        let result = sssp(&g.view(), &params).unwrap();
        verify_sssp(&g.view(), source, &result).map_err(|e| TestCaseError::fail(e.to_string()))?;
        // Bellman-Ford reaches the same fixpoint of the same sums.
        let bf = bellman_ford(&g.view(), &BellmanFordParams { source, direction }).unwrap();
        prop_assert_eq!(&bf.distances, &result.distances);
        // A backend without slices gives the same answer.
        let plain = sssp(&without_slices(&g), &params).unwrap();
        prop_assert_eq!(&plain.distances, &result.distances);
    }

    #[test]
    fn bellman_ford_handles_negative_weights_without_cycles(
        n in 2usize..40,
        raw in prop::collection::vec((0u32..40, 0u32..40, -20i32..30), 0..160),
        direction in prop::sample::select(DIRECTIONS.to_vec()),
    ) {
        // Arcs only from lower to higher ids: a DAG, so negative weights make no cycle.
        let edges: Vec<(Vertex, Vertex, f32)> = raw
            .iter()
            .map(|&(a, b, w)| (a % n as u32, b % n as u32, w as f32))
            .map(|(a, b, w)| (a.min(b), a.max(b), w))
            .collect();
        let g = InMemoryGraph::from_weighted_edges(n, &edges, false);
        let result = bellman_ford(&g.view(), &BellmanFordParams { source: 0, direction }).unwrap();
        verify_sssp(&g.view(), 0, &result).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let reaches_negative = (0..n).any(|u| {
            result.distances[u].is_finite() && edges.iter().any(|&(a, b, w)| a as usize == u && a != b && w < 0.0)
        });
        match sssp(&g.view(), &SsspParams { source: 0, ..Default::default() }) {
            Err(AlgoError::InvalidInput { message, .. }) => {
                prop_assert!(reaches_negative);
                prop_assert!(message.contains("bellman-ford"), "{}", message);
            }
            Ok(r) => {
                prop_assert!(!reaches_negative);
                prop_assert_eq!(r.distances, result.distances);
            }
            Err(e) => prop_assert!(false, "unexpected error {}", e),
        }
    }
}

#[test]
fn negative_cycles_are_reported_when_reachable() {
    // 0 -> 1 -> 2 -> 1 with the cycle 1 -> 2 -> 1 of weight -1.
    let cycle = [(0, 1, 4.0), (1, 2, 2.0), (2, 1, -3.0), (3, 0, 1.0)];
    let g = InMemoryGraph::from_weighted_edges(4, &cycle, false);
    for direction in DIRECTIONS {
        let err = bellman_ford(
            &g.view(),
            &BellmanFordParams {
                source: 0,
                direction,
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("negative-weight cycle"), "{err}");
        // From 3 the cycle is reachable too; from a vertex that cannot reach it, all is well.
        assert!(bellman_ford(
            &g.view(),
            &BellmanFordParams {
                source: 3,
                direction
            }
        )
        .is_err());
    }
    let unreachable = [(0, 1, 4.0), (2, 3, -2.0), (3, 2, 1.0)];
    let g = InMemoryGraph::from_weighted_edges(4, &unreachable, false);
    let r = bellman_ford(&g.view(), &BellmanFordParams::default()).unwrap();
    assert_eq!(r.distances[1], 4.0);
    assert!(r.distances[2].is_infinite());
    // In an undirected graph a negative edge is a cycle by itself.
    let g = InMemoryGraph::from_weighted_edges(3, &[(0, 1, 1.0), (1, 2, -1.0)], true);
    let err = bellman_ford(&g.view(), &BellmanFordParams::default()).unwrap_err();
    assert!(err.to_string().contains("undirected"), "{err}");
}

#[test]
fn unsuitable_inputs_are_errors() {
    let unweighted = InMemoryGraph::from_edges(3, &[(0, 1), (1, 2)], true);
    for err in [
        sssp(&unweighted.view(), &SsspParams::default()).unwrap_err(),
        bellman_ford(&unweighted.view(), &BellmanFordParams::default()).unwrap_err(),
    ] {
        assert!(matches!(err, AlgoError::NeedsWeights { .. }));
        assert!(err.to_string().contains("run bfs"), "{err}");
    }
    let g = InMemoryGraph::from_weighted_edges(3, &[(0, 1, 1.0)], true);
    let err = sssp(
        &g.view(),
        &SsspParams {
            source: 3,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(
        err,
        AlgoError::SourceOutOfRange {
            vertex: 3,
            vertices: 3
        }
    ));
    for delta in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let err = sssp(
            &g.view(),
            &SsspParams {
                delta: Some(delta),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(err, AlgoError::InvalidParameter { .. }), "{err}");
    }
    let nan = InMemoryGraph::from_weighted_edges(2, &[(0, 1, f32::NAN)], false);
    assert!(sssp(&nan.view(), &SsspParams::default()).is_err());
    assert!(bellman_ford(&nan.view(), &BellmanFordParams::default()).is_err());
}

#[test]
fn skewed_graph_same_on_one_and_two_threads() {
    let n = 30_000;
    for (symmetric, seed) in [(true, 1), (false, 2)] {
        let edges = with_hashed_weights(&skewed_edges(n, 150_000, 8, seed));
        let g = InMemoryGraph::from_weighted_edges(n, &edges, symmetric);
        for delta in [None, Some(1.0), Some(64.0)] {
            let params = SsspParams {
                source: 5,
                delta,
                ..Default::default()
            };
            let one = with_threads(1, || sssp(&g.view(), &params).unwrap());
            let two = with_threads(2, || sssp(&g.view(), &params).unwrap());
            assert_eq!(one.distances, two.distances);
            assert!(one.distances.iter().filter(|d| d.is_finite()).count() > n / 2);
            verify_sssp(&g.view(), 5, &two).unwrap();
        }
    }
}

#[test]
fn road_luxembourg_with_hashed_weights() {
    let Some(real) = load_real("road-luxembourg-osm") else {
        return;
    };
    let g = InMemoryGraph::from_weighted_edges(real.n, &with_hashed_weights(&real.edges), true);
    for source in [0u64, real.n as u64 / 2] {
        let params = SsspParams {
            source,
            ..Default::default()
        };
        let one = with_threads(1, || sssp(&g.view(), &params).unwrap());
        let two = with_threads(2, || sssp(&g.view(), &params).unwrap());
        assert_eq!(one.distances, two.distances);
        verify_sssp(&g.view(), source, &two).unwrap();
        let bf = bellman_ford(
            &g.view(),
            &BellmanFordParams {
                source,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(bf.distances, two.distances);
    }
}
