"""Index.pattern: the boards it reads from the index, its hits against the
brute-force reference of tests/pattern/test_pattern.py, its continuations."""

from __future__ import annotations

import itertools
import json
import os
import threading
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from gohash.cli import main
from gohash.errors import DamagedIndexError, OptionError, QueryCancelled, QueryTooBroad
from gohash.explorer.app import create_app
from gohash.group.schemes import scheme
from gohash.group.symmetry import ELEMENTS
from gohash.index import patterns as patterns_module
from gohash.index.filters import Filters
from gohash.index.games import replay_pure
from gohash.index.index import Index
from gohash.index.pattern_search import _game_boards
from gohash.index.patterns import STORE_TEXTS, pattern_path, store_path
from gohash.index.schema import generation
from gohash.pattern import _match, search
from gohash.pattern import corners as corners_module
from gohash.pattern import store as store_module
from gohash.pattern.corners import CORNER_SCHEME, SALTS, corner_games, levels, squares
from gohash.pattern.search import PatternQuery
from gohash.pattern.store import NO_LEVEL, PatternFile, StoreFile, Texts
from gohash.segments import padded
from tests.support import sgfgen
from tests.support.env import ROOT, require_corpus
from tests.support.pattern_index import (
    build_index,
    corner_diagram,
    positions_of,
    record_index,
    stored_boards,
)
from tests.support.patterns import diagrams, ever_bitmaps, game_arrays, reference_hits

DATA = ROOT / "data" / "sgf"

# B D4 on an empty lower-left corner of 9x9, as a 5x5 corner pattern.
CORNER_9 = "\n".join(["---------"] * 4 + [".....----", "...X.----", ".....----", ".....----",
                                          ".....----"])


def test_game_boards_are_the_games_positions(tmp_path: Path) -> None:
    db = build_index(tmp_path, [str(p) for p in sorted(DATA.glob("*.sgf"))])
    with Index(db, read_only=True) as index:
        for game_id, size, _ in positions_of(db):
            game = stored_boards(index, game_id)
            again = index.game(game_id).positions
            assert len(again) == len(game.boards)
            for i, position in enumerate(again):
                assert (game.boards[i] == position.stones.reshape(-1)).all()
                assert game.move_numbers[i] == position.move_number
                if i + 1 < len(again) and again[i + 1].colour and not again[i + 1].setup:
                    after = again[i + 1]
                    assert "bw"[game.next_colour[i] - 1] == after.colour
                    point = -1 if after.point is None else after.point[0] * size + after.point[1]
                    assert game.next_point[i] == point


def _record_hits(db: str, diagram: str, **options: Any) -> set[tuple[int, int]]:
    with Index(db, read_only=True) as index:
        found = index.pattern(diagram, limit=None, **options)
    return {(m.record.game, m.seq) for m in found.matches}


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), symmetry=st.sampled_from(["full", "d4", "none"]))
def test_index_pattern_equals_the_reference(tmp_path_factory: Any, data: Any,
                                            symmetry: str) -> None:
    record = data.draw(sgfgen.records(st.integers(3, 7), same_size=True, faults=False,
                                      max_depth=0))
    db = record_index(tmp_path_factory.mktemp("records"), record)
    size = record.games[0].size
    diagram = data.draw(diagrams(size))
    # The reference replays as sgfmill does (suicide, ko retaken); the index
    # holds each game up to its first illegal move: the positions before it (a
    # game whose root is in error, such as a handicap no board of its size has,
    # none at all).
    with Index(db, read_only=True) as index:
        held = dict(index._db.execute("SELECT game, positions FROM games").fetchall())
    expected = set()
    for number, game in enumerate(record.games):
        arrays = game_arrays(sgfgen.Record((game,)))
        positions = {position for _, position, _, _ in reference_hits(diagram, symmetry, arrays)}
        expected |= {(number, position) for position in positions
                     if position < held.get(number, 0)}
    for compiled in (False, True):
        assert _record_hits(db, diagram, symmetry=symmetry, pure=not compiled) == expected
    # The inverted filter keeps every game the reference finds a hit in.
    with Index(db, read_only=True) as index:
        store = index._game_store(size)
        words = np.bitwise_or.reduce(
            PatternQuery(diagram, symmetry=symmetry).matcher.alive(store.columns, 0, len(store)))
        flags = np.unpackbits(words.view(np.uint8), bitorder="little")[: len(store)]
        kept = set(store.ids[flags.astype(bool) & store.live].tolist())
        numbers = dict(index._db.execute("SELECT game, id FROM games").fetchall())
    assert {numbers[number] for number, _ in expected} <= kept


def _everything(db: str, diagram: str, **options: Any) -> Any:
    """All a search reports: its matches and its continuations."""
    with Index(db, read_only=True) as index:
        found = index.pattern(diagram, limit=None, **options)
    return ([(m.record.id, m.seq, m.move_number, m.element, m.offset, m.to_move,
              m.continuation, m.tenuki, m.placements) for m in found.matches],
            found.continuations, found.searched, found.candidates)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), symmetry=st.sampled_from(["full", "d4", "none"]),
       to_move=st.sampled_from([None, "b", "w"]), max_move=st.none() | st.integers(0, 30),
       rule=st.sampled_from([None, 0, 1, 1 << 30]))
def test_scan_equals_the_pure_path(tmp_path_factory: Any, data: Any, symmetry: str,
                                   to_move: str | None, max_move: int | None,
                                   rule: int | None) -> None:
    """The compiled scan (all games in one call, each on one board) reports what
    the pure path does: each game replayed into its boards, matched by
    match_python; several games, so that the scan's state carries over.  Its
    changes follow the bitsets of the placements alive or the lists of all as
    its rule says (``rule``: the kernel's own, bitsets wherever a placement is
    dead, mostly bitsets, lists only), and it sums the matches up itself: the
    same counts and continuations as the pure path's sums."""
    record = data.draw(sgfgen.records(st.integers(3, 7), same_size=True, faults=False,
                                      max_depth=0, max_games=4))
    folder = tmp_path_factory.mktemp("records")
    path = folder / "games.sgf"
    path.write_text(record.sgf(), encoding="utf-8")
    db = build_index(folder, [str(path)])
    diagram = data.draw(diagrams(record.games[0].size))
    options = {"symmetry": symmetry, "to_move": to_move, "max_move": max_move}
    with pytest.MonkeyPatch.context() as patch:
        if rule is not None:
            patch.setattr(_match, "Kernel", _ruled(rule))
        compiled = _everything(db, diagram, pure=False, **options)
    assert compiled == _everything(db, diagram, pure=True, **options)


def _ruled(rule: int) -> type:
    """The compiled kernel with ``rule`` for when a change follows its lists."""
    class Ruled(_match.Kernel):  # type: ignore[misc]
        def __init__(self, matcher: Any) -> None:
            super().__init__(matcher)
            self.list_rule = rule

    return Ruled


def test_scan_grows_its_room_for_events(tmp_path: Path) -> None:
    # A corner point set and cleared 150 times: more presence events than the
    # scan has room for at first; it makes room and replays the game again.
    toggles = ";AB[aa];AE[aa]" * 150
    (tmp_path / "t.sgf").write_text(f"(;GM[1]FF[4]SZ[9]{toggles};B[ee])", encoding="utf-8")
    (tmp_path / "u.sgf").write_text("(;GM[1]FF[4]SZ[9];B[aa];W[ee])", encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / "t.sgf"), str(tmp_path / "u.sgf")])
    corner = "\n".join(["---------"] * 8 + ["X--------"])
    found = _everything(db, corner, pure=False)
    assert found == _everything(db, corner, pure=True)
    assert [(m[0], m[1]) for m in found[0]] == [(1, 1), (2, 1)]
    assert found[0][0][6:8] == (None, False)  # setup nodes follow: no move in the corner


# Four games, each with B at the 4-4 point of a corner (or White's, with colours
# exchanged), then the next move nearby, after a tenuki, or none.
FOUR = {
    # B D4, W C3 (answer inside the region, no tenuki)
    "a.sgf": "(;GM[1]FF[4]SZ[9]RE[B+R]DT[2001-01-01];B[df];W[cg])",
    # B F6 (upper right, turned), W tenuki at A9, then W G7
    "b.sgf": "(;GM[1]FF[4]SZ[9]RE[W+R]DT[2003-05-01];B[fd];W[aa];W[gc])",
    # W D4 first: colours exchanged; B C3 answers, seen as W C3
    "c.sgf": "(;GM[1]FF[4]SZ[9]RE[W+3]DT[2002];W[df];B[cg])",
    # B D4 and nothing more
    "d.sgf": "(;GM[1]FF[4]SZ[9]RE[B+1];B[df])",
}


@pytest.fixture
def four(tmp_path: Path) -> str:
    for name, text in FOUR.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return build_index(tmp_path, [str(tmp_path / name) for name in sorted(FOUR)])


def test_continuations_in_the_query_colours(four: str) -> None:
    db = four
    with Index(db, read_only=True) as index:
        found = index.pattern(CORNER_9)
        assert found.games == found.total == 4
        assert [m.move_number for m in found.matches] == [1, 1, 1, 1]
        assert [m.colours_exchanged for m in found.matches] == [False, False, True, False]
        assert found.ended == 1
        (c3,) = found.continuations
        assert (c3.colour, c3.point, c3.count, c3.tenuki) == ("w", (2, 2), 3, 1)
        # Query's Black won a.sgf; b.sgf White; c.sgf: White (the query's Black) won.
        assert (c3.black_wins, c3.white_wins, c3.other) == (2, 1, 0)
        assert (c3.first_date, c3.last_date) == ("2001-01-01", "2003-05-01")
        assert index.pattern(CORNER_9, symmetry="d4").total == 3
        assert index.pattern(CORNER_9, symmetry="none").total == 2
        assert index.pattern(CORNER_9, to_move="w").total == 4
        # Black to move: only b.sgf, after White's tenuki, where the shape still stood.
        (black,) = index.pattern(CORNER_9, to_move="b").matches
        assert (black.record.file.endswith("b.sgf"), black.move_number) == (True, 2)
        assert index.pattern(CORNER_9, max_move=0).total == 0
        assert index.pattern(CORNER_9, sequence="W C3").total == 3
        assert index.pattern(CORNER_9, sequence="B C3").total == 0
        assert index.pattern(CORNER_9, filters=Filters(result="W")).total == 2
        assert len(index.pattern(CORNER_9, limit=1).matches) == 1
        # An empty 2x2 corner is in all four corners of the empty board: one
        # match of four placements, and no other (each placement hits once).
        empty = "\n".join(["..-------", "..-------"] + ["---------"] * 7)
        first = index.pattern(empty).matches[0]
        assert (first.move_number, first.placements) == (0, 4)
        assert index.pattern(empty).total == 4
        with pytest.raises(OptionError):
            index.pattern(CORNER_9, to_move="x")


@pytest.mark.corpus
def test_corpus_games_equal_the_reference(tmp_path: Path) -> None:
    corpus = require_corpus()
    files = sorted((corpus / "kgs-6d").rglob("*.sgf"))[:12]
    db = build_index(tmp_path, [str(p) for p in files])
    corner = "\n".join(["-" * 19] * 12 + ["*******" + "-" * 12] + ["*******" + "-" * 12] * 2
                       + [".......------------", "...X...------------", "..x....------------",
                          ".......------------"])
    side = "\n".join(["-" * 19] * 14 + ["----.....----------", "----..O..----------",
                                         "----.XX..----------", "----.....----------",
                                         "----.....----------"])
    local = "\n".join(["-" * 19] * 8 + ["--------XO---------", "--------OX---------"]
                      + ["-" * 19] * 9)
    with Index(db, read_only=True) as index:
        rows = positions_of(db)
        for diagram in (corner, side, local):
            found = {(m.record.id, m.seq) for m in index.pattern(diagram, limit=None).matches}
            expected = set()
            for game_id, size, _ in rows:
                game = stored_boards(index, game_id)
                arrays = {
                    "size": size, "boards": game.boards.tolist(),
                    "move_numbers": game.move_numbers.tolist(),
                    "to_move": game.to_move.tolist(), "next_colour": game.next_colour.tolist(),
                    "next_point": game.next_point.tolist(),
                }
                expected |= {(game_id, p) for _, p, _, _ in reference_hits(diagram, "full",
                                                                            arrays)}
            assert found == expected
            assert found, "the patterns were chosen to occur"


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory: pytest.TempPathFactory) -> str:
    files = sorted((require_corpus() / "ai-games").rglob("*.sgf"))[:4]
    return build_index(tmp_path_factory.mktemp("corpus"), [str(p) for p in files])


@st.composite
def edge_diagrams(draw: Any) -> str:
    """A random 19x19 pattern of 2 to 5 rows and columns in a corner or on a side
    (few placements, so that the reference stays quick)."""
    height, width = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    top = draw(st.sampled_from([0, 19 - height]))
    left = draw(st.sampled_from([0, 19 - width, 1 + draw(st.integers(0, 17 - width))]))
    rows = [["-"] * 19 for _ in range(19)]
    for r in range(top, top + height):
        for c in range(left, left + width):
            rows[r][c] = draw(st.sampled_from("XO.*xo.."))
    return "\n".join("".join(row) for row in rows)


@pytest.mark.corpus
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(diagram=edge_diagrams(), symmetry=st.sampled_from(["full", "d4"]))
def test_random_patterns_on_corpus_games(corpus_index: str, diagram: str,
                                         symmetry: str) -> None:
    with Index(corpus_index, read_only=True) as index:
        found = {(m.record.id, m.seq)
                 for m in index.pattern(diagram, symmetry=symmetry, limit=None).matches}
        expected = set()
        for game_id, size, _ in positions_of(corpus_index):
            game = stored_boards(index, game_id)
            arrays = {
                "size": size, "boards": game.boards.tolist(),
                "move_numbers": game.move_numbers.tolist(), "to_move": game.to_move.tolist(),
                "next_colour": game.next_colour.tolist(), "next_point": game.next_point.tolist(),
            }
            expected |= {(game_id, p) for _, p, _, _ in reference_hits(diagram, symmetry, arrays)}
    assert found == expected


@pytest.mark.corpus
def test_the_view_shows_the_pattern_at_its_view_offset(corpus_index: str) -> None:
    """A viewer turns a hit's game by its ``view``; the pattern is then where the query
    drew it, moved by ``view_offset``: checked on the game's own positions (turned by
    the element's array map, not by its point map), for patterns that slide."""
    side = ["-" * 19] * 15 + ["-----.....---------", "-----..X..---------",
                              "-----.....---------", "-----.....---------"]
    local = ["-" * 19] * 8 + ["--------...--------", "--------.X.--------",
                              "--------.O.--------"] + ["-" * 19] * 8
    with Index(corpus_index, read_only=True) as index:
        for lines in (side, local):
            found = index.pattern("\n".join(lines), limit=None)
            assert found.matches and any(m.offset != (0, 0) for m in found.matches)
            for m in found.matches:
                shown = m.element.inverse.image_array(
                    index.game(m.record.id).positions[m.seq].stones)
                dr, dc = m.view_offset
                for top, line in enumerate(lines):
                    for c, ch in enumerate(line):
                        if ch in "XO.":
                            # Diagram rows are top first; board rows count from the bottom.
                            assert shown[18 - top + dr, c + dc] == ".XO".index(ch), m


def test_game_boards_of_a_damaged_index_is_an_error(tmp_path: Path) -> None:
    db = build_index(tmp_path, [str(DATA / "game-9x9.sgf")])
    with Index(db) as index:
        # A stored game cut short: it no longer replays to its nodes.
        index._db.execute("UPDATE games SET record = substr(record, 1, 4)")
        index._db.commit()
    # Opening the index, or the search, tells: the value checks find it first.
    with pytest.raises(DamagedIndexError,
                       match=r"damaged: game 1: nodes \d+ is not a count of nodes its record"), \
            Index(db, read_only=True) as index:
        index.pattern(CORNER_9)


def test_scan_grows_its_table_of_hits(tmp_path: Path) -> None:
    # An empty point off the edges: 49 placements, all hit at the start of each
    # of 30 games, more hits than the scan's first table holds.
    (tmp_path / "many.sgf").write_text("(;GM[1]FF[4]SZ[9];B[ee];W[cc])" * 30, encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / "many.sgf")])
    point = "\n".join(["---------"] * 4 + ["----.----"] + ["---------"] * 4)
    found = _everything(db, point, pure=False)
    assert found == _everything(db, point, pure=True)
    assert sum(m[8] for m in found[0]) >= 30 * 49 > 1024


def test_scan_reads_the_main_line_of_an_index_with_variations(tmp_path: Path) -> None:
    # The variations are stored after the main line: the scan replays the main
    # line only, on one board, and finds what the pure path finds.
    (tmp_path / "v.sgf").write_text(
        "(;GM[1]FF[4]SZ[9];B[cg];W[gc](;B[ee];W[dd])(;B[dd];W[ee];B[cc]))", encoding="utf-8")
    db = str(tmp_path / "index.db")
    with Index(db, create=True, variations=True) as index:
        index.build([str(tmp_path / "v.sgf")])
    c3 = "\n".join(["---------"] * 4 + [".....----", ".....----", "..X..----", ".....----",
                                         ".....----"])
    found = _everything(db, c3, pure=False)
    assert found == _everything(db, c3, pure=True)
    assert [(m[1], m[6]) for m in found[0]] == [(1, ("b", (4, 4))), (2, ("w", (4, 4)))]


def test_ever_bitmaps_of_the_wrong_width_are_an_error(tmp_path: Path) -> None:
    db = build_index(tmp_path, [str(DATA / "game-9x9.sgf")])
    with Index(db) as index:
        index._db.execute("UPDATE games SET ever_black = ?", (bytes(3),))
        index._db.commit()
    for compiled in (False, True):
        with pytest.raises(DamagedIndexError, match="ever_black x'000000' is not a bitmap of "
                                                     "its board's points"), \
                Index(db, read_only=True) as index:
            index.pattern(CORNER_9, pure=not compiled)


def test_boards_are_int8_and_contiguous(tmp_path: Path) -> None:
    db = build_index(tmp_path, [str(DATA / "game-9x9.sgf")])
    with Index(db, read_only=True) as index:
        ((game_id, _, _),) = positions_of(db)
        game = stored_boards(index, game_id)
    assert game.boards.dtype == np.int8 and game.boards.flags.c_contiguous
    assert list(itertools.islice(game.move_numbers.tolist(), 3)) == [0, 1, 2]


def test_continuations_merge_under_the_patterns_symmetries(tmp_path: Path) -> None:
    # CORNER_9 is its own mirror image across the diagonal through A1 and D4:
    # W C4 and W D3 are one continuation.
    for name, answer in (("c4.sgf", "cf"), ("d3.sgf", "dg")):
        (tmp_path / name).write_text(f"(;GM[1]FF[4]SZ[9];B[df];W[{answer}])", encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / "c4.sgf"), str(tmp_path / "d3.sgf")])
    with Index(db, read_only=True) as index:
        found = index.pattern(CORNER_9)
        (move,) = found.continuations
        assert (move.colour, move.point, move.equivalent, move.count) == (
            "w", (3, 2), ((2, 3), (3, 2)), 2)
        assert {m.continuation for m in found.matches} == {("w", (3, 2)), ("w", (2, 3))}
        # Searched as drawn, the pattern has no symmetry: two continuations.
        assert len(index.pattern(CORNER_9, symmetry="none").continuations) == 2


def test_stored_bitmaps_pick_the_games_before_they_are_read(four: str) -> None:
    """The games table's ever_black/ever_white (bit i: point i counted row by row
    from the top, little-endian bytes) are the bitmaps of the games' boards, and
    filter before a game is read."""
    with Index(four, read_only=True) as index:
        before = index.pattern(CORNER_9, limit=None)
        games = positions_of(four)
        for game_id, size, _ in games:
            stored = index._db.execute("SELECT ever_black, ever_white FROM games WHERE id = ?",
                                       (game_id,)).fetchone()
            assert tuple(int.from_bytes(b, "little") for b in stored) == ever_bitmaps(
                stored_boards(index, game_id).boards, size)
    with Index(four) as index:
        # The last game claims no stone ever stood: it is not read at all.
        index._db.execute("UPDATE games SET ever_black = ?, ever_white = ? WHERE id = ?",
                          (bytes(11), bytes(11), games[-1][0]))
        index._db.commit()
    # The pattern file holds the bitmaps as they were: without it, they are read again.
    os.remove(pattern_path(four, 9))
    with Index(four, read_only=True) as index:
        after = index.pattern(CORNER_9, limit=None)
    assert after.candidates == before.candidates - 1
    assert [(m.record.id, m.seq) for m in after.matches] == [
        (m.record.id, m.seq) for m in before.matches if m.record.id != games[-1][0]]


def test_symmetries_of_patterns() -> None:
    from gohash.pattern.diagram import parse_pattern, symmetries

    assert [g.name for g in symmetries(parse_pattern(CORNER_9))] == ["identity", "transpose"]
    crosscut = parse_pattern("....\n.XO.\n.OX.\n....")
    assert len(symmetries(crosscut)) == 8
    assert len(symmetries(crosscut, "d4")) == 4
    assert symmetries(crosscut, "none") == symmetries(crosscut)[:1]


def test_cli_pattern(four: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    diagram = tmp_path / "corner.txt"
    diagram.write_text(CORNER_9, encoding="utf-8")
    assert main(["index", "pattern", four, str(diagram)]) == 0
    out, err = capsys.readouterr()
    assert "9x9 pattern, 8 placements: 4 hits in 4 games (4 of 4 games replayed)" in err
    assert out.splitlines()[1].split()[:4] == ["W", "C3", "3", "1"]
    assert main(["index", "pattern", four, str(diagram), "--format", "json", "--symmetry",
                 "none", "--sequence", "W C3"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["total"], answer["placements"]) == (1, 1)
    assert answer["matches"][0]["next_move"] is None
    assert main(["index", "pattern", four, str(diagram), "--to-move", "b",
                 "--format", "json"]) == 0
    (hit,) = json.loads(capsys.readouterr().out)["matches"]
    assert (hit["move_number"], hit["element"], hit["to_move"]) == (2, "rot180", "b")
    assert main(["index", "pattern", four, str(tmp_path / "missing.txt")]) == 2
    assert "cannot read the diagram" in capsys.readouterr().err
    diagram.write_text("X?\n..\n", encoding="utf-8")
    assert main(["index", "pattern", four, str(diagram)]) == 2
    assert "point B2 (row 2) holds '?'" in capsys.readouterr().err
    diagram.write_text(CORNER_9, encoding="utf-8")
    assert main(["index", "pattern", four, str(diagram), "--sequence", "B J9"]) == 2
    assert "outside the pattern's region" in capsys.readouterr().err


def test_server_pattern_endpoint(four: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    with TestClient(create_app(four), raise_server_exceptions=False,
                    base_url="http://localhost") as client:
        response = client.get("/api/pattern", params={"diagram": CORNER_9, "limit": 2})
        assert response.status_code == 200, response.text
        answer = response.json()
        assert (answer["total"], answer["games"], answer["placements"]) == (4, 4, 8)
        assert len(answer["matches"]) == 2
        assert answer["continuations"][0] == {
            "colour": "w", "point": [2, 2], "gtp": "C3", "sgf": "cg", "equivalent": [[2, 2]],
            "count": 3, "tenuki": 1, "black_wins": 2, "white_wins": 1, "other": 0,
            "first_date": "2001-01-01", "last_date": "2003-05-01"}
        first = answer["matches"][0]
        assert "file" not in first
        assert (first["source"], first["move_number"], first["element"],
                first["next_move"]["gtp"]) == ("a.sgf", 1, "identity", "C3")
        # One form of the pattern's results: the CLI's JSON is the server's (the
        # games' records aside, whose forms are the CLI's and the server's own).
        diagram = tmp_path / "corner.txt"
        diagram.write_text(CORNER_9, encoding="utf-8")
        assert main(["index", "pattern", four, str(diagram), "--format", "json",
                     "--limit", "2"]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert {k: v for k, v in printed.items() if k != "matches"} == {
            k: v for k, v in answer.items() if k != "matches"}
        for mine, theirs in zip(printed["matches"], answer["matches"], strict=True):
            for name in ("move_number", "seq", "element", "view", "offset", "next_move",
                         "tenuki", "placements", "to_move", "colours_exchanged"):
                assert mine[name] == theirs[name]
        # A page of hits further on: the same hits as the whole list's, the same counts.
        every = client.get("/api/pattern", params={"diagram": CORNER_9}).json()
        later = client.get("/api/pattern", params={"diagram": CORNER_9, "offset": 1,
                                                   "limit": 2}).json()
        assert later["offset"] == 1 and later["total"] == every["total"]
        assert later["matches"] == every["matches"][1:3]
        assert later["continuations"] == every["continuations"]
        answer = client.get("/api/pattern", params={"diagram": CORNER_9, "result": "W",
                                                    "symmetry": "d4"}).json()
        assert answer["total"] == 1
        for params, message in (
            ({}, "diagram is missing"),
            ({"diagram": "X?\n.."}, "holds '?'"),
            ({"diagram": CORNER_9, "symmetry": "d8"}, "symmetry must be one of"),
            ({"diagram": CORNER_9, "colour": "b"}, "unknown parameter"),
        ):
            response = client.get("/api/pattern", params=params)
            assert response.status_code == 400, response.text
            assert message in response.json()["error"]


def _both_paths(tmp_path: Path, records: dict[str, str], diagram: str,
                **options: Any) -> Any:
    """The matches of ``diagram`` in an index of ``records`` (file name to SGF
    text), the same on the compiled and the pure path."""
    for name, text in records.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / name) for name in records])
    found = _everything(db, diagram, pure=False, **options)
    assert found == _everything(db, diagram, pure=True, **options)
    return found


def test_a_stone_later_captured_does_not_end_the_search(tmp_path: Path) -> None:
    # White B1 stands where the pattern needs an empty point until Black A1
    # captures it: the scan follows a placement past a stone that leaves again.
    # In d.sgf, stones that stay where either placement needs an empty point: no hit.
    a1 = "\n".join(["---------"] * 8 + ["X.-------"])
    found = _both_paths(tmp_path, {
        "c.sgf": "(;GM[1]FF[4]SZ[9];W[bi];B[ci];W[ee];B[bh];W[ff];B[ai];W[hb])",
        "d.sgf": "(;GM[1]FF[4]SZ[9];W[bi];B[ah];W[ee];B[ai])"}, a1)
    assert [(m[0], m[2]) for m in found[0]] == [(1, 6)]


def test_a_continuation_far_from_its_hit(tmp_path: Path) -> None:
    # Black A1, then 36 moves elsewhere: the scan looks a few moves on, then
    # finds the continuation from the region's points (White B1, or none).
    black = [f"{c}{r}" for r in "ac" for c in "abcdefghi"]
    white = [f"{c}{r}" for r in "eg" for c in "abcdefghi"]
    moves = "".join(f";W[{w}];B[{b}]" for w, b in zip(white, black, strict=True))
    a1 = "\n".join(["---------"] * 8 + ["X.-------"])
    found = _both_paths(tmp_path, {"far.sgf": f"(;GM[1]FF[4]SZ[9];B[ai]{moves};W[bi])",
                                   "none.sgf": f"(;GM[1]FF[4]SZ[9];B[ai]{moves})"},
                        a1, symmetry="none")
    assert [(m[1], m[6], m[7]) for m in found[0]] == [(1, ("w", (0, 1)), True), (1, None, False)]


def test_a_region_of_stones_continues_after_a_capture(tmp_path: Path) -> None:
    # Black A1 and White B1 fill the region: the next move in it follows Black's
    # capture of B1 (C1, B2), Black B1 four moves on; the kernel looks it up by
    # the region's points at once, where a region with an empty point walks first.
    pair = "\n".join(["---------"] * 8 + ["XO-------"])
    found = _both_paths(tmp_path, {
        "cap.sgf": "(;GM[1]FF[4]SZ[9];B[ai];W[bi];B[ci];W[ee];B[bh];W[ff];B[bi])",
        "none.sgf": "(;GM[1]FF[4]SZ[9];B[ai];W[bi];B[ci];W[ee])"}, pair, symmetry="none")
    assert [(m[6], m[7]) for m in found[0]] == [(("b", (0, 1)), True), (None, False)]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_store_s_changes_rebuild_every_position(tmp_path_factory: Any, data: Any) -> None:
    """The compiled scan's store (each main line replayed once into the points
    each node changes) against the pure replay: applying the changes node by
    node gives every position; side to move, move numbers, next moves and the
    points a stone ever left agree."""
    record = data.draw(sgfgen.records(st.integers(3, 7), same_size=True, faults=False,
                                      max_depth=1, max_games=4))
    folder = tmp_path_factory.mktemp("records")
    path = folder / "games.sgf"
    path.write_text(record.sgf(), encoding="utf-8")
    db = str(folder / "index.db")
    with Index(db, create=True, variations=data.draw(st.booleans())) as index:
        index.build([str(path)])
    _check_store(db, record.games[0].size)


def test_the_store_makes_room_for_more_changes_than_nodes(tmp_path: Path) -> None:
    # A root of 120 setup stones and two moves: more changes than the room the
    # store starts with (a change a node, and some); it grows and replays the game again.
    letters = "abcdefghijklmnopqrs"
    stones = "".join(f"[{letters[c]}{letters[r]}]" for r in range(19) for c in range(19)
                     if (r + c) % 3 == 1)
    (tmp_path / "g.sgf").write_text(f"(;GM[1]FF[4]SZ[19]AB{stones};W[ss];B[rr])",
                                    encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / "g.sgf")])
    changes, nodes = _check_store(db, 19)
    assert changes > nodes + 64


def _check_store(db: str, size: int) -> tuple[int, int]:
    """Check the store of ``size`` (its pattern file) against the pure replay,
    game by game; its changes and nodes."""
    changes = nodes = 0
    with Index(db, read_only=True) as index:
        store = index._game_store(size)
        for first, segment in zip(store.starts.tolist(), store.segments, strict=False):
            flat = segment.flat
            for g, game_id in enumerate(segment.ids.tolist()):
                if not store.live[first + g]:  # removed from the index
                    continue
                game_nodes, positions, blob, black, white = index._db.execute(
                    "SELECT nodes, positions, record, ever_black, ever_white FROM games "
                    "WHERE id = ?", (game_id,)).fetchone()
                game = _game_boards(replay_pure(blob, size, game_nodes, positions - 1),
                                    positions)
                board = np.zeros(size * size, dtype=np.int8)
                removed = np.zeros(size * size, dtype=np.bool_)
                n0 = int(flat.node_offsets[g])
                assert flat.node_offsets[g + 1] - n0 == positions
                at = int(flat.change_offsets[g])
                for node in range(positions):
                    words = []  # the node's, to the one marked its last
                    while not words or not words[-1] >> 15:
                        words.append(int(flat.changes[at]))
                        at += 1
                    if words == [1 << 15]:  # a node that changes nothing
                        words = []
                    for word in words:
                        point, old, new = (word >> 4) & 0x7FF, (word >> 2) & 3, word & 3
                        assert board[point] == old != new
                        board[point] = new
                        removed[point] |= old != 0
                    assert board.tolist() == game.boards[node].tolist()
                assert at == flat.change_offsets[g + 1]
                span = slice(n0, n0 + positions)
                sides, numbers = flat.sides(g)
                assert sides.tolist() == game.to_move.tolist()
                assert numbers.tolist() == game.move_numbers.tolist()
                assert flat.next_colour[span].tolist() == game.next_colour.tolist()
                assert flat.next_point[span].tolist() == game.next_point.tolist()
                width = (size * size + 7) // 8
                assert flat.removed[g * width : (g + 1) * width].tobytes() == np.packbits(
                    removed, bitorder="little").tobytes()
                assert segment.ever_black[g * width : (g + 1) * width].tobytes() == black
                assert segment.ever_white[g * width : (g + 1) * width].tobytes() == white
            changes += len(flat.changes)
            nodes += int(flat.node_offsets[-1])
    return changes, nodes


def test_the_games_kept_in_memory_follow_changes_to_the_index(tmp_path: Path) -> None:
    # Pattern search keeps the games it read; a build through the same index, or
    # through another connection, is seen by the next search.
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.sgf").write_text("(;GM[1]FF[4]SZ[9];B[cg];W[gc])",
                                              encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / "a.sgf")])
    with Index(db) as index:
        c3 = "\n".join(["---------"] * 4 + [".....----"] * 2 + ["..X..----"]
                       + [".....----"] * 2)
        assert index.pattern(c3).games == 1
        index.build([str(tmp_path / "b.sgf")])
        assert index.pattern(c3).games == 2
        with Index(db) as other:
            other.build([str(tmp_path / "c.sgf")])
        assert index.pattern(c3).games == 3


def test_a_damaged_pattern_file_is_reported_and_rebuilt(four: str) -> None:
    before = _everything(four, CORNER_9)
    with Index(four, read_only=True) as index:
        assert index.check() == []
    path = pattern_path(four, 9)
    with open(path, "r+b") as f:  # the last segment cut short
        f.truncate(os.path.getsize(path) - 3)
    with Index(four, read_only=True) as index:
        assert any("cut short" in fault and path in fault for fault in index.check())
    assert _everything(four, CORNER_9) == before
    with Index(four, read_only=True) as index:
        assert index.check() == []
    with open(path, "r+b") as f:  # a byte flipped inside the file: its CRC tells
        f.seek(os.path.getsize(path) - 100)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0xFF]))
    with Index(four, read_only=True) as index:
        assert any("CRC" in fault for fault in index.check())


def _no_games_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make reading the games table for a store an error."""
    def refused(*args: Any) -> Any:
        raise AssertionError("the games table was read for the store")
    monkeypatch.setattr(patterns_module, "_games", refused)


def test_a_search_after_opening_reads_its_store_file(four: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's columns are read from the store file while the index's
    generation has not moved: not from the games table, and to the same result."""
    before = _everything(four, CORNER_9, filters=Filters(result="W"))
    assert os.path.exists(store_path(four, 9))
    _no_games_table(monkeypatch)
    assert _everything(four, CORNER_9, filters=Filters(result="W")) == before
    assert _everything(four, CORNER_9)[0]  # the other games are there too
    with Index(four) as index:  # any change to the games table moves the generation
        index._db.execute("UPDATE games SET event = event WHERE id = 2")
        index._db.commit()
    with pytest.raises(AssertionError, match="the games table was read"):
        _everything(four, CORNER_9)


def test_a_store_file_follows_games_added_and_removed(tmp_path: Path) -> None:
    """Games added and removed, and another index made where one was (its
    derived files left beside it, as many changes made to it): each search
    answers for the index as it is."""
    for name, day, result, reply in (("a", 1, "B", "ff"), ("b", 2, "W", "dg")):
        (tmp_path / f"{name}.sgf").write_text(
            f"(;GM[1]FF[4]SZ[9]DT[2001-01-0{day}]RE[{result}+R];B[df];W[{reply}])",
            encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / "a.sgf")])
    first = _everything(db, CORNER_9)
    with Index(db) as index:
        index.build([str(tmp_path / "b.sgf")])
    both = _everything(db, CORNER_9)
    assert both[2] == 2 and both != first
    assert _everything(db, CORNER_9) == both  # from the store file made again
    with Index(db) as index:
        index.remove([str(tmp_path / "a.sgf")])
    assert _everything(db, CORNER_9)[2] == 1
    (tmp_path / "b").mkdir()
    only_b = _everything(build_index(tmp_path / "b", [str(tmp_path / "b.sgf")]), CORNER_9)
    for name in ("a", "b"):  # another index where this one was, of as many changes,
        for extra in ("", "-postings"):  # the derived files left: its own games
            os.remove(f"{db}{extra}")
        assert build_index(tmp_path, [str(tmp_path / f"{name}.sgf")]) == db
        assert _everything(db, CORNER_9) == (first if name == "a" else only_b)


def test_a_damaged_store_file_is_reported_and_made_again(four: str) -> None:
    before = _everything(four, CORNER_9)
    path = store_path(four, 9)
    with open(path, "r+b") as f:  # a byte flipped: its CRC tells
        f.seek(os.path.getsize(path) - 5)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0xFF]))
    with Index(four, read_only=True) as index:
        assert [fault for fault in index.check() if path in fault] == [
            f"{path}: CRC mismatch (the next pattern search makes it again)"]
    assert _everything(four, CORNER_9) == before
    with Index(four, read_only=True) as index:
        assert index.check() == []
    with open(path, "r+b") as f:
        f.truncate(100)
    with Index(four, read_only=True) as index:
        assert any("cut short" in fault for fault in index.check() if path in fault)
    assert _everything(four, CORNER_9) == before


def test_a_store_file_holds_what_the_games_table_gave(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Every column of a store read back from its store file is the one read from
    the games table (texts beyond ASCII, ranks, handicaps);
    a store file whose texts are not UTF-8, or whose dates are not sorted, is a
    fault, and made again."""
    (tmp_path / "g.sgf").write_text(
        "(;GM[1]FF[4]SZ[9]PB[李昌镐]PW[Łukasz]BR[9p]WR[3k]EV[Cup\nfinal]GN[g]PC[Seoul]HA[2]"
        "RE[B+R]DT[2001-01-01];B[aa])(;GM[1]FF[4]SZ[9];B[ab])"
        "(;GM[1]FF[4]SZ[9]PB[Alice]WR[2d]EV[Cup]DT[1999];B[ac])", encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / "g.sgf")])

    def columns(store: Any) -> Any:
        return (store.ids.tolist(), store.live.tolist(), store.winners.tolist(),
                store.lowest_levels.tolist(), store.handicaps.tolist(),
                {n: (t.values, t.ranks.tolist()) for n, t in store.texts.items()})

    with Index(db, read_only=True) as index:
        first = columns(index._game_store(9))
    assert first[3:5] == ([27, NO_LEVEL, 31], [2, 0, 0])  # 9p and 3k: 3k's level
    assert first[5]["event"] == (["Cup", "Cup final"], [1, -1, 0])  # simple text
    assert first[5]["black"] == (["Alice", "李昌镐"], [1, -1, 0])
    assert first[5]["date"] == (["1999", "2001-01-01"], [1, -1, 0])
    _no_games_table(monkeypatch)
    with Index(db, read_only=True) as index:
        store = index._game_store(9)
        assert columns(store) == first
        file = PatternFile(pattern_path(db, 9), 9)
        file.read()
        assert file.identity is not None
        stamp = (generation(index._db), *file.identity)
    monkeypatch.undo()
    black, dates = store.texts["black"], store.texts["date"]
    for damaged in (
        {"black": Texts(black.data[::-1], black.ends, black.ranks)},  # not UTF-8
        {"date": Texts(b"2001-01-011999", dates.ends, dates.ranks)},  # not sorted
    ):
        StoreFile(store_path(db, 9), 9, STORE_TEXTS).write(
            stamp, replace(store, texts={**store.texts, **damaged}))
        with Index(db, read_only=True) as index:
            assert [f for f in index.check() if "store" in f] == [
                f"{store_path(db, 9)}: a winner, level, handicap, text or its rank out of "
                f"range (the next pattern search makes it again)"]
            assert columns(index._game_store(9)) == first


def test_games_added_go_to_a_new_segment(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / f"{name}.sgf").write_text("(;GM[1]FF[4]SZ[9];B[cg];W[gc])",
                                              encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / "a.sgf")])
    with Index(db) as index:
        index.pattern(CORNER_9)
        index.build([str(tmp_path / "b.sgf")])
        assert index.pattern(CORNER_9, limit=None).searched == 2
        assert [len(s) for s in index._game_store(9).segments] == [1, 1]
        index.remove([str(tmp_path / "a.sgf")])
        assert index._game_store(9).live.tolist() == [False, True]  # removed: not searched
        assert index.pattern(CORNER_9, limit=None).searched == 1
    _check_store(db, 9)


def test_a_search_past_its_time_or_cancelled_stops(four: str) -> None:
    with Index(four, read_only=True) as index:
        with pytest.raises(QueryTooBroad, match=r"^too broad: narrow the region or add a "
                                                r"filter \(0 of 4 candidate games") as caught:
            index.pattern(CORNER_9, timeout=-1.0)
        assert (caught.value.scanned, caught.value.total, caught.value.hits) == (0, 4, 0)
        cancel = threading.Event()
        cancel.set()
        with pytest.raises(QueryCancelled):
            index.pattern(CORNER_9, cancel=cancel)
        assert index.pattern(CORNER_9, timeout=60.0).total == 4


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(offset=st.integers(0, 6), limit=st.none() | st.integers(1, 5))
def test_a_page_is_the_slice_of_all_matches(four: str, offset: int, limit: int | None) -> None:
    with Index(four, read_only=True) as index:
        everything = index.pattern(CORNER_9, limit=None)
        page = index.pattern(CORNER_9, limit=limit, offset=offset)
    window = slice(offset, None if limit is None else offset + limit)
    assert page.matches == everything.matches[window]
    assert (page.total, page.games, page.continuations) == (
        everything.total, everything.games, everything.continuations)


def test_a_bad_sha256_or_date_is_a_damaged_index(four: str) -> None:
    with Index(four, read_only=True) as index:
        index.pattern(CORNER_9)  # the pattern file written
    for column, value, reason in (("sha256", "not hex at all!!", "is not 64 hexadecimal digits"),
                                  ("date", b"\x00", "is a blob, not text")):
        with Index(four) as index:
            index._db.execute(f"UPDATE games SET {column} = ? WHERE id = 1", (value,))
            index._db.commit()
        with Index(four, read_only=True) as index:
            with pytest.raises(DamagedIndexError, match=reason):
                index.pattern(CORNER_9)
            if column == "sha256":
                assert any(reason in fault for fault in index.check())
        with Index(four) as index:  # put right again for the next column
            index._db.execute(f"UPDATE games SET {column} = ? WHERE id = 1",
                              (None if column == "date" else "0" * 64,))
            index._db.commit()


def test_chunks_and_threads_report_what_one_pass_does(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # 300 games in chunks of 64 scanned by two threads (and the pure path, one
    # thread): the same counts, continuations and pages as one chunk, pages
    # that cross chunks included.
    letters = "abcdefghi"
    state = 7
    games = []
    for _ in range(300):
        moves = []
        for turn in range(6):
            state = (state * 1103515245 + 12345) % 2**31
            moves.append(f";{'BW'[turn % 2]}[{letters[state % 9]}{letters[state // 9 % 9]}]")
        games.append(f"(;GM[1]FF[4]SZ[9]RE[{'BW'[state % 2]}+R]DT[20{state % 20:02d}]"
                     f"{''.join(dict.fromkeys(moves))})")
    (tmp_path / "many.sgf").write_text("".join(games), encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / "many.sgf")])
    shape = "\n".join(["---------"] * 3 + ["---.X----", "---.O----"] + ["---------"] * 4)

    def everything(**options: Any) -> Any:
        with Index(db, read_only=True) as index:
            found = index.pattern(shape, **options)
        return ([(m.record.id, m.seq, m.element, m.continuation, m.placements)
                 for m in found.matches], found.continuations, found.total, found.games,
                found.candidates)

    whole = everything(limit=None)
    assert whole[3] > 20  # hits spread over the chunks
    monkeypatch.setattr(search, "CHUNK", 64)
    for compiled in (True, False):
        assert everything(limit=None, pure=not compiled) == whole
        for offset, limit in ((0, 5), (60, 30), (len(whole[0]) - 3, 10)):
            page = everything(limit=limit, offset=offset, pure=not compiled)
            assert page[0] == whole[0][offset : offset + limit]
            assert page[1:] == whole[1:]


def _corner_reference(db: str, size: int) -> set[tuple[int, int, int]]:
    """(canonical corner key's low 32 bits, its square's salt XORed in, game id,
    corner) of every nonzero key of every corner square (7x7 and 5x5) at every
    node of every game's main line, from the games' boards as the pure replay
    rebuilds them: the reference for the postings."""
    keys = scheme(CORNER_SCHEME, size)
    found = set()
    with Index(db, read_only=True) as index:
        for game_id, game_size, _ in positions_of(db):
            if game_size != size:
                continue
            for board in stored_boards(index, game_id).boards.tolist():
                for level, side in enumerate(levels(size)):
                    inside = squares(size, side)
                    for c in range(4):
                        h = 0
                        for p in np.flatnonzero(inside[c]).tolist():
                            if board[p]:
                                h ^= (keys.black_keys, keys.white_keys)[board[p] - 1][p]
                        if h:
                            found.add(((keys.canonical(h)[0] & 0xFFFFFFFF) ^ SALTS[level],
                                       game_id, c))
    return found


def _postings(db: str, size: int) -> set[tuple[int, int, int]]:
    """What the pattern file's corner postings hold, as :func:`_corner_reference`."""
    found = set()
    with Index(db, read_only=True) as index:
        store = index._game_store(size)
        for segment in store.segments:
            postings = segment.corners
            assert (np.diff(postings.keys.astype(np.int64)) >= 0).all()
            for key, entry in zip(postings.keys.tolist(), postings.entries.tolist(),
                                  strict=True):
                found |= {(key, int(segment.ids[entry >> 4]), c) for c in range(4)
                          if entry >> c & 1}
    return found


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), symmetry=st.sampled_from(["full", "d4", "none"]),
       to_move=st.sampled_from([None, None, "b", "w"]),
       max_move=st.none() | st.none() | st.integers(0, 60))
def test_corner_postings_never_drop_a_game_the_reference_finds(
        tmp_path_factory: Any, data: Any, symmetry: str, to_move: str | None,
        max_move: int | None) -> None:
    """The postings hold every corner key of every game (against keys hashed from
    the pure replay's boards), and a pattern with a fully specified corner
    square, taken from a game's position turned by any element so that it
    occurs, finds by them what the brute-force reference finds, on the compiled
    and on the pure path."""
    record = data.draw(sgfgen.records(st.sampled_from([5, 8, 9, 13]), same_size=True,
                                      faults=False, max_depth=0, max_games=4))
    db = record_index(tmp_path_factory.mktemp("records"), record)
    size = record.games[0].size
    assert _postings(db, size) == _corner_reference(db, size)
    held = [game_id for game_id, _, positions in positions_of(db) if positions]
    if not held:
        return
    with Index(db, read_only=True) as index:
        game_id = data.draw(st.sampled_from(held))
        boards = stored_boards(index, game_id).boards
    board = boards[data.draw(st.integers(0, len(boards) - 1))]
    g = data.draw(st.sampled_from(ELEMENTS))
    turned = g.image_array(board.reshape(size, size)).reshape(-1)
    if g.swap:
        turned = np.where(turned == 0, 0, 3 - turned)
    # Outside the square: not looked at, anything, or what the position holds
    # there (so that the pattern occurs), now and then something else.
    outside = [".XO"[v] if c == "=" else c for v, c in zip(turned.tolist(), data.draw(
        st.lists(st.sampled_from("----***=====xo"), min_size=size * size, max_size=size * size)),
        strict=True)]
    corner = data.draw(st.integers(0, 3))
    side = data.draw(st.sampled_from(levels(size)))  # its 7x7 or only its 5x5 square
    diagram = corner_diagram(turned.tolist(), size, corner, outside, side)
    query = PatternQuery(diagram, symmetry=symmetry, to_move=to_move, max_move=max_move)
    assert query.corner is not None or not turned[squares(size, side)[corner]].any()
    expected = set()
    with Index(db, read_only=True) as index:
        numbers = dict(index._db.execute("SELECT game, id FROM games").fetchall())
    for number, game in enumerate(record.games):
        if number not in numbers:
            continue
        arrays = game_arrays(sgfgen.Record((game,)))
        held = {p for _, p, _, _ in reference_hits(
            diagram, symmetry, arrays, to_move={None: 0, "b": 1, "w": 2}[to_move],
            max_move=-1 if max_move is None else max_move)}
        with Index(db, read_only=True) as index:
            positions = index._db.execute("SELECT positions FROM games WHERE id = ?",
                                          (numbers[number],)).fetchone()[0]
        expected |= {(number, p) for p in held if p < positions}
    options = {"symmetry": symmetry, "to_move": to_move, "max_move": max_move}
    for compiled in (False, True):
        assert _record_hits(db, diagram, pure=not compiled, **options) == expected
    assert _everything(db, diagram, pure=False, **options) == _everything(
        db, diagram, pure=True, **options)
    if query.corner is not None:
        with Index(db, read_only=True) as index:
            store = index._game_store(size)
            games, _ = corner_games([s.corners for s in store.segments],
                                    [len(s) for s in store.segments], store.starts,
                                    query.corner[0])
            assert {numbers[n] for n, _ in expected} <= set(store.ids[games].tolist())


# B D4 and W C3 in the lower left 7x7 corner of 9x9, every other point empty.
CORNER_7 = "\n".join(["---------"] * 2 + [".......--"] * 3 + ["...X...--", "..O....--"]
                     + [".......--"] * 2)


def test_a_fully_specified_corner_is_searched_by_its_postings(tmp_path: Path) -> None:
    # B D4 then W C3 in a corner of a 9x9 board: the 7x7 corner fully specified
    # finds the game whatever corner it was played in, scanning only the games
    # whose postings hold its key, and only the placements in that corner.
    games = {"a.sgf": "(;GM[1]FF[4]SZ[9];B[df];W[cg];B[ff])",  # lower left
             "b.sgf": "(;GM[1]FF[4]SZ[9];B[fd];W[gc])",  # upper right, turned
             # Every stone the corner needs, never the corner: the inverted filter
             # lets it through, the postings do not.
             "c.sgf": "(;GM[1]FF[4]SZ[9];B[df];W[ee];B[aa];W[cg])",
             "d.sgf": "(;GM[1]FF[4]SZ[9];B[ee])"}
    for name, text in games.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    db = build_index(tmp_path, [str(tmp_path / name) for name in sorted(games)])
    corner = CORNER_7
    query = PatternQuery(corner)
    assert query.corner is not None
    with Index(db, read_only=True) as index:
        found = index.pattern(corner, limit=None)
        assert sorted(Path(m.record.file).name for m in found.matches) == ["a.sgf", "b.sgf"]
        assert (found.searched, found.candidates) == (4, 2)
        assert index.check() == []
    assert _everything(db, corner, pure=False) == _everything(db, corner, pure=True)


def test_index_check_verifies_the_corner_postings(four: str) -> None:
    path = pattern_path(four, 9)
    with Index(four, read_only=True) as index:
        index.pattern(CORNER_9)
        segment = index._game_store(9).segments[0]
        assert len(segment.corners)
    # A posting's key changed, its segment's CRC written again: only the
    # recount of the postings from the games tells.
    with open(path, "r+b") as f:
        data = bytearray(f.read())
    header = store_module._FILE.size
    body_start = header + store_module._SEGMENT.size
    fields = store_module._SEGMENT.unpack_from(data, header)
    keys_at = body_start + fields[5] - 2 * padded(4 * fields[4])
    data[keys_at] ^= 0xFF
    crc = zlib.crc32(bytes(data[body_start : body_start + fields[5]]))
    store_module._SEGMENT.pack_into(data, header, *fields[:6], crc)
    with open(path, "wb") as f:
        f.write(data)
    with Index(four, read_only=True) as index:
        faults = index.check()
    assert any("corner postings are not those of its games" in fault for fault in faults)
    # Postings of games the segment does not have: a search says the file is
    # damaged (it checks the game numbers it reads, not the order).
    entries_at = body_start + fields[5] - padded(4 * fields[4])
    data[entries_at : entries_at + 4 * fields[4]] = b"\xff" * (4 * fields[4])
    with open(path, "wb") as f:
        f.write(data)
    with Index(four, read_only=True) as index, pytest.raises(
            DamagedIndexError, match="corner posting of a game its segment does not have"):
        index.pattern(CORNER_7)


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_a_pattern_file_of_an_older_version_is_rebuilt(four: str, version: int) -> None:
    # Version 1 had no corner postings, version 2 a side to move and a move
    # number a node, version 3 a count of changes a node, version 4 no 5x5
    # squares' postings: check names it, the next search rebuilds it.
    before = _everything(four, CORNER_9)
    path = pattern_path(four, 9)
    with open(path, "r+b") as f:
        f.write(store_module._FILE.pack(b"GHPATTRN", version, 9))
    with Index(four, read_only=True) as index:
        assert any(f"not a pattern file of version {store_module._FILE_VERSION}" in fault
                   for fault in index.check())
    assert _everything(four, CORNER_9) == before
    with Index(four, read_only=True) as index:
        assert index.check() == []
        assert all(len(s.corners) for s in index._game_store(9).segments)


@settings(max_examples=30, deadline=None)
@given(keys=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=50),
       size=st.sampled_from([5, 9, 19]))
def test_corner_keys_are_canonical_as_the_scheme_makes_them(keys: list[int], size: int) -> None:
    """The postings' canonical form (only the images leading with the least slot
    formed, by numpy and by the compiled kernel) is the scheme's, for any keys
    and for keys of symmetric corners (a stone on the diagonal, the same stone
    in every corner, both colours)."""
    scheme_ = scheme(CORNER_SCHEME, size)
    black, white = scheme_.black_keys, scheme_.white_keys
    last = size * size - 1
    keys += [black[0], black[0] ^ black[size - 1] ^ black[last - size + 1] ^ black[last],
             black[size + 1] ^ white[size + 1], black[0] ^ white[last]]
    expected = [scheme_.canonical(k)[0] & 0xFFFFFFFF for k in keys]
    for pure in (True, False):  # numpy, and the compiled kernel where built
        assert corners_module._canonical(np.array(keys, dtype=np.uint64), size,
                                         pure=pure).tolist() == expected
