//! The fuzz target `webgraph`: see its body, `fuzz/bodies/webgraph.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/webgraph.rs"]
mod body;

fuzz_target!(|input: &[u8]| body::run(input));
