"""Exact canonical forms ("frames") of Go positions.

Scope: packing position arrays into bytes, the frame of a position (a canonical
form under G = D4 x colour swap, or under D4 alone, found from its canonical key)
as a scalar function and its numpy batch twin (:func:`frame_batch`, which also
finds each position's exact symmetries).  Whole collections get their frames
from :func:`gohash.pipeline.positions.read_positions`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt

from .._deprecated import renamed
from ..errors import PositionError
from ..group.schemes import KeyScheme, scheme
from ..group.symmetry import (
    COLOUR_EXCHANGE,
    Element,
    elements_of,
    gathers,
    stone_images,
)

__all__ = [
    "FrameBatch",
    "NamedSchemes",
    "SchemeFactory",
    "bad_packings",
    "canonical_frame",
    "canonical_frames",
    "frame_and_elements",
    "frame_array_and_elements",
    "frame_batch",
    "frame_rows",
    "pack_array",
    "pack_arrays",
    "packed_rows",
    "unpack_array",
    "unpack_frames",
    "unpack_rows",
]

SchemeFactory = Callable[[int], KeyScheme]
Board8 = npt.NDArray[np.int8]


def _packed_length(size: int) -> int:
    return (size * size + 3) // 4


def pack_array(board: npt.ArrayLike) -> bytes:
    """One (N, N) position array packed as :meth:`Board.position_key` packs a board."""
    arr = np.asarray(board)
    size = arr.shape[0]
    value = 0
    for code in arr.reshape(-1).tolist():
        value = 4 * value + int(code)
    return bytes((size,)) + value.to_bytes(_packed_length(size), "big")


def packed_rows(boards: npt.NDArray[np.integer]) -> npt.NDArray[np.uint8]:
    """Positions ``boards[..., N, N]`` packed as rows of bytes ``[..., 1 + ceil(N*N/4)]``;
    row ``i`` holds :func:`pack_array` of position ``i``, and rows compare as the bytes."""
    lead, size = boards.shape[:-2], boards.shape[-1]
    length = _packed_length(size)
    digits = np.zeros((*lead, 4 * length), dtype=np.uint8)
    digits[..., 4 * length - size * size :] = boards.reshape(*lead, size * size)
    out = np.empty((*lead, 1 + length), dtype=np.uint8)
    out[..., 0] = size
    out[..., 1:] = (
        (digits[..., 0::4] << 6) | (digits[..., 1::4] << 4) | (digits[..., 2::4] << 2)
        | digits[..., 3::4]
    )
    return out


def pack_arrays(boards: npt.NDArray[np.integer]) -> list[bytes]:
    """A batch ``boards[B, N, N]`` packed; the twin of :func:`pack_array`."""
    return _row_bytes(packed_rows(boards))


def _row_bytes(rows: npt.NDArray[np.uint8]) -> list[bytes]:
    blob, width = rows.tobytes(), rows.shape[1]
    return [blob[i * width : (i + 1) * width] for i in range(rows.shape[0])]


def unpack_frames(blob: bytes, count: int, size: int) -> Board8:
    """``count`` packed positions of one size, concatenated, as arrays ``(count, N, N)``."""
    width = 1 + _packed_length(size)
    if len(blob) != count * width:
        raise PositionError(f"{len(blob)} bytes do not hold {count} packed {size}x{size} positions")
    rows = np.frombuffer(blob, dtype=np.uint8).reshape(count, width)
    return unpack_rows(rows, size).reshape(count, size, size)


# The four base-4 digits of every byte value, most significant first, as the four
# bytes of one uint32 (in memory order, so a view as int8 gives them back in order).
_DIGITS = (
    ((np.arange(256)[:, np.newaxis] >> np.array([6, 4, 2, 0])) & 3)
    .astype(np.int8).view(np.uint32).reshape(256)
)


def unpack_rows(rows: npt.NDArray[np.uint8], size: int) -> Board8:
    """Packed positions of one size as rows ``[B, 1 + ceil(N*N/4)]`` (what
    :func:`packed_rows` makes) to flat stones ``[B, N*N]``; the inverse of :func:`packed_rows`."""
    # One look-up of four digits per byte: far faster than shifts and masks.
    digits = np.take(_DIGITS, rows[:, 1:]).view(np.int8)
    flat: Board8 = digits.reshape(rows.shape[0], 4 * (rows.shape[1] - 1))[:, -size * size :]
    return flat


def bad_packings(rows: npt.NDArray[np.uint8], size: int) -> npt.NDArray[np.bool_]:
    """Which rows ``[B, 1 + ceil(N*N/4)]`` are no packing of an ``N x N`` position
    (``N`` = ``size``): a size byte other than ``size``, a digit 3, or a stone
    before the first point (in the padding digits)."""
    digits = np.take(_DIGITS, rows[:, 1:]).view(np.int8).reshape(rows.shape[0], -1)
    padding = digits.shape[1] - size * size
    bad: npt.NDArray[np.bool_] = (
        (rows[:, 0] != size) | (digits > 2).any(axis=1) | (digits[:, :padding] != 0).any(axis=1)
    )
    return bad


def unpack_array(packed: bytes) -> Board8:
    """The ``(N, N)`` array of one packed position; the inverse of :func:`pack_array`."""
    if not packed:
        raise PositionError("an empty byte string is not a packed position")
    board: Board8 = unpack_frames(packed, 1, packed[0])[0]
    return board


def canonical_frame(
    board: npt.ArrayLike, keys: KeyScheme, symmetry: str = "full", *, group: str | None = None
) -> tuple[int, bytes, Element]:
    """The canonical key of a position array over ``symmetry`` ("full" or "d4";
    ``group`` its deprecated name), its frame, and the lowest element mapping the
    position onto its frame (see the module docstring)."""
    symmetry = renamed(symmetry, group, "group", "symmetry", "canonical_frame")
    key, frame, onto = frame_and_elements(np.asarray(board, dtype=np.int8), keys, symmetry)
    return key, frame, onto[0]


def frame_and_elements(
    arr: Board8, keys: KeyScheme, group: str = "full"
) -> tuple[int, bytes, list[Element]]:
    """Key, frame, and every element mapping the position onto its frame, lowest first:
    ``onto[0] . s`` for each ``s`` of the position's stabilizer, which lies within the
    elements that attain the key (``s.P = P`` gives ``T_s(hash) = hash``)."""
    key, frame, onto = frame_array_and_elements(arr, keys, group)
    return key, pack_array(frame), onto


def frame_array_and_elements(
    arr: Board8, keys: KeyScheme, group: str = "full"
) -> tuple[int, Board8, list[Element]]:
    """:func:`frame_and_elements` with the frame as an (N, N) array, not packed.

    The frame is the least image in packed order, which is the order of the
    images' stones compared point by point (base-4 digits, the first point
    the most significant)."""
    key, attaining = keys.canonical(keys.hash_array(arr), group)
    size = arr.shape[0]
    images: Board8 = np.ascontiguousarray(arr, dtype=np.int8).reshape(-1)[
        gathers(size)[[t.index for t in attaining]]]
    swapped = [i for i, t in enumerate(attaining) if t.swap]
    if swapped:
        images[swapped] = COLOUR_EXCHANGE[images[swapped]]
    rows = [row.tobytes() for row in images]
    low = min(rows)
    frame: Board8 = images[rows.index(low)].reshape(size, size)
    return key, frame, [t for t, row in zip(attaining, rows, strict=True) if row == low]


def _equal_keys(a: npt.NDArray[np.uint64], b: npt.NDArray[np.uint64]) -> npt.NDArray[np.bool_]:
    same = a == b
    return np.asarray(same if same.ndim == 1 else same.all(axis=1), dtype=np.bool_)


@dataclass
class FrameBatch:
    """What :func:`frame_batch` finds for a batch of positions.

    ``keys``: canonical keys (the scheme's hash array); ``elements``: index of the
    lowest element mapping each position onto its frame; ``symmetries``: each
    position's exact stabilizer within the group, as a bit mask over the indexes
    of :data:`~gohash.group.symmetry.ELEMENTS` (bit 0, the identity, always set); only a
    position whose key some ``T_g`` (g not the identity) fixes can have more (the
    theorem: ``g.P = P`` gives ``T_g(key) = key``); ``frames``: the packed frames
    as rows of :func:`packed_rows`, if asked for.
    """

    keys: npt.NDArray[np.uint64]
    elements: npt.NDArray[np.uint8]
    symmetries: npt.NDArray[np.uint16]
    frames: npt.NDArray[np.uint8] | None


Stones = npt.NDArray[np.integer] | Callable[[npt.NDArray[np.intp]], npt.NDArray[np.integer]]
"""Flat stones ``[B, N*N]``, or a function giving those of the rows it is given
(so that a caller holding packed positions unpacks only the rows asked for)."""


Settle = Callable[
    [npt.NDArray[np.intp], npt.NDArray[np.uint16]],
    tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint8]],
]
"""``settle(rows, attains)``: the exact stabilizers and frame elements of the
given rows, from the bit masks of the elements attaining their keys (see
:func:`settle_stones`, and its compiled twin ``gohash.pipeline._frames.settle_symmetric``)."""


Canonical = Callable[
    [npt.NDArray[np.uint64], KeyScheme, str],
    tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint8], npt.NDArray[np.intp]],
]
"""``canonical(hashes, keys, group)``: what :meth:`KeyScheme.canonical_and_ties
<gohash.group.schemes.KeyScheme.canonical_and_ties>` gives (see
:func:`gohash.pipeline.columns.canonical_compiled`, its compiled twin)."""


def frame_batch(
    stones: Stones,
    hashes: npt.NDArray[np.uint64],
    keys: KeyScheme,
    group: str = "full",
    *,
    frames: bool = True,
    settle: Settle | None = None,
    canonical: Canonical | None = None,
) -> FrameBatch:
    """Keys, frame elements, exact symmetries and (with ``frames``) frames of a batch
    of positions: ``stones[B, N*N]`` in ``row * N + col`` order (0 empty, 1 black,
    2 white) and their position hashes under ``keys``.

    One element attains the key of almost every position; its image is the frame,
    and the position has no symmetry.  Only positions whose key several elements
    attain (the empty board, symmetric positions, and hashes that are symmetric
    by accident, as with erratum E3) are compared point by point over the group,
    by ``settle`` (:func:`settle_stones` by default): without ``frames``, only
    their stones are asked for.  ``canonical`` finds the keys
    (:meth:`KeyScheme.canonical_and_ties
    <gohash.group.schemes.KeyScheme.canonical_and_ties>` by default).
    """

    def stones_at(rows: npt.NDArray[np.intp]) -> npt.NDArray[np.integer]:
        return stones[rows] if isinstance(stones, np.ndarray) else stones(rows)

    size = keys.size
    count = hashes.shape[0]
    elements = elements_of(group)
    canon, which, ties = (keys.canonical_and_ties(hashes, group) if canonical is None
                          else canonical(hashes, keys, group))
    # The elements attaining each tied row's key.  A position g fixes has
    # T_g(hash) = hash, so a . g attains the key wherever a does: only rows that
    # two or more elements attain can have a symmetry.
    attains = np.zeros(ties.size, dtype=np.uint16)
    for index, g in enumerate(elements):
        attaining = _equal_keys(keys.transform_array(hashes[ties], g), canon[ties])
        attains |= attaining.astype(np.uint16) << np.uint16(index)
    several = (attains & (attains - np.uint16(1))) != 0
    symmetries = np.ones(count, dtype=np.uint16)
    rows = ties[several]
    if rows.size:
        if settle is None:
            settle = partial(settle_stones, stones_at, size=size, count=len(elements))
        symmetries[rows], which[rows] = settle(rows, attains[several])
    packed_frames = frame_rows(stones_at(np.arange(count)), which, size) if frames else None
    return FrameBatch(canon, which, symmetries, packed_frames)


def settle_stones(
    stones_at: Callable[[npt.NDArray[np.intp]], npt.NDArray[np.integer]],
    rows: npt.NDArray[np.intp],
    attains: npt.NDArray[np.uint16],
    *,
    size: int,
    count: int,
) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint8]]:
    """The stabilizer (a bit mask over the first ``count`` elements) of each
    position of ``rows``, and the lowest element among those of ``attains[i]``
    whose image is least as packings compare: its frame.  The numpy twin of the
    compiled ``gohash.pipeline._frames.settle_symmetric``."""
    sub = stones_at(rows)
    symmetries = np.empty(len(rows), dtype=np.uint16)
    bits = ((attains[:, np.newaxis] >> np.arange(count, dtype=np.uint16)) & 1).astype(bool)
    # Every game starts from the empty board: every element fixes it, so its frame
    # is itself, and the lowest element attaining its key maps it there.
    which = np.argmax(bits, axis=1).astype(np.uint8)
    empty = ~sub.any(axis=1)
    symmetries[empty] = (1 << count) - 1
    rest, sub = np.flatnonzero(~empty), sub[~empty]
    if rest.size:
        images = stone_images(sub, size, count)
        stabilizer = (images == sub[:, np.newaxis, :]).all(axis=2)
        symmetries[rest] = stabilizer.astype(np.uint16) @ (
            np.uint16(1) << np.arange(count, dtype=np.uint16)
        )
        # Images compare as their packings do (digits of one length, most
        # significant first); argmin takes the first of equal minima.
        packed = packed_rows(images.reshape(-1, size, size))
        width = packed.shape[1]
        texts = packed.view(f"S{width}").reshape(len(rest), count)
        # Packings begin with the size byte, so none equals this sentinel.
        texts = np.where(bits[rest], texts, np.array(b"\xff" * width, dtype=f"S{width}"))
        which[rest] = np.argmin(texts, axis=1)
    return symmetries, which


def frame_rows(
    stones: npt.NDArray[np.integer], which: npt.NDArray[np.uint8], size: int
) -> npt.NDArray[np.uint8]:
    """The packed frames (rows of :func:`packed_rows`) of flat ``stones[B, N*N]``,
    each the image under element ``which[b]``; the twin of the compiled
    ``gohash.pipeline._frames.pack_frames``."""
    count = len(which)
    framed = np.empty((count, size * size), dtype=np.int8)
    table = gathers(size)
    for g in np.unique(which).tolist():
        at = which == g
        image = np.take(stones[at], table[g], axis=1)
        framed[at] = np.take(COLOUR_EXCHANGE, image) if g >= 8 else image
    return packed_rows(framed.reshape(count, size, size))


def canonical_frames(
    boards: Board8, keys: KeyScheme, symmetry: str = "full", *, group: str | None = None
) -> tuple[list[int], list[bytes], list[int]]:
    """Canonical keys, frames and element indexes of a batch ``boards[B, N, N]``;
    the twin of :func:`canonical_frame`."""
    symmetry = renamed(symmetry, group, "group", "symmetry", "canonical_frames")
    count, size = boards.shape[0], boards.shape[-1]
    batch = frame_batch(boards.reshape(count, size * size), keys.hash_arrays(boards), keys,
                        symmetry)
    assert batch.frames is not None
    return keys.to_ints(batch.keys), _row_bytes(batch.frames), batch.elements.tolist()


# -- schemes by name (worker processes get them) ---------------------------------------------


class NamedSchemes:
    """A picklable factory for a named scheme (worker processes get it)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, size: int) -> KeyScheme:
        return scheme(self.name, size)
