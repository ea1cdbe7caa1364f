//! The out-of-core store builder: callers push edges in input order; `finish` sorts them
//! within the memory budget, drops self-loops and duplicates, writes the CSR files (and
//! the transpose) into a staging directory, and renames it into place.

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::cancel::check_cancel;
use crate::compress::{compress_staged, pick_staged_codec};
use crate::csr_writer::{CsrFileNames, CsrWriter, IN_EDGES, OUT_EDGES};
use crate::external_sort::{for_each_chunk_of, sort_buffer_bytes, ExternalSorter, Sorted};
use crate::fsutil::{available_bytes, device_of};
use crate::hashed_file::HashedFileWriter;
use crate::manifest::{
    files, Codec, Dropped, FileEntry, InputRecord, Manifest, OffsetsCode, Provenance, WeightType,
    FORMAT_NAME, FORMAT_VERSION, LIST_HEAD_IDS, MANIFEST_FILE,
};
use crate::merge::{merge_runs, merge_sorted_pair};
use crate::pipeline::pipelined;
use crate::record::{pack, sort_records, source_of, target_of, SortRecord, WeightedArc};
use crate::run_file::{RunSpace, RunWriter};
use crate::staging::{check_replaceable, commit, split_target, through_link, TempDir};
use crate::target_lock::TargetLock;
use crate::{Store, StoreError, MAX_VERTICES};

/// Budgets below this leave too little room for sort buffers next to the fixed-size I/O
/// buffers to build anything efficiently.
pub const MIN_MEMORY_BYTES: u64 = 16 << 20;

#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Store (u,v) and (v,u) for every input edge; the store is then undirected.
    pub symmetrize: bool,
    /// With `symmetrize`: the input already holds both arcs of every edge (it is an
    /// undirected store's arcs), so the reverses are not added again.
    pub input_has_both_arcs: bool,
    /// Also store in-edges (directed stores only; a symmetric store is its own transpose).
    pub transpose: bool,
    /// Keep (u,u) arcs; by default they are dropped and counted in `Dropped::self_loops`.
    pub keep_self_loops: bool,
    /// Edges carry a weight.
    pub weighted: bool,
    /// Budget for the whole build's sort and merge buffers, in bytes.
    pub memory_bytes: u64,
    /// Where sorted runs go; default: the target's parent directory.
    pub tmp_dir: Option<PathBuf>,
    /// Replace an existing store at the target.
    pub overwrite: bool,
    /// Provenance: the command that built the store.
    pub command: String,
    /// Provenance: the options the build ran with, as given.
    pub options_json: serde_json::Value,
    /// Testing knob: cap the in-memory sort buffer at this many bytes to force many runs.
    pub run_bytes: Option<u64>,
    /// How to write the neighbour lists: `Codec::Raw`, or compressed.
    pub codec: Codec,
    /// With a compressed `codec`, write instead the one [`crate::pick_codec`] picks from the
    /// built lists (what `--compress` without `--codec` does).
    pub pick_codec: bool,
    /// Where the phases after the input (sorting, writing, compressing) are reported.
    pub progress: crate::progress::Progress,
    /// The input edges the caller expects, when it knows them (a generated graph, a binary
    /// edge list, arrays, a store being rebuilt), and the vertices if known: the build then
    /// checks the disk before it starts, and refuses with the numbers when it will not fit.
    pub expected_size: Option<ExpectedSize>,
}

/// What the caller knows of the build's size in advance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExpectedSize {
    pub edges: u64,
    /// 0 when unknown.
    pub vertices: u64,
}

/// The disk a build needs at its peak (`BuildOptions::disk_needed`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskNeed {
    /// Sorted runs, in the temporary directory (`tmp_dir`, or beside the target).
    pub runs: u64,
    /// The store's files, staged beside the target.
    pub store: u64,
}

impl DiskNeed {
    fn describe(&self) -> String {
        format!(
            "{} for sorted runs, {} for the store",
            crate::error::gb(self.runs),
            crate::error::gb(self.store)
        )
    }
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            symmetrize: false,
            input_has_both_arcs: false,
            transpose: false,
            keep_self_loops: false,
            weighted: false,
            memory_bytes: 1 << 30,
            tmp_dir: None,
            overwrite: false,
            command: String::new(),
            options_json: serde_json::Value::Null,
            run_bytes: None,
            codec: Codec::Raw,
            pick_codec: false,
            progress: Default::default(),
            expected_size: None,
        }
    }
}

/// Refuse a build whose expected size (`BuildOptions::expected_size`) will not fit on the
/// disk; returns the bytes free for the store and for the runs.
fn check_disk(
    parent: &Path,
    runs_parent: &Path,
    opts: &BuildOptions,
) -> Result<FreeSpace, StoreError> {
    let space = FreeSpace {
        store: available_bytes(parent)?,
        runs: available_bytes(runs_parent)?,
        runs_parent: runs_parent.to_path_buf(),
    };
    let Some(size) = opts.expected_size else {
        return Ok(space);
    };
    let need = opts.disk_needed(size);
    opts.progress.note(&format!(
        "the build holds at most {} of disk ({}); {} free",
        crate::error::gb(need.runs + need.store),
        need.describe(),
        crate::error::gb(space.store.min(space.runs)),
    ));
    let refuse = |path: &Path, needed: u64, available: u64| {
        Err(StoreError::NoSpace {
            path: path.to_path_buf(),
            needed,
            available,
            detail: need.describe(),
        })
    };
    if device_of(parent)? == device_of(runs_parent)? {
        if need.runs + need.store > space.store {
            return refuse(parent, need.runs + need.store, space.store);
        }
    } else {
        if need.store > space.store {
            return refuse(parent, need.store, space.store);
        }
        if need.runs > space.runs {
            return refuse(runs_parent, need.runs, space.runs);
        }
    }
    Ok(space)
}

/// Free bytes on the disks of a build, when it started.
#[derive(Clone)]
struct FreeSpace {
    store: u64,
    runs: u64,
    runs_parent: PathBuf,
}

/// A full disk's message: what the build needs, and what the disk that filled had free.
struct DiskFullReport {
    need: DiskNeed,
    /// How `need` bounds the build ("up to", or only for the edges read so far).
    bound: &'static str,
    free: FreeSpace,
    staging: PathBuf,
}

impl DiskFullReport {
    fn explain(&self, error: StoreError) -> StoreError {
        let StoreError::DiskFull { path, .. } = error else {
            return error;
        };
        // A sorted run's path lies in the runs' folder, outside the store's stage.
        let in_runs = path.starts_with(&self.free.runs_parent) && !path.starts_with(&self.staging);
        let free_there = if in_runs {
            self.free.runs
        } else {
            self.free.store
        };
        let context = format!(
            ": this build needs {} {} of disk ({}), and that disk had {} free when it \
             started; its partial files are removed",
            self.bound,
            crate::error::gb(self.need.runs + self.need.store),
            self.need.describe(),
            crate::error::gb(free_there)
        );
        StoreError::DiskFull { path, context }
    }
}

/// Vertices per arc past which a large store is taken for sparse ids rather than a graph.
const SPARSE_VERTICES_PER_ARC: u64 = 64;
/// Offsets below this are written whatever the ids: a small store of isolated vertices is cheap.
const SPARSE_OFFSETS_FLOOR_BYTES: u64 = 1 << 30;

/// The bytes of offsets a store of `vertices` vertices and `arcs` arcs would hold, when that
/// is too many for its arcs (more than 1 GiB, and more than 64 vertices an arc); None otherwise.
pub fn sparse_offsets_bytes(vertices: u64, arcs: u64) -> Option<u64> {
    let offsets_bytes = 8 * (vertices + 1);
    let sparse = offsets_bytes > SPARSE_OFFSETS_FLOOR_BYTES
        && vertices > SPARSE_VERTICES_PER_ARC * arcs.max(1);
    sparse.then_some(offsets_bytes)
}

/// Refuses a build whose vertex count comes from a few huge ids rather than from the graph: the
/// store holds 8 bytes of offsets a vertex, so one stray id near 2^32 would have the build
/// write 34 GB of offsets for a handful of arcs. Labelled builds number their vertices densely
/// and never get here with sparse ids.
fn check_not_sparse(vertices: u64, arcs: u64, labelled: bool) -> Result<(), StoreError> {
    let Some(offsets_bytes) = sparse_offsets_bytes(vertices, arcs).filter(|_| !labelled) else {
        return Ok(());
    };
    Err(StoreError::invalid_input(format!(
        "the vertex ids (or a declared vertex count) reach {}, so the store would have \
         {vertices} vertices and {:.1} GB of offsets for {arcs} arcs; convert with --relabel \
         to number the vertices densely (the original ids are kept as labels)",
        vertices - 1,
        offsets_bytes as f64 / 1e9
    )))
}

impl BuildOptions {
    /// A transpose is stored only for directed stores that asked for it.
    fn stores_transpose(&self) -> bool {
        self.transpose && !self.symmetrize
    }

    /// An upper estimate of the disk a build of `size` needs at its peak, assuming no
    /// input edge repeats. Runs: none when the edges sort in memory. A merge releases its
    /// input runs as it reads them (`fsutil::release_range`), so the runs alive at once
    /// are about the larger of the first sort's and the second's (the transpose's, or a
    /// symmetrising build's arcs and reverses). Store: offsets, lists, weights, the side
    /// files, and while a codec runs, the compressed lists beside the raw ones.
    pub fn disk_needed(&self, size: ExpectedSize) -> DiskNeed {
        let record = if self.weighted { 16 } else { 8 };
        // Clamped so that no product below overflows: 2^50 edges are past any disk already.
        let (edges, n) = (size.edges.min(1 << 50), size.vertices.min(MAX_VERTICES));
        let input_runs = record * edges;
        let first_sort_limit = match self.adds_reverses() {
            true => self.input_buffer_bytes() / 2,
            false => self.input_buffer_bytes(),
        };
        let second_runs = match (self.stores_transpose(), self.adds_reverses()) {
            (true, _) => record * edges,
            (false, true) => 2 * record * edges,
            (false, false) => 0,
        };
        let runs = match input_runs <= first_sort_limit {
            true => 0,
            false => input_runs.max(second_runs),
        };
        let arcs = if self.adds_reverses() {
            2 * edges
        } else {
            edges
        };
        let weights = if self.weighted { 4 * arcs } else { 0 };
        let direction = 8 * (n + 1) + 4 * arcs + weights;
        let heads = match n {
            0 => arcs,
            n => arcs.min(LIST_HEAD_IDS * n),
        };
        let side_files = 4 * n + 4 * heads + arcs / 1024;
        let transpose = if self.stores_transpose() {
            direction
        } else {
            0
        };
        let compressed = if self.codec == Codec::Raw {
            0
        } else {
            4 * arcs
        };
        DiskNeed {
            runs,
            store: direction + side_files + transpose + compressed,
        }
    }

    /// The build adds each arc's reverse: after the input's arcs are sorted and their
    /// duplicates dropped, so that the reverses the input gave itself are told apart.
    fn adds_reverses(&self) -> bool {
        self.symmetrize && !self.input_has_both_arcs
    }

    /// The sort buffer of the input phase.
    fn input_buffer_bytes(&self) -> u64 {
        let bytes = sort_buffer_bytes(self.memory_bytes);
        self.run_bytes.map_or(bytes, |cap| cap.min(bytes))
    }
}

/// The arcs collected so far, in the sorter matching the build's record type.
enum ArcSorter {
    Plain(ExternalSorter<u64>),
    Weighted(ExternalSorter<WeightedArc>),
}

pub struct StoreBuilder {
    /// Held from `create` until the store is in place: one writer per target.
    lock: TargetLock,
    target: PathBuf,
    name: String,
    runs_parent: PathBuf,
    opts: BuildOptions,
    staging: TempDir,
    started: Instant,
    sorter: ArcSorter,
    input_edges: u64,
    self_loops: u64,
    /// Arcs handed to the sorter (after dropping self-loops; reverses are added later).
    arcs_pushed: u64,
    /// max(id)+1 over pushed edges, raised by `ensure_vertices`.
    vertices: u64,
    /// Every weight of a kept edge so far is an integer in i32 range.
    weights_fit_i32: bool,
    /// The first integral weight of a kept edge that float32 does not hold exactly, if any:
    /// stored rounded when the store's weights are float32, which the build then says.
    inexact_in_f32: Option<f64>,
    inputs: Vec<InputRecord>,
    labels: Option<Labels>,
    /// What an earlier build of the same graph dropped and read, recorded instead of this
    /// build's own counts (a reorder of a store just built from the input).
    inherited: Option<(Dropped, u64)>,
    /// Bytes free where the store is staged and where the runs go when the build started,
    /// for the message of a disk that fills.
    free_at_start: FreeSpace,
}

/// The original label of each dense id, written to labels.txt.
pub(crate) enum Labels {
    /// One label per vertex, in dense-id order.
    Given(Vec<String>),
    /// Vertex i is the vertex `previous[i]` of an earlier numbering (a reordered store):
    /// its label is that vertex's label in `names`, or the number `previous[i]` itself
    /// when the earlier numbering had no labels. Kept as ids, not strings, so that a
    /// billion-vertex store's labels cost 4 bytes a vertex until they are written.
    Renumbered {
        previous: Vec<u32>,
        names: Option<Vec<String>>,
    },
}

impl Labels {
    fn len(&self) -> usize {
        match self {
            Labels::Given(labels) => labels.len(),
            Labels::Renumbered { previous, .. } => previous.len(),
        }
    }
}

impl StoreBuilder {
    /// Starts a build of the store at `target`, holding the lock on writing it (another
    /// writer of `target` makes this fail at once; stages a killed writer left are removed).
    pub fn create(target: &Path, opts: BuildOptions) -> Result<StoreBuilder, StoreError> {
        Self::create_with(target, opts, None)
    }

    /// [`Self::create`] with the lock on `target` already held by the caller (`Some`), or
    /// taken here.
    pub(crate) fn create_with(
        target: &Path,
        opts: BuildOptions,
        lock: Option<TargetLock>,
    ) -> Result<StoreBuilder, StoreError> {
        if opts.memory_bytes < MIN_MEMORY_BYTES {
            return Err(StoreError::MemoryBudgetTooSmall {
                given: opts.memory_bytes,
                minimum: MIN_MEMORY_BYTES,
            });
        }
        let target = &through_link(target);
        let (parent, name) = split_target(target)?;
        let lock = match lock {
            Some(lock) => lock,
            None => TargetLock::acquire(target)?,
        };
        // Fail before any work when the target is taken; checked again at the rename.
        check_replaceable(target, opts.overwrite)?;
        let runs_parent = opts.tmp_dir.clone().unwrap_or_else(|| parent.clone());
        if runs_parent != parent {
            lock.remove_dead_stages_in(target, &runs_parent);
        }
        if !runs_parent.is_dir() {
            let (kind, why) = match runs_parent.exists() {
                true => (
                    std::io::ErrorKind::NotADirectory,
                    "the temporary directory is a file, not a directory",
                ),
                false => (
                    std::io::ErrorKind::NotFound,
                    "temporary directory does not exist",
                ),
            };
            return Err(StoreError::io(&runs_parent, std::io::Error::new(kind, why)));
        }
        let free_at_start = check_disk(&parent, &runs_parent, &opts)?;
        let staging = TempDir::create_in(&parent, &name, "tmp")?;
        let space = RunSpace::new(&runs_parent, &name, "runs");
        let buffer_bytes = opts.input_buffer_bytes();
        // A symmetrising build's reverses go into the upper half of the buffer when the
        // input's arcs fit in the lower half (see `write_symmetrized`).
        let half = opts.adds_reverses();
        let sorter = match opts.weighted {
            false => ArcSorter::Plain(ExternalSorter::with_half_free(buffer_bytes, space, half)),
            true => ArcSorter::Weighted(ExternalSorter::with_half_free(buffer_bytes, space, half)),
        };
        Ok(StoreBuilder {
            lock,
            target: target.to_path_buf(),
            name,
            runs_parent,
            opts,
            staging,
            started: Instant::now(),
            sorter,
            input_edges: 0,
            self_loops: 0,
            arcs_pushed: 0,
            vertices: 0,
            weights_fit_i32: true,
            inexact_in_f32: None,
            inputs: Vec::new(),
            labels: None,
            inherited: None,
            free_at_start,
        })
    }

    /// Edges in input order; `weights` is given iff the build is weighted.
    pub fn push_batch(
        &mut self,
        src: &[u32],
        dst: &[u32],
        weights: Option<&[f64]>,
    ) -> Result<(), StoreError> {
        check_cancel()?;
        if src.len() != dst.len() {
            return Err(StoreError::invalid_input(format!(
                "batch has {} sources but {} destinations",
                src.len(),
                dst.len()
            )));
        }
        match (weights, self.opts.weighted) {
            (Some(w), true) if w.len() != src.len() => {
                return Err(StoreError::invalid_input(format!(
                    "batch has {} edges but {} weights",
                    src.len(),
                    w.len()
                )))
            }
            (Some(w), true) => {
                if let Some(i) = w.iter().position(|x| x.is_nan()) {
                    return Err(StoreError::invalid_input(format!(
                        "edge {} -> {} has weight NaN",
                        src[i], dst[i]
                    )));
                }
            }
            (None, true) => {
                return Err(StoreError::invalid_input(
                    "a weighted build got edges without weights",
                ))
            }
            (Some(_), false) => {
                return Err(StoreError::invalid_input(
                    "an unweighted build got edge weights",
                ))
            }
            (None, false) => {}
        }
        let max_id = src.iter().chain(dst).copied().max().unwrap_or(0) as u64;
        if max_id >= MAX_VERTICES {
            return Err(StoreError::invalid_input(format!(
                "vertex id {max_id} is out of range (ids must be below {MAX_VERTICES})"
            )));
        }
        if !src.is_empty() {
            self.vertices = self.vertices.max(max_id + 1);
        }
        self.input_edges += src.len() as u64;
        let mut counts = PushCounts::default();
        let pushed = match &mut self.sorter {
            ArcSorter::Plain(sorter) => {
                push_arcs(sorter, &self.opts, src, dst, |_| 0.0, &mut counts)
            }
            ArcSorter::Weighted(sorter) => {
                let w = weights.unwrap_or(&[]);
                push_arcs(sorter, &self.opts, src, dst, |i| w[i], &mut counts)
            }
        };
        pushed.map_err(|e| self.disk_full_report(false).explain(e))?;
        self.self_loops += counts.self_loops;
        self.arcs_pushed += counts.arcs;
        self.weights_fit_i32 &= counts.weights_fit_i32;
        self.inexact_in_f32 = self.inexact_in_f32.or(counts.inexact_in_f32);
        Ok(())
    }

    /// Raise n: a header may declare more vertices than the edges mention.
    pub fn ensure_vertices(&mut self, n: u64) {
        self.vertices = self.vertices.max(n);
    }

    pub fn add_input(&mut self, rec: InputRecord) {
        self.inputs.push(rec);
    }

    /// Original labels in dense-id order, written to labels.txt; n is at least their number.
    pub fn set_labels(&mut self, labels: Vec<String>) {
        self.set_label_source(Labels::Given(labels));
    }

    /// Records `dropped` and `input_edges` (an earlier build's, of the same graph) in the
    /// manifest instead of this build's own counts.
    pub(crate) fn inherit_counts(&mut self, dropped: Dropped, input_edges: u64) {
        self.inherited = Some((dropped, input_edges));
    }

    /// As [`StoreBuilder::set_labels`], from any [`Labels`].
    pub(crate) fn set_label_source(&mut self, labels: Labels) {
        self.ensure_vertices(labels.len() as u64);
        self.labels = Some(labels);
    }

    /// Edges pushed so far (before dropping and symmetrising), for progress reports.
    pub fn edges_pushed(&self) -> u64 {
        self.input_edges
    }

    /// Sort, merge, write and fsync everything, then move the store into place.
    pub fn finish(self) -> Result<Manifest, StoreError> {
        // Taken before the build consumes `self`.
        let report = self.disk_full_report(true);
        self.write_store().map_err(|e| report.explain(e))
    }

    /// What to tell a user whose disk fills now: what the build needs, from the expected
    /// size when the caller gave it, else from the edges pushed so far (`all_pushed`: all
    /// of them).
    fn disk_full_report(&self, all_pushed: bool) -> DiskFullReport {
        let pushed = ExpectedSize {
            edges: self.input_edges,
            vertices: self.vertices,
        };
        let (size, bound) = match self.opts.expected_size {
            Some(size) => (size, "up to"),
            None if all_pushed => (pushed, "up to"),
            None => (pushed, "for the edges read so far up to"),
        };
        DiskFullReport {
            need: self.opts.disk_needed(size),
            bound,
            free: self.free_at_start.clone(),
            staging: self.staging.path().to_path_buf(),
        }
    }

    fn write_store(self) -> Result<Manifest, StoreError> {
        check_cancel()?;
        let StoreBuilder {
            // Released when this function returns, after the store is in place.
            lock: _lock,
            target,
            name,
            runs_parent,
            opts,
            staging,
            started,
            sorter,
            input_edges,
            self_loops,
            arcs_pushed,
            vertices,
            weights_fit_i32,
            inexact_in_f32,
            inputs,
            labels,
            inherited,
            free_at_start: _,
        } = self;
        if vertices > MAX_VERTICES {
            return Err(StoreError::invalid_input(format!(
                "{vertices} vertices declared; a store holds at most {MAX_VERTICES}"
            )));
        }
        // A bound on the arcs the lists will hold.
        let arcs_bound = match opts.adds_reverses() {
            true => 2 * arcs_pushed,
            false => arcs_pushed,
        };
        check_not_sparse(vertices, arcs_bound, labels.is_some())?;
        let weight_type = opts.weighted.then_some(if weights_fit_i32 {
            WeightType::I32
        } else {
            WeightType::F32
        });
        if let (Some(WeightType::F32), Some(weight)) = (weight_type, inexact_in_f32) {
            log::warn!(
                "{name}: the weights are stored as float32 (not all are integers in int32's \
                 range), which rounds some integers: {weight} becomes {}",
                weight as f32
            );
        }
        let progress = opts.progress.clone();
        let plan = GraphPlan {
            progress: &progress,
            arcs_bound,
            adds_reverses: opts.adds_reverses(),
            runs_parent: &runs_parent,
            name: &name,
            dir: staging.path(),
            vertices,
            weight_type,
            memory_bytes: opts.memory_bytes,
            run_bytes: opts.run_bytes,
            transpose_space: opts
                .stores_transpose()
                .then(|| RunSpace::new(&runs_parent, &name, "in-runs")),
        };
        let written = match sorter {
            ArcSorter::Plain(sorter) => write_graph(sorter, plan)?,
            ArcSorter::Weighted(sorter) => write_graph(sorter, plan)?,
        };
        let Written {
            mut entries,
            arcs,
            distinct_input_arcs,
            reciprocal_pairs,
        } = written;
        let codec = match (opts.codec, opts.pick_codec) {
            (Codec::Raw, _) | (_, false) => opts.codec,
            (_, true) => pick_staged_codec(staging.path(), &entries)?,
        };
        if codec != Codec::Raw {
            compress_staged(
                codec,
                staging.path(),
                &mut entries,
                opts.memory_bytes,
                &progress,
            )?;
        }
        if let Some(labels) = &labels {
            progress.phase("writing the labels", None);
            entries.push(write_labels(staging.path(), labels, vertices)?);
        }
        let manifest = Manifest {
            format: FORMAT_NAME.to_string(),
            version: FORMAT_VERSION,
            vertices,
            arcs,
            directed: !opts.symmetrize,
            weighted: opts.weighted,
            weight_type,
            id_width: 32,
            codec,
            offsets_code: OffsetsCode::written_with(codec),
            has_transpose: opts.stores_transpose(),
            has_labels: labels.is_some(),
            self_loops_kept: opts.keep_self_loops,
            dropped: inherited.as_ref().map_or(
                Dropped {
                    self_loops,
                    duplicate_arcs: arcs_pushed - distinct_input_arcs,
                    reciprocal_pairs,
                },
                |(dropped, _)| dropped.clone(),
            ),
            tiles: None,
            files: entries,
            provenance: Provenance {
                vastgraph_version: env!("CARGO_PKG_VERSION").to_string(),
                command: opts.command.clone(),
                inputs,
                options: opts.options_json.clone(),
                created_unix: SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
                build_seconds: started.elapsed().as_secs_f64(),
                input_edges: inherited.map_or(input_edges, |(_, edges)| edges),
            },
        };
        write_manifest(staging.path(), &manifest)?;
        if codec != Codec::Raw {
            // Decode every list once before the store appears (the encoder's own output).
            progress.phase("checking the compressed lists", None);
            Store::open(staging.path())?;
        }
        check_cancel()?;
        commit(staging, &target, opts.overwrite)?;
        Ok(manifest)
    }
}

/// 2^53: below it every integer is an f64 of its own.
const EXACT_F64_INTEGERS: f64 = 9_007_199_254_740_992.0;

#[derive(Default)]
struct PushCounts {
    self_loops: u64,
    arcs: u64,
    weights_fit_i32: bool,
    inexact_in_f32: Option<f64>,
}

/// The per-edge loop: drop self-loops, track whether weights fit i32.
fn push_arcs<R: SortRecord>(
    sorter: &mut ExternalSorter<R>,
    opts: &BuildOptions,
    src: &[u32],
    dst: &[u32],
    weight_of: impl Fn(usize) -> f64,
    counts: &mut PushCounts,
) -> Result<(), StoreError> {
    let mut fits = true;
    let mut inexact = None;
    for (i, (&s, &d)) in src.iter().zip(dst).enumerate() {
        if s == d && !opts.keep_self_loops {
            counts.self_loops += 1;
            continue;
        }
        let weight = weight_of(i);
        if R::WEIGHTED {
            fits &= weight.fract() == 0.0 && weight >= i32::MIN as f64 && weight <= i32::MAX as f64;
            // Integers are what a user expects kept exactly; other reals round in float32 as
            // the store format says. Past 2^53 an f64 is no integer a user wrote digit by
            // digit (3.4e38), and a 64-bit integer column is checked where it is read.
            if inexact.is_none()
                && weight.fract() == 0.0
                && weight.abs() < EXACT_F64_INTEGERS
                && f64::from(weight as f32) != weight
            {
                inexact = Some(weight);
            }
        }
        sorter.push(R::new(pack(s, d), weight))?;
        counts.arcs += 1;
    }
    counts.weights_fit_i32 = fits;
    counts.inexact_in_f32 = inexact;
    Ok(())
}

struct GraphPlan<'a> {
    progress: &'a crate::progress::Progress,
    /// A bound on the arcs the lists hold: those pushed, duplicates included, and with
    /// `adds_reverses` their reverses.
    arcs_bound: u64,
    /// Symmetrise: the lists hold the sorted arcs and their reverses (`write_symmetrized`).
    adds_reverses: bool,
    /// Where a symmetrising build's second sort puts its runs, and the store's name.
    runs_parent: &'a Path,
    name: &'a str,
    dir: &'a Path,
    vertices: u64,
    weight_type: Option<WeightType>,
    memory_bytes: u64,
    /// The testing cap on sort buffers (`BuildOptions::run_bytes`).
    run_bytes: Option<u64>,
    /// Where the transpose's runs go, when a transpose is stored.
    transpose_space: Option<RunSpace>,
}

/// Progress through the phases that stream arcs: each counts its arcs from zero, from
/// whichever thread handles them.
struct WritePhases<'a> {
    progress: &'a crate::progress::Progress,
    done: std::sync::atomic::AtomicU64,
}

impl<'a> WritePhases<'a> {
    fn new(progress: &'a crate::progress::Progress) -> WritePhases<'a> {
        WritePhases {
            progress,
            done: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn start(&self, name: &str, total: u64) {
        self.done.store(0, std::sync::atomic::Ordering::Relaxed);
        self.progress.phase(name, Some(total));
    }

    fn count(&self, arcs: usize) {
        let before = self
            .done
            .fetch_add(arcs as u64, std::sync::atomic::Ordering::Relaxed);
        self.progress.advance(before + arcs as u64);
    }
}

impl GraphPlan<'_> {
    /// The buffer of a second sort (the transpose's, or the reverses'), which shares the
    /// budget with the merge feeding it.
    fn second_sort_buffer_bytes(&self) -> u64 {
        let third = self.memory_bytes / 3;
        self.run_bytes.map_or(third, |cap| cap.min(third))
    }
}

/// What writing the lists produced.
struct Written {
    entries: Vec<FileEntry>,
    /// m, the arcs in the lists.
    arcs: u64,
    /// The pushed arcs left once duplicates are dropped.
    distinct_input_arcs: u64,
    /// Pairs of input arcs u -> v and v -> u (u != v), each counted once, which
    /// symmetrising merged into one edge: half of the arcs the reverses duplicated.
    reciprocal_pairs: u64,
}

/// Write the out-edge files and, if planned, the in-edge files.
fn write_graph<R: SortRecord>(
    sorter: ExternalSorter<R>,
    plan: GraphPlan<'_>,
) -> Result<Written, StoreError> {
    if plan.adds_reverses {
        return write_symmetrized(sorter, plan);
    }
    let (entries, arcs) = write_directed(sorter, plan)?;
    Ok(Written {
        entries,
        arcs,
        distinct_input_arcs: arcs,
        reciprocal_pairs: 0,
    })
}

/// Write the out-edge files and, if planned, the in-edge files; returns their entries and m.
fn write_directed<R: SortRecord>(
    sorter: ExternalSorter<R>,
    plan: GraphPlan<'_>,
) -> Result<(Vec<FileEntry>, u64), StoreError> {
    let csr =
        |names: &CsrFileNames| CsrWriter::create(plan.dir, names, plan.vertices, plan.weight_type);
    let mut out_edges = csr(&OUT_EDGES)?;
    let progress = plan.progress;
    progress.phase("sorting", None);
    let sorted = sorter.finish()?;
    // The arcs handed to a writer so far in the current phase (the writer may run on a thread
    // of its own).
    let phases = WritePhases::new(progress);
    let count = |chunk_len: usize| phases.count(chunk_len);
    let start_phase = |name: &str| phases.start(name, plan.arcs_bound);
    start_phase("writing the lists");
    match sorted {
        Sorted::InMemory(mut records) => {
            // Everything fits in one buffer: write from memory, then re-key the same buffer
            // as (dst, src) and sort it again for the transpose. No second buffer needed.
            for_each_chunk_of(&records, |chunk| {
                count(chunk.len());
                out_edges.push(chunk)
            })?;
            let (mut entries, arcs) = out_edges.finish()?;
            if plan.transpose_space.is_some() {
                check_cancel()?;
                progress.phase("sorting the transpose", None);
                for record in records.iter_mut() {
                    *record = record.transposed();
                }
                sort_records(&mut records);
                let mut in_edges = csr(&IN_EDGES)?;
                start_phase("writing the transpose");
                for_each_chunk_of(&records, |chunk| {
                    count(chunk.len());
                    in_edges.push(chunk)
                })?;
                entries.extend(in_edges.finish()?.0);
            }
            Ok((entries, arcs))
        }
        sorted @ Sorted::Runs(..) => {
            // Out-edges stream out of the merge; with a transpose, the same stream, reversed,
            // fills a second sorter. The budget is shared: a third for the merge's read
            // buffers, the rest for the second sorter (whose sort may need 1.5x its buffer).
            // Merging and writing run on two threads.
            let second_sort_bytes = plan.second_sort_buffer_bytes();
            let Some(space) = plan.transpose_space else {
                let merge_budget = plan.memory_bytes / 2;
                pipelined(
                    |emit| sorted.for_each_chunk(merge_budget, emit),
                    |chunk| {
                        count(chunk.len());
                        out_edges.push(chunk)
                    },
                )?;
                return out_edges.finish();
            };
            let mut in_sorter = ExternalSorter::<R>::new(second_sort_bytes, space);
            pipelined(
                |emit| sorted.for_each_chunk(plan.memory_bytes / 3, emit),
                |chunk| {
                    count(chunk.len());
                    out_edges.push(chunk)?;
                    chunk
                        .iter()
                        .try_for_each(|r| in_sorter.push(r.transposed()))
                },
            )?;
            let (mut entries, arcs) = out_edges.finish()?;
            let mut in_edges = csr(&IN_EDGES)?;
            progress.phase("sorting the transpose", None);
            let in_sorted = in_sorter.finish()?;
            start_phase("writing the transpose");
            pipelined(
                |emit| in_sorted.for_each_chunk(plan.memory_bytes / 2, emit),
                |chunk| {
                    count(chunk.len());
                    in_edges.push(chunk)
                },
            )?;
            entries.extend(in_edges.finish()?.0);
            Ok((entries, arcs))
        }
    }
}

/// Write a symmetrised graph's lists: the union of D, the input's distinct arcs, and D's
/// reverses. D is sorted and freed of duplicates first, so that the arcs its reverses
/// duplicate (the input's reciprocal pairs, and kept self-loops) are counted apart from
/// the input's own repeats.
///
/// In memory, D fills the lower half of the sorter's vector (`ExternalSorter::with_half_free`); the
/// reverses go into the upper half and are sorted there, and the halves are merged into the
/// writer. Out of core, D streams out of the merge of its runs into one run file while its
/// reverses fill a second sorter; that file and the second sorter's runs are then merged.
/// The budget is shared as in `write_directed`'s transpose.
fn write_symmetrized<R: SortRecord>(
    sorter: ExternalSorter<R>,
    plan: GraphPlan<'_>,
) -> Result<Written, StoreError> {
    let progress = plan.progress;
    let mut lists = CsrWriter::create(plan.dir, &OUT_EDGES, plan.vertices, plan.weight_type)?;
    progress.phase("sorting", None);
    let sorted = sorter.finish()?;
    let phases = WritePhases::new(progress);
    let count = |chunk_len: usize| phases.count(chunk_len);
    let start_phase = |name: &str, total: u64| phases.start(name, total);
    let loops_in = |chunk: &[R]| {
        let is_loop = |key: u64| source_of(key) == target_of(key);
        chunk.iter().filter(|r| is_loop(r.arc_key())).count() as u64
    };
    let (distinct, loops) = match sorted {
        Sorted::InMemory(mut records) => {
            let distinct = records.len();
            let loops = loops_in(&records);
            check_cancel()?;
            progress.phase("sorting the reverses", None);
            // Within the vector's capacity: D has at most half of it.
            records.extend_from_within(..);
            let (forward, reverse) = records.split_at_mut(distinct);
            reverse.iter_mut().for_each(|r| *r = r.transposed());
            sort_records(reverse);
            start_phase("writing the lists", 2 * distinct as u64);
            pipelined(
                |emit| merge_sorted_pair(forward, reverse, emit),
                |chunk| {
                    count(chunk.len());
                    lists.push(chunk)
                },
            )?;
            (distinct as u64, loops)
        }
        sorted @ Sorted::Runs(..) => {
            let mut forward_space = RunSpace::new(plan.runs_parent, plan.name, "forward-run");
            let mut forward = RunWriter::<R>::create(&mut forward_space)?;
            let reverse_space = RunSpace::new(plan.runs_parent, plan.name, "reverse-runs");
            let mut reverses =
                ExternalSorter::<R>::new(plan.second_sort_buffer_bytes(), reverse_space);
            let (mut distinct, mut loops) = (0u64, 0u64);
            start_phase("merging the sorted arcs", plan.arcs_bound / 2);
            pipelined(
                |emit| sorted.for_each_chunk(plan.memory_bytes / 3, emit),
                |chunk| {
                    count(chunk.len());
                    distinct += chunk.len() as u64;
                    loops += loops_in(chunk);
                    forward.append(chunk)?;
                    chunk.iter().try_for_each(|r| reverses.push(r.transposed()))
                },
            )?;
            let forward = forward.finish()?;
            progress.phase("sorting the reverses", None);
            let (mut runs, mut reverse_space) = match reverses.finish()? {
                Sorted::Runs(runs, space) => (runs, Some(space)),
                Sorted::InMemory(records) => {
                    let mut run = RunWriter::<R>::create(&mut forward_space)?;
                    run.append(&records)?;
                    (vec![run.finish()?], None)
                }
            };
            runs.push(forward);
            // Merges of many runs stage longer ones beside the reverses' runs, or beside
            // the forward run; either folder outlives the merge.
            let space = reverse_space.as_mut().unwrap_or(&mut forward_space);
            start_phase("writing the lists", 2 * distinct);
            pipelined(
                |emit| merge_runs::<R>(runs, space, plan.memory_bytes / 2, emit),
                |chunk| {
                    count(chunk.len());
                    lists.push(chunk)
                },
            )?;
            (distinct, loops)
        }
    };
    let (entries, arcs) = lists.finish()?;
    // arcs = 2 distinct - loops - 2 reciprocal (see `Written::reciprocal_pairs`).
    let merged = (2 * distinct)
        .checked_sub(arcs + loops)
        .filter(|merged| merged % 2 == 0)
        .ok_or_else(|| {
            StoreError::invalid_input(format!(
                "symmetrising {distinct} distinct arcs ({loops} self-loops) gave {arcs} arcs"
            ))
        })?;
    Ok(Written {
        entries,
        arcs,
        distinct_input_arcs: distinct,
        reciprocal_pairs: merged / 2,
    })
}

fn write_labels(dir: &Path, labels: &Labels, vertices: u64) -> Result<FileEntry, StoreError> {
    if labels.len() as u64 != vertices {
        return Err(StoreError::invalid_input(format!(
            "{} labels for {vertices} vertices (need one label per vertex)",
            labels.len()
        )));
    }
    let mut out = HashedFileWriter::create(dir, files::LABELS)?;
    let mut write_line = |id: usize, label: &str| -> Result<(), StoreError> {
        if label.contains(['\n', '\r']) {
            return Err(StoreError::invalid_input(format!(
                "the label of vertex {id} contains a line break"
            )));
        }
        out.write_bytes(label.as_bytes())?;
        out.write_bytes(b"\n")
    };
    match labels {
        Labels::Given(labels) => {
            for (id, label) in labels.iter().enumerate() {
                write_line(id, label)?;
            }
        }
        Labels::Renumbered { previous, names } => {
            let mut number = String::new();
            for (id, &old) in previous.iter().enumerate() {
                match names {
                    Some(names) => {
                        let label = names.get(old as usize).ok_or_else(|| {
                            StoreError::invalid_input(format!(
                                "vertex {id} was vertex {old}, which has no label"
                            ))
                        })?;
                        write_line(id, label)?
                    }
                    None => {
                        use std::fmt::Write;
                        number.clear();
                        let _ = write!(number, "{old}");
                        write_line(id, &number)?;
                    }
                }
            }
        }
    }
    out.finish()
}

pub(crate) fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<(), StoreError> {
    let json = serde_json::to_vec_pretty(manifest)
        .map_err(|e| StoreError::invalid_input(format!("cannot serialise the manifest: {e}")))?;
    let mut out = HashedFileWriter::create(dir, MANIFEST_FILE)?;
    out.write_bytes(&json)?;
    out.write_bytes(b"\n")?;
    out.finish()?;
    Ok(())
}
