"""A store with tiles (`vastgraph tile`) from Python: ``pagerank`` reads them in memory and
within ``memory=``, with the scores of a copy without tiles, and a damaged tile file is an error
naming it."""

import shutil

import numpy as np
import pytest

import vastgraph as vg


def test_pagerank_over_tiles_matches_the_lists(tmp_path, vastgraph):
    rng = np.random.default_rng(5)
    src = np.concatenate([rng.integers(0, 3, 2000), rng.integers(0, 3000, 20000)])
    dst = rng.integers(0, 3000, src.size)
    edges = tmp_path / "edges.tsv"
    np.savetxt(edges, np.column_stack([src, dst]), fmt="%d", delimiter="\t")
    vg.convert(edges, tmp_path / "lists", symmetrize=True)
    shutil.copytree(tmp_path / "lists", tmp_path / "tiles")
    vastgraph("tile", tmp_path / "tiles", "--side-log2", "8")

    lists = vg.open(tmp_path / "lists")
    tiles = vg.open(tmp_path / "tiles")
    assert tiles.manifest["tiles"]["side_log2"] == 8
    expected = vg.pagerank(lists, tol=0.0, max_iter=25)
    for memory in (None, "16MiB"):
        scores = vg.pagerank(tiles, tol=0.0, max_iter=25, memory=memory)
        assert np.abs(scores - expected).sum() < 1e-12

    damaged = tmp_path / "tiles" / "tile_edges.u32"
    data = bytearray(damaged.read_bytes())
    data[200] ^= 1
    damaged.write_bytes(bytes(data))
    with pytest.raises(Exception, match="tile_edges.u32"):
        vg.pagerank(vg.open(tmp_path / "tiles"), max_iter=3)

    # Opened without its tiles, the store runs on the lists, in memory and within memory=.
    past = vg.open(tmp_path / "tiles", tiles=False)
    for memory in (None, "16MiB"):
        scores = vg.pagerank(past, tol=0.0, max_iter=25, memory=memory)
        assert np.abs(scores - expected).sum() < 1e-12


def test_convert_with_tiles_tiles_the_store(tmp_path):
    rng = np.random.default_rng(9)
    edges = tmp_path / "edges.tsv"
    np.savetxt(edges, rng.integers(0, 500, (4000, 2)), fmt="%d", delimiter="\t")
    plain = vg.convert(edges, tmp_path / "plain")
    tiled = vg.convert(edges, tmp_path / "tiled", tiles=True)
    assert "tiles" not in plain.manifest or plain.manifest["tiles"] is None
    assert tiled.manifest["tiles"]["tiles"] > 0
    expected = vg.pagerank(plain, tol=0.0, max_iter=20)
    assert np.abs(vg.pagerank(tiled, tol=0.0, max_iter=20) - expected).sum() < 1e-12
