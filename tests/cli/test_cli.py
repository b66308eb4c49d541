"""The ``gohash`` command and ``gohash canon``: arguments, output, errors, exit codes."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from gohash.cli import main
from tests.support.env import ROOT

DATA = ROOT / "data" / "sgf"
NINE = str(DATA / "game-9x9.sgf")


def test_canon_prints_records_and_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["canon", NINE]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 73  # the initial position, 70 moves and two passes
    assert [json.loads(line)["move_number"] for line in lines] == list(range(73))
    assert err == "gohash canon: 1 file, 1 game, 73 positions, 0 errors\n"


def test_canon_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "keys.csv"
    argv = ["canon", str(DATA / "variations-9x9.sgf"), "--variations", "--format", "csv"]
    argv += ["--scheme", "regular128", "--symmetry", "d4", "-o", str(output)]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out == ""
    rows = list(csv.DictReader(io.StringIO(output.read_text())))
    assert len(rows) == 47
    assert {row["variation"] for row in rows} == {"", "0 1", "1"}
    assert all(len(row["key"]) == 34 for row in rows)
    assert all("swap" not in row["symmetries"] for row in rows)
    assert err.endswith("47 positions, 0 errors\n")


def test_errors_go_to_stderr_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.sgf"
    bad.write_bytes(b"(;SZ[19:13];B[aa])\n(;SZ[9];B[aa];W[bb];B[aa];W[cc])\n(;SZ[9];B[ee]")
    assert main(["canon", str(bad), NINE, str(tmp_path / "nope")]) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    # The board words the reason; the walker says where.
    assert lines[1].startswith(
        f"gohash canon: error: {bad}, game 1, move 3: black at 'A9' is occupied"
    )
    assert lines[:1] + lines[2:] == [
        f"gohash canon: error: {bad}, game 0, move 0: rectangular board SZ[19:13] is not "
        "supported",
        f"gohash canon: error: {bad}, game 2, move 0: unexpected end of data: the game is not "
        "closed with ')' (truncated file?)",
        f"gohash canon: error: {tmp_path / 'nope'}: no such file or folder",
        "gohash canon: 2 files, 4 games, 76 positions, 4 errors",
    ]
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["game"], r["move_number"]) for r in records[:3]] == [(1, 0), (1, 1), (1, 2)]
    assert "Traceback" not in err


def test_notes_for_implied_handicap(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["canon", str(DATA / "handicap-5-no-ab.sgf")]) == 0
    _, err = capsys.readouterr()
    assert err.startswith("gohash canon: note: ")
    assert "placed GTP fixed handicap C3 G7 C7 G3 E5" in err


def test_jobs_give_the_same_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = tmp_path / "all.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(DATA.glob("*.sgf")):
            z.write(path, f"games/{path.name}")
    argv = ["canon", str(DATA), str(archive), NINE, "--variations"]
    assert main(argv) == 2  # data/sgf/superko holds records with illegal moves
    single = capsys.readouterr()
    assert main([*argv, "--jobs", "2"]) == 2
    parallel = capsys.readouterr()
    assert parallel == single
    assert f"{archive}:games/game-9x9.sgf" in single.out


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"(;SZ[9];B[ee];W[])")))
    assert main(["canon", "-", "--jobs", "2"]) == 0
    out, _ = capsys.readouterr()
    assert [json.loads(line)["file"] for line in out.splitlines()] == ["-"] * 3


def test_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["canon", NINE, "--jobs", "0"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "gohash canon: error: argument --jobs: must be at least 1, not 0"
    )
    assert main(["canon", NINE, "-o", str(tmp_path / "no" / "such" / "dir.jsonl")]) == 2
    assert capsys.readouterr().err.startswith("gohash canon: error: cannot write")
    assert main(["canon", NINE, "--scheme", "md5"]) == 2
    assert "invalid choice: 'md5'" in capsys.readouterr().err


def test_installed_command(tmp_path: Path) -> None:
    command = Path(sys.executable).parent / "gohash"
    assert command.exists(), f"install gohash first: pip install -e . (no {command})"
    bad = tmp_path / "bad.sgf"
    bad.write_bytes(b"(;SZ[0])")
    done = subprocess.run(
        [str(command), "canon", NINE, str(bad)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert len(done.stdout.splitlines()) == 73
    assert done.stderr.splitlines() == [
        f"gohash canon: error: {bad}, game 0, move 0: board size SZ[0] is outside 1..26",
        "gohash canon: 2 files, 2 games, 73 positions, 1 error",
    ]


