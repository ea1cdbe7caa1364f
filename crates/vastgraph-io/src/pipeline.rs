//! Streams a sequence of byte ranges through a bounded pool of aligned buffers.
//!
//! Each request names a logical byte range of every file given (any offset and length up to
//! [`IoEngine::max_extent`]: the same range for a raw store's ids and weights, different ones for
//! a compressed store's codes and raw weights); the pipeline widens each to whole pages for
//! `O_DIRECT`, keeps up to `depth` requests in flight, and hands each completed request to the
//! caller: in request order on the calling thread, or as it completes on the rayon pool. A
//! buffer starts its next read as soon as its own request was consumed.
//! A request whose ranges are all empty reads nothing and is handed over as soon as it is taken.

use std::io;
use std::sync::{mpsc, Mutex};
use std::time::Instant;

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

impl Extent {
    /// Nothing to read: what a request gives the files it does not read from.
    pub const NOTHING: Extent = Extent { offset: 0, len: 0 };
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
    /// Time blocked waiting for a read to complete with no request being consumed.
    pub wait_seconds: f64,
    /// The rest of the run's time: consuming requests, with reads in flight.
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
        // A read request's length is 32 bits in io_uring, and Linux reads at most 2 GiB at once.
        assert!(config.buffer_bytes <= 1 << 30, "buffers of at most 1 GiB");
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

    /// [`Self::run`] on one file, whatever number of files the engine was set up for (a
    /// weighted kernel's engine reads ids and weights): each request reads its range of `file`
    /// through the first part, and the other parts read nothing.
    pub fn run_one_file<T, I, C>(
        &mut self,
        file: &DataFile,
        requests: I,
        ordered: bool,
        consume: C,
    ) -> io::Result<IoTotals>
    where
        T: Send,
        I: IntoIterator<Item = (Extent, T)>,
        C: Fn(&Loaded<'_, T>) -> io::Result<()> + Sync,
    {
        let files = vec![file; self.parts];
        let requests = requests.into_iter().map(|(extent, payload)| {
            let mut extents = [Extent::NOTHING; MAX_PARTS];
            extents[0] = extent;
            (extents, payload)
        });
        self.run(&files, requests, ordered, consume)
    }

    /// Reads each request's ranges, the `p`-th from `files[p]`, and calls `consume` once for
    /// each completed request, after its pages passed their files' checks (page checksums).
    /// With `ordered`, on this thread in request order (waiting for the oldest request);
    /// otherwise each request as it completes, on the rayon pool, several at once, while this
    /// thread keeps every free buffer reading. A buffer is read into again as soon as its own
    /// request is consumed: consuming in batches left the disk idle at the end of each batch,
    /// and the cores waiting on the batch's slowest piece (out-of-core PageRank on Kronecker 25
    /// kept 1.5 of 2 cores busy). Stops at the first error (of a read, naming the file, of a
    /// check, or of `consume`); requests being consumed then finish first.
    pub fn run<T, I, C>(
        &mut self,
        files: &[&DataFile],
        requests: I,
        ordered: bool,
        consume: C,
    ) -> io::Result<IoTotals>
    where
        T: Send,
        I: IntoIterator<Item = ([Extent; MAX_PARTS], T)>,
        C: Fn(&Loaded<'_, T>) -> io::Result<()> + Sync,
    {
        assert_eq!(files.len(), self.parts, "one file per part");
        self.drain();
        let started = Instant::now();
        let depth = self.config.depth;
        let mut reads = Reads {
            backend: &mut *self.backend,
            outstanding: &mut self.outstanding,
            buffers: &self.buffers,
            buffer_bytes: self.config.buffer_bytes,
            files,
            slots: (0..depth).map(|_| None).collect(),
            in_flight: 0,
            done: Vec::new(),
            totals: IoTotals::default(),
        };
        let mut requests = requests.into_iter();
        let mut free: Vec<usize> = (0..depth).rev().collect();
        // Slots whose reads all completed, not yet handed over.
        let mut ready: Vec<usize> = Vec::new();
        let (mut next_seq, mut delivered_seq) = (0u64, 0u64);
        // Slots whose concurrent consumption ended, sent back by the task.
        let (finished_tx, finished_rx) = mpsc::channel::<usize>();
        let failure: Mutex<Option<io::Error>> = Mutex::new(None);
        let failed = || failure.lock().map_or(true, |f| f.is_some());
        let consume = &consume;
        // On a worker of the pool (a caller inside `install`), this thread runs queued tasks
        // before it blocks, or the pool would have a thread fewer to consume with.
        let on_worker = rayon::current_thread_index().is_some();
        let helped = || on_worker && rayon::yield_now() == Some(rayon::Yield::Executed);
        rayon::in_place_scope(|scope| -> io::Result<()> {
            // Handed to tasks and not yet sent back.
            let mut consuming = 0usize;
            loop {
                for slot in finished_rx.try_iter() {
                    reads.release(slot, &mut free);
                    consuming -= 1;
                }
                let stopped = failed();
                if !stopped {
                    // Keep every free buffer busy.
                    while let Some(&slot) = free.last() {
                        let Some((extents, payload)) = requests.next() else {
                            break;
                        };
                        free.pop();
                        if reads.start(slot, next_seq, extents, payload)? {
                            ready.push(slot);
                        }
                        next_seq += 1;
                    }
                    reads.backend.flush()?;
                    if ordered {
                        let oldest = ready.iter().position(|&s| reads.seq(s) == delivered_seq);
                        if let Some(i) = oldest {
                            let slot = ready.swap_remove(i);
                            reads.deliver(slot).consume(files, consume)?;
                            reads.release(slot, &mut free);
                            delivered_seq += 1;
                            continue;
                        }
                    } else {
                        for slot in ready.drain(..) {
                            let delivery = reads.deliver(slot);
                            let finished = Finished {
                                tx: finished_tx.clone(),
                                slot,
                            };
                            consuming += 1;
                            let failure = &failure;
                            scope.spawn(move |_| {
                                // Sends the slot back when dropped, even if `consume` panics.
                                let _finished = finished;
                                if let Err(e) = delivery.consume(files, consume) {
                                    if let Ok(mut first) = failure.lock() {
                                        first.get_or_insert(e);
                                    }
                                }
                            });
                        }
                    }
                }
                if reads.in_flight > 0 && !stopped {
                    if helped() {
                        continue;
                    }
                    // Blocked with nothing handed to a task: the pass waits on the device.
                    let starved = consuming == 0;
                    let waited = Instant::now();
                    reads.reap(&mut ready)?;
                    if starved {
                        reads.totals.wait_seconds += waited.elapsed().as_secs_f64();
                    }
                } else if consuming > 0 {
                    if helped() {
                        continue;
                    }
                    let slot = finished_rx.recv().expect("this thread holds a sender");
                    reads.release(slot, &mut free);
                    consuming -= 1;
                } else {
                    // Nothing reading or being consumed: every request was consumed, or one
                    // failed (the reads still in flight are reaped before the next run).
                    return match failure.lock().ok().and_then(|mut f| f.take()) {
                        Some(e) => Err(e),
                        None => Ok(()),
                    };
                }
            }
        })?;
        let mut totals = reads.totals;
        totals.compute_seconds = (started.elapsed().as_secs_f64() - totals.wait_seconds).max(0.0);
        Ok(totals)
    }
}

/// The state of one [`IoEngine::run`]: the slots, and the engine's parts it reads with.
struct Reads<'e, T> {
    backend: &'e mut dyn Backend,
    outstanding: &'e mut usize,
    /// `depth * files.len()` buffers (see [`buffer`]).
    buffers: &'e [AlignedBuf],
    buffer_bytes: usize,
    files: &'e [&'e DataFile],
    slots: Vec<Option<Slot<T>>>,
    /// Slots with a read not yet complete.
    in_flight: usize,
    done: Vec<(u64, io::Result<usize>)>,
    totals: IoTotals,
}

impl<'e, T> Reads<'e, T> {
    /// Starts reading a request into the free `slot`; returns whether it is complete already
    /// (it reads nothing).
    fn start(
        &mut self,
        slot_id: usize,
        seq: u64,
        extents: [Extent; MAX_PARTS],
        payload: T,
    ) -> io::Result<bool> {
        let mut slot = Slot {
            payload: Some(payload),
            seq,
            aligned_offset: [0; MAX_PARTS],
            skip: [0; MAX_PARTS],
            len: [0; MAX_PARTS],
            needed: [0; MAX_PARTS],
            filled: [0; MAX_PARTS],
            pending: 0,
        };
        let buffer_bytes = self.buffer_bytes;
        for (p, (file, extent)) in self.files.iter().zip(&extents).enumerate() {
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
                        "a request of {} bytes at offset {} spans {aligned_len} bytes of whole \
                         pages, more than a {buffer_bytes}-byte buffer",
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
            slot.needed[p] =
                ((aligned_offset + aligned_len as u64).min(file.len()) - aligned_offset) as usize;
            self.backend.submit(Job {
                tag: (slot_id * MAX_PARTS + p) as u64,
                fd: file.fd(),
                buf: buffer(self.buffers, self.files, slot_id, p).as_ptr(),
                len: aligned_len,
                offset: aligned_offset,
            })?;
            *self.outstanding += 1;
            self.totals.requests += 1;
            slot.pending += 1;
        }
        let complete = slot.pending == 0;
        if !complete {
            self.in_flight += 1;
        }
        self.slots[slot_id] = Some(slot);
        Ok(complete)
    }

    /// Frees a consumed slot for the next request.
    fn release(&mut self, slot_id: usize, free: &mut Vec<usize>) {
        self.slots[slot_id] = None;
        free.push(slot_id);
    }

    fn seq(&self, slot_id: usize) -> u64 {
        self.slots[slot_id].as_ref().expect("a taken slot").seq
    }

    /// Waits until at least one read finished; pushes the slots whose reads all finished onto
    /// `ready`. A short read asks for the rest.
    fn reap(&mut self, ready: &mut Vec<usize>) -> io::Result<()> {
        self.done.clear();
        self.backend.wait(&mut self.done)?;
        *self.outstanding -= self.done.len();
        for (tag, result) in self.done.drain(..) {
            let (slot_id, part) = (tag as usize / MAX_PARTS, tag as usize % MAX_PARTS);
            let slot = self.slots[slot_id]
                .as_mut()
                .expect("a completion for a busy slot");
            let file = self.files[part];
            let got = result.map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("{}: read failed: {e}", file.path().display()),
                )
            })?;
            self.totals.bytes_read += got as u64;
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
                self.backend.submit(Job {
                    tag,
                    fd: file.fd(),
                    // SAFETY: `filled` < the buffer length.
                    buf: unsafe {
                        buffer(self.buffers, self.files, slot_id, part)
                            .as_ptr()
                            .add(filled)
                    },
                    len: slot.needed[part].next_multiple_of(ALIGN) - filled,
                    offset: slot.aligned_offset[part] + filled as u64,
                })?;
                *self.outstanding += 1;
                self.totals.requests += 1;
                continue;
            }
            slot.pending -= 1;
            if slot.pending == 0 {
                self.in_flight -= 1;
                ready.push(slot_id);
            }
        }
        self.backend.flush()
    }

    /// Hands over a complete slot's request; the slot stays taken, and its buffers unread
    /// into, until the caller frees it.
    fn deliver(&mut self, slot_id: usize) -> Delivery<'e, T> {
        let slot = self.slots[slot_id].as_mut().expect("a ready slot");
        let payload = slot.payload.take().expect("delivered once");
        let slot = self.slots[slot_id].as_ref().expect("a ready slot");
        let mut parts: [&[u8]; MAX_PARTS] = [&[]; MAX_PARTS];
        let mut pages: [(u64, &[u8]); MAX_PARTS] = [(0, &[]); MAX_PARTS];
        for p in (0..self.files.len()).filter(|&p| slot.len[p] > 0) {
            let buf = buffer(self.buffers, self.files, slot_id, p).as_slice();
            parts[p] = &buf[slot.skip[p]..slot.skip[p] + slot.len[p]];
            pages[p] = (slot.aligned_offset[p], &buf[..slot.needed[p]]);
        }
        Delivery {
            loaded: Loaded { payload, parts },
            pages,
        }
    }
}

/// Slot `slot_id`'s buffer for `files[part]`: a slot owns `files.len()` consecutive buffers.
fn buffer<'e>(
    buffers: &'e [AlignedBuf],
    files: &[&DataFile],
    slot_id: usize,
    part: usize,
) -> &'e AlignedBuf {
    &buffers[slot_id * files.len() + part]
}

/// A completed request and the whole pages read for it, which its files' checks see.
struct Delivery<'e, T> {
    loaded: Loaded<'e, T>,
    pages: [(u64, &'e [u8]); MAX_PARTS],
}

impl<T> Delivery<'_, T> {
    fn consume<C>(&self, files: &[&DataFile], consume: &C) -> io::Result<()>
    where
        C: Fn(&Loaded<'_, T>) -> io::Result<()>,
    {
        for (file, &(offset, bytes)) in files.iter().zip(&self.pages) {
            if !bytes.is_empty() {
                file.check(offset, bytes)?;
            }
        }
        consume(&self.loaded)
    }
}

/// Sends a consumed slot back to the reading thread when dropped.
struct Finished {
    tx: mpsc::Sender<usize>,
    slot: usize,
}

impl Drop for Finished {
    fn drop(&mut self) {
        // The reading thread holds the receiver until every task ended.
        let _ = self.tx.send(self.slot);
    }
}

impl Drop for IoEngine {
    fn drop(&mut self) {
        // The kernel must not write into buffers freed below.
        self.drain();
    }
}
