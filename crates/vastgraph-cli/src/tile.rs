//! `vastgraph tile STORE`: add tiles to a store (`vastgraph_store::tiles`), the layout that
//! PageRank's iterations read when a store has it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use vastgraph_store::manifest::{files, Manifest};
use vastgraph_store::tiles::{default_side_log2, MAX_SIDE_LOG2, MIN_SIDE_LOG2};
use vastgraph_store::{build_tiles, TileOptions};

#[derive(clap::Args)]
pub struct TileArgs {
    /// The store to add tiles to (raw or compressed); tiles it already has are replaced.
    pub store: PathBuf,
    /// log2 of a tile's side: its sources and its targets are blocks of 2^K vertices, K from 6
    /// to 16 (default: the largest whose source and target blocks of f64 state take at most half of
    /// this machine's L2 cache, or 16 when the graph's f64 values outgrow its last-level cache).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32)
        .range(MIN_SIDE_LOG2 as i64..=MAX_SIDE_LOG2 as i64))]
    pub side_log2: Option<u32>,
    /// Memory budget of the build, e.g. 1GiB (default: half of RAM).
    #[arg(long, value_parser = crate::size::parse_size)]
    pub memory: Option<u64>,
}

pub fn run(args: TileArgs, quiet: bool) -> anyhow::Result<()> {
    let memory = args.memory.unwrap_or_else(crate::size::default_budget);
    add_tiles(&args.store, &args.store, args.side_log2, memory, quiet)?;
    Ok(())
}

/// Tiles the store at `store` (2^`side_log2` a side, default [`default_side_log2`]) within
/// `memory` bytes, and says what it built, naming the store `name`; for `tile`, and for
/// `convert`/`generate --tiles` on the store they have just built under a hidden name.
pub fn add_tiles(
    store: &Path,
    name: &Path,
    side_log2: Option<u32>,
    memory: u64,
    quiet: bool,
) -> anyhow::Result<Manifest> {
    let started = Instant::now();
    let side_log2 = match side_log2 {
        Some(k) => k,
        None => {
            let manifest = vastgraph_store::open_manifest(store)
                .with_context(|| format!("tiling {}", name.display()))?;
            default_side_log2(manifest.vertices)
        }
    };
    if !(MIN_SIDE_LOG2..=MAX_SIDE_LOG2).contains(&side_log2) {
        anyhow::bail!("--side-log2 {side_log2}: choose from {MIN_SIDE_LOG2} to {MAX_SIDE_LOG2}");
    }
    let phases = crate::progress::Phases::new(quiet);
    let opts = TileOptions {
        side_log2,
        memory_bytes: memory,
        progress: vastgraph_store::progress::Progress::new(phases.clone()),
    };
    let manifest = build_tiles(store, &opts);
    phases.finish();
    let manifest = manifest.with_context(|| format!("tiling {}", name.display()))?;
    let bytes: u64 = manifest
        .files
        .iter()
        .filter(|f| files::TILES.contains(&f.name.as_str()))
        .map(|f| f.bytes)
        .sum();
    let tiles = manifest.tiles.map_or(0, |t| t.tiles);
    eprintln!(
        "tiled {}: {tiles} tiles of 2^{side_log2} × 2^{side_log2}, {:.0} arcs a tile, {} \
         ({}) in {:.2} s",
        name.display(),
        manifest.arcs as f64 / tiles.max(1) as f64,
        crate::size::human(bytes),
        crate::size::bytes_an_arc(bytes, manifest.arcs),
        started.elapsed().as_secs_f64()
    );
    Ok(manifest)
}
