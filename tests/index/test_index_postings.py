"""The postings file beside an index (:mod:`gohash.index.postings`): it never
drops a posting that a brute-force recount of the games finds, across builds,
removals, a build killed before its commit and a file lost; a tampered file is
a "damaged" error or an answer, never a traceback, and the next build writes it
again; a game never gets an id whose postings the file still holds."""

from __future__ import annotations

import random
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gohash.index import writer as writer_module
from gohash.index.games import posting_key
from gohash.index.index import Index
from gohash.index.postings import (
    KEY_OFFSET,
    PostingsFile,
    live_postings,
    live_postings_many,
    postings_path,
)
from gohash.pipeline.frames import frame_array_and_elements
from tests.support.indexes import (
    array_at,
    consistency_problems,
    posting_rows,
    random_game,
    run,
    write_game,
)

SIZE = 9


def brute_force(db: Path) -> list[tuple[int, int, int]]:
    """Every posting ``(key, game id, seq)`` the index's games must have: each
    game's source file read again position by position (not its stored form),
    each position's canonical key under the index's scheme."""
    with closing(sqlite3.connect(db)) as con:
        games = con.execute("SELECT g.id, f.path, g.nodes FROM games g "
                            "JOIN files f ON f.id = g.file_id").fetchall()
    out = []
    with Index(db, read_only=True) as index:
        keys = index.keys(SIZE)
        for game_id, path, nodes in games:
            for seq in range(nodes):
                key, _, _ = frame_array_and_elements(array_at(Path(path), seq), keys)
                out.append((posting_key(key, keys.bits, SIZE), game_id, seq))
    return sorted(out)


class Killed(Exception):
    """What the build's commit raises in place of committing."""


def killed_build(db: Path, paths: list[str], monkeypatch: pytest.MonkeyPatch) -> bool:
    """A build that dies at its first commit, after the postings of its games are
    in the file and before the games are committed; False if it had no file to
    write (and so nothing to commit)."""
    def die(self: writer_module.Writer) -> int:
        self.flush()
        raise Killed

    with monkeypatch.context() as m:
        m.setattr(writer_module.Writer, "commit", die)
        with Index(db, create=True) as index:
            try:
                index.build(paths, files_per_commit=1)
            except Killed:
                return True
    return False


OPERATIONS = st.lists(st.tuples(st.sampled_from(["build", "remove", "kill", "lose"]),
                                st.sets(st.integers(0, 5), min_size=1, max_size=3)),
                      min_size=1, max_size=5)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(operations=OPERATIONS, seed=st.integers(0, 1000))
def test_the_file_never_drops_a_posting_the_brute_force_finds(
    operations: list[tuple[str, set[int]]], seed: int, tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path_factory.mktemp("postings")
    rng = random.Random(seed)
    files = [write_game(folder, f"{n}.sgf", SIZE, random_game(rng, SIZE, rng.randint(0, 25)))
             for n in range(6)]
    db = folder / "index.db"
    for operation, which in operations:
        paths = [str(files[n]) for n in sorted(which)]
        if operation == "build":
            with Index(db, create=True) as index:
                index.build(paths)
        elif operation == "remove" and db.exists():
            with Index(db) as index:
                index.remove(paths)
        elif operation == "kill":
            killed_build(db, paths, monkeypatch)
        elif operation == "lose" and db.exists():
            Path(postings_path(str(db))).unlink(missing_ok=True)
            with Index(db):  # opening it for writing writes it again
                pass
        if db.exists():
            assert posting_rows(db) == brute_force(db)
            assert consistency_problems(db) == []
            assert_lookups_agree(db)
    if db.exists():
        with Index(db, create=True) as index:
            index.build([str(f) for f in files])
            assert index.check() == []
        assert posting_rows(db) == brute_force(db)


def assert_lookups_agree(db: Path) -> None:
    """The batch twins equal their scalars on every key of the file (removed and
    killed builds' games among its postings): ``lookup_arrays`` and ``lookup``,
    ``live_postings_many`` and ``live_postings``."""
    file = PostingsFile(postings_path(str(db)))
    keys = sorted({key - KEY_OFFSET for u, _, _ in file.chunks(None) for key in u.tolist()})
    for key in keys:
        games, seqs = file.lookup_arrays(key)
        assert list(zip(games.tolist(), seqs.tolist(), strict=True)) == file.lookup(key)
    with closing(sqlite3.connect(db)) as con:
        assert [list(zip(games.tolist(), seqs.tolist(), strict=True))
                for games, seqs in live_postings_many(con, file, keys)] == [
            live_postings(con, file, key) for key in keys]


def test_a_build_killed_before_its_commit_leaves_postings_no_game_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(3)
    files = [str(write_game(tmp_path, f"{n}.sgf", SIZE, random_game(rng, SIZE, 20)))
             for n in range(4)]
    db = tmp_path / "index.db"
    with Index(db, create=True) as index:
        index.build(files[:2])
    assert killed_build(db, files[2:3], monkeypatch)
    # The killed build's run is in the file, for an id no game of the index has.
    orphans = PostingsFile(postings_path(str(db))).held()
    assert orphans.tolist() == [1, 2, 3]
    with Index(db) as index:
        index.build(files[2:])
        assert index.check() == []
    with closing(sqlite3.connect(db)) as con:
        ids = [i for (i,) in con.execute("SELECT id FROM games ORDER BY id")]
    assert ids == [1, 2, 4, 5]
    assert posting_rows(db) == brute_force(db)
    # The build merged the file: the orphan's postings are gone.
    file = PostingsFile(postings_path(str(db)))
    assert len(file.segments()[0]) == 1 and file.held().tolist() == ids


def test_a_removed_game_is_skipped_until_a_build_merges_it_away(tmp_path: Path) -> None:
    rng = random.Random(5)
    moves = random_game(rng, SIZE, 20)
    first = write_game(tmp_path, "a.sgf", SIZE, moves)
    second = write_game(tmp_path, "b.sgf", SIZE, moves)  # the same game: the same keys
    db = tmp_path / "index.db"
    with Index(db, create=True) as index:
        index.build([str(first), str(second)])
        query = array_at(first, 12)
        assert index.find(query).total == 2
        index.remove([str(second)])
        assert index.find(query).total == 1
        assert index.counts()["occurrences"] == 21
        assert 2 in PostingsFile(postings_path(str(db))).held()
        assert index.check() == []
        index.build([str(second)])  # a new id, never the removed game's
        assert index.find(query).total == 2
        assert PostingsFile(postings_path(str(db))).held().tolist() == [1, 3]


TAMPERINGS = {
    "a byte of the keys": lambda data, at: _flip(data, at["low"]),
    "a byte of the games": lambda data, at: _flip(data, at["game"]),
    "a byte of the seqs": lambda data, at: _flip(data, at["seq"] + 1, 0x7F),
    "the directory": lambda data, at: _flip(data, at["starts"] + 8),
    "the ids": lambda data, at: _flip(data, at["ids"]),
    "the segment's header": lambda data, at: _flip(data, 16 + 9),
    "the file's header": lambda data, at: _flip(data, 0),
    "cut short": lambda data, at: data[: len(data) - 5],
    "garbage appended": lambda data, at: data + b"\x01" * 100,
    "empty": lambda data, at: b"",
}


def _flip(data: bytes, at: int, mask: int = 0xFF) -> bytes:
    return data[:at] + bytes([data[at] ^ mask]) + data[at + 1 :]


@pytest.mark.parametrize("tampering", list(TAMPERINGS))
def test_a_tampered_file_is_damaged_or_an_answer_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampering: str
) -> None:
    rng = random.Random(9)
    files = [write_game(tmp_path, f"{n}.sgf", SIZE, random_game(rng, SIZE, 30))
             for n in range(3)]
    db = tmp_path / "index.db"
    assert run(capsys, "build", str(db), *map(str, files))[0] == 0
    path = Path(postings_path(str(db)))
    segment = PostingsFile(str(path)).segments()[0][0]
    data = path.read_bytes()
    # The columns' offsets in the file: the first (ids) follows the file's header
    # (16 bytes) and the segment's (56).
    base = segment.ids.ctypes.data - 72
    at = {name: getattr(segment, name).ctypes.data - base
          for name in ("ids", "tops", "low", "game", "seq")}
    at["starts"] = at["tops"] + (2 * len(segment.tops) + 7) // 8 * 8  # after the tops
    path.write_bytes(TAMPERINGS[tampering](data, at))
    for argv in (("find", str(db), "--sgf", str(files[0]), "--move", "20"),
                 ("find", str(db), "--sgf", str(files[0]), "--move", "4", "--continuations"),
                 ("dupes", str(db)), ("info", str(db))):
        code, _, err = run(capsys, *argv)
        assert "Traceback" not in err and code in (0, 1, 2), (argv, err)
        assert code != 2 or "damaged" in err, (argv, err)
    code, _, err = run(capsys, "check", str(db))
    if tampering != "garbage appended" or code:  # extra bytes may read as a cut segment
        assert code == 2 and "postings" in err, err
    # The next build writes what it lacks again (the segments before a fault kept).
    assert run(capsys, "build", str(db), *map(str, files))[0] == 0
    assert run(capsys, "check", str(db))[0] == 0
    assert posting_rows(db) == brute_force(db)



@given(postings=st.lists(st.tuples(st.integers(-(2**40), 2**40), st.integers(1, 6),
                                   st.integers(0, 9)), max_size=60),
       rng=st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_segment_is_the_same_whatever_order_its_postings_come_in(
        postings: list[tuple[int, int, int]], rng: random.Random, tmp_path: Path) -> None:
    # In order of game and seq, as a build stages them (one stable sort by key),
    # and shuffled (a sort by key, game and seq): the same bytes.
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # the examples share tmp_path
    written = []
    for name, rows in (("staged", sorted(postings, key=lambda p: (p[1], p[2]))),
                       ("shuffled", rng.sample(postings, len(postings)))):
        path = folder / name
        keys, games, seqs = (np.array([p[c] for p in rows], dtype=np.int64) for c in range(3))
        PostingsFile(str(path)).append(np.arange(1, 7, dtype=np.int64), keys, games, seqs)
        written.append(path.read_bytes())
    assert written[0] == written[1]


def test_a_posting_two_segments_hold_is_looked_up_once(tmp_path: Path) -> None:
    file = PostingsFile(str(tmp_path / "postings"))
    ids = np.array([1, 2], dtype=np.int64)
    for games, seqs in (([1, 1, 2], [0, 3, 1]), ([2, 1, 2], [1, 3, 0])):
        file.append(ids, np.full(3, 7, dtype=np.int64), np.array(games, dtype=np.int64),
                    np.array(seqs, dtype=np.int64))
    games, seqs = file.lookup_arrays(7)
    assert list(zip(games.tolist(), seqs.tolist(), strict=True)) == file.lookup(7) == [
        (1, 0), (1, 3), (2, 0), (2, 1)]
