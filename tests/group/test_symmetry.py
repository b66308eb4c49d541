"""The group table: names, composition, inverses and point maps.

The point maps are those of docs/design.md, section "The 16 elements".
"""

from __future__ import annotations

import numpy as np
import pytest

from gohash import D4, ELEMENTS, UnknownElementError, element
from gohash.errors import BoardSizeError
from gohash.group.schemes import HUIMA_PERMUTATIONS, REGULAR_PERMUTATIONS
from gohash.group.symmetry import check_size, compose_slots, elements_of, point_orbits, stabilizer
from tests.support.symmetry import DESIGN_MAPS, design_map

NAMES = [
    "identity", "rot90", "rot180", "rot270", "flip", "transpose", "flipud", "antitranspose",
    "swap", "rot90_swap", "rot180_swap", "rot270_swap",
    "flip_swap", "transpose_swap", "flipud_swap", "antitranspose_swap",
]


def test_table_order_and_names() -> None:
    assert [g.name for g in ELEMENTS] == NAMES
    assert [g.index for g in ELEMENTS] == list(range(16))
    assert ELEMENTS[:8] == D4
    assert [g.swap for g in ELEMENTS] == [False] * 8 + [True] * 8


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 19])
def test_point_maps_follow_the_design_table(n: int) -> None:
    for g in ELEMENTS:
        for row in range(n):
            for col in range(n):
                assert g.map_point((row, col), n) == design_map(g.name, (row, col), n), g


def test_composition_is_composition_of_maps() -> None:
    n = 5
    points = [(r, c) for r in range(n) for c in range(n)]
    for a in ELEMENTS:
        for b in ELEMENTS:
            ab = a.compose(b)
            assert ab.swap == (a.swap != b.swap)
            for p in points:
                assert design_map(ab.name, p, n) == design_map(a.name, design_map(b.name, p, n), n)


def test_inverse_and_identity() -> None:
    for g in ELEMENTS:
        assert g.compose(g.inverse) == ELEMENTS[0] == g.inverse.compose(g)
        assert g.compose(ELEMENTS[0]) == g


def act(perm: tuple[int, ...], slots: tuple[int, ...]) -> tuple[int, ...]:
    """A slot permutation acting on slots, as the module docstring defines it."""
    return tuple(slots[i] for i in perm)


@pytest.mark.parametrize("perms", [HUIMA_PERMUTATIONS, REGULAR_PERMUTATIONS])
def test_slot_permutations_are_a_homomorphism(perms: tuple[tuple[int, ...], ...]) -> None:
    # T_(a.b) must be T_a after T_b, applied to the slots one after the other:
    # the theorem Z(a.(b.P)) = T_a(Z(b.P)) = T_a(T_b(Z(P))) needs exactly that.
    # compose_slots, which built these tables, is checked against that, not trusted.
    assert len(set(perms)) == 16, "the action must be faithful"
    slots = tuple(range(100, 100 + len(perms[0])))
    for a in ELEMENTS:
        for b in ELEMENTS:
            ab = a.compose(b)
            assert act(perms[ab.index], slots) == act(perms[a.index], act(perms[b.index], slots))
            assert compose_slots(perms[a.index], perms[b.index]) == perms[ab.index]


def test_huima_generators_match_the_paper() -> None:
    z = "12345678"
    assert "".join(z[i] for i in HUIMA_PERMUTATIONS[element("rot90").index]) == "23416785"
    assert "".join(z[i] for i in HUIMA_PERMUTATIONS[element("flip").index]) == "43218765"
    assert "".join(z[i] for i in HUIMA_PERMUTATIONS[element("swap").index]) == "56781234"


def test_lookup_by_name_index_and_element() -> None:
    for g in ELEMENTS:
        assert element(g.name) is g
        assert element(g.index) is g
        assert element(g) is g
        assert element(np.int64(g.index)) is g


@pytest.mark.parametrize("bad", ["rot45", "", "ROT90", 16, -1, True, 2.0, None])
def test_unknown_elements_are_named_in_the_error(bad: object) -> None:
    with pytest.raises(UnknownElementError, match=repr(bad).replace("(", r"\(")):
        element(bad)  # type: ignore[arg-type]
    assert issubclass(UnknownElementError, ValueError)


def test_groups_by_name() -> None:
    assert elements_of("d4") == D4
    assert elements_of("full") == ELEMENTS
    with pytest.raises(UnknownElementError, match="'d8'"):
        elements_of("d8")


@pytest.mark.parametrize("bad", [0, 27, -3, 19.0, "19", True])
def test_board_sizes_outside_range(bad: object) -> None:
    with pytest.raises(BoardSizeError, match=repr(bad)):
        check_size(bad)


@pytest.mark.parametrize("n", range(1, 27))
def test_orbits_and_stabilizers(n: int) -> None:
    # By brute force over the point maps of docs/design.md: a point's orbit is its images,
    # its stabilizer the maps that fix it.
    expected: list[list[tuple[int, int]]] = []
    for p in [(r, c) for r in range(n) for c in range(n)]:
        if not any(p in orbit for orbit in expected):
            expected.append(sorted({design_map(name, p, n) for name in DESIGN_MAPS}))
        fixing = [name for name in DESIGN_MAPS if design_map(name, p, n) == p]
        assert [g.name for g in stabilizer(p, n)] == fixing
    assert point_orbits(n) == expected
    for orbit in expected:
        # Orbit-stabilizer: |orbit| * |stabilizer| = |D4|.
        assert len(orbit) * len(stabilizer(orbit[0], n)) == 8
    centres = [o for o in expected if len(o) == 1]
    assert len(centres) == n % 2


def test_image_array_matches_point_maps_and_batches() -> None:
    rng = np.random.default_rng(7)
    boards = rng.integers(0, 3, size=(4, 6, 6)).astype(np.int8)
    for g in ELEMENTS:
        images = g.image_array(boards)
        for b in range(4):
            single = g.image_array(boards[b])
            assert np.array_equal(images[b], single)
            for row in range(6):
                for col in range(6):
                    r, c = design_map(g.name, (row, col), 6)
                    v = boards[b, row, col]
                    assert single[r, c] == ((3 - v) % 3 if g.swap else v)

