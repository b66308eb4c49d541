"""The compiled frame packer (``gohash.pipeline._frames.pack_frames``), settler of symmetric
keys (``gohash.pipeline._frames.settle_symmetric``) and canonical keys of the regular schemes
(``gohash.pipeline._frames.canonical_slots``) against their numpy twins,
:func:`gohash.pipeline.frames.frame_rows`, :func:`gohash.pipeline.frames.settle_stones` and
:meth:`gohash.group.schemes.KeyScheme.canonical_and_ties`, and against bad indices (which
:mod:`gohash.pipeline.columns` checks before the kernel, which trusts them)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gohash.group.schemes import scheme
from gohash.group.symmetry import gathers
from gohash.pipeline import _frames, columns
from gohash.pipeline.columns import canonical_compiled
from gohash.pipeline.frames import frame_rows, packed_rows, settle_stones


def packed(stones: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of packed positions, concatenated, and their offsets."""
    rows = packed_rows(stones.reshape(-1, size, size))
    width = rows.shape[1]
    return rows.reshape(-1).copy(), np.arange(len(rows) + 1, dtype=np.int64) * width


@given(st.integers(1, 26), st.integers(0, 40), st.integers(0, 2**32 - 1))
@settings(max_examples=150, deadline=None)
def test_compiled_frames_equal_the_numpy_twin(size: int, count: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    stones = rng.integers(0, 3, size=(count, size * size), dtype=np.int8)
    which = rng.integers(0, 16, size=count, dtype=np.uint8)
    data, offsets = packed(stones, size)
    out = np.full(len(data), 0xAA, dtype=np.uint8)
    # Every second row only, so rows left alone must stay as they were.
    rows = np.arange(0, count, 2, dtype=np.int64)
    _frames.pack_frames(data, offsets, rows, which[rows], gathers(size).astype(np.int64), size,
                        out, offsets)
    expected = frame_rows(stones[rows], which[rows], size)
    width = int(offsets[1] - offsets[0]) if count else 0
    for i, row in enumerate(rows.tolist()):
        assert out[offsets[row] : offsets[row] + width].tobytes() == expected[i].tobytes()
    for row in range(1, count, 2):
        assert (out[offsets[row] : offsets[row] + width] == 0xAA).all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rows": np.array([5], dtype=np.int64)}, "out of range"),
        ({"rows": np.array([-1], dtype=np.int64)}, "out of range"),
        ({"which": np.array([16], dtype=np.uint8)}, "out of range"),
        ({"offsets": np.array([10, 32], dtype=np.int64)}, "out of its buffer"),
        ({"size": 5}, "point table"),
        ({"gathers": np.full((16, 81), 81, dtype=np.int64)}, "off a 9x9 board"),
        ({"which": np.array([0, 1], dtype=np.uint8)}, "different lengths"),
    ],
)
def test_bad_indices_are_refused(change: dict[str, object], message: str) -> None:
    data, offsets = packed(np.zeros((1, 81), dtype=np.int8), 9)
    arguments: dict[str, object] = {
        "data": data, "offsets": offsets, "rows": np.array([0], dtype=np.int64),
        "which": np.array([3], dtype=np.uint8), "gathers": gathers(9).astype(np.int64),
        "size": 9, "out": np.empty_like(data), "out_offsets": offsets,
    }
    arguments.update(change)
    if "offsets" in change:
        arguments["out_offsets"] = change["offsets"]
    with pytest.raises(ValueError, match=message):
        columns.pack_frames(_frames, *arguments.values())  # type: ignore[arg-type]


def symmetric_stones(rng: np.random.Generator, size: int, count: int) -> np.ndarray:
    """Random positions, each made invariant under a random element or left as drawn:
    the overlay of a position's images under a subgroup's generator, where either
    image has a stone, is fixed by it (for colour-swapping elements, a stone and
    its swapped image may clash: those points are left empty)."""
    table = gathers(size)
    stones = rng.integers(0, 3, size=(count, size * size), dtype=np.int8)
    stones[rng.random((count, size * size)) < rng.random((count, 1))] = 0
    swap = np.array([0, 2, 1], dtype=np.int8)
    for b in range(count):
        g = int(rng.integers(0, 17))
        if g == 16:
            continue
        board = stones[b]
        for _ in range(4):  # elements have order at most 4
            image = board[table[g]]
            if g >= 8:
                image = swap[image]
            merged = np.where(board == 0, image, board)
            merged[(board != 0) & (image != 0) & (board != image)] = 0
            board = merged
        for _ in range(4):
            image = board[table[g]]
            if g >= 8:
                image = swap[image]
            board = np.where(board == image, board, 0).astype(np.int8)
        stones[b] = board
    return stones


@given(st.integers(1, 26), st.integers(0, 30), st.integers(0, 2**32 - 1), st.sampled_from([8, 16]))
@settings(max_examples=150, deadline=None)
def test_compiled_settling_equals_the_numpy_twin(size: int, count: int, seed: int,
                                                 elements: int) -> None:
    rng = np.random.default_rng(seed)
    stones = symmetric_stones(rng, size, count)
    data, offsets = packed(stones, size)
    rows = rng.permutation(count)[: count // 2 + 1 if count else 0].astype(np.int64)
    attains = rng.integers(1, 1 << elements, size=len(rows), dtype=np.uint16)
    table = gathers(size).astype(np.int64)[:elements]
    compiled = _frames.settle_symmetric(data, offsets, rows, attains, table, size)
    twin = settle_stones(lambda at: stones[at], rows, attains, size=size, count=elements)
    assert np.array_equal(compiled[0], twin[0])
    assert np.array_equal(compiled[1], twin[1])
    # The stabilizer by brute force with numpy's own turns and flips, not gohash's
    # tables, in the order of gohash.group.symmetry.ELEMENTS (rot90 turns clockwise).
    for i, row in enumerate(rows.tolist()):
        board = stones[row].reshape(size, size)
        images = [np.rot90(board, -k) for k in range(4)]
        images += [np.flip(image, axis=1) for image in images]
        images += [np.where(image == 0, 0, 3 - image) for image in images]
        fixed = sum(1 << g for g in range(elements) if np.array_equal(images[g], board))
        assert int(compiled[0][i]) == fixed


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rows": np.array([5], dtype=np.int64)}, "out of range"),
        ({"attains": np.array([0], dtype=np.uint16)}, "attaining"),
        ({"attains": np.array([1, 1], dtype=np.uint16)}, "different lengths"),
        ({"gathers": gathers(9).astype(np.int64)[:8],
          "attains": np.array([1 << 8], dtype=np.uint16)}, "attaining"),
        ({"offsets": np.array([10, 32], dtype=np.int64)}, "out of its buffer"),
        ({"data": np.full(22, 0xFF, dtype=np.uint8)}, "value 3"),
        ({"size": 5}, "point table"),
        ({"gathers": np.full((16, 81), 81, dtype=np.int64)}, "off a 9x9 board"),
    ],
)
def test_settling_refuses_bad_indices(change: dict[str, object], message: str) -> None:
    data, offsets = packed(np.zeros((1, 81), dtype=np.int8), 9)
    arguments: dict[str, object] = {
        "data": data, "offsets": offsets, "rows": np.array([0], dtype=np.int64),
        "attains": np.array([3], dtype=np.uint16), "gathers": gathers(9).astype(np.int64),
        "size": 9,
    }
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        columns.settle_symmetric(_frames, *arguments.values())  # type: ignore[arg-type]


@given(st.sampled_from(["regular64", "regular128"]), st.integers(0, 60), st.integers(0, 2**32 - 1),
       st.sampled_from(["full", "d4"]))
@settings(max_examples=150, deadline=None)
def test_compiled_canonical_keys_equal_the_numpy_twin(name: str, count: int, seed: int,
                                                      group: str) -> None:
    keys = scheme(name, 19)
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 2**64, size=(count, keys.bits // 64), dtype=np.uint64)
    # Hashes with few distinct slots: many images tie, as symmetric positions' do.
    words[: count // 3] &= np.uint64(0x0101010101010101 * rng.integers(0, 2))
    hashes = words.reshape(-1) if keys.bits == 64 else words
    got = canonical_compiled(_frames, hashes, keys, group)
    want = keys.canonical_and_ties(hashes, group)
    for mine, theirs in zip(got, want, strict=True):
        assert mine.dtype == theirs.dtype
        assert np.array_equal(mine, theirs)
    # On real positions too: the hashes of a game's boards, turned.
    stones = symmetric_stones(rng, 19, 4).reshape(-1, 19, 19)
    board_hashes = keys.hash_arrays(stones)
    for mine, theirs in zip(canonical_compiled(_frames, board_hashes, keys, group),
                            keys.canonical_and_ties(board_hashes, group), strict=True):
        assert np.array_equal(mine, theirs)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"slot_bits": 16}, "slots of 16 bits"),
        ({"perms": np.full((16, 16), 16, dtype=np.int64)}, "slot table entry"),
        ({"perms": np.zeros((16, 8), dtype=np.int64)}, "slot table"),
        ({"lowest": np.zeros(2, dtype=np.uint8)}, "different lengths"),
    ],
)
def test_canonical_keys_refuse_bad_tables(change: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {
        "hashes": np.ones((1, 2), dtype=np.uint64),
        "perms": np.array(scheme("regular128", 9).permutations, dtype=np.int64),
        "slot_bits": 8, "keys": np.zeros((1, 2), dtype=np.uint64),
        "lowest": np.zeros(1, dtype=np.uint8),
    }
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        columns.canonical_slots(_frames, *arguments.values())  # type: ignore[arg-type]
