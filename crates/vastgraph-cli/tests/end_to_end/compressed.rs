//! Compressed stores end to end: `convert --compress` and `vastgraph compress` write them,
//! every registry algorithm gives identical results on them and on the raw store, and a
//! damaged code is an error exit, not a panic.

use std::path::Path;

use vastgraph_algos::registry::{
    run_on_store, Output as RunOutput, Params, RunError, Values, ALGORITHMS,
};
use vastgraph_store::manifest::files;
use vastgraph_store::{Codec, Store};

use crate::common::{fixture, ok, stderr, vastgraph};

/// The result of a run, as text: values (f64 by bit pattern, so that NaN == NaN and -0.0 !=
/// 0.0) and iteration count, or the error.
fn result_of(result: &Result<RunOutput, RunError>) -> String {
    match result {
        Err(e) => format!("error: {e}"),
        Ok(out) => {
            let values = match &out.values {
                None => String::new(),
                Some(Values::F64(v)) => {
                    format!("{:?}", v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
                }
                Some(other) => format!("{other:?}"),
            };
            format!("{values} iterations={}", out.stats.iterations)
        }
    }
}

fn run_all(store: &Store) -> Vec<(&'static str, Result<RunOutput, RunError>)> {
    let params = Params::default().with("per_vertex", true);
    ALGORITHMS
        .iter()
        .map(|a| {
            (
                a.name,
                run_on_store(store, a.name, &params.only_for(a.name), true),
            )
        })
        .collect()
}

/// Every registry algorithm, on one thread so that floating-point sums and races are
/// reproducible: the compressed store must give exactly the raw store's results, and the same
/// work counters unless the algorithm chose another method for a backend without neighbour
/// slices (tc intersects through a filter there): then the figures both report must agree.
fn assert_identical_results(raw: &Path, compressed: &Path, codec: Codec) {
    let (raw, compressed) = (Store::open(raw).unwrap(), Store::open(compressed).unwrap());
    assert_eq!(raw.codec(), Codec::Raw);
    assert_eq!(compressed.codec(), codec);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let (want, got) = pool.install(|| (run_all(&raw), run_all(&compressed)));
    let mut succeeded = 0;
    for ((name, want), (_, got)) in want.iter().zip(&got) {
        assert_eq!(
            result_of(want),
            result_of(got),
            "{name} differs on the compressed store"
        );
        let (Ok(want), Ok(got)) = (want, got) else {
            continue;
        };
        succeeded += 1;
        let (a, b) = (&want.stats.extra, &got.stats.extra);
        if a.get("method") == b.get("method") {
            assert_eq!(
                want.stats.edges_traversed, got.stats.edges_traversed,
                "{name}"
            );
            assert_eq!(a, b, "{name}");
        } else {
            for (key, value) in a
                .iter()
                .filter(|(k, _)| *k != "method" && *k != "intersections")
            {
                if let Some(other) = b.get(key) {
                    assert_eq!(value, other, "{name}: {key}");
                }
            }
        }
    }
    assert!(
        succeeded >= ALGORITHMS.len() / 2,
        "most algorithms ran ({succeeded})"
    );
}

#[test]
fn every_algorithm_gives_identical_results_on_compressed_stores() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    // Symmetric and weighted; directed with a transpose and weights.
    for (name, flags) in [
        ("sym", &["--symmetrize"][..]),
        ("dir", &["--transpose"][..]),
    ] {
        let raw = path(name);
        let mut args = vec![
            "generate",
            "kron",
            "--scale",
            "10",
            "--weighted",
            "-o",
            &raw,
        ];
        args.extend_from_slice(flags);
        ok(&args);
        let varint = path(&format!("{name}-varint"));
        ok(&["compress", &raw, "-o", &varint, "--codec", "bytecode64"]);
        assert_identical_results(Path::new(&raw), Path::new(&varint), Codec::ByteCode64);
        let svb = path(&format!("{name}-svb"));
        ok(&["compress", &raw, "-o", &svb, "--codec", "streamvbyte64"]);
        assert_identical_results(Path::new(&raw), Path::new(&svb), Codec::StreamVByte64);
        let zeta = path(&format!("{name}-zeta"));
        ok(&["compress", &raw, "-o", &zeta, "--codec", "zeta64"]);
        assert_identical_results(Path::new(&raw), Path::new(&zeta), Codec::Zeta64);
        // The default codec (for64, as a Kronecker graph's lists have few runs).
        let bc = path(&format!("{name}-bc"));
        ok(&["compress", &raw, "-o", &bc]);
        assert_identical_results(Path::new(&raw), Path::new(&bc), Codec::COMPRESSED_DEFAULT);
        // Generating straight into a compressed store gives the same store contents.
        let direct = path(&format!("{name}-direct"));
        args[6] = &direct;
        args.push("--compress");
        ok(&args);
        let (a, b) = (
            Store::open(Path::new(&bc)).unwrap(),
            Store::open(Path::new(&direct)).unwrap(),
        );
        for file in [
            files::OFFSETS_EF,
            files::BYTE_OFFSETS_EF,
            files::NEIGHBOR_CODES,
        ] {
            let xxh3 = |s: &Store| s.manifest().file(file).map(|f| f.xxh3.clone());
            assert!(xxh3(&a).is_some(), "{file}");
            assert_eq!(xxh3(&a), xxh3(&b), "{file}");
        }
    }
}

#[test]
fn convert_compress_info_run_export() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw").display().to_string();
    let bc = dir.path().join("bc").display().to_string();
    ok(&["convert", &fixture("tiny.tsv"), "-o", &raw, "--symmetrize"]);
    ok(&[
        "convert",
        &fixture("tiny.tsv"),
        "-o",
        &bc,
        "--symmetrize",
        "--compress",
    ]);
    let info = String::from_utf8_lossy(&ok(&["info", &bc, "--verify"]).stdout).into_owned();
    assert!(info.contains("for64"), "{info}");
    let json: serde_json::Value =
        serde_json::from_slice(&ok(&["info", &bc, "--json"]).stdout).unwrap();
    assert_eq!(json["codec"], "for64");
    assert!(json["bytes_per_arc"].as_f64().unwrap() > 0.0);
    for (store, name) in [(&raw, "raw"), (&bc, "bc")] {
        let out = dir.path().join(format!("{name}.tsv")).display().to_string();
        ok(&["run", "bfs", store, "--source", "0", "--verify", "-o", &out]);
        let export = dir
            .path()
            .join(format!("{name}-arcs.tsv"))
            .display()
            .to_string();
        ok(&["export", store, "-o", &export]);
    }
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(read("raw.tsv"), read("bc.tsv"));
    assert_eq!(read("raw-arcs.tsv"), read("bc-arcs.tsv"));
    assert!(read("bc-arcs.tsv").contains("2\t0\n"));
    // A compressed store cannot be compressed again.
    let again = vastgraph(&[
        "compress",
        &bc,
        "-o",
        &dir.path().join("bc2").display().to_string(),
    ]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains("already compressed"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn compress_without_a_codec_writes_zeta64_on_a_graph_of_runs() {
    // A web graph's shape: every page links to the pages after it on its site (runs of ids).
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("web.tsv");
    let mut text = String::new();
    for v in 0..3_000u32 {
        let site_end = (v / 100 + 1) * 100;
        for u in v + 1..(v + 12).min(site_end) {
            text.push_str(&format!("{v}\t{u}\t{}\n", (u + v) % 7 + 1));
        }
    }
    std::fs::write(&edges, text).unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    ok(&["convert", &edges.display().to_string(), "-o", &path("raw")]);
    ok(&["compress", &path("raw"), "-o", &path("picked")]);
    ok(&[
        "convert",
        &edges.display().to_string(),
        "-o",
        &path("converted"),
        "--compress",
    ]);
    for store in ["picked", "converted"] {
        let json: serde_json::Value =
            serde_json::from_slice(&ok(&["info", &path(store), "--json"]).stdout).unwrap();
        assert_eq!(json["codec"], "zeta64", "{store}");
    }
    assert_identical_results(
        Path::new(&path("raw")),
        Path::new(&path("picked")),
        Codec::Zeta64,
    );
}

#[test]
fn a_damaged_compressed_store_is_an_error_exit_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw").display().to_string();
    let bc = dir.path().join("bc");
    ok(&[
        "generate",
        "kron",
        "--scale",
        "8",
        "--symmetrize",
        "-o",
        &raw,
    ]);
    ok(&[
        "compress",
        &raw,
        "-o",
        bc.to_str().unwrap(),
        "--codec",
        "bytecode64",
    ]);
    // Without page checksums (as written before they existed), so that the damage meets the
    // decoder's own checks, which must hold on their own.
    vastgraph_testkit::without_page_sums(&bc);
    let codes = bc.join(files::NEIGHBOR_CODES);
    let pristine = std::fs::read(&codes).unwrap();
    // The last byte with a continuation bit: the last code runs off the end of its list.
    let mut damaged = pristine.clone();
    *damaged.last_mut().unwrap() |= 0x80;
    std::fs::write(&codes, &damaged).unwrap();
    for args in [
        vec!["run", "bfs", bc.to_str().unwrap()],
        vec!["info", bc.to_str().unwrap()],
        vec!["export", bc.to_str().unwrap(), "-o", "/dev/null"],
    ] {
        let o = vastgraph(&args);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{args:?}: an error exit, not a panic"
        );
        let e = stderr(&o);
        assert!(e.contains("neighbors.bc64") && e.contains("vertex"), "{e}");
    }
    // Many single-bit flips, in every codec: each is refused cleanly or gives a store that
    // still runs.
    for codec in Codec::COMPRESSED.map(Codec::name) {
        let bc = dir.path().join(codec);
        let bc = bc.to_str().unwrap();
        ok(&["compress", &raw, "-o", bc, "--codec", codec]);
        vastgraph_testkit::without_page_sums(Path::new(bc));
        let codes = Path::new(bc).join(files::NEIGHBOR_CODES);
        let pristine = std::fs::read(&codes).unwrap();
        let mut refused = 0;
        for i in (0..pristine.len()).step_by(pristine.len() / 25 + 1) {
            let mut flipped = pristine.clone();
            flipped[i] ^= 0x40;
            std::fs::write(&codes, &flipped).unwrap();
            let o = vastgraph(&["run", "cc", bc]);
            assert!(
                matches!(o.status.code(), Some(0) | Some(1)),
                "{codec} byte {i}: {}",
                stderr(&o)
            );
            refused += (o.status.code() == Some(1)) as usize;
        }
        assert!(refused > 0, "{codec}: no flip was caught");
    }
}
