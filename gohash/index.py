"""A position index of SGF collections in SQLite: search up to symmetry, find duplicate games.

Scope: the database (schema, versioning, opening and checking it), building it
from SGF files (incremental, whole files per transaction; files are replayed into
frames by :mod:`gohash.indexing`, optionally in worker processes, and written by
:mod:`gohash.writer`), the exact
position search with its filters and the continuations of a position (their
semantics and results are :mod:`gohash.explorer`'s), reading an indexed game
again, and duplicate and prefix detection.  The command line
(:mod:`gohash.cli.index`) only parses arguments and prints.

Exactness.  Every position is stored once per class under G = D4 x colour swap,
as its canonical key and its frame, a canonical form of the class
(:mod:`gohash.frames`): two positions are images of each other iff their keys
and frames are equal.  A query compares frames byte for byte; positions that
only share a key are counted as rejected and never returned.  Position ids are
therefore exact too, and duplicate games are found by comparing sequences of ids.

Keys are stored as SQLite INTEGERs: an unsigned 64-bit key ``k`` is stored as
the signed ``k - 2**64`` when ``k >= 2**63`` (the bits of ``k`` read as int64).
128-bit keys (``regular128``) are stored as 16-byte big-endian BLOBs.

Positions are the stones only: the side to move is not part of them.  Only
the main line of each game is indexed, unless the index was created with
``variations=True`` (``gohash index build --variations``, kept in the meta
table as ``variations``): then a game's occurrences hold its main line first
(``seq`` below ``games.positions``), then each other variation in the
walker's order, each a run of consecutive ``seq`` whose first row, the seq
of the position it branches from (``parent``) and its path (``"1.0"``, as
:attr:`gohash.walk.PositionEvent.variation` names it) are a row of the
``variations`` table.  Duplicate games are found on main lines only.

Each file row records the gohash that indexed it (``gohash_version``) and the
:data:`~gohash.indexing.PARSE_VERSION` of its replay; a build re-reads every
file it is given whose parse version is not the running one's, so an index
follows changes in how gohash reads records.

Each occurrence also stores the side to move and the game's next move on the
main line (colour as recorded, point in the frame's orientation); each game
what its root says (players, ranks, date, result, event, komi, handicap).

Versions: the schema version is the database's ``user_version``; an index of
another version is refused with a message to rebuild it.  Version 1 had no
explorer columns, no variations and no parse versions.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Concatenate, ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt

from .board import Board
from .coords import check_position_array
from .errors import GohashError, counted
from .explorer import (
    Continuation,
    ContinuationRow,
    Continuations,
    Filters,
    FindResult,
    GamePosition,
    GameRecord,
    Match,
    QueryView,
    Record,
    contains,
    merge_continuations,
    read_game,
)
from .frames import Board8, NamedSchemes, SchemeFactory, frame_and_elements
from .indexing import (
    PARSE_VERSION,
    FileFrames,
    SourceError,
    Task,
    input_frames,
    sql_keys,
)
from .pool import MAX_TASKS_PER_BATCH, WorkerDied, batches, ordered_map
from .schemes import SCHEMES, KeyScheme, scheme
from .sgf import Input, find_inputs, read_input
from .symmetry import ELEMENTS, Element, check_size
from .version import __version__
from .walk import BaseVisitor, GameInfo, PositionEvent, walk_source
from .writer import Writer

__all__ = [
    "SCHEMA_VERSION",
    "BuildSummary",
    "Continuation",
    "Continuations",
    "DupeGroup",
    "Dupes",
    "Filters",
    "FindResult",
    "GamePosition",
    "GameRecord",
    "Index",
    "IndexFileError",
    "IndexInfo",
    "Match",
    "Prefix",
    "Record",
    "Removed",
    "UnknownGameError",
    "position_from_sgf",
]

SCHEMA_VERSION = 2
COMMIT_SECONDS = 1.0
"""A build commits the files it wrote once a transaction is this old: each commit
writes every page it dirtied (keys are random, so each file dirties a few
hundred pages of the key index), and files of a second share most of them:
one transaction per file made the database 90% of a build's time."""
APPLICATION_ID = 0x67686978  # "ghix": marks an SQLite file as a gohash index
SQLITE_HEADER = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    sha256 TEXT NOT NULL,
    games INTEGER NOT NULL,
    gohash_version TEXT NOT NULL,
    parse_version INTEGER NOT NULL,
    suicide INTEGER
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id),
    game INTEGER NOT NULL,
    size INTEGER NOT NULL,
    black TEXT,
    white TEXT,
    result TEXT,
    sha256 TEXT NOT NULL,
    positions INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    error TEXT,
    black_rank TEXT,
    white_rank TEXT,
    black_level INTEGER,
    white_level INTEGER,
    dt TEXT,
    date TEXT,
    event TEXT,
    komi REAL,
    handicap INTEGER NOT NULL,
    winner TEXT,
    UNIQUE (file_id, game)
);
CREATE TABLE errors (
    file_id INTEGER NOT NULL REFERENCES files(id),
    game INTEGER,
    move INTEGER,
    message TEXT NOT NULL
);
CREATE INDEX errors_by_file ON errors (file_id);
CREATE TABLE positions (
    id INTEGER PRIMARY KEY,
    key NOT NULL,
    frame BLOB NOT NULL
);
CREATE INDEX positions_by_key ON positions (key);
CREATE TABLE occurrences (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    move INTEGER NOT NULL,
    position_id INTEGER NOT NULL REFERENCES positions(id),
    element INTEGER NOT NULL,
    to_move INTEGER NOT NULL,
    next_colour INTEGER NOT NULL,
    next_point INTEGER,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE INDEX occurrences_by_position ON occurrences
    (position_id, game_id, seq, move, element, to_move, next_colour, next_point);
CREATE TABLE variations (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    parent INTEGER NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
"""
# Every column of occurrences is in occurrences_by_position: searches and
# continuations read the index alone, never the table.


class UnknownGameError(GohashError):
    """A game id that is not in the index."""


class IndexFileError(GohashError):
    """A database path that is missing, not SQLite, not a gohash index, of another
    schema version, or built with another key scheme."""


# -- results ---------------------------------------------------------------------------------


@dataclass
class BuildSummary:
    """What one build did; ``errors`` are the messages of the files indexed this time,
    ``notes`` say what went wrong but was recovered (a worker process died)."""

    files_indexed: int = 0
    files_unchanged: int = 0
    files_replaced: int = 0
    files_reread: int = 0  # unchanged, but indexed under another parse version
    games: int = 0
    positions: int = 0
    new_positions: int = 0
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, other: BuildSummary) -> None:
        self.files_indexed += other.files_indexed
        self.files_unchanged += other.files_unchanged
        self.files_replaced += other.files_replaced
        self.files_reread += other.files_reread
        self.games += other.games
        self.positions += other.positions
        self.new_positions += other.new_positions
        self.errors += other.errors
        self.notes += other.notes

    def __str__(self) -> str:
        reread = (
            f", {self.files_reread} re-read for this gohash" if self.files_reread else ""
        )
        return (
            f"{counted(self.files_indexed, 'file')} indexed ({self.files_replaced} replaced"
            f"{reread}), {self.files_unchanged} unchanged; {counted(self.games, 'game')}, "
            f"{counted(self.positions, 'position')} ({self.new_positions} new distinct); "
            f"{counted(len(self.errors), 'error')}"
        )


@dataclass(frozen=True)
class DupeGroup:
    """Records with the same sequence of positions up to symmetry; ``elements[i]``
    maps the last position of ``records[0]`` to that of ``records[i]``."""

    records: tuple[Record, ...]
    elements: tuple[Element, ...]
    positions: int


@dataclass(frozen=True)
class Prefix:
    """Every record of ``shorter`` is a proper prefix of every record of ``longer``."""

    shorter: DupeGroup
    longer: DupeGroup


@dataclass
class Dupes:
    groups: list[DupeGroup]
    prefixes: list[Prefix]


@dataclass
class IndexInfo:
    """What an index holds and how it was built.

    ``positions`` counts occurrences (a position seen twice counts twice),
    ``distinct`` the positions up to symmetry; ``gohash_versions`` gives the
    files per gohash version that indexed them, and ``outdated`` the files
    indexed under another parse version, which a build given them re-reads.
    """

    path: str
    schema_version: int
    scheme: str
    variations: bool
    files: int
    games: int
    positions: int
    distinct: int
    errors: int
    gohash_versions: dict[str, int]
    outdated: int


@dataclass
class Removed:
    """What :meth:`Index.remove` removed: files by path, and their games; ``missing``
    are the paths given that matched no file of the index."""

    files: list[str] = field(default_factory=list)
    games: int = 0
    missing: list[str] = field(default_factory=list)


# -- the database ----------------------------------------------------------------------------


def _connect(path: str, read_only: bool = False) -> sqlite3.Connection:
    try:
        if read_only:
            # One connection serves a web server's threads, which serialise their use.
            uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
            db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        else:
            db = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error as e:
        raise IndexFileError(f"cannot open the index: {e}", file=path) from None
    db.create_function("gohash_contains", 2, contains, deterministic=True)
    return db


def _check_sqlite_file(path: str) -> bool:
    """True if ``path`` holds an SQLite database, False if it is empty; raise otherwise."""
    try:
        with open(path, "rb") as f:
            header = f.read(len(SQLITE_HEADER))
    except IsADirectoryError:
        raise IndexFileError("a folder, not an index", file=path) from None
    except OSError as e:
        raise IndexFileError(f"cannot read the index: {e.strerror}", file=path) from None
    if not header:
        return False
    if header != SQLITE_HEADER:
        raise IndexFileError(
            f"not an SQLite database (it starts with {header[:8]!r})", file=path
        )
    return True


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _database_errors(
    method: Callable[Concatenate[Index, _P], _R],
) -> Callable[Concatenate[Index, _P], _R]:
    """Report SQLite's errors on an open index (locked, damaged, disk full) as IndexFileError."""

    @functools.wraps(method)
    def wrapper(self: Index, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as e:
            raise IndexFileError(f"cannot use the index: {e}", file=self.path) from None

    return wrapper


class Index:
    """A gohash position index in an SQLite file.

    ``Index(path)`` opens an existing index; ``Index(path, create=True)`` also
    creates one (with ``scheme``, default ``huima64``) if the file is missing or
    empty.  ``scheme`` may instead be a factory from board size to
    :class:`~gohash.schemes.KeyScheme`, for experiments with other key tables
    (it must be picklable for ``jobs > 1``); the index records its ``name``.
    ``variations=True`` makes a new index store every variation's positions;
    an existing index keeps what it was created with (None), and asking it for
    the other is an error, as for the scheme.
    ``read_only=True`` opens an existing index for searching only (SQLite's
    ``mode=ro``), on a connection any thread may use, one at a time.
    Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = False,
        scheme: str | SchemeFactory | None = None,
        variations: bool | None = None,
        read_only: bool = False,
    ) -> None:
        if create and read_only:
            raise GohashError("an index cannot be created read-only")
        self.path = os.fspath(path)
        exists = os.path.exists(self.path)
        if not exists and not create:
            raise IndexFileError("no such index (gohash index build creates one)", file=self.path)
        initialised = exists and _check_sqlite_file(self.path)
        if not initialised and not create:
            raise IndexFileError("an empty file, not a gohash index", file=self.path)
        self._db = _connect(self.path, read_only)
        try:
            if initialised:
                factory = self._check_existing(scheme)
                self.variations = self._meta("variations") == "1"
                if variations is not None and variations != self.variations:
                    built = "with" if self.variations else "without"
                    raise IndexFileError(
                        f"index built {built} variations; build a new index to change that",
                        file=self.path,
                    )
            else:
                factory = _factory(scheme if scheme is not None else "huima64")
                self.variations = bool(variations)
                self._create(_scheme_name(factory))
            # In WAL mode NORMAL syncs at checkpoints only: a killed build still keeps
            # every committed file, and only a power failure can lose the last ones.
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute("PRAGMA cache_size = -262144")
            self._db.execute("PRAGMA temp_store = MEMORY")
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise IndexFileError(f"not a usable SQLite database: {e}", file=self.path) from None
        except BaseException:
            self._db.close()
            raise
        self._factory = factory
        self.scheme_name = _scheme_name(factory)

    def _check_existing(self, requested: str | SchemeFactory | None) -> SchemeFactory:
        app = self._db.execute("PRAGMA application_id").fetchone()[0]
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if app != APPLICATION_ID:
            raise IndexFileError(
                f"an SQLite database but not a gohash index (application_id {app:#x})",
                file=self.path,
            )
        if version != SCHEMA_VERSION:
            raise IndexFileError(
                f"index schema version {version}; this gohash reads version "
                f"{SCHEMA_VERSION} only: rebuild it with `gohash index build` (into "
                "another path, or after removing this file)",
                file=self.path,
            )
        stored = self._meta("scheme")
        if requested is None:
            return _factory(stored)
        factory = _factory(requested)
        if _scheme_name(factory) != stored:
            raise IndexFileError(
                f"index built with key scheme {stored!r}, not {_scheme_name(factory)!r}",
                file=self.path,
            )
        return factory

    def _create(self, scheme_name: str) -> None:
        db = self._db
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("BEGIN")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.executemany(
            "INSERT INTO meta (name, value) VALUES (?, ?)",
            [("scheme", scheme_name), ("variations", str(int(self.variations))),
             ("gohash_version", __version__)],
        )
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")

    def _meta(self, name: str) -> str:
        row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise IndexFileError(f"index has no {name!r} entry in its meta table", file=self.path)
        return str(row[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def keys(self, size: int) -> KeyScheme:
        """The key scheme of the index for one board size."""
        return self._factory(check_size(size))

    @_database_errors
    def counts(self) -> dict[str, int]:
        """Rows per table: files, games, positions (distinct), occurrences."""
        return {
            table: self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("files", "games", "positions", "occurrences")
        }

    @_database_errors
    def info(self) -> IndexInfo:
        """What the index holds and how it was built (:class:`IndexInfo`)."""
        db = self._db
        counts = self.counts()
        versions = dict(db.execute(
            "SELECT gohash_version, count(*) FROM files GROUP BY gohash_version ORDER BY 1"
        ))
        outdated = db.execute(
            "SELECT count(*) FROM files WHERE parse_version != ?", (PARSE_VERSION,)
        ).fetchone()[0]
        errors = db.execute("SELECT count(*) FROM errors").fetchone()[0]
        return IndexInfo(
            self.path, SCHEMA_VERSION, self.scheme_name, self.variations, counts["files"],
            counts["games"], counts["occurrences"], counts["positions"], errors, versions,
            outdated,
        )

    @_database_errors
    def remove(self, paths: Iterable[str]) -> Removed:
        """Remove the files of ``paths`` from the index, in one transaction: a path
        as ``build`` was given it names the file of that path, every file under a
        folder, or every member of an archive; the positions no other game has
        go too."""
        db = self._db
        removed = Removed()
        db.execute("BEGIN IMMEDIATE")
        try:
            for path in paths:
                name = path if path == "-" else os.path.normpath(path)
                found = db.execute(
                    "SELECT id, path, games FROM files WHERE path = ?1 "
                    "OR substr(path, 1, length(?1) + 1) IN (?1 || ?2, ?1 || ':') ORDER BY path",
                    (name, os.sep),
                ).fetchall()
                if not found:
                    removed.missing.append(path)
                for file_id, file, games in found:
                    self._delete_file(file_id)
                    removed.files.append(file)
                    removed.games += games
            db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
        return removed

    def sizes(self) -> dict[int, int]:
        """Games per board size."""
        return dict(self._db.execute("SELECT size, count(*) FROM games GROUP BY size"))

    # -- building ----------------------------------------------------------------------------

    @_database_errors
    def build(
        self,
        paths: Iterable[str],
        *,
        jobs: int = 1,
        files_per_commit: int | None = None,
        progress: Callable[[int, int], object] | None = None,
        suicide_allowed: bool | None = None,
    ) -> BuildSummary:
        """Index every SGF file of ``paths`` (files, folders, archives, ``-``).

        A file already indexed with the same SHA-256 is skipped; a changed one
        replaces its games.  Whole files are written in one transaction, by
        default those of about a second (:data:`COMMIT_SECONDS`), or each
        ``files_per_commit`` files: an interrupted build leaves a consistent
        index that lacks at most the files of the last transaction, and
        running it again completes it.  ``jobs`` worker processes read and replay the files;
        this process writes.  If a worker dies, the inputs in hand are retried
        one at a time (a note says so); one whose retry kills its worker again
        is an error.  ``progress(done, total)`` is called after each input.
        ``suicide_allowed`` holds for every game replayed if given, else each
        game's ``RU`` decides; files skipped as unchanged are not replayed again.
        A file indexed under another parse version
        (:data:`~gohash.indexing.PARSE_VERSION`) is replayed even if unchanged.
        """
        if files_per_commit is not None and files_per_commit < 1:
            raise GohashError(f"files per commit must be at least 1, not {files_per_commit!r}")
        db = self._db
        # Each file dirties a few hundred pages of the key index (keys are random);
        # checkpointing them into the database every 1000 pages (the default)
        # costs more than the whole build.  A WAL of up to 256 MiB costs only disk
        # space while building; it is folded back at the end.
        db.execute("PRAGMA wal_autocheckpoint = 65536")
        known: dict[str, str] = dict(db.execute(
            "SELECT path, sha256 FROM files WHERE parse_version = ?", (PARSE_VERSION,)
        ))
        # Files are known by path as found: "./games/" and "games" must be one path.
        normalised = [path if path == "-" else os.path.normpath(path) for path in paths]
        tasks = list(_tasks(normalised, known, self.scheme_name, suicide_allowed))
        replay = functools.partial(
            input_frames, factory=self._factory, suicide_allowed=suicide_allowed,
            variations=self.variations,
        )
        summary = BuildSummary()
        written = BuildSummary()  # files written in the open transaction
        writer = Writer(db, suicide=suicide_allowed, parse_version=PARSE_VERSION,
                        wide=self.keys(19).bits == 128, delete_file=self._delete_file)
        began = 0.0
        try:
            for done, results in enumerate(
                _prepared(tasks, replay, jobs, summary.notes.append), 1
            ):
                for item in results:
                    if isinstance(item, SourceError):
                        summary.errors.append(item.message)
                    elif item.unchanged:
                        summary.files_unchanged += 1
                    else:
                        if not db.in_transaction:
                            writer.begin()
                            began = time.monotonic()
                        self._write(item, written, writer)
                        if (written.files_indexed >= files_per_commit
                                if files_per_commit is not None
                                else time.monotonic() - began >= COMMIT_SECONDS):
                            written.new_positions += writer.commit()
                            summary.add(written)
                            written = BuildSummary()
                if progress is not None:
                    progress(done, len(tasks))
            if db.in_transaction:
                written.new_positions += writer.commit()
                summary.add(written)
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return summary

    @staticmethod
    def _write(item: FileFrames, summary: BuildSummary, writer: Writer) -> None:
        """Replace the file's games, within the open transaction."""
        old_sha = writer.write(item)
        if old_sha is not None:
            if old_sha == item.sha256:
                summary.files_reread += 1
            else:
                summary.files_replaced += 1
        summary.files_indexed += 1
        summary.games += len(item.games)
        summary.positions += sum(game.end - game.start for game in item.games)
        summary.errors += [e.message for e in item.errors]

    def _delete_file(self, file_id: int) -> None:
        db = self._db
        games = "SELECT id FROM games WHERE file_id = ?"
        touched = db.execute(
            f"SELECT DISTINCT position_id FROM occurrences WHERE game_id IN ({games})", (file_id,)
        ).fetchall()
        db.execute(f"DELETE FROM occurrences WHERE game_id IN ({games})", (file_id,))
        db.executemany(
            "DELETE FROM positions WHERE id = ?1 AND NOT EXISTS "
            "(SELECT 1 FROM occurrences WHERE position_id = ?1)",
            touched,
        )
        db.execute(f"DELETE FROM variations WHERE game_id IN ({games})", (file_id,))
        for table, column in (("errors", "file_id"), ("games", "file_id"), ("files", "id")):
            db.execute(f"DELETE FROM {table} WHERE {column} = ?", (file_id,))

    # -- searching -----------------------------------------------------------------------------

    def _lookup(
        self, position: Board | npt.ArrayLike
    ) -> tuple[int, int, list[Element], int | None, int]:
        """The query's size, key, the elements mapping it onto its frame (lowest
        first), the id of its frame in the index (None: absent) and how many
        positions share its key with other stones."""
        arr = _position_array(position)
        keys = self.keys(arr.shape[0])
        key, frame, onto = frame_and_elements(arr, keys)
        rows = self._db.execute(
            "SELECT id, frame FROM positions WHERE key = ?", sql_keys(keys.from_ints([key]))
        ).fetchall()
        ids = [position_id for position_id, stored in rows if stored == frame]
        return arr.shape[0], key, onto, (ids[0] if ids else None), len(rows) - len(ids)

    @staticmethod
    def _where(position_id: int, view: QueryView, filters: Filters | None) -> tuple[str, list[Any]]:
        """The condition on occurrences ``o`` and games ``g`` that picks the
        occurrences of the query seen through ``view`` in the games ``filters``
        let through."""
        matching, params = view.condition()
        where = f"o.position_id = ? AND {matching}"
        params = [position_id, *params]
        if filters is not None:
            condition, more = filters.sql("g")
            where += f" AND {condition}"
            params += more
        return where, params

    @_database_errors
    def find(
        self,
        position: Board | npt.ArrayLike,
        *,
        colour_swap: bool = True,
        limit: int | None = 100,
        offset: int = 0,
        filters: Filters | None = None,
        to_move: str | None = None,
    ) -> FindResult:
        """Every occurrence of ``position`` (a Board or an (N, N) array) up to symmetry
        and, unless ``colour_swap`` is False, colour exchange; confirmed exactly.

        Occurrences come in index order (file, game, move); ``limit`` (None: all)
        and ``offset`` page through them, and ``total`` counts them all.
        ``filters`` keep the games they let through (:class:`Filters`);
        ``to_move`` (``'b'``/``'w'``) the occurrences with that side to move,
        in the query's colours.
        """
        size, key, onto, position_id, rejected = self._lookup(position)
        view = QueryView(onto, size, colour_swap=colour_swap, to_move=to_move)
        if position_id is None:
            return FindResult(key, 0, [], offset, limit, rejected)
        where, params = self._where(position_id, view, filters)
        join = "JOIN games g ON g.id = o.game_id" if filters is not None else ""
        total = self._db.execute(
            f"SELECT count(*) FROM occurrences o {join} WHERE {where}", params
        ).fetchone()[0]
        matches = []
        for seq, move, stored, stored_to_move, next_colour, next_point, line, *record in (
            self._db.execute(
                f"SELECT o.seq, o.move, o.element, o.to_move, o.next_colour, o.next_point, "
                f"{_LINE}, {_RECORD_COLUMNS} FROM occurrences o "
                f"JOIN games g ON g.id = o.game_id JOIN files f ON f.id = g.file_id "
                f"WHERE {where} ORDER BY o.game_id, o.seq LIMIT ? OFFSET ?",
                [*params, -1 if limit is None else limit, offset],
            )
        ):
            match = view.match(Record(*record), move, seq, ELEMENTS[stored],
                               stored_to_move, next_colour, next_point)
            if line:
                match = replace(match, variation=tuple(int(i) for i in line.split(".")))
            matches.append(match)
        return FindResult(key, total, matches, offset, limit, rejected)

    @_database_errors
    def continuations(
        self,
        position: Board | npt.ArrayLike,
        *,
        symmetry: str = "full",
        filters: Filters | None = None,
        to_move: str | None = None,
        limit: int | None = None,
    ) -> Continuations:
        """What was played next wherever ``position`` (a Board or an (N, N) array)
        occurred, each move seen in the query's orientation and colours
        (:mod:`gohash.explorer` says how), most played first.

        ``symmetry`` ``"full"`` matches rotations, reflections and colour
        exchange, ``"d4"`` rotations and reflections only.  ``filters`` keep
        the games they let through; ``to_move`` (``'b'``/``'w'``) the
        occurrences with that side to move, in the query's colours.  ``limit``
        keeps the most played moves only (None: all); the counts cover all.
        """
        if symmetry not in ("full", "d4"):
            raise GohashError(f"symmetry {symmetry!r} is not 'full' or 'd4'")
        size, key, onto, position_id, _ = self._lookup(position)
        view = QueryView(onto, size, colour_swap=symmetry == "full", to_move=to_move)
        if position_id is None:
            return merge_continuations([], key=key, view=view, limit=limit)
        where, params = self._where(position_id, view, filters)
        rows = [
            ContinuationRow(colour, point, bool(swapped), *rest)
            for colour, point, swapped, *rest in self._db.execute(
                "SELECT o.next_colour, o.next_point, o.element >= 8, o.to_move, "
                "CAST(substr(g.date, 1, 4) AS INTEGER), count(*), "
                "coalesce(sum(g.winner = 'B'), 0), coalesce(sum(g.winner = 'W'), 0), "
                "min(g.date), max(g.date) "
                f"FROM occurrences o JOIN games g ON g.id = o.game_id WHERE {where} "
                "GROUP BY 1, 2, 3, 4, 5",
                params,
            )
        ]
        return merge_continuations(rows, key=key, view=view, limit=limit)

    @_database_errors
    def game(self, game_id: int) -> GameRecord:
        """A game of the index read again from its file, for a viewer: its record,
        its root text and every position of its main line as indexed.

        The file is read from its path as indexed (relative paths are tried from
        the current folder, then from the index's); it must be unchanged (the
        same SHA-256), and the game replays to the same positions, with the
        suicide rule of its build, or this raises :class:`GohashError`.
        """
        row = self._db.execute(
            f"SELECT {_RECORD_COLUMNS}, f.sha256, f.suicide, g.sha256 FROM games g "
            "JOIN files f ON f.id = g.file_id WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise UnknownGameError(f"the index has no game with id {game_id!r}", file=self.path)
        file_sha, suicide, game_sha = row[-3:]
        return read_game(
            Record(*row[:-3]), file_sha=file_sha, game_sha=game_sha,
            suicide_allowed=None if suicide is None else bool(suicide),
            folders=[os.path.dirname(os.path.abspath(self.path))],
        )

    # -- duplicates ----------------------------------------------------------------------------

    @_database_errors
    def records(self) -> dict[int, Record]:
        """Every game record, by id."""
        return {
            row[0]: Record(*row)
            for row in self._db.execute(
                f"SELECT {_RECORD_COLUMNS} FROM games g JOIN files f ON f.id = g.file_id"
            )
        }

    @_database_errors
    def dupes(self, *, min_positions: int = 10) -> Dupes:
        """Groups of records with the same sequence of positions up to symmetry and
        colour exchange, and groups whose sequence is a proper prefix of another's.

        Records with fewer than ``min_positions`` positions are left out: every
        game starts from the same few positions.  Main lines only are compared.
        """
        sequences: dict[int, list[int]] = {}
        last_element: dict[int, int] = {}
        main_lines = (
            "SELECT o.game_id, o.position_id, o.element FROM occurrences o "
            "JOIN games g ON g.id = o.game_id WHERE o.seq < g.positions "
            "ORDER BY o.game_id, o.seq"
            if self.variations
            else "SELECT game_id, position_id, element FROM occurrences ORDER BY game_id, seq"
        )
        for game_id, position_id, stored_element in self._db.execute(main_lines):
            sequences.setdefault(game_id, []).append(position_id)
            last_element[game_id] = stored_element
        by_sequence: dict[tuple[int, ...], list[int]] = {}
        for game_id, sequence in sequences.items():
            if len(sequence) >= min_positions:
                by_sequence.setdefault(tuple(sequence), []).append(game_id)
        records = self.records()

        def group(game_ids: list[int], length: int) -> DupeGroup:
            first = ELEMENTS[last_element[game_ids[0]]]
            return DupeGroup(
                tuple(records[g] for g in game_ids),
                tuple(ELEMENTS[last_element[g]].inverse.compose(first) for g in game_ids),
                length,
            )

        groups = {seq: group(ids, len(seq)) for seq, ids in sorted(by_sequence.items(),
                                                                   key=lambda kv: kv[1][0])}
        prefixes = []
        # In lexicographic order a sequence follows its prefixes, with only
        # sequences that also extend them in between: a stack finds the longest.
        stack: list[tuple[int, ...]] = []
        for seq in sorted(by_sequence):
            while stack and seq[: len(stack[-1])] != stack[-1]:
                stack.pop()
            if stack:
                prefixes.append(Prefix(groups[stack[-1]], groups[seq]))
            stack.append(seq)
        prefixes.sort(key=lambda p: (p.shorter.records[0].id, p.longer.records[0].id))
        return Dupes([g for g in groups.values() if len(g.records) > 1], prefixes)


_RECORD_COLUMNS = (
    "g.id, f.path, g.game, g.size, g.black, g.white, g.result, g.moves, g.black_rank, "
    "g.white_rank, g.dt, g.date, g.event, g.komi, g.handicap, g.winner"
)
# The path of the variation holding occurrence o ('' on the main line): that of
# the latest variation run starting at or before it.
_LINE = (
    "CASE WHEN o.seq < g.positions THEN '' ELSE (SELECT v.path FROM variations v "
    "WHERE v.game_id = o.game_id AND v.seq <= o.seq ORDER BY v.seq DESC LIMIT 1) END"
)


def _factory(which: str | SchemeFactory) -> SchemeFactory:
    if isinstance(which, str):
        if which not in SCHEMES:
            scheme(which, 19)  # raises UnknownSchemeError naming the choices
        return NamedSchemes(which)
    return which


def _scheme_name(factory: SchemeFactory) -> str:
    if isinstance(factory, NamedSchemes):
        return factory.name
    name: str = factory(19).name
    return name


def _tasks(
    paths: list[str], known: dict[str, str], scheme_name: str, suicide_allowed: bool | None
) -> Iterator[Task]:
    """One task per input (per part of a canon dataset), with the known SHA-256 of its files."""
    for inp in find_inputs(paths):
        if inp.kind == "stdin":  # a worker process has no stdin of ours: read it here
            for source in read_input(inp):
                yield source, {}
        elif inp.kind == "canon-parquet":
            from .columnar import dataset_parts  # pyarrow, for canon datasets only

            try:
                parts = dataset_parts(inp.name, scheme_name, suicide_allowed)
            except GohashError as e:
                yield e, {}
                continue
            for part in parts:
                yield Input("canon-parquet", part), known
        elif inp.kind == "packed":  # its records' paths are those of the files packed
            yield inp, known
        elif inp.kind in ("zip", "tar"):
            prefix = inp.name + ":"
            yield inp, {p: sha for p, sha in known.items() if p.startswith(prefix)}
        else:
            yield inp, ({inp.name: known[inp.name]} if inp.name in known else {})


def _prepared(
    tasks: Sequence[Task],
    replay: Callable[[list[Task]], list[list[FileFrames | SourceError]]],
    jobs: int,
    on_death: Callable[[str], object],
) -> Iterator[list[FileFrames | SourceError]]:
    """The frames of each task, in order, replayed a batch of tasks at a time, in
    ``jobs`` worker processes if more than one; a task whose worker died on it
    (twice) is an error naming its input."""
    if jobs <= 1 or len(tasks) <= 1:
        for batch in batches(tasks, MAX_TASKS_PER_BATCH, None):
            yield from replay(batch)
        return
    results = ordered_map(
        replay, tasks, jobs=jobs, expected=len(tasks), on_death=on_death, batched=True
    )
    for (inp, _), result in results:
        if isinstance(result, WorkerDied):
            name = inp.file if isinstance(inp, GohashError) else inp.name
            result = [SourceError(None, None, str(result.located(file=name)))]
        yield result


def _position_array(position: Board | npt.ArrayLike) -> Board8:
    if isinstance(position, Board):
        return position.to_array()
    # Not checked: that every group has a liberty; such a position is never found.
    return check_position_array(position, batch=False).astype(np.int8)


# -- query positions from records --------------------------------------------------------------


class _PositionPicker(BaseVisitor):
    def __init__(self, game: int, move: int | None) -> None:
        self.game = game
        self.move = move
        self.found: bytes | None = None
        self.last_move = -1
        self.games = 0
        self.error: GohashError | None = None

    def begin_game(self, info: GameInfo) -> None:
        self.games += 1

    def visit_position(self, event: PositionEvent) -> None:
        if event.game == self.game:
            self.last_move = event.move_number
            if self.move is None or event.move_number == self.move:
                self.found = event.board.position_key()

    def handle_error(self, error: GohashError) -> bool:
        if error.game is None or error.game == self.game:
            self.error = self.error or error
        return False


def position_from_sgf(
    path: str, move: int | None = None, *, game: int = 0, suicide_allowed: bool | None = None
) -> Board:
    """The position of game ``game`` of an SGF file (``-``: standard input) on its main
    line after move ``move`` (None: the last), setup included; suicide allowed as
    ``suicide_allowed`` says, or the game's ``RU`` if None."""
    picker = _PositionPicker(game, move)
    options = {} if suicide_allowed is None else {"suicide_allowed": suicide_allowed}
    for inp in find_inputs([path]):
        for source in read_input(inp):
            if isinstance(source, GohashError):
                raise source
            walk_source(source, picker, board_options=options)
    if picker.found is None or (move is not None and move > picker.last_move):
        if picker.error is not None:
            raise picker.error
        if picker.last_move < 0:
            raise GohashError(f"{path!r} has no game {game} (it has {picker.games})", file=path)
        raise GohashError(
            f"move {move!r} is beyond the end of the main line (move {picker.last_move})",
            file=path, game=game,
        )
    return Board.from_position_key(picker.found)
