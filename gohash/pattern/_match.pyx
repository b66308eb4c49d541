# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled twin of :func:`gohash.pattern.match.match_python`: the hits of a
query's placements in one game's boards, or in many stored games.

Scope: :class:`Kernel` holds a :class:`gohash.pattern.match.Matcher`'s arrays
as typed memoryviews; :meth:`Kernel.match` walks one game's boards,
:meth:`Kernel.scan` many games' changes as :func:`flatten` replays them once
from the index's stored form, keeping each placement's key up to date by XOR
and confirming point by point every placement whose key equals the one
required.  Bounds checks are off: every index comes from the matcher's
arrays, which it built from points of the board, or from the game's or the
store's arrays, whose shapes :meth:`Kernel.match` and :meth:`Kernel.scan` check.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.string cimport memset

from gohash.pipeline._core cimport MAX_LOG, _neighbours, _replay

import numpy as np

from gohash.errors import StoredGameError


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
    cdef const int32_t[::1] empty_present
    cdef const int8_t[::1] watch_codes
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
        self.empty_present = matcher.empty_present
        self.watch_codes = matcher.watch_codes

    cdef bint _present(self, int pl, const int8_t* board) noexcept nogil:
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
                present = keys[pl] == self.targets[pl] and self._present(pl, &boards[i, 0])
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

    def scan(self, const int64_t[::1] node_offsets, const int8_t[::1] to_move,
             const int32_t[::1] move_number, const int8_t[::1] next_colour,
             const int32_t[::1] next_point, const int64_t[::1] change_offsets,
             const uint16_t[::1] change_counts, const uint16_t[::1] changes,
             const uint8_t[::1] removed, const uint64_t[:, ::1] alive_bits,
             Py_ssize_t base, Py_ssize_t first, const int64_t[::1] games):
        """The hits in the games ``games`` (numbers in a store, whose game
        ``first`` is this segment's game 0) of a segment :func:`flatten` ed for
        the matcher's size (:class:`gohash.pattern.store.Flat` says what its
        columns hold).  ``alive_bits[pl]`` is the bitset (bit ``g - base``) of the
        games where placement ``pl``'s stones all occur (the inverted filter,
        :class:`gohash.pattern.store.Columns`).

        Per game, only those placements are followed; each placement's key follows the points that change, a
        placement whose key becomes its target is checked point by point, and one
        that a stone it does not allow lands on, where no stone ever leaves, is
        dropped: it can never be present again; so is one that hits where no
        side to move or sequence is asked for.  The game ends there when none is
        left.  The hits are :meth:`match`'s (the same conditions and
        continuations) on the positions where each placement was present.  The
        loop over games runs without the interpreter lock (other threads, a
        server's requests, go on meanwhile).
        Returns nine arrays, in order of game, position, placement: game (its
        number in the store), placement, position, its move number and side to
        move, the continuation's colour (0: none) and point, tenuki; and the
        number of games that had a placement to follow.  A change or next move
        off the board, or changes that overrun their game's, raise
        :class:`~gohash.errors.StoredGameError` (``index`` the game's number in
        the store): the file the segment was read from is damaged."""
        cdef int size = self.size, npts = size * size, count = self.count
        cdef Py_ssize_t width = (npts + 7) // 8, ngames = games.shape[0], gi, g, n0, positions
        cdef Py_ssize_t stores = node_offsets.shape[0] - 1, nfound = 0, ev, c, node
        cdef Py_ssize_t nodes = to_move.shape[0]
        if stores < 0 or removed.shape[0] != stores * width or (
                change_offsets.shape[0] != stores + 1 or node_offsets[stores] != nodes):
            raise ValueError("the store's columns do not agree in length")
        if not (move_number.shape[0] == next_colour.shape[0] == next_point.shape[0]
                == change_counts.shape[0] == nodes) or change_offsets[stores] != changes.shape[0]:
            raise ValueError("the store's node columns do not agree in length")
        if ngames and (np.min(games) < first or np.max(games) >= first + stores
                       or np.min(games) < base
                       or np.max(games) >= base + 64 * alive_bits.shape[1]):
            raise ValueError("a game outside the segment or the filter's bitsets")
        if alive_bits.shape[0] != count:
            raise ValueError("the filter's bitsets are not one a placement")
        found = np.zeros((1024, 8), dtype=np.int32)
        cdef int32_t[:, ::1] rows = found
        cdef _Events events = _Events(2 * count + 64)
        board_array = np.zeros(npts, dtype=np.int8)
        cdef int8_t[::1] board_view = board_array
        cdef int8_t* board = &board_view[0]
        keys_array = np.zeros(count, dtype=np.uint64)
        present_array = np.zeros(count, dtype=np.uint8)
        alive_array = np.zeros(count, dtype=np.uint8)
        stamp_array = np.full(count, -1, dtype=np.int32)
        dirty_array = np.zeros(count, dtype=np.int32)
        cdef uint64_t[::1] keys_view = keys_array
        cdef uint8_t[::1] present_view = present_array, alive_view = alive_array
        cdef int32_t[::1] stamp_view = stamp_array, dirty_view = dirty_array
        cdef uint64_t* keys = &keys_view[0]
        cdef uint8_t* present = &present_view[0]
        cdef uint8_t* alive = &alive_view[0]
        cdef int32_t* stamp = &stamp_view[0]
        cdef int32_t* dirty = &dirty_view[0]
        # The matcher's arrays the loop over changes reads, as pointers: Cython
        # reloads a memoryview attribute of self at every use.
        cdef const int32_t* watch_offsets = &self.watch_offsets[0]
        cdef const int32_t* watch = &self.watch[0] if self.watch.shape[0] else NULL
        cdef const int8_t* watch_fixed = &self.watch_fixed[0] if self.watch.shape[0] else NULL
        cdef const int8_t* watch_codes = &self.watch_codes[0] if self.watch.shape[0] else NULL
        cdef const uint64_t* zobrist = &self.zobrist[0, 0]
        cdef const uint64_t* targets = &self.targets[0]
        cdef const int32_t* seq_length = &self.seq_length[0]
        cdef int32_t[::1] start = np.zeros(count, dtype=np.int32)
        cdef int64_t[::1] hit = np.full(count, -1, dtype=np.int64)
        cdef const uint8_t* gone
        cdef const uint16_t* word
        cdef const uint16_t* words_end
        cdef Py_ssize_t bit
        cdef int pl, i, j, w, p, at, cont, nlive, ndirty, limit, new
        cdef int tick = 0, candidates = 0, fault = 0
        cdef uint64_t delta
        cdef bint now, permanent, unconditional = self.to_move == 0
        cdef const int8_t[::1] tmv, ncv
        cdef const int32_t[::1] npv
        # Without the interpreter lock: a server answers other requests meanwhile.
        with nogil:
            for gi in range(ngames):
                g = games[gi] - first
                n0 = node_offsets[g]
                positions = node_offsets[g + 1] - n0
                if positions <= 0:
                    continue
                # The placements this game can hold: their stones all occur in it.
                nlive = 0
                bit = games[gi] - base
                for pl in range(count):
                    alive[pl] = (alive_bits[pl, bit >> 6] >> (bit & 63)) & 1
                    if alive[pl]:
                        nlive += 1
                        keys[pl] = 0
                        present[pl] = 0
                if nlive == 0:
                    continue
                candidates += 1
                memset(board, 0, npts)
                gone = &removed[g * width]
                events.count = 0
                for j in range(self.empty_present.shape[0]):
                    pl = self.empty_present[j]
                    if alive[pl]:
                        present[pl] = 1
                        events.add(pl, 0)
                limit = <int>positions
                word = &changes[change_offsets[g]]
                words_end = &changes[0] + change_offsets[g + 1]
                for node in range(positions):
                    if self.max_move >= 0 and move_number[n0 + node] > self.max_move:
                        limit = <int>node
                        break
                    if (next_point[n0 + node] >= npts
                            or word + change_counts[n0 + node] > words_end):
                        fault = 1
                        break
                    tick += 1
                    ndirty = 0
                    for c in range(change_counts[n0 + node]):
                        p = word[0] >> 4
                        if p >= npts:
                            fault = 1
                            break
                        new = word[0] & 3
                        delta = zobrist[3 * p + ((word[0] >> 2) & 3)] ^ zobrist[3 * p + new]
                        word += 1
                        board[p] = new
                        permanent = not (gone[p >> 3] >> (p & 7)) & 1
                        for w in range(watch_offsets[p], watch_offsets[p + 1]):
                            pl = watch[w]
                            if not alive[pl]:
                                continue
                            if watch_fixed[w]:
                                keys[pl] ^= delta
                            if permanent and not _fits(watch_codes[w], new):
                                # No stone ever leaves p: the placement is gone for good.
                                alive[pl] = 0
                                nlive -= 1
                                if present[pl]:
                                    present[pl] = 0
                                    events.add(pl, -<int32_t>node - 1)
                                continue
                            if stamp[pl] != tick:
                                stamp[pl] = tick
                                dirty[ndirty] = pl
                                ndirty += 1
                    for j in range(ndirty):
                        pl = dirty[j]
                        if not alive[pl]:
                            continue
                        now = keys[pl] == targets[pl] and self._present(pl, board)
                        if now != present[pl]:
                            present[pl] = now
                            events.add(pl, <int32_t>node if now else -<int32_t>node - 1)
                            if now and unconditional and not seq_length[pl]:
                                # It hits here: nothing more to follow.
                                alive[pl] = 0
                                nlive -= 1
                    if node == 0 and unconditional:
                        # Those present at the start hit there: nothing more to follow.
                        for j in range(self.empty_present.shape[0]):
                            pl = self.empty_present[j]
                            if alive[pl] and present[pl] and not seq_length[pl]:
                                alive[pl] = 0
                                nlive -= 1
                    if nlive == 0 or fault:
                        break
                if fault:
                    break
                if events.count == 0:
                    continue
                tmv = to_move[n0:n0 + positions]
                ncv = next_colour[n0:n0 + positions]
                npv = next_point[n0:n0 + positions]
                # Each placement hits at the first position where it is present and
                # the conditions hold: its presence runs from an event on to one off.
                # Those still present at the end: their last event is on (second pass).
                for ev in range(2 * events.count):
                    pl = events.at[2 * (ev % events.count)]
                    i = events.at[2 * (ev % events.count) + 1]
                    if ev < events.count:
                        if i >= 0:
                            start[pl] = i
                            continue
                        i = -i - 1
                    else:
                        if i < 0 or not present[pl] or start[pl] != i:
                            continue
                        i = limit
                    if hit[pl] == g:
                        continue
                    for at in range(start[pl], i):
                        j = self._conditions(pl, at, tmv, ncv, npv)
                        if j < 0:
                            continue
                        hit[pl] = g
                        cont = self._continuation(pl, j, ncv, npv)
                        if nfound == rows.shape[0]:
                            with gil:
                                found = np.concatenate([found, np.zeros_like(found)])
                                rows = found
                        rows[nfound, 0] = <int32_t>(g + first)
                        rows[nfound, 1] = pl
                        rows[nfound, 2] = at
                        rows[nfound, 3] = move_number[n0 + at]
                        rows[nfound, 4] = tmv[at]
                        rows[nfound, 5] = ncv[cont] if cont >= 0 else 0
                        rows[nfound, 6] = npv[cont] if cont >= 0 else -1
                        rows[nfound, 7] = cont > j
                        nfound += 1
                        break
        if fault:
            raise StoredGameError("a change or next move off the board, or more changes "
                                  "than its game has", index=int(games[gi]))
        found = found[:nfound]
        found = found[np.lexsort((found[:, 1], found[:, 2], found[:, 0]))]
        return (*(np.ascontiguousarray(found[:, c]) for c in range(8)), candidates)


cdef class _Events:
    """A game's presence events in a scan: pairs (placement, position on, or
    ``-position - 1`` off), in order; room made as needed."""

    cdef int32_t[::1] at
    cdef Py_ssize_t count

    def __init__(self, Py_ssize_t room):
        self.at = np.zeros(2 * room, dtype=np.int32)
        self.count = 0

    cdef inline int add(self, int32_t placement, int32_t position) except -1 nogil:
        if 2 * self.count == self.at.shape[0]:
            with gil:
                self.at = np.concatenate([np.asarray(self.at), np.zeros_like(self.at)])
        self.at[2 * self.count] = placement
        self.at[2 * self.count + 1] = position
        self.count += 1
        return 0


cdef class _Flat:
    """What :func:`flatten` gathers while a game is replayed."""

    cdef uint16_t[::1] changes, counts
    cdef Py_ssize_t nchanges, base
    cdef bint overflow


cdef bint _flat_node(void* ctx, Py_ssize_t node, int32_t move_number, const int32_t* log,
                     Py_ssize_t nlog) noexcept:
    """The replay's visit in :func:`flatten`: the node's changes, appended; stops the
    replay when they are out of room."""
    cdef _Flat f = <_Flat>ctx
    cdef Py_ssize_t j
    if f.nchanges + nlog > f.changes.shape[0]:
        f.overflow = True
        return True
    for j in range(nlog):
        f.changes[f.nchanges] = <uint16_t>log[j]
        f.nchanges += 1
    f.counts[f.base + node] = <uint16_t>nlog
    return False


def flatten(const uint8_t[::1] data, const int64_t[::1] offsets, const int32_t[::1] mains,
            int size):
    """The main lines of many stored games of one ``size`` replayed once, as
    :meth:`Kernel.scan` reads them: game ``g``'s blob is
    ``data[offsets[g]:offsets[g + 1]]`` and its main line its first ``mains[g]``
    nodes.  Returns the columns of :class:`gohash.pattern.store.Flat`, in its
    order.  Raises :class:`~gohash.errors.StoredGameError` (``index`` the game)
    for a blob that does not replay."""
    cdef int npts = size * size, width = (npts + 7) // 8
    cdef Py_ssize_t games = mains.shape[0], g, k, total, n0, done, m, first
    if size < 2 or size > 26:
        raise ValueError(f"board size {size} is not 2 to 26")
    if offsets.shape[0] != games + 1 or (games and (
            offsets[0] < 0 or offsets[games] > data.shape[0] or np.any(np.diff(offsets) < 0))):
        raise ValueError("the offsets do not cut the data into one blob per game")
    if games and np.min(mains) < 0:
        raise ValueError("a main line of fewer than no nodes")
    node_offsets_array = np.zeros(games + 1, dtype=np.int64)
    np.cumsum(mains, out=node_offsets_array[1:])
    cdef int64_t[::1] node_offsets = node_offsets_array
    total = node_offsets[games]
    tm_array = np.zeros(total, dtype=np.int8)
    mn_array = np.zeros(total, dtype=np.int32)
    nc_array = np.zeros(total, dtype=np.int8)
    np_array = np.full(total, -1, dtype=np.int32)
    cdef int8_t[::1] to_move = tm_array, next_colour = nc_array
    cdef int32_t[::1] move_number = mn_array, next_point = np_array
    change_offsets_array = np.zeros(games + 1, dtype=np.int64)
    cdef int64_t[::1] change_offsets = change_offsets_array
    removed_array = np.zeros(games * width, dtype=np.uint8)
    cdef uint8_t[::1] removed = removed_array
    cdef _Flat f = _Flat()
    f.changes = np.zeros(total + 64, dtype=np.uint16)
    counts_array = np.zeros(total, dtype=np.uint16)
    f.counts = counts_array
    f.nchanges = 0
    longest = max(2, int(np.max(mains)) + 1) if games else 2
    cdef int8_t[::1] board = np.zeros(npts, dtype=np.int8)
    cdef int8_t[::1] tm = np.zeros(longest, dtype=np.int8), col = np.zeros(longest, dtype=np.int8)
    cdef int16_t[::1] pt = np.zeros(longest, dtype=np.int16)
    cdef uint8_t[::1] st = np.zeros(longest, dtype=np.uint8)
    cdef int32_t[::1] par = np.zeros(longest, dtype=np.int32), mn = np.zeros(longest, dtype=np.int32)
    cdef int32_t[::1] log = np.zeros(MAX_LOG, dtype=np.int32)
    cdef int32_t[::1] s = np.zeros(npts * 6, dtype=np.int32)
    cdef int p
    _neighbours(size, &s[0])
    g = 0
    while g < games:
        m = mains[g]
        n0 = node_offsets[g]
        first = f.nchanges
        change_offsets[g] = first
        if m == 0:
            g += 1
            continue
        if offsets[g + 1] == offsets[g]:
            raise StoredGameError("a stored game does not replay: it is empty", index=g)
        f.base = n0
        f.overflow = False
        try:
            done = _replay(&data[offsets[g]], offsets[g + 1] - offsets[g], size, m - 1, m,
                           &board[0], &tm[0], &col[0], &pt[0], &st[0], &par[0], &mn[0], &s[0],
                           &s[npts * 4], &s[npts * 5], True, _flat_node, <void*>f, &log[0])
        except ValueError as e:
            raise StoredGameError(f"a stored game does not replay: {e}", index=g) from None
        if f.overflow:
            f.nchanges = first
            f.changes = np.concatenate([np.asarray(f.changes), np.zeros(
                max(f.changes.shape[0], MAX_LOG), dtype=np.uint16)])
            continue  # the same game again, with room for its changes
        if done < m:
            raise StoredGameError(f"a stored game does not replay: {done} nodes of {m}",
                                  index=g)
        for k in range(m):
            to_move[n0 + k] = tm[k]
            move_number[n0 + k] = mn[k]
            if k + 1 < m:
                next_colour[n0 + k] = col[k + 1]
                next_point[n0 + k] = pt[k + 1]
        for k in range(first, f.nchanges):
            if (f.changes[k] >> 2) & 3:
                p = f.changes[k] >> 4
                removed[g * width + (p >> 3)] |= 1 << (p & 7)
        g += 1
    change_offsets[games] = f.nchanges
    return (node_offsets_array, tm_array, mn_array, nc_array, np_array, change_offsets_array,
            counts_array, np.asarray(f.changes)[:f.nchanges].copy(), removed_array)
