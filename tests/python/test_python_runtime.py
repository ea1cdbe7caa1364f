"""How the Python package behaves while Rust works: the GIL is released during kernels and
builds, and Ctrl-C (SIGINT) ends a long kernel or build within about a second."""

import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import vastgraph as vg


@pytest.fixture(scope="module")
def long_graph(tmp_path_factory):
    """A random graph on which PageRank without a tolerance runs as long as asked."""
    rng = np.random.default_rng(11)
    n, m = 200_000, 2_000_000
    path = tmp_path_factory.mktemp("runtime") / "g"
    return vg.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), path=path, symmetrize=True)


def iterations_for(g, seconds):
    """PageRank iterations that take about `seconds` on this machine."""
    stats = vg.run(g, "pagerank", tolerance=0.0, max_iters=10).stats
    per_iteration = max(stats["wall_seconds"] / 10, 1e-4)
    return int(seconds / per_iteration) + 1


def test_gil_is_released_while_a_kernel_runs(long_graph):
    iterations = iterations_for(long_graph, 1.5)
    done = {}

    def kernel():
        start = time.perf_counter()
        vg.pagerank(long_graph, tol=0.0, max_iter=iterations)
        done["seconds"] = time.perf_counter() - start

    worker = threading.Thread(target=kernel)
    worker.start()
    # Pure-Python work on this thread: with the GIL held by the kernel it would stall until
    # the kernel ends.
    gaps, last, ticks = [], time.perf_counter(), 0
    while worker.is_alive():
        sum(range(1000))
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
        ticks += 1
    worker.join()
    assert done["seconds"] > 0.5, "the kernel was too short to show anything"
    # Python's switch interval is 5 ms; allow for a busy machine.
    assert max(gaps) < 0.25, f"this thread stalled for {max(gaps):.2f} s while the kernel ran"
    assert ticks > 100


def test_gil_is_released_during_a_build(tmp_path):
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 1 << 20, 4_000_000), rng.integers(0, 1 << 20, 4_000_000)
    done = {}
    worker = threading.Thread(
        target=lambda: done.setdefault("g", vg.from_edges(src, dst, path=tmp_path / "g"))
    )
    worker.start()
    gaps, last = [], time.perf_counter()
    while worker.is_alive():
        sum(range(1000))
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    worker.join()
    assert done["g"].num_arcs > 0
    assert max(gaps) < 0.25, f"this thread stalled for {max(gaps):.2f} s during the build"


def interrupt_after_ready(script, tmp_path, *, wait_ready=120):
    """Runs `script` in a child Python; once it prints READY, sends SIGINT after 0.5 s and
    returns (seconds from SIGINT to exit, return code, stderr, stdout)."""
    path = tmp_path / "child.py"
    path.write_text(textwrap.dedent(script))
    # A shell without job control starts background commands with SIGINT ignored, and an
    # ignored SIGINT is inherited, in which case Python installs no KeyboardInterrupt handler:
    # give the child the default disposition a terminal's Ctrl-C would meet.
    child = subprocess.Popen(
        [sys.executable, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + wait_ready
        line = ""
        while "READY" not in line:
            line = child.stdout.readline()
            if not line and child.poll() is not None:
                raise AssertionError(f"child ended early: {child.stderr.read()}")
            assert time.monotonic() < deadline, "child never got ready"
        time.sleep(0.5)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            raise AssertionError("the child did not stop within 10 s of SIGINT") from None
        return time.monotonic() - sent, child.returncode, child.stderr.read(), child.stdout.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_ctrl_c_stops_a_long_pagerank_within_a_second(long_graph, tmp_path):
    script = f"""
        import time, vastgraph as vg
        g = vg.open({long_graph.path!r})
        print("READY", flush=True)
        start = time.perf_counter()
        try:
            vg.pagerank(g, tol=0.0, max_iter=10**7)
        except KeyboardInterrupt:
            print("interrupted after", time.perf_counter() - start, flush=True)
            raise
        print("finished?!", flush=True)
    """
    seconds, code, stderr, _ = interrupt_after_ready(script, tmp_path)
    assert "KeyboardInterrupt" in stderr
    assert code != 0
    assert seconds < 2.0, f"exit took {seconds:.2f} s after SIGINT"


@pytest.mark.parametrize("memory", [None, "64MiB"])
def test_ctrl_c_stops_the_kernel_itself_and_the_next_run_completes(long_graph, tmp_path, memory):
    """The interrupted kernel must not run on in the background: the process's CPU time
    stays still after the KeyboardInterrupt, and a run started after it goes to its end."""
    script = f"""
        import os, time, vastgraph as vg
        g = vg.open({long_graph.path!r})
        print("READY", flush=True)
        try:
            vg.run(g, "pagerank", tolerance=0.0, max_iters=10**7, memory={memory!r})
        except KeyboardInterrupt:
            before = os.times()
            time.sleep(1.0)
            after = os.times()
            print("CPU", (after.user + after.system) - (before.user + before.system), flush=True)
            result = vg.run(g, "pagerank", tolerance=0.0, max_iters=3, memory={memory!r})
            print("NEXT", result.stats["iterations"], flush=True)
    """
    seconds, code, stderr, stdout = interrupt_after_ready(script, tmp_path)
    assert code == 0, stderr
    cpu = float(stdout.split("CPU")[1].split()[0])
    # A kernel left running would use about a CPU-second a thread in that second.
    assert cpu < 0.3, f"{cpu:.2f} CPU-seconds used in the second after the interrupt"
    assert "NEXT 3" in stdout, stdout
    assert seconds < 6.0, f"took {seconds:.2f} s after SIGINT"


def test_ctrl_c_cancels_a_build_and_leaves_nothing_behind(tmp_path):
    target = tmp_path / "big"
    script = f"""
        import numpy as np, vastgraph as vg
        rng = np.random.default_rng(1)
        src = rng.integers(0, 1 << 26, 150_000_000, dtype=np.uint32)
        dst = rng.integers(0, 1 << 26, 150_000_000, dtype=np.uint32)
        print("READY", flush=True)
        vg.from_edges(src, dst, path={str(target)!r}, memory="256MiB")
        print("finished?!", flush=True)
    """
    seconds, code, stderr, _ = interrupt_after_ready(script, tmp_path)
    assert "KeyboardInterrupt" in stderr, stderr
    assert seconds < 2.0, f"exit took {seconds:.2f} s after SIGINT"
    assert not target.exists()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".big") or p.name.startswith("big")]
    assert leftovers == [], leftovers


def test_a_failing_progress_callback_cancels_the_build_and_the_next_build_runs(tmp_path):
    def stop(phase, done, total):
        raise KeyboardInterrupt

    rng = np.random.default_rng(2)
    src = rng.integers(0, 1 << 24, 30_000_000, dtype=np.uint32)
    with pytest.raises(KeyboardInterrupt):
        vg.from_edges(src, src[::-1].copy(), path=tmp_path / "a", progress=stop)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    # The process-wide cancellation request must not outlive the cancelled build.
    g = vg.from_edges([0, 1], [1, 2], path=tmp_path / "b")
    assert g.num_arcs == 2


@pytest.mark.parametrize("memory", [None, "64MiB"])
def test_a_run_reports_its_iterations_to_the_progress_callback(long_graph, memory):
    iterations = iterations_for(long_graph, 1.0)
    seen = []
    result = vg.run(long_graph, "pagerank", tolerance=0.0, max_iters=iterations, memory=memory,
                    progress=seen.append)
    assert result.stats["iterations"] == iterations
    assert len(seen) >= 3, "reported every 100 ms and once at the end"
    done = [s["iterations"] for s in seen]
    assert done == sorted(done), "iterations only go up"
    assert seen[-1]["iterations"] == iterations
    assert all(s["max_iterations"] == iterations for s in seen)
    if memory is not None:
        # Out of core: one streamed pass an iteration.
        assert seen[-1]["passes"] == iterations and seen[-1]["mode"] == "streaming"
        assert seen[-1]["bytes_read"] > 0


@pytest.mark.parametrize("algorithm,memory", [("pagerank", None), ("bfs", "64MiB"), ("cc", "64MiB")])
def test_the_last_progress_report_agrees_with_the_record(long_graph, algorithm, memory):
    """A kernel that converges, or one of passes that reports no iterations as it goes: the
    final status still counts the record's iterations."""
    seen = []
    result = vg.run(long_graph, algorithm, memory=memory, progress=seen.append)
    assert seen and seen[-1]["iterations"] == result.stats["iterations"] > 0


def test_a_failing_run_progress_callback_stops_the_run(long_graph):
    iterations = iterations_for(long_graph, 5.0)

    def stop(status):
        raise KeyboardInterrupt

    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        vg.run(long_graph, "pagerank", tolerance=0.0, max_iters=iterations, progress=stop)
    assert time.perf_counter() - start < 3.0
    bfs = vg.run(long_graph, "bfs", source=0, progress=lambda status: None)
    assert bfs.stats["iterations"] > 0


def test_a_store_file_truncated_under_a_run_is_explained_before_the_process_ends(tmp_path):
    rng = np.random.default_rng(5)
    path = tmp_path / "g"
    vg.from_edges(rng.integers(0, 5000, 200_000), rng.integers(0, 5000, 200_000), path=path)
    script = f"""
        import os, vastgraph as vg
        g = vg.open({str(path)!r})
        os.truncate(os.path.join({str(path)!r}, "neighbors.u32"), 4096)
        vg.pagerank(g)
        print("finished on a truncated file?!", flush=True)
    """
    for flags in ([], ["-X", "faulthandler"]):
        child = subprocess.run(
            [sys.executable, *flags, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=60
        )
        # The message, then the handler that was there before: the default one ends the
        # process by the signal; faulthandler prints the Python stack first, then does the same.
        assert child.returncode == -signal.SIGBUS, (child.returncode, child.stderr)
        assert "vastgraph: bus error (SIGBUS)" in child.stderr
        assert "truncated a file of an open store" in child.stderr
        assert ("Fatal Python error: Bus error" in child.stderr) == bool(flags)
        vg.from_edges(rng.integers(0, 5000, 200_000), rng.integers(0, 5000, 200_000), path=path, overwrite=True)
