"""Building stores: from input files (:func:`convert`), from edge arrays (:func:`from_edges`),
from SciPy sparse matrices (:func:`from_scipy`) and from another store renumbered by degree
(:func:`reorder`)."""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._options import Memory, check_threads, fspath, parse_memory
from ._progress import make_progress
from .graph import Graph, open

PathLike = Union[str, os.PathLike]
# Ids are u32 and u32::MAX is reserved: a store holds ids 0 .. 2^32 - 2.
MAX_ID = _native.MAX_VERTICES - 1


def convert(
    inputs: Union[PathLike, Sequence[PathLike]],
    path: PathLike,
    *,
    symmetrize: bool = False,
    transpose: bool = False,
    keep_self_loops: bool = False,
    relabel: bool = False,
    memory: Memory = None,
    format: Optional[str] = None,
    tmp_dir: Optional[PathLike] = None,
    overwrite: bool = False,
    threads: Optional[int] = None,
    progress: Any = False,
    compress: Union[bool, str] = False,
    order: str = "input",
    header: bool = False,
    src: Optional[str] = None,
    dst: Optional[str] = None,
    weight: Optional[str] = None,
    tiles: bool = False,
) -> Graph:
    """Builds a store from input files, exactly as ``vastgraph convert`` does, and opens it.

    Parameters
    ----------
    inputs : path or list of paths
        Edge lists (SNAP/TSV/CSV, integer ids or labels, optional weight column), Matrix
        Market, DIMACS ``.gr``, binary ``bin32``/``bin64`` pairs, WebGraph, or Parquet and
        Arrow IPC edge tables (``.parquet``, ``.arrow``, ``.feather``); ``.gz`` and ``.zst``
        are decompressed on the fly. All inputs form one graph.
    path : path
        The store directory to create.
    symmetrize : store both directions of every edge (an undirected graph).
    transpose : also store the in-edges of a directed graph.
    keep_self_loops : keep (u, u) edges (dropped by default).
    relabel : map ids to dense ids in first-appearance order and keep the originals as labels.
    memory : build memory budget, bytes or a size string (``"2GiB"``); default half of RAM.
    format : input format (default: from the file names): edgelist, mtx, dimacs, bin32, bin64,
        webgraph, parquet, arrow.
    tmp_dir : directory for sorted runs (default: next to the store).
    overwrite : replace an existing store at ``path``.
    threads : worker threads for the build (default: all cores).
    progress : True for a tqdm bar, or a callable ``(phase, done, total)``.
    compress : store the neighbour lists compressed (``convert --compress``): codec ``for64``
        (blocks of 64 neighbours, each after its first as an offset from it in 1 to 4 bytes,
        about 60% of the raw size, within 1.3 times the raw store's time in memory), or
        ``zeta64`` on a web graph (intervals and gaps in WebGraph's bit codes: a third of the
        raw size or less); every algorithm runs on either. A codec's name (``"for64"``,
        ``"zeta64"``, ``"streamvbyte64"``, ``"bytecode64"``) writes that one, as ``convert
        --codec NAME``.
    order : ``"input"`` (the ids as read) or ``"degree"``: renumbered by decreasing degree once
        built, as :func:`reorder` does (``convert --order degree``); the manifest still names
        the inputs.
    header : the first data line of each edge list is a header to skip. Without it a header is
        still detected (a first line with a non-integer id above lines of integer ids). A
        skipped header is reported as a UserWarning and recorded in the manifest's inputs
        (``skipped_header_line``); so is a first line of labels that was read as an edge but
        looks like column names, such as ``src,dst`` (``header_like_line``). An edge
        list's ids are integers unless its first data line holds a token that is not one (or
        ``relabel``); a non-integer id later in an integer file is an error naming its line.
    src, dst, weight : a table's source, target and weight columns (``convert --src COL --dst
        COL --weight COL``). By default ``src`` or ``source``, ``dst`` or ``target``, and
        ``weight`` when the table has it. Integer columns are ids; string columns are labels.
    tiles : also tile the store once built (``convert --tiles``, ``vastgraph tile`` with its
        default side): PageRank and its variants then read the tiles in their dense rounds.

    Ctrl-C stops the build and removes its temporary files (KeyboardInterrupt).
    """
    if isinstance(inputs, (str, bytes, os.PathLike)):
        inputs = [inputs]
    if not hasattr(inputs, "__iter__"):
        raise TypeError(f"inputs must be a path or a list of paths, not {type(inputs).__name__}")
    input_paths = [fspath(p) for p in inputs]
    if not input_paths:
        raise ValueError("convert needs at least one input file")
    budget = parse_memory(memory)
    options = {
        "symmetrize": bool(symmetrize),
        "transpose": bool(transpose),
        "keep_self_loops": bool(keep_self_loops),
        "memory": budget,
        "format": format,
        "relabel": bool(relabel),
        "compress": compress if isinstance(compress, str) else bool(compress),
        "order": order,
        "header": bool(header),
        "src": src,
        "dst": dst,
        "weight": weight,
        "tiles": bool(tiles),
    }
    callback, close = make_progress(progress, "B")
    try:
        _native.convert(
            input_paths,
            fspath(path),
            symmetrize=bool(symmetrize),
            transpose=bool(transpose),
            keep_self_loops=bool(keep_self_loops),
            relabel=bool(relabel),
            memory_bytes=budget,
            format=format,
            tmp_dir=None if tmp_dir is None else fspath(tmp_dir),
            overwrite=bool(overwrite),
            threads=check_threads(threads),
            progress=callback,
            options_json=json.dumps(options),
            compress=bool(compress),
            codec=compress if isinstance(compress, str) else None,
            order=order,
            header=bool(header),
            src=src,
            dst=dst,
            weight=weight,
            tiles=bool(tiles),
        )
    finally:
        close()
    g = open(path)
    # The CLI logs a skipped header as it builds; here it is a warning a caller sees.
    for record in g.manifest["provenance"]["inputs"]:
        line = record.get("skipped_header_line")
        if line is not None:
            warnings.warn(f"{record['path']}: line {line} is a header, skipped", stacklevel=2)
        line = record.get("header_like_line")
        if line is not None:
            warnings.warn(
                f"{record['path']}: line {line} is read as an edge, but its ids look like "
                "column names; if it is a header, header=True skips it",
                stacklevel=2,
            )
    return g


def reorder(
    store: Union[Graph, PathLike],
    path: PathLike,
    *,
    memory: Memory = None,
    overwrite: bool = False,
    threads: Optional[int] = None,
) -> Graph:
    """Writes a copy of a store with its vertices renumbered by decreasing degree, exactly as
    ``vastgraph reorder`` does, and opens it.

    On power-law graphs traversals and PageRank run faster on the copy, in memory and out of
    core. Its :meth:`Graph.labels` give each new id's original vertex (the source's label,
    or its old id as a string); results are indexed by the new ids.

    Parameters
    ----------
    store : the store to renumber (a :class:`Graph` or its path).
    path : the store directory to create.
    memory : memory budget, bytes or a size string; 8 bytes a vertex go to the id maps.
    overwrite : replace an existing store at ``path``.
    threads : worker threads (default: all cores).
    """
    source = store.path if isinstance(store, Graph) else fspath(store)
    _native.reorder(
        source,
        fspath(path),
        memory_bytes=parse_memory(memory),
        overwrite=bool(overwrite),
        threads=check_threads(threads),
    )
    return open(path)


def _to_numpy(name: str, values: Any) -> np.ndarray:
    """A 1-D NumPy array from a NumPy array, pandas Series/Index, pyarrow (Chunked)Array or
    sequence; missing values are an error."""
    null_count = getattr(values, "null_count", 0)  # pyarrow
    if isinstance(null_count, int) and null_count > 0:
        raise ValueError(f"{name} has {null_count} missing (null) values")
    isna = getattr(values, "isna", None)  # pandas
    if callable(isna) and not isinstance(values, np.ndarray):
        missing = int(np.asarray(isna()).sum())
        if missing:
            raise ValueError(f"{name} has {missing} missing (NA) values")
    if isinstance(values, np.ndarray):
        array = values
    elif hasattr(values, "to_numpy"):
        try:
            array = values.to_numpy(zero_copy_only=False)  # pyarrow
        except TypeError:
            array = values.to_numpy()  # pandas
    else:
        array = np.asarray(values)
    array = np.asarray(array)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    return array


def _as_ids(name: str, values: Any) -> np.ndarray:
    """Vertex ids as a contiguous uint32 array; ids must be integers in 0 .. 2^32 - 2."""
    array = _to_numpy(name, values)
    kind = array.dtype.kind
    if kind == "b" or kind not in "iuf":
        if kind == "O" and len(array) == 0:
            return np.zeros(0, dtype=np.uint32)
        raise ValueError(f"{name} must hold integer vertex ids, got dtype {array.dtype}")
    if len(array) == 0:
        return np.zeros(0, dtype=np.uint32)
    if kind == "f":
        if not np.all(np.isfinite(array)) or np.any(array != np.floor(array)):
            raise ValueError(f"{name} must hold integer vertex ids; it has non-integral or non-finite values")
    low, high = array.min(), array.max()
    if low < 0:
        where = int(np.argmax(array < 0))
        raise ValueError(f"{name}[{where}] = {array[where]}: vertex ids must be non-negative")
    if high > MAX_ID:
        where = int(np.argmax(array > MAX_ID))
        raise ValueError(
            f"{name}[{where}] = {array[where]}: vertex ids must be below 2^32 - 1 = {MAX_ID + 1} "
            "(relabel sparse or 64-bit ids to dense ones first, e.g. with pandas.factorize)"
        )
    return np.ascontiguousarray(array, dtype=np.uint32)


def _named_ends(src: Any, dst: Any) -> Optional[Tuple[np.ndarray, np.ndarray, List[str]]]:
    """When the edges name their vertices by strings (or other non-numeric objects), dense ids
    in first-seen order (as ``vastgraph convert`` numbers a labelled file) and the names as
    labels; None for numeric ids."""
    a, b = _to_numpy("src", src), _to_numpy("dst", dst)

    def names_in(array: np.ndarray) -> bool:
        if array.dtype.kind in "US":
            return True
        return array.dtype.kind == "O" and len(array) > 0 and all(isinstance(v, str) for v in array)

    a_named, b_named = names_in(a), names_in(b)
    if not (a_named or b_named):
        return None
    if a_named != b_named:
        named, other = ("src", "dst") if a_named else ("dst", "src")
        raise ValueError(f"{named} names vertices by strings but {other} holds integer vertex ids: give both as one or the other")
    if len(a) != len(b):
        raise ValueError(f"src and dst must have equal lengths, got {len(a)} and {len(b)}")
    names = np.empty(2 * len(a), dtype=object)
    names[0::2], names[1::2] = a, b
    names = names.astype(str)
    unique, first, inverse = np.unique(names, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.uint32)
    rank[order] = np.arange(len(order), dtype=np.uint32)
    ids = rank[inverse.ravel()]
    return ids[0::2].copy(), ids[1::2].copy(), unique[order].tolist()


def _as_weights(values: Any) -> np.ndarray:
    array = _to_numpy("weights", values)
    if array.dtype.kind not in "iuf" or array.dtype.kind == "b":
        raise ValueError(f"weights must be numbers, got dtype {array.dtype}")
    given = array
    array = np.ascontiguousarray(array, dtype=np.float64)
    # As convert refuses "inf" in a file: an infinite weight reads as no path to sssp.
    infinite = ~np.isfinite(array)
    if len(array) and infinite.any():
        index = int(np.argmax(infinite))
        raise ValueError(
            f"weights[{index}] = {float(array[index])!r} is not a finite number; "
            "a store keeps finite int32 or float32 weights"
        )
    # A store keeps int32 or float32 weights: a larger finite one would become an infinity.
    beyond = np.isfinite(array) & (np.abs(array) > np.finfo(np.float32).max)
    if len(array) and beyond.any():
        index = int(np.argmax(beyond))
        raise ValueError(
            f"weights[{index}] = {float(array[index])!r} is beyond float32's range (±3.4e38); "
            "a store keeps its weights as int32 or float32"
        )
    # ... and one too small a weight of 0 (a free arc to sssp, a blocked one to widest).
    vanishing = (array != 0) & (array.astype(np.float32) == 0)
    if len(array) and vanishing.any():
        index = int(np.argmax(vanishing))
        raise ValueError(
            f"weights[{index}] = {float(array[index])!r} is 0 as a float32 (the smallest is 1.4e-45); "
            "a store keeps its weights as int32 or float32"
        )
    _warn_of_rounded_integers(given, array)
    return array


def _warn_of_rounded_integers(given: np.ndarray, array: np.ndarray) -> None:
    """Warns, as ``vastgraph convert`` does, of an integer weight that the store's float32
    weights round: a store keeps int32 weights when every weight is an integer in int32's
    range, float32 otherwise."""
    integral = array == np.floor(array)
    if not len(array) or (integral & (array >= -(2**31)) & (array <= 2**31 - 1)).all():
        return
    # Past 2^53 a float is no integer a user wrote digit by digit (3.4e38), as convert says;
    # 64-bit integers past it were already rounded by float64, and are checked below.
    rounded = integral & (np.abs(array) < 2.0**53) & (array.astype(np.float32).astype(np.float64) != array)
    if given.dtype.kind in "iu":
        beyond = np.flatnonzero(np.abs(array) >= 2.0**53)
        exact = np.array([int(given[i]) == int(array[i]) for i in beyond], dtype=bool)
        rounded[beyond[~exact]] = True
    if rounded.any():
        index = int(np.argmax(rounded))
        value = int(given[index]) if given.dtype.kind in "iu" else int(array[index])
        warnings.warn(
            f"weights[{index}] = {value} is stored as {int(np.float32(array[index]))}: the store keeps "
            "these weights as float32 (not all are integers in int32's range)",
            UserWarning,
            stacklevel=4,
        )


def from_edges(
    src: Any,
    dst: Any,
    weights: Any = None,
    *,
    path: PathLike,
    symmetrize: bool = False,
    transpose: bool = False,
    keep_self_loops: bool = False,
    num_vertices: Optional[int] = None,
    labels: Optional[Sequence[Any]] = None,
    memory: Memory = None,
    tmp_dir: Optional[PathLike] = None,
    overwrite: bool = False,
    threads: Optional[int] = None,
    progress: Any = False,
    _command: str = "from_edges",
) -> Graph:
    """Builds a store at ``path`` from edges ``src[i] -> dst[i]`` and opens it.

    Parameters
    ----------
    src, dst : arrays of equal length
        NumPy arrays, pandas Series or pyarrow arrays of dense vertex ids: non-negative
        integers below 2^32 - 1 (converted to uint32; floats must be integral; nulls are an
        error). Strings name the vertices instead: they get dense ids in first-seen order
        and are stored as the labels (then ``labels`` is not given).
    weights : optional numbers, one per edge (converted to float64). Stored as int32 when
        every weight is an integer in range, else float32.
    path : the store directory to create.
    symmetrize, transpose, keep_self_loops, memory, tmp_dir, overwrite, threads, progress :
        as in :func:`convert`.
    num_vertices : at least this many vertices (isolated vertices beyond the largest id).
    labels : one name per vertex, in dense-id order, stored as the store's label map.

    Self-loops (unless ``keep_self_loops``) and duplicate arcs are dropped, as in
    ``vastgraph convert``; of duplicates with different weights the smallest is kept. The
    graph's ``manifest["dropped"]`` counts them, and with ``symmetrize`` the edges given in
    both directions (``reciprocal_pairs``).
    """
    named = _named_ends(src, dst)
    if num_vertices is not None:
        if isinstance(num_vertices, bool) or not hasattr(num_vertices, "__index__"):
            raise TypeError(f"num_vertices must be an int, not {type(num_vertices).__name__}")
        num_vertices = int(num_vertices.__index__())
        if named is not None and num_vertices > len(named[2]):
            raise ValueError(
                f"num_vertices={num_vertices} is more than the {len(named[2])} vertices the edges "
                "name, and every vertex of a graph with names needs one (leave num_vertices out)"
            )
    if named is not None:
        if labels is not None:
            raise ValueError("the edges name their vertices already; labels= is for dense integer ids")
        src, dst, labels = named
    src_ids = _as_ids("src", src)
    dst_ids = _as_ids("dst", dst)
    if len(src_ids) != len(dst_ids):
        raise ValueError(f"src and dst must have equal lengths, got {len(src_ids)} and {len(dst_ids)}")
    weight_values = None if weights is None else _as_weights(weights)
    if weight_values is not None and len(weight_values) != len(src_ids):
        raise ValueError(
            f"weights must have one value per edge: {len(weight_values)} weights for {len(src_ids)} edges"
        )
    if num_vertices is not None:
        if not 0 <= num_vertices <= _native.MAX_VERTICES:
            raise ValueError(f"num_vertices must be in 0 .. {_native.MAX_VERTICES}, got {num_vertices}")
    label_list = None
    if labels is not None:
        label_list = [str(label) for label in labels]
        bad = next((label for label in label_list if any(c in label for c in "\n\r\t")), None)
        if bad is not None:
            raise ValueError(
                f"label {bad!r} contains a tab or a line break (labels are stored one per line and "
                "written as tab-separated columns)"
            )
        if len(set(label_list)) != len(label_list):
            seen: Dict[str, int] = {}
            for i, label in enumerate(label_list):
                if label in seen:
                    raise ValueError(f"labels[{seen[label]}] and labels[{i}] are both {label!r}: a label names one vertex")
                seen[label] = i
        needed = max(int(src_ids.max(initial=0)), int(dst_ids.max(initial=0))) + 1 if len(src_ids) else 0
        if len(label_list) < max(needed, num_vertices or 0):
            raise ValueError(
                f"labels must name every vertex: {len(label_list)} labels for {max(needed, num_vertices or 0)} vertices"
            )
    budget = parse_memory(memory)
    options = {
        "symmetrize": bool(symmetrize),
        "transpose": bool(transpose),
        "keep_self_loops": bool(keep_self_loops),
        "memory": budget,
        "num_vertices": num_vertices,
        "labels": label_list is not None,
    }
    callback, close = make_progress(progress, "edges")
    try:
        _native.build_from_edges(
            fspath(path),
            src_ids,
            dst_ids,
            weight_values,
            num_vertices=num_vertices,
            labels=label_list,
            symmetrize=bool(symmetrize),
            transpose=bool(transpose),
            keep_self_loops=bool(keep_self_loops),
            memory_bytes=budget,
            tmp_dir=None if tmp_dir is None else fspath(tmp_dir),
            overwrite=bool(overwrite),
            threads=check_threads(threads),
            progress=callback,
            command=_command,
            options_json=json.dumps(options),
        )
    except ValueError as e:
        # The builder's remedy is convert's keyword, which from_edges does not take.
        remedy = "convert with relabel=True to number the vertices densely (the original ids are kept as labels)"
        if e.args and isinstance(e.args[0], str) and remedy in e.args[0]:
            e.args = (
                e.args[0].replace(
                    remedy,
                    "give the ids as strings, which become labels numbered densely, or renumber them "
                    "first (np.unique(np.concatenate([src, dst]), return_inverse=True))",
                ),
            ) + e.args[1:]
        raise
    finally:
        close()
    return open(path)


def from_pandas(
    frame: Any,
    path: PathLike,
    *,
    source: Any = None,
    target: Any = None,
    weight: Any = None,
    **options: Any,
) -> Graph:
    """Builds a store at ``path`` from a pandas DataFrame (or a pyarrow Table) with one row per edge, as
    ``networkx.from_pandas_edgelist`` reads one, and opens it.

    ``source`` and ``target`` name the id columns (any column label: ``0`` and ``1`` for a frame
    read with ``header=None``); by default ``src`` or ``source`` and ``dst``
    or ``target`` (the column names of :func:`vastgraph.to_pandas`, GraphFrames and
    ``networkx.to_pandas_edgelist``). ``weight`` names the weight column; by default
    ``weight`` when the frame has one. Integer ids are vertex ids; strings name the vertices
    and become the store's labels, as in :func:`from_edges`, whose
    other options (``symmetrize``, ``memory``, ...) this takes too.
    """
    # The labels as they are (pd.read_csv(header=None) numbers them 0, 1, 2); a pyarrow Table's
    # `columns` are its arrays, its names are `column_names`.
    names = getattr(frame, "column_names", None)
    columns = list(names if names is not None else getattr(frame, "columns", ()))
    if not columns:
        raise TypeError(f"from_pandas needs a pandas DataFrame, got {type(frame).__name__}")
    listed = ", ".join(map(repr, columns))

    def pick(given: Any, usual: Sequence[str], keyword: str, required: bool = True) -> Any:
        if given is not None:
            if given not in columns:
                raise ValueError(f"the frame has no column {given!r} ({keyword}=); its columns are {listed}")
            return given
        found = next((c for c in usual if c in columns), None)
        if found is None and required:
            raise ValueError(
                f"the frame has no {keyword} column named {' or '.join(map(repr, usual))}; "
                f"its columns are {listed}: name it with {keyword}="
            )
        return found

    src = pick(source, ("src", "source"), "source")
    dst = pick(target, ("dst", "target"), "target")
    weights = pick(weight, ("weight",), "weight", required=False)
    if src == dst:
        raise ValueError(f"column {src!r} is named as both the source and the target")
    return from_edges(
        # The columns themselves, so that their missing values are named as missing.
        frame[src],
        frame[dst],
        None if weights is None else frame[weights],
        path=path,
        _command="from_pandas",
        **options,
    )


def from_scipy(
    matrix: Any,
    path: PathLike,
    *,
    weighted: Optional[bool] = None,
    symmetrize: bool = False,
    **options: Any,
) -> Graph:
    """Builds a store from a square SciPy sparse matrix (any format): entry (u, v) is the arc
    u -> v with that value as its weight (duplicate entries summed, as SciPy does). ``weighted=None`` stores weights unless the matrix
    is boolean or every stored value is 1. Explicitly stored zeros are arcs of weight 0.
    Other options are those of :func:`from_edges`.
    """
    import scipy.sparse as sp

    if not sp.issparse(matrix):
        raise TypeError(f"from_scipy needs a SciPy sparse matrix or array, got {type(matrix).__name__}")
    rows, cols = matrix.shape
    if rows != cols:
        raise ValueError(f"an adjacency matrix must be square, got shape {matrix.shape}")
    # Duplicate entries of a COO matrix are one entry, their sum, as SciPy reads them.
    coo = sp.coo_array(matrix, copy=True)
    coo.sum_duplicates()
    data = np.asarray(coo.data)
    if weighted is None:
        weighted = data.dtype.kind != "b" and not bool(np.all(data == 1))
    return from_edges(
        coo.row,
        coo.col,
        data if weighted else None,
        path=path,
        symmetrize=symmetrize,
        num_vertices=rows,
        _command="from_scipy",
        **options,
    )
