"""Band answers: the hits of the contents of rectangles along an edge summed up
once a segment (gohash.pattern.bands), against the pure path, which scans
every game, and the bands and their frames against the board's elements."""

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
from gohash.pattern.bands import BAND, BAND_SHAPES, band_symmetries, bands
from gohash.pattern.search import PatternQuery
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


def _diagram(board: list[int], size: int, edge: int, offset: int, depth: int,
             width: int) -> str:
    """The band ``depth`` deep and ``width`` wide from ``offset`` along ``edge``
    (0 the bottom line, 1 the top, 2 the left, 3 the right) of ``board``
    (flat, row 0 the bottom line), alone: the rest outside."""
    def inside(r: int, c: int) -> bool:
        across, along = {0: (r, c), 1: (size - 1 - r, c), 2: (c, r), 3: (size - 1 - c, r)}[edge]
        return across < depth and offset <= along < offset + width

    return "\n".join("".join(".XO"[board[r * size + c]] if inside(r, c) else "-"
                             for c in range(size)) for r in range(size - 1, -1, -1))


def test_bands_are_the_rectangles_along_an_edge() -> None:
    """Every band is a rectangle of one edge off the corners, once; its
    elements map its points onto a band of the canonical edge in its frame,
    mirrored, and with colours exchanged."""
    for depth, width in BAND_SHAPES:
        frames = bands(19, depth, width)
        points = frames.points.reshape(-1, depth * width)
        assert len(points) == 4 * (19 - width - 1)
        assert len({tuple(sorted(p)) for p in points.tolist()}) == len(points)
        local = np.arange(depth * width)
        for band, elements in zip(points, frames.elements, strict=True):
            for q, index in enumerate(elements.tolist()):
                g = ELEMENTS[index]
                assert g.swap == bool(q & 1)
                images = [g.map_point(divmod(int(p), 19), 19) for p in band]
                rows = np.array([r for r, _ in images])
                cols = np.array([c for _, c in images])
                j = local % width if q < 2 else width - 1 - local % width
                assert (rows == local // width).all()
                assert (cols - cols.min() == j).all() and 1 <= cols.min() <= 18 - width
        for p in (0, 20, 60, 180):
            held = {(int(e) // (depth * width), int(e) % (depth * width))
                    for e in frames.entries[frames.offsets[p] : frames.offsets[p + 1]]}
            assert held == {(b, k) for b in range(len(points)) for k in range(depth * width)
                            if points[b, k] == p}


def test_band_query_takes_bands_off_the_corners_only() -> None:
    board = [0] * 361
    board[2 * 19 + 5] = 1
    diagram = _diagram(board, 19, 0, 2, 4, 7)
    query = PatternQuery(diagram)
    assert query.band is not None and query.square is not None
    assert query.square.corner == BAND + 4 and query.square.side == 7
    # Turned onto any edge, colours exchanged or not, it is the same content.
    region = np.array([c != "-" for c in diagram.replace("\n", "")]).reshape(19, 19)[::-1]
    for g in ELEMENTS:
        turned = g.image_array(np.array(board).reshape(19, 19)).reshape(-1).tolist()
        inside = ELEMENTS[g.index % 8].image_array(region.astype(np.int8)).reshape(-1)
        other = PatternQuery("\n".join("".join(".XO"[turned[r * 19 + c]] if inside[r * 19 + c]
                                                else "-" for c in range(19))
                                        for r in range(18, -1, -1)))
        assert other.band is not None and other.band.square.stones == query.square.stones
    # Touching a corner, empty, of another shape, a wildcard or with a side to
    # move, a move limit: not a band.
    assert PatternQuery(_diagram(board, 19, 0, 0, 4, 7)).band is None
    assert PatternQuery(_diagram([0] * 361, 19, 0, 2, 4, 7)).band is None
    assert PatternQuery(_diagram(board, 19, 0, 2, 3, 7)).band is None
    assert PatternQuery(_diagram(board, 19, 0, 2, 4, 8)).band is None
    star = diagram.split("\n")
    star[-1] = star[-1][:3] + "*" + star[-1][4:]
    assert PatternQuery("\n".join(star)).band is None
    assert PatternQuery(diagram, to_move="b").band is None
    assert PatternQuery(diagram, max_move=40).band is None


def test_band_symmetries_are_the_elements_that_keep_the_content() -> None:
    # A lone stone in the middle column: the mirror keeps it, no exchange does.
    lone = 3 ** (2 * 5 + 2)
    assert [g.index for g in band_symmetries(4, 5, lone)] == [0, 4]
    # A black and a white stone mirrored: the mirror with the exchange.
    pair = 3 ** (2 * 7 + 2) + 2 * 3 ** (2 * 7 + 4)
    assert [g.index for g in band_symmetries(4, 7, pair)] == [0, 12]
    assert [g.index for g in band_symmetries(4, 7, 3 ** (2 * 7 + 1))] == [0]


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), frequent=st.sampled_from([1, 2, 3]),
       page=st.sampled_from([(100, 0), (1, 0), (2, 1), (3, 5)]))
def test_band_answers_equal_the_pure_scan(tmp_path_factory: Any, data: Any, frequent: int,
                                          page: tuple[int, int]) -> None:
    """A band's content taken from a game's position turned by any element,
    found by the segments' answers (every content that ``frequent`` games hit
    answered), reports what the pure path reports: matches of the page,
    counts and continuations; without a filter, with a filter of results and
    with one that takes games out of a winner's answer."""
    record = data.draw(sgfgen.records(st.sampled_from([9, 13, 19]), same_size=True,
                                      faults=False, max_depth=0, max_games=6))
    db = record_index(tmp_path_factory.mktemp("records"), record)
    size = record.games[0].size
    held = [game_id for game_id, _, positions in positions_of(db) if positions]
    depth, width = data.draw(st.sampled_from(BAND_SHAPES))
    if not held or width > size - 2:
        return
    draw_winners(data, db)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "FREQUENT", frequent)
        turned = turned_board(data, db, held, size).tolist()
        edge = data.draw(st.integers(0, 3))
        offset = data.draw(st.integers(1, size - 1 - width))
        diagram = _diagram(turned, size, edge, offset, depth, width)
        if PatternQuery(diagram).band is None:
            return  # no stone there
        event(f"a band {depth}x{width}, answered by {shape_answers(db, diagram)} segments")
        limit, offset = page
        for filters in (None, Filters(result="B"), Filters(result="W", min_rank="9d")):
            options = {"limit": limit, "offset": offset, "filters": filters}
            assert shape_result(db, diagram, pure=False, **options) == shape_result(
                db, diagram, pure=True, **options)


def _band_diagrams(rows: dict[int, str]) -> list[str]:
    """9x9 diagrams of a band 4 deep on the bottom edge (``rows``: line from the
    edge to its 9 symbols), turned onto each edge, and with colours
    exchanged."""
    lines = ["-" * 9] * 9
    for row, line in rows.items():
        lines[row] = line
    board = np.array([[".XO-".index(c) for c in line] for line in lines])
    out = []
    for g in ELEMENTS:
        turned = ELEMENTS[g.index % 8].image_array(board)
        if g.swap:
            turned = np.where((turned == 1) | (turned == 2), 3 - turned, turned)
        out.append("\n".join("".join(".XO-"[v] for v in line) for line in turned[::-1]))
    return out


# A lone stone on the third line, off the middle of its band: the band to its
# left and the one to its right hold it mirrored, and hit it at one position.
LONE = ["(;GM[1]FF[4]SZ[9]RE[B+R];B[dg];W[ff];B[cg])",
        "(;GM[1]FF[4]SZ[9]RE[W+R];B[eg];W[dg])",
        "(;GM[1]FF[4]SZ[9]RE[B+R]AB[ec][eg];W[ee];B[dc])"]


@pytest.mark.parametrize("shared", [0, 512])
@pytest.mark.parametrize("rows", [{0: "-.....---", 1: "-.....---", 2: "-..X..---",
                                   3: "-.....---"},
                                  {0: "-.....---", 1: "-.....---", 2: "-...X.---",
                                   3: "-.....---"}])
def test_a_lone_stone_answered_on_every_edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             rows: dict[int, str], shared: int) -> None:
    """Set up on two edges at once (the third game), or hit by two bands at one
    position (off the middle): those positions are summed up for each frame a
    query may have, or (with no answer allowed that) those games are left out
    of the answers and scanned; the counts and continuations are the pure
    path's in any frame."""
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "SHARED_BANDS", shared)
    db = build_index(tmp_path, write_records(tmp_path, "l", LONE))
    for diagram in _band_diagrams(rows):
        assert PatternQuery(diagram).band is not None
        assert shape_answers(db, diagram) == 1
        for filters in (None, Filters(result="B"), Filters(result="W")):
            for limit, offset in ((100, 0), (1, 0), (2, 1)):
                options = {"limit": limit, "offset": offset, "filters": filters}
                assert shape_result(db, diagram, pure=False, **options) == shape_result(
                    db, diagram, pure=True, **options)
    with Index(db, read_only=True) as index:
        (block,) = index._game_store(9).answers
    query = PatternQuery(_band_diagrams(rows)[0])
    assert query.band is not None and block is not None
    found = block.find(query.band.key, query.band.square)
    left = {int(g) for at in found for g in block.exceptions[block.exception_offsets[at]:
                                                             block.exception_offsets[at + 1]]}
    by_frame = [int(m) for at in found
                for m in block.moves[block.row_offsets[at] : block.row_offsets[at + 1]]
                if m >= 16 * 2 * 4 * 5]
    if shared:
        assert not left and by_frame
    else:
        assert 2 in left and not by_frame


# A shape no element but the identity keeps, played in both colours and won
# by each side, each followed by a move in the band: folded into the
# canonical frame with its colours and wins.
BOTH = ["(;GM[1]FF[4]SZ[9]RE[B+R];B[dg];W[eg];B[dh];W[cf])",
        "(;GM[1]FF[4]SZ[9]RE[W+R];B[aa];W[dg];B[eg];W[dh];B[ff])",
        "(;GM[1]FF[4]SZ[9]RE[B+R];B[dc];W[ec];B[db];W[fd])"]


def test_an_asymmetric_shape_played_in_both_colours(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    db = build_index(tmp_path, write_records(tmp_path, "b", BOTH))
    for diagram in _band_diagrams({0: "-.....---", 1: "-..X..---", 2: "-..XO.---",
                                   3: "-.....---"}):
        query = PatternQuery(diagram)
        assert query.band is not None and len(query.band.symmetries) == 1
        assert shape_answers(db, diagram) == 1
        found = shape_result(db, diagram, pure=False)
        assert found == shape_result(db, diagram, pure=True)
        assert (found["total"], found["games"]) == (3, 3)
        assert sum(c["black_wins"] + c["white_wins"] for c in found["continuations"]) == 3


# A two-space extension on the third line of a 13x13 board: the band one point
# over holds it mirrored, so both bands hit it at once in every game, then a
# move in both.
EXTENSION = ["(;GM[1]FF[4]SZ[13]RE[B+R];B[dk];W[kc];B[gk];W[fj])",
             "(;GM[1]FF[4]SZ[13]RE[W+R];B[kk];W[dk];B[cc];W[gk];B[ej];W[kj])",
             "(;GM[1]FF[4]SZ[13]RE[B+R];B[cd];W[kk];B[cg];W[bh])"]


def test_a_two_space_extension_summed_up_by_frame(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    db = build_index(tmp_path, write_records(tmp_path, "e", EXTENSION))
    lines = ["-.......-----", "-.......-----", "-.X..X..-----", "-.......-----"]
    for g in ELEMENTS:
        board = np.array([[".XO-".index(c) for c in line] for line in lines + ["-" * 13] * 9])
        turned = ELEMENTS[g.index % 8].image_array(board)
        if g.swap:
            turned = np.where((turned == 1) | (turned == 2), 3 - turned, turned)
        diagram = "\n".join("".join(".XO-"[v] for v in line) for line in turned[::-1])
        query = PatternQuery(diagram)
        assert query.band is not None
        assert shape_answers(db, diagram) == 1
        for limit, offset in ((100, 0), (1, 0), (2, 1)):
            options = {"limit": limit, "offset": offset}
            assert shape_result(db, diagram, pure=False, **options) == shape_result(
                db, diagram, pure=True, **options)
    found = shape_result(db, diagram)
    # Three games, one match each: the two bands hit at one position are one.
    assert (found["total"], found["games"]) == (3, 3)
    assert sum(c["count"] for c in found["continuations"]) == 3
    with Index(db, read_only=True) as index:
        (block,) = index._game_store(13).answers
    assert block is not None and query.band is not None
    assert all(block.exception_offsets[at] == block.exception_offsets[at + 1]
               for at in block.find(query.band.key, query.band.square))
