"""The NetworkX backend: `nx.<algorithm>(G, backend="vastgraph")` equals plain NetworkX on small
graphs, vastgraph graphs dispatch without conversion, and NetworkX's own tests pass with the
backend (NETWORKX_TEST_BACKEND=vastgraph)."""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import vastgraph as vg

nx = pytest.importorskip("networkx")

if "vastgraph" not in nx.utils.backends.backends:
    pytest.fail("the vastgraph NetworkX backend is not registered: install the package (pip install .)")


def graphs():
    """Small graphs with the shapes that matter: string nodes, isolated nodes, several
    components, self-loops, a directed graph with dangling nodes."""
    karate = nx.karate_club_graph()
    for u, v in karate.edges:
        karate[u][v].pop("weight", None)
    strings = nx.relabel_nodes(nx.les_miserables_graph(), {n: f"<{n}>" for n in nx.les_miserables_graph()})
    for u, v in strings.edges:
        strings[u][v].clear()
    forest = nx.disjoint_union_all(
        [nx.path_graph(4), nx.cycle_graph(5), nx.complete_graph(4), nx.empty_graph(3)]
    )
    loops = nx.gnp_random_graph(40, 0.15, seed=3)
    loops.add_edges_from([(0, 0), (7, 7)])
    directed = nx.gnp_random_graph(60, 0.06, seed=5, directed=True)
    directed.add_nodes_from([100, 101])
    return {"karate": karate, "strings": strings, "forest": forest, "loops": loops, "directed": directed}


nx.config.warnings_to_ignore.add("cache")  # the tests reuse graphs on purpose
GRAPHS = graphs()
UNDIRECTED = [name for name, G in GRAPHS.items() if not G.is_directed()]


def assert_close_dicts(got, want, rel=1e-9):
    assert list(got) == list(want) or set(got) == set(want)
    for node, value in want.items():
        assert type(got[node]) is type(value), (node, type(got[node]), type(value))
        assert math.isclose(got[node], value, rel_tol=rel, abs_tol=1e-12), (node, got[node], value)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_pagerank(name):
    G = GRAPHS[name]
    want = nx.pagerank(G)
    got = nx.pagerank(G, backend="vastgraph")
    assert set(got) == set(want)
    assert all(type(v) is float for v in got.values())
    # Both stop at the first iteration with L1 change < n * tol: the same iterate.
    for node in want:
        assert got[node] == pytest.approx(want[node], rel=1e-9, abs=1e-12)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=2, tol=1e-15, backend="vastgraph")


@pytest.mark.parametrize("name", UNDIRECTED)
def test_components(name):
    G = GRAPHS[name]
    got = nx.connected_components(G, backend="vastgraph")
    assert not isinstance(got, (list, set))  # a generator, as NetworkX returns
    assert list(got) == list(nx.connected_components(G))
    assert nx.number_connected_components(G, backend="vastgraph") == nx.number_connected_components(G)
    assert nx.is_connected(G, backend="vastgraph") == nx.is_connected(G)
    node = list(G)[-1]
    assert nx.node_connected_component(G, node, backend="vastgraph") == nx.node_connected_component(G, node)


@pytest.mark.parametrize("name", [n for n in UNDIRECTED if n != "loops"])
def test_core_number_and_triangles(name):
    G = GRAPHS[name]
    core = nx.core_number(G, backend="vastgraph")
    assert core == nx.core_number(G) and all(type(v) is int for v in core.values())
    assert nx.triangles(G, backend="vastgraph") == nx.triangles(G)
    node = list(G)[1]
    assert nx.triangles(G, node, backend="vastgraph") == nx.triangles(G, node)
    some = list(G)[:3]
    assert nx.triangles(G, some, backend="vastgraph") == nx.triangles(G, some)


def test_triangles_ignore_self_loops_as_networkx_does():
    G = GRAPHS["loops"]
    assert nx.number_of_selfloops(G) == 2
    assert nx.triangles(G, backend="vastgraph") == nx.triangles(G)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_shortest_path_lengths(name):
    G = GRAPHS[name]
    source = list(G)[2]
    want = nx.single_source_shortest_path_length(G, source)
    got = nx.single_source_shortest_path_length(G, source, backend="vastgraph")
    assert got == want and list(got.values()) == sorted(got.values())
    assert nx.single_source_shortest_path_length(
        G, source, cutoff=2, backend="vastgraph"
    ) == nx.single_source_shortest_path_length(G, source, cutoff=2)
    layers = list(nx.bfs_layers(G, source, backend="vastgraph"))
    assert [set(layer) for layer in layers] == [set(layer) for layer in nx.bfs_layers(G, source)]
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(G, "not a node", backend="vastgraph")


def test_dijkstra_lengths_with_integer_and_float_weights():
    G = nx.gnp_random_graph(50, 0.1, seed=8, directed=True)
    rng = np.random.default_rng(1)
    for u, v in G.edges:
        G[u][v]["weight"] = int(rng.integers(1, 20))
    want = nx.single_source_dijkstra_path_length(G, 0)
    got = nx.single_source_dijkstra_path_length(G, 0, backend="vastgraph")
    assert got == want and all(type(v) is int for v in got.values())
    for u, v in G.edges:
        G[u][v]["cost"] = G[u][v]["weight"] / 4  # exact in float32
    want = nx.single_source_dijkstra_path_length(G, 0, weight="cost")
    assert_close_dicts(
        nx.single_source_dijkstra_path_length(G, 0, weight="cost", backend="vastgraph"), want, rel=0
    )


def test_betweenness_from_one_source():
    for G in (GRAPHS["karate"], GRAPHS["directed"], GRAPHS["forest"]):
        source = list(G)[0]
        for normalized in (False, True):
            want = nx.betweenness_centrality_subset(G, [source], list(G), normalized=normalized)
            got = nx.betweenness_centrality_subset(
                G, [source], list(G), normalized=normalized, backend="vastgraph"
            )
            assert_close_dicts(got, want)


def test_unsupported_arguments_are_declined_not_miscomputed():
    G = GRAPHS["karate"]
    backend = nx.utils.backends._load_backend("vastgraph")
    assert backend.can_run("pagerank", (G,), {}) is True
    assert isinstance(backend.can_run("pagerank", (G,), {"personalization": {0: 1}}), str)
    assert isinstance(backend.can_run("bfs_layers", (G, [0, 1]), {}), str)
    assert isinstance(backend.can_run("core_number", (GRAPHS["loops"],), {}), str)
    assert isinstance(backend.can_run("core_number", (GRAPHS["directed"],), {}), str)
    weighted = nx.Graph([(0, 1, {"weight": 0.1})])
    assert "float32" in backend.can_run("single_source_dijkstra_path_length", (weighted, 0), {})
    assert backend.can_run("not_an_algorithm", (G,), {}) is False
    with pytest.raises(NotImplementedError):
        nx.pagerank(G, personalization={0: 1}, backend="vastgraph")


def test_vastgraph_graphs_dispatch_without_conversion(tmp_path):
    G = GRAPHS["karate"]
    src, dst = zip(*G.edges)
    store = vg.from_edges(np.array(src), np.array(dst), path=tmp_path / "karate", symmetrize=True)
    # No backend= needed: the graph says where it belongs.
    got = nx.pagerank(vg.open(store.path))
    for node, value in nx.pagerank(G).items():
        assert got[node] == pytest.approx(value, rel=1e-9)
    assert nx.core_number(store) == nx.core_number(G)
    assert list(nx.connected_components(store)) == list(nx.connected_components(G))
    # Labelled stores speak in labels.
    labelled = vg.convert(
        Path(__file__).parents[1] / "fixtures" / "labels.tsv", tmp_path / "labels", symmetrize=True
    )
    assert nx.single_source_shortest_path_length(labelled, "dave") == {
        "dave": 0,
        "alice": 1,
        "bob": 2,
        "carol": 2,
    }
    H = nx.utils.backends._load_backend("vastgraph").convert_to_nx(labelled)
    assert set(H.edges) == {
        ("alice", "bob"),
        ("bob", "carol"),
        ("carol", "alice"),
        ("dave", "alice"),
    } or nx.utils.edges_equal(
        H.edges, [("alice", "bob"), ("bob", "carol"), ("alice", "carol"), ("alice", "dave")]
    )


def test_converted_graphs_remove_their_temporary_store():
    backend = nx.utils.backends._load_backend("vastgraph")
    converted = backend.convert_from_nx(GRAPHS["forest"])
    directory = Path(converted.path).parent
    assert directory.exists() and converted.node_names() == list(GRAPHS["forest"])
    del converted
    import gc

    gc.collect()
    assert not directory.exists()


NETWORKX_TESTS = [
    "algorithms/link_analysis/tests/test_pagerank.py",
    "algorithms/components/tests/test_connected.py",
    "algorithms/tests/test_core.py",
    "algorithms/tests/test_cluster.py::TestTriangles",
    "algorithms/shortest_paths/tests/test_unweighted.py",
]


@pytest.mark.parametrize("test_path", NETWORKX_TESTS)
def test_networkx_own_tests_pass_with_the_backend(test_path, tmp_path):
    """NetworkX's test suite in backend-testing mode: every dispatchable call converts its
    graphs to vastgraph and runs here when can_run allows, else falls back to NetworkX."""
    root = Path(nx.__file__).parent
    env = dict(os.environ, NETWORKX_TEST_BACKEND="vastgraph", NETWORKX_FALLBACK_TO_NX="True")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(root),
            str(root / test_path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr
    assert proc.returncode == 0, f"{test_path}: {summary}\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
