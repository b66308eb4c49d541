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

from ..errors import GohashError, SgfError, SgfLimitError
from .inputs import (
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


def _open(path: str) -> Any:
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
    cannot be read is one error, and so is the rest of a slice beyond its budget."""
    try:
        reader = _open(part.path)
        meter = Meter(part.path, budget or _slice_budget(part.path, reader.metadata,
                                                         part.row_groups))
    except (SgfError, OSError) as e:
        yield e if isinstance(e, SgfError) else SgfError(f"cannot read it: {e}", file=part.path)
        return
    names = [name for name, _, _ in PACK_COLUMNS]
    data_column = _data_column(reader.metadata)
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
        # A row group unlike those pack writes is read a record at a time.
        tables = iter([reader.read_row_group(group, columns=names)]) if (
            size <= READ_GROUP_BYTES and not dictionary) else reader.iter_batches(
                batch_size=1, row_groups=[group], columns=names)
        while True:
            try:
                start = time.thread_time()
                table = next(tables, None)
                seconds = time.thread_time() - start
            except (OSError, ValueError, pa.ArrowException) as e:
                yield SgfError(f"cannot read row group {group} of the packed part: {e}",
                               file=part.path)
                break
            if table is None:
                break
            paths, datas, digests, notes = (table.column(name).to_pylist() for name in names)
            try:
                meter.charge(sum(len(d) for d in datas if isinstance(d, bytes)), seconds)
            except SgfError as e:
                yield e
                return
            yield from _records(part.path, group, paths, datas, digests, notes)


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
             notes: list[Any]) -> Iterator[Source | SgfError]:
    for path, data, digest, said in zip(paths, datas, digests, notes, strict=True):
        name = path if isinstance(path, str) else f"{part}: row group {group}"
        if not isinstance(data, bytes):
            yield SgfError("a packed record without data", file=name)
        elif len(data) > MAX_SOURCE_BYTES:
            yield SgfLimitError(f"{name!r} is larger than the limit of {MAX_SOURCE_BYTES:,} "
                                "bytes", file=name)
        elif hashlib.sha256(data).digest() != digest:
            yield SgfError(f"packed record damaged: its bytes do not match its SHA-256 "
                           f"(in {part!r})", file=name)
        else:
            yield Source(name, data, tuple(said or ()))
