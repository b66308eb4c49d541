"""Damaged and read-only indexes: ``gohash index check``, clear errors (exit 2, never a
traceback or a silent wrong answer) for tampered values, keys, frames and meta, and
read commands on indexes they cannot write, leaving no files behind."""

from __future__ import annotations

import io
import os
import random
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from starlette.testclient import TestClient

import gohash.index.build
import gohash.index.store
from gohash.cli import main
from gohash.errors import DamagedIndexError, PatternError, StoredGameError
from gohash.explorer.app import create_app
from gohash.index.find import position_from_sgf
from gohash.index.games import replay_at
from gohash.index.index import Index
from gohash.index.records import FileFrames
from gohash.index.store import read_only_uri
from gohash.pattern.store import flatten
from tests.support.env import missing
from tests.support.indexes import (
    consistency_problems,
    random_game,
    rewrite_postings,
    run,
    sgf,
    table_rows,
    tamper,
    write_game,
)
from tests.support.net import free_port
from tests.support.serve_fixtures import first_answer


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path]:
    """A 9x9 game of 40 moves and an index of it (one of a fresh copy per test)."""
    game = write_game(tmp_path, "a.sgf", 9, random_game(random.Random(3), 9, 40))
    db = tmp_path / "index.db"
    assert main(["index", "build", str(db), str(game)]) == 0
    return game, db


def test_a_fresh_index_checks_clean(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, db = built
    with Index(db) as index:
        assert index.check() == []
    assert run(capsys, "check", str(db)) == (0, "", f"gohash index check: index {db}: 0 faults\n")


# Node 20 of the 9x9 game without setup (beyond the nodes an opening checks): node 0
# takes 4 bytes (its setup word and a count of no edits), every later node 2.
NODE_20 = "CAST(substr(record, 1, 42) || x'FFFF' || substr(record, 45) AS BLOB)"


def test_a_stored_game_that_does_not_replay_is_an_error_of_find_and_check(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game, db = built
    tamper(db, f"UPDATE games SET record = {NODE_20}")
    query = position_from_sgf(str(game), 20)
    with Index(db) as index, pytest.raises(DamagedIndexError, match="unknown tag 15"):
        index.find(query)
    with Index(db) as index, pytest.raises(DamagedIndexError, match="unknown tag 15"):
        index.continuations(query)
    code, out, err = run(capsys, "find", str(db), "--sgf", str(game), "--move", "20")
    assert code == 2 and out == ""
    assert "damaged: game 1: a stored game does not replay" in err and "Traceback" not in err
    code, out, err = run(capsys, "check", str(db))
    assert (code, out) == (2, "")
    assert "gohash index check: error: postings: game 1: a stored game does not replay" in err
    assert err.endswith("1 fault\n")


def test_dupes_refuses_a_stored_game_that_does_not_replay(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game, db = built
    other = write_game(db.parent, "b.sgf", 9, random_game(random.Random(2), 9, 40))
    with Index(db) as index:
        index.build([str(game), str(other)])
    # The same game again: a dupe, whose positions dupes compares.
    (db.parent / "c.sgf").write_bytes(game.read_bytes())
    with Index(db) as index:
        index.build([str(db.parent / "c.sgf")])
    tamper(db, f"UPDATE games SET record = {NODE_20} WHERE id = 1")
    code, _, err = run(capsys, "dupes", str(db))
    assert code == 2
    assert "damaged: game 1: a stored game does not replay" in err


def test_a_wrong_scheme_in_meta_is_refused_naming_the_keys_scheme(built: tuple[Path, Path]) -> None:
    _, db = built
    tamper(db, "UPDATE meta SET value = 'regular64' WHERE name = 'scheme'")
    with pytest.raises(DamagedIndexError, match="names key scheme 'regular64', but the keys "
                                                "were made with 'regular128'"):
        Index(db)


def test_a_posting_key_that_is_not_its_positions_is_a_fault(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game, db = built
    query = position_from_sgf(str(game), 30)
    with Index(db) as index:
        assert index.find(query).total == 1
    rewrite_postings(db, lambda rows: np.where(
        (rows[:, 2] == 30)[:, None], rows + np.array([1, 0, 0]), rows))
    with Index(db) as index:
        assert index.find(query).total == 0  # the key is a filter: the posting is not found
    code, _, err = run(capsys, "check", str(db))
    assert code == 2
    assert "error: postings: game 1 node 30: posting key " in err


def test_check_finds_keys_bitmaps_references_and_schema_faults(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, db = built
    rewrite_postings(db, lambda rows: np.where(
        (rows[:, 2] == 20)[:, None], rows + np.array([1, 0, 0]),
        np.where((rows[:, 2] == 17)[:, None],
                 np.array([0, 99999, 0]) + rows * np.array([1, 0, 1]), rows)))
    tamper(
        db,
        "UPDATE games SET ever_black = zeroblob(11)",
        "UPDATE files SET games = 3",
        "CREATE TABLE extra (a)",
    )
    with Index(db) as index:
        faults = index.check()
    text = "\n".join(faults)
    for expected in [
        "postings: game 1: postings for nodes ",
        "postings: game 1: ever_black is not the points its positions ever hold",
        "files: file 1: games 3 is not the number of its rows in games",
        "schema: extra: not part of a gohash index",
    ]:
        assert expected in text
    assert run(capsys, "check", str(db))[0] == 2
    tamper(db, "UPDATE games SET size = 40")
    with Index(db) as index:
        assert "games: game 1: size 40" in "\n".join(index.check())


# -- read-only indexes ---------------------------------------------------------------------


def test_a_build_leaves_the_index_out_of_wal_mode_and_readers_leave_no_files(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game, db = built
    assert db.read_bytes()[18:20] == b"\x01\x01"  # rollback journal, not WAL
    before = sorted(os.listdir(db.parent))
    for argv in (["info", str(db)], ["dupes", str(db)], ["check", str(db)],
                 ["find", str(db), "--sgf", str(game), "--move", "3"]):
        assert run(capsys, *argv)[0] == 0
    assert sorted(os.listdir(db.parent)) == before


def test_a_reader_keeps_a_build_in_wal_mode_until_it_closes(built: tuple[Path, Path]) -> None:
    game, db = built
    other = write_game(db.parent, "b.sgf", 9, random_game(random.Random(4), 9, 20))
    tamper(db, "PRAGMA journal_mode = WAL")  # as during a build
    with Index(db, read_only=True) as reader:
        assert reader.info().files == 1  # reading in WAL mode, as a server does
        with Index(db) as writer:
            writer.build([str(other)])
        assert db.read_bytes()[18:20] == b"\x02\x02"  # the reader is there: still WAL
        assert reader.info().files == 2
    with Index(db) as writer:
        writer.build([str(game)])
    assert db.read_bytes()[18:20] == b"\x01\x01"
    assert sorted(os.listdir(db.parent)) == ["a.sgf", "b.sgf", "index.db", "index.db-postings"]


def test_read_only_uri_is_immutable_only_where_wal_files_cannot_be_made(
    built: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, db = built
    writable = True
    monkeypatch.setattr(os, "access", lambda path, mode: writable)
    assert read_only_uri(str(db)).endswith("?mode=ro")  # rollback journal: never needed
    tamper(db, "PRAGMA journal_mode = WAL")
    assert read_only_uri(str(db)).endswith("?mode=ro")
    writable = False
    assert read_only_uri(str(db)).endswith("?mode=ro&immutable=1")
    (db.parent / (db.name + "-wal")).write_bytes(b"")  # a writer may be there
    assert read_only_uri(str(db)).endswith("?mode=ro")


@pytest.fixture
def unwritable(built: tuple[Path, Path]) -> Iterator[tuple[Path, Path]]:
    """The game and its index in a folder of their own, read-only to everyone
    (mode 555, files 444): only a process with root's capabilities may write it."""
    game, db = built
    folder = Path(tempfile.mkdtemp(prefix="gohash-ro-"))
    try:
        shutil.copy(game, folder / game.name)
        shutil.copy(db, folder / db.name)
        shutil.copy(f"{db}-postings", folder / f"{db.name}-postings")
        for path in (folder / game.name, folder / db.name, folder / f"{db.name}-postings"):
            path.chmod(0o444)
        folder.chmod(0o555)
        yield folder / game.name, folder / db.name
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def unprivileged(*argv: str) -> subprocess.CompletedProcess[str]:
    """``gohash ARGV`` with every capability dropped, so the file modes bind it as
    they bind any other user; it stays the same user, so it can still reach the
    interpreter and the checkout wherever they are (another uid could not, from a
    checkout in a private folder such as ``mktemp -d``'s)."""
    code = "import sys; from gohash.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        ["setpriv", "--bounding-set=-all", "--inh-caps=-all",
         sys.executable, "-c", code, *argv],
        capture_output=True, text=True, timeout=60, cwd="/",
    )


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="runs the commands without root's capabilities: needs root and setpriv",
)
@pytest.mark.parametrize("wal", [False, True])
def test_another_user_reads_an_index_in_a_folder_they_cannot_write(
    unwritable: tuple[Path, Path], wal: bool
) -> None:
    game, db = unwritable
    if wal:  # as a build that could not leave WAL mode leaves it
        db.chmod(0o644)
        tamper(db, "PRAGMA journal_mode = WAL")
        db.chmod(0o444)
        assert db.read_bytes()[18:20] == b"\x02\x02"
    before = sorted(os.listdir(db.parent))
    probe = unprivileged("index", "build", str(db), str(game))
    assert probe.returncode == 2, "the test needs a user who cannot write the index"
    for argv in (["info", str(db)], ["dupes", str(db)], ["check", str(db)],
                 ["find", str(db), "--sgf", str(game), "--move", "3"]):
        result = unprivileged("index", *argv)
        assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(db.parent)) == before
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o555


GOHASH = "import sys; from gohash.cli import main; sys.exit(main(sys.argv[1:]))"


def in_read_only_mount(source: Path, target: Path, *argv: str) -> list[str]:
    """A command that runs ``argv`` with ``source`` bind-mounted read-only on
    ``target``, in a mount namespace of its own (the mount goes with it)."""
    mount = (f"mount --bind {source} {target} && mount -o remount,ro,bind {target} "
             f"&& touch {target}/probe 2>/dev/null && exit 3; exec \"$@\"")
    return ["unshare", "-m", "sh", "-c", mount, "sh", *argv]


@pytest.fixture
def read_only_mount(
    built: tuple[Path, Path], tmp_path: Path
) -> tuple[Path, Path, Path]:
    """The folder of the game and its index, a mount point, and whether a
    read-only bind mount of one on the other can be made here (else a skip, a
    failure under ``CI=true``)."""
    game, db = built
    target = tmp_path / "mounted"
    target.mkdir()
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("mount") is None:
        missing("mounts a folder read-only: needs root, unshare and mount (util-linux)")
    probe = subprocess.run(in_read_only_mount(db.parent, target, "true"),
                           capture_output=True, text=True, timeout=60)
    if probe.returncode == 3:
        pytest.fail("a read-only bind mount could still be written")
    if probe.returncode != 0:
        missing(f"cannot bind-mount a folder read-only here: {probe.stderr.strip()!r}")
    return db.parent, target, game


@pytest.mark.parametrize("wal", [False, True])
def test_every_read_command_and_serve_read_an_index_on_a_read_only_mount(
    read_only_mount: tuple[Path, Path, Path], wal: bool
) -> None:
    source, target, game = read_only_mount
    if wal:  # as a build that could not leave WAL mode leaves it
        tamper(source / "index.db", "PRAGMA journal_mode = WAL")
        assert (source / "index.db").read_bytes()[18:20] == b"\x02\x02"
    before = sorted(os.listdir(source))
    db, mounted_game = str(target / "index.db"), str(target / game.name)
    for argv in (["info", db], ["dupes", db], ["check", db],
                 ["find", db, "--sgf", mounted_game, "--move", "3"]):
        result = subprocess.run(
            in_read_only_mount(source, target, sys.executable, "-c", GOHASH, "index", *argv),
            capture_output=True, text=True, timeout=60, cwd="/",
        )
        assert result.returncode == 0, (argv, result.stderr)
    port = free_port()
    server = subprocess.Popen(
        in_read_only_mount(source, target, sys.executable, "-c", GOHASH,
                           "serve", db, "--port", str(port)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/",
    )
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/info",
                                     headers={"Host": "localhost"})
    try:
        assert b'"games":1' in first_answer(server, request)
    finally:
        server.terminate()
        server.communicate(timeout=30)
    assert sorted(os.listdir(source)) == before
    assert os.listdir(target) == []  # the mount went with its namespace


# -- memory: long files in parts -----------------------------------------------------------


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_longer_than_a_batch_is_written_in_parts_as_if_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    rng = random.Random(5)
    folder = tmp_path / "games"
    folder.mkdir()
    games = [random_game(rng, 9, rng.randrange(0, 30)) for _ in range(12)]
    (folder / "long.sgf").write_text("".join(sgf(9, moves) for moves in games))
    write_game(folder, "short.sgf", 9, games[3])
    (folder / "after.sgf").write_text(sgf(9, games[0]) + sgf(9, games[5]))
    whole = tmp_path / "whole.db"
    with Index(whole, create=True) as index:
        expected = index.build([str(folder)])
    parts: list[tuple[str, int, bool]] = []
    real = gohash.index.store._IndexFile._write

    def recording(item: FileFrames, *args: Any) -> None:
        parts.append((Path(item.path).name, item.part, item.more))
        real(item, *args)

    # Workers are forked: they replay in batches of 40 positions too, and
    # pass each part on through their spool file as it comes.
    monkeypatch.setattr(gohash.index.build, "BATCH_POSITIONS", 40)
    monkeypatch.setattr(gohash.index.store._IndexFile, "_write", staticmethod(recording))
    in_parts = tmp_path / "parts.db"
    with Index(in_parts, create=True) as index:
        summary = index.build([str(folder)], files_per_commit=1, jobs=jobs)
        assert index.check() == []
    assert max(part for name, part, _ in parts if name == "long.sgf") >= 3
    assert str(summary) == str(expected)
    assert table_rows(in_parts) == table_rows(whole)
    # Replaced while in parts: as a fresh build of the new content.
    (folder / "long.sgf").write_text("".join(sgf(9, moves) for moves in games[::-1]))
    with Index(in_parts) as index:
        assert index.build([str(folder)]).files_replaced == 1
        assert index.check() == []
    assert consistency_problems(in_parts) == []


def test_the_web_app_answers_409_for_a_damaged_index(built: tuple[Path, Path]) -> None:
    game, db = built
    tamper(db, f"UPDATE games SET record = {NODE_20}")
    client = TestClient(create_app(db), raise_server_exceptions=False,
                        base_url="http://localhost")
    moves = re.findall(r";[BW]\[([a-s]{2})\]", game.read_text())[:20]
    response = client.get("/api/position", params={"size": 9, "moves": ",".join(moves)})
    assert response.status_code == 409, response.text
    assert "damaged: game 1: a stored game does not replay" in response.json()["error"]


def test_a_1x1_pattern_is_a_pattern_error_exit_2_and_a_400(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, db = built
    with Index(db) as index, pytest.raises(PatternError, match="a 1x1 pattern: patterns are "
                                                               "searched on boards of 2x2"):
        index.pattern("X")
    monkeypatch.setattr("sys.stdin", io.StringIO("X"))
    code, out, err = run(capsys, "pattern", str(db), "-")
    assert (code, out) == (2, "")
    assert err == ("gohash index pattern: error: a 1x1 pattern: patterns are searched on boards "
                   "of 2x2 to 26x26\n")
    client = TestClient(create_app(db), raise_server_exceptions=False,
                        base_url="http://localhost")
    response = client.get("/api/pattern", params={"diagram": "X"})
    assert response.status_code == 400
    assert response.json() == {"error": "a 1x1 pattern: patterns are searched on boards of 2x2 "
                                        "to 26x26"}


def test_a_stored_game_that_does_not_replay_is_a_damaged_index_naming_it_in_pattern_search(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, db = built
    other = write_game(db.parent, "b.sgf", 9, random_game(random.Random(2), 9, 40))
    with Index(db) as index:
        index.build([str(other)])
    # Values of the right type and range: only the replay finds the fault.
    tamper(db, f"UPDATE games SET record = {NODE_20} WHERE id = 2")
    for compiled in (True, False):
        with Index(db) as index, pytest.raises(
                DamagedIndexError, match="game 2: a stored game does not replay"):
            index.pattern("\n".join(["*" * 9] * 9), compiled=compiled)
    pattern = db.parent / "pattern.txt"
    pattern.write_text("\n".join(["*" * 9] * 9))
    code, out, err = run(capsys, "pattern", str(db), str(pattern))
    assert (code, out) == (2, "")
    assert "game 2: a stored game does not replay" in err and "Traceback" not in err


def test_the_kernels_name_a_stored_game_that_does_not_replay_by_its_place(
    built: tuple[Path, Path]
) -> None:
    """Typed values, never tuples: an empty stored game, one cut short."""
    _, db = built
    other = write_game(db.parent, "b.sgf", 9, random_game(random.Random(2), 9, 40))
    with Index(db) as index:
        index.build([str(other)])
    connection = sqlite3.connect(db)
    rows = connection.execute("SELECT positions, nodes, record FROM games ORDER BY id").fetchall()
    connection.close()
    for second, reason in ((b"", "it is empty"), (rows[1][2][:-6], "does not replay")):
        blobs = [rows[0][2], second]
        offsets = np.cumsum([0, *map(len, blobs)]).astype(np.int64)
        mains = np.array([row[0] for row in rows], dtype=np.int32)
        with pytest.raises(StoredGameError, match=reason) as caught:
            flatten(b"".join(blobs), offsets, mains, 9)
        assert caught.value.index == 1 and not caught.value.args[1:]
        for pure in (False, True):
            with pytest.raises(StoredGameError) as caught:
                replay_at(blobs, 9, [row[1] for row in rows], mains,
                          np.array([0, 1], dtype=np.int32),
                          np.array([3, rows[1][1] - 1], dtype=np.int32), pure=pure)
            assert caught.value.index == 1 and not caught.value.args[1:]
