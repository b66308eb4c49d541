"""read_positions()' exact columns and options: ``symmetries``, ``transform`` and the frames
against the brute force of tests/tools/test_canon_exact.py (np.rot90/np.flip images,
not :mod:`gohash.group.symmetry`), compiled and pure alike; suicide by each game's RU
or for every game, against sgfmill's board; the walker's note for an RU it does
not know, on the compiled path too; and key schemes given as factories."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards as sgfmill_boards
from sgfmill import sgf

from gohash.go.board import Board
from gohash.group.schemes import SCHEMES, KeyScheme, scheme
from gohash.pipeline.frames import NamedSchemes, SchemeFactory
from gohash.pipeline.positions import PositionBatch, read_positions
from gohash.sgf.inputs import Source
from gohash.sgf.walk import walk_paths
from tests.support.exact import (
    NAMES,
    Array,
    e3_position,
    expected,
    image,
    pack,
    setup_sgf,
)
from tests.support.exact import positions as drawn_positions
from tests.support.indexes import weak_scheme
from tests.support.positions import DATA_FILES, assert_same_as_pure
from tests.support.rules import MOVES, NZ, SUICIDE, TT, Positions, sgfmill_positions

ALL_SCHEMES = (*SCHEMES, "weak8")


def factory_or_name(name: str) -> str | SchemeFactory:
    return weak_scheme if name == "weak8" else name


def keys_for(name: str, size: int) -> KeyScheme:
    return weak_scheme(size) if name == "weak8" else scheme(name, size)


def mask(names: object) -> int:
    assert isinstance(names, list)
    return sum(1 << NAMES.index(name) for name in names)


def assert_rows_are_brute_force(batch: PositionBatch, boards: list[Array], name: str,
                                rows: list[int] | None = None) -> None:
    """Row ``i`` of ``rows`` (every row by default) holds ``boards[i]``: its key,
    symmetries, transform and frame are the brute force's."""
    rows = list(range(len(batch))) if rows is None else rows
    assert len(rows) == len(boards)
    for row, board in zip(rows, boards, strict=True):
        keys = keys_for(name, board.shape[0])
        want = expected(board, keys, batch.group)
        assert batch.packed(row) == pack(board)
        assert keys.hex(keys.to_ints(batch.canonical[row : row + 1])[0]) == want["key"]
        assert int(batch.symmetries[row]) == mask(want["symmetries"]), row
        assert NAMES[batch.transform[row]] == want["transform"], row
        assert batch.frame(row).hex() == want["position"]
        assert batch.frame(row) == pack(image(board, int(batch.transform[row])))


@settings(max_examples=200, deadline=None)
@given(drawn_positions(), st.sampled_from(ALL_SCHEMES), st.sampled_from(["full", "d4"]))
def test_exact_columns_equal_brute_force(
    drawn: tuple[int, list[Array]], name: str, group: str
) -> None:
    """Positions many of them symmetric (and under weak8 keys fixed by some T_g all the
    time), set up in one game: the core replays it, the walker too, and both are exact."""
    size, boards = drawn
    source = Source("game.sgf", setup_sgf(size, boards))
    options = {"scheme": factory_or_name(name), "symmetry": group, "packed": True, "frames": True}
    assert_same_as_pure([source], **options)
    for pure in (False, True):
        (batch,) = read_positions([source], pure=pure, **options)
        assert batch.errors == [] and batch.pure_files == int(pure)
        assert_rows_are_brute_force(batch, [np.zeros((size, size), np.int8), *boards], name)


@pytest.mark.parametrize("name", ALL_SCHEMES)
@pytest.mark.parametrize("group", ["full", "d4"])
def test_e3_position_gets_exactly_its_symmetries(name: str, group: str) -> None:
    """Its hash is 0 under huima64, fixed by every T_g: the key would say 16 symmetries."""
    source = Source("e3.sgf", b"(;SZ[19]AB[dj][pj][jd][jp])")
    (batch,) = read_positions([source], scheme=factory_or_name(name), symmetry=group, packed=True,
                         frames=True)
    assert batch.pure_files == 0
    assert batch.symmetries.tolist() == [0xFF]
    assert_rows_are_brute_force(batch, [e3_position()], name)


@pytest.mark.parametrize("group", ["full", "d4"])
def test_data_files_of_every_size_in_one_batch(group: str) -> None:
    """Sizes 5, 9, 13 and 19 in one batch (each size's own scheme and frame width),
    variations, setup and symmetric positions: every row against the brute force."""
    (batch,) = read_positions(DATA_FILES, scheme="huima64", symmetry=group, variations=True,
                              packed=True, frames=True)
    assert len(np.unique(batch.size)) >= 4 and np.count_nonzero(batch.symmetries != 1) >= 20
    boards = [Board.from_position_key(batch.packed(i)).to_array() for i in range(len(batch))]
    assert_rows_are_brute_force(batch, boards, "huima64")
    assert batch.frame_offsets is not None and batch.frame_offsets[-1] == len(batch.frame_data)


def test_symmetries_stay_within_the_group() -> None:
    (full,) = read_positions(DATA_FILES)
    (d4,) = read_positions(DATA_FILES, symmetry="d4")
    assert np.array_equal(d4.symmetries, full.symmetries & 0xFF)
    assert int(full.symmetries.max()) == 0xFFFF and int(d4.symmetries.max()) == 0xFF
    assert np.all(full.symmetries & 1)


def test_frames_only_on_request() -> None:
    (batch,) = read_positions(DATA_FILES[:1])
    assert batch.frame_offsets is None and batch.frame_data is None
    with pytest.raises(ValueError, match="frames were not requested"):
        batch.frame(0)


# -- suicide -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [NZ, TT])
def test_suicide_as_ru_says(path: Path) -> None:
    """The records' RU allows suicide: replayed to the end (by the walker: the core
    leaves any suicide to it), each position sgfmill's."""
    flat = assert_same_as_pure([str(path)], packed=True)
    assert flat["errors"] == [] and len(flat["hash"]) == MOVES[path] + 1
    stones = [
        {(int(r), int(c)): "b" if cells[r, c] == 1 else "w" for r, c in zip(*cells.nonzero(),
                                                                           strict=True)}
        for cells in (Board.from_position_key(p).to_array() for p in flat["packed"])
    ]
    assert stones == sgfmill_positions(path)


@pytest.mark.parametrize("path", [NZ, TT])
def test_suicide_forbidden_for_every_game(path: Path) -> None:
    flat = assert_same_as_pure([str(path)], suicide_allowed=False)
    ((kind, message, file, game, move),) = flat["errors"]
    assert (kind, file, game, move) == ("SuicideError", str(path), 0, SUICIDE[path])
    assert "suicide" in message and flat["move_number"].tolist()[-1] == SUICIDE[path] - 1
    visitor = Positions()
    walk_paths([str(path)], visitor, board_options={"suicide_allowed": False})
    assert [str(e) for e in visitor.errors] == [message]


def test_suicide_allowed_for_every_game() -> None:
    data = NZ.read_bytes().replace(b"RU[NZ]", b"RU[Japanese]")
    source = Source("japanese.sgf", data)
    assert [e[4] for e in assert_same_as_pure([source])["errors"]] == [SUICIDE[NZ]]
    flat = assert_same_as_pure([source], suicide_allowed=True)
    assert flat["errors"] == [] and len(flat["hash"]) == MOVES[NZ] + 1


def test_suicide_rule_leaves_clean_games_to_the_core() -> None:
    """Without a suicide the rule changes nothing: the core replays either way."""
    path = Path(DATA_FILES[0]).parent / "game-9x9.sgf"
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    reference = sgfmill_boards.Board(9)
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if point is not None:
            reference.play(point[0], point[1], colour)
    for rule in (None, False, True):
        (batch,) = read_positions([str(path)], suicide_allowed=rule, packed=True)
        assert batch.pure_files == 0 and batch.errors == []
        last = Board.from_position_key(batch.packed(len(batch) - 1)).to_array()
        assert sorted(zip(*last.nonzero(), strict=True)) == sorted(
            p for _, p in reference.list_occupied_points()
        )


# -- RU the walker does not know ---------------------------------------------------------------


def test_unknown_ru_is_noted_on_the_compiled_path_too() -> None:
    """The core used to replay the game without the walker's note."""
    source = Source("lunar.sgf", b"(;SZ[9]RU[Lunar];B[aa];W[bb])")
    flat = assert_same_as_pure([source])
    assert flat["notes"] == [
        "lunar.sgf, game 0: RU[Lunar] is not a ruleset gohash knows: the default, chinese, "
        "applies"
    ]
    (batch,) = read_positions([source])
    assert batch.pure_files == 1
    (batch,) = read_positions([Source("nz.sgf", b"(;SZ[9]RU[NZ];B[aa];W[bb])")])
    assert batch.pure_files == 0 and batch.notes == []


# -- schemes as factories ----------------------------------------------------------------------


def test_a_factory_of_a_named_scheme_is_that_scheme() -> None:
    (named,) = read_positions(DATA_FILES, scheme="regular128", variations=True, frames=True)
    for pure in (False, True):
        (made,) = read_positions(DATA_FILES, scheme=NamedSchemes("regular128"), variations=True,
                            frames=True, pure=pure)
        assert made.scheme == "regular128"
        for column, values in named.columns().items():
            assert np.array_equal(made.columns()[column], values), column
        assert np.array_equal(made.frame_data, named.frame_data)


def test_a_factory_hashes_as_its_key_tables_say() -> None:
    """weak8's masked tables: the core's hash and the walker's (made from the exact
    positions, as its boards hash with named schemes only) are the tables' hash."""
    flat = assert_same_as_pure(DATA_FILES, scheme=weak_scheme, variations=True, packed=True)
    sizes = flat["size"].tolist()
    for i, packed in enumerate(flat["packed"]):
        board = Board.from_position_key(packed).to_array()
        keys = weak_scheme(sizes[i])
        want = 0
        for code, table in ((1, keys.black_keys), (2, keys.white_keys)):
            for point in np.flatnonzero(board.ravel() == code).tolist():
                want ^= table[point]
        assert int(flat["hash"][i]) == want
