//! `vastgraph export STORE --format tsv -o FILE` (arcs as `src<TAB>dst[<TAB>weight]`, in the
//! store's order) and `vastgraph export STORE --format parquet -o DIR` (`DIR/edges/*.parquet`
//! with src, dst[, weight] and `DIR/vertices/*.parquet` with id[, label]). Both are written under
//! a temporary name and renamed, by the `vastgraph-export` crate.

use std::path::{Path, PathBuf};

use anyhow::Context;

use vastgraph_engine::{visit_store, Adjacency, Graph, GraphVisitor};
use vastgraph_export::{write_parquet, write_tsv, ExportGraph, ParquetCompression, ParquetOptions};
use vastgraph_store::Store;

use crate::run::existing;

use crate::progress::Progress;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// One `src<TAB>dst[<TAB>weight]` line per arc.
    Tsv,
    /// A directory of Parquet tables for Spark GraphFrames, DuckDB, Polars.
    Parquet,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    pub store: PathBuf,
    #[arg(long, value_enum, default_value = "tsv")]
    pub format: ExportFormat,
    /// Output file (tsv; `-` for standard output) or directory (parquet).
    #[arg(short, long, value_parser = crate::output_path)]
    pub output: PathBuf,
    // The Parquet options are Options, so that one given with `--format tsv` (which has no
    // row groups, files or compression) is refused rather than ignored.
    #[arg(long, value_name = "ROWS", help = format!(
        "Parquet: rows per row group [default: {}]", ParquetOptions::default().chunk_rows))]
    pub chunk_rows: Option<usize>,
    #[arg(long, value_name = "ROWS", help = format!(
        "Parquet: the most rows a `part-NNNNN.parquet` file holds [default: {}]",
        ParquetOptions::default().rows_per_file))]
    pub rows_per_file: Option<u64>,
    /// Parquet: zstd, snappy or none [default: zstd].
    #[arg(long)]
    pub compression: Option<ParquetCompression>,
    /// Replace an existing output: a TSV file, or the tables of a non-empty Parquet directory.
    #[arg(long, alias = "overwrite")]
    pub force: bool,
}

pub fn run(args: ExportArgs, quiet: bool) -> anyhow::Result<()> {
    crate::run::refuse_inside_store(&args.store, &args.output)?;
    let rows = [
        ("--chunk-rows", args.chunk_rows.map(|r| r as u64)),
        ("--rows-per-file", args.rows_per_file),
    ];
    if let Some((flag, _)) = rows.iter().find(|(_, rows)| *rows == Some(0)) {
        return Err(crate::UsageError(format!("{flag} must be at least 1")).into());
    }
    if args.format == ExportFormat::Tsv {
        let parquet_only = [
            ("--chunk-rows", args.chunk_rows.is_some()),
            ("--rows-per-file", args.rows_per_file.is_some()),
            ("--compression", args.compression.is_some()),
        ];
        if let Some((flag, _)) = parquet_only.iter().find(|(_, given)| *given) {
            return Err(crate::UsageError(format!(
                "{flag} applies to --format parquet; a TSV export is one uncompressed file \
                 (compress it afterwards, e.g. with zstd)"
            ))
            .into());
        }
        crate::run::refuse_existing(&args.output, args.force)?;
    } else if args.output == Path::new(crate::STDOUT) {
        return Err(crate::UsageError(
            "-o -: a Parquet export is a directory of files; name one (--format tsv writes to \
             standard output)"
                .into(),
        )
        .into());
    }
    // An export reads the lists, not the tiles.
    let store = Store::open_without_tiles(&args.store)?;
    let labels = store.labels()?;
    let bar = Progress::new("exporting", Some(store.num_arcs()), "arcs", quiet);
    let export = Export {
        args: &args,
        store: &store,
        labels: labels.as_deref(),
        bar,
    };
    // Raw or compressed lists: the writers see the graph through its Adjacency.
    visit_store(&store, export).with_context(|| {
        format!(
            "exporting {} to {}",
            args.store.display(),
            args.output.display()
        )
    })
}

struct Export<'a> {
    args: &'a ExportArgs,
    store: &'a Store,
    labels: Option<&'a [String]>,
    bar: Progress,
}

impl GraphVisitor for Export<'_> {
    type Output = anyhow::Result<()>;
    fn visit<A: Adjacency>(self, graph: &Graph<A>) -> anyhow::Result<()> {
        let Export {
            args,
            store,
            labels,
            mut bar,
        } = self;
        let export = ExportGraph {
            out: graph.out(),
            weight_type: store.manifest().weight_type,
            labels,
            symmetric: !store.manifest().directed,
            self_loops_kept: store.manifest().self_loops_kept,
        };
        write(args, &export, &mut bar)?;
        bar.finish();
        Ok(())
    }
}

fn write<A: Adjacency>(
    args: &ExportArgs,
    export: &ExportGraph<A>,
    bar: &mut Progress,
) -> anyhow::Result<()> {
    let mut progress = |arcs: u64| bar.set(arcs);
    match args.format {
        ExportFormat::Tsv => {
            let summary = write_tsv(export, &args.output, existing(args.force), &mut progress)?;
            if let Some(note) = tsv_round_trip_note(export, summary) {
                log::warn!("{}: {note}", args.output.display());
            }
        }
        ExportFormat::Parquet => {
            let default = ParquetOptions::default();
            let options = ParquetOptions {
                chunk_rows: args.chunk_rows.unwrap_or(default.chunk_rows),
                rows_per_file: args.rows_per_file.unwrap_or(default.rows_per_file),
                compression: args.compression.unwrap_or(default.compression),
                overwrite: args.force,
                vertices: true,
            };
            write_parquet(export, &args.output, &options, &mut progress)?;
        }
    }
    Ok(())
}

/// What `convert` needs to be told to read the TSV back as the same graph, or what it cannot
/// get back from it; None when the file says it all.
fn tsv_round_trip_note<A: Adjacency>(
    export: &ExportGraph<A>,
    summary: vastgraph_export::TsvSummary,
) -> Option<String> {
    let flags: Vec<&str> = [
        (export.symmetric, "--symmetrize"),
        (export.self_loops_kept, "--keep-self-loops"),
    ]
    .into_iter()
    .filter_map(|(needed, flag)| needed.then_some(flag))
    .collect();
    let mut notes = Vec::new();
    if !flags.is_empty() {
        notes.push(format!(
            "convert it back with {} to get this store's graph",
            flags.join(" ")
        ));
    }
    if summary.unlisted_vertices > 0 {
        notes.push(match summary.unlisted_vertices {
            1 => "its 1 vertex without arcs is on no line (--format parquet keeps it)".into(),
            k => format!(
                "its {k} vertices without arcs are on no line (--format parquet keeps them)"
            ),
        });
    }
    (!notes.is_empty()).then(|| format!("a TSV file holds only arcs: {}", notes.join("; ")))
}
