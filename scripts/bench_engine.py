#!/usr/bin/env python3
"""Engine benchmark: vastgraph against networkit and GAPBS, side by side, in one run.

For each graph the script builds a vastgraph store with the `vastgraph` CLI, exports its
edge list once, and gives that same edge list to the peers. Every algorithm then runs on
every tool with the same thread count and the same sources; the table reports the median
of the per-trial times (each tool's own timer around the algorithm only: loading the graph
is never counted).

    python3 scripts/bench_engine.py --json bench.json
    python3 scripts/bench_engine.py --graphs kron20 --algos bfs,pagerank --sources 8
    GAPBS_DIR=/path/to/gapbs python3 scripts/bench_engine.py ...   # adds the GAPBS column

Graphs (--graphs, comma separated):
  kron<S>       Kronecker graph, scale S, edge factor 16, seed 1, symmetrised
                (`vastgraph generate kron`; `--weighted` for the SSSP store).
  <name>        a file `*<name>*.tsv.zst` in the data directory (--data-dir), symmetrised,
                e.g. `cnr-2000`.
  <name>=<path> any edge list vastgraph can convert, symmetrised.
File graphs have no weights, so SSSP runs on a copy whose weights (1..255) are a hash of the
unordered vertex pair: deterministic, and equal in both directions.

How the peers get the edge list. The export (`src<TAB>dst[<TAB>weight]`, both directions
of each edge) is read once with pandas and cached as the half with src < dst (`.npz`).
networkit builds its undirected graph from that half (GraphFromCoo). For GAPBS the script
writes GAPBS's own serialized form (`.sg` / `.wsg`: directed flag, arc count, vertex count,
int64 offsets, int32 neighbours [with int32 weights]) with the invariants GAPBS's builder
guarantees (sorted neighbour lists, no duplicates, no self-loops) and the store's vertex
count, so no GAPBS text parsing is needed; the result is byte-identical to
`converter -f x.el -s -b x.sg` on the same edges (checked on kron 20). Only symmetric
(undirected) graphs are benchmarked.

Without vastgraph in --tools, file graphs are symmetrised by the script itself (drop
self-loops and duplicates), so the peer columns can be run on their own.

On a shared machine other processes disturb OpenMP and rayon badly (GAPBS BFS on kron 14 took
0.1 s instead of 0.3 ms with two busy neighbours). Every timed invocation therefore measures
the CPU time others used meanwhile (/proc/stat minus the tool's own rusage; networkit: around
its timed calls only); cells above 10 % are marked †. --busy-retries N reruns such an
invocation, --wait-idle S waits for an idle machine before each one.

The networkit column runs in a child process per (graph, algorithm) so that a crash there
cannot end the run; every tool invocation has a timeout, and a failing cell shows its error
while the rest of the run goes on. Logs of every invocation are kept under the work dir.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.metadata
import json
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

ALGORITHMS = ("bfs", "cc", "pagerank", "sssp", "bc", "kcore", "tc")
SOURCE_ALGORITHMS = {"bfs", "sssp", "bc"}
WEIGHTED_ALGORITHMS = {"sssp"}
TOOLS = ("vastgraph", "networkit", "gapbs")
REPO_ROOT = Path(__file__).resolve().parent.parent
# A cell is marked † when other processes used more than this share of the CPUs meanwhile.
DISTURBED_FRACTION = 0.1
KRON_EDGE_FACTOR = 16
KRON_SEED = 1

# What is not like for like, printed under the table.
COMPARABILITY_NOTES = {
    "bfs": "networkit BFS (nk.distance.BFS) is sequential; GAPBS bfs is direction-optimising.",
    "cc": "networkit ConnectedComponents is a sequential BFS sweep (its "
    "ParallelConnectedComponents was slower on kron 20); GAPBS cc is Afforest "
    "(--gapbs-cc cc_sv for Shiloach-Vishkin).",
    "pagerank": "20 iterations everywhere (tolerance 0). networkit: Jacobi, f64, an L2 "
    "convergence sum every iteration, no sink handling. GAPBS pr: Gauss-Seidel, f32, "
    "no sink handling (--gapbs-pr pr_spmv for its Jacobi variant).",
    "sssp": "networkit Dijkstra is sequential; GAPBS sssp is delta-stepping "
    "(-d, --gapbs-sssp-delta).",
    "bc": "single-source Brandes per source. networkit has no BC from a given source "
    "(EstimateBetweenness picks its own random sources, isolated ones included): n/a.",
    "kcore": "GAPBS has no k-core: n/a. networkit CoreDecomposition (ParK, parallel).",
    "tc": "networkit TriangleEdgeScore (edge ids indexed before timing); GAPBS tc includes its "
    "degree-relabelling step in the timed kernel when its heuristic chooses it.",
}


class CellError(Exception):
    """A tool could not produce a time for one cell; the message goes into the table."""


# --------------------------------------------------------------------------------------
# Running processes


@dataclass
class ProcResult:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    max_rss_bytes: int | None  # None without GNU time
    timed_out: bool
    # CPU time others used while this ran, as a fraction of all CPUs over its wall time.
    foreign_cpu_fraction: float = 0.0


def run_process(argv, *, env=None, timeout=None, log_path: Path | None = None) -> ProcResult:
    """Runs argv to completion, keeping its peak RSS, output and exit status."""
    argv = [str(a) for a in argv]
    log(" ".join(shlex.quote(a) for a in argv))
    if log_path is not None:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        out_path = log_path.with_suffix(".stdout")
        err_path = log_path.with_suffix(".stderr")
    else:
        out_path = err_path = None
    # The peak RSS comes from GNU time, not from wait4 here: Linux carries a forked child's
    # maxrss (this Python process's RSS at the fork) across exec, so our own children would
    # all report at least this process's size.
    gnu_time = shutil.which("time")
    with (
        open(out_path, "w+") if out_path else tempfile.TemporaryFile("w+") as out_f,
        open(err_path, "w+") if err_path else tempfile.TemporaryFile("w+") as err_f,
        tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_f,
    ):
        command = [gnu_time, "-f", "%M", "-o", rss_f.name, *argv] if gnu_time else argv
        busy_before = cpu_busy_seconds()
        start = time.perf_counter()
        proc = subprocess.Popen(
            command, stdout=out_f, stderr=err_f, env=env, start_new_session=True
        )
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            os.killpg(proc.pid, signal.SIGKILL)  # the wrapper and the tool under it

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        # wait4 also reports CPU time, the tool's included (the wrapper waited for it).
        _, status, usage = os.wait4(proc.pid, 0)
        if timer:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        foreign = cpu_busy_seconds() - busy_before - (usage.ru_utime + usage.ru_stime)
        out_f.seek(0)
        err_f.seek(0)
        stdout, stderr = out_f.read(), err_f.read()
        rss_lines = rss_f.read().split()
    max_rss_kib = int(rss_lines[-1]) if rss_lines and rss_lines[-1].isdigit() else None
    return ProcResult(
        argv=argv,
        returncode=proc.returncode,
        stdout=stdout,
        stderr=stderr,
        seconds=seconds,
        max_rss_bytes=max_rss_kib * 1024 if max_rss_kib is not None else None,
        timed_out=timed_out.is_set(),
        foreign_cpu_fraction=max(0.0, foreign) / (seconds * (os.cpu_count() or 1)),
    )


def cpu_busy_seconds() -> float:
    """CPU seconds all CPUs spent busy since boot (/proc/stat: all but idle and iowait)."""
    with open("/proc/stat") as stat:
        ticks = [int(x) for x in stat.readline().split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def wait_until_idle(max_wait: float) -> None:
    """Waits (at most max_wait s) until others leave 90 % of the CPUs idle over 2 s."""
    deadline = time.monotonic() + max_wait
    cpus = os.cpu_count() or 1
    while True:
        before, start = cpu_busy_seconds(), time.monotonic()
        time.sleep(2)
        busy = (cpu_busy_seconds() - before) / ((time.monotonic() - start) * cpus)
        if busy <= 0.1:
            return
        if time.monotonic() >= deadline:
            log(f"machine still busy ({busy:.0%} of the CPUs) after {max_wait:.0f} s; running")
            return


def timed_run(args, argv, what: str, log_path: Path, env=None, foreign_of=None) -> ProcResult:
    """A timed tool invocation: optionally waits for an idle machine, and reruns while other
    processes took more than --busy-threshold of the CPUs, keeping the least disturbed run.
    foreign_of(result) may replace the whole-process measure by one of the timed part only."""
    best = None
    for attempt in range(args.busy_retries + 1):
        if args.wait_idle:
            wait_until_idle(args.wait_idle)
        result = checked(run_process(argv, env=env, timeout=args.timeout, log_path=log_path), what)
        if foreign_of is not None:
            result.foreign_cpu_fraction = foreign_of(result)
        if best is None or result.foreign_cpu_fraction < best.foreign_cpu_fraction:
            best = result
        if result.foreign_cpu_fraction <= args.busy_threshold:
            break
        log(f"  others used {result.foreign_cpu_fraction:.0%} of the CPUs (attempt {attempt + 1})")
    return best


def checked(result: ProcResult, what: str) -> ProcResult:
    """Raises CellError naming the failure when the process did not succeed."""
    if result.timed_out:
        raise CellError(f"{what}: timed out after {result.seconds:.0f} s")
    if result.returncode != 0:
        lines = [ln.strip() for ln in (result.stderr + result.stdout).splitlines() if ln.strip()]
        errors = [ln for ln in lines if "error" in ln.lower()]
        reason = (errors or lines or ["no output"])[-1]
        raise CellError(f"{what}: exit {result.returncode}: {reason}")
    return result


def log(message: str) -> None:
    stamp = _dt.datetime.now().strftime("%H:%M:%S")
    print(f"[{stamp}] {message}", file=sys.stderr, flush=True)


def is_fresh(path: Path, *inputs: Path) -> bool:
    """True when path exists and is newer than every existing input."""
    if not path.exists():
        return False
    mtime = path.stat().st_mtime
    return all(not p.exists() or p.stat().st_mtime <= mtime for p in inputs)


# --------------------------------------------------------------------------------------
# Graphs: building the store and the peers' inputs


@dataclass
class GraphSpec:
    name: str
    kind: str  # "kron" or "file"
    scale: int | None = None
    path: Path | None = None


def parse_graph_spec(text: str, data_dir: Path) -> GraphSpec:
    if "=" in text:
        name, path = text.split("=", 1)
        return GraphSpec(name=name, kind="file", path=Path(path).expanduser().resolve())
    match = re.fullmatch(r"kron(\d+)", text)
    if match:
        return GraphSpec(name=text, kind="kron", scale=int(match.group(1)))
    candidates = sorted(data_dir.glob(f"*{text}*.tsv.zst"))
    if len(candidates) != 1:
        found = ", ".join(p.name for p in candidates) or "none"
        raise SystemExit(f"graph {text!r}: expected one {data_dir}/*{text}*.tsv.zst, found {found}")
    return GraphSpec(name=text, kind="file", path=candidates[0])


@dataclass
class PeerInput:
    """One variant (unweighted or weighted) of a graph, as every tool sees it."""

    store: Path | None  # the vastgraph store (None when vastgraph is not benchmarked)
    edges_npz: Path  # the src < dst half: arrays src, dst (uint32) [, weight], vertices
    vertices: int
    undirected_edges: int
    weight_dtype: str | None
    sources: list[int] = field(default_factory=list)
    gapbs_graph: Path | None = None
    info: dict = field(default_factory=dict)


class GraphPreparer:
    def __init__(self, args):
        self.args = args
        self.use_vastgraph = "vastgraph" in args.tools

    def vastgraph(self, *argv, log_name: str, what: str, graph_dir: Path) -> ProcResult:
        return checked(
            run_process(
                [self.args.vastgraph, *argv],
                timeout=self.args.timeout,
                log_path=graph_dir / "logs" / log_name,
            ),
            what,
        )

    def prepare(self, spec: GraphSpec, weighted: bool) -> PeerInput:
        variant = "weighted" if weighted else "unweighted"
        graph_dir = self.args.workdir / spec.name / variant
        graph_dir.mkdir(parents=True, exist_ok=True)
        info: dict = {"variant": variant}
        if self.use_vastgraph:
            store = graph_dir / "store"
            self.build_store(spec, weighted, store, graph_dir, info)
            manifest = json.loads((store / "manifest.json").read_text())
            if manifest.get("directed", False):
                raise CellError(
                    f"{store}: store is directed; only symmetric graphs are benchmarked"
                )
            vertices = int(manifest["vertices"])
            info["store_arcs"] = int(manifest["arcs"])
            export = graph_dir / "edges.tsv"
            edges_npz = graph_dir / "peer-edges.npz"
            # The text export is only the way to the peers' cache; it goes once cached.
            if not is_fresh(edges_npz, store / "manifest.json"):
                export.unlink(missing_ok=True)
                start = time.perf_counter()
                self.vastgraph(
                    "export",
                    store,
                    "--format",
                    "tsv",
                    "-o",
                    export,
                    log_name="export",
                    what="vastgraph export",
                    graph_dir=graph_dir,
                )
                info["export_seconds"] = time.perf_counter() - start
                cache_export_half(export, edges_npz, vertices, weighted)
                if not self.args.keep_export:
                    export.unlink()
        else:
            store = None
            if spec.kind != "file":
                raise CellError(f"{spec.name}: generating it needs vastgraph (add it to --tools)")
            edges_npz = graph_dir / "peer-edges.npz"
            if not is_fresh(edges_npz, spec.path):
                cache_file_half(spec.path, edges_npz, weighted)
        with np.load(edges_npz) as data:
            src, dst = data["src"], data["dst"]
            vertices = int(data["vertices"])
            weight_dtype = str(data["weight"].dtype) if "weight" in data else None
            degree = np.bincount(src, minlength=vertices) + np.bincount(dst, minlength=vertices)
        with_edges = np.flatnonzero(degree)
        rng = np.random.default_rng(self.args.seed)
        count = min(self.args.sources, len(with_edges))
        sources = sorted(int(v) for v in rng.choice(with_edges, size=count, replace=False))
        peer = PeerInput(
            store=store,
            edges_npz=edges_npz,
            vertices=vertices,
            undirected_edges=int(len(src)),
            weight_dtype=weight_dtype,
            sources=sources,
            info=info,
        )
        info.update(
            vertices=vertices,
            undirected_edges=peer.undirected_edges,
            vertices_with_edges=int(len(with_edges)),
            sources=sources,
        )
        if "gapbs" in self.args.tools and self.args.gapbs_dir is not None:
            suffix = ".wsg" if weighted else ".sg"
            gapbs_graph = graph_dir / f"gapbs{suffix}"
            if not is_fresh(gapbs_graph, edges_npz):
                if weighted and not (weight_dtype or "").startswith("int"):
                    info["gapbs_error"] = f"GAPBS needs int32 weights, store has {weight_dtype}"
                else:
                    write_gapbs_serialized(edges_npz, gapbs_graph)
            if gapbs_graph.exists():
                peer.gapbs_graph = gapbs_graph
        return peer

    def build_store(self, spec, weighted, store, graph_dir, info):
        if (store / "manifest.json").exists() and not self.args.rebuild:
            return
        if store.exists():
            shutil.rmtree(store)
        start = time.perf_counter()
        if spec.kind == "kron":
            argv = [
                "generate",
                "kron",
                "--scale",
                spec.scale,
                "--edge-factor",
                KRON_EDGE_FACTOR,
                "--seed",
                KRON_SEED,
                "--symmetrize",
            ]
            if weighted:
                argv.append("--weighted")
            result = self.vastgraph(
                *argv, "-o", store, log_name="build", what="vastgraph generate", graph_dir=graph_dir
            )
        else:
            source = spec.path
            if weighted:
                source = graph_dir / "input-weighted.tsv"
                if not is_fresh(source, spec.path):
                    write_hash_weighted_copy(spec.path, source)
            result = self.vastgraph(
                "convert",
                source,
                "-o",
                store,
                "--symmetrize",
                log_name="build",
                what="vastgraph convert",
                graph_dir=graph_dir,
            )
        info["store_build_seconds"] = time.perf_counter() - start
        info["store_build_max_rss_bytes"] = result.max_rss_bytes


def read_edge_text(path: Path, with_weights: bool):
    """Reads a whitespace edge list (optionally .zst/.gz, '#' comments) into numpy arrays."""
    columns = [0, 1, 2] if with_weights else [0, 1]
    if path.suffix == ".zst":
        proc = subprocess.Popen(["zstd", "-dc", str(path)], stdout=subprocess.PIPE)
        handle = proc.stdout
    else:
        proc, handle = None, str(path)
    try:
        frame = pd.read_csv(
            handle,
            sep=r"\s+",
            comment="#",
            header=None,
            usecols=columns,
            engine="c",
            dtype={0: np.int64, 1: np.int64, **({2: np.float64} if with_weights else {})},
        )
    finally:
        if proc is not None:
            proc.stdout.close()
            if proc.wait() != 0:
                raise CellError(f"zstd -dc {path} failed")
    src = frame[0].to_numpy()
    dst = frame[1].to_numpy()
    weight = frame[2].to_numpy() if with_weights else None
    if len(src) and (src.min() < 0 or dst.min() < 0 or max(src.max(), dst.max()) >= 2**31 - 1):
        raise CellError(f"{path}: vertex ids must be in 0..2^31-2")
    return src, dst, weight


def cache_export_half(export: Path, out: Path, vertices: int, weighted: bool) -> None:
    """Caches the src < dst half of a symmetric export, checking that it is symmetric."""
    start = time.perf_counter()
    src, dst, weight = read_edge_text(export, weighted)
    if len(src) and max(src.max(), dst.max()) >= vertices:
        raise CellError(f"{export}: vertex id beyond the store's {vertices} vertices")
    upper = src < dst
    lower_count = int(np.count_nonzero(src > dst))
    loops = int(np.count_nonzero(src == dst))
    if int(upper.sum()) != lower_count or loops:
        raise CellError(
            f"{export}: not a symmetric simple edge list ({int(upper.sum())} arcs up, "
            f"{lower_count} down, {loops} self-loops)"
        )
    arrays = {
        "src": src[upper].astype(np.uint32),
        "dst": dst[upper].astype(np.uint32),
        "vertices": np.int64(vertices),
    }
    if weighted:
        arrays["weight"] = integral_or_float(weight[upper])
    np.savez(out, **arrays)
    log(f"cached {export} -> {out} in {time.perf_counter() - start:.1f} s")


def cache_file_half(path: Path, out: Path, weighted: bool) -> None:
    """Symmetrises a raw edge list like a symmetric store: no self-loops, no duplicates."""
    src, dst, _ = read_edge_text(path, False)
    low, high = np.minimum(src, dst), np.maximum(src, dst)
    keep = low != high
    keys = np.unique((low[keep].astype(np.uint64) << np.uint64(32)) | high[keep].astype(np.uint64))
    vertices = int(max(src.max(), dst.max())) + 1 if len(src) else 0
    arrays = {
        "src": (keys >> np.uint64(32)).astype(np.uint32),
        "dst": (keys & np.uint64(0xFFFFFFFF)).astype(np.uint32),
        "vertices": np.int64(vertices),
    }
    if weighted:
        arrays["weight"] = pair_hash_weights(arrays["src"], arrays["dst"])
    np.savez(out, **arrays)


def integral_or_float(weight):
    if (
        np.all(np.isfinite(weight))
        and np.all(weight == np.round(weight))
        and (len(weight) == 0 or (weight.min() >= -(2**31) and weight.max() < 2**31))
    ):
        return weight.astype(np.int32)
    return weight.astype(np.float32)


def pair_hash_weights(low, high):
    """Weights 1..255 from a splitmix64 hash of the unordered pair (low < high)."""
    with np.errstate(over="ignore"):
        x = (low.astype(np.uint64) << np.uint64(32)) | high.astype(np.uint64)
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return (x % np.uint64(255) + np.uint64(1)).astype(np.int32)


def write_hash_weighted_copy(path: Path, out: Path) -> None:
    """A weighted copy of an edge list; both directions of an edge get the same weight."""
    src, dst, _ = read_edge_text(path, False)
    weight = pair_hash_weights(np.minimum(src, dst), np.maximum(src, dst))
    pd.DataFrame({"s": src, "d": dst, "w": weight}).to_csv(out, sep="\t", header=False, index=False)


def write_gapbs_serialized(edges_npz: Path, out: Path) -> None:
    """Writes GAPBS's .sg/.wsg serialized CSR of the undirected graph."""
    start = time.perf_counter()
    with np.load(edges_npz) as data:
        src, dst = data["src"], data["dst"]
        vertices = int(data["vertices"])
        weight = data["weight"] if "weight" in data else None
    # Both directions, sorted by (source, neighbour): GAPBS's builder output order.
    keys = np.concatenate([src, dst]).astype(np.uint64) << np.uint64(32)
    keys |= np.concatenate([dst, src])
    counts = np.bincount(np.concatenate([src, dst]), minlength=vertices)
    if weight is None:
        keys.sort()
        order = None
    else:
        order = np.argsort(keys)  # keys are unique, so any sort gives one order
        keys = keys[order]
    targets = (keys & np.uint64(0xFFFFFFFF)).astype(np.int32)
    del keys
    offsets = np.zeros(vertices + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    tmp = out.with_suffix(out.suffix + ".tmp")
    with open(tmp, "wb") as f:
        f.write(np.bool_(False).tobytes())  # directed = false
        f.write(np.int64(len(targets)).tobytes())  # arcs (both directions)
        f.write(np.int64(vertices).tobytes())
        f.write(offsets.tobytes())
        if weight is None:
            f.write(targets.tobytes())
        else:
            both = np.concatenate([weight, weight])[order].astype(np.int32)
            pairs = np.empty((len(targets), 2), dtype=np.int32)
            pairs[:, 0], pairs[:, 1] = targets, both
            f.write(pairs.tobytes())
    tmp.replace(out)
    log(f"wrote {out} in {time.perf_counter() - start:.1f} s")


# --------------------------------------------------------------------------------------
# Tools


def median(values):
    return statistics.median(values) if values else None


def vastgraph_cell(args, algo: str, peer: PeerInput, cell_dir: Path) -> dict:
    if peer.store is None:
        raise CellError("no store")
    runs = peer.sources if algo in SOURCE_ALGORITHMS else [None]
    trials = args.tc_trials if algo == "tc" else args.trials
    trial_seconds, rss, mutable, process_rss, summaries, iterations = [], [], [], [], [], []
    foreign = []
    for source in runs:
        stats_path = cell_dir / f"vastgraph-{algo}-{source if source is not None else 'all'}.json"
        stats_path.unlink(missing_ok=True)
        argv = [
            args.vastgraph,
            "run",
            algo,
            peer.store,
            "--threads",
            args.threads,
            "--trials",
            trials,
            "--stats",
            stats_path,
            "--quiet",  # no progress output while timing
        ]
        if source is not None:
            argv += ["--source", source]
        if algo == "pagerank":
            argv += ["--max-iters", args.pr_iters, "--tolerance", 0]
        result = timed_run(args, argv, f"vastgraph run {algo}", stats_path.with_suffix(".log"))
        try:
            stats = json.loads(stats_path.read_text())
        except (OSError, ValueError) as error:
            raise CellError(f"stats {stats_path}: {error}") from error
        times = stats.get("trial_seconds") or [stats["wall_seconds"]]
        trial_seconds += [float(t) for t in times]
        rss.append(stats.get("peak_rss_bytes"))
        mutable.append(stats.get("peak_mutable_bytes"))
        process_rss.append(result.max_rss_bytes)
        foreign.append(result.foreign_cpu_fraction)
        iterations.append(stats.get("iterations"))
        summary = vastgraph_summary(stats)
        if algo == "pagerank" and isinstance(stats.get("iterations"), int):
            summary["iterations"] = stats["iterations"]  # must be pr_iters, like networkit's
        summaries.append(summary)
    return {
        "median_seconds": median(trial_seconds),
        "min_seconds": min(trial_seconds, default=None),
        "trial_seconds": trial_seconds,
        "peak_rss_bytes": max_known(rss),
        "peak_mutable_bytes": max_known(mutable),
        "process_max_rss_bytes": max_known(process_rss),
        "foreign_cpu_fraction": max_known(foreign),
        "iterations": iterations,
        "summaries": summaries,
    }


def vastgraph_summary(stats: dict) -> dict:
    """The result facts the CLI reports under the names the peers' summaries use."""
    found = {}
    for scope in (stats, stats.get("extra") or {}):
        if isinstance(scope, dict):
            for key in ("reached", "components", "triangles", "max_core"):
                if isinstance(scope.get(key), (int, float)):
                    found[key] = scope[key]
    return found


def max_known(values):
    known = [v for v in values if isinstance(v, (int, float))]
    return max(known) if known else None


GAPBS_KERNELS = {"bfs": "bfs", "sssp": "sssp", "bc": "bc", "tc": "tc"}
GAPBS_SUMMARY = {
    "bfs": ("reached", r"BFS Tree has (\d+) nodes"),
    "sssp": ("reached", r"SSSP Tree reaches (\d+) nodes"),
    "cc": ("components", r"There are (\d+) components"),
    "tc": ("triangles", r"(\d+) triangles"),
}


def gapbs_cell(args, algo: str, peer: PeerInput, cell_dir: Path) -> dict:
    if algo == "kcore":
        raise CellError("n/a (GAPBS has no k-core)")
    if peer.gapbs_graph is None:
        raise CellError(peer.info.get("gapbs_error", "no GAPBS graph"))
    kernel = {"cc": args.gapbs_cc, "pagerank": args.gapbs_pr}.get(algo, GAPBS_KERNELS.get(algo))
    binary = args.gapbs_dir / kernel
    if not os.access(binary, os.X_OK):
        raise CellError(f"{binary} missing")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    runs = peer.sources if algo in SOURCE_ALGORITHMS else [None]
    trials = args.tc_trials if algo == "tc" else args.trials
    trial_seconds, process_rss, summaries, foreign = [], [], [], []
    for source in runs:
        argv = [binary, "-f", peer.gapbs_graph, "-n", trials, "-a"]
        if source is not None:
            argv += ["-r", source]
        if algo == "bc":
            argv += ["-i", 1]
        if algo == "sssp":
            argv += ["-d", args.gapbs_sssp_delta]
        if algo == "pagerank":
            argv += ["-i", args.pr_iters, "-t", 0]
        log_path = cell_dir / f"gapbs-{algo}-{source if source is not None else 'all'}.log"
        result = timed_run(args, argv, f"GAPBS {kernel}", log_path, env=env)
        times = [float(t) for t in re.findall(r"Trial Time:\s+([0-9.eE+-]+)", result.stdout)]
        if len(times) != int(trials):
            raise CellError(f"GAPBS {kernel}: found {len(times)} trial times, expected {trials}")
        trial_seconds += times
        process_rss.append(result.max_rss_bytes)
        foreign.append(result.foreign_cpu_fraction)
        summary = {}
        if algo in GAPBS_SUMMARY:
            key, pattern = GAPBS_SUMMARY[algo]
            match = re.search(pattern, result.stdout)
            if match:
                summary[key] = int(match.group(1))
        summaries.append(summary)
    return {
        "median_seconds": median(trial_seconds),
        "min_seconds": min(trial_seconds, default=None),
        "trial_seconds": trial_seconds,
        "process_max_rss_bytes": max_known(process_rss),
        "foreign_cpu_fraction": max_known(foreign),
        "kernel": kernel,
        "summaries": summaries,
    }


def networkit_cell(args, algo: str, peer: PeerInput, cell_dir: Path) -> dict:
    if algo == "bc":
        raise CellError("n/a (no single-source BC in networkit)")
    request = {
        "edges_npz": str(peer.edges_npz),
        "algorithm": algo,
        "sources": peer.sources if algo in SOURCE_ALGORITHMS else [None],
        "trials": args.tc_trials if algo == "tc" else args.trials,
        "threads": args.threads,
        "pr_iters": args.pr_iters,
    }
    request_path = cell_dir / f"networkit-{algo}.request.json"
    request_path.write_text(json.dumps(request))
    argv = [sys.executable, Path(__file__).resolve(), "--networkit-worker", request_path]

    def worker_answer(result: ProcResult) -> dict:
        lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
        if not lines:
            raise CellError("networkit worker printed no result")
        return json.loads(lines[-1])

    result = timed_run(
        args,
        argv,
        "networkit",
        cell_dir / f"networkit-{algo}.log",
        foreign_of=lambda r: worker_answer(r)["foreign_cpu_fraction"],
    )
    answer = worker_answer(result)
    answer["median_seconds"] = median(answer["trial_seconds"])
    answer["min_seconds"] = min(answer["trial_seconds"], default=None)
    answer["process_max_rss_bytes"] = result.max_rss_bytes
    return answer


def networkit_worker(request_path: str) -> None:
    """Child process: builds the networkit graph and times one algorithm."""
    import networkit as nk  # only the worker process loads networkit

    request = json.loads(Path(request_path).read_text())
    threads = int(request["threads"])
    nk.setNumberOfThreads(threads)
    if nk.getMaxNumberOfThreads() != threads:
        raise SystemExit(f"networkit runs {nk.getMaxNumberOfThreads()} threads, asked {threads}")
    start = time.perf_counter()
    with np.load(request["edges_npz"]) as data:
        src, dst = data["src"].astype(np.uint64), data["dst"].astype(np.uint64)
        vertices = int(data["vertices"])
        weight = data["weight"].astype(np.float64) if "weight" in data else None
    weighted = weight is not None
    values = weight if weighted else np.ones(len(src))
    graph = nk.GraphFromCoo((values, (src, dst)), n=vertices, directed=False, weighted=weighted)
    del src, dst, values, weight
    algo = request["algorithm"]
    if algo == "tc":
        graph.indexEdges()  # TriangleEdgeScore requires edge ids
    build_seconds = time.perf_counter() - start

    def make(source):
        if algo == "bfs":
            return nk.distance.BFS(graph, source, storePaths=False)
        if algo == "sssp":
            return nk.distance.Dijkstra(graph, source, storePaths=False)
        if algo == "cc":
            return nk.components.ConnectedComponents(graph)
        if algo == "pagerank":
            pagerank = nk.centrality.PageRank(graph, damp=0.85, tol=0.0)
            pagerank.maxIterations = int(request["pr_iters"])
            return pagerank
        if algo == "kcore":
            return nk.centrality.CoreDecomposition(graph)
        if algo == "tc":
            return nk.sparsification.TriangleEdgeScore(graph)
        raise SystemExit(f"networkit: no algorithm {algo}")

    def summarise(done) -> dict:
        if algo in ("bfs", "sssp"):
            distances = np.asarray(done.getDistances())
            return {"reached": int(np.count_nonzero(distances < np.finfo(np.float64).max / 2))}
        if algo == "cc":
            return {"components": int(done.numberOfComponents())}
        if algo == "pagerank":
            return {"iterations": int(done.numberOfIterations())}
        if algo == "kcore":
            return {"max_core": int(max(done.scores()))}
        if algo == "tc":
            return {"triangles": int(sum(done.scores()) // 3)}
        return {}

    def own_cpu_seconds() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    trial_seconds, summaries, foreign = [], [], 0.0
    for source in request["sources"]:
        for trial in range(int(request["trials"])):
            job = make(source)
            busy_before, own_before = cpu_busy_seconds(), own_cpu_seconds()
            begin = time.perf_counter()
            job.run()
            trial_seconds.append(time.perf_counter() - begin)
            others = cpu_busy_seconds() - busy_before - (own_cpu_seconds() - own_before)
            foreign += max(0.0, others)
            if trial == int(request["trials"]) - 1:
                summaries.append(summarise(job))
            del job
    print(
        json.dumps(
            {
                "trial_seconds": trial_seconds,
                "summaries": summaries,
                "graph_build_seconds": build_seconds,
                "foreign_cpu_fraction": foreign / (sum(trial_seconds) * (os.cpu_count() or 1)),
                "networkit_version": nk.__version__,
            }
        )
    )


TOOL_CELLS = {"vastgraph": vastgraph_cell, "networkit": networkit_cell, "gapbs": gapbs_cell}


# --------------------------------------------------------------------------------------
# The run


def consistency(tools: dict) -> str:
    """Compares result facts (reached, components, triangles...) across tools."""
    by_key: dict[str, dict[str, list]] = {}
    for tool, cell in tools.items():
        for index, summary in enumerate(cell.get("summaries") or []):
            for key, value in summary.items():
                by_key.setdefault(f"{key}[{index}]", {})[tool] = value
    compared = {k: v for k, v in by_key.items() if len(v) > 1}
    if not compared:
        return ""
    bad = [
        f"{k}: " + ", ".join(f"{t}={v}" for t, v in vals.items())
        for k, vals in compared.items()
        if len(set(vals.values())) > 1
    ]
    return "MISMATCH " + "; ".join(bad) if bad else "agree"


def run(args) -> dict:
    preparer = GraphPreparer(args)
    specs = [parse_graph_spec(g, args.data_dir) for g in args.graphs]
    report = {
        "meta": {
            "started": _dt.datetime.now().isoformat(timespec="seconds"),
            "host": platform.node(),
            "cpus": os.cpu_count(),
            "loadavg_start": os.getloadavg(),
            "threads": args.threads,
            "sources_per_graph": args.sources,
            "trials": args.trials,
            "tc_trials": args.tc_trials,
            "seed": args.seed,
            "pr_iters": args.pr_iters,
            "tools": args.tools,
            "vastgraph": str(args.vastgraph),
            "gapbs_dir": str(args.gapbs_dir) if args.gapbs_dir else None,
            "gapbs_commit": read_text_or_none(args.gapbs_dir / "COMMIT")
            if args.gapbs_dir
            else None,
            "gapbs_sssp_delta": args.gapbs_sssp_delta,
            "networkit_version": networkit_version(),
        },
        "graphs": {},
        "results": [],
    }
    for spec in specs:
        peers: dict[bool, PeerInput | CellError] = {}
        for weighted in sorted({a in WEIGHTED_ALGORITHMS for a in args.algos}):
            try:
                peers[weighted] = preparer.prepare(spec, weighted)
                report["graphs"].setdefault(spec.name, {})[
                    "weighted" if weighted else "unweighted"
                ] = peers[weighted].info
            except CellError as error:
                log(f"{spec.name}: {error}")
                peers[weighted] = error
                report["graphs"].setdefault(spec.name, {})[
                    "weighted" if weighted else "unweighted"
                ] = {"error": str(error)}
            except Exception as error:  # keep going with the other graphs
                traceback.print_exc()
                peers[weighted] = CellError(f"{type(error).__name__}: {error}")
                report["graphs"].setdefault(spec.name, {})[
                    "weighted" if weighted else "unweighted"
                ] = {"error": str(peers[weighted])}
        for algo in args.algos:
            peer = peers[algo in WEIGHTED_ALGORITHMS]
            row = {"algorithm": algo, "graph": spec.name, "tools": {}, "loadavg": os.getloadavg()}
            if isinstance(peer, PeerInput):
                row["sources"] = peer.sources if algo in SOURCE_ALGORITHMS else None
                cell_dir = peer.edges_npz.parent / "runs"
                cell_dir.mkdir(exist_ok=True)
            for tool in args.tools:
                if isinstance(peer, CellError):
                    row["tools"][tool] = {"error": "graph failed (see Graphs)"}
                    continue
                if tool == "gapbs" and args.gapbs_dir is None:
                    continue
                log(f"{spec.name} {algo} {tool}")
                try:
                    row["tools"][tool] = TOOL_CELLS[tool](args, algo, peer, cell_dir)
                except CellError as error:
                    row["tools"][tool] = {"error": str(error)}
                except Exception as error:
                    traceback.print_exc()
                    row["tools"][tool] = {"error": f"{type(error).__name__}: {error}"}
                cell = row["tools"][tool]
                log(f"  -> {cell.get('median_seconds', cell.get('error'))}")
            row["check"] = consistency({t: c for t, c in row["tools"].items() if "error" not in c})
            report["results"].append(row)
            if args.json:
                write_json(args.json, report)
    report["meta"]["finished"] = _dt.datetime.now().isoformat(timespec="seconds")
    report["meta"]["loadavg_end"] = os.getloadavg()
    return report


def read_text_or_none(path: Path):
    try:
        return path.read_text().strip()
    except OSError:
        return None


def networkit_version():
    try:
        return importlib.metadata.version("networkit")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def write_json(path: Path, report: dict) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(report, indent=1, default=str))
    tmp.replace(path)


# --------------------------------------------------------------------------------------
# Markdown


def seconds_cell(cell: dict | None) -> str:
    if cell is None:
        return "-"
    if "error" in cell:
        text = cell["error"].replace("|", "/")
        return text if len(text) <= 70 else text[:67] + "..."
    value = cell.get("median_seconds")
    if value is None:
        return "-"
    disturbed = (cell.get("foreign_cpu_fraction") or 0.0) > DISTURBED_FRACTION
    return f"{value:.4g}" + (" †" if disturbed else "")


def ratio_cell(mine: dict | None, theirs: dict | None) -> str:
    a = (mine or {}).get("median_seconds")
    b = (theirs or {}).get("median_seconds")
    if not a or not b:
        return "-"
    return f"{a / b:.2f}"


def bytes_cell(value) -> str:
    return "-" if not value else f"{value / 2**20:.0f} MiB"


def markdown(report: dict) -> str:
    meta = report["meta"]
    lines = [
        f"## Engine benchmark ({meta['started']}, {meta['threads']} threads, "
        f"{meta['cpus']} CPUs, load {meta['loadavg_start'][0]:.2f} at start)",
        "",
        f"Median of per-trial algorithm times in seconds; {meta['sources_per_graph']} sources x "
        f"{meta['trials']} trials for bfs/sssp/bc, {meta['trials']} trials otherwise "
        f"({meta['tc_trials']} for tc). PageRank: {meta['pr_iters']} iterations. "
        "Ratios < 1: vastgraph faster.",
        "",
    ]
    lines += [
        "| algorithm | graph | vastgraph s | networkit s | GAPBS s | vastgraph/GAPBS | "
        "vastgraph/networkit | vastgraph peak RSS | check |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in report["results"]:
        tools = row["tools"]
        vg, nk, gb = tools.get("vastgraph"), tools.get("networkit"), tools.get("gapbs")
        vg_rss = (vg or {}).get("peak_rss_bytes") or (vg or {}).get("process_max_rss_bytes")
        lines.append(
            f"| {row['algorithm']} | {row['graph']} | {seconds_cell(vg)} | {seconds_cell(nk)} | "
            f"{seconds_cell(gb)} | {ratio_cell(vg, gb)} | {ratio_cell(vg, nk)} | "
            f"{bytes_cell(vg_rss)} | {row.get('check', '')} |"
        )
    disturbed = any(
        (cell.get("foreign_cpu_fraction") or 0.0) > DISTURBED_FRACTION
        for row in report["results"]
        for cell in row["tools"].values()
    )
    if disturbed:
        lines += [
            "",
            f"† other processes used more than {DISTURBED_FRACTION:.0%} of the CPUs while this "
            "cell ran (foreign_cpu_fraction in the JSON): do not trust its time; rerun with "
            "--busy-retries / --wait-idle.",
        ]
    lines += ["", "Graphs:"]
    for name, variants in report["graphs"].items():
        for variant, info in variants.items():
            if "error" in info:
                lines.append(f"- {name} ({variant}): {info['error']}")
            else:
                lines.append(
                    f"- {name} ({variant}): {info['vertices']:,} vertices "
                    f"({info['vertices_with_edges']:,} with edges), "
                    f"{info['undirected_edges']:,} undirected edges; sources {info['sources']}"
                )
    algos = []
    for row in report["results"]:
        if row["algorithm"] not in algos:
            algos.append(row["algorithm"])
    lines += ["", "Not like for like:"]
    lines += [f"- {a}: {COMPARABILITY_NOTES[a]}" for a in algos]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--graphs",
        default="kron20,kron22,cnr-2000",
        help="comma-separated: kron<S>, a data-dir name, or name=path",
    )
    parser.add_argument("--algos", default=",".join(ALGORITHMS))
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sources", type=int, default=4, help="sources for bfs/sssp/bc")
    parser.add_argument("--trials", type=int, default=3, help="trials per source / per run")
    parser.add_argument("--tc-trials", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1, help="picks the sources")
    parser.add_argument("--pr-iters", type=int, default=20)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/vastgraph-bench"))
    parser.add_argument("--data-dir", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    parser.add_argument(
        "--vastgraph", type=Path, default=REPO_ROOT / "target" / "release" / "vastgraph"
    )
    parser.add_argument("--json", type=Path, help="write the full results here")
    parser.add_argument("--rebuild", action="store_true", help="rebuild stores even if present")
    parser.add_argument(
        "--keep-export", action="store_true", help="keep the exported edges.tsv in the work dir"
    )
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per tool invocation")
    parser.add_argument("--gapbs-cc", default="cc", choices=["cc", "cc_sv"])
    parser.add_argument("--gapbs-pr", default="pr", choices=["pr", "pr_spmv"])
    parser.add_argument(
        "--gapbs-sssp-delta",
        type=int,
        default=2,
        help="GAPBS delta-stepping delta (its benchmark uses 2 for kron/web)",
    )
    parser.add_argument(
        "--wait-idle",
        type=float,
        default=0,
        metavar="SECONDS",
        help="before each timed invocation wait up to SECONDS for other processes to leave "
        "90%% of the CPUs idle (for shared machines)",
    )
    parser.add_argument(
        "--busy-retries",
        type=int,
        default=0,
        help="rerun a timed invocation up to N times while other processes used more than "
        "--busy-threshold of the CPUs, keeping the least disturbed run",
    )
    parser.add_argument("--busy-threshold", type=float, default=DISTURBED_FRACTION)
    parser.add_argument(
        "--report", type=Path, metavar="JSON", help="only print the table of an earlier --json"
    )
    parser.add_argument("--networkit-worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.networkit_worker or args.report:
        return args
    args.graphs = [g for g in args.graphs.split(",") if g]
    args.algos = [a for a in args.algos.split(",") if a]
    args.tools = [t for t in args.tools.split(",") if t]
    for algo in args.algos:
        if algo not in ALGORITHMS:
            parser.error(f"unknown algorithm {algo!r} (known: {', '.join(ALGORITHMS)})")
    for tool in args.tools:
        if tool not in TOOLS:
            parser.error(f"unknown tool {tool!r} (known: {', '.join(TOOLS)})")
    args.vastgraph = args.vastgraph.resolve()
    args.workdir = args.workdir.resolve()
    gapbs = os.environ.get("GAPBS_DIR")
    args.gapbs_dir = Path(gapbs).resolve() if gapbs else None
    if "gapbs" in args.tools and args.gapbs_dir is None:
        log("GAPBS_DIR is not set: no GAPBS column")
    if args.gapbs_dir is not None and not os.access(args.gapbs_dir / "bfs", os.X_OK):
        parser.error(f"GAPBS_DIR={args.gapbs_dir} has no built GAPBS binaries (bfs)")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.networkit_worker:
        networkit_worker(args.networkit_worker)
        return 0
    if args.report:
        print(markdown(json.loads(args.report.read_text())))
        return 0
    args.workdir.mkdir(parents=True, exist_ok=True)
    report = run(args)
    if args.json:
        write_json(args.json, report)
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
