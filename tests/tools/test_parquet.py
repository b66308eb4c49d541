"""``gohash canon --format parquet``: the dataset's rows are exactly the JSON Lines records,
its games and files tables say what the SGF says, errors are collected, parts are
replaced rather than doubled, and fsspec URLs are written."""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sgfmill import sgf

from gohash.cli import main
from gohash.pipeline.positions import read_positions
from gohash.sgf.sources import find_inputs
from gohash.tools import parquet as columnar
from gohash.tools.canon import CanonOptions, write_records
from gohash.tools.dataset import partitions, write_dataset
from gohash.tools.parquet import (
    FILE_COLUMNS,
    GAME_COLUMNS,
    POSITION_COLUMNS,
    files_schema,
    games_schema,
    positions_schema,
    write_part,
)
from tests.support.env import CORPUS, ROOT

DATA = ROOT / "data" / "sgf"

pytestmark = pytest.mark.corpus

INPUTS = [str(DATA), str(CORPUS / "small")]


def table(root: Path | str, name: str) -> list[dict[str, Any]]:
    """Every row of one table, parts in order."""
    rows: list[dict[str, Any]] = []
    for part in sorted(Path(root, name).glob("part-*.parquet")):
        rows += pq.read_table(part).to_pylist()
    return rows


def as_record(row: dict[str, Any]) -> dict[str, Any]:
    """A positions row in the JSON Lines record's form: hashes as hex, the frame as hex."""
    def hexed(value: int | bytes) -> str:
        return "0x" + (value.hex() if isinstance(value, bytes) else f"{value:016x}")

    # to_move and setup are beyond the JSON Lines record (an index built from the
    # dataset needs them): test_rows_are_the_json_lines_records checks them apart.
    record = {k: v for k, v in row.items() if k not in ("to_move", "setup")}
    record |= {"hash": hexed(row["hash"]), "key": hexed(row["key"])}
    if "position" in row:
        record["position"] = row["position"].hex()
    return record


def jsonl(paths: list[str], options: CanonOptions) -> list[dict[str, Any]]:
    lines: list[str] = []
    write_records(paths, lines.append, options)
    return [json.loads(line) for line in "".join(lines).splitlines()]


@pytest.mark.parametrize(("scheme", "variations", "position"), [
    ("huima64", False, False), ("huima64", True, True), ("regular128", False, True),
])
def test_rows_are_the_json_lines_records(
    tmp_path: Path, scheme: str, variations: bool, position: bool
) -> None:
    options = CanonOptions(scheme=scheme, variations=variations, position=position)
    # Small partitions: many parts, each with its own dictionaries, in input order.
    summary = write_dataset(INPUTS, str(tmp_path / "out"), options, partition_bytes=100_000)
    rows = table(tmp_path / "out", "positions")
    records = jsonl(INPUTS, options)
    assert len(rows) == len(records) == summary.positions
    assert [as_record(row) for row in rows] == records
    assert len(list((tmp_path / "out" / "positions").iterdir())) > 5
    batches = list(read_positions(INPUTS, scheme=scheme, variations=variations))
    to_move = [{1: "b", 2: "w"}[c] for b in batches for c in b.to_move.tolist()]
    setup = [flag for b in batches for flag in b.setup.tolist()]
    assert [row["to_move"] for row in rows] == to_move
    assert [row["setup"] for row in rows] == setup


DOCUMENTED = {
    "int32": pa.int32(), "int64": pa.int64(), "uint8": pa.uint8(), "uint64": pa.uint64(),
    "float64": pa.float64(), "string": pa.string(), "binary": pa.binary(), "bool": pa.bool_(),
    "fixed_size_binary(16)": pa.binary(16), "fixed_size_binary(32)": pa.binary(32),
    "list<int32>": pa.list_(pa.int32()), "list<string>": pa.list_(pa.string()),
    "list<dictionary<int8, string>>": pa.list_(pa.dictionary(pa.int8(), pa.string())),
    "dictionary<int8, string>": pa.dictionary(pa.int8(), pa.string()),
    "dictionary<int16, string>": pa.dictionary(pa.int16(), pa.string()),
    "dictionary<int32, string>": pa.dictionary(pa.int32(), pa.string()),
    "list<struct<game: int32, move_number: int32, message: string>>": pa.list_(pa.struct(
        [("game", pa.int32()), ("move_number", pa.int32()), ("message", pa.string())])),
}


def test_schemas_are_the_documented_columns_and_types(tmp_path: Path) -> None:
    write_dataset([str(DATA / "game-9x9.sgf")], str(tmp_path / "a"),
                  CanonOptions(scheme="huima64", position=True))
    write_dataset([str(DATA / "game-9x9.sgf")], str(tmp_path / "b"), CanonOptions())
    for root, bits, position in ((tmp_path / "a", 64, True), (tmp_path / "b", 128, False)):
        for name, columns in (("positions", POSITION_COLUMNS), ("games", GAME_COLUMNS),
                              ("files", FILE_COLUMNS)):
            # As read back from the file, by an independent reader of the types.
            schema = pq.read_schema(next(Path(root, name).glob("*.parquet")))
            names = [c for c, _, _ in columns if position or c != "position"]
            assert schema.names == names
            for column, documented, description in columns:
                if column in names:
                    kind = documented.split(" | ")[bits == 128] if "|" in documented else documented
                    assert schema.field(column).type == DOCUMENTED[kind], (name, column)
                    assert schema.field(column).metadata == {b"description": description.encode()}
        assert pq.read_schema(next(Path(root, "positions").glob("*.parquet"))).equals(
            positions_schema(bits, position))
    assert pq.read_schema(next(Path(tmp_path, "a", "games").glob("*"))).equals(games_schema())
    assert pq.read_schema(next(Path(tmp_path, "a", "files").glob("*"))).equals(files_schema())
    meta = pq.ParquetFile(next((tmp_path / "a" / "positions").glob("*.parquet"))).metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"


@pytest.mark.parametrize("batch", [columnar._BATCH, 700])
def test_games_table_holds_the_roots_moves_and_row_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    # At 700 rows a batch, a partition's games come from many batches.
    monkeypatch.setattr(columnar, "_BATCH", batch)
    paths = [str(CORPUS / "small")]
    write_dataset(paths, str(tmp_path / "out"), partition_bytes=200_000)
    games = table(tmp_path / "out", "games")
    records = jsonl(paths, CanonOptions())
    rows: dict[tuple[str, int], list[int]] = {}
    for record in records:
        rows.setdefault((record["file"], record["game"]), []).append(record["move_number"])
    assert len(games) == len(rows) == 577
    for game in games:
        moves = rows[(game["file"], game["game"])]
        assert (game["positions"], game["moves"]) == (len(moves), max(moves))
        # The root as sgfmill reads it: an independent parser.
        root = sgf.Sgf_game.from_bytes(Path(game["file"]).read_bytes()).get_root()

        def prop(name: str, root: Any = root) -> str | None:
            return root.get(name) if root.has_property(name) else None

        assert game["size"] == root.get_size()
        assert (game["black"], game["white"], game["result"]) == (prop("PB"), prop("PW"),
                                                                  prop("RE"))
        assert (game["date"], game["event"], game["rules"]) == (prop("DT"), prop("EV"),
                                                                 prop("RU"))
        komi = prop("KM")  # sgfmill reads it as a number
        assert game["komi"] is None if komi is None else math.isclose(game["komi"], komi)
        assert game["handicap"] == (prop("HA") or 0)
        assert game["errors"] == []


def test_files_table_and_errors_of_bad_input(tmp_path: Path, capsys: Any) -> None:
    bad = tmp_path / "bad.sgf"
    bad.write_bytes(b"(;SZ[9];B[aa];W[bb];B[aa])\n(;SZ[9];B[ee])\n(;SZ[9];B[ff]")
    good = DATA / "two-games.sgf"
    out = tmp_path / "out"
    paths = [str(bad), str(good), str(tmp_path / "missing.sgf")]
    assert main(["canon", *paths, "-o", str(tmp_path / "out.jsonl")]) == 2
    lines = capsys.readouterr().err
    code = main(["canon", *paths, "--format", "parquet", "-o", str(out)])
    err = capsys.readouterr().err
    # The same errors, in the same order, and the same summary as JSON Lines.
    assert (code, err) == (2, lines)
    assert f"error: {bad}, game 0, move 3: black at 'A9' is occupied" in err
    assert err.splitlines()[-1] == "gohash canon: 2 files, 5 games, 77 positions, 3 errors"
    files = table(out, "files")
    assert [f["file"] for f in files] == [str(bad), str(good), str(tmp_path / "missing.sgf")]
    assert files[0]["sha256"] == hashlib.sha256(bad.read_bytes()).digest()
    assert files[1]["sha256"] == hashlib.sha256(good.read_bytes()).digest()
    assert (files[0]["bytes"], files[0]["games"], files[1]["games"]) == (
        len(bad.read_bytes()), 3, 2)
    assert [e["game"] for e in files[0]["errors"]] == [0, 2]
    assert files[0]["errors"][0]["move_number"] == 3
    assert files[2]["sha256"] is None
    assert files[2]["errors"][0]["message"].endswith("no such file or folder")
    games = table(out, "games")
    # Game 2 of bad.sgf never began (its text ends in its root): no row.
    assert [(g["file"], g["game"]) for g in games] == [
        (str(bad), 0), (str(bad), 1), (str(good), 0), (str(good), 1)]
    assert games[0]["errors"] == [files[0]["errors"][0]["message"]]
    assert (games[0]["positions"], games[1]["errors"]) == (3, [])
    marker = json.loads((out / "_gohash_canon.json").read_text())
    assert (marker["complete"], marker["positions"], marker["errors"]) == (True, 77, 3)


def test_a_part_written_twice_is_replaced_not_doubled(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_dataset([str(DATA)], str(out), partition_bytes=4000)
    before = table(out, "positions")
    part = partitions([str(DATA)], 4000)[3]
    stale = out / "positions" / ".part-00003.parquet.killed.tmp"
    stale.write_bytes(b"what a killed task leaves")
    write_part(part, str(out), CanonOptions())
    write_part(part, str(out), CanonOptions())
    assert table(out, "positions") == before
    assert sorted(p.name for p in (out / "games").iterdir()) == [
        f"part-{n:05d}.parquet" for n in range(len(partitions([str(DATA)], 4000)))]
    # A new run told to overwrite the dataset replaces it, and removes what killed
    # tasks left.
    write_dataset([str(DATA / "game-9x9.sgf")], str(out), overwrite=True)
    assert not stale.exists()
    assert len(table(out, "positions")) == 73
    assert [p.name for p in (out / "positions").iterdir()] == ["part-00000.parquet"]


def test_file_ids_number_the_input_listing_from_0(tmp_path: Path) -> None:
    # Many partitions, written in worker processes in any order: the files are
    # numbered in the order of the input listing, the games carry their file's.
    inputs = [str(DATA), str(tmp_path / "missing.sgf")]
    one = tmp_path / "one"
    write_dataset(inputs, str(one))
    cut = tmp_path / "cut"
    write_dataset(inputs, str(cut), partition_bytes=4000, jobs=2)
    assert len(list((cut / "files").iterdir())) > 3
    files = table(cut, "files")
    assert [f["file_id"] for f in files] == list(range(len(files)))
    assert files[-1]["file"].endswith("missing.sgf") and files[-1]["errors"]
    ids = {f["file"]: f["file_id"] for f in files}
    games = table(cut, "games")
    assert games and all(g["file_id"] == ids[g["file"]] for g in games)
    for name in ("files", "games"):
        assert table(cut, name) == table(one, name)


def test_jobs_and_fsspec_urls_give_the_same_rows(tmp_path: Path) -> None:
    single = tmp_path / "single"
    write_dataset(INPUTS, str(single), partition_bytes=100_000)
    pooled = tmp_path / "pooled"
    write_dataset(INPUTS, str(pooled), partition_bytes=100_000, jobs=2)
    assert table(pooled, "positions") == table(single, "positions")
    assert table(pooled, "games") == table(single, "games")
    # An fsspec URL: the in-memory filesystem, in this process.
    import fsspec

    write_dataset(INPUTS, "memory://gohash-test/out", partition_bytes=100_000)
    fs = fsspec.filesystem("memory")
    rows: list[dict[str, Any]] = []
    for name in sorted(fs.glob("/gohash-test/out/positions/part-*.parquet")):
        with fs.open(name, "rb") as f:
            rows += pq.read_table(f).to_pylist()
    assert rows == table(single, "positions")
    assert json.loads(fs.cat("/gohash-test/out/_gohash_canon.json"))["complete"]
    fs.rm("/gohash-test", recursive=True)


def test_output_folder_and_option_errors(tmp_path: Path, capsys: Any) -> None:
    nine = str(DATA / "game-9x9.sgf")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    cases = [
        (["--format", "parquet"], "--format parquet writes a dataset folder: give -o DIR"),
        (["--format", "parquet", "-o", str(tmp_path / "full")],
         "a folder holding files gohash did not write, not a canon dataset"),
        (["-o", str(tmp_path / "x.jsonl"), "--dask", "local:1"],
         "--dask and --partition-size go with --format parquet"),
        (["--format", "parquet", "-o", str(tmp_path / "y"), "--dask", "local:0"],
         "--dask local:N needs a number of workers N >= 1"),
    ]
    for argv, message in cases:
        assert main(["canon", nine, *argv]) == 2
        assert message in capsys.readouterr().err
    assert (tmp_path / "full" / "notes.txt").read_text() == "mine"
    assert main(["canon", nine, "--format", "parquet", "-o", "z", "--partition-size", "8X"]) == 2
    assert "not a size in bytes (like 8M): '8X'" in capsys.readouterr().err


def test_partitions_are_deterministic_runs_of_the_input(tmp_path: Path) -> None:
    files = [inp.name for inp in find_inputs([str(CORPUS / "small")])]
    assert len(files) == 577
    parts = partitions([str(CORPUS / "small")], 50_000)
    assert [p.number for p in parts] == list(range(len(parts)))
    assert [item.name for p in parts for item in p.items] == files  # type: ignore[union-attr]
    for p in parts:
        sizes = [os.path.getsize(item.name) for item in p.items]  # type: ignore[union-attr]
        assert sum(sizes[:-1]) <= 50_000
    assert partitions([str(CORPUS / "small")], 50_000) == parts


def test_standard_input(tmp_path: Path) -> None:
    nine = (DATA / "game-9x9.sgf").read_bytes()
    command = [sys.executable, "-c", "import sys; from gohash.cli import main; sys.exit(main())",
               "canon", "-", "--format", "parquet", "-o", str(tmp_path / "out")]
    done = subprocess.run(command, input=nine, capture_output=True, check=True)
    assert done.stderr == b"gohash canon: 1 file, 1 game, 73 positions, 0 errors\n"
    assert [r["file"] for r in table(tmp_path / "out", "files")] == ["-"]
    records = jsonl([str(DATA / "game-9x9.sgf")], CanonOptions())
    assert [as_record(r) for r in table(tmp_path / "out", "positions")] == [
        {**record, "file": "-"} for record in records]
