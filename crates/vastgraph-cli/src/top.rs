//! `run --top K`: the K vertices with the largest values, with their labels, in a table.

use std::path::Path;

use vastgraph_algos::harness::top_k;
use vastgraph_algos::registry::Values;

/// Prints the `k` vertices of `store` with the largest `values`, with their labels.
pub fn print_top(store: &Path, algorithm: &str, values: &Values, k: usize) -> anyhow::Result<()> {
    let top: Vec<(u32, f64)> = top_k(values, k)?
        .into_iter()
        .map(|r| (r.vertex, r.value))
        .collect();
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
