"""Canon records as Arrow tables, written as Parquet parts (``gohash canon --format parquet``).

Scope: the schema of a canon dataset (:data:`POSITION_COLUMNS`,
:data:`GAME_COLUMNS`, :data:`FILE_COLUMNS`: one constant each, the Arrow
types made from them and each field's description stored in the files), the
conversion of a :class:`~gohash.pipeline.positions.PositionBatch` into a ``positions``
table (numpy columns passed to Arrow without a copy where the types agree),
and :func:`write_part`, which replays one partition of the input and writes
its ``positions`` part, and :func:`write_files`, which writes its ``games`` and
``files`` parts once the files before it are counted.  Reading a dataset back
(its marker, its parts, the frames an index stores) is :mod:`gohash.index.parquet`'s.
Splitting the input into partitions and running them (here, in worker
processes or on Dask) is :mod:`gohash.tools.dataset`'s job; this module needs pyarrow
and fsspec (the ``parquet`` extra), the rest of gohash does not.
"""

from __future__ import annotations

import hashlib
import math
import re
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import fsspec
import fsspec.implementations.local
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import GohashError, SgfError, name_text
from ..group.coords import gtp, sgf_letters
from ..group.schemes import scheme as get_scheme
from ..group.symmetry import ELEMENTS
from ..index.parquet import part_path
from ..index.records import (
    first_date,
    rank_level,
    result_text,
    winner,
)
from ..metadata import FIELDS
from ..pipeline.positions import GameTable, PositionBatch, read_positions
from ..sgf.inputs import Input, Skipped, Source
from ..sgf.pack import PackedSlice, read_slice
from ..sgf.sources import read_input
from .canon import CanonOptions

__all__ = [
    "FILE_COLUMNS",
    "GAME_COLUMNS",
    "POSITION_COLUMNS",
    "TABLES",
    "Item",
    "Part",
    "PartResult",
    "files_schema",
    "games_schema",
    "positions_schema",
    "positions_table",
    "write_files",
    "write_part",
]

TABLES = ("positions", "games", "files")

POSITION_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("file", "dictionary<int32, string>", "the SGF source, as JSON Lines' file"),
    ("game", "int32", "0-based index of the game in its file"),
    ("variation", "list<int32>", "child indexes at branch points; empty on the main line"),
    ("move_number", "int32", "moves played before this position on its line (0: start)"),
    ("colour", "dictionary<int8, string>", "'b' or 'w', the move that led here; null if none"),
    ("move", "dictionary<int16, string>", "SGF letters of that move, '' a pass, null if none"),
    ("gtp", "dictionary<int16, string>", "GTP vertex of that move ('D16', 'pass'), null if none"),
    ("to_move", "dictionary<int8, string>", "'b' or 'w': the side to move in this position"),
    ("setup", "bool", "whether the node that led here has setup stones (AB, AW, AE)"),
    ("hash", "uint64 | fixed_size_binary(16)",
     "position hash: uint64 for the 64-bit schemes, 16 big-endian bytes for regular128 "
     "(the default); the marker's bits says which"),
    ("key", "uint64 | fixed_size_binary(16)",
     "canonical key, as wide as hash: a filter, two positions are equal only if position is"),
    ("transform", "dictionary<int8, string>",
     "the lowest element mapping the position onto its frame"),
    ("symmetries", "list<dictionary<int8, string>>",
     "every element mapping the position onto itself"),
    ("position", "binary",
     "with --position only: the frame (canonical form), packed as Board.position_key"),
)
"""Name, type and meaning of each column of the ``positions`` table, in order."""

_FILE_ID = ("file_id", "int64",
            "the file's number in the dataset, from 0, in the order of the input listing "
            "(its row in the files table of all partitions in order); the same in the games "
            "and files tables")

GAME_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("file", "string", "the SGF source"),
    _FILE_ID,
    ("game", "int32", "0-based index of the game in its file"),
    ("size", "uint8", "board size"),
    *((f.name, f.parquet, f.meaning) for f in FIELDS),
    ("moves", "int32", "the highest move number on the main line"),
    ("positions", "int32", "rows of the game in the positions table"),
    ("errors", "list<string>", "errors of the game (it is cut short at the first)"),
    ("iso_date", "string", "the first date of DT, YYYY-MM-DD, YYYY-MM or YYYY as given; "
                           "null if none (the index's date)"),
    ("year", "int32", "the year of iso_date; null if none"),
    ("winner", "string", "'B' or 'W' when RE names a winner, else null"),
    ("outcome", "string", "RE in one form: B+R, W+T, B+F, W+3.5, B+, Draw, Void, ?, else as "
                          "recorded; null without RE"),
    ("black_level", "int32", "BR as a level that orders ranks (30k is 0, 1d 30, 1p 101); "
                             "null if not a rank gohash reads"),
    ("white_level", "int32", "WR as a level, as black_level"),
)
"""Name, type and meaning of each column of the ``games`` table, in order: the file,
the root's fields as recorded (:data:`gohash.metadata.FIELDS`), counts, then what the
index computes from the root (:mod:`gohash.index.records`)."""

FILE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("file", "string", "the SGF source"),
    _FILE_ID,
    ("sha256", "fixed_size_binary(32)",
     "SHA-256 of its bytes as read; null if unreadable or not read"),
    ("bytes", "int64",
     "its size in bytes as read (UTF-16 text: once decoded); null if unreadable or not read"),
    ("games", "int32", "games read in it (those that did not begin included)"),
    ("notes", "list<string>", "notes on how it was read, or why not (a pipe found in a folder)"),
    ("errors", "list<struct<game: int32, move_number: int32, message: string>>",
     "every error met in it, in order, located"),
)
"""Name, type and meaning of each column of the ``files`` table, in order."""

# The fields kept as text (KM is a number here, HA read as one).
_TEXT = {f.name: f.prop for f in FIELDS if f.text and f.parquet == "string"}
_ERROR = pa.struct([("game", pa.int32()), ("move_number", pa.int32()),
                    ("message", pa.string())])
_ELEMENT_NAMES = [e.name for e in ELEMENTS]
# Positions per batch of read_positions(): one row group each.
_BATCH = 1 << 16
_NUMBER = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)\s*")


def _schema(columns: tuple[tuple[str, str, str], ...], types: dict[str, pa.DataType],
            names: Iterable[str] | None = None) -> pa.Schema:
    described = {name: text for name, _, text in columns}
    wanted = [name for name, _, _ in columns] if names is None else list(names)
    return pa.schema([
        pa.field(name, types[name], metadata={"description": described[name]})
        for name in wanted
    ])


def positions_schema(bits: int, position: bool) -> pa.Schema:
    """The ``positions`` schema of a scheme of ``bits`` (64 or 128) bits, with the
    ``position`` column if asked for."""
    word = pa.uint64() if bits == 64 else pa.binary(16)
    types = {
        "file": pa.dictionary(pa.int32(), pa.string()), "game": pa.int32(),
        "variation": pa.list_(pa.int32()), "move_number": pa.int32(),
        "colour": pa.dictionary(pa.int8(), pa.string()),
        "move": pa.dictionary(pa.int16(), pa.string()),
        "gtp": pa.dictionary(pa.int16(), pa.string()),
        "to_move": pa.dictionary(pa.int8(), pa.string()), "setup": pa.bool_(),
        "hash": word, "key": word,
        "transform": pa.dictionary(pa.int8(), pa.string()),
        "symmetries": pa.list_(pa.dictionary(pa.int8(), pa.string())),
        "position": pa.binary(),
    }
    names = [name for name, _, _ in POSITION_COLUMNS if position or name != "position"]
    return _schema(POSITION_COLUMNS, types, names)


def games_schema() -> pa.Schema:
    """The ``games`` schema."""
    types: dict[str, pa.DataType] = {name: pa.string() for name in (*_TEXT, "file")}
    types |= {"file_id": pa.int64(), "game": pa.int32(), "size": pa.uint8(),
              "komi": pa.float64(), "handicap": pa.int32(), "moves": pa.int32(),
              "positions": pa.int32(), "errors": pa.list_(pa.string()),
              "iso_date": pa.string(), "year": pa.int32(), "winner": pa.string(),
              "outcome": pa.string(), "black_level": pa.int32(), "white_level": pa.int32()}
    return _schema(GAME_COLUMNS, types)


def files_schema() -> pa.Schema:
    """The ``files`` schema."""
    types = {"file": pa.string(), "file_id": pa.int64(), "sha256": pa.binary(32),
             "bytes": pa.int64(),
             "games": pa.int32(), "notes": pa.list_(pa.string()), "errors": pa.list_(_ERROR)}
    return _schema(FILE_COLUMNS, types)


# -- positions: batch to table -----------------------------------------------------------------


@cache
def _move_dictionary(sizes: tuple[int, ...]) -> tuple[pa.Array, pa.Array, npt.NDArray[np.int64]]:
    """SGF and GTP names of a pass and of every point of each size, one after the other,
    and where each size's names start (indexed by size)."""
    letters: list[str] = []
    vertices: list[str] = []
    base = np.zeros(27, dtype=np.int64)
    for size in sizes:
        base[size] = len(letters)
        points = [None, *(divmod(i, size) for i in range(size * size))]
        letters += [sgf_letters(p, size) for p in points]
        vertices += [gtp(p, size) for p in points]
    return pa.array(letters), pa.array(vertices), base


def _words(values: npt.NDArray[np.uint64]) -> pa.Array:
    """A hash column: uint64 as it is, 128 bits (high, low words) as 16 big-endian bytes."""
    if values.ndim == 1:
        return pa.array(values)
    data = np.ascontiguousarray(values).astype(">u8")
    return pa.Array.from_buffers(pa.binary(16), len(values), [None, pa.py_buffer(data)])


# Set bits of every 16-bit mask: most rows have the identity alone, counted here.
_BITS = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.int32)


def _symmetries(symmetries: npt.NDArray[np.uint16]) -> pa.Array:
    """Each row's bit mask over ELEMENTS as the list of their names."""
    count = len(symmetries)
    offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(_BITS[symmetries], out=offsets[1:])
    values = np.zeros(int(offsets[-1]), dtype=np.int8)  # the identity, first of every list
    rare = np.flatnonzero(symmetries != 1)
    if len(rare):
        bits = symmetries[rare, np.newaxis] >> np.arange(16, dtype=np.uint16) & 1
        rows, elements = np.nonzero(bits)  # row-major: each row's elements in order
        within = np.arange(len(rows)) - np.searchsorted(rows, rows)
        values[offsets[rare[rows]] + within] = elements
    names = pa.DictionaryArray.from_arrays(pa.array(values), pa.array(_ELEMENT_NAMES))
    return pa.ListArray.from_arrays(pa.array(offsets), names)


def positions_table(batch: PositionBatch, position: bool, variations: bool) -> pa.Table:
    """The ``positions`` rows of one batch, as :data:`POSITION_COLUMNS` says: the rows of
    ``gohash canon`` in order; ``position`` adds the frames (the batch must hold them);
    ``variations`` says whether the batch may hold rows off the main line."""
    count = len(batch)
    ids = sorted(batch.files)
    names = pa.array([name_text(batch.files[i]) for i in ids], pa.string())
    # A batch's file ids run on from its first one (searched for, were there gaps).
    where = (batch.file - ids[0] if ids and ids[-1] - ids[0] == len(ids) - 1
             else np.searchsorted(np.array(ids, dtype=np.int32), batch.file))
    file = pa.DictionaryArray.from_arrays(pa.array(where.astype(np.int32, copy=False)), names)
    if variations:
        paths = pa.array([list(p) for p in batch.variations], pa.list_(pa.int32()))
        variation = paths.take(pa.array(batch.variation))
    else:
        variation = pa.ListArray.from_arrays(
            pa.array(np.zeros(count + 1, dtype=np.int32)), pa.array([], pa.int32())
        )
    no_move = batch.colour == 0
    colour = pa.DictionaryArray.from_arrays(
        pa.array(batch.colour - 1, mask=no_move), pa.array(["b", "w"])
    )
    # bincount, not unique: unique sorts every row of the batch.
    sizes = np.flatnonzero(np.bincount(batch.size)).tolist()
    letters, vertices, base = _move_dictionary(tuple(sizes))
    where = pa.array((base[batch.size] + batch.point + 1).astype(np.int16), mask=no_move)
    columns: dict[str, pa.Array] = {
        "file": file,
        "game": pa.array(batch.game),
        "variation": variation,
        "move_number": pa.array(batch.move_number),
        "colour": colour,
        "move": pa.DictionaryArray.from_arrays(where, letters),
        "gtp": pa.DictionaryArray.from_arrays(where, vertices),
        "to_move": pa.DictionaryArray.from_arrays(
            pa.array(batch.to_move - 1), pa.array(["b", "w"])
        ),
        "setup": pa.array(batch.setup),
        "hash": _words(batch.hash),
        "key": _words(batch.canonical),
        "transform": pa.DictionaryArray.from_arrays(
            pa.array(batch.transform.astype(np.int8)), pa.array(_ELEMENT_NAMES)
        ),
        "symmetries": _symmetries(batch.symmetries),
    }
    if position:
        if batch.frame_offsets is None or batch.frame_data is None:
            raise GohashError("a positions table with position needs frames (frames=True)")
        offsets = pa.py_buffer(batch.frame_offsets.astype(np.int32))
        columns["position"] = pa.Array.from_buffers(
            pa.binary(), count, [None, offsets, pa.py_buffer(batch.frame_data)]
        )
    bits = 64 if batch.hash.ndim == 1 else 128
    return pa.Table.from_pydict(columns, schema=positions_schema(bits, position))


# -- one partition: replayed and written -------------------------------------------------------

Item = Input | Source | SgfError | Skipped | PackedSlice
"""What a partition holds: an input its task reads (a file, an archive), the bytes of
a source read beforehand (standard input), an error met while finding it, an input
not read (a note), or rows of a packed dataset (:mod:`gohash.sgf.pack`)."""


@dataclass(frozen=True)
class Part:
    """Partition ``number`` of a run: its items, in input order."""

    number: int
    items: tuple[Item, ...]


@dataclass
class PartResult:
    """What writing a partition found: counts, and its errors and notes in order;
    and its ``games`` and ``files`` tables (``tables``), their ``file_id``
    counted from 0 in the partition, which :func:`write_files` writes."""

    number: int
    files: int = 0
    games: int = 0
    positions: int = 0
    errors: list[GohashError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tables: dict[str, pa.Table] = field(default_factory=dict)


def _sources(items: Sequence[Item]) -> Iterator[Source | SgfError | Skipped]:
    for item in items:
        if isinstance(item, Input):
            yield from read_input(item)
        elif isinstance(item, PackedSlice):
            yield from read_slice(item)
        else:
            yield item


# The games of a batch: each one's row in the files table, the batch's GameTable,
# the moves of each game's main line and its positions.
_GameChunk = tuple[list[int], GameTable, npt.NDArray[np.int32], npt.NDArray[np.int32]]


class _Files:
    """The sources a partition read, by the id read_positions() gives them, and what the
    batches say about each: the rows of the ``games`` and ``files`` tables."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, bytes | None, int | None]] = []  # file, sha256, bytes
        self.row_of: dict[int, int] = {}  # the row of each id read_positions() gives a source
        self.errors: dict[int, list[GohashError]] = {}  # by row
        self.notes: dict[int, list[str]] = {}
        self.games: dict[int, int] = {}
        self.game_chunks: list[_GameChunk] = []
        self.sources = 0

    def read(self, items: Sequence[Item]) -> Iterator[Source]:
        for source in _sources(items):
            if isinstance(source, SgfError):
                self.errors[len(self.rows)] = [source]
                self.rows.append((name_text(source.file or ""), None, None))
                continue
            if isinstance(source, Skipped):  # a pipe found in a folder: a note
                self.notes[len(self.rows)] = [str(source)]
                self.rows.append((name_text(source.name), None, None))
                continue
            self.rows.append((name_text(source.name), hashlib.sha256(source.data).digest(),
                              len(source.data)))
            self.row_of[self.sources] = len(self.rows) - 1
            self.sources += 1
            yield source

    def take(self, batch: PositionBatch) -> None:
        """The games, errors and notes of a batch."""
        row_of = self.row_of
        for file_id, count in batch.file_games.items():
            self.games[row_of[file_id]] = self.games.get(row_of[file_id], 0) + count
        for error, file_id in zip(batch.errors, batch.error_files, strict=True):
            self.errors.setdefault(row_of[file_id], []).append(error)
        for note, file_id in zip(batch.notes, batch.note_files, strict=True):
            self.notes.setdefault(row_of[file_id], []).append(note)
        games = batch.games
        # Rows come file by file, game by game: one sorted key finds each game's rows.
        row_keys = batch.file.astype(np.int64) << 32 | batch.game
        game_keys = games.file.astype(np.int64) << 32 | games.game
        starts = np.searchsorted(row_keys, game_keys, side="left")
        ends = np.searchsorted(row_keys, game_keys, side="right")
        main = np.where(batch.variation == 0, batch.move_number, 0)
        moves = np.zeros(len(starts), dtype=np.int64)
        rows = np.flatnonzero(ends > starts)
        if len(rows):  # a game's rows run up to the next game's: every row has its game
            moves[rows] = np.maximum.reduceat(main, starts[rows])
        self.game_chunks.append((
            [row_of[file_id] for file_id in games.file.tolist()], games,
            moves.astype(np.int32), (ends - starts).astype(np.int32),
        ))

    def games_table(self) -> pa.Table:
        by_game: dict[tuple[int, int], list[str]] = {}
        for row, errors in self.errors.items():
            for error in errors:
                if error.game is not None:
                    by_game.setdefault((row, error.game), []).append(str(error))
        chunks = self.game_chunks
        file_rows = [row for chunk in chunks for row in chunk[0]]

        def column(take: Callable[[_GameChunk], npt.NDArray[Any]],
                   dtype: type) -> npt.NDArray[Any]:
            return np.concatenate([take(c) for c in chunks]) if chunks else np.zeros(0, dtype)

        def text(prop: str) -> list[str | None]:
            return [value for chunk in chunks for value in chunk[1].text[prop]]

        game = column(lambda c: c[1].game, np.int32)
        columns: dict[str, Any] = {
            "file": [self.rows[row][0] for row in file_rows],
            "file_id": file_rows, "game": game,
            "size": column(lambda c: c[1].size, np.uint8),
        }
        for name, prop in _TEXT.items():
            columns[name] = text(prop)
        columns["komi"] = [_komi(km) for km in text("KM")]
        columns["handicap"] = column(lambda c: c[1].handicap, np.int32)
        columns["moves"] = column(lambda c: c[2], np.int32)
        columns["positions"] = column(lambda c: c[3], np.int32)
        columns["errors"] = [by_game.get(key, []) for key in zip(file_rows, game.tolist(),
                                                                  strict=True)]
        dates = [first_date(dt) for dt in columns["date"]]
        columns["iso_date"] = dates
        columns["year"] = [None if d is None else int(d[:4]) for d in dates]
        columns["winner"] = [winner(re) for re in columns["result"]]
        columns["outcome"] = [result_text(re) for re in columns["result"]]
        columns["black_level"] = [rank_level(rank) for rank in columns["black_rank"]]
        columns["white_level"] = [rank_level(rank) for rank in columns["white_rank"]]
        return pa.Table.from_pydict(columns, schema=games_schema())

    def files_table(self) -> pa.Table:
        rows = range(len(self.rows))
        return pa.Table.from_pydict({
            "file": [r[0] for r in self.rows],
            "file_id": list(rows),
            "sha256": [r[1] for r in self.rows],
            "bytes": [r[2] for r in self.rows],
            "games": [self.games.get(i, 0) for i in rows],
            "notes": [self.notes.get(i, []) for i in rows],
            "errors": [[{"game": e.game, "move_number": e.move_number, "message": str(e)}
                        for e in self.errors.get(i, [])] for i in rows],
        }, schema=files_schema())

    def result(self, number: int, count: int, tables: dict[str, pa.Table]) -> PartResult:
        rows = range(len(self.rows))
        return PartResult(
            number, self.sources, sum(self.games.values()), count,
            [e for i in rows for e in self.errors.get(i, [])],
            [n for i in rows for n in self.notes.get(i, [])], tables,
        )


def _komi(text: str | None) -> float | None:
    if text is None or not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


_POSITION_DICTIONARY = ["file", "colour", "move", "gtp", "transform", "symmetries.list.element"]
# Statistics where a reader can skip row groups by them (keys are random: no use).
_POSITION_STATISTICS = ["file", "game", "move_number"]


def write_part(part: Part, root: str, options: CanonOptions) -> PartResult:
    """Replay the items of ``part`` and write its part of the ``positions`` table into
    the dataset at ``root`` (a path or fsspec URL), replacing any earlier copy; its
    ``games`` and ``files`` tables are in the result, for :func:`write_files`.
    Errors in the input are collected in the result, never raised."""
    fs, path = fsspec.core.url_to_fs(root)
    bits = get_scheme(options.scheme, 19).bits
    files = _Files()
    temporary = _temporary(path, part.number, ("positions",))
    count = 0
    fs.makedirs(f"{path}/positions", exist_ok=True)
    try:
        # Parquet encodes and compresses without the GIL: in a thread of its own it
        # overlaps the replay of the next batch.  Two batches in flight at most.
        with _output(fs, temporary["positions"]) as out, pq.ParquetWriter(
            out, positions_schema(bits, options.position), compression="zstd",
            use_dictionary=_POSITION_DICTIONARY, write_statistics=_POSITION_STATISTICS,
        ) as writer, ThreadPoolExecutor(1) as thread:
            pending: deque[Future[None]] = deque()
            for batch in read_positions(
                files.read(part.items), scheme=options.scheme, variations=options.variations,
                symmetry=options.symmetry, frames=options.position,
                suicide_allowed=options.suicide_allowed, batch_size=_BATCH,
            ):
                files.take(batch)
                if len(batch):
                    table = positions_table(batch, options.position, options.variations)
                    if len(pending) == 2:
                        pending.popleft().result()
                    pending.append(thread.submit(writer.write_table, table))
                    count += len(batch)
            # Made while the last batch is written.
            tables = {"games": files.games_table(), "files": files.files_table()}
            while pending:
                pending.popleft().result()
        fs.mv(temporary["positions"], part_path(path, "positions", part.number))
    finally:
        _remove(fs, temporary)
    return files.result(part.number, count, tables)


def write_files(result: PartResult, root: str, first_file: int) -> int:
    """Write the ``games`` and ``files`` parts of the partition of ``result`` into the
    dataset at ``root``, replacing any earlier copy, with ``first_file`` (the files
    of the partitions before it) added to each ``file_id``; the files it holds.
    The ids are then the files' numbers in the input listing: small, and the same
    however the partitions ran."""
    fs, path = fsspec.core.url_to_fs(root)
    temporary = _temporary(path, result.number, ("games", "files"))
    try:
        for table in ("games", "files"):
            data = result.tables[table]
            column = data.schema.get_field_index("file_id")
            data = data.set_column(column, data.schema.field(column),
                                   pc.add(data["file_id"], pa.scalar(first_file, pa.int64())))
            fs.makedirs(f"{path}/{table}", exist_ok=True)
            with _output(fs, temporary[table]) as out:
                pq.write_table(data, out, compression="zstd")
        for table in ("games", "files"):
            fs.mv(temporary[table], part_path(path, table, result.number))
    finally:
        _remove(fs, temporary)
    rows: int = result.tables["files"].num_rows
    return rows


def _temporary(path: str, number: int, tables: Iterable[str]) -> dict[str, str]:
    """Where partition ``number``'s parts of ``tables`` are written before they are
    moved into place (a killed task leaves them: the run's end removes them)."""
    token = uuid.uuid4().hex
    return {t: f"{path}/{t}/.part-{number:05d}.parquet.{token}.tmp" for t in tables}


def _remove(fs: Any, temporary: dict[str, str]) -> None:
    for name in temporary.values():
        if fs.exists(name):
            fs.rm(name)


def _output(fs: Any, path: str) -> Any:
    """A file of ``fs`` to write: on the local disk, Arrow's own, so that the
    writer's thread writes without the GIL (through a Python file object it took
    the GIL for every page, and the thread slowed the replay it should overlap:
    Parquet output at 52% of the replay's speed against 77%)."""
    if isinstance(fs, fsspec.implementations.local.LocalFileSystem):
        return pa.OSFile(path, "wb")
    return fs.open(path, "wb")
