"""``gohash pack``: SGF records stored in Parquet parts, and every command reading them as it
reads the files themselves (the same output, byte for byte); damage is reported, never
taken for data."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gohash.cli import main
from gohash.sgf.pack import PackedSlice
from gohash.tools.canon import CanonOptions
from gohash.tools.dataset import partitions, write_dataset
from gohash.tools.pack import write_pack
from tests.support.env import CORPUS, ROOT
from tests.support.indexes import posting_rows

DATA = ROOT / "data" / "sgf"

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The inputs packed: records we wrote, a corpus folder, a zip, and UTF-16 text."""
    folder = tmp_path_factory.mktemp("sources")
    archive = folder / "games.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(DATA / "game-9x9.sgf", "a/nine.sgf")
        z.write(DATA / "variations-9x9.sgf", "b/variations.sgf")
    utf16 = folder / "utf16.sgf"
    utf16.write_bytes("(;SZ[9]PB[Ünal];B[ee];W[cc])".encode("utf-16"))
    return [str(DATA), str(CORPUS / "small"), str(archive), str(utf16)]


@pytest.fixture(scope="module")
def packed(sources: list[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("packed") / "pack"
    summary = write_pack(sources, str(out), part_bytes=300_000, group_bytes=40_000)
    assert summary.parts > 2 and not summary.errors
    return out


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_records_are_the_sources_bytes_and_sha256(sources: list[str], packed: Path) -> None:
    marker = json.loads((packed / "_gohash_pack.json").read_text())
    rows: list[dict[str, Any]] = []
    for part in marker["parts"]:
        table = pq.read_table(packed / part)
        assert table.schema.field("sha256").type == pa.binary(32)
        rows += table.to_pylist()
    # Every SGF file of data/sgf and of corpus/small, the archive's two members
    # and the UTF-16 file.
    files = len(list(DATA.rglob("*.sgf"))) + len(list((CORPUS / "small").rglob("*.sgf")))
    assert marker["records"] == len(rows) == files + 2 + 1
    assert sorted(p.name for p in packed.iterdir()) == ["_gohash_pack.json", *marker["parts"]]
    by_path = {row["path"]: row for row in rows}
    for path in (DATA / "game-9x9.sgf", CORPUS / "small" / "gnugo-regression-games" / "arb"):
        if path.is_file():
            row = by_path[str(path)]
            assert row["data"] == path.read_bytes()
            assert row["sha256"] == hashlib.sha256(path.read_bytes()).digest()
    with zipfile.ZipFile(sources[2]) as z:
        assert by_path[f"{sources[2]}:a/nine.sgf"]["data"] == z.read("a/nine.sgf")
    utf16 = by_path[sources[3]]
    assert utf16["data"] == "(;SZ[9]PB[Ünal];B[ee];W[cc])".encode()
    assert utf16["notes"] == ["text is UTF-16-LE (byte-order mark): decoded to UTF-8"]
    for row in rows:
        assert row["sha256"] == hashlib.sha256(row["data"]).digest()


def test_every_command_reads_a_pack_as_the_files(
    sources: list[str], packed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = [
        ["canon", "--position"],
        ["canon", "--variations", "--format", "csv"],
        ["superko", "--format", "json"],
        ["audit", "--scheme", "huima64"],
    ]
    for command in commands:
        original = run(capsys, *command, *sources)
        assert original[1]
        assert run(capsys, *command, str(packed)) == original
    assert run(capsys, "index", "build", str(tmp_path / "a.db"), *sources)[0] == 2
    assert run(capsys, "index", "build", str(tmp_path / "b.db"), str(packed))[0] == 2
    tables = ("files", "games", "errors")
    a, b = (sqlite3.connect(tmp_path / name) for name in ("a.db", "b.db"))
    for name in tables:
        query = f"SELECT * FROM {name} ORDER BY 1, 2"
        assert a.execute(query).fetchall() == b.execute(query).fetchall()
    a.close()
    b.close()
    assert posting_rows(tmp_path / "a.db") == posting_rows(tmp_path / "b.db")
    # Built again from the pack: every record is known unchanged by its SHA-256.
    code, _, err = run(capsys, "index", "build", str(tmp_path / "a.db"), str(packed))
    files = len(list(DATA.rglob("*.sgf"))) + len(list((CORPUS / "small").rglob("*.sgf"))) + 3
    assert (code, err.splitlines()[0]) == (
        0, f"gohash index build: 0 files indexed (0 replaced), {files} unchanged; "
        "0 games, 0 positions; 0 errors")


def test_a_pack_is_partitioned_by_row_groups(sources: list[str], packed: Path,
                                             tmp_path: Path) -> None:
    parts = partitions([str(packed)], 60_000)
    slices = [item for part in parts for item in part.items]
    assert all(isinstance(item, PackedSlice) for item in slices)
    marker = json.loads((packed / "_gohash_pack.json").read_text())
    groups = [(str(packed / part), group) for part in marker["parts"]
              for group in range(pq.ParquetFile(packed / part).num_row_groups)]
    assert [(s.path, g) for s in slices for g in s.row_groups] == groups  # type: ignore[union-attr]
    assert len(parts) > len(marker["parts"])
    options = CanonOptions(position=True)
    write_dataset([str(packed)], str(tmp_path / "from-pack"), options, partition_bytes=60_000)
    write_dataset(sources, str(tmp_path / "from-files"), options)
    # The two are cut into other partitions; every value is the same, the files'
    # numbers too.
    for table in ("positions", "games", "files"):
        rows = [pq.read_table(tmp_path / root / table).to_pylist()
                for root in ("from-pack", "from-files")]
        assert rows[0] == rows[1]


def test_damage_is_reported(packed: Path, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    marker = json.loads((packed / "_gohash_pack.json").read_text())
    (copy / "_gohash_pack.json").write_text(json.dumps(marker))
    first = pq.read_table(packed / marker["parts"][0])
    data = first.column("data").to_pylist()
    data[1] = data[1].replace(b"]", b"}", 1)
    first = first.set_column(1, first.schema.field("data"), pa.array(data, pa.binary()))
    pq.write_table(first, copy / marker["parts"][0])
    code, _, err = run(capsys, "canon", str(copy))
    path = first.column("path")[1].as_py()
    assert code == 2
    assert f"error: {path}: packed record damaged: its bytes do not match its SHA-256" in err
    missing = marker["parts"][1]
    assert f"error: {copy / missing}: cannot read the packed part" in err
    # A marker of another version, and one that is not JSON.
    (copy / "_gohash_pack.json").write_text(json.dumps({**marker, "version": 9}))
    code, _, err = run(capsys, "canon", str(copy))
    assert (code, err.splitlines()[0]) == (
        2, f"gohash canon: error: {copy}: packed dataset version 9; this gohash reads version 1")
    (copy / "_gohash_pack.json").write_text("{")
    code, _, err = run(capsys, "superko", str(copy))
    assert code == 2 and f"{copy}: cannot read the packed dataset's marker" in err


def test_pack_command_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("mine")
    code, _, err = run(capsys, "pack", str(DATA), "-o", str(tmp_path / "full"))
    assert (code, err) == (2, f"gohash pack: error: {tmp_path / 'full'}: exists and is not an "
                              "empty folder or a packed dataset; give a new or empty folder\n")
    code, out, err = run(capsys, "pack", str(DATA / "game-9x9.sgf"), str(tmp_path / "none.sgf"),
                         "-o", str(tmp_path / "p"))
    assert code == 2
    assert out == ""
    assert err == (f"gohash pack: error: {tmp_path / 'none.sgf'}: no such file or folder\n"
                   "gohash pack: 1 record, 585 bytes in 1 part, 1 error\n")
    assert run(capsys, "canon", str(tmp_path / "p")) == run(
        capsys, "canon", str(DATA / "game-9x9.sgf"))
