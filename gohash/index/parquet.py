"""A canon dataset read back as the frames an index stores (``gohash index build DB DATASET``).

Scope: what marks a canon dataset (:data:`DATASET_MARKER`, :data:`DATASET_FORMAT`,
:data:`DATASET_VERSION`, :func:`dataset_info`) and where its parts lie
(:func:`part_path`); :func:`dataset_parts`, which checks that a dataset can feed
an index, and :func:`part_frames`, which reads one part back as the
:class:`~gohash.index.records.FileFrames` an index stores, so one walk feeds
both.  Writing a dataset is :mod:`gohash.tools.parquet`'s; this module needs
pyarrow and fsspec (the ``parquet`` extra), the rest of the index does not.
"""

from __future__ import annotations

import json
import os
from typing import Any

import fsspec
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import GohashError
from ..group.coords import sgf_point_table
from ..group.symmetry import ELEMENTS
from ..metadata import STORED
from ..pipeline.frames import unpack_rows
from ..sgf.inputs import CANON_MARKER
from .games import EncodedGame, encode_game, posting_keys
from .records import FileFrames, GameFrames, SourceError, game_digest

__all__ = [
    "DATASET_FORMAT",
    "DATASET_MARKER",
    "DATASET_VERSION",
    "dataset_info",
    "dataset_parts",
    "part_frames",
    "part_path",
]

DATASET_MARKER = CANON_MARKER
DATASET_FORMAT = "gohash-canon"
DATASET_VERSION = 2


def part_path(root: str, table: str, number: int) -> str:
    """Where part ``number`` of ``table`` lives in the dataset at ``root``."""
    return f"{root}/{table}/part-{number:05d}.parquet"


def dataset_info(root: str) -> dict[str, Any] | None:
    """The marker of the dataset at ``root`` (a path or fsspec URL), or None if there is none."""
    fs, path = fsspec.core.url_to_fs(root)
    try:
        with fs.open(f"{path}/{DATASET_MARKER}", "r") as f:
            info: dict[str, Any] = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise GohashError(f"cannot read the dataset marker: {e}", file=root) from None
    return info


# -- read back: a dataset feeds an index (gohash index build DB DATASET) ------------------------
#
# An index stores main-line frames under the full group with its own key scheme, so
# the dataset must have been written with --position, --symmetry full, without
# --variations (an error in a variation would cut its game's main line short there),
# with the index's scheme, and under the suicide rule the build asks for.  Each
# game's SHA-256 covers its exact positions: the frames mapped back by the inverse
# of their transform, exact, not looked up by key.

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
    :func:`gohash.index.records.input_frames` gives them: unchanged ones (their SHA-256 is
    ``known[path]``) marked so, unreadable ones as errors."""
    root = os.path.dirname(os.path.dirname(part))
    number = int(os.path.basename(part)[len("part-"):-len(".parquet")])
    try:
        files = pq.read_table(part_path(root, "files", number)).to_pylist()
        games = pq.read_table(part_path(root, "games", number),
                              columns=["file", "game", "size", "black", "white", "result",
                                       "black_rank", "white_rank", "date", "event", "komi",
                                       "handicap", "moves", "positions", "errors",
                                       *(f.name for f in STORED)]).to_pylist()
        rows = pq.read_table(part, columns=["file", "colour", "move",
                                            "to_move", "setup", "key", "transform",
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
        key = rows.column("key").combine_chunks()
        # 128-bit keys are 16 big-endian bytes: the high word, then the low one.
        self.keys: npt.NDArray[np.uint64] = key.to_numpy(zero_copy_only=False) if (
            pa.types.is_uint64(key.type)) else np.frombuffer(
                b"".join(key.to_pylist()), dtype=">u8").reshape(-1, 2).astype(np.uint64)
        self.frames: list[bytes] = rows.column("position").to_pylist()
        transform = pc.cast(rows.column("transform"), pa.string()).to_pylist()
        self.elements = [_BY_NAME[name] for name in transform]
        self.colours = [None if c is None else _COLOURS[c]
                        for c in pc.cast(rows.column("colour"), pa.string()).to_pylist()]
        self.moves_played: list[str | None] = pc.cast(rows.column("move"),
                                                      pa.string()).to_pylist()
        self.to_move = [_COLOURS[c] for c in
                        pc.cast(rows.column("to_move"), pa.string()).to_pylist()]
        self.setup: list[bool] = rows.column("setup").to_pylist()
        self.start = 0

    def fill(self, item: FileFrames, games: list[dict[str, Any]],
             errors: list[dict[str, Any]]) -> None:
        """The rows of the file ``item`` (the next ones) and its games and errors."""
        start = end = self.start
        while end < len(self.files) and self.files[end] == item.path:
            end += 1
        self.start = end
        sizes = np.repeat([game["size"] for game in games],
                          [game["positions"] for game in games]).astype(np.int64)
        if len(sizes) == end - start:  # else the check below says how they differ
            item.keys = posting_keys(self.keys[start:end], sizes)
        first = 0
        for game in games:
            last = first + game["positions"]
            size = game["size"]
            record = self._stored(start + first, start + last, size) if last > first else None
            digest = game_digest(size, game["black"], game["white"], game["result"],
                                 b"" if record is None else record.blob)
            item.games.append(GameFrames(
                game["game"], size, game["black"], game["white"], game["result"],
                digest, game["moves"], first, last, last - first, [],
                game["errors"][-1] if game["errors"] else None,
                black_rank=game["black_rank"], white_rank=game["white_rank"],
                dt=game["date"], event=game["event"],
                komi=None if game["komi"] is None else repr(game["komi"]),
                handicap=game["handicap"], stored={f.name: game[f.name] for f in STORED},
                record=record,
            ))
            first = last
        if first != end - start:
            raise GohashError(f"the dataset's games of {item.path!r} hold {first:,} positions "
                              f"and its positions table {end - start:,}")
        item.errors = [SourceError(e["game"], e["move_number"], e["message"]) for e in errors]

    def _stored(self, start: int, end: int, size: int) -> EncodedGame:
        """The stored form of the game of rows ``start`` to ``end`` (a main line)."""
        table = sgf_point_table(size)
        colour = np.array([0 if c is None else c for c in self.colours[start:end]],
                          dtype=np.int8)
        point = np.full(end - start, -1, dtype=np.int16)
        for node, move in enumerate(self.moves_played[start:end]):
            at = None if move is None else table[move.encode()]
            if at is not None:
                point[node] = at[0] * size + at[1]

        def stones(node: int) -> npt.NDArray[np.int8]:
            row = start + node
            frame = unpack_rows(np.frombuffer(self.frames[row], dtype=np.uint8)[np.newaxis],
                                size).reshape(size, size)
            exact: npt.NDArray[np.int8] = ELEMENTS[self.elements[row]].inverse.image_array(
                frame).reshape(-1).astype(np.int8)
            return exact

        return encode_game(size, colour, point, np.array(self.setup[start:end], dtype=np.bool_),
                           stones, first_to_move=self.to_move[start])


_COLOURS = {"b": 1, "w": 2}
