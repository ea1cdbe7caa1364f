//! `vastgraph export STORE --format tsv -o FILE`: the arcs as `src<TAB>dst[<TAB>weight]`, sorted
//! by source then destination (the store's own order), written to a temporary name and renamed.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::Context;
use vastgraph_store::{Store, WeightsRef};

use crate::progress::Progress;

#[derive(clap::Args)]
pub struct ExportArgs {
    pub store: PathBuf,
    /// Output format: tsv.
    #[arg(long, default_value = "tsv")]
    pub format: String,
    /// Output file.
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn run(args: ExportArgs, quiet: bool) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.format == "tsv",
        "unknown export format '{}': supported: tsv",
        args.format
    );
    let store = Store::open(&args.store)?;
    let tmp = args.output.with_file_name(format!(
        ".{}.tmp-{}",
        args.output
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id()
    ));
    let result = write_tsv(&store, &tmp, quiet).and_then(|()| {
        std::fs::rename(&tmp, &args.output)
            .with_context(|| format!("renaming into {}", args.output.display()))
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_tsv(store: &Store, path: &std::path::Path, quiet: bool) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 22, file);
    let offsets = store.offsets();
    let neighbors = store.neighbors();
    let weights = store.weights();
    let mut progress = Progress::new("exporting", Some(store.num_arcs()), "arcs", quiet);
    let mut line = Vec::with_capacity(64);
    let mut ints = itoa::Buffer::new();
    for u in 0..store.num_vertices() {
        let (a, b) = (offsets[u] as usize, offsets[u + 1] as usize);
        for i in a..b {
            line.clear();
            line.extend_from_slice(ints.format(u).as_bytes());
            line.push(b'\t');
            line.extend_from_slice(ints.format(neighbors[i]).as_bytes());
            match weights {
                Some(WeightsRef::I32(w)) => {
                    line.push(b'\t');
                    line.extend_from_slice(ints.format(w[i]).as_bytes());
                }
                Some(WeightsRef::F32(w)) => {
                    line.push(b'\t');
                    // The shortest text that reads back as the same f32.
                    line.extend_from_slice(format!("{}", w[i]).as_bytes());
                }
                None => {}
            }
            line.push(b'\n');
            out.write_all(&line)?;
        }
        if u % 65536 == 0 {
            progress.set(a as u64);
            if vastgraph_store::cancel_requested() {
                anyhow::bail!("interrupted");
            }
        }
    }
    progress.finish();
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    Ok(())
}
