"""The opening explorer of gohash.index: continuations against a brute-force
reference (sgfmill replays, numpy symmetries; ``tests/support/explorer_reference.py``),
the written records of ``data/sgf/opening-explorer/`` with hand-counted expectations
(colour-exchanged hits, passes, setup nodes, symmetric positions, the side to
move), every filter, games read again, and old indexes refused.
"""

from __future__ import annotations

import datetime
import random
import shutil
import sqlite3
import zipfile
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gohash.errors import GohashError, IndexFileError
from gohash.go.board import Board
from gohash.group.symmetry import ELEMENTS
from gohash.index.filters import Filters
from gohash.index.find import position_from_sgf
from gohash.index.index import Index
from gohash.index.records import (
    RANK_FORMS,
    first_date,
    komi_value,
    rank_level,
    result_text,
    winner,
)
from gohash.index.results import Match
from gohash.index.schema import SCHEMA_VERSION
from gohash.pattern.store import GameStore, Texts
from tests.support.env import ROOT
from tests.support.explorer_reference import (
    SYMMETRIES,
    Collection,
    check_against_reference,
    date,
    image,
    reference_summary,
    summary,
)

DATA = ROOT / "data" / "sgf"
EXPLORER = DATA / "opening-explorer"
# Every written record the reference replays as gohash does: not handicap-5-no-ab.sgf,
# whose stones HA implies (the walker places them; sgfmill does not).
RECORDS = sorted(EXPLORER.glob("*.sgf")) + sorted(
    p for p in DATA.glob("*.sgf") if p.name != "handicap-5-no-ab.sgf"
)


@pytest.fixture(scope="module")
def records_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("explorer") / "records.db"
    with Index(db, create=True) as index:
        summary = index.build([str(p) for p in RECORDS])
    assert summary.errors == [] and summary.files_indexed == len(RECORDS)
    return db


@pytest.fixture(scope="module")
def collection() -> Collection:
    return Collection(RECORDS)


def stones(moves: str, size: int = 9) -> np.ndarray:
    """A position from SGF points: ``"B:ee W:cc"``."""
    board = np.zeros((size, size), np.int8)
    for item in moves.split():
        colour, point = item.split(":")
        board[size - 1 - (ord(point[1]) - 97), ord(point[0]) - 97] = 1 if colour == "B" else 2
    return board


# -- against the brute-force reference ---------------------------------------------------------


def test_continuations_equal_brute_force_on_every_written_position(
    records_index: Path, collection: Collection
) -> None:
    """Every position of every record, turned by a random symmetry, with each option."""
    rng = random.Random(13)
    options = [{}, {"symmetry": "d4"}, {"to_move": "b"}, {"to_move": "w"},
               {"setup": "include"}, {"setup": "only"}]
    found: dict[str, int] = {}
    with Index(records_index) as index:
        for game in collection.games:
            for position in game.positions:
                k, f, s = SYMMETRIES[rng.randrange(16)]
                option = rng.choice(options)
                moves = check_against_reference(index, collection, image(position, k, f, s),
                                                **option)
                name = str(option)
                found[name] = found.get(name, 0) + (moves.total > 0)
    # Without options every query is found; with them, the images that match
    # only with the other colours or side to move are not; few are set up.
    assert all(count > 50 for name, count in found.items() if "only" not in name), found
    assert found["{'setup': 'only'}"] > 0


def test_every_symmetry_of_a_position_shows_the_real_next_move(
    records_index: Path, collection: Collection
) -> None:
    """The move played next in a record, seen from each of the 16 images of its
    position, is a continuation at the image of its point, colour exchanged with
    the colours; for a position that is its own colour-exchanged image, the
    image under the maps that keep the colours."""
    with Index(records_index) as index:
        for game in collection.games:
            for i in range(0, len(game.positions), 7):
                nxt = game.next_moves[i]
                if nxt is None:
                    continue
                colour, point = nxt
                size = game.positions[i].shape[0]
                position = game.positions[i]
                for symmetry in SYMMETRIES:
                    query = image(position, *symmetry)
                    maps = [m for m in SYMMETRIES if np.array_equal(image(position, *m), query)]
                    if any(not swap for _, _, swap in maps):
                        maps = [m for m in maps if not m[2]]
                    k, f, s = maps[0]
                    moves = index.continuations(query, setup="include")
                    seen = ("w" if colour == "b" else "b") if s else colour
                    if point is None:
                        assert any(m.colour == seen and m.point is None for m in moves.moves)
                        continue
                    marker = np.zeros((size, size), np.int8)
                    marker[point] = 1
                    where = tuple(int(x) for x in np.argwhere(image(marker, k, f, False))[0])
                    assert any(m.colour == seen and where in m.equivalent for m in moves.moves)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_continuations_turn_with_the_query(records_index: Path, data: st.DataObject) -> None:
    """Turning the query by g turns every continuation by g; with a colour exchange
    (and no colour-exchange symmetry of the query) colours, results and the
    same/exchanged counts trade places."""
    with Index(records_index) as index:
        games = index.records()
        game_id = data.draw(st.sampled_from(sorted(games)))
        record = index.game(game_id)
        seq = data.draw(st.integers(0, len(record.positions) - 1))
        g = ELEMENTS[data.draw(st.integers(0, 15))]
        query = record.positions[seq].stones
        base = index.continuations(query)
        turned = index.continuations(g.image_array(query))
    # A query that is its own colour-exchanged image (by s) matches with the same
    # colours either way: turning it by g is turning it by g . s, which keeps them.
    swap_symmetry = next((h for h in base.symmetries if h.swap), None)
    if g.swap and swap_symmetry is not None:
        g = g.compose(swap_symmetry)
    assert turned.total == base.total and turned.ended == base.ended
    expected = {}
    for m in base.moves:
        colour = g.map_colour(m.colour)
        points = frozenset(g.map_point(p, record.record.size) for p in m.equivalent)
        wins = (m.white_wins, m.black_wins) if g.swap else (m.black_wins, m.white_wins)
        split = (m.exchanged_colours, m.same_colours) if g.swap else (
            m.same_colours, m.exchanged_colours)
        expected[(colour, points)] = (m.count, *wins, *split, m.first_date, m.last_date)
    got = {(m.colour, frozenset(m.equivalent)): (
        m.count, m.black_wins, m.white_wins, m.same_colours, m.exchanged_colours,
        m.first_date, m.last_date) for m in turned.moves}
    assert got == expected


# -- the written records, counted by hand -------------------------------------------------------


def test_opening_collection_counted_by_hand(records_index: Path) -> None:
    """After B E5 W C7 (9x9): g1 B G7, g2 B C3 (its mirror image across the
    position's diagonal), g5 (White first: colours exchanged) W G7, g8 (g1
    turned) are one continuation; g3 reached the position turned and went on
    at G3; g6 passed, and after the pass (the same stones, White to move)
    White played G7; g7 (setup next) and g9 (the end) have no next move.
    g7's occurrence, ended by setup, is left out unless setup="include"."""
    with Index(records_index) as index:
        moves = index.continuations(stones("B:ee W:cc"), setup="include")
        assert (moves.total, moves.ended, moves.same_colours, moves.exchanged_colours) == \
            (9, 2, 8, 1)
        # B: g1, g5 (W+R with colours exchanged), g7; W: g2, g8; other: g3, g6 twice, g9.
        assert (moves.black_wins, moves.white_wins, moves.other) == (3, 2, 4)
        assert moves.years == {2001: 1, 2016: 1, 2017: 2, 2018: 1, 2019: 2, 2020: 1}
        first, second, third, fourth = moves.moves
        assert (first.colour, first.point, first.equivalent) == ("b", (6, 6), ((2, 2), (6, 6)))
        assert (first.count, first.black_wins, first.white_wins, first.other) == (4, 2, 2, 0)
        assert (first.same_colours, first.exchanged_colours) == (3, 1)
        assert (first.first_date, first.last_date) == ("2016-03-09", "2017-01-05")
        assert (second.colour, second.point, second.count) == ("b", (2, 6), 1)
        assert (third.colour, third.point, third.equivalent, third.count) == ("b", None, (), 1)
        assert (fourth.colour, fourth.point, fourth.count) == ("w", (6, 6), 1)
        assert (fourth.first_date, fourth.last_date) == ("2019-07", "2019-07")
        assert [m.point for m in index.continuations(stones("B:ee W:cc"), limit=1,
                                                     setup="include").moves] == [(6, 6)]
        d4 = index.continuations(stones("B:ee W:cc"), symmetry="d4", setup="include")
        assert (d4.total, d4.exchanged_colours, d4.moves[0].count) == (8, 0, 3)
        # The colour-exchanged image of the query: g5 is the hit with the same colours now.
        swapped = index.continuations(stones("W:ee B:cc"), setup="include")
        assert swapped.moves[0].colour == "w" and swapped.moves[0].count == 4
        assert (swapped.same_colours, swapped.exchanged_colours) == (1, 8)
        played = index.continuations(stones("B:ee W:cc"))
        assert (played.total, played.ended, played.setup_left_out) == (8, 1, 1)
        # The same moves; shares of 8 occurrences instead of 9.
        assert [(m.point, m.count) for m in played.moves] == [
            (m.point, m.count) for m in moves.moves]


def test_a_pass_is_a_continuation(records_index: Path) -> None:
    with Index(records_index) as index:
        after_pass = index.continuations(stones("B:ee W:cc"))
        assert [m.point for m in after_pass.moves if m.point is None] == [None]
        # m1 ends with two passes.  Its last position, the same stones three times,
        # is its own image under rot180 with colours exchanged: with White to move
        # it matches after Black's pass (White passed next), and with colours
        # exchanged before it (Black passed: White's pass seen from the query)
        # and after White's pass (the end).
        position = stones("B:cc W:gg B:cd W:gf B:de W:fe")
        moves = index.continuations(position, to_move="w")
        assert (moves.total, moves.ended, moves.exchanged_colours) == (3, 1, 2)
        assert [(m.colour, m.point, m.count) for m in moves.moves] == [("w", None, 2)]
        found = index.find(position, to_move="w").matches
        assert [(m.seq, m.colours_exchanged, m.next_move) for m in found] == [
            (6, True, ("w", None)), (7, False, ("w", None)), (8, True, None)]


def test_a_colour_symmetric_position_and_the_side_to_move(records_index: Path) -> None:
    """B C7 W G3 is its own image under rot180 with colours exchanged.  m1 and m2
    went on at C6 and D7, equivalent across the diagonal through C7 and G3; m3
    reached it with colours reversed and White to move, and went on with White."""
    with Index(records_index) as index:
        query = stones("B:cc W:gg")
        moves = index.continuations(query)
        assert {e.name for e in moves.symmetries} == {
            "identity", "antitranspose", "rot180_swap", "transpose_swap"}
        assert (moves.total, moves.same_colours, moves.exchanged_colours) == (3, 3, 0)
        black, white = moves.moves
        assert (black.colour, black.equivalent, black.count) == ("b", ((5, 2), (6, 3)), 2)
        assert (white.colour, white.equivalent, white.count) == ("w", ((2, 5), (3, 6)), 1)
        # Black to move: m3 matches only with colours exchanged, and White's move is Black's.
        black_to_move = index.continuations(query, to_move="b")
        assert (black_to_move.total, black_to_move.exchanged_colours) == (3, 1)
        only, = black_to_move.moves
        assert (only.colour, only.equivalent, only.count, only.exchanged_colours) == \
            ("b", ((5, 2), (6, 3)), 3, 1)
        # m3: B+1.5, seen with colours exchanged, is a win for the query's White.
        assert (only.black_wins, only.white_wins) == (1, 2)
        white_to_move = index.continuations(query, to_move="w")
        assert [(m.colour, m.count, m.same_colours) for m in white_to_move.moves] == \
            [("w", 3, 1)]
        found = index.find(query, to_move="b")
        assert found.total == 3
        assert [(m.to_move, m.colours_exchanged) for m in found.matches] == \
            [("b", False), ("b", False), ("b", True)]
        assert index.find(query, to_move="b", symmetry="d4").total == 2


def test_a_board_query_answers_for_its_side_to_move(
    records_index: Path, collection: Collection
) -> None:
    """A Board query keeps, by default, the occurrences with its own side to move in
    its colours (the reference's sides to move come from sgfmill's replay); ``"any"``
    keeps both, as an array query does by default."""
    rng = random.Random(21)
    with Index(records_index) as index:
        for game in collection.games:
            for i in range(0, len(game.positions), 3):
                query = image(game.positions[i], *SYMMETRIES[rng.randrange(16)])
                for side in ("b", "w"):
                    board = Board.from_array(query, to_move=side)
                    moves = index.continuations(board)
                    ref = collection.continuations(query, to_move=side)
                    assert moves.to_move == side
                    assert (moves.total, moves.ended, moves.exchanged_colours) == (
                        ref.total, ref.ended, ref.exchanged)
                    assert summary(moves) == reference_summary(ref)
                either = index.continuations(board, to_move="any")
                assert either.to_move is None
                assert summary(either) == summary(index.continuations(query))
                assert either.total == collection.continuations(query).total


def test_a_query_from_a_record_has_the_records_side_to_move(records_index: Path) -> None:
    """After B E5 W C7 (g1) Black is to move: g6 passed and went on with White
    from the same stones, and only asking for either side shows it.  m3
    reached its position after two moves with White first: White is to move.
    (g7, ended by setup, is left out.)"""
    with Index(records_index) as index:
        board = position_from_sgf(str(EXPLORER / "collection.sgf"), 2)
        assert board.to_move == "b"
        moves = index.continuations(board)
        assert (moves.to_move, moves.total, moves.exchanged_colours) == ("b", 7, 1)
        assert {m.colour for m in moves.moves} == {"b"}
        either = index.continuations(board, to_move="any")
        assert (either.to_move, either.total) == (None, 8)
        assert [(m.colour, m.count) for m in either.moves if m.colour == "w"] == [("w", 1)]
        mirrored = position_from_sgf(str(EXPLORER / "mirror.sgf"), 2, game=2)
        assert mirrored.to_move == "w"
        white = index.continuations(mirrored)
        assert white.to_move == "w" and {m.colour for m in white.moves} == {"w"}
        assert summary(white) == summary(index.continuations(mirrored.to_array(), to_move="w"))


def test_handicap_stones_as_setup_or_as_moves_reach_the_same_position(
    records_index: Path,
) -> None:
    """handicap-4-19x19.sgf sets four stones up; handicap-4-as-moves.sgf plays
    them: after them both go on with the same White move, but only the moves
    reach it by play: the setup is left out unless asked for.  A setup node
    next (handicap-3-in-node-1.sgf) is no continuation of the empty board, nor
    (by default) an occurrence of it."""
    with Index(records_index) as index:
        corners = np.zeros((19, 19), np.int8)
        for row, col in ((15, 3), (15, 15), (3, 3), (3, 15)):
            corners[row, col] = 1
        moves = index.continuations(corners, setup="include")
        assert (moves.total, len(moves.moves), moves.moves[0].count) == (2, 1, 2)
        assert moves.moves[0].colour == "w"
        played = index.continuations(corners)
        assert (played.total, played.setup_left_out, played.moves[0].count) == (1, 1, 1)
        empty = index.continuations(np.zeros((19, 19), np.int8), setup="include")
        assert (empty.total, empty.ended) == (3, 1)
        empty = index.continuations(np.zeros((19, 19), np.int8))
        assert (empty.total, empty.ended, empty.setup_left_out) == (2, 0, 1)


# -- filters ---------------------------------------------------------------------------------------


def names(matches: list[Match]) -> set[str]:
    """The GN of each match of the collection (game n of collection.sgf is gn+1)."""
    assert all(m.record.file.endswith("collection.sgf") for m in matches)
    return {f"g{m.record.game + 1}" for m in matches}


@pytest.mark.parametrize(("filters", "expected"), [
    (Filters(), {"g1", "g2", "g3", "g5", "g6", "g7", "g8", "g9"}),
    (Filters(player="alice"), {"g1", "g3", "g6"}),
    (Filters(player="EVE"), {"g5"}),
    (Filters(date_from="2017"), {"g1", "g3", "g5", "g6", "g9"}),
    (Filters(date_to="2017-01"), {"g1", "g2", "g5", "g7"}),
    (Filters(date_from="2016-03-10", date_to="2017-01-04"), {"g5"}),
    (Filters(date_from="2001-05-20", date_to="2001-05-20"), {"g7"}),
    (Filters(result="B"), {"g1", "g7"}),
    (Filters(result="w"), {"g2", "g5", "g8"}),
    (Filters(result="other"), {"g3", "g6", "g9"}),
    (Filters(min_rank="5d"), {"g3", "g6", "g7", "g9"}),
    (Filters(min_rank="4 dan"), {"g1", "g3", "g6", "g7", "g9"}),
    (Filters(min_rank="1p"), {"g3", "g6", "g7", "g9"}),
    (Filters(min_rank="2k"), {"g1", "g3", "g5", "g6", "g7", "g9"}),
    (Filters(event="spring cup"), {"g1", "g3"}),
    (Filters(handicap=False), {"g1", "g2", "g3", "g5", "g6", "g7", "g8", "g9"}),
    (Filters(handicap=True), set()),
    (Filters(player="alice", result="B"), {"g1"}),
])
def test_each_filter_keeps_the_games_it_names(
    records_index: Path, filters: Filters, expected: set[str]
) -> None:
    with Index(records_index) as index:
        found = index.find(stones("B:ee"), filters=filters, limit=None)
        assert names(found.matches) == expected and found.total == len(expected)
        moves = index.continuations(stones("B:ee"), filters=filters)
        assert moves.total == len(expected)


@pytest.mark.parametrize("filters", [
    Filters(result="B"), Filters(result="w"), Filters(result="other"),
    Filters(date_from="2017"), Filters(date_to="2017-01"),
    Filters(date_from="2016-03-10", date_to="2017-01-04"), Filters(player="alice", result="B"),
    Filters(player="ALICE"), Filters(player="段"), Filters(event="cup", date_to="2018"),
    Filters(event="nothing like it"), Filters(min_rank="5d", result="W"), Filters(min_rank="1p"),
    Filters(min_rank="2k"), Filters(handicap=True), Filters(handicap=False),
    Filters(fields={"name": "G1"}), Filters(fields={"place": "o"}),
])
def test_pattern_search_keeps_the_games_the_sql_keeps(records_index: Path,
                                                      filters: Filters) -> None:
    """Pattern search answers the filters from its store's columns
    (:meth:`Filters.keeps`): the games it keeps are those the filters' SQL keeps."""
    corner = "\n".join(["..-------", "..-------"] + ["---------"] * 7)
    with Index(records_index) as index:
        condition, params = filters.sql("g")
        kept = {row[0] for row in index._db.execute(
            f"SELECT g.id FROM games g WHERE {condition}", params)}
        every = index.pattern(corner, limit=None)
        found = index.pattern(corner, filters=filters, limit=None)
        assert [(m.record.id, m.seq) for m in found.matches] == [
            (m.record.id, m.seq) for m in every.matches if m.record.id in kept]
        assert found.searched == len(kept & {int(i) for i in index._game_store(9).ids})


def _varied_records(rng: random.Random, games: int) -> str:
    """A collection of 9x9 games whose roots vary in every property a filter reads,
    each property left out now and then: names and events sharing parts in
    both cases, ranks of every form, dates of every precision, results, handicaps."""
    names = ["Alice", "ALICE", "bob", "Cho Chikun", "李昌镐", "Łukasz", "alicE Bob"]
    ranks = ["30k", "2k", "1d", "5d", "9d", "1p", "9p", "3段", "strong", ""]
    dates = ["2017", "2017-03", "2017-03-09", "2016-12-31", "1999-12-31,2000-01-01",
             "05.01.2017", "2018-02"]
    results = ["B+R", "W+0.5", "B+3.5", "W+T", "Draw", "0", "?", "Void"]
    out = []
    for g in range(games):
        root = {"PB": rng.choice(names), "PW": rng.choice(names), "BR": rng.choice(ranks),
                "WR": rng.choice(ranks), "DT": rng.choice(dates), "RE": rng.choice(results),
                "EV": rng.choice(["Spring Cup", "club league", "cup final"]),
                "HA": str(rng.choice([0, 1, 2, 3, 9])), "GN": f"game {g}",
                "PC": rng.choice(["Tokyo", "Seoul", "online"])}
        props = "".join(f"{k}[{v}]" for k, v in root.items() if rng.random() < 0.85)
        out.append(f"(;GM[1]FF[4]CA[UTF-8]SZ[9]{props};B[a{'abcdefghi'[g % 9]}];W[ii])")
    return "\n".join(out)


def test_the_filters_keep_games_by_sql_and_by_store_alike(tmp_path: Path) -> None:
    """Over many filters drawn from the records' own values, :meth:`Filters.keeps`
    on the store keeps each game the SQL keeps, and no other."""
    rng = random.Random(7)
    (tmp_path / "varied.sgf").write_text(_varied_records(rng, 80), encoding="utf-8")
    with Index(tmp_path / "varied.db", create=True) as index:
        assert index.build([str(tmp_path / "varied.sgf")]).errors == []
        store = index._game_store(9)
        texts = sorted({v for name in ("black", "white", "event", "name", "place")
                        for v in store.texts[name].values})
        for _ in range(400):
            given: dict[str, Any] = {}
            for name in rng.sample(["player", "date_from", "date_to", "result", "min_rank",
                                    "event", "handicap", "name", "place"], rng.randint(1, 3)):
                if name in ("player", "event", "name", "place"):
                    text = rng.choice(texts)
                    start = rng.randrange(len(text))
                    part = text[start : start + rng.randint(1, 4)].swapcase().strip()
                    given[name] = part or "a"
                elif name in ("date_from", "date_to"):
                    given[name] = rng.choice(store.dates)[: rng.choice([4, 7, 10])]
                elif name == "result":
                    given[name] = rng.choice(["B", "W", "other"])
                elif name == "min_rank":
                    given[name] = rng.choice(["30k", "2k", "1d", "5d", "9d", "1p", "9p"])
                else:
                    given[name] = rng.random() < 0.5
            filters = Filters.from_values(given)
            assert filters is not None
            condition, params = filters.sql("g")
            by_sql = {row[0] for row in index._db.execute(
                f"SELECT id FROM games g WHERE size = 9 AND positions > 0 AND {condition}",
                params)}
            by_store = {int(i) for i in store.ids[store.live & filters.keeps(store)]}
            assert by_store == by_sql, given


def test_filters_agree_with_the_reference_on_continuations(
    records_index: Path, collection: Collection
) -> None:
    cases = [
        (Filters(player="ALICE"), lambda g: "alice" in (g.root.get("PB", "") + "|"
                                                        + g.root.get("PW", "")).casefold()),
        (Filters(result="W"), lambda g: g.root.get("RE", "").startswith("W+")),
        (Filters(date_from="2011"), lambda g: (date(g) or "0")[:4] >= "2011"),
        (Filters(event="cup"), lambda g: "cup" in g.root.get("EV", "").casefold()),
    ]
    with Index(records_index) as index:
        for query in (stones("B:ee"), stones("B:ee W:cc"), stones("B:cc W:gg"),
                      np.zeros((9, 9), np.int8)):
            for filters, keep in cases:
                moves = index.continuations(query, filters=filters)
                ref = collection.continuations(query, keep=keep)
                assert moves.total == ref.total
                assert summary(moves) == reference_summary(ref)


def partial_dates() -> st.SearchStrategy[str]:
    return st.builds(
        lambda d, precision: d.isoformat()[:precision], st.dates(
            min_value=datetime.date(1990, 1, 1), max_value=datetime.date(2030, 12, 31)),
        st.sampled_from([4, 7, 10]),
    )


def interval(text: str) -> tuple[datetime.date, datetime.date]:
    """The days a date of any precision stands for."""
    parts = [int(x) for x in text.split("-")]
    if len(parts) == 3:
        day = datetime.date(*parts)
        return day, day
    if len(parts) == 2:
        start = datetime.date(parts[0], parts[1], 1)
        following = datetime.date(parts[0] + parts[1] // 12, parts[1] % 12 + 1, 1)
        return start, following - datetime.timedelta(days=1)
    return datetime.date(parts[0], 1, 1), datetime.date(parts[0], 12, 31)


class _Dates:
    """The column of a store of one game that the date filters read."""

    def __init__(self, date: str | None) -> None:
        self.texts = {"date": Texts.of([date])}

    def __len__(self) -> int:
        return 1


@settings(max_examples=300, deadline=None)
@given(game=st.one_of(st.none(), partial_dates()), low=st.one_of(st.none(), partial_dates()),
       high=st.one_of(st.none(), partial_dates()))
def test_a_date_range_keeps_the_dates_that_overlap_it(
    game: str | None, low: str | None, high: str | None
) -> None:
    """Dates and range ends of any precision stand for intervals of days; a game is
    kept iff its interval overlaps the range (and it has a date, if a range is given)."""
    condition, params = Filters(date_from=low, date_to=high).sql("g")
    with sqlite3.connect(":memory:") as con:
        con.execute("CREATE TABLE g (date TEXT)")
        con.execute("INSERT INTO g VALUES (?)", (game,))
        kept = bool(con.execute(f"SELECT count(*) FROM g WHERE {condition}", params).fetchone()[0])
    store_kept = Filters(date_from=low, date_to=high).keeps(cast(GameStore, _Dates(game)))
    assert bool(store_kept[0]) == kept
    if low is None and high is None:
        expected = True
    elif game is None:
        expected = False
    else:
        start, end = interval(game)
        expected = (low is None or end >= interval(low)[0]) and (
            high is None or start <= interval(high)[1])
    assert kept == expected


def test_handicap_filter(records_index: Path) -> None:
    with Index(records_index) as index:
        g4 = stones("B:cc B:gg")
        assert names(index.find(g4, filters=Filters(handicap=True)).matches) == {"g4"}
        assert index.find(g4, filters=Filters(handicap=False)).total == 0


@pytest.mark.parametrize(("fields", "message"), [
    ({"date_from": "2017-1-5"}, "date_from '2017-1-5' is not a date"),
    ({"date_to": "2017-13"}, "date_to '2017-13' is not a date"),
    ({"date_to": "2017-02-30"}, "date_to '2017-02-30' is not a date"),
    ({"result": "black"}, "result 'black' is not one of"),
    ({"min_rank": "strong"}, "min_rank 'strong' is not a rank"),
    ({"player": " "}, "player ' ' is empty"),
])
def test_bad_filters_are_clear_errors(fields: dict[str, str], message: str) -> None:
    with pytest.raises(GohashError, match=message):
        Filters(**fields)  # type: ignore[arg-type]


def test_bad_options_are_clear_errors(records_index: Path) -> None:
    with Index(records_index) as index:
        with pytest.raises(GohashError, match="symmetry 'd8' is not"):
            index.continuations(stones("B:ee"), symmetry="d8")
        with pytest.raises(GohashError, match="to_move 'black' is not 'b', 'w', 'any'"):
            index.find(stones("B:ee"), to_move="black")
        with pytest.raises(GohashError, match="to_move 'either' is not 'b', 'w', 'any'"):
            index.continuations(stones("B:ee"), to_move="either")


@pytest.mark.parametrize(("text", "what", "level"), RANK_FORMS)
def test_rank_forms(text: str, what: str, level: int | None) -> None:
    assert rank_level(text) == level
    # The same in another case and with spaces around it.
    assert rank_level(f" {text.swapcase()} ") == level


@pytest.mark.parametrize(("text", "level"), [
    ("9d", 38), ("9p", 109), ("5段", 34), ("P1段", 101), ("P9p", 109), ("7D*", 36),
    ("十八级", 12), ("二十五级", 5), ("三十级", 0), ("9단 ", 38), ("プロ9段", 109),
    ("9 dan pro", 109), ("P 5 段", 105),
    ("", None), ("31k", None), ("0d", None), ("Meijin", None), (None, None), ("5x", None),
    ("P5k", None), ("P10段", None), ("1500*", None), ("三十一级", None), ("P9 pro", 109),
    ("9", None),
])
def test_rank_levels(text: str | None, level: int | None) -> None:
    assert rank_level(text) == level


def test_rank_forms_are_the_documented_table() -> None:
    """docs/explorer.md shows every form of :data:`RANK_FORMS`, with its level."""
    page = (ROOT / "docs" / "explorer.md").read_text(encoding="utf-8")
    table = page.split("| rank | what it is | level |\n")[1].split("\n\n")[0]
    cells = [[c.strip() for c in line.strip().strip("|").split("|")]
             for line in table.splitlines()[1:]]
    rows = {text.strip("`"): level for text, _, level in cells}
    assert len(rows) == len(RANK_FORMS)
    for text, _, level in RANK_FORMS:
        assert rows.get(text) == ("none" if level is None else str(level)), text


@pytest.mark.parametrize(("text", "iso"), [
    ("2017-01-05", "2017-01-05"), ("2017.01.05 12:34", "2017-01-05"), ("1996-06-20,21",
    "1996-06-20"), ("2003-10", "2003-10"), ("1990", "1990"), ("05.01.2017", "2017"),
    ("2016-03-09T10:20:30+08:00", "2016-03-09"), ("2017-13-01", "2017"), ("2017-02-40",
    "2017-02"), ("Showa era", None), (None, None), ("12345", None),
])
def test_first_dates(text: str | None, iso: str | None) -> None:
    assert first_date(text) == iso


def test_winners_and_komi() -> None:
    assert [winner(x) for x in ("B+R", "w+0.5", "B", " W+Time", "0", "Draw", "Void", "?",
                                None, "D+J")] == ["B", "W", "B", "W", None, None, None, None,
                                                  None, None]
    assert [komi_value(x) for x in ("6.5", " 7 ", "x", "nan", None)] == [6.5, 7.0, None, None,
                                                                      None]


@pytest.mark.parametrize(("text", "shown"), [
    ("B+R", "B+R"), ("B+Resign", "B+R"), ("w+resignation", "W+R"), (" W+Time ", "W+T"),
    ("B+F", "B+F"), ("b+forfeit", "B+F"), ("W+3.5", "W+3.5"), ("W+3.50", "W+3.5"),
    ("W+ 0.5", "W+0.5"), ("B+12", "B+12"), ("B+12.0", "B+12"), ("B", "B+"), ("W+", "W+"),
    ("0", "Draw"), ("draw", "Draw"), ("Jigo", "Draw"), ("void", "Void"), ("?", "?"),
    ("b+3 points", "B+3 points"), ("W+-1", "W+-1"), ("B+nan", "B+nan"),
    ("黑中盘胜", "黑中盘胜"), ("B +R", "B +R"), ("  ", None), (None, None),
])
def test_result_text(text: str | None, shown: str | None) -> None:
    assert result_text(text) == shown


@given(st.one_of(st.text(max_size=12), st.sampled_from(["B+", "W+", "b+", "w+", "B", "W"]).flatmap(
    lambda head: st.text(max_size=8).map(lambda tail: head + tail))))
def test_result_text_names_the_winner(text: str) -> None:
    # One form, the same winner: it starts with B+ or W+ exactly when winner() names one.
    shown = result_text(text)
    said = winner(text)
    assert (shown is not None and shown[:2] in ("B+", "W+")) == (said is not None)
    assert said is None or (shown is not None and shown.startswith(said + "+"))
    assert shown is None or result_text(shown) == shown


# -- games read again --------------------------------------------------------------------------


def test_game_replays_every_indexed_position(records_index: Path, collection: Collection) -> None:
    """Index.game gives each record's main line as the reference replays it, with
    positions[seq] the position a match names."""
    by_file = {(g.file, g.index): g for g in collection.games}
    with Index(records_index) as index:
        for game_id, record in index.records().items():
            game = index.game(game_id)
            ref = by_file[(record.file, record.game)]
            assert game.record == record
            assert len(game.positions) == len(ref.positions)
            for position, stones_ in zip(game.positions, ref.positions, strict=True):
                assert np.array_equal(position.stones, stones_)
            moves = [(p.colour, p.point) for p in game.positions[1:] if p.colour]
            assert moves == [m for m in ref.next_moves if m is not None][:len(moves)] or \
                any(p.setup for p in game.positions[1:])
        match = index.find(stones("B:ee W:cc")).matches[0]
        shown = index.game(match.record.id).positions[match.seq].stones
        assert np.array_equal(match.element.image_array(stones("B:ee W:cc")), shown)
        assert index.game(match.record.id).root["GN"] == "g1"


def test_game_is_rebuilt_from_the_index_without_its_file(tmp_path: Path) -> None:
    shutil.copy(EXPLORER / "mirror.sgf", tmp_path / "mirror.sgf")
    with zipfile.ZipFile(tmp_path / "games.zip", "w") as archive:
        archive.write(EXPLORER / "collection.sgf", "inner/collection.sgf")
    db = tmp_path / "index.db"
    with Index(db, create=True) as index:
        index.build([str(tmp_path / "mirror.sgf"), str(tmp_path / "games.zip")])
        records = index.records()
        member = next(i for i, r in records.items() if r.file.endswith("inner/collection.sgf"))
        assert index.game(member).root["GN"] == "g1"
        first = next(i for i, r in records.items() if r.file.endswith("mirror.sgf"))
        before = index.game(first)
        assert len(before.positions) == 9
        (tmp_path / "mirror.sgf").unlink()
        after = index.game(first)  # the stored game: the file is not read
        assert after.root == before.root
        assert [(p.move_number, p.colour, p.point, p.setup, p.stones.tolist())
                for p in after.positions] == [
            (p.move_number, p.colour, p.point, p.setup, p.stones.tolist())
            for p in before.positions]
        with pytest.raises(GohashError, match="no game with id 999"):
            index.game(999)


def test_game_is_read_from_the_index_in_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(EXPLORER / "mirror.sgf", tmp_path / "mirror.sgf")
    monkeypatch.chdir(tmp_path)
    with Index("index.db", create=True) as index:
        index.build(["mirror.sgf"])
    monkeypatch.chdir(DATA)
    with Index(tmp_path / "index.db") as index:
        assert index.game(1).record.file == "mirror.sgf"
        assert index.game(1).root["GN"] == "m1"


# -- versions ----------------------------------------------------------------------------------


def test_an_index_of_another_schema_version_is_refused_with_the_rebuild_message(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old.db"
    Index(db, create=True).close()
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT value FROM meta WHERE name = 'gohash_version'").fetchone()
        con.execute("PRAGMA user_version = 1")
    with pytest.raises(IndexFileError) as caught:
        Index(db)
    message = str(caught.value)
    assert f"index schema version 1; this gohash reads version {SCHEMA_VERSION}" in message
    assert "rebuild it with `gohash index build`" in message and str(db) in message


def test_board_queries_equal_array_queries(records_index: Path) -> None:
    """With the same side to move asked for: a Board has one, an array none."""
    with Index(records_index) as index:
        board = Board.from_array(stones("B:ee W:cc"))
        for side in ("b", "w", "any"):
            assert index.continuations(board, to_move=side) == index.continuations(
                stones("B:ee W:cc"), to_move=side)
        assert index.continuations(board) == index.continuations(
            stones("B:ee W:cc"), to_move="b")
        assert index.continuations(stones("B:ee W:cc")) == index.continuations(
            board, to_move="any")
