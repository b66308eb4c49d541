"""No command silently replaces earlier output.

``canon -o FILE``, ``canon --format parquet -o DIR``, ``pack -o DIR`` and
``index build DB`` refuse, with exit 2 and one line naming the output, to write
over a non-empty file, an earlier dataset, or an index of another kind, unless
``--overwrite`` is given; a folder or index gohash did not write, and an output
that is also an input, are refused even then.  A failed ``index build`` leaves
no empty index behind.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from gohash.cli import main
from gohash.errors import OutputExistsError
from gohash.index.store import build_index
from tests.support.env import ROOT

DATA = ROOT / "data" / "sgf"
NINE = str(DATA / "game-9x9.sgf")
THIRTEEN = str(DATA / "game-13x13.sgf")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` and its content."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


# -- canon -o FILE -----------------------------------------------------------------------------


def test_canon_refuses_a_non_empty_file_without_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "positions.jsonl"
    assert run(capsys, "canon", NINE, "-o", str(output))[0] == 0
    first = output.read_bytes()
    code, out, err = run(capsys, "canon", THIRTEEN, "--position", "-o", str(output))
    assert (code, out) == (2, "")
    assert err == (f"gohash canon: error: {output}: holds earlier output; --overwrite "
                   "replaces it, or give another output\n")
    assert output.read_bytes() == first
    assert run(capsys, "canon", THIRTEEN, "--position", "-o", str(output), "--overwrite")[0] == 0
    records = [json.loads(line) for line in output.read_text().splitlines()]
    assert {r["file"] for r in records} == {THIRTEEN} and "position" in records[0]


def test_canon_writes_an_empty_file_and_never_its_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    assert run(capsys, "canon", NINE, "-o", str(empty))[0] == 0
    assert len(empty.read_text().splitlines()) == 73
    record = tmp_path / "game.sgf"
    record.write_bytes(Path(NINE).read_bytes())
    code, _, err = run(capsys, "canon", str(record), "-o", str(record), "--overwrite")
    assert code == 2 and f"{record}: is also the input {str(record)!r}" in err
    assert record.read_bytes() == Path(NINE).read_bytes()


# -- canon --format parquet -o DIR -------------------------------------------------------------


def test_canon_dataset_is_not_replaced_by_another_without_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert run(capsys, "canon", NINE, "--format", "parquet", "--position", "-o", str(out))[0] == 0
    before = tree(out)
    code, _, err = run(capsys, "canon", NINE, "--format", "parquet", "-o", str(out))
    assert code == 2
    assert err == (f"gohash canon: error: {out}: holds a canon dataset (regular128, with "
                   "--position); --overwrite replaces it, or give another output\n")
    assert tree(out) == before
    assert run(capsys, "canon", THIRTEEN, "--format", "parquet", "-o", str(out),
               "--overwrite")[0] == 0
    marker = json.loads((out / "_gohash_canon.json").read_text())
    assert marker["position"] is False and marker["games"] == 1 and marker["complete"]
    assert tree(out) != before


def test_canon_dataset_never_replaces_a_pack_or_foreign_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packed = tmp_path / "packed"
    assert run(capsys, "pack", NINE, "-o", str(packed))[0] == 0
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep me")
    for folder, kind in ((packed, "a packed dataset (gohash pack)"),
                         (foreign, "files gohash did not write")):
        before = tree(folder)
        code, _, err = run(capsys, "canon", THIRTEEN, "--format", "parquet", "-o", str(folder),
                           "--overwrite")
        assert code == 2
        assert f"{folder}: a folder holding {kind}, not a canon dataset" in err
        assert tree(folder) == before


# -- pack -o DIR -------------------------------------------------------------------------------


def test_pack_refuses_an_earlier_pack_without_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packed = tmp_path / "packed"
    assert run(capsys, "pack", NINE, "-o", str(packed))[0] == 0
    before = tree(packed)
    code, _, err = run(capsys, "pack", THIRTEEN, "-o", str(packed))
    assert code == 2
    assert err == (f"gohash pack: error: {packed}: holds a packed dataset; --overwrite "
                   "replaces it, or give another output\n")
    assert tree(packed) == before
    (packed / "mine.txt").write_text("keep me")
    assert run(capsys, "pack", THIRTEEN, str(DATA / "two-games.sgf"), "-o", str(packed),
               "--overwrite")[0] == 0
    marker = json.loads((packed / "_gohash_pack.json").read_text())
    assert marker["records"] == 2 and (packed / "mine.txt").read_text() == "keep me"
    code, out, _ = run(capsys, "canon", str(packed))
    assert code == 0
    assert {json.loads(line)["file"] for line in out.splitlines()} == {
        THIRTEEN, str(DATA / "two-games.sgf")}


def test_pack_never_replaces_foreign_files_or_its_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    foreign = tmp_path / "games"
    foreign.mkdir()
    (foreign / "a.sgf").write_bytes(Path(NINE).read_bytes())
    code, _, err = run(capsys, "pack", NINE, "-o", str(foreign), "--overwrite")
    assert code == 2 and f"{foreign}: exists and is not an empty folder or a packed" in err
    packed = tmp_path / "packed"
    assert run(capsys, "pack", NINE, "-o", str(packed))[0] == 0
    before = tree(packed)
    code, _, err = run(capsys, "pack", str(packed), "-o", str(packed), "--overwrite")
    assert code == 2 and f"{packed}: is also the input {str(packed)!r}" in err
    assert tree(packed) == before


# -- index build DB ----------------------------------------------------------------------------


def dataset_without_frames(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A canon dataset written without --position: an index cannot be built from it."""
    out = tmp_path / "out"
    assert run(capsys, "canon", NINE, "--format", "parquet", "-o", str(out))[0] == 0
    return out


def test_failed_index_build_leaves_no_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = dataset_without_frames(tmp_path, capsys)
    db = tmp_path / "games.db"
    code, _, err = run(capsys, "index", "build", str(db), str(out))
    assert code == 2
    assert "written without --position: it holds no frames" in err
    assert err.endswith(f"gohash index build: no index written: {db} left as it was\n")
    assert sorted(os.listdir(tmp_path)) == ["out"]
    db.touch()  # an empty file stays an empty file
    assert run(capsys, "index", "build", str(db), str(out))[0] == 2
    assert sorted(os.listdir(tmp_path)) == ["games.db", "out"] and db.stat().st_size == 0


def test_failed_index_build_keeps_an_existing_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.db"
    assert run(capsys, "index", "build", str(db), NINE)[0] == 0
    out = dataset_without_frames(tmp_path, capsys)
    code, _, err = run(capsys, "index", "build", str(db), str(out))
    assert code == 2 and f"index {db}: 1 file, 1 game, 73 positions" in err


def test_interrupted_new_index_is_removed(tmp_path: Path) -> None:
    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    db = tmp_path / "games.db"
    with pytest.raises(KeyboardInterrupt):
        build_index(db, [str(tmp_path / "missing.sgf"), NINE], progress=interrupt)
    assert os.listdir(tmp_path) == []


def test_index_of_another_kind_is_replaced_only_with_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.db"
    assert run(capsys, "index", "build", str(db), NINE)[0] == 0
    before = db.read_bytes()
    code, _, err = run(capsys, "index", "build", str(db), THIRTEEN, "--scheme", "huima64")
    assert code == 2
    assert err == (f"gohash index build: error: {db}: index built with key scheme 'regular128', "
                   "not 'huima64'; --overwrite replaces it\n")
    assert db.read_bytes() == before
    code, _, err = run(capsys, "index", "build", str(db), THIRTEEN, "--scheme", "huima64",
                       "--overwrite")
    assert code == 0 and f"index {db}: 1 file, 1 game" in err
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT value FROM meta WHERE name = 'scheme'").fetchone() == (
            "huima64",)
        assert con.execute("SELECT path FROM files").fetchall() == [(THIRTEEN,)]


def test_overwrite_never_removes_a_file_that_is_not_an_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("my notes")
    code, _, err = run(capsys, "index", "build", str(notes), NINE, "--overwrite")
    assert code == 2 and "not an SQLite database" in err
    assert notes.read_text() == "my notes"
    with sqlite3.connect(tmp_path / "other.db") as con:
        con.execute("CREATE TABLE t (x)")
    code, _, err = run(capsys, "index", "build", str(tmp_path / "other.db"), NINE, "--overwrite")
    assert code == 2 and "not a gohash index" in err


def test_output_exists_error_is_a_gohash_error() -> None:
    error = OutputExistsError("holds earlier output", file="out.jsonl")
    assert isinstance(error, ValueError) and str(error) == "out.jsonl: holds earlier output"
