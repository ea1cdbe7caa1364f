//! The vastgraph graph store: a directory holding a versioned `manifest.json` and
//! checksummed little-endian arrays (CSR offsets, neighbour ids raw or byte-coded by
//! `vastgraph-codec`, optional weights, optional transpose, optional label map). Stores are read-only once written and are
//! memory-mapped for reading; they are built out of core, within a memory budget, into a
//! temporary sibling directory that is renamed into place only when complete.

// Stores are little-endian and mapped without conversion; a big-endian host would misread them.
#[cfg(not(target_endian = "little"))]
compile_error!("vastgraph-store supports little-endian hosts only");
// Edge offsets and file positions (u64) are used as slice indices: a 32-bit usize would cut them.
#[cfg(not(target_pointer_width = "64"))]
compile_error!("vastgraph-store supports 64-bit hosts only");

mod builder;
mod byte_code_writer;
mod cancel;
mod compress;
mod csr_writer;
mod direct_file;
mod error;
mod external_sort;
mod fsutil;
mod hashed_file;
pub mod manifest;
mod merge;
mod offsets_file;
mod page_sums;
mod pipeline;
mod pod;
pub mod progress;
mod reader;
mod record;
mod reorder;
mod run_file;
mod shrunken_mapping;
mod staging;
pub use staging::written_inside;
mod structure;
pub mod synthetic;
pub mod target_lock;
pub mod tiles;

pub use builder::{
    sparse_offsets_bytes, BuildOptions, DiskNeed, ExpectedSize, StoreBuilder, MIN_MEMORY_BYTES,
};
pub use cancel::{cancel_requested, clear_cancel, request_cancel};
pub use compress::{compress_store, pick_codec, CompressOptions};
pub use error::{gb, StoreError};
pub use fsutil::{
    available_bytes, fsync_dir, is_disk_full, parent_dir, rename_into_place, unique_suffix,
    Existing,
};
pub use hashed_file::format_xxh3;
pub use manifest::{
    Codec, Dropped, FileEntry, InputRecord, Manifest, OffsetsCode, PageSumsEntry, Provenance,
    TileInfo, WeightType,
};
pub use offsets_file::{drop_from_page_cache, resident_bytes, OffsetsOf, OffsetsReader};
pub use page_sums::{page_sum, PageSums, PAGE_BYTES};
pub use reader::{
    check_not_replaced, ids_of_labels, labels_of_ids, open_manifest, store_identity,
    validate_offsets, Advice, LabelLookup, Store,
};
pub use reorder::{build_in_order, reorder_store, ReorderOptions, VertexOrder};
pub use shrunken_mapping::{explain_bus_errors, AfterBusError};
pub use target_lock::{stage_path, TargetLock};
pub use tiles::{build_then_tile, build_tiles, TileOptions, TilesRef};
pub use vastgraph_codec::ByteCodeLists;

/// Vertex ids are u32: a store holds at most `MAX_VERTICES` vertices.
pub type Vertex = u32;
/// The largest number of vertices a store can hold (ids 0..=u32::MAX-1).
pub const MAX_VERTICES: u64 = u32::MAX as u64;

/// The key of an exported edge table's metadata entry that holds the graph's vertex count
/// (written by the Parquet export, read by `convert`), so that isolated vertices past the
/// largest id survive the round trip.
pub const TABLE_VERTICES_KEY: &str = "vastgraph.vertices";

/// The key of an exported edge table's metadata entry that says, with `true`, that the table
/// holds both arcs of every edge of a symmetric store, so that `convert` builds a symmetric
/// store again rather than a directed one with the same arcs.
pub const TABLE_SYMMETRIC_KEY: &str = "vastgraph.symmetric";

/// The key of an exported edge table's metadata entry that says, with `true`, that the store
/// kept its self-loops (`--keep-self-loops`), so that `convert` keeps the table's self-loops
/// rather than dropping them as it does by default.
pub const TABLE_SELF_LOOPS_KEY: &str = "vastgraph.self_loops";

/// The key of an exported table's metadata entry that names the export it belongs to (the
/// same value in every edge and vertex file of one export), so that `convert` refuses an
/// export directory whose tables come from two exports.
pub const TABLE_EXPORT_KEY: &str = "vastgraph.export";

/// Edge weights as stored, borrowed from the mapped file.
#[derive(Clone, Copy, Debug)]
pub enum WeightsRef<'a> {
    I32(&'a [i32]),
    F32(&'a [f32]),
}

impl<'a> WeightsRef<'a> {
    #[inline]
    pub fn get(&self, i: usize) -> f64 {
        match self {
            WeightsRef::I32(w) => w[i] as f64,
            WeightsRef::F32(w) => w[i] as f64,
        }
    }
    pub fn len(&self) -> usize {
        match self {
            WeightsRef::I32(w) => w.len(),
            WeightsRef::F32(w) => w.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn weight_type(&self) -> WeightType {
        match self {
            WeightsRef::I32(_) => WeightType::I32,
            WeightsRef::F32(_) => WeightType::F32,
        }
    }
    /// The weights at positions `range`.
    #[inline]
    pub fn slice(&self, range: std::ops::Range<usize>) -> WeightsRef<'a> {
        match self {
            WeightsRef::I32(w) => WeightsRef::I32(&w[range]),
            WeightsRef::F32(w) => WeightsRef::F32(&w[range]),
        }
    }
}
