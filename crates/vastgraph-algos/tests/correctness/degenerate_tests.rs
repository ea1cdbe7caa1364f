//! Every algorithm of the registry on degenerate graphs (no vertices, one vertex, vertices and no
//! arcs, self-loops only, one self-loop beside an edge), in memory and out of core, on symmetric
//! and directed, weighted and unweighted stores: each run ends in a result its verifier accepts
//! or in an error, never in a panic, and both modes refuse a graph alike. Then large adversarial
//! graphs (a long path, a large star, a clique) in memory and within a budget.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use vastgraph_algos::budget::{self, BudgetFit};
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
        tiles: false,
        gather_tiles: false,
    }
}

/// Runs `name` in memory or out of core (the kernels without passes too, which a budget
/// holding these small graphs would otherwise run in memory); Err(message) for a clean error, a
/// panic otherwise.
fn run(dir: &Path, name: &str, out_of_core: bool) -> Result<(), String> {
    let params = Params::default();
    if out_of_core {
        let g = budget::open_out_of_core(dir, name, &params, 16 * MIB, options())
            .map_err(|e| format!("{e:#}"))?;
        return budget::run(name, &g, &params, true)
            .map(drop)
            .map_err(|e| e.to_string());
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
                    let what = format!(
                        "{} on '{}' ({}, {})",
                        algorithm.name,
                        shape.name,
                        if symmetric { "symmetric" } else { "directed" },
                        if weighted { "weighted" } else { "unweighted" },
                    );
                    let [in_memory, out_of_core] = [false, true].map(|out_of_core| {
                        runs += 1;
                        catch_unwind(AssertUnwindSafe(|| run(&dir, algorithm.name, out_of_core)))
                    });
                    match (in_memory, out_of_core) {
                        (Err(_), Err(_)) => {
                            failures.push(format!("{what}: panicked in both modes"))
                        }
                        (Err(_), _) => failures.push(format!("{what}: panicked in memory")),
                        (_, Err(_)) => failures.push(format!("{what}: panicked out of core")),
                        // A clean refusal must be one the user can act on, not a verifier's
                        // rejection of the kernel's own result.
                        (Ok(Err(m)), _) | (_, Ok(Err(m))) if m.contains("verif") => {
                            failures.push(format!("{what}: {m}"))
                        }
                        (Ok(Ok(())), Ok(Ok(()))) => {}
                        // Out of core a directed store's in-arcs come from its tiles, not its
                        // transpose: label-propagation asks for them.
                        (Ok(Ok(())), Ok(Err(m)))
                            if algorithm.name == "label-propagation"
                                && !symmetric
                                && m.contains("vastgraph tile") => {}
                        // Both modes refuse a graph alike: the same checks, the same words.
                        (Ok(Err(a)), Ok(Err(b))) if a == b => {}
                        (a, b) => failures.push(format!(
                            "{what}: in memory {:?}, out of core {:?}",
                            a.unwrap(),
                            b.unwrap()
                        )),
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

/// Asserts that `name` with `params` is refused on the store in `dir` in memory, and within a
/// budget of 1 byte or 16 MiB with the same words.
fn refused_alike_within_any_budget(dir: &Path, name: &str, params: &Params) {
    let what = format!("{name} with {params:?} on {}", dir.display());
    let store = Store::open(dir).unwrap();
    let in_memory = registry::run_on_store(&store, name, params, false)
        .err()
        .expect(&what)
        .to_string();
    for budget in [1, 16 * MIB] {
        let within = budget::open_within_budget(dir, name, params, budget, options());
        let message = format!("{:#}", within.err().expect(&what));
        assert_eq!(message, in_memory, "{what} within {budget} bytes");
    }
}

/// A store that lacks what an algorithm needs (a directed one for an algorithm of undirected
/// graphs, an unweighted one for one of weights) is refused for that within any budget, a
/// budget too small to plan included: with the words of the in-memory refusal, not a minimum
/// budget for a run that could not take place.
#[test]
fn a_store_lacking_what_the_algorithm_needs_is_refused_for_that_within_any_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let mut refused = 0;
    for (symmetric, weighted) in [(false, false), (false, true), (true, false)] {
        let dir = tmp.path().join(format!("g-{symmetric}-{weighted}"));
        build(&dir, &SHAPES[4], symmetric, weighted);
        for algorithm in ALGORITHMS {
            let lacks = (algorithm.needs.symmetric && !symmetric)
                || (algorithm.needs.weights.is_some() && !weighted);
            if !lacks {
                continue;
            }
            refused_alike_within_any_budget(&dir, algorithm.name, &Params::default());
            refused += 1;
        }
    }
    // tc, kcore and the other undirected kernels on the directed stores; sssp, bellman-ford and
    // widest on the unweighted ones.
    assert!(refused >= 10, "{refused} refusals");
}

/// Parameters a run refuses on a store (a source or one of the sources beyond its vertices,
/// label propagation's semi-synchronous schedule on a directed store) are refused for that
/// within any budget, with the words of the in-memory refusal.
#[test]
fn parameters_a_store_cannot_serve_are_refused_for_that_within_any_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, &SHAPES[4], false, true);
    let n = Store::open(&dir).unwrap().manifest().vertices;
    let mut refused = 0;
    for algorithm in ALGORITHMS {
        let mut cases = Vec::new();
        if algorithm.param("source").is_some() {
            cases.push(Params::default().with("source", n));
        }
        if algorithm.param("sources").is_some() {
            cases.push(Params::default().with("sources", vec![0, n + 5]));
        }
        if algorithm.param("schedule").is_some() {
            cases.push(Params::default().with("schedule", "semi-synchronous"));
        }
        for params in cases {
            refused_alike_within_any_budget(&dir, algorithm.name, &params);
            refused += 1;
        }
    }
    assert!(refused >= 10, "{refused} refusals");
}

/// A large adversarial graph, built batch by batch: (name, vertices, edges of batch i), and
/// whether it also runs within a budget.
struct Large {
    name: &'static str,
    vertices: u64,
    batches: u64,
    batch: fn(u64, u64) -> Vec<(u32, u32)>,
    within_budget: bool,
}

/// Vertices of the path and leaves of the star, and the clique's size: 2^18 (a recursion a
/// level deep overflows any thread's stack long before, a pass a level takes 2^36 steps) and
/// 1,000 here;
/// `VASTGRAPH_ADVERSARIAL=full` runs the 10M-vertex path and star and the 5,000-clique. (Within
/// a budget, bfs and sssp cross the path's levels in their label-correcting queue, a list at a
/// time: a planned pass a level would cost O(n/64) and a pass's overhead each.)
fn large_shapes() -> Vec<Large> {
    let full = std::env::var("VASTGRAPH_ADVERSARIAL").is_ok_and(|v| v == "full");
    let (n, k) = if full {
        (10_000_000, 5_000)
    } else {
        (1 << 18, 1_000)
    };
    const BATCH: u64 = 1 << 20;
    vec![
        Large {
            name: "path",
            vertices: n,
            batches: (n - 1).div_ceil(BATCH),
            batch: |i, n| {
                let end = ((i + 1) * BATCH).min(n - 1);
                (i * BATCH..end).map(|v| (v as u32, v as u32 + 1)).collect()
            },
            within_budget: true,
        },
        Large {
            name: "star",
            vertices: n,
            batches: (n - 1).div_ceil(BATCH),
            batch: |i, n| {
                let end = ((i + 1) * BATCH).min(n - 1);
                (i * BATCH..end).map(|v| (0, v as u32 + 1)).collect()
            },
            within_budget: true,
        },
        Large {
            name: "clique",
            vertices: k,
            batches: k,
            batch: |u, k| (u + 1..k).map(|v| (u as u32, v as u32)).collect(),
            within_budget: true,
        },
    ]
}

fn build_large(dir: &Path, shape: &Large) {
    let mut builder = StoreBuilder::create(
        dir,
        BuildOptions {
            symmetrize: true,
            weighted: true,
            memory_bytes: 256 * MIB,
            ..Default::default()
        },
    )
    .unwrap();
    builder.ensure_vertices(shape.vertices);
    for i in 0..shape.batches {
        let edges = (shape.batch)(i, shape.vertices);
        let src: Vec<u32> = edges.iter().map(|e| e.0).collect();
        let dst: Vec<u32> = edges.iter().map(|e| e.1).collect();
        let w: Vec<f64> = edges.iter().map(|e| ((e.0 + e.1) % 7 + 1) as f64).collect();
        builder.push_batch(&src, &dst, Some(&w)).unwrap();
    }
    builder.finish().unwrap();
}

/// Runs `name` within the smallest of a ladder of budgets (each 1.25 times the last) that holds
/// its O(n) state: out of core wherever the graph does not fit beside it.
fn run_within_smallest_budget(dir: &Path, name: &str) -> Result<&'static str, String> {
    let params = Params::default();
    let mut budget = 8 * MIB;
    while budget < 64 << 30 {
        match budget::open_within_budget(dir, name, &params, budget, options()) {
            Err(e) if format!("{e:#}").contains("too small") => budget += budget / 4,
            _ => break,
        }
    }
    loop {
        match budget::open_within_budget(dir, name, &params, budget, options()) {
            Err(e) if format!("{e:#}").contains("too small") && budget < 64 << 30 => {
                budget += budget / 4;
            }
            Err(e) => return Err(format!("{e:#}")),
            Ok(BudgetFit::OutOfCore(g)) => {
                return budget::run(name, &g, &params, true)
                    .map(|_| "out of core")
                    .map_err(|e| e.to_string())
            }
            Ok(BudgetFit::InMemory { .. }) => return run(dir, name, false).map(|_| "in memory"),
        }
    }
}

#[test]
fn every_algorithm_on_a_long_path_a_large_star_and_a_clique_in_both_modes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for shape in large_shapes() {
        let dir = tmp.path().join(shape.name);
        build_large(&dir, &shape);
        let modes: &[bool] = match shape.within_budget {
            true => &[false, true],
            false => &[false],
        };
        for algorithm in ALGORITHMS {
            for &within_budget in modes {
                let started = std::time::Instant::now();
                let outcome = catch_unwind(AssertUnwindSafe(|| match within_budget {
                    false => run(&dir, algorithm.name, false).map(|_| "in memory"),
                    true => run_within_smallest_budget(&dir, algorithm.name),
                }));
                let what = format!(
                    "{:22} on the {} of {} vertices, {}",
                    algorithm.name,
                    shape.name,
                    shape.vertices,
                    if within_budget {
                        "the smallest budget"
                    } else {
                        "mapped"
                    }
                );
                match outcome {
                    Ok(Ok(mode)) => {
                        println!("{what}: verified {mode} in {:.2?}", started.elapsed())
                    }
                    // Every algorithm takes a symmetric weighted graph: no refusal is expected.
                    Ok(Err(message)) => failures.push(format!("{what}: {message}")),
                    Err(_) => failures.push(format!("{what}: panicked")),
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
