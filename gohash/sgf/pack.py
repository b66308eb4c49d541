"""Packed datasets: many small SGF files in a few Parquet parts, read back.

Scope: the format, recognising a dataset (:func:`is_pack`), and reading its
records back as :class:`~gohash.sgf.inputs.Source` objects, whole
(:func:`read_packed`, which :func:`gohash.sgf.sources.read_input` calls, so every
command reads a packed dataset as it reads a folder) or a few row groups at a
time (:func:`slices`, :func:`read_slice`: the partitions of
:mod:`gohash.tools.dataset`).  Needs pyarrow (the ``parquet`` extra) to write or
read records; recognising a dataset does not.  Writing one is
:mod:`gohash.tools.pack`'s job.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import GohashError, SgfError, SgfLimitError, shown_name
from .inputs import (
    MAX_INPUT_NOTES,
    MAX_SOURCE_BYTES,
    PACK_MARKER,
    Budget,
    Input,
    Meter,
    Source,
    budget_for,
    special_file,
)

__all__ = [
    "GROUP_BYTES",
    "MAX_PATH_LENGTH",
    "PACK_COLUMNS",
    "PACK_FORMAT",
    "PACK_VERSION",
    "READ_GROUP_BYTES",
    "PackedSlice",
    "is_pack",
    "pack_inputs",
    "pack_schema",
    "pyarrow_module",
    "read_packed",
    "read_slice",
    "slices",
]

PACK_FORMAT = "gohash-pack"
PACK_VERSION = 1
GROUP_BYTES = 1024 * 1024
"""SGF bytes per row group, at most (a larger source goes alone)."""
READ_GROUP_BYTES = MAX_SOURCE_BYTES + GROUP_BYTES
"""A row group whose ``data`` holds more than this (uncompressed, as its metadata
says) is read one record at a time."""
MAX_PATH_LENGTH = 16 * 1024
"""The longest ``path`` a packed record may have, in characters: room for a path
and an archive member's name each beyond Linux's PATH_MAX (4,096 bytes); a
record's name is repeated in every position and message written for it."""
MARKER_BYTES = 64 * 1024 * 1024
"""The largest marker read (some 30 bytes a part)."""

PACK_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("path", "string", "the source's name as gohash found it (archive members: ARCHIVE:MEMBER; "
                       "bytes that are not UTF-8 as \\xHH)"),
    ("data", "binary", "its bytes as read (UTF-16 text decoded to UTF-8)"),
    ("sha256", "fixed_size_binary(32)", "SHA-256 of data"),
    ("notes", "list<string>", "notes on how it was read (UTF-16 decoded)"),
)
"""Name, type and meaning of each column of a pack part, in order."""


@dataclass(frozen=True)
class PackedSlice:
    """Row groups of one part of a packed dataset, and the SGF bytes they hold."""

    path: str
    row_groups: tuple[int, ...]
    bytes: int


def pyarrow_module() -> Any:
    try:
        import pyarrow
        import pyarrow.compute
        import pyarrow.parquet
    except ImportError:
        raise GohashError(
            "packed datasets need pyarrow: pip install 'gohash[parquet]'"
        ) from None
    return pyarrow


def pack_schema() -> Any:
    pa = pyarrow_module()
    types = {"path": pa.string(), "data": pa.binary(), "sha256": pa.binary(32),
             "notes": pa.list_(pa.string())}
    return pa.schema([pa.field(name, types[name], metadata={"description": text})
                      for name, _, text in PACK_COLUMNS])


def is_pack(path: str) -> bool:
    """Whether ``path`` is a folder holding a packed dataset's marker."""
    return os.path.isfile(os.path.join(path, PACK_MARKER))


def _marker(path: str) -> dict[str, Any]:
    name = os.path.join(path, PACK_MARKER)
    try:
        with open(name, "rb") as f:
            text = f.read(MARKER_BYTES + 1)
        if len(text) > MARKER_BYTES:
            raise ValueError(f"larger than the limit of {MARKER_BYTES} bytes")
        info = json.loads(text)
    except (OSError, ValueError, RecursionError) as e:  # RecursionError: nested too deep
        reason = "nested too deeply" if isinstance(e, RecursionError) else e
        raise SgfError(f"cannot read the packed dataset's marker {PACK_MARKER}: {reason}",
                       file=path) from None
    if not isinstance(info, dict) or info.get("format") != PACK_FORMAT:
        raise SgfError(f"{PACK_MARKER} does not describe a {PACK_FORMAT} dataset", file=path)
    if info.get("version") != PACK_VERSION:
        raise SgfError(
            f"packed dataset version {info.get('version')!r}; this gohash reads "
            f"version {PACK_VERSION}", file=path,
        )
    parts = info.get("parts")
    if not isinstance(parts, list) or not all(
        isinstance(p, str) and os.path.basename(p) == p and p not in _NOT_PARTS for p in parts
    ):
        raise SgfError(f"{PACK_MARKER} lists no valid parts", file=path)
    return info


# Names that are no file of the dataset's folder: the folder itself, its parent.
_NOT_PARTS = frozenset(("", ".", ".."))


def pack_inputs(path: str) -> Iterator[Input]:
    """One input per part of the packed dataset at ``path``, in order; a damaged
    marker gives one input whose reading reports it."""
    try:
        parts = _marker(path)["parts"]
    except SgfError:
        yield Input("packed", path, DAMAGED_MARKER)
        return
    for part in parts:
        yield Input("packed", os.path.join(path, part))


DAMAGED_MARKER = "damaged marker"
"""The ``format`` of the one input :func:`pack_inputs` gives for a dataset whose
marker it cannot read: reading it reports why."""


def read_packed(inp: Input, budget: Budget | None = None) -> Iterator[Source | SgfError]:
    """Every record of one part (an input of :func:`pack_inputs`), in order, within
    ``budget`` (by default :func:`gohash.sgf.inputs.budget_for` the part's size).
    A part that is a pipe, socket or device is an error, never opened."""
    if inp.format == DAMAGED_MARKER:
        try:
            _marker(inp.name)
        except SgfError as e:
            yield e
        return
    special = special_file(inp.name)
    if special is not None:
        yield SgfError(f"the packed part is {special}, not a regular file: not read",
                       file=inp.name)
        return
    try:
        count = _open(inp.name).num_row_groups
    except SgfError as e:
        yield e
        return
    yield from read_slice(PackedSlice(inp.name, tuple(range(count)), 0), budget)


def _open(path: str, text_as_dictionary: bool = False) -> Any:
    """The part at ``path``, its columns checked; ``text_as_dictionary`` reads
    ``path`` and ``notes`` as Arrow dictionaries, so that a value repeated in
    many records is not repeated in memory before it is counted."""
    pq = pyarrow_module().parquet
    try:
        part = pq.ParquetFile(path)
    except (OSError, ValueError) as e:
        raise SgfError(f"cannot read the packed part: {e}", file=path) from None
    schema = part.schema_arrow
    for name, type_name, _ in PACK_COLUMNS:
        found = schema.get_all_field_indices(name)
        if len(found) != 1:
            count = f"{len(found)} columns" if found else "no column"
            raise SgfError(f"not a packed part: {count} {name!r}", file=path)
        column_type = schema.field(found[0]).type
        if not _TYPE_CHECKS[name](column_type):
            raise SgfError(f"not a packed part: column {name!r} is {str(column_type)!r}, "
                           f"not {type_name}", file=path)
    if text_as_dictionary:
        schema = part.metadata.schema
        try:
            part = pq.ParquetFile(path, read_dictionary=[
                schema.column(i).path for i in _text_columns(part.metadata)])
        except (OSError, ValueError) as e:
            raise SgfError(f"cannot read the packed part: {e}", file=path) from None
    return part


def _is_text(t: Any) -> bool:
    pa = pyarrow_module()
    if pa.types.is_dictionary(t):
        t = t.value_type
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t))


def _is_list_of_text(t: Any) -> bool:
    pa = pyarrow_module()
    return bool((pa.types.is_list(t) or pa.types.is_large_list(t)) and _is_text(t.value_type))


def _is_bytes(t: Any) -> bool:
    pa = pyarrow_module()
    return bool(pa.types.is_binary(t) or pa.types.is_large_binary(t))


def _is_digest(t: Any) -> bool:
    pa = pyarrow_module()
    return bool(pa.types.is_fixed_size_binary(t) and t.byte_width == 32)


# What each column's type may be: as pack writes it, or its large variant.
_TYPE_CHECKS = {"path": _is_text, "data": _is_bytes, "sha256": _is_digest,
                "notes": _is_list_of_text}


def _data_column(metadata: Any) -> int:
    """The index of the ``data`` column among a part's Parquet columns, where a
    nested column counts one per leaf (a part :func:`_open` accepted has one)."""
    schema = metadata.schema
    return next(i for i in range(len(schema)) if schema.column(i).path == "data")


def slices(path: str, max_bytes: int) -> list[PackedSlice]:
    """The row groups of one part, in runs of up to ``max_bytes`` of SGF (at least one
    row group each)."""
    metadata = _open(path).metadata
    column = _data_column(metadata)
    found: list[PackedSlice] = []
    groups: list[int] = []
    size = 0
    for group in range(metadata.num_row_groups):
        more = metadata.row_group(group).column(column).total_uncompressed_size
        if groups and size + more > max_bytes:
            found.append(PackedSlice(path, tuple(groups), size))
            groups, size = [], 0
        groups.append(group)
        size += more
    if groups:
        found.append(PackedSlice(path, tuple(groups), size))
    return found


def read_slice(part: PackedSlice, budget: Budget | None = None) -> Iterator[Source | SgfError]:
    """The records of some row groups of a part, checked against their SHA-256 and the
    size limit, within ``budget`` (by default :func:`_slice_budget`); a part that
    cannot be read is one error, and so is the rest of a slice beyond its budget.

    Every column read counts against the budget, as the bytes it expands to (a
    ``path`` or ``notes`` dictionary as every record that names a value),
    counted before any value becomes a Python object; the notes kept are at most
    :data:`~gohash.sgf.inputs.MAX_INPUT_NOTES`, shown escaped."""
    try:
        reader = _open(part.path, text_as_dictionary=True)
        meter = Meter(part.path, budget or _slice_budget(part.path, reader.metadata,
                                                         part.row_groups))
    except (SgfError, OSError) as e:
        yield e if isinstance(e, SgfError) else SgfError(f"cannot read it: {e}", file=part.path)
        return
    names = [name for name, _, _ in PACK_COLUMNS]
    data_column = _data_column(reader.metadata)
    text_columns = _text_columns(reader.metadata)
    notes = _Notes(part.path)
    pa = pyarrow_module()
    for group in part.row_groups:
        metadata = reader.metadata.row_group(group)
        chunk = metadata.column(data_column)
        size = chunk.total_uncompressed_size
        # A dictionary's values (which pack does not write) are repeated in every
        # record that names them: its size says nothing of the records'.
        dictionary = chunk.has_dictionary_page
        if size > READ_GROUP_BYTES and (dictionary or metadata.num_rows == 1):
            what = "a dictionary of data" if dictionary else "one record"
            yield SgfLimitError(f"row group {group} holds {what} larger than the limit "
                                f"of {MAX_SOURCE_BYTES:,} bytes", file=part.path)
            continue
        # Each path and note read costs at least an offset or index: a row group of
        # more than the budget allows is refused before it is decoded.
        values = sum(metadata.column(i).num_values for i in text_columns)
        try:
            meter.afford(_VALUE_BYTES * values)
        except SgfError as e:
            yield e
            return
        # A row group unlike those pack writes is read a record at a time.
        tables = iter([reader.read_row_group(group, columns=names)]) if (
            size <= READ_GROUP_BYTES and not dictionary and values <= _WHOLE_GROUP_VALUES
        ) else reader.iter_batches(batch_size=1, row_groups=[group], columns=names)
        while True:
            try:
                start = time.thread_time()
                table = next(tables, None)
                seconds = time.thread_time() - start
                if table is None:
                    break
                expanded = sum(_expanded_bytes(table.column(name)) for name in names)
            except (OSError, ValueError, pa.ArrowException) as e:
                yield SgfError(f"cannot read row group {group} of the packed part: {e}",
                               file=part.path)
                break
            try:
                meter.charge(expanded, seconds)
            except SgfError as e:
                yield e
                return
            paths, datas, digests = (table.column(name).to_pylist() for name in names[:3])
            yield from _records(part.path, group, paths, datas, digests,
                                notes.take(table.column("notes")))


# What a path or note costs at the least once read: its offset or dictionary index.
_VALUE_BYTES = 4
# Paths and notes a row group may hold to be read whole (pack writes one note at
# most per record); beyond, it is read a record at a time.
_WHOLE_GROUP_VALUES = 100_000


def _text_columns(metadata: Any) -> list[int]:
    """The Parquet columns of ``path`` and ``notes`` (a nested column: its leaf)."""
    schema = metadata.schema
    return [i for i in range(len(schema))
            if schema.column(i).path.split(".")[0] in ("path", "notes")]


def _expanded_bytes(column: Any) -> int:
    """The bytes ``column`` (an Arrow array, chunked or not) holds once every value is its
    own: a dictionary's values counted as often as they are named, 4 bytes an
    offset.  Computed on the arrays, without making a value."""
    return sum(_array_bytes(chunk) for chunk in _chunks(column))


def _chunks(column: Any) -> list[Any]:
    """The arrays of a table's column (chunked) or a record batch's (one array)."""
    return list(getattr(column, "chunks", [column]))


def _array_bytes(array: Any) -> int:
    pa = pyarrow_module()
    kind = array.type
    if pa.types.is_dictionary(kind):
        lengths = pa.compute.binary_length(array.dictionary).fill_null(0).to_numpy()
        indices = pa.compute.drop_null(array.indices).to_numpy()
        named = np.bincount(indices, minlength=len(lengths))[: len(lengths)]
        return _VALUE_BYTES * len(array) + int(named @ lengths)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _VALUE_BYTES * len(array) + _array_bytes(array.flatten())
    if _is_text(kind) or _is_bytes(kind):
        total = pa.compute.sum(pa.compute.binary_length(array)).as_py()
        return _VALUE_BYTES * len(array) + (total or 0)
    return int(array.nbytes)


class _Notes:
    """The notes of one input's records: at most :data:`MAX_INPUT_NOTES`, each
    shown escaped as names are (no control character reaches a terminal); past
    the cap, one more note says the rest are not kept.  Notes beyond the cap are
    never made into Python objects."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.kept = 0
        self.dropped = False

    def take(self, column: Any) -> list[tuple[str, ...]]:
        """The notes to keep of each record of ``column`` (``notes``, as read)."""
        pa = pyarrow_module()
        found: list[tuple[str, ...]] = []
        for chunk in _chunks(column):
            counts = pa.compute.list_value_length(chunk).fill_null(0).to_numpy()
            if self.kept + int(counts.sum()) <= MAX_INPUT_NOTES:
                found += (self._kept(said or []) for said in chunk.to_pylist())
                continue
            for row, count in enumerate(counts.tolist()):
                room = max(MAX_INPUT_NOTES - self.kept, 0)
                said = chunk[row].values.slice(0, room).to_pylist() if count and room else []
                kept = self._kept(said)
                if count > room and not self.dropped:
                    self.dropped = True
                    kept += (f"more than {MAX_INPUT_NOTES:,} notes in the packed part "
                             f"{shown_name(self.part)}: the rest are not kept",)
                found.append(kept)
        return found

    def _kept(self, said: list[Any]) -> tuple[str, ...]:
        kept = tuple(shown_name(note) for note in said if isinstance(note, str))
        self.kept += len(kept)
        return kept


def _slice_budget(path: str, metadata: Any, groups: tuple[int, ...]) -> Budget:
    """The share of the part's budget (:func:`gohash.sgf.inputs.budget_for` its size)
    that its row groups ``groups`` hold, by their compressed bytes: the slices of
    a part together get the part's budget, whatever their number."""
    whole = budget_for(os.path.getsize(path))

    def stored(group: int) -> int:
        row_group = metadata.row_group(group)
        return sum(row_group.column(i).total_compressed_size
                   for i in range(row_group.num_columns))

    total = sum(stored(group) for group in range(metadata.num_row_groups))
    share = sum(stored(group) for group in groups) / total if total else 1.0
    return Budget(int(whole.bytes * share), whole.seconds * share)


def _records(part: str, group: int, paths: list[Any], datas: list[Any], digests: list[Any],
             notes: list[tuple[str, ...]]) -> Iterator[Source | SgfError]:
    for path, data, digest, said in zip(paths, datas, digests, notes, strict=True):
        long = isinstance(path, str) and len(path) > MAX_PATH_LENGTH
        name = path if isinstance(path, str) and not long else f"{part}: row group {group}"
        if long:
            yield SgfLimitError(f"a packed record's path is longer than the limit of "
                                f"{MAX_PATH_LENGTH:,} characters", file=name)
        elif not isinstance(data, bytes):
            yield SgfError("a packed record without data", file=name)
        elif len(data) > MAX_SOURCE_BYTES:
            yield SgfLimitError(f"{name!r} is larger than the limit of {MAX_SOURCE_BYTES:,} "
                                "bytes", file=name)
        elif hashlib.sha256(data).digest() != digest:
            yield SgfError(f"packed record damaged: its bytes do not match its SHA-256 "
                           f"(in {part!r})", file=name)
        else:
            yield Source(name, data, said)
