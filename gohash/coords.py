"""Coordinates: GTP vertices and SGF point letters for ``(row, col)`` points.

Scope: conversions only.  A point is ``(row, col)``, row 0 the bottom line
(docs/design.md, section "Board and points").  GTP names columns A..Z without I
and numbers rows from 1 at the bottom; SGF letters name the column first and
count rows from the top.
"""

from __future__ import annotations

from .errors import PositionError
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


def sgf_letters(point: Point | None, size: int) -> str:
    """SGF letters of ``point`` (column first, rows counted from the top); ``""`` for a pass."""
    if point is None:
        return ""
    row, col = point
    return _SGF_LETTERS[col] + _SGF_LETTERS[size - 1 - row]
