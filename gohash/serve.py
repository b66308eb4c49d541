"""``gohash serve``: the position explorer, a web page over an index, as a Starlette app.

Scope: :func:`create_app` and its JSON endpoints; the page itself is static
(``gohash/web/``: one HTML, one script, one style sheet).  The index is
opened read-only.  :func:`listen` binds the port first (a busy port is one
clear error, before anything is printed) and :func:`run_app` serves the app with
uvicorn on that socket; the command line (:mod:`gohash.cli.serve`) only
parses its arguments and prints the address.

The page keeps its whole state in its URL and sends the same parameters to
the endpoints, which replay the position with :class:`~gohash.board.Board`
(legality, captures, ko) and answer in JSON:

- ``GET /api/info``: the index's board sizes, counts and key scheme.
- ``GET /api/position?size=N&moves=LIST``: the board after the move list
  (:mod:`gohash.movelist`), what was played next wherever it occurred
  (:meth:`gohash.index.Index.continuations`) and the first page of those
  games (``limit``, default 20).
- ``GET /api/games?size=N&moves=LIST&offset=K&limit=L``: a page of those games.
- ``GET /api/game/ID?view=ELEMENT``: a game recorded in the index, read again
  from its file, every position of its main line seen through ``ELEMENT``
  (the element that shows it in the orientation and colours of the query
  that found it; default ``identity``).

The position endpoints also take the filters of
:class:`~gohash.explorer.Filters` (``player``, ``date_from``, ``date_to``, ``result``,
``min_rank``, ``event``, ``handicap`` ``yes``/``no``), ``symmetry``
(``full``: rotations, reflections and colour exchange, the default; ``d4``:
no colour exchange) and ``turn`` (``1``, the default: only occurrences with the
board's side to move, in the query's colours, as an opening explorer asks "what
does the player to move play here"; ``0``: every occurrence).

Bad input (an unknown or repeated parameter, a malformed number, filter or
move list, an illegal move, an unknown game, a game whose file changed) is
answered with a 4xx status and ``{"error": message}``, never a 500.  The
game viewer serves the games of the index only, by id: no path comes from a
request.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .errors import GohashError
from .explorer import Continuations, Filters, GameRecord, Record
from .index import Index, Match, UnknownGameError
from .indexfile import IndexFileError
from .movelist import Replay, format_steps, parse_steps, point_letters, replay
from .symmetry import Element, Point, element

__all__ = [
    "DEFAULT_PAGE",
    "MAX_CONTINUATIONS",
    "MAX_PAGE",
    "MAX_QUERY_BYTES",
    "BadRequest",
    "create_app",
    "listen",
    "run_app",
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
"""The longest player or event name a filter may give."""

_SYMBOLS = ".XO"
_POSITION_PARAMS = ("size", "moves", "player", "date_from", "date_to", "result", "min_rank",
                    "event", "handicap", "symmetry", "turn")


class BadRequest(GohashError):
    """A request the explorer cannot answer; ``status`` is its HTTP status (4xx)."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.status = status


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
    text = {
        name: params[name]
        for name in ("player", "date_from", "date_to", "result", "min_rank", "event")
        if params.get(name)
    }
    for name, value in text.items():
        if len(value) > MAX_FILTER_CHARS:
            raise BadRequest(f"{name} has {len(value)} characters; at most {MAX_FILTER_CHARS}")
    handicap = _choice(params, "handicap", ("yes", "no"))
    if not text and handicap is None:
        return None
    return Filters(**text, handicap=None if handicap is None else handicap == "yes")


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


class _Explorer:
    """The open index and the answers built from it.

    One read-only connection serves every request; a lock serialises the SQLite
    work, as Starlette's worker threads share the connection.
    """

    def __init__(self, db_path: str) -> None:
        self.index = Index(db_path, read_only=True)
        self.lock = threading.Lock()
        self.sizes = self.index.sizes()
        self.counts = self.index.counts()

    @property
    def default_size(self) -> int:
        """The size of most games in the index (19 for an empty one)."""
        if not self.sizes:
            return 19
        return max(self.sizes, key=lambda size: (self.sizes[size], size))

    def query(self, params: dict[str, str]) -> _Query:
        size = _int(params, "size", self.default_size, 1, 26)
        steps = parse_steps(params.get("moves", ""), size)
        replayed = replay(steps, size)
        symmetry = _choice(params, "symmetry", ("full", "d4")) or "full"
        turn = _choice(params, "turn", ("0", "1"))
        return _Query(
            size, format_steps(steps, size), replayed, _filters(params), symmetry,
            "any" if turn == "0" else replayed.board.to_move,
        )

    def info(self) -> dict[str, Any]:
        return {
            "sizes": {str(size): count for size, count in sorted(self.sizes.items())},
            "default_size": self.default_size,
            "counts": self.counts,
            "scheme": self.index.scheme_name,
        }

    def position(self, query: _Query, limit: int) -> dict[str, Any]:
        board = query.replayed.board
        with self.lock:
            found = self.index.continuations(
                board, symmetry=query.symmetry, filters=query.filters, to_move=query.to_move,
                limit=MAX_CONTINUATIONS,
            )
        return {
            **_board_json(query),
            **_continuations_json(found, query.size),
            "games": self.games(query, 0, limit),
        }

    def games(self, query: _Query, offset: int, limit: int) -> dict[str, Any]:
        with self.lock:
            found = self.index.find(
                query.replayed.board, colour_swap=query.symmetry == "full",
                filters=query.filters, to_move=query.to_move, offset=offset, limit=limit,
            )
        return {
            "total": found.total,
            "offset": offset,
            "limit": limit,
            "matches": [_match_json(match, query.size) for match in found.matches],
        }

    def game(self, game_id: int, view: Element) -> dict[str, Any]:
        with self.lock:
            try:
                game = self.index.game(game_id)
            except UnknownGameError as e:
                raise BadRequest(str(e), 404) from None
            except IndexFileError:
                raise
            except GohashError as e:
                # The file moved, changed or no longer replays as indexed.
                raise BadRequest(str(e), 409) from None
        return _game_json(game, view)


# -- JSON ------------------------------------------------------------------------------------


def _letters(point: Point | None, size: int) -> str | None:
    return None if point is None else point_letters(point, size)


def _rows(cells: bytes, size: int) -> list[str]:
    """Rows of ``.XO``, the top row first, from cells in index order (row 0 at the bottom)."""
    return [
        "".join(_SYMBOLS[cells[row * size + col]] for col in range(size))
        for row in range(size - 1, -1, -1)
    ]


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


def _continuations_json(found: Continuations, size: int) -> dict[str, Any]:
    return {
        "summary": {
            "total": found.total,
            "ended": found.ended,
            "black_wins": found.black_wins,
            "white_wins": found.white_wins,
            "other": found.other,
            "same_colours": found.same_colours,
            "exchanged_colours": found.exchanged_colours,
            "symmetries": [g.name for g in found.symmetries],
            "to_move": found.to_move or "any",
        },
        "continuations": [
            {
                "point": _letters(c.point, size),
                "colour": c.colour,
                "count": c.count,
                "share": c.share,
                "black_wins": c.black_wins,
                "white_wins": c.white_wins,
                "other": c.other,
                "first_date": c.first_date,
                "last_date": c.last_date,
                "same_colours": c.same_colours,
                "exchanged_colours": c.exchanged_colours,
                "equivalent": [point_letters(p, size) for p in c.equivalent],
            }
            for c in found.moves
        ],
    }


def _record_json(record: Record) -> dict[str, Any]:
    return {
        "game_id": record.id,
        "file": record.file,
        "game": record.game,
        "size": record.size,
        "black": record.black,
        "white": record.white,
        "black_rank": record.black_rank,
        "white_rank": record.white_rank,
        "date": record.date,
        "dt": record.dt,
        "event": record.event,
        "result": record.result,
        "komi": record.komi,
        "handicap": record.handicap,
        "moves": record.moves,
    }


def _match_json(match: Match, size: int) -> dict[str, Any]:
    next_move = None
    if match.next_move is not None:
        colour, point = match.next_move
        next_move = {"colour": colour, "point": _letters(point, size)}
    return {
        **_record_json(match.record),
        "move_number": match.move_number,
        "seq": match.seq,
        "element": match.element.name,
        "view": match.element.inverse.name,
        "colours_exchanged": match.colours_exchanged,
        "next_move": next_move,
    }


def _game_json(game: GameRecord, view: Element) -> dict[str, Any]:
    """The game seen through ``view``: per position its rows, move number and last move,
    and the game as a move list (``steps``; ``step_counts[i]`` of them give position i)."""
    size = game.record.size
    positions, numbers, last, steps, counts = [], [], [], [], []
    previous: npt.NDArray[np.integer[Any]] = np.zeros((size, size), dtype=np.int8)
    for position in game.positions:
        stones = view.image_array(position.stones)
        point = None if position.point is None else view.map_point(position.point, size)
        if position.colour is not None and not position.setup:
            colour = view.map_colour(position.colour)
            steps.append(colour + ("pass" if point is None else point_letters(point, size)))
        elif not np.array_equal(stones, previous):
            steps += _edits(previous, stones, size)
        positions.append(_rows(stones.astype(np.uint8).tobytes(), size))
        numbers.append(position.move_number)
        last.append(None if position.colour is None else _letters(point, size))
        counts.append(len(steps))
        previous = stones
    return {
        **_record_json(game.record),
        "root": game.root,
        "view": view.name,
        "colours_exchanged": view.swap,
        "positions": positions,
        "move_numbers": numbers,
        "last": last,
        "steps": steps,
        "step_counts": counts,
    }


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
    """An endpoint that checks the query parameters and runs ``handler(params, **path)``
    in a worker thread (it replays boards and reads SQLite)."""

    async def run(request: Request) -> Response:
        params = _params(request, allowed)
        body = await run_in_threadpool(handler, params, **request.path_params)
        return JSONResponse(body)

    return run


def create_app(db_path: str | os.PathLike[str]) -> Starlette:
    """The explorer over the index at ``db_path``, opened read-only.

    Raises :class:`~gohash.indexfile.IndexFileError` at once if it is not a usable index.
    """
    explorer = _Explorer(os.fspath(db_path))

    def info(params: dict[str, str]) -> dict[str, Any]:
        return explorer.info()

    def position(params: dict[str, str]) -> dict[str, Any]:
        query = explorer.query(params)
        return explorer.position(query, _int(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE))

    def games(params: dict[str, str]) -> dict[str, Any]:
        query = explorer.query(params)
        offset = _int(params, "offset", 0, 0, 10**9)
        return explorer.games(query, offset, _int(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE))

    def game(params: dict[str, str], game_id: str) -> dict[str, Any]:
        if not (game_id.isascii() and game_id.isdigit() and len(game_id) <= 18):
            raise BadRequest(f"a game id is a whole number, not {game_id[:40]!r}")
        return explorer.game(int(game_id), element(params.get("view", "identity")))

    async def page(request: Request) -> Response:
        # The page's own parameters are read by its script, which reports bad ones.
        return await static.get_response("index.html", request.scope)

    static = StaticFiles(packages=[("gohash", "web")])
    routes = [
        Route("/", page),
        Route("/api/info", _endpoint((), info)),
        Route("/api/position", _endpoint((*_POSITION_PARAMS, "limit"), position)),
        Route("/api/games", _endpoint((*_POSITION_PARAMS, "offset", "limit"), games)),
        Route("/api/game/{game_id}", _endpoint(("view",), game)),
        Mount("/static", static, name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(GZipMiddleware, minimum_size=2048)],
        exception_handlers={GohashError: _gohash_error, HTTPException: _http_error},
    )
    app.state.index = explorer.index
    return app


async def _gohash_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, BadRequest):
        status = exc.status
    elif isinstance(exc, IndexFileError):
        status = 503  # the index became unreadable while serving: not the request's fault
    else:
        status = 400
    return JSONResponse({"error": str(exc)}, status_code=status)


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
    import uvicorn

    with sock:
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[sock])
