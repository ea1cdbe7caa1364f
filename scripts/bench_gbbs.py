"""GBBS (github.com/ParAlg/gbbs) as a peer of the engine benchmark: its graph file and programs.

Nothing here builds GBBS. GBBS_DIR names a directory with its benchmark binaries, either flat
under the names of GBBS_PROGRAMS (BFS, PageRank, ...) or as a Bazel output tree
(GBBS_DIR/bazel-bin/benchmarks/.../<Name>_main).

Graph file: GBBS's uncompressed binary adjacency format (read with `-b`, mmap'd): int64 n,
int64 m (arcs, both directions), int64 file size, uint64 offsets[n + 1], then per arc the
neighbour as uint32, or for weighted graphs a std::tuple<uint32 neighbour, int32 weight>, which
libstdc++ lays out as {weight, neighbour} (its last element first). Every program gets `-s -b`
(symmetric, binary) and `-rounds N`, runs its algorithm N times on the loaded graph and prints
`### Running Time: t` per round: the time of the algorithm alone, as for every other tool.
Threads: PARLAY_NUM_THREADS (GBBS's default build runs parlaylib's own scheduler).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from bench_common import (
    CellError,
    Job,
    NotApplicable,
    SymmetricCsr,
    log,
    timed_run,
    timing_cell,
)


@dataclass(frozen=True)
class GbbsProgram:
    name: str  # binary name in a flat GBBS_DIR
    source_dir: str  # benchmarks/<source_dir>/<name>.cc; Bazel target <name>_main there
    # The algorithm's flags from the problem parameters (bench_engine.problem_parameters) and
    # the vertex count.
    flags: Callable[[dict, int], list] = lambda params, vertices: []
    takes_source: bool = False
    # (summary key, regex with one integer group) for result facts compared across tools.
    summaries: tuple = ()


def _pagerank_flags(params: dict, vertices: int) -> list:
    # GBBS stops when the L1 change of an iteration is < eps * n; vastgraph when it is
    # < tolerance: the same rule with eps = tolerance / n.
    return ["-iters", params["max_iters"], "-eps", params["tolerance"] / max(vertices, 1)]


GBBS_PROGRAMS = {
    "bfs": GbbsProgram(
        "BFS",
        "BFS/NonDeterministicBFS",
        takes_source=True,
        summaries=(("reached", r"Reachable: (\d+)"),),
    ),
    "sssp": GbbsProgram(
        "wBFS",
        "IntegralWeightSSSP/JulienneDBS17",
        takes_source=True,
        summaries=(("max_distance", r"max dist = (\d+)"),),
    ),
    "bellman-ford": GbbsProgram(
        "BellmanFord",
        "GeneralWeightSSSP/BellmanFord",
        takes_source=True,
        summaries=(("max_distance", r"max dist = (-?\d+)"),),
    ),
    "widest": GbbsProgram("SSWidestPath", "SSWidestPath/JulienneDBS17", takes_source=True),
    "bc": GbbsProgram(
        "SSBetweennessCentrality", "SSBetweenessCentrality/Brandes", takes_source=True
    ),
    "cc": GbbsProgram(
        "Connectivity",
        "Connectivity/WorkEfficientSDB14",
        flags=lambda params, vertices: ["-stats"],  # counts components after the timer
        summaries=(("components", r"# n_cc = (\d+)"),),
    ),
    "pagerank": GbbsProgram("PageRank", "PageRank", flags=_pagerank_flags),
    "delta-pagerank": GbbsProgram(
        "PageRank", "PageRank", flags=lambda p, n: ["-delta", *_pagerank_flags(p, n)]
    ),
    "kcore": GbbsProgram(
        "KCore", "KCore/JulienneDBS17", summaries=(("max_core", r"k_\{max\} = (\d+)"),)
    ),
    "tc": GbbsProgram(
        "Triangle",
        "TriangleCounting/ShunTangwongsan15",
        summaries=(("triangles", r"### Num triangles = (\d+)"),),
    ),
    "ldd": GbbsProgram(
        "LowDiameterDecomposition",
        "LowDiameterDecomposition/MPX13",
        flags=lambda params, vertices: ["-beta", params["beta"]],
    ),
    "spanner": GbbsProgram(
        "Spanner", "Spanner/MPXV15", flags=lambda params, vertices: ["-k", params["k"]]
    ),
    "spanning-forest": GbbsProgram(
        "SpanningForest",
        "SpanningForest/SDB14",
        summaries=(("forest_edges", r"#edges = (\d+)"),),
    ),
    "coloring": GbbsProgram("GraphColoring", "GraphColoring/Hasenplaugh14"),
    "mis": GbbsProgram("MaximalIndependentSet", "MaximalIndependentSet/RandomGreedy"),
    "densest": GbbsProgram(
        "DensestSubgraph",
        "ApproximateDensestSubgraph/ApproxPeelingBKV12",
        flags=lambda params, vertices: ["-eps", params["epsilon"]],
    ),
    "label-propagation": GbbsProgram("LabelPropagation", "Clustering/LabelPropagation"),
}

# Registry algorithms GBBS has no program for, with the reason.
GBBS_NOT_APPLICABLE = {
    "personalized-pagerank": "its PageRank program has no option for a teleport set",
    "random-walk": "no random-walk program",
}


def gbbs_binary(gbbs_dir: Path, program: GbbsProgram) -> Path | None:
    bazel = gbbs_dir / "bazel-bin" / "benchmarks" / program.source_dir / f"{program.name}_main"
    for candidate in (gbbs_dir / program.name, bazel):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def write_gbbs_adjacency(csr: SymmetricCsr, out: Path) -> None:
    """Writes GBBS's binary adjacency file (weighted when csr has weights, which must be
    integral: GBBS's weighted programs read int32)."""
    start = time.perf_counter()
    arcs = len(csr.targets)
    if csr.weights is None:
        body = csr.targets.astype("<u4")
    else:
        if not np.issubdtype(csr.weights.dtype, np.integer):
            raise CellError(f"GBBS needs int32 weights, the graph has {csr.weights.dtype}")
        body = np.empty((arcs, 2), dtype="<i4")
        body[:, 0], body[:, 1] = csr.weights, csr.targets  # std::tuple: last element first
    size = 3 * 8 + csr.offsets.nbytes + body.nbytes
    tmp = out.with_suffix(out.suffix + ".tmp")
    with open(tmp, "wb") as f:
        f.write(np.array([csr.vertices, arcs, size], dtype="<i8").tobytes())
        f.write(csr.offsets.astype("<u8").tobytes())
        f.write(body.tobytes())
    tmp.replace(out)
    log(f"wrote {out} in {time.perf_counter() - start:.1f} s")


def gbbs_cell(args, job: Job, peer, cell_dir: Path) -> dict:
    """Times GBBS's program for the job's algorithm; one invocation per source (or one)."""
    algo = job.algorithm
    if algo in GBBS_NOT_APPLICABLE:
        raise NotApplicable(GBBS_NOT_APPLICABLE[algo])
    program = GBBS_PROGRAMS.get(algo)
    if program is None:
        raise NotApplicable(f"no GBBS program is mapped to {algo}")
    if peer.gbbs_graph is None:
        raise CellError(peer.info.get("gbbs_error", "no GBBS graph"))
    binary = gbbs_binary(args.gbbs_dir, program)
    if binary is None:
        raise CellError(f"{program.name} is not built in {args.gbbs_dir}")
    env = dict(os.environ, PARLAY_NUM_THREADS=str(args.threads))
    what = f"GBBS {program.name}"
    trial_seconds, process_rss, summaries, foreign = [], [], [], []
    for source in job.sources if program.takes_source else [None]:
        argv = [binary, "-s", "-b", "-rounds", job.trials]
        argv += program.flags(job.params, peer.vertices)
        if source is not None:
            argv += ["-src", source]
        argv.append(peer.gbbs_graph)  # GBBS takes the graph as the last argument
        log_path = cell_dir / f"gbbs-{algo}-{source if source is not None else 'all'}.log"
        result = timed_run(args, argv, what, log_path, env=env)
        threads = {int(t) for t in re.findall(r"### Threads: (\d+)", result.stdout)}
        if threads - {args.threads}:
            raise CellError(f"{what} ran {sorted(threads)} threads, not {args.threads}")
        times = [float(t) for t in re.findall(r"### Running Time: (\S+)", result.stdout)]
        if len(times) != job.trials:
            raise CellError(f"{what}: found {len(times)} round times, expected {job.trials}")
        trial_seconds += times
        process_rss.append(result.max_rss_bytes)
        foreign.append(result.foreign_cpu_fraction)
        summary = {}
        for key, pattern in program.summaries:
            found = re.findall(pattern, result.stdout)
            if found:
                summary[key] = int(found[-1])
        summaries.append(summary)
    return timing_cell(trial_seconds, process_rss, foreign, summaries, program=program.name)
