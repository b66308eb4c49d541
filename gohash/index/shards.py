"""A sharded index: a folder of complete index files, each holding the games of some inputs.

Scope: the manifest (:class:`Manifest`, ``shards.json``, docs/schemas.md), which
shard holds an input (:func:`shard_of`), building the shards
(:func:`build_shards`: in local processes, or on a Dask cluster, one task per
shard and no shared writer), :class:`ShardedIndex`, which answers every query
of :class:`~gohash.index.index.Index` by asking each shard (threads here, or
tasks on a Dask cluster) and merging their answers into the one a single index
of the same games gives, and :func:`open_index`, which opens either kind.

A game's id in a sharded index is ``local_id * shards + shard``: global, and
stable while its shard keeps it.  Matches merge in the order of those ids (the
order of one index's ids); each shard is asked for the first ``offset + limit``
of its own, which are in that order too.  A shard that fails, does not answer
within the timeout, or whose worker is lost is an error naming it: never a
partial answer.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import hashlib
import json
import os
import queue
import sqlite3
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GohashError, IndexFileError, QueryCancelled, UnknownGameError, name_text
from ..go.board import Board
from ..group.schemes import DEFAULT_SCHEME, KeyScheme
from ..group.symmetry import check_size
from ..pattern.diagram import Pattern
from ..pattern.search import PatternContinuation, PatternMatch, PatternResult
from ..pipeline.cluster import dask_client, distributed, heap_as_usual
from ..pipeline.frames import NamedSchemes
from ..sgf.inputs import Input
from ..sgf.sources import find_inputs
from .dupes import Dupes, dupe_candidates, group_dupes
from .filters import GAME_ORDERS
from .index import Index
from .players import CornerPattern, Opening, PlayerMatch, PlayerSummary, Results
from .postings import CHUNK_TOPS, alive
from .records import rank_level
from .results import Continuation, Continuations, FindResult, GameRecord, Record
from .schema import SCHEMA_VERSION
from .store import (
    BuildSummary,
    Built,
    IndexInfo,
    Removed,
    _IndexFile,
    build_index,
    read_only_uri,
    upgrade_index,
)

__all__ = [
    "MANIFEST",
    "MANIFEST_VERSION",
    "Manifest",
    "ShardedIndex",
    "build_shards",
    "is_sharded",
    "open_index",
    "require_sharded",
    "shard_of",
    "upgrade_shards",
]

MANIFEST = "shards.json"
"""The manifest's name in a sharded index's folder."""
MANIFEST_VERSION = 1
"""The manifest's format version (docs/schemas.md, "A sharded index")."""
_KIND = "gohash-sharded-index"
CANCEL_POLL = 0.1
"""Seconds between looks at a query's cancel event while its Dask tasks run."""


# -- the manifest --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Manifest:
    """What a sharded index's ``shards.json`` says: its ``shards`` index files
    (``files``, named relative to the folder), their key ``scheme`` and whether
    they hold ``variations``."""

    shards: int
    scheme: str
    variations: bool
    files: tuple[str, ...]

    @classmethod
    def new(cls, shards: int, scheme: str, variations: bool) -> Manifest:
        width = max(3, len(str(shards - 1)))
        return cls(shards, scheme, variations,
                   tuple(f"shard-{i:0{width}d}.db" for i in range(shards)))

    def to_json(self) -> dict[str, Any]:
        return {"kind": _KIND, "format_version": MANIFEST_VERSION, "shards": self.shards,
                "assignment": "sha256-of-path", "scheme": self.scheme,
                "variations": self.variations, "files": list(self.files),
                "index_format_version": SCHEMA_VERSION}

    @classmethod
    def read(cls, folder: str) -> Manifest:
        """The manifest of the sharded index ``folder``; a missing, unreadable or
        malformed one is an :class:`~gohash.errors.IndexFileError`."""
        path = os.path.join(folder, MANIFEST)
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as e:
            raise IndexFileError(f"cannot read the manifest: {e.strerror}", file=path) from None
        except ValueError as e:
            raise IndexFileError(f"the manifest is not JSON: {e}", file=path) from None
        if not isinstance(data, dict) or data.get("kind") != _KIND:
            raise IndexFileError(f"not a gohash sharded index manifest (kind "
                                 f"{data.get('kind') if isinstance(data, dict) else None!r})",
                                 file=path)
        if data.get("format_version") != MANIFEST_VERSION:
            raise IndexFileError(f"manifest format version {data.get('format_version')!r}; "
                                 f"this gohash reads version {MANIFEST_VERSION}", file=path)
        shards, files = data.get("shards"), data.get("files")
        if (not isinstance(shards, int) or shards < 1 or not isinstance(files, list)
                or len(files) != shards
                or not all(isinstance(f, str) and f and os.path.basename(f) == f
                           for f in files)
                or not isinstance(data.get("scheme"), str)
                or not isinstance(data.get("variations"), bool)):
            raise IndexFileError("a malformed manifest (shards, files, scheme, variations)",
                                 file=path)
        return cls(shards, data["scheme"], data["variations"], tuple(files))

    def write(self, folder: str) -> None:
        path = os.path.join(folder, MANIFEST)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, indent=1)
            f.write("\n")
        os.replace(path + ".tmp", path)

    def paths(self, folder: str) -> list[str]:
        return [os.path.join(folder, name) for name in self.files]


def is_sharded(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder holding a sharded index's manifest."""
    return os.path.isfile(os.path.join(os.fspath(path), MANIFEST))


def shard_of(name: str, shards: int) -> int:
    """The shard that holds the input ``name`` (a file, an archive with all its
    members, a part of a packed dataset, a canon dataset; named as the index
    stores it): the first 8 bytes of the SHA-256 of its name's UTF-8, big-endian,
    modulo ``shards``.  A name always goes to the same shard, so a file built
    again or removed is found where it was."""
    digest = hashlib.sha256(name_text(name).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % shards


# -- building ------------------------------------------------------------------------------


def build_shards(
    path: str | os.PathLike[str],
    paths: Iterable[str],
    *,
    shards: int | None = None,
    scheme: str | None = None,
    variations: bool | None = None,
    overwrite: bool = False,
    jobs: int = 1,
    dask: str | None = None,
    files_per_commit: int | None = None,
    progress: Callable[[int, int], object] | None = None,
    suicide_allowed: bool | None = None,
) -> Built:
    """Create or extend the sharded index in the folder ``path`` and build it from
    ``paths``: each input (:func:`~gohash.sgf.sources.find_inputs`) goes to
    the shard :func:`shard_of` names, and each shard is built as one index
    (:func:`~gohash.index.store.build_index`), ``jobs`` shards at a time in
    worker processes, or on the Dask cluster ``dask`` (an address or
    ``local:N``) one task per shard: each worker builds one shard at a time
    and is its only writer.  An existing sharded index keeps its shards,
    scheme and variations (asking for others is an error unless ``overwrite``,
    which removes it first); ``shards`` is needed for a new one.  A shard
    whose build failed is an error of the summary naming it, and
    :attr:`~gohash.index.store.Built.counts` is None; building again completes
    it.  ``progress(done, total)`` counts shards built.
    """
    folder = os.fspath(path)
    manifest = _prepare(folder, shards, scheme, variations, overwrite)
    shard_paths = manifest.paths(folder)
    for shard_path in shard_paths:
        if not os.path.exists(shard_path):
            _IndexFile(shard_path, create=True, scheme=manifest.scheme,
                      variations=manifest.variations).close()
    units: list[list[Input]] = [[] for _ in range(manifest.shards)]
    normalised = [p if p == "-" else os.path.normpath(p) for p in paths]
    for inp in find_inputs(normalised):
        units[shard_of(inp.name, manifest.shards)].append(inp)
    if dask is not None and any(inp.kind == "stdin" for unit in units for inp in unit):
        raise GohashError("--dask cannot read standard input: give files")
    options = dict(files_per_commit=files_per_commit, suicide_allowed=suicide_allowed)
    todo = [i for i in range(manifest.shards) if units[i]]
    outcomes: dict[int, BuildSummary | BaseException] = {}

    def finish(i: int, outcome: BuildSummary | BaseException) -> None:
        outcomes[i] = outcome
        if progress is not None:
            progress(len(outcomes), len(todo))

    if dask is not None:
        relative = any(not os.path.isabs(inp.name) for unit in units for inp in unit) or (
            not os.path.isabs(folder))
        with dask_client(dask, paths_relative=relative) as client:
            token = uuid.uuid4().hex
            futures = [client.submit(_build_shard, shard_paths[i], units[i], options,
                                     pure=False, key=f"gohash-shard-{i}-{token}")
                       for i in todo]
            by_key = {future.key: i for future, i in zip(futures, todo, strict=True)}
            for future in distributed().as_completed(futures):
                try:
                    outcome: BuildSummary | BaseException = future.result()
                except Exception as e:
                    outcome = e
                future.release()
                finish(by_key[future.key], outcome)
    elif jobs <= 1 or len(todo) <= 1:
        for i in todo:
            try:
                outcome = _build_shard(shard_paths[i], units[i], options)
            except GohashError as e:
                outcome = e
            finish(i, outcome)
    else:
        with concurrent.futures.ProcessPoolExecutor(min(jobs, len(todo))) as pool:
            running = {pool.submit(_build_shard, shard_paths[i], units[i], options): i
                       for i in todo}
            for future in concurrent.futures.as_completed(running):
                try:
                    outcome = future.result()
                except Exception as e:  # a GohashError, or the worker died
                    outcome = e
                finish(running[future], outcome)
    # In shard order, whatever order they ended in.
    summary = BuildSummary()
    for i, outcome in sorted(outcomes.items()):
        if isinstance(outcome, BaseException):
            reason = outcome.reason if isinstance(outcome, GohashError) else repr(outcome)
            summary.errors.append(f"{shard_paths[i]}: shard {i} not built: {reason}")
        else:
            summary.add(outcome)
    if any(isinstance(outcome, BaseException) for outcome in outcomes.values()):
        return Built(summary, None)
    with ShardedIndex(folder, read_only=True) as index:
        counts = index.counts()
    return Built(summary, counts)


def _build_shard(path: str, inputs: list[Input], options: dict[str, Any]) -> BuildSummary:
    """One shard built from its inputs (in a worker process or a Dask task)."""
    heap_as_usual()
    return build_index(path, inputs, **options).summary


def _prepare(folder: str, shards: int | None, scheme: str | None, variations: bool | None,
             overwrite: bool) -> Manifest:
    """The manifest of the sharded index to build in ``folder``: the existing one
    (checked against what is asked for), or a new one written there."""
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise IndexFileError("a file, not a folder: a sharded index is a folder "
                             "(build without --shards to extend a single index)", file=folder)
    if is_sharded(folder):
        manifest = Manifest.read(folder)
        wanted = [(shards, manifest.shards, "shards"), (scheme, manifest.scheme, "key scheme"),
                  (variations, manifest.variations, "variations")]
        differs = [f"{name} {have!r}, not {want!r}" for want, have, name in wanted
                   if want is not None and want != have]
        if not differs:
            return manifest
        if not overwrite:
            raise IndexFileError(f"a sharded index of {', '.join(differs)}; --overwrite "
                                 "replaces it", file=folder)
        for shard_path in manifest.paths(folder):
            for extra in ("", "-wal", "-shm", "-journal", "-postings"):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(shard_path + extra)
        os.remove(os.path.join(folder, MANIFEST))
    elif os.path.isdir(folder) and os.listdir(folder):
        raise IndexFileError("a folder that is not a sharded index and not empty: give a "
                             "new or empty folder", file=folder)
    if shards is None:
        raise GohashError(f"{folder!r} is no sharded index yet: give --shards N")
    if shards < 1:
        raise GohashError(f"--shards must be at least 1, not {shards!r}")
    os.makedirs(folder, exist_ok=True)
    manifest = Manifest.new(shards, scheme or DEFAULT_SCHEME, bool(variations))
    manifest.write(folder)
    return manifest


def upgrade_shards(
    path: str | os.PathLike[str], *, jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
) -> Built:
    """Upgrade every shard of the sharded index ``path`` that is of an earlier
    format version (:func:`~gohash.index.store.upgrade_index`: each rebuilt from
    the files it names, and replaced only if all were found again); ``counts``
    is None if some shard was left as it was.  Refused if no shard is older."""
    folder = os.fspath(path)
    manifest = Manifest.read(folder)
    summary = BuildSummary()
    older = [p for p in manifest.paths(folder) if _schema_version(p) != SCHEMA_VERSION]
    if not older:
        raise IndexFileError(f"every shard is of format version {SCHEMA_VERSION}: nothing "
                             "to upgrade", file=folder)
    complete = True
    for shard_path in older:
        built = upgrade_index(shard_path, jobs=jobs, progress=progress)
        summary.add(built.summary)
        complete = complete and built.counts is not None
    if not complete:
        return Built(summary, None)
    manifest.write(folder)
    with ShardedIndex(folder, read_only=True) as index:
        return Built(summary, index.counts())


def _schema_version(path: str) -> int | None:
    """The format version of the index file ``path`` (None: not readable as one)."""
    try:
        with contextlib.closing(sqlite3.connect(read_only_uri(path), uri=True)) as db:
            version: int = db.execute("PRAGMA user_version").fetchone()[0]
            return version
    except sqlite3.Error:
        return None


# -- fanning out ----------------------------------------------------------------------------


class _Threads:
    """Each shard's :class:`Index`, asked in a thread of its own (the searches'
    kernels and SQLite release the interpreter lock), started when first asked
    and kept while the index is open; one open for writing is asked in the
    calling thread.  A request goes to a shard's thread through a queue and
    its answer comes back through the query's: a pool's futures and their
    waiting cost the calling thread several times that (docs/design.md)."""

    def __init__(self, paths: list[str], read_only: bool) -> None:
        self.read_only = read_only
        self.indexes: list[Index] = []
        self._requests: list[queue.SimpleQueue[Any] | None] = [None] * len(paths)
        self._starting = threading.Lock()
        # Tells the shards' threads to end: on close, or if the index is
        # collected unclosed (they hold no reference to it).
        self._stop = weakref.finalize(self, _stop_threads, self._requests)
        try:
            for path in paths:
                self.indexes.append(Index(path, read_only=read_only))
        except BaseException:
            self.close()
            raise

    def ask(self, which: list[int], method: str, args: tuple[Any, ...],
            options: Callable[[int], dict[str, Any]],
            timeout: float | None) -> list[tuple[bool, Any] | None]:
        """``method(*args, **options(shard))`` of each shard of ``which``: for
        each, in that order, ``(True, answer)``, ``(False, exception)``, or None
        if it did not answer within ``timeout`` seconds (None: no limit).
        Without a timeout the first is asked in this thread: a hand-off to
        another thread and back is most of what a small query costs."""
        if not self.read_only or not self._stop.alive:
            # A connection that writes serves the thread that opened it only;
            # a closed index's shards say so here.
            return [_outcome(self.indexes[i], method, args, options(i)) for i in which]
        inline = timeout is None and bool(which)
        if inline and len(which) == 1:
            return [_outcome(self.indexes[which[0]], method, args, options(which[0]))]
        reply = _Reply()
        got: dict[int, tuple[bool, Any]] = {}
        try:
            for i in which[inline:]:
                self._queue(i).put((method, args, options(i), reply))
            if inline:
                got[which[0]] = _outcome(self.indexes[which[0]], method, args,
                                         options(which[0]))
            deadline = None if timeout is None else time.monotonic() + timeout
            while len(got) < len(which):
                try:
                    shard, outcome = reply.answers.get(
                        timeout=None if deadline is None
                        else max(deadline - time.monotonic(), 0.0))
                except queue.Empty:
                    break
                got[shard] = outcome
        finally:
            reply.dropped = True  # requests not begun yet are not run
        return [got.get(i) for i in which]

    def _queue(self, shard: int) -> queue.SimpleQueue[Any]:
        """The requests of ``shard``'s thread, started now if it is not yet."""
        requests = self._requests[shard]
        if requests is None:
            with self._starting:
                requests = self._requests[shard]
                if requests is None:
                    requests = self._requests[shard] = queue.SimpleQueue()
                    threading.Thread(target=_serve, args=(weakref.ref(self), shard, requests),
                                     name=f"gohash-shard-{shard}", daemon=True).start()
        return requests

    def close(self) -> None:
        self._stop()
        for index in self.indexes:
            index.close()


class _Reply:
    """Where the shards asked by one query answer, ``(shard, outcome)`` each;
    ``dropped`` once the query no longer waits for them."""

    __slots__ = ("answers", "dropped")

    def __init__(self) -> None:
        self.answers: queue.SimpleQueue[tuple[int, tuple[bool, Any]]] = queue.SimpleQueue()
        self.dropped = False


def _serve(owner: weakref.ref[_Threads], shard: int, requests: queue.SimpleQueue[Any]) -> None:
    """A shard's thread: each request of ``requests`` answered on the shard's
    index, until a None asks it to end."""
    while (request := requests.get()) is not None:
        method, args, kwargs, reply = request
        fan = owner()
        if fan is None:
            return
        if not reply.dropped:
            reply.answers.put((shard, _outcome(fan.indexes[shard], method, args, kwargs)))
        del fan, request, reply


def _stop_threads(requests: list[queue.SimpleQueue[Any] | None]) -> None:
    for i, queued in enumerate(requests):
        if queued is not None:
            queued.put(None)
            requests[i] = None


def _outcome(index: Index, method: str, args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """``(True, index.method(*args, **kwargs))``, or ``(False, what it raised)``."""
    try:
        return True, getattr(index, method)(*args, **kwargs)
    except BaseException as e:
        return False, e


class _Cluster:
    """Each shard asked in a task on a Dask cluster: its workers open the shard
    files (at the same path as here) read-only, once per thread, and keep them.
    The client is made from an address and closed with the index, or given
    (``client``: shared with others, and left open)."""

    def __init__(self, paths: list[str], address: str | None, client: Any = None) -> None:
        self.paths = paths
        self._stack = contextlib.ExitStack()
        if client is None:
            assert address is not None
            client = self._stack.enter_context(
                dask_client(address, paths_relative=not all(map(os.path.isabs, paths))))
        self.client = client

    def submit(self, shard: int, method: str, args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> Any:
        return self.client.submit(_on_worker, self.paths[shard], method, args, kwargs,
                                  pure=False, key=f"gohash-{method}-{shard}-{uuid.uuid4().hex}")

    def close(self) -> None:
        self._stack.close()


_WORKER = threading.local()


def _on_worker(path: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Index(path).method(*args, **kwargs)`` in a Dask worker, on the index this
    thread opened before, unless the file at ``path`` is another one now (a
    shard rebuilt or replaced)."""
    heap_as_usual()
    opened: dict[str, tuple[int, Index]] = _WORKER.__dict__.setdefault("indexes", {})
    try:
        inode = os.stat(path).st_ino
    except OSError:
        inode = -1  # opening it says why
    kept = opened.pop(path, None)
    if kept is not None and kept[0] != inode:
        kept[1].close()
        kept = None
    index = Index(path, read_only=True) if kept is None else kept[1]
    opened[path] = inode, index
    return getattr(index, method)(*args, **kwargs)


# -- the sharded index ------------------------------------------------------------------------


class ShardedIndex:
    """A sharded index (a folder with a manifest and its shards), searched as one.

    Its methods are :class:`~gohash.index.index.Index`'s, with the same
    arguments and answers, given with game ids ``local_id * shards + shard``
    (module docstring).  Each query asks every shard: in a thread each, or with
    ``dask`` (a scheduler's address or ``local:N``) in a task each on that
    cluster, whose workers must see the shard files at the same paths; or
    with ``client``, a Dask client made by the caller
    (:func:`~gohash.pipeline.cluster.dask_client`), which several indexes may
    share and which :meth:`close` leaves open.  A
    shard that raises, does not answer within ``timeout`` seconds (None: no
    limit) or is lost with its worker makes the query an
    :class:`~gohash.errors.IndexFileError` naming it.  Keywords of a query
    that this class does not merge on go to every shard as they are.
    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False,
                 dask: str | None = None, timeout: float | None = None,
                 client: Any = None) -> None:
        self.path = os.fspath(path)
        self.manifest = Manifest.read(self.path)
        self.shards = self.manifest.shards
        self.shard_paths = self.manifest.paths(self.path)
        for i, shard_path in enumerate(self.shard_paths):
            if not os.path.isfile(shard_path):
                raise IndexFileError(f"shard {i} of {self.shards} is missing", file=shard_path)
        self.timeout = timeout
        self._fan: _Threads | _Cluster = (
            _Threads(self.shard_paths, read_only) if dask is None and client is None
            else _Cluster(self.shard_paths, dask, client))

    @property
    def variations(self) -> bool:
        return self.manifest.variations

    @property
    def scheme_name(self) -> str:
        return self.manifest.scheme

    def close(self) -> None:
        self._fan.close()

    def __enter__(self) -> ShardedIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def keys(self, size: int) -> KeyScheme:
        """The key scheme of the index for one board size."""
        return NamedSchemes(self.manifest.scheme)(check_size(size))

    def global_id(self, shard: int, local_id: int) -> int:
        return local_id * self.shards + shard

    def local_id(self, game_id: int) -> tuple[int, int]:
        """The shard and local id of the global ``game_id``."""
        if isinstance(game_id, bool) or not isinstance(game_id, int) or game_id < 0:
            raise UnknownGameError(f"the index has no game with id {game_id!r}", file=self.path)
        return game_id % self.shards, game_id // self.shards

    def _ask(self, method: str, *args: Any, shards: Sequence[int] | None = None,
             each: Callable[[int], dict[str, Any]] | None = None, **kwargs: Any) -> list[Any]:
        """``method(*args, **kwargs)`` of each shard of ``shards`` (default all),
        with ``each(shard)``'s keywords too; their answers in shard order."""
        which = list(range(self.shards)) if shards is None else list(shards)

        def options(i: int) -> dict[str, Any]:
            return {**kwargs, **(each(i) if each else {})}

        if isinstance(self._fan, _Cluster):
            # An event does not travel to a worker: the tasks are cancelled here.
            cancel = kwargs.pop("cancel", None)
            return self._gather_dask(which, [self._fan.submit(i, method, args, options(i))
                                             for i in which], cancel)
        answers = []
        for i, outcome in zip(which, self._fan.ask(which, method, args, options, self.timeout),
                              strict=True):
            if outcome is None:
                raise IndexFileError(f"shard {i} of {self.shards} did not answer within "
                                     f"{self.timeout:g} s", file=self.shard_paths[i])
            answered, answer = outcome
            if answered:
                answers.append(answer)
            elif isinstance(answer, IndexFileError):
                raise self._named(i, answer) from None
            else:
                raise answer
        return answers

    def _named(self, shard: int, error: IndexFileError) -> IndexFileError:
        """A shard's index file error, its reason naming the shard (a server's
        answer leaves the file out)."""
        return IndexFileError(f"shard {shard} of {self.shards}: {error.reason}",
                              file=error.file or self.shard_paths[shard])

    def _gather_dask(self, which: list[int], futures: list[Any],
                     cancel: threading.Event | None = None) -> list[Any]:
        dist = distributed()
        try:
            if cancel is None:
                with contextlib.suppress(TimeoutError):
                    dist.wait(futures, timeout=self.timeout)
            else:
                self._wait_or_cancel(futures, cancel)
            answers = []
            for i, future in zip(which, futures, strict=True):
                if future.status == "pending":
                    raise IndexFileError(f"shard {i} of {self.shards} did not answer within "
                                         f"{self.timeout:g} s", file=self.shard_paths[i])
                try:
                    answers.append(future.result())
                except IndexFileError as e:
                    raise self._named(i, e) from None
                except GohashError:
                    raise
                except Exception as e:  # the worker was lost, or the task failed there
                    raise IndexFileError(f"shard {i} of {self.shards} failed on the Dask "
                                         f"cluster: {e!r}", file=self.shard_paths[i]) from None
        finally:
            for future in futures:
                future.cancel()
        return answers

    def _wait_or_cancel(self, futures: list[Any], cancel: threading.Event) -> None:
        """Wait for ``futures`` up to the timeout, looking at ``cancel`` every
        tenth of a second: once set, the query is
        :class:`~gohash.errors.QueryCancelled`."""
        dist = distributed()
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while not cancel.is_set():
            step = CANCEL_POLL if deadline is None else min(CANCEL_POLL,
                                                            deadline - time.monotonic())
            if step <= 0:
                return
            with contextlib.suppress(TimeoutError):
                dist.wait(futures, timeout=step)
                return
        raise QueryCancelled("the query was cancelled")

    # -- what it holds ------------------------------------------------------------------------

    def info(self) -> IndexInfo:
        """What the index holds (:meth:`Index.info`): the shards' counts summed,
        and ``distinct`` counted over all shards' keys (:meth:`counts`)."""
        parts: list[IndexInfo] = self._ask("info")
        versions: dict[str, int] = {}
        for part in parts:
            for version, n in part.gohash_versions.items():
                versions[version] = versions.get(version, 0) + n
        return IndexInfo(
            self.path, parts[0].schema_version, self.scheme_name, self.variations,
            sum(p.files for p in parts), sum(p.games for p in parts),
            sum(p.positions for p in parts), self._distinct(),
            sum(p.errors for p in parts), dict(sorted(versions.items())),
            sum(p.outdated for p in parts),
        )

    def counts(self) -> dict[str, int]:
        """Files, games, positions (distinct posting keys over all shards) and
        occurrences (postings)."""
        parts: list[dict[str, int]] = self._ask("counts")
        total = {name: sum(p[name] for p in parts) for name in parts[0]}
        total["positions"] = self._distinct()
        return total

    def _distinct(self) -> int:
        """The distinct posting keys of all shards: each shard's postings file read
        a range of keys at a time (the same ranges in every shard), the keys of
        a range counted at once (memory does not grow with the index).  Read
        here: the shard files must be readable where the query runs."""
        with contextlib.ExitStack() as stack:
            passes = []
            for shard_path in self.shard_paths:
                shard = stack.enter_context(_IndexFile(shard_path, read_only=True))
                passes.append(shard.postings.chunks(alive(shard.connection), CHUNK_TOPS))
            return sum(len(np.unique(np.concatenate([keys for keys, _, _ in ranges])))
                       for ranges in zip(*passes, strict=True))

    def sizes(self) -> dict[int, int]:
        """Games per board size."""
        total: dict[int, int] = {}
        for part in self._ask("sizes"):
            for size, n in part.items():
                total[size] = total.get(size, 0) + n
        return dict(sorted(total.items()))

    def check(self) -> list[str]:
        """Every fault of every shard, each naming its shard, and shards that do
        not agree with the manifest (key scheme, variations)."""
        faults = []
        infos: list[IndexInfo] = self._ask("info")
        for i, (info, found) in enumerate(zip(infos, self._ask("check"), strict=True)):
            where = f"{self.shard_paths[i]} (shard {i})"
            if info.scheme != self.scheme_name or info.variations != self.variations:
                faults.append(f"{where}: key scheme {info.scheme!r} and variations "
                              f"{info.variations}, the manifest says {self.scheme_name!r} and "
                              f"{self.variations}")
            faults += [f"{where}: {fault}" for fault in found]
        return faults

    # -- building and upkeep ------------------------------------------------------------------

    def build(self, paths: Iterable[str], **options: Any) -> BuildSummary:
        """Index every SGF file of ``paths`` into the shards that hold them
        (:func:`build_shards`, whose keywords these are)."""
        return build_shards(self.path, paths, **options).summary

    def remove(self, paths: Iterable[str]) -> Removed:
        """Remove the files of ``paths`` (:meth:`Index.remove`) from every shard
        that holds them: a folder's files may be in any shard.  A path is
        missing if no shard held it."""
        paths = list(paths)
        parts: list[Removed] = self._ask("remove", paths)
        return Removed([f for p in parts for f in p.files], sum(p.games for p in parts),
                       [path for path in paths if all(path in p.missing for p in parts)])

    # -- queries ------------------------------------------------------------------------------

    def _record(self, shard: int, record: Record) -> Record:
        return dataclasses.replace(record, id=self.global_id(shard, record.id))

    def _global(self, tagged: list[tuple[int, Any]]) -> list[Any]:
        """The items of ``tagged`` (a shard and an item with a ``record``), their
        records' ids made global: a page's only, once it is cut (the copies are
        most of a merge's cost), one copy of a game's record for all its items;
        a single shard's ids are already global."""
        if self.shards == 1:
            return [item for _, item in tagged]
        records: dict[tuple[int, int], Record] = {}
        out = []
        for shard, item in tagged:
            key = (shard, item.record.id)
            if key not in records:
                records[key] = self._record(shard, item.record)
            out.append(dataclasses.replace(item, record=records[key]))
        return out

    def find(self, position: Board | npt.ArrayLike, *, limit: int | None = 100,
             offset: int = 0, order: str | None = None, **options: Any) -> FindResult:
        """:meth:`Index.find`: each shard's first ``offset + limit`` occurrences,
        merged in game id order (or ``order``, then game id), then paged (one
        shard's answer is the index's)."""
        if self.shards == 1:
            found: FindResult = self._ask("find", position, limit=limit, offset=offset,
                                          order=order, **options)[0]
            return found
        parts: list[FindResult] = self._ask(
            "find", position, limit=None if limit is None else offset + limit, offset=0,
            order=order, **options)
        tagged = _in_order([(i, m) for i, part in enumerate(parts) for m in part.matches],
                           lambda t: t[1].record, order,
                           lambda t: self.global_id(t[0], t[1].record.id))
        page = tagged[offset:] if limit is None else tagged[offset:offset + limit]
        return FindResult(parts[0].key, sum(p.total for p in parts), self._global(page),
                          offset, limit, sum(p.rejected for p in parts), parts[0].bits)

    def continuations(self, position: Board | npt.ArrayLike, *, limit: int | None = None,
                      **options: Any) -> Continuations:
        """:meth:`Index.continuations`: every shard's moves summed, then cut (one
        shard's answer is the index's)."""
        parts: list[Continuations] = self._ask(
            "continuations", position, limit=limit if self.shards == 1 else None, **options)
        first = parts[0]
        if len(parts) == 1:
            return first
        result = dataclasses.replace(first, total=0, ended=0, same_colours=0,
                                     exchanged_colours=0, black_wins=0, white_wins=0, other=0,
                                     moves=[], years={}, setup_left_out=0)
        # A move's sums as a list (a shard's first answer for it, count, black
        # wins, white wins, other, first date, last date, same colours,
        # exchanged colours): a Continuation is made only for those kept.
        moves: dict[tuple[str, Any], list[Any]] = {}
        for part in parts:
            for name in ("total", "ended", "same_colours", "exchanged_colours", "black_wins",
                         "white_wins", "other", "setup_left_out"):
                setattr(result, name, getattr(result, name) + getattr(part, name))
            for year, n in part.years.items():
                result.years[year] = result.years.get(year, 0) + n
            for move in part.moves:
                sums = moves.get((move.colour, move.point))
                if sums is None:
                    moves[move.colour, move.point] = [
                        move, move.count, move.black_wins, move.white_wins, move.other,
                        move.first_date, move.last_date, move.same_colours,
                        move.exchanged_colours]
                    continue
                sums[1] += move.count
                sums[2] += move.black_wins
                sums[3] += move.white_wins
                sums[4] += move.other
                sums[5] = _least((sums[5], move.first_date))
                sums[6] = _most((sums[6], move.last_date))
                sums[7] += move.same_colours
                sums[8] += move.exchanged_colours
        ordered = sorted(moves.values(), key=lambda m: (
            -m[1], m[0].colour != "b", m[0].point is None, m[0].point or (0, 0)))
        result.moves = [Continuation(
            move.point, move.colour, count, count / result.total, black_wins, white_wins,
            other, first_date, last_date, same, exchanged, move.equivalent, move.size)
            for move, count, black_wins, white_wins, other, first_date, last_date, same,
            exchanged in ordered[:limit]]
        result.years = dict(sorted(result.years.items()))
        return result

    def pattern(self, diagram: str | Pattern, *, limit: int | None = 100, offset: int = 0,
                **options: Any) -> PatternResult[Record]:
        """:meth:`Index.pattern`: each shard's first ``offset + limit`` matches,
        merged in game id order, then paged; counts and continuations summed (one
        shard's answer is the index's)."""
        if self.shards == 1:
            found: PatternResult[Record] = self._ask("pattern", diagram, limit=limit,
                                                     offset=offset, **options)[0]
            return found
        parts: list[PatternResult[Record]] = self._ask(
            "pattern", diagram, limit=None if limit is None else offset + limit, offset=0,
            **options)
        tagged = sorted(((i, m) for i, part in enumerate(parts) for m in part.matches),
                        key=lambda t: self.global_id(t[0], t[1].record.id))
        page: list[PatternMatch[Record]] = self._global(
            tagged[offset:] if limit is None else tagged[offset:offset + limit])
        moves: dict[tuple[str, Any], list[PatternContinuation]] = {}
        for part in parts:
            for move in part.continuations:
                moves.setdefault((move.colour, move.point), []).append(move)
        continuations = [PatternContinuation(
            same[0].colour, same[0].point, same[0].equivalent, sum(m.count for m in same),
            sum(m.tenuki for m in same), sum(m.black_wins for m in same),
            sum(m.white_wins for m in same), sum(m.other for m in same),
            _least(m.first_date for m in same), _most(m.last_date for m in same), same[0].size,
        ) for same in moves.values()]
        continuations.sort(key=lambda m: (-m.count, m.colour != "b", m.point))
        first = parts[0]
        return PatternResult(
            first.pattern, first.symmetry, first.placements, sum(p.searched for p in parts),
            sum(p.candidates for p in parts), sum(p.games for p in parts),
            sum(p.total for p in parts), sum(p.ended for p in parts), page, continuations,
            limit, offset)

    def records(self) -> dict[int, Record]:
        """Every game record, by id."""
        return {self.global_id(i, local): self._record(i, record)
                for i, part in enumerate(self._ask("records")) for local, record in part.items()}

    def _records(self, game_ids: list[int]) -> dict[int, Record]:
        """The records of ``game_ids``, by id."""
        wanted = self._by_shard(game_ids)
        parts = self._ask("_records", shards=list(wanted), each=lambda i: {
            "game_ids": wanted[i]})
        return {self.global_id(i, local): self._record(i, record)
                for i, part in zip(wanted, parts, strict=True) for local, record in part.items()}

    def _by_shard(self, game_ids: Iterable[int]) -> dict[int, list[int]]:
        wanted: dict[int, list[int]] = {}
        for game_id in game_ids:
            shard, local = self.local_id(game_id)
            wanted.setdefault(shard, []).append(local)
        return dict(sorted(wanted.items()))

    def _one(self, method: str, game_id: int) -> Any:
        shard, local = self.local_id(game_id)
        try:
            return self._ask(method, local, shards=[shard])[0]
        except UnknownGameError:
            raise UnknownGameError(f"the index has no game with id {game_id!r}",
                                   file=self.path) from None

    def game(self, game_id: int) -> GameRecord:
        """:meth:`Index.game` of the shard that holds ``game_id``."""
        game: GameRecord = self._one("game", game_id)
        return dataclasses.replace(game, record=self._record(game_id % self.shards,
                                                             game.record))

    def sgf(self, game_id: int) -> str:
        """:meth:`Index.sgf` of the shard that holds ``game_id``."""
        text: str = self._one("sgf", game_id)
        return text

    def sgf_name(self, game_id: int) -> str:
        """:meth:`Index.sgf_name` of the shard that holds ``game_id``."""
        name: str = self._one("sgf_name", game_id)
        return name

    def player(self, name: str, *, openings: int | None = 10, order: str = "-date",
               **options: Any) -> PlayerSummary:
        """:meth:`Index.player`: each shard's summary with all its openings, summed,
        its games merged by ``order`` then game id."""
        parts: list[PlayerSummary] = self._ask("player", name, openings=None, order=order,
                                               **options)
        records = _in_order([self._record(i, r) for i, part in enumerate(parts)
                             for r in part.records], lambda r: r, order)
        colours = {c: _results(p.colours[c] for p in parts) for c in ("b", "w")}
        years = {}
        for year in sorted({y for p in parts for y in p.years}):
            years[year] = _results(p.years[year] for p in parts if year in p.years)
        first = parts[0]
        found = _openings([o for p in parts for o in p.openings])
        shapes = _openings([o for p in parts for o in p.corners])
        return PlayerSummary(
            name, records, colours, years, found[:openings], first.opening_length,
            sum(p.openings_counted for p in parts), shapes[:openings], first.corner_length,
            sum(p.corners_counted for p in parts))

    def players(self, text: str, *, limit: int | None = 20) -> list[PlayerMatch]:
        """:meth:`Index.players`: every shard's players, their games summed, in
        one index's order (the name equal to ``text`` first, then the most games,
        then by name)."""
        games: dict[str, int] = {}
        for part in self._ask("players", text, limit=None):
            for match in part:
                games[match.name] = games.get(match.name, 0) + match.games
        folded = text.casefold()
        ordered = sorted(games.items(), key=lambda row: (row[0].casefold() != folded, -row[1],
                                                         row[0]))
        return [PlayerMatch(name, n) for name, n in ordered[:limit]]

    def version(self) -> tuple[int, int]:
        """A value that changes whenever a shard does (:meth:`Index.version`, summed:
        each part only grows)."""
        parts: list[tuple[int, int]] = self._ask("version")
        return sum(p[0] for p in parts), sum(p[1] for p in parts)

    def dupes(self, *, min_positions: int = 10) -> Dupes:
        """:meth:`Index.dupes` over all shards: games in different shards that are
        the same game too.  Every shard's games' last positions
        (:meth:`Index.dupe_lasts`) are looked up in every shard
        (:meth:`Index.dupe_holders`), and the candidates compared on their
        frames (:func:`~gohash.index.dupes.group_dupes`), as in one index."""
        lasts = [(self.global_id(i, game), key, node)
                 for i, part in enumerate(self._ask("dupe_lasts", min_positions=min_positions))
                 for game, key, node in part]
        wanted = [(key, node) for _, key, node in lasts]
        holders = [(place, self.global_id(i, game))
                   for i, part in enumerate(self._ask("dupe_holders", wanted,
                                                      min_positions=min_positions))
                   for place, game in part]

        def frames(game_ids: list[int]) -> dict[int, tuple[tuple[bytes, ...], int]]:
            by_shard = self._by_shard(game_ids)
            parts = self._ask("main_frames", shards=list(by_shard),
                              each=lambda i: {"game_ids": by_shard[i]})
            return {self.global_id(i, local): found
                    for i, part in zip(by_shard, parts, strict=True)
                    for local, found in part.items()}

        return group_dupes(dupe_candidates([game for game, _, _ in lasts], holders), frames,
                           self._records)


def _least(dates: Iterable[str | None]) -> str | None:
    return min((d for d in dates if d is not None), default=None)


def _most(dates: Iterable[str | None]) -> str | None:
    return max((d for d in dates if d is not None), default=None)


def _results(parts: Iterable[Results]) -> Results:
    total = Results()
    for part in parts:
        total.games += part.games
        total.wins += part.wins
        total.losses += part.losses
        total.other += part.other
    return total


def _openings(parts: Sequence[Opening]) -> list[Any]:
    """Openings (or corner patterns) of several shards with the same moves summed,
    most played first, then by size and moves, as one index orders them."""
    merged: dict[tuple[int, Any], Opening] = {}
    for part in parts:
        kept = merged.get((part.size, part.moves))
        if kept is None:
            kept = merged[part.size, part.moves] = dataclasses.replace(part)
            kept.years = dict(part.years)
            kept.results = _results([part.results])
            if isinstance(kept, CornerPattern) and isinstance(part, CornerPattern):
                kept.player = dict(part.player)
            continue
        kept.count += part.count
        for year, n in part.years.items():
            kept.years[year] = kept.years.get(year, 0) + n
        kept.results = _results([kept.results, part.results])
        if isinstance(kept, CornerPattern) and isinstance(part, CornerPattern):
            for colour, n in part.player.items():
                kept.player[colour] = kept.player.get(colour, 0) + n
    ordered = sorted(merged.values(), key=lambda o: (-o.count, o.size, o.letters))
    for opening in ordered:
        opening.years = dict(sorted(opening.years.items()))
    return ordered


def _in_order(items: list[Any], record: Callable[[Any], Record], order: str | None,
              game_id: Callable[[Any], int] | None = None) -> list[Any]:
    """``items`` (each with its game's ``record``) by game id (``game_id(item)``,
    or the record's), or by ``order`` (:func:`~gohash.index.filters.game_order`,
    as SQLite sorts it) then game id; items of one game keep their order."""
    items = sorted(items, key=game_id or (lambda item: record(item).id))
    if order is None:
        return items
    name = order.removeprefix("-")
    if name not in GAME_ORDERS:
        raise GohashError(f"order {order!r} is not one of "
                          f"{', '.join(n for n in GAME_ORDERS)} (or one with '-' before it)")
    values = [_order_value(record(item), name) for item in items]
    present = [item for item, v in zip(items, values, strict=True) if v is not None]
    present_values = [v for v in values if v is not None]
    ranked = [item for _, item in sorted(zip(present_values, present, strict=True),
                                         key=lambda pair: pair[0],
                                         reverse=order.startswith("-"))]
    return ranked + [item for item, v in zip(items, values, strict=True) if v is None]


def _order_value(record: Record, name: str) -> Any:
    """What :data:`~gohash.index.filters.GAME_ORDERS` sorts a game by (None: it has none)."""
    if name == "date":
        return record.date
    if name == "result":
        return record.winner
    levels = [rank_level(record.black_rank), rank_level(record.white_rank)]
    if all(level is None for level in levels):
        return None
    return max(-1 if level is None else level for level in levels)


# -- opening either kind ----------------------------------------------------------------------


def open_index(path: str | os.PathLike[str], *, read_only: bool = False,
               dask: str | None = None, timeout: float | None = None,
               client: Any = None) -> Index | ShardedIndex:
    """The index at ``path``: a :class:`ShardedIndex` for a folder with a
    manifest (asked on the Dask cluster ``dask``, or through the Dask
    ``client``, if given; ``timeout`` per query), else an
    :class:`~gohash.index.index.Index`, which neither applies to."""
    if is_sharded(path):
        return ShardedIndex(path, read_only=read_only, dask=dask, timeout=timeout,
                            client=client)
    if dask is not None or client is not None:
        require_sharded(path)
    return Index(path, read_only=read_only)


def require_sharded(path: str | os.PathLike[str]) -> None:
    """Refuse ``--dask`` on what is not a sharded index (a
    :class:`~gohash.errors.GohashError`)."""
    if not is_sharded(path):
        raise GohashError(f"--dask searches a sharded index; {os.fspath(path)!r} is not one "
                          "(gohash index build --shards N makes one)")
