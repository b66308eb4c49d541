"""What the index's queries answer: records, matches, continuations, games.

Scope: a game's :class:`Record` (and the columns it is read from); the
results of :meth:`gohash.index.index.Index.find` (:class:`FindResult`, its
:class:`Match` es), :meth:`gohash.index.index.Index.continuations`
(:class:`Continuations`, each :class:`Continuation`) and
:meth:`gohash.index.index.Index.game` (:class:`GameRecord`), each with the
``to_json()`` of docs/schemas.md.  Nothing here opens the index.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._deprecated import deprecated
from ..group.coords import move_json, sgf_letters
from ..group.schemes import hex_key
from ..group.symmetry import ELEMENTS, Element, Point
from ..metadata import FIELDS, STORED
from ..sgf.names import base_name
from .records import result_text

__all__ = [
    "RECORD_COLUMNS",
    "Continuation",
    "Continuations",
    "FindResult",
    "GamePosition",
    "GameRecord",
    "Match",
    "Record",
    "stone_rows",
]


@dataclass(frozen=True)
class Record:
    """One game record of the index, with what its root says.

    ``dt`` is ``DT`` as recorded, ``date`` its first date (:func:`gohash.index.records.first_date`);
    ``winner`` ``'B'``, ``'W'`` or None (:func:`winner` of ``result``);
    ``handicap`` is ``HA`` (0 without); ranks are ``BR``, ``WR`` as recorded.
    """

    id: int
    file: str
    game: int
    size: int
    black: str | None
    white: str | None
    result: str | None
    moves: int
    black_rank: str | None
    white_rank: str | None
    dt: str | None
    date: str | None
    event: str | None
    komi: float | None
    handicap: int
    winner: str | None
    fields: Mapping[str, str | None] = field(default_factory=dict, hash=False)
    """The :data:`gohash.metadata.STORED` fields, by name: as recorded, None if absent."""

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Record:
        """The record of a row of :data:`RECORD_COLUMNS`."""
        fixed = len(row) - len(STORED)
        # Positional (the row's first columns are the fields before ``fields``):
        # a page builds a record per game, and keywords cost as much again.
        return cls(*row[:fixed],  # type: ignore[misc]
                   fields=dict(zip(_STORED_NAMES, row[fixed:], strict=True)))

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """The record as JSON (docs/schemas.md, "A game record"): ``game_id``,
        ``file`` (the path as indexed; left out with ``paths=False``, as the
        server does, which never shows a local path), ``source`` (the file's
        own name), ``game``, ``size``, ``moves``; the root's fields the index holds
        (all but ``RU``), under their names in :data:`gohash.metadata.FIELDS` and
        in its order (``date`` is ``DT`` as recorded); and what the index reads
        from them, ``iso_date`` (the first date), ``winner`` and ``outcome`` (``RE`` in
        one form, :func:`~gohash.index.records.result_text`)."""
        root: dict[str, object] = {
            "PB": self.black, "PW": self.white, "BR": self.black_rank, "WR": self.white_rank,
            "DT": self.dt, "RE": self.result, "KM": self.komi, "HA": self.handicap,
            "EV": self.event,
        }
        return {
            "game_id": self.id, **({"file": self.file} if paths else {}),
            "source": base_name(self.file), "game": self.game, "size": self.size,
            "moves": self.moves,
            **{f.name: self.fields[f.name] if f.stored else root[f.prop]
               for f in FIELDS if f.stored or f.prop in root},
            "iso_date": self.date, "winner": self.winner, "outcome": result_text(self.result),
        }


_STORED_NAMES = tuple(f.name for f in STORED)


RECORD_COLUMNS = ", ".join((
    "g.id", "f.path", "g.game", "g.size", "g.black", "g.white", "g.result", "g.moves",
    "g.black_rank", "g.white_rank", "g.dt", "g.date", "g.event", "g.komi", "g.handicap",
    "g.winner", *(f"g.{f.name}" for f in STORED),
))
"""The columns of a :class:`Record` (``g`` the games table, ``f`` the files table)."""


@dataclass(frozen=True)
class Match:
    """The query position occurred in ``record`` at ``move_number``, as
    ``element`` applied to the query (``element.swap``: colours exchanged).

    ``seq`` is the position's place in the game's main line as indexed
    (``Index.game(record.id).positions[seq]``); ``to_move`` the side to move
    there and ``next_move`` the move played next (colour and point, None for a
    pass), both in the query's orientation and colours as
    :meth:`gohash.index.index.Index.continuations` gives them; ``next_move`` is None where the
    game has no next move.  ``variation`` is the line of the game it occurred
    on, ``()`` the main line (an index built with variations).
    """

    record: Record
    move_number: int
    element: Element
    seq: int
    to_move: str
    next_move: tuple[str, Point | None] | None
    variation: tuple[int, ...] = ()

    @property
    def colours_exchanged(self) -> bool:
        return self.element.swap

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """The match as JSON (docs/schemas.md, "A match"): its record's fields
        (:meth:`Record.to_json`, ``paths`` as there), then where and how it matched; ``view`` is
        ``element``'s inverse, which shows the game in the query's orientation
        and colours."""
        size = self.record.size
        return {
            **self.record.to_json(paths=paths),
            "variation": list(self.variation),
            "move_number": self.move_number,
            "seq": self.seq,
            "element": self.element.name,
            "view": self.element.inverse.name,
            "colours_exchanged": self.colours_exchanged,
            "to_move": self.to_move,
            "next_move": None if self.next_move is None else move_json(*self.next_move, size),
        }


@dataclass
class FindResult:
    """``total`` occurrences match; ``matches`` holds those from ``offset`` on, at most
    ``limit``.  ``rejected``: positions with the same key but other stones.
    ``key`` is the query's canonical key, of ``bits`` bits (its scheme's)."""

    key: int
    total: int
    matches: list[Match]
    offset: int
    limit: int | None
    rejected: int
    bits: int

    def to_json(self, key: str | None = None, *, paths: bool = True) -> dict[str, Any]:
        """The result as JSON (docs/schemas.md, "A find result"), :attr:`key` as
        its scheme writes it (:func:`~gohash.group.schemes.hex_key`); ``paths`` as in
        :meth:`Record.to_json`.  ``key`` (that text) is deprecated."""
        if key is not None:
            deprecated("to_json(key)", "to_json()", "FindResult.to_json")
        return {
            "key": hex_key(self.key, self.bits) if key is None else key,
            "total": self.total,
            "offset": self.offset,
            "limit": self.limit,
            "rejected": self.rejected,
            "matches": [m.to_json(paths=paths) for m in self.matches],
        }


@dataclass(frozen=True)
class Continuation:
    """One move played from the query position, in the query's orientation and colours.

    ``point`` is ``(row, col)`` (row 0 the bottom line), None for a pass;
    ``equivalent`` holds it and its images under the query's own symmetries
    (one point for a position without symmetry; empty for a pass).  ``count``
    games went on with it (a game that reaches the position more than once
    counts once for each move played from it), ``share`` of all that matched
    (:attr:`Continuations.total`).  ``black_wins`` and ``white_wins`` count the
    games won by the player of the query's Black or White stones (in a
    colour-exchanged hit, the game's White and Black); ``other`` the rest.
    ``first_date`` and ``last_date`` bound the dates of the games that have one.
    ``same_colours`` and ``exchanged_colours`` split ``count`` by how the
    occurrence matched the query.
    """

    point: Point | None
    colour: str
    count: int
    share: float
    black_wins: int
    white_wins: int
    other: int
    first_date: str | None
    last_date: str | None
    same_colours: int
    exchanged_colours: int
    equivalent: tuple[Point, ...]
    size: int

    def to_json(self, size: int | None = None, *, paths: bool = True) -> dict[str, Any]:
        """The continuation as JSON (docs/schemas.md, "Continuations"); ``paths``
        as every ``to_json`` takes it (no paths here); ``size`` is deprecated (the
        board's is :attr:`size`)."""
        if size is not None:
            deprecated("to_json(size)", "to_json()", "Continuation.to_json")
        return {
            **move_json(self.colour, self.point, self.size),
            "equivalent": [list(p) for p in self.equivalent],
            "count": self.count,
            "share": self.share,
            "black_wins": self.black_wins,
            "white_wins": self.white_wins,
            "other": self.other,
            "first_date": self.first_date,
            "last_date": self.last_date,
            "same_colours": self.same_colours,
            "exchanged_colours": self.exchanged_colours,
        }


@dataclass
class Continuations:
    """What was played from a position (:meth:`gohash.index.index.Index.continuations`).

    ``total`` occurrences matched (filters applied; a game once for each move
    played from the position, however often it reaches it), ``same_colours`` and
    ``exchanged_colours`` of them by how they matched; ``ended`` of them have
    no next move (the main line ends there, or a setup node comes next, which
    is no move anyone played).  ``moves`` come by count, most played first,
    then Black's before White's, then by ``row * size + col``, passes last;
    ``limit`` cuts the list, never the counts.  ``black_wins``,
    ``white_wins`` and ``other`` count the results of all ``total`` games
    in the query's colours; ``years`` counts the occurrences by the year of
    their game (those with a date).  ``symmetries`` are the elements that map
    the query onto itself (the identity first).  ``to_move`` is the side to
    move the occurrences were kept for, in the query's colours (``'b'``,
    ``'w'``), or None: either side.  ``setup`` says how occurrences that setup
    made or ended were counted (:data:`~gohash.index.view.SETUP`), and ``setup_left_out`` how
    many were left out (by ``"exclude"``: those; by ``"only"``: the others).
    """

    key: int
    size: int
    total: int
    ended: int
    same_colours: int
    exchanged_colours: int
    black_wins: int
    white_wins: int
    other: int
    moves: list[Continuation]
    years: dict[int, int]
    symmetries: tuple[Element, ...]
    bits: int
    to_move: str | None = None
    setup: str = "include"
    setup_left_out: int = 0

    def to_json(self, key: str | None = None, *, paths: bool = True) -> dict[str, Any]:
        """The continuations as JSON (docs/schemas.md, "Continuations"), :attr:`key`
        (of ``bits`` bits) as its scheme writes it
        (:func:`~gohash.group.schemes.hex_key`); ``paths`` as every ``to_json``
        takes it (no paths here); ``key`` (that text) is deprecated."""
        if key is not None:
            deprecated("to_json(key)", "to_json()", "Continuations.to_json")
        return {
            "key": hex_key(self.key, self.bits) if key is None else key,
            "size": self.size,
            "to_move": self.to_move or "any",
            "total": self.total,
            "ended": self.ended,
            "same_colours": self.same_colours,
            "exchanged_colours": self.exchanged_colours,
            "black_wins": self.black_wins,
            "white_wins": self.white_wins,
            "other": self.other,
            "years": {str(year): count for year, count in self.years.items()},
            "symmetries": [g.name for g in self.symmetries],
            "setup": self.setup,
            "setup_left_out": self.setup_left_out,
            "moves": [m.to_json() for m in self.moves],
        }


@dataclass
class GamePosition:
    """One position of a game's main line: after move ``move_number``, reached by
    ``colour`` (``'b'``/``'w'``, None for the initial position and a setup-only
    node) playing at ``point`` (``(row, col)``; None for a pass or no move);
    ``setup`` if setup stones changed the board; ``stones`` the position
    (0 empty, 1 black, 2 white)."""

    move_number: int
    colour: str | None
    point: Point | None
    setup: bool
    stones: npt.NDArray[np.int8]


@dataclass
class GameRecord:
    """A game of the index rebuilt from its stored form (:meth:`gohash.index.index.Index.game`).

    ``root`` holds the root's text properties that are present (``PB``,
    ``PW``, ``BR``, ``WR``, ``RE``, ``KM``, ``GN``, ``DT``, ``EV``, ``RU``);
    ``positions[seq]`` is the position of :attr:`Match.seq`
    ``seq``: the main line as the index holds it, the initial position first;
    ``comments[seq]`` its comment (``C``; None: none), or ``comments`` is empty
    when the record's nodes could not be matched with the positions.
    """

    record: Record
    root: dict[str, str]
    positions: list[GamePosition] = field(default_factory=list)
    comments: list[str | None] = field(default_factory=list)
    view: Element = ELEMENTS[0]
    start: int = 0
    count: int | None = None
    """Its JSON holds positions ``start`` to ``start + count`` (None: to the end)
    seen through ``view``: :meth:`page` sets them."""

    def page(self, view: Element, start: int, count: int | None) -> GameRecord:
        """The game whose JSON holds positions ``start`` to ``start + count`` (None:
        to the end) seen through ``view`` (an element: the game rotated, reflected,
        its colours exchanged)."""
        return dataclasses.replace(self, view=view, start=start, count=count)

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """The game as JSON (docs/schemas.md, "gohash serve", ``/api/game``): its
        record (:meth:`Record.to_json`, ``paths`` as there), root, the view, and
        per position of :meth:`page` its rows (:func:`stone_rows`), move number,
        last move (SGF letters; None: none, or a pass) and comment."""
        size, view = self.record.size, self.view
        end = None if self.count is None else self.start + self.count
        page = self.positions[self.start : end]
        positions, last = [], []
        for position in page:
            stones = view.image_array(position.stones)
            positions.append(stone_rows(stones.astype(np.uint8).tobytes(), size))
            point = None if position.point is None else view.map_point(position.point, size)
            last.append(None if position.colour is None or point is None
                        else sgf_letters(point, size))
        return {
            **self.record.to_json(paths=paths),
            "root": self.root,
            "view": view.name,
            "colours_exchanged": view.swap,
            "positions_total": len(self.positions),
            "final_move_number": self.positions[-1].move_number if self.positions else 0,
            "start": self.start,
            "positions": positions,
            "move_numbers": [position.move_number for position in page],
            "last": last,
            "comments": self.comments[self.start : end] if self.comments else None,
        }


_CELLS = bytes.maketrans(b"\x00\x01\x02", b".XO")


def stone_rows(cells: bytes, size: int) -> list[str]:
    """Rows of ``.XO``, the top row first, from cells (0 empty, 1 black, 2 white) in
    index order (row 0 at the bottom), as the server's JSON shows a board."""
    text = cells.translate(_CELLS).decode("ascii")
    return [text[row * size : (row + 1) * size] for row in range(size - 1, -1, -1)]
