"""Key schemes: the symmetry theorem, canonical keys, key forms, errata, golden values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gohash.group.schemes
from gohash import (
    ELEMENTS,
    SCHEMES,
    BoardSizeError,
    ColourError,
    PositionError,
    UnknownElementError,
    UnknownSchemeError,
    element,
    scheme,
)
from gohash.group.coords import parse_gtp
from gohash.group.symmetry import stabilizer
from tests.support.schemes import GOLDEN, TEN_STONES, positions
from tests.support.symmetry import design_map

# -- independent images ----------------------------------------------------------------------


def image(board: np.ndarray, name: str) -> np.ndarray:
    """The image of a position array under an element, from the point maps of
    docs/design.md, section "The 16 elements"."""
    n = board.shape[0]
    out = np.zeros_like(board)
    swap = name == "swap" or name.endswith("_swap")
    for row in range(n):
        for col in range(n):
            v = int(board[row, col])
            if swap and v:
                v = 3 - v
            out[design_map(name, (row, col), n)] = v
    return out


def swapped_side(colour: str | None, name: str) -> str | None:
    if colour is None or not (name == "swap" or name.endswith("_swap")):
        return colour
    return "w" if colour == "b" else "b"


def least(images: list[int], group: str = "full") -> tuple[int, tuple[str, ...]]:
    """docs/design.md, section "Canonical keys and frames", by brute force: the least
    of the images (``images[g.index]`` is the image under ``g``) over the group, and
    the names of every ``g`` giving it."""
    elements = ELEMENTS if group == "full" else ELEMENTS[:8]
    key = min(images[g.index] for g in elements)
    return key, tuple(g.name for g in elements if images[g.index] == key)


# -- the theorem -------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(SCHEMES),
    position=positions(),
    to_move=st.sampled_from([None, "b", "w"]),
)
def test_symmetry_theorem(name: str, position: tuple[int, np.ndarray], to_move: str | None) -> None:
    n, board = position
    s = scheme(name, n)
    h = s.hash_array(board, to_move)
    for g in ELEMENTS:
        expected = s.hash_array(image(board, g.name), swapped_side(to_move, g.name))
        assert expected == s.transform(h, g)


@pytest.mark.parametrize("name", SCHEMES)
@pytest.mark.parametrize("n", range(1, 27))
def test_keys_satisfy_the_constraints_for_every_size(name: str, n: int) -> None:
    # docs/design.md, section "The theorem behind the hash": Z_B(g.p) = T_g(Z_B(p)),
    # with g's point map written out in test_symmetry (the tables themselves are
    # re-derived in test_key_generation).
    s = scheme(name, n)
    for g in ELEMENTS:
        for row in range(n):
            for col in range(n):
                r, c = design_map(g.name, (row, col), n)
                key = s.black_keys[row * n + col]
                image_keys = s.white_keys if g.swap else s.black_keys
                assert image_keys[r * n + c] == s.transform(key, g)
        for colour, other in ("bw", "wb"):
            assert s.transform(s.side_key(colour), g) == s.side_key(other if g.swap else colour)
    assert s.side_key("b") != s.side_key("w")


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(SCHEMES), position=positions(), to_move=st.sampled_from([None, "b"]))
def test_canonical_key_is_shared_by_all_images(
    name: str, position: tuple[int, np.ndarray], to_move: str | None
) -> None:
    n, board = position
    s = scheme(name, n)
    # The reference: the hashes of the 16 images, each drawn with the point maps of
    # docs/design.md and hashed afresh; no transform, no canonical code.
    images = [s.hash_array(image(board, g.name), swapped_side(to_move, g.name)) for g in ELEMENTS]
    key, attaining = s.canonical(images[0])
    d4_key, d4_attaining = s.canonical(images[0], "d4")
    assert (key, tuple(g.name for g in attaining)) == least(images, "full")
    assert (d4_key, tuple(g.name for g in d4_attaining)) == least(images, "d4")
    for g in ELEMENTS:
        assert s.canonical(images[g.index])[0] == key
        if not g.swap:
            assert s.canonical(images[g.index], "d4")[0] == d4_key


# -- scalar and array twins -----------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(SCHEMES),
    n=st.integers(1, 26),
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(0, 40),
    to_move=st.sampled_from([None, "b", "w"]),
)
def test_array_twins_agree_with_scalar(
    name: str, n: int, seed: int, count: int, to_move: str | None
) -> None:
    s = scheme(name, n)
    rng = np.random.default_rng(seed)
    boards = rng.integers(0, 3, size=(count, n, n))
    hashes = s.hash_arrays(boards, to_move)
    ints = [s.hash_array(b, to_move) for b in boards]
    assert s.to_ints(hashes) == ints
    assert s.to_ints(s.from_ints(ints)) == ints
    # Random words as well as real hashes, so every byte pattern is exercised.
    words = [int(v) for v in rng.integers(0, 2**63, size=count, dtype=np.uint64)]
    words = [(w << (s.bits - 63)) | (w & 1) for w in words]
    for values in (ints, words):
        arr = s.from_ints(values)
        for g in ELEMENTS:
            assert s.to_ints(s.transform_array(arr, g)) == [s.transform(h, g) for h in values]
        # Canonical keys by brute force over the scalar transform (itself checked
        # against freshly hashed images in test_symmetry_theorem), for the scalar
        # and the array path alike: the two share their shortcut tables.
        images = [[s.transform(h, g) for g in ELEMENTS] for h in values]
        for group in ("full", "d4"):
            keys, lowest = s.canonical_array(arr, group)
            expected = [least(hs, group) for hs in images]
            assert s.to_ints(keys) == [k for k, _ in expected]
            assert lowest.tolist() == [element(names[0]).index for _, names in expected]
            scalar = [s.canonical(h, group) for h in values]
            assert [(k, tuple(g.name for g in gs)) for k, gs in scalar] == expected
            # Every hash that several elements take to its key is among the ties
            # (frames look for symmetries there only); huima64's byte pass may
            # leave more (with either combiner), the other schemes exactly those.
            _, _, ties = s.canonical_and_ties(arr, group)
            several = [i for i, (_, names) in enumerate(expected) if len(names) > 1]
            if name.startswith("huima64"):
                assert set(several) <= set(ties.tolist())
            else:
                assert ties.tolist() == several


@pytest.mark.parametrize("name", SCHEMES)
def test_combine_and_remove_are_inverse(name: str) -> None:
    s = scheme(name, 19)
    rng = np.random.default_rng(3)
    for _ in range(200):
        a, b = (int.from_bytes(rng.bytes(s.bits // 8), "big") for _ in range(2))
        total = s.combine(a, b)
        assert s.remove(total, b) == a
        assert total == s.combine(b, a)
        if s.combiner == "add":
            bytewise = bytes((x + y) % 256 for x, y in zip(a.to_bytes(8, "big"),
                                                         b.to_bytes(8, "big"), strict=True))
            assert total == int.from_bytes(bytewise, "big")
        else:
            assert total == a ^ b


# -- key forms of the paper (19x19) -----------------------------------------------------------


def slots(key: int) -> list[int]:
    return list(key.to_bytes(8, "big"))


def test_huima_key_forms_on_19x19() -> None:
    s = scheme("huima64", 19)

    def key(vertex: str) -> list[int]:
        point = parse_gtp(vertex, 19)
        assert point is not None
        return slots(s.black_keys[point[0] * 19 + point[1]])

    z = key("K10")  # tengen: z1z1z1z1 z2z2z2z2
    assert z[0:4] == [z[0]] * 4 and z[4:8] == [z[4]] * 4 and z[0] != z[4]
    z = key("A10")  # horizontal axis: z1z1z2z2 z3z3z4z4
    assert (z[0], z[2], z[4], z[6]) == (z[1], z[3], z[5], z[7])
    assert len({z[0], z[2], z[4], z[6]}) == 4
    z = key("D4")  # lower-left diagonal: z1z2z3z2 z4z5z6z5
    assert (z[1], z[5]) == (z[3], z[7]) and len({z[0], z[1], z[2], z[4], z[5], z[6]}) == 6
    z = key("C4")  # generic: 64 free bits, here simply 8 distinct bytes
    assert len(set(z)) == 8
    assert all(key(v) != key("K10") for v in ("K11", "L10", "J10", "K9"))


def test_even_boards_have_no_centre_or_axis_points() -> None:
    s = scheme("huima64", 18)
    for row in range(18):
        for col in range(18):
            stab = stabilizer((row, col), 18)
            on_diagonal = row == col or row + col == 17
            assert len(stab) == (2 if on_diagonal else 1)
            key = s.black_keys[row * 18 + col]
            assert all(s.transform(key, h) == key for h in stab)


# -- errata ----------------------------------------------------------------------------------


def board_from(vertices_black: str, vertices_white: str = "", n: int = 19) -> np.ndarray:
    board = np.zeros((n, n), dtype=np.int8)
    for colour, vertices in ((1, vertices_black), (2, vertices_white)):
        for v in vertices.split():
            point = parse_gtp(v, n)
            assert point is not None
            board[point] = colour
    return board


def sgf_board(moves: str, n: int = 19) -> np.ndarray:
    """Stones from ``"B cd W pd ..."`` (SGF letters, row a at the top)."""
    board = np.zeros((n, n), dtype=np.int8)
    words = moves.split()
    for colour, letters in zip(words[0::2], words[1::2], strict=True):
        col, row = ord(letters[0]) - 97, n - 1 - (ord(letters[1]) - 97)
        board[row, col] = 1 if colour == "B" else 2
    return board


def test_e3_nine_stone_handicap_hashes_like_five() -> None:
    nine = board_from("D4 K4 Q4 D10 K10 Q10 D16 K16 Q16")
    five = board_from("D4 Q4 K10 D16 Q16")
    assert scheme("huima64", 19).hash_array(nine) == scheme("huima64", 19).hash_array(five)
    # The four side star points alone: the paper's anomaly, a zero hash.
    assert scheme("huima64", 19).hash_array(board_from("K4 D10 Q10 K16")) == 0
    for name in ("huima64-add", "regular64", "regular128"):
        s = scheme(name, 19)
        assert s.hash_array(nine) != s.hash_array(five), name


def test_e4_two_openings_collide_under_huima_combiners_only() -> None:
    first = sgf_board("B cd W pd B qp W dq")
    second = sgf_board("B dc W pd B pq W dq")
    # Different positions, and not images of each other.
    assert not any(np.array_equal(image(first, g.name), second) for g in ELEMENTS)
    for name in ("huima64", "huima64-add"):
        s = scheme(name, 19)
        assert s.hash_array(first) == s.hash_array(second), name
    for name in ("regular64", "regular128"):
        s = scheme(name, 19)
        assert s.canonical(s.hash_array(first))[0] != s.canonical(s.hash_array(second))[0]


# -- golden values ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "n"), sorted(GOLDEN))
def test_golden_values(name: str, n: int) -> None:
    s = scheme(name, n)
    board = np.zeros((n, n), dtype=np.int8)
    for point, colour in TEN_STONES:
        board[point] = colour
    actual = (
        s.hex(s.black_keys[0]),
        s.hex(s.white_keys[1 * n + 2]),
        s.hex(s.side_key("b")),
        s.hex(s.hash_array(board)),
    )
    assert actual == GOLDEN[name, n]


def test_golden_table_covers_every_scheme_and_size() -> None:
    assert set(GOLDEN) == {(name, n) for name in SCHEMES for n in (9, 13, 19)}


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 27, -1, 100])
def test_bad_sizes(n: int) -> None:
    with pytest.raises(BoardSizeError, match=str(n)):
        scheme("huima64", n)


def test_unknown_scheme() -> None:
    with pytest.raises(UnknownSchemeError, match="'huima32'"):
        scheme("huima64"[:-2] + "32", 19)


@pytest.mark.parametrize(
    ("board", "match"),
    [
        (np.zeros((9, 8), dtype=np.int8), r"\(9, 8\)"),
        (np.zeros((3, 9, 9), dtype=np.int8), r"\(3, 9, 9\)"),
        (np.zeros((9, 9), dtype=np.float64), "float64"),
        (np.zeros((9, 9), dtype=bool), "bool"),
        (np.full((9, 9), 3, dtype=np.int8), "3"),
        (np.full((9, 9), -1, dtype=np.int8), "-1"),
    ],
)
def test_bad_position_arrays(board: np.ndarray, match: str) -> None:
    with pytest.raises(PositionError, match=match):
        scheme("huima64", 9).hash_array(board)


def test_bad_hashes_and_elements() -> None:
    s = scheme("huima64", 9)
    with pytest.raises(PositionError, match=str(2**64)):
        s.transform(2**64, "rot90")
    with pytest.raises(PositionError, match="-5"):
        s.canonical(-5)
    with pytest.raises(UnknownElementError, match="'spin'"):
        s.transform(1, "spin")
    with pytest.raises(PositionError, match="int64"):
        s.transform_array(np.zeros(3, dtype=np.int64), "rot90")
    with pytest.raises(PositionError, match=r"\(3,\)"):
        scheme("regular128", 9).canonical_array(np.zeros(3, dtype=np.uint64))
    with pytest.raises(ColourError, match="'x'"):
        s.side_key("x")
    assert element("rot90").name == "rot90"


@pytest.mark.parametrize("group", ["full", "d4"])
def test_large_batches_take_the_chunked_parallel_path(
    group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small chunks, so that a modest batch runs as many chunks in worker
    # threads; symmetric hashes (a zero, a repeated byte pattern, four star
    # points) need the exact pass, random ones with a repeated least byte the
    # pass by halves.
    monkeypatch.setattr(gohash.group.schemes, "_CHUNK", 1 << 10)
    s = scheme("huima64", 19)
    rng = np.random.default_rng(11)
    words = rng.integers(0, 2**64 - 1, size=20 * 2**10 + 3, dtype=np.uint64, endpoint=True)
    words[::97] = 0
    words[5::101] = np.uint64(0x1212343412123434)
    words[7::103] = np.uint64(s.hash_array(board_from("D4 Q4 D16 Q16")))
    keys, lowest = s.canonical_array(words, group)
    # Brute force: every image by transform_array (checked against the scalar
    # transform in test_array_twins_agree_with_scalar), the least, and the first
    # element that gives it.
    elements = ELEMENTS if group == "full" else ELEMENTS[:8]
    images = np.stack([s.transform_array(words, g) for g in elements])
    assert np.array_equal(keys, images.min(axis=0))
    assert np.array_equal(lowest, images.argmin(axis=0))
    _, _, ties = s.canonical_and_ties(words, group)
    several = np.flatnonzero((images == keys).sum(axis=0) > 1)
    assert several.size and np.isin(several, ties).all()


@pytest.mark.parametrize("name", SCHEMES)
def test_batches_in_any_memory_order(name: str) -> None:
    # A batch made by moving an axis is not C-ordered; it hashes as a copy of it does.
    s = scheme(name, 9)
    rng = np.random.default_rng(7)
    batch = np.moveaxis(rng.integers(0, 3, size=(9, 9, 5), dtype=np.int8), 2, 0)
    assert not batch.flags.c_contiguous
    assert np.array_equal(s.hash_arrays(batch), s.hash_arrays(np.ascontiguousarray(batch)))
    assert s.to_ints(s.hash_arrays(batch)) == [s.hash_array(b) for b in batch]
