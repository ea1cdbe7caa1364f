#!/usr/bin/env python3
"""Coverage of vastgraph's own code by each fuzz target's corpus.

Runs every built fuzz target (scripts/fuzz.sh builds them) once over its corpus with libFuzzer's
`-runs=0 -print_coverage=1`, which lists each instrumented function of the binary with the
edges (branches of its control flow) the corpus reached, and sums them over the functions whose
source lies under `crates/`: the workspace's code, not its dependencies'. Prints a row per
target (functions reached, edges covered, the share) and, with --files, the files of each.

    scripts/fuzz_coverage.py [--corpus-root fuzz/corpus] [--files] [TARGET...]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINARIES = ROOT / "fuzz" / "target" / "x86_64-unknown-linux-gnu" / "release"
LINE = re.compile(r"^(UN)?COVERED_FUNC: hits: (\d+) edges: (\d+)/(\d+) (.*) (\S+):(\d+)$")


def coverage(binary: Path, corpus: Path) -> dict[str, list[int]]:
    """Per source file of the workspace: [functions reached, functions, edges covered, edges]."""
    run = subprocess.run(
        [str(binary), str(corpus), "-runs=0", "-print_coverage=1"],
        capture_output=True, text=True, errors="replace", timeout=3600,
    )
    files: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for line in run.stderr.splitlines():
        m = LINE.match(line.strip())
        if not m:
            continue
        path = m.group(6)
        at = path.find("/crates/")
        if at < 0:
            continue
        row = files[path[at + 1:]]
        row[0] += m.group(1) is None
        row[1] += 1
        row[2] += int(m.group(3))
        row[3] += int(m.group(4))
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("targets", nargs="*")
    ap.add_argument("--corpus-root", type=Path, default=ROOT / "fuzz" / "corpus")
    ap.add_argument("--files", action="store_true", help="also each file's coverage")
    args = ap.parse_args()
    targets = args.targets or sorted(
        p.stem for p in (ROOT / "fuzz" / "fuzz_targets").glob("*.rs"))
    print(f"{'target':16} {'inputs':>7} {'functions':>17} {'edges':>19} {'share':>6}")
    for target in targets:
        binary = BINARIES / target
        corpus = args.corpus_root / target
        if not binary.exists():
            print(f"{target:16} not built (scripts/fuzz.sh builds the targets)")
            continue
        files = coverage(binary, corpus)
        f_hit = sum(r[0] for r in files.values())
        f_all = sum(r[1] for r in files.values())
        e_hit = sum(r[2] for r in files.values())
        e_all = sum(r[3] for r in files.values())
        inputs = sum(1 for p in corpus.iterdir() if p.is_file())
        share = 100.0 * e_hit / e_all if e_all else 0.0
        print(f"{target:16} {inputs:7} {f_hit:8}/{f_all:<8} {e_hit:9}/{e_all:<9} {share:5.1f}%")
        if args.files:
            for path, (fh, fa, eh, ea) in sorted(files.items()):
                if fh:
                    print(f"    {path:60} {eh:7}/{ea:<7} {100.0 * eh / ea:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
