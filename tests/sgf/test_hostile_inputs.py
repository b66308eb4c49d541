"""Hostile inputs, second round (issue 31), each made here and never committed:
duplicate archive member names, an output that is an input under another name
(a hard link), pipes, sockets and devices named anywhere, ``KO[]``, integers
beyond every option's range, two builds creating one index, a pack marker
naming its own folder, and a packed dataset's every column against the budget
(peak memory measured as the RSS of the command in a child process)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import sqlite3
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from gohash.errors import IndexCreationError, KoError, SgfBudgetError, SgfError, SgfLimitError
from gohash.go.board import Board
from gohash.index import store
from gohash.index.index import Index
from gohash.index.store import build_index
from gohash.sgf.inputs import MAX_INPUT_NOTES, PACK_MARKER, Budget, Source
from gohash.sgf.sources import find_inputs, read_input, source_again
from gohash.sgf.walk import BaseVisitor, walk_source
from tests.support.hostile import GAME, notes_bomb, packed, path_bomb, tar_of

COMMAND = Path(sys.executable).parent / "gohash"
OTHER = b"(;SZ[9];B[aa];W[bb];B[cc])"
"""A record of four positions, unlike :data:`GAME`."""


def run(*args: str | Path, cwd: Path, stdin: bytes = b"") -> tuple[int, str, str]:
    """``gohash ARGS``: exit code, stdout, stderr.  The timeout fails a test whose
    command waits on a pipe."""
    done = subprocess.run([str(COMMAND), *map(str, args)], capture_output=True, cwd=cwd,
                          input=stdin, timeout=60)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def sources(path: Path) -> list[object]:
    return [s for inp in find_inputs([str(path)]) for s in read_input(inp)]


# -- duplicate member names (item 7) ---------------------------------------------------------


def duplicate_zip(path: Path) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("x.sgf", GAME)
        archive.writestr("other.txt", b"not read")
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr("x.sgf", OTHER)
    path.write_bytes(buffer.getvalue())
    return path


def duplicate_tar(path: Path) -> Path:
    """A tar as ``tar rf`` leaves it: ``x.sgf``, then ``x.sgf`` appended."""
    path.write_bytes(tar_of([("x.sgf", GAME), ("other.txt", b"not read"), ("x.sgf", OTHER)]))
    return path


@pytest.mark.parametrize(("make", "name"), [(duplicate_zip, "dup.zip"),
                                            (duplicate_tar, "dup.tar")])
def test_duplicate_member_names_are_two_games(
    tmp_path: Path, make: Callable[[Path], Path], name: str
) -> None:
    """Once "2 files indexed (1 replaced) ... 2 games" and one game in the index: the
    second ``x.sgf`` is named by its entry's number in the archive (``#3``)."""
    archive = make(tmp_path / name)
    found = sources(archive)
    assert [(s.name, s.data) for s in found if isinstance(s, Source)] == [
        (f"{archive}:x.sgf", GAME), (f"{archive}:x.sgf#3", OTHER)]
    code, _, err = run("index", "build", "i.db", archive.name, cwd=tmp_path)
    assert code == 0, err
    assert err.splitlines()[0] == ("gohash index build: 2 files indexed (0 replaced), 0 "
                                   "unchanged; 2 games, 7 positions; 0 errors")
    with Index(tmp_path / "i.db") as index:
        assert index.counts()["games"] == 2
    # The stored name reads the same member again (the explorer's game view).
    second = source_again(f"{archive}:x.sgf#3", hashlib.sha256(OTHER).hexdigest(), [])
    assert second.data == OTHER
    # A build again finds both unchanged.
    code, _, err = run("index", "build", "i.db", archive.name, cwd=tmp_path)
    assert err.startswith("gohash index build: 0 files indexed (0 replaced), 2 unchanged")


# -- the output is an input (item 8) ---------------------------------------------------------


def test_a_hard_link_to_an_input_is_refused_as_the_output(tmp_path: Path) -> None:
    """Once ``ln in.sgf out.jsonl; canon in.sgf -o out.jsonl --overwrite`` emptied in.sgf."""
    (tmp_path / "in.sgf").write_bytes(GAME)
    os.link(tmp_path / "in.sgf", tmp_path / "out.jsonl")
    code, _, err = run("canon", "in.sgf", "-o", "out.jsonl", "--overwrite", cwd=tmp_path)
    assert code == 2
    assert err == ("gohash canon: error: out.jsonl: is also the input 'in.sgf'; give another "
                   "output\n")
    assert (tmp_path / "in.sgf").read_bytes() == GAME
    # Reached through a folder's name, the same file is still one file.
    (tmp_path / "games").mkdir()
    os.link(tmp_path / "in.sgf", tmp_path / "games" / "a.sgf")
    code, _, err = run("canon", "games/a.sgf", "-o", "in.sgf", "--overwrite", cwd=tmp_path)
    assert code == 2 and "is also the input 'games/a.sgf'" in err
    assert (tmp_path / "in.sgf").read_bytes() == GAME


# -- pipes, sockets, devices (item 9) ----------------------------------------------------------


def packed_with_a_pipe(folder: Path) -> None:
    """A packed dataset whose marker names a part that is a FIFO."""
    folder.mkdir()
    os.mkfifo(folder / "part-00000.parquet")
    (folder / PACK_MARKER).write_text(json.dumps(
        {"format": "gohash-pack", "version": 1, "parts": ["part-00000.parquet"]}))


PIPE = "a named pipe (FIFO)"


@pytest.mark.parametrize(("command", "error"), [
    (["canon", "pipe", "good.sgf"],
     f"pipe: {PIPE}, not a regular file: not read (give - to read standard input)"),
    (["canon", "--jobs", "2", "good.sgf", "pipe"], f"pipe: {PIPE}, not a regular file"),
    (["index", "build", "i.db", "good.sgf", "pipe"], f"pipe: {PIPE}, not a regular file"),
    (["superko", "pipe", "good.sgf"], f"pipe: {PIPE}, not a regular file"),
    (["canon", "pack", "good.sgf"],
     f"pack/part-00000.parquet: the packed part is {PIPE}, not a regular file: not read"),
    (["index", "build", "--jobs", "2", "i.db", "pack", "good.sgf"],
     f"pack/part-00000.parquet: the packed part is {PIPE}"),
    (["canon", "--format", "parquet", "-o", "out", "pack", "good.sgf"],
     f"pack/part-00000.parquet: the packed part is {PIPE}"),
    (["pack", "-o", "out", "pack", "good.sgf"], f"the packed part is {PIPE}"),
    (["index", "build", "pipe", "good.sgf"], f"pipe: {PIPE}, not an index file: not opened"),
    (["index", "build", "--overwrite", "pipe", "good.sgf"], f"pipe: {PIPE}, not an index file"),
    (["index", "info", "pipe"], f"pipe: {PIPE}, not an index file: not opened"),
    (["index", "check", "pipe"], f"pipe: {PIPE}, not an index file"),
    (["index", "find", "pipe", "--sgf", "good.sgf"], f"pipe: {PIPE}, not an index file"),
    (["index", "pattern", "pipe", "-"], f"pipe: {PIPE}, not an index file"),
    (["index", "pattern", "good.db", "pipe"],
     f"the diagram 'pipe' is {PIPE}, not a regular file: not read"),
    (["index", "find", "good.db", "--sgf", "pipe"], f"pipe: {PIPE}, not a regular file"),
    (["index", "upgrade", "pipe"], f"pipe: {PIPE}, not an index file"),
    (["serve", "pipe", "--port", "0"], f"pipe: {PIPE}, not an index file: not opened"),
    (["canon", "good.sgf", "-o", "pipe"],
     f"cannot write 'pipe': {PIPE} that no process reads"),
])
def test_a_pipe_named_anywhere_is_refused_unopened(
    tmp_path: Path, command: list[str], error: str
) -> None:
    """Once canon, index info, index build and serve waited for ever on a FIFO named
    as a packed part or the index: now every command says what it is and goes on
    with the other inputs (the run's timeout fails a test that waits)."""
    (tmp_path / "good.sgf").write_bytes(GAME)
    os.mkfifo(tmp_path / "pipe")
    packed_with_a_pipe(tmp_path / "pack")
    build_index(tmp_path / "good.db", [str(tmp_path / "good.sgf")])
    code, _, err = run(*command, cwd=tmp_path, stdin=b"X.\n..\n")
    assert code == 2, err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if ": error: " in line]
    assert error in line, err
    if command[0] in ("canon", "superko") and "-o" not in command:
        assert "1 game" in err.splitlines()[-1], err  # the good file is read


def test_sockets_and_devices_are_refused_as_inputs_and_indexes(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        server.listen()
        for path, what in [(tmp_path / "sock", "a socket"), (Path(os.devnull),
                                                           "a character device")]:
            (error,) = sources(path)
            assert isinstance(error, SgfError)
            assert str(error) == (f"{path}: {what}, not a regular file: not read (give - to "
                                  "read standard input)")
            code, _, err = run("index", "info", path, cwd=tmp_path)
            assert code == 2 and f"{what}, not an index file: not opened" in err
        code, _, err = run("canon", os.devnull, cwd=tmp_path)
        assert code == 2 and "a character device, not a regular file" in err


def test_records_still_go_to_devices_and_read_pipes(tmp_path: Path) -> None:
    """``-o /dev/null`` and ``-o /dev/stdout`` (a pipe that a process reads) are
    written as before."""
    (tmp_path / "good.sgf").write_bytes(GAME)
    code, out, err = run("canon", "good.sgf", "-o", os.devnull, cwd=tmp_path)
    assert (code, out) == (0, ""), err
    code, out, err = run("canon", "good.sgf", "-o", "/dev/stdout", cwd=tmp_path)
    assert code == 0 and len(out.splitlines()) == 3, err


# -- KO[] (item 11) -------------------------------------------------------------------------

# Black takes the ko at C8 (move 9) right after White took it (move 8): a retake
# the simple-ko rule forbids, which KO[] tells the reader to play.
KO_RECORD = b"(;GM[1]SZ[9];B[ba];W[ca];B[ab];W[db];B[bc];W[cc];B[cb];W[bb];B[cb]%s;W[ee])"


@pytest.mark.parametrize("pure", ["0", "1"])
def test_a_ko_retake_marked_ko_is_played_with_a_note(tmp_path: Path, pure: str) -> None:
    path = tmp_path / "ko.sgf"
    path.write_bytes(KO_RECORD % b"KO[]")
    env = {**os.environ, "GOHASH_PURE": pure}
    done = subprocess.run([str(COMMAND), "canon", "ko.sgf"], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "gohash canon: note: ko.sgf, game 0: move 9 B C8 retakes a ko: played, as its KO[] "
        "says",
        "gohash canon: 1 file, 1 game, 11 positions, 0 errors"]
    moves = [json.loads(line)["move"] for line in done.stdout.splitlines()]
    assert moves[-2:] == ["cb", "ee"]
    # Without KO[] the retake is an error, and the game stops before it.
    path.write_bytes(KO_RECORD % b"")
    done = subprocess.run([str(COMMAND), "canon", "ko.sgf"], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        "gohash canon: error: ko.sgf, game 0, move 9: black at 'C8' retakes a ko")


def test_ko_on_the_board_against_replaying_without_the_rule() -> None:
    """The forced retake gives the position a board without the simple-ko rule gives."""
    moves = [(8, 1), (8, 2), (7, 0), (7, 3), (6, 1), (6, 2), (7, 2), (7, 1)]
    boards = [Board(9), Board(9, simple_ko=False)]
    for board in boards:
        for number, point in enumerate(moves):
            board.play(point, "bw"[number % 2])
    with pytest.raises(KoError):
        boards[0].play((7, 2), "b")
    assert boards[0].play((7, 2), "b", force_ko=True) == [(7, 1)]
    assert boards[1].play((7, 2), "b") == [(7, 1)]
    assert boards[0].position_key() == boards[1].position_key()
    summary = walk_source(Source("ko.sgf", KO_RECORD % b"KO[]"), BaseVisitor())
    assert summary.positions == 11 and not summary.errors
    assert summary.notes == ["ko.sgf, game 0: move 9 B C8 retakes a ko: played, as its KO[] "
                             "says"]


# -- integers out of range (item 11) --------------------------------------------------------


@pytest.mark.parametrize(("command", "error"), [
    (["index", "pattern", "good.db", "--max-move", "2147483648", "-"],
     "argument --max-move: must be at most 2,147,483,647, not 2147483648"),
    (["canon", "--jobs", "99999999999", "good.sgf"],
     "argument --jobs: must be at most 256, not 99999999999"),
    (["index", "build", "--jobs", "257", "i.db", "good.sgf"],
     "argument --jobs: must be at most 256, not 257"),
    (["index", "dupes", "good.db", "--min-positions", "99999999999999999999"],
     "argument --min-positions: must be at most 2,147,483,647"),
    (["index", "find", "good.db", "--sgf", "good.sgf", "--limit", "2147483648"],
     "argument --limit: must be at most 2,147,483,647"),
    (["index", "find", "good.db", "--sgf", "good.sgf", "--offset", "2147483648"],
     "argument --offset: must be at most 2,147,483,647"),
    (["index", "build", "--files-per-commit", "2147483648", "i.db", "good.sgf"],
     "argument --files-per-commit: must be at most 2,147,483,647"),
    (["serve", "good.db", "--port", "65536"], "argument --port: must be at most 65,535"),
    (["pack", "-o", "out", "--part-size", "1025G", "good.sgf"],
     "argument --part-size: must be at most 1T"),
    (["canon", "--format", "parquet", "-o", "out", "--partition-size", "99999999999G",
      "good.sgf"], "argument --partition-size: must be at most 1T"),
])
def test_integers_beyond_an_options_range_are_argument_errors(
    tmp_path: Path, command: list[str], error: str
) -> None:
    """Once ``OverflowError`` tracebacks (exit 1) from the kernel, SQLite or the pool."""
    (tmp_path / "good.sgf").write_bytes(GAME)
    build_index(tmp_path / "good.db", [str(tmp_path / "good.sgf")])
    code, out, err = run(*command, cwd=tmp_path, stdin=b"X.\n..\n")
    assert (code, out) == (2, ""), err
    assert error in err.splitlines()[-1], err


# -- two builds creating one index (item 11) --------------------------------------------------


def test_a_build_that_loses_the_creation_race_says_so(tmp_path: Path) -> None:
    """A rival process holds the write lock on the new, still empty index, as a build
    does while it writes the schema: the other build stops at once (once: "not a
    gohash index"), and builds once the rival is done."""
    (tmp_path / "good.sgf").write_bytes(GAME)
    db = tmp_path / "new.db"
    db.touch()
    rival = sqlite3.connect(db, isolation_level=None)
    try:
        rival.execute("BEGIN IMMEDIATE")
        rival.execute("CREATE TABLE t (x)")
        code, _, err = run("index", "build", "new.db", "good.sgf", cwd=tmp_path)
        assert code == 2
        assert err == ("gohash index build: error: new.db: another process is creating this "
                       "index; run this again once it is done\n")
        with pytest.raises(IndexCreationError, match="another process is creating"):
            Index(db, create=True)
        assert db.stat().st_size == 0  # nothing of the rival's is written yet
    finally:
        rival.execute("ROLLBACK")
        rival.close()
    code, _, err = run("index", "build", "new.db", "good.sgf", cwd=tmp_path)
    assert code == 0 and "1 game, 3 positions" in err, err


def test_a_build_that_finds_the_index_created_meanwhile_extends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file was empty when looked at, and another build created the index before
    this one took the lock: this one opens it as the index it now is."""
    (tmp_path / "a.sgf").write_bytes(GAME)
    (tmp_path / "b.sgf").write_bytes(OTHER)
    db = tmp_path / "new.db"
    build_index(db, [str(tmp_path / "a.sgf")])
    monkeypatch.setattr(store, "_check_sqlite_file", lambda path: False)
    built = build_index(db, [str(tmp_path / "b.sgf")])
    assert built.counts is not None and built.counts["games"] == 2


# -- a pack marker naming its own folder (item 11) --------------------------------------------


@pytest.mark.parametrize("part", [".", "..", ""])
def test_a_pack_marker_listing_its_folder_is_an_error(tmp_path: Path, part: str) -> None:
    """Once a marker listing "." read nothing and exited 0."""
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / PACK_MARKER).write_text(json.dumps(
        {"format": "gohash-pack", "version": 1, "parts": [part]}))
    (error,) = sources(folder)
    assert str(error) == f"{folder}: {PACK_MARKER} lists no valid parts"
    code, _, err = run("canon", "pack", cwd=tmp_path)
    assert code == 2 and f"error: pack: {PACK_MARKER} lists no valid parts" in err


# -- every column of a packed dataset against the budget (item 3) -----------------------------

MIB = 1024 * 1024
RSS_LIMIT_KIB = 400 * 1000
# Runs a command; prints its exit code, its peak RSS (KiB) and its standard error.
MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                      timeout=600)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps([done.returncode, peak, done.stderr.decode("utf-8", "replace")]))
"""


def measured(*args: str | Path, cwd: Path) -> tuple[int, int, list[str]]:
    """``gohash ARGS``: exit code, peak RSS in KiB, stderr lines."""
    report = subprocess.run([sys.executable, "-c", MEASURE, str(COMMAND), *map(str, args)],
                            capture_output=True, text=True, check=True, cwd=cwd,
                            timeout=900).stdout
    code, peak, stderr = json.loads(report)
    return code, peak, stderr.splitlines()


def test_notes_and_paths_count_against_the_budget(tmp_path: Path) -> None:
    """A record's notes and path are bytes its part expands to, a dictionary's value
    counted as often as records name it: records of 1,000 notes of 23 characters
    (27 KB each once read: offsets too) end a budget of 200 KB after 7; paths of
    100 KB, one of 1 MiB after 10."""
    folder = packed(tmp_path / "notes", notes_bomb(20, 1000), store_schema=False)
    found = sources_within(folder, Budget(200_000, 60))
    assert [type(s) for s in found] == [Source] * 7 + [SgfBudgetError]
    assert len(sources_within(folder, Budget(10 * MIB, 60))) == 20
    folder = packed(tmp_path / "paths", path_bomb(20, 100_000), store_schema=False)
    found = sources_within(folder, Budget(MIB, 60))
    assert [type(s) for s in found] == [SgfLimitError] * 10 + [SgfBudgetError]
    assert str(found[0]) == (f"{folder / 'part-00000.parquet'}: row group 0: a packed "
                             "record's path is longer than the limit of 16,384 characters")


def sources_within(folder: Path, budget: Budget) -> list[object]:
    return [s for inp in find_inputs([str(folder)]) for s in read_input(inp, budget=budget)]


def test_notes_are_capped_per_input_and_shown_escaped(tmp_path: Path) -> None:
    folder = packed(tmp_path / "notes", notes_bomb(3, MAX_INPUT_NOTES // 2), store_schema=False)
    found = sources(folder)
    assert [len(s.notes) for s in found if isinstance(s, Source)] == [
        MAX_INPUT_NOTES // 2, MAX_INPUT_NOTES // 2, 1]
    escaped = "note \\x1b[2J\\x1b]0;owned\\x07 end"
    assert found[0].notes[0] == escaped  # type: ignore[attr-defined]
    assert found[2].notes == (  # type: ignore[attr-defined]
        f"more than {MAX_INPUT_NOTES:,} notes in the packed part "
        f"{folder / 'part-00000.parquet'}: the rest are not kept",)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_notes_bomb_beside_a_good_file_through_the_build(tmp_path: Path, jobs: str) -> None:
    """A part of 2 KB whose 100 records carry 200,000 notes each (once 3.1 GB and a
    MemoryError, the good file lost, and a million lines printed raw): the good
    file is indexed, the notes printed are the cap and one more, escaped, and the
    part ends at its budget."""
    (tmp_path / "good.sgf").write_bytes(GAME)
    packed(tmp_path / "notes", notes_bomb(100, 200_000), store_schema=False)
    code, peak, err = measured("canon", "--verbose", "--jobs", jobs, "good.sgf", "notes",
                               cwd=tmp_path)
    assert code == 2
    assert peak < RSS_LIMIT_KIB, f"{peak} KiB"
    notes = [line for line in err if ": note: " in line]
    assert len(notes) == MAX_INPUT_NOTES + 1
    assert not [line for line in err if "\x1b" in line]
    (error,) = [line for line in err if ": error: " in line]
    assert error.startswith("gohash canon: error: notes/part-00000.parquet: the input "
                            "expands to more than its budget of 268,435,456 bytes")
    code, peak, err = measured("index", "build", "--jobs", jobs, "i.db", "good.sgf", "notes",
                               cwd=tmp_path)
    assert code == 2 and peak < RSS_LIMIT_KIB, (code, peak)
    with Index(tmp_path / "i.db") as index:
        assert "good.sgf" in {p for (p,) in index._db.execute("SELECT path FROM files")}


def test_a_path_bomb_beside_a_good_file_through_the_build(tmp_path: Path) -> None:
    """A part of 2 KB whose 100 records are named by one path of 20 MiB (once 3.1 GB
    and a MemoryError): each is a limit error, and the good file is indexed."""
    (tmp_path / "good.sgf").write_bytes(GAME)
    packed(tmp_path / "paths", path_bomb(100, 20 * MIB), store_schema=False)
    code, peak, err = measured("index", "build", "--jobs", "2", "i.db", "good.sgf", "paths",
                               cwd=tmp_path)
    assert code == 2
    assert peak < RSS_LIMIT_KIB, f"{peak} KiB"
    assert err[-1] == ("gohash index build: index i.db: 1 file, 1 game, 3 positions, 3 "
                       "distinct up to symmetry")
    assert "a packed record's path is longer than the limit of 16,384 characters" in err[0]
