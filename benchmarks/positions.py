"""Benchmark ``gohash.pipeline.positions.read_positions`` against sgfmill parsing and replaying.

Run: ``.venv/bin/python benchmarks/positions.py [--limit N] [--repeat N]``.  The files of
``kgs-6d/`` and ``ai-games/`` under ``../shared/corpus/`` (beside the checkout)
are read in one run by:

- a raw read of every file's bytes (the floor for SGF bytes per second);
- sgfmill: parse, ``Sgf_game`` and ``sgfmill.boards.Board`` replaying the main
  line (as in ``benchmarks/canon.py``), no hashing;
- ``read_positions()`` with huima64 hashes and canonical keys (the compiled core,
  the pure walker for the files it leaves) given every file's path, the pure
  path alone, ``read_positions()`` given the two folders (as ``gohash canon
  FOLDER`` is: no format sniffing of each path beforehand), and given the
  same bytes already in memory (``Source`` objects: the pipeline without
  ``gohash.sgf.sources.read_input``);

each compiled way ``--repeat`` times in turn (default 3; the best time is kept:
the machine is shared, and sgfmill's one run of 15 s evens out what a run of
0.5 s does not), and the compiled path's time is split into its parts: reading, the core's
scan and replay, root text, canonical keys.  It prints positions per second,
the ratio to sgfmill (target >= 30x, stretch 100x), SGF bytes per second
against the raw read, and peak memory (tracemalloc peak of one more
``read_positions()`` run, and the process's peak RSS).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from functools import partial
from pathlib import Path

from gohash.pipeline.positions import (
    CORE_AVAILABLE,
    _key_table_for,
    _root_rows,
    _scheme_at,
    read_positions,
)
from gohash.sgf.inputs import Input, Source
from gohash.sgf.sources import read_input

sys.path.insert(0, str(Path(__file__).resolve().parent))
from canon import sgfmill_replay

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def raw_read(files: list[Path]) -> int:
    total = 0
    for path in files:
        with open(path, "rb") as f:
            total += len(f.read())
    return total


def run_positions(files: list[Path] | list[Source], pure: bool) -> tuple[int, int]:
    """Positions, and files the pure walker replayed (paths may be folders)."""
    count = fallback = 0
    sources = [p if isinstance(p, Source) else str(p) for p in files]
    for batch in read_positions(sources, pure=pure):
        count += len(batch)
        fallback += batch.pure_files
    return count, fallback


def parts(files: list[Path]) -> dict[str, float]:
    """CPU seconds of each part of the compiled path, run separately."""
    from gohash.pipeline import _sgf_replay

    clock = time.process_time
    start = clock()
    sources = [s for p in files for s in read_input(Input("file", str(p)))]
    seconds = {"reading (sgf.read_input)": clock() - start}
    replayer = _sgf_replay.Replayer(
        _key_table_for(partial(_scheme_at, "huima64")), variations=False, add=False,
        capacity=1 << 16,
    )
    roots = []
    hashes = []
    left: list[Source] = []
    start = clock()
    for file_id, source in enumerate(sources):
        assert isinstance(source, Source)
        found = replayer.scan_file(source.data, file_id)
        if found is None or not all(replayer.replay_game(g) for g in range(len(found))):
            left.append(source)
        else:
            roots.append((found, file_id, source))
        if len(replayer) >= 1 << 16:
            hashes.append(replayer.take()[0]["hash_hi"])
    hashes.append(replayer.take()[0]["hash_hi"])
    seconds["core: scan, replay, hash"] = clock() - start
    start = clock()
    for found, file_id, source in roots:
        if None in _root_rows(found, file_id):
            left.append(source)
    seconds["root text"] = clock() - start
    keys = _scheme_at("huima64", 19)
    start = clock()
    for part in hashes:
        keys.canonical_array(part)
    seconds["canonical keys (numpy)"] = clock() - start
    start = clock()
    run_positions(left, True)
    seconds[f"walker for the {len(left)} files left"] = clock() - start
    return seconds


def report() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="only the first N files (a quick look)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each compiled way, in turn, best kept")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}: nothing to measure")
        return 0
    if not CORE_AVAILABLE:
        print("the compiled core is not built: read_positions() is measured on the pure path")
    folders = (CORPUS / "kgs-6d", CORPUS / "ai-games")
    files = [path for folder in folders for path in sorted(folder.rglob("*.sgf"))][: args.limit]
    raw_read(files)  # the files are in the page cache for every row
    start, cpu = time.perf_counter(), time.process_time()
    nbytes = raw_read(files)
    raw_seconds, raw_cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"{len(files)} files, {nbytes / 1e6:.1f} MB from kgs-6d and ai-games under {CORPUS}\n")

    rows = []
    start, cpu = time.perf_counter(), time.process_time()
    sgfmill_positions = sgfmill_replay(files)
    rows.append(("sgfmill parse + replay", sgfmill_positions, time.perf_counter() - start,
                 time.process_time() - cpu, ""))
    start, cpu = time.perf_counter(), time.process_time()
    count, fallback = run_positions(files, True)
    rows.append(("read_positions(), pure path", count, time.perf_counter() - start,
                 time.process_time() - cpu, f"{fallback} files on the walker"))
    # The same bytes already in memory: read_positions() less gohash.sgf.sources.read_input.
    in_memory = [Source(str(p), p.read_bytes()) for p in files]
    compiled = [("read_positions()", files)]
    if args.limit is None:
        compiled.append(("read_positions(), folders", list(folders)))
    compiled.append(("read_positions(), bytes given", in_memory))
    best: dict[str, tuple[str, int, float, float, str]] = {}
    for _ in range(args.repeat):
        for name, sources in compiled:
            start, cpu = time.perf_counter(), time.process_time()
            count, fallback = run_positions(sources, False)
            row = (name, count, time.perf_counter() - start, time.process_time() - cpu,
                   f"{fallback} files on the walker")
            if name not in best or row[2] < best[name][2]:
                best[name] = row
    rows += [best[name] for name, _ in compiled]
    del in_memory
    rows.append(("raw read of the files", 0, raw_seconds, raw_cpu, ""))

    # Ratios by CPU time too: on a machine shared with other work, wall time
    # charges this process for what the others run.
    base, cpu_base = rows[0][1] / rows[0][2], rows[0][1] / rows[0][3]
    print(f"{'':24}{'positions':>10}{'wall s':>8}{'cpu s':>7}{'positions/s':>12}{'MB/s':>7}"
          f"  {'ratio (wall, cpu)':<20}")
    for name, count, seconds, cpu_seconds, extra in rows:
        rate = f"{count / seconds:>12,.0f}" if count else f"{'':>12}"
        ratio = (f"{count / seconds / base:5.1f}x, {count / cpu_seconds / cpu_base:5.1f}x sgfmill"
                 if count else "")
        print(f"{name:24}{count:>10,}{seconds:>8.2f}{cpu_seconds:>7.2f}{rate}"
              f"{nbytes / seconds / 1e6:>7.1f}  {ratio}  {extra}".rstrip())
    fast = rows[2][2]
    print(f"\npositions(): {fast / raw_seconds:.1f}x the time of a raw read of the same files")
    print("target: read_positions() >= 30x sgfmill (stretch 100x)")

    if CORE_AVAILABLE:
        print("\nwhere the compiled path's CPU time goes (each part run alone):")
        for name, seconds in parts(files).items():
            print(f"  {name:28}{seconds:7.2f} s")

    tracemalloc.start()
    run_positions(files, False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory: {peak / 2**20:.1f} MiB traced during read_positions(); "
          f"{rss:.0f} MiB peak RSS of this process (all rows)")
    return 0


if __name__ == "__main__":
    sys.exit(report())
