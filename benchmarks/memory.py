"""Benchmark of memory per batch: peak RSS of ``gohash index build`` and ``gohash canon``
on files of a million one-move games.

Run: ``.venv/bin/python benchmarks/memory.py [--games N] [--files K]``.  Writes
``K`` SGF files of ``N`` games each (default one file of 1,000,000 games, each
``(;B[xy])``: 13 MB) into a temporary folder, then runs, each in a fresh
process, ``gohash index build`` of one file, of all ``K`` files, and
``gohash canon`` of one file and of all ``K`` to ``/dev/null``, then the build
and canon of two files with ``--jobs 2``.  For each command it prints the wall
time, the peak resident set size of its largest process (``ru_maxrss``: the
command, or one of its workers) and the peaks of the resident set sizes of the
command and its workers added up (sampled from ``/proc`` every 20 ms on Linux),
in full (pages a forked worker still shares with its parent count twice) and
as proportional shares (counted once).  The bound to meet: :data:`BOUND_MB`
for the full sum.  Also printed, as a baseline in the
same run: the peak of a Python process that imports gohash and exits.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
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


def tree_memory(root: int) -> tuple[int, int]:
    """Bytes resident in process ``root`` and its descendants now, and their
    proportional share (``Pss``: a page shared by n processes counts 1/n in each);
    zeros without ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else []:
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                # The command name may hold spaces: the parent follows its ")".
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    rss = pss = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                for line in f:
                    name, _, value = line.partition(b":")
                    if name in (b"Rss", b"Pss"):
                        kib = int(value.split()[0]) * 1024
                        rss, pss = (rss + kib, pss) if name == b"Rss" else (rss, pss + kib)
        except (OSError, IndexError, ValueError):
            continue
    return rss, pss


def run(label: str, command: list[str]) -> tuple[float, float, float, float]:
    """Run ``command``; print and return its wall seconds, the peak RSS of its
    largest process and the peaks of its processes' RSS and PSS added up, in MB."""
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    summed = shared = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal summed, shared
        while not done.wait(0.02):
            rss, pss = tree_memory(process.pid)
            summed, shared = max(summed, rss), max(shared, pss)

    sampler = threading.Thread(target=sample)
    sampler.start()
    # wait4 gives this child's own rusage (its largest process, workers
    # included); RUSAGE_CHILDREN would keep the largest so far.
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - began
    done.set()
    sampler.join()
    error = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    largest = usage.ru_maxrss / 1024
    total, proportional = max(summed / 2**20, largest), shared / 2**20
    flag = "" if total <= BOUND_MB else f"  OVER the {BOUND_MB} MB bound"
    print(f"{label:<40} {seconds:7.1f} s {largest:7.0f} MB {total:7.0f} MB "
          f"{proportional:7.0f} MB  exit {code}{flag}", flush=True)
    if code != 0:
        print(error[-2000:], file=sys.stderr)
    return seconds, largest, total, proportional


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
        print(f"{'command':<40} {'wall':>9} {'largest':>10} {'sum RSS':>10} {'sum PSS':>10}")
        run("baseline: python -c 'import gohash'", [sys.executable, "-c", "import gohash"])
        run("index build, 1 file", [*gohash, "index", "build", str(folder / "one.db"),
                                    str(paths[0])])
        run(f"index build, {args.files} files",
            [*gohash, "index", "build", str(folder / "all.db"), *map(str, paths)])
        run("canon, 1 file (JSON Lines to /dev/null)",
            [*gohash, "canon", "-o", os.devnull, str(paths[0])])
        run(f"canon, {args.files} files", [*gohash, "canon", "-o", os.devnull, *map(str, paths)])
        two = list(map(str, paths[:2]))
        run("index build --jobs 2, 2 files",
            [*gohash, "index", "build", "--jobs", "2", str(folder / "jobs.db"), *two])
        run("canon --jobs 2, 2 files", [*gohash, "canon", "--jobs", "2", "-o", os.devnull, *two])


if __name__ == "__main__":
    main()
