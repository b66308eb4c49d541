"""Benchmark ``gohash canon --format parquet --dask``: one worker against two, and what the
scheduler costs per partition.

Run: ``.venv/bin/python benchmarks/dask_cluster.py [--partition-size BYTES] [--repeat N]``.  The
files of ``kgs-6d/`` and ``ai-games/`` under ``../shared/corpus/`` are written as a canon
dataset (without ``--position``), each way ``--repeat`` times (default 2), alternating,
best time kept:

- in this process (:func:`gohash.cluster.write_dataset`, no Dask);
- on a ``LocalCluster`` of one worker process (one thread), then of two, started before
  the timing (their start-up is not the walk's) and given by their ``tcp://`` address,
  as ``--dask tcp://...`` would be.

It prints positions per second, the speed-up of two workers over one (target >= 1.7x;
the machine's load is printed too: other work on a 2-core machine holds two workers
down with it), and the scheduler's overhead per partition two ways: the time a
one-worker run takes beyond the same partitions written in this process, per
partition; and the round trip of a task that does nothing.  From the one-worker rate
it estimates the time and workers for 20 million games.  (The script is not named
``dask.py``: run as a script, that name would shadow the dask package.)
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from distributed import Client, LocalCluster

from gohash.cluster import partitions, write_dataset

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def nothing(number: int) -> int:
    return number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partition-size", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    paths = [str(CORPUS / "kgs-6d"), str(CORPUS / "ai-games")]
    count = len(partitions(paths, args.partition_size))
    work = Path(tempfile.mkdtemp(prefix="gohash-dask-"))
    clusters = {n: LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                dashboard_address=None) for n in (1, 2)}
    try:
        for cluster in clusters.values():
            with Client(cluster) as client:  # warm: gohash imported in every worker
                client.run(lambda: __import__("gohash.columnar"))
        runs = {"this process": None, "1 worker": clusters[1].scheduler_address,
                "2 workers": clusters[2].scheduler_address}
        best: dict[str, float] = {}
        games = positions = 0
        for _ in range(args.repeat):
            for name, address in runs.items():
                start = time.perf_counter()
                summary = write_dataset(paths, str(work / "out"),
                                        partition_bytes=args.partition_size, dask=address)
                seconds = time.perf_counter() - start
                best[name] = min(best.get(name, seconds), seconds)
                games, positions = summary.games, summary.positions
        with Client(clusters[1]) as client:
            client.gather(client.map(nothing, range(50)))
            start = time.perf_counter()
            client.gather(client.map(nothing, range(1000), key=[f"n{i}" for i in range(1000)]))
            round_trip = (time.perf_counter() - start) / 1000
        print(f"kgs-6d + ai-games: {games:,} games, {positions:,} positions, {count} partitions "
              f"of {args.partition_size:,} bytes; best of {args.repeat}; load "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        for name, seconds in best.items():
            print(f"  {name:13} {seconds:6.2f} s {positions / seconds:11,.0f} positions/s "
                  f"{games / seconds:8,.0f} games/s")
        print(f"  2 workers / 1 worker: {best['1 worker'] / best['2 workers']:.2f}x "
              "(target >= 1.7x)")
        overhead = (best["1 worker"] - best["this process"]) / count
        print(f"  scheduler overhead per partition: {overhead * 1000:.1f} ms (one worker "
              f"against this process); a no-op task's round trip {round_trip * 1000:.2f} ms")
        rate = games / best["1 worker"]
        hours = 20e6 / rate / 3600
        print(f"  20 million games at {rate:,.0f} games/s per worker: {hours:.1f} worker-hours; "
              f"{hours / 16 * 60:.0f} min on 16 workers, {hours / 64 * 60:.0f} min on 64")
    finally:
        for cluster in clusters.values():
            cluster.close()
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
