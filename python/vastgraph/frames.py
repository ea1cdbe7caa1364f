"""Per-vertex results as pandas DataFrames, with the original labels when there are any."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Union

import numpy as np

from .graph import Graph

if TYPE_CHECKING:  # pragma: no cover
    import pandas

Results = Union[np.ndarray, Mapping[str, np.ndarray]]


def result_columns(result: Results, g: Graph, name: str = "value") -> "dict[str, np.ndarray]":
    """Named 1-D per-vertex columns from an array (named ``name``) or a mapping of arrays,
    each checked to hold one value per vertex of ``g``."""
    columns = dict(result) if isinstance(result, Mapping) else {name: result}
    checked = {}
    for column, values in columns.items():
        array = np.asarray(values)
        if array.ndim != 1 or len(array) != g.num_vertices:
            raise ValueError(
                f"result {column!r} has shape {array.shape}; a per-vertex result of this graph has shape ({g.num_vertices},)"
            )
        checked[str(column)] = array
    return checked


def to_pandas(result: Results, g: Graph, *, name: str = "value") -> "pandas.DataFrame":
    """A per-vertex result (an array indexed by dense id, or a mapping of such arrays) as a
    DataFrame with a ``vertex`` column (the dense id), a ``label`` column when ``g`` has
    labels (or was converted from NetworkX: the nodes), and one column per result.
    The arrays are not copied where pandas can avoid it."""
    import pandas as pd

    frame = {"vertex": np.arange(g.num_vertices, dtype=np.uint32)}
    names = g.node_names()
    if names is not None:
        frame["label"] = names
    for column, values in result_columns(result, g, name).items():
        if column in frame:
            raise ValueError(f"result name {column!r} clashes with the {column!r} column")
        frame[column] = values
    return pd.DataFrame(frame, copy=False)
