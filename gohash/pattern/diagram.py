"""Pattern diagrams, move sequences and the placements of a pattern on the board.

Scope: :func:`parse_pattern` reads a full-board diagram (one line per row, top
row first; ``X`` black, ``O`` white, ``.`` empty, ``*`` anything, ``x`` black
or empty, ``o`` white or empty, ``-`` outside the pattern) into a
:class:`Pattern`; :func:`parse_sequence` reads the moves a hit must be
followed by; :func:`placements` lists where and how the pattern may match.

Anchoring (Kombilo's convention), decided per axis of the board: a region that
touches an edge of an axis stays where it is on that axis; one that touches
neither edge of an axis slides along it as far as it can without touching
them.  So a region touching two edges at a corner is fixed in that corner, one
touching exactly one edge slides along it and touches neither edge across it,
and one touching no edge slides anywhere without touching one.  A symmetry
maps edges onto edges, so the anchoring moves with the pattern: the placements
of element ``g`` are the translations of the image ``g(P)`` that this rule
allows.

Keys (the group-theoretic hash): the key of a placement is the hash of the
stones its fixed-colour points (``X``, ``O``, ``.``) require, hashed for all
placements at once on arrays.  Under a symmetry ``g`` the stones of a region
map with their keys, ``h_{g(R)}(gP) = T_g(h_R(P))``: each key is also ``T_g``
of the key of the query's region translated, which the tests check.  A key
only filters: a hit is confirmed point by point (:mod:`gohash.pattern.match`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import overload

import numpy as np
import numpy.typing as npt

from ..errors import OptionError, PatternError
from ..group.coords import GTP_COLUMNS, gtp, parse_gtp
from ..group.schemes import KeyScheme
from ..group.symmetry import D4, ELEMENTS, Element, Point, check_size, point_images

__all__ = [
    "ANY",
    "BLACK",
    "BLACK_OR_EMPTY",
    "CODES",
    "EMPTY",
    "MIN_PATTERN_SIZE",
    "OUTSIDE",
    "SYMMETRIES",
    "WHITE",
    "WHITE_OR_EMPTY",
    "Pattern",
    "Placement",
    "Placements",
    "parse_pattern",
    "parse_sequence",
    "placements",
    "stone_keys",
    "symmetries",
]

OUTSIDE, EMPTY, BLACK, WHITE, BLACK_OR_EMPTY, WHITE_OR_EMPTY, ANY = -1, 0, 1, 2, 3, 4, 5
CODES = {"-": OUTSIDE, ".": EMPTY, "X": BLACK, "O": WHITE, "x": BLACK_OR_EMPTY,
         "o": WHITE_OR_EMPTY, "*": ANY}
"""The diagram's characters and their point codes."""
_SYMBOLS = {code: symbol for symbol, code in CODES.items()}
# Colour exchange: black and white constraints trade places.
_SWAPPED = {OUTSIDE: OUTSIDE, EMPTY: EMPTY, BLACK: WHITE, WHITE: BLACK,
            BLACK_OR_EMPTY: WHITE_OR_EMPTY, WHITE_OR_EMPTY: BLACK_OR_EMPTY, ANY: ANY}
_SWAPPED_CODES = np.array([_SWAPPED[c] for c in range(ANY + 1)], dtype=np.int8)  # a region's

SYMMETRIES = ("full", "d4", "none")
"""The symmetries a pattern is searched up to: the 8 board maps with and without
colour exchange, the board maps only, or the identity only."""

MIN_PATTERN_SIZE = 2
"""The smallest board a pattern is searched on (the compiled kernel's too)."""
MAX_DIAGRAM_CHARS = 64 * 1024
"""A diagram longer than this is refused before it is read."""


@dataclass(frozen=True)
class Pattern:
    """A pattern on a ``size`` x ``size`` board: ``codes[row * size + col]`` (row 0
    the bottom line) is one of :data:`CODES`' values, :data:`OUTSIDE` for points
    outside the pattern's region; ``sequence`` the moves (colour ``'b'``/``'w'``
    and point) that must follow a hit, in order, inside the region."""

    size: int
    codes: tuple[int, ...]
    sequence: tuple[tuple[str, Point], ...] = ()

    def __post_init__(self) -> None:
        if self.size < MIN_PATTERN_SIZE:
            raise PatternError(f"a {self.size}x{self.size} pattern: patterns are searched on "
                               f"boards of {MIN_PATTERN_SIZE}x{MIN_PATTERN_SIZE} to 26x26")

    @cached_property
    def region(self) -> tuple[int, ...]:
        """The flat indexes of the region's points, in order."""
        return tuple(i for i, code in enumerate(self.codes) if code != OUTSIDE)

    def diagram(self) -> str:
        """The pattern as a diagram :func:`parse_pattern` reads, top row first."""
        n = self.size
        return "\n".join(
            "".join(_SYMBOLS[self.codes[row * n + col]] for col in range(n))
            for row in reversed(range(n))
        )

    def with_sequence(self, sequence: str | Sequence[tuple[str, str]]) -> Pattern:
        """The pattern followed by ``sequence`` (:func:`parse_sequence`)."""
        return Pattern(self.size, self.codes, parse_sequence(sequence, self))


def parse_pattern(text: str) -> Pattern:
    """The pattern of a full-board diagram: one line per board row, top row first,
    one character of :data:`CODES` per point (spaces between them and blank
    lines are ignored).

    Raises :class:`~gohash.errors.PatternError` naming the row (GTP numbering,
    1 at the bottom) or the point (GTP coordinates) of what is wrong: a row of
    another length than the number of rows, an unknown character, a region
    with no point, a single row (a 1x1 board: none is searched).
    """
    if len(text) > MAX_DIAGRAM_CHARS:
        raise PatternError(f"the diagram is longer than {MAX_DIAGRAM_CHARS} characters")
    rows = ["".join(line.split()) for line in text.splitlines()]
    rows = [row for row in rows if row]
    size = len(rows)
    if size == 0:
        raise PatternError(f"the diagram {text[:80]!r} has no rows")
    check_size(size)
    codes = [OUTSIDE] * (size * size)
    for top, line in enumerate(rows):
        row = size - 1 - top
        if len(line) != size:
            raise PatternError(
                f"row {row + 1} {line!r} has {len(line)} points; the diagram has {size} rows, "
                f"so every row needs {size}"
            )
        if not CODES.keys() >= set(line):
            col, symbol = next((c, x) for c, x in enumerate(line) if x not in CODES)
            raise PatternError(
                f"point {gtp((row, col), size)} (row {row + 1}) holds {symbol!r}; expected "
                "X (black), O (white), . (empty), * (any), x (black or empty), "
                "o (white or empty) or - (outside the pattern)"
            )
        codes[row * size : (row + 1) * size] = [CODES[symbol] for symbol in line]
    if codes.count(OUTSIDE) == len(codes):
        raise PatternError(f"the {size}x{size} diagram marks no point of the pattern "
                           "(every point is '-')")
    return Pattern(size, tuple(codes))


def parse_sequence(
    sequence: str | Sequence[tuple[str, str]], pattern: Pattern
) -> tuple[tuple[str, Point], ...]:
    """The moves of ``sequence``, a text of colour and GTP point pairs
    (``"B C3 W D4"``, commas allowed) or a list of such pairs; every point must
    lie in the pattern's region."""
    if isinstance(sequence, str):
        tokens = sequence.replace(",", " ").split()
        if len(tokens) % 2:
            raise PatternError(f"sequence {sequence!r} is not pairs of a colour and a point "
                               "like 'B C3 W D4'")
        pairs = list(zip(tokens[0::2], tokens[1::2], strict=True))
    else:
        pairs = [tuple(pair) for pair in sequence]  # type: ignore[misc]
    moves = []
    for colour, vertex in pairs:
        if not isinstance(colour, str) or colour.lower() not in ("b", "w"):
            raise PatternError(f"sequence colour {colour!r} is not B or W")
        try:
            point = parse_gtp(vertex, pattern.size)
        except ValueError:
            point = None
        if point is None:
            raise PatternError(
                f"sequence point {vertex!r} is not a point of a {pattern.size}x{pattern.size} "
                f"board (columns {GTP_COLUMNS[:pattern.size]}, rows 1..{pattern.size})"
            )
        if pattern.codes[point[0] * pattern.size + point[1]] == OUTSIDE:
            raise PatternError(f"sequence point {vertex!r} lies outside the pattern's region")
        moves.append((colour.lower(), point))
    return tuple(moves)


@dataclass(frozen=True)
class Placement:
    """The pattern mapped by ``element`` and then moved by ``offset`` (rows,
    columns): query point ``q`` lies at ``element.map_point(q) + offset``.

    ``points`` are the board points (flat indexes) of the query's region, in
    the query's order, and ``codes`` what each requires there (colours
    exchanged if the element swaps); ``key`` is the hash of the stones its
    fixed-colour points require; ``sequence`` the moves to follow, as (colour
    1 black / 2 white, board point).
    """

    element: Element
    offset: Point
    points: tuple[int, ...]
    codes: tuple[int, ...]
    key: int
    sequence: tuple[tuple[int, int], ...]

    def to_query(self, point: int, size: int) -> Point:
        """The query point at board point ``point`` (a flat index of the region)."""
        row, col = divmod(point, size)
        return self.element.inverse.map_point((row - self.offset[0], col - self.offset[1]),
                                              size)

    def query_colour(self, colour: str) -> str:
        """A colour on the board seen in the query's colours."""
        return self.element.map_colour(colour)


class Placements(Sequence[Placement]):
    """Every placement of a pattern (:func:`placements`) as arrays, one row a
    placement, all of the same length (a region's points): ``elements`` the
    index of each one's element in :data:`~gohash.group.symmetry.ELEMENTS`,
    ``offsets`` ``[placement, (rows, columns)]``, ``points`` and ``codes``
    ``[placement, query point]``, ``keys``, and ``sequences``
    ``[placement, step, (colour, point)]``; as :class:`Placement` s one by one
    (``placements[i]``), built when asked for: a query of thousands of
    placements reads the arrays and shows a page's few."""

    def __init__(self, elements: npt.NDArray[np.int8], offsets: npt.NDArray[np.int32],
                 points: npt.NDArray[np.int32], codes: npt.NDArray[np.int8],
                 keys: npt.NDArray[np.uint64], sequences: npt.NDArray[np.int32]) -> None:
        self.elements = elements
        self.offsets = offsets
        self.points = points
        self.codes = codes
        self.keys = keys
        self.sequences = sequences
        for array in (elements, offsets, points, codes, keys, sequences):
            array.flags.writeable = False

    def __len__(self) -> int:
        return len(self.keys)

    @overload
    def __getitem__(self, index: int) -> Placement: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Placement, ...]: ...

    def __getitem__(self, index: int | slice) -> Placement | tuple[Placement, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(len(self))[index])
        row, col = self.offsets[index].tolist()
        return Placement(ELEMENTS[int(self.elements[index])], (row, col),
                         tuple(self.points[index].tolist()), tuple(self.codes[index].tolist()),
                         int(self.keys[index]),
                         tuple((c, q) for c, q in self.sequences[index].tolist()))

    @property
    def swaps(self) -> npt.NDArray[np.bool_]:
        """Whether each placement's element exchanges colours."""
        return self.elements >= 8  # ELEMENTS' order: the last 8 exchange colours


def placements(
    pattern: Pattern, keys: KeyScheme, symmetry: str = "full"
) -> Placements:
    """Every placement of ``pattern`` under ``symmetry`` (one of
    :data:`SYMMETRIES`), anchored as the module docstring says, in order of
    element (:data:`~gohash.group.symmetry.ELEMENTS`' order), then of row and
    column offset; placements that require the same of the same points (and
    the same sequence) are one, that of the lowest element.  ``keys`` (a
    64-bit XOR scheme of the pattern's size) gives the keys."""
    OptionError.check("symmetry", symmetry, SYMMETRIES)
    if keys.size != pattern.size or keys.combiner != "xor" or keys.bits != 64:
        raise PatternError(f"placements need a 64-bit XOR scheme of size {pattern.size}, "
                           f"not {keys!r}")
    elements = {"full": ELEMENTS, "d4": D4, "none": ELEMENTS[:1]}[symmetry]
    n = pattern.size
    region = np.array(pattern.region, dtype=np.intp)
    query_codes = np.array(pattern.codes, dtype=np.int8)[region]
    seq_colours = np.array([1 if c == "b" else 2 for c, _ in pattern.sequence], dtype=np.int32)
    seq_points = np.array([_flat(q, n) for _, q in pattern.sequence], dtype=np.intp)
    # Each element's image of the region, and its slides along each axis
    # (_slides on every element at once): the placements of element e are
    # its image moved by (start_rows[e] + i, start_cols[e] + j), i < rows[e],
    # j < cols[e], row offset first.
    images = point_images(n)[[g.index for g in elements]]
    image = images[:, region]
    (start_rows, start_cols), (rows, cols) = _slides(np.stack(np.divmod(image, n)), n)
    per_element = rows * cols
    which = np.repeat(np.arange(len(elements)), per_element)
    k = np.arange(len(which)) - np.repeat(np.cumsum(per_element) - per_element, per_element)
    offsets = np.stack([start_rows[which] + k // cols[which],
                        start_cols[which] + k % cols[which]], axis=1)
    shift = (offsets[:, 0] * n + offsets[:, 1])[:, None]
    element = np.array([g.index for g in elements], dtype=np.int8)[which]
    swap = element >= 8  # as Placements.swaps
    points = (image[which] + shift).astype(np.int32)
    codes = np.where(swap[:, None], _SWAPPED_CODES[query_codes], query_codes).astype(np.int8)
    sequences = np.empty((len(element), len(seq_points), 2), dtype=np.int32)
    sequences[:, :, 0] = np.where(swap[:, None], 3 - seq_colours, seq_colours)
    sequences[:, :, 1] = images[:, seq_points][which] + shift
    # One placement for the same points with the same codes and sequence: the
    # first, as each row's sorted (point, code) pairs and sequence say.
    # lexsort is stable: the first of a run of equal rows is the first placed.
    identity = np.concatenate([np.sort(points * 8 + codes, axis=1),
                               sequences.reshape(len(element), -1)], axis=1)
    order = np.lexsort(identity.T[::-1])
    ordered = identity[order]
    kept = np.sort(order[np.concatenate([[True], (ordered[1:] != ordered[:-1]).any(axis=1)])])
    points, codes = points[kept], codes[kept]
    # A placement's key: the hash of the stones its fixed-colour points require.
    return Placements(element[kept], offsets[kept].astype(np.int32), points, codes,
                      np.bitwise_xor.reduce(stone_keys(keys)[points, codes], axis=1),
                      sequences[kept])


@lru_cache(maxsize=32)
def stone_keys(keys: KeyScheme) -> npt.NDArray[np.uint64]:
    """``[point, code]``: the key of the stone a code requires at a point (flat)
    in the scheme ``keys`` (black's for :data:`BLACK`, white's for :data:`WHITE`,
    0 for the others), read-only: the table a query's keys are gathered from,
    made once a scheme rather than from its keys (Python ints) each query."""
    table = np.zeros((keys.size * keys.size, ANY + 1), dtype=np.uint64)
    table[:, BLACK] = keys.black_keys
    table[:, WHITE] = keys.white_keys
    table.flags.writeable = False
    return table


def symmetries(pattern: Pattern, symmetry: str = "full") -> tuple[Element, ...]:
    """The elements of ``symmetry`` that map the pattern (its region, codes and
    sequence) onto itself where it stands, the identity first."""
    elements = {"full": ELEMENTS, "d4": D4, "none": ELEMENTS[:1]}[symmetry]
    n = pattern.size
    codes = np.array(pattern.codes, dtype=np.int8)
    region = np.array(pattern.region, dtype=np.intp)
    own = codes[region]
    # The codes each element carries onto the images of the region's points:
    # the same as the pattern's there (then the images are the region itself).
    swap = np.array([g.swap for g in elements])
    carried = np.where(swap[:, None], _SWAPPED_CODES[own], own)
    images = point_images(n)[[g.index for g in elements]][:, region]
    same = (codes[images] == carried).all(axis=1)
    return tuple(g for g, kept in zip(elements, same.tolist(), strict=True) if kept and tuple(
        (g.map_colour(c), g.map_point(q, n)) for c, q in pattern.sequence) == pattern.sequence)


def _slides(lines: npt.NDArray[np.intp], n: int) -> tuple[npt.NDArray[np.intp],
                                                          npt.NDArray[np.intp]]:
    """The offsets along an axis of each region of ``lines`` (its rows, or its
    columns, under each element, along the last axis; the rows and the columns
    stacked in front give both axes at once) as its first and how many: none
    (0, 1) if the region touches an edge of the axis, else every shift that
    keeps it off both edges."""
    low, high = lines.min(axis=-1), lines.max(axis=-1)
    fixed = (low == 0) | (high == n - 1)
    return np.where(fixed, 0, 1 - low), np.where(fixed, 1, n - 2 - high + low)


def _flat(point: Point, n: int) -> int:
    return point[0] * n + point[1]


