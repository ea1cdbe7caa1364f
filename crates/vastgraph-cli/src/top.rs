//! `run --top K`: the K vertices with the largest values, with their labels, in a table.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;

use vastgraph_algos::registry::Values;

/// A value and its vertex, ordered by value (NaN lowest), then by the smaller id.
struct Ranked(f64, u32);

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let key = |r: &Ranked| if r.0.is_nan() { f64::NEG_INFINITY } else { r.0 };
        key(self).total_cmp(&key(other)).then(other.1.cmp(&self.1))
    }
}

/// The `k` vertices with the largest values, largest first (ties: smaller id first), kept in
/// a heap of `k` so that a run within a budget holds no copy of its values.
pub fn top_k(values: &Values, k: usize) -> anyhow::Result<Vec<(u32, f64)>> {
    let mut heap: BinaryHeap<Reverse<Ranked>> = BinaryHeap::with_capacity(k.min(values.len()) + 1);
    let mut offer = |v: usize, x: f64| {
        heap.push(Reverse(Ranked(x, v as u32)));
        if heap.len() > k {
            heap.pop();
        }
    };
    match values {
        Values::I64(v) => v.iter().enumerate().for_each(|(i, &x)| offer(i, x as f64)),
        Values::U64(v) => v.iter().enumerate().for_each(|(i, &x)| offer(i, x as f64)),
        Values::U32(v) => v.iter().enumerate().for_each(|(i, &x)| offer(i, x as f64)),
        Values::U8(v) => v.iter().enumerate().for_each(|(i, &x)| offer(i, x as f64)),
        Values::F64(v) => v.iter().enumerate().for_each(|(i, &x)| offer(i, x)),
        Values::Rows { .. } => {
            anyhow::bail!("--top ranks vertices by their values; this algorithm gives rows")
        }
    }
    let mut top: Vec<_> = heap.into_iter().map(|Reverse(r)| r).collect();
    top.sort_by(|a, b| b.cmp(a));
    Ok(top.into_iter().map(|Ranked(x, v)| (v, x)).collect())
}

/// Vertices a stats record ranks when `--top` is not given.
pub const STATS_TOP: usize = 10;

/// The stats record's `top`: the `k` vertices with the largest values, as `{vertex, value}`
/// records, largest first; an empty list for an algorithm without a value per vertex. `vastgraph
/// report` shows them with their labels.
pub fn top_record(values: Option<&Values>, k: usize) -> serde_json::Value {
    // top_k refuses rows (random walks): they rank nothing.
    let top = values.and_then(|v| top_k(v, k).ok()).unwrap_or_default();
    top.into_iter()
        .map(|(vertex, value)| serde_json::json!({ "vertex": vertex, "value": value }))
        .collect()
}

/// Prints the `k` vertices of `store` with the largest `values`, with their labels.
pub fn print_top(store: &Path, algorithm: &str, values: &Values, k: usize) -> anyhow::Result<()> {
    let top = top_k(values, k)?;
    let ids: Vec<u32> = top.iter().map(|&(v, _)| v).collect();
    let manifest = vastgraph_store::open_manifest(store)?;
    let labels = vastgraph_store::labels_of_ids(store, &manifest, &ids)?;
    println!("top {} by {algorithm}:", top.len());
    let integral = !matches!(values, Values::F64(_));
    for (rank, &(v, x)) in top.iter().enumerate() {
        let value = if integral {
            format!("{x:.0}")
        } else {
            format!("{x:.6e}")
        };
        match &labels {
            Some(l) => println!("{:>4}  {:>10}  {:<24} {value}", rank + 1, v, l[rank]),
            None => println!("{:>4}  {:>10}  {value}", rank + 1, v),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_come_first_and_ties_go_to_the_smaller_id() {
        let values = Values::F64(vec![0.5, 2.0, f64::NAN, 2.0, 1.0]);
        assert_eq!(
            top_k(&values, 3).unwrap(),
            vec![(1, 2.0), (3, 2.0), (4, 1.0)]
        );
        let degrees = Values::U32(vec![3, 1]);
        assert_eq!(top_k(&degrees, 5).unwrap(), vec![(0, 3.0), (1, 1.0)]);
        let rows = Values::Rows {
            data: vec![0, 1],
            cols: 2,
        };
        assert!(top_k(&rows, 1).is_err());
    }
}
