"""The algorithms, as functions returning NumPy arrays indexed by dense vertex id.

Every function here is a thin name for one entry of the Rust algorithm registry (the table the
CLI's ``vastgraph run`` uses too): :data:`REGISTRY_NAMES` maps each function to its registry
name, and its keyword arguments become the registry's parameters. :func:`run` reaches any
registry algorithm by name and also returns the run statistics.

Arrays come straight from Rust without a copy. The GIL is released while a kernel runs, so
other Python threads keep running. Ctrl-C raises KeyboardInterrupt within about 0.1 s, and the
kernel stops at its next step (a run with ``checkpoint=`` saves its state first).

Common keyword arguments:

- ``threads``: run in a pool of that many threads (default: all cores).
- ``memory``: a memory budget (bytes or ``"4GiB"``), as the CLI's ``--memory``. Every algorithm
  then runs within it: in memory when the mapped graph and its state fit, otherwise out of core,
  vertex state and I/O buffers within the budget and neighbour lists read from disk (O_DIRECT,
  not the page cache); the statistics then fill ``out_of_core`` (bytes read, requests, MB/s,
  the I/O mode of every pass). A budget below the O(n) state raises ValueError giving the
  minimum. Without ``memory`` the graph is memory-mapped and the page cache is used freely.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._options import Memory, check_threads, parse_memory
from ._progress import make_run_progress
from .graph import Graph, VertexId, _dense_id, _is_int

# Every parameter name of the registry with its kind (each algorithm checks its own in Rust).
_DESCRIPTORS: Dict[str, Dict[str, Any]] = {a["name"]: a for a in json.loads(_native.algorithms())}
_PARAM_KINDS = {p["name"]: p["kind"] for a in _DESCRIPTORS.values() for p in a["parameters"]}
_PARAM_NAMES = frozenset(_PARAM_KINDS)
# NetworkX's names for the registry's parameters, taken by :func:`run` as well.
_NX_NAMES = {"alpha": "damping", "tol": "tolerance", "max_iter": "max_iters"}


class RunResult(NamedTuple):
    """What :func:`run` returns: the values (None when the algorithm has none) and the run
    statistics (``wall_seconds`` of the kernel, ``iterations``, ``edges_traversed``, ``extra``
    with algorithm-specific figures, the resolved ``parameters``, ``threads``...)."""

    values: Optional[np.ndarray]
    stats: Dict[str, Any]

    def __repr__(self) -> str:
        s = self.stats
        values = "None" if self.values is None else f"{self.values.dtype}{list(self.values.shape)}"
        parts = [f"{s.get('algorithm', '?')}", f"values={values}"]
        if "wall_seconds" in s:
            parts.append(f"{s['wall_seconds']:.4g} s")
        if "iterations" in s:
            parts.append(f"{s['iterations']} iterations")
        if s.get("extra", {}).get("converged") is False:
            parts.append("not converged")
        if s.get("out_of_core"):
            parts.append("out of core")
        return f"RunResult({', '.join(parts)})"


def algorithms() -> List[Dict[str, Any]]:
    """The registry's algorithms, as ``vastgraph algorithms --json`` lists them: for each a
    dict of ``name`` (for :func:`run`), ``summary``, ``parameters`` (the keyword arguments it
    takes, each a dict of ``name``, ``kind``, ``default``, ``range`` and ``help``; any other
    is an error), ``needs`` (``symmetric``, ``transpose``, ``weights``), its state per vertex and per arc,
    ``resumable`` (saves checkpoints) and ``in_passes`` (reads its lists in passes within a
    memory budget)."""
    return json.loads(_native.algorithms())


def refusal(algorithm: str, **params: Any) -> Optional[str]:
    """Why registry algorithm ``algorithm`` would refuse these parameter values (a name it does
    not take, a number outside its range, an unknown option), or None: the descriptors' checks,
    for a caller that would rather do something else than raise (the NetworkX backend falls
    back to NetworkX)."""
    descriptor = _DESCRIPTORS.get(algorithm)
    if descriptor is None:
        return f"unknown algorithm {algorithm!r}"
    declared = {p["name"]: p for p in descriptor["parameters"]}
    for name, value in params.items():
        p = declared.get(name)
        if p is None:
            return f"{algorithm} does not take {name}"
        if p["options"] is not None and value not in p["options"]:
            return f"{name} must be one of {', '.join(p['options'])}, got {value!r}"
        if p["kind"] in ("number", "integer"):
            low, high = p["min"], p["max"]
            if low is not None and (value < low["value"] or (value == low["value"] and not low["inclusive"])):
                return f"{name} {value} is outside {p['range']}"
            if high is not None and (value > high["value"] or (value == high["value"] and not high["inclusive"])):
                return f"{name} {value} is outside {p['range']}"
    return None


def _check_graph(g: Any) -> Graph:
    if not isinstance(g, Graph):
        raise TypeError(
            f"expected a vastgraph.Graph (from vastgraph.open, convert or from_edges), got {type(g).__name__}"
        )
    return g


def _json_value(name: str, value: Any) -> Any:
    """Parameters as plain JSON values (NumPy scalars and arrays included). A value JSON cannot
    carry (NaN, infinity) or that no parameter takes (a negative integer: every integer
    parameter is a count, an id or a seed) is refused here, by name, rather than as a JSON
    parse error."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_json_value(name, v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")
    # JSON would carry it, but as a float the native side would quote rounded.
    if isinstance(value, int) and value >= 1 << 64:
        raise ValueError(f"{name} must be below 2^64, got {value}")
    return value


def _checkpoint_every(every: Any) -> Optional[str]:
    """``checkpoint_every`` as the CLI's --checkpoint-every reads it: iterations, or a time."""
    if every is None:
        return None
    if isinstance(every, bool) or not isinstance(every, (int, np.integer, str)):
        raise TypeError(f"checkpoint_every must be an int (iterations) or a time such as '30s', not {every!r}")
    if not isinstance(every, str) and every < 1:
        raise ValueError(f"checkpoint_every must be at least 1 iteration, got {every}")
    return str(every)


def run(
    g: Graph,
    algorithm: str,
    *,
    threads: Optional[int] = None,
    memory: Memory = None,
    verify: bool = False,
    io_mode: Optional[str] = None,
    mrt: Optional[int] = None,
    recalibrate: bool = False,
    checkpoint: Optional[Union[str, "os.PathLike[str]"]] = None,
    checkpoint_every: Optional[Union[int, str]] = None,
    resume: bool = False,
    progress: Any = False,
    **params: Any,
) -> RunResult:
    """Runs registry algorithm ``algorithm`` (a name from :func:`algorithms`, as in
    ``vastgraph run``) on ``g``. ``params`` are the algorithm's parameters, as
    :func:`algorithms` lists them with their defaults and ranges (NetworkX's ``alpha``, ``tol``
    and ``max_iter`` name damping, tolerance and max_iters, and a refusal names them as given);
    one it does not take, or a value out of its range, raises ValueError naming its
    parameters; ``verify=True`` also runs the algorithm's independent
    verifier (ValueError if it disagrees). With ``memory``, an out-of-core run takes
    ``vastgraph run``'s I/O options: ``io_mode`` ("adaptive", "selective" or "streaming"),
    ``mrt`` (reentries, default 5) and ``recalibrate`` (measure the disk again).

    ``checkpoint=DIR`` saves an iterative kernel's state there as it runs (pagerank and its
    variants, label-propagation, sssp, bfs, kcore), every ``checkpoint_every`` iterations (an
    int) or after a time ("30s", "5m"; default "60s"); Ctrl-C saves, then raises
    KeyboardInterrupt. ``resume=True`` continues from the saved state, to the result an
    uninterrupted run gives. The checkpoint is removed when the run completes.

    ``progress=True`` shows a tqdm bar of the iterations (or engine steps), the frontier and
    the bytes read; a callable gets ``callback(status)`` every 100 ms, ``status`` a dict of
    ``iterations``, ``max_iterations``, ``steps``, ``active``, ``passes``, ``bytes_read``,
    ``mode`` and ``seconds``."""
    _check_graph(g)
    renamed: Dict[str, str] = {}
    for nx_name, name in _NX_NAMES.items():
        if nx_name in params:
            if params.get(name) is not None:
                raise TypeError(f"{nx_name} and {name} are the same parameter; give one")
            params[name] = params.pop(nx_name)
            renamed[name] = nx_name
    try:
        unknown = sorted(set(params) - _PARAM_NAMES)
        if unknown:
            raise TypeError(
                f"unknown parameter(s) {', '.join(unknown)}; known: {', '.join(sorted(_PARAM_NAMES))}"
            )
        budget = None if memory is None else parse_memory(memory, minimum=1)
        if mrt is not None:
            if isinstance(mrt, bool) or not hasattr(mrt, "__index__"):
                raise TypeError(f"mrt must be an int (reentries of a streamed block), not {type(mrt).__name__}")
            mrt = int(mrt.__index__())
            if not 0 <= mrt < 1 << 32:
                raise ValueError(f"mrt must be in 0 .. 2^32 - 1 (reentries of a streamed block), got {mrt}")
        if budget is not None and g._finalizer is not None and not g._finalizer.alive:
            raise ValueError(
                "the graph was closed and its temporary store removed, which a run with memory= reads "
                "again: run it in memory (without memory=), or convert the graph again"
            )
        # Vertices by label on a labelled graph, as the CLI takes them.
        for name, value in params.items():
            if value is not None and _PARAM_KINDS[name] == "vertex":
                params[name] = _source(g, value)
            elif value is not None and _PARAM_KINDS[name] == "vertices":
                params[name] = _sources(g, value)
        given = {k: _json_value(k, v) for k, v in params.items() if v is not None}
        callback, close = make_run_progress(progress, algorithm)
        try:
            values, stats_json = _native.run_algorithm(
                g._native, algorithm, json.dumps(given), threads=check_threads(threads), verify=bool(verify),
                memory=budget, io_mode=io_mode, mrt=mrt, recalibrate=bool(recalibrate),
                checkpoint=None if checkpoint is None else os.fspath(checkpoint),
                checkpoint_every=_checkpoint_every(checkpoint_every),
                resume=bool(resume), progress=callback,
            )
        finally:
            close()
        return RunResult(values, json.loads(stats_json))
    except (ValueError, TypeError) as e:
        # A refusal names the parameter as the caller did (max_iter, not max_iters).
        if renamed and e.args and isinstance(e.args[0], str):
            message = e.args[0]
            for name, nx_name in renamed.items():
                message = re.sub(rf"\b{name}\b", nx_name, message)
            e.args = (message,) + e.args[1:]
        raise


def _values(g: Graph, algorithm: str, threads: Optional[int], memory: Memory, **params: Any) -> np.ndarray:
    values = run(g, algorithm, threads=threads, memory=memory, **params).values
    if values is None:  # pragma: no cover - the registry gives values for these
        raise RuntimeError(f"{algorithm} returned no values")
    return values


def _vertex(g: Graph, name: Any) -> int:
    """The dense id of a vertex: an int is the id itself, unless the graph's names are ints
    too (a NetworkX graph with integer nodes), where it names a node as in NetworkX; anything
    else (a store's label, a NetworkX node) is looked up among the graph's names."""
    g = _check_graph(g)
    if isinstance(name, VertexId) or (_is_int(name) and not g.has_integer_names()):
        return _dense_id(name, g.num_vertices)
    if g.node_names() is None:
        raise TypeError(f"{name!r} names no vertex: the graph has no labels, so vertices are its ids")
    try:
        return g.vertex_id(name)
    except KeyError:
        raise KeyError(f"no vertex of the graph is named {name!r}") from None


def _source(g: Graph, source: Any) -> Optional[int]:
    return None if source is None else _vertex(g, source)


def _sources(g: Graph, sources: Optional[Sequence[Any]]) -> Optional[List[int]]:
    if sources is None:
        return None
    if isinstance(sources, str):
        sources = [sources]
    return [_vertex(g, s) for s in np.asarray(sources, dtype=object).ravel().tolist()]


def bfs(
    g: Graph,
    source: Optional[Union[int, str]] = None,
    *,
    parents: bool = False,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """Hop distance from ``source`` (int64; -1 when unreachable), or with ``parents=True`` the
    BFS tree's parent of every vertex. Default source: the vertex with the most out-edges."""
    return _values(g, "bfs", threads, memory, source=source, parents=bool(parents))


def sssp(
    g: Graph,
    source: Optional[Union[int, str]] = None,
    *,
    delta: Optional[float] = None,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """Shortest-path distance from ``source`` over non-negative weights (float64; inf when
    unreachable), by delta-stepping with bucket width ``delta``. Unweighted stores need weights."""
    return _values(g, "sssp", threads, memory, source=source, delta=delta)


def bellman_ford(
    g: Graph, source: Optional[Union[int, str]] = None, *, threads: Optional[int] = None, memory: Memory = None
) -> np.ndarray:
    """Shortest-path distance from ``source`` allowing negative weights (float64; inf when
    unreachable); ValueError on a negative cycle reachable from the source."""
    return _values(g, "bellman-ford", threads, memory, source=source)


def connected_components(
    g: Graph,
    *,
    method: Optional[str] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """Component label of every vertex (uint32): the smallest id in its component. Weak
    components on directed graphs. ``method``: "afforest" (default) or "ldd"."""
    return _values(g, "cc", threads, memory, method=method, seed=seed)


def pagerank(
    g: Graph,
    alpha: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
    *,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """PageRank scores (float64, summing to 1) with damping ``alpha``; dangling vertices spread
    their score uniformly. Stops after the first iteration whose L1 change is below ``tol``
    (note: NetworkX compares with ``n * tol``) or after ``max_iter`` iterations."""
    return _values(
        g, "pagerank", threads, memory, alpha=alpha, tol=tol, max_iter=max_iter
    )


def delta_pagerank(
    g: Graph,
    alpha: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
    *,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """PageRank computed by pushing only changes above a threshold; the same fixed point as
    :func:`pagerank`, stopped once a round moves less than (1 - alpha) * tol, within about
    4 * tol of it in L1."""
    return _values(
        g,
        "delta-pagerank",
        threads,
        memory,
        alpha=alpha,
        tol=tol,
        max_iter=max_iter,
    )


def personalized_pagerank(
    g: Graph,
    sources: Sequence[int],
    alpha: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
    *,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """PageRank whose teleport jumps go (uniformly) to ``sources`` only."""
    return _values(
        g, "personalized-pagerank", threads, memory,
        sources=sources, alpha=alpha, tol=tol, max_iter=max_iter,
    )  # fmt: skip


def betweenness(
    g: Graph, source: Optional[Union[int, str]] = None, *, threads: Optional[int] = None, memory: Memory = None
) -> np.ndarray:
    """Single-source betweenness dependency from ``source`` (Brandes): for each vertex v, the
    sum over targets t of the fraction of shortest source-t paths through v (float64)."""
    return _values(g, "bc", threads, memory, source=source)


def core_number(g: Graph, *, threads: Optional[int] = None, memory: Memory = None) -> np.ndarray:
    """Coreness of every vertex (uint32). Needs a symmetric store."""
    return _values(g, "kcore", threads, memory)


def triangles(g: Graph, *, threads: Optional[int] = None, memory: Memory = None) -> np.ndarray:
    """Number of triangles through every vertex (uint64). Needs a symmetric store; the total
    is ``triangles(g).sum() // 3`` (or :func:`triangle_count`)."""
    return _values(g, "tc", threads, memory, per_vertex=True)


def triangle_count(g: Graph, *, threads: Optional[int] = None, memory: Memory = None) -> int:
    """Total number of triangles (no per-vertex array is built)."""
    return int(run(g, "tc", threads=threads, memory=memory).stats["extra"]["triangles"])


def widest_path(
    g: Graph,
    source: Optional[Union[int, str]] = None,
    *,
    method: Optional[str] = None,
    delta: Optional[float] = None,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """Widest (bottleneck) path width from ``source`` (float64). ``method``: "frontier" or
    "buckets" (bucket width ``delta``)."""
    return _values(g, "widest", threads, memory, source=source, method=method, delta=delta)


def low_diameter_decomposition(
    g: Graph,
    *,
    beta: Optional[float] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """Cluster id of every vertex (uint32) of a low-diameter decomposition with rate ``beta``."""
    return _values(g, "ldd", threads, memory, beta=beta, seed=seed)


def spanner(
    g: Graph,
    *,
    k: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """Edges of an O(k)-spanner as an (m', 2) uint32 array (default k: ceil(log2 n))."""
    return _values(g, "spanner", threads, memory, k=k, seed=seed)


def spanning_forest(g: Graph, *, threads: Optional[int] = None, memory: Memory = None) -> np.ndarray:
    """Edges of a spanning forest as an (n - components, 2) uint32 array."""
    return _values(g, "spanning-forest", threads, memory)


def coloring(
    g: Graph, *, seed: Optional[int] = None, threads: Optional[int] = None, memory: Memory = None
) -> np.ndarray:
    """A proper vertex colouring with at most max degree + 1 colours (uint32 colour per vertex)."""
    return _values(g, "coloring", threads, memory, seed=seed)


def maximal_independent_set(
    g: Graph, *, seed: Optional[int] = None, threads: Optional[int] = None, memory: Memory = None
) -> np.ndarray:
    """A maximal independent set as a boolean mask (random-priority greedy with ``seed``)."""
    return _values(g, "mis", threads, memory, seed=seed).view(np.bool_)


def densest_subgraph(
    g: Graph, *, epsilon: Optional[float] = None, threads: Optional[int] = None, memory: Memory = None
) -> np.ndarray:
    """An approximately densest subgraph (peeling with ``epsilon``) as a boolean vertex mask."""
    return _values(g, "densest", threads, memory, epsilon=epsilon).view(np.bool_)


def maximal_matching(
    g: Graph, *, seed: Optional[int] = None, threads: Optional[int] = None, memory: Memory = None
) -> np.ndarray:
    """A maximal matching as a (k, 2) uint32 array of edges [u, v], u < v: the sequential
    greedy in a random edge order fixed by ``seed``. Needs a symmetric store."""
    return _values(g, "matching", threads, memory, seed=seed)


def set_cover(
    g: Graph,
    *,
    epsilon: Optional[float] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """A (1+epsilon)-approximate greedy set cover of the closed neighbourhoods (a dominating
    set) as a boolean vertex mask. Needs a symmetric store."""
    return _values(g, "setcover", threads, memory, epsilon=epsilon, seed=seed).view(np.bool_)


def articulation_points(g: Graph, *, threads: Optional[int] = None, memory: Memory = None) -> np.ndarray:
    """The articulation points (cut vertices) as a boolean vertex mask. Needs a symmetric
    store; :func:`biconnected_component_count` gives the number of biconnected components."""
    return _values(g, "biconnectivity", threads, memory).view(np.bool_)


def biconnected_component_count(g: Graph, *, threads: Optional[int] = None, memory: Memory = None) -> int:
    """Number of biconnected components (isolated vertices belong to none)."""
    stats = run(g, "biconnectivity", threads=threads, memory=memory).stats
    return int(stats["extra"]["biconnected_components"])


def label_propagation(
    g: Graph,
    *,
    max_iter: Optional[int] = None,
    schedule: Optional[str] = None,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """Community label of every vertex (uint32) by label propagation: ``schedule``
    "synchronous" (the default: every vertex from the last round's labels) or
    "semi-synchronous" (colour class by colour class, as NetworkX's
    ``label_propagation_communities``, whose communities it gives; symmetric graphs)."""
    return _values(g, "label-propagation", threads, memory, max_iter=max_iter, schedule=schedule)


def random_walks(
    g: Graph,
    sources: Optional[Sequence[int]] = None,
    *,
    walk_length: Optional[int] = None,
    every: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    memory: Memory = None,
) -> np.ndarray:
    """Random walks, one row per walk (uint32 vertex ids, ``walk_length + 1`` columns; a walk
    stuck at a vertex without out-edges is padded with 2^32 - 1). Starts at ``sources``, or
    at every ``every``-th vertex."""
    return _values(
        g,
        "random-walk",
        threads,
        memory,
        sources=sources,
        walk_length=walk_length,
        every=every,
        seed=seed,
    )


#: Python function name -> registry name: the one table from the Python API to the kernels.
REGISTRY_NAMES: Dict[str, str] = {
    "bfs": "bfs",
    "sssp": "sssp",
    "bellman_ford": "bellman-ford",
    "connected_components": "cc",
    "pagerank": "pagerank",
    "betweenness": "bc",
    "core_number": "kcore",
    "triangles": "tc",
    "widest_path": "widest",
    "low_diameter_decomposition": "ldd",
    "spanner": "spanner",
    "spanning_forest": "spanning-forest",
    "coloring": "coloring",
    "maximal_independent_set": "mis",
    "densest_subgraph": "densest",
    "maximal_matching": "matching",
    "set_cover": "setcover",
    "articulation_points": "biconnectivity",
    "label_propagation": "label-propagation",
    "random_walks": "random-walk",
    "delta_pagerank": "delta-pagerank",
    "personalized_pagerank": "personalized-pagerank",
}


def _function_of(descriptor: Dict[str, Any]):
    """A function for a registry algorithm that has no hand-written one above: it takes the
    algorithm's parameters as keyword arguments and returns its values (as :func:`run`)."""
    name = descriptor["name"]

    def function(g: Graph, *, threads: Optional[int] = None, memory: Memory = None, **params: Any) -> Optional[np.ndarray]:
        return run(g, name, threads=threads, memory=memory, **params).values

    function.__name__ = function.__qualname__ = name.replace("-", "_")
    lines = [f"{descriptor['summary']}.", "", f"Registry algorithm ``{name}``; keyword arguments:", ""]
    for p in descriptor["parameters"]:
        accepted = f"; {p['range']}" if p["range"] else ""
        lines.append(f"- ``{p['name']}`` ({p['kind']}): {p['help']} (default {p['default']}{accepted})")
    function.__doc__ = "\n".join(lines)
    return function


#: Functions made from the registry for the algorithms without a hand-written one, by name.
GENERATED: Dict[str, Any] = {}
for _descriptor in _DESCRIPTORS.values():
    if _descriptor["name"] not in REGISTRY_NAMES.values():
        _function = _function_of(_descriptor)
        GENERATED[_function.__name__] = _function
        REGISTRY_NAMES[_function.__name__] = _descriptor["name"]
