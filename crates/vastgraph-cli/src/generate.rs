//! `vastgraph generate kron|uniform`: synthetic graphs streamed straight into the store builder
//! (or into a binary edge list for benchmarks); the edge list is never held in memory.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::Subcommand;
use vastgraph_gen::{EdgeGenerator, Kronecker, KroneckerParams, Uniform, UniformParams};
use vastgraph_ingest::{BinEdgeWriter, BinFormat, EdgeSink};
use vastgraph_store::{Manifest, StoreBuilder};

use crate::progress::{human_rate, Progress};
use crate::BuildArgs;

#[derive(clap::Args)]
pub struct GenerateArgs {
    #[command(subcommand)]
    pub kind: GeneratorKind,
}

/// Where generated edges go: a store, or a binary edge list.
#[derive(clap::Args, Clone)]
pub struct GenerateTarget {
    /// The store directory to create.
    #[arg(short, long, required_unless_present = "edge_list")]
    pub output: Option<PathBuf>,
    /// Replace an existing store or edge list.
    #[arg(long, alias = "overwrite")]
    pub force: bool,
    /// Write a binary edge list (FILE.bin32: little-endian u32 pairs) instead of a store.
    #[arg(long, conflicts_with = "output")]
    pub edge_list: Option<PathBuf>,
    /// Integer weights in [1, 255], drawn per edge from the seed.
    #[arg(long)]
    pub weighted: bool,
    #[command(flatten)]
    pub build: BuildArgs,
}

#[derive(Subcommand)]
pub enum GeneratorKind {
    /// Graph500 Kronecker graph: 2^scale vertices, edge_factor·2^scale edges, permuted ids.
    Kron {
        #[arg(long)]
        scale: u32,
        #[arg(long, default_value_t = 16)]
        edge_factor: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        target: GenerateTarget,
    },
    /// Uniformly random edges (Erdős–Rényi style).
    Uniform {
        #[arg(long)]
        vertices: u64,
        #[arg(long)]
        edges: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        target: GenerateTarget,
    },
}

pub fn run(args: GenerateArgs, quiet: bool) -> anyhow::Result<()> {
    match args.kind {
        GeneratorKind::Kron {
            scale,
            edge_factor,
            seed,
            target,
        } => {
            let generator = Kronecker::new(KroneckerParams {
                scale,
                edge_factor,
                seed,
                weighted: target.weighted,
            })
            // A parameter out of range is the command line's error, as clap's own are.
            .map_err(|e| crate::UsageError(e.to_string()))?;
            let options = serde_json::json!({ "generator": "kron", "scale": scale, "edge_factor": edge_factor, "seed": seed, "weighted": target.weighted });
            emit(&generator, &target, "generate kron", options, quiet)
        }
        GeneratorKind::Uniform {
            vertices,
            edges,
            seed,
            target,
        } => {
            // The store builder's refusal of sparse ids, said in this command's terms.
            let stored_arcs = if target.build.symmetrize {
                edges.saturating_mul(2)
            } else {
                edges
            };
            if target.edge_list.is_none() {
                if let Some(bytes) = vastgraph_store::sparse_offsets_bytes(vertices, stored_arcs) {
                    return Err(crate::UsageError(format!(
                        "--vertices {vertices} with --edges {edges}: the store would hold \
                         {:.1} GB of offsets (8 bytes a vertex) for at most {stored_arcs} arcs; \
                         give more edges or fewer vertices",
                        bytes as f64 / 1e9
                    ))
                    .into());
                }
            }
            let generator = Uniform::new(UniformParams {
                vertices,
                edges,
                seed,
                weighted: target.weighted,
            })
            .map_err(|e| crate::UsageError(e.to_string()))?;
            let options = serde_json::json!({ "generator": "uniform", "vertices": vertices, "edges": edges, "seed": seed, "weighted": target.weighted });
            emit(&generator, &target, "generate uniform", options, quiet)
        }
    }
}

fn emit(
    generator: &dyn EdgeGenerator,
    target: &GenerateTarget,
    command: &str,
    mut options: serde_json::Value,
    quiet: bool,
) -> anyhow::Result<()> {
    let started = Instant::now();
    if let Some(path) = &target.edge_list {
        anyhow::ensure!(
            !target.weighted,
            "a binary edge list holds no weights; drop --weighted or write a store"
        );
        // The edges are written as generated: an option of the store's build would be
        // ignored, so it is refused (convert the edge list with it instead).
        let b = &target.build;
        let store_only = [
            ("--symmetrize", b.symmetrize),
            ("--transpose", b.transpose),
            ("--keep-self-loops", b.keep_self_loops),
            ("--memory", b.memory.is_some()),
            ("--tmp-dir", b.tmp_dir.is_some()),
            ("--compress", b.compress),
            ("--codec", b.codec.is_some()),
            ("--order", b.order != vastgraph_store::VertexOrder::Input),
            ("--tiles", b.tiles),
        ];
        if let Some((flag, _)) = store_only.iter().find(|(_, given)| *given) {
            anyhow::bail!(
                "{flag} applies to a store; a binary edge list holds the edges as generated \
                 (give it to `vastgraph convert` with {flag}, or write a store with -o)"
            );
        }
        let format = edge_list_format(path)?;
        crate::run::refuse_existing(path, target.force)?;
        write_edge_list(generator, path, format, target.force, quiet)?;
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "wrote {} edges to {} in {:.2} s ({})",
            generator.num_edges(),
            path.display(),
            secs,
            human_rate(generator.num_edges() as f64 / secs, "edges")
        );
        return Ok(());
    }
    let output = target
        .output
        .as_ref()
        .expect("clap requires --output or --edge-list");
    if let Some(o) = options.as_object_mut() {
        o.extend(
            target
                .build
                .to_json()
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
    }
    let budget = target.build.memory_bytes();
    let manifest = vastgraph_store::build_then_tile(
        output,
        target.force,
        |output, force| {
            vastgraph_store::build_in_order(
                output,
                force,
                target.build.order,
                budget,
                command,
                |path, force| {
                    let store_target = crate::StoreTarget {
                        output: path.to_path_buf(),
                        force,
                    };
                    build_store(generator, &store_target, target, command, options, quiet)
                },
            )
        },
        target
            .build
            .tiles
            .then_some(|hidden: &Path| crate::tile::add_tiles(hidden, output, None, budget, quiet)),
    )?;
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "generated {} edges into {}: {} vertices, {} arcs ({}) in {:.2} s, {}, peak RSS {}",
        generator.num_edges(),
        output.display(),
        manifest.vertices,
        manifest.arcs,
        if manifest.directed {
            "directed"
        } else {
            "symmetric"
        },
        secs,
        human_rate(generator.num_edges() as f64 / secs, "edges"),
        vastgraph_engine::memory::peak_rss_bytes()
            .map(crate::size::human)
            .unwrap_or_default(),
    );
    Ok(())
}

/// Builds the store at `store_target` with `target`'s build options (its own output is not
/// used: with `--order degree` the store is first built elsewhere).
fn build_store(
    generator: &dyn EdgeGenerator,
    store_target: &crate::StoreTarget,
    target: &GenerateTarget,
    command: &str,
    options: serde_json::Value,
    quiet: bool,
) -> anyhow::Result<Manifest> {
    let output = &store_target.output;
    let phases = crate::progress::Phases::new(quiet);
    let opts = vastgraph_store::BuildOptions {
        progress: vastgraph_store::progress::Progress::new(phases.clone()),
        expected_size: Some(vastgraph_store::ExpectedSize {
            edges: generator.num_edges(),
            vertices: generator.num_vertices(),
        }),
        ..target
            .build
            .options(store_target, generator.weighted(), command, options)
    };
    let mut builder = StoreBuilder::create(output, opts)
        .with_context(|| format!("cannot create {}", output.display()))?;
    builder.ensure_vertices(generator.num_vertices());
    push_all(generator, &mut builder, quiet)?;
    let manifest = builder.finish();
    phases.finish();
    Ok(manifest?)
}

/// The binary layout its extension names; any other name (`.tsv`, `.gz`) would promise a
/// format the raw pairs are not.
fn edge_list_format(path: &Path) -> Result<BinFormat, crate::UsageError> {
    match crate::lowercase_extension(path).as_deref() {
        Some("bin32") => Ok(BinFormat::Bin32),
        Some("bin64") => Ok(BinFormat::Bin64),
        _ => Err(crate::UsageError(format!(
            "--edge-list {}: name a file ending in .bin32 (little-endian u32 pairs) or .bin64 \
             (u64 pairs), the raw layouts it writes; for a text edge list, write a store and \
             `vastgraph export` it",
            path.display()
        ))),
    }
}

fn write_edge_list(
    generator: &dyn EdgeGenerator,
    path: &Path,
    format: BinFormat,
    force: bool,
    quiet: bool,
) -> anyhow::Result<()> {
    // Written under a temporary name and renamed once synced: a failed or killed run
    // leaves no half-written edge list at `path`.
    vastgraph_export::write_then_rename(path, crate::run::existing(force), |tmp| {
        let mut writer = BinEdgeWriter::create(tmp, format)?;
        push_all(generator, &mut writer, quiet)?;
        writer.finish()?;
        Ok(())
    })
}

fn push_all(
    generator: &dyn EdgeGenerator,
    sink: &mut dyn EdgeSink,
    quiet: bool,
) -> anyhow::Result<()> {
    let mut progress = Progress::new("generating", Some(generator.num_edges()), "edges", quiet);
    let mut done = 0u64;
    generator.for_each_batch(&mut |src, dst, weights| {
        sink.push_batch(src, dst, weights)?;
        done += src.len() as u64;
        progress.set(done);
        Ok(())
    })?;
    progress.finish();
    Ok(())
}

/// The quickstart's graph: a Kronecker store built with default options.
pub fn kron_store(
    path: &Path,
    scale: u32,
    edge_factor: u64,
    seed: u64,
    symmetrize: bool,
    weighted: bool,
    force: bool,
) -> anyhow::Result<Manifest> {
    let generator = Kronecker::new(KroneckerParams {
        scale,
        edge_factor,
        seed,
        weighted,
    })?;
    let target = GenerateTarget {
        output: Some(path.to_path_buf()),
        force,
        edge_list: None,
        weighted,
        build: BuildArgs {
            symmetrize,
            transpose: false,
            keep_self_loops: false,
            memory: None,
            tmp_dir: None,
            compress: false,
            codec: None,
            order: vastgraph_store::VertexOrder::Input,
            tiles: false,
        },
    };
    let options = serde_json::json!({ "generator": "kron", "scale": scale, "edge_factor": edge_factor, "seed": seed });
    let store_target = crate::StoreTarget {
        output: path.to_path_buf(),
        force,
    };
    build_store(
        &generator,
        &store_target,
        &target,
        "quickstart",
        options,
        true,
    )
}
