"""The replay of SGF inputs into what an index stores, in :mod:`gohash.index`'s workers.

Scope: :func:`input_frames`, the tasks of ``gohash index build``: read inputs
(files, archives, or sources read beforehand), skip the files whose SHA-256
the index already holds, and replay the others together with
:func:`gohash.positions.positions` into :class:`FileFrames`: per game its root
text, the SHA-256 of its exact positions and its error, and per position of its
main line its move number, canonical key, frame (:mod:`gohash.frames`) and the
element mapping it onto that frame.  Results are plain data, ready to pickle
and to write; nothing here knows SQL but the form keys are stored in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .errors import GohashError
from .frames import NamedSchemes, SchemeFactory
from .positions import PositionBatch, positions
from .sgf import Input, Source, read_input

__all__ = ["FileFrames", "GameFrames", "SourceError", "SqlKey", "Task", "input_frames", "sql_keys"]

SqlKey = int | bytes
"""A canonical key as the index stores it: a 64-bit key as the signed integer of
its bits, a 128-bit key as 16 big-endian bytes."""


@dataclass
class GameFrames:
    """One game: its root text, the SHA-256 of its root text fields and exact
    positions, its highest move number, why it was cut short (``error``), and
    its positions: rows ``start`` to ``end`` of its file's columns."""

    game: int
    size: int
    black: str | None
    white: str | None
    result: str | None
    sha256: str
    moves: int
    start: int
    end: int
    error: str | None = None


@dataclass
class SourceError:
    """A located error as plain data (exceptions with keyword arguments do not pickle)."""

    game: int | None
    move: int | None
    message: str


@dataclass
class FileFrames:
    """The games of one SGF source; only ``path`` and ``sha256`` if ``unchanged``.

    The main-line positions of all its games, in order, as columns: ``moves``
    (move numbers), ``keys`` (canonical keys, :data:`SqlKey`), ``frames`` and
    ``elements`` (the index of the lowest element mapping each position onto
    its frame).
    """

    path: str
    sha256: str
    unchanged: bool = False
    games: list[GameFrames] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)
    keys: list[SqlKey] = field(default_factory=list)
    frames: list[bytes] = field(default_factory=list)
    elements: list[int] = field(default_factory=list)


Task = tuple[Input | Source | GohashError, dict[str, str]]
"""An input (or a source or error read beforehand) and the SHA-256 of its files
already indexed, by path.  An input of kind ``canon-parquet`` is one part of a
canon dataset, read back (:func:`gohash.columnar.part_frames`), not replayed."""


def input_frames(
    tasks: Sequence[Task], factory: SchemeFactory, suicide_allowed: bool | None
) -> list[list[FileFrames | SourceError]]:
    """Frames of every source of each input (in a worker process, or this one), all
    replayed together: the fixed costs of a replay are shared by many small files.

    ``factory`` gives the key scheme; ``suicide_allowed`` holds for every game,
    or each game's ``RU`` decides if None.  Sources with the same SHA-256 as
    before are only marked unchanged; unreadable ones become errors."""
    out: list[list[FileFrames | SourceError]] = []
    fresh: list[Source] = []
    replayed: list[FileFrames] = []
    for inp, known in tasks:
        results: list[FileFrames | SourceError] = []
        out.append(results)
        if isinstance(inp, Input) and inp.kind == "canon-parquet":
            from .columnar import part_frames  # pyarrow, for canon datasets only

            results += part_frames(inp.name, known)
            continue
        sources: Iterable[Source | GohashError] = (
            read_input(inp) if isinstance(inp, Input) else [inp]
        )
        for source in sources:
            if isinstance(source, GohashError):
                results.append(SourceError(None, None, str(source)))
                continue
            sha = hashlib.sha256(source.data).hexdigest()
            item = FileFrames(source.name, sha, unchanged=known.get(source.name) == sha)
            results.append(item)
            if not item.unchanged:
                fresh.append(source)
                replayed.append(item)
    if fresh:
        # A named scheme hashes on the walker's boards; another factory from the
        # exact positions.
        keys: str | SchemeFactory = (
            factory.name if isinstance(factory, NamedSchemes) else factory
        )
        done = 0
        for batch in positions(
            fresh, scheme=keys, packed=True, frames=True, suicide_allowed=suicide_allowed
        ):
            count = len(batch.files)
            _fill(batch, replayed[done : done + count])
            done += count
    return out


def _fill(batch: PositionBatch, items: list[FileFrames]) -> None:
    """The games, positions and errors of ``batch`` into ``items``, its files in order."""
    assert batch.packed_offsets is not None and batch.packed_data is not None
    assert batch.frame_offsets is not None and batch.frame_data is not None
    first = min(batch.files, default=0)
    file_ids = batch.file.astype(np.int64)
    # Rows come file by file, game by game: one sorted key finds each game's rows.
    row_keys = (file_ids << 32) | batch.game
    games = batch.games
    game_keys = (games.file.astype(np.int64) << 32) | games.game
    starts = np.searchsorted(row_keys, game_keys, side="left").tolist()
    ends = np.searchsorted(row_keys, game_keys, side="right").tolist()
    file_starts = np.searchsorted(file_ids, np.arange(first, first + len(items) + 1)).tolist()
    keys = sql_keys(batch.canonical)
    frame_data = batch.frame_data.tobytes()
    frame_offsets = batch.frame_offsets.tolist()
    packed_data = batch.packed_data.tobytes()
    packed_offsets = batch.packed_offsets.tolist()
    moves, elements = batch.move_number.tolist(), batch.transform.tolist()
    for i, item in enumerate(items):
        low, high = file_starts[i], file_starts[i + 1]
        item.moves = moves[low:high]
        item.keys = keys[low:high]
        item.elements = elements[low:high]
        item.frames = [frame_data[a:b] for a, b in zip(
            frame_offsets[low:high], frame_offsets[low + 1 : high + 1], strict=True
        )]
    blacks, whites, results = games.text["PB"], games.text["PW"], games.text["RE"]
    for row, (file_id, game, size) in enumerate(
        zip(games.file.tolist(), games.game.tolist(), games.size.tolist(), strict=True)
    ):
        black, white, result = blacks[row], whites[row], results[row]
        start, end = starts[row], ends[row]
        digest = hashlib.sha256(f"{size}|{black}|{white}|{result}|".encode())
        digest.update(packed_data[packed_offsets[start] : packed_offsets[end]])
        base = file_starts[file_id - first]
        items[file_id - first].games.append(GameFrames(
            game, size, black, white, result, digest.hexdigest(),
            max(moves[start:end], default=0), start - base, end - base,
        ))
    for error, file_id in zip(batch.errors, batch.error_files, strict=True):
        # Sources are read before replay here: every error belongs to a file.
        item = items[file_id - first]
        item.errors.append(SourceError(error.game, error.move_number, str(error)))
        for game in item.games:
            if game.game == error.game:
                game.error = str(error)


def sql_keys(keys: npt.NDArray[np.uint64]) -> list[SqlKey]:
    """Canonical keys in the form the index stores them (:data:`SqlKey`)."""
    if keys.ndim == 1:
        signed: list[SqlKey] = keys.view(np.int64).tolist()
        return signed
    blob = keys.astype(">u8").tobytes()
    return [blob[i : i + 16] for i in range(0, len(blob), 16)]
