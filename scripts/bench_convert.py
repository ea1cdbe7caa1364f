#!/usr/bin/env python3
"""Conversion benchmark (issue: foundation). Not a test: it measures and prints.

Cases:
  (a) generate kron --scale 24 (edge factor 16) straight into a store
  (b) a binary edge list of >= 500M edges converted with --memory 1GiB
  (c) ../shared/data/web-cnr-2000.tsv.zst (zstd-compressed SNAP text)

For each: wall seconds, input edges per second, and the peak RSS of the process (from
/usr/bin/time -v), next to the memory budget. Usage:

  scripts/bench_convert.py [--workdir DIR] [--bin-edges 500000000] [--scale 24] [--keep]
"""

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(cmd):
    """Runs cmd under /usr/bin/time -v; returns (wall seconds, peak RSS bytes, stderr)."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v", *map(str, cmd)], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{proc.stderr}")
    rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    return wall, rss_kib * 1024, proc.stderr


def store_info(vastgraph, store):
    out = subprocess.run([vastgraph, "info", store, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vastgraph", default=str(REPO / "target" / "release" / "vastgraph"))
    ap.add_argument("--workdir", default="/tmp/vastgraph-bench-convert")
    ap.add_argument("--scale", type=int, default=24)
    ap.add_argument("--bin-edges", type=int, default=500_000_000)
    ap.add_argument("--bin-vertices", type=int, default=1 << 26)
    ap.add_argument("--memory", default="1GiB")
    ap.add_argument("--cnr", default=str(REPO.parent / "shared" / "data" / "web-cnr-2000.tsv.zst"))
    ap.add_argument("--keep", action="store_true", help="keep the stores and the edge list")
    args = ap.parse_args()

    vg = args.vastgraph
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    rows = []

    def record(case, cmd, edges, budget):
        wall, rss, _ = timed(cmd)
        rows.append(
            {"case": case, "input_edges": edges, "seconds": wall, "edges_per_second": edges / wall,
             "peak_rss_bytes": rss, "budget": budget}
        )

    # (a) Kronecker straight into the builder.
    kron = work / f"kron{args.scale}"
    record(
        f"generate kron --scale {args.scale}",
        [vg, "--quiet", "generate", "kron", "--scale", args.scale, "--edge-factor", 16, "--seed", 1, "-o", kron, "--force"],
        16 << args.scale,
        "default",
    )
    # (b) A binary edge list much larger than the budget.
    edges_bin = work / "uniform.bin32"
    if not edges_bin.exists() or edges_bin.stat().st_size != 8 * args.bin_edges:
        subprocess.run(
            [vg, "--quiet", "generate", "uniform", "--vertices", str(args.bin_vertices), "--edges", str(args.bin_edges),
             "--seed", "7", "--edge-list", str(edges_bin), "--force"],
            check=True,
        )
    bin_store = work / "uniform-store"
    record(
        f"convert bin32 ({args.bin_edges / 1e6:.0f}M edges, {edges_bin.stat().st_size / 2**30:.1f} GiB) --memory {args.memory}",
        [vg, "--quiet", "convert", edges_bin, "-o", bin_store, "--memory", args.memory, "--force"],
        args.bin_edges,
        args.memory,
    )
    # (c) A real web graph, compressed text.
    if Path(args.cnr).exists():
        cnr_store = work / "cnr"
        record(
            "convert web-cnr-2000.tsv.zst",
            [vg, "--quiet", "convert", args.cnr, "-o", cnr_store, "--force"],
            3_216_152,
            "default",
        )
    else:
        print(f"skipping cnr-2000: {args.cnr} not found", file=sys.stderr)

    print(f"{'case':<60} {'edges':>12} {'seconds':>9} {'Medges/s':>9} {'peak RSS':>10} {'budget':>8}")
    for r in rows:
        print(
            f"{r['case']:<60} {r['input_edges']:>12} {r['seconds']:>9.2f} {r['edges_per_second'] / 1e6:>9.2f} "
            f"{r['peak_rss_bytes'] / 2**20:>8.0f}Mi {r['budget']:>8}"
        )
    print(json.dumps(rows))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
