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

/// The two .npy files hold the same array: the same bytes, or float64 values within 1e-9 (a
/// sum taken in another order: pushes from a frontier read in a pass).
pub fn assert_same_npy(a: &Path, b: &Path, what: &str) {
    let (a, b) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    let header = |x: &[u8]| 10 + u16::from_le_bytes([x[8], x[9]]) as usize;
    let text = String::from_utf8_lossy(&a[..header(&a)]).to_string();
    if !text.contains("<f8") {
        assert!(a == b, "{what}: the outputs differ");
        return;
    }
    let values = |x: &[u8]| -> Vec<f64> {
        x[header(x)..]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (x, y) = (values(&a), values(&b));
    assert_eq!(x.len(), y.len(), "{what}");
    for (i, (p, q)) in x.iter().zip(&y).enumerate() {
        assert!(
            p == q || (p - q).abs() <= 1e-9 * p.abs().max(q.abs()).max(1e-12),
            "{what}: value {i} is {p} in one, {q} in the other"
        );
    }
}
