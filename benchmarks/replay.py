"""Benchmark: replay real 19x19 games on gohash's Board against sgfmill's Board.

Replays the main line of every 19x19 game under ../shared/corpus/ (beside the
checkout) on ``gohash.go.board.Board`` with an incrementally maintained hash, and
the same moves, parsed beforehand with sgfmill, on ``sgfmill.boards.Board.play``
(the baseline: captures only, no hash, no ko or suicide check).  Only the play
loops are timed; both boards get the root's setup stones untimed.  Games that
sgfmill cannot read, or with a move that either board refuses, are left out of
every row and counted.  Prints moves per second, the ratio to sgfmill, process
peak RSS, and the tracemalloc peak of one Board replaying the longest game.

Run: .venv/bin/python benchmarks/replay.py [--limit N] [--repeat R]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path

import sgfmill.boards
import sgfmill.sgf

from gohash.go.board import Board

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
SIZE = 19

Point = tuple[int, int]
Move = tuple[str, Point | None]
Game = tuple[list[Point], list[Point], list[Move]]  # root AB, root AW, main-line moves


def load_games(limit: int | None) -> tuple[list[tuple[Path, Game]], int]:
    """Pre-parsed 19x19 main lines with their files, and how many files could not be read."""
    games: list[tuple[Path, Game]] = []
    unreadable = 0
    for path in sorted(CORPUS.rglob("*.sgf")):
        if limit is not None and len(games) >= limit:
            break
        try:
            game = sgfmill.sgf.Sgf_game.from_bytes(path.read_bytes())
            if game.get_size() != SIZE:
                continue
            root = game.get_root()
            black, white, _ = root.get_setup_stones()
            moves = [
                (colour, point)
                for node in game.get_main_sequence()[1:]
                for colour, point in [node.get_move()]
                if colour is not None
            ]
        except (ValueError, KeyError):
            unreadable += 1
            continue
        games.append((path, (sorted(black), sorted(white), moves)))
    return games, unreadable


def refusal(game: Game) -> str | None:
    """Why either board refuses a move of the game, or None if both replay it."""
    black, white, moves = game
    board = Board(SIZE)
    mill = sgfmill.boards.Board(SIZE)
    board.setup(black, white)
    mill.apply_setup(black, white, [])
    try:
        for colour, point in moves:
            if point is None:
                board.pass_(colour)
            else:
                board.play(point, colour)
                mill.play(*point, colour)
    except ValueError as error:  # both boards' refusals are ValueErrors
        return str(error) or f"sgfmill refuses {colour} {point!r}"
    return None


def time_gohash(games: list[Game], scheme: str) -> float:
    elapsed = 0.0
    for black, white, moves in games:
        board = Board(SIZE, scheme)
        board.setup(black, white)
        play, pass_ = board.play, board.pass_
        start = time.perf_counter()
        for colour, point in moves:
            if point is None:
                pass_(colour)
            else:
                play(point, colour)
        elapsed += time.perf_counter() - start
    return elapsed


def time_sgfmill(games: list[Game]) -> float:
    elapsed = 0.0
    for black, white, moves in games:
        board = sgfmill.boards.Board(SIZE)
        board.apply_setup(black, white, [])
        play = board.play
        start = time.perf_counter()
        for colour, point in moves:
            if point is not None:
                play(point[0], point[1], colour)
        elapsed += time.perf_counter() - start
    return elapsed


def best_times(repeat: int, runs: dict[str, Callable[[], float]]) -> dict[str, float]:
    """Best of ``repeat`` timings of each run; the runs take turns, so drifts in machine
    load hit them all alike."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, run in runs.items():
            best[name] = min(best[name], run())
    return best


def board_memory(game: Game) -> int:
    """Peak bytes allocated while one Board replays ``game`` (history included)."""
    black, white, moves = game
    tracemalloc.start()
    board = Board(SIZE)
    board.setup(black, white)
    for colour, point in moves:
        if point is None:
            board.pass_(colour)
        else:
            board.play(point, colour)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="replay at most this many games")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many timings")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}; nothing to benchmark")
        return 0

    start = time.perf_counter()
    parsed, unreadable = load_games(args.limit)
    games = []
    refused = 0
    for path, game in parsed:
        reason = refusal(game)
        if reason is None:
            games.append(game)
        else:
            refused += 1
            print(f"left out {path.relative_to(CORPUS)}: {reason}")
    moves = sum(len(game[2]) for game in games)
    print(
        f"{len(games)} games of 19x19 from {CORPUS} ({moves} moves; left out: "
        f"{unreadable} unreadable, {refused} with a refused move); parsed in "
        f"{time.perf_counter() - start:.1f} s"
    )

    runs: dict[str, Callable[[], float]] = {
        "sgfmill.boards.Board.play (baseline)": partial(time_sgfmill, games)
    }
    for scheme in ("huima64", "huima64-add", "regular128"):
        runs[f"gohash Board, {scheme} hash"] = partial(time_gohash, games, scheme)
    times = best_times(args.repeat, runs)
    baseline = times["sgfmill.boards.Board.play (baseline)"]
    print(f"{'board':<40} {'seconds':>8} {'moves/s':>10} {'ratio':>6}")
    for name, seconds in times.items():
        print(f"{name:<40} {seconds:8.2f} {moves / seconds:10.0f} {baseline / seconds:6.2f}x")

    longest = max(games, key=lambda game: len(game[2]))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(
        f"peak memory: process RSS {rss / 1024:.0f} MiB (all parsed games held); one Board "
        f"replaying the longest game ({len(longest[2])} moves): "
        f"{board_memory(longest) / 1024:.0f} KiB (tracemalloc peak)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
