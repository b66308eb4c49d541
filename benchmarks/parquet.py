"""Benchmark ``gohash canon --format parquet`` against the batch API with no output, and
JSON Lines; sizes per position; DuckDB over the output.

Run: ``.venv/bin/python benchmarks/parquet.py [--repeat N]``.  The files of ``kgs-6d/``
and ``ai-games/`` under ``../shared/corpus/`` are read in one run, each way ``--repeat``
times (default 3), alternating, best time kept (the machine is shared):

- ``read_positions()`` with no output: the batch API, the floor (``frames=True`` too, the
  work ``--position`` adds);
- :func:`gohash.tools.dataset.write_dataset` in this process: the dataset of
  ``gohash canon --format parquet -o DIR``, without and with ``--position``;
- :func:`gohash.tools.canon.write_records` writing JSON Lines to a file, without and with
  ``--position``.

It prints positions per second, the ratio of Parquet to no output (target >= 0.8),
bytes per position of the ``positions`` table and of JSON Lines, and the time DuckDB
takes to count the distinct keys over the whole output (target <= 0.5 s), and the
distinct positions (frames).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

from gohash.pipeline.positions import read_positions
from gohash.tools.canon import CanonOptions, write_records
from gohash.tools.dataset import write_dataset

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def no_output(paths: list[str], frames: bool) -> int:
    return sum(len(batch) for batch in read_positions(paths, frames=frames))


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def best(runs: dict[str, Callable[[], int]], repeat: int) -> dict[str, tuple[float, int]]:
    """Each run's best time over ``repeat`` rounds, rounds alternating the runs."""
    times: dict[str, tuple[float, int]] = {}
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            count = run()
            seconds = time.perf_counter() - start
            if name not in times or seconds < times[name][0]:
                times[name] = (seconds, count)
    return times


def duckdb_seconds(query: str, repeat: int) -> tuple[float, object]:
    seconds, value = float("inf"), None
    for _ in range(repeat):
        with duckdb.connect() as con:
            start = time.perf_counter()
            value = con.execute(query).fetchone()
            seconds = min(seconds, time.perf_counter() - start)
    return seconds, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = [str(CORPUS / "kgs-6d"), str(CORPUS / "ai-games")]
    work = Path(tempfile.mkdtemp(prefix="gohash-parquet-"))
    try:
        def parquet(position: bool) -> Callable[[], int]:
            out = str(work / ("pq-position" if position else "pq"))
            return lambda: write_dataset(paths, out, CanonOptions(position=position),
                                         overwrite=True).positions

        def jsonl(position: bool) -> Callable[[], int]:
            out = work / ("position.jsonl" if position else "canon.jsonl")

            def run() -> int:
                with open(out, "w", encoding="utf-8") as f:
                    return write_records(paths, f.write, CanonOptions(position=position)).positions

            return run

        times = best({
            "read_positions(), no output": lambda: no_output(paths, False),
            "canon --format parquet": parquet(False),
            "canon --format jsonl": jsonl(False),
            "read_positions(frames=True), no output": lambda: no_output(paths, True),
            "canon --format parquet --position": parquet(True),
            "canon --format jsonl --position": jsonl(True),
        }, args.repeat)
        print(f"kgs-6d + ai-games, best of {args.repeat}; load {os.getloadavg()[0]:.1f} "
              f"on {os.cpu_count()} cores")
        for name, (seconds, count) in times.items():
            print(f"  {name:36} {count:9,} positions {seconds:6.2f} s "
                  f"{count / seconds:12,.0f} positions/s")
        for plain, written in (("read_positions(), no output", "canon --format parquet"),
                               ("read_positions(frames=True), no output",
                                "canon --format parquet --position")):
            ratio = times[plain][0] / times[written][0]
            print(f"  {written} at {ratio:.0%} of {plain} (target >= 80%)")
        count = times["canon --format parquet"][1]
        sizes = {
            "parquet positions": folder_bytes(work / "pq" / "positions"),
            "parquet positions, --position": folder_bytes(work / "pq-position" / "positions"),
            "jsonl": (work / "canon.jsonl").stat().st_size,
            "jsonl, --position": (work / "position.jsonl").stat().st_size,
        }
        for name, size in sizes.items():
            print(f"  {name:32} {size:13,} bytes {size / count:7.1f} bytes/position")
        print(f"  whole datasets: {folder_bytes(work / 'pq'):,} and "
              f"{folder_bytes(work / 'pq-position'):,} bytes (games and files tables included)")
        for what, column in (("keys", "key"), ("positions (frames)", "position")):
            query = (f"SELECT count(DISTINCT {column}) "
                     f"FROM read_parquet('{work}/pq-position/positions/*.parquet')")
            seconds, value = duckdb_seconds(query, args.repeat)
            print(f"  DuckDB count(DISTINCT {column}): {value[0]:,} distinct {what} "  # type: ignore[index]
                  f"in {seconds:.3f} s" + (" (target <= 0.5 s)" if column == "key" else ""))
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
