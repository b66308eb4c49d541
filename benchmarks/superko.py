"""Benchmark: the superko check against the canonical-key walk, on the same games.

Walks every game under ../shared/corpus/ (beside the checkout) twice in one
run: with :func:`gohash.canon.canon` (what ``gohash canon`` does, one process,
records written to nowhere; the baseline, which replays with the compiled core
since it moved onto :func:`gohash.positions.positions`) and with
:class:`gohash.superko.SuperkoVisitor` under the chinese ruleset (what
``gohash superko`` does).  Both parse and replay the same main lines; the files
are read once beforehand so the page cache favours neither.  Target: the
check takes at most 1.2x the canonical walk.

Run: .venv/bin/python benchmarks/superko.py [--limit N] [--variations]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from gohash.canon import CanonOptions, canon
from gohash.superko import RULESETS, check

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
TARGET = 1.2


def corpus_files(limit: int | None) -> list[str]:
    files = sorted(str(p) for p in CORPUS.rglob("*.sgf"))
    return files[:limit] if limit is not None else files


def timed(run: Callable[[], tuple[int, int, int]]) -> tuple[float, tuple[int, int, int]]:
    start = time.perf_counter()
    counts = run()
    return time.perf_counter() - start, counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="only the first N files (sorted by path)")
    parser.add_argument("--variations", action="store_true", help="walk every variation")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}: nothing to measure")
        return 0
    files = corpus_files(args.limit)
    size = sum(len(Path(f).read_bytes()) for f in files)  # warm the page cache for both

    def run_canon() -> tuple[int, int, int]:
        options = CanonOptions(variations=args.variations)
        summary = canon(files, lambda text: None, options)
        return summary.games, summary.positions, len(summary.errors)

    def run_check() -> tuple[int, int, int]:
        result = check(files, RULESETS["chinese"], variations=args.variations)
        summary = result.summary
        print(f"superko check found {len(result.violations)} violations")
        return summary.games, summary.positions, len(result.errors)

    print(f"{len(files)} files ({size / 1e6:.1f} MB) under {CORPUS}")
    canon_time, canon_counts = timed(run_canon)
    check_time, check_counts = timed(run_check)
    print(f"{'walk':<28}{'games':>8}{'positions':>12}{'errors':>8}{'seconds':>10}{'ratio':>8}")
    for name, seconds, (games, positions, errors) in (
        ("canon (baseline)", canon_time, canon_counts),
        ("superko check (chinese)", check_time, check_counts),
    ):
        print(
            f"{name:<28}{games:>8}{positions:>12}{errors:>8}{seconds:>10.2f}"
            f"{seconds / canon_time:>8.2f}"
        )
    print(
        "(canon abandons a game at its first error; the check reports an occupied point\n"
        " as a violation and goes on, so it may visit a few more positions)"
    )
    ratio = check_time / canon_time
    verdict = "meets" if ratio <= TARGET else "MISSES"
    print(f"check / canon = {ratio:.2f}: {verdict} the target of {TARGET}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
