"""The symmetry group of a square board with colour exchange, G = D4 x Z2.

Scope: the 16 group elements (one table, with their names), composition and
inverse, the map of each element on the points of an N x N board and on
position arrays, and the slot permutations that a key scheme derives from
images of its generators.  Nothing here knows about Go rules or hashes.

Conventions (docs/design.md, section "The 16 elements"): a point is
``(row, col)``, row 0 the bottom line; in the paper's notation x = col, y = row.
``rot90`` turns the board a quarter counter-clockwise, ``(x, y) -> (N-1-y, x)``;
``flip`` mirrors it left-right, ``(x, y) -> (N-1-x, y)``.  Every board map is
``flip**f . rot90**k`` and every element is that map with or without colour
exchange (``swap``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from ..errors import BoardSizeError, UnknownElementError

Point = tuple[int, int]
SlotPermutation = tuple[int, ...]

MIN_SIZE = 1
MAX_SIZE = 26

_BOARD_MAP_NAMES = ("identity", "rot90", "rot180", "rot270", "flip", "transpose", "flipud",
                    "antitranspose")


@dataclass(frozen=True)
class Element:
    """One of the 16 elements: ``swap`` after ``flip**flipped`` after ``rot90**rotation``."""

    index: int
    name: str
    rotation: int
    flipped: bool
    swap: bool

    def __repr__(self) -> str:
        return f"<Element {self.name}>"

    def __str__(self) -> str:
        return self.name

    def compose(self, other: Element) -> Element:
        """The element ``self . other``: apply ``other`` first, then ``self``."""
        return ELEMENTS[_COMPOSE[self.index][other.index]]

    @property
    def inverse(self) -> Element:
        return ELEMENTS[_INVERSE[self.index]]

    def map_point(self, point: Point, size: int) -> Point:
        """Image of ``point`` on a ``size`` x ``size`` board."""
        row, col = point
        last = size - 1
        for _ in range(self.rotation):
            row, col = col, last - row
        if self.flipped:
            col = last - col
        return row, col

    def map_colour(self, colour: str) -> str:
        """Image of a colour ``"b"``/``"w"``: exchanged by the swap elements."""
        if not self.swap:
            return colour
        return "w" if colour == "b" else "b"

    def point_permutation(self, size: int) -> npt.NDArray[np.intp]:
        """``perm`` with ``image.flat[perm[i]] = board.flat[i]``, ``i = row*size + col``."""
        return np.array(_point_permutation(self.index, check_size(size)), dtype=np.intp)

    def image_array(self, board: npt.NDArray[np.integer]) -> npt.NDArray[np.integer]:
        """Image of a position array (0 empty, 1 black, 2 white) under this element.

        Works on one N x N array or a batch B x N x N.  The layout is
        ``board[row, col]`` with row 0 the bottom line, so numpy, which prints
        row 0 at the top, shows the board upside down: ``rot90``, a quarter turn
        counter-clockwise on the board, is ``np.rot90(board, -1)`` (clockwise as
        numpy prints it), not ``np.rot90(board)``.

        >>> import numpy as np
        >>> board = np.zeros((19, 19), dtype=np.int8)
        >>> board[3, 15] = 1  # Q4: row 3 (the fourth line from the bottom), column Q
        >>> turned = element("rot90").image_array(board)
        >>> bool(np.array_equal(turned, np.rot90(board, -1)))
        True
        >>> np.argwhere(turned == 1).tolist()  # at Q16: the lower right corner turned up
        [[15, 15]]
        """
        size = board.shape[-1]
        perm = _point_permutation(self.index, check_size(size))
        flat = board.reshape(*board.shape[:-2], size * size)
        image = np.empty_like(flat)
        image[..., perm] = flat
        if self.swap:
            # 1 <-> 2 and 0 -> 0 is (3 - v) % 3.
            image = (3 - image) % 3
        return image.reshape(board.shape)


def _make_elements() -> tuple[Element, ...]:
    elements = []
    for swap in (False, True):
        for flipped in (False, True):
            for rotation in range(4):
                index = 8 * swap + 4 * flipped + rotation
                base = _BOARD_MAP_NAMES[4 * flipped + rotation]
                name = ("swap" if base == "identity" else f"{base}_swap") if swap else base
                elements.append(Element(index, name, rotation, flipped, swap))
    return tuple(elements)


ELEMENTS: tuple[Element, ...] = _make_elements()
"""The 16 elements in table order: the 8 board maps, then the same with ``swap``."""

D4: tuple[Element, ...] = ELEMENTS[:8]
_BY_NAME = {e.name: e for e in ELEMENTS}


def _compose_indexes(a: int, b: int) -> int:
    # (flip^f1 rot^k1)(flip^f2 rot^k2) = flip^(f1^f2) rot^(k2 +- k1): a rotation
    # moved past a reflection is inverted.
    f1, k1, s1 = (a >> 2) & 1, a & 3, a >> 3
    f2, k2, s2 = (b >> 2) & 1, b & 3, b >> 3
    k = (k2 - k1 if f2 else k2 + k1) % 4
    return 8 * (s1 ^ s2) + 4 * (f1 ^ f2) + k


_COMPOSE = tuple(tuple(_compose_indexes(a, b) for b in range(16)) for a in range(16))
_INVERSE = tuple(next(b for b in range(16) if _COMPOSE[a][b] == 0) for a in range(16))


def element(which: str | int | Element) -> Element:
    """Look an element up by name, table index, or return it unchanged."""
    if isinstance(which, Element):
        return which
    if isinstance(which, str):
        try:
            return _BY_NAME[which]
        except KeyError:
            names = ", ".join(_BY_NAME)
            raise UnknownElementError(
                f"unknown symmetry element {which!r}; expected one of {names}"
            ) from None
    if isinstance(which, (int, np.integer)) and not isinstance(which, bool) and 0 <= which < 16:
        return ELEMENTS[int(which)]
    raise UnknownElementError(f"unknown symmetry element {which!r}; expected a name or 0..15")


def elements_of(group: str) -> tuple[Element, ...]:
    """The elements of a subgroup by name: ``"d4"`` (board maps) or ``"full"`` (all 16)."""
    if group == "full":
        return ELEMENTS
    if group == "d4":
        return D4
    raise UnknownElementError(f"unknown symmetry group {group!r}; expected 'd4' or 'full'")


def check_size(size: object) -> int:
    """Return ``size`` if it is a board size gohash supports (1..26), else raise."""
    if (
        not isinstance(size, (int, np.integer))
        or isinstance(size, bool)
        or not MIN_SIZE <= size <= MAX_SIZE
    ):
        raise BoardSizeError(f"board size {size!r} is outside {MIN_SIZE}..{MAX_SIZE}")
    return int(size)


@cache
def _point_permutation(index: int, size: int) -> npt.NDArray[np.intp]:
    g = ELEMENTS[index]
    perm = np.empty(size * size, dtype=np.intp)
    for row in range(size):
        for col in range(size):
            image_row, image_col = g.map_point((row, col), size)
            perm[row * size + col] = image_row * size + image_col
    perm.flags.writeable = False
    return perm


COLOUR_EXCHANGE = np.array([0, 2, 1], dtype=np.int8)
"""``COLOUR_EXCHANGE[v]``: cell value ``v`` (0 empty, 1 black, 2 white) with the
colours exchanged."""


@cache
def point_images(size: int) -> npt.NDArray[np.intp]:
    """``[g, p]``: the image of point ``p`` (flat: ``row * size + col``) under the
    element of index ``g``, for all 16 (:meth:`Element.point_permutation` stacked)."""
    return np.stack([g.point_permutation(size) for g in ELEMENTS])


@cache
def gathers(size: int) -> npt.NDArray[np.intp]:
    """``image[..., k] = stones[..., gathers[g, k]]`` for the element of index ``g``:
    the inverse of each point permutation (also the compiled core's table)."""
    return np.argsort(point_images(size), axis=1)


def stone_images(stones: npt.NDArray[np.integer], size: int,
                 count: int) -> npt.NDArray[np.int8]:
    """``images[b, g]``: the flat stones ``stones[b]`` (a batch of ``size`` x ``size``
    positions) mapped by the element of index ``g < count``, colours exchanged from 8."""
    # np.take, not stones[:, gathers]: mixing a slice with an index array is much slower.
    images: npt.NDArray[np.int8] = np.take(stones, gathers(size)[:count], axis=1).astype(
        np.int8)
    images[:, 8:] = np.take(COLOUR_EXCHANGE, images[:, 8:])
    return images


def point_orbits(size: int) -> list[list[Point]]:
    """The orbits of D4 on the points, each sorted, in order of their first point."""
    seen: set[Point] = set()
    orbits = []
    for row in range(check_size(size)):
        for col in range(size):
            if (row, col) in seen:
                continue
            orbit = sorted({g.map_point((row, col), size) for g in D4})
            seen.update(orbit)
            orbits.append(orbit)
    return orbits


def stabilizer(point: Point, size: int) -> tuple[Element, ...]:
    """The board maps that fix ``point``."""
    return tuple(g for g in D4 if g.map_point(point, size) == point)


def compose_slots(a: SlotPermutation, b: SlotPermutation) -> SlotPermutation:
    """Slot permutation of ``a . b`` (``b`` first) from those of ``a`` and ``b``."""
    return tuple(b[i] for i in a)


def slot_permutations_from_generators(
    rot90: SlotPermutation, flip: SlotPermutation, swap: SlotPermutation
) -> tuple[SlotPermutation, ...]:
    """Slot permutation of every element, in table order, from the generators' images.

    Element ``swap**s . flip**f . rot90**k`` gets ``T_swap**s . T_flip**f . T_rot90**k``.
    """
    identity = tuple(range(len(rot90)))
    perms = []
    for g in ELEMENTS:
        perm = identity
        for _ in range(g.rotation):
            perm = compose_slots(rot90, perm)
        if g.flipped:
            perm = compose_slots(flip, perm)
        if g.swap:
            perm = compose_slots(swap, perm)
        perms.append(perm)
    return tuple(perms)


def regular_slot_permutations() -> tuple[SlotPermutation, ...]:
    """The regular representation: slot ``s`` of ``T_g(z)`` is slot ``s . g`` of ``z``."""
    return tuple(tuple(_COMPOSE[s][g] for s in range(16)) for g in range(16))


def orbits_of_slots(perms: Sequence[SlotPermutation]) -> list[list[int]]:
    """Orbits of the group generated by ``perms`` on the slots, each sorted."""
    n = len(perms[0]) if perms else 0
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for perm in perms:
        for i, j in enumerate(perm):
            parent[find(i)] = find(j)
    orbits: dict[int, list[int]] = {}
    for i in range(n):
        orbits.setdefault(find(i), []).append(i)
    return sorted(orbits.values())
