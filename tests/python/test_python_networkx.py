"""The NetworkX backend: `nx.<algorithm>(G, backend="vastgraph")` equals plain NetworkX on small
graphs, vastgraph graphs dispatch without conversion, and NetworkX's own tests pass with the
backend (NETWORKX_TEST_BACKEND=vastgraph)."""

import inspect
import json
import logging
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import vastgraph as vg
from vastgraph import nx_backend

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


def test_strong_components():
    G = GRAPHS["directed"]
    got = nx.strongly_connected_components(G, backend="vastgraph")
    assert not isinstance(got, (list, set))
    want = list(nx.strongly_connected_components(G))
    assert sorted(map(sorted, got)) == sorted(map(sorted, want))
    assert nx.number_strongly_connected_components(G, backend="vastgraph") == len(want)
    assert nx.is_strongly_connected(G, backend="vastgraph") == nx.is_strongly_connected(G)
    cycle = nx.cycle_graph(5, create_using=nx.DiGraph)
    assert nx.is_strongly_connected(cycle, backend="vastgraph")


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


@pytest.mark.parametrize("name", [n for n in UNDIRECTED if n != "loops"])
def test_label_propagation_communities(name):
    G = GRAPHS[name]
    got = nx.community.label_propagation_communities(G, backend="vastgraph")
    want = nx.community.label_propagation_communities(G)
    assert list(got) == list(want), "the same communities, in the same order"


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


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_bfs_edges_and_tree_follow_networkx_order(name):
    G = GRAPHS[name]
    in_order = nx.Graph() if not G.is_directed() else nx.DiGraph()
    in_order.add_nodes_from(G)
    index = {node: i for i, node in enumerate(G)}
    in_order.add_edges_from(sorted(G.edges(), key=lambda e: (index[e[0]], index[e[1]])))
    # Node order as a store lists it: the kernel's path. G as given: NetworkX's, from inside.
    for graph in (in_order, G):
        source = list(graph)[2]
        for depth_limit in (None, 1, 3):
            want = list(nx.bfs_edges(graph, source, depth_limit=depth_limit))
            assert list(nx.bfs_edges(graph, source, depth_limit=depth_limit, backend="vastgraph")) == want
            tree = nx.bfs_tree(graph, source, depth_limit=depth_limit, backend="vastgraph")
            assert list(tree.edges()) == want and tree.number_of_nodes() == len(want) + 1
    assert nx_backend._bfs_edges_ok(in_order, list(in_order)[0]) is True


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
    # Integers whose sums pass 2^53, where float64 path lengths would round: NetworkX's own.
    path = nx.path_graph(3)
    path[0][1]["weight"], path[1][2]["weight"] = 2**60, 1
    assert nx.single_source_dijkstra_path_length(path, 0, backend="vastgraph")[2] == 2**60 + 1
    backend = nx.utils.backends._load_backend("vastgraph")
    assert "2^53" in backend.should_run("single_source_dijkstra_path_length", (path, 0), {})
    # The source comes first, even beside a node at distance 0.
    zero = nx.Graph([(1, 0, {"weight": 0}), (1, 2, {"weight": 1})])
    got = nx.single_source_dijkstra_path_length(zero, 1, backend="vastgraph")
    assert list(got.items()) == [(1, 0), (0, 0), (2, 1)]


def test_a_store_has_one_edge_attribute_its_weight(tmp_path):
    store = vg.from_edges([0, 1], [1, 2], [5, 7], path=tmp_path / "w", symmetrize=True)
    plain = nx.Graph([(0, 1, {"weight": 5}), (1, 2, {"weight": 7})])
    for weight in ("weight", "cost"):
        # No edge has "cost": every edge weighs 1, as on the store's NetworkX form.
        assert nx.single_source_dijkstra_path_length(store, 0, weight=weight) == (
            nx.single_source_dijkstra_path_length(plain, 0, weight=weight)
        )
    assert_close_dicts(nx.pagerank(store, weight="cost"), nx.pagerank(plain, weight="cost"))


def test_betweenness_from_one_source():
    for G in (GRAPHS["karate"], GRAPHS["directed"], GRAPHS["forest"]):
        source = list(G)[0]
        for normalized in (False, True):
            want = nx.betweenness_centrality_subset(G, [source], list(G), normalized=normalized)
            got = nx.betweenness_centrality_subset(
                G, [source], list(G), normalized=normalized, backend="vastgraph"
            )
            assert_close_dicts(got, want)


def test_betweenness_centrality_from_every_source():
    for name in ("karate", "directed", "forest", "loops"):
        G = GRAPHS[name]
        for normalized in (False, True):
            for endpoints in (False, True):
                want = nx.betweenness_centrality(G, normalized=normalized, endpoints=endpoints)
                got = nx.betweenness_centrality(
                    G, normalized=normalized, endpoints=endpoints, backend="vastgraph"
                )
                assert_close_dicts(got, want)


def test_core_subgraphs_are_networkx_subgraphs_with_their_attributes(caplog):
    """k_core, k_shell, k_crust and k_corona select with the kernel's core numbers and return
    the subgraph of the caller's graph; a graph with edge attributes (which these calls ask to
    preserve) runs NetworkX's implementation."""
    plain = nx.Graph(nx.karate_club_graph().edges())
    plain.add_edges_from([(40, 41), (41, 42)])
    nx.set_node_attributes(plain, {v: v * 2 for v in plain}, "tag")
    for name, kwargs in (("k_core", {}), ("k_core", {"k": 2}), ("k_shell", {"k": 1}), ("k_crust", {}), ("k_corona", {"k": 2})):
        function = getattr(nx, name)
        got, kernel = kernel_ran(caplog, lambda: function(plain, backend="vastgraph", **kwargs))
        want = function(plain, **kwargs)
        assert kernel, name
        assert isinstance(got, nx.Graph) and got is not plain
        assert dict(got.nodes(data=True)) == dict(want.nodes(data=True)), (name, kwargs)
        assert sorted(map(sorted, got.edges())) == sorted(map(sorted, want.edges())), (name, kwargs)
    karate = nx.karate_club_graph()  # weighted: the attributes must survive
    got, kernel = kernel_ran(caplog, lambda: nx.k_core(karate, backend="vastgraph"))
    assert not kernel and nx.utils.graphs_equal(got, nx.k_core(karate))
    with pytest.raises(ValueError):
        nx.k_core(nx.Graph(), backend="vastgraph")  # max() of no core numbers, as in NetworkX


def test_bfs_layers_from_several_sources():
    G = GRAPHS["strings"]
    sources = list(G)[3:6]
    want = list(nx.bfs_layers(G, sources))
    for given in (sources, iter(sources), sources + sources[:1]):
        got = list(nx.bfs_layers(G, given, backend="vastgraph"))
        assert got[0] == want[0]  # the sources, in NetworkX's order
        assert [set(layer) for layer in got] == [set(layer) for layer in want]


def kernel_ran(caplog, call):
    """call()'s result, and whether a vastgraph kernel computed it (rather than NetworkX's
    implementation, run from inside the backend)."""
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="vastgraph.nx_backend"):
        result = call()
    return result, not any("runs NetworkX's implementation" in r.getMessage() for r in caplog.records)


def test_explicit_backend_falls_back_to_networkx_instead_of_raising(caplog):
    """With backend="vastgraph", NetworkX never tries another backend: what no kernel computes
    exactly runs NetworkX's implementation from inside the backend, on the caller's graph."""
    karate = nx.karate_club_graph()  # weighted
    got, kernel = kernel_ran(caplog, lambda: nx.pagerank(karate, backend="vastgraph"))
    assert got == nx.pagerank(karate) and not kernel
    got, kernel = kernel_ran(caplog, lambda: nx.pagerank(karate, weight=None, backend="vastgraph"))
    assert_close_dicts(got, nx.pagerank(karate, weight=None))
    assert kernel
    got, kernel = kernel_ran(caplog, lambda: nx.betweenness_centrality(karate, backend="vastgraph"))
    assert_close_dicts(got, nx.betweenness_centrality(karate))
    assert kernel
    got, kernel = kernel_ran(
        caplog, lambda: nx.betweenness_centrality(karate, weight="weight", backend="vastgraph")
    )
    assert got == nx.betweenness_centrality(karate, weight="weight") and not kernel
    # A sample of k sources: NetworkX's own sample, from the same seed.
    for kwargs in ({"k": 5, "seed": 1}, {"k": 1, "seed": 3, "endpoints": True}, {"k": 7, "seed": 2, "normalized": False}):
        got, kernel = kernel_ran(
            caplog, lambda: nx.betweenness_centrality(karate, backend="vastgraph", **kwargs)
        )
        assert_close_dicts(got, nx.betweenness_centrality(karate, **kwargs))
        assert kernel, kwargs
    got, kernel = kernel_ran(
        caplog, lambda: nx.pagerank(karate, personalization={0: 1}, backend="vastgraph")
    )
    assert got == nx.pagerank(karate, personalization={0: 1}) and not kernel
    # Graphs no store holds exactly are not converted at all.
    multi = nx.MultiGraph(karate)
    got, kernel = kernel_ran(caplog, lambda: nx.pagerank(multi, backend="vastgraph"))
    assert got == nx.pagerank(multi) and not kernel
    labelled = nx.Graph([(0, 1, {"weight": "heavy"}), (1, 2, {"weight": "light"})])
    two = lambda u, v, d: 2  # noqa: E731
    got, kernel = kernel_ran(
        caplog, lambda: nx.single_source_dijkstra_path_length(labelled, 0, weight=two, backend="vastgraph")
    )
    assert got == {0: 0, 1: 2, 2: 4} and not kernel
    # Errors are NetworkX's own.
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.core_number(GRAPHS["loops"], backend="vastgraph")
    with pytest.raises(nx.NetworkXError):
        list(nx.bfs_layers(karate, ["not a node"], backend="vastgraph"))
    # Functions vastgraph does not list still raise: NetworkX decides that before calling it.
    with pytest.raises(NotImplementedError, match="not implemented by 'vastgraph'"):
        nx.closeness_centrality(karate, backend="vastgraph")


def test_backend_functions_take_networkx_parameters():
    """The backend hands arguments to NetworkX's implementation by name: its functions must
    have NetworkX's parameters, and every listed function must be there."""
    info = nx.utils.backends.backend_info["vastgraph"]["functions"]
    for name in info:
        ours = list(inspect.signature(getattr(nx_backend.backend_interface, name)).parameters)
        theirs = [
            p.name
            for p in inspect.signature(getattr(nx, name, None) or getattr(nx.community, name)).parameters.values()
            if p.name != "backend" and p.kind is not p.VAR_KEYWORD
        ]
        assert ours == theirs, name


def test_can_run_and_should_run(monkeypatch):
    G = nx.Graph(GRAPHS["karate"])
    backend = nx.utils.backends._load_backend("vastgraph")
    monkeypatch.setattr(nx_backend, "_MIN_SIZE", {})
    monkeypatch.setattr(nx_backend, "_DEFAULT_MIN_SIZE", 0)
    assert backend.can_run("pagerank", (G,), {}) is True
    assert backend.should_run("pagerank", (G,), {}) is True
    # Listed functions can always run on NetworkX graphs (falling back inside), but should
    # not be converted when NetworkX dispatches automatically and no kernel computes the call.
    assert backend.can_run("pagerank", (G,), {"personalization": {0: 1}}) is True
    assert "personalization" in backend.should_run("pagerank", (G,), {"personalization": {0: 1}})
    assert "weight" in backend.should_run("pagerank", (nx.karate_club_graph(),), {})
    assert isinstance(backend.should_run("core_number", (GRAPHS["loops"],), {}), str)
    assert isinstance(backend.should_run("core_number", (GRAPHS["directed"],), {}), str)
    assert isinstance(backend.should_run("betweenness_centrality", (G,), {"k": 3}), str)
    weighted = nx.Graph([(0, 1, {"weight": 0.1})])
    assert "float32" in backend.should_run("single_source_dijkstra_path_length", (weighted, 0), {})
    # Iterators are not consumed to decide.
    sources = iter([0])
    assert "iterator" in backend.should_run("bfs_layers", (G, sources), {})
    assert list(sources) == [0]
    assert backend.can_run("not_an_algorithm", (G,), {}) is False
    assert backend.should_run("not_an_algorithm", (G,), {}) is False


def test_should_run_converts_only_when_it_pays_off(monkeypatch):
    G = nx.Graph(GRAPHS["karate"])
    backend = nx.utils.backends._load_backend("vastgraph")
    assert "small" in backend.should_run("pagerank", (G,), {})
    assert "small" in backend.should_run("betweenness_centrality", (G,), {})
    # NetworkX's run of these is about one pass over G: cheaper than converting G ...
    assert "one pass" in backend.should_run("is_connected", (G,), {})
    assert "one pass" in backend.should_run("bfs_layers", (G, [0, 1]), {})
    assert "one pass" in backend.should_run("betweenness_centrality_subset", (G, [0], list(G)), {})
    # ... unless NetworkX already holds a store of G.
    nx.is_connected(G, backend="vastgraph")
    assert backend.should_run("is_connected", (G,), {}) is True
    assert backend.should_run("bfs_layers", (G, [0, 1]), {}) is True
    assert backend.should_run("pagerank", (G,), {}) is True
    big = nx.gnm_random_graph(700, 1400, seed=4)
    assert backend.should_run("betweenness_centrality", (big,), {}) is True
    assert "small" in backend.should_run("triangles", (big,), {})


def test_backend_priority_converts_only_what_a_kernel_runs(caplog, monkeypatch):
    karate = nx.karate_club_graph()  # weighted
    saved = nx.config.backend_priority.algos
    try:
        nx.config.backend_priority = ["vastgraph"]
        # should_run declines: NetworkX runs its own implementation without converting.
        assert nx.pagerank(karate) == nx.pagerank(karate, backend="networkx")
        assert nx.pagerank(karate, weight=None) == nx.pagerank(karate, weight=None, backend="networkx")
        assert nx.is_connected(karate)
        assert not karate.__networkx_cache__.get("backends", {}).get("vastgraph")
        # A graph large enough for the kernel to pay off is converted.
        monkeypatch.setitem(nx_backend._MIN_SIZE, "pagerank", 0)
        got, kernel = kernel_ran(caplog, lambda: nx.pagerank(karate, weight=None))
        assert kernel and karate.__networkx_cache__["backends"]["vastgraph"]
        assert_close_dicts(got, nx.pagerank(karate, weight=None, backend="networkx"))
        assert nx.closeness_centrality(karate) == nx.closeness_centrality(karate, backend="networkx")
    finally:
        nx.config.backend_priority = saved


def test_vastgraph_graphs_fall_back_only_with_fallback_to_nx(tmp_path):
    G = nx.karate_club_graph()
    src, dst, w = zip(*G.edges(data="weight"))
    store = vg.from_edges(np.array(src), np.array(dst), np.array(w), path=tmp_path / "k", symmetrize=True)
    backend = nx.utils.backends._load_backend("vastgraph")
    assert "weight" in backend.can_run("pagerank", (store,), {})
    # No NetworkX graph to fall back on: NetworkX raises, with backend= or without.
    with pytest.raises(NotImplementedError):
        nx.pagerank(store, backend="vastgraph")
    with nx.config(fallback_to_nx=False), pytest.raises(NotImplementedError):
        nx.pagerank(store)
    # fallback_to_nx: NetworkX converts the store (convert_to_nx) and runs its own.
    with nx.config(fallback_to_nx=True):
        got = nx.pagerank(store)
    assert_close_dicts(got, nx.pagerank(G))


def test_vastgraph_graphs_raise_networkx_errors(tmp_path):
    G = GRAPHS["karate"]
    src, dst = zip(*G.edges)
    store = vg.from_edges(np.array(src), np.array(dst), path=tmp_path / "k", symmetrize=True)
    with pytest.raises(nx.NodeNotFound, match="Source 99 is not in G"):
        nx.single_source_shortest_path_length(store, 99)
    with pytest.raises(nx.NodeNotFound, match="Node 99 not found in graph"):
        nx.single_source_dijkstra_path_length(store, 99)
    with pytest.raises(nx.NetworkXError, match="The node 99 is not in the graph"):
        nx.bfs_layers(store, [0, 99])
    with pytest.raises(KeyError):
        nx.node_connected_component(store, 99)
    assert nx.triangles(store, [0, 1, 99]) == {0: nx.triangles(G, 0), 1: nx.triangles(G, 1)}


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


def test_an_integer_names_a_node_of_a_graph_with_integer_nodes():
    backend = nx.utils.backends._load_backend("vastgraph")
    G = nx.Graph([(10, 20), (20, 30)])
    G.add_node(1)
    converted = backend.convert_from_nx(G)
    # As in NetworkX: 1 is the node 1 (isolated), 10 the node 10, whatever their dense ids.
    np.testing.assert_array_equal(vg.bfs(converted, 1), [-1, -1, -1, 0])
    np.testing.assert_array_equal(vg.bfs(converted, 10), [0, 1, 2, -1])
    with pytest.raises(KeyError, match="named 0"):
        vg.bfs(converted, 0)
    # The backend passes the ids it looked up on as ids: its answers are NetworkX's.
    G.add_edge(1, 30)
    for call in (
        lambda **b: nx.single_source_shortest_path_length(G, 1, **b),
        lambda **b: list(nx.bfs_layers(G, [20], **b)),
        lambda **b: nx.single_source_dijkstra_path_length(G, 30, **b),
        lambda **b: nx.betweenness_centrality(G, **b),
        lambda **b: nx.betweenness_centrality(G, endpoints=True, **b),
    ):
        assert call(backend="vastgraph") == call()
    # Nodes that are not ints leave an int as a dense id.
    strings = backend.convert_from_nx(nx.Graph([("a", "b")]))
    np.testing.assert_array_equal(vg.bfs(strings, 1), [1, 0])


def test_on_start_tests_marks_expected_failures(monkeypatch):
    class Item:
        def __init__(self, module, nodeid):
            self.module = type(sys)(module)
            self.nodeid = nodeid
            self.markers = []

        def add_marker(self, marker):
            self.markers.append(marker)

    module = "networkx.algorithms.traversal.tests.test_bfs"
    monkeypatch.setattr(nx_backend, "_EXPECTED_FAILURES", ((f"{module}::TestBFS::test_a", "why"),))
    items = [Item(module, f"::TestBFS::{test}") for test in ("test_a", "test_a[x]", "test_ab")]
    nx_backend.backend_interface.on_start_tests(items)
    assert [[m.kwargs["reason"] for m in item.markers] for item in items] == [["why"], ["why"], []]


# NetworkX's tests of every function the backend lists (pagerank; connected_components,
# number_connected_components, is_connected, node_connected_component; the strong ones;
# core_number; triangles;
# single_source_shortest_path_length; bfs_layers; single_source_dijkstra_path_length;
# betweenness_centrality and betweenness_centrality_subset). About 360 tests, half a minute
# on two cores.
NETWORKX_TEST_MODULES = [
    "networkx.algorithms.link_analysis.tests.test_pagerank",
    "networkx.algorithms.components.tests.test_connected",
    "networkx.algorithms.components.tests.test_strongly_connected",
    "networkx.algorithms.tests.test_core",
    "networkx.algorithms.tests.test_cluster",
    "networkx.algorithms.shortest_paths.tests.test_unweighted",
    "networkx.algorithms.shortest_paths.tests.test_weighted",
    "networkx.algorithms.shortest_paths.tests.test_generic",
    "networkx.algorithms.traversal.tests.test_bfs",
    "networkx.algorithms.centrality.tests.test_betweenness_centrality",
    "networkx.algorithms.centrality.tests.test_betweenness_centrality_subset",
    "networkx.algorithms.community.tests.test_label_propagation",
]

# Loaded into the suite's process (-p): counts, for each listed function, the calls a vastgraph
# kernel computed and those that ran NetworkX's implementation from inside the backend.
COUNTING_PLUGIN = """
import atexit, collections, json, os
from vastgraph import nx_backend

calls, networkx = collections.Counter(), collections.Counter()
run_networkx = nx_backend._run_networkx

def counted(name, G, reason, arguments):
    networkx[name] += 1
    return run_networkx(name, G, reason, arguments)

nx_backend._run_networkx = counted
for name, function in list(nx_backend._FUNCTIONS.items()):
    def call(*args, _function=function, _name=name, **kwargs):
        calls[_name] += 1
        return _function(*args, **kwargs)
    setattr(nx_backend.BackendInterface, name, staticmethod(call))

@atexit.register
def write():
    with open(os.environ["VASTGRAPH_NX_COUNTS"], "w") as out:
        json.dump({name: [calls[name], networkx[name]] for name in nx_backend._FUNCTIONS}, out)
"""


def test_networkx_own_tests_pass_with_the_backend(tmp_path):
    """NetworkX's own tests in backend-testing mode (NETWORKX_TEST_BACKEND=vastgraph): every
    call of a listed function converts its graphs and runs here, on a kernel or on NetworkX's
    implementation; other functions fall back to NetworkX (NETWORKX_FALLBACK_TO_NX). The
    backend's on_start_tests hook marks what cannot pass, with the reason."""
    import importlib.util

    missing = [m for m in NETWORKX_TEST_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"NetworkX's tests are not installed ({missing[0]} is missing)")
    pytest.importorskip("scipy", reason="NetworkX's backend-testing mode imports scipy")
    (tmp_path / "vastgraph_nx_counts.py").write_text(COUNTING_PLUGIN)
    counts = tmp_path / "counts.json"
    env = dict(
        os.environ,
        NETWORKX_TEST_BACKEND="vastgraph",
        NETWORKX_FALLBACK_TO_NX="True",
        VASTGRAPH_NX_COUNTS=str(counts),
        PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])),
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rfEX",
            "-p",
            "no:cacheprovider",
            "-p",
            "vastgraph_nx_counts",
            "--rootdir",
            str(Path(nx.__file__).parent),
            "--pyargs",
            *NETWORKX_TEST_MODULES,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=900,
    )
    lines = proc.stdout.strip().splitlines()
    summary = lines[-1] if lines else proc.stderr[-2000:]
    assert proc.returncode == 0, f"{summary}\n{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}"
    # Only the expected failures the backend marks (strictly: an xfail that passes fails).
    outcomes = summary.replace("xfailed", "")
    assert " passed" in summary and "failed" not in outcomes and "error" not in summary, summary
    # The kernels did the work: every listed function ran on one at least once.
    ran = json.loads(counts.read_text())
    assert not [name for name, (calls, networkx) in ran.items() if calls - networkx < 1], ran


def test_cutoffs_and_fallbacks_that_networkx_reads_its_own_way(caplog):
    """A cutoff that is not a whole non-negative number reaches the levels NetworkX reaches; a
    function that lives in nx.community falls back there; a weight no store holds (NaN, or
    finite beyond float32) leaves the graph to NetworkX."""
    path = nx.path_graph(5)
    for cutoff in (-1, -0.5, 0, 0.5, 1.5, 2, 3.0):
        got = nx.single_source_shortest_path_length(path, 0, cutoff=cutoff, backend="vastgraph")
        assert got == nx.single_source_shortest_path_length(path, 0, cutoff=cutoff), cutoff
    from networkx.algorithms.community import label_propagation_communities

    looped = nx.Graph([(0, 1), (1, 1)])
    got, kernel = kernel_ran(caplog, lambda: list(label_propagation_communities(looped, backend="vastgraph")))
    assert got == list(label_propagation_communities(looped)) and not kernel
    for weight in (float("nan"), 1e40, 1e-46):
        G = nx.DiGraph([(0, 1, {"weight": weight}), (1, 2, {"weight": 1.0})])
        got, kernel = kernel_ran(
            caplog, lambda: nx.single_source_dijkstra_path_length(G, 0, backend="vastgraph")
        )
        expected = nx.single_source_dijkstra_path_length(G, 0)
        assert not kernel and got.keys() == expected.keys()
        assert all(str(got[v]) == str(expected[v]) for v in got), (got, expected)


def test_arguments_networkx_reads_its_own_way_are_left_to_it(caplog):
    """A NaN cutoff, a bool alpha, NaN tol, a fractional or huge max_iter: NetworkX's answer or
    NetworkX's own error, never a vastgraph error NetworkX would not raise."""
    path = nx.path_graph(4)
    for function in (nx.single_source_shortest_path_length, nx.single_source_dijkstra_path_length):
        got, kernel = kernel_ran(caplog, lambda: function(path, 0, cutoff=float("nan"), backend="vastgraph"))
        assert got == function(path, 0, cutoff=float("nan")) and not kernel, function
    karate = nx.karate_club_graph()
    for kwargs in ({"alpha": True}, {"max_iter": 10**30}):
        try:
            want = nx.pagerank(karate, weight=None, **kwargs)
        except nx.PowerIterationFailedConvergence as e:
            want = type(e)
        try:
            got, kernel = kernel_ran(caplog, lambda: nx.pagerank(karate, weight=None, backend="vastgraph", **kwargs))
        except nx.PowerIterationFailedConvergence as e:
            got, kernel = type(e), False
        assert got == want and not kernel, kwargs
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(karate, weight=None, tol=float("nan"), backend="vastgraph")
    with pytest.raises(TypeError):
        nx.pagerank(karate, weight=None, max_iter=2.5, backend="vastgraph")
