"""Writing replayed files into a gohash index, for :meth:`gohash.index.index.Index.build`.

Scope: :class:`Writer`, which writes the :class:`~gohash.index.records.FileFrames`
of a build into the index's tables (schema and meaning: :mod:`gohash.index.store`)
in the build's transactions, and :class:`PositionIds`, which finds the
positions already stored.  What is written is what writing one file at a
time, in order, would write, ids included; only the number of statements
differs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..version import __version__
from .records import FileFrames, sql_keys
from .schema import INSERT_GAME

__all__ = ["STAGED_ROWS", "PositionIds", "Writer"]

STAGED_ROWS = 1 << 17
"""Positions and games staged at most before they are written: bounds the memory
of a transaction's staged rows (some 200 bytes a position, with its frame, and
some 500 a game)."""

IntArray = npt.NDArray[np.int64]


def _filters(keys: npt.NDArray[np.uint64]) -> IntArray:
    """The 64 bits of each key :class:`PositionIds` sorts by: a 64-bit key as the
    signed integer the index stores, the high word of a 128-bit key."""
    words = keys if keys.ndim == 1 else keys[:, 0]
    return np.ascontiguousarray(words).view(np.int64)


class PositionIds:
    """The ids of positions already stored, found by key and confirmed by frame.

    Candidates come from the index's key index (``positions_by_key``), one
    query a few hundred keys, or from a map in memory of every stored position's
    key (64 bits of it) to its id: sorted runs of numpy arrays, 16 bytes a
    position (16 MB a million; up to about three times that while two runs
    merge).  The map is used from the start if the index holds no positions,
    and is loaded once the build has looked up as many keys in the index as it
    holds positions: the queries so far cost about what loading does, so a
    build never pays much more than the cheaper way would have.  A map whose
    index another connection changed is dropped (:meth:`check_version`).

    Entries of positions deleted since (a replaced file's) stay in the map:
    their ids then hold another frame or none, and frames decide.
    """

    def __init__(self, db: sqlite3.Connection, wide: bool) -> None:
        self._db = db
        self._wide = wide
        self._runs: list[tuple[IntArray, IntArray]] | None = None
        self._budget = 0
        self._version = -1
        self.check_version()

    def check_version(self) -> None:
        """Drop the map if another connection changed the index since it was made
        (call it with the index locked, at the start of each transaction)."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version == self._version:
            return
        self._version = version
        stored = self._db.execute("SELECT coalesce(max(id), 0) FROM positions").fetchone()[0]
        self._runs = [] if stored == 0 else None
        self._budget = stored

    def resolve(
        self, keys: npt.NDArray[np.uint64], frames: list[bytes], next_id: int
    ) -> tuple[IntArray, npt.NDArray[np.intp]]:
        """The id of each row's position (``keys[i]``, ``frames[i]``), and the rows
        that are new positions (the first row of each frame not stored), whose ids
        are ``next_id`` on, in row order."""
        count = len(frames)
        filters = _filters(keys)
        unique, inverse, counts = np.unique(filters, return_inverse=True, return_counts=True)
        stored, stored_filters = self._stored(unique, keys)
        # Rows whose key no other row and no stored position has are new: only the
        # others need their frames compared.
        check = (counts > 1) | np.isin(unique, stored_filters)
        found_rows: list[int] = []
        found_ids: list[int] = []
        repeat_rows: list[int] = []
        repeat_of: list[int] = []
        first_row: dict[bytes, int] = {}
        for row in np.flatnonzero(check[inverse.reshape(-1)]).tolist():
            frame = frames[row]
            position_id = stored.get(frame)
            if position_id is not None:
                found_rows.append(row)
                found_ids.append(position_id)
            elif (first := first_row.setdefault(frame, row)) != row:
                repeat_rows.append(row)
                repeat_of.append(first)
        new = np.ones(count, dtype=np.bool_)
        new[found_rows] = False
        new[repeat_rows] = False
        new_rows = np.flatnonzero(new)
        ids = np.empty(count, dtype=np.int64)
        ids[new_rows] = np.arange(next_id, next_id + len(new_rows))
        ids[found_rows] = found_ids
        ids[repeat_rows] = ids[repeat_of]
        if self._runs is not None:
            self._add(filters[new_rows], ids[new_rows])
        return ids, new_rows

    def _stored(
        self, unique: IntArray, keys: npt.NDArray[np.uint64]
    ) -> tuple[dict[bytes, int], IntArray]:
        """The stored positions that may be those of ``keys`` (``unique``: their
        distinct filters): their ids by frame, and their filters."""
        if self._runs is None:
            self._budget -= len(unique)
            found = self._query_keys(keys)
            if self._budget <= 0:
                self._load()
            return found
        filters, ids = self._candidates(unique)
        by_frame: dict[bytes, int] = {}
        chunk = 500
        id_list = ids.tolist()
        for start in range(0, len(id_list), chunk):
            part = id_list[start : start + chunk]
            by_frame.update(
                (frame, position_id) for position_id, frame in self._db.execute(
                    f"SELECT id, frame FROM positions WHERE id IN ({','.join('?' * len(part))})",
                    part,
                )
            )
        return by_frame, filters

    def _query_keys(self, keys: npt.NDArray[np.uint64]) -> tuple[dict[bytes, int], IntArray]:
        """The stored positions of the keys of ``keys``, from the key index."""
        distinct = sql_keys(np.unique(keys, axis=0) if self._wide else np.unique(keys))
        by_frame: dict[bytes, int] = {}
        filters: list[int] = []
        for start in range(0, len(distinct), 500):
            chunk = distinct[start : start + 500]
            for position_id, key, frame in self._db.execute(
                f"SELECT id, key, frame FROM positions WHERE key IN ({','.join('?' * len(chunk))})",
                chunk,
            ):
                by_frame[frame] = position_id
                filters.append(
                    int.from_bytes(key[:8], "big", signed=True) if self._wide else key
                )
        return by_frame, np.array(filters, dtype=np.int64)

    def _candidates(self, unique: IntArray) -> tuple[IntArray, IntArray]:
        """The filters and ids of the map's entries whose filter is in ``unique``."""
        assert self._runs is not None
        filters: list[IntArray] = []
        ids: list[IntArray] = []
        for run_filters, run_ids in self._runs:
            low = np.searchsorted(run_filters, unique, side="left")
            hit = np.flatnonzero(run_filters[np.minimum(low, len(run_filters) - 1)] == unique)
            if not len(hit):
                continue
            # Every entry from low to high of each filter hit (one, unless keys collide).
            counts = np.searchsorted(run_filters, unique[hit], side="right") - low[hit]
            firsts = np.cumsum(counts) - counts
            at = np.repeat(low[hit] - firsts, counts) + np.arange(int(counts.sum()))
            filters.append(run_filters[at])
            ids.append(run_ids[at])
        if not filters:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(filters), np.concatenate(ids)

    def _add(self, filters: IntArray, ids: IntArray) -> None:
        """New entries, as one more sorted run; runs of comparable size merge, so a
        map of n entries has at most about log2(n) runs."""
        assert self._runs is not None
        if not len(filters):
            return
        order = np.argsort(filters, kind="stable")
        self._runs.append((filters[order], ids[order]))
        while len(self._runs) > 1 and len(self._runs[-2][0]) <= 2 * len(self._runs[-1][0]):
            (a_filters, a_ids), (b_filters, b_ids) = self._runs[-2:]
            merged = np.concatenate([a_filters, b_filters])
            order = np.argsort(merged, kind="stable")
            self._runs[-2:] = [(merged[order], np.concatenate([a_ids, b_ids])[order])]

    def _load(self) -> None:
        """The map, from every stored position."""
        column = "substr(key, 1, 8)" if self._wide else "key"
        cursor = self._db.execute(f"SELECT {column}, id FROM positions")
        filters: list[IntArray] = []
        ids: list[IntArray] = []
        while rows := cursor.fetchmany(1 << 16):
            keys, row_ids = zip(*rows, strict=True)
            filters.append(
                np.frombuffer(b"".join(keys), dtype=">i8").astype(np.int64) if self._wide
                else np.array(keys, dtype=np.int64)
            )
            ids.append(np.array(row_ids, dtype=np.int64))
        self._runs = []
        if filters:
            self._add(np.concatenate(filters), np.concatenate(ids))


class Writer:
    """Writes the files of a build into the index, in transactions it begins and commits.

    ``delete_file(file_id)`` removes an indexed file's rows (those of
    :meth:`gohash.index.index.Index.remove`); ``suicide`` is the build's suicide rule
    and ``parse_version`` its replay's version, as the files table stores them;
    ``wide`` says the keys are 128-bit.
    """

    def __init__(
        self, db: sqlite3.Connection, *, suicide: bool | None, parse_version: int, wide: bool,
        delete_file: Callable[[int], None],
    ) -> None:
        self._db = db
        self._suicide = suicide
        self._parse_version = parse_version
        self._delete_file = delete_file
        self._ids = PositionIds(db, wide)
        self._staged: list[tuple[FileFrames, list[int]]] = []
        self._rows = 0
        self._new_positions = 0
        self._file_id = 0  # the file whose parts are being written

    def begin(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        self._ids.check_version()

    def commit(self) -> int:
        """Write what is staged and commit; the new distinct positions the
        transaction wrote."""
        self.flush()
        self._db.execute("COMMIT")
        new, self._new_positions = self._new_positions, 0
        return new

    def write(self, item: FileFrames) -> str | None:
        """Write (stage) one file, replacing the file of its path if indexed: that
        file's SHA-256, None if there was none.  A part after the first
        (:attr:`FileFrames.part`) adds its games to the file of the part before,
        written in the same transaction, and returns None."""
        db = self._db
        old = None
        if item.part:
            file_id = self._file_id
            db.execute("UPDATE files SET games = games + ? WHERE id = ?",
                       (len(item.games), file_id))
        else:
            old = db.execute(
                "SELECT id, sha256 FROM files WHERE path = ?", (item.path,)
            ).fetchone()
            if old is not None:
                # The staged rows first: the old file's positions that no other
                # occurrence uses go, and staged rows may be using them.
                self.flush()
                self._delete_file(old[0])
            new_id = db.execute(
                "INSERT INTO files (path, sha256, games, gohash_version, parse_version, "
                "suicide) VALUES (?, ?, ?, ?, ?, ?)",
                (item.path, item.sha256, len(item.games), __version__, self._parse_version,
                 self._suicide),
            ).lastrowid
            assert new_id is not None
            file_id = self._file_id = new_id
        game_ids = []
        for game in item.games:
            game_id = db.execute(
                INSERT_GAME,
                (file_id, game.game, game.size, game.black, game.white, game.result,
                 game.sha256, game.main, game.moves, game.error, *game.explorer_columns()),
            ).lastrowid
            assert game_id is not None
            game_ids.append(game_id)
            if game.lines:
                db.executemany(
                    "INSERT INTO variations (game_id, seq, parent, path) VALUES (?, ?, ?, ?)",
                    [(game_id, seq, parent, path) for seq, parent, path in game.lines],
                )
        if item.errors:
            db.executemany(
                "INSERT INTO errors (file_id, game, move, message) VALUES (?, ?, ?, ?)",
                [(file_id, e.game, e.move, e.message) for e in item.errors],
            )
        self._staged.append((item, game_ids))
        self._rows += len(item.frames) + len(item.games)
        if self._rows >= STAGED_ROWS:
            self.flush()
        return None if old is None else str(old[1])

    def flush(self) -> None:
        """Write the positions and occurrences of the staged files."""
        if not self._staged:
            return
        staged, self._staged, self._rows = self._staged, [], 0
        items = [item for item, _ in staged]
        frames = [frame for item in items for frame in item.frames]
        if not frames:
            return
        db = self._db
        # Files without rows hold keys of shape (0,) whatever the scheme.
        keys = np.concatenate([item.keys for item in items if len(item.frames)])
        next_id = db.execute("SELECT coalesce(max(id), 0) + 1 FROM positions").fetchone()[0]
        ids, new_rows = self._ids.resolve(keys, frames, next_id)
        db.executemany(
            "INSERT INTO positions (id, key, frame) VALUES (?, ?, ?)",
            zip(ids[new_rows].tolist(), sql_keys(keys[new_rows]),
                [frames[row] for row in new_rows.tolist()], strict=True),
        )
        self._new_positions += len(new_rows)
        # Each game's rows, as (first row, end, game id) in the staged columns.
        spans = []
        base = 0
        for item, game_ids in staged:
            spans += [(base + game.start, base + game.end, game_id)
                      for game, game_id in zip(item.games, game_ids, strict=True)]
            base += len(item.frames)
        starts, ends, game_id = np.array(spans, dtype=np.int64).reshape(-1, 3).T
        counts = ends - starts
        firsts = np.cumsum(counts) - counts
        seq = np.arange(int(counts.sum())) - np.repeat(firsts, counts)
        rows = np.repeat(starts, counts) + seq

        def column(name: str) -> npt.NDArray[np.generic]:
            values = np.concatenate([getattr(item, name) for item in items])
            taken: npt.NDArray[np.generic] = values[rows]
            return taken

        colour = column("next_colour")
        point = column("next_point").astype(object)
        point[colour == 0] = None
        db.executemany(
            "INSERT INTO occurrences (game_id, seq, move, position_id, element, to_move, "
            "next_colour, next_point) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            zip(np.repeat(game_id, counts).tolist(), seq.tolist(), column("moves").tolist(),
                ids[rows].tolist(), column("elements").tolist(), column("to_move").tolist(),
                colour.tolist(), point.tolist(), strict=True),
        )
