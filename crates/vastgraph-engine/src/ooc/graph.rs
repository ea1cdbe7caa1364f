//! An opened store for out-of-core runs: offsets in DRAM, neighbour ids or their compressed codes
//! (and weights) on disk.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use rayon::prelude::*;
use vastgraph_codec::ListCodec;
use vastgraph_io::{
    load_or_calibrate, AlignedBuf, BackendChoice, DataFile, DeviceProfile, IoConfig, IoEngine,
    ALIGN,
};
use vastgraph_store::manifest::files;
use vastgraph_store::{Manifest, OffsetsOf, OffsetsReader, PageSums, StoreError, WeightType};

use super::cache::ListCache;
use super::lists::{list_buffer_bytes, BlockCache};
use super::memory_plan::{MemoryPlan, MIN_CACHE};
use super::offsets::ByteOffsets;
use super::plan::{Layout, ARC_BYTES};
use super::scan::{IterationRecord, CHECKED_PAGE};
use super::side_files::{HeadIndex, ListHeads};
use super::tiles::{self, OocTiles};
use super::IoMode;
use crate::bitmap::Bitmap;
use crate::memory::{human_bytes, minimum_budget_phrase};
use crate::Vertex;

#[derive(Clone, Debug)]
pub struct OocOptions {
    pub mode: IoMode,
    /// MRT: how many times a loaded range is processed again for vertices activated meanwhile.
    pub max_reentries: u32,
    pub backend: BackendChoice,
    /// Bypass the page cache with O_DIRECT (where the file system allows it).
    pub direct: bool,
    /// The device's numbers for the cost model; None measures them (once per device, cached).
    pub profile: Option<DeviceProfile>,
    /// Measure the device again even when its profile is cached, and cache the new one.
    pub recalibrate: bool,
    /// The kernel reads lists through [`OocGraph::lists`] (random access) as well as in
    /// passes: the room the plan leaves is shared between the cache of blocks and the cache of
    /// short lists.
    pub random_access: bool,
    /// Open the store's tiles, when it has them, for passes that read every arc
    /// ([`crate::Traversal::sum_in_arcs`]); their index and two chunk buffers come from the
    /// room of the cache.
    pub tiles: bool,
    /// With `tiles`, the kernel also gathers each column's in-arcs
    /// ([`crate::Traversal::gather_in_arcs`]): room for the largest column's arcs in each
    /// thread, and in the column carried across chunks, comes from the room of the cache too.
    pub gather_tiles: bool,
}

impl Default for OocOptions {
    fn default() -> Self {
        OocOptions {
            mode: IoMode::Adaptive,
            max_reentries: 5,
            backend: BackendChoice::Auto,
            direct: true,
            profile: None,
            recalibrate: false,
            random_access: false,
            tiles: false,
            gather_tiles: false,
        }
    }
}

/// The most room for blocks a run of passes keeps (see `open`).
const QUEUE_BLOCK_ROOM: u64 = 4 << 20;
/// The least room for blocks a run of passes keeps when its cache has twice as much: enough for
/// a few blocks after the allocator's share.
const MIN_QUEUE_BLOCK_ROOM: u64 = 256 << 10;

/// A compressed store's codec and where each list's codes start (n+1 byte offsets, in DRAM).
pub(crate) struct Codes {
    pub codec: ListCodec,
    pub byte_offsets: ByteOffsets,
}

/// Buffers for compressed lists too long for the pool (one at a time, allocated on first use
/// within the plan's `long_list_bytes`): their codes, and their weights.
#[derive(Default)]
pub(crate) struct LongListBuffers {
    pub codes: Option<AlignedBuf>,
    pub weights: Option<AlignedBuf>,
}

pub struct OocGraph {
    pub(crate) dir: PathBuf,
    pub(crate) manifest: Manifest,
    pub(crate) offsets: Vec<u64>,
    /// Raw ids, or a compressed store's codes.
    pub(crate) neighbors: DataFile,
    pub(crate) codes: Option<Codes>,
    /// The page-widened spans of the longest codes and weights read apart (0 if none is).
    pub(crate) long_spans: (usize, usize),
    pub(crate) long_buffers: Mutex<LongListBuffers>,
    pub(crate) weights: Option<(DataFile, WeightType)>,
    /// The side files of first neighbours and of list heads, when the store has them (see
    /// `side_files.rs`).
    pub(crate) first_neighbors: Option<DataFile>,
    pub(crate) list_heads: Option<ListHeads>,
    pub(crate) io: Mutex<IoEngine>,
    pub(crate) profile: DeviceProfile,
    pub(crate) options: OocOptions,
    pub(crate) plan: MemoryPlan,
    pub(crate) records: Mutex<Vec<IterationRecord>>,
    /// The tiles, when the store has them and the options asked for them.
    pub(crate) tiles: Option<OocTiles>,
    /// When the tiles were asked for and left out for the lack of room: the least budget whose
    /// plan leaves it.
    pub(crate) tiles_budget: Option<u64>,
    pub(crate) cache: ListCache,
    /// The cache of blocks behind [`OocGraph::lists`], and the first error a read there met.
    pub(crate) blocks: BlockCache,
    pub(crate) list_error: Mutex<Option<String>>,
    /// Of a raw store: the pages of the neighbour file whose ids have all been checked (one bit
    /// per 4 KiB, 128 KiB for a 4 GiB file). See `check_ids_once`.
    pub(crate) checked_pages: Bitmap,
}

/// The profile used when there is nothing to measure (a graph without arcs reads nothing).
const NOMINAL_PROFILE: DeviceProfile = DeviceProfile {
    sequential_bytes_per_second: 1e9,
    random_reads_per_second: 1e5,
};

impl OocGraph {
    /// The manifest of the store in `dir`, checked, without reading any array.
    pub fn manifest_of(dir: &Path) -> anyhow::Result<Manifest> {
        Ok(vastgraph_store::open_manifest(dir)?)
    }

    /// Opens the store in `dir` under `plan` (whose `files` = 2 reads the weights too): reads and
    /// validates the offsets, opens the neighbour file for direct reads, allocates the buffer
    /// pool, and loads or measures the device profile.
    /// A store replaced while it was opened (`--force`, `vastgraph tile`) is opened again,
    /// once: the files read may have belonged to both, and whatever that gave (a checksum
    /// that does not match, a file missing) says nothing of the new store.
    pub fn open(dir: &Path, plan: MemoryPlan, options: OocOptions) -> anyhow::Result<OocGraph> {
        let identity = vastgraph_store::store_identity(dir);
        match Self::open_once(dir, plan.clone(), options.clone()) {
            Err(_) if vastgraph_store::store_identity(dir) != identity => {
                Self::open_once(dir, plan, options)
            }
            opened => opened,
        }
    }

    fn open_once(
        dir: &Path,
        mut plan: MemoryPlan,
        options: OocOptions,
    ) -> anyhow::Result<OocGraph> {
        let identity = vastgraph_store::store_identity(dir);
        let manifest = Self::manifest_of(dir)?;
        let n = manifest.vertices as usize;
        let sums_of = |name: &str| -> anyhow::Result<Option<PageSums>> {
            match manifest.file(name) {
                Some(entry) => Ok(PageSums::load(dir, entry)?),
                None => Ok(None),
            }
        };
        let offsets = OffsetsReader::open(dir, &manifest, OffsetsOf::Arcs)?;
        let offsets_path = offsets.path().to_path_buf();
        let offsets = offsets.read_all()?;
        vastgraph_store::validate_offsets(
            &offsets_path,
            &offsets,
            manifest.arcs,
            // The reader checked the record.
            None,
        )?;
        let codes = match manifest.codec.list_codec() {
            None => None,
            Some(codec) => {
                let codes_path = dir.join(files::NEIGHBOR_CODES);
                let code_bytes = std::fs::metadata(&codes_path)
                    .with_context(|| format!("{}", codes_path.display()))?
                    .len();
                anyhow::ensure!(
                    Some(code_bytes) == OffsetsOf::Codes.last(&manifest),
                    "{}: {code_bytes} bytes, not the length its manifest records",
                    codes_path.display()
                );
                let byte_offsets = ByteOffsets::read_store(dir, &manifest, OffsetsOf::Codes)?;
                // Plain u64s (a rare store) need more than the plan's grouped offsets.
                let excess = byte_offsets
                    .bytes()
                    .saturating_sub(ByteOffsets::grouped_bytes(n as u64 + 1));
                take_from_cache_room(&mut plan, excess, "the byte offsets held as plain u64s")?;
                plan.offsets_bytes += excess;
                Some(Codes {
                    codec,
                    byte_offsets,
                })
            }
        };
        let neighbors_name = if codes.is_some() {
            files::NEIGHBOR_CODES
        } else {
            files::NEIGHBORS
        };
        // The page checksums of the files read in passes stay in DRAM (a 1024th of each file),
        // taken from the cache's room; those of the offsets were needed only to read them.
        let mut sums_bytes = 0u64;
        let mut open_checked = |name: &str| -> anyhow::Result<DataFile> {
            let file = DataFile::open(&dir.join(name), options.direct)?;
            Ok(match sums_of(name)? {
                None => file,
                Some(sums) => {
                    sums_bytes += sums.bytes();
                    file.with_check(Arc::new(move |offset, bytes| {
                        sums.check(offset, bytes)
                            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
                    }))
                }
            })
        };
        let neighbors = open_checked(neighbors_name)?;
        let layout = Layout {
            arcs: &offsets,
            codes: codes.as_ref().map(|c| &c.byte_offsets),
            weights: plan.files == 2,
        };
        let long_spans = long_list_spans(layout, plan.buffer_bytes as u64);
        let long_list_bytes = (long_spans.0 + long_spans.1) as u64;
        // The plan reserved an upper bound (`long_list_reserve`): what this pool's buffers do
        // not hold goes back to the cache. A plan made without the reserve takes it from the
        // cache's room.
        match long_list_bytes.checked_sub(plan.long_list_bytes) {
            None => plan.cache_bytes += plan.long_list_bytes - long_list_bytes,
            Some(more) => take_from_cache_room(&mut plan, more, "the longest compressed lists")?,
        }
        plan.long_list_bytes = long_list_bytes;
        let weights = match (plan.files, manifest.weight_type) {
            (2, Some(t)) => {
                let name = match t {
                    WeightType::I32 => files::WEIGHTS_I32,
                    WeightType::F32 => files::WEIGHTS_F32,
                };
                Some((open_checked(name)?, t))
            }
            (2, None) => anyhow::bail!("{}: the store has no weights", dir.display()),
            _ => None,
        };
        let first_neighbors = match manifest.file(files::FIRST_NEIGHBORS) {
            Some(_) => Some(open_checked(files::FIRST_NEIGHBORS)?),
            None => None,
        };
        // The list heads are read only page by page, each page checked as it arrives.
        let list_heads = match manifest.file(files::LIST_HEADS) {
            Some(entry) if entry.page_sums.is_some() => {
                Some(ListHeads::new(open_checked(files::LIST_HEADS)?))
            }
            _ => None,
        };
        let tile_edges = match (&manifest.tiles, options.tiles) {
            (Some(_), true) => Some(open_checked(files::TILE_EDGES).context(tiles::REMEDY)?),
            _ => None,
        };
        // As for long lists: a plan made without the reserve takes it from the cache's room.
        match sums_bytes.checked_sub(plan.page_sums_bytes) {
            None => plan.cache_bytes += plan.page_sums_bytes - sums_bytes,
            Some(more) => take_from_cache_room(&mut plan, more, "the page checksums")?,
        }
        plan.page_sums_bytes = sums_bytes;
        // The heads' index comes from the cache's room beyond its floor; a budget without that
        // room reads lists.
        let list_heads = list_heads.filter(|_| {
            let bytes = HeadIndex::bytes_for(n);
            let fits = bytes + MIN_CACHE <= plan.cache_bytes;
            if fits {
                plan.cache_bytes -= bytes;
                plan.offsets_bytes += bytes;
            }
            fits
        });
        // Before the tiles, which take what room is left.
        if options.random_access {
            // Each thread holds the lists it is handed in buffers of its own (see `lists.rs`).
            let max_degree = (0..n)
                .into_par_iter()
                .map(|v| offsets[v + 1] - offsets[v])
                .max()
                .unwrap_or(0);
            let threads = rayon::current_num_threads() as u64;
            let buffers =
                threads * list_buffer_bytes(max_degree, weights.is_some(), codes.is_some());
            // The plan reserved them for the longest list the manifest records
            // (`list_buffers_reserve`), the figure these offsets give unless the thread count
            // changed since: a surplus goes back to the cache. A plan made without the reserve
            // takes them from the cache's room.
            match buffers.checked_sub(plan.list_buffer_bytes) {
                None => plan.cache_bytes += plan.list_buffer_bytes - buffers,
                Some(more) => {
                    take_from_cache_room(&mut plan, more, "the buffers of the longest lists")?
                }
            }
            plan.list_buffer_bytes = buffers;
        }
        // The tiles' index, the gather's buffers when the kernel gathers, and two chunks come
        // from the cache's room beyond its floor; a budget without room for chunks of at least
        // MIN_CHUNK_BYTES reads the lists.
        let mut tiles_budget = None;
        plan.cache_bytes += std::mem::take(&mut plan.tiles_bytes);
        let tiles = match tile_edges {
            None => None,
            Some(edges) => {
                let index = OocTiles::index_bytes(&manifest);
                let least = index + OocTiles::buffers_bytes(tiles::MIN_CHUNK_BYTES);
                // The index is read only when it fits; the gather's room is known from it.
                let opened = (least + MIN_CACHE <= plan.cache_bytes)
                    .then(|| OocTiles::open(dir, &manifest, edges, tiles::MIN_CHUNK_BYTES))
                    .transpose()
                    .context(tiles::REMEDY)?;
                let gather = match (&opened, options.gather_tiles) {
                    (Some(t), true) => t.gather_bytes(rayon::current_num_threads()),
                    _ => 0,
                };
                let need = least + gather;
                match opened.filter(|_| need + MIN_CACHE <= plan.cache_bytes) {
                    None => {
                        // The least budget whose plan leaves that room: the pool takes part of
                        // what a larger budget adds.
                        let budget =
                            plan.budget_for_more_cache(need + MIN_CACHE - plan.cache_bytes);
                        log::warn!(
                            "the budget leaves no room to stream the tiles ({} for their index, \
                             chunks and buffers; --memory {budget} would); reading the lists",
                            human_bytes(need)
                        );
                        tiles_budget = Some(budget);
                        None
                    }
                    Some(mut t) => {
                        // Two chunks and their alignment fit the room: at the least,
                        // `need` left room for two of MIN_CHUNK_BYTES.
                        let room = plan.cache_bytes - MIN_CACHE - index - gather;
                        let chunks = room - OocTiles::buffers_bytes(0);
                        let chunk = (chunks / 2).min(tiles::MAX_CHUNK_BYTES) / 4096 * 4096;
                        take_from_cache_room(
                            &mut plan,
                            index + gather + OocTiles::buffers_bytes(chunk),
                            "the tiles' index, chunks and buffers",
                        )?;
                        t.set_chunk_bytes(chunk);
                        Some(t)
                    }
                }
            }
        };
        let mut engine = IoEngine::new(
            IoConfig {
                buffer_bytes: plan.buffer_bytes,
                depth: plan.depth,
                backend: options.backend,
            },
            plan.files,
        )
        .context("cannot set up the I/O backend")?;
        let profile = match options.profile {
            Some(p) => p,
            None if neighbors.len() < vastgraph_io::ALIGN as u64 => NOMINAL_PROFILE,
            None => load_or_calibrate(&neighbors, &mut engine, options.recalibrate).with_context(
                || format!("measuring the device of {}", neighbors.path().display()),
            )?,
        };
        log::info!(
            "out-of-core: {} store, {} backend, {} reads, pool {} x {} KiB x {} file(s), offsets {} MiB, state {} MiB, long lists {} MiB, list buffers {} MiB, page checksums {} KiB, room for short lists {} MiB, budget {} MiB",
            manifest.codec.name(),
            engine.backend_name(),
            if neighbors.is_direct() { "direct" } else { "page-cache" },
            plan.depth,
            plan.buffer_bytes >> 10,
            plan.files,
            plan.offsets_bytes >> 20,
            plan.state_bytes >> 20,
            plan.long_list_bytes >> 20,
            plan.list_buffer_bytes >> 20,
            plan.page_sums_bytes >> 10,
            plan.cache_bytes >> 20,
            plan.budget_bytes >> 20
        );
        // Every file is open: from here on a replacement of the store cannot mix the two.
        vastgraph_store::check_not_replaced(dir, identity)?;
        // A kernel reading lists at random also reads frontiers in passes (edge_map): the
        // room is shared between the blocks and the short lists its passes read again.
        // A run of passes keeps a few blocks for the lists its label-correcting queue reads one
        // at a time (`traverse::label_correcting`): a sparse frontier's neighbours lie in the
        // blocks it just read.
        let (list_room, block_room) = match options.random_access {
            true => (plan.cache_bytes / 2, plan.cache_bytes / 2),
            false => {
                // At least a few blocks (the plan's cache floor holds them): with none, each
                // list of a queue's run is a read of its own (a path: a read a vertex).
                let floor = (plan.cache_bytes / 2).min(MIN_QUEUE_BLOCK_ROOM);
                let blocks = (plan.cache_bytes / 16).max(floor).min(QUEUE_BLOCK_ROOM);
                (plan.cache_bytes - blocks, blocks)
            }
        };
        let cache = ListCache::new(n, list_room, weights.as_ref().map(|(_, t)| *t));
        // As for the cache of short lists, a quarter of the room is left to the allocator and to
        // transient buffers.
        let blocks = BlockCache::new(block_room / 4 * 3);
        let pages = match codes {
            None => neighbors.len().div_ceil(CHECKED_PAGE) as usize,
            Some(_) => 0,
        };
        Ok(OocGraph {
            cache,
            blocks,
            list_error: Mutex::new(None),
            checked_pages: Bitmap::new(pages),
            dir: dir.to_path_buf(),
            manifest,
            offsets,
            neighbors,
            codes,
            long_spans,
            long_buffers: Mutex::new(LongListBuffers::default()),
            weights,
            first_neighbors,
            list_heads,
            io: Mutex::new(engine),
            profile,
            options,
            plan,
            records: Mutex::new(Vec::new()),
            tiles,
            tiles_budget,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }
    pub fn num_arcs(&self) -> u64 {
        *self.offsets.last().unwrap()
    }
    pub fn is_symmetric(&self) -> bool {
        !self.manifest.directed
    }
    /// Whether the weights are read with the neighbour ids.
    pub fn reads_weights(&self) -> bool {
        self.weights.is_some()
    }
    #[inline]
    pub fn degree(&self, v: Vertex) -> usize {
        (self.offsets[v as usize + 1] - self.offsets[v as usize]) as usize
    }
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }
    /// Whether the lists are read as compressed codes.
    pub fn is_compressed(&self) -> bool {
        self.codes.is_some()
    }
    pub(crate) fn layout(&self) -> Layout<'_> {
        Layout {
            arcs: &self.offsets,
            codes: self.codes.as_ref().map(|c| &c.byte_offsets),
            weights: self.weights.is_some(),
        }
    }
    pub fn profile(&self) -> DeviceProfile {
        self.profile
    }
    pub fn plan(&self) -> &MemoryPlan {
        &self.plan
    }
    pub fn options(&self) -> &OocOptions {
        &self.options
    }
    pub fn backend_name(&self) -> &'static str {
        self.io.lock().map(|e| e.backend_name()).unwrap_or("?")
    }
    /// Whether reads bypass the page cache.
    pub fn direct_io(&self) -> bool {
        self.neighbors.is_direct()
    }
    /// Empties the cache of short lists, so that a run does not profit from an earlier one.
    pub fn clear_cache(&self) {
        self.cache.clear();
        self.blocks.clear();
    }
    /// Bytes held by the cache of short lists (within the plan's `cache_bytes`).
    pub fn cache_bytes(&self) -> u64 {
        self.cache.bytes()
    }

    /// Moves what the cache of blocks read since the last record into the run's records.
    pub(crate) fn keep_block_record(&self) {
        if let Some(record) = self.blocks.take_record() {
            crate::progress::pass(record.bytes_read, record.mode);
            self.records.lock().unwrap().push(record);
        }
    }

    /// Whether passes over every arc can stream the store's tiles.
    pub fn has_tiles(&self) -> bool {
        self.tiles.is_some()
    }

    /// When the tiles were asked for and the budget had no room for them: the least budget
    /// that streams them.
    pub fn tiles_budget(&self) -> Option<u64> {
        self.tiles_budget
    }

    /// `out[v] = Σ_{u→v} values[u]` for every vertex, in one streamed pass over the tiles,
    /// with `apply` on each column's sums once complete ([`crate::Traversal::sum_in_arcs`]),
    /// recorded as an iteration. Errors when the store has no tiles open.
    pub fn sum_in_arcs<T: crate::tiles::ArcValue, R: Send>(
        &self,
        values: &[T],
        out: &mut [T],
        apply: impl Fn(usize, &mut [T]) -> R + Sync,
    ) -> anyhow::Result<(u64, Vec<R>)> {
        let tiles = self.tiles.as_ref().context("the graph has no tiles open")?;
        let (record, results) = tiles.sum_in_arcs(values, out, apply)?;
        Ok((self.keep_tile_pass(record), results))
    }

    /// Reports a pass over the tiles and keeps its record; returns its arcs.
    fn keep_tile_pass(&self, record: IterationRecord) -> u64 {
        crate::progress::pass(record.bytes_read, record.mode);
        let arcs = record.arcs_processed;
        self.records.lock().unwrap().push(record);
        arcs
    }

    /// Every column's in-neighbours' values gathered and handed to `visit`, in one streamed
    /// pass over the tiles ([`crate::Traversal::gather_in_arcs`]), recorded as an iteration.
    /// Errors when the store has no tiles open.
    pub fn gather_in_arcs<T, O>(
        &self,
        values: &[T],
        out: &mut [O],
        visit: impl Fn(usize, &[usize], &mut [T], &mut [O]) + Sync,
    ) -> anyhow::Result<u64>
    where
        T: Copy + Default + Send + Sync,
        O: Send,
    {
        let tiles = self.tiles.as_ref().context("the graph has no tiles open")?;
        let record = tiles.gather_in_arcs(values, out, visit)?;
        Ok(self.keep_tile_pass(record))
    }

    /// The records of the iterations run so far, removing them.
    pub fn take_records(&self) -> Vec<IterationRecord> {
        let mut records = std::mem::take(&mut *self.records.lock().unwrap());
        records.extend(self.blocks.take_record());
        records
    }
}

/// Takes `bytes` for `what` from the room the plan left for the cache of short lists; a budget
/// without that room is refused with the minimum it needs, planned as this one was (its pool
/// takes part of what the larger budget adds).
fn take_from_cache_room(plan: &mut MemoryPlan, bytes: u64, what: &str) -> anyhow::Result<()> {
    if bytes > plan.cache_bytes {
        let minimum = plan.budget_for_more_cache(bytes - plan.cache_bytes);
        anyhow::bail!(
            "a memory budget of {} is too small: {what} need {} beside the {} I/O pool, and the \
             budget leaves {}; {}",
            human_bytes(plan.budget_bytes),
            human_bytes(bytes),
            human_bytes(plan.pool_bytes),
            human_bytes(plan.cache_bytes),
            minimum_budget_phrase(minimum),
        );
    }
    plan.cache_bytes -= bytes;
    Ok(())
}

/// The bytes a [`MemoryPlan`] must reserve for the page checksums an open of the store in `dir`
/// keeps in DRAM: those of the lists (ids or codes), of the weights when `weights`, of the
/// side files of first neighbours and list heads, and of the tiles' arcs when `tiles` (the
/// open asked for them: [`OocOptions::tiles`] on a store with tiles); 0 for a store written
/// before page checksums.
pub fn page_sums_reserve(manifest: &Manifest, weights: bool, tiles: bool) -> u64 {
    let lists = match manifest.codec.list_codec() {
        None => files::NEIGHBORS,
        Some(_) => files::NEIGHBOR_CODES,
    };
    let weight_file = match manifest.weight_type {
        Some(WeightType::I32) if weights => Some(files::WEIGHTS_I32),
        Some(WeightType::F32) if weights => Some(files::WEIGHTS_F32),
        _ => None,
    };
    [
        Some(lists),
        weight_file,
        Some(files::FIRST_NEIGHBORS),
        Some(files::LIST_HEADS),
        tiles.then_some(files::TILE_EDGES),
    ]
    .into_iter()
    .flatten()
    .filter_map(|name| manifest.file(name)?.page_sums.as_ref())
    .map(|sums| sums.bytes)
    .sum()
}

/// The bytes a [`MemoryPlan`] must reserve for the compressed lists of the store in `dir` that
/// are too long for a pooled buffer (with their weights when `weights`): at most the
/// page-widened codes of its longest list plus the widened weights of its highest degree; 0
/// for a raw store, whose lists are cut anywhere, or when every list fits the smallest
/// buffer. Reads both offset files a chunk at a time (each reader drops its file from the page
/// cache once read), before the plan exists, so that the minimum a refused budget names
/// already includes this.
pub fn long_list_reserve(dir: &Path, manifest: &Manifest, weights: bool) -> anyhow::Result<u64> {
    if manifest.codec.list_codec().is_none() {
        return Ok(0);
    }
    let codes = longest_list(dir, manifest, OffsetsOf::Codes)?;
    let arcs = longest_list(dir, manifest, OffsetsOf::Arcs)?;
    let codes = widened(codes);
    let weights = if weights {
        widened(arcs * ARC_BYTES)
    } else {
        0
    };
    let smallest = super::memory_plan::MIN_BUFFER;
    Ok(if codes <= smallest && weights <= smallest {
        0
    } else {
        (codes + weights) as u64
    })
}

/// The list buffers every thread of a kernel that reads lists at random may hold
/// ([`list_buffer_bytes`]), for the longest list of the store in `dir`: the one its manifest
/// records (or its offsets give); the same figure the open computes from the offsets it holds.
pub fn list_buffers_reserve(dir: &Path, manifest: &Manifest, weights: bool) -> anyhow::Result<u64> {
    let compressed = manifest.codec.list_codec().is_some();
    let longest = longest_list(dir, manifest, OffsetsOf::Arcs)?;
    let threads = rayon::current_num_threads() as u64;
    Ok(threads * list_buffer_bytes(longest, weights, compressed))
}

/// The longest list `offsets` give (in arcs, or in bytes of codes): as the store's manifest
/// records it beside them (checked when the open reads the offsets), or for a store written
/// without the record, read from the file a chunk at a time (the reader drops it from the page
/// cache once read).
fn longest_list(dir: &Path, manifest: &Manifest, offsets: OffsetsOf) -> anyhow::Result<u64> {
    let name = offsets.file_name(manifest.offsets_code);
    if let Some(recorded) = manifest.file(name).and_then(|f| f.longest_list) {
        return Ok(recorded);
    }
    let mut reader = OffsetsReader::open(dir, manifest, offsets)?;
    // Where the offsets must end: the codes' length, or the arcs.
    let end = offsets.last(manifest).unwrap_or(0);
    let mut chunk = vec![0u64; 1 << 16];
    let (mut longest, mut last) = (0u64, None::<u64>);
    let mut v = 0u64;
    while v < reader.count() {
        let got = reader.read(&mut chunk)?;
        // A damaged file must be named as such, not taken for a list too long for any budget.
        // Open checks the arrays in full.
        let bad = |reason: String| StoreError::BadOffsets {
            path: reader.path().to_path_buf(),
            reason,
        };
        if got == 0 {
            return Err(bad(format!("{v} of {} offsets", reader.count())).into());
        }
        for (j, &offset) in chunk[..got].iter().enumerate() {
            let at = v + j as u64;
            if let Some(previous) = last.filter(|&p| p > offset) {
                return Err(bad(format!(
                    "offsets[{}]={previous} > offsets[{at}]={offset} (not monotone)",
                    at - 1
                ))
                .into());
            }
            if offset > end {
                return Err(bad(format!("offsets[{at}]={offset} is past the end ({end})")).into());
            }
            longest = longest.max(offset - last.unwrap_or(offset));
            last = Some(offset);
        }
        v += got as u64;
    }
    Ok(longest)
}

/// The widest a range of `len` bytes can be once widened to pages, wherever it starts.
fn widened(len: u64) -> usize {
    (len.next_multiple_of(ALIGN as u64) + ALIGN as u64) as usize
}

/// The page-widened spans (codes, weights) of the longest lists that no pooled buffer of
/// `chunk` bytes holds, read apart: only compressed lists, which are never cut.
fn long_list_spans(layout: Layout<'_>, chunk: u64) -> (usize, usize) {
    use rayon::prelude::*;
    let Some(codes) = layout.codes else {
        return (0, 0);
    };
    (0..codes.len() - 1)
        .into_par_iter()
        .map(|v| {
            let (a, b) = (codes.get(v), codes.get(v + 1));
            // The planners' own test: these are the lists they hand over as long pieces.
            if layout.fits(a..b, v as Vertex..v as Vertex + 1, chunk) {
                return (0, 0);
            }
            let arcs = layout.arcs[v + 1] - layout.arcs[v];
            let weights = if layout.weights {
                widened(arcs * ARC_BYTES)
            } else {
                0
            };
            (widened(b - a), weights)
        })
        .reduce(|| (0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)))
}

/// Integers any byte pattern is a value of, read from files as they are stored.
pub(crate) trait LeInteger: Copy + Default {}
impl LeInteger for u32 {}
impl LeInteger for u64 {}

/// Reads a file of exactly `count` little-endian integers into a vector (the host is
/// little-endian), then drops it from the page cache: it is in DRAM now, the cache copy would
/// only use the budget.
pub(crate) fn read_le_file<T: LeInteger>(
    path: &Path,
    count: usize,
    sums: Option<PageSums>,
) -> anyhow::Result<Vec<T>> {
    let mut file = std::fs::File::open(path).with_context(|| format!("{}", path.display()))?;
    let mut values = vec![T::default(); count];
    let size = std::mem::size_of::<T>();
    // SAFETY: any byte pattern is a valid u32 or u64 (the only `LeInteger`s); the slice covers
    // exactly the vector's values.
    let bytes =
        unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr() as *mut u8, count * size) };
    file.read_exact(bytes)
        .with_context(|| format!("{}: reading {count} values", path.display()))?;
    let length = file.metadata().map(|m| m.len()).unwrap_or(0);
    anyhow::ensure!(
        length == (count * size) as u64,
        "{}: {length} bytes, expected {} (truncated or altered)",
        path.display(),
        count * size
    );
    if let Some(sums) = sums {
        sums.check_all(bytes)?;
    }
    vastgraph_store::drop_from_page_cache(&file);
    Ok(values)
}
