//! Random access to the lists on disk: [`OocLists`] implements [`Adjacency`] on an
//! [`OocGraph`], so that every kernel written against the engine's graph interface runs out of
//! core unchanged, within the budget, as in Sage where the algorithm never knows where its edges
//! come from.
//!
//! The offsets are in DRAM (as for passes), so degrees cost nothing. A list is read through a
//! cache of fixed-size blocks of the neighbour file (and of the weight file), held in the room the
//! plan leaves after the offsets, the vertex state and the I/O pool, and evicted by CLOCK. Blocks
//! are read with blocking `pread`s (direct I/O where the file system allows it), each checked
//! against the store's page checksums as it arrives; every list handed to a kernel is checked
//! strictly increasing and in range, as a pass checks it. A kernel cannot be handed an error in
//! the middle of a neighbour loop, so the first one is kept, the list reads as empty, and the run
//! reports the error instead of a result ([`OocGraph::take_list_error`]).
//!
//! Kernels that sweep the vertices in id order read the file nearly sequentially, a block at a
//! time; kernels that jump (a sparse frontier, a list intersection) pay a block read per miss.
//! Passes over whole frontiers are cheaper through [`OocGraph::scan`], which plans and orders the
//! reads; this view is what lets the algorithms without such a pass run within the budget.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use vastgraph_codec::{decode_list_blocks, ListSpan};
use vastgraph_io::{AlignedBuf, DataFile, ALIGN};
use vastgraph_store::WeightType;

use super::graph::{Codes, OocGraph};
use super::scan::{IterationRecord, ScanSpec};
use crate::bitmap::Bitmap;
use crate::graph::Adjacency;
use crate::Vertex;

/// Ids a raw list hands over at a time: a kernel that stops early (a bottom-up search, a first
/// neighbour) reads no further than the window it stopped in. A multiple of
/// [`crate::NEIGHBOR_BLOCK`], as [`Adjacency::try_for_each_neighbor_block`] requires.
const WINDOW: usize = 1 << 12;

/// Blocks of the cache: large enough that a sweep in id order reads at the device's sequential
/// rate, small enough that a jump to a short list does not read much around it.
const LARGE_BLOCK: usize = 64 << 10;
const SMALL_BLOCK: usize = 16 << 10;
const SHARDS: usize = 64;
/// Bytes a sweeping thread reads in one request (whole blocks).
const READ_AHEAD_BYTES: usize = 256 << 10;

thread_local! {
    /// The (file, block) this thread last read, to tell a sweep from jumps.
    static LAST_MISS: std::cell::Cell<Option<(u8, u64)>> = const { std::cell::Cell::new(None) };
}

/// Which file a cached block belongs to.
#[derive(Clone, Copy)]
enum FileTag {
    Lists = 0,
    Weights = 1,
}

struct Slot {
    key: u64,
    data: Arc<AlignedBuf>,
    referenced: bool,
}

#[derive(Default)]
struct Shard {
    slots: Vec<Slot>,
    index: HashMap<u64, usize>,
    hand: usize,
    capacity: usize,
}

impl Shard {
    /// Inserts `data` under `key`, evicting by CLOCK when full.
    fn insert(&mut self, key: u64, data: Arc<AlignedBuf>) {
        if self.capacity == 0 {
            return;
        }
        if self.slots.len() < self.capacity {
            self.index.insert(key, self.slots.len());
            self.slots.push(Slot {
                key,
                data,
                referenced: false,
            });
            return;
        }
        loop {
            let hand = self.hand;
            self.hand = (self.hand + 1) % self.slots.len();
            let slot = &mut self.slots[hand];
            if slot.referenced {
                slot.referenced = false;
                continue;
            }
            self.index.remove(&slot.key);
            *slot = Slot {
                key,
                data,
                referenced: false,
            };
            self.index.insert(key, hand);
            return;
        }
    }
}

/// The cache of blocks, and what it read.
pub(crate) struct BlockCache {
    block: usize,
    /// Blocks a sweep reads in one request: at most half of what the cache holds, so that a
    /// read ahead does not evict the blocks it brought in before they are used.
    ahead: usize,
    shards: Box<[Mutex<Shard>]>,
    reads: AtomicU64,
    bytes_read: AtomicU64,
    bytes_served: AtomicU64,
    wait_nanos: AtomicU64,
}

impl BlockCache {
    /// A cache holding at most `room` bytes of blocks (none when `room` is 0: every access
    /// reads, and the block is dropped after use).
    pub fn new(room: u64) -> BlockCache {
        let block = if room >= (SHARDS * 4 * LARGE_BLOCK) as u64 {
            LARGE_BLOCK
        } else {
            SMALL_BLOCK
        };
        let blocks = (room / block as u64) as usize;
        // At least 4 blocks a shard: a shard of none would drop what a sweep reads ahead
        // into it, and the sweep would read those blocks again one by one.
        let count = (blocks / 4).clamp(1, SHARDS);
        let shards = (0..count)
            .map(|s| {
                Mutex::new(Shard {
                    // The blocks spread over the shards, the first ones taking the remainder.
                    capacity: blocks / count + usize::from(s < blocks % count),
                    ..Default::default()
                })
            })
            .collect();
        BlockCache {
            block,
            ahead: (READ_AHEAD_BYTES / block).min(blocks / 2).max(1),
            shards,
            reads: AtomicU64::new(0),
            bytes_read: AtomicU64::new(0),
            bytes_served: AtomicU64::new(0),
            wait_nanos: AtomicU64::new(0),
        }
    }

    /// Empties the cache, so that a run does not profit from an earlier one.
    pub fn clear(&self) {
        for shard in self.shards.iter() {
            let mut s = shard.lock().unwrap_or_else(|p| p.into_inner());
            s.slots.clear();
            s.index.clear();
            s.hand = 0;
        }
    }

    fn shard(&self, key: u64) -> &Mutex<Shard> {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        &self.shards[h as usize % self.shards.len()]
    }

    /// Block `index` of `file`, from the cache or read (and cached).
    fn get(&self, file: &DataFile, tag: FileTag, index: u64) -> io::Result<Arc<AlignedBuf>> {
        let key = (tag as u64) << 56 | index;
        let shard = self.shard(key);
        {
            let mut s = shard.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(&at) = s.index.get(&key) {
                let slot = &mut s.slots[at];
                slot.referenced = true;
                return Ok(slot.data.clone());
            }
        }
        // A thread that missed the block before this one is sweeping the file: it reads the
        // blocks ahead in the same request, one large read where the device is fast, instead
        // of one small read at a time at a queue depth of one.
        let sweeping = LAST_MISS.with(|last| {
            let was = last.replace(Some((tag as u8, index)));
            was.is_some_and(|(t, i)| t == tag as u8 && i + 1 == index)
        });
        let blocks_in_file = file.len().div_ceil(self.block as u64);
        let count = if sweeping { self.ahead } else { 1 }.min((blocks_in_file - index) as usize);
        let start = index * self.block as u64;
        let len = (file.len() - start).min((count * self.block) as u64) as usize;
        let mut span = AlignedBuf::new(count * self.block);
        let started = Instant::now();
        let (_, delivered) = file.read_span(start, len, &mut span)?;
        self.wait_nanos
            .fetch_add(started.elapsed().as_nanos() as u64, Relaxed);
        self.reads.fetch_add(1, Relaxed);
        self.bytes_read.fetch_add(delivered, Relaxed);
        if sweeping {
            LAST_MISS.with(|last| last.set(Some((tag as u8, index + count as u64 - 1))));
        }
        let mut wanted = None;
        for k in 0..count {
            let data = if count == 1 {
                Arc::new(std::mem::replace(&mut span, AlignedBuf::new(0)))
            } else {
                let mut one = AlignedBuf::new(self.block);
                let from = k * self.block;
                let bytes = (len - from.min(len)).min(self.block);
                one.as_mut_slice()[..bytes].copy_from_slice(&span.as_slice()[from..from + bytes]);
                Arc::new(one)
            };
            let key = (tag as u64) << 56 | (index + k as u64);
            let mut s = self.shard(key).lock().unwrap_or_else(|p| p.into_inner());
            // Another thread may have read the same block meanwhile: keep one copy.
            let data = match s.index.get(&key) {
                Some(&at) => s.slots[at].data.clone(),
                None => {
                    s.insert(key, data.clone());
                    data
                }
            };
            if k == 0 {
                wanted = Some(data);
            }
        }
        Ok(wanted.expect("at least the wanted block was read"))
    }

    /// Appends bytes `from..to` of `file` to `out`, block by block.
    fn copy(
        &self,
        file: &DataFile,
        tag: FileTag,
        from: u64,
        to: u64,
        out: &mut Vec<u8>,
    ) -> io::Result<()> {
        if to > file.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "{}: bytes {from}..{to} requested, the file has {}",
                    file.path().display(),
                    file.len()
                ),
            ));
        }
        let block = self.block as u64;
        let mut at = from;
        while at < to {
            let index = at / block;
            let data = self.get(file, tag, index)?;
            let lo = (at - index * block) as usize;
            let hi = ((to - index * block) as usize).min(self.block);
            out.extend_from_slice(&data.as_slice()[lo..hi]);
            at = index * block + hi as u64;
        }
        self.bytes_served.fetch_add(to - from, Relaxed);
        Ok(())
    }

    /// What the cache read since the last call, as one record, or None if it read nothing.
    pub fn take_record(&self) -> Option<IterationRecord> {
        let reads = self.reads.swap(0, Relaxed);
        let served = self.bytes_served.swap(0, Relaxed);
        let bytes_read = self.bytes_read.swap(0, Relaxed);
        let wait = self.wait_nanos.swap(0, Relaxed) as f64 / 1e9;
        (reads > 0 || served > 0).then_some(IterationRecord {
            mode: "random",
            active_vertices: 0,
            selective: None,
            streaming: None,
            bytes_read,
            requests: reads,
            bytes_needed: served,
            arcs_processed: 0,
            reentries: 0,
            cached_vertices: 0,
            cached_bytes: 0,
            seconds: wait,
            io_wait_seconds: wait,
            compute_seconds: 0.0,
        })
    }
}

/// A list's bytes, ids and weights, reused from call to call on a thread. Calls nest (a kernel
/// that reads `u`'s list inside the loop over `v`'s), so each call takes a buffer of its own.
#[derive(Default)]
struct ListBuf {
    bytes: Vec<u8>,
    ids: Vec<Vertex>,
    weight_bytes: Vec<u8>,
    weights: Vec<f64>,
}

thread_local! {
    static BUFFERS: RefCell<Vec<ListBuf>> = const { RefCell::new(Vec::new()) };
}

/// At most this many spare buffers stay with a thread: as many as calls commonly nest.
const SPARE_BUFFERS: usize = 2;

fn with_buffer<R>(f: impl FnOnce(&mut ListBuf) -> R) -> R {
    let mut buf = BUFFERS.with(|b| b.borrow_mut().pop()).unwrap_or_default();
    let result = f(&mut buf);
    BUFFERS.with(|b| {
        let mut spare = b.borrow_mut();
        if spare.len() < SPARE_BUFFERS {
            spare.push(buf);
        }
    });
    result
}

/// Bytes a thread may hold in list buffers: [`SPARE_BUFFERS`] buffers, each sized for the
/// longest list (of `max_degree` arcs). A raw list is handed over a window at a time (its
/// bytes and ids); a compressed one needs its whole codes (at most 5 bytes an id); weights add
/// their bytes and their f64s. The memory plan reserves this per thread.
pub fn list_buffer_bytes(max_degree: u64, weights: bool, compressed: bool) -> u64 {
    let held = if compressed {
        max_degree
    } else {
        max_degree.min(WINDOW as u64)
    };
    let ids = if compressed { 5 * max_degree } else { 8 * held };
    let weight_bytes = if weights { 12 * held } else { 0 };
    // With a sweep's read ahead, and its copy into blocks.
    SPARE_BUFFERS as u64 * (ids + weight_bytes) + 2 * READ_AHEAD_BYTES as u64
}

/// The graph interface on an [`OocGraph`]'s lists; see the module documentation.
#[derive(Clone, Copy)]
pub struct OocLists<'g> {
    g: &'g OocGraph,
}

impl OocGraph {
    /// This graph's lists behind the engine's graph interface.
    pub fn lists(&self) -> OocLists<'_> {
        OocLists { g: self }
    }

    /// The first error a read through [`Self::lists`] met since the last call, if any. A
    /// kernel that met one ran on lists read as empty: its result must be discarded.
    pub fn take_list_error(&self) -> Option<anyhow::Error> {
        let mut slot = self.list_error.lock().unwrap_or_else(|p| p.into_inner());
        slot.take().map(|message| anyhow::anyhow!(message))
    }

    fn keep_list_error(&self, e: io::Error) {
        let mut slot = self.list_error.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert_with(|| e.to_string());
    }
}

impl OocLists<'_> {
    /// Hands positions `lo..hi` of `v`'s list to `f` in consecutive pieces, with their weights
    /// when `weighted` (1.0 each on an unweighted graph), until `f` returns false. Returns false
    /// if stopped. On a read or validation error the error is kept and the list ends there.
    #[inline]
    fn walk<F: FnMut(&[Vertex], &[f64]) -> bool>(
        &self,
        v: Vertex,
        lo: usize,
        hi: usize,
        weighted: bool,
        mut f: F,
    ) -> bool {
        // Before any read and before the thread's buffer is borrowed: nothing to undo.
        crate::interrupt::check();
        let g = self.g;
        let hi = hi.min(g.degree(v));
        if lo >= hi {
            return true;
        }
        with_buffer(|buf| {
            let walked = match &g.codes {
                None => self.walk_raw(v, lo, hi, weighted, buf, &mut f),
                Some(codes) => self.walk_codes(codes, v, lo..hi, weighted, buf, &mut f),
            };
            walked.unwrap_or_else(|e| {
                g.keep_list_error(e);
                true
            })
        })
    }

    fn walk_raw<F: FnMut(&[Vertex], &[f64]) -> bool>(
        &self,
        v: Vertex,
        lo: usize,
        hi: usize,
        weighted: bool,
        buf: &mut ListBuf,
        f: &mut F,
    ) -> io::Result<bool> {
        let g = self.g;
        let first = g.offsets[v as usize];
        let mut last = None;
        for start in (lo..hi).step_by(WINDOW) {
            let end = (start + WINDOW).min(hi);
            let (a, b) = (first + start as u64, first + end as u64);
            buf.bytes.clear();
            g.blocks
                .copy(&g.neighbors, FileTag::Lists, 4 * a, 4 * b, &mut buf.bytes)?;
            buf.ids.clear();
            buf.ids.extend(
                buf.bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            last = self.check_ids(v, &buf.ids, last)?;
            self.fill_weights(weighted, a, b, buf)?;
            if !f(&buf.ids, &buf.weights) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn walk_codes<F: FnMut(&[Vertex], &[f64]) -> bool>(
        &self,
        codes: &Codes,
        v: Vertex,
        positions: std::ops::Range<usize>,
        weighted: bool,
        buf: &mut ListBuf,
        f: &mut F,
    ) -> io::Result<bool> {
        let g = self.g;
        let std::ops::Range { start: lo, end: hi } = positions;
        let (from, to) = (
            codes.byte_offsets.get(v as usize),
            codes.byte_offsets.get(v as usize + 1),
        );
        buf.bytes.clear();
        g.blocks
            .copy(&g.neighbors, FileTag::Lists, from, to, &mut buf.bytes)?;
        let first = g.offsets[v as usize];
        self.fill_weights(weighted, first + lo as u64, first + hi as u64, buf)?;
        let degree = g.degree(v);
        let n = g.num_vertices() as u64;
        let (mut handed, mut last, mut failed) = (0usize, None, None);
        let mut stopped = false;
        let ListBuf { bytes, weights, .. } = buf;
        let span = ListSpan {
            source: v,
            degree,
            n,
            lo,
            hi,
        };
        decode_list_blocks(codes.codec, bytes, span, |ids| {
            match self.check_ids(v, ids, last) {
                Ok(l) => last = l,
                Err(e) => {
                    failed = Some(e);
                    return false;
                }
            }
            let w = if weighted {
                &weights[handed..handed + ids.len()]
            } else {
                &[][..]
            };
            handed += ids.len();
            stopped = !f(ids, w);
            !stopped
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if !stopped && handed != hi - lo {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: the codes of vertex {v} decode to {handed} of positions {lo}..{hi} \
                     (corrupt store?)",
                    g.neighbors.path().display()
                ),
            ));
        }
        Ok(!stopped)
    }

    /// Checks that `ids` go on strictly increasing from `last` and are vertices; returns the
    /// new last id.
    fn check_ids(
        &self,
        v: Vertex,
        ids: &[Vertex],
        last: Option<Vertex>,
    ) -> io::Result<Option<Vertex>> {
        let n = self.g.num_vertices() as u64;
        let mut prev = last;
        for &u in ids {
            if u as u64 >= n || prev.is_some_and(|p| p >= u) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: invalid neighbour list of vertex {v}: neighbour {u} {} (lists must \
                         be strictly increasing ids below {n}; corrupt store?)",
                        self.g.neighbors.path().display(),
                        match prev {
                            Some(p) if p >= u => format!("follows {p}"),
                            _ => "is out of range".to_string(),
                        }
                    ),
                ));
            }
            prev = Some(u);
        }
        Ok(prev)
    }

    /// The weights of arcs `a..b` into `buf.weights` as f64 (1.0 each without a weight file),
    /// when `weighted`.
    fn fill_weights(&self, weighted: bool, a: u64, b: u64, buf: &mut ListBuf) -> io::Result<()> {
        buf.weights.clear();
        if !weighted {
            return Ok(());
        }
        let Some((file, kind)) = &self.g.weights else {
            buf.weights.resize((b - a) as usize, 1.0);
            return Ok(());
        };
        buf.weight_bytes.clear();
        self.g
            .blocks
            .copy(file, FileTag::Weights, 4 * a, 4 * b, &mut buf.weight_bytes)?;
        let words = buf
            .weight_bytes
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]]);
        match kind {
            WeightType::I32 => buf
                .weights
                .extend(words.map(|w| i32::from_le_bytes(w) as f64)),
            WeightType::F32 => buf
                .weights
                .extend(words.map(|w| f32::from_le_bytes(w) as f64)),
        }
        Ok(())
    }
}

impl Adjacency for OocLists<'_> {
    const READS_IN_PASSES: bool = true;

    fn on_disk(&self) -> Option<&OocGraph> {
        Some(self.g)
    }

    fn num_vertices(&self) -> usize {
        self.g.num_vertices()
    }

    fn num_arcs(&self) -> u64 {
        self.g.num_arcs()
    }

    #[inline]
    fn degree(&self, v: Vertex) -> usize {
        self.g.degree(v)
    }

    fn is_weighted(&self) -> bool {
        self.g.manifest.weighted
    }

    fn for_each_neighbor<F: FnMut(Vertex)>(&self, v: Vertex, mut f: F) {
        self.walk(v, 0, usize::MAX, false, |ids, _| {
            ids.iter().for_each(|&u| f(u));
            true
        });
    }

    fn for_each_neighbor_in<F: FnMut(Vertex, f64)>(
        &self,
        v: Vertex,
        lo: usize,
        hi: usize,
        mut f: F,
    ) {
        self.walk(v, lo, hi, true, |ids, w| {
            ids.iter().zip(w).for_each(|(&u, &x)| f(u, x));
            true
        });
    }

    fn for_each_weighted<F: FnMut(Vertex, f64)>(&self, v: Vertex, f: F) {
        self.for_each_neighbor_in(v, 0, usize::MAX, f)
    }

    fn try_for_each_neighbor<F: FnMut(Vertex) -> bool>(&self, v: Vertex, mut f: F) -> bool {
        self.walk(v, 0, usize::MAX, false, |ids, _| ids.iter().all(|&u| f(u)))
    }

    fn try_for_each_neighbor_from<F: FnMut(Vertex) -> bool>(
        &self,
        v: Vertex,
        from: usize,
        mut f: F,
    ) -> bool {
        self.walk(v, from, usize::MAX, false, |ids, _| {
            ids.iter().all(|&u| f(u))
        })
    }

    fn first_neighbor(&self, v: Vertex) -> Option<Vertex> {
        let mut first = None;
        self.walk(v, 0, 1, false, |ids, _| {
            first = ids.first().copied();
            false
        });
        first
    }

    fn try_for_each_weighted<F: FnMut(Vertex, f64) -> bool>(&self, v: Vertex, mut f: F) -> bool {
        self.walk(v, 0, usize::MAX, true, |ids, w| {
            ids.iter().zip(w).all(|(&u, &x)| f(u, x))
        })
    }

    fn scan_lists<V: Fn(Vertex, &[Vertex], &[f64]) + Sync>(
        &self,
        set: &Bitmap,
        weighted: bool,
        visit: V,
    ) -> bool {
        let scanned = self.g.scan(&ScanSpec::new(set), |v, ids, weights| {
            if !weighted {
                return visit(v, ids, &[]);
            }
            with_buffer(|buf| {
                buf.weights.clear();
                match weights {
                    None => buf.weights.resize(ids.len(), 1.0),
                    Some(w) => buf.weights.extend((0..w.len()).map(|i| w.get(i))),
                }
                visit(v, ids, &buf.weights)
            })
        });
        if let Err(e) = scanned {
            self.g
                .keep_list_error(io::Error::other(crate::error::chain_text(&e)));
        }
        true
    }

    fn try_for_each_neighbor_block<F: FnMut(&[Vertex]) -> bool>(
        &self,
        v: Vertex,
        mut f: F,
    ) -> bool {
        self.walk(v, 0, usize::MAX, false, |ids, _| f(ids))
    }
}

#[allow(dead_code)]
const _: () = assert!(LARGE_BLOCK.is_multiple_of(ALIGN) && SMALL_BLOCK.is_multiple_of(ALIGN));
