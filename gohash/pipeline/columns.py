"""The columns of a batch of positions: the walker's rows, joined pieces, exact fields.

Scope: the column work under :func:`gohash.pipeline.positions.read_positions`, which decides
what replays each game and where batches end.  :class:`PureColumns` collects
what the pure walker visits into the columns the compiled core writes, so the
two paths give one layout; :func:`concatenate` joins a batch's pieces, from
either path, into one set of columns, and :func:`rehash` gives the walker's rows
the hashes of a scheme factory.  :class:`Exact` completes a batch from its exact
packed positions: canonical keys, the lowest element onto each frame, exact
symmetries and packed frames (:func:`gohash.pipeline.frames.frame_batch`; the compiled
frames kernel settles symmetric positions and packs frames where it is built).
:func:`pack_frames`, :func:`settle_symmetric` and :func:`canonical_slots` call
that kernel (``gohash.pipeline._frames``) after checking what it trusts.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from functools import cache, partial
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GohashError
from ..group.schemes import KeyScheme
from ..group.symmetry import MAX_SIZE, elements_of, gathers
from ..sgf.walk import BaseVisitor, GameInfo, PositionEvent
from .frames import SchemeFactory, frame_batch, frame_rows, unpack_rows

__all__ = [
    "Exact", "PureColumns", "canonical_compiled", "canonical_slots", "concatenate",
    "pack_frames", "rehash", "settle_symmetric",
]

Array = npt.NDArray[Any]

_LOW_WORD = (1 << 64) - 1


class PureColumns(BaseVisitor):
    """Collects what the walker visits in one file into the columns of the core,
    taken a batch's worth at a time (:meth:`take`).

    Rows go into flat arrays (some 170 bytes a position, a third of tuples and
    bytes objects): a file can hold hundreds of thousands of positions."""

    def __init__(self, file_id: int, wide: bool) -> None:
        self.file_id = file_id
        self.shift = 64 if wide else 0
        # How much of the walk's summary earlier batches took.
        self.errors_taken = self.notes_taken = self.games_counted = 0
        self._start()

    def _start(self) -> None:
        # Per row: game, variation, move number, colour, point, to move, setup, size, depth.
        self.small = array("q")
        self.hashes = array("Q")  # per row: high word, then the low word if wide
        self.packed = bytearray()
        self.paths: dict[tuple[int, ...], int] = {(): 0}
        self.games: list[tuple[int, int, int, int, dict[str, str]]] = []

    def rows(self) -> int:
        return len(self.small) // 9

    def take(self) -> tuple[dict[str, Array], list[tuple[int, ...]]]:
        """The columns collected since the last call; the collection starts afresh."""
        piece = self.piece()
        self._start()
        return piece

    def begin_game(self, info: GameInfo) -> None:
        self.games.append((self.file_id, info.game, info.size, info.handicap, dict(info.root)))

    def visit_position(self, event: PositionEvent) -> None:
        board = event.board
        size = board.size
        point = -1 if event.point is None else event.point[0] * size + event.point[1]
        colour = {None: 0, "b": 1, "w": 2}[event.colour]
        path = self.paths.setdefault(event.variation, len(self.paths))
        self.small.extend((event.game, path, event.move_number, colour, point,
                           1 if board.to_move == "b" else 2, event.node_has_setup, size,
                           event.depth))
        if self.shift:
            self.hashes.extend((board.hash >> self.shift, board.hash & _LOW_WORD))
        else:
            self.hashes.append(board.hash)
        self.packed += board.position_key()

    def handle_error(self, error: GohashError) -> bool:
        return False

    def piece(self) -> tuple[dict[str, Array], list[tuple[int, ...]]]:
        small = np.frombuffer(self.small, dtype=np.int64).reshape(-1, 9)
        words = 2 if self.shift else 1
        hashes = np.frombuffer(self.hashes, dtype=np.uint64).reshape(len(small), words)
        sizes = small[:, 7].astype(np.uint8)
        offsets = np.zeros(len(small) + 1, dtype=np.int64)
        np.cumsum(1 + (small[:, 7] ** 2 + 3) // 4, out=offsets[1:])
        columns: dict[str, Array] = {
            "file": np.full(len(small), self.file_id, dtype=np.int32),
            "game": small[:, 0].astype(np.int32),
            "variation": small[:, 1].astype(np.int32),
            "move_number": small[:, 2].astype(np.int32),
            "colour": small[:, 3].astype(np.int8),
            "point": small[:, 4].astype(np.int16),
            "to_move": small[:, 5].astype(np.int8),
            "setup": small[:, 6].astype(np.bool_),
            "size": sizes,
            # 64-bit hashes live in the high word, as the core writes them.
            "hash_hi": hashes[:, 0].copy(),
            "hash_lo": hashes[:, 1].copy() if self.shift else np.zeros_like(hashes[:, 0]),
            "packed_offsets": offsets,
            "packed": np.frombuffer(self.packed, dtype=np.uint8),
            "depth": small[:, 8].astype(np.int32),
        }
        return columns, list(self.paths)


def rehash(columns: dict[str, Array], keys_of: SchemeFactory) -> None:
    """Hashes of a factory's scheme, from the exact positions the walker replayed
    (its boards hash with a named scheme only)."""
    for size, rows, stones in _by_size(columns["size"], columns["packed_offsets"],
                                       columns["packed"]):
        keys = keys_of(size)
        hashes = keys.hash_arrays(stones(np.arange(len(rows))).reshape(-1, size, size))
        if hashes.ndim == 1:
            columns["hash_hi"][rows] = hashes
        else:
            columns["hash_hi"][rows], columns["hash_lo"][rows] = hashes[:, 0], hashes[:, 1]


def concatenate(
    pieces: list[tuple[dict[str, Array], list[tuple[int, ...]]]],
) -> tuple[dict[str, Array], list[tuple[int, ...]]]:
    """One set of columns from the pieces, the variation ids renumbered into one list."""
    if len(pieces) == 1:
        # Ids are already numbered from () on: the piece's arrays serve as they are.
        return pieces[0]
    ids: dict[tuple[int, ...], int] = {(): 0}
    parts: dict[str, list[Array]] = {}
    nbytes = 0
    for columns, piece_paths in pieces:
        renumber = np.array([ids.setdefault(p, len(ids)) for p in piece_paths], dtype=np.int32)
        for name, column in columns.items():
            if name == "variation":
                column = renumber[column]
            elif name == "packed_offsets":
                # Each piece's offsets start at 0: drop it and shift the rest on.
                column = column[1:] + nbytes
                nbytes += len(columns["packed"])
            parts.setdefault(name, []).append(column)
    columns = {}
    for name, column in PureColumns(0, False).piece()[0].items():
        columns[name] = np.concatenate([*parts.get(name, []), column])
    columns["packed_offsets"] = np.concatenate(
        [np.zeros(1, dtype=np.int64), *parts.get("packed_offsets", [])]
    )
    return columns, list(ids)


def _by_size(
    sizes: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64], data: npt.NDArray[np.uint8]
) -> Iterator[tuple[int, npt.NDArray[np.intp], Callable[[npt.NDArray[np.intp]], Array]]]:
    """For each board size present: the rows of that size, and a function giving the
    flat stones of some of those rows (by index into them), unpacked only then."""
    present = np.unique(sizes).tolist()
    if len(present) == 1:
        # One size: the packed positions are rows of one width, end to end.
        size = present[0]
        packed = data.reshape(len(sizes), 1 + (size * size + 3) // 4)
        yield size, np.arange(len(sizes)), lambda which: unpack_rows(packed[which], size)
        return
    for size in present:
        rows = np.flatnonzero(sizes == size)
        starts = offsets[rows]
        width = 1 + (size * size + 3) // 4

        def stones(which: npt.NDArray[np.intp], starts: Array = starts, width: int = width,
                   size: int = size) -> Array:
            return unpack_rows(data[starts[which, np.newaxis] + np.arange(width)], size)

        yield size, rows, stones


def _stones_of_part(
    stones: Callable[[npt.NDArray[np.intp]], Array], part: npt.NDArray[np.intp],
    which: npt.NDArray[np.intp],
) -> Array:
    return stones(part[which])


def _settle_distinct(
    compiled: Any, data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64],
    at: npt.NDArray[np.intp], size: int, count: int,
    rows: npt.NDArray[np.intp], attains: npt.NDArray[np.uint16],
) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint8]]:
    """:func:`gohash.pipeline.frames.settle_stones` by the core, reading the packed
    positions in place (``rows`` index into ``at``, the batch's rows).

    Each distinct position (with its attaining elements) of a run of rows is
    settled once: the rows here are mostly the same few handicap and opening
    positions (22,784 rows of the corpus, 3,428 distinct within their batches).
    Runs of :data:`_SETTLE_ROWS` bound the memory of finding them (some 200
    bytes a row): a file of passes makes every row the empty board."""
    batch_rows = at[rows].astype(np.int64)
    width = 1 + (size * size + 3) // 4
    symmetries = np.empty(len(rows), dtype=np.uint16)
    which = np.empty(len(rows), dtype=np.uint8)
    for start in range(0, len(rows), _SETTLE_ROWS):
        run = slice(start, start + _SETTLE_ROWS)
        part = batch_rows[run]
        keyed = np.empty((len(part), width + 2), dtype=np.uint8)
        keyed[:, :width] = data[offsets[part, np.newaxis] + np.arange(width)]
        keyed[:, width:] = attains[run].astype("<u2").view(np.uint8).reshape(-1, 2)
        _, first, inverse = np.unique(
            keyed.view(np.dtype((np.void, width + 2))).ravel(), return_index=True,
            return_inverse=True,
        )
        found = settle_symmetric(
            compiled, data, offsets, part[first], attains[run][first], _gathers64(size)[:count],
            size,
        )
        inverse = inverse.reshape(-1)
        symmetries[run], which[run] = found[0][inverse], found[1][inverse]
    return symmetries, which


_SETTLE_ROWS = 1 << 13


def canonical_compiled(
    compiled: Any, hashes: npt.NDArray[np.uint64], keys: KeyScheme, group: str
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint8], npt.NDArray[np.intp]]:
    """:meth:`KeyScheme.canonical_and_ties <gohash.group.schemes.KeyScheme.canonical_and_ties>`
    by the core (``canonical_slots``) for the schemes whose elements permute 16
    slots (regular64, regular128): a few hundred machine operations a hash
    where numpy makes and compares 16 whole images.  Other schemes (huima64's
    shift-and-mask pass, a user's own keys) keep their own."""
    if keys.slot_bits * 16 != keys.bits:
        return keys.canonical_and_ties(hashes, group)
    wide = np.ascontiguousarray(hashes, dtype=np.uint64).reshape(len(hashes), keys.bits // 64)
    canon = np.empty_like(wide)
    lowest = np.empty(len(hashes), dtype=np.uint8)
    ties = canonical_slots(compiled, wide,
                           _slot_table(keys.permutations, len(elements_of(group))),
                           keys.slot_bits, canon, lowest)
    return canon.reshape(hashes.shape), lowest, ties


@cache
def _slot_table(permutations: tuple[tuple[int, ...], ...], count: int) -> npt.NDArray[np.int64]:
    return np.array(permutations[:count], dtype=np.int64)


@cache
def _gathers64(size: int) -> npt.NDArray[np.int64]:
    return gathers(size).astype(np.int64)


# Rows per call of frame_batch: its temporaries stay small whatever a batch holds
# (where every row is the empty board, as in a file of passes, some 300 bytes a
# row), and a default batch is two calls (at 16,384 rows, the fixed cost of its
# few dozen numpy operations was a third of their time).
_EXACT_ROWS = 1 << 15


class Exact:
    """Canonical keys, exact transforms and symmetries, and frames of a batch, by
    each board size's scheme (:func:`gohash.pipeline.frames.frame_batch`)."""

    def __init__(
        self, keys_of: SchemeFactory, group: str, frames: bool, hashes: npt.NDArray[np.uint64],
        sizes: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64], data: npt.NDArray[np.uint8],
        compiled: Any,
    ) -> None:
        """``compiled`` is the frames kernel (:data:`gohash._native.frames`), which
        packs the frames, or None to pack them with numpy
        (:func:`gohash.pipeline.frames.frame_rows`, its twin)."""
        count = len(sizes)
        self.canonical = np.empty_like(hashes)
        self.transform = np.empty(count, dtype=np.uint8)
        self.symmetries = np.empty(count, dtype=np.uint16)
        self.frame_offsets: npt.NDArray[np.int64] | None = None
        self.frame_data: npt.NDArray[np.uint8] | None = None
        if frames:
            widths = 1 + (sizes.astype(np.int64) ** 2 + 3) // 4
            self.frame_offsets = np.zeros(count + 1, dtype=np.int64)
            np.cumsum(widths, out=self.frame_offsets[1:])
            self.frame_data = np.empty(int(self.frame_offsets[-1]), dtype=np.uint8)
        for size, rows, stones in _by_size(sizes, offsets, data):
            for start in range(0, len(rows), _EXACT_ROWS):
                part = np.arange(start, min(start + _EXACT_ROWS, len(rows)))
                at = rows[part]
                settle = None if compiled is None else partial(
                    _settle_distinct, compiled, data, offsets, at, size,
                    len(elements_of(group)),
                )
                found = frame_batch(
                    partial(_stones_of_part, stones, part), hashes[at], keys_of(size),
                    group, frames=False, settle=settle,
                    canonical=None if compiled is None else partial(canonical_compiled, compiled),
                )
                self.canonical[at] = found.keys
                self.transform[at] = found.elements
                self.symmetries[at] = found.symmetries
                if self.frame_offsets is None or self.frame_data is None:
                    continue
                if compiled is not None:
                    pack_frames(compiled, data, offsets, at.astype(np.int64), found.elements,
                                _gathers64(size), size, self.frame_data, self.frame_offsets)
                else:
                    framed = frame_rows(stones(part), found.elements, size)
                    where = self.frame_offsets[at, np.newaxis] + np.arange(framed.shape[1])
                    self.frame_data[where] = framed


# The frames kernel's entries, each after the checks the kernel trusts: the batch's
# own columns and gohash's tables, checked once a call rather than in its loops.

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


def pack_frames(
    compiled: Any, data: U8, offsets: I64, rows: I64, which: U8, gathers: I64, size: int,
    out: U8, out_offsets: I64,
) -> None:
    """``compiled.pack_frames`` (``gohash.pipeline._frames.pack_frames``: the packed
    frame of each row of ``rows`` under element ``which[i]``, written at
    ``out[out_offsets[row]:]``) once the point table, the rows, the elements and
    both ends of every packed position and frame are checked: ValueError
    otherwise.  The twin of :func:`gohash.pipeline.frames.frame_rows`."""
    _check_table(gathers, size)
    if len(which) != len(rows) or len(out_offsets) != len(offsets):
        raise ValueError("rows, elements and offsets of different lengths")
    _packed_starts(data, offsets, rows, size)
    if len(rows):
        off = which >= len(gathers)
        if off.any():
            raise ValueError(f"element {which[off][0]} of row {rows[off][0]} out of range")
        ends = out_offsets[rows]
        off = (ends < 0) | (ends + 1 + (size * size + 3) // 4 > len(out))
        if off.any():
            raise ValueError(f"the frame of row {rows[off][0]} out of its buffer")
    compiled.pack_frames(data, offsets, rows, which, gathers, size, out, out_offsets)


def settle_symmetric(
    compiled: Any, data: U8, offsets: I64, rows: I64, attains: npt.NDArray[np.uint16],
    gathers: I64, size: int,
) -> tuple[npt.NDArray[np.uint16], U8]:
    """``compiled.settle_symmetric`` (``gohash.pipeline._frames.settle_symmetric``:
    each row's exact stabilizer and lowest frame element among those of
    ``attains[i]``) once the point table, the rows, both ends of every packed
    position, its points (0, 1 or 2) and the masks of elements are checked:
    ValueError otherwise.  The twin of :func:`gohash.pipeline.frames.settle_stones`."""
    _check_table(gathers, size)
    if len(attains) != len(rows):
        raise ValueError("rows and masks of different lengths")
    starts = _packed_starts(data, offsets, rows, size)
    if len(rows):
        off = (attains == 0) | (attains.astype(np.int64) >> len(gathers) != 0)
        if off.any():
            raise ValueError(f"elements {int(attains[off][0]):#x} attaining the key of row "
                             f"{rows[off][0]}")
        npts = size * size
        length = (npts + 3) // 4
        packed = data[starts[:, np.newaxis] + np.arange(length)]
        packed[:, 0] &= (1 << (2 * (npts - 4 * (length - 1)))) - 1  # not the pad digits
        off = (packed & (packed >> 1) & 0x55).any(axis=1)
        if off.any():
            raise ValueError(f"packed position of row {rows[off][0]} holds a point of value 3")
    found: tuple[npt.NDArray[np.uint16], U8] = compiled.settle_symmetric(
        data, offsets, rows, attains, gathers, size)
    return found


def canonical_slots(
    compiled: Any, hashes: npt.NDArray[np.uint64], perms: I64, slot_bits: int,
    keys: npt.NDArray[np.uint64], lowest: U8,
) -> npt.NDArray[np.intp]:
    """``compiled.canonical_slots`` (``gohash.pipeline._frames.canonical_slots``:
    canonical keys of a scheme whose elements permute 16 slots, into ``keys``
    and ``lowest``; the rows more than one element attains) once the slot table
    and the shapes are checked: ValueError otherwise."""
    words = hashes.shape[1] if hashes.ndim == 2 else 0
    if slot_bits not in (4, 8) or words * 64 != 16 * slot_bits:
        raise ValueError(f"{words} words of 16 slots of {slot_bits} bits")
    if perms.ndim != 2 or not 1 <= len(perms) <= 16 or perms.shape[1] != 16:
        raise ValueError(f"a slot table of {' x '.join(map(str, perms.shape))}")
    if keys.shape != hashes.shape or lowest.shape != (len(hashes),):
        raise ValueError("hashes, keys and elements of different lengths")
    off = (perms < 0) | (perms >= 16)
    if off.any():
        raise ValueError(f"slot table entry {perms[off][0]}")
    ties: npt.NDArray[np.intp] = compiled.canonical_slots(hashes, perms, slot_bits, keys, lowest)
    return ties


def _check_table(gathers: I64, size: int) -> None:
    """A table of points (:func:`gohash.group.symmetry.gathers`) of 1 to 16 elements of
    a board of ``size``."""
    npts = size * size
    if not 1 <= size <= MAX_SIZE or gathers.ndim != 2 or gathers.shape[1] != npts or not (
            1 <= len(gathers) <= 16):
        raise ValueError(f"a point table of {' x '.join(map(str, gathers.shape))} points for "
                         f"size {size}")
    off = (gathers < 0) | (gathers >= npts)
    if off.any():
        raise ValueError(f"point table entry {gathers[off][0]} off a {size}x{size} board")


def _packed_starts(data: U8, offsets: I64, rows: I64, size: int) -> I64:
    """Where the points of each row's packed position begin in ``data`` (after its size
    byte), each row and both ends checked."""
    off = (rows < 0) | (rows >= len(offsets))
    if off.any():
        raise ValueError(f"row {rows[off][0]} out of range")
    starts: I64 = offsets[rows] + 1
    off = (starts < 1) | (starts + (size * size + 3) // 4 > len(data))
    if off.any():
        raise ValueError(f"packed position of row {rows[off][0]} out of its buffer")
    return starts
