"""The suicide rulesets' sample records and sgfmill's replay of them, the
reference of the rules tests."""

from __future__ import annotations

from pathlib import Path

from sgfmill import boards, sgf

from gohash.errors import GohashError
from gohash.sgf.walk import BaseVisitor, GameInfo, PositionEvent
from tests.support.env import ROOT

DATA = ROOT / "data" / "sgf"
Point = tuple[int, int]


NZ = DATA / "rules" / "new-zealand-suicide.sgf"


TT = DATA / "rules" / "tromp-taylor-suicide.sgf"


# Moves of each record, and the move that is a suicide.
MOVES = {NZ: 15, TT: 11}


SUICIDE = {NZ: 9, TT: 6}


class Positions(BaseVisitor):
    """Keeps every position's stones, the games' info and the errors."""

    def __init__(self) -> None:
        self.games: list[GameInfo] = []
        self.positions: list[tuple[int, dict[Point, str]]] = []
        self.errors: list[GohashError] = []

    def begin_game(self, info: GameInfo) -> None:
        self.games.append(info)

    def visit_position(self, event: PositionEvent) -> None:
        board = event.board
        stones = {}
        for row in range(board.size):
            for col in range(board.size):
                colour = board.get((row, col))
                if colour is not None:
                    stones[row, col] = colour
        self.positions.append((event.move_number, stones))

    def handle_error(self, error: GohashError) -> bool:
        self.errors.append(error)
        return False


def sgfmill_positions(path: Path) -> list[dict[Point, str]]:
    """Every position of a record of plain moves, replayed on sgfmill's board."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    board = boards.Board(game.get_size())
    positions: list[dict[Point, str]] = [{}]
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if point is not None:
            board.play(point[0], point[1], colour)
        positions.append({p: c for c, p in board.list_occupied_points()})
    return positions


