//! `manifest.json`: the one file that says what a store is. Versioned so that later
//! codecs (compressed adjacency, issue 4) can be told apart from the raw CSR of version 1.

use serde::{Deserialize, Serialize};

/// Bumped when a reader of an older version could misread a newer store.
pub const FORMAT_VERSION: u32 = 1;
/// The value of `Manifest::format`, so that a stray JSON file is not taken for a store.
pub const FORMAT_NAME: &str = "vastgraph-store";
pub const MANIFEST_FILE: &str = "manifest.json";

/// File names inside a store directory.
pub mod files {
    pub const OFFSETS: &str = "offsets.u64";
    pub const NEIGHBORS: &str = "neighbors.u32";
    pub const WEIGHTS_I32: &str = "weights.i32";
    pub const WEIGHTS_F32: &str = "weights.f32";
    pub const IN_OFFSETS: &str = "in_offsets.u64";
    pub const IN_NEIGHBORS: &str = "in_neighbors.u32";
    pub const IN_WEIGHTS_I32: &str = "in_weights.i32";
    pub const IN_WEIGHTS_F32: &str = "in_weights.f32";
    /// Compressed stores (`Codec::COMPRESSED`) replace neighbors.u32
    /// by these two: the byte
    /// offset of each vertex's encoded list (n+1, LE) and the encoded lists.
    pub const BYTE_OFFSETS: &str = "byte_offsets.u64";
    pub const NEIGHBOR_CODES: &str = "neighbors.bc64";
    pub const IN_BYTE_OFFSETS: &str = "in_byte_offsets.u64";
    pub const IN_NEIGHBOR_CODES: &str = "in_neighbors.bc64";
    /// The Elias–Fano forms of the four offsets files (`OffsetsCode::EliasFano`).
    pub const OFFSETS_EF: &str = "offsets.ef";
    pub const IN_OFFSETS_EF: &str = "in_offsets.ef";
    pub const BYTE_OFFSETS_EF: &str = "byte_offsets.ef";
    pub const IN_BYTE_OFFSETS_EF: &str = "in_byte_offsets.ef";
    /// One original label per line, line i = label of dense id i.
    pub const LABELS: &str = "labels.txt";
    /// Each vertex's first (smallest) out-neighbour, n LE u32, [`super::NO_NEIGHBOR`] for an
    /// empty list: 4 bytes a vertex beside the lists, so that an out-of-core pass that needs
    /// only the first neighbour (BFS's bottom-up step, CC's sampling) reads this file instead of
    /// the lists. Stores written before it existed lack it and still open; the out-of-core
    /// kernels then read the lists.
    pub const FIRST_NEIGHBORS: &str = "first_neighbors.u32";
    /// The head of each vertex's out-list: its first [`super::LIST_HEAD_IDS`] ids (all of a
    /// shorter list), LE u32, the vertices one after the other (vertex v's start where the
    /// heads of the vertices before it end, by [`super::list_head_len`] of their degrees). It
    /// holds every list of 8 arcs or fewer whole: on a store not ordered by degree, a pull that
    /// must look past a vertex's first neighbour reads these few hundred megabytes instead of
    /// pages of lists scattered over the whole file. Optional, as the first neighbours are.
    pub const LIST_HEADS: &str = "list_heads.u32";
    /// The tiles (`crate::tiles`, present when [`super::Manifest::tiles`] is): the first tile
    /// of each column (columns + 1, LE u64), the row of each tile (LE u32), the first edge of
    /// each tile (tiles + 1, LE u64), and the edges (m, LE u32).
    pub const TILE_COLUMNS: &str = "tile_columns.u64";
    pub const TILE_ROWS: &str = "tile_rows.u32";
    pub const TILE_OFFSETS: &str = "tile_offsets.u64";
    pub const TILE_EDGES: &str = "tile_edges.u32";
    /// The four files of the tiles, in the order above.
    pub const TILES: [&str; 4] = [TILE_COLUMNS, TILE_ROWS, TILE_OFFSETS, TILE_EDGES];
}

/// The tiles of a store (`vastgraph tile`): its arcs cut into blocks of 2^`side_log2`
/// sources by 2^`side_log2` targets (`crate::tiles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileInfo {
    pub side_log2: u32,
    /// Tiles holding at least one arc (the others are not stored).
    pub tiles: u64,
}

/// The ids of a list's head in `files::LIST_HEADS`. On Kronecker 25 in its original order, the
/// first 8 neighbours settle all but 1,883 of the 14.6M vertices BFS's first pull reaches (the
/// first 4 leave 135k, whose lists span 0.47 GiB of pages; the first alone 4.4M).
pub const LIST_HEAD_IDS: u64 = 8;

/// The ids of the head of a list of `degree` arcs in `files::LIST_HEADS`.
#[inline]
pub fn list_head_len(degree: u64) -> u64 {
    degree.min(LIST_HEAD_IDS)
}

/// The entry of `files::FIRST_NEIGHBORS` for a vertex without out-arcs (no vertex has this id).
pub const NO_NEIGHBOR: u32 = u32::MAX;

/// How edge weights are stored. Integer weights are kept exactly (`i32`); any
/// non-integral or out-of-range weight in the input makes the whole store `f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WeightType {
    I32,
    F32,
}

/// The adjacency encoding. Readers that predate a codec reject its name when parsing the
/// manifest, so adding one needs no version bump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Codec {
    /// offsets.u64 (n+1, LE) + neighbors.u32 (m, LE), sorted and unique per vertex.
    Raw,
    /// offsets.u64 as for `Raw` (degrees, weight alignment), byte_offsets.u64 (n+1, LE) and
    /// neighbors.bc64: each list in Ligra+-style byte codes, cut into blocks of 64 neighbours
    /// with a per-list block index (the `vastgraph-codec` crate). Weights stay raw arrays.
    #[serde(rename = "bytecode64")]
    ByteCode64,
    /// As `ByteCode64` (same files, same block index, same varint for each block's first
    /// neighbour), but the gaps in Stream VByte groups of four (lengths 0, 1, 2 or 4 bytes).
    #[serde(rename = "streamvbyte64")]
    StreamVByte64,
    /// As `ByteCode64` (same files, same blocks and block index), but each block is a header
    /// byte (offset width, first code's length), the first neighbour's zig-zag code in that
    /// many bytes, and each later neighbour as its offset from the first, in one width of 1
    /// to 4 bytes per block. Bigger codes, the fastest to traverse in memory.
    #[serde(rename = "for64")]
    FrameOfReference64,
    /// As `ByteCode64` (same files, same blocks and block index), but each block is a bit
    /// stream: its runs of at least four consecutive ids as intervals and its other ids as gaps,
    /// in WebGraph's γ and ζ₃ codes. The smallest codes on web graphs; a bit-level decoder.
    #[serde(rename = "zeta64")]
    Zeta64,
}

impl Codec {
    /// What `--compress` writes: the fastest to traverse in memory (within 1.3 times the raw
    /// store's time on the graphs measured, where the gap codes took up to 1.5 times), at
    /// about 60% of the raw adjacency. `StreamVByte64` is the smallest (a third of it on web
    /// graphs), for graphs that must fit in memory or be read from storage.
    pub const COMPRESSED_DEFAULT: Codec = Codec::FrameOfReference64;

    /// Every compressed codec, the default first.
    pub const COMPRESSED: [Codec; 4] = [
        Codec::FrameOfReference64,
        Codec::Zeta64,
        Codec::StreamVByte64,
        Codec::ByteCode64,
    ];

    /// How the lists of a compressed store are coded; None for raw.
    pub fn list_codec(self) -> Option<vastgraph_codec::ListCodec> {
        match self {
            Codec::Raw => None,
            Codec::ByteCode64 => Some(vastgraph_codec::ListCodec::Varint),
            Codec::StreamVByte64 => Some(vastgraph_codec::ListCodec::StreamVByte),
            Codec::FrameOfReference64 => Some(vastgraph_codec::ListCodec::FrameOfReference),
            Codec::Zeta64 => Some(vastgraph_codec::ListCodec::Zeta),
        }
    }

    /// The name the manifest and the command line use.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Raw => "raw",
            Codec::ByteCode64 => "bytecode64",
            Codec::StreamVByte64 => "streamvbyte64",
            Codec::FrameOfReference64 => "for64",
            Codec::Zeta64 => "zeta64",
        }
    }

    /// The compressed codec of that name, or an error that lists them.
    pub fn compressed_from_name(name: &str) -> Result<Codec, String> {
        Codec::COMPRESSED
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| {
                format!(
                    "unknown codec {name:?}: choose {}",
                    Codec::compressed_names()
                )
            })
    }

    /// The compressed codecs' names, for messages: "for64, zeta64, streamvbyte64 or bytecode64".
    pub fn compressed_names() -> String {
        let names = Codec::COMPRESSED.map(Codec::name);
        let (last, rest) = names.split_last().expect("codecs");
        format!("{} or {last}", rest.join(", "))
    }
}

/// How a store's offsets (its arcs', and a compressed store's codes' bytes) are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OffsetsCode {
    /// n+1 little-endian u64s (`offsets.u64`, `byte_offsets.u64`, ...), mapped as they are.
    #[default]
    Plain,
    /// Elias–Fano (`offsets.ef`, `byte_offsets.ef`, ...; `vastgraph_codec::elias_fano`),
    /// 2 + ⌈log₂(last / (n+1))⌉ bits a vertex, decoded into DRAM when the store is opened.
    EliasFano,
}

impl OffsetsCode {
    /// What a store of `codec` is written with: Elias–Fano where the lists are compressed (the
    /// offsets would otherwise take more room than the codes on a web graph), plain u64s where
    /// they are not (the raw store is mapped and used in place).
    pub fn written_with(codec: Codec) -> OffsetsCode {
        match codec {
            Codec::Raw => OffsetsCode::Plain,
            _ => OffsetsCode::EliasFano,
        }
    }

    pub fn is_plain(&self) -> bool {
        *self == OffsetsCode::Plain
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub name: String,
    pub bytes: u64,
    /// xxh3-64 of the whole file, lowercase hex, 16 digits.
    pub xxh3: String,
    /// The side file of checksums of each page of this file, so that a reader that reads only
    /// some pages (a selective out-of-core pass) can still check what it read. Stores written
    /// before it existed lack it and still open: only `info --verify` then checks their bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_sums: Option<PageSumsEntry>,
    /// An offsets file: the largest difference of two consecutive offsets, that is the longest
    /// list (in arcs, or in bytes of codes). Recorded as the file is written, so that an
    /// out-of-core run sizes its buffers for long lists, and a refused budget names its
    /// minimum, without reading the file first; the open checks it against the offsets. Stores
    /// written before it existed lack it, and the offsets are then read for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longest_list: Option<u64>,
}

/// A file of page checksums: for each `page_bytes` page of its data file (the last one possibly
/// shorter), the low 32 bits of the page's xxh3-64, little-endian.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageSumsEntry {
    pub name: String,
    pub page_bytes: u64,
    pub bytes: u64,
    /// xxh3-64 of the whole side file, as [`FileEntry::xxh3`].
    pub xxh3: String,
}

impl FileEntry {
    /// This file and its side file of page checksums, as (name, bytes, xxh3).
    pub fn with_side_files(&self) -> impl Iterator<Item = (&str, u64, &str)> {
        let side = self
            .page_sums
            .iter()
            .map(|s| (s.name.as_str(), s.bytes, s.xxh3.as_str()));
        std::iter::once((self.name.as_str(), self.bytes, self.xxh3.as_str())).chain(side)
    }
}

/// What the build removed from the input, so a user can see why m differs from their line count.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    pub self_loops: u64,
    /// Input arcs that repeated an earlier one (for weighted repeats the smallest weight
    /// is kept).
    pub duplicate_arcs: u64,
    /// Symmetrised builds: pairs of input arcs u -> v and v -> u (each pair counted once),
    /// which became one undirected edge (its two arcs take the smaller weight). Not a loss.
    #[serde(default)]
    pub reciprocal_pairs: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputRecord {
    pub path: String,
    pub format: String,
    pub bytes: u64,
    /// The 1-based line of an edge list's header, skipped (given with `--header` or detected):
    /// where the build set a line aside, for those who did not see its warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped_header_line: Option<u64>,
    /// The 1-based line of an edge list of labels that was read as an edge though its ids look
    /// like column names (`src,dst`): most likely a header, which `--header` would have skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_like_line: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub vastgraph_version: String,
    /// `convert`, `generate kron`, `from_edges`, ...
    pub command: String,
    pub inputs: Vec<InputRecord>,
    /// The options the build ran with (symmetrize, memory, seed, ...), as given.
    pub options: serde_json::Value,
    /// Seconds since the Unix epoch when the build finished.
    pub created_unix: u64,
    pub build_seconds: f64,
    /// Input edges seen before dropping and symmetrising.
    pub input_edges: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `FORMAT_NAME`.
    pub format: String,
    pub version: u32,
    pub vertices: u64,
    /// Number of stored arcs (a symmetric store holds both (u,v) and (v,u)).
    pub arcs: u64,
    /// false = symmetric: every arc (u,v) has its reverse (v,u).
    pub directed: bool,
    pub weighted: bool,
    pub weight_type: Option<WeightType>,
    /// Bits per vertex id (32).
    pub id_width: u32,
    pub codec: Codec,
    /// How the offsets files are written; stores without the field have plain ones.
    #[serde(default, skip_serializing_if = "OffsetsCode::is_plain")]
    pub offsets_code: OffsetsCode,
    /// A transpose (in-edges) is stored (directed stores built with --transpose).
    pub has_transpose: bool,
    /// labels.txt maps dense ids to the input's original labels.
    pub has_labels: bool,
    /// Self-loops were kept (`--keep-self-loops`).
    pub self_loops_kept: bool,
    pub dropped: Dropped,
    /// Present once `vastgraph tile` has added tiles; their files are then in `files`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiles: Option<TileInfo>,
    pub files: Vec<FileEntry>,
    pub provenance: Provenance,
}

impl Manifest {
    /// The entry of the file called `name`, if the manifest lists it.
    pub fn file(&self, name: &str) -> Option<&FileEntry> {
        self.files.iter().find(|f| f.name == name)
    }
}
