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
    let manifest = vastgraph_store::open_manifest(store)?;
    // A value that is a vertex is named too; "no vertex" (-1, 2^32 - 1) is not.
    let names_a_vertex = |x: f64| vertex_values && x >= 0.0 && x < manifest.vertices as f64;
    // The ranked vertices, then the vertices their values name: one read of the labels.
    let mut ids: Vec<u32> = top.iter().map(|&(v, _)| v).collect();
    ids.extend(
        top.iter()
            .filter(|&&(_, x)| names_a_vertex(x))
            .map(|&(_, x)| x as u32),
    );
    let (labels, mut value_labels) = match vastgraph_store::labels_of_ids(store, &manifest, &ids)? {
        Some(mut labels) => {
            let of_values = labels.split_off(top.len());
            (Some(labels), Some(of_values.into_iter()))
        }
        None => (None, None),
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
        let value_label = value_labels.as_mut().filter(|_| names_a_vertex(x));
        let value = match value_label.and_then(Iterator::next) {
            Some(label) => label,
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
