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
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from sgfmill import sgf

from gohash.explorer.server import CONTENT_SECURITY_POLICY
from gohash.index.filters import FILTERS
from tests.support import chromium
from tests.support.chromium import OVERFLOW, screenshot, stones, viewer_at
from tests.support.serve_fixtures import (
    DATA,
    build_index,
    corpus_games,
    main_line,
    require_cjk_font,
    running_server,
)

# The browser and its pages, with their checks of the page's errors and of the
# Content-Security-Policy (tests.support.chromium).
browser = chromium.browser
page = chromium.page


@pytest.fixture(scope="module")
def games() -> list[Path]:
    return corpus_games(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, games: list[Path]) -> Iterator[str]:
    db = build_index(tmp_path_factory.mktemp("browser") / "index.db", [DATA, *games])
    with running_server(db) as url:
        yield url


def rendered(page: Page, moves: str) -> None:
    """Wait until the continuations of the position ``moves`` are drawn."""
    page.wait_for_function(
        "m => document.querySelector('#continuations').dataset.moves === m", arg=moves
    )


def number(text: str) -> int:
    """A count as the page writes it, with thousands separators (``12,345``)."""
    return int(text.replace(",", ""))


def continuations(page: Page) -> list[tuple[str, str, int, list[str]]]:
    """The rows of the continuation table: colour, point, games, equivalent points."""
    rows = page.locator("#continuations tbody tr")
    out = []
    for i in range(rows.count()):
        row = rows.nth(i)
        out.append((
            row.get_attribute("data-colour") or "",
            row.get_attribute("data-p") or "",
            number(row.locator("td").nth(2).text_content() or ""),
            (row.get_attribute("data-equivalent") or "").split(","),
        ))
    return out


LETTERS = "abcdefghijklmnopqrs"


def open_first_game(page: Page) -> None:
    """Click the first row of the games list off its players' names (each a link to
    the player's page)."""
    page.click("#games tbody tr >> nth=0 >> td >> nth=4")


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
    total = number(page.inner_text("#games-count").strip("()"))
    assert total >= count  # transpositions reach it too

    open_first_game(page)
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


# The page's one guard for answers that race (api.js): an answer whose request was
# followed by another (or dropped) is null, and its error is not thrown; the latest's is.
LATEST = """async () => {
  const { Latest } = await import("/static/api.js");
  const latest = new Latest();
  let release;
  const first = latest.run(() => new Promise((resolve) => { release = resolve; }));
  const second = await latest.run(async () => 2);
  release(1);
  const stale = await first;
  const failing = latest.run(() => Promise.reject(new Error("old")));
  latest.drop();
  const dropped = await failing;
  let thrown = null;
  try {
    await latest.run(() => Promise.reject(new Error("refused")));
  } catch (error) {
    thrown = error.message;
  }
  return [second, stale, dropped, thrown];
}"""


def test_the_latest_answer_wins(page: Page, server: str) -> None:
    page.goto(server + "/?size=9")
    rendered(page, "")
    assert page.evaluate(LATEST) == [{"value": 2}, None, None, "refused"]


def test_undo_pass_edit_and_an_illegal_click(page: Page, server: str) -> None:
    page.goto(server + "/?size=9")
    rendered(page, "")
    page.click("#board rect[data-p='ee']")
    rendered(page, "ee")
    page.click("#board rect[data-p='ee']")  # occupied: refused, the position stays
    # Quietly: a few words beside the board, no alert, no step number.
    page.wait_for_selector("#refusal:not([hidden])")
    assert page.inner_text("#refusal") == "E5 is occupied"
    assert page.is_hidden("#message")
    assert "moves=ee" in page.url and stones(page, "board") == {"ee": "b"}
    screenshot(page, "illegal-click-refused.png")
    page.click("#pass")
    rendered(page, "ee,pass")
    assert page.is_hidden("#refusal")  # the next step taken clears it
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
    # A suicide and a ko retaken, clicked: each refused with its reason.
    page.goto(server + "/?size=9&moves=Wba,Wab")
    rendered(page, "Wba,Wab")
    page.click("#board rect[data-p='aa']")
    page.wait_for_selector("#refusal:not([hidden])")
    assert page.inner_text("#refusal") == "A9 is suicide"
    ko = "Bbb,Bac,Bbd,Wcb,Wdc,Wcd,Wbc,cc"
    page.goto(f"{server}/?size=9&moves={ko}")
    rendered(page, ko)
    page.click("#board rect[data-p='bc']")
    page.wait_for_selector("#refusal:not([hidden])")
    assert page.inner_text("#refusal") == "B7 retakes a ko" and page.is_hidden("#message")
    # A bookmark with an illegal step is no click: its message says which step.
    page.goto(f"{server}/?size=9&moves=ee,ee")
    page.wait_for_selector("#message:not([hidden])")
    assert "step 2: white at 'E5' is occupied" in page.inner_text("#message")
    assert page.is_hidden("#refusal")


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
    mine_total = number(page.inner_text("#games-count").strip("()"))
    page.uncheck("#filters input[name=turn]")
    page.click("#filters button[type=submit]")
    page.wait_for_function("() => location.search.includes('turn=0')")
    rendered(page, moves)
    page.wait_for_function(
        "n => document.querySelector('#games-count').innerText !== n", arg=f"({mine_total})")
    both = continuations(page)
    assert {colour for colour, _, _, _ in both} == {"b", "w"}
    assert number(page.inner_text("#games-count").strip("()")) > mine_total
    assert {(c, p, n) for c, p, n, _ in both if c == "b"} == {(c, p, n) for c, p, n, _ in mine}


def test_a_bookmarked_url_shows_the_same_view(page: Page, server: str) -> None:
    page.goto(server + "/?size=19&moves=pd,dd,pq&result=B")
    rendered(page, "pd,dd,pq")
    assert stones(page, "board") == {"pd": "b", "dd": "w", "pq": "b"}
    assert page.input_value("#filters select[name='result']") == "B"
    results = page.locator("#games tbody tr td:nth-child(4)").all_inner_texts()
    assert results and all(r.startswith("B+") for r in results)


def test_the_filters_come_from_the_server(page: Page, server: str) -> None:
    # The page has no list of its own: /api/info's filters (gohash.index.filters.FILTERS,
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
    total = number(page.inner_text("#games-count").strip("()"))
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
    open_first_game(page)
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


# -- issue 26: the page as players use it ------------------------------------------------------


def position(page: Page, server: str, **params: str) -> Any:
    """The server's answer for a position, as the page asked for it, with its
    continuations as a list whose points are SGF letters, as the page marks them."""
    answer = page.request.get(server + "/api/position", params=params)
    assert answer.ok
    data = answer.json()
    size = data["size"]

    def letters(point: list[int]) -> str:
        row, col = point
        return "abcdefghijklmnopqrs"[col] + "abcdefghijklmnopqrs"[size - 1 - row]

    data["continuations"] = [
        {**c, "point": c["sgf"], "equivalent": [letters(p) for p in c["equivalent"]]}
        for c in data["continuations"]["moves"]]
    return data


def test_continuations_show_numbers_sort_and_letter_one_point_of_each_set(
    page: Page, server: str
) -> None:
    page.goto(server + "/?size=19")
    rendered(page, "")
    data = position(page, server, size="19", moves="")
    rows = page.locator("#continuations tbody tr")
    assert rows.count() == len(data["continuations"]) > 5
    for i, c in enumerate(data["continuations"][:10]):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert cells[0] == "abcdefghij"[i] and number(cells[2]) == c["count"]
        assert cells[3] == f"{100 * c['share']:.1f}%"
        assert cells[4:7] == [f"{round(100 * c[k] / c['count'])}%"
                              for k in ("black_wins", "white_wins", "other")]
    # One letter per continuation, on its representative; nothing drawn on the other
    # points of its set (the board holds letters, lines and star points only), each
    # naming the lettered point on hover.
    marks = page.locator("#board text.mark")
    assert marks.count() == len(data["continuations"])
    assert {marks.nth(i).get_attribute("data-mark") for i in range(marks.count())} == {
        c["point"] for c in data["continuations"]}
    drawn = page.locator("#board circle").evaluate_all(
        "circles => circles.map(c => c.getAttribute('r'))")
    assert len(drawn) == 9 + marks.count()  # star points, and a disc under each letter
    first = data["continuations"][0]
    assert len(first["equivalent"]) > 1  # the empty board is symmetric
    others = [point for point in first["equivalent"] if point != first["point"]]
    assert page.locator(f"#board rect[data-equivalent-of='{first['point']}']").count() == len(
        others)
    for point in others:
        title = page.locator(f"#board rect[data-p='{point}'] title").text_content() or ""
        assert title.startswith(f"{point_name(point)}: equivalent to a ")
    # A click on one plays the lettered move there.
    page.click(f"#board rect[data-p='{others[0]}']")
    rendered(page, others[0])
    page.go_back()
    rendered(page, "")
    # Counts are written with thousands separators.
    # (the page's modules keep their names to themselves: the test imports the one of fmt).
    assert page.evaluate("import('/static/dom.js').then((m) => m.fmt(1234567))") == "1,234,567"
    # Sortable: by Black's share, up then down; the letters stay with their moves.
    labels = {c["point"]: "abcdefghijklmnopqrstuvwxyz"[i]
              for i, c in enumerate(data["continuations"][:26])}

    def column(name: str) -> list[tuple[str, str, float]]:
        out = []
        for i in range(rows.count()):
            row = rows.nth(i)
            text = row.locator(f"td.{name}").inner_text().rstrip("%")
            out.append((row.get_attribute("data-p") or "", row.get_attribute("data-label") or "",
                        float(text)))
        return out

    page.click("#continuations th[data-sort='black']")
    page.wait_for_selector("#continuations th[data-sort='black'][aria-sort='descending']")
    shares = column("black")
    assert [s for _, _, s in shares] == sorted((s for _, _, s in shares), reverse=True)
    assert all(labels.get(p, label) == label for p, label, _ in shares)
    page.click("#continuations th[data-sort='black']")
    page.wait_for_selector("#continuations th[data-sort='black'][aria-sort='ascending']")
    shares = column("black")
    assert [s for _, _, s in shares] == sorted(s for _, _, s in shares)
    screenshot(page, "continuations-sorted-by-black.png")
    # Past ten rows, the table shows the top ten, then "Show all" (the moves answering a
    # 4-4 stone in its corner, a pattern search: a few games have many).
    corner = "masg:......./......./......./...X.../......./......./......."
    page.goto(f"{server}/?size=19&pattern={corner}")
    page.wait_for_function(
        "p => document.querySelector('#continuations').dataset.pattern === p", arg=corner)
    total = rows.count()
    assert total > 10
    assert page.locator("#continuations tbody tr:not([hidden])").count() == 10
    more = page.locator("#continuations-more")
    assert more.inner_text() == f"Show all {total}"
    more.click()
    assert page.locator("#continuations tbody tr:not([hidden])").count() == total
    assert more.inner_text() == "Show the top 10"
    more.click()
    assert page.locator("#continuations tbody tr:not([hidden])").count() == 10


def point_name(point: str) -> str:
    """SGF letters on 19x19 as GTP (the page's hover text)."""
    column = "ABCDEFGHJKLMNOPQRST"["abcdefghijklmnopqrs".index(point[0])]
    return f"{column}{19 - 'abcdefghijklmnopqrs'.index(point[1])}"


def test_the_keyboard_plays_letters_and_steps_with_the_arrows(page: Page, server: str) -> None:
    page.goto(server + "/?size=19")
    rendered(page, "")
    data = position(page, server, size="19", moves="")
    second = data["continuations"][1]["point"]
    page.keyboard.press("b")
    rendered(page, second)
    after = position(page, server, size="19", moves=second)["continuations"][0]["point"]
    page.keyboard.press("a")
    rendered(page, f"{second},{after}")
    page.keyboard.press("ArrowLeft")
    rendered(page, second)
    page.keyboard.press("ArrowLeft")
    rendered(page, "")
    page.keyboard.press("ArrowRight")
    rendered(page, second)
    page.keyboard.press("ArrowRight")
    rendered(page, f"{second},{after}")
    page.keyboard.press("z")  # no continuation z here: nothing happens
    page.keyboard.press("ArrowLeft")
    rendered(page, second)


def test_viewer_shows_the_record_marks_the_hit_and_steps_through_hits(
    page: Page, server: str
) -> None:
    page.goto(server + "/?size=19&moves=pd,dd")
    rendered(page, "pd,dd")
    total = number(page.inner_text("#games-count").strip("()"))
    assert total >= 3
    games = page.request.get(server + "/api/games", params={"size": 19, "moves": "pd,dd",
                                                            "limit": 3}).json()["matches"]
    open_first_game(page)
    page.wait_for_selector("#viewer:not([hidden])")
    viewer_at(page, games[0]["seq"])
    info = page.inner_text("#viewer-info")
    first = games[0]
    # The result in one form (B+Resign is shown B+R).
    for text in ("Result", first["outcome"], "Komi", "Handicap", "Date", first["date"],
                 first["source"]):
        assert text and str(text) in info
    links = page.locator("#viewer-title a.player")
    assert links.all_inner_texts() == [first["black"], first["white"]]
    assert page.is_visible("#viewer-at-hit")
    assert page.locator("#viewer-board rect.hit-move").count() == 1
    assert page.inner_text("#hit-where") == f"hit 1 of {total}"
    assert page.is_disabled("#hit-prev")
    page.keyboard.press("ArrowRight")
    viewer_at(page, games[0]["seq"] + 1)
    assert not page.is_visible("#viewer-at-hit")
    assert page.locator("#viewer-board rect.hit-move").count() == 0
    # Move numbers on demand: every stone of this even game was played by a move.
    assert page.locator("#viewer-board text.number").count() == 0
    page.keyboard.press("n")
    page.wait_for_selector("#viewer-board text.number")
    numbers = page.locator("#viewer-board text.number")
    assert numbers.count() == len(stones(page, "viewer-board"))
    last = page.inner_text("#viewer-move").split()[1]
    assert last in numbers.all_text_contents()
    page.keyboard.press("h")
    viewer_at(page, games[0]["seq"])
    page.click("#hit-next")
    page.wait_for_function("() => document.querySelector('#hit-where').textContent"
                           ".startsWith('hit 2 ')")
    viewer_at(page, games[1]["seq"])
    assert f"game={games[1]['game_id']}" in page.url and "hit=1" in page.url
    assert not page.is_disabled("#hit-prev")
    # Download SGF: the record as stored, served by the server.
    href = page.get_attribute("#viewer-sgf", "href")
    assert href == f"/api/game/{games[1]['game_id']}/sgf"
    record = page.request.get(server + href)
    assert record.ok and record.headers["content-type"] == "application/x-go-sgf"
    game = sgf.Sgf_game.from_bytes(record.body())
    assert game.get_root().get("PB") == games[1]["black"]
    screenshot(page, "viewer-with-numbers.png")


def test_no_local_path_is_shown(page: Page, server: str, games: list[Path]) -> None:
    folders = {str(DATA.parent.parent), str(games[0].parent.parent)}
    page.goto(server + "/?size=19&moves=pd")
    rendered(page, "pd")
    open_first_game(page)
    page.wait_for_selector("#viewer:not([hidden])")
    page.wait_for_function("() => document.querySelector('#viewer-board').dataset.index")
    shown = page.evaluate("""() => document.body.innerText + [...document.querySelectorAll('*')]
        .flatMap(e => [...e.attributes].map(a => a.value)).join(' ')""")
    for folder in folders:
        assert folder not in shown


def test_games_sort_by_date_rank_and_result(page: Page, server: str) -> None:
    page.goto(server + "/?size=19&moves=pd")
    rendered(page, "pd")

    def column(n: int) -> list[str]:
        return page.locator(f"#games tbody tr td:nth-child({n})").all_inner_texts()

    page.click("#games th[data-order='date']")
    page.wait_for_function("() => location.search.includes('order=date')")
    page.wait_for_selector("#games th[data-order='date'][aria-sort='ascending']")
    dates = [d for d in column(3) if d]
    assert dates and dates == sorted(dates)
    page.click("#games th[data-order='date']")
    page.wait_for_function("() => location.search.includes('order=-date')")
    page.wait_for_selector("#games th[data-order='date'][aria-sort='descending']")
    dates = [d for d in column(3) if d]
    assert dates and dates == sorted(dates, reverse=True)
    page.click("#games th[data-order='result']")
    page.wait_for_function("() => location.search.includes('order=result')")
    page.wait_for_selector("#games th[data-order='result'][aria-sort='ascending']")
    winners = [r[:1] for r in column(4) if r[:1] in ("B", "W")]
    assert winners == sorted(winners) and "B" in winners
    page.reload()  # the order is in the address
    rendered(page, "pd")
    assert page.get_attribute("#games th[data-order='result']", "aria-sort") == "ascending"


# Each small board: its viewBox, its stones (colour and SGF letters) and their numbers.
SMALL_BOARDS = """boards => boards.map(b => [b.getAttribute('viewBox'),
  [...b.querySelectorAll('circle[data-stone]')].map(c => c.dataset.colour + c.dataset.stone),
  [...b.querySelectorAll('text')].map(t => t.textContent)])"""


def test_a_players_page_from_a_name(page: Page, server: str) -> None:
    page.goto(server + "/?size=19")
    rendered(page, "")
    link = page.locator("#games tbody tr >> nth=0").locator("a.player").first
    name = link.inner_text()
    link.click()
    page.wait_for_selector("#player-page:not([hidden])")
    assert page.inner_text("#player-name") == name and "who=" in page.url
    assert page.is_hidden("#viewer")  # the name's click is not the row's
    data = page.request.get(server + "/api/player", params={"name": name}).json()
    rows = page.locator("#player-colours tbody tr")
    assert [number(t) for t in rows.nth(0).locator("td").all_inner_texts()[1:5]] == [
        data["colours"]["b"][k] for k in ("games", "wins", "losses", "other")]
    assert page.locator("#player-games tbody tr").count() == min(20, data["games"]["total"])
    assert page.locator("#player-years tbody tr").count() == len(data["years"])
    # Results in one form, the records' outcome.
    assert page.locator("#player-games tbody td.result").all_inner_texts() == [
        g["outcome"] or "" for g in data["games"]["records"]]
    # Openings and corner patterns as small boards: their stones where the moves say,
    # numbered in order; a corner pattern's board is its corner's region only.
    # (Read in one call each: the server closes an idle connection after 10 s, which
    # the test's own requests below would otherwise find closed.)
    for table, key in (("#player-openings", "openings"), ("#player-corners", "corners")):
        boards = page.locator(f"{table} tbody svg.small-board").evaluate_all(SMALL_BOARDS)
        assert len(boards) == len(data[key])
        for (box, drawn, numbers), o in zip(boards, data[key], strict=True):
            steps = o["moves"].split(",")
            assert drawn == steps and numbers == [str(k + 1) for k in range(len(steps))]
            side = min(9, (o["size"] + 1) // 2) if key == "corners" else o["size"]
            assert box == f"0 0 {14 + 10 * (side - 1)} {14 + 10 * (side - 1)}"
    screenshot(page, "player-page.png")
    # A game of the page opens over it, and closing it comes back to the page.
    page.click("#player-games tbody tr >> nth=0 >> td >> nth=0")
    page.wait_for_selector("#viewer:not([hidden])")
    viewer_at(page, 0)
    assert page.is_hidden("#viewer-hits")  # no search's hit to step through
    page.keyboard.press("Escape")
    page.wait_for_selector("#viewer", state="hidden")
    assert page.is_visible("#player-page")
    # An opening played: Black and White in turn, so the page writes no colours.
    steps = data["openings"][0]["moves"].split(",")
    assert [step[0] for step in steps] == ["b", "w", "b", "w"]
    assert page.locator("#player-openings tbody tr").count() == len(data["openings"])
    page.click("#player-openings tbody tr >> nth=0")
    page.wait_for_selector("#player-page", state="hidden")
    rendered(page, ",".join(step[1:] for step in steps))
    page.go_back()
    page.wait_for_selector("#player-page:not([hidden])")
    # The corner patterns: a click searches the top right corner holding their stones.
    corners = data["corners"]
    assert corners and page.locator("#player-corners tbody tr").count() == len(corners)
    first = page.locator("#player-corners tbody tr >> nth=0")
    assert first.locator(".move").count() == data["corner_length"] == 4
    assert number(first.locator("td >> nth=1").inner_text()) == corners[0]["count"]
    page.click("#player-corners tbody tr >> nth=0")
    page.wait_for_selector("#player-page", state="hidden")
    size = corners[0]["size"]
    side = min(9, (size + 1) // 2)  # gohash.index.players.corner_side
    region = f"{LETTERS[size - side]}a{LETTERS[size - 1]}{LETTERS[side - 1]}"
    # The address changes once the page has switched modes: until then it has no pattern.
    page.wait_for_function(f"() => (new URLSearchParams(location.search).get('pattern')"
                           f" || '').startsWith('{region}:')")
    assert page.get_attribute("button[data-mode=pattern]", "aria-pressed") == "true"
    moves = corners[0]["moves"].split(",")
    page.wait_for_function(f"() => document.querySelectorAll('#board circle[data-stone]')"
                           f".length === {len(moves)}")
    assert stones(page, "board") == {m[1:]: m[0] for m in moves}
    rows = [["-"] * (size - side) + ["."] * side if r < side else ["-"] * size
            for r in range(size)]
    for m in moves:
        rows[LETTERS.index(m[2])][LETTERS.index(m[1])] = "X" if m[0] == "b" else "O"
    diagram = "\n".join("".join(row) for row in rows)
    # Each corner counted had that shape in its region after its last move.
    answer = page.request.get(server + "/api/pattern", params={"diagram": diagram}).json()
    assert answer["total"] >= corners[0]["count"] >= 1
    page.go_back()
    page.wait_for_selector("#player-page:not([hidden])")
    page.keyboard.press("Escape")
    page.wait_for_selector("#player-page", state="hidden")
    assert "who=" not in page.url


def test_a_player_search_box(page: Page, server: str) -> None:
    page.goto(server + "/?size=19")
    rendered(page, "")
    name = page.locator("#games tbody tr >> nth=0").locator("a.player").first.inner_text()
    part = name[1:4].lower() if len(name) > 4 else name.lower()
    answer = page.request.get(server + "/api/players", params={"q": part, "limit": 12}).json()
    assert name in [p["name"] for p in answer["players"]]
    page.fill("#player-q", part)
    page.wait_for_selector("#player-matches:not([hidden])")
    page.wait_for_function(
        "q => document.querySelector('#player-matches').dataset.query === q", arg=part)
    buttons = page.locator("#player-matches button")
    assert [buttons.nth(i).get_attribute("data-name") for i in range(buttons.count())] == [
        p["name"] for p in answer["players"]]
    top = answer["players"][0]["games"]
    assert buttons.first.inner_text().endswith(f"({top:,} game{'s' if top > 1 else ''})")
    screenshot(page, "player-search.png")
    page.click(f"#player-matches button[data-name='{name}']")
    page.wait_for_selector("#player-page:not([hidden])")
    assert page.inner_text("#player-name") == name and page.is_hidden("#player-matches")
    page.keyboard.press("Escape")
    page.wait_for_selector("#player-page", state="hidden")
    # Enter opens the name typed, in any case.
    page.fill("#player-q", name.upper())
    page.press("#player-q", "Enter")
    page.wait_for_selector("#player-page:not([hidden])")
    assert page.inner_text("#player-name") == name
    page.keyboard.press("Escape")
    page.wait_for_selector("#player-page", state="hidden")
    page.fill("#player-q", "no such player at all")
    page.wait_for_selector("#player-matches li.none")
    assert "No player's name contains" in page.inner_text("#player-matches")


def test_a_phone_sized_screen_never_scrolls_sideways(browser: Browser, server: str) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True,
                            has_touch=True, device_scale_factor=2)
    try:
        page.goto(server + "/?size=19&moves=pd,dd,pq")
        rendered(page, "pd,dd,pq")
        width, inner, wide = page.evaluate(OVERFLOW)
        assert width <= inner == 390 and wide == []
        board = page.locator("#board").bounding_box()
        assert board is not None and board["width"] <= 390
        screenshot(page, "phone-explorer.png")
        open_first_game(page)
        page.wait_for_selector("#viewer:not([hidden])")
        page.wait_for_function("() => document.querySelector('#viewer-board').dataset.index")
        width, inner, wide = page.evaluate(OVERFLOW)
        assert width <= inner and wide == []
        screenshot(page, "phone-viewer.png")
        page.locator("#viewer-title a.player").first.click()
        page.wait_for_selector("#player-page:not([hidden])")
        page.wait_for_selector("#viewer", state="hidden")
        width, inner, wide = page.evaluate(OVERFLOW)
        assert width <= inner and wide == []
        screenshot(page, "phone-player.png")
    finally:
        page.close()


CJK_BLACK = "\u674e\u660c\u9550"  # Lee Changho
CJK_WHITE = "\u66fa\u85b0\u9249"  # Cho Hunhyun


@pytest.fixture(scope="module")
def cjk_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server over one 9x9 record with CJK names and comments."""
    folder = tmp_path_factory.mktemp("cjk")
    record = folder / "cjk.sgf"
    record.write_text(
        f"(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[6.5]DT[1995-03-02]RE[B+2.5]PB[{CJK_BLACK}]BR[9p]"
        f"PW[{CJK_WHITE}]WR[9p]C[\u5bf9\u5c40\u5f00\u59cb];B[ee]C[\u5929\u5143];W[cc];B[gg])",
        encoding="utf-8")
    with running_server(build_index(folder / "index.db", [record])) as url:
        yield url


# Draws text in a canvas with a font and returns its pixels, to tell glyphs from tofu.
GLYPHS = """([font, texts]) => texts.map(text => {
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 64;
  const context = canvas.getContext('2d');
  context.font = font;
  context.fillText(text, 8, 48);
  return Array.from(context.getImageData(0, 0, 64, 64).data).join(',');
})"""


def test_cjk_names_render_with_a_cjk_font(page: Page, cjk_server: str) -> None:
    require_cjk_font()
    page.goto(cjk_server + "/?size=9")
    rendered(page, "")
    name = page.locator("#games tbody tr >> nth=0").locator("a.player").first
    assert name.inner_text() == CJK_BLACK
    family = name.evaluate("e => getComputedStyle(e).fontFamily")
    assert "Noto Sans CJK" in family
    font = name.evaluate("e => getComputedStyle(e).font")
    # Each character drawn in the page's font is a glyph of its own, not the box a
    # missing glyph gets (the same for every character, as for an unassigned one).
    glyphs = page.evaluate(GLYPHS, [font, [*CJK_BLACK, *CJK_WHITE, "\U000e01ef\u0378"]])
    *drawn, tofu = glyphs
    assert len(set(drawn)) == len(drawn) and tofu not in drawn
    blank = page.evaluate(GLYPHS, [font, [" "]])[0]
    assert blank not in drawn
    # Full-width glyphs: the name is about one em per character wide.
    width = name.evaluate("e => e.getBoundingClientRect().width")
    size = float(name.evaluate("e => getComputedStyle(e).fontSize").rstrip("px"))
    assert 2.7 * size <= width <= 3.3 * size
    open_first_game(page)
    page.wait_for_selector("#viewer:not([hidden])")
    viewer_at(page, 0)
    assert page.inner_text("#viewer-comment") == "\u5bf9\u5c40\u5f00\u59cb"
    page.keyboard.press("ArrowRight")
    viewer_at(page, 1)
    assert page.inner_text("#viewer-comment") == "\u5929\u5143"
    page.keyboard.press("ArrowRight")
    viewer_at(page, 2)
    assert page.is_hidden("#viewer-comment")
    assert "Komi 6.5" in page.inner_text("#viewer-info")
    screenshot(page, "cjk-names-and-comment.png")
