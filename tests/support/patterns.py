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


def loop_placements(pattern: Any, keys: Any, symmetry: str) -> list[tuple[Any, ...]]:
    """The placements of ``pattern`` one at a time, as gohash built them before
    it built them on arrays: (element, offset, points, codes, key, sequence) in
    order of element, row offset, column offset, the first of each identity
    (points with codes, and sequence) kept, its key ``T_g`` of the hash of the
    query's region translated to its pre-image."""
    from gohash.group.symmetry import D4, ELEMENTS
    n = pattern.size
    swapped = {-1: -1, 0: 0, 1: 2, 2: 1, 3: 4, 4: 3, 5: 5}
    elements = {"full": ELEMENTS, "d4": D4, "none": ELEMENTS[:1]}[symmetry]
    region = pattern.region
    query_points = [divmod(i, n) for i in region]

    def slides(lines: list[int]) -> range:
        low, high = min(lines), max(lines)
        if low == 0 or high == n - 1:
            return range(0, 1)
        return range(1 - low, n - 1 - high)

    def region_key(t: tuple[int, int]) -> int:
        h = 0
        for i, code in enumerate(pattern.codes):
            if code in (1, 2):
                r, c = divmod(i, n)
                point = (r + t[0]) * n + c + t[1]
                h ^= int((keys.black_keys if code == 1 else keys.white_keys)[point])
        return h

    seen: set[Any] = set()
    found = []
    for g in elements:
        images = [g.map_point(p, n) for p in query_points]
        codes = tuple(swapped[pattern.codes[i]] if g.swap else pattern.codes[i] for i in region)
        for dr in slides([r for r, _ in images]):
            for dc in slides([c for _, c in images]):
                points = tuple((r + dr) * n + c + dc for r, c in images)
                sequence = tuple(
                    (1 if g.map_colour(colour) == "b" else 2,
                     (g.map_point(point, n)[0] + dr) * n + g.map_point(point, n)[1] + dc)
                    for colour, point in pattern.sequence)
                identity = (frozenset(zip(points, codes, strict=True)), sequence)
                if identity in seen:
                    continue
                seen.add(identity)
                # The pre-image of the placement under g: the region moved by t.
                back = g.inverse.map_point((images[0][0] + dr, images[0][1] + dc), n)
                t = (back[0] - query_points[0][0], back[1] - query_points[0][1])
                found.append((g, (dr, dc), points, codes, keys.transform(region_key(t), g),
                              sequence))
    return found


def loop_matcher_tables(placements: Any, size: int) -> dict[str, Any]:
    """The tables of :class:`~gohash.pattern.match.Matcher` that depend on the
    placements, built one placement at a time (as gohash built them before it
    built them on arrays)."""
    from gohash.group.coords import sgf_order
    points = size * size
    tables: dict[str, Any] = {
        "offsets": np.cumsum([0] + [len(p.points) for p in placements]),
        "points": np.array([q for p in placements for q in p.points]),
        "codes": np.array([c for p in placements for c in p.codes]),
        "targets": np.array([p.key for p in placements], dtype=np.uint64),
        "swaps": np.array([p.element.swap for p in placements]),
        "seq_length": np.array([len(p.sequence) for p in placements]),
        "mismatches": np.array([sum(c in (1, 2) for c in p.codes) for p in placements]),
    }
    masks = np.zeros((len(placements), points), dtype=np.uint8)
    longest = max(1, *(len(p.sequence) for p in placements))
    seq_colours = np.zeros((len(placements), longest), dtype=np.int8)
    seq_points = np.zeros((len(placements), longest), dtype=np.int32)
    watchers: list[list[tuple[int, int, int]]] = [[] for _ in range(points)]
    bits = (points + 7) // 8 * 8
    stones = [[(q, c) for q, c in zip(p.points, p.codes, strict=True) if c in (1, 2)]
              for p in placements]
    required = np.full((len(placements), max(1, *(len(s) for s in stones))), 2 * bits)
    for index, p in enumerate(placements):
        masks[index, list(p.points)] = 1
        for step, (colour, point) in enumerate(p.sequence):
            seq_colours[index, step] = colour
            seq_points[index, step] = point
        for point, code in zip(p.points, p.codes, strict=True):
            if code != 5:
                watchers[point].append((index, int(code in (0, 1, 2)), code))
        required[index, : len(stones[index])] = [sgf_order(size)[q] + (c - 1) * bits
                                                 for q, c in stones[index]]
    # The mismatch counters' lists: per point and change (old, new) of its
    # value, the watchers it makes fit (kind 0), unfit (1), and, for a stone
    # played, those it fits neither before nor after (2).
    allowed = {0: {0}, 1: {1}, 2: {2}, 3: {0, 1}, 4: {0, 2}, 5: {0, 1, 2}}
    lists: list[list[int]] = [[] for _ in range(points * 27)]
    for point in range(points):
        for old in range(3):
            for new in range(3):
                for index, _, code in watchers[point] if old != new else []:
                    before, after = old in allowed[code], new in allowed[code]
                    kind = (0 if after and not before else 1 if before and not after
                            else 2 if not before and not after and old == 0 else None)
                    if kind is not None:
                        lists[((point * 3 + old) * 3 + new) * 3 + kind].append(index)
    # The same lists as bitsets, a row of the three kinds per change that has one.
    used = [c for c in range(points * 9) if any(lists[c * 3 + k] for k in range(3))]
    change_rows = np.full(points * 9, -1)
    change_bits = np.zeros((len(used), 3, (len(placements) + 63) // 64), dtype=np.uint64)
    for row, change in enumerate(used):
        change_rows[change] = row
        for kind in range(3):
            for index in lists[change * 3 + kind]:
                change_bits[row, kind, index // 64] |= np.uint64(1 << (index % 64))
    tables.update(
        change_rows=change_rows, change_bits=change_bits,
        shift=np.array([i for members in lists for i in members], dtype=np.int64),
        shift_offsets=np.cumsum([0] + [len(members) for members in lists]),
        masks=masks, seq_colours=seq_colours, seq_points=seq_points, required_columns=required,
        watch_offsets=np.cumsum([0] + [len(w) for w in watchers]),
        watch=np.array([i for w in watchers for i, _, _ in w], dtype=np.int64),
        watch_fixed=np.array([f for w in watchers for _, f, _ in w], dtype=np.int64),
        watch_codes=np.array([c for w in watchers for _, _, c in w], dtype=np.int64),
        empty_present=np.array([i for i, p in enumerate(placements)
                                if all(c in (0, 3, 4, 5) for c in p.codes)], dtype=np.int64),
    )
    return tables


def loop_symmetries(pattern: Any, symmetry: str) -> list[Any]:
    """The elements of ``symmetry`` that map the pattern onto itself, each image
    drawn point by point."""
    from gohash.group.symmetry import D4, ELEMENTS
    elements = {"full": ELEMENTS, "d4": D4, "none": ELEMENTS[:1]}[symmetry]
    n = pattern.size
    exchanged = {1: 2, 2: 1, 3: 4, 4: 3}
    found = []
    for g in elements:
        image = [-1] * (n * n)
        for point, code in enumerate(pattern.codes):
            if code != -1:
                row, col = g.map_point(divmod(point, n), n)
                image[row * n + col] = exchanged.get(code, code) if g.swap else code
        sequence = tuple((g.map_colour(c), g.map_point(q, n)) for c, q in pattern.sequence)
        if tuple(image) == pattern.codes and sequence == pattern.sequence:
            found.append(g)
    return found


def loop_corner_query(pattern: Any) -> tuple[int, int] | None:
    """The first corner square holding only black, white and empty points and
    some stone, of the largest side that has one, and its key made canonical
    by the scheme, its side's salt XORed in, one square at a time."""
    from gohash.group.schemes import scheme
    from gohash.pattern.corners import CORNER_SCHEME, SALTS, levels, squares
    keys = scheme(CORNER_SCHEME, pattern.size)
    for level, side in enumerate(levels(pattern.size)):
        for corner, inside in enumerate(squares(pattern.size, side)):
            codes = [pattern.codes[p] for p in np.flatnonzero(inside).tolist()]
            if any(code not in (0, 1, 2) for code in codes):
                continue
            key = 0
            for p in np.flatnonzero(inside).tolist():
                if pattern.codes[p]:
                    key ^= int((keys.black_keys if pattern.codes[p] == 1
                                else keys.white_keys)[p])
            if key:
                return (keys.canonical(key)[0] & 0xFFFFFFFF) ^ SALTS[level], corner
    return None


@st.composite
def cornered(draw: Any) -> Any:
    """A pattern whose corners are often fully specified: each point black,
    white or empty mostly, now and then anything or outside."""
    from gohash.pattern.diagram import CODES, Pattern
    size = draw(st.sampled_from([3, 5, 8, 9]))
    symbols = st.sampled_from("XO." * 12 + "*x-")
    codes = tuple(CODES[draw(symbols)] for _ in range(size * size))
    return Pattern(size, codes if set(codes) != {-1} else (0, *codes[1:]))
