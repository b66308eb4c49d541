"""Benchmark of ``gohash index`` against Kombilo 0.8.4 (libkombilo), the peer of issue 24.

Run: ``.venv/bin/python benchmarks/kombilo.py [--limit N] [--queries N] [--seed N]``.

Kombilo is installed from its PyPI source into a cache outside the checkout
(``$GOHASH_BENCH_CACHE/kombilo``, by default ``~/.cache/gohash-bench/kombilo``):
``pip download --no-binary :all: --no-deps kombilo==0.8.4``, unpacked, and its
extension built in place with ``python setup.py build_ext --inplace`` under
``CFLAGS`` and ``CXXFLAGS`` ``-std=gnu++14`` (it needs the apt packages
``libboost-dev`` and ``libsqlite3-dev``; C++17 rejects its ``throw(...)``
specifications; recent setuptools compile C++ with ``CXXFLAGS``).  Nothing of
Kombilo enters the repository.  Where it cannot be downloaded or built, the
benchmark says why and exits 0.  Kombilo runs in ``benchmarks/kombilo_driver.py``
(a subprocess importing only Kombilo's ``libkombilo``, with ``OMP_NUM_THREADS=1``),
which says how its database is built and searched.

The games: the files of ``kgs-6d/`` and ``ai-games/`` under ``../shared/corpus/``
(beside the checkout; 9,154 games), in a seeded random order, all of them or
the first ``--limit``; each side reads the same folder of links to them.

1. Builds, each a whole process, Kombilo then ``gohash index build`` for the
   first 1,000, 2,000, 4,000 and all the games: wall and CPU time, peak RSS
   (the child's ``ru_maxrss``), bytes on disk (every file of the database's
   folder), and per game, to see whether the cost per game stays flat.
2. On the databases of all the games: ``--queries`` full-board searches of
   positions sampled from the games (a random game, a random position of its
   main line, turned by a random element of D4 x colour swap, so it is rarely
   stored as asked), every match asked for (``Index.find(limit=None)``, as
   Kombilo finds every hit); each side makes one untimed pass to warm the page
   cache, then the timed one.  The games hit must be the same; every mismatch
   is printed.  Then ``Index.continuations`` on the same positions and on the
   empty board (median of 3).
3. A table of gohash/Kombilo ratios and issue 24's targets, each met or not.

The machine is shared (2 cores): the 1-minute load average is printed before
and after; wall times under load say less than CPU times, which are printed
too.  A build that another process slowed can look faster than its peer, so
the build target counts as met only where gohash's CPU time meets it too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gohash.group.symmetry import ELEMENTS
from gohash.index.index import Index
from gohash.pipeline.frames import unpack_array
from gohash.pipeline.positions import read_positions

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
FOLDERS = ("kgs-6d", "ai-games")
DRIVER = Path(__file__).resolve().with_name("kombilo_driver.py")
VERSION = "0.8.4"
STEPS = (1000, 2000, 4000)
SHOWN = 10  # games printed per side for a mismatched search
GOHASH = "import sys; from gohash.cli import main; sys.exit(main())"


def cache_folder() -> Path:
    base = os.environ.get("GOHASH_BENCH_CACHE") or Path.home() / ".cache" / "gohash-bench"
    return Path(base) / "kombilo"


def kombilo_env() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": "1"}


def importable(root: Path) -> bool:
    check = f"import sys; sys.path.insert(0, {str(root)!r}); import kombilo.libkombilo"
    done = subprocess.run([sys.executable, "-c", check], env=kombilo_env(),
                          capture_output=True)
    return done.returncode == 0


def install_kombilo(cache: Path) -> tuple[Path | None, str]:
    """The unpacked sdist with its extension built (None if it cannot be), and what was done."""
    root = cache / f"kombilo-{VERSION}"
    if importable(root):
        return root, f"Kombilo {VERSION} from the cache {root}"
    cache.mkdir(parents=True, exist_ok=True)
    sdist = cache / f"kombilo-{VERSION}.tar.gz"
    if not sdist.exists():
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
             f"kombilo=={VERSION}", "--dest", str(cache)],
            capture_output=True, text=True,
        )
        if done.returncode != 0 or not sdist.exists():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return None, f"pip could not download kombilo=={VERSION}: {last}"
    with tarfile.open(sdist) as archive:
        archive.extractall(cache, filter="data")
    log = cache / "build.log"
    flags = {"CFLAGS": "-std=gnu++14", "CXXFLAGS": "-std=gnu++14"}
    print(f"building Kombilo {VERSION} in {root} (a few minutes; log: {log})", flush=True)
    with open(log, "w") as out:
        done = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"],
                              cwd=root, env={**os.environ, **flags},
                              stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        last = (log.read_text(errors="replace").strip().splitlines() or ["no output"])[-1]
        return None, (f"building Kombilo's extension failed (it needs g++, libboost-dev "
                      f"and libsqlite3-dev; log: {log}): {last}")
    if not importable(root):
        return None, f"Kombilo's extension was built in {root} but does not import"
    return root, f"Kombilo {VERSION} built in {root}"


@dataclass
class Run:
    """One whole process: wall and CPU seconds, peak RSS in bytes, its output."""

    wall: float
    cpu: float
    rss: int
    code: int
    stdout: str
    stderr: str


def measure(command: list[str], env: dict[str, str] | None = None) -> Run:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024,
                   child.returncode, out.read(), err.read())


def folder_bytes(folder: Path) -> tuple[int, int]:
    """Bytes and number of the files under ``folder``."""
    sizes = [p.stat().st_size for p in folder.rglob("*") if p.is_file()]
    return sum(sizes), len(sizes)


@dataclass
class Build:
    games: int
    run: Run
    size: int
    files: int


def build_kombilo(root: Path, inputs: Path, folder: Path) -> Build:
    folder.mkdir()
    run = measure([sys.executable, str(DRIVER), str(root), "build", str(folder / "kombilo.db"),
                   str(inputs)], kombilo_env())
    if run.code != 0:
        raise SystemExit(f"Kombilo's build failed:\n{run.stderr}")
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    for refusal in summary["refused"]:
        print(f"  Kombilo did not insert {refusal}")
    return Build(summary["games"], run, *folder_bytes(folder))


def build_gohash(inputs: Path, folder: Path) -> Build:
    folder.mkdir()
    db = folder / "gohash.db"
    run = measure([sys.executable, "-c", GOHASH, "index", "build", str(db), str(inputs)])
    if run.code not in (0, 2):  # 2: some files have errors, reported, and the build went on
        raise SystemExit(f"gohash index build failed ({run.code}):\n{run.stderr}")
    with Index(db) as index:
        games = index.info().games
    return Build(games, run, *folder_bytes(folder))


def link_inputs(files: list[Path], folder: Path) -> None:
    """A folder of links to ``files``, under their paths relative to the corpus."""
    for path in files:
        link = folder / path.relative_to(CORPUS)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(path)


def sample_queries(files: list[Path], count: int,
                   rng: random.Random) -> list[npt.NDArray[np.integer]]:
    """Random main-line positions of random 19x19 games, each turned by a random element."""
    queries = []
    while len(queries) < count:
        path = rng.choice(files)
        rows: list[bytes] = []
        for batch in read_positions([str(path)], packed=True):
            assert batch.packed_offsets is not None and batch.packed_data is not None
            for i in range(len(batch.game)):
                if batch.game[i] == 0 and batch.variation[i] == 0 and batch.size[i] == 19:
                    start, end = batch.packed_offsets[i], batch.packed_offsets[i + 1]
                    rows.append(batch.packed_data[start:end].tobytes())
        if rows:
            position = unpack_array(rng.choice(rows))
            queries.append(ELEMENTS[rng.randrange(len(ELEMENTS))].image_array(position))
    return queries


def kombilo_text(position: npt.NDArray[np.integer]) -> str:
    """A position as Kombilo's pattern text: rows from the top line, ``X``, ``O``, ``.``."""
    return "".join(".XO"[int(v)] for row in position[::-1] for v in row)


@dataclass
class Search:
    """One search: its time, the hits (Kombilo) or occurrences (gohash), the
    games' real paths; Kombilo's ``reset`` before it, untimed otherwise."""

    seconds: float
    hits: int
    files: list[str]
    reset: float = 0.0
    cpu: float = 0.0  # gohash's: its process's CPU time in the search


def search_kombilo(root: Path, db: Path, queries: list[npt.NDArray[np.integer]],
                   scratch: Path) -> list[Search]:
    asked, answers = scratch / "queries.json", scratch / "answers.json"
    asked.write_text(json.dumps([kombilo_text(q) for q in queries]))
    run = measure([sys.executable, str(DRIVER), str(root), "search", str(db), str(asked),
                   str(answers)], kombilo_env())
    if run.code != 0:
        raise SystemExit(f"Kombilo's search failed:\n{run.stderr}")
    return [Search(a["seconds"], a["hits"], a["files"], a["reset"])
            for a in json.loads(answers.read_text())]


def search_gohash(db: Path, queries: list[npt.NDArray[np.integer]]) -> list[Search]:
    with Index(db) as index:
        for query in queries:
            index.find(query, limit=None)
        found = []
        for query in queries:
            start, cpu = time.perf_counter(), time.process_time()
            result = index.find(query, limit=None)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            files = sorted({os.path.realpath(m.record.file) for m in result.matches})
            found.append(Search(seconds, result.total, files, cpu=cpu))
    return found


def continuation_times(
    db: Path, queries: list[npt.NDArray[np.integer]]
) -> tuple[tuple[float, float], tuple[float, float]]:
    """p50 of ``continuations`` over ``queries`` (after a warming pass), and the
    empty board's (median of 3): each as (wall, CPU) seconds."""
    with Index(db) as index:
        for query in queries:
            index.continuations(query)
        times = []
        for query in queries:
            start, cpu = time.perf_counter(), time.process_time()
            index.continuations(query)
            times.append((time.perf_counter() - start, time.process_time() - cpu))
        empty = []
        for _ in range(3):
            start, cpu = time.perf_counter(), time.process_time()
            index.continuations(np.zeros((19, 19), np.int8))
            empty.append((time.perf_counter() - start, time.process_time() - cpu))

    def p50(pairs: list[tuple[float, float]]) -> tuple[float, float]:
        return statistics.median(w for w, _ in pairs), statistics.median(c for _, c in pairs)

    return p50(times), p50(empty)


def growth(first: Build, last: Build, what: str) -> float:
    """How many times ``last``'s per-game ``what`` (wall, cpu or size) is ``first``'s."""
    def per_game(b: Build) -> float:
        return {"wall": b.run.wall, "cpu": b.run.cpu, "size": b.size}[what] / b.games

    return per_game(last) / per_game(first)


def load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="games (files) to use (default: all)")
    parser.add_argument("--queries", type=int, default=30, help="sampled full-board searches")
    parser.add_argument("--seed", type=int, default=2026, help="of the game order and queries")
    args = parser.parse_args()
    if not all((CORPUS / folder).is_dir() for folder in FOLDERS):
        print(f"corpus not found at {CORPUS}: nothing to measure")
        return 0
    root, how = install_kombilo(cache_folder())
    if root is None:
        print(f"skipped: {how}")
        return 0
    print(how)
    rng = random.Random(args.seed)
    files = sorted(p for folder in FOLDERS for p in (CORPUS / folder).rglob("*.sgf"))
    rng.shuffle(files)
    files = files[: args.limit]
    steps = [n for n in STEPS if n < len(files)] + [len(files)]
    print(f"corpus: {', '.join(FOLDERS)} under {CORPUS}, {len(files)} files in a seeded "
          f"random order (seed {args.seed}); builds of the first {', '.join(map(str, steps))}")
    print(f"cores: {os.cpu_count()}, shared; load average before: {load()}")
    print()

    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        builds: list[tuple[int, Build, Build]] = []
        print(f"{'games':>6} {'side':<8}{'wall':>9}{'CPU':>9}{'peak RSS':>11}{'on disk':>11}"
              f"{'files':>6}{'games':>7}{'load':>7}")
        for n in steps:
            inputs = scratch / f"input-{n}"
            link_inputs(files[:n], inputs)
            kombilo = build_kombilo(root, inputs, scratch / f"kombilo-{n}")
            gohash = build_gohash(inputs, scratch / f"gohash-{n}")
            for side, b in (("Kombilo", kombilo), ("gohash", gohash)):
                print(f"{n:>6} {side:<8}{b.run.wall:>8.2f}s{b.run.cpu:>8.2f}s"
                      f"{b.run.rss / 1e6:>8.0f} MB{b.size / 1e6:>8.1f} MB{b.files:>6}"
                      f"{b.games:>7}{load():>7}")
            builds.append((n, kombilo, gohash))
        print(f"gohash index build of {steps[-1]} games, on standard error:")
        for line in builds[-1][2].run.stderr.strip().splitlines()[-SHOWN:]:
            print(f"  {line}")
        print()

        print("per game")
        print(f"{'games':>6}{'Kombilo ms':>12}{'CPU':>7}{'gohash ms':>11}{'CPU':>7}"
              f"{'Kombilo bytes':>15}{'gohash bytes':>14}")
        for n, kombilo, gohash in builds:
            print(f"{n:>6}{kombilo.run.wall / kombilo.games * 1e3:>12.3f}"
                  f"{kombilo.run.cpu / kombilo.games * 1e3:>7.3f}"
                  f"{gohash.run.wall / gohash.games * 1e3:>11.3f}"
                  f"{gohash.run.cpu / gohash.games * 1e3:>7.3f}"
                  f"{kombilo.size / kombilo.games:>15.0f}{gohash.size / gohash.games:>14.0f}")
        if len(builds) > 1:
            (n0, k0, g0), (n1, k1, g1) = builds[0], builds[-1]
            for side, first, last in (("gohash", g0, g1), ("Kombilo", k0, k1)):
                print(f"{side}'s per-game cost, {n1} games against {n0}: wall "
                      f"{growth(first, last, 'wall'):.2f}x, CPU {growth(first, last, 'cpu'):.2f}x, "
                      f"size {growth(first, last, 'size'):.2f}x")
        print()

        n, kombilo, gohash = builds[-1]
        kombilo_db = scratch / f"kombilo-{n}" / "kombilo.db"
        gohash_db = scratch / f"gohash-{n}" / "gohash.db"
        queries = sample_queries(files, args.queries, rng)
        theirs = search_kombilo(root, kombilo_db, queries, scratch)
        ours = search_gohash(gohash_db, queries)
        continuations, empty = continuation_times(gohash_db, queries)

    same = 0
    for i, (k, g) in enumerate(zip(theirs, ours, strict=True)):
        if k.files == g.files:
            same += 1
            if k.hits != g.hits:
                print(f"query {i}: the same {len(k.files)} games; Kombilo counts {k.hits} hits, "
                      f"gohash {g.hits} occurrences")
            continue
        print(f"query {i}: Kombilo hits {len(k.files)} games ({k.hits} hits), "
              f"gohash {len(g.files)} ({g.hits} occurrences)")
        for side, paths in (("Kombilo", set(k.files) - set(g.files)),
                            ("gohash", set(g.files) - set(k.files))):
            for path in sorted(paths)[:SHOWN]:
                print(f"  only {side}: {path}")
            if len(paths) > SHOWN:
                print(f"  and {len(paths) - SHOWN} more only {side}")
    games_hit = sum(len(k.files) for k in theirs)
    print(f"the same games in {same}/{len(queries)} searches "
          f"({games_hit} games hit by Kombilo, {sum(len(g.files) for g in ours)} by gohash)")
    print(f"Kombilo's reset of its game list before each search (untimed): p50 "
          f"{statistics.median(s.reset for s in theirs) * 1e3:.2f} ms")
    print(f"load average after: {load()}")
    print()

    kombilo_p50 = statistics.median(s.seconds for s in theirs)
    gohash_p50 = statistics.median(s.seconds for s in ours)
    gohash_cpu = statistics.median(s.cpu for s in ours)

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    rows = [
        ("build, wall", f"{kombilo.run.wall:.2f} s", f"{gohash.run.wall:.2f} s",
         gohash.run.wall / kombilo.run.wall, "<= Kombilo's",
         verdict(gohash.run.wall <= kombilo.run.wall and gohash.run.cpu <= kombilo.run.cpu)),
        ("build, CPU", f"{kombilo.run.cpu:.2f} s", f"{gohash.run.cpu:.2f} s",
         gohash.run.cpu / kombilo.run.cpu, "(and the CPU's)", ""),
        ("on disk", f"{kombilo.size / 1e6:.1f} MB ({kombilo.files} files)",
         f"{gohash.size / 1e6:.1f} MB ({gohash.files} files)", gohash.size / kombilo.size,
         "<= Kombilo's", verdict(gohash.size <= kombilo.size)),
        ("peak RSS", f"{kombilo.run.rss / 1e6:.0f} MB", f"{gohash.run.rss / 1e6:.0f} MB",
         gohash.run.rss / kombilo.run.rss, "<= Kombilo's",
         verdict(gohash.run.rss <= kombilo.run.rss)),
        (f"full-board search p50 of {len(queries)}", f"{kombilo_p50 * 1e3:.2f} ms",
         f"{gohash_p50 * 1e3:.2f} ms", gohash_p50 / kombilo_p50, "gohash <= 0.15 ms",
         verdict(gohash_p50 <= 0.15e-3)),
        ("  the same, CPU", "", f"{gohash_cpu * 1e3:.2f} ms", None, "(a busy machine's",
         verdict(gohash_cpu <= 0.15e-3)),
        ("continuations p50", "", f"{continuations[0] * 1e3:.2f} ms", None, "<= 1 ms",
         verdict(continuations[0] <= 1e-3)),
        ("  the same, CPU", "", f"{continuations[1] * 1e3:.2f} ms", None, " wall time is",
         verdict(continuations[1] <= 1e-3)),
        ("empty board's continuations", "", f"{empty[0] * 1e3:.1f} ms", None, "<= 50 ms",
         verdict(empty[0] <= 50e-3)),
        ("  the same, CPU", "", f"{empty[1] * 1e3:.1f} ms", None, " inflated)",
         verdict(empty[1] <= 50e-3)),
        ("same games hit", "", f"{same}/{len(queries)}", None, "all",
         verdict(same == len(queries))),
    ]
    print(f"{n} games: {'':<20}{'Kombilo ' + VERSION:>24}{'gohash today':>24}"
          f"{'gohash/Kombilo':>16}  {'target':<19}")
    for name, theirs_text, ours_text, ratio, target, met in rows:
        ratio_text = "" if ratio is None else f"{ratio:.2f}x"
        print(f"{name:<31}{theirs_text:>24}{ours_text:>24}{ratio_text:>16}  {target:<19}{met}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
