//! How a memory budget is split: the offsets and the algorithm's vertex state first (both O(n),
//! fixed by the graph), then what is left between the I/O buffer pool and the caches of short
//! lists and blocks ([`super::cache`], [`super::lists`]): half each, up to the pool's useful
//! most. A budget that cannot hold the O(n) part, a minimal pool and a minimal cache is refused
//! before anything runs, with the minimum it needs.
//!
//! The cache has a floor because without one a run of the label-correcting queue (a long path,
//! a road network) reads a block for every list it relaxes: on a 2^20-vertex path, bfs within
//! a budget whose pool took all the room read 2^20 blocks and ran for minutes, against a
//! second with a few blocks kept.

use vastgraph_io::ALIGN;

use crate::memory::{budget_flag_value, human_bytes, minimum_budget_phrase};

/// What the process needs whatever the graph (code, thread stacks, allocator arenas): not part of
/// the budget, which covers what scales with the graph or is a buffer or cache. A memory cgroup
/// around a run should allow the budget plus about this much.
pub const PROCESS_BASELINE_BYTES: u64 = 48 << 20;

/// The smallest pooled buffer: a list that fits it fits any pool.
pub(crate) const MIN_BUFFER: usize = 16 << 10;
const MAX_BUFFER: usize = 1 << 20;
const MIN_DEPTH: usize = 4;
const MAX_DEPTH: usize = 64;
/// A small pool keeps buffers of at least this size while it can keep [`STREAM_DEPTH`] of
/// them, rather than [`MAX_DEPTH`] smaller ones: a streamed piece of a compressed store ends at
/// a list, and the next piece reads the page they share again, a page a piece.
const STREAM_BUFFER: usize = 64 << 10;
const STREAM_DEPTH: usize = 16;
/// Beyond 64 requests of 1 MiB in flight per file, an SSD gains nothing.
const MAX_POOL_PER_FILE: u64 = (MAX_DEPTH * MAX_BUFFER) as u64;
/// The least room for the caches, part of the smallest budget: enough for a few blocks of the
/// label-correcting queue and a few short lists (see `OocGraph::open`).
pub(crate) const MIN_CACHE: u64 = 512 << 10;
/// The pool beside the cache of blocks: this many buffers a file, of whole pages from
/// [`MIN_BUFFER`] to [`MAX_BUFFER`].
const BLOCKS_POOL_DEPTH: usize = 16;

/// How the I/O pool is shaped from the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolShape {
    /// For a run of passes: half of what the budget leaves beyond the floors, up to the pool's
    /// useful most, in the buffers and depth that suit its size.
    Passes,
    /// For a kernel reading lists at random through the cache of blocks, which also reads
    /// whole frontiers in passes (`edge_map`): [`BLOCKS_POOL_DEPTH`] buffers a file taking a
    /// quarter of the room beyond the fixed part; the blocks keep the rest.
    BesideBlocks,
    /// `depth` buffers of `buffer` bytes a file (tests use small buffers to exercise
    /// splitting).
    Given { buffer: usize, depth: usize },
}

/// What a plan was made from, so that a refusal at the open can plan a larger budget.
#[derive(Clone, Copy, Debug)]
struct Planned {
    offsets_bytes: u64,
    state_bytes: u64,
    reserved: Reserved,
    shape: PoolShape,
    cache_bytes: u64,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct MemoryPlan {
    pub budget_bytes: u64,
    /// The offsets held in DRAM ([`super::offsets_bytes`]): the CSR's edge offsets, and a
    /// compressed store's byte offsets.
    pub offsets_bytes: u64,
    /// The algorithm's vertex state, as it declares it.
    pub state_bytes: u64,
    /// The I/O buffer pool: `depth` buffers of `buffer_bytes` per file read.
    pub pool_bytes: u64,
    pub buffer_bytes: usize,
    pub depth: usize,
    /// Files read per request (1, or 2 with weights).
    pub files: usize,
    /// Buffers for compressed lists too long for the pool, read apart: reserved from the
    /// budget before the pool is sized (an upper bound from the longest list), then set to
    /// what the pool's buffers leave long when the store is opened.
    pub long_list_bytes: u64,
    /// Each thread's buffers for the lists a kernel reading at random is handed: reserved from
    /// the budget for the store's longest list ([`super::list_buffers_reserve`]), then set to
    /// what the offsets the open holds give for it.
    pub list_buffer_bytes: u64,
    /// The page checksums of the files passes read (a 1024th of each), taken from the cache's
    /// room when the store is opened.
    pub page_sums_bytes: u64,
    /// The tiles' room for a kernel that cannot run without them ([`super::tiles_reserve`]),
    /// handed to the cache's room at the open, from which the tiles take it.
    pub tiles_bytes: u64,
    /// The rest of the budget: room for the cache of short lists.
    pub cache_bytes: u64,
    #[serde(skip)]
    planned: Planned,
}

/// What the store needs in DRAM beside its offsets, set aside before the pool is sized.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reserved {
    /// Buffers for compressed lists longer than a pooled buffer ([`super::long_list_reserve`];
    /// 0 for a raw store).
    pub long_lists: u64,
    /// Each thread's list buffers, for a kernel that reads lists at random
    /// ([`super::list_buffers_reserve`]; 0 for a run of passes).
    pub list_buffers: u64,
    /// The page checksums of the files the passes read ([`super::page_sums_reserve`]).
    pub page_sums: u64,
    /// The tiles' index, chunks and buffers, for a kernel that cannot run without them
    /// ([`super::tiles_reserve`]; 0 for every other).
    pub tiles: u64,
}

#[derive(Debug, Clone)]
pub struct BudgetError {
    pub budget_bytes: u64,
    pub minimum_bytes: u64,
    pub offsets_bytes: u64,
    pub state_bytes: u64,
    pub long_list_bytes: u64,
    pub list_buffer_bytes: u64,
    pub page_sums_bytes: u64,
    pub tiles_bytes: u64,
    pub min_pool_bytes: u64,
    /// What the run takes in memory (the mapped graph and the state), for a kernel that falls
    /// back to running there: where that is less than the out-of-core minimum, it is the
    /// minimum named ([`BudgetError::or_in_memory`]).
    pub in_memory_bytes: Option<u64>,
    /// The least budget of the same run on one thread, where that is less than the minimum
    /// ([`BudgetError::or_one_thread`]).
    pub one_thread_bytes: Option<u64>,
}

impl BudgetError {
    /// The refusal of a run that also runs in memory within `in_memory` bytes: the minimum it
    /// names is the lesser of the two, so that the budget it names runs.
    pub fn or_in_memory(self, in_memory: u64) -> Self {
        BudgetError {
            minimum_bytes: self.minimum_bytes.min(in_memory),
            in_memory_bytes: Some(in_memory),
            ..self
        }
    }

    /// The refusal of a run that on one thread would need `one_thread` bytes (None: it runs
    /// on one already): named where that is less than the minimum.
    pub fn or_one_thread(self, one_thread: Option<u64>) -> Self {
        BudgetError {
            one_thread_bytes: one_thread.filter(|&bytes| bytes < self.minimum_bytes),
            ..self
        }
    }
}

impl std::fmt::Display for BudgetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The reserves there are, each ", what bytes", and a comma before "plus" after them.
        let reserves: String = [
            (
                "a buffer for the longest compressed lists",
                self.long_list_bytes,
            ),
            (
                "the threads' buffers for the longest lists",
                self.list_buffer_bytes,
            ),
            ("page checksums", self.page_sums_bytes),
            ("the tiles' index, chunks and buffers", self.tiles_bytes),
        ]
        .iter()
        .filter(|(_, bytes)| *bytes > 0)
        .map(|(what, bytes)| format!(", {what} {}", human_bytes(*bytes)))
        .collect();
        let comma = if reserves.is_empty() { "" } else { "," };
        write!(
            f,
            "a memory budget of {} is too small: the offsets need {} and the algorithm's \
             vertex state {}{reserves}{comma} plus at least {} of I/O buffers and {} of \
             cache; {}{}{}",
            human_bytes(self.budget_bytes),
            human_bytes(self.offsets_bytes),
            human_bytes(self.state_bytes),
            human_bytes(self.min_pool_bytes),
            human_bytes(MIN_CACHE),
            match self.in_memory_bytes {
                Some(bytes) => format!(
                    "in memory, the mapped graph and the state take {}; ",
                    human_bytes(bytes)
                ),
                None => String::new(),
            },
            match self.one_thread_bytes {
                Some(bytes) => format!(
                    "the minimum grows with the thread count: with --threads 1 it is --memory \
                     {}, and with these threads ",
                    budget_flag_value(bytes)
                ),
                None => String::new(),
            },
            minimum_budget_phrase(self.minimum_bytes),
        )
    }
}

impl std::error::Error for BudgetError {}

impl MemoryPlan {
    /// Splits `budget` for a graph of `n` vertices whose offsets take `offsets_bytes` in DRAM
    /// ([`super::offsets_bytes`]) and whose algorithm keeps `state_bytes` of vertex state,
    /// reading `files` files per request, with `reserved` set aside first and the pool shaped
    /// by `shape`.
    pub fn new(
        budget: u64,
        offsets_bytes: u64,
        files: usize,
        state_bytes: u64,
        reserved: Reserved,
        shape: PoolShape,
    ) -> Result<MemoryPlan, BudgetError> {
        let Reserved {
            long_lists: long_list_bytes,
            list_buffers: list_buffer_bytes,
            page_sums: page_sums_bytes,
            tiles: tiles_bytes,
        } = reserved;
        let files_u = files as u64;
        // Saturating: a state declared from absurd parameters is refused, not wrapped round.
        let fixed = offsets_bytes
            .saturating_add(state_bytes)
            .saturating_add(long_list_bytes)
            .saturating_add(list_buffer_bytes)
            .saturating_add(page_sums_bytes)
            .saturating_add(tiles_bytes);
        let (buffer_bytes, depth) = match shape {
            PoolShape::Passes => (None, None),
            PoolShape::BesideBlocks => {
                let per_file = budget.saturating_sub(fixed) / 4 / files_u;
                let buffer = (per_file as usize / BLOCKS_POOL_DEPTH / ALIGN * ALIGN)
                    .clamp(MIN_BUFFER, MAX_BUFFER);
                (Some(buffer), Some(BLOCKS_POOL_DEPTH))
            }
            PoolShape::Given { buffer, depth } => (Some(buffer), Some(depth)),
        };
        let min_buffer = buffer_bytes.unwrap_or(MIN_BUFFER);
        let min_pool_bytes = files_u * (depth.unwrap_or(MIN_DEPTH) * min_buffer) as u64;
        let minimum_bytes = fixed
            .saturating_add(min_pool_bytes)
            .saturating_add(MIN_CACHE);
        if budget < minimum_bytes {
            return Err(BudgetError {
                budget_bytes: budget,
                minimum_bytes,
                offsets_bytes,
                state_bytes,
                long_list_bytes,
                list_buffer_bytes,
                page_sums_bytes,
                tiles_bytes,
                min_pool_bytes,
                in_memory_bytes: None,
                one_thread_bytes: None,
            });
        }
        // The pool takes half of what is beyond the floors, up to its useful most; the caches
        // keep the rest.
        let spare = budget - minimum_bytes;
        let pool_room = (min_pool_bytes + spare / 2).min(files_u * MAX_POOL_PER_FILE);
        let per_file = (pool_room / files_u).max(min_pool_bytes / files_u);
        let buffer = buffer_bytes.unwrap_or_else(|| {
            let per_file = per_file as usize;
            let deepest = per_file / MAX_DEPTH;
            let streamed = STREAM_BUFFER.min(per_file / STREAM_DEPTH);
            (deepest.max(streamed) / ALIGN * ALIGN).clamp(MIN_BUFFER, MAX_BUFFER)
        });
        let depth =
            depth.unwrap_or_else(|| (per_file as usize / buffer).clamp(MIN_DEPTH, MAX_DEPTH));
        let pool_bytes = (files * depth * buffer) as u64;
        Ok(MemoryPlan {
            budget_bytes: budget,
            offsets_bytes,
            state_bytes,
            pool_bytes,
            buffer_bytes: buffer,
            depth,
            files,
            long_list_bytes,
            list_buffer_bytes,
            page_sums_bytes,
            tiles_bytes,
            cache_bytes: budget - fixed - pool_bytes,
            planned: Planned {
                offsets_bytes,
                state_bytes,
                reserved,
                shape,
                cache_bytes: budget - fixed - pool_bytes,
            },
        })
    }

    /// The least budget, from this plan's up, whose plan (made as this one was) leaves `more`
    /// bytes of cache room beyond what this one left when it was made: what a refusal names
    /// when the open needs more of that room than the budget left. The pool takes part of what
    /// a larger budget adds, so this is more than the budget plus `more`.
    pub fn budget_for_more_cache(&self, more: u64) -> u64 {
        let p = self.planned;
        let target = p.cache_bytes.saturating_add(more);
        let enough = |budget: u64| {
            MemoryPlan::new(
                budget,
                p.offsets_bytes,
                self.files,
                p.state_bytes,
                p.reserved,
                p.shape,
            )
            .is_ok_and(|plan| plan.cache_bytes >= target)
        };
        // A budget `step` larger is enough once the step covers twice `more` and a buffer a
        // file: the pool takes at most half of a step, give or take a buffer.
        let (mut refused, mut step) = (self.budget_bytes, more.max(1));
        while !enough(refused.saturating_add(step)) {
            if refused.saturating_add(step) == u64::MAX {
                return u64::MAX;
            }
            refused = refused.saturating_add(step);
            step = step.saturating_mul(2);
        }
        // `refused` is not enough (or is this plan's budget), `refused + step` is.
        let mut enough_at = refused.saturating_add(step);
        while enough_at - refused > 1 {
            let mid = refused + (enough_at - refused) / 2;
            match enough(mid) {
                true => enough_at = mid,
                false => refused = mid,
            }
        }
        enough_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_fits_what_is_left_and_too_small_names_the_minimum() {
        let n = 1_000_000;
        // A graph of n vertices whose algorithm keeps 16 bytes a vertex.
        let plan = |budget: u64, files: usize, reserved: Reserved| {
            MemoryPlan::new(
                budget,
                8 * (n + 1),
                files,
                16 * n,
                reserved,
                PoolShape::Passes,
            )
        };
        let none = Reserved::default();
        let full = plan(1 << 30, 1, none).unwrap();
        assert_eq!((full.buffer_bytes, full.depth), (MAX_BUFFER, MAX_DEPTH));
        let used = full.offsets_bytes + full.state_bytes + full.pool_bytes;
        assert_eq!(used + full.cache_bytes, 1 << 30);
        let tight = 8 * (n + 1) + 16 * n + (2 << 20);
        let small = plan(tight, 2, none).unwrap();
        assert!(small.offsets_bytes + small.state_bytes + small.pool_bytes <= tight);
        let err = plan(20 * n, 1, none).unwrap_err();
        assert!(err.minimum_bytes > 24 * n);
        assert!(err.to_string().contains("the minimum is --memory"), "{err}");
        assert!(plan(err.minimum_bytes, 1, none).is_ok());
        // Every budget leaves the caches their floor, and the pool at most half of the rest.
        for budget in [err.minimum_bytes, err.minimum_bytes * 2, 1 << 30] {
            let p = plan(budget, 1, none).unwrap();
            assert!(p.cache_bytes >= MIN_CACHE, "{p:?}");
            let beyond = budget - p.offsets_bytes - p.state_bytes;
            assert!(p.pool_bytes <= beyond / 2 + (64 << 10), "{p:?}");
        }
        // Reserves for long lists, list buffers and page checksums are part of the minimum and
        // stay out of the pool and the cache at any budget.
        let (long, buffers, sums) = (3 << 20, 2 << 20, 1 << 20);
        let reserved = Reserved {
            long_lists: long,
            list_buffers: buffers,
            page_sums: sums,
            tiles: 0,
        };
        let err = plan(20 * n, 1, reserved).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("longest compressed lists"), "{message}");
        assert!(
            message.contains("buffers for the longest lists 2.0 MiB,"),
            "{message}"
        );
        assert!(
            message.contains("page checksums 1.0 MiB, plus"),
            "{message}"
        );
        assert!(!message.contains(",,"), "{message}");
        for budget in [err.minimum_bytes, 1 << 30] {
            let p = plan(budget, 1, reserved).unwrap();
            assert_eq!(
                (p.long_list_bytes, p.list_buffer_bytes, p.page_sums_bytes),
                (long, buffers, sums)
            );
            let used = p.offsets_bytes + p.state_bytes + p.pool_bytes + long + buffers + sums;
            assert_eq!(used + p.cache_bytes, budget);
        }
    }

    /// The budget a refusal at the open names leaves the room it asked for, planned the same
    /// way, and a byte less does not: the pool's share of what it adds is counted, in every
    /// shape.
    #[test]
    fn the_budget_for_more_cache_is_the_least_that_leaves_it() {
        let n = 100_000;
        let (offsets, state) = (8 * (n + 1), 8 * n);
        let reserved = Reserved {
            page_sums: 4096,
            ..Reserved::default()
        };
        for shape in [
            PoolShape::Passes,
            PoolShape::BesideBlocks,
            PoolShape::Given {
                buffer: 64 << 10,
                depth: 8,
            },
        ] {
            let plan = |budget| MemoryPlan::new(budget, offsets, 2, state, reserved, shape);
            let least = plan(0).unwrap_err().minimum_bytes;
            for (budget, more) in [
                (least, 1),
                (least, 3 << 20),
                (least + (40 << 20), 300 << 20),
            ] {
                let p = plan(budget).unwrap();
                let named = p.budget_for_more_cache(more);
                let wanted = p.cache_bytes + more;
                let what = format!("{shape:?}, {budget} + {more}: {named}");
                assert!(plan(named).unwrap().cache_bytes >= wanted, "{what}");
                assert!(plan(named - 1).unwrap().cache_bytes < wanted, "{what}");
                if shape == PoolShape::Passes && more > 1 << 20 {
                    // The pool takes part of what the budget adds.
                    assert!(named > budget + more + (more >> 3), "{what}");
                }
            }
        }
    }

    #[test]
    fn a_small_pool_keeps_fewer_larger_buffers_a_large_one_the_deepest() {
        let n = 100_000;
        let (offsets, state) = (8 * (n + 1), 8 * n);
        let plan = |budget: u64| {
            MemoryPlan::new(
                budget,
                offsets,
                1,
                state,
                Reserved::default(),
                PoolShape::Passes,
            )
            .unwrap()
        };
        // A budget of offsets + state + MIN_CACHE + 2 * pool leaves the pool about `pool`.
        let fixed = offsets + state;
        // Pools from a few hundred KiB to the most: buffers never below 64 KiB while 16 of them
        // fit, and never fewer than 16 while the buffers are smaller than 1 MiB.
        for pool in [
            512u64 << 10,
            1 << 20,
            1280 << 10,
            2 << 20,
            4 << 20,
            16 << 20,
            64 << 20,
        ] {
            let p = plan(fixed + MIN_CACHE + 2 * pool);
            assert!(p.pool_bytes <= pool + (64 << 10), "{pool}: {p:?}");
            if pool >= (STREAM_DEPTH * STREAM_BUFFER) as u64 {
                assert!(p.buffer_bytes >= STREAM_BUFFER, "{pool}: {p:?}");
            }
            if p.buffer_bytes < MAX_BUFFER {
                assert!(p.depth >= STREAM_DEPTH, "{pool}: {p:?}");
            }
        }
        let p = plan(fixed + MIN_CACHE + 2 * (1280 << 10));
        assert_eq!((p.buffer_bytes, p.depth), (STREAM_BUFFER, 20), "{p:?}");
        let p = plan(1 << 30);
        assert_eq!((p.buffer_bytes, p.depth), (MAX_BUFFER, MAX_DEPTH), "{p:?}");
    }
}
