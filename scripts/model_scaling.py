#!/usr/bin/env python3
"""Time against size: conversion, bfs, cc and a PageRank iteration measured on Kronecker graphs
of growing scale, in memory and out of core, fitted to power laws, and extrapolated to a larger
machine and graph.

For each scale S (--scales): `vastgraph generate kron --scale S --edge-list` writes a binary edge
list (not timed), `vastgraph convert LIST --symmetrize --memory BUILD` turns it into a store
(timed: wall, CPU seconds and peak RSS from /usr/bin/time; the list is deleted afterwards), and
`vastgraph tile STORE --memory BUILD` adds its tiles (timed likewise). Then, on 2 threads:
- in memory (warm, no budget; skipped when the store exceeds --in-memory-limit): bfs and cc
  (--trials trials), pagerank (5 iterations at tolerance 0, over the tiles), the median trial;
- out of core (`--memory BUDGET`, cold cache, inside a memory cgroup of the budget plus
  256 MiB): bfs, cc and pagerank (5 iterations, over the tiles), one run each: wall time, bytes
  read and computing time from the run's stats.
fio's sequential bandwidth (1 MiB reads at depth 32) on the largest store is measured before
and after the runs.

The model. For each kernel and mode, the time t, the core-seconds c (computing time × threads)
and the bytes read b are fitted as power laws of the arcs m, log y = log a + α·log m, by least
squares over the largest --fit-points scales (smaller graphs fit caches and budgets that a
larger one outgrows; the plot's lines fit every scale). A run on another machine takes

    max(b(M) / (disks × disk bandwidth),  c(M) / (cores × efficiency))

for M arcs: it is bound by its reads or by its computing, which overlap out of core. The
efficiency (--efficiency, 0.5 by default) is the share of linear speed-up assumed from 2 to the
target's cores; the measured runs give none beyond 2 threads, so it is an assumption, printed
beside the result. A conversion moves about 3 × 8 bytes an input edge through the disk (the
input, its sorted runs written and read back) plus the store's bytes, and its computing is
fitted as above.

Outputs: a markdown report on stdout (the measurements, the fits, the prediction beside Mosaic's
and Sage's published figures), --json with everything, and --svg, a log-log plot of time against
arcs per kernel and mode with the fitted lines.

Typical use (root, for drop_caches and the cgroup):

    scripts/model_scaling.py --binary target/ci/vastgraph --workdir /data/scaling \\
        --scales 20,22,23,24,25,26 --svg docs/scaling.svg --json /tmp/scaling.json
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench_out_of_core import Cgroup, fio, log, parse_size, run_vastgraph

THREADS = 2
CGROUP_SLACK = 256 << 20
# (name, algorithm, arguments): PageRank over the tiles, and over the lists for comparison.
PAGERANK = ["--max-iters", "5", "--tolerance", "0"]
KERNELS = (("bfs", "bfs", []), ("cc", "cc", []), ("pagerank", "pagerank", PAGERANK),
           ("pagerank-lists", "pagerank", [*PAGERANK, "--no-tiles"]))
# Published figures the prediction is set beside (../shared/papers): seconds.
PUBLISHED = [
    ("Mosaic, rmat-trillion (2^32 vertices, 10^12 edges), 1,000 hyper-threads, 6 NVMe",
     {"pagerank iteration": 1246.59, "bfs": 3941.50, "cc": 7369.39}),
    ("Sage, Hyperlink2012 (3.56·10^9 vertices, 2.26·10^11 arcs), 96 hyper-threads, Optane",
     {"bfs": 11.4, "cc": 36.2}),
]


def timed(argv: list, log_path: Path) -> dict:
    """Runs argv under /usr/bin/time: wall and CPU seconds, peak RSS; raises on failure."""
    log(" ".join(map(str, argv)))
    fmt = "%e %U %S %M"
    started = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-f", fmt, *map(str, argv)], capture_output=True, text=True)
    log_path.write_text(r.stderr)
    if r.returncode != 0:
        raise RuntimeError(f"{argv[2] if len(argv) > 2 else argv}: {r.stderr.strip().splitlines()[-2:]}")
    wall, user, sys_, rss = r.stderr.strip().splitlines()[-1].split()
    return {"wall_seconds": float(wall), "cpu_seconds": float(user) + float(sys_), "peak_rss_bytes": int(rss) * 1024,
            "process_seconds": time.monotonic() - started, "command": " ".join(map(str, argv))}


def manifest(store: Path) -> dict | None:
    try:
        return json.loads((store / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def store_bytes(store: Path) -> int:
    return sum(f.stat().st_size for f in store.iterdir() if f.is_file())


def build(args, scale: int) -> dict:
    """The store and its tiles for one scale, built unless present (then the recorded times)."""
    store = args.workdir / f"kron{scale}"
    record = args.workdir / f"kron{scale}.build.json"
    if record.exists() and (manifest(store) or {}).get("tiles"):
        return json.loads(record.read_text())
    edges = args.workdir / f"kron{scale}.bin32"
    logs = args.workdir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(args.binary), "--quiet", "generate", "kron", "--scale", str(scale), "--edge-list", str(edges),
                    "--force"], check=True)
    input_bytes = edges.stat().st_size
    budget = args.build_memory or max(64 << 20, input_bytes // 4)
    try:
        convert = timed([args.binary, "--quiet", "convert", edges, "--symmetrize", "--memory", budget, "-o", store,
                         "--force"], logs / f"kron{scale}-convert.log")
    finally:
        edges.unlink(missing_ok=True)
    tile = timed([args.binary, "--quiet", "tile", store, "--memory", budget], logs / f"kron{scale}-tile.log")
    m = manifest(store)
    row = {"scale": scale, "vertices": m["vertices"], "arcs": m["arcs"], "input_edges": input_bytes // 8,
           "input_bytes": input_bytes, "build_memory": budget, "store_bytes": store_bytes(store),
           "convert": convert, "tile": tile}
    record.write_text(json.dumps(row, indent=2))
    return row


def in_memory(args, store: Path, out_dir: Path) -> dict:
    rows = {}
    for name, algorithm, extra in KERNELS:
        stats = out_dir / f"{name}-in-memory.json"
        argv = [args.binary, "--quiet", "run", algorithm, store, "--trials", args.trials, "--threads", THREADS,
                "--stats", stats, "--force", *extra]
        log(" ".join(map(str, argv)))
        r = subprocess.run(list(map(str, argv)), capture_output=True, text=True)
        if r.returncode != 0:
            rows[name] = {"error": (r.stderr.strip().splitlines() or ["failed"])[-1]}
            continue
        s = json.loads(stats.read_text())
        trial = float(np.median(s["trial_seconds"]))
        rows[name] = {"seconds": trial, "core_seconds": trial * THREADS, "iterations": s.get("iterations"),
                           "command": " ".join(map(str, argv))}
    return rows


def out_of_core(args, store: Path, cgroup: Cgroup, out_dir: Path) -> dict:
    rows = {}
    for name, algorithm, extra in KERNELS:
        r = run_vastgraph(args.binary, algorithm, store, "adaptive", args.memory_bytes, [*extra, "--threads",
                          str(THREADS)], cgroup, True, out_dir, 0, label=name.removeprefix(algorithm))
        if "error" in r:
            rows[name] = {"error": r["error"]}
            continue
        rows[name] = {"seconds": r["wall_seconds"], "core_seconds": (r["compute_seconds"] or 0) * THREADS,
                           "bytes_read": r["bytes_read"], "iterations": r["iterations"],
                           "cgroup_peak_bytes": r["cgroup_peak_bytes"], "command": r["command"]}
    return rows


def series(results: dict) -> dict:
    """(kernel, mode) -> list of (arcs, seconds, core-seconds, bytes read); PageRank per iteration."""
    out: dict = {}
    for g in results["graphs"]:
        m = g["build"]["arcs"]
        c = g["build"]["convert"]
        out.setdefault(("conversion", "within a quarter of the input"), []).append(
            (m, c["wall_seconds"], c["cpu_seconds"], 3 * g["build"]["input_bytes"] + g["build"]["store_bytes"]))
        for mode in ("in_memory", "out_of_core"):
            for kernel, row in (g.get(mode) or {}).items():
                if "error" in row:
                    continue
                pagerank = kernel.startswith("pagerank")
                per = row["iterations"] if pagerank else 1
                name = kernel.replace("pagerank", "pagerank iteration") if pagerank else kernel
                out.setdefault((name, mode.replace("_", " ")), []).append(
                    (m, row["seconds"] / per, row["core_seconds"] / per, (row.get("bytes_read") or 0) / per))
    return out


def power_fit(xs, ys) -> tuple[float, float] | None:
    """(a, α) with y ≈ a·x^α, least squares in log-log; None with fewer than two positive points."""
    pts = [(x, y) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    lx, ly = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    alpha, log_a = np.polyfit(lx, ly, 1)
    return float(math.exp(log_a)), float(alpha)


def predict(points, target: dict, fit_points: int) -> dict:
    # The largest graphs only: the smaller ones fit the caches (and the budget) in ways a
    # larger graph does not.
    points = sorted(points)[-fit_points:]
    ms = [p[0] for p in points]
    fits = {"seconds": power_fit(ms, [p[1] for p in points]), "core_seconds": power_fit(ms, [p[2] for p in points]),
            "bytes": power_fit(ms, [p[3] for p in points])}
    M = target["arcs"]
    at = lambda f: f[0] * M ** f[1] if f else 0.0  # noqa: E731
    compute = at(fits["core_seconds"]) / (target["cores"] * target["efficiency"])
    io = at(fits["bytes"]) / (target["disks"] * target["disk_bytes_per_s"])
    return {"fits": fits, "compute_seconds": compute, "io_seconds": io, "seconds": max(compute, io),
            "bound": "reads" if io >= compute else "computing"}


def svg_plot(curves: dict, path: Path) -> None:
    """A log-log plot of seconds against arcs: measured points and fitted lines, one colour a curve."""
    w, h, left, right, top, bottom = 920, 460, 70, 380, 20, 50
    xs = [p[0] for pts in curves.values() for p in pts]
    ys = [p[1] for pts in curves.values() for p in pts if p[1] > 0]
    x0, x1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    px = lambda x: left + (math.log10(x) - x0) / (x1 - x0) * (w - left - right)  # noqa: E731
    py = lambda y: h - bottom - (math.log10(y) - y0) / (y1 - y0) * (h - top - bottom)  # noqa: E731
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
             f'font-size="12"><rect width="{w}" height="{h}" fill="white"/>']
    for e in range(x0, x1 + 1):
        parts.append(f'<line x1="{px(10**e):.1f}" y1="{top}" x2="{px(10**e):.1f}" y2="{h - bottom}" stroke="#ddd"/>'
                     f'<text x="{px(10**e):.1f}" y="{h - bottom + 16}" text-anchor="middle">1e{e}</text>')
    for e in range(y0, y1 + 1):
        parts.append(f'<line x1="{left}" y1="{py(10**e):.1f}" x2="{w - right}" y2="{py(10**e):.1f}" stroke="#ddd"/>'
                     f'<text x="{left - 6}" y="{py(10**e) + 4:.1f}" text-anchor="end">1e{e}</text>')
    parts.append(f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">arcs</text>'
                 f'<text x="16" y="{(top + h - bottom) / 2}" transform="rotate(-90 16 {(top + h - bottom) / 2})" '
                 f'text-anchor="middle">seconds</text>')
    for i, (name, pts) in enumerate(sorted(curves.items())):
        colour = colours[i % len(colours)]
        fit = power_fit([p[0] for p in pts], [p[1] for p in pts])
        if fit:
            a, alpha = fit
            lo, hi = min(p[0] for p in pts), max(p[0] for p in pts)
            parts.append(f'<line x1="{px(lo):.1f}" y1="{py(a * lo**alpha):.1f}" x2="{px(hi):.1f}" '
                         f'y2="{py(a * hi**alpha):.1f}" stroke="{colour}" stroke-width="1.5"/>')
        for x, y, *_ in pts:
            if y > 0:
                parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
        label = f"{name[0]}, {name[1]}" + (f" (α = {fit[1]:.2f})" if fit else "")
        ly = top + 14 + 18 * i
        parts.append(f'<rect x="{w - right + 10}" y="{ly - 9}" width="10" height="10" fill="{colour}"/>'
                     f'<text x="{w - right + 26}" y="{ly}">{label}</text>')
    parts.append("</svg>\n")
    path.write_text("\n".join(parts))


def report(results: dict, target: dict) -> str:
    lines = ["## Measured: 2 threads; out of core with --memory " + results["memory"] + ", cold, in a cgroup", "",
             "| scale | vertices | arcs | convert s | convert peak MiB | tile s | store GB | bfs s (mem / ooc) | "
             "cc s (mem / ooc) | PageRank s/iteration, tiles (mem / ooc) | PageRank s/iteration, lists (mem / ooc) | "
             "ooc GB read (bfs, cc, PR iteration) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for g in results["graphs"]:
        b = g["build"]
        mem, ooc = g.get("in_memory") or {}, g.get("out_of_core") or {}

        def cell(algorithm):
            per = lambda r: (r["seconds"] / (r["iterations"] if algorithm.startswith("pagerank") else 1)  # noqa: E731
                             if r and "seconds" in r else None)
            a, o = per(mem.get(algorithm)), per(ooc.get(algorithm))
            return f"{a:.3f} / {o:.3f}" if a is not None and o is not None else \
                f"{'—' if a is None else f'{a:.3f}'} / {'—' if o is None else f'{o:.3f}'}"

        reads = []
        for algorithm in ("bfs", "cc", "pagerank"):
            r = ooc.get(algorithm) or {}
            per = r.get("iterations") if algorithm == "pagerank" else 1
            reads.append(f"{r['bytes_read'] / (per or 1) / 1e9:.2f}" if r.get("bytes_read") is not None else "—")
        lines.append(f"| {b['scale']} | {b['vertices']:,} | {b['arcs']:,} | {b['convert']['wall_seconds']:.1f} | "
                     f"{b['convert']['peak_rss_bytes'] / 2**20:,.0f} | {b['tile']['wall_seconds']:.1f} | "
                     f"{b['store_bytes'] / 1e9:.2f} | {cell('bfs')} | {cell('cc')} | {cell('pagerank')} | {cell('pagerank-lists')} | "
                     f"{', '.join(reads)} |")
    seq = [(results.get(k) or {}).get("sequential", {}).get("MB_per_s") for k in ("fio_before", "fio_after")]
    lines += ["", "fio sequential (1 MiB, depth 32) before and after: " +
              ", ".join(f"{x:,.0f} MB/s" for x in seq if x) + ".", ""]
    t = target
    lines += [f"## The model and its prediction: {t['arcs']:.3g} arcs on {t['cores']} cores at efficiency "
              f"{t['efficiency']}, {t['disks']} disks of {t['disk_bytes_per_s'] / 1e9:g} GB/s", "",
              "| kernel | mode | time ∝ m^α | core-s ∝ m^α | bytes ∝ m^α | core-s / 10^9 arcs (largest) | "
              "predicted computing s | predicted reads s | predicted s | bound |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for (name, mode), p in sorted(results["predictions"].items()):
        f = p["fits"]
        pts = results["series"][f"{name}|{mode}"]
        largest = max(pts, key=lambda q: q[0])
        alpha = lambda k: f"{f[k][1]:.2f}" if f[k] else "—"  # noqa: E731
        lines.append(f"| {name} | {mode} | {alpha('seconds')} | {alpha('core_seconds')} | {alpha('bytes')} | "
                     f"{largest[2] / largest[0] * 1e9:.1f} | {p['compute_seconds']:,.0f} | {p['io_seconds']:,.0f} | "
                     f"**{p['seconds']:,.0f}** | {p['bound']} |")
    lines += ["", "Published, for comparison:", ""]
    for who, figures in PUBLISHED:
        lines.append(f"- {who}: " + ", ".join(f"{k} {v:,.1f} s" for k, v in figures.items()))
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", type=Path, default=Path("target/release/vastgraph"))
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--scales", default="20,22,23,24,25")
    ap.add_argument("--memory", default="1GiB", help="the out-of-core budget")
    ap.add_argument("--build-memory", type=parse_size, default=None,
                    help="convert's and tile's budget (default: a quarter of the edge list)")
    ap.add_argument("--in-memory-limit", type=parse_size, default=parse_size("12GiB"),
                    help="stores larger than this are not run in memory")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--fio-seconds", type=int, default=10)
    ap.add_argument("--target-arcs", type=float, default=1e12)
    ap.add_argument("--target-cores", type=int, default=64)
    ap.add_argument("--target-disks", type=int, default=8)
    ap.add_argument("--target-disk-gbps", type=float, default=3.0, help="sequential GB/s of one target disk")
    ap.add_argument("--efficiency", type=float, default=0.5)
    ap.add_argument("--fit-points", type=int, default=3, help="the prediction fits the largest N graphs")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--svg", type=Path)
    args = ap.parse_args()
    args.binary = args.binary.resolve()
    args.workdir.mkdir(parents=True, exist_ok=True)
    args.memory_bytes = parse_size(args.memory)
    target = {"arcs": args.target_arcs, "cores": args.target_cores, "disks": args.target_disks,
              "disk_bytes_per_s": args.target_disk_gbps * 1e9, "efficiency": args.efficiency}
    results = {"binary": str(args.binary), "memory": args.memory, "target": target, "graphs": []}
    scales = [int(s) for s in args.scales.split(",")]
    for scale in scales:
        results["graphs"].append({"build": build(args, scale)})
    largest = args.workdir / f"kron{max(scales)}"
    results["fio_before"] = fio(largest / "neighbors.u32", args.fio_seconds) if args.fio_seconds > 0 else {}
    cgroup = Cgroup(args.memory_bytes + CGROUP_SLACK)
    try:
        for g in results["graphs"]:
            store = args.workdir / f"kron{g['build']['scale']}"
            out_dir = args.workdir / "runs" / store.name
            out_dir.mkdir(parents=True, exist_ok=True)
            if g["build"]["store_bytes"] <= args.in_memory_limit:
                g["in_memory"] = in_memory(args, store, out_dir)
            g["out_of_core"] = out_of_core(args, store, cgroup, out_dir)
            if args.json:
                args.json.write_text(json.dumps(results, indent=2, default=str))
    finally:
        cgroup.remove()
    results["fio_after"] = fio(largest / "neighbors.u32", args.fio_seconds) if args.fio_seconds > 0 else {}
    curves = series(results)
    results["series"] = {f"{k[0]}|{k[1]}": v for k, v in curves.items()}
    results["predictions"] = {k: predict(v, target, args.fit_points) for k, v in curves.items()
                              if k[1] != "in memory"}
    if args.svg:
        svg_plot(curves, args.svg)
    if args.json:
        js = dict(results, predictions={f"{k[0]}|{k[1]}": v for k, v in results["predictions"].items()})
        args.json.write_text(json.dumps(js, indent=2, default=str))
    print(report(results, target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
