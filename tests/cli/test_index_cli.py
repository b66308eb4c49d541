"""The ``gohash index`` command line: build, find and dupes, output formats, exit
codes, and clear errors (no traceback) for bad index files and queries."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from gohash.cli import main
from gohash.go.board import Board
from gohash.group.symmetry import element
from tests.support.indexes import array_at, random_game, run, sgf, transformed, write_game


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Games a, a rotated with colours exchanged, a's first 20 moves, and b; indexed."""
    folder = tmp_path_factory.mktemp("cli")
    rng = random.Random(8)
    a, b = random_game(rng, 13, 50), random_game(rng, 13, 40)
    write_game(folder, "a.sgf", 13, a)
    write_game(folder, "a-rot90-swap.sgf", 13, transformed(a, element("rot90_swap"), 13))
    write_game(folder, "a-start.sgf", 13, a[:20])
    write_game(folder, "b.sgf", 13, b)
    db = folder / "index.db"
    assert main(["index", "build", str(db), str(folder)]) == 0
    return folder, db


def test_build_reports_and_skips_unchanged(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, db = collection
    code, out, err = run(capsys, "build", str(db), str(folder))
    assert (code, out) == (0, "")
    assert err.splitlines() == [
        "gohash index build: 0 files indexed (0 replaced), 4 unchanged; 0 games, 0 positions; "
        "0 errors",
        f"gohash index build: index {db}: 4 files, 4 games, 164 positions, 89 distinct up to "
        "symmetry",
    ]


def test_find_text_lists_every_occurrence_with_its_transform(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, db = collection
    code, out, err = run(capsys, "find", str(db), "--sgf", str(folder / "a.sgf"), "--move", "15")
    assert code == 0
    assert err.startswith("gohash index find: 13x13 position, key 0x")
    assert err.endswith(": 3 occurrences\n")
    assert [line.split("  ")[:4] for line in out.splitlines()] == [
        [str(folder / "a-rot90-swap.sgf"), "game 0", "move 15", "rot90_swap, colours exchanged"],
        [str(folder / "a-start.sgf"), "game 0", "move 15", "identity"],
        [str(folder / "a.sgf"), "game 0", "move 15", "identity"],
    ]
    code, out, _ = run(capsys, "find", str(db), "--sgf", str(folder / "a.sgf"), "--move", "15",
                       "--symmetry", "d4")
    assert code == 0 and "rot90_swap" not in out and out.count("move 15") == 2


def test_find_json_from_a_diagram_with_paging(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    folder, db = collection
    board = array_at(folder / "a-rot90-swap.sgf", 10)
    diagram = str(Board.from_array(board))
    (tmp_path / "query.txt").write_text(diagram + "\n")
    code, out, _ = run(capsys, "find", str(db), "--position", str(tmp_path / "query.txt"),
                       "--format", "json", "--limit", "1", "--offset", "1")
    assert code == 0
    result = json.loads(out)
    assert (result["total"], result["offset"], result["limit"], len(result["matches"])) == \
        (3, 1, 1, 1)
    assert result["matches"][0]["move_number"] == 10
    assert result["matches"][0]["file"] == str(folder / "a-start.sgf")
    # The query is a's position turned by rot90_swap; a-start shows it unturned.
    assert result["matches"][0]["element"] == element("rot90_swap").inverse.name
    assert result["matches"][0]["colours_exchanged"] is True

    monkeypatch.setattr("sys.stdin", io.StringIO(diagram))
    code, out, _ = run(capsys, "find", str(db), "--position", "-")
    assert code == 0 and out.count("move 10") == 3
    code, out, err = run(capsys, "find", str(db), "--position", diagram, "--limit", "2")
    assert code == 0 and out.count("move 10") == 2
    assert err.splitlines()[-1] == (
        "gohash index find: showing 1-2 of 3: --offset 2 for more, --limit 0 for all"
    )


def test_find_of_an_absent_position_is_no_error(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, db = collection
    code, out, err = run(capsys, "find", str(db), "--position", "X . .\n. . .\n. . .")
    assert (code, out) == (0, "") and err.endswith(": 0 occurrences\n")


def test_dupes_text_and_json(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, db = collection
    code, out, err = run(capsys, "dupes", str(db))
    assert code == 1  # duplicates are findings
    assert out.startswith("same game (51 positions):\n")
    assert err == "gohash index dupes: 1 group of duplicates, 1 prefix\n"
    code, out, _ = run(capsys, "dupes", str(db), "--format", "json")
    assert code == 1
    result = json.loads(out)
    assert [[r["file"] for r in g["records"]] for g in result["groups"]] == [
        [str(folder / "a-rot90-swap.sgf"), str(folder / "a.sgf")]]
    assert [r["element"] for r in result["groups"][0]["records"]] == [
        "identity", element("rot90_swap").inverse.name]
    assert result["prefixes"][0]["shorter"]["records"][0]["file"] == str(folder / "a-start.sgf")
    assert result["prefixes"][0]["shorter"]["positions"] == 21


def test_build_with_bad_records_exits_2_and_indexes_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.sgf").write_text(sgf(9, [("b", (2, 2))]))
    (tmp_path / "bad.sgf").write_text("(;SZ[9];B[zz])")
    code, out, err = run(capsys, "build", str(tmp_path / "i.db"), str(tmp_path))
    assert code == 2
    assert "bad.sgf, game 0, move 1" in err and "Traceback" not in err
    assert out == "" and "gohash index build: 2 files indexed" in err


@pytest.mark.parametrize("argv, message", [
    (["find", "{text}", "--sgf", "{sgf}"], "not an SQLite database"),
    (["dupes", "{missing}"], "no such index"),
    (["build", "{text}", "{sgf}"], "not an SQLite database"),
    (["find", "{db}", "--sgf", "{sgf}", "--move", "99"], "beyond the end of the main line"),
    (["find", "{db}", "--position", "X X\nO"], "diagram has 2 rows but a row of 1 points"),
    (["find", "{db}", "--position", "X .\n. .", "--move", "3"], "--move goes with --sgf"),
    (["find", "{db}", "--position", "X .\n. .", "--game", "0"], "--game goes with --sgf"),
    (["find", "{db}", "--sgf", "{folder}"], "--sgf takes one SGF file, not the folder"),
    (["build", "{db}", "{sgf}", "--scheme", "regular64"], "built with key scheme 'regular128'"),
    (["build", "{db}", "{sgf}", "--variations"], "index built without variations"),
    (["remove", "{db}", "{missing}"], "missing.db: not in the index"),
])
def test_bad_input_is_one_clear_line(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path,
    argv: list[str], message: str,
) -> None:
    folder, db = collection
    text = tmp_path / "notes.txt"
    text.write_text("these are not the games you are looking for\n")
    names = {"text": str(text), "missing": str(tmp_path / "missing.db"), "db": str(db),
             "sgf": str(folder / "b.sgf"), "folder": str(folder)}
    code, _, err = run(capsys, *(a.format(**names) for a in argv))
    assert code == 2
    assert err.startswith(f"gohash index {argv[0]}: error: ") and message in err
    assert len(err.splitlines()) == 1 or argv[0] == "remove"  # remove ends with a summary
