"""A pattern search too broad for its time budget, in a real browser (Debian's
Chromium under Playwright, as tests/support/chromium.py starts it): the page shows the
server's message, which says what was counted, and the search shown stays."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from gohash.errors import QueryTooBroad
from gohash.index.index import Index
from gohash.pattern.search import PatternResult
from tests.support import chromium
from tests.support.serve_fixtures import DATA, build_index, running_server

browser = chromium.browser

CORNER = "masg:......./......./......./...X.../......./......./......."
"""The 4-4 point's corner: the top-right 7x7 of a 19x19 board, Black on Q16."""
BROAD = "too broad: narrow the region or add a filter (1,200 of 4,645 games searched in 5 s)"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = build_index(tmp_path_factory.mktemp("broad") / "index.db", [DATA])
    with running_server(db) as url:
        yield url


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page whose script raises no error; the browser's own line for the 422
    answered on purpose is let through."""
    page = browser.new_page(viewport={"width": 1300, "height": 950})
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    yield page
    page.close()
    assert [p for p in problems if "status of 422" not in p] == []


def test_a_search_too_broad_shows_the_servers_message(
    page: Page, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Index.pattern
    broad = threading.Event()

    def pattern(index: Index, diagram: str, *, timeout: float | None = None,
                cancel: threading.Event, **options: Any) -> PatternResult:
        if broad.is_set():
            raise QueryTooBroad(BROAD, scanned=1200, total=4645, hits=31)
        return real(index, diagram, **options)

    monkeypatch.setattr(Index, "pattern", pattern)
    page.goto(server + f"/?size=19&pattern={CORNER}")
    page.wait_for_function(
        "p => document.querySelector('#continuations').dataset.pattern === p", arg=CORNER)
    total = page.inner_text("#games-count")
    broad.set()
    page.fill("#pattern-max-move", "300")
    page.press("#pattern-max-move", "Enter")
    page.wait_for_selector("#message:not([hidden])")
    assert page.inner_text("#message") == BROAD
    assert page.inner_text("#games-count") == total and page.is_visible("#results")
