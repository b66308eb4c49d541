"""Shared by the explorer's tests and its browser benchmark: the sample collection
(data/sgf plus corpus games), an index of it, a uvicorn server in a thread, and
Debian's Chromium under Playwright (never a downloaded browser)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import numpy.typing as npt
import uvicorn
from sgfmill import sgf
from starlette.applications import Starlette

from gohash.explorer.app import create_app
from gohash.explorer.server import REQUEST_TIMEOUT, server_config
from gohash.group.coords import sgf_letters
from gohash.index.index import Index
from tests.support.env import ROOT, missing, require_corpus

DATA = ROOT / "data" / "sgf"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def first_answer(server: subprocess.Popen[str], request: urllib.request.Request | str) -> bytes:
    """The body of ``request``'s first 200 answer from the ``gohash serve`` process
    ``server``, once it is up (within 30 s, while it runs)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                assert answer.status == 200
                body: bytes = answer.read()
                return body
        except OSError:
            assert server.poll() is None, server.communicate()
            assert time.monotonic() < deadline, "gohash serve did not answer"
            time.sleep(0.1)


def corpus_games(count: int, month: str = "kgs-19-2017-01-new") -> list[Path]:
    """The first ``count`` records (by name) of one month of kgs-6d; a skip (a failure
    under ``CI=true``) without the corpus."""
    folder = require_corpus() / "kgs-6d" / month
    files = sorted(folder.glob("*.sgf"))
    assert len(files) >= count, f"{folder} holds {len(files)} records, not {count}"
    return files[:count]


def require_chromium() -> str:
    """Debian's Chromium; a skip (a failure under ``CI=true``) when it is not installed."""
    if not os.access(CHROMIUM, os.X_OK):
        missing(f"Chromium not found at {CHROMIUM} (install the Debian package 'chromium'; "
                ".ci/run does)")
    return CHROMIUM


CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")


def require_cjk_font() -> None:
    """Debian's Noto Sans CJK, which the page's font stack names; a skip (a failure
    under ``CI=true``) when it is not installed."""
    if not CJK_FONT.is_file():
        missing(f"no CJK font at {CJK_FONT} (install the Debian package 'fonts-noto-cjk'; "
                ".ci/run does)")


def build_index(db: Path, paths: list[Path]) -> Path:
    with Index(db, create=True) as index:
        summary = index.build([str(p) for p in paths])
    assert summary.games > 0
    return db


def main_line(path: Path) -> tuple[int, list[str], list[str]]:
    """A record's size, root setup as edit steps (``Bpd``, ``Wdd``) and main-line moves
    as steps with their colour (``bpd``, ``wpass``), read by sgfmill."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    size = game.get_size()
    black, white, _ = game.get_root().get_setup_stones()
    setup = [f"B{sgf_letters(p, size)}" for p in sorted(black)]
    setup += [f"W{sgf_letters(p, size)}" for p in sorted(white)]
    moves = []
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if colour is not None:
            moves.append(colour + ("pass" if point is None else sgf_letters(point, size)))
    return size, setup, moves


@contextmanager
def running_server(
    db: Path, request_timeout: float = REQUEST_TIMEOUT, app: Starlette | None = None
) -> Iterator[str]:
    """``gohash serve``'s app (``app``, or one made for ``db``) and settings on a free
    port of 127.0.0.1, in a thread; yields its URL."""
    served = create_app(db) if app is None else app
    config = server_config(served, port=0, request_timeout=request_timeout)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


LOCAL = "http://localhost"
"""The test client's address: its default host, ``testserver``, is refused."""


def transforms(size: int) -> list[tuple[npt.NDArray[np.int64], bool]]:
    """The 16 maps as (index image, swap): ``image[r, c]`` is the flat index of the
    point that lands on (r, c)."""
    index = np.arange(size * size).reshape(size, size)
    out = []
    for k in range(4):
        for flipped in (False, True):
            image = np.rot90(index, k)
            if flipped:
                image = np.fliplr(image)
            out += [(image, False), (image, True)]
    return out
