"""``gohash serve``: the position explorer, a web page over an index, as a Starlette app.

Scope: :func:`create_app` and its JSON endpoints; the page itself is static
(``gohash/explorer/static/``: one HTML, one script, one style sheet).  The index is
opened read-only, and followed when it is replaced or grows
(:mod:`gohash.explorer.indexes`); pattern searches and game reads run in lanes
with bounded queues (:mod:`gohash.explorer.work`).  :func:`listen` binds the
port first (a busy port is one clear error, before anything is printed) and
:func:`run_app` serves the app with uvicorn on that socket; the command line
(:mod:`gohash.cli.serve`) only parses its arguments and prints the address.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import os
import shutil
import socket
import tempfile
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

import h11
import numpy as np
import numpy.typing as npt
import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..errors import (
    BadRequest,
    GohashError,
    IndexFileError,
    MoveListError,
    QueryCancelled,
    QueryTooBroad,
    ServerBusy,
    UnknownGameError,
)
from ..group.symmetry import Element, Point, element
from ..index.index import Index
from ..index.movelist import MAX_STEPS, Replay, format_steps, parse_steps, point_letters, replay
from ..index.queries import FILTERS, GAME_ORDERS, SETUP, Filters, GameRecord
from ..index.shards import ShardedIndex
from ..pattern.diagram import SYMMETRIES
from ..pipeline.pool import WorkerPool
from ..sgf.names import fs_name
from .indexes import Generation, Identity, Served, file_identity, open_index
from .work import Lane

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "DEFAULT_GAME_PAGE",
    "DEFAULT_PAGE",
    "GAME_CACHE_BYTES",
    "GAME_READS_WAITING",
    "MAX_CONTINUATIONS",
    "MAX_GAME_PAGE",
    "MAX_GAME_READS",
    "MAX_PAGE",
    "MAX_QUERY_BYTES",
    "PATTERNS_WAITING",
    "PATTERN_SEARCHES",
    "PATTERN_TIMEOUT",
    "REQUEST_TIMEOUT",
    "RETRY_AFTER",
    "create_app",
    "listen",
    "run_app",
    "server_config",
]

DEFAULT_PAGE = 20
"""Games per page unless ``limit`` says otherwise."""
MAX_PAGE = 200
"""The largest page of games one request may ask for."""
MAX_CONTINUATIONS = 52
"""Continuations listed (the page labels them a-z, A-Z); the counts cover them all."""
MAX_QUERY_BYTES = 16 * 1024
"""The longest query string accepted (a 2,000-step move list takes some 8 KiB)."""
MAX_FILTER_CHARS = 200
"""The longest value a filter may give (a player's name, an event, a place)."""
DEFAULT_GAME_PAGE = 200
"""Positions of a game per answer unless ``count`` says otherwise."""
MAX_GAME_PAGE = 500
"""The most positions of a game one answer holds (some 230 KB of JSON on 19x19)."""
MAX_GAME_READS = 2
"""Worker processes reading games again from their files; more requests wait."""
GAME_READS_WAITING = 16
"""Game reads that may wait for a worker; more are refused (503) until one ends."""
PATTERN_SEARCHES = 1
"""Pattern searches run at once, on the one connection that keeps the pattern
files' maps and the inverted filter (:mod:`gohash.index.patterns`); each scans
its candidates in two threads of its own."""
PATTERNS_WAITING = 8
"""Pattern searches that may wait for their turn; more are refused (503)."""
PATTERN_TIMEOUT = 5.0
"""Seconds a pattern search may take by default (``gohash serve --timeout``); then
it is answered 422, too broad."""
RETRY_AFTER = 2
"""Seconds a refused request is told to wait (``Retry-After``)."""
GAME_CACHE_BYTES = 32 * 1024 * 1024
"""Bytes of replayed games (estimated) each of those workers keeps, so that the
pages of a game are not each a new read and replay: a game of 300 moves on 19x19
takes some 200 KB; one larger than this (some 50,000 positions) is read again
for every page."""
REQUEST_TIMEOUT = 10.0
"""Seconds a connection may take to send a whole request (from its opening, or
the end of the previous answer); then it is closed."""
SHUTDOWN_TIMEOUT = 5
"""Seconds a stopping server waits for the requests under way (a game read again
can take minutes); then it cancels them and stops the workers."""
MAX_HEAD_BYTES = MAX_QUERY_BYTES + 16 * 1024
"""The longest request line and headers read: the longest query string, and room
for a browser's headers."""
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The page's scripts, styles and requests are the server's own; it may not be framed."""
_SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}

_CELLS = bytes.maketrans(b"\x00\x01\x02", b".XO")
_FILTER_PARAMS = tuple(spec.name for spec in FILTERS)
_POSITION_PARAMS = ("size", "moves", *_FILTER_PARAMS, "symmetry", "turn")
_PATTERN_PARAMS = ("diagram", "symmetry", "to_move", "max_move", "sequence", *_FILTER_PARAMS,
                   "offset", "limit")


# -- query parameters ---------------------------------------------------------------------------


def _params(request: Request, allowed: tuple[str, ...]) -> dict[str, str]:
    """The query parameters, each at most once and each one of ``allowed``."""
    raw: bytes = request.scope.get("query_string", b"")
    if len(raw) > MAX_QUERY_BYTES:
        raise BadRequest(f"the query string has {len(raw)} bytes; at most {MAX_QUERY_BYTES}", 414)
    params: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name not in allowed:
            raise BadRequest(
                f"unknown parameter {name[:40]!r} (this endpoint takes "
                f"{', '.join(allowed) or 'none'})"
            )
        if name in params:
            raise BadRequest(f"parameter {name!r} given twice")
        params[name] = value
    return params


def _int(params: dict[str, str], name: str, default: int, low: int, high: int) -> int:
    text = params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit() and len(text) <= 9):
        raise BadRequest(f"{name} must be a whole number, not {text[:40]!r}")
    value = int(text)
    if not low <= value <= high:
        raise BadRequest(f"{name} must be between {low} and {high}, not {value}")
    return value


def _choice(params: dict[str, str], name: str, choices: tuple[str, ...]) -> str | None:
    value = params.get(name)
    if value is None or value == "":
        return None
    if value not in choices:
        raise BadRequest(f"{name} must be one of {', '.join(choices)}, not {value[:40]!r}")
    return value


def _filters(params: dict[str, str]) -> Filters | None:
    """The filters the parameters give (empty values are no filter), None if none."""
    values: dict[str, object] = {}
    for spec in FILTERS:
        text = params.get(spec.name)
        if not text:
            continue
        if len(text) > MAX_FILTER_CHARS:
            raise BadRequest(f"{spec.name} has {len(text)} characters; at most "
                             f"{MAX_FILTER_CHARS}")
        values[spec.name] = spec.parse(text)
    return Filters.from_values(values)


# -- the explorer --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Query:
    """A position as the page sends it, replayed, with the search options."""

    size: int
    moves: str
    replayed: Replay
    filters: Filters | None
    symmetry: str
    to_move: str
    order: str | None


_ORDERS = tuple(o for name in GAME_ORDERS for o in (name, "-" + name))
MAX_NAME_CHARS = 200
"""The longest player's name the player page takes."""
MAX_PLAYERS = 50
"""The most players a search by part of a name (``/api/players``) answers with."""


class _Explorer:
    """The index (:class:`~gohash.explorer.indexes.Served`: the file at the path
    now, one at a time) and the answers built from it."""

    def __init__(self, db_path: str, pattern_timeout: float | None) -> None:
        self.served = Served(db_path)
        self.pattern_timeout = pattern_timeout

    @staticmethod
    def default_size(generation: Generation) -> int:
        """The size of most games in the index (19 for an empty one)."""
        sizes = generation.sizes()
        if not sizes:
            return 19
        return max(sizes, key=lambda size: (sizes[size], size))

    def query(self, params: dict[str, str], generation: Generation) -> _Query:
        size = _int(params, "size", self.default_size(generation), 1, 26)
        steps = parse_steps(params.get("moves", ""), size)
        replayed = replay(steps, size)
        symmetry = _choice(params, "symmetry", ("full", "d4")) or "full"
        turn = _choice(params, "turn", ("0", "1"))
        return _Query(
            size, format_steps(steps, size), replayed, _filters(params), symmetry,
            "any" if turn == "0" else replayed.board.to_move, _choice(params, "order", _ORDERS),
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
        limit = _int(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE)
        setup = _choice(params, "setup", SETUP) or "exclude"
        with self.served.use() as generation, generation.queries.use() as index:
            query = self.query(params, generation)
            found = index.continuations(
                query.replayed.board, symmetry=query.symmetry, filters=query.filters,
                to_move=query.to_move, limit=MAX_CONTINUATIONS, setup=setup,
            )
            key = index.keys(query.size).hex(found.key)
            return {
                **_board_json(query),
                "continuations": found.to_json(key),
                "games": self._games(index, query, 0, limit),
            }

    def games(self, params: dict[str, str]) -> dict[str, Any]:
        offset = _int(params, "offset", 0, 0, 10**9)
        limit = _int(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE)
        with self.served.use() as generation, generation.queries.use() as index:
            return self._games(index, self.query(params, generation), offset, limit)

    @staticmethod
    def _games(index: Index | ShardedIndex, query: _Query, offset: int,
               limit: int) -> dict[str, Any]:
        found = index.find(
            query.replayed.board, colour_swap=query.symmetry == "full",
            filters=query.filters, to_move=query.to_move, offset=offset, limit=limit,
            order=query.order,
        )
        return found.to_json(index.keys(query.size).hex(found.key), paths=False)

    def player(self, params: dict[str, str]) -> dict[str, Any]:
        name = params.get("name", "")
        if not name or len(name) > MAX_NAME_CHARS:
            raise BadRequest(f"name must be a player's name of 1 to {MAX_NAME_CHARS} characters")
        offset = _int(params, "offset", 0, 0, 10**9)
        limit = _int(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE)
        order = _choice(params, "order", _ORDERS) or "-date"
        with self.served.use() as generation, generation.queries.use() as index:
            summary = index.player(name, order=order)
        return summary.to_json(offset, limit, paths=False)

    def players(self, params: dict[str, str]) -> dict[str, Any]:
        """The players whose name holds ``q`` (:meth:`Index.players
        <gohash.index.index.Index.players>`), for the page's search box."""
        text = params.get("q", "")
        if not text.strip() or len(text) > MAX_NAME_CHARS:
            raise BadRequest(f"q must be part of a name, 1 to {MAX_NAME_CHARS} characters")
        limit = _int(params, "limit", MAX_PLAYERS, 1, MAX_PLAYERS)
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
                diagram, symmetry=_choice(params, "symmetry", SYMMETRIES) or "full",
                to_move=_choice(params, "to_move", ("b", "w")),
                max_move=_int(params, "max_move", -1, 0, 10**6) if "max_move" in params else None,
                sequence=params.get("sequence", ""), filters=_filters(params),
                limit=_int(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE),
                offset=_int(params, "offset", 0, 0, 10**9),
                timeout=self.pattern_timeout, cancel=cancel,
            )
        answer = found.to_json(paths=False)
        answer["continuations"] = answer["continuations"][:MAX_CONTINUATIONS]
        return answer


class _GameReader:
    """Games rebuilt from the index, their comments read from their files, in worker
    processes of their own (:class:`~gohash.pipeline.pool.WorkerPool`), at most
    :data:`MAX_GAME_READS` at once and :data:`GAME_READS_WAITING` more queued
    (:class:`~gohash.explorer.work.Lane`): the work (decompressing an archive for the
    comments, replaying and converting a long game)
    takes neither the server's interpreter lock nor its memory.  Workers start
    at the first game asked for, and each keeps its own read-only connection to
    the index, to the file the server answers from.  A worker that dies (out of
    memory) fails its request with a 503, and the next request gets new
    workers; :meth:`close` stops them at once, reads under way included."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self.lane = Lane("game reads", MAX_GAME_READS, GAME_READS_WAITING, RETRY_AFTER)
        self._pool: WorkerPool | None = None
        self._folder: str | None = None
        self._lock = threading.Lock()

    async def answer(self, request: Request, game_id: int, view: Element, start: int,
                     count: int, at: int | None) -> Response:
        """The page ``start``, ``count`` of a game, or with ``at`` its steps to ``at``."""
        outcome = await self._run(request, game_id, _read_game, view.name, start, count, at)
        return Response(outcome["answer"], media_type="application/json")

    async def sgf(self, request: Request, game_id: int) -> Response:
        """The game as an SGF record of its own (:meth:`Index.sgf
        <gohash.index.index.Index.sgf>`), as a download."""
        outcome = await self._run(request, game_id, _read_sgf)
        # The name as UTF-8 (RFC 6266), and in ASCII for clients that do not read that.
        name = outcome["name"]
        ascii_name = name.encode("ascii", "replace").decode().replace("?", "_").replace('"', "_")
        return Response(
            outcome["sgf"].encode("utf-8"), media_type="application/x-go-sgf",
            headers={"content-disposition": f'attachment; filename="{ascii_name}"; '
                                            f"filename*=UTF-8''{urllib.parse.quote(name)}"},
        )

    async def _run(self, request: Request, game_id: int, task: Callable[..., dict[str, Any]],
                   *args: object) -> dict[str, Any]:
        """``task(db_path, identity, game_id, *args)`` in a worker; its outcome, or
        its error raised."""
        with self._lock:
            if self._pool is None:
                if self._folder is None:
                    self._folder = tempfile.mkdtemp(prefix="gohash-serve-")
                self._pool = WorkerPool(MAX_GAME_READS, self._folder)
            pool = self._pool

        def submit() -> Future[dict[str, Any]]:
            with self.served.use() as generation:
                return pool.executor.submit(task, self.served.path, generation.identity,
                                            game_id, *args)

        try:
            # Submitted from a thread: a submission may start a worker process,
            # which would hold up the event loop.
            outcome: dict[str, Any] = await self.lane.call(
                request, lambda cancel: run_in_threadpool(submit))
        except BrokenProcessPool:
            with self._lock:
                if self._pool is pool:
                    self._pool = None
            pool.close()
            raise BadRequest(
                f"reading game {game_id} again stopped its worker process "
                f"({pool.death()})", 503
            ) from None
        if "error" in outcome:
            raise BadRequest(outcome["error"], outcome["status"])
        return outcome

    def close(self) -> None:
        self.lane.close()
        with self._lock:
            pool, self._pool = self._pool, None
            folder, self._folder = self._folder, None
        if pool is not None:
            pool.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


_WORKER_INDEXES: dict[str, tuple[Identity, Index | ShardedIndex]] = {}
"""In a worker process of :class:`_GameReader`: its connection to each index, and
the identity of the file it opened."""

# (path, size, modification and change times, inode) of files that exist.
_Identity = tuple[tuple[str, int, int, int, int], ...]


def _identity(paths: Iterable[str]) -> _Identity:
    found = []
    for path in dict.fromkeys(paths):
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            continue
        found.append((path, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino))
    return tuple(found)


def _game_files(db_path: str, name: str) -> list[str]:
    """Every file that :meth:`~gohash.index.Index.game` could read a game stored
    under ``name`` from: the name as given and from the index's folder, as
    stored and with its escaped bytes restored, and for each the part before any
    colon (an archive member is stored as ``archive:member``)."""
    paths = []
    for candidate in (name, os.path.join(os.path.dirname(os.path.abspath(db_path)), name)):
        for variant in (candidate, fs_name(candidate)):
            paths += [variant[:i] for i, c in enumerate(variant + ":") if c == ":" and i]
    return paths


def _identities(db_path: str, name: str) -> tuple[_Identity, _Identity]:
    """The identity of the index's files, and of the files of the game stored under ``name``."""
    return _identity((db_path, db_path + "-wal")), _identity(_game_files(db_path, name))


class _GameCache:
    """Games rebuilt and replayed in one worker process, the least recently
    used dropped first to keep their estimated size (:func:`_game_bytes`) within
    ``max_bytes``; a larger game is not kept.  A game is kept with the identity
    (path, size, times and inode) of its index and of every file it could have
    been read from (its comments come from it): a game whose file or index
    changed is read again.  A game
    whose file changed less than ``settled_ns`` nanoseconds before its read is
    not kept: a change between the read and the look at the file's identity
    would go unseen, and file times can lag the clock by the file system's
    granularity (two seconds on FAT)."""

    def __init__(self, max_bytes: int, settled_ns: int = 2_000_000_000) -> None:
        self.max_bytes = max_bytes
        self.settled_ns = settled_ns
        self.bytes = 0
        self._games: OrderedDict[
            tuple[str, int], tuple[tuple[_Identity, _Identity], GameRecord, int]
        ] = OrderedDict()

    def game(self, index: Index | ShardedIndex, db_path: str, game_id: int) -> GameRecord:
        key = (db_path, game_id)
        kept = self._games.pop(key, None)
        if kept is not None:
            self.bytes -= kept[2]
            identity, game, size = kept
            if _identities(db_path, game.record.file) == identity:
                self._keep(key, identity, game, size)
                return game
        began = time.time_ns()
        game = index.game(game_id)
        identity = _identities(db_path, game.record.file)
        # The index is served read-only: its files (a connection that opens makes
        # the write-ahead log anew) only tell whether it was replaced.
        if all(ctime < began - self.settled_ns for _, _, _, ctime, _ in identity[1]):
            self._keep(key, identity, game, _game_bytes(game))
        return game

    def _keep(self, key: tuple[str, int], identity: tuple[_Identity, _Identity],
              game: GameRecord, size: int) -> None:
        if size > self.max_bytes:
            return
        while self._games and self.bytes + size > self.max_bytes:
            self.bytes -= self._games.popitem(last=False)[1][2]
        self._games[key] = identity, game, size
        self.bytes += size


def _game_bytes(game: GameRecord) -> int:
    """An estimate of the memory a game read again holds: its positions' stones
    and :data:`_POSITION_OVERHEAD` bytes for each position's objects."""
    size = game.record.size
    return len(game.positions) * (size * size + _POSITION_OVERHEAD)


_POSITION_OVERHEAD = 300
"""Bytes of Python objects per position of a game read again (its dataclass, tuple
and integers: some 265 by tracemalloc)."""
_WORKER_GAMES = _GameCache(GAME_CACHE_BYTES)
"""In a worker process of :class:`_GameReader`: the games it read last."""


def _worker_index(db_path: str, identity: Identity) -> Index | ShardedIndex:
    """A connection to the index file of ``identity`` at ``db_path``, the one the
    server answers from; a 503 if another file took its place meanwhile."""
    kept = _WORKER_INDEXES.pop(db_path, None)
    if kept is not None:
        if kept[0] == identity:
            _WORKER_INDEXES[db_path] = kept
            return kept[1]
        kept[1].close()
    index = open_index(db_path)
    if file_identity(db_path) != identity:
        index.close()
        raise BadRequest("the index was replaced while answering: ask again", 503)
    _WORKER_INDEXES[db_path] = identity, index
    return index


def _read_game(
    db_path: str, identity: Identity, game_id: int, view_name: str, start: int, count: int,
    at: int | None,
) -> dict[str, Any]:
    """In a worker process: ``{"answer": JSON}``, the page or steps of the game as
    UTF-8 JSON (made here, not in the server's event loop), or
    ``{"error": message, "status": status}``."""
    try:
        game = _WORKER_GAMES.game(_worker_index(db_path, identity), db_path, game_id)
        view = element(view_name)
        if at is None:
            return {"answer": _json(_game_json(game, view, start, count))}
        if at >= len(game.positions):
            raise BadRequest(f"at must be below {len(game.positions)}, not {at}")
        return {"answer": _json(_steps_json(game, view, at))}
    except GohashError as e:
        return _failed(e, game_id)


def _read_sgf(db_path: str, identity: Identity, game_id: int) -> dict[str, Any]:
    """In a worker process: ``{"sgf": text}``, the game as an SGF record of its own,
    or ``{"error": message, "status": status}``."""
    try:
        index = _worker_index(db_path, identity)
        return {"sgf": index.sgf(game_id), "name": index.sgf_name(game_id)}
    except GohashError as e:
        return _failed(e, game_id)


def _failed(error: GohashError, game_id: int) -> dict[str, Any]:
    """The answer to a game that cannot be served: its message (which names the
    game, never a file: paths are the server's) and HTTP status."""
    if isinstance(error, BadRequest):
        return {"error": str(error), "status": error.status}
    if isinstance(error, UnknownGameError):
        return {"error": error.reason, "status": 404}  # the reason names the id
    # The index holds every game it serves (its file is read only for the
    # comments and the download as recorded, with the index's copy when the
    # file is gone), so what is left is an index that became unreadable.
    status = 503 if isinstance(error, IndexFileError) else 500
    return {"error": f"game {game_id}: {error.reason}", "status": status}


# -- JSON ------------------------------------------------------------------------------------


def _letters(point: Point | None, size: int) -> str | None:
    return None if point is None else point_letters(point, size)


def _rows(cells: bytes, size: int) -> list[str]:
    """Rows of ``.XO``, the top row first, from cells (0 empty, 1 black, 2 white) in
    index order (row 0 at the bottom)."""
    text = cells.translate(_CELLS).decode("ascii")
    return [text[row * size : (row + 1) * size] for row in range(size - 1, -1, -1)]


def _board_json(query: _Query) -> dict[str, Any]:
    replayed = query.replayed
    board = replayed.board
    return {
        "size": query.size,
        "moves": query.moves,
        "to_move": board.to_move,
        "move_number": board.move_number,
        "stones": _rows(board.stones(), query.size),
        "last": _letters(replayed.last_play, query.size),
        "ko": _letters(board.ko_point, query.size),
        "captured": replayed.captured,
    }


def _json(answer: dict[str, Any]) -> bytes:
    """An answer as the server's JSON responses render it."""
    return bytes(JSONResponse(answer).body)


def _game_json(game: GameRecord, view: Element, start: int, count: int) -> dict[str, Any]:
    """Positions ``start`` to ``start + count`` of the game seen through ``view``: per
    position its rows, move number and last move; and how many positions there are."""
    size = game.record.size
    page = game.positions[start : start + count]
    positions, last = [], []
    for position in page:
        stones = view.image_array(position.stones)
        positions.append(_rows(stones.astype(np.uint8).tobytes(), size))
        point = None if position.point is None else view.map_point(position.point, size)
        last.append(None if position.colour is None else _letters(point, size))
    return {
        **game.record.to_json(paths=False),
        "root": game.root,
        "view": view.name,
        "colours_exchanged": view.swap,
        "positions_total": len(game.positions),
        "final_move_number": game.positions[-1].move_number if game.positions else 0,
        "start": start,
        "positions": positions,
        "move_numbers": [position.move_number for position in page],
        "last": last,
        "comments": game.comments[start : start + count] if game.comments else None,
    }


def _steps_json(game: GameRecord, view: Element, at: int) -> dict[str, Any]:
    """The move list to position ``at`` of the game seen through ``view``: its moves,
    and edit steps for its setup; refused when longer than the explorer takes."""
    size = game.record.size
    steps: list[str] = []
    previous: npt.NDArray[np.integer[Any]] = np.zeros((size, size), dtype=np.int8)
    for position in game.positions[: at + 1]:
        stones = view.image_array(position.stones)
        if position.colour is not None and not position.setup:
            point = None if position.point is None else view.map_point(position.point, size)
            colour = view.map_colour(position.colour)
            steps.append(colour + ("pass" if point is None else point_letters(point, size)))
        elif not np.array_equal(stones, previous):
            steps += _edits(previous, stones, size)
        if len(steps) > MAX_STEPS:
            raise BadRequest(
                f"position {at} of game {game.record.id} takes more than {MAX_STEPS} steps; "
                "the explorer takes at most that many"
            )
        previous = stones
    return {"game_id": game.record.id, "size": size, "view": view.name, "at": at, "steps": steps}


def _edits(
    before: npt.NDArray[np.integer[Any]], after: npt.NDArray[np.integer[Any]], size: int
) -> list[str]:
    """Edit steps from one position to another: clearings first, then new stones, so
    every group on the board keeps a liberty at every step of the way."""
    changed = [(int(r), int(c)) for r, c in zip(*np.nonzero(before != after), strict=True)]
    cleared = [p for p in changed if after[p] == 0]
    placed = [p for p in changed if after[p] != 0]
    return ["E" + point_letters(p, size) for p in cleared] + [
        "BW"[after[p] - 1] + point_letters(p, size) for p in placed
    ]


# -- the app ---------------------------------------------------------------------------------

Handler = Callable[..., dict[str, Any]]
Endpoint = Callable[[Request], Awaitable[Response]]


def _endpoint(allowed: tuple[str, ...], handler: Handler) -> Endpoint:
    """An endpoint that checks the query parameters and runs ``handler(params)``
    in a worker thread (it replays boards and reads SQLite)."""

    async def run(request: Request) -> Response:
        params = _params(request, allowed)
        return JSONResponse(await run_in_threadpool(handler, params))

    return run


def create_app(
    db_path: str | os.PathLike[str], *, allowed_hosts: Iterable[str] = (),
    pattern_timeout: float | None = PATTERN_TIMEOUT,
) -> Starlette:
    """The explorer over the index at ``db_path``, opened read-only.

    Requests are answered when their ``Host`` is ``localhost``, an IP address, or
    one of ``allowed_hosts`` (names, compared without case; the server's own
    name if it is served under one); others get a 400.  A pattern search gets
    ``pattern_timeout`` seconds (None: no limit), then answers 422.

    Raises :class:`~gohash.index.store.IndexFileError` at once if it is not a usable index.
    """
    explorer = _Explorer(os.fspath(db_path), pattern_timeout)
    reader = _GameReader(explorer.served)
    patterns = Lane("pattern searches", PATTERN_SEARCHES, PATTERNS_WAITING, RETRY_AFTER)

    def info(params: dict[str, str]) -> dict[str, Any]:
        return explorer.info()

    async def pattern(request: Request) -> Response:
        params = _params(request, _PATTERN_PARAMS)
        return JSONResponse(await patterns.run(request, partial(explorer.pattern, params)))

    def game_of(request: Request, allowed: tuple[str, ...]) -> tuple[int, Element, dict[str, str]]:
        params = _params(request, allowed)
        game_id: str = request.path_params["game_id"]
        if not (game_id.isascii() and game_id.isdigit() and len(game_id) <= 18):
            raise BadRequest(f"a game id is a whole number, not {game_id[:40]!r}")
        return int(game_id), element(params.get("view", "identity")), params

    async def game(request: Request) -> Response:
        game_id, view, params = game_of(request, ("view", "start", "count"))
        start = _int(params, "start", 0, 0, 10**9)
        count = _int(params, "count", DEFAULT_GAME_PAGE, 1, MAX_GAME_PAGE)
        return await reader.answer(request, game_id, view, start, count, None)

    async def steps(request: Request) -> Response:
        game_id, view, params = game_of(request, ("view", "at"))
        at = _int(params, "at", 0, 0, 10**9)
        return await reader.answer(request, game_id, view, 0, 0, at)

    async def sgf(request: Request) -> Response:
        game_id, _, _ = game_of(request, ())
        return await reader.sgf(request, game_id)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        patterns.close()
        reader.close()

    async def page(request: Request) -> Response:
        # The page's own parameters are read by its script, which reports bad ones.
        return await static.get_response("index.html", request.scope)

    static = StaticFiles(packages=[("gohash.explorer", "static")])
    routes = [
        Route("/", page),
        Route("/api/info", _endpoint((), info)),
        Route("/api/position",
              _endpoint((*_POSITION_PARAMS, "order", "limit", "setup"), explorer.position)),
        Route("/api/games",
              _endpoint((*_POSITION_PARAMS, "order", "offset", "limit"), explorer.games)),
        Route("/api/player", _endpoint(("name", "order", "offset", "limit"), explorer.player)),
        Route("/api/players", _endpoint(("q", "limit"), explorer.players)),
        Route("/api/pattern", pattern),
        Route("/api/game/{game_id}", game),
        Route("/api/game/{game_id}/steps", steps),
        Route("/api/game/{game_id}/sgf", sgf),
        Mount("/static", static, name="static"),
    ]
    app = _App(
        routes=routes,
        middleware=[Middleware(GZipMiddleware, minimum_size=2048)],
        exception_handlers={GohashError: _gohash_error, HTTPException: _http_error},
        lifespan=lifespan,
    )
    app.hosts = frozenset(h.lower().rstrip(".") for h in allowed_hosts)
    app.state.index = explorer.served.current.watch
    app.state.served = explorer.served
    app.state.patterns = patterns
    app.state.reader = reader
    return app


class _App(Starlette):
    """Starlette with :class:`_Guard` outermost, around Starlette's own error
    middleware: the 500 that answers an unexpected exception is sent past every
    middleware given to Starlette, and must carry the security headers too."""

    hosts: frozenset[str] = frozenset()
    """The names answered besides ``localhost`` and IP addresses."""

    def build_middleware_stack(self) -> ASGIApp:
        return _Guard(super().build_middleware_stack(), self.hosts)


async def _gohash_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GohashError)
    answer: dict[str, Any] = {"error": exc.reason}
    headers = {}
    if isinstance(exc, BadRequest):
        status = exc.status
        if isinstance(exc, ServerBusy):
            headers["retry-after"] = str(exc.retry_after)
    elif isinstance(exc, IndexFileError):
        status = 503  # the index became unreadable while serving: not the request's fault
    elif isinstance(exc, QueryTooBroad):
        status = 422
        answer.update(scanned=exc.scanned, total=exc.total, hits=exc.hits)
    elif isinstance(exc, QueryCancelled):
        status = 499  # no one reads it: the client went away
    else:
        status = 400
    # Without the file: the index's path is the server's, not the page's.
    if isinstance(exc, MoveListError) and exc.refusal is not None:
        answer.update(step=exc.step, refusal=exc.refusal)  # shown beside the board
    return JSONResponse(answer, status_code=status, headers=headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code)



# -- listening -----------------------------------------------------------------------------------


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host`` and ``port`` (0: any free port) and
    listening, for :func:`run_app`: bound before anything is printed or served,
    so that a busy port is one clear :class:`~gohash.errors.GohashError`
    (naming the port and ``--port``), and no other process can take the port
    between the check and the serving."""
    # As uvicorn decides: IPv6 for an address with a colon, IPv4 for anything else.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise GohashError(f"cannot listen on {host!r}: {e.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as e:
        sock.close()
        where = f"port {port} on {host}"
        if e.errno == errno.EADDRINUSE:
            raise GohashError(f"{where} is in use: choose another with --port N") from None
        if e.errno == errno.EACCES:
            raise GohashError(f"{where} is not open to this user: choose another with --port N "
                              "(ports below 1024 need privileges)") from None
        raise GohashError(f"cannot listen on {where}: {e.strerror}") from None
    return sock


def run_app(app: Starlette, sock: socket.socket) -> None:
    """Serve ``app`` with uvicorn on the listening socket ``sock`` (:func:`listen`);
    return when Ctrl-C stops it (uvicorn shuts down, then raises the interrupt
    again: here it is the expected end, not an error).  The socket is closed
    afterwards."""
    with sock:
        server = uvicorn.Server(server_config(app))
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[sock])


# -- hostile clients -------------------------------------------------------------------------


def _host_allowed(host: str | None, names: frozenset[str]) -> bool:
    """Whether a ``Host`` header names this server: ``localhost``, an IP address (a
    DNS-rebinding page can only reach the server under a name), or one of ``names``;
    with or without a port."""
    if not host:
        return False
    host = host.strip().lower()
    if host.startswith("["):  # an IPv6 address
        name, bracket, rest = host[1:].partition("]")
        if not bracket or rest[:1] not in ("", ":"):
            return False
        port = rest[1:]
    else:
        name, _, port = host.partition(":")
    if port and not (port.isascii() and port.isdigit()):
        return False
    name = name.rstrip(".")
    if name == "localhost" or name in names:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class _Guard:
    """Refuses requests for other hosts with 400 and adds the security headers to
    every answer."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in _SECURITY_HEADERS.items():
                    headers[name] = value
            await send(message)

        host = Headers(scope=scope).get("host")
        if not _host_allowed(host, self.hosts):
            refused = JSONResponse(
                {"error": f"this server does not answer for the host {host!r} "
                          "(gohash serve --allow-host NAME names one)"},
                status_code=400,
            )
            await refused(scope, receive, send_secured)
            return
        await self.app(scope, receive, send_secured)


class _Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request: the request
    line, headers and body must arrive within :attr:`request_timeout` seconds of
    the connection's opening or of the previous answer's end, or the connection
    is closed.  uvicorn's keep-alive timeout covers an idle connection only: one
    byte resets it, so a client sending a header a byte at a time held a
    connection for ever."""

    request_timeout = REQUEST_TIMEOUT
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # the whole request is in (or the connection is ending)

    def on_response_complete(self) -> None:
        # Armed first: the next pipelined request, if any, is read at once and disarms it.
        self._arm()
        super().on_response_complete()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def server_config(
    app: ASGIApp, *, host: str = "127.0.0.1", port: int = 8000,
    request_timeout: float = REQUEST_TIMEOUT,
) -> uvicorn.Config:
    """uvicorn's settings for ``app`` on ``host``:``port``: the request deadline of
    ``request_timeout`` seconds, request heads of at most :data:`MAX_HEAD_BYTES`,
    :data:`SHUTDOWN_TIMEOUT` seconds to stop, warnings only in the log."""
    protocol = type("_TimedProtocol", (_Protocol,), {"request_timeout": request_timeout})
    return uvicorn.Config(
        app, host=host, port=port, http=protocol, log_level="warning", server_header=False,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=SHUTDOWN_TIMEOUT,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
    )
