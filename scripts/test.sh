#!/usr/bin/env bash
# Runs every test: the Rust workspace (unit, property and integration tests, including the
# memory-cgroup tests, which skip with a message where no cgroup can be made) and the Python
# tests that compare results with NetworkX and SciPy on real graphs (skipped with a message when
# ../shared/data is absent).
#
# Everything is built once, in the `ci` profile (release optimisation without LTO,
# see Cargo.toml): the Rust tests, the `vastgraph` binary the Python tests run, and the Python
# extension, which reuses the same compiled dependencies. The fuzz targets' checks run among the
# Rust tests, on their corpora and seeded mutations of them (crates/vastgraph-cli/tests/
# end_to_end/fuzz_corpora.rs); with VASTGRAPH_FUZZ_SECONDS=N, libFuzzer also runs each target
# for N seconds (scripts/fuzz.sh, nightly), which builds them again with its sanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== installing Python test dependencies"
python3 -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt

# The report's test renders the page in headless Chromium; without a browser it skips and
# says so.
if ! command -v chromium >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "== installing Chromium for the report's rendering test"
    apt-get install -y -qq chromium >/dev/null || echo "   (Chromium did not install: that test will skip)"
fi

echo "== Rust tests (profile ci)"
cargo test --profile ci --workspace

echo "== installing the vastgraph Python package (profile ci, reuses target/ci)"
MATURIN_PEP517_ARGS="--profile ci" python3 -m pip install --quiet --disable-pip-version-check .

echo "== Python tests"
# In two processes (pytest-xdist): most of their time is NetworkX's references, which run on
# one core each.
VASTGRAPH_BIN="$PWD/target/ci/vastgraph" python3 -m pytest tests/python -q -rs -n 2

if [ -n "${VASTGRAPH_FUZZ_SECONDS:-}" ]; then
    echo "== fuzz targets, ${VASTGRAPH_FUZZ_SECONDS} s each on their corpora (skipped without a nightly toolchain)"
    ./scripts/fuzz.sh "$VASTGRAPH_FUZZ_SECONDS"
fi
