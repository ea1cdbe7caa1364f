//! PageRank against its serial power iteration, the exact stopping rule, dangling mass, thread
//! independence (pull: bit-identical; push: within 1e-9), push = pull, and the real graphs.

use crate::support::*;
use proptest::prelude::*;
use vastgraph_algos::pagerank::{pagerank, verify_pagerank, PageRankParams, PageRankResult};
use vastgraph_algos::AlgoError;
use vastgraph_engine::{Adjacency, Graph, InMemoryGraph, Vertex};

fn run_verified<A: Adjacency>(g: &Graph<A>, params: &PageRankParams) -> PageRankResult {
    let r = pagerank(g, params).unwrap();
    verify_pagerank(g, params, &r).unwrap_or_else(|e| panic!("{e}"));
    r
}

fn l1(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

fn fixed_iterations(iters: u64) -> PageRankParams {
    PageRankParams {
        tolerance: 0.0,
        max_iters: iters,
        ..Default::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn matches_serial_power_iteration(
        n in 1usize..60,
        raw in prop::collection::vec((0u32..60, 0u32..60), 0..300),
        symmetric in any::<bool>(),
        damping in 0.0f64..0.95,
    ) {
        let edges: Vec<(Vertex, Vertex)> = raw.iter().map(|&(u, v)| (u % n as u32, v % n as u32)).collect();
        let g = InMemoryGraph::from_edges(n, &edges, symmetric);
        let params = PageRankParams { damping, tolerance: 1e-10, max_iters: 1000 };
        let pulled = run_verified(&g.view(), &params);
        prop_assert!(pulled.delta < 1e-10);
        let hidden = run_verified(&without_slices(&g), &params);
        prop_assert!(l1(&hidden.scores, &pulled.scores) < 1e-12);
        if !symmetric {
            let pushed = run_verified(&without_transpose(&g), &params);
            prop_assert_eq!(pushed.stats.extra["direction"].as_str(), Some("push"));
            prop_assert!(l1(&pushed.scores, &pulled.scores) < 1e-9);
        }
    }
}

#[test]
fn two_vertices_with_a_dangling_sink() {
    // 0→1, 1 dangling: p0 = (1−d)/2 + d·p1/2 and p0 + p1 = 1 give p0 = 1/(2 + d).
    let g = InMemoryGraph::from_edges(2, &[(0, 1)], false);
    for d in [0.0, 0.5, 0.85] {
        let r = run_verified(
            &g.view(),
            &PageRankParams {
                damping: d,
                tolerance: 1e-14,
                max_iters: 1000,
            },
        );
        let p0 = 1.0 / (2.0 + d);
        assert!(
            (r.scores[0] - p0).abs() < 1e-12 && (r.scores[1] - (1.0 - p0)).abs() < 1e-12,
            "{:?}",
            r.scores
        );
    }
    // Without arcs every vertex is dangling and the scores stay uniform.
    let none = InMemoryGraph::from_edges(5, &[], false);
    let r = run_verified(&none.view(), &PageRankParams::default());
    assert!(r.scores.iter().all(|&s| (s - 0.2).abs() < 1e-15));
}

#[test]
fn stops_at_the_first_iteration_below_tolerance() {
    let g = InMemoryGraph::from_edges(5000, &skewed_edges(5000, 40_000, 3, 5), false);
    let params = PageRankParams::default();
    let r = run_verified(&g.view(), &params);
    let iters = r.stats.iterations;
    assert!(r.delta < params.tolerance && r.stats.extra["converged"] == true);
    assert!(iters > 1 && iters < params.max_iters);
    // One iteration fewer was not yet below the tolerance, and is the same computation.
    let before = pagerank(
        &g.view(),
        &PageRankParams {
            max_iters: iters - 1,
            ..params.clone()
        },
    )
    .unwrap();
    assert!(before.delta >= params.tolerance && before.stats.extra["converged"] == false);
    assert_eq!(before.stats.iterations, iters - 1);
    // With no tolerance it runs exactly max_iters.
    let fixed = pagerank(&g.view(), &fixed_iterations(7)).unwrap();
    assert_eq!(fixed.stats.iterations, 7);
    assert_eq!(fixed.stats.edges_traversed, 7 * g.view().num_arcs());
}

#[test]
fn threads_do_not_change_the_result() {
    let n = 50_000;
    let g = InMemoryGraph::from_edges(n, &skewed_edges(n, 400_000, 6, 9), false);
    let params = fixed_iterations(30);
    let view = g.view();
    let one = with_threads(1, || pagerank(&view, &params).unwrap());
    let two = with_threads(2, || pagerank(&view, &params).unwrap());
    // Pull sums each vertex in in-edge order and reduces in fixed blocks: bit-identical.
    assert_eq!(one.scores, two.scores);
    assert_eq!(one.delta, two.delta);
    let out_only = without_transpose(&g);
    let push_one = with_threads(1, || pagerank(&out_only, &params).unwrap());
    let push_two = with_threads(2, || pagerank(&out_only, &params).unwrap());
    assert!(l1(&push_one.scores, &push_two.scores) < 1e-9);
    assert!(l1(&push_two.scores, &two.scores) < 1e-9);
    let total: f64 = two.scores.iter().sum();
    assert!((total - 1.0).abs() < 1e-9, "sum {total}");
}

#[test]
fn bad_parameters_are_errors() {
    let g = InMemoryGraph::from_edges(3, &[(0, 1)], true);
    for params in [
        PageRankParams {
            damping: 1.0,
            ..Default::default()
        },
        PageRankParams {
            damping: -0.1,
            ..Default::default()
        },
        PageRankParams {
            damping: f64::NAN,
            ..Default::default()
        },
        PageRankParams {
            tolerance: f64::NAN,
            ..Default::default()
        },
        PageRankParams {
            tolerance: -1.0,
            ..Default::default()
        },
    ] {
        assert!(
            matches!(
                pagerank(&g.view(), &params),
                Err(AlgoError::InvalidParameter { .. })
            ),
            "{params:?}"
        );
    }
    let empty = InMemoryGraph::from_edges(0, &[], true);
    for tolerance in [1e-6, 0.0] {
        let params = PageRankParams {
            tolerance,
            ..Default::default()
        };
        let result = run_verified(&empty.view(), &params);
        assert!(result.scores.is_empty());
        // Nothing to change: converged in 0 iterations, even at tolerance 0.
        assert_eq!(
            result.stats.extra["converged"], true,
            "tolerance {tolerance}"
        );
        assert_eq!(result.stats.iterations, 0);
    }
}

#[test]
fn verifier_rejects_wrong_answers() {
    let g = InMemoryGraph::from_edges(4, &[(0, 1), (1, 2), (2, 0), (3, 0)], false);
    let params = PageRankParams::default();
    let good = run_verified(&g.view(), &params);
    let with = |scores: Vec<f64>| PageRankResult {
        scores,
        delta: 0.0,
        stats: Default::default(),
    };
    // Sums to 1 but is not the fixpoint.
    assert!(verify_pagerank(&g.view(), &params, &with(vec![0.25; 4])).is_err());
    // The fixpoint, not normalised.
    assert!(verify_pagerank(
        &g.view(),
        &params,
        &with(good.scores.iter().map(|s| s * 1.001).collect())
    )
    .is_err());
    // Computed with another damping.
    let other = pagerank(
        &g.view(),
        &PageRankParams {
            damping: 0.5,
            ..params.clone()
        },
    )
    .unwrap();
    assert!(verify_pagerank(&g.view(), &params, &other).is_err());
}

#[test]
fn verifier_holds_a_run_stopped_by_max_iters_to_its_last_change() {
    let edges = [
        (0, 1),
        (1, 2),
        (2, 0),
        (3, 0),
        (4, 3),
        (5, 4),
        (0, 5),
        (1, 4),
    ];
    let g = InMemoryGraph::from_edges(6, &edges, false);
    let params = fixed_iterations(3);
    let stopped = run_verified(&g.view(), &params);
    // Far from the fixed point, which an earlier checker demanded of every run.
    let converged = run_verified(&g.view(), &PageRankParams::default());
    assert!(l1(&stopped.scores, &converged.scores) > 1e-3);
    let claim = |scores: Vec<f64>, delta: f64, iterations: u64| PageRankResult {
        scores,
        delta,
        stats: vastgraph_algos::RunStats {
            iterations,
            ..Default::default()
        },
    };
    let check = |r: &PageRankResult| verify_pagerank(&g.view(), &params, r);
    check(&claim(stopped.scores.clone(), stopped.delta, 3)).unwrap();
    // The same scores claiming a smaller last change than they had.
    assert!(check(&claim(stopped.scores.clone(), stopped.delta / 10.0, 3)).is_err());
    // Two scores swapped.
    let mut swapped = stopped.scores.clone();
    swapped.swap(0, 3);
    assert!(check(&claim(swapped, stopped.delta, 3)).is_err());
    // Uniform scores pass the residual test with a δ of ‖T(p) − p‖₁ / d (one step from the
    // uniform start moves them by ‖T(p) − p‖₁), but no run of 30 steps ends with that δ.
    let first_step = pagerank(&g.view(), &fixed_iterations(1)).unwrap().delta;
    let needed = first_step / PageRankParams::default().damping * 1.01;
    let uniform = vec![1.0 / 6.0; 6];
    check(&claim(uniform.clone(), needed, 0)).unwrap();
    assert!(check(&claim(uniform, needed, 30)).is_err());
}

#[test]
fn real_graphs() {
    for (name, directed) in [
        ("web-cnr-2000", true),
        ("social-ego-twitter-undirected", false),
    ] {
        let Some(list) = load_real(name) else {
            continue;
        };
        let g = InMemoryGraph::from_edges(list.n, &list.edges, !directed);
        let view = g.view();
        let params = PageRankParams::default();
        let two = with_threads(2, || run_verified(&view, &params));
        let one = with_threads(1, || pagerank(&view, &params).unwrap());
        assert_eq!(one.scores, two.scores, "{name}");
        if directed {
            let pushed = with_threads(2, || pagerank(&without_transpose(&g), &params).unwrap());
            assert_eq!(pushed.stats.iterations, two.stats.iterations, "{name}");
            assert!(l1(&pushed.scores, &two.scores) < 1e-9, "{name}");
        }
        println!("{name}: {:?}", two.stats);
    }
}
