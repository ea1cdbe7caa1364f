//! WebGraph BV input: a tiny fixture (7 nodes, 13 arcs, node 6 isolated), corrupted copies
//! of it, and the real cnr-2000 graph compared with its text edge list (when available).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use vastgraph_ingest::{ingest, plan, IngestOptions, InputFormat, VecSink};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn read(path: &Path) -> Result<VecSink, String> {
    let plan = plan(&[path.to_path_buf()], &IngestOptions::default()).map_err(|e| e.to_string())?;
    let mut sink = VecSink::default();
    ingest(&plan, &mut sink, &mut |_| {}).map_err(|e| e.to_string())?;
    Ok(sink)
}

const TINY_ARCS: [(u32, u32); 13] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (1, 2),
    (2, 0),
    (3, 3),
    (3, 4),
    (3, 5),
    (4, 0),
    (4, 1),
    (4, 2),
    (4, 3),
    (4, 5),
];

#[test]
fn tiny_webgraph_reads_by_any_of_its_names() {
    for name in [
        "tiny-webgraph",
        "tiny-webgraph.graph",
        "tiny-webgraph.properties",
    ] {
        let path = fixtures().join(name);
        let plan = plan(std::slice::from_ref(&path), &IngestOptions::default()).unwrap();
        assert_eq!(plan.inputs[0].format, InputFormat::WebGraph, "{name}");
        assert_eq!(plan.declared_vertices, Some(7));
        let sink = read(&path).unwrap();
        assert_eq!(sink.pairs(), TINY_ARCS, "{name}");
        assert_eq!(sink.declared_vertices, 7, "the isolated node 6 is declared");
    }
}

/// Copies the tiny fixture into a temp dir, letting `edit` change the graph bytes and the
/// properties text.
fn corrupted(edit: impl FnOnce(&mut Vec<u8>, &mut String)) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let mut graph = std::fs::read(fixtures().join("tiny-webgraph.graph")).unwrap();
    let mut props = std::fs::read_to_string(fixtures().join("tiny-webgraph.properties")).unwrap();
    edit(&mut graph, &mut props);
    let base = dir.path().join("g");
    std::fs::write(base.with_extension("graph"), graph).unwrap();
    std::fs::write(base.with_extension("properties"), props).unwrap();
    (dir, base)
}

#[test]
fn arc_count_mismatch_is_an_error() {
    let (_dir, base) = corrupted(|_, p| *p = p.replace("arcs=13", "arcs=14"));
    let err = read(&base).unwrap_err();
    assert!(
        err.contains("holds 13 arcs but the properties declare 14"),
        "{err}"
    );
}

#[test]
fn missing_graph_file_and_bad_properties_are_named() {
    let (dir, base) = corrupted(|_, _| {});
    std::fs::remove_file(base.with_extension("graph")).unwrap();
    let err = read(&base).unwrap_err();
    assert!(err.contains("g.graph"), "{err}");
    drop(dir);

    let (_dir, base) = corrupted(|_, p| *p = p.replace("nodes=7", "nodes=seven"));
    let err = read(&base).unwrap_err();
    assert!(
        err.contains("g.properties") && err.contains("'nodes'"),
        "{err}"
    );
}

#[test]
fn corrupt_bit_streams_give_errors_not_crashes() {
    for fill in [0x00u8, 0xff, 0x5a] {
        let (_dir, base) = corrupted(|g, _| g.iter_mut().for_each(|b| *b = fill));
        // Either an error or (by chance) 13 arcs in range; never a panic or hang.
        if let Ok(sink) = read(&base) {
            assert_eq!(sink.src.len(), 13);
        }
    }
    let (_dir, base) = corrupted(|g, _| g.truncate(3));
    assert!(read(&base).is_err());
}

/// The workspace's shared real-data directory, if present.
fn shared_data() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    dir.is_dir().then_some(dir)
}

#[test]
fn cnr_2000_webgraph_matches_its_text_edge_list() {
    let Some(data) = shared_data() else {
        println!("skipped: shared data directory not found");
        return;
    };
    let (bv, tsv) = (
        data.join("webgraph/cnr-2000.graph"),
        data.join("web-cnr-2000.tsv.zst"),
    );
    if !bv.exists() || !tsv.exists() {
        println!("skipped: cnr-2000 files not found in {}", data.display());
        return;
    }
    let from_bv = read(&bv).unwrap();
    let from_text = read(&tsv).unwrap();
    assert_eq!(from_bv.src.len(), 3_216_152);
    assert_eq!(from_bv.declared_vertices, 325_557);
    let bv_set: HashSet<(u32, u32)> = from_bv.pairs().into_iter().collect();
    assert_eq!(bv_set.len(), 3_216_152, "no duplicate arcs");
    let text_set: HashSet<(u32, u32)> = from_text.pairs().into_iter().collect();
    assert_eq!(bv_set, text_set);
    let self_loops = from_bv.pairs().iter().filter(|(u, v)| u == v).count();
    assert_eq!(self_loops, 87_442);
}

/// Properties as the webgraph fuzz target writes them from an input's first six bytes (nodes,
/// arcs, window, reference count, interval length, flags); the rest is the `.graph` file.
fn fuzzed(input: &[u8]) -> (tempfile::TempDir, PathBuf) {
    const FLAGS: [&str; 4] = [
        "",
        "OUTDEGREES_DELTA",
        "REFERENCES_UNARY|BLOCKS_DELTA",
        "RESIDUALS_NIBBLE|OFFSETS_GAMMA",
    ];
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("g");
    let properties = format!(
        "graphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\nendianness=big\nnodes={}\n\
         arcs={}\nwindowsize={}\nmaxrefcount={}\nminintervallength={}\nzetak=3\n\
         compressionflags={}\n",
        1 + input[0] as u64 % 64,
        input[1],
        input[2] % 9,
        input[3] % 5,
        input[4] % 6,
        FLAGS[input[5] as usize % FLAGS.len()],
    );
    std::fs::write(base.with_extension("graph"), &input[6..]).unwrap();
    std::fs::write(base.with_extension("properties"), properties).unwrap();
    (dir, base)
}

/// Streams the fuzz target found: a degree, then an interval's length, decoded from a corrupt
/// stream made the decoder reserve exabytes (an abort, which no panic handler catches), and a
/// window of lists that ran out of memory. Each is now an error, from the records checked
/// before any list is built.
#[test]
fn corrupt_records_are_refused_before_any_list_is_allocated() {
    let inputs: [&[u8]; 3] = [
        &[
            6, 3, 4, 0, 39, 58, 0, 0, 0, 0, 0, 0, 0, 25, 192, 0, 0, 0, 0, 0, 0,
        ],
        &[1, 0, 123, 239, 138, 2, 0, 0, 0, 6, 93, 0, 0, 0, 59],
        &[
            6, 13, 7, 3, 4, 0, 215, 91, 0, 0, 0, 31, 0, 0, 0, 0, 0, 0, 0, 40, 255, 133, 101, 116,
            97, 103, 114,
        ],
    ];
    for input in inputs {
        let (_dir, base) = fuzzed(input);
        match read(&base) {
            Ok(sink) => assert!(sink.src.len() <= 255, "{input:?}"),
            Err(e) => assert!(e.contains("corrupt WebGraph stream"), "{e}"),
        }
    }
    // An absurd window is refused from the properties alone.
    let (_dir, base) = corrupted(|_, p| *p = p.replace("windowsize=7", "windowsize=99999999999"));
    let err = read(&base).unwrap_err();
    assert!(err.contains("windowsize"), "{err}");
}
