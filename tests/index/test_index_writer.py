"""The build's writer (:mod:`gohash.index.writer`: games as they come, postings staged
and appended to the postings file in runs) against a straightforward reference that
writes one file at a time, row by row, its postings in a table: every table, row for
row, ids included but games', which are compared in their order (a build skips the
ids whose postings the file still holds).

Builds from scratch, builds into an index that already holds games, replaced
files (their postings found again from their stored games), keys that collide
(a weak scheme), 128-bit keys, variations, a few staged rows at a time, and
another connection writing between two transactions."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

import gohash.index.writer
from gohash.index.build import input_frames
from gohash.index.index import Index
from gohash.index.records import PARSE_VERSION, FileFrames, SourceError
from gohash.index.schema import INSERT_GAME
from gohash.pipeline.frames import NamedSchemes, SchemeFactory
from gohash.sgf.sources import find_inputs
from gohash.version import __version__
from tests.support.env import CORPUS, ROOT
from tests.support.indexes import (
    INDEX_TABLES,
    consistency_problems,
    posting_rows,
    random_game,
    renumbered,
    table_dump,
    table_rows,
    weak_scheme,
    write_game,
)

pytestmark = pytest.mark.corpus


# -- the reference -----------------------------------------------------------------------------


def reference_build(db: Path, paths: list[str], factory: SchemeFactory, *,
                    variations: bool = False) -> None:
    """Index ``paths`` into ``db`` (made by Index) one file at a time, as gohash did."""
    with sqlite3.connect(db, isolation_level=None) as con:
        known = dict(con.execute("SELECT path, sha256 FROM files"))
        con.execute("BEGIN")
        for inp in find_inputs(paths):
            for results in input_frames([(inp, known)], factory, None, variations):
                for item in whole_files(results):
                    if isinstance(item, FileFrames) and not item.unchanged:
                        reference_write(con, item)
        con.execute("COMMIT")
    con.close()


def whole_files(items: list[FileFrames | SourceError]) -> list[FileFrames | SourceError]:
    """The parts of each long file (:attr:`FileFrames.part`) joined into one."""
    out: list[FileFrames | SourceError] = []
    for item in items:
        if isinstance(item, FileFrames) and item.part:
            whole = out[-1]
            assert isinstance(whole, FileFrames) and whole.path == item.path
            base = len(whole.keys)
            whole.games += [replace(game, start=game.start + base, end=game.end + base)
                            for game in item.games]
            whole.errors += item.errors
            whole.add_keys(item.keys)
        else:
            out.append(item)
    return out


def reference_write(con: sqlite3.Connection, item: FileFrames) -> None:
    old = con.execute("SELECT id FROM files WHERE path = ?", (item.path,)).fetchone()
    if old is not None:
        reference_delete(con, old[0])
    file_id = con.execute(
        "INSERT INTO files (path, sha256, games, gohash_version, parse_version, suicide) "
        "VALUES (?, ?, ?, ?, ?, NULL)",
        (item.path, item.sha256, len(item.games), __version__, PARSE_VERSION),
    ).lastrowid
    for game in item.games:
        record = game.record
        assert record is not None
        game_id = con.execute(
            INSERT_GAME,  # the columns of the table of game metadata
            (None, file_id, game.game, game.size, game.black, game.white, game.result,
             game.sha256, game.main, game.moves, game.error, *game.explorer_columns(),
             record.nodes, record.blob, record.ever_black, record.ever_white),
        ).lastrowid
        for seq, parent, path in game.lines:
            con.execute("INSERT INTO variations VALUES (?, ?, ?, ?)",
                        (game_id, seq, parent, path))
        for seq, row in enumerate(range(game.start, game.end)):
            con.execute("INSERT INTO postings VALUES (?, ?, ?)",
                        (int(item.keys[row]), game_id, seq))
    for e in item.errors:
        con.execute("INSERT INTO errors VALUES (?, ?, ?, ?)", (file_id, e.game, e.move,
                                                              e.message))


def reference_delete(con: sqlite3.Connection, file_id: int) -> None:
    games = [g for (g,) in con.execute("SELECT id FROM games WHERE file_id = ?", (file_id,))]
    for game_id in games:
        con.execute("DELETE FROM postings WHERE game_id = ?", (game_id,))
        con.execute("DELETE FROM variations WHERE game_id = ?", (game_id,))
    for table, column in (("errors", "file_id"), ("games", "file_id"), ("files", "id")):
        con.execute(f"DELETE FROM {table} WHERE {column} = ?", (file_id,))


# -- helpers -----------------------------------------------------------------------------------


def assert_equal(built: Path, reference: Path) -> None:
    ours, theirs = renumbered(table_rows(built)), renumbered(table_rows(reference))
    for table in INDEX_TABLES:
        assert ours[table] == theirs[table], table
    assert consistency_problems(built) == []


@pytest.fixture
def small_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    # A few hundred postings a flush: many flushes, and files staged together.
    monkeypatch.setattr(gohash.index.writer, "STAGED_ROWS", 300)


def both(tmp_path: Path, scheme: str | SchemeFactory = "huima64",
         variations: bool = False) -> tuple[Path, Path]:
    """A new index and a new reference index, alike; the reference keeps its
    postings in a table, one row each, as gohash did."""
    pair = (tmp_path / "built.db", tmp_path / "reference.db")
    for db in pair:
        Index(db, create=True, scheme=scheme, variations=variations).close()
    with closing(sqlite3.connect(pair[1])) as con:
        con.execute("CREATE TABLE postings (key INTEGER NOT NULL, game_id INTEGER NOT NULL, "
                    "seq INTEGER NOT NULL, PRIMARY KEY (key, game_id, seq)) WITHOUT ROWID")
    return pair


REAL = [str(ROOT / "data" / "sgf"), str(CORPUS / "small")]


# -- tests -------------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["huima64", "regular128"])
def test_a_new_index_is_the_reference_s(tmp_path: Path, small_stages: None, scheme: str) -> None:
    built, reference = both(tmp_path, scheme)
    with Index(built) as index:
        summary = index.build(REAL, files_per_commit=7)
    reference_build(reference, REAL, NamedSchemes(scheme))
    assert_equal(built, reference)
    assert summary.errors and summary.positions > 40_000
    assert summary.positions == len(table_rows(built)["postings"])


def test_variations_are_the_reference_s(tmp_path: Path, small_stages: None) -> None:
    built, reference = both(tmp_path, variations=True)
    inputs = [str(ROOT / "data" / "sgf")]
    with Index(built) as index:
        index.build(inputs)
    reference_build(reference, inputs, NamedSchemes("huima64"), variations=True)
    assert_equal(built, reference)
    assert table_rows(built)["variations"]


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """9x9 games, some played in several files (their positions are shared)."""
    folder = tmp_path_factory.mktemp("writer")
    rng = random.Random(8)
    games = [random_game(rng, 9, rng.randrange(5, 60)) for _ in range(30)]
    for n in range(60):
        write_game(folder, f"{n:02}.sgf", 9, games[n % 30][: 20 + n % 40])
    return folder


def files(folder: Path, names: range) -> list[str]:
    return [str(folder / f"{n:02}.sgf") for n in names]


@pytest.mark.parametrize("scheme", ["huima64", "weak"])
def test_an_incremental_build_with_replaced_files_is_the_reference_s(
    collection: Path, tmp_path: Path, small_stages: None, scheme: str
) -> None:
    factory = weak_scheme if scheme == "weak" else NamedSchemes(scheme)
    built, reference = both(tmp_path, factory)
    steps: list[list[str]] = [files(collection, range(0, 50, 5)), files(collection, range(60))]
    # A changed file: its old positions that no other game has go, and their ids
    # are given again.
    changed = tmp_path / "changed"
    changed.mkdir()
    for name in ("07.sgf", "59.sgf"):
        (changed / name).write_bytes((collection / name).read_bytes())
    steps.append([str(changed)])
    (changed / "07.sgf").write_bytes((collection / "31.sgf").read_bytes())
    (changed / "59.sgf").write_bytes((collection / "12.sgf").read_bytes())
    steps.append([str(changed)])
    for step in steps:
        with Index(built, scheme=factory) as index:
            index.build(step)
        reference_build(reference, step, factory)
        assert_equal(built, reference)
    if scheme == "weak":
        # The test means something only if keys collide: many postings share a key.
        keys = [key for key, _, _ in posting_rows(built)]
        assert len(keys) - len(set(keys)) > 500


def test_a_small_build_into_a_large_index_is_the_reference(
    collection: Path, tmp_path: Path, small_stages: None
) -> None:
    built, reference = both(tmp_path, weak_scheme)
    for step in (files(collection, range(2, 60)), files(collection, range(2))):
        with Index(built, scheme=weak_scheme) as index:
            index.build(step)
        reference_build(reference, step, weak_scheme)
    assert_equal(built, reference)


def test_another_connection_writing_mid_build(
    collection: Path, tmp_path: Path, small_stages: None
) -> None:
    """Between two transactions of a build, another connection indexes files whose
    positions the build meets afterwards: the index holds what one build of
    both makes."""
    db = tmp_path / "index.db"
    ours, theirs = files(collection, range(30)), files(collection, range(30, 60))

    def interleave(done: int, total: int) -> None:
        if done == 5:
            with Index(db) as other:
                other.build(theirs)

    with Index(db, create=True) as index:
        index.build(ours, files_per_commit=1, progress=interleave)
    assert consistency_problems(db) == []
    fresh = tmp_path / "fresh.db"
    with Index(fresh, create=True) as index:
        index.build(ours + theirs)
    assert table_dump(db) == table_dump(fresh)
