"""``gohash canon``'s ``symmetries``, ``transform`` and ``position`` come from the exact
position, checked against a brute force written here from the point maps of
docs/design.md, section "The 16 elements", with ``np.rot90``/``np.flip`` (not
:mod:`gohash.group.symmetry`), under every scheme and a weak 8-bit one whose keys are
fixed by some ``T_g`` all the time.

Also: the E3 position (four black stones on the side star points, hash 0 under
huima64) gets its eight board maps and no colour swap; the scalar and batch frame
functions agree; ``Board.symmetries`` is exact; and the decoding of ``position``
given in the documentation works.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gohash.cli import main
from gohash.go.board import Board
from gohash.group.schemes import SCHEMES, KeyScheme, scheme
from gohash.pipeline.frames import canonical_frame, canonical_frames
from gohash.pipeline.positions import read_positions as replay
from gohash.sgf.inputs import Source
from gohash.tools.canon import CanonOptions, records, write_records
from tests.support.exact import (
    GROUPS,
    NAMES,
    Array,
    e3_position,
    expected,
    image,
    legal,
    pack,
    positions,
    setup_sgf,
)
from tests.support.indexes import weak_scheme

ALL_SCHEMES = (*SCHEMES, "weak8")


def keys_for(name: str, size: int) -> KeyScheme:
    return weak_scheme(size) if name == "weak8" else scheme(name, size)


def canon_records(
    positions: list[Array], keys: KeyScheme, group: str, fmt: str = "jsonl"
) -> list[str]:
    """Records of a game visiting ``positions`` after its empty root, formatted by
    canon from the columns of positions() with boards hashed by ``keys``, compiled
    and pure alike."""
    options = CanonOptions(symmetry=group, position=True, format=fmt)
    source = Source("game.sgf", setup_sgf(keys.size, positions))
    made = []
    for pure in (False, True):
        (batch,) = replay([source], scheme=lambda size: keys, symmetry=group, frames=True,
                          pure=pure)
        assert batch.errors == []
        made.append("".join(records(batch, options)).splitlines())
    assert made[0] == made[1]
    return made[0]


# -- erratum E3 ------------------------------------------------------------------------


def test_e3_position_hashes_to_zero_under_huima64() -> None:
    """The case the key alone gets wrong: hash 0 is fixed by every T_g, swap included."""
    keys = scheme("huima64", 19)
    h = keys.hash_array(e3_position())
    assert h == 0
    # Every element attains the key of 0, so a key-derived symmetry set is all 16.
    assert [g.name for g in keys.canonical(h)[1]] == list(NAMES)


@pytest.mark.parametrize("name", ALL_SCHEMES)
@pytest.mark.parametrize("group", ["full", "d4"])
def test_e3_position_gets_exactly_its_symmetries(name: str, group: str) -> None:
    board = e3_position()
    keys = keys_for(name, 19)
    record = json.loads(canon_records([board], keys, group)[1])
    assert record["symmetries"] == list(NAMES[:8])
    assert {k: record[k] for k in ("key", "symmetries", "position", "transform")} == expected(
        board, keys, group
    )


def test_e3_position_from_an_sgf_file(tmp_path: Path) -> None:
    path = tmp_path / "e3.sgf"
    path.write_bytes(b"(;SZ[19]AB[dj][pj][jd][jp])")
    for name in SCHEMES:
        out: list[str] = []
        write_records([str(path)], out.append, CanonOptions(scheme=name))
        assert json.loads(out[0])["symmetries"] == list(NAMES[:8]), name


# -- the brute-force property ------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(positions(), st.sampled_from(ALL_SCHEMES), st.sampled_from(["full", "d4"]))
def test_records_equal_brute_force(
    drawn: tuple[int, list[Array]], name: str, group: str
) -> None:
    size, boards = drawn
    keys = keys_for(name, size)
    records = [json.loads(line) for line in canon_records(boards, keys, group)]
    visited = [np.zeros((size, size), np.int8), *boards]
    assert len(records) == len(visited)
    for record, board in zip(records, visited, strict=True):
        assert record["hash"] == keys.hex(keys.hash_array(board))
        want = expected(board, keys, group)
        assert {k: record[k] for k in want} == want
        # The position field is the image of the position under transform.
        assert record["position"] == pack(image(board, NAMES.index(record["transform"]))).hex()


@settings(max_examples=150, deadline=None)
@given(positions(), st.sampled_from(ALL_SCHEMES), st.sampled_from(["full", "d4"]),
       st.integers(0, 15))
def test_images_have_equal_positions(
    drawn: tuple[int, list[Array]], name: str, group: str, g: int
) -> None:
    """Two positions are images of each other iff their position fields are equal."""
    size, boards = drawn
    if group == "d4":
        g &= 7
    keys = keys_for(name, size)
    original = [json.loads(line) for line in canon_records(boards, keys, group)]
    images = [image(b, g) for b in boards]
    mapped = [json.loads(line) for line in canon_records(images, keys, group)]
    assert [r["position"] for r in mapped] == [r["position"] for r in original]
    assert [r["key"] for r in mapped] == [r["key"] for r in original]
    visited = [np.zeros((size, size), np.int8), *boards]
    for a, ra in zip(visited, original, strict=True):
        for b, rb in zip(visited, original, strict=True):
            related = any(np.array_equal(image(a, i), b) for i in GROUPS[group])
            assert (ra["position"] == rb["position"]) == related


def test_csv_position_column_equals_jsonl() -> None:
    boards = [legal(np.eye(5, dtype=np.int8)), legal(2 * np.eye(5, dtype=np.int8)[::-1])]
    keys = scheme("huima64", 5)
    jsonl = [json.loads(line) for line in canon_records(boards, keys, "full")]
    rows = [line.split(",") for line in canon_records(boards, keys, "full", "csv")]
    assert [row[-1] for row in rows] == [r["position"] for r in jsonl]
    assert [row[-2].split() for row in rows] == [r["symmetries"] for r in jsonl]


# -- frames: scalar and batch twins -------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(positions(), st.sampled_from(ALL_SCHEMES), st.sampled_from(["full", "d4"]))
def test_canonical_frame_twins_equal_brute_force(
    drawn: tuple[int, list[Array]], name: str, group: str
) -> None:
    size, boards = drawn
    boards = [np.zeros((size, size), np.int8), *boards]
    keys = keys_for(name, size)
    batch = canonical_frames(np.stack(boards), keys, group)
    for i, board in enumerate(boards):
        key, frame, element = canonical_frame(board, keys, group)
        assert (batch[0][i], batch[1][i], batch[2][i]) == (key, frame, element.index)
        want = expected(board, keys, group)
        assert (keys.hex(key), frame.hex(), element.name) == (
            want["key"], want["position"], want["transform"]
        )


@settings(max_examples=100, deadline=None)
@given(positions(), st.sampled_from(["full", "d4"]))
def test_board_symmetries_are_exact(drawn: tuple[int, list[Array]], group: str) -> None:
    _, boards = drawn
    for board in boards:
        want = [NAMES[i] for i in GROUPS[group] if np.array_equal(image(board, i), board)]
        assert [g.name for g in Board.from_array(board).symmetries(group)] == want


def test_board_canonical_is_of_the_key_and_symmetries_of_the_stones() -> None:
    # The paper's scheme, under which the four side stars hash to 0.
    board = Board.from_array(e3_position(), "huima64")
    assert len(board.canonical()[1]) == 16  # from the hash, which is 0
    assert [g.name for g in board.symmetries()] == list(NAMES[:8])


# -- the documented encoding -----------------------------------------------------------------


def decode(position: str) -> list[list[int]]:
    """The decoding the documentation gives: rows of point codes, row 0 the bottom line."""
    data = bytes.fromhex(position)
    size, digits = data[0], int.from_bytes(data[1:], "big")
    points = [(digits >> 2 * (size * size - 1 - i)) & 3 for i in range(size * size)]
    return [points[row * size : (row + 1) * size] for row in range(size)]


def test_documented_decoding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.sgf"
    # B D4 (row 3, col 3), W C7 (row 6, col 2) on 9x9.
    path.write_bytes(b"(;SZ[9];B[df];W[cc])")
    assert main(["canon", "--position", str(path)]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records[0]["position"] == "09" + "00" * 21  # the empty 9x9 board
    last = records[-1]
    board = np.zeros((9, 9), np.int8)
    board[3, 3], board[6, 2] = 1, 2
    frame = np.array(decode(last["position"]), dtype=np.int8)
    assert np.array_equal(frame, image(board, NAMES.index(last["transform"])))
    assert Board.from_position_key(bytes.fromhex(last["position"])).to_array().tolist() == (
        frame.tolist()
    )
    assert list(records[0]) == [*CanonOptions(position=True).fields]
    assert CanonOptions(position=True).fields == (*CanonOptions().fields, "position")
