"""The replay of SGF inputs into what an index stores, in :mod:`gohash.indexfile`'s workers.

Scope: :func:`input_frames`, the tasks of ``gohash index build``: read inputs
(files, archives, or sources read beforehand), skip the files whose SHA-256
the index already holds, and replay the others together with
:func:`gohash.positions.positions` into :class:`FileFrames`: per game its root
text, the SHA-256 of its exact positions and its error, and per position of
its main line (and of its other variations, if asked) its move number,
canonical key, frame (:mod:`gohash.frames`), the element mapping it onto that
frame, the side to move, and the game's next move with its point in the
frame's orientation; and what the opening explorer reads from a root
(:func:`rank_level`, :func:`first_date`, :func:`winner`, :func:`komi_value`).
Results are plain data, ready to pickle and to write; nothing here knows SQL
but the form keys are stored in.  :data:`PARSE_VERSION` versions this replay.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import GohashError
from .frames import NamedSchemes, SchemeFactory
from .names import name_text
from .positions import PositionBatch, positions
from .sgf import Input, Source, read_input
from .symmetry import ELEMENTS

__all__ = [
    "PARSE_VERSION",
    "FileFrames",
    "GameFrames",
    "SourceError",
    "SqlKey",
    "Task",
    "first_date",
    "game_digest",
    "input_frames",
    "komi_value",
    "next_moves",
    "point_images",
    "rank_level",
    "sql_keys",
    "winner",
]

PARSE_VERSION = 1
"""The version of what a replay stores for a file: raise it with every change to
reading or replaying records that changes a file's games, positions or errors
(a fixed reading of a property, a new rule), so that ``gohash index build``
re-reads the files an earlier gohash indexed."""

SqlKey = int | bytes
"""A canonical key as the index stores it: a 64-bit key as the signed integer of
its bits, a 128-bit key as 16 big-endian bytes."""


@dataclass
class GameFrames:
    """One game: its root text, the SHA-256 of its root text fields and exact
    main-line positions, its highest move number on the main line, why it was
    cut short (``error``), and its positions: rows ``start`` to ``end`` of its
    file's columns, the first ``main`` its main line, each other variation a
    run of rows whose first (from ``start``), parent and path are in ``lines``;
    and what the explorer reads from its root: ``BR``, ``WR`` as recorded and
    as levels (:func:`rank_level`), ``DT`` and its first date, ``EV``, ``KM``,
    ``HA`` and the winner named by ``RE``.
    """

    game: int
    size: int
    black: str | None
    white: str | None
    result: str | None
    sha256: str
    moves: int
    start: int
    end: int
    main: int
    lines: list[tuple[int, int, str]] = field(default_factory=list)
    error: str | None = None
    black_rank: str | None = None
    white_rank: str | None = None
    dt: str | None = None
    event: str | None = None
    komi: str | None = None
    handicap: int = 0

    def explorer_columns(self) -> tuple[object, ...]:
        """black_rank, white_rank, black_level, white_level, dt, date, event, komi,
        handicap, winner: the games table's explorer columns."""
        return (
            self.black_rank, self.white_rank, rank_level(self.black_rank),
            rank_level(self.white_rank), self.dt, first_date(self.dt), self.event,
            komi_value(self.komi), self.handicap, winner(self.result),
        )


@dataclass
class SourceError:
    """A located error as plain data (exceptions with keyword arguments do not pickle)."""

    game: int | None
    move: int | None
    message: str


def _empty(dtype: type[np.generic]) -> Callable[[], npt.NDArray[Any]]:
    return lambda: np.zeros(0, dtype=dtype)


@dataclass
class FileFrames:
    """The games of one SGF source; only ``path`` and ``sha256`` if ``unchanged``.

    The main-line positions of all its games, in order, as numpy columns:
    ``moves`` (move numbers), ``keys`` (canonical keys as positions() gives them,
    ``uint64`` of shape ``(n,)`` or ``(n, 2)``; :func:`sql_keys` gives their
    stored form), ``frames`` (bytes) and ``elements`` (the index of the lowest
    element mapping each position onto its frame), ``to_move`` (1 Black, 2 White,
    as recorded) and the next move (:func:`next_moves`): ``next_colour`` (0 none,
    1, 2, as recorded) and ``next_point`` (in the frame's orientation, -1 a pass;
    meaningless where ``next_colour`` is 0, stored as NULL).
    """

    path: str
    sha256: str
    unchanged: bool = False
    games: list[GameFrames] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    moves: npt.NDArray[np.int32] = field(default_factory=_empty(np.int32))
    keys: npt.NDArray[np.uint64] = field(default_factory=_empty(np.uint64))
    frames: list[bytes] = field(default_factory=list)
    elements: npt.NDArray[np.uint8] = field(default_factory=_empty(np.uint8))
    to_move: npt.NDArray[np.int8] = field(default_factory=_empty(np.int8))
    next_colour: npt.NDArray[np.int8] = field(default_factory=_empty(np.int8))
    next_point: npt.NDArray[np.int16] = field(default_factory=_empty(np.int16))

    def add_rows(self, frames: list[bytes], **columns: npt.NDArray[Any]) -> None:
        """Rows after those it holds: a file's games may span positions() batches."""
        self.frames += frames
        for name, column in columns.items():
            held = getattr(self, name)
            setattr(self, name, np.concatenate([held, column]) if len(held) else column)


Task = tuple[Input | Source | GohashError, dict[str, str]]
"""An input (or a source or error read beforehand) and the SHA-256 of its files
already indexed, by path.  An input of kind ``canon-parquet`` is one part of a
canon dataset, read back (:func:`gohash.columnar.part_frames`), not replayed."""


def input_frames(
    tasks: Sequence[Task],
    factory: SchemeFactory,
    suicide_allowed: bool | None,
    variations: bool = False,
) -> list[list[FileFrames | SourceError]]:
    """Frames of every source of each input (in a worker process, or this one), all
    replayed together: the fixed costs of a replay are shared by many small files.

    ``factory`` gives the key scheme; ``suicide_allowed`` holds for every game,
    or each game's ``RU`` decides if None; ``variations`` replays every variation.
    Sources with the same SHA-256 as before are only marked unchanged;
    unreadable ones become errors."""
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
            path = name_text(source.name)  # stored as text, any bytes it held escaped
            item = FileFrames(path, sha, unchanged=known.get(path) == sha)
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
        for batch in positions(
            fresh, scheme=keys, packed=True, frames=True, suicide_allowed=suicide_allowed,
            variations=variations,
        ):
            _fill(batch, replayed)
    return out


def _fill(batch: PositionBatch, items: list[FileFrames]) -> None:
    """The games, positions and errors of ``batch`` added to ``items`` (indexed by
    the file ids positions() gives): a file's games may span batches."""
    assert batch.packed_offsets is not None and batch.packed_data is not None
    assert batch.frame_offsets is not None and batch.frame_data is not None
    file_ids = batch.file.astype(np.int64)
    # Rows come file by file, game by game: one sorted key finds each game's rows.
    row_keys = (file_ids << 32) | batch.game
    games = batch.games
    game_keys = (games.file.astype(np.int64) << 32) | games.game
    starts = np.searchsorted(row_keys, game_keys, side="left").tolist()
    ends = np.searchsorted(row_keys, game_keys, side="right").tolist()
    ids = list(batch.files)
    file_starts = np.searchsorted(file_ids, [*ids, ids[-1] + 1] if ids else []).tolist()
    colours, points = next_moves(batch)
    # Where each file's rows of this batch begin in its FileFrames' columns.
    base: dict[int, int] = {}
    for i, file_id in enumerate(ids):
        item = items[file_id]
        low, high = file_starts[i], file_starts[i + 1]
        base[file_id] = len(item.frames) - low
        item.add_rows(
            _frames(batch, low, high), moves=batch.move_number[low:high],
            keys=batch.canonical[low:high], elements=batch.transform[low:high],
            to_move=batch.to_move[low:high], next_colour=colours[low:high],
            next_point=points[low:high],
        )
    text = games.text
    blacks, whites, results = text["PB"], text["PW"], text["RE"]
    # The main line comes first in a game's rows, then each other variation, each
    # a run of rows of one variation number.
    main_line = batch.variations.index(()) if () in batch.variations else -1
    off_main = np.flatnonzero(batch.variation != main_line).tolist()
    packed = batch.packed_data.data
    packed_offsets = batch.packed_offsets
    moves = batch.move_number
    for row, (file_id, game, size, handicap) in enumerate(zip(
        games.file.tolist(), games.game.tolist(), games.size.tolist(), games.handicap.tolist(),
        strict=True,
    )):
        black, white, result = blacks[row], whites[row], results[row]
        start, end = starts[row], ends[row]
        # The game's first row off the main line, if any, ends its main line.
        first_off = bisect.bisect_left(off_main, start)
        main = min(end, off_main[first_off]) if first_off < len(off_main) else end
        digest = game_digest(size, black, white, result,
                             packed[packed_offsets[start] : packed_offsets[main]])
        items[file_id].games.append(GameFrames(
            game, size, black, white, result, digest,
            int(moves[start:main].max()) if main > start else 0,
            start + base[file_id], end + base[file_id], main - start,
            _lines(batch, start, main, end), black_rank=text["BR"][row],
            white_rank=text["WR"][row], dt=text["DT"][row], event=text["EV"][row],
            komi=text["KM"][row], handicap=handicap,
        ))
    for error, file_id in zip(batch.errors, batch.error_files, strict=True):
        # Sources are read before replay here: every error belongs to a file.
        item = items[file_id]
        item.errors.append(SourceError(error.game, error.move_number, str(error)))
        for game in item.games:
            if game.game == error.game:
                game.error = str(error)


def _frames(batch: PositionBatch, low: int, high: int) -> list[bytes]:
    """The frames of rows ``low`` to ``high`` as bytes."""
    assert batch.frame_offsets is not None and batch.frame_data is not None
    offsets, data = batch.frame_offsets, batch.frame_data
    if low < high and (batch.size[low:high] == batch.size[low]).all():
        # Frames of one width: numpy makes the bytes objects, as fixed-size voids
        # (fixed-size strings would lose trailing zero bytes).
        width = int(offsets[low + 1] - offsets[low])
        frames: list[bytes] = data[offsets[low] : offsets[high]].view(f"V{width}").tolist()
        return frames
    bounds = (offsets[low : high + 1] - offsets[low]).tolist()
    blob = data[offsets[low] : offsets[high]].tobytes()
    return [blob[a:b] for a, b in itertools.pairwise(bounds)]


def _lines(batch: PositionBatch, start: int, main: int, end: int) -> list[tuple[int, int, str]]:
    """The variations of the game of rows ``start`` to ``end`` beyond its main line
    (rows up to ``main``): (first row, the row it branches from, path), rows counted
    from ``start``.  A row's parent is the latest earlier row one shallower."""
    if main == end:
        return []
    variation = batch.variation[start:end].tolist()
    depth = batch.depth[start:end].tolist()
    lines = []
    # The latest row at each depth so far, the main line's first.
    latest = list(range(main - start))
    for row in range(main - start, end - start):
        d = depth[row]
        if variation[row] != variation[row - 1]:
            path = ".".join(map(str, batch.variations[variation[row]]))
            lines.append((row, latest[d - 1], path))
        del latest[d:]
        latest.append(row)
    return lines


# A rank is a number and a unit, either way round ("5d", "5 dan", "P9", "9段"),
# with KGS's "?" (uncertain) or "*" after it.
_RANK_UNITS = {"k": "k", "kyu": "k", "級": "k", "d": "d", "dan": "d", "段": "d", "p": "p",
               "pro": "p"}
_RANK = re.compile(r"^(?:(\d{1,2})\s*([a-z]+|級|段)|(p|pro)\s*(\d{1,2}))[?*+]?$")
_RANK_LIMITS = {"k": 30, "d": 9, "p": 9}


def rank_level(text: str | None) -> int | None:
    """A rank as a number that orders ranks (higher is stronger), or None if
    ``text`` is not a rank gohash reads.

    Kyu ranks (``30k`` to ``1k``) come below amateur dan ranks (``1d`` to ``9d``),
    and those below professional ranks (``1p`` to ``9p``): ``30k`` is 0, ``1k``
    29, ``1d`` 30, ``9d`` 38, ``1p`` 101, ``9p`` 109.  Read: ``5k``, ``5 kyu``,
    ``5級``, ``5d``, ``5 dan``, ``5段`` (read as dan: records do not say whether
    it is a professional's), ``9p``, ``9 pro``, ``P9``, case-insensitive, with
    a trailing ``?`` or ``*`` (KGS).
    """
    if text is None:
        return None
    match = _RANK.match(text.strip().casefold())
    if match is None:
        return None
    if match.group(1) is not None:
        number, unit = int(match.group(1)), _RANK_UNITS.get(match.group(2))
    else:
        number, unit = int(match.group(4)), "p"
    if unit is None or not 1 <= number <= _RANK_LIMITS[unit]:
        return None
    return {"k": 30 - number, "d": 29 + number, "p": 100 + number}[unit]


_DATE = re.compile(r"^\s*(\d{4})(?:[-./](\d{1,2})(?:[-./](\d{1,2}))?)?(?!\d)")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")


def first_date(text: str | None) -> str | None:
    """The first date of a ``DT`` value in ISO form, as precise as it is given:
    ``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY``; None if it has none.

    Read: a date at the start (``2017-01-05``, ``2017.01.05 12:34``,
    ``1996-06-20,21``, ``2003-10``), else the first four-digit number standing
    alone, as a year (``05.01.2017`` gives ``2017``: day and month orders differ).
    """
    if text is None:
        return None
    match = _DATE.match(text)
    if match is not None:
        year, month, day = match.groups()
        if month is None or not 1 <= int(month) <= 12:
            return year
        if day is None or not 1 <= int(day) <= 31:
            return f"{year}-{int(month):02d}"
        return f"{year}-{int(month):02d}-{int(day):02d}"
    year_match = _YEAR.search(text)
    return None if year_match is None else year_match.group(1)


def winner(result: str | None) -> str | None:
    """``'B'`` or ``'W'`` for a ``RE`` that names a winner (``B+R``, ``W+0.5``,
    ``B``), None for anything else (draws, void, unknown, missing)."""
    if result is None:
        return None
    text = result.strip().upper()
    if text in ("B", "W") or text[:2] in ("B+", "W+"):
        return text[0]
    return None


def komi_value(text: str | None) -> float | None:
    """``KM`` as a number, or None if missing or not a finite number."""
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def game_digest(
    size: int, black: str | None, white: str | None, result: str | None,
    packed: bytes | memoryview,
) -> str:
    """The SHA-256 a game is known by: of its size, players and result and its
    main line's exact packed positions, concatenated."""
    digest = hashlib.sha256(f"{size}|{black}|{white}|{result}|".encode())
    digest.update(packed)
    return digest.hexdigest()


def next_moves(batch: PositionBatch) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int16]]:
    """The next move of each main-line row of ``batch``: its colour (0 none, 1, 2,
    as recorded) and its point mapped by the row's ``transform`` (the element
    onto its frame), -1 for a pass (and where there is no move).

    The next move is the move of the following row of the same game.  There is
    none after a game's last row, and none where a setup node comes next (with
    or without a move in it): the stones it changes were not played.
    """
    count = len(batch)
    colour = np.zeros(count, dtype=np.int8)
    point = np.full(count, -1, dtype=np.int16)
    if count < 2:
        return colour, point
    follows = (
        (batch.file[1:] == batch.file[:-1]) & (batch.game[1:] == batch.game[:-1])
        & (batch.variation[1:] == 0) & (batch.variation[:-1] == 0)
        & ~batch.setup[1:] & (batch.colour[1:] != 0)
    )
    colour[:-1] = np.where(follows, batch.colour[1:], 0)
    played = np.flatnonzero(follows & (batch.point[1:] >= 0))
    nexts = batch.point[1:][played].astype(np.intp)
    elements = batch.transform[:-1][played]
    sizes = batch.size[:-1][played]
    for size in np.unique(sizes).tolist():
        at = sizes == size
        point[played[at]] = point_images(size)[elements[at], nexts[at]]
    return colour, point


@cache
def point_images(size: int) -> npt.NDArray[np.intp]:
    """``perms[g, p]``: the image of point ``p`` under element ``g``."""
    return np.stack([g.point_permutation(size) for g in ELEMENTS])


def sql_keys(keys: npt.NDArray[np.uint64]) -> list[SqlKey]:
    """Canonical keys in the form the index stores them (:data:`SqlKey`)."""
    if keys.ndim == 1:
        signed: list[SqlKey] = keys.view(np.int64).tolist()
        return signed
    blob = keys.astype(">u8").tobytes()
    return [blob[i : i + 16] for i in range(0, len(blob), 16)]
