"""A canon dataset read back as what an index stores: ``gohash index build DB DATASET``.

Scope: :func:`dataset_parts` (the parts of a canon dataset written by
``gohash canon --format parquet``, checked fit for an index) and
:func:`part_frames` (one part as the :class:`~gohash.indexing.FileFrames` that
replaying its SGF files would give), so one walk feeds both the dataset and an
index.  Needs pyarrow (the ``parquet`` extra).

An index stores main-line frames under the full group with its own key scheme,
so the dataset must have been written with ``--position``, ``--symmetry full``
(the default), without ``--variations`` (an error in a variation would cut its
game's main line short there), with the index's scheme, and under the same
suicide rule as the build asks for.  Each game's SHA-256 covers its exact
positions, which are the frames mapped back by the inverse of their
``transform``: exact, not looked up by key.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .columnar import DATASET_FORMAT, DATASET_VERSION, dataset_info, part_path
from .errors import GohashError
from .frames import packed_rows, unpack_rows
from .indexing import FileFrames, GameFrames, SourceError, sql_keys
from .symmetry import ELEMENTS

__all__ = ["dataset_parts", "part_frames"]

_BY_NAME = {e.name: e.index for e in ELEMENTS}


def dataset_parts(path: str, scheme: str, suicide_allowed: bool | None) -> list[str]:
    """The ``positions`` parts of the canon dataset at ``path``, in order; raises
    GohashError naming the dataset if it cannot feed an index of key scheme ``scheme``."""
    info = dataset_info(path)
    if info is None or info.get("format") != DATASET_FORMAT:
        raise GohashError("not a gohash canon dataset", file=path)
    if info.get("version") != DATASET_VERSION:
        raise GohashError(f"canon dataset version {info.get('version')!r}; this gohash reads "
                          f"version {DATASET_VERSION}", file=path)
    wrong = [
        (not info.get("complete"), "incomplete (its run failed or is still going on)"),
        (not info.get("position"), "written without --position: it holds no frames"),
        (info.get("group") != "full", f"written with --symmetry {info.get('group')!r}, "
                                      "and an index stores frames under the full group"),
        (bool(info.get("variations")), "written with --variations; an index takes main "
                                       "lines replayed alone"),
        (info.get("scheme") != scheme, f"written with key scheme {info.get('scheme')!r}, "
                                       f"and the index has {scheme!r}"),
        (suicide_allowed is not None and info.get("suicide_allowed") != suicide_allowed,
         f"written with suicide_allowed {info.get('suicide_allowed')!r}, not "
         f"{suicide_allowed!r} as asked"),
    ]
    for bad, reason in wrong:
        if bad:
            raise GohashError(f"the canon dataset cannot feed an index: {reason}", file=path)
    return [part_path(path, "positions", n) for n in range(int(info["partitions"]))]


def part_frames(part: str, known: dict[str, str]) -> list[FileFrames | SourceError]:
    """The files of one ``positions`` part (a path from :func:`dataset_parts`) as
    :func:`gohash.indexing.input_frames` gives them: unchanged ones (their SHA-256 is
    ``known[path]``) marked so, unreadable ones as errors."""
    root = os.path.dirname(os.path.dirname(part))
    number = int(os.path.basename(part)[len("part-"):-len(".parquet")])
    try:
        files = pq.read_table(part_path(root, "files", number)).to_pylist()
        games = pq.read_table(part_path(root, "games", number),
                              columns=["file", "game", "size", "black", "white", "result",
                                       "moves", "positions", "errors"]).to_pylist()
        rows = pq.read_table(part, columns=["file", "move_number", "key", "transform",
                                            "position"])
    except (OSError, ValueError, KeyError, pa.ArrowException) as e:
        return [SourceError(None, None, str(GohashError(f"cannot read the part: {e}",
                                                        file=part)))]
    by_file: dict[str, list[dict[str, Any]]] = {}
    for game in games:
        by_file.setdefault(game["file"], []).append(game)
    columns = _Columns(rows)
    out: list[FileFrames | SourceError] = []
    for file in files:
        if file["sha256"] is None:  # a source that could not be read
            out += [SourceError(None, None, e["message"]) for e in file["errors"]]
            continue
        sha = file["sha256"].hex()
        item = FileFrames(file["file"], sha, unchanged=known.get(file["file"]) == sha)
        out.append(item)
        if not item.unchanged:
            columns.fill(item, by_file.get(file["file"], []), file["errors"])
    return out


class _Columns:
    """The rows of a part, file by file, as FileFrames hold them."""

    def __init__(self, rows: pa.Table) -> None:
        file = rows.column("file").combine_chunks()
        if isinstance(file, pa.DictionaryArray):
            file = file.dictionary_decode()
        self.files = file.to_pylist()
        self.moves = rows.column("move_number").to_pylist()
        key = rows.column("key").combine_chunks()
        self.keys = sql_keys(key.to_numpy(zero_copy_only=False)) if pa.types.is_uint64(
            key.type) else key.to_pylist()
        self.frames: list[bytes] = rows.column("position").to_pylist()
        transform = pc.cast(rows.column("transform"), pa.string()).to_pylist()
        self.elements = [_BY_NAME[name] for name in transform]
        self.start = 0

    def fill(self, item: FileFrames, games: list[dict[str, Any]],
             errors: list[dict[str, Any]]) -> None:
        """The rows of the file ``item`` (the next ones) and its games and errors."""
        start = end = self.start
        while end < len(self.files) and self.files[end] == item.path:
            end += 1
        self.start = end
        item.moves = self.moves[start:end]
        item.keys = self.keys[start:end]
        item.frames = self.frames[start:end]
        item.elements = self.elements[start:end]
        exact = _originals(item.frames, item.elements)
        first = 0
        for game in games:
            last = first + game["positions"]
            digest = hashlib.sha256(
                f"{game['size']}|{game['black']}|{game['white']}|{game['result']}|".encode()
            )
            digest.update(b"".join(exact[first:last]))
            item.games.append(GameFrames(
                game["game"], game["size"], game["black"], game["white"], game["result"],
                digest.hexdigest(), game["moves"], first, last,
                game["errors"][-1] if game["errors"] else None,
            ))
            first = last
        if first != len(item.frames):
            raise GohashError(f"the dataset's games of {item.path!r} hold {first} positions "
                              f"and its positions table {len(item.frames)}")
        item.errors = [SourceError(e["game"], e["move_number"], e["message"]) for e in errors]


def _originals(frames: list[bytes], elements: list[int]) -> list[bytes]:
    """Each frame mapped back by the inverse of the element that made it: the exact
    position as the walker packed it."""
    out: list[bytes] = list(frames)
    if not frames:
        return out
    sizes = np.array([frame[0] for frame in frames])
    transform = np.array(elements)
    for size in np.unique(sizes).tolist():
        for element in np.unique(transform[sizes == size]).tolist():
            if element == 0:
                continue
            which = np.flatnonzero((sizes == size) & (transform == element))
            rows = np.frombuffer(b"".join(frames[i] for i in which.tolist()), dtype=np.uint8)
            stones = unpack_rows(rows.reshape(len(which), -1), size)
            back = ELEMENTS[element].inverse.image_array(stones.reshape(-1, size, size))
            packed = packed_rows(back)
            for i, row in zip(which.tolist(), packed, strict=True):
                out[i] = row.tobytes()
    return out
