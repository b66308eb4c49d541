"""The walker: main line and variations, setup, passes, handicap, the quirks of real
collections, errors and the visitor protocol."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import sgf_grammar

from gohash.errors import (
    BoardSizeError,
    GohashError,
    HandicapPlacementError,
    OccupiedPointError,
    SgfError,
    SgfSyntaxError,
)
from gohash.go.board import Board
from gohash.group.coords import gtp, parse_gtp
from gohash.sgf.inputs import Source
from gohash.sgf.walk import (
    BaseVisitor,
    GameInfo,
    PositionEvent,
    WalkSummary,
    fixed_handicap,
    walk_paths,
    walk_source,
)
from tests.support import sgfgen
from tests.support.env import ROOT
from tests.support.gtp import GnuGo, point_of, require_gnugo

DATA = ROOT / "data" / "sgf"


class Recorder(BaseVisitor):
    """Keeps every position as (game, variation, move_number, colour, sgf_move, gtp, board copy)."""

    def __init__(self, go_on: bool = False) -> None:
        self.positions: list[
            tuple[int, tuple[int, ...], int, str | None, str | None, str | None]
        ] = []
        self.boards: list[Board] = []
        self.depths: list[int] = []
        self.setups: list[bool] = []
        self.games: list[GameInfo] = []
        self.ended: list[int] = []
        self.errors: list[GohashError] = []
        self.go_on = go_on

    def begin_game(self, info: GameInfo) -> None:
        self.games.append(info)

    def visit_position(self, event: PositionEvent) -> None:
        self.positions.append(
            (
                event.game,
                event.variation,
                event.move_number,
                event.colour,
                event.sgf_move,
                event.gtp,
            )
        )
        self.boards.append(event.board.copy())
        self.depths.append(event.depth)
        self.setups.append(event.node_has_setup)

    def end_game(self, info: GameInfo) -> None:
        self.ended.append(info.game)

    def handle_error(self, error: GohashError) -> bool:
        self.errors.append(error)
        return self.go_on


def run(
    data: bytes, *, variations: bool = False, go_on: bool = False
) -> tuple[Recorder, WalkSummary]:
    recorder = Recorder(go_on)
    summary = walk_source(Source("t.sgf", data), recorder, variations=variations)
    return recorder, summary


def stones(board: Board) -> set[tuple[str, str]]:
    return {
        (colour, gtp((row, col), board.size))
        for row in range(board.size)
        for col in range(board.size)
        if (colour := board.get((row, col))) is not None
    }


def test_main_line_moves_passes_and_numbers() -> None:
    rec, summary = run(b"(;SZ[9];B[ee];W[];B[tt];W[cc]C[comment];C[no move];B[dd])")
    assert [p[2:] for p in rec.positions] == [
        (0, None, None, None),
        (1, "b", "ee", "E5"),
        (2, "w", "", "pass"),
        (3, "b", "", "pass"),
        (4, "w", "cc", "C7"),
        (5, "b", "dd", "D6"),
    ]
    assert stones(rec.boards[-1]) == {("b", "E5"), ("w", "C7"), ("b", "D6")}
    assert rec.boards[3].hash == rec.boards[1].hash
    assert (summary.files, summary.games, summary.positions, summary.errors) == (1, 1, 6, [])


def test_tt_is_a_point_above_19() -> None:
    rec, _ = run(b"(;SZ[21];B[tt])")
    assert rec.positions[1][3:] == ("b", "tt", "U2")


def test_variations_are_replayed_with_undo() -> None:
    path = DATA / "variations-9x9.sgf"
    rec, _ = run(path.read_bytes(), variations=True)
    lines = {}
    for (_, variation, number, *_rest), board in zip(rec.positions, rec.boards, strict=True):
        lines.setdefault(variation, []).append((number, board))
    assert list(lines) == [(), (0, 1), (1,)]
    assert [n for n, _ in lines[()]] == list(range(41))
    assert [n for n, _ in lines[(0, 1)]] == [21]  # a pass after move 20
    assert lines[(0, 1)][0][1].hash == lines[()][20][1].hash
    # The alternative after move 10: a move, a setup-only node (same number), three moves.
    assert [n for n, _ in lines[(1,)]] == [11, 11, 12, 13, 14]
    after_setup = lines[(1,)][1][1]
    assert after_setup.get(parse_gtp("H7", 9)) is None  # AE[hc] cleared the first move
    # Each variation's positions are those of the line replayed from scratch.
    main_only, _ = run(path.read_bytes())
    assert [b.hash for b in main_only.boards] == [b.hash for _, b in lines[()]]
    replay = main_only.boards[10].copy()
    replay.play(parse_gtp("F9", 9), "b")  # B[fa]
    assert replay.hash == lines[(1,)][0][1].hash


def test_only_children_are_no_branch_points() -> None:
    # "(;a(;b(;c)(;d)))": b is the only child of a, so d's path is [1], not [0, 1].
    rec, _ = run(b"(;SZ[9](;B[aa](;W[bb])(;W[cc])))", variations=True)
    assert [(p[1], p[4]) for p in rec.positions] == [
        ((), None),
        ((), "aa"),
        ((), "bb"),
        ((1,), "cc"),
    ]


def test_deep_tree_walks_without_recursion() -> None:
    depth = 100_000
    moves = [b"(;B[]", b"(;W[]"]
    data = (
        b"(;SZ[19]"
        + b"".join(moves[i % 2] for i in range(depth))
        + b"(;B[aa])(;B[bb])"
        + b")" * (depth + 1)
    )

    class Counter(BaseVisitor):
        count = 0
        last: PositionEvent | None = None

        def visit_position(self, event: PositionEvent) -> None:
            self.count += 1
            self.last = event

    for variations, expected in [(True, depth + 3), (False, depth + 2)]:
        counter = Counter()
        walk_source(Source("deep.sgf", data), counter, variations=variations)
        assert counter.count == expected
        assert counter.last is not None
        assert counter.last.move_number == depth + 1
        assert counter.last.variation == ((1,) if variations else ())


def test_setup_in_root_and_mid_game() -> None:
    rec, _ = run(b"(;SZ[9]AB[aa][bb]AW[cc];B[dd];AE[aa]AW[ee];W[ff])")
    assert [p[2:4] for p in rec.positions] == [(0, None), (1, "b"), (1, None), (2, "w")]
    assert stones(rec.boards[0]) == {("b", "A9"), ("b", "B8"), ("w", "C7")}
    assert stones(rec.boards[2]) == {("b", "B8"), ("w", "C7"), ("b", "D6"), ("w", "E5")}


def test_handicap_in_node_1() -> None:
    rec, summary = run((DATA / "handicap-3-in-node-1.sgf").read_bytes())
    assert rec.games[0].handicap == 3
    assert [p[2:4] for p in rec.positions[:3]] == [(0, None), (0, None), (1, "w")]
    assert stones(rec.boards[0]) == set()
    assert stones(rec.boards[1]) == {("b", "D4"), ("b", "Q16"), ("b", "D16")}
    assert summary.notes == []


def test_handicap_without_ab_places_gtp_stones_and_says_so() -> None:
    rec, summary = run((DATA / "handicap-5-no-ab.sgf").read_bytes())
    assert stones(rec.boards[0]) == {("b", v) for v in ["C3", "G7", "C7", "G3", "E5"]}
    assert rec.positions[1][2:4] == (1, "w")
    assert summary.notes == [
        "t.sgf, game 0: HA[5] without AB: placed GTP fixed handicap C3 G7 C7 G3 E5"
    ]
    assert rec.games[0].notes == [summary.notes[0].split(": ", 1)[1]]
    # Node 1 of the main line decides, also behind a "(".
    rec, summary = run(b"(;SZ[9]HA[2](;AB[cc][gg];W[bb])(;B[aa]))", variations=True)
    assert summary.notes == [] and stones(rec.boards[1]) == {("b", "C7"), ("b", "G3")}
    rec, summary = run(b"(;SZ[9]HA[2](;W[bb])(;W[aa]))", variations=True)
    assert stones(rec.boards[0]) == {("b", "C3"), ("b", "G7")}
    assert stones(rec.boards[2]) == {("b", "C3"), ("b", "G7"), ("w", "A9")}
    rec, summary = run(b"(;SZ[9]HA[7.5];B[aa])")
    assert summary.notes == ["t.sgf, game 0: HA[7.5] is not a number: ignored"]
    assert rec.games[0].handicap == 0 and len(rec.positions) == 2
    _, summary = run(b"(;SZ[5]HA[2];W[aa])")
    assert "no fixed handicap of 2 stones on a 5x5 board" in str(summary.errors[0])


def test_handicap_as_black_moves_equals_the_game_with_ab() -> None:
    """IGS/KGS style: HA[4], then the four stones as Black's first moves."""
    moves, summary = run((DATA / "handicap-4-as-moves.sgf").read_bytes())
    setup, _ = run((DATA / "handicap-4-19x19.sgf").read_bytes())
    assert summary.errors == [] and moves.errors == []
    assert summary.notes == [
        "t.sgf, game 0: HA[4] without AB and Black moves first: no stones placed, "
        "Black's moves are the handicap"
    ]
    assert stones(moves.boards[0]) == set()
    assert [p[3:5] for p in moves.positions[1:5]] == [
        ("b", "dd"), ("b", "pd"), ("b", "dp"), ("b", "pp")
    ]
    # From the handicap on, the same positions, four moves later.
    assert len(moves.boards) == len(setup.boards) + 4
    for a, b in zip(moves.boards[4:], setup.boards, strict=True):
        assert a.position_key() == b.position_key()
    assert [p[2] for p in moves.positions[4:]] == [p[2] + 4 for p in setup.positions]


def test_which_handicap_records_get_gtp_stones() -> None:
    """GTP stones exactly when no AB comes before the main line's first move and
    that move is White's, or there is none; looking ahead is bounded."""
    gtp_2 = {("b", "C3"), ("b", "G7")}
    cases = [
        (b"(;SZ[9]HA[2];W[ee])", gtp_2),
        (b"(;SZ[9]HA[2])", gtp_2),  # no move at all
        (b"(;SZ[9]HA[2];C[hello];W[ee])", gtp_2),
        (b"(;SZ[9]HA[2](;C[x])(;B[aa]))", gtp_2),  # the main line has no move
        (b"(;SZ[9]HA[2];B[cc];B[gg];W[ee])", set()),
        (b"(;SZ[9]HA[2];C[hello];B[cc];B[gg];W[ee])", set()),
        (b"(;SZ[9]HA[2];C[x];AB[cc][gg];W[ee])", set()),  # AB in node 2
        (b"(;SZ[9]HA[2];AB[cc]B[gg];W[ee])", set()),  # AB in the first move's node
        (b"(;SZ[9]HA[2]AB[cc][gg];W[ee])", {("b", "C7"), ("b", "G3")}),
    ]
    for data, initial in cases:
        rec, summary = run(data)
        assert summary.errors == [], data
        assert stones(rec.boards[0]) == initial, data
        assert len(summary.notes) == (0 if b"AB" in data else 1), data
    # A first move beyond the 64 events read ahead counts as none: GTP stones.
    near = b"(;SZ[9]HA[2]" + b";C[x]" * 63 + b";B[ee])"
    rec, summary = run(near)
    assert stones(rec.boards[0]) == set() and summary.errors == []
    rec, summary = run(near.replace(b";B[ee]", b";C[x];B[ee]"))
    assert stones(rec.boards[0]) == gtp_2 and summary.errors == []
    assert rec.positions[-1][2:5] == (1, "b", "ee")
    # Reading ahead stops at the first move: an error after it is met in the replay.
    rec, summary = run(b"(;SZ[9]HA[2];B[cc];B[gg];W[zz])")
    assert [e.move_number for e in summary.errors] == [3] and len(rec.positions) == 3


def test_fixed_handicap_is_gnu_gos() -> None:
    with GnuGo(require_gnugo(), "positional") as gnugo:
        for size in range(2, 20):
            for count in range(2, 11):
                gnugo.new_game(size)
                ok, reply = gnugo.send(f"fixed_handicap {count}")
                if not ok:
                    with pytest.raises(GohashError, match="no fixed handicap"):
                        fixed_handicap(size, count)
                else:
                    expected = {point_of(v) for v in reply.split()}
                    assert set(fixed_handicap(size, count)) == expected, (size, count)


def test_real_collection_quirks() -> None:
    # No SZ: 19x19.
    rec, _ = run((DATA / "game-19x19-no-sz.sgf").read_bytes())
    assert rec.games[0].size == 19 and rec.positions[-1][2] == 200
    # tt passes on a small board.
    rec, _ = run((DATA / "game-13x13.sgf").read_bytes())
    assert rec.positions[-2][3:] == ("b", "", "pass")
    assert rec.boards[-1].hash == rec.boards[-3].hash
    # Two moves in a row by one colour are played as written.
    rec, summary = run(b"(;SZ[9];B[aa];B[bb];W[cc];W[dd])")
    assert [p[3] for p in rec.positions[1:]] == ["b", "b", "w", "w"]
    assert stones(rec.boards[-1]) == {("b", "A9"), ("b", "B8"), ("w", "C7"), ("w", "D6")}
    assert summary.errors == []
    # Invalid UTF-8 without CA: Latin-1 text, no error.
    rec, summary = run("(;SZ[9]PB[Müller]PW[Ægir];B[aa])".encode("latin-1"))
    assert rec.games[0].players == {"b": "Müller", "w": "Ægir"}
    assert summary.errors == [] and summary.notes == []
    # Invalid UTF-8 under CA[UTF-8]: replacement characters, and a note.
    rec, summary = run(b"(;CA[UTF-8]SZ[9]PB[M\xfcller];B[aa])")
    assert rec.games[0].players["b"] == "M\ufffdller"
    assert summary.notes == [
        "t.sgf, game 0: text is not valid UTF-8; bad bytes shown as U+FFFD (noted once per file)"
    ]
    # Several games in one file.
    rec, summary = run((DATA / "two-games.sgf").read_bytes())
    assert [(g.game, g.size, g.root["GN"]) for g in rec.games] == [
        (0, 9, "first"),
        (1, 13, "second"),
    ]
    assert summary.games == 2 and rec.ended == [0, 1]


def test_errors_are_located_and_the_default_visitor_raises() -> None:
    with pytest.raises(GohashError) as info:
        walk_source(Source("t.sgf", b"(;SZ[9];B[aa];W[aa])"), BaseVisitor())
    assert (info.value.file, info.value.game, info.value.move_number) == ("t.sgf", 0, 2)
    assert "'A9' is occupied" in str(info.value)


@pytest.mark.parametrize(
    ("data", "error", "where", "message", "positions"),
    [
        (b"(;SZ[9];B[aa];W[bb];B[cc]", SgfSyntaxError, (0, 2), "truncated", 3),
        (b"(;SZ[9];B[aa];W[jj])", SgfError, (0, 2), "bad coordinates b'jj' for a 9x9", 2),
        (b"(;SZ[9];B[aa];W[aa];B[bb])", GohashError, (0, 2), "'A9' is occupied", 2),
        (b"(;SZ[0];B[aa])", BoardSizeError, (0, 0), r"SZ[0] is outside 1..26", 0),
        (b"(;SZ[19:13];B[aa])", BoardSizeError, (0, 0), "rectangular board SZ[19:13]", 0),
        (b"(;CA[klingon];B[aa])", SgfError, (0, 0), "unknown or unsupported encoding", 0),
        # codecs.lookup raises ValueError, not LookupError, on a NUL (a traceback once).
        (b"(;CA[bo\0gus]SZ[9];B[aa])", SgfError, (0, 0), "encoding CA['bo\\x00gus']", 0),
        (b"(;SZ[9];B[aa]W[bb])", SgfError, (0, 1), "node has both B", 1),
        (b"(;SZ[9];B[aa][bb])", SgfError, (0, 1), "move B has 2 values", 1),
        (b"(;SZ[9]AB[aa:];B[bb])", SgfError, (0, 0), "bad point b'aa:'", 0),
    ],
)
def test_error_reports(
    data: bytes,
    error: type[GohashError],
    where: tuple[int, int | None],
    message: str,
    positions: int,
) -> None:
    rec, summary = run(data)
    (reported,) = rec.errors
    assert summary.errors == [reported]
    assert isinstance(reported, error)
    assert (reported.file, reported.game, reported.move_number) == ("t.sgf", *where)
    assert message in str(reported)
    assert len(rec.positions) == positions


def test_after_an_error_the_next_game_goes_on() -> None:
    data = b"(;SZ[0];B[aa])(;SZ[9];B[aa];W[aa];B[bb])(;SZ[9];B[cc])"
    rec, summary = run(data)
    assert [e.game for e in rec.errors] == [0, 1]
    assert [(p[0], p[2]) for p in rec.positions] == [(1, 0), (1, 1), (2, 0), (2, 1)]
    assert summary.games == 3
    # A visitor may go on with the game instead: the bad move is not played.
    rec, _ = run(data, go_on=True)
    assert [(p[0], p[2], p[4]) for p in rec.positions] == [
        (1, 0, None),
        (1, 1, "aa"),
        (1, 3, "bb"),
        (2, 0, None),
        (2, 1, "cc"),
    ]


def test_a_syntax_error_ends_the_file() -> None:
    rec, summary = run(b"(;SZ[9];B[aa])(;SZ[9];B[bb]!)(;SZ[9];B[cc])")
    assert [e.game for e in rec.errors] == [1]
    assert "unexpected data" in str(rec.errors[0])
    assert {p[0] for p in rec.positions} == {0}  # game 1 broke before its first move ended
    assert rec.ended == [0]
    assert summary.games == 2


def test_missing_parenthesis_and_empty_files() -> None:
    for data, message, games in [
        (b"(;SZ[9];B[aa]) ;SZ[9];B[bb])", "missing opening parenthesis", 1),
        (b"", "no SGF game found", 0),
    ]:
        rec, summary = run(data)
        assert len(rec.positions) == 2 * games and summary.games == games
        assert message in str(rec.errors[0]) and rec.errors[0].file == "t.sgf"
    # A file that starts with its root (no "(") is read, with a note.
    rec, summary = run(b";SZ[9];B[aa](;W[bb])(;W[cc]))")
    assert summary.games == 1 and not summary.errors and len(rec.positions) == 3
    assert summary.notes == ["t.sgf, game 0: the game has no '(' before its root ';': read as "
                             "if it had one"]


def test_walk_over_paths(tmp_path: Path) -> None:
    (tmp_path / "a.sgf").write_bytes(b"(;SZ[9];B[aa])")
    (tmp_path / "b.sgf").write_bytes(b"(;SZ[9];B[aa];W[aa])")
    rec = Recorder()
    summary = walk_paths([str(tmp_path), str(tmp_path / "missing.sgf")], rec)
    assert (summary.files, summary.games, summary.positions) == (2, 2, 4)
    assert [e.file for e in summary.errors] == [
        str(tmp_path / "b.sgf"),
        str(tmp_path / "missing.sgf"),
    ]
    assert str(summary) == "2 files, 2 games, 4 positions, 2 errors"


def test_regression_root_position_is_visited_once() -> None:
    """Position 0 is the root's setup, visited once, before the root's move: also
    when the root's setup or move is in error (the walker once showed the board
    after move 1 as position 0)."""
    cases = [
        # (record, [(move number, colour, stones)], error move numbers)
        (b"(;SZ[9]AB[zz];B[ee];W[cc])", [(0, None, set()), (1, "b", {("b", "E5")}),
         (2, "w", {("b", "E5"), ("w", "C7")})], [0]),
        (b"(;SZ[5]B[aa];W[bb])", [(0, None, set()), (1, "b", {("b", "A5")}),
         (2, "w", {("b", "A5"), ("w", "B4")})], []),
        (b"(;SZ[5]AB[aa]B[aa];W[bb])", [(0, None, {("b", "A5")}),
         (2, "w", {("b", "A5"), ("w", "B4")})], [1]),
        (b"(;SZ[5]AB[zz]B[aa];W[bb])", [(0, None, set()), (2, "w", {("w", "B4")})], [1]),
    ]
    for data, expected, errors in cases:
        rec, summary = run(data, go_on=True)
        found = [(p[2], p[3], stones(b)) for p, b in zip(rec.positions, rec.boards, strict=True)]
        assert found == expected, data
        assert [e.move_number for e in rec.errors] == errors, data
        assert rec.depths == list(range(len(expected))), data
        assert summary.positions == len(expected)


def test_events_carry_their_line_depth_and_errors_their_variation() -> None:
    """``depth`` counts the positions on the event's line before it, so a visitor
    keeps exactly its line's history; a node's error names the variation it is in."""
    data = b"(;SZ[5];B[aa](;W[bb];B[cc])(;AB[dd]W[aa];B[ee])(;C[x];W[ee]))"
    rec, _ = run(data, variations=True, go_on=True)
    assert [(p[1], p[2], p[3], d) for p, d in zip(rec.positions, rec.depths, strict=True)] == [
        ((), 0, None, 0),
        ((), 1, "b", 1),
        ((), 2, "w", 2),
        ((), 3, "b", 3),
        ((1,), 2, None, 2),  # W[aa] fails: the node's setup position, under its number
        ((1,), 3, "b", 3),
        ((2,), 2, "w", 2),
    ]
    assert rec.setups == [False, False, False, False, True, False, False]
    assert stones(rec.boards[4]) == {("b", "A5"), ("b", "D2")}
    (error,) = rec.errors
    assert (error.move_number, error.variation) == (2, (1,))
    assert "'A5' is occupied" in str(error)


def test_a_node_with_a_failing_setup_is_skipped_but_its_move_counts() -> None:
    rec, _ = run(b"(;SZ[5];B[aa];AB[zz]W[bb];B[cc])", go_on=True)
    assert [(p[2], p[4]) for p in rec.positions] == [(0, None), (1, "aa"), (3, "cc")]
    assert stones(rec.boards[-1]) == {("b", "A5"), ("b", "C3")}
    (error,) = rec.errors
    assert (error.move_number, error.variation) == (2, ())


# -- against a reference replay on sgfmill's board, on generated records -------------------


class Trace(BaseVisitor):
    """Positions and errors in the order the walker hands them over."""

    def __init__(self) -> None:
        self.items: list[tuple[object, ...]] = []

    def visit_position(self, event: PositionEvent) -> None:
        board = event.board
        stones = tuple(
            board.get((row, col)) for row in range(board.size) for col in range(board.size)
        )
        self.items.append(
            ("position", event.game, event.variation, event.move_number, event.colour,
             event.point, event.node_has_setup, event.depth, stones)
        )

    def handle_error(self, error: GohashError) -> bool:
        if isinstance(error, OccupiedPointError):
            kind = "occupied"
        elif "no fixed handicap" in error.reason:
            kind = "handicap"
        elif isinstance(error, HandicapPlacementError):
            kind = "placement"
        elif "bad point" in error.reason:
            kind = "setup"
        else:
            kind = "move"
        where = (error.game, error.variation, error.move_number, kind)
        if isinstance(error, OccupiedPointError):
            where += (error.colour, error.point)
        self.items.append(("error", *where))
        return True


def expected_trace(record: sgfgen.Record, variations: bool) -> list[tuple[object, ...]]:
    items: list[tuple[object, ...]] = []
    for item in sgfgen.replay(record, variations=variations):
        if isinstance(item, sgfgen.Fault):
            where = (item.game, item.variation, item.move_number, item.kind)
            if item.kind == "occupied":
                where += (item.colour, item.point)
            items.append(("error", *where))
        else:
            items.append(
                ("position", item.game, item.variation, item.move_number, item.colour,
                 item.point, item.setup, item.depth, item.stones)
            )
    return items


@settings(max_examples=150, deadline=None)
@given(sgfgen.records(), st.booleans())
def test_walker_agrees_with_the_reference_replay(record: sgfgen.Record, variations: bool) -> None:
    """Every position (where, which move, setup or not, line depth, every stone)
    and every error, in order, as the walker's docstring promises them.  The
    board plays the record as written, as the superko checker has it: suicides
    are played and kos retaken."""
    trace = Trace()
    summary = walk_source(
        Source("gen.sgf", record.sgf().encode()), trace, variations=variations,
        board_options={"suicide_allowed": True, "simple_ko": False},
    )
    assert trace.items == expected_trace(record, variations)
    assert summary.games == len(record.games)
    assert summary.positions == sum(item[0] == "position" for item in trace.items)


def _coarse(tree: sgfgen.Tree) -> tuple[object, ...]:
    return ([node.properties() for node in tree.nodes], [_coarse(c) for c in tree.children])


@settings(max_examples=100, deadline=None)
@given(sgfgen.records())
def test_generated_text_reads_back_as_described(record: sgfgen.Record) -> None:
    """sgfmill's parser finds in the generated text exactly the described trees:
    the description the references replay is the record the walker reads."""
    parsed = sgf_grammar.parse_sgf_collection(record.sgf().encode())

    def coarse(tree: sgf_grammar.Coarse_game_tree) -> tuple[object, ...]:
        return (tree.sequence, [coarse(child) for child in tree.children])

    assert [coarse(tree) for tree in parsed] == [_coarse(game.tree) for game in record.games]
