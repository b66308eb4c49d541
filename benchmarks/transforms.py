"""Benchmark: hash transforms and canonical keys, against the baselines of issue 2.

Run: ``.venv/bin/python benchmarks/transforms.py [--count 10000000]``

Arrays: one huima64 transform, and the canonical key over all 16 elements (key and
lowest attaining element), of ``count`` random hashes, each against ``numpy.copy``
of the same array, in the same run (best of several repeats: this machine's
timings vary by 20-30% from run to run).  The canonical key's
peak extra memory is measured with tracemalloc (numpy reports its buffers there).

Scalar: the canonical key of one Python int, against re-hashing the 8 rotated and
mirrored boards of a 200-stone 19x19 position in pure Python, as engines such as
Leela Zero and GNU Go obtain symmetric keys (precomputed symmetry tables of
points, one XOR per stone and board).

Targets: transform <= 3x copy; canonical <= 12x copy with peak extra memory <= 3x
the input; scalar canonical >= 50x faster than re-hashing.
"""

from __future__ import annotations

import argparse
import time
import timeit
import tracemalloc
from collections.abc import Callable

import numpy as np

from gohash import D4, scheme


def best_time(run: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def peak_extra_bytes(run: Callable[[], object]) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - before


def rehash_eight_boards(
    stones: list[tuple[int, int]], tables: list[list[int]], keys: tuple[list[int], list[int]]
) -> int:
    """Least plain-Zobrist hash over the 8 board maps, re-hashing each image."""
    best = -1
    for table in tables:
        h = 0
        for point, colour in stones:
            h ^= keys[colour][table[point]]
        if best < 0 or h < best:
            best = h
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    s = scheme("huima64", 19)
    rng = np.random.default_rng(2000)
    hashes = rng.integers(0, 2**64 - 1, size=args.count, dtype=np.uint64, endpoint=True)

    copy = best_time(lambda: np.copy(hashes), args.repeats)
    rot90 = best_time(lambda: s.transform_array(hashes, "rot90"), args.repeats)
    flip_swap = best_time(lambda: s.transform_array(hashes, "flip_swap"), args.repeats)
    canonical = best_time(lambda: s.canonical_array(hashes), args.repeats)
    extra = peak_extra_bytes(lambda: s.canonical_array(hashes))

    print(f"{args.count:,} random huima64 hashes ({hashes.nbytes / 2**20:.0f} MiB)")
    print(f"{'operation':<34}{'seconds':>10}{'x copy':>10}{'target':>10}")
    rows = [
        ("numpy.copy (baseline)", copy, ""),
        ("transform rot90", rot90, "<= 3"),
        ("transform flip_swap", flip_swap, "<= 3"),
        ("canonical key, 16 elements", canonical, "<= 12"),
    ]
    for label, seconds, target in rows:
        print(f"{label:<34}{seconds:>10.4f}{seconds / copy:>10.2f}{target:>10}")
    print(f"canonical peak extra memory: {extra / 2**20:.1f} MiB = "
          f"{extra / hashes.nbytes:.2f}x the input (target <= 3)")

    # -- one Python int against re-hashing 8 boards ---------------------------------------
    # 200 different positions, so that the rare hashes that need all 16 images
    # (a repeated least byte) weigh in as often as they occur.
    n = 19
    tables = [g.point_permutation(n).tolist() for g in D4]
    plain = (
        [int(k) for k in rng.integers(0, 2**63, n * n, dtype=np.uint64)],
        [int(k) for k in rng.integers(0, 2**63, n * n, dtype=np.uint64)],
    )
    positions = []
    for _ in range(200):
        points = rng.permutation(n * n)[:200].tolist()
        stones = [(p, i % 2) for i, p in enumerate(points)]
        board = np.zeros((n, n), dtype=np.int8)
        for p, colour in stones:
            board[divmod(p, n)] = colour + 1
        positions.append((stones, s.hash_array(board)))

    def ours() -> None:
        for _, h in positions:
            s.canonical(h)

    def theirs() -> None:
        for stones, _ in positions:
            rehash_eight_boards(stones, tables, plain)

    per_call = len(positions)
    ours_time = min(timeit.repeat(ours, number=50, repeat=args.repeats)) / (50 * per_call)
    theirs_time = min(timeit.repeat(theirs, number=1, repeat=args.repeats)) / per_call
    print()
    print(f"{'scalar (200 positions of 200 stones, 19x19)':<46}{'microseconds':>14}")
    print(f"{'re-hash 8 boards, pure Python':<46}{theirs_time * 1e6:>14.2f}")
    print(f"{'gohash canonical(h), 16 elements':<46}{ours_time * 1e6:>14.2f}")
    print(f"speed-up: {theirs_time / ours_time:.1f}x (target >= 50)")


if __name__ == "__main__":
    main()
