//! Opening a store: the manifest is checked, every file it lists is checked for presence
//! and length, the arrays are memory-mapped, and offsets and neighbour lists are validated
//! before anything can run on them.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

use crate::hashed_file::{expect_checksum, format_xxh3};
use crate::manifest::{
    files, list_head_len, Codec, FileEntry, Manifest, OffsetsCode, TileInfo, WeightType,
    FORMAT_NAME, FORMAT_VERSION, MANIFEST_FILE, NO_NEIGHBOR,
};
use crate::offsets_file::{expected_bytes, wrong_longest_list, OffsetsOf, OffsetsReader};
use crate::page_sums::PageSums;
use crate::pod::{try_cast, Pod};
use crate::tiles::TilesRef;
use crate::{StoreError, WeightsRef, MAX_VERTICES};
use vastgraph_codec::{ByteCodeLists, CodecError, ListCodec};

/// A manifest is a few kilobytes; anything this large is not one.
const MAX_MANIFEST_BYTES: u64 = 16 << 20;
/// Vertices per parallel validation task.
const VALIDATION_BLOCK: usize = 1 << 16;
const CHECKSUM_READ_BYTES: usize = 4 << 20;

/// Access-pattern hints for the mapped arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    Normal,
    Sequential,
    Random,
    WillNeed,
    HugePage,
}

/// A read-only memory-mapped file; files of length 0 cannot be mapped and are kept as `None`.
struct Mapped {
    map: Option<Mmap>,
}

impl Mapped {
    fn open(path: &Path, len: u64) -> Result<Mapped, StoreError> {
        if len == 0 {
            return Ok(Mapped { map: None });
        }
        let file = File::open(path).map_err(|e| StoreError::io(path, e))?;
        // SAFETY: the store is read-only once written; the map lives as long as the Store.
        // A file changed underneath a running process is outside what any mmap reader can guard.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| StoreError::io(path, e))?;
        Ok(Mapped { map: Some(map) })
    }

    fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    fn advise(&self, advice: memmap2::Advice) {
        if let Some(map) = &self.map {
            let _ = map.advise(advice);
        }
    }
}

/// A mapped array of `T`, its alignment and length checked when opened.
pub(crate) struct MappedArray<T: Pod> {
    mapped: Mapped,
    _values: std::marker::PhantomData<T>,
}

impl<T: Pod> MappedArray<T> {
    pub(crate) fn open(path: &Path, len: u64) -> Result<MappedArray<T>, StoreError> {
        let mapped = Mapped::open(path, len)?;
        if try_cast::<T>(mapped.bytes()).is_none() {
            return Err(StoreError::Manifest {
                path: path.to_path_buf(),
                reason: format!(
                    "{len} bytes cannot hold whole {}-byte values, or the mapping is misaligned",
                    std::mem::size_of::<T>()
                ),
            });
        }
        Ok(MappedArray {
            mapped,
            _values: std::marker::PhantomData,
        })
    }

    pub(crate) fn values(&self) -> &[T] {
        // Checked in `open`; the bytes never change afterwards.
        try_cast::<T>(self.mapped.bytes()).unwrap_or(&[])
    }
}

enum MappedWeights {
    I32(MappedArray<i32>),
    F32(MappedArray<f32>),
}

impl MappedWeights {
    fn get(&self) -> WeightsRef<'_> {
        match self {
            MappedWeights::I32(a) => WeightsRef::I32(a.values()),
            MappedWeights::F32(a) => WeightsRef::F32(a.values()),
        }
    }

    fn mapped(&self) -> &Mapped {
        match self {
            MappedWeights::I32(a) => &a.mapped,
            MappedWeights::F32(a) => &a.mapped,
        }
    }
}

/// Offsets as the in-memory store holds them: a plain file mapped, or an Elias–Fano file
/// decoded into DRAM.
enum OffsetsArray {
    Mapped(MappedArray<u64>),
    Decoded(Vec<u64>),
}

impl OffsetsArray {
    fn open(
        dir: &Path,
        manifest: &Manifest,
        offsets: OffsetsOf,
    ) -> Result<OffsetsArray, StoreError> {
        let name = offsets.file_name(manifest.offsets_code);
        Ok(match manifest.offsets_code {
            OffsetsCode::Plain => OffsetsArray::Mapped(MappedArray::open(
                &dir.join(name),
                manifest.file(name).map_or(0, |f| f.bytes),
            )?),
            OffsetsCode::EliasFano => {
                OffsetsArray::Decoded(OffsetsReader::open(dir, manifest, offsets)?.read_all()?)
            }
        })
    }

    fn values(&self) -> &[u64] {
        match self {
            OffsetsArray::Mapped(array) => array.values(),
            OffsetsArray::Decoded(values) => values,
        }
    }

    fn mapped(&self) -> Option<&Mapped> {
        match self {
            OffsetsArray::Mapped(array) => Some(&array.mapped),
            OffsetsArray::Decoded(_) => None,
        }
    }
}

/// One direction's CSR arrays. A compressed direction has `byte_code` and an empty `neighbors`.
struct Adjacency {
    offsets: OffsetsArray,
    neighbors: MappedArray<u32>,
    weights: Option<MappedWeights>,
    byte_code: Option<ByteCodeArrays>,
}

/// The files of a compressed direction besides its offsets.
struct ByteCodeArrays {
    codec: ListCodec,
    byte_offsets: OffsetsArray,
    codes: Mapped,
}

impl Adjacency {
    fn mappings(&self) -> impl Iterator<Item = &Mapped> {
        let byte_code = self.byte_code.as_ref();
        [self.offsets.mapped(), Some(&self.neighbors.mapped)]
            .into_iter()
            .chain([self.weights.as_ref().map(MappedWeights::mapped)])
            .chain([
                byte_code.and_then(|b| b.byte_offsets.mapped()),
                byte_code.map(|b| &b.codes),
            ])
            .flatten()
    }

    /// The encoded lists of a compressed direction; their layout was checked when opened.
    fn byte_code_lists(&self) -> Option<Result<ByteCodeLists<'_>, CodecError>> {
        self.byte_code.as_ref().map(|b| {
            ByteCodeLists::new(
                b.codec,
                self.offsets.values(),
                b.byte_offsets.values(),
                b.codes.bytes(),
            )
        })
    }
}

pub struct Store {
    dir: PathBuf,
    manifest: Manifest,
    out_edges: Adjacency,
    in_edges: Option<Adjacency>,
    /// The side file of each vertex's first out-neighbour, when the store has one.
    first_neighbors: Option<MappedArray<u32>>,
    /// The side file of the heads of the out-lists, when the store has one.
    list_heads: Option<MappedArray<u32>>,
    /// The tiles, when the store has them and they were opened.
    tiles: Option<MappedTiles>,
    /// The directory's (device, inode) when it was opened ([`store_identity`]): what reads
    /// its files by name later (`verify`) can tell a store replaced since from a damaged one.
    identity: Option<(u64, u64)>,
}

/// The four files of a store's tiles (`crate::tiles`).
struct MappedTiles {
    info: TileInfo,
    columns: MappedArray<u64>,
    rows: MappedArray<u32>,
    offsets: MappedArray<u64>,
    edges: MappedArray<u32>,
}

impl Store {
    /// Open and validate the store in `dir`, its tiles included when it has them.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        Self::open_with(dir, true)
    }

    /// [`Store::open`] without the tiles: they are neither read nor checked, and
    /// [`Store::tiles`] is None. For running on the lists when the tiles are damaged, for
    /// rebuilding them, and for what never reads them (an export, a report, a run's labels).
    pub fn open_without_tiles(dir: &Path) -> Result<Store, StoreError> {
        Self::open_with(dir, false)
    }

    /// Opens the store; one replaced while it was opened (`--force`, `vastgraph tile`) is
    /// opened again, once: the files read may have belonged to both, and whatever that gave
    /// (a checksum that does not match, a file missing) says nothing of the new store.
    fn open_with(dir: &Path, with_tiles: bool) -> Result<Store, StoreError> {
        match Self::open_once(dir, with_tiles) {
            Err(StoreError::Replaced { .. }) => Self::open_once(dir, with_tiles),
            opened => opened,
        }
    }

    fn open_once(dir: &Path, with_tiles: bool) -> Result<Store, StoreError> {
        let identity = store_identity(dir);
        let opened = Self::open_files(dir, with_tiles);
        // Whatever the files gave, a store replaced meanwhile is reported as such.
        check_not_replaced(dir, identity)?;
        let mut store = opened?;
        store.identity = identity;
        store.validate()?;
        Ok(store)
    }

    fn open_files(dir: &Path, with_tiles: bool) -> Result<Store, StoreError> {
        let manifest = read_manifest(dir)?;
        check_manifest(dir, &manifest)?;
        check_pages(dir, manifest.files.iter().filter(|f| !is_tile_file(f)))?;
        let out_edges = open_adjacency(dir, &manifest, false)?;
        let in_edges = if manifest.has_transpose {
            Some(open_adjacency(dir, &manifest, true)?)
        } else {
            None
        };
        let side_file = |name: &str| {
            manifest
                .file(name)
                .map(|entry| MappedArray::open(&dir.join(name), entry.bytes))
                .transpose()
        };
        let first_neighbors = side_file(files::FIRST_NEIGHBORS)?;
        let list_heads = side_file(files::LIST_HEADS)?;
        let tiles = match manifest.tiles {
            Some(info) if with_tiles => {
                Some(open_tiles(dir, &manifest, info).map_err(StoreError::damaged_tiles)?)
            }
            _ => None,
        };
        Ok(Store {
            dir: dir.to_path_buf(),
            manifest,
            out_edges,
            in_edges,
            first_neighbors,
            list_heads,
            tiles,
            identity: None,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn num_vertices(&self) -> usize {
        self.manifest.vertices as usize
    }

    pub fn num_arcs(&self) -> u64 {
        self.manifest.arcs
    }

    pub fn offsets(&self) -> &[u64] {
        self.out_edges.offsets.values()
    }

    /// The raw neighbour array; empty for a compressed store, whose lists are in
    /// [`Store::byte_code`].
    pub fn neighbors(&self) -> &[u32] {
        self.out_edges.neighbors.values()
    }

    pub fn codec(&self) -> Codec {
        self.manifest.codec
    }

    /// The out-edges' encoded lists when the store is compressed (any of
    /// `Codec::COMPRESSED`), validated when the store was opened; None for a raw store.
    pub fn byte_code(&self) -> Option<ByteCodeLists<'_>> {
        self.out_edges.byte_code_lists().and_then(Result::ok)
    }

    /// The transpose's encoded lists, for a compressed store with a transpose.
    pub fn in_byte_code(&self) -> Option<ByteCodeLists<'_>> {
        self.in_edges
            .as_ref()
            .and_then(Adjacency::byte_code_lists)
            .and_then(Result::ok)
    }

    /// Each vertex's first (smallest) out-neighbour, [`crate::manifest::NO_NEIGHBOR`] for a
    /// vertex without one, when the store has the side file (checked against the lists when
    /// the store was opened).
    pub fn first_neighbors(&self) -> Option<&[u32]> {
        self.first_neighbors.as_ref().map(MappedArray::values)
    }

    /// The tiles of the out-arcs (`crate::tiles`), when the store has them and they were
    /// opened; validated when the store was.
    pub fn tiles(&self) -> Option<TilesRef<'_>> {
        self.tiles.as_ref().map(|t| {
            TilesRef::new(
                t.info.side_log2,
                self.manifest.vertices,
                t.columns.values(),
                t.rows.values(),
                t.offsets.values(),
                t.edges.values(),
            )
        })
    }

    pub fn weights(&self) -> Option<WeightsRef<'_>> {
        self.out_edges.weights.as_ref().map(MappedWeights::get)
    }

    /// Some only when a transpose is stored.
    pub fn in_offsets(&self) -> Option<&[u64]> {
        self.in_edges.as_ref().map(|a| a.offsets.values())
    }

    pub fn in_neighbors(&self) -> Option<&[u32]> {
        self.in_edges.as_ref().map(|a| a.neighbors.values())
    }

    pub fn in_weights(&self) -> Option<WeightsRef<'_>> {
        self.in_edges
            .as_ref()
            .and_then(|a| a.weights.as_ref().map(MappedWeights::get))
    }

    /// The original labels in dense-id order, when the store has them.
    pub fn labels(&self) -> Result<Option<Vec<String>>, StoreError> {
        if !self.manifest.has_labels {
            return Ok(None);
        }
        let mut labels = Vec::with_capacity(self.num_vertices());
        for_each_label(&self.dir, &self.manifest, |_, label| labels.push(label))?;
        Ok(Some(labels))
    }

    /// Recompute the xxh3 of every file (side files of page checksums included) and compare it
    /// with the manifest.
    pub fn verify_checksums(&self) -> Result<(), StoreError> {
        let all: Vec<_> = self
            .manifest
            .files
            .iter()
            .flat_map(FileEntry::with_side_files)
            .collect();
        all.par_iter().try_for_each(|&(name, _, expected)| {
            let path = self.dir.join(name);
            expect_checksum(&path, expected, checksum_file(&path)?)
        })
    }

    /// Everything that opening a store does not check: every file's checksum, then that the
    /// arcs of a symmetric store come back and a transpose agrees with the lists
    /// ([`Store::verify_structure`]). `vastgraph info --verify`.
    /// A store replaced since it was opened (its files are read by name again) is reported
    /// as replaced, not as damaged.
    pub fn verify(&self) -> Result<(), StoreError> {
        let verified = self.verify_checksums().and_then(|()| {
            self.verify_structure()?;
            match self.tiles() {
                Some(tiles) => crate::tiles::verify_against_lists(self, &tiles),
                None => Ok(()),
            }
        });
        if verified.is_err() {
            check_not_replaced(&self.dir, self.identity)?;
        }
        verified
    }

    /// The size of every file of the store, manifest included.
    pub fn file_sizes(&self) -> Vec<(String, u64)> {
        let mut sizes: Vec<(String, u64)> = self
            .manifest
            .files
            .iter()
            .flat_map(FileEntry::with_side_files)
            .map(|(name, bytes, _)| (name.to_string(), bytes))
            .collect();
        if let Ok(meta) = fs::metadata(self.dir.join(MANIFEST_FILE)) {
            sizes.push((MANIFEST_FILE.to_string(), meta.len()));
        }
        sizes
    }

    /// Advise the kernel about access to every mapped array. Best effort: errors are ignored.
    pub fn advise(&self, advice: Advice) {
        let advice = match advice {
            Advice::Normal => memmap2::Advice::Normal,
            Advice::Sequential => memmap2::Advice::Sequential,
            Advice::Random => memmap2::Advice::Random,
            Advice::WillNeed => memmap2::Advice::WillNeed,
            Advice::HugePage => memmap2::Advice::HugePage,
        };
        let in_maps = self.in_edges.iter().flat_map(Adjacency::mappings);
        for mapped in self.out_edges.mappings().chain(in_maps) {
            mapped.advise(advice);
        }
    }

    fn validate(&self) -> Result<(), StoreError> {
        let n = self.manifest.vertices;
        let m = self.manifest.arcs;
        let code = self.manifest.offsets_code;
        let names = [
            (
                OffsetsOf::Arcs.file_name(code),
                files::NEIGHBORS,
                OffsetsOf::Codes.file_name(code),
                files::NEIGHBOR_CODES,
            ),
            (
                OffsetsOf::InArcs.file_name(code),
                files::IN_NEIGHBORS,
                OffsetsOf::InCodes.file_name(code),
                files::IN_NEIGHBOR_CODES,
            ),
        ];
        let directions = [Some(&self.out_edges), self.in_edges.as_ref()];
        for (adjacency, (offsets_name, neighbors_name, byte_offsets_name, codes_name)) in
            directions.into_iter().zip(names)
        {
            let Some(adjacency) = adjacency else {
                continue;
            };
            let offsets = adjacency.offsets.values();
            let recorded = |name: &str| self.manifest.file(name).and_then(|f| f.longest_list);
            validate_offsets(
                &self.dir.join(offsets_name),
                offsets,
                m,
                recorded(offsets_name),
            )?;
            match adjacency.byte_code_lists() {
                None => validate_neighbors(
                    &self.dir.join(neighbors_name),
                    offsets,
                    adjacency.neighbors.values(),
                    n,
                )?,
                Some(lists) => {
                    let codes_path = self.dir.join(codes_name);
                    let lists = lists.map_err(|e| StoreError::Manifest {
                        path: codes_path.clone(),
                        reason: e.to_string(),
                    })?;
                    validate_offsets(
                        &self.dir.join(byte_offsets_name),
                        lists.byte_offsets(),
                        lists.bytes().len() as u64,
                        recorded(byte_offsets_name),
                    )?;
                    validate_byte_code(&codes_path, &lists)?;
                }
            }
        }
        self.validate_first_neighbors()?;
        self.validate_list_heads()?;
        match (&self.manifest.tiles, self.tiles()) {
            (Some(info), Some(tiles)) => crate::tiles::validate(&self.dir, info, n, m, &tiles)
                .map_err(StoreError::damaged_tiles),
            _ => Ok(()),
        }
    }

    /// The side file of first neighbours, when the store has one, must agree with the lists:
    /// the out-of-core kernels and the in-memory views trust it in place of reading them.
    fn validate_first_neighbors(&self) -> Result<(), StoreError> {
        let Some(values) = self.first_neighbors() else {
            return Ok(());
        };
        let path = self.dir.join(files::FIRST_NEIGHBORS);
        let lists = self.byte_code();
        let offsets = self.offsets();
        let first_of = |v: usize| -> u32 {
            if offsets[v] == offsets[v + 1] {
                return NO_NEIGHBOR;
            }
            match &lists {
                None => self.neighbors()[offsets[v] as usize],
                Some(lists) => {
                    let mut first = NO_NEIGHBOR;
                    lists.for_each_in(v as u32, 0, 1, |w| {
                        first = w;
                        false
                    });
                    first
                }
            }
        };
        let blocks = values.len().div_ceil(VALIDATION_BLOCK);
        (0..blocks).into_par_iter().try_for_each(|block| {
            let start = block * VALIDATION_BLOCK;
            let end = (start + VALIDATION_BLOCK).min(values.len());
            match (start..end).find(|&v| values[v] != first_of(v)) {
                None => Ok(()),
                Some(v) => Err(StoreError::BadNeighbors {
                    path: path.clone(),
                    vertex: v as u64,
                    reason: format!(
                        "first neighbour recorded as {}, but the list starts with {}",
                        values[v],
                        first_of(v)
                    ),
                }),
            }
        })
    }
}

impl Store {
    /// The side file of list heads, when the store has one, must hold exactly each list's first
    /// `LIST_HEAD_IDS` ids, in vertex order: the out-of-core kernels take them in place of the
    /// lists.
    fn validate_list_heads(&self) -> Result<(), StoreError> {
        let Some(values) = self.list_heads.as_ref().map(MappedArray::values) else {
            return Ok(());
        };
        let path = self.dir.join(files::LIST_HEADS);
        let offsets = self.offsets();
        let n = self.num_vertices();
        let count = |v: usize| list_head_len(offsets[v + 1] - offsets[v]) as usize;
        let block_of = |b: usize| b * VALIDATION_BLOCK..((b + 1) * VALIDATION_BLOCK).min(n);
        let blocks = n.div_ceil(VALIDATION_BLOCK);
        let sizes: Vec<usize> = (0..blocks)
            .into_par_iter()
            .map(|b| block_of(b).map(count).sum())
            .collect();
        let total: usize = sizes.iter().sum();
        if total != values.len() {
            return Err(StoreError::FileLength {
                path,
                expected: 4 * total as u64,
                actual: 4 * values.len() as u64,
            });
        }
        let starts: Vec<usize> = sizes
            .iter()
            .scan(0, |at, &size| {
                let start = *at;
                *at += size;
                Some(start)
            })
            .collect();
        let lists = self.byte_code();
        (0..blocks).into_par_iter().try_for_each(|b| {
            let mut at = starts[b];
            let mut ids = Vec::new();
            for v in block_of(b) {
                let k = count(v);
                if k == 0 {
                    continue;
                }
                ids.clear();
                match &lists {
                    None => {
                        let first = offsets[v] as usize;
                        ids.extend_from_slice(&self.neighbors()[first..first + k]);
                    }
                    Some(lists) => {
                        lists.for_each_in(v as u32, 0, k, |w| {
                            ids.push(w);
                            true
                        });
                    }
                }
                if values[at..at + k] != ids[..] {
                    return Err(StoreError::BadNeighbors {
                        path: path.clone(),
                        vertex: v as u64,
                        reason: format!(
                            "list head recorded as {:?}, but the list starts with {ids:?}",
                            &values[at..at + k]
                        ),
                    });
                }
                at += k;
            }
            Ok(())
        })
    }
}

/// The directory at `dir` (device, inode): a store replaced with `--force` is a new directory
/// renamed over the path, so the identity changes. None when `dir` cannot be read.
pub fn store_identity(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(dir).ok().map(|m| (m.dev(), m.ino()))
}

/// Fails when the directory at `dir` is no longer the one whose `identity` was taken before
/// its manifest was read: the store was replaced while it was being opened, and the files
/// opened may belong to both stores. Files opened before the replacement stay readable (their
/// directory is only renamed, then unlinked), so a store opened whole is used whole.
pub fn check_not_replaced(dir: &Path, identity: Option<(u64, u64)>) -> Result<(), StoreError> {
    if store_identity(dir) == identity {
        return Ok(());
    }
    Err(StoreError::Replaced {
        path: dir.to_path_buf(),
    })
}

/// Hands each label of the store in `dir` to `visit(id, label)` in dense-id order, one line at
/// a time (O(1) memory), then checks the count and the checksum: a damaged label is an error,
/// not a wrong name in the output or a wrong vertex looked up.
fn for_each_label(
    dir: &Path,
    manifest: &Manifest,
    mut visit: impl FnMut(usize, String),
) -> Result<(), StoreError> {
    let path = dir.join(files::LABELS);
    let file = File::open(&path).map_err(|e| StoreError::io(&path, e))?;
    let mut hashed = HashingReader {
        inner: file,
        hasher: Xxh3::new(),
    };
    let mut count = 0usize;
    for (line_no, line) in BufReader::new(&mut hashed).lines().enumerate() {
        let line = line.map_err(|e| StoreError::BadLabels {
            path: path.clone(),
            reason: format!("line {}: {e}", line_no + 1),
        })?;
        visit(line_no, line);
        count += 1;
    }
    let vertices = manifest.vertices as usize;
    if count != vertices {
        return Err(StoreError::BadLabels {
            path,
            reason: format!("{count} lines for {vertices} vertices"),
        });
    }
    if let Some(entry) = manifest.file(files::LABELS) {
        expect_checksum(&path, &entry.xxh3, format_xxh3(hashed.hasher.digest()))?;
    }
    Ok(())
}

/// What one read of a store's labels says of the labels a caller named.
pub struct LabelLookup {
    /// The dense id of each wanted label (None for a label the store does not have).
    pub ids: Vec<Option<u32>>,
    /// A label of the store that is a decimal integer, if any: an integer given where a label
    /// goes may then mean that label rather than a dense id.
    pub integer_label: Option<String>,
}

/// The dense ids of `wanted` labels in the store in `dir` ([`LabelLookup`]), from one read of
/// its labels, holding only the wanted ones; None when it has no labels.
pub fn ids_of_labels(
    dir: &Path,
    manifest: &Manifest,
    wanted: &[&str],
) -> Result<Option<LabelLookup>, StoreError> {
    if !manifest.has_labels {
        return Ok(None);
    }
    let mut positions: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (i, label) in wanted.iter().enumerate() {
        positions.entry(label).or_default().push(i);
    }
    let mut ids = vec![None; wanted.len()];
    let mut integer_label = None;
    for_each_label(dir, manifest, |id, label| {
        for &i in positions.get(label.as_str()).into_iter().flatten() {
            ids[i] = Some(id as u32);
        }
        if integer_label.is_none() && !label.is_empty() && label.bytes().all(|b| b.is_ascii_digit())
        {
            integer_label = Some(label);
        }
    })?;
    Ok(Some(LabelLookup { ids, integer_label }))
}

/// The labels of vertices `ids` of the store in `dir`, from one read of its labels, holding
/// only those; None when it has no labels.
pub fn labels_of_ids(
    dir: &Path,
    manifest: &Manifest,
    ids: &[u32],
) -> Result<Option<Vec<String>>, StoreError> {
    if !manifest.has_labels {
        return Ok(None);
    }
    let mut positions: std::collections::HashMap<u32, Vec<usize>> = Default::default();
    for (i, &id) in ids.iter().enumerate() {
        positions.entry(id).or_default().push(i);
    }
    let mut labels = vec![String::new(); ids.len()];
    for_each_label(dir, manifest, |id, label| {
        for &i in positions.get(&(id as u32)).into_iter().flatten() {
            labels[i] = label.clone();
        }
    })?;
    Ok(Some(labels))
}

/// Reads and checks the manifest of the store in `dir`, and that every file it lists exists
/// with the recorded length, without mapping or validating the arrays: for readers that fetch
/// the arrays themselves (the out-of-core engine reads the neighbour lists with direct I/O and
/// must not pull them through the page cache just to open the store). The tile files are left
/// to their reader, which checks them when it uses them, so that a run without them is not
/// stopped by damaged tiles.
pub fn open_manifest(dir: &Path) -> Result<Manifest, StoreError> {
    let manifest = read_manifest(dir)?;
    check_manifest(dir, &manifest)?;
    Ok(manifest)
}

pub(crate) fn read_manifest(dir: &Path) -> Result<Manifest, StoreError> {
    let path = dir.join(MANIFEST_FILE);
    let file = File::open(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => StoreError::NotAStore {
            path: dir.to_path_buf(),
            reason: if dir.is_dir() {
                "no manifest.json in the directory"
            } else if dir.exists() {
                "a file, not a directory"
            } else {
                "no such directory"
            },
        },
        _ => StoreError::io(&path, e),
    })?;
    let mut text = Vec::new();
    file.take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut text)
        .map_err(|e| StoreError::io(&path, e))?;
    if text.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(StoreError::Manifest {
            path,
            reason: format!("larger than {MAX_MANIFEST_BYTES} bytes"),
        });
    }
    // Check the format name first so that another program's JSON gets a clear message.
    let value: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| StoreError::Manifest {
            path: path.clone(),
            reason: format!("not valid JSON: {e}"),
        })?;
    let format = value.get("format").and_then(|f| f.as_str());
    if format != Some(FORMAT_NAME) {
        return Err(StoreError::Manifest {
            path,
            reason: format!("format is {format:?}, expected {FORMAT_NAME:?}"),
        });
    }
    let version = value.get("version").and_then(|v| v.as_u64());
    if version != Some(FORMAT_VERSION as u64) {
        return Err(StoreError::Manifest {
            path,
            reason: format!("format version {version:?} is not supported (this build reads version {FORMAT_VERSION})"),
        });
    }
    serde_json::from_value(value).map_err(|e| StoreError::Manifest {
        path,
        reason: e.to_string(),
    })
}

/// Files a manifest may list or not: side files that older stores lack.
const OPTIONAL_FILES: &[&str] = &[files::FIRST_NEIGHBORS, files::LIST_HEADS];

/// The files a manifest must list, given its flags.
fn required_files(manifest: &Manifest) -> Vec<&'static str> {
    let weight_names = |i32_name, f32_name| match manifest.weight_type {
        Some(WeightType::I32) => Some(i32_name),
        Some(WeightType::F32) => Some(f32_name),
        None => None,
    };
    let code = manifest.offsets_code;
    let (neighbors, in_neighbors): (&[&'static str], &[&'static str]) = match manifest.codec {
        Codec::Raw => (&[files::NEIGHBORS], &[files::IN_NEIGHBORS]),
        Codec::ByteCode64 | Codec::StreamVByte64 | Codec::FrameOfReference64 | Codec::Zeta64 => (
            &[OffsetsOf::Codes.file_name(code), files::NEIGHBOR_CODES],
            &[OffsetsOf::InCodes.file_name(code), files::IN_NEIGHBOR_CODES],
        ),
    };
    let mut names = vec![OffsetsOf::Arcs.file_name(code)];
    names.extend(neighbors);
    names.extend(weight_names(files::WEIGHTS_I32, files::WEIGHTS_F32));
    if manifest.has_transpose {
        names.push(OffsetsOf::InArcs.file_name(code));
        names.extend(in_neighbors);
        names.extend(weight_names(files::IN_WEIGHTS_I32, files::IN_WEIGHTS_F32));
    }
    if manifest.has_labels {
        names.push(files::LABELS);
    }
    names
}

/// The manifest agrees with itself, and each file it lists exists with the recorded length.
/// The tile files' lengths are left to [`open_tiles`], so that a store opens without them.
fn check_manifest(dir: &Path, manifest: &Manifest) -> Result<(), StoreError> {
    let manifest_path = dir.join(MANIFEST_FILE);
    let fail = |reason: String| StoreError::Manifest {
        path: manifest_path.clone(),
        reason,
    };
    if manifest.id_width != 32 {
        return Err(fail(format!(
            "id width {} is not supported (only 32)",
            manifest.id_width
        )));
    }
    if manifest.vertices > MAX_VERTICES {
        return Err(fail(format!(
            "{} vertices exceed the maximum of {MAX_VERTICES}",
            manifest.vertices
        )));
    }
    if manifest.weighted != manifest.weight_type.is_some() {
        return Err(fail("weighted and weight_type disagree".into()));
    }
    if manifest.has_transpose && !manifest.directed {
        return Err(fail("a symmetric store lists a transpose".into()));
    }
    if manifest.codec == Codec::Raw && manifest.offsets_code != OffsetsCode::Plain {
        return Err(fail(
            "a raw store's offsets are plain u64s (it is mapped as it is)".into(),
        ));
    }
    let required = required_files(manifest);
    let mut seen = HashSet::new();
    for entry in &manifest.files {
        let name = entry.name.as_str();
        let tile_file = files::TILES.contains(&name);
        if tile_file && manifest.tiles.is_none() {
            return Err(fail(format!(
                "file {:?} is listed without a `tiles` entry",
                entry.name
            )));
        }
        if !required.contains(&name) && !OPTIONAL_FILES.contains(&name) && !tile_file {
            return Err(fail(format!("unexpected file {:?}", entry.name)));
        }
        if !seen.insert(entry.name.as_str()) {
            return Err(fail(format!("file {:?} listed twice", entry.name)));
        }
    }
    if let Some(missing) = required.iter().find(|name| !seen.contains(*name)) {
        return Err(fail(format!("{missing} is not listed")));
    }
    if manifest.tiles.is_some() {
        if let Some(missing) = files::TILES.iter().find(|name| !seen.contains(*name)) {
            return Err(fail(format!(
                "the store has tiles, but {missing} is not listed"
            )));
        }
    }
    let entry_bytes = |name: &str| manifest.file(name).map_or(0, |f| f.bytes);
    // Array lengths follow from n and m; the recorded byte counts must match them.
    let offsets_files = OffsetsOf::ALL.map(|o| {
        (
            o.file_name(manifest.offsets_code),
            expected_bytes(manifest, o),
        )
    });
    for (name, expected) in offsets_files.into_iter().chain([
        (files::NEIGHBORS, manifest.arcs.checked_mul(4)),
        (files::WEIGHTS_I32, manifest.arcs.checked_mul(4)),
        (files::WEIGHTS_F32, manifest.arcs.checked_mul(4)),
        (files::IN_NEIGHBORS, manifest.arcs.checked_mul(4)),
        (files::IN_WEIGHTS_I32, manifest.arcs.checked_mul(4)),
        (files::IN_WEIGHTS_F32, manifest.arcs.checked_mul(4)),
        (files::FIRST_NEIGHBORS, manifest.vertices.checked_mul(4)),
    ]) {
        if seen.contains(name) && Some(entry_bytes(name)) != expected {
            let required = match expected {
                Some(bytes) => format!("require {bytes}"),
                None => "require more bytes than a 64-bit count".to_string(),
            };
            return Err(fail(format!(
                "{name} is recorded as {} bytes, but n={} and m={} {required}",
                entry_bytes(name),
                manifest.vertices,
                manifest.arcs
            )));
        }
    }
    check_lengths(dir, manifest.files.iter().filter(|f| !is_tile_file(f)))
}

/// Whether `entry` is one of the tiles' files.
fn is_tile_file(entry: &FileEntry) -> bool {
    files::TILES.contains(&entry.name.as_str())
}

/// Every file of `entries`, and its side file of page checksums, exists with its recorded length.
fn check_lengths<'e>(
    dir: &Path,
    entries: impl Iterator<Item = &'e FileEntry>,
) -> Result<(), StoreError> {
    for (name, bytes, _) in entries.flat_map(FileEntry::with_side_files) {
        let path = dir.join(name);
        let meta = fs::metadata(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StoreError::MissingFile { path: path.clone() },
            _ => StoreError::io(&path, e),
        })?;
        if meta.len() != bytes {
            return Err(StoreError::FileLength {
                path,
                expected: bytes,
                actual: meta.len(),
            });
        }
    }
    Ok(())
}

/// Checks every page of every file that has page checksums: the arrays are about to be
/// validated, which reads them whole, and a damaged page must be an error before any of its
/// values is trusted (a flipped bit can leave a list valid, and the answer wrong).
fn check_pages<'e>(
    dir: &Path,
    entries: impl Iterator<Item = &'e FileEntry>,
) -> Result<(), StoreError> {
    for entry in entries {
        if let Some(sums) = PageSums::load(dir, entry)? {
            let mapped = Mapped::open(&dir.join(&entry.name), entry.bytes)?;
            sums.check_all(mapped.bytes())?;
        }
    }
    Ok(())
}

/// Maps the tiles' files after checking their lengths and pages (their arrays are validated
/// with the store's in `Store::validate`). Its errors concern the tiles only.
fn open_tiles(dir: &Path, manifest: &Manifest, info: TileInfo) -> Result<MappedTiles, StoreError> {
    let entries = || manifest.files.iter().filter(|f| is_tile_file(f));
    check_lengths(dir, entries())?;
    check_pages(dir, entries())?;
    fn map<T: Pod>(
        dir: &Path,
        manifest: &Manifest,
        name: &str,
    ) -> Result<MappedArray<T>, StoreError> {
        // check_manifest made sure every tile file is listed.
        MappedArray::open(&dir.join(name), manifest.file(name).map_or(0, |f| f.bytes))
    }
    Ok(MappedTiles {
        info,
        columns: map(dir, manifest, files::TILE_COLUMNS)?,
        rows: map(dir, manifest, files::TILE_ROWS)?,
        offsets: map(dir, manifest, files::TILE_OFFSETS)?,
        edges: map(dir, manifest, files::TILE_EDGES)?,
    })
}

fn open_adjacency(
    dir: &Path,
    manifest: &Manifest,
    transposed: bool,
) -> Result<Adjacency, StoreError> {
    let (offsets, code_offsets, neighbors, w_i32, w_f32) = if transposed {
        (
            OffsetsOf::InArcs,
            OffsetsOf::InCodes,
            files::IN_NEIGHBORS,
            files::IN_WEIGHTS_I32,
            files::IN_WEIGHTS_F32,
        )
    } else {
        (
            OffsetsOf::Arcs,
            OffsetsOf::Codes,
            files::NEIGHBORS,
            files::WEIGHTS_I32,
            files::WEIGHTS_F32,
        )
    };
    let open = |name: &str| (dir.join(name), manifest.file(name).map_or(0, |f| f.bytes));
    let (neighbors_path, neighbors_len) = open(neighbors);
    let weights = match manifest.weight_type {
        None => None,
        Some(WeightType::I32) => {
            let (path, len) = open(w_i32);
            Some(MappedWeights::I32(MappedArray::open(&path, len)?))
        }
        Some(WeightType::F32) => {
            let (path, len) = open(w_f32);
            Some(MappedWeights::F32(MappedArray::open(&path, len)?))
        }
    };
    let byte_code = match manifest.codec.list_codec() {
        None => None,
        Some(codec) => {
            let codes = match transposed {
                true => files::IN_NEIGHBOR_CODES,
                false => files::NEIGHBOR_CODES,
            };
            let (codes_path, codes_len) = open(codes);
            Some(ByteCodeArrays {
                codec,
                byte_offsets: OffsetsArray::open(dir, manifest, code_offsets)?,
                codes: Mapped::open(&codes_path, codes_len)?,
            })
        }
    };
    Ok(Adjacency {
        offsets: OffsetsArray::open(dir, manifest, offsets)?,
        neighbors: MappedArray::open(&neighbors_path, neighbors_len)?,
        weights,
        byte_code,
    })
}

/// Decodes every list of a compressed direction (offsets and byte offsets must already be
/// validated): the bytes must be exactly a valid encoding of sorted lists of ids below n with
/// the recorded degrees, so that nothing run on the store meets a corrupt block.
fn validate_byte_code(path: &Path, lists: &ByteCodeLists<'_>) -> Result<(), StoreError> {
    let vertices = lists.num_vertices();
    let blocks = vertices.div_ceil(VALIDATION_BLOCK);
    (0..blocks).into_par_iter().try_for_each(|block| {
        let first = block * VALIDATION_BLOCK;
        let last = (first + VALIDATION_BLOCK).min(vertices);
        lists.validate_vertices(first..last).map_err(|e| match e {
            CodecError::Corrupt { vertex, reason } => StoreError::BadNeighbors {
                path: path.to_path_buf(),
                vertex,
                reason,
            },
            other => StoreError::Manifest {
                path: path.to_path_buf(),
                reason: other.to_string(),
            },
        })
    })
}

/// offsets[0] = 0, non-decreasing, offsets[n] = m; and the longest list they give is the one
/// the manifest records beside them (`recorded`, from [`FileEntry::longest_list`]), if it
/// does.
pub fn validate_offsets(
    path: &Path,
    offsets: &[u64],
    arcs: u64,
    recorded: Option<u64>,
) -> Result<(), StoreError> {
    let fail = |reason: String| StoreError::BadOffsets {
        path: path.to_path_buf(),
        reason,
    };
    match (offsets.first(), offsets.last()) {
        (Some(0), Some(&last)) if last == arcs => {}
        (Some(0), Some(&last)) => {
            return Err(fail(format!("last offset is {last}, expected m={arcs}")))
        }
        (first, _) => return Err(fail(format!("first offset is {first:?}, expected 0"))),
    }
    // Blocks overlap by one entry so that every adjacent pair is checked.
    let blocks = offsets.len().div_ceil(VALIDATION_BLOCK);
    let longest = (0..blocks)
        .into_par_iter()
        .map(|block| {
            let start = block * VALIDATION_BLOCK;
            let end = (start + VALIDATION_BLOCK + 1).min(offsets.len());
            let mut longest = 0;
            for (i, w) in offsets[start..end].windows(2).enumerate() {
                if w[0] > w[1] {
                    let v = start + i;
                    return Err(fail(format!(
                        "offsets[{v}]={} > offsets[{}]={} (not monotone)",
                        w[0],
                        v + 1,
                        w[1]
                    )));
                }
                longest = longest.max(w[1] - w[0]);
            }
            Ok(longest)
        })
        .try_reduce(|| 0, |a, b| Ok(a.max(b)))?;
    match recorded {
        Some(recorded) if recorded != longest => Err(wrong_longest_list(path, recorded, longest)),
        _ => Ok(()),
    }
}

/// Every neighbour list is strictly increasing (sorted, no duplicates) with ids below n.
/// Offsets must already be validated.
fn validate_neighbors(
    path: &Path,
    offsets: &[u64],
    neighbors: &[u32],
    n: u64,
) -> Result<(), StoreError> {
    let vertices = offsets.len() - 1;
    let blocks = vertices.div_ceil(VALIDATION_BLOCK);
    (0..blocks).into_par_iter().try_for_each(|block| {
        let first = block * VALIDATION_BLOCK;
        let last = (first + VALIDATION_BLOCK).min(vertices);
        for v in first..last {
            let list = &neighbors[offsets[v] as usize..offsets[v + 1] as usize];
            let fail = |reason: String| StoreError::BadNeighbors {
                path: path.to_path_buf(),
                vertex: v as u64,
                reason,
            };
            if let Some(i) = list.windows(2).position(|w| w[0] >= w[1]) {
                return Err(fail(format!(
                    "neighbour {} follows {} (lists must be strictly increasing)",
                    list[i + 1],
                    list[i]
                )));
            }
            // Strictly increasing: only the last id can be the largest.
            if let Some(&max) = list.last() {
                if max as u64 >= n {
                    return Err(fail(format!("neighbour id {max} is not below n={n}")));
                }
            }
        }
        Ok(())
    })
}

/// Hashes the bytes read through it.
struct HashingReader<R> {
    inner: R,
    hasher: Xxh3,
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

fn checksum_file(path: &Path) -> Result<String, StoreError> {
    let mut file = File::open(path).map_err(|e| StoreError::io(path, e))?;
    let mut hasher = Xxh3::new();
    let mut buffer = vec![0u8; CHECKSUM_READ_BYTES];
    loop {
        let read = match file.read(&mut buffer) {
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(StoreError::io(path, e)),
        };
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(format_xxh3(hasher.digest()))
}
