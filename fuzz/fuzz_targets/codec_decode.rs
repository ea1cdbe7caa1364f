//! The fuzz target `codec_decode`: see its body, `fuzz/bodies/codec_decode.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/codec_decode.rs"]
mod body;

fuzz_target!(|input: &[u8]| body::run(input));
