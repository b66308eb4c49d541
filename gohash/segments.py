"""The byte layout of the files gohash keeps beside an index: columns in segments.

Scope: :class:`Layout`, the columns of one segment (or one file's body) laid
one after the other, each a numpy dtype and a count, each padded to 8 bytes:
where each starts, how long the body is, the columns read from a buffer (a
memory map: no copy) and the body written from values; :func:`replacing`, a
file written anew beside the old and renamed over it.  The postings file
(:mod:`gohash.index.postings`), the pattern file and its store file
(:mod:`gohash.pattern.store`) each put their own header before it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

__all__ = ["Layout", "padded", "replacing"]


def padded(n: int) -> int:
    """``n`` bytes rounded up to a multiple of 8."""
    return (n + 7) & ~7


class Layout:
    """Columns ``(name, dtype, count)`` in order, each padded to 8 bytes:
    :attr:`placed` ``(name, dtype, count, offset)`` and :attr:`size`, the
    body's bytes."""

    def __init__(self, columns: Sequence[tuple[str, npt.DTypeLike, int]]) -> None:
        self.placed: list[tuple[str, np.dtype[Any], int, int]] = []
        at = 0
        for name, dtype, count in columns:
            kind = np.dtype(dtype)
            self.placed.append((name, kind, count, at))
            at += padded(kind.itemsize * count)
        self.size = at

    def views(self, buffer: Any, start: int) -> dict[str, npt.NDArray[Any]]:
        """The columns of the body at byte ``start`` of ``buffer``, by name:
        read-only views, no copy."""
        return {name: np.frombuffer(buffer, dtype=dtype, count=count, offset=start + offset)
                for name, dtype, count, offset in self.placed}

    def body(self, values: Mapping[str, npt.ArrayLike | bytes]) -> bytes:
        """The body of ``values`` (each column by name: an array, converted to
        the column's dtype, or its bytes); raises ValueError for a column of
        another length than the layout's."""
        parts = []
        for name, dtype, count, _ in self.placed:
            value = values[name]
            raw = value if isinstance(value, bytes) else np.ascontiguousarray(
                value, dtype=dtype).tobytes()
            if len(raw) != dtype.itemsize * count:
                raise ValueError(f"column {name!r}: {len(raw)} bytes, not "
                                 f"{dtype.itemsize * count}")
            parts.append(raw + bytes(padded(len(raw)) - len(raw)))
        return b"".join(parts)


@contextmanager
def replacing(path: str) -> Iterator[BinaryIO]:
    """A file to write ``path`` anew: a temporary file beside it, synced and
    renamed over it when the block ends (readers that hold the old one mapped
    keep it), removed if the block raises."""
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
