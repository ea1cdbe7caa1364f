//! `vastgraph reorder` end to end: on a skewed graph, the algorithms whose answer does not
//! depend on the ids give the same answer per original vertex (found through labels.txt),
//! and `.tsv` output names the original vertices.

use vastgraph_algos::registry::{run_on_store, Params, Values};
use vastgraph_store::Store;

use crate::common::{fixture, ok, stderr, vastgraph};

/// One value per vertex as f64 (every kernel compared here has one).
fn per_vertex(store: &Store, algorithm: &str) -> Vec<f64> {
    let params = Params::default().with("per_vertex", true);
    let out = run_on_store(store, algorithm, &params.only_for(algorithm), true).unwrap();
    match out.values.unwrap() {
        Values::I64(v) => v.into_iter().map(|x| x as f64).collect(),
        Values::U64(v) => v.into_iter().map(|x| x as f64).collect(),
        Values::U32(v) => v.into_iter().map(f64::from).collect(),
        Values::U8(v) => v.into_iter().map(f64::from).collect(),
        Values::F64(v) => v,
        Values::Rows { .. } => panic!("{algorithm} gives rows, not one value per vertex"),
    }
}

#[test]
fn a_reordered_store_gives_the_same_answers_per_original_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("kron");
    let reordered = dir.path().join("kron-deg");
    let (source_s, reordered_s) = (source.to_str().unwrap(), reordered.to_str().unwrap());
    ok(&[
        "generate",
        "kron",
        "--scale",
        "12",
        "--symmetrize",
        "--weighted",
        "-o",
        source_s,
    ]);
    let printed = ok(&["reorder", source_s, "-o", reordered_s, "--memory", "64MiB"]);
    assert!(
        String::from_utf8_lossy(&printed.stderr).contains("by decreasing degree"),
        "{printed:?}"
    );
    let (before, after) = (
        Store::open(&source).unwrap(),
        Store::open(&reordered).unwrap(),
    );
    let old_of_new: Vec<usize> = after
        .labels()
        .unwrap()
        .expect("a reordered store has labels")
        .iter()
        .map(|l| l.parse().unwrap())
        .collect();
    // The generator permutes ids at random, so a reorder that kept them would be a bug.
    assert!(
        old_of_new
            .iter()
            .enumerate()
            .filter(|&(i, &o)| i != o)
            .count()
            > 1000
    );

    // bfs and sssp start from the default source: the vertex with the most arcs, the same
    // vertex in both numberings.
    for algorithm in ["bfs", "sssp", "kcore"] {
        let (want, got) = (
            per_vertex(&before, algorithm),
            per_vertex(&after, algorithm),
        );
        for (new, &old) in old_of_new.iter().enumerate() {
            assert_eq!(got[new], want[old], "{algorithm}: vertex {old} (now {new})");
        }
    }
    // PageRank sums in another order: equal up to rounding.
    let (want, got) = (
        per_vertex(&before, "pagerank"),
        per_vertex(&after, "pagerank"),
    );
    for (new, &old) in old_of_new.iter().enumerate() {
        assert!(
            (got[new] - want[old]).abs() < 1e-12,
            "pagerank: vertex {old}"
        );
    }
    // Component ids are vertex ids: the partitions must correspond one to one.
    let (want, got) = (per_vertex(&before, "cc"), per_vertex(&after, "cc"));
    let mut pairs = std::collections::BTreeMap::new();
    let mut reverse = std::collections::BTreeMap::new();
    for (new, &old) in old_of_new.iter().enumerate() {
        let (a, b) = (want[old].to_bits(), got[new].to_bits());
        assert_eq!(
            *pairs.entry(a).or_insert(b),
            b,
            "cc: vertex {old} changed component"
        );
        assert_eq!(
            *reverse.entry(b).or_insert(a),
            a,
            "cc: two components merged"
        );
    }

    // Text output names the original vertices: the rows of both runs match once sorted.
    let tsv = |store: &str, name: &str| {
        let path = dir.path().join(name);
        ok(&["run", "bfs", store, "-o", path.to_str().unwrap()]);
        let mut rows: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(tsv(source_s, "before.tsv"), tsv(reordered_s, "after.tsv"));
}

/// `convert --order degree` is `convert` then `reorder` in one step: the same arrays, but the
/// manifest names the real input and what its build dropped, and nothing is left behind, also
/// when the input is bad.
#[test]
fn convert_in_degree_order_is_convert_then_reorder() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let edges = path("kron.bin32");
    // A Kronecker edge list has self-loops and duplicates for the build to drop.
    ok(&["generate", "kron", "--scale", "10", "--edge-list", &edges]);
    ok(&["convert", &edges, "--symmetrize", "-o", &path("input")]);
    ok(&["reorder", &path("input"), "-o", &path("two-steps")]);
    ok(&[
        "convert",
        &edges,
        "--symmetrize",
        "--order",
        "degree",
        "-o",
        &path("one-step"),
    ]);
    for file in [
        "offsets.u64",
        "neighbors.u32",
        "first_neighbors.u32",
        "labels.txt",
    ] {
        let read = |store: &str| std::fs::read(dir.path().join(store).join(file)).unwrap();
        assert!(read("two-steps") == read("one-step"), "{file} differs");
    }
    let (input, one_step) = (
        Store::open(&dir.path().join("input")).unwrap(),
        Store::open(&dir.path().join("one-step")).unwrap(),
    );
    let (built, ordered) = (input.manifest(), one_step.manifest());
    assert!(built.dropped.self_loops + built.dropped.duplicate_arcs > 0);
    assert_eq!(ordered.dropped, built.dropped);
    assert_eq!(ordered.provenance.input_edges, built.provenance.input_edges);
    assert_eq!(ordered.provenance.inputs, built.provenance.inputs);
    assert_eq!(ordered.provenance.command, "convert");
    assert_eq!(ordered.provenance.options["order"], "degree");

    // Refused before building when the target exists; a bad input leaves nothing behind.
    let again = crate::common::vastgraph(&[
        "convert",
        &edges,
        "--order",
        "degree",
        "-o",
        &path("one-step"),
    ]);
    assert!(
        crate::common::stderr(&again).contains("already exists"),
        "{again:?}"
    );
    let bad = crate::common::vastgraph(&[
        "convert",
        &crate::common::fixture("bad-line.tsv"),
        "--order",
        "degree",
        "-o",
        &path("bad"),
    ]);
    assert!(
        crate::common::stderr(&bad).contains("bad-line.tsv:4"),
        "{bad:?}"
    );
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["input", "kron.bin32", "one-step", "two-steps"]);
}

/// A copy written inside its source would be a stranger in it, which then keeps the source from
/// being replaced or tiled (a replaced store is deleted whole): refused, and nothing written.
/// Tiling a store with a stranger in it names it and keeps it.
#[test]
fn a_copy_inside_its_source_is_refused_and_a_stranger_in_a_store_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    ok(&["convert", &fixture("tiny.tsv"), "-o", s]);
    for command in ["reorder", "compress"] {
        let inside = store.join("copy");
        let o = vastgraph(&[command, s, "-o", inside.to_str().unwrap()]);
        // A usage error, as any output inside a store is.
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        assert!(stderr(&o).contains("is inside the store"), "{}", stderr(&o));
        assert!(!inside.exists());
    }
    std::fs::write(store.join("notes.txt"), "mine").unwrap();
    let o = vastgraph(&["tile", s]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("notes.txt"), "{}", stderr(&o));
    assert_eq!(std::fs::read(store.join("notes.txt")).unwrap(), b"mine");
}
