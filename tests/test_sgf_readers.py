"""Records that other SGF readers (Sabaki, GoGui, sgfmill, KataGo, KaTrain) read and
gohash once refused: UTF-16 text, a root node without its ``;``, nodes after a
closed variation (FF[3] era), empty point lists and GTP-style move coordinates.
Each is read with a note; what stays refused gets one clear error line."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from sgfmill import sgf_grammar

from gohash.board import Board
from gohash.errors import GohashError
from gohash.sgf import (
    CLOSE,
    NODE,
    OPEN,
    SgfError,
    SgfLimitError,
    SgfSyntaxError,
    Source,
    decode_move,
    decode_point_list,
    encoding_of,
    find_inputs,
    game_events,
    read_input,
)
from gohash.walk import BaseVisitor, GameInfo, PositionEvent, WalkSummary, walk_source

Event = tuple[int, dict[str, list[bytes]] | None]


class Positions(BaseVisitor):
    """Every position as (variation, move number, GTP move, exact position key)."""

    def __init__(self) -> None:
        self.positions: list[tuple[tuple[int, ...], int, str | None, bytes]] = []
        self.games: list[GameInfo] = []
        self.errors: list[GohashError] = []

    def begin_game(self, info: GameInfo) -> None:
        self.games.append(info)

    def visit_position(self, event: PositionEvent) -> None:
        key = event.board.position_key()
        self.positions.append((event.variation, event.move_number, event.gtp, key))

    def handle_error(self, error: GohashError) -> bool:
        self.errors.append(error)
        return False


def walked(
    data: bytes, name: str = "t.sgf", variations: bool = True
) -> tuple[Positions, WalkSummary]:
    visitor = Positions()
    summary = walk_source(Source(name, data), visitor, variations=variations)
    return visitor, summary


def events_of(data: bytes) -> list[list[Event]]:
    return [list(game.events()) for game in game_events(data, "t.sgf")]


def read(data: bytes) -> list[tuple[list[Event], list[str]]]:
    """Each game's events and the parser's notes on it."""
    games = []
    for game in game_events(data, "t.sgf"):
        events = list(game.events())
        games.append((events, game.notes))
    return games


def sgfmill_events(data: bytes) -> list[Event]:
    """sgfmill's parse of a one-game collection as our events: parentheses and nodes
    in file order."""
    (tree,) = sgf_grammar.parse_sgf_collection(data)
    events: list[Event] = []
    stack: list[sgf_grammar.Coarse_game_tree | None] = [tree]
    while stack:
        t = stack.pop()
        if t is None:
            events.append((CLOSE, None))
            continue
        events.append((OPEN, None))
        events += [(NODE, node) for node in t.sequence]
        stack.append(None)
        stack += reversed(t.children)
    return events


def sources(path: str) -> list[Source | SgfError]:
    return [s for inp in find_inputs([path]) for s in read_input(inp)]


# -- UTF-16 -------------------------------------------------------------------------------

RECORD = "(;GM[1]FF[4]SZ[9]PB[趙治勲]PW[Müller]C[comment];B[ee];W[cc](;B[gg])(;B[cg]))"


@pytest.mark.parametrize(
    ("codec", "bom", "detected"),
    [
        ("utf-16-le", b"\xff\xfe", "UTF-16-LE (byte-order mark)"),
        ("utf-16-be", b"\xfe\xff", "UTF-16-BE (byte-order mark)"),
        ("utf-16-le", b"", "UTF-16-LE (no byte-order mark: NUL bytes at odd offsets)"),
        ("utf-16-be", b"", "UTF-16-BE (no byte-order mark: NUL bytes at even offsets)"),
    ],
)
def test_utf16_files_are_decoded(tmp_path: Path, codec: str, bom: bytes, detected: str) -> None:
    path = tmp_path / "game.sgf"
    path.write_bytes(bom + RECORD.encode(codec))
    (source,) = sources(str(path))
    assert isinstance(source, Source)
    assert source.data == RECORD.encode("utf-8")
    assert source.notes == (f"text is {detected}: decoded to UTF-8",)
    visitor, summary = walked(source.data, str(path))
    expected, _ = walked(RECORD.encode("utf-8"), str(path))
    assert visitor.positions == expected.positions and len(visitor.positions) == 5
    assert visitor.games[0].players == {"b": "趙治勲", "w": "Müller"}
    assert summary.errors == []
    # The walker passes the source's note on, located at the file.
    summary = walk_source(source, Positions())
    assert summary.notes == [f"{path}: text is {detected}: decoded to UTF-8"]


def from_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> list[Source | SgfError]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    return sources("-")


def test_utf32_with_a_byte_order_mark_is_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    for codec, seen in [("utf-32-le", "UTF-32-LE"), ("utf-32-be", "UTF-32-BE")]:
        bom = "\ufeff".encode(codec)
        (source,) = from_stdin(monkeypatch, bom + RECORD.encode(codec))
        assert source == Source(
            "-", RECORD.encode(), (f"text is {seen} (byte-order mark): decoded to UTF-8",)
        )


def test_the_size_limit_applies_to_the_decoded_text(tmp_path: Path) -> None:
    path = tmp_path / "game.sgf"
    path.write_bytes(("(;C[" + "趙" * 300 + "])").encode("utf-16"))  # 610 bytes, 906 in UTF-8
    (inp,) = find_inputs([str(path)])
    (error,) = read_input(inp, limit=900)
    assert isinstance(error, SgfLimitError)
    assert str(error) == f"{path}: {str(path)!r} is larger than the limit of 900 bytes once decoded"
    (source,) = read_input(inp, limit=906)
    assert isinstance(source, Source) and len(source.data) == 906


def test_utf16_with_a_declared_utf16_charset(monkeypatch: pytest.MonkeyPatch) -> None:
    # After decoding, CA[UTF-16] no longer describes the bytes; the text is UTF-8.
    assert encoding_of({"CA": [b"UTF-16"]}) == "UTF-8"
    assert encoding_of({"CA": [b"utf-16le"]}) == "UTF-8"
    (source,) = from_stdin(monkeypatch, "(;CA[UTF-16]SZ[9]PB[Ōta];B[aa])".encode("utf-16"))
    assert isinstance(source, Source)
    visitor, summary = walked(source.data)
    assert visitor.games[0].players["b"] == "Ōta"
    assert summary.errors == [] and summary.notes == []


def test_nul_bytes_without_a_utf16_pattern_are_left_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Padding after the game is junk after the last game, as before.
    data = b"(;SZ[9];B[aa];W[bb])" + b"\0" * 300
    assert from_stdin(monkeypatch, data) == [Source("-", data)]


def test_invalid_utf16_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"\xff\xfe" + "(;SZ[9]".encode("utf-16-le") + b"\x00\xd8(\x00)\x00"  # lone surrogate
    (error,) = from_stdin(monkeypatch, data)
    assert isinstance(error, SgfError)
    assert str(error).startswith("-: text is UTF-16-LE (byte-order mark) but not valid UTF-16: ")


# -- a root node without ';' ------------------------------------------------------------------


def test_root_node_without_semicolon() -> None:
    data = b"(GM[1]FF[4]SZ[9]PB[x]\n;B[aa];W[bb])(;SZ[9];B[cc])"
    (first, notes), (second, no_notes) = read(data)
    assert first == sgfmill_events(b"(;GM[1]FF[4]SZ[9]PB[x];B[aa];W[bb])")
    assert notes == ["the root node has no ';' after '(': read as the root"]
    assert second == sgfmill_events(b"(;SZ[9];B[cc])") and no_notes == []
    visitor, summary = walked(data)
    assert [p[:3] for p in visitor.positions] == [
        ((), 0, None),
        ((), 1, "A9"),
        ((), 2, "B8"),
        ((), 0, None),
        ((), 1, "C7"),
    ]
    assert summary.notes == ["t.sgf, game 0: the root node has no ';' after '(': read as the root"]


def test_only_the_root_may_lack_its_semicolon() -> None:
    with pytest.raises(SgfSyntaxError, match="outside a node"):
        events_of(b"(;SZ[9](B[aa]))")
    # Text in parentheses before a game is not taken for a game.
    assert len(events_of(b"(see [1]) (c) 2024\n(;SZ[9])")) == 1


# -- nodes after a closed variation (FF[3]) ---------------------------------------------------


@pytest.mark.parametrize(
    ("ff3", "ff4"),
    [
        (b"(;SZ[9](;B[aa])(;B[bb]);W[cc];B[dd])", b"(;SZ[9](;B[aa])(;B[bb])(;W[cc];B[dd]))"),
        (b"(;SZ[9];B[aa](;W[bb]);W[cc])", b"(;SZ[9];B[aa](;W[bb])(;W[cc]))"),
        (
            b"(;SZ[9](;B[aa])(;B[bb]);B[cc](;W[dd])(;W[ee]);W[ff];B[gg])",
            b"(;SZ[9](;B[aa])(;B[bb])(;B[cc](;W[dd])(;W[ee])(;W[ff];B[gg])))",
        ),
        (
            b"(;SZ[9](;B[aa](;W[bb]);W[cc])(;B[dd]);B[ee])",
            b"(;SZ[9](;B[aa](;W[bb])(;W[cc]))(;B[dd])(;B[ee]))",
        ),
    ],
)
def test_nodes_after_a_closed_variation_are_read_as_gogui_reads_them(
    ff3: bytes, ff4: bytes
) -> None:
    ((events, notes),) = read(ff3)
    # sgfmill, an independent parser, reads the tree from the FF[4] spelling.
    assert events == sgfmill_events(ff4)
    assert notes == [
        "nodes after a closed variation: read as a further variation, as GoGui reads them"
    ]
    ours, summary = walked(ff3)
    theirs, _ = walked(ff4)
    assert ours.positions == theirs.positions
    assert ours.errors == []
    assert summary.notes == [
        "t.sgf, game 0: nodes after a closed variation: read as a further variation, "
        "as GoGui reads them"
    ]


# -- empty point lists ------------------------------------------------------------------------


def test_an_empty_value_in_a_point_list_is_no_point() -> None:
    assert decode_point_list([b""], 9) == []
    assert decode_point_list([b"aa", b"", b"bb"], 9) == [(8, 0), (7, 1)]
    visitor, summary = walked(b"(;SZ[9]AE[]VW[]AB[];B[aa];AE[];W[bb]AW[])")
    assert summary.errors == []
    assert [p[:3] for p in visitor.positions] == [
        ((), 0, None),
        ((), 1, "A9"),
        ((), 1, None),
        ((), 2, "B8"),
    ]
    with pytest.raises(SgfError, match="bad point b'tt' in a point list"):
        decode_point_list([b"tt"], 19)


# -- GTP-style move coordinates (SmartGo) ------------------------------------------------------


def test_decode_move() -> None:
    assert decode_move(b"pd", 19) == (15, 15)
    assert decode_move(b"R16", 19) == (15, 16)
    assert decode_move(b"r16", 19) == (15, 16)
    assert decode_move(b" A1 ", 9) == (0, 0)
    assert decode_move(b"J9", 9) == (8, 8)
    assert decode_move(b"tt", 19) is None
    assert decode_move(b"", 19) is None
    assert decode_move(b"pass", 9) is None and decode_move(b"PASS", 9) is None
    for value, reason in [
        (b"I5", "bad coordinates b'I5' for a 9x9 board (GTP coordinates have no column I)"),
        (b"K5", "bad coordinates b'K5' for a 9x9 board (off the board)"),
        (b"A10", "bad coordinates b'A10' for a 9x9 board (off the board)"),
        (b"A0", "bad coordinates b'A0' for a 9x9 board (off the board)"),
        (b"zz", "bad coordinates b'zz' for a 9x9 board"),
        (b"5D", "bad coordinates b'5D' for a 9x9 board"),
        (b"A+1", "bad coordinates b'A+1' for a 9x9 board"),
    ]:
        with pytest.raises(SgfError) as info:
            decode_move(value, 9)
        assert info.value.reason == reason


def test_gtp_move_coordinates_are_read_as_gogui_reads_them() -> None:
    human, summary = walked(b"(;SZ[19];B[Q16];W[D4];B[pass];W[c17])")
    letters, _ = walked(b"(;SZ[19];B[pd];W[dp];B[];W[cc])")
    assert [p[1:] for p in human.positions] == [p[1:] for p in letters.positions]
    assert human.errors == []
    assert summary.notes == [
        "t.sgf, game 0: move 1 B[Q16]: GTP-style coordinates (as SmartGo writes them), "
        "read as GoGui reads them"
    ]
    board = Board(19)
    board.play((15, 15), "b")
    assert human.positions[1][3] == board.position_key()


def test_refused_moves_get_one_clear_error_line() -> None:
    visitor, summary = walked(b"(;SZ[9];B[ee];W[I5];B[aa])", name="games/x.sgf")
    (error,) = summary.errors
    assert str(error) == (
        "games/x.sgf, game 0, move 2: bad coordinates b'I5' for a 9x9 board "
        "(GTP coordinates have no column I)"
    )
    assert len(visitor.positions) == 2
