"""The answers of ``gohash serve``'s JSON endpoints that the index gives at once:
what it holds, a position's continuations and games, a player, a pattern.

Scope: :class:`Explorer` reads each endpoint's parameters
(:mod:`gohash.explorer.params`), asks the index served now
(:class:`~gohash.explorer.indexes.Served`) and returns the JSON; the routes, and
the lanes that slow work runs in, are :mod:`gohash.explorer.app`'s.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from ..errors import BadRequest
from ..index.filters import FILTERS, GAME_ORDERS, Filters
from ..index.index import Index
from ..index.movelist import Replay, format_steps, parse_steps, replay
from ..index.shards import ShardedIndex
from ..index.view import SETUP
from ..pattern.diagram import SYMMETRIES
from .indexes import Generation, Served
from .params import choice_param, filter_params, int_param
from .shaping import board_json

__all__ = [
    "DEFAULT_PAGE",
    "MAX_CONTINUATIONS",
    "MAX_NAME_CHARS",
    "MAX_PAGE",
    "MAX_PLAYERS",
    "ORDERS",
    "Explorer",
    "Query",
]

DEFAULT_PAGE = 20
"""Games per page unless ``limit`` says otherwise."""
MAX_PAGE = 200
"""The largest page of games one request may ask for."""
MAX_CONTINUATIONS = 52
"""Continuations listed (the page labels them a-z, A-Z); the counts cover them all."""


@dataclass(frozen=True)
class Query:
    """A position as the page sends it, replayed, with the search options."""

    size: int
    moves: str
    replayed: Replay
    filters: Filters | None
    symmetry: str
    to_move: str
    order: str | None


ORDERS = tuple(o for name in GAME_ORDERS for o in (name, "-" + name))
"""The games' orders: each of the index's, ascending or (``-`` before it) descending."""
MAX_NAME_CHARS = 200
"""The longest player's name the player page takes."""
MAX_PLAYERS = 50
"""The most players a search by part of a name (``/api/players``) answers with."""


class Explorer:
    """The index (:class:`~gohash.explorer.indexes.Served`: the file at the path
    now, one at a time) and the answers built from it."""

    def __init__(self, db_path: str, pattern_timeout: float | None,
                 client: Any = None) -> None:
        self.served = Served(db_path, client)
        self.pattern_timeout = pattern_timeout

    @staticmethod
    def default_size(generation: Generation) -> int:
        """The size of most games in the index (19 for an empty one)."""
        sizes = generation.sizes()
        if not sizes:
            return 19
        return max(sizes, key=lambda size: (sizes[size], size))

    def query(self, params: dict[str, str], generation: Generation) -> Query:
        size = int_param(params, "size", self.default_size(generation), 1, 26)
        steps = parse_steps(params.get("moves", ""), size)
        replayed = replay(steps, size)
        symmetry = choice_param(params, "symmetry", ("full", "d4")) or "full"
        # to_move as the library takes it; turn (0: any, 1: query) is its older name.
        turn = {"0": "any", "1": "query", None: None}[choice_param(params, "turn", ("0", "1"))]
        to_move = choice_param(params, "to_move", ("b", "w", "any", "query")) or turn or "query"
        return Query(
            size, format_steps(steps, size), replayed, filter_params(params), symmetry,
            replayed.board.to_move if to_move == "query" else to_move,
            choice_param(params, "order", ORDERS),
        )

    def info(self) -> dict[str, Any]:
        with self.served.use() as generation:
            sizes = generation.sizes()
            return {
                **generation.info().to_json(paths=False),
                "sizes": {str(size): count for size, count in sorted(sizes.items())},
                "default_size": self.default_size(generation),
                "filters": [spec.to_json() for spec in FILTERS],
            }

    def position(self, params: dict[str, str]) -> dict[str, Any]:
        limit = int_param(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE)
        setup = choice_param(params, "setup", SETUP) or "exclude"
        with self.served.use() as generation, generation.queries.use() as index:
            query = self.query(params, generation)
            found = index.continuations(
                query.replayed.board, symmetry=query.symmetry, filters=query.filters,
                to_move=query.to_move, limit=MAX_CONTINUATIONS, setup=setup,
            )
            return {
                **board_json(query.replayed, query.size, query.moves),
                "continuations": found.to_json(),
                "games": self._games(index, query, 0, limit),
            }

    def games(self, params: dict[str, str]) -> dict[str, Any]:
        offset = int_param(params, "offset", 0, 0, 10**9)
        limit = int_param(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE)
        with self.served.use() as generation, generation.queries.use() as index:
            return self._games(index, self.query(params, generation), offset, limit)

    @staticmethod
    def _games(index: Index | ShardedIndex, query: Query, offset: int,
               limit: int) -> dict[str, Any]:
        found = index.find(
            query.replayed.board, symmetry=query.symmetry,
            filters=query.filters, to_move=query.to_move, offset=offset, limit=limit,
            order=query.order,
        )
        return found.to_json(paths=False)

    def player(self, params: dict[str, str]) -> dict[str, Any]:
        name = params.get("name", "")
        if not name or len(name) > MAX_NAME_CHARS:
            raise BadRequest(f"name must be a player's name of 1 to {MAX_NAME_CHARS} characters")
        offset = int_param(params, "offset", 0, 0, 10**9)
        limit = int_param(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE)
        order = choice_param(params, "order", ORDERS) or "-date"
        with self.served.use() as generation, generation.queries.use() as index:
            summary = index.player(name, order=order)
        return summary.page(offset, limit).to_json(paths=False)

    def players(self, params: dict[str, str]) -> dict[str, Any]:
        """The players whose name holds ``q`` (:meth:`Index.players
        <gohash.index.index.Index.players>`), for the page's search box."""
        text = params.get("q", "")
        if not text.strip() or len(text) > MAX_NAME_CHARS:
            raise BadRequest(f"q must be part of a name, 1 to {MAX_NAME_CHARS} characters")
        limit = int_param(params, "limit", MAX_PLAYERS, 1, MAX_PLAYERS)
        with self.served.use() as generation, generation.queries.use() as index:
            found = index.players(text, limit=limit)
        return {"query": text, "players": [m.to_json() for m in found]}

    def pattern(self, params: dict[str, str], cancel: threading.Event) -> dict[str, Any]:
        """The hits and continuations of the pattern ``diagram`` (rows separated by
        new lines, as :func:`gohash.pattern.diagram.parse_pattern` reads them),
        searched within the time budget; stopped when ``cancel`` is set."""
        diagram = params.get("diagram")
        if not diagram:
            raise BadRequest("diagram is missing: a pattern diagram, one line per row")
        with self.served.use() as generation, generation.patterns.use() as index:
            found = index.pattern(
                diagram, symmetry=choice_param(params, "symmetry", SYMMETRIES) or "full",
                to_move=choice_param(params, "to_move", ("b", "w")),
                max_move=(int_param(params, "max_move", -1, 0, 10**6) if "max_move" in params
                          else None),
                sequence=params.get("sequence", ""), filters=filter_params(params),
                limit=int_param(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE),
                offset=int_param(params, "offset", 0, 0, 10**9),
                timeout=self.pattern_timeout, cancel=cancel,
            )
        answer = found.to_json(paths=False)
        answer["continuations"] = answer["continuations"][:MAX_CONTINUATIONS]
        return answer
