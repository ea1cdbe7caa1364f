"""vastgraph: graph analytics on graphs larger than memory, on one machine.

A graph lives in a *store*: a directory of checksummed arrays that is memory-mapped, never
loaded. Build one, open it, run algorithms::

    import vastgraph as vg
    g = vg.convert("web-cnr-2000.tsv.zst", "cnr", transpose=True)   # or vg.from_edges(...)
    g = vg.open("cnr")
    pr = vg.pagerank(g)                  # numpy float64 array, indexed by dense vertex id
    vg.to_pandas(pr, g)                  # with the original labels when the store has them

Every algorithm of the Rust registry (the one the CLI's ``vastgraph run`` uses) is a function
here; :func:`run` reaches them by registry name and returns the run statistics as well.
``import networkx as nx; nx.pagerank(G, backend="vastgraph")`` dispatches NetworkX calls
(see :mod:`vastgraph.nx_backend`).
"""

from ._native import __version__
from .kernels import (
    GENERATED,
    REGISTRY_NAMES,
    RunResult,
    algorithms,
    articulation_points,
    bellman_ford,
    betweenness,
    bfs,
    biconnected_component_count,
    coloring,
    connected_components,
    core_number,
    delta_pagerank,
    densest_subgraph,
    label_propagation,
    low_diameter_decomposition,
    maximal_independent_set,
    maximal_matching,
    pagerank,
    personalized_pagerank,
    random_walks,
    run,
    set_cover,
    spanner,
    spanning_forest,
    sssp,
    triangle_count,
    triangles,
    widest_path,
)
from .build import convert, from_edges, from_pandas, from_scipy, reorder
from .frames import to_pandas
from .graph import Graph, open
from .parquet import export_parquet, write_parquet

__all__ = [
    "Graph",
    "REGISTRY_NAMES",
    "RunResult",
    "__version__",
    "algorithms",
    "articulation_points",
    "bellman_ford",
    "betweenness",
    "bfs",
    "biconnected_component_count",
    "coloring",
    "connected_components",
    "convert",
    "core_number",
    "delta_pagerank",
    "densest_subgraph",
    "export_parquet",
    "from_edges",
    "from_pandas",
    "from_scipy",
    "label_propagation",
    "low_diameter_decomposition",
    "maximal_independent_set",
    "maximal_matching",
    "open",
    "pagerank",
    "personalized_pagerank",
    "random_walks",
    "reorder",
    "run",
    "set_cover",
    "spanner",
    "spanning_forest",
    "sssp",
    "to_pandas",
    "triangle_count",
    "triangles",
    "widest_path",
    "write_parquet",
]

# The registry's algorithms without a hand-written function, as functions of their name.
globals().update(GENERATED)
__all__ += sorted(GENERATED)
