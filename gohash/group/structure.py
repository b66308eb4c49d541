"""The structure of the key schemes: what their construction leaves each key and hash.

Scope: measurements, no printing; the figures of ``gohash audit`` without games
(:mod:`gohash.tools.audit` measures a collection).  For one scheme and board size:
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GohashError
from .coords import gtp
from .schemes import KeyScheme, scheme
from .symmetry import (
    D4,
    ELEMENTS,
    Element,
    Point,
    check_size,
    element,
    orbits_of_slots,
    point_orbits,
)

__all__ = [
    "FAMILIES",
    "POINT_CLASSES",
    "Pattern",
    "PatternResult",
    "PointClass",
    "SchemeStructure",
    "e4_openings",
    "fixed_bits",
    "free_bits",
    "gf2_rank",
    "handicap_stones",
    "key_classes",
    "key_rank",
    "pattern_results",
    "patterns",
    "point_class",
    "scheme_structure",
]

POINT_CLASSES = ("centre", "axis", "diagonal", "other")
"""Point classes by their stabilizer in D4: tengen, the two axes through it, the
two diagonals, and every other point (odd N; even N has only the last two)."""
FAMILIES = ("orbit8", "axis4", "diagonal4", "e3-handicap", "e4-pair", "e4-opening")
"""The structured families of :func:`patterns`, in report order."""

Board = npt.NDArray[np.int8]


# -- key structure -----------------------------------------------------------------------


def point_class(point: Point, size: int) -> str:
    """``"centre"``, ``"axis"``, ``"diagonal"`` or ``"other"``."""
    row, col = point
    last = check_size(size) - 1
    on_axis = 2 * row == last or 2 * col == last
    on_diagonal = row == col or row + col == last
    if on_axis and on_diagonal:
        return "centre"
    if on_axis:
        return "axis"
    return "diagonal" if on_diagonal else "other"


def fixed_bits(ks: KeyScheme, elements: Iterable[str | int | Element]) -> int:
    """Bits of a hash that every ``T_g``, ``g`` in ``elements``, leaves unchanged.

    A position fixed by those elements has a hash in that subspace (erratum E5).
    """
    perms = [ks.permutations[0]] + [ks.permutations[element(g).index] for g in elements]
    return ks.slot_bits * len(orbits_of_slots(perms))


def free_bits(ks: KeyScheme, point: Point) -> int:
    """Independent random bits in the black key of ``point``: the bits fixed by the
    slot permutations of the point's stabilizer, which every scheme must respect."""
    return fixed_bits(ks, (g for g in D4 if g.map_point(point, ks.size) == point))


@dataclass(frozen=True)
class PointClass:
    """One point class of a board size: how many points, and the free bits of their keys."""

    name: str
    points: int
    free_bits: int
    example: Point
    orbit_keys: int  # black and white keys of one D4-orbit of the class
    orbit_span: int | None  # their GF(2) rank, least over the class's orbits; None for "add"


def key_classes(ks: KeyScheme) -> list[PointClass]:
    """The point classes present on the scheme's board, in :data:`POINT_CLASSES` order."""
    found: dict[str, list[list[Point]]] = {}
    for orbit in point_orbits(ks.size):
        found.setdefault(point_class(orbit[0], ks.size), []).append(orbit)
    classes = []
    for name in POINT_CLASSES:
        if name in found:
            orbits = found[name]
            points = [p for orbit in orbits for p in orbit]
            bits = {free_bits(ks, p) for p in points}
            # Points of one class share their stabilizer's shape, hence their freedom.
            assert len(bits) == 1, (name, bits)
            span = None
            if ks.combiner == "xor":
                span = min(gf2_rank(ks.stone_key(p, c) for p in o for c in "bw") for o in orbits)
            classes.append(
                PointClass(name, len(points), bits.pop(), points[0], 2 * len(orbits[0]), span)
            )
    return classes


def gf2_rank(vectors: Iterable[int]) -> int:
    """Rank over GF(2) of integers read as bit vectors."""
    basis: dict[int, int] = {}  # leading bit -> basis vector with that leading bit
    for v in vectors:
        while v:
            top = v.bit_length() - 1
            if top not in basis:
                basis[top] = v
                break
            v ^= basis[top]
    return len(basis)


def key_rank(ks: KeyScheme) -> int | None:
    """GF(2) rank of all black and white keys for an XOR scheme; None for addition."""
    if ks.combiner != "xor":
        return None
    return gf2_rank(ks.black_keys + ks.white_keys)


# -- structured families of key sets -----------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    """Two positions whose hashes a structural weakness might make equal.

    ``keys`` is the number of stones in which they differ: the size of the key
    set whose sum decides the question.
    """

    family: str
    first: Board
    second: Board
    keys: int
    description: str


def _stones(size: int, black: Iterable[Point] = (), white: Iterable[Point] = ()) -> Board:
    board = np.zeros((size, size), dtype=np.int8)
    for row, col in black:
        board[row, col] = 1
    for row, col in white:
        board[row, col] = 2
    return board


def handicap_stones(size: int, count: int) -> list[Point]:
    """The 5- or 9-stone handicap of an odd board from 7x7: corner star points and
    tengen, and for 9 also the side star points (the third line below 13x13)."""
    if size % 2 == 0 or size < 7 or count not in (5, 9):
        raise GohashError(f"no {count}-stone handicap pattern on a {size}x{size} board")
    low = 3 if size >= 13 else 2
    high, mid = size - 1 - low, size // 2
    stones = [(low, low), (low, high), (high, low), (high, high), (mid, mid)]
    if count == 9:
        stones += [(mid, low), (mid, high), (low, mid), (high, mid)]
    return stones


def e4_openings(size: int) -> tuple[Board, Board]:
    """Erratum E4's openings: B cd, W pd, B qp, W dq and B dc, W pd, B pq, W dq
    (19x19 names; the same distances from the edges on other sizes from 9x9)."""
    if size < 9:
        raise GohashError(f"the E4 openings need a board of 9x9 or more, not {size}x{size}")
    last = size - 1
    white = [(last - 3, last - 3), (2, 3)]  # pd, dq
    first = _stones(size, black=[(last - 3, 2), (3, last - 2)], white=white)  # cd, qp
    second = _stones(size, black=[(last - 2, 3), (2, last - 3)], white=white)  # dc, pq
    return first, second


def patterns(size: int) -> list[Pattern]:
    """Every instance of the structured families on a board size, families in order:
    ``orbit8``, ``axis4``, ``diagonal4`` (black stones on one D4-orbit against the
    empty board), ``e3-handicap`` (9 against 5 handicap stones), ``e4-pair``
    (``{p, rot180 p}`` against its transpose, one per pair of pairs) and
    ``e4-opening``."""
    size = check_size(size)
    rot180, transpose = ELEMENTS[2], ELEMENTS[5]
    empty = _stones(size)
    found: list[Pattern] = []
    for orbit in point_orbits(size):
        cls = point_class(orbit[0], size)
        family = {8: "orbit8", 4: f"{cls}4"}.get(len(orbit))
        if family is not None:
            where = " ".join(gtp(p, size) for p in orbit)
            found.append(
                Pattern(
                    family,
                    _stones(size, black=orbit),
                    empty,
                    len(orbit),
                    f"black on the D4-orbit {where}",
                )
            )
    if size % 2 and size >= 7:
        nine, five = handicap_stones(size, 9), handicap_stones(size, 5)
        found.append(
            Pattern(
                "e3-handicap",
                _stones(size, black=nine),
                _stones(size, black=five),
                4,
                "9 handicap stones against 5",
            )
        )
    seen: set[frozenset[Point]] = set()
    for orbit in point_orbits(size):
        if len(orbit) != 8:
            continue
        for p in orbit:
            pair = frozenset((p, rot180.map_point(p, size)))
            image = frozenset(transpose.map_point(q, size) for q in pair)
            if pair in seen or image in seen:
                continue
            seen.add(pair)
            a, b = sorted(pair)
            c, d = sorted(image)
            found.append(
                Pattern(
                    "e4-pair",
                    _stones(size, black=pair),
                    _stones(size, black=image),
                    4,
                    f"black {gtp(a, size)} {gtp(b, size)} against {gtp(c, size)} {gtp(d, size)}",
                )
            )
    if size >= 9:
        first, second = e4_openings(size)
        found.append(
            Pattern(
                "e4-opening", first, second, 4, "B cd W pd B qp W dq against B dc W pd B pq W dq"
            )
        )
    return sorted(found, key=lambda p: FAMILIES.index(p.family))


@dataclass(frozen=True)
class PatternResult:
    """How one scheme fares on one family: instances whose two positions hash equal."""

    family: str
    keys: int
    instances: int
    equal: int
    example: str | None  # description of the first instance that hashes equal


def pattern_results(ks: KeyScheme) -> list[PatternResult]:
    """For each family present on the scheme's board size, in :func:`patterns` order."""
    found = patterns(ks.size)
    if not found:
        return []
    families = list(dict.fromkeys(p.family for p in found))
    first = ks.hash_arrays(np.stack([p.first for p in found]))
    second = ks.hash_arrays(np.stack([p.second for p in found]))
    same = (first == second).reshape(len(found), -1).all(axis=1)
    results = []
    for family in families:
        members = [i for i, p in enumerate(found) if p.family == family]
        equal = [i for i in members if same[i]]
        results.append(
            PatternResult(
                family,
                found[members[0]].keys,
                len(members),
                len(equal),
                found[equal[0]].description if equal else None,
            )
        )
    return results


@dataclass(frozen=True)
class SchemeStructure:
    """Everything :func:`scheme_structure` measures for one scheme and size."""

    scheme: str
    size: int
    bits: int
    combiner: str
    classes: list[PointClass]
    rank: int | None
    keys: int
    symmetric_bits: dict[str, int]
    patterns: list[PatternResult]

    @property
    def smallest(self) -> tuple[int, list[str]] | None:
        """The fewest keys whose sum equals another set's (a zero sum under XOR), and
        the families where that many were found; None if no family hashes alike."""
        found = [p for p in self.patterns if p.equal]
        if not found:
            return None
        keys = min(p.keys for p in found)
        return keys, [p.family for p in found if p.keys == keys]

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        smallest = self.smallest
        return {
            "scheme": self.scheme,
            "size": self.size,
            "bits": self.bits,
            "combiner": self.combiner,
            "point_classes": [asdict(c) for c in self.classes],
            "gf2_rank": self.rank,
            "keys": self.keys,
            "symmetric_position_bits": self.symmetric_bits,
            "smallest_equal": (
                None if smallest is None else {"keys": smallest[0], "families": smallest[1]}
            ),
            "patterns": [asdict(p) for p in self.patterns],
        }


def scheme_structure(name: str, size: int) -> SchemeStructure:
    """Free bits per point class, GF(2) rank, E5 bits and E3/E4 families of a scheme."""
    ks = scheme(name, size)
    symmetric = {"d4": fixed_bits(ks, D4)}
    for g in ELEMENTS[1:]:
        symmetric[g.name] = fixed_bits(ks, [g])
    return SchemeStructure(
        ks.name,
        ks.size,
        ks.bits,
        ks.combiner,
        key_classes(ks),
        key_rank(ks),
        2 * ks.size * ks.size,
        symmetric,
        pattern_results(ks),
    )
