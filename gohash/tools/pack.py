"""Writing a packed dataset (``gohash pack``): many small SGF files stored in a
few Parquet parts, in the format :mod:`gohash.sgf.pack` reads back.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import GohashError, OutputExistsError, SgfError, counted, name_text
from ..sgf.inputs import PACK_MARKER, Skipped, Source
from ..sgf.pack import GROUP_BYTES, PACK_FORMAT, PACK_VERSION, is_pack, pack_schema, pyarrow_module
from ..sgf.sources import find_inputs, read_input
from .outputs import REPLACE_HINT, check_not_input

__all__ = ["PART_BYTES", "PackSummary", "write_pack"]

PART_BYTES = 64 * 1024 * 1024
"""SGF bytes per part, at most (a larger source goes alone)."""


@dataclass
class PackSummary:
    """What one :func:`pack` stored; ``errors``: the sources it could not read;
    ``notes``: the inputs it did not read (a pipe found in a folder)."""

    records: int = 0
    bytes: int = 0
    parts: int = 0
    errors: list[GohashError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (f"{counted(self.records, 'record')}, {self.bytes:,} bytes in "
                f"{counted(self.parts, 'part')}, {counted(len(self.errors), 'error')}")


def write_pack(
    paths: Iterable[str],
    out: str,
    *,
    part_bytes: int = PART_BYTES,
    group_bytes: int = GROUP_BYTES,
    overwrite: bool = False,
    on_error: Callable[[GohashError], object] | None = None,
    on_note: Callable[[str], object] | None = None,
    progress: Callable[[PackSummary], object] | None = None,
) -> PackSummary:
    """Store every SGF source of ``paths`` (files, folders, archives, ``-``, packed
    datasets) in a new packed dataset at ``out`` (a folder that is missing or
    empty).  An earlier packed dataset there is refused
    (:class:`~gohash.errors.OutputExistsError`) unless ``overwrite``, which
    replaces it (its marker and parts; nothing else in the folder is touched);
    any other folder that is not empty, or one holding an input, is refused even
    then.  Sources that cannot be read are errors, given to ``on_error`` and
    left out; inputs not read (a pipe found in a folder) are notes, given to
    ``on_note``.  ``progress`` is called after each part."""
    pa = pyarrow_module()
    paths = list(paths)
    _prepare_output(out, paths, overwrite)
    os.makedirs(out, exist_ok=True)
    schema = pack_schema()
    summary = PackSummary()
    names: list[str] = []
    group: list[Source] = []
    group_size = 0
    writer: _PartWriter | None = None
    for inp in find_inputs(paths):
        for source in read_input(inp):
            if isinstance(source, SgfError):
                summary.errors.append(source)
                if on_error is not None:
                    on_error(source)
                continue
            if isinstance(source, Skipped):
                summary.notes.append(str(source))
                if on_note is not None:
                    on_note(str(source))
                continue
            if group and group_size + len(source.data) > group_bytes:
                writer = _flush(writer, group, out, names, schema, pa)
                group, group_size = [], 0
                if writer.bytes >= part_bytes:
                    writer.close()
                    writer = None
                    if progress is not None:
                        progress(summary)
            group.append(source)
            group_size += len(source.data)
            summary.records += 1
            summary.bytes += len(source.data)
    if group:
        writer = _flush(writer, group, out, names, schema, pa)
    if writer is not None:
        writer.close()
    summary.parts = len(names)
    info = {"format": PACK_FORMAT, "version": PACK_VERSION, "parts": names,
            "records": summary.records, "bytes": summary.bytes}
    with open(os.path.join(out, PACK_MARKER), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
    return summary


# A part, or a part being written (see _PartWriter).
_PART_NAME = re.compile(r"part-\d+\.parquet|\.part-\d+\.parquet\.[0-9a-f]+\.tmp")


def _prepare_output(out: str, paths: list[str], overwrite: bool) -> None:
    """Refuse ``out`` unless it is missing, an empty folder, or (with ``overwrite``)
    an earlier packed dataset holding none of ``paths``, whose files are removed."""
    check_not_input(out, paths)
    if not os.path.exists(out) or (os.path.isdir(out) and not os.listdir(out)):
        return
    if not is_pack(out):
        raise OutputExistsError("exists and is not an empty folder or a packed dataset; "
                                "give a new or empty folder", file=out)
    if not overwrite:
        raise OutputExistsError(f"holds a packed dataset; {REPLACE_HINT}", file=out)
    for name in os.listdir(out):
        if name == PACK_MARKER or _PART_NAME.fullmatch(name):
            os.remove(os.path.join(out, name))


class _PartWriter:
    """One part, written under a hidden temporary name and renamed when closed."""

    def __init__(self, out: str, name: str, schema: Any) -> None:
        pq = pyarrow_module().parquet
        self.final = os.path.join(out, name)
        self.temporary = os.path.join(out, f".{name}.{uuid.uuid4().hex}.tmp")
        self.writer = pq.ParquetWriter(self.temporary, schema, compression="zstd",
                                       use_dictionary=["path"])
        self.bytes = 0

    def close(self) -> None:
        self.writer.close()
        os.replace(self.temporary, self.final)


def _flush(writer: _PartWriter | None, group: list[Source], out: str, names: list[str],
           schema: Any, pa: Any) -> _PartWriter:
    """Write one row group, into a new part if none is open."""
    if writer is None:
        names.append(f"part-{len(names):05d}.parquet")
        writer = _PartWriter(out, names[-1], schema)
    table = pa.Table.from_pydict({
        "path": [name_text(s.name) for s in group],
        "data": [s.data for s in group],
        "sha256": [hashlib.sha256(s.data).digest() for s in group],
        "notes": [list(s.notes) for s in group],
    }, schema=schema)
    writer.writer.write_table(table)
    writer.bytes += sum(len(s.data) for s in group)
    return writer
