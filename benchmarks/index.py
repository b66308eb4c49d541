"""Benchmark of ``gohash index``: build time compiled against pure, --jobs 2, find latency.

Run: ``.venv/bin/python benchmarks/index.py [--limit N] [--queries N]``.  The
files of ``kgs-6d/`` and ``ai-games/`` under ``../shared/corpus/`` (beside the
checkout), all of them or the first ``--limit`` of each folder in name order:

1. :meth:`gohash.Index.build` into an index in a temporary folder, a
   transaction about every second (the default): with the compiled core, then
   with ``GOHASH_PURE=1`` (the pure walker for every file), then the compiled
   build with ``--jobs 2`` and with one transaction per file (the default
   before).  Target: the compiled build at least 4x faster than the pure one.
2. The replay alone, without the database (:func:`gohash.index.records.input_frames`
   over the same files, as a build gives them): compiled and pure.  The
   difference to the builds is the database's share, the same for both paths.
3. Latency of :meth:`Index.find` (library call, default limit of 100 matches),
   over a seeded sample of positions (a random position of a random game, so
   common positions are drawn more often), each turned by a random element
   of the group so the query is rarely in its canonical frame; then separately
   over opening positions (the empty board and the first moves of some games),
   which occur thousands of times.
4. The time of :meth:`Index.dupes` over the whole index.

The machine is shared (2 cores): each timing is printed with the 1-minute load
average before and after it; a load above 1 means another process took CPU time
from this one.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from gohash.group.symmetry import ELEMENTS
from gohash.index.build import input_frames
from gohash.index.find import position_from_sgf
from gohash.index.index import Index
from gohash.index.records import FileFrames, Task
from gohash.pipeline.frames import NamedSchemes, unpack_frames
from gohash.pipeline.pool import MAX_TASKS_PER_BATCH, batches
from gohash.pipeline.positions import CORE_AVAILABLE
from gohash.sgf.sources import find_inputs

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
FOLDERS = ("kgs-6d", "ai-games")


@contextmanager
def pure(on: bool) -> Iterator[None]:
    """``GOHASH_PURE=1`` while ``on`` (positions() reads it at each call)."""
    old = os.environ.get("GOHASH_PURE")
    if on:
        os.environ["GOHASH_PURE"] = "1"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("GOHASH_PURE", None)
        else:
            os.environ["GOHASH_PURE"] = old


def timed(run: Callable[[], object]) -> tuple[float, str]:
    """Seconds of ``run()``, and the load averages before and after it."""
    before = os.getloadavg()[0]
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    return seconds, f"{before:.2f} / {os.getloadavg()[0]:.2f}"


def replay_only(paths: list[str]) -> int:
    """Replay every file as a build does, without the database; the positions."""
    tasks: list[Task] = [(inp, {}) for inp in find_inputs(paths)]
    count = 0
    for chunk in batches(tasks, MAX_TASKS_PER_BATCH, None):
        for results in input_frames(chunk, NamedSchemes("huima64"), None):
            count += sum(len(item.keys) for item in results if isinstance(item, FileFrames))
    return count


def sample_queries(db: Path, count: int, rng: random.Random) -> list[np.ndarray]:
    with sqlite3.connect(db) as con:
        games = con.execute("SELECT max(id) FROM games").fetchone()[0]
        queries = []
        while len(queries) < count:
            game = rng.randint(1, games)
            row = con.execute(
                "SELECT p.frame, g.size FROM occurrences o "
                "JOIN positions p ON p.id = o.position_id JOIN games g ON g.id = o.game_id "
                "WHERE o.game_id = ? ORDER BY random() LIMIT 1",
                (game,),
            ).fetchone()
            if row is None:
                continue
            frame, size = row
            position = unpack_frames(frame, 1, size)[0]
            queries.append(ELEMENTS[rng.randrange(16)].image_array(position))
    return queries


def latencies(index: Index, queries: list[np.ndarray]) -> tuple[list[float], list[int]]:
    times, totals = [], []
    for query in queries:
        start = time.perf_counter()
        result = index.find(query)
        times.append(time.perf_counter() - start)
        totals.append(result.total)
    return times, totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="files per folder (default: all)")
    parser.add_argument("--queries", type=int, default=1000, help="sampled find queries")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}: nothing to measure")
        return 0
    if not CORE_AVAILABLE:
        print("the compiled core is not built (pip install -e .): nothing to compare")
        return 1
    paths = []
    for folder in FOLDERS:
        paths += sorted(str(p) for p in (CORPUS / folder).rglob("*.sgf"))[: args.limit]
    rng = random.Random(2026)
    print(f"corpus: {', '.join(FOLDERS)} under {CORPUS}, {len(paths)} files"
          + ("" if args.limit is None else f" (the first {args.limit} of each folder)"))
    print(f"cores: {os.cpu_count()}; load average before: {os.getloadavg()[0]:.2f}")
    print()

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "corpus.db"
        builds: list[tuple[str, float, str]] = []

        def build(name: str, db: Path, *, on: bool = False, **options: int) -> None:
            def run() -> None:
                with pure(on), Index(db, create=True) as index:
                    built.append(index.build(paths, **options))

            built: list[object] = []
            seconds, load = timed(run)
            builds.append((name, seconds, load))
            if db.name != "corpus.db":
                db.unlink()

        build("compiled", db)
        with Index(db) as index:
            counts = index.counts()
        size = sum(p.stat().st_size for p in Path(folder).iterdir())
        build("pure (GOHASH_PURE=1)", Path(folder) / "pure.db", on=True)
        build("compiled, --jobs 2", Path(folder) / "jobs2.db", jobs=2)
        build("compiled, --files-per-commit 1", Path(folder) / "per-file.db",
              files_per_commit=1)
        replays = []
        for name, on in (("compiled", False), ("pure (GOHASH_PURE=1)", True)):
            with pure(on):
                seconds, load = timed(lambda: replay_only(paths))
            replays.append((name, seconds, load))

        queries = sample_queries(db, args.queries, rng)
        files = sorted(str(p) for p in (CORPUS / "kgs-6d").rglob("*.sgf"))[:20]
        openings = [np.zeros((19, 19), np.int8)] + [
            position_from_sgf(f, move).to_array() for f in files for move in (1, 2, 3, 4)
        ]
        with Index(db) as index:
            latencies(index, queries[:50])  # warm the page cache
            times, totals = latencies(index, queries)
            opening_times, opening_totals = latencies(index, openings)
            start = time.perf_counter()
            everything = index.find(openings[0], limit=None)
            all_empty = time.perf_counter() - start
            start = time.perf_counter()
            dupes = index.dupes()
            dupes_time = time.perf_counter() - start

    def ms(seconds: float) -> str:
        return f"{seconds * 1e3:.2f} ms"

    def p95(values: list[float]) -> float:
        return statistics.quantiles(values, n=20)[-1]

    positions = counts["occurrences"]
    compiled = builds[0][1]
    print(f"{'index build':<36}{'time':>9}{'positions/s':>13}{'vs compiled':>13}"
          f"{'load before / after':>22}")
    for name, seconds, load in builds:
        print(f"{name:<36}{seconds:>8.1f}s{positions / seconds:>13.0f}"
              f"{seconds / compiled:>12.2f}x{load:>22}")
    print()
    print(f"{'replay alone (no database)':<36}{'time':>9}{'positions/s':>13}{'vs compiled':>13}"
          f"{'load before / after':>22}")
    for name, seconds, load in replays:
        print(f"{name:<36}{seconds:>8.1f}s{positions / seconds:>13.0f}"
              f"{seconds / replays[0][1]:>12.2f}x{load:>22}")
    database = compiled - replays[0][1]
    print(f"the database's share of the compiled build: {database:.1f} s "
          f"({database / compiled:.0%})")
    print()
    print(f"index: {counts['files']} files, {counts['games']} games, {positions} positions, "
          f"{counts['positions']} distinct up to symmetry, {size / 1e6:.0f} MB "
          f"({size / positions:.0f} bytes per position)")
    print()
    print(f"{'find (limit 100)':<34}{'queries':>8}{'median':>11}{'p95':>11}{'max':>11}"
          f"{'matches (median / max)':>25}")
    print(f"{'sampled positions':<34}{len(times):>8}{ms(statistics.median(times)):>11}"
          f"{ms(p95(times)):>11}{ms(max(times)):>11}"
          f"{statistics.median(totals):>13.0f} / {max(totals)}")
    print(f"{'openings (empty board, moves 1-4)':<34}{len(opening_times):>8}"
          f"{ms(statistics.median(opening_times)):>11}{ms(p95(opening_times)):>11}"
          f"{ms(max(opening_times)):>11}"
          f"{statistics.median(opening_totals):>13.0f} / {max(opening_totals)}")
    print(f"{'empty board, all matches':<34}{1:>8}{ms(all_empty):>11}{'':>22}"
          f"{everything.total:>13}")
    print()
    print(f"dupes: {dupes_time:.1f} s, {len(dupes.groups)} groups of duplicates "
          f"({sum(len(g.records) for g in dupes.groups)} records), {len(dupes.prefixes)} prefixes")
    print()
    ratio = builds[1][1] / compiled
    print(f"target: compiled build >= 4x faster than pure: {ratio:.2f}x, "
          f"{'met' if ratio >= 4 else 'NOT met'}")
    target = statistics.median(times) <= 0.010
    print(f"target: median find <= 10 ms: {'met' if target else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
