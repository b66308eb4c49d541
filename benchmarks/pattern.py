"""Benchmark of ``Index.pattern`` against Kombilo 0.8.4's pattern search (issue 25).

Run: ``.venv/bin/python benchmarks/pattern.py [--limit N] [--runs N] [--seed N]``.

Kombilo is found or built as ``benchmarks/kombilo.py`` says (its functions
are used here), and driven by ``benchmarks/kombilo_driver.py patterns`` in a
subprocess with ``OMP_NUM_THREADS=1``.  The games: the files of ``kgs-6d/``
and ``ai-games/`` under ``../shared/corpus/``, in a seeded random order, all
of them or the first ``--limit``; both sides index the same folder of links
(Kombilo with its defaults, gohash with ``gohash index build``; the build
times are printed, not compared here: ``benchmarks/kombilo.py`` does that).

The patterns (:data:`PATTERNS`): 7x7 corner patterns with a few stones, side
patterns sliding along the edge, local shapes anywhere off the edges, with and
without wildcards; each drawn for Kombilo as its rectangle in the top-left
corner (``CORNER_NW_PATTERN``), on the top side (``SIDE_N_PATTERN``) or in the
centre (``CENTER_PATTERN``), and for gohash as the same rectangle on a full
diagram, so that both anchor it alike.  Both search up to rotation,
reflection and colour exchange, either side to move, no move limit.  Each
side opens its database once (Kombilo's ``GameList`` reads its data into
memory; gohash reads and replays its games at the first search, whose time
is printed), then makes one untimed pass and ``--runs`` timed ones per
pattern: Kombilo's ``search``, gohash's ``Index.pattern`` with its default
limit (the counts and continuations of every match, the first 100 matches
with their records, as the CLI and the page show them); p50 of the timed
ones' wall times and of their CPU times (of the process; Kombilo's in its
driver).  The games hit are listed afterwards, untimed, on both sides, and
must be the same: every game only one side finds is printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from gohash.index.index import Index

_SPEC = importlib.util.spec_from_file_location(
    "kombilo_benchmark", Path(__file__).resolve().with_name("kombilo.py"))
assert _SPEC is not None and _SPEC.loader is not None
kb = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = kb  # its dataclasses look their module up
_SPEC.loader.exec_module(kb)

SIZE = 19
SHOWN = 10


@dataclass(frozen=True)
class Shape:
    """A pattern: its rectangle's rows from the top, and where it is drawn."""

    name: str
    kind: str  # "corner", "side", "anywhere"
    rows: tuple[str, ...]

    @property
    def kombilo_type(self) -> str:
        return {"corner": "CORNER_NW_PATTERN", "side": "SIDE_N_PATTERN",
                "anywhere": "CENTER_PATTERN"}[self.kind]

    def diagram(self) -> str:
        """The full-board diagram: the rectangle in the top-left corner, on the top
        side one column in, or in the centre; ``-`` elsewhere."""
        top, left = {"corner": (0, 0), "side": (0, 1), "anywhere": (6, 6)}[self.kind]
        lines = [["-"] * SIZE for _ in range(SIZE)]
        for r, row in enumerate(self.rows):
            for c, symbol in enumerate(row):
                lines[top + r][left + c] = symbol
        return "\n".join("".join(line) for line in lines)


PATTERNS = (
    Shape("corner: 4-4 and the 3-3 invasion", "corner",
          (".......", ".......", "..O....", "...X...", ".......", ".......", ".......")),
    Shape("corner: 4-4, low approach, x below", "corner",
          (".......", ".......", ".....O.", "...X...", ".......", "..x....", ".......")),
    Shape("corner: 3-4 and 5-3, rest *", "corner",
          (".....**", ".....**", "...X.**", "....O**", ".....**", "*******", "*******")),
    Shape("side: two third-line stones", "side",
          (".......", ".......", "..X.O..", ".......")),
    Shape("side: a lone 3rd-line stone, first row *", "side",
          ("*****", ".....", "..X..", ".....")),
    Shape("anywhere: crosscut", "anywhere", ("XO", "OX")),
    Shape("anywhere: empty triangle, o beside", "anywhere", ("XXo", "X.*")),
    Shape("anywhere: table shape", "anywhere", ("X.X", "...", "*X*")),
)


@dataclass
class Answer:
    seconds: list[float]
    cpu: list[float]
    hits: int
    files: list[str]


def search_kombilo(root: Path, db: Path, runs: int, scratch: Path) -> list[Answer]:
    asked, answers = scratch / "patterns.json", scratch / "pattern-answers.json"
    asked.write_text(json.dumps([
        {"type": p.kombilo_type, "sizeX": len(p.rows[0]), "sizeY": len(p.rows),
         "text": "".join(p.rows), "runs": runs}
        for p in PATTERNS
    ]))
    run = kb.measure([sys.executable, str(kb.DRIVER), str(root), "patterns", str(db),
                      str(asked), str(answers)], kb.kombilo_env())
    if run.code != 0:
        raise SystemExit(f"Kombilo's pattern search failed:\n{run.stderr}")
    return [Answer(a["seconds"], a["cpu"], a["hits"], a["files"])
            for a in json.loads(answers.read_text())]


def search_gohash(db: Path, runs: int) -> list[Answer]:
    found = []
    with Index(db, read_only=True) as index:
        for k, p in enumerate(PATTERNS):
            diagram = p.diagram()
            start, start_cpu = time.perf_counter(), time.process_time()
            index.pattern(diagram)  # the first reads and replays the games once
            if k == 0:
                print(f"  gohash: the first search after opening the index (reading and "
                      f"replaying its games once) {(time.perf_counter() - start) * 1e3:.0f} ms, "
                      f"CPU {(time.process_time() - start_cpu) * 1e3:.0f} ms", flush=True)
            times, cpu = [], []
            for _ in range(runs):
                start, start_cpu = time.perf_counter(), time.process_time()
                index.pattern(diagram)  # the first 100 matches, as the CLI and page show
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
            # Untimed, as Kombilo's driver lists its games after its timed searches.
            result = index.pattern(diagram, limit=None)
            files = sorted({os.path.realpath(m.record.file) for m in result.matches})
            print(f"  gohash: {p.name}: {result.placements} placements, {result.candidates:,} "
                  f"of {result.searched:,} games replayed", flush=True)
            # Kombilo counts a hit per placement; gohash one per move, of them all.
            found.append(Answer(times, cpu, sum(m.placements for m in result.matches), files))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="games (files) to use (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="timed searches per pattern")
    parser.add_argument("--seed", type=int, default=2026, help="of the game order")
    args = parser.parse_args()
    if not all((kb.CORPUS / folder).is_dir() for folder in kb.FOLDERS):
        print(f"corpus not found at {kb.CORPUS}: nothing to measure")
        return 0
    root, how = kb.install_kombilo(kb.cache_folder())
    if root is None:
        print(f"skipped: {how}")
        return 0
    print(how)
    files = sorted(p for folder in kb.FOLDERS for p in (kb.CORPUS / folder).rglob("*.sgf"))
    random.Random(args.seed).shuffle(files)
    files = files[: args.limit]
    print(f"corpus: {', '.join(kb.FOLDERS)} under {kb.CORPUS}, {len(files)} files (seed "
          f"{args.seed}); cores: {os.cpu_count()}, shared; load average before: {kb.load()}")
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        inputs = scratch / "input"
        kb.link_inputs(files, inputs)
        kombilo = kb.build_kombilo(root, inputs, scratch / "kombilo")
        gohash = kb.build_gohash(inputs, scratch / "gohash")
        print(f"builds: Kombilo {kombilo.games:,} games {kombilo.run.wall:.1f} s, gohash "
              f"{gohash.games:,} games {gohash.run.wall:.1f} s")
        theirs = search_kombilo(root, scratch / "kombilo" / "kombilo.db", args.runs, scratch)
        ours = search_gohash(scratch / "gohash" / "gohash.db", args.runs)
    print(f"load average after: {kb.load()}")
    print()
    print(f"{'pattern':<44}{'Kombilo p50':>13}{'gohash p50':>12}{'ratio':>8}{'CPU K/g ms':>14}"
          f"{'ratio':>7}{'games K/g':>13}{'hits K/g':>15}  same games")
    print("(p50 of wall times, then of CPU times, which a busy machine inflates less; hits: "
          "Kombilo's, and gohash's placements hit, several of which after one move make one "
          "gohash match)")
    agree = 0
    for p, k, g in zip(PATTERNS, theirs, ours, strict=True):
        kp50, gp50 = statistics.median(k.seconds), statistics.median(g.seconds)
        kcpu, gcpu = statistics.median(k.cpu), statistics.median(g.cpu)
        same = k.files == g.files
        agree += same
        print(f"{p.name:<44}{kp50 * 1e3:>10.1f} ms{gp50 * 1e3:>9.1f} ms{gp50 / kp50:>7.1f}x"
              f"{kcpu * 1e3:>7.1f}/{gcpu * 1e3:<6.1f}{gcpu / max(kcpu, 1e-6):>7.1f}x"
              f"{len(k.files):>6}/{len(g.files):<6}{k.hits:>7}/{g.hits:<7}  "
              f"{'yes' if same else 'NO'}")
    for p, k, g in zip(PATTERNS, theirs, ours, strict=True):
        for side, paths in (("Kombilo", set(k.files) - set(g.files)),
                            ("gohash", set(g.files) - set(k.files))):
            for path in sorted(paths)[:SHOWN]:
                print(f"  {p.name}: only {side}: {path}")
            if len(paths) > SHOWN:
                print(f"  {p.name}: and {len(paths) - SHOWN} more only {side}")
    print(f"the same games for {agree}/{len(PATTERNS)} patterns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
