"""The index as ``gohash serve`` answers from it: read-only connections shared by
the requests, all to one file, followed when the file is replaced or grows.

Scope: :class:`Served` opens the index at a path as a :class:`Generation` (its
file's identity, its connections, what it holds) and, when a request finds
another file at the path (``gohash index build --overwrite`` replaced it),
opens that one and answers every later request from it alone; a generation
re-reads its sizes and counts when SQLite's ``data_version`` says that another
connection committed (a build added games).  :func:`open_index` is the one place
the server (and its worker processes) open the index; with a Dask client
(``gohash serve --dask``) the server's connections to a sharded index ask its
shards on that cluster, and its worker processes, which read one game at a time,
in threads.  :func:`index_status` is the HTTP status of an index that cannot
answer.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import DamagedIndexError, GohashError, IndexFileError
from ..index.index import Index
from ..index.shards import ShardedIndex
from ..index.shards import open_index as open_any
from ..index.store import IndexInfo

__all__ = ["QUERY_CONNECTIONS", "SHARD_TIMEOUT", "Connections", "Generation", "Identity", "Served",
           "file_identity", "index_status", "open_index"]

QUERY_CONNECTIONS = 4
"""Connections to the index that the small requests (position, games, info,
player) share."""
SHARD_TIMEOUT = 60.0
"""Seconds a shard of a sharded index has to answer a small request: a shard
slower than that, or lost with its Dask worker, is an error naming it, not a
request that hangs.  Pattern searches have their own budget instead."""

Identity = tuple[int, int]
"""A file's device and inode: another file at the same path has another."""


def file_identity(path: str) -> Identity | None:
    """The identity of the file at ``path``; None if there is none."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def open_index(path: str, client: Any = None,
               timeout: float | None = None) -> Index | ShardedIndex:
    """A read-only connection to the index at ``path`` (an index file, or a
    sharded index's folder, whose shards are asked through the Dask ``client``
    if given, and must each answer within ``timeout`` seconds)."""
    return open_any(path, read_only=True, client=client, timeout=timeout)


class Connections:
    """Read-only connections to one index, each used by one thread at a time: a
    request waits for a connection, never for another request's work on one."""

    def __init__(self, indexes: list[Index | ShardedIndex]) -> None:
        self._idle = list(indexes)
        self._free = threading.BoundedSemaphore(len(indexes))
        self._lock = threading.Lock()

    @contextmanager
    def use(self) -> Iterator[Index | ShardedIndex]:
        with self._free:
            with self._lock:
                index = self._idle.pop()
            try:
                yield index
            finally:
                with self._lock:
                    self._idle.append(index)

    def close(self) -> None:
        """Close the connections (none may be in use)."""
        with self._lock:
            for index in self._idle:
                index.close()


class Generation:
    """One index file as the server opened it: its :attr:`identity`, the
    connections of the small requests (:attr:`queries`) and of pattern
    searches (:attr:`patterns`: one, which keeps the pattern files mapped and
    their inverted filter once), and what it holds (:meth:`sizes`,
    :meth:`info`) as of the last commit seen.  Every connection is opened at
    once: one opened later could find another file at the path."""

    def __init__(self, path: str, identity: Identity, client: Any = None) -> None:
        opened: list[Index | ShardedIndex] = []
        try:
            # The first is the pattern searches': their budget bounds them.
            for i in range(QUERY_CONNECTIONS + 2):
                opened.append(open_index(path, client, None if i == 0 else SHARD_TIMEOUT))
        except BaseException:
            for index in opened:
                index.close()
            raise
        self.identity = identity
        self.watch = opened.pop()
        """The connection that looks at ``data_version`` (its own numbering) and
        reads the sizes."""
        self.patterns = Connections(opened[:1])
        self.queries = Connections(opened[1:])
        self.users = 0
        self.retired = False
        self._lock = threading.Lock()
        self._version: tuple[int, int] | None = None
        self._sizes: dict[int, int] = {}
        self._info: tuple[tuple[int, int], IndexInfo] | None = None

    def sizes(self) -> dict[int, int]:
        """Games per board size, read again after a commit."""
        return self._follow()[1]

    def info(self) -> IndexInfo:
        """What the index holds, read again after a commit (on a connection of
        the queries: counting the positions takes a while, and the sizes need
        not wait for it)."""
        version, _ = self._follow()
        kept = self._info
        if kept is not None and kept[0] == version:
            return kept[1]
        with self.queries.use() as index:
            info = index.info()
        self._info = version, info
        return info

    def close(self) -> None:
        self.watch.close()
        self.patterns.close()
        self.queries.close()

    def _follow(self) -> tuple[tuple[int, int], dict[int, int]]:
        with self._lock:
            version = self.watch.version()
            if version != self._version:
                self._sizes = self.watch.sizes()
                self._version = version
            return version, self._sizes


class Served:
    """The index at ``path`` as the server answers from it.  Each :meth:`use`
    looks at the file's identity: when another file is there and opens as an
    index, it becomes the current generation, and the one before is closed once
    its last request is done.  While the file is missing or does not open (a
    build creating it), the current one answers.

    Raises :class:`~gohash.errors.IndexFileError` at once if ``path`` is not a
    usable index.  With a Dask ``client`` (a sharded index only), every
    generation asks its shards on that cluster."""

    def __init__(self, path: str, client: Any = None) -> None:
        self.path = path
        self.client = client
        self._lock = threading.Lock()
        identity = file_identity(path)
        if identity is None:
            raise IndexFileError("no such index (gohash index build creates one)", file=path)
        current = self._open(identity)
        if current is None:
            raise IndexFileError("the index was replaced while it was opened", file=path)
        self.current = current

    @contextmanager
    def use(self) -> Iterator[Generation]:
        """The current generation, kept open until the block ends."""
        identity = file_identity(self.path)
        with self._lock:
            current = self.current
            if identity is not None and identity != current.identity:
                try:
                    replacement = self._open(identity)
                except GohashError:
                    replacement = None
                if replacement is not None:
                    current.retired = True
                    if current.users == 0:
                        current.close()
                    self.current = current = replacement
            current.users += 1
        try:
            yield current
        finally:
            with self._lock:
                current.users -= 1
                if current.retired and current.users == 0:
                    current.close()

    def _open(self, identity: Identity) -> Generation | None:
        """The index at the path, if it is still the file of ``identity`` once open."""
        generation = Generation(self.path, identity, self.client)
        if file_identity(self.path) != identity:
            generation.close()
            return None
        return generation


def index_status(error: IndexFileError) -> int:
    """409 for an index holding a value gohash did not write (asking again gets
    the same answer; it must be checked and rebuilt), 503 for one that became
    unreadable while serving (it may be back): never the request's fault."""
    return 409 if isinstance(error, DamagedIndexError) else 503
