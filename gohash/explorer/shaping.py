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
from ..group.symmetry import Element, Point
from ..index.movelist import MAX_STEPS, Replay, edit_steps, point_letters
from ..index.queries import GameRecord

__all__ = ["board_json", "game_json", "json_bytes", "steps_json"]

_CELLS = bytes.maketrans(b"\x00\x01\x02", b".XO")


def _letters(point: Point | None, size: int) -> str | None:
    return None if point is None else point_letters(point, size)


def _rows(cells: bytes, size: int) -> list[str]:
    """Rows of ``.XO``, the top row first, from cells (0 empty, 1 black, 2 white) in
    index order (row 0 at the bottom)."""
    text = cells.translate(_CELLS).decode("ascii")
    return [text[row * size : (row + 1) * size] for row in range(size - 1, -1, -1)]


def board_json(replayed: Replay, size: int, moves: str) -> dict[str, Any]:
    """The board after the move list ``moves`` (its shortest form), ``replayed``."""
    board = replayed.board
    return {
        "size": size,
        "moves": moves,
        "to_move": board.to_move,
        "move_number": board.move_number,
        "stones": _rows(board.stones(), size),
        "last": _letters(replayed.last_play, size),
        "ko": _letters(board.ko_point, size),
        "captured": replayed.captured,
    }


def json_bytes(answer: dict[str, Any]) -> bytes:
    """An answer as the server's JSON responses render it."""
    return bytes(JSONResponse(answer).body)


def game_json(game: GameRecord, view: Element, start: int, count: int) -> dict[str, Any]:
    """Positions ``start`` to ``start + count`` of the game seen through ``view``: per
    position its rows, move number and last move; and how many positions there are."""
    size = game.record.size
    page = game.positions[start : start + count]
    positions, last = [], []
    for position in page:
        stones = view.image_array(position.stones)
        positions.append(_rows(stones.astype(np.uint8).tobytes(), size))
        point = None if position.point is None else view.map_point(position.point, size)
        last.append(None if position.colour is None else _letters(point, size))
    return {
        **game.record.to_json(paths=False),
        "root": game.root,
        "view": view.name,
        "colours_exchanged": view.swap,
        "positions_total": len(game.positions),
        "final_move_number": game.positions[-1].move_number if game.positions else 0,
        "start": start,
        "positions": positions,
        "move_numbers": [position.move_number for position in page],
        "last": last,
        "comments": game.comments[start : start + count] if game.comments else None,
    }


def steps_json(game: GameRecord, view: Element, at: int) -> dict[str, Any]:
    """The move list to position ``at`` of the game seen through ``view``: its moves,
    and edit steps for its setup; refused when longer than the explorer takes."""
    size = game.record.size
    steps: list[str] = []
    previous: npt.NDArray[np.integer[Any]] = np.zeros((size, size), dtype=np.int8)
    for position in game.positions[: at + 1]:
        stones = view.image_array(position.stones)
        if position.colour is not None and not position.setup:
            point = None if position.point is None else view.map_point(position.point, size)
            colour = view.map_colour(position.colour)
            steps.append(colour + ("pass" if point is None else point_letters(point, size)))
        elif not np.array_equal(stones, previous):
            steps += edit_steps(previous, stones, size)
        if len(steps) > MAX_STEPS:
            raise BadRequest(
                f"position {at} of game {game.record.id} takes more than {MAX_STEPS} steps; "
                "the explorer takes at most that many"
            )
        previous = stones
    return {"game_id": game.record.id, "size": size, "view": view.name, "at": at, "steps": steps}

