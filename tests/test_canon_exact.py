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
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards as sgfmill_boards
from sgfmill import sgf_properties

from gohash.cli import main
from gohash.go.board import Board
from gohash.group.schemes import SCHEMES, KeyScheme, scheme
from gohash.pipeline.frames import canonical_frame, canonical_frames
from gohash.pipeline.positions import read_positions as replay
from gohash.sgf.inputs import Source
from gohash.tools.canon import CanonOptions, records, write_records
from tests.test_index import weak_scheme

Array = npt.NDArray[np.integer]

# docs/design.md, section "The 16 elements", in table order: rotations
# counter-clockwise, then the same after a left-right mirror, then all eight again
# with the colours exchanged.
NAMES = (
    "identity", "rot90", "rot180", "rot270", "flip", "transpose", "flipud", "antitranspose",
    "swap", "rot90_swap", "rot180_swap", "rot270_swap", "flip_swap", "transpose_swap",
    "flipud_swap", "antitranspose_swap",
)
GROUPS = {"full": range(16), "d4": range(8)}
ALL_SCHEMES = (*SCHEMES, "weak8")


def image(board: Array, index: int) -> Array:
    """Element ``index`` applied to ``board[row, col]`` (row 0 the bottom line).

    With row 0 at the bottom, rot90 (x, y) -> (N-1-y, x) moves ``board[r, c]`` to
    ``[c, N-1-r]``: numpy's clockwise quarter turn of the array as stored.  flip
    (x, y) -> (N-1-x, y) reverses the columns.  The rotation comes first.
    """
    out = np.rot90(board, -(index & 3))
    if index & 4:
        out = np.flip(out, axis=1)
    if index & 8:
        out = np.choose(out, [0, 2, 1])
    return np.ascontiguousarray(out, dtype=board.dtype)


def pack(board: Array) -> bytes:
    """The size byte, then base-4 digits in row-major order, most significant first."""
    size = board.shape[0]
    value = int("".join(str(v) for v in board.ravel().tolist()), 4)
    return bytes([size]) + value.to_bytes((size * size + 3) // 4, "big")


def keys_for(name: str, size: int) -> KeyScheme:
    return weak_scheme(size) if name == "weak8" else scheme(name, size)


def expected(board: Array, keys: KeyScheme, group: str) -> dict[str, object]:
    """Key, symmetries, frame and transform of ``board`` by brute force: every image
    hashed from the key table, the frame the least packed image among the images
    hashing to the key."""
    indexes = GROUPS[group]
    images = {i: image(board, i) for i in indexes}
    hashes = {i: keys.hash_array(images[i]) for i in indexes}
    key = min(hashes.values())
    frame = min(pack(images[i]) for i in indexes if hashes[i] == key)
    return {
        "key": keys.hex(key),
        "symmetries": [NAMES[i] for i in indexes if np.array_equal(images[i], board)],
        "position": frame.hex(),
        "transform": NAMES[min(i for i in indexes if pack(images[i]) == frame)],
    }


def legal(board: Array) -> Array:
    """The position sgfmill's setup leaves: every group without liberties removed."""
    size = board.shape[0]
    if size < 2:
        return np.zeros_like(board)  # a lone stone has no liberty
    ref = sgfmill_boards.Board(size)
    black = [tuple(p) for p in np.argwhere(board == 1).tolist()]
    white = [tuple(p) for p in np.argwhere(board == 2).tolist()]
    ref.apply_setup(black, white, [])
    out = np.zeros_like(board)
    for colour, (row, col) in ref.list_occupied_points():
        out[row, col] = 1 if colour == "b" else 2
    return out


def symmetrised(board: Array, index: int) -> Array:
    """A position that element ``index`` maps onto itself, built from ``board``: along
    each orbit of the board map, colours follow by the element's colour map."""
    size = board.shape[0]
    # where[p] = the point (flat index) that the board map sends p to.
    moved = image(np.arange(size * size).reshape(size, size), index & 7).ravel()
    where = np.empty(size * size, dtype=np.intp)
    where[moved] = np.arange(size * size)
    out = np.full(size * size, -1, dtype=np.int8)
    flat = board.ravel()
    for start in range(size * size):
        if out[start] >= 0:
            continue
        orbit = [start]
        while (nxt := int(where[orbit[-1]])) != start:
            orbit.append(nxt)
        colour = int(flat[start])
        if index & 8 and len(orbit) % 2 and colour:
            colour = 0  # an odd orbit cannot alternate colours
        for point in orbit:
            out[point] = colour
            colour = (0, 2, 1)[colour] if index & 8 else colour
    return out.reshape(size, size)


def setup_sgf(size: int, positions: list[Array]) -> bytes:
    """One game: the empty root, then one setup node per position, each differing
    from the one before (AE for the stones of the previous position that are gone)."""
    nodes = [f"(;FF[4]SZ[{size}]"]
    before: Array = np.zeros((size, size), np.int8)
    for board in positions:
        node = ";"
        for prop, mask in (
            ("AB", board == 1), ("AW", board == 2), ("AE", (board == 0) & (before != 0))
        ):
            points = [tuple(p) for p in np.argwhere(mask).tolist()]
            if points:
                node += prop + "".join(
                    f"[{sgf_properties.serialise_go_point(p, size).decode()}]" for p in points
                )
        nodes.append(node)
        before = board
    return ("".join(nodes) + ")").encode()


def canon_records(
    positions: list[Array], keys: KeyScheme, group: str, fmt: str = "jsonl"
) -> list[str]:
    """Records of a game visiting ``positions`` after its empty root, formatted by
    canon from the columns of positions() with boards hashed by ``keys``, compiled
    and pure alike."""
    options = CanonOptions(group=group, position=True, format=fmt)
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


SIDE_STARS = [(3, 9), (9, 3), (9, 15), (15, 9)]


def e3_position() -> Array:
    board = np.zeros((19, 19), np.int8)
    for point in SIDE_STARS:
        board[point] = 1
    return board


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


@st.composite
def positions(draw: st.DrawFn) -> tuple[int, list[Array]]:
    """A board size and a few legal positions on it; many of them symmetric."""
    size = draw(st.sampled_from([1, 2, 3, 4, 5, 6, 7, 9, 19]))
    boards: list[Array] = []
    for _ in range(draw(st.integers(1, 5))):
        cells = draw(
            st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=size * size, max_size=size * size)
        )
        board: Array = np.array(cells, dtype=np.int8).reshape(size, size)
        which = draw(st.one_of(st.none(), st.integers(0, 15)))
        if which is not None:
            board = symmetrised(board, which)
        board = legal(board)
        if not np.array_equal(board, boards[-1] if boards else 0 * board):
            boards.append(board)  # a node that changes nothing is no setup: not visited
    return size, boards


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
