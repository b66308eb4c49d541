"""Random records of a few players, dates and results, for the player and
aggregate tests."""

from __future__ import annotations

import random
from pathlib import Path

PLAYERS = ["Lee", "Lee Sedol", "\u674e\u660c\u9550", "Park"]


POINTS = ["pd", "dd", "qd", "dp", "pp", "cc", "qc", "dc", "jj", "pq", "qp"]


SIZE = 19


def write_games(folder: Path, seed: int, count: int) -> list[Path]:
    """``count`` records of random players, dates, results and first moves; some
    with handicap stones, some with an early pass, some without a date."""
    rng = random.Random(seed)
    paths = []
    for i in range(count):
        black, white = rng.sample(PLAYERS, 2) if rng.random() < 0.9 else ["Lee", "Lee"]
        root = f"GM[1]FF[4]CA[UTF-8]SZ[{SIZE}]PB[{black}]PW[{white}]"
        root += rng.choice(["RE[B+R]", "RE[W+3.5]", "RE[0]", "", "RE[Void]"])
        if rng.random() < 0.8:
            year, month = rng.choice([2015, 2016, 2017]), rng.randint(1, 9)
            root += f"DT[{year}-0{month}-{rng.randint(10, 19)}]"
        if rng.random() < 0.5:
            root += f"BR[{rng.randint(1, 9)}d]"
        if rng.random() < 0.1:
            root += "HA[2]AB[dd][pp]"
        moves = rng.sample(POINTS, 6)
        colours = "BWBWBW" if "AB" not in root else "WBWBWB"
        nodes = [f";{c}[{m}]" for c, m in zip(colours, moves, strict=True)]
        if rng.random() < 0.1:
            j = rng.randint(0, 3)
            nodes[j] = f";{colours[j]}[]"  # a pass
        path = folder / f"g{i:03d}.sgf"
        path.write_text(f"(;{root}{''.join(nodes[: rng.randint(2, 6)])})", encoding="utf-8")
        paths.append(path)
    return paths
