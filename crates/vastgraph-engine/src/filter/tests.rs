//! The filter against a naive model: a set of active arcs per vertex and a set of dirty vertices.

use std::collections::BTreeSet;

use proptest::prelude::*;

use super::*;
use crate::graph::{InMemoryGraph, NoSlices};

/// A pseudo-random predicate keeping about (keep_in_8)/8 of the arcs; symmetric when asked.
fn predicate(seed: u64, keep_in_8: u64, symmetric: bool) -> impl Fn(Vertex, Vertex) -> bool + Sync {
    move |u, v| {
        let (a, b) = if symmetric && u > v { (v, u) } else { (u, v) };
        let mut x = (seed << 40) ^ ((a as u64) << 20) ^ b as u64;
        x = (x ^ (x >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        (x >> 61) < keep_in_8
    }
}

/// What the filter should hold.
struct Model {
    active: Vec<BTreeSet<Vertex>>,
    dirty: BTreeSet<Vertex>,
    symmetric: bool,
}

impl Model {
    fn new<A: Adjacency>(adj: &A, symmetric: bool) -> Self {
        let active = (0..adj.num_vertices() as Vertex)
            .map(|v| {
                let mut s = BTreeSet::new();
                adj.for_each_neighbor(v, |u| {
                    s.insert(u);
                });
                s
            })
            .collect();
        Model {
            active,
            dirty: BTreeSet::new(),
            symmetric,
        }
    }

    fn pack(&mut self, v: Vertex, pred: &impl Fn(Vertex, Vertex) -> bool) {
        self.dirty.remove(&v);
        let failing: Vec<Vertex> = self.active[v as usize]
            .iter()
            .copied()
            .filter(|&u| !pred(v, u))
            .collect();
        for u in failing {
            self.active[v as usize].remove(&u);
            if self.symmetric && u != v {
                self.dirty.insert(u);
            }
        }
    }

    fn arcs(&self) -> u64 {
        self.active.iter().map(|s| s.len() as u64).sum()
    }
}

/// Compares every observable of the filter with the model.
fn check<A: Adjacency>(
    f: &GraphFilter<'_, A>,
    model: &Model,
    probe: u64,
) -> Result<(), TestCaseError> {
    let n = f.num_vertices();
    prop_assert_eq!(f.num_active_arcs(), model.arcs());
    prop_assert_eq!(
        f.dirty_vertices(),
        model.dirty.iter().copied().collect::<Vec<_>>()
    );
    let view = f.view();
    prop_assert_eq!(view.num_arcs(), model.arcs());
    for v in 0..n as Vertex {
        let want: Vec<Vertex> = model.active[v as usize].iter().copied().collect();
        prop_assert_eq!(f.degree(v), want.len());
        prop_assert_eq!(view.degree(v), want.len());
        prop_assert_eq!(f.is_dirty(v), model.dirty.contains(&v));
        let mut got = Vec::new();
        view.for_each_neighbor(v, |u| got.push(u));
        prop_assert_eq!(&got, &want);
        // A window of positions, chosen from the probe.
        let d = want.len();
        let lo = (probe as usize + v as usize * 7) % (d + 1);
        let hi = lo + (probe as usize / 3 + v as usize) % (d + 1 - lo);
        let mut window = Vec::new();
        view.for_each_neighbor_in(v, lo, hi, |u, w| {
            window.push(u);
            assert_eq!(w, 1.0);
        });
        prop_assert_eq!(&window, &want[lo..hi].to_vec());
        // Early stop after `stop` neighbours.
        let stop = (probe as usize + v as usize) % (d + 2);
        let mut seen = 0;
        let finished = view.try_for_each_neighbor(v, |_| {
            seen += 1;
            seen < stop
        });
        prop_assert_eq!(finished, d < stop.max(1));
        prop_assert_eq!(seen, stop.max(1).min(d));
        // Block invariants: live blocks hold every active edge in their original order.
        let first = f.block_start.get(v as usize);
        let live = f.block_count[v as usize].load(Relaxed) as usize;
        prop_assert!(first + live <= f.block_start.get(v as usize + 1));
        let ids: Vec<usize> = (first..first + live).map(|s| f.block_id(s)).collect();
        prop_assert!(ids.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(live >= d.div_ceil(f.block_size()));
    }
    let stats = f.stats();
    prop_assert_eq!(stats.active_arcs, model.arcs());
    prop_assert!(stats.live_blocks <= stats.block_slots);
    prop_assert_eq!(stats.bytes, stats.vertex_bytes + stats.block_bytes);
    Ok(())
}

/// Operations on a filter: (kind, predicate seed, fraction kept, subset seed).
fn run_ops<A: Adjacency>(
    adj: &A,
    symmetric: bool,
    block_size: usize,
    ops: &[(u8, u64, u64, u64)],
) -> Result<(), TestCaseError> {
    let n = adj.num_vertices();
    let mut f = GraphFilter::with_block_size(adj, symmetric, block_size).unwrap();
    let mut model = Model::new(adj, symmetric);
    check(&f, &model, 0)?;
    for &(kind, seed, keep, subset_seed) in ops {
        let pred = predicate(seed, keep, symmetric);
        match kind % 3 {
            0 => {
                let left = f.filter_edges(&pred);
                for v in 0..n as Vertex {
                    model.pack(v, &pred);
                }
                model.dirty.clear();
                prop_assert_eq!(left, model.arcs());
            }
            1 => {
                let ids: Vec<Vertex> = (0..n as Vertex)
                    .filter(|&v| (v as u64 ^ subset_seed).is_multiple_of(3))
                    .collect();
                let subset = if subset_seed % 2 == 0 {
                    VertexSubset::from_ids(n, ids.clone())
                } else {
                    VertexSubset::from_ids(n, ids.clone()).into_dense()
                };
                let packed = f.edge_map_pack(&subset, &pred);
                prop_assert_eq!(&packed.ids, &ids);
                for &v in &ids {
                    model.pack(v, &pred);
                }
                let want: Vec<u32> = ids
                    .iter()
                    .map(|&v| model.active[v as usize].len() as u32)
                    .collect();
                prop_assert_eq!(packed.degrees, want);
            }
            _ => {
                let mut packs = 0;
                while !model.dirty.is_empty() {
                    let dirty: Vec<Vertex> = model.dirty.iter().copied().collect();
                    packs += dirty.len();
                    for v in dirty {
                        model.pack(v, &pred);
                    }
                }
                prop_assert_eq!(f.pack_dirty(&pred), packs);
            }
        }
        check(&f, &model, seed ^ subset_seed)?;
    }
    Ok(())
}

/// Random edges, a quarter of them at a few hubs so that lists span several blocks.
fn edges_strategy() -> impl Strategy<Value = (usize, Vec<(Vertex, Vertex)>)> {
    (1usize..300).prop_flat_map(|n| {
        let hubs = (n as u32).min(3);
        (
            Just(n),
            prop::collection::vec(
                (0u32..4, 0..n as u32, 0..n as u32).prop_map(move |(k, u, v)| {
                    if k == 0 {
                        (u % hubs, v)
                    } else {
                        (u, v)
                    }
                }),
                0..1500,
            ),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn matches_naive_edge_sets(
        (n, edges) in edges_strategy(),
        symmetric in any::<bool>(),
        block_size in prop::sample::select(vec![64usize, 128]),
        streamed in any::<bool>(),
        ops in prop::collection::vec((any::<u8>(), any::<u64>(), 1u64..8, any::<u64>()), 1..6),
    ) {
        let g = InMemoryGraph::from_edges(n, &edges, symmetric);
        let view = g.view();
        if streamed {
            run_ops(&NoSlices(*view.out()), symmetric, block_size, &ops)?;
        } else {
            run_ops(view.out(), symmetric, block_size, &ops)?;
        }
    }
}

#[test]
fn bad_block_sizes_are_refused() {
    let g = InMemoryGraph::from_edges(2, &[(0, 1)], true);
    let view = g.view();
    for bad in [0, 32, 65, 100, MAX_FILTER_BLOCK_SIZE + 64] {
        let err = GraphFilter::with_block_size(view.out(), true, bad)
            .err()
            .unwrap();
        assert!(err.to_string().contains("multiple of 64"), "{err}");
    }
}

fn check_odd_weights<A: Adjacency>(adj: &A) {
    let f = make_filter(adj, |_, v| v % 2 == 1, false);
    let mut got = vec![];
    f.view().for_each_weighted(0, |u, w| got.push((u, w)));
    let want: Vec<(Vertex, f64)> = (1..=200)
        .filter(|v| v % 2 == 1)
        .map(|v| (v, v as f64 + 0.5))
        .collect();
    assert_eq!(got, want);
    let mut part = vec![];
    f.view()
        .for_each_neighbor_in(0, 40, 43, |u, w| part.push((u, w)));
    assert_eq!(part, want[40..43].to_vec());
}

#[test]
fn weights_follow_the_active_edges() {
    // A hub with 200 weighted neighbours: weight = neighbour id + 0.5.
    let edges: Vec<(Vertex, Vertex, f32)> = (1..=200).map(|v| (0, v, v as f32 + 0.5)).collect();
    let g = InMemoryGraph::from_weighted_edges(201, &edges, false);
    let view = g.view();
    check_odd_weights(view.out());
    check_odd_weights(&NoSlices(*view.out()));
}

#[test]
fn empty_blocks_are_compacted_and_memory_is_bits_per_edge() {
    // One vertex with 64 blocks; keep only the neighbours of the last block.
    let n = 64 * 64 + 1;
    let edges: Vec<(Vertex, Vertex)> = (1..n as Vertex).map(|v| (0, v)).collect();
    let g = InMemoryGraph::from_edges(n, &edges, false);
    let view = g.view();
    let mut f = GraphFilter::new(view.out(), false);
    let before = f.stats();
    assert_eq!(before.block_slots, 64);
    assert_eq!(before.live_blocks, 64);
    // 16 bytes of bits and metadata per block of 64 edges: 2 bits per edge.
    assert_eq!(before.block_bytes, 64 * 16);
    let last_block = (n - 64) as Vertex;
    f.filter_edges(|_, v| v >= last_block);
    let after = f.stats();
    assert_eq!(after.live_blocks, 1);
    assert_eq!(after.compactions, 1);
    assert_eq!(after.active_arcs, 64);
    let mut got = vec![];
    f.for_each_active(0, |u| got.push(u));
    assert_eq!(got, (last_block..n as Vertex).collect::<Vec<_>>());
    // Clearing fewer than a quarter of the blocks leaves them in place (no compaction).
    let mut g2 = GraphFilter::new(view.out(), false);
    g2.filter_edges(|_, v| v > 64 * 10);
    assert_eq!(g2.stats().live_blocks, 64);
    assert_eq!(g2.stats().compactions, 0);
    assert_eq!(g2.degree(0), n - 1 - 64 * 10);
}

#[test]
fn symmetric_filter_marks_other_ends_dirty() {
    // A triangle 0-1-2 and the edge 2-3; drop every edge at vertex 0.
    let g = InMemoryGraph::from_edges(4, &[(0, 1), (1, 2), (0, 2), (2, 3)], true);
    let view = g.view();
    let mut f = GraphFilter::new(view.out(), true);
    let no_zero = |u: Vertex, v: Vertex| u != 0 && v != 0;
    let packed = f.edge_map_pack(&VertexSubset::single(4, 0), no_zero);
    assert_eq!(packed.degrees, vec![0]);
    assert_eq!(f.dirty_vertices(), vec![1, 2]);
    // 1 and 2 still list 0 until they are packed.
    assert_eq!(f.degree(1), 2);
    // Packing 1 and 2 dirties 0 again (its copies are gone already): one more round packs it.
    assert_eq!(f.pack_dirty(no_zero), 3);
    assert!(f.dirty_vertices().is_empty());
    assert_eq!((f.degree(1), f.degree(2), f.num_active_arcs()), (1, 2, 4));
    // The view is a symmetric graph that edge_map and friends can use.
    let graph = f.view().into_graph();
    assert!(graph.is_symmetric());
    let mut n2 = vec![];
    graph.out().for_each_neighbor(2, |u| n2.push(u));
    assert_eq!(n2, vec![1, 3]);
}
