//! K-way merge of sorted runs with a loser tree, removing duplicates across runs. When
//! there are more runs than the read budget can give decent buffers to, groups of runs are
//! first merged into longer runs.

use std::fs;

use crate::cancel::check_cancel;
use crate::external_sort::CHUNK_RECORDS;
use crate::record::{SortRecord, EXHAUSTED};
use crate::run_file::{RunFile, RunReader, RunSpace, RunWriter};
use crate::StoreError;

/// Below this, reads get too small to stream a run efficiently.
const MIN_READ_BUFFER_BYTES: u64 = 256 << 10;
/// Above this, larger reads gain nothing.
const MAX_READ_BUFFER_BYTES: u64 = 16 << 20;

pub(crate) fn merge_runs<R: SortRecord>(
    mut runs: Vec<RunFile>,
    space: &mut RunSpace,
    budget_bytes: u64,
    mut consume: impl FnMut(&[R]) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let max_fan_in = (budget_bytes / MIN_READ_BUFFER_BYTES).max(2) as usize;
    while runs.len() > max_fan_in {
        // Merge the oldest runs into one; the new run joins the back of the queue.
        let group: Vec<RunFile> = runs.drain(..max_fan_in).collect();
        let mut writer = RunWriter::<R>::create(space)?;
        merge_group(group, budget_bytes, |chunk: &[R]| writer.append(chunk))?;
        runs.push(writer.finish()?);
    }
    merge_group(runs, budget_bytes, &mut consume)
}

/// Merge `runs` (few enough for `budget_bytes`) into `consume`, deleting each run file once read.
fn merge_group<R: SortRecord>(
    runs: Vec<RunFile>,
    budget_bytes: u64,
    mut consume: impl FnMut(&[R]) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let record_bytes = std::mem::size_of::<R>() as u64;
    let per_run_bytes = (budget_bytes / runs.len().max(1) as u64)
        .clamp(MIN_READ_BUFFER_BYTES, MAX_READ_BUFFER_BYTES);
    let buffer_records = (per_run_bytes / record_bytes) as usize;
    let mut readers = runs
        .iter()
        .map(|run| RunReader::<R>::open(run, buffer_records))
        .collect::<Result<Vec<_>, _>>()?;
    let mut tree = LoserTree::new(readers.iter().map(RunReader::head_key).collect());
    let mut out: Vec<R> = Vec::with_capacity(CHUNK_RECORDS);
    loop {
        let (source, key) = tree.winner();
        if key == EXHAUSTED {
            break;
        }
        let (record, next_key) = readers[source].pop()?;
        tree.replace_winner(next_key);
        match out.last_mut() {
            Some(last) if last.arc_key() == key => last.absorb_duplicate(&record),
            _ => {
                if out.len() == CHUNK_RECORDS {
                    // Hold back the last record: the next one may duplicate it.
                    check_cancel()?;
                    consume(&out[..CHUNK_RECORDS - 1])?;
                    out.drain(..CHUNK_RECORDS - 1);
                }
                out.push(record);
            }
        }
    }
    check_cancel()?;
    if !out.is_empty() {
        consume(&out)?;
    }
    drop(readers);
    for run in &runs {
        // Free the disk space now rather than when the whole build ends.
        let _ = fs::remove_file(&run.path);
    }
    Ok(())
}

/// Merge two sorted, duplicate-free slices into `consume`, a chunk at a time; a key found in
/// both becomes one record (`absorb_duplicate`).
pub(crate) fn merge_sorted_pair<R: SortRecord>(
    a: &[R],
    b: &[R],
    mut consume: impl FnMut(&[R]) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut out: Vec<R> = Vec::with_capacity(CHUNK_RECORDS);
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        let (x_key, y_key) = (x.arc_key(), y.arc_key());
        // Selects, not branches: which side comes next is a coin flip on most graphs.
        let mut record = if x_key <= y_key { x } else { y };
        if x_key == y_key {
            record.absorb_duplicate(&y);
        }
        i += (x_key <= y_key) as usize;
        j += (y_key <= x_key) as usize;
        out.push(record);
        if out.len() == CHUNK_RECORDS {
            check_cancel()?;
            consume(&out)?;
            out.clear();
        }
    }
    if !out.is_empty() {
        consume(&out)?;
    }
    // One side is used up; the other's rest follows as it is.
    for rest in [&a[i..], &b[j..]] {
        for chunk in rest.chunks(CHUNK_RECORDS) {
            check_cancel()?;
            consume(chunk)?;
        }
    }
    Ok(())
}

/// A tournament tree over the current keys of k sources: the winner (smallest key) is
/// known at once and replaced in log2(k) comparisons. Nodes hold (key, source) pairs so
/// that replaying a path touches only the path.
struct LoserTree {
    /// `nodes[i]` for internal nodes 1..leaves holds the loser of the match at i;
    /// `nodes[0]` holds the overall winner. Leaves are padded to a power of two.
    nodes: Vec<(u64, usize)>,
}

impl LoserTree {
    fn new(keys: Vec<u64>) -> LoserTree {
        let leaves = keys.len().max(1).next_power_of_two();
        let mut tree = LoserTree {
            nodes: vec![(EXHAUSTED, 0); leaves],
        };
        let winner = tree.build(1, &keys);
        tree.nodes[0] = winner;
        tree
    }

    /// Fill the subtree under `node` and return its winner.
    fn build(&mut self, node: usize, keys: &[u64]) -> (u64, usize) {
        let leaves = self.nodes.len();
        if node >= leaves {
            let source = node - leaves;
            return (keys.get(source).copied().unwrap_or(EXHAUSTED), source);
        }
        let left = self.build(2 * node, keys);
        let right = self.build(2 * node + 1, keys);
        let (winner, loser) = if left.0 <= right.0 {
            (left, right)
        } else {
            (right, left)
        };
        self.nodes[node] = loser;
        winner
    }

    /// The source with the smallest key, and that key.
    #[inline]
    fn winner(&self) -> (usize, u64) {
        (self.nodes[0].1, self.nodes[0].0)
    }

    /// The winner's source moved on to `key`: replay its path to the root. Written with
    /// selects rather than a branch: on random keys the comparison is a coin flip, and
    /// mispredictions made the branchy version twice as slow.
    #[inline]
    fn replace_winner(&mut self, key: u64) {
        let mut current = (key, self.nodes[0].1);
        let mut node = (current.1 + self.nodes.len()) >> 1;
        while node > 0 {
            let stored = self.nodes[node];
            let stored_wins = stored.0 < current.0;
            let winner = if stored_wins { stored } else { current };
            let loser = if stored_wins { current } else { stored };
            self.nodes[node] = loser;
            current = winner;
            node >>= 1;
        }
        self.nodes[0] = current;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::SplitMix64;

    /// Drive the tree over in-memory sorted lists, as the merge does over runs.
    fn merge_with_tree(lists: &[Vec<u64>]) -> Vec<u64> {
        let mut positions = vec![0; lists.len()];
        let head = |list: &Vec<u64>, pos: usize| list.get(pos).copied().unwrap_or(EXHAUSTED);
        let mut tree = LoserTree::new(lists.iter().map(|l| head(l, 0)).collect());
        let mut merged = Vec::new();
        loop {
            let (source, key) = tree.winner();
            if key == EXHAUSTED {
                return merged;
            }
            merged.push(key);
            positions[source] += 1;
            tree.replace_winner(head(&lists[source], positions[source]));
        }
    }

    #[test]
    fn a_pair_of_sorted_slices_merges_into_their_union() {
        let mut rng = SplitMix64::new(7);
        for (len_a, len_b) in [
            (0, 0),
            (0, 5),
            (9, 0),
            (200, 150),
            (3 * CHUNK_RECORDS / 2, 40),
        ] {
            let mut sorted_set = |len: usize| {
                let mut list: Vec<u64> = (0..len)
                    .map(|_| rng.below(4 * len as u64 + 1) as u64)
                    .collect();
                list.sort_unstable();
                list.dedup();
                list
            };
            let (a, b) = (sorted_set(len_a), sorted_set(len_b));
            let mut merged = Vec::new();
            merge_sorted_pair(&a, &b, |chunk: &[u64]| {
                merged.extend_from_slice(chunk);
                Ok(())
            })
            .unwrap();
            let union: std::collections::BTreeSet<u64> = a.iter().chain(&b).copied().collect();
            assert_eq!(
                merged,
                union.into_iter().collect::<Vec<_>>(),
                "{len_a} and {len_b}"
            );
        }
    }

    #[test]
    fn loser_tree_merges_any_number_of_sorted_lists() {
        let mut rng = SplitMix64::new(5);
        for k in [1usize, 2, 3, 5, 8, 13] {
            let lists: Vec<Vec<u64>> = (0..k)
                .map(|_| {
                    let len = rng.below(200) as usize;
                    let mut list: Vec<u64> = (0..len).map(|_| rng.below(100) as u64).collect();
                    list.sort_unstable();
                    list
                })
                .collect();
            let mut expected: Vec<u64> = lists.concat();
            expected.sort_unstable();
            assert_eq!(merge_with_tree(&lists), expected, "k = {k}");
        }
    }
}
