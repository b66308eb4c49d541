"""Slow work of ``gohash serve`` (pattern searches, games read again) kept from
starving the rest of the server.

Scope: a :class:`Lane` runs one kind of slow work, a few tasks at once with a
bounded queue behind them, and refuses a request beyond the queue at once
(:class:`~gohash.errors.ServerBusy`: a 503 with ``Retry-After``); a waiting
request holds none of the threads that the small requests are answered in.
:meth:`Lane.call` awaits a task while watching its request's client: when the
client goes away, a task still queued never runs and a running one sees its
``threading.Event`` set (the library's ``cancel``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from starlette.requests import Request

from ..errors import QueryCancelled, ServerBusy

__all__ = ["RETRY_AFTER", "Lane"]

RETRY_AFTER = 2
"""Seconds a refused request is told to wait (``Retry-After``)."""

T = TypeVar("T")


class Lane:
    """At most ``workers`` tasks of one kind running and ``waiting`` more queued
    behind them; another is refused with :class:`~gohash.errors.ServerBusy`
    (``what`` names the tasks, ``retry_after`` is its seconds).  A task's slot
    is taken when it is admitted and given back when it ends or is dropped from
    the queue, not when its request is abandoned: abandoned work that still runs
    counts until it sees its cancel event."""

    def __init__(self, what: str, workers: int, waiting: int, retry_after: int) -> None:
        self.what = what
        self.workers = workers
        self.capacity = workers + waiting
        self.retry_after = retry_after
        self._lock = threading.Lock()
        self._slots: set[_Slot] = set()
        self._threads: ThreadPoolExecutor | None = None

    @property
    def taken(self) -> int:
        """Tasks admitted and not yet ended: running or queued."""
        with self._lock:
            return len(self._slots)

    async def run(self, request: Request, task: Callable[[threading.Event], T]) -> T:
        """``task(cancel)``, run in one of the lane's ``workers`` threads (:meth:`call`)."""

        async def submit(cancel: threading.Event) -> Future[T]:
            with self._lock:
                if self._threads is None:
                    self._threads = ThreadPoolExecutor(self.workers, "gohash-" + self.what)
                threads = self._threads
            return threads.submit(task, cancel)

        return await self.call(request, submit)

    async def call(
        self, request: Request, submit: Callable[[threading.Event], Awaitable[Future[T]]]
    ) -> T:
        """The outcome of the task that ``submit(cancel)`` starts (the future it
        returns), once admitted; its error raised.  Should ``request``'s client go
        away first (or the request be cancelled: the server stopping),
        ``cancel`` is set, the task is dropped if it has not started, and
        :class:`~gohash.errors.QueryCancelled` is raised."""
        slot = self._admit()
        try:
            future = await submit(slot.cancel)
        except BaseException:
            slot.release()
            raise
        future.add_done_callback(slot.release)
        outcome = asyncio.wrap_future(future)
        gone = asyncio.ensure_future(_disconnected(request))
        try:
            await asyncio.wait((outcome, gone), return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not outcome.done():
                slot.cancel.set()
                outcome.cancel()  # and the task with it, unless it has started
        if outcome.cancelled():
            raise QueryCancelled("the request was cancelled: its client went away")
        return outcome.result()

    def close(self) -> None:
        """Cancel every task (the server stops): the queued are dropped, the
        running see their cancel events set."""
        with self._lock:
            slots, threads, self._threads = list(self._slots), self._threads, None
        for slot in slots:
            slot.cancel.set()
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)

    def _admit(self) -> _Slot:
        with self._lock:
            if len(self._slots) >= self.capacity:
                raise ServerBusy(
                    f"the server is busy: {len(self._slots)} {self.what} under way or "
                    f"waiting; ask again in {self.retry_after} s",
                    retry_after=self.retry_after,
                )
            slot = _Slot(self)
            self._slots.add(slot)
            return slot


class _Slot:
    """One admitted task's place in its lane, and its cancel event."""

    def __init__(self, lane: Lane) -> None:
        self.lane = lane
        self.cancel = threading.Event()

    def release(self, *_: object) -> None:
        """Give the place back (once; also a future's done callback)."""
        with self.lane._lock:
            self.lane._slots.discard(self)


async def _disconnected(request: Request) -> None:
    """Return once the request's client has gone away.

    What :meth:`Request.is_disconnected <starlette.requests.Request.is_disconnected>`
    polls, awaited instead: the server's next message after the request (and its
    body, dropped) is ``http.disconnect``, sent when the connection closes."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
