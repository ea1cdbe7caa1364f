//! A resumable kernel stopped after an iteration and resumed from its checkpoint (once or
//! twice, on another thread count) ends with the result of an uninterrupted run, bit for bit.

mod support;

use std::sync::Arc;

use support::*;
use vastgraph_algos::checkpoint::{Checkpoint, CheckpointOptions, Every};
use vastgraph_algos::common::AlgoError;
use vastgraph_algos::registry::{self, Params, RunError, ALGORITHMS};
use vastgraph_engine::{CsrGraph, InMemoryGraph};

const N: usize = 1 << 13;

fn graph() -> InMemoryGraph {
    let edges = with_hashed_weights(&skewed_edges(N, 12 * N, 8, 5));
    // Integral weights, so that sssp's sums are exact whatever the order of relaxations.
    let edges: Vec<_> = edges
        .into_iter()
        .map(|(u, v, w)| (u, v, (w * 16.0).ceil()))
        .collect();
    InMemoryGraph::from_weighted_edges(N, &edges, true)
}

fn params(name: &str) -> Params {
    // Bounded, and not stopped early, so that every kernel runs a dozen iterations or more.
    Params::default()
        .with("source", 0)
        .with("max_iters", 40)
        .with(
            "tolerance",
            if name == "delta-pagerank" { 1e-9 } else { 0.0 },
        )
        .with("parents", name == "bfs")
        .only_for(name)
}

fn with_checkpoint(mut p: Params, checkpoint: Option<Arc<Checkpoint>>) -> Params {
    p.checkpoint = checkpoint;
    p
}

fn open(dir: &std::path::Path, resume: bool, stop_after: Option<u64>) -> Arc<Checkpoint> {
    let options = CheckpointOptions {
        every: Every::Iterations(1),
        resume,
        stop_after,
    };
    Arc::new(Checkpoint::open(dir, "test-graph", options).unwrap())
}

/// The result's values, exactly (Debug prints every f64 so that it reads back the same).
fn values_of(out: &registry::Output) -> String {
    format!("{:?}", out.values)
}

fn run(name: &str, g: &CsrGraph<'_>, p: &Params) -> Result<registry::Output, RunError> {
    registry::run_on_csr(name, g, p, false)
}

#[test]
fn every_resumable_kernel_resumed_gives_the_uninterrupted_result() {
    let g = graph();
    let view = g.view();
    let resumable: Vec<&str> = ALGORITHMS
        .iter()
        .filter(|a| a.resumable)
        .map(|a| a.name)
        .collect();
    assert_eq!(resumable.len(), 7, "{resumable:?}");
    for name in resumable {
        let whole = with_threads(1, || run(name, &view, &params(name)).unwrap());
        let iterations = whole.stats.iterations;
        assert!(iterations >= 4, "{name}: only {iterations} iterations");
        // Stopped after the first iteration and again in the middle, resumed to the end.
        let dir = tempfile::tempdir().unwrap();
        let stops = [1, iterations / 2];
        let mut resume = false;
        for stop in stops {
            let p = with_checkpoint(params(name), Some(open(dir.path(), resume, Some(stop))));
            match with_threads(2, || run(name, &view, &p)) {
                Err(RunError::Algo(AlgoError::Interrupted { iteration, .. })) => {
                    assert_eq!(iteration, stop, "{name}")
                }
                other => panic!("{name}: stopped after {stop}: {:?}", other.map(|o| o.stats)),
            }
            resume = true;
        }
        let checkpoint = open(dir.path(), true, None);
        let p = with_checkpoint(params(name), Some(checkpoint.clone()));
        let resumed = with_threads(1, || run(name, &view, &p)).unwrap();
        assert_eq!(checkpoint.resumed_from(), Some(iterations / 2), "{name}");
        assert_eq!(values_of(&resumed), values_of(&whole), "{name}");
        assert_eq!(resumed.stats.iterations, iterations, "{name}");
        checkpoint.finish().unwrap();
        assert!(!checkpoint.path().exists());
    }
}

#[test]
fn a_checkpoint_is_refused_by_other_parameters_and_by_kernels_that_do_not_save() {
    let g = graph();
    let view = g.view();
    let dir = tempfile::tempdir().unwrap();
    let p = with_checkpoint(params("pagerank"), Some(open(dir.path(), false, Some(2))));
    assert!(matches!(
        run("pagerank", &view, &p),
        Err(RunError::Algo(AlgoError::Interrupted { .. }))
    ));
    drop(p);
    let other = with_checkpoint(
        params("pagerank").with("damping", 0.5),
        Some(open(dir.path(), true, None)),
    );
    let e = run("pagerank", &view, &other).err().unwrap().to_string();
    assert!(e.contains("other parameters"), "{e}");
    drop(other);
    let wrong_kernel = with_checkpoint(
        params("label-propagation"),
        Some(open(dir.path(), true, None)),
    );
    let e = run("label-propagation", &view, &wrong_kernel)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("a checkpoint of pagerank"), "{e}");
    let e = run("cc", &view, &wrong_kernel.only_for("cc"))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("does not save checkpoints"), "{e}");
}
