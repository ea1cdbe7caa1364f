//! Tiles: a second layout of a store's arcs, for passes that read every arc (Mosaic's tiles, on
//! a grid of fixed blocks).
//!
//! The vertices are cut into blocks of 2^k consecutive ids (k = `side_log2` ≤ 16). Tile (r, c)
//! holds the arcs u → v with u in block r (its *row*) and v in block c (its *column*); each arc
//! is one u32, `(u − r·2^k) << 16 | (v − c·2^k)`, both ends 16-bit offsets within their blocks,
//! so an arc costs 4 bytes as in the CSR and no per-vertex offsets are stored. Only tiles with
//! arcs are stored, column by column, and within a column by row. The arcs of a tile are sorted
//! by source, then target (ascending u32), so that within a column:
//! - the sources are read in ascending order, a stream through the source values, while
//!   the target block's state (8·2^k bytes) stays in the L2 cache, beside the source block's;
//! - each target receives its in-arcs in ascending source order, the order of its in-list,
//!   so a sum over tiles equals the sequential sum over the list bit for bit, for any thread
//!   count (one thread owns a column).
//!
//! Mosaic orders tiles along a Hilbert curve so that consecutive tiles share both blocks; here
//! a thread owns one column at a time instead, which keeps the target block in cache for the
//! whole column and needs neither atomics nor a merge of partial sums.
//!
//! Files ([`files::TILES`]): `tile_columns.u64` (columns + 1: each column's first tile),
//! `tile_rows.u32` (each tile's row), `tile_offsets.u64` (tiles + 1: each tile's first arc),
//! `tile_edges.u32` (m arcs). They are checksummed and recorded in the manifest like the
//! store's other files, and validated when the store is opened ([`validate`]); that they hold
//! exactly the store's arcs is checked by `info --verify` ([`verify_against_lists`]).

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;

use crate::builder::write_manifest;
use crate::cancel::check_cancel;
use crate::hashed_file::HashedFileWriter;
use crate::manifest::{files, FileEntry, Manifest, TileInfo, MANIFEST_FILE};
use crate::progress::Progress;
use crate::staging::{check_replaceable, commit, split_target, through_link, TempDir};
use crate::target_lock::{stage_path, TargetLock};
use crate::{Store, StoreError};

/// The largest tile side: arc ends are 16-bit offsets.
pub const MAX_SIDE_LOG2: u32 = 16;
/// The smallest tile side accepted: below it a tile's bookkeeping outweighs its arcs.
pub const MIN_SIDE_LOG2: u32 = 6;
/// The most columns (and rows) a grid may have: the build counts arcs in a dense grid of
/// columns² cells.
pub const MAX_COLUMNS: u64 = 1 << 16;

/// The tile side for a graph of `vertices` on this machine. While the f64 values of all the
/// vertices fit the last-level cache, a pass keeps one column's sums in L2 beside a row's
/// source values: the largest side whose two blocks (16·2^k bytes) take at most half of one
/// core's L2 (from sysfs), the rest left to the streamed arcs. Past that, the sums of a stripe
/// of columns live in the last-level cache and each tile reads its block of sources again, so
/// the largest side, whose tiles are the densest. 2^16 when the L2's size cannot be read.
/// (20 PageRank iterations on Kronecker 20, values in cache: 0.30–0.31 s at 2^15 on a 1 MiB
/// L2, 0.34–0.38 s at 2^16. 10 on Kronecker 22, 32 MiB of values: 1.3–1.4 s at 2^16, 2.0–2.2 s
/// at 2^15, 2.2–2.5 s at 2^14.)
pub fn default_side_log2(vertices: u64) -> u32 {
    if !values_fit_cache(vertices) {
        return MAX_SIDE_LOG2;
    }
    let l2 = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index2/size")
        .ok()
        .and_then(|s| parse_cache_size(s.trim()));
    match l2 {
        Some(bytes) if bytes >= 32 << MIN_SIDE_LOG2 => {
            (63 - (bytes / 32).leading_zeros()).clamp(MIN_SIDE_LOG2, MAX_SIDE_LOG2)
        }
        _ => MAX_SIDE_LOG2,
    }
}

/// Whether one f64 a vertex stays in the last-level cache through a pass: it takes at most half
/// of it, the rest left to the sums and the streamed arcs. (Kronecker 22, whose 32 MiB of values
/// equal a 32 MiB cache, ran 20 PageRank iterations in 4.0 s with one column a stripe and 2^15
/// tiles, the values read again for every column, against 2.5 s with 2^16 tiles.)
pub fn values_fit_cache(vertices: u64) -> bool {
    vertices.saturating_mul(8) <= last_level_cache_bytes() as u64 / 2
}

/// What [`set_last_level_cache_bytes`] set; 0 reads sysfs.
static LAST_LEVEL_CACHE_OVERRIDE: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// Makes [`last_level_cache_bytes`] answer `bytes` for the rest of the process (0: sysfs
/// again): for a virtual machine whose sysfs reports the host's whole cache, and for tests
/// whose graphs are sized from the cache.
pub fn set_last_level_cache_bytes(bytes: usize) {
    LAST_LEVEL_CACHE_OVERRIDE.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// The most last-level cache a pass counts on for each of its threads. A virtual machine's
/// sysfs reports its host's whole cache, shared with tenants it cannot see; taken at its word,
/// values far larger than the guest's share are held to fit, and a pass streams them once a
/// column instead of once a stripe ([docs/tiles.md](../../../docs/tiles.md)).
pub const CACHE_BYTES_A_THREAD: usize = 16 << 20;

/// The last-level cache a pass counts on: sysfs's (`index3`; 32 MiB when it cannot be read),
/// at most [`CACHE_BYTES_A_THREAD`] for each thread of the current pool.
pub fn last_level_cache_bytes() -> usize {
    match LAST_LEVEL_CACHE_OVERRIDE.load(std::sync::atomic::Ordering::Relaxed) {
        0 => {}
        bytes => return bytes,
    }
    let reported = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index3/size")
        .ok()
        .and_then(|s| parse_cache_size(s.trim()))
        .map_or(32 << 20, |b| b as usize);
    reported.min(CACHE_BYTES_A_THREAD.saturating_mul(rayon::current_num_threads()))
}

/// sysfs's spelling of a cache size: `512K`, `1M`, or bytes.
pub fn parse_cache_size(s: &str) -> Option<u64> {
    let (digits, unit) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        _ => (s, 1),
    };
    digits.parse::<u64>().ok().map(|v| v * unit)
}

/// The tiles of an opened store, borrowed from its mapped files.
#[derive(Clone, Copy, Debug)]
pub struct TilesRef<'a> {
    side_log2: u32,
    vertices: u64,
    columns: &'a [u64],
    rows: &'a [u32],
    offsets: &'a [u64],
    edges: &'a [u32],
}

/// One tile: its row (source block) and its arcs, `source_offset << 16 | target_offset`,
/// every source offset below `sources` and every target offset below `targets` (the lengths
/// of its blocks), as [`validate`] checked.
#[derive(Clone, Copy, Debug)]
pub struct Tile<'a> {
    pub row: u32,
    pub edges: &'a [u32],
    pub sources: usize,
    pub targets: usize,
}

/// The source and target offsets of a packed arc, within their blocks.
#[inline(always)]
pub fn unpack(edge: u32) -> (usize, usize) {
    ((edge >> 16) as usize, (edge & 0xffff) as usize)
}

impl<'a> TilesRef<'a> {
    /// The tiles of these arrays, which [`validate`] has accepted.
    pub(crate) fn new(
        side_log2: u32,
        vertices: u64,
        columns: &'a [u64],
        rows: &'a [u32],
        offsets: &'a [u64],
        edges: &'a [u32],
    ) -> TilesRef<'a> {
        TilesRef {
            side_log2,
            vertices,
            columns,
            rows,
            offsets,
            edges,
        }
    }

    pub fn side_log2(&self) -> u32 {
        self.side_log2
    }

    /// Vertices a block holds (the last block may hold fewer).
    pub fn side(&self) -> usize {
        1 << self.side_log2
    }

    pub fn num_columns(&self) -> usize {
        self.columns.len().saturating_sub(1)
    }

    pub fn num_tiles(&self) -> usize {
        self.rows.len()
    }

    pub fn num_edges(&self) -> u64 {
        self.edges.len() as u64
    }

    /// The tiles of column `c`, by row.
    pub fn column(&self, c: usize) -> impl Iterator<Item = Tile<'a>> + 'a {
        let (rows, offsets, edges) = (self.rows, self.offsets, self.edges);
        let tiles = *self;
        let targets = self.block_len(c);
        (self.columns[c] as usize..self.columns[c + 1] as usize).map(move |t| Tile {
            row: rows[t],
            edges: &edges[offsets[t] as usize..offsets[t + 1] as usize],
            sources: tiles.block_len(rows[t] as usize),
            targets,
        })
    }

    /// Vertices of block `b`.
    pub fn block_len(&self, b: usize) -> usize {
        block_len(self.vertices, self.side_log2, b)
    }
}

/// Vertices of block `b` of a graph of `vertices` cut into blocks of 2^`side_log2`.
pub fn block_len(vertices: u64, side_log2: u32, b: usize) -> usize {
    let start = (b as u64) << side_log2;
    (vertices - start).min(1 << side_log2) as usize
}

/// Checks the tiles' arrays against each other and the store's n and m: every column's tiles
/// in strictly ascending rows below the column count, offsets ascending from 0 to m, and every
/// tile's arcs strictly ascending with both ends inside their blocks.
pub fn validate(
    dir: &Path,
    info: &TileInfo,
    vertices: u64,
    arcs: u64,
    tiles: &TilesRef<'_>,
) -> Result<(), StoreError> {
    validate_index(
        dir,
        info,
        vertices,
        arcs,
        tiles.columns,
        tiles.rows,
        tiles.offsets,
    )?;
    (0..tiles.num_columns()).into_par_iter().try_for_each(|c| {
        let first = tiles.columns[c] as usize;
        for (t, tile) in (first..).zip(tiles.column(c)) {
            validate_edges(dir, t, c, &tile, None)?;
        }
        Ok(())
    })
}

/// [`validate`] but for the arcs: the index files, which a reader of the arcs from disk
/// holds in DRAM.
pub fn validate_index(
    dir: &Path,
    info: &TileInfo,
    vertices: u64,
    arcs: u64,
    columns: &[u64],
    rows: &[u32],
    offsets: &[u64],
) -> Result<(), StoreError> {
    let bad = |name: &str, reason: String| StoreError::BadTiles {
        path: dir.join(name),
        reason,
    };
    if !(MIN_SIDE_LOG2..=MAX_SIDE_LOG2).contains(&info.side_log2) {
        return Err(bad(
            MANIFEST_FILE,
            format!(
                "tile side 2^{} is outside 2^{MIN_SIDE_LOG2}..=2^{MAX_SIDE_LOG2}",
                info.side_log2
            ),
        ));
    }
    let count = vertices.div_ceil(1 << info.side_log2);
    if columns.len() as u64 != count + 1 {
        return Err(bad(
            files::TILE_COLUMNS,
            format!(
                "{} entries for {count} columns of 2^{} vertices",
                columns.len(),
                info.side_log2
            ),
        ));
    }
    let tiles = rows.len() as u64;
    if tiles != info.tiles || offsets.len() as u64 != tiles + 1 {
        return Err(bad(
            files::TILE_OFFSETS,
            format!(
                "{tiles} rows and {} offsets for the {} tiles the manifest records",
                offsets.len(),
                info.tiles
            ),
        ));
    }
    if columns.first() != Some(&0) || columns.last() != Some(&tiles) {
        return Err(bad(
            files::TILE_COLUMNS,
            format!("must run from 0 to the tile count {tiles}"),
        ));
    }
    if let Some(c) = columns.windows(2).position(|w| w[0] > w[1]) {
        return Err(bad(
            files::TILE_COLUMNS,
            format!("column {c} ends before it starts"),
        ));
    }
    if offsets.first() != Some(&0) || offsets.last() != Some(&arcs) {
        return Err(bad(
            files::TILE_OFFSETS,
            format!("must run from 0 to the store's {arcs} arcs"),
        ));
    }
    if let Some(t) = offsets.windows(2).position(|w| w[0] >= w[1]) {
        return Err(bad(files::TILE_OFFSETS, format!("tile {t} has no arcs")));
    }
    for c in 0..count as usize {
        let rows = &rows[columns[c] as usize..columns[c + 1] as usize];
        if let Some(i) = rows.windows(2).position(|w| w[0] >= w[1]) {
            return Err(bad(
                files::TILE_ROWS,
                format!(
                    "tile {} of column {c}: rows not strictly ascending",
                    columns[c] as usize + i + 1
                ),
            ));
        }
        if let Some(&row) = rows.last().filter(|&&r| r as u64 >= count) {
            return Err(bad(files::TILE_ROWS, format!("row {row} ≥ {count} rows")));
        }
    }
    Ok(())
}

/// Checks the arcs of tile `t` (column `c`), or a piece of them: strictly ascending, after
/// `previous` (the last arc of the piece before, if any), both ends inside their blocks.
pub fn validate_edges(
    dir: &Path,
    t: usize,
    c: usize,
    tile: &Tile<'_>,
    mut previous: Option<u32>,
) -> Result<(), StoreError> {
    for &edge in tile.edges {
        if previous.is_some_and(|p| p >= edge)
            || (edge >> 16) as usize >= tile.sources
            || (edge & 0xffff) as usize >= tile.targets
        {
            return Err(StoreError::BadTiles {
                path: dir.join(files::TILE_EDGES),
                reason: format!(
                    "tile {t} (row {}, column {c}): arc {edge:#010x} is out of its blocks or \
                     out of order",
                    tile.row
                ),
            });
        }
        previous = Some(edge);
    }
    Ok(())
}

/// Checks that the tiles hold exactly the arcs of the store's out-lists: [`validate`] has
/// established that they hold m distinct arcs, so each must be found in the lists.
pub fn verify_against_lists(store: &Store, tiles: &TilesRef<'_>) -> Result<(), StoreError> {
    let k = tiles.side_log2;
    (0..tiles.num_columns()).into_par_iter().try_for_each(|c| {
        for tile in tiles.column(c) {
            for &edge in tile.edges {
                let (s, t) = unpack(edge);
                let u = ((tile.row as u64) << k) + s as u64;
                let v = (((c as u64) << k) + t as u64) as u32;
                if !has_arc(store, u as u32, v) {
                    return Err(StoreError::BadTiles {
                        path: store.dir().join(files::TILE_EDGES),
                        reason: format!(
                            "holds the arc {u} -> {v}, which the lists do not (tiles of \
                                 another build? `vastgraph tile` rebuilds them)"
                        ),
                    });
                }
            }
        }
        Ok(())
    })
}

fn has_arc(store: &Store, u: u32, v: u32) -> bool {
    let mut found = false;
    for_each_out_in(store, u as usize, v as u64..v as u64 + 1, |_| found = true);
    found
}

/// What `vastgraph tile` needs.
#[derive(Clone, Debug)]
pub struct TileOptions {
    /// log2 of the block side; [`default_side_log2`] by default.
    pub side_log2: u32,
    /// The build's memory budget: the grid of counts, the tile index and the buffer of arcs
    /// written one range of columns at a time.
    pub memory_bytes: u64,
    pub progress: Progress,
}

/// Builds a store with `build` (given the path to write and whether to replace a store there)
/// and, with a `tile` step, tiles it before it appears at `target`, so that `target` names the
/// whole tiled store or what it named before at every moment: a failure or an interrupt while
/// tiling leaves nothing behind (`convert`/`generate --tiles`). Both then run on a hidden
/// sibling of `target`: `build` writes a store there, `tile` tiles it in place (with
/// [`build_tiles`]). With `overwrite`, a store at `target` is replaced once the new one is
/// tiled; without it, one there is refused before the work. Without `tile`, `build` writes
/// `target` itself.
pub fn build_then_tile<E: From<StoreError>>(
    target: &Path,
    overwrite: bool,
    build: impl FnOnce(&Path, bool) -> Result<Manifest, E>,
    tile: Option<impl FnOnce(&Path) -> Result<Manifest, E>>,
) -> Result<Manifest, E> {
    let Some(tile) = tile else {
        return build(target, overwrite);
    };
    let target = &through_link(target);
    check_replaceable(target, overwrite)?;
    // Held until the tiled store is in place: a second writer of `target` fails at once.
    let _lock = TargetLock::acquire(target)?;
    // The hidden store, whatever the build left of it, is removed unless it is committed.
    let untiled = TempDir::adopt(stage_path(target, "untiled"));
    build(untiled.path(), false)?;
    check_cancel()?;
    let manifest = tile(untiled.path())?;
    commit(untiled, target, overwrite)?;
    Ok(manifest)
}

/// Adds tiles to the store at `dir`, replacing any it has. The new store is staged beside it
/// (its other files hard-linked, the tiles written, the whole opened and validated), then
/// renamed into place as every build is, so a reader sees the store with the old tiles or the
/// new ones, never a mix. Returns the new manifest.
pub fn build_tiles(dir: &Path, opts: &TileOptions) -> Result<Manifest, StoreError> {
    let started = Instant::now();
    let k = opts.side_log2;
    if !(MIN_SIDE_LOG2..=MAX_SIDE_LOG2).contains(&k) {
        return Err(StoreError::invalid_input(format!(
            "a tile side of 2^{k} is outside 2^{MIN_SIDE_LOG2}..=2^{MAX_SIDE_LOG2} (arc ends \
             within a tile are 16-bit offsets)"
        )));
    }
    let dir = &through_link(dir);
    let _lock = TargetLock::acquire(dir)?;
    // Refused now rather than after the work: the tiled store replaces this directory whole.
    check_replaceable(dir, true)?;
    let store = Store::open_without_tiles(dir)?;
    let n = store.num_vertices() as u64;
    let columns = n.div_ceil(1 << k);
    if columns > MAX_COLUMNS {
        return Err(StoreError::invalid_input(format!(
            "{}: tiles of 2^{k} vertices would cut its {n} vertices into a grid of {columns} \
             × {columns} tiles, more than the {MAX_COLUMNS} × {MAX_COLUMNS} a tile index \
             addresses; use a larger side (--side-log2 up to {MAX_SIDE_LOG2})",
            dir.display()
        )));
    }
    let grid_bytes = columns * columns * 8;
    // The grid, then the index (12 bytes a tile, at most a cell each), then a buffer.
    let minimum = grid_bytes * 5 / 2 + (1 << 20);
    if opts.memory_bytes < minimum {
        return Err(StoreError::MemoryBudgetTooSmall {
            given: opts.memory_bytes,
            minimum,
        });
    }
    let (parent, name) = split_target(dir)?;
    let staging = TempDir::create_in(&parent, &name, "tmp")?;
    let mut entries = link_files(&store, staging.path())?;

    opts.progress.phase("counting arcs per tile", Some(columns));
    let counts = count_grid(&store, k, columns as usize, &opts.progress)?;
    let index = TileIndex::from_grid(&counts, columns as usize);
    drop(counts);
    check_cancel()?;
    let index_bytes = index.rows.len() as u64 * 12 + (columns + 1) * 8;
    let buffer_edges = ((opts.memory_bytes
        - grid_bytes.min(opts.memory_bytes)
        - index_bytes.min(opts.memory_bytes))
        / 4)
    .max(1 << 18);
    opts.progress
        .phase("writing the tiles", Some(store.num_arcs()));
    let mut out = HashedFileWriter::create(staging.path(), files::TILE_EDGES)?;
    write_edges(&store, k, &index, buffer_edges, &mut out, &opts.progress)?;
    entries.push(out.finish()?);
    entries.push(write_array(
        staging.path(),
        files::TILE_COLUMNS,
        &index.columns,
    )?);
    entries.push(write_array(staging.path(), files::TILE_ROWS, &index.rows)?);
    entries.push(write_array(
        staging.path(),
        files::TILE_OFFSETS,
        &index.offsets,
    )?);

    let mut manifest = store.manifest().clone();
    manifest.tiles = Some(TileInfo {
        side_log2: k,
        tiles: index.rows.len() as u64,
    });
    manifest.files = entries;
    let tiles = serde_json::json!({
        "side_log2": k,
        "memory": opts.memory_bytes,
        "build_seconds": started.elapsed().as_secs_f64(),
        "created_unix": SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
    });
    if let Some(options) = manifest.provenance.options.as_object_mut() {
        options.insert("tiles".into(), tiles);
    }
    drop(store);
    write_manifest(staging.path(), &manifest)?;
    opts.progress.phase("checking the tiles", None);
    Store::open(staging.path())?;
    check_cancel()?;
    commit(staging, dir, true)?;
    Ok(manifest)
}

/// Hard-links every file of `store` but its tiles into `into` (a copy where links fail), and
/// returns their manifest entries.
fn link_files(store: &Store, into: &Path) -> Result<Vec<FileEntry>, StoreError> {
    let dir = store.dir();
    let mut entries = Vec::new();
    for entry in &store.manifest().files {
        if files::TILES.contains(&entry.name.as_str()) {
            continue;
        }
        let mut names = vec![entry.name.clone()];
        names.extend(entry.page_sums.as_ref().map(|s| s.name.clone()));
        for name in names {
            let (from, to) = (dir.join(&name), into.join(&name));
            if std::fs::hard_link(&from, &to).is_err() {
                std::fs::copy(&from, &to).map_err(|e| StoreError::write(&to, e))?;
            }
        }
        entries.push(entry.clone());
    }
    Ok(entries)
}

fn write_array<T: crate::pod::Pod>(
    dir: &Path,
    name: &str,
    values: &[T],
) -> Result<FileEntry, StoreError> {
    let mut out = HashedFileWriter::create(dir, name)?;
    out.write_values(values)?;
    out.finish()
}

/// Calls `f` on each out-neighbour of `u` in `targets` (ascending), raw or compressed.
fn for_each_out_in(store: &Store, u: usize, targets: std::ops::Range<u64>, mut f: impl FnMut(u32)) {
    let offsets = store.offsets();
    let (lo, hi) = (offsets[u] as usize, offsets[u + 1] as usize);
    match store.byte_code() {
        None => {
            let list = &store.neighbors()[lo..hi];
            let from = list.partition_point(|&v| (v as u64) < targets.start);
            for &v in &list[from..] {
                if v as u64 >= targets.end {
                    break;
                }
                f(v);
            }
        }
        Some(lists) => {
            lists.for_each_in(u as u32, 0, hi - lo, |v| {
                if (v as u64) < targets.start {
                    return true;
                }
                if (v as u64) >= targets.end {
                    return false;
                }
                f(v);
                true
            });
        }
    }
}

/// Arcs per tile, row-major: `grid[r * columns + c]`.
fn count_grid(
    store: &Store,
    k: u32,
    columns: usize,
    progress: &Progress,
) -> Result<Vec<u64>, StoreError> {
    let n = store.num_vertices();
    let mut grid = vec![0u64; columns * columns];
    grid.par_chunks_mut(columns.max(1))
        .enumerate()
        .try_for_each(|(r, row)| {
            check_cancel()?;
            let first = r << k;
            for u in first..(first + (1 << k)).min(n) {
                for_each_out_in(store, u, 0..n as u64, |v| row[(v >> k) as usize] += 1);
            }
            progress.advance(1);
            Ok::<(), StoreError>(())
        })?;
    Ok(grid)
}

/// Where each tile's arcs go: the arrays of the three index files.
struct TileIndex {
    columns: Vec<u64>,
    rows: Vec<u32>,
    offsets: Vec<u64>,
}

impl TileIndex {
    fn from_grid(grid: &[u64], columns: usize) -> TileIndex {
        let mut index = TileIndex {
            columns: vec![0],
            rows: Vec::new(),
            offsets: vec![0],
        };
        let mut arcs = 0;
        for c in 0..columns {
            for r in 0..columns {
                let count = grid[r * columns + c];
                if count > 0 {
                    arcs += count;
                    index.rows.push(r as u32);
                    index.offsets.push(arcs);
                }
            }
            index.columns.push(index.rows.len() as u64);
        }
        index
    }

    /// The tile of row `r` in column `c`, if it has arcs.
    fn tile(&self, c: usize, r: u32) -> Option<usize> {
        let first = self.columns[c] as usize;
        let rows = &self.rows[first..self.columns[c + 1] as usize];
        rows.binary_search(&r).ok().map(|i| first + i)
    }
}

/// Writes the arcs of every tile in file order, one range of whole tiles (at most
/// `buffer_edges` arcs, or one tile) at a time: for each range, every row scatters its
/// sources' arcs into the range's tiles, each row through its own cursors.
fn write_edges(
    store: &Store,
    k: u32,
    index: &TileIndex,
    buffer_edges: u64,
    out: &mut HashedFileWriter,
    progress: &Progress,
) -> Result<(), StoreError> {
    let n = store.num_vertices();
    let columns = index.columns.len() - 1;
    let tiles = index.rows.len();
    let mut first = 0;
    while first < tiles {
        check_cancel()?;
        let base = index.offsets[first];
        let mut end = first + 1;
        while end < tiles && index.offsets[end + 1] - base <= buffer_edges {
            end += 1;
        }
        let len = (index.offsets[end] - base) as usize;
        let buffer: Vec<AtomicU32> = (0..len).map(|_| AtomicU32::new(0)).collect();
        let column_of = |t: usize| index.columns.partition_point(|&f| f as usize <= t) - 1;
        let (c0, c1) = (column_of(first), column_of(end - 1));
        let targets = ((c0 as u64) << k)..(((c1 as u64 + 1) << k).min(n as u64));
        (0..columns as u32).into_par_iter().for_each(|r| {
            // Cursors into `buffer` of this row's tiles in the range, by column from c0.
            let mut cursors: Vec<u64> = (c0..=c1)
                .map(|c| match index.tile(c, r) {
                    Some(t) if (first..end).contains(&t) => index.offsets[t] - base,
                    _ => u64::MAX,
                })
                .collect();
            if cursors.iter().all(|&c| c == u64::MAX) {
                return;
            }
            let start = (r as usize) << k;
            let mask = (1u32 << k) - 1;
            for u in start..(start + (1 << k)).min(n) {
                let source = (u as u32 & mask) << 16;
                for_each_out_in(store, u, targets.clone(), |v| {
                    let cursor = &mut cursors[(v >> k) as usize - c0];
                    if *cursor != u64::MAX {
                        buffer[*cursor as usize].store(source | (v & mask), Relaxed);
                        *cursor += 1;
                    }
                });
            }
            debug_assert!((c0..=c1).zip(&cursors).all(|(c, &cursor)| {
                cursor == u64::MAX
                    || Some(cursor + base) == index.tile(c, r).map(|t| index.offsets[t + 1])
            }));
        });
        // SAFETY: AtomicU32 has u32's size and alignment; every store above has completed
        // (the parallel loop joined) and `buffer` is not shared any more.
        let values: &[u32] =
            unsafe { std::slice::from_raw_parts(buffer.as_ptr() as *const u32, buffer.len()) };
        out.write_values(values)?;
        progress.advance(len as u64);
        first = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_counted_on_is_at_most_a_threads_share_of_it_per_thread() {
        let within = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(last_level_cache_bytes)
        };
        // Whatever sysfs reports (a guest may see its host's 260 MiB), one thread counts on
        // its own share, and more threads on no less.
        assert!(within(1) <= CACHE_BYTES_A_THREAD);
        assert!(within(4) >= within(1));
        assert!(within(4) <= 4 * CACHE_BYTES_A_THREAD);
    }

    #[test]
    fn sysfs_cache_sizes_parse() {
        assert_eq!(parse_cache_size("512K"), Some(512 << 10));
        assert_eq!(parse_cache_size("260M"), Some(260 << 20));
        assert_eq!(parse_cache_size("4096"), Some(4096));
        assert_eq!(parse_cache_size("lots"), None);
    }
}
