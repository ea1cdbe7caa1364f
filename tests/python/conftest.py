"""Shared fixtures: the vastgraph binary, the real graphs in ../shared/data, and stores built
from them once per test session."""

import io
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("VASTGRAPH_SHARED_DATA", REPO.parent / "shared" / "data"))
FIXTURES = REPO / "tests" / "fixtures"


def vastgraph_binary() -> Path:
    env = os.environ.get("VASTGRAPH_BIN")
    path = Path(env) if env else REPO / "target" / "release" / "vastgraph"
    if not path.exists():
        pytest.fail(f"{path} is missing: build it first with `cargo build --release` (the test script does)")
    return path


@pytest.fixture(scope="session", autouse=True)
def fresh_device_cache(tmp_path_factory):
    """Out-of-core runs cache the device's measured profile under $XDG_CACHE_HOME. The tests
    get an empty one, so they measure the device as a first run on a new machine does (a
    profile cached in ~/.cache by earlier runs hid a panic of that first measurement) and never
    write to the user's cache."""
    previous = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if previous is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = previous


@pytest.fixture(scope="session")
def vastgraph():
    binary = vastgraph_binary()

    def run(*args, check=True, timeout=600):
        proc = subprocess.run(
            [str(binary), "--quiet", *map(str, args)], capture_output=True, text=True, timeout=timeout
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"vastgraph {' '.join(map(str, args))} exited {proc.returncode}\n{proc.stderr}"
            )
        return proc

    return run


def shared_graph(name: str) -> Path:
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"real graph {path} is not available (../shared/data is absent); skipping")
    return path


@pytest.fixture(scope="session")
def store_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("stores")


@pytest.fixture(scope="session")
def real_store(vastgraph, store_cache):
    """Builds (once) a store from a graph in ../shared/data: real_store(name, symmetrize=...)."""
    built = {}

    def build(name: str, symmetrize: bool, weighted_seed=None):
        key = (name, symmetrize)
        if key not in built:
            src = shared_graph(name)
            out = store_cache / f"{name.split('.')[0]}-{'sym' if symmetrize else 'dir'}"
            args = ["convert", src, "-o", out, "--transpose"]
            if symmetrize:
                args.append("--symmetrize")
            vastgraph(*args)
            built[key] = out
        return built[key]

    return build


def run_algorithm(vastgraph, tmp_path, algo, store, *extra):
    """Runs an algorithm and returns (values as numpy array or None, stats dict)."""
    out = tmp_path / f"{algo}.npy"
    stats = tmp_path / f"{algo}.json"
    vastgraph("run", algo, store, "--output", out, "--stats", stats, *extra)
    values = np.load(out) if out.exists() else None
    return values, json.loads(stats.read_text())


def read_edges(path: Path):
    """Reads a SNAP-style .tsv.zst edge list into two int arrays."""
    import zstandard  # noqa: F401  (imported lazily so that a missing module fails only these tests)

    with open(path, "rb") as fh:
        data = zstandard.ZstdDecompressor().stream_reader(fh).read()
    # NumPy's own parser: a Python list per line took seven times as long on cnr-2000.
    arr = np.loadtxt(io.BytesIO(data), dtype=np.int64, comments="#", usecols=(0, 1), ndmin=2)
    return arr[:, 0], arr[:, 1]
