"""Pattern search (gohash.pattern): diagrams, placements, hits on one game.

The reference here is written apart from gohash.pattern: placements by numpy's
rotations of the diagram's grid and a literal test of every shift, hits by
checking every placement at every position point by point.  The kernel and
its pure twin must give exactly its hits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gohash import _native
from gohash.errors import OptionError, PatternError
from gohash.group.schemes import scheme
from gohash.group.symmetry import ELEMENTS
from gohash.index.games import sgf_order
from gohash.pattern import match as match_module
from gohash.pattern.diagram import parse_pattern, placements
from gohash.pattern.match import Game, Matcher, match_python
from gohash.pattern.store import Columns
from tests import sgfgen

SYMBOLS = "XO.*xo"
_ALLOWED = {"X": {1}, "O": {2}, ".": {0}, "*": {0, 1, 2}, "x": {0, 1}, "o": {0, 2}}
_SWAP = {"X": "O", "O": "X", "x": "o", "o": "x", ".": ".", "*": "*", "-": "-"}


# -- the reference -------------------------------------------------------------------------


Placed = tuple[frozenset[tuple[int, str]], tuple[tuple[str, int], ...]]


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


def _anchored(before: Any, after: Any, n: int) -> bool:
    """Kombilo's rule on one axis: touching an edge, it stays; else it touches none."""
    if before.min() == 0 or before.max() == n - 1:
        return bool((before == after).all())
    return bool(after.min() >= 1 and after.max() <= n - 2)


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


# -- games ---------------------------------------------------------------------------------


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


def as_game(arrays: dict[str, Any]) -> Game:
    n = arrays["size"]
    return Game(
        np.array(arrays["boards"], dtype=np.int8).reshape(-1, n * n),
        np.array(arrays["move_numbers"], dtype=np.int32),
        np.array(arrays["to_move"], dtype=np.int8),
        np.array(arrays["next_colour"], dtype=np.int8),
        np.array(arrays["next_point"], dtype=np.int32),
    )


def gohash_hits(diagram: str, symmetry: str, arrays: dict[str, Any], *, compiled: bool,
                to_move: int = 0, max_move: int = -1,
                sequence: tuple[tuple[str, str], ...] = ()) -> set[tuple[Any, int, int, bool]]:
    pattern = parse_pattern(diagram)
    if sequence:
        pattern = pattern.with_sequence(sequence)
    n = pattern.size
    found = placements(pattern, scheme("regular64", n), symmetry)
    matcher = Matcher(found, scheme("regular64", n), to_move=to_move, max_move=max_move)
    hits = matcher.match(as_game(arrays), pure=not compiled)
    result = set()
    for pl, position, cont, tenuki in zip(hits.placement.tolist(), hits.position.tolist(),
                                          hits.continuation.tolist(), hits.tenuki.tolist(),
                                          strict=True):
        p = found[pl]
        symbols = {0: ".", 1: "X", 2: "O", 3: "x", 4: "o", 5: "*"}
        points = frozenset(((n - 1 - q // n) * n + q % n, symbols[c])
                           for q, c in zip(p.points, p.codes, strict=True))
        result.add((points, position, cont, tenuki))
    return result


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


COMPILED = [False, True]


def test_the_compiled_kernel_is_built() -> None:
    assert _native.match is not None, "the pattern kernel is not built: pip install -e ."


@pytest.mark.parametrize("compiled", COMPILED)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), symmetry=st.sampled_from(["full", "d4", "none"]))
def test_hits_equal_the_reference(compiled: bool, data: Any, symmetry: str) -> None:
    game = data.draw(sgfgen.games(st.integers(3, 7), faults=False, max_depth=0))
    arrays = game_arrays(sgfgen.Record((game,)))
    diagram = data.draw(diagrams(arrays["size"]))
    max_move = data.draw(st.sampled_from([-1, -1, 3, 10]))
    expected = reference_hits(diagram, symmetry, arrays, max_move=max_move)
    assert gohash_hits(diagram, symmetry, arrays, compiled=compiled,
                       max_move=max_move) == expected


def test_placements_equal_the_reference() -> None:
    diagram = "\n".join(["---------", "-X.o-----", "-*O------"] + ["---------"] * 6)
    for symmetry in ("full", "d4", "none"):
        pattern = parse_pattern(diagram)
        mine = {
            frozenset(((8 - q // 9) * 9 + q % 9, {0: ".", 1: "X", 2: "O", 3: "x", 4: "o",
                                                  5: "*"}[c])
                      for q, c in zip(p.points, p.codes, strict=True))
            for p in placements(pattern, scheme("regular64", 9), symmetry)
        }
        assert mine == {points for points, _ in reference_placements(diagram, symmetry, ())}


@pytest.mark.parametrize("compiled", COMPILED)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), symmetry=st.sampled_from(["full", "d4", "none"]))
def test_to_move_and_sequence_equal_the_reference(compiled: bool, data: Any,
                                                  symmetry: str) -> None:
    game = data.draw(sgfgen.games(st.integers(3, 6), faults=False, max_depth=0))
    arrays = game_arrays(sgfgen.Record((game,)))
    n = arrays["size"]
    diagram = data.draw(diagrams(n))
    region = [(r, c) for r, line in enumerate(diagram.split()) for c, s in enumerate(line)
              if s != "-"]
    steps = data.draw(st.lists(st.tuples(st.sampled_from("BW"), st.sampled_from(region)),
                               max_size=2))
    sequence = tuple((colour, "ABCDEFGHJKLMNOPQRSTUVWXYZ"[c] + str(n - r))
                     for colour, (r, c) in steps)
    to_move = data.draw(st.sampled_from([0, 1, 2]))
    expected = reference_hits(diagram, symmetry, arrays, to_move=to_move, sequence=sequence)
    assert gohash_hits(diagram, symmetry, arrays, compiled=compiled, to_move=to_move,
                       sequence=sequence) == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), g=st.sampled_from(ELEMENTS))
def test_an_image_of_the_pattern_finds_the_same(data: Any, g: Any) -> None:
    """Under ``full``, a pattern and its image under any element have the same
    placements: the same hits at the same positions."""
    game = data.draw(sgfgen.games(st.integers(3, 7), faults=False, max_depth=0))
    arrays = game_arrays(sgfgen.Record((game,)))
    diagram = data.draw(diagrams(arrays["size"]))
    pattern = parse_pattern(diagram)
    n = pattern.size
    codes = [-1] * (n * n)
    swap = {0: 0, 1: 2, 2: 1, 3: 4, 4: 3, 5: 5, -1: -1}
    for i, code in enumerate(pattern.codes):
        r, c = g.map_point(divmod(i, n), n)
        codes[r * n + c] = swap[code] if g.swap else code
    image = type(pattern)(n, tuple(codes)).diagram()
    compiled = True
    assert gohash_hits(diagram, "full", arrays, compiled=compiled) == gohash_hits(
        image, "full", arrays, compiled=compiled)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), symmetry=st.sampled_from(["full", "d4"]))
def test_placement_keys_are_the_hash_of_their_stones(data: Any, symmetry: str) -> None:
    """The keys derived by T_g equal the hash of each placement's required stones."""
    n = data.draw(st.integers(3, 9))
    pattern = parse_pattern(data.draw(diagrams(n)))
    keys = scheme("regular64", n)
    for p in placements(pattern, keys, symmetry):
        board = np.zeros(n * n, dtype=np.int8)
        for point, code in zip(p.points, p.codes, strict=True):
            if code in (1, 2):
                board[point] = code
        assert p.key == keys.hash_array(board.reshape(n, n))
        for q, point in zip(pattern.region, p.points, strict=True):
            r, c = p.element.map_point(divmod(q, n), n)
            assert point == (r + p.offset[0]) * n + c + p.offset[1]
            assert p.to_query(point, n) == divmod(q, n)


def test_a_symmetric_pattern_has_each_placement_once() -> None:
    # An empty 3x3 corner: the same under flips along its diagonal and under
    # colour exchange: 4 corners, once each.
    diagram = "\n".join(["...------"] * 3 + ["---------"] * 6)
    assert len(placements(parse_pattern(diagram), scheme("regular64", 9))) == 4
    # A stone in the middle of a 3x3 on a 9x9 board slides anywhere off the
    # edges: 5x5 centres, two colours.
    middle = "\n".join(["---------"] * 3 + ["---...---", "---.X.---", "---...---"]
                       + ["---------"] * 3)
    assert len(placements(parse_pattern(middle), scheme("regular64", 9))) == 50


def test_bad_diagrams_name_the_row_or_point() -> None:
    with pytest.raises(PatternError, match=r"point B2 \(row 2\) holds '\?'"):
        parse_pattern("...\n.?.\n...")  # the middle row is row 2
    with pytest.raises(PatternError, match=r"row 2 '\.\.' has 2 points"):
        parse_pattern("...\n..\n...")
    with pytest.raises(PatternError, match="marks no point"):
        parse_pattern("---\n---\n---")
    with pytest.raises(PatternError, match="no rows"):
        parse_pattern("  \n")
    pattern = parse_pattern("X..\n---\n---")
    with pytest.raises(PatternError, match="'C1' lies outside"):
        pattern.with_sequence("B C1")
    with pytest.raises(PatternError, match="'Z9' is not a point"):
        pattern.with_sequence("B Z9")
    with pytest.raises(PatternError, match="colour 'R'"):
        pattern.with_sequence("R A3")
    with pytest.raises(OptionError, match="symmetry 'd8'"):
        placements(pattern, scheme("regular64", 3), "d8")
    assert issubclass(PatternError, ValueError)


def test_diagram_round_trips() -> None:
    text = "X.o\n*x-\n-O."
    assert parse_pattern(text).diagram() == text
    assert parse_pattern("X . o\n\n* x -\n- O .\n") == parse_pattern(text)


def ever_bitmaps(boards: npt.NDArray[np.int8], size: int) -> tuple[int, int]:
    """The bitmaps (bit :func:`~gohash.index.games.sgf_order` of a point) of the
    points black, and white, in some position of ``boards`` (flat,
    ``[positions, size * size]``): the reference for the index's stored
    ``ever_black``/``ever_white`` (little-endian bytes)."""

    def ever(colour: int) -> int:
        # Rows from the top, then bits little-endian: the index's order.
        top_first = (boards == colour).any(axis=0).reshape(size, size)[::-1].reshape(-1)
        return int.from_bytes(np.packbits(top_first, bitorder="little").tobytes(), "little")

    return ever(1), ever(2)


def _bitmap(points: list[int], size: int) -> npt.NDArray[np.uint8]:
    """The index's bitmap of flat points, as bytes."""
    bits = np.zeros((size * size + 7) // 8 * 8, dtype=np.uint8)
    bits[sgf_order(size)[points]] = 1
    return np.packbits(bits, bitorder="little")


def test_bitmaps_count_rows_from_the_top() -> None:
    # Point A3 on a 3x3 board (row 2 from the bottom) is bit 0; C1 is bit 8.
    assert sgf_order(3)[2 * 3 + 0] == 0
    assert sgf_order(3)[0 * 3 + 2] == 8
    boards = np.array([[1, 0, 0, 0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0, 0, 0, 2]],
                      dtype=np.int8)
    assert ever_bitmaps(boards, 3) == (1 << 6, 1 << 2)  # A1 and C3


def test_the_inverted_filter_needs_some_placement_whose_stones_all_occurred() -> None:
    # Games: B A3 and W B3 ever; B A3 and B B3, no white; B B3 and W A3; none.
    pattern = parse_pattern("XO.\n...\n...")
    keys = scheme("regular64", 3)
    a3, b3 = [6], [7]
    black = [_bitmap(a3, 3), _bitmap(a3 + b3, 3), _bitmap(b3, 3), _bitmap([], 3)]
    white = [_bitmap(b3, 3), _bitmap([], 3), _bitmap(a3, 3), _bitmap([], 3)]
    columns = Columns(3, black, white, 4)

    def candidates(symmetry: str) -> list[int]:
        matcher = Matcher(placements(pattern, keys, symmetry), keys)
        words = np.bitwise_or.reduce(matcher.alive(columns, 0, 4), axis=0)
        return np.flatnonzero(np.unpackbits(words.view(np.uint8), bitorder="little")).tolist()

    assert candidates("none") == [0]
    assert candidates("full") == [0, 2]
    # A pattern without a stone: every game.
    keys9 = scheme("regular64", 3)
    empty = Matcher(placements(parse_pattern("...\n...\n..."), keys9, "none"), keys9)
    words = empty.alive(columns, 0, 4)
    assert np.unpackbits(words.view(np.uint8), bitorder="little")[:4].tolist() == [1] * 4


def test_gohash_pure_turns_the_kernel_off(monkeypatch: pytest.MonkeyPatch) -> None:
    keys = scheme("regular64", 3)
    matcher = Matcher(placements(parse_pattern("X..\n...\n..."), keys), keys)
    calls: list[object] = []
    monkeypatch.setattr(match_module, "match_python", lambda m, g: calls.append(g))
    monkeypatch.setenv("GOHASH_PURE", "1")
    game = Game(np.zeros((1, 9), dtype=np.int8), np.zeros(1, dtype=np.int32),
                np.ones(1, dtype=np.int8), np.zeros(1, dtype=np.int8),
                np.full(1, -1, dtype=np.int32))
    matcher.match(game)
    assert calls == [game]


def test_the_pure_twin_is_the_fallback() -> None:
    pattern = parse_pattern("X..\n...\n...")
    keys = scheme("regular64", 3)
    matcher = Matcher(placements(pattern, keys), keys)
    game = Game(np.array([[0] * 9, [0, 0, 0, 0, 0, 0, 1, 0, 0]], dtype=np.int8),
                np.array([0, 1], dtype=np.int32), np.array([1, 2], dtype=np.int8),
                np.array([1, 0], dtype=np.int8), np.array([6, -1], dtype=np.int32))
    hits = match_python(matcher, game)
    assert hits.position.tolist() == [1]
    assert matcher.placements[int(hits.placement[0])].element.name == "identity"
