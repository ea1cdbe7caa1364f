//! `vastgraph reorder STORE -o STORE2`: a copy of a store renumbered by decreasing degree.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use vastgraph_store::{reorder_store, ReorderOptions};

use crate::StoreTarget;

#[derive(clap::Args)]
pub struct ReorderArgs {
    /// The store to renumber (raw or compressed; the copy keeps its codec).
    pub store: PathBuf,
    #[command(flatten)]
    pub target: StoreTarget,
    /// Memory budget, e.g. 1GiB (default: half of RAM): 8 bytes a vertex for the id maps,
    /// the rest for sorting.
    #[arg(long, value_parser = crate::size::parse_size)]
    pub memory: Option<u64>,
}

pub fn run(args: ReorderArgs, quiet: bool) -> anyhow::Result<()> {
    let started = Instant::now();
    crate::store_copy_beside(&args.store, &args.target.output)?;
    let phases = crate::progress::Phases::new(quiet);
    let opts = ReorderOptions {
        memory_bytes: args.memory.unwrap_or_else(crate::size::default_budget),
        overwrite: args.target.force,
        command: "reorder".to_string(),
        carry_provenance: false,
        progress: vastgraph_store::progress::Progress::new(phases.clone()),
    };
    // Read before the copy, which may replace the source (`-o STORE --force`).
    let tiled = vastgraph_store::open_manifest(&args.store).is_ok_and(|m| m.tiles.is_some());
    let manifest = reorder_store(&args.store, &args.target.output, &opts);
    phases.finish();
    let manifest = manifest.with_context(|| format!("reordering {}", args.store.display()))?;
    eprintln!(
        "reordered {} into {} by decreasing degree ({} vertices, {} arcs; labels.txt gives each \
         vertex's original id) in {:.2} s",
        args.store.display(),
        args.target.output.display(),
        manifest.vertices,
        manifest.arcs,
        started.elapsed().as_secs_f64(),
    );
    if tiled {
        eprintln!(
            "note: the tiles are not carried over (they follow the old ids); `vastgraph tile {}` \
             adds new ones",
            args.target.output.display()
        );
    }
    Ok(())
}
