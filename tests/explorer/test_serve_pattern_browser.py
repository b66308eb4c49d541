"""The explorer's pattern search in a real browser (Debian's Chromium under
Playwright, as tests/explorer/test_serve_browser.py): a region drawn by a drag or two
clicks, points set by clicks, the diagram in the URL, the hits and continuations
the server's and :meth:`Index.pattern <gohash.index.index.Index.pattern>`'s, a
continuation played into the pattern, a hit opened at its move in the query's
orientation, previous and next hit, and a phone-sized screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from gohash.index.index import Index
from tests.support import chromium
from tests.support.chromium import OVERFLOW, screenshot, stones, viewer_at
from tests.support.serve_fixtures import DATA, build_index, corpus_games, running_server

# The browser and its pages as tests.support.chromium makes them (its checks of
# the page's errors and of the Content-Security-Policy included).
browser = chromium.browser
page = chromium.page

# The 4-4 point's corner: the top-right 7x7 of a 19x19 board, Black on Q16.
CORNER = "masg:......./......./......./...X.../......./......./......."


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_index(tmp_path_factory.mktemp("pattern-browser") / "index.db",
                       [DATA, *corpus_games(60)])


@pytest.fixture(scope="module")
def server(db: Path) -> Iterator[str]:
    with running_server(db) as url:
        yield url


def searched(page: Page, pattern: str) -> None:
    """Wait until the answer to the pattern ``pattern`` (the URL's form) is drawn."""
    page.wait_for_function(
        "p => document.querySelector('#continuations').dataset.pattern === p", arg=pattern)


def diagram(pattern: str, size: int = 19) -> str:
    """The full board diagram of the URL's form of a pattern (an independent reading)."""
    corners, rows = pattern.split(":")
    left, top = ord(corners[0]) - 97, ord(corners[1]) - 97
    lines = [["-"] * size for _ in range(size)]
    for r, row in enumerate(rows.split("/")):
        for c, ch in enumerate(row):
            lines[top + r][left + c] = ch
    return "\n".join("".join(line) for line in lines)


def table(page: Page) -> list[tuple[str, str, int, int]]:
    """The continuation table's rows: colour, point (SGF letters), hits, tenukis."""
    rows = page.locator("#continuations tbody tr")
    out = []
    for i in range(rows.count()):
        row = rows.nth(i)
        cells = row.locator("td")
        out.append((row.get_attribute("data-colour") or "", row.get_attribute("data-p") or "",
                    int(cells.nth(2).inner_text()), int(row.locator("td.tenuki").inner_text())))
    return out


def expected(answer: dict[str, Any]) -> list[tuple[str, str, int, int]]:
    return [(c["colour"], c["sgf"], c["count"], c["tenuki"]) for c in answer["continuations"]]


def test_a_corner_pattern_drawn_by_clicks_is_the_servers_and_the_librarys(
    page: Page, server: str, db: Path
) -> None:
    page.goto(server + "/?size=19")
    page.wait_for_function("() => document.querySelector('#continuations').dataset.moves === ''")
    page.click("button[data-mode=pattern]")
    searched(page, "")
    assert page.is_visible("#pattern-bar") and not page.is_visible("#results")
    # Two clicks draw the region: the top-right 7x7 corner, every point empty.
    page.click("#board rect[data-p='aa']")
    page.wait_for_selector("#board rect.corner[data-corner='aa']")
    page.keyboard.press("Escape")  # a slip: forgotten
    page.wait_for_selector("#board rect.corner", state="detached")
    page.click("#board rect[data-p='ma']")
    page.wait_for_selector("#board rect.corner[data-corner='ma']")
    page.click("#board rect[data-p='sg']")
    empty = "masg:" + "/".join(["......."] * 7)
    searched(page, empty)
    # A Shift-click goes through every character, letters or not: Q16 black.
    page.click("#board rect[data-p='pd']", modifiers=["Shift"])
    searched(page, CORNER)
    assert f"pattern={CORNER}" in page.url
    assert page.locator("#board rect.region").count() == 1
    assert stones(page, "board") == {"pd": "b"}
    answer = page.request.get(server + "/api/pattern", params={"diagram": diagram(CORNER)}).json()
    with Index(db, read_only=True) as index:
        found = index.pattern(diagram(CORNER), limit=20).to_json(paths=False)
    assert {k: v for k, v in found.items() if k != "continuations"} == {
        k: v for k, v in answer.items() if k != "continuations"}
    assert found["continuations"][:52] == answer["continuations"]
    assert answer["total"] > 20 and answer["tenuki"] > 0
    assert table(page) == expected(answer)
    summary = page.inner_text("#summary")
    assert f"{answer['total']} hits in {answer['games']} games" in summary
    assert f"{answer['tenuki']} after a tenuki" in summary
    assert page.inner_text("#games-count") == f"({answer['total']})"
    rows = page.locator("#games tbody tr")
    assert rows.count() == 20
    for i, match in enumerate(answer["matches"]):
        assert rows.nth(i).get_attribute("data-game") == str(match["game_id"])
        assert rows.nth(i).locator("td").nth(4).inner_text() == str(match["move_number"])
    # The hits are paged as a position's games are.
    page.click("#games-next")
    page.wait_for_function("t => document.querySelector('#games-range').textContent === t",
                           arg=f"21\u2013{min(40, answer['total'])} of {answer['total']}")
    assert "offset=20" in page.url
    later = page.request.get(server + "/api/pattern", params={
        "diagram": diagram(CORNER), "offset": 20}).json()["matches"]
    assert [rows.nth(i).get_attribute("data-game") for i in range(rows.count())] == [
        str(m["game_id"]) for m in later]
    page.click("#games-prev")
    page.wait_for_function("t => document.querySelector('#games-range').textContent === t",
                           arg=f"1\u201320 of {answer['total']}")
    # Each continuation's letter stands on one of its points (a point both colours
    # played has the first one's letter), inside the region.
    marks = page.locator("#board text.mark")
    lettered = {marks.nth(i).text_content(): marks.nth(i).get_attribute("data-mark")
                for i in range(marks.count())}
    assert "a" in lettered
    for label, c in zip("abcdefghij", answer["continuations"], strict=False):
        if label in lettered:
            assert lettered[label] in {chr(97 + q[1]) + chr(97 + 18 - q[0])
                                       for q in c["equivalent"]}
            assert diagram(CORNER).split("\n")[ord(lettered[label][1]) - 97][
                ord(lettered[label][0]) - 97] == "."
    # The bookmark shows the same search; Clear draws a new region, by a drag this time.
    page.reload()
    searched(page, CORNER)
    assert table(page) == expected(answer)
    page.click("#clear")
    searched(page, "")
    page.drag_and_drop("#board rect[data-p='ag']", "#board rect[data-p='ca']")
    searched(page, "aacg:" + "/".join(["..."] * 7))
    page.click("#undo")
    searched(page, "")
    # Play mode leaves the pattern search: the position's panel comes back.
    page.click("button[data-mode=play]")
    page.wait_for_function("() => !location.search.includes('pattern')")
    page.wait_for_selector("#results:not([hidden])")


def test_options_and_filters_go_to_the_search(page: Page, server: str) -> None:
    # The position's games order stays in the address, but the hits come in index order.
    page.goto(server + f"/?size=19&order=-date&pattern={CORNER}")
    searched(page, CORNER)
    assert page.locator("#games th[aria-sort='descending']").count() == 0
    page.click("#games th[data-order='date']")
    assert "order=-date" in page.url
    assert page.get_attribute("button[data-mode=pattern]", "aria-pressed") == "true"
    # The position's own options are hidden; the pattern's are in its bar.
    assert not page.is_visible("#filters select[name=symmetry]")
    assert not page.is_visible("#pass")
    page.select_option("#pattern-to-move", "w")
    page.wait_for_function("() => location.search.includes('to_move=w')")
    page.select_option("#pattern-symmetry", "none")
    page.wait_for_function("() => location.search.includes('pattern_symmetry=none')")
    searched(page, CORNER)
    page.fill("#filters input[name=date_from]", "2017-01-02")
    page.click("#filters button[type=submit]")
    page.wait_for_function("() => location.search.includes('date_from=2017-01-02')")
    answer = page.request.get(server + "/api/pattern", params={
        "diagram": diagram(CORNER), "to_move": "w", "symmetry": "none",
        "date_from": "2017-01-02"}).json()
    page.wait_for_function(
        "t => document.querySelector('#games-count').textContent === t",
        arg=f"({answer['total']})")
    assert table(page) == expected(answer)


def test_a_continuation_played_puts_its_stone_in_the_pattern(page: Page, server: str) -> None:
    page.goto(server + f"/?size=19&pattern={CORNER}")
    searched(page, CORNER)
    rows = table(page)
    colour, point, _, _ = rows[0]
    # Its row: the stone goes into the pattern, at its point.
    page.click("#continuations tbody tr >> nth=0")
    after = put(CORNER, point, colour)
    searched(page, after)
    assert stones(page, "board") == {"pd": "b", point: colour}
    # Undo (Backspace, the left arrow) takes it back; its key plays it again.
    page.keyboard.press("Backspace")
    searched(page, CORNER)
    page.keyboard.press("a")
    searched(page, after)
    page.keyboard.press("ArrowLeft")
    searched(page, CORNER)
    # Its letter on the board: the same.
    page.click(f"#board rect[data-p='{point}']")
    searched(page, after)


def put(pattern: str, point: str, colour: str) -> str:
    corners, rows = pattern.split(":")
    lines = [list(row) for row in rows.split("/")]
    lines[ord(point[1]) - ord(corners[1])][ord(point[0]) - ord(corners[0])] = (
        "X" if colour == "b" else "O")
    return corners + ":" + "/".join("".join(line) for line in lines)


def test_a_hit_opens_at_its_move_in_the_patterns_orientation(page: Page, server: str) -> None:
    page.goto(server + f"/?size=19&pattern={CORNER}")
    searched(page, CORNER)
    answer = page.request.get(server + "/api/pattern", params={"diagram": diagram(CORNER)}).json()
    matches = answer["matches"]
    # A hit placed in another corner, colours exchanged: shown as the pattern was drawn.
    turned = next(i for i, m in enumerate(matches)
                  if m["colours_exchanged"] and m["element"] != "identity_swap")
    page.click(f"#games tbody tr >> nth={turned} >> td >> nth=4")
    page.wait_for_selector("#viewer:not([hidden])")
    viewer_at(page, matches[turned]["seq"])
    assert f"view={matches[turned]['view']}" in page.url
    assert page.is_visible("#viewer-at-hit")
    # The region is outlined where it was drawn (a corner pattern does not slide).
    assert page.get_attribute("#viewer-board rect.region", "data-region") == "ma"
    shown = stones(page, "viewer-board")
    assert shown.get("pd") == "b"
    # The rest of the corner is empty, as the pattern says.
    corner = {chr(c) + chr(r) for c in range(ord("m"), ord("t")) for r in range(ord("a"),
                                                                               ord("h"))}
    assert {p for p in shown if p in corner} == {"pd"}
    assert page.inner_text("#hit-where") == f"hit {turned + 1} of {answer['total']}"
    page.click("#hit-next")
    page.wait_for_function("t => document.querySelector('#hit-where').textContent === t",
                           arg=f"hit {turned + 2} of {answer['total']}")
    viewer_at(page, matches[turned + 1]["seq"])
    assert f"game={matches[turned + 1]['game_id']}" in page.url
    assert stones(page, "viewer-board").get("pd") == "b"
    screenshot(page, "pattern-viewer.png")
    page.click("#hit-prev")
    page.wait_for_function("t => document.querySelector('#hit-where').textContent === t",
                           arg=f"hit {turned + 1} of {answer['total']}")
    page.keyboard.press("Escape")
    page.wait_for_selector("#viewer", state="hidden")
    searched(page, CORNER)


def test_the_pattern_search_on_a_phone(browser: Browser, server: str) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True,
                            has_touch=True, device_scale_factor=2)
    try:
        page.goto(server + f"/?size=19&pattern={CORNER}")
        searched(page, CORNER)
        width, inner, wide = page.evaluate(OVERFLOW)
        assert width <= inner == 390 and wide == []
        assert page.is_visible("#pattern-bar")
        board = page.locator("#board").bounding_box()
        assert board is not None and board["width"] <= 390
        screenshot(page, "phone-pattern.png")
        # A tap sets a point.
        page.tap("#board rect[data-p='sa']")
        page.wait_for_function(
            "p => document.querySelector('#continuations').dataset.pattern !== p", arg=CORNER)
    finally:
        page.close()


def test_a_local_pattern_slides_anywhere(page: Page, server: str) -> None:
    """A region touching no edge: the hits and continuations are the server's, and a
    continuation's letter stands inside the region."""
    local = "oorq:..../.X../..O."  # the 3-3 invasion under a 4-4 stone, P4 and Q3
    page.goto(server + f"/?size=19&pattern={local}")
    searched(page, local)
    answer = page.request.get(server + "/api/pattern", params={"diagram": diagram(local)}).json()
    assert answer["total"] > 0 and answer["placements"] > 8
    assert table(page) == expected(answer)
    assert answer["total"] == int(page.inner_text("#games-count").strip("()"))
    for point in page.locator("#board text.mark").evaluate_all(
            "marks => marks.map(m => m.dataset.mark)"):
        assert "o" <= point[0] <= "r" and "o" <= point[1] <= "q"
    assert page.is_hidden("#no-continuations") == bool(answer["continuations"])
    # A hit where the pattern slid: the viewer outlines the region where the game holds
    # it, and the pattern's stones are there.
    moved = next(i for i, m in enumerate(answer["matches"]) if m["view_offset"] != [0, 0])
    dr, dc = answer["matches"][moved]["view_offset"]
    page.click(f"#games tbody tr >> nth={moved} >> td >> nth=4")
    page.wait_for_selector("#viewer:not([hidden])")
    viewer_at(page, answer["matches"][moved]["seq"])
    corner = chr(ord("o") + dc) + chr(ord("o") - dr)  # rows count up the board
    assert page.get_attribute("#viewer-board rect.region", "data-region") == corner
    shown = stones(page, "viewer-board")
    for r, row in enumerate(local.split(":")[1].split("/")):
        for c, ch in enumerate(row):
            point = chr(ord(corner[0]) + c) + chr(ord(corner[1]) + r)
            assert shown.get(point) == {"X": "b", "O": "w", ".": None}[ch], point


def test_a_broken_pattern_address_says_why(page: Page, server: str) -> None:
    page.goto(server + "/?size=19&pattern=masg:...")
    page.wait_for_function("() => document.querySelector('#continuations').dataset.moves === ''")
    assert "does not read" in page.inner_text("#message")
    assert "showing the empty board instead" in page.inner_text("#message")
    assert page.get_attribute("button[data-mode=play]", "aria-pressed") == "true"
    # A region off the board (a bookmark of a larger board) is refused with the reason.
    page.goto(server + "/?size=9&pattern=masg:" + "/".join(["......."] * 7))
    page.wait_for_function("() => document.querySelector('#continuations').dataset.moves === ''")
    assert "does not fit on a 9\u00d79 board" in page.inner_text("#message")
    # So is a sequence the server refuses.
    page.goto(server + f"/?size=19&pattern={CORNER}&sequence=B+C3")
    page.wait_for_function("() => document.querySelector('#continuations').dataset.moves === ''")
    assert "'C3' lies outside the pattern's region" in page.inner_text("#message")
    assert "showing the empty board instead" in page.inner_text("#message")


def test_a_bookmarked_sequence_is_drawn_as_written(page: Page, server: str, db: Path) -> None:
    # Spaces and case as a hand-written address may have them: tidied, and the page
    # numbers the stones.
    page.goto(server + f"/?size=19&pattern={CORNER}&sequence=w++o17+%20b+r14&max_move=80")
    searched(page, CORNER)
    shows(page, librarys(db, CORNER, sequence="W O17 B R14", max_move=80))
    assert numbers(page) == {"nc": "1", "qf": "2"}
    assert page.input_value("#pattern-sequence") == "W O17 B R14"
    assert page.input_value("#pattern-max-move") == "80"
    page.wait_for_function("() => location.search.includes('sequence=W+O17+B+R14')")


def hits(page: Page) -> list[tuple[str, int]]:
    """The games list's rows: game id and move of the hit."""
    rows = page.locator("#games tbody tr")
    return [(rows.nth(i).get_attribute("data-game") or "",
             int(rows.nth(i).locator("td").nth(4).inner_text())) for i in range(rows.count())]


def numbers(page: Page) -> dict[str, str]:
    """The numbers drawn on the board's stones, by point."""
    marks = page.locator("#board text.number")
    return {marks.nth(i).get_attribute("data-number") or "": marks.nth(i).text_content() or ""
            for i in range(marks.count())}


def librarys(db: Path, pattern: str, **options: Any) -> dict[str, Any]:
    """The answer of :meth:`Index.pattern` to the pattern (the URL's form), as the JSON."""
    with Index(db, read_only=True) as index:
        found: dict[str, Any] = index.pattern(diagram(pattern), limit=20,
                                              **options).to_json(paths=False)
    return found


def shows(page: Page, answer: dict[str, Any]) -> None:
    """The page shows ``answer``: its hits, games, continuations and games list."""
    page.wait_for_function("t => document.querySelector('#games-count').textContent === t",
                           arg=f"({answer['total']})")
    assert f"{answer['total']} hits in {answer['games']} games" in page.inner_text("#summary")
    assert table(page) == expected(answer)[:52]
    assert hits(page) == [(str(m["game_id"]), m["move_number"]) for m in answer["matches"]]


def middle_move(db: Path, pattern: str, **options: Any) -> int:
    """The middle move of the hits of ``pattern``: a limit that leaves some out."""
    with Index(db, read_only=True) as index:
        found = index.pattern(diagram(pattern), limit=None, **options)
    moves = sorted(m.move_number for m in found.matches)
    return moves[len(moves) // 2]


def test_a_move_limit_keeps_the_hits_up_to_it(page: Page, server: str, db: Path) -> None:
    every = librarys(db, CORNER)
    limit = middle_move(db, CORNER)
    answer = librarys(db, CORNER, max_move=limit)
    assert 0 < answer["total"] < every["total"]
    page.goto(server + f"/?size=19&pattern={CORNER}")
    searched(page, CORNER)
    shows(page, every)
    page.fill("#pattern-max-move", str(limit))
    page.press("#pattern-max-move", "Enter")
    page.wait_for_function("n => location.search.includes('max_move=' + n)", arg=str(limit))
    shows(page, answer)
    assert all(move <= limit for _, move in hits(page))
    # The bookmark keeps it; back goes to no limit, forward to the limit again.
    page.reload()
    searched(page, CORNER)
    assert page.input_value("#pattern-max-move") == str(limit)
    shows(page, answer)
    page.go_back()
    page.wait_for_function("() => !location.search.includes('max_move')")
    shows(page, every)
    assert page.input_value("#pattern-max-move") == ""
    page.go_forward()
    page.wait_for_function("() => location.search.includes('max_move')")
    shows(page, answer)
    # The hits are paged with the limit kept.
    if answer["total"] > 20:
        page.click("#games-next")
        page.wait_for_function("() => location.search.includes('offset=20')")
        later = librarys(db, CORNER, max_move=limit, offset=20)["matches"]
        page.wait_for_function("g => document.querySelector('#games tbody tr')"
                               ".dataset.game === g", arg=str(later[0]["game_id"]))
        assert hits(page) == [(str(m["game_id"]), m["move_number"]) for m in later]
        page.click("#games-prev")
        page.wait_for_function("() => !location.search.includes('offset=')")
    shows(page, answer)
    # Emptied: no limit.
    page.fill("#pattern-max-move", "")
    page.press("#pattern-max-move", "Enter")
    page.wait_for_function("() => !location.search.includes('max_move')")
    shows(page, every)


def test_a_sequence_searches_the_moves_after_the_pattern(
    page: Page, server: str, db: Path
) -> None:
    # The most played answer in the region, then what came next.
    first = librarys(db, CORNER)["continuations"][0]
    sequence = f"{first['colour'].upper()} {first['gtp']}"
    answer = librarys(db, CORNER, sequence=sequence)
    assert 0 < answer["total"] < librarys(db, CORNER)["total"] and answer["continuations"]
    page.goto(server + f"/?size=19&pattern={CORNER}")
    searched(page, CORNER)
    # Spaces and case are tidied.
    page.fill("#pattern-sequence", f"  {sequence.lower().replace(' ', '   ')}  ")
    page.press("#pattern-sequence", "Enter")
    page.wait_for_function("() => location.search.includes('sequence=')")
    shows(page, answer)
    assert "sequence=" + sequence.replace(" ", "+") in page.url
    page.reload()
    searched(page, CORNER)
    assert page.input_value("#pattern-sequence") == sequence
    shows(page, answer)
    # The sequence's stones are numbered on the board, in the pattern's region.
    assert numbers(page) == {first["sgf"]: "1"}
    # A continuation played goes after the sequence; Undo takes it back.
    then = answer["continuations"][0]
    longer = f"{sequence} {then['colour'].upper()} {then['gtp']}"
    page.click("#continuations tbody tr >> nth=0")
    page.wait_for_function("s => new URLSearchParams(location.search).get('sequence') === s",
                           arg=longer)
    shows(page, librarys(db, CORNER, sequence=longer))
    assert page.input_value("#pattern-sequence") == longer
    assert numbers(page) == {first["sgf"]: "1", then["sgf"]: "2"}
    page.keyboard.press("Backspace")
    page.wait_for_function("s => new URLSearchParams(location.search).get('sequence') === s",
                           arg=sequence)
    shows(page, answer)
    # With a move limit too: both go to the search.
    limit = middle_move(db, CORNER, sequence=sequence)
    both = librarys(db, CORNER, sequence=sequence, max_move=limit)
    assert 0 < both["total"] < answer["total"]
    page.fill("#pattern-max-move", str(limit))
    page.press("#pattern-max-move", "Enter")
    page.wait_for_function("() => location.search.includes('max_move=')")
    shows(page, both)
    # A point set in the region keeps the sequence; Clear (a new region) drops it, the
    # move limit stays, and Undo brings both back.
    page.click("#board rect[data-p='sa']")
    page.wait_for_function("p => document.querySelector('#continuations').dataset.pattern"
                           " !== p", arg=CORNER)
    assert "sequence=" in page.url
    page.click("#undo")
    searched(page, CORNER)
    page.click("#clear")
    searched(page, "")
    assert "sequence" not in page.url and f"max_move={limit}" in page.url
    assert page.input_value("#pattern-sequence") == ""
    page.click("#undo")
    searched(page, CORNER)
    assert page.input_value("#pattern-sequence") == sequence
    shows(page, both)


@pytest.mark.parametrize("sequence", ["B C3", "W Z99", "X R17", "R17"])
def test_a_bad_sequence_says_why(page: Page, server: str, sequence: str) -> None:
    page.goto(server + f"/?size=19&pattern={CORNER}")
    searched(page, CORNER)
    total = page.inner_text("#games-count")
    refusal = page.request.get(server + "/api/pattern", params={
        "diagram": diagram(CORNER), "sequence": sequence})
    assert refusal.status == 400
    page.fill("#pattern-sequence", sequence)
    page.press("#pattern-sequence", "Enter")
    page.wait_for_selector("#message:not([hidden])")
    assert page.inner_text("#message") == refusal.json()["error"]
    # The search shown stays, and so does the address.
    assert "sequence" not in page.url
    assert page.inner_text("#games-count") == total and page.is_visible("#results")
    # A good one clears the message.
    page.fill("#pattern-sequence", "")
    page.fill("#pattern-max-move", "-1")
    page.press("#pattern-max-move", "Enter")
    page.wait_for_function("() => document.querySelector('#message').textContent"
                           ".includes('max_move')")
    page.fill("#pattern-max-move", "300")
    page.press("#pattern-max-move", "Enter")
    page.wait_for_function("() => location.search.includes('max_move=300')")
    assert page.is_hidden("#message")


def test_a_move_limit_that_does_not_read_says_why(page: Page, server: str) -> None:
    # "30e" is no number: the field's value is empty, which must not mean "no limit".
    page.goto(server + f"/?size=19&pattern={CORNER}&max_move=30")
    searched(page, CORNER)
    total = page.inner_text("#games-count")
    page.click("#pattern-max-move")
    page.keyboard.press("End")
    page.keyboard.type("e")
    page.keyboard.press("Enter")
    page.wait_for_selector("#message:not([hidden])")
    assert page.inner_text("#message") == "max move must be a whole number (empty: any)"
    assert "max_move=30" in page.url and page.inner_text("#games-count") == total
