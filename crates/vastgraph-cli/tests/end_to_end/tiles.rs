//! `vastgraph tile`, then PageRank over the tiles: the same scores as over the lists, in memory
//! and out of core; `info` describes them; a damaged tile file stops a run with its name and
//! the way out, and `--no-tiles` is that way.

use crate::common::*;

#[test]
fn pagerank_over_tiles_gives_the_lists_scores_and_damage_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let store = path("kron");
    ok(&[
        "generate",
        "kron",
        "--scale",
        "12",
        "--symmetrize",
        "-o",
        &store,
    ]);
    let pagerank = |out: &str, extra: &[&str]| {
        let mut args = vec!["run", "pagerank", &store, "--max-iters", "15", "-o", out];
        args.extend_from_slice(extra);
        stderr(&ok(&args))
    };
    let lists = path("lists.npy");
    assert!(pagerank(&lists, &[]).contains("layout=\"lists\""));

    let tiled = ok(&["tile", &store, "--side-log2", "8"]);
    assert!(
        stderr(&tiled).contains("tiles of 2^8 × 2^8"),
        "{}",
        stderr(&tiled)
    );
    let info = String::from_utf8_lossy(&ok(&["info", &store]).stdout).into_owned();
    assert!(
        info.contains("tiles ") && info.contains("arcs a tile"),
        "{info}"
    );
    ok(&["info", &store, "--verify"]);

    for (name, extra) in [
        ("tiles.npy", vec![]),
        ("tiles-ooc.npy", vec!["--memory", "16MiB"]),
    ] {
        let line = pagerank(&path(name), &extra);
        // The out-of-core line gives passes and bytes; its layout is in the stats record.
        assert!(
            !extra.is_empty() || line.contains("layout=\"tiles\""),
            "{line}"
        );
        assert_same_npy(
            std::path::Path::new(&lists),
            dir.path().join(name).as_path(),
            name,
        );
    }

    let edges = dir.path().join("kron").join("tile_edges.u32");
    let mut bytes = std::fs::read(&edges).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&edges, &bytes).unwrap();
    for extra in [vec![], vec!["--memory", "16MiB"]] {
        let mut args = vec!["run", "pagerank", &store];
        args.extend_from_slice(&extra);
        let refused = vastgraph(&args);
        let message = stderr(&refused);
        assert!(!refused.status.success(), "{extra:?}");
        assert!(
            message.contains("tile_edges.u32") && message.contains("--no-tiles"),
            "{message}"
        );
        args.push("--no-tiles");
        ok(&args);
    }
    // A side out of range is a usage error (exit 2), naming the option and the range.
    for side in ["17", "5"] {
        let refused = vastgraph(&["tile", &store, "--side-log2", side]);
        let message = stderr(&refused);
        assert_eq!(refused.status.code(), Some(2), "{message}");
        assert!(
            message.contains("--side-log2") && message.contains("6..=16"),
            "{message}"
        );
    }
}

#[test]
fn convert_and_generate_with_tiles_leave_a_tiled_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let edges = path("edges.tsv");
    let text: String = (0..3000u32)
        .map(|i| format!("{}\t{}\n", i % 97, (i * 31 + 7) % 401))
        .collect();
    std::fs::write(&edges, text).unwrap();
    let converted = path("converted");
    let said = stderr(&ok(&["convert", &edges, "-o", &converted, "--tiles"]));
    assert!(
        said.contains("tiled ") && said.contains("converted "),
        "{said}"
    );
    let generated = path("generated");
    ok(&[
        "generate",
        "kron",
        "--scale",
        "10",
        "--symmetrize",
        "--tiles",
        "-o",
        &generated,
    ]);
    for store in [&converted, &generated] {
        let info = String::from_utf8_lossy(&ok(&["info", store, "--verify"]).stdout).into_owned();
        assert!(info.contains("arcs a tile"), "{store}: {info}");
        let run = stderr(&ok(&["run", "pagerank", store, "--max-iters", "3"]));
        assert!(run.contains("layout=\"tiles\""), "{run}");
    }
}
