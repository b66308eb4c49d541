"""``gohash serve`` against hostile clients, with inputs made here (never committed):
foreign ``Host`` headers (DNS rebinding), the security headers of every answer,
connections that send a request slowly or never finish it, a long game of
passes (paged answers), slow game reads beside small requests, and a bounded
load of mixed requests from several clients on loopback.

The long game is 1,990 passes under page and step limits a tenth of the
server's (patched for the module, the game workers forked after): the same
bounds at a hundredth of the work.  benchmarks/serve_load.py serves games of
199,990 passes (the longest gohash reads) under the real limits."""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import random
import re
import signal
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from gohash.cli import main
from gohash.explorer import app as explorer_app
from gohash.explorer import games as explorer_games
from gohash.explorer.app import create_app
from gohash.explorer.games import MAX_GAME_READS
from gohash.explorer.server import CONTENT_SECURITY_POLICY
from gohash.index import movelist
from tests.support.serve_fixtures import DATA, build_index, running_server

PASSES = 1_990
DEFAULT_GAME_PAGE = explorer_games.DEFAULT_GAME_PAGE // 10
MAX_GAME_PAGE = explorer_games.MAX_GAME_PAGE // 10
MAX_STEPS = movelist.MAX_STEPS // 10


@pytest.fixture(scope="module", autouse=True)
def small_limits() -> Iterator[None]:
    """The server's page and step limits a tenth of their size, for the short long
    game (the server's own: it sends them with each game read to its workers)."""
    with pytest.MonkeyPatch.context() as patch:
        for module in (explorer_app, explorer_games):
            patch.setattr(module, "DEFAULT_GAME_PAGE", DEFAULT_GAME_PAGE)
            patch.setattr(module, "MAX_GAME_PAGE", MAX_GAME_PAGE)
        patch.setattr(movelist, "MAX_STEPS", MAX_STEPS)
        yield


def long_record(passes: int) -> bytes:
    body = "".join(";B[]" if i % 2 == 0 else ";W[]" for i in range(passes))
    return f"(;GM[1]FF[4]SZ[19]PB[long]PW[game]{body})".encode()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of data/sgf and a record of :data:`PASSES` passes."""
    folder = tmp_path_factory.mktemp("hostile")
    record = folder / "long.sgf"
    record.write_bytes(long_record(PASSES))
    return build_index(folder / "index.db", [DATA, record])


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    # Entered, so that the app's lifespan stops its game-reading workers at the end.
    with TestClient(create_app(db), raise_server_exceptions=False,
                    base_url="http://localhost") as client:
        yield client


@pytest.fixture(scope="module")
def long_game(client: TestClient) -> int:
    games = client.get("/api/games", params={"size": 19, "limit": 200}).json()["matches"]
    [found] = {m["game_id"] for m in games if m["black"] == "long"}
    game_id: int = found
    return game_id


@pytest.fixture(scope="module")
def served(db: Path) -> Starlette:
    """The app :func:`server` serves, for the tests that watch its game reader."""
    return create_app(db)


@pytest.fixture(scope="module")
def server(db: Path, served: Starlette) -> Iterator[str]:
    with running_server(db, request_timeout=1.0, app=served) as url:
        yield url


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def get(port: int, path: str) -> int:
    """The status of a GET of ``path`` on a connection of its own."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


# -- Host and headers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["localhost", "localhost:8000", "LOCALHOST", "localhost.", "127.0.0.1", "127.0.0.1:80",
     "10.1.2.3:8000", "[::1]", "[::1]:8000", "explorer.lan", "Explorer.LAN:9000"],
)
def test_local_names_addresses_and_allowed_hosts_are_answered(db: Path, host: str) -> None:
    client = TestClient(create_app(db, allowed_hosts=["explorer.lan"]),
                        base_url="http://localhost")
    for path in ("/", "/api/info", "/static/app.js"):
        assert client.get(path, headers={"host": host}).status_code == 200, (host, path)


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.1.evil.example",
     "explorer.lan.evil", "[::1", "[::1]x", "localhost:http", "", "testserver", "::1"],
)
def test_other_hosts_are_refused_with_400(db: Path, host: str) -> None:
    client = TestClient(create_app(db, allowed_hosts=["explorer.lan"]),
                        base_url="http://localhost")
    for path in ("/", "/api/info", "/api/game/1", "/static/app.js", "/nothing"):
        response = client.get(path, headers={"host": host})
        assert response.status_code == 400, (host, path, response.text)
        assert "does not answer for the host" in response.json()["error"]
        assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_a_rebinding_host_gets_400_from_the_real_server(server: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=10)
    conn.request("GET", "/api/info", headers={"Host": "evil.example"})
    response = conn.getresponse()
    assert response.status == 400 and b"evil.example" in response.read()
    conn.close()


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    for path, status in [("/", 200), ("/static/app.js", 200), ("/static/style.css", 200),
                         ("/api/info", 200), ("/api/position?size=9", 200),
                         ("/api/position?size=99", 400), ("/api/game/999999", 404),
                         ("/nothing", 404)]:
        response = client.get(path)
        assert response.status_code == status, path
        headers = response.headers
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY, path
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert "script-src 'self'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["x-frame-options"] == "DENY", path
        assert headers["referrer-policy"] == "no-referrer", path


def test_an_unexpected_error_is_a_500_with_the_security_headers(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Starlette answers an exception no handler takes with a 500 of its own, sent
    past the middleware it is given: the headers must be there all the same."""

    def broken(self: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("gohash.explorer.answers.Explorer.info", broken)
    client = TestClient(create_app(db), raise_server_exceptions=False,
                        base_url="http://localhost")
    response = client.get("/api/info")
    assert response.status_code == 500
    assert "a bug" not in response.text
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert client.get("/api/info", headers={"host": "evil.example"}).status_code == 400


def test_the_page_has_no_inline_script_or_style(client: TestClient) -> None:
    page = client.get("/").text
    assert "<script src=" in page and "<script>" not in page
    assert "style=" not in page and "<style" not in page and "javascript:" not in page
    assert re.search(r"\son[a-z]+=", page) is None  # no inline event handlers


# -- slow and partial requests ---------------------------------------------------------------------


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (it answers nothing to a partial request)."""
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def rest_then_closed(sock: socket.socket) -> bool:
    """Whether the server closes ``sock`` (False: it stays open 15 s), after
    whatever it still sends."""
    while True:
        try:
            if not sock.recv(65536):
                return True
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False


def test_partial_requests_are_closed_after_the_request_timeout(server: str) -> None:
    port = port_of(server)
    partial = []
    for n in range(300):
        sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        # Nothing at all, half a request line, or headers without their end.
        sock.sendall([b"", b"GET /api/in", b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n"][n % 3])
        partial.append(sock)
    # A client sending its headers a byte at a time, never quite done.
    drip = socket.create_connection(("127.0.0.1", port), timeout=15)
    stop = threading.Event()

    def dripping() -> None:
        for byte in b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200:
            if stop.is_set():
                return
            try:
                drip.send(bytes([byte]))
            except OSError:
                return
            time.sleep(0.1)

    dripper = threading.Thread(target=dripping)
    dripper.start()
    try:
        # Meanwhile the server answers others.
        assert get(port, "/api/info") == 200
        assert all(closed_by_server(sock) for sock in partial)
        assert closed_by_server(drip)
    finally:
        stop.set()
        dripper.join()
        for sock in [*partial, drip]:
            sock.close()


def test_a_kept_alive_connection_that_stalls_is_closed(server: str) -> None:
    sock = socket.create_connection(("127.0.0.1", port_of(server)), timeout=15)
    with sock:
        sock.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /api/info HTTP/1.1\r\nHost: 12")  # the next request never ends
        assert rest_then_closed(sock)


def test_a_request_whose_body_never_ends_is_closed(server: str) -> None:
    sock = socket.create_connection(("127.0.0.1", port_of(server)), timeout=15)
    stop = threading.Event()

    def dripping() -> None:  # a byte of body now and then: uvicorn's keep-alive never ends
        while not stop.wait(0.2):
            try:
                sock.send(b"x")
            except OSError:
                return

    with sock:
        sock.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Length: 1000000\r\n\r\n")
        dripper = threading.Thread(target=dripping)
        dripper.start()
        try:
            assert rest_then_closed(sock)
        finally:
            stop.set()
            dripper.join()


# -- long games --------------------------------------------------------------------------------


def test_a_long_game_comes_in_bounded_pages(client: TestClient, long_game: int) -> None:
    first = client.get(f"/api/game/{long_game}")
    assert first.status_code == 200
    body = first.json()
    assert body["positions_total"] == PASSES + 1 and body["start"] == 0
    page = DEFAULT_GAME_PAGE
    assert len(body["positions"]) == len(body["move_numbers"]) == len(body["last"]) == page
    assert body["final_move_number"] == PASSES
    empty = ["." * 19] * 19
    assert body["positions"][0] == body["positions"][-1] == empty
    assert body["move_numbers"] == list(range(page)) and body["last"] == [None] * page
    largest = client.get(f"/api/game/{long_game}", params={"count": MAX_GAME_PAGE})
    assert len(largest.json()["positions"]) == MAX_GAME_PAGE
    # A 19x19 position is about 450 bytes of JSON; the whole game would be 1,990 of them.
    assert len(largest.content) < 600 * MAX_GAME_PAGE
    last = client.get(f"/api/game/{long_game}", params={"start": PASSES - 10, "count": 50}).json()
    assert last["start"] == PASSES - 10 and last["move_numbers"] == list(range(PASSES - 10,
                                                                                PASSES + 1))
    beyond = client.get(f"/api/game/{long_game}", params={"start": PASSES + 1}).json()
    assert beyond["positions"] == [] and beyond["positions_total"] == PASSES + 1
    for params, message in [({"count": MAX_GAME_PAGE + 1}, f"between 1 and {MAX_GAME_PAGE}"),
                            ({"count": "0"}, "count must be between"),
                            ({"start": "-1"}, "start must be a whole number"),
                            ({"offset": "5"}, "unknown parameter 'offset'")]:
        response = client.get(f"/api/game/{long_game}", params=params)
        assert response.status_code == 400 and message in response.json()["error"], params


def test_the_steps_to_a_position_of_a_long_game_are_bounded(
    client: TestClient, long_game: int
) -> None:
    steps = client.get(f"/api/game/{long_game}/steps", params={"at": 7}).json()
    assert steps["steps"] == ["bpass", "wpass"] * 3 + ["bpass"] and steps["size"] == 19
    assert len(client.get(f"/api/game/{long_game}/steps",
                          params={"at": MAX_STEPS}).json()["steps"]) == MAX_STEPS
    too_long = client.get(f"/api/game/{long_game}/steps", params={"at": 3 * PASSES // 4})
    assert too_long.status_code == 400
    assert f"more than {MAX_STEPS} steps" in too_long.json()["error"]
    beyond = client.get(f"/api/game/{long_game}/steps", params={"at": PASSES + 1})
    assert beyond.status_code == 400 and f"below {PASSES + 1}" in beyond.json()["error"]


# -- slow work beside small requests --------------------------------------------------------------


def test_slow_game_reads_never_hold_up_other_requests(server: str, long_game: int) -> None:
    """Game reads that cannot finish (their worker processes stopped): meanwhile every
    other endpoint answers, as it would not if a read held something they need."""
    port = port_of(server)
    with ThreadPoolExecutor(4) as pool:
        # Two reads at once start the server's two workers; every worker process of
        # this one (those of other tests' apps too) is stopped.
        assert list(pool.map(lambda n: get(port, f"/api/game/1?start={n}"), range(2))) == [200] * 2
        workers = multiprocessing.active_children()
        assert len(workers) >= MAX_GAME_READS
        for worker in workers:
            os.kill(worker.pid, signal.SIGSTOP)
        try:
            slow = [pool.submit(get, port, f"/api/game/{long_game}?start={n}") for n in range(4)]
            for path in ["/api/info", "/api/position?size=9&moves=ee", "/api/games?size=19",
                         "/api/position?size=19&moves=pd,dp", "/", "/static/app.js"] * 5:
                assert get(port, path) == 200, path
            assert not any(future.done() for future in slow)
        finally:
            for worker in workers:
                os.kill(worker.pid, signal.SIGCONT)
        assert [future.result() for future in slow] == [200] * 4


def test_a_worker_killed_while_reading_gets_503_and_the_next_read_works(
    server: str, served: Starlette, long_game: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = port_of(server)
    assert get(port, "/api/game/1") == 200
    # The read is killed once it is in the hands of the (stopped) workers: its
    # submission to their pool is watched, not waited for.
    executor = served.state.reader._pool.executor
    submitted = threading.Event()

    def submit(*args: object, **kwargs: object) -> object:
        future = real_submit(*args, **kwargs)
        submitted.set()
        return future

    real_submit = executor.submit
    monkeypatch.setattr(executor, "submit", submit)
    workers = multiprocessing.active_children()
    for worker in workers:
        os.kill(worker.pid, signal.SIGSTOP)
    with ThreadPoolExecutor(1) as pool:
        killed = pool.submit(get, port, f"/api/game/{long_game}")
        assert submitted.wait(60), "the read never reached the workers"
        for worker in workers:
            os.kill(worker.pid, signal.SIGKILL)
        assert killed.result() == 503
    assert get(port, "/api/game/1") == 200  # new workers


# -- load --------------------------------------------------------------------------------------


def test_mixed_load_from_several_clients_gets_no_errors(server: str, long_game: int) -> None:
    """400 mixed requests from 8 keep-alive clients: every one answered as expected."""
    rng = random.Random(3)
    mix = [("/api/info", 200), ("/api/position?size=9&moves=ee,cc", 200),
           ("/api/position?size=19&moves=pd,dd", 200), ("/api/games?size=19&offset=20", 200),
           ("/api/game/1", 200), ("/api/game/2?view=rot90&start=10", 200), ("/", 200),
           ("/static/style.css", 200), ("/api/position?size=19&moves=pd,pd", 400),
           ("/api/game/abc", 400), (f"/api/game/{long_game + 1000}", 404)]
    requests = [rng.choice(mix) for _ in range(400)]
    port = port_of(server)

    def client(part: list[tuple[str, int]]) -> list[str]:
        errors = []
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for path, expected in part:
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            if response.status != expected:
                errors.append(f"{path}: {response.status} {body[:200]!r}")
            elif path.startswith("/api") and ("error" in json.loads(body)) != (expected != 200):
                errors.append(f"{path}: {body[:200]!r}")
        conn.close()
        return errors

    with ThreadPoolExecutor(8) as pool:
        errors = [e for part in pool.map(client, [requests[i::8] for i in range(8)])
                  for e in part]
    assert errors == []


# -- the command ---------------------------------------------------------------------------------


def test_gohash_serve_allows_the_hosts_it_is_given(
    db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command's ``--allow-host`` and ``--host`` reach the app it serves (run in
    this process: the app the command made is asked instead of served; the real
    server's refusal is test_a_rebinding_host_gets_400_from_the_real_server's)."""
    statuses: dict[str, int] = {}

    def run_app(app: Starlette, sock: socket.socket) -> None:
        port = sock.getsockname()[1]
        sock.close()
        with TestClient(app, base_url="http://localhost") as client:
            for host in (f"explorer.lan:{port}", f"localhost:{port}", f"127.0.0.1:{port}",
                         "evil.example", "explorer.lan.evil.example"):
                statuses[host.split(":")[0]] = client.get(
                    "/api/info", headers={"host": host}).status_code

    monkeypatch.setattr("gohash.explorer.app.run_app", run_app)
    assert main(["serve", str(db), "--port", "0", "--allow-host", "explorer.lan"]) == 0
    capsys.readouterr()
    assert statuses == {"explorer.lan": 200, "localhost": 200, "127.0.0.1": 200,
                        "evil.example": 400, "explorer.lan.evil.example": 400}
