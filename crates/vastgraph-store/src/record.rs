//! The records the builder sorts: an arc packed into a u64 key (`src << 32 | dst`, so that
//! sorting keys sorts by source then destination), alone or with its weight.

use std::cmp::Ordering;

use voracious_radix_sort::{RadixSort, Radixable};

use crate::pod::Pod;

/// A key no arc has (ids are below u32::MAX): marks the end of a sorted stream.
pub(crate) const EXHAUSTED: u64 = u64::MAX;

#[inline]
pub(crate) fn pack(src: u32, dst: u32) -> u64 {
    ((src as u64) << 32) | dst as u64
}

#[inline]
pub(crate) fn source_of(key: u64) -> u32 {
    (key >> 32) as u32
}

#[inline]
pub(crate) fn target_of(key: u64) -> u32 {
    key as u32
}

/// What the external sorter, the merge and the CSR writer need of a record.
pub(crate) trait SortRecord: Pod + Radixable<u64> + std::fmt::Debug {
    const WEIGHTED: bool;
    fn new(key: u64, weight: f64) -> Self;
    fn arc_key(&self) -> u64;
    /// The weight as pushed (0 for unweighted records).
    fn weight(&self) -> f64;
    /// The reverse arc, same weight.
    fn transposed(self) -> Self;
    /// Fold a duplicate of the same arc into `self`: the smaller weight wins.
    fn absorb_duplicate(&mut self, other: &Self);
}

impl SortRecord for u64 {
    const WEIGHTED: bool = false;
    #[inline]
    fn new(key: u64, _weight: f64) -> u64 {
        key
    }
    #[inline]
    fn arc_key(&self) -> u64 {
        *self
    }
    #[inline]
    fn weight(&self) -> f64 {
        0.0
    }
    #[inline]
    fn transposed(self) -> u64 {
        self.rotate_left(32)
    }
    #[inline]
    fn absorb_duplicate(&mut self, _other: &u64) {}
}

/// An arc and its weight. The weight stays f64 until the build has seen every input
/// weight and chosen between i32 and f32 storage.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct WeightedArc {
    pub key: u64,
    pub weight: f64,
}

// SAFETY: two 8-byte fields, repr(C): no padding; every bit pattern is a valid u64 and f64.
unsafe impl Pod for WeightedArc {}

// The radix sort orders records by key alone; comparisons must agree with it.
impl PartialEq for WeightedArc {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl PartialOrd for WeightedArc {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.key.cmp(&other.key))
    }
}

impl Radixable<u64> for WeightedArc {
    type Key = u64;
    #[inline]
    fn key(&self) -> u64 {
        self.key
    }
}

impl SortRecord for WeightedArc {
    const WEIGHTED: bool = true;
    #[inline]
    fn new(key: u64, weight: f64) -> WeightedArc {
        WeightedArc { key, weight }
    }
    #[inline]
    fn arc_key(&self) -> u64 {
        self.key
    }
    #[inline]
    fn weight(&self) -> f64 {
        self.weight
    }
    #[inline]
    fn transposed(self) -> WeightedArc {
        WeightedArc {
            key: self.key.rotate_left(32),
            weight: self.weight,
        }
    }
    #[inline]
    fn absorb_duplicate(&mut self, other: &WeightedArc) {
        if other.weight < self.weight {
            self.weight = other.weight;
        }
    }
}

/// Sort by key on all threads, in place. Peeka sort (voracious) needs no scratch buffer on
/// unordered input, but on input made of long sorted stretches it merges them with a
/// buffer of up to half the slice: the builder budgets for that.
pub(crate) fn sort_records<R: SortRecord>(records: &mut [R]) {
    records.voracious_mt_sort(rayon::current_num_threads().max(1));
}

/// Remove adjacent duplicates of a sorted vector, keeping the smallest weight of each arc.
pub(crate) fn dedup_sorted<R: SortRecord>(records: &mut Vec<R>) {
    if records.is_empty() {
        return;
    }
    let mut last = 0;
    for i in 1..records.len() {
        let record = records[i];
        if record.arc_key() == records[last].arc_key() {
            records[last].absorb_duplicate(&record);
        } else {
            last += 1;
            records[last] = record;
        }
    }
    records.truncate(last + 1);
}
