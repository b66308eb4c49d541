"""Key tables re-derived from the documented generator, independently of gohash.

:mod:`gohash.group.schemes` documents how every key table is drawn from the SHAKE-256
stream of ``gohash-keys-v1|<family>|<size>``.  This test follows that text with
code of its own: the point maps of docs/design.md, section "The 16 elements"
(written out in test_symmetry) and Huima's byte permutations are written out
here, stabilizers and slot orbits are found by brute force, and nothing of
:mod:`gohash.group.symmetry` or :mod:`gohash.group.schemes` is used but the finished tables
under test.  Every key of every size must agree, and the golden values in
``test_schemes.py`` must be what this derivation gives.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from gohash.group.schemes import SCHEMES, scheme
from tests.support.schemes import GOLDEN, TEN_STONES
from tests.support.symmetry import DESIGN_MAPS

Point = tuple[int, int]  # (row, col)
Bytes8 = list[int]

# The point maps of docs/design.md, written out in test_symmetry, in gohash's element order.
POINT_MAPS = DESIGN_MAPS
D4_NAMES = list(POINT_MAPS)


def move(name: str, point: Point, n: int) -> Point:
    row, col = point
    x, y = POINT_MAPS[name](col, row, n)
    return (y, x)


# docs/design.md, section "The key schemes": T_rho and T_mu on the bytes z1..z8
# (index 0 = z1, most significant).
def t_rho(z: Bytes8) -> Bytes8:
    return [z[1], z[2], z[3], z[0], z[5], z[6], z[7], z[4]]


def t_mu(z: Bytes8) -> Bytes8:
    return [z[3], z[2], z[1], z[0], z[7], z[6], z[5], z[4]]


def t_kappa(z: Bytes8) -> Bytes8:
    return z[4:] + z[:4]


def power(f: Callable[[Bytes8], Bytes8], k: int) -> Callable[[Bytes8], Bytes8]:
    def g(z: Bytes8) -> Bytes8:
        for _ in range(k):
            z = f(z)
        return z

    return g


# Each element as rho^k, then mu if it reflects (the point maps compose the same way:
# transpose = flip after rot90, and so on); T is a homomorphism, so T_g follows.
T_D4: dict[str, Callable[[Bytes8], Bytes8]] = {
    name: (lambda z, k=k, m=m: t_mu(power(t_rho, k)(z)) if m else power(t_rho, k)(z))
    for name, k, m in [
        ("identity", 0, False), ("rot90", 1, False), ("rot180", 2, False), ("rot270", 3, False),
        ("flip", 0, True), ("transpose", 1, True), ("flipud", 2, True), ("antitranspose", 3, True),
    ]
}


def join(values: list[int], bits: int) -> int:
    h = 0
    for v in values:
        h = (h << bits) | v
    return h


def stream(family: str, n: int, nbytes: int) -> bytes:
    return hashlib.shake_256(f"gohash-keys-v1|{family}|{n}".encode("ascii")).digest(nbytes)


def huima_tables(n: int) -> tuple[list[int], list[int], int]:
    """Black keys, white keys (row * n + col order) and t_B, as documented."""
    points = [(r, c) for r in range(n) for c in range(n)]
    representatives = [p for p in points if min(move(g, p, n) for g in D4_NAMES) == p]
    data = stream("huima64", n, 8 * len(representatives) + 2)
    black = [-1] * (n * n)
    white = [-1] * (n * n)
    for k, p in enumerate(representatives):
        raw = list(data[8 * k : 8 * k + 8])
        stabilizer = [g for g in D4_NAMES if move(g, p, n) == p]
        # Slots that the stabilizer's permutations move into each other share the
        # byte of the lowest of them.  The stabilizer is a group, so a slot's orbit
        # is the set of slots its byte is taken from by each element.
        images = [T_D4[g](list(range(8))) for g in stabilizer]
        label = [min(image[slot] for image in images) for slot in range(8)]
        value = [raw[label[slot]] for slot in range(8)]
        for g in D4_NAMES:
            row, col = move(g, p, n)
            key = T_D4[g](value)
            index = row * n + col
            assert black[index] in (-1, join(key, 8)), "stabilizer-invariance failed"
            black[index] = join(key, 8)
            white[index] = join(t_kappa(key), 8)
    a, b = data[-2], data[-1]
    if a == b:
        b = (a + 1) % 256
    return black, white, join([a] * 4 + [b] * 4, 8)


def regular_tables(n: int, bits: int) -> tuple[list[int], list[int], int]:
    slot_bits = bits // 16
    mask = (1 << slot_bits) - 1
    data = stream(f"regular{bits}", n, 2 * n * n + 2)

    def plain(point: Point, colour: str) -> int:
        return data[2 * (point[0] * n + point[1]) + (colour == "w")] & mask

    other = {"b": "w", "w": "b"}

    def key(point: Point, colour: str) -> int:
        # Slot s holds f(s.x): the 8 board maps, then the same 8 with colours exchanged.
        slots = [plain(move(g, point, n), colour) for g in D4_NAMES]
        slots += [plain(move(g, point, n), other[colour]) for g in D4_NAMES]
        return join(slots, slot_bits)

    points = [(r, c) for r in range(n) for c in range(n)]
    side_b, side_w = data[-2] & mask, data[-1] & mask
    if side_b == side_w:
        side_w = (side_b + 1) & mask
    return (
        [key(p, "b") for p in points],
        [key(p, "w") for p in points],
        join([side_b] * 8 + [side_w] * 8, slot_bits),
    )


def derived(name: str, n: int) -> tuple[list[int], list[int], int]:
    if name.startswith("huima64"):
        return huima_tables(n)
    return regular_tables(n, int(name.removeprefix("regular")))


@pytest.mark.parametrize("name", SCHEMES)
@pytest.mark.parametrize("n", range(1, 27))
def test_tables_follow_the_documented_generator(name: str, n: int) -> None:
    black, white, side = derived(name, n)
    s = scheme(name, n)
    assert list(s.black_keys) == black
    assert list(s.white_keys) == white
    assert s.side_key("b") == side


def combine_bytewise(a: int, b: int) -> int:
    return join([(x + y) % 256 for x, y in zip(a.to_bytes(8, "big"), b.to_bytes(8, "big"),
                                                strict=True)], 8)


@pytest.mark.parametrize(("name", "n"), sorted(GOLDEN))
def test_golden_values_are_the_derivation(name: str, n: int) -> None:
    black, white, side = derived(name, n)
    width = 16 if name == "regular128" else 8
    h = 0
    for (row, col), colour in TEN_STONES:
        k = (black if colour == 1 else white)[row * n + col]
        h = combine_bytewise(h, k) if name == "huima64-add" else h ^ k
    expected = tuple(f"0x{v:0{width * 2}x}" for v in (black[0], white[n + 2], side, h))
    assert expected == GOLDEN[name, n]
