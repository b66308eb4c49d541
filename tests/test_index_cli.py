"""The ``gohash index`` command line: build, find and dupes, output formats, exit
codes, and clear errors (no traceback) for bad index files and queries."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from gohash.board import Board
from gohash.cli import main
from gohash.symmetry import element
from tests.test_index import array_at, random_game, sgf, transformed, write_game


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


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["index", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_build_reports_and_skips_unchanged(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, db = collection
    code, out, _ = run(capsys, "build", str(db), str(folder))
    assert code == 0
    assert "0 files indexed (0 replaced), 4 unchanged" in out
    assert "4 files, 4 games, 164 positions" in out


def test_find_text_lists_every_occurrence_with_its_transform(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, db = collection
    code, out, _ = run(capsys, "find", str(db), "--sgf", str(folder / "a.sgf"), "--move", "15")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("13x13 position, key 0x") and lines[0].endswith(": 3 occurrences")
    assert [line.split("  ")[:4] for line in lines[1:]] == [
        [str(folder / "a-rot90-swap.sgf"), "game 0", "move 15", "rot90_swap, colours exchanged"],
        [str(folder / "a-start.sgf"), "game 0", "move 15", "identity"],
        [str(folder / "a.sgf"), "game 0", "move 15", "identity"],
    ]
    code, out, _ = run(capsys, "find", str(db), "--sgf", str(folder / "a.sgf"), "--move", "15",
                       "--no-colour-swap")
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
    assert result["matches"][0]["transform"] == element("rot90_swap").inverse.name
    assert result["matches"][0]["colours_exchanged"] is True

    monkeypatch.setattr("sys.stdin", io.StringIO(diagram))
    code, out, _ = run(capsys, "find", str(db), "--position", "-")
    assert code == 0 and out.count("move 10") == 3
    code, out, _ = run(capsys, "find", str(db), "--position", diagram, "--limit", "2")
    assert code == 0 and "showing 1-2 of 3: --offset 2 for more, --limit 0 for all" in out


def test_find_of_an_absent_position_exits_1(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, db = collection
    code, out, _ = run(capsys, "find", str(db), "--position", "X . .\n. . .\n. . .")
    assert code == 1 and ": 0 occurrences" in out


def test_dupes_text_and_json(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, db = collection
    code, out, _ = run(capsys, "dupes", str(db))
    assert code == 0
    assert out.splitlines()[-1] == "1 groups of duplicates, 1 prefixes"
    code, out, _ = run(capsys, "dupes", str(db), "--format", "json")
    result = json.loads(out)
    assert [[r["file"] for r in g["records"]] for g in result["groups"]] == [
        [str(folder / "a-rot90-swap.sgf"), str(folder / "a.sgf")]]
    assert [r["transform"] for r in result["groups"][0]["records"]] == [
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
    assert "2 files indexed" in out


@pytest.mark.parametrize("argv, message", [
    (["find", "{text}", "--sgf", "{sgf}"], "not an SQLite database"),
    (["dupes", "{missing}"], "no such index"),
    (["build", "{text}", "{sgf}"], "not an SQLite database"),
    (["find", "{db}", "--sgf", "{sgf}", "--move", "99"], "beyond the end of the main line"),
    (["find", "{db}", "--position", "X X\nO"], "diagram has 2 rows but a row of 1 points"),
    (["find", "{db}", "--position", "X .\n. .", "--move", "3"], "--move goes with --sgf"),
    (["build", "{db}", "{sgf}", "--scheme", "regular64"], "built with key scheme 'huima64'"),
    (["build", "{db}", "{sgf}", "--files-per-commit", "0"], "files per commit must be at least 1"),
])
def test_bad_input_is_one_clear_line(
    collection: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path,
    argv: list[str], message: str,
) -> None:
    folder, db = collection
    text = tmp_path / "notes.txt"
    text.write_text("these are not the games you are looking for\n")
    names = {"text": str(text), "missing": str(tmp_path / "missing.db"), "db": str(db),
             "sgf": str(folder / "b.sgf")}
    code, _, err = run(capsys, *(a.format(**names) for a in argv))
    assert code == 2
    assert err.startswith("gohash index: error: ") and message in err
    assert len(err.splitlines()) == 1
