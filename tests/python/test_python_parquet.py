"""Parquet export of stores and results, read back with pyarrow."""

import numpy as np
import pytest

import vastgraph as vg
from conftest import FIXTURES, vastgraph_binary

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def read_dir(directory):
    files = sorted(directory.glob("*.parquet"))
    assert files, f"no Parquet files in {directory}"
    return pa.concat_tables([pq.read_table(f) for f in files]), files


def arcs_of(g):
    """All arcs (src, dst[, weight]) of a store, from its CSR arrays."""
    src = np.repeat(np.arange(g.num_vertices), np.diff(g.offsets).astype(np.int64))
    return src, np.asarray(g.neighbors), None if g.weights is None else np.asarray(g.weights)


@pytest.mark.parametrize("chunk_rows,rows_per_file", [(7, 20), (1 << 22, 1 << 26)])
def test_export_round_trips_through_pyarrow(tmp_path, chunk_rows, rows_per_file):
    rng = np.random.default_rng(4)
    n = 500
    src, dst = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    weights = rng.random(3000)
    # Isolated vertices at both ends and a high-degree vertex spanning several chunks.
    src, dst, weights = (
        np.r_[src + 3, np.full(40, 9)],
        np.r_[dst + 3, np.arange(40) + 100],
        np.r_[weights, np.ones(40)],
    )
    g = vg.from_edges(src, dst, weights, path=tmp_path / "g", num_vertices=n + 10)
    g.export_parquet(tmp_path / "out", chunk_rows=chunk_rows, rows_per_file=rows_per_file)

    edges, edge_files = read_dir(tmp_path / "out" / "edges")
    assert edges.schema.names == ["src", "dst", "weight"]
    assert edges.schema.field("src").type == pa.int64()
    assert edges.schema.field("weight").type == pa.float32()
    want_src, want_dst, want_w = arcs_of(g)
    np.testing.assert_array_equal(edges["src"].to_numpy(), want_src)
    np.testing.assert_array_equal(edges["dst"].to_numpy(), want_dst)
    np.testing.assert_array_equal(edges["weight"].to_numpy(), want_w)
    if chunk_rows == 7:
        # Files of at most 20 rows: row groups of 7, 7 and 6 (the chunk cut at the file's end).
        assert len(edge_files) == -(-g.num_arcs // 20)
        groups = pq.ParquetFile(edge_files[0]).metadata
        assert [groups.row_group(i).num_rows for i in range(groups.num_row_groups)] == [7, 7, 6]
        assert all(pq.ParquetFile(f).metadata.num_rows <= 20 for f in edge_files)

    vertices, _ = read_dir(tmp_path / "out" / "vertices")
    assert vertices.schema.names == ["id"]
    np.testing.assert_array_equal(vertices["id"].to_numpy(), np.arange(n + 10))


def test_export_of_a_labelled_unweighted_store(tmp_path):
    g = vg.convert(FIXTURES / "labels.tsv", tmp_path / "g")
    vg.export_parquet(g, tmp_path / "out")
    edges, _ = read_dir(tmp_path / "out" / "edges")
    assert edges.schema.names == ["src", "dst"]
    vertices, _ = read_dir(tmp_path / "out" / "vertices")
    assert vertices.to_pydict() == {"id": [0, 1, 2, 3], "label": ["alice", "bob", "carol", "dave"]}
    pairs = {
        (g.labels()[s], g.labels()[d]) for s, d in zip(edges["src"].to_pylist(), edges["dst"].to_pylist())
    }
    assert pairs == {("alice", "bob"), ("bob", "carol"), ("carol", "alice"), ("dave", "alice")}


@pytest.mark.parametrize("symmetrize,compress", [(False, False), (True, False), (True, "zeta64")])
def test_an_export_converts_back_to_the_same_graph(tmp_path, symmetrize, compress):
    g = vg.convert(FIXTURES / "labels.tsv", tmp_path / "g", symmetrize=symmetrize, compress=compress)
    g.export_parquet(tmp_path / "out")
    metadata = pq.ParquetFile(tmp_path / "out" / "edges" / "part-00000.parquet").schema_arrow.metadata
    assert metadata.get(b"vastgraph.symmetric") == (b"true" if symmetrize else None)
    h = vg.convert(tmp_path / "out", tmp_path / "h", compress=compress)
    assert h.directed == g.directed and h.labels() == g.labels()
    np.testing.assert_array_equal(vg.pagerank(h), vg.pagerank(g))
    if not compress:
        np.testing.assert_array_equal(h.offsets, g.offsets)
        np.testing.assert_array_equal(h.neighbors, g.neighbors)
    # Numbering afresh would lose the labels; the refusal names the keyword.
    with pytest.raises(ValueError, match="leave relabel=True out"):
        vg.convert(tmp_path / "out", tmp_path / "r", relabel=True)


def test_export_refuses_to_mix_with_an_existing_export(tmp_path):
    g = vg.from_edges([0, 1], [1, 2], path=tmp_path / "g")
    g.export_parquet(tmp_path / "out")
    with pytest.raises(FileExistsError, match="not empty"):
        g.export_parquet(tmp_path / "out")
    h = vg.from_edges([0], [1], path=tmp_path / "h")
    h.export_parquet(tmp_path / "out", overwrite=True, chunk_rows=1, rows_per_file=1)
    edges, files = read_dir(tmp_path / "out" / "edges")
    assert edges.num_rows == 1 and len(files) == 1


def test_tables_inside_the_store_are_refused(tmp_path):
    g = vg.from_edges([0, 1], [1, 2], path=tmp_path / "g")
    files = sorted(p.name for p in (tmp_path / "g").iterdir())
    for target in (tmp_path / "g", tmp_path / "g" / "out", tmp_path / "g" / ".." / "g" / "x"):
        with pytest.raises(ValueError, match="is inside the store"):
            g.export_parquet(target, overwrite=True)
        with pytest.raises(ValueError, match="is inside the store"):
            vg.write_parquet(np.zeros(3), target, g, overwrite=True)
    assert sorted(p.name for p in (tmp_path / "g").iterdir()) == files
    assert vg.run(g, "bfs", source=0).values.tolist() == [0, 1, 2]


def test_empty_graph_exports_schema_only_files(tmp_path):
    g = vg.from_edges([], [], path=tmp_path / "g", num_vertices=3)
    g.export_parquet(tmp_path / "out")
    edges, _ = read_dir(tmp_path / "out" / "edges")
    assert edges.num_rows == 0 and edges.schema.names == ["src", "dst"]


def test_results_are_written_per_vertex_and_join_on_id(tmp_path):
    g = vg.convert(FIXTURES / "labels.tsv", tmp_path / "g", symmetrize=True)
    pr, cc = vg.pagerank(g), vg.connected_components(g)
    vg.write_parquet({"pagerank": pr, "component": cc}, tmp_path / "res", g, chunk_rows=3)
    table, files = read_dir(tmp_path / "res")
    assert len(files) == 1 and pq.ParquetFile(files[0]).metadata.num_row_groups == 2
    assert table.schema.names == ["id", "label", "pagerank", "component"]
    assert table.schema.field("component").type == pa.uint32()
    np.testing.assert_array_equal(table["pagerank"].to_numpy(), pr)
    np.testing.assert_array_equal(table["component"].to_numpy(), cc)
    vg.write_parquet(pr, tmp_path / "single", g, name="score")
    single, _ = read_dir(tmp_path / "single")
    assert single.schema.names == ["id", "label", "score"]
    with pytest.raises(ValueError, match="clash"):
        vg.write_parquet({"id": pr}, tmp_path / "bad", g)
    with pytest.raises(ValueError, match="shape"):
        vg.write_parquet(pr[:2], tmp_path / "bad2", g)
    # The layout is checked before anything is written; a rerun then needs no overwrite.
    for kwargs, what in (({"rows_per_file": 0}, "rows_per_file"), ({"compression": "bogus"}, "compression")):
        with pytest.raises(ValueError, match=what):
            vg.write_parquet(pr, tmp_path / "bad3", g, **kwargs)
        assert not (tmp_path / "bad3").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    with pytest.raises(FileExistsError, match="overwrite=True"):
        vg.write_parquet(pr, tmp_path / "single", g, name="score")
    vg.write_parquet(cc, tmp_path / "single", g, name="component", overwrite=True)
    assert read_dir(tmp_path / "single")[0].schema.names == ["id", "label", "component"]
    # A directory holding anything but Parquet files is the user's: overwrite does not delete it.
    (tmp_path / "single" / "notes.txt").write_text("mine")
    (tmp_path / "single" / "keep").mkdir()
    with pytest.raises(FileExistsError, match=r"holds more than Parquet files \(keep, notes.txt\)"):
        vg.write_parquet(cc, tmp_path / "single", g, name="component", overwrite=True)
    assert (tmp_path / "single" / "notes.txt").read_text() == "mine"
    assert (tmp_path / "single" / "keep").is_dir()


def test_graphframes_reads_the_export(tmp_path):
    """Optional and slow (starts Spark): skipped without pyspark and graphframes."""
    try:
        from graphframes import GraphFrame
        from pyspark.sql import SparkSession
    except ImportError:
        pytest.skip("pyspark and graphframes are not installed; skipping the GraphFrames check")
    g = vg.from_edges([0, 1, 2, 3], [1, 2, 0, 4], path=tmp_path / "g", symmetrize=True)
    g.export_parquet(tmp_path / "out")
    spark = SparkSession.builder.master("local[1]").appName("vastgraph-test").getOrCreate()
    try:
        frame = GraphFrame(
            spark.read.parquet(str(tmp_path / "out" / "vertices")),
            spark.read.parquet(str(tmp_path / "out" / "edges")),
        )
        spark.sparkContext.setCheckpointDir(str(tmp_path / "checkpoints"))
        components = {row["id"]: row["component"] for row in frame.connectedComponents().collect()}
        cc = vg.connected_components(g)
        assert len(set(components.values())) == len(set(cc.tolist()))
        assert frame.edges.count() == g.num_arcs
    finally:
        spark.stop()


def test_cli_export_matches_the_python_export(tmp_path):
    """`vastgraph export --format parquet` and `g.export_parquet` write the same tables."""
    import subprocess

    binary = str(vastgraph_binary())
    g = vg.from_edges([0, 0, 3, 2], [1, 2, 1, 3], [1.5, -2.0, 4.0, 0.5], path=tmp_path / "g")
    subprocess.run([binary, "--quiet", "export", g.path, "--format", "parquet", "-o", str(tmp_path / "cli")], check=True)
    g.export_parquet(tmp_path / "py")
    for table in ("edges", "vertices"):
        cli, _ = read_dir(tmp_path / "cli" / table)
        py, _ = read_dir(tmp_path / "py" / table)
        assert cli.equals(py), table
    edges, _ = read_dir(tmp_path / "cli" / "edges")
    assert edges.column("src").to_pylist() == [0, 0, 2, 3]
    assert edges.column("weight").to_pylist() == [1.5, -2.0, 0.5, 4.0]


def test_an_export_converts_back_to_the_same_store(tmp_path):
    """`convert DIR/edges` reads the export's Parquet parts: the same arcs and weights."""
    rng = np.random.default_rng(7)
    g = vg.from_edges(rng.integers(0, 300, 2000), rng.integers(0, 300, 2000), rng.random(2000),
                      path=tmp_path / "g", num_vertices=310)
    g.export_parquet(tmp_path / "out", chunk_rows=100, rows_per_file=700)
    back = vg.convert(tmp_path / "out" / "edges", tmp_path / "back")
    # The isolated vertices 300..309 come back from the edge files' recorded vertex count.
    assert back.num_vertices == 310 and back.num_arcs == g.num_arcs
    np.testing.assert_array_equal(np.asarray(back.offsets), np.asarray(g.offsets))
    np.testing.assert_array_equal(np.asarray(back.neighbors), np.asarray(g.neighbors))
    np.testing.assert_array_equal(np.asarray(back.weights), np.asarray(g.weights))


@pytest.mark.parametrize("container", ["parquet", "feather"])
def test_convert_reads_named_columns_of_string_ids(tmp_path, container):
    table = pa.table({
        "who": ["ann", "bob", "ann", "cy"],
        "whom": pa.array(["bob", "cy", "cy", "ann"]).dictionary_encode(),
        "cost": pa.array([1, 2, 3, 4], pa.int16()),
    })
    path = tmp_path / f"e.{container}"
    if container == "parquet":
        pq.write_table(table, path)
    else:
        import pyarrow.feather as feather

        feather.write_feather(table, path)
    g = vg.convert(path, tmp_path / "g", src="who", dst="whom", weight="cost")
    assert list(g.labels()) == ["ann", "bob", "cy"]
    assert g.num_arcs == 4
    np.testing.assert_array_equal(np.asarray(g.neighbors), [1, 2, 2, 0])
    np.testing.assert_array_equal(np.asarray(g.weights), [1, 3, 2, 4])


def test_cli_convert_of_a_table_with_a_null_names_the_row(tmp_path):
    import subprocess

    pq.write_table(pa.table({"src": [0, 1, 2], "dst": pa.array([1, None, 0], pa.int64())}), tmp_path / "e.parquet")
    done = subprocess.run([str(vastgraph_binary()), "--quiet", "convert", str(tmp_path / "e.parquet"), "-o", str(tmp_path / "g")],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "e.parquet: row 2: column 'dst' is null" in done.stderr, done.stderr
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize("kind,weight", [(pa.int64(), 2**62 + 1), (pa.uint64(), 2**64 - 1)])
def test_cli_convert_warns_of_64_bit_integer_weights_float32_rounds(tmp_path, kind, weight):
    import subprocess

    table = pa.table({"src": [0, 1, 2], "dst": [1, 2, 0], "weight": pa.array([3, 4, weight], kind)})
    pq.write_table(table, tmp_path / "e.parquet")
    done = subprocess.run([str(vastgraph_binary()), "convert", str(tmp_path / "e.parquet"), "-o", str(tmp_path / "g")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    stored = int(np.float32(weight))
    assert f"e.parquet: row 3: column 'weight' holds {weight}, which the store's float32 weights hold as {stored}" in done.stderr, done.stderr
    assert vg.open(tmp_path / "g").weights[2] == np.float32(weight)


def test_from_pandas_takes_networkx_column_names_and_names(tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"source": ["x", "y", "z"], "target": ["y", "z", "x"], "weight": [0.5, 1.5, 2.5]})
    g = vg.from_pandas(frame, tmp_path / "g", symmetrize=True)
    assert list(g.labels()) == ["x", "y", "z"]
    assert g.num_arcs == 6 and not g.directed
    numbers = pd.DataFrame({"a": [0, 1], "b": [1, 2]})
    with pytest.raises(ValueError, match="no source column.*name it with source="):
        vg.from_pandas(numbers, tmp_path / "h")
    h = vg.from_pandas(numbers, tmp_path / "h", source="a", target="b")
    assert h.num_vertices == 3 and h.weights is None
    # Columns labelled by position, as pd.read_csv(header=None) labels them, and a pyarrow Table.
    positional = pd.DataFrame([[0, 1, 2.5], [1, 2, 0.5]])
    p = vg.from_pandas(positional, tmp_path / "p", source=0, target=1, weight=2)
    assert p.num_arcs == 2 and list(p.weights) == [2.5, 0.5]
    with pytest.raises(ValueError, match=r"no column '0' \(source=\); its columns are 0, 1, 2"):
        vg.from_pandas(positional, tmp_path / "q", source="0", target="1")
    pa = pytest.importorskip("pyarrow")
    t = vg.from_pandas(pa.table({"src": [0, 1], "dst": [1, 2]}), tmp_path / "t")
    assert t.num_arcs == 2
    # A missing value is named as one, in a column of names or of nullable integers.
    for column in (["x", None, "z"], pd.array([0, None, 2], dtype="Int64")):
        gaps = pd.DataFrame({"src": column, "dst": ["y", "z", "x"] if column[0] == "x" else [1, 2, 0]})
        with pytest.raises(ValueError, match="src has 1 missing"):
            vg.from_pandas(gaps, tmp_path / "gaps")
