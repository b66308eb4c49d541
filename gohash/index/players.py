"""A player's games in an index: results by colour and by year, most played openings.

Scope: :class:`PlayerSummary` (what :meth:`gohash.index.index.Index.player`
gives), :class:`Results` and :class:`Opening`, and the pure functions that make
them from the index's rows: :func:`summarize` and :func:`opening_moves`, which
turns a game's first stored next moves back into the game's orientation and
then into one orientation shared by every game that played them up to
symmetry.  The index's SQL is :mod:`gohash.index.index`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..group.symmetry import D4, ELEMENTS, Point
from .movelist import point_letters
from .queries import Record

__all__ = ["OPENING_MOVES", "Opening", "PlayerSummary", "Results", "opening_moves", "summarize"]

OPENING_MOVES = 4
"""Moves an opening is made of unless the caller says otherwise."""


@dataclass
class Results:
    """Games of one player and how they ended for them: ``wins``, ``losses`` and
    ``other`` (draw, void, unknown, no result) sum to ``games``."""

    games: int = 0
    wins: int = 0
    losses: int = 0
    other: int = 0

    def add(self, winner: str | None, colour: str) -> None:
        self.games += 1
        if winner is None:
            self.other += 1
        elif winner.casefold() == colour:
            self.wins += 1
        else:
            self.losses += 1


@dataclass
class Opening:
    """The first moves of some of a player's games, the same up to rotation and
    reflection: ``moves`` as ``(colour, point)`` on a board of ``size`` (point
    ``(row, col)``, row 0 the bottom line), in the orientation
    :func:`opening_moves` picks; ``count`` games played them, ``years`` counts
    those with a date by year; ``results`` says how they ended for the player."""

    size: int
    moves: tuple[tuple[str, Point], ...]
    count: int = 0
    years: dict[int, int] = field(default_factory=dict)
    results: Results = field(default_factory=Results)

    @property
    def letters(self) -> tuple[str, ...]:
        """The moves as SGF letters with their colour (``'bpd'``), as move lists take them."""
        return tuple(colour + point_letters(point, self.size) for colour, point in self.moves)


@dataclass
class PlayerSummary:
    """A player's games (by exact name, either colour), in the order asked for
    (most recent first unless asked otherwise); their results as Black (``colours['b']``), as White
    (``colours['w']``), and by year (games with a date); and their most played
    openings of ``opening_length`` moves, most played first.  ``openings_counted``
    games had such an opening: games that start from an empty board (no
    handicap or other setup stones) and whose first ``opening_length`` moves are
    no passes."""

    name: str
    records: list[Record]
    colours: dict[str, Results]
    years: dict[int, Results]
    openings: list[Opening]
    opening_length: int
    openings_counted: int


def opening_moves(
    stored: Sequence[tuple[int, int, int]], size: int
) -> tuple[tuple[str, Point], ...] | None:
    """The opening of a game from its first stored next moves, one per position of
    its main line from the initial one: ``(element, colour, point)`` as the index
    stores an occurrence (its frame element, 0 to 15; the colour as recorded, 1
    Black, 2 White, 0 none; the point in the frame's orientation, ``row * size +
    col``, -1 a pass); None if a move is missing or a pass.

    The moves are turned back into the game's orientation, then into the one
    of the eight board maps that gives the least sort key: every move's
    column from the right, then its row from the top, so a first move on a 4-4
    point is at Q16 (SGF ``pd``), the top right.
    """
    played = []
    for element, colour, point in stored:
        if colour not in (1, 2) or point < 0:
            return None
        at = ELEMENTS[element].inverse.map_point(divmod(point, size), size)
        played.append(("b" if colour == 1 else "w", at))
    if not played:
        return None

    def key(moves: list[tuple[str, Point]]) -> list[tuple[int, int]]:
        return [(size - 1 - col, size - 1 - row) for _, (row, col) in moves]

    images: list[list[tuple[str, Point]]] = [
        [(c, g.map_point(p, size)) for c, p in played] for g in D4
    ]
    best: list[tuple[str, Point]] = min(images, key=key)
    return tuple(best)


def summarize(
    name: str,
    records: Iterable[Record],
    openings: Mapping[int, tuple[tuple[str, Point], ...]],
    *,
    opening_length: int,
    limit: int | None,
) -> PlayerSummary:
    """The summary of ``name``'s games ``records`` (in the order given) with the
    openings of those games that have one (by game id, from
    :func:`opening_moves`); ``limit`` most played openings kept (None: all).
    Openings come most played first, then by their moves."""
    records = list(records)
    colours = {"b": Results(), "w": Results()}
    years: dict[int, Results] = {}
    found: dict[tuple[int, tuple[tuple[str, Point], ...]], Opening] = {}
    for record in records:
        year = int(record.date[:4]) if record.date else None
        # A game against oneself counts once as Black and once as White.
        for colour, player in (("b", record.black), ("w", record.white)):
            if player != name:
                continue
            colours[colour].add(record.winner, colour)
            if year is not None:
                years.setdefault(year, Results()).add(record.winner, colour)
        moves = openings.get(record.id)
        if moves is None:
            continue
        opening = found.setdefault((record.size, moves), Opening(record.size, moves))
        opening.count += 1
        if year is not None:
            opening.years[year] = opening.years.get(year, 0) + 1
        opening.results.add(record.winner, "b" if record.black == name else "w")
    ordered = sorted(found.values(), key=lambda o: (-o.count, o.size, o.letters))
    for opening in ordered:
        opening.years = dict(sorted(opening.years.items()))
    return PlayerSummary(
        name, records, colours, dict(sorted(years.items())), ordered[:limit], opening_length,
        sum(o.count for o in ordered),
    )
