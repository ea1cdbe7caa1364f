"""Parquet export, streaming: a graph never has all its edges in memory at once. Graphs are
written by the Rust exporter that ``vastgraph export --format parquet`` uses; per-vertex results
(and the vertex names of graphs converted from NetworkX) by pyarrow, in the same layout.

Layout (readable by Spark, GraphFrames, DuckDB, pandas, ...)::

    DIR/edges/part-00000.parquet     src, dst [, weight]   one row per stored arc
    DIR/vertices/part-00000.parquet  id [, label]

Ids are int64 (Spark has no unsigned types, and GraphFrames wants columns named ``id``,
``src`` and ``dst``). A symmetric store holds both directions of every edge, and so does the
export. Weights keep the store's type (int32 or float32). Each chunk of arcs becomes one row
group, cut in two where a file reaches ``rows_per_file`` rows, the most a file holds.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, List, Optional, Union

import numpy as np

from . import _native
from ._options import check_threads
from ._progress import make_progress
from .frames import Results, result_columns
from .graph import Graph

PathLike = Union[str, os.PathLike]

DEFAULT_CHUNK_ROWS = 1 << 22
DEFAULT_ROWS_PER_FILE = 1 << 26


def _check_replaceable(path: Path, overwrite: bool) -> None:
    """Whether the directory at ``path`` may be replaced by Parquet parts: absent, empty, or,
    with ``overwrite``, holding Parquet files only. Anything else there is the user's, and
    replacing the directory would delete it."""
    if not path.exists():
        return
    if not path.is_dir():
        raise FileExistsError(f"{path} exists and is not a directory")
    existing = sorted(path.iterdir())
    if existing and not overwrite:
        raise FileExistsError(f"{path} is not empty (pass overwrite=True to replace its Parquet files)")
    others = [e.name for e in existing if not (e.is_file() and e.suffix == ".parquet")]
    if others:
        shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        raise FileExistsError(
            f"{path} holds more than Parquet files ({shown}), which replacing it would delete: "
            "write to another directory, or move them first"
        )


def _fresh_dir(path: Path, overwrite: bool) -> None:
    """An empty directory at ``path``: an existing non-empty one is an error unless
    ``overwrite`` and it holds Parquet files only, which are removed."""
    _check_replaceable(path, overwrite)
    if path.exists():
        for entry in path.iterdir():
            entry.unlink()
    path.mkdir(parents=True, exist_ok=True)


class _PartWriter:
    """Writes tables into part-NNNNN.parquet files of at most ``rows_per_file`` rows."""

    def __init__(self, directory: Path, schema: Any, rows_per_file: int, compression: str):
        import pyarrow.parquet as pq

        self._pq = pq
        self._directory = directory
        self._schema = schema
        self._rows_per_file = max(1, int(rows_per_file))
        self._compression = compression
        self._writer = None
        self._rows_in_file = 0
        self._parts = 0

    def write(self, table: Any) -> None:
        """Writes ``table``, cut where the current file reaches ``rows_per_file`` rows."""
        done = 0
        while True:
            if self._writer is None or self._rows_in_file >= self._rows_per_file:
                self._open_next()
            take = min(table.num_rows - done, self._rows_per_file - self._rows_in_file)
            self._writer.write_table(table.slice(done, take))
            self._rows_in_file += take
            done += take
            if done == table.num_rows:
                return

    def _open_next(self) -> None:
        self.close()
        path = self._directory / f"part-{self._parts:05d}.parquet"
        self._writer = self._pq.ParquetWriter(str(path), self._schema, compression=self._compression)
        self._parts += 1
        self._rows_in_file = 0

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def finish(self) -> None:
        """Closes the last file; an empty table still gets one (schema-only) file."""
        if self._parts == 0:
            self._open_next()
        self.close()


def export_parquet(
    g: Graph,
    directory: PathLike,
    *,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    rows_per_file: int = DEFAULT_ROWS_PER_FILE,
    compression: str = "zstd",
    overwrite: bool = False,
    threads: Optional[int] = None,
    progress: Any = False,
) -> None:
    """Writes ``g`` as ``DIR/edges/*.parquet`` (src, dst[, weight]) and
    ``DIR/vertices/*.parquet`` (id[, label]), ``chunk_rows`` rows at a time.

    The tables are written by the same Rust code as ``vastgraph export --format parquet``, into
    a temporary directory renamed into place when complete: an interrupted export leaves
    nothing behind. ``compression`` is ``"zstd"``, ``"snappy"`` or ``"none"``. An existing
    non-empty ``directory`` raises ``FileExistsError`` unless ``overwrite``."""
    _check_layout(chunk_rows, rows_per_file, compression)
    _check_outside_store(g, directory)
    # A graph converted from NetworkX names its vertices by Python objects, not the store's
    # labels: its vertex table is written here, from those names.
    own_vertices = g._nodes is not None
    callback, close = make_progress(progress, "arcs")
    try:
        _, _, export_id = _native.export_parquet(
            g._native,
            os.fspath(directory),
            int(chunk_rows),
            int(rows_per_file),
            str(compression),
            bool(overwrite),
            not own_vertices,
            check_threads(threads),
            callback,
        )
    finally:
        close()
    if own_vertices:
        # The edges' export id in its metadata: `convert` refuses tables of two exports.
        vertices_dir = Path(directory) / "vertices"
        _fresh_dir(vertices_dir, overwrite=True)
        _write_vertex_table(g, vertices_dir, {}, chunk_rows, rows_per_file, compression, export_id)


COMPRESSIONS = ("zstd", "snappy", "none")


def _check_outside_store(g: Graph, directory: PathLike) -> None:
    """Tables inside the store they come from (or in its place) would be strangers in it, or
    replace it: refused, as ``vastgraph export`` refuses them."""
    store = Path(g.path).resolve()
    target = Path(directory).resolve()
    if target == store or store in target.parents:
        raise ValueError(f"{os.fspath(directory)} is inside the store {g.path}: write it beside the store")


def _check_layout(chunk_rows: Any, rows_per_file: Any, compression: Any) -> None:
    """The parts' layout, checked before anything is written."""
    for name, value in (("chunk_rows", chunk_rows), ("rows_per_file", rows_per_file)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer of at least 1, got {value!r}")
    if compression not in COMPRESSIONS:
        raise ValueError(f"compression must be one of {', '.join(COMPRESSIONS)}, got {compression!r}")


def _write_vertex_table(
    g: Graph,
    directory: Path,
    columns: "dict[str, np.ndarray]",
    chunk_rows: int,
    rows_per_file: int,
    compression: str,
    export_id: Optional[str] = None,
) -> None:
    """id [, label], then ``columns`` (per-vertex arrays), in chunks of vertices; with
    ``export_id``, the files' metadata names the export they belong to."""
    import pyarrow as pa

    names: Optional[List[Any]] = g.node_names()
    fields = [pa.field("id", pa.int64(), nullable=False)]
    if names is not None:
        fields.append(pa.field("label", pa.string(), nullable=False))
    for name, values in columns.items():
        fields.append(pa.field(name, pa.from_numpy_dtype(values.dtype)))
    schema = pa.schema(fields, metadata=None if export_id is None else {"vastgraph.export": export_id})
    writer = _PartWriter(directory, schema, rows_per_file, compression)
    try:
        n = g.num_vertices
        for lo in range(0, n, chunk_rows):
            hi = min(lo + chunk_rows, n)
            arrays = [pa.array(np.arange(lo, hi, dtype=np.int64))]
            if names is not None:
                arrays.append(pa.array([str(x) for x in names[lo:hi]], type=pa.string()))
            arrays.extend(pa.array(values[lo:hi]) for values in columns.values())
            writer.write(pa.Table.from_arrays(arrays, schema=schema))
        writer.finish()
    finally:
        writer.close()


def write_parquet(
    result: Results,
    directory: PathLike,
    g: Graph,
    *,
    name: str = "value",
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    rows_per_file: int = DEFAULT_ROWS_PER_FILE,
    compression: str = "zstd",
    overwrite: bool = False,
) -> None:
    """Writes per-vertex results as ``DIR/part-*.parquet`` with columns id [, label] and the
    result(s): an array (column ``name``) or a mapping {column name: array}, e.g.
    ``write_parquet({"pagerank": pr, "component": cc}, "out/", g)``. The layout matches the
    vertices of :func:`export_parquet`, so the two join on ``id``."""
    columns = result_columns(result, g, name)
    clash = {"id", "label"} & set(columns)
    if clash:
        raise ValueError(f"result name(s) {sorted(clash)} clash with the id/label columns")
    _check_layout(chunk_rows, rows_per_file, compression)
    _check_outside_store(g, directory)
    root = Path(directory)
    _check_replaceable(root, bool(overwrite))
    root.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target and renamed into place once synced: a failed or interrupted
    # write leaves the target as it was.
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}.parts-", dir=root.parent))
    try:
        _write_vertex_table(g, staging, columns, chunk_rows, rows_per_file, compression)
        for part in staging.iterdir():
            _fsync(part)
        if root.exists():
            shutil.rmtree(root)
        os.rename(staging, root)
        _fsync(root.parent)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
