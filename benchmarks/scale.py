"""Benchmark of ``gohash index`` at scale: issue 34's targets on a large real collection.

Run: ``.venv/bin/python benchmarks/scale.py [FOLDER] [--sizes 10000,50000,100000,all]
[--limit N] [--queries N] [--keep DIR]``, or ``benchmarks/scale.py --patterns-of DB``
for the pattern searches alone on an index built before (by ``--keep``).

FOLDER holds the collection: by default ``../shared/scale/tygem`` beside the
checkout (259,454 Tygem games, one ``tar.xz`` a month); where it is absent the
benchmark says so and exits 0.  Its archives and SGF files are taken in name
order; for each size, whole archives and the first members of the next one
(written to a plain tar in the scratch folder) up to that many games; ``all``
is every game, or ``--limit`` games at most.

For each size, in a scratch folder (``--keep DIR`` keeps the indexes there):

1. ``gohash index build`` as a whole process, under ``nice -n 5`` (``--nice``): wall and CPU time
   per game, peak RSS (``ru_maxrss``) and the largest anonymous and file-backed resident
   memory sampled (``RssAnon``, ``RssFile``: its own, and the pages of the files it maps,
   which the OS cache holds), bytes on disk per game, and the bytes it
   wrote (``ru_oublock``, Linux's ``write_bytes`` of ``/proc/<pid>/io`` in
   512-byte blocks) over the index's size.
2. A query process on the index (opened read-only, as ``gohash serve`` does),
   after one untimed pass of each query: ``Index.continuations`` of the empty
   board (p50 of 5); of every position the index keeps an aggregate for, up to
   ``--queries`` of them (p50 and max); of opening positions sampled from the
   games (moves 4-14 of random games, each turned by a random element: p50 and
   max, whatever path answers them); ``Index.find`` of positions past the
   opening (moves 30 and later) so turned, the first page (p50); and
   ``Index.dupes`` over the index.  Its peak RSS, and the largest anonymous and
   file-backed resident memory seen after each query (``/proc/self/status``'s
   ``RssAnon`` and ``RssFile``): the process's own, and the index's mapped
   files, which the OS cache holds.

Then a table per size, and issue 34's targets on the largest, each met or not;
and on the largest index, pattern search: the patterns of
``benchmarks/pattern.py`` (its ``PATTERNS`` and ``search_gohash``),
``--pattern-runs`` timed runs each, their p50 against their kind's target.
The machine is shared (2 cores): the 1-minute load average is printed before
and after each step, and CPU times beside wall times; a wall time under load
says less than its CPU time.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parents[2] / "shared" / "scale" / "tygem"
SIZES = "10000,50000,100000,all"
GOHASH = "import sys; from gohash.cli import main; sys.exit(main(sys.argv[1:]))"
TARGETS = {
    "openings": 20.0,  # ms, the empty board and every frequent position
    "find": 1.0,  # ms, p50 past the opening
    "dupes": 60.0,  # s
    "build_cpu": 0.5,  # ms of CPU a game
    "disk": 3.0,  # KB a game
    "written": 3.0,  # bytes written over the index's size
    "memory": 1024.0,  # MB, a build and a query process
}

QUERIES = r'''
import json, os, random, resource, statistics, sys, time
import numpy as np
from gohash.group.symmetry import ELEMENTS
from gohash.index.index import Index

db, queries, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)


peaks = {"RssAnon": 0, "RssFile": 0}


def sample():
    """The largest anonymous and file-backed resident memory seen so far (bytes):
    the process's own, and the files it maps (the OS cache's)."""
    with open("/proc/self/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in peaks:
                peaks[name] = max(peaks[name], int(value.split()[0]) * 1024)


def timed(run, times=1):
    run()  # untimed: the page cache and the index's own caches
    walls, cpus = [], []
    for _ in range(times):
        start, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append((time.perf_counter() - start) * 1e3)
        cpus.append((time.process_time() - cpu) * 1e3)
        sample()
    return statistics.median(walls), statistics.median(cpus)


def summary(times):
    """p50 and max of wall times, p50 and max of CPU times (ms); None if none."""
    if not times:
        return None
    walls, cpus = [w for w, _ in times], [c for _, c in times]
    return statistics.median(walls), max(walls), statistics.median(cpus), max(cpus)


def turned(stones):
    return ELEMENTS[rng.randrange(len(ELEMENTS))].image_array(stones)


out = {}
with Index(db, read_only=True) as index:
    con = index._db
    size = con.execute("SELECT size FROM games GROUP BY size ORDER BY count(*) DESC "
                       "LIMIT 1").fetchone()[0]
    out["empty"] = timed(lambda: index.continuations(np.zeros((size, size), np.int8)), 5)
    frames = [np.frombuffer(f, np.int8).reshape(s, s) for s, f in con.execute(
        "SELECT size, frame FROM aggregates")]
    out["aggregates"] = len(frames)
    rng.shuffle(frames)
    frequent = [timed(lambda f=f: index.continuations(turned(f)), 3) for f in frames[:queries]]
    out["frequent"] = summary(frequent)
    ids = [i for (i,) in con.execute("SELECT id FROM games WHERE positions > 40")]
    openings, finds, hits = [], [], []
    for game_id in rng.sample(ids, min(queries, len(ids))):
        game = index.game(game_id)
        early = turned(game.positions[rng.randint(4, 14)].stones)
        late = turned(game.positions[rng.randint(30, len(game.positions) - 1)].stones)
        openings.append(timed(lambda: index.continuations(early, to_move="any"), 3))
        finds.append(timed(lambda: hits.append(index.find(late).total), 3))
    out["openings"] = summary(openings)
    out["find"] = summary(finds)
    out["find_hits"] = statistics.median(hits) if hits else None
    start, cpu = time.perf_counter(), time.process_time()
    dupes = index.dupes()
    out["dupes"] = (time.perf_counter() - start, time.process_time() - cpu)
    sample()
    out["dupe_groups"] = len(dupes.groups)
out["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
out["anon"], out["file"] = peaks["RssAnon"], peaks["RssFile"]
print(json.dumps(out))
'''


@dataclass
class Run:
    """One whole process: wall and CPU seconds, peak RSS and bytes written."""

    wall: float
    cpu: float
    rss: int
    written: int
    code: int
    stdout: str
    stderr: str
    anon: int = 0  # the largest RssAnon sampled: the process's own memory
    file: int = 0  # the largest RssFile sampled: mapped files' pages, the OS cache's


def measure(command: list[str], niceness: int) -> Run:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(["nice", "-n", str(niceness), *command], stdout=out,
                                 stderr=err)
        peaks = {"RssAnon": 0, "RssFile": 0}
        done = threading.Event()

        def sample() -> None:
            # ru_maxrss counts the pages of the files the process maps (the
            # postings file it merges), which the OS cache holds: sampled apart.
            while not done.wait(0.2):
                try:
                    status = Path(f"/proc/{child.pid}/status").read_text()
                except OSError:
                    return
                for line in status.splitlines():
                    name, _, value = line.partition(":")
                    if name in peaks:
                        peaks[name] = max(peaks[name], int(value.split()[0]) * 1024)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(child.pid, 0)
        done.set()
        sampler.join()
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024,
                   usage.ru_oublock * 512, os.waitstatus_to_exitcode(status), out.read(),
                   err.read(), peaks["RssAnon"], peaks["RssFile"])


def load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def sources(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and (p.suffix == ".sgf" or ".tar" in p.name or p.suffix == ".zip"))


def members(path: Path) -> int:
    """Games of a source: members of an archive that are SGF files, or 1."""
    if ".tar" not in path.name:
        return 1
    with tarfile.open(path) as tar:
        return sum(1 for m in tar if m.isfile() and m.name.endswith(".sgf"))


def inputs(files: list[Path], counts: list[int], games: int, scratch: Path) -> list[Path]:
    """Whole sources up to ``games`` games, and the first members of the next one in
    a plain tar of the scratch folder."""
    chosen: list[Path] = []
    total = 0
    for path, count in zip(files, counts, strict=True):
        if total + count <= games:
            chosen.append(path)
            total += count
            continue
        if total < games and ".tar" in path.name:
            part = scratch / f"{path.name.split('.tar')[0]}-first-{games - total}.tar"
            if not part.exists():
                with tarfile.open(path) as tar, tarfile.open(part, "w") as out:
                    for member in tar:
                        if total >= games:
                            break
                        if member.isfile() and member.name.endswith(".sgf"):
                            out.addfile(member, tar.extractfile(member))
                            total += 1
            chosen.append(part)
        break
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=FOLDER)
    parser.add_argument("--sizes", default=SIZES,
                        help=f"numbers of games to build, 'all' for every one ({SIZES})")
    parser.add_argument("--limit", type=int, help="games at most")
    parser.add_argument("--queries", type=int, default=30, help="positions of each kind")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--keep", type=Path, help="build the indexes in this folder, kept")
    parser.add_argument("--pattern-runs", type=int, default=3,
                        help="timed runs of each pattern on the largest index (0: none)")
    parser.add_argument("--nice", type=int, default=5,
                        help="niceness added to the builds and queries (default 5)")
    parser.add_argument("--patterns-of", type=Path, metavar="DB",
                        help="only the pattern searches, on this index built before")
    args = parser.parse_args()
    if args.patterns_of:
        if not args.patterns_of.is_file():
            raise SystemExit(f"no index at {args.patterns_of}")
        pattern_rows(args.patterns_of, args.pattern_runs or 3)
        return 0
    if not args.folder.is_dir():
        print(f"skipped: no collection at {args.folder} (give a folder of SGF files or "
              "archives)")
        return 0
    files = sources(args.folder)
    if not files:
        print(f"skipped: no SGF file or archive in {args.folder}")
        return 0
    print(f"{args.folder}: {len(files)} sources; {load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="gohash-scale-") as temporary:
        scratch = args.keep or Path(temporary)
        scratch.mkdir(parents=True, exist_ok=True)
        sizes = []
        for size in args.sizes.split(","):
            games = 1 << 62 if size == "all" else int(size)
            sizes.append(min(games, args.limit) if args.limit else games)
        counts: list[int] = []
        wanted = max(s for s in sizes if s < 1 << 62) if any(s < 1 << 62 for s in sizes) else 0
        for path in files:  # counted as far as the sizes below "all" need
            if sum(counts) >= wanted:
                break
            counts.append(members(path))
        counts += [1 << 40] * (len(files) - len(counts))  # never cut: taken whole
        rows = []
        for games in sorted(set(sizes)):
            db = scratch / f"scale-{games if games < 1 << 62 else 'all'}.db"
            for extra in ("", "-wal", "-shm", "-journal", "-postings"):
                Path(f"{db}{extra}").unlink(missing_ok=True)
            chosen = files if games >= 1 << 62 else inputs(files, counts, games, scratch)
            print(f"build of {len(chosen)} sources; {load()}", flush=True)
            build = measure([sys.executable, "-c", GOHASH, "index", "build", str(db),
                             *map(str, chosen)], args.nice)
            if build.code not in (0, 2):
                raise SystemExit(f"gohash index build failed ({build.code}):\n{build.stderr}")
            summary = build.stderr.strip().splitlines()[-1]
            built = int(summary.split(" games, ")[0].rsplit(" ", 1)[-1].replace(",", ""))
            disk = sum(Path(f"{db}{e}").stat().st_size
                       for e in ("", "-wal", "-shm", "-journal", "-postings")
                       if Path(f"{db}{e}").exists())
            print(f"  {summary}\n  {build.wall:.0f} s wall, {build.cpu:.0f} s CPU; {load()}",
                  flush=True)
            query = measure([sys.executable, "-c", QUERIES, str(db), str(args.queries),
                             str(args.seed)], args.nice)
            if query.code != 0:
                raise SystemExit(f"the queries failed:\n{query.stderr}")
            answers = json.loads(query.stdout.strip().splitlines()[-1])
            print(f"  queries: {query.wall:.0f} s wall; {load()}", flush=True)
            rows.append((built, build, disk, answers))
            print(f"  {HEADER}\n  {row(built, build, disk, answers)}", flush=True)
            if not args.keep and games != max(sizes):
                db.unlink()
        print_table(rows)
        if args.pattern_runs:
            pattern_rows(db, args.pattern_runs)
    return 0


HEADER = ("| games | build wall / CPU a game | build peak RSS | disk a game | written / size "
          "| empty board | aggregated positions | openings sampled "
          "| find past the opening | dupes | query RSS |")


def row(games: int, build: Run, disk: int, a: dict[str, Any]) -> str:
    """One size's row of the table."""
    return (f"| {games:,} | {build.wall / games * 1e3:.2f} / {build.cpu / games * 1e3:.2f} ms "
            f"| {build.rss / 2**20:.0f} MB ({build.anon / 2**20:.0f} anonymous, "
            f"{build.file / 2**20:.0f} file pages) | {disk / games / 1e3:.2f} KB "
            f"| {build.written / disk:.1f}x | {a['empty'][0]:.1f} ms (CPU {a['empty'][1]:.1f}) "
            f"| {spread(a['frequent'])} ({a['aggregates']:,} kept) "
            f"| {spread(a['openings'])} "
            f"| {spread(a['find'], p50=True)} ({a['find_hits'] or 0:.0f} hits) "
            f"| {a['dupes'][0]:.1f} s (CPU {a['dupes'][1]:.1f}; {a['dupe_groups']:,} groups) "
            f"| {a['rss'] / 2**20:.0f} MB ({a['anon'] / 2**20:.0f} anonymous, "
            f"{a['file'] / 2**20:.0f} file pages) |")


def print_table(rows: list[tuple[int, Run, int, dict[str, Any]]]) -> None:
    print(f"\n{HEADER}\n" + "| --- " * 11 + "|")
    for games, build, disk, a in rows:
        print(row(games, build, disk, a))
    print("(times of continuations and find: p50 / max wall, then CPU, in ms)")
    games, build, disk, a = rows[-1]
    first = rows[0]
    growth = (build.cpu / games) / (first[1].cpu / first[0])
    # Wall times on a shared machine; CPU times beside them in the table.
    opening_worst = max(a["empty"][0], a["frequent"][1] if a["frequent"] else 0.0)
    checks = [
        ("openings: the empty board and every aggregated position", opening_worst,
         TARGETS["openings"], "ms"),
        ("find past the opening, p50", a["find"][0] if a["find"] else 0.0, TARGETS["find"],
         "ms"),
        ("dupes", a["dupes"][0], TARGETS["dupes"], "s"),
        ("build CPU a game", build.cpu / games * 1e3, TARGETS["build_cpu"], "ms"),
        ("disk a game", disk / games / 1e3, TARGETS["disk"], "KB"),
        ("written / index size", build.written / disk, TARGETS["written"], "x"),
        ("build peak RSS", build.rss / 2**20, TARGETS["memory"], "MB"),
        ("build anonymous memory, largest sampled", build.anon / 2**20, TARGETS["memory"],
         "MB"),
        ("query process peak RSS", a["rss"] / 2**20, TARGETS["memory"], "MB"),
        ("query process anonymous memory, largest sampled", a["anon"] / 2**20,
         TARGETS["memory"], "MB"),
    ]
    print(f"\nTargets at {games:,} games (build CPU a game {growth:.2f}x that at "
          f"{first[0]:,} games):")
    for name, value, target, unit in checks:
        print(f"  {name}: {value:.2f} {unit} (target <= {target:g} {unit}): "
              f"{'met' if value <= target else 'NOT met'}")


def spread(times: list[float] | None, p50: bool = False) -> str:
    """p50 / max wall (CPU p50 / max) in ms, as the query process summed them up."""
    if not times:
        return "-"
    wall, worst, cpu, cpu_worst = times
    if p50:
        return f"{wall:.2f} ms (CPU {cpu:.2f})"
    return f"{wall:.1f} / {worst:.1f} ms (CPU {cpu:.1f} / {cpu_worst:.1f})"


PATTERN_TARGETS = {"corner": 50.0, "full": 10.0, "side": 200.0, "anywhere": 1000.0}
"""Issue 34's p50 of a pattern's first page, by kind (ms; ``full``: a fully
specified corner)."""


def pattern_rows(db: Path, runs: int) -> None:
    """Pattern search on the largest index: the patterns of benchmarks/pattern.py
    (``PATTERNS``, searched by its ``search_gohash``, which the pattern side of
    issue 34 owns), each one's p50 against its kind's target."""
    spec = importlib.util.spec_from_file_location(
        "pattern_benchmark", Path(__file__).resolve().with_name("pattern.py"))
    assert spec is not None and spec.loader is not None
    pattern = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = pattern
    spec.loader.exec_module(pattern)
    print(f"\nPattern search on {db.name} ({runs} timed runs each; {load()}):", flush=True)
    # The first page's count of matches: listing every match's record (Kombilo's
    # comparison needs the games) would hold millions of them at once.
    answers = pattern.search_gohash(db, runs, listed=False)
    # The files the searches wrote beside the index, and a search by an Index
    # opened afresh (as a CLI command is), which reads its store from them.
    from gohash.index.index import Index

    with Index(db, read_only=True) as index:
        games = index.counts()["games"]
        first = pattern.PATTERNS[0]
        start, start_cpu = time.perf_counter(), time.process_time()
        index.pattern(first.diagram(), **first.options())
        wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    print(f"\nA search by an Index opened afresh ({first.name}): {wall * 1e3:.0f} ms "
          f"(CPU {cpu * 1e3:.0f} ms)")
    index_bytes = sum(Path(f"{db}{e}").stat().st_size for e in ("", "-postings"))
    for extra in ("-patterns19", "-patterns19-store", "-patterns19-answers"):
        path = Path(f"{db}{extra}")
        if path.exists():
            print(f"{path.name}: {path.stat().st_size / 2**20:,.0f} MB, "
                  f"{path.stat().st_size / games / 1e3:.2f} KB a game")
            index_bytes += path.stat().st_size
    print(f"disk with the pattern search's files: {index_bytes / games / 1e3:.2f} KB a game")
    print("\n| pattern | p50 wall | p50 CPU | target | matches |\n| --- | --- | --- | --- | --- |")
    for shape, answer in zip(pattern.PATTERNS, answers, strict=True):
        wall = statistics.median(answer.seconds) * 1e3
        target = PATTERN_TARGETS[shape.kind]
        print(f"| {shape.name} | {wall:.0f} ms | {statistics.median(answer.cpu) * 1e3:.0f} ms "
              f"| {target:g} ms: {'met' if wall <= target else 'NOT met'} | {answer.hits:,} |")
    print()
    for kind, target in PATTERN_TARGETS.items():
        kept = [a for s, a in zip(pattern.PATTERNS, answers, strict=True) if s.kind == kind]
        if kept:
            wall = statistics.median(statistics.median(a.seconds) for a in kept) * 1e3
            cpu = statistics.median(statistics.median(a.cpu) for a in kept) * 1e3
            print(f"{kind}: p50 over {len(kept)} patterns {wall:.0f} ms (CPU {cpu:.0f} ms; "
                  f"target <= {target:g} ms): {'met' if wall <= target else 'NOT met'}")


if __name__ == "__main__":
    raise SystemExit(main())
