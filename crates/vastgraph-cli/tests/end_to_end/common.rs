//! What every end-to-end test does: run the binary, find a fixture, read its stderr.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `vastgraph --quiet ARGS`. The device calibration cache goes to a test directory so
/// that tests never write to the user's ~/.cache.
pub fn vastgraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vastgraph"))
        .arg("--quiet")
        .args(args)
        .env(
            "XDG_CACHE_HOME",
            std::env::temp_dir().join("vastgraph-test-cache"),
        )
        .output()
        .expect("the vastgraph binary runs")
}

/// Runs `vastgraph ARGS` and asserts that it succeeded.
pub fn ok(args: &[&str]) -> Output {
    let o = vastgraph(args);
    assert!(
        o.status.success(),
        "vastgraph {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The path of `tests/fixtures/NAME` at the workspace root.
pub fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
        .display()
        .to_string()
}
