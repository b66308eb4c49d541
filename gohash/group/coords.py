"""Coordinates and position arrays: the one table of SGF points, GTP vertices,
and the one check of position arrays that every module takes.

Scope: conversions (a move's JSON form, :func:`move_json`, included) and
validation only.  A point is ``(row, col)``, row 0 the
bottom line (docs/design.md, section "Board and points").  GTP names columns
A..Z without I and numbers rows from 1 at the bottom; SGF letters name the
column first and count rows from the top.  A position array holds 0 (empty), 1 (black) and 2
(white) in ``[row, col]`` order, one board ``(N, N)`` or a batch ``(B, N, N)``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import PositionError
from .symmetry import Point, check_size

GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
"""Column letters of GTP: the alphabet without I (25 letters)."""

_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def gtp(point: Point | None, size: int) -> str:
    """GTP vertex of ``point`` (``"D4"``), or ``"pass"`` for ``None``.

    GTP names only 25 columns (it stops at 25x25); the 26th column of a 26x26
    board is written ``"AA"``.
    """
    if point is None:
        return "pass"
    row, col = point
    check_size(size)
    if not (0 <= row < size and 0 <= col < size):
        raise PositionError(f"point {point!r} is off a {size}x{size} board")
    letter = GTP_COLUMNS[col] if col < len(GTP_COLUMNS) else "AA"
    return f"{letter}{row + 1}"


def parse_gtp(vertex: str, size: int) -> Point | None:
    """The point named by a GTP vertex (``"d4"`` or ``"D4"``), ``None`` for ``"pass"``."""
    text = vertex.strip().upper()
    if text == "PASS":
        return None
    letters = text.rstrip("0123456789")
    digits = text[len(letters) :]
    if letters == "AA" and size == 26:
        col = 25
    elif len(letters) == 1 and letters in GTP_COLUMNS:
        col = GTP_COLUMNS.index(letters)
    else:
        raise PositionError(f"{vertex!r} is not a GTP vertex")
    if not digits:
        raise PositionError(f"{vertex!r} is not a GTP vertex")
    row = int(digits) - 1
    if not (0 <= row < check_size(size) and 0 <= col < size):
        raise PositionError(f"vertex {vertex!r} is off a {size}x{size} board")
    return row, col


@cache
def sgf_point_table(size: int) -> dict[bytes, Point | None]:
    """SGF point values on a ``size`` board: letters to ``(row, col)``, and the pass
    values (``""``, and ``"tt"`` on boards up to 19) to None."""
    table: dict[bytes, Point | None] = {
        sgf_letters((row, col), size).encode(): (row, col)
        for row in range(size)
        for col in range(size)
    }
    table[b""] = None
    if size <= 19:
        table[b"tt"] = None
    return table


def check_position_array(
    boards: npt.ArrayLike, *, batch: bool, size: int | None = None
) -> npt.NDArray[np.integer]:
    """``boards`` as an integer array of one position (``(N, N)``) or a batch
    (``(B, N, N)``), of ``size`` if given; raises PositionError naming what is wrong."""
    arr = np.asarray(boards)
    side = "N" if size is None else str(size)
    want = f"(B, {side}, {side})" if batch else f"({side}, {side})"
    square = arr.ndim == (3 if batch else 2) and arr.shape[-1] == arr.shape[-2]
    if not square or (size is not None and arr.shape[-1] != size):
        raise PositionError(f"position array has shape {arr.shape!r}; expected {want}")
    check_size(arr.shape[-1])
    if not np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_:
        raise PositionError(f"position array has dtype {arr.dtype!r}; expected integers")
    bad = arr[(arr < 0) | (arr > 2)]
    if bad.size:
        raise PositionError(
            f"position array holds {bad.flat[0].item()!r}; expected 0 (empty), "
            "1 (black) or 2 (white)"
        )
    return arr


@cache
def sgf_order(size: int) -> npt.NDArray[np.intp]:
    """``sgf_order(size)[p]``: the place of point ``p`` (``row * size + col``, row 0
    the bottom line) when points are counted from the top row, as SGF rows and the
    index's ever bitmaps run; its own inverse.

    >>> sgf_order(3).tolist()
    [6, 7, 8, 3, 4, 5, 0, 1, 2]
    """
    points = np.arange(size * size)
    order: npt.NDArray[np.intp] = (size - 1 - points // size) * size + points % size
    return order


def sgf_letters(point: Point | None, size: int) -> str:
    """SGF letters of ``point`` (column first, rows counted from the top); ``""`` for a pass."""
    if point is None:
        return ""
    row, col = point
    return _SGF_LETTERS[col] + _SGF_LETTERS[size - 1 - row]


def move_json(colour: str, point: Point | None, size: int) -> dict[str, Any]:
    """A move as JSON: ``colour`` (``b``, ``w``), ``point`` (``[row, col]``, row 0
    the bottom line; null for a pass), ``gtp`` (``"D16"``, ``"pass"``) and
    ``sgf`` (its letters, ``""`` for a pass)."""
    return {"colour": colour, "point": None if point is None else list(point),
            "gtp": gtp(point, size), "sgf": sgf_letters(point, size)}
