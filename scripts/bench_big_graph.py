#!/usr/bin/env python3
"""A graph past 2^32 arcs, built and analysed within a memory budget, each result checked.

Step `build`: `vastgraph generate uniform --symmetrize` (default 2^27 vertices, 2.26 billion
edges, so about 4.52 billion arcs) with `--memory BUDGET`, from a cold cache, inside a
cgroup-v1 memory cgroup limited to the budget plus a slack. Reported: wall time, the cgroup's
peak, the builder's own disk estimate (from its log) and the disk the build held at its peak,
sampled every half second from the file system's free space.

Step `kernels`: bfs, cc, pagerank (5 iterations) and kcore with `--memory BUDGET`, each from a
cold cache in the same cgroup. Reported: time, bytes read, MB/s, and the ratio to the disk's
floor (bytes read / fio's or dd's sequential bandwidth, measured in the same run, before and
after the kernels). Each result is checked on a sample of vertices, since the graph's own
checkers would need the whole graph in memory:
- bfs: every arc of a sampled reached vertex u leads to a vertex at distance ≤ d(u) + 1, and u
  has a neighbour at d(u) − 1 (the graph is symmetric, so in-neighbours are neighbours);
- cc: every neighbour of a sampled vertex has its label, and the label is the smallest id of
  the component (the labelled vertex carries its own label);
- pagerank: the one-step identity p₅[v] = (1 − d)/n + d·(Σ_{u∈N(v)} p₄[u]/deg(u) + D₄/n) on the
  sample, with p₄ from a second, unmeasured run of 4 iterations;
- kcore: a vertex's core number is the h-index of its neighbours' core numbers (the fixed point
  that characterises coreness), on the sample.

Typical use (root, for drop_caches and the cgroup; about 57 GB of free disk for the build):

    scripts/bench_big_graph.py --store /data/uniform-4.5b --out /tmp/big-bench

Results go to OUT/results.json and a markdown table to stdout.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import numpy as np

from bench_out_of_core import Cgroup, drop_caches, fio, log, parse_size, run_vastgraph

ROOT = Path(__file__).resolve().parent.parent


class DiskPeak:
    """Sampled while a build of `store` runs: the most disk its file system had in use beyond
    its use at start, and the most its sorted runs held (the temporary directories beside the
    store, `.NAME.*runs*`; the staged store `.NAME.tmp-*` is not counted)."""

    def __init__(self, store: Path, interval: float = 0.5):
        self.store, self.interval = store, interval
        self.start = shutil.disk_usage(store.parent).used
        self.peak = self.runs_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _runs_bytes(self) -> int:
        total = 0
        for d in self.store.parent.glob(f".{self.store.name}.*runs*"):
            try:
                total += sum(f.stat().st_blocks * 512 for f in d.iterdir())
            except OSError:  # a run removed while counted
                pass
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, shutil.disk_usage(self.store.parent).used - self.start)
            self.runs_peak = max(self.runs_peak, self._runs_bytes())
            self._stop.wait(self.interval)

    def stop(self) -> tuple[int, int]:
        self._stop.set()
        self._thread.join()
        return self.peak, self.runs_peak


def du_bytes(path: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file())


def build(args, cgroup: Cgroup) -> dict:
    argv = [str(args.binary), "generate", "uniform", "--symmetrize", "--vertices", str(args.vertices),
            "--edges", str(args.edges), "--seed", str(args.seed), "--memory", args.memory,
            "-o", str(args.store), "--force"]
    if args.store.exists():
        shutil.rmtree(args.store)
    dropped = drop_caches()
    cgroup.reset_peak()
    disk = DiskPeak(args.store)
    log(" ".join(argv))
    started = time.monotonic()
    # The progress bar is off when stderr is not a terminal; the periodic lines stay.
    r = subprocess.run(cgroup.wrap(argv), capture_output=True, text=True)
    elapsed = time.monotonic() - started
    peak_disk, runs_peak = disk.stop()
    (args.out / "build.stderr").write_text(r.stderr)
    row = {"command": " ".join(argv), "cold_cache": dropped, "seconds": elapsed, "exit": r.returncode,
           "cgroup_peak_bytes": cgroup.peak(), "oom_kills": cgroup.oom_kills(),
           "peak_disk_bytes": peak_disk, "runs_peak_bytes": runs_peak}
    if r.returncode != 0:
        row["error"] = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
        log(f"build failed: {row['error']}")
        return row
    manifest = json.loads((args.store / "manifest.json").read_text())
    row["store_bytes"] = du_bytes(args.store)
    row["arcs"] = manifest.get("num_edges") or manifest.get("arcs")
    row["vertices"] = manifest.get("num_vertices") or manifest.get("vertices")
    row["edges_per_second"] = args.edges / elapsed
    estimate = re.search(r"the build holds[^\n]*", r.stderr)
    row["builder_disk_line"] = estimate.group(0) if estimate else None
    log(f"built in {elapsed:.0f} s: {row['arcs']} arcs, cgroup peak {row['cgroup_peak_bytes']}, "
        f"disk peak {peak_disk / 1e9:.1f} GB")
    return row


# --------------------------------------------------------------------------------------
# Sampled checks: the store's lists read through numpy memory maps.


class Store:
    def __init__(self, path: Path):
        self.offsets = np.memmap(path / "offsets.u64", dtype="<u8", mode="r")
        self.neighbors = np.memmap(path / "neighbors.u32", dtype="<u4", mode="r")
        self.n = len(self.offsets) - 1

    def list(self, v: int) -> np.ndarray:
        return np.asarray(self.neighbors[int(self.offsets[v]):int(self.offsets[v + 1])])

    def degrees(self) -> np.ndarray:
        return np.diff(np.asarray(self.offsets)).astype(np.int64)


def check_bfs(store: Store, dist: np.ndarray, sample: np.ndarray, source: int) -> list[str]:
    errors = []
    if dist[source] != 0:
        errors.append(f"source {source} has distance {dist[source]}")
    for u in sample:
        du, ns = int(dist[u]), store.list(u)
        dn = dist[ns]
        if du < 0:
            if len(ns) and (dn >= 0).any():
                errors.append(f"vertex {u} unreached but a neighbour is reached")
            continue
        if (dn < 0).any() or (dn > du + 1).any():
            errors.append(f"vertex {u} at {du} has a neighbour unreached or further than {du + 1}")
        if u != source and not (dn == du - 1).any():
            errors.append(f"vertex {u} at {du} has no neighbour at {du - 1}")
    return errors


def check_cc(store: Store, label: np.ndarray, sample: np.ndarray) -> list[str]:
    errors = []
    for u in sample:
        ns = store.list(u)
        if (label[ns] != label[u]).any():
            errors.append(f"vertex {u} and a neighbour have different labels")
        lab = int(label[u])
        if lab > u or label[lab] != lab:
            errors.append(f"vertex {u}'s label {lab} is not the smallest id of its component")
    return errors


def check_pagerank(store: Store, p4: np.ndarray, p5: np.ndarray, sample: np.ndarray, damping: float) -> list[str]:
    deg = store.degrees()
    n = store.n
    dangling = float(p4[deg == 0].sum())
    contribution = np.zeros(n)
    nz = deg > 0
    contribution[nz] = p4[nz] / deg[nz]
    del deg
    errors = []
    worst = 0.0
    for v in sample:
        expected = (1 - damping) / n + damping * (contribution[store.list(v)].sum() + dangling / n)
        rel = abs(expected - p5[v]) / max(expected, 1e-300)
        worst = max(worst, rel)
        if rel > 1e-9:
            errors.append(f"vertex {v}: p5 = {p5[v]!r}, the rule gives {expected!r}")
    log(f"pagerank: worst relative difference on the sample {worst:.2e}")
    return errors


def check_kcore(store: Store, core: np.ndarray, sample: np.ndarray) -> list[str]:
    errors = []
    for v in sample:
        c = np.sort(core[store.list(v)])[::-1]
        h = int((c >= np.arange(1, len(c) + 1)).sum())
        if h != core[v]:
            errors.append(f"vertex {v}: core {core[v]}, its neighbours' h-index {h}")
    return errors


# --------------------------------------------------------------------------------------


def run_kernel(args, cgroup: Cgroup, name: str, algorithm: str, extra: list[str]) -> dict:
    """One kernel, adaptive, cold, in the cgroup, its result written to OUT/NAME.npy."""
    row = run_vastgraph(args.binary, algorithm, args.store, "adaptive", parse_size(args.memory),
                        ["--output", str(args.out / f"{name}.npy"), *extra], cgroup, True, args.out, name)
    row["kernel"] = name
    return row


def kernels(args, cgroup: Cgroup, results: dict) -> None:
    store = Store(args.store)
    rng = np.random.default_rng(args.seed)
    sample = np.sort(rng.choice(store.n, size=min(args.sample, store.n), replace=False))
    results["device_before"] = fio(args.store / "neighbors.u32", 10)
    rows = results["kernels"] = []
    plan = [("bfs", "bfs", []), ("cc", "cc", []),
            ("pagerank", "pagerank", ["--max-iters", "5", "--tolerance", "0"]),
            ("kcore", "kcore", [])]
    for name, algorithm, extra in [k for k in plan if k[0] in args.kernels.split(",")]:
        row = run_kernel(args, cgroup, name, algorithm, extra)
        rows.append(row)
        if row["exit"] != 0:
            continue
        result = np.load(args.out / f"{name}.npy", mmap_mode="r")
        started = time.monotonic()
        if name == "bfs":
            source = int(np.flatnonzero(np.asarray(result) == 0)[0])
            errors = check_bfs(store, result, sample, source)
        elif name == "cc":
            errors = check_cc(store, result, sample)
        elif name == "pagerank":
            # p4 from an unmeasured run of one iteration fewer, out of core like the measured one.
            p4_row = run_kernel(args, cgroup, "pagerank-4", "pagerank", ["--max-iters", "4", "--tolerance", "0"])
            if p4_row["exit"] != 0:
                errors = [f"the 4-iteration run failed: {p4_row.get('error')}"]
            else:
                p4 = np.load(args.out / "pagerank-4.npy")
                errors = check_pagerank(store, p4, np.asarray(result), sample, 0.85)
        else:
            errors = check_kcore(store, result, sample)
        row["sample"] = len(sample)
        row["check_seconds"] = time.monotonic() - started
        row["check_errors"] = errors[:10]
        row["checked"] = not errors
        log(f"{name}: {'checked' if not errors else 'FAILED: ' + errors[0]} on {len(sample)} vertices")
        (args.out / "results.json").write_text(json.dumps(results, indent=2))
    results["device_after"] = fio(args.store / "neighbors.u32", 10)
    seq = max(results[k].get("sequential", {}).get("MB_per_s", 0) for k in ["device_before", "device_after"])
    for row in rows:
        if row.get("bytes_read") and seq:
            row["floor_seconds"] = row["bytes_read"] / (seq * 1e6)
            row["ratio_to_floor"] = row["wall_seconds"] / row["floor_seconds"]


def table(results: dict) -> str:
    lines = []
    b = results.get("build")
    if b:
        lines += ["| build | seconds | edges/s | cgroup peak GiB | disk peak GB | runs peak GB | store GB | arcs |",
                  "|---|---|---|---|---|---|---|---|",
                  f"| generate | {b['seconds']:.0f} | {b.get('edges_per_second', 0) / 1e6:.1f}M | "
                  f"{(b['cgroup_peak_bytes'] or 0) / 2**30:.2f} | {b['peak_disk_bytes'] / 1e9:.1f} | "
                  f"{b.get('runs_peak_bytes', 0) / 1e9:.1f} | "
                  f"{b.get('store_bytes', 0) / 1e9:.1f} | {b.get('arcs')} |", ""]
        if b.get("builder_disk_line"):
            lines += [f"The builder's estimate: {b['builder_disk_line']}", ""]
    rows = results.get("kernels", [])
    if rows:
        lines += ["| kernel | wall s | iterations | GB read | MB/s | floor s | × floor | cgroup peak GiB | checked |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            if r["exit"] != 0:
                lines.append(f"| {r['kernel']} | failed: {r.get('error')} |||||||")
                continue
            lines.append(
                f"| {r['kernel']} | {r['wall_seconds']:.1f} | {r.get('iterations')} | "
                f"{(r.get('bytes_read') or 0) / 1e9:.1f} | {r.get('read_mb_per_s') or 0:.0f} | "
                f"{r.get('floor_seconds', 0):.1f} | {r.get('ratio_to_floor', 0):.2f} | "
                f"{(r['cgroup_peak_bytes'] or 0) / 2**30:.2f} | "
                f"{'yes' if r.get('checked') else 'NO'} ({r.get('sample')} vertices) |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "vastgraph")
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--steps", default="build,kernels")
    ap.add_argument("--vertices", type=int, default=1 << 27)
    ap.add_argument("--edges", type=int, default=2_260_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--memory", default="4GiB")
    ap.add_argument("--cgroup-slack", default="256MiB",
                    help="the cgroup limit is the budget plus this (the process itself: code, threads)")
    ap.add_argument("--sample", type=int, default=10_000)
    ap.add_argument("--kernels", default="bfs,cc,pagerank,kcore", help="which kernels the step runs")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results_path = args.out / "results.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    cgroup = Cgroup(parse_size(args.memory) + parse_size(args.cgroup_slack))
    try:
        steps = args.steps.split(",")
        if "build" in steps:
            results["build"] = build(args, cgroup)
            results_path.write_text(json.dumps(results, indent=2))
            if results["build"]["exit"] != 0:
                return 1
        if "kernels" in steps:
            kernels(args, cgroup, results)
            results_path.write_text(json.dumps(results, indent=2))
    finally:
        cgroup.remove()
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
