//! What only [`Store::verify_structure`] (`vastgraph info --verify`) checks, since it takes a
//! pass over every arc: that a store the manifest calls symmetric holds the reverse of every
//! arc, with the same weight, and that a stored transpose holds exactly the reverses of the
//! lists. Opening a store checks each list on its own (sorted, unique, in range); no list
//! alone can tell whether its arcs come back.
//!
//! The pass sums a keyed 64-bit hash of every arc (u, v, weight) and of its reverse
//! (v, u, weight): the two sums of a symmetric store are equal, and so are the lists' sum and
//! the transpose's reverse sum. The key is drawn afresh for every check, so no store can be
//! made to pass by choosing its arcs. Only when the sums differ is the offending arc looked up,
//! by a search of each arc's reverse list, to name it.

use std::hash::{BuildHasher, Hasher};

use rayon::prelude::*;
use vastgraph_codec::ByteCodeLists;

use crate::manifest::files;
use crate::{Store, StoreError, WeightsRef};

/// Vertices per parallel task.
const TASK_VERTICES: usize = 1 << 12;

/// One direction's lists, raw or compressed.
struct Lists<'a> {
    offsets: &'a [u64],
    raw: &'a [u32],
    codes: Option<ByteCodeLists<'a>>,
    weights: Option<WeightsRef<'a>>,
}

impl Lists<'_> {
    fn vertices(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Calls `f(position, ids)` on `v`'s list a block at a time, in order.
    fn for_each_block(&self, v: usize, mut f: impl FnMut(usize, &[u32])) {
        let (lo, hi) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
        match &self.codes {
            None => f(0, &self.raw[lo..hi]),
            Some(codes) => {
                let mut at = 0;
                codes.for_each_block_in(v as u32, 0, hi - lo, |ids| {
                    f(at, ids);
                    at += ids.len();
                    true
                });
            }
        }
    }

    /// The weight's bits of the arc at `position` of `v`'s list (0 when unweighted).
    fn weight_bits(&self, v: usize, position: usize) -> u64 {
        self.weights
            .map_or(0, |w| w.get(self.offsets[v] as usize + position).to_bits())
    }

    /// The weight's bits of arc `u -> v`, None when `v` is not in `u`'s list.
    fn find(&self, u: usize, v: u32) -> Option<u64> {
        let mut found = None;
        self.for_each_block(u, |at, ids| {
            if found.is_none() {
                if let Ok(i) = ids.binary_search(&v) {
                    found = Some(self.weight_bits(u, at + i));
                }
            }
        });
        found
    }

    /// (Σ h(u, v, w), Σ h(v, u, w)) over the arcs u -> v of weight w.
    fn fingerprint(&self, key: u64) -> (u64, u64) {
        let tasks = self.vertices().div_ceil(TASK_VERTICES);
        (0..tasks)
            .into_par_iter()
            .map(|t| {
                let mut sums = (0u64, 0u64);
                let end = ((t + 1) * TASK_VERTICES).min(self.vertices());
                for v in t * TASK_VERTICES..end {
                    self.for_each_block(v, |at, ids| {
                        for (i, &u) in ids.iter().enumerate() {
                            let w = self.weight_bits(v, at + i);
                            sums.0 = sums.0.wrapping_add(arc_hash(key, v as u32, u, w));
                            sums.1 = sums.1.wrapping_add(arc_hash(key, u, v as u32, w));
                        }
                    });
                }
                sums
            })
            .reduce(
                || (0, 0),
                |a, b| (a.0.wrapping_add(b.0), a.1.wrapping_add(b.1)),
            )
    }

    /// The first arc `u -> v` (weight bits `w`) whose reverse `other` lacks or weighs
    /// differently: (u, v, what `other` has).
    fn first_without_reverse(&self, other: &Lists<'_>) -> Option<(usize, u32, Option<u64>)> {
        let tasks = self.vertices().div_ceil(TASK_VERTICES);
        (0..tasks).into_par_iter().find_map_first(|t| {
            let end = ((t + 1) * TASK_VERTICES).min(self.vertices());
            (t * TASK_VERTICES..end).find_map(|u| {
                let mut bad = None;
                self.for_each_block(u, |at, ids| {
                    for (i, &v) in ids.iter().enumerate() {
                        if bad.is_some() {
                            return;
                        }
                        let reverse = other.find(v as usize, u as u32);
                        if reverse != Some(self.weight_bits(u, at + i)) {
                            bad = Some((u, v, reverse));
                        }
                    }
                });
                bad
            })
        })
    }
}

/// splitmix64's finaliser: every input bit moves every output bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn arc_hash(key: u64, u: u32, v: u32, weight_bits: u64) -> u64 {
    mix(mix(key ^ ((u as u64) << 32 | v as u64)) ^ weight_bits)
}

/// A key no store can anticipate: drawn from the process's random hash seed.
fn fresh_key() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0x5eed);
    hasher.finish()
}

impl Store {
    fn out_lists(&self) -> Lists<'_> {
        Lists {
            offsets: self.offsets(),
            raw: self.neighbors(),
            codes: self.byte_code(),
            weights: self.weights(),
        }
    }

    fn in_lists(&self) -> Option<Lists<'_>> {
        Some(Lists {
            offsets: self.in_offsets()?,
            raw: self.in_neighbors().unwrap_or(&[]),
            codes: self.in_byte_code(),
            weights: self.in_weights(),
        })
    }

    /// The lists' file of one direction, for error messages.
    fn lists_path(&self, transpose: bool) -> std::path::PathBuf {
        let name = match (self.byte_code().is_some(), transpose) {
            (false, false) => files::NEIGHBORS,
            (false, true) => files::IN_NEIGHBORS,
            (true, false) => files::NEIGHBOR_CODES,
            (true, true) => files::IN_NEIGHBOR_CODES,
        };
        self.dir().join(name)
    }

    /// Checks that a symmetric store holds every arc's reverse with the same weight, and that
    /// a transpose holds exactly the reverses of the lists (see the module doc); one pass over
    /// the arcs, and a search that names the first bad arc when there is one.
    pub fn verify_structure(&self) -> Result<(), StoreError> {
        let key = fresh_key();
        let out = self.out_lists();
        let weights = |reverse: Option<u64>| match reverse {
            None => "",
            Some(_) => " with the same weight",
        };
        let (forward, backward) = out.fingerprint(key);
        if !self.manifest().directed && forward != backward {
            let (u, v, reverse) = out.first_without_reverse(&out).unwrap_or((0, 0, None));
            return Err(StoreError::BadNeighbors {
                path: self.lists_path(false),
                vertex: u as u64,
                reason: format!(
                    "arc {u} -> {v} has no reverse {v} -> {u}{}, but the manifest says the \
                     store is symmetric",
                    weights(reverse)
                ),
            });
        }
        let Some(incoming) = self.in_lists() else {
            return Ok(());
        };
        let (_, transposed) = incoming.fingerprint(key);
        if forward == transposed {
            return Ok(());
        }
        if let Some((u, v, reverse)) = out.first_without_reverse(&incoming) {
            return Err(StoreError::BadNeighbors {
                path: self.lists_path(true),
                vertex: v as u64,
                reason: format!(
                    "the transpose does not list {u} as an in-neighbour of {v}{}, but arc \
                     {u} -> {v} is in the lists",
                    weights(reverse)
                ),
            });
        }
        let (v, u, reverse) = incoming.first_without_reverse(&out).unwrap_or((0, 0, None));
        Err(StoreError::BadNeighbors {
            path: self.lists_path(true),
            vertex: v as u64,
            reason: format!(
                "the transpose lists {u} as an in-neighbour of {v}, but arc {u} -> {v} is not \
                 in the lists{}",
                weights(reverse)
            ),
        })
    }
}
