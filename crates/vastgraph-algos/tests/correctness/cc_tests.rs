//! Connected components against the serial verifier, for both methods, on every kind of graph
//! (weak connectivity on directed ones), across thread counts, and on the real graphs.

use crate::support::*;
use proptest::prelude::*;
use vastgraph_algos::cc::{connected_components, verify_cc, CcMethod, CcParams, CcResult};
use vastgraph_algos::AlgoError;
use vastgraph_engine::{Adjacency, Graph, InMemoryGraph, Vertex};

const METHODS: [CcMethod; 2] = [CcMethod::Afforest, CcMethod::Ldd];

fn run_verified<A: Adjacency>(g: &Graph<A>, method: CcMethod) -> CcResult {
    let r = connected_components(
        g,
        &CcParams {
            method,
            ..Default::default()
        },
    )
    .unwrap();
    verify_cc(g, &r).unwrap_or_else(|e| panic!("{}: {e}", method.name()));
    r
}

/// Labels of every method on every way of presenting the graph must be the same vector.
fn all_labels(g: &InMemoryGraph, symmetric: bool) -> Vec<Vec<Vertex>> {
    let mut out = vec![];
    for method in METHODS {
        out.push(run_verified(&g.view(), method).labels);
        out.push(run_verified(&without_slices(g), method).labels);
        if !symmetric {
            out.push(run_verified(&without_transpose(g), method).labels);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn matches_serial_union_find(
        n in 1usize..80,
        raw in prop::collection::vec((0u32..80, 0u32..80), 0..160),
        symmetric in any::<bool>(),
    ) {
        let edges: Vec<(Vertex, Vertex)> = raw.iter().map(|&(u, v)| (u % n as u32, v % n as u32)).collect();
        let g = InMemoryGraph::from_edges(n, &edges, symmetric);
        let labels = all_labels(&g, symmetric);
        for l in &labels[1..] {
            prop_assert_eq!(l, &labels[0]);
        }
    }
}

#[test]
fn directed_arcs_join_weakly() {
    // 0→1←2 is one weak component although 0 and 2 reach nothing in common; 3 is alone; 5→4.
    let g = InMemoryGraph::from_edges(6, &[(0, 1), (2, 1), (5, 4)], false);
    for labels in all_labels(&g, false) {
        assert_eq!(labels, vec![0, 0, 0, 3, 4, 4]);
    }
    let r = run_verified(&g.view(), CcMethod::Afforest);
    assert_eq!(r.num_components, 3);
    assert_eq!(r.stats.extra["components"].as_u64(), Some(3));
}

#[test]
fn skewed_graphs_agree_across_methods_and_threads() {
    // Sparse enough to leave many small components beside the giant one.
    let n = 80_000;
    let edges = skewed_edges(n, 70_000, 5, 3);
    for symmetric in [true, false] {
        let g = InMemoryGraph::from_edges(n, &edges, symmetric);
        let view = g.view();
        let reference = with_threads(1, || run_verified(&view, CcMethod::Afforest));
        assert!(
            reference.num_components > 1000,
            "{} components",
            reference.num_components
        );
        for method in METHODS {
            for threads in [1, 2] {
                let r = with_threads(threads, || run_verified(&view, method));
                assert_eq!(
                    r.labels,
                    reference.labels,
                    "{} on {threads} threads",
                    method.name()
                );
                assert_eq!(r.num_components, reference.num_components);
            }
        }
        if !symmetric {
            let r = with_threads(2, || {
                run_verified(&without_transpose(&g), CcMethod::Afforest)
            });
            assert_eq!(r.labels, reference.labels);
        }
    }
}

#[test]
fn methods_parse_and_bad_beta_is_an_error() {
    assert_eq!("afforest".parse::<CcMethod>().unwrap(), CcMethod::Afforest);
    assert_eq!("ldd".parse::<CcMethod>().unwrap(), CcMethod::Ldd);
    assert!(matches!(
        "union-find".parse::<CcMethod>(),
        Err(AlgoError::InvalidParameter { .. })
    ));
    let g = InMemoryGraph::from_edges(3, &[(0, 1)], true);
    for beta in [0.0, -1.0, f64::NAN] {
        let params = CcParams {
            method: CcMethod::Ldd,
            beta,
            ..Default::default()
        };
        assert!(matches!(
            connected_components(&g.view(), &params),
            Err(AlgoError::InvalidParameter { .. })
        ));
    }
    let empty = InMemoryGraph::from_edges(0, &[], true);
    for method in METHODS {
        assert_eq!(run_verified(&empty.view(), method).num_components, 0);
    }
}

#[test]
fn verifier_rejects_wrong_answers() {
    let g = InMemoryGraph::from_edges(5, &[(0, 1), (1, 2), (3, 4)], true);
    let good = run_verified(&g.view(), CcMethod::Afforest);
    let with = |labels: Vec<Vertex>, num_components| CcResult {
        labels,
        num_components,
        stats: Default::default(),
    };
    // Right partition, but labelled by the largest id.
    assert!(verify_cc(&g.view(), &with(vec![2, 2, 2, 4, 4], 2)).is_err());
    // Two components merged.
    assert!(verify_cc(&g.view(), &with(vec![0, 0, 0, 0, 0], 2)).is_err());
    // One component split.
    assert!(verify_cc(&g.view(), &with(vec![0, 0, 2, 3, 3], 3)).is_err());
    // Wrong count.
    assert!(verify_cc(&g.view(), &with(good.labels.clone(), 3)).is_err());
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
        let reference = with_threads(2, || run_verified(&view, CcMethod::Afforest));
        let one = with_threads(1, || {
            connected_components(&view, &CcParams::default()).unwrap()
        });
        assert_eq!(one.labels, reference.labels, "{name}");
        let ldd = with_threads(2, || run_verified(&view, CcMethod::Ldd));
        assert_eq!(ldd.labels, reference.labels, "{name}");
        if directed {
            let pushed = with_threads(2, || {
                run_verified(&without_transpose(&g), CcMethod::Afforest)
            });
            assert_eq!(pushed.labels, reference.labels, "{name}");
        }
        println!(
            "{name}: afforest {:?}\n  ldd {:?}",
            reference.stats, ldd.stats
        );
    }
}
