"""The opening explorer's side of the index: filters, search results, continuations.

Scope: :class:`Filters` and the SQL condition they put on the index's
``games`` table; the results of :meth:`gohash.index.index.Index.find`,
:meth:`gohash.index.index.Index.continuations` and :meth:`gohash.index.index.Index.game`;
:class:`QueryView` and :func:`merge_continuations`, which map the next moves
the index finds back into the query's orientation and colours.
:mod:`gohash.index.store` owns the database and :mod:`gohash.index` runs every
query; nothing here opens it.  What the index reads from a record's root
(ranks, dates, winner) is :mod:`gohash.index.records`'s.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._deprecated import deprecated
from ..errors import GohashError, OptionError, SourceGoneError
from ..group.coords import move_json, sgf_letters
from ..group.schemes import hex_key
from ..group.symmetry import ELEMENTS, Element, Point
from ..metadata import FIELDS, STORED
from ..sgf.extract import game_record
from ..sgf.inputs import Source
from ..sgf.names import base_name, fs_name
from ..sgf.sources import find_inputs, read_input
from .records import first_date, rank_level, result_text

__all__ = [
    "FIELD_FILTERS",
    "FILTERS",
    "GAME_ORDERS",
    "RECORD_COLUMNS",
    "SETUP",
    "TO_MOVE",
    "Continuation",
    "ContinuationRow",
    "Continuations",
    "Filters",
    "FindResult",
    "GamePosition",
    "GameRecord",
    "Match",
    "QueryView",
    "Record",
    "SearchFilter",
    "contains",
    "game_order",
    "merge_continuations",
    "read_record",
    "source_again",
]


SETUP = ("exclude", "include", "only")
"""What continuations do with the occurrences that setup made or ended (a
handicap's stones, the empty board before them): leave them out and count
them (the default), count them with the others, or keep them alone; the
library's ``setup``, the CLI's ``--setup`` and the server's ``setup``."""

TO_MOVE = ("b", "w", "any")
"""The sides to move a search can keep occurrences for, in the query's colours:
Black, White, or either (``"any"``)."""


# -- filters -----------------------------------------------------------------------------------

_ISO_PREFIX = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
_RESULTS = {"b": "B", "w": "W", "other": "other"}

FilterKind = Literal["substring", "date", "rank", "choice", "yes_no"]
"""How a filter's value is given and checked (:class:`SearchFilter`)."""
Where = Callable[[str, Any], tuple[str, list[Any]]]
"""A filter's SQL: from the games table's alias and the filter's value, a condition
and its parameters."""


@dataclass(frozen=True)
class SearchFilter:
    """One filter of a search, as the library, the CLI, the server and the page offer it.

    ``name`` is the :class:`Filters` attribute (or the key of its ``fields``), the
    server's and the page's parameter; the CLI's option is :attr:`option`.
    ``kind``: ``substring`` (a text the value contains, case-insensitively),
    ``date`` (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``), ``rank`` (like ``5d``),
    ``choice`` (one of the values of ``choices``) or ``yes_no`` (True or False;
    ``yes`` or ``no`` as a parameter, ``--name`` or ``--no-name`` on the command
    line).  ``label`` names it on the page, ``help`` says what it keeps (the
    CLI's help, the page's tooltip), ``metavar`` names the CLI's value;
    ``choices`` are (value, label) pairs; ``placeholder`` the page's hint;
    ``where`` gives its SQL condition on the index's games table.
    """

    name: str
    kind: FilterKind
    label: str
    help: str
    where: Where
    metavar: str = "TEXT"
    choices: tuple[tuple[str, str], ...] = ()
    placeholder: str = ""

    @property
    def option(self) -> str:
        """The CLI's option: ``--`` and the name, dashes for underscores."""
        return "--" + self.name.replace("_", "-")

    def check(self, value: object) -> None:
        """Raise :class:`GohashError` unless ``value`` is one this filter takes."""
        name = self.name
        if self.kind == "yes_no":
            if not isinstance(value, bool):
                raise OptionError(f"{name} {value!r} is not True, False or None")
            return
        if not isinstance(value, str):
            raise OptionError(f"{name} {value!r} is not a text")
        if self.kind == "substring" and not value.strip():
            raise OptionError(f"{name} {value!r} is empty: give a text or leave it out")
        if self.kind == "date" and not _is_date(value):
            raise OptionError(f"{name} {value!r} is not a date YYYY, YYYY-MM or YYYY-MM-DD")
        if self.kind == "rank" and rank_level(value) is None:
            raise OptionError(f"{name} {value!r} is not a rank like '3k', '5d' or '9p'")
        if self.kind == "choice" and value.casefold() not in {
            v.casefold() for v, _ in self.choices
        }:
            raise OptionError(f"{name} {value!r} is not one of "
                              f"{', '.join(repr(v) for v, _ in self.choices)}")

    def parse(self, text: str) -> str | bool:
        """The value of the parameter ``text`` (a ``yes_no`` filter's ``yes`` or ``no``)."""
        if self.kind != "yes_no":
            return text
        if text not in ("yes", "no"):
            raise OptionError(f"{self.name} must be one of yes, no, not {text[:40]!r}")
        return text == "yes"

    def to_json(self) -> dict[str, Any]:
        """The filter as the page builds its form from it (docs/schemas.md, "gohash serve")."""
        return {
            "name": self.name, "option": self.option, "kind": self.kind, "label": self.label,
            "help": self.help, "placeholder": self.placeholder,
            "choices": [{"value": value, "label": label} for value, label in self.choices],
        }


def _filter(kind: FilterKind, label: str, help: str, where: Where, **more: Any) -> Any:
    """A field of :class:`Filters` that is a filter: its :class:`SearchFilter`, named
    after the field, is in :data:`FILTERS`."""
    return field(default=None, metadata={"filter": dict(kind=kind, label=label, help=help,
                                                        where=where, **more)})


def _contains(*columns: str) -> Where:
    """A substring of any of ``columns``, by the SQL function the index registers."""
    def where(g: str, text: Any) -> tuple[str, list[Any]]:
        return (" OR ".join(f"gohash_contains({g}.{c}, ?)" for c in columns),
                [text] * len(columns))
    return where


# Dates compare on the precision both have: each the other's prefix.
def _date_from(g: str, date: Any) -> tuple[str, list[Any]]:
    return f"substr({g}.date, 1, length(?)) >= substr(?, 1, length({g}.date))", [date, date]


def _date_to(g: str, date: Any) -> tuple[str, list[Any]]:
    return f"substr({g}.date, 1, length(?)) <= substr(?, 1, length({g}.date))", [date, date]


def _result(g: str, result: Any) -> tuple[str, list[Any]]:
    wanted = _RESULTS[result.casefold()]
    return (f"{g}.winner IS NULL", []) if wanted == "other" else (f"{g}.winner = ?", [wanted])


def _min_rank(g: str, rank: Any) -> tuple[str, list[Any]]:
    level = rank_level(rank)
    return (f"coalesce({g}.black_level >= ?, 1) AND coalesce({g}.white_level >= ?, 1)",
            [level, level])


def _handicap(g: str, handicap: Any) -> tuple[str, list[Any]]:
    return f"{g}.handicap {'>=' if handicap else '<'} 2", []


@dataclass(frozen=True)
class Filters:
    """Which games a search counts; every field left None lets every game through.

    Each field but ``fields`` is a filter of :data:`FILTERS` (its help says what
    it keeps, and it is checked as its kind says):

    - ``player``: a substring of the Black or the White player's name,
      compared case-insensitively (Unicode case folding).
    - ``date_from``, ``date_to``: ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``, both
      inclusive.  A game's date is its ``DT``'s first date
      (:func:`gohash.index.records.first_date`), as precise as recorded; the two are
      compared on the precision they share (each stands for its days, and
      they must overlap), so ``2017`` lies within ``2017-03`` to ``2017-06``,
      and ``2017-05-02`` within ``2017`` to ``2017``.  Games without a date are
      left out when either is given.
    - ``result``: ``'B'`` (Black won), ``'W'`` (White won) or ``'other'``
      (draw, void, unknown or no ``RE``), as the record says: the game's
      colours, not the query's.
    - ``min_rank``: like ``'5d'``, ``'3k'``, ``'9p'``
      (:func:`gohash.index.records.rank_level` orders them).  A game is left out
      when a player's recorded rank is below it; a player with no rank
      recorded (or one gohash cannot read) does not leave the game out.
    - ``event``: a substring of ``EV``, case-insensitive; games without one
      are left out.
    - ``handicap``: True for handicap games only (``HA`` of 2 or more), False for
      even games only.
    """

    player: str | None = _filter(
        "substring", "Player", "Black or White's name contains NAME (case-insensitive)",
        _contains("black", "white"), metavar="NAME")
    date_from: str | None = _filter(
        "date", "From", "played on or after DATE (YYYY, YYYY-MM or YYYY-MM-DD)", _date_from,
        metavar="DATE", placeholder="YYYY-MM-DD")
    date_to: str | None = _filter(
        "date", "To", "played on or before DATE (YYYY, YYYY-MM or YYYY-MM-DD)", _date_to,
        metavar="DATE", placeholder="YYYY-MM-DD")
    result: str | None = _filter(
        "choice", "Result", "won by Black, by White, or neither (draw, void, unknown)", _result,
        choices=(("B", "Black won"), ("W", "White won"), ("other", "other")))
    min_rank: str | None = _filter(
        "rank", "Min. rank", "no player with a recorded rank below RANK (like 3k, 5d, 9p)",
        _min_rank, metavar="RANK", placeholder="5d")
    event: str | None = _filter(
        "substring", "Event", "the event (EV) contains TEXT", _contains("event"))
    handicap: bool | None = _filter(
        "yes_no", "Handicap", "handicap games only (HA 2 or more), or even games only",
        _handicap, choices=(("yes", "handicap"), ("no", "even")))
    fields: Mapping[str, str] = field(default_factory=dict, hash=False)
    """The :data:`gohash.metadata.STORED` fields' filters, by filter name: a
    substring of the field, case-insensitive; games without one are left out."""

    def __post_init__(self) -> None:
        for name in self.fields:
            if name not in FIELD_FILTERS:
                raise OptionError(f"no filter {name!r}: the fields' filters are "
                                  f"{', '.join(FIELD_FILTERS) or 'none'}")
        for spec in FILTERS:
            value = self.value(spec.name)
            if value is not None:
                spec.check(value)

    def value(self, name: str) -> object:
        """The value of the filter ``name`` of :data:`FILTERS`, None if not set."""
        if name in FIELD_FILTERS:
            return self.fields.get(name)
        return getattr(self, name)

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> Filters | None:
        """The filters of ``values`` (by name of :data:`FILTERS`; None values are
        not set), None if none is set."""
        given = {name: value for name, value in values.items() if value is not None}
        if not given:
            return None
        fields = {name: given.pop(name) for name in list(given) if name in FIELD_FILTERS}
        return cls(**given, fields=fields)  # type: ignore[arg-type]

    def sql(self, games: str = "g") -> tuple[str, list[Any]]:
        """The condition on the index's games table (alias ``games``) and its
        parameters; ``"1"`` if no filter is set.  Substrings are matched by the
        SQL function ``gohash_contains`` that the index registers."""
        terms: list[str] = []
        params: list[Any] = []
        for spec in FILTERS:
            value = self.value(spec.name)
            if value is not None:
                term, more = spec.where(games, value)
                terms.append(term)
                params += more
        return (" AND ".join(f"({t})" for t in terms) or "1"), params


FIELD_FILTERS = {f.filter.name: f for f in STORED if f.filter is not None}
"""The stored fields that have a filter, by filter name (all substring filters)."""

FILTERS: tuple[SearchFilter, ...] = (
    *(SearchFilter(f.name, **f.metadata["filter"])
      for f in dataclasses.fields(Filters) if "filter" in f.metadata),
    *(SearchFilter(name, f.filter.kind, f.filter.label,
                   f"{f.filter.help} ({f.prop}) contains TEXT", _contains(f.name))
      for name, f in FIELD_FILTERS.items() if f.filter is not None),
)
"""Every filter, in the order the CLI's help and the page's form list them: those of
:class:`Filters`' fields, then those of the :data:`gohash.metadata.STORED` fields.
The CLI's options, the server's parameters and the page's form (from ``/api/info``)
derive from it."""


def _is_date(text: str) -> bool:
    if not _ISO_PREFIX.match(text) or first_date(text) != text:
        return False
    try:
        return len(text) < 10 or bool(datetime.date.fromisoformat(text))
    except ValueError:  # 2017-02-30
        return False


_STRONGER = "max(coalesce({g}.black_level, -1), coalesce({g}.white_level, -1))"
GAME_ORDERS = {
    "date": ("{g}.date IS NULL", "{g}.date"),
    "rank": ("{g}.black_level IS NULL AND {g}.white_level IS NULL", _STRONGER),
    "result": ("{g}.winner IS NULL", "{g}.winner"),
}
"""The orders a list of games can come in, by name: a game's date (its first
date, as precise as recorded), its stronger player's rank
(:func:`gohash.index.records.rank_level`), and its winner (Black before White);
games without one come last either way."""


def game_order(order: str, games: str = "g") -> str:
    """The SQL terms that sort games (alias ``games``) by ``order``: a name of
    :data:`GAME_ORDERS`, ascending, or with ``-`` before it descending."""
    name = order.removeprefix("-")
    if name not in GAME_ORDERS:
        raise OptionError(f"order {order!r} is not one of "
                          f"{', '.join(n for n in GAME_ORDERS)} (or one with '-' before it)")
    missing, value = (term.format(g=games) for term in GAME_ORDERS[name])
    return f"{missing}, {value}{' DESC' if order.startswith('-') else ''}"


def contains(text: str | None, part: str) -> bool:
    """``part`` within ``text``, case-insensitively (the SQL ``gohash_contains``)."""
    return text is not None and part.casefold() in text.casefold()


# -- results -------------------------------------------------------------------------------------


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
        return cls(**dict(zip(_RECORD_NAMES[:fixed], row[:fixed], strict=True)),
                   fields={f.name: v for f, v in zip(STORED, row[fixed:], strict=True)})

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


_RECORD_NAMES = tuple(f.name for f in dataclasses.fields(Record))


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
    made or ended were counted (:data:`SETUP`), and ``setup_left_out`` how
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
    ``positions[seq]`` is the position of :attr:`gohash.index.queries.Match.seq`
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


# -- continuations -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContinuationRow:
    """Occurrences grouped as the index finds them: by next move as stored
    (``colour`` as recorded, 0 for none; ``point`` in the frame's orientation,
    -1 a pass), whether the occurrence's frame element exchanges colours
    (``swapped``), the side to move as recorded (1, 2) and the year of the
    game; with their games' results and dates."""

    colour: int
    point: int | None
    swapped: bool
    to_move: int
    year: int | None
    count: int
    black_wins: int
    white_wins: int
    first_date: str | None
    last_date: str | None


class QueryView:
    """How the occurrences of a query's frame look from the query.

    ``onto`` lists every element mapping the query onto its frame, lowest
    first (:func:`gohash.pipeline.frames.frame_and_elements`).  An occurrence matches
    the query through ``h = e^-1 . t . g`` for each symmetry ``t`` of the frame
    (module docstring); the views allowed are those of the ``h`` that keep the
    colours unless ``colour_swap``, and that give the side to move ``to_move``
    (``'b'``, ``'w'``; ``'any'`` or None: either).  Of the views allowed, those that keep
    the colours are taken if there are any: so a position that is its own
    colour-exchanged image matches with the same colours, unless only the
    exchanged view gives the side to move asked for.  An occurrence is known
    here by whether its frame element swaps (``swapped``) and its side to move
    as recorded (1, 2): the views depend on nothing else.
    """

    def __init__(
        self, onto: Sequence[Element], size: int, *, colour_swap: bool = True,
        to_move: str | None = None,
    ) -> None:
        if to_move not in (None, *TO_MOVE):
            raise OptionError(f"to_move {to_move!r} is not 'b', 'w', 'any' or None")
        self.element = onto[0]
        self.size = size
        self.colour_swap = colour_swap
        self.to_move = None if to_move == "any" else to_move
        self.frame_symmetries = [t.compose(self.element.inverse) for t in onto]
        self.symmetries = tuple(self.element.inverse.compose(t) for t in onto)
        self._moves: dict[tuple[int, int, bool, int], tuple[str, Point | None, tuple[Point, ...]]]
        self._moves = {}

    def views(self, swapped: bool, to_move: int) -> list[Element]:
        """The frame symmetries ``t`` of the views taken of an occurrence (none: it
        does not match)."""
        g = self.element
        allowed = []
        for t in self.frame_symmetries:
            exchanged = swapped != (t.swap != g.swap)
            seen = to_move if not exchanged else 3 - to_move
            if (self.colour_swap or not exchanged) and (
                self.to_move is None or "bw"[seen - 1] == self.to_move
            ):
                allowed.append(t)
        same = [t for t in allowed if swapped == (t.swap != g.swap)]
        return same or allowed

    def matches(self, swapped: bool, to_move: int) -> bool:
        return bool(self.views(swapped, to_move))

    def exchanged(self, swapped: bool, to_move: int) -> bool:
        """Whether an occurrence that matches does so with colours exchanged."""
        t = self.views(swapped, to_move)[0]
        return swapped != (t.swap != self.element.swap)

    def elements(self, stored: Element, to_move: int) -> list[Element]:
        """The elements mapping the query onto an occurrence (its frame element
        ``stored``) in the views taken."""
        return [stored.inverse.compose(t).compose(self.element)
                for t in self.views(stored.swap, to_move)]

    def condition(self) -> tuple[str, list[int]]:
        """An SQL condition on occurrences ``o`` that keeps those that match, with
        its parameters; ``"1"`` if all do."""
        kinds = [(int(sw), tm) for sw in (False, True) for tm in (1, 2) if self.matches(sw, tm)]
        if len(kinds) == 4:
            return "1", []
        if not kinds:
            return "0", []
        terms = " OR ".join("((o.element >= 8) = ? AND o.to_move = ?)" for _ in kinds)
        return f"({terms})", [value for kind in kinds for value in kind]

    def match(
        self, record: Record, move_number: int, seq: int, stored: Element, to_move: int,
        next_colour: int, next_point: int | None,
    ) -> Match:
        """The :class:`Match` of an occurrence that matches: its frame element
        ``stored``, side to move and next move as the index stores them."""
        exchanged = self.exchanged(stored.swap, to_move)
        next_move = None
        if next_colour and next_point is not None:
            colour, point, _ = self.move(next_colour, next_point, stored.swap, to_move)
            next_move = (colour, point)
        return Match(
            record, move_number, min(self.elements(stored, to_move), key=lambda h: h.index),
            seq, "bw"[(to_move == 2) != exchanged], next_move,
        )

    def move(
        self, colour: int, point: int, swapped: bool, to_move: int
    ) -> tuple[str, Point | None, tuple[Point, ...]]:
        """A stored next move (colour as recorded, 1 or 2; point in the frame's
        orientation, -1 a pass) of a matching occurrence seen from the query:
        its colour, its representative point (None: pass) and the points
        equivalent to it, through ``g^-1 . t^-1`` for the views' ``t``."""
        where = (colour, point, swapped, to_move)
        if where not in self._moves:
            maps = [self.element.inverse.compose(t.inverse) for t in self.views(swapped, to_move)]
            recorded = "b" if colour == 1 else "w"
            # The frame holds the move with its colour exchanged if the occurrence's element swaps.
            stored = recorded if not swapped else ("w" if recorded == "b" else "b")
            colours = {m.map_colour(stored) for m in maps}
            assert len(colours) == 1, "the views agree on colour exchange"
            if point < 0:
                self._moves[where] = (colours.pop(), None, ())
            else:
                at = divmod(point, self.size)
                points = sorted({m.map_point(at, self.size) for m in maps})
                self._moves[where] = (colours.pop(), points[-1], tuple(points))
        return self._moves[where]


def merge_continuations(
    rows: Iterable[ContinuationRow], *, key: int, bits: int, view: QueryView,
    limit: int | None,
) -> Continuations:
    """The continuations of a query (of canonical ``key``, of ``bits`` bits) from
    the index's grouped occurrences (those that match), seen through ``view``."""
    result = Continuations(key, view.size, 0, 0, 0, 0, 0, 0, 0, [], {}, view.symmetries,
                           bits, view.to_move)
    moves: dict[tuple[str, Point | None], _Move] = {}
    for row in rows:
        exchanged = view.exchanged(row.swapped, row.to_move)
        blacks, whites = (row.white_wins, row.black_wins) if exchanged else (
            row.black_wins, row.white_wins)
        result.total += row.count
        result.black_wins += blacks
        result.white_wins += whites
        result.other += row.count - blacks - whites
        if exchanged:
            result.exchanged_colours += row.count
        else:
            result.same_colours += row.count
        if row.year is not None:
            result.years[row.year] = result.years.get(row.year, 0) + row.count
        if row.colour == 0 or row.point is None:
            result.ended += row.count
            continue
        colour, point, equivalent = view.move(row.colour, row.point, row.swapped, row.to_move)
        move = moves.setdefault((colour, point), _Move(colour, point, equivalent))
        move.add(row, blacks, whites, exchanged)
    ordered = sorted(moves.values(), key=lambda m: (
        -m.count, m.colour != "b", m.point is None, m.point or (0, 0)
    ))
    result.moves = [m.result(result.total, view.size) for m in ordered[:limit]]
    result.years = dict(sorted(result.years.items()))
    return result


class _Move:
    """A continuation being summed up."""

    def __init__(self, colour: str, point: Point | None, equivalent: tuple[Point, ...]) -> None:
        self.colour, self.point, self.equivalent = colour, point, equivalent
        self.count = self.black_wins = self.white_wins = self.same = self.exchanged = 0
        self.first: str | None = None
        self.last: str | None = None

    def add(self, row: ContinuationRow, blacks: int, whites: int, exchanged: bool) -> None:
        self.count += row.count
        self.black_wins += blacks
        self.white_wins += whites
        if exchanged:
            self.exchanged += row.count
        else:
            self.same += row.count
        if row.first_date is not None and (self.first is None or row.first_date < self.first):
            self.first = row.first_date
        if row.last_date is not None and (self.last is None or row.last_date > self.last):
            self.last = row.last_date

    def result(self, total: int, size: int) -> Continuation:
        return Continuation(
            self.point, self.colour, self.count, self.count / total, self.black_wins,
            self.white_wins, self.count - self.black_wins - self.white_wins, self.first,
            self.last, self.same, self.exchanged, self.equivalent, size,
        )


# -- games read again from their files ---------------------------------------------------------


def read_record(
    record: Record, *, file_sha: str, folders: Sequence[str] = ()
) -> str:
    """Game ``record`` as an SGF record of its own
    (:func:`gohash.sgf.extract.game_record`), read again from its file, which must
    have the SHA-256 ``file_sha``; relative paths are tried as
    :func:`source_again` tries them.  Raises :class:`~gohash.errors.SourceGoneError` if the file is
    gone, :class:`GohashError` if it changed."""
    source = source_again(record.file, file_sha, folders)
    return game_record(source.data, record.file, record.game)


def source_candidates(name: str, folders: Sequence[str]) -> list[str]:
    """Where the source an index stored as ``name`` may be: the name as given,
    from each of ``folders`` if it is relative, and each with the bytes of the
    name that are not UTF-8 restored (a stored name holds them as escapes)."""
    candidates = [name]
    if not os.path.isabs(name) and name != "-":
        candidates += [os.path.join(folder, name) for folder in folders]
    return candidates + [fs for candidate in candidates
                         if (fs := fs_name(candidate)) != candidate]


def source_files(candidate: str) -> list[str]:
    """The files that may hold the source ``candidate``: the part before each colon
    and the whole (an archive member is named ``archive:member``)."""
    return [candidate[:i] for i in range(1, len(candidate) + 1)
            if candidate[i:i + 1] in (":", "")]


def source_again(name: str, sha256: str, folders: Sequence[str]) -> Source:
    """The SGF source ``name`` (a file, or ``archive:member``) read again and
    checked against its SHA-256; reported under ``name``.  A relative path is
    tried from the current folder, then from each of ``folders``
    (:func:`source_candidates`)."""
    for candidate in source_candidates(name, folders):
        containers = [path for path in source_files(candidate) if os.path.isfile(path)]
        for container in containers:
            for inp in find_inputs([container]):
                for source in read_input(inp):
                    if isinstance(source, Source) and source.name == candidate:
                        if hashlib.sha256(source.data).hexdigest() != sha256:
                            raise GohashError(
                                "changed since it was indexed (its SHA-256 differs): "
                                "rebuild the index", file=name,
                            )
                        return Source(name, source.data, source.notes)
    raise SourceGoneError(
        "cannot read it again: not found (paths are as given to the build: relative "
        "to the folder it ran in, or to the index's)", file=name,
    )
