"""Type stubs of the Rust extension module (crates/vastgraph-python)."""

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
MAX_VERTICES: int
MIN_MEMORY_BYTES: int

_Path = Union[str, os.PathLike]
_Progress = Callable[[str, int, Optional[int]], object]

class Store:
    """An opened, validated, memory-mapped store."""

    @staticmethod
    def open(path: _Path) -> Store: ...
    @property
    def path(self) -> str: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_arcs(self) -> int: ...
    @property
    def directed(self) -> bool: ...
    @property
    def weighted(self) -> bool: ...
    @property
    def has_transpose(self) -> bool: ...
    @property
    def has_labels(self) -> bool: ...
    def manifest_json(self) -> str: ...
    def labels(self) -> Optional[List[str]]: ...
    def array(self, name: str) -> Optional[np.ndarray]:
        """Read-only zero-copy view: offsets, neighbors, weights, in_offsets, in_neighbors, in_weights."""
    def verify_checksums(self) -> None: ...

def algorithms() -> str: ...
def run_algorithm(
    store: Store,
    name: str,
    params_json: str,
    threads: Optional[int] = None,
    verify: bool = False,
    memory: Optional[int] = None,
    io_mode: Optional[str] = None,
    mrt: Optional[int] = None,
    recalibrate: bool = False,
    checkpoint: Optional[str] = None,
    checkpoint_every: Optional[str] = None,
    resume: bool = False,
    progress: Optional[Callable[[Dict[str, Any]], Any]] = None,
) -> Tuple[Optional[np.ndarray], str]: ...
def convert(
    inputs: Sequence[_Path],
    output: _Path,
    *,
    symmetrize: bool,
    transpose: bool,
    keep_self_loops: bool,
    relabel: bool,
    memory_bytes: int,
    format: Optional[str] = None,
    tmp_dir: Optional[_Path] = None,
    overwrite: bool = False,
    threads: Optional[int] = None,
    progress: Optional[_Progress] = None,
    options_json: str = "{}",
    compress: bool = False,
    codec: Optional[str] = None,
    order: str = "input",
    header: bool = False,
    src: Optional[str] = None,
    dst: Optional[str] = None,
    weight: Optional[str] = None,
) -> str: ...
def build_from_edges(
    output: _Path,
    src: npt.NDArray[np.uint32],
    dst: npt.NDArray[np.uint32],
    weights: Optional[npt.NDArray[np.float64]] = None,
    *,
    num_vertices: Optional[int] = None,
    labels: Optional[List[str]] = None,
    symmetrize: bool,
    transpose: bool,
    keep_self_loops: bool,
    memory_bytes: int,
    tmp_dir: Optional[_Path] = None,
    overwrite: bool = False,
    threads: Optional[int] = None,
    progress: Optional[_Progress] = None,
    command: str = "from_edges",
    options_json: str = "{}",
) -> str: ...
def reorder(
    store: _Path,
    output: _Path,
    *,
    memory_bytes: int,
    overwrite: bool = False,
    threads: Optional[int] = None,
) -> str: ...
def export_parquet(
    store: Store,
    directory: _Path,
    chunk_rows: int,
    rows_per_file: int,
    compression: str,
    overwrite: bool,
    vertices: bool,
    threads: Optional[int] = None,
    progress: Optional[_Progress] = None,
) -> Tuple[int, int]: ...
