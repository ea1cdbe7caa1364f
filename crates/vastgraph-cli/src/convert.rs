//! `vastgraph convert INPUT... -o STORE`

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use vastgraph_ingest::{IngestOptions, InputFormat, TableColumns};
use vastgraph_store::StoreBuilder;

use crate::progress::Progress;
use crate::{BuildArgs, StoreTarget};

#[derive(clap::Args)]
pub struct ConvertArgs {
    /// Input files (all of one graph), optionally .gz or .zst compressed.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub target: StoreTarget,
    /// Input format (default: from the file name): edgelist, mtx, dimacs, bin32, bin64,
    /// webgraph, parquet, arrow.
    #[arg(long)]
    pub format: Option<InputFormat>,
    /// Map every id to a dense id and keep the original labels, even when ids are integers
    /// (for sparse 64-bit ids).
    #[arg(long)]
    pub relabel: bool,
    /// The first data line of each edge list is a header to skip (a header above integer ids
    /// is detected without it).
    #[arg(long)]
    pub header: bool,
    /// A Parquet or Arrow table's source column [default: src or source].
    #[arg(long, value_name = "COL")]
    pub src: Option<String>,
    /// A Parquet or Arrow table's target column [default: dst or target].
    #[arg(long, value_name = "COL")]
    pub dst: Option<String>,
    /// A Parquet or Arrow table's weight column [default: weight, when the table has it].
    #[arg(long, value_name = "COL")]
    pub weight: Option<String>,
    #[command(flatten)]
    pub build: BuildArgs,
}

pub fn run(args: ConvertArgs, quiet: bool) -> anyhow::Result<()> {
    let started = Instant::now();
    let opts = IngestOptions {
        format: args.format,
        relabel: args.relabel,
        header: args.header,
        columns: TableColumns {
            src: args.src.clone(),
            dst: args.dst.clone(),
            weight: args.weight.clone(),
        },
    };
    let plan = vastgraph_ingest::plan(&args.inputs, &opts)?;
    let mut build = args.build.clone();
    if plan.symmetric && !build.symmetrize {
        eprintln!(
            "note: the input declares a symmetric graph; storing both directions of every edge"
        );
        build.symmetrize = true;
    }
    if plan.self_loops_kept && !build.keep_self_loops {
        eprintln!("note: the input is an export of a store that kept its self-loops; keeping them");
        build.keep_self_loops = true;
    }
    let mut options = build.to_json();
    options["format"] = serde_json::json!(args.format.map(|f| f.name()));
    options["relabel"] = serde_json::json!(args.relabel);
    options["header"] = serde_json::json!(args.header);
    for (key, column) in [
        ("src", &args.src),
        ("dst", &args.dst),
        ("weight", &args.weight),
    ] {
        if column.is_some() {
            options[key] = serde_json::json!(column);
        }
    }
    let budget = build.memory_bytes();
    let mut input_edges = 0;
    let phases = crate::progress::Phases::new(quiet);
    let output = &args.target.output;
    let manifest = vastgraph_store::build_then_tile(
        output,
        args.target.force,
        |output, force| {
            vastgraph_store::build_in_order(
                output,
                force,
                build.order,
                budget,
                "convert",
                |path, force| -> anyhow::Result<_> {
                    let target = &crate::StoreTarget {
                        output: path.to_path_buf(),
                        force,
                    };
                    let build_opts = vastgraph_store::BuildOptions {
                        progress: vastgraph_store::progress::Progress::new(phases.clone()),
                        expected_size: plan.expected_size(),
                        ..build.options(target, plan.weighted, "convert", options)
                    };
                    let mut builder = StoreBuilder::create(&target.output, build_opts)
                        .with_context(|| {
                            format!("cannot create store {}", target.output.display())
                        })?;
                    for record in plan.input_records() {
                        builder.add_input(record);
                    }
                    let mut progress = Progress::new("reading", plan.total_bytes(), "bytes", quiet);
                    let summary = vastgraph_ingest::ingest(&plan, &mut builder, &mut |done| {
                        progress.set(done)
                    })?;
                    progress.finish();
                    input_edges = summary.edges;
                    let manifest = builder.finish();
                    phases.finish();
                    manifest.with_context(|| format!("building {}", target.output.display()))
                },
            )
        },
        build
            .tiles
            .then_some(|hidden: &Path| crate::tile::add_tiles(hidden, output, None, budget, quiet)),
    )?;
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "converted {} input edges into {}: {} vertices, {} arcs ({}, {}) in {:.2} s, {}, budget {}, peak RSS {}",
        input_edges,
        args.target.output.display(),
        manifest.vertices,
        manifest.arcs,
        if manifest.directed { "directed" } else { "symmetric" },
        if manifest.weighted { "weighted" } else { "unweighted" },
        secs,
        crate::progress::human_rate(input_edges as f64 / secs, "edges"),
        crate::size::human(budget),
        vastgraph_engine::memory::peak_rss_bytes().map(crate::size::human).unwrap_or_default(),
    );
    if let Some(line) = crate::info::dropped_line(&manifest.dropped) {
        eprintln!("{line}");
    }
    Ok(())
}
