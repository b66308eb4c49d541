"""Benchmark a sharded index: its build on 1 and 2 Dask workers, query latency by kind with
1, 2 and 4 shards, the fan-out's cost per query, and the merge's share of a query.

Run: ``nice .venv/bin/python benchmarks/shards.py [--games DIR] [--limit N] [--repeat R]``.
The games of ``DIR`` (default ``../shared/scale/tygem``, one ``tar.xz`` a month; skipped
with a message where it is absent), the first ``--limit`` of them (default all), are
copied into ``--parts`` uncompressed tar archives (default 64) of consecutive games,
which spread over the shards as the index's rule puts them (a hash of their names:
the games per shard are printed). Then, on this machine (2 cores):

- **build**: one index in this process (the baseline), then 2 shards on a cluster of
  1 Dask worker and of 2 (``dask scheduler`` and one-thread ``dask worker`` processes,
  as ``benchmarks/dask_cluster.py`` starts them): wall time, the speed-up of 2 workers
  over 1, and the cluster's CPU (workers and scheduler) beyond the baseline's.
- **queries by kind**, p50 over ``--repeat`` runs of each query, on one index and on
  1, 2 and 4 shards searched in threads: find past the opening, find and
  continuations of the empty board and of a position at move 8, pattern searches
  (corner, side, anywhere: regions cut from the games' own positions), dupes once (up
  to 20,000 games: it holds every posting in memory).
  For each, the merge's share: the query's time beyond the shards' answers.
- **fan-out overhead**: p50 of 300 finds on data/sgf (a tiny index), one index
  against 1, 2 and 4 shards: what asking and merging costs when the shards do nothing.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import shutil
import statistics
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dask_cluster import cluster, worker_cpu
from distributed import Client

from gohash.go.board import Board
from gohash.index.index import Index
from gohash.index.shards import ShardedIndex, build_shards
from gohash.index.store import build_index

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT.parent / "shared" / "scale" / "tygem"
DATA = ROOT / "data" / "sgf"
DUPES_UP_TO = 20_000
"""Dupes is timed up to this many games: it reads every posting into memory."""


def prepare(source: Path, limit: int | None, parts: int, out: Path) -> int:
    """The first ``limit`` games of ``source``'s archives as ``parts`` tar files; the count."""
    games: list[tuple[str, bytes]] = []
    for archive in sorted(source.glob("*.tar.xz")):
        with tarfile.open(archive) as tar:
            for member in tar:
                if member.isfile() and member.name.lower().endswith(".sgf"):
                    f = tar.extractfile(member)
                    assert f is not None
                    games.append((member.name, f.read()))
                    if limit is not None and len(games) >= limit:
                        break
        if limit is not None and len(games) >= limit:
            break
    out.mkdir(parents=True)
    per = -(-len(games) // parts)
    for k in range(parts):
        with tarfile.open(out / f"part-{k:03d}.tar", "w") as tar:
            for name, data in games[k * per:(k + 1) * per]:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return len(games)


def p50(run: Callable[[], Any], repeat: int) -> float:
    run()  # warm: caches, the pattern store
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def scheduler_cpu(address: str) -> float:
    with Client(address, timeout="30s") as client:
        return float(client.run_on_scheduler(time.process_time))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_on_cluster(workers: int, inputs: list[str], db: str) -> tuple[float, float, float]:
    """Wall seconds, cluster CPU seconds and the largest worker's peak RSS (MB) of 2
    shards built on ``workers`` workers."""
    with cluster(workers) as address:
        with Client(address, timeout="30s") as client:
            client.run(lambda: __import__("gohash.index.shards"))  # warm: imported everywhere
        before = worker_cpu(address) + scheduler_cpu(address)
        start = time.perf_counter()
        build_shards(db, inputs, shards=2, dask=address)
        wall = time.perf_counter() - start
        with Client(address, timeout="30s") as client:
            peak = max(client.run(peak_rss_mb).values())
        return wall, worker_cpu(address) + scheduler_cpu(address) - before, peak


def queries(index: Index) -> dict[str, Callable[[Index | ShardedIndex], Any]]:
    """The queries timed, by kind, from the index's own games."""
    records = sorted(r for r, rec in index.records().items() if rec.size == 19)
    rng = np.random.default_rng(1)
    picked = rng.choice(records, size=min(5, len(records)), replace=False)
    positions = [index.game(int(g)).positions for g in picked]
    late = [Board.from_array(p[min(60, len(p) - 1)].stones) for p in positions]
    early = Board.from_array(positions[0][min(8, len(positions[0]) - 1)].stones,
                             to_move="b")
    empty = Board(19)
    stones = positions[1][min(80, len(positions[1]) - 1)].stones

    def cut(rows: range, cols: range) -> str:
        return "\n".join("".join(".XO"[stones[r, c]] if r in rows and c in cols else "-"
                                 for c in range(19)) for r in range(18, -1, -1))

    corner = cut(range(0, 6), range(0, 6))
    side = cut(range(0, 5), range(6, 12))
    anywhere = cut(range(7, 11), range(7, 11))
    return {
        "find, move 60": lambda ix: [ix.find(b, limit=50) for b in late],
        "find, empty board": lambda ix: ix.find(empty, limit=50),
        "continuations, empty": lambda ix: ix.continuations(empty),
        "continuations, move 8": lambda ix: ix.continuations(early),
        "pattern, corner": lambda ix: ix.pattern(corner, limit=50),
        "pattern, side": lambda ix: ix.pattern(side, limit=50),
        "pattern, anywhere": lambda ix: ix.pattern(anywhere, limit=50),
    }


class Timed:
    """A sharded index whose shards' answering time is summed (the rest is the merge)."""

    def __init__(self, index: ShardedIndex) -> None:
        self.index = index
        self.asking = 0.0
        ask = index._ask

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return ask(*args, **kwargs)
            finally:
                self.asking += time.perf_counter() - start

        index._ask = timed  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=Path, default=GAMES)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--parts", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not any(args.games.glob("*.tar.xz")):
        print(f"skipped: no *.tar.xz in {args.games}")
        return
    work = Path(tempfile.mkdtemp(prefix="gohash-shards-"))
    count = prepare(args.games, args.limit, args.parts, work / "parts")
    inputs = sorted(str(p) for p in (work / "parts").glob("*.tar"))
    print(f"{args.games.name}: {count:,} games in {len(inputs)} tar parts; load "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    # -- build ------------------------------------------------------------------------
    cpu = time.process_time()
    start = time.perf_counter()
    build_index(str(work / "one.db"), inputs)
    base_wall, base_cpu = time.perf_counter() - start, time.process_time() - cpu
    size = os.path.getsize(work / "one.db")
    print(f"build, one index in this process: {base_wall:.1f} s wall, {base_cpu:.1f} s CPU "
          f"({base_cpu / count * 1000:.2f} ms a game), {size / 1e6:.0f} MB "
          f"({size / count / 1000:.2f} KB a game); peak RSS {peak_rss_mb():.0f} MB")
    walls = {}
    for workers in (1, 2):
        wall, cluster_cpu, peak = build_on_cluster(workers, inputs,
                                                   str(work / f"dask-{workers}"))
        walls[workers] = wall
        print(f"build, 2 shards on {workers} Dask worker{'s' * (workers > 1)}: {wall:.1f} s wall, "
              f"cluster CPU {cluster_cpu:.1f} s ({cluster_cpu / base_cpu - 1:+.0%} over one "
              f"index in one process); a worker's peak RSS {peak:.0f} MB")
    print(f"  2 workers / 1 worker: {walls[1] / walls[2]:.2f}x")

    # -- queries ------------------------------------------------------------------------
    # One shard holds the inputs in the order one index does: the same file. Two
    # shards were built on the cluster.
    dbs = {"one index": str(work / "one.db"), "1 shard": str(work / "s1"),
           "2 shards": str(work / "dask-2"), "4 shards": str(work / "s4")}
    build_shards(dbs["1 shard"], [], shards=1)
    shutil.copyfile(dbs["one index"], Path(dbs["1 shard"]) / "shard-000.db")
    build_shards(dbs["4 shards"], inputs, shards=4, jobs=2)
    with Index(dbs["one index"], read_only=True) as one:
        kinds = queries(one)
    table: dict[str, dict[str, tuple[float, float | None]]] = {}
    for name, db in dbs.items():
        with (Index(db, read_only=True) if name == "one index"
              else ShardedIndex(db, read_only=True)) as index:
            if isinstance(index, ShardedIndex):
                sizes = [os.path.getsize(p) for p in index.shard_paths]
                games = [i.info().games for i in index._fan.indexes]  # type: ignore[union-attr]
                print(f"{name}: games per shard {games}, MB per shard "
                      f"{[round(s / 1e6) for s in sizes]}")
            timer = Timed(index) if isinstance(index, ShardedIndex) else None
            for kind, run in kinds.items():
                if timer is not None:
                    timer.asking = 0.0
                    start = time.perf_counter()
                    run(index)
                    total = time.perf_counter() - start
                    merge = (total - timer.asking) / total
                else:
                    merge = None
                table.setdefault(kind, {})[name] = p50(lambda r=run: r(index), args.repeat), merge
            if count <= DUPES_UP_TO:
                start = time.perf_counter()
                index.dupes()
                table.setdefault("dupes", {})[name] = time.perf_counter() - start, None
    print(f"\nquery p50 (ms), merge share of the query; {count:,} games; peak RSS of this "
          f"process {peak_rss_mb():.0f} MB")
    print(f"{'kind':24}" + "".join(f"{name:>20}" for name in dbs))
    for kind, row in table.items():
        cells = []
        for name in dbs:
            seconds, merge = row[name]
            cells.append(f"{seconds * 1000:10.1f}" + (f" ({merge:5.1%})" if merge is not None
                                                       else " " * 9))
        print(f"{kind:24}" + "".join(f"{c:>20}" for c in cells))

    # -- fan-out overhead -------------------------------------------------------------------
    tiny = work / "tiny"
    sgf = [str(p) for p in sorted(DATA.glob("*.sgf"))]
    build_index(str(tiny) + ".db", sgf)
    board = Board.from_array(np.zeros((9, 9), dtype=np.int8))
    with Index(str(tiny) + ".db", read_only=True) as one:
        base = p50(lambda: one.find(board), 300)
    print(f"\nfan-out on data/sgf (find of the empty 9x9 board): one index {base * 1e6:.0f} us")
    for shards in (1, 2, 4):
        build_shards(f"{tiny}-{shards}", sgf, shards=shards)
        with ShardedIndex(f"{tiny}-{shards}", read_only=True) as sharded:
            took = p50(lambda: sharded.find(board), 300)
        print(f"  {shards} shard{'s' * (shards > 1)}: {took * 1e6:.0f} us, "
              f"+{(took - base) * 1e6:.0f} us a query")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
