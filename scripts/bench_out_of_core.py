#!/usr/bin/env python3
"""Out-of-core benchmark: `vastgraph run ALGO STORE --memory BUDGET` with each I/O mode
(selective only, streaming only, adaptive), cold page cache, inside a cgroup-v1 memory cgroup
limited slightly above the budget. Reports time, bytes read, I/O amplification, MB/s, peak RSS
and the cgroup's peak usage per run, plus fio numbers of the device, taken before and after the
runs, for reference (the faster sets the targets).

Typical use (root, for drop_caches and the cgroup):

    vastgraph generate kron --scale 25 --symmetrize -o /tmp/kron25s
    scripts/bench_out_of_core.py --store /tmp/kron25s --memory 1GiB --out /tmp/ooc-bench

Without root the runs still happen, warm-cache and without a cgroup, and the table says so.
`--baseline-binary` names another vastgraph build (say, of an earlier commit): each of its runs
follows the same run of `--binary` in the same round, mode, cgroup and cache state, and the
medians of the pairs are compared (a regression check on a host whose disk drifts).
Without fio, `dd iflag=direct` gives the sequential reference, before and after the runs.
A peer system can be run on the same store by setting VASTGRAPH_OOC_PEER to a command template
with {algorithm} and {store} placeholders (it is run as is, timed, and its peak RSS taken from
/usr/bin/time when present); nothing else is run or downloaded.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNITS = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30}


def parse_size(text: str) -> int:
    t = text.strip().lower()
    num = t.rstrip("kmgib")
    return int(float(num) * UNITS[t[len(num):]])


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def drop_caches() -> bool:
    try:
        subprocess.run(["sync"], check=True)
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError as e:
        log(f"cannot drop caches ({e}): runs are warm-cache")
        return False


class Cgroup:
    """A cgroup-v1 memory cgroup (None-like when unavailable)."""

    def __init__(self, limit: int | None):
        root = Path("/sys/fs/cgroup/memory")
        self.path = root / f"vastgraph-ooc-bench-{os.getpid()}"
        self.ok = False
        if limit is None:  # unconfined
            return
        try:
            self.path.mkdir()
            (self.path / "memory.limit_in_bytes").write_text(str(limit))
            self.ok = True
        except OSError as e:
            log(f"no memory cgroup ({e}): runs are not confined")

    def reset_peak(self) -> None:
        if self.ok:
            try:
                (self.path / "memory.max_usage_in_bytes").write_text("0")
            except OSError:
                pass

    def peak(self) -> int | None:
        if not self.ok:
            return None
        return int((self.path / "memory.max_usage_in_bytes").read_text())

    def oom_kills(self) -> int:
        if not self.ok:
            return 0
        for line in (self.path / "memory.oom_control").read_text().splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
        return 0

    def wrap(self, argv: list[str]) -> list[str]:
        if not self.ok:
            return argv
        return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', str(self.path), *argv]

    def remove(self) -> None:
        if self.ok:
            try:
                self.path.rmdir()
            except OSError:
                pass


def dd_sequential(path: Path) -> dict:
    """Up to 2 GiB of `path` read by dd with O_DIRECT in 4 MiB blocks: the sequential reference
    when fio is missing."""
    argv = ["dd", f"if={path}", "of=/dev/null", "bs=4M", "count=512", "iflag=direct"]
    log(" ".join(argv))
    started = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    if r.returncode != 0:
        log(f"dd failed: {r.stderr.strip()}")
        return {}
    read = min(path.stat().st_size, 512 * (4 << 20))
    return {"sequential": {"MB_per_s": read / elapsed / 1e6, "iops": read / (4 << 20) / elapsed,
                           "command": " ".join(argv)}}


def fio(path: Path, seconds: int) -> dict:
    """Sequential 1 MiB reads at depth 32 and random 4 KiB reads at depth 64, O_DIRECT, read-only."""
    exe = shutil.which("fio")
    if exe is None:
        log("fio is not installed (apt-get install fio): dd gives the sequential reference")
        return dd_sequential(path)
    out = {}
    for name, rw, bs, depth in [("sequential", "read", "1M", 32), ("random", "randread", "4k", 64)]:
        argv = [exe, f"--name={name}", f"--filename={path}", "--readonly", f"--rw={rw}", f"--bs={bs}",
                f"--iodepth={depth}", "--ioengine=io_uring", "--direct=1", f"--runtime={seconds}",
                "--time_based", "--output-format=json"]
        log(" ".join(shlex.quote(a) for a in argv))
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            log(f"fio failed: {r.stderr.strip()}")
            continue
        job = json.loads(r.stdout)["jobs"][0]["read"]
        out[name] = {"MB_per_s": job["bw_bytes"] / 1e6, "iops": job["iops"], "command": " ".join(argv)}
    return out


def run_vastgraph(binary: Path, algorithm: str, store: Path, mode: str, budget: int, extra: list[str],
                  cgroup: Cgroup, cold: bool, out_dir: Path, round_, verify: bool = False,
                  label: str = "") -> dict:
    stats_path = out_dir / f"{algorithm}-{mode}{label.replace(', ', '-')}-{round_}.json"
    argv = [str(binary), "--quiet", "run", algorithm, str(store), "--memory", str(budget),
            "--io-mode", mode, "--stats", str(stats_path), "--force", *extra, *(["--verify"] if verify else [])]
    dropped = drop_caches() if cold else False
    cgroup.reset_peak()
    log(" ".join(shlex.quote(a) for a in argv))
    started = time.monotonic()
    r = subprocess.run(cgroup.wrap(argv), capture_output=True, text=True)
    elapsed = time.monotonic() - started
    (out_dir / f"{algorithm}-{mode}{label.replace(', ', '-')}-{round_}.stderr").write_text(r.stderr)
    row = {"algorithm": algorithm, "mode": f"{mode}, verified" if verify else f"{mode}{label}",
           "command": " ".join(argv),
           "cold_cache": dropped,
           "process_seconds": elapsed, "exit": r.returncode, "cgroup_peak_bytes": cgroup.peak(),
           "oom_kills": cgroup.oom_kills()}
    if r.returncode != 0:
        row["error"] = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
        log(f"failed: {row['error']}")
        return row
    s = json.loads(stats_path.read_text())
    for key in ["wall_seconds", "load_seconds", "iterations", "bytes_read", "io_requests", "read_mb_per_s",
                "io_amplification", "io_wait_seconds", "compute_seconds", "peak_rss_bytes", "iteration_modes",
                "verified", "verify_seconds"]:
        row[key] = s.get(key)
    # BFS on a symmetric graph records whether each level pushed or pulled.
    row["directions"] = (s.get("extra") or {}).get("directions")
    row["summary"] = r.stderr.strip().splitlines()[-1]
    return row


def run_page_cache(binary: Path, algorithm: str, store: Path, extra: list[str], cgroup: Cgroup,
                   cold: bool, out_dir: Path, timeout: float) -> dict:
    """The same run without --memory inside the same cgroup: the mapped store through a page
    cache the cgroup bounds. Stopped after `timeout` seconds (the row then gives a lower bound)."""
    stats_path = out_dir / f"{algorithm}-page-cache.json"
    argv = [str(binary), "--quiet", "run", algorithm, str(store), "--stats", str(stats_path), "--force", *extra]
    dropped = drop_caches() if cold else False
    cgroup.reset_peak()
    log(" ".join(shlex.quote(a) for a in argv) + " (page cache, in the cgroup)")
    started = time.monotonic()
    row = {"algorithm": algorithm, "mode": "page cache", "command": " ".join(argv), "cold_cache": dropped}
    try:
        r = subprocess.run(cgroup.wrap(argv), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        row.update(process_seconds=time.monotonic() - started, exit=None, timed_out=True,
                   wall_seconds=None, cgroup_peak_bytes=cgroup.peak())
        return row
    row.update(process_seconds=time.monotonic() - started, exit=r.returncode, cgroup_peak_bytes=cgroup.peak())
    if r.returncode != 0:
        row["error"] = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
        return row
    s = json.loads(stats_path.read_text())
    for key in ["wall_seconds", "iterations", "peak_rss_bytes"]:
        row[key] = s.get(key)
    return row


def warm_page_cache(store: Path) -> None:
    """Reads every file of the store once so that the in-memory reference runs from the page cache."""
    for f in sorted(store.iterdir()):
        with open(f, "rb") as fh:
            while fh.read(1 << 24):
                pass


def run_in_memory(binary: Path, algorithm: str, store: Path, extra: list[str], trials: int, out_dir: Path) -> dict:
    """The reference: the same run without --memory, the graph mapped from a warm page cache."""
    stats_path = out_dir / f"{algorithm}-in-memory.json"
    argv = [str(binary), "--quiet", "run", algorithm, str(store), "--trials", str(trials),
            "--stats", str(stats_path), "--force", *extra]
    warm_page_cache(store)
    log(" ".join(shlex.quote(a) for a in argv))
    started = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True)
    row = {"algorithm": algorithm, "mode": "in-memory (warm)", "command": " ".join(argv), "cold_cache": False,
           "process_seconds": time.monotonic() - started, "exit": r.returncode}
    if r.returncode != 0:
        row["error"] = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
        log(f"failed: {row['error']}")
        return row
    s = json.loads(stats_path.read_text())
    for key in ["wall_seconds", "iterations", "peak_rss_bytes"]:
        row[key] = s.get(key)
    return row


def run_peer(template: str, algorithm: str, store: Path, cold: bool, out_dir: Path) -> dict:
    cmd = template.format(algorithm=algorithm, store=store)
    argv = shlex.split(cmd)
    time_bin = Path("/usr/bin/time")
    if time_bin.exists():
        argv = [str(time_bin), "-f", "MAXRSS_KIB=%M", *argv]
    dropped = drop_caches() if cold else False
    started = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True)
    row = {"algorithm": algorithm, "mode": "peer", "command": cmd, "cold_cache": dropped,
           "process_seconds": time.monotonic() - started, "exit": r.returncode}
    for line in r.stderr.splitlines():
        if line.startswith("MAXRSS_KIB="):
            row["peak_rss_bytes"] = int(line.split("=")[1]) * 1024
    (out_dir / f"{algorithm}-peer.stderr").write_text(r.stderr)
    return row


def ratio(a, b):
    return None if a is None or not b else a / b


def median(xs: list[float]) -> float | None:
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def medians(runs: list[dict]) -> dict:
    """(algorithm, mode) -> median kernel seconds over the rounds that succeeded."""
    times: dict = {}
    for r in runs:
        if not r.get("exit"):
            times.setdefault((r["algorithm"], r["mode"]), []).append(r.get("wall_seconds"))
    return {k: median(v) for k, v in times.items()}


def adaptive_against_fixed(results: dict) -> list[str]:
    """Adaptive's median kernel time over each fixed mode's, per algorithm (below 1: adaptive
    was faster), with the rounds behind each median."""
    m = medians(results["runs"])
    rounds = {}
    for r in results["runs"]:
        if not r.get("exit"):
            rounds[(r["algorithm"], r["mode"])] = rounds.get((r["algorithm"], r["mode"]), 0) + 1
    out = []
    for algorithm in dict.fromkeys(r["algorithm"] for r in results["runs"]):
        a = m.get((algorithm, "adaptive"))
        fixed = [(mode, m.get((algorithm, mode))) for mode in ("selective", "streaming")]
        if a is None or any(t is None for _, t in fixed):
            continue
        parts = ", ".join(f"{a / t:.2f}× {mode} ({t:.2f} s)" for mode, t in fixed)
        n = rounds[(algorithm, "adaptive")]
        # Where every mode ran the same passes (cc's scans always stream), the times differ
        # only by the host's noise.
        plans = {tuple(r.get("iteration_modes") or []) for r in results["runs"]
                 if r["algorithm"] == algorithm and r["mode"] in ("adaptive", "selective", "streaming")
                 and not r.get("exit")}
        verdict = (" (the same passes in every mode)" if len(plans) == 1
                   else " (beats both)" if all(a < t for _, t in fixed) else "")
        out.append(f"{algorithm} adaptive, median of {n}: {a:.2f} s = {parts}{verdict}")
    return out


def targets(results: dict, edge_bytes: int) -> list[str]:
    """The issue's targets, measured: dense passes against fio's sequential bandwidth, BFS and
    CC against their in-memory time, a PageRank iteration against edge bytes / bandwidth."""
    # The disk's speed drifts from minute to minute on a shared host: fio runs before and after
    # the runs, and the faster figure sets the targets (the stricter reading of each).
    seqs = [(f.get("sequential") or {}).get("MB_per_s") for f in (results["fio"], results.get("fio_after", {}))]
    seq = max((x for x in seqs if x), default=None)
    runs = [r for r in results["runs"] if not r.get("exit")]
    reference = {r["algorithm"]: r.get("wall_seconds") for r in runs if r["mode"].startswith("in-memory")}
    out = []
    for r in runs:
        # Dense passes: a run in streaming mode, or one whose every pass streamed (pagerank).
        dense = r["mode"] == "streaming" or (r["mode"] == "adaptive"
                                             and set(r.get("iteration_modes") or []) == {"streaming"})
        if dense and r.get("read_mb_per_s") and seq:
            out.append(f"{r['algorithm']} {r['mode']}, dense passes: {r['read_mb_per_s']:,.0f} MB/s = "
                       f"{100 * r['read_mb_per_s'] / seq:.0f}% of fio sequential (target ≥ 80%)")
        if r["algorithm"] in ("bfs", "cc") and r["mode"] == "adaptive":
            x = ratio(r.get("wall_seconds"), reference.get(r["algorithm"]))
            if x is not None:
                out.append(f"{r['algorithm']} adaptive: {x:.2f}× in-memory (target ≤ 2×)")
        if r["algorithm"] == "pagerank" and r["mode"] == "adaptive" and seq and r.get("iterations"):
            per_iteration = r["wall_seconds"] / r["iterations"]
            floor = edge_bytes / (seq * 1e6)
            out.append(f"pagerank adaptive: {per_iteration:.2f} s per iteration = {per_iteration / floor:.2f}× "
                       f"(edge bytes / fio sequential = {floor:.2f} s) (target ≤ 1.3×)")
    return out


def against_baseline(results: dict) -> list[str]:
    """Per algorithm and mode: the median kernel time of `--binary` over that of
    `--baseline-binary`, from the same rounds."""
    m = medians(results["runs"])
    out = []
    for (algorithm, mode), base in m.items():
        if not mode.endswith(", baseline"):
            continue
        own = m.get((algorithm, mode.removesuffix(", baseline")))
        if own is None or not base:
            continue
        n = sum(1 for r in results["runs"] if r["algorithm"] == algorithm and r["mode"] == mode
                and not r.get("exit"))
        out.append(f"{algorithm} {mode.removesuffix(', baseline')}: {own:.3f} s against the baseline's "
                   f"{base:.3f} s = {own / base:.3f}× (medians of {n} rounds)")
    return out


def checked(results: dict) -> list[str]:
    """One line per verified run: what the kernel's checker said, and how long it took."""
    out = []
    for r in results["runs"]:
        if not r["mode"].endswith(", verified"):
            continue
        if r.get("exit") or not r.get("verified"):
            out.append(f"{r['algorithm']}: NOT verified ({r.get('error', 'the run reported no check')})")
        else:
            out.append(f"{r['algorithm']}: the out-of-core result is verified by its checker "
                       f"({r['verify_seconds']:.1f} s)")
    return out


def mib(x) -> str:
    return "—" if x is None else f"{x / (1 << 20):,.0f}"


def table(rows: list[dict]) -> str:
    lines = ["| algorithm | mode | kernel s | × in-memory | process s | iterations | GiB read | amplification | "
             "MB/s | I/O wait s | compute s | peak RSS MiB | cgroup peak MiB | modes |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    reference = {r["algorithm"]: r.get("wall_seconds") for r in rows
                 if r["mode"].startswith("in-memory") and not r.get("exit")}
    for r in rows:
        if r.get("exit"):
            lines.append(f"| {r['algorithm']} | {r['mode']} | failed: {r.get('error', '')} ||||||||||||")
            continue
        modes = r.get("iteration_modes") or []
        directions = r.get("directions") or []
        compact = []
        for i, m in enumerate(modes):
            short = {"selective": "sel", "streaming": "str"}.get(m, m)
            if i < len(directions):
                short = f"{directions[i]}/{short}"
            if compact and compact[-1][0] == short:
                compact[-1][1] += 1
            else:
                compact.append([short, 1])
        fmt = lambda v, f: "—" if v is None else format(v, f)
        if r.get("timed_out"):
            lines.append(f"| {r['algorithm']} | {r['mode']} | > {r['process_seconds']:.0f} (stopped) |"
                         f" > {fmt(ratio(r['process_seconds'], reference.get(r['algorithm'])), '.0f')} ||||||||||||")
            continue
        lines.append(
            f"| {r['algorithm']} | {r['mode']} | {fmt(r.get('wall_seconds'), '.2f')} | "
            f"{fmt(ratio(r.get('wall_seconds'), reference.get(r['algorithm'])), '.2f')} | {r['process_seconds']:.2f} | "
            f"{r.get('iterations', '—')} | {fmt((r.get('bytes_read') or 0) / (1 << 30), '.2f')} | "
            f"{fmt(r.get('io_amplification'), '.2f')} | {fmt(r.get('read_mb_per_s'), ',.0f')} | "
            f"{fmt(r.get('io_wait_seconds'), '.2f')} | {fmt(r.get('compute_seconds'), '.2f')} | "
            f"{mib(r.get('peak_rss_bytes'))} | {mib(r.get('cgroup_peak_bytes'))} | "
            f"{' '.join(f'{m}×{c}' if c > 1 else m for m, c in compact)} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "vastgraph")
    ap.add_argument("--memory", default="1GiB", help="the budget given to --memory")
    ap.add_argument("--cgroup-slack", default="64MiB",
                    help="the cgroup limit is the budget plus this (the process itself: code, threads)")
    ap.add_argument("--algorithms", default="bfs,cc,pagerank,sssp")
    ap.add_argument("--in-memory-trials", type=int, default=3,
                    help="trials of the in-memory reference run (warm page cache, no budget); 0 skips it")
    ap.add_argument("--modes", default="selective,streaming,adaptive")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run every mode this many times, the modes alternating within each round; "
                         "adaptive is compared with each fixed mode by the medians")
    ap.add_argument("--pagerank-iters", type=int, default=10)
    ap.add_argument("--warm", action="store_true", help="do not drop the page cache before each run")
    ap.add_argument("--fio-seconds", type=int, default=10, help="0 skips fio")
    ap.add_argument("--out", type=Path, default=Path("/tmp/vastgraph-ooc-bench"))
    ap.add_argument("--page-cache", default="",
                    help="algorithms also run without --memory in the same cgroup, cold (the page-cache path)")
    ap.add_argument("--page-cache-timeout", type=float, default=900,
                    help="seconds after which a page-cache run is stopped and reported as a lower bound")
    ap.add_argument("--baseline-binary", type=Path, default=None,
                    help="another vastgraph build, run after each run of --binary in the same round and mode")
    ap.add_argument("--no-verify", action="store_true",
                    help="skip the extra run per kernel (adaptive, cold, in the cgroup) whose result the "
                         "kernel's checker verifies; it is not counted in the timings")
    args = ap.parse_args()
    # A SIGTERM (e.g. from `timeout`) still removes the cgroup, through the `finally` below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    budget = parse_size(args.memory)
    limit = budget + parse_size(args.cgroup_slack)
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.binary.exists():
        log(f"{args.binary} is missing: cargo build --release -p vastgraph-cli")
        return 2
    manifest = json.loads((args.store / "manifest.json").read_text())
    results = {"store": str(args.store), "vertices": manifest["vertices"], "arcs": manifest["arcs"],
               "budget_bytes": budget, "cgroup_limit_bytes": limit, "runs": []}
    lists = next((args.store / name for name in ("neighbors.u32", "neighbors.bc64")
                  if (args.store / name).exists()), args.store / "neighbors.u32")
    results["fio"] = fio(lists, args.fio_seconds) if args.fio_seconds > 0 else {}
    cgroup = Cgroup(limit)
    try:
        for algorithm in args.algorithms.split(","):
            extra = ["--max-iters", str(args.pagerank_iters), "--tolerance", "0"] if algorithm == "pagerank" else []
            for round_ in range(args.rounds):
                for mode in args.modes.split(","):
                    row = run_vastgraph(args.binary, algorithm, args.store, mode, budget, extra, cgroup,
                                        not args.warm, args.out, round_)
                    row["round"] = round_
                    results["runs"].append(row)
                    if args.baseline_binary:
                        row = run_vastgraph(args.baseline_binary, algorithm, args.store, mode, budget, extra,
                                            cgroup, not args.warm, args.out, round_, label=", baseline")
                        row["round"] = round_
                        results["runs"].append(row)
                    (args.out / "results.json").write_text(json.dumps(results, indent=2))
            if not args.no_verify:
                # Kept apart from the timed runs: after the kernel (still within --memory), the
                # checker maps the whole store and walks it in its own order, e.g. a serial BFS.
                # Confined to the cgroup, that walk faults pages in at random and takes hours,
                # so this run is unconfined and starts from a warm page cache.
                warm_page_cache(args.store)
                row = run_vastgraph(args.binary, algorithm, args.store, "adaptive", budget, extra,
                                    Cgroup(None), False, args.out, "verified", verify=True)
                results["runs"].append(row)
                (args.out / "results.json").write_text(json.dumps(results, indent=2))
            if args.in_memory_trials > 0:
                results["runs"].append(run_in_memory(args.binary, algorithm, args.store, extra,
                                                     args.in_memory_trials, args.out))
            if algorithm in args.page_cache.split(","):
                results["runs"].append(run_page_cache(args.binary, algorithm, args.store, extra, cgroup,
                                                      not args.warm, args.out, args.page_cache_timeout))
                (args.out / "results.json").write_text(json.dumps(results, indent=2))
            peer = os.environ.get("VASTGRAPH_OOC_PEER")
            if peer:
                results["runs"].append(run_peer(peer, algorithm, args.store, not args.warm, args.out))
    finally:
        cgroup.remove()
    results["fio_after"] = fio(lists, args.fio_seconds) if args.fio_seconds > 0 else {}
    (args.out / "results.json").write_text(json.dumps(results, indent=2))
    print(f"store {args.store}: {manifest['vertices']:,} vertices, {manifest['arcs']:,} arcs; "
          f"--memory {args.memory}, cgroup limit {limit / (1 << 20):,.0f} MiB")
    for when, key in (("before", "fio"), ("after", "fio_after")):
        for name, f in results[key].items():
            print(f"fio {name}, {when} the runs: {f['MB_per_s']:,.0f} MB/s, {f['iops']:,.0f} IOPS")
    print(table(results["runs"]))
    for line in (targets(results, lists.stat().st_size) + adaptive_against_fixed(results)
                 + against_baseline(results) + checked(results)):
        print(line)
    unverified = [r["algorithm"] for r in results["runs"]
                  if r["mode"].endswith(", verified") and not (not r.get("exit") and r.get("verified"))]
    return 1 if unverified else 0


if __name__ == "__main__":
    sys.exit(main())
