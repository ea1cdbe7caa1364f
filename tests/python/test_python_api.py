"""The Python API (the `vastgraph` package) against the CLI and against its inputs: stores
built from NumPy, pandas and pyarrow arrays equal `vastgraph convert` of the same edges, SciPy
round trips, every registry algorithm equals `vastgraph run`, labels, option checking."""

import json
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import vastgraph as vg
from conftest import FIXTURES, run_algorithm


def store_arrays(g):
    """Everything that defines a store's graph, as plain arrays."""
    weights = g.weights
    return (
        g.num_vertices,
        g.directed,
        np.array(g.offsets),
        np.array(g.neighbors),
        None if weights is None else np.array(weights),
        None if g.in_offsets is None else np.array(g.in_offsets),
        None if g.in_neighbors is None else np.array(g.in_neighbors),
    )


def assert_same_store(a, b):
    for x, y in zip(store_arrays(a), store_arrays(b)):
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert x is not None and y is not None
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)
        else:
            assert x == y


def write_tsv(path, src, dst, weights=None):
    columns = [src, dst] if weights is None else [src, dst, weights]
    fmt = "%d" if weights is None or np.all(np.equal(np.mod(weights, 1), 0)) else "%.17g"
    np.savetxt(path, np.stack(columns, axis=1), fmt=fmt, delimiter="\t")


@pytest.fixture(scope="module")
def random_edges():
    """A small random directed multigraph-ish edge list: duplicates and self-loops included,
    so that dropping them is exercised; integer weights in 1..9."""
    rng = np.random.default_rng(7)
    n, m = 300, 2400
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    src[:5] = dst[:5]  # self-loops
    src[5:10], dst[5:10] = src[10:15], dst[10:15]  # duplicates
    weights = rng.integers(1, 10, m).astype(np.float64)
    return src, dst, weights


@pytest.mark.parametrize("container", ["numpy", "pandas", "pyarrow", "list"])
@pytest.mark.parametrize("symmetrize", [False, True])
def test_from_edges_equals_cli_convert(vastgraph, tmp_path, random_edges, container, symmetrize):
    src, dst, weights = random_edges
    edges = tmp_path / "edges.tsv"
    write_tsv(edges, src, dst, weights)
    cli_store = tmp_path / "cli"
    args = ["convert", edges, "-o", cli_store] + (["--symmetrize"] if symmetrize else ["--transpose"])
    vastgraph(*args)

    if container == "pandas":
        pd = pytest.importorskip("pandas")
        frame = pd.DataFrame({"s": src, "d": dst, "w": weights})
        inputs = (frame["s"], frame["d"], frame["w"])
    elif container == "pyarrow":
        pa = pytest.importorskip("pyarrow")
        inputs = (pa.chunked_array([src[:1000], src[1000:]]), pa.array(dst), pa.array(weights))
    elif container == "list":
        inputs = (src.tolist(), dst.tolist(), weights.tolist())
    else:
        inputs = (src, dst, weights)
    g = vg.from_edges(*inputs, path=tmp_path / "py", symmetrize=symmetrize, transpose=not symmetrize)
    assert_same_store(g, vg.open(cli_store))
    assert g.manifest["provenance"]["command"] == "from_edges"
    assert g.manifest["dropped"]["self_loops"] == np.count_nonzero(src == dst)
    arcs = {(int(s), int(d)) for s, d in zip(src, dst) if s != d}
    assert g.manifest["dropped"]["duplicate_arcs"] == np.count_nonzero(src != dst) - len(arcs)
    reciprocal = sum(1 for s, d in arcs if s < d and (d, s) in arcs) if symmetrize else 0
    assert reciprocal > 0 or not symmetrize, "the fixture gives some edges both ways"
    assert g.manifest["dropped"]["reciprocal_pairs"] == reciprocal


def test_from_edges_unweighted_and_isolated_vertices(tmp_path):
    g = vg.from_edges(
        np.array([0, 1], np.int64), np.array([1, 2], np.uint8), path=tmp_path / "g", num_vertices=10
    )
    assert (g.num_vertices, g.num_arcs, g.weighted, g.directed) == (10, 2, False, True)
    np.testing.assert_array_equal(g.degrees(), [1, 1] + [0] * 8)
    assert g.degrees().dtype == np.uint64
    # Float ids are fine when integral.
    h = vg.from_edges(np.array([0.0, 1.0]), np.array([1.0, 2.0]), path=tmp_path / "h")
    np.testing.assert_array_equal(h.neighbors, [1, 2])


@pytest.mark.parametrize(
    "src,dst,weights,message",
    [
        ([0, -1], [1, 2], None, r"src\[1\] = -1: vertex ids must be non-negative"),
        ([0, 1], [1, 2**32 - 1], None, r"dst\[1\] = 4294967295: vertex ids must be below 2\^32 - 1"),
        ([0, 1], [1, 2**40], None, r"dst\[1\] = 1099511627776"),
        ([0.5, 1], [1, 2], None, "non-integral"),
        ([0, 1], [1, 2], [1.0, float("nan")], r"weights\[1\] = nan is not a finite number"),
        ([0, 1], [1, 2], [1.0, np.inf], r"weights\[1\] = inf is not a finite number"),
        ([0, 1], [1, 2], [-np.inf, 1.0], r"weights\[0\] = -inf is not a finite number"),
        ([0, 1], [1], None, "equal lengths"),
        ([0, 1], [1, 2], [1.0], "one value per edge"),
        (["a", "b"], [1, 2], None, "src names vertices by strings but dst holds integer vertex ids"),
        ([3, 7], np.array(["b", "c"], dtype=object), None, "dst names vertices by strings but src holds"),
        ([True, False], [1, 2], None, "integer vertex ids"),
        ([[0, 1]], [[1, 2]], None, "one-dimensional"),
        # Sparse ids: a remedy from_edges takes (it has no relabel=).
        ([0, 2**32 - 2], [1, 0], None, r"34.4 GB of offsets for 2 arcs; give the ids as strings"),
    ],
)
def test_from_edges_rejects_bad_ids_with_a_clear_message(tmp_path, src, dst, weights, message):
    with pytest.raises(ValueError, match=message):
        vg.from_edges(src, dst, weights, path=tmp_path / "g")
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize(
    "weights,index,stored",
    [
        ([16777217, 2.5], 0, 16777216),
        (np.array([3, 2**62 + 1], dtype=np.int64), 1, 2**62),
        (np.array([3, 2**64 - 1], dtype=np.uint64), 1, 2**64),
    ],
)
def test_from_edges_warns_of_integer_weights_float32_rounds(tmp_path, weights, index, stored):
    with pytest.warns(UserWarning, match=rf"weights\[{index}\] = {int(weights[index])} is stored as {stored}"):
        g = vg.from_edges([0, 1], [1, 2], weights, path=tmp_path / "g")
    assert int(g.weights[index]) == stored


def test_from_edges_is_silent_where_weights_are_exact(tmp_path):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vg.from_edges([0, 1], [1, 2], [3, 2**31 - 1], path=tmp_path / "int32")
        vg.from_edges([0, 1], [1, 2], [16777216, 2.5], path=tmp_path / "exact")


def test_from_edges_takes_vertex_names_as_labels(vastgraph, tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": ["carol", "alice", "bob"], "b": ["alice", "bob", "dave"]})
    g = vg.from_edges(frame["a"], frame["b"], path=tmp_path / "g", symmetrize=True)
    # Dense ids in first-seen order, as `vastgraph convert` numbers a labelled edge list.
    assert g.labels() == ["carol", "alice", "bob", "dave"]
    (tmp_path / "people.tsv").write_text("carol alice\nalice bob\nbob dave\n")
    cli = vg.convert(tmp_path / "people.tsv", tmp_path / "cli", symmetrize=True)
    np.testing.assert_array_equal(g.neighbors, cli.neighbors)
    assert cli.labels() == g.labels()
    np.testing.assert_array_equal(vg.bfs(g, "carol"), [0, 1, 2, 3])
    with pytest.raises(ValueError, match="labels= is for dense integer ids"):
        vg.from_edges(["x"], ["y"], labels=["x", "y"], path=tmp_path / "h")


def test_from_edges_rejects_missing_values(tmp_path):
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(ValueError, match="1 missing"):
        vg.from_edges(pd.Series([0, None, 2], dtype="Int64"), pd.Series([1, 2, 3]), path=tmp_path / "g")
    with pytest.raises(ValueError, match="1 missing"):
        vg.from_edges(pa.array([0, None, 2]), pa.array([1, 2, 3]), path=tmp_path / "g")


def test_existing_target_needs_overwrite(tmp_path):
    vg.from_edges([0], [1], path=tmp_path / "g")
    with pytest.raises(FileExistsError, match="already exists"):
        vg.from_edges([0], [2], path=tmp_path / "g")
    g = vg.from_edges([0], [2], path=tmp_path / "g", overwrite=True)
    np.testing.assert_array_equal(g.neighbors, [2])
    # A store holding a file of the user's is not replaced (it would be deleted with it).
    (tmp_path / "g" / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="notes.txt"):
        vg.from_edges([0], [3], path=tmp_path / "g", overwrite=True)
    assert (tmp_path / "g" / "notes.txt").read_text() == "mine"


def test_open_errors_name_the_problem(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nothing: not a vastgraph store \(no such directory"):
        vg.open(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=r"no manifest.json in the directory"):
        vg.open(tmp_path / "empty")
    g = vg.from_edges([0, 1], [1, 2], path=tmp_path / "g")
    (tmp_path / "g" / "neighbors.u32").write_bytes(b"\0" * 4)
    del g
    with pytest.raises(ValueError, match="neighbors.u32"):
        vg.open(tmp_path / "g")


def test_a_damaged_page_is_named_in_memory_and_out_of_core(tmp_path):
    g = vg.from_edges([0, 0, 1, 2], [1, 3, 3, 3], path=tmp_path / "g", symmetrize=True)
    # Vertex 2's one neighbour 3 becomes 1: every list stays valid, only the page's checksum
    # can tell the store was damaged.
    at = int(g.offsets[2])
    with open(tmp_path / "g" / "neighbors.u32", "r+b") as f:
        f.seek(4 * at)
        f.write(np.array([1], dtype="<u4").tobytes())
    with pytest.raises(ValueError, match=r"neighbors.u32: bytes 0\.\.\d+ do not match their page"):
        vg.open(tmp_path / "g")
    # Opened before the damage: the out-of-core run reads the page again and checks it.
    with pytest.raises(ValueError, match="page checksum"):
        vg.bfs(g, 0, memory="16MiB")


def test_store_arrays_are_read_only_zero_copy_views(tmp_path):
    g = vg.from_edges([0, 0, 1], [1, 2, 2], [1.5, 2.5, 3.5], path=tmp_path / "g")
    neighbors = g.neighbors
    assert not neighbors.flags.writeable and not neighbors.flags.owndata
    with pytest.raises(ValueError):
        neighbors[0] = 7
    with pytest.raises(ValueError):
        neighbors.setflags(write=True)
    np.testing.assert_array_equal(g.weights, np.array([1.5, 2.5, 3.5], np.float32))
    # The view keeps the store mapped after the graph object is gone.
    del g
    np.testing.assert_array_equal(neighbors, [1, 2, 2])


def test_to_scipy_equals_the_input_and_from_scipy_round_trips(tmp_path):
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(3)
    dense = rng.integers(1, 9, (60, 60)) * (rng.random((60, 60)) < 0.1)
    np.fill_diagonal(dense, 0)
    dense[:, -3:] = dense[-3:, :] = 0  # isolated vertices at the end must survive
    a = sp.csr_array(dense.astype(np.float64))
    g = vg.from_scipy(a, tmp_path / "g")
    assert g.num_vertices == 60 and g.weighted and g.manifest["weight_type"] == "i32"
    b = g.to_scipy()
    assert b.shape == a.shape and b.format == "csr"
    np.testing.assert_array_equal(b.toarray(), dense)
    # A boolean (or all-ones) matrix gives an unweighted store.
    h = vg.from_scipy(a.astype(bool), tmp_path / "h")
    assert not h.weighted
    np.testing.assert_array_equal(h.to_scipy().toarray(), dense > 0)
    # Any sparse format works; the matrix's own symmetry is not assumed.
    k = vg.from_scipy(sp.coo_matrix(dense), tmp_path / "k", symmetrize=True)
    np.testing.assert_array_equal(k.to_scipy().toarray() > 0, (dense + dense.T) > 0)
    with pytest.raises(ValueError, match="square"):
        vg.from_scipy(sp.csr_array((2, 3)), tmp_path / "bad")
    with pytest.raises(TypeError, match="sparse"):
        vg.from_scipy(dense, tmp_path / "bad")


def test_convert_accepts_cli_options_and_matches_cli(vastgraph, tmp_path):
    src = FIXTURES / "tiny.tsv"
    vastgraph("convert", src, "-o", tmp_path / "cli", "--symmetrize", "--keep-self-loops")
    g = vg.convert(src, tmp_path / "py", symmetrize=True, keep_self_loops=True, memory="64MiB", threads=1)
    assert_same_store(g, vg.open(tmp_path / "cli"))
    assert g.manifest["self_loops_kept"]
    with pytest.raises(FileExistsError):
        vg.convert([src], tmp_path / "py")
    vg.convert([src], tmp_path / "py", overwrite=True, format="tsv", tmp_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown input format"):
        vg.convert(src, tmp_path / "x", format="nope")
    with pytest.raises(ValueError, match="bad-line.tsv:"):
        vg.convert(FIXTURES / "bad-line.tsv", tmp_path / "x")
    with pytest.raises(FileNotFoundError):
        vg.convert(tmp_path / "missing.tsv", tmp_path / "x")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "memory,expected",
    [("64MiB", 64 << 20), ("1g", 1 << 30), ("1.5G", 3 << 29), (32 << 20, 32 << 20), ("20M", 20 << 20)],
)
def test_memory_sizes_parse_like_the_cli(tmp_path, memory, expected):
    g = vg.from_edges([0], [1], path=tmp_path / "g", memory=memory)
    assert g.manifest["provenance"]["options"]["memory"] == expected


def test_a_skipped_header_is_a_warning(tmp_path):
    src = tmp_path / "labfirst.tsv"
    src.write_text("a\t1\n1\t2\n2\t3\n")
    with pytest.warns(UserWarning, match="labfirst.tsv: line 1 is a header, skipped"):
        g = vg.convert(src, tmp_path / "g")
    assert g.num_arcs == 2
    assert g.manifest["provenance"]["inputs"][0]["skipped_header_line"] == 1
    clean = tmp_path / "clean.tsv"
    clean.write_text("1\t2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vg.convert(clean, tmp_path / "h")


def test_csv_quotes_are_read_and_column_names_above_labels_warn(tmp_path):
    src = tmp_path / "people.csv"
    src.write_text('"source","target"\n"alice","carol smith"\n"bob","alice"\n')
    with pytest.warns(UserWarning, match="people.csv: line 1 is read as an edge, but its ids look like column names"):
        g = vg.convert(src, tmp_path / "g")
    assert g.num_arcs == 3
    assert g.manifest["provenance"]["inputs"][0]["header_like_line"] == 1
    with pytest.warns(UserWarning) as caught:
        h = vg.convert(src, tmp_path / "h", header=True)
    assert [str(w.message).split(": ", 1)[1] for w in caught] == ["line 1 is a header, skipped"]
    assert "header_like_line" not in h.manifest["provenance"]["inputs"][0]
    assert h.num_arcs == 2
    assert sorted(h.labels()) == ["alice", "bob", "carol smith"]
    bad = tmp_path / "bad.csv"
    bad.write_text('a,b\n"alice,bob\n')
    with pytest.raises(ValueError, match=r"bad.csv:2: a quoted field has no closing quote"):
        vg.convert(bad, tmp_path / "b")


def test_arguments_of_the_wrong_kind_are_refused_by_name(tmp_path):
    g = vg.from_edges([0, 1], [1, 2], path=tmp_path / "g")
    refusals = [
        (lambda: vg.bfs(g, 0, threads=2**64), ValueError, "threads: 18446744073709551616"),
        (lambda: vg.convert(5, tmp_path / "x"), TypeError, "inputs must be a path"),
        (lambda: vg.run(g, "bfs", checkpoint=tmp_path / "c", checkpoint_every=-1), ValueError, "checkpoint_every"),
        (lambda: vg.run(g, "random-walk", seed=2**64), ValueError, "seed must be below 2\\^64"),
        # Not truncated to 1 iteration, not parsed from a string; named as the caller named them.
        (lambda: vg.pagerank(g, max_iter=1.7), ValueError, "max_iter must be a non-negative integer"),
        (lambda: vg.pagerank(g, alpha="0.85"), ValueError, "alpha must be a finite number"),
        (lambda: vg.delta_pagerank(g, tol=-1.0), ValueError, "delta-pagerank: tol must be a finite number"),
        (lambda: vg.pagerank(g, max_iter=-1), ValueError, "^max_iter must be non-negative, got -1"),
        (lambda: vg.run(g, "pagerank", damping="x"), ValueError, "damping must be a finite number"),
        (lambda: vg.from_edges([0], [1], path=tmp_path / "h", num_vertices=3.7), TypeError, "num_vertices"),
        (
            lambda: vg.from_edges(["x", "y"], ["y", "z"], path=tmp_path / "i", num_vertices=5),
            ValueError,
            "more than the 3 vertices the edges name",
        ),
        (lambda: vg.from_edges(["x\ty"], ["z"], path=tmp_path / "j"), ValueError, "a tab or a line break"),
    ]
    for call, error, message in refusals:
        with pytest.raises(error, match=message):
            call()
    assert not (tmp_path / "c").exists()
    np.testing.assert_allclose(vg.pagerank(g, alpha=np.float32(0.5), max_iter=np.int64(50)).sum(), 1.0)


def test_memory_sizes_are_exact_up_to_the_largest():
    from vastgraph._options import parse_memory

    assert parse_memory(str(2**64 - 1)) == 2**64 - 1
    assert parse_memory("0.5G") == 1 << 29
    # A fraction of a unit rounds down to whole bytes; a fraction of a byte is refused.
    for fraction in ("16777216.5", "16777216.5B"):
        with pytest.raises(ValueError, match="not a whole number of bytes"):
            parse_memory(fraction)
    for too_large in (str(2**64), 2**64, "16777216TiB"):
        with pytest.raises(ValueError, match="2\\^64 bytes or more"):
            parse_memory(too_large)


@pytest.mark.parametrize(
    "memory,error", [("12 parsecs", ValueError), ("1MiB", ValueError), (True, TypeError), (1.5, TypeError)]
)
def test_bad_memory_and_threads_are_rejected(tmp_path, memory, error):
    with pytest.raises(error):
        vg.from_edges([0], [1], path=tmp_path / "g", memory=memory)
    g = vg.from_edges([0], [1], path=tmp_path / "ok")
    if memory == "1MiB":
        # Below a build's floor, but a run's minimum is its plan's: this one fits, as in the CLI.
        assert vg.run(g, "pagerank", memory=memory).stats["out_of_core"] is not None
    else:
        with pytest.raises(error):
            vg.pagerank(g, memory=memory)
    with pytest.raises(ValueError, match="threads"):
        vg.pagerank(g, threads=0)


@pytest.mark.parametrize("memory", [None, "64MiB"])
def test_a_source_is_named_by_its_label(tmp_path, memory):
    g = vg.convert(FIXTURES / "labels.tsv", tmp_path / "g", symmetrize=True)
    carol = g.vertex_id("carol")
    by_id = vg.bfs(g, carol, memory=memory)
    np.testing.assert_array_equal(vg.bfs(g, "carol", memory=memory), by_id)
    np.testing.assert_array_equal(vg.run(g, "bfs", source="carol", memory=memory).values, by_id)
    walks = vg.run(g, "random-walk", sources=["carol", "alice"], walk_length=3, memory=memory).values
    assert walks[:, 0].tolist() == [carol, g.vertex_id("alice")]
    with pytest.raises(KeyError, match="zed"):
        vg.bfs(g, "zed", memory=memory)
    unlabelled = vg.from_edges([0], [1], path=tmp_path / "ids")
    with pytest.raises(TypeError, match="no labels"):
        vg.bfs(unlabelled, "carol")


def test_labels_become_a_dataframe(vastgraph, tmp_path):
    pd = pytest.importorskip("pandas")
    g = vg.convert(FIXTURES / "labels.tsv", tmp_path / "g", symmetrize=True)
    labels = g.labels()
    assert labels == ["alice", "bob", "carol", "dave"]
    cc = vg.connected_components(g)
    pr = vg.pagerank(g)
    frame = vg.to_pandas({"pagerank": pr, "component": cc}, g)
    assert list(frame.columns) == ["vertex", "label", "pagerank", "component"]
    assert frame.set_index("label")["pagerank"].to_dict() == dict(zip(labels, pr.tolist()))
    # The CLI's TSV output names the same labels with the same values.
    out = tmp_path / "pr.tsv"
    vastgraph("run", "pagerank", tmp_path / "g", "--output", out)
    cli = pd.read_csv(out, sep="\t", header=None, names=["label", "value"])
    np.testing.assert_allclose(frame["pagerank"], cli["value"], rtol=1e-12)
    assert list(cli["label"]) == labels
    assert g.vertex_id("carol") == 2
    single = g.result_frame(pr, name="pr")
    assert list(single.columns) == ["vertex", "label", "pr"]
    with pytest.raises(ValueError, match="shape"):
        vg.to_pandas(pr[:2], g)


def test_from_edges_labels_are_stored(tmp_path):
    g = vg.from_edges([0, 1], [1, 2], path=tmp_path / "g", labels=["x", "y", "z"])
    assert g.labels() == ["x", "y", "z"] and vg.open(tmp_path / "g").labels() == ["x", "y", "z"]
    with pytest.raises(ValueError, match="line break"):
        vg.from_edges([0], [1], path=tmp_path / "h", labels=["a\nb", "c"])
    with pytest.raises(ValueError, match="name every vertex"):
        vg.from_edges([0], [5], path=tmp_path / "h", labels=["a", "b"])


# ---------------------------------------------------------------------------------------------
# Algorithms: the same registry as `vastgraph run`, so results must agree.

# Registry name -> (extra CLI args, Python keyword params); None = default parameters.
CLI_CASES = {
    "bfs": (["--source", "3"], {"source": 3}),
    "sssp": (["--source", "3"], {"source": 3}),
    "bellman-ford": (["--source", "3"], {"source": 3}),
    "cc": ([], {}),
    "scc": ([], {}),
    "pagerank": (["--tolerance", "1e-10"], {"tolerance": 1e-10}),
    "bc": (["--source", "3"], {"source": 3}),
    "kcore": ([], {}),
    "tc": (["--per-vertex"], {"per_vertex": True}),
    "widest": (["--source", "3"], {"source": 3}),
    "ldd": (["--seed", "5"], {"seed": 5}),
    "spanner": (["--seed", "5"], {"seed": 5}),
    "spanning-forest": ([], {}),
    "coloring": (["--seed", "5"], {"seed": 5}),
    "mis": (["--seed", "5"], {"seed": 5}),
    "densest": ([], {}),
    "matching": (["--seed", "5"], {"seed": 5}),
    "setcover": (["--epsilon", "0.1", "--seed", "5"], {"epsilon": 0.1, "seed": 5}),
    "biconnectivity": ([], {}),
    "label-propagation": ([], {}),
    "random-walk": (
        ["--sources", "1,2,3", "--walk-length", "6", "--seed", "5"],
        {"sources": [1, 2, 3], "walk_length": 6, "seed": 5},
    ),
    "delta-pagerank": ([], {}),
    "personalized-pagerank": (["--sources", "1,2"], {"sources": [1, 2]}),
}
FLOAT_RESULTS = {"pagerank", "delta-pagerank", "personalized-pagerank", "bc"}


def test_every_registry_algorithm_has_a_python_function():
    registry = {a["name"] for a in vg.algorithms()}
    assert set(vg.REGISTRY_NAMES.values()) == registry
    assert set(CLI_CASES) == registry
    for function in vg.REGISTRY_NAMES:
        assert callable(getattr(vg, function)), function


def test_algorithms_list_their_parameters_and_refuse_others(tmp_path, vastgraph):
    """vg.algorithms() is `vastgraph algorithms --json`; a parameter an algorithm does not take
    is an error naming the ones it does, from vg.run and from the CLI alike."""
    import json as json_module

    listed = vg.algorithms()
    cli = json_module.loads(vastgraph("algorithms", "--json").stdout)
    assert listed == cli
    bfs = next(a for a in listed if a["name"] == "bfs")
    assert [p["name"] for p in bfs["parameters"]] == ["source", "parents"]
    assert bfs["resumable"] and bfs["in_passes"]
    g = vg.from_edges([0, 1], [1, 2], path=tmp_path / "g", symmetrize=True)
    with pytest.raises(ValueError, match="cc: does not take source; it takes method, seed, beta"):
        vg.run(g, "cc", source=1)
    with pytest.raises(ValueError, match="bfs: does not take alpha; it takes source"):
        vg.run(g, "bfs", alpha=0.5)


@pytest.fixture(scope="module")
def weighted_symmetric_store(tmp_path_factory, vastgraph, random_edges):
    """The random edges as a symmetric weighted store, built by the CLI."""
    src, dst, weights = random_edges
    directory = tmp_path_factory.mktemp("cli-algos")
    edges = directory / "edges.tsv"
    write_tsv(edges, src, dst, weights)
    vastgraph("convert", edges, "-o", directory / "store", "--symmetrize")
    return directory / "store"


@pytest.mark.parametrize("algorithm", sorted(CLI_CASES))
def test_algorithms_equal_cli_run(vastgraph, tmp_path, weighted_symmetric_store, algorithm):
    cli_args, params = CLI_CASES[algorithm]
    want, cli_stats = run_algorithm(vastgraph, tmp_path, algorithm, weighted_symmetric_store, *cli_args)
    g = vg.open(weighted_symmetric_store)
    result = vg.run(g, algorithm, verify=True, **params)
    assert result.stats["verified"]
    got = result.values
    assert got.dtype == want.dtype and got.shape == want.shape
    if algorithm in FLOAT_RESULTS:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    else:
        np.testing.assert_array_equal(got, want)
    if algorithm in ("bfs", "pagerank", "kcore"):  # deterministic round counts
        assert result.stats["iterations"] == cli_stats["iterations"]


def test_named_functions_map_to_the_registry(weighted_symmetric_store):
    g = vg.open(weighted_symmetric_store)
    np.testing.assert_array_equal(vg.bfs(g, 3), vg.run(g, "bfs", source=3).values)
    np.testing.assert_array_equal(vg.bfs(g, 3, parents=True), vg.run(g, "bfs", source=3, parents=True).values)
    np.testing.assert_array_equal(vg.sssp(g, 3), vg.run(g, "sssp", source=3).values)
    pr = vg.pagerank(g, alpha=0.5, tol=1e-9, max_iter=7)
    np.testing.assert_array_equal(pr, vg.run(g, "pagerank", damping=0.5, tolerance=1e-9, max_iters=7).values)
    # vg.run takes NetworkX's names too, and one name per parameter.
    short = vg.run(g, "pagerank", alpha=0.5, tol=1e-9, max_iter=7)
    np.testing.assert_array_equal(pr, short.values)
    with pytest.raises(TypeError, match="same parameter"):
        vg.run(g, "pagerank", alpha=0.5, damping=0.5)
    # A repr of a line, not of every value and iteration record.
    shown = repr(short)
    assert shown.startswith("RunResult(pagerank, values=float64[") and "\n" not in shown, shown
    assert ("not converged" in shown) != short.stats["extra"]["converged"], shown
    assert abs(pr.sum() - 1) < 1e-9
    np.testing.assert_array_equal(vg.core_number(g), vg.run(g, "kcore").values)
    tri = vg.triangles(g)
    assert tri.dtype == np.uint64 and vg.triangle_count(g) == tri.sum() // 3
    mis = vg.maximal_independent_set(g, seed=5)
    assert mis.dtype == np.bool_ and np.array_equal(mis, vg.run(g, "mis", seed=5).values.astype(bool))
    walks = vg.random_walks(g, [1, 2], walk_length=4, seed=1)
    assert walks.shape == (2, 5) and walks.dtype == np.uint32 and list(walks[:, 0]) == [1, 2]
    assert vg.spanning_forest(g).shape[1] == 2


def test_algorithm_arguments_are_checked(weighted_symmetric_store, tmp_path):
    g = vg.open(weighted_symmetric_store)
    with pytest.raises(ValueError, match="out of range"):
        vg.bfs(g, g.num_vertices)
    with pytest.raises(ValueError, match="out of range"):
        vg.bfs(g, -1)
    with pytest.raises(TypeError, match="unknown parameter"):
        vg.run(g, "bfs", sorce=1)
    # Values JSON cannot carry, or that no parameter takes, are refused by name.
    with pytest.raises(ValueError, match="damping must be a finite number, got nan"):
        vg.run(g, "pagerank", damping=float("nan"))
    with pytest.raises(ValueError, match="tolerance must be a finite number, got inf"):
        vg.run(g, "pagerank", tolerance=np.float32("inf"))
    with pytest.raises(ValueError, match="max_iters must be non-negative, got -3"):
        vg.run(g, "pagerank", max_iters=-3)
    # Vertices are checked as vertices, before any parameter goes to the kernel.
    with pytest.raises(ValueError, match="vertex -2 is out of range"):
        vg.run(g, "bfs", sources=np.array([1, -2]))
    with pytest.raises(ValueError, match="unknown algorithm"):
        vg.run(g, "nope")
    with pytest.raises(ValueError, match="method must be afforest or ldd"):
        vg.connected_components(g, method="nope")
    with pytest.raises(TypeError, match="vastgraph.Graph"):
        vg.pagerank("not a graph")
    directed = vg.from_edges([0, 1], [1, 2], path=tmp_path / "d")
    with pytest.raises(ValueError, match="symmetric"):
        vg.core_number(directed)
    with pytest.raises(ValueError, match="weights"):
        vg.sssp(directed, 0)


def test_a_budget_that_holds_the_mapped_graph_runs_in_memory_and_records_its_allowance(weighted_symmetric_store):
    g = vg.open(weighted_symmetric_store)
    # tc has no passes: within a budget that holds the graph and its state it runs in memory.
    budgeted = vg.run(g, "tc", memory="64MiB", verify=True)
    assert budgeted.stats["out_of_core"] is None
    assert budgeted.stats["memory_budget_bytes"] == 64 << 20
    assert budgeted.stats["process_baseline_allowance_bytes"] > 0
    assert budgeted.stats["extra"]["triangles"] == vg.run(g, "tc").stats["extra"]["triangles"]


def test_threads_keyword_runs_in_a_pool_of_that_size(weighted_symmetric_store):
    g = vg.open(weighted_symmetric_store)
    one = vg.run(g, "pagerank", threads=1)
    two = vg.run(g, "pagerank", threads=2)
    assert (one.stats["threads"], two.stats["threads"]) == (1, 2)
    # Pull PageRank is bit-identical for any thread count.
    np.testing.assert_array_equal(one.values, two.values)


@pytest.mark.parametrize("algorithm", ["bfs", "sssp", "cc", "pagerank"])
def test_memory_budget_runs_out_of_core_with_the_in_memory_result(weighted_symmetric_store, algorithm):
    g = vg.open(weighted_symmetric_store)
    in_memory = vg.run(g, algorithm, verify=True)
    budgeted = vg.run(g, algorithm, memory="16MiB", verify=True)
    assert in_memory.stats["out_of_core"] is None
    assert budgeted.stats["memory_budget_bytes"] == 16 << 20
    assert in_memory.stats["process_baseline_allowance_bytes"] is None
    assert budgeted.stats["process_baseline_allowance_bytes"] > 0
    io = budgeted.stats["out_of_core"]
    # The neighbour lists were read from disk, not from the mapped store. bfs's first pull and
    # cc's sampling read the side file of first neighbours (4 bytes a vertex) instead of most
    # of them (cc then reads only the hubs' lists and those of the vertices left outside the
    # giant tree).
    sampled = algorithm in ("bfs", "cc")
    assert io["bytes_read"] >= 4 * (g.num_vertices if sampled else g.num_arcs)
    # One record per pass over the lists, and one per read of a side file (bfs's dense
    # pulls, cc's sampling).
    side_files = ("first-neighbours", "first-neighbours-sample", "list-heads")
    passes = [m for m in io["iteration_modes"] if m not in side_files]
    assert len(passes) == budgeted.stats["iterations"]
    assert (len(io["iteration_modes"]) > len(passes)) == (algorithm in ("bfs", "cc"))
    assert budgeted.stats["verified"]
    if algorithm == "pagerank":
        np.testing.assert_allclose(budgeted.values, in_memory.values, rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_array_equal(budgeted.values, in_memory.values)


def test_out_of_core_io_options_are_those_of_the_cli(weighted_symmetric_store):
    g = vg.open(weighted_symmetric_store)
    want = vg.run(g, "sssp").values
    for mode in ("selective", "streaming"):
        for mrt in (0, 5):
            r = vg.run(g, "sssp", memory="16MiB", io_mode=mode, mrt=mrt)
            np.testing.assert_array_equal(r.values, want)
            io = r.stats["out_of_core"]
            assert io["mode"] == mode and io["max_reentries"] == mrt
            # The lists sssp's label-correcting queue reads one at a time are "random".
            assert set(io["iteration_modes"]) - {"random"} == {mode}
            if mrt == 0:
                assert io["reentries"] == 0
    with pytest.raises(ValueError, match="unknown I/O mode"):
        vg.run(g, "bfs", memory="16MiB", io_mode="sequential")
    with pytest.raises(ValueError, match="give memory="):
        vg.run(g, "bfs", io_mode="streaming")


def test_memory_budget_below_the_vertex_state_or_the_graph_is_refused(tmp_path):
    # Two million vertices: the offsets alone take 16 MiB, more than the smallest budget.
    g = vg.from_edges([0], [2_000_000], path=tmp_path / "wide", symmetrize=True)
    # The minimum is named as the keyword takes it.
    with pytest.raises(ValueError, match='the minimum is memory="[0-9.]+MiB"'):
        vg.bfs(g, 0, memory="16MiB")
    # kcore's state (degrees, coreness, buckets) is larger still.
    with pytest.raises(ValueError, match="kcore: a memory budget of 16.0 MiB is too small"):
        vg.core_number(g, memory="16MiB")
    assert vg.core_number(g, memory="1GiB").max() == 1


@pytest.fixture(scope="module")
def store_above_the_budget(tmp_path_factory, vastgraph):
    """A Kronecker scale-17 store of about 30 MiB, above the smallest budget of 16 MiB."""
    directory = tmp_path_factory.mktemp("above-budget")
    store = directory / "kron17"
    vastgraph("generate", "kron", "--scale", "17", "--symmetrize", "--weighted", "-o", store)
    return store


@pytest.mark.parametrize("algorithm", ["kcore", "tc", "mis", "label-propagation", "biconnectivity"])
def test_every_algorithm_runs_within_a_budget_below_the_graph(store_above_the_budget, algorithm):
    # Without a kernel of passes, the in-memory kernel runs on lists read from disk: the same
    # kernel, so the same result (mis with the same seed).
    g = vg.open(store_above_the_budget)
    in_memory = vg.run(g, algorithm)
    budgeted = vg.run(g, algorithm, memory="16MiB", verify=True)
    io = budgeted.stats["out_of_core"]
    assert io is not None and io["bytes_read"] > 0
    assert budgeted.stats["verified"]
    if in_memory.values is None:
        assert budgeted.stats["extra"]["triangles"] == in_memory.stats["extra"]["triangles"]
    else:
        np.testing.assert_array_equal(budgeted.values, in_memory.values)


def test_progress_callback_sees_both_phases(tmp_path):
    seen = []
    src = np.arange(3_000_000, dtype=np.uint32) % 1000
    vg.from_edges(src, src[::-1].copy(), path=tmp_path / "g", progress=lambda *report: seen.append(report))
    phases = [phase for phase, _, _ in seen]
    assert phases[-1] == "building" or phases[-1] == "reading"
    reading = [(done, total) for phase, done, total in seen if phase == "reading"]
    assert all(total == 3_000_000 for _, total in reading)
    assert all(0 <= done <= total for done, total in reading)
    # A progress bar needs tqdm; the bar writes to stderr and must not fail.
    pytest.importorskip("tqdm")
    vg.from_edges([0], [1], path=tmp_path / "h", progress=True)
    vg.convert(FIXTURES / "tiny.tsv", tmp_path / "i", progress=True)


def test_real_graph_pagerank_equals_cli(vastgraph, real_store, tmp_path):
    store = real_store("web-cnr-2000.tsv.zst", symmetrize=False)
    want, _ = run_algorithm(vastgraph, tmp_path, "pagerank", store)
    got = vg.pagerank(vg.open(store))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    labels_free = vg.open(store)
    cc = vg.connected_components(labels_free)
    want_cc, _ = run_algorithm(vastgraph, tmp_path, "cc", store)
    np.testing.assert_array_equal(cc, want_cc)
    assert json.loads(json.dumps(labels_free.manifest))["vertices"] == labels_free.num_vertices


def test_reorder_renumbers_by_degree_and_keeps_the_answers(tmp_path):
    # A star on 5 (degree 4) joined by a path to a triangle: ids not in degree order.
    src = [5, 5, 5, 5, 0, 1, 2, 3]
    dst = [0, 1, 2, 4, 6, 7, 3, 1]
    g = vg.from_edges(src, dst, path=tmp_path / "g", symmetrize=True, num_vertices=9)
    r = vg.reorder(g, tmp_path / "r", memory="64MiB")
    assert (r.num_vertices, r.num_arcs) == (g.num_vertices, g.num_arcs)
    degrees = r.degrees()
    assert list(degrees) == sorted(degrees, reverse=True)
    old = np.array([int(label) for label in r.labels()])
    assert sorted(old) == list(range(g.num_vertices))
    assert old[0] == 5  # the star's centre has the most arcs
    np.testing.assert_array_equal(r.degrees(), g.degrees()[old])
    np.testing.assert_array_equal(vg.bfs(r, 0), vg.bfs(g, 5)[old])
    np.testing.assert_array_equal(vg.core_number(r), vg.core_number(g)[old])
    with pytest.raises(Exception, match="exists"):
        vg.reorder(g, tmp_path / "r")
    # A labelled source keeps its labels, renumbered.
    h = vg.from_edges([0, 0, 1], [1, 2, 2], path=tmp_path / "h", labels=["x", "y", "z"])
    assert sorted(vg.reorder(h.path, tmp_path / "hr").labels()) == ["x", "y", "z"]


def test_convert_in_degree_order_is_convert_then_reorder(tmp_path):
    edges = tmp_path / "e.tsv"
    # A star on 5 joined by a path to a triangle, a self-loop and a duplicate for the build
    # to drop.
    edges.write_text("5 0\n5 1\n5 2\n5 4\n0 6\n1 7\n2 3\n3 1\n4 4\n5 0\n")
    two = vg.reorder(vg.convert(edges, tmp_path / "a", symmetrize=True), tmp_path / "b")
    one = vg.convert(edges, tmp_path / "c", symmetrize=True, order="degree")
    np.testing.assert_array_equal(one.offsets, two.offsets)
    np.testing.assert_array_equal(one.neighbors, two.neighbors)
    assert one.labels() == two.labels()
    built = vg.open(tmp_path / "a").manifest
    assert one.manifest["dropped"] == built["dropped"] == {
        "self_loops": 1,
        "duplicate_arcs": 1,
        "reciprocal_pairs": 0,
    }
    assert one.manifest["provenance"]["inputs"] == built["provenance"]["inputs"]
    assert one.manifest["provenance"]["options"]["order"] == "degree"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "c", "e.tsv"]
    with pytest.raises(ValueError, match="unknown vertex order"):
        vg.convert(edges, tmp_path / "d", order="random")


def test_a_run_killed_mid_way_resumes_from_its_checkpoint(store_above_the_budget, tmp_path):
    # A child process runs pagerank with a checkpoint after every iteration and is killed
    # (SIGKILL) once the first one is saved; the resumed run ends with the uninterrupted result.
    checkpoint = tmp_path / "checkpoint"
    params = dict(tolerance=0.0, max_iters=1000)
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, vastgraph as vg; "
            "vg.run(vg.open(sys.argv[1]), 'pagerank', tolerance=0.0, max_iters=1000, "
            "checkpoint=sys.argv[2], checkpoint_every=1)",
            str(store_above_the_budget),
            str(checkpoint),
        ]
    )
    deadline = time.monotonic() + 60
    while not (checkpoint / "checkpoint.vgck").exists():
        assert child.poll() is None, "the run ended before its first save"
        assert time.monotonic() < deadline, "no checkpoint after 60 s"
        time.sleep(0.02)
    child.kill()
    child.wait()

    g = vg.open(store_above_the_budget)
    # The remedy is named in the API's keywords, not the CLI's flags.
    with pytest.raises(ValueError, match="resume=True"):
        vg.run(g, "pagerank", checkpoint=checkpoint, **params)
    with pytest.raises(ValueError, match="other parameters"):
        vg.run(g, "pagerank", checkpoint=checkpoint, resume=True, tolerance=0.0, max_iters=999)
    resumed = vg.run(g, "pagerank", checkpoint=checkpoint, resume=True, **params)
    assert 1 <= resumed.stats["resumed_from_iteration"] < 1000
    assert not (checkpoint / "checkpoint.vgck").exists()
    whole = vg.run(g, "pagerank", **params)
    np.testing.assert_array_equal(resumed.values, whole.values)
    with pytest.raises(ValueError, match="no checkpoint to resume from"):
        vg.run(g, "pagerank", checkpoint=checkpoint, resume=True, **params)
    with pytest.raises(ValueError, match="does not save checkpoints"):
        vg.run(g, "cc", checkpoint=tmp_path / "other")
    with pytest.raises(ValueError, match="give checkpoint= too"):
        vg.run(g, "pagerank", resume=True)


def test_convert_of_an_edge_list_larger_than_the_disk_is_refused_before_reading(tmp_path):
    big = tmp_path / "huge.bin32"
    with open(big, "wb") as f:
        try:
            # A sparse file: 8 TB of edges on paper, none on disk.
            f.truncate(8 * 10**12)
        except OSError as e:
            pytest.skip(f"the file system cannot hold an 8 TB sparse file: {e}")
    with pytest.raises(OSError, match="not enough disk space.*for sorted runs"):
        vg.convert(big, tmp_path / "s")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.bin32"]


def test_what_a_store_cannot_hold_is_refused_or_read_as_scipy_does(tmp_path):
    """Duplicate COO entries are summed (SciPy's reading), a weight beyond float32 is refused
    (it would be stored as an infinity), and so are two vertices with one label."""
    sp = pytest.importorskip("scipy.sparse")
    m = sp.coo_array(([1.0, 2.0, 4.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    g = vg.from_scipy(m, tmp_path / "dup")
    np.testing.assert_array_equal(g.to_scipy().toarray(), m.toarray())
    with pytest.raises(ValueError, match=r"weights\[1\] = 1e\+40 is beyond float32's range"):
        vg.from_edges([0, 1], [1, 2], [1.0, 1e40], path=tmp_path / "big")
    assert vg.from_edges([0], [1], [-3.4e38], path=tmp_path / "edge").weights[0] == np.float32(-3.4e38)
    with pytest.raises(ValueError, match=r"weights\[1\] = 1e-46 is 0 as a float32"):
        vg.from_edges([0, 1], [1, 2], [1.0, 1e-46], path=tmp_path / "tiny")
    assert vg.from_edges([0], [1], [1.5e-45], path=tmp_path / "subnormal").weights[0] > 0
    with pytest.raises(ValueError, match=r"labels\[0\] and labels\[2\] are both 'a'"):
        vg.from_edges([0, 1], [1, 2], labels=["a", "b", "a"], path=tmp_path / "labels")
    assert not (tmp_path / "big").exists() and not (tmp_path / "labels").exists()


def test_a_run_within_memory_refuses_a_store_replaced_since_it_was_opened(tmp_path):
    """A run with memory= reads the store from disk again: a store built again in place after
    the graph was opened is refused, not read as the graph held (which gave the new graph's
    answer for the old one); in memory the mapped graph still answers."""
    g = vg.from_edges([0, 1, 2], [1, 2, 3], path=tmp_path / "g")
    np.testing.assert_array_equal(vg.bfs(g, 0, memory="64MiB"), [0, 1, 2, 3])
    vg.from_edges([0, 0, 0], [3, 2, 1], path=tmp_path / "g", overwrite=True)
    with pytest.raises(ValueError, match="replaced on disk after it was opened"):
        vg.bfs(g, 0, memory="64MiB")
    np.testing.assert_array_equal(vg.bfs(g, 0), [0, 1, 2, 3])
    np.testing.assert_array_equal(vg.bfs(vg.open(tmp_path / "g"), 0, memory="64MiB"), [0, 1, 1, 1])
    # Numbers out of the options' ranges name the option.
    with pytest.raises(ValueError, match="mrt must be in 0 .. 2"):
        vg.run(g, "bfs", memory="64MiB", mrt=-3)
    with pytest.raises(ValueError, match="2\\^64 bytes or more"):
        vg.run(g, "bfs", memory=2**70)


def test_a_closed_networkx_graph_says_so_for_a_run_within_memory():
    nx = pytest.importorskip("networkx")
    from vastgraph import nx_backend

    g = nx_backend.convert_from_nx(nx.path_graph(4))
    g.close()
    with pytest.raises(ValueError, match="the graph was closed"):
        vg.bfs(g, 0, memory="64MiB")
