"""Benchmark ``gohash canon --format parquet --dask``: one worker against two, and what the
scheduler costs per partition.

Run: ``.venv/bin/python benchmarks/dask_cluster.py [--partition-size BYTES] [--repeat N]``.  The
files of ``kgs-6d/`` and ``ai-games/`` under ``../shared/corpus/`` are written as a canon
dataset (without ``--position``), each way ``--repeat`` times (default 2), alternating,
best time kept:

- in this process (:func:`gohash.cluster.write_dataset`, no Dask);
- on a cluster of one worker process (one thread), then of two: ``dask scheduler`` and
  ``dask worker`` processes on 127.0.0.1, started before the timing (their start-up
  is not the walk's) and given by their ``tcp://`` address, as ``--dask tcp://...``
  would be.  (Not a ``LocalCluster``: its scheduler runs in this process, and its
  event loop takes the GIL from the run being timed.)

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
from contextlib import ExitStack, contextmanager
from pathlib import Path

from distributed import Client

from gohash.cluster import partitions, write_dataset

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
BIN = Path(sys.executable).parent


def nothing(number: int) -> int:
    return number


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
            client.run(lambda: __import__("gohash.columnar"))  # warm: imported everywhere
        yield address
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partition-size", type=int, default=1 << 18)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    paths = [str(CORPUS / "kgs-6d"), str(CORPUS / "ai-games")]
    count = len(partitions(paths, args.partition_size))
    work = Path(tempfile.mkdtemp(prefix="gohash-dask-"))
    with ExitStack() as stack:
        addresses = {n: stack.enter_context(cluster(n)) for n in (1, 2)}
        runs = {"this process": None, "1 worker": addresses[1], "2 workers": addresses[2]}
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
        with Client(addresses[1]) as client:
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
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
