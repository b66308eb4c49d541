"""Hand-written rules cases for gohash.go.board, written as ASCII diagrams.

Each case sets up a position with ``Board.from_diagram``, plays, and compares
the result with the diagram it should give.  The random differential and hash
properties are in test_board_properties.py.
"""

from __future__ import annotations

import contextlib
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from gohash.errors import (
    BoardSizeError,
    ColourError,
    GohashError,
    IllegalMoveError,
    KoError,
    OccupiedPointError,
    OffBoardError,
    PositionError,
    SuicideError,
)
from gohash.go.board import Board
from gohash.group.coords import gtp, parse_gtp


def board(diagram: str, **options: bool) -> Board:
    return Board.from_diagram(diagram, **options)  # type: ignore[arg-type]


def play(b: Board, vertex: str, colour: str) -> list[str]:
    """Play at a GTP vertex; return the removed stones as sorted GTP vertices."""
    point = parse_gtp(vertex, b.size)
    assert point is not None
    return sorted(gtp(p, b.size) for p in b.play(point, colour))


def same(b: Board, diagram: str) -> None:
    assert b.position_key() == Board.from_diagram(diagram).position_key(), f"\n{b}"


def test_str_prints_gtp_coordinates_and_parses_back() -> None:
    b = Board(9)
    b.play((0, 0), "b")
    b.play((8, 8), "w")
    b.play((4, 7), "b")
    assert str(b) == (
        "9 . . . . . . . . O\n"
        "8 . . . . . . . . .\n"
        "7 . . . . . . . . .\n"
        "6 . . . . . . . . .\n"
        "5 . . . . . . . X .\n"
        "4 . . . . . . . . .\n"
        "3 . . . . . . . . .\n"
        "2 . . . . . . . . .\n"
        "1 X . . . . . . . .\n"
        "  A B C D E F G H J"
    )
    assert Board.from_diagram(str(b)).position_key() == b.position_key()


@pytest.mark.parametrize("size", range(1, 27))
def test_diagram_round_trip_every_size(size: int) -> None:
    b = Board(size)
    for i in range(0, size * size, 3):
        point = (i // size, i % size)
        if b.get(point) is None:
            with contextlib.suppress(SuicideError):
                b.play(point, "b" if i % 2 else "w")
    again = Board.from_diagram(str(b))
    assert again.position_key() == b.position_key()
    assert str(again) == str(b)


def test_diagram_without_labels_and_other_symbols() -> None:
    b = Board.from_diagram("#o+\nxO.\n...")
    assert b.get((2, 0)) == "b" and b.get((2, 1)) == "w" and b.get((2, 2)) is None
    assert b.get((1, 0)) == "b" and b.get((1, 1)) == "w"


@pytest.mark.parametrize(
    ("diagram", "reason"),
    [
        (". . .\n. Z .\n. . .", "'Z'"),
        (". . .\n. . .", "2 rows but a row of 3"),
        ("3 . . .\n1 . . .\n2 . . .", "row numbers"),
        ("X O\nO X", "no liberties"),
        ("", "0 rows"),
    ],
)
def test_bad_diagrams_are_refused(diagram: str, reason: str) -> None:
    with pytest.raises(PositionError, match=reason):
        Board.from_diagram(diagram)


def test_capture_of_one_stone_and_undo() -> None:
    b = board(
        """
        . X .
        X O .
        . X .
        """
    )
    assert play(b, "C2", "b") == ["B2"]
    same(b, ". X .\nX . X\n. X .")
    b.undo()
    same(b, ". X .\nX O .\n. X .")


def test_multi_group_capture() -> None:
    b = board(
        """
        X X O . .
        O . O . .
        O X O . .
        . O . . .
        . . . . .
        """
    )
    assert play(b, "B4", "w") == ["A5", "B3", "B5"]
    same(b, ". . O . .\nO O O . .\nO . O . .\n. O . . .\n. . . . .")
    b = board(
        """
        . . O . .
        . O X O .
        O X . X O
        . O X O .
        . . O . .
        """
    )
    assert play(b, "C3", "w") == ["B3", "C2", "C4", "D3"]
    same(b, ". . O . .\n. O . O .\nO . O . O\n. O . O .\n. . O . .")
    assert b.ko_point is None


def test_snapback_is_not_a_ko() -> None:
    b = board(
        """
        . . . . .
        . . . . .
        X X . . .
        O O X . .
        . . X . .
        """
    )
    assert play(b, "A1", "b") == []  # the throw-in
    assert play(b, "B1", "w") == ["A1"]
    assert b.ko_point is None
    assert play(b, "A1", "b") == ["A2", "B1", "B2"]
    same(b, ". . . . .\n. . . . .\nX X . . .\n. . X . .\nX . X . .")


def test_ko_recapture_is_refused_until_a_move_elsewhere() -> None:
    b = board(
        """
        . . . . .
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        """
    )
    assert play(b, "C3", "b") == ["B3"]
    assert b.ko_point == (2, 1)
    with pytest.raises(KoError) as raised:
        play(b, "B3", "w")
    error = raised.value
    assert (error.point, error.colour, error.move_number) == ((2, 1), "w", 2)
    assert "'B3'" in str(error) and "ko" in str(error)
    same(b, ". . . . .\n. X O . .\nX . X O .\n. X O . .\n. . . . .")
    play(b, "E5", "w")
    play(b, "E1", "b")
    assert play(b, "B3", "w") == ["C3"]
    assert b.ko_point == (2, 2)


def test_ko_point_binds_only_the_opponent_and_lapses_after_a_pass() -> None:
    b = board(". X O .\nX O . O\n. X O .\n. . . .")
    assert play(b, "C3", "b") == ["B3"]
    b.pass_("w")
    assert b.ko_point is None
    assert play(b, "B3", "w") == ["C3"]
    b.undo()
    b.undo()
    assert b.ko_point == (2, 1)
    # The capturer may fill the ko point himself (two moves in a row, as some SGF files have).
    assert play(b, "B3", "b") == []


def test_simple_ko_off_allows_the_immediate_recapture() -> None:
    b = board(". X O .\nX O . O\n. X O .\n. . . .", simple_ko=False)
    play(b, "C3", "b")
    assert b.ko_point == (2, 1)
    assert play(b, "B3", "w") == ["C3"]


def test_non_ko_recapture_of_one_stone() -> None:
    b = board(
        """
        . . . .
        . . . .
        O X X .
        X . O X
        """
    )
    # B1 takes one stone, but joins C1: the recapture takes two stones, so it is no ko.
    assert play(b, "B1", "w") == ["A1"]
    assert b.ko_point is None
    assert play(b, "A1", "b") == ["B1", "C1"]


def test_suicide_forbidden_leaves_board_and_hash_unchanged() -> None:
    b = board(". O . .\nO . . .\n. . . .\n. . . .")
    b.play((2, 3), "b")
    before = (b.position_key(), b.hash, b.move_number, b.to_move)
    with pytest.raises(SuicideError) as raised:
        play(b, "A4", "b")
    assert raised.value.point == (3, 0) and raised.value.colour == "b"
    assert raised.value.move_number == 2
    assert (b.position_key(), b.hash, b.move_number, b.to_move) == before


def test_suicide_allowed_removes_the_whole_group() -> None:
    b = board(
        """
        X . O . .
        X X O . .
        O O O . .
        . . . . .
        . . . . .
        """,
        suicide_allowed=True,
    )
    assert play(b, "B5", "b") == ["A4", "A5", "B4", "B5"]
    assert b.get((4, 1)) is None
    same(b, ". . O . .\n. . O . .\nO O O . .\n. . . . .\n. . . . .")
    assert b.hash == b.scheme.hash_array(b.to_array())
    b.undo()
    same(b, "X . O . .\nX X O . .\nO O O . .\n. . . . .\n. . . . .")


def test_a_capture_is_not_suicide() -> None:
    b = board(". O X\nO X .\n. . .")
    assert play(b, "A3", "b") == ["B3"]
    assert b.get((2, 0)) == "b"


def test_size_one_board() -> None:
    b = Board(1)
    with pytest.raises(SuicideError):
        b.play((0, 0), "b")
    b = Board(1, suicide_allowed=True)
    assert b.play((0, 0), "w") == [(0, 0)]
    assert b.get((0, 0)) is None and b.to_move == "b" and b.move_number == 1


def test_undo_across_captures_restores_every_position() -> None:
    b = Board(5)
    # A random game with four captures, one of them of two stones.
    moves = ["D3", "D1", "E3", "B5", "E2", "A3", "D2", "E1", "C1", "B4", "E5", "C5", "D1", "D4",
             "B2", "C2", "A5", "D5", "C4", "B3", "A1", "A4", "C3", "E4", "A2", "E5", "C2"]
    captures = 0
    seen = []
    for i, vertex in enumerate(moves):
        seen.append((b.position_key(), b.hash, b.ko_point, b.to_move, b.move_number))
        captures += bool(play(b, vertex, "bw"[i % 2]))
    assert b.move_number == len(moves) and captures == 4
    while seen:
        b.undo()
        assert (b.position_key(), b.hash, b.ko_point, b.to_move, b.move_number) == seen.pop()
    assert b.hash == 0 and not b.to_array().any()
    with pytest.raises(IndexError):
        b.undo()


def test_setup_removes_groups_without_liberties_and_undoes() -> None:
    b = Board(5)
    b.play((2, 2), "b")
    removed = b.setup(black=[(0, 0)], white=[(0, 1), (1, 0), (2, 2)], empty=[(4, 4)])
    assert removed == [(0, 0)]
    assert not b.last_setup_legal
    assert b.to_move == "w" and b.move_number == 1
    assert b.get((2, 2)) == "w"
    assert b.hash == b.scheme.hash_array(b.to_array())
    assert b.setup(empty=[(2, 2)]) == [] and b.last_setup_legal
    b.undo()
    assert not b.last_setup_legal
    b.undo()
    assert b.last_setup_legal
    same(b, ". . . . .\n. . . . .\n. . X . .\n. . . . .\n. . . . .")


def test_setup_off_board_names_the_point() -> None:
    b = Board(9)
    with pytest.raises(OffBoardError, match=r"setup of white stone at \(9, 0\)"):
        b.setup(black=[(1, 1)], white=[(9, 0)])
    assert not b.to_array().any()


@pytest.mark.parametrize("size", [0, 27, -1, "19", 19.0, True, None])
def test_bad_sizes(size: object) -> None:
    with pytest.raises(BoardSizeError, match=repr(size).replace("(", r"\(")):
        Board(size)  # type: ignore[arg-type]


@pytest.mark.parametrize("point", [(9, 0), (0, 9), (-1, 3), (3,), "D4", [3, 3], None, (1, 2, 3)])
def test_off_board_points(point: object) -> None:
    b = Board(9)
    with pytest.raises(OffBoardError) as raised:
        b.play(point, "b")  # type: ignore[arg-type]
    assert raised.value.point == point and raised.value.colour == "b"
    assert raised.value.move_number == 1
    assert repr(point) in str(raised.value) and "9x9" in str(raised.value)
    with pytest.raises(OffBoardError):
        b.get(point)  # type: ignore[arg-type]


@pytest.mark.parametrize("colour", ["B", "black", "", None, 1])
def test_bad_colours(colour: object) -> None:
    b = Board(9)
    with pytest.raises(ColourError, match=repr(colour)):
        b.play((3, 3), colour)  # type: ignore[arg-type]
    with pytest.raises(ColourError):
        b.pass_(colour)  # type: ignore[arg-type]
    assert b.move_number == 0


def test_occupied_point_error_quotes_the_vertex() -> None:
    b = Board(19)
    b.play((3, 15), "b")
    with pytest.raises(OccupiedPointError) as raised:
        b.play((3, 15), "w")
    message = str(raised.value)
    assert message == "move 2: white at 'Q4' is occupied"
    assert isinstance(raised.value, IllegalMoveError)
    assert isinstance(raised.value, GohashError) and isinstance(raised.value, ValueError)
    located = raised.value.located(file="game.sgf", game=0)
    assert str(located) == "game.sgf, game 0, move 2: white at 'Q4' is occupied"


def test_position_key_is_exact_and_compact() -> None:
    b = Board(19)
    assert len(b.position_key()) == 1 + 91
    assert Board(9).position_key() != Board(3).position_key()
    b.play((0, 0), "b")
    other = Board(19)
    other.play((0, 0), "w")
    assert b.position_key() != other.position_key()
    other.undo()
    other.play((0, 0), "b")
    assert b.position_key() == other.position_key()
    corners = Board.from_diagram(". O\nX .")
    # Pinned layout (the index and the audit pack arrays the same way): size byte, then
    # the points in index order as base-4 digits, most significant first: 1,0,0,2 -> 0x42.
    assert corners.position_key() == b"\x02\x42"
    again = Board.from_position_key(b.position_key())
    assert again.position_key() == b.position_key() and again.hash == b.hash
    with pytest.raises(PositionError, match="length"):
        Board.from_position_key(b.position_key()[:-1])


def test_array_and_sgfmill_conversions() -> None:
    b = board(". X O\nX O .\n. . .")
    array = b.to_array()
    assert array.dtype == np.int8
    assert array.tolist() == [[0, 0, 0], [1, 2, 0], [0, 1, 2]]
    assert Board.from_array(array).position_key() == b.position_key()
    assert Board.from_array(array.astype(np.int64), to_move="w").to_move == "w"
    with pytest.raises(ColourError, match="'x'") as raised:
        Board.from_array(array, to_move="x")
    assert raised.value.move_number is None
    mill = b.to_sgfmill()
    assert mill.get(2, 1) == "b" and mill.get(2, 2) == "w" and mill.get(0, 0) is None
    assert Board.from_sgfmill(mill).position_key() == b.position_key()
    with pytest.raises(BoardSizeError):
        Board(1).to_sgfmill()


@pytest.mark.parametrize(
    ("array", "reason"),
    [
        (np.zeros((3, 4), dtype=np.int8), "shape"),
        (np.zeros((3, 3), dtype=float), "dtype"),
        (np.full((3, 3), 3), "holds 3"),
        (np.ones((3, 3), dtype=np.int8), "no liberties"),
        (np.zeros((27, 27), dtype=np.int8), "27"),
    ],
)
def test_bad_arrays(array: np.ndarray, reason: str) -> None:
    with pytest.raises(GohashError, match=reason):
        Board.from_array(array)


def test_copy_is_independent_and_keeps_history() -> None:
    b = Board(9)
    b.play((4, 4), "b")
    c = b.copy()
    c.play((4, 5), "w")
    assert b.get((4, 5)) is None and b.move_number == 1
    c.undo()
    c.undo()
    assert c.move_number == 0 and b.get((4, 4)) == "b"


def test_svg_is_well_formed_and_draws_every_stone() -> None:
    b = Board(9)
    for vertex in ["E5", "C3", "G7"]:
        play(b, vertex, "b" if vertex != "C3" else "w")
    svg = ET.fromstring(b._repr_svg_())
    circles = svg.findall("{http://www.w3.org/2000/svg}circle")
    stones = [c for c in circles if c.get("r") == "11"]
    assert len(stones) == 3
    assert {c.get("fill") for c in stones} == {"url(#gohash-black)", "url(#gohash-white)"}
    assert any(c.get("fill") == "none" for c in circles)  # the last-move mark
