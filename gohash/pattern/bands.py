"""Bands along an edge: the fully specified rectangles at a side whose hits a segment sums up ahead.

Scope: :data:`BAND_SHAPES`, the shapes answered (4 or 5 rows from an edge, 5
to 7 points along it: where a side pattern is drawn); :func:`bands`, the bands
of a board (every such rectangle touching one edge, sliding along it without
touching the other two, as a side pattern's placements do) with the elements
that bring each onto the canonical edge; :func:`band_query`, the band of a
pattern that is one such rectangle and nothing else, in its canonical frame.
A band's content is exact: its points' values are the digits in base 3 of a
code (at most 3**35), the least of its images under the four elements that
keep the edge (the mirror along it, the colour exchange) its canonical
content.  The compiled kernel's ``band_hits`` finds each content's first
hits in a segment, and :func:`gohash.pattern.search.answer_bands` sums them
up into answers; they are held under a 32-bit key (:func:`band_key`), a
filter like every key: an answer is used only for its exact content.
Design: docs/design.md, ``gohash.pattern.bands``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from ..group.symmetry import D4, ELEMENTS, Element, point_images
from .corners import Square
from .diagram import BLACK, EMPTY, WHITE, Pattern

__all__ = [
    "BAND",
    "BAND_KEY",
    "BAND_SHAPES",
    "Band",
    "BandFrames",
    "band_key",
    "band_query",
    "band_square",
    "band_symmetries",
    "bands",
    "code_frames",
]

BAND_SHAPES = ((4, 5), (4, 6), (4, 7), (5, 5), (5, 6), (5, 7))
"""The (depth, width) of the bands whose contents segments answer."""

BAND = 8
"""A band's :class:`~gohash.pattern.corners.Square` has its width as side and
``BAND + depth`` as corner; its points are in rows of its own (row ``i`` the
``i``-th line from the edge, point ``i * width + j``)."""

BAND_KEY = 0xFD000000
"""ORed into the 24 bits of a band's key (:func:`band_key`)."""

# The elements that keep the canonical edge (row 0): the identity and the
# mirror along it, each with and without the colour exchange.
_KEEPERS = (0, 4, 8, 12)

I32 = npt.NDArray[np.int32]


@dataclass(frozen=True)
class BandFrames:
    """The bands of a shape on a board: ``points[b * depth * width + k]`` the
    board point of point ``k`` (``i * width + j``: ``i`` from the edge, ``j``
    along it) of band ``b`` in its own frame, the one the element
    ``elements[b, 0]`` maps onto the canonical edge; per board point ``p``,
    ``entries[offsets[p] : offsets[p + 1]]``, each ``b * depth * width + k``
    where band ``b`` has ``p`` as its point ``k``; ``elements[b]``: the
    elements that map band ``b`` onto the canonical edge in its own frame,
    with colours exchanged, mirrored (point ``k`` to ``i * width + width - 1
    - j``), and both."""

    points: I32
    entries: I32
    offsets: I32
    elements: npt.NDArray[np.int8]


def _rows(depth: int, width: int, size: int, offset: int) -> npt.NDArray[np.int64]:
    """The points of the band on the canonical edge (row 0) from column
    ``offset``, in its frame's order."""
    local = np.arange(depth * width)
    return (local // width * size + offset + local % width).astype(np.int64)


def _frame(points: npt.NDArray[np.int64], g: Element, size: int, depth: int, width: int
           ) -> npt.NDArray[np.int64] | None:
    """The point of the canonical band that element ``g`` maps each of
    ``points`` onto (``i * width + j``), if it maps them onto a band of the
    canonical edge; None if it does not."""
    image: npt.NDArray[np.int64] = point_images(size)[g.index][points].astype(np.int64)
    rows, cols = image // size, image % size
    if rows.max() >= depth or cols.max() - cols.min() != width - 1:
        return None
    local: npt.NDArray[np.int64] = rows * width + cols - cols.min()
    return local


def _mirrored(depth: int, width: int) -> npt.NDArray[np.int64]:
    local = np.arange(depth * width)
    return local // width * width + width - 1 - local % width


@cache
def bands(size: int, depth: int, width: int) -> BandFrames:
    """The :class:`BandFrames` of bands ``depth`` deep and ``width`` wide on a
    board of ``size``: on each edge (the canonical one turned by each of the
    four rotations), from the lowest column off the corner up."""
    points, elements = [], []
    mirror = _mirrored(depth, width)
    for rotation in D4[:4]:
        for offset in range(1, size - width):
            band = point_images(size)[rotation.index][_rows(depth, width, size, offset)]
            own = rotation.inverse
            frame = _frame(band, own, size, depth, width)
            assert frame is not None and (frame == np.arange(depth * width)).all()
            mirrored = [g for g in D4 if g != own and _frame(band, g, size, depth, width)
                        is not None]
            assert len(mirrored) == 1
            other = _frame(band, mirrored[0], size, depth, width)
            assert other is not None and (other == mirror).all()
            points.append(band)
            elements.append((own.index, own.index + 8, mirrored[0].index,
                             mirrored[0].index + 8))
    flat = (np.concatenate(points) if points else np.zeros(0)).astype(np.int32)
    order = np.argsort(flat, kind="stable").astype(np.int32)
    offsets = np.zeros(size * size + 1, dtype=np.int32)
    np.cumsum(np.bincount(flat, minlength=size * size), out=offsets[1:])
    frames = BandFrames(flat, order, offsets,
                        np.array(elements, dtype=np.int8).reshape(len(elements), 4))
    for array in (frames.points, frames.entries, frames.offsets, frames.elements):
        array.flags.writeable = False
    return frames


def code_frames(colours: npt.NDArray[np.integer], depth: int, width: int
                ) -> tuple[int, int, int, int]:
    """The codes of a band's content (``colours`` 0, 1, 2 of its points in its
    own frame) in its four frames: its own, with colours exchanged, mirrored,
    mirrored with colours exchanged (``band_hits``' frames)."""
    colours = np.asarray(colours, dtype=object)
    powers = np.array([3**k for k in range(depth * width)], dtype=object)
    exchanged = np.array([0, 2, 1], dtype=object)[colours.astype(np.int64)]
    mirror = _mirrored(depth, width)
    return (int((colours * powers).sum()), int((exchanged * powers).sum()),
            int((colours * powers[mirror]).sum()), int((exchanged * powers[mirror]).sum()))


def band_key(depth: int, width: int, canonical: int) -> int:
    """The 32-bit key (as answers hold it) of a band's canonical content: its
    shape and code spread over 24 bits, ORed into :data:`BAND_KEY`."""
    mixed = (canonical * 0x9E3779B97F4A7C15 + depth * 0xBF58476D1CE4E5B9
             + width * 0x94D049BB133111EB) % (1 << 64)
    mixed ^= mixed >> 29
    return BAND_KEY | (mixed * 0xD6E8FEB86659FD93 % (1 << 64)) >> 40


def band_square(depth: int, width: int, code: int, element: Element) -> Square:
    """The :class:`~gohash.pattern.corners.Square` (a band's) of the content
    ``code`` of a band of that shape, ``element`` what maps a query's onto it."""
    digits = [code // 3**k % 3 for k in range(depth * width)]
    black = sum(1 << k for k, d in enumerate(digits) if d == 1)
    white = sum(1 << k for k, d in enumerate(digits) if d == 2)
    return Square(width, BAND + depth, black, white, element)


def band_symmetries(depth: int, width: int, canonical: int) -> tuple[Element, ...]:
    """The elements that map the canonical content ``canonical`` of a band of
    that shape onto itself (of the identity, the mirror along the edge, and
    those with colours exchanged)."""
    digits = np.array([canonical // 3**k % 3 for k in range(depth * width)])
    frames = code_frames(digits, depth, width)
    # Frames 1, 2, 3 are the images under the swap, the mirror and both.
    images = {0: frames[0], 8: frames[1], 4: frames[2], 12: frames[3]}
    return tuple(ELEMENTS[g] for g in _KEEPERS if images[g] == canonical)


@dataclass(frozen=True)
class Band:
    """A pattern's band: its ``depth`` and ``width``, its content's
    ``canonical`` code, ``key`` (:func:`band_key`) and canonical
    :class:`~gohash.pattern.corners.Square` (``square``, whose element ``u``
    maps the pattern's content onto it, the lowest such), ``symmetries``,
    the elements that map the canonical content onto itself, and
    ``points[h]`` for each element ``h`` that maps the pattern's band onto the
    canonical edge, the pattern's point of each point of the canonical
    band."""

    depth: int
    width: int
    canonical: int
    key: int
    square: Square
    symmetries: tuple[Element, ...]
    points: dict[int, npt.NDArray[np.intp]]


def band_query(pattern: Pattern) -> Band | None:
    """The :class:`Band` of ``pattern`` if its region is a band of one of
    :data:`BAND_SHAPES` (a rectangle touching one edge, the other two along
    it not) whose every point is black, white or empty and some point a
    stone; None otherwise."""
    n, region = pattern.size, np.array(pattern.region)
    rows, cols = region // n, region % n
    extents = (int(rows.max() - rows.min() + 1), int(cols.max() - cols.min() + 1))
    if len(region) != extents[0] * extents[1]:
        return None
    touched = (rows.min() == 0, rows.max() == n - 1, cols.min() == 0, cols.max() == n - 1)
    if sum(touched) != 1:
        return None
    depth, width = extents if touched[0] or touched[1] else extents[::-1]
    if (depth, width) not in BAND_SHAPES:
        return None
    codes = np.array(pattern.codes)[region]
    if not ((codes == EMPTY) | (codes == BLACK) | (codes == WHITE)).all() or not codes.any():
        return None
    # The content as each element that keeps the edge-to-canonical map sees it.
    frames: list[tuple[int, int]] = []
    points: dict[int, npt.NDArray[np.intp]] = {}
    swapped = np.array([0, 2, 1])
    for g in D4:
        local = _frame(region.astype(np.int64), g, n, depth, width)
        if local is None:
            continue
        for h in (g, ELEMENTS[g.index + 8]):
            content = np.zeros(depth * width, dtype=np.int64)
            content[local] = swapped[codes] if h.swap else codes
            frames.append((int((content * 3 ** np.arange(depth * width)).sum()), h.index))
            at = np.zeros(depth * width, dtype=np.intp)
            at[local] = region
            points[h.index] = at
    canonical, u = min(frames)
    return Band(depth, width, canonical, band_key(depth, width, canonical),
                band_square(depth, width, canonical, ELEMENTS[u]),
                band_symmetries(depth, width, canonical), points)
