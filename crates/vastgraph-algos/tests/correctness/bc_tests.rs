//! Single-source betweenness against serial Brandes.

use crate::support::*;
use proptest::prelude::*;
use vastgraph_algos::bc::{bc, verify_bc, BcParams, BcResult, VERIFY_TOLERANCE};
use vastgraph_algos::AlgoError;
use vastgraph_engine::{Direction, InMemoryGraph, Vertex};

const DIRECTIONS: [Direction; 3] = [Direction::Auto, Direction::Push, Direction::Pull];

fn assert_close(a: &BcResult, b: &BcResult) {
    for (v, (x, y)) in a.dependencies.iter().zip(&b.dependencies).enumerate() {
        assert!(
            (x - y).abs() <= VERIFY_TOLERANCE * x.abs().max(y.abs()),
            "vertex {v}: {x} vs {y}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn matches_serial_brandes(
        n in 1usize..50,
        raw in prop::collection::vec((0u32..50, 0u32..50), 0..200),
        symmetric in any::<bool>(),
        source in 0u64..50,
        direction in prop::sample::select(DIRECTIONS.to_vec()),
    ) {
        let edges: Vec<(Vertex, Vertex)> = raw.iter().map(|&(u, v)| (u % n as u32, v % n as u32)).collect();
        let source = source % n as u64;
        let g = InMemoryGraph::from_edges(n, &edges, symmetric);
        let params = BcParams { source, direction };
        let result = bc(&g.view(), &params).unwrap();
        verify_bc(&g.view(), &params, &result).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(result.dependencies[source as usize], 0.0);
        let plain = bc(&without_slices(&g), &params).unwrap();
        verify_bc(&g.view(), &params, &plain).map_err(|e| TestCaseError::fail(e.to_string()))?;
        if !symmetric {
            let out_only = bc(&without_transpose(&g), &params).unwrap();
            verify_bc(&g.view(), &params, &out_only).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
    }
}

#[test]
fn dependencies_of_a_path_and_a_diamond() {
    // On a path from its end, every target past v has all its shortest paths through v.
    let n = 6;
    let path: Vec<(Vertex, Vertex)> = (0..n as Vertex - 1).map(|v| (v, v + 1)).collect();
    let g = InMemoryGraph::from_edges(n, &path, true);
    let r = bc(&g.view(), &BcParams::default()).unwrap();
    let want: Vec<f64> = (0..n)
        .map(|v| if v == 0 { 0.0 } else { (n - 1 - v) as f64 })
        .collect();
    assert_eq!(r.dependencies, want);
    // Diamond 0 -> {1, 2} -> 3 -> 4: two shortest paths to 3 and 4, one through each middle
    // vertex, so 1 and 2 each carry half of the two targets, and 3 carries all of 4.
    let g = InMemoryGraph::from_edges(5, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], false);
    let r = bc(&g.view(), &BcParams::default()).unwrap();
    assert_eq!(r.dependencies, vec![0.0, 1.0, 1.0, 1.0, 0.0]);
    assert_eq!(r.stats.iterations, 3);
}

#[test]
fn bad_source_is_an_error() {
    let g = InMemoryGraph::from_edges(3, &[(0, 1)], true);
    let err = bc(
        &g.view(),
        &BcParams {
            source: 7,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(
        err,
        AlgoError::SourceOutOfRange {
            vertex: 7,
            vertices: 3
        }
    ));
}

#[test]
fn skewed_graph_same_on_one_and_two_threads() {
    let n = 40_000;
    for (symmetric, seed) in [(true, 3), (false, 4)] {
        let g = InMemoryGraph::from_edges(n, &skewed_edges(n, 200_000, 8, seed), symmetric);
        for direction in DIRECTIONS {
            let params = BcParams {
                source: 1,
                direction,
            };
            let one = with_threads(1, || bc(&g.view(), &params).unwrap());
            let two = with_threads(2, || bc(&g.view(), &params).unwrap());
            assert_close(&one, &two);
            assert!(one.stats.extra["reached"].as_u64().unwrap() > n as u64 / 2);
            verify_bc(&g.view(), &params, &two).unwrap();
        }
    }
}

#[test]
fn web_cnr_2000_directed() {
    let Some(real) = load_real("web-cnr-2000") else {
        return;
    };
    let g = InMemoryGraph::from_edges(real.n, &real.edges, false);
    let view = g.view();
    // A hub source (widest reach) and vertex 0.
    let hub = (0..real.n as Vertex)
        .max_by_key(|&v| vastgraph_engine::Adjacency::degree(view.out(), v))
        .unwrap();
    for source in [hub as u64, 0] {
        let params = BcParams {
            source,
            ..Default::default()
        };
        let one = with_threads(1, || bc(&view, &params).unwrap());
        let two = with_threads(2, || bc(&view, &params).unwrap());
        assert_close(&one, &two);
        verify_bc(&view, &params, &two).unwrap();
        let out_only = bc(&without_transpose(&g), &params).unwrap();
        assert_close(&out_only, &two);
    }
}
