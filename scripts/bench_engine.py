#!/usr/bin/env python3
"""Engine benchmark: vastgraph against GBBS, GAPBS and networkit, side by side, in one run.

For each graph the script builds a vastgraph store with the `vastgraph` CLI, exports its
edge list once, and gives that same edge list to the peers. Every algorithm then runs on
every tool with the same thread count, the same sources and the same parameters; the table
reports the median of the per-trial times (each tool's own timer around the algorithm only:
loading the graph is never counted), vastgraph's time over each peer's, and peak RSS.

    python3 scripts/bench_engine.py --json bench.json
    python3 scripts/bench_engine.py --graphs kron20 --algos bfs,pagerank --sources 8
    GAPBS_DIR=/path/to/gapbs python3 scripts/bench_engine.py ...   # adds the GAPBS column
    GBBS_DIR=/path/to/gbbs-binaries GAPBS_DIR=/path/to/gapbs python3 scripts/bench_engine.py \
        --graphs kron22,cnr-2000 --algos all --tools vastgraph,gbbs,gapbs --json all.json

Algorithms (--algos): the engine set by default (bfs, cc, pagerank, sssp, bc, kcore, tc);
`all` = every algorithm of `vastgraph run --help` (the registry). A peer without a program
for a problem shows n/a, with the reason under the table. Peers are never built here: GBBS_DIR
and GAPBS_DIR name directories of already built binaries (bench_gbbs.py says which GBBS
programs and file format are used).

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
networkit builds its undirected graph from that half (GraphFromCoo). GBBS gets its binary
adjacency file (bench_gbbs.py) from the same CSR as GAPBS. For GAPBS the script
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
import shutil
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from bench_common import (
    DISTURBED_FRACTION,
    CellError,
    Job,
    NotApplicable,
    ProcResult,
    SymmetricCsr,
    checked,
    cpu_busy_seconds,
    is_fresh,
    log,
    max_known,
    median,
    run_process,
    symmetric_csr,
    timed_run,
    timing_cell,
)
from bench_gbbs import GBBS_PROGRAMS, gbbs_binary, gbbs_cell, write_gbbs_adjacency


@dataclass(frozen=True)
class Algorithm:
    source: bool = False  # one invocation per source vertex (--sources of them)
    weighted: bool = False  # runs on the weighted variant of the graph


# Every algorithm of vastgraph's registry (crates/vastgraph-algos/src/registry.rs). One that
# the registry gains later still runs under `--algos all` (on vastgraph, with its defaults).
ALGORITHMS = {
    "bfs": Algorithm(source=True),
    "sssp": Algorithm(source=True, weighted=True),
    "bellman-ford": Algorithm(source=True, weighted=True),
    "cc": Algorithm(),
    "pagerank": Algorithm(),
    "bc": Algorithm(source=True),
    "kcore": Algorithm(),
    "tc": Algorithm(),
    "widest": Algorithm(source=True, weighted=True),
    "ldd": Algorithm(),
    "spanner": Algorithm(),
    "spanning-forest": Algorithm(),
    "coloring": Algorithm(),
    "mis": Algorithm(),
    "densest": Algorithm(),
    "label-propagation": Algorithm(),
    "random-walk": Algorithm(),
    "delta-pagerank": Algorithm(),
    "personalized-pagerank": Algorithm(source=True),
}
ENGINE_ALGORITHMS = ("bfs", "cc", "pagerank", "sssp", "bc", "kcore", "tc")
TOOLS = ("vastgraph", "networkit", "gapbs", "gbbs")
TOOL_NAMES = {"vastgraph": "vastgraph", "networkit": "networkit", "gapbs": "GAPBS", "gbbs": "GBBS"}
REPO_ROOT = Path(__file__).resolve().parent.parent
KRON_EDGE_FACTOR = 16
KRON_SEED = 1

# What is not like for like, printed under the table (for the algorithms of the run).
COMPARABILITY_NOTES = {
    "bfs": "networkit BFS (nk.distance.BFS) is sequential; GAPBS bfs and GBBS BFS are "
    "direction-optimising.",
    "sssp": "vastgraph: delta-stepping, delta from the weights (mean weight x n / arcs, about "
    "4 on kron); GAPBS: delta-stepping with -d (--gapbs-sssp-delta, 2); GBBS: wBFS "
    "(Julienne buckets, integral weights: delta 1); networkit: sequential Dijkstra.",
    "bellman-ford": "GBBS BellmanFord: the same frontier-based Bellman-Ford.",
    "cc": "vastgraph: Afforest. networkit ConnectedComponents is a sequential BFS sweep (its "
    "ParallelConnectedComponents was slower on kron 20); GAPBS cc is Afforest "
    "(--gapbs-cc cc_sv for Shiloach-Vishkin); GBBS Connectivity is the work-efficient "
    "LDD-based algorithm (Shun, Dhulipala, Blelloch 2014; beta 0.2).",
    "pagerank": "exactly --pr-iters iterations everywhere (tolerance 0). vastgraph: Jacobi, "
    "f64, dangling mass spread. networkit: Jacobi, f64, an L2 convergence sum every iteration, "
    "no sink handling. GAPBS pr: Gauss-Seidel, f32, no sink handling (--gapbs-pr pr_spmv for "
    "its Jacobi variant). GBBS PageRank: Jacobi (edgeMapReduce), f64, dangling mass spread.",
    "delta-pagerank": "both stop when one round changes the scores by less than "
    "--delta-pr-tolerance in L1 (GBBS: -eps tolerance/n; it sums the pending changes) or "
    "after --delta-pr-max-iters rounds. vastgraph pushes a vertex whose pending change exceeds "
    "tolerance/n, GBBS (-delta) one whose change exceeds 1% of its score (-leps 0.01, its "
    "default): GBBS does less work for a less accurate answer.",
    "personalized-pagerank": "vastgraph only (GBBS's PageRank program takes no teleport set): "
    "teleport to one source, exactly --pr-iters iterations.",
    "bc": "single-source Brandes per source. networkit has no BC from a given source "
    "(EstimateBetweenness picks its own random sources, isolated ones included): n/a. GBBS "
    "SSBetweennessCentrality prints 100 scores inside its timer (negligible).",
    "kcore": "GAPBS has no k-core: n/a. networkit CoreDecomposition (ParK, parallel); GBBS "
    "KCore: Julienne peeling, as vastgraph's.",
    "tc": "networkit TriangleEdgeScore (edge ids indexed before timing); GAPBS tc includes its "
    "degree-relabelling step in the timed kernel when its heuristic chooses it; GBBS Triangle "
    "(degree ordering) includes building its oriented graph.",
    "widest": "GBBS SSWidestPath: Julienne buckets of integral widths; vastgraph: buckets "
    "(--method buckets, its default) with a bucket width from the weights.",
    "ldd": "both Miller-Peng-Xu with beta --ldd-beta; each draws its own random shifts.",
    "spanner": "both Miller-Peng-Vladu-Xu with the same k (vastgraph's default "
    "ceil(log2 n)), beta = ln(n) / 2k.",
    "spanning-forest": "vastgraph: Borůvka hooking; GBBS SpanningForest: the work-efficient "
    "LDD-based algorithm (SDB14, beta 0.2).",
    "coloring": "both largest-log-degree-first (Hasenplaugh et al. 2014), each with its own "
    "random order.",
    "mis": "both the random-priority greedy MIS (Blelloch, Fineman, Shun 2012), each with its own "
    "priorities; GBBS runs its root-set variant.",
    "densest": "both approximate peeling (Bahmani, Kumar, Vassilvitskii 2012) with epsilon "
    "--densest-epsilon.",
    "label-propagation": "not the same computation: vastgraph is synchronous, at most 20 rounds, "
    "ties to the smallest label; GBBS (Clustering/LabelPropagation) updates labels in place "
    "(asynchronous) until none changes or 100 rounds, ties to the largest label.",
    "random-walk": "vastgraph only: a walk of 10 steps from every vertex.",
}


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
    gbbs_graph: Path | None = None
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
        self.write_peer_graphs(peer, graph_dir, weighted)
        return peer

    def write_peer_graphs(self, peer: PeerInput, graph_dir: Path, weighted: bool) -> None:
        """GAPBS's and GBBS's graph files, from one CSR of the cached edges."""
        peer_files = []  # (tool, attribute, path, writer)
        if "gapbs" in self.args.tools and self.args.gapbs_dir is not None:
            path = graph_dir / ("gapbs.wsg" if weighted else "gapbs.sg")
            peer_files.append(("gapbs", "gapbs_graph", path, write_gapbs_serialized))
        if "gbbs" in self.args.tools and self.args.gbbs_dir is not None:
            path = graph_dir / ("gbbs.wadj" if weighted else "gbbs.adj")
            peer_files.append(("gbbs", "gbbs_graph", path, write_gbbs_adjacency))
        stale = [f for f in peer_files if not is_fresh(f[2], peer.edges_npz)]
        if stale and weighted and not (peer.weight_dtype or "").startswith("int"):
            for tool, *_ in stale:
                peer.info[f"{tool}_error"] = f"{tool} needs int32 weights, not {peer.weight_dtype}"
            stale = []
        if stale:
            csr = symmetric_csr(peer.edges_npz)
            for _, _, path, writer in stale:
                writer(csr, path)
        for _, attribute, path, _ in peer_files:
            if path.exists():
                setattr(peer, attribute, path)

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


def write_gapbs_serialized(csr: SymmetricCsr, out: Path) -> None:
    """Writes GAPBS's .sg/.wsg serialized CSR of the undirected graph."""
    start = time.perf_counter()
    tmp = out.with_suffix(out.suffix + ".tmp")
    with open(tmp, "wb") as f:
        f.write(np.bool_(False).tobytes())  # directed = false
        f.write(np.int64(len(csr.targets)).tobytes())  # arcs (both directions)
        f.write(np.int64(csr.vertices).tobytes())
        f.write(csr.offsets.tobytes())
        if csr.weights is None:
            f.write(csr.targets.tobytes())
        else:
            pairs = np.empty((len(csr.targets), 2), dtype=np.int32)
            pairs[:, 0], pairs[:, 1] = csr.targets, csr.weights
            f.write(pairs.tobytes())
    tmp.replace(out)
    log(f"wrote {out} in {time.perf_counter() - start:.1f} s")


# --------------------------------------------------------------------------------------
# Tools


def vastgraph_cell(args, job: Job, peer: PeerInput, cell_dir: Path) -> dict:
    if peer.store is None:
        raise CellError("no store")
    algo = job.algorithm
    trial_seconds, rss, mutable, process_rss, summaries, iterations = [], [], [], [], [], []
    foreign = []
    for source in job.sources:
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
            job.trials,
            "--stats",
            stats_path,
            "--force",  # the stats file of an earlier round is replaced
            "--quiet",  # no progress output while timing
        ]
        if source is not None:
            argv += ["--source", source]
        for key, value in job.params.items():
            argv += [f"--{key.replace('_', '-')}", value]
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
        summaries.append(vastgraph_summary(algo, stats, peer.vertices))
    return timing_cell(
        trial_seconds,
        process_rss,
        foreign,
        summaries,
        peak_rss_bytes=max_known(rss),
        peak_mutable_bytes=max_known(mutable),
        iterations=iterations,
    )


# Result facts that do not depend on how an algorithm breaks ties or draws random numbers, so
# every tool must agree on them (per source).
SUMMARY_KEYS = ("reached", "components", "triangles", "max_core", "max_distance")


def vastgraph_summary(algo: str, stats: dict, vertices: int) -> dict:
    """The result facts the CLI reports under the names the peers' summaries use."""
    found = {}
    for scope in (stats, stats.get("extra") or {}):
        if isinstance(scope, dict):
            for key in SUMMARY_KEYS:
                if isinstance(scope.get(key), (int, float)):
                    found[key] = scope[key]
    if algo == "spanning-forest" and "components" in found:
        found = {"forest_edges": vertices - found["components"]}
    if algo == "pagerank" and isinstance(stats.get("iterations"), int):
        found["iterations"] = stats["iterations"]  # must be max_iters, like networkit's
    return found


GAPBS_KERNELS = {"bfs": "bfs", "sssp": "sssp", "bc": "bc", "tc": "tc"}
GAPBS_SUMMARY = {
    "bfs": ("reached", r"BFS Tree has (\d+) nodes"),
    "sssp": ("reached", r"SSSP Tree reaches (\d+) nodes"),
    "cc": ("components", r"There are (\d+) components"),
    "tc": ("triangles", r"(\d+) triangles"),
}


def gapbs_cell(args, job: Job, peer: PeerInput, cell_dir: Path) -> dict:
    algo = job.algorithm
    kernel = {"cc": args.gapbs_cc, "pagerank": args.gapbs_pr}.get(algo, GAPBS_KERNELS.get(algo))
    if kernel is None:
        raise NotApplicable(f"GAPBS has no {algo} kernel")
    if peer.gapbs_graph is None:
        raise CellError(peer.info.get("gapbs_error", "no GAPBS graph"))
    binary = args.gapbs_dir / kernel
    if not os.access(binary, os.X_OK):
        raise CellError(f"{binary} missing")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    trial_seconds, process_rss, summaries, foreign = [], [], [], []
    for source in job.sources:
        argv = [binary, "-f", peer.gapbs_graph, "-n", job.trials, "-a"]
        if source is not None:
            argv += ["-r", source]
        if algo == "bc":
            argv += ["-i", 1]
        if algo == "sssp":
            argv += ["-d", args.gapbs_sssp_delta]
        if algo == "pagerank":  # GAPBS stops when the L1 change < -t, as vastgraph does
            argv += ["-i", job.params["max_iters"], "-t", job.params["tolerance"]]
        log_path = cell_dir / f"gapbs-{algo}-{source if source is not None else 'all'}.log"
        result = timed_run(args, argv, f"GAPBS {kernel}", log_path, env=env)
        times = [float(t) for t in re.findall(r"Trial Time:\s+([0-9.eE+-]+)", result.stdout)]
        if len(times) != int(job.trials):
            raise CellError(
                f"GAPBS {kernel}: found {len(times)} trial times, expected {job.trials}"
            )
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
    return timing_cell(trial_seconds, process_rss, foreign, summaries, kernel=kernel)


NETWORKIT_ALGORITHMS = ("bfs", "sssp", "cc", "pagerank", "kcore", "tc")


def networkit_cell(args, job: Job, peer: PeerInput, cell_dir: Path) -> dict:
    algo = job.algorithm
    if algo == "bc":
        raise NotApplicable("networkit has no single-source BC")
    if algo not in NETWORKIT_ALGORITHMS:
        raise NotApplicable(f"not mapped to a networkit algorithm ({algo})")
    request = {
        "edges_npz": str(peer.edges_npz),
        "algorithm": algo,
        "sources": job.sources,
        "trials": job.trials,
        "threads": args.threads,
        "pr_iters": job.params.get("max_iters"),
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


TOOL_CELLS = {
    "vastgraph": vastgraph_cell,
    "networkit": networkit_cell,
    "gapbs": gapbs_cell,
    "gbbs": gbbs_cell,
}


# --------------------------------------------------------------------------------------
# The run


def algorithm(name: str) -> Algorithm:
    return ALGORITHMS.get(name, Algorithm())


def make_job(args, algo: str, peer: PeerInput) -> Job:
    return Job(
        algorithm=algo,
        params=problem_parameters(args, algo, peer.vertices),
        sources=list(peer.sources) if algorithm(algo).source else [None],
        trials=args.tc_trials if algo == "tc" else args.trials,
    )


def problem_parameters(args, algo: str, vertices: int) -> dict:
    """The parameters every tool runs `algo` with, written out even where they are vastgraph's
    defaults, so that the peers get the same (vastgraph takes each as --key-name value)."""
    if algo in ("pagerank", "personalized-pagerank"):
        return {"max_iters": args.pr_iters, "tolerance": 0.0}  # exactly max_iters iterations
    if algo == "delta-pagerank":
        return {"max_iters": args.delta_pr_max_iters, "tolerance": args.delta_pr_tolerance}
    if algo == "ldd":
        return {"beta": args.ldd_beta}
    if algo == "spanner":
        return {"k": spanner_k(vertices)}
    if algo == "densest":
        return {"epsilon": args.densest_epsilon}
    if algo == "random-walk":
        return {"walk_length": 10, "every": 1}
    return {}


def spanner_k(vertices: int) -> int:
    """vastgraph's default spanner k, ⌈log2 n⌉ (at least 1)."""
    return max(1, (vertices - 1).bit_length())


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
            "delta_pr_tolerance": args.delta_pr_tolerance,
            "delta_pr_max_iters": args.delta_pr_max_iters,
            "tools": args.tools,
            "vastgraph": str(args.vastgraph),
            "gapbs_dir": str(args.gapbs_dir) if args.gapbs_dir else None,
            "gapbs_commit": read_text_or_none(args.gapbs_dir / "COMMIT")
            if args.gapbs_dir
            else None,
            "gapbs_sssp_delta": args.gapbs_sssp_delta,
            "gbbs_dir": str(args.gbbs_dir) if args.gbbs_dir else None,
            "gbbs_commit": read_text_or_none(args.gbbs_dir / "COMMIT") if args.gbbs_dir else None,
            "networkit_version": networkit_version(),
        },
        "graphs": {},
        "results": [],
    }
    for spec in specs:
        peers: dict[bool, PeerInput | CellError] = {}
        for weighted in sorted({algorithm(a).weighted for a in args.algos}):
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
            peer = peers[algorithm(algo).weighted]
            row = {"algorithm": algo, "graph": spec.name, "tools": {}, "loadavg": os.getloadavg()}
            if isinstance(peer, PeerInput):
                job = make_job(args, algo, peer)
                row["sources"] = peer.sources if algorithm(algo).source else None
                row["parameters"] = job.params
                cell_dir = peer.edges_npz.parent / "runs"
                cell_dir.mkdir(exist_ok=True)
            for tool in args.tools:
                if isinstance(peer, CellError):
                    row["tools"][tool] = {"error": "graph failed (see Graphs)"}
                    continue
                if (tool == "gapbs" and args.gapbs_dir is None) or (
                    tool == "gbbs" and args.gbbs_dir is None
                ):
                    continue
                log(f"{spec.name} {algo} {tool}")
                try:
                    row["tools"][tool] = TOOL_CELLS[tool](args, job, peer, cell_dir)
                except NotApplicable as reason:
                    row["tools"][tool] = {"not_applicable": str(reason)}
                except CellError as error:
                    row["tools"][tool] = {"error": str(error)}
                except Exception as error:
                    traceback.print_exc()
                    row["tools"][tool] = {"error": f"{type(error).__name__}: {error}"}
                cell = row["tools"][tool]
                log(f"  -> {cell.get('median_seconds', cell.get('error', 'n/a'))}")
            row["check"] = consistency({t: c for t, c in row["tools"].items() if "summaries" in c})
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
    if "not_applicable" in cell:
        return "n/a"
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


def rss_cell(tool: str, cell: dict | None) -> str:
    cell = cell or {}
    # vastgraph's own VmHWM; a peer's from GNU time (mmap'd graph pages it touched included).
    value = cell.get("peak_rss_bytes") if tool == "vastgraph" else None
    value = value or cell.get("process_max_rss_bytes")
    return "-" if not value else f"{value / 2**20:.0f} MiB"


def markdown(report: dict) -> str:
    meta = report["meta"]
    tools = [t for t in meta["tools"] if any(t in row["tools"] for row in report["results"])]
    peers = [t for t in tools if t != "vastgraph"]
    name = TOOL_NAMES.get
    lines = [
        f"## Engine benchmark ({meta['started']}, {meta['threads']} threads, "
        f"{meta['cpus']} CPUs, load {meta['loadavg_start'][0]:.2f} at start)",
        "",
        f"Median of per-trial algorithm times in seconds; {meta['sources_per_graph']} sources x "
        f"{meta['trials']} trials for the algorithms from a source, {meta['trials']} trials "
        f"otherwise ({meta['tc_trials']} for tc). Every tool runs the same parameters "
        "(`parameters` in the JSON). Ratios < 1: vastgraph faster.",
        "",
    ]
    ratio_tools = peers if "vastgraph" in tools else []
    header = (
        ["algorithm", "graph"]
        + [f"{name(t, t)} s" for t in tools]
        + [f"vastgraph/{name(t, t)}" for t in ratio_tools]
        + [f"{name(t, t)} peak RSS" for t in tools]
        + ["check"]
    )
    lines += [
        "| " + " | ".join(header) + " |",
        "|---|---|" + "---:|" * (len(header) - 3) + "---|",
    ]
    for row in report["results"]:
        cells = row["tools"]
        vg = cells.get("vastgraph")
        lines.append(
            "| "
            + " | ".join(
                [row["algorithm"], row["graph"]]
                + [seconds_cell(cells.get(t)) for t in tools]
                + [ratio_cell(vg, cells.get(t)) for t in ratio_tools]
                + [rss_cell(t, cells.get(t)) for t in tools]
                + [row.get("check", "")]
            )
            + " |"
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
    for graph, variants in report["graphs"].items():
        for variant, info in variants.items():
            if "error" in info:
                lines.append(f"- {graph} ({variant}): {info['error']}")
            else:
                lines.append(
                    f"- {graph} ({variant}): {info['vertices']:,} vertices "
                    f"({info['vertices_with_edges']:,} with edges), "
                    f"{info['undirected_edges']:,} undirected edges; sources {info['sources']}"
                )
    not_applicable: dict[str, dict[str, str]] = {}
    for row in report["results"]:
        for tool, cell in row["tools"].items():
            if "not_applicable" in cell:
                not_applicable.setdefault(tool, {})[row["algorithm"]] = cell["not_applicable"]
    if not_applicable:
        lines += ["", "n/a (the tool has no program for the problem):"]
        for tool, reasons in not_applicable.items():
            listed = "; ".join(f"{algo} ({reason})" for algo, reason in reasons.items())
            lines.append(f"- {name(tool, tool)}: {listed}")
    algos = []
    for row in report["results"]:
        if row["algorithm"] not in algos:
            algos.append(row["algorithm"])
    lines += ["", "Not like for like:"]
    lines += [f"- {a}: {COMPARABILITY_NOTES[a]}" for a in algos if a in COMPARABILITY_NOTES]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--graphs",
        default="kron20,kron22,cnr-2000",
        help="comma-separated: kron<S>, a data-dir name, or name=path",
    )
    parser.add_argument(
        "--algos",
        default=",".join(ENGINE_ALGORITHMS),
        help="comma-separated, or `all` for every algorithm of `vastgraph run --help`",
    )
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--sources", type=int, default=4, help="sources for the algorithms from a source"
    )
    parser.add_argument("--trials", type=int, default=3, help="trials per source / per run")
    parser.add_argument("--tc-trials", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1, help="picks the sources")
    parser.add_argument(
        "--pr-iters",
        type=int,
        default=20,
        help="pagerank, personalized-pagerank: exactly this many iterations (tolerance 0)",
    )
    parser.add_argument("--delta-pr-tolerance", type=float, default=1e-6)
    parser.add_argument("--delta-pr-max-iters", type=int, default=100)
    parser.add_argument("--ldd-beta", type=float, default=0.2)
    parser.add_argument("--densest-epsilon", type=float, default=0.001)
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
    args.tools = [t for t in args.tools.split(",") if t]
    known = list(ALGORITHMS)
    if "vastgraph" in args.tools:
        known = registry_algorithms(args.vastgraph)
        missing = [a for a in known if a not in ALGORITHMS]
        if missing:
            log(f"not in bench_engine.ALGORITHMS (run with vastgraph's defaults): {missing}")
    args.algos = known if args.algos == "all" else [a for a in args.algos.split(",") if a]
    for algo in args.algos:
        if algo not in known:
            parser.error(f"unknown algorithm {algo!r} (known: {', '.join(known)})")
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
    gbbs = os.environ.get("GBBS_DIR")
    args.gbbs_dir = Path(gbbs).resolve() if gbbs else None
    if "gbbs" in args.tools and args.gbbs_dir is None:
        log("GBBS_DIR is not set: no GBBS column")
    if args.gbbs_dir is not None and gbbs_binary(args.gbbs_dir, GBBS_PROGRAMS["bfs"]) is None:
        parser.error(f"GBBS_DIR={args.gbbs_dir} has no built GBBS binaries (BFS)")
    return args


def registry_algorithms(vastgraph: Path) -> list[str]:
    """The algorithm names `vastgraph run --help` lists (the registry's, in its order)."""
    try:
        text = subprocess.run(
            [str(vastgraph), "run", "--help"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise SystemExit(f"{vastgraph} run --help failed: {error}") from error
    match = re.search(r"\[possible values: ([^\]]+)\]", text)
    if not match:
        raise SystemExit(f"{vastgraph} run --help lists no algorithms")
    return [a.strip() for a in match.group(1).split(",")]


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
