"""A NetworkX backend: ``nx.pagerank(G, backend="vastgraph")`` runs vastgraph's kernel.

NetworkX (3.2+) finds this module through the ``networkx.backends`` and
``networkx.backend_info`` entry points of the vastgraph package. A NetworkX graph is converted
on the way in (:func:`convert_from_nx`): its nodes get dense ids in ``G``'s node order, its
edges go into a temporary store (removed when the converted graph is garbage-collected), and
results are mapped back to the nodes, in the types NetworkX returns (dicts of Python ints and
floats, a generator of sets for ``connected_components``). A graph from
:func:`vastgraph.open` dispatches without conversion (``nx.pagerank(vastgraph.open(path))``);
its nodes are the dense ids, or the store's labels when it has them.

Which calls run here (others, and unsupported arguments, are declined through ``can_run``, so
NetworkX falls back to its own implementation when ``nx.config.fallback_to_nx`` is set):

- ``pagerank``: no ``personalization``/``nstart``/``dangling``, unweighted (``weight=None`` or no
  edge has the weight attribute), not a multigraph.
- ``connected_components``, ``number_connected_components``, ``is_connected``,
  ``node_connected_component``.
- ``core_number``: undirected, no self-loops (NetworkX refuses those).
- ``triangles`` (self-loops ignored, as in NetworkX).
- ``single_source_shortest_path_length`` and ``bfs_layers`` (one source).
- ``single_source_dijkstra_path_length``: a string weight, non-negative weights that float32
  holds exactly (the store keeps integer weights as int32, others as float32).
- ``betweenness_centrality_subset`` with one source, all nodes as targets and ``weight=None``:
  vastgraph's single-source Brandes dependency, rescaled as NetworkX does.

Within a ``bfs_layers`` layer, nodes come in dense-id order (``G``'s node order), which may
differ from NetworkX's discovery order.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set

import numpy as np

from . import kernels as _algorithms
from .build import from_edges
from .graph import Graph

BACKEND = "vastgraph"

# --------------------------------------------------------------------------------------------
# Conversion


def _nx():
    import networkx

    return networkx


def _edge_weights(G: Any, attribute: str, default: Any) -> Optional[np.ndarray]:
    """The edges' ``attribute`` values (``default`` where missing), or None when no edge has
    the attribute and the default is 1 (an unweighted graph, as NetworkX sees it)."""
    if not any(attribute in data for _, _, data in G.edges(data=True)):
        if default is None or default == 1:
            return None
    if default is None and not all(attribute in data for _, _, data in G.edges(data=True)):
        raise NotImplementedError(f"some edges have no {attribute!r} attribute and there is no default")
    return np.fromiter(
        (data.get(attribute, default) for _, _, data in G.edges(data=True)),
        dtype=np.float64,
        count=G.number_of_edges(),
    )


def convert_from_nx(
    G: Any,
    edge_attrs: Optional[Dict[str, Any]] = None,
    node_attrs: Optional[Dict[str, Any]] = None,
    preserve_edge_attrs: bool = False,
    preserve_node_attrs: bool = False,
    preserve_graph_attrs: bool = False,
    name: Optional[str] = None,
    graph_name: Optional[str] = None,
) -> Graph:
    """A NetworkX graph as a vastgraph :class:`Graph` in a temporary store. Nodes get dense
    ids in ``G``'s order; an undirected graph is stored symmetrised, a directed one with its
    transpose; self-loops are kept. With one edge attribute asked for (``edge_attrs``), its
    values become the arc weights."""
    if isinstance(G, Graph):
        return G
    if G.is_multigraph():
        raise NotImplementedError("vastgraph stores have no parallel edges: multigraphs are not supported")
    if preserve_edge_attrs and any(data for _, _, data in G.edges(data=True)):
        raise NotImplementedError("vastgraph keeps at most one numeric edge attribute (the weight)")
    attrs = dict(edge_attrs or {})
    if len(attrs) > 1:
        raise NotImplementedError(f"vastgraph keeps one edge attribute, not {sorted(attrs)}")
    nodes = list(G)
    index = {node: i for i, node in enumerate(nodes)}
    m = G.number_of_edges()
    src = np.fromiter((index[u] for u, _ in G.edges()), dtype=np.uint32, count=m)
    dst = np.fromiter((index[v] for _, v in G.edges()), dtype=np.uint32, count=m)
    weights = None
    if attrs:
        ((attribute, default),) = attrs.items()
        weights = _edge_weights(G, attribute, default)
    # NetworkX's Dijkstra returns ints when every weight is a Python int, floats otherwise.
    int_weights = weights is None or all(
        isinstance(data.get(attribute, default), (int, np.integer)) for _, _, data in G.edges(data=True)
    )
    workdir = tempfile.mkdtemp(prefix="vastgraph-nx-")
    try:
        built = from_edges(
            src,
            dst,
            weights,
            path=Path(workdir) / "store",
            symmetrize=not G.is_directed(),
            transpose=G.is_directed(),
            keep_self_loops=True,
            num_vertices=len(nodes),
            memory="64MiB",
            _command="networkx",
        )
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    converted = Graph(built._native, nodes=nodes, cleanup=lambda: shutil.rmtree(workdir, ignore_errors=True))
    converted._int_weights = int_weights
    return converted


def convert_to_nx(obj: Any, *, name: Optional[str] = None) -> Any:
    """Results are already NetworkX types; a vastgraph Graph becomes a NetworkX (Di)Graph
    with its node names and ``weight`` edge attributes."""
    if not isinstance(obj, Graph):
        return obj
    nx = _nx()
    H = nx.DiGraph() if obj.directed else nx.Graph()
    names = _names(obj)
    H.add_nodes_from(names)
    offsets = obj.offsets
    src = np.repeat(np.arange(obj.num_vertices), np.diff(offsets).astype(np.int64))
    dst = obj.neighbors
    weights = obj.weights
    if weights is None:
        H.add_edges_from((names[u], names[v]) for u, v in zip(src.tolist(), dst.tolist()))
    else:
        H.add_edges_from(
            (names[u], names[v], {"weight": w})
            for u, v, w in zip(src.tolist(), dst.tolist(), weights.tolist())
        )
    return H


def _names(g: Graph) -> Sequence[Any]:
    names = g.node_names()
    return range(g.num_vertices) if names is None else names


def _graph_of(G: Any) -> Graph:
    if not isinstance(G, Graph):  # pragma: no cover - NetworkX converts before calling
        raise TypeError(f"expected a vastgraph Graph, got {type(G).__name__}")
    return G


def _source_id(g: Graph, source: Any, missing: Callable[[], Exception]) -> int:
    try:
        return g.vertex_id(source)
    except (KeyError, TypeError, ValueError):
        raise missing() from None


# --------------------------------------------------------------------------------------------
# Algorithms: each returns what the NetworkX function returns


def pagerank(
    G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight", dangling=None
):
    g = _graph_of(G)
    n = g.num_vertices
    if n == 0:
        return {}
    # NetworkX stops when the L1 change is below n * tol; vastgraph's tolerance is the bound.
    result = _algorithms.run(
        g, "pagerank", damping=float(alpha), tolerance=n * float(tol), max_iters=int(max_iter)
    )
    if not result.stats["extra"].get("converged", False):
        raise _nx().PowerIterationFailedConvergence(max_iter)
    return dict(zip(_names(g), result.values.tolist()))


def _component_labels(g: Graph) -> np.ndarray:
    return _algorithms.connected_components(g)


def _components(g: Graph) -> Iterator[Set[Any]]:
    """Node sets of the components, ordered by their smallest dense id (the order in which
    NetworkX meets them walking G's nodes)."""
    labels = _component_labels(g)
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    starts = (
        np.flatnonzero(np.r_[True, sorted_labels[1:] != sorted_labels[:-1]])
        if len(labels)
        else np.zeros(0, dtype=np.int64)
    )
    ends = np.r_[starts[1:], len(labels)]
    names = _names(g)
    for lo, hi in zip(starts.tolist(), ends.tolist()):
        yield {names[i] for i in order[lo:hi].tolist()}


def connected_components(G):
    g = _graph_of(G)
    # Run now (not lazily at the first next()), so errors surface at the call.
    components = list(_components(g))
    return (c for c in components)


def number_connected_components(G):
    g = _graph_of(G)
    return int(len(np.unique(_component_labels(g))))


def is_connected(G):
    g = _graph_of(G)
    if g.num_vertices == 0:
        raise _nx().NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    labels = _component_labels(g)
    return bool(np.all(labels == labels[0]))


def node_connected_component(G, n):
    g = _graph_of(G)
    v = g.vertex_id(n)
    labels = _component_labels(g)
    names = _names(g)
    return {names[i] for i in np.flatnonzero(labels == labels[v]).tolist()}


def core_number(G):
    g = _graph_of(G)
    return dict(zip(_names(g), _algorithms.core_number(g).tolist()))


def triangles(G, nodes=None):
    g = _graph_of(G)
    counts = _algorithms.triangles(g).tolist() if g.num_vertices else []
    names = _names(g)
    if nodes is not None:
        try:
            return int(counts[g.vertex_id(nodes)])
        except (KeyError, TypeError, ValueError):
            pass
        return {v: int(counts[g.vertex_id(v)]) for v in nodes}
    return dict(zip(names, counts))


def _hop_distances(g: Graph, source: int) -> np.ndarray:
    return _algorithms.bfs(g, source)


def single_source_shortest_path_length(G, source, cutoff=None):
    g = _graph_of(G)
    s = _source_id(g, source, lambda: _nx().NodeNotFound(f"Source {source} is not in G"))
    dist = _hop_distances(g, s)
    reached = np.flatnonzero(dist >= 0)
    if cutoff is not None:
        reached = reached[dist[reached] <= cutoff]
    # NetworkX lists nodes in BFS order: by distance (then, here, by dense id).
    reached = reached[np.argsort(dist[reached], kind="stable")]
    names = _names(g)
    return {names[i]: int(dist[i]) for i in reached.tolist()}


def bfs_layers(G, sources):
    g = _graph_of(G)
    if _is_node(g, sources):
        sources = [sources]
    sources = list(sources)
    for source in sources:
        if not _is_node(g, source):
            raise _nx().NetworkXError(f"The node {source} is not in the graph.")
    if len(sources) != 1:  # pragma: no cover - can_run declines these
        raise NotImplementedError("vastgraph's BFS has one source")
    dist = _hop_distances(g, g.vertex_id(sources[0]))
    reached = np.flatnonzero(dist >= 0)
    reached = reached[np.argsort(dist[reached], kind="stable")]
    names = _names(g)
    layers: List[List[Any]] = []
    for i in reached.tolist():
        d = int(dist[i])
        if d == len(layers):
            layers.append([])
        layers[d].append(names[i])
    return iter(layers)


def _is_node(g: Graph, node: Any) -> bool:
    try:
        g.vertex_id(node)
        return True
    except (KeyError, TypeError, ValueError):
        return False


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    g = _graph_of(G)
    s = _source_id(g, source, lambda: _nx().NodeNotFound(f"Node {source} not found in graph"))
    if g.weighted:
        dist = _algorithms.sssp(g, s)
        reachable = np.isfinite(dist)
        integral = g._int_weights if g._int_weights is not None else g.manifest.get("weight_type") == "i32"
    else:
        hops = _hop_distances(g, s)
        dist, reachable, integral = hops.astype(np.float64), hops >= 0, True
    reached = np.flatnonzero(reachable)
    if cutoff is not None:
        reached = reached[dist[reached] <= cutoff]
    reached = reached[np.argsort(dist[reached], kind="stable")]
    names = _names(g)
    convert = int if integral else float
    lengths = {names[i]: convert(dist[i]) for i in reached.tolist()}
    lengths[names[s]] = 0  # an int, as NetworkX starts from 0
    return lengths


def betweenness_centrality_subset(G, sources, targets, normalized=False, weight=None):
    g = _graph_of(G)
    (source,) = list(sources)
    dependency = _algorithms.betweenness(g, g.vertex_id(source))
    n = g.num_vertices
    pairs = n - 1  # NetworkX's N without endpoints
    scale = 1.0
    if pairs >= 2:
        if normalized:
            scale = 1.0 / (pairs * (pairs - 1))
        elif not g.directed:
            scale = 0.5
    return dict(zip(_names(g), (dependency * scale).tolist()))


# --------------------------------------------------------------------------------------------
# What can run here


def _has_edge_attribute(G: Any, attribute: Any) -> bool:
    if isinstance(G, Graph):
        return G.weighted
    return any(attribute in data for _, _, data in G.edges(data=True))


def _weights_fit_store(G: Any, attribute: str) -> Any:
    """True, or the reason the weights cannot be stored exactly or used by Dijkstra."""
    if isinstance(G, Graph):
        return True
    for _, _, data in G.edges(data=True):
        w = data.get(attribute, 1)
        if not isinstance(w, (int, float, np.integer, np.floating)) or isinstance(w, bool):
            return f"weight {w!r} is not a number"
        if not math.isfinite(w) or w < 0:
            return f"weight {w!r} is negative or not finite"
        # Integral weights are stored as int32 and others as float32: exact for both only
        # when float32 holds the value.
        if float(np.float32(w)) != float(w):
            return f"weight {w!r} is not exactly representable in float32"
    return True


def _is_member(G: Any, node: Any) -> bool:
    if isinstance(G, Graph):
        return _is_node(G, node)
    try:
        return node in G
    except TypeError:
        return False


def can_run(name: str, args: tuple, kwargs: dict) -> Any:
    """True when this backend computes exactly what NetworkX would for these arguments, or a
    string saying why not."""
    check = _CAN_RUN.get(name)
    if check is None:
        return False
    try:
        return check(*args, **kwargs)
    except TypeError as exc:  # wrong arguments: let NetworkX raise its own error
        return f"arguments not understood: {exc}"


def _pagerank_ok(
    G,
    alpha=0.85,
    personalization=None,
    max_iter=100,
    tol=1.0e-6,
    nstart=None,
    weight="weight",
    dangling=None,
    **_,
):
    if G.is_multigraph():
        return "multigraphs are not supported"
    for what, value in (("personalization", personalization), ("nstart", nstart), ("dangling", dangling)):
        if value is not None:
            return f"{what} is not supported"
    if weight is not None and _has_edge_attribute(G, weight):
        return "vastgraph's PageRank is unweighted (pass weight=None)"
    return True


def _undirected_simple(G, *_, **__):
    if G.is_multigraph():
        return "multigraphs are not supported"
    return True


def _core_number_ok(G, **_):
    if G.is_directed():
        return "vastgraph's k-core needs an undirected graph"
    if G.is_multigraph():
        return "multigraphs are not supported"
    if not isinstance(G, Graph) and _nx().number_of_selfloops(G) > 0:
        return "self-loops (NetworkX raises for them)"
    return True


def _triangles_ok(G, nodes=None, **_):
    # Self-loops are fine: vastgraph's triangle counting ignores them, as NetworkX does.
    if G.is_multigraph():
        return "multigraphs are not supported"
    return True


def _sssp_length_ok(G, source=None, cutoff=None, **_):
    if G.is_multigraph():
        return "multigraphs are not supported"
    return True


def _bfs_layers_ok(G, sources=None, **_):
    if G.is_multigraph():
        return "multigraphs are not supported"
    if _is_member(G, sources):
        return True
    try:
        count = len(list(sources))
    except TypeError:
        return True  # NetworkX raises its own error
    return True if count == 1 else "vastgraph's BFS has one source"


def _dijkstra_ok(G, source=None, cutoff=None, weight="weight", **_):
    if G.is_multigraph():
        return "multigraphs are not supported"
    if not isinstance(weight, str):
        return "weight functions are not supported"
    return _weights_fit_store(G, weight)


def _bc_subset_ok(G, sources=None, targets=None, normalized=False, weight=None, **_):
    if G.is_multigraph():
        return "multigraphs are not supported"
    if weight is not None:
        return "weighted betweenness is not supported"
    try:
        source_list = list(sources)
        target_set = set(targets)
    except TypeError:
        return "sources and targets must be collections of nodes"
    if len(source_list) != 1:
        return "vastgraph's betweenness has one source"
    nodes = set(_names(G)) if isinstance(G, Graph) else set(G)
    if target_set != nodes:
        return "targets must be all nodes"
    if not _is_member(G, source_list[0]):
        return "the source is not in the graph"
    return True


_CAN_RUN: Dict[str, Callable[..., Any]] = {
    "pagerank": _pagerank_ok,
    "connected_components": _undirected_simple,
    "number_connected_components": _undirected_simple,
    "is_connected": _undirected_simple,
    "node_connected_component": _undirected_simple,
    "core_number": _core_number_ok,
    "triangles": _triangles_ok,
    "single_source_shortest_path_length": _sssp_length_ok,
    "bfs_layers": _bfs_layers_ok,
    "single_source_dijkstra_path_length": _dijkstra_ok,
    "betweenness_centrality_subset": _bc_subset_ok,
}


def should_run(name: str, args: tuple, kwargs: dict) -> bool:
    """Always worth it when asked for: conversion is linear, the kernels are parallel."""
    return True


class BackendInterface:
    """The object NetworkX loads from the ``networkx.backends`` entry point."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    pagerank = staticmethod(pagerank)
    connected_components = staticmethod(connected_components)
    number_connected_components = staticmethod(number_connected_components)
    is_connected = staticmethod(is_connected)
    node_connected_component = staticmethod(node_connected_component)
    core_number = staticmethod(core_number)
    triangles = staticmethod(triangles)
    single_source_shortest_path_length = staticmethod(single_source_shortest_path_length)
    bfs_layers = staticmethod(bfs_layers)
    single_source_dijkstra_path_length = staticmethod(single_source_dijkstra_path_length)
    betweenness_centrality_subset = staticmethod(betweenness_centrality_subset)


backend_interface = BackendInterface()


# Shown in the "Backends" section of the NetworkX docstrings.
_LIMITS = {
    "pagerank": "Unweighted only (weight=None or no weights in G); personalization, nstart and dangling are not supported.",
    "core_number": "Undirected graphs without self-loops.",
    "bfs_layers": "One source; within a layer, nodes come in G's node order.",
    "single_source_dijkstra_path_length": "String weight attribute; non-negative weights that float32 represents exactly.",
    "betweenness_centrality_subset": "One source, all nodes as targets, weight=None (single-source Brandes).",
}


def get_info() -> Dict[str, Any]:
    """The ``networkx.backend_info`` entry point: which functions dispatch here."""
    return {
        "backend_name": BACKEND,
        "project": "vastgraph",
        "package": "vastgraph",
        "short_summary": "Parallel graph analytics on memory-mapped graph stores (Rust).",
        "functions": {
            name: ({"additional_docs": _LIMITS[name]} if name in _LIMITS else {}) for name in _CAN_RUN
        },
        "default_config": {},
    }
