"""`vastgraph report`: a self-contained HTML page with the degree distribution and, per run,
the passes and the top vertices. Checked in the markup against figures computed here with
NumPy, and rendered by headless Chromium to a PNG whose pixels must show each plot."""

import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest

# The series colours of crates/vastgraph-cli/src/report.rs.
OUT_DEGREE = (0x1F, 0x77, 0xB4)
FRONTIER = (0x94, 0x67, 0xBD)
STREAMING = (0x2C, 0xA0, 0x2C)


@pytest.fixture(scope="module")
def labelled(tmp_path_factory, vastgraph):
    """A labelled symmetric graph with a skewed degree distribution, its edges and a
    pagerank run within a budget (per-pass records) and a cc run in memory."""
    tmp = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(7)
    n, m = 3000, 20000
    # Preferential ends: a few hubs, many leaves.
    src = (rng.pareto(1.2, m) * 20).astype(np.int64) % n
    dst = rng.integers(0, n, m)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    edges = tmp / "edges.tsv"
    edges.write_text("".join(f"user{u}\tuser{v}\n" for u, v in zip(src, dst)))
    store = tmp / "store"
    vastgraph("convert", edges, "-o", store, "--symmetrize")
    runs = {}
    for algo, extra in (("pagerank", ["--memory", "2MiB"]), ("cc", []), ("matching", [])):
        stats = tmp / f"{algo}.json"
        output = [] if algo == "matching" else ["--output", tmp / f"{algo}.npy"]
        vastgraph("run", algo, store, "--stats", stats, *output, *extra)
        runs[algo] = stats
    report = tmp / "report.html"
    vastgraph("report", store, *[x for s in runs.values() for x in ("--run", s)], "-o", report)
    return {"tmp": tmp, "store": store, "runs": runs, "report": report, "src": src, "dst": dst}


def svgs(html: str):
    return re.findall(r"<svg.*?</svg>", html, flags=re.S)


def test_the_page_is_self_contained(labelled):
    html = labelled["report"].read_text()
    assert html.startswith("<!DOCTYPE html>")
    for external in ("<script", "<link", " src=", "url(", 'href="http'):
        assert external not in html, external
    # The store's plot, then two per run with per-pass records (pagerank only).
    assert len(svgs(html)) == 3


def test_the_degree_plot_has_one_point_per_degree(labelled):
    html = labelled["report"].read_text()
    pairs = {(min(u, v), max(u, v)) for u, v in zip(labelled["src"], labelled["dst"])}
    degree = np.zeros(3000, dtype=np.int64)
    for u, v in pairs:
        degree[u] += 1
        degree[v] += 1
    used = np.unique(np.concatenate([labelled["src"], labelled["dst"]]))
    distinct = len(np.unique(degree[used]))
    fill = 'fill="#%02X%02X%02X"' % OUT_DEGREE
    # One circle per distinct degree, and the legend's.
    assert svgs(html)[0].count(fill) == distinct + 1


def test_the_passes_and_the_top_vertices_come_from_the_runs(labelled):
    html = labelled["report"].read_text()
    stats = json.loads(labelled["runs"]["pagerank"].read_text())
    passes = stats["out_of_core"]["iterations"]
    frontier_fill = 'fill="#%02X%02X%02X"' % FRONTIER
    drawn = sum(1 for p in passes if p["active_vertices"] > 0)
    assert svgs(html)[1].count(frontier_fill) == drawn > 0
    # The top vertex by pagerank, named by its label, first in the run's table.
    scores = np.load(labelled["tmp"] / "pagerank.npy")
    best = int(np.argmax(scores))
    labels = (labelled["store"] / "labels.txt").read_text().split("\n")
    section = html.split("<h2>pagerank")[1].split("<h2>")[0]
    first_row = section.split("<h3>Top 10 vertices</h3>")[1].split("</tr>")[1]
    assert f">{best}</td><td>{labels[best]}</td>" in first_row
    # cc ran in memory: no passes, but its top; matching gives no value per vertex.
    cc_section = html.split("<h2>cc")[1].split("<h2>")[0]
    assert "No per-pass records" in cc_section and "Top 10 vertices" in cc_section
    assert "No top vertices" in html.split("<h2>matching")[1]


def test_bad_input_is_refused_with_the_file_named(labelled, vastgraph, tmp_path):
    store, report = labelled["store"], labelled["report"]
    proc = vastgraph("report", store, "-o", report, check=False)
    assert proc.returncode == 1 and "already exists (--force replaces it)" in proc.stderr
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    out = tmp_path / "r.html"
    proc = vastgraph("report", store, "--run", garbage, "-o", out, check=False)
    assert proc.returncode == 1 and "garbage.json: not a stats record" in proc.stderr
    other = json.loads(labelled["runs"]["cc"].read_text())
    other["vertices"] += 1
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps(other))
    proc = vastgraph("report", store, "--run", elsewhere, "-o", out, check=False)
    assert proc.returncode == 1 and "elsewhere.json: a run on a graph of" in proc.stderr
    forged = json.loads(labelled["runs"]["cc"].read_text())
    forged["top"][0]["vertex"] = forged["vertices"]
    forged_path = tmp_path / "forged.json"
    forged_path.write_text(json.dumps(forged))
    proc = vastgraph("report", store, "--run", forged_path, "-o", out, check=False)
    assert proc.returncode == 1 and "forged.json: its top names vertex" in proc.stderr, proc.stderr
    # A store of the same size whose ids name other vertices: its reordered copy.
    reordered = tmp_path / "reordered"
    vastgraph("reorder", store, "-o", reordered)
    proc = vastgraph("report", reordered, "--run", labelled["runs"]["cc"], "-o", out, check=False)
    assert proc.returncode == 1 and "cc.json: a run on another store" in proc.stderr, proc.stderr
    assert not out.exists()


def chromium() -> str:
    for name in (os.environ.get("VASTGRAPH_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    pytest.skip("no Chromium on this machine (apt-get install chromium, or set VASTGRAPH_CHROMIUM); "
                "the page's rendering is not checked")


def read_png(path: Path):
    """The RGB pixels of an 8-bit, non-interlaced RGB or RGBA PNG, as an (h, w, 3) array."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8)
    stride = width * channels
    rows = raw.reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.int32)
    previous = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            current = line
        elif kind == 2:
            current = (line + previous) & 0xFF
        else:
            current = np.zeros(stride, dtype=np.int32)
            for x in range(stride):
                left = current[x - channels] if x >= channels else 0
                up = previous[x]
                up_left = previous[x - channels] if x >= channels else 0
                if kind == 1:
                    predictor = left
                elif kind == 3:
                    predictor = (left + up) // 2
                else:
                    p = left + up - up_left
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                    predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
                current[x] = (line[x] + predictor) & 0xFF
        out[y] = current
        previous = current
    return out.reshape(height, width, channels)[:, :, :3]


def test_chromium_renders_every_plot(labelled, tmp_path):
    browser = chromium()
    png = tmp_path / "report.png"
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars", "--window-size=800,3200",
         f"--screenshot={png}", labelled["report"].as_uri()],
        capture_output=True, timeout=120, check=True,
    )
    pixels = read_png(png)

    def painted(colour):
        return int(np.all(pixels == np.array(colour), axis=2).sum())

    # The degree points (3-pixel circles), the frontier's bars and the streaming passes' bars.
    assert painted(OUT_DEGREE) > 100
    assert painted(FRONTIER) > 2000
    assert painted(STREAMING) > 2000
