"""The explorer's move list: a position written as the steps that lead to it.

Scope: the notation that ``gohash serve`` keeps in its URLs (``moves=``), its
parser, and the replay of a list onto a :class:`~gohash.go.board.Board`, which
decides legality (captures, suicide, simple ko); :func:`edit_steps`, the steps
from one board to another; and :func:`play_moves`, moves in GTP points as
``index find --moves`` takes them.  Nothing here knows HTTP or the index.

A move list is a comma-separated list of steps, each one undo step of the
board; points are SGF letters (column first, ``a`` the left column; row
second, ``a`` the top row), so ``pd`` is Q16 on 19x19:
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GohashError, IllegalMoveError, MoveListError
from ..go.board import Board
from ..group.coords import gtp, parse_gtp, sgf_letters
from ..group.symmetry import Point, check_size

__all__ = [
    "MAX_STEPS",
    "Replay",
    "Step",
    "edit_steps",
    "format_steps",
    "parse_point",
    "parse_steps",
    "play_moves",
    "replay",
]

MAX_STEPS = 2000
"""The longest move list accepted: longer than any real game's main line, and it
bounds what one request costs (the board replays every step)."""

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_EDIT_COLOURS = {"B": "b", "W": "w", "E": None}


@dataclass(frozen=True)
class Step:
    """One step: ``kind`` is "play", "pass" or "edit"; ``colour`` None means the side to
    move (for plays and passes) or clearing the point (for edits)."""

    kind: str
    colour: str | None
    point: Point | None


@dataclass
class Replay:
    """A replayed move list: the board after it, the stones each colour captured, and
    the point of the last step if it was a play."""

    board: Board
    captured: dict[str, int]
    last_play: Point | None


def parse_point(text: str, size: int) -> Point:
    """The point named by two SGF letters on a ``size`` x ``size`` board."""
    check_size(size)
    if len(text) != 2 or text[0] not in _LETTERS or text[1] not in _LETTERS:
        raise MoveListError(f"{text!r} is not a point (two letters a-z, column then row)")
    col = _LETTERS.index(text[0])
    row = size - 1 - _LETTERS.index(text[1])
    if col >= size or row < 0:
        raise MoveListError(f"{text!r} is not a point of the {size}x{size} board")
    return row, col


def _parse_step(token: str, size: int) -> Step:
    if token in ("pass", "bpass", "wpass"):
        return Step("pass", token[0] if len(token) == 5 else None, None)
    if len(token) == 2:
        return Step("play", None, parse_point(token, size))
    if len(token) == 3 and token[0] in "bw":
        return Step("play", token[0], parse_point(token[1:], size))
    if len(token) == 3 and token[0] in _EDIT_COLOURS:
        return Step("edit", _EDIT_COLOURS[token[0]], parse_point(token[1:], size))
    raise MoveListError(
        f"{token[:40]!r} is not a step (a point such as 'pd', 'bpd' or 'wpd' to play, "
        "'pass', or 'Bpd', 'Wpd', 'Epd' to edit)"
    )


def parse_steps(text: str, size: int) -> list[Step]:
    """The steps of a move list for a ``size`` x ``size`` board; at most :data:`MAX_STEPS`."""
    check_size(size)
    if not text:
        return []
    tokens = text.split(",")
    if len(tokens) > MAX_STEPS:
        raise MoveListError(f"the move list has {len(tokens):,} steps; at most {MAX_STEPS:,}")
    steps = []
    for number, token in enumerate(tokens, 1):
        try:
            steps.append(_parse_step(token, size))
        except MoveListError as e:
            raise MoveListError(f"step {number}: {e.reason}", step=number) from None
    return steps


def replay(steps: list[Step], size: int) -> Replay:
    """Play ``steps`` on an empty board; an illegal one raises :class:`MoveListError`
    naming the step and the board's reason (occupied, ko, suicide), with its
    ``refusal`` in a few words (``C3 is occupied``)."""
    board = Board(size)
    captured = {"b": 0, "w": 0}
    last: Point | None = None
    for number, step in enumerate(steps, 1):
        try:
            if step.kind == "play":
                assert step.point is not None
                colour = step.colour or board.to_move
                removed = board.play(step.point, colour)
                captured[colour] += len(removed)
                last = step.point
            elif step.kind == "pass":
                board.pass_(step.colour or board.to_move)
                last = None
            else:
                assert step.point is not None
                _edit(board, step)
                last = None
        except MoveListError as e:
            raise MoveListError(f"step {number}: {e.reason}", step=number,
                                refusal=e.refusal) from None
        except IllegalMoveError as e:
            assert step.point is not None  # a pass is never illegal
            raise MoveListError(f"step {number}: {e.reason}", step=number,
                                refusal=f"{gtp(step.point, size)} {e.WHY}") from None
        except GohashError as e:
            raise MoveListError(f"step {number}: {e.reason}", step=number) from None
    return Replay(board, captured, last)


def _edit(board: Board, step: Step) -> None:
    assert step.point is not None
    lists: dict[str | None, list[Point]] = {"b": [], "w": [], None: []}
    lists[step.colour].append(step.point)
    removed = board.setup(lists["b"], lists["w"], lists[None])
    if removed:
        board.undo()
        vertex = gtp(step.point, board.size)
        why = "would leave a group without liberties"
        raise MoveListError(
            f"a {'black' if step.colour == 'b' else 'white'} stone at {vertex!r} {why}",
            refusal=f"{vertex} {why}",
        )


def format_steps(steps: list[Step], size: int) -> str:
    """The move list of ``steps`` in the short form, as :func:`parse_steps` reads it."""
    board_to_move = "b"
    tokens = []
    for step in steps:
        if step.kind == "edit":
            assert step.point is not None
            prefix = {"b": "B", "w": "W", None: "E"}[step.colour]
            tokens.append(prefix + sgf_letters(step.point, size))
            continue
        colour = step.colour or board_to_move
        prefix = "" if colour == board_to_move else colour
        body = "pass" if step.point is None else sgf_letters(step.point, size)
        tokens.append(prefix + body)
        board_to_move = "w" if colour == "b" else "b"
    return ",".join(tokens)


def edit_steps(
    before: npt.NDArray[np.integer[Any]], after: npt.NDArray[np.integer[Any]], size: int
) -> list[str]:
    """The edit steps from the stones ``before`` to the stones ``after`` (``size`` x
    ``size`` arrays in index order: 0 empty, 1 black, 2 white): first every changed
    point that holds a stone is cleared (a stone that changes colour too), then the
    new stones are placed, so every group on the board keeps a liberty at every step
    of the way (a part of a legal board's group has a liberty, its own or a point
    the rest of the group will fill)."""
    changed = [(int(r), int(c)) for r, c in zip(*np.nonzero(before != after), strict=True)]
    cleared = [p for p in changed if before[p] != 0]
    placed = [p for p in changed if after[p] != 0]
    return ["E" + sgf_letters(p, size) for p in cleared] + [
        "BW"[after[p] - 1] + sgf_letters(p, size) for p in placed
    ]


def play_moves(text: str, board: Board) -> Board:
    """A copy of ``board`` after the moves of ``text``: GTP vertices (``Q16``) or
    ``pass``, separated by spaces or commas, each played by the side to move
    unless ``B`` or ``W`` comes before it (``"Q16 D4 Q3"``, ``"B Q16 W D4"``);
    at most :data:`MAX_STEPS`.  A move that cannot be read or played raises
    :class:`MoveListError` naming it (``move 3: 'D4' is occupied``)."""
    tokens = text.replace(",", " ").split()
    if len(tokens) > 2 * MAX_STEPS:
        raise MoveListError(f"the move list has {len(tokens):,} words; at most {MAX_STEPS:,} "
                            "moves, each with its colour")
    played = board.copy()
    colour: str | None = None
    number = 0
    for token in tokens:
        if token.upper() in ("B", "W"):
            if colour is not None:
                raise MoveListError(f"{token!r} after {colour.upper()!r}: a colour needs a move")
            colour = token.lower()
            continue
        number += 1
        try:
            point = parse_gtp(token, played.size)
            if point is None:
                played.pass_(colour or played.to_move)
            else:
                played.play(point, colour or played.to_move)
        except GohashError as e:
            raise MoveListError(f"move {number}: {e.reason}", step=number) from None
        colour = None
    if colour is not None:
        raise MoveListError(f"{colour.upper()!r} at the end: a colour needs a move")
    return played
