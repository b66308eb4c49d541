"""The occurrences of a position in an index's stored games: confirmed, then summed.

Scope: :func:`read_games`, the games rows a search replays, and their
records (:func:`read_records`, :func:`all_records`); :func:`confirm`,
which replays the games that postings name and keeps the nodes whose
position is an image of a query's frame (:class:`Hits`); and
:func:`continuation_rows`, which sums confirmed occurrences into the
:class:`~gohash.index.view.ContinuationRow` groups that
:func:`~gohash.index.view.merge_continuations` reads, those reached by
setup apart (:func:`by_setup`, :func:`setup_rows`).  Searches
(:mod:`gohash.index.find`) and the aggregates of frequent positions
(:mod:`gohash.index.aggregates`) share them, so both count alike.  Nothing
here writes.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GohashError, StoredGameError
from ..group.symmetry import ELEMENTS, gathers, point_images
from ..pattern.tally import tally
from .games import plain_games, replay_at, setup_nodes
from .results import RECORD_COLUMNS, Record
from .values import require, require_games
from .view import ContinuationRow

__all__ = [
    "Hits", "all_records", "by_setup", "confirm", "continuation_rows", "read_games", "read_records",
    "setup_rows",
]

GAMES_PER_QUERY = 500
"""Game ids per ``IN (...)`` statement of :func:`read_games`."""


def read_games(
    db: sqlite3.Connection, game_ids: Sequence[int], columns: str
) -> dict[int, tuple[Any, ...]]:
    """Size, nodes, main line length, stored game and ``columns`` (of games ``g``
    and files ``f``, each starting with a comma) of each game of ``game_ids``, by
    id.  The values read are checked first (:func:`~gohash.index.values.require`):
    one out of its type or range raises :class:`~gohash.errors.DamagedIndexError`."""
    return _read(db, game_ids, f"g.size, g.nodes, g.positions, g.record{columns}", columns)


def read_records(db: sqlite3.Connection, game_ids: list[int]) -> dict[int, Record]:
    """The records of ``game_ids``, by id, checked as :func:`read_games` checks
    its rows (a record does not need the stored game: it is not read)."""
    return {game_id: Record.from_row(row)
            for game_id, row in _read(db, game_ids, RECORD_COLUMNS,
                                      f", {RECORD_COLUMNS}").items()}


def _read(db: sqlite3.Connection, game_ids: Sequence[int], selected: str,
          columns: str) -> dict[int, tuple[Any, ...]]:
    """The values ``selected`` (SQL) of each game of ``game_ids``, by id, once the
    columns :func:`read_games` reads with ``columns`` are checked."""
    out: dict[int, tuple[Any, ...]] = {}
    join = "JOIN files f ON f.id = g.file_id" if "f." in columns else ""
    read = ["file_id", "size", "nodes", "positions", "record", *_named("g", columns)]
    for start in range(0, len(game_ids), GAMES_PER_QUERY):
        chunk = list(game_ids[start : start + GAMES_PER_QUERY])
        these = f"id IN ({','.join('?' * len(chunk))})"
        require(db, "games", these, chunk, read)
        if join:
            require(db, "files", f"id IN (SELECT file_id FROM games WHERE {these})", chunk,
                    _named("f", columns))
        for row in db.execute(f"SELECT g.id, {selected} FROM games g {join} WHERE g.{these}",
                              chunk):
            out[row[0]] = row[1:]
    return out


def all_records(db: sqlite3.Connection) -> dict[int, Record]:
    """Every game record, by id."""
    require_games(db, "1", ())
    return {
        row[0]: Record.from_row(row)
        for row in db.execute(
            f"SELECT {RECORD_COLUMNS} FROM games g JOIN files f ON f.id = g.file_id"
        )
    }


def _named(table: str, columns: str) -> list[str]:
    """The columns of ``table`` (``g`` or ``f``) that ``columns`` (SQL) names."""
    return re.findall(rf"\b{table}\.(\w+)", columns)


@dataclass
class Hits:
    """The confirmed occurrences of a query: each one's game (``games`` holds
    their rows, :func:`read_games`), node ``seq``, the lowest element mapping
    it onto the frame, its side to move, move number and next move on the main
    line (colour as recorded, 0 none; point in the frame's orientation, -1 a
    pass); ``rejected`` counts the positions that had the key but other stones."""

    game_id: list[int]
    games: dict[int, tuple[Any, ...]]
    seq: npt.NDArray[np.int32]
    element: npt.NDArray[np.int8]
    to_move: npt.NDArray[np.int8]
    move_number: npt.NDArray[np.int32]
    next_colour: npt.NDArray[np.int8]
    next_point: npt.NDArray[np.int16]
    rejected: int

    def __len__(self) -> int:
        return len(self.game_id)

    def subset(self, kept: npt.NDArray[np.bool_]) -> Hits:
        """The occurrences ``kept`` marks (``rejected`` kept as it is)."""
        return Hits([g for g, k in zip(self.game_id, kept.tolist(), strict=True) if k],
                    self.games, self.seq[kept], self.element[kept], self.to_move[kept],
                    self.move_number[kept], self.next_colour[kept], self.next_point[kept],
                    self.rejected)


_INVERSES = [element.inverse.index for element in ELEMENTS]
_SWAPPED = np.array([element.swap for element in ELEMENTS])
_EXCHANGE = np.array([0, 2, 1], dtype=np.int8)


def images(stones: npt.NDArray[np.int8], size: int) -> npt.NDArray[np.int8]:
    """``images[g]``: the flat position ``stones`` mapped by the element of index ``g``."""
    out: npt.NDArray[np.int8] = stones[gathers(size)]
    out[_SWAPPED] = _EXCHANGE[out[_SWAPPED]]
    return out


def confirm(
    postings: Sequence[tuple[int, int]], games: dict[int, tuple[Any, ...]], size: int,
    frame: npt.NDArray[np.int8],
) -> Hits:
    """The ``postings`` (game id, seq, the rows of one game together; of ``games``,
    :func:`read_games`, all of board ``size``) whose position is the frame's up
    to symmetry, with the lowest element mapping each onto ``frame``: each game
    replayed once, as far as its postings ask.  A stored game that does not
    replay raises :class:`~gohash.errors.GohashError` naming it."""
    by_board: dict[bytes, int] = {}
    # The position each element e maps onto the frame: e^-1 of the frame.
    preimages = images(frame.reshape(-1), size)[_INVERSES]
    for element, preimage in zip(ELEMENTS, preimages, strict=True):
        by_board.setdefault(preimage.tobytes(), element.index)
    order: list[int] = []
    game_of: list[int] = []
    for game_id, _ in postings:
        if not order or order[-1] != game_id:
            order.append(game_id)
        game_of.append(len(order) - 1)
    seq = np.array([s for _, s in postings], dtype=np.int32)
    try:
        at = replay_at([games[g][3] for g in order], size, [games[g][1] for g in order],
                       [games[g][2] for g in order], np.array(game_of, dtype=np.int32), seq)
    except StoredGameError as e:
        raise GohashError(f"game {order[e.index]}: {e.reason}") from None
    found = [by_board.get(board) for board in map(bytes, at.boards)]
    kept = [i for i, element in enumerate(found) if element is not None]
    rejected = len({bytes(at.boards[i]) for i, e in enumerate(found) if e is None})
    elements = np.array([found[i] for i in kept], dtype=np.int8)
    next_point = at.next_point[kept]
    played = next_point >= 0
    # The next move in the frame's orientation, as the element maps it.
    next_point[played] = point_images(size)[elements[played], next_point[played]]
    return Hits([postings[i][0] for i in kept], games, seq[kept], elements,
                at.to_move[kept], at.move_number[kept], at.next_colour[kept], next_point,
                rejected)


def continuation_rows(
    hits: Hits, allowed: npt.NDArray[np.bool_] | None = None
) -> list[ContinuationRow]:
    """The occurrences of ``hits`` (whose games' rows hold ``winner`` and ``date``
    after the stored game, as :func:`read_games` gives ``", g.winner, g.date"``)
    grouped by next move, colour exchange, side to move and year, a game counted
    once for each move played from the position; ``allowed[swapped * 2 +
    to_move - 1]`` keeps those kinds of occurrence only (None: all).  Rows of
    disjoint sets of games add up to the rows of their union."""
    swapped = (hits.element >= 8).astype(np.int64)
    side = hits.to_move.astype(np.int64)
    colour = hits.next_colour.astype(np.int64)
    # Points 0..1022 (NO_POINT is the largest field value), a pass -1, none -2.
    point = np.where(colour > 0, hits.next_point, -2).astype(np.int64) + 2
    game_ids, game_index = np.unique(np.array(hits.game_id, dtype=np.int64),
                                     return_inverse=True)
    kind = ((colour * _POINTS + point) * 2 + swapped) * 3 + side
    if allowed is not None:
        keep = allowed[swapped * 2 + side - 1]
        kind, game_index = kind[keep], game_index.reshape(-1)[keep]
    # A game counts once for each move played from the position.
    pairs = np.unique(game_index.reshape(-1) * _KINDS + kind)
    game_index, kind = np.divmod(pairs, _KINDS)
    rows = [hits.games[g] for g in game_ids.tolist()]
    dates = [row[5] for row in rows]
    years = np.array([int(d[:4]) if d is not None and d[:4].isdigit() else -1 for d in dates],
                     dtype=np.int64)
    known = sorted({d for d in dates if d is not None})
    rank = {d: i for i, d in enumerate(known)}
    date_rank = np.array([-1 if d is None else rank[d] for d in dates], dtype=np.int64)
    black = np.array([row[4] == "B" for row in rows], dtype=np.int64)
    white = np.array([row[4] == "W" for row in rows], dtype=np.int64)
    # Years of four digits at most: 0 to 10,000 with -1 (none) shifted in.
    keys, group = np.unique(kind * 10_001 + years[game_index] + 1, return_inverse=True)
    summed = tally(group.reshape(-1), len(keys), black[game_index], white[game_index],
                   date_rank[game_index])
    kind, year = np.divmod(keys, 10_001)
    kind, side = np.divmod(kind, 3)
    kind, swapped = np.divmod(kind, 2)
    colour, point = np.divmod(kind, _POINTS)
    return [
        ContinuationRow(c, None if c == 0 else p - 2, bool(sw), tm, None if y < 1 else y - 1,
                        n, int(b), int(w), known[f] if f < len(known) else None,
                        known[la] if la >= 0 else None)
        for c, p, sw, tm, y, n, b, w, f, la in zip(
            colour.tolist(), point.tolist(), swapped.tolist(), side.tolist(), year.tolist(),
            summed.occurrences.tolist(), summed.black_wins.tolist(), summed.white_wins.tolist(),
            summed.first.tolist(), summed.last.tolist(), strict=True)
    ]


_POINTS = 1025
"""Values of a next move's point field shifted by 2 (none -2, a pass -1, points
up to 1022), packed in one integer with its colour, exchange and side to move."""
_KINDS = 3 * _POINTS * 2 * 3
"""Packed kinds of occurrence (colour, point, exchange, side to move)."""


def by_setup(hits: Hits) -> npt.NDArray[np.bool_]:
    """For each occurrence of ``hits``, whether setup made it (its node changed
    stones by setup, or is an initial position with stones) or ended it (the
    next node of its main line is such a node): a position not played through."""
    if not len(hits):
        return np.zeros(0, dtype=np.bool_)
    game_ids, at = np.unique(np.array(hits.game_id, dtype=np.int64), return_inverse=True)
    at = at.reshape(-1)
    plain, edits = plain_games([hits.games[g][3] for g in game_ids.tolist()])
    # A plain game's only setup is its initial position's stones.
    flags: npt.NDArray[np.bool_] = (hits.seq == 0) & (edits[at] > 0)
    rest = np.flatnonzero(~plain[at])
    if not len(rest):
        return flags
    seqs = hits.seq[rest].tolist()
    ids = game_ids[at[rest]].tolist()
    # Each game's nodes read once, as far as its last occurrence asks.
    last: dict[int, int] = {}
    for game_id, seq in zip(ids, seqs, strict=True):
        last[game_id] = max(last.get(game_id, 0), seq + 1)
    nodes = {game_id: setup_nodes(hits.games[game_id][3], end) for game_id, end in last.items()}
    for i, game_id, seq in zip(rest.tolist(), ids, seqs, strict=True):
        main, steps = hits.games[game_id][2], nodes[game_id]
        flags[i] = steps[seq] or (seq + 1 < main and seq + 1 < len(steps) and steps[seq + 1])
    return flags


def setup_rows(
    hits: Hits, allowed: npt.NDArray[np.bool_] | None, setup: str
) -> tuple[list[ContinuationRow], list[ContinuationRow]]:
    """:func:`continuation_rows` of the occurrences of ``hits`` that ``setup``
    (:data:`~gohash.index.view.SETUP`) keeps, and of those it leaves out:
    ``"include"`` all of them (none left out), ``"exclude"`` those played
    through (:func:`by_setup` false), ``"only"`` those reached or ended by setup."""
    if setup == "include":
        return continuation_rows(hits, allowed), []
    flags = by_setup(hits)
    made = flags if setup == "only" else ~flags
    return (continuation_rows(hits.subset(made), allowed),
            continuation_rows(hits.subset(~made), allowed))
