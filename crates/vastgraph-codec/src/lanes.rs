//! The order in which a list's Σ values[u] is summed, whatever the graph view: four lanes by
//! neighbour position mod 4, each added in list order, then (l0 + l1) + (l2 + l3). The engine's
//! `lane_sum` sums raw and decoded lists with it, and the fast decoder that sums as it decodes
//! (`ByteCodeLists::sum_lists`) keeps its lanes and totals them with [`lanes_total`], so that
//! every view gives the same bits.

/// A list's total from its lanes.
#[inline(always)]
pub fn lanes_total([l0, l1, l2, l3]: [f64; 4]) -> f64 {
    (l0 + l1) + (l2 + l3)
}

/// Adds the values at `neighbors` to `lanes`, the first neighbour to lane 0: `neighbors` must
/// start at a list position that is a multiple of 4.
// Always inlined, so that a compressed graph's decoder (compiled apart, for SSSE3) sums each
// block it decodes in place rather than calling out per block.
#[inline(always)]
pub fn add_to_lanes(lanes: &mut [f64; 4], neighbors: &[u32], values: &[f64]) {
    // Summed in locals: once inlined into a decoder that also stores ids, the compiler no
    // longer keeps `*lanes` in registers, and each addition would wait on the last one's
    // store.
    let mut sums = *lanes;
    let mut quads = neighbors.chunks_exact(4);
    for q in &mut quads {
        sums[0] += values[q[0] as usize];
        sums[1] += values[q[1] as usize];
        sums[2] += values[q[2] as usize];
        sums[3] += values[q[3] as usize];
    }
    for (lane, &u) in quads.remainder().iter().enumerate() {
        sums[lane] += values[u as usize];
    }
    *lanes = sums;
}
