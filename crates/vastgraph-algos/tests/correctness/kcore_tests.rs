//! k-core peeling against serial Batagelj–Zaversnik.

use crate::support::*;
use proptest::prelude::*;
use vastgraph_algos::kcore::{kcore, verify_kcore, KcoreParams, KcoreResult};
use vastgraph_algos::AlgoError;
use vastgraph_engine::{Adjacency, Direction, InMemoryGraph, Vertex};

const DIRECTIONS: [Direction; 3] = [Direction::Auto, Direction::Push, Direction::Pull];

/// Properties a coreness vector must have whatever computed it: the vertices of coreness >= k
/// induce a subgraph of minimum degree >= k, for every k that occurs.
fn assert_cores_are_dense(g: &InMemoryGraph, r: &KcoreResult) {
    let view = g.view();
    let c = &r.coreness;
    for v in 0..c.len() as Vertex {
        let mut inside = 0;
        view.out()
            .for_each_neighbor(v, |u| inside += (c[u as usize] >= c[v as usize]) as u32);
        assert!(
            inside >= c[v as usize],
            "vertex {v}: coreness {} but {inside} neighbours as deep",
            c[v as usize]
        );
    }
    assert_eq!(
        r.stats.extra["max_core"].as_u64().unwrap(),
        c.iter().copied().max().unwrap_or(0) as u64
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn matches_batagelj_zaversnik(
        n in 1usize..60,
        raw in prop::collection::vec((0u32..60, 0u32..60), 0..400),
        direction in prop::sample::select(DIRECTIONS.to_vec()),
    ) {
        let edges: Vec<(Vertex, Vertex)> = raw.iter().map(|&(u, v)| (u % n as u32, v % n as u32)).collect();
        let g = InMemoryGraph::from_edges(n, &edges, true);
        let r = kcore(&g.view(), &KcoreParams { direction }).unwrap();
        verify_kcore(&g.view(), &r).map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_cores_are_dense(&g, &r);
        let plain = kcore(&without_slices(&g), &KcoreParams { direction }).unwrap();
        prop_assert_eq!(plain.coreness, r.coreness);
    }
}

#[test]
fn clique_with_a_tail() {
    // K5 on 0..5 plus a path 4-5-6: the clique is a 4-core, the path hangs off it.
    let mut edges = vec![(4, 5), (5, 6)];
    for u in 0..5 {
        for v in u + 1..5 {
            edges.push((u, v));
        }
    }
    let g = InMemoryGraph::from_edges(8, &edges, true);
    let r = kcore(&g.view(), &KcoreParams::default()).unwrap();
    assert_eq!(r.coreness, vec![4, 4, 4, 4, 4, 1, 1, 0]);
}

#[test]
fn directed_graph_is_refused() {
    let g = InMemoryGraph::from_edges(3, &[(0, 1)], false);
    let err = kcore(&g.view(), &KcoreParams::default()).unwrap_err();
    assert!(matches!(err, AlgoError::NeedsSymmetric { .. }));
    assert!(err.to_string().contains("--symmetrize"));
}

#[test]
fn skewed_graph_same_on_one_and_two_threads() {
    let n = 50_000;
    let g = InMemoryGraph::from_edges(n, &skewed_edges(n, 400_000, 16, 5), true);
    for direction in DIRECTIONS {
        let params = KcoreParams { direction };
        let one = with_threads(1, || kcore(&g.view(), &params).unwrap());
        let two = with_threads(2, || kcore(&g.view(), &params).unwrap());
        assert_eq!(one.coreness, two.coreness);
        verify_kcore(&g.view(), &two).unwrap();
        assert!(two.stats.extra["max_core"].as_u64().unwrap() >= 5);
    }
}

#[test]
fn real_social_graphs() {
    for name in ["social-fb100-cornell5", "social-ego-twitter-undirected"] {
        let Some(real) = load_real(name) else {
            continue;
        };
        let g = InMemoryGraph::from_edges(real.n, &real.edges, true);
        let one = with_threads(1, || kcore(&g.view(), &KcoreParams::default()).unwrap());
        let two = with_threads(2, || kcore(&g.view(), &KcoreParams::default()).unwrap());
        assert_eq!(one.coreness, two.coreness, "{name}");
        verify_kcore(&g.view(), &two).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_cores_are_dense(&g, &two);
    }
}
