//! The fuzz target `table`: see its body, `fuzz/bodies/table.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/table.rs"]
mod body;

fuzz_target!(|input: &[u8]| body::run(input));
