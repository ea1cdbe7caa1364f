//! One pass over the adjacency of the active vertices: plan, choose the mode, read, process.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use vastgraph_codec::{decode_list_blocks_in, ListSpan};
use vastgraph_io::{DataFile, Loaded, ALIGN};
use vastgraph_store::{WeightType, WeightsRef};

use super::bits::{all_in_range, for_each_in_range, take_range};
use super::cache::{Batch, MAX_CACHED_ARCS};
use super::graph::{Codes, OocGraph};
use super::plan::{measure, measure_selective, Piece, Selective, Streaming, ARC_BYTES};
use super::IoMode;
use crate::bitmap::Bitmap;
use crate::graph::PrefetchedPieces;
use crate::Vertex;

/// The weights of a piece of a list, when the graph was opened with weights.
pub type Weights<'a> = Option<WeightsRef<'a>>;

#[derive(Clone, Copy)]
pub struct ScanSpec<'a> {
    /// The vertices whose lists this pass reads.
    pub active: &'a Bitmap,
    /// For algorithms whose updates may be applied asynchronously (label-correcting BFS, SSSP):
    /// the bitmap the visitor sets for vertices it activates. A vertex set here whose whole list
    /// lies in a loaded range is taken (its bit cleared) and processed while the range is in
    /// memory: when its range arrives later in the pass, and again after each processing of the
    /// range (reentry, up to MRT rounds). What is left set is the next iteration's frontier.
    pub activated: Option<&'a Bitmap>,
    /// Process the lists strictly in vertex order on one thread (one-pass greedy algorithms).
    pub ordered: bool,
    /// Overrides the graph's mode for this pass (e.g. streaming for a pass over every vertex).
    pub mode: Option<IoMode>,
    /// Asked after a vertex's whole list was visited: whether the vertex will be active in a
    /// later pass. A short list read by a selective pass is then cached at once, instead of on
    /// its second sight (BFS: a vertex a pull level leaves unvisited is pulled again next level,
    /// and on Kronecker scale 25 the second pull read 2.4 GB of pages for 8 MB of such lists).
    /// A streaming pass caches such lists too, the shortest first, as many as the room left
    /// holds (colouring's count: every vertex comes back once, in a pass of a few).
    pub again: Option<&'a (dyn Fn(Vertex) -> bool + Sync)>,
    /// Given ids a little ahead of those being visited, to start loading the values the
    /// visitor will read for them (PageRank's gather, which otherwise waits on a cache miss per
    /// arc). With it, a raw piece whose lists are all visited hands its lists over in pieces of
    /// at most 256 ids, the ids up to 256 positions past each piece prefetched first, as the
    /// in-memory pull does. Compressed lists are not prefetched: each is decoded just before
    /// it is visited.
    pub prefetch: Option<PrefetchFn<'a>>,
    /// The visitor reads no weights. In memory, the lists of a weighted graph are then handed
    /// over in place instead of gathered with their weights; on disk, whether a pass reads the
    /// weights was decided when the graph was opened, and this changes nothing.
    pub ids_only: bool,
}

/// See [`ScanSpec::prefetch`].
pub type PrefetchFn<'a> = &'a (dyn Fn(&[Vertex]) + Sync);

impl<'a> ScanSpec<'a> {
    pub fn new(active: &'a Bitmap) -> Self {
        ScanSpec {
            active,
            activated: None,
            ordered: false,
            mode: None,
            again: None,
            prefetch: None,
            ids_only: false,
        }
    }

    /// A pass over `active` whose visitor reads no weights ([`Self::ids_only`]).
    pub fn ids_only(active: &'a Bitmap) -> Self {
        ScanSpec {
            ids_only: true,
            ..ScanSpec::new(active)
        }
    }
}

/// What the cost model expects of one mode for a pass.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct ModeEstimate {
    /// Page-widened bytes the mode would read.
    pub bytes: u64,
    pub requests: u64,
    pub seconds: f64,
}

impl std::fmt::Display for ModeEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "~{:.3} s ({} KiB, {} requests)",
            self.seconds,
            self.bytes >> 10,
            self.requests
        )
    }
}

/// What one pass did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct IterationRecord {
    /// The mode that ran: "selective" or "streaming".
    pub mode: &'static str,
    pub active_vertices: u64,
    /// The cost model's view of each mode that could run (both in adaptive mode; null for
    /// the other one when the mode was fixed).
    pub selective: Option<ModeEstimate>,
    pub streaming: Option<ModeEstimate>,
    pub bytes_read: u64,
    pub requests: u64,
    /// Bytes of the lists (or parts of lists) that were read and processed, reentries excluded:
    /// the bytes an ideal reader would have read (codes, for a compressed store; weights not
    /// counted).
    pub bytes_needed: u64,
    /// The arcs handed to the visitor, read or cached (reentries excluded).
    pub arcs_processed: u64,
    /// Rounds of reprocessing a loaded range.
    pub reentries: u64,
    /// Active vertices served from the cache of short lists, and the bytes of their lists.
    pub cached_vertices: u64,
    pub cached_bytes: u64,
    pub seconds: f64,
    pub io_wait_seconds: f64,
    pub compute_seconds: f64,
}

impl OocGraph {
    /// Reads the lists of the active vertices (see [`ScanSpec`]) and calls
    /// `visit(v, neighbours, weights)` for each; a list longer than an I/O buffer, or one that
    /// straddles two streamed chunks, arrives in several consecutive pieces, each in its own call.
    /// Unordered passes call `visit` from several threads at once.
    pub fn scan<V>(&self, spec: &ScanSpec<'_>, visit: V) -> anyhow::Result<IterationRecord>
    where
        V: Fn(Vertex, &[Vertex], Weights<'_>) + Sync,
    {
        let started = Instant::now();
        let mut engine = self
            .io
            .lock()
            .map_err(|_| anyhow::anyhow!("the I/O engine is poisoned"))?;
        let chunk = engine.config().buffer_bytes as u64;
        let fixed = match spec.mode.unwrap_or(self.options.mode) {
            IoMode::Adaptive => None,
            mode => Some(mode),
        };
        // The adaptive mode merges every gap the device reads faster than it serves another
        // request; the fixed selective mode reads only the active lists' pages.
        let gap = match fixed {
            Some(IoMode::Selective) => 0,
            _ => self
                .profile
                .break_even_gap_bytes()
                .clamp(ALIGN as u64, chunk / 2),
        };
        let layout = self.layout();
        // Cached lists are served from memory; the rest are read. An ordered pass reads every
        // list in order instead.
        let use_cache = !spec.ordered && self.cache.holds_any();
        let uncached = use_cache.then(|| self.cache.uncached(spec.active));
        let to_read = uncached.as_ref().unwrap_or(spec.active);
        // Each mode's plan walks the active vertices' offsets before the first read (0.4 s a
        // pass on Kronecker scale 25 when it was one thread's job): only a mode that may run
        // is estimated, the two side by side, the selective plan in parts.
        let estimate = |mode: IoMode| -> Option<ModeEstimate> {
            if fixed.is_some_and(|f| f != mode) {
                return None;
            }
            let (bytes, requests) = match mode {
                IoMode::Selective => measure_selective(layout, to_read, chunk, gap),
                _ => measure(layout, Streaming::new(layout, to_read, None, chunk)),
            };
            Some(ModeEstimate {
                bytes,
                requests,
                seconds: self.profile.cost_seconds(bytes, requests),
            })
        };
        let (selective, streaming) = rayon::join(
            || estimate(IoMode::Selective),
            || estimate(IoMode::Streaming),
        );
        let mode = match (fixed, &selective, &streaming) {
            (Some(mode), _, _) => mode,
            // On a tie (nothing to read: every active list is cached) the pass is selective.
            (None, Some(sel), Some(stream)) if sel.seconds <= stream.seconds => IoMode::Selective,
            (None, _, _) => IoMode::Streaming,
        };
        let pieces: Box<dyn Iterator<Item = Piece> + '_> = match mode {
            IoMode::Selective => Box::new(Selective::new(layout, to_read, chunk, gap)),
            _ => Box::new(Streaming::new(layout, to_read, spec.activated, chunk)),
        };
        let (cached_vertices, cached_arcs) = if use_cache {
            self.cache.visit_active(spec.active, &visit)
        } else {
            (0, 0)
        };
        // The longest list this pass may cache (0: none). Short lists are cached from
        // selective passes, whose reads they would make cheaper. A streaming pass reads every
        // page anyway, but its vertices that come back (`again`) may next be read selectively:
        // their lists are cached too, the shortest first, as many as fit.
        let admit = match (mode, spec.again) {
            _ if spec.ordered || !self.cache.is_enabled() => 0,
            (IoMode::Selective, _) => MAX_CACHED_ARCS,
            (_, Some(_)) => self
                .cache
                .shortest_that_fit(spec.active, |v| self.degree(v)),
            (_, None) => 0,
        };
        let needed = AtomicU64::new(0);
        let arcs = AtomicU64::new(0);
        let reentries = AtomicU64::new(0);
        let apart = Apart::default();
        let mut file_list: Vec<&DataFile> = vec![&self.neighbors];
        if let Some((w, _)) = &self.weights {
            file_list.push(w);
        }
        let process = |loaded: &Loaded<'_, Piece>| -> io::Result<()> {
            let done = self.process(loaded, to_read, spec, admit, &apart, &visit)?;
            needed.fetch_add(done.bytes, Relaxed);
            arcs.fetch_add(done.arcs, Relaxed);
            reentries.fetch_add(done.rounds, Relaxed);
            Ok(())
        };
        let totals = engine.run(
            &file_list,
            pieces.map(|p| (layout.extents(&p), p)),
            spec.ordered,
            process,
        )?;
        drop(engine);
        let record = IterationRecord {
            mode: mode.name(),
            active_vertices: spec.active.count_ones() as u64,
            selective,
            streaming,
            bytes_read: totals.bytes_read + apart.bytes.load(Relaxed),
            requests: totals.requests + apart.requests.load(Relaxed),
            bytes_needed: needed.into_inner(),
            arcs_processed: arcs.into_inner() + cached_arcs,
            reentries: reentries.into_inner(),
            cached_vertices,
            cached_bytes: cached_arcs * ARC_BYTES,
            seconds: started.elapsed().as_secs_f64(),
            io_wait_seconds: totals.wait_seconds + apart.seconds(),
            // Reads made apart happen while processing: they count as waiting.
            compute_seconds: (totals.compute_seconds - apart.seconds()).max(0.0),
        };
        let shown = |e: &Option<ModeEstimate>| e.map_or("not estimated".into(), |e| e.to_string());
        let summary = format!(
            "{} active; selective {}, streaming {} -> {}; read {} KiB in {:.3} s (waiting \
             {:.3} s), {} reentries, {} lists ({} KiB) from the cache",
            record.active_vertices,
            shown(&record.selective),
            shown(&record.streaming),
            record.mode,
            record.bytes_read >> 10,
            record.seconds,
            record.io_wait_seconds,
            record.reentries,
            record.cached_vertices,
            record.cached_bytes >> 10
        );
        Ok(self.keep_record(record, &summary))
    }

    /// Logs a pass's `summary` under its iteration number and adds its record to the run's.
    pub(crate) fn keep_record(&self, record: IterationRecord, summary: &str) -> IterationRecord {
        let mut records = self.records.lock().ok();
        let index = records.as_ref().map_or(0, |r| r.len());
        log::info!("iteration {index}: {summary}");
        if let Some(records) = &mut records {
            records.push(record.clone());
        }
        drop(records);
        crate::progress::pass(record.bytes_read, record.mode);
        record
    }

    /// Processes one loaded piece: the lists of the vertices of `to_read` in it, then reentry;
    /// caches the lists of at most `admit` arcs that the cache admits. A long piece (a compressed list
    /// no buffer holds) is read here, apart from the pool.
    fn process<V>(
        &self,
        loaded: &Loaded<'_, Piece>,
        to_read: &Bitmap,
        spec: &ScanSpec<'_>,
        admit: usize,
        apart: &Apart,
        visit: &V,
    ) -> io::Result<Processed>
    where
        V: Fn(Vertex, &[Vertex], Weights<'_>) + Sync,
    {
        let piece = &loaded.payload;
        if piece.long {
            return self.process_long(piece.verts.start, to_read, apart, visit);
        }
        let layout = self.layout();
        // Raw ids must be below n. When every list of the piece is visited, one vectorised
        // pass over the piece checks them all; otherwise each visited list is checked as it
        // is visited, and a pass that visits few of a piece's lists (cc skipping its giant
        // component) never touches the others' bytes.
        let raw_checked =
            self.codes.is_none() && all_in_range(to_read, piece.verts.start, piece.verts.end);
        if raw_checked {
            self.check_ids_once(cast(loaded.parts[0]), piece.arcs().start)?;
        }
        let weights: Weights<'_> = self.weights.as_ref().map(|(_, t)| match t {
            WeightType::I32 => WeightsRef::I32(cast(loaded.parts[1])),
            WeightType::F32 => WeightsRef::F32(cast(loaded.parts[1])),
        });
        // Where the piece's weights start, in arcs.
        let weights_from = layout.weight_bytes(piece).start / ARC_BYTES;
        let mut batch = Batch::default();
        // Called only once a list was visited whole, as its verdict comes from the visit.
        let again = |v: Vertex| spec.again.is_some_and(|again| again(v));
        let mut decoded: Vec<Vertex> = Vec::new();
        let mut failure: Option<io::Error> = None;
        let prefetch = spec.prefetch.filter(|_| raw_checked);
        // Every id of the piece before this position has been prefetched.
        let mut ahead = 0;
        // Visits the part of v's list in the piece; returns (bytes, arcs) of it.
        let mut visit_vertex = |v: Vertex, admit: usize| -> (u64, u64) {
            let (start, end) = (layout.byte(v as usize), layout.byte(v as usize + 1));
            let (lo, hi) = (start.max(piece.bytes.start), end.min(piece.bytes.end));
            if lo >= hi || failure.is_some() {
                return (0, 0);
            }
            let (i, j) = (
                (lo - piece.bytes.start) as usize,
                (hi - piece.bytes.start) as usize,
            );
            match &self.codes {
                None => {
                    let all: &[Vertex] = cast(loaded.parts[0]);
                    let ids = &all[i / 4..j / 4];
                    let checked = match raw_checked {
                        true => Ok(()),
                        false => self.check_ids_once(ids, lo / ARC_BYTES),
                    };
                    if let Err(e) = checked {
                        failure = Some(e);
                        return (0, 0);
                    }
                    let k = (lo / ARC_BYTES - weights_from) as usize;
                    let w = weights.map(|w| w.slice(k..k + ids.len()));
                    match prefetch {
                        None => visit(v, ids, w),
                        Some(prefetch) => {
                            let pieces = PrefetchedPieces::new(i / 4..j / 4, all.len(), &mut ahead);
                            for (early, part) in pieces {
                                if !early.is_empty() {
                                    prefetch(&all[early]);
                                }
                                let at = k + part.start - i / 4;
                                let len = part.len();
                                visit(v, &all[part], weights.map(|w| w.slice(at..at + len)));
                            }
                        }
                    }
                    let whole = (lo, hi) == (start, end);
                    if ids.len() <= admit && whole && self.cache.admits(v, ids.len(), again) {
                        batch.push(v, ids, w);
                    }
                    (hi - lo, ids.len() as u64)
                }
                Some(codes) => {
                    let degree = self.degree(v);
                    let k = (self.offsets[v as usize] - weights_from) as usize;
                    let w = weights.map(|w| w.slice(k..k + degree));
                    // The list's codes are bytes i..j; the decoder may read ahead past j.
                    let bytes = &loaded.parts[0][i..];
                    let keep = degree <= admit;
                    let end = j - i;
                    match self.decode_and_visit(codes, v, bytes, end, w, keep, &mut decoded, visit)
                    {
                        Err(e) => failure = Some(e),
                        // The whole list is still in `decoded`.
                        Ok(true) if degree <= admit && self.cache.admits(v, degree, again) => {
                            batch.push(v, &decoded, w)
                        }
                        Ok(_) => {}
                    }
                    (hi - lo, degree as u64)
                }
            }
        };
        let mut done = Processed::default();
        for_each_in_range(to_read, piece.verts.start, piece.verts.end, |v| {
            let (bytes, arcs) = visit_vertex(v, admit);
            done.bytes += bytes;
            done.arcs += arcs;
        });
        if let Some(activated) = spec.activated {
            // Only vertices whose whole list is loaded can be taken from `activated`.
            let whole = layout.whole_lists(piece);
            if whole.start < whole.end {
                let (lo, hi) = (whole.start as Vertex, whole.end as Vertex);
                take_range(activated, lo, hi, |v| {
                    let (bytes, arcs) = visit_vertex(v, 0);
                    done.bytes += bytes;
                    done.arcs += arcs;
                });
                for _ in 0..self.options.max_reentries {
                    let mut any = false;
                    take_range(activated, lo, hi, |v| {
                        any = true;
                        visit_vertex(v, 0);
                    });
                    if !any {
                        break;
                    }
                    done.rounds += 1;
                }
            }
        }
        if let Some(e) = failure {
            return Err(e);
        }
        if !batch.is_empty() {
            self.cache.insert(batch);
        }
        Ok(done)
    }

    /// Decodes `v`'s list from its `codes` (all of them), `bytes[..end]` (the decoder may read
    /// ahead in the bytes after them), and visits it in slices of at most [`VISIT_IDS`] ids
    /// through `buf`, with `weights` (the list's, when read). A list of one block is visited
    /// straight from the decoder's slice and copied to `buf` only when `keep` asks for it.
    /// Returns whether the whole list is left in `buf`; a list that does not decode to its
    /// degree is corrupt.
    #[allow(clippy::too_many_arguments)]
    fn decode_and_visit<V>(
        &self,
        codes: &Codes,
        v: Vertex,
        bytes: &[u8],
        end: usize,
        weights: Weights<'_>,
        keep: bool,
        buf: &mut Vec<Vertex>,
        visit: &V,
    ) -> io::Result<bool>
    where
        V: Fn(Vertex, &[Vertex], Weights<'_>) + Sync,
    {
        let degree = self.degree(v);
        let n = self.num_vertices() as u64;
        let emit = |ids: &[Vertex], at: usize| {
            visit(v, ids, weights.map(|w| w.slice(at..at + ids.len())));
        };
        let mut visited = 0usize;
        buf.clear();
        // The decoder keeps ids below n; order is checked here, as the in-memory open does:
        // a frame-of-reference block's offsets could repeat an id.
        let mut last: Option<Vertex> = None;
        let mut unordered = false;
        let span = ListSpan::whole(v, degree, n);
        decode_list_blocks_in(codes.codec, bytes, end, span, |ids| {
            // Without an early exit, which the compiler vectorises.
            let ordered = ids
                .iter()
                .zip(ids.get(1..).unwrap_or_default())
                .fold(true, |ok, (a, b)| ok & (a < b))
                && match (last, ids.first()) {
                    (Some(l), Some(&f)) => l < f,
                    _ => true,
                };
            if !ordered {
                unordered = true;
                return false;
            }
            last = ids.last().copied().or(last);
            if visited == 0 && buf.is_empty() && ids.len() == degree {
                emit(ids, 0);
                visited = degree;
                if keep {
                    buf.extend_from_slice(ids);
                }
                return true;
            }
            buf.extend_from_slice(ids);
            if buf.len() >= VISIT_IDS {
                emit(buf, visited);
                visited += buf.len();
                buf.clear();
            }
            true
        });
        if unordered {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: invalid neighbour list of vertex {v}: its codes decode to ids out of \
                     order or repeated (lists must be strictly increasing; corrupt store?)",
                    self.neighbors.path().display()
                ),
            ));
        }
        if visited == degree {
            // One block, visited from the decoder's slice (and kept in `buf` if asked).
            return Ok(!buf.is_empty());
        }
        if visited + buf.len() != degree {
            return Err(self.corrupt_list(v, visited + buf.len()));
        }
        let whole = visited == 0;
        if !buf.is_empty() {
            emit(buf, visited);
        }
        Ok(whole)
    }

    fn corrupt_list(&self, v: Vertex, decoded: usize) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: the codes of vertex {v}'s list are corrupt: {decoded} of its {} neighbours \
                 decode (corrupt store?)",
                self.neighbors.path().display(),
                self.degree(v)
            ),
        )
    }

    /// A compressed list too long for a pooled buffer: read into the long-list buffers with
    /// blocking reads, decoded and visited in slices. One such list at a time: they are
    /// few (the highest degrees), and the lock is never held while waiting on other work.
    fn process_long<V>(
        &self,
        v: Vertex,
        to_read: &Bitmap,
        apart: &Apart,
        visit: &V,
    ) -> io::Result<Processed>
    where
        V: Fn(Vertex, &[Vertex], Weights<'_>) + Sync,
    {
        let Some(codes) = &self.codes else {
            unreachable!("only compressed lists are read apart")
        };
        if !to_read.get(v as usize) {
            // Streamed because an activated vertex may be in it; v itself waits for its turn.
            return Ok(Processed::default());
        }
        let started = Instant::now();
        let mut guard = self
            .long_buffers
            .lock()
            .map_err(|_| io::Error::other("the long-list buffers are poisoned"))?;
        let buffers = &mut *guard;
        let (start, end) = (
            codes.byte_offsets.get(v as usize),
            codes.byte_offsets.get(v as usize + 1),
        );
        let code_buf = buffers
            .codes
            .get_or_insert_with(|| vastgraph_io::AlignedBuf::new(self.long_spans.0));
        let (bytes, got) = self
            .neighbors
            .read_span(start, (end - start) as usize, code_buf)?;
        let (mut read, mut requests) = (got, 1);
        let degree = self.degree(v);
        let weights: Weights<'_> = match &self.weights {
            None => None,
            Some((file, t)) => {
                let buf = buffers
                    .weights
                    .get_or_insert_with(|| vastgraph_io::AlignedBuf::new(self.long_spans.1));
                let at = self.offsets[v as usize] * ARC_BYTES;
                let (w, got) = file.read_span(at, degree * ARC_BYTES as usize, buf)?;
                read += got;
                requests += 1;
                Some(match t {
                    WeightType::I32 => WeightsRef::I32(cast(w)),
                    WeightType::F32 => WeightsRef::F32(cast(w)),
                })
            }
        };
        apart.add(read, requests, started.elapsed().as_secs_f64());
        let mut buf = Vec::new();
        let codes_end = bytes.len();
        self.decode_and_visit(codes, v, bytes, codes_end, weights, false, &mut buf, visit)?;
        Ok(Processed {
            bytes: end - start,
            arcs: degree as u64,
            rounds: 0,
        })
    }
}

/// The most decoded ids handed to the visitor at once: a compressed list is decoded into a
/// buffer this long and visited in slices, so decoding needs no memory in proportion to the
/// longest list.
const VISIT_IDS: usize = 4096;

/// What processing a piece did: bytes and arcs of the lists processed (reentries excluded),
/// reentry rounds.
#[derive(Default)]
struct Processed {
    bytes: u64,
    arcs: u64,
    rounds: u64,
}

/// Reads made apart from the pool (long compressed lists): bytes, requests, time.
#[derive(Default)]
struct Apart {
    bytes: AtomicU64,
    requests: AtomicU64,
    nanos: AtomicU64,
}

impl Apart {
    fn add(&self, bytes: u64, requests: u64, seconds: f64) {
        self.bytes.fetch_add(bytes, Relaxed);
        self.requests.fetch_add(requests, Relaxed);
        self.nanos.fetch_add((seconds * 1e9) as u64, Relaxed);
    }

    fn seconds(&self) -> f64 {
        self.nanos.load(Relaxed) as f64 / 1e9
    }
}

/// The granule of the record of checked ids: 1024 ids.
pub(crate) const CHECKED_PAGE: u64 = 4096;

impl OocGraph {
    /// Checks raw `ids`, which start at arc `first_arc` of the file, except on the pages whose
    /// ids were all checked before, and records the pages it checks whole. The store is
    /// read-only, so a page reads back the same every pass: a pass over every list checks the
    /// whole file, and the passes after it check nothing (PageRank on Kronecker 25 spent 0.4 s
    /// of CPU an iteration on the check, which also took the first cache miss on each fresh
    /// buffer). A page only partly covered is checked in part and not recorded.
    fn check_ids_once(&self, ids: &[Vertex], first_arc: u64) -> io::Result<()> {
        const PER_PAGE: u64 = CHECKED_PAGE / ARC_BYTES;
        let end = first_arc + ids.len() as u64;
        let mut arc = first_arc;
        while arc < end {
            let page = arc / PER_PAGE;
            let whole = page * PER_PAGE..((page + 1) * PER_PAGE).min(self.num_arcs());
            let upto = whole.end.min(end);
            if !self.checked_pages.get(page as usize) {
                // From the id before the page when it is here, so that the pair across the
                // page boundary is compared too.
                let from = if arc > first_arc { arc - 1 } else { arc };
                let part = &ids[(from - first_arc) as usize..(upto - first_arc) as usize];
                check_ids(self, part, from)?;
                if (arc..upto) == whole {
                    self.checked_pages.set_atomic(page as usize);
                }
            }
            arc = upto;
        }
        Ok(())
    }
}

/// Raw ids must be below n and every list strictly increasing, as the in-memory open checks
/// them: a wrong one is a corrupt store, reported with its position.
fn check_ids(g: &OocGraph, ids: &[Vertex], first_arc: u64) -> io::Result<()> {
    let n = g.num_vertices();
    // The maximum first: a loop without an early exit, which the compiler vectorises.
    let max = ids.iter().fold(0u32, |max, &u| max.max(u));
    if (max as usize) < n {
        return check_increasing(g, ids, first_arc);
    }
    match ids.iter().position(|&u| u as usize >= n) {
        None => Ok(()),
        Some(i) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: neighbour id {} at arc {} is not below n={n} (corrupt store?)",
                g.neighbors.path().display(),
                ids[i],
                first_arc + i as u64
            ),
        )),
    }
}

/// The parts of lists among `ids` (arcs `first_arc..`) are strictly increasing: sorted and
/// without a repeated id. The lists are walked in order from the one holding `first_arc`
/// (one search of the offsets), so the cost is one comparison an id.
fn check_increasing(g: &OocGraph, ids: &[Vertex], first_arc: u64) -> io::Result<()> {
    let offsets = g.offsets();
    let end = first_arc + ids.len() as u64;
    // The last vertex whose list starts at or before `first_arc` holds it (first_arc < m).
    let mut v = offsets
        .partition_point(|&o| o <= first_arc)
        .saturating_sub(1);
    let mut at = first_arc;
    while at < end && v + 1 < offsets.len() {
        let list_end = offsets[v + 1].min(end);
        if list_end > at {
            let part = &ids[(at - first_arc) as usize..(list_end - first_arc) as usize];
            if let Some(i) = part.windows(2).position(|w| w[0] >= w[1]) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: invalid neighbour list of vertex {v}: neighbour {} follows {} at \
                         arc {} (lists must be strictly increasing; corrupt store?)",
                        g.neighbors.path().display(),
                        part[i + 1],
                        part[i],
                        at + i as u64 + 1
                    ),
                ));
            }
            at = list_end;
        }
        v += 1;
    }
    Ok(())
}

/// Reinterprets loaded little-endian bytes as 4-byte values (the store enforces a little-endian
/// host). Buffers are page-aligned and every piece starts at an arc boundary, so the bytes are
/// 4-aligned; anything else is a bug, not bad input.
pub(crate) fn cast<T: Copy + 'static>(bytes: &[u8]) -> &[T] {
    debug_assert_eq!(std::mem::size_of::<T>(), 4);
    // SAFETY: T is u32, i32 or f32: every bit pattern is a valid value.
    let (head, values, tail) = unsafe { bytes.align_to::<T>() };
    assert!(
        head.is_empty() && tail.is_empty(),
        "a loaded piece is 4-aligned"
    );
    values
}
