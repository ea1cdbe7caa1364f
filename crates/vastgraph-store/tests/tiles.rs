//! `vastgraph tile`: the tiles hold exactly the store's arcs, in the documented order, whatever
//! the budget; damaged or foreign tile files are refused on open, naming the file, while the
//! store still opens without them.

mod common;

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use common::*;
use vastgraph_store::manifest::files;
use vastgraph_store::tiles::{build_tiles, unpack, TileOptions};
use vastgraph_store::{compress_store, BuildOptions, Codec, CompressOptions, Store, StoreBuilder};

/// A directed store of `edges` random arcs among `n` vertices (seed `seed`).
fn store_of(target: &Path, n: u32, edges: usize, seed: u64) -> PathBuf {
    let mut builder = StoreBuilder::create(target, BuildOptions { ..opts(64 * MIB) }).unwrap();
    let mut rng = vastgraph_store::synthetic::SplitMix64::new(seed);
    let src: Vec<u32> = (0..edges).map(|_| rng.below(n.into())).collect();
    let dst: Vec<u32> = (0..edges).map(|_| rng.below(n.into())).collect();
    builder.push_batch(&src, &dst, None).unwrap();
    builder.finish().unwrap();
    target.to_path_buf()
}

fn tile(dir: &Path, side_log2: u32, memory_bytes: u64) {
    let opts = TileOptions {
        side_log2,
        memory_bytes,
        progress: Default::default(),
    };
    build_tiles(dir, &opts).unwrap();
}

type ArcSet = BTreeSet<(u64, u64)>;

/// The store's arcs from its lists, and from its tiles (checking the tiles' order on the way).
fn arcs_both_ways(dir: &Path) -> (ArcSet, ArcSet) {
    let store = Store::open(dir).unwrap();
    let offsets = store.offsets();
    let mut lists = BTreeSet::new();
    for u in 0..store.num_vertices() {
        let degree = (offsets[u + 1] - offsets[u]) as usize;
        match store.byte_code() {
            None => {
                let list = &store.neighbors()[offsets[u] as usize..offsets[u + 1] as usize];
                lists.extend(list.iter().map(|&v| (u as u64, v as u64)));
            }
            Some(codes) => {
                codes.for_each_in(u as u32, 0, degree, |v| lists.insert((u as u64, v as u64)));
            }
        }
    }
    let tiles = store.tiles().expect("tiles were built");
    let k = tiles.side_log2();
    let mut from_tiles = BTreeSet::new();
    let mut count = 0;
    for c in 0..tiles.num_columns() {
        let mut last_row = None;
        for t in tiles.column(c) {
            assert!(last_row < Some(t.row), "rows ascend within a column");
            last_row = Some(t.row);
            assert!(
                t.edges.windows(2).all(|w| w[0] < w[1]),
                "arcs ascend in a tile"
            );
            for &e in t.edges {
                let (s, d) = unpack(e);
                from_tiles.insert((
                    ((t.row as u64) << k) + s as u64,
                    ((c as u64) << k) + d as u64,
                ));
                count += 1;
            }
        }
    }
    assert_eq!(count, store.num_arcs(), "each arc once");
    (lists, from_tiles)
}

#[test]
fn tiles_hold_every_arc_once_under_any_budget_and_codec() {
    let tmp = tempfile::tempdir().unwrap();
    // 300k arcs: more than the least budget's buffer holds, so the arcs are written in
    // several ranges of tiles.
    let raw = store_of(&tmp.path().join("raw"), 5000, 300_000, 7);
    let packed = tmp.path().join("packed");
    compress_store(
        &raw,
        &packed,
        &CompressOptions {
            codec: Codec::StreamVByte64,
            ..Default::default()
        },
    )
    .unwrap();
    for (dir, side, memory) in [
        (&raw, 6, 1_200_000),
        (&raw, 10, 64 * MIB),
        (&packed, 8, 2 * MIB),
    ] {
        tile(dir, side, memory);
        let (lists, tiles) = arcs_both_ways(dir);
        assert_eq!(lists, tiles, "side 2^{side}, budget {memory}");
        Store::open(dir).unwrap().verify().unwrap();
    }
    // Tiling again replaces the tiles.
    tile(&raw, 7, 64 * MIB);
    let store = Store::open(&raw).unwrap();
    assert_eq!(store.manifest().tiles.unwrap().side_log2, 7);
    assert_eq!(store.tiles().unwrap().side_log2(), 7);
}

fn flip_byte(path: &Path, at: u64) {
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut byte = [0u8];
    f.seek(SeekFrom::Start(at)).unwrap();
    std::io::Read::read_exact(&mut f, &mut byte).unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(&[byte[0] ^ 0x10]).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

fn open_error(dir: &Path) -> String {
    match Store::open(dir) {
        Ok(_) => panic!("{} opened", dir.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn damaged_or_foreign_tiles_are_refused_and_the_lists_still_open() {
    let tmp = tempfile::tempdir().unwrap();
    let store = store_of(&tmp.path().join("store"), 3000, 40_000, 1);
    tile(&store, 8, 64 * MIB);

    let flipped = tmp.path().join("flipped");
    copy_dir(&store, &flipped);
    flip_byte(&flipped.join(files::TILE_EDGES), 4100);
    let e = open_error(&flipped);
    assert!(e.contains(files::TILE_EDGES), "{e}");
    Store::open_without_tiles(&flipped).unwrap();

    let truncated = tmp.path().join("truncated");
    copy_dir(&store, &truncated);
    let rows = truncated.join(files::TILE_ROWS);
    let len = fs::metadata(&rows).unwrap().len();
    OpenOptions::new()
        .write(true)
        .open(&rows)
        .unwrap()
        .set_len(len - 4)
        .unwrap();
    let e = open_error(&truncated);
    assert!(e.contains(files::TILE_ROWS), "{e}");
    Store::open_without_tiles(&truncated).unwrap();

    // The tiles of another graph with as many vertices, page checksums and all.
    let other = store_of(&tmp.path().join("other"), 3000, 40_000, 2);
    tile(&other, 8, 64 * MIB);
    let foreign = tmp.path().join("foreign");
    copy_dir(&store, &foreign);
    for name in files::TILES {
        for file in [name.to_string(), format!("{name}.pagesums")] {
            fs::copy(other.join(&file), foreign.join(&file)).unwrap();
        }
    }
    let e = open_error(&foreign);
    assert!(e.contains("tile_"), "{e}");

    // Without page checksums, the structural checks still catch an arc out of order.
    let unsummed = tmp.path().join("unsummed");
    copy_dir(&store, &unsummed);
    vastgraph_testkit::without_page_sums(&unsummed);
    let edges = unsummed.join(files::TILE_EDGES);
    let mut bytes = fs::read(&edges).unwrap();
    bytes.swap(0, 4);
    bytes.swap(1, 5);
    bytes.swap(2, 6);
    bytes.swap(3, 7);
    fs::write(&edges, &bytes).unwrap();
    let e = Store::open(&unsummed).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("invalid tiles") || e.contains("checksum"), "{e}");
}

#[test]
fn a_grid_past_what_a_tile_index_addresses_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    // 2^23 vertices in blocks of 2^6: 2^17 columns, past the 2^16 the index addresses.
    let mut builder = StoreBuilder::create(&tmp.path().join("wide"), opts(64 * MIB)).unwrap();
    builder.push_batch(&[0], &[(1 << 23) - 1], None).unwrap();
    builder.finish().unwrap();
    let opts = TileOptions {
        side_log2: 6,
        memory_bytes: 64 * MIB,
        progress: Default::default(),
    };
    let e = build_tiles(&tmp.path().join("wide"), &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("tile index") && e.contains("--side-log2"), "{e}");
    let opts = TileOptions {
        side_log2: 17,
        ..opts
    };
    let e = build_tiles(&tmp.path().join("wide"), &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("2^17"), "{e}");
}

/// Tiling replaces the store's directory whole: anything else in it (a user's file, a store
/// written inside it) is named and kept, and nothing is tiled.
#[test]
fn a_store_holding_other_files_is_not_tiled_over_them() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("s");
    let mut builder = StoreBuilder::create(&store, opts(16 * MIB)).unwrap();
    builder.push_batch(&[0, 1], &[1, 2], None).unwrap();
    builder.finish().unwrap();
    std::fs::create_dir(store.join("nested")).unwrap();
    std::fs::write(store.join("nested").join("x"), "mine").unwrap();
    let opts = TileOptions {
        side_log2: 6,
        memory_bytes: 64 * MIB,
        progress: Default::default(),
    };
    let e = build_tiles(&store, &opts).unwrap_err().to_string();
    assert!(e.contains("nested") && e.contains("move it out"), "{e}");
    assert!(store.join("nested").join("x").is_file());
    assert!(Store::open(&store).unwrap().manifest().tiles.is_none());
    std::fs::remove_dir_all(store.join("nested")).unwrap();
    // Through a link, the store it points to is tiled, and the link still reaches it.
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&store, &link).unwrap();
    build_tiles(&link, &opts).unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(Store::open(&store).unwrap().manifest().tiles.is_some());
}
