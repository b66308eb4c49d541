"""The notebooks run from a clean kernel, and are stored with the outputs of such a run.

``notebooks/exploration.ipynb`` (how the hash behaves) and ``notebooks/games.ipynb``
(real games: Parquet, DuckDB, pandas and the index) are stored executed, so
that the repository shows them; ``python -m tests.test_notebook`` executes both
again and stores them.  The tests execute each with nbclient and fail on the
first error.  The kernel is the interpreter running the tests: a ``python3``
kernel spec for ``sys.executable`` is written to a temporary folder put first
on ``JUPYTER_PATH``, so the tests work in a fresh venv and never pick up a
system-wide ``python3`` kernel without gohash.

Every figure is a code cell tagged ``figure:NAME``: it must draw a picture, in
the stored notebook and in the run, and the data behind it is read back from
the kernel (a probe cell the tests append) and checked; where the notebook
derives something from the games, an independent reference (sgfmill's board,
numpy's rotations) decides it again.  Without ``../shared/corpus`` both
notebooks run on ``data/sgf`` and say so; the corpus figures are tests of
their own, marked ``corpus``.  ``games.ipynb`` also runs on a folder named by
``GOHASH_GAMES``: on ``data/sgf`` and on a generated collection of another shape
(six groups, Fox-style komi and ranks, three board sizes), every figure drawn.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest
from ipykernel.kernelspec import write_kernel_spec
from nbclient import NotebookClient
from sgfmill import boards, sgf

from tests.support.env import CORPUS, ROOT

NOTEBOOKS = ROOT / "notebooks"
EXPLORATION = NOTEBOOKS / "exploration.ipynb"
GAMES = NOTEBOOKS / "games.ipynb"
MAX_BYTES = 2_000_000

EXPLORATION_FIGURES = ["free-bits", "images", "e3", "e4", "by-move", "merges"]
GAMES_FIGURES = ["frequent", "era", "first-move", "tree", "search", "pattern"]

EXPLORATION_PROBE = """
import json
print(json.dumps({
    "bits": bits.tolist(),
    "board": position.to_array().tolist(),
    "key": ks.hex(key),
    "images": sorted(ks.hex(ks.transform(h, g)) for g in ELEMENTS),
    "e3": [nine.tolist(), five.tolist()],
    "e3_hashes": {name: [scheme(name, 19).hash_array(nine), scheme(name, 19).hash_array(five)]
                  for name in ("huima64", "regular128")},
    "e4": [first.tolist(), second.tolist()],
    "by_move": {s.size: [list(map(int, m)) for m in s.by_move] for s in result.sizes},
    "merges": [[b.tolist() for b in e.boards] for e in examples[:6]],
}))
"""

GAMES_PROBE = """
import json
def _tree(t):
    return [{"move": n.label, "games": n.games, "black": n.black, "children": _tree(n.children)}
            for n in t]
print(json.dumps({
    "frequent": {str(m): {
        "games": top[m].games.tolist(), "pairs": top[m].pairs.tolist(), "ai": top[m].ai.tolist(),
        "reached": int(reached[m]),
        "stones": [int(np.count_nonzero(b)) for b in unpack(list(top[m].position), SIZE)]
                  if len(top[m]) else []} for m in MOVES},
    "era": era.to_dict("records"),
    "per_game": per_game[["file", "game", "invasion", "approach", "period"]].to_dict("records"),
    "first": first[["file", "game", "opening", "winner"]].to_dict("records"),
    "first_moves": first_moves.to_dict("records"),
    "dupes": [[[g["file"], g["game"]] for g in r.games] for r in dupes.itertuples()],
    "tree": _tree(tree),
    "search": {"found": hits.total, "total": next_moves.total, "ended": next_moves.ended,
               "counts": [m.count for m in next_moves.moves], "letters": len(letters),
               "points": sum(m.point is not None for m in next_moves.moves),
               "stones": int(np.count_nonzero(query_array))},
    "top": TOP, "by_month": sorted(BY_MONTH),
    "pattern": {
        "diagram": DIAGRAM, "total": pattern.total, "games": pattern.games, "ended": pattern.ended,
        "placements": pattern.placements, "drawn": pattern_array.tolist(),
        "continuations": [[c.colour, *c.point, c.count, c.tenuki, c.black_wins, c.white_wins]
                          for c in pattern.continuations],
        "letters": [[*point, text] for point, text in labels.items()],
        "hits": [{"file": m.record.file, "game": m.record.game, "move": m.move_number,
                  "element": m.element.name, "placements": m.placements, "tenuki": m.tenuki,
                  "next": None if m.continuation is None else [m.continuation[0],
                                                               *m.continuation[1]],
                  "winner": m.record.winner, "date": m.record.date,
                  "stones": [[int(pattern_array[q]),
                              *np.add(m.element.map_point(q, pattern.pattern.size), m.offset)]
                             for q in map(tuple, np.argwhere(pattern_array).tolist())]}
                 for m in pattern.matches],
        "left": left.to_dict("records")},
}, default=int))
"""


def execute(path: Path, probe: str | None = None, timeout: int = 600) -> nbformat.NotebookNode:
    """``path`` executed from a clean kernel, with ``probe`` run after its last cell;
    its outputs in place (the probe's cell removed: :func:`probed` holds its output)."""
    nb = nbformat.read(path, as_version=4)
    if probe is not None:
        nb.cells.append(nbformat.v4.new_code_cell(probe))
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    if probe is not None:
        nb.metadata["probe"] = json.loads(text(nb.cells.pop().outputs))
    return nb


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pytest.MonkeyPatch]:
    """The environment of a run: this interpreter's kernel, inline figures."""
    kernels = tmp_path_factory.mktemp("jupyter")
    write_kernel_spec(kernels / "kernels" / "python3")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("JUPYTER_PATH", str(kernels))
        # Inline figures, also where a non-interactive backend is set for the test run.
        monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        yield monkeypatch


@pytest.fixture(scope="module")
def exploration(kernel: pytest.MonkeyPatch) -> nbformat.NotebookNode:
    return execute(EXPLORATION, EXPLORATION_PROBE)


@pytest.fixture(scope="module")
def games(kernel: pytest.MonkeyPatch) -> nbformat.NotebookNode:
    """games.ipynb run on the corpus (on data/sgf without it)."""
    return execute(GAMES, GAMES_PROBE)


def outputs(nb: nbformat.NotebookNode) -> list[dict[str, Any]]:
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]


def text(outs: list[dict[str, Any]]) -> str:
    return "".join(o.get("text", "") for o in outs)


def pictures(outs: list[dict[str, Any]]) -> int:
    return sum("image/png" in o.get("data", {}) for o in outs)


def figure_cells(nb: nbformat.NotebookNode) -> dict[str, Any]:
    return {tag.removeprefix("figure:"): cell for cell in nb.cells
            for tag in cell.metadata.get("tags", []) if tag.startswith("figure:")}


def shown(nb: nbformat.NotebookNode) -> list[str]:
    """What the code cells printed and showed as text, cell by cell."""
    return ["".join(o.get("text", "") + "".join(o.get("data", {}).get("text/markdown", ""))
                    for o in cell.outputs)
            for cell in nb.cells if cell.cell_type == "code"]


# -- the stored notebooks ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "figures"),
    [(EXPLORATION, EXPLORATION_FIGURES), (GAMES, GAMES_FIGURES)],
    ids=["exploration", "games"],
)
def test_notebook_is_stored_with_its_outputs(path: Path, figures: list[str]) -> None:
    assert path.stat().st_size < MAX_BYTES
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    # One run from a clean kernel, in order, without errors.
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1))
    assert not [o for cell in code for o in cell.outputs if o.output_type == "error"]
    cells = figure_cells(nb)
    assert sorted(cells) == sorted(figures)
    for name, cell in cells.items():
        assert pictures(cell.outputs), f"the stored figure {name} has no picture"
    assert "corpus not found" not in text(outputs(nb)), "stored from a run without the corpus"


# -- exploration.ipynb -------------------------------------------------------------------------


def images(board: np.ndarray) -> list[np.ndarray]:
    """The 16 images of a position under rotations, reflections and colour exchange,
    by numpy alone."""
    turned = [np.rot90(b, k) for b in (board, np.fliplr(board)) for k in range(4)]
    return turned + [np.where(b == 0, 0, 3 - b) for b in turned]


def same_up_to_symmetry(first: np.ndarray, second: np.ndarray) -> bool:
    return any(np.array_equal(image, second) for image in images(first))


def test_exploration_executes_and_draws_every_figure(exploration: nbformat.NotebookNode) -> None:
    for name, cell in figure_cells(exploration).items():
        if name != "merges" or CORPUS.is_dir():
            assert pictures(cell.outputs), f"the figure {name} is not drawn"
    assert "all 16 hashes from the hash alone agree with re-hashing" in text(outputs(exploration))
    if not CORPUS.is_dir():
        assert (f"corpus not found at {CORPUS}: the corpus figures are skipped"
                in text(outputs(exploration)))


def test_exploration_figure_data(exploration: nbformat.NotebookNode) -> None:
    data = exploration.metadata["probe"]
    # free-bits: the paper's 16 bits at tengen, 32 on the axes, 48 on the diagonals.
    bits = np.array(data["bits"])
    assert dict(zip(*np.unique(bits, return_counts=True), strict=True)) == {
        16: 1, 32: 36, 48: 36, 64: 288}
    assert bits[9, 9] == 16 and bits[9, 0] == 32 and bits[0, 0] == 48 and bits[0, 1] == 64
    # images: the canonical key is the least of the 16 hashes computed from one.
    assert len(data["images"]) == 16 and data["key"] == data["images"][0]
    assert np.count_nonzero(data["board"]) == 6
    # e3: 9 and 5 handicap stones, one hash under huima64, two under regular128.
    nine, five = map(np.array, data["e3"])
    assert (nine == 1).sum() == 9 and (five == 1).sum() == 5 and not (nine == 2).any()
    assert len(set(data["e3_hashes"]["huima64"])) == 1
    assert len(set(data["e3_hashes"]["regular128"])) == 2
    # e4: two four-stone openings that are not images of each other.
    first, second = map(np.array, data["e4"])
    assert np.count_nonzero(first) == np.count_nonzero(second) == 4
    assert not same_up_to_symmetry(first, second)
    # by-move: distinct positions never outnumber positions.
    for by_move in data["by_move"].values():
        for _, positions, distinct in by_move:
            assert 1 <= distinct <= positions
    # merges: each pair shares a key but is not one position up to symmetry.
    for pair in data["merges"]:
        first, second = map(np.array, pair)
        assert not same_up_to_symmetry(first, second)


@pytest.mark.corpus
def test_exploration_draws_the_corpus_figures(exploration: nbformat.NotebookNode) -> None:
    assert pictures(figure_cells(exploration)["merges"].outputs)
    assert exploration.metadata["probe"]["merges"]
    assert "corpus not found" not in text(outputs(exploration))


# -- games.ipynb -------------------------------------------------------------------------------

OPENINGS = {(4, 4): "4-4 (hoshi)", (3, 4): "3-4 (komoku)", (3, 3): "3-3 (san-san)",
            (3, 5): "3-5 (mokuhazushi)", (4, 5): "4-5 (takamoku)", (10, 10): "tengen"}


def opening_reference(path: str) -> tuple[bool, bool, str, str | None]:
    """Replay the first 20 moves of the record at ``path`` with sgfmill's board:
    whether a 3-3 invasion and a 4-4 approach come in them (the notebook's
    definitions, decided point by point), Black's first move's opening, and the
    winner from ``RE``."""
    game = sgf.Sgf_game.from_bytes((ROOT / path).read_bytes(), override_encoding="latin-1")
    size = game.get_size()
    assert size == 19
    board = boards.Board(size)
    invasion = approach = False
    opening = "other"
    number = 0
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if colour is None:
            continue
        number += 1
        if number > 20:
            break
        if point is None:
            continue
        row, col = point
        lines = sorted((min(row, size - 1 - row) + 1, min(col, size - 1 - col) + 1))
        if number == 1 and colour == "b":
            opening = OPENINGS.get((lines[0], lines[1]), "other")
        if lines[1] <= 7:
            rows = range(7) if row < size // 2 else range(size - 1, size - 8, -1)
            cols = range(7) if col < size // 2 else range(size - 1, size - 8, -1)
            stones = [(i + 1, j + 1, board.get(r, c)) for i, r in enumerate(rows)
                      for j, c in enumerate(cols) if board.get(r, c)]
            lone = stones == [(4, 4, "w" if colour == "b" else "b")]
            invasion |= lone and lines == [3, 3]
            approach |= lone and lines in ([3, 6], [4, 6])
        board.play(row, col, colour)
    # A bare "B" or "W" names a winner too (the dataset's winner, as the index reads it).
    result = game.get_root().get("RE").strip().upper() if game.get_root().has_property(
        "RE") else ""
    winner = result[0] if result in ("B", "W") or result[:2] in ("B+", "W+") else None
    return invasion, approach, opening, winner


def test_games_executes_and_draws_every_figure(games: nbformat.NotebookNode) -> None:
    said = text(outputs(games))
    if not CORPUS.is_dir():
        assert f"corpus not found at {CORPUS}: this run reads data/sgf" in said
    cells = figure_cells(games)
    assert sorted(cells) == sorted(GAMES_FIGURES)
    for name in ("frequent", "search", "pattern") if not CORPUS.is_dir() else GAMES_FIGURES:
        assert pictures(cells[name].outputs), f"the figure {name} is not drawn"


def run_on(kernel: pytest.MonkeyPatch, folder: Path) -> nbformat.NotebookNode:
    """games.ipynb run on ``folder`` (``GOHASH_GAMES``), every figure drawn."""
    kernel.setenv("GOHASH_GAMES", str(folder))
    try:
        nb = execute(GAMES, GAMES_PROBE)
    finally:
        kernel.delenv("GOHASH_GAMES")
    assert f"games: {folder.resolve()}" in text(outputs(nb))
    for name, cell in figure_cells(nb).items():
        assert pictures(cell.outputs), f"the figure {name} is not drawn"
    return nb


def test_games_runs_on_a_folder_named_by_its_parameter(kernel: pytest.MonkeyPatch) -> None:
    nb = run_on(kernel, ROOT / "data" / "sgf")
    said = text(outputs(nb))
    assert "$ gohash canon data/sgf --format parquet --position -o $WORK/canon" in said
    assert nb.metadata["probe"]["frequent"]["10"]["games"]
    assert len(nb.metadata["probe"]["top"]) == 3  # of data/sgf's many folders


# A point of a corner's region as (line, line) from its edges, on the top right corner.
def _top_right(a: int, b: int) -> str:
    return "abcdefghijklmnopqrs"[19 - a] + "abcdefghijklmnopqrs"[b - 1]


# Openings that hold the notebook's events: the low approach to a lone 4-4 stone (the
# pattern), a 3-3 invasion under it, and plain 4-4 and 3-4 starts.
_OPENINGS = [
    [_top_right(4, 4), _top_right(3, 6)],
    [_top_right(4, 4), "dd", "pp", _top_right(3, 3)],
    [_top_right(4, 4), "dp", _top_right(4, 3)],
    [_top_right(3, 4), "dd"],
    ["dd", "pd"],
]
_GROUPS = {"P9段": 120, "9段": 80, "8段": 50, "5k": 20, "2d": 15, "misc": 5}
_RANKS = ["P9段", "9段", "P5段", "3k", "2d?", "1p", "7級", ""]
_KOMI = ["KM[375]", "KM[0]", "", "KM[6.5]", "KM[750]"]
_RESULTS = [("B+R", "B"), ("W+Resign", "W"), ("B+12.5", "B"), ("W+T", "W"), ("0", None),
            ("B+", "B"), ("", None)]


def write_collection(folder: Path, seed: int = 32) -> list[dict[str, Any]]:
    """A collection of another shape than the corpus, one SGF file a game: six top folders
    of unequal sizes (the notebook compares the three largest), mostly 19x19 with 13x13
    and 9x9 games among them, komi as servers write it (``KM[375]``, ``KM[0]``, none),
    Fox, Tygem and KGS ranks, results in several spellings, dates over ten years, a few
    handicap games; every move legal on sgfmill's board.  Returns each game's
    description: group, size, komi, winner, handicap, moves."""
    rng = random.Random(seed)
    games = []
    for group, count in _GROUPS.items():
        (folder / group).mkdir()
        for i in range(count):
            size = rng.choices([19, 13, 9], [8, 1, 1])[0]
            handicap = size == 19 and rng.random() < 0.05
            board = boards.Board(size)
            nodes = []
            colour = "w" if handicap else "b"
            if handicap:
                board.apply_setup(((3, 3), (15, 15)), (), ())
            script = rng.choice(_OPENINGS) if size == 19 and not handicap else []
            ko = None  # the point a simple ko forbids (sgfmill's board allows it)
            for number in range(rng.randint(25, 70)):
                if number < len(script):
                    col, row = ord(script[number][0]) - 97, size - 1 - (ord(script[number][1]) - 97)
                    candidates = [(row, col)]
                else:
                    near = [rng.choice([rng.randint(0, 5), rng.randint(size - 6, size - 1),
                                        rng.randint(0, size - 1)]) for _ in range(2)]
                    candidates = [tuple(near), *((rng.randrange(size), rng.randrange(size))
                                                 for _ in range(20))]
                for row, col in candidates:
                    if board.get(row, col) is not None or (row, col) == ko:
                        continue
                    trial = board.copy()
                    taken = trial.play(row, col, colour)
                    if trial.get(row, col) is None:
                        continue  # a suicide
                    board, ko = trial, taken
                    break
                else:
                    break
                nodes.append(f";{colour.upper()}[{chr(97 + col)}{chr(97 + size - 1 - row)}]")
                colour = "w" if colour == "b" else "b"
            result, winner = rng.choice(_RESULTS)
            komi = rng.choice(_KOMI)
            year = rng.randint(2010, 2020)
            root = (f"GM[1]FF[4]CA[UTF-8]SZ[{size}]PB[p{rng.randint(1, 30)}]"
                    f"PW[p{rng.randint(1, 30)}]BR[{rng.choice(_RANKS)}]WR[{rng.choice(_RANKS)}]"
                    f"DT[{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}]{komi}"
                    + (f"RE[{result}]" if result else "")
                    + ("HA[2]AB[dd][pp]" if handicap else ""))
            (folder / group / f"{i:03d}.sgf").write_text(f"(;{root}{''.join(nodes)})",
                                                        encoding="utf-8")
            games.append({"group": group, "size": size, "komi": komi, "winner": winner,
                          "handicap": handicap, "moves": len(nodes)})
    return games


def test_games_runs_on_a_collection_of_another_shape(
    kernel: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    games = write_collection(tmp_path)
    nb = run_on(kernel, tmp_path)
    data = nb.metadata["probe"]
    # The three largest groups, each by year (their dates span ten years).
    assert data["top"] == ["P9段", "9段", "8段"] and data["by_month"] == []
    assert {r["source"] for r in data["era"]} == set(data["top"])
    assert {r["period"] for r in data["era"]} <= {str(y) for y in range(2010, 2021)}
    # Every even 19x19 game of 20 moves with a winner, in those groups, whatever its komi.
    counted = [g for g in games if g["group"] in data["top"] and g["size"] == 19
               and not g["handicap"] and g["moves"] >= 20 and g["winner"]]
    assert len(data["first"]) == len(counted)
    assert {g["komi"] for g in counted} == set(_KOMI)
    assert data["first_moves"] and all(r["games"] >= 20 for r in data["first_moves"])
    # Something to show in every figure.
    assert all(data["frequent"][m]["games"] for m in ("10", "20"))
    assert data["tree"] and data["search"]["total"] > 0
    assert data["pattern"]["total"] >= sum(g["size"] == 19 for g in games) // 10


@pytest.mark.corpus
def test_games_outputs_are_those_stored(games: nbformat.NotebookNode) -> None:
    # The stored notebook is a run of the notebook as it is, on the corpus.
    assert shown(games) == shown(nbformat.read(GAMES, as_version=4))


@pytest.mark.corpus
def test_games_frequent_positions(games: nbformat.NotebookNode) -> None:
    for move, data in games.metadata["probe"]["frequent"].items():
        counts = data["games"]
        assert len(counts) == 4 and counts == sorted(counts, reverse=True) and counts[-1] >= 2
        assert all(p <= g and a <= g for p, g, a in zip(data["pairs"], counts, data["ai"],
                                                         strict=True))
        assert counts[0] <= data["reached"]
        # Stones: at most one per move, plus handicap stones.
        assert all(0 < s <= int(move) + 9 for s in data["stones"])


@pytest.mark.corpus
def test_games_era_against_sgfmill(games: nbformat.NotebookNode) -> None:
    data = games.metadata["probe"]
    per_game = data["per_game"]
    era = {(r["source"], r["period"]): r for r in data["era"]}
    assert sum(r["games"] for r in era.values()) == len(per_game) > 7000
    assert all(0 <= r["invasion"] <= 100 and 0 <= r["approach"] <= 100 for r in era.values())
    # The AI era's mark: the early 3-3 invasion, rare in 2016, common in 2018.
    assert era[("AI", "2016")]["invasion"] < 5 < 30 < era[("AI", "2018")]["invasion"]
    # Each game with an event and every 10th other, decided again by sgfmill.
    sample = [g for i, g in enumerate(per_game)
              if g["invasion"] or (g["approach"] and i % 5 == 0) or i % 10 == 0]
    assert len(sample) > 1000
    for g in sample:
        assert g["game"] == 0
        invasion, approach, _, _ = opening_reference(g["file"])
        assert (g["invasion"], g["approach"]) == (invasion, approach), g["file"]


@pytest.mark.corpus
def test_games_first_moves_against_sgfmill(games: nbformat.NotebookNode) -> None:
    data = games.metadata["probe"]
    first = data["first"]
    for g in first[::10]:
        _, _, opening, winner = opening_reference(g["file"])
        assert (g["opening"], g["winner"]) == (opening, winner), g["file"]
    counted: dict[tuple[str, str], list[int]] = {}
    for row in data["first_moves"]:
        assert row["games"] >= 20 and 0 <= row["low"] <= row["black_rate"] <= row["high"] <= 100
        counted[row["source"], row["opening"]] = [row["games"], row["black_wins"]]
    assert ("AI", "4-4 (hoshi)") in counted and ("KGS 6d+", "3-4 (komoku)") in counted
    by_opening: dict[str, list[int]] = {}
    for g in first:
        tally = by_opening.setdefault(g["opening"], [0, 0])
        tally[0] += 1
        tally[1] += g["winner"] == "B"
    for (_, opening), (n, wins) in counted.items():
        assert n <= by_opening[opening][0] and wins <= by_opening[opening][1]


@pytest.mark.corpus
def test_games_dupes_tree_and_search(games: nbformat.NotebookNode) -> None:
    data = games.metadata["probe"]
    groups = data["dupes"]
    assert groups and all(len(group) >= 2 for group in groups)
    assert len({tuple(r) for group in groups for r in group}) == sum(map(len, groups))
    # The tree: three moves deep, three most played moves at each node.
    level = data["tree"]
    for depth in range(3):
        assert len(level) == 3 ** (depth + 1)
        assert all(0 <= node["black"] <= 100 and node["games"] > 0 for node in level)
        for siblings in ([level[i:i + 3] for i in range(0, len(level), 3)]):
            counts = [node["games"] for node in siblings]
            assert counts == sorted(counts, reverse=True)
        level = [child for node in level for child in node["children"]]
    assert not level
    search = data["search"]
    assert search["stones"] == 4 and 0 < search["total"] <= search["found"]
    assert sum(search["counts"]) + search["ended"] == search["total"]
    assert search["letters"] == min(8, search["points"])


Image = tuple[np.ndarray, np.ndarray, bool]
"""One way a corner pattern may lie on the board: what each point must hold (0
empty, 1 black, 2 white, -1 outside), the query point (flat) each board point
shows, and whether colours are exchanged."""


def pattern_images(diagram: str) -> list[Image]:
    """The 16 images of a diagram of ``X``, ``O``, ``.`` and ``-`` whose region
    touches two edges (so that it never slides), by numpy's rotations alone."""
    lines = diagram.split()
    n = len(lines)
    want = np.array([[{"X": 1, "O": 2, ".": 0, "-": -1}[ch] for ch in line]
                     for line in reversed(lines)])
    flat = np.arange(n * n).reshape(n, n)
    images = []
    for flip in (False, True):
        for k in range(4):
            turned, where = (np.rot90(np.fliplr(a) if flip else a, k) for a in (want, flat))
            images.append((turned, where, False))
            images.append((np.where(turned > 0, 3 - turned, turned), where, True))
    return images


def pattern_reference(path: str, images: list[Image]) -> tuple[
        str | None, dict[int, list[tuple[int, bool, list[Any] | None]]]]:
    """Replay the record at ``path`` with sgfmill's board: the winner (``RE``) and,
    by move number, the images that hit there (the first position where the
    image's points hold what it asks, with its Black to move), each with its
    tenuki flag and next move in its region (colour, row, column in the query's
    orientation and colours; None: none)."""
    game = sgf.Sgf_game.from_bytes((ROOT / path).read_bytes(), override_encoding="latin-1")
    size = game.get_size()
    board = boards.Board(size)
    codes = {None: 0, "b": 1, "w": 2}
    root, *nodes = game.get_main_sequence()
    board.apply_setup(*root.get_setup_stones())
    positions = [np.array([[codes[v] for v in row] for row in board.board])]
    to_move = [root.get("PL").lower() if root.has_property("PL") else "b"]
    moves: list[tuple[str, tuple[int, int] | None]] = []
    for node in nodes:
        assert not node.has_setup_stones(), f"{path}: setup stones after the start"
        colour, point = node.get_move()
        if colour is None:
            continue
        try:
            if point is not None:
                board.play(*point, colour)
        except ValueError:
            break  # an illegal move ends the game, as in the index
        moves.append((colour, point))
        positions.append(np.array([[codes[v] for v in row] for row in board.board]))
        to_move.append("w" if colour == "b" else "b")
    hits: dict[int, list[tuple[int, bool, list[Any] | None]]] = {}
    for k, (want, where, swap) in enumerate(images):
        inside = want >= 0
        owner = "w" if swap else "b"
        for i, position in enumerate(positions):
            if to_move[i] == owner and (position[inside] == want[inside]).all():
                following: list[Any] | None = None
                tenuki = False
                for j in range(i, len(moves)):
                    colour, point = moves[j]
                    if point is not None and inside[point]:
                        mine = {"b": "w", "w": "b"}[colour] if swap else colour
                        following = [mine, *divmod(int(where[point]), size)]
                        break
                    tenuki = True
                hits.setdefault(i, []).append((k, tenuki and following is not None, following))
                break
    # A bare "B" or "W" names a winner too.
    result = root.get("RE").strip().upper() if root.has_property("RE") else ""
    return (result[0] if result in ("B", "W") or result[:2] in ("B+", "W+") else None), hits


@pytest.mark.corpus
def test_games_pattern_against_sgfmill(games: nbformat.NotebookNode) -> None:
    data = games.metadata["probe"]["pattern"]
    images = pattern_images(data["diagram"])
    # The board drawn is the diagram's stones: a black 4-4 stone, a white low approach.
    drawn = np.array(data["drawn"])
    assert np.array_equal(drawn, np.where(images[0][0] > 0, images[0][0], 0))
    assert sorted(map(tuple, np.argwhere(drawn).tolist())) == [(13, 16), (15, 15)]
    assert data["placements"] == 16 and len({(w.tobytes()) for w, _, _ in images}) == 16
    hits = data["hits"]
    assert len(hits) == data["total"] > 1000 and data["games"] == len({h["file"] for h in hits})
    # The continuations sum the hits up (the pattern has no symmetry of its own).
    tally: dict[tuple[Any, ...], list[int]] = {}
    for h in hits:
        if h["next"] is not None:
            flipped = h["element"].endswith("swap")
            won = h["winner"] and ("B" if (h["winner"] == "B") != flipped else "W")
            counts = tally.setdefault(tuple(h["next"]), [0, 0, 0, 0])
            for i, add in enumerate([1, h["tenuki"], won == "B", won == "W"]):
                counts[i] += add
    assert {tuple(c[:3]): c[3:] for c in data["continuations"]} == tally
    assert sum(c[3] for c in data["continuations"]) + data["ended"] == data["total"]
    counts = [c[3] for c in data["continuations"]]
    assert counts == sorted(counts, reverse=True)
    # The letters: the ten most played, a first, on their points.
    letters = {(r, c): text for r, c, text in data["letters"]}
    for letter, (_, r, c, *_) in zip("abcdefghij", data["continuations"], strict=False):
        assert letter in letters[r, c].split("/")
    assert sum(len(t.split("/")) for t in letters.values()) == min(10, len(counts))
    # Every 20th record of the corpus replayed by sgfmill: the same hits, the same
    # stones where the notebook says the pattern lay, the same next moves.
    files = sorted(os.path.relpath(p, ROOT) for source in ("kgs-6d", "ai-games")
                   for p in (CORPUS / source).rglob("*.sgf"))
    by_file: dict[str, list[dict[str, Any]]] = {}
    for h in hits:
        by_file.setdefault(h["file"], []).append(h)
    checked = 0
    for path in files[::20]:
        winner, expected = pattern_reference(path, images)
        found = by_file.get(path, [])
        assert [h["move"] for h in found] == sorted(expected), path
        for h in found:
            assert h["game"] == 0 and h["winner"] == winner, path
            board_hits = expected[h["move"]]
            assert h["placements"] == len(board_hits)
            # The reported element puts the diagram's stones on the image that hit.
            swap = h["element"].endswith("swap")
            lying = [k for k, _, _ in board_hits
                     if images[k][2] == swap and all(images[k][0][r, c] == (3 - v if swap else v)
                                                     for v, r, c in h["stones"])]
            assert len(lying) == 1, (path, h)
            _, tenuki, following = board_hits[[k for k, _, _ in board_hits].index(lying[0])]
            assert (h["tenuki"], h["next"]) == (tenuki, following), (path, h)
            checked += 1
    assert checked > 100
    # The observation: the share of hits not answered at once, by source and year.
    rows: dict[tuple[str, str], list[int]] = {}
    for h in hits:
        if h["date"]:
            source = "AI" if "ai-games/" in h["file"] else "KGS 6d+"
            row = rows.setdefault((source, h["date"][:4]), [0, 0])
            row[0] += 1
            row[1] += h["next"] is not None and h["next"][0] == "b" and not h["tenuki"]
    assert {(r["source"], r["year"]): [r["hits"], r["answered"]] for r in data["left"]} == {
        key: row for key, row in rows.items() if row[0] >= 50}


if __name__ == "__main__":
    # Store both notebooks executed (with the corpus beside the checkout).
    with tempfile.TemporaryDirectory() as kernels:
        write_kernel_spec(Path(kernels) / "kernels" / "python3")
        os.environ["JUPYTER_PATH"] = kernels
        os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
        for path in (EXPLORATION, GAMES):
            nbformat.write(execute(path), path)
            print(f"stored {path.relative_to(ROOT)}", file=sys.stderr)
