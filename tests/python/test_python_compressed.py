"""Compressed stores from Python: ``convert(..., compress=True)`` writes one, ``open`` reads it,
its arrays decode to the raw store's, and every registry algorithm gives the same result."""

import numpy as np
import pytest

import vastgraph as vg


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compressed")
    rng = np.random.default_rng(7)
    # Hubs (lists over several 64-neighbour blocks) and integer weights.
    src = np.concatenate([rng.integers(0, 4, 1500), rng.integers(0, 600, 4000)])
    dst = rng.integers(0, 600, src.size)
    weights = rng.integers(1, 50, src.size)
    edges = tmp / "edges.tsv"
    np.savetxt(edges, np.column_stack([src, dst, weights]), fmt="%d", delimiter="\t")
    raw = vg.convert(edges, tmp / "raw", symmetrize=True)
    compressed = vg.convert(edges, tmp / "bc", symmetrize=True, compress=True)
    return raw, compressed


def test_a_compressed_store_holds_the_same_graph(stores):
    raw, compressed = stores
    assert compressed.manifest["codec"] == "for64"
    assert raw.manifest["codec"] == "raw"
    np.testing.assert_array_equal(raw.offsets, compressed.offsets)
    np.testing.assert_array_equal(raw.neighbors, compressed.neighbors)
    np.testing.assert_array_equal(raw.weights, compressed.weights)
    codes = {f["name"]: f["bytes"] for f in compressed.manifest["files"]}
    assert codes["neighbors.bc64"] < 4 * compressed.num_arcs


def test_a_codec_named_is_the_codec_written_and_an_unknown_one_is_refused(tmp_path):
    edges = tmp_path / "edges.tsv"
    np.savetxt(edges, np.column_stack([np.arange(50), np.arange(1, 51)]), fmt="%d", delimiter="\t")
    zeta = vg.convert(edges, tmp_path / "zeta", symmetrize=True, compress="zeta64")
    plain = vg.convert(edges, tmp_path / "plain", symmetrize=True)
    assert zeta.manifest["codec"] == "zeta64"
    np.testing.assert_array_equal(zeta.neighbors, plain.neighbors)
    with pytest.raises(ValueError, match="unknown codec .*for64"):
        vg.convert(edges, tmp_path / "nope", symmetrize=True, compress="nope")
    assert not (tmp_path / "nope").exists()


@pytest.mark.parametrize("algorithm", [a["name"] for a in vg.algorithms()])
def test_every_algorithm_gives_the_same_result(stores, algorithm):
    raw, compressed = stores
    params = {"per_vertex": True} if algorithm == "tc" else {}
    want = vg.run(raw, algorithm, threads=1, **params)
    got = vg.run(compressed, algorithm, threads=1, verify=True, **params)
    if want.values is None:
        assert got.values is None
    else:
        np.testing.assert_array_equal(want.values, got.values)
    assert want.stats["iterations"] == got.stats["iterations"]


@pytest.mark.parametrize("algorithm", ["bfs", "sssp", "cc", "pagerank"])
def test_a_memory_budget_reads_the_compressed_lists_out_of_core(stores, algorithm):
    raw, compressed = stores
    want = vg.run(raw, algorithm, threads=1)
    got = vg.run(compressed, algorithm, memory="16MiB", verify=True)
    io = got.stats["out_of_core"]
    assert io is not None and io["bytes_read"] > 0
    # Both offset arrays are held in DRAM: edge offsets as u64, byte offsets as a u64 per 64
    # vertices and a u32 per vertex. No index of list heads: the lists average 17 arcs, whose
    # heads would take more than half the bytes of their codes, so the store has none (the
    # raw one has).
    files = lambda g: {f["name"] for f in g.manifest["files"]}  # noqa: E731
    assert "list_heads.u32" in files(raw) and "list_heads.u32" not in files(compressed)
    entries = compressed.num_vertices + 1
    byte_offsets = 8 * -(-entries // 64) + 4 * entries
    assert io["memory_plan"]["offsets_bytes"] == 8 * entries + byte_offsets
    assert got.stats["verified"]
    if algorithm == "pagerank":
        np.testing.assert_allclose(got.values, want.values, rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_array_equal(got.values, want.values)
