//! Arbitrary bytes through the edge list reader(s): `Ok` or `Err`, never a panic or a hang, and
//! the same result whatever the block size (see `vastgraph_ingest::fuzzing::edge_list`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| vastgraph_ingest::fuzzing::edge_list(input));
