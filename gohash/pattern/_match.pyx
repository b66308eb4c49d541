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

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memset

from gohash.pipeline._core cimport MAX_LOG, _neighbours, _replay

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
    cdef const uint8_t[:, :, ::1] required
    cdef int count, size, to_move, max_move
    # The state of a scan (:meth:`scan`) while a game is replayed.
    cdef int8_t[::1] board
    cdef uint64_t[::1] keys
    cdef uint8_t[::1] present
    cdef const int32_t[::1] empty_present
    cdef int32_t[::1] stamp, dirty, events
    cdef int nevents, limit, tick
    cdef bint past, overflow

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
        self.empty_present = matcher.empty_present
        self.required = matcher.required_bytes

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

    def candidates(self, const uint8_t[::1] ever_black, const uint8_t[::1] ever_white):
        """Whether each game may hold a placement: some placement's black points
        are all set in the game's ``ever_black`` bitmap, and its white points in
        ``ever_white`` (the games' bitmaps one after the other, of the matcher's
        ``required_bytes`` width each); one byte a game."""
        cdef Py_ssize_t width = self.required.shape[2], games, g, at, b
        cdef int pl
        if ever_black.shape[0] != ever_white.shape[0] or ever_black.shape[0] % width:
            raise ValueError("the bitmaps are not of whole games")
        games = ever_black.shape[0] // width
        found = np.zeros(games, dtype=np.uint8)
        cdef uint8_t[::1] out = found
        for g in range(games):
            at = g * width
            for pl in range(self.count):
                for b in range(width):
                    if (self.required[pl, 0, b] & ~ever_black[at + b]) or (
                            self.required[pl, 1, b] & ~ever_white[at + b]):
                        break
                else:
                    out[g] = 1
                    break
        return found

    def scan(self, const uint8_t[::1] data, const int64_t[::1] offsets, const int32_t[::1] mains):
        """The hits in many stored games of the matcher's size, each replayed once
        on one board (``gohash.pipeline._core``'s replay): game ``g``'s blob is
        ``data[offsets[g]:offsets[g + 1]]``, its main line its first ``mains[g]``
        nodes.  Each placement's key follows the points the replay changes; a
        placement whose key becomes its target is checked point by point, and
        the hits are :meth:`match`'s (the same conditions and continuations) on
        the positions where it was present.  Eight arrays, in order of game,
        position, placement: game, placement, position, its move number and
        side to move, the continuation's colour (0: none) and point, tenuki.
        Raise ValueError ``(game, reason)`` where the replay raises ValueError,
        or a game has fewer nodes than its main line."""
        cdef int size = self.size, npts = size * size, count = self.count
        cdef Py_ssize_t games = mains.shape[0], g, k, positions, done, ev, longest
        if offsets.shape[0] != games + 1 or (games and (
                offsets[0] < 0 or offsets[games] > data.shape[0] or np.any(np.diff(offsets) <= 0))):
            raise ValueError("the offsets do not cut the data into one blob per game")
        found = np.zeros((max(1024, games), 8), dtype=np.int32)
        cdef int32_t[:, ::1] rows = found
        cdef Py_ssize_t nfound = 0
        if games == 0:
            return tuple(np.zeros(0, dtype=np.int32) for _ in range(8))
        longest = max(2, int(np.max(mains)) + 1)
        cdef int8_t[::1] tm = np.zeros(longest, dtype=np.int8), col = np.zeros(longest, dtype=np.int8)
        cdef int16_t[::1] pt = np.zeros(longest, dtype=np.int16)
        cdef uint8_t[::1] st = np.zeros(longest, dtype=np.uint8)
        cdef int32_t[::1] par = np.zeros(longest, dtype=np.int32), mn = np.zeros(longest, dtype=np.int32)
        cdef int8_t[::1] next_colour = np.zeros(longest, dtype=np.int8)
        cdef int32_t[::1] next_point = np.zeros(longest, dtype=np.int32)
        cdef int32_t[::1] log = np.zeros(MAX_LOG, dtype=np.int32)
        cdef int32_t[::1] start = np.zeros(count, dtype=np.int32)
        cdef int64_t[::1] hit = np.full(count, -1, dtype=np.int64)
        cdef int32_t[::1] s = np.zeros(npts * 6, dtype=np.int32)
        _neighbours(size, &s[0])
        self.board = np.zeros(npts, dtype=np.int8)
        self.keys = np.zeros(count, dtype=np.uint64)
        self.present = np.zeros(count, dtype=np.uint8)
        self.stamp = np.full(count, -1, dtype=np.int32)
        self.dirty = np.zeros(count, dtype=np.int32)
        self.events = np.zeros(2 * (4 * count + 64), dtype=np.int32)
        self.tick = 0
        cdef int pl, i, j, first, cont
        cdef int8_t[::1] tmv, ncv
        cdef int32_t[::1] npv
        g = 0
        while g < games:
            if mains[g] <= 0:
                g += 1
                continue
            self.nevents = 0
            self.past = self.overflow = False
            try:
                done = _replay(&data[offsets[g]], offsets[g + 1] - offsets[g], size, mains[g] - 1,
                               mains[g], &self.board[0], &tm[0], &col[0], &pt[0], &st[0], &par[0],
                               &mn[0], &s[0], &s[npts * 4], &s[npts * 5], True, _scan_node,
                               <void*>self, &log[0])
            except ValueError as e:
                raise ValueError(g, str(e)) from None
            if self.overflow:
                self.events = np.zeros(2 * self.events.shape[0], dtype=np.int32)
                continue  # the same game again, with room for its events
            if done < mains[g]:
                raise ValueError(g, f"{done} nodes replayed of {mains[g]}")
            positions = mains[g]
            if not self.past:
                self.limit = positions
            # The next move from each position: the move of the node after it.
            for k in range(positions - 1):
                next_colour[k] = col[k + 1]
                next_point[k] = pt[k + 1]
            next_colour[positions - 1] = 0
            next_point[positions - 1] = -1
            tmv, ncv, npv = tm[:positions], next_colour[:positions], next_point[:positions]
            # Each placement hits at the first position where it is present and
            # the conditions hold: its presence runs from an event on to one off.
            # Those still present at the end: their last event is on (second pass).
            for ev in range(2 * self.nevents):
                pl = self.events[2 * (ev % self.nevents)]
                i = self.events[2 * (ev % self.nevents) + 1]
                if ev < self.nevents:
                    if i >= 0:
                        start[pl] = i
                        continue
                    i = -i - 1
                else:
                    if i < 0 or not self.present[pl] or start[pl] != i:
                        continue
                    i = self.limit
                if hit[pl] == g:
                    continue
                for first in range(start[pl], i):
                    j = self._conditions(pl, first, tmv, ncv, npv)
                    if j < 0:
                        continue
                    hit[pl] = g
                    cont = self._continuation(pl, j, ncv, npv)
                    if nfound == rows.shape[0]:
                        found = np.concatenate([found, np.zeros_like(found)])
                        rows = found
                    rows[nfound, 0] = <int32_t>g
                    rows[nfound, 1] = pl
                    rows[nfound, 2] = first
                    rows[nfound, 3] = mn[first]
                    rows[nfound, 4] = tm[first]
                    rows[nfound, 5] = next_colour[cont] if cont >= 0 else 0
                    rows[nfound, 6] = next_point[cont] if cont >= 0 else -1
                    rows[nfound, 7] = cont > j
                    nfound += 1
                    break
            g += 1
        found = found[:nfound]
        found = found[np.lexsort((found[:, 1], found[:, 2], found[:, 0]))]
        return tuple(np.ascontiguousarray(found[:, c]) for c in range(8))


cdef bint _scan_node(void* ctx, Py_ssize_t node, int32_t move_number, const int32_t* log,
                     Py_ssize_t nlog) noexcept:
    """The replay's visit in :meth:`Kernel.scan`: keeps the placements' keys, and
    logs each placement's presence turning on (``position``) and off (``-position -
    1``) as events; stops the replay when the events are out of room."""
    cdef Kernel k = <Kernel>ctx
    cdef int j, w, p, pl, ndirty = 0
    cdef bint now
    cdef uint64_t delta
    if k.past:
        return False
    if k.max_move >= 0 and move_number > k.max_move:
        k.past = True
        k.limit = <int>node
        return False
    if k.nevents + k.count + 1 > k.events.shape[0] // 2:
        k.overflow = True
        return True
    k.tick += 1
    if node == 0:
        # The start is the empty board plus the logged stones.
        memset(&k.keys[0], 0, k.count * sizeof(uint64_t))
        memset(&k.present[0], 0, k.count)
        for j in range(k.empty_present.shape[0]):
            pl = k.empty_present[j]
            k.present[pl] = 1
            k.events[2 * k.nevents] = pl
            k.events[2 * k.nevents + 1] = 0
            k.nevents += 1
    for j in range(nlog):
        p = log[j] >> 4
        delta = k.zobrist[p, (log[j] >> 2) & 3] ^ k.zobrist[p, log[j] & 3]
        for w in range(k.watch_offsets[p], k.watch_offsets[p + 1]):
            pl = k.watch[w]
            if k.watch_fixed[w]:
                k.keys[pl] ^= delta
            if k.stamp[pl] != k.tick:
                k.stamp[pl] = k.tick
                k.dirty[ndirty] = pl
                ndirty += 1
    for j in range(ndirty):
        pl = k.dirty[j]
        now = k.keys[pl] == k.targets[pl] and k._present(pl, k.board)
        if now != k.present[pl]:
            k.present[pl] = now
            if k.nevents + 1 > k.events.shape[0] // 2:
                k.overflow = True
                return True
            k.events[2 * k.nevents] = pl
            k.events[2 * k.nevents + 1] = <int32_t>node if now else -<int32_t>node - 1
            k.nevents += 1
    return False
