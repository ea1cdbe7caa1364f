#!/usr/bin/env python3
"""Semi-synchronous label propagation: NetworkX's `label_propagation_communities` beside the
same call through vastgraph's NetworkX backend (`backend="vastgraph"`: the graph converted to a
store, then `label-propagation --schedule semi-synchronous`), and beside the kernel alone on a
store of the graph. Interleaved rounds whose order reverses every round; checks that the
communities are NetworkX's and prints the medians and ratios.

    python3 scripts/bench_label_propagation.py ../shared/data/social-fb100-cornell5.tsv.zst \\
        ../shared/data/road-luxembourg-osm.tsv.zst --rounds 3
"""

import argparse
import statistics
import tempfile
import time

import networkx as nx
import numpy as np

import vastgraph as vg


def undirected(path: str, store: str):
    """The graph as a symmetric store and as a NetworkX graph whose nodes are the store's ids in
    order (self-loops dropped, as a store drops them)."""
    g = vg.convert(path, store, symmetrize=True, overwrite=True)
    offsets, neighbors = g.offsets, g.neighbors
    G = nx.Graph()
    G.add_nodes_from(range(g.num_vertices))
    src = np.repeat(np.arange(g.num_vertices), np.diff(offsets).astype(np.int64))
    keep = src < neighbors
    G.add_edges_from(zip(src[keep].tolist(), neighbors[keep].tolist()))
    return g, G


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+", help="edge lists vastgraph convert reads")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| graph | nodes | edges | NetworkX s | backend s | kernel s | NetworkX / backend | NetworkX / kernel |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for i, path in enumerate(args.graphs):
            g, G = undirected(path, f"{scratch}/g{i}")
            times = {"networkx": [], "backend": [], "kernel": []}
            found = {}

            def timed(name, call):
                started = time.perf_counter()
                found[name] = call()
                times[name].append(time.perf_counter() - started)

            def kernel():
                labels = vg.label_propagation(g, schedule="semi-synchronous", max_iter=2**31)
                communities = {}
                for v, label in enumerate(labels.tolist()):
                    communities.setdefault(label, set()).add(v)
                return list(communities.values())

            def backend():
                # Every round converts: NetworkX would otherwise reuse the store it cached on G.
                G.__networkx_cache__.clear()
                return list(nx.community.label_propagation_communities(G, backend="vastgraph"))

            runs = [
                ("networkx", lambda: list(nx.community.label_propagation_communities(G))),
                ("backend", backend),
                ("kernel", kernel),
            ]
            for r in range(args.rounds):
                for name, run in runs if r % 2 == 0 else runs[::-1]:
                    timed(name, run)
            assert found["backend"] == found["networkx"] == found["kernel"], path
            m = {k: statistics.median(v) for k, v in times.items()}
            print(
                f"| {path.rsplit('/', 1)[-1]} | {G.number_of_nodes():,} | {G.number_of_edges():,} | "
                f"{m['networkx']:.3f} | {m['backend']:.3f} | {m['kernel']:.3f} | "
                f"{m['networkx'] / m['backend']:.2f} | {m['networkx'] / m['kernel']:.2f} |"
            )


if __name__ == "__main__":
    main()
