//! `vastgraph compress STORE -o STORE2`: a compressed copy of a raw store.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use vastgraph_store::manifest::files;
use vastgraph_store::{compress_store, Codec, CompressOptions, Manifest};

use crate::StoreTarget;

#[derive(clap::Args)]
pub struct CompressArgs {
    /// The raw store to compress.
    pub store: PathBuf,
    #[command(flatten)]
    pub target: StoreTarget,
    /// Memory budget for the encoding buffers, e.g. 1GiB (default: half of RAM).
    #[arg(long, value_parser = crate::size::parse_size)]
    pub memory: Option<u64>,
    /// The codec: for64 (offsets from each block's first neighbour in 1 to 4 bytes, the
    /// fastest to traverse in memory), zeta64 (intervals and gaps in WebGraph's γ and ζ3 bit
    /// codes, the smallest on web graphs), streamvbyte64 (Stream VByte gaps) or bytecode64
    /// (Ligra+'s varint byte codes). Default: zeta64 on a web graph (whose lists, on a sample,
    /// take at most a third of for64's bytes in it), else for64.
    #[arg(long, value_parser = parse_codec)]
    pub codec: Option<Codec>,
}

/// A compressed codec by its manifest name.
pub fn parse_codec(name: &str) -> Result<Codec, String> {
    Codec::compressed_from_name(name)
}

/// Bytes of the files that hold a store's out-edge adjacency, whatever its codec: offsets
/// plus raw neighbours, or offsets plus byte offsets plus codes (weights and labels excluded).
pub fn adjacency_bytes(manifest: &Manifest) -> u64 {
    let adjacency = [
        files::OFFSETS,
        files::OFFSETS_EF,
        files::NEIGHBORS,
        files::BYTE_OFFSETS,
        files::BYTE_OFFSETS_EF,
        files::NEIGHBOR_CODES,
    ];
    manifest
        .files
        .iter()
        .filter(|f| adjacency.contains(&f.name.as_str()))
        .map(|f| f.bytes)
        .sum()
}

pub fn run(args: CompressArgs, quiet: bool) -> anyhow::Result<()> {
    let started = Instant::now();
    crate::store_copy_beside(&args.store, &args.target.output)?;
    let source = vastgraph_store::open_manifest(&args.store)?;
    let phases = crate::progress::Phases::new(quiet);
    let opts = CompressOptions {
        // Without --codec: for64, or zeta64 on a web graph (`vastgraph_store::pick_codec`).
        codec: args.codec.unwrap_or(Codec::COMPRESSED_DEFAULT),
        pick_codec: args.codec.is_none(),
        memory_bytes: args.memory.unwrap_or_else(crate::size::default_budget),
        overwrite: args.target.force,
        progress: vastgraph_store::progress::Progress::new(phases.clone()),
    };
    let manifest = compress_store(&args.store, &args.target.output, &opts);
    phases.finish();
    let manifest = manifest.with_context(|| format!("compressing {}", args.store.display()))?;
    let (before, after) = (adjacency_bytes(&source), adjacency_bytes(&manifest));
    eprintln!(
        "compressed {} into {} ({}): adjacency {} -> {} ({}, {:.1}% of raw) in {:.2} s",
        args.store.display(),
        args.target.output.display(),
        manifest.codec.name(),
        crate::size::human(before),
        crate::size::human(after),
        crate::size::bytes_an_arc(after, manifest.arcs),
        100.0 * after as f64 / before.max(1) as f64,
        started.elapsed().as_secs_f64(),
    );
    Ok(())
}
