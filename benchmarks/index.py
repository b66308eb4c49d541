"""Benchmark of ``gohash index``: build throughput against ``gohash canon``, and find latency.

Run: ``.venv/bin/python benchmarks/index.py [--jobs N] [--queries N]``.

1. Baseline: :func:`gohash.canon.canon` over the whole corpus (``../shared/corpus``),
   records discarded: the walk and the canonical key of every position.
2. :meth:`gohash.index.Index.build` of the same paths into an index in a
   temporary folder, one transaction per file (the default), then again with
   100 files per transaction; the ratio to the baseline is the database's cost.
3. Latency of :meth:`Index.find` (library call, default limit of 100 matches),
   over a seeded sample of positions (a random position of a random game, so
   common positions are drawn more often), each turned by a random element
   of the group so the query is rarely in its canonical frame; then separately
   over opening positions (the empty board and the first moves of some games),
   which occur thousands of times.
4. The time of :meth:`Index.dupes` over the whole index.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from gohash.canon import CanonOptions, canon
from gohash.frames import unpack_frames
from gohash.index import Index, position_from_sgf
from gohash.symmetry import ELEMENTS

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
GROUPED = 100


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
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for both builds")
    parser.add_argument("--queries", type=int, default=1000, help="sampled find queries")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}: nothing to measure")
        return 0
    paths = [str(CORPUS)]
    rng = random.Random(2026)

    start = time.perf_counter()
    walked = canon(paths, lambda text: None, CanonOptions(), jobs=args.jobs)
    canon_time = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "corpus.db"
        start = time.perf_counter()
        with Index(db, create=True) as index:
            built = index.build(paths, jobs=args.jobs)
        build_time = time.perf_counter() - start
        size = sum(p.stat().st_size for p in Path(folder).iterdir())

        grouped_db = Path(folder) / "grouped.db"
        start = time.perf_counter()
        with Index(grouped_db, create=True) as index:
            index.build(paths, jobs=args.jobs, files_per_commit=GROUPED)
        grouped_time = time.perf_counter() - start
        grouped_db.unlink()

        queries = sample_queries(db, args.queries, rng)
        files = sorted(str(p) for p in (CORPUS / "kgs-6d").rglob("*.sgf"))[:20]
        openings = [np.zeros((19, 19), np.int8)] + [
            position_from_sgf(f, move).to_array() for f in files for move in (1, 2, 3, 4)
        ]
        with Index(db) as index:
            counts = index.counts()
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

    print(f"corpus: {CORPUS} ({walked.files} files, {walked.games} games)")
    print(f"jobs: {args.jobs}")
    print()
    print(f"{'build':<34}{'time':>10}{'positions':>12}{'positions/s':>14}{'ratio':>8}")
    print(f"{'gohash canon (baseline)':<34}{canon_time:>9.1f}s{walked.positions:>12}"
          f"{walked.positions / canon_time:>14.0f}{1.0:>8.2f}")
    print(f"{'gohash index build':<34}{build_time:>9.1f}s{built.positions:>12}"
          f"{built.positions / build_time:>14.0f}{build_time / canon_time:>8.2f}")
    print(f"{f'  --files-per-commit {GROUPED}':<34}{grouped_time:>9.1f}s{built.positions:>12}"
          f"{built.positions / grouped_time:>14.0f}{grouped_time / canon_time:>8.2f}")
    print()
    print(f"index: {counts['games']} games, {counts['occurrences']} positions, "
          f"{counts['positions']} distinct up to symmetry, {size / 1e6:.0f} MB "
          f"({size / counts['occurrences']:.0f} bytes per position); {len(built.errors)} errors")
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
    target = statistics.median(times) <= 0.010
    print(f"target: median find <= 10 ms: {'met' if target else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
