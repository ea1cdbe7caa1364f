#!/usr/bin/env python3
"""Compressed stores against the raw store, side by side in one run.

For each graph the script builds the raw store (as bench_engine.py does, sharing its work
directory) and a compressed copy per codec (`vastgraph compress --codec C`), then reports:

- size: the codes' bits per arc, the adjacency's bytes per arc (offsets, byte offsets and
  codes; offsets and ids for raw) and the whole store against the raw store;
- traversal with the graph in memory: BFS (from the vertex of largest degree) and PageRank
  (`--pagerank-iters` iterations, tolerance 0) on the raw store and on each compressed one, in
  interleaved rounds whose order reverses every round. Each run's kernel median (of
  `--trials` runs on the loaded graph) is paired with the raw store's of the same round; the
  ratio reported is the median of those paired ratios, with their range, because on a shared
  host one round can be much slower than the next. A run during which other processes used
  more than --busy-threshold of the CPUs is marked †;
- the graph filter (Sage's, what `tc --method filter` deletes edges in): its bytes
  (`filter_bytes` in its stats) against each store;
- beside them, WebGraph's own file when --data-dir holds `webgraph/NAME.graph` for the graph
  (its bits per arc: the .graph file's bits over the arcs of its .properties);
- with --decode, the codec's decode throughput on one core, from the codec crate's
  bench_decode example (needs cargo and this source tree).

    python3 scripts/bench_compression.py --graphs cnr-2000,ego-twitter --rounds 7
    python3 scripts/bench_compression.py --graphs kron22 --rounds 3 --pagerank-trials 3 \\
        --codecs for64,zeta64,streamvbyte64,bytecode64 --decode --json compression.json
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_common import DISTURBED_FRACTION, CellError, checked, log, median, run_process
from bench_engine import REPO_ROOT, GraphPreparer, parse_graph_spec

CODECS = ("for64", "zeta64", "streamvbyte64", "bytecode64")
ALGORITHMS = ("bfs", "pagerank")


def comma_list(choices):
    """An argparse type: a comma-separated, non-empty list of names from `choices`."""

    def parse(text: str) -> list[str]:
        names = [name for name in text.split(",") if name]
        unknown = [name for name in names if name not in choices]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"{unknown or 'nothing'} given; choose from {', '.join(choices)}"
            )
        return names

    return parse


def stats_of(path: str) -> dict:
    return json.loads(Path(path).read_text())


def vastgraph(args, *argv, what: str) -> str:
    """Runs the CLI to completion and returns its standard output."""
    argv = [args.vastgraph, "--quiet", *argv]
    return checked(run_process(argv, timeout=args.timeout), what).stdout


def compressed_store(args, raw: Path, codec: str, graph_dir: Path) -> Path:
    store = graph_dir / codec / "store"
    if (store / "manifest.json").exists() and not args.rebuild:
        return store
    if store.exists():
        shutil.rmtree(store)
    store.parent.mkdir(parents=True, exist_ok=True)
    vastgraph(args, "compress", raw, "-o", store, "--codec", codec, what=f"compress {codec}")
    return store


def sizes(args, store: Path) -> dict:
    """Bytes of the whole store, of its adjacency and of its neighbour codes or ids."""
    info = json.loads(vastgraph(args, "info", store, "--json", what="info"))
    files = {f["name"]: f["bytes"] for f in info["files"]}
    # The graphs are symmetric: the out-lists are all the lists.
    codes = files.get("neighbors.bc64", files.get("neighbors.u32", 0))
    return {
        "arcs": info["arcs"],
        "store_bytes": sum(files.values()),
        "adjacency_bytes_per_arc": info["bytes_per_arc"],
        "neighbour_bits_per_arc": 8 * codes / info["arcs"] if info["arcs"] else None,
    }


def kernel_median(args, algorithm: str, store: Path) -> tuple[float, float]:
    """One run of `algorithm` on `store`: the median of its trials' kernel seconds, and the
    share of the CPUs other processes used meanwhile."""
    if algorithm == "pagerank":
        extra = ["--max-iters", args.pagerank_iters, "--tolerance", 0, "--trials", args.pagerank_trials]
    else:
        extra = ["--trials", args.bfs_trials]
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        argv = [args.vastgraph, "--quiet", "run", algorithm, store, "--threads", args.threads,
                "--stats", stats.name, "--force", *extra]
        result = checked(run_process(argv, timeout=args.timeout), f"{algorithm} on {store}")
        trials = stats_of(stats.name)["trial_seconds"]
    return median(trials), result.foreign_cpu_fraction


def paired_rounds(args, algorithm: str, stores: dict) -> dict:
    """Interleaved rounds over `stores` (name → path, "raw" first); per compressed store the
    median time and the median and range of its paired ratios to raw."""
    names = list(stores)
    times = {name: [] for name in names}
    busy = {name: [] for name in names}
    for round_no in range(args.rounds):
        order = names if round_no % 2 == 0 else names[::-1]
        for name in order:
            seconds, foreign = kernel_median(args, algorithm, stores[name])
            times[name].append(seconds)
            busy[name].append(foreign)
    result = {}
    for name in names:
        ratios = [t / r for t, r in zip(times[name], times["raw"])]
        result[name] = {
            "median_seconds": median(times[name]),
            "round_seconds": times[name],
            "ratio_to_raw": median(ratios),
            "ratio_range": [min(ratios), max(ratios)],
            "disturbed_rounds": sum(f > args.busy_threshold for f in busy[name]),
        }
    return result


def filter_bytes(args, store: Path) -> int:
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        vastgraph(args, "run", "tc", store, "--method", "filter", "--stats", stats.name,
                  "--force", what="tc --method filter")
        return int(stats_of(stats.name)["extra"]["filter_bytes"])


DECODE_LINE = re.compile(r"^\s*([\w ]+): ([0-9.]+) ns/arc, ([0-9]+) M arcs/s")


def decode_throughput(raw: Path) -> dict:
    """bench_decode's lines per codec: {codec: {what: ns per arc}}; "raw" holds the raw ones."""
    if shutil.which("cargo") is None:
        raise CellError("--decode needs cargo")
    out = subprocess.run(
        ["cargo", "run", "--release", "-q", "-p", "vastgraph-codec", "--example", "bench_decode", "--", raw],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout
    section, table = "raw", {"raw": {}}
    for line in out.splitlines():
        header = re.match(r"^(\w+): \d+ vertices", line)
        if header:
            section = {
                "Varint": "bytecode64",
                "StreamVByte": "streamvbyte64",
                "FrameOfReference": "for64",
                "Zeta": "zeta64",
            }.get(header[1], header[1])
            table[section] = {}
        elif m := DECODE_LINE.match(line):
            table[section][m[1].strip()] = float(m[2])
    return table


def ratio_cell(cell: dict) -> str:
    low, high = cell["ratio_range"]
    mark = " †" if cell["disturbed_rounds"] else ""
    return f"{cell['ratio_to_raw']:.2f}× ({low:.2f}–{high:.2f}){mark}"


def bench_graph(args, spec) -> dict:
    preparer = GraphPreparer(args)
    graph_dir = args.workdir / spec.name
    raw = graph_dir / "unweighted" / "store"
    raw.parent.mkdir(parents=True, exist_ok=True)
    preparer.build_store(spec, False, raw, raw.parent, {})
    stores = {"raw": raw}
    for codec in args.codecs:
        stores[codec] = compressed_store(args, raw, codec, graph_dir)
    result = {"stores": {name: str(path) for name, path in stores.items()}}
    result["sizes"] = {name: sizes(args, path) for name, path in stores.items()}
    result["filter_bytes"] = filter_bytes(args, stores[args.codecs[0]]) if args.filter else None
    for algorithm in args.algos:
        log(f"{spec.name}: {algorithm}, {args.rounds} rounds")
        result[algorithm] = paired_rounds(args, algorithm, stores)
    if args.decode:
        result["decode_ns_per_arc"] = decode_throughput(raw)
    result["webgraph_bits_per_arc"] = webgraph_bits_per_arc(args.data_dir / "webgraph", spec.name)
    return result


def webgraph_bits_per_arc(folder: Path, name: str) -> float | None:
    """Bits per arc of WebGraph's `NAME.graph` in `folder`, or None without one."""
    graph, properties = folder / f"{name}.graph", folder / f"{name}.properties"
    if not (graph.exists() and properties.exists()):
        return None
    fields = dict(line.split("=", 1) for line in properties.read_text().splitlines()
                  if "=" in line and not line.startswith("#"))
    return 8 * graph.stat().st_size / int(fields["arcs"])


def print_table(results: dict, args) -> None:
    print("\n| graph | store | codes, bits/arc | adjacency, B/arc | store vs raw | "
          + " | ".join(f"{a} (s), × raw" for a in args.algos) + " |")
    print("|---|---|---:|---:|---:|" + "---|" * len(args.algos))
    for graph, result in results.items():
        raw_bytes = result["sizes"]["raw"]["store_bytes"]
        for name, size in result["sizes"].items():
            cells = []
            for algorithm in args.algos:
                cell = result[algorithm][name]
                ratio = "" if name == "raw" else ", " + ratio_cell(cell)
                cells.append(f"{cell['median_seconds']:.4g}{ratio}")
            print(f"| {graph} | {name} | {size['neighbour_bits_per_arc']:.2f} | "
                  f"{size['adjacency_bytes_per_arc']:.2f} | {size['store_bytes'] / raw_bytes:.3f} | "
                  + " | ".join(cells) + " |")
        if result.get("webgraph_bits_per_arc") is not None:
            print(f"|  | WebGraph .graph (with references to earlier lists) | "
                  f"{result['webgraph_bits_per_arc']:.2f} |  |  |" + " |" * len(args.algos))
        if result["filter_bytes"] is not None:
            filt = result["filter_bytes"]
            against = ", ".join(f"{filt / s['store_bytes']:.2f}× {n}" for n, s in result["sizes"].items())
            print(f"|  | graph filter: {filt / 1e6:.2f} MB = {against} store |")
        for codec, lines in (result.get("decode_ns_per_arc") or {}).items():
            figures = ", ".join(f"{what} {ns:.2f} ns/arc" for what, ns in lines.items())
            print(f"|  | decode, one core, {codec}: {figures} |")
    print("\n× raw: median of the paired ratios of interleaved rounds (their range); "
          "† other processes used the CPUs in some round.")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", default="cnr-2000,ego-twitter",
                        help="kron<S>, a name of a file in --data-dir, or name=path (see bench_engine.py)")
    parser.add_argument("--codecs", type=comma_list(CODECS), default=CODECS[0],
                        help=f"comma separated, of {', '.join(CODECS)}")
    parser.add_argument("--algos", type=comma_list(ALGORITHMS), default=",".join(ALGORITHMS),
                        help=f"comma separated, of {', '.join(ALGORITHMS)}")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--bfs-trials", type=int, default=41)
    parser.add_argument("--pagerank-trials", type=int, default=11)
    parser.add_argument("--pagerank-iters", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-filter", dest="filter", action="store_false", help="skip the filter's size")
    parser.add_argument("--decode", action="store_true", help="also run bench_decode (cargo)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/vastgraph-bench"))
    parser.add_argument("--data-dir", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    parser.add_argument("--vastgraph", type=Path, default=REPO_ROOT / "target" / "release" / "vastgraph")
    parser.add_argument("--rebuild", action="store_true", help="rebuild stores even if present")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per invocation")
    parser.add_argument("--busy-threshold", type=float, default=DISTURBED_FRACTION)
    parser.add_argument("--json", type=Path, help="write the full results here")
    args = parser.parse_args(argv)
    if not args.vastgraph.exists():
        parser.error(f"{args.vastgraph} is missing: `cargo build --release` first")
    # GraphPreparer's options: only vastgraph builds stores here.
    args.tools = ["vastgraph"]
    results = {}
    for text in args.graphs.split(","):
        spec = parse_graph_spec(text, args.data_dir)
        try:
            results[spec.name] = bench_graph(args, spec)
        except CellError as error:
            log(f"{spec.name}: {error}")
            results[spec.name] = {"error": str(error)}
    done = {g: r for g, r in results.items() if "error" not in r}
    print_table(done, args)
    for graph, result in results.items():
        if "error" in result:
            print(f"{graph}: {result['error']}")
    if args.json:
        args.json.write_text(json.dumps({"threads": args.threads, "rounds": args.rounds,
                                         "graphs": results}, indent=2))
    return 0 if len(done) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
