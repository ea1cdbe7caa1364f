//! Damaged stores are refused by `Store::open` (or `verify_checksums`) with an error that
//! names the file and the problem; never a panic, never a wrong answer.

mod common;

use std::fs::{self, OpenOptions};
use std::path::{Path, PathBuf};

use common::*;
use vastgraph_store::{
    compress_store, BuildOptions, Codec, CompressOptions, Store, StoreBuilder, StoreError,
};

/// A small weighted store with a transpose and labels: every kind of file.
fn full_store(dir: &Path) -> PathBuf {
    store_of(&dir.join("pristine"), 30, 200, Codec::Raw)
}

/// A weighted store with a transpose and labels at `target`: `n` vertices, `edges` random
/// edges, written with `codec`.
fn store_of(target: &Path, n: u32, edges: usize, codec: Codec) -> PathBuf {
    let mut builder = StoreBuilder::create(
        target,
        BuildOptions {
            weighted: true,
            transpose: true,
            codec,
            ..opts(16 * MIB)
        },
    )
    .unwrap();
    let mut rng = vastgraph_store::synthetic::SplitMix64::new(3);
    let src: Vec<u32> = (0..edges).map(|_| rng.below(n.into())).collect();
    let dst: Vec<u32> = (0..edges).map(|_| rng.below(n.into())).collect();
    let weights: Vec<f64> = (0..edges).map(|i| i as f64 * 0.5).collect();
    builder.push_batch(&src, &dst, Some(&weights)).unwrap();
    builder.set_labels((0..n).map(|i| format!("v{i}")).collect());
    builder.finish().unwrap();
    target.to_path_buf()
}

/// A copy of `store` to damage.
fn copy_of(store: &Path, name: &str) -> PathBuf {
    let copy = store.with_file_name(name);
    fs::create_dir(&copy).unwrap();
    for entry in fs::read_dir(store).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    copy
}

/// A copy of `store` without page checksums, to damage: the structural checks, all that an
/// older store gets, must catch what they can on their own.
fn unsummed_copy_of(store: &Path, name: &str) -> PathBuf {
    let copy = copy_of(store, name);
    vastgraph_testkit::without_page_sums(&copy);
    copy
}

fn read_u64s(path: &Path) -> Vec<u64> {
    fs::read(path)
        .unwrap()
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn write_u64s(path: &Path, values: &[u64]) {
    fs::write(
        path,
        values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
}

fn read_u32s(path: &Path) -> Vec<u32> {
    fs::read(path)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn write_u32s(path: &Path, values: &[u32]) {
    fs::write(
        path,
        values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
}

fn edit_manifest(store: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = store.join("manifest.json");
    let mut value: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    edit(&mut value);
    fs::write(&path, serde_json::to_vec(&value).unwrap()).unwrap();
}

/// A copy of `store` named `copy` without its side file `file`, as a store written before that
/// file existed, opens and verifies.
fn opens_without_side_file(store: &Path, copy: &str, file: &str) {
    let older = copy_of(store, copy);
    fs::remove_file(older.join(file)).unwrap();
    edit_manifest(&older, |m| {
        m["files"]
            .as_array_mut()
            .unwrap()
            .retain(|f| f["name"] != file)
    });
    Store::open(&older).unwrap().verify_checksums().unwrap();
}

/// A change to an offsets array.
type Damage = Box<dyn Fn(&mut [u64])>;

fn open_err(store: &Path) -> StoreError {
    match Store::open(store) {
        Ok(_) => panic!("{} opened despite the damage", store.display()),
        Err(e) => e,
    }
}

#[test]
fn the_pristine_store_opens_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&full_store(dir.path())).unwrap();
    store.verify_checksums().unwrap();
    assert_eq!(store.manifest().files.len(), 9);
    assert!(store.labels().unwrap().is_some());
}

#[test]
fn truncating_any_file_is_reported_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = full_store(dir.path());
    let names: Vec<String> = Store::open(&pristine)
        .unwrap()
        .manifest()
        .files
        .iter()
        .map(|f| f.name.clone())
        .collect();
    for name in names {
        for cut in [1u64, 4] {
            let copy = copy_of(&pristine, &format!("cut-{cut}-{name}"));
            let file = OpenOptions::new()
                .write(true)
                .open(copy.join(&name))
                .unwrap();
            let len = file.metadata().unwrap().len();
            file.set_len(len.saturating_sub(cut)).unwrap();
            match open_err(&copy) {
                StoreError::FileLength {
                    path,
                    expected,
                    actual,
                } => {
                    assert!(path.ends_with(&name), "{}", path.display());
                    assert_eq!((expected, actual), (len, len.saturating_sub(cut)));
                }
                other => panic!("{name} cut by {cut}: unexpected error {other}"),
            }
        }
    }
}

#[test]
fn a_missing_file_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let copy = copy_of(&full_store(dir.path()), "missing");
    fs::remove_file(copy.join("in_neighbors.u32")).unwrap();
    assert!(
        matches!(open_err(&copy), StoreError::MissingFile { path } if path.ends_with("in_neighbors.u32"))
    );
    fs::remove_file(copy.join("manifest.json")).unwrap();
    let not_a_store = |path: &Path, why: &str| {
        let e = open_err(path);
        assert!(matches!(e, StoreError::NotAStore { .. }), "{e}");
        assert!(e.to_string().contains(why), "{e}");
        assert!(
            e.to_string().starts_with(&path.display().to_string()),
            "{e}"
        );
    };
    not_a_store(&copy, "no manifest.json in the directory");
    not_a_store(&copy.join("nothing-here"), "no such directory");
    not_a_store(&copy.join("offsets.u64"), "a file, not a directory");
}

#[test]
fn a_corrupted_manifest_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = full_store(dir.path());
    let expect_manifest_error = |store: &Path, needle: &str| match open_err(store) {
        StoreError::Manifest { path, reason } => {
            assert!(path.ends_with("manifest.json"));
            assert!(
                reason.contains(needle),
                "{reason:?} should mention {needle:?}"
            );
        }
        other => panic!("unexpected error {other}"),
    };

    let cut = copy_of(&pristine, "cut-json");
    let text = fs::read(cut.join("manifest.json")).unwrap();
    fs::write(cut.join("manifest.json"), &text[..text.len() / 2]).unwrap();
    expect_manifest_error(&cut, "JSON");

    let foreign = copy_of(&pristine, "foreign");
    edit_manifest(&foreign, |m| m["format"] = "something-else".into());
    expect_manifest_error(&foreign, "format");

    let future = copy_of(&pristine, "future");
    edit_manifest(&future, |m| m["version"] = 99.into());
    expect_manifest_error(&future, "version");

    // n no longer matches the offsets file's recorded length.
    let wrong_n = copy_of(&pristine, "wrong-n");
    edit_manifest(&wrong_n, |m| m["vertices"] = 31.into());
    expect_manifest_error(&wrong_n, "offsets.u64");

    // An arc count whose arrays no 64-bit byte count holds.
    let huge_m = copy_of(&pristine, "huge-m");
    edit_manifest(&huge_m, |m| m["arcs"] = (1u64 << 63).into());
    expect_manifest_error(&huge_m, "require more bytes than a 64-bit count");

    let missing_field = copy_of(&pristine, "missing-field");
    edit_manifest(&missing_field, |m| {
        m.as_object_mut().unwrap().remove("arcs");
    });
    expect_manifest_error(&missing_field, "arcs");

    let escape = copy_of(&pristine, "escape");
    edit_manifest(&escape, |m| {
        m["files"][0]["name"] = "../pristine/offsets.u64".into()
    });
    expect_manifest_error(&escape, "unexpected file");
}

#[test]
fn out_of_range_and_unsorted_neighbours_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = full_store(dir.path());
    for name in ["neighbors.u32", "in_neighbors.u32"] {
        let offsets_name = name.replace("neighbors.u32", "offsets.u64");
        let offsets = read_u64s(&pristine.join(&offsets_name));
        // The last vertex with a non-empty list.
        let v = (0..offsets.len() - 1)
            .rev()
            .find(|&v| offsets[v + 1] > offsets[v])
            .unwrap();

        let out_of_range = unsummed_copy_of(&pristine, &format!("range-{name}"));
        let mut ids = read_u32s(&out_of_range.join(name));
        ids[offsets[v + 1] as usize - 1] = 30; // n = 30
        write_u32s(&out_of_range.join(name), &ids);
        match open_err(&out_of_range) {
            StoreError::BadNeighbors {
                path,
                vertex,
                reason,
            } => {
                assert!(path.ends_with(name));
                assert_eq!(vertex, v as u64);
                assert!(reason.contains("30"), "{reason}");
            }
            other => panic!("unexpected error {other}"),
        }

        // Swap two ids of a list with at least two.
        let w = (0..offsets.len() - 1)
            .find(|&w| offsets[w + 1] >= offsets[w] + 2)
            .unwrap();
        let unsorted = unsummed_copy_of(&pristine, &format!("unsorted-{name}"));
        let mut ids = read_u32s(&unsorted.join(name));
        ids.swap(offsets[w] as usize, offsets[w] as usize + 1);
        write_u32s(&unsorted.join(name), &ids);
        assert!(
            matches!(open_err(&unsorted), StoreError::BadNeighbors { vertex, .. } if vertex == w as u64)
        );

        // A duplicate in a list.
        let duplicate = unsummed_copy_of(&pristine, &format!("duplicate-{name}"));
        let mut ids = read_u32s(&duplicate.join(name));
        ids[offsets[w] as usize + 1] = ids[offsets[w] as usize];
        write_u32s(&duplicate.join(name), &ids);
        assert!(
            matches!(open_err(&duplicate), StoreError::BadNeighbors { vertex, .. } if vertex == w as u64)
        );
    }
}

#[test]
fn bad_offsets_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = full_store(dir.path());
    for name in ["offsets.u64", "in_offsets.u64"] {
        let offsets = read_u64s(&pristine.join(name));
        let v = (1..offsets.len() - 1)
            .find(|&v| offsets[v + 1] > offsets[v])
            .unwrap();
        let cases: [(&str, Damage); 3] = [
            (
                "not monotone",
                Box::new(move |o: &mut [u64]| o[v] = o[v + 1] + 1),
            ),
            ("first offset", Box::new(|o: &mut [u64]| o[0] = 1)),
            (
                "last offset",
                Box::new(|o: &mut [u64]| *o.last_mut().unwrap() -= 1),
            ),
        ];
        for (case, damage) in cases {
            let copy = unsummed_copy_of(&pristine, &format!("{case}-{name}"));
            let mut values = offsets.clone();
            damage(&mut values);
            write_u64s(&copy.join(name), &values);
            match open_err(&copy) {
                StoreError::BadOffsets { path, reason } => {
                    assert!(path.ends_with(name), "{case}");
                    let word = case.split(' ').next_back().unwrap();
                    assert!(reason.contains(word), "{case}: {reason}");
                }
                other => panic!("{case} in {name}: unexpected error {other}"),
            }
        }
    }
}

/// A flipped byte that leaves every list valid: the page checksums name the file and the page
/// when the store is opened; a store without them (written before they existed) opens, and
/// only `verify_checksums` (`info --verify`) catches it.
#[test]
fn a_flipped_byte_is_caught_by_its_page_or_else_by_verify_checksums() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = full_store(dir.path());
    // Weights and labels: any value is valid there; a neighbour id with its lowest bit flipped
    // usually stays in order and in range.
    for name in [
        "weights.f32",
        "in_weights.f32",
        "labels.txt",
        "neighbors.u32",
    ] {
        let flip = |copy: &Path| -> usize {
            let path = copy.join(name);
            let mut bytes = fs::read(&path).unwrap();
            let at = if name == "labels.txt" {
                1
            } else {
                bytes.len() - 4
            };
            bytes[at] ^= 1;
            fs::write(&path, &bytes).unwrap();
            at
        };
        let summed = copy_of(&pristine, &format!("flip-{name}"));
        let at = flip(&summed) as u64;
        match Store::open(&summed) {
            Err(StoreError::DamagedPage { path, start, end }) => {
                assert!(path.ends_with(name), "{}", path.display());
                assert!(
                    start <= at && at < end && start % 4096 == 0,
                    "{start}..{end}"
                );
            }
            // Labels have no page checksums: they are text, read whole, and checked whole
            // as they are read.
            Ok(store) if name == "labels.txt" => {
                for result in [store.labels().map(|_| ()), store.verify_checksums()] {
                    assert!(matches!(
                        result,
                        Err(StoreError::ChecksumMismatch { path, .. }) if path.ends_with(name)
                    ));
                }
            }
            other => panic!(
                "{name}: expected a damaged page, got {:?}",
                other.map(|_| ())
            ),
        }

        let older = unsummed_copy_of(&pristine, &format!("older-flip-{name}"));
        flip(&older);
        let store = match Store::open(&older) {
            Ok(store) => store,
            // An id flipped into disorder is caught even earlier; that is fine too.
            Err(StoreError::BadNeighbors { .. }) if name == "neighbors.u32" => continue,
            Err(e) => panic!("{name}: {e}"),
        };
        match store.verify_checksums() {
            Err(StoreError::ChecksumMismatch {
                path,
                expected,
                actual,
            }) => {
                assert!(path.ends_with(name), "{}", path.display());
                assert_ne!(expected, actual);
            }
            other => panic!("{name}: expected a checksum mismatch, got {other:?}"),
        }
    }

    // The side file is checked whole before its checksums are trusted.
    let copy = copy_of(&pristine, "flip-side-file");
    let side = copy.join("neighbors.u32.pagesums");
    let mut bytes = fs::read(&side).unwrap();
    bytes[0] ^= 1;
    fs::write(&side, &bytes).unwrap();
    match open_err(&copy) {
        StoreError::ChecksumMismatch { path, .. } => assert_eq!(path, side),
        other => panic!("expected the side file's checksum mismatch, got {other}"),
    }
}

#[test]
fn labels_with_the_wrong_line_count_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let copy = copy_of(&full_store(dir.path()), "labels");
    let path = copy.join("labels.txt");
    let text = fs::read_to_string(&path).unwrap().replacen('1', "\n", 1);
    fs::write(&path, text).unwrap();
    let store = Store::open(&copy).unwrap();
    assert!(matches!(store.labels(), Err(StoreError::BadLabels { .. })));
}

#[test]
fn first_neighbours_must_agree_with_the_lists_and_may_be_absent() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = full_store(dir.path());
    let compressed = dir.path().join("compressed");
    compress_store(&pristine, &compressed, &CompressOptions::default()).unwrap();
    let offsets = read_u64s(&pristine.join("offsets.u64"));
    let ids = read_u32s(&pristine.join("neighbors.u32"));
    // Written by the builder and copied by compress: each list's first id, u32::MAX if empty.
    let expected: Vec<u32> = (0..offsets.len() - 1)
        .map(|v| match offsets[v] < offsets[v + 1] {
            true => ids[offsets[v] as usize],
            false => u32::MAX,
        })
        .collect();
    for store in [&pristine, &compressed] {
        assert_eq!(read_u32s(&store.join("first_neighbors.u32")), expected);

        // A vertex whose recorded first neighbour is another of its neighbours.
        let v = (0..offsets.len() - 1)
            .find(|&v| offsets[v + 1] >= offsets[v] + 2)
            .unwrap();
        let name = store.file_name().unwrap().to_str().unwrap();
        let wrong = unsummed_copy_of(store, &format!("wrong-first-{name}"));
        let mut firsts = expected.clone();
        firsts[v] = ids[offsets[v] as usize + 1];
        write_u32s(&wrong.join("first_neighbors.u32"), &firsts);
        match open_err(&wrong) {
            StoreError::BadNeighbors { path, vertex, .. } => {
                assert!(path.ends_with("first_neighbors.u32"));
                assert_eq!(vertex, v as u64);
            }
            other => panic!("unexpected error {other}"),
        }

        opens_without_side_file(store, &format!("older-{name}"), "first_neighbors.u32");
    }
}

#[test]
fn list_heads_must_agree_with_the_lists_and_may_be_absent() {
    let dir = tempfile::tempdir().unwrap();
    // Lists of about 100 arcs, whose codes are long enough for a compressed copy to keep the
    // heads.
    let pristine = store_of(&dir.path().join("pristine"), 2000, 200_000, Codec::Raw);
    let compressed = dir.path().join("compressed");
    compress_store(&pristine, &compressed, &CompressOptions::default()).unwrap();
    let offsets = read_u64s(&pristine.join("offsets.u64"));
    let ids = read_u32s(&pristine.join("neighbors.u32"));
    let head = |v: usize| {
        let (a, b) = (offsets[v] as usize, offsets[v + 1] as usize);
        &ids[a..b.min(a + 8)]
    };
    // Written by the builder and copied by compress: each list's first 8 ids (a shorter list
    // whole), one vertex after the other.
    let n = offsets.len() - 1;
    let expected: Vec<u32> = (0..n).flat_map(|v| head(v).to_vec()).collect();
    assert!(
        expected.len() < ids.len(),
        "some list is longer than its head"
    );
    // A vertex with 3 arcs or more, and where its head starts.
    let v = (0..n).find(|&v| offsets[v + 1] >= offsets[v] + 3).unwrap();
    let at: usize = (0..v).map(|u| head(u).len()).sum();
    let heads_bytes = |m: &mut serde_json::Value, bytes: usize| {
        for f in m["files"].as_array_mut().unwrap() {
            if f["name"] == "list_heads.u32" {
                f["bytes"] = bytes.into();
            }
        }
    };
    for store in [&pristine, &compressed] {
        assert_eq!(read_u32s(&store.join("list_heads.u32")), expected);
        let name = store.file_name().unwrap().to_str().unwrap();

        // A head whose second id is the list's third.
        let wrong = unsummed_copy_of(store, &format!("wrong-head-{name}"));
        let mut heads = expected.clone();
        heads[at + 1] = ids[offsets[v] as usize + 2];
        write_u32s(&wrong.join("list_heads.u32"), &heads);
        match open_err(&wrong) {
            StoreError::BadNeighbors { path, vertex, .. } => {
                assert!(path.ends_with("list_heads.u32"));
                assert_eq!(vertex, v as u64);
            }
            other => panic!("unexpected error {other}"),
        }

        // One id short (and the manifest agreeing): the length the lists need is named.
        let short = unsummed_copy_of(store, &format!("short-heads-{name}"));
        write_u32s(&short.join("list_heads.u32"), &expected[1..]);
        edit_manifest(&short, |m| heads_bytes(m, 4 * (expected.len() - 1)));
        match open_err(&short) {
            StoreError::FileLength {
                path,
                expected: needed,
                actual,
            } => {
                assert!(path.ends_with("list_heads.u32"));
                assert_eq!(needed, 4 * expected.len() as u64);
                assert_eq!(actual, 4 * (expected.len() - 1) as u64);
            }
            other => panic!("unexpected error {other}"),
        }

        opens_without_side_file(store, &format!("older-heads-{name}"), "list_heads.u32");
    }
}

/// A compressed store, written by `compress` or by a compressing build, keeps the list heads
/// only when they take at most half the bytes of its codes: not those of lists of about 7 arcs
/// (the heads hold every id then), but those of lists of about 100. It opens and verifies either
/// way.
#[test]
fn a_compressed_store_keeps_the_list_heads_only_where_its_lists_are_long() {
    let dir = tempfile::tempdir().unwrap();
    let has_heads = |store: &Path| {
        let manifest: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(store.join("manifest.json")).unwrap())
                .unwrap();
        let listed = manifest["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "list_heads.u32");
        assert_eq!(listed, store.join("list_heads.u32").exists());
        assert_eq!(listed, store.join("list_heads.u32.pagesums").exists());
        // Nothing left behind that the manifest does not list (a compressing build once kept
        // the raw ids' page checksums).
        let mut named: Vec<String> = vec!["manifest.json".into()];
        for f in manifest["files"].as_array().unwrap() {
            named.push(f["name"].as_str().unwrap().into());
            if let Some(sums) = f["page_sums"]["name"].as_str() {
                named.push(sums.into());
            }
        }
        let mut present: Vec<String> = fs::read_dir(store)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        named.sort();
        present.sort();
        assert_eq!(present, named, "{}", store.display());
        Store::open(store).unwrap().verify_checksums().unwrap();
        listed
    };
    let bytes = |store: &Path, file: &str| fs::metadata(store.join(file)).unwrap().len();
    for (name, n, edges, long) in [("short", 30, 200, false), ("long", 2000, 200_000, true)] {
        let raw = store_of(&dir.path().join(name), n, edges, Codec::Raw);
        assert!(has_heads(&raw), "{name}: every raw store has heads");
        let copy = dir.path().join(format!("{name}-compressed"));
        compress_store(&raw, &copy, &CompressOptions::default()).unwrap();
        let built = store_of(
            &dir.path().join(format!("{name}-built")),
            n,
            edges,
            Codec::COMPRESSED_DEFAULT,
        );
        // Half the codes' bytes against the raw store's heads, which every copy would hold.
        let heads = bytes(&raw, "list_heads.u32");
        assert_eq!(
            heads <= bytes(&copy, "neighbors.bc64") / 2,
            long,
            "{name}: the premise"
        );
        assert_eq!(has_heads(&copy), long, "{name}, compress");
        assert_eq!(has_heads(&built), long, "{name}, a compressing build");
    }
}

/// A store of `edges` on 40 vertices, symmetric or directed with a transpose, weighted.
fn structured_store(target: &Path, symmetric: bool, codec: Codec) -> PathBuf {
    let mut builder = StoreBuilder::create(
        target,
        BuildOptions {
            symmetrize: symmetric,
            transpose: !symmetric,
            weighted: true,
            codec,
            ..opts(16 * MIB)
        },
    )
    .unwrap();
    let mut rng = vastgraph_store::synthetic::SplitMix64::new(9);
    let src: Vec<u32> = (0..300).map(|_| rng.below(40)).collect();
    let dst: Vec<u32> = (0..300).map(|_| rng.below(40)).collect();
    let weights: Vec<f64> = (0..300).map(|i| (i % 7 + 1) as f64).collect();
    builder.push_batch(&src, &dst, Some(&weights)).unwrap();
    builder.finish().unwrap();
    target.to_path_buf()
}

fn structure_err(store: &Path) -> String {
    let store = Store::open(store).expect("each list on its own is valid");
    match store.verify_structure() {
        Ok(()) => panic!("{} verified despite the damage", store.dir().display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn pristine_stores_verify_their_structure() {
    let dir = tempfile::tempdir().unwrap();
    for codec in [Codec::Raw, Codec::FrameOfReference64] {
        for symmetric in [true, false] {
            let store = structured_store(
                &dir.path().join(format!("{codec:?}-{symmetric}")),
                symmetric,
                codec,
            );
            Store::open(&store).unwrap().verify().unwrap();
        }
    }
}

#[test]
fn a_store_that_claims_symmetry_without_it_fails_verify() {
    let dir = tempfile::tempdir().unwrap();
    // A directed store without a transpose whose manifest then claims symmetry: every list is
    // valid, but 0 -> 1 has no 1 -> 0.
    let target = dir.path().join("claims");
    let mut builder = StoreBuilder::create(&target, opts(16 * MIB)).unwrap();
    builder
        .push_batch(&[0, 1, 2, 2], &[1, 2, 1, 0], None)
        .unwrap();
    builder.finish().unwrap();
    edit_manifest(&target, |m| m["directed"] = false.into());
    let err = structure_err(&target);
    assert!(
        err.contains("arc 0 -> 1 has no reverse 1 -> 0") && err.contains("symmetric"),
        "{err}"
    );

    // A symmetric weighted store with one weight changed: the arc comes back, its weight not.
    let symmetric = structured_store(&dir.path().join("sym"), true, Codec::Raw);
    let damaged = unsummed_copy_of(&symmetric, "sym-weight");
    let path = damaged.join("weights.i32");
    let mut weights = read_u32s(&path);
    weights[5] += 100;
    write_u32s(&path, &weights);
    let err = structure_err(&damaged);
    assert!(err.contains("with the same weight"), "{err}");
}

#[test]
fn a_transpose_that_disagrees_with_the_lists_fails_verify() {
    let dir = tempfile::tempdir().unwrap();
    let store = structured_store(&dir.path().join("directed"), false, Codec::Raw);
    let in_offsets = read_u64s(&store.join("in_offsets.u64"));
    let in_ids = read_u32s(&store.join("in_neighbors.u32"));
    // A vertex v whose in-list starts with an id u > 0 and lacks u - 1: list u - 1 instead.
    let v = (0..in_offsets.len() - 1)
        .find(|&v| {
            let list = &in_ids[in_offsets[v] as usize..in_offsets[v + 1] as usize];
            list.first().is_some_and(|&u| u > 0)
        })
        .unwrap();
    let at = in_offsets[v] as usize;
    let (u, w) = (in_ids[at], in_ids[at] - 1);
    let damaged = unsummed_copy_of(&store, "transpose-ids");
    let mut ids = in_ids.clone();
    ids[at] = w;
    write_u32s(&damaged.join("in_neighbors.u32"), &ids);
    let err = structure_err(&damaged);
    assert!(
        err.contains("in_neighbors.u32")
            && err.contains(&format!("does not list {u} as an in-neighbour of {v}")),
        "{err}"
    );
    let damaged = unsummed_copy_of(&store, "transpose-weights");
    let path = damaged.join("in_weights.i32");
    let mut weights = read_u32s(&path);
    weights[at] += 1;
    write_u32s(&path, &weights);
    assert!(structure_err(&damaged).contains("with the same weight"));
}
