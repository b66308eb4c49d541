"""Benchmark of ``Index.pattern`` against Kombilo 0.8.4's pattern search (issues 25, 34).

Run: ``.venv/bin/python benchmarks/pattern.py [--games FOLDER] [--limit N[,N...]]
[--runs N] [--seed N] [--kinds corner,side,...]``.

Kombilo is found or built as ``benchmarks/kombilo.py`` says (its functions
are used here), and driven by ``benchmarks/kombilo_driver.py patterns`` in a
subprocess with ``OMP_NUM_THREADS=1``.  The games: with ``--games FOLDER``,
the SGF files of FOLDER and of its ``tar.xz`` (or other tar) archives, which
are unpacked into a scratch folder, in sorted order (for
``../shared/scale/tygem``: month by month), the first ``--limit`` of them
(several limits, comma-separated: each a run of its own, to show the growth
per game); otherwise the files of ``kgs-6d/`` and ``ai-games/`` under
``../shared/corpus/`` in a seeded random order.  Both sides index the same
folder (Kombilo with its defaults, gohash with ``gohash index build``; the
build times are printed, not compared: ``benchmarks/kombilo.py`` does that).

The patterns (:data:`PATTERNS`, published here; ``benchmarks/scale.py`` may
import them with :func:`search_gohash`): at least 12 of each kind -- 7x7
corner patterns, side patterns sliding along the edge, local shapes
anywhere off the edges -- with and without wildcards, some with the side to
move, a move limit or a filter of games, and fully specified 7x7 corners
(kind ``full``, searched as corner patterns).  Each is drawn for Kombilo as its
rectangle in the top-left corner (``CORNER_NW_PATTERN``), on the top side
(``SIDE_N_PATTERN``) or in the centre (``CENTER_PATTERN``), and for gohash as
the same rectangle on a full diagram, so that both anchor it alike.  Both
search up to rotation, reflection and colour exchange; a side to move is
Kombilo's ``nextMove``, a move limit its ``moveLimit``; Kombilo has no filter
of games, so a pattern with one is compared with Kombilo's search of all
games (its ratio says so), and its ``nextMove`` is the colour of the next
move in the region, not the side to move, so the games hit are compared only
for patterns with neither.  Each side opens its database once, then makes
one untimed pass and ``--runs`` timed ones per pattern: Kombilo's
``search``, gohash's ``Index.pattern`` with its default limit (the counts and
continuations of every match, the first 100 matches with their records, as
the CLI and the page show them); p50 of the timed ones' wall times and of
their CPU times (of the process, both of gohash's threads; Kombilo's in its
driver).  The games hit are listed afterwards, untimed, on both sides, and
compared where the two ask the same.  The gohash process's memory is printed
after its timed searches (the searches' peak RSS, and how much of it is the
pattern file mapped: the OS cache's) and again after the listing, which
holds every match's record at once.
The machine is shared: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import resource
import statistics
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from gohash.index.filters import Filters
from gohash.index.index import Index
from gohash.index.patterns import pattern_path
from gohash.pattern.store import PatternFile

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
    """A pattern: its rectangle's rows from the top, where it is drawn (its
    kind: ``corner``, ``side``, ``anywhere``, or ``full``, a fully specified
    corner), and its options: the side to move (``b``/``w``), the last move,
    a filter of games (the keyword arguments of :class:`Filters`)."""

    name: str
    kind: str
    rows: tuple[str, ...]
    to_move: str | None = None
    max_move: int | None = None
    filters: dict[str, str] = field(default_factory=dict)

    @property
    def kombilo_type(self) -> str:
        return {"corner": "CORNER_NW_PATTERN", "full": "CORNER_NW_PATTERN",
                "side": "SIDE_N_PATTERN", "anywhere": "CENTER_PATTERN"}[self.kind]

    def diagram(self) -> str:
        """The full-board diagram: the rectangle in the top-left corner, on the top
        side one column in, or in the centre; ``-`` elsewhere."""
        top, left = {"corner": (0, 0), "full": (0, 0), "side": (0, 1),
                     "anywhere": (6, 6)}[self.kind]
        lines = [["-"] * SIZE for _ in range(SIZE)]
        for r, row in enumerate(self.rows):
            for c, symbol in enumerate(row):
                lines[top + r][left + c] = symbol
        return "\n".join("".join(line) for line in lines)

    def options(self) -> dict[str, object]:
        """Index.pattern's keyword arguments besides the diagram."""
        return {"to_move": self.to_move, "max_move": self.max_move,
                "filters": Filters(**self.filters) if self.filters else None}

    def kombilo_query(self, runs: int) -> dict[str, object]:
        query: dict[str, object] = {"type": self.kombilo_type, "sizeX": len(self.rows[0]),
                                    "sizeY": len(self.rows), "text": "".join(self.rows),
                                    "runs": runs}
        if self.to_move:
            query["next"] = {"b": 1, "w": 2}[self.to_move]
        if self.max_move is not None:
            query["limit"] = self.max_move
        return query


def _corner(*rows: str) -> tuple[str, ...]:
    """A 7x7 corner from its top rows; the rest empty."""
    return (*rows, *["......."] * (7 - len(rows)))


E7 = "......."
PATTERNS = (
    # Corners, 7x7 in the top-left corner.
    Shape("corner: 4-4 and the 3-3 invasion", "corner", (E7, E7, "..O....", "...X...", E7, E7,
                                                         E7)),
    Shape("corner: 4-4, low approach, x below", "corner",
          (E7, E7, ".....O.", "...X...", E7, "..x....", E7)),
    Shape("corner: 3-4 and 5-3, rest *", "corner",
          (".....**", ".....**", "...X.**", "....O**", ".....**", "*******", "*******")),
    Shape("corner: 4-4, knight's approach, W to play", "corner",
          (E7, E7, E7, "...X...", E7, "..O....", E7), to_move="w"),
    Shape("corner: 3-4, low approach by move 30", "corner",
          (E7, E7, "....O..", "..X....", E7, E7, E7), max_move=30),
    Shape("corner: 4-4 alone, rest o", "corner",
          ("ooooooo", "ooooooo", "ooooooo", "oooXooo", "ooooooo", "ooooooo", "ooooooo")),
    Shape("corner: 3-3 alone, 5x5 then *", "corner",
          (".....**", ".....**", "..X..**", ".....**", ".....**", "*******", "*******")),
    Shape("corner: 4-4, 3-3 and the hane", "corner",
          (E7, E7, "..OX...", "...X...", E7, E7, E7)),
    Shape("corner: 3-4 and the small knight enclosure", "corner",
          (E7, E7, "...X...", E7, "..X....", E7, E7)),
    Shape("corner: 4-4, games Black won", "corner", (E7, E7, "..O....", "...X...", E7, E7, E7),
          filters={"result": "B"}),
    Shape("corner: 4-4 and a two-space approach, x ring", "corner",
          ("xxxxxxx", "x.....x", "x......", "x..X...", "x......", "x......", "xO....x")),
    Shape("corner: 3-4, high approach, Black to play", "corner",
          (E7, E7, E7, "..X.O..", E7, E7, E7), to_move="b"),
    # Fully specified 7x7 corners.
    Shape("full: 4-4, 3-3 invasion, hane", "full", (E7, E7, "..OX...", "...X...", E7, E7, E7)),
    Shape("full: 3-4 and the small knight enclosure", "full",
          (E7, E7, "...X...", E7, "..X....", E7, E7)),
    Shape("full: 4-4, knight's approach, one-space jump", "full",
          (E7, E7, E7, "...X...", ".X.....", "..O....", E7)),
    Shape("full: 3-4 and the low approach", "full",
          (E7, E7, "....O..", "..X....", E7, E7, E7)),
    # Sides: 4 rows on the top side, sliding along it.
    Shape("side: two third-line stones", "side",
          (E7, E7, "..X.O..", E7)),
    Shape("side: a lone 3rd-line stone, first row *", "side", ("*****", ".....", "..X..", ".....")),
    Shape("side: two-space extension on the 3rd line", "side", (".......", ".......", ".X..X..",
                                                                 ".......")),
    Shape("side: 3rd-line stone capped on the 4th", "side", (".....", ".....", "..X..", "..O..",
                                                              ".....")),
    Shape("side: 4th-line stone and 3rd-line approach", "side", (".......", ".......", "....O..",
                                                                  "..X....", ".......")),
    Shape("side: 3rd-line stone, 2nd-line slide, *", "side", ("**.**", "*...*", "..X..", "O....",
                                                               "*...*")),
    Shape("side: hane on the 2nd line", "side", ("......", "..XO..", "..O...", "......")),
    Shape("side: 3rd-line pair, W to play", "side", (".......", ".......", "..XX...", "......."),
          to_move="w"),
    Shape("side: two third-line stones by move 40", "side", (E7, E7, "..X.O..", E7),
          max_move=40),
    Shape("side: 3rd and 4th line, x around", "side", ("xxxxx", "x...x", "x.X.x", "x.O.x")),
    Shape("side: a 3rd-line stone, games White won", "side", (".....", ".....", "..X..",
                                                               "....."), filters={"result": "W"}),
    Shape("side: monkey jump shape", "side", ("......", "..O...", "..O.X.", "...X..")),
    # Anywhere: local shapes off the edges, drawn in the centre.
    Shape("anywhere: crosscut", "anywhere", ("XO", "OX")),
    Shape("anywhere: empty triangle, o beside", "anywhere", ("XXo", "X.*")),
    Shape("anywhere: table shape", "anywhere", ("X.X", "...", "*X*")),
    Shape("anywhere: ponnuki", "anywhere", (".X.", "X.X", ".X.")),
    Shape("anywhere: bamboo joint", "anywhere", ("X.X", "X.X")),
    Shape("anywhere: tiger's mouth against a stone", "anywhere", ("X.X", ".XO")),
    Shape("anywhere: hane at the head of two", "anywhere", ("OX.", "OX.", ".XO")),
    Shape("anywhere: dango", "anywhere", ("XX", "XX")),
    Shape("anywhere: cut of a knight's move", "anywhere", ("XO.", "OX.", "...")),
    Shape("anywhere: one-point jump, *", "anywhere", ("*.*", "X.X", "*.*")),
    Shape("anywhere: crosscut, Black to play", "anywhere", ("XO", "OX"), to_move="b"),
    Shape("anywhere: crosscut by move 50", "anywhere", ("XO", "OX"), max_move=50),
    Shape("anywhere: crosscut, games Black won", "anywhere", ("XO", "OX"),
          filters={"result": "B"}),
)
"""The published set: at least 12 patterns of each kind (``corner``, ``side``,
``anywhere``) and some fully specified corners (``full``)."""


@dataclass
class Answer:
    seconds: list[float]
    cpu: list[float]
    hits: int
    files: list[str]


def search_kombilo(root: Path, db: Path, runs: int, scratch: Path,
                   patterns: tuple[Shape, ...] = PATTERNS) -> list[Answer]:
    asked, answers = scratch / "patterns.json", scratch / "pattern-answers.json"
    asked.write_text(json.dumps([p.kombilo_query(runs) for p in patterns]))
    run = kb.measure([sys.executable, str(kb.DRIVER), str(root), "patterns", str(db),
                      str(asked), str(answers)], kb.kombilo_env())
    if run.code != 0:
        raise SystemExit(f"Kombilo's pattern search failed:\n{run.stderr}")
    return [Answer(a["seconds"], a["cpu"], a["hits"], a["files"])
            for a in json.loads(answers.read_text())]


def search_gohash(db: Path, runs: int, patterns: tuple[Shape, ...] = PATTERNS,
                  *, verbose: bool = True, listed: bool = True) -> list[Answer]:
    """Each pattern searched with ``Index.pattern`` on the index ``db``: one untimed
    pass, then ``runs`` timed ones (wall and process CPU seconds); then, once
    every pattern is timed (and the process's memory printed: the searches'),
    all its matches untimed (hits, the real paths of the games hit), which
    holds every match's record at once.  Without ``listed``, not that: the
    hits are the first page's count of matches (one a position), the files
    none."""
    timed: list[tuple[list[float], list[float]]] = []
    totals: list[int] = []
    found = []
    with Index(db, read_only=True) as index:
        start, start_cpu = time.perf_counter(), time.process_time()
        index.pattern(patterns[0].diagram(), **patterns[0].options())
        if verbose:
            print(f"  gohash: the first search after opening the index (its games read, "
                  f"their pattern and answers files written if missing) "
                  f"{time.perf_counter() - start:.1f} s, "
                  f"CPU {time.process_time() - start_cpu:.1f} s", flush=True)
        for p in patterns:
            diagram, options = p.diagram(), p.options()
            index.pattern(diagram, **options)
            times, cpu = [], []
            for _ in range(runs):
                start, start_cpu = time.perf_counter(), time.process_time()
                result = index.pattern(diagram, **options)  # the first 100, as the CLI shows
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
            timed.append((times, cpu))
            totals.append(result.total)
            if verbose:
                print(f"  gohash: {p.name}: {result.placements} placements, "
                      f"{result.candidates:,} candidates of {result.searched:,} games, "
                      f"{statistics.median(times) * 1e3:.1f} ms", flush=True)
        if verbose:
            print(f"  gohash, the searches: {memory()}", flush=True)
        if not listed:
            return [Answer(times, cpu, total, [])
                    for (times, cpu), total in zip(timed, totals, strict=True)]
        for p, (times, cpu) in zip(patterns, timed, strict=True):
            # Untimed, as Kombilo's driver lists its games after its timed searches.
            result = index.pattern(p.diagram(), limit=None, **p.options())
            files = sorted({os.path.realpath(m.record.file) for m in result.matches})
            # Kombilo counts a hit per placement; gohash one per move, of them all.
            found.append(Answer(times, cpu, sum(m.placements for m in result.matches), files))
    return found


def memory() -> str:
    """This process's peak RSS, and its resident memory now: anonymous, and
    file pages (the pattern file mapped, which the OS cache holds)."""
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text()
                  .splitlines() if ":" in line)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (f"peak RSS {peak:,.0f} MB; now {status.get('RssAnon', '?').strip()} anonymous, "
            f"{status.get('RssFile', '?').strip()} file pages (the mapped pattern file: OS "
            f"cache)")


def game_files(folder: Path, scratch: Path, limit: int | None) -> list[Path]:
    """The SGF files of ``folder`` and of its tar archives (unpacked under
    ``scratch`` in order, until there are ``limit``), in sorted order."""
    files = sorted(folder.rglob("*.sgf"))
    for n, archive in enumerate(sorted(folder.glob("*.tar*"))):
        if limit is not None and len(files) >= limit:
            break
        with tarfile.open(archive) as tar:
            tar.extractall(scratch / str(n), filter="data")
        files.extend(sorted((scratch / str(n)).rglob("*.sgf")))
    return files


def link_files(files: list[Path], folder: Path) -> None:
    """A folder of links to ``files``, each under a name of its own."""
    folder.mkdir(parents=True)
    for n, path in enumerate(files):
        sub = folder / f"{n // 10_000:03d}"
        sub.mkdir(exist_ok=True)
        (sub / f"{n % 10_000:04d}-{path.name}").symlink_to(path)


def run(root: Path, files: list[Path], runs: int, scratch: Path,
        patterns: tuple[Shape, ...]) -> None:
    inputs = scratch / f"input-{len(files)}"
    link_files(files, inputs)
    kombilo = kb.build_kombilo(root, inputs, scratch / f"kombilo-{len(files)}")
    gohash = kb.build_gohash(inputs, scratch / f"gohash-{len(files)}")
    print(f"builds: Kombilo {kombilo.games:,} games {kombilo.run.wall:.1f} s, gohash "
          f"{gohash.games:,} games {gohash.run.wall:.1f} s; load average {kb.load()}")
    theirs = search_kombilo(root, scratch / f"kombilo-{len(files)}" / "kombilo.db", runs,
                            scratch, patterns)
    db = scratch / f"gohash-{len(files)}" / "gohash.db"
    ours = search_gohash(db, runs, patterns)
    pattern_file = Path(pattern_path(str(db), SIZE))
    segments, _ = PatternFile(str(pattern_file), SIZE).read()
    postings = sum(s.corners.keys.nbytes + s.corners.entries.nbytes for s in segments)
    print(f"gohash, after listing every match: {memory()}; pattern file "
          f"{pattern_file.stat().st_size / 2**20:,.0f} MB "
          f"({pattern_file.stat().st_size / gohash.games:,.0f} bytes a game, of which the "
          f"corner postings {postings / gohash.games:,.0f})")
    print(f"load average after: {kb.load()}")
    print()
    print(f"{len(files):,} games")
    print(f"{'pattern':<52}{'Kombilo p50':>13}{'gohash p50':>12}{'ratio':>8}"
          f"{'CPU K/g ms':>16}{'ratio':>7}{'games K/g':>15}  same games")
    print("(p50 of wall times, then of CPU times (gohash's: both threads), which a busy "
          "machine inflates less; ratio gohash/Kombilo; * Kombilo searched all games)")
    agree = comparable = 0
    by_kind: dict[str, list[float]] = {}
    for p, k, g in zip(patterns, theirs, ours, strict=True):
        kp50, gp50 = statistics.median(k.seconds), statistics.median(g.seconds)
        kcpu, gcpu = statistics.median(k.cpu), statistics.median(g.cpu)
        by_kind.setdefault(p.kind, []).append(gp50)
        # Kombilo's nextMove is the colour of the next move in the region, not
        # the side to move: the games differ by design.
        asks_the_same = not p.filters and not p.to_move
        same = "yes" if k.files == g.files else "NO" if asks_the_same else "n/a"
        if asks_the_same:
            comparable += 1
            agree += same == "yes"
        mark = "*" if p.filters else " "
        print(f"{p.name:<52}{kp50 * 1e3:>10.1f} ms{gp50 * 1e3:>9.1f} ms{gp50 / kp50:>7.2f}x"
              f"{mark}{kcpu * 1e3:>8.1f}/{gcpu * 1e3:<7.1f}{gcpu / max(kcpu, 1e-6):>6.2f}x"
              f"{len(k.files):>7}/{len(g.files):<7}  {same}")
    for p, k, g in zip(patterns, theirs, ours, strict=True):
        if p.filters or p.to_move:
            continue
        for side, paths in (("Kombilo", set(k.files) - set(g.files)),
                            ("gohash", set(g.files) - set(k.files))):
            for path in sorted(paths)[:SHOWN]:
                print(f"  {p.name}: only {side}: {path}")
            if len(paths) > SHOWN:
                print(f"  {p.name}: and {len(paths) - SHOWN} more only {side}")
    print(f"the same games for {agree}/{comparable} patterns (those without a filter or "
          f"a side to move)")
    for kind, times in by_kind.items():
        p50 = statistics.median(times)
        print(f"{kind}: p50 over {len(times)} patterns {p50 * 1e3:.1f} ms wall, "
              f"{p50 * 1e6 / len(files):.2f} us a game")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=Path, help="a folder of SGF files or tar archives "
                        "(default: the corpus's kgs-6d and ai-games)")
    parser.add_argument("--limit", default="", help="games (files) to use, or several "
                        "comma-separated, each a run (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="timed searches per pattern")
    parser.add_argument("--seed", type=int, default=2026, help="of the corpus's game order")
    parser.add_argument("--kinds", default="corner,full,side,anywhere",
                        help="the kinds of patterns to search, comma-separated")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    patterns = tuple(p for p in PATTERNS if p.kind in kinds)
    if args.games is None and not all((kb.CORPUS / f).is_dir() for f in kb.FOLDERS):
        print(f"corpus not found at {kb.CORPUS}: nothing to measure")
        return 0
    if args.games is not None and not args.games.is_dir():
        print(f"{args.games} is not a folder: nothing to measure")
        return 0
    root, how = kb.install_kombilo(kb.cache_folder())
    if root is None:
        print(f"skipped: {how}")
        return 0
    print(how)
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        limits = [int(n) for n in args.limit.split(",") if n]
        if args.games is not None:
            files = game_files(args.games, scratch / "unpacked", max(limits, default=None))
            where = str(args.games)
        else:
            files = sorted(p for f in kb.FOLDERS for p in (kb.CORPUS / f).rglob("*.sgf"))
            random.Random(args.seed).shuffle(files)
            where = f"{', '.join(kb.FOLDERS)} under {kb.CORPUS} (seed {args.seed})"
        limits = limits or [len(files)]
        print(f"games: {where}, {len(files):,} files; runs of {', '.join(map(str, limits))}; "
              f"cores: {os.cpu_count()}, shared; load average before: {kb.load()}")
        for limit in limits:
            run(root, files[:limit], args.runs, scratch, patterns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
