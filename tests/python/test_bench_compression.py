"""scripts/bench_compression.py end to end on a tiny generated graph: it builds the stores,
reads their sizes and times both kernels in paired rounds (the figures themselves are not
checked: a benchmark's times are not a test's business)."""

import json
import subprocess
import sys

from conftest import REPO, vastgraph_binary


def test_the_compression_benchmark_reports_sizes_ratios_and_the_filter(tmp_path):
    out = tmp_path / "result.json"
    proc = subprocess.run(
        [
            sys.executable, REPO / "scripts" / "bench_compression.py",
            "--graphs", "kron9", "--codecs", "for64,zeta64,streamvbyte64,bytecode64", "--rounds", "2",
            "--bfs-trials", "2", "--pagerank-trials", "1", "--pagerank-iters", "3",
            "--workdir", tmp_path / "work", "--vastgraph", vastgraph_binary(), "--json", out,
        ],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())["graphs"]["kron9"]
    sizes = result["sizes"]
    assert set(sizes) == {"raw", "for64", "zeta64", "streamvbyte64", "bytecode64"}
    assert sizes["raw"]["neighbour_bits_per_arc"] == 32.0
    arcs = sizes["raw"]["arcs"]
    for codec in ("for64", "zeta64", "streamvbyte64", "bytecode64"):
        assert sizes[codec]["arcs"] == arcs
        # Differences of sorted ids in a 512-vertex graph take well under 32 bits.
        assert sizes[codec]["neighbour_bits_per_arc"] < 16
        assert sizes[codec]["store_bytes"] < sizes["raw"]["store_bytes"]
    for algorithm in ("bfs", "pagerank"):
        cells = result[algorithm]
        assert cells["raw"]["ratio_to_raw"] == 1.0
        for codec in ("for64", "zeta64", "streamvbyte64", "bytecode64"):
            cell = cells[codec]
            assert len(cell["round_seconds"]) == 2 and all(t > 0 for t in cell["round_seconds"])
            low, high = cell["ratio_range"]
            assert 0 < low <= cell["ratio_to_raw"] <= high
    # A bit per arc at least, and a word or more per vertex.
    assert result["filter_bytes"] >= arcs / 8
    assert "| kron9 | streamvbyte64 |" in proc.stdout
