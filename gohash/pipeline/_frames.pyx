# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled frames of a batch: packed frames, exact symmetries of symmetric keys and
canonical keys of the regular schemes, the kernels of :class:`gohash.pipeline.columns.Exact`.

Scope: :func:`pack_frames`, :func:`settle_symmetric` and :func:`canonical_slots`,
each the twin of a numpy pass of :mod:`gohash.pipeline.frames` or
:mod:`gohash.group.schemes`.  Their inputs are the batch's own columns and
gohash's tables, checked once a call by :mod:`gohash.pipeline.columns`
(:func:`~gohash.pipeline.columns.pack_frames` and its neighbours: sizes,
table entries, rows, both ends of every packed position, the values of its
points), so the loops here run without a check.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.string cimport memcpy

from ._board cimport MAX_PACKED

import numpy as np

# The four base-4 digits of each byte value, most significant first.
cdef uint8_t DIGITS[256][4]
for _byte in range(256):
    for _k in range(4):
        DIGITS[_byte][_k] = (_byte >> (6 - 2 * _k)) & 3


cdef inline void _unpack(const uint8_t* packed, int length, uint8_t* digits) noexcept:
    """The ``4 * length`` digits of ``length`` packed bytes, leading pad digits too."""
    cdef int b
    for b in range(length):
        memcpy(&digits[4 * b], &DIGITS[packed[b]][0], 4)


def pack_frames(
    const uint8_t[:] data, const int64_t[:] offsets, const int64_t[:] rows,
    const uint8_t[:] which, const int64_t[:, :] gathers, int size,
    uint8_t[:] out, const int64_t[:] out_offsets,
):
    """The packed frame of each row of ``rows`` written at ``out[out_offsets[row]:]``:
    the image of its packed position (``data[offsets[row]:]``, as
    ``Board.position_key`` packs it) under element ``which[i]``.  The image's
    point ``k`` holds the position's point ``gathers[g, k]``; elements 8 and up
    also exchange the colours.  The twin of :func:`gohash.pipeline.frames.frame_rows`.

    Checked by :func:`gohash.pipeline.columns.pack_frames` (rows, elements, the
    point table, both ends of every packed position).  A byte is unpacked by
    one table look-up, and each byte of the image is four digits gathered
    through a table of digit indexes made once per call.
    """
    cdef int npts = size * size, length = (npts + 3) // 4, pad = 4 * length - npts
    cdef int k, b, g, zero = 4 * length
    cdef unsigned int v
    cdef Py_ssize_t i, r, src, dst
    cdef uint8_t digits[4 * MAX_PACKED + 1]
    cdef const int32_t* t
    # Digit j of element g's image is digits[table[g, j]]: the pad digits read
    # the zero after the last digit, whatever the source's pad bits hold.
    table_array = np.empty((gathers.shape[0], 4 * length), dtype=np.int32)
    cdef int32_t[:, ::1] table = table_array
    for g in range(gathers.shape[0]):
        for k in range(pad):
            table[g, k] = zero
        for k in range(npts):
            table[g, pad + k] = pad + gathers[g, k]
    digits[zero] = 0
    for i in range(rows.shape[0]):
        r = rows[i]
        src = offsets[r] + 1
        dst = out_offsets[r]
        _unpack(&data[src], length, digits)
        g = which[i]
        t = &table[g, 0]
        out[dst] = size
        for b in range(length):
            v = (digits[t[4 * b]] << 6) | (digits[t[4 * b + 1]] << 4) | (
                digits[t[4 * b + 2]] << 2) | digits[t[4 * b + 3]]
            if g >= 8:  # black and white exchanged: the two bits of every digit
                v = ((v & 0x55) << 1) | ((v >> 1) & 0x55)
            out[dst + 1 + b] = v


def settle_symmetric(
    const uint8_t[:] data, const int64_t[:] offsets, const int64_t[:] rows,
    const uint16_t[:] attains, const int64_t[:, :] gathers, int size,
):
    """The exact stabilizer and the frame element of each row of ``rows``: the
    positions whose key some element fixes, which the key alone cannot settle.

    Returns ``(symmetries, which)``, one entry per row: the bit mask of the
    elements ``g`` (rows of ``gathers``) whose image of the packed position
    (``data[offsets[row]:]``) is the position itself, and the lowest element
    among those of bit mask ``attains[i]`` (the elements attaining the key)
    whose image is least, digit by digit from the first point, as packings
    compare.  The twin of the numpy pass in :func:`gohash.pipeline.frames.frame_batch`;
    each comparison stops at the first point that differs, so a position with
    no symmetry costs a few points per element, not a whole board.  Checked
    by :func:`gohash.pipeline.columns.settle_symmetric` (as :func:`pack_frames`,
    and that ``attains[i]`` names elements of ``gathers`` and every point is
    0, 1 or 2).
    """
    cdef int npts = size * size, length = (npts + 3) // 4, pad = 4 * length - npts
    cdef int count = gathers.shape[0], k, g, best, a, b, stones
    cdef Py_ssize_t i, src
    cdef uint16_t mask
    cdef uint8_t digits[4 * MAX_PACKED]
    cdef uint8_t* cells
    cdef uint8_t swapped[3]
    swapped[0], swapped[1], swapped[2] = 0, 2, 1
    symmetries = np.zeros(rows.shape[0], dtype=np.uint16)
    which = np.zeros(rows.shape[0], dtype=np.uint8)
    cdef uint16_t[:] stabilizer = symmetries
    cdef uint8_t[:] lowest = which
    for i in range(rows.shape[0]):
        src = offsets[rows[i]] + 1
        stones = 0
        _unpack(&data[src], length, digits)
        cells = &digits[pad]
        for k in range(npts):
            stones |= cells[k]
        if not stones:
            # Every game starts from the empty board: every element fixes it.
            stabilizer[i] = (1 << count) - 1
            best = 0
            while not (attains[i] >> best) & 1:
                best += 1
            lowest[i] = best
            continue
        mask = 0
        best = -1
        for g in range(count):
            k = 0
            if g < 8:
                while k < npts and cells[gathers[g, k]] == cells[k]:
                    k += 1
            else:
                while k < npts and swapped[cells[gathers[g, k]]] == cells[k]:
                    k += 1
            if k == npts:
                mask |= 1 << g
            if not (attains[i] >> g) & 1:
                continue
            if best < 0:
                best = g
                continue
            for k in range(npts):
                a = cells[gathers[g, k]]
                b = cells[gathers[best, k]]
                if g >= 8:
                    a = swapped[a]
                if best >= 8:
                    b = swapped[b]
                if a != b:
                    if a < b:
                        best = g
                    break
        stabilizer[i] = mask
        lowest[i] = best
    return symmetries, which


def canonical_slots(
    const uint64_t[:, ::1] hashes, const int64_t[:, ::1] perms, int slot_bits,
    uint64_t[:, ::1] keys, uint8_t[:] lowest,
):
    """The canonical key of each hash of a scheme whose elements act by slot
    permutation (:class:`gohash.group.schemes.KeyScheme`, not huima64's):
    ``keys[i]`` the least of the images of ``hashes[i]`` under the first
    ``len(perms)`` elements, ``lowest[i]`` the first element attaining it;
    returns the rows that more than one element attains.

    A hash is one or two 64-bit words (high first) of 16 slots of
    ``slot_bits`` bits (8 or 4), slot 0 the most significant; slot ``j`` of
    element ``g``'s image is slot ``perms[g, j]`` of the hash.  The twin of
    :meth:`gohash.group.schemes.KeyScheme.canonical_and_ties` on the regular
    schemes, which does it with numpy a whole image at a time.  Checked by
    :func:`gohash.pipeline.columns.canonical_slots`.
    """
    cdef Py_ssize_t n = hashes.shape[0], i, ntied = 0
    cdef int words = hashes.shape[1], count = perms.shape[0], g, j, w, attained
    cdef int per_word = 64 // slot_bits
    cdef uint64_t mask = (1ULL << slot_bits) - 1
    cdef uint64_t hi, lo, best_hi, best_lo, word
    cdef uint8_t lead
    cdef uint8_t slots[16]
    cdef uint8_t table[16][16]
    for g in range(count):
        for j in range(16):
            table[g][j] = perms[g, j]
    tied_array = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[:] tied = tied_array
    for i in range(n):
        for w in range(words):
            word = hashes[i, w]
            for j in range(per_word):
                slots[w * per_word + j] = (word >> (64 - slot_bits * (j + 1))) & mask
        # An image's leading slot is its most significant: only the elements
        # whose image leads with the least one can attain the least image (one
        # or two of 16, mostly), so only theirs are formed.
        lead = 255
        for g in range(count):
            if slots[table[g][0]] < lead:
                lead = slots[table[g][0]]
        best_hi = best_lo = 0
        attained = 0
        for g in range(count):
            if slots[table[g][0]] != lead:
                continue
            hi = lo = 0
            for j in range(per_word):
                hi = (hi << slot_bits) | slots[table[g][j]]
            if words == 2:
                for j in range(per_word, 16):
                    lo = (lo << slot_bits) | slots[table[g][j]]
            if attained == 0 or hi < best_hi or (hi == best_hi and lo < best_lo):
                best_hi, best_lo = hi, lo
                lowest[i] = g
                attained = 1
            elif hi == best_hi and lo == best_lo:
                attained += 1
        keys[i, 0] = best_hi
        if words == 2:
            keys[i, 1] = best_lo
        if attained > 1:
            tied[ntied] = i
            ntied += 1
    return tied_array[:ntied].copy()

