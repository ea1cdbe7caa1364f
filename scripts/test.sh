#!/usr/bin/env bash
# Runs every test: the Rust workspace (unit, property and integration tests, including the
# memory-cgroup tests, which skip with a message where no cgroup can be made) and the Python
# tests that compare results with NetworkX and SciPy on real graphs (skipped with a message when
# ../shared/data is absent).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== installing Python test dependencies"
python3 -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt

echo "== building (release)"
cargo build --release --workspace --all-targets

echo "== Rust tests"
cargo test --release --workspace

echo "== installing the vastgraph Python package (reuses the warm target/)"
python3 -m pip install --quiet --disable-pip-version-check .

echo "== Python tests"
python3 -m pytest tests/python -q -rs
