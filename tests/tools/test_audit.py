"""Audit of the key structure: free bits, GF(2) rank, E5 bits, E3/E4 families, exact forms.

Every figure is checked against a computation that does not share the audit's
code: linear algebra on bit matrices with numpy, the generator's own draws, the
paper's figures, the hashes of explicitly built positions, or classes of positions
found by brute force over their images.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gohash import ELEMENTS, SCHEMES, scheme
from gohash.errors import GohashError, PositionError
from gohash.go.board import Board
from gohash.group.coords import parse_gtp
from gohash.group.structure import (
    FAMILIES,
    e4_openings,
    fixed_bits,
    free_bits,
    gf2_rank,
    handicap_stones,
    key_classes,
    key_rank,
    pattern_results,
    patterns,
    point_class,
    scheme_structure,
)
from gohash.group.symmetry import D4, point_orbits
from gohash.pipeline.frames import canonical_frame, pack_array, packed_rows, unpack_array
from gohash.tools.audit import CollectionAuditor
from tests.support.schemes import positions

# -- independent linear algebra ------------------------------------------------------------


def numpy_rank(vectors: list[int], bits: int) -> int:
    """GF(2) rank by row reduction of a 0/1 matrix (no shared code with gf2_rank)."""
    m = np.array([[(v >> i) & 1 for i in range(bits)] for v in vectors], dtype=np.uint8)
    m = m.reshape(len(vectors), bits)
    rank = 0
    for col in range(bits):
        pivots = np.flatnonzero(m[rank:, col]) + rank
        if not pivots.size:
            continue
        m[[rank, pivots[0]]] = m[[pivots[0], rank]]
        below = np.flatnonzero(m[:, col])
        below = below[below != rank]
        m[below] ^= m[rank]
        rank += 1
        if rank == m.shape[0]:
            break
    return rank


def fixed_dimension(name: str, size: int, elements: list[str]) -> int:
    """Dimension of the bits fixed by every T_g: bits minus the rank of v -> (T_g v + v)_g."""
    ks = scheme(name, size)
    images = []
    for i in range(ks.bits):
        e = 1 << i
        concat = 0
        for g in elements:
            concat = (concat << ks.bits) | (ks.transform(e, g) ^ e)
        images.append(concat)
    return ks.bits - numpy_rank(images, ks.bits * len(elements))


@given(st.lists(st.integers(0, 2**40 - 1), max_size=30))
@settings(max_examples=60, deadline=None)
def test_gf2_rank_agrees_with_row_reduction(vectors: list[int]) -> None:
    assert gf2_rank(vectors) == numpy_rank(vectors, 40)


def test_gf2_rank_small_cases() -> None:
    assert gf2_rank([]) == 0
    assert gf2_rank([0, 0]) == 0
    assert gf2_rank([0b011, 0b101, 0b110]) == 2
    assert gf2_rank([1, 2, 4, 8]) == 4


# -- free bits per point class ---------------------------------------------------------------


def test_point_classes_of_19x19() -> None:
    assert point_class((9, 9), 19) == "centre"
    assert point_class((9, 3), 19) == "axis"
    assert point_class((0, 9), 19) == "axis"
    assert point_class((3, 3), 19) == "diagonal"
    assert point_class((3, 15), 19) == "diagonal"
    assert point_class((2, 3), 19) == "other"
    counts = {c.name: c.points for c in key_classes(scheme("huima64", 19))}
    assert counts == {"centre": 1, "axis": 36, "diagonal": 36, "other": 288}


@pytest.mark.parametrize("name", ["huima64", "huima64-add"])
def test_huima64_19x19_free_bits_are_the_papers(name: str) -> None:
    bits = {c.name: c.free_bits for c in key_classes(scheme(name, 19))}
    assert bits == {"centre": 16, "axis": 32, "diagonal": 48, "other": 64}


@pytest.mark.parametrize("size", [2, 8, 18])
def test_even_sizes_have_no_centre_and_no_axis(size: int) -> None:
    names = [c.name for c in key_classes(scheme("huima64", size))]
    assert "centre" not in names and "axis" not in names
    assert "diagonal" in names


@pytest.mark.parametrize("name", SCHEMES)
@pytest.mark.parametrize("size", [5, 6, 19])
def test_free_bits_are_the_fixed_space_of_the_stabilizer(name: str, size: int) -> None:
    ks = scheme(name, size)
    for orbit in point_orbits(size):
        p = orbit[0]
        stab = [g.name for g in D4 if g.map_point(p, size) == p]
        assert free_bits(ks, p) == fixed_dimension(name, size, stab)


@pytest.mark.parametrize("name", ["regular64", "regular128"])
def test_regular_free_bits_count_the_generators_draws(name: str) -> None:
    """A regular key's slot s is the plain value of (s.p, s.colour): one draw of
    slot_bits bits per distinct pair."""
    ks = scheme(name, 19)
    for p in [(9, 9), (9, 2), (4, 4), (2, 5)]:
        pairs = {(g.map_point(p, 19), g.map_colour("b")) for g in ELEMENTS}
        assert free_bits(ks, p) == ks.slot_bits * len(pairs)
    bits = {c.name: c.free_bits for c in key_classes(ks)}
    w = ks.slot_bits
    assert bits == {"centre": 2 * w, "axis": 8 * w, "diagonal": 8 * w, "other": 16 * w}


def test_huima64_keys_have_the_papers_forms() -> None:
    ks = scheme("huima64", 19)
    tengen = ks.stone_key((9, 9), "b").to_bytes(8, "big")
    assert len(set(tengen[:4])) == 1 and len(set(tengen[4:])) == 1
    for p in [(9, 3), (4, 4), (2, 5)]:
        key = ks.stone_key(p, "b")
        stab = [g for g in D4 if g.map_point(p, 19) == p]
        assert all(ks.transform(key, g) == key for g in stab)


# -- rank and symmetric positions ------------------------------------------------------------


@pytest.mark.parametrize(
    "name,size",
    [
        ("huima64", 19),
        ("huima64", 9),
        ("huima64", 7),
        ("regular64", 9),
        ("regular128", 9),
        ("regular128", 19),
    ],
)
def test_key_rank_agrees_with_row_reduction(name: str, size: int) -> None:
    ks = scheme(name, size)
    assert key_rank(ks) == numpy_rank(list(ks.black_keys + ks.white_keys), ks.bits)


def test_key_rank_figures() -> None:
    assert key_rank(scheme("huima64", 19)) == 64
    assert key_rank(scheme("regular128", 19)) == 128
    assert key_rank(scheme("huima64-add", 19)) is None
    # On 9x9 only 6 generic orbits reach the top of the module: rank below the width.
    assert key_rank(scheme("huima64", 9)) == 62
    assert key_rank(scheme("regular128", 9)) == 122


def test_generic_orbit_keys_span_12_dimensions_under_huima64() -> None:
    """Four relations among the 16 keys of a generic orbit: the two orbit sums
    (E3) and one E4 relation per colour; the regular scheme has none of them."""
    spans = {c.name: c.orbit_span for c in key_classes(scheme("huima64", 19))}
    assert spans == {"centre": 2, "axis": 6, "diagonal": 8, "other": 12}
    orbit = point_orbits(19)[1]
    for name, expected in [("huima64", 12), ("regular128", 16)]:
        ks = scheme(name, 19)
        keys = [ks.stone_key(p, c) for p in orbit for c in "bw"]
        assert numpy_rank(keys, ks.bits) == expected


@pytest.mark.parametrize("name", SCHEMES)
def test_symmetric_position_bits_are_fixed_dimensions(name: str) -> None:
    ks = scheme(name, 9)
    for g in ["rot90", "rot180", "transpose", "swap", "rot180_swap"]:
        assert fixed_bits(ks, [g]) == fixed_dimension(name, 9, [g])
    assert fixed_bits(ks, D4) == fixed_dimension(name, 9, ["rot90", "flip"])


def test_e5_figures() -> None:
    s = scheme_structure("huima64", 19).symmetric_bits
    assert (s["d4"], s["rot180_swap"], s["transpose"]) == (16, 32, 48)
    r = scheme_structure("regular64", 19).symmetric_bits
    assert (r["d4"], r["rot180_swap"], r["transpose"]) == (8, 32, 32)


@pytest.mark.parametrize("name", SCHEMES)
def test_a_symmetric_position_hashes_into_the_fixed_space(name: str) -> None:
    ks = scheme(name, 19)
    board = np.zeros((19, 19), dtype=np.int8)
    board[3, 3] = board[3, 15] = board[15, 3] = board[15, 15] = 1
    board[2, 5] = 2
    board = np.maximum.reduce([g.image_array(board) for g in D4])
    h = ks.hash_array(board)
    assert all(ks.transform(h, g) == h for g in D4)


# -- zero sums and equal-hash pairs ----------------------------------------------------------


def hash_of(name: str, size: int, black: list[str], white: list[str] = ()) -> int:  # type: ignore[assignment]
    ks = scheme(name, size)
    board = np.zeros((size, size), dtype=np.int8)
    for v in black:
        board[parse_gtp(v, size)] = 1
    for v in white:
        board[parse_gtp(v, size)] = 2
    return ks.hash_array(board)


def test_e3_side_star_points_xor_to_zero_under_huima64_only() -> None:
    sides = ["D10", "Q10", "K4", "K16"]
    ks = scheme("huima64", 19)
    total = 0
    for v in sides:
        total ^= ks.stone_key(parse_gtp(v, 19), "b")
    assert total == 0
    nine = ["D4", "Q4", "D16", "Q16", "K10", *sides]
    five = nine[:5]
    assert hash_of("huima64", 19, nine) == hash_of("huima64", 19, five)
    for name in ["huima64-add", "regular64", "regular128"]:
        assert hash_of(name, 19, nine) != hash_of(name, 19, five)
        assert hash_of(name, 19, sides) != 0


def test_e4_openings_hash_equal_under_both_huima_combiners_only() -> None:
    first = hash_of("huima64", 19, ["C16", "R4"], ["Q16", "D3"])
    assert first == hash_of("huima64", 19, ["D17", "Q3"], ["Q16", "D3"])
    for name in SCHEMES:
        a, b = e4_openings(19)
        equal = scheme(name, 19).hash_array(a) == scheme(name, 19).hash_array(b)
        assert equal == name.startswith("huima64"), name
        # Exactly: the frames differ, though the keys of the huima64 schemes do not.
        keys = scheme(name, 19)
        assert canonical_frame(a, keys)[1] != canonical_frame(b, keys)[1]


def test_e4_openings_are_the_sgf_moves() -> None:
    a, b = e4_openings(19)
    expected_a = Board(19)
    for move, colour in [((15, 2), "b"), ((15, 15), "w"), ((3, 16), "b"), ((2, 3), "w")]:
        expected_a.play(move, colour)
    assert (a == expected_a.to_array()).all()
    assert sorted(map(tuple, np.argwhere(b == 1).tolist())) == [(2, 15), (16, 3)]


def test_handicap_stones() -> None:
    assert len(handicap_stones(19, 9)) == 9
    assert set(handicap_stones(19, 5)) < set(handicap_stones(19, 9))
    assert (9, 3) in handicap_stones(19, 9)
    with pytest.raises(GohashError, match="18x18"):
        handicap_stones(18, 9)


def results(name: str, size: int) -> dict[str, tuple[int, int]]:
    return {r.family: (r.instances, r.equal) for r in pattern_results(scheme(name, size))}


def test_family_results_19x19() -> None:
    assert results("huima64", 19) == {
        "orbit8": (36, 36),
        "axis4": (9, 9),
        "diagonal4": (9, 0),
        "e3-handicap": (1, 1),
        "e4-pair": (72, 72),
        "e4-opening": (1, 1),
    }
    assert results("huima64-add", 19) == {
        "orbit8": (36, 0),
        "axis4": (9, 0),
        "diagonal4": (9, 0),
        "e3-handicap": (1, 0),
        "e4-pair": (72, 72),
        "e4-opening": (1, 1),
    }
    for name in ["regular64", "regular128"]:
        assert all(equal == 0 for _, equal in results(name, 19).values())


def test_smallest_sets_that_hash_alike() -> None:
    assert scheme_structure("huima64", 19).smallest == (
        4,
        ["axis4", "e3-handicap", "e4-pair", "e4-opening"],
    )
    assert scheme_structure("huima64-add", 19).smallest == (4, ["e4-pair", "e4-opening"])
    assert scheme_structure("huima64", 18).smallest == (4, ["e4-pair", "e4-opening"])
    assert scheme_structure("regular64", 19).smallest is None


def test_families_on_even_and_tiny_boards() -> None:
    assert set(results("huima64", 18)) == {"orbit8", "diagonal4", "e4-pair", "e4-opening"}
    assert results("huima64", 2) == {"diagonal4": (1, 0)}
    assert results("huima64", 1) == {}


def test_every_pattern_differs_in_the_stated_number_of_stones() -> None:
    for size in (9, 19):
        for p in patterns(size):
            assert int((p.first != p.second).sum()) == p.keys, p.description
            assert p.family in FAMILIES


def test_scheme_structure_json_round_trips_the_figures() -> None:
    s = scheme_structure("huima64", 19).to_json()
    assert s["gf2_rank"] == 64 and s["keys"] == 722
    assert [c["free_bits"] for c in s["point_classes"]] == [16, 32, 48, 64]
    assert s["point_classes"][0] == {
        "name": "centre",
        "points": 1,
        "free_bits": 16,
        "example": (9, 9),
        "orbit_keys": 2,
        "orbit_span": 2,
    }
    add = scheme_structure("huima64-add", 19).to_json()
    assert add["gf2_rank"] is None
    assert all(c["orbit_span"] is None for c in add["point_classes"])
    assert s["patterns"][0] == {
        "family": "orbit8",
        "keys": 8,
        "instances": 36,
        "equal": 36,
        "example": "black on the D4-orbit B1 S1 A2 T2 A18 T18 B19 S19",
    }


# -- packing, and the exact forms of a collection ----------------------------------------------


@given(positions(max_size=13))
@settings(max_examples=40, deadline=None)
def test_packing_matches_the_boards_position_key(case: tuple[int, np.ndarray]) -> None:
    n, board = case
    packed = pack_array(board)
    assert packed == packed_rows(board[np.newaxis])[0].tobytes()
    assert (unpack_array(packed) == board).all()
    # The documented packing, computed another way: the points as one base-4 number.
    digits = int("".join(str(int(v)) for v in board.flat), 4)
    assert packed == bytes([n]) + digits.to_bytes((n * n + 3) // 4, "big")


def test_packing_matches_the_boards_position_key_on_a_game() -> None:
    board = Board(9)
    for move, colour in [((2, 2), "b"), ((6, 6), "w"), ((4, 4), "b"), ((8, 0), "w")]:
        board.play(move, colour)
    assert board.position_key() == pack_array(board.to_array())


def brute_images(board: np.ndarray, group: str) -> list[np.ndarray]:
    """Every image of ``board[row, col]`` under the group, from the point maps of
    docs/design.md, section "The 16 elements", with numpy's own rotations (row 0
    the bottom line: rot90 counter-clockwise is numpy's clockwise quarter turn of
    the stored array), not gohash.group.symmetry."""
    maps = [np.rot90(board, -k) for k in range(4)]
    maps += [np.flip(m, axis=1) for m in maps]
    if group == "full":
        maps += [np.choose(m, [0, 2, 1]) for m in maps]
    return maps


def brute_form(board: np.ndarray, group: str) -> bytes:
    return min(np.ascontiguousarray(m, dtype=np.int8).tobytes() for m in brute_images(board, group))


@given(
    st.integers(1, 7),
    st.integers(0, 2**32 - 1),
    st.sampled_from(SCHEMES),
    st.sampled_from(["full", "d4"]),
)
@settings(max_examples=40, deadline=None)
def test_collection_figures_equal_brute_force(n: int, seed: int, first: str, group: str) -> None:
    """Distinct positions, per move number, and each scheme's keys, merges and
    symmetric merges, against classes found by brute force over the images, with
    any scheme's frame as the exact form."""
    rng = np.random.default_rng(seed)
    boards = np.where(
        rng.random((16, n, n)) < 0.3, rng.integers(1, 3, size=(16, n, n)), 0
    ).astype(np.int8)
    boards[1] = np.zeros((n, n))
    for i in (2, 3, 4):  # images of others, and a position with a symmetry
        boards[i] = brute_images(boards[i + 3], "full")[int(rng.integers(16))]
    boards[5] = np.maximum(boards[5], np.rot90(boards[5], 2))
    boards[6] = np.where(boards[6] > 0, 3 - boards[6], 0)  # colours exchanged
    moves = rng.integers(0, 4, size=16).tolist()
    names = [first, *(name for name in SCHEMES if name != first)]
    auditor = CollectionAuditor(names, symmetry=group)
    auditor.locations.append(("built", 0))
    auditor.add_positions(boards, moves, 0)
    (audit,) = auditor.result().sizes
    forms = [brute_form(b, group) for b in boards]
    symmetric = {
        f: sum(np.array_equal(m, b) for m in brute_images(b, group)) > 1
        for f, b in zip(forms, boards, strict=True)
    }
    assert audit.distinct == len(set(forms))
    assert audit.by_move == [
        (m, moves.count(m), len({f for f, mm in zip(forms, moves, strict=True) if mm == m}))
        for m in sorted(set(moves))
    ]
    for name in names:
        ks = scheme(name, n)
        keys = [ks.canonical(ks.hash_array(b), group)[0] for b in boards]
        per_key: dict[int, set[bytes]] = {}
        for k, f in zip(keys, forms, strict=True):
            per_key.setdefault(k, set()).add(f)
        assert audit.keys[name] == len(per_key)
        assert audit.merged[name] == sum(len(fs) - 1 for fs in per_key.values())
        assert audit.merged_keys[name] == sum(len(fs) > 1 for fs in per_key.values())
        assert audit.merged_symmetric[name] == sum(
            len(fs) > 1 and all(symmetric[f] for f in fs) for fs in per_key.values()
        )
        assert audit.split[name] == 0


def test_merged_symmetric_counts_the_e3_handicap_positions() -> None:
    """The 9 and 5 handicap stones (E3: one huima64 hash) are D4-symmetric: their
    merge is a symmetric one; the E4 openings (no symmetry) merge, but not so."""
    nine = np.zeros((19, 19), dtype=np.int8)
    five = nine.copy()
    for p in handicap_stones(19, 9):
        nine[p] = 1
    for p in handicap_stones(19, 5):
        five[p] = 1
    auditor = CollectionAuditor(["regular64", "huima64"])
    auditor.locations.append(("built", 0))
    auditor.add_positions(np.stack([nine, five, *e4_openings(19)]), [0, 0, 4, 4], 0)
    (audit,) = auditor.result().sizes
    assert (audit.distinct, audit.merged["huima64"], audit.merged_keys["huima64"]) == (4, 2, 2)
    assert audit.merged_symmetric == {"regular64": 0, "huima64": 1}


@pytest.mark.parametrize(
    "bad,reason",
    [
        (np.zeros((2, 3, 4), dtype=np.int8), "shape"),
        (np.full((1, 3, 3), 3, dtype=np.int8), "holds 3"),
        (np.zeros((1, 3, 3), dtype=np.float64), "dtype"),
        (np.zeros((3, 3), dtype=np.int8), "shape"),
    ],
)
def test_bad_position_batches_are_refused(bad: np.ndarray, reason: str) -> None:
    auditor = CollectionAuditor(["huima64"])
    auditor.locations.append(("built", 0))
    with pytest.raises(PositionError, match=reason):
        auditor.add_positions(bad, [0] * len(bad), 0)
