"""A player's games in an index: results by colour and by year, most played
openings and corner patterns.

Scope: :class:`PlayerSummary` (what :meth:`gohash.index.index.Index.player`
gives), :class:`Results`, :class:`Opening` and :class:`CornerPattern`, and the
pure functions that make them from the index's rows: :func:`summarize`,
:func:`opening_moves`, which turns a game's first stored next moves back into
the game's orientation and then into one orientation shared by every game that
played them up to symmetry, and :func:`corner_patterns`, the first moves played
in each corner, each turned to the top right; and the index's queries that
read them (:func:`find_players`, :func:`player_summary`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from .._deprecated import deprecated
from ..errors import OptionError
from ..group.coords import sgf_letters
from ..group.symmetry import D4, ELEMENTS, Point
from .filters import game_order
from .games import replay_game
from .results import RECORD_COLUMNS, Record
from .values import require, require_games

__all__ = [
    "CORNER_MOVES", "OPENING_MOVES", "CornerPattern", "Opening", "PlayerMatch", "PlayerSummary",
    "Results", "chosen_player", "corner_patterns", "corner_side", "find_players",
    "opening_moves", "player_summary", "summarize",
]

OPENING_MOVES = 4
"""Moves an opening is made of unless the caller says otherwise."""

CORNER_MOVES = 4
"""Moves a corner pattern is made of: the first ones played in the corner."""

Moves = tuple[tuple[str, Point], ...]
_O = TypeVar("_O", bound="Opening")


@dataclass
class Results:
    """Games of one player and how they ended for them: ``wins``, ``losses`` and
    ``other`` (draw, void, unknown, no result) sum to ``games``."""

    games: int = 0
    wins: int = 0
    losses: int = 0
    other: int = 0

    def to_json(self, *, paths: bool = True) -> dict[str, int]:
        """``games``, ``wins``, ``losses``, ``other`` (docs/schemas.md, "Player")."""
        return {"games": self.games, "wins": self.wins, "losses": self.losses,
                "other": self.other}

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
        return tuple(colour + sgf_letters(point, self.size) for colour, point in self.moves)

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """``size``, ``moves`` (a move list, :attr:`letters` joined by commas),
        ``count``, ``years``, ``results`` (docs/schemas.md, "Player")."""
        return {
            "size": self.size,
            "moves": ",".join(self.letters),
            "count": self.count,
            "years": {str(year): count for year, count in self.years.items()},
            "results": self.results.to_json(),
        }


@dataclass
class CornerPattern(Opening):
    """The first moves played in a corner, the same up to the board maps: ``moves``
    turned to the top right corner as :func:`corner_patterns` does, colours as
    played.  ``count`` counts them over games and corners (a game that played
    them in two corners counts twice; so do its ``years`` and ``results``);
    ``player`` counts those by the colour the player had in the game (``'b'``,
    ``'w'``), so Black's and White's side of the same moves can be told apart."""

    player: dict[str, int] = field(default_factory=dict)

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """:meth:`Opening.to_json` and ``player``."""
        return {**super().to_json(), "player": dict(sorted(self.player.items()))}


@dataclass
class PlayerSummary:
    """A player's games (by exact name, either colour), in the order asked for
    (most recent first unless asked otherwise); their results as Black (``colours['b']``), as White
    (``colours['w']``), and by year (games with a date); and their most played
    openings of ``opening_length`` moves, most played first.  ``openings_counted``
    games had such an opening: games that start from an empty board (no
    handicap or other setup stones) and whose first ``opening_length`` moves are
    no passes.  Likewise ``corners``, the most played corner patterns of
    ``corner_length`` moves (:func:`corner_patterns`, games from an empty board
    only), of ``corners_counted`` corners that had that many moves.  Its JSON
    holds the games from ``games_offset``, ``games_limit`` of them (None: all):
    :meth:`page` sets them."""

    name: str
    records: list[Record]
    colours: dict[str, Results]
    years: dict[int, Results]
    openings: list[Opening]
    opening_length: int
    openings_counted: int
    corners: list[CornerPattern]
    corner_length: int
    corners_counted: int
    games_offset: int = 0
    games_limit: int | None = None

    def page(self, offset: int, limit: int | None) -> PlayerSummary:
        """The summary whose JSON holds the games from ``offset``, ``limit`` of them
        (None: all)."""
        return replace(self, games_offset=offset, games_limit=limit)

    def to_json(self, offset: int | None = None, limit: int | None = None, *,
                paths: bool = True) -> dict[str, Any]:
        """The summary as JSON (docs/schemas.md, "Player"), with the games of
        :meth:`page`; ``paths=False`` leaves out the games' file paths, as the
        server does.  ``offset`` and ``limit`` are deprecated (:meth:`page`)."""
        if offset is not None or limit is not None:
            deprecated("to_json(offset, limit)", "page(offset, limit).to_json()",
                       "PlayerSummary.to_json")
            return self.page(offset or 0, limit).to_json(paths=paths)
        offset, limit = self.games_offset, self.games_limit
        page = self.records[offset:] if limit is None else self.records[offset : offset + limit]
        return {
            "name": self.name,
            "colours": {c: r.to_json() for c, r in self.colours.items()},
            "years": {str(year): r.to_json() for year, r in self.years.items()},
            "opening_length": self.opening_length,
            "openings_counted": self.openings_counted,
            "openings": [o.to_json() for o in self.openings],
            "corner_length": self.corner_length,
            "corners_counted": self.corners_counted,
            "corners": [p.to_json() for p in self.corners],
            "games": {"total": len(self.records), "offset": offset, "limit": limit,
                      "records": [r.to_json(paths=paths) for r in page]},
        }


@dataclass(frozen=True)
class PlayerMatch:
    """A player's name as recorded that a search found, and the games they played."""

    name: str
    games: int

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """``name`` and ``games`` (docs/schemas.md, "Players")."""
        return {"name": self.name, "games": self.games}


def chosen_player(matches: Sequence[PlayerMatch], text: str) -> str | None:
    """The one player ``text`` names among ``matches`` (of
    :meth:`gohash.index.index.Index.players`): the name equal to it (the same
    name case-folded if no name is), or the only match; None if none or several fit."""
    exact = [m.name for m in matches if m.name == text]
    folded = [m.name for m in matches if m.name.casefold() == text.casefold()]
    for equal in (exact, folded, [m.name for m in matches]):
        if len(equal) == 1:
            return equal[0]
        if equal:
            return None
    return None


def _least(images: Iterable[list[tuple[str, Point]]], size: int) -> Moves:
    """Of the images of some moves, the one with the least sort key: every move's
    column from the right, then its row from the top."""

    def key(moves: list[tuple[str, Point]]) -> list[tuple[int, int]]:
        return [(size - 1 - col, size - 1 - row) for _, (row, col) in moves]

    best: list[tuple[str, Point]] = min(images, key=key)
    return tuple(best)


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
    return _least(([(c, g.map_point(p, size)) for c, p in played] for g in D4), size)


def corner_side(size: int) -> int:
    """The side of a corner's region on a board of ``size``: the 9x9 points nearest
    the corner on 19x19 and larger boards, the board's quarter rounded up on
    smaller ones (7x7 on 13x13, 5x5 on 9x9; there the middle line is in two
    corners)."""
    return min(9, (size + 1) // 2)


def corner_patterns(
    moves: Iterable[tuple[str, Point]], size: int, length: int = CORNER_MOVES
) -> list[Moves]:
    """The corner patterns of a game's ``moves`` (``(colour, point)`` in the order
    played, point ``(row, col)``, row 0 the bottom line; no passes): for each
    corner, bottom left, bottom right, top left, top right, that had ``length``
    moves in its region (:func:`corner_side`), its first ``length`` moves
    there, turned by the board map taking that corner to the top right, then,
    of the two maps fixing it there (none and the reflection in the diagonal
    through it), the one giving the least sort key, as :func:`opening_moves`
    does; colours stay as played.  A pattern is what was played there whatever
    happened elsewhere in between."""
    side = corner_side(size)
    moves = list(moves)
    last = size - 1
    found = []
    for corner in ((0, 0), (0, last), (last, 0), (last, last)):
        inside = [(c, (row, col)) for c, (row, col) in moves
                  if abs(row - corner[0]) < side and abs(col - corner[1]) < side][:length]
        if len(inside) < length:
            continue
        maps = [g for g in D4 if g.map_point(corner, size) == (last, last)]
        found.append(_least(([(c, g.map_point(p, size)) for c, p in inside] for g in maps), size))
    return found


def summarize(
    name: str,
    records: Iterable[Record],
    openings: Mapping[int, Moves],
    *,
    opening_length: int,
    limit: int | None,
    corners: Mapping[int, Sequence[Moves]] | None = None,
    corner_length: int = CORNER_MOVES,
) -> PlayerSummary:
    """The summary of ``name``'s games ``records`` (in the order given) with the
    openings of those games that have one (by game id, from
    :func:`opening_moves`) and their corner patterns (by game id, from
    :func:`corner_patterns`); ``limit`` most played openings and corner
    patterns kept (None: all).  Both come most played first, then by their
    moves."""
    records = list(records)
    corners = corners or {}
    colours = {"b": Results(), "w": Results()}
    years: dict[int, Results] = {}
    found: dict[tuple[int, Moves], Opening] = {}
    shapes: dict[tuple[int, Moves], CornerPattern] = {}
    for record in records:
        year = int(record.date[:4]) if record.date else None
        # A game against oneself counts once as Black and once as White.
        for colour, player in (("b", record.black), ("w", record.white)):
            if player != name:
                continue
            colours[colour].add(record.winner, colour)
            if year is not None:
                years.setdefault(year, Results()).add(record.winner, colour)
        colour = "b" if record.black == name else "w"
        moves = openings.get(record.id)
        if moves is not None:
            opening = found.setdefault((record.size, moves), Opening(record.size, moves))
            _tally(opening, year, record.winner, colour)
        for shape in corners.get(record.id, ()):
            pattern = shapes.setdefault((record.size, shape), CornerPattern(record.size, shape))
            _tally(pattern, year, record.winner, colour)
            pattern.player[colour] = pattern.player.get(colour, 0) + 1
    ordered = _ordered(found.values())
    ordered_shapes = _ordered(shapes.values())
    return PlayerSummary(
        name, records, colours, dict(sorted(years.items())), ordered[:limit], opening_length,
        sum(o.count for o in ordered), ordered_shapes[:limit], corner_length,
        sum(o.count for o in ordered_shapes),
    )


def _tally(opening: Opening, year: int | None, winner: str | None, colour: str) -> None:
    """Count one more game (or corner) of ``opening``, the player having ``colour``."""
    opening.count += 1
    if year is not None:
        opening.years[year] = opening.years.get(year, 0) + 1
    opening.results.add(winner, colour)


def _ordered(openings: Iterable[_O]) -> list[_O]:
    """Most played first, then by size and moves; years in order."""
    ordered = sorted(openings, key=lambda o: (-o.count, o.size, o.letters))
    for opening in ordered:
        opening.years = dict(sorted(opening.years.items()))
    return ordered


# -- the index's queries ------------------------------------------------------------------------


def find_players(db: sqlite3.Connection, text: str, *, limit: int | None = 20
                 ) -> list[PlayerMatch]:
    """:meth:`Index.players <gohash.index.index.Index.players>` on the index ``db``
    is open on."""
    if not text.strip():
        raise OptionError("a player search needs some text of a name")
    require(db, "games", columns=("black", "white"))
    rows = db.execute(
        "SELECT name, count(*) FROM (SELECT black AS name FROM games UNION ALL "
        "SELECT white FROM games WHERE white IS NOT black) "
        "WHERE gohash_contains(name, ?) GROUP BY name", (text,),
    ).fetchall()
    folded = text.casefold()
    rows.sort(key=lambda row: (row[0].casefold() != folded, -row[1], row[0]))
    return [PlayerMatch(name, games) for name, games in rows[:limit]]


def player_summary(
    db: sqlite3.Connection, path: str, name: str, *, opening_length: int = OPENING_MOVES,
    openings: int | None = 10, order: str = "-date", corner_length: int = CORNER_MOVES,
) -> PlayerSummary:
    """:meth:`Index.player <gohash.index.index.Index.player>` of the index at
    ``path`` (``db`` open on it)."""
    if opening_length < 1:
        raise OptionError(f"opening_length must be at least 1, not {opening_length}")
    if corner_length < 1:
        raise OptionError(f"corner_length must be at least 1, not {corner_length}")
    require_games(db, "black = ?1 OR white = ?1", (name,))
    rows = db.execute(
        f"SELECT {RECORD_COLUMNS}, g.nodes, g.positions, g.record FROM games g "
        f"JOIN files f ON f.id = g.file_id "
        f"WHERE g.black = ?1 OR g.white = ?1 ORDER BY {game_order(order)}, g.id",
        (name,),
    ).fetchall()
    records, found, corners = [], {}, {}
    for row in rows:
        record = Record.from_row(row[:-3])
        records.append(record)
        nodes, main, blob = row[-3:]
        if main <= min(opening_length, corner_length):
            continue
        # The main line is the first ``main`` nodes.
        replayed = replay_game(path, record.id, blob, record.size, nodes, main - 1)
        # Openings and corners from the empty board only; the moves of nodes
        # 1..n, in the game's own orientation (element 0).
        if replayed.boards[0].any():
            continue
        if main > opening_length:
            moves = [(0, int(replayed.colour[i]), int(replayed.point[i]))
                     for i in range(1, opening_length + 1)]
            opening = opening_moves(moves, record.size)
            if opening is not None:
                found[record.id] = opening
        played = [("b" if replayed.colour[i] == 1 else "w",
                   divmod(int(replayed.point[i]), record.size))
                  for i in range(1, main)
                  if replayed.colour[i] in (1, 2) and replayed.point[i] >= 0]
        corners[record.id] = corner_patterns(played, record.size, corner_length)
    return summarize(name, records, found, opening_length=opening_length, limit=openings,
                     corners=corners, corner_length=corner_length)
