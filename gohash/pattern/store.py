"""The games a pattern search scans, read from an index once and kept in memory.

Scope: :class:`GameStore`, the games of one board size as the index stores them
(their stored form, main line lengths, ever bitmaps, winners and dates, in order
of game id), and :class:`Flat`, their main lines replayed once by the compiled
core into the points each node changes, as :meth:`Matcher.scan
<gohash.pattern.match.Matcher.scan>` reads them.  Which games and how long a
store is valid are the index's (:meth:`gohash.index.index.Index.pattern`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import PatternError

try:
    from . import _match
except ImportError:  # no C compiler at install: the pure path does the work
    _match = None  # type: ignore[assignment]

__all__ = ["Flat", "GameStore"]

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I8 = npt.NDArray[np.int8]
U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class Flat:
    """The main lines of a :class:`GameStore` replayed once.  Game ``g``'s
    positions are nodes ``node_offsets[g]`` to ``node_offsets[g + 1]`` of the node
    columns: side to move, move number, the next move's colour (0: none) and
    point (-1: a pass or none), and ``change_counts``, how many points the node
    changed.  The changes of game ``g``'s nodes follow one another from
    ``changes[change_offsets[g]]``, each ``point << 4 | old << 2 | new`` (points
    ``row * size + col``, row 0 the bottom line).  ``removed``: per game, a
    bitmap (``(size * size + 7) // 8`` bytes, bit ``p % 8`` of byte ``p // 8``) of
    the points a stone ever left in its main line, captured or cleared."""

    node_offsets: I64
    to_move: I8
    move_number: I32
    next_colour: I8
    next_point: I32
    change_offsets: I64
    change_counts: npt.NDArray[np.uint16]
    changes: npt.NDArray[np.uint16]
    removed: U8

    @property
    def nbytes(self) -> int:
        """The memory its columns take."""
        return sum(getattr(self, f.name).nbytes for f in fields(self))


class GameStore:
    """The games of one ``size`` an index holds with at least one position, in
    order of id, from ``rows`` of ``(id, winner, date, positions, nodes,
    ever_black, ever_white, record)`` as the games table has them.

    ``winners`` are 1 (Black), 2 (White) or 0 (neither, or unknown);
    ``date_ranks`` index ``dates`` (sorted, distinct), -1 for a game without a
    date.  ``data``, ``offsets``: the stored games one after the other (game
    ``g``'s is ``data[offsets[g]:offsets[g + 1]]``); ``mains`` the length of each
    main line, ``nodes`` each game's nodes; ``ever_black`` and ``ever_white``
    each game's bitmaps one after the other (the caller checks their width)."""

    def __init__(self, size: int, rows: Sequence[Sequence[Any]]) -> None:
        self.size = size
        self.ids: I64 = np.array([row[0] for row in rows], dtype=np.int64)
        self.winners: I8 = np.array([{"B": 1, "W": 2}.get(row[1], 0) for row in rows],
                                    dtype=np.int8)
        dates = [row[2] for row in rows]
        self.dates: list[str] = sorted({d for d in dates if d is not None})
        rank = {d: i for i, d in enumerate(self.dates)}
        self.date_ranks: I32 = np.array([rank.get(d, -1) for d in dates], dtype=np.int32)
        self.mains: I32 = np.array([row[3] for row in rows], dtype=np.int32)
        self.nodes: I32 = np.array([row[4] for row in rows], dtype=np.int32)
        self.ever_black = b"".join(row[5] for row in rows)
        self.ever_white = b"".join(row[6] for row in rows)
        self.data = b"".join(row[7] for row in rows)
        self.offsets: I64 = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(row[7]) for row in rows], out=self.offsets[1:])

    def __len__(self) -> int:
        return len(self.ids)

    def blob(self, g: int) -> bytes:
        """Game ``g``'s stored form."""
        return self.data[self.offsets[g] : self.offsets[g + 1]]

    @cached_property
    def flat(self) -> Flat:
        """The main lines replayed by the compiled core, once.  Raises ValueError
        ``(game, reason)`` (``game`` an index of the store) for a stored game that
        does not replay, and :class:`~gohash.errors.PatternError` if the core is
        not built."""
        if _match is None:
            raise PatternError("the compiled pattern kernel gohash.pattern._match is not built")
        return Flat(*_match.flatten(self.data, self.offsets, self.mains, self.size))
