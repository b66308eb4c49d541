"""A pattern query over many games: its matches and continuations.

Scope: :class:`PatternQuery` (a pattern with its options, placed once) and
:meth:`PatternQuery.result`, which sums the hits of many games
(:class:`~gohash.pattern.match.Found`) up on arrays into a
:class:`PatternResult`: the counts and :class:`PatternContinuation` s of all
matches, and the :class:`PatternMatch` es asked for.  Which games, and their
hits, are the caller's (:meth:`gohash.index.index.Index.pattern`).

Hits at the same position of a game are one match (that of the lowest
placement): a shape that appears in two places at once is one event of the
game.  A move and its images under the pattern's own symmetries (those of
the query's group that map it onto itself) are one continuation, shown at
one of them: Black's if colours may be exchanged, then the last point in
``(row, col)`` order.  Everything a match or a continuation says is in the query's
orientation and colours: the board points of a hit mapped back by its
placement (the inverse of its element, after undoing its offset), colours
exchanged if its element exchanges them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import PatternError
from ..group.schemes import KeyScheme, scheme
from ..group.symmetry import Element, Point
from ..index.queries import Record, move_json
from .diagram import SYMMETRIES, Pattern, Placement, parse_pattern, placements, symmetries
from .match import Found, Matcher
from .store import GameStore

__all__ = [
    "PATTERN_SCHEME",
    "PatternContinuation",
    "PatternMatch",
    "PatternQuery",
    "PatternResult",
]

PATTERN_SCHEME = "regular64"
"""The key scheme of placement keys: 64-bit XOR keys on which all 16 elements
act by a slot permutation (a key only filters, so 64 bits suffice)."""


@dataclass(frozen=True)
class PatternMatch:
    """The pattern was present in ``record`` after move ``move_number`` (position
    ``seq`` of the main line, 0 the start), placed by ``element`` and then moved
    by ``offset`` (rows, columns): query point ``q`` at
    ``element.map_point(q) + offset``.  ``to_move`` is the side to move there
    and ``continuation`` the next move played in the pattern's region (colour
    and point; None: none was), both in the query's orientation and colours;
    ``tenuki``: a move elsewhere (or a pass) came before it.  ``continuation``
    is the move as played, seen from the query; :class:`PatternContinuation`
    gathers it with its images under the pattern's symmetries.  ``placements``
    counts the placements that hit there at once (this one the lowest)."""

    record: Record
    move_number: int
    element: Element
    offset: Point
    seq: int
    to_move: str
    continuation: tuple[str, Point] | None
    tenuki: bool
    placements: int = 1

    @property
    def colours_exchanged(self) -> bool:
        return self.element.swap

    @property
    def view_offset(self) -> Point:
        """Where the game seen through ``view`` (``element``'s inverse, as a viewer
        shows it) holds the pattern: query point ``q`` at ``q + view_offset``, a
        translation (zero unless the pattern slid)."""
        size = self.record.size
        row, col = self.element.map_point((0, 0), size)
        return self.element.inverse.map_point((row + self.offset[0], col + self.offset[1]), size)

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """The match as JSON (docs/schemas.md, "gohash index pattern"): its game's
        record (:meth:`~gohash.index.queries.Record.to_json`, ``paths`` as there),
        then where and how the pattern was placed;
        ``view`` is ``element``'s inverse, which shows the game in the query's
        orientation and colours."""
        size = self.record.size
        return {
            **self.record.to_json(paths=paths),
            "move_number": self.move_number,
            "seq": self.seq,
            "element": self.element.name,
            "view": self.element.inverse.name,
            "offset": list(self.offset),
            "view_offset": list(self.view_offset),
            "colours_exchanged": self.colours_exchanged,
            "to_move": self.to_move,
            "next_move": None if self.continuation is None else move_json(*self.continuation,
                                                                           size),
            "tenuki": self.tenuki,
            "placements": self.placements,
        }


@dataclass(frozen=True)
class PatternContinuation:
    """One next move in the region, in the query's orientation and colours:
    ``count`` matches went on with it, ``tenuki`` of them after a move
    elsewhere; ``black_wins`` and ``white_wins`` count the games won by the
    player of the query's Black or White stones, ``other`` the rest;
    ``first_date`` and ``last_date`` bound the dates of those games that have one.
    ``equivalent`` holds ``point`` and its images under the pattern's
    symmetries that keep ``colour`` (one point for a pattern without any)."""

    colour: str
    point: Point
    equivalent: tuple[Point, ...]
    count: int
    tenuki: int
    black_wins: int
    white_wins: int
    other: int
    first_date: str | None
    last_date: str | None

    def to_json(self, size: int) -> dict[str, Any]:
        """The continuation on a ``size`` board as JSON (docs/schemas.md,
        "gohash index pattern")."""
        return {
            **move_json(self.colour, self.point, size),
            "equivalent": [list(p) for p in self.equivalent],
            "count": self.count, "tenuki": self.tenuki, "black_wins": self.black_wins,
            "white_wins": self.white_wins, "other": self.other,
            "first_date": self.first_date, "last_date": self.last_date,
        }


@dataclass
class PatternResult:
    """The answer to a pattern query.

    ``searched`` games were of the pattern's size and let through by the
    filters, ``candidates`` of them replayed (the others lack a stone some
    every placement needs), ``games`` of them hit.  ``total`` matches in
    all; ``matches`` holds ``limit`` (None: all) of them in index order from
    the ``offset``-th (0: the first).
    ``continuations`` come most played first (then Black's first, then by
    point); ``ended`` matches had no move in the region after them.
    ``placements`` is how many distinct placements the query has.
    """

    pattern: Pattern
    symmetry: str
    placements: int
    searched: int
    candidates: int
    games: int
    total: int
    ended: int
    matches: list[PatternMatch]
    continuations: list[PatternContinuation]
    limit: int | None
    offset: int = 0

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """The result as JSON (docs/schemas.md, "gohash index pattern"); ``paths``
        as in :meth:`~gohash.index.queries.Record.to_json`."""
        size = self.pattern.size
        return {
            "size": size,
            "pattern": self.pattern.diagram(),
            "symmetry": self.symmetry,
            "placements": self.placements,
            "searched": self.searched,
            "candidates": self.candidates,
            "games": self.games,
            "total": self.total,
            "ended": self.ended,
            "tenuki": sum(c.tenuki for c in self.continuations),
            "limit": self.limit,
            "offset": self.offset,
            "continuations": [c.to_json(size) for c in self.continuations],
            "matches": [m.to_json(paths=paths) for m in self.matches],
        }


class PatternQuery:
    """A pattern (a :class:`~gohash.pattern.diagram.Pattern` or a diagram) with its
    options, placed once: ``symmetry`` one of
    :data:`~gohash.pattern.diagram.SYMMETRIES`; ``to_move`` ``'b'``, ``'w'``
    (in the query's colours) or None/``'any'``; ``max_move`` the last move
    number a hit may have (None: any); ``sequence`` the moves that must follow
    (:func:`~gohash.pattern.diagram.parse_sequence`)."""

    def __init__(
        self,
        pattern: Pattern | str,
        *,
        symmetry: str = "full",
        to_move: str | None = None,
        max_move: int | None = None,
        sequence: str | Sequence[tuple[str, str]] = (),
    ) -> None:
        if isinstance(pattern, str):
            pattern = parse_pattern(pattern)
        if sequence:
            pattern = pattern.with_sequence(sequence)
        if to_move not in (None, "any", "b", "w"):
            raise PatternError(f"to_move {to_move!r} is not 'b', 'w', 'any' or None")
        if max_move is not None and (isinstance(max_move, bool) or not isinstance(max_move, int)
                                     or max_move < 0):
            raise PatternError(f"max_move {max_move!r} is not a move number (0 or more)")
        if symmetry not in SYMMETRIES:
            raise PatternError(f"symmetry {symmetry!r} is not one of {', '.join(SYMMETRIES)}")
        self.pattern = pattern
        self.symmetry = symmetry
        self.size = pattern.size
        self.keys: KeyScheme = scheme(PATTERN_SCHEME, pattern.size)
        self.placements: tuple[Placement, ...] = placements(pattern, self.keys, symmetry)
        self.symmetries = symmetries(pattern, symmetry)
        self.matcher = Matcher(
            self.placements, self.keys,
            to_move={None: 0, "any": 0, "b": 1, "w": 2}[to_move],
            max_move=-1 if max_move is None else max_move,
        )

    def result(self, found: Found, games: GameStore,
               records: Callable[[list[int]], Mapping[int, Record]], *, searched: int,
               candidates: int, limit: int | None = None, offset: int = 0) -> PatternResult:
        """The hits ``found`` in ``games`` (``found.game`` indexes of the store;
        :meth:`Matcher.scan <gohash.pattern.match.Matcher.scan>`) summed up: one
        match per position (that of its lowest placement), ``limit`` of them kept
        (None: all) from the ``offset``-th, their records asked of ``records``
        (game ids to records) for those only; the continuations and counts of all,
        computed on the arrays."""
        size = self.size
        npts = size * size
        # One match per position: the lowest placement's, the first of its run.
        firsts = np.flatnonzero(np.diff(found.game, prepend=-1)
                                | np.diff(found.position, prepend=-1))
        counts = np.diff(firsts, append=len(found.game))
        game = found.game[firsts]
        placement = found.placement[firsts]
        swapped = self.matcher.swaps[placement].astype(np.bool_)
        colour = found.next_colour[firsts]
        has = colour > 0
        # Each continuation in the query's orientation and colours, and the
        # representative of it and its images under the pattern's symmetries.
        query_colour = np.where(swapped, 3 - colour, colour)
        query_point = self._to_query[placement[has], found.next_point[firsts][has]]
        moves = self._representatives[query_colour[has] - 1, query_point]
        distinct, which, count = np.unique(moves, return_inverse=True, return_counts=True)
        tenuki = np.bincount(which, weights=found.tenuki[firsts][has], minlength=len(distinct))
        winner = games.winners[game[has]]
        query_winner = np.where(winner == 0, 0, np.where(swapped[has], 3 - winner, winner))
        black_wins = np.bincount(which, weights=query_winner == 1, minlength=len(distinct))
        white_wins = np.bincount(which, weights=query_winner == 2, minlength=len(distinct))
        rank = games.date_ranks[game[has]]
        dated = rank >= 0
        # The first and last date of each: its dated matches sorted by date.
        by_date = np.lexsort((rank[dated], which[dated]))
        groups, starts, sizes = np.unique(which[dated][by_date], return_index=True,
                                          return_counts=True)
        first = np.full(len(distinct), -1, dtype=np.int64)
        last = np.full(len(distinct), -1, dtype=np.int64)
        first[groups] = rank[dated][by_date][starts]
        last[groups] = rank[dated][by_date][starts + sizes - 1]
        # Most played first, then Black's first, then by point.
        order = np.lexsort((distinct % npts, distinct < npts, -count))
        continuations = []
        for j in order.tolist():
            move_colour = "b" if distinct[j] >= npts else "w"
            point = divmod(int(distinct[j]) % npts, size)
            continuations.append(PatternContinuation(
                move_colour, point, self._equivalent(move_colour, point), int(count[j]),
                int(tenuki[j]), int(black_wins[j]), int(white_wins[j]),
                int(count[j] - black_wins[j] - white_wins[j]),
                games.dates[first[j]] if last[j] >= 0 else None,
                games.dates[last[j]] if last[j] >= 0 else None,
            ))
        window = slice(offset, None if limit is None else offset + limit)
        ids = games.ids[game[window]].tolist()
        known = records(sorted(set(ids)))
        placements = self.placements
        at = firsts[window]
        # The side to move and the continuation, in the query's colours and
        # orientation, of the matches kept.
        names = ("", "b", "w")
        to_move = np.where(swapped[window], 3 - found.to_move[at], found.to_move[at]).tolist()
        played = self._to_query[placement[window], np.maximum(found.next_point[at], 0)]
        next_moves = [None if not c else (names[c], divmod(q, size)) for c, q in zip(
            np.where(has[window], query_colour[window], 0).tolist(), played.tolist(),
            strict=True)]
        matches = [
            PatternMatch(known[game_id], number, placements[pl].element, placements[pl].offset,
                         position, names[side], next_move, tenuki, placed)
            for game_id, number, pl, position, side, next_move, tenuki, placed in zip(
                ids, found.move_number[at].tolist(), placement[window].tolist(),
                found.position[at].tolist(), to_move, next_moves,
                found.tenuki[at].tolist(), counts[window].tolist(), strict=True)
        ]
        return PatternResult(
            self.pattern, self.symmetry, len(placements), searched, candidates,
            len(np.unique(game)), len(firsts), int(len(firsts) - has.sum()), matches,
            continuations, limit, offset,
        )

    @cached_property
    def _to_query(self) -> npt.NDArray[np.int32]:
        """``[placement, board point]``: the query point (flat) a placement puts
        there, -1 outside its region."""
        m = self.matcher
        table = np.full((len(self.placements), self.size * self.size), -1, dtype=np.int32)
        lengths = np.diff(m.offsets)
        region = np.array(self.pattern.region, dtype=np.int32)
        table[np.repeat(np.arange(len(self.placements)), lengths), m.points] = np.tile(
            region, len(self.placements))
        return table

    @cached_property
    def _representatives(self) -> npt.NDArray[np.int64]:
        """``[query colour - 1, query point]``: the move that stands for it and its
        images under the pattern's symmetries, ``npts * (colour is Black) +
        point`` (flat): the greatest, Black's first, then the last point."""
        npts = self.size * self.size
        best = np.full((2, npts), -1, dtype=np.int64)
        points = np.arange(npts)
        for s in self.symmetries:
            image = s.point_permutation(self.size)[points]
            for c in (1, 2):
                mapped = (3 - c) if s.swap else c
                best[c - 1] = np.maximum(best[c - 1], image + npts * (mapped == 1))
        return best

    def _equivalent(self, colour: str, point: Point) -> tuple[Point, ...]:
        """``point`` and the points that ``colour`` there is equivalent to (those
        with the same representative: the pattern's symmetries are a group), in
        ``(row, col)`` order."""
        representatives = self._representatives[0 if colour == "b" else 1]
        mine = representatives[point[0] * self.size + point[1]]
        return tuple(divmod(int(q), self.size)
                     for q in np.flatnonzero(representatives == mine))

