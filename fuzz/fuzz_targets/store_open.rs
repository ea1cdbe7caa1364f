//! The fuzz target `store_open`: see its body, `fuzz/bodies/store_open.rs`.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/store_open.rs"]
mod body;

/// The working copies, built once per process.
static STORES: OnceLock<body::Stores> = OnceLock::new();

fuzz_target!(|input: &[u8]| STORES.get_or_init(body::Stores::build).run(input));
