//! The tiles of a store on disk ([`vastgraph_store::tiles`]): the index in DRAM, the arcs
//! streamed from `tile_edges.u32` in file order, one chunk while the next is read.
//!
//! A pass reads the file once, sequentially, in chunks of a fixed number of arcs; a chunk may
//! end inside a tile, whose rest then comes with the next chunk. Within a chunk the columns
//! are folded in parallel, each by one task, so each target's sum still takes its in-arcs in
//! ascending source order, as in memory. Each chunk is checked before it is used: a tile's
//! pages against their checksums by the task that folds it, just before it does, so the fold
//! reads them from the cache that the checksum brought them into ([`ChunkPages`]); then every
//! arc as it is folded, by the rule [`validate_edges`] applies to an opened store (which then
//! names the bad arc). A damaged file is an error naming it, never a wrong sum.

use std::path::{Path, PathBuf};
use std::sync::mpsc::sync_channel;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Context;
use rayon::prelude::*;
use vastgraph_io::{AlignedBuf, DataFile, ALIGN};
use vastgraph_store::manifest::{files, Manifest, TileInfo};
use vastgraph_store::tiles::{block_len, validate_edges, validate_index, Tile};

use super::graph::{read_le_file, LeInteger};
use super::scan::IterationRecord;
use crate::tiles::{
    arcs_in_order, fold_stripe, gather_column, stripe_columns, sum_tile_checked, zero_rows,
    ArcValue, Gathered,
};

/// The largest chunk a pass reads at once. Large enough for the device's full sequential
/// bandwidth with direct I/O, and for a chunk to hold a stripe of columns a thread: a chunk of
/// fewer columns is cut into narrower stripes, which stream the values more often (Kronecker
/// 24 within 1 GiB: 8.5 s of computing in 5 passes with 32 MiB chunks, stripes of 2 columns).
pub(crate) const MAX_CHUNK_BYTES: u64 = 128 << 20;
/// The smallest chunk worth streaming; a budget that leaves less room reads the lists instead.
pub(crate) const MIN_CHUNK_BYTES: u64 = 1 << 20;

/// What a user can do about damaged tiles, added to every error they cause.
pub(crate) const REMEDY: &str =
    "the store's tiles are damaged: `vastgraph tile` rebuilds them; `vastgraph run --no-tiles` \
     runs on the lists";

/// What folding a chunk leaves: its last arc when it ends inside a tile, the arcs folded (a
/// tile of a row of zeros is only checked), and `apply`'s results for the columns it
/// completed.
type Folded<R> = (Option<u32>, u64, Vec<(usize, R)>);

/// The column a chunk ended inside, and its tiles' arcs so far, by tile.
type OpenColumn = (usize, Vec<(usize, Vec<u32>)>);

/// The pages of `tile_edges.u32` that a chunk was read into, not yet checked: whole pages from
/// the page-aligned file offset `start` (the file's last one possibly shorter), covering the
/// chunk's arcs. Each must pass [`ChunkPages::check`] before its arcs are used.
struct ChunkPages<'a> {
    file: &'a DataFile,
    start: u64,
    bytes: &'a [u8],
}

impl ChunkPages<'_> {
    /// Checks, against their checksums, the pages that hold the file's bytes `from..to` (all
    /// within the chunk); naming the file and the damaged page.
    fn check(&self, from: u64, to: u64) -> anyhow::Result<()> {
        let page = ALIGN as u64;
        let first = (from / page * page).max(self.start) - self.start;
        let stop = (to.next_multiple_of(page) - self.start).min(self.bytes.len() as u64);
        if first >= stop {
            return Ok(());
        }
        self.file
            .check(
                self.start + first,
                &self.bytes[first as usize..stop as usize],
            )
            .with_context(|| format!("reading {}", self.file.path().display()))
    }

    /// Checks every page, on every thread.
    fn check_all(&self) -> anyhow::Result<()> {
        // 64 pages a task, as the store's own check of a whole file.
        let task = 64 * ALIGN;
        self.bytes
            .par_chunks(task)
            .enumerate()
            .try_for_each(|(i, _)| {
                let from = self.start + (i * task) as u64;
                self.check(from, from + task as u64)
            })
    }
}

/// What a pass over the file read ([`OocTiles::stream`]).
#[derive(Default)]
struct Streamed {
    vertices: u64,
    arcs: u64,
    bytes_read: u64,
    requests: u64,
    io_wait: f64,
}

impl Streamed {
    /// The pass's record, started at `started`, having processed `arcs_processed` arcs.
    fn record(&self, started: Instant, arcs_processed: u64) -> IterationRecord {
        let seconds = started.elapsed().as_secs_f64();
        IterationRecord {
            mode: "streaming",
            active_vertices: self.vertices,
            selective: None,
            streaming: None,
            bytes_read: self.bytes_read,
            requests: self.requests,
            bytes_needed: self.arcs * 4,
            arcs_processed,
            reentries: 0,
            cached_vertices: 0,
            cached_bytes: 0,
            seconds,
            io_wait_seconds: self.io_wait,
            compute_seconds: seconds - self.io_wait,
        }
    }
}

pub(crate) struct OocTiles {
    dir: PathBuf,
    info: TileInfo,
    vertices: u64,
    columns: Vec<u64>,
    rows: Vec<u32>,
    offsets: Vec<u64>,
    edges: DataFile,
    chunk_arcs: u64,
    /// The two chunk buffers, allocated by the first pass and kept for the next ones.
    buffers: Mutex<Vec<AlignedBuf>>,
}

/// One file of the tiles' index of the store in `dir`, its entries counted from the manifest
/// and its pages checked.
fn read_index_file<T: LeInteger>(
    dir: &Path,
    manifest: &Manifest,
    name: &str,
) -> anyhow::Result<Vec<T>> {
    let info = manifest.tiles.context("the store has no tiles")?;
    let count = match name {
        files::TILE_COLUMNS => manifest.vertices.div_ceil(1 << info.side_log2) as usize + 1,
        files::TILE_ROWS => info.tiles as usize,
        _ => info.tiles as usize + 1,
    };
    let entry = manifest
        .file(name)
        .with_context(|| format!("{name} is not listed"))?;
    let sums = vastgraph_store::PageSums::load(dir, entry)?;
    read_le_file(&dir.join(name), count, sums)
}

/// The DRAM of a gather over tiles whose columns start at `columns` (tile numbers) and whose
/// tiles start at `offsets` (arcs), on `threads` threads ([`OocTiles::gather_bytes`]).
fn gather_bytes(columns: &[u64], offsets: &[u64], side_log2: u32, threads: usize) -> u64 {
    let count = columns.len().saturating_sub(1);
    let arcs = |c: usize| offsets[columns[c + 1] as usize] - offsets[columns[c] as usize];
    let largest = (0..count).map(arcs).max().unwrap_or(0);
    let tiles = (0..count)
        .map(|c| columns[c + 1] - columns[c])
        .max()
        .unwrap_or(0);
    let side = 1u64 << side_log2;
    let handles = 48 * tiles;
    threads as u64 * (16 * side + 8 * largest + handles) + 4 * largest + handles + count as u64
}

/// The DRAM a kernel that cannot run without the tiles of the store in `dir` needs for them:
/// their index, two chunks of [`MIN_CHUNK_BYTES`] and, when it gathers, the gather's buffers on
/// this many threads; reserved in its memory plan so that the minimum a refused budget names
/// streams them. Reads the index's columns and offsets (their pages checked) to size the
/// gather; the open validates them.
pub fn tiles_reserve(dir: &Path, manifest: &Manifest, gather: bool) -> anyhow::Result<u64> {
    let Some(info) = manifest.tiles else {
        return Ok(0);
    };
    let least = OocTiles::index_bytes(manifest) + OocTiles::buffers_bytes(MIN_CHUNK_BYTES);
    if !gather {
        return Ok(least);
    }
    let columns: Vec<u64> = read_index_file(dir, manifest, files::TILE_COLUMNS)?;
    let offsets: Vec<u64> = read_index_file(dir, manifest, files::TILE_OFFSETS)?;
    let valid = columns.windows(2).all(|w| w[0] <= w[1])
        && columns
            .last()
            .is_some_and(|&last| last as usize + 1 == offsets.len());
    anyhow::ensure!(
        valid && offsets.windows(2).all(|w| w[0] <= w[1]),
        "{}: the tiles' index is inconsistent (damaged or altered)",
        dir.display()
    );
    let threads = rayon::current_num_threads();
    Ok(least + gather_bytes(&columns, &offsets, info.side_log2, threads))
}

impl OocTiles {
    /// The DRAM the index takes (the edges are streamed).
    pub(crate) fn index_bytes(manifest: &Manifest) -> u64 {
        let file = |name| manifest.file(name).map_or(0, |f| f.bytes);
        file(files::TILE_COLUMNS) + file(files::TILE_ROWS) + file(files::TILE_OFFSETS)
    }

    /// The DRAM a pass's two chunk buffers take, for chunks of `chunk_bytes`.
    pub(crate) fn buffers_bytes(chunk_bytes: u64) -> u64 {
        2 * (chunk_bytes + 2 * ALIGN as u64)
    }

    /// Opens the tiles of the store in `dir` for passes reading chunks of `chunk_bytes`; the
    /// index is read (its pages checked) and validated.
    pub(crate) fn open(
        dir: &Path,
        manifest: &Manifest,
        edges: DataFile,
        chunk_bytes: u64,
    ) -> anyhow::Result<OocTiles> {
        let info = manifest.tiles.context("the store has no tiles")?;
        let columns: Vec<u64> = read_index_file(dir, manifest, files::TILE_COLUMNS)?;
        let rows: Vec<u32> = read_index_file(dir, manifest, files::TILE_ROWS)?;
        let offsets: Vec<u64> = read_index_file(dir, manifest, files::TILE_OFFSETS)?;
        validate_index(
            dir,
            &info,
            manifest.vertices,
            manifest.arcs,
            &columns,
            &rows,
            &offsets,
        )?;
        anyhow::ensure!(
            edges.len() == manifest.arcs * 4,
            "{}: {} bytes, expected {} (truncated or altered)",
            edges.path().display(),
            edges.len(),
            manifest.arcs * 4
        );
        Ok(OocTiles {
            dir: dir.to_path_buf(),
            info,
            vertices: manifest.vertices,
            columns,
            rows,
            offsets,
            chunk_arcs: (chunk_bytes / 4).min(edges.len() / 4).max(1),
            edges,
            buffers: Mutex::new(Vec::new()),
        })
    }

    /// Passes read chunks of `chunk_bytes` from now on.
    pub(crate) fn set_chunk_bytes(&mut self, chunk_bytes: u64) {
        self.chunk_arcs = (chunk_bytes / 4).min(self.edges.len() / 4).max(1);
        self.buffers.lock().unwrap().clear();
    }

    /// `out[v] = Σ_{u→v} values[u]` for every vertex, in one sequential pass over the file,
    /// with `apply` on each column's sums once complete ([`crate::tiles::sum_in_arcs`]): in
    /// the chunk holding the column's last arc, or after the pass for a column without arcs.
    pub(crate) fn sum_in_arcs<T: ArcValue, R: Send>(
        &self,
        values: &[T],
        out: &mut [T],
        apply: impl Fn(usize, &mut [T]) -> R + Sync,
    ) -> anyhow::Result<(IterationRecord, Vec<R>)> {
        let started = Instant::now();
        out.fill(T::ZERO);
        let k = self.info.side_log2;
        let zero = zero_rows(values, k);
        let mut folded_arcs = 0u64;
        let mut applied: Vec<Option<R>> = (0..self.columns.len() - 1).map(|_| None).collect();
        // The last arc of the tile a chunk ends inside, for the next chunk's order check.
        let mut carried: Option<u32> = None;
        let streamed = self.stream(|first, chunk, pages| {
            let (last, arcs, columns) =
                self.fold_chunk(first, chunk, pages, carried, values, &zero, out, &apply)?;
            carried = last;
            folded_arcs += arcs;
            for (c, result) in columns {
                applied[c] = Some(result);
            }
            Ok(())
        })?;
        // The columns no arc reaches: their sums are 0.
        let results = applied
            .into_iter()
            .enumerate()
            .map(|(c, result)| match result {
                Some(result) => result,
                None => {
                    let first = c << k;
                    apply(first, &mut out[first..(first + (1 << k)).min(values.len())])
                }
            })
            .collect();
        Ok((streamed.record(started, folded_arcs), results))
    }

    /// For every column, the values of its targets' in-neighbours gathered in one buffer and
    /// handed to `visit` ([`crate::tiles::gather_in_arcs`]), in one sequential pass over the
    /// file: a column in the chunk that holds its last arc, its pieces in earlier chunks
    /// carried until then (the room [`Self::gather_bytes`] gives); a column without arcs after
    /// the pass.
    pub(crate) fn gather_in_arcs<T, O>(
        &self,
        values: &[T],
        out: &mut [O],
        visit: impl Fn(usize, &[usize], &mut [T], &mut [O]) + Sync,
    ) -> anyhow::Result<IterationRecord>
    where
        T: Copy + Default + Send + Sync,
        O: Send,
    {
        let started = Instant::now();
        let k = self.info.side_log2;
        let side = 1usize << k;
        let columns = self.columns.len() - 1;
        let mut visited = vec![false; columns];
        let mut open: Option<OpenColumn> = None;
        let mut carried: Option<u32> = None;
        let streamed = self.stream(|first, chunk, pages| {
            let end = first + chunk.len() as u64;
            pages.check_all()?;
            let pieces = self.check_chunk(first, chunk, carried)?;
            carried = (self.offsets[pieces.end] > end).then(|| chunk[chunk.len() - 1]);
            let piece = |t: usize| self.piece(t, first, chunk);
            let tiles_of = |c: usize| {
                (self.columns[c] as usize).max(pieces.start)
                    ..(self.columns[c + 1] as usize).min(pieces.end)
            };
            let (c_first, c_last) = (self.column_of(pieces.start), self.column_of(pieces.end - 1));
            if let Some((_, kept)) = open.as_mut().filter(|(c, _)| *c == c_first) {
                for t in tiles_of(c_first) {
                    match kept.last_mut() {
                        Some((last, arcs)) if *last == t => arcs.extend_from_slice(piece(t)),
                        _ => kept.push((t, piece(t).to_vec())),
                    }
                }
            }
            let complete = |c: usize| self.offsets[self.columns[c + 1] as usize] <= end;
            let targets = &mut out[c_first * side..((c_last + 1) * side).min(values.len())];
            targets
                .par_chunks_mut(side)
                .enumerate()
                .with_max_len(1)
                .filter(|&(i, _)| complete(c_first + i))
                .for_each_init(Gathered::default, |buffers, (i, out)| {
                    let c = c_first + i;
                    let column: Vec<Tile<'_>> = match &open {
                        Some((open_c, kept)) if *open_c == c => kept
                            .iter()
                            .map(|(t, arcs)| self.tile(*t, c, arcs))
                            .collect(),
                        _ => tiles_of(c).map(|t| self.tile(t, c, piece(t))).collect(),
                    };
                    gather_column(&column, k, values, c << k, out, buffers, &visit);
                });
            for (seen, c) in visited[c_first..=c_last].iter_mut().zip(c_first..) {
                *seen |= complete(c);
            }
            if open.as_ref().is_some_and(|(c, _)| visited[*c]) {
                open = None;
            }
            if !complete(c_last) && open.is_none() {
                let kept = tiles_of(c_last).map(|t| (t, piece(t).to_vec())).collect();
                open = Some((c_last, kept));
            }
            Ok(())
        })?;
        // The columns no arc reaches.
        let mut buffers = Gathered::default();
        for c in (0..columns).filter(|&c| !visited[c]) {
            let stop = ((c + 1) << k).min(values.len());
            gather_column(
                &[],
                k,
                values,
                c << k,
                &mut out[c << k..stop],
                &mut buffers,
                &visit,
            );
        }
        let arcs = *self.offsets.last().unwrap_or(&0);
        Ok(streamed.record(started, arcs))
    }

    /// The DRAM a gather ([`Self::gather_in_arcs`]) needs beside the chunks, on `threads`
    /// threads, for the index's largest column: a task's buffers (two words a target, 8 bytes
    /// of values an arc, and its tiles' handles), and the arcs and handles of a column carried
    /// across chunks.
    pub(crate) fn gather_bytes(&self, threads: usize) -> u64 {
        gather_bytes(&self.columns, &self.offsets, self.info.side_log2, threads)
    }

    /// The column holding tile `t`.
    fn column_of(&self, t: usize) -> usize {
        self.columns.partition_point(|&f| f as usize <= t) - 1
    }

    /// The tiles that the arcs `first..first + chunk_len` of the file overlap: from the one
    /// holding `first` to the one holding the last.
    fn tiles_in(&self, first: u64, chunk_len: usize) -> std::ops::Range<usize> {
        let end = first + chunk_len as u64;
        let t_first = self.offsets.partition_point(|&o| o <= first) - 1;
        let t_last = self.offsets.partition_point(|&o| o < end) - 1;
        t_first..t_last + 1
    }

    /// The arcs of tile `t` within `chunk`, the file's arcs from `first` on.
    fn piece<'a>(&self, t: usize, first: u64, chunk: &'a [u32]) -> &'a [u32] {
        let end = first + chunk.len() as u64;
        let (lo, hi) = (self.offsets[t].max(first), self.offsets[t + 1].min(end));
        &chunk[(lo - first) as usize..(hi - first) as usize]
    }

    /// Tile `t` of column `c`, or a piece of it: `edges`.
    fn tile<'a>(&self, t: usize, c: usize, edges: &'a [u32]) -> Tile<'a> {
        let k = self.info.side_log2;
        Tile {
            row: self.rows[t],
            edges,
            sources: block_len(self.vertices, k, self.rows[t] as usize),
            targets: block_len(self.vertices, k, c),
        }
    }

    /// Checks the arcs `first..first + chunk.len()` of the file, each tile's piece by the rule
    /// [`validate_edges`] applies (which names the first bad arc), `carried` being the last
    /// arc of the previous chunk when it ended inside a tile; returns the tiles the chunk
    /// overlaps.
    fn check_chunk(
        &self,
        first: u64,
        chunk: &[u32],
        carried: Option<u32>,
    ) -> anyhow::Result<std::ops::Range<usize>> {
        let tiles = self.tiles_in(first, chunk.len());
        tiles.clone().into_par_iter().try_for_each(|t| {
            let c = self.column_of(t);
            let tile = self.tile(t, c, self.piece(t, first, chunk));
            let previous = carried.filter(|_| t == tiles.start && self.offsets[t] < first);
            if arcs_in_order(&tile, previous) {
                return Ok(());
            }
            validate_edges(&self.dir, t, c, &tile, previous)?;
            Err(vastgraph_store::StoreError::BadTiles {
                path: self.edges.path().to_path_buf(),
                reason: format!("tile {t} (column {c}): arcs out of order"),
            })
        })?;
        Ok(tiles)
    }

    /// Reads `tile_edges.u32` once, in order, in chunks of at most `chunk_arcs` arcs, each
    /// read by a second thread while `each(first arc, arcs, pages)` works on the one before.
    /// `each` checks the `pages` it uses ([`ChunkPages`]): the reader does not.
    fn stream(
        &self,
        mut each: impl FnMut(u64, &[u32], &ChunkPages<'_>) -> anyhow::Result<()>,
    ) -> anyhow::Result<Streamed> {
        let arcs = *self.offsets.last().unwrap_or(&0);
        let chunks: Vec<(u64, u64)> = (0..arcs)
            .step_by(self.chunk_arcs as usize)
            .map(|first| (first, (first + self.chunk_arcs).min(arcs)))
            .collect();
        let buffer_bytes = (self.chunk_arcs * 4) as usize + 2 * ALIGN;
        let mut buffers = std::mem::take(&mut *self.buffers.lock().unwrap());
        buffers.resize_with(2, || AlignedBuf::new(buffer_bytes));
        let mut streamed = Streamed {
            vertices: self.vertices,
            arcs,
            requests: chunks.len() as u64,
            ..Default::default()
        };
        std::thread::scope(|scope| -> anyhow::Result<()> {
            let (full_tx, full_rx) = sync_channel::<anyhow::Result<(AlignedBuf, u64, usize)>>(1);
            let (empty_tx, empty_rx) = sync_channel::<AlignedBuf>(2);
            for buf in buffers.drain(..) {
                empty_tx.send(buf).ok();
            }
            let (reader_chunks, edges) = (&chunks, &self.edges);
            // Reads the chunks in order into the buffers handed back, then returns the buffers
            // once the working side is done with them.
            let reader = scope.spawn(move || -> Vec<AlignedBuf> {
                for &(first, end) in reader_chunks {
                    let Ok(mut buf) = empty_rx.recv() else {
                        return Vec::new();
                    };
                    let len = ((end - first) * 4) as usize;
                    match edges.read_span_unchecked(first * 4, len, &mut buf) {
                        Ok((start, got)) => {
                            if full_tx.send(Ok((buf, start, got))).is_err() {
                                return Vec::new();
                            }
                        }
                        Err(e) => {
                            full_tx.send(Err(e.into())).ok();
                            return Vec::new();
                        }
                    }
                }
                drop(full_tx);
                empty_rx.iter().collect()
            });
            let worked = (|| -> anyhow::Result<()> {
                for &(first, end) in &chunks {
                    let waited = Instant::now();
                    let (buf, start, got) = full_rx
                        .recv()
                        .context("the reader of the tiles stopped")?
                        .with_context(|| format!("reading {}", self.edges.path().display()))
                        .context(REMEDY)?;
                    streamed.io_wait += waited.elapsed().as_secs_f64();
                    streamed.bytes_read += got as u64;
                    let skip = (first * 4 - start) as usize;
                    let bytes = &buf.as_slice()[skip..skip + ((end - first) * 4) as usize];
                    // SAFETY: the buffer is page-aligned and `skip` a multiple of 4, so the
                    // bytes are aligned u32s; any bit pattern is a u32.
                    let chunk: &[u32] = unsafe {
                        std::slice::from_raw_parts(bytes.as_ptr() as *const u32, bytes.len() / 4)
                    };
                    let pages = ChunkPages {
                        file: &self.edges,
                        start,
                        bytes: &buf.as_slice()[..got],
                    };
                    each(first, chunk, &pages).context(REMEDY)?;
                    crate::interrupt::check();
                    empty_tx.send(buf).ok();
                }
                Ok(())
            })();
            drop(empty_tx);
            drop(full_rx);
            if let Ok(returned) = reader.join() {
                *self.buffers.lock().unwrap() = returned;
            }
            worked
        })?;
        Ok(streamed)
    }

    /// Checks and folds the arcs `first..first + chunk.len()` of the file, read into `pages`
    /// (the tiles of the rows `zero` marks are only checked), applying `apply` to the columns
    /// whose last arc it holds ([`Folded`]).
    #[allow(clippy::too_many_arguments)]
    fn fold_chunk<T: ArcValue, R: Send>(
        &self,
        first: u64,
        chunk: &[u32],
        pages: &ChunkPages<'_>,
        carried: Option<u32>,
        values: &[T],
        zero: &[bool],
        out: &mut [T],
        apply: &(impl Fn(usize, &mut [T]) -> R + Sync),
    ) -> anyhow::Result<Folded<R>> {
        let end = first + chunk.len() as u64;
        let k = self.info.side_log2;
        let tiles = self.tiles_in(first, chunk.len());
        let (t_first, t_last) = (tiles.start, tiles.end - 1);
        let (c_first, c_last) = (self.column_of(t_first), self.column_of(t_last));
        let side = 1usize << k;
        let stop = ((c_last + 1) * side).min(out.len());
        let targets = &mut out[c_first * side..stop];
        let chunk_columns = c_last + 1 - c_first;
        let threads = rayon::current_num_threads();
        // A stripe a thread: narrower stripes balance skewed columns better but stream the
        // values more often (two a thread on Kronecker 24 within 1 GiB: 9.7 s of computing in 5
        // passes, against 8.7–9.3 s).
        let width = stripe_columns(self.vertices as usize, k)
            .min(chunk_columns.div_ceil(threads))
            .max(1);
        let applied = targets
            .par_chunks_mut(side * width)
            .enumerate()
            .with_max_len(1)
            .map(|(stripe, sums)| {
                let c0 = c_first + stripe * width;
                let columns: Vec<Vec<Tile<'_>>> = (c0..(c0 + width).min(c_last + 1))
                    .map(|c| {
                        let tiles = (self.columns[c] as usize).max(t_first)
                            ..(self.columns[c + 1] as usize).min(t_last + 1);
                        tiles
                            .map(|t| self.tile(t, c, self.piece(t, first, chunk)))
                            .collect()
                    })
                    .collect();
                let mut folded = 0u64;
                // Each column's tiles lie one after the other in the file and are folded in
                // that order, so one offset a column says how far its pages are checked:
                // checked[i] is a page boundary, and the pages of column i's arcs below it
                // passed.
                let mut checked = vec![0u64; columns.len()];
                fold_stripe(&columns, sums, k, |i, j, tile, sums| {
                    let c = c0 + i;
                    // Column c's tiles in the chunk start at its first or at the chunk's.
                    let t = (self.columns[c] as usize).max(t_first) + j;
                    let (from, to) = (
                        4 * self.offsets[t].max(first),
                        4 * self.offsets[t + 1].min(end),
                    );
                    if to > checked[i] {
                        pages.check(from.max(checked[i]), to)?;
                        checked[i] = to.next_multiple_of(ALIGN as u64);
                    }
                    let previous = carried.filter(|_| t == t_first && self.offsets[t] < first);
                    let zero_row = zero[tile.row as usize];
                    folded += if zero_row { 0 } else { tile.edges.len() as u64 };
                    // Checked as folded; a bad arc gets the store's own message.
                    sum_tile_checked(tile, k, values, sums, previous, zero_row).or_else(
                        |edge| -> anyhow::Result<()> {
                            validate_edges(&self.dir, t, c, tile, previous)?;
                            Err(vastgraph_store::StoreError::BadTiles {
                                path: self.edges.path().to_path_buf(),
                                reason: format!("tile {t} (column {c}): arc {edge:#010x}"),
                            }
                            .into())
                        },
                    )
                })?;
                // A column is complete in the chunk that holds its last arc.
                let done = sums
                    .chunks_mut(side)
                    .enumerate()
                    .map(|(i, sums)| (c0 + i, sums))
                    .filter(|&(c, _)| self.offsets[self.columns[c + 1] as usize] <= end)
                    .map(|(c, sums)| (c, apply(c << k, sums)))
                    .collect::<Vec<_>>();
                Ok::<_, anyhow::Error>((folded, done))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let last = (self.offsets[t_last + 1] > end).then(|| chunk[chunk.len() - 1]);
        let folded = applied.iter().map(|(arcs, _)| arcs).sum();
        let applied = applied.into_iter().flat_map(|(_, done)| done).collect();
        Ok((last, folded, applied))
    }
}
