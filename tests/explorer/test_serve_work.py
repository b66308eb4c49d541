"""``gohash serve``'s slow work (gohash.explorer.work): pattern searches and game
reads run a few at once behind a bounded queue; a request beyond it is refused
at once (503 with ``Retry-After``) while the small requests are answered; a
request whose client went away is cancelled (dropped from the queue, or its
search's cancel event set); a search's time budget reaches ``Index.pattern``, and
its ``QueryTooBroad`` is a 422 with the counts.  ``Index.pattern`` is replaced by a
search that waits for events, and game reads by stopped worker processes: what
is checked never depends on how long anything takes."""

from __future__ import annotations

import asyncio
import http.client
import json
import multiprocessing
import os
import queue
import signal
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.testclient import TestClient
from starlette.types import Message

from gohash.errors import QueryCancelled, QueryTooBroad, ServerBusy
from gohash.explorer import games as explorer_games
from gohash.explorer.app import (
    PATTERN_SEARCHES,
    PATTERN_TIMEOUT,
    PATTERNS_WAITING,
    create_app,
)
from gohash.explorer.games import MAX_GAME_READS
from gohash.explorer.work import RETRY_AFTER, Lane
from gohash.index.index import Index
from gohash.pattern.search import PatternResult
from tests.support.serve_fixtures import DATA, build_index, running_server

EVERYTHING_9 = "\n".join(["*" * 9] * 9)
"""A 9x9 pattern that every 9x9 game holds at its first position."""
PATTERN_PATH = "/api/pattern?" + urllib.parse.urlencode({"diagram": EVERYTHING_9})
WAIT = 60.0
"""Seconds any wait here may take at most before the test fails."""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_index(tmp_path_factory.mktemp("work") / "index.db", [DATA])


class Searches:
    """``Index.pattern`` replaced: each call puts its cancel event on :attr:`calls`,
    then waits until :attr:`release` is set (and answers as the real search
    does) or its cancel event is (and raises QueryCancelled, as the library does)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: queue.Queue[threading.Event] = queue.Queue()
        self.release = threading.Event()
        self.count = 0
        real = Index.pattern

        def pattern(index: Index, diagram: str, *, timeout: float | None = None,
                    cancel: threading.Event, **options: Any) -> PatternResult:
            self.count += 1
            self.calls.put(cancel)
            until(lambda: self.release.is_set() or cancel.is_set())
            if not self.release.is_set():
                raise QueryCancelled("cancelled")
            return real(index, diagram, **options)

        monkeypatch.setattr(Index, "pattern", pattern)


def until(condition: Callable[[], bool]) -> None:
    """Wait until ``condition()`` holds (a failure after :data:`WAIT` seconds)."""
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.005)


def get(port: int, path: str) -> tuple[int, str | None, Any]:
    """Status, ``Retry-After`` and JSON body of a GET on a connection of its own."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.getheader("retry-after"), json.loads(response.read())
    finally:
        conn.close()


def sent(port: int, path: str) -> socket.socket:
    """A connection that sent a GET of ``path`` and reads nothing."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


@pytest.fixture
def served(db: Path) -> Iterator[Callable[[], tuple[int, Any]]]:
    """Starts the app on a server of its own (stopped after the test); gives its
    port and the app."""
    with ExitStack() as stack:

        def start() -> tuple[int, Any]:
            app = create_app(db)
            url = stack.enter_context(running_server(db, app=app))
            return int(url.rsplit(":", 1)[1]), app

        yield start


SMALL = ["/api/info", "/api/position?size=9&moves=ee", "/api/games?size=19",
         "/api/position?size=19&moves=pd,dp", "/api/player?name=Alice"]


def test_a_flood_of_searches_is_queued_or_refused_and_small_requests_go_on(
    db: Path, served: Callable[[], tuple[int, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    with Index(db, read_only=True) as index:
        hits = index.pattern(EVERYTHING_9).total
    searches = Searches(monkeypatch)
    port, app = served()
    capacity = PATTERN_SEARCHES + PATTERNS_WAITING
    with ThreadPoolExecutor(60) as pool:
        flood: list[Future[tuple[int, str | None, Any]]] = [
            pool.submit(get, port, PATTERN_PATH) for _ in range(60)]
        refused = []
        for future in as_completed(flood, timeout=WAIT):
            refused.append(future.result())
            if len(refused) == 60 - capacity:
                break
        for status, retry_after, body in refused:
            assert status == 503 and retry_after == str(RETRY_AFTER), body
            assert body["error"].startswith("the server is busy: 9 pattern searches")
        assert app.state.patterns.taken == capacity
        # The first search runs (and waits), the others are queued: meanwhile the
        # small requests are answered, as they were not while waiting searches
        # held the threads they are answered in.
        searches.calls.get(timeout=WAIT)
        for path in SMALL * 3:
            assert get(port, path)[0] == 200, path
        waiting = [future for future in flood if not future.done()]
        assert len(waiting) == capacity
        searches.release.set()
        answers = [future.result(timeout=WAIT) for future in waiting]
    assert [status for status, _, _ in answers] == [200] * capacity
    assert {body["total"] for _, _, body in answers} == {hits}
    assert searches.count == capacity
    assert app.state.patterns.taken == 0


def test_a_search_whose_client_went_away_is_cancelled(
    served: Callable[[], tuple[int, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    searches = Searches(monkeypatch)
    port, app = served()
    lane = app.state.patterns
    running = sent(port, PATTERN_PATH)
    cancel = searches.calls.get(timeout=WAIT)
    queued = sent(port, PATTERN_PATH)
    until(lambda: lane.taken == 2)
    queued.close()  # dropped from the queue: it never runs
    until(lambda: lane.taken == 1)
    assert not cancel.is_set()
    running.close()  # its search sees its cancel event set, and stops
    assert cancel.wait(WAIT)
    until(lambda: lane.taken == 0)
    assert searches.count == 1
    searches.release.set()
    status, _, body = get(port, PATTERN_PATH)
    assert status == 200 and body["total"] >= 1
    assert searches.count == 2


def test_a_search_past_its_budget_is_a_422_with_its_counts(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    budgets: list[tuple[float | None, threading.Event]] = []
    message = "too broad: narrow the region or add a filter (120 of 4,645 games searched)"

    def pattern(index: Index, diagram: str, *, timeout: float | None = None,
                cancel: threading.Event, **options: Any) -> PatternResult:
        budgets.append((timeout, cancel))
        raise QueryTooBroad(message, scanned=120, total=4645, hits=7)

    monkeypatch.setattr(Index, "pattern", pattern)
    for timeout in (PATTERN_TIMEOUT, 0.5, None):
        with TestClient(create_app(db, pattern_timeout=timeout), base_url="http://localhost",
                        raise_server_exceptions=False) as client:
            response = client.get("/api/pattern", params={"diagram": EVERYTHING_9})
        assert response.status_code == 422
        assert response.json() == {"error": message, "scanned": 120, "total": 4645, "hits": 7}
        assert budgets[-1][0] == timeout
        assert isinstance(budgets[-1][1], threading.Event) and not budgets[-1][1].is_set()


def test_game_reads_beyond_their_queue_are_refused_at_once(
    served: Callable[[], tuple[int, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(explorer_games, "GAME_READS_WAITING", 1)
    port, app = served()
    lane = app.state.reader.lane
    with ThreadPoolExecutor(4) as pool:
        # Two reads at once start the server's two workers; every worker process of
        # this one (those of other tests' apps too) is stopped.
        assert list(pool.map(lambda n: get(port, f"/api/game/1?start={n}")[0],
                             range(MAX_GAME_READS))) == [200] * MAX_GAME_READS
        workers = multiprocessing.active_children()
        for worker in workers:
            assert worker.pid is not None
            os.kill(worker.pid, signal.SIGSTOP)
        try:
            reads = [pool.submit(get, port, f"/api/game/2?start={n}")
                     for n in range(MAX_GAME_READS + 1)]
            until(lambda: lane.taken == MAX_GAME_READS + 1)
            status, retry_after, body = get(port, "/api/game/3")
            assert (status, retry_after) == (503, str(RETRY_AFTER))
            assert body["error"].startswith("the server is busy: 3 game reads")
            assert get(port, "/api/info")[0] == 200
            assert not any(read.done() for read in reads)
        finally:
            for worker in workers:
                assert worker.pid is not None
                os.kill(worker.pid, signal.SIGCONT)
        assert [read.result(timeout=WAIT)[0] for read in reads] == [200] * (MAX_GAME_READS + 1)
    assert lane.taken == 0


# -- the lane itself -------------------------------------------------------------------------------


def request_until(gone: asyncio.Event) -> Request:
    """A request whose client goes away when ``gone`` is set."""
    messages = iter([{"type": "http.request", "body": b"", "more_body": False}])

    async def receive() -> Message:
        for message in messages:
            return message
        await gone.wait()
        return {"type": "http.disconnect"}

    return Request({"type": "http", "method": "GET", "path": "/", "headers": []}, receive)


def test_a_lane_refuses_beyond_its_queue_drops_the_abandoned_and_cancels_on_close() -> None:
    release = threading.Event()
    ran: list[str] = []

    def task(name: str) -> Callable[[threading.Event], str]:
        def run(cancel: threading.Event) -> str:
            ran.append(name)
            until(lambda: release.is_set() or cancel.is_set())
            return f"{name} {'cancelled' if cancel.is_set() else 'done'}"
        return run

    async def scenario() -> None:
        lane = Lane("tests", 1, 2, retry_after=7)
        never, second_gone = asyncio.Event(), asyncio.Event()
        first = asyncio.ensure_future(lane.run(request_until(never), task("first")))
        second = asyncio.ensure_future(lane.run(request_until(second_gone), task("second")))
        third = asyncio.ensure_future(lane.run(request_until(never), task("third")))
        while lane.taken < 3:
            await asyncio.sleep(0)
        with pytest.raises(ServerBusy) as busy:
            await lane.run(request_until(never), task("fourth"))
        assert (busy.value.status, busy.value.retry_after) == (503, 7)
        second_gone.set()
        with pytest.raises(QueryCancelled, match="its client went away"):
            await second
        assert lane.taken == 2
        release.set()
        assert await first == "first done"
        assert await third == "third done"
        assert lane.taken == 0
        release.clear()
        last = asyncio.ensure_future(lane.run(request_until(never), task("last")))
        while ran[-1:] != ["last"]:
            await asyncio.sleep(0)
        lane.close()  # the server stops: the running task's cancel event is set
        assert await last == "last cancelled"

    asyncio.run(scenario())
    assert ran == ["first", "third", "last"]
