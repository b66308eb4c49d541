"""A pattern query over many games: its matches and continuations.

Scope: :class:`PatternQuery` (a pattern with its options, placed once) turns
one game's hits (:meth:`gohash.pattern.match.Matcher.match`), or many games'
(:meth:`~gohash.pattern.match.Matcher.scan`), into :class:`PatternMatch` es,
and :meth:`PatternQuery.result` sums the matches of all games up into a
:class:`PatternResult` with its :class:`PatternContinuation` s.  Which games,
and their boards, are the caller's (:meth:`gohash.index.index.Index.pattern`).

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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import PatternError
from ..group.schemes import KeyScheme, scheme
from ..group.symmetry import Element, Point
from ..index.queries import Record, move_json
from .diagram import SYMMETRIES, Pattern, Placement, parse_pattern, placements, symmetries
from .match import Found, Game, Matcher

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

    def matches(self, record: Record, game: Game, *, compiled: bool | None = None
                ) -> list[PatternMatch]:
        """The matches in one game (``game`` the boards of ``record``'s main line)."""
        return self.found_matches({0: record},
                                  Found.of(self.matcher.match(game, compiled=compiled), game))

    def found_matches(self, records: Mapping[int, Record], found: Found) -> list[PatternMatch]:
        """The matches of the hits ``found`` in the games ``records`` (by
        ``found.game``; :meth:`Matcher.scan <gohash.pattern.match.Matcher.scan>`)."""
        # One match per position: the lowest placement's, the first of its run.
        firsts = np.flatnonzero(np.diff(found.game, prepend=-1) | np.diff(found.position,
                                                                          prepend=-1))
        counts = np.diff(firsts, append=len(found.game))
        matches: list[PatternMatch] = []
        size = self.size
        placements = self.placements
        # Colours 1 and 2 in the query's colours, and continuations, per placement.
        colours = [(None, p.query_colour("b"), p.query_colour("w")) for p in placements]
        continuations: dict[tuple[int, int, int], tuple[str, Point]] = {}
        for g, pl, position, number, to_move, colour, point, tenuki, count in zip(
                *(column[firsts].tolist() for column in (
                    found.game, found.placement, found.position, found.move_number,
                    found.to_move, found.next_colour, found.next_point, found.tenuki)),
                counts.tolist(), strict=True):
            placement = placements[pl]
            continuation = None
            if colour:
                continuation = continuations.get((pl, colour, point))
                if continuation is None:
                    continuation = continuations[pl, colour, point] = (
                        colours[pl][colour], placement.to_query(point, size))
            matches.append(PatternMatch(
                records[g], number, placement.element, placement.offset, position,
                colours[pl][to_move], continuation, tenuki, count,
            ))
        return matches

    def result(self, matches: Iterable[PatternMatch], *, searched: int, candidates: int,
               limit: int | None = None, offset: int = 0) -> PatternResult:
        """All the matches of the games searched summed up; ``limit`` of them kept
        (None: all) from the ``offset``-th."""
        everything = list(matches)
        moves: dict[tuple[str, Point], _Sum] = {}
        ended = 0
        for m in everything:
            if m.continuation is None:
                ended += 1
                continue
            moves.setdefault(self._representative(*m.continuation), _Sum()).add(m)
        ordered = sorted(moves.items(), key=lambda kv: (-kv[1].count, kv[0][0] != "b", kv[0][1]))
        return PatternResult(
            self.pattern, self.symmetry, len(self.placements), searched, candidates,
            len({m.record.id for m in everything}), len(everything), ended,
            everything[offset:None if limit is None else offset + limit],
            [total.result(colour, point, self._equivalent(colour, point))
             for (colour, point), total in ordered],
            limit, offset,
        )

    def _images(self, colour: str, point: Point) -> set[tuple[str, Point]]:
        return {(s.map_colour(colour), s.map_point(point, self.size)) for s in self.symmetries}

    def _representative(self, colour: str, point: Point) -> tuple[str, Point]:
        return max(self._images(colour, point), key=lambda m: (m[0] == "b", m[1]))

    def _equivalent(self, colour: str, point: Point) -> tuple[Point, ...]:
        return tuple(sorted(q for c, q in self._images(colour, point) if c == colour))


class _Sum:
    """A continuation being summed up."""

    def __init__(self) -> None:
        self.count = self.tenuki = self.black_wins = self.white_wins = 0
        self.first: str | None = None
        self.last: str | None = None

    def add(self, m: PatternMatch) -> None:
        self.count += 1
        self.tenuki += m.tenuki
        winner = m.record.winner
        if winner is not None:
            # The winner in the query's colours.
            if (winner == "B") != m.element.swap:
                self.black_wins += 1
            else:
                self.white_wins += 1
        date = m.record.date
        if date is not None:
            self.first = date if self.first is None or date < self.first else self.first
            self.last = date if self.last is None or date > self.last else self.last

    def result(self, colour: str, point: Point, equivalent: tuple[Point, ...]
               ) -> PatternContinuation:
        return PatternContinuation(
            colour, point, equivalent, self.count, self.tenuki, self.black_wins, self.white_wins,
            self.count - self.black_wins - self.white_wins, self.first, self.last,
        )
