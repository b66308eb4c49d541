"""Windows anywhere: the small fully specified squares whose hits a segment sums up ahead.

Scope: :data:`WINDOW_SIDES`, the sides of the windows answered (a 2x2 or 3x3
square off the edges, where a local shape is drawn: the crosscut, the dango,
the ponnuki); :func:`window_tables`, each content of a window of a side (the
values of its points, the digits of a code in base 3) with its class (its
images under the 16 elements are one class) and the element that maps it
onto its class's canonical content; :func:`windows`, the windows of a board;
:func:`window_query`, the window of a pattern that is one such square and
nothing else, in its canonical frame.  The compiled kernel's ``window_hits``
finds each content's first hits in a segment, and
:func:`gohash.pattern.search.answer_windows` sums them up into answers.  A
window's content is exact (its code is its points' values): no key, no
collision.
Design: docs/design.md, ``gohash.pattern.windows``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from ..group.symmetry import ELEMENTS, Element, point_images
from .corners import Square
from .diagram import BLACK, EMPTY, WHITE, Pattern

__all__ = [
    "WINDOW",
    "WINDOW_KEY",
    "WINDOW_SIDES",
    "Window",
    "WindowTables",
    "content_square",
    "content_symmetries",
    "placement_element",
    "window_key",
    "window_query",
    "window_tables",
    "windows",
]

WINDOW_SIDES = (2, 3)
"""The sides of the windows whose contents segments answer."""

WINDOW = 4
"""The corner of a :class:`~gohash.pattern.corners.Square` that is a window:
the square of its side anywhere off the edges, its points in rows of its own
(row ``i``, column ``j`` the point ``i * side + j``, row 0 the lowest)."""

WINDOW_KEY = 0xFE000000
"""ORed into the key of a window's class (its side times 2**16 plus its
canonical code), as answers hold it beside corner keys."""

I32 = npt.NDArray[np.int32]


@dataclass(frozen=True)
class WindowTables:
    """Every content of a window of ``side`` (``codes`` of them: code ``c`` holds
    at point ``k`` the digit ``c // 3**k % 3``, 0 empty, 1 Black, 2 White):
    ``classes[c]`` its class (-1 for the empty window, which every game holds
    at its start), ``orientations[c]`` the lowest element that maps it onto
    the class's canonical content, ``canonical[class]`` that content's code
    (the least of the class), and ``images[g, c]`` the code of its image
    under element ``g``."""

    side: int
    classes: I32
    orientations: npt.NDArray[np.int8]
    canonical: I32
    images: I32


@cache
def window_tables(side: int) -> WindowTables:
    """The :class:`WindowTables` of windows of ``side``."""
    points = side * side
    codes = np.arange(3**points, dtype=np.int64)
    digits = codes[:, None] // 3 ** np.arange(points) % 3
    swapped = np.array([0, 2, 1])
    images = np.zeros((16, len(codes)), dtype=np.int64)
    for g in ELEMENTS:
        moved = np.zeros_like(digits)
        moved[:, point_images(side)[g.index]] = swapped[digits] if g.swap else digits
        images[g.index] = moved @ 3 ** np.arange(points)
    least = images.min(axis=0)
    orientations = np.argmax(images == least, axis=0).astype(np.int8)
    canonical, inverse = np.unique(least, return_inverse=True)
    # The empty window is its own class, the first (code 0): none.
    classes = (inverse - 1).astype(np.int32)
    tables = WindowTables(side, classes, orientations, canonical[1:].astype(np.int32),
                          images.astype(np.int32))
    for array in (tables.classes, tables.orientations, tables.canonical, tables.images):
        array.flags.writeable = False
    return tables


@cache
def windows(size: int, side: int) -> tuple[I32, I32, I32]:
    """The windows of ``side`` on a board of ``size``: every square of that side
    off the edges (an anywhere pattern's placements), by lowest row, then
    column.  Returns their points (``points[w * side * side + k]`` the board
    point, ``row * size + col``, of point ``k`` of window ``w``) and, per board
    point ``p``, ``entries[offsets[p] : offsets[p + 1]]``, each ``w * side *
    side + k`` where window ``w`` has ``p`` as its point ``k``."""
    starts = np.arange(1, size - side)  # off both edges
    rows, cols = np.meshgrid(starts, starts, indexing="ij")
    local = np.arange(side * side)
    points = ((rows.reshape(-1, 1) + local // side) * size
              + cols.reshape(-1, 1) + local % side).astype(np.int32)
    flat = points.reshape(-1)
    order = np.argsort(flat, kind="stable")
    offsets = np.zeros(size * size + 1, dtype=np.int32)
    np.cumsum(np.bincount(flat, minlength=size * size), out=offsets[1:])
    for array in (flat, order, offsets):
        array.flags.writeable = False
    return flat, order.astype(np.int32), offsets


def window_key(side: int, canonical: int) -> int:
    """The key (as answers hold it) of the class whose canonical content, in a
    window of ``side``, is ``canonical``."""
    return WINDOW_KEY | side << 16 | canonical


def content_square(side: int, code: int, element: Element) -> Square:
    """The :class:`~gohash.pattern.corners.Square` (a window's) of the content
    ``code`` of a window of ``side``, ``element`` what maps a query's onto it."""
    digits = np.array([code // 3**k % 3 for k in range(side * side)])
    bits = 1 << np.arange(side * side, dtype=object)
    return Square(side, WINDOW, int(bits[digits == 1].sum()), int(bits[digits == 2].sum()),
                  element)


@dataclass(frozen=True)
class Window:
    """A pattern's window: its ``side``, the board point of its point 0
    (``origin``), its class's ``key`` and canonical content as a
    :class:`~gohash.pattern.corners.Square` (``square``, whose element maps
    the pattern's content onto it, the lowest such), and ``symmetries``, the
    elements that map the canonical content onto itself."""

    side: int
    origin: int
    key: int
    square: Square
    symmetries: tuple[Element, ...]


def content_symmetries(side: int, canonical: int) -> tuple[Element, ...]:
    """The elements that map the content ``canonical`` of a window of ``side``
    onto itself."""
    images = window_tables(side).images
    return tuple(g for g in ELEMENTS if int(images[g.index, canonical]) == canonical)


def placement_element(t: Element, u: Element, symmetries: tuple[Element, ...]) -> Element:
    """The element of the placement that puts a query's content on a window
    whose content ``t`` maps onto the canonical one, ``u`` mapping the query's
    onto it and ``symmetries`` it onto itself: the lowest of ``t^-1 . s .
    u`` (:func:`~gohash.pattern.diagram.placements` keeps the lowest element
    of those that put a pattern on the same stones)."""
    return min((t.inverse.compose(s.compose(u)) for s in symmetries), key=lambda e: e.index)


def window_query(pattern: Pattern) -> Window | None:
    """The :class:`Window` of ``pattern`` if its region is a square of one of
    :data:`WINDOW_SIDES` off the edges whose every point is black, white or
    empty and some point a stone; None otherwise."""
    n, region = pattern.size, np.array(pattern.region)
    rows, cols = region // n, region % n
    side = int(rows.max() - rows.min() + 1)
    if (side not in WINDOW_SIDES or len(region) != side * side
            or int(cols.max() - cols.min() + 1) != side
            or rows.min() == 0 or cols.min() == 0 or rows.max() == n - 1
            or cols.max() == n - 1):
        return None
    codes = np.array(pattern.codes)[region]
    if not ((codes == EMPTY) | (codes == BLACK) | (codes == WHITE)).all() or not codes.any():
        return None
    local = (rows - rows.min()) * side + cols - cols.min()
    code = int((codes * 3 ** local).sum())
    tables = window_tables(side)
    element = ELEMENTS[int(tables.orientations[code])]
    canonical = int(tables.canonical[tables.classes[code]])
    symmetries = content_symmetries(side, canonical)
    return Window(side, int(rows.min() * n + cols.min()), window_key(side, canonical),
                  content_square(side, canonical, element), symmetries)
