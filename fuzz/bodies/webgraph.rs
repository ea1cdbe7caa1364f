//! Arbitrary bytes as a WebGraph `.graph` file, under `.properties` whose nodes, arcs, window
//! size, reference count, interval length and compression flags come from the input's first
//! bytes: converting it gives edges or an error, never a panic, a hang or more arcs than
//! declared.
//!
//! Shared by the fuzz target `webgraph` and the replay of its corpus in the test command.

use vastgraph_ingest::{ingest, plan, IngestOptions, VecSink};

const FLAGS: [&str; 4] = [
    "",
    "OUTDEGREES_DELTA",
    "REFERENCES_UNARY|BLOCKS_DELTA",
    "RESIDUALS_NIBBLE|OFFSETS_GAMMA",
];

pub fn run(input: &[u8]) {
    if input.len() < 6 {
        return;
    }
    let nodes = 1 + input[0] as u64 % 64;
    let arcs = input[1] as u64;
    let properties = format!(
        "graphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\nendianness=big\nnodes={nodes}\n\
         arcs={arcs}\nwindowsize={}\nmaxrefcount={}\nminintervallength={}\nzetak=3\n\
         compressionflags={}\n",
        input[2] % 9,
        input[3] % 5,
        input[4] % 6,
        FLAGS[input[5] as usize % FLAGS.len()],
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    let base = dir.path().join("g");
    std::fs::write(base.with_extension("graph"), &input[6..]).expect("written");
    std::fs::write(base.with_extension("properties"), properties).expect("written");
    let Ok(planned) = plan(&[base.with_extension("graph")], &IngestOptions::default()) else {
        return;
    };
    let mut sink = VecSink::default();
    if ingest(&planned, &mut sink, &mut |_| {}).is_ok() {
        assert_eq!(sink.src.len() as u64, arcs);
        assert!(sink
            .src
            .iter()
            .chain(&sink.dst)
            .all(|&v| (v as u64) < nodes));
    }
}
