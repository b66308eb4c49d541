"""Hostile inputs, made on the spot (issue 22): bombs and odd names are never stored.

Scope: the builders the tests of limits and names and
``benchmarks/hostile_inputs.py`` share: tars of given members, a zip whose
entries all name one deflate stream, a zip whose names are flagged UTF-8 but
are not, a folder holding a Latin-1 file name, and packed datasets of given
columns (among them columns of notes or paths that expand a thousandfold).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

GAME = b"(;SZ[9];B[ee];W[cc])"
"""A record of three positions."""
PACK_MARKER = "_gohash_pack.json"


def tar_of(members: list[tuple[str, bytes]], encoding: str = "utf-8") -> bytes:
    """A tar (GNU format) of ``members``, their names written in ``encoding``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT,
                      encoding=encoding) as tar:
        for member, data in members:
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def overlapping_zip(path: Path, entries: int, data: bytes) -> Path:
    """A zip whose ``entries`` entries, all ``x.sgf``, name one deflate stream of ``data``."""
    name = b"x.sgf"
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream = packer.compress(data) + packer.flush()
    crc = zlib.crc32(data)
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(stream),
                        len(data), len(name), 0) + name
    central = b"".join(
        struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(stream),
                    len(data), len(name), 0, 0, 0, 0, 0, 0) + name
        for _ in range(entries))
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, entries, entries, len(central),
                      len(local) + len(stream), 0)
    path.write_bytes(local + stream + central + end)
    return path


FLAGGED_NAME = b"lat\xe9an1.sgf"
"""The name :func:`flagged_zip` gives its second member: flagged UTF-8, and not."""


def flagged_zip(path: Path) -> Path:
    """A zip of ``good.sgf`` and :data:`FLAGGED_NAME`, both :data:`GAME`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("good.sgf", GAME)
        archive.writestr("lat\u00e9n1.sgf", GAME)  # flagged UTF-8: é is two bytes
    path.write_bytes(buffer.getvalue().replace("lat\u00e9n1.sgf".encode(), FLAGGED_NAME))
    return path


def latin1_folder(folder: Path) -> Path:
    """``folder`` made, holding ``good.sgf`` and ``lat\\xe9n1.sgf`` (Latin-1 bytes)."""
    folder.mkdir()
    (folder / "good.sgf").write_bytes(GAME)
    with open(os.path.join(os.fsencode(folder), b"lat\xe9n1.sgf"), "wb") as f:
        f.write(GAME)
    return folder


def pack_columns(records: list[bytes]) -> dict[str, Any]:
    """The columns of a packed part holding ``records``, as pack writes them."""
    import pyarrow as pa

    return {"path": pa.array([f"r{i}.sgf" for i in range(len(records))]),
            "data": pa.array(records, pa.binary()),
            "sha256": pa.array([hashlib.sha256(r).digest() for r in records], pa.binary(32)),
            "notes": pa.array([[] for _ in records], pa.list_(pa.string()))}


def dictionary_bomb(record: bytes, count: int) -> dict[str, Any]:
    """The columns of a packed part of ``count`` records ``record``, made as a
    dictionary of one value, as the part stores them: ``len(record)`` bytes to
    make, not ``count`` times that (write them with ``store_schema=False``, so
    that they read back as binary)."""
    import pyarrow as pa

    columns = pack_columns([b""] * count)
    columns["data"] = pa.DictionaryArray.from_arrays(pa.array([0] * count, pa.int32()),
                                                     pa.array([record], pa.binary()))
    columns["sha256"] = pa.array([hashlib.sha256(record).digest()] * count, pa.binary(32))
    return columns


def packed(folder: Path, columns: dict[str, Any], marker: str | None = None,
           dictionary: bool = True, store_schema: bool = True,
           row_group_size: int | None = None) -> Path:
    """``folder`` made, a packed dataset of one part holding ``columns`` (all
    dictionary-encoded, as pyarrow writes by default, or only ``path``, as pack
    writes; ``row_group_size`` rows a row group), under ``marker`` or a valid one."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir()
    table = pa.Table.from_arrays(list(columns.values()), names=list(columns))
    pq.write_table(table, folder / "part-00000.parquet", compression="zstd",
                   use_dictionary=True if dictionary else ["path"], store_schema=store_schema,
                   row_group_size=row_group_size)
    (folder / PACK_MARKER).write_text(marker or json.dumps(
        {"format": "gohash-pack", "version": 1, "parts": ["part-00000.parquet"]}))
    return folder


HOSTILE_NOTE = "note \x1b[2J\x1b]0;owned\x07 end"
"""A note holding a terminal's escape sequences (clear the screen, set the title)."""


def notes_bomb(rows: int, notes: int) -> dict[str, Any]:
    """The columns of a packed part of ``rows`` records :data:`GAME`, each with
    ``notes`` notes :data:`HOSTILE_NOTE`: a dictionary of one value, some bytes
    on disk (write them with ``store_schema=False``)."""
    import numpy as np
    import pyarrow as pa

    columns = pack_columns([GAME] * rows)
    values = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows * notes, np.int32)),
                                            pa.array([HOSTILE_NOTE]))
    offsets = pa.array(np.arange(0, rows * notes + 1, notes, dtype=np.int32))
    columns["notes"] = pa.ListArray.from_arrays(offsets, values)
    return columns


def path_bomb(rows: int, length: int) -> dict[str, Any]:
    """The columns of a packed part of ``rows`` records :data:`GAME`, each under one
    path of ``length`` bytes: a dictionary of one value (write them with
    ``store_schema=False``)."""
    import numpy as np
    import pyarrow as pa

    columns = pack_columns([GAME] * rows)
    columns["path"] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int32)),
                                                     pa.array(["p" * length]))
    return columns


def siblings(count: int) -> bytes:
    """A 19x19 record of one move and ``count`` sibling variations after it, each one
    White move (some 8 bytes a variation): as many branches as nodes."""
    points = [a + b for a in "abcdefghijklmnopqrs" for b in "abcdefghijklmnopqrs" if a + b != "jj"]
    body = "".join(f"(;W[{points[i % len(points)]}])" for i in range(count))
    return f"(;GM[1]SZ[19];B[jj]{body})".encode()
