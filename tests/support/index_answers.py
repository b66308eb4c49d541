"""Answers of an index to a fixed sample of queries, for a differential test of its storage.

:func:`answers` builds an index of some inputs with the library as it is,
picks a seeded sample of positions from the records (replayed by the
pipeline, independently of what the index stores), turns each by a seeded
random element, and records what ``find``, ``continuations`` and ``dupes``
answer, in plain JSON.  Run as a script it writes the reference of the
storage it runs on; ``tests/index/test_index_answers.py`` compares a later storage's
answers with it.  Games are named by file and game number, never by id.

    .venv/bin/python -m tests.support.index_answers OUT.json[.gz] [--samples N] [--variations] \
        INPUT...
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gohash.go.board import Board
from gohash.group.symmetry import ELEMENTS
from gohash.index.index import Index
from gohash.pipeline.frames import unpack_frames
from gohash.pipeline.positions import read_positions


def sample_positions(inputs: Sequence[str], count: int, seed: int,
                     variations: bool = False) -> list[dict[str, Any]]:
    """``count`` positions of the inputs (their main lines, or every variation),
    and a quarter as many more of their openings (move 8 at most), seeded: each
    as its stones turned by a random element, with the side to move as recorded."""
    rows: list[tuple[int, bytes, int]] = []
    openings: list[tuple[int, bytes, int]] = []
    for batch in read_positions(list(inputs), packed=True, variations=variations):
        for row in range(len(batch)):
            if variations or batch.variation[row] == 0:
                kept = (int(batch.size[row]), batch.packed(row), int(batch.to_move[row]))
                rows.append(kept)
                if batch.move_number[row] <= 8:
                    openings.append(kept)
    rng = random.Random(seed)
    picked = rng.sample(rows, min(count, len(rows)))
    picked += rng.sample(openings, min(count // 4, len(openings)))
    out = []
    for size, packed, to_move in picked:
        stones = unpack_frames(packed, 1, size)[0].reshape(size, size)
        element = ELEMENTS[rng.randrange(len(ELEMENTS))]
        image = element.image_array(stones)
        side = "bw"[to_move - 1]
        if element.swap:
            side = "w" if side == "b" else "b"
        out.append({"stones": image.tolist(), "to_move": side, "element": element.index})
    return out


def _match(m: Any) -> list[Any]:
    return [m.record.file, m.record.game, m.move_number, m.seq, m.element.index, m.to_move,
            None if m.next_move is None else [m.next_move[0], m.next_move[1]],
            list(m.variation)]


def _continuations(c: Any) -> dict[str, Any]:
    return {
        "total": c.total, "ended": c.ended, "same": c.same_colours,
        "exchanged": c.exchanged_colours, "wins": [c.black_wins, c.white_wins, c.other],
        "years": {str(y): n for y, n in c.years.items()},
        "moves": [[m.colour, m.point, m.count, m.black_wins, m.white_wins, m.other,
                   m.first_date, m.last_date, m.same_colours, m.exchanged_colours,
                   [list(p) for p in m.equivalent]] for m in c.moves],
    }


def query_answers(index: Index, samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What ``index`` answers to each sampled position."""
    out = []
    for sample in samples:
        arr = np.array(sample["stones"], dtype=np.int8)
        board = Board.from_array(arr, to_move=sample["to_move"])
        found = index.find(arr, limit=None)
        out.append({
            "find": {"total": found.total, "rejected": found.rejected,
                     "matches": [_match(m) for m in found.matches]},
            "find_b": index.find(arr, limit=None, to_move="b", symmetry="d4").total,
            # Setup counted with play, as the references were written.
            "continuations": _continuations(index.continuations(board, setup="include")),
            "continuations_any_d4": _continuations(
                index.continuations(arr, symmetry="d4", to_move="any", setup="include")),
        })
    return out


def dupe_answers(index: Index) -> dict[str, Any]:
    dupes = index.dupes()

    def group(g: Any) -> list[Any]:
        return [[[r.file, r.game] for r in g.records], [e.index for e in g.elements],
                g.positions]

    return {"groups": [group(g) for g in dupes.groups],
            "prefixes": [[group(p.shorter), group(p.longer)] for p in dupes.prefixes]}


def answers(inputs: Sequence[str], count: int, seed: int = 24, variations: bool = False,
            samples: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Build an index of ``inputs`` in a scratch folder and record its answers to
    ``samples``, or to ``count`` positions sampled with ``seed``."""
    if samples is None:
        samples = sample_positions(inputs, count, seed, variations)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "answers.sqlite"
        with Index(path, create=True, variations=variations) as index:
            index.build(list(inputs))
            return {"inputs": list(inputs), "seed": seed, "samples": samples,
                    "answers": query_answers(index, samples), "dupes": dupe_answers(index)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--variations", action="store_true")
    args = parser.parse_args()
    result = answers(args.inputs, args.samples, args.seed, args.variations)
    text = (json.dumps(result, separators=(",", ":")) + "\n").encode()
    Path(args.out).write_bytes(gzip.compress(text, mtime=0) if args.out.endswith(".gz") else text)


if __name__ == "__main__":
    main()
