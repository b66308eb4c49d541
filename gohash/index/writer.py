"""Writing replayed files into a gohash index, for :meth:`gohash.index.index.Index.build`.

Scope: :class:`Writer`, which writes the :class:`~gohash.index.records.FileFrames`
of a build into the index's tables (schema and meaning: :mod:`gohash.index.schema`)
in the build's transactions: files, games (with their stored form), errors
and variations as they come; postings staged and appended to the postings
file (:mod:`gohash.index.postings`) as a sorted run, before the commit of
their games.
What is written is what writing one file at a time, in order, would write,
ids included; only the number of statements differs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..version import __version__
from .aggregates import Aggregates
from .postings import PostingsFile
from .records import FileFrames
from .schema import INSERT_GAME

__all__ = ["STAGED_ROWS", "Writer"]

STAGED_ROWS = 1 << 20
"""Postings staged at most before they are written as a sorted run: 24 bytes
each (what bounds the memory they take)."""


class Writer:
    """Writes the files of a build into the index, in transactions it begins and commits.

    ``delete_file(file_id)`` removes an indexed file's rows (those of
    :meth:`gohash.index.index.Index.remove`); ``suicide`` is the build's suicide rule
    and ``parse_version`` its replay's version, as the files table stores them;
    ``aggregates`` counts the postings written into the aggregates of their
    positions (:mod:`gohash.index.aggregates`) and settles them before a commit.
    Postings go to ``postings``, each flush's a run, always before the commit
    of their games; a game's id is greater than any the postings file or the
    games table holds, so the postings of a game removed, or of a transaction
    that never committed, are never taken for another game's.
    """

    def __init__(
        self, db: sqlite3.Connection, postings: PostingsFile, *, suicide: bool | None,
        parse_version: int, delete_file: Callable[[int], None], aggregates: Aggregates,
    ) -> None:
        self._db = db
        self._postings = postings
        self._next_id = 0
        self._aggregates = aggregates
        self._suicide = suicide
        self._parse_version = parse_version
        self._delete_file = delete_file
        self._staged: list[tuple[npt.NDArray[np.int64], int]] = []  # a game's keys, its id
        self._rows = 0
        self._file_id = 0  # the file whose parts are being written

    def begin(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        held = self._db.execute("SELECT coalesce(max(id), 0) FROM games").fetchone()[0]
        self._next_id = max(held, self._postings.max_id()) + 1

    def commit(self) -> int:
        """Write what is staged and commit; the postings the transaction wrote."""
        written = self.flush()
        self._aggregates.settle()
        self._db.execute("COMMIT")
        return written

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
                # The staged postings first: they may be the old file's.
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
            record = game.record
            empty = bytes((game.size * game.size + 7) // 8)
            game_id = self._next_id
            self._next_id += 1
            db.execute(
                INSERT_GAME,
                (game_id, file_id, game.game, game.size, game.black, game.white, game.result,
                 game.sha256, game.main, game.moves, game.error, *game.explorer_columns(),
                 *((0, b"", empty, empty) if record is None else
                   (record.nodes, record.blob, record.ever_black, record.ever_white))),
            )
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
        for game, game_id in zip(item.games, game_ids, strict=True):
            self._staged.append((item.keys[game.start : game.end], game_id))
            self._rows += game.end - game.start
        if self._rows >= STAGED_ROWS:
            self.flush()
        return None if old is None else str(old[1])

    def flush(self) -> int:
        """Append the staged postings to the postings file as a sorted run; how many."""
        if not self._staged:
            return 0
        staged, self._staged, self._rows = self._staged, [], 0
        counts = np.array([len(keys) for keys, _ in staged], dtype=np.int64)
        ids = np.array([game_id for _, game_id in staged], dtype=np.int64)
        keys = np.concatenate([keys for keys, _ in staged])
        games = np.repeat(ids, counts)
        seqs = np.arange(len(keys)) - np.repeat(np.cumsum(counts) - counts, counts)
        self._aggregates.added(keys, games, seqs)
        self._aggregates.noted(keys, seqs, len(staged))
        self._postings.append(ids, keys, games, seqs)
        return len(keys)
