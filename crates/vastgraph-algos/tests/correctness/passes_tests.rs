//! The branches of passes (bfs, cc, sssp, pagerank, kcore, widest, coloring, random-walk), written against the engine's traversal
//! interface, run on in-memory graphs too: there they must give the in-memory kernels' results
//! (distances and parents, labels, shortest distances exactly; PageRank up to the order of
//! summation), on skewed, uniform, long and disconnected graphs, symmetric and directed, on
//! every view and thread count. On disk, the same code is checked against the same kernels by
//! `ooc_tests`.

use crate::support::{rmat_edges, with_hashed_weights, with_threads, without_slices};
use vastgraph_algos::{bfs, cc, coloring, kcore, pagerank, random_walk, sssp, widest};
use vastgraph_engine::{Adjacency, Graph, InMemoryGraph, Traversal, Vertex};

/// A graph's name, its vertex count and its edges.
type NamedGraph = (String, usize, Vec<(Vertex, Vertex)>);

/// Graphs whose shapes take every branch: a skewed graph (BFS pulls, cc's hubs and giant
/// tree), a long path with a tail (BFS still pushing after 16 levels goes label-correcting),
/// scattered components and isolated vertices, a hub too long for the label-correcting queue.
fn graphs() -> Vec<NamedGraph> {
    let mut out = vec![("rmat 12".to_string(), 1 << 12, rmat_edges(12, 40_000, 7))];
    let n = 3000;
    let mut long: Vec<(Vertex, Vertex)> = (0..n as Vertex - 1000).map(|v| (v, v + 1)).collect();
    long.extend((0..400).map(|i| (i * 5 % 2000, 2000 + i)));
    out.push(("path with a tail".into(), n, long));
    let pieces: Vec<(Vertex, Vertex)> = (0..1500u32)
        .filter(|v| v % 7 != 0)
        .map(|v| (v, (v * 13 + 1) % 1500))
        .filter(|(u, v)| u != v && (u / 100 == v / 100 || u % 50 == 0))
        .collect();
    out.push(("pieces".into(), 1600, pieces));
    // A hub of more arcs than the label-correcting queue reads on its own, as the source, and
    // a path behind one of its leaves: the queue hands the hub to a pass, then takes the path.
    let mut hub: Vec<(Vertex, Vertex)> = (1..6000).map(|v| (0, v)).collect();
    hub.extend((5999..6199).map(|v| (v, v + 1)));
    out.push(("hub and path".into(), 6200, hub));
    // Self-loops on a third of a ring with chords: kcore counts a vertex's own arc, colouring
    // ignores it.
    let mut looped: Vec<(Vertex, Vertex)> = (0..900).map(|v| (v, (v + 1) % 900)).collect();
    looped.extend((0..900).step_by(3).map(|v| (v, v)));
    looped.extend((0..900).step_by(7).map(|v| (v, (v * 31 + 5) % 900)));
    out.push(("self-loops".into(), 900, looped));
    out
}

fn compare_all<A: Adjacency>(what: &str, g: &Graph<A>) {
    let n = g.num_vertices();
    let source = (0..n as Vertex)
        .max_by_key(|&v| g.out().degree(v))
        .unwrap_or(0) as u64;
    for parents in [false, true] {
        let q = bfs::BfsParams { source, parents };
        let want = bfs::bfs(g, &q).unwrap();
        let got = bfs::in_passes(g, &q).unwrap();
        assert_eq!(got.distances, want.distances, "{what}: bfs distances");
        assert_eq!(got.parents, want.parents, "{what}: bfs parents");
        bfs::verify_bfs(g, &q, &got).unwrap();
    }
    let want = cc::connected_components(g, &Default::default()).unwrap();
    let got = cc::in_passes(g, &Default::default()).unwrap();
    assert_eq!(got.labels, want.labels, "{what}: cc labels");
    assert_eq!(got.num_components, want.num_components, "{what}: cc");
    if g.is_weighted() {
        let q = sssp::SsspParams {
            source,
            ..Default::default()
        };
        let want = sssp::sssp(g, &q).unwrap();
        let got = sssp::in_passes(g, source as Vertex).unwrap();
        assert_eq!(got.distances, want.distances, "{what}: sssp distances");
        for figure in ["reached", "max_distance"] {
            assert_eq!(
                got.stats.extra[figure], want.stats.extra[figure],
                "{what}: sssp {figure}"
            );
        }
        let q = widest::WidestParams {
            source,
            ..Default::default()
        };
        let want = widest::widest_path(g, &q).unwrap();
        let got = widest::in_passes(g, source as Vertex).unwrap();
        assert_eq!(got.widths, want.widths, "{what}: widest widths");
    }
    if g.is_symmetric() {
        let want = kcore::kcore(g, &Default::default()).unwrap();
        let got = kcore::in_passes(g).unwrap();
        assert_eq!(got.coreness, want.coreness, "{what}: coreness");
        kcore::verify_kcore(g, &got).unwrap();
        for seed in [1, 7] {
            let q = coloring::ColoringParams { seed };
            let want = coloring::coloring(g, &q).unwrap();
            let got = coloring::in_passes(g, &q).unwrap();
            assert_eq!(got.colors, want.colors, "{what}: colours, seed {seed}");
            coloring::verify_coloring(g, &got).unwrap();
        }
    } else {
        assert!(
            kcore::in_passes(g).is_err(),
            "{what}: kcore on a directed graph"
        );
    }
    let q = random_walk::RandomWalkParams {
        length: 7,
        seed: 3,
        ..Default::default()
    };
    let want = random_walk::random_walks(g, &q).unwrap();
    let starts: Vec<Vertex> = (0..n as Vertex).collect();
    let (walks, steps, stopped) = random_walk::in_passes(g, q.seed, starts, 8).unwrap();
    assert_eq!(walks, want.walks, "{what}: random walks");
    assert_eq!(steps, want.stats.edges_traversed, "{what}: steps");
    assert_eq!(
        Some(stopped),
        want.stats.extra["stopped_early"].as_u64(),
        "{what}: walks stopped early"
    );
    let q = pagerank::PageRankParams {
        max_iters: 30,
        ..Default::default()
    };
    let want = pagerank::pagerank(g, &q).unwrap();
    let got = pagerank::in_passes(g, &q).unwrap();
    assert_eq!(
        got.stats.iterations, want.stats.iterations,
        "{what}: pagerank iterations"
    );
    for (v, (a, b)) in got.scores.iter().zip(&want.scores).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12,
            "{what}: pagerank of {v}: {a} against {b}"
        );
    }
}

#[test]
fn kernels_of_passes_give_the_in_memory_results_on_every_view_and_thread_count() {
    for (name, n, edges) in graphs() {
        for symmetric in [true, false] {
            let weighted =
                InMemoryGraph::from_weighted_edges(n, &with_hashed_weights(&edges), symmetric);
            let plain = InMemoryGraph::from_edges(n, &edges, symmetric);
            for threads in [1, 2] {
                with_threads(threads, || {
                    let what = format!("{name}, symmetric {symmetric}, {threads} threads");
                    compare_all(&format!("{what}, weighted"), &weighted.view());
                    compare_all(&format!("{what}, unweighted"), &plain.view());
                    compare_all(
                        &format!("{what}, without slices"),
                        &without_slices(&weighted),
                    );
                });
            }
        }
    }
}

#[test]
fn the_pull_stops_each_list_at_the_walkers_word_and_skips_what_is_done() {
    // A star around 0 and a path 1-2-...-9; the walker is done with v at 1 or 2, or at 0 for
    // v < 3: pulling {1..9} with 9 already done finishes 1, 2 (at 0) and 3 (at 2), and walks
    // the others whole.
    let mut edges: Vec<(Vertex, Vertex)> = (1..10).map(|v| (0, v)).collect();
    edges.extend((1..9).map(|v| (v, v + 1)));
    let g = InMemoryGraph::from_edges(10, &edges, true);
    let g = g.view();
    let set = vastgraph_engine::Bitmap::from_fn(10, |v| v >= 1);
    let done = vastgraph_engine::Bitmap::new(10);
    done.set_atomic(9);
    let walked = std::sync::Mutex::new(Vec::new());
    let ids = g
        .pull(&vastgraph_engine::PullSpec::new(&set, &done), |v, ids| {
            walked.lock().unwrap().push((v, ids.to_vec()));
            ids.iter()
                .any(|&u| (1..3).contains(&u) || (u == 0 && v < 3))
        })
        .unwrap();
    let mut walked = walked.into_inner().unwrap();
    walked.sort();
    // Lists: v (1..=8) has 0, v-1 (but 1), v+1.
    assert!(
        walked.iter().all(|(v, _)| *v != 9),
        "a vertex already done is not walked"
    );
    assert_eq!(done.to_sorted_ids(), vec![1, 2, 3, 9]);
    assert_eq!(
        ids,
        walked.iter().map(|(_, ids)| ids.len() as u64).sum::<u64>()
    );
    assert_eq!(walked[3], (4, vec![0, 3, 5]));

    // Given that the first ids were walked, a pull goes on from the second.
    let done = vastgraph_engine::Bitmap::new(10);
    let seen = std::sync::Mutex::new(Vec::new());
    let spec = vastgraph_engine::PullSpec {
        first_settled: Some(0.0),
        ..vastgraph_engine::PullSpec::new(&set, &done)
    };
    g.pull(&spec, |v, ids| {
        seen.lock().unwrap().push((v, ids.to_vec()));
        false
    })
    .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(seen[0], (1, vec![2]));
    assert_eq!(seen[3], (4, vec![3, 5]));
    assert_eq!(done.count_ones(), 0);
}
