"""Every algorithm of the engine issue against NetworkX / SciPy on the real graphs in
../shared/data (skipped with a message when absent). The references read the original edge
files themselves, so a bug in `convert` shows up here too. Self-loops are dropped on both sides
(vastgraph's default, like GAPBS)."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

from conftest import read_edges, run_algorithm, shared_graph

CNR = "web-cnr-2000.tsv.zst"
ROAD = "road-luxembourg-osm.tsv.zst"
TWITTER = "social-ego-twitter-undirected.tsv.zst"
CORNELL = "social-fb100-cornell5.tsv.zst"
SLASHDOT = "social-soc-slashdot0902.tsv.zst"


def adjacency(name, symmetrize, weights=None):
    """The graph as a SciPy CSR matrix, self-loops and duplicates removed."""
    src, dst = read_edges(shared_graph(name))
    keep = src != dst
    src, dst = src[keep], dst[keep]
    w = np.ones(len(src)) if weights is None else weights(src, dst)
    if symmetrize:
        src, dst, w = np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([w, w])
    n = int(max(src.max(), dst.max())) + 1
    m = sp.coo_matrix((w, (src, dst)), shape=(n, n)).tocsr()
    m.sum_duplicates()
    return m


def nx_graph(name, symmetrize):
    import networkx as nx

    a = adjacency(name, symmetrize)
    return nx.from_scipy_sparse_array(a, create_using=nx.Graph if symmetrize else nx.DiGraph)


def first_source(a):
    """A deterministic source with out-edges: the vertex with the largest out-degree."""
    return int(np.argmax(np.diff(a.indptr)))


@pytest.mark.parametrize("name,symmetrize", [(ROAD, True), (CNR, False), (SLASHDOT, False)])
def test_bfs_hop_distances_match_scipy(vastgraph, real_store, tmp_path, name, symmetrize):
    a = adjacency(name, symmetrize)
    s = first_source(a)
    dist, stats = run_algorithm(vastgraph, tmp_path, "bfs", real_store(name, symmetrize), "--source", s)
    want = csgraph.shortest_path(a, indices=s, unweighted=True, directed=True)
    want = np.where(np.isinf(want), -1, want).astype(np.int64)
    assert dist.dtype == np.int64 and len(dist) == a.shape[0]
    np.testing.assert_array_equal(dist, want)
    assert stats["edges_traversed"] > 0


def road_weight(src, dst):
    """Deterministic integer weights in [1, 100], the same for both directions of an edge."""
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    return ((lo * 2654435761 + hi * 40503) % 100 + 1).astype(np.float64)


def test_sssp_matches_scipy_dijkstra(vastgraph, tmp_path):
    src, dst = read_edges(shared_graph(ROAD))
    w = road_weight(src, dst).astype(np.int64)
    edges = tmp_path / "road-weighted.tsv"
    np.savetxt(edges, np.stack([src, dst, w], axis=1), fmt="%d", delimiter="\t")
    store = tmp_path / "road-weighted"
    vastgraph("convert", edges, "-o", store, "--symmetrize")
    a = adjacency(ROAD, True, road_weight)
    s = first_source(a)
    dist, _ = run_algorithm(vastgraph, tmp_path, "sssp", store, "--source", s)
    want = csgraph.dijkstra(a, indices=s, directed=True)
    np.testing.assert_array_equal(dist, want)


@pytest.mark.parametrize("name,symmetrize", [(CNR, False), (ROAD, True), (SLASHDOT, False)])
def test_cc_matches_scipy_with_min_id_labels(vastgraph, real_store, tmp_path, name, symmetrize):
    a = adjacency(name, symmetrize)
    labels, stats = run_algorithm(vastgraph, tmp_path, "cc", real_store(name, symmetrize))
    count, comp = csgraph.connected_components(a, directed=True, connection="weak")
    # The smallest vertex id of each SciPy component is the label vastgraph must give.
    min_id = np.full(count, a.shape[0], dtype=np.int64)
    np.minimum.at(min_id, comp, np.arange(a.shape[0]))
    np.testing.assert_array_equal(labels.astype(np.int64), min_id[comp])


@pytest.mark.parametrize("name", [CNR, SLASHDOT])
@pytest.mark.parametrize("within_budget", [False, True])
def test_scc_matches_scipy_with_min_id_labels(vastgraph, real_store, tmp_path, name, within_budget):
    """Strongly connected components, in memory and within a budget that reads the lists from
    disk, against SciPy's (and, on the smaller graph, NetworkX's) components."""
    a = adjacency(name, False)
    # Below the mapped graph and the state together, above the state: the lists come from disk.
    # Each thread's list buffers count in the budget, so the threads are fixed.
    memory = {CNR: "22MiB", SLASHDOT: "8MiB"}[name] if within_budget else None
    budget = [] if memory is None else ["--memory", memory, "--threads", "2"]
    labels, stats = run_algorithm(vastgraph, tmp_path, "scc", real_store(name, False), *budget)
    count, comp = csgraph.connected_components(a, directed=True, connection="strong")
    min_id = np.full(count, a.shape[0], dtype=np.int64)
    np.minimum.at(min_id, comp, np.arange(a.shape[0]))
    np.testing.assert_array_equal(labels.astype(np.int64), min_id[comp])
    assert stats["extra"]["components"] == count
    assert (stats["out_of_core"] is None) == (memory is None)
    if name == SLASHDOT and memory is None:
        import networkx as nx

        want = sorted(min(c) for c in nx.strongly_connected_components(nx_graph(name, False)))
        assert sorted(np.unique(labels).tolist()) == want


def reference_pagerank(a, alpha=0.85, tol=1e-13, max_iter=10_000):
    """Power iteration with uniform dangling redistribution, converged far tighter than 1e-6."""
    n = a.shape[0]
    out_deg = np.asarray(a.sum(axis=1)).ravel()
    a = sp.csr_matrix((np.ones(a.nnz), a.indices, a.indptr), shape=a.shape)
    out_deg = np.diff(a.indptr).astype(np.float64)
    dangling = out_deg == 0
    inv = np.where(dangling, 0.0, 1.0 / np.maximum(out_deg, 1))
    at = a.T.tocsr()
    p = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        nxt = (1 - alpha) / n + alpha * (at @ (p * inv) + p[dangling].sum() / n)
        if np.abs(nxt - p).sum() < tol:
            return nxt
        p = nxt
    return p


@pytest.mark.parametrize("name,symmetrize", [(CNR, False), (TWITTER, True)])
def test_pagerank_close_to_tightly_converged_reference(vastgraph, real_store, tmp_path, name, symmetrize):
    a = adjacency(name, symmetrize)
    scores, stats = run_algorithm(vastgraph, tmp_path, "pagerank", real_store(name, symmetrize))
    want = reference_pagerank(a)
    assert abs(scores.sum() - 1.0) < 1e-9
    assert np.abs(scores - want).sum() < 1e-4
    assert stats["iterations"] > 1


def test_pagerank_matches_networkx(vastgraph, real_store, tmp_path):
    import networkx as nx

    g = nx_graph(SLASHDOT, False)
    want = nx.pagerank(g, alpha=0.85, tol=1e-12, max_iter=1000)
    scores, _ = run_algorithm(vastgraph, tmp_path, "pagerank", real_store(SLASHDOT, False))
    want = np.array([want[v] for v in range(len(scores))])
    assert np.abs(scores - want).sum() < 1e-4


@pytest.mark.parametrize("name,symmetrize", [(TWITTER, True), (SLASHDOT, False)])
def test_single_source_betweenness_matches_networkx_brandes(vastgraph, real_store, tmp_path, name, symmetrize):
    from networkx.algorithms.centrality.betweenness import _single_source_shortest_path_basic

    g = nx_graph(name, symmetrize)
    a = adjacency(name, symmetrize)
    s = first_source(a)
    # NetworkX's own Brandes forward phase, then the dependency accumulation for this one source.
    order, preds, sigma, _ = _single_source_shortest_path_basic(g, s)
    delta = dict.fromkeys(order, 0.0)
    for w in reversed(order):
        for v in preds[w]:
            delta[v] += sigma[v] / sigma[w] * (1 + delta[w])
    delta[s] = 0.0
    want = np.zeros(a.shape[0])
    for v, d in delta.items():
        want[v] = d
    got, _ = run_algorithm(vastgraph, tmp_path, "bc", real_store(name, symmetrize), "--source", s)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", [CORNELL, ROAD, TWITTER])
def test_core_numbers_match_networkx(vastgraph, real_store, tmp_path, name):
    import networkx as nx

    g = nx_graph(name, True)
    want = nx.core_number(g)
    got, stats = run_algorithm(vastgraph, tmp_path, "kcore", real_store(name, True))
    np.testing.assert_array_equal(got, np.array([want.get(v, 0) for v in range(len(got))]))


@pytest.mark.parametrize("name", [CORNELL, ROAD])
def test_triangles_match_networkx(vastgraph, real_store, tmp_path, name):
    import networkx as nx

    g = nx_graph(name, True)
    want = nx.triangles(g)
    got, stats = run_algorithm(vastgraph, tmp_path, "tc", real_store(name, True), "--per-vertex")
    want = np.array([want.get(v, 0) for v in range(len(got))])
    np.testing.assert_array_equal(got, want)
    assert stats["extra"]["triangles"] == want.sum() // 3


@pytest.mark.parametrize("name", [ROAD, TWITTER, CNR])
def test_biconnectivity_matches_networkx(vastgraph, real_store, tmp_path, name):
    import networkx as nx

    g = nx_graph(name, True)
    got, stats = run_algorithm(vastgraph, tmp_path, "biconnectivity", real_store(name, True))
    # One depth-first search of NetworkX's: a vertex is an articulation point exactly when it
    # lies in two biconnected components or more.
    components = list(nx.biconnected_components(g))
    memberships = np.zeros(g.number_of_nodes(), dtype=np.int64)
    for component in components:
        memberships[list(component)] += 1
    want = (memberships >= 2).astype(np.uint8)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)
    assert stats["extra"]["biconnected_components"] == len(components)
    assert stats["extra"]["articulation_points"] == int(want.sum())


@pytest.mark.parametrize("name", [ROAD, TWITTER])
def test_matching_and_set_cover_pass_networkx_checks(vastgraph, real_store, tmp_path, name):
    import networkx as nx

    g = nx_graph(name, True)
    store = real_store(name, True)
    edges, stats = run_algorithm(vastgraph, tmp_path, "matching", store)
    assert edges.shape == (stats["extra"]["matching_size"], 2)
    assert nx.is_maximal_matching(g, {(int(u), int(v)) for u, v in edges})
    cover, stats = run_algorithm(vastgraph, tmp_path, "setcover", store, "--epsilon", "0.1")
    assert nx.is_dominating_set(g, np.flatnonzero(cover).tolist())
    assert stats["extra"]["cover_size"] == int(cover.sum())


@pytest.mark.parametrize("name", [CORNELL, ROAD])
def test_semi_synchronous_label_propagation_gives_networkx_communities(vastgraph, real_store, tmp_path, name):
    import networkx as nx

    g = nx_graph(name, True)
    want = {frozenset(c) for c in nx.community.label_propagation_communities(g)}
    got, stats = run_algorithm(
        vastgraph, tmp_path, "label-propagation", real_store(name, True),
        "--schedule", "semi-synchronous", "--max-iters", "1000", "--verify",
    )
    assert stats["extra"]["converged"]
    communities = {}
    for v, label in enumerate(got.tolist()):
        communities.setdefault(label, set()).add(v)
    assert {frozenset(c) for c in communities.values()} == want
