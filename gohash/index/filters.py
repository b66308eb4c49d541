"""Which games a search counts: the filters, and the orders games come in.

Scope: :class:`Filters` and the SQL condition they put on the index's
``games`` table, every filter as the library, the CLI, the server and the page
offer it (:data:`FILTERS`), and the orders a list of games can come in
(:data:`GAME_ORDERS`).  What the index reads from a record's root (ranks,
dates, winner) is :mod:`gohash.index.records`'s.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from ..errors import OptionError
from ..metadata import STORED
from .records import first_date, rank_level

if TYPE_CHECKING:  # the filters only read a store's columns
    from ..pattern.store import GameStore

__all__ = [
    "FIELD_FILTERS",
    "FILTERS",
    "GAME_ORDERS",
    "Filters",
    "SearchFilter",
    "contains",
    "game_order",
]


_ISO_PREFIX = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
_RESULTS = {"b": "B", "w": "W", "other": "other"}

FilterKind = Literal["substring", "date", "rank", "choice", "yes_no"]
"""How a filter's value is given and checked (:class:`SearchFilter`)."""
Where = Callable[[str, Any], tuple[str, list[Any]]]
"""A filter's SQL: from the games table's alias and the filter's value, a condition
and its parameters."""
Keeps = Callable[["GameStore", Any], "npt.NDArray[np.bool_]"]
"""A filter on a pattern store's columns: from the store and the filter's value,
whether it keeps each game of the store, as its SQL would."""


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
    ``where`` gives its SQL condition on the index's games table, ``keeps`` the
    same condition on the columns of a pattern search's store
    (:class:`~gohash.pattern.store.GameStore`), which pattern search asks
    instead of reading the games table.
    """

    name: str
    kind: FilterKind
    label: str
    help: str
    where: Where
    keeps: Keeps
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


def _filter(kind: FilterKind, label: str, help: str, where: Where, keeps: Keeps,
            **more: Any) -> Any:
    """A field of :class:`Filters` that is a filter: its :class:`SearchFilter`, named
    after the field, is in :data:`FILTERS`."""
    return field(default=None, metadata={"filter": dict(kind=kind, label=label, help=help,
                                                        where=where, keeps=keeps, **more)})


def _contains(*columns: str) -> Where:
    """A substring of any of ``columns``, by the SQL function the index registers."""
    def where(g: str, text: Any) -> tuple[str, list[Any]]:
        return (" OR ".join(f"gohash_contains({g}.{c}, ?)" for c in columns),
                [text] * len(columns))
    return where


def _contains_keeps(*columns: str) -> Keeps:
    """:func:`_contains` on a store's text columns."""
    def keeps(store: GameStore, text: Any) -> npt.NDArray[np.bool_]:
        kept = np.zeros(len(store), dtype=np.bool_)
        for c in columns:
            kept |= store.texts[c].where(lambda value: contains(value, text))
        return kept
    return keeps


# Dates compare on the precision both have: each the other's prefix.
def _date_from(g: str, date: Any) -> tuple[str, list[Any]]:
    return f"substr({g}.date, 1, length(?)) >= substr(?, 1, length({g}.date))", [date, date]


def _date_to(g: str, date: Any) -> tuple[str, list[Any]]:
    return f"substr({g}.date, 1, length(?)) <= substr(?, 1, length({g}.date))", [date, date]


def _date_keeps(within: Callable[[str, str], bool]) -> Keeps:
    """A date filter on a store: ``within(game's date, value)``, the SQL's test."""
    def keeps(store: GameStore, date: Any) -> npt.NDArray[np.bool_]:
        return store.texts["date"].where(lambda d: within(d, date))
    return keeps


def _result(g: str, result: Any) -> tuple[str, list[Any]]:
    wanted = _RESULTS[result.casefold()]
    return (f"{g}.winner IS NULL", []) if wanted == "other" else (f"{g}.winner = ?", [wanted])


def _result_keeps(store: GameStore, result: Any) -> npt.NDArray[np.bool_]:
    # A store's winners: 1 Black, 2 White, 0 for the games table's NULL.
    wanted = {"B": 1, "W": 2, "other": 0}[_RESULTS[result.casefold()]]
    return np.asarray(store.winners == wanted)


def _min_rank(g: str, rank: Any) -> tuple[str, list[Any]]:
    level = rank_level(rank)
    return (f"coalesce({g}.black_level >= ?, 1) AND coalesce({g}.white_level >= ?, 1)",
            [level, level])


def _min_rank_keeps(store: GameStore, rank: Any) -> npt.NDArray[np.bool_]:
    # The lower recorded level, NO_LEVEL (above all) where neither is recorded.
    level = rank_level(rank)
    assert level is not None  # checked by SearchFilter.check
    return np.asarray(store.lowest_levels >= level)


def _handicap(g: str, handicap: Any) -> tuple[str, list[Any]]:
    return f"{g}.handicap {'>=' if handicap else '<'} 2", []


def _handicap_keeps(store: GameStore, handicap: Any) -> npt.NDArray[np.bool_]:
    return np.asarray((store.handicaps >= 2) == handicap)


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
        _contains("black", "white"), _contains_keeps("black", "white"), metavar="NAME")
    date_from: str | None = _filter(
        "date", "From", "played on or after DATE (YYYY, YYYY-MM or YYYY-MM-DD)", _date_from,
        _date_keeps(lambda d, date: d[:len(date)] >= date[:len(d)]), metavar="DATE",
        placeholder="YYYY-MM-DD")
    date_to: str | None = _filter(
        "date", "To", "played on or before DATE (YYYY, YYYY-MM or YYYY-MM-DD)", _date_to,
        _date_keeps(lambda d, date: d[:len(date)] <= date[:len(d)]), metavar="DATE",
        placeholder="YYYY-MM-DD")
    result: str | None = _filter(
        "choice", "Result", "won by Black, by White, or neither (draw, void, unknown)", _result,
        _result_keeps, choices=(("B", "Black won"), ("W", "White won"), ("other", "other")))
    min_rank: str | None = _filter(
        "rank", "Min. rank", "no player with a recorded rank below RANK (like 3k, 5d, 9p)",
        _min_rank, _min_rank_keeps, metavar="RANK", placeholder="5d")
    event: str | None = _filter(
        "substring", "Event", "the event (EV) contains TEXT", _contains("event"),
        _contains_keeps("event"))
    handicap: bool | None = _filter(
        "yes_no", "Handicap", "handicap games only (HA 2 or more), or even games only",
        _handicap, _handicap_keeps, choices=(("yes", "handicap"), ("no", "even")))
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

    def keeps(self, store: GameStore) -> npt.NDArray[np.bool_]:
        """Whether the filters keep each game of a pattern search's store, from
        its columns: the games :meth:`sql` keeps, without the games table."""
        kept = np.ones(len(store), dtype=np.bool_)
        for spec in FILTERS:
            value = self.value(spec.name)
            if value is not None:
                kept &= spec.keeps(store, value)
        return kept


FIELD_FILTERS = {f.filter.name: f for f in STORED if f.filter is not None}
"""The stored fields that have a filter, by filter name (all substring filters)."""

FILTERS: tuple[SearchFilter, ...] = (
    *(SearchFilter(f.name, **f.metadata["filter"])
      for f in dataclasses.fields(Filters) if "filter" in f.metadata),
    *(SearchFilter(name, f.filter.kind, f.filter.label,
                   f"{f.filter.help} ({f.prop}) contains TEXT", _contains(f.name),
                   _contains_keeps(f.name))
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
