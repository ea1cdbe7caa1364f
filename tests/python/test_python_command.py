"""The ``vastgraph`` command that ``pip install .`` puts on the PATH: the binary's command line,
from the package's own build, with the same output and exit codes."""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import FIXTURES


def installed_command() -> Path:
    """The console script beside this interpreter (pip's scripts directory)."""
    name = "vastgraph"
    for directory in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        path = Path(directory) / name
        if path.exists():
            return path
    found = shutil.which(name)
    if found is None:
        pytest.fail("`pip install .` installed no `vastgraph` command")
    return Path(found)


def run(command, *args, env=None):
    return subprocess.run(
        [str(command), "--quiet", *map(str, args)], capture_output=True, text=True, timeout=300, env=env
    )


def test_the_installed_command_is_the_binary_s_command_line(tmp_path, vastgraph):
    command = installed_command()
    assert "Graph analytics" in run(command, "--help").stdout
    store = tmp_path / "g"
    made = run(command, "convert", FIXTURES / "tiny.tsv", "-o", store, "--symmetrize")
    assert made.returncode == 0, made.stderr
    # The same store information as the binary gives, and the same result of a run.
    ours = json.loads(run(command, "info", store, "--json").stdout)
    theirs = json.loads(vastgraph("info", store, "--json").stdout)
    assert ours == theirs
    for tool, out in [(command, tmp_path / "a.npy"), (None, tmp_path / "b.npy")]:
        if tool is None:
            vastgraph("run", "bfs", store, "--output", out, "--source", 0)
        else:
            done = run(tool, "run", "bfs", store, "--output", out, "--source", 0)
            assert done.returncode == 0, done.stderr
    assert (tmp_path / "a.npy").read_bytes() == (tmp_path / "b.npy").read_bytes()


def test_the_installed_command_exits_as_the_binary_does(tmp_path):
    command = installed_command()
    missing = run(command, "info", tmp_path / "nothing")
    assert missing.returncode == 1 and "not a vastgraph store" in missing.stderr
    usage = run(command, "run")
    assert usage.returncode == 2 and "Usage" in usage.stderr
    assert run(command, "--version").returncode == 0
