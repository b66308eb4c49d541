"""A position index of SGF collections in SQLite: search up to symmetry, find duplicate games.

Scope: the database (schema, versioning, opening and checking it), building it
from SGF files (incremental, one transaction per file; files are replayed into
frames by :mod:`gohash.indexing`, optionally in worker processes), the exact
position search, and duplicate and prefix detection.  The command line
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

Positions are the stones only: the side to move is not part of them, and only
the main line of each game is indexed.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Concatenate, ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt

from .board import Board
from .errors import GohashError, PositionError
from .frames import Board8, NamedSchemes, SchemeFactory, frame_and_elements
from .indexing import FileFrames, SourceError, SqlKey, Task, input_frames, sql_keys
from .pool import MAX_TASKS_PER_BATCH, WorkerDied, batches, ordered_map
from .schemes import SCHEMES, KeyScheme, scheme
from .sgf import Input, find_inputs, read_input
from .symmetry import ELEMENTS, Element, check_size
from .walk import BaseVisitor, GameInfo, PositionEvent, walk_source

__all__ = [
    "SCHEMA_VERSION",
    "BuildSummary",
    "DupeGroup",
    "Dupes",
    "FindResult",
    "Index",
    "IndexFileError",
    "Match",
    "Prefix",
    "Record",
    "position_from_sgf",
]

SCHEMA_VERSION = 1
APPLICATION_ID = 0x67686978  # "ghix": marks an SQLite file as a gohash index
SQLITE_HEADER = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    sha256 TEXT NOT NULL,
    games INTEGER NOT NULL
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
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE INDEX occurrences_by_position ON occurrences (position_id, game_id, seq, move, element);
"""

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
    games: int = 0
    positions: int = 0
    new_positions: int = 0
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, other: BuildSummary) -> None:
        self.files_indexed += other.files_indexed
        self.files_unchanged += other.files_unchanged
        self.files_replaced += other.files_replaced
        self.games += other.games
        self.positions += other.positions
        self.new_positions += other.new_positions
        self.errors += other.errors
        self.notes += other.notes

    def __str__(self) -> str:
        return (
            f"{self.files_indexed} files indexed ({self.files_replaced} replaced), "
            f"{self.files_unchanged} unchanged; {self.games} games, {self.positions} positions "
            f"({self.new_positions} new distinct); {len(self.errors)} errors"
        )


@dataclass(frozen=True)
class Record:
    """One game record of the index."""

    id: int
    file: str
    game: int
    size: int
    black: str | None
    white: str | None
    result: str | None
    moves: int


@dataclass(frozen=True)
class Match:
    """The query position occurred in ``record`` at ``move_number``, as
    ``element`` applied to the query (``element.swap``: colours exchanged)."""

    record: Record
    move_number: int
    element: Element

    @property
    def colours_exchanged(self) -> bool:
        return self.element.swap


@dataclass
class FindResult:
    """``total`` occurrences match; ``matches`` holds those from ``offset`` on, at most
    ``limit``.  ``rejected``: positions with the same key but other stones."""

    key: int
    total: int
    matches: list[Match]
    offset: int
    limit: int | None
    rejected: int


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


# -- the database ----------------------------------------------------------------------------


def _connect(path: str) -> sqlite3.Connection:
    try:
        db = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error as e:
        raise IndexFileError(f"cannot open the index: {e}", file=path) from None
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
    Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = False,
        scheme: str | SchemeFactory | None = None,
    ) -> None:
        self.path = os.fspath(path)
        exists = os.path.exists(self.path)
        if not exists and not create:
            raise IndexFileError("no such index (gohash index build creates one)", file=self.path)
        initialised = exists and _check_sqlite_file(self.path)
        if not initialised and not create:
            raise IndexFileError("an empty file, not a gohash index", file=self.path)
        self._db = _connect(self.path)
        try:
            if initialised:
                factory = self._check_existing(scheme)
            else:
                factory = _factory(scheme if scheme is not None else "huima64")
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
                f"{SCHEMA_VERSION}: build a new index",
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
        db.execute("INSERT INTO meta (name, value) VALUES ('scheme', ?)", (scheme_name,))
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

    # -- building ----------------------------------------------------------------------------

    @_database_errors
    def build(
        self,
        paths: Iterable[str],
        *,
        jobs: int = 1,
        files_per_commit: int = 1,
        progress: Callable[[BuildSummary], None] | None = None,
        suicide_allowed: bool | None = None,
    ) -> BuildSummary:
        """Index every SGF file of ``paths`` (files, folders, archives, ``-``).

        A file already indexed with the same SHA-256 is skipped; a changed one
        replaces its games.  Each file is written in one transaction (or each
        ``files_per_commit`` whole files: faster, and an interrupted build then
        loses up to that many files, which the next run indexes), so an
        interrupted build leaves a consistent index and running it again
        completes it.  ``jobs`` worker processes read and replay the files;
        this process writes.  If a worker dies, the inputs in hand are retried
        one at a time (a note says so); one whose retry kills its worker again
        is an error.  ``progress`` is called after each file.
        ``suicide_allowed`` holds for every game replayed if given, else each
        game's ``RU`` decides; files skipped as unchanged are not replayed again.
        """
        if files_per_commit < 1:
            raise GohashError(f"files per commit must be at least 1, not {files_per_commit!r}")
        db = self._db
        # Each file dirties a few hundred pages of the key index (keys are random);
        # checkpointing them into the database every 1000 pages (the default)
        # costs more than the whole build.  A WAL of up to 256 MiB costs only disk
        # space while building; it is folded back at the end.
        db.execute("PRAGMA wal_autocheckpoint = 65536")
        known: dict[str, str] = dict(db.execute("SELECT path, sha256 FROM files"))
        # Files are known by path as found: "./games/" and "games" must be one path.
        normalised = [path if path == "-" else os.path.normpath(path) for path in paths]
        tasks = list(_tasks(normalised, known, self.scheme_name, suicide_allowed))
        replay = functools.partial(
            input_frames, factory=self._factory, suicide_allowed=suicide_allowed
        )
        summary = BuildSummary()
        written = BuildSummary()  # files written in the open transaction
        try:
            for results in _prepared(tasks, replay, jobs, summary.notes.append):
                for item in results:
                    if isinstance(item, SourceError):
                        summary.errors.append(item.message)
                    elif item.unchanged:
                        summary.files_unchanged += 1
                    else:
                        if not db.in_transaction:
                            db.execute("BEGIN IMMEDIATE")
                        self._write(item, written)
                        if written.files_indexed >= files_per_commit:
                            db.execute("COMMIT")
                            summary.add(written)
                            written = BuildSummary()
                    if progress is not None:
                        progress(summary)
            if db.in_transaction:
                db.execute("COMMIT")
                summary.add(written)
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return summary

    def _write(self, item: FileFrames, summary: BuildSummary) -> None:
        """Replace the file's games, within the open transaction."""
        db = self._db
        old = db.execute("SELECT id FROM files WHERE path = ?", (item.path,)).fetchone()
        if old is not None:
            self._delete_file(old[0])
            summary.files_replaced += 1
        file_id = db.execute(
            "INSERT INTO files (path, sha256, games) VALUES (?, ?, ?)",
            (item.path, item.sha256, len(item.games)),
        ).lastrowid
        known = self._positions_with_keys(set(item.keys))
        next_id = db.execute("SELECT coalesce(max(id), 0) + 1 FROM positions").fetchone()[0]
        new_positions: list[tuple[int, SqlKey, bytes]] = []
        ids = []
        for key, frame in zip(item.keys, item.frames, strict=True):
            candidates = known.setdefault(key, {})
            position_id = candidates.get(frame)
            if position_id is None:
                position_id = candidates[frame] = next_id
                new_positions.append((next_id, key, frame))
                next_id += 1
            ids.append(position_id)
        for game in item.games:
            count = game.end - game.start
            game_id = db.execute(
                "INSERT INTO games (file_id, game, size, black, white, result, sha256, "
                "positions, moves, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (file_id, game.game, game.size, game.black, game.white, game.result,
                 game.sha256, count, game.moves, game.error),
            ).lastrowid
            rows = slice(game.start, game.end)
            db.executemany(
                "INSERT INTO occurrences (game_id, seq, move, position_id, element) "
                "VALUES (?, ?, ?, ?, ?)",
                zip([game_id] * count, range(count), item.moves[rows], ids[rows],
                    item.elements[rows], strict=True),
            )
            summary.games += 1
            summary.positions += count
        db.executemany("INSERT INTO positions (id, key, frame) VALUES (?, ?, ?)", new_positions)
        db.executemany(
            "INSERT INTO errors (file_id, game, move, message) VALUES (?, ?, ?, ?)",
            [(file_id, e.game, e.move, e.message) for e in item.errors],
        )
        summary.files_indexed += 1
        summary.new_positions += len(new_positions)
        summary.errors += [e.message for e in item.errors]

    def _positions_with_keys(self, keys: set[SqlKey]) -> dict[SqlKey, dict[bytes, int]]:
        found: dict[SqlKey, dict[bytes, int]] = {}
        ordered = list(keys)
        for start in range(0, len(ordered), 500):
            chunk = ordered[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for position_id, key, frame in self._db.execute(
                f"SELECT id, key, frame FROM positions WHERE key IN ({marks})", chunk
            ):
                found.setdefault(key, {})[frame] = position_id
        return found

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
        for table, column in (("errors", "file_id"), ("games", "file_id"), ("files", "id")):
            db.execute(f"DELETE FROM {table} WHERE {column} = ?", (file_id,))

    # -- searching -----------------------------------------------------------------------------

    @_database_errors
    def find(
        self,
        position: Board | npt.ArrayLike,
        *,
        colour_swap: bool = True,
        limit: int | None = 100,
        offset: int = 0,
    ) -> FindResult:
        """Every occurrence of ``position`` (a Board or an (N, N) array) up to symmetry
        and, unless ``colour_swap`` is False, colour exchange; confirmed exactly.

        Occurrences come in index order (file, game, move); ``limit`` (None: all)
        and ``offset`` page through them, and ``total`` counts them all.
        """
        arr = _position_array(position)
        keys = self.keys(arr.shape[0])
        key, frame, onto = frame_and_elements(arr, keys)
        element = onto[0]
        rows = self._db.execute(
            "SELECT id, frame FROM positions WHERE key = ?", sql_keys(keys.from_ints([key]))
        ).fetchall()
        ids = [position_id for position_id, stored in rows if stored == frame]
        if not ids:
            return FindResult(key, 0, [], offset, limit, len(rows))
        stabilizer = [element.inverse.compose(t) for t in onto]
        where = "o.position_id = ?"
        params: list[Any] = [ids[0]]
        if not colour_swap and not any(s.swap for s in stabilizer):
            # The element taking the query to an occurrence swaps colours iff
            # exactly one of the two frame elements does.
            where += " AND (o.element >= 8) = ?"
            params.append(int(element.swap))
        total = self._db.execute(
            f"SELECT count(*) FROM occurrences o WHERE {where}", params
        ).fetchone()[0]
        matches = []
        for move, stored_element, *record in self._db.execute(
            f"SELECT o.move, o.element, {_RECORD_COLUMNS} FROM occurrences o "
            f"JOIN games g ON g.id = o.game_id JOIN files f ON f.id = g.file_id "
            f"WHERE {where} ORDER BY o.game_id, o.seq LIMIT ? OFFSET ?",
            [*params, -1 if limit is None else limit, offset],
        ):
            back = ELEMENTS[stored_element].inverse.compose(element)
            coset = [back.compose(s) for s in stabilizer]
            allowed = [h for h in coset if colour_swap or not h.swap]
            matches.append(Match(Record(*record), move, min(allowed, key=lambda h: h.index)))
        return FindResult(key, total, matches, offset, limit, len(rows) - len(ids))

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
        game starts from the same few positions.
        """
        sequences: dict[int, list[int]] = {}
        last_element: dict[int, int] = {}
        for game_id, position_id, stored_element in self._db.execute(
            "SELECT game_id, position_id, element FROM occurrences ORDER BY game_id, seq"
        ):
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


_RECORD_COLUMNS = "g.id, f.path, g.game, g.size, g.black, g.white, g.result, g.moves"


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
    arr = np.asarray(position)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise PositionError(f"position array has shape {arr.shape!r}; expected (N, N)")
    check_size(arr.shape[0])
    if not np.issubdtype(arr.dtype, np.integer) or ((arr < 0) | (arr > 2)).any():
        raise PositionError("position array must hold integers 0 (empty), 1 (black), 2 (white)")
    # Not checked: that every group has a liberty; such a position is never found.
    return arr.astype(np.int8)


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
