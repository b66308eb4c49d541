"""Kombilo's side of ``benchmarks/kombilo.py``, run by it in a subprocess; not a benchmark.

Run as ``python kombilo_driver.py KOMBILO_ROOT build DB FOLDER``,
``python kombilo_driver.py KOMBILO_ROOT search DB QUERIES OUT`` or
``python kombilo_driver.py KOMBILO_ROOT patterns DB QUERIES OUT``, where
KOMBILO_ROOT is the unpacked Kombilo sdist whose extension ``kombilo.py``
built in place.  The process imports only the standard library and Kombilo's
``libkombilo`` (its Python layer ``kombiloNG`` is Python 2 only), so its peak
RSS is Kombilo's own; ``OMP_NUM_THREADS`` is set by the caller.

``build``: a database as ``kombiloNG.KEngine.addDB`` makes one with its
defaults (``lk.ProcessOptions()``: all four search algorithms, final
position, move list, full-board and corner hashes; the SGF kept in the
database; duplicates checked strictly and kept), except that variations are
not processed, as ``gohash index build`` indexes main lines only.  Files are
read in sorted order; bytes that are not UTF-8 are replaced (Kombilo's SWIG
wrapper takes text), which touches comments and names, never moves.  Prints
one JSON line: games inserted, files not inserted.

``search``: a full-board search (``FULLBOARD_PATTERN``, colours not fixed, so
up to symmetry and colour exchange as gohash's ``find``) for each query of
the JSON list QUERIES (361 characters each, row by row from the top line,
``X`` black, ``O`` white, ``.`` empty), one untimed pass and one timed pass;
writes to OUT a JSON list of ``{"seconds", "reset", "hits", "files"}``: the
search time, the time of the ``reset`` before it (a search looks only among
the games of the previous one, so each starts from a reset, as a new search in
Kombilo's window does), Kombilo's hit count and the real paths of the games hit.

``patterns``: the same for pattern searches (``benchmarks/pattern.py``): each
query of QUERIES is ``{"type", "sizeX", "sizeY", "text", "runs"}``, the type
one of Kombilo's ``CORNER_NW_PATTERN``, ``SIDE_N_PATTERN``,
``CENTER_PATTERN`` (fixed in the corner, sliding along the side, anywhere off
the edges), the text its rows from the top, and optionally ``next`` (1 Black,
2 White to play next) and ``limit`` (the last move); colours not fixed, by
default either player to move, no move limit (``SearchOptions(0, 0, 10000)``).  Each pattern is
searched ``runs`` times, each time from a reset; OUT gets every time.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

# The GameList arguments of kombiloNG.KEngine.create_GameList.
ORDER_BY = "DATE"
FORMAT = (
    "[[filename.]],,,[[id]],,,[[PB]],,,[[PW]],,,[[winner]],,,signaturexxx,,,[[date]],,,[[path]],,,"
)
CACHE = 500


def build(lk: Any, db: str, folder: str) -> dict[str, object]:
    options = lk.ProcessOptions()
    options.rootNodeTags = "PW,PB,RE,DT,EV"
    options.sgfInDB = True
    options.processVariations = False
    gamelist = lk.GameList(db, ORDER_BY, FORMAT, options, 19, CACHE)
    gamelist.start_processing()
    others = lk.vectorGL()
    flags = lk.CHECK_FOR_DUPLICATES | lk.CHECK_FOR_DUPLICATES_STRICT
    refused = []
    for path, _, names in sorted(os.walk(folder)):
        for name in sorted(names):
            if not name.endswith(".sgf"):
                continue
            with open(os.path.join(path, name), "rb") as f:
                sgf = f.read().decode("utf-8", errors="replace")
            if not gamelist.process(sgf, path, name, others, "", flags):
                refused.append(f"{name}: not processed")
            elif gamelist.process_results() & lk.NOT_INSERTED_INTO_DB:
                refused.append(f"{name}: not inserted ({gamelist.process_results()})")
    gamelist.finalize_processing()
    return {"games": gamelist.size_all(), "refused": refused}


def search(lk: Any, db: str, queries: list[str]) -> list[dict[str, object]]:
    gamelist = lk.GameList(db, ORDER_BY, FORMAT, lk.ProcessOptions(), 19, CACHE)
    options = lk.SearchOptions(0, 0, 10000)  # as kombiloNG.KEngine.patternSearch
    patterns = [lk.Pattern(lk.FULLBOARD_PATTERN, 19, 19, 19, query) for query in queries]
    for pattern in patterns:  # warm the page cache, as the gohash side does
        gamelist.reset()
        gamelist.search(pattern, options)
    results: list[dict[str, object]] = []
    for pattern in patterns:
        start = time.perf_counter()
        gamelist.reset()
        reset = time.perf_counter() - start
        start = time.perf_counter()
        gamelist.search(pattern, options)
        games = gamelist.size()
        seconds = time.perf_counter() - start
        files = sorted(
            os.path.realpath(os.path.join(gamelist.getCurrentProperty(i, "path"),
                                          gamelist.getCurrentProperty(i, "filename")))
            for i in range(games)
        )
        results.append(
            {"seconds": seconds, "reset": reset, "hits": gamelist.numHits(), "files": files}
        )
    return results


def patterns(lk: Any, db: str, queries: list[dict[str, Any]]) -> list[dict[str, object]]:
    gamelist = lk.GameList(db, ORDER_BY, FORMAT, lk.ProcessOptions(), 19, CACHE)
    results: list[dict[str, object]] = []
    for query in queries:
        options = lk.SearchOptions(0, query.get("next", 0), query.get("limit", 10000))
        pattern = lk.Pattern(getattr(lk, query["type"]), 19, query["sizeX"], query["sizeY"],
                             query["text"])
        gamelist.reset()
        gamelist.search(pattern, options)  # warm the page cache, as the gohash side does
        times, cpu = [], []
        for _ in range(query["runs"]):
            gamelist.reset()
            start, start_cpu = time.perf_counter(), time.process_time()
            gamelist.search(pattern, options)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        games = gamelist.size()
        files = sorted(
            os.path.realpath(os.path.join(gamelist.getCurrentProperty(i, "path"),
                                          gamelist.getCurrentProperty(i, "filename")))
            for i in range(games)
        )
        results.append({"seconds": times, "cpu": cpu, "hits": gamelist.numHits(),
                        "files": files})
    return results


def main(argv: list[str]) -> int:
    root, mode, db, *rest = argv
    sys.path.insert(0, root)
    from kombilo import libkombilo as lk

    if mode == "build":
        print(json.dumps(build(lk, db, rest[0])))
    else:
        with open(rest[0]) as f:
            queries = json.load(f)
        answer = search(lk, db, queries) if mode == "search" else patterns(lk, db, queries)
        with open(rest[1], "w") as f:
            json.dump(answer, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
