"""The compiled frame packer (``gohash._core.pack_frames``) against its numpy twin,
:func:`gohash.frames.frame_rows`, and against bad indices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gohash import _core
from gohash.frames import frame_rows, gathers, packed_rows


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
    _core.pack_frames(data, offsets, rows, which[rows], gathers(size).astype(np.int64), size,
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
        _core.pack_frames(*arguments.values())  # type: ignore[arg-type]
