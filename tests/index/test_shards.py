"""A sharded index answers every query as one index of the same games (differential).

The same inputs are built into one index and into 1, 2 and 7 shards; every
query (find with pages, orders and filters, continuations, pattern, dupes,
info, player, game, sgf, check) is asked of both, and the answers compared
with the single index's game ids mapped to the sharded ones (by file and game).
Every command that reads an index gives one index's JSON, and the server one
index's answers, in threads or on a Dask cluster.  Then: files go to the shard
their path names, and removing them takes them from there; a missing,
damaged, slow or lost shard is an error naming it, in the server's answer too.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gohash.cli import main
from gohash.errors import GohashError, IndexFileError, UnknownGameError
from gohash.go.board import Board
from gohash.index import postings as postings_module
from gohash.index.filters import Filters
from gohash.index.index import Index
from gohash.index.shards import (
    MANIFEST,
    Manifest,
    ShardedIndex,
    build_shards,
    open_index,
    shard_of,
)
from gohash.index.store import build_index
from tests.support import sgfgen
from tests.support.env import ROOT

DATA = ROOT / "data" / "sgf"


def _inputs() -> list[str]:
    return [str(p) for p in sorted(DATA.rglob("*.sgf"))]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, str]]:
    """One index of data/sgf (key 0) and the same sharded 1, 2 and 7 ways."""
    root = tmp_path_factory.mktemp("shards")
    inputs = _inputs()
    paths = {0: str(root / "one.db")}
    build_index(paths[0], inputs)
    for shards in (1, 2, 7):
        paths[shards] = str(root / f"sharded-{shards}")
        build_shards(paths[shards], inputs, shards=shards, jobs=2 if shards == 7 else 1)
    yield paths


def _ids(single: Index, sharded: ShardedIndex) -> dict[int, int]:
    """The single index's game ids mapped to the sharded index's, by file and game."""
    theirs = {(r.file, r.game): gid for gid, r in sharded.records().items()}
    mine = single.records()
    assert len(theirs) == len(mine)
    return {gid: theirs[r.file, r.game] for gid, r in mine.items()}


def _mapped(item: Any, ids: dict[int, int]) -> Any:
    """A match (or anything with a ``record``) with its record's id mapped."""
    return dataclasses.replace(item, record=dataclasses.replace(item.record,
                                                                id=ids[item.record.id]))


def _in_id_order(matches: list[Any]) -> list[Any]:
    return sorted(matches, key=lambda m: m.record.id)


def _by_runs(matches: list[Any], value: Any) -> list[Any]:
    """``matches`` (mapped, in the single index's order by a game order) as the
    sharded index orders them: the same runs of equal ``value``, each in id order."""
    runs: list[list[Any]] = []
    for m in matches:
        if not runs or value(runs[-1][0]) != value(m):
            runs.append([])
        runs[-1].append(m)
    return [m for run in runs for m in _in_id_order(run)]


def _queries(single: Index, count: int) -> list[Board]:
    """Positions of the index's games: the first, the middle and the last of some."""
    boards = []
    for game_id in sorted(single.records())[:count]:
        positions = single.game(game_id).positions
        if not positions:  # a root in error: nothing indexed
            continue
        for at in {0, len(positions) // 3, len(positions) // 2, len(positions) - 1}:
            p = positions[at]
            to_move = "w" if p.colour == "b" else "b"
            boards.append(Board.from_array(p.stones, to_move=to_move))
    return boards


def _diagrams(single: Index, count: int) -> list[str]:
    """Corner patterns cut from the games' positions (a 5x5 corner, and the same
    with one empty point a wildcard), so that some hit."""
    diagrams = []
    for game_id in sorted(single.records())[:count]:
        positions = single.game(game_id).positions
        if not positions:
            continue
        stones = positions[len(positions) // 2].stones
        size = stones.shape[0]
        if size < 7 or not stones.any():
            continue
        corner = min(5, size // 2)
        rows = []
        for row in range(size - 1, -1, -1):
            rows.append("".join(".XO"[stones[row, col]] if row < corner and col < corner
                                else "-" for col in range(size)))
        diagrams.append("\n".join(rows))
        diagrams.append("\n".join(rows).replace(".", "*", 1))
    return diagrams


def _same_answers(single: Index, sharded: ShardedIndex, *, queries: int = 6,
                  diagrams: int = 4) -> None:
    ids = _ids(single, sharded)
    want, have = single.info().to_json(paths=False), sharded.info().to_json(paths=False)
    assert have == want
    assert sharded.counts() == single.counts()
    assert sharded.sizes() == dict(sorted(single.sizes().items()))
    assert sharded.check() == single.check() == []
    for board in _queries(single, queries):
        full = single.find(board, limit=None)
        expected = _in_id_order([_mapped(m, ids) for m in full.matches])
        got = sharded.find(board, limit=None)
        assert (got.total, got.rejected, got.key) == (full.total, full.rejected, full.key)
        assert got.matches == expected
        for offset, limit in ((0, 1), (1, 2), (2, 5), (len(expected), 3)):
            page = sharded.find(board, limit=limit, offset=offset)
            assert page.matches == expected[offset:offset + limit], (offset, limit)
            assert page.total == full.total
        for order, value in (("date", lambda m: m.record.date),
                             ("-date", lambda m: m.record.date),
                             ("result", lambda m: m.record.winner)):
            ordered = single.find(board, limit=None, order=order)
            runs = _by_runs([_mapped(m, ids) for m in ordered.matches], value)
            assert sharded.find(board, limit=None, order=order).matches == runs, order
            assert sharded.find(board, limit=3, offset=1, order=order).matches == runs[1:4]
        for options in ({}, {"symmetry": "d4"}, {"to_move": "any"},
                        {"filters": Filters(result="B")}, {"limit": 2}):
            a = single.continuations(board, **options)  # type: ignore[arg-type]
            b = sharded.continuations(board, **options)
            assert b == a, options
        assert sharded.find(board, symmetry="d4", to_move="b", limit=None).matches == (
            _in_id_order([_mapped(m, ids) for m in single.find(
                board, symmetry="d4", to_move="b", limit=None).matches]))
    for diagram in _diagrams(single, diagrams):
        for options in ({}, {"symmetry": "none"}, {"filters": Filters(date_from="1990")}):
            full_pattern = single.pattern(diagram, limit=None, **options)  # type: ignore[arg-type]
            expected = _in_id_order([_mapped(m, ids) for m in full_pattern.matches])
            got_pattern = sharded.pattern(diagram, limit=None, **options)
            assert got_pattern.matches == expected
            assert got_pattern.continuations == full_pattern.continuations
            assert dataclasses.replace(got_pattern, matches=[]) == dataclasses.replace(
                full_pattern, matches=[])
            page = sharded.pattern(diagram, limit=2, offset=1, **options)
            assert page.matches == expected[1:3]
            assert (page.total, page.continuations) == (full_pattern.total,
                                                        full_pattern.continuations)
    _same_dupes(single, sharded, ids)
    records = single.records()
    for name in sorted({r.black for r in records.values() if r.black})[:5]:
        a_player = single.player(name, openings=3, opening_length=2, corner_length=2)
        b_player = sharded.player(name, openings=3, opening_length=2, corner_length=2)
        assert b_player.records == _records_by_date(
            [dataclasses.replace(r, id=ids[r.id]) for r in a_player.records])
        assert dataclasses.replace(b_player, records=[]) == dataclasses.replace(
            a_player, records=[])
    for game_id, record in records.items():
        game = sharded.game(ids[game_id])
        mine = single.game(game_id)
        assert game.record == dataclasses.replace(record, id=ids[game_id])
        assert game.root == mine.root and game.comments == mine.comments
        assert all(np.array_equal(a.stones, b.stones) and a.move_number == b.move_number
                   for a, b in zip(game.positions, mine.positions, strict=True))
        assert sharded.sgf(ids[game_id]) == single.sgf(game_id)


def _records_by_date(records: list[Any]) -> list[Any]:
    """Records (mapped, in the single index's ``-date`` order) as the sharded index
    orders them: runs of one date, each in id order."""
    runs: list[list[Any]] = []
    for r in records:
        if not runs or runs[-1][0].date != r.date:
            runs.append([])
        runs[-1].append(r)
    return [r for run in runs for r in sorted(run, key=lambda r: r.id)]


def _same_dupes(single: Index, sharded: ShardedIndex, ids: dict[int, int]) -> None:
    def games(group: Any) -> tuple[tuple[str, int], ...]:
        return tuple(sorted((r.file, r.game) for r in group.records))

    for min_positions in (1, 10):
        a, b = single.dupes(min_positions=min_positions), sharded.dupes(
            min_positions=min_positions)
        assert sorted((games(g), g.positions) for g in b.groups) == sorted(
            (games(g), g.positions) for g in a.groups)
        assert sorted((games(p.shorter), games(p.longer)) for p in b.prefixes) == sorted(
            (games(p.shorter), games(p.longer)) for p in a.prefixes)
        for group in b.groups:  # in id order, the first one's elements the identity
            assert [r.id for r in group.records] == sorted(r.id for r in group.records)
            assert group.elements[0].name == "identity"
        assert [g.records[0].id for g in b.groups] == sorted(g.records[0].id for g in b.groups)


@pytest.mark.parametrize("shards", [1, 2, 7])
def test_sharded_answers_equal_one_index_on_data_sgf(built: dict[int, str], shards: int) -> None:
    with Index(built[0], read_only=True) as single, ShardedIndex(built[shards],
                                                                 read_only=True) as sharded:
        assert sharded.dupes(min_positions=1).groups  # data/sgf holds a game twice
        _same_answers(single, sharded, queries=8, diagrams=6)


def test_one_shard_is_one_index(built: dict[int, str]) -> None:
    """With one shard the global ids are the local ones: the answers are the same
    objects, in the same order."""
    with Index(built[0], read_only=True) as single, ShardedIndex(built[1],
                                                                 read_only=True) as sharded:
        assert sharded.records() == single.records()
        for board in _queries(single, 3):
            assert sharded.find(board, limit=None, order="-date") == single.find(
                board, limit=None, order="-date")


@pytest.mark.parametrize("chunk", [1, 5, 64])
def test_distinct_keys_are_counted_a_chunk_at_a_time(
    built: dict[int, str], chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postings_module, "CHUNK_TOPS", chunk)
    with Index(built[0], read_only=True) as single, ShardedIndex(built[7],
                                                                 read_only=True) as sharded:
        assert sharded.counts() == single.counts()


@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_sharded_answers_equal_one_index_on_generated_games(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("generated")
    files = []
    for number in range(data.draw(st.integers(6, 12))):
        record = data.draw(sgfgen.records(st.integers(5, 9), max_games=2, faults=False,
                                          max_nodes=40))
        path = root / f"game-{number:02d}.sgf"
        path.write_text(record.sgf(), encoding="utf-8")
        files.append(str(path))
    # A copy of a file: the same games in two files, most likely two shards.
    shutil.copy(files[0], root / "copy.sgf")
    files.append(str(root / "copy.sgf"))
    build_index(str(root / "one.db"), files)
    with Index(str(root / "one.db"), read_only=True) as single:
        for shards in (2, 7):
            build_shards(str(root / f"s{shards}"), files, shards=shards)
            with ShardedIndex(str(root / f"s{shards}"), read_only=True) as sharded:
                _same_answers(single, sharded, queries=3, diagrams=2)


# -- which shard holds a file ------------------------------------------------------------------


def _files_of(path: str) -> list[set[str]]:
    manifest = Manifest.read(path)
    found = []
    for shard in manifest.paths(path):
        with Index(shard, read_only=True) as index:
            found.append({r.file for r in index.records().values()})
    return found


def test_files_go_to_the_shard_their_path_names(tmp_path: Path) -> None:
    inputs = [str(p) for p in sorted(DATA.glob("*.sgf"))]
    db = str(tmp_path / "db")
    build_shards(db, inputs[:-2], shards=3)
    for shard, files in enumerate(_files_of(db)):
        assert all(shard_of(f, 3) == shard for f in files)
    before = _files_of(db)
    # Adding a file changes its shard only; an existing sharded index keeps its count.
    summary = build_shards(db, inputs[-2:]).summary
    assert summary.files_indexed == 2
    after = _files_of(db)
    for shard in range(3):
        added = {f for f in inputs[-2:] if shard_of(f, 3) == shard}
        assert after[shard] == before[shard] | added
    # Removing one goes to the shard that holds it; a path no shard holds is missing.
    gone = inputs[0]
    with open_index(db) as index:
        removed = index.remove([gone, str(tmp_path / "nothing.sgf")])
    assert removed.files == [gone]
    assert removed.missing == [str(tmp_path / "nothing.sgf")]
    final = _files_of(db)
    assert final[shard_of(gone, 3)] == after[shard_of(gone, 3)] - {gone}
    assert all(final[s] == after[s] for s in range(3) if s != shard_of(gone, 3))
    # A folder removed from every shard that holds its files.
    with open_index(db) as index:
        assert sorted(index.remove([str(DATA)]).files) == sorted(set(inputs) - {gone})
        assert index.info().games == 0
    with pytest.raises(IndexFileError, match=r"shards 3, not 4; --overwrite replaces it"):
        build_shards(db, inputs, shards=4)


def test_the_cli_builds_and_searches_a_sharded_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "db")
    assert main(["index", "build", db, str(DATA / "game-9x9.sgf"),
                 str(DATA / "two-games.sgf"), "--shards", "2", "--jobs", "2"]) == 0
    assert json.loads((tmp_path / "db" / MANIFEST).read_text())["shards"] == 2
    capsys.readouterr()
    assert main(["index", "find", db, "--sgf", str(DATA / "game-9x9.sgf"), "--move", "5",
                 "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["total"] >= 1
    assert main(["index", "info", db, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == 2
    assert main(["index", "check", db]) == 0
    single = str(tmp_path / "one.db")
    assert main(["index", "build", single, str(DATA / "game-9x9.sgf")]) == 0
    capsys.readouterr()
    assert main(["index", "info", single, "--dask", "local:1"]) == 2
    assert "is not one" in capsys.readouterr().err


def _normalised(answer: Any) -> Any:
    """A command's JSON answer without game ids and the index's path, each list of
    objects as a sorted multiset (the library's tests check the order)."""
    if isinstance(answer, dict):
        return {k: _normalised(v) for k, v in answer.items()
                if k not in ("id", "game_id", "path")}
    if isinstance(answer, list):
        items = [_normalised(v) for v in answer]
        if all(isinstance(v, dict) for v in items):
            return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
        return items
    return answer


@pytest.mark.parametrize("shards", [2, 7])
def test_every_command_that_reads_answers_as_one_index(
    built: dict[int, str], shards: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corner = tmp_path / "corner.txt"
    corner.write_text(CORNER + "\n")
    with Index(built[0], read_only=True) as single:
        name = max((r.black for r in single.records().values() if r.black),
                   key=lambda n: len(single.player(n).records))
    game = str(DATA / "game-9x9.sgf")
    commands = [
        ["find", "--sgf", game, "--move", "6", "--limit", "0"],
        ["find", "--sgf", game, "--move", "6", "--continuations"],
        ["find", "--position", "\n".join(["." * 19] * 19), "--continuations"],
        ["pattern", str(corner), "--limit", "0"],
        ["dupes", "--min-positions", "1"],
        ["info"],
        ["player", name, "--limit", "0"],
    ]
    for command in commands:
        outputs = []
        for db in (built[0], built[shards]):
            code = main(["index", command[0], db, *command[1:], "--format", "json"])
            outputs.append((code, _normalised(json.loads(capsys.readouterr().out))))
        assert outputs[1] == outputs[0], command
        assert outputs[0][0] == (1 if command[0] == "dupes" else 0)  # dupes found: 1
    for db in (built[0], built[shards]):
        assert main(["index", "check", db]) == 0
    assert capsys.readouterr().out.count("\n") == 0


# -- shards that fail ----------------------------------------------------------------------


def test_a_missing_damaged_or_slow_shard_is_named(
    built: dict[int, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "db"
    shutil.copytree(built[2], db)
    shard = Manifest.read(str(db)).paths(str(db))[1]
    board = Board.from_array(np.zeros((9, 9), dtype=np.int8))
    # Slow: a query that outlasts the timeout names the shard.
    slow_find = Index.find

    def slow(self: Index, *args: Any, **kwargs: Any) -> Any:
        if self.path == shard:
            time.sleep(0.5)
        return slow_find(self, *args, **kwargs)

    monkeypatch.setattr(Index, "find", slow)
    with ShardedIndex(str(db), read_only=True, timeout=0.05) as index:
        with pytest.raises(IndexFileError, match=r"shard 1 of 2 did not answer within") as e:
            index.find(board)
        assert e.value.file == shard
    monkeypatch.undo()
    # Damaged: a shard that is not an index.
    Path(shard).write_bytes(b"not an index at all" * 100)
    with pytest.raises(IndexFileError) as raised:
        ShardedIndex(str(db), read_only=True)
    assert raised.value.file == shard
    # Missing.
    os.remove(shard)
    with pytest.raises(IndexFileError, match=r"shard 1 of 2 is missing") as raised:
        open_index(str(db), read_only=True)
    assert raised.value.file == shard
    # A manifest that is not one.
    (db / MANIFEST).write_text('{"kind": "gohash-sharded-index", "format_version": 9}')
    with pytest.raises(IndexFileError, match=r"manifest format version 9"):
        open_index(str(db))


def test_each_shard_is_asked_in_a_thread_of_its_own_while_the_index_is_open(
    built: dict[int, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first shard is asked in the calling thread, the others each in a
    thread kept between queries, whose errors reach the caller as raised; the
    threads end when the index is closed, or collected unclosed."""
    board = Board.from_array(np.zeros((9, 9), dtype=np.int8))

    def shard_threads() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if t.name.startswith("gohash-shard-")}

    before = shard_threads()
    with ShardedIndex(built[7], read_only=True) as index:
        total = index.find(board).total
        started = shard_threads() - before
        assert sorted(t.name for t in started) == [f"gohash-shard-{i}" for i in range(1, 7)]
        failing_shard = index.shard_paths[3]
        find = Index.find

        def failing(self: Index, *args: Any, **kwargs: Any) -> Any:
            if self.path == failing_shard:
                raise GohashError("shard 3 refuses")
            return find(self, *args, **kwargs)

        monkeypatch.setattr(Index, "find", failing)
        with pytest.raises(GohashError, match="shard 3 refuses"):
            index.find(board)
        monkeypatch.undo()
        assert index.find(board).total == total
        assert shard_threads() - before == started
    for thread in started:
        thread.join(timeout=30)
        assert not thread.is_alive()
    unclosed = ShardedIndex(built[2], read_only=True)
    assert unclosed.find(board).total == total
    (thread,) = shard_threads() - before
    del unclosed
    gc.collect()
    thread.join(timeout=30)
    assert not thread.is_alive()


def test_unknown_game_ids_are_refused(built: dict[int, str]) -> None:
    with ShardedIndex(built[7], read_only=True) as sharded:
        with pytest.raises(UnknownGameError, match=r"no game with id 700000"):
            sharded.game(700000)
        with pytest.raises(UnknownGameError):
            sharded.sgf(-1)


def test_a_folder_that_is_no_sharded_index_is_refused(tmp_path: Path) -> None:
    (tmp_path / "other.txt").write_text("mine")
    with pytest.raises(IndexFileError, match="not a sharded index and not empty"):
        build_shards(str(tmp_path), _inputs(), shards=2)
    with pytest.raises(GohashError, match="give --shards N"):
        build_shards(str(tmp_path / "new"), _inputs())


# -- on a Dask cluster -----------------------------------------------------------------------


def test_a_dask_cluster_builds_and_searches_as_one_index(
    built: dict[int, str], tmp_path: Path
) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        db = str(tmp_path / "db")
        summary = build_shards(db, _inputs(), shards=3, dask=address).summary
        assert summary.files_indexed == len(_inputs())
        with Index(built[0], read_only=True) as single, ShardedIndex(
                db, read_only=True, dask=address) as sharded:
            _same_answers(single, sharded, queries=2, diagrams=2)
        # A shard gone after the index was opened: the worker that opened it
        # before sees it gone, and names it.
        with ShardedIndex(db, read_only=True, dask=address) as sharded:
            shard = sharded.shard_paths[2]
            os.remove(shard)
            with pytest.raises(IndexFileError, match="shard 2 of 3: no such index") as raised:
                sharded.find(Board(9))
            assert raised.value.file == shard


# -- served ----------------------------------------------------------------------------------


CORNER = "\n".join(["*****" + "-" * 14] * 3 + ["***X*" + "-" * 14] + ["*****" + "-" * 14]
                   + ["-" * 19] * 14)
"""A black stone on a 4-4 point, whatever is around it."""


def _served(db: str, dask_client: Any = None) -> dict[str, Any]:
    """What the server answers, every game id left out and the games by file and
    game (their ids differ)."""
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from gohash.explorer.app import create_app

    with TestClient(create_app(db, dask_client=dask_client),
                    base_url="http://localhost") as client:
        got = {path: client.get(path, params=params).json() for path, params in (
            ("/api/info", {}), ("/api/position", {"size": "9", "moves": "bee"}),
            ("/api/games", {"size": "19", "limit": "200"}),
            ("/api/pattern", {"diagram": CORNER, "limit": "200"}),
            ("/api/players", {"q": "a"}),
        )}
        for name in ("/api/games", "/api/pattern"):
            matches = got[name].pop("matches")
            got[name]["games"] = {
                (m["source"], m["game"], m["seq"]): client.get(
                    f"/api/game/{m.pop('game_id')}").json() | {"game_id": None}
                for m in matches}
        got["/api/position"].pop("games")
        player = got["/api/players"]["players"][0]["name"]
        answer = client.get("/api/player", params={"name": player, "limit": "200"}).json()
        records = answer["games"].pop("records")
        answer["games"]["records"] = sorted((r["source"], r["game"]) for r in records)
        got["/api/player"] = answer
        return got


def test_the_explorer_serves_a_sharded_index(built: dict[int, str]) -> None:
    one, sharded = _served(built[0]), _served(built[7])
    assert len(one["/api/games"]["games"]) == one["/api/games"]["total"] >= 3
    assert one["/api/pattern"]["total"] > 0
    assert one["/api/player"]["games"]["records"]
    assert sharded == one


def test_the_explorer_asks_the_shards_on_a_dask_cluster(
    built: dict[int, str], tmp_path: Path
) -> None:
    pytest.importorskip("distributed")
    from starlette.testclient import TestClient

    from gohash.explorer.app import create_app
    from gohash.pipeline.cluster import dask_client

    db = tmp_path / "db"
    shutil.copytree(built[2], db)
    with dask_client("local:1") as client:
        assert _served(str(db), client) == _served(built[0])
        # A shard lost while serving: the answer names it (not the file: the
        # server's paths are its own), and is no partial answer.
        with TestClient(create_app(str(db), dask_client=client),
                        base_url="http://localhost") as served:
            os.remove(Manifest.read(str(db)).paths(str(db))[1])
            answer = served.get("/api/games", params={"size": "19"})
            assert answer.status_code == 503
            assert answer.json()["error"].startswith("shard 1 of 2: no such index")


def test_the_server_names_a_slow_shard(
    built: dict[int, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from gohash.explorer import indexes
    from gohash.explorer.app import create_app

    shard = Manifest.read(built[2]).paths(built[2])[1]
    slow_find = Index.find

    def slow(self: Index, *args: Any, **kwargs: Any) -> Any:
        if self.path == shard:
            time.sleep(0.5)
        return slow_find(self, *args, **kwargs)

    monkeypatch.setattr(indexes, "SHARD_TIMEOUT", 0.05)
    monkeypatch.setattr(Index, "find", slow)
    with TestClient(create_app(built[2]), base_url="http://localhost") as served:
        answer = served.get("/api/games", params={"size": "19"})
    assert answer.status_code == 503
    assert answer.json() == {"error": "shard 1 of 2 did not answer within 0.05 s"}


def test_gohash_serve_asks_a_dask_cluster(
    built: dict[int, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed")
    pytest.importorskip("uvicorn")
    from starlette.testclient import TestClient

    from gohash.explorer import app as app_module

    assert main(["serve", built[0], "--port", "0", "--dask", "local:1"]) == 2
    assert "is not one (gohash index build --shards N makes one)" in capsys.readouterr().err
    # The server as the command makes it, asked once in place of serving.
    answers: list[dict[str, Any]] = []

    def ask_once(app: Any, sock: Any) -> None:
        sock.close()
        with TestClient(app, base_url="http://localhost") as client:
            answers.append(client.get("/api/games", params={"size": "19"}).json())

    monkeypatch.setattr(app_module, "run_app", ask_once)
    assert main(["serve", built[2], "--port", "0", "--dask", "local:1"]) == 0
    assert "its shards asked on local:1 (Ctrl-C stops)" in capsys.readouterr().err
    with Index(built[0], read_only=True) as single:
        assert answers[0]["total"] == single.find(Board(19), limit=0).total > 0


def test_upgrade_rebuilds_the_older_shards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    db = tmp_path / "db"
    build_shards(str(db), [str(p) for p in sorted(DATA.glob("*.sgf"))], shards=2)
    with ShardedIndex(str(db), read_only=True) as index:
        before = index.info().to_json(paths=False)
    old = Manifest.read(str(db)).paths(str(db))[1]
    with sqlite3.connect(old) as con:
        con.execute("PRAGMA user_version = 1")
    con.close()
    with pytest.raises(IndexFileError, match="schema version 1") as raised:
        open_index(str(db), read_only=True)
    assert raised.value.file == old
    assert main(["index", "upgrade", str(db)]) == 0
    with ShardedIndex(str(db), read_only=True) as index:
        assert index.info().to_json(paths=False) == before
    capsys.readouterr()
    assert main(["index", "upgrade", str(db)]) == 2
    assert "nothing to upgrade" in capsys.readouterr().err


def test_a_shard_that_cannot_be_built_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = [str(p) for p in sorted(DATA.glob("*.sgf"))]
    db = tmp_path / "db"
    assert main(["index", "build", str(db), *inputs[:2], "--shards", "2"]) == 0
    broken = Manifest.read(str(db)).paths(str(db))[shard_of(inputs[2], 2)]
    Path(broken).write_bytes(b"not an index" * 100)
    capsys.readouterr()
    assert main(["index", "build", str(db), inputs[2]]) == 2
    err = capsys.readouterr().err
    assert f"{broken}: shard {shard_of(inputs[2], 2)} not built: not an SQLite database" in err
    assert f"some shards of {db} not built: build again to complete them" in err
