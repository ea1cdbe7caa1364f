//! One pass over the adjacency of the active vertices: plan, choose the mode, read, process.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;
use vastgraph_io::{DataFile, Loaded, ALIGN};
use vastgraph_store::{WeightType, WeightsRef};

use super::bits::{for_each_in_range, take_range};
use super::cache::Batch;
use super::graph::OocGraph;
use super::plan::{measure, Piece, Selective, Streaming, ARC_BYTES};
use super::IoMode;
use crate::bitmap::Bitmap;
use crate::Vertex;

/// The weights of a piece of a list, when the graph was opened with weights.
pub type Weights<'a> = Option<WeightsRef<'a>>;

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
}

impl<'a> ScanSpec<'a> {
    pub fn new(active: &'a Bitmap) -> Self {
        ScanSpec {
            active,
            activated: None,
            ordered: false,
            mode: None,
        }
    }
}

/// What one pass did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct IterationRecord {
    /// The mode that ran: "selective" or "streaming".
    pub mode: &'static str,
    pub active_vertices: u64,
    /// The cost model's view of both modes: page-widened bytes, requests, estimated seconds.
    pub selective_bytes: u64,
    pub selective_requests: u64,
    pub selective_estimate_seconds: f64,
    pub streaming_bytes: u64,
    pub streaming_requests: u64,
    pub streaming_estimate_seconds: f64,
    pub bytes_read: u64,
    pub requests: u64,
    /// Bytes of the lists (or parts of lists) that were processed, reentries excluded: the
    /// bytes an ideal reader would have read.
    pub bytes_needed: u64,
    /// Rounds of reprocessing a loaded range.
    pub reentries: u64,
    /// Active vertices served from the cache of short lists, and the bytes of their lists.
    pub cached_vertices: u64,
    pub cached_bytes: u64,
    pub seconds: f64,
    pub io_wait_seconds: f64,
    pub compute_seconds: f64,
}

impl IterationRecord {
    /// The arcs handed to the visitor, read or cached (reentries excluded).
    pub fn arcs_processed(&self) -> u64 {
        (self.bytes_needed + self.cached_bytes) / ARC_BYTES
    }
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
        let gap = self
            .profile
            .break_even_gap_bytes()
            .clamp(ALIGN as u64, chunk / 2);
        let files = if self.weights.is_some() { 2 } else { 1 };
        // Cached lists are served from memory; the rest are read. An ordered pass reads every
        // list in order instead.
        let use_cache = !spec.ordered && self.cache.holds_any();
        let uncached = use_cache.then(|| self.cache.uncached(spec.active));
        let to_read = uncached.as_ref().unwrap_or(spec.active);
        let (selective_bytes, selective_requests) =
            measure(Selective::new(&self.offsets, to_read, chunk, gap));
        let (streaming_bytes, streaming_requests) =
            measure(Streaming::new(&self.offsets, to_read, None, chunk));
        let cost =
            |bytes: u64, requests: u64| self.profile.cost_seconds(bytes * files, requests * files);
        let selective_estimate_seconds = cost(selective_bytes, selective_requests);
        let streaming_estimate_seconds = cost(streaming_bytes, streaming_requests);
        let mode = match spec.mode.unwrap_or(self.options.mode) {
            // On a tie (nothing to read: every active list is cached) the pass is selective.
            IoMode::Adaptive if selective_estimate_seconds <= streaming_estimate_seconds => {
                IoMode::Selective
            }
            IoMode::Adaptive => IoMode::Streaming,
            fixed => fixed,
        };
        let pieces: Box<dyn Iterator<Item = Piece> + '_> = match mode {
            IoMode::Selective => Box::new(Selective::new(&self.offsets, to_read, chunk, gap)),
            _ => Box::new(Streaming::new(
                &self.offsets,
                to_read,
                spec.activated,
                chunk,
            )),
        };
        let (cached_vertices, cached_arcs) = if use_cache {
            self.cache.visit_active(spec.active, &visit)
        } else {
            (0, 0)
        };
        // Short lists are cached from selective passes, whose reads they would make cheaper;
        // a streaming pass reads every page anyway.
        let admit = mode == IoMode::Selective && !spec.ordered && self.cache.is_enabled();
        let needed = AtomicU64::new(0);
        let reentries = AtomicU64::new(0);
        let mut file_list: Vec<&DataFile> = vec![&self.neighbors];
        if let Some((w, _)) = &self.weights {
            file_list.push(w);
        }
        let process = |loaded: &Loaded<'_, Piece>| -> io::Result<()> {
            let (bytes, rounds) = self.process(loaded, to_read, spec, admit, &visit)?;
            needed.fetch_add(bytes, Relaxed);
            reentries.fetch_add(rounds, Relaxed);
            Ok(())
        };
        let totals = engine.run(
            &file_list,
            pieces.map(|p| (p.extent(), p)),
            spec.ordered,
            |batch| {
                if spec.ordered {
                    batch.iter().try_for_each(process)
                } else {
                    batch.par_iter().try_for_each(process)
                }
            },
        )?;
        drop(engine);
        let record = IterationRecord {
            mode: mode.name(),
            active_vertices: spec.active.count_ones() as u64,
            selective_bytes,
            selective_requests,
            selective_estimate_seconds,
            streaming_bytes,
            streaming_requests,
            streaming_estimate_seconds,
            bytes_read: totals.bytes_read,
            requests: totals.requests,
            bytes_needed: needed.into_inner(),
            reentries: reentries.into_inner(),
            cached_vertices,
            cached_bytes: cached_arcs * ARC_BYTES,
            seconds: started.elapsed().as_secs_f64(),
            io_wait_seconds: totals.wait_seconds,
            compute_seconds: totals.compute_seconds,
        };
        log::info!(
            "iteration {}: {} active; selective ~{:.3} s ({} KiB, {} requests), streaming ~{:.3} s \
             ({} KiB, {} chunks) -> {}; read {} KiB in {:.3} s (waiting {:.3} s), {} reentries, \
             {} lists ({} KiB) from the cache",
            self.records.lock().map_or(0, |r| r.len()),
            record.active_vertices,
            selective_estimate_seconds,
            selective_bytes >> 10,
            selective_requests,
            streaming_estimate_seconds,
            streaming_bytes >> 10,
            streaming_requests,
            record.mode,
            record.bytes_read >> 10,
            record.seconds,
            record.io_wait_seconds,
            record.reentries,
            record.cached_vertices,
            record.cached_bytes >> 10
        );
        if let Ok(mut records) = self.records.lock() {
            records.push(record.clone());
        }
        Ok(record)
    }

    /// Processes one loaded piece: the lists of the vertices of `to_read` in it, then reentry;
    /// with `admit`, caches the short lists the cache admits. Returns (bytes of lists processed,
    /// reentry rounds).
    fn process<V>(
        &self,
        loaded: &Loaded<'_, Piece>,
        to_read: &Bitmap,
        spec: &ScanSpec<'_>,
        admit: bool,
        visit: &V,
    ) -> io::Result<(u64, u64)>
    where
        V: Fn(Vertex, &[Vertex], Weights<'_>) + Sync,
    {
        let piece = &loaded.payload;
        let neighbors: &[Vertex] = cast(loaded.parts[0]);
        let n = self.num_vertices();
        if let Some(i) = neighbors.iter().position(|&u| u as usize >= n) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: neighbour id {} at arc {} is not below n={n} (corrupt store?)",
                    self.neighbors.path().display(),
                    neighbors[i],
                    piece.arcs.start + i as u64
                ),
            ));
        }
        let weights: Weights<'_> = self.weights.as_ref().map(|(_, t)| match t {
            WeightType::I32 => WeightsRef::I32(cast(loaded.parts[1])),
            WeightType::F32 => WeightsRef::F32(cast(loaded.parts[1])),
        });
        let (a, b) = (piece.arcs.start, piece.arcs.end);
        let offsets = &self.offsets;
        let mut batch = Batch::default();
        let mut visit_vertex = |v: Vertex, admit: bool| -> u64 {
            let (start, end) = (offsets[v as usize], offsets[v as usize + 1]);
            let (lo, hi) = (start.max(a), end.min(b));
            if lo >= hi {
                return 0;
            }
            let (i, j) = ((lo - a) as usize, (hi - a) as usize);
            let w = weights.map(|w| match w {
                WeightsRef::I32(w) => WeightsRef::I32(&w[i..j]),
                WeightsRef::F32(w) => WeightsRef::F32(&w[i..j]),
            });
            visit(v, &neighbors[i..j], w);
            let whole = (lo, hi) == (start, end);
            if admit && whole && self.cache.admits(v, (hi - lo) as usize) {
                batch.push(v, &neighbors[i..j], w);
            }
            hi - lo
        };
        let mut arcs = 0u64;
        for_each_in_range(to_read, piece.verts.start, piece.verts.end, |v| {
            arcs += visit_vertex(v, admit)
        });
        let mut rounds = 0;
        if let Some(activated) = spec.activated {
            // Only vertices whose whole list is loaded can be taken from `activated`.
            let verts = piece.verts.start as usize..piece.verts.end as usize;
            let whole_lo = verts.start + offsets[verts.clone()].partition_point(|&o| o < a);
            let whole_hi =
                verts.start + offsets[verts.start + 1..verts.end + 1].partition_point(|&o| o <= b);
            if whole_lo < whole_hi {
                let (lo, hi) = (whole_lo as Vertex, whole_hi as Vertex);
                take_range(activated, lo, hi, |v| arcs += visit_vertex(v, false));
                for _ in 0..self.options.max_reentries {
                    let mut any = false;
                    take_range(activated, lo, hi, |v| {
                        any = true;
                        visit_vertex(v, false);
                    });
                    if !any {
                        break;
                    }
                    rounds += 1;
                }
            }
        }
        if !batch.is_empty() {
            self.cache.insert(batch);
        }
        Ok((arcs * ARC_BYTES, rounds))
    }
}

/// Reinterprets loaded little-endian bytes as 4-byte values (the store enforces a little-endian
/// host). Buffers are page-aligned and every piece starts at an arc boundary, so the bytes are
/// 4-aligned; anything else is a bug, not bad input.
fn cast<T: Copy + 'static>(bytes: &[u8]) -> &[T] {
    debug_assert_eq!(std::mem::size_of::<T>(), 4);
    // SAFETY: T is u32, i32 or f32: every bit pattern is a valid value.
    let (head, values, tail) = unsafe { bytes.align_to::<T>() };
    assert!(
        head.is_empty() && tail.is_empty(),
        "a loaded piece is 4-aligned"
    );
    values
}
