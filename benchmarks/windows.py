"""Measurement for issue 34's design: would postings of games by 3x3 window narrow pattern search?

Run: ``.venv/bin/python benchmarks/windows.py DB [--every N]`` on an index whose
19x19 pattern file has been written (any pattern search writes it).

A 3x3 window's content is exact in 3^9 codes, so no hash is needed: each code
is reduced to the least of its 16 images (the 8 symmetries of the square,
colours exchanged or not).  For every ``--every``-th game of the pattern file
(its main line replayed from the file's changes, every node's board), the set
of window contents it holds at some node; then how many a game holds, how many
of those few games hold (what postings of rare windows would keep), and for
each corner, side and anywhere pattern of ``benchmarks/pattern.py`` the share
of games holding every fully specified 3x3 window of its region: the
candidates such postings would leave to scan (a necessary condition, by game,
not by node).  No baseline is timed: the figure is the share of games kept,
against 100% today for nearly every pattern (docs/design.md, "What was not
done, and why").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pattern as benchmark

from gohash.index.patterns import pattern_path
from gohash.pattern.diagram import BLACK, EMPTY, WHITE, parse_pattern
from gohash.pattern.store import Flat, PatternFile

SIZE = 19
WEIGHTS = 3 ** np.arange(9)


def canonical_codes() -> npt.NDArray[np.int32]:
    """``[code]``: the least code of the content's 16 images (row-major, 0 empty,
    1 black, 2 white, the point ``k`` weighing ``3^k``)."""
    square = np.arange(9).reshape(3, 3)
    orders = [o.ravel() for k in range(4) for o in (np.rot90(square, k), np.rot90(square, k).T)]
    digits = (np.arange(3 ** 9)[:, None] // WEIGHTS) % 3
    images = [(np.array([0, 2, 1])[digits[:, o]] if swap else digits[:, o]) @ WEIGHTS
              for o in orders for swap in (False, True)]
    return np.min(np.stack(images), axis=0).astype(np.int32)


def window_points() -> npt.NDArray[np.intp]:
    """``[window, cell]``: the flat points of each 3x3 window of the board."""
    rows, cols = np.meshgrid(np.arange(SIZE - 2), np.arange(SIZE - 2), indexing="ij")
    return np.stack([(rows + i) * SIZE + cols + j for i in range(3) for j in range(3)],
                    axis=-1).reshape(-1, 9)


def held(flat: Flat, g: int, canon: npt.NDArray[np.int32],
         windows: npt.NDArray[np.intp]) -> npt.NDArray[np.int32]:
    """The canonical window contents game ``g`` of ``flat`` holds at some node."""
    n0, n1 = int(flat.node_offsets[g]), int(flat.node_offsets[g + 1])
    words = flat.changes[int(flat.change_offsets[g]) : int(flat.change_offsets[g + 1])]
    words = words.astype(np.int64)
    node = np.concatenate([[0], np.cumsum(words >> 15)[:-1]])
    point, new = (words >> 4) & 0x7FF, words & 3
    real = np.flatnonzero(((words >> 2) & 3) != new)
    # Each point's last change at or before each node: its colour there.
    last = np.full((n1 - n0, SIZE * SIZE), -1, dtype=np.int64)
    last[node[real], point[real]] = real
    last = np.maximum.accumulate(last, axis=0)
    boards = np.where(last >= 0, new[np.maximum(last, 0)], 0)
    return np.unique(canon[boards[:, windows] @ WEIGHTS])


def required(diagram: str, canon: npt.NDArray[np.int32]) -> list[int]:
    """The canonical contents of the fully specified 3x3 windows of a diagram."""
    pattern = parse_pattern(diagram)
    codes = np.array(pattern.codes).reshape(pattern.size, pattern.size)
    value = {EMPTY: 0, BLACK: 1, WHITE: 2}
    found = set()
    for r in range(pattern.size - 2):
        for c in range(pattern.size - 2):
            block = codes[r : r + 3, c : c + 3].ravel().tolist()
            if all(b in value for b in block):
                found.add(int(canon[np.array([value[b] for b in block]) @ WEIGHTS]))
    return sorted(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("db", help="an index whose 19x19 pattern file is written")
    parser.add_argument("--every", type=int, default=26, help="take every N-th game")
    args = parser.parse_args()
    segments, faults = PatternFile(pattern_path(args.db, SIZE), SIZE).read()
    if faults or not segments:
        print(f"no sound 19x19 pattern file beside {args.db}: {faults or 'none'}")
        return 0
    canon, windows = canonical_codes(), window_points()
    start = time.process_time()
    games = [held(s.flat, g, canon, windows) for s in segments
             for g in range(0, len(s), args.every)]
    print(f"{len(games):,} games (every {args.every}th), {time.process_time() - start:.1f} s "
          f"of CPU; {len(np.unique(canon)):,} window contents up to the 16 elements")
    sizes = np.array([len(g) for g in games])
    print(f"contents a game holds: mean {sizes.mean():.0f}, p50 {np.median(sizes):.0f}, "
          f"max {sizes.max()}")
    every = np.concatenate(games)
    holders = np.bincount(every, minlength=3 ** 9)
    for share in (0.05, 0.10, 0.25, 0.50):
        rare = holders[every] < share * len(games)
        print(f"  held by fewer than {share:.0%} of games: {rare.sum() / len(games):.0f} a game")
    table = np.zeros((3 ** 9, len(games)), dtype=np.bool_)
    for i, codes in enumerate(games):
        table[codes, i] = True
    print("games holding every fully specified 3x3 window of the pattern:")
    for p in benchmark.PATTERNS:
        if p.kind not in ("corner", "side", "anywhere"):
            continue
        needed = required(p.diagram(), canon)
        kept = np.logical_and.reduce(table[needed], axis=0) if needed else None
        print(f"  {p.name:55s} " + (f"{len(needed)} windows: {kept.mean():6.1%}"
                                    if kept is not None else "no such window"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
