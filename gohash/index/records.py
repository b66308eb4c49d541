"""What an index stores of a file and its games, as plain data.

Scope: :class:`FileFrames` and :class:`GameFrames` (per game its root text,
its stored form (:mod:`gohash.index.games`), its SHA-256 and its error; per
position its posting key), :class:`SourceError`, the game digest, and what
the opening explorer reads from a root (:func:`rank_level`,
:func:`first_date`, :func:`winner`, :func:`result_text`, :func:`komi_value`).
:mod:`gohash.index.build` makes them; nothing here knows SQL but the form
keys are stored in (:func:`gohash.index.games.posting_keys`).  :data:`PARSE_VERSION` versions
the replay.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GohashError
from ..metadata import STORED
from ..sgf.inputs import Input, Skipped, Source
from .games import EncodedGame

__all__ = [
    "PARSE_VERSION",
    "RANK_FORMS",
    "FileFrames",
    "GameFrames",
    "SourceError",
    "SourceNote",
    "Task",
    "first_date",
    "game_digest",
    "komi_value",
    "rank_level",
    "result_text",
    "winner",
]

PARSE_VERSION = 2
"""The version of what a replay stores for a file: raise it with every change to
reading or replaying records that changes a file's games, positions or errors
(a fixed reading of a property, a new rule), so that ``gohash index build``
re-reads the files an earlier gohash indexed.  2: rank levels of more forms
(:data:`RANK_FORMS`), files that start with their root's ``;`` read."""

@dataclass
class GameFrames:
    """One game: its root text, its stored form (``stored``: nodes, ever
    bitmaps), the SHA-256 of its root text fields and stored form
    (:func:`game_digest`), its highest move number on the main line, why it
    was cut short (``error``), and its positions: rows ``start`` to ``end`` of
    its file's ``keys``, the first ``main`` its main line, each other variation
    a run of rows whose first (from ``start``), parent and path are in
    ``lines``; and what the explorer reads from its root: ``BR``, ``WR`` as
    recorded and as levels (:func:`rank_level`), ``DT`` and its first date,
    ``EV``, ``KM``, ``HA`` and the winner named by ``RE``.
    """

    game: int
    size: int
    black: str | None
    white: str | None
    result: str | None
    sha256: str
    moves: int
    start: int
    end: int
    main: int
    lines: list[tuple[int, int, str]] = field(default_factory=list)
    error: str | None = None
    black_rank: str | None = None
    white_rank: str | None = None
    dt: str | None = None
    event: str | None = None
    komi: str | None = None
    handicap: int = 0
    stored: dict[str, str | None] = field(default_factory=dict)
    record: EncodedGame | None = None

    def explorer_columns(self) -> tuple[object, ...]:
        """black_rank, white_rank, black_level, white_level, dt, date, event, komi,
        handicap, winner, then the :data:`gohash.metadata.STORED` fields: the games
        table's explorer columns."""
        return (
            self.black_rank, self.white_rank, rank_level(self.black_rank),
            rank_level(self.white_rank), self.dt, first_date(self.dt), self.event,
            komi_value(self.komi), self.handicap, winner(self.result),
            *(self.stored.get(f.name) for f in STORED),
        )


@dataclass
class SourceError:
    """A located error as plain data (exceptions with keyword arguments do not pickle)."""

    game: int | None
    move: int | None
    message: str


@dataclass
class SourceNote:
    """An input not read, a note (:class:`gohash.sgf.inputs.Skipped`: a pipe found in a folder)."""

    message: str


def _empty(dtype: type[np.generic]) -> Callable[[], npt.NDArray[Any]]:
    return lambda: np.zeros(0, dtype=dtype)


@dataclass
class FileFrames:
    """The games of one SGF source; only ``path`` and ``sha256`` if ``unchanged``.

    ``keys``: the posting key (:func:`~gohash.index.games.posting_keys`) of every position of all
    its games, in order (each game's nodes, :mod:`gohash.index.games`).

    A file of more games than one batch of
    :func:`gohash.index.build.stream_frames` comes in parts, ``part`` 0, 1, ...:
    each holds whole games, its rows and games counted from its own start;
    ``more`` says another part follows.
    """

    path: str
    sha256: str
    unchanged: bool = False
    part: int = 0
    more: bool = False
    games: list[GameFrames] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    keys: npt.NDArray[np.int64] = field(default_factory=_empty(np.int64))

    def add_keys(self, keys: npt.NDArray[np.int64]) -> None:
        """Rows after those it holds: a file's games may span positions() batches."""
        self.keys = np.concatenate([self.keys, keys]) if len(self.keys) else keys


Task = tuple[Input | Source | GohashError | Skipped, dict[str, str]]
"""An input (or a source, error or note read beforehand) and the SHA-256 of its files
already indexed, by path.  An input of kind ``canon-parquet`` is one part of a
canon dataset, read back (:func:`gohash.index.parquet.part_frames`), not replayed."""


RANK_FORMS: tuple[tuple[str, str, int | None], ...] = (
    ("30k", "kyu: a number and k (KGS, Tygem, IGS, OGS)", 0),
    ("1k", "the strongest kyu", 29),
    ("5 kyu", "kyu written out", 25),
    ("5級", "kyu in Japanese (級)", 25),
    ("18级", "kyu in Chinese (级, Fox)", 12),
    ("5급", "kyu in Korean (급)", 25),
    ("1d", "amateur dan: a number and d", 30),
    ("9D", "dan, upper case (Tygem)", 38),
    ("5 dan", "dan written out", 34),
    ("9 Dan", "dan written out, capitalised", 38),
    ("9段", "段, read as amateur dan: records do not say whether it is a professional's "
            "(Fox amateur and AI accounts)", 38),
    ("9단", "단 (Korean), read as amateur dan, as 段", 38),
    ("九段", "段 with a Chinese numeral", 38),
    ("初段", "初段, first dan", 30),
    ("1p", "professional dan: a number and p", 101),
    ("9P", "professional, upper case (Tygem)", 109),
    ("9 pro", "professional written out", 109),
    ("9 Dan Professional", "professional dan written out", 109),
    ("P9", "P before the number", 109),
    ("P9段", "P before a 段 rank (Fox's professionals)", 109),
    ("P9단", "P before a 단 rank", 109),
    ("프로9단", "프로 (Korean: professional) before a 단 rank", 109),
    ("职业九段", "职业 or 職業 (Chinese, Japanese: professional) before a 段 rank", 109),
    ("6d?", "KGS: uncertain rank, the rank before the ?", 35),
    ("2k*", "KGS: rank not yet settled, the rank before the *", 28),
    ("?", "KGS: no rank (unranked or not yet rated)", None),
    ("-", "no rank", None),
    ("NR", "not ranked", None),
    ("2126", "a rating, not a rank (AI tournaments, Elo)", None),
    ("10d", "beyond 9 dan or 9 professional dan, or 30 kyu", None),
)
"""Every rank form gohash reads, with an example, what it is and its level
(:func:`rank_level`; None: no level).  docs/explorer.md shows this table and
tests/index/test_explorer.py checks every example."""

_RANK_UNITS = {"k": "k", "kyu": "k", "級": "k", "级": "k", "급": "k", "d": "d", "dan": "d",
               "段": "d", "단": "d", "p": "p", "pro": "p"}
_RANK = re.compile(
    r"^(?P<pro>p|pro|职业|職業|프로|プロ)?(?P<number>\d{1,2}|[初一二三四五六七八九十]{1,3})"
    r"(?P<unit>kyu|dan|pro|[kdp級级급段단])?(?P<professional>p|pro|professional)?[?*+]?$"
)
_RANK_LIMITS = {"k": 30, "d": 9, "p": 9}
_NUMERALS = {c: n for n, c in enumerate("一二三四五六七八九", start=1)}


def _rank_number(text: str) -> int | None:
    """A rank's number: digits, ``初`` (first), or Chinese numerals up to 三十 (30)."""
    if text.isascii():
        return int(text)
    if text == "初":
        return 1
    if "十" not in text:
        return _NUMERALS.get(text)
    tens, _, units = text.partition("十")
    high = _NUMERALS.get(tens) if tens else 1
    low = _NUMERALS.get(units) if units else 0
    return None if high is None or low is None else 10 * high + low


def rank_level(text: str | None) -> int | None:
    """A rank as a number that orders ranks (higher is stronger), or None if
    ``text`` is not a rank gohash reads.

    Kyu ranks (``30k`` to ``1k``) come below amateur dan ranks (``1d`` to ``9d``),
    and those below professional ranks (``1p`` to ``9p``): ``30k`` is 0, ``1k``
    29, ``1d`` 30, ``9d`` 38, ``1p`` 101, ``9p`` 109.  The forms read, case and
    spaces aside, are :data:`RANK_FORMS`: a number and a unit (``5k``, ``5 kyu``,
    ``5級``, ``18级``, ``5급``, ``5d``, ``5 dan``, ``5段``, ``5단``, ``9p``,
    ``9 pro``, ``9 Dan Professional``), a professional's mark before it (``P9``,
    Fox's ``P9段``, ``프로9단``, ``职业九段``), Chinese numerals, KGS's ``?`` or
    ``*`` after it.  ``段`` and ``단`` alone are amateur dan: records do not say
    whether it is a professional's.
    """
    if text is None:
        return None
    match = _RANK.match("".join(text.casefold().split()))
    if match is None:
        return None
    number = _rank_number(match["number"])
    unit = _RANK_UNITS[match["unit"]] if match["unit"] else None
    if match["pro"] or match["professional"]:
        # A professional's mark goes with a dan rank or none, not with kyu.
        if unit not in (None, "d", "p"):
            return None
        unit = "p"
    if unit is None or number is None or not 1 <= number <= _RANK_LIMITS[unit]:
        return None
    return {"k": 30 - number, "d": 29 + number, "p": 100 + number}[unit]


_DATE = re.compile(r"^\s*(\d{4})(?:[-./](\d{1,2})(?:[-./](\d{1,2}))?)?(?!\d)")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")


def first_date(text: str | None) -> str | None:
    """The first date of a ``DT`` value in ISO form, as precise as it is given:
    ``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY``; None if it has none.

    Read: a date at the start (``2017-01-05``, ``2017.01.05 12:34``,
    ``1996-06-20,21``, ``2003-10``), else the first four-digit number standing
    alone, as a year (``05.01.2017`` gives ``2017``: day and month orders differ).
    """
    if text is None:
        return None
    match = _DATE.match(text)
    if match is not None:
        year, month, day = match.groups()
        if month is None or not 1 <= int(month) <= 12:
            return year
        if day is None or not 1 <= int(day) <= 31:
            return f"{year}-{int(month):02d}"
        return f"{year}-{int(month):02d}-{int(day):02d}"
    year_match = _YEAR.search(text)
    return None if year_match is None else year_match.group(1)


def winner(result: str | None) -> str | None:
    """``'B'`` or ``'W'`` for a ``RE`` that names a winner (``B+R``, ``W+0.5``,
    ``B``), None for anything else (draws, void, unknown, missing)."""
    if result is None:
        return None
    text = result.strip().upper()
    if text in ("B", "W") or text[:2] in ("B+", "W+"):
        return text[0]
    return None


_RESULT = re.compile(r"^([BW])(?:\+\s*(.*))?$", re.IGNORECASE | re.DOTALL)
_RESULT_WORDS = {"r": "R", "res": "R", "resign": "R", "resignation": "R", "t": "T",
                 "time": "T", "f": "F", "forfeit": "F"}
_RESULT_OTHER = {"0": "Draw", "draw": "Draw", "jigo": "Draw", "void": "Void", "?": "?",
                 "unknown": "?"}


def result_text(result: str | None) -> str | None:
    """``RE`` in one form, for display: ``B+R``, ``W+T``, ``B+F`` (resignation,
    time, forfeit, however spelt: ``B+Resign``, ``w+time``), ``W+3.5`` (a margin
    as a number: ``W+3.50`` and ``W+ 3.5`` too), ``B+`` (a winner without a
    margin, ``B`` alone too), ``Draw`` (``0``, ``Draw``, ``Jigo``), ``Void``,
    ``?``; another margin as recorded after the winner (``B+3 points``); anything
    else as recorded, stripped; None for no ``RE`` or an empty one.  It starts
    with ``B+`` or ``W+`` exactly when :func:`winner` names that winner."""
    if result is None or not result.strip():
        return None
    text = result.strip()
    other = _RESULT_OTHER.get(text.casefold())
    if other is not None:
        return other
    match = _RESULT.match(text)
    if match is None:
        return text
    colour, margin = match.group(1).upper(), (match.group(2) or "").strip()
    word = _RESULT_WORDS.get(margin.casefold())
    if word is not None or not margin:
        return f"{colour}+{word or ''}"
    try:
        number = float(margin)
    except ValueError:
        number = math.nan
    if not (math.isfinite(number) and number >= 0):
        return f"{colour}+{margin}"
    return f"{colour}+{number:.10g}"


def komi_value(text: str | None) -> float | None:
    """``KM`` as a number, or None if missing or not a finite number."""
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def game_digest(
    size: int, black: str | None, white: str | None, result: str | None, stored: bytes,
) -> str:
    """The SHA-256 a game is known by: of its size, players and result and its
    stored form (:mod:`gohash.index.games`), concatenated."""
    digest = hashlib.sha256(f"{size}|{black}|{white}|{result}|".encode())
    digest.update(stored)
    return digest.hexdigest()

