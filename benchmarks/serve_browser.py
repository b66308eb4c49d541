"""Benchmark of ``gohash serve`` in a browser: click to updated continuations rendered.

Run: ``.venv/bin/python benchmarks/serve_browser.py [--limit N] [--games G] [--moves M]``.

1. Index the records of ``kgs-6d/`` under ``../shared/corpus/`` (beside the
   checkout; all 4,645, or the first ``--limit`` in name order) into a
   temporary folder, and serve it with uvicorn on a free port of 127.0.0.1.
2. In Debian's Chromium (headless, under Playwright; no browser download), for
   ``--games`` records of the index without setup stones (seeded choice), load
   the page and click the first ``--moves`` moves of the record on the board:
   100 clicks by default.
3. Each click is timed in the page: from the click event (``performance.now()``
   in a capture listener) to the first animation frame after the page says the
   position's continuations, games and board are drawn (its ``gohash:rendered``
   event, fired only for the position clicked).  The early moves are the
   heavy ones: the empty board's first moves occur in thousands of games.

Prints p50, p95 and the maximum.  Target: p95 <= 250 ms.  The machine is shared
(2 cores): the 1-minute load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import Page, sync_playwright
from sgfmill import sgf

from gohash.explorer.app import create_app
from gohash.group.coords import sgf_letters
from gohash.index.index import Index

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]

# Installed once per page: times each click to the first frame after the rendered event.
TIMER = """
window.__clickTimes = [];
document.addEventListener("click", () => { window.__t0 = performance.now(); }, true);
document.addEventListener("gohash:rendered", () => {
  const t0 = window.__t0;
  if (t0 === undefined) return;
  window.__t0 = undefined;
  requestAnimationFrame(() => window.__clickTimes.push(performance.now() - t0));
});
"""


def opening(path: Path, moves: int) -> list[str] | None:
    """The first ``moves`` points of a record (SGF letters), if it has no setup, starts
    with Black, alternates and does not pass that early; else None."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    root = game.get_root()
    if game.get_size() != 19 or any(root.get_setup_stones()):
        return None
    points = []
    for number, node in enumerate(game.get_main_sequence()[1 : moves + 1]):
        colour, point = node.get_move()
        if colour != "bw"[number % 2] or point is None or node.has_setup_stones():
            return None
        points.append(sgf_letters(point, 19))
    return points if len(points) == moves else None


def serve(db: Path) -> tuple[uvicorn.Server, threading.Thread, str]:
    server = uvicorn.Server(
        uvicorn.Config(create_app(db), host="127.0.0.1", port=0, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise SystemExit("the server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, thread, f"http://127.0.0.1:{port}"


def click_through(page: Page, url: str, points: list[str]) -> list[float]:
    page.goto(url + "/?size=19")
    page.wait_for_function("() => document.querySelector('#continuations').dataset.moves === ''")
    page.evaluate(TIMER)
    played: list[str] = []
    for point in points:
        page.click(f"#board rect[data-p='{point}']")
        played.append(point)
        page.wait_for_function(
            "n => window.__clickTimes.length === n", arg=len(played), timeout=30_000
        )
        shown = page.get_attribute("#continuations", "data-moves")
        if shown != ",".join(played):
            raise SystemExit(f"the page shows {shown!r}, not {','.join(played)!r}")
    times: list[float] = page.evaluate("() => window.__clickTimes")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="index the first N files (default: all)")
    parser.add_argument("--games", type=int, default=10, help="records clicked through")
    parser.add_argument("--moves", type=int, default=10, help="moves clicked per record")
    args = parser.parse_args()
    files = sorted((CORPUS / "kgs-6d").rglob("*.sgf"))[: args.limit]
    if not files:
        print(f"corpus not found at {CORPUS}: nothing to measure")
        return 1
    rng = random.Random(13)
    candidates = rng.sample(files, len(files))
    openings = []
    for path in candidates:
        points = opening(path, args.moves)
        if points is not None:
            openings.append(points)
        if len(openings) == args.games:
            break
    print(f"corpus: {len(files)} files of kgs-6d under {CORPUS}")
    print(f"cores: {os.cpu_count()}; load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "index.db"
        start = time.perf_counter()
        with Index(db, create=True) as index:
            summary = index.build([str(f) for f in files], files_per_commit=100)
            counts = index.counts()
        print(f"index: {summary.games} games, {counts['occurrences']} positions, built in "
              f"{time.perf_counter() - start:.1f} s")
        server, thread, url = serve(db)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
                )
                page = browser.new_page(viewport={"width": 1300, "height": 950})
                click_through(page, url, openings[0][:3])  # warm up the page and SQLite
                runs = [click_through(page, url, points) for points in openings]
                browser.close()
        finally:
            server.should_exit = True
            thread.join(timeout=30)
    times = sorted(t for run in runs for t in run)
    p95 = times[max(0, round(0.95 * len(times)) - 1)]
    print(f"{len(times)} clicks ({len(openings)} records x {args.moves} moves): "
          f"p50 {statistics.median(times):.0f} ms, p95 {p95:.0f} ms, max {times[-1]:.0f} ms "
          f"(target p95 <= 250 ms)")
    by_move = zip(*runs, strict=True)
    print("median by move number (ms): " + ", ".join(
        f"{n}: {statistics.median(t):.0f}" for n, t in enumerate(by_move, 1)
    ))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
