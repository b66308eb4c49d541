"""Debian's Chromium under Playwright for the explorer's browser tests: the browser
(one per module), a page that fails the test on a script error or a blocked
Content-Security-Policy, and what the tests read from the page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.support.serve_fixtures import (
    CHROMIUM_ARGS,
    SCREENSHOTS,
    require_chromium,
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = require_chromium()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable, args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


# Records what the server's Content-Security-Policy blocks (Chromium also logs it).
CSP_WATCH = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    page = browser.new_page(viewport={"width": 1300, "height": 950})
    page.add_init_script(CSP_WATCH)
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    yield page
    violations = page.evaluate("() => window.__cspViolations")
    page.close()
    assert violations == []
    # An illegal move is answered 400 on purpose; anything else is a bug of the page.
    assert [p for p in problems if "status of 400" not in p] == []


def stones(page: Page, board: str) -> dict[str, str]:
    found = page.locator(f"#{board} circle[data-stone]")
    return {
        found.nth(i).get_attribute("data-stone") or "": found.nth(i).get_attribute("data-colour")
        or "" for i in range(found.count())
    }


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name), full_page=True)


def viewer_at(page: Page, index: int) -> None:
    page.wait_for_function(
        "i => document.querySelector('#viewer-board').dataset.index === String(i)", arg=index)


OVERFLOW = """() => [document.documentElement.scrollWidth, window.innerWidth,
  [...document.querySelectorAll('body *')].filter(e => {
     const r = e.getBoundingClientRect();
     return r.width > 0 && r.right > window.innerWidth + 1 && !e.closest('.table-wrap');
  }).map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 5)]"""
