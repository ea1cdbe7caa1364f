#!/usr/bin/env python3
"""PageRank and its variants on tiles (`vastgraph tile`) against the same store's lists and against peers.

In memory (--in-memory), in interleaved rounds: `vastgraph run pagerank` on the tiled store (it
reads the tiles), the same with `--no-tiles` (it reads the lists), and GAPBS `pr` on the same
CSR; --iterations iterations at tolerance 0, --trials trials, 2 threads. Reported per graph: the
medians over the rounds of vastgraph's kernel time (the median of its trials) and of GAPBS's
`Average Time`, GAPBS/tiles (above 1: tiles faster), lists/tiles, and the L1 distance between
the scores of tiles and of lists (first round).

Variants (--variants, by default the --in-memory graphs), in memory, in interleaved rounds:
`vastgraph run personalized-pagerank --sources 0 --tolerance 1e-9`, `delta-pagerank --tolerance
1e-9` and `label-propagation --max-iters 10` on the tiled store and the same with `--no-tiles`,
--trials trials, 2 threads. Reported per graph and algorithm: the medians over the rounds of the
kernel time on tiles and on lists, lists/tiles, the tiled run's rounds on tiles over its rounds
(the stats' `tile_rounds` and `iterations`; label propagation reads the tiles in every round),
the layout each run read (the stats' `layout`), and whether the outputs of tiles and of lists
(first round, `-o FILE.npy`) are identical: the largest absolute difference of the scores, the
number of differing labels.

Out of core (--out-of-core), with `--memory BUDGET`, each run from a cold page cache inside a
cgroup-v1 memory cgroup limited to the budget plus 256 MiB: vastgraph on the tiles, on the lists,
and GridGraph's `pagerank` on its grid, --ooc-iterations iterations. Reported: seconds an
iteration, bytes read an arc an iteration, MB/s, I/O wait, compute, the cgroup's peak, and the
floor: the tiles' bytes over fio's sequential bandwidth on `tile_edges.u32`, measured before
and after the runs (dd without fio). Last, the tiles' size and build time against the CSR.

Inputs under --workdir, each reused when present: `kronS` (`vastgraph generate kron --scale S
--symmetrize`) or `NAME` (the one DATA_DIR/*NAME*.tsv.zst, `vastgraph convert --symmetrize`);
`NAME-tiles` (`cp -al NAME NAME-tiles`, then `vastgraph tile NAME-tiles`); `NAME.sg`, GAPBS's
serialized CSR (bool directed, int64 arcs, int64 vertices, int64 offsets, int32 neighbours: the
raw store's two files as they are); `NAME-grid`, GridGraph's grid, from a temporary edge list of
(u32, u32) arcs (32 partitions above 2^24 vertices, else 16; the grid holds 8 bytes an arc in
its blocks and again in its row and column files).

Peers come from the environment only; nothing is downloaded or built. GAPBS_DIR: a GAPBS
checkout with `pr` built; GRIDGRAPH_DIR: a GridGraph checkout with `bin/preprocess` and
`bin/pagerank` built. Without one, its column is skipped. A failing run is recorded as an error
and the others go on. Typical use (root, for drop_caches and the cgroup):

    GAPBS_DIR=~/gapbs GRIDGRAPH_DIR=~/GridGraph scripts/bench_tiles.py --json /tmp/tiles.json

Markdown tables go to stdout, each followed by the commands behind it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench_out_of_core import (Cgroup, drop_caches, fio, log, median, parse_size, run_vastgraph,
                               warm_page_cache)

ROOT = Path(__file__).resolve().parent.parent
CGROUP_SLACK = 256 << 20  # the process beyond its budget: code, threads, allocator
THREADS = "2"
TOOLS_IN_MEMORY = (("tiles", "vastgraph tiles"), ("lists", "vastgraph lists"), ("gapbs", "GAPBS"))
# Run in memory on the tiled store and with --no-tiles, their outputs compared.
VARIANTS = (("personalized-pagerank", ["--sources", "0", "--tolerance", "1e-9"]),
            ("delta-pagerank", ["--tolerance", "1e-9"]),
            ("label-propagation", ["--max-iters", "10"]))
TOOLS_OUT_OF_CORE = (("tiles", "vastgraph tiles"), ("lists", "vastgraph lists"), ("gridgraph", "GridGraph"))


class Failed(Exception):
    pass


def call(argv: list, log_path: Path, env: dict | None = None, wrap=None) -> tuple[str, str, float]:
    """Runs argv (through `wrap`, a cgroup's), keeps its output in log_path, and returns its stdout,
    stderr and seconds; raises Failed with its last line of output when it fails."""
    argv = [str(a) for a in argv]
    log(" ".join(shlex.quote(a) for a in argv))
    started = time.monotonic()
    r = subprocess.run(wrap(argv) if wrap else argv, capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - started
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text(r.stdout + r.stderr)
    if r.returncode != 0:
        lines = (r.stderr.strip() or r.stdout.strip()).splitlines()
        raise Failed(lines[-1] if lines else f"exit {r.returncode}")
    return r.stdout, r.stderr, elapsed


def attempt(what: str, fn, *args) -> dict:
    """One cell: its row, or {"error": ...} when it fails."""
    try:
        return fn(*args)
    except Exception as e:  # a failing cell must not stop the others
        log(f"{what} failed: {e}")
        return {"error": str(e) if isinstance(e, Failed) else f"{type(e).__name__}: {e}"}


def manifest(store: Path) -> dict | None:
    path = store / "manifest.json"
    return json.loads(path.read_text()) if path.exists() else None


def raw_files(store: Path) -> tuple[dict, Path, Path]:
    m, offsets, neighbors = manifest(store), store / "offsets.u64", store / "neighbors.u32"
    if (not offsets.exists() or offsets.stat().st_size != 8 * (m["vertices"] + 1)
            or not neighbors.exists() or neighbors.stat().st_size != 4 * m["arcs"]):
        raise Failed(f"{store} is not a raw store (offsets.u64 and neighbors.u32)")
    return m, offsets, neighbors


def ratio(a, b):
    return None if a is None or not b else a / b


# ---------------------------------------------------------------------------------------------
# Inputs


def build_store(args, name: str) -> dict:
    store = args.workdir / name
    scale = re.fullmatch(r"kron(\d+)", name)
    if scale:
        argv = [args.binary, "--quiet", "generate", "kron", "--scale", scale[1], "--symmetrize"]
    elif manifest(store):
        return {"store": store}
    elif not args.data_dir.is_dir():
        raise Failed(f"{args.data_dir} is missing: no {name}")
    else:
        found = sorted(args.data_dir.glob(f"*{name}*.tsv.zst"))
        if len(found) != 1:
            raise Failed(f"expected one {args.data_dir}/*{name}*.tsv.zst, found {len(found)}")
        argv = [args.binary, "--quiet", "convert", found[0], "--symmetrize"]
    argv += ["-o", store, "--force"]
    if not manifest(store):
        call(argv, args.workdir / "logs" / f"{name}-build.log")
    return {"store": store, "command": " ".join(map(str, argv))}


def build_tiles(args, name: str, store: Path) -> dict:
    """`cp -al STORE STORE-tiles && vastgraph tile STORE-tiles`, unless it has tiles of the side asked."""
    tiled = store.with_name(store.name + "-tiles")
    argv = [args.binary, "--quiet", "tile", tiled]
    argv += ["--side-log2", args.side_log2] if args.side_log2 is not None else []
    row = {"tiled_store": tiled, "command": f"cp -al {store} {tiled} && " + " ".join(map(str, argv))}
    tiles = (manifest(tiled) or {}).get("tiles")
    if tiles and args.side_log2 in (None, tiles["side_log2"]):
        # Reused: the build time the tile build recorded in the manifest.
        options = manifest(tiled)["provenance"].get("options") or {}
        row.update(reused=True, tile_seconds=(options.get("tiles") or {}).get("build_seconds"))
    else:
        if tiled.exists():
            shutil.rmtree(tiled)
        call(["cp", "-al", store, tiled], args.workdir / "logs" / f"{name}-cp.log")
        _, err, elapsed = call(argv, args.workdir / "logs" / f"{name}-tile.log")
        row.update(reused=False, tile_seconds=elapsed, summary=(err.strip().splitlines() or [""])[-1])
    m, offsets, neighbors = raw_files(store)
    row.update(vertices=m["vertices"], arcs=m["arcs"], csr_bytes=offsets.stat().st_size + neighbors.stat().st_size,
               tile_bytes=sum(f.stat().st_size for f in tiled.glob("tile_*") if not f.name.endswith(".pagesums")),
               **manifest(tiled)["tiles"])
    return row


def write_gapbs(store: Path, out: Path) -> dict:
    """GAPBS's .sg: bool directed, int64 arcs, int64 vertices, then the store's own files (int64
    offsets, int32 neighbours), streamed."""
    if not out.exists():
        m, offsets, neighbors = raw_files(store)
        tmp = out.with_suffix(".sg.tmp")
        with open(tmp, "wb") as f:
            f.write(b"\x00" + struct.pack("<qq", m["arcs"], m["vertices"]))
            for path in (offsets, neighbors):
                with open(path, "rb") as src:
                    shutil.copyfileobj(src, f, 1 << 24)
        tmp.replace(out)
    return {"sg": out}


def write_edge_list(store: Path, out: Path, block_arcs: int = 1 << 24) -> None:
    """Every arc as a (u32 source, u32 target) pair, in blocks of vertices of about `block_arcs` arcs."""
    m, offsets_path, neighbors_path = raw_files(store)
    offsets = np.memmap(offsets_path, dtype="<u8", mode="r")
    neighbors = np.memmap(neighbors_path, dtype="<u4", mode="r")
    n, lo = m["vertices"], 0
    with open(out, "wb") as f:
        while lo < n:
            limit = np.uint64(int(offsets[lo]) + block_arcs)
            hi = min(n, max(lo + 1, int(np.searchsorted(offsets, limit, side="right")) - 1))
            off = np.asarray(offsets[lo:hi + 1], dtype=np.int64)
            pairs = np.empty((off[-1] - off[0], 2), dtype="<u4")
            pairs[:, 0] = np.repeat(np.arange(lo, hi, dtype=np.uint32), np.diff(off))
            pairs[:, 1] = neighbors[off[0]:off[-1]]
            pairs.tofile(f)
            lo = hi


def build_grid(args, name: str, store: Path) -> dict:
    grid = args.workdir / f"{name}-grid"
    record = grid / "bench-preprocess.json"
    if (grid / "meta").exists():  # meta: edge type, vertices, edges, partitions
        return json.loads(record.read_text()) if record.exists() else {
            "grid": str(grid), "partitions": int((grid / "meta").read_text().split()[3])}
    n = manifest(store)["vertices"]
    partitions = 32 if n > 1 << 24 else 16  # a grid of P × P blocks whose vertex chunks fit the budget
    edges = args.workdir / f"{name}.edges.u32x2"
    argv = [args.gridgraph / "bin" / "preprocess", "-i", edges, "-o", grid, "-v", n, "-p", partitions, "-t", 0]
    try:
        write_edge_list(store, edges)
        _, _, elapsed = call(argv, args.workdir / "logs" / f"{name}-preprocess.log")
    finally:
        edges.unlink(missing_ok=True)
    row = {"grid": str(grid), "partitions": partitions, "preprocess_seconds": elapsed,
           "command": " ".join(map(str, argv))}
    record.write_text(json.dumps(row))
    return row


# ---------------------------------------------------------------------------------------------
# In memory


def vastgraph_in_memory(args, tiled: Path, layout: str, out_dir: Path, round_: int) -> dict:
    stats = out_dir / f"pagerank-{layout}-{round_}.json"
    argv = [args.binary, "--quiet", "run", "pagerank", tiled, "--max-iters", args.iterations, "--tolerance", "0",
            "--trials", args.trials, "--threads", THREADS, "--stats", stats, "--force"]
    argv += (["--no-tiles"] if layout == "lists" else []) + (["-o", out_dir / f"{layout}.npy"] if round_ == 0 else [])
    call(argv, out_dir / f"pagerank-{layout}-{round_}.log")
    s = json.loads(stats.read_text())
    trials = s.get("trial_seconds") or [s["wall_seconds"]]
    row = {"seconds": median(trials), "trial_seconds": s.get("trial_seconds"), "iterations": s.get("iterations"),
           "layout": (s.get("extra") or {}).get("layout"), "command": " ".join(map(str, argv))}
    if row["layout"] != layout:
        raise Failed(f"asked for {layout}, the run read {row['layout']}")
    return row


def gapbs_in_memory(args, sg: Path, out_dir: Path, round_: int) -> dict:
    argv = [args.gapbs / "pr", "-f", sg, "-i", args.iterations, "-t", "0", "-n", args.trials]
    out, _, _ = call(argv, out_dir / f"gapbs-pr-{round_}.log", env=dict(os.environ, OMP_NUM_THREADS=THREADS))
    found = re.search(r"Average Time:\s+([0-9.eE+-]+)", out)
    if not found:
        raise Failed("GAPBS pr printed no `Average Time:`")
    return {"seconds": float(found[1]), "command": f"OMP_NUM_THREADS={THREADS} " + " ".join(map(str, argv))}


def in_memory(args, name: str, tiled: Path, sg: Path | None) -> dict:
    out_dir = args.workdir / "runs" / name / "in-memory"
    out_dir.mkdir(parents=True, exist_ok=True)
    for layout in ("tiles", "lists"):
        (out_dir / f"{layout}.npy").unlink(missing_ok=True)
    warm_page_cache(tiled)
    rounds = []
    for round_ in range(args.rounds):
        row = {"round": round_}
        for layout in ("tiles", "lists"):
            row[layout] = attempt(f"{name} {layout}", vastgraph_in_memory, args, tiled, layout, out_dir, round_)
        if sg is not None:
            row["gapbs"] = attempt(f"{name} GAPBS", gapbs_in_memory, args, sg, out_dir, round_)
        rounds.append(row)
    out = {"rounds": rounds}
    try:
        tiles, lists = (np.load(out_dir / f"{layout}.npy").astype(np.float64) for layout in ("tiles", "lists"))
        out["l1_tiles_lists"] = float(np.abs(tiles - lists).sum())
    except (OSError, ValueError) as e:
        log(f"{name}: no L1 difference ({e})")
    for tool, _ in TOOLS_IN_MEMORY:
        out[tool] = median([r[tool].get("seconds") for r in rounds if tool in r])
    out["gapbs_over_tiles"] = ratio(out["gapbs"], out["tiles"])  # above 1: tiles faster
    out["lists_over_tiles"] = ratio(out["lists"], out["tiles"])
    return out


# ---------------------------------------------------------------------------------------------
# Variants in memory


def vastgraph_variant(args, tiled: Path, algorithm: str, params: list, layout: str, out_dir: Path,
                      round_: int) -> dict:
    stats = out_dir / f"{algorithm}-{layout}-{round_}.json"
    argv = [args.binary, "--quiet", "run", algorithm, tiled, *params, "--trials", args.trials,
            "--threads", THREADS, "--stats", stats, "--force"]
    argv += (["--no-tiles"] if layout == "lists" else []) + (["-o", out_dir / f"{algorithm}-{layout}.npy"]
                                                             if round_ == 0 else [])
    call(argv, out_dir / f"{algorithm}-{layout}-{round_}.log")
    s = json.loads(stats.read_text())
    extra = s.get("extra") or {}
    trials = s.get("trial_seconds") or [s["wall_seconds"]]
    row = {"seconds": median(trials), "trial_seconds": s.get("trial_seconds"), "iterations": s.get("iterations"),
           "tile_rounds": extra.get("tile_rounds"), "layout": extra.get("layout"), "command": " ".join(map(str, argv))}
    # On the tiled store a rank variant reads lists in every round with few active vertices, and
    # reports `lists` when no round had many: reported, not an error. With --no-tiles, tiles are.
    if layout == "lists" and row["layout"] != "lists":
        raise Failed(f"asked for lists, the run read {row['layout']}")
    return row


def compare_outputs(out_dir: Path, algorithm: str) -> dict:
    """Whether the first round's outputs on tiles and on lists are identical, with the largest
    absolute difference (scores) or the number of differing values (labels)."""
    try:
        tiles, lists = (np.load(out_dir / f"{algorithm}-{layout}.npy") for layout in ("tiles", "lists"))
    except (OSError, ValueError) as e:
        log(f"{out_dir}: no {algorithm} outputs to compare ({e})")
        return {}
    out = {"outputs_equal": bool(tiles.shape == lists.shape and np.array_equal(tiles, lists))}
    if tiles.shape != lists.shape:
        out["shapes"] = [list(tiles.shape), list(lists.shape)]
    elif np.issubdtype(tiles.dtype, np.floating):
        diff = np.abs(tiles.astype(np.float64) - lists.astype(np.float64))
        out["max_abs_difference"] = float(diff.max()) if diff.size else 0.0
    else:
        out["values_differing"] = int(np.count_nonzero(tiles != lists))
    return out


def variants(args, name: str, tiled: Path) -> dict:
    out_dir = args.workdir / "runs" / name / "variants"
    out_dir.mkdir(parents=True, exist_ok=True)
    for algorithm, _ in VARIANTS:
        for layout in ("tiles", "lists"):
            (out_dir / f"{algorithm}-{layout}.npy").unlink(missing_ok=True)
    warm_page_cache(tiled)
    rounds = []
    for round_ in range(args.rounds):
        row = {"round": round_}
        for algorithm, params in VARIANTS:
            row[algorithm] = {layout: attempt(f"{name} {algorithm} {layout}", vastgraph_variant, args, tiled,
                                              algorithm, params, layout, out_dir, round_)
                              for layout in ("tiles", "lists")}
        rounds.append(row)
    out = {"rounds": rounds, "algorithms": {}}
    for algorithm, params in VARIANTS:
        a = out["algorithms"][algorithm] = {"parameters": " ".join(params)}
        for layout in ("tiles", "lists"):
            ok = [r[algorithm][layout] for r in rounds if "error" not in r[algorithm][layout]]
            first = ok[0] if ok else {}
            a[layout] = median([x["seconds"] for x in ok])
            a[f"{layout}_rounds"] = len(ok)
            a[f"{layout}_layouts"] = sorted({str(x["layout"]) for x in ok})
            a[f"{layout}_iterations"] = first.get("iterations")
            a[f"{layout}_tile_rounds"] = first.get("tile_rounds")
        a["lists_over_tiles"] = ratio(a["lists"], a["tiles"])
        a.update(compare_outputs(out_dir, algorithm))
    return out


# ---------------------------------------------------------------------------------------------
# Out of core


def vastgraph_out_of_core(args, tiled: Path, layout: str, budget: int, cgroup: Cgroup, out_dir: Path,
                          round_: int, arcs: int) -> dict:
    extra = ["--max-iters", str(args.ooc_iterations), "--tolerance", "0", "--threads", THREADS]
    label = ", lists" if layout == "lists" else ""
    row = run_vastgraph(args.binary, "pagerank", tiled, "adaptive", budget,
                        extra + (["--no-tiles"] if layout == "lists" else []), cgroup, True, out_dir, round_,
                        label=label)
    if row.get("exit"):
        return row
    stats = out_dir / f"pagerank-adaptive{label.replace(', ', '-')}-{round_}.json"  # as run_vastgraph names it
    row["layout"] = (json.loads(stats.read_text()).get("extra") or {}).get("layout")
    if row["layout"] != layout:
        row["error"] = f"asked for {layout}, the run read {row['layout']}"
    row["seconds_per_iteration"] = ratio(row.get("wall_seconds"), row.get("iterations"))
    row["bytes_per_arc"] = ratio(row.get("bytes_read"), (row.get("iterations") or 0) * arcs)
    return row


def gridgraph_out_of_core(args, grid: Path, budget: int, cgroup: Cgroup, out_dir: Path, round_: int) -> dict:
    argv = [args.gridgraph / "bin" / "pagerank", grid, args.ooc_iterations, f"{budget / (1 << 30):g}"]
    dropped = drop_caches()
    cgroup.reset_peak()
    out, _, elapsed = call(argv, out_dir / f"gridgraph-{round_}.log", wrap=cgroup.wrap)
    took = re.search(r"iterations of pagerank took ([0-9.]+) seconds", out)
    degree = re.search(r"degree calculation used ([0-9.]+) seconds", out)
    row = {"command": " ".join(map(str, argv)), "cold_cache": dropped, "process_seconds": elapsed,
           "cgroup_peak_bytes": cgroup.peak(), "oom_kills": cgroup.oom_kills(),
           "own_seconds": float(took[1]) if took else None, "degree_seconds": float(degree[1]) if degree else None}
    # Its own time covers a pass counting the degrees, then the iterations.
    iterations_only = row["own_seconds"] - (row["degree_seconds"] or 0) if took else elapsed
    row["seconds_per_iteration"] = iterations_only / args.ooc_iterations
    return row


def out_of_core(args, name: str, tiles: dict, grid: dict | None, budget: int, cgroup: Cgroup) -> dict:
    out_dir = args.workdir / "runs" / name / "out-of-core"
    out_dir.mkdir(parents=True, exist_ok=True)
    tiled = Path(tiles["tiled_store"])
    edges = tiled / "tile_edges.u32"
    out = {"fio_before": fio(edges, args.fio_seconds) if args.fio_seconds > 0 else {}, "rounds": []}
    for round_ in range(args.rounds):
        row = {"round": round_}
        for layout in ("tiles", "lists"):
            row[layout] = attempt(f"{name} {layout} out of core", vastgraph_out_of_core, args, tiled, layout,
                                  budget, cgroup, out_dir, round_, tiles["arcs"])
        if grid is not None and "error" not in grid:
            row["gridgraph"] = attempt(f"{name} GridGraph", gridgraph_out_of_core, args, Path(grid["grid"]),
                                       budget, cgroup, out_dir, round_)
        out["rounds"].append(row)
    out["fio_after"] = fio(edges, args.fio_seconds) if args.fio_seconds > 0 else {}
    # The disk drifts: the faster fio figure gives the strict floor, the slower the lenient one.
    seqs = [x for x in ((out[k].get("sequential") or {}).get("MB_per_s") for k in ("fio_before", "fio_after")) if x]
    out["floor_seconds"] = tiles["tile_bytes"] / (max(seqs) * 1e6) if seqs else None
    out["floor_seconds_slower"] = tiles["tile_bytes"] / (min(seqs) * 1e6) if seqs else None
    for tool, _ in TOOLS_OUT_OF_CORE:
        ok = [r[tool] for r in out["rounds"] if tool in r and not r[tool].get("error")]
        out[tool] = {k: median([r.get(k) for r in ok]) for k in (
            "seconds_per_iteration", "bytes_per_arc", "read_mb_per_s", "io_wait_seconds", "compute_seconds",
            "cgroup_peak_bytes", "process_seconds")}
        out[tool]["rounds"] = len(ok)
        out[tool]["over_floor"] = ratio(out[tool]["seconds_per_iteration"], out["floor_seconds"])
        out[tool]["over_tiles"] = ratio(out[tool]["seconds_per_iteration"], out["tiles"]["seconds_per_iteration"])
    return out


# ---------------------------------------------------------------------------------------------
# Report


def fmt(v, spec: str = ".2f") -> str:
    return "—" if v is None else format(v, spec)


def section(title: str, header: list[str], rows: list[list[str]], notes: list[str], used: list[dict]) -> list[str]:
    """A Markdown table (first column left-aligned), its notes, then the commands behind it, each once."""
    lines = [f"## {title}", "", "| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows] + [""] + notes + (["", "Commands:", ""] if used else [])
    return lines + [f"    {c}" for c in dict.fromkeys(str(u["command"]) for u in used if u.get("command"))] + [""]


def errors(name: str, rounds: list[dict], tools) -> list[str]:
    return [f"- {name}, {label}, round {r['round']}: {r[tool]['error']}"
            for r in rounds for tool, label in tools if tool in r and r[tool].get("error")]


def report(args, results: dict) -> str:
    graphs, lines = results["graphs"], []
    rows, notes, used = [], [], []
    for name, g in graphs.items():
        m = g.get("in_memory")
        if m and "error" in m:
            notes.append(f"- {name}: {m['error']}")
        elif m:
            rows.append([name, f"{g['build']['vertices']:,}", f"{g['build']['arcs']:,}",
                         *(fmt(m[tool], ".3f") for tool, _ in TOOLS_IN_MEMORY), fmt(m["gapbs_over_tiles"]),
                         fmt(m["lists_over_tiles"]), fmt(m.get("l1_tiles_lists"), ".2e")])
            notes += errors(name, m["rounds"], TOOLS_IN_MEMORY)
            used += [v for k, v in m["rounds"][0].items() if k != "round"] if m["rounds"] else []
    lines += section(f"In memory: PageRank, {args.iterations} iterations, tolerance 0, {THREADS} threads; medians of "
                     f"{args.rounds} rounds (vastgraph: the median of {args.trials} trials, GAPBS: their average)",
                     ["graph", "vertices", "arcs", "tiles s", "lists s", "GAPBS s", "GAPBS / tiles", "lists / tiles",
                      "L1(tiles − lists)"], rows, notes, used)

    rows, notes, used = [], [], []
    for name, g in graphs.items():
        v = g.get("variants")
        if v and "error" in v:
            notes.append(f"- {name}: {v['error']}")
        elif v:
            for algorithm, _ in VARIANTS:
                a = v["algorithms"][algorithm]
                if a["tiles_tile_rounds"] is not None:
                    on_tiles = f"{a['tiles_tile_rounds']}/{fmt(a['tiles_iterations'], 'd')}"
                elif a["tiles_layouts"] == ["tiles"]:  # label propagation: every round
                    on_tiles = f"{fmt(a['tiles_iterations'], 'd')}/{fmt(a['tiles_iterations'], 'd')}"
                else:
                    on_tiles = "—"
                if "outputs_equal" not in a:
                    equal = "—"
                elif "shapes" in a:
                    equal = f"no (shapes {a['shapes'][0]} and {a['shapes'][1]})"
                elif "max_abs_difference" in a:
                    equal = ("yes" if a["outputs_equal"] else "no") + f" (max abs diff {a['max_abs_difference']:.2e})"
                else:
                    equal = "yes" if a["outputs_equal"] else f"no ({a['values_differing']:,} differ)"
                layouts = " / ".join(",".join(a[f"{layout}_layouts"]) or "—" for layout in ("tiles", "lists"))
                rows.append([name, algorithm, fmt(a["tiles"], ".3f"), fmt(a["lists"], ".3f"),
                             fmt(a["lists_over_tiles"]), on_tiles, equal, layouts,
                             f"{min(a['tiles_rounds'], a['lists_rounds'])}/{args.rounds}"])
                if a["tiles_layouts"] and a["tiles_layouts"] != ["tiles"]:
                    notes.append(f"- {name}, {algorithm}: the tiled store's runs read {', '.join(a['tiles_layouts'])}")
            notes += [f"- {name}, {algorithm} on {layout}, round {r['round']}: {r[algorithm][layout]['error']}"
                      for r in v["rounds"] for algorithm, _ in VARIANTS for layout in ("tiles", "lists")
                      if "error" in r[algorithm][layout]]
            used += [x for k, runs in v["rounds"][0].items() if k != "round" for x in runs.values()] \
                if v["rounds"] else []
    notes += ["", "Rounds on tiles: the tiled run's `tile_rounds` (rounds with more than a twentieth of the vertices "
              "active, summed over every arc of the tiles) over its `iterations`; label propagation gathers from "
              "the tiles in every round when its `layout` is tiles. Outputs: the first round's `-o` files of tiles "
              "and of lists; PageRank scores are fixed-point sums, so identical bit for bit."]
    lines += section(f"Variants in memory: tiles against lists, {THREADS} threads; medians of {args.rounds} rounds "
                     f"(each the median of {args.trials} trials)",
                     ["graph", "algorithm", "tiles s", "lists s", "lists / tiles", "rounds on tiles / rounds",
                      "outputs equal", "layout (tiles / lists run)", "rounds"], rows, notes, used)

    rows, notes, used = [], [], []
    for name, g in graphs.items():
        o = g.get("out_of_core")
        if o and "error" in o:
            notes.append(f"- {name}: {o['error']}")
        elif o:
            for tool, label in TOOLS_OUT_OF_CORE:
                t = o[tool]
                if tool != "gridgraph" or any(tool in r for r in o["rounds"]):
                    rows.append([name, label, fmt(t["seconds_per_iteration"], ".3f"), fmt(t["over_floor"]),
                                 fmt(t["over_tiles"]), fmt(t["bytes_per_arc"]), fmt(t["read_mb_per_s"], ",.0f"),
                                 fmt(t["io_wait_seconds"]), fmt(t["compute_seconds"]),
                                 fmt(ratio(t["cgroup_peak_bytes"], 1 << 20), ",.0f"), f"{t['rounds']}/{args.rounds}"])
            seq = [(o[k].get("sequential") or {}) for k in ("fio_before", "fio_after")]
            notes.append(f"- {name}: floor = tile bytes {g['build']['tile_bytes'] / 1e9:.2f} GB / fio sequential "
                         f"({fmt(seq[0].get('MB_per_s'), ',.0f')} MB/s before, {fmt(seq[1].get('MB_per_s'), ',.0f')} "
                         f"after) = {fmt(o['floor_seconds'], '.3f')} s (the faster; × floor is against it), "
                         f"{fmt(o['floor_seconds_slower'], '.3f')} s (the slower)")
            notes += errors(name, o["rounds"], TOOLS_OUT_OF_CORE)
            used += ([v for k, v in o["rounds"][0].items() if k != "round"] if o["rounds"] else []) + seq
    notes += ["", "GridGraph: its own printed time less its degree pass, over the iterations (its process time is "
              "in the JSON); its scores are not compared. Each run follows `sync; echo 3 > /proc/sys/vm/drop_caches` "
              "and runs inside the cgroup."]
    lines += section(f"Out of core: PageRank, {args.ooc_iterations} iterations, --memory {args.memory}, cold cache, "
                     f"cgroup limit {results['cgroup_limit_bytes'] / (1 << 20):,.0f} MiB; medians of {args.rounds} "
                     "rounds", ["graph", "system", "s / iteration", "× floor", "× tiles", "bytes / arc / iteration",
                                "MB/s", "I/O wait s", "compute s", "cgroup peak MiB", "rounds"], rows, notes, used)

    rows, notes, used = [], [], []
    for name, g in graphs.items():
        b, grid = g["build"], g.get("grid") or {}
        used += [{"command": g.get("store_command")}, b, g.get("gapbs") or {}, grid]
        inputs = (("store or tiles", b), ("GAPBS input", g.get("gapbs")), ("GridGraph grid", grid))
        notes += [f"- {name}, {what}: {x['error']}" for what, x in inputs if x and "error" in x]
        if "error" not in b:
            rows.append([name, f"{b['vertices']:,}", f"{b['arcs']:,}", f"{b['csr_bytes'] / 1e9:.2f}",
                         f"{b['tile_bytes'] / 1e9:.2f}", f"{b['tile_bytes'] / max(b['arcs'], 1):.2f}",
                         f"{b['tile_bytes'] / b['csr_bytes']:.2f}", f"2^{b['side_log2']}", f"{b['tiles']:,}",
                         fmt(b["tile_seconds"], ".1f") + (" (reused)" if b["reused"] else ""),
                         str(grid.get("partitions", "—")), fmt(grid.get("preprocess_seconds"), ".1f")])
    notes.append("Tile build s: the `vastgraph tile` process; for reused tiles, the build time in their manifest.")
    lines += section("Build: tiles against the CSR store (offsets.u64 + neighbors.u32)",
                     ["graph", "vertices", "arcs", "CSR GB", "tiles GB", "tile bytes / arc", "tiles / CSR", "side",
                      "tiles", "tile build s", "GridGraph P", "GridGraph preprocess s"], rows, notes, used)
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "vastgraph")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/vastgraph-tiles-bench"))
    ap.add_argument("--in-memory", default="kron20,kron22,kron24,cnr-2000", help="graphs run in memory")
    ap.add_argument("--out-of-core", default="kron24,kron25", help="graphs run with --memory")
    ap.add_argument("--variants", default=None,
                    help="graphs whose PageRank variants and label propagation run in memory, tiles against "
                         "lists (default: the --in-memory graphs; \"\" skips them)")
    ap.add_argument("--memory", default="1GiB", help="the out-of-core budget; the cgroup allows 256 MiB more")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--trials", type=int, default=3, help="trials of each in-memory run (and variant run)")
    ap.add_argument("--iterations", type=int, default=20, help="PageRank iterations in memory")
    ap.add_argument("--ooc-iterations", type=int, default=5, help="PageRank iterations out of core")
    ap.add_argument("--side-log2", type=int, default=None, help="passed to `vastgraph tile`")
    ap.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data",
                    help="where a graph NAME is the file *NAME*.tsv.zst")
    ap.add_argument("--json", type=Path, default=None, help="write every figure here")
    ap.add_argument("--fio-seconds", type=int, default=10, help="0 skips fio")
    args = ap.parse_args()
    if args.variants is None:
        args.variants = args.in_memory
    # A SIGTERM (e.g. from `timeout`) still removes the cgroup, through the `finally` below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if not args.binary.exists():
        log(f"{args.binary} is missing: cargo build --release -p vastgraph-cli")
        return 2
    args.workdir.mkdir(parents=True, exist_ok=True)
    for attr, var, needed in (("gapbs", "GAPBS_DIR", ["pr"]),
                              ("gridgraph", "GRIDGRAPH_DIR", ["bin/preprocess", "bin/pagerank"])):
        path = Path(os.environ[var]).expanduser().resolve() if os.environ.get(var) else None
        if path is None:
            log(f"{var} is not set: no {attr} column")
        elif not all(os.access(path / n, os.X_OK) for n in needed):
            log(f"{var}={path} lacks a built {' or '.join(needed)}: no {attr} column")
            path = None
        setattr(args, attr, path)
    budget = parse_size(args.memory)
    if args.gridgraph and budget % (1 << 30):
        log("GridGraph reads its budget as whole GiB (atol): it gets the integer part of --memory")
    results = {"binary": args.binary, "gapbs_dir": args.gapbs, "gridgraph_dir": args.gridgraph,
               "budget_bytes": budget, "cgroup_limit_bytes": budget + CGROUP_SLACK, "threads": int(THREADS),
               "graphs": {}}

    def save() -> None:
        if args.json:
            args.json.write_text(json.dumps(results, indent=2, default=str))

    def prepare(name: str) -> dict | None:
        """The graph's store and tiled store, built once; None when either failed."""
        if name not in results["graphs"]:
            g = results["graphs"][name] = {}
            store = attempt(f"{name} store", build_store, args, name)
            g["store"], g["store_command"] = store.get("store"), store.get("command")
            g["build"] = store if "error" in store else attempt(f"{name} tiles", build_tiles, args, name,
                                                                 store["store"])
            save()
        g = results["graphs"][name]
        return None if "error" in g["build"] else g

    # Only the out-of-core runs use the cgroup.
    cgroup = Cgroup(budget + CGROUP_SLACK if any(args.out_of_core.split(",")) else None)
    try:
        for name in filter(None, args.in_memory.split(",")):
            if (g := prepare(name)) is None:
                continue
            if args.gapbs:
                g["gapbs"] = attempt(f"{name} GAPBS input", write_gapbs, g["store"], args.workdir / f"{name}.sg")
            sg = (g.get("gapbs") or {}).get("sg")
            g["in_memory"] = attempt(f"{name} in memory", in_memory, args, name, g["build"]["tiled_store"], sg)
            save()
        for name in filter(None, args.variants.split(",")):
            if (g := prepare(name)) is None:
                continue
            g["variants"] = attempt(f"{name} variants", variants, args, name, g["build"]["tiled_store"])
            save()
        for name in filter(None, args.out_of_core.split(",")):
            if (g := prepare(name)) is None:
                continue
            if args.gridgraph:
                g["grid"] = attempt(f"{name} GridGraph grid", build_grid, args, name, g["store"])
            g["out_of_core"] = attempt(f"{name} out of core", out_of_core, args, name, g["build"], g.get("grid"),
                                       budget, cgroup)
            save()
    finally:
        cgroup.remove()
    save()
    print(report(args, results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
