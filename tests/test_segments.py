"""gohash.segments: columns laid out padded to 8 bytes, read back as written."""

from __future__ import annotations

import numpy as np
import pytest

from gohash.segments import Layout, padded


def test_columns_are_padded_and_read_back_as_written() -> None:
    layout = Layout([("a", np.int8, 3), ("b", np.int64, 2), ("c", np.uint16, 5)])
    assert [offset for *_, offset in layout.placed] == [0, 8, 24]
    assert layout.size == 24 + padded(10) == 40
    values = {"a": [1, -2, 3], "b": np.array([1 << 40, -5]), "c": bytes(range(10))}
    body = layout.body(values)
    assert len(body) == layout.size
    read = layout.views(b"xyz" + body, 3)
    assert read["a"].tolist() == [1, -2, 3]
    assert read["b"].tolist() == [1 << 40, -5]
    assert read["c"].tobytes() == bytes(range(10))


def test_a_column_of_another_length_is_refused() -> None:
    layout = Layout([("a", np.int32, 2)])
    with pytest.raises(ValueError, match="column 'a': 12 bytes, not 8"):
        layout.body({"a": [1, 2, 3]})
