"""The one table of game metadata: what gohash reads from a game's root and where it goes.

:data:`FIELDS` names, for each root property, its name in the tools' JSON and
the canon dataset's ``games`` table, its Parquet type, and whether the index
stores it as recorded (a column of the same name), with the filter that
searches it.  The readers (both paths) and the Parquet games table derive
from every field; for the stored fields, the index's schema, inserts and
selects, the JSON of the CLI and the server, the CLI's options, the server's
parameters and the page's filters do.  (The index's other columns and their
filters, derived values such as rank levels and winners, have code of their
own.)  No I/O, no imports beyond the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["FIELDS", "STORED", "TEXT_PROPERTIES", "Field", "Filter"]


@dataclass(frozen=True)
class Filter:
    """A search filter on a field: ``name`` (the library's, the server's
    parameter; the CLI's ``--name``), ``kind`` (``"substring"``, the one kind
    so far: the value contains the text, case-insensitively; games without one
    are left out), the page's ``label`` and the help text of the CLI and the page."""

    name: str
    kind: Literal["substring"]
    label: str
    help: str


@dataclass(frozen=True)
class Field:
    """One root property of a game.

    ``prop`` the SGF property; ``name`` its name in JSON and the Parquet games
    table; ``parquet`` the Parquet type; ``meaning`` its documentation there;
    ``text`` whether the readers keep its first value as text (``HA`` they read
    as a number); ``stored`` whether the index stores it as recorded, in a
    TEXT column ``name`` of its games table, and :class:`gohash.index.results.Record`
    carries it in ``fields`` (the index's other columns have their own code:
    ranks as levels, dates, winners); ``filter`` the filter that searches it
    (stored fields only).
    """

    prop: str
    name: str
    parquet: str
    meaning: str
    text: bool = True
    stored: bool = False
    filter: Filter | None = None


FIELDS: tuple[Field, ...] = (
    Field("PB", "black", "string", "PB, null if absent"),
    Field("PW", "white", "string", "PW"),
    Field("BR", "black_rank", "string", "BR"),
    Field("WR", "white_rank", "string", "WR"),
    Field("DT", "date", "string", "DT"),
    Field("RE", "result", "string", "RE"),
    Field("KM", "komi", "float64", "KM as a number; null if absent or not a number"),
    Field("HA", "handicap", "int32", "HA (0 without HA)", text=False),
    Field("RU", "rules", "string", "RU"),
    Field("EV", "event", "string", "EV"),
    Field("GN", "name", "string", "GN", stored=True,
          filter=Filter("name", "substring", "Game name", "the game's name")),
    Field("PC", "place", "string", "PC", stored=True,
          filter=Filter("place", "substring", "Place", "the place")),
)
"""Every field, in the order of the Parquet games table's columns."""

TEXT_PROPERTIES: tuple[str, ...] = tuple(f.prop for f in FIELDS if f.text)
"""The root properties the readers keep as text: the first value of the first occurrence."""

STORED: tuple[Field, ...] = tuple(f for f in FIELDS if f.stored)
"""The fields the index stores as recorded, each in a column of its name."""
