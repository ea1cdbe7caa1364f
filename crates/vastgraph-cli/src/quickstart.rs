//! `vastgraph quickstart`: the README's first command. Generates a weighted, symmetric Kronecker
//! graph into a temporary store, runs every algorithm on it with its verifier, and prints a table.

use std::path::PathBuf;

use vastgraph_algos::registry::{self, Params, Values, ALGORITHMS};
use vastgraph_store::Store;

#[derive(clap::Args)]
pub struct QuickstartArgs {
    /// log2 of the number of vertices.
    #[arg(long, default_value_t = 16)]
    pub scale: u32,
    /// Keep the store in this directory (default: a temporary directory, removed afterwards).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// A one-line summary of a result array.
fn summarize(values: &Option<Values>) -> String {
    match values {
        None => String::new(),
        Some(Values::I64(v)) => {
            let reached = v.iter().filter(|&&d| d >= 0).count();
            format!("{reached} reached, max {}", v.iter().max().unwrap_or(&0))
        }
        Some(Values::F64(v)) => {
            let finite: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
            let max = finite.iter().copied().fold(f64::NAN, f64::max);
            format!(
                "sum {:.4}, max {:.4}, {} finite",
                finite.iter().sum::<f64>(),
                max,
                finite.len()
            )
        }
        Some(Values::U32(v)) => {
            let mut distinct = v.clone();
            distinct.sort_unstable();
            distinct.dedup();
            format!(
                "{} distinct, max {}",
                distinct.len(),
                v.iter().max().unwrap_or(&0)
            )
        }
        Some(Values::U64(v)) => format!("sum {}", v.iter().sum::<u64>()),
        Some(Values::U8(v)) => format!("{} selected", v.iter().filter(|&&x| x == 1).count()),
        Some(Values::Rows { data, cols }) => format!("{} rows of {}", data.len() / cols, cols),
    }
}

pub fn run(args: QuickstartArgs) -> anyhow::Result<()> {
    let tmp;
    let dir = match &args.dir {
        Some(d) => d.clone(),
        None => {
            tmp = tempfile::tempdir()?;
            tmp.path().to_path_buf()
        }
    };
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("kron{}", args.scale));
    println!(
        "generating a Kronecker graph: scale {} (2^{} vertices), edge factor 16, symmetrised, integer weights 1..255",
        args.scale, args.scale
    );
    let manifest = crate::generate::kron_store(&path, args.scale, 16, 1, true, true, true)?;
    println!(
        "store {}: {} vertices, {} arcs\n",
        path.display(),
        manifest.vertices,
        manifest.arcs
    );
    let store = Store::open(&path)?;
    println!(
        "{:<22} {:>10} {:>10} {:>12}  result (verified)",
        "algorithm", "seconds", "iterations", "heap peak"
    );
    let mut failures = 0;
    for algo in ALGORITHMS {
        // An interrupt stops the tour between two algorithms (each takes a fraction of a
        // second), so that the temporary directory is removed.
        if vastgraph_store::cancel_requested() {
            anyhow::bail!("stopped before {}", algo.name);
        }
        // tc's total is in its stats (`triangles`); its per-vertex counts would sum to three
        // times it.
        let params = Params::default();
        match registry::run_on_store(&store, algo.name, &params, true) {
            Ok(out) => {
                let extra: Vec<String> = out
                    .stats
                    .extra
                    .iter()
                    .take(2)
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                // tc's result is its total, in the stats.
                let result = match (&out.values, out.stats.extra.get("triangles")) {
                    (None, Some(triangles)) => format!("{triangles} triangles"),
                    _ => summarize(&out.values),
                };
                println!(
                    "{:<22} {:>10.4} {:>10} {:>12}  {} {}",
                    algo.name,
                    out.wall_seconds,
                    out.stats.iterations,
                    crate::size::human(out.peak_mutable_bytes),
                    result,
                    extra.join(" ")
                );
            }
            Err(e) => {
                failures += 1;
                println!("{:<22} FAILED: {e}", algo.name);
            }
        }
    }
    anyhow::ensure!(failures == 0, "{failures} algorithm(s) failed");
    println!("\nall results verified. Next: `vastgraph convert your-edges.tsv -o mygraph --symmetrize` and `vastgraph run pagerank mygraph`.");
    Ok(())
}
