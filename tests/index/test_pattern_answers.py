"""Corner answers: the hits of frequent corner squares summed up once a segment
(gohash.pattern.answers), against the pure path, which scans every game."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gohash.errors import DamagedIndexError
from gohash.index import patterns as patterns_module
from gohash.index.filters import Filters
from gohash.index.index import Index
from gohash.index.patterns import answers_path, pattern_path
from gohash.pattern import answers as answers_module
from gohash.pattern import search
from gohash.pattern import store as store_module
from gohash.pattern.answers import AnswerFile
from gohash.pattern.corners import levels, squares
from gohash.pattern.search import PatternQuery, answer_segment
from gohash.pattern.store import PatternFile
from tests.support import sgfgen
from tests.support.pattern_index import (
    build_index,
    corner_diagram,
    draw_winners,
    positions_of,
    record_index,
    turned_board,
    write_records,
)


def _result(db: str, diagram: str, **options: Any) -> Any:
    with Index(db, read_only=True) as index:
        return index.pattern(diagram, **options).to_json(paths=False)


def _answered(db: str, diagram: str) -> int:
    """How many segments hold an answer of ``diagram``'s square."""
    query = PatternQuery(diagram)
    with Index(db, read_only=True) as index:
        store = index._game_store(query.size)
    if query.square is None or query.corner is None:
        return 0
    return sum(block is not None and bool(block.find(query.corner[0], query.square))
               for block in store.answers)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), frequent=st.sampled_from([1, 2, 3]),
       page=st.sampled_from([(100, 0), (1, 0), (2, 1), (3, 5)]),
       to_move=st.sampled_from([None, "b", "w"]))
def test_answers_equal_the_pure_scan(tmp_path_factory: Any, data: Any, frequent: int,
                                     page: tuple[int, int], to_move: str | None) -> None:
    """A fully specified corner square alone, taken from a game's position turned
    by any element, found by the segments' answers (every key that ``frequent``
    games hold answered), reports what the pure path reports: matches of the
    page, counts and continuations; without a filter, with a filter of
    results (which picks the answers of a winner), and with one that takes
    games out of a winner's answer (which is not used); with a side to move
    or without (every key answered for both sides too)."""
    record = data.draw(sgfgen.records(st.sampled_from([5, 9, 13, 19]), same_size=True,
                                      faults=False, max_depth=0, max_games=6))
    db = record_index(tmp_path_factory.mktemp("records"), record)
    size = record.games[0].size
    held = [game_id for game_id, _, positions in positions_of(db) if positions]
    if not held:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "FREQUENT", frequent)
        patch.setattr(search, "FREQUENT_TO_MOVE", frequent)
        turned = turned_board(data, db, held, size)
    side = data.draw(st.sampled_from(levels(size)))
    corner = data.draw(st.integers(0, 3))
    if not turned[squares(size, side)[corner]].any():
        return
    # Results drawn for the games (the generator writes none): answers are
    # one a winner, and a filter of results picks them.
    draw_winners(data, db)
    diagram = corner_diagram(turned.tolist(), size, corner, ["-"] * (size * size), side)
    # Every key a game holds is answered; where squares overlap (boards under
    # 2 x 7), the stones of one key may lie in two corners' squares, the
    # answer is of one of them, and the other is scanned.
    if frequent == 1 and 2 * side <= size:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(search, "FREQUENT", frequent)
            assert _answered(db, diagram) == 1
    limit, offset = page
    for filters in (None, Filters(result="B"), Filters(result="other"),
                    Filters(result="W", min_rank="9d")):
        options = {"limit": limit, "offset": offset, "filters": filters, "to_move": to_move}
        assert _result(db, diagram, pure=False, **options) == _result(db, diagram, pure=True,
                                                                      **options)


# The 4-4 points of a 9x9 board set up at once (a handicap), then White's move: a
# 5x5 corner square holds one 4-4 point, so the 4-4 alone is in all four at the
# setup, four placements hitting one position (whose match is the lowest
# placement's, so depends on the query's frame): those games are left out of
# the answers and scanned.  A 7x7 square of 9x9 holds all four 4-4 points.
HANDICAP = "(;GM[1]FF[4]SZ[9]RE[{result}]DT[{date}]AB[dd][df][fd][ff];W[{move}];B[cc])"


@pytest.fixture
def handicaps(tmp_path: Path) -> str:
    paths = write_records(tmp_path, "h", [
        HANDICAP.format(result=result, date=date, move=move)
        for result, date, move in [("B+R", "2001-01-01", "cg"), ("W+R", "2002-02-02", "gc"),
                                   ("B+3.5", "2003-03-03", "ee"), ("W+T", "1999-09-09", "cg")]])
    (tmp_path / "single.sgf").write_text("(;GM[1]FF[4]SZ[9]RE[B+R]DT[2004-04-04];B[df];W[cg])",
                                         encoding="utf-8")
    return build_index(tmp_path, [*paths, str(tmp_path / "single.sgf")])


# B D4 alone in the lower left 5x5 square of 9x9.
LONE_5 = "\n".join(["---------"] * 4 + [".....----", "...X.----", ".....----", ".....----",
                                        ".....----"])


def test_games_where_two_placements_hit_at_once_are_scanned(handicaps: str,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)
    seven = "\n".join(["---------"] * 2 + [".......--"] * 3 + ["...X...--"] + [".......--"] * 3)
    # The same squares with colours exchanged, and turned into another corner:
    # the answers' moves, colours and wins mapped back to the query's frame.
    swapped = LONE_5.replace("X", "O")
    turned = "\n".join(line[::-1] for line in reversed(seven.split("\n"))).replace("X", "O")
    frames = {PatternQuery(d).square.element.swap for d in (LONE_5, swapped)}  # type: ignore[union-attr]
    assert frames == {False, True}
    for diagram in (LONE_5, seven, swapped, turned):
        assert _answered(handicaps, diagram) == 1
        for to_move in (None, "b", "w"):
            query = PatternQuery(diagram, to_move=to_move)
            assert query.square is not None and query.corner is not None
            with Index(handicaps, read_only=True) as index:
                (block,) = index._game_store(9).answers
            assert block is not None and block.find(query.corner[0], query.square,
                                                    query.frame_to_move)
            for limit, offset in ((100, 0), (1, 0), (2, 3)):
                options = {"limit": limit, "offset": offset, "to_move": to_move}
                assert _result(handicaps, diagram, pure=False, **options) == _result(
                    handicaps, diagram, pure=True, **options)
    with Index(handicaps, read_only=True) as index:
        (block,) = index._game_store(9).answers
    assert block is not None

    def answer(diagram: str) -> tuple[list[int], int, int]:
        """The games left out, the matches and games hit of ``diagram``'s answers
        (one a winner of the games that hold its square)."""
        query = PatternQuery(diagram)
        assert query.corner is not None and query.square is not None and block is not None
        found = block.find(query.corner[0], query.square)
        assert found
        left = [g for at in found for g in block.exceptions[
            block.exception_offsets[at] : block.exception_offsets[at + 1]].tolist()]
        return (sorted(left), sum(int(block.totals[at]) for at in found),
                sum(int(block.games[at]) for at in found))

    # The four handicap games scanned, the last game answered.
    assert answer(LONE_5) == ([0, 1, 2, 3], 1, 1)
    # Only the last game holds a lone 4-4 point in a 7x7 square.
    assert answer(seven) == ([], 1, 1)
    found = _result(handicaps, LONE_5)
    assert (found["total"], found["games"]) == (5, 5)
    c3 = found["continuations"][0]
    assert (c3["gtp"], c3["count"], c3["black_wins"], c3["white_wins"], c3["first_date"],
            c3["last_date"]) == ("C3", 3, 2, 1, "1999-09-09", "2004-04-04")


def test_answers_follow_a_game_s_winner_changed(handicaps: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)
    before = _result(handicaps, LONE_5, pure=False)
    with sqlite3.connect(handicaps) as db:
        db.execute("UPDATE games SET winner = CASE winner WHEN 'B' THEN 'W' ELSE 'B' END, "
                   "date = '1990-01-01'")
    after = _result(handicaps, LONE_5, pure=False)
    assert after != before
    assert after == _result(handicaps, LONE_5, pure=True)


def test_the_answers_file_is_read_again_and_made_again_when_damaged(
        handicaps: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)
    expected = _result(handicaps, LONE_5, pure=True)
    assert _result(handicaps, LONE_5, pure=False) == expected
    path = answers_path(handicaps, 9)
    blocks = AnswerFile(path, 9).read()
    assert len(blocks) == 1 and len(blocks[0].keys)
    # Copied: the blocks are views of the file, which is damaged in place below.
    columns = {name: np.array(getattr(blocks[0], name)) for name in answers_module.ANSWER_COLUMNS}
    made = []
    monkeypatch.setattr(patterns_module, "answer_segment", lambda *a, **k: made.append(1))
    # Read again: nothing is made.
    assert _result(handicaps, LONE_5, pure=False) == expected and not made
    monkeypatch.undo()
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)
    data = bytearray(Path(path).read_bytes())
    data[-3] ^= 0xFF
    Path(path).write_bytes(bytes(data))
    assert AnswerFile(path, 9).read() == []
    assert _result(handicaps, LONE_5, pure=False) == expected
    again = AnswerFile(path, 9).read()
    assert len(again) == 1
    assert all(np.array_equal(getattr(again[0], name), columns[name]) for name in columns)


def test_a_removed_game_is_scanned_not_answered(handicaps: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)
    with Index(handicaps) as index:
        index.pattern(LONE_5)
        index.remove([os.path.join(os.path.dirname(handicaps), "h0.sgf")])
    assert _result(handicaps, LONE_5, pure=False) == _result(handicaps, LONE_5, pure=True)


def test_answer_segment_of_no_frequent_key_is_empty(handicaps: str) -> None:
    with Index(handicaps, read_only=True) as index:
        store = index._game_store(9)
        block = answer_segment(store, 0, frequent=10)
    assert len(block.keys) == len(block.moves) == 0
    assert block.exception_offsets.tolist() == block.row_offsets.tolist() == [0]


def test_without_a_writable_folder_answers_are_kept_in_memory(
        handicaps: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)

    def refused(self: AnswerFile, blocks: Any) -> None:
        raise PermissionError(13, "Permission denied", self.path)

    monkeypatch.setattr(AnswerFile, "write", refused)
    expected = _result(handicaps, LONE_5, pure=True)
    assert _result(handicaps, LONE_5, pure=False) == expected
    assert not os.path.exists(answers_path(handicaps, 9))
    assert _answered(handicaps, LONE_5) == 1


def test_index_check_verifies_the_answers(handicaps: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)
    with Index(handicaps, read_only=True) as index:
        index.pattern(LONE_5)
        assert index.check() == []
    path = answers_path(handicaps, 9)
    (block,) = AnswerFile(path, 9).read()
    # A count changed, the block's CRC made again: only the recount tells.
    changed = answers_module.SegmentAnswers(
        block.stamp, **{name: np.array(getattr(block, name)) for name in
                        answers_module.ANSWER_COLUMNS})
    changed.count[0] += 1
    AnswerFile(path, 9).write([changed])
    with Index(handicaps, read_only=True) as index:
        (fault,) = index.check()
    assert "answers of segment 0 are not those of its games" in fault
    # A damaged block: reported, and made again by the next search.
    data = bytearray(Path(path).read_bytes())
    data[-1] ^= 0xFF
    Path(path).write_bytes(bytes(data))
    with Index(handicaps, read_only=True) as index:
        (fault,) = index.check()
        assert "damaged" in fault and "makes it again" in fault
        index.pattern(LONE_5)
    with Index(handicaps, read_only=True) as index:
        assert index.check() == []


def test_games_added_make_only_their_segment_s_answers(handicaps: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)
    folder = Path(handicaps).parent
    (folder / "more.sgf").write_text(
        "(;GM[1]FF[4]SZ[9]RE[W+R]DT[2005-05-05];B[df];W[ee];B[cg])", encoding="utf-8")
    made: list[int] = []
    real = search.answer_segment

    def counted(store: Any, s: int, **options: Any) -> Any:
        made.append(s)
        return real(store, s, **options)

    monkeypatch.setattr(patterns_module, "answer_segment", counted)
    with Index(handicaps) as index:
        index.pattern(LONE_5)
        assert made == [0]
        index.build([str(folder / "more.sgf")])
        found = index.pattern(LONE_5).to_json(paths=False)
    assert made == [0, 1]
    assert len(AnswerFile(answers_path(handicaps, 9), 9).read()) == 2
    assert found == _result(handicaps, LONE_5, pure=True)
    assert found["total"] == 6


@pytest.mark.parametrize("result", ["B", "W", "other"])
def test_a_filter_of_results_reads_that_winner_s_answers(handicaps: str, result: str,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)
    picked: list[list[int]] = []
    real = PatternQuery._answer_part

    def recorded(self: PatternQuery, chosen: Any, store: Any) -> Any:
        picked.append([int(block.winners[at]) for block, at, _ in chosen])
        return real(self, chosen, store)

    monkeypatch.setattr(PatternQuery, "_answer_part", recorded)
    filters = Filters(result=result)
    found = _result(handicaps, LONE_5, pure=False, filters=filters)
    # No game of the fixture has another result: no answer is read.
    assert picked == {"B": [[1]], "W": [[2]], "other": []}[result]
    assert found == _result(handicaps, LONE_5, pure=True, filters=filters)
    assert found["total"] == {"B": 3, "W": 2, "other": 0}[result]


def test_a_damaged_change_is_the_scan_s_error_not_the_answers(handicaps: str,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """A change word whose old value is no colour (the file's CRC is checked by
    `index check`, not by a search): the answers leave its segment out, and the
    search's scan names the damaged file, as without answers."""
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)
    with Index(handicaps, read_only=True) as index:
        index.pattern(LONE_5)
    path = pattern_path(handicaps, 9)
    file = PatternFile(path, 9)
    (segment,), _ = file.read()
    layout = store_module._layout(len(segment), len(segment.flat.next_colour),
                                  len(segment.flat.changes), file.width, len(segment.corners))
    # The second game's first change, in the first segment's body: its keys'
    # queries come from the first game, and their scans meet it.
    offset = store_module._FILE.size + store_module._SEGMENT.size + next(
        at for name, _, _, at in layout.placed if name == "changes") + 2 * int(
        segment.flat.change_offsets[1])
    del segment
    with open(path, "r+b") as f:
        f.seek(offset)
        word = int.from_bytes(f.read(2), "little")
        f.seek(offset)
        f.write((word | 0b1100).to_bytes(2, "little"))
    Path(answers_path(handicaps, 9)).unlink()
    with Index(handicaps, read_only=True) as index, pytest.raises(
            DamagedIndexError, match=r"pattern file .* is damaged"):
        index.pattern(LONE_5)


def test_a_square_held_after_a_node_that_changes_nothing(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A node that changes nothing (a pass) keeps a word of point 0 that is no
    change: the stones of a square found again by replaying its game are not
    those of that word (the square holding A1 alone, first after a pass)."""
    monkeypatch.setattr(search, "FREQUENT", 1)
    monkeypatch.setattr(search, "FREQUENT_TO_MOVE", 1)
    path = tmp_path / "pass.sgf"
    path.write_text("(;GM[1]FF[4]SZ[9]AB[ai]AW[bh];W[];AE[bh];B[ee])", encoding="utf-8")
    db = build_index(tmp_path, [str(path)])
    lone = "\n".join(["---------"] * 4 + [".....----"] * 4 + ["X....----"])
    assert _answered(db, lone) == 1
    for to_move in (None, "b", "w"):
        assert _result(db, lone, pure=False, to_move=to_move) == _result(
            db, lone, pure=True, to_move=to_move)
