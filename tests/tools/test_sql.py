"""The DuckDB macros of ``gohash.tools.sql`` against independent references: positions
packed here by hand (base-4 digits, one size byte), ``str(Board)`` for the diagrams, the
JSON Lines output's hex for the keys; and the Parquet games table's typed columns."""

from __future__ import annotations

import contextlib
import json
import math
import re
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gohash.errors import IllegalMoveError
from gohash.go.board import Board
from gohash.index.records import first_date, rank_level, result_text, winner
from gohash.tools.canon import CanonOptions, write_records
from gohash.tools.dataset import write_dataset
from gohash.tools.sql import DUCKDB_MACROS, register
from tests.support.env import ROOT

DATA = ROOT / "data" / "sgf"


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    return register(duckdb.connect())


def pack(points: np.ndarray) -> bytes:
    """A position packed as the ``position`` column holds it, written from its description
    in docs/schemas.md: the size, then base-4 digits in ``row * N + col`` order."""
    size = points.shape[0]
    digits = int("".join(str(int(v)) for v in points.reshape(-1)), 4)
    return bytes([size]) + digits.to_bytes(math.ceil(size * size / 4), "big")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 26).flatmap(lambda n: st.lists(
    st.integers(0, 2), min_size=n * n, max_size=n * n).map(
        lambda cells: np.array(cells, dtype=np.int8).reshape(n, n))))
def test_points_and_sizes_of_any_packed_position(points: np.ndarray) -> None:
    con = register(duckdb.connect())
    size = points.shape[0]
    found = con.execute("SELECT gohash_size($p), [gohash_point($p, i // $n, i % $n) "
                        "for i in range($n * $n)]", {"p": pack(points), "n": size}).fetchone()
    assert found == (size, points.reshape(-1).tolist())


@pytest.mark.parametrize("size", [1, 2, 7, 9, 10, 13, 19, 25, 26])
def test_a_diagram_is_the_boards(con: duckdb.DuckDBPyConnection, size: int) -> None:
    rng = np.random.default_rng(size)
    board = Board(size)
    for _ in range(size * size // 2):
        point = (int(rng.integers(size)), int(rng.integers(size)))
        with contextlib.suppress(IllegalMoveError):  # occupied, ko, suicide: the next one
            board.play(point, board.to_move)
    key = board.position_key()
    assert key == pack(board.to_array())
    [(diagram,)] = con.execute("SELECT gohash_diagram(?)", [key]).fetchall()
    assert diagram == str(board)
    assert np.array_equal(Board.from_diagram(diagram).to_array(), board.to_array())


@pytest.mark.parametrize("scheme", ["regular128", "huima64"])
def test_keys_print_as_the_json_lines_output(
    con: duckdb.DuckDBPyConnection, tmp_path: Path, scheme: str
) -> None:
    options = CanonOptions(scheme=scheme, position=True)
    inputs = [str(DATA / "game-9x9.sgf"), str(DATA / "game-13x13.sgf")]
    write_dataset(inputs, str(tmp_path / "out"), options)
    lines: list[str] = []
    write_records(inputs, lines.append, options)
    records = [json.loads(line) for line in "".join(lines).splitlines()]
    rows = con.execute(
        f"SELECT gohash_hex(hash), gohash_hex(key), gohash_diagram(position) "
        f"FROM read_parquet('{tmp_path}/out/positions/*.parquet')").fetchall()
    assert [(h, k) for h, k, _ in rows] == [(r["hash"], r["key"]) for r in records]
    assert [d for _, _, d in rows] == [
        str(Board.from_position_key(bytes.fromhex(r["position"]))) for r in records]


def test_the_docs_print_the_macros() -> None:
    page = (ROOT / "docs" / "large-corpora.md").read_text()
    blocks = re.findall(r"```sql\n(.*?)```", page, re.S)
    assert any(DUCKDB_MACROS in block for block in blocks)


def test_games_table_carries_the_index_columns(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    roots = ["DT[2017-01-05,06]RE[B+Resign]BR[5d]WR[P9段]KM[6.5]HA[2]AB[dd][pp]",
             "DT[05.01.2017]RE[W+3.50]BR[3k]WR[?]KM[375]", "RE[0]", "DT[2001]RE[jigo]BR[1p]"]
    for i, root in enumerate(roots):
        (folder / f"g{i}.sgf").write_text(f"(;GM[1]FF[4]SZ[9]{root};B[ee];W[cc])")
    write_dataset([str(folder), str(DATA / "two-games.sgf")], str(tmp_path / "out"),
                  partition_bytes=200)  # several partitions
    con = duckdb.connect()
    games = con.execute(f"SELECT * FROM read_parquet('{tmp_path}/out/games/*.parquet') "
                        "ORDER BY file, game").df().to_dict("records")
    files = con.execute(f"SELECT file, file_id FROM read_parquet('{tmp_path}/out/files/"
                        "*.parquet')").fetchall()
    assert len({i for _, i in files}) == len(files) > 2  # one id a file, across partitions
    ids = dict(files)
    for game in games:
        assert ids[game["file"]] == game["file_id"]
        none = lambda v: None if v is None or v != v else v  # noqa: E731 (NaN: SQL null)
        assert none(game["iso_date"]) == first_date(none(game["date"]))
        assert none(game["year"]) == (None if none(game["iso_date"]) is None
                                      else int(game["iso_date"][:4]))
        assert none(game["winner"]) == winner(none(game["result"]))
        assert none(game["outcome"]) == result_text(none(game["result"]))
        assert none(game["black_level"]) == rank_level(none(game["black_rank"]))
        assert none(game["white_level"]) == rank_level(none(game["white_rank"]))
    first = next(g for g in games if g["file"].endswith("g0.sgf"))
    assert (first["iso_date"], first["year"], first["winner"], first["outcome"],
            first["black_level"], first["komi"], first["handicap"]) == (
        "2017-01-05", 2017, "B", "B+R", 34, 6.5, 2)
