//! `vastgraph reorder STORE -o STORE2`: a copy of a store renumbered by decreasing degree.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use vastgraph_store::{reorder_store, Manifest, ReorderOptions, StoreError};

use crate::StoreTarget;

/// How `convert` and `generate` number a store's vertices.
#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum VertexOrder {
    /// The ids as read (dense ids in first-seen order for labelled input).
    Input,
    /// By decreasing degree, as `vastgraph reorder` does.
    Degree,
}

impl VertexOrder {
    pub fn name(self) -> &'static str {
        match self {
            VertexOrder::Input => "input",
            VertexOrder::Degree => "degree",
        }
    }
}

/// Runs `build` (which writes a store where the target it is given says) so that the store at
/// `target` has its vertices in `order`. For degree order the store is built under a hidden
/// name next to `target` (the same file system, so the space is checked where it is used),
/// renumbered into `target`, and removed, whether the renumbering succeeds or not.
pub fn build_in_order(
    target: &StoreTarget,
    order: VertexOrder,
    memory_bytes: u64,
    command: &str,
    build: impl FnOnce(&StoreTarget) -> anyhow::Result<Manifest>,
) -> anyhow::Result<Manifest> {
    if order == VertexOrder::Input {
        return build(target);
    }
    // Refused now rather than after the whole build.
    if target.output.exists() && !target.force {
        return Err(StoreError::TargetExists {
            path: target.output.clone(),
        }
        .into());
    }
    let name = target
        .output
        .file_name()
        .map_or_else(|| "store".into(), |n| n.to_string_lossy().into_owned());
    let unordered = StoreTarget {
        output: target
            .output
            .with_file_name(format!(".{name}.input-order-{}", std::process::id())),
        force: false,
    };
    let reordered = build(&unordered).and_then(|_| {
        let opts = ReorderOptions {
            memory_bytes,
            overwrite: target.force,
            command: command.to_string(),
            carry_provenance: true,
        };
        eprintln!(
            "renumbering by decreasing degree into {}",
            target.output.display()
        );
        reorder_store(&unordered.output, &target.output, &opts)
            .with_context(|| format!("reordering into {}", target.output.display()))
    });
    if unordered.output.exists() {
        if let Err(e) = std::fs::remove_dir_all(&unordered.output) {
            eprintln!(
                "warning: could not remove {}: {e}",
                unordered.output.display()
            );
        }
    }
    reordered
}

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

pub fn run(args: ReorderArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let opts = ReorderOptions {
        memory_bytes: args.memory.unwrap_or_else(crate::size::default_budget),
        overwrite: args.target.force,
        command: "reorder".to_string(),
        carry_provenance: false,
    };
    let manifest = reorder_store(&args.store, &args.target.output, &opts)
        .with_context(|| format!("reordering {}", args.store.display()))?;
    eprintln!(
        "reordered {} into {} by decreasing degree ({} vertices, {} arcs; labels.txt gives each \
         vertex's original id) in {:.2} s",
        args.store.display(),
        args.target.output.display(),
        manifest.vertices,
        manifest.arcs,
        started.elapsed().as_secs_f64(),
    );
    Ok(())
}
