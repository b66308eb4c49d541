"""``gohash serve`` follows its index (gohash.explorer.indexes): after ``gohash index
build --overwrite`` replaced the file under a running server, every endpoint
answers from the new index alone (games listed, games read in the worker
processes, downloads, patterns, info); after a build added games, ``/api/info``
and the default board size count them; a request under way when the file is
replaced finishes on the index it started with, which is closed after it."""

from __future__ import annotations

import os
import queue
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from gohash.cli import main
from gohash.errors import IndexFileError
from gohash.explorer.app import create_app
from gohash.explorer.indexes import Served
from gohash.index.index import Index
from gohash.pattern.search import PatternResult
from tests.support.serve_fixtures import DATA

OLD = ["game-9x9.sgf"]
NEW = ["game-13x13.sgf", "handicap-4-19x19.sgf", "game-19x19-no-sz.sgf"]
EVERYTHING = {size: "\n".join(["*" * size] * size) for size in (9, 13)}
"""Patterns that every game of their size holds at its first position."""


@pytest.fixture
def records(tmp_path: Path) -> Path:
    folder = tmp_path / "records"
    folder.mkdir()
    for name in OLD + NEW:
        shutil.copy(DATA / name, folder / name)
    return folder


def build(db: Path, paths: list[Path], *options: str) -> None:
    assert main(["index", "build", str(db), *map(str, paths), *options]) == 0


@pytest.fixture
def client(records: Path, tmp_path: Path) -> Iterator[TestClient]:
    """The explorer over an index of the OLD records."""
    db = tmp_path / "index.db"
    build(db, [records / name for name in OLD])
    with TestClient(create_app(db), base_url="http://localhost",
                    raise_server_exceptions=False) as client:
        yield client


def get(client: TestClient, path: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def games_of(db: Path) -> dict[int, tuple[int, str, str]]:
    """Each game's size and players, by id, as the index holds them."""
    with Index(db, read_only=True) as index:
        return {game_id: (record.size, record.black, record.white)
                for game_id, record in index.records().items()}


def answered(client: TestClient) -> dict[int, tuple[int, str, str]]:
    """Each game's size and players, by id, as the explorer answers them: the
    games of every size listed (hits of a pattern that every game holds), each
    read again by its id, and those of the empty board as a position's games."""
    found = {}
    for size in get(client, "/api/info")["sizes"]:
        everything = "\n".join(["*" * int(size)] * int(size))
        for match in get(client, "/api/pattern", diagram=everything, limit=200)["matches"]:
            game = get(client, f"/api/game/{match['game_id']}", count=1)
            assert (match["black"], match["white"]) == (game["black"], game["white"])
            found[match["game_id"]] = (game["size"], game["black"], game["white"])
        for match in get(client, "/api/games", size=size, turn=0, limit=200)["matches"]:
            assert found[match["game_id"]] == (int(size), match["black"], match["white"])
    return found


def test_a_replaced_index_is_answered_from_alone(client: TestClient, records: Path,
                                                 tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    before = get(client, "/api/info")
    assert (before["games"], before["default_size"]) == (1, 9)
    assert answered(client) == games_of(db)
    assert get(client, "/api/pattern", diagram=EVERYTHING[9])["total"] == 1
    inode = db.stat().st_ino
    build(db, [records / name for name in NEW], "--overwrite")
    assert db.stat().st_ino != inode
    after = get(client, "/api/info")
    assert (after["games"], after["sizes"], after["default_size"]) == (3, {"13": 1, "19": 2}, 19)
    new = games_of(db)
    assert answered(client) == new and len(new) == 3
    # Game 1 is the new index's, also read in the worker process that read the old one.
    assert get(client, "/api/game/1", count=1)["size"] == new[1][0]
    sgf = client.get("/api/game/1/sgf")
    assert sgf.status_code == 200 and f"SZ[{new[1][0]}]".encode() in sgf.content
    assert get(client, "/api/pattern", diagram=EVERYTHING[9])["total"] == 0
    assert get(client, "/api/pattern", diagram=EVERYTHING[13])["total"] == 1


def test_a_missing_index_is_answered_from_the_one_open_until_another_is_there(
    client: TestClient, records: Path, tmp_path: Path
) -> None:
    db = tmp_path / "index.db"
    os.remove(db)
    assert get(client, "/api/info")["games"] == 1
    assert get(client, "/api/games", size=9)["total"] == 1
    db.write_bytes(b"")  # a build creating the index: not one yet
    assert get(client, "/api/info")["games"] == 1
    db.unlink()
    build(db, [records / name for name in NEW])
    assert get(client, "/api/info")["games"] == 3
    assert answered(client) == games_of(db)


def test_games_added_are_counted_and_change_the_default_size(
    client: TestClient, records: Path, tmp_path: Path
) -> None:
    db = tmp_path / "index.db"
    inode = db.stat().st_ino
    build(db, [records / NEW[0]])
    info = get(client, "/api/info")
    assert (info["games"], info["sizes"], info["default_size"]) == (2, {"9": 1, "13": 1}, 13)
    build(db, [records / name for name in NEW[1:]])
    assert db.stat().st_ino == inode  # the same file, grown
    info = get(client, "/api/info")
    assert (info["games"], info["sizes"], info["default_size"]) == (
        4, {"9": 1, "13": 1, "19": 2}, 19)
    assert info["positions"] == Index(db, read_only=True).info().positions
    # A position without a size is on the board of the new default size.
    assert get(client, "/api/position")["size"] == 19
    assert answered(client) == games_of(db)


def test_a_request_under_way_finishes_on_its_index_which_is_closed_after_it(
    records: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "index.db"
    build(db, [records / name for name in OLD])
    started: queue.Queue[Index] = queue.Queue()
    release = threading.Event()
    real = Index.pattern

    def pattern(index: Index, diagram: str, **options: Any) -> PatternResult:
        started.put(index)
        assert release.wait(60)
        return real(index, diagram, **options)

    monkeypatch.setattr(Index, "pattern", pattern)
    app = create_app(db)
    served: Served = app.state.served
    old = served.current
    with TestClient(app, base_url="http://localhost",
                    raise_server_exceptions=False) as client:
        answers: queue.Queue[Any] = queue.Queue()
        search = threading.Thread(target=lambda: answers.put(
            get(client, "/api/pattern", diagram=EVERYTHING[9])))
        search.start()
        started.get(timeout=60)
        build(db, [records / name for name in NEW], "--overwrite")
        assert get(client, "/api/info")["games"] == 3
        assert served.current is not old and old.retired and old.users == 1
        release.set()
        search.join(60)
        assert answers.get(timeout=60)["total"] == 1  # the old index's 9x9 game
        assert old.users == 0
        with pytest.raises(IndexFileError, match="closed"):
            old.watch.version()
        assert get(client, "/api/pattern", diagram=EVERYTHING[9])["total"] == 0
