"""Records that other SGF readers (Sabaki, GoGui, sgfmill, KataGo, KaTrain) read and
gohash once refused: UTF-16 text, a root node without its ``;``, nodes after a
closed variation (FF[3] era), empty point lists and GTP-style move coordinates.
Each is read with a note; what stays refused gets one clear error line.  Names
are data (issue 22): file and member names in any bytes are read, stored and
written; only regular files are read from folders."""

from __future__ import annotations

import csv
import io
import json
import os
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sgfmill import sgf_grammar

from gohash.errors import (
    GohashError,
    SgfError,
    SgfLimitError,
    SgfSyntaxError,
    name_text,
    shown_name,
)
from gohash.go.board import Board
from gohash.index.index import Index
from gohash.pipeline.positions import read_positions
from gohash.sgf.inputs import Skipped, Source
from gohash.sgf.names import fs_name
from gohash.sgf.parser import (
    CLOSE,
    NODE,
    OPEN,
    decode_move,
    decode_point_list,
    encoding_of,
    game_events,
)
from gohash.sgf.sources import find_inputs, read_input
from gohash.sgf.walk import BaseVisitor, GameInfo, PositionEvent, WalkSummary, walk_source
from tests.support.hostile import FLAGGED_NAME, GAME, flagged_zip, latin1_folder, tar_of

pq = pytest.importorskip("pyarrow.parquet")

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


def sources(path: str) -> list[Source | SgfError | Skipped]:
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


# -- names are data; only regular files are read from folders -----------------------------

COMMAND = Path(sys.executable).parent / "gohash"
LATIN1 = os.fsdecode(b"lat\xe9n1.sgf")  # the Latin-1 bytes, as surrogate escapes


@given(st.binary(min_size=1, max_size=40))
def test_name_text_is_utf8_and_fs_name_reads_it_back(raw: bytes) -> None:
    name = raw.decode("utf-8", "surrogateescape")
    text = name_text(name)
    text.encode("utf-8")  # storable: SQLite text, Parquet strings, UTF-8 output
    if "\\x" not in name:  # a name holding an escape as text reads back as its bytes
        assert fs_name(text) == name
    shown = shown_name(name)
    assert shown.isprintable() and shown.encode("utf-8")
    if name.isprintable():
        assert text == shown == name


def test_names_shown_and_stored() -> None:
    assert name_text(LATIN1) == "lat\\xe9n1.sgf"
    assert shown_name("new\nline\x1b.sgf") == "new\\nline\\x1b.sgf"
    assert shown_name(LATIN1 + "\t") == "lat\\xe9n1.sgf\\t"
    assert name_text("趙治勲.sgf") == shown_name("趙治勲.sgf") == "趙治勲.sgf"
    assert fs_name("a\\x41\\xe9.sgf") == "a\\x41" + os.fsdecode(b"\xe9") + ".sgf"
    error = SgfError("bad", file="new\nline.sgf", game=0)
    assert str(error) == "new\\nline.sgf, game 0: bad"


def run(*args: str | Path, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run([str(COMMAND), *map(str, args)], capture_output=True, cwd=cwd,
                          timeout=60)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def test_a_folder_with_a_latin1_name_is_read_by_every_command(tmp_path: Path) -> None:
    """Once a UnicodeEncodeError in index build and canon --format parquet: now the
    name is stored as lat\\xe9n1.sgf and its game can be read again from the index."""
    latin1_folder(tmp_path / "games")
    escaped = "games/lat\\xe9n1.sgf"
    code, out, err = run("canon", "games", cwd=tmp_path)
    assert code == 0, err
    assert {json.loads(line)["file"] for line in out.splitlines()} == {
        "games/good.sgf", escaped}
    code, out, err = run("canon", "--format", "csv", "games", cwd=tmp_path)
    assert code == 0, err
    assert {row["file"] for row in csv.DictReader(io.StringIO(out))} == {
        "games/good.sgf", escaped}
    code, _, err = run("canon", "--format", "parquet", "-o", "out", "games", cwd=tmp_path)
    assert code == 0, err
    files = pq.read_table(tmp_path / "out" / "files").column("file").to_pylist()
    assert sorted(files) == ["games/good.sgf", escaped]
    code, _, err = run("index", "build", "i.db", "games", cwd=tmp_path)
    assert code == 0, err
    code, _, err = run("index", "build", "i.db", "games", cwd=tmp_path)  # unchanged
    assert code == 0 and "0 files indexed (0 replaced), 2 unchanged" in err, err
    index = Index(str(tmp_path / "i.db"))
    paths = dict(index._db.execute("SELECT path, id FROM files").fetchall())
    assert sorted(paths) == ["games/good.sgf", escaped]
    (game_id,) = index._db.execute("SELECT id FROM games WHERE file_id = ?",
                                   (paths[escaped],)).fetchone()
    assert len(index.game(game_id).positions) == 3  # read again from its file


def test_a_file_name_with_a_line_break_is_quoted_in_csv(tmp_path: Path) -> None:
    (tmp_path / "new\nline.sgf").write_bytes(GAME)
    code, out, err = run("canon", "--format", "csv", "new\nline.sgf", cwd=tmp_path)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out, newline="")))
    assert [row["file"] for row in rows] == ["new\nline.sgf"] * 3
    assert [row["move_number"] for row in rows] == ["0", "1", "2"]


def test_tar_member_names_that_are_not_utf8(tmp_path: Path) -> None:
    data = tar_of([("good.sgf", GAME), ("lat\xe9n1.sgf", GAME)], encoding="latin-1")
    (tmp_path / "names.tar").write_bytes(data)
    assert [s.name for s in sources(str(tmp_path / "names.tar"))] == [
        f"{tmp_path}/names.tar:good.sgf", f"{tmp_path}/names.tar:{LATIN1}"]
    code, _, err = run("index", "build", "i.db", "names.tar", cwd=tmp_path)
    assert code == 0, err
    code, out, err = run("canon", "--format", "csv", "names.tar", cwd=tmp_path)
    assert code == 0 and "names.tar:lat\\xe9n1.sgf,0,,2,w,cc,C7," in out, err


def test_zip_names_flagged_utf8_that_are_not(tmp_path: Path) -> None:
    """zipfile refuses the whole zip (UnicodeDecodeError; canon once wrote nothing,
    not even for the file before it): every member is read, named by its bytes."""
    path = flagged_zip(tmp_path / "names.zip")
    with pytest.raises(UnicodeDecodeError):
        zipfile.ZipFile(path)
    found = sources(str(path))
    assert [s.name for s in found] == [
        f"{path}:good.sgf", f"{path}:" + os.fsdecode(FLAGGED_NAME)]
    assert all(isinstance(s, Source) and s.data == GAME for s in found)
    (tmp_path / "first.sgf").write_bytes(GAME)
    code, out, err = run("canon", "first.sgf", "names.zip", cwd=tmp_path)
    assert code == 0, err
    assert [json.loads(line)["file"] for line in out.splitlines()][::3] == [
        "first.sgf", "names.zip:good.sgf", "names.zip:lat\\xe9an1.sgf"]


def test_only_regular_files_are_read_from_folders(tmp_path: Path) -> None:
    """A FIFO named *.sgf once blocked index build for ever: now a pipe, socket or
    device found in a folder is never opened, and is a note."""
    games = tmp_path / "games"
    games.mkdir()
    (games / "good.sgf").write_bytes(GAME)
    os.mkfifo(games / "pipe.sgf")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(games / "socket.sgf"))
        found = sources(str(games))
        assert [s.name for s in found if isinstance(s, Source)] == [str(games / "good.sgf")]
        assert [str(s) for s in found if isinstance(s, Skipped)] == [
            f"{games / 'pipe.sgf'}: a named pipe (FIFO), not a regular file: skipped",
            f"{games / 'socket.sgf'}: a socket, not a regular file: skipped",
        ]
        assert not [s for s in found if isinstance(s, SgfError)]
    (games / "socket.sgf").unlink()
    (games / "link.sgf").symlink_to("good.sgf")  # symbolic links are followed
    code, _, err = run("index", "build", "i.db", "games", cwd=tmp_path)
    assert code == 0, err
    assert err.splitlines()[:2] == [
        "gohash index build: note: games/pipe.sgf: a named pipe (FIFO), not a regular "
        "file: skipped",
        "gohash index build: 2 files indexed (0 replaced), 0 unchanged; 2 games, 6 positions; "
        "0 errors",
    ]


_PIPE_NOTE = "games/pipe.sgf: a named pipe (FIFO), not a regular file: skipped"


@pytest.mark.parametrize("command", [
    ["canon", "games"],
    ["canon", "--jobs", "2", "games"],
    ["canon", "--format", "csv", "games", "good.sgf"],
    ["canon", "--format", "parquet", "-o", "out", "games"],
    ["index", "build", "i.db", "games"],
    ["index", "build", "--jobs", "2", "i.db", "games", "good.sgf"],
    ["superko", "games"],
    ["superko", "--jobs", "2", "games", "good.sgf"],
    ["audit", "games"],
    ["audit", "--jobs", "2", "games", "good.sgf"],
    ["pack", "-o", "out", "games"],
])
def test_a_pipe_in_a_folder_is_one_note_for_every_command(
    tmp_path: Path, command: list[str]
) -> None:
    """Every command skips the pipe unopened (a read would wait for a writer: the
    run's timeout fails the test), says so once, in its notes, and exits 0."""
    games = tmp_path / "games"
    games.mkdir()
    (games / "good.sgf").write_bytes(GAME)
    (tmp_path / "good.sgf").write_bytes(GAME)
    os.mkfifo(games / "pipe.sgf")
    code, _, err = run(*command, cwd=tmp_path)
    prog = "gohash " + " ".join(command[:2] if command[0] == "index" else command[:1])
    assert code == 0, err
    lines = err.splitlines()
    assert lines.count(f"{prog}: note: {_PIPE_NOTE}") == 1, err
    assert sum(_PIPE_NOTE in line for line in lines) == 1, err
    assert not [line for line in lines if line.startswith(f"{prog}: error:")], err


def test_positions_gives_a_pipe_in_a_folder_as_a_note(tmp_path: Path) -> None:
    (tmp_path / "good.sgf").write_bytes(GAME)
    os.mkfifo(tmp_path / "pipe.sgf")
    batches = list(read_positions([str(tmp_path)]))
    assert [note for batch in batches for note in batch.notes] == [
        f"{tmp_path / 'pipe.sgf'}: a named pipe (FIFO), not a regular file: skipped"]
    assert [n for batch in batches for n in batch.note_files] == [-1]
    assert not [e for batch in batches for e in batch.errors]
    assert [name for batch in batches for name in batch.files.values()] == [
        str(tmp_path / "good.sgf")]
    # A batch holding nothing else still comes, for its note.
    only = tmp_path / "only"
    only.mkdir()
    os.mkfifo(only / "pipe.sgf")
    [batch] = read_positions([str(only)])
    assert (len(batch), batch.files, batch.notes) == (
        0, {}, [f"{only / 'pipe.sgf'}: a named pipe (FIFO), not a regular file: skipped"])
    # Named on its own, a pipe is an error, unopened (issue 31): "-" reads standard input.
    pipe = str(tmp_path / "pipe.sgf")
    read = list(read_positions([pipe]))
    assert [str(e) for batch in read for e in batch.errors] == [
        f"{pipe}: a named pipe (FIFO), not a regular file: not read (give - to read "
        "standard input)"]
    assert not [name for batch in read for name in batch.files.values()]
