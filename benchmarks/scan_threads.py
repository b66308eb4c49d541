"""Benchmark: whether the pattern scan lets other threads run (issue 33; the
test that measured it moved here, being a timing assertion).

Run: ``.venv/bin/python benchmarks/scan_threads.py [--repeat 100000] [--runs 5]``

The kernel's loop over games runs without the interpreter lock, so that a
server answers other requests while a pattern search scans.  On an index of
data/sgf, a thread scans its 19x19 games ``--repeat`` times over with a
pattern no game can hold (all of the work is the kernel's loop); meanwhile the
main thread counts turns of a Python loop.  The baseline, in the same run: the
same loop beside an idle thread.  Printed per run: both rates and their ratio
(about 1 on an idle machine, about half with both cores busy elsewhere; a scan
holding the lock would let the loop run only before and after the kernel,
under a tenth).  Target: the ratio >= 0.25 in every run (exit 1 otherwise).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from gohash.index.index import Index
from gohash.pattern.search import PatternQuery

DATA = Path(__file__).resolve().parents[1] / "data" / "sgf"
TARGET = 0.25


def count_while(thread: threading.Thread, limit: float) -> tuple[int, float]:
    """Turns of a loop while ``thread`` is alive, at most ``limit`` seconds, and
    the seconds they took."""
    start = time.perf_counter()
    turns = 0
    while thread.is_alive() and time.perf_counter() - start < limit:
        turns += 1
    return turns, time.perf_counter() - start


def one_run(index: Index, query: PatternQuery, repeat: int) -> tuple[float, float, float]:
    """(turns a second beside an idle thread, beside the scan, seconds the scan took)."""
    store = index._game_store(19)
    alive = query.matcher.alive(store.columns, 0, len(store))
    assert not alive.any(), "a game is a candidate: the scan would not be all kernel"
    games = np.tile(np.arange(len(store), dtype=np.int64), repeat)
    segment = store.segments[0]
    assert len(segment) == len(store)
    stop = threading.Event()
    idle = threading.Thread(target=stop.wait)
    idle.start()
    alone, alone_took = count_while(idle, 0.2)
    stop.set()
    idle.join()
    started = threading.Event()

    def scan() -> None:
        started.set()
        query.matcher.scan(segment, 0, alive, 0, games)

    worker = threading.Thread(target=scan)
    worker.start()
    started.wait()
    beside, took = count_while(worker, 600)
    worker.join()
    return alone / alone_took, beside / took, took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = [["-"] * 19 for _ in range(19)]
    for r, row in enumerate(["XO", "OX", "XO"]):
        for c, symbol in enumerate(row):
            rows[6 + r][6 + c] = symbol
    query = PatternQuery("\n".join("".join(row) for row in rows))
    print(f"load average {os.getloadavg()[0]:.1f}")
    ratios = []
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "index.db"
        with Index(db, create=True) as index:
            index.build([str(DATA)])
        with Index(db, read_only=True) as index:
            for run in range(args.runs):
                alone, beside, took = one_run(index, query, args.repeat)
                ratios.append(beside / alone)
                print(f"run {run + 1}: loop {alone:,.0f}/s beside an idle thread, "
                      f"{beside:,.0f}/s beside the scan ({took:.2f} s): ratio {ratios[-1]:.2f}")
    print(f"load average {os.getloadavg()[0]:.1f}")
    met = min(ratios) >= TARGET
    print(f"ratio min {min(ratios):.2f}, max {max(ratios):.2f}; target >= {TARGET} "
          f"{'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
