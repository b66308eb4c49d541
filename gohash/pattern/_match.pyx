# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled twin of :func:`gohash.pattern.match.match_python`: the hits of a
query's placements in one game's boards.

Scope: :class:`Kernel` holds a :class:`gohash.pattern.match.Matcher`'s arrays
as typed memoryviews; :meth:`Kernel.match` replays one game, keeping each
placement's key up to date by XOR, and confirms point by point every
placement whose key equals the one required.  Bounds checks are off: every
index comes from the matcher's arrays, which it built from points of the
board, or from the game's arrays, whose shapes :meth:`Kernel.match` checks.
"""

from libc.stdint cimport int8_t, int32_t, uint8_t, uint64_t

import numpy as np


cdef inline bint _fits(int8_t code, int8_t value) noexcept nogil:
    if code <= 2:  # empty, black, white
        return value == code
    if code == 3:  # black or empty
        return value != 2
    if code == 4:  # white or empty
        return value != 1
    return True


cdef class Kernel:
    """A matcher's placements as the kernel reads them."""

    cdef const int32_t[::1] offsets, points, watch_offsets, watch, seq_length
    cdef const int8_t[::1] codes, watch_fixed, swaps
    cdef const uint64_t[::1] targets
    cdef const uint64_t[:, ::1] zobrist
    cdef const uint8_t[:, ::1] masks
    cdef const int8_t[:, ::1] seq_colours
    cdef const int32_t[:, ::1] seq_points
    cdef int count, size, to_move, max_move

    def __init__(self, matcher):
        self.offsets = matcher.offsets
        self.points = matcher.points
        self.codes = matcher.codes
        self.targets = matcher.targets
        self.zobrist = matcher.zobrist
        self.masks = matcher.masks
        self.swaps = matcher.swaps
        self.seq_length = matcher.seq_length
        self.seq_colours = matcher.seq_colours
        self.seq_points = matcher.seq_points
        self.watch_offsets = matcher.watch_offsets
        self.watch = matcher.watch
        self.watch_fixed = matcher.watch_fixed
        self.count = len(matcher.placements)
        self.size = matcher.size
        self.to_move = matcher.to_move
        self.max_move = matcher.max_move

    cdef bint _present(self, int pl, const int8_t[::1] board) noexcept nogil:
        cdef int j
        for j in range(self.offsets[pl], self.offsets[pl + 1]):
            if not _fits(self.codes[j], board[self.points[j]]):
                return False
        return True

    cdef int _conditions(self, int pl, int i, const int8_t[::1] to_move,
                         const int8_t[::1] next_colour, const int32_t[::1] next_point) noexcept nogil:
        cdef int want, k = i, step, point, positions = next_colour.shape[0]
        if self.to_move:
            want = self.to_move if not self.swaps[pl] else 3 - self.to_move
            if to_move[i] != want:
                return -1
        for step in range(self.seq_length[pl]):
            while True:
                if k >= positions or next_colour[k] == 0:
                    return -1
                point = next_point[k]
                k += 1
                if point >= 0 and self.masks[pl, point]:
                    if (point != self.seq_points[pl, step]
                            or next_colour[k - 1] != self.seq_colours[pl, step]):
                        return -1
                    break
        return k

    cdef int _continuation(self, int pl, int start, const int8_t[::1] next_colour,
                           const int32_t[::1] next_point) noexcept nogil:
        cdef int k = start, point, positions = next_colour.shape[0]
        while k < positions and next_colour[k] != 0:
            point = next_point[k]
            if point >= 0 and self.masks[pl, point]:
                return k
            k += 1
        return -1

    def match(self, const int8_t[:, ::1] boards, const int32_t[::1] move_numbers,
              const int8_t[::1] to_move, const int8_t[::1] next_colour,
              const int32_t[::1] next_point):
        """The hits as four arrays: placement, position, continuation's position
        (-1: none), tenuki (0/1); see :class:`gohash.pattern.match.Hits`."""
        cdef int positions = boards.shape[0], n = self.size * self.size
        if boards.shape[1] != n:
            raise ValueError(f"boards of {boards.shape[1]} points, not {n}")
        if not (move_numbers.shape[0] == to_move.shape[0] == next_colour.shape[0]
                == next_point.shape[0] == positions):
            raise ValueError("the game's columns differ in length")
        if positions and np.asarray(next_point).max() >= n:
            raise ValueError("a next point is off the board")
        if positions and not 0 <= np.asarray(boards).min() <= np.asarray(boards).max() <= 2:
            raise ValueError("a board holds a value other than 0, 1 and 2")
        cdef int count = self.count
        keys_array = np.zeros(count, dtype=np.uint64)
        cdef uint64_t[::1] keys = keys_array
        cdef uint8_t[::1] hit = np.zeros(count, dtype=np.uint8)
        cdef uint8_t[::1] pending = np.zeros(count, dtype=np.uint8)
        cdef int32_t[::1] stamp = np.full(count, -1, dtype=np.int32)
        cdef int32_t[::1] dirty = np.empty(count, dtype=np.int32)
        cdef int32_t[::1] waiting = np.empty(count, dtype=np.int32)
        cdef int i, j, w, p, pl, ndirty, nwaiting = 0, kept, start, cont
        cdef int8_t old, new
        cdef uint64_t delta
        cdef bint present
        found_placement, found_position, found_continuation, found_tenuki = [], [], [], []
        for i in range(positions):
            if self.max_move >= 0 and move_numbers[i] > self.max_move:
                break
            ndirty = 0
            if i == 0:
                for pl in range(count):
                    for j in range(self.offsets[pl], self.offsets[pl + 1]):
                        if self.codes[j] <= 2:
                            keys[pl] ^= self.zobrist[self.points[j], boards[0, self.points[j]]]
                    dirty[ndirty] = pl
                    ndirty += 1
            else:
                for p in range(n):
                    old = boards[i - 1, p]
                    new = boards[i, p]
                    if old == new:
                        continue
                    delta = self.zobrist[p, old] ^ self.zobrist[p, new]
                    for w in range(self.watch_offsets[p], self.watch_offsets[p + 1]):
                        pl = self.watch[w]
                        if hit[pl]:
                            continue
                        if self.watch_fixed[w]:
                            keys[pl] ^= delta
                        if stamp[pl] != i:
                            stamp[pl] = i
                            dirty[ndirty] = pl
                            ndirty += 1
            for j in range(ndirty):
                pl = dirty[j]
                present = keys[pl] == self.targets[pl] and self._present(pl, boards[i])
                if present and not pending[pl]:
                    pending[pl] = 1
                    waiting[nwaiting] = pl
                    nwaiting += 1
                elif not present:
                    pending[pl] = 0
            kept = 0
            for j in range(nwaiting):
                pl = waiting[j]
                if not pending[pl]:
                    continue
                start = self._conditions(pl, i, to_move, next_colour, next_point)
                if start < 0:
                    waiting[kept] = pl
                    kept += 1
                    continue
                pending[pl] = 0
                hit[pl] = 1
                cont = self._continuation(pl, start, next_colour, next_point)
                found_placement.append(pl)
                found_position.append(i)
                found_continuation.append(cont)
                found_tenuki.append(cont > start)
            nwaiting = kept
        return (
            np.array(found_placement, dtype=np.int32),
            np.array(found_position, dtype=np.int32),
            np.array(found_continuation, dtype=np.int32),
            np.array(found_tenuki, dtype=np.uint8),
        )
