"""A brute-force reference for pattern search: every placement of a diagram in
every game, tried position by position, and the games as arrays."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st

from tests.support import sgfgen

SYMBOLS = "XO.*xo"
_ALLOWED = {"X": {1}, "O": {2}, ".": {0}, "*": {0, 1, 2}, "x": {0, 1}, "o": {0, 2}}
_SWAP = {"X": "O", "O": "X", "x": "o", "o": "x", ".": ".", "*": "*", "-": "-"}
Placed = tuple[frozenset[tuple[int, str]], tuple[tuple[str, int], ...]]


def reference_hits(diagram: str, symmetry: str, game: dict[str, Any], *, to_move: int = 0,
                   max_move: int = -1, sequence: tuple[tuple[str, str], ...] = ()
                   ) -> set[tuple[Any, int, int, bool]]:
    """(placement, position, continuation position or -1, tenuki) of every hit."""
    n = game["size"]
    # Row 0 at the top, as the reference's placements count.
    boards = [[board[(n - 1 - p // n) * n + p % n] for p in range(n * n)]
              for board in game["boards"]]
    hits = set()
    for (points, moves), swapped in reference_placements(diagram, symmetry, sequence).items():
        region = {p for p, _ in points}
        for i in range(len(boards)):
            if max_move >= 0 and game["move_numbers"][i] > max_move:
                break
            if not all(boards[i][p] in _ALLOWED[symbol] for p, symbol in points):
                continue
            if to_move and game["to_move"][i] != (3 - to_move if swapped else to_move):
                continue
            moves_after = [
                (game["next_colour"][k], _top(game["next_point"][k], n))
                for k in range(i, len(boards))
            ]
            k = _follow(moves_after, region, moves)
            if k is None:
                continue
            cont, tenuki = -1, False
            for j in range(k, len(moves_after)):
                colour, point = moves_after[j]
                if colour == 0:
                    break
                if point in region:
                    cont, tenuki = i + j, j > k
                    break
            hits.add((points, i, cont, tenuki))
            break
    return hits


def game_arrays(record: sgfgen.Record) -> dict[str, Any]:
    steps = [s for s in sgfgen.replay(record, variations=False)
             if isinstance(s, sgfgen.Step) and s.game == 0 and s.variation == ()]
    size = record.games[0].size
    codes = {None: 0, "b": 1, "w": 2}
    boards = [[codes[v] for v in step.stones] for step in steps]
    to_move, side = [], 1
    for step in steps:
        if step.colour is not None:
            side = 2 if step.colour == "b" else 1
        to_move.append(side)
    next_colour, next_point = [], []
    for i in range(len(steps)):
        after = steps[i + 1] if i + 1 < len(steps) else None
        if after is None or after.colour is None or after.setup:
            next_colour.append(0)
            next_point.append(-1)
        else:
            next_colour.append(codes[after.colour])
            point = after.point
            next_point.append(-1 if point is None else point[0] * size + point[1])
    return {"size": size, "boards": boards, "to_move": to_move, "next_colour": next_colour,
            "next_point": next_point, "move_numbers": [s.move_number for s in steps]}


@st.composite
def diagrams(draw: Any, size: int) -> str:
    """A random pattern on a ``size`` board: a rectangle anywhere, its points
    drawn from every symbol, some left outside."""
    top = draw(st.integers(0, size - 1))
    left = draw(st.integers(0, size - 1))
    height = draw(st.integers(1, size - top))
    width = draw(st.integers(1, size - left))
    rows = []
    for r in range(size):
        line = ""
        for c in range(size):
            inside = top <= r < top + height and left <= c < left + width
            line += draw(st.sampled_from(SYMBOLS + "-" if inside else "-")) if inside else "-"
        rows.append(line)
    if all(set(row) == {"-"} for row in rows):
        rows[top] = rows[top][:left] + "*" + rows[top][left + 1:]
    return "\n".join(rows)


def ever_bitmaps(boards: npt.NDArray[np.int8], size: int) -> tuple[int, int]:
    """The bitmaps (bit :func:`~gohash.group.coords.sgf_order` of a point) of the
    points black, and white, in some position of ``boards`` (flat,
    ``[positions, size * size]``): the reference for the index's stored
    ``ever_black``/``ever_white`` (little-endian bytes)."""

    def ever(colour: int) -> int:
        # Rows from the top, then bits little-endian: the index's order.
        top_first = (boards == colour).any(axis=0).reshape(size, size)[::-1].reshape(-1)
        return int.from_bytes(np.packbits(top_first, bitorder="little").tobytes(), "little")

    return ever(1), ever(2)


def reference_placements(diagram: str, symmetry: str, sequence: tuple[tuple[str, str], ...]
                         ) -> dict[Placed, bool]:
    """Every placement as (points with their symbol, flat row 0 = TOP; sequence
    as (colour, flat point)): the grid turned by numpy, every shift tried; with
    whether it exchanges colours (only if every way of getting it does)."""
    grid = np.array([list(line) for line in diagram.split()])
    n = grid.shape[0]
    seq_grid = np.empty((n, n), dtype=object)
    for row in range(n):
        for col in range(n):
            seq_grid[row, col] = ()
    for step, (colour, vertex) in enumerate(sequence):
        col = "ABCDEFGHJKLMNOPQRSTUVWXYZ".index(vertex[0].upper())
        row = n - int(vertex[1:])
        seq_grid[row, col] += ((step, colour.lower()),)
    found: dict[Placed, bool] = {}
    for flip in (False, True):
        for turns in range(4):
            for swap in ((False, True) if symmetry == "full" else (False,)):
                if symmetry == "none" and (flip or turns or swap):
                    continue
                image = np.rot90(np.fliplr(grid) if flip else grid, turns)
                seqs = np.rot90(np.fliplr(seq_grid) if flip else seq_grid, turns)
                if swap:
                    image = np.vectorize(_SWAP.get)(image)
                rows, cols = np.nonzero(image != "-")
                for dr in range(-n, n):
                    for dc in range(-n, n):
                        r, c = rows + dr, cols + dc
                        if r.min() < 0 or c.min() < 0 or r.max() >= n or c.max() >= n:
                            continue
                        if not _anchored(rows, r, n) or not _anchored(cols, c, n):
                            continue
                        points = frozenset(
                            (int(rr * n + cc), str(image[r0, c0]))
                            for rr, cc, r0, c0 in zip(r, c, rows, cols, strict=True)
                        )
                        steps = sorted(
                            (step, colour, int(rr * n + cc))
                            for rr, cc, r0, c0 in zip(r, c, rows, cols, strict=True)
                            for step, colour in seqs[r0, c0]
                        )
                        moves = tuple(
                            ({"b": "w", "w": "b"}[colour] if swap else colour, p)
                            for _, colour, p in steps
                        )
                        found[points, moves] = found.get((points, moves), True) and swap
    return found


def _top(point: int, n: int) -> int | None:
    return None if point < 0 else (n - 1 - point // n) * n + point % n


def _follow(moves: list[tuple[int, int | None]], region: set[int],
            sequence: tuple[tuple[str, int], ...]) -> int | None:
    """The index after the sequence's last move among ``moves``, None if it does not follow."""
    k = 0
    for colour, point in sequence:
        while True:
            if k >= len(moves) or moves[k][0] == 0:
                return None
            played_colour, played = moves[k]
            k += 1
            if played in region:
                if played != point or "bw"[played_colour - 1] != colour:
                    return None
                break
    return k


def _anchored(before: Any, after: Any, n: int) -> bool:
    """Kombilo's rule on one axis: touching an edge, it stays; else it touches none."""
    if before.min() == 0 or before.max() == n - 1:
        return bool((before == after).all())
    return bool(after.min() >= 1 and after.max() <= n - 2)
