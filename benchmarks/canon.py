"""Benchmark ``gohash canon`` against sgfmill parsing and replaying the same games.

Run: ``.venv/bin/python benchmarks/canon.py [--limit N]``.  Every game under
``../shared/corpus/`` (beside the checkout) is read in three ways in one run:

- sgfmill: ``sgf_grammar.parse_sgf_collection``, ``Sgf_game`` and a
  ``sgfmill.boards.Board`` replaying setup and moves of the main line, no hashing;
- ``gohash canon`` in one process (records written to the null device);
- ``gohash canon --jobs 2``.

It prints positions per second and the ratios the issue sets as targets:
one process >= 1.0x sgfmill, ``--jobs 2`` >= 1.8x one process.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sgfmill import boards, sgf, sgf_grammar

from gohash.cli import main

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def sgfmill_replay(files: list[Path]) -> tuple[int, int]:
    """Positions (initial, and after each node with a move or setup) and games replayed."""
    positions = games = 0
    for path in files:
        try:
            trees = sgf_grammar.parse_sgf_collection(path.read_bytes())
        except ValueError:
            continue
        for tree in trees:
            try:
                game = sgf.Sgf_game.from_coarse_game_tree(tree)
                board = boards.Board(game.get_size())
                for node in game.get_main_sequence():
                    has_setup = node.has_setup_stones()
                    if has_setup:
                        board.apply_setup(*node.get_setup_stones())
                    colour, point = node.get_move()
                    if point is not None:
                        board.play(point[0], point[1], colour)
                    if colour is not None or has_setup or node is game.get_root():
                        positions += 1
            except ValueError:
                continue
            games += 1
    return positions, games


def gohash_canon(files: list[Path], jobs: int) -> int:
    """Run ``gohash canon`` like the command line does; return the positions reported."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        main(["canon", *map(str, files), "-o", os.devnull, "--jobs", str(jobs)])
    summary = err.getvalue().splitlines()[-1]  # "gohash canon: F files, G games, P positions, ..."
    return int(summary.split(", ")[2].split()[0])


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def machine_speedup(n: int = 5_000_000) -> float:
    """How much faster two processes do two pieces of pure Python work than one:
    what this machine, with whatever else runs on it now, allows ``--jobs 2``."""
    start = time.perf_counter()
    _spin(n)
    _spin(n)
    serial = time.perf_counter() - start
    with ProcessPoolExecutor(2) as pool:
        pool.submit(_spin, 1).result()  # the workers are up before timing
        start = time.perf_counter()
        list(pool.map(_spin, [n, n]))
        parallel = time.perf_counter() - start
    return serial / parallel


def timed(run: object, *args: object) -> tuple[int, float]:
    start = time.perf_counter()
    positions = run(*args)  # type: ignore[operator]
    seconds = time.perf_counter() - start
    return positions if isinstance(positions, int) else positions[0], seconds


def report() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="only the first N files (a quick look)")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}: nothing to measure")
        return 0
    files = sorted(CORPUS.rglob("*.sgf"))[: args.limit]
    print(f"{len(files)} SGF files under {CORPUS}, {os.cpu_count()} CPUs")
    print(f"load average before: {os.getloadavg()[0]:.2f}\n")
    before = machine_speedup()
    rows = [
        ("sgfmill parse + replay", *timed(sgfmill_replay, files)),
        ("gohash canon", *timed(gohash_canon, files, 1)),
        ("gohash canon --jobs 2", *timed(gohash_canon, files, 2)),
    ]
    after = machine_speedup()
    rates = [positions / seconds for _, positions, seconds in rows]
    print(f"{'':26}{'positions':>11}{'seconds':>10}{'positions/s':>14}  ratio")
    ratios = ["", f"{rates[1] / rates[0]:.2f}x sgfmill", f"{rates[2] / rates[1]:.2f}x one process"]
    for (name, positions, seconds), rate, ratio in zip(rows, rates, ratios, strict=True):
        print(f"{name:26}{positions:>11,}{seconds:>10.2f}{rate:>14,.0f}  {ratio}")
    print("\ntargets: gohash canon >= 1.0x sgfmill; --jobs 2 >= 1.8x one process")
    print(
        f"two processes of pure Python on this machine now: {before:.2f}x one "
        f"(before), {after:.2f}x (after); load average {os.getloadavg()[0]:.2f}"
    )
    if min(before, after) < 1.8:
        print("the machine is busy with other work: the --jobs 2 ratio is held down with it")
    return 0


if __name__ == "__main__":
    sys.exit(report())
