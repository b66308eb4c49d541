"""Handicap stones a record implies by ``HA`` without ``AB`` when White moves
first: the placements tried (a table written out by hand), the first one no
move of the main line lands on (GTP's unless the moves say otherwise), an error
where none fits, and the compiled path agreeing (it leaves such games to the
walker).
"""

from __future__ import annotations

import pytest

from gohash.errors import GohashError, HandicapPlacementError
from gohash.go.board import Board
from gohash.group.coords import gtp, parse_gtp
from gohash.pipeline.positions import CORE_AVAILABLE
from gohash.sgf.inputs import Source
from gohash.sgf.walk import BaseVisitor, GameInfo, PositionEvent, handicap_placements, walk_source
from tests.support.positions import assert_same_as_pure

# Each placement as GTP vertices, in the order tried (docs/reading-sgf.md).
TABLE_19 = {
    2: ["D4 Q16", "Q4 D16"],
    3: ["D4 Q16 D16", "D4 Q16 Q4", "D4 Q16 K10", "Q4 D16 Q16", "Q4 D16 D4", "Q4 D16 K10"],
    4: ["D4 Q16 D16 Q4"],
    5: ["D4 Q16 D16 Q4 K10"],
    6: ["D4 Q16 D16 Q4 D10 Q10", "D4 Q16 Q4 D16 K4 K16"],
    7: ["D4 Q16 D16 Q4 D10 Q10 K10", "D4 Q16 Q4 D16 K4 K16 K10"],
    8: ["D4 Q16 D16 Q4 D10 Q10 K4 K16"],
    9: ["D4 Q16 D16 Q4 D10 Q10 K4 K16 K10"],
}


@pytest.mark.parametrize("count", range(2, 10))
def test_the_placements_tried_on_19x19(count: int) -> None:
    placements = handicap_placements(19, count)
    assert [" ".join(gtp(p, 19) for p in stones) for _, stones in placements] == TABLE_19[count]
    assert placements[0][0] == "GTP fixed handicap"


def test_the_placements_tried_on_small_boards() -> None:
    # The third line below 12x12; 3 stones with the centre only where there is one.
    assert [" ".join(gtp(p, 9) for p in s) for _, s in handicap_placements(9, 3)] == [
        "C3 G7 C7", "C3 G7 G3", "C3 G7 E5", "G3 C7 G7", "G3 C7 C3", "G3 C7 E5"
    ]
    assert [" ".join(gtp(p, 8) for p in s) for _, s in handicap_placements(8, 3)] == [
        "C3 F6 C6", "C3 F6 F3", "F3 C6 F6", "F3 C6 C3"
    ]
    with pytest.raises(GohashError, match="no fixed handicap"):
        handicap_placements(19, 10)


class Record(BaseVisitor):
    def __init__(self) -> None:
        self.infos: list[GameInfo] = []
        self.first: list[set[tuple[str, str]]] = []
        self.errors: list[GohashError] = []
        self.moves = 0

    def begin_game(self, info: GameInfo) -> None:
        self.infos.append(info)

    def visit_position(self, event: PositionEvent) -> None:
        if event.move_number == 0:
            self.first.append(stones(event.board))
        self.moves = event.move_number

    def handle_error(self, error: GohashError) -> bool:
        self.errors.append(error)
        return True


def stones(board: Board) -> set[tuple[str, str]]:
    size = board.size
    return {
        (colour, gtp((r, c), size))
        for r in range(size) for c in range(size)
        if (colour := board.get((r, c))) is not None
    }


def sgf(handicap: int, moves: str, size: int = 19) -> bytes:
    """A record with ``HA`` and no ``AB``: ``moves`` as ``"W Q10, B R3"``."""
    nodes = ""
    for move in moves.split(", "):
        colour, vertex = move.split()
        row, col = parse_gtp(vertex, size)
        nodes += f";{colour}[{chr(97 + col)}{chr(97 + size - 1 - row)}]"
    return f"(;GM[1]FF[4]SZ[{size}]HA[{handicap}]KM[0.5]{nodes})".encode()


def replay(data: bytes) -> Record:
    record = Record()
    walk_source(Source("h.sgf", data), record)
    return record


def black(vertices: str) -> set[tuple[str, str]]:
    return {("b", v) for v in vertices.split()}


@pytest.mark.parametrize(("handicap", "moves", "placed", "conflict"), [
    # GTP's fits: placed as before, and said so.
    (6, "W R14, B R12, W K4", "D4 Q16 D16 Q4 D10 Q10", None),
    # White on GTP's Q10, as on Fox records: the sides above and below.
    (6, "W Q10, B O10, W K10", "D4 Q16 Q4 D16 K4 K16", "W Q10 at move 1"),
    (7, "W R14, B R12, W Q10", "D4 Q16 Q4 D16 K4 K16 K10", "W Q10 at move 3"),
    # 3 stones: the Japanese third stone lower right, or the classical Chinese centre.
    (3, "W D16, B F16", "D4 Q16 Q4", "W D16 at move 1"),
    (3, "W D16, B F16, W Q4", "D4 Q16 K10", "W D16 at move 1"),
    # 2 stones on the other diagonal.
    (2, "W D4, B R3", "Q4 D16", "W D4 at move 1"),
])
def test_the_placement_the_moves_fit(
    handicap: int, moves: str, placed: str, conflict: str | None
) -> None:
    record = replay(sgf(handicap, moves))
    assert record.errors == [] and record.first == [black(placed)]
    assert record.moves == len(moves.split(", "))
    (note,) = record.infos[0].notes
    assert note.startswith(f"HA[{handicap}] without AB: placed ") and placed in note
    if conflict is None:
        assert note == f"HA[{handicap}] without AB: placed GTP fixed handicap {placed}"
    else:
        assert note.endswith(f"(GTP fixed handicap has a stone under {conflict})")


def test_a_captured_stone_is_no_conflict() -> None:
    # White captures GTP's C3 on 9x9, then plays on its point: GTP's fits.
    record = replay(sgf(2, "W C4, B J9, W D3, B J8, W B3, B J7, W C2, B J6, W C3", 9))
    assert record.errors == [] and record.first == [black("C3 G7")]
    assert record.infos[0].notes == ["HA[2] without AB: placed GTP fixed handicap C3 G7"]


def test_a_game_no_placement_fits_is_an_error() -> None:
    record = replay(sgf(4, "W D4, B R3, W Q16") + sgf(2, "W R3"))
    (error,) = record.errors
    assert isinstance(error, HandicapPlacementError)
    assert (error.file, error.game, error.move_number) == ("h.sgf", 0, 0)
    assert error.reason == (
        "handicap placement unknown: HA[4] without AB, and every known placement (1 tried) "
        "has a stone under a move of the main line (GTP fixed handicap: W D4 at move 1)"
    )
    # The game is not replayed; the next one is.
    assert len(record.infos) == 1 and record.first == [black("D4 Q16")]


def test_variations_are_no_evidence() -> None:
    # Only the main line decides: a variation on a handicap stone is its own error.
    data = b"(;SZ[19]HA[2];W[qf](;B[qh])(;B[dp]))"
    record = replay(data)
    assert record.first == [black("D4 Q16")] and record.errors == []
    variations = Record()
    walk_source(Source("h.sgf", data), variations, variations=True)
    (error,) = variations.errors
    assert "is occupied" in error.reason and error.move_number == 2


@pytest.mark.skipif(not CORE_AVAILABLE, reason="the compiled core is not built")
def test_compiled_equals_pure() -> None:
    data = b"".join([
        sgf(6, "W Q10, B O10, W K10"), sgf(3, "W D16, B F16, W Q4"), sgf(4, "W D4, B R3"),
        sgf(2, "W R14, B R12"),
    ])
    flat = assert_same_as_pure([Source("h.sgf", data)], variations=True)
    assert len(flat["errors"]) == 1 and len(flat["notes"]) == 3
