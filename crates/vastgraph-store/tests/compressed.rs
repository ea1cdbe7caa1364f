//! Compressed stores (both codecs): `compress_store` and `BuildOptions::codec` give
//! the same lists, weights and labels as the raw store; damaged codes are refused when opened,
//! with an error naming the file and vertex, never a panic.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;
use vastgraph_store::manifest::files;
use vastgraph_store::synthetic::SplitMix64;
use vastgraph_store::{
    compress_store, BuildOptions, ByteCodeLists, Codec, CompressOptions, OffsetsCode, Store,
    StoreError,
};

/// Random edges with hubs (so some lists span many 64-neighbour blocks) and integer weights.
fn edges(n: u32, m: usize, seed: u64) -> Vec<Edge> {
    let mut rng = SplitMix64::new(seed);
    (0..m)
        .map(|i| {
            let src = if i % 3 == 0 {
                rng.below(4)
            } else {
                rng.below(n as u64)
            };
            Edge {
                src,
                dst: rng.below(n as u64),
                weight: (1 + rng.below(100)) as f64,
            }
        })
        .collect()
}

fn decoded(lists: &ByteCodeLists<'_>) -> Vec<Vec<u32>> {
    (0..lists.num_vertices() as u32)
        .map(|v| {
            let mut out = Vec::new();
            lists.decode_into(v, &mut out);
            out
        })
        .collect()
}

fn raw_lists(offsets: &[u64], neighbors: &[u32]) -> Vec<Vec<u32>> {
    offsets
        .windows(2)
        .map(|w| neighbors[w[0] as usize..w[1] as usize].to_vec())
        .collect()
}

const COMPRESSED: [Codec; 4] = Codec::COMPRESSED;

fn small_budget(codec: Codec) -> CompressOptions {
    // The smallest budget, so that encoding runs in many rounds and streams the hubs' lists.
    CompressOptions {
        codec,
        memory_bytes: vastgraph_store::MIN_MEMORY_BYTES,
        ..CompressOptions::default()
    }
}

fn assert_same_graph(raw: &Store, compressed: &Store) {
    assert!(COMPRESSED.contains(&compressed.codec()));
    assert_eq!(
        compressed.byte_code().unwrap().codec(),
        compressed.codec().list_codec().unwrap()
    );
    assert!(compressed.neighbors().is_empty());
    assert_eq!(raw.offsets(), compressed.offsets());
    let out = compressed.byte_code().expect("out-edge codes");
    assert_eq!(decoded(&out), raw_lists(raw.offsets(), raw.neighbors()));
    assert_eq!(raw.in_offsets(), compressed.in_offsets());
    match (raw.in_offsets(), compressed.in_byte_code()) {
        (Some(offsets), Some(codes)) => {
            assert_eq!(
                decoded(&codes),
                raw_lists(offsets, raw.in_neighbors().unwrap())
            )
        }
        (None, None) => {}
        _ => panic!("the transpose is not carried over"),
    }
    let weights = |s: &Store| {
        s.weights()
            .map(|w| (0..w.len()).map(|i| w.get(i)).collect::<Vec<_>>())
    };
    assert_eq!(weights(raw), weights(compressed));
    assert_eq!(raw.labels().unwrap(), compressed.labels().unwrap());
    let (rm, cm) = (raw.manifest(), compressed.manifest());
    assert_eq!(
        (
            rm.vertices,
            rm.arcs,
            rm.directed,
            rm.weight_type,
            rm.has_transpose
        ),
        (
            cm.vertices,
            cm.arcs,
            cm.directed,
            cm.weight_type,
            cm.has_transpose
        )
    );
    compressed.verify_checksums().unwrap();
}

fn raw_store(dir: &Path, name: &str, opts: BuildOptions, edges: &[Edge]) -> PathBuf {
    let target = dir.join(name);
    build(&target, edges, opts, 0, 1000).unwrap();
    target
}

#[test]
fn compressing_keeps_every_list_weight_and_label() {
    let tmp = tempfile::tempdir().unwrap();
    let graph = edges(3000, 20_000, 1);
    for ((name, options), codec) in [
        (
            "directed",
            BuildOptions {
                weighted: true,
                transpose: true,
                ..opts(16 * MIB)
            },
        ),
        (
            "symmetric",
            BuildOptions {
                symmetrize: true,
                ..opts(16 * MIB)
            },
        ),
        (
            "loops",
            BuildOptions {
                keep_self_loops: true,
                ..opts(16 * MIB)
            },
        ),
    ]
    .into_iter()
    .flat_map(|case| COMPRESSED.map(|codec| (case.clone(), codec)))
    {
        let raw = tmp.path().join(format!("{name}-{}", codec.name()));
        build(&raw, &graph, options, 0, 1000).unwrap();
        let target = tmp
            .path()
            .join(format!("{name}-{}-compressed", codec.name()));
        let manifest = compress_store(&raw, &target, &small_budget(codec)).unwrap();
        assert_eq!(manifest.codec, codec);
        assert!(manifest.file(files::NEIGHBORS).is_none());
        let (raw, compressed) = (Store::open(&raw).unwrap(), Store::open(&target).unwrap());
        assert_same_graph(&raw, &compressed);
        // Ordered lists of a few thousand ids: far below the 4 bytes of a raw id.
        let codes = manifest.file(files::NEIGHBOR_CODES).unwrap().bytes;
        assert!(
            codes < 3 * manifest.arcs,
            "{codes} bytes for {} arcs",
            manifest.arcs
        );
    }
}

/// Records the phases and the largest advance of each.
#[derive(Default)]
struct Phases(std::sync::Mutex<Vec<(String, Option<u64>, u64)>>);

impl vastgraph_store::progress::Observer for Phases {
    fn phase(&self, name: &str, total: Option<u64>) {
        self.0.lock().unwrap().push((name.to_string(), total, 0));
    }
    fn advance(&self, done: u64) {
        let mut phases = self.0.lock().unwrap();
        let last = phases.last_mut().expect("an advance inside a phase");
        assert!(
            done >= last.2,
            "{}: progress went back from {} to {done}",
            last.0,
            last.2
        );
        last.2 = done;
    }
}

#[test]
fn compressing_reports_each_direction_up_to_its_arcs_then_the_check() {
    let tmp = tempfile::tempdir().unwrap();
    let raw = tmp.path().join("raw");
    let options = BuildOptions {
        transpose: true,
        ..opts(16 * MIB)
    };
    build(&raw, &edges(3000, 20_000, 2), options, 0, 1000).unwrap();
    let phases = std::sync::Arc::new(Phases::default());
    let manifest = compress_store(
        &raw,
        &tmp.path().join("c"),
        &CompressOptions {
            progress: vastgraph_store::progress::Progress::new(phases.clone()),
            ..small_budget(Codec::COMPRESSED_DEFAULT)
        },
    )
    .unwrap();
    let seen = phases.0.lock().unwrap().clone();
    let arcs = Some(manifest.arcs);
    let lists = |name: &str| seen.iter().find(|p| p.0 == name).cloned();
    assert_eq!(
        lists("compressing the lists").map(|p| (p.1, p.2)),
        Some((arcs, manifest.arcs)),
        "{seen:?}"
    );
    assert_eq!(
        lists("compressing the transpose's lists").map(|p| (p.1, p.2)),
        Some((arcs, manifest.arcs)),
        "{seen:?}"
    );
    assert!(
        seen.iter().any(|p| p.0 == "copying offsets.u64"),
        "{seen:?}"
    );
    assert_eq!(seen.last().unwrap().0, "checking the compressed lists");
}

#[test]
fn a_build_with_compress_writes_the_compressed_store_directly() {
    let tmp = tempfile::tempdir().unwrap();
    let graph = edges(500, 5_000, 2);
    let base = BuildOptions {
        weighted: true,
        transpose: true,
        ..opts(16 * MIB)
    };
    let raw = raw_store(tmp.path(), "raw", base.clone(), &graph);
    let direct = raw_store(
        tmp.path(),
        "direct",
        BuildOptions {
            codec: Codec::COMPRESSED_DEFAULT,
            ..base
        },
        &graph,
    );
    let (raw, direct) = (Store::open(&raw).unwrap(), Store::open(&direct).unwrap());
    assert_same_graph(&raw, &direct);
    assert_eq!(direct.codec(), Codec::COMPRESSED_DEFAULT);
    assert!(!direct.dir().join(files::NEIGHBORS).exists());
    assert!(!direct.dir().join(files::IN_NEIGHBORS).exists());
    let names: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no staging leftovers: {names:?}");
}

#[test]
fn compressing_twice_or_onto_itself_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let raw = raw_store(tmp.path(), "raw", opts(16 * MIB), &edges(50, 200, 3));
    let bc = tmp.path().join("bc");
    compress_store(&raw, &bc, &small_budget(Codec::COMPRESSED_DEFAULT)).unwrap();
    let again = compress_store(
        &bc,
        &tmp.path().join("bc2"),
        &small_budget(Codec::ByteCode64),
    )
    .unwrap_err();
    assert!(again.to_string().contains("already compressed"), "{again}");
    let onto = compress_store(
        &raw,
        &raw,
        &CompressOptions {
            overwrite: true,
            ..small_budget(Codec::ByteCode64)
        },
    )
    .unwrap_err();
    assert!(onto.to_string().contains("onto itself"), "{onto}");
    assert!(matches!(
        compress_store(&raw, &bc, &small_budget(Codec::ByteCode64)),
        Err(StoreError::TargetExists { .. })
    ));
    let raw_codec = compress_store(&raw, &tmp.path().join("c"), &small_budget(Codec::Raw));
    assert!(
        raw_codec
            .as_ref()
            .is_err_and(|e| e.to_string().contains("not a compressed codec")),
        "{raw_codec:?}"
    );
    Store::open(&raw).unwrap();
}

/// A compressed store to damage, copied so that each test damages its own, and without page
/// checksums, so that the damage meets the decoder's own checks (all an older store gets).
fn compressed_copy(dir: &Path, codec: Codec) -> PathBuf {
    let raw = raw_store(dir, "raw", opts(16 * MIB), &edges(400, 6_000, 4));
    let bc = dir.join(codec.name());
    compress_store(&raw, &bc, &small_budget(codec)).unwrap();
    vastgraph_testkit::without_page_sums(&bc);
    bc
}

#[test]
fn a_truncated_code_is_an_error_naming_the_file_and_vertex() {
    let tmp = tempfile::tempdir().unwrap();
    let bc = compressed_copy(tmp.path(), Codec::ByteCode64);
    let path = bc.join(files::NEIGHBOR_CODES);
    let mut bytes = fs::read(&path).unwrap();
    // A continuation bit on the very last byte: the last list's last code runs off its end.
    *bytes.last_mut().unwrap() |= 0x80;
    fs::write(&path, &bytes).unwrap();
    match Store::open(&bc) {
        Err(StoreError::BadNeighbors {
            path: p, reason, ..
        }) => {
            assert_eq!(p, path);
            assert!(reason.contains("truncated"), "{reason}");
        }
        other => panic!("expected BadNeighbors, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn a_compressed_store_keeps_its_offsets_in_elias_fano_form_and_reads_them_back() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        transpose: true,
        ..Default::default()
    };
    let raw = raw_store(tmp.path(), "raw", opts, &edges(3000, 40_000, 5));
    let bc = tmp.path().join("bc");
    compress_store(&raw, &bc, &small_budget(Codec::COMPRESSED_DEFAULT)).unwrap();
    let manifest = vastgraph_store::open_manifest(&bc).unwrap();
    assert_eq!(manifest.offsets_code, OffsetsCode::EliasFano);
    let bytes = |name: &str| manifest.file(name).map(|f| f.bytes);
    for name in [
        files::OFFSETS,
        files::IN_OFFSETS,
        files::BYTE_OFFSETS,
        files::IN_BYTE_OFFSETS,
    ] {
        assert_eq!(bytes(name), None, "{name}");
    }
    // 3001 offsets of about 13 arcs: 2 + 3 bits each instead of 64.
    for name in [files::OFFSETS_EF, files::IN_OFFSETS_EF] {
        let ef = bytes(name).unwrap();
        assert!(ef < 3001 * 8 / 10, "{name}: {ef} bytes");
    }
    assert!(bytes(files::BYTE_OFFSETS_EF).unwrap() < 3001 * 8 / 6);
    let (raw, bc) = (Store::open(&raw).unwrap(), Store::open(&bc).unwrap());
    assert_eq!(raw.offsets(), bc.offsets());
    assert_eq!(raw.in_offsets(), bc.in_offsets());
    assert_same_graph(&raw, &bc);
}

#[test]
fn damaged_elias_fano_byte_offsets_are_an_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let bc = compressed_copy(tmp.path(), Codec::COMPRESSED_DEFAULT);
    let path = bc.join(files::BYTE_OFFSETS_EF);
    let pristine = fs::read(&path).unwrap();
    type Damage = (&'static str, fn(&mut Vec<u8>));
    let damages: [Damage; 3] = [
        // The header's count.
        ("header", |b| b[0] ^= 1),
        // A bit of the high array's last word past its end.
        ("past the end", |b| *b.last_mut().unwrap() |= 0x80),
        // One more one in the high array's last word, at its lowest zero: a value out of
        // order, one too many, or a bit past the end, whichever it makes.
        ("", |b| {
            let at = b.len() - 8;
            let word = u64::from_le_bytes(b[at..].try_into().unwrap());
            let zero = (!word).trailing_zeros().min(62);
            b[at..].copy_from_slice(&(word | 1 << zero).to_le_bytes());
        }),
    ];
    for (why, damage) in damages {
        let mut bytes = pristine.clone();
        damage(&mut bytes);
        fs::write(&path, &bytes).unwrap();
        match Store::open(&bc) {
            Err(StoreError::BadOffsets { path: p, reason }) => {
                assert_eq!(p, path);
                assert!(reason.contains(why), "{why}: {reason}");
            }
            other => panic!("{why}: expected BadOffsets, got {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn random_damage_to_the_codes_never_panics_and_valid_results_stay_well_formed() {
    for codec in COMPRESSED {
        random_damage(codec);
    }
}

fn random_damage(codec: Codec) {
    let tmp = tempfile::tempdir().unwrap();
    let bc = compressed_copy(tmp.path(), codec);
    let path = bc.join(files::NEIGHBOR_CODES);
    let pristine = fs::read(&path).unwrap();
    let mut rng = SplitMix64::new(9);
    let mut refused = 0;
    for _ in 0..200 {
        let mut bytes = pristine.clone();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(bytes.len() as u64) as usize;
            bytes[at] ^= 1 << rng.below(8);
        }
        fs::write(&path, &bytes).unwrap();
        match Store::open(&bc) {
            Err(StoreError::BadNeighbors { .. }) => refused += 1,
            Err(other) => panic!("unexpected error kind: {other}"),
            Ok(store) => {
                // A flip that still decodes validly is a different graph, but a well-formed one.
                let lists = store.byte_code().unwrap();
                for list in decoded(&lists) {
                    assert!(list.windows(2).all(|p| p[0] < p[1]));
                    assert!(list.iter().all(|&w| (w as usize) < lists.num_vertices()));
                }
                assert!(store.verify_checksums().is_err(), "the checksum catches it");
            }
        }
    }
    assert!(
        refused > 100,
        "{codec:?}: most random damage is caught when opening ({refused}/200)"
    );
}

#[test]
fn a_hub_longer_than_an_encoding_round_streams_out_block_by_block() {
    let tmp = tempfile::tempdir().unwrap();
    // With the smallest budget a round holds 2^18 arcs per thread: this hub has more.
    let hub = 300_000u32;
    let star: Vec<Edge> = (1..=hub)
        .map(|v| Edge {
            src: 0,
            dst: v,
            weight: 1.0,
        })
        .chain([Edge {
            src: 5,
            dst: 0,
            weight: 1.0,
        }])
        .collect();
    let raw = raw_store(
        tmp.path(),
        "star",
        BuildOptions {
            transpose: true,
            ..opts(16 * MIB)
        },
        &star,
    );
    let raw = Store::open(&raw).unwrap();
    for codec in COMPRESSED {
        let bc = tmp.path().join(codec.name());
        compress_store(raw.dir(), &bc, &small_budget(codec)).unwrap();
        let bc = Store::open(&bc).unwrap();
        assert_same_graph(&raw, &bc);
        let lists = bc.byte_code().unwrap();
        let mut tail = Vec::new();
        lists.for_each_in(0, hub as usize - 2, usize::MAX, |w| {
            tail.push(w);
            true
        });
        assert_eq!(tail, vec![hub - 1, hub]);
    }
}
