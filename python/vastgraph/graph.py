"""An opened store: sizes, degrees, the CSR arrays as zero-copy NumPy views of the memory-mapped
files, labels, and conversions (SciPy, pandas, Parquet)."""

from __future__ import annotations

import json
import os
import weakref
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _native
from ._options import fspath

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import scipy.sparse


class Graph:
    """A vastgraph store opened for reading (see :func:`vastgraph.open`).

    The graph is read-only and memory-mapped: opening it reads only the manifest and
    validates the arrays; algorithms read the pages they touch. Vertices are dense ids
    ``0 .. num_vertices - 1``; when the store was built from labelled input, :meth:`labels`
    maps them back.

    A ``Graph`` is also a NetworkX backend graph (``__networkx_backend__ = "vastgraph"``):
    ``nx.pagerank(g)`` runs vastgraph's PageRank on it without conversion.
    """

    __networkx_backend__ = "vastgraph"

    def __init__(
        self,
        native: _native.Store,
        *,
        nodes: Optional[Sequence[Any]] = None,
        cleanup: Optional[Callable[[], None]] = None,
    ):
        self._native = native
        self._nodes = None if nodes is None else list(nodes)
        self._node_index: Optional[Dict[Any, int]] = None
        self._has_integer_names: Optional[bool] = None
        self._labels: Optional[List[str]] = None
        self._manifest: Optional[dict] = None
        # The NetworkX backend builds temporary stores; they go when the graph does.
        self._finalizer = weakref.finalize(self, cleanup) if cleanup is not None else None
        # NetworkX keeps converted graphs in this cache; vastgraph graphs are read-only.
        self.__networkx_cache__: Dict[str, Any] = {}
        # Set by the NetworkX backend: whether the converted graph's weights were Python ints
        # (NetworkX's path lengths are then ints). None: decide from the store's weight type.
        self._int_weights: Optional[bool] = None

    # ----------------------------------------------------------------------------------
    # What the store is

    @property
    def path(self) -> str:
        """The store directory."""
        return os.fspath(self._native.path)

    @property
    def num_vertices(self) -> int:
        """Number of vertices n (ids 0..n-1)."""
        return self._native.num_vertices

    @property
    def num_arcs(self) -> int:
        """Number of stored arcs; a symmetric (undirected) store holds both (u, v) and (v, u)."""
        return self._native.num_arcs

    @property
    def directed(self) -> bool:
        """False for a symmetric store (built with ``symmetrize=True``)."""
        return self._native.directed

    @property
    def weighted(self) -> bool:
        """Whether arcs carry weights."""
        return self._native.weighted

    @property
    def has_transpose(self) -> bool:
        """Whether the in-edges of a directed store are stored too (``transpose=True``)."""
        return self._native.has_transpose

    @property
    def has_labels(self) -> bool:
        """Whether the store maps dense ids to original labels."""
        return self._native.has_labels

    @property
    def manifest(self) -> dict:
        """The store's manifest (sizes, flags, files, provenance) as a dict."""
        if self._manifest is None:
            self._manifest = json.loads(self._native.manifest_json())
        return self._manifest

    def __len__(self) -> int:
        return self.num_vertices

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "symmetric"
        weights = ", weighted" if self.weighted else ""
        return f"<vastgraph.Graph {self.path!r}: {self.num_vertices} vertices, {self.num_arcs} arcs, {kind}{weights}>"

    # NetworkX asks these of any graph before dispatching (e.g. @not_implemented_for).
    def is_directed(self) -> bool:
        """NetworkX compatibility: True for directed stores."""
        return self.directed

    def is_multigraph(self) -> bool:
        """NetworkX compatibility: stores never hold parallel arcs."""
        return False

    def number_of_nodes(self) -> int:
        return self.num_vertices

    # ----------------------------------------------------------------------------------
    # Arrays (zero-copy, read-only views of the mapped files)

    @property
    def offsets(self) -> np.ndarray:
        """CSR offsets (uint64, n+1): the out-neighbours of v are ``neighbors[offsets[v]:offsets[v+1]]``."""
        return self._native.array("offsets")

    @property
    def neighbors(self) -> np.ndarray:
        """CSR neighbour ids (uint32, one per arc), sorted within each vertex."""
        return self._native.array("neighbors")

    @property
    def weights(self) -> Optional[np.ndarray]:
        """Arc weights (int32 or float32, aligned with :attr:`neighbors`), or None."""
        return self._native.array("weights")

    @property
    def in_offsets(self) -> Optional[np.ndarray]:
        """Offsets of the stored transpose (in-edges), or None."""
        return self._native.array("in_offsets")

    @property
    def in_neighbors(self) -> Optional[np.ndarray]:
        """Neighbour ids of the stored transpose (in-edges), or None."""
        return self._native.array("in_neighbors")

    def degrees(self) -> np.ndarray:
        """Out-degree of every vertex (uint64, indexed by dense id)."""
        return np.diff(self.offsets)

    def in_degrees(self) -> np.ndarray:
        """In-degree of every vertex (uint64); on a symmetric store, the degree."""
        if not self.directed:
            return self.degrees()
        in_offsets = self.in_offsets
        if in_offsets is not None:
            return np.diff(in_offsets)
        return np.bincount(self.neighbors, minlength=self.num_vertices).astype(np.uint64)

    # ----------------------------------------------------------------------------------
    # Labels and node names

    def labels(self) -> Optional[List[str]]:
        """The original labels in dense-id order (strings), or None when the store has none."""
        if self._labels is None and self.has_labels:
            self._labels = self._native.labels()
        return self._labels

    def node_names(self) -> Optional[List[Any]]:
        """What each dense id stands for: the NetworkX nodes of a graph converted from
        NetworkX, else the store's labels, else None (the ids are the names)."""
        return self._nodes if self._nodes is not None else self.labels()

    def vertex_id(self, name: Any) -> "VertexId":
        """The dense id of a node name or label (or of an id, when the graph has no names), as a
        :class:`VertexId`: passed back to a function, it is that id, never a node name."""
        names = self.node_names()
        if names is None:
            return VertexId(_dense_id(name, self.num_vertices))
        if self._node_index is None:
            self._node_index = {node: i for i, node in enumerate(names)}
        try:
            return VertexId(self._node_index[name])
        except (KeyError, TypeError):
            raise KeyError(f"{name!r} is not a vertex of this graph") from None

    def has_integer_names(self) -> bool:
        """Whether some node name is an int (a NetworkX graph with integer nodes): then an int
        names a node, as in NetworkX, not a dense id. A store's labels are strings."""
        if self._nodes is None:
            return False
        if self._has_integer_names is None:
            self._has_integer_names = any(_is_int(node) for node in self._nodes)
        return self._has_integer_names

    def verify_checksums(self) -> None:
        """Re-hash every file and compare with the manifest (raises ValueError on a mismatch)."""
        self._native.verify_checksums()

    def verify(self) -> None:
        """Everything ``vastgraph info --verify`` checks: every file's checksum, then that a
        symmetric store holds every arc's reverse and a transpose agrees with the lists
        (raises ValueError naming the first bad arc)."""
        self._native.verify()

    # ----------------------------------------------------------------------------------
    # Conversions

    def to_scipy(self, dtype: Any = np.float64) -> "scipy.sparse.csr_array":
        """The adjacency matrix as a SciPy CSR array (n x n): entry (u, v) is the weight of arc
        u -> v (1 when unweighted). Copies the arrays into memory: for graphs that fit."""
        import scipy.sparse as sp

        n = self.num_vertices
        index_dtype = np.int32 if max(n, self.num_arcs) < 2**31 else np.int64
        indptr = self.offsets.astype(index_dtype)
        indices = self.neighbors.astype(index_dtype)
        weights = self.weights
        data = np.ones(len(indices), dtype=dtype) if weights is None else weights.astype(dtype)
        return sp.csr_array((data, indices, indptr), shape=(n, n))

    def result_frame(self, values: Any, name: str = "value") -> "pandas.DataFrame":
        """A per-vertex result as a DataFrame; see :func:`vastgraph.to_pandas`."""
        from .frames import to_pandas

        return to_pandas(values, self, name=name)

    def export_parquet(self, directory: Union[str, os.PathLike], **options: Any) -> None:
        """Writes the graph as Parquet; see :func:`vastgraph.parquet.export_parquet`."""
        from .parquet import export_parquet

        export_parquet(self, directory, **options)

    def close(self) -> None:
        """Removes a temporary store now (graphs converted from NetworkX); otherwise nothing."""
        if self._finalizer is not None:
            self._finalizer()


class VertexId(int):
    """A dense id, never a node name: how code that has looked a name up passes the vertex on
    (on a graph with integer node names, a plain int names a node)."""


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _dense_id(value: Any, n: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not hasattr(value, "__index__"):
        raise TypeError(f"a vertex id must be an int, got {value!r}")
    v = int(value.__index__())
    if not 0 <= v < n:
        ids = f"ids 0..{n - 1}" if n else "no ids"
        raise ValueError(f"vertex {v} is out of range: the graph has {n} vertices ({ids})")
    return v


def open(path: Union[str, os.PathLike], tiles: bool = True) -> Graph:  # noqa: A001 - the package's public name
    """Opens the store in directory ``path`` (as built by ``vastgraph convert``,
    :func:`vastgraph.convert` or :func:`vastgraph.from_edges`) and validates it.

    With ``tiles=False`` the store's tiles (``vastgraph tile``) are left unopened, and every run
    reads the lists: the way past damaged tiles, as ``vastgraph run --no-tiles``.

    Raises FileNotFoundError when there is no store there, ValueError when it is damaged.
    """
    return Graph(_native.Store.open(fspath(path), tiles))
