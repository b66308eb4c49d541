"""Pattern search in an index: :meth:`Index.pattern <gohash.index.index.Index.pattern>`.

Scope: the games of a board size as pattern search scans them, read from the
pattern file beside the index and kept while the index is unchanged
(:func:`game_store`); the games a filter lets through picked from them; the
scan (:meth:`~gohash.pattern.search.PatternQuery.search`) by the compiled
kernel or by its pure twin (each game read from the index and replayed), the
records of the hits attached; and a kernel's fault reported as a damaged
pattern file.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from .. import _native
from ..errors import GohashError, StoredGameError
from ..pattern import kernel
from ..pattern.diagram import Pattern
from ..pattern.match import Found, Game
from ..pattern.search import THREADS, PatternQuery, PatternResult
from ..pattern.store import GameStore
from .filters import Filters
from .games import Replayed, replay_game
from .occurrences import read_games, read_records
from .patterns import pattern_path, pattern_store
from .results import Record
from .values import damaged

__all__ = ["game_store", "pattern"]


def pattern(
    db: sqlite3.Connection,
    path: str,
    stores: Callable[[int], GameStore],
    diagram: str | Pattern,
    *,
    symmetry: str = "full",
    to_move: str | None = None,
    max_move: int | None = None,
    sequence: str | Sequence[tuple[str, str]] = (),
    filters: Filters | None = None,
    limit: int | None = 100,
    offset: int = 0,
    pure: bool | None = None,
    timeout: float | None = None,
    cancel: threading.Event | None = None,
    compiled: bool | None = None,
) -> PatternResult[Record]:
    """:meth:`Index.pattern <gohash.index.index.Index.pattern>` on the index ``db``
    is open on (at ``path``), its games of each size from ``stores``
    (:func:`game_store`)."""
    query = PatternQuery(diagram, symmetry=symmetry, to_move=to_move, max_move=max_move,
                         sequence=sequence)
    store = stores(query.size)
    # The store's columns answer the filters: the games table is not read.
    selected = store.live if filters is None else store.live & filters.keeps(store)
    pure = _native.pure_from_compiled(compiled, pure, "Index.pattern", depth=3)
    compiled = _native.use_compiled(pure, kernel.match)
    scan = None if compiled else (lambda games: _scan_pure(db, path, query, store, games))
    try:
        return query.search(store, selected, records=functools.partial(read_records, db),
                            twin=scan, limit=limit, offset=offset, timeout=timeout,
                            cancel=cancel, threads=THREADS if compiled else 1)
    except StoredGameError as e:  # a value of the file the kernel met
        where, reason = f"game {int(store.ids[e.index])}: ", e.reason
    except ValueError as e:
        if isinstance(e, GohashError):
            raise
        where, reason = "", str(e)  # a shape the kernel refused
    raise damaged(path, f"{where}its pattern file "
                        f"{pattern_path(path, query.size)!r} is damaged "
                        f"({reason}); delete it and the next search rebuilds it")


def _scan_pure(db: sqlite3.Connection, path: str, query: PatternQuery, store: GameStore,
               games: npt.NDArray[np.int64]) -> Found:
    """:meth:`Matcher.scan <gohash.pattern.match.Matcher.scan>`'s twin: each game
    of ``games`` (store numbers) read from the index, replayed into its
    boards by the pure replay (:func:`~gohash.index.games.replay_game`) and
    matched by the pure matcher."""
    parts = []
    rows = read_games(db, store.ids[games].tolist(), "")
    for g in games.tolist():
        _, nodes, positions, blob = rows[int(store.ids[g])]
        replayed = replay_game(path, int(store.ids[g]), blob, store.size, nodes, positions - 1,
                               pure=True)
        game = _game_boards(replayed, positions)
        found = Found.of(query.matcher.match(game, pure=True), game)
        parts.append(replace(found, game=np.full(len(found.game), g, dtype=np.int32)))
    return Found.concatenate(parts)


def game_store(db: sqlite3.Connection, path: str, size: int, version: tuple[int, int],
               kept: dict[int, tuple[tuple[int, int], GameStore]]) -> GameStore:
    """The games of ``size`` with a position, as pattern search scans them
    (:func:`~gohash.index.patterns.pattern_store`): read once and kept in
    ``kept`` while the index is unchanged (its ``version``,
    :meth:`Index.version <gohash.index.index.Index.version>`)."""
    found = kept.get(size)
    if found is not None and found[0] == version:
        return found[1]
    store = pattern_store(db, path, size)
    kept[size] = (version, store)
    return store


def _game_boards(replayed: Replayed, positions: int) -> Game:
    """The main line (its first ``positions`` nodes) of a stored game replayed
    (:func:`~gohash.index.games.replay_boards`) as pattern search reads it
    (:class:`~gohash.pattern.match.Game`): each position's next move is the move
    of the node after it."""
    next_colour = np.zeros(positions, dtype=np.int8)
    next_point = np.full(positions, -1, dtype=np.int32)
    next_colour[:-1] = replayed.colour[1:positions]
    next_point[:-1] = replayed.point[1:positions]
    return Game(replayed.boards[:positions], replayed.move_number[:positions],
                replayed.to_move[:positions], next_colour, next_point)
