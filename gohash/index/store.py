"""The file of a position index: its SQLite schema, opening it, building it, looking after it.

Scope: the database behind :class:`~gohash.index.index.Index` (schema, versioning, opening and
checking it), building it from SGF files (incremental, whole files per
transaction; files are replayed into stored games and postings by
:mod:`gohash.index.build`,
optionally in worker processes, and written by :mod:`gohash.index.writer`),
removing files from it and saying what it holds.  Searching it and finding
duplicate games is :class:`gohash.index.index.Index`'s, which holds an
the database; how a search confirms a posting is said there.  The
command line (:mod:`gohash.cli.index`) only parses arguments and prints.

Each game is stored once, in the games table with its metadata, as a
compact record of its nodes (:mod:`gohash.index.games`); searches go through
postings, ``(key, game_id, seq)`` in key order in the postings file beside
the index (:mod:`gohash.index.postings`), ``key`` the canonical key's top bits
(:func:`gohash.index.games.posting_keys`), ``seq`` the node.  A posting is a
candidate only: searches confirm it on the game's position there.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from ..errors import (
    DamagedIndexError,
    GohashError,
    IndexCreationError,
    IndexFileError,
    WorkerDied,
    counted,
    name_text,
)
from ..group.schemes import DEFAULT_SCHEME, SCHEMES, KeyScheme, scheme
from ..group.symmetry import MAX_SIZE, MIN_SIZE, check_size
from ..pipeline.frames import NamedSchemes, SchemeFactory
from ..pipeline.jobs import input_tasks, run_tasks, task_name
from ..sgf.inputs import Input, special_file
from ..sgf.sources import find_inputs
from ..version import __version__
from .aggregates import CANDIDATE_NODES, Aggregates
from .build import Spooled, SpoolReader, spooled_frames, stream_frames
from .check import check_index
from .filters import contains
from .games import game_keys
from .postings import KEY_OFFSET, PostingsFile, alive, postings_path
from .records import PARSE_VERSION, FileFrames, SourceError, SourceNote, Task
from .schema import (
    APPLICATION_ID,
    GENERATION,
    SCHEMA,
    SCHEMA_VERSION,
    SQLITE_HEADER,
    first_generation,
    statements,
)
from .values import damaged, require
from .writer import Writer

__all__ = [
    "COMMIT_GROWTH",
    "COMMIT_SECONDS",
    "SMALL_INDEX",
    "BuildSummary",
    "Built",
    "IndexInfo",
    "Removed",
    "build_index",
    "database_errors",
    "read_only_uri",
    "upgrade_index",
]

COMMIT_SECONDS = 1.0
"""A build commits the files it wrote once a transaction is this old (and, in a
large index, :data:`COMMIT_GROWTH` says): each commit writes every page it
dirtied (keys are random, so each file dirties a few hundred pages of the key
index), and files of a second share most of them: one transaction per file
made the database most of a build's time."""
COMMIT_GROWTH = 3.0
"""Once the index holds :data:`SMALL_INDEX` positions, a transaction also waits
until the index holds this many times the positions it held when the
transaction began.  A commit writes every page of the postings its inserts
touched, twice (the WAL, then the database), and a second's postings touch
nearly every page of a large index; growing the index threefold a
transaction writes its pages some 1.5 times, twice (docs/performance.md, "At
scale"), and a killed build loses at most two thirds of what it wrote."""
SMALL_INDEX = 1 << 16
_SYNC_GAMES = 10_000  # games whose postings are written again a segment at a time
"""Positions up to which a build commits every :data:`COMMIT_SECONDS`."""
PAGE_SIZE = 8192
"""The page size of a new index: a build of the corpus took 3% less CPU than
with SQLite's 4096 (fewer pages to split and write) and the file 1% less
space; 16384 saved little more, and a small build into a large index writes
a page for each posting it adds."""
CACHE_KIB = 16 * 1024
"""SQLite's page cache per connection: with a batch of replayed positions
(:data:`~gohash.index.build.BATCH_POSITIONS`) and the writer's staged rows
(:data:`~gohash.index.writer.STAGED_ROWS`), what bounds a build's memory."""


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
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, other: BuildSummary) -> None:
        self.files_indexed += other.files_indexed
        self.files_unchanged += other.files_unchanged
        self.files_replaced += other.files_replaced
        self.files_reread += other.files_reread
        self.games += other.games
        self.positions += other.positions
        self.errors += other.errors
        self.notes += other.notes

    def __str__(self) -> str:
        reread = (
            f", {self.files_reread:,} re-read for this gohash" if self.files_reread else ""
        )
        return (
            f"{counted(self.files_indexed, 'file')} indexed ({self.files_replaced:,} replaced"
            f"{reread}), {self.files_unchanged:,} unchanged; {counted(self.games, 'game')}, "
            f"{counted(self.positions, 'position')}; "
            f"{counted(len(self.errors), 'error')}"
        )



@dataclass
class IndexInfo:
    """What an index holds and how it was built.

    ``positions`` counts occurrences (a position seen twice counts twice),
    ``distinct`` the distinct posting keys (the positions up to symmetry, but
    for keys that collide in their top bits); ``gohash_versions`` gives the
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

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """What the index holds as JSON (docs/schemas.md, "Index info"); ``path``
        left out with ``paths=False``, as the server does."""
        return {
            **({"path": self.path} if paths else {}),
            "format_version": self.schema_version,
            "scheme": self.scheme,
            "variations": self.variations,
            "files": self.files,
            "games": self.games,
            "positions": self.positions,
            "distinct": self.distinct,
            "errors": self.errors,
            "gohash_versions": self.gohash_versions,
            "outdated_files": self.outdated,
        }


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
            db = sqlite3.connect(read_only_uri(path), uri=True, isolation_level=None,
                                 check_same_thread=False)
        else:
            db = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error as e:
        raise IndexFileError(f"cannot open the index: {e}", file=path) from None
    db.create_function("gohash_contains", 2, contains, deterministic=True)
    return db


def read_only_uri(path: str) -> str:
    """The SQLite URI that opens the index ``path`` for reading only.

    ``mode=ro`` always.  An index at rest is in rollback-journal mode (a build
    leaves it so), which a reader opens without creating any file.  One in WAL
    mode (a build running, or one that could not leave WAL mode) needs its
    ``-wal`` and ``-shm`` files, which a reader creates if they are missing and
    leaves behind; where it cannot create them (a folder it cannot write, a
    read-only mount) and there is no ``-wal`` file, no writer has the index open
    and every commit is in the database file: ``immutable=1`` reads it as it is.
    """
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    folder = os.path.dirname(os.path.abspath(path))
    if (_wal_mode(path) and not os.path.exists(path + "-wal")
            and not os.access(folder, os.W_OK)):
        uri += "&immutable=1"
    return uri


def _wal_mode(path: str) -> bool:
    """Whether the database header says WAL mode (file format versions 2)."""
    try:
        with open(path, "rb") as f:
            header = f.read(20)
    except OSError:
        return False
    return header[18:20] == b"\x02\x02"


def _check_index_path(path: str) -> None:
    """Refuse an index path naming a pipe, socket or device, before anything opens
    it (SQLite, or a read of its header, would wait on a pipe for ever)."""
    special = special_file(path)
    if special is not None:
        raise IndexFileError(f"{special}, not an index file: not opened", file=path)


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


class _Located(Protocol):
    @property
    def path(self) -> str: ...


_I = TypeVar("_I", bound=_Located)
_P = ParamSpec("_P")
_R = TypeVar("_R")


def database_errors(
    method: Callable[Concatenate[_I, _P], _R],
) -> Callable[Concatenate[_I, _P], _R]:
    """Report SQLite's errors on an open index (locked, damaged, disk full) as
    IndexFileError, and name the index in a damaged value's error."""

    @functools.wraps(method)
    def wrapper(self: _I, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as e:
            raise IndexFileError(f"cannot use the index: {e}", file=self.path) from None
        except DamagedIndexError as e:
            raise e.located(file=self.path) from None

    return wrapper


class _IndexFile:
    """The database behind an :class:`~gohash.index.index.Index`: its schema,
    opening, building and upkeep; the arguments are :class:`Index
    <gohash.index.index.Index>`'s, which documents them.  Private: programs use
    :class:`~gohash.index.index.Index` (or :func:`build_index`)."""

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
        _check_index_path(self.path)
        exists = os.path.exists(self.path)
        if not exists and not create:
            raise IndexFileError("no such index (gohash index build creates one)", file=self.path)
        initialised = exists and _check_sqlite_file(self.path)
        if not initialised and not create:
            raise IndexFileError("an empty file, not a gohash index", file=self.path)
        self._db = _connect(self.path, read_only)
        self.postings = PostingsFile(postings_path(self.path))
        self.read_only = read_only
        self._repair = False
        try:
            if not initialised:
                factory = _factory(scheme if scheme is not None else DEFAULT_SCHEME)
                self.variations = bool(variations)
                # Another build may have created it since it was found empty.
                initialised = not self._create(_scheme_name(factory))
            if initialised:
                factory = self._check_existing(scheme)
                self._check_keys(factory)
                self.variations = self._meta("variations") == "1"
                if variations is not None and variations != self.variations:
                    built = "with" if self.variations else "without"
                    raise IndexFileError(
                        f"index built {built} variations; build a new index to change that",
                        file=self.path,
                    )
            # In WAL mode NORMAL syncs at checkpoints only: a killed build still keeps
            # every committed file, and only a power failure can lose the last ones.
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            self._db.execute("PRAGMA temp_store = MEMORY")
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise IndexFileError(f"not a usable SQLite database: {e}", file=self.path) from None
        except BaseException:
            self._db.close()
            raise
        self._factory = factory
        self.scheme_name = _scheme_name(factory)
        self._aggregates = Aggregates(self._db, self.postings, self.keys,
                                      fault=lambda reason: damaged(self.path, reason))
        if self._repair:
            self.sync_postings()

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
                "another path, or after removing this file), or `gohash index upgrade` "
                "it from the files it names",
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

    def _check_keys(self, factory: SchemeFactory) -> None:
        """Refuse an index whose first game's postings are not the keys its
        positions give under ``factory``: a damaged index, or a meta table naming
        another key scheme than the keys were made with (searches would find
        nothing).  A postings file that is missing, damaged or lacks the first
        game is written again (:meth:`sync_postings`) once the index is open, or
        refused if it is open for reading only."""
        self._repair = False
        first = self._db.execute(
            "SELECT id FROM games WHERE nodes > 0 "
            f"AND size BETWEEN {MIN_SIZE} AND {MAX_SIZE} ORDER BY id LIMIT 1"
        ).fetchone()
        if first is None:
            return
        require(self._db, "games", "id = ?", first, ("size", "nodes", "record"), path=self.path)
        game_id, size, nodes, record = self._db.execute(
            "SELECT id, size, nodes, record FROM games WHERE id = ?", first).fetchone()
        try:
            mine = game_keys(record, check_size(size), min(nodes, 16), factory(size))
        except GohashError as e:
            raise damaged(self.path, f"game {game_id}: {e.reason}") from None
        segments, faults = self.postings.segments()
        if faults or not any(np.isin(game_id, s.ids) for s in segments):
            if self.read_only:
                reason = faults[0] if faults else (
                    f"the postings file {self.postings.path!r} is missing or lacks game "
                    f"{game_id}")
                raise damaged(self.path, f"{reason}; `gohash index build` writes it again")
            self._repair = True
            return
        if self._postings_present(game_id, mine):
            return
        name = _scheme_name(factory)
        for other in SCHEMES:
            if other != name and self._postings_present(
                    game_id, game_keys(record, size, min(nodes, 16), scheme(other, size))):
                raise DamagedIndexError(
                    f"the meta table names key scheme {name!r}, but the keys were made "
                    f"with {other!r}", file=self.path,
                )
        faults = self.postings.faults()
        if faults and not self.read_only:
            self._repair = True  # the segments before the fault kept, the rest written
            return
        raise damaged(self.path, faults[0] if faults else
                      f"game {game_id}: its postings are not the keys of its positions")

    def _postings_present(self, game_id: int, keys: npt.NDArray[np.int64]) -> bool:
        return all((game_id, seq) in self.postings.lookup(key)
                   for seq, key in enumerate(keys.tolist()))

    @database_errors
    def sync_postings(self) -> int:
        """Write the postings of every game of the index that the postings file
        lacks (all of them if the file is missing or damaged: it is written
        again), from the stored games, under the index's write lock; how many
        games.  What a build does first, and opening an index whose file lacks
        its first game: a build killed between writing games and their
        postings, a file deleted or damaged, an index upgraded."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if self.postings.faults():  # the segments before a fault kept
                self.postings.compact(alive(db), salvage=True)
            held = self.postings.held()
            ids = np.array([i for (i,) in db.execute(
                "SELECT id FROM games WHERE nodes > 0 ORDER BY id")], dtype=np.int64)
            missing = ids[~np.isin(ids, held)].tolist()
            for start in range(0, len(missing), _SYNC_GAMES):
                self._write_postings(missing[start : start + _SYNC_GAMES])
            db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
        return len(missing)

    def _write_postings(self, game_ids: list[int]) -> None:
        """Append a segment of the postings of ``game_ids``, from their stored games."""
        keys, games, seqs = [], [], []
        for start in range(0, len(game_ids), 500):
            chunk = game_ids[start : start + 500]
            these = f"id IN ({','.join('?' * len(chunk))})"
            require(self._db, "games", these, chunk, ("size", "nodes", "record"))
            for game_id, size, nodes, record in self._db.execute(
                    f"SELECT id, size, nodes, record FROM games WHERE {these}", chunk):
                try:
                    mine = game_keys(record, check_size(size), nodes, self.keys(size))
                except GohashError as e:
                    raise damaged(self.path, f"game {game_id}: {e.reason}") from None
                keys.append(mine)
                games.append(np.full(len(mine), game_id, dtype=np.int64))
                seqs.append(np.arange(len(mine), dtype=np.int64))
        self.postings.append(np.array(game_ids, dtype=np.int64), np.concatenate(keys),
                             np.concatenate(games), np.concatenate(seqs))

    @database_errors
    def check(self) -> list[str]:
        """The faults of :meth:`Index.check <gohash.index.index.Index.check>` but
        those of the pattern files."""
        return check_index(self._db, SCHEMA, self.keys, self.variations, self.postings)

    def _create(self, scheme_name: str) -> bool:
        """Create the index in the empty file; False if another process created it
        first.  The schema is written in one transaction in rollback-journal mode,
        so the file stays empty until it commits; a process that finds the write
        lock taken meanwhile is told another process is creating the index, at
        once (no wait on the lock), instead of finding a database that is not yet
        an index."""
        db = self._db
        db.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # before the first table
        timeout = db.execute("PRAGMA busy_timeout").fetchone()[0]
        db.execute("PRAGMA busy_timeout = 0")
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            if "locked" not in str(e):  # SQLITE_BUSY's words (sqlite_errorcode: 3.11 on)
                raise
            raise IndexCreationError(
                "another process is creating this index; run this again once it is done",
                file=self.path) from None
        finally:
            db.execute(f"PRAGMA busy_timeout = {int(timeout)}")
        if db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            db.execute("ROLLBACK")
            return False
        for statement in statements(SCHEMA):
            db.execute(statement)
        db.executemany(
            "INSERT INTO meta (name, value) VALUES (?, ?)",
            [("scheme", scheme_name), ("variations", str(int(self.variations))),
             ("gohash_version", __version__), (GENERATION, str(first_generation()))],
        )
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
        return True

    def _meta(self, name: str) -> str:
        row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise IndexFileError(f"index has no {name!r} entry in its meta table", file=self.path)
        return str(row[0])

    @property
    def connection(self) -> sqlite3.Connection:
        """The open SQLite connection, for the queries of :class:`~gohash.index.index.Index`."""
        return self._db

    def close(self) -> None:
        self._db.close()

    def __enter__(self: _I) -> _I:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def keys(self, size: int) -> KeyScheme:
        """The key scheme of the index for one board size."""
        return self._factory(check_size(size))

    @database_errors
    def counts(self) -> dict[str, int]:
        """Files, games, positions (distinct posting keys) and occurrences (postings)."""
        db = self._db
        files, games = (db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                        for table in ("files", "games"))
        distinct = occurrences = 0
        for keys, _, _ in self.postings.chunks(alive(db)):
            occurrences += len(keys)
            distinct += int(np.count_nonzero(np.diff(keys))) + 1 if len(keys) else 0
        return {"files": files, "games": games, "positions": distinct,
                "occurrences": occurrences}

    @database_errors
    def info(self) -> IndexInfo:
        """What the index holds and how it was built (:class:`IndexInfo`)."""
        db = self._db
        require(db, "files", columns=("gohash_version", "parse_version"))
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

    @database_errors
    def remove(self, paths: Iterable[str]) -> Removed:
        """:meth:`Index.remove <gohash.index.index.Index.remove>`."""
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
                for file_id, _, _ in found:
                    require(db, "files", "id = ?", (file_id,), ("path", "games"))
                for file_id, file, games in found:
                    self._delete_file(file_id)
                    removed.files.append(file)
                    removed.games += games
            self._aggregates.settle()
            db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
        return removed

    @database_errors
    def sizes(self) -> dict[int, int]:
        """Games per board size."""
        require(self._db, "games", columns=("size",))
        return dict(self._db.execute("SELECT size, count(*) FROM games GROUP BY size"))

    # -- building ----------------------------------------------------------------------------

    @database_errors
    def build(
        self,
        paths: Iterable[str | Input],
        *,
        jobs: int = 1,
        files_per_commit: int | None = None,
        progress: Callable[[int, int], object] | None = None,
        suicide_allowed: bool | None = None,
    ) -> BuildSummary:
        """:meth:`Index.build <gohash.index.index.Index.build>`."""
        if files_per_commit is not None and files_per_commit < 1:
            raise GohashError(f"files per commit must be at least 1, not {files_per_commit!r}")
        db = self._db
        # WAL while building: readers go on reading, and a killed build loses
        # only its open transaction.
        db.execute("PRAGMA journal_mode = WAL")
        # Each file dirties a few hundred pages of the key index (keys are random);
        # checkpointing them into the database every 1000 pages (the default)
        # costs more than the whole build.  A WAL of up to 256 MiB costs only disk
        # space while building; it is folded back at the end.
        db.execute("PRAGMA wal_autocheckpoint = 65536")
        known: dict[str, str] = dict(db.execute(
            "SELECT path, sha256 FROM files WHERE parse_version = ?", (PARSE_VERSION,)
        ))
        # Files are known by path as found: "./games/" and "games" must be one path.
        normalised = [path if isinstance(path, Input) or path == "-" else os.path.normpath(path)
                      for path in paths]
        tasks = list(_tasks(normalised, known, self.scheme_name, suicide_allowed))
        stream = functools.partial(
            stream_frames, factory=self._factory, suicide_allowed=suicide_allowed,
            variations=self.variations,
        )
        replay = functools.partial(
            spooled_frames, factory=self._factory, suicide_allowed=suicide_allowed,
            variations=self.variations, share=jobs,
        )
        summary = BuildSummary()
        written = BuildSummary()  # files written in the open transaction
        self.sync_postings()
        writer = Writer(db, self.postings, suicide=suicide_allowed, parse_version=PARSE_VERSION,
                        delete_file=self._delete_file, aggregates=self._aggregates)
        began = 0.0
        done = 0
        held = db.execute("SELECT coalesce(sum(nodes), 0) FROM games").fetchone()[0]
        # The SHA-256 of each source this build met, by path; and whether the parts
        # of a source refused as a second of its name follow.
        met: dict[str, str] = {}
        refused = False
        try:
            for task, item in _prepared(tasks, stream, replay, jobs, summary.notes.append):
                if progress is not None and task > done:
                    done = task
                    progress(done, len(tasks))
                if isinstance(item, SourceError):
                    summary.errors.append(item.message)
                elif isinstance(item, SourceNote):
                    summary.notes.append(item.message)
                elif item.part and refused:
                    refused = item.more
                elif not item.part and met.setdefault(item.path, item.sha256) != item.sha256:
                    # Two sources of one name (rows of a packed dataset repeating a
                    # path): the second would replace the first's games.
                    summary.errors.append(str(GohashError(
                        "a second source of this name, with other contents, in one build: "
                        "not indexed (the first is kept)", file=item.path)))
                    refused = item.more
                elif item.unchanged:
                    summary.files_unchanged += 1
                else:
                    if not db.in_transaction:
                        writer.begin()
                        began = time.monotonic()
                    self._write(item, written, writer)
                    # A file's parts are written in one transaction.
                    if not item.more and (
                        written.files_indexed >= files_per_commit
                        if files_per_commit is not None
                        else time.monotonic() - began >= COMMIT_SECONDS and (
                            held < SMALL_INDEX
                            or held + written.positions >= COMMIT_GROWTH * held)
                    ):
                        writer.commit()
                        summary.add(written)
                        held += written.positions
                        written = BuildSummary()
            if progress is not None:
                progress(len(tasks), len(tasks))
            if db.in_transaction:
                writer.commit()
                summary.add(written)
            # This build's runs of postings merged with the file's (the games removed
            # left out), then the positions it made frequent get their aggregates.
            db.execute("BEGIN IMMEDIATE")
            self.postings.compact(alive(db))
            self._aggregates.discover()
            db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._leave_wal()
        return summary

    def _leave_wal(self) -> None:
        """Put the index back in rollback-journal mode, in which readers create no
        files (:func:`read_only_uri`), unless another connection has it open: that
        one keeps WAL mode, and the next build tries again."""
        db = self._db
        timeout = db.execute("PRAGMA busy_timeout").fetchone()[0]
        db.execute("PRAGMA busy_timeout = 0")
        try:
            db.execute("PRAGMA journal_mode = DELETE")
        except sqlite3.OperationalError:
            pass  # "database is locked": a reader is there
        finally:
            db.execute(f"PRAGMA busy_timeout = {int(timeout)}")

    @database_errors
    def discover_aggregates(self) -> int:
        """:meth:`Index.discover_aggregates
        <gohash.index.index.Index.discover_aggregates>`."""
        db = self._db
        games = db.execute("SELECT count(*) FROM games").fetchone()[0]
        for keys, _, seqs in self.postings.chunks(alive(db)):
            early = seqs < CANDIDATE_NODES
            self._aggregates.noted(keys[early] - KEY_OFFSET, seqs[early], 0)
        self._aggregates.noted(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), games)
        db.execute("BEGIN IMMEDIATE")
        try:
            made = self._aggregates.discover()
            db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
        return made

    @staticmethod
    def _write(item: FileFrames, summary: BuildSummary, writer: Writer) -> None:
        """Replace the file's games, within the open transaction."""
        old_sha = writer.write(item)
        if old_sha is not None:
            if old_sha == item.sha256:
                summary.files_reread += 1
            else:
                summary.files_replaced += 1
        if not item.part:
            summary.files_indexed += 1
        summary.games += len(item.games)
        summary.positions += sum(game.end - game.start for game in item.games)
        summary.errors += [e.message for e in item.errors]

    def _delete_file(self, file_id: int) -> None:
        """Delete a file's rows, and its games' occurrences from the aggregates (their
        keys recomputed from the stored games).  Their postings stay in the
        postings file, where no game of the index has their ids (:class:`Writer`
        never gives a game an id the file holds), until a build merges it."""
        db = self._db
        require(db, "games", "file_id = ?", (file_id,), ("size", "nodes", "record"))
        for game_id, size, nodes, record in db.execute(
            "SELECT id, size, nodes, record FROM games WHERE file_id = ?", (file_id,)
        ).fetchall():
            try:
                keys = game_keys(record, check_size(size), nodes, self.keys(size))
            except GohashError as e:
                raise damaged(self.path, f"game {game_id}: {e.reason}") from None
            seqs = np.arange(len(keys), dtype=np.int64)
            self._aggregates.removed(keys, np.full(len(keys), game_id, dtype=np.int64), seqs)
        games = "SELECT id FROM games WHERE file_id = ?"
        db.execute(f"DELETE FROM variations WHERE game_id IN ({games})", (file_id,))
        for table, column in (("errors", "file_id"), ("games", "file_id"), ("files", "id")):
            db.execute(f"DELETE FROM {table} WHERE {column} = ?", (file_id,))


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
    paths: list[str | Input], known: dict[str, str], scheme_name: str, suicide_allowed: bool | None
) -> Iterator[Task]:
    """One task per input (per part of a canon dataset), with the known SHA-256 of its files."""
    for inp, _ in input_tasks(find_inputs(paths), archives=False):
        if not isinstance(inp, Input):  # read here: standard input's
            if inp is not None:
                yield inp, {}
        elif inp.kind == "canon-parquet":
            from .parquet import dataset_parts  # pyarrow, for canon datasets only

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
            prefix = name_text(inp.name) + ":"  # paths are stored as name_text gives them
            yield inp, {p: sha for p, sha in known.items() if p.startswith(prefix)}
        else:
            path = name_text(inp.name)
            yield inp, ({path: known[path]} if path in known else {})


def _prepared(
    tasks: Sequence[Task],
    stream: Callable[[list[Task]], Iterator[tuple[int, FileFrames | SourceError | SourceNote]]],
    replay: Callable[[list[Task]], list[Spooled]],
    jobs: int,
    on_death: Callable[[str], object],
) -> Iterator[tuple[int, FileFrames | SourceError | SourceNote]]:
    """The items of each task (a file's games and postings, errors, notes) as
    ``(task number, item)``, in order: streamed
    (:func:`~gohash.index.build.stream_frames`), or replayed in ``jobs`` worker
    processes if more than one, which spool them to files read back here an
    item at a time (:func:`~gohash.index.build.spooled_frames`); a task whose
    worker died on it (twice) is an error naming its input."""
    if jobs <= 1 or len(tasks) <= 1:
        yield from stream(list(tasks))
        return
    results = run_tasks(replay, tasks, jobs=jobs, inputs=len(tasks), name=task_name,
                        on_death=on_death)
    reader = SpoolReader()
    try:
        for task, (_, result) in enumerate(results):
            if isinstance(result, WorkerDied):
                yield task, SourceError(None, None, str(result))
                continue
            for item in reader.items(result):
                yield task, item
    finally:
        reader.close()


# -- building a file -------------------------------------------------------------------------


@dataclass
class Built:
    """What :func:`build_index` did: the build's summary, and what the index holds
    after it (:meth:`Index.counts <gohash.index.index.Index.counts>`), or None
    when no index was kept."""

    summary: BuildSummary
    counts: dict[str, int] | None


def build_index(
    path: str | os.PathLike[str],
    paths: Iterable[str | Input],
    *,
    scheme: str | SchemeFactory | None = None,
    variations: bool | None = None,
    overwrite: bool = False,
    jobs: int = 1,
    files_per_commit: int | None = None,
    progress: Callable[[int, int], object] | None = None,
    suicide_allowed: bool | None = None,
) -> Built:
    """Create or extend the index at ``path`` and build it from ``paths``
    (:meth:`Index.build <gohash.index.index.Index.build>`, whose keywords these are).

    An existing index of another scheme, variations or version is refused
    (:class:`IndexFileError`) unless ``overwrite``, which removes it first, as it
    removes an index of the same kind (that one is otherwise extended); a file
    that is not a gohash index is never removed.  A build that found ``path``
    missing or empty and indexed no file, with errors or an exception, leaves
    ``path`` as it was: no empty index is left behind.
    """
    path = os.fspath(path)
    _check_index_path(path)
    if overwrite and _is_index(path):
        _remove_index(path, keep_empty=False)
    existed = os.path.exists(path)
    fresh = not existed or (os.path.isfile(path) and os.path.getsize(path) == 0)
    try:
        index = _IndexFile(path, create=True, scheme=scheme, variations=variations)
    except IndexFileError as e:
        if isinstance(e, IndexCreationError) or not _is_index(path):
            raise
        raise IndexFileError(f"{e.reason}; --overwrite replaces it", file=path) from None
    discard = False
    try:
        with index:
            try:
                summary = index.build(paths, jobs=jobs, files_per_commit=files_per_commit,
                                      progress=progress, suicide_allowed=suicide_allowed)
            except BaseException:
                discard = fresh and index.counts()["files"] == 0
                raise
            counts = index.counts()
    finally:
        if discard:
            _remove_index(path, keep_empty=existed)
    if fresh and counts["files"] == 0 and summary.errors:
        _remove_index(path, keep_empty=existed)
        return Built(summary, None)
    return Built(summary, counts)


def _is_index(path: str) -> bool:
    """Whether ``path`` is a file holding a gohash index (of any version)."""
    try:
        with open(path, "rb") as f:
            header = f.read(72)
    except OSError:
        return False
    # The header's application_id field (bytes 68-71), which PRAGMA application_id sets.
    return header[:16] == SQLITE_HEADER and int.from_bytes(header[68:72], "big") == APPLICATION_ID


def _remove_index(path: str, keep_empty: bool) -> None:
    """Remove the index at ``path`` and SQLite's files beside it; ``keep_empty``
    leaves ``path`` as an empty file."""
    for extra in ("-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + extra)
    with contextlib.suppress(FileNotFoundError):
        os.remove(postings_path(path))
    if keep_empty:
        open(path, "wb").close()
    else:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)


def upgrade_index(
    path: str | os.PathLike[str],
    *,
    jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
) -> Built:
    """Rebuild the index at ``path``, of an earlier format version, in the current
    one from the files it names, with its key scheme, variations and each file's
    suicide rule.

    A file is found again by its path as indexed (an archive member by its
    archive); the new index is built beside the old one and replaces it only if
    every file was read again: otherwise the old index is left as it was, the
    summary's errors name what was missing, and :attr:`Built.counts` is None.
    An index of format 4, 5 or 6 is upgraded in place instead, without its files
    (:func:`_upgrade_in_place`).  An index of the current
    version, or not a gohash index, is refused (:class:`IndexFileError`).
    """
    path = os.fspath(path)
    _check_index_path(path)
    if not _is_index(path):
        raise IndexFileError("not a gohash index: nothing to upgrade", file=path)
    try:
        with contextlib.closing(sqlite3.connect(read_only_uri(path), uri=True)) as old:
            version = old.execute("PRAGMA user_version").fetchone()[0]
            meta = dict(old.execute("SELECT name, value FROM meta"))
            columns = {row[1] for row in old.execute("PRAGMA table_info(files)")}
            suicide = "suicide" if "suicide" in columns else "NULL"
            files: list[tuple[str, int | None]] = old.execute(
                f"SELECT path, {suicide} FROM files ORDER BY id").fetchall()
    except sqlite3.DatabaseError as e:
        raise IndexFileError(f"cannot read the index to upgrade: {e}", file=path) from None
    if version >= SCHEMA_VERSION:
        raise IndexFileError(f"index format version {version}: nothing to upgrade (this "
                             f"gohash writes version {SCHEMA_VERSION})", file=path)
    if "scheme" not in meta:
        raise IndexFileError("index has no 'scheme' entry in its meta table", file=path)
    if version in (4, 5, 6):
        return _upgrade_in_place(path, version)
    summary = BuildSummary()
    found: dict[bool | None, list[str]] = {}
    for name, rule in files:
        source = _source_of(name)
        if source is None:
            summary.errors.append(str(GohashError(
                "not found again (an index is upgraded from the files it names)", file=name)))
        else:
            found.setdefault(None if rule is None else bool(rule), []).append(source)
    upgrading = path + ".upgrade"
    _remove_index(upgrading, keep_empty=False)
    if summary.errors:
        return Built(summary, None)
    try:
        with _IndexFile(upgrading, create=True, scheme=meta["scheme"],
                       variations=meta.get("variations") == "1") as index:
            for rule, sources in found.items():
                summary.add(index.build(list(dict.fromkeys(sources)), jobs=jobs,
                                        progress=progress, suicide_allowed=rule))
            counts = index.counts()
            indexed = {p for (p,) in index.connection.execute("SELECT path FROM files")}
    except BaseException:
        _remove_index(upgrading, keep_empty=False)
        raise
    missing = [name for name, _ in files if name not in indexed]
    if missing:
        _remove_index(upgrading, keep_empty=False)
        summary.errors += [str(GohashError("not indexed again", file=name)) for name in missing]
        return Built(summary, None)
    for extra in ("-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + extra)
    os.replace(postings_path(upgrading), postings_path(path))
    os.replace(upgrading, path)
    return Built(summary, counts)


def _upgrade_in_place(path: str, version: int) -> Built:
    """Format 6 is format 7 without the triggers that count the games table's
    changes (:data:`~gohash.index.schema.GENERATION`): they are created.  Format
    5 is format 6 with the postings in a table: it is dropped too (and the space
    it took given back), and the postings file written from the stored games.
    Format 4 is format 5 without the aggregates: their tables are created too
    (an index without aggregates answers every query by counting), and once
    the file is written every position of the first
    :data:`~gohash.index.aggregates.CANDIDATE_NODES` nodes of the games is
    counted as a build of them all would count it.  The schema changes and the
    version are one transaction; a process killed after it leaves an index
    whose postings file the next opening for writing completes."""
    added = [statement for statement in statements(SCHEMA)
             if "aggregate" in statement and "TRIGGER" not in statement]
    triggers = [statement for statement in statements(SCHEMA) if "TRIGGER" in statement]
    try:
        with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
            db.execute("BEGIN IMMEDIATE")
            if db.execute("PRAGMA user_version").fetchone()[0] == version:
                if version == 4:
                    for statement in added:
                        db.execute(statement)
                if version in (4, 5):
                    db.execute("DROP TABLE postings")
                for statement in triggers:
                    db.execute(statement)
                db.execute("INSERT INTO meta (name, value) VALUES (?, ?)",
                           (GENERATION, str(first_generation())))
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
            if version in (4, 5):
                db.execute("VACUUM")
    except sqlite3.DatabaseError as e:
        raise IndexFileError(f"cannot upgrade the index: {e}", file=path) from None
    if version in (4, 5):
        with contextlib.suppress(FileNotFoundError):
            os.remove(postings_path(path))  # a file of an earlier attempt is written again
    with _IndexFile(path) as index:
        index.sync_postings()
        if version == 4:
            index.discover_aggregates()
        return Built(BuildSummary(), index.counts())


def _source_of(name: str) -> str | None:
    """The input that holds the indexed file ``name``: itself, or for
    ``archive:member`` the archive; None if neither is a file."""
    if name != "-" and os.path.isfile(name):
        return name
    for at in range(len(name) - 1, 0, -1):
        if name[at] == ":" and os.path.isfile(name[:at]):
            return name[:at]
    return None
