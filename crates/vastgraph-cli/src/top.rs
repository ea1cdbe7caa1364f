//! `run --top K`: the K vertices with the largest values, with their labels, in a table.

use std::path::Path;

use vastgraph_algos::harness::top_k;
use vastgraph_algos::registry::Values;

/// Prints the `k` vertices of `store` with the largest `values`, with their labels; values that
/// are vertices (`vertex_values`: a component's smallest vertex) by their labels too, as
/// `--output FILE.tsv` writes them.
pub fn print_top(
    store: &Path,
    algorithm: &str,
    values: &Values,
    vertex_values: bool,
    k: usize,
) -> anyhow::Result<()> {
    let top: Vec<(u32, f64)> = top_k(values, k)?
        .into_iter()
        .map(|r| (r.vertex, r.value))
        .collect();
    let ids: Vec<u32> = top.iter().map(|&(v, _)| v).collect();
    let manifest = vastgraph_store::open_manifest(store)?;
    let labels = vastgraph_store::labels_of_ids(store, &manifest, &ids)?;
    // A vertex value's label; none for "no vertex" (-1, 2^32 - 1).
    let value_ids: Vec<u32> = top
        .iter()
        .filter(|&&(_, x)| vertex_values && x >= 0.0 && x < manifest.vertices as f64)
        .map(|&(_, x)| x as u32)
        .collect();
    let value_labels = match vertex_values {
        true => vastgraph_store::labels_of_ids(store, &manifest, &value_ids)?,
        false => None,
    };
    let value_label = |x: f64| -> Option<&str> {
        let at = value_ids.iter().position(|&id| id as f64 == x)?;
        value_labels.as_ref().map(|l| l[at].as_str())
    };
    let unranked = match values {
        Values::F64(v) => v.iter().filter(|x| !x.is_finite()).count(),
        _ => 0,
    };
    match unranked {
        0 => println!("top {} by {algorithm}:", top.len()),
        m => println!(
            "top {} by {algorithm} (not ranked: {m} vertices whose value is infinite or NaN, \
             e.g. unreachable):",
            top.len()
        ),
    }
    let integral = !matches!(values, Values::F64(_));
    for (rank, &(v, x)) in top.iter().enumerate() {
        let value = match value_label(x) {
            Some(label) => label.to_string(),
            None if integral => format!("{x:.0}"),
            None => format!("{x:.6e}"),
        };
        match &labels {
            Some(l) => println!("{:>4}  {:>10}  {:<24} {value}", rank + 1, v, l[rank]),
            None => println!("{:>4}  {:>10}  {value}", rank + 1, v),
        }
    }
    Ok(())
}
