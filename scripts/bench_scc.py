#!/usr/bin/env python3
"""Strongly connected components: vastgraph's `scc` beside SciPy's serial strong components
(`scipy.sparse.csgraph.connected_components(connection="strong")`), on the same stores, in
interleaved rounds whose order reverses every round. Checks that both give the same partition
and prints the medians and their ratio.

    python3 scripts/bench_scc.py --store /data/cnr --store /data/kron20-directed --rounds 5
"""

import argparse
import statistics
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import vastgraph as vg


def scipy_matrix(g: vg.Graph) -> sp.csr_matrix:
    return sp.csr_matrix(g.to_scipy(dtype=np.int8))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", action="append", required=True, help="a directed store")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print("| store | vertices | arcs | components | vastgraph s | SciPy s | SciPy / vastgraph |")
    print("|---|---|---|---|---|---|---|")
    for path in args.store:
        g = vg.open(path)
        a = scipy_matrix(g)
        times = {"vastgraph": [], "scipy": []}
        labels = count = None

        def run_vastgraph():
            nonlocal labels
            result = vg.run(g, "scc")
            labels = result.values
            return result.stats["wall_seconds"]

        def run_scipy():
            nonlocal count
            started = time.perf_counter()
            count, _ = csgraph.connected_components(a, directed=True, connection="strong")
            return time.perf_counter() - started

        runs = [("vastgraph", run_vastgraph), ("scipy", run_scipy)]
        for r in range(args.rounds):
            for name, run in runs if r % 2 == 0 else runs[::-1]:
                times[name].append(run())
        assert len(np.unique(labels)) == count, (path, len(np.unique(labels)), count)
        ours, theirs = statistics.median(times["vastgraph"]), statistics.median(times["scipy"])
        print(
            f"| {path} | {a.shape[0]:,} | {a.nnz:,} | {count:,} | {ours:.3f} | {theirs:.3f} | {theirs / ours:.2f} |"
        )


if __name__ == "__main__":
    main()
