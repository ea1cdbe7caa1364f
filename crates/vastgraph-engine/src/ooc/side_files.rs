//! The side files that hold the first ids of each list, for passes that need no more of a list
//! than its first few ids:
//!
//! - **first neighbours** (`first_neighbors.u32`, 4 bytes a vertex): each vertex's smallest
//!   out-neighbour. BFS's bottom-up step stops each unvisited vertex at its first neighbour in
//!   the frontier, and on a degree-ordered store that is nearly always the first neighbour of
//!   all (a hub). In memory that costs one arc a vertex; out of core the pull must read whole
//!   lists (on Kronecker 25, 1.66 GB of lists to find 14.5M parents). Reading this file instead
//!   costs 134 MB, and only the lists of the vertices it does not settle are read afterwards.
//!   CC's Afforest-style sampling links each vertex to its first neighbour the same way.
//! - **list heads** (`list_heads.u32`): the first 8 ids of each list, one vertex after the
//!   other. In any other order a vertex's first neighbour is a random one, and the vertices it
//!   does not settle (4.4M of Kronecker 25's 16.4M in its first pull) have lists on every page
//!   of the file: their heads are 286 MiB where their pages are 2.4 GiB. A list of 8 arcs or
//!   fewer is whole in its head, and can go to the cache of short lists from there.
//!
//! The kernels take these values in place of the lists, so a damaged file must end the run with
//! an error, not give a wrong answer: each page is checked against its page checksum as it
//! arrives. A store without page checksums has the first neighbours streamed whole, in order,
//! so that the whole file's checksum is checked on every use, and its list heads left unused.
//! Each value is also checked to be a vertex before it is used as an index.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use rayon::prelude::*;
use vastgraph_io::{DataFile, Extent, ALIGN};
use vastgraph_store::manifest::{files, list_head_len, NO_NEIGHBOR};
use xxhash_rust::xxh3::Xxh3;

use super::bits::{any_in_range, for_each_in_range};
use super::cache::Batch;
use super::graph::OocGraph;
use super::scan::{cast, IterationRecord};
use crate::bitmap::{Bitmap, WORDS_PER_TASK};
use crate::Vertex;

/// What [`IterationRecord::mode`] says of a pass over the first neighbours.
pub const FIRST_NEIGHBORS_MODE: &str = "first-neighbours";
/// What [`IterationRecord::mode`] says of a pass over a sample of the first neighbours
/// ([`OocGraph::sample_first_neighbors`]).
pub const FIRST_NEIGHBORS_SAMPLE_MODE: &str = "first-neighbours-sample";
/// The modes of the passes over side files, beside the passes over the lists.
pub const SIDE_FILE_MODES: [&str; 3] = [
    FIRST_NEIGHBORS_MODE,
    FIRST_NEIGHBORS_SAMPLE_MODE,
    LIST_HEADS_MODE,
];
/// Pages of the first neighbours' file a sample takes one of: on Kronecker 25, 128 pages (512
/// KiB, 131k vertices) of 32,768.
pub const SAMPLE_EVERY_PAGES: u64 = 256;
/// What [`IterationRecord::mode`] says of a pass over the list heads.
pub const LIST_HEADS_MODE: &str = "list-heads";

/// Vertices a task of a side file's pass takes: whole bitmap words, as everywhere the work
/// follows the degrees.
const TASK_VERTICES: usize = 64 * WORDS_PER_TASK;

/// Where each list's head starts in `list_heads.u32`: the entry of every 64th vertex's head (an
/// eighth of a word a vertex: 4 MiB on Kronecker 25); a vertex's own is found by adding its
/// group's earlier heads, from the offsets.
pub(crate) struct HeadIndex {
    group_starts: Vec<u64>,
}

const GROUP: usize = 64;

impl HeadIndex {
    pub fn build(offsets: &[u64]) -> HeadIndex {
        let n = offsets.len() - 1;
        let sizes: Vec<u64> = (0..n.div_ceil(GROUP))
            .into_par_iter()
            .map(|g| head_ids(offsets, g * GROUP, ((g + 1) * GROUP).min(n)))
            .collect();
        let mut group_starts = Vec::with_capacity(sizes.len() + 1);
        let mut at = 0;
        group_starts.push(0);
        for size in sizes {
            at += size;
            group_starts.push(at);
        }
        HeadIndex { group_starts }
    }

    /// DRAM bytes held for `n` vertices.
    pub fn bytes_for(n: usize) -> u64 {
        8 * (n.div_ceil(GROUP) as u64 + 1)
    }

    /// Ids in all the heads.
    pub fn total(&self) -> u64 {
        *self.group_starts.last().expect("at least one group start")
    }

    /// Where `v`'s head starts (`v` in 0..=n).
    fn start(&self, offsets: &[u64], v: usize) -> u64 {
        let g = v / GROUP;
        self.group_starts[g] + head_ids(offsets, g * GROUP, v)
    }

    /// The first vertex whose head starts at or after entry `entry` (n if none does).
    fn vertex_at(&self, offsets: &[u64], entry: u64) -> usize {
        let n = offsets.len() - 1;
        // The last group starting at or before `entry` (the groups before it that start there
        // too have only empty heads), then its vertices.
        let g = self
            .group_starts
            .partition_point(|&s| s <= entry)
            .saturating_sub(1);
        let mut v = g * GROUP;
        let mut at = self.group_starts[g];
        while v < n && at < entry {
            at += list_head_len(offsets[v + 1] - offsets[v]);
            v += 1;
        }
        v
    }
}

/// Ids in the heads of vertices `lo..hi`.
fn head_ids(offsets: &[u64], lo: usize, hi: usize) -> u64 {
    (lo..hi)
        .map(|v| list_head_len(offsets[v + 1] - offsets[v]))
        .sum()
}

/// The opened side file of list heads and its index, built on first use: pagerank, sssp and
/// mis never read heads, and on Kronecker 25 the index is a walk over 268 MB of offsets. Its
/// bytes are reserved when the store is opened.
pub(crate) struct ListHeads {
    pub file: DataFile,
    index: OnceLock<HeadIndex>,
}

impl ListHeads {
    pub fn new(file: DataFile) -> ListHeads {
        ListHeads {
            file,
            index: OnceLock::new(),
        }
    }

    /// The index, built now if it was not; fails if the file's length is not what the lists'
    /// degrees make the heads.
    fn index(&self, offsets: &[u64]) -> anyhow::Result<&HeadIndex> {
        let index = self.index.get_or_init(|| HeadIndex::build(offsets));
        anyhow::ensure!(
            4 * index.total() == self.file.len(),
            "{}: {} bytes, but the heads of the lists (up to {} ids each) take {}",
            self.file.path().display(),
            self.file.len(),
            vastgraph_store::manifest::LIST_HEAD_IDS,
            4 * index.total()
        );
        Ok(index)
    }
}

/// One read of a side file: where it starts, how many bytes are read, and the vertices whose
/// values start in it (their values may run into the read's last page, no further).
#[derive(Clone, Copy)]
struct SideRead {
    offset: u64,
    len: u64,
    vertices: (usize, usize),
}

impl OocGraph {
    /// Whether the store has the side file of first neighbours (stores written before it
    /// existed do not).
    pub fn has_first_neighbors(&self) -> bool {
        self.first_neighbors.is_some()
    }

    /// Whether the store has the side file of list heads, with page checksums (stores written
    /// before it existed do not).
    pub fn has_list_heads(&self) -> bool {
        self.list_heads.is_some()
    }

    /// Reads the side file of first neighbours and calls `visit(v, first)` for each vertex `v`
    /// of `active` that has out-arcs, from several threads at once. With page checksums only
    /// the chunks holding an active vertex are read (on a degree-ordered store the vertices
    /// without arcs, half of Kronecker 25's, come last: half the file); without them the whole
    /// file is read, for its checksum. Fails if the store has no such file, if a value is
    /// neither a vertex nor [`NO_NEIGHBOR`], or if the file's checksum is not the manifest's,
    /// in which case some calls may already have been made: the caller must give up its
    /// result.
    pub fn scan_first_neighbors<V>(
        &self,
        active: &Bitmap,
        visit: V,
    ) -> anyhow::Result<IterationRecord>
    where
        V: Fn(Vertex, Vertex) + Sync,
    {
        self.first_neighbors_pass(active, None, visit)
    }

    /// [`OocGraph::scan_first_neighbors`] over a sample of the file: one page in every
    /// [`SAMPLE_EVERY_PAGES`] (at least one), evenly spaced, read at depth; only the active
    /// vertices in those pages are visited. It tells a kernel, for a few milliseconds of reads,
    /// what a whole pass would find, and where (a page is 1,024 consecutive vertices, whose
    /// lists lie together). Recorded as [`FIRST_NEIGHBORS_SAMPLE_MODE`]. Fails as a whole pass
    /// does, and if the file has no page checksums (a sample cannot check the whole file's).
    pub fn sample_first_neighbors<V>(
        &self,
        active: &Bitmap,
        visit: V,
    ) -> anyhow::Result<IterationRecord>
    where
        V: Fn(Vertex, Vertex) + Sync,
    {
        self.first_neighbors_pass(active, Some(SAMPLE_EVERY_PAGES), visit)
    }

    /// What the cost model expects [`OocGraph::scan_first_neighbors`] over `active` to take.
    /// None when the store has no first neighbours.
    pub fn first_neighbors_seconds(&self, active: &Bitmap) -> anyhow::Result<Option<f64>> {
        let Some(file) = &self.first_neighbors else {
            return Ok(None);
        };
        let reads = self.first_neighbor_reads(file, active, None)?;
        Ok(Some(self.side_reads_seconds(&reads)))
    }

    /// The reads of a pass over the first neighbours of `active`: whole buffers, so that the
    /// chunks stay page-aligned and no page is read twice; with page checksums only those
    /// holding an active vertex. With `sample_every`, single pages instead, one in that many.
    fn first_neighbor_reads(
        &self,
        file: &DataFile,
        active: &Bitmap,
        sample_every: Option<u64>,
    ) -> anyhow::Result<Vec<SideRead>> {
        let checked_by_page = file.has_check();
        anyhow::ensure!(
            checked_by_page || sample_every.is_none(),
            "{}: a sample of {} needs page checksums",
            self.dir.display(),
            files::FIRST_NEIGHBORS
        );
        let chunk = match sample_every {
            Some(_) => ALIGN as u64,
            None => self.buffer_bytes()?,
        };
        let len = file.len();
        let chunks = len.div_ceil(chunk);
        let picked: Vec<u64> = match sample_every {
            None => (0..chunks).collect(),
            // The middle chunk of each of `picks` equal stretches of the file.
            Some(every) => {
                let picks = (chunks / every).max(1);
                (0..picks)
                    .map(|k| (2 * k + 1) * chunks / (2 * picks))
                    .collect()
            }
        };
        Ok(picked
            .into_iter()
            .map(|i| {
                let (offset, len) = (i * chunk, chunk.min(len - i * chunk));
                let vertices = ((offset / 4) as usize, ((offset + len) / 4) as usize);
                SideRead {
                    offset,
                    len,
                    vertices,
                }
            })
            .filter(|r| {
                !checked_by_page
                    || any_in_range(active, r.vertices.0 as Vertex, r.vertices.1 as Vertex)
            })
            .collect())
    }

    fn first_neighbors_pass<V>(
        &self,
        active: &Bitmap,
        sample_every: Option<u64>,
        visit: V,
    ) -> anyhow::Result<IterationRecord>
    where
        V: Fn(Vertex, Vertex) + Sync,
    {
        let file = self.first_neighbors.as_ref().ok_or_else(|| {
            anyhow::anyhow!(
                "{}: the store has no {}",
                self.dir.display(),
                files::FIRST_NEIGHBORS
            )
        })?;
        let n = self.num_vertices();
        let reads = self.first_neighbor_reads(file, active, sample_every)?;
        let compute = |read: &SideRead, bytes: &[u8]| -> io::Result<u64> {
            let firsts: &[u32] = cast(bytes);
            for_each_task(read.vertices, |lo, hi| {
                let mut visited = 0;
                let mut bad = None;
                for_each_in_range(active, lo as Vertex, hi as Vertex, |v| {
                    let first = firsts[v as usize - read.vertices.0];
                    // A vertex without arcs. (Its degree is not looked up: on Kronecker 25
                    // that is 268 MB of offsets to walk. A damaged entry that passes as this
                    // or as another vertex is caught by the checksum before the run ends.)
                    if bad.is_some() || first == NO_NEIGHBOR {
                        return;
                    }
                    if first as usize >= n {
                        bad = Some((v, first));
                        return;
                    }
                    visit(v, first);
                    visited += 1;
                });
                match bad {
                    None => Ok(visited),
                    Some((v, first)) => Err(self.side_file_error(
                        file,
                        v,
                        format!("its first neighbour is recorded as {first}"),
                    )),
                }
            })
        };
        let whole_checksum = (!file.has_check()).then_some(files::FIRST_NEIGHBORS);
        let mode = match sample_every {
            Some(_) => FIRST_NEIGHBORS_SAMPLE_MODE,
            None => FIRST_NEIGHBORS_MODE,
        };
        self.scan_side_file(file, mode, active, &reads, whole_checksum, compute)
    }

    /// The modelled seconds of a side file's reads, at the device's rates.
    fn side_reads_seconds(&self, reads: &[SideRead]) -> f64 {
        let bytes = reads.iter().map(|r| r.len).sum();
        self.profile.cost_seconds(bytes, reads.len() as u64)
    }

    /// What the cost model expects [`OocGraph::scan_list_heads`] over `active` to take: the
    /// chunks of the file holding an active vertex's head, at the device's rates. None when
    /// the store has no list heads.
    pub fn list_heads_seconds(&self, active: &Bitmap) -> anyhow::Result<Option<f64>> {
        let Some(heads) = &self.list_heads else {
            return Ok(None);
        };
        let reads = self.list_head_reads(heads, active)?;
        Ok(Some(self.side_reads_seconds(&reads)))
    }

    /// The reads of a pass over the heads of `active`: chunks of one buffer, each starting a
    /// page before the previous one ends, so that a head starting in a chunk (at most 32
    /// bytes) ends in it; only those holding an active vertex's head.
    fn list_head_reads(&self, heads: &ListHeads, active: &Bitmap) -> anyhow::Result<Vec<SideRead>> {
        let chunk = self.buffer_bytes()?;
        let stride = chunk - ALIGN as u64;
        let len = heads.file.len();
        let offsets = self.offsets();
        let index = heads.index(offsets)?;
        Ok((0..len.div_ceil(stride))
            .into_par_iter()
            .map(|i| {
                let offset = i * stride;
                let vertices = (
                    index.vertex_at(offsets, offset / 4),
                    index.vertex_at(offsets, ((offset + stride) / 4).min(len / 4)),
                );
                SideRead {
                    offset,
                    len: chunk.min(len - offset),
                    vertices,
                }
            })
            .filter(|r| any_in_range(active, r.vertices.0 as Vertex, r.vertices.1 as Vertex))
            .collect())
    }

    /// Reads the list heads of the vertices of `active` and calls `visit(v, head)` for each
    /// that has out-arcs, from several threads at once: `head` is the first
    /// [`LIST_HEAD_IDS`](vastgraph_store::manifest::LIST_HEAD_IDS) ids of `v`'s list, all of
    /// it when `head.len() == degree(v)`. When `visit` returns true (`v` will be active in the
    /// next pass), such a whole list is added to the cache of short lists, as a selective pass
    /// would, if it has room and the run reads no weights (a head has none). Fails as
    /// [`OocGraph::scan_first_neighbors`] does, or if the store has no list heads.
    pub fn scan_list_heads<V>(&self, active: &Bitmap, visit: V) -> anyhow::Result<IterationRecord>
    where
        V: Fn(Vertex, &[Vertex]) -> bool + Sync,
    {
        let heads = self.list_heads.as_ref().ok_or_else(|| {
            anyhow::anyhow!(
                "{}: the store has no {} with page checksums",
                self.dir.display(),
                files::LIST_HEADS
            )
        })?;
        let n = self.num_vertices();
        let offsets = self.offsets();
        let reads = self.list_head_reads(heads, active)?;
        let index = heads.index(offsets)?;
        let caching = self.cache.is_enabled() && self.weights.is_none();
        let compute = |read: &SideRead, bytes: &[u8]| -> io::Result<u64> {
            let ids: &[u32] = cast(bytes);
            let first_entry = read.offset / 4;
            for_each_task(read.vertices, |lo, hi| {
                let mut batch = Batch::default();
                let (mut at, mut cursor) = (index.start(offsets, lo), lo);
                let mut visited = 0;
                let mut bad = None;
                for_each_in_range(active, lo as Vertex, hi as Vertex, |v| {
                    let v_ = v as usize;
                    if bad.is_some() {
                        return;
                    }
                    at += head_ids(offsets, cursor, v_);
                    cursor = v_;
                    let degree = offsets[v_ + 1] - offsets[v_];
                    let len = list_head_len(degree) as usize;
                    if len == 0 {
                        return;
                    }
                    // Only a wrong index could put a head outside its read.
                    let Some(head) = at
                        .checked_sub(first_entry)
                        .and_then(|from| ids.get(from as usize..from as usize + len))
                    else {
                        bad = Some((v, format!("its head at entry {at} is not in the read")));
                        return;
                    };
                    if let Some(&id) = head.iter().find(|&&id| id as usize >= n) {
                        bad = Some((v, format!("its head holds {id}")));
                        return;
                    }
                    let again = visit(v, head);
                    visited += len as u64;
                    let whole = len as u64 == degree;
                    if caching && again && whole && self.cache.admits(v, len, |_| true) {
                        batch.push(v, head, None);
                    }
                });
                if !batch.is_empty() {
                    self.cache.insert(batch);
                }
                match bad {
                    None => Ok(visited),
                    Some((v, reason)) => Err(self.side_file_error(&heads.file, v, reason)),
                }
            })
        };
        self.scan_side_file(&heads.file, LIST_HEADS_MODE, active, &reads, None, compute)
    }

    pub(crate) fn buffer_bytes(&self) -> anyhow::Result<u64> {
        let engine = self
            .io
            .lock()
            .map_err(|_| anyhow::anyhow!("the I/O engine is poisoned"))?;
        Ok(engine.config().buffer_bytes as u64)
    }

    fn side_file_error(&self, file: &DataFile, v: Vertex, reason: String) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: vertex {v} has {} arcs, but {reason} (n = {})",
                file.path().display(),
                self.degree(v),
                self.num_vertices()
            ),
        )
    }

    /// One pass over a side file: issues `reads` through the I/O pool and hands each to
    /// `compute`, which returns the values it used. With `whole_checksum` (the file's name in
    /// the manifest), the file's checksum is taken over the reads, which must then cover the
    /// file in order, and compared with the manifest's at the end.
    fn scan_side_file<C>(
        &self,
        file: &DataFile,
        mode: &'static str,
        active: &Bitmap,
        reads: &[SideRead],
        whole_checksum: Option<&str>,
        compute: C,
    ) -> anyhow::Result<IterationRecord>
    where
        C: Fn(&SideRead, &[u8]) -> io::Result<u64> + Sync,
    {
        let started = Instant::now();
        let mut engine = self
            .io
            .lock()
            .map_err(|_| anyhow::anyhow!("the I/O engine is poisoned"))?;
        let needed = reads.iter().map(|r| r.len).sum();
        let requests = reads.iter().map(|read| {
            let extent = Extent {
                offset: read.offset,
                len: read.len as usize,
            };
            (extent, *read)
        });
        let hasher = whole_checksum.map(|_| Mutex::new(Xxh3::new()));
        let handed = AtomicU64::new(0);
        // A whole-file checksum takes the reads in order; otherwise each is used as it arrives,
        // several at once.
        let totals = engine.run_one_file(file, requests, hasher.is_some(), |loaded| {
            if let Some(hasher) = &hasher {
                hasher
                    .lock()
                    .map_err(|_| io::Error::other("the checksum is poisoned"))?
                    .update(loaded.parts[0]);
            }
            handed.fetch_add(compute(&loaded.payload, loaded.parts[0])?, Relaxed);
            Ok(())
        })?;
        drop(engine);
        if let (Some(hasher), Some(name)) = (hasher, whole_checksum) {
            let hasher = hasher
                .into_inner()
                .map_err(|_| anyhow::anyhow!("the checksum is poisoned"))?;
            let expected = self
                .manifest
                .file(name)
                .map(|entry| entry.xxh3.clone())
                .unwrap_or_default();
            let actual = vastgraph_store::format_xxh3(hasher.digest());
            anyhow::ensure!(
                actual == expected,
                "{}: checksum {actual} is not the manifest's {expected} (the file is damaged)",
                file.path().display()
            );
        }
        let record = IterationRecord {
            mode,
            active_vertices: active.count_ones() as u64,
            selective: None,
            streaming: None,
            bytes_read: totals.bytes_read,
            requests: totals.requests,
            bytes_needed: needed,
            arcs_processed: handed.into_inner(),
            reentries: 0,
            cached_vertices: 0,
            cached_bytes: 0,
            seconds: started.elapsed().as_secs_f64(),
            io_wait_seconds: totals.wait_seconds,
            compute_seconds: totals.compute_seconds,
        };
        let summary = format!(
            "{} active; {mode} read ({} KiB in {:.3} s, waiting {:.3} s)",
            record.active_vertices,
            record.bytes_read >> 10,
            record.seconds,
            record.io_wait_seconds,
        );
        Ok(self.keep_record(record, &summary))
    }
}

/// Runs `task(lo, hi)` over `vertices` cut at multiples of [`TASK_VERTICES`], on several
/// threads, and sums what the tasks return.
fn for_each_task(
    vertices: (usize, usize),
    task: impl Fn(usize, usize) -> io::Result<u64> + Sync,
) -> io::Result<u64> {
    let (lo, hi) = vertices;
    let first = lo / TASK_VERTICES;
    (first..hi.div_ceil(TASK_VERTICES))
        .into_par_iter()
        .with_max_len(1)
        .map(|t| {
            task(
                (t * TASK_VERTICES).max(lo),
                ((t + 1) * TASK_VERTICES).min(hi),
            )
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))
}
