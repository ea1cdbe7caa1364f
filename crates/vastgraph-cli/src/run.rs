//! `vastgraph run ALGO STORE`: open the store (validated), run the algorithm on the
//! memory-mapped graph, write the per-vertex result and the statistics.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use vastgraph_algos::algorithm::{Kind, Param};
use vastgraph_algos::checkpoint::{store_fingerprint, Checkpoint, CheckpointOptions, Every};
use vastgraph_algos::harness::{self, Request, RunRecord, DEFAULT_TOP};
use vastgraph_algos::registry::{self, Params, Values, ALGORITHMS};
use vastgraph_engine::ooc::OocOptions;
use vastgraph_store::Existing;

use crate::npy::{write_npy, NpyElement};
use crate::param_flags::ParamFlags;
use crate::signals::StopAtOnce;
use crate::UsageError;

fn algorithm_names() -> Vec<&'static str> {
    ALGORITHMS.iter().map(|a| a.name).collect()
}

fn algorithm_help() -> String {
    let mut s = String::from("Algorithms:\n");
    for a in ALGORITHMS {
        s.push_str(&format!("  {:<22} {}\n", a.name, a.summary));
    }
    s
}

#[derive(clap::Args)]
#[command(after_help = algorithm_help())]
pub struct RunArgs {
    /// The algorithm.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(algorithm_names()))]
    pub algorithm: String,
    /// The store directory.
    pub store: PathBuf,
    /// Write the result: FILE.npy (a NumPy array indexed by vertex id) or FILE.tsv (`vertex<TAB>value`,
    /// with the original labels when the store has them); `-` writes the text to standard output.
    #[arg(long, short, value_parser = crate::output_path)]
    pub output: Option<PathBuf>,
    /// Write run statistics as JSON (`-`: to standard output).
    #[arg(long, value_parser = crate::output_path)]
    pub stats: Option<PathBuf>,
    /// Print the K vertices with the largest values, with their labels (pagerank, kcore, bc...).
    #[arg(long, value_name = "K")]
    pub top: Option<usize>,
    /// Replace existing --output and --stats files (refused otherwise).
    #[arg(long, alias = "overwrite")]
    pub force: bool,
    /// Run the kernel this many times on the loaded graph (timings of each in the stats).
    #[arg(long, default_value_t = 1)]
    pub trials: usize,
    /// Check the result with the algorithm's independent verifier.
    #[arg(long)]
    pub verify: bool,
    /// Memory budget, e.g. 1GiB: run out of core within it (offsets, vertex state and I/O
    /// buffers), reading neighbour lists from disk with direct I/O. Fails before starting when
    /// the O(n) state cannot fit, naming the minimum. Without it the graph is memory-mapped and
    /// the page cache is used freely.
    #[arg(long, value_parser = crate::size::parse_size)]
    pub memory: Option<u64>,
    /// Run on the lists even when the store has tiles (`vastgraph tile`); the tiles are then
    /// not opened, so damaged tiles do not stop the run.
    #[arg(long)]
    pub no_tiles: bool,
    /// Out of core: how each iteration reads the graph: adaptive (by the device's measured
    /// bandwidth and IOPS, the active lists with every gap cheaper to read than to skip, or the
    /// sequential chunks, whichever costs less), selective (only the active vertices' pages) or
    /// streaming (sequential chunks, skipping inactive ones).
    #[arg(long, default_value = "adaptive", requires = "memory")]
    pub io_mode: vastgraph_engine::ooc::IoMode,
    /// Out of core: MRT, how many times a loaded range is reprocessed while it holds newly
    /// activated vertices (bfs, sssp); 0 turns reentry off.
    #[arg(long, default_value_t = 5, requires = "memory")]
    pub mrt: u32,
    /// Out of core: I/O backend: auto (io_uring, else a pread thread pool), uring, pread.
    #[arg(long, default_value = "auto", requires = "memory")]
    pub io_backend: vastgraph_engine::ooc::BackendChoice,
    /// Out of core: measure the disk's bandwidth and IOPS again (about a second) and replace
    /// the profile cached in $XDG_CACHE_HOME/vastgraph/devices.json, e.g. when it was measured
    /// while the disk was busy.
    #[arg(long, requires = "memory")]
    pub recalibrate: bool,
    /// Save the state of an iterative kernel (pagerank, delta-pagerank, personalized-pagerank,
    /// label-propagation, sssp, bfs, kcore) in DIR as it runs, so that a killed run continues
    /// with --resume. Ctrl-C saves, then stops. The checkpoint is removed once the run is done.
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<PathBuf>,
    /// How often to save: every N iterations (10) or after a time (30s, 5m, 1h).
    #[arg(long, default_value = "60s", requires = "checkpoint")]
    pub checkpoint_every: Every,
    /// Continue from the checkpoint in --checkpoint DIR (same store, algorithm and parameters).
    #[arg(long, requires = "checkpoint")]
    pub resume: bool,
    /// The algorithm's parameters (`vastgraph algorithms` lists each one's).
    #[command(flatten)]
    pub params: ParamFlags,
}

impl RunArgs {
    /// The parameters given, vertices looked up in the store's labels; refused before the
    /// store is opened when the algorithm does not take one or a value is out of its range.
    pub(crate) fn params(&self) -> anyhow::Result<Params> {
        let descriptor = registry::descriptor(&self.algorithm)?;
        let mut params = Params::default();
        for (p, word) in &self.params.given {
            let value = match p.kind {
                Kind::Vertex => serde_json::Value::from(vertex_ids(&self.store, p, &[word])?[0]),
                Kind::Vertices => {
                    let words: Vec<&str> = word.split(',').map(str::trim).collect();
                    serde_json::Value::from(vertex_ids(&self.store, p, &words)?)
                }
                _ => p.parse(word).map_err(UsageError)?,
            };
            params.set(p.name, value);
        }
        // Values per vertex asked for (written or ranked): the algorithm's per-vertex switch
        // (tc) is on.
        let per_vertex_wanted = self.output.is_some() || self.top.is_some();
        if per_vertex_wanted && descriptor.param("per_vertex").is_some() {
            params.set("per_vertex", true);
        }
        descriptor.check(&params)?;
        Ok(params)
    }

    /// The checkpoint directory of the run, taken (locked) before any work.
    fn open_checkpoint(&self) -> anyhow::Result<Option<Arc<Checkpoint>>> {
        let Some(dir) = &self.checkpoint else {
            return Ok(None);
        };
        if self.trials != 1 {
            return Err(UsageError(
                "--checkpoint serves one run; drop --trials or --checkpoint".into(),
            )
            .into());
        }
        registry::check_resumable(registry::descriptor(&self.algorithm)?)?;
        let options = CheckpointOptions {
            every: self.checkpoint_every,
            resume: self.resume,
            stop_after: None,
        };
        let store = store_fingerprint(&self.store)?;
        Ok(Some(Arc::new(Checkpoint::open(dir, &store, options)?)))
    }
}

/// `--top K`: the K vertices with the largest values.
fn print_top(args: &RunArgs, values: Option<&Values>, vertex_values: bool) -> anyhow::Result<()> {
    let Some(k) = args.top else { return Ok(()) };
    let values =
        values.with_context(|| format!("{} gives no per-vertex values to rank", args.algorithm))?;
    crate::top::print_top(&args.store, &args.algorithm, values, vertex_values, k)
}

/// The ids of vertices named on the command line by `param`: a label of a labelled store names
/// its vertex; an integer that is not a label is a dense id (range-checked by the algorithm),
/// unless some label of the store is an integer too: the integer then most likely means a
/// label the store lacks, and is refused rather than taken for another vertex.
fn vertex_ids(store: &Path, param: &Param, given: &[&str]) -> anyhow::Result<Vec<u64>> {
    if given.is_empty() {
        return Ok(Vec::new());
    }
    let manifest = vastgraph_store::open_manifest(store)?;
    let lookup = vastgraph_store::ids_of_labels(store, &manifest, given)?;
    let flag = param.flag_name();
    given
        .iter()
        .enumerate()
        .map(|(i, &token)| {
            let Some(lookup) = &lookup else {
                return token.parse::<u64>().map_err(|_| {
                    UsageError(format!(
                        "--{flag}: {token:?} is not a vertex id: {} has no labels, so its \
                         vertices are named by their ids 0..{}",
                        store.display(),
                        manifest.vertices.saturating_sub(1)
                    ))
                    .into()
                });
            };
            if let Some(id) = lookup.ids[i] {
                return Ok(u64::from(id));
            }
            let missing = format!(
                "--{flag}: no vertex of {} is labelled {token:?}",
                store.display()
            );
            match (token.parse::<u64>(), &lookup.integer_label) {
                (Ok(id), None) => Ok(id),
                (Ok(_), Some(label)) => Err(UsageError(format!(
                    "{missing}; its labels are integers too (such as {label:?}), so an integer \
                     names a label here, not a dense id"
                ))
                .into()),
                (Err(_), _) => {
                    Err(UsageError(format!("{missing} (and it is not an integer id)")).into())
                }
            }
        })
        .collect()
}

pub fn run(args: RunArgs, quiet: bool) -> anyhow::Result<()> {
    if args.trials == 0 {
        return Err(UsageError("--trials must be at least 1".into()).into());
    }
    if args.top == Some(0) {
        return Err(UsageError("--top must be at least 1".into()).into());
    }
    // Before any work: an hour's run must not end in "file exists", or with its values
    // overwritten by its statistics.
    for path in [&args.output, &args.stats].into_iter().flatten() {
        refuse_inside_store(&args.store, path)?;
        refuse_existing(path, args.force)?;
    }
    if let Some(output) = &args.output {
        output_format(output)?;
    }
    if let (Some(output), Some(stats)) = (&args.output, &args.stats) {
        if same_file(output, stats) {
            return Err(UsageError(format!(
                "--output and --stats both name {}: give each its own file",
                output.display()
            ))
            .into());
        }
    }
    let to_stdout = [&args.output, &args.stats]
        .into_iter()
        .flatten()
        .any(|p| p == Path::new(crate::STDOUT));
    if to_stdout && args.top.is_some() {
        return Err(UsageError(
            "--top prints to standard output, which `-` takes here: write the values or the \
             statistics to a file"
                .into(),
        )
        .into());
    }
    // The parameters first: a run refused for them leaves no checkpoint directory behind.
    let mut params = args.params()?;
    let checkpoint = args.open_checkpoint()?;
    params.checkpoint = checkpoint.clone();
    let stop_at_once = StopAtOnce::unless(checkpoint.is_some());
    let bound = registry::iteration_bound(&args.algorithm, &params);
    let status = crate::progress::RunStatus::start(&args.algorithm, bound, quiet);
    let report = harness::run(Request {
        store: &args.store,
        algorithm: &args.algorithm,
        params: &params,
        trials: args.trials,
        verify: args.verify,
        memory: args.memory,
        out_of_core: OocOptions {
            mode: args.io_mode,
            max_reentries: args.mrt,
            backend: args.io_backend,
            recalibrate: args.recalibrate,
            ..Default::default()
        },
        top: args.top.unwrap_or(DEFAULT_TOP),
        opened: None,
        tiles: !args.no_tiles,
    })?;
    drop(status);
    drop(stop_at_once);
    let vertex_values = registry::descriptor(&args.algorithm)?.values_are_vertices(&params);
    if let Some(path) = &args.output {
        let values = report
            .values
            .as_ref()
            .with_context(|| format!("{} produces no per-vertex output", args.algorithm))?;
        write_output(path, args.force, values, vertex_values, &|| {
            Ok(vastgraph_store::Store::open_without_tiles(&args.store)?.labels()?)
        })?;
    }
    print_top(&args, report.values.as_ref(), vertex_values)?;
    write_stats(args.stats.as_deref(), args.force, &report.record)?;
    eprintln!("{}", summary_line(&report.record, args.trials));
    finish(checkpoint)
}

/// The line a run prints when done: its time, iterations, what it traversed or read, its
/// memory, and whether it was verified.
fn summary_line(r: &RunRecord, trials: usize) -> String {
    let median = if trials > 1 {
        format!(" (median of {trials})")
    } else {
        String::new()
    };
    let convergence = r
        .convergence_note()
        .map_or(String::new(), |note| format!(" ({note})"));
    let resumed = r
        .resumed_from_iteration
        .map_or(String::new(), |i| format!(", resumed from iteration {i}"));
    let verified = if r.verified { ", verified" } else { "" };
    if let Some(io) = &r.out_of_core {
        return crate::out_of_core::summary_line(
            r,
            io,
            &median,
            &(convergence + &resumed),
            verified,
        );
    }
    let extra: Vec<String> = r.extra.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "{} on {}: {:.4} s{median}, {} iterations{convergence}{resumed}, {} arcs traversed, heap peak {}{}{verified}",
        r.algorithm,
        r.store,
        r.wall_seconds,
        r.iterations,
        r.edges_traversed,
        crate::size::human(r.peak_mutable_bytes),
        if extra.is_empty() {
            String::new()
        } else {
            format!(", {}", extra.join(" "))
        },
    )
}

/// The run is complete and its outputs written: its checkpoint has served.
fn finish(checkpoint: Option<Arc<Checkpoint>>) -> anyhow::Result<()> {
    if let Some(checkpoint) = checkpoint {
        checkpoint.finish()?;
    }
    Ok(())
}

/// What writing an output does with a file already there: replaced only when forced.
pub(crate) fn existing(force: bool) -> Existing {
    if force {
        Existing::Replace
    } else {
        Existing::Refuse
    }
}

/// Writes through a temporary sibling and renames, so a failed run leaves no half-written
/// file, holding the lock on writing `path` (as an export does). Without `force`, a file put
/// at `path` by another process during the run is an error, not replaced.
pub fn write_atomically(
    path: &Path,
    force: bool,
    body: impl FnOnce(&mut BufWriter<std::fs::File>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    vastgraph_export::write_then_rename(path, existing(force), |tmp| {
        let file = vastgraph_export::create_output(tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        body(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        // A device or a pipe (`--stats /dev/stdout`) is written in place and has nothing to
        // make durable: fsync refuses it (EINVAL).
        if file.metadata()?.is_file() {
            file.sync_all()?;
        }
        Ok(())
    })
    .with_context(|| format!("writing {}", path.display()))
}

/// Whether `a` and `b` name one file: the same name in the same directory, links and `..`
/// resolved (the files need not exist yet).
fn same_file(a: &Path, b: &Path) -> bool {
    let resolved = |p: &Path| {
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
        let dir = parent.unwrap_or(Path::new(".")).canonicalize().ok()?;
        let full = dir.join(p.file_name()?);
        Some(full.canonicalize().unwrap_or(full))
    };
    a == b || matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
}

/// Refuses an output inside the store being read (or the store itself): replacing one of its
/// files, with --force, would break the store, and any other file there is a foreign entry
/// in it. Links and `..` are resolved; a store that does not open is its own error, later.
pub(crate) fn refuse_inside_store(store: &Path, output: &Path) -> anyhow::Result<()> {
    // The output itself resolving into the store: the store, or a link to one of its files.
    let resolves_inside = || {
        matches!((store.canonicalize(), output.canonicalize()),
            (Ok(store), Ok(output)) if output.starts_with(&store))
    };
    if vastgraph_store::written_inside(store, output) || resolves_inside() {
        return Err(UsageError(format!(
            "{} is inside the store {}: write it beside the store",
            output.display(),
            store.display()
        ))
        .into());
    }
    Ok(())
}

/// An existing output file (or a dangling link) is replaced only when forced, and the file's
/// directory must take a new file: both found before the work, not after it.
pub(crate) fn refuse_existing(path: &Path, force: bool) -> anyhow::Result<()> {
    // Standard output is a stream, whatever the shell connected to it.
    if path == Path::new(crate::STDOUT) {
        return Ok(());
    }
    let meta = std::fs::metadata(path);
    anyhow::ensure!(
        !meta.as_ref().is_ok_and(|m| m.is_dir()),
        "{}: is a directory; name a file to write",
        path.display()
    );
    let dangling = meta.is_err() && std::fs::symlink_metadata(path).is_ok();
    let device = meta.as_ref().is_ok_and(|m| !m.is_file());
    anyhow::ensure!(
        !(meta.is_ok_and(|m| m.is_file()) || dangling) || force,
        "{}: already exists (--force replaces it)",
        path.display()
    );
    // The file is written beside its name, so its directory must be there (a parent that is
    // no directory is the write's own error, with its reason).
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(parent) = parent.filter(|p| std::fs::symlink_metadata(p).is_err()) {
        anyhow::bail!(
            "{}: the directory {} does not exist",
            path.display(),
            parent.display()
        );
    }
    // A device or a pipe is written in place; anything else through a file beside it.
    if !device {
        let probe = vastgraph_store::stage_path(path, "tmp");
        if let Err(e) = std::fs::File::create(&probe) {
            anyhow::bail!(
                "{}: cannot write in {}: {e}",
                path.display(),
                parent.unwrap_or(Path::new(".")).display()
            );
        }
        let _ = std::fs::remove_file(&probe);
    }
    Ok(())
}

/// Writes the run statistics as pretty JSON to `path`, when one was asked for.
fn write_stats(path: Option<&Path>, force: bool, stats: &RunRecord) -> anyhow::Result<()> {
    if let Some(path) = path {
        write_atomically(path, force, |w| {
            serde_json::to_writer_pretty(&mut *w, stats)?;
            writeln!(w)?;
            Ok(())
        })?;
    }
    Ok(())
}

/// `labels` is called only for text output, to name the vertices, and the values too when
/// they are vertex ids (`vertex_values`: a component's smallest vertex, a BFS parent, ...;
/// none is -1 or u32::MAX, written as -1).
fn write_output(
    path: &Path,
    force: bool,
    values: &Values,
    vertex_values: bool,
    labels: &dyn Fn() -> anyhow::Result<Option<Vec<String>>>,
) -> anyhow::Result<()> {
    match output_format(path)? {
        OutputFormat::Npy => write_atomically(path, force, |w| {
            match values {
                Values::I64(v) => write_npy(w, v, 1)?,
                Values::U64(v) => write_npy(w, v, 1)?,
                Values::U32(v) => write_npy(w, v, 1)?,
                Values::U8(v) => write_npy(w, v, 1)?,
                Values::F64(v) => write_npy(w, v, 1)?,
                Values::Rows { data, cols } => write_npy(w, data, *cols)?,
            }
            Ok(())
        }),
        OutputFormat::Text => {
            let labels = labels()?;
            let name = |v: u64| match &labels {
                Some(l) => l[v as usize].clone(),
                None => v.to_string(),
            };
            // A vertex id as the vertices are named; "-1" for none.
            let vertex = |x: i64| match u32::try_from(x) {
                Ok(id) if id != u32::MAX => name(u64::from(id)),
                _ => "-1".to_string(),
            };
            write_atomically(path, force, |w| {
                match values {
                    Values::I64(v) if vertex_values => {
                        for (i, &x) in v.iter().enumerate() {
                            writeln!(w, "{}\t{}", name(i as u64), vertex(x))?;
                        }
                    }
                    Values::U32(v) if vertex_values => {
                        for (i, &x) in v.iter().enumerate() {
                            writeln!(w, "{}\t{}", name(i as u64), vertex(i64::from(x)))?;
                        }
                    }
                    Values::I64(v) => write_tsv_column(w, v, &name)?,
                    Values::U64(v) => write_tsv_column(w, v, &name)?,
                    Values::U32(v) => write_tsv_column(w, v, &name)?,
                    Values::U8(v) => write_tsv_column(w, v, &name)?,
                    Values::F64(v) => write_tsv_column(w, v, &name)?,
                    Values::Rows { data, cols } => {
                        for row in data.chunks(*cols) {
                            let cells: Vec<String> = row
                                .iter()
                                .filter(|&&x| x != u32::MAX)
                                .map(|&x| name(x as u64))
                                .collect();
                            writeln!(w, "{}", cells.join("\t"))?;
                        }
                    }
                }
                Ok(())
            })
        }
    }
}

/// How `--output` is written, by its extension (in any case).
enum OutputFormat {
    Npy,
    /// Tab-separated `vertex<TAB>value` lines (.tsv or .txt).
    Text,
}

fn output_format(path: &Path) -> Result<OutputFormat, UsageError> {
    match crate::lowercase_extension(path).as_deref() {
        Some("npy") => Ok(OutputFormat::Npy),
        Some("tsv") | Some("txt") => Ok(OutputFormat::Text),
        None if path == Path::new(crate::STDOUT) => Ok(OutputFormat::Text),
        _ => Err(UsageError(format!(
            "--output {}: name a file ending in .npy (NumPy) or .tsv (text), or - for text on \
             standard output",
            path.display()
        ))),
    }
}

fn write_tsv_column<T: std::fmt::Display + NpyElement>(
    w: &mut impl Write,
    values: &[T],
    name: &dyn Fn(u64) -> String,
) -> anyhow::Result<()> {
    for (v, x) in values.iter().enumerate() {
        writeln!(w, "{}\t{}", name(v as u64), x)?;
    }
    Ok(())
}
