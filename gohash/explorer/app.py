"""``gohash serve``: the position explorer, a web page over an index, as a Starlette app.

Scope: :func:`create_app`, its routes and the HTTP status of each error; the
page itself is static (``gohash/explorer/static/``: one HTML, its script
modules, one style sheet).  The index is opened read-only, and followed when it
is replaced or grows (:mod:`gohash.explorer.indexes`); the answers come from
:mod:`gohash.explorer.answers` and, for games, :mod:`gohash.explorer.games`;
pattern searches and game reads run in lanes with bounded queues
(:mod:`gohash.explorer.work`).  :func:`listen` and :func:`run_app`
(:mod:`gohash.explorer.server`) serve it; the command line
(:mod:`gohash.cli.serve`) only parses its arguments and prints the address.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from ..errors import (
    BadRequest,
    GohashError,
    IndexFileError,
    MoveListError,
    QueryCancelled,
    QueryTooBroad,
    ServerBusy,
)
from ..group.symmetry import Element, element
from .answers import Explorer
from .games import DEFAULT_GAME_PAGE, MAX_GAME_PAGE, GameReader
from .indexes import index_status
from .params import FILTER_PARAMS, int_param, query_params
from .server import Guard, listen, run_app, server_config
from .work import RETRY_AFTER, Lane

__all__ = [
    "PATTERNS_WAITING",
    "PATTERN_SEARCHES",
    "PATTERN_TIMEOUT",
    "create_app",
    "listen",
    "run_app",
    "server_config",
]

PATTERN_SEARCHES = 1
"""Pattern searches run at once, on the one connection that keeps the pattern
files' maps and the inverted filter (:mod:`gohash.index.patterns`); each scans
its candidates in two threads of its own."""
PATTERNS_WAITING = 8
"""Pattern searches that may wait for their turn; more are refused (503)."""
PATTERN_TIMEOUT = 5.0
"""Seconds a pattern search may take by default (``gohash serve --timeout``); then
it is answered 422, too broad."""

_POSITION_PARAMS = ("size", "moves", *FILTER_PARAMS, "symmetry", "turn", "to_move")
_PATTERN_PARAMS = ("diagram", "symmetry", "to_move", "max_move", "sequence", *FILTER_PARAMS,
                   "offset", "limit")

Handler = Callable[..., dict[str, Any]]
Endpoint = Callable[[Request], Awaitable[Response]]


def _endpoint(allowed: tuple[str, ...], handler: Handler) -> Endpoint:
    """An endpoint that checks the query parameters and runs ``handler(params)``
    in a worker thread (it replays boards and reads SQLite)."""

    async def run(request: Request) -> Response:
        params = query_params(request, allowed)
        return JSONResponse(await run_in_threadpool(handler, params))

    return run


def create_app(
    db_path: str | os.PathLike[str], *, allowed_hosts: Iterable[str] = (),
    pattern_timeout: float | None = PATTERN_TIMEOUT, dask_client: Any = None,
) -> Starlette:
    """The explorer over the index at ``db_path``, opened read-only.

    Requests are answered when their ``Host`` is ``localhost``, an IP address, or
    one of ``allowed_hosts`` (names, compared without case; the server's own
    name if it is served under one); others get a 400.  A pattern search gets
    ``pattern_timeout`` seconds (None: no limit), then answers 422.  With a
    ``dask_client`` (:func:`gohash.pipeline.cluster.dask_client`; the caller
    closes it), a sharded index's queries are asked on that Dask cluster.

    Raises :class:`~gohash.index.store.IndexFileError` at once if it is not a usable index.
    """
    explorer = Explorer(os.fspath(db_path), pattern_timeout, dask_client)
    reader = GameReader(explorer.served)
    patterns = Lane("pattern searches", PATTERN_SEARCHES, PATTERNS_WAITING, RETRY_AFTER)

    def info(params: dict[str, str]) -> dict[str, Any]:
        return explorer.info()

    async def pattern(request: Request) -> Response:
        params = query_params(request, _PATTERN_PARAMS)
        return JSONResponse(await patterns.run(request, partial(explorer.pattern, params)))

    def game_of(request: Request, allowed: tuple[str, ...]) -> tuple[int, Element, dict[str, str]]:
        params = query_params(request, allowed)
        game_id: str = request.path_params["game_id"]
        if not (game_id.isascii() and game_id.isdigit() and len(game_id) <= 18):
            raise BadRequest(f"a game id is a whole number, not {game_id[:40]!r}")
        return int(game_id), element(params.get("view", "identity")), params

    async def game(request: Request) -> Response:
        game_id, view, params = game_of(request, ("view", "start", "count"))
        start = int_param(params, "start", 0, 0, 10**9)
        count = int_param(params, "count", DEFAULT_GAME_PAGE, 1, MAX_GAME_PAGE)
        return await reader.answer(request, game_id, view, start, count, None)

    async def steps(request: Request) -> Response:
        game_id, view, params = game_of(request, ("view", "at"))
        at = int_param(params, "at", 0, 0, 10**9)
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
    """Starlette with :class:`~gohash.explorer.server.Guard` outermost, around Starlette's own error
    middleware: the 500 that answers an unexpected exception is sent past every
    middleware given to Starlette, and must carry the security headers too."""

    hosts: frozenset[str] = frozenset()
    """The names answered besides ``localhost`` and IP addresses."""

    def build_middleware_stack(self) -> ASGIApp:
        return Guard(super().build_middleware_stack(), self.hosts)


async def _gohash_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GohashError)
    answer: dict[str, Any] = {"error": exc.reason}
    headers = {}
    if isinstance(exc, BadRequest):
        status = exc.status
        if isinstance(exc, ServerBusy):
            headers["retry-after"] = str(exc.retry_after)
    elif isinstance(exc, IndexFileError):
        status = index_status(exc)
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


