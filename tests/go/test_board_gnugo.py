"""Differential test of gohash.go.board against GNU Go's board.

Random games (the strategy of tests/support/boards.py: plays confined to a
small area, so captures, kos and suicides are frequent) are played on gohash's
Board and sent to GNU Go (Chinese rules: suicide forbidden).  After every
play, pass and undo both boards hold the same stones; every move gohash
refuses as ko or suicide, GNU Go refuses too.  GNU Go also enforces positional
superko, so it may refuse a move gohash (simple ko only) accepts: that is
allowed only when the move repeats a position older than a simple ko would.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import event, given, settings

from gohash.errors import IllegalMoveError
from gohash.go.board import Board
from tests.support.boards import Game, Point, games
from tests.support.gtp import GnuGo, point_of, require_gnugo


@pytest.fixture(scope="module")
def engine() -> Iterator[GnuGo]:
    with GnuGo(require_gnugo(), "positional") as gnugo:
        yield gnugo


def gnugo_stones(engine: GnuGo) -> dict[Point, str]:
    stones: dict[Point, str] = {}
    for colour in ("b", "w"):
        for vertex in engine.command(f"list_stones {colour}").split():
            point = point_of(vertex)
            assert point is not None
            stones[point] = colour
    return stones


def our_stones(board: Board) -> dict[Point, str]:
    array = board.to_array()
    return {
        (int(row), int(col)): "bw"[array[row, col] - 1]
        for row, col in zip(*array.nonzero(), strict=True)
    }


@settings(max_examples=300, deadline=None)
@given(game=games(1, 19))
def test_random_games_agree_with_gnugo(engine: GnuGo, game: Game) -> None:
    engine.new_game(game.size)
    board = Board(game.size)
    history = [board.position_key()]
    for step in game.steps:
        colour = board.to_move  # GNU Go's ko rule assumes alternating play
        if step.kind == "pass":
            board.pass_(colour)
            assert engine.play(colour, None)
            history.append(board.position_key())
        elif step.kind == "undo" and board.move_number:
            board.undo()
            engine.undo()
            history.pop()
        elif step.kind == "play":
            for point in game.candidates(board, step.choice, colour):
                try:
                    removed = board.play(point, colour)
                except IllegalMoveError as error:
                    event(type(error).__name__)
                    assert not engine.play(colour, point), str(error)
                    continue
                if not engine.play(colour, point):
                    # Only a longer cycle: recreating history[-2] would be a simple ko,
                    # which gohash must refuse itself.
                    event("superko")
                    assert board.position_key() in history[:-2]
                    return
                history.append(board.position_key())
                if removed:
                    event("capture")
                if board.ko_point is not None:
                    event("ko")
                break
        assert our_stones(board) == gnugo_stones(engine)
