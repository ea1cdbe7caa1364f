//! The side file of first neighbours (`first_neighbors.u32`, 4 bytes a vertex): each vertex's
//! smallest out-neighbour, for passes that need no more of a list than its first id.
//!
//! BFS's bottom-up step stops each unvisited vertex at its first neighbour in the frontier, and
//! on a degree-ordered store that is nearly always the first neighbour of all (a hub). In memory
//! that costs one arc a vertex; out of core the pull must read whole lists (on Kronecker 25,
//! 1.66 GB of lists to find 14.5M parents). Reading this file instead costs 134 MB, and only the
//! lists of the vertices it does not settle are read afterwards. CC's Afforest-style sampling
//! links each vertex to its first neighbour the same way.
//!
//! The kernels take its values in place of the lists, so a damaged file must end the run with
//! an error, not give a wrong answer: each page is checked against its page checksum as it
//! arrives. A store without page checksums has the file streamed whole, in order, through the
//! I/O pool, so that the whole file's checksum is checked on every use. Each value is also
//! checked to be a vertex before it is used as an index.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use vastgraph_io::{Extent, MAX_PARTS};
use vastgraph_store::manifest::{files, NO_NEIGHBOR};
use xxhash_rust::xxh3::Xxh3;

use super::bits::{any_in_range, for_each_in_range};
use super::graph::OocGraph;
use super::scan::{cast, IterationRecord};
use crate::bitmap::{Bitmap, WORDS_PER_TASK};
use crate::Vertex;

/// What [`IterationRecord::mode`] says of a pass over this file.
pub const FIRST_NEIGHBORS_MODE: &str = "first-neighbours";

impl OocGraph {
    /// Whether the store has the side file of first neighbours (stores written before it
    /// existed do not).
    pub fn has_first_neighbors(&self) -> bool {
        self.first_neighbors.is_some()
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
        let started = Instant::now();
        let file = self.first_neighbors.as_ref().ok_or_else(|| {
            anyhow::anyhow!(
                "{}: the store has no {}",
                self.dir.display(),
                files::FIRST_NEIGHBORS
            )
        })?;
        let n = self.num_vertices();
        let mut engine = self
            .io
            .lock()
            .map_err(|_| anyhow::anyhow!("the I/O engine is poisoned"))?;
        // Whole buffers: the chunks stay page-aligned, so no page is read twice.
        let chunk = engine.config().buffer_bytes as u64;
        let len = file.len();
        let checked_by_page = file.has_check();
        let wanted = |offset: u64, bytes: u64| {
            let (lo, hi) = (offset / 4, (offset + bytes).div_ceil(4).min(n as u64));
            !checked_by_page || any_in_range(active, lo as Vertex, hi as Vertex)
        };
        let needed = AtomicU64::new(0);
        let requests = (0..len.div_ceil(chunk))
            .map(|i| (i * chunk, chunk.min(len - i * chunk)))
            .filter(|&(offset, bytes)| wanted(offset, bytes))
            .map(|(offset, bytes)| {
                needed.fetch_add(bytes, Relaxed);
                let mut extents = [Extent { offset: 0, len: 0 }; MAX_PARTS];
                extents[0] = Extent {
                    offset,
                    len: bytes as usize,
                };
                (extents, offset)
            });
        // The pool reads one file per part; the other parts' ranges stay empty.
        let parts = vec![file; self.plan.files];
        // Page checksums check each page before its values are used; without them, the whole
        // file's checksum is checked after.
        let hasher = (!file.has_check()).then(|| Mutex::new(Xxh3::new()));
        let handed = AtomicU64::new(0);
        let compute = |offset: u64, bytes: &[u8]| -> io::Result<()> {
            let first_vertex = (offset / 4) as usize;
            let firsts: &[u32] = cast(bytes);
            // Tasks of whole bitmap words, as everywhere the work follows the degrees.
            let task = 64 * WORDS_PER_TASK;
            firsts
                .par_chunks(task)
                .with_max_len(1)
                .enumerate()
                .try_for_each(|(t, firsts)| {
                    let lo = first_vertex + t * task;
                    let mut visited = 0;
                    let mut bad = None;
                    for_each_in_range(active, lo as Vertex, (lo + firsts.len()) as Vertex, |v| {
                        let first = firsts[v as usize - lo];
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
                    handed.fetch_add(visited, Relaxed);
                    match bad {
                        None => Ok(()),
                        Some((v, first)) => Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!(
                                "{}: vertex {v} has {} arcs, but its first neighbour is recorded \
                                 as {first} (n = {n})",
                                file.path().display(),
                                self.degree(v)
                            ),
                        )),
                    }
                })
        };
        let totals = engine.run(&parts, requests, true, |loaded| {
            if let Some(hasher) = &hasher {
                hasher
                    .lock()
                    .map_err(|_| io::Error::other("the checksum is poisoned"))?
                    .update(loaded.parts[0]);
            }
            compute(loaded.payload, loaded.parts[0])
        })?;
        drop(engine);
        if let Some(hasher) = hasher {
            let hasher = hasher
                .into_inner()
                .map_err(|_| anyhow::anyhow!("the checksum is poisoned"))?;
            let expected = self
                .manifest
                .file(files::FIRST_NEIGHBORS)
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
            mode: FIRST_NEIGHBORS_MODE,
            active_vertices: active.count_ones() as u64,
            selective: None,
            streaming: None,
            bytes_read: totals.bytes_read,
            requests: totals.requests,
            bytes_needed: needed.into_inner(),
            arcs_processed: handed.into_inner(),
            reentries: 0,
            cached_vertices: 0,
            cached_bytes: 0,
            seconds: started.elapsed().as_secs_f64(),
            io_wait_seconds: totals.wait_seconds,
            compute_seconds: totals.compute_seconds,
        };
        let summary = format!(
            "{} active; first neighbours read ({} KiB in {:.3} s, waiting {:.3} s)",
            record.active_vertices,
            record.bytes_read >> 10,
            record.seconds,
            record.io_wait_seconds,
        );
        Ok(self.keep_record(record, &summary))
    }
}
