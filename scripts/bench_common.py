"""Pieces the benchmark drivers share: running a tool with its peak RSS and the CPU that other
processes took meanwhile, retrying disturbed runs, and the symmetric CSR every peer's graph file
is written from."""

from __future__ import annotations

import datetime as _dt
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# A cell is marked † when other processes used more than this share of the CPUs meanwhile.
DISTURBED_FRACTION = 0.1


class CellError(Exception):
    """A tool could not produce a time for one cell; the message goes into the table."""


class NotApplicable(CellError):
    """The tool has no program for this problem (shown as n/a; the reason stays in the JSON)."""


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


@dataclass
class Job:
    """One (graph, algorithm) cell's work: the same problem for every tool."""

    algorithm: str
    params: dict  # problem parameters, named as vastgraph's options (max_iters = --max-iters)
    sources: list  # one invocation per entry; [None] when the algorithm takes no source
    trials: int  # timed runs of the algorithm per invocation, on the graph loaded once


def median(values):
    return statistics.median(values) if values else None


def max_known(values):
    known = [v for v in values if isinstance(v, (int, float))]
    return max(known) if known else None


def timing_cell(trial_seconds, process_rss, foreign, summaries, **extra):
    """One tool's result for one (graph, algorithm): the per-trial times with their median and
    minimum, the largest process RSS and foreign-CPU fraction seen, the answer summaries, and
    what the tool adds (``extra``)."""
    return {
        "median_seconds": median(trial_seconds),
        "min_seconds": min(trial_seconds, default=None),
        "trial_seconds": trial_seconds,
        "process_max_rss_bytes": max_known(process_rss),
        "foreign_cpu_fraction": max_known(foreign),
        "summaries": summaries,
        **extra,
    }


# --------------------------------------------------------------------------------------
# Graph files


@dataclass
class SymmetricCsr:
    """Both directions of every edge, neighbour lists sorted: what GAPBS's and GBBS's builders
    produce (no duplicates, no self-loops, as in a symmetric store)."""

    vertices: int
    offsets: np.ndarray  # int64[vertices + 1]
    targets: np.ndarray  # int32[arcs]
    weights: np.ndarray | None  # per arc, the edge's weight in both directions


def symmetric_csr(edges_npz: Path) -> SymmetricCsr:
    """Builds the CSR from the cached src < dst half of a symmetric graph."""
    with np.load(edges_npz) as data:
        src, dst = data["src"], data["dst"]
        vertices = int(data["vertices"])
        weight = data["weight"] if "weight" in data else None
    keys = np.concatenate([src, dst]).astype(np.uint64) << np.uint64(32)
    keys |= np.concatenate([dst, src])
    counts = np.bincount(np.concatenate([src, dst]), minlength=vertices)
    if weight is None:
        keys.sort()
        weights = None
    else:
        order = np.argsort(keys)  # keys are unique, so any sort gives one order
        keys = keys[order]
        weights = np.concatenate([weight, weight])[order]
    targets = (keys & np.uint64(0xFFFFFFFF)).astype(np.int32)
    del keys
    offsets = np.zeros(vertices + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return SymmetricCsr(vertices=vertices, offsets=offsets, targets=targets, weights=weights)
