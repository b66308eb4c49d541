"""The explorer in a real browser: Debian's Chromium driven by Playwright (never a
downloaded browser), against ``gohash serve``'s app on a free port.

The flow the issue asks for: load the page, play the first moves of a corpus game
by clicking, see the continuation table change, click a continuation, open a game,
step forward; plus undo, pass, edit mode, an illegal click, and a bookmarked URL.
Screenshots go to ``test-artifacts/screenshots/`` (kept out of git)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from gohash.explorer.app import CONTENT_SECURITY_POLICY
from gohash.index.queries import FILTERS
from tests.serve_fixtures import (
    CHROMIUM_ARGS,
    DATA,
    SCREENSHOTS,
    build_index,
    corpus_games,
    main_line,
    require_chromium,
    running_server,
)


@pytest.fixture(scope="module")
def games() -> list[Path]:
    return corpus_games(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, games: list[Path]) -> Iterator[str]:
    db = build_index(tmp_path_factory.mktemp("browser") / "index.db", [DATA, *games])
    with running_server(db) as url:
        yield url


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


def rendered(page: Page, moves: str) -> None:
    """Wait until the continuations of the position ``moves`` are drawn."""
    page.wait_for_function(
        "m => document.querySelector('#continuations').dataset.moves === m", arg=moves
    )


def continuations(page: Page) -> list[tuple[str, str, int, list[str]]]:
    """The rows of the continuation table: colour, point, games, equivalent points."""
    rows = page.locator("#continuations tbody tr")
    out = []
    for i in range(rows.count()):
        row = rows.nth(i)
        out.append((
            row.get_attribute("data-colour") or "",
            row.get_attribute("data-p") or "",
            int(row.locator("td").nth(2).inner_text()),
            (row.get_attribute("data-equivalent") or "").split(","),
        ))
    return out


def stones(page: Page, board: str) -> dict[str, str]:
    found = page.locator(f"#{board} circle[data-stone]")
    return {
        found.nth(i).get_attribute("data-stone") or "": found.nth(i).get_attribute("data-colour")
        or "" for i in range(found.count())
    }


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name), full_page=True)


def test_play_a_corpus_game_click_a_continuation_open_a_game_and_step(
    page: Page, server: str, games: list[Path]
) -> None:
    size, setup, line = main_line(games[0])
    assert size == 19 and not setup and line[0][0] == "b"
    response = page.goto(server + "/")
    assert response is not None and response.headers["content-security-policy"] == (
        CONTENT_SECURITY_POLICY)
    rendered(page, "")
    empty = continuations(page)
    assert empty and sum(count for _, _, count, _ in empty) >= 50
    played: list[str] = []
    previous = empty
    for token in line[:4]:
        point = token[1:]
        page.click(f"#board rect[data-p='{point}']")
        played.append(point)
        rendered(page, ",".join(played))
        assert stones(page, "board")[point] == token[0]
        now = continuations(page)
        assert now != previous
        # The game itself is in the index: its next move is one of the continuations
        # (or a point equivalent to one under the position's own symmetry).
        following = line[len(played)]
        assert any(following[0] == c and following[1:] in same for c, _, _, same in now)
        previous = now
    assert f"moves={','.join(played)}" in page.url
    screenshot(page, "explorer-after-four-moves.png")

    colour, point, count, _ = previous[0]
    page.click("#continuations tbody tr >> nth=0")
    played.append(point if colour == "b" else colour + point)
    rendered(page, ",".join(played))
    assert stones(page, "board")[point] == colour
    explorer_stones = stones(page, "board")
    total = int(page.inner_text("#games-count").strip("()"))
    assert total >= count  # transpositions reach it too

    page.click("#games tbody tr >> nth=0")
    page.wait_for_selector("#viewer:not([hidden])")
    page.wait_for_function("() => document.querySelector('#viewer-board').dataset.index")
    # The viewer opens at the match, in the query's orientation: the same stones.
    assert stones(page, "viewer-board") == explorer_stones
    at = int(page.get_attribute("#viewer-board", "data-index") or "-1")
    assert at == len(played)
    screenshot(page, "viewer-at-the-match.png")

    page.click("#viewer-next")
    page.wait_for_function(
        "i => document.querySelector('#viewer-board').dataset.index === String(i)", arg=at + 1
    )
    after = stones(page, "viewer-board")
    added = set(after) - set(explorer_stones)
    assert len(added) == 1 and page.input_value("#viewer-slider") == str(at + 1)
    assert f"at={at + 1}" in page.url
    screenshot(page, "viewer-one-move-on.png")

    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "i => document.querySelector('#viewer-board').dataset.index === String(i)", arg=at
    )
    assert stones(page, "viewer-board") == explorer_stones
    page.click("#viewer-close")
    page.wait_for_selector("#viewer", state="hidden")


def test_undo_pass_edit_and_an_illegal_click(page: Page, server: str) -> None:
    page.goto(server + "/?size=9")
    rendered(page, "")
    page.click("#board rect[data-p='ee']")
    rendered(page, "ee")
    page.click("#board rect[data-p='ee']")  # occupied: refused, the position stays
    page.wait_for_selector("#message:not([hidden])")
    assert "is occupied" in page.inner_text("#message")
    assert "moves=ee" in page.url and stones(page, "board") == {"ee": "b"}
    page.click("#pass")
    rendered(page, "ee,pass")
    assert "Black to play" in page.inner_text("#status")
    page.click("button[data-mode='W']")
    page.click("#board rect[data-p='cc']")
    rendered(page, "ee,pass,Wcc")
    page.click("#board rect[data-p='cc']")  # a white stone clicked again in white edit mode
    rendered(page, "ee,pass,Wcc,Ecc")
    page.click("button[data-mode='play']")
    page.click("#board rect[data-p='cc']")
    rendered(page, "ee,pass,Wcc,Ecc,cc")
    assert stones(page, "board") == {"ee": "b", "cc": "b"}
    for expected in ["ee,pass,Wcc,Ecc", "ee,pass,Wcc", "ee,pass", "ee", ""]:
        page.click("#undo")
        rendered(page, expected)
    assert stones(page, "board") == {}
    page.go_back()
    rendered(page, "ee")


def test_continuations_are_the_side_to_moves_unless_asked_for_both(
    page: Page, server: str, games: list[Path]
) -> None:
    """After four moves of a corpus game Black is to move: the continuations are
    Black's, those of colour-exchanged occurrences included.  Unticking "same
    side to move" (turn=0) adds the occurrences with White to move in the
    board's colours, and their White moves."""
    _, _, line = main_line(games[0])
    moves = ",".join(token[1:] for token in line[:4])
    page.goto(f"{server}/?moves={moves}")
    rendered(page, moves)
    assert page.is_checked("#filters input[name=turn]")
    mine = continuations(page)
    assert mine and {colour for colour, _, _, _ in mine} == {"b"}
    mine_total = int(page.inner_text("#games-count").strip("()"))
    page.uncheck("#filters input[name=turn]")
    page.click("#filters button[type=submit]")
    page.wait_for_function("() => location.search.includes('turn=0')")
    rendered(page, moves)
    page.wait_for_function(
        "n => document.querySelector('#games-count').innerText !== n", arg=f"({mine_total})")
    both = continuations(page)
    assert {colour for colour, _, _, _ in both} == {"b", "w"}
    assert int(page.inner_text("#games-count").strip("()")) > mine_total
    assert {(c, p, n) for c, p, n, _ in both if c == "b"} == {(c, p, n) for c, p, n, _ in mine}


def test_a_bookmarked_url_shows_the_same_view(page: Page, server: str) -> None:
    page.goto(server + "/?size=19&moves=pd,dd,pq&result=B")
    rendered(page, "pd,dd,pq")
    assert stones(page, "board") == {"pd": "b", "dd": "w", "pq": "b"}
    assert page.input_value("#filters select[name='result']") == "B"
    results = page.locator("#games tbody tr td:nth-child(4)").all_inner_texts()
    assert results and all(r.startswith("B+") for r in results)


def test_the_filters_come_from_the_server(page: Page, server: str) -> None:
    # The page has no list of its own: /api/info's filters (gohash.index.queries.FILTERS,
    # with the stored fields of gohash.metadata) make the form's fields, in their order.
    page.goto(server + "/?size=19&moves=pd&place=nowhere%20at%20all")
    rendered(page, "pd")
    names = page.eval_on_selector_all(
        "#filters input, #filters select", "fields => fields.map(f => f.name)")
    assert names == [spec.name for spec in FILTERS] + ["symmetry", "turn"]
    assert page.input_value("#filters input[name='place']") == "nowhere at all"
    assert page.locator("#games tbody tr").count() == 0
    # A filter set in the form goes into the address and narrows the games.
    page.fill("#filters input[name='place']", "")
    page.select_option("#filters select[name='handicap']", "no")
    page.click("#filters button[type=submit]")
    page.wait_for_url("**handicap=no**")
    assert "place=" not in page.url
    with urllib.request.urlopen(server + "/api/games?size=19&moves=pd&handicap=no") as reply:
        total = json.load(reply)["total"]
    assert total > 0
    page.wait_for_function("n => document.querySelector('#games-count').innerText === n",
                           arg=f"({total})")


def test_a_broken_bookmark_says_why(page: Page, server: str) -> None:
    page.goto(server + "/?size=19&moves=pd,zz")
    page.wait_for_selector("#message:not([hidden])")
    rendered(page, "")
    assert "step 2: 'zz' is not a point of the 19x19 board" in page.inner_text("#message")


RANGE_SHOWN = "t => document.querySelector('#games-range').textContent === t"


def test_games_are_paged_and_a_game_position_can_be_explored(page: Page, server: str) -> None:
    page.goto(server + "/?size=19")
    rendered(page, "")
    total = int(page.inner_text("#games-count").strip("()"))
    assert total > 40
    first_page = page.locator("#games tbody tr").all_inner_texts()
    assert len(first_page) == 20 and page.is_disabled("#games-prev")
    assert page.inner_text("#games-range") == f"1\u201320 of {total}"
    page.click("#games-next")
    page.wait_for_function(RANGE_SHOWN, arg=f"21\u201340 of {total}")
    assert "offset=20" in page.url
    second_page = page.locator("#games tbody tr").all_inner_texts()
    assert len(second_page) == 20 and second_page != first_page
    # The page is kept in the URL: a reload shows the second page again.
    page.reload()
    page.wait_for_function(RANGE_SHOWN, arg=f"21\u201340 of {total}")
    page.locator("#games tbody tr").nth(0).click()
    page.wait_for_selector("#viewer:not([hidden])")
    page.wait_for_function("() => document.querySelector('#viewer-board').dataset.index")
    for _ in range(3):
        index = int(page.get_attribute("#viewer-board", "data-index") or "-1")
        page.click("#viewer-next")
        page.wait_for_function(
            "i => document.querySelector('#viewer-board').dataset.index === String(i)",
            arg=index + 1,
        )
    shown = stones(page, "viewer-board")
    page.click("#viewer-explore")
    page.wait_for_selector("#viewer", state="hidden")
    page.wait_for_function("() => document.querySelector('#continuations').dataset.moves !== ''")
    page.wait_for_function(
        "n => document.querySelectorAll('#board circle[data-stone]').length === n", arg=len(shown)
    )
    assert stones(page, "board") == shown
    assert "game=" not in page.url


PASSES = 5_000
SHOWN = "i => document.querySelector('#viewer-board').dataset.index === String(i)"


@pytest.fixture(scope="module")
def long_game_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server over one generated record of 5,000 passes (25 pages of positions)."""
    folder = tmp_path_factory.mktemp("long")
    record = folder / "long.sgf"
    body = "".join(";B[]" if i % 2 == 0 else ";W[]" for i in range(PASSES))
    record.write_text(f"(;GM[1]FF[4]SZ[9]PB[long]PW[game]{body})")
    with running_server(build_index(folder / "index.db", [record])) as url:
        yield url


def test_a_long_game_is_fetched_page_by_page(page: Page, long_game_server: str) -> None:
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "/api/game/" in r.url else None)
    page.goto(long_game_server + "/?size=9&game=1&at=3&view=identity")
    page.wait_for_function(SHOWN, arg=3)
    assert page.input_value("#viewer-slider") == "3"
    assert page.get_attribute("#viewer-slider", "max") == str(PASSES)
    assert len(fetched) == 1 and "start=0" in fetched[0] and "count=200" in fetched[0]
    page.click("#viewer-last")
    page.wait_for_function(SHOWN, arg=PASSES)
    assert page.inner_text("#viewer-move") == f"move {PASSES} of {PASSES}"
    assert len(fetched) == 2 and f"start={PASSES - PASSES % 200}" in fetched[1]
    page.keyboard.press("ArrowLeft")  # on the page before
    page.wait_for_function(SHOWN, arg=PASSES - 1)
    assert len(fetched) == 3 and f"start={PASSES - PASSES % 200 - 200}" in fetched[2]
    page.click("#viewer-first")  # its page is kept: nothing fetched again
    page.wait_for_function(SHOWN, arg=0)
    assert len(fetched) == 3
    for i in (1, 2, 3):
        page.click("#viewer-next")
        page.wait_for_function(SHOWN, arg=i)
    page.click("#viewer-explore")
    page.wait_for_selector("#viewer", state="hidden")
    rendered(page, "pass,pass,pass")
    assert "White to play" in page.inner_text("#status")
