"""The JSON of ``gohash serve``'s answers that are not a library result's own:
the board of a position, and a game's pages and steps as the page shows them.

Scope: boards as rows of ``.XO`` (the top row first), points as SGF letters, a
game seen through a symmetry element; the forms are in docs/schemas.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from starlette.responses import JSONResponse

from ..errors import BadRequest
from ..group.coords import sgf_letters
from ..group.symmetry import Element, Point
from ..index.movelist import Replay, edit_steps
from ..index.results import GameRecord, stone_rows

__all__ = ["board_json", "json_bytes", "steps_json"]

def _letters(point: Point | None, size: int) -> str | None:
    return None if point is None else sgf_letters(point, size)


def board_json(replayed: Replay, size: int, moves: str) -> dict[str, Any]:
    """The board after the move list ``moves`` (its shortest form), ``replayed``."""
    board = replayed.board
    return {
        "size": size,
        "moves": moves,
        "to_move": board.to_move,
        "move_number": board.move_number,
        "stones": stone_rows(board.stones(), size),
        "last": _letters(replayed.last_play, size),
        "ko": _letters(board.ko_point, size),
        "captured": replayed.captured,
    }


def json_bytes(answer: dict[str, Any]) -> bytes:
    """An answer as the server's JSON responses render it."""
    return bytes(JSONResponse(answer).body)


def steps_json(game: GameRecord, view: Element, at: int, max_steps: int) -> dict[str, Any]:
    """The move list to position ``at`` of the game seen through ``view``: its moves,
    and edit steps for its setup; refused when longer than ``max_steps`` (the
    explorer takes :data:`~gohash.index.movelist.MAX_STEPS`)."""
    size = game.record.size
    steps: list[str] = []
    previous: npt.NDArray[np.integer[Any]] = np.zeros((size, size), dtype=np.int8)
    for position in game.positions[: at + 1]:
        stones = view.image_array(position.stones)
        if position.colour is not None and not position.setup:
            point = None if position.point is None else view.map_point(position.point, size)
            colour = view.map_colour(position.colour)
            steps.append(colour + ("pass" if point is None else sgf_letters(point, size)))
        elif not np.array_equal(stones, previous):
            steps += edit_steps(previous, stones, size)
        if len(steps) > max_steps:
            raise BadRequest(
                f"position {at} of game {game.record.id} takes more than {max_steps} steps; "
                "the explorer takes at most that many"
            )
        previous = stones
    return {"game_id": game.record.id, "size": size, "view": view.name, "at": at, "steps": steps}

