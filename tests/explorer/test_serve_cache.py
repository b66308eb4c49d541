"""The games ``gohash serve``'s workers keep replayed: kept until their file
changes, within their bound in bytes, the least recently used dropped first."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
from pathlib import Path

import pytest

from gohash.explorer.games import _game_bytes, _GameCache
from gohash.index.index import Index
from tests.support.serve_fixtures import DATA, build_index

GAMES = ("game-9x9.sgf", "game-13x13.sgf", "passes-9x9.sgf", "handicap-4-19x19.sgf")


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, Index, dict[str, int]]:
    """An index of copies of a few records, open read-only, and their games' ids by name."""
    for name in GAMES:
        shutil.copy(DATA / name, tmp_path / name)
    db = build_index(tmp_path / "index.db", [tmp_path / name for name in GAMES])
    index = Index(db, read_only=True)
    ids = {os.path.basename(record.file): game_id for game_id, record in index.records().items()}
    return tmp_path, index, ids


def test_a_game_is_kept_until_its_file_changes(indexed: tuple[Path, Index, dict[str, int]]) -> None:
    folder, index, ids = indexed
    cache = _GameCache(1 << 20, settled_ns=0)
    db, game_id = str(folder / "index.db"), ids["game-9x9.sgf"]
    first = cache.game(index, db, game_id)
    assert cache.game(index, db, game_id) is first
    assert cache.bytes == _game_bytes(first)
    # Other bytes of the same size, with the same modification time: still seen.
    record = folder / "game-9x9.sgf"
    original, stat = record.read_bytes(), record.stat()
    record.write_bytes(original.replace(b"]", b"}", 1))
    os.utime(record, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    changed = cache.game(index, db, game_id)  # read again, from the index's stored game
    assert changed is not first
    record.write_bytes(original)
    again = cache.game(index, db, game_id)
    assert again is not first
    assert [p.move_number for p in again.positions] == [p.move_number for p in first.positions]


def test_a_game_read_just_after_its_file_changed_is_not_kept(
    indexed: tuple[Path, Index, dict[str, int]],
) -> None:
    folder, index, ids = indexed
    cache = _GameCache(1 << 20)  # files changed within two seconds are not kept
    db, game_id = str(folder / "index.db"), ids["game-9x9.sgf"]
    assert cache.game(index, db, game_id) is not cache.game(index, db, game_id)
    assert cache.bytes == 0


def test_the_bound_holds_and_the_least_recently_used_go_first(
    indexed: tuple[Path, Index, dict[str, int]],
) -> None:
    folder, index, ids = indexed
    db = str(folder / "index.db")
    size = {name: _game_bytes(_GameCache(0).game(index, db, ids[name])) for name in GAMES}
    a, b, c, big = GAMES
    cache = _GameCache(size[a] + size[b] + size[c] - 1, settled_ns=0)
    kept_a = cache.game(index, db, ids[a])
    kept_b = cache.game(index, db, ids[b])
    assert cache.game(index, db, ids[a]) is kept_a  # a is now the most recently used
    cache.game(index, db, ids[c])  # no room for three: b goes
    assert cache.bytes == size[a] + size[c] <= cache.max_bytes
    assert cache.game(index, db, ids[a]) is kept_a
    assert cache.game(index, db, ids[b]) is not kept_b
    # A game larger than the bound is never kept, and drops nothing for it.
    small = _GameCache(size[big] - 1, settled_ns=0)
    kept = small.game(index, db, ids[a])
    assert small.game(index, db, ids[big]) is not small.game(index, db, ids[big])
    assert small.game(index, db, ids[a]) is kept
    assert small.bytes == size[a]


def test_a_game_of_an_archive_is_kept_until_the_archive_changes(tmp_path: Path) -> None:
    """A member is stored as ``archive:member``: the archive's identity is what counts."""
    archive = tmp_path / "games.tar"

    def write(record: bytes) -> None:
        with tarfile.open(archive, "w") as tar:
            info = tarfile.TarInfo("game.sgf")
            info.size = len(record)
            tar.addfile(info, io.BytesIO(record))

    record = (DATA / "game-9x9.sgf").read_bytes()
    write(record)
    db = build_index(tmp_path / "index.db", [archive])
    index = Index(db, read_only=True)
    [(game_id, stored)] = index.records().items()
    assert stored.file == f"{archive}:game.sgf"
    cache = _GameCache(1 << 20, settled_ns=0)
    first = cache.game(index, str(db), game_id)
    assert cache.game(index, str(db), game_id) is first
    write(record.replace(b"]", b"}", 1))
    assert cache.game(index, str(db), game_id) is not first  # read again, from the index
