//! Out-of-core execution under a memory budget. The offsets (n+1 words) and the algorithm's
//! vertex state stay in DRAM; neighbour ids are read from disk with direct I/O through a bounded
//! buffer pool ([`vastgraph_io`]), one pass per iteration, in one of two modes:
//!
//! - **selective** (PartitionedVC, FlashGraph): the byte ranges of the active vertices' lists,
//!   sorted, merged across gaps cheaper to read than to skip, widened to pages and issued at
//!   depth; pages without an active vertex are never read.
//! - **streaming** (GridGraph, CLIP): the whole file in large sequential chunks, skipping chunks
//!   whose vertices are all inactive; with **reentry** for algorithms that allow asynchronous
//!   updates, a loaded chunk is processed again (up to MRT times) while it holds vertices
//!   activated during the pass, and vertices activated earlier in the pass are processed when
//!   their chunk arrives.
//!
//! **Adaptive** mode estimates both from the bytes and requests each would issue and the
//! device's measured bandwidth and IOPS, and runs the cheaper; each iteration's choice and
//! numbers are recorded ([`IterationRecord`]) and logged.

mod bits;
mod cache;
mod cascade;
mod graph;
mod lists;
mod memory_plan;
mod offsets;
mod plan;
mod scan;
mod side_files;
mod tiles;

pub use bits::{any_in_range, take_range};
pub use cache::MAX_CACHED_ARCS;
pub(crate) use cascade::vertices_with_arcs;
pub use graph::{list_buffers_reserve, long_list_reserve, page_sums_reserve, OocGraph, OocOptions};
pub use lists::{list_buffer_bytes, OocLists};
pub use memory_plan::{BudgetError, MemoryPlan, PoolShape, Reserved, PROCESS_BASELINE_BYTES};
pub use scan::{IterationRecord, ModeEstimate, PrefetchFn, ScanSpec, Weights};
pub use side_files::{
    FIRST_NEIGHBORS_MODE, FIRST_NEIGHBORS_SAMPLE_MODE, LIST_HEADS_MODE, SAMPLE_EVERY_PAGES,
    SIDE_FILE_MODES,
};
pub use tiles::tiles_reserve;
pub use vastgraph_io::{BackendChoice, DeviceProfile};

/// Bytes of offsets an out-of-core run holds in DRAM for `n` vertices: the CSR's edge offsets,
/// and for a compressed store the byte offsets of the codes (grouped, about 4 bytes a vertex).
pub fn offsets_bytes(n: u64, compressed: bool) -> u64 {
    8 * (n + 1)
        + if compressed {
            offsets::ByteOffsets::grouped_bytes(n + 1)
        } else {
            0
        }
}

/// How an iteration reads the adjacency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IoMode {
    /// Per iteration, by the cost model: the active lists merged across every gap the device
    /// reads faster than it serves one more request, or the streamed chunks, whichever costs
    /// less.
    Adaptive,
    /// The pages holding active lists, each once (PartitionedVC, FlashGraph).
    Selective,
    /// The chunks holding active lists, in file order (GridGraph, CLIP).
    Streaming,
}

impl IoMode {
    pub fn name(self) -> &'static str {
        match self {
            IoMode::Adaptive => "adaptive",
            IoMode::Selective => "selective",
            IoMode::Streaming => "streaming",
        }
    }
}

impl std::str::FromStr for IoMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "adaptive" => Ok(IoMode::Adaptive),
            "selective" => Ok(IoMode::Selective),
            "streaming" => Ok(IoMode::Streaming),
            _ => Err(format!(
                "unknown I/O mode {s:?}: adaptive, selective or streaming"
            )),
        }
    }
}
