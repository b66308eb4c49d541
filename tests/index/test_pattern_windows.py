"""Window answers: the hits of the contents of small squares anywhere summed up
once a segment (gohash.pattern.windows), against the pure path, which scans
every game, and the tables of contents against brute force."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gohash.group.symmetry import ELEMENTS
from gohash.index.filters import Filters
from gohash.index.index import Index
from gohash.pattern import search
from gohash.pattern.search import PatternQuery
from gohash.pattern.windows import WINDOW, window_query, window_tables, windows
from tests.support import sgfgen
from tests.support.pattern_index import (
    build_index,
    draw_winners,
    positions_of,
    record_index,
    shape_answers,
    shape_result,
    turned_board,
    write_records,
)


def _diagram(board: list[int], size: int, row: int, col: int, side: int) -> str:
    """The window of ``side`` whose lowest row and column are ``row`` and ``col``
    of ``board`` (flat, row 0 the bottom line), alone: the rest outside."""
    lines = []
    for r in range(size - 1, -1, -1):
        lines.append("".join(".XO"[board[r * size + c]]
                             if row <= r < row + side and col <= c < col + side else "-"
                             for c in range(size)))
    return "\n".join(lines)


def _diagrams(*placed: dict[int, str]) -> list[str]:
    """9x9 diagrams of a shape: each of ``placed`` (rows from the top, as drawn;
    the rest outside), the first also with its colours exchanged."""
    out = []
    for rows in placed:
        lines = ["---------"] * 9
        for row, line in rows.items():
            lines[row] = line
        out.append("\n".join(lines))
    exchanged = out[0].replace("X", "x").replace("O", "X").replace("x", "O")
    return [out[0], exchanged, *out[1:]]


@pytest.mark.parametrize("side", [2, 3])
def test_tables_are_the_classes_of_the_16_elements(side: int) -> None:
    """Every content's class is that of its images and of no other content: the
    canonical content is the least image, and the orientation maps onto it."""
    tables = window_tables(side)
    points = side * side
    rng = np.random.default_rng(side)
    for code in rng.choice(3**points, size=min(200, 3**points), replace=False).tolist():
        digits = [code // 3**k % 3 for k in range(points)]
        images = set()
        for g in ELEMENTS:
            image = [0] * points
            for k, v in enumerate(digits):
                i, j = g.map_point(divmod(k, side), side)
                image[i * side + j] = (3 - v if v else 0) if g.swap else v
            images.add(sum(v * 3**k for k, v in enumerate(image)))
        least = min(images)
        if code == 0:
            assert tables.classes[code] == -1
            continue
        assert tables.canonical[tables.classes[code]] == least
        assert {int(tables.classes[c]) for c in images} == {int(tables.classes[code])}
        g = ELEMENTS[int(tables.orientations[code])]
        assert int(tables.images[g.index, code]) == least
        assert all(int(tables.images[e.index, code]) != least for e in ELEMENTS[: g.index])


def test_windows_are_the_squares_off_the_edges() -> None:
    points, entries, offsets = windows(9, 3)
    assert len(points) == 5 * 5 * 9  # lowest rows and columns 1 to 5
    squares = points.reshape(-1, 9)
    assert (squares // 9).min() == 1 and (squares // 9).max() == 7
    for p in (10, 40, 70):
        held = {(int(e) // 9, int(e) % 9) for e in entries[offsets[p] : offsets[p + 1]]}
        assert held == {(w, k) for w in range(len(squares)) for k in range(9)
                        if squares[w, k] == p}


def test_window_query_takes_squares_off_the_edges_only() -> None:
    board = [0] * 81
    board[4 * 9 + 4] = 1
    assert window_query(PatternQuery(_diagram(board, 9, 3, 3, 3)).pattern) is not None
    assert window_query(PatternQuery(_diagram(board, 9, 3, 3, 2)).pattern) is not None
    # Touching an edge, empty, too large, or a wildcard: not a window.
    edge = [0] * 81
    edge[1 * 9 + 1] = 1
    assert window_query(PatternQuery(_diagram(edge, 9, 0, 0, 3)).pattern) is None
    assert window_query(PatternQuery(_diagram([0] * 81, 9, 3, 3, 3)).pattern) is None
    assert window_query(PatternQuery(_diagram(board, 9, 2, 2, 4)).pattern) is None
    star = _diagram(board, 9, 3, 3, 3).split("\n")
    star[4] = star[4][:3] + "*" + star[4][4:]
    assert window_query(PatternQuery("\n".join(star)).pattern) is None
    query = PatternQuery(_diagram(board, 9, 3, 3, 3))
    assert query.square is not None and query.square.corner == WINDOW
    # A side to move is not answered by windows.
    assert PatternQuery(_diagram(board, 9, 3, 3, 3), to_move="b").window is None


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), frequent=st.sampled_from([1, 2, 3]),
       page=st.sampled_from([(100, 0), (1, 0), (2, 1), (3, 5)]))
def test_window_answers_equal_the_pure_scan(tmp_path_factory: Any, data: Any, frequent: int,
                                            page: tuple[int, int]) -> None:
    """A window's content taken from a game's position turned by any element,
    found by the segments' answers (every class that ``frequent`` games hit
    answered), reports what the pure path reports: matches of the page,
    counts and continuations; without a filter, with a filter of results
    (which picks the answers of a winner) and with one that takes games out
    of a winner's answer (which is not used)."""
    record = data.draw(sgfgen.records(st.sampled_from([5, 9, 13, 19]), same_size=True,
                                      faults=False, max_depth=0, max_games=6))
    db = record_index(tmp_path_factory.mktemp("records"), record)
    size = record.games[0].size
    held = [game_id for game_id, _, positions in positions_of(db) if positions]
    side = data.draw(st.sampled_from([2, 3]))
    if not held or size - 2 < side:
        return
    draw_winners(data, db)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "FREQUENT", frequent)
        turned = turned_board(data, db, held, size)
        # A window off the edges around one of the stones.
        stones = np.flatnonzero(turned).tolist()
        if not stones:
            return
        at = data.draw(st.sampled_from(stones))
        rows = range(max(1, at // size - side + 1), min(at // size, size - 1 - side) + 1)
        cols = range(max(1, at % size - side + 1), min(at % size, size - 1 - side) + 1)
        if not rows or not cols:
            return
        row, col = data.draw(st.sampled_from(rows)), data.draw(st.sampled_from(cols))
        diagram = _diagram(turned.tolist(), size, row, col, side)
        # Answered where the content's class is held by ``frequent`` games with
        # few hit twice at one position (SHARED), else scanned.
        event(f"a window of side {side}, answered by {shape_answers(db, diagram)} segments")
        limit, offset = page
        for filters in (None, Filters(result="B"), Filters(result="W", min_rank="9d")):
            options = {"limit": limit, "offset": offset, "filters": filters}
            assert shape_result(db, diagram, pure=False, **options) == shape_result(
                db, diagram, pure=True, **options)


# A crosscut, one game a winner, and a crosscut turned: answered where each stands.
CROSSCUT = "(;GM[1]FF[4]SZ[9]RE[{result}]DT[{date}];B[dd];W[ed];B[ee];W[de]{more})"


def test_a_crosscut_is_answered_in_any_frame(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    db = build_index(tmp_path, write_records(tmp_path, "c", [
        CROSSCUT.format(result=result, date=date, more=more)
        for result, date, more in [("B+R", "2001-01-01", ";B[ce];W[fd]"),
                                   ("W+R", "2002-02-02", ";B[fd]"),
                                   ("B+3.5", "2003-03-03", ";B[gg];W[cd]"), ("", "", "")]]))
    diagrams = _diagrams({3: "---XO----", 4: "---OX----"}, {5: "-----OX--", 6: "-----XO--"})
    for diagram in diagrams:
        assert shape_answers(db, diagram) == 1
        for filters in (None, Filters(result="B"), Filters(result="W")):
            for limit, offset in ((100, 0), (1, 0), (2, 1)):
                options = {"limit": limit, "offset": offset, "filters": filters}
                assert shape_result(db, diagram, pure=False, **options) == shape_result(
                    db, diagram, pure=True, **options)
    found = shape_result(db, diagrams[0])
    # Four games hit, none with a move in the region after: it is full.
    assert (found["total"], found["games"], found["ended"]) == (4, 4, 4)


# Two crosscuts set up at once: two windows hit one position, whose match is
# the lowest placement's, which depends on the query's frame; the answers hold
# it for each frame.
TWICE = "(;GM[1]FF[4]SZ[9]RE[W+R]AB[dd][ee][ff][gg]AW[ed][de][gf][fg];B[cc];W[hh];B[fe])"


def test_positions_two_windows_hit_are_answered_in_each_frame(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    db = build_index(tmp_path, write_records(tmp_path, "t", [
        TWICE if n == 1 else CROSSCUT.format(result="B+R", date="2001-01-01", more=";B[cc]")
        for n in range(3)]))
    diagrams = _diagrams({3: "---XO----", 4: "---OX----"})
    for diagram in diagrams:
        assert shape_answers(db, diagram) == 1
        with Index(db, read_only=True) as index:
            (block,) = index._game_store(9).answers
        query = PatternQuery(diagram)
        assert query.window is not None and block is not None
        assert all(block.exception_offsets[at] == block.exception_offsets[at + 1]
                   for at in block.find(query.window.key, query.window.square))
        for limit, offset in ((100, 0), (1, 0), (2, 1), (3, 2)):
            options = {"limit": limit, "offset": offset}
            assert shape_result(db, diagram, pure=False, **options) == shape_result(
                db, diagram, pure=True, **options)
    found = shape_result(db, diagrams[0])
    # Three games, three matches: the two crosscuts the second game sets up at
    # once are one.
    assert (found["total"], found["games"]) == (3, 3)


# A shape no element but the identity maps onto itself, played in both colours
# (games Black and White won), each followed by a move in its window: its
# moves are folded into the canonical frame, with their colours and wins.
BOTH = ["(;GM[1]FF[4]SZ[9]RE[B+R];B[dd];W[de];B[ed];W[ff];B[ee])",
        "(;GM[1]FF[4]SZ[9]RE[W+R];B[gg];W[dd];B[de];W[ed];B[ff];W[ee])",
        "(;GM[1]FF[4]SZ[9]RE[B+R];B[dd];W[de];B[ed];W[ee])"]


def test_a_shape_played_in_both_colours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    db = build_index(tmp_path, write_records(tmp_path, "b", BOTH))
    for diagram in _diagrams({3: "---XX----", 4: "---O.----"}, {5: "-----.O--", 6: "-----XX--"}):
        query = PatternQuery(diagram)
        assert query.window is not None and len(query.window.symmetries) == 1
        assert shape_answers(db, diagram) == 1
        found = shape_result(db, diagram, pure=False)
        assert found == shape_result(db, diagram, pure=True)
        assert (found["total"], found["games"]) == (3, 3)
        assert sum(c["black_wins"] + c["white_wins"] for c in found["continuations"]) == 3


# Two copies of a contact set up at once, then a move in the upper one's
# window only: of the windows of one content hit at one position, the match
# is the lower window's (the lowest placement), here the one left without a
# continuation.
COPIES = "(;GM[1]FF[4]SZ[9]RE[B+R]AB[cc][cg]AW[dc][dg];B[bc];W[hh])"


def test_of_two_copies_hit_at_once_the_lower_window_s(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    db = build_index(tmp_path, write_records(tmp_path, "k", [COPIES]))
    for diagram in _diagrams({3: "---...---", 4: "---.XO---", 5: "---...---"}):
        assert shape_answers(db, diagram) == 1
        found = shape_result(db, diagram, pure=False)
        assert found == shape_result(db, diagram, pure=True)
        assert found["total"] == 1
