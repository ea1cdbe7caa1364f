//! BFS against its serial verifier: random small graphs of every kind, skewed graphs that force
//! both directions and hub splitting, thread-count independence, and the real graphs.

use crate::support::*;
use proptest::prelude::*;
use vastgraph_algos::bfs::{bfs, verify_bfs, BfsParams, BfsResult};
use vastgraph_algos::AlgoError;
use vastgraph_engine::{Adjacency, Graph, InMemoryGraph, Vertex};

fn run_verified<A: Adjacency>(g: &Graph<A>, source: u64) -> BfsResult {
    let params = BfsParams {
        source,
        parents: true,
    };
    let r = bfs(g, &params).unwrap();
    verify_bfs(g, &params, &r).unwrap_or_else(|e| panic!("source {source}: {e}"));
    r
}

/// Symmetric, directed with a transpose, or directed without one (push only).
#[derive(Clone, Copy, Debug)]
enum Kind {
    Symmetric,
    Transposed,
    OutOnly,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Symmetric),
        Just(Kind::Transposed),
        Just(Kind::OutOnly)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn matches_serial_bfs(
        n in 1usize..80,
        raw in prop::collection::vec((0u32..80, 0u32..80), 0..400),
        kind in kind(),
        pick in any::<u32>(),
    ) {
        let edges: Vec<(Vertex, Vertex)> = raw.iter().map(|&(u, v)| (u % n as u32, v % n as u32)).collect();
        let g = InMemoryGraph::from_edges(n, &edges, matches!(kind, Kind::Symmetric));
        let source = (pick as usize % n) as u64;
        let (distances, parents_ok) = match kind {
            Kind::OutOnly => {
                let r = run_verified(&without_transpose(&g), source);
                (r.distances, r.parents.is_some())
            }
            _ => {
                let r = run_verified(&g.view(), source);
                let hidden = run_verified(&without_slices(&g), source);
                prop_assert_eq!(&hidden.distances, &r.distances);
                (r.distances, r.parents.is_some())
            }
        };
        prop_assert!(parents_ok);
        prop_assert_eq!(distances[source as usize], 0);
        let plain = bfs(&g.view(), &BfsParams { source, parents: false }).unwrap();
        prop_assert!(plain.parents.is_none());
        if !matches!(kind, Kind::OutOnly) {
            prop_assert_eq!(plain.distances, distances);
        }
    }
}

#[test]
fn skewed_graphs_switch_direction_and_match_across_threads() {
    let n = 60_000;
    let edges = skewed_edges(n, 300_000, 6, 11);
    for symmetric in [true, false] {
        let g = InMemoryGraph::from_edges(n, &edges, symmetric);
        let view = g.view();
        // A hub (degree above the split threshold) and an ordinary vertex as sources.
        for source in [0u64, 12_345] {
            let one = with_threads(1, || run_verified(&view, source));
            let two = with_threads(2, || run_verified(&view, source));
            assert_eq!(one.distances, two.distances);
            let stat = |r: &BfsResult, k: &str| r.stats.extra[k].as_u64().unwrap();
            assert!(
                stat(&two, "pull_steps") > 0 && stat(&two, "push_steps") > 0,
                "{:?}",
                two.stats
            );
            assert_eq!(
                stat(&two, "reached"),
                two.distances.iter().filter(|&&d| d >= 0).count() as u64
            );
            assert_eq!(
                stat(&two, "max_depth"),
                *two.distances.iter().max().unwrap() as u64
            );
        }
    }
    // Without a transpose every level pushes, with the same distances.
    let g = InMemoryGraph::from_edges(n, &edges, false);
    let pushed = run_verified(&without_transpose(&g), 7);
    assert_eq!(pushed.stats.extra["pull_steps"].as_u64(), Some(0));
    assert_eq!(pushed.distances, run_verified(&g.view(), 7).distances);
}

#[test]
fn directed_search_follows_arcs_forward() {
    // 0→1→2 and 3→0: vertex 3 cannot be reached from 0.
    let g = InMemoryGraph::from_edges(4, &[(0, 1), (1, 2), (3, 0)], false);
    let r = run_verified(&g.view(), 0);
    assert_eq!(r.distances, vec![0, 1, 2, -1]);
    assert_eq!(r.parents.unwrap(), vec![0, 0, 1, -1]);
}

#[test]
fn bad_source_is_an_error() {
    let g = InMemoryGraph::from_edges(3, &[(0, 1)], true);
    let err = bfs(
        &g.view(),
        &BfsParams {
            source: 3,
            parents: false,
        },
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            AlgoError::SourceOutOfRange {
                vertex: 3,
                vertices: 3
            }
        ),
        "{err}"
    );
    let empty = InMemoryGraph::from_edges(0, &[], true);
    let err = bfs(&empty.view(), &BfsParams::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the graph has no vertices, so there is no source vertex to start from"
    );
}

#[test]
fn verifier_rejects_wrong_answers() {
    // 0-1-2 and 0-3: vertex 2 is at distance 2 behind 1; 3 is at distance 1 but not next to 2.
    let g = InMemoryGraph::from_edges(5, &[(0, 1), (1, 2), (0, 3)], true);
    let params = BfsParams {
        source: 0,
        parents: true,
    };
    let good = run_verified(&g.view(), 0);
    let mut wrong_distance = BfsResult {
        distances: good.distances.clone(),
        parents: good.parents.clone(),
        stats: Default::default(),
    };
    wrong_distance.distances[2] = 3;
    assert!(verify_bfs(&g.view(), &params, &wrong_distance).is_err());
    let mut not_a_neighbour = BfsResult {
        distances: good.distances.clone(),
        parents: good.parents.clone(),
        stats: Default::default(),
    };
    not_a_neighbour.parents.as_mut().unwrap()[2] = 3;
    assert!(verify_bfs(&g.view(), &params, &not_a_neighbour).is_err());
    let mut unreached_parent = BfsResult {
        distances: good.distances.clone(),
        parents: good.parents.clone(),
        stats: Default::default(),
    };
    unreached_parent.parents.as_mut().unwrap()[4] = 0;
    assert!(verify_bfs(&g.view(), &params, &unreached_parent).is_err());
    let missing = BfsResult {
        distances: good.distances.clone(),
        parents: None,
        stats: Default::default(),
    };
    assert!(verify_bfs(&g.view(), &params, &missing).is_err());
}

#[test]
fn parent_is_the_smallest_candidate() {
    // 3 is two hops from 0 through 1 or 2: the tree must name 1, for every thread count.
    let g = InMemoryGraph::from_edges(4, &[(0, 2), (0, 1), (2, 3), (1, 3)], true);
    for threads in [1, 2] {
        let r = with_threads(threads, || run_verified(&g.view(), 0));
        assert_eq!(r.parents.unwrap(), vec![0, 0, 0, 1]);
    }
    let params = BfsParams {
        source: 0,
        parents: true,
    };
    let valid_but_larger = BfsResult {
        distances: vec![0, 1, 1, 2],
        parents: Some(vec![0, 0, 0, 2]),
        stats: Default::default(),
    };
    assert!(verify_bfs(&g.view(), &params, &valid_but_larger).is_err());
}

/// The vertex with the most out-arcs: a source whose BFS reaches far in one step.
fn busiest<A: Adjacency>(adj: &A) -> u64 {
    (0..adj.num_vertices() as Vertex)
        .max_by_key(|&v| adj.degree(v))
        .unwrap() as u64
}

#[test]
fn real_graphs() {
    for (name, directed) in [
        ("web-cnr-2000", true),
        ("road-luxembourg-osm", false),
        ("social-ego-twitter-undirected", false),
    ] {
        let Some(list) = load_real(name) else {
            continue;
        };
        let g = InMemoryGraph::from_edges(list.n, &list.edges, !directed);
        let view = g.view();
        for source in [0, busiest(view.out())] {
            let two = with_threads(2, || run_verified(&view, source));
            let one = with_threads(1, || {
                bfs(
                    &view,
                    &BfsParams {
                        source,
                        parents: false,
                    },
                )
                .unwrap()
            });
            assert_eq!(one.distances, two.distances, "{name} from {source}");
            if directed {
                assert_eq!(
                    run_verified(&without_transpose(&g), source).distances,
                    two.distances,
                    "{name}"
                );
            }
            println!("{name} from {source}: {:?}", two.stats);
        }
    }
}
