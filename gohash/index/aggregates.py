"""Continuations of frequent positions, aggregated per exact position and kept exact.

Scope: the ``aggregates`` and ``aggregate_moves`` tables
(:mod:`gohash.index.schema`): for each position a build found reached by
:data:`AGGREGATE_OCCURRENCES` occurrences or more, its canonical frame (the
exact position: the key only locates it) and the continuation rows of all
its occurrences (:func:`gohash.index.occurrences.continuation_rows`), those
reached or ended by setup apart (``setup`` 1; :func:`~gohash.index.occurrences.by_setup`), so
that :meth:`gohash.index.index.Index.continuations` answers without
replaying a game.  :class:`Aggregates` keeps them up to date within a
writing transaction as postings are added and games removed;
:func:`aggregate_rows` reads one for a query; :func:`recount` (and its batch
twin :func:`recount_many`) and :func:`aggregate_faults` count them again from
the games.  Which positions
are aggregated, and why, is said in docs/design.md
(``gohash.index.aggregates``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GohashError
from ..group.schemes import KeyScheme
from ..pipeline.frames import frame_array_and_elements
from .games import posting_key, replay_boards
from .occurrences import Hits, confirm, read_games, setup_rows
from .postings import I64, PostingsFile, live_postings_many
from .values import damaged, require
from .view import ContinuationRow

__all__ = [
    "AGGREGATE_OCCURRENCES",
    "CANDIDATE_NODES",
    "Aggregates",
    "aggregate_faults",
    "aggregate_rows",
    "recount",
    "recount_many",
]

AGGREGATE_OCCURRENCES = 250
"""A position reached this often gets an aggregate: below it, the recount
(each game read, checked and replayed to the position) answers well within
the target (docs/design.md, ``gohash.index.aggregates``)."""
CANDIDATE_NODES = 30
"""Nodes of each game added whose positions a build considers for an aggregate."""
SMALL_BUILD = 1000
"""Up to this many games, a build counts every candidate position in the index;
a larger one those it added twice or more (one it added once holds at most
one occurrence in :data:`AGGREGATE_OCCURRENCES`)."""
RECOUNT_GAMES = 20_000
"""Games read and replayed at a time by :func:`recount` (its memory)."""
RECOUNT_POSTINGS = 2_000_000
"""Postings of the positions :func:`recount_many` counts together, at most
(unless one position has more): its memory."""

_COLUMNS = ("setup, colour, point, swapped, to_move, year, games, black_wins, white_wins, "
            "first_date, last_date")
_KEY = ("aggregate_id = ? AND setup = ? AND colour = ? AND point = ? AND swapped = ? "
        "AND to_move = ? AND year = ?")
_GAME_COLUMNS = ", g.winner, g.date"

Flagged = list[tuple[int, ContinuationRow]]
"""Continuation rows, each with its setup flag (1: occurrences reached or
ended by setup, 0: played through)."""
Summed = dict[tuple[int, int, int, bool, int, int], list[Any]]
"""Rows by (setup, colour, point (-2 none), swapped, to_move, year (-1 none)):
count, black wins, white wins, first and last date."""


def _row_key(setup: int, row: ContinuationRow) -> tuple[int, int, int, bool, int, int]:
    return (setup, row.colour, -2 if row.point is None else row.point, row.swapped,
            row.to_move, -1 if row.year is None else row.year)


def _as_row(values: tuple[Any, ...]) -> tuple[int, ContinuationRow]:
    setup, colour, point, swapped, to_move, year, count, black, white, first, last = values
    return setup, ContinuationRow(colour, None if colour == 0 else point, bool(swapped),
                                  to_move, None if year < 0 else year, count, black, white,
                                  first, last)


def _flagged(hits: Hits) -> Flagged:
    """:func:`~gohash.index.occurrences.setup_rows` of ``hits``, flagged: 0 played
    through, 1 reached or ended by setup."""
    played, made = setup_rows(hits, None, "exclude")
    return [(0, row) for row in played] + [(1, row) for row in made]


def _add(total: Summed, rows: Flagged) -> None:
    for setup, row in rows:
        have = total.setdefault(_row_key(setup, row), [0, 0, 0, None, None])
        have[0] += row.count
        have[1] += row.black_wins
        have[2] += row.white_wins
        if row.first_date is not None and (have[3] is None or row.first_date < have[3]):
            have[3] = row.first_date
        if row.last_date is not None and (have[4] is None or row.last_date > have[4]):
            have[4] = row.last_date


def _rows(total: Summed) -> Flagged:
    return [_as_row((*key, *values)) for key, values in sorted(total.items())]


def _frame_array(frame: bytes, size: int) -> npt.NDArray[np.int8]:
    return np.frombuffer(frame, dtype=np.int8).reshape(size, size)


def aggregate_rows(
    db: sqlite3.Connection, key: int, size: int, frame: npt.NDArray[np.int8], setup: str
) -> tuple[list[ContinuationRow], list[ContinuationRow]] | None:
    """The continuation rows kept for the position whose canonical frame is
    ``frame`` (posting key ``key``) of the occurrences ``setup`` keeps, and of
    those it leaves out (:func:`~gohash.index.occurrences.setup_rows`); None if
    none are kept, or if ``setup`` is ``"include"`` and it holds occurrences
    of both kinds (a game counted once for a move from both is a recount's).  A
    value of their rows out of its type or range raises
    :class:`~gohash.errors.DamagedIndexError`."""
    stored = np.ascontiguousarray(frame, dtype=np.int8).tobytes()
    require(db, "aggregates", "key = ?", (key,))
    found = db.execute("SELECT id FROM aggregates WHERE key = ? AND size = ? AND frame = ?",
                       (key, size, stored)).fetchone()
    if found is None:
        return None
    require(db, "aggregate_moves", "aggregate_id = ?", found)
    rows = [_as_row(values) for values in db.execute(
        f"SELECT {_COLUMNS} FROM aggregate_moves WHERE aggregate_id = ?", (found[0],))]
    if not rows:  # a build drops an aggregate no occurrence is left of
        raise damaged(None, f"aggregate {found[0]}: no continuation rows")
    played = [row for flag, row in rows if flag == 0]
    made = [row for flag, row in rows if flag == 1]
    if setup == "include":
        return None if played and made else (played or made, [])
    return (made, played) if setup == "only" else (played, made)


def recount(db: sqlite3.Connection, postings_file: PostingsFile, key: int, size: int,
            frame: bytes) -> Flagged:
    """The continuation rows of every occurrence of ``frame`` (posting key ``key``
    in ``postings_file``), counted from the games, :data:`RECOUNT_GAMES` at a
    time (:func:`recount_many` of the one position); raises
    :class:`~gohash.errors.GohashError` if a game does not replay or a row read
    holds a value out of its type or range."""
    return recount_many(db, [(size, frame, live_postings_many(db, postings_file, [key])[0])])[0]


def recount_many(db: sqlite3.Connection,
                 positions: list[tuple[int, bytes, tuple[I64, I64]]]) -> list[Flagged]:
    """:func:`recount` of many positions at once: for each ``(size, frame,
    (games, seqs))`` (its live postings, in order of game and seq:
    :func:`~gohash.index.postings.live_postings_many`), the continuation rows
    of its occurrences.  Each game is read once for all the positions it
    holds, :data:`RECOUNT_GAMES` games at a time, not once a position: the
    frequent positions of the opening share their games.  The postings stay
    arrays but for a chunk's: a build's new aggregates hold millions."""
    ids = np.unique(np.concatenate([games for _, _, (games, _) in positions]
                                   or [np.zeros(0, np.int64)])).tolist()
    totals: list[Summed] = [{} for _ in positions]
    stones = [_frame_array(frame, size) for size, frame, _ in positions]
    for start in range(0, len(ids), RECOUNT_GAMES):
        chunk = ids[start : start + RECOUNT_GAMES]
        games = read_games(db, chunk, _GAME_COLUMNS)
        for i, (size, _, (game_ids, seqs)) in enumerate(positions):
            # The position's postings of the chunk's games: one run, as both are in order.
            lo = int(np.searchsorted(game_ids, chunk[0], side="left"))
            hi = int(np.searchsorted(game_ids, chunk[-1], side="right"))
            mine = [p for p in zip(game_ids[lo:hi].tolist(), seqs[lo:hi].tolist(), strict=True)
                    if games[p[0]][0] == size]
            if mine:
                _add(totals[i], _flagged(confirm(mine, games, size, stones[i])))
    return [_rows(total) for total in totals]


def aggregate_faults(db: sqlite3.Connection, postings: PostingsFile,
                     keys_of: Callable[[int], KeyScheme],
                     good: str = "1", good_moves: str = "1") -> Iterator[str]:
    """How each aggregate differs from what it must be: its key that of its
    frame, its frame a canonical one, its rows a recount from the games.  Only
    the aggregates whose row meets ``good`` and whose rows all meet
    ``good_moves`` (SQL: their values of the right type and range) are
    checked; the others are the value checks' (:mod:`gohash.index.values`)."""
    for aggregate_id, key, size, frame in db.execute(
            f"SELECT id, key, size, frame FROM aggregates WHERE ({good}) AND id NOT IN "
            f"(SELECT aggregate_id FROM aggregate_moves WHERE NOT ({good_moves})) "
            "ORDER BY id").fetchall():
        where = f"aggregate {aggregate_id}"
        stones = _frame_array(frame, size)
        if not np.isin(stones, (0, 1, 2)).all():
            yield f"{where}: a frame with values other than 0, 1 and 2"
            continue
        keys = keys_of(size)
        canonical, again, _ = frame_array_and_elements(stones, keys)
        if again.tobytes() != frame:
            yield f"{where}: its frame is not the canonical image of its position"
        elif (want_key := posting_key(canonical, keys.bits, size)) != key:
            yield f"{where}: key {key!r} is not its frame's {want_key!r}"
            continue
        try:
            want = recount(db, postings, key, size, frame)
        except GohashError as e:
            yield f"{where}: {e.reason}"
            continue
        have: Summed = {}
        _add(have, [_as_row(values) for values in db.execute(
            f"SELECT {_COLUMNS} FROM aggregate_moves WHERE aggregate_id = ?", (aggregate_id,))])
        if _rows(have) != want:
            yield f"{where}: its continuation rows are not those of its occurrences"


class Aggregates:
    """Keeps the aggregates of an index exact within its writing transactions.

    :meth:`added` and :meth:`removed` take the postings (key, game id, seq) of
    games being added (their rows written, before or with their postings) or
    removed (before their rows go); :meth:`settle` counts again, before a
    commit, the aggregates whose first or last date a removal may have
    changed, and drops those no occurrence is left of; :meth:`noted` keeps the
    candidate keys of the games added, and :meth:`discover` gives every
    candidate reached :data:`AGGREGATE_OCCURRENCES` times its aggregate.
    A game that does not replay, or an aggregate that lacks a game it
    counted, raises ``fault(reason)``.
    """

    def __init__(self, db: sqlite3.Connection, postings: PostingsFile,
                 keys_of: Callable[[int], KeyScheme], *,
                 fault: Callable[[str], Exception]) -> None:
        self._db = db
        self._postings = postings
        self._fault = fault
        self._keys_of = keys_of
        self._stale: set[int] = set()
        self._candidates: list[npt.NDArray[np.int64]] = []
        self._games = 0

    def added(self, keys: npt.NDArray[np.int64], game_ids: npt.NDArray[np.int64],
              seqs: npt.NDArray[np.int64]) -> None:
        """Count the occurrences of these postings into the aggregates of their positions."""
        self._apply(keys, game_ids, seqs, 1)

    def removed(self, keys: npt.NDArray[np.int64], game_ids: npt.NDArray[np.int64],
                seqs: npt.NDArray[np.int64]) -> None:
        """Take the occurrences of these postings (whole games) out of the aggregates."""
        self._apply(keys, game_ids, seqs, -1)

    def noted(self, keys: npt.NDArray[np.int64], seqs: npt.NDArray[np.int64],
              games: int) -> None:
        """Keep the keys of the first :data:`CANDIDATE_NODES` nodes of ``games``
        games added, for :meth:`discover`."""
        self._candidates.append(keys[seqs < CANDIDATE_NODES])
        self._games += games

    def _apply(self, keys: npt.NDArray[np.int64], game_ids: npt.NDArray[np.int64],
               seqs: npt.NDArray[np.int64], sign: int) -> None:
        db = self._db
        require(db, "aggregates")
        known: dict[int, list[tuple[int, int, bytes]]] = {}
        for aggregate_id, key, size, frame in db.execute(
                "SELECT id, key, size, frame FROM aggregates"):
            known.setdefault(key, []).append((aggregate_id, size, frame))
        if not known or not len(keys):
            return
        at = np.flatnonzero(np.isin(keys, np.fromiter(known, dtype=np.int64, count=len(known))))
        if not len(at):
            return
        at = at[np.argsort(keys[at], kind="stable")]
        bounds = np.flatnonzero(np.diff(keys[at])) + 1
        for rows in np.split(at, bounds):
            postings = sorted(zip(game_ids[rows].tolist(), seqs[rows].tolist(), strict=True))
            games = read_games(db, sorted({g for g, _ in postings}), _GAME_COLUMNS)
            for aggregate_id, size, frame in known[int(keys[rows[0]])]:
                mine = [p for p in postings if games[p[0]][0] == size]
                if mine:
                    try:
                        hits = confirm(mine, games, size, _frame_array(frame, size))
                    except GohashError as e:
                        raise self._fault(e.reason) from None
                    if len(hits):
                        self._change(aggregate_id, _flagged(hits), sign)

    def _change(self, aggregate_id: int, rows: Flagged, sign: int) -> None:
        db = self._db
        for setup, row in rows:
            key = (aggregate_id, *_row_key(setup, row))
            if sign > 0:
                db.execute(
                    f"INSERT INTO aggregate_moves (aggregate_id, {_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (aggregate_id, setup, colour, point, swapped, to_move, year) "
                    "DO UPDATE SET games = games + excluded.games, "
                    "black_wins = black_wins + excluded.black_wins, "
                    "white_wins = white_wins + excluded.white_wins, "
                    "first_date = coalesce(min(first_date, excluded.first_date), first_date, "
                    "excluded.first_date), "
                    "last_date = coalesce(max(last_date, excluded.last_date), last_date, "
                    "excluded.last_date)",
                    (*key, row.count, row.black_wins, row.white_wins, row.first_date,
                     row.last_date))
                continue
            require(db, "aggregate_moves", _KEY, key)
            have = db.execute(f"SELECT games, first_date, last_date FROM aggregate_moves "
                              f"WHERE {_KEY}", key).fetchone()
            if have is None or have[0] < row.count:
                raise self._fault(f"aggregate {aggregate_id} lacks occurrences of games it "
                                  "counted")
            if have[0] == row.count:
                db.execute(f"DELETE FROM aggregate_moves WHERE {_KEY}", key)
                continue
            db.execute(f"UPDATE aggregate_moves SET games = games - ?, "
                       f"black_wins = black_wins - ?, white_wins = white_wins - ? WHERE {_KEY}",
                       (row.count, row.black_wins, row.white_wins, *key))
            # The dates are a least and a greatest: one a game held needs a recount.
            if (row.first_date is not None and row.first_date == have[1]) or (
                    row.last_date is not None and row.last_date == have[2]):
                self._stale.add(aggregate_id)

    def settle(self) -> None:
        """Count the aggregates whose dates a removal may have changed again, and
        drop the aggregates no occurrence is left of."""
        db = self._db
        for aggregate_id in sorted(self._stale):
            found = db.execute("SELECT key, size, frame FROM aggregates WHERE id = ?",
                               (aggregate_id,)).fetchone()
            db.execute("DELETE FROM aggregate_moves WHERE aggregate_id = ?", (aggregate_id,))
            if found is not None:
                self._store(aggregate_id, self._recount(*found))
        self._stale.clear()
        db.execute("DELETE FROM aggregates WHERE id NOT IN "
                   "(SELECT aggregate_id FROM aggregate_moves)")

    def _store(self, aggregate_id: int, rows: Flagged) -> None:
        self._db.executemany(
            f"INSERT INTO aggregate_moves (aggregate_id, {_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(aggregate_id, *_row_key(setup, row), row.count, row.black_wins, row.white_wins,
              row.first_date, row.last_date) for setup, row in rows])

    def discover(self) -> int:
        """Give each candidate position (:meth:`noted`) reached
        :data:`AGGREGATE_OCCURRENCES` times or more in the index its aggregate,
        counted from the games (:func:`recount_many`, up to
        :data:`RECOUNT_POSTINGS` postings at a time); how many were made."""
        if not self._candidates:
            return 0
        keys, counts = np.unique(np.concatenate(self._candidates), return_counts=True)
        if self._games > SMALL_BUILD:
            keys = keys[counts >= 2]
        self._candidates, self._games = [], 0
        known = {key for (key,) in self._db.execute("SELECT DISTINCT key FROM aggregates")}
        # The file's postings first (a removed game's stay until a merge), then,
        # some RECOUNT_POSTINGS at a time, those of games the index holds.
        made, group, held = 0, [], 0
        for key in keys.tolist():
            if key in known or (count := self._postings.count(key)) < AGGREGATE_OCCURRENCES:
                continue
            group.append(key)
            held += count
            if held >= RECOUNT_POSTINGS:
                made += self._make(group)
                group, held = [], 0
        return made + self._make(group)

    def _make(self, keys: list[int]) -> int:
        """Give each of ``keys`` whose live postings are
        :data:`AGGREGATE_OCCURRENCES` or more its aggregate; how many."""
        made = [(*self._create(key, found), found)
                for key, found in zip(keys, live_postings_many(self._db, self._postings, keys),
                                      strict=True)
                if len(found[0]) >= AGGREGATE_OCCURRENCES]
        self._count_made(made)
        return len(made)

    def _create(self, key: int, found: tuple[I64, I64]) -> tuple[int, int, bytes]:
        """The aggregate of the position of the first posting of ``key`` (of its
        postings ``found``; any other position with the key keeps being counted
        per query), without its rows: its id, board size and frame."""
        db = self._db
        game_id, seq = int(found[0][0]), int(found[1][0])
        size, nodes, _, blob = read_games(db, [game_id], "")[game_id]
        try:
            board = replay_boards(blob, size, nodes, seq).boards[seq].reshape(size, size)
        except GohashError as e:
            raise self._fault(f"game {game_id}: {e.reason}") from None
        keys = self._keys_of(size)
        canonical, frame, _ = frame_array_and_elements(board, keys)
        if posting_key(canonical, keys.bits, size) != key:
            raise self._fault(f"game {game_id} node {seq}: its posting key is not its "
                              "position's")
        stored = frame.tobytes()
        aggregate_id = db.execute("INSERT INTO aggregates (key, size, frame) VALUES (?, ?, ?)",
                                  (key, size, stored)).lastrowid
        assert aggregate_id is not None
        return aggregate_id, size, stored

    def _count_made(self, made: list[tuple[int, int, bytes, tuple[I64, I64]]]) -> None:
        """Count the rows of the aggregates ``made`` (id, size, frame, postings)."""
        try:
            counted = recount_many(self._db, [(size, frame, found)
                                              for _, size, frame, found in made])
        except GohashError as e:
            raise self._fault(e.reason) from None
        for (aggregate_id, *_), rows in zip(made, counted, strict=True):
            self._store(aggregate_id, rows)

    def _recount(self, key: int, size: int, frame: bytes) -> Flagged:
        try:
            return recount(self._db, self._postings, key, size, frame)
        except GohashError as e:
            raise self._fault(e.reason) from None
