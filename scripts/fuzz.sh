#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets: the input parsers, the store's open path with
# out-of-core validation, the codecs' decoders) for SECONDS each (default 60) on its corpus in
# fuzz/corpus/TARGET, seeded from tests/fixtures, and prints a table of executions and crashes.
# A crash leaves its input in fuzz/artifacts/TARGET and makes the script fail.
#
# Needs a nightly toolchain (libFuzzer's sanitizer flags) and cargo-fuzz (installed from
# crates.io when missing). Without nightly it says so and exits 0, so that the test command
# runs everywhere with VASTGRAPH_FUZZ_SECONDS set. (Without it, the test command replays the
# targets' checks on their corpora as Rust tests: crates/vastgraph-cli/tests/end_to_end/
# fuzz_corpora.rs.)
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     a short run (VASTGRAPH_FUZZ_SECONDS's): unoptimised targets
#   scripts/fuzz.sh --runs N [TARGET...]     a campaign: optimised targets, each until N inputs
#
# A short run builds the targets unoptimised (`cargo fuzz build --dev`): on 2 cores the eight
# build from nothing in 7.5 minutes against 23.5 optimised, and 20 seconds still take each
# target through its whole corpus. A campaign builds them optimised, for several times the
# inputs a second.
set -uo pipefail
cd "$(dirname "$0")/../fuzz"
if [ "${1:-}" = "--runs" ]; then
    limit=(-runs="${2:?--runs needs a count}")
    build=(--release)
    shift 2
else
    limit=(-max_total_time="${1:-60}")
    build=(--dev)
    shift || true
fi

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "fuzzing skipped: no nightly toolchain (rustup toolchain install nightly)"
    exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install --quiet --locked cargo-fuzz || { echo "fuzzing skipped: cargo-fuzz did not install"; exit 0; }
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
echo "== building ${#targets[@]} fuzz targets"
cargo +nightly fuzz build "${build[@]}" >/dev/null 2>&1 || cargo +nightly fuzz build "${build[@]}"

# The targets that write their input to a file (table, webgraph, store_open) write it to
# memory, not the disk: their temporary directories go to /dev/shm where it exists.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi

# AddressSanitizer records the stack of every allocation for its reports, which costs store_open
# (an algorithm an input) an eighth of its inputs a second; to see them for a crash, run its
# input again with ASAN_OPTIONS=malloc_context_size=30.
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}"

# -rss_limit_mb bounds the memory a target touches. -malloc_limit_mb is set apart, above 16 GiB:
# the parquet crate reserves a Vec for a schema element's declared children (an i32) before it
# reads them, so a forged footer asks for up to 16 GiB of address space that is never touched
# (tests/fixtures/forged-schema-children.parquet); with the default limit, equal to the RSS
# limit, that reservation would be reported as running out of memory.
failed=0
passed=0
printf '%-16s %14s %10s %8s %8s  %s\n' target executions exec/s seconds crashes coverage
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target" "artifacts/$target"
    log=$(mktemp)
    started=$(date +%s)
    cargo +nightly fuzz run "${build[@]}" "$target" "corpus/$target" -- \
        "${limit[@]}" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=20480 \
        -print_final_stats=1 >"$log" 2>&1
    status=$?
    execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    crashes=0
    if [ $status -ne 0 ]; then
        crashes=1
        failed=1
        echo "---- $target failed; its log:"
        tail -40 "$log"
    else
        passed=$((passed + 1))
    fi
    printf '%-16s %14s %10s %8s %8s  %s\n' "$target" "${execs:-?}" "${rate:-?}" "$(($(date +%s) - started))" "$crashes" "${cov:-?}"
    rm -f "$log"
done
echo "fuzz: $passed passed, $((${#targets[@]} - passed)) failed"
if [ $failed -ne 0 ]; then
    echo "fuzzing found crashes: inputs in fuzz/artifacts/"
    exit 1
fi
