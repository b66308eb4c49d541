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
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gohash.errors import OptionError, PatternError
from gohash.group.coords import sgf_order
from gohash.group.schemes import scheme
from gohash.group.symmetry import ELEMENTS
from gohash.pattern import kernel
from gohash.pattern import match as match_module
from gohash.pattern.corners import corner_query
from gohash.pattern.diagram import parse_pattern, placements, symmetries
from gohash.pattern.match import Game, Matcher, match_python
from gohash.pattern.store import Columns
from gohash.pattern.tally import run_starts
from tests.support import sgfgen
from tests.support.patterns import (
    cornered,
    diagrams,
    ever_bitmaps,
    game_arrays,
    loop_corner_query,
    loop_matcher_tables,
    loop_placements,
    loop_symmetries,
    reference_hits,
    reference_placements,
)

# -- the reference -------------------------------------------------------------------------


# -- games ---------------------------------------------------------------------------------


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


COMPILED = [False, True]


def test_the_compiled_kernel_is_built() -> None:
    assert kernel.match is not None, "the pattern kernel is not built: pip install -e ."


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


@st.composite
def patterns_with_sequences(draw: Any) -> Any:
    """A random pattern (:func:`diagrams`) on a board of 2 to 11 points, with a
    sequence of up to 3 moves in its region."""
    n = draw(st.integers(2, 11))
    pattern = parse_pattern(draw(diagrams(n)))
    steps = draw(st.lists(st.tuples(st.sampled_from("BW"), st.sampled_from(pattern.region)),
                          max_size=3))
    return pattern.with_sequence([(colour, "ABCDEFGHJKLMNOPQRSTUVWXYZ"[q % n] + str(q // n + 1))
                                  for colour, q in steps])


# A side pattern and a local one anywhere on 19x19, with sequences.
SIDE19 = parse_pattern("\n".join(["-" * 19] * 16 + ["--.*.o---" + "-" * 10, "--XO..---" + "-" * 10,
                                                     "--x.O.---" + "-" * 10])
                       ).with_sequence("B E3 W C3")
LOCAL19 = parse_pattern("\n".join(["-" * 19] * 8 + ["-" * 8 + "XO." + "-" * 8,
                                                    "-" * 8 + "O*x" + "-" * 8] + ["-" * 19] * 9)
                        ).with_sequence("B K11")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns_with_sequences(), symmetry=st.sampled_from(["full", "d4", "none"]))
@example(pattern=SIDE19, symmetry="full")
@example(pattern=LOCAL19, symmetry="full")
@example(pattern=LOCAL19, symmetry="d4")
def test_placements_on_arrays_equal_those_placed_one_at_a_time(pattern: Any,
                                                               symmetry: str) -> None:
    """The placements built on arrays are those of the loop over elements and
    shifts, in its order, each the same element, offset, points, codes,
    sequence and key (``T_g`` of the region's key translated)."""
    keys = scheme("regular64", pattern.size)
    found = placements(pattern, keys, symmetry)
    assert [tuple(p.__dict__.values()) for p in found] == loop_placements(pattern, keys,
                                                                          symmetry)
    assert found[1:3] == tuple(found)[1:3]


@pytest.mark.parametrize("compiled", COMPILED)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns_with_sequences(), symmetry=st.sampled_from(["full", "d4", "none"]),
       to_move=st.sampled_from([0, 1, 2]))
@example(pattern=LOCAL19, symmetry="full", to_move=0)
def test_the_matchers_tables_equal_those_built_one_placement_at_a_time(
        compiled: bool, pattern: Any, symmetry: str, to_move: int) -> None:
    """The tables as the kernel's shift_tables builds them, and as numpy does
    (GOHASH_PURE)."""
    keys = scheme("regular64", pattern.size)
    found = placements(pattern, keys, symmetry)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GOHASH_PURE", "0" if compiled else "1")
        matcher = Matcher(found, keys, to_move=to_move)
    for name, expected in loop_matcher_tables(tuple(found), pattern.size).items():
        np.testing.assert_array_equal(getattr(matcher, name), expected, err_msg=name)


@settings(max_examples=80, deadline=None)
@given(pattern=st.one_of(patterns_with_sequences(), cornered()),
       symmetry=st.sampled_from(["full", "d4", "none"]))
@example(pattern=parse_pattern("...\n...\n..."), symmetry="full")
@example(pattern=parse_pattern("...\n...\n...").with_sequence("B A1"), symmetry="full")
def test_symmetries_and_corner_keys_equal_those_found_point_by_point(
        pattern: Any, symmetry: str) -> None:
    assert list(symmetries(pattern, symmetry)) == loop_symmetries(pattern, symmetry)
    assert corner_query(pattern) == loop_corner_query(pattern)


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


@given(rows=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=30))
def test_run_starts_are_where_np_diff_finds_a_change(rows: list[tuple[int, int]]) -> None:
    games = np.array([g for g, _ in rows], dtype=np.int32)
    positions = np.array([p for _, p in rows], dtype=np.int32)
    expected = np.flatnonzero(np.diff(games, prepend=-1) | np.diff(positions, prepend=-1))
    assert run_starts(games, positions).tolist() == expected.tolist()
    assert run_starts(games).tolist() == np.flatnonzero(np.diff(games, prepend=-1)).tolist()
