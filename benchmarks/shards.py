"""Benchmark a sharded index: its build on 1 and 2 Dask workers, query latency by kind with
1, 2 and 4 shards, the fan-out's cost per query, and the merge's share of a query.

Run: ``nice .venv/bin/python benchmarks/shards.py [--games DIR] [--limit N] [--repeat R]
[--work DIR] [--no-dask-build]``.  The games of ``DIR`` (default
``../shared/scale/tygem``, one ``tar.xz`` a month; skipped with a message where it is
absent), the first ``--limit`` of them (default all), are copied into ``--parts``
uncompressed tar archives (default 64) of consecutive games, which spread over the shards
as the index's rule puts them (a hash of their names: the games per shard are printed).
``--work DIR`` keeps the parts, the indexes and the build's figures there: a later run
with the same ``--work`` builds only what is missing and times the queries again
(printing the build's figures as measured then).  Then, on this machine (2 cores,
shared: CPU times beside wall times):

- **build**: one index in this process (the baseline), then 2 shards on a cluster of
  1 Dask worker and of 2 (``dask scheduler`` and one-thread ``dask worker`` processes,
  as ``benchmarks/dask_cluster.py`` starts them): wall time, the speed-up of 2 workers
  over 1, the cluster's CPU (workers and scheduler) beyond the baseline's, a worker's
  peak memory (``--no-dask-build``: the 2 shards built by 2 processes instead); and 4
  shards built by 2 processes.
- **queries by kind**, p50 of wall and CPU time over ``--repeat`` runs of each query, on
  one index and on 1, 2 and 4 shards searched in threads: find past the opening, find
  and continuations of the empty board and of a position at move 8, pattern searches
  (corner, side, anywhere: regions cut from the games' own positions), dupes once.
  For each, the share of the fan-out and merge: of the wall time, what is beyond the
  slowest shard's answer of each fan-out; of the CPU time, what the calling thread
  spent beyond the shard it asked itself.
- **fan-out overhead**: p50 of 300 finds on data/sgf (a tiny index), one index
  against 1, 2 and 4 shards: what asking and merging costs when the shards do nothing.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shutil
import statistics
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dask_cluster import cluster, worker_cpu
from distributed import Client

from gohash.go.board import Board
from gohash.index.index import Index
from gohash.index.shards import ShardedIndex, _Cluster, build_shards
from gohash.index.store import build_index

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT.parent / "shared" / "scale" / "tygem"
DATA = ROOT / "data" / "sgf"


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


def games_in(parts: Path) -> int:
    """The games of the tar parts prepared before."""
    count = 0
    for part in parts.glob("*.tar"):
        with tarfile.open(part) as tar:
            count += len(tar.getnames())
    return count


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
    """A sharded index whose shards' own work is timed: the wall time of the slowest
    shard of each fan-out (summed over a query's fan-outs) and the CPU of the shard
    calls made in the calling thread.  The rest of the query is the fan-out and the
    merge."""

    def __init__(self, index: ShardedIndex) -> None:
        self.index = index
        self.shard_wall = 0.0
        self.inline_cpu = 0.0
        self._slowest: list[float] = []
        self._caller = threading.get_ident()
        fan = index._fan
        assert not isinstance(fan, _Cluster)
        fan.indexes = [_TimedShard(shard, self) for shard in fan.indexes]  # type: ignore[misc]
        ask = index._ask

        def timed(*args: Any, **kwargs: Any) -> Any:
            self._slowest.append(0.0)
            try:
                return ask(*args, **kwargs)
            finally:
                self.shard_wall += self._slowest.pop()

        index._ask = timed  # type: ignore[method-assign]

    def record(self, wall: float, cpu: float) -> None:
        if self._slowest:
            self._slowest[-1] = max(self._slowest[-1], wall)
        if threading.get_ident() == self._caller:
            self.inline_cpu += cpu

    def run(self, query: Callable[[], Any]) -> tuple[float, float, float, float]:
        """``query`` run once: its wall and CPU seconds, and the fan-out and merge's
        share of each."""
        self.shard_wall = self.inline_cpu = 0.0
        cpu, own = time.process_time(), time.thread_time()
        start = time.perf_counter()
        query()
        wall = time.perf_counter() - start
        cpu, own = time.process_time() - cpu, time.thread_time() - own
        return (wall, cpu, max(wall - self.shard_wall, 0.0) / wall,
                max(own - self.inline_cpu, 0.0) / cpu if cpu else 0.0)


class _TimedShard:
    """One shard's :class:`Index`, its calls timed into ``timer``."""

    def __init__(self, index: Index, timer: Timed) -> None:
        self._index, self._timer = index, timer

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._index, name)
        if not callable(method):
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            cpu, start = time.thread_time(), time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self._timer.record(time.perf_counter() - start, time.thread_time() - cpu)

        return call


def plain(index: Index, query: Callable[[], Any]) -> tuple[float, float, None, None]:
    cpu, start = time.process_time(), time.perf_counter()
    query()
    return time.perf_counter() - start, time.process_time() - cpu, None, None


def build_all(work: Path, inputs: list[str], count: int, figures: dict[str, Any],
              dask: bool) -> None:
    """The indexes timed: one in this process, 2 shards on 1 and 2 Dask workers (or,
    without ``dask``, in 2 processes), 4 shards in 2 processes, 1 shard (the one
    index's file).  A build whose index is in ``work`` already is not run again;
    ``figures`` gets those that ran, and is saved after each."""
    def save(name: str, values: dict[str, Any]) -> None:
        figures[name] = {**values, "load": os.getloadavg()[0],
                         "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        (work / "build.json").write_text(json.dumps(figures, indent=1))

    figures["games"] = count
    if not (work / "one.db").exists():
        cpu = time.process_time()
        start = time.perf_counter()
        build_index(str(work / "one.db"), inputs)
        save("one", {"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                     "peak_mb": peak_rss_mb(), "bytes": os.path.getsize(work / "one.db")})
    for workers in (1, 2) if dask else ():
        if f"dask-{workers}" in figures or (work / f"dask-{workers}").exists():
            continue
        wall, cluster_cpu, peak = build_on_cluster(workers, inputs,
                                                   str(work / f"dask-{workers}"))
        save(f"dask-{workers}", {"wall": wall, "cpu": cluster_cpu, "peak_mb": peak})
    # The 1-worker build is the same 2 shards again: only its figures are kept.
    shutil.rmtree(work / "dask-1", ignore_errors=True)
    for shards, name in ((2, "dask-2"), (4, "s4")):
        if (work / name).exists():
            continue
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        build_shards(str(work / name), inputs, shards=shards, jobs=2)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        save(f"{shards} shards in 2 processes", {
            "wall": time.perf_counter() - start,
            "cpu": after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime,
            "peak_mb": after.ru_maxrss / 1024})
    if not (work / "s1").exists():
        build_shards(str(work / "s1"), [], shards=1)
        shutil.copyfile(work / "one.db", work / "s1" / "shard-000.db")


def print_build(figures: dict[str, Any]) -> None:
    count = figures["games"]
    one = figures.get("one")
    if one is not None:
        print(f"build ({one['date']}, load {one['load']:.1f}), one index in this process: "
              f"{one['wall']:.1f} s wall, {one['cpu']:.1f} s CPU ({one['cpu'] / count * 1000:.2f} "
              f"ms a game), {one['bytes'] / 1e6:.0f} MB ({one['bytes'] / count / 1000:.2f} KB a "
              f"game); peak RSS {one['peak_mb']:.0f} MB")
    for workers in (1, 2):
        run = figures.get(f"dask-{workers}")
        if run is None:
            continue
        overhead = f" ({run['cpu'] / one['cpu'] - 1:+.0%} over one index in one process)" if (
            one is not None) else ""
        print(f"build, 2 shards on {workers} Dask worker{'s' * (workers > 1)} ({run['date']}, "
              f"load {run['load']:.1f}): {run['wall']:.1f} s wall, cluster CPU {run['cpu']:.1f} "
              f"s{overhead}; a worker's peak RSS {run['peak_mb']:.0f} MB")
    if "dask-1" in figures and "dask-2" in figures:
        print(f"  2 workers / 1 worker: "
              f"{figures['dask-1']['wall'] / figures['dask-2']['wall']:.2f}x in wall time")
    for shards in (2, 4):
        run = figures.get(f"{shards} shards in 2 processes")
        if run is not None:
            print(f"build, {shards} shards in 2 processes ({run['date']}, load "
                  f"{run['load']:.1f}): {run['wall']:.1f} s wall, {run['cpu']:.1f} s CPU, a "
                  f"process's peak RSS {run['peak_mb']:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=Path, default=GAMES)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--parts", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--work", type=Path, default=None,
                        help="keep the parts and indexes here and use them again")
    parser.add_argument("--dask-build", action=argparse.BooleanOptionalAction, default=True,
                        help="time the build of 2 shards on 1 and 2 Dask workers (without: "
                        "the 2 shards are built in 2 processes)")
    args = parser.parse_args()
    if not any(args.games.glob("*.tar.xz")):
        print(f"skipped: no *.tar.xz in {args.games}")
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="gohash-shards-"))
    work.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {}
    if (work / "build.json").exists():
        figures = json.loads((work / "build.json").read_text())
    if (work / "parts").exists():
        count = figures.get("games") or games_in(work / "parts")
    else:
        count = prepare(args.games, args.limit, args.parts, work / "parts")
    inputs = sorted(str(p) for p in (work / "parts").glob("*.tar"))
    print(f"{args.games.name}: {count:,} games in {len(inputs)} tar parts; load "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    build_all(work, inputs, count, figures, args.dask_build)
    print_build(figures)

    # -- queries ------------------------------------------------------------------------
    dbs = {"one index": str(work / "one.db"), "1 shard": str(work / "s1"),
           "2 shards": str(work / "dask-2"), "4 shards": str(work / "s4")}
    with Index(dbs["one index"], read_only=True) as one:
        kinds = queries(one)
    Row = tuple[float, float, float | None, float | None]
    table: dict[str, dict[str, Row]] = {}
    for name, db in dbs.items():
        if name == "1 shard":  # the same file: its pattern files too, made by the queries
            for made in (work).glob("one.db-patterns*"):
                shutil.copyfile(made, work / "s1" / made.name.replace("one.db", "shard-000.db"))
        with (Index(db, read_only=True) if name == "one index"
              else ShardedIndex(db, read_only=True)) as index:
            if isinstance(index, ShardedIndex):
                sizes = [os.path.getsize(p) for p in index.shard_paths]
                games = [i.info().games for i in index._fan.indexes]  # type: ignore[union-attr]
                print(f"{name}: games per shard {games}, MB per shard "
                      f"{[round(s / 1e6) for s in sizes]}")
                timer = Timed(index)
                measure: Callable[[Callable[[], Any]], Row] = timer.run
            else:
                measure = partial(plain, index)
            for kind, run in kinds.items():
                query = partial(run, index)
                query()  # warm: caches, the pattern store
                runs = [measure(query) for _ in range(args.repeat)]
                table.setdefault(kind, {})[name] = median_row(runs)
            table.setdefault("dupes", {})[name] = measure(index.dupes)
    print(f"\nquery p50 over {args.repeat} runs (dupes: one run), wall and CPU ms, and the "
          f"fan-out and merge's share of each; {count:,} games; peak RSS of this process "
          f"{peak_rss_mb():.0f} MB; load {os.getloadavg()[0]:.1f}")
    print(f"{'kind':24}{'index':>10}{'wall ms':>11}{'CPU ms':>11}{'merge/wall':>12}"
          f"{'merge/CPU':>11}")
    worst = 0.0
    for kind, row in table.items():
        for name in dbs:
            wall, cpu, merge_wall, merge_cpu = row[name]
            shares = ("" if merge_wall is None or merge_cpu is None
                      else f"{merge_wall:12.1%}{merge_cpu:11.1%}")
            worst = max(worst, merge_cpu or 0.0)
            print(f"{kind:24}{name:>10}{wall * 1000:11.1f}{cpu * 1000:11.1f}{shares}")
    print(f"the merge's largest share of a query's CPU: {worst:.1%}")

    # -- fan-out overhead -------------------------------------------------------------------
    tiny = work / "tiny"
    sgf = [str(p) for p in sorted(DATA.glob("*.sgf"))]
    build_index(str(tiny) + ".db", sgf, overwrite=True)
    board = Board.from_array(np.zeros((9, 9), dtype=np.int8))
    with Index(str(tiny) + ".db", read_only=True) as one:
        base = p50(lambda: one.find(board), 300)
    print(f"\nfan-out on data/sgf (find of the empty 9x9 board): one index {base * 1e6:.0f} us")
    for shards in (1, 2, 4):
        build_shards(f"{tiny}-{shards}", sgf, shards=shards, overwrite=True)
        with ShardedIndex(f"{tiny}-{shards}", read_only=True) as sharded:
            took = p50(lambda: sharded.find(board), 300)
        print(f"  {shards} shard{'s' * (shards > 1)}: {took * 1e6:.0f} us, "
              f"+{(took - base) * 1e6:.0f} us a query")
    if args.work is None:
        shutil.rmtree(work)


def median_row(runs: list[Any]) -> Any:
    """The median of each column of ``runs`` (None stays None)."""
    return tuple(None if column[0] is None else statistics.median(column)
                 for column in zip(*runs, strict=True))


if __name__ == "__main__":
    main()
