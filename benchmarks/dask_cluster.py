"""Benchmark ``gohash canon --format parquet --dask``: one worker against two, and what the
scheduler costs per partition.

Run: ``.venv/bin/python benchmarks/dask_cluster.py [--partition-size BYTES] [--repeat N]``.  The
files of ``kgs-6d/`` and ``ai-games/`` under ``../shared/corpus/`` are written as a canon
dataset (without ``--position``), each way ``--repeat`` times (default 3), alternating,
best time kept:

- in this process (:func:`gohash.tools.dataset.write_dataset`, no Dask);
- on a cluster of one worker process (one thread), then of two: ``dask scheduler`` and
  ``dask worker`` processes on 127.0.0.1, given by their ``tcp://`` address, as
  ``--dask tcp://...`` would be.  Each cluster is started for its run and stopped
  after it, so no idle cluster takes CPU from the one timed, and runs once untimed
  first: its start-up is not the walk's.  (Not a ``LocalCluster``: its scheduler
  runs in this process, and its event loop takes the GIL from the run being timed.)

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
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from distributed import Client

from gohash.tools.dataset import partitions, write_dataset

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
BIN = Path(sys.executable).parent


def nothing(number: int) -> int:
    return number


WORKERS = ("1 worker", "2 workers")


def worker_cpu(address: str | None) -> float:
    """CPU seconds the cluster's worker processes have used (0 without a cluster).  A
    worker's Parquet writer runs in a thread of its own, so one worker can keep more
    than one core busy: on two cores, that leaves two workers less than twice as much."""
    if address is None:
        return 0.0
    with Client(address, timeout="30s") as client:
        return sum(client.run(time.process_time).values())


@contextmanager
def cluster(workers: int) -> Iterator[str]:
    """A scheduler and ``workers`` one-thread worker processes; their address."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    processes = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1",
                                   "--port", str(port), "--no-dashboard"], **quiet)]
    try:
        processes += [subprocess.Popen([str(BIN / "dask"), "worker", address, "--nworkers", "1",
                                        "--nthreads", "1", "--no-dashboard"], **quiet)
                      for _ in range(workers)]
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(workers, timeout=60)
            client.run(lambda: __import__("gohash.tools.parquet"))  # warm: imported everywhere
        yield address
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partition-size", type=int, default=1 << 18)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = [str(CORPUS / "kgs-6d"), str(CORPUS / "ai-games")]
    count = len(partitions(paths, args.partition_size))
    work = Path(tempfile.mkdtemp(prefix="gohash-dask-"))
    best: dict[str, float] = {}
    games = positions = 0

    cores: dict[str, float] = {}  # of the best run: the workers' CPU seconds per second

    def timed(name: str, address: str | None) -> None:
        nonlocal games, positions
        before = worker_cpu(address)
        start = time.perf_counter()
        summary = write_dataset(paths, str(work / "out"), partition_bytes=args.partition_size,
                                dask=address, overwrite=True)
        seconds = time.perf_counter() - start
        if seconds < best.get(name, float("inf")):
            best[name] = seconds
            cores[name] = (worker_cpu(address) - before) / seconds
        games, positions = summary.games, summary.positions

    for _ in range(args.repeat):
        timed("this process", None)
        # One cluster at a time: an idle cluster's processes take a tenth of a core.
        for workers in (1, 2):
            with cluster(workers) as address:
                timed("warm-up", address)  # a fresh worker's first tasks set up pyarrow
                timed(f"{workers} worker{'s' if workers > 1 else ''}", address)
    with cluster(1) as address:
        with Client(address) as client:
            client.gather(client.map(nothing, range(50)))
            start = time.perf_counter()
            client.gather(client.map(nothing, range(1000), key=[f"n{i}" for i in range(1000)]))
            round_trip = (time.perf_counter() - start) / 1000
        print(f"kgs-6d + ai-games: {games:,} games, {positions:,} positions, {count} partitions "
              f"of {args.partition_size:,} bytes; best of {args.repeat}; load "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        del best["warm-up"]
        for name, seconds in best.items():
            print(f"  {name:13} {seconds:6.2f} s {positions / seconds:11,.0f} positions/s "
                  f"{games / seconds:8,.0f} games/s"
                  + (f", workers busy {cores[name]:.2f} cores" if name in WORKERS else ""))
        print(f"  2 workers / 1 worker: {best['1 worker'] / best['2 workers']:.2f}x "
              "(target >= 1.7x)")
        overhead = (best["1 worker"] - best["this process"]) / count
        print(f"  scheduler overhead per partition: {overhead * 1000:.1f} ms (one worker "
              f"against this process); a no-op task's round trip {round_trip * 1000:.2f} ms")
        rate = games / best["1 worker"]
        hours = 20e6 / rate / 3600
        print(f"  20 million games at {rate:,.0f} games/s per worker: {hours:.1f} worker-hours; "
              f"{hours / 16 * 60:.0f} min on 16 workers, {hours / 64 * 60:.0f} min on 64")
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
