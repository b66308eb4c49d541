"""Benchmark of memory per batch: peak RSS of ``gohash index build`` and ``gohash canon``
on files of a million one-move games.

Run: ``.venv/bin/python benchmarks/memory.py [--games N] [--files K]``.  Writes
``K`` SGF files of ``N`` games each (default one file of 1,000,000 games, each
``(;B[xy])``: 13 MB) into a temporary folder, then runs, each in a fresh
process, ``gohash index build`` of one file, of all ``K`` files, and
``gohash canon`` of one file and of all ``K`` to ``/dev/null``, printing each command's wall time
and peak resident set size (``ru_maxrss`` of that process and its workers).
The bound to meet: :data:`BOUND_MB` for each.  Also printed, as a baseline
in the same run: the peak of a Python process that imports gohash and exits.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BOUND_MB = 300
"""The documented bound on peak RSS of a build or a canon run, whatever the files' length."""

_LETTERS = "abcdefghijklmnopqrs"


def write_games(path: Path, games: int, seed: int) -> None:
    """``games`` one-move games on 19x19, each a different first move as far as
    there are points (so the index holds a few hundred distinct positions)."""
    with open(path, "w", encoding="ascii") as f:
        for i in range(games):
            point = (i * 7 + seed) % 361
            f.write(f"(;B[{_LETTERS[point % 19]}{_LETTERS[point // 19]}])\n")


def run(label: str, command: list[str]) -> tuple[float, float]:
    """Run ``command``; print and return its wall seconds and peak RSS in MB."""
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    # wait4 gives this child's own rusage; RUSAGE_CHILDREN would keep the largest so far.
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - began
    error = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    peak = usage.ru_maxrss / 1024
    flag = "" if peak <= BOUND_MB else f"  OVER the {BOUND_MB} MB bound"
    print(f"{label:<44} {seconds:7.1f} s  {peak:7.0f} MB  exit {code}{flag}", flush=True)
    if code != 0:
        print(error[-2000:], file=sys.stderr)
    return seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games per file")
    parser.add_argument("--files", type=int, default=4, help="files for the many-file build")
    args = parser.parse_args()
    gohash = [sys.executable, "-c", "import sys; from gohash.cli import main; sys.exit(main())"]
    with tempfile.TemporaryDirectory(prefix="gohash-memory-") as tmp:
        folder = Path(tmp)
        paths = [folder / f"games{i}.sgf" for i in range(args.files)]
        for i, path in enumerate(paths):
            write_games(path, args.games, seed=i)
        size = paths[0].stat().st_size / 1e6
        print(f"{args.files} files of {args.games:,} one-move games, {size:.0f} MB each")
        run("baseline: python -c 'import gohash'", [sys.executable, "-c", "import gohash"])
        run("index build, 1 file", [*gohash, "index", "build", str(folder / "one.db"),
                                    str(paths[0])])
        run(f"index build, {args.files} files",
            [*gohash, "index", "build", str(folder / "all.db"), *map(str, paths)])
        run("canon, 1 file (JSON Lines to /dev/null)",
            [*gohash, "canon", "-o", os.devnull, str(paths[0])])
        run(f"canon, {args.files} files", [*gohash, "canon", "-o", os.devnull, *map(str, paths)])


if __name__ == "__main__":
    main()
