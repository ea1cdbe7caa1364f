//! Behaviour of the generators through the public API: exact counts, ids in range,
//! thread-count independence, seed sensitivity, degree shape, weights.

use vastgraph_gen::{
    EdgeGenerator, Kronecker, KroneckerParams, Uniform, UniformParams, CHUNK_EDGES,
};

#[derive(Debug, Default, PartialEq)]
struct Edges {
    src: Vec<u32>,
    dst: Vec<u32>,
    weights: Vec<f64>,
    batches: usize,
}

fn collect(generator: &dyn EdgeGenerator) -> Edges {
    let mut edges = Edges::default();
    generator
        .for_each_batch(&mut |s, d, w| {
            assert_eq!(s.len(), d.len());
            assert!(s.len() as u64 <= CHUNK_EDGES);
            assert_eq!(w.is_some(), generator.weighted());
            edges.src.extend_from_slice(s);
            edges.dst.extend_from_slice(d);
            edges.weights.extend_from_slice(w.unwrap_or_default());
            edges.batches += 1;
            Ok(())
        })
        .unwrap();
    edges
}

fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

fn kron(scale: u32, edge_factor: u64, seed: u64, weighted: bool) -> Kronecker {
    Kronecker::new(KroneckerParams {
        scale,
        edge_factor,
        seed,
        weighted,
    })
    .unwrap()
}

fn uniform(vertices: u64, edges: u64, seed: u64, weighted: bool) -> Uniform {
    Uniform::new(UniformParams {
        vertices,
        edges,
        seed,
        weighted,
    })
    .unwrap()
}

fn out_degrees(edges: &Edges, n: u64) -> Vec<u64> {
    let mut degree = vec![0u64; n as usize];
    for &u in &edges.src {
        degree[u as usize] += 1;
    }
    degree
}

#[test]
fn kronecker_has_exact_counts_and_ids_in_range() {
    let g = kron(12, 16, 1, false);
    assert_eq!((g.num_vertices(), g.num_edges()), (4096, 16 * 4096));
    let e = collect(&g);
    assert_eq!(e.src.len(), 16 * 4096);
    assert!(e.src.iter().chain(&e.dst).all(|&v| v < 4096));
    assert!(e.weights.is_empty());
}

#[test]
fn output_is_identical_for_one_and_two_threads() {
    // Several windows' worth of chunks, and a partial last chunk for uniform.
    let k = kron(16, 40, 7, true);
    let u = uniform(1000, 37 * CHUNK_EDGES + 123, 7, true);
    for g in [&k as &dyn EdgeGenerator, &u] {
        let one = with_threads(1, || collect(g));
        let two = with_threads(2, || collect(g));
        assert_eq!(one.src.len() as u64, g.num_edges());
        assert!(one == two, "outputs differ between 1 and 2 threads");
        // 5 threads also changes the window of chunks generated at once (8 → 20).
        let five = with_threads(5, || collect(g));
        assert!(one == five, "outputs differ between 1 and 5 threads");
    }
}

#[test]
fn the_seed_changes_the_output_and_weights_do_not_change_the_edges() {
    let a = collect(&kron(10, 8, 1, false));
    let b = collect(&kron(10, 8, 2, false));
    assert_ne!(a.src, b.src);
    let weighted = collect(&kron(10, 8, 1, true));
    assert_eq!((&a.src, &a.dst), (&weighted.src, &weighted.dst));
    assert_eq!(weighted.weights.len(), a.src.len());
    assert!(weighted
        .weights
        .iter()
        .all(|&w| w.fract() == 0.0 && (1.0..=255.0).contains(&w)));

    let u1 = collect(&uniform(5000, 20000, 1, false));
    let u2 = collect(&uniform(5000, 20000, 2, false));
    assert_ne!(u1.src, u2.src);
}

#[test]
fn kronecker_degrees_are_skewed_and_uniform_degrees_are_not() {
    let scale = 14;
    let k = collect(&kron(scale, 16, 3, false));
    let degree = out_degrees(&k, 1 << scale);
    let max = *degree.iter().max().unwrap();
    let isolated = degree.iter().filter(|&&d| d == 0).count();
    // Mean out-degree 16; Graph500 graphs have hubs of degree in the thousands and many
    // vertices without out-edges.
    assert!(max > 50 * 16, "max out-degree {max}");
    assert!(isolated > (1 << scale) / 10, "{isolated} isolated");

    let n = 1 << scale;
    let u = collect(&uniform(n, 16 * n, 3, false));
    let degree = out_degrees(&u, n);
    let max = *degree.iter().max().unwrap();
    // Poisson(16): the maximum over 16k vertices is about 35, and P(0) is 1e-7.
    assert!(max < 3 * 16, "max out-degree {max}");
    assert!(degree.iter().all(|&d| d > 0), "a vertex without out-edges");
    assert!(u.src.iter().chain(&u.dst).all(|&v| (v as u64) < n));
}

#[test]
fn kronecker_permutation_scatters_hubs_across_ids() {
    // Without the permutation the hub would be vertex 0 (all-A quadrant path).
    let k = collect(&kron(12, 16, 9, false));
    let degree = out_degrees(&k, 1 << 12);
    let hub = degree.iter().enumerate().max_by_key(|(_, &d)| d).unwrap().0;
    let other = collect(&kron(12, 16, 10, false));
    let degree2 = out_degrees(&other, 1 << 12);
    let hub2 = degree2
        .iter()
        .enumerate()
        .max_by_key(|(_, &d)| d)
        .unwrap()
        .0;
    assert_ne!(hub, hub2, "hubs should land on seed-dependent ids");
}

#[test]
fn errors_from_the_callback_stop_generation() {
    let g = uniform(10, 10 * CHUNK_EDGES, 0, false);
    let mut calls = 0;
    let result = g.for_each_batch(&mut |_, _, _| {
        calls += 1;
        anyhow::ensure!(calls < 3, "sink full");
        Ok(())
    });
    assert_eq!(result.unwrap_err().to_string(), "sink full");
    assert_eq!(calls, 3);
}

#[test]
fn bad_uniform_parameters_are_refused() {
    assert!(Uniform::new(UniformParams {
        vertices: 0,
        edges: 1,
        seed: 0,
        weighted: false
    })
    .is_err());
    assert!(Uniform::new(UniformParams {
        vertices: 1 << 32,
        edges: 1,
        seed: 0,
        weighted: false
    })
    .is_err());
}
