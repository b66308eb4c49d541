"""Worker processes for the batch commands: tasks in, results out in input order.

Scope: :func:`ordered_map`, the one process pool of gohash (the batch
commands reach it through :func:`gohash.pipeline.jobs.run_tasks`; ``gohash
serve`` reads games in a :class:`WorkerPool` of its own); a task whose worker
process died on it is a :class:`~gohash.errors.WorkerDied`.
"""

from __future__ import annotations

import io
import os
import pickle
import shutil
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, Generic, Literal, TypeVar, cast, overload

from ..errors import WorkerDied

if sys.platform == "win32":
    from multiprocessing.context import SpawnContext as _ForkContext
    from multiprocessing.context import SpawnContext as _ForkServerContext
    from multiprocessing.context import SpawnProcess as _ForkProcess
    from multiprocessing.context import SpawnProcess as _ForkServerProcess
else:
    from multiprocessing.context import ForkContext as _ForkContext
    from multiprocessing.context import ForkProcess as _ForkProcess
    from multiprocessing.context import ForkServerContext as _ForkServerContext
    from multiprocessing.context import ForkServerProcess as _ForkServerProcess

__all__ = [
    "MAX_BATCH_BYTES",
    "MAX_TASKS_PER_BATCH",
    "SpoolFiles",
    "WorkerPool",
    "batches",
    "each",
    "ordered_map",
    "scratch_folder",
]

T = TypeVar("T")
R = TypeVar("R")

# Tasks per message to and from a worker process, at most.
MAX_TASKS_PER_BATCH = 64
# Task data read by this process (archive members, standard input) per batch,
# at most; one task over it goes alone.
MAX_BATCH_BYTES = 8 * 1024 * 1024
# Seconds between a worker's looks at whether its parent is still there.
_PARENT_POLL = 0.5
# The signal the OOM killer sends, and the one the executor stops the other
# workers of a broken pool with (numbers: Windows has no SIGKILL).
_SIGKILL = 9
_SIGTERM = 15


_scratch: str | None = None


def scratch_folder() -> str | None:
    """In a worker process of :func:`ordered_map`, a folder for results too large to
    hold in memory (a task writes a file there and returns its path; the caller
    reads it and removes it): it is removed with the pool, also when the parent
    is killed.  None in any other process."""
    return _scratch


class SpoolFiles:
    """The files a task's results were spooled to in workers'
    :func:`scratch_folder`, read back in task order: each batch's file opened
    once, and removed after the last task with results there."""

    def __init__(self) -> None:
        self.path = ""
        self.file: io.FileIO | None = None

    def at(self, path: str, offset: int) -> io.FileIO:
        """The file ``path``, at ``offset``."""
        if path != self.path:
            self.close()
            self.file = open(path, "rb", buffering=0)  # noqa: SIM115 (closed in close)
            self.path = path
        assert self.file is not None
        self.file.seek(offset)
        return self.file

    def done(self, path: str, last: bool) -> None:
        """A task's results in ``path`` read; ``last`` if no later task has any there."""
        if last:
            self.close()
            os.remove(path)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file, self.path = None, ""


@overload
def ordered_map(
    function: Callable[[T], R],
    tasks: Iterable[T],
    *,
    jobs: int,
    expected: int,
    weight: Callable[[T], int] | None = None,
    on_death: Callable[[str], object] | None = None,
    batched: Literal[False] = False,
) -> Iterator[tuple[T, R | WorkerDied]]: ...


@overload
def ordered_map(
    function: Callable[[list[T]], list[R]],
    tasks: Iterable[T],
    *,
    jobs: int,
    expected: int,
    weight: Callable[[T], int] | None = None,
    on_death: Callable[[str], object] | None = None,
    batched: Literal[True],
) -> Iterator[tuple[T, R | WorkerDied]]: ...


def ordered_map(
    function: Callable[[T], R] | Callable[[list[T]], list[R]],
    tasks: Iterable[T],
    *,
    jobs: int,
    expected: int,
    weight: Callable[[T], int] | None = None,
    on_death: Callable[[str], object] | None = None,
    batched: bool = False,
) -> Iterator[tuple[T, R | WorkerDied]]:
    """``function`` of every task in ``jobs`` worker processes: ``(task, result)``
    for each task, in the order of ``tasks``, exactly once.

    ``function`` and the tasks must be picklable (``function`` defined at the
    top level of a module); ``tasks`` is read lazily.  With ``batched``,
    ``function`` takes a list of tasks and returns their results in order (one
    call per batch, for work whose cost per call is high; a retried task comes
    alone).  ``expected``, about how many tasks there are, sizes the batches;
    ``weight`` gives the bytes a task carries from this process.  When a worker
    dies, ``on_death`` gets a message saying how and how many tasks are
    retried; a task whose retry kills its worker too gives a
    :class:`WorkerDied` instead of a result.  An exception raised by
    ``function`` propagates here.
    """
    size = max(1, min(MAX_TASKS_PER_BATCH, expected // (8 * jobs)))
    per_list: Callable[[list[T]], list[R]] = (
        cast(Callable[[list[T]], list[R]], function) if batched
        else partial(each, cast(Callable[[T], R], function))
    )
    with tempfile.TemporaryDirectory(prefix="gohash-") as folder:
        runner = _Runner(per_list, jobs, folder, on_death)
        try:
            yield from runner.run(batches(tasks, size, weight))
        finally:
            runner.close()


def each(function: Callable[[T], R], tasks: list[T]) -> list[R]:
    """``function`` of each of ``tasks``: a function of one task made one of a list."""
    return [function(task) for task in tasks]


def batches(tasks: Iterable[T], size: int, weight: Callable[[T], int] | None) -> Iterator[list[T]]:
    """Consecutive tasks in lists of ``size``, fewer once the bytes ``weight`` gives
    reach :data:`MAX_BATCH_BYTES` (a task over it goes alone)."""
    batch: list[T] = []
    data = 0
    for task in tasks:
        batch.append(task)
        data += weight(task) if weight is not None else 0
        if len(batch) == size or data >= MAX_BATCH_BYTES:
            yield batch
            batch, data = [], 0
    if batch:
        yield batch


def _run_batch(function: Callable[[list[T]], list[R]], tasks: list[T], path: str) -> None:
    """In a worker: the results of ``tasks``, written to ``path``."""
    results = function(tasks)
    with open(path, "wb") as f:
        pickle.dump(results, f, protocol=pickle.HIGHEST_PROTOCOL)


def _start_worker(folder: str) -> None:
    """In a worker, first: make ``folder`` its :func:`scratch_folder`, and exit
    once the parent is gone, removing the folder.

    A parent killed with SIGKILL cannot stop its workers, and they would wait
    for tasks for ever; the dead parent's pipes do not tell them, as the other
    workers hold copies of their ends.  An orphan gets a new parent process id
    (on Windows it keeps the old one, and this never fires).  A worker of a
    fork server is its child, and the fork server exits once this process is
    gone."""
    global _scratch
    _scratch = folder
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL)
        shutil.rmtree(folder, ignore_errors=True)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _load(path: str) -> list[Any]:
    with open(path, "rb") as f:
        results: list[Any] = pickle.load(f)
    os.remove(path)
    return results


_Process = _ForkProcess | _ForkServerProcess


class _Remembering:
    """A start method's context that remembers the worker processes it makes."""

    process_type: type[_Process]

    def __init__(self) -> None:
        super().__init__()
        self.started: list[_Process] = []

    # The executor calls ``context.Process(...)``, a class in the base context.
    def Process(self, *args: Any, **kwargs: Any) -> _Process:
        process = self.process_type(*args, **kwargs)
        self.started.append(process)
        return process


class _Forked(_Remembering, _ForkContext):  # type: ignore[misc]
    """Workers forked from this process."""

    process_type = _ForkProcess


class _FromServer(_Remembering, _ForkServerContext):  # type: ignore[misc]
    """Workers forked from a fork server (a process of one thread, started afresh)."""

    process_type = _ForkServerProcess


class WorkerPool:
    """An executor of ``jobs`` worker processes, and the processes it started: the
    pool of :func:`ordered_map`, and of ``gohash serve``'s game reads.  Each
    worker's :func:`scratch_folder` is ``folder``, and a worker exits once its
    parent is gone.

    ``threaded``: this process runs other threads while workers start (a
    server).  Its workers then come from a fork server, never from this
    process: a fork copies the locks other threads hold at that instant
    (SQLite's allocator mutex among them) into a child where no thread will
    release them; the fork server imports ``preload`` (the modules of the
    tasks) once, for the workers it makes.  Otherwise workers are forked from
    this process, inheriting what it loaded."""

    def __init__(self, jobs: int, folder: str, *, threaded: bool = False,
                 preload: tuple[str, ...] = ()) -> None:
        self.context: _Forked | _FromServer = _FromServer() if threaded else _Forked()
        if threaded:
            self.context.set_forkserver_preload(list(preload))
        self.executor = ProcessPoolExecutor(
            jobs, mp_context=self.context, initializer=_start_worker, initargs=(folder,)
        )

    def close(self) -> None:
        """Stop the workers now: every result still wanted is in.

        They are stopped here, not by the executor's shutdown, which sends each
        a stop message and waits for it without watching for deaths any more: a
        worker killed while idle holds the lock of the task queue for ever, and
        the others wait behind it for their stop message."""
        for process in self.context.started:
            if process.pid is not None:
                process.terminate()
        self.executor.shutdown(wait=True, cancel_futures=True)

    def death(self) -> str:
        """How a worker died, once the pool broke and is closed.  The other
        workers were then stopped with SIGTERM: another cause comes first."""
        codes = [p.exitcode for p in self.context.started if p.exitcode is not None]
        codes.sort(key=lambda code: code == -_SIGTERM)
        if not codes:
            return "exit status unknown"
        if codes[0] >= 0:
            return f"exit code {codes[0]}"
        signal = -codes[0]
        return f"killed by signal {signal}" + ("; out of memory?" if signal == _SIGKILL else "")


class _Runner(Generic[T, R]):
    """The state of one :func:`ordered_map`: the pool, the batches in flight
    (oldest first, each with its future and result file) and the retry pool."""

    def __init__(
        self,
        function: Callable[[list[T]], list[R]],
        jobs: int,
        folder: str,
        on_death: Callable[[str], object] | None,
    ) -> None:
        self.function = function
        self.jobs = jobs
        self.folder = folder
        self.on_death = on_death
        self.pool: WorkerPool | None = None
        self.retry_pool: WorkerPool | None = None
        self.pending: deque[tuple[list[T], Future[None], str]] = deque()
        self.sent = 0

    def run(self, batches: Iterable[list[T]]) -> Iterator[tuple[T, R | WorkerDied]]:
        for batch in batches:
            if len(self.pending) >= 2 * self.jobs:
                yield from self._oldest()
            if self.pool is None:
                self.pool = WorkerPool(self.jobs, self.folder)
            if not self._submit(self.pool, batch):
                yield from self._recover()
        while self.pending:
            yield from self._oldest()

    def close(self) -> None:
        for pool in (self.pool, self.retry_pool):
            if pool is not None:
                pool.close()
        self.pool = self.retry_pool = None

    def _submit(self, pool: WorkerPool, batch: list[T]) -> bool:
        """Send ``batch`` to ``pool``; False if the pool is broken (the batch
        is then in flight as a broken one, to be retried)."""
        path = os.path.join(self.folder, str(self.sent))
        self.sent += 1
        try:
            future = pool.executor.submit(_run_batch, self.function, batch, path)
        except BrokenProcessPool as e:
            future = Future()
            future.set_exception(e)
            self.pending.append((batch, future, path))
            return False
        self.pending.append((batch, future, path))
        return True

    def _oldest(self) -> Iterator[tuple[T, R | WorkerDied]]:
        batch, future, path = self.pending[0]
        if _broke(future):
            yield from self._recover()
            return
        self.pending.popleft()
        future.result()  # raises what the function raised
        yield from zip(batch, _load(path), strict=True)

    def _recover(self) -> Iterator[tuple[T, R | WorkerDied]]:
        """After the pool broke: every batch in flight, in order, the finished
        ones as they are and the broken ones retried task by task."""
        assert self.pool is not None
        self.pool.close()
        reason = self.pool.death()
        self.pool = None
        retried = sum(len(batch) for batch, future, _ in self.pending if _broke(future))
        if self.on_death is not None:
            self.on_death(
                f"a worker process died ({reason}); "
                f"retrying {retried:,} unfinished files one at a time"
            )
        while self.pending:
            batch, future, path = self.pending.popleft()
            if _broke(future):
                for task in batch:
                    yield task, self._retry(task)
            else:
                future.result()  # raises what the function raised
                yield from zip(batch, _load(path), strict=True)
        if self.retry_pool is not None:
            self.retry_pool.close()
            self.retry_pool = None

    def _retry(self, task: T) -> R | WorkerDied:
        """``task`` alone in the retry pool; WorkerDied if its worker dies."""
        path = os.path.join(self.folder, str(self.sent))
        self.sent += 1
        if self.retry_pool is None:
            self.retry_pool = WorkerPool(1, self.folder)
        try:
            future = self.retry_pool.executor.submit(_run_batch, self.function, [task], path)
        except BrokenProcessPool:
            # The worker died idle, before this task.  A fresh executor starts
            # its workers on its first task, so cannot be broken before it.
            self.retry_pool.close()
            self.retry_pool = WorkerPool(1, self.folder)
            future = self.retry_pool.executor.submit(_run_batch, self.function, [task], path)
        if not _broke(future):
            future.result()  # raises what the function raised
            result: R = _load(path)[0]
            return result
        self.retry_pool.close()
        reason = self.retry_pool.death()
        self.retry_pool = None
        return WorkerDied(f"worker process died ({reason})")


def _broke(future: Future[None]) -> bool:
    """Whether the batch of ``future`` was lost with its pool (waits for it to end)."""
    return isinstance(future.exception(), BrokenProcessPool)
