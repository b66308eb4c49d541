"""Benchmark of ``gohash serve`` under load and beside slow work, on loopback only.

Run: ``.venv/bin/python benchmarks/serve_load.py [--requests N] [--clients C]
[--corpus-games G] [--archive-mib M] [--passes P]``.  It stops by itself.

1. Inputs, made in a temporary folder: ``data/sgf``, the first ``--corpus-games``
   records of ``kgs-6d`` under ``../shared/corpus/`` (or ``--corpus``; if it is there), two
   records of two stones and ``--passes`` passes (about 800 KB each: long games), and two
   ``.tar.bz2`` archives of ``--archive-mib`` MiB of random bytes followed by a
   real record (games that take seconds to read again).  They are indexed.
2. ``gohash serve`` runs on a free port of 127.0.0.1, in a process of its own,
   so its resident memory (``/proc``, Linux) is the server's alone.
3. Load: ``--requests`` mixed requests (positions after openings of the
   records, pages of games, games, the index's info, the page and its files,
   and bad requests that must get a 400) from ``--clients`` threads, each on
   one keep-alive connection.  An error is any other status, or a failed
   connection.  Printed: errors, p50, p99 and max of the request times, and
   the server's memory after each eighth of the requests, the CPU time it took
   (its worker processes' included: a figure the machine's load does not
   change much), and the times per endpoint.
4. Slow work: the four slow games (the two long ones and the two in
   archives) requested at once, while one client keeps asking for positions
   until they are answered.  Printed: each slow request's time and answer
   size, the small requests' p50, p99 and max, and the peak memory of the server
   and of its worker processes reading games.

5. Pattern searches, on a server over an index of data/sgf and the first
   ``--pattern-games`` records of ``kgs-6d``, with a search of two stones slid
   anywhere (about a second each at 2,000 games): small requests (the index's
   info, positions, pages of games) alone, then beside ``--flood`` searches
   sent at once, then beside ``--abandoned`` searches whose connections close
   once sent.  Printed: the small requests' p50, p99 and max (and their p99 over
   the one alone), the searches' statuses (200 answered; 503 refused at once,
   the queue full), the time of the search after the abandoned ones against one
   alone, and the server's peak memory.

Targets: 0 errors; p99 <= 150 ms under load, beside the slow work and beside
the pattern searches; the memory flat under load.  The machine is shared (2
cores): the 1-minute load average is printed before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import io
import os
import random
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from sgfmill import sgf

from gohash.group.coords import sgf_letters
from gohash.index.index import Index

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
HOST = "127.0.0.1"


def long_record(passes: int) -> bytes:
    """A 19x19 record of two corner stones, then ``passes`` passes, alternating.

    The stones keep its repeated position off the empty board: 200,000
    occurrences of the empty board make every query of it (the most common)
    count them all, a cost of the index (about a second each), not of the
    server's reading of the game, which is measured here."""
    body = "".join(";B[]" if i % 2 == 0 else ";W[]" for i in range(passes))
    return f"(;GM[1]FF[4]SZ[19]PB[long]PW[game];B[aa];W[ss]{body})".encode()


def slow_archive(path: Path, filler_mib: int, record: bytes) -> None:
    """A .tar.bz2 of ``filler_mib`` MiB of random bytes (not SGF), then ``record``."""
    with tarfile.open(path, "w:bz2") as tar:
        for name, data in (("filler.bin", os.urandom(filler_mib << 20)), ("game.sgf", record)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def opening(path: Path, moves: int) -> list[str]:
    """Up to ``moves`` first main-line moves of a 19x19 record without setup, as points."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    if game.get_size() != 19 or any(game.get_root().get_setup_stones()):
        return []
    points = []
    for number, node in enumerate(game.get_main_sequence()[1 : moves + 1]):
        colour, point = node.get_move()
        if colour != "bw"[number % 2] or point is None or node.has_setup_stones():
            break
        points.append(sgf_letters(point, 19))
    return points


def rss_mib(pid: int, field: str = "VmRSS") -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except FileNotFoundError:  # a worker that just ended
        return 0.0
    raise RuntimeError(f"no {field} for process {pid}")


def children(pid: int) -> list[int]:
    """The server's child processes: its workers reading games, started by any of
    its threads (each thread's children are listed apart)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                found += [int(child) for child in listed.read().split()]
        except FileNotFoundError:  # a thread that just ended
            continue
    return found


def workers_mib(pid: int) -> float:
    return sum(rss_mib(child) for child in children(pid))


def cpu_seconds(pid: int) -> float:
    """User and system time of a process and its live children."""
    total = 0.0
    for process in (pid, *children(pid)):
        try:
            with open(f"/proc/{process}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


class Client:
    """One keep-alive connection; reconnects after the server closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=120)

    def get(self, path: str) -> tuple[int, int, float]:
        """Status, body bytes and seconds of one GET (status 0: the connection failed)."""
        start = time.perf_counter()
        for attempt in (1, 2):
            try:
                self.conn.request("GET", path)
                response = self.conn.getresponse()
                body = response.read()
                return response.status, len(body), time.perf_counter() - start
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=120)
                if attempt == 2:
                    return 0, 0, time.perf_counter() - start
        raise AssertionError("unreachable")


def percentile(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def summary(times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return (f"p50 {statistics.median(ms):.0f} ms, p99 {percentile(ms, 0.99):.0f} ms, "
            f"max {max(ms):.0f} ms")


def mixed_requests(
    count: int, rng: random.Random, openings: list[list[str]], game_ids: list[int]
) -> list[tuple[str, int]]:
    """``count`` (path, expected status) pairs of the mix described above."""
    out = []
    for _ in range(count):
        kind = rng.random()
        line = rng.choice(openings)
        moves = ",".join(line[: rng.randint(0, len(line))])
        if kind < 0.40:
            out.append((f"/api/position?size=19&moves={moves}", 200))
        elif kind < 0.60:
            offset = rng.choice((0, 20, 40))
            out.append((f"/api/games?size=19&moves={moves}&offset={offset}", 200))
        elif kind < 0.75:
            out.append((f"/api/game/{rng.choice(game_ids)}", 200))
        elif kind < 0.85:
            out.append(("/api/info", 200))
        elif kind < 0.95:
            out.append((rng.choice(("/", "/static/app.js", "/static/style.css")), 200))
        else:
            out.append((rng.choice(("/api/position?size=19&moves=pd,pd",
                                    "/api/position?size=99", "/api/game/abc")), 400))
    return out


def run_load(port: int, pid: int, requests: list[tuple[str, int]], clients: int) -> None:
    times: list[float] = []
    errors: list[str] = []
    memory: list[float] = []
    lock = threading.Lock()
    queue = list(enumerate(requests))
    ordered = [0.0] * len(requests)
    checkpoints = {len(requests) * k // 8 for k in range(1, 9)}

    def worker() -> None:
        client = Client(port)
        while True:
            with lock:
                if not queue:
                    return
                number, (path, expected) = queue.pop()
            status, _, seconds = client.get(path)
            with lock:
                times.append(seconds)
                ordered[number] = seconds
                if status != expected:
                    errors.append(f"{path}: {status} (expected {expected})")
                if len(times) in checkpoints:
                    memory.append(rss_mib(pid))

    start = time.perf_counter()
    cpu = cpu_seconds(pid)
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    cpu = cpu_seconds(pid) - cpu
    print(f"load: {len(times)} requests from {clients} clients in {wall:.1f} s, "
          f"{len(errors)} errors; {summary(times)} (target: 0 errors, p99 <= 150 ms)")
    print(f"  server CPU time: {cpu:.1f} s, {1000 * cpu / len(times):.1f} ms a request")
    for kind in sorted({path.split("?")[0].rstrip("0123456789") for path, _ in requests}):
        mine = [t for (path, _), t in zip(requests, ordered, strict=True)
                if path.split("?")[0].rstrip("0123456789") == kind]
        print(f"  {kind}: {len(mine)} requests, {summary(mine)}")
    for line in errors[:10]:
        print(f"  error: {line}")
    print("  server memory after each eighth (MiB): " + ", ".join(f"{m:.0f}" for m in memory))
    print(f"  its workers reading games: {workers_mib(pid):.0f} MiB")


def run_slow(port: int, pid: int, slow: list[tuple[str, int]], opening_paths: list[str]) -> None:
    done = threading.Event()
    answers: list[str] = []
    small: list[float] = []
    small_errors = 0
    peak = [rss_mib(pid)]
    peak_workers = [workers_mib(pid)]

    def slow_request(path: str) -> None:
        status, size, seconds = Client(port).get(path)
        answers.append(f"{path}: {status}, {size / 1e6:.2f} MB in {seconds:.1f} s")

    def sample() -> None:
        while not done.is_set():
            peak.append(rss_mib(pid))
            peak_workers.append(workers_mib(pid))
            time.sleep(0.05)

    threads = [threading.Thread(target=slow_request, args=(path,)) for path, _ in slow]
    sampler = threading.Thread(target=sample)
    sampler.start()
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    client = Client(port)
    rng = random.Random(5)
    while any(thread.is_alive() for thread in threads):
        status, _, seconds = client.get(rng.choice(opening_paths))
        small.append(seconds)
        small_errors += status != 200
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    print(f"slow work: {len(slow)} slow requests at once, answered in {wall:.1f} s:")
    for line in sorted(answers):
        print(f"  {line}")
    print(f"  beside them {len(small)} position requests, {small_errors} errors: "
          f"{summary(small)} (target p99 <= 150 ms)")
    print(f"  server memory: peak {max(peak):.0f} MiB during the slow requests; its workers "
          f"reading games together {max(peak_workers):.0f} MiB at most")


TWO_STONES = "\n".join(["-" * 19] * 9 + ["-" * 8 + "XO" + "-" * 9] + ["-" * 19] * 9)
"""A black and a white stone side by side, slid anywhere on 19x19: a pattern
most positions of most games hold (issue 31's broad search)."""


def beside(port: int, pid: int, paths: list[str], busy: Callable[[], bool]
           ) -> tuple[list[float], int, float]:
    """Small requests (``paths`` in turn) one at a time while ``busy()``: their
    times, how many were not answered 200, and the server's peak memory (MiB)."""
    client = Client(port)
    times, errors, peak = [], 0, rss_mib(pid)
    while busy():
        status, _, seconds = client.get(paths[len(times) % len(paths)])
        times.append(seconds)
        errors += status != 200
        peak = max(peak, rss_mib(pid))
    return times, errors, peak


def run_patterns(port: int, pid: int, small: list[str], flood: int, abandoned: int) -> None:
    """The pattern flood and the abandoned searches (see the module's docstring)."""
    pattern = "/api/pattern?" + urllib.parse.urlencode({"diagram": TWO_STONES})
    turns = iter(range(200))
    alone, alone_errors, _ = beside(port, pid, small, lambda: next(turns, None) is not None)
    lone = [Client(port).get(pattern) for _ in range(2)][-1]
    print(f"patterns: alone, small requests {summary(alone)} ({alone_errors} errors); "
          f"one search {lone[2]:.2f} s (status {lone[0]}, {lone[1] / 1e3:.0f} KB); "
          f"server memory {rss_mib(pid):.0f} MiB")

    statuses: list[int] = []
    lock = threading.Lock()

    def search() -> None:
        status, _, _ = Client(port).get(pattern)
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=search) for _ in range(flood)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    times, errors, peak = beside(port, pid, small,
                                 lambda: any(thread.is_alive() for thread in threads))
    wall = time.perf_counter() - start
    for thread in threads:
        thread.join()
    counts = ", ".join(f"{n} x {status}" for status, n in sorted(Counter(statuses).items()))
    print(f"pattern flood: {flood} searches at once, answered in {wall:.1f} s: {counts}")
    print(f"  beside them {len(times)} small requests, {errors} errors: {summary(times)} "
          f"(target p99 <= 150 ms; p99 {percentile(times, 0.99) / percentile(alone, 0.99):.1f}x "
          f"alone); server memory peak {peak:.0f} MiB")

    sockets = []
    for _ in range(abandoned):
        sock = socket.create_connection((HOST, port))
        sock.sendall(f"GET {pattern} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
        sockets.append(sock)
    time.sleep(0.2)  # the server has read them all
    for sock in sockets:
        sock.close()
    until = time.perf_counter() + 3 * max(1.0, lone[2])
    times, errors, peak = beside(port, pid, small, lambda: time.perf_counter() < until)
    following = Client(port).get(pattern)
    print(f"abandoned: {abandoned} searches sent, then their connections closed; beside "
          f"them {len(times)} small requests, {errors} errors: {summary(times)} "
          f"(target p99 <= 150 ms); the next search {following[2]:.2f} s (status "
          f"{following[0]}; {following[2] / lone[2]:.1f}x one alone); server memory peak "
          f"{peak:.0f} MiB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--corpus-games", type=int, default=300)
    parser.add_argument("--archive-mib", type=int, default=48)
    parser.add_argument("--passes", type=int, default=199_990)
    parser.add_argument("--pattern-games", type=int, default=2000)
    parser.add_argument("--flood", type=int, default=60)
    parser.add_argument("--abandoned", type=int, default=15)
    parser.add_argument("--corpus", type=Path, default=CORPUS,
                        help=f"the corpus folder (default {CORPUS})")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}; load average before: {os.getloadavg()[0]:.2f}")
    corpus = sorted((args.corpus / "kgs-6d").rglob("*.sgf"))[: args.corpus_games]
    if not corpus:
        print(f"corpus not found at {args.corpus}: indexing data/sgf and the generated games only")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        slow_inputs = []
        for n in range(2):
            record = work / f"long-{n}.sgf"
            record.write_bytes(long_record(args.passes - n))
            archive = work / f"slow-{n}.tar.bz2"
            slow_archive(archive, args.archive_mib, (ROOT / "data" / "sgf" / "game-9x9.sgf")
                         .read_bytes().replace(b"]", f"]C[{n}]".encode(), 1))
            slow_inputs += [record, archive]
        db = work / "index.db"
        start = time.perf_counter()
        with Index(db, create=True) as index:
            built = index.build([str(ROOT / "data" / "sgf"), *map(str, corpus),
                                 *map(str, slow_inputs)])
            files = {record.file: game_id for game_id, record in index.records().items()}
        print(f"index: {built.games} games, {built.positions} positions, built in "
              f"{time.perf_counter() - start:.1f} s")
        slow = []
        for path in slow_inputs:
            game_id = next(gid for name, gid in files.items() if name.startswith(str(path)))
            slow.append((f"/api/game/{game_id}", 200))
        normal = [gid for name, gid in files.items()
                  if not any(name.startswith(str(p)) for p in slow_inputs)]
        openings = [line for line in (opening(p, 12) for p in corpus[:100]) if line] or [[]]
        small = [f"/api/position?size=19&moves={','.join(line[:k])}"
                 for line in openings for k in range(len(line) + 1)]
        with serving(db) as (port, pid):
            print(f"server memory at start: {rss_mib(pid):.0f} MiB")
            rng = random.Random(7)
            run_load(port, pid, mixed_requests(args.requests, rng, openings, normal),
                     args.clients)
            run_slow(port, pid, slow, small)
            print(f"server peak memory over the run: {rss_mib(pid, 'VmHWM'):.0f} MiB; each "
                  "worker's: " + ", ".join(f"{rss_mib(c, 'VmHWM'):.0f} MiB"
                                           for c in children(pid)))
        patterns_db = work / "patterns.db"
        start = time.perf_counter()
        records = sorted((args.corpus / "kgs-6d").rglob("*.sgf"))[: args.pattern_games]
        with Index(patterns_db, create=True) as index:
            built = index.build([str(ROOT / "data" / "sgf"), *map(str, records)])
        print(f"pattern index: {built.games} games, {built.positions} positions, built in "
              f"{time.perf_counter() - start:.1f} s")
        small_mix = ["/api/info", "/api/games?size=19&offset=20", *small]
        with serving(patterns_db) as (port, pid):
            run_patterns(port, pid, small_mix, args.flood, args.abandoned)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


@contextlib.contextmanager
def serving(db: Path) -> Iterator[tuple[int, int]]:
    """``gohash serve db`` in a process of its own on a free port, once it answers:
    its port and process id."""
    port = free_port()
    command = Path(sys.executable).parent / "gohash"
    server = subprocess.Popen([str(command), "serve", str(db), "--port", str(port)],
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while Client(port).get("/api/info")[0] != 200:
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start: {server.communicate()[1]}")
            time.sleep(0.2)
        yield port, server.pid
    finally:
        server.terminate()
        server.communicate(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
