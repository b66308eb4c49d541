"""Exact position search in an index: :meth:`Index.find
<gohash.index.index.Index.find>` and :meth:`Index.continuations
<gohash.index.index.Index.continuations>`.

Scope: a query position's frame and its confirmed occurrences in the games
a filter lets through, the page of them :func:`find` returns, and what
:func:`continuations` counts (from the aggregates of frequent positions, or
each game replayed); their semantics and results are
:mod:`gohash.index.view`'s and :mod:`gohash.index.results`'s.  And
:func:`position_from_sgf`, which takes a query position from a record.

Exactness: a search reads the postings of the query's key (48 bits of it),
replays each game they name once, as far as they ask, and keeps a posting
only if the game's position there is one of the query's 16 images; the
element, the side to move and the next move come from that replay.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from .._deprecated import deprecated
from ..errors import GohashError, OptionError
from ..go.board import Board
from ..group.coords import check_position_array
from ..group.schemes import KeyScheme
from ..group.symmetry import ELEMENTS, Element
from ..pipeline.frames import Board8, frame_array_and_elements
from ..sgf.sources import find_inputs, read_input
from ..sgf.walk import BaseVisitor, GameInfo, PositionEvent, walk_source
from .aggregates import aggregate_rows
from .filters import Filters, game_order
from .games import posting_key
from .occurrences import Hits, confirm, read_games, read_records, setup_rows
from .postings import PostingsFile, live_postings
from .results import Continuations, FindResult
from .values import damaged, require
from .view import SETUP, ContinuationRow, QueryView, merge_continuations

__all__ = [
    "QUERY_SYMMETRIES",
    "continuations",
    "find",
    "occurrences",
    "position_from_sgf",
    "query_frame",
]


QUERY_SYMMETRIES = ("full", "d4")
"""The values of ``symmetry`` in :meth:`Index.find <gohash.index.index.Index.find>`
and :meth:`Index.continuations <gohash.index.index.Index.continuations>`:
rotations, reflections and colour exchange, or rotations and reflections only
(:meth:`Index.pattern <gohash.index.index.Index.pattern>` also takes ``"none"``,
:data:`gohash.pattern.diagram.SYMMETRIES`)."""

Keys = Callable[[int], KeyScheme]
"""An index's key scheme of each board size (:meth:`Index.keys <gohash.index.index.Index.keys>`)."""


def _lookup(
    db: sqlite3.Connection, path: str, keys: Keys, postings: PostingsFile,
    position: Board | npt.ArrayLike,
    filters: Filters | None, columns: str = "",
) -> tuple[int, int, list[Element], Hits]:
    """The query's size, key, the elements mapping it onto its frame (lowest
    first), and its confirmed occurrences in the games ``filters`` let
    through (with ``columns`` of their games, ``g``)."""
    size, key, frame, onto = query_frame(position, keys)
    hits = occurrences(db, path, keys, postings, size, key, frame, filters, columns)
    return size, key, onto, hits


def query_frame(position: Board | npt.ArrayLike, keys: Keys
                ) -> tuple[int, int, Board8, list[Element]]:
    """The query's size, canonical key, frame, and the elements mapping it onto
    its frame (lowest first)."""
    arr = _position_array(position)
    key, frame, onto = frame_array_and_elements(arr, keys(arr.shape[0]))
    return arr.shape[0], key, frame, onto


def occurrences(
    db: sqlite3.Connection, path: str, keys: Keys, postings: PostingsFile, size: int, key: int,
    frame: Board8, filters: Filters | None, columns: str,
) -> Hits:
    """The confirmed occurrences of ``frame`` (of canonical ``key``) in the games
    ``filters`` let through, with ``columns`` of their games."""
    condition, params = filters.sql("g") if filters is not None else ("1", [])
    wanted = posting_key(key, keys(size).bits, size)
    found = live_postings(db, postings, wanted, condition=condition, params=params)
    games = read_games(db, sorted({game_id for game_id, _ in found}), columns)
    found = [p for p in found if p[0] in games]  # a game removed meanwhile
    # A posting of another size is a key that collides: other stones.
    sizes = {games[game_id][0] for game_id, _ in found}
    try:
        hits = confirm([p for p in found if games[p[0]][0] == size], games, size, frame)
    except GohashError as e:
        raise damaged(path, e.reason) from None
    hits.rejected += len(sizes - {size})
    return hits


def find(
    db: sqlite3.Connection,
    path: str,
    keys: Keys,
    postings: PostingsFile,
    position: Board | npt.ArrayLike,
    *,
    symmetry: str = "full",
    limit: int | None = 100,
    offset: int = 0,
    filters: Filters | None = None,
    to_move: str | None = None,
    order: str | None = None,
    colour_swap: bool | None = None,
) -> FindResult:
    """:meth:`Index.find <gohash.index.index.Index.find>` on the index ``db`` is
    open on (at ``path``, of key schemes ``keys``)."""
    if colour_swap is not None:
        deprecated("colour_swap=", 'symmetry= ("full" for True, "d4" for False)',
                   "Index.find", depth=3)
        symmetry = "full" if colour_swap else "d4"
    OptionError.check("symmetry", symmetry, QUERY_SYMMETRIES)
    to_move = _side(position, to_move)
    size, key, onto, hits = _lookup(db, path, keys, postings, position, filters)
    view = QueryView(onto, size, colour_swap=symmetry == "full", to_move=to_move)
    allowed = {(sw, tm): view.matches(sw, tm) for sw in (False, True) for tm in (1, 2)}
    keep = [i for i in range(len(hits))
            if allowed[bool(hits.element[i] >= 8), int(hits.to_move[i])]]
    if order is not None:
        keep = _ordered(db, keep, hits.game_id, order)
    page = keep[offset:] if limit is None else keep[offset : offset + limit]
    # The records of the page's games only (the others' are never shown).
    records = read_records(db, sorted({hits.game_id[i] for i in page}))
    lines = _lines(db, [(hits.game_id[i], int(hits.seq[i])) for i in page
                        if hits.seq[i] >= hits.games[hits.game_id[i]][2]])
    matches = []
    for i in page:
        game_id = hits.game_id[i]
        seq = int(hits.seq[i])
        colour = int(hits.next_colour[i])
        match = view.match(records[game_id], int(hits.move_number[i]), seq,
                           ELEMENTS[int(hits.element[i])], int(hits.to_move[i]), colour,
                           int(hits.next_point[i]) if colour else None)
        line = lines.get((game_id, seq))
        if line:
            match = replace(match, variation=tuple(int(x) for x in line.split(".")))
        matches.append(match)
    return FindResult(key, len(keep), matches, offset, limit, hits.rejected,
                      keys(size).bits)


def _ordered(db: sqlite3.Connection, hits: list[int], game_ids: Sequence[int], order: str
             ) -> list[int]:
    """``hits`` (indexes into ``game_ids``) with their games in ``order``
    (:func:`~gohash.index.filters.game_order`), each game's in index order."""
    wanted = sorted({int(game_ids[i]) for i in hits})
    rank = {game_id: n for n, (game_id,) in enumerate(db.execute(
        f"SELECT g.id FROM games g WHERE g.id IN (SELECT value FROM json_each(?)) "
        f"ORDER BY {game_order(order)}, g.id", (json.dumps(wanted),)))}
    return sorted(hits, key=lambda i: (rank[int(game_ids[i])], i))


def _lines(db: sqlite3.Connection, nodes: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """The path of the variation holding each node off its main line: that of
    the latest variation run starting at or before it."""
    out = {}
    for game_id, seq in nodes:
        require(db, "variations", "game_id = ? AND seq <= ?", (game_id, seq))
        row = db.execute(
            "SELECT path FROM variations WHERE game_id = ? AND seq <= ? "
            "ORDER BY seq DESC LIMIT 1", (game_id, seq),
        ).fetchone()
        out[game_id, seq] = "" if row is None else row[0]
    return out


def continuations(
    db: sqlite3.Connection,
    path: str,
    keys: Keys,
    postings: PostingsFile,
    position: Board | npt.ArrayLike,
    *,
    symmetry: str = "full",
    filters: Filters | None = None,
    to_move: str | None = "query",
    limit: int | None = None,
    setup: str = "exclude",
) -> Continuations:
    """:meth:`Index.continuations <gohash.index.index.Index.continuations>` on the
    index ``db`` is open on (at ``path``, of key schemes ``keys``)."""
    OptionError.check("symmetry", symmetry, QUERY_SYMMETRIES)
    OptionError.check("setup", setup, SETUP)
    if to_move is None:
        deprecated("to_move=None (the query's side)", "to_move='query'",
                   "Index.continuations", depth=3)
        to_move = "query"
    to_move = _side(position, to_move)
    size, key, frame, onto = query_frame(position, keys)
    view = QueryView(onto, size, colour_swap=symmetry == "full", to_move=to_move)
    allowed = np.array([view.matches(sw, tm) for sw in (False, True) for tm in (1, 2)])
    kept = None if filters is not None else _aggregated(db, keys, size, key, frame, setup)
    if kept is None:
        kept = _recounted(db, path, keys, postings, size, key, frame, filters, allowed, setup)
    else:
        rows, other = (
            [row for row in part if allowed[row.swapped * 2 + row.to_move - 1]]
            for part in kept)
        kept = rows, other
    rows, other = kept
    found = merge_continuations(rows, key=key, bits=keys(size).bits, view=view,
                                limit=limit)
    found.setup, found.setup_left_out = setup, sum(row.count for row in other)
    return found


def _aggregated(db: sqlite3.Connection, keys: Keys, size: int, key: int, frame: Board8,
                setup: str) -> tuple[list[ContinuationRow], list[ContinuationRow]] | None:
    """The continuation rows of the occurrences of ``frame`` that ``setup``
    keeps, and of those it leaves out, as the index keeps them
    (:mod:`gohash.index.aggregates`); None if it keeps none for it."""
    return aggregate_rows(db, posting_key(key, keys(size).bits, size), size, frame, setup)


def _recounted(
    db: sqlite3.Connection, path: str, keys: Keys, postings: PostingsFile, size: int, key: int,
    frame: Board8, filters: Filters | None, allowed: npt.NDArray[np.bool_], setup: str,
) -> tuple[list[ContinuationRow], list[ContinuationRow]]:
    """The continuation rows of the occurrences of ``frame`` that ``filters``
    let through, of the kinds ``allowed``, those ``setup`` keeps and those it
    leaves out: each game replayed."""
    hits = occurrences(db, path, keys, postings, size, key, frame, filters,
                       ", g.winner, g.date")
    return setup_rows(hits, allowed, setup)


def _side(position: Board | npt.ArrayLike, to_move: str | None) -> str | None:
    """``to_move`` of a query, ``'query'`` read: the query's side to move (a
    Board's; either side for an array, which has none)."""
    if to_move != "query":
        return to_move
    return position.to_move if isinstance(position, Board) else "any"


def _position_array(position: Board | npt.ArrayLike) -> Board8:
    if isinstance(position, Board):
        return position.to_array()
    # Not checked: that every group has a liberty; such a position is never found.
    return check_position_array(position, batch=False).astype(np.int8)


# -- query positions from records --------------------------------------------------------------


class _PositionPicker(BaseVisitor):
    def __init__(self, game: int, move: int | None) -> None:
        self.game = game
        self.move = move
        self.found: tuple[bytes, str] | None = None
        self.last_move = -1
        self.games = 0
        self.error: GohashError | None = None

    def begin_game(self, info: GameInfo) -> None:
        self.games += 1

    def visit_position(self, event: PositionEvent) -> None:
        if event.game == self.game:
            self.last_move = event.move_number
            if self.move is None or event.move_number == self.move:
                self.found = event.board.position_key(), event.board.to_move

    def handle_error(self, error: GohashError) -> bool:
        if error.game is None or error.game == self.game:
            self.error = self.error or error
        return False


def position_from_sgf(
    path: str, move: int | None = None, *, game: int = 0, suicide_allowed: bool | None = None
) -> Board:
    """The position of game ``game`` of an SGF file (``-``: standard input) on its main
    line after move ``move`` (None: the last), setup included; suicide allowed as
    ``suicide_allowed`` says, or the game's ``RU`` if None.  The board has no
    history; its side to move is the record's there, as an index stores it:
    Black at first, then the opponent of the last mover."""
    picker = _PositionPicker(game, move)
    options = {} if suicide_allowed is None else {"suicide_allowed": suicide_allowed}
    for inp in find_inputs([path]):
        for source in read_input(inp):
            if isinstance(source, GohashError):
                raise source
            walk_source(source, picker, board_options=options)
    if picker.found is None or (move is not None and move > picker.last_move):
        if picker.error is not None:
            raise picker.error
        if picker.last_move < 0:
            raise GohashError(f"{path!r} has no game {game} (it has {picker.games})", file=path)
        raise GohashError(
            f"move {move!r} is beyond the end of the main line (move {picker.last_move})",
            file=path, game=game,
        )
    key, to_move = picker.found
    return Board.from_array(Board.from_position_key(key).to_array(), to_move=to_move)
