//! `vastgraph`: convert edge lists into a store, generate graphs, inspect and export stores, and
//! run algorithms on them. A library so that one build serves both front ends: the `vastgraph`
//! binary and the `vastgraph` command the Python package installs call [`main_with`].
//!
//! A process that runs it should install [`vastgraph_engine::memory::CountingAllocator`] as its
//! global allocator, or the `peak_mutable_bytes` statistic stays 0.

mod compress;
mod convert;
mod export;
mod generate;
mod info;
mod npy;
mod out_of_core;
mod param_flags;
mod progress;
mod quickstart;
mod reorder;
mod report;
mod run;
mod signals;
mod size;
mod tile;
mod top;

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use vastgraph_engine::error::chain_text;

#[derive(Parser)]
#[command(
    name = "vastgraph",
    version,
    about = "Graph analytics on graphs larger than memory, on one machine"
)]
struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
    /// No progress bar or periodic progress lines.
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a store from edge lists, Matrix Market, DIMACS, binary edge lists, WebGraph,
    /// Parquet or Arrow.
    Convert(convert::ConvertArgs),
    /// Write a compressed copy of a store (byte-coded neighbour lists, ~1-2 bytes per arc).
    Compress(compress::CompressArgs),
    /// Write a copy of a store with its vertices renumbered by decreasing degree (faster
    /// traversals on power-law graphs, in memory and out of core; labels keep the old ids).
    Reorder(reorder::ReorderArgs),
    /// Add tiles to a store: its arcs cut into blocks of sources by blocks of targets, which
    /// PageRank's iterations read at cache speed (in memory) or as one stream (out of core).
    Tile(tile::TileArgs),
    /// Generate a graph (Kronecker or uniform) straight into a store or a binary edge list.
    Generate(generate::GenerateArgs),
    /// Describe a store: sizes, degrees, what the build dropped.
    Info(info::InfoArgs),
    /// Write a store's arcs back out, as TSV or Parquet.
    Export(export::ExportArgs),
    /// Run an algorithm on a store.
    Run(Box<run::RunArgs>),
    /// Write a self-contained HTML page: the degree distribution and, for runs' stats
    /// records, their passes and top vertices.
    Report(report::ReportArgs),
    /// List the algorithms with their parameters.
    Algorithms {
        /// As JSON: name, summary, parameters, resumable, in_passes.
        #[arg(long)]
        json: bool,
    },
    /// Generate a small Kronecker graph, run every algorithm on it and print a table.
    Quickstart(quickstart::QuickstartArgs),
    /// Print a completion script for a shell, e.g. `vastgraph completions bash >
    /// ~/.local/share/bash-completion/completions/vastgraph`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// `vastgraph algorithms [--json]`.
fn list_algorithms(json: bool) -> anyhow::Result<()> {
    let described = vastgraph_algos::registry::describe();
    if json {
        println!("{}", serde_json::to_string_pretty(&described)?);
        return Ok(());
    }
    for a in vastgraph_algos::registry::ALGORITHMS {
        println!("{:<22} {}", a.name, a.summary);
        for p in a.params {
            let range = p.range_text().map_or(String::new(), |r| format!("; {r}"));
            println!(
                "{:<22}   --{:<14} {} (default {}{range})",
                "",
                p.flag_name(),
                p.help,
                p.default_text()
            );
        }
    }
    Ok(())
}

/// The command line's definition. Every option's value may start with a minus: a negative
/// number then reaches the option's own check, which names the option and its range, where
/// clap would take it for an unknown flag.
fn command() -> clap::Command {
    fn negative_values(command: clap::Command) -> clap::Command {
        command
            .mut_args(|arg| arg.allow_negative_numbers(true))
            .mut_subcommands(negative_values)
    }
    negative_values(<Cli as clap::CommandFactory>::command())
}

/// Runs the command line `args` (the program name first) and returns the process's exit code:
/// 0, 1 for an error, 2 for a usage error (clap's, or a [`UsageError`]).
/// Sets up the process as a command does: logging, the global thread pool, the interrupt and
/// closed-pipe handlers; call it once per process.
pub fn main_with<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let parsed = command()
        .try_get_matches_from(args)
        .and_then(|matches| <Cli as clap::FromArgMatches>::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version print and succeed; a usage error prints and fails (2).
            let _ = e.print();
            return e.exit_code() as u8;
        }
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    if let Some(t) = cli.threads {
        if let Err(e) = vastgraph_engine::memory::check_threads(t) {
            eprintln!("error: --threads: {e}");
            return 2;
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .expect("thread pool is set once");
    }
    signals::install_interrupt_handler();
    signals::die_quietly_on_closed_pipe();
    vastgraph_store::explain_bus_errors(vastgraph_store::AfterBusError::Exit);
    let result = match cli.command {
        Command::Convert(a) => convert::run(a, cli.quiet),
        Command::Compress(a) => compress::run(a, cli.quiet),
        Command::Reorder(a) => reorder::run(a, cli.quiet),
        Command::Tile(a) => tile::run(a, cli.quiet),
        Command::Generate(a) => generate::run(a, cli.quiet),
        Command::Info(a) => info::run(a),
        Command::Export(a) => export::run(a, cli.quiet),
        Command::Run(a) => run::run(*a, cli.quiet),
        Command::Report(a) => report::run(a),
        Command::Algorithms { json } => list_algorithms(json),
        Command::Quickstart(a) => quickstart::run(a),
        Command::Completions { shell } => {
            let mut command = command();
            clap_complete::generate(shell, &mut command, "vastgraph", &mut std::io::stdout());
            Ok(())
        }
    };
    match (result, signals::interrupted()) {
        (Ok(()), _) => 0,
        // The command stopped on the interrupt's request and removed what it had staged.
        (Err(e), Some(signal)) => {
            eprintln!("\ninterrupted: {}", chain_text(&e));
            128 + signal as u8
        }
        (Err(e), None) => {
            eprintln!("error: {}", chain_text(&e));
            if is_usage_error(&e) {
                2
            } else {
                1
            }
        }
    }
}

/// A copy of a store (`compress`, `reorder`) written inside it is a usage error, as any other
/// output inside a store is; the store itself (`-o STORE --force`) is not inside it.
pub(crate) fn store_copy_beside(store: &Path, output: &Path) -> anyhow::Result<()> {
    if vastgraph_store::written_inside(store, output) {
        return Err(UsageError(format!(
            "{} is inside the store {}: write the copy beside it",
            output.display(),
            store.display()
        ))
        .into());
    }
    Ok(())
}

/// A value given on the command line that the command refuses before reading anything for it
/// (an algorithm's parameter out of its range, options that contradict each other): a usage
/// error, exit code 2, as clap's own refusals.
#[derive(Debug)]
pub(crate) struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

pub(crate) use vastgraph_export::STDOUT;

/// An output path, where `-` names standard output ([`STDOUT`], written through the process's
/// descriptor).
pub(crate) fn output_path(s: &str) -> Result<std::path::PathBuf, String> {
    match s {
        "" => Err("name a file (or - for standard output)".into()),
        "-" => Ok(STDOUT.into()),
        _ => Ok(s.into()),
    }
}

/// A file name's extension in lower case (`.NPY` names a NumPy file as `.npy` does).
pub(crate) fn lowercase_extension(path: &std::path::Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// Whether `e` is a usage error: a [`UsageError`] or an algorithm's refusal of a parameter's
/// value (a source out of range among them), wherever it was found.
fn is_usage_error(e: &anyhow::Error) -> bool {
    use vastgraph_algos::common::AlgoError;
    use vastgraph_algos::registry::RunError;
    let refuses_a_parameter = |e: &AlgoError| {
        matches!(
            e,
            AlgoError::InvalidParameter { .. } | AlgoError::SourceOutOfRange { .. }
        )
    };
    e.chain().any(|cause| {
        cause.is::<UsageError>()
            || matches!(
                cause.downcast_ref::<vastgraph_ingest::IngestError>(),
                Some(vastgraph_ingest::IngestError::OptionNotForInput(_))
            )
            || cause.downcast_ref::<AlgoError>().is_some_and(refuses_a_parameter)
            // A kernel's refusal, wrapped transparently by the registry.
            || matches!(cause.downcast_ref::<RunError>(), Some(RunError::Algo(e)) if refuses_a_parameter(e))
    })
}

/// Where a store goes and how it may replace an existing one.
#[derive(clap::Args, Clone)]
pub struct StoreTarget {
    /// The store directory to create.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace an existing store at the output path.
    #[arg(long, alias = "overwrite")]
    pub force: bool,
}

/// Build options shared by `convert` and `generate`.
#[derive(clap::Args, Clone)]
pub struct BuildArgs {
    /// Store both directions of every edge (an undirected graph).
    #[arg(long)]
    pub symmetrize: bool,
    /// Also store the in-edges of a directed graph (needed for pull-direction traversals).
    #[arg(long)]
    pub transpose: bool,
    /// Keep self-loops (default: drop them, like GAPBS and GBBS).
    #[arg(long)]
    pub keep_self_loops: bool,
    /// Memory budget for the build, e.g. 2GiB (default: half of RAM).
    #[arg(long, value_parser = size::parse_size)]
    pub memory: Option<u64>,
    /// Directory for sorted runs (default: next to the output store).
    #[arg(long)]
    pub tmp_dir: Option<PathBuf>,
    /// Store the neighbour lists compressed (difference-encoded codes in blocks of 64, as in
    /// Ligra+): every algorithm runs on it unchanged, in a fraction of the space.
    #[arg(long)]
    pub compress: bool,
    /// The codec of a compressed store (implies --compress): for64, zeta64, streamvbyte64 or
    /// bytecode64 (see `vastgraph compress --help`). Without it, --compress writes zeta64 on
    /// a web graph (whose lists, on a sample, take at most a third of for64's bytes in it) and
    /// for64 on any other.
    #[arg(long, value_parser = compress::parse_codec)]
    pub codec: Option<vastgraph_store::Codec>,
    /// Vertex numbering: `input` (the ids as read) or `degree` (renumbered by decreasing
    /// degree once built, as `vastgraph reorder` does; labels keep the original ids): faster
    /// traversals on power-law graphs, in memory and out of core.
    #[arg(long, value_parser = vastgraph_store::VertexOrder::from_name, default_value = "input")]
    pub order: vastgraph_store::VertexOrder,
    /// Also tile the store once it is built, as `vastgraph tile` does with its default side:
    /// PageRank's dense iterations then read the tiles.
    #[arg(long)]
    pub tiles: bool,
}

impl BuildArgs {
    pub fn options(
        &self,
        target: &StoreTarget,
        weighted: bool,
        command: &str,
        options_json: serde_json::Value,
    ) -> vastgraph_store::BuildOptions {
        vastgraph_store::BuildOptions {
            symmetrize: self.symmetrize,
            transpose: self.transpose && !self.symmetrize,
            keep_self_loops: self.keep_self_loops,
            weighted,
            memory_bytes: self.memory_bytes(),
            tmp_dir: self.tmp_dir.clone(),
            overwrite: target.force,
            command: command.to_string(),
            options_json,
            codec: self.codec(),
            // --compress alone: for64, or zeta64 on a web graph (`vastgraph_store::pick_codec`).
            pick_codec: self.codec.is_none(),
            ..Default::default()
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "symmetrize": self.symmetrize,
            "transpose": self.transpose,
            "keep_self_loops": self.keep_self_loops,
            "memory": self.memory,
            "compress": self.compress,
            "codec": self.codec().name(),
            "order": self.order.name(),
            "tiles": self.tiles,
        })
    }

    /// The build's budget: --memory, or half of RAM.
    pub fn memory_bytes(&self) -> u64 {
        self.memory.unwrap_or_else(size::default_budget)
    }

    /// Raw, unless --compress or --codec asks for a compressed codec.
    fn codec(&self) -> vastgraph_store::Codec {
        match (self.codec, self.compress) {
            (Some(codec), _) => codec,
            (None, true) => vastgraph_store::Codec::COMPRESSED_DEFAULT,
            (None, false) => vastgraph_store::Codec::Raw,
        }
    }
}
