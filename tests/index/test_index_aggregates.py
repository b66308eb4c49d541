"""Continuations aggregated per frequent position (gohash.index.aggregates): the same
answers as counting the games again, and exact as files are added and removed."""

from __future__ import annotations

import itertools
import random
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gohash.group.symmetry import ELEMENTS
from gohash.index import aggregates, find
from gohash.index.index import Index
from gohash.index.postings import live_postings
from tests.support.indexes import posting_rows, tamper
from tests.support.players import write_games

DATES = ["2015-01-01", "2015-06-01", "2015-12-01", "2016-03-03", None]


def write_openings(folder: Path, seed: int, count: int) -> list[Path]:
    """``count`` short 19x19 records sharing few openings, dates and results, so
    that an aggregate's rows hold several games and a removal often takes the
    first or last date of one; a few pass first, a few have setup stones."""
    rng = random.Random(seed)
    paths = []
    for i in range(count):
        date = rng.choice(DATES)
        root = "SZ[19]" + (f"DT[{date}]" if date else "") + rng.choice(["RE[B+R]", "RE[W+1]", ""])
        moves = ["B[]" if rng.random() < 0.1 else f"B[{rng.choice(['pd', 'dd'])}]",
                 f"W[{rng.choice(['dp', 'pp'])}]", f"B[{rng.choice(['qc', 'cq', 'jj'])}]"]
        # Setup as records hold it: handicap stones in the root, or a setup
        # node after it (the empty board then ends by setup), or stones added
        # in the middle of the game.
        setup = rng.random()
        if setup < 0.1:
            root += "HA[2]AB[pd][dp]"
            moves = moves[1:]
        elif setup < 0.2:
            moves.insert(0, "AB[pd][dp]")
            moves.pop(1)
        elif setup < 0.3:
            moves.insert(2, "AW[jj]")
        path = folder / f"o{i:02d}.sgf"
        path.write_text(f"(;{root};{';'.join(moves)})", encoding="utf-8")
        paths.append(path)
    return paths


@pytest.fixture(autouse=True)
def low_threshold(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Positions reached three times get an aggregate, so small builds make some."""
    monkeypatch.setattr(aggregates, "AGGREGATE_OCCURRENCES", 3)
    yield


def frames(index: Index) -> list[np.ndarray]:
    """The positions the index keeps aggregates for."""
    rows = index._db.execute("SELECT size, frame FROM aggregates ORDER BY id")
    return [np.frombuffer(frame, dtype=np.int8).reshape(size, size) for size, frame in rows]


def assert_as_recounted(index: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every aggregated position's continuations, seen through a few of its
    images, every side to move and both symmetries, are the recount's."""
    for number, frame in enumerate(frames(index)):
        for element in (ELEMENTS[0], ELEMENTS[5 + number % 11]):
            position = element.image_array(frame)
            for symmetry, to_move, setup in itertools.product(
                    ("full", "d4"), ("b", "w", "any"), ("exclude", "include", "only")):
                got = index.continuations(position, symmetry=symmetry, to_move=to_move,
                                          setup=setup)
                with monkeypatch.context() as m:
                    m.setattr(find, "_aggregated", lambda *args: None)
                    want = index.continuations(position, symmetry=symmetry, to_move=to_move,
                                               setup=setup)
                assert got == want, (number, element.name, symmetry, to_move, setup)


def test_frequent_positions_answer_as_the_recount(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Index(built(tmp_path, 3, 60)) as index:
        kept = frames(index)
        # The empty board and openings reached three times or more.
        assert len(kept) > 5 and not kept[0].any()
        assert index.check() == []
        assert_as_recounted(index, monkeypatch)
        # Every game without handicap stones starts from the empty board (one
        # that passes there counts once more, for its next move).
        even = index._db.execute(
            "SELECT count(*) FROM games WHERE handicap = 0").fetchone()[0]
        empty = index.continuations(np.zeros((19, 19), dtype=np.int8), to_move="any")
        assert empty.total >= even > 40



def test_a_lower_threshold_gives_an_existing_index_its_aggregates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index built when fewer positions were frequent answers as before, by
    counting, until discover_aggregates gives every candidate position now
    frequent its aggregate, as a build would."""
    monkeypatch.setattr(aggregates, "AGGREGATE_OCCURRENCES", 12)
    db = built(tmp_path, 6, 60)
    monkeypatch.setattr(aggregates, "AGGREGATE_OCCURRENCES", 3)
    with Index(db) as index:
        con = index._db
        positions = frames(index)
        before = [index.continuations(p, to_move="any") for p in positions]
        had = len(positions)
        assert index.discover_aggregates() == len(frames(index)) - had > 0
        rows = posting_rows(db)
        early = {key for key, _, seq in rows if seq < aggregates.CANDIDATE_NODES}
        frequent = {key for key, n in Counter(key for key, _, _ in rows).items()
                    if n >= 3 and key in early}
        assert {key for (key,) in con.execute("SELECT key FROM aggregates")} == frequent
        assert [index.continuations(p, to_move="any") for p in positions] == before
        assert index.check() == []
        assert_as_recounted(index, monkeypatch)
        assert index.discover_aggregates() == 0

@pytest.mark.parametrize("games, postings", [(20_000, 2_000_000), (7, 1)])
def test_the_batch_recount_is_the_recount_of_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, games: int, postings: int
) -> None:
    """recount_many (each game read once for all its positions, a few games at
    a time, a few positions at a time) counts as recount does position by
    position; and a build's aggregates, counted by it, are what check recounts."""
    monkeypatch.setattr(aggregates, "RECOUNT_GAMES", games)
    monkeypatch.setattr(aggregates, "RECOUNT_POSTINGS", postings)
    with Index(built(tmp_path, 4, 60)) as index:
        assert index.check() == []
        con, file = index._db, index._file.postings
        positions = con.execute("SELECT key, size, frame FROM aggregates ORDER BY id").fetchall()
        assert len(positions) > 5
        found = [tuple(np.array([p[c] for p in live_postings(con, file, key)],
                                dtype=np.int64) for c in range(2)) for key, _, _ in positions]
        batch = aggregates.recount_many(
            con, [(size, frame, p) for (_, size, frame), p in zip(positions, found, strict=True)])
        assert batch == [aggregates.recount(con, file, key, size, frame)
                         for key, size, frame in positions]
        assert any(len(rows) > 1 for rows in batch)


def built(tmp_path: Path, seed: int, count: int) -> Path:
    """An index of ``count`` records of write_games."""
    folder = tmp_path / "games"
    folder.mkdir()
    write_games(folder, seed, count)
    db = tmp_path / "i.db"
    with Index(db, create=True) as index:
        index.build([str(folder)])
    return db


def test_a_tampered_aggregate_is_a_fault(tmp_path: Path) -> None:
    db = built(tmp_path, 4, 30)
    # A count in range (the value checks pass it), but not a recount's.
    tamper(db, "UPDATE aggregate_moves SET games = games + 1 "
               "WHERE aggregate_id = 1 AND colour = 1")
    with Index(db) as index:
        assert any(f.startswith("aggregates: aggregate 1: its continuation rows are not")
                   for f in index.check())


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 11)), min_size=1, max_size=12),
       st.integers(0, 2**16))
def test_aggregates_stay_exact_as_files_come_and_go(
    steps: list[tuple[bool, int]], seed: int
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "games"
        folder.mkdir()
        paths = write_openings(folder, seed, 12)
        with Index(Path(scratch) / "i.db", create=True) as index:
            index.build([str(p) for p in paths[:6]])
            for add, which in steps:
                if add:
                    index.build([str(paths[which])])
                else:
                    index.remove([str(paths[which])])
                # check() compares every aggregate with a recount from the games.
                assert index.check() == []
            with pytest.MonkeyPatch.context() as m:
                assert_as_recounted(index, m)


def test_an_aggregate_is_of_one_exact_position(tmp_path: Path) -> None:
    """Two positions whose keys collide keep one aggregate each at most: the
    aggregate is found by the exact frame, never by the key alone."""
    db = built(tmp_path, 5, 30)
    with Index(db) as index:
        before = index.continuations(np.zeros((19, 19), dtype=np.int8))
    # The empty board's aggregate given another position's frame: a query of the
    # empty board no longer finds it, and counts the games again.
    other = np.zeros(19 * 19, dtype=np.int8)
    other[0] = 1
    with sqlite3.connect(db) as con:
        con.execute("UPDATE aggregates SET frame = ? WHERE id = 1", (other.tobytes(),))
    con.close()
    with Index(db) as index:
        assert index.continuations(np.zeros((19, 19), dtype=np.int8)) == before
        assert any("aggregate 1: its frame" in f or "aggregate 1: key" in f
                   for f in index.check())
