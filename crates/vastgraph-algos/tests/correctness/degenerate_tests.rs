//! Every algorithm of the registry on degenerate graphs (no vertices, one vertex, vertices and no
//! arcs, self-loops only), in memory and within a memory budget (`--memory`), on symmetric and
//! directed, weighted and unweighted stores: each run ends in a result its verifier accepts or
//! in an error, never in a panic.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use vastgraph_algos::ooc::{self, BudgetFit};
use vastgraph_algos::registry::{self, Params, ALGORITHMS};
use vastgraph_engine::ooc::{BackendChoice, DeviceProfile, IoMode, OocOptions};
use vastgraph_store::{BuildOptions, Store, StoreBuilder};

const MIB: u64 = 1 << 20;

/// A degenerate graph: its vertex count and arcs.
struct Shape {
    name: &'static str,
    vertices: u64,
    edges: &'static [(u32, u32)],
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "empty",
        vertices: 0,
        edges: &[],
    },
    Shape {
        name: "one vertex",
        vertices: 1,
        edges: &[],
    },
    Shape {
        name: "five vertices, no arcs",
        vertices: 5,
        edges: &[],
    },
    Shape {
        name: "self-loops only",
        vertices: 3,
        edges: &[(0, 0), (1, 1), (2, 2)],
    },
    Shape {
        name: "one self-loop, one edge",
        vertices: 3,
        edges: &[(1, 1), (0, 2)],
    },
];

fn build(dir: &Path, shape: &Shape, symmetric: bool, weighted: bool) {
    let mut builder = StoreBuilder::create(
        dir,
        BuildOptions {
            symmetrize: symmetric,
            transpose: !symmetric,
            keep_self_loops: true,
            weighted,
            memory_bytes: 16 * MIB,
            ..Default::default()
        },
    )
    .unwrap();
    builder.ensure_vertices(shape.vertices);
    let src: Vec<u32> = shape.edges.iter().map(|e| e.0).collect();
    let dst: Vec<u32> = shape.edges.iter().map(|e| e.1).collect();
    let w = vec![2.0; src.len()];
    builder
        .push_batch(&src, &dst, weighted.then_some(&w[..]))
        .unwrap();
    builder.finish().unwrap();
}

fn options() -> OocOptions {
    OocOptions {
        mode: IoMode::Adaptive,
        max_reentries: 5,
        backend: BackendChoice::Auto,
        direct: true,
        profile: Some(DeviceProfile {
            sequential_bytes_per_second: 2e9,
            random_reads_per_second: 2e5,
        }),
        recalibrate: false,
        random_access: false,
    }
}

/// Runs `name` in memory or within a budget; Err(message) for a clean error, a panic otherwise.
fn run(dir: &Path, name: &str, within_budget: bool) -> Result<(), String> {
    let params = Params::default();
    if within_budget {
        let fit = ooc::open_within_budget(dir, name, &params, 16 * MIB, options())
            .map_err(|e| format!("{e:#}"))?;
        if let BudgetFit::OutOfCore(g) = fit {
            return ooc::run(name, &g, &params, true)
                .map(drop)
                .map_err(|e| e.to_string());
        }
    }
    let store = Store::open(dir).map_err(|e| e.to_string())?;
    registry::run_on_store(&store, name, &params, true)
        .map(drop)
        .map_err(|e| e.to_string())
}

#[test]
fn every_algorithm_survives_degenerate_graphs_in_both_modes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut runs = 0;
    for (s, shape) in SHAPES.iter().enumerate() {
        for symmetric in [true, false] {
            for weighted in [false, true] {
                let dir = tmp.path().join(format!("g{s}-{symmetric}-{weighted}"));
                build(&dir, shape, symmetric, weighted);
                for algorithm in ALGORITHMS {
                    for within_budget in [false, true] {
                        runs += 1;
                        let what = format!(
                            "{} on '{}' ({}, {}, {})",
                            algorithm.name,
                            shape.name,
                            if symmetric { "symmetric" } else { "directed" },
                            if weighted { "weighted" } else { "unweighted" },
                            if within_budget {
                                "--memory"
                            } else {
                                "in memory"
                            },
                        );
                        match catch_unwind(AssertUnwindSafe(|| {
                            run(&dir, algorithm.name, within_budget)
                        })) {
                            Ok(Ok(())) => {}
                            // A clean refusal must be one the user can act on, not a
                            // verifier's rejection of the kernel's own result.
                            Ok(Err(message)) if message.contains("verif") => {
                                failures.push(format!("{what}: {message}"))
                            }
                            Ok(Err(_)) => {}
                            Err(_) => failures.push(format!("{what}: panicked")),
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
