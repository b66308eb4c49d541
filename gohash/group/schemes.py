"""Key schemes: Zobrist key tables on which the 16 symmetries act by slot permutation.

Scope: key generation (seeded, documented, platform-independent), the
combiners, hashing of position arrays, the action of the group on hashes, and
canonical keys; for one Python int and, paired with it, for numpy arrays.
:func:`load_keys` reads a user's own key table (:class:`OwnKeys`, to match
another engine's hashes on a :class:`~gohash.go.board.Board`), which has no symmetry.

A hash is an unsigned integer of ``bits`` bits cut into slots of ``slot_bits``
bits, slot 0 the most significant (Huima's z1).  Every element ``g`` acts on a
hash by a fixed slot permutation ``T_g`` and every key table satisfies
``Z(g.stone) = T_g(Z(stone))``, so ``Z(g.P) = T_g(Z(P))`` for every position.

Schemes (docs/design.md, section "The key schemes"):
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from operator import itemgetter
from typing import Literal

import numpy as np
import numpy.typing as npt

from .._deprecated import renamed
from ..errors import ColourError, GohashError, PositionError, UnknownSchemeError
from .coords import check_position_array
from .symmetry import (
    D4,
    ELEMENTS,
    Element,
    Point,
    SlotPermutation,
    check_size,
    element,
    elements_of,
    orbits_of_slots,
    point_orbits,
    regular_slot_permutations,
    slot_permutations_from_generators,
    stabilizer,
)

HashArray = npt.NDArray[np.uint64]

SCHEMES = ("huima64", "huima64-add", "regular64", "regular128")
DEFAULT_SCHEME = "regular128"
"""The scheme of the outputs users count (``gohash canon``, a new index): its
canonical keys merge no two distinct positions of the test corpus, where
huima64's merge 73 (docs/schemes.md)."""

# Huima's generators on the byte slots z1..z8 (docs/design.md, section "The key schemes").
HUIMA_ROT90: SlotPermutation = (1, 2, 3, 0, 5, 6, 7, 4)
HUIMA_FLIP: SlotPermutation = (3, 2, 1, 0, 7, 6, 5, 4)
HUIMA_SWAP: SlotPermutation = (4, 5, 6, 7, 0, 1, 2, 3)
HUIMA_PERMUTATIONS = slot_permutations_from_generators(HUIMA_ROT90, HUIMA_FLIP, HUIMA_SWAP)
REGULAR_PERMUTATIONS = regular_slot_permutations()

# Chunks of 2**17 hashes: numpy's cost per call is then small beside the work,
# and one chunk's temporaries still fit in a core's cache.
_CHUNK = 1 << 17
_THREADS = min(4, os.cpu_count() or 1)
_LOW7 = 0x7F7F7F7F7F7F7F7F
_HIGH1 = 0x8080808080808080


def hex_key(key: int, bits: int) -> str:
    """``key`` as ``0x`` and lower-case hex, zero-padded to ``bits`` bits (the width
    of a scheme's keys: :meth:`KeyScheme.hex`)."""
    return f"0x{key:0{bits // 4}x}"


def key_stream(family: str, size: int, nbytes: int) -> bytes:
    """The first ``nbytes`` of the documented key stream of a family and size."""
    return hashlib.shake_256(f"gohash-keys-v1|{family}|{size}".encode("ascii")).digest(nbytes)


def _join_slots(values: Sequence[int], slot_bits: int) -> int:
    h = 0
    for v in values:
        h = (h << slot_bits) | v
    return h


def _huima_tables(size: int) -> tuple[list[int], tuple[int, int]]:
    orbits = point_orbits(size)
    stream = key_stream("huima64", size, 8 * len(orbits) + 2)
    black = [0] * (size * size)
    for n, orbit in enumerate(orbits):
        representative = orbit[0]
        raw = stream[8 * n : 8 * n + 8]
        value = [0] * 8
        stab = [HUIMA_PERMUTATIONS[h.index] for h in stabilizer(representative, size)]
        for slots in orbits_of_slots(stab):
            for slot in slots:
                value[slot] = raw[slots[0]]
        for g in D4:
            row, col = g.map_point(representative, size)
            black[row * size + col] = _join_slots(
                [value[i] for i in HUIMA_PERMUTATIONS[g.index]], 8
            )
    a, b = stream[-2], stream[-1]
    if a == b:
        b = (a + 1) % 256
    return black, (_join_slots([a] * 4 + [b] * 4, 8), _join_slots([b] * 4 + [a] * 4, 8))


def _regular_tables(size: int, slot_bits: int) -> tuple[list[int], list[int], tuple[int, int]]:
    mask = (1 << slot_bits) - 1
    stream = key_stream(f"regular{16 * slot_bits}", size, 2 * size * size + 2)
    plain = {
        (point, colour): stream[2 * (point[0] * size + point[1]) + (colour == "w")] & mask
        for point in ((r, c) for r in range(size) for c in range(size))
        for colour in ("b", "w")
    }
    side_b, side_w = stream[-2] & mask, stream[-1] & mask
    if side_b == side_w:
        side_w = (side_b + 1) & mask

    def key(point: Point, colour: str) -> int:
        return _join_slots(
            [plain[s.map_point(point, size), s.map_colour(colour)] for s in ELEMENTS], slot_bits
        )

    points = [(r, c) for r in range(size) for c in range(size)]
    side = [side_w if s.swap else side_b for s in ELEMENTS]
    side_swapped = [side_b if s.swap else side_w for s in ELEMENTS]
    return (
        [key(p, "b") for p in points],
        [key(p, "w") for p in points],
        (_join_slots(side, slot_bits), _join_slots(side_swapped, slot_bits)),
    )


class KeyScheme:
    """A key table for one board size, with the group's action on its hashes.

    Get one with :func:`scheme`; schemes are immutable and cached.
    """

    def __init__(self, name: str, size: int) -> None:
        if name not in SCHEMES:
            raise UnknownSchemeError(
                f"unknown key scheme {name!r}; expected one of {', '.join(SCHEMES)}"
            )
        self.name = name
        self.size = check_size(size)
        self.combiner: Literal["xor", "add"] = "add" if name == "huima64-add" else "xor"
        self._huima = name.startswith("huima64")
        if self._huima:
            self.bits, self.slot_bits = 64, 8
            self.permutations = HUIMA_PERMUTATIONS
        else:
            self.bits = 128 if name == "regular128" else 64
            self.slot_bits = self.bits // 16
            self.permutations = REGULAR_PERMUTATIONS
        self.n_slots = self.bits // self.slot_bits
        self._getters = tuple(itemgetter(*perm) for perm in self.permutations)
        if self._huima:
            black, sides = _huima_tables(self.size)
            white = [self.transform(k, "swap") for k in black]
        else:
            black, white, sides = _regular_tables(self.size, self.slot_bits)
        self.black_keys: tuple[int, ...] = tuple(black)
        self.white_keys: tuple[int, ...] = tuple(white)
        self._side_keys = {"b": sides[0], "w": sides[1]}
        self._key_arrays = (self._as_array(black), self._as_array(white))

    def __repr__(self) -> str:
        return f"scheme({self.name!r}, {self.size})"

    # -- single hashes (Python ints) -------------------------------------------------------

    def combine(self, a: int, b: int) -> int:
        """Add key or hash ``b`` to ``a``: XOR, or byte-wise addition mod 256."""
        if self.combiner == "xor":
            return a ^ b
        return ((a & _LOW7) + (b & _LOW7)) ^ ((a ^ b) & _HIGH1)

    def remove(self, a: int, b: int) -> int:
        """Take key or hash ``b`` out of ``a``; the inverse of :meth:`combine`."""
        if self.combiner == "xor":
            return a ^ b
        return ((a | _HIGH1) - (b & _LOW7)) ^ ((a ^ ~b) & _HIGH1)

    def stone_key(self, point: Point, colour: str) -> int:
        """The key of a ``colour`` (``"b"``, ``"w"``) stone at ``point`` (``(row,
        col)``, row 0 the bottom line): what a position's hash combines for it
        (:meth:`combine`), so ``hash_array`` of a board of one stone is its key.
        Raises :class:`PositionError` off the board and :class:`ColourError`
        for another colour."""
        row, col = point
        if not (0 <= row < self.size and 0 <= col < self.size):
            raise PositionError(f"point {point!r} is off a {self.size}x{self.size} board")
        keys = self.black_keys if _check_colour(colour) == "b" else self.white_keys
        return keys[row * self.size + col]

    def side_key(self, colour: str) -> int:
        """The side-to-move key ``t_B`` or ``t_W``, fixed by every board map."""
        return self._side_keys[_check_colour(colour)]

    def hash_array(self, board: npt.ArrayLike, to_move: str | None = None) -> int:
        """Hash of one position ``board[row, col]`` (0 empty, 1 black, 2 white)."""
        flat = check_position_array(board, batch=False, size=self.size).reshape(-1)
        points = np.flatnonzero(flat)
        black, white = self.black_keys, self.white_keys
        h = 0
        # The stones' points and colours as lists: indexing the array stone by stone
        # cost more than the hash.
        if self.combiner == "xor":
            for i, colour in zip(points.tolist(), flat[points].tolist(), strict=True):
                h ^= black[i] if colour == 1 else white[i]
        else:
            for i, colour in zip(points.tolist(), flat[points].tolist(), strict=True):
                h = self.combine(h, black[i] if colour == 1 else white[i])
        if to_move is not None:
            h = self.combine(h, self.side_key(to_move))
        return h

    def _digits(self, h: int) -> bytes | str:
        # One character per slot, so a slot permutation is an itemgetter and
        # comparing two digit strings compares the hashes as unsigned integers.
        if self.slot_bits == 8:
            return h.to_bytes(self.n_slots, "big")
        return format(h, f"0{self.n_slots}x")

    def _join_digits(self, digits: tuple[int, ...] | tuple[str, ...]) -> bytes | str:
        if self.slot_bits == 8:
            return bytes(digits)  # type: ignore[arg-type]
        return "".join(digits)  # type: ignore[arg-type]

    def _undigits(self, digits: bytes | str) -> int:
        if isinstance(digits, bytes):
            return int.from_bytes(digits, "big")
        return int(digits, 16)

    def transform(self, h: int, g: str | int | Element) -> int:
        """``T_g(h)``: the hash of the image under ``g`` of the position hashed ``h``.

        >>> import numpy as np
        >>> from gohash import element, scheme
        >>> s = scheme("huima64", 19)
        >>> board = np.zeros((19, 19), dtype=np.int8)
        >>> board[3, 3], board[15, 16] = 1, 2
        >>> h = s.hash_array(board)
        >>> s.hex(s.transform(h, "rot90"))
        '0x045f5a092749f187'
        >>> s.transform(h, "rot90") == s.hash_array(element("rot90").image_array(board))
        True
        """
        self._check_hash(h)
        return self._undigits(self._join_digits(self._getters[element(g).index](self._digits(h))))

    def canonical(self, h: int, symmetry: str = "full", *,
                  group: str | None = None) -> tuple[int, tuple[Element, ...]]:
        """Least ``T_g(h)`` over ``g`` in ``symmetry`` (``"d4"`` or ``"full"``; ``group``
        its deprecated name), and every ``g`` attaining it, in table order: the
        first maps into the canonical frame.

        >>> import numpy as np
        >>> from gohash import scheme
        >>> s = scheme("huima64", 19)
        >>> board = np.zeros((19, 19), dtype=np.int8)
        >>> board[3, 3], board[15, 16] = 1, 2
        >>> h = s.hash_array(board)
        >>> key, elements = s.canonical(h)
        >>> s.hex(key), [g.name for g in elements]
        ('0x04095a5f2787f149', ['flipud'])
        >>> s.canonical(s.transform(h, "rot90_swap"))[0] == key   # every image: one key
        True
        """
        self._check_hash(h)
        elements = elements_of(renamed(symmetry, group, "group", "symmetry",
                                       "KeyScheme.canonical"))
        if self._huima:
            found = _huima_canonical(h, len(elements) == 16)
            if found is not None:
                return found
        digits = self._digits(h)
        join = self._join_digits
        images = [join(get(digits)) for get in self._getters[: len(elements)]]
        least = min(images)
        attaining = tuple(g for g, image in zip(elements, images, strict=True) if image == least)
        return self._undigits(least), attaining

    def hex(self, h: int) -> str:
        """``h`` as ``0x`` and lower-case hex, zero-padded to the scheme's width."""
        return hex_key(h, self.bits)

    # -- numpy batches, each the twin of a method above ------------------------------------

    def hash_arrays(self, boards: npt.ArrayLike, to_move: str | None = None) -> HashArray:
        """Hashes of a batch ``boards[B, row, col]``; the twin of :meth:`hash_array`."""
        flat = check_position_array(boards, batch=True, size=self.size)
        flat = flat.reshape(flat.shape[0], self.size * self.size)
        black_keys, white_keys = self._key_arrays
        out = np.empty((flat.shape[0], *black_keys.shape[1:]), dtype=np.uint64)
        for start in range(0, flat.shape[0], 256):
            part = flat[start : start + 256]
            shape = part.shape + (1,) * (black_keys.ndim - 1)
            black = np.where((part == 1).reshape(shape), black_keys, np.uint64(0))
            white = np.where((part == 2).reshape(shape), white_keys, np.uint64(0))
            if self.combiner == "xor":
                out[start : start + 256] = np.bitwise_xor.reduce(black ^ white, axis=1)
            else:
                # np.where keeps the memory order of a batch that is not C-ordered;
                # a byte view needs contiguous hashes.
                stacked = np.ascontiguousarray(np.concatenate([black, white], axis=1))
                as_bytes = stacked.view(np.uint8).reshape(*stacked.shape, 8)
                out[start : start + 256] = (
                    as_bytes.sum(axis=1, dtype=np.uint8).view(np.uint64).reshape(-1)
                )
        if to_move is not None:
            out = self.combine_array(out, self.side_key(to_move))
        return out

    def combine_array(self, hs: npt.ArrayLike, key: int) -> HashArray:
        """:meth:`combine` of every hash in ``hs`` with one key or hash."""
        arr = self._check_hash_array(hs)
        keys = self._as_array([key])
        if self.combiner == "xor":
            combined: HashArray = arr ^ keys[0]
            return combined
        total = arr.view(np.uint8).reshape(-1, 8) + keys.view(np.uint8)
        return total.view(np.uint64).reshape(arr.shape)

    def transform_array(self, hs: npt.ArrayLike, g: str | int | Element) -> HashArray:
        """``T_g`` of every hash in ``hs``; the twin of :meth:`transform`."""
        arr = self._check_hash_array(hs)
        g = element(g)
        out = np.empty_like(arr)
        for start in range(0, arr.shape[0], _CHUNK):
            part = arr[start : start + _CHUNK]
            if self._huima:
                _huima_transform(part, g, out[start : start + _CHUNK], np.empty_like(part))
            else:
                digits = self._digit_matrix(part)
                out[start : start + _CHUNK] = self._from_digit_matrix(
                    digits[:, self.permutations[g.index]]
                )
        return out

    def canonical_array(
        self, hs: npt.ArrayLike, symmetry: str = "full", *, group: str | None = None
    ) -> tuple[HashArray, npt.NDArray[np.uint8]]:
        """Canonical keys of ``hs`` and the lowest attaining element's index per hash;
        the twin of :meth:`canonical`.  Works in chunks: extra memory stays small."""
        symmetry = renamed(symmetry, group, "group", "symmetry", "KeyScheme.canonical_array")
        keys, lowest, _ = self.canonical_and_ties(hs, symmetry)
        return keys, lowest

    def canonical_and_ties(
        self, hs: npt.ArrayLike, symmetry: str = "full", *, group: str | None = None
    ) -> tuple[HashArray, npt.NDArray[np.uint8], npt.NDArray[np.intp]]:
        """:meth:`canonical_array`, and the rows where more than one element may
        attain the key: every other row has exactly one.

        Since ``T`` is an action of the group, a key some ``T_s`` (``s`` not the
        identity) fixes is attained by ``s . g`` as well as by ``g``: only these
        rows can hold a key with symmetries, so only they need looking at.
        """
        arr = self._check_hash_array(hs)
        count = len(elements_of(renamed(symmetry, group, "group", "symmetry",
                                        "KeyScheme.canonical_and_ties")))
        keys = np.empty_like(arr)
        lowest = np.empty(arr.shape[0], dtype=np.uint8)
        if not self._huima:
            tie_parts = []
            for start in range(0, arr.shape[0], _CHUNK):
                part = slice(start, start + _CHUNK)
                keys[part], lowest[part], ties = self._canonical_by_images(arr[part], count)
                tie_parts.append(ties + start)
            return keys, lowest, np.concatenate([np.empty(0, dtype=np.intp), *tie_parts])

        def settle(start: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
            # The rows of this chunk the byte pass left (where several elements may
            # attain the key), and those that neither fast pass could settle.
            part = slice(start, start + _CHUNK)
            x, chunk_keys, chunk_lowest = arr[part], keys[part], lowest[part]
            ties = _huima_canonical_by_bytes(x, count == 16, chunk_keys, chunk_lowest)
            unsettled = ties
            if ties.size:
                tie_keys = np.empty(ties.size, dtype=np.uint64)
                tie_lowest = np.empty(ties.size, dtype=np.uint8)
                left = _huima_canonical_by_halves(x[ties], count == 16, tie_keys, tie_lowest)
                chunk_keys[ties], chunk_lowest[ties] = tie_keys, tie_lowest
                unsettled = ties[left]
            return ties + start, unsettled + start

        starts = range(0, arr.shape[0], _CHUNK)
        if len(starts) > 1 and _THREADS > 1:
            # numpy releases the GIL inside each operation, so chunks run in parallel.
            with ThreadPoolExecutor(_THREADS) as pool:
                parts = list(pool.map(settle, starts))
        else:
            parts = [settle(start) for start in starts]
        nothing = np.empty(0, dtype=np.intp)
        ties = np.concatenate([nothing, *(tied for tied, _ in parts)])
        unsettled = np.concatenate([nothing, *(left for _, left in parts)])
        for start in range(0, unsettled.size, _CHUNK):
            rows = unsettled[start : start + _CHUNK]
            keys[rows], lowest[rows], _ = self._canonical_by_images(arr[rows], count)
        return keys, lowest, ties

    def _canonical_by_images(
        self, part: HashArray, count: int
    ) -> tuple[HashArray, npt.NDArray[np.uint8], npt.NDArray[np.intp]]:
        """Keys, lowest attaining elements, and the rows more than one element attains."""
        digits = self._digit_matrix(part)
        rows = np.stack(
            [self._from_digit_matrix(digits[:, perm]) for perm in self.permutations[:count]]
        )
        lowest = (
            rows.argmin(axis=0).astype(np.uint8) if self.bits == 64 else _lexicographic_argmin(rows)
        )
        index = lowest.reshape(1, -1, *(1,) * (part.ndim - 1)).astype(np.intp)
        keys = np.take_along_axis(rows, index, axis=0)[0]
        attaining = rows == keys if self.bits == 64 else (rows == keys).all(axis=2)
        return keys, lowest, np.flatnonzero(attaining.sum(axis=0) > 1)

    def to_ints(self, hs: npt.ArrayLike) -> list[int]:
        """Python ints of an array of hashes (for 128-bit, of its ``[hi, lo]`` rows)."""
        arr = self._check_hash_array(hs)
        if self.bits == 64:
            return [int(v) for v in arr.tolist()]
        return [(int(hi) << 64) | int(lo) for hi, lo in arr.tolist()]

    def from_ints(self, hs: Sequence[int]) -> HashArray:
        """Array of hashes from Python ints; the inverse of :meth:`to_ints`."""
        for h in hs:
            self._check_hash(h)
        return self._as_array(hs)

    # -- helpers -----------------------------------------------------------------------------

    def _as_array(self, values: Sequence[int]) -> HashArray:
        if self.bits == 64:
            return np.array(values, dtype=np.uint64).reshape(len(values))
        mask = (1 << 64) - 1
        return np.array([[v >> 64, v & mask] for v in values], dtype=np.uint64).reshape(-1, 2)

    def _digit_matrix(self, part: HashArray) -> npt.NDArray[np.uint8]:
        as_bytes = part.astype(">u8").view(np.uint8).reshape(part.shape[0], -1)
        if self.slot_bits == 8:
            return as_bytes
        digits = np.empty((part.shape[0], 2 * as_bytes.shape[1]), dtype=np.uint8)
        digits[:, 0::2] = as_bytes >> 4
        digits[:, 1::2] = as_bytes & 15
        return digits

    def _from_digit_matrix(self, digits: npt.NDArray[np.uint8]) -> HashArray:
        if self.slot_bits == 4:
            digits = ((digits[:, 0::2] << 4) | digits[:, 1::2]).astype(np.uint8)
        joined = np.ascontiguousarray(digits).view(">u8").astype(np.uint64)
        return joined.reshape(-1) if self.bits == 64 else joined.reshape(-1, 2)

    def _check_hash(self, h: object) -> None:
        if not isinstance(h, int) or isinstance(h, bool) or not 0 <= h < 1 << self.bits:
            raise PositionError(f"hash {h!r} is not an unsigned {self.bits}-bit integer")

    def _check_hash_array(self, hs: npt.ArrayLike) -> HashArray:
        arr = np.asarray(hs)
        if arr.dtype != np.uint64:
            raise PositionError(f"hash array has dtype {arr.dtype!r}; expected uint64")
        expected = "(B,)" if self.bits == 64 else "(B, 2)"
        if (self.bits == 64 and arr.ndim != 1) or (
            self.bits == 128 and (arr.ndim != 2 or arr.shape[1] != 2)
        ):
            raise PositionError(
                f"hash array has shape {arr.shape!r}; {self.name} expects {expected}"
            )
        return np.ascontiguousarray(arr)


def _check_colour(colour: str) -> str:
    if colour not in ("b", "w"):
        raise ColourError(f"colour {colour!r} is not 'b' or 'w'")
    return colour


def _lexicographic_argmin(rows: HashArray) -> npt.NDArray[np.uint8]:
    """Index of the least ``[hi, lo]`` pair down axis 0 (first on ties)."""
    best = np.zeros(rows.shape[1], dtype=np.uint8)
    hi, lo = rows[0, :, 0].copy(), rows[0, :, 1].copy()
    for i in range(1, rows.shape[0]):
        better = (rows[i, :, 0] < hi) | ((rows[i, :, 0] == hi) & (rows[i, :, 1] < lo))
        best[better] = i
        hi[better] = rows[i, better, 0]
        lo[better] = rows[i, better, 1]
    return best


# -- huima64 on uint64 words by shifts and masks ---------------------------------------------

_HALF = 0x00000000FFFFFFFF


def _both_halves(mask32: int) -> np.uint64:
    word: np.uint64 = np.uint64((mask32 << 32) | mask32)
    return word


_ROT_MASKS = {
    r: (_both_halves((_HALF << r) & _HALF), _both_halves((1 << r) - 1)) for r in (8, 16, 24)
}


def _rotate_halves(x: HashArray, r: int, out: HashArray, tmp: HashArray) -> None:
    """Rotate each 32-bit half of every word left by ``r`` bits: ``T_rot90**(r/8)``."""
    keep_high, keep_low = _ROT_MASKS[r]
    np.left_shift(x, np.uint64(r), out=tmp)
    np.bitwise_and(tmp, keep_high, out=tmp)
    np.right_shift(x, np.uint64(32 - r), out=out)
    np.bitwise_and(out, keep_low, out=out)
    np.bitwise_or(out, tmp, out=out)


def _swap_halves(x: HashArray, out: HashArray, tmp: HashArray) -> None:
    np.left_shift(x, np.uint64(32), out=tmp)
    np.right_shift(x, np.uint64(32), out=out)
    np.bitwise_or(out, tmp, out=out)


def _huima_transform(x: HashArray, g: Element, out: HashArray, tmp: HashArray) -> None:
    """``T_g(x)`` into ``out``.

    ``T_g = T_swap**s . T_flip**f . T_rot90**k``, and ``T_flip`` is ``T_swap`` after
    the byte reversal of the whole word, which numpy does in one pass.
    """
    if g.rotation:
        _rotate_halves(x, 8 * g.rotation, out, tmp)
    else:
        np.copyto(out, x)
    if g.flipped:
        out.byteswap(inplace=True)
    if g.swap != g.flipped:
        np.copyto(tmp, out)
        _swap_halves(tmp, out, np.empty_like(tmp))


def _leading_elements() -> tuple[tuple[int, int], ...]:
    # For the byte at slot p leading the image: T_rot90**k brings slot k of the
    # high half to the front followed by slot k+1; T_flip . T_rot90**(k+1) brings
    # it to the front followed by slot k-1.  Slots of the low half lead only
    # after the halves are exchanged.
    table = []
    for p in range(8):
        k, swap = p & 3, 8 * (p >= 4)
        table.append((swap + k, swap + 4 + (k + 1) % 4))
    return tuple(table)


_LEADING = _leading_elements()
# Slot j of a half is followed by _NEXT_SLOT[j] in T_rot90**k, and by
# _PREV_SLOT[j] in the reflection that brings slot j to the front.
_NEXT_SLOT = tuple(j - (j & 3) + ((j & 3) + 1) % 4 for j in range(8))
_PREV_SLOT = tuple(j - (j & 3) + ((j & 3) - 1) % 4 for j in range(8))


def _huima_canonical(h: int, full: bool) -> tuple[int, tuple[Element, ...]] | None:
    """The canonical key of a huima64 hash when one image is least by its first two
    bytes, which holds for almost every hash; ``None`` where a tie needs all images.

    Every image begins with one of the searched bytes followed by one of its two
    neighbours in the same half, so the least image starts with the least byte.
    """
    b = h.to_bytes(8, "big")
    searched = b if full else b[:4]
    least = min(searched)
    if searched.count(least) != 1:
        return None
    p = searched.index(least)
    after, before = b[_NEXT_SLOT[p]], b[_PREV_SLOT[p]]
    if after == before:
        return None
    g = ELEMENTS[_LEADING[p][after > before]]
    return int.from_bytes(bytes(_HUIMA_GETTERS[g.index](b)), "big"), (g,)


_HUIMA_GETTERS = tuple(itemgetter(*perm) for perm in HUIMA_PERMUTATIONS)


def _byte_tables() -> tuple[npt.NDArray[np.intp], ...]:
    # Indexed by 2 * slot + (next > prev); tie rows index past 15 and are redone.
    leading = [element for pair in _LEADING for element in pair] + [0] * 48
    columns = list(range(7, -1, -1)) if sys.byteorder == "little" else list(range(8))
    return (
        np.array(_NEXT_SLOT, dtype=np.intp),
        np.array(_PREV_SLOT, dtype=np.intp),
        np.array(leading, dtype=np.uint8),
        np.array(columns, dtype=np.intp),
    )


_NEXT_ROWS, _PREV_ROWS, _LEADING_TABLE, _SLOT_COLUMNS = _byte_tables()
_COUNTED_SLOTS = 16 + np.arange(8, dtype=np.uint8)
# Index of the high 32 bits of a word in its uint32 view.
_HIGH_WORD = 1 if sys.byteorder == "little" else 0


def _huima_canonical_by_bytes(
    x: HashArray, full: bool, keys: HashArray, lowest: npt.NDArray[np.uint8]
) -> npt.NDArray[np.intp]:
    """Canonical keys of huima64 hashes from their bytes: the vector form of
    :func:`_huima_canonical`.  Returns the rows it leaves to the caller: those whose
    least byte is not unique or whose two neighbours of it are equal (about 2%).

    Works on byte rows, 8 times narrower than the words, and applies one
    element per row by shifts of varying width, so no image is materialised.
    """
    n = x.shape[0]
    slots = np.ascontiguousarray(x.view(np.uint8).reshape(n, 8).T[_SLOT_COLUMNS])
    searched = slots[: 8 if full else 4]
    at_least = (searched == searched.min(axis=0)).view(np.uint8)
    rows = len(searched)
    # Weighted sums over the rows by einsum, which needs no temporary product.
    # Weights 16 + j: the high nibble counts the least bytes, the low nibble
    # is the slot of the least byte where that count is 1.
    counted = np.einsum("ij,i->j", at_least, _COUNTED_SLOTS[:rows])
    after = np.einsum("ij,ij->j", at_least, slots[_NEXT_ROWS[:rows]])
    before = np.einsum("ij,ij->j", at_least, slots[_PREV_ROWS[:rows]])
    np.take(_LEADING_TABLE, ((counted & np.uint8(15)) << np.uint8(1)) | (after > before),
            out=lowest)

    # T_g = T_swap**s . T_flip**f . T_rot90**r: the high half of the key is the
    # flip**f . rot90**r image of one half of x, the low half that of the other.
    # Selections are by masks: np.where on random conditions is several times slower.
    swap_mask = (lowest >> np.uint8(3)).astype(np.uint32) * np.uint32(0xFFFFFFFF)
    flip_mask = ((lowest >> np.uint8(2)) & np.uint8(1)).astype(np.uint32) * np.uint32(0xFFFFFFFF)
    halves = x.view(np.uint32).reshape(n, 2)
    high_half, low_half = halves[:, _HIGH_WORD], halves[:, 1 - _HIGH_WORD]
    exchanged = (high_half ^ low_half) & swap_mask
    first, second = high_half ^ exchanged, low_half ^ exchanged
    shift = ((lowest & np.uint8(3)) << np.uint8(3)).astype(np.uint32)
    # A shift by 32 gives 0 in numpy, so r = 0 leaves the half unchanged.
    shift_back = np.uint32(32) - shift
    key_halves = keys.view(np.uint32).reshape(n, 2)
    for half, word in ((first, _HIGH_WORD), (second, 1 - _HIGH_WORD)):
        np.bitwise_or(half << shift, half >> shift_back, out=half)
        half ^= (half ^ half.byteswap()) & flip_mask
        key_halves[:, word] = half
    return np.flatnonzero(((counted >> np.uint8(4)) != 1) | (after == before))


def _d4_images_of_halves(words: npt.NDArray[np.uint32], out: npt.NDArray[np.uint32]) -> None:
    """``out[i] = T_{ELEMENTS[i]}`` of each 32-bit half, for the 8 board maps.

    Within a half ``T_rot90`` rotates left by 8 bits and ``T_flip`` reverses the
    bytes, and element ``4 + k`` is ``T_flip . T_rot90**k``.
    """
    np.copyto(out[0], words)
    for k in (1, 2, 3):
        np.left_shift(words, np.uint32(8 * k), out=out[k])
        np.bitwise_or(out[k], words >> np.uint32(32 - 8 * k), out=out[k])
    for k in range(4):
        np.copyto(out[4 + k], out[k])
        out[4 + k].byteswap(inplace=True)


def _huima_canonical_by_halves(
    x: HashArray, full: bool, keys: HashArray, lowest: npt.NDArray[np.uint8]
) -> npt.NDArray[np.intp]:
    """Canonical keys of huima64 hashes by halves; returns the rows it leaves to an
    exact pass.

    The high half of ``T_g(x)`` is a D4-image of one half of ``x`` and its low half
    the same image of the other half.  So the key's high half is the least of 16
    (or 8) 32-bit words, and where exactly one element attains it, that element
    and its low half finish the key.  Rows where several attain it (symmetric
    positions, about 0.6% of random hashes) are returned for an exact pass.
    """
    n = x.shape[0]
    halves = np.empty((2, 8, n), dtype=np.uint32)
    _d4_images_of_halves((x >> np.uint64(32)).astype(np.uint32), halves[0])
    _d4_images_of_halves(x.astype(np.uint32), halves[1])
    candidates = halves.reshape(16, n)[: 16 if full else 8]
    high = candidates.min(axis=0)
    attains = candidates == high
    lowest[:] = (attains * _ELEMENT_INDEXES[: len(candidates)]).sum(axis=0, dtype=np.uint8)
    # The low half of element i is row i ^ 8: the other half under the same map.
    # (Tie rows hold a sum of indexes here; masking keeps their gather in bounds.)
    low = halves.reshape(-1)[((lowest & 15) ^ 8).astype(np.intp) * n + np.arange(n)]
    np.bitwise_or(high.astype(np.uint64) << np.uint64(32), low, out=keys)
    return np.flatnonzero(attains.sum(axis=0, dtype=np.uint8) != 1)


_ELEMENT_INDEXES = np.arange(16, dtype=np.uint8).reshape(16, 1)


@cache
def scheme(name: str, size: int) -> KeyScheme:
    """The key scheme ``name`` (one of :data:`SCHEMES`) for ``size`` x ``size`` boards.

    >>> import numpy as np
    >>> s = scheme("huima64", 19)
    >>> board = np.zeros((19, 19), dtype=np.int8)  # board[row, col], row 0 the bottom line
    >>> board[3, 3], board[15, 16] = 1, 2           # 1 black, 2 white
    >>> s.hex(s.hash_array(board))
    '0x09045f5a872749f1'
    """
    return KeyScheme(name, size)


class OwnKeys(KeyScheme):
    """A user's own Zobrist key table for one board size (:func:`load_keys`):
    64-bit keys combined by XOR, ``black[row * size + col]`` and
    ``white[...]`` (row 0 the bottom line), and the side-to-move keys ``side``
    (``(t_B, t_W)``, both 0 if the engine hashes no side to move).

    A :class:`~gohash.go.board.Board` hashes with it as with any scheme, so its
    :attr:`~gohash.go.board.Board.hash` is the other engine's.  Such keys have
    no symmetry, so the group's action (:meth:`transform`, :meth:`canonical`
    and their array twins) raises :class:`~gohash.errors.GohashError`.
    """

    def __init__(self, black: Sequence[int], white: Sequence[int],
                 side: tuple[int, int] = (0, 0), *, name: str = "own") -> None:
        size = round(len(black) ** 0.5)
        if size * size != len(black) or len(white) != len(black):
            raise GohashError(f"a key table has one black and one white key per point of a "
                              f"square board: {len(black)} black and {len(white)} white keys")
        self.name = name
        self.size = check_size(size)
        self.combiner = "xor"
        self._huima = False
        self.bits, self.slot_bits, self.n_slots = 64, 64, 1
        self.permutations = ()
        self._getters = ()
        for key in (*black, *white, *side):
            if not isinstance(key, int) or not 0 <= key < 1 << 64:
                raise GohashError(f"key {key!r} is not an unsigned 64-bit integer")
        self.black_keys = tuple(black)
        self.white_keys = tuple(white)
        self._side_keys = {"b": side[0], "w": side[1]}
        self._key_arrays = (self._as_array(black), self._as_array(white))

    def __repr__(self) -> str:
        return f"OwnKeys({self.name!r}, size={self.size})"

    def _no_symmetry(self) -> GohashError:
        return GohashError(f"the key table {self.name!r} is a user's own: its keys have no "
                           "symmetry, so hashes cannot be transformed or made canonical")

    def transform(self, h: int, g: str | int | Element) -> int:
        raise self._no_symmetry()

    def canonical(self, h: int, symmetry: str = "full", *,
                  group: str | None = None) -> tuple[int, tuple[Element, ...]]:
        raise self._no_symmetry()

    def transform_array(self, hs: npt.ArrayLike, g: str | int | Element) -> HashArray:
        raise self._no_symmetry()

    def canonical_and_ties(
        self, hs: npt.ArrayLike, symmetry: str = "full", *, group: str | None = None
    ) -> tuple[HashArray, npt.NDArray[np.uint8], npt.NDArray[np.intp]]:
        raise self._no_symmetry()


def load_keys(source: str | os.PathLike[str] | npt.ArrayLike, *,
              name: str | None = None) -> OwnKeys:
    """A user's own key table (:class:`OwnKeys`), to hash as another engine does.

    ``source`` is one of:

    - a ``.npy`` file, or an array: unsigned 64-bit keys of shape ``(2, N, N)``,
      ``keys[0, row, col]`` black's and ``keys[1, row, col]`` white's, row 0
      the bottom line (the layout of gohash's position arrays); no side keys;
    - a ``.json`` file: ``{"black": [...], "white": [...], "side": [tB, tW]}``,
      N*N keys each in point order ``row * N + col`` (row 0 the bottom line),
      as numbers or ``"0x..."`` hex strings; ``side`` optional (default 0, 0).

    ``name`` names it (default: the file's name, or ``"own"``).
    """
    side = (0, 0)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        name = name or os.path.basename(path)
        try:
            if path.endswith(".json"):
                with open(path, encoding="utf-8") as f:
                    table = json.load(f)
                black = [_key(k) for k in table["black"]]
                white = [_key(k) for k in table["white"]]
                side = tuple(_key(k) for k in table.get("side", (0, 0)))  # type: ignore[assignment]
                if len(side) != 2:
                    raise GohashError(f"{path!r}: side holds {len(side)} keys, not 2")
                return OwnKeys(black, white, side, name=name)
            array = np.load(path, allow_pickle=False)
        except OSError as e:
            raise GohashError(f"cannot read the key table {path!r}: {e.strerror or e}") from None
        except (ValueError, KeyError, TypeError) as e:
            raise GohashError(f"{path!r} is not a key table (docs/library.md): {e}") from None
    else:
        array = np.asarray(source)
    if array.ndim != 3 or array.shape[0] != 2 or array.shape[1] != array.shape[2]:
        raise GohashError(f"a key array has shape (2, N, N), not {array.shape!r}")
    if array.dtype != np.uint64:
        raise GohashError(f"a key array holds uint64 keys, not {array.dtype}")
    return OwnKeys(array[0].reshape(-1).tolist(), array[1].reshape(-1).tolist(),
                   side, name=name or "own")


def _key(value: object) -> int:
    """A key of a JSON table: a number, or a hex string like ``"0x1f"``."""
    if isinstance(value, str):
        return int(value, 16)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise GohashError(f"key {value!r} is not a number or a hex string")
