//! Streams a sequence of byte ranges through a bounded pool of aligned buffers.
//!
//! Each request names a logical byte range of every file given (any offset and length up to
//! [`IoEngine::max_extent`]: the same range for a raw store's ids and weights, different ones for
//! a compressed store's codes and raw weights); the pipeline widens each to whole pages for
//! `O_DIRECT`, keeps up to `depth` requests in flight, and hands completed requests to the
//! caller in batches. Requests still in flight keep loading while the caller computes on a batch.
//! A request whose ranges are all empty reads nothing and is handed over as soon as it is taken.

use std::io;
use std::time::Instant;

use rayon::prelude::*;

use crate::aligned::{AlignedBuf, ALIGN};
use crate::backend::{open_backend, Backend, BackendChoice, Job};
use crate::file::DataFile;

/// Files read per request (neighbour ids, weights).
pub const MAX_PARTS: usize = 2;

#[derive(Clone, Debug)]
pub struct IoConfig {
    /// Bytes of each buffer in the pool (a multiple of [`ALIGN`], at least 4 pages).
    pub buffer_bytes: usize,
    /// Requests in flight at once (buffers per file).
    pub depth: usize,
    pub backend: BackendChoice,
}

/// A logical byte range of the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    pub offset: u64,
    pub len: usize,
}

/// A completed request: its payload and the requested bytes of each file.
pub struct Loaded<'a, T> {
    pub payload: T,
    pub parts: [&'a [u8]; MAX_PARTS],
}

/// What one or more runs did.
#[derive(Clone, Debug, Default)]
pub struct IoTotals {
    /// Bytes the device delivered (whole pages: includes the widening to page boundaries).
    pub bytes_read: u64,
    /// Read requests issued (one per file per range).
    pub requests: u64,
    /// Time blocked waiting for a read to complete.
    pub wait_seconds: f64,
    /// Time in the caller's processing of loaded batches.
    pub compute_seconds: f64,
}

impl IoTotals {
    pub fn add(&mut self, other: &IoTotals) {
        self.bytes_read += other.bytes_read;
        self.requests += other.requests;
        self.wait_seconds += other.wait_seconds;
        self.compute_seconds += other.compute_seconds;
    }
}

pub struct IoEngine {
    backend: Box<dyn Backend>,
    /// Reads handed to the backend and not yet reaped. A run that stops on an error leaves
    /// some in flight: they are reaped before the next run (whose slots they would confuse)
    /// and before the buffers they write into are freed.
    outstanding: usize,
    /// `depth * parts` buffers; slot s owns buffers `s * parts ..`.
    buffers: Vec<AlignedBuf>,
    parts: usize,
    config: IoConfig,
}

struct Slot<T> {
    payload: Option<T>,
    seq: u64,
    /// Per file: the page-aligned file offset its buffer starts at.
    aligned_offset: [u64; MAX_PARTS],
    /// Per file: where the logical range starts in the buffer, and its length.
    skip: [usize; MAX_PARTS],
    len: [usize; MAX_PARTS],
    /// Bytes that must arrive: up to the page-aligned end, or the end of the file.
    needed: [usize; MAX_PARTS],
    filled: [usize; MAX_PARTS],
    pending: usize,
}

impl IoEngine {
    /// A pool of `config.depth` buffers for each of `parts` files (1 or 2).
    pub fn new(config: IoConfig, parts: usize) -> io::Result<IoEngine> {
        assert!((1..=MAX_PARTS).contains(&parts), "1 or 2 files per request");
        assert!(config.depth >= 1, "at least one request in flight");
        assert!(
            config.buffer_bytes >= 4 * ALIGN && config.buffer_bytes.is_multiple_of(ALIGN),
            "buffers are whole pages, at least 4"
        );
        let backend = open_backend(config.backend, config.depth)?;
        let buffers = (0..config.depth * parts)
            .map(|_| AlignedBuf::new(config.buffer_bytes))
            .collect();
        Ok(IoEngine {
            backend,
            outstanding: 0,
            buffers,
            parts,
            config,
        })
    }

    /// Reaps every read still in flight (left by a run that stopped on an error), ignoring
    /// their results.
    fn drain(&mut self) {
        let mut done = Vec::new();
        while self.outstanding > 0 {
            let _ = self.backend.flush();
            done.clear();
            if self.backend.wait(&mut done).is_err() {
                // The backend is broken: nothing more will complete through it.
                break;
            }
            self.outstanding = self.outstanding.saturating_sub(done.len());
        }
    }

    /// Bytes the buffer pool holds.
    pub fn pool_bytes(&self) -> usize {
        self.buffers.len() * self.config.buffer_bytes
    }

    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    pub fn config(&self) -> &IoConfig {
        &self.config
    }

    /// The longest range one request may ask for wherever it starts: its widening to whole pages
    /// must fit a buffer. (A page-aligned range may be a whole buffer long.)
    pub fn max_extent(&self) -> usize {
        self.config.buffer_bytes - ALIGN
    }

    /// Reads each request's ranges, the `p`-th from `files[p]`, calling `consume` with batches of
    /// completed requests. With `ordered`, batches come in request order (at the cost of waiting
    /// for the oldest request); otherwise in completion order. Stops at the first error (of a
    /// read, naming the file, or of `consume`).
    pub fn run<T, I, C>(
        &mut self,
        files: &[&DataFile],
        requests: I,
        ordered: bool,
        mut consume: C,
    ) -> io::Result<IoTotals>
    where
        I: IntoIterator<Item = ([Extent; MAX_PARTS], T)>,
        C: FnMut(&[Loaded<'_, T>]) -> io::Result<()>,
    {
        assert_eq!(files.len(), self.parts, "one file per part");
        self.drain();
        let depth = self.config.depth;
        let buffer_bytes = self.config.buffer_bytes;
        let max_batch = (depth / 2).max(1);
        let mut requests = requests.into_iter();
        let mut slots: Vec<Option<Slot<T>>> = (0..depth).map(|_| None).collect();
        let mut free: Vec<usize> = (0..depth).rev().collect();
        let mut ready: Vec<usize> = Vec::new();
        let mut in_flight = 0usize;
        let (mut submitted_seq, mut delivered_seq) = (0u64, 0u64);
        let mut exhausted = false;
        let mut totals = IoTotals::default();
        let mut done = Vec::new();

        loop {
            // Keep every free buffer busy.
            while !exhausted && !free.is_empty() {
                let Some((extents, payload)) = requests.next() else {
                    exhausted = true;
                    break;
                };
                let slot_id = free.pop().expect("checked non-empty");
                let mut slot = Slot {
                    payload: Some(payload),
                    seq: submitted_seq,
                    aligned_offset: [0; MAX_PARTS],
                    skip: [0; MAX_PARTS],
                    len: [0; MAX_PARTS],
                    needed: [0; MAX_PARTS],
                    filled: [0; MAX_PARTS],
                    pending: 0,
                };
                for (p, (file, extent)) in files.iter().zip(&extents).enumerate() {
                    if extent.len == 0 {
                        continue;
                    }
                    let aligned_offset = extent.offset / ALIGN as u64 * ALIGN as u64;
                    let skip = (extent.offset - aligned_offset) as usize;
                    let aligned_len = (skip + extent.len).next_multiple_of(ALIGN);
                    if aligned_len > buffer_bytes {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            format!(
                                "a request of {} bytes at offset {} spans {aligned_len} bytes of \
                                 whole pages, more than a {buffer_bytes}-byte buffer",
                                extent.len, extent.offset
                            ),
                        ));
                    }
                    let end = extent.offset + extent.len as u64;
                    if end > file.len() {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            format!(
                                "{}: bytes {}..{end} requested, the file has {}",
                                file.path().display(),
                                extent.offset,
                                file.len()
                            ),
                        ));
                    }
                    slot.aligned_offset[p] = aligned_offset;
                    slot.skip[p] = skip;
                    slot.len[p] = extent.len;
                    slot.needed[p] = ((aligned_offset + aligned_len as u64).min(file.len())
                        - aligned_offset) as usize;
                    self.backend.submit(Job {
                        tag: (slot_id * MAX_PARTS + p) as u64,
                        fd: file.fd(),
                        buf: self.buffers[slot_id * self.parts + p].as_ptr(),
                        len: aligned_len,
                        offset: aligned_offset,
                    })?;
                    self.outstanding += 1;
                    totals.requests += 1;
                    slot.pending += 1;
                }
                if slot.pending == 0 {
                    ready.push(slot_id);
                } else {
                    in_flight += 1;
                }
                slots[slot_id] = Some(slot);
                submitted_seq += 1;
            }
            self.backend.flush()?;

            let deliverable = |ready: &mut Vec<usize>, slots: &[Option<Slot<T>>], next: u64| {
                if !ordered {
                    return ready.len().min(max_batch);
                }
                // Newest first, so that the oldest are at the end.
                ready.sort_unstable_by_key(|&s| std::cmp::Reverse(slots[s].as_ref().unwrap().seq));
                ready
                    .iter()
                    .rev()
                    .zip(next..)
                    .take_while(|(&s, want)| slots[s].as_ref().unwrap().seq == *want)
                    .count()
                    .min(max_batch)
            };
            let mut count = deliverable(&mut ready, &slots, delivered_seq);
            if count == 0 {
                if in_flight == 0 {
                    debug_assert!(ready.is_empty());
                    return Ok(totals);
                }
                let waited = Instant::now();
                done.clear();
                self.backend.wait(&mut done)?;
                self.outstanding -= done.len();
                totals.wait_seconds += waited.elapsed().as_secs_f64();
                for (tag, result) in done.drain(..) {
                    let (slot_id, part) = (tag as usize / MAX_PARTS, tag as usize % MAX_PARTS);
                    let slot = slots[slot_id]
                        .as_mut()
                        .expect("a completion for a busy slot");
                    let file = files[part];
                    let got = result.map_err(|e| {
                        io::Error::new(
                            e.kind(),
                            format!("{}: read failed: {e}", file.path().display()),
                        )
                    })?;
                    totals.bytes_read += got as u64;
                    slot.filled[part] += got;
                    let filled = slot.filled[part];
                    if filled < slot.needed[part] {
                        if got == 0 {
                            return Err(io::Error::new(
                                io::ErrorKind::UnexpectedEof,
                                format!(
                                    "{}: file ended at byte {} while reading",
                                    file.path().display(),
                                    slot.aligned_offset[part] + filled as u64
                                ),
                            ));
                        }
                        // A short read: ask for the rest.
                        self.backend.submit(Job {
                            tag,
                            fd: file.fd(),
                            // SAFETY: `filled` < the buffer length.
                            buf: unsafe {
                                self.buffers[slot_id * self.parts + part]
                                    .as_ptr()
                                    .add(filled)
                            },
                            len: slot.needed[part].next_multiple_of(ALIGN) - filled,
                            offset: slot.aligned_offset[part] + filled as u64,
                        })?;
                        self.outstanding += 1;
                        totals.requests += 1;
                        continue;
                    }
                    slot.pending -= 1;
                    if slot.pending == 0 {
                        in_flight -= 1;
                        ready.push(slot_id);
                    }
                }
                self.backend.flush()?;
                count = deliverable(&mut ready, &slots, delivered_seq);
                if count == 0 {
                    continue;
                }
            }

            let mut batch: Vec<usize> = ready.drain(ready.len() - count..).collect();
            if ordered {
                // `ready` holds the oldest last.
                batch.reverse();
            }
            // Each file's check (its page checksums) sees every page read, in parallel, before
            // any of the batch is handed over; it counts as computing.
            let computing = Instant::now();
            let reads: Vec<(&DataFile, u64, &[u8])> = batch
                .iter()
                .flat_map(|&slot_id| {
                    let slot = slots[slot_id].as_ref().expect("ready slot");
                    let buffers = &self.buffers;
                    let parts = self.parts;
                    (0..files.len()).filter(|&p| slot.len[p] > 0).map(move |p| {
                        let buf = buffers[slot_id * parts + p].as_slice();
                        (files[p], slot.aligned_offset[p], &buf[..slot.needed[p]])
                    })
                })
                .collect();
            reads
                .par_iter()
                .try_for_each(|&(file, offset, bytes)| file.check(offset, bytes))?;
            let loaded: Vec<Loaded<'_, T>> = batch
                .iter()
                .map(|&slot_id| {
                    let slot = slots[slot_id].as_mut().expect("ready slot");
                    let mut parts: [&[u8]; MAX_PARTS] = [&[]; MAX_PARTS];
                    for (p, part) in parts.iter_mut().enumerate().take(files.len()) {
                        let buf = self.buffers[slot_id * self.parts + p].as_slice();
                        *part = &buf[slot.skip[p]..slot.skip[p] + slot.len[p]];
                    }
                    Loaded {
                        payload: slot.payload.take().expect("delivered once"),
                        parts,
                    }
                })
                .collect();
            delivered_seq += batch.len() as u64;
            consume(&loaded)?;
            totals.compute_seconds += computing.elapsed().as_secs_f64();
            drop(loaded);
            for slot_id in batch {
                slots[slot_id] = None;
                free.push(slot_id);
            }
        }
    }
}

impl Drop for IoEngine {
    fn drop(&mut self) {
        // The kernel must not write into buffers freed below.
        self.drain();
    }
}
