"""Benchmark: ``gohash superko`` against sgfmill parsing and replaying the same games.

Reads the files of ``kgs-6d/`` and ``ai-games/`` under ``../shared/corpus/``
(beside the checkout), once beforehand so the page cache favours no row, and
times in one run:

- sgfmill: parse, ``Sgf_game`` and ``sgfmill.boards.Board`` replaying the main
  line (as in ``benchmarks/canon.py``), no hashing and no ko rule;
- ``gohash superko`` as the command runs it (output to nowhere), on the
  compiled core's columns (the default);
- ``gohash superko`` with ``GOHASH_PURE=1``: every file walked with the visitor.

It prints wall and CPU seconds, positions per second and the ratio to sgfmill
(target: compiled >= 10x), checks that both runs print the same, and gives
the load average before and after, since the machine may be shared.  Last,
the worst case of the columns: one game of a ko taken back and forth after
passes, 10,000 to 40,000 moves, a repetition every third move, where the
time must grow linearly as the visitor's does.

Run: .venv/bin/python benchmarks/superko.py [--limit N] [--ruleset NAME] [--variations]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

from gohash.cli import main
from gohash.go.rulesets import RULESETS
from gohash.pipeline.positions import CORE_AVAILABLE
from gohash.tools.superko import check

sys.path.insert(0, str(Path(__file__).resolve().parent))
from canon import sgfmill_replay

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
TARGET = 10.0


def gohash_superko(files: list[Path], options: list[str], pure: bool) -> tuple[int, str, str]:
    """Run ``gohash superko`` like the command line does: exit code, output, summary."""
    out, err = io.StringIO(), io.StringIO()
    os.environ["GOHASH_PURE"] = "1" if pure else "0"
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["superko", *options, *map(str, files)])
    finally:
        del os.environ["GOHASH_PURE"]
    return code, out.getvalue(), err.getvalue()


def ko_cycle(moves: int) -> bytes:
    """A 5x5 game: a ko, then C2 takes, two passes, B2 retakes, two passes, over again."""
    shape = ";B[ad];W[dd];B[be];W[ce];B[bc];W[cc];B[];W[bd]"
    return f"(;SZ[5]{shape}{';B[cd];W[];B[];W[bd];B[];W[]' * (moves // 6)})".encode()


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def report() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="only the first N files (a quick look)")
    parser.add_argument("--ruleset", choices=tuple(RULESETS), help="as gohash superko's")
    parser.add_argument("--variations", action="store_true", help="as gohash superko's")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}: nothing to measure")
        return 0
    if not CORE_AVAILABLE:
        print("the compiled core is not built: both gohash rows walk every file")
    folders = (CORPUS / "kgs-6d", CORPUS / "ai-games")
    files = [path for folder in folders for path in sorted(folder.rglob("*.sgf"))][: args.limit]
    nbytes = sum(len(path.read_bytes()) for path in files)
    options = [*(["--ruleset", args.ruleset] if args.ruleset else []),
               *(["--variations"] if args.variations else [])]
    print(f"{len(files)} files, {nbytes / 1e6:.1f} MB from kgs-6d and ai-games under {CORPUS}")
    print(f"gohash superko {' '.join(options) or '(rules from RU)'}; "
          f"load average before: {load()} ({os.cpu_count()} cores)\n")

    rows = []
    start, cpu = time.perf_counter(), time.process_time()
    count = sgfmill_replay(files)
    rows.append(("sgfmill parse + replay", count, time.perf_counter() - start,
                 time.process_time() - cpu, ""))
    outputs = []
    for name, pure in (("gohash superko", False), ("gohash superko, pure", True)):
        start, cpu = time.perf_counter(), time.process_time()
        code, out, err = gohash_superko(files, options, pure)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
        outputs.append((code, out, err))
        summary = err.splitlines()[-1].removeprefix("gohash superko: ")
        # The check replays what sgfmill replays; the walker counts the positions.
        rows.append((name, count, seconds, cpu_seconds, f"exit {code}: {summary}"))

    # Ratios by CPU time too: on a shared machine, wall time charges this
    # process for what the others run.
    base, cpu_base = rows[0][2], rows[0][3]
    print(f"{'':24}{'wall s':>8}{'cpu s':>7}{'positions/s':>13}  {'ratio (wall, cpu)':<22}")
    for name, count, seconds, cpu_seconds, extra in rows:
        print(f"{name:24}{seconds:>8.2f}{cpu_seconds:>7.2f}{count / seconds:>13,.0f}  "
              f"{base / seconds:5.1f}x, {cpu_base / cpu_seconds:5.1f}x sgfmill  {extra}".rstrip())
    same = outputs[0] == outputs[1]
    print(f"\ncompiled and pure print the same: {same}")
    ratio = cpu_base / rows[1][3]
    verdict = "meets" if ratio >= TARGET else "MISSES"
    print(f"gohash superko = {ratio:.1f}x sgfmill (CPU): {verdict} the target of {TARGET:g}x; "
          f"{rows[2][3] / rows[1][3]:.1f}x the pure walk")

    print("\none long ko cycle (CPU s):  moves  violations  compiled    pure")
    with tempfile.TemporaryDirectory() as folder:
        for moves in (10_000, 20_000, 40_000):
            path = Path(folder) / f"cycle-{moves}.sgf"
            path.write_bytes(ko_cycle(moves))
            seconds = []
            for pure in (False, True):
                cpu = time.process_time()
                result = check([str(path)], pure=pure)
                seconds.append(time.process_time() - cpu)
            print(f"{'':26}{moves:>7,}{len(result.violations):>12,}{seconds[0]:>10.2f}"
                  f"{seconds[1]:>8.2f}")
    print(f"load average after: {load()}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(report())
