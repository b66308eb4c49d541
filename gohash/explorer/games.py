"""``gohash serve``'s game reader: the games of the viewer and their downloads, read
again from the index and their files in worker processes.

Scope: :class:`GameReader` (in the server) hands each read to a worker process
through a bounded lane (:class:`~gohash.explorer.work.Lane`); in the workers,
each keeps a connection to the index and a cache of the games it replayed last
(:class:`_GameCache`), and makes the answer's JSON itself.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from ..errors import BadRequest, GohashError, IndexFileError, UnknownGameError
from ..group.symmetry import Element, element
from ..index import movelist
from ..index.index import Index
from ..index.results import GameRecord
from ..index.shards import ShardedIndex
from ..pipeline.pool import WorkerPool
from ..sgf.sources import source_candidates, source_files
from .indexes import Identity, Served, file_identity, index_status, open_index
from .shaping import json_bytes, steps_json
from .work import RETRY_AFTER, Lane

__all__ = [
    "DEFAULT_GAME_PAGE",
    "GAME_CACHE_BYTES",
    "GAME_READS_WAITING",
    "MAX_GAME_PAGE",
    "MAX_GAME_READS",
    "GameReader",
]

DEFAULT_GAME_PAGE = 200
"""Positions of a game per answer unless ``count`` says otherwise."""
MAX_GAME_PAGE = 500
"""The most positions of a game one answer holds (some 230 KB of JSON on 19x19)."""
MAX_GAME_READS = 2
"""Worker processes reading games again from their files; more requests wait."""
GAME_READS_WAITING = 16
"""Game reads that may wait for a worker; more are refused (503) until one ends."""
GAME_CACHE_BYTES = 32 * 1024 * 1024
"""Bytes of replayed games (estimated) each of those workers keeps, so that the
pages of a game are not each a new read and replay: a game of 300 moves on 19x19
takes some 200 KB; one larger than this (some 50,000 positions) is read again
for every page."""


class GameReader:
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
        """The page ``start``, ``count`` of a game, or with ``at`` its steps to ``at``.

        The limit of steps goes with the task, as the page does: the server's
        limits are those of its modules now, and the workers' modules were
        imported afresh by their fork server."""
        outcome = await self._run(request, game_id, _read_game, view.name, start, count, at,
                                  movelist.MAX_STEPS)
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
                self._pool = WorkerPool(MAX_GAME_READS, self._folder, threaded=True,
                                        preload=(__name__,))
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
"""In a worker process of :class:`GameReader`: its connection to each index, and
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
    folders = [os.path.dirname(os.path.abspath(db_path))]
    return [path for candidate in source_candidates(name, folders)
            for path in source_files(candidate)]


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
"""In a worker process of :class:`GameReader`: the games it read last."""


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
    at: int | None, max_steps: int,
) -> dict[str, Any]:
    """In a worker process: ``{"answer": JSON}``, the page or steps of the game as
    UTF-8 JSON (made here, not in the server's event loop), or
    ``{"error": message, "status": status}``."""
    try:
        game = _WORKER_GAMES.game(_worker_index(db_path, identity), db_path, game_id)
        view = element(view_name)
        if at is None:
            return {"answer": json_bytes(game.page(view, start, count).to_json(paths=False))}
        if at >= len(game.positions):
            raise BadRequest(f"at must be below {len(game.positions)}, not {at}")
        return {"answer": json_bytes(steps_json(game, view, at, max_steps))}
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
    status = index_status(error) if isinstance(error, IndexFileError) else 500
    return {"error": f"game {game_id}: {error.reason}", "status": status}

