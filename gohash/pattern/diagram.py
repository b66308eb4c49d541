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
stones its fixed-colour points (``X``, ``O``, ``.``) require.  Under a
symmetry ``g`` the stones of a region map with their keys, ``h_{g(R)}(gP) =
T_g(h_R(P))``, so the key of each translation of the query's region is hashed
once and every element's placement derived from it by ``T_g``.  A key only
filters: a hit is confirmed point by point (:mod:`gohash.pattern.match`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import OptionError, PatternError
from ..group.coords import GTP_COLUMNS, gtp, parse_gtp
from ..group.schemes import KeyScheme
from ..group.symmetry import D4, ELEMENTS, Element, Point, check_size

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
    "parse_pattern",
    "parse_sequence",
    "placements",
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
        for col, symbol in enumerate(line):
            if symbol not in CODES:
                raise PatternError(
                    f"point {gtp((row, col), size)} (row {row + 1}) holds {symbol!r}; expected "
                    "X (black), O (white), . (empty), * (any), x (black or empty), "
                    "o (white or empty) or - (outside the pattern)"
                )
            codes[row * size + col] = CODES[symbol]
    if all(code == OUTSIDE for code in codes):
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


def placements(
    pattern: Pattern, keys: KeyScheme, symmetry: str = "full"
) -> tuple[Placement, ...]:
    """Every placement of ``pattern`` under ``symmetry`` (one of
    :data:`SYMMETRIES`), anchored as the module docstring says; placements that
    require the same of the same points (and the same sequence) are one, that
    of the lowest element.  ``keys`` (a 64-bit XOR scheme of the pattern's
    size) gives the keys."""
    OptionError.check("symmetry", symmetry, SYMMETRIES)
    if keys.size != pattern.size or keys.combiner != "xor" or keys.bits != 64:
        raise PatternError(f"placements need a 64-bit XOR scheme of size {pattern.size}, "
                           f"not {keys!r}")
    elements = {"full": ELEMENTS, "d4": D4, "none": ELEMENTS[:1]}[symmetry]
    n = pattern.size
    region = pattern.region
    query_points = [divmod(i, n) for i in region]
    base_keys: dict[Point, int] = {}
    seen: set[tuple[object, ...]] = set()
    found = []
    for g in elements:
        images = [g.map_point(p, n) for p in query_points]
        codes = tuple(_SWAPPED[pattern.codes[i]] if g.swap else pattern.codes[i] for i in region)
        rows = _slides([r for r, _ in images], n)
        cols = _slides([c for _, c in images], n)
        for dr in rows:
            for dc in cols:
                points = tuple((r + dr) * n + (c + dc) for r, c in images)
                sequence = tuple(
                    (1 if g.map_colour(colour) == "b" else 2,
                     _flat(_moved(g.map_point(point, n), (dr, dc)), n))
                    for colour, point in pattern.sequence
                )
                identity = (frozenset(zip(points, codes, strict=True)), sequence)
                if identity in seen:
                    continue
                seen.add(identity)
                # The pre-image of this placement under g is the query's
                # region translated by t: hash it once per t, then T_g.
                t = _translation(g, (dr, dc), query_points[0], images[0], n)
                if t not in base_keys:
                    base_keys[t] = _region_key(pattern, keys, t)
                found.append(Placement(g, (dr, dc), points, codes,
                                       keys.transform(base_keys[t], g), sequence))
    return tuple(found)


def symmetries(pattern: Pattern, symmetry: str = "full") -> tuple[Element, ...]:
    """The elements of ``symmetry`` that map the pattern (its region, codes and
    sequence) onto itself where it stands, the identity first."""
    elements = {"full": ELEMENTS, "d4": D4, "none": ELEMENTS[:1]}[symmetry]
    n = pattern.size
    codes = np.array(pattern.codes)
    region = np.array(pattern.region, dtype=np.intp)
    swapped = np.array([_SWAPPED[c] for c in range(ANY + 1)])  # the region's codes: 0 to ANY
    found = []
    for g in elements:
        # The codes g carries onto the images of the region's points: the same
        # as the pattern's there (then the images are the region itself).
        carried = swapped[codes[region]] if g.swap else codes[region]
        sequence = tuple((g.map_colour(c), g.map_point(q, n)) for c, q in pattern.sequence)
        if (codes[g.point_permutation(n)[region]] == carried).all() and (
                sequence == pattern.sequence):
            found.append(g)
    return tuple(found)


def _slides(lines: list[int], n: int) -> range:
    """The offsets along one axis: none if the region touches an edge of it, else
    every shift that keeps it off both edges."""
    low, high = min(lines), max(lines)
    if low == 0 or high == n - 1:
        return range(0, 1)
    return range(1 - low, n - 1 - high)


def _moved(point: Point, offset: Point) -> Point:
    return point[0] + offset[0], point[1] + offset[1]


def _flat(point: Point, n: int) -> int:
    return point[0] * n + point[1]


def _translation(g: Element, offset: Point, query: Point, image: Point, n: int) -> Point:
    """The translation ``t`` of the query with ``g(t(P)) = g(P) + offset``: that of
    one region point, ``query``, whose image under ``g`` is ``image``."""
    back = g.inverse.map_point(_moved(image, offset), n)
    return back[0] - query[0], back[1] - query[1]


def _region_key(pattern: Pattern, keys: KeyScheme, t: Point) -> int:
    """The hash of the stones the query's fixed-colour points require, the region
    translated by ``t``."""
    n = pattern.size
    h = 0
    for i, code in enumerate(pattern.codes):
        if code in (BLACK, WHITE):
            point = _flat(_moved(divmod(i, n), t), n)
            h ^= (keys.black_keys if code == BLACK else keys.white_keys)[point]
    return h
