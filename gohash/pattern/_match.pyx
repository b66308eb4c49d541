# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled twin of :func:`gohash.pattern.match.match_python`: the hits of a
query's placements in one game's boards, or in many stored games.

Scope: :class:`Kernel` holds a :class:`gohash.pattern.match.Matcher`'s arrays
as typed memoryviews (:func:`shift_tables` builds some of them);
:meth:`Kernel.match` walks one game's boards, :meth:`Kernel.scan` many games' changes as :func:`flatten` replays them once
from the index's stored form, keeping each placement's key up to date by XOR
and confirming point by point every placement whose key equals the one
required.  Bounds checks are off: every index comes from the matcher's
arrays, which it built from points of the board, or from the game's or the
store's arrays, whose shapes :meth:`Kernel.match` and :meth:`Kernel.scan` check.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.string cimport memset

from gohash.pipeline._board cimport neighbours
from gohash.pipeline._stored_replay cimport MAX_LOG, SCRATCH, _replay

import numpy as np

from gohash.errors import StoredGameError


cdef enum:
    # Added to a placement's mismatches when it is dead: no change brings it to zero.
    DEAD = 1 << 24
    # A change follows its lists of placements, not its bitsets, where the
    # lists' dead entries are at most this many times the words of those alive
    # (a word of a bitset costs more than an entry of a list).
    LISTED = 4
    # Set in the change word that is its node's last (every node has one).
    LAST = 1 << 15
    # A change word's point, once shifted right by 4 (below LAST).
    POINT = 0x7FF
    # The scan asks for the first change words (in lines of 32) and node columns
    # of the game this many games ahead before it scans one.
    AHEAD = 4
    PREFETCHED = 256

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    void __builtin_prefetch(const void*) nogil

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
    cdef const int32_t[::1] shift_offsets, shift, mismatches, change_rows
    cdef const uint64_t[:, :, ::1] change_bits
    # 1 where every point of a placement's region is a stone: its continuation
    # follows a capture, far on, so it is looked up by the region's points at once.
    cdef const uint8_t[::1] stones_only
    cdef int count, size, to_move, max_move
    # When a change follows its lists rather than its bitsets: where its
    # lists' dead entries are at most list_rule times the live words.
    cdef public int list_rule

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
        self.shift_offsets = matcher.shift_offsets
        self.shift = matcher.shift
        self.mismatches = matcher.mismatches
        self.list_rule = LISTED
        self.change_rows = matcher.change_rows
        self.change_bits = matcher.change_bits
        codes = np.asarray(matcher.codes)
        offsets = np.asarray(matcher.offsets, dtype=np.int64)
        stones = np.concatenate([[0], np.cumsum((codes == 1) | (codes == 2))])
        self.stones_only = ((stones[offsets[1:]] - stones[offsets[:-1]])
                            == np.diff(offsets)).astype(np.uint8)
        if (self.change_bits.shape[1] != 3 or self.change_bits.shape[2] * 64 < self.count
                or self.change_rows.shape[0] != 9 * self.size * self.size or (
                    self.change_rows.shape[0]
                    and np.max(matcher.change_rows) >= self.change_bits.shape[0])):
            raise ValueError("the matcher's bitsets of changes do not fit its placements")

    cdef bint _present(self, int pl, const int8_t* board) noexcept nogil:
        cdef int j
        for j in range(self.offsets[pl], self.offsets[pl + 1]):
            if not _fits(self.codes[j], board[self.points[j]]):
                return False
        return True

    cdef inline void _listed(self, Py_ssize_t slot, int p, const uint8_t* gone,
                             const int32_t* shift_offsets, const int32_t* shift,
                             int32_t* mismatch, int32_t* stamp, int32_t* dirty, int* ndirty,
                             int tick, uint64_t* live, int* nlive, bint* killed) noexcept nogil:
        """A change at ``p`` (its ``slot`` of kind 0) applied by the lists of
        placements it concerns (:meth:`scan`), passing over the dead: as with
        the bitsets, a dead placement's count is never touched again."""
        cdef Py_ssize_t k
        cdef int pl, before
        # Fits now: one mismatch fewer; present when none is left.
        for k in range(shift_offsets[slot], shift_offsets[slot + 1]):
            pl = shift[k]
            if not (live[pl >> 6] >> (pl & 63)) & 1:
                continue
            mismatch[pl] -= 1
            if mismatch[pl] == 0 and stamp[pl] != tick:
                stamp[pl] = tick
                dirty[ndirty[0]] = pl
                ndirty[0] += 1
        if (gone[p >> 3] >> (p & 7)) & 1:
            # A stone leaves p some time: unfit now, maybe fit again.
            for k in range(shift_offsets[slot + 1], shift_offsets[slot + 2]):
                pl = shift[k]
                if not (live[pl >> 6] >> (pl & 63)) & 1:
                    continue
                before = mismatch[pl]
                mismatch[pl] = before + 1
                if before == 0 and stamp[pl] != tick:
                    stamp[pl] = tick
                    dirty[ndirty[0]] = pl
                    ndirty[0] += 1
            return
        # No stone ever leaves p: a placement it does not fit is gone for good.
        for k in range(shift_offsets[slot + 1], shift_offsets[slot + 3]):
            pl = shift[k]
            if not (live[pl >> 6] >> (pl & 63)) & 1:
                continue
            before = mismatch[pl]
            mismatch[pl] = before + DEAD
            live[pl >> 6] &= ~((<uint64_t>1) << (pl & 63))
            killed[0] = True
            nlive[0] -= 1
            if before == 0 and stamp[pl] != tick:
                stamp[pl] = tick
                dirty[ndirty[0]] = pl
                ndirty[0] += 1

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
        cdef const int16_t[::1] next_point16 = np.asarray(next_point, dtype=np.int16)
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
                start = self._conditions_at(pl, i, &to_move[0], &next_colour[0],
                                            &next_point16[0], positions, &self.masks[pl, 0], n)
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

    cdef int _conditions_at(self, int pl, int i, const int8_t* to_move,
                            const int8_t* next_colour, const int16_t* next_point,
                            int positions, const uint8_t* mask, int npts) noexcept nogil:
        """Where the continuation's search starts if placement ``pl``, present at
        position ``i``, hits there (side to move, sequence); -1 if it does not,
        -2 for a move off the board (``mask``: the placement's row of ``masks``)."""
        cdef int want, k = i, step, point
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
                if point >= npts:
                    return -2
                if point >= 0 and mask[point]:
                    if (point != self.seq_points[pl, step]
                            or next_colour[k - 1] != self.seq_colours[pl, step]):
                        return -1
                    break
        return k

    def scan(self, const int64_t[::1] node_offsets, const int8_t[::1] first_to_move,
             const int8_t[::1] next_colour, const int16_t[::1] next_point,
             const int64_t[::1] change_offsets,
             const uint16_t[::1] changes,
             const uint8_t[::1] removed, const uint64_t[:, ::1] alive_bits,
             Py_ssize_t base, Py_ssize_t first, const int64_t[::1] games,
             Summary summary=None):
        """The hits in the games ``games`` (numbers in a store, whose game
        ``first`` is this segment's game 0) of a segment :func:`flatten` ed for
        the matcher's size (:class:`gohash.pattern.store.Flat` says what its
        columns hold).  ``alive_bits[pl]`` is the bitset (bit ``g - base``) of the
        games where placement ``pl``'s stones all occur (the inverted filter,
        :class:`gohash.pattern.store.Columns`).

        Per game, each placement counts the points of its region whose value
        its code does not fit (:meth:`gohash.pattern.match.Matcher._shifts`): a
        change visits only the placements it makes fit or unfit there, and a
        placement is present where its count is zero, exactly: no key, no
        check point by point.  A placement the filter rules out starts dead (a
        count no change brings to zero); so does one that a stone it does not
        allow lands on, where no stone ever leaves, from there on; and one that
        hits where no side to move or sequence is asked for.  The game ends
        there when none is left.  A dead placement is never visited again: a
        change reads the bitsets of the placements it concerns
        (``Matcher.change_bits``) ANDed with the game's bitset of those alive,
        or, where its lists hold few dead ones for the words of that bitset
        (:attr:`list_rule`), its lists, passing over the dead.  The hits are :meth:`match`'s (the same
        conditions and continuations) on the positions where each placement was
        present.  The loop over games runs without the interpreter lock (other
        threads, a server's requests, go on meanwhile).
        Returns nine arrays, in order of game, position, placement: game (its
        number in the store), placement, position, its move number and side to
        move, the continuation's colour (0: none) and point, tenuki; and the
        number of games that had a placement to follow.  With a ``summary``, the
        matches are summed up there as each game ends (:class:`Summary`) and
        the rows kept only up to the game where its ``wanted`` matches are
        reached.  A change or next move off the board, or changes that overrun their game's, raise
        :class:`~gohash.errors.StoredGameError` (``index`` the game's number in
        the store): the file the segment was read from is damaged."""
        cdef int size = self.size, npts = size * size, count = self.count
        cdef Py_ssize_t width = (npts + 7) // 8, ngames = games.shape[0], gi, g, n0, positions
        cdef Py_ssize_t stores = node_offsets.shape[0] - 1, nfound = 0, ev, c, node, ahead
        cdef Py_ssize_t nodes = next_colour.shape[0]
        if stores < 0 or removed.shape[0] != stores * width or (
                change_offsets.shape[0] != stores + 1 or node_offsets[stores] != nodes
                or first_to_move.shape[0] != stores):
            raise ValueError("the store's columns do not agree in length")
        if next_point.shape[0] != nodes or change_offsets[stores] != changes.shape[0]:
            raise ValueError("the store's node columns do not agree in length")
        if ngames and (np.min(games) < first or np.max(games) >= first + stores
                       or np.min(games) < base
                       or np.max(games) >= base + 64 * alive_bits.shape[1]):
            raise ValueError("a game outside the segment or the filter's bitsets")
        if alive_bits.shape[0] != count:
            raise ValueError("the filter's bitsets are not one a placement")
        if summary is not None:
            summary.check(count, npts, first + stores)
        found = np.zeros((1024, 8), dtype=np.int32)
        cdef int32_t[:, ::1] rows = found
        cdef _Events events = _Events(2 * count + 64)
        mismatch_array = np.zeros(count, dtype=np.int32)
        present_array = np.zeros(count, dtype=np.uint8)
        stamp_array = np.full(count, -1, dtype=np.int32)
        dirty_array = np.zeros(count, dtype=np.int32)
        cdef int32_t[::1] mismatch_view = mismatch_array
        cdef uint8_t[::1] present_view = present_array
        cdef int32_t[::1] stamp_view = stamp_array, dirty_view = dirty_array
        cdef int32_t* mismatch = &mismatch_view[0]
        cdef uint8_t* present = &present_view[0]
        cdef int32_t* stamp = &stamp_view[0]
        cdef int32_t* dirty = &dirty_view[0]
        # The matcher's arrays the loops read, as pointers: Cython reloads a
        # memoryview attribute of self at every use.
        cdef const int32_t* change_rows = &self.change_rows[0]
        cdef const int32_t* shift_offsets = &self.shift_offsets[0]
        cdef const int32_t* shift = &self.shift[0] if self.shift.shape[0] else NULL
        cdef Py_ssize_t nwords = self.change_bits.shape[2]
        cdef const uint64_t* change_bits = (&self.change_bits[0, 0, 0]
                                            if self.change_bits.shape[0] else NULL)
        # Per game of the filter's bitsets (bit g - base), the placements alive
        # (not dead), 64 a word: the filter's [placement, game] bits turned
        # over, so that a game reads its words, not a bit of every placement's
        # row; and the words that held some at the start of the node.
        cdef uint64_t[::1] live_all_view = np.zeros(
            max(1, alive_bits.shape[1] * 64 * nwords), dtype=np.uint64)
        cdef uint64_t* live_all = &live_all_view[0]
        cdef uint64_t* live
        cdef int32_t[::1] words_view = np.zeros(nwords, dtype=np.int32)
        cdef int32_t* live_words = &words_view[0]
        cdef const uint64_t* fit
        cdef uint64_t x
        cdef Py_ssize_t nlw, w, row, slot, rule = self.list_rule
        cdef bint killed
        cdef const int32_t* mismatches = &self.mismatches[0]
        cdef const int32_t* seq_length = &self.seq_length[0]
        cdef const int32_t* offsets = &self.offsets[0]
        cdef const int32_t* points = &self.points[0]
        cdef const uint8_t* masks = &self.masks[0, 0]
        cdef const int32_t* empty_present = (&self.empty_present[0]
                                             if self.empty_present.shape[0] else NULL)
        cdef Py_ssize_t nempty = self.empty_present.shape[0]
        cdef const uint64_t* bits_row = &alive_bits[0, 0]
        cdef Py_ssize_t bits_stride = alive_bits.shape[1]
        cdef const int8_t* ncv
        cdef const int16_t* npv
        cdef const uint8_t* mask
        cdef int32_t[::1] start = np.zeros(count, dtype=np.int32)
        cdef int64_t[::1] hit = np.full(count, -1, dtype=np.int64)
        longest = int(np.max(np.diff(node_offsets))) if stores else 0
        cdef _Plays by_point = _Plays(npts, longest)
        cdef int32_t* play_at = &by_point.play_at[0]
        cdef int32_t* plays = &by_point.plays[0]
        cdef int32_t* stop_at = &by_point.stop_at[0]
        # A game's sides to move and move numbers, derived from its moves where
        # it has events (the file keeps neither: Flat.sides says how).
        cdef int8_t[::1] sides_view = np.zeros(longest + 1, dtype=np.int8)
        cdef int32_t[::1] numbers_view = np.zeros(longest + 1, dtype=np.int32)
        cdef int8_t* tmv = &sides_view[0]
        cdef int32_t* numbers = &numbers_view[0]
        cdef int number, made
        cdef Py_ssize_t game_rows
        cdef bint listed
        cdef int reach, walk_budget
        cdef int max_move = self.max_move
        cdef const uint8_t* gone
        cdef const uint16_t* word
        cdef const uint16_t* words_end
        cdef Py_ssize_t bit
        cdef int pl, i, j, k, p, at, cont, nlive, ndirty, limit, new, before
        cdef int tick = 0, candidates = 0, fault = 0
        cdef bint now, ended, unconditional = self.to_move == 0
        # Without the interpreter lock: a server answers other requests meanwhile.
        with nogil:
            for pl in range(count):
                for w in range(bits_stride):
                    x = bits_row[pl * bits_stride + w]
                    while x:
                        bit = (w << 6) | __builtin_ctzll(x)
                        x &= x - 1
                        live_all[bit * nwords + (pl >> 6)] |= (<uint64_t>1) << (pl & 63)
            for gi in range(ngames):
                if gi + AHEAD < ngames:
                    # The games a search picks (by postings, by a filter) lie apart in
                    # the mapped file: the first lines of one a few games ahead are
                    # asked for now, so that its scan does not wait on memory.
                    ahead = games[gi + AHEAD] - first
                    for k in range(0, PREFETCHED, 32):
                        __builtin_prefetch(&changes[0] + change_offsets[ahead] + k)
                    __builtin_prefetch(&next_colour[0] + node_offsets[ahead])
                    __builtin_prefetch(&next_point[0] + node_offsets[ahead])
                    __builtin_prefetch(&removed[0] + ahead * width)
                g = games[gi] - first
                n0 = node_offsets[g]
                positions = node_offsets[g + 1] - n0
                if positions <= 0:
                    continue
                # The placements this game can hold (their stones all occur in
                # it) count their mismatches; the others are dead, never read.
                live = &live_all[(games[gi] - base) * nwords]
                nlive = 0
                nlw = 0
                for w in range(nwords):
                    x = live[w]
                    if not x:
                        continue
                    live_words[nlw] = <int32_t>w
                    nlw += 1
                    while x:
                        pl = <int>((w << 6) | __builtin_ctzll(x))
                        x &= x - 1
                        nlive += 1
                        mismatch[pl] = mismatches[pl]
                        present[pl] = 0
                if nlive == 0:
                    continue
                candidates += 1
                gone = &removed[g * width]
                events.count = 0
                for j in range(nempty):
                    pl = empty_present[j]
                    if (live[pl >> 6] >> (pl & 63)) & 1 and mismatch[pl] == 0:
                        present[pl] = 1
                        events.add(pl, 0)
                limit = <int>positions
                word = &changes[change_offsets[g]]
                words_end = &changes[0] + change_offsets[g + 1]
                number = 0
                for node in range(positions):
                    if max_move >= 0:  # moves counted only where a limit asks
                        if node and next_colour[n0 + node - 1] != 0:
                            number += 1
                        if number > max_move:
                            limit = <int>node
                            break
                    tick += 1
                    ndirty = 0
                    killed = False
                    ended = False
                    while not ended:  # the node's changes, to the one marked its last
                        if word >= words_end:
                            fault = 1
                            break
                        ended = word[0] >> 15
                        p = (word[0] >> 4) & POINT
                        if p >= npts:
                            fault = 1
                            break
                        new = word[0] & 3
                        before = (word[0] >> 2) & 3
                        word += 1
                        if new == 3 or before == 3:
                            fault = 1
                            break
                        if before == new:
                            continue
                        row = change_rows[(p * 3 + before) * 3 + new]
                        if row < 0:
                            continue
                        slot = ((p * 3 + before) * 3 + new) * 3
                        if ((shift_offsets[slot + 3] - shift_offsets[slot]) * <Py_ssize_t>(
                                count - nlive) <= rule * nlw * <Py_ssize_t>count):
                            # Few dead placements listed for the words of those alive.
                            self._listed(slot, p, gone, shift_offsets, shift, mismatch, stamp,
                                         dirty, &ndirty, tick, live, &nlive, &killed)
                            continue
                        # The placements the change concerns, of those alive only.
                        fit = &change_bits[row * 3 * nwords]
                        # Fits now: one mismatch fewer; present when none is left.
                        for j in range(nlw):
                            w = live_words[j]
                            x = fit[w] & live[w]
                            while x:
                                pl = <int>((w << 6) | __builtin_ctzll(x))
                                x &= x - 1
                                mismatch[pl] -= 1
                                if mismatch[pl] == 0 and stamp[pl] != tick:
                                    stamp[pl] = tick
                                    dirty[ndirty] = pl
                                    ndirty += 1
                        if (gone[p >> 3] >> (p & 7)) & 1:
                            # A stone leaves p some time: unfit now, maybe fit again.
                            for j in range(nlw):
                                w = live_words[j]
                                x = fit[nwords + w] & live[w]
                                while x:
                                    pl = <int>((w << 6) | __builtin_ctzll(x))
                                    x &= x - 1
                                    before = mismatch[pl]
                                    mismatch[pl] = before + 1
                                    if before == 0 and stamp[pl] != tick:
                                        stamp[pl] = tick
                                        dirty[ndirty] = pl
                                        ndirty += 1
                            continue
                        # No stone ever leaves p: a placement it does not fit is
                        # gone for good.
                        for j in range(nlw):
                            w = live_words[j]
                            x = (fit[nwords + w] | fit[2 * nwords + w]) & live[w]
                            if x:
                                live[w] &= ~x
                                killed = True
                            while x:
                                pl = <int>((w << 6) | __builtin_ctzll(x))
                                x &= x - 1
                                before = mismatch[pl]
                                mismatch[pl] = before + DEAD
                                nlive -= 1
                                if before == 0 and stamp[pl] != tick:
                                    stamp[pl] = tick
                                    dirty[ndirty] = pl
                                    ndirty += 1
                    for j in range(ndirty):
                        pl = dirty[j]
                        now = mismatch[pl] == 0
                        if now != present[pl]:
                            present[pl] = now
                            events.add(pl, <int32_t>node if now else -<int32_t>node - 1)
                            if now and unconditional and not seq_length[pl]:
                                # It hits here: nothing more to follow.
                                mismatch[pl] += DEAD
                                nlive -= 1
                                live[pl >> 6] &= ~((<uint64_t>1) << (pl & 63))
                                killed = True
                    if node == 0 and unconditional:
                        # Those present at the start hit there: nothing more to follow.
                        for j in range(nempty):
                            pl = empty_present[j]
                            if ((live[pl >> 6] >> (pl & 63)) & 1 and mismatch[pl] == 0
                                    and present[pl] and not seq_length[pl]):
                                mismatch[pl] += DEAD
                                nlive -= 1
                                live[pl >> 6] &= ~((<uint64_t>1) << (pl & 63))
                                killed = True
                    if nlive == 0 or fault:
                        break
                    if killed:  # the words with none alive left are not visited again
                        k = 0
                        for j in range(nlw):
                            if live[live_words[j]]:
                                live_words[k] = live_words[j]
                                k += 1
                        nlw = k
                if fault:
                    break
                if events.count == 0:
                    continue
                ncv = &next_colour[n0]
                npv = &next_point[n0]
                made = 0
                listed = False
                walk_budget = 2 * <int>positions + npts
                game_rows = nfound
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
                    mask = &masks[pl * npts]
                    for at in range(start[pl], i):
                        if at >= made:
                            made = _sides(first_to_move[g], ncv, made, at + 1, tmv, numbers)
                        j = self._conditions_at(pl, at, tmv, ncv, npv, <int>positions, mask,
                                                npts)
                        if j == -2:
                            fault = 1
                            break
                        if j < 0:
                            continue
                        hit[pl] = g
                        # The continuation: the first move played in the region
                        # from position j on, before a position none was played from.
                        # Move by move, as far as the game's moves by point would
                        # cost to make; then from the region's points (a region
                        # full of stones, a small one, many hits far from their next move).
                        reach = 0 if self.stones_only[pl] else (
                            WALK if listed else max(WALK, walk_budget))
                        cont = j
                        while cont < j + reach and cont < positions and ncv[cont] != 0 and not (
                                npv[cont] >= 0 and (npv[cont] >= npts or mask[npv[cont]])):
                            cont += 1
                        walk_budget -= cont - j
                        if cont >= positions or ncv[cont] == 0:
                            cont = -1
                        elif cont < j + reach and npv[cont] >= npts:
                            fault = 1
                            break
                        elif cont == j + reach:
                            if not listed:
                                if _plays(ncv, npv, <int>positions, npts, play_at, plays,
                                          stop_at):
                                    fault = 1
                                    break
                                listed = True
                            cont = _next_play(j, &points[offsets[pl]], offsets[pl + 1] - offsets[pl],
                                              play_at, plays, stop_at)
                        if nfound == rows.shape[0]:
                            with gil:
                                found = np.concatenate([found, np.zeros_like(found)])
                                rows = found
                        rows[nfound, 0] = <int32_t>(g + first)
                        rows[nfound, 1] = pl
                        rows[nfound, 2] = at
                        rows[nfound, 3] = numbers[at]
                        rows[nfound, 4] = tmv[at]
                        rows[nfound, 5] = ncv[cont] if cont >= 0 else 0
                        rows[nfound, 6] = npv[cont] if cont >= 0 else -1
                        rows[nfound, 7] = cont > j
                        nfound += 1
                        break
                    if fault:
                        break
                if fault:
                    break
                # The game's rows in order of position, then placement (few: by insertion).
                for at in range(<int>game_rows + 1, <int>nfound):
                    k = at
                    while k > game_rows and (rows[k - 1, 2] > rows[k, 2] or (
                            rows[k - 1, 2] == rows[k, 2] and rows[k - 1, 1] > rows[k, 1])):
                        for c in range(8):
                            p = rows[k, c]
                            rows[k, c] = rows[k - 1, c]
                            rows[k - 1, c] = p
                        k -= 1
                if summary is not None and summary.add(rows, game_rows, nfound, g + first,
                                                       self.swaps):
                    nfound = game_rows  # past the page: summed up, not kept
        if fault:
            raise StoredGameError("a change or next move off the board, or more changes "
                                  "than its game has", index=int(games[gi]))
        if summary is not None and summary.fault:
            raise ValueError("a continuation of no colour or outside its placement's "
                             "region, or a representative off the board")
        found = found[:nfound]
        return (*(np.ascontiguousarray(found[:, c]) for c in range(8)), candidates)


cdef enum:
    # Moves a continuation is looked for one by one before the region's points
    # are, at least (more while the game's walks cost less than its moves by point).
    WALK = 24


cdef int _sides(int8_t first, const int8_t* ncv, int done, int upto, int8_t* to_move,
                int32_t* move_number) noexcept nogil:
    """A game's side to move and move number at its positions ``done`` to
    ``upto`` (those before ``done`` made already), from the side to move at its
    start and the colour of each next move
    (:meth:`gohash.pattern.store.Flat.sides`, the same on arrays); returns
    ``upto``.  Made as far as a hit needs them: the scan of a game ends early
    when nothing is left to follow."""
    cdef int k, side, number
    if done == 0:
        to_move[0] = first
        move_number[0] = 0
        done = 1
    side = to_move[done - 1]
    number = move_number[done - 1]
    for k in range(done, upto):
        if ncv[k - 1] != 0:
            side = 3 - ncv[k - 1]
            number += 1
        to_move[k] = <int8_t>side
        move_number[k] = number
    return upto


cdef bint _plays(const int8_t* ncv, const int16_t* npv, int positions, int npts,
                 int32_t* play_at, int32_t* plays, int32_t* stop_at) noexcept nogil:
    """A game's moves by point: the positions from which a move was played at
    ``q`` are ``plays[play_at[q]:play_at[q + 1]]``, in order; ``stop_at[i]`` the
    first position from ``i`` on from which none was (a setup node follows, or
    the end).  True (and nothing made) if a move is off the board."""
    cdef int at, p
    for at in range(positions):
        if npv[at] >= npts:
            return True
    memset(play_at, 0, (npts + 1) * sizeof(int32_t))
    for at in range(positions):
        if ncv[at] != 0 and npv[at] >= 0:
            play_at[npv[at] + 1] += 1
    for p in range(npts):
        play_at[p + 1] += play_at[p]
    for at in range(positions):
        if ncv[at] != 0 and npv[at] >= 0:
            plays[play_at[npv[at]]] = at
            play_at[npv[at]] += 1
    for p in range(npts, 0, -1):  # back to where each point's run starts
        play_at[p] = play_at[p - 1]
    play_at[0] = 0
    stop_at[positions] = positions
    for at in range(positions - 1, -1, -1):
        stop_at[at] = at if ncv[at] == 0 else stop_at[at + 1]
    return False


cdef class _Plays:
    """Room for :func:`_plays`' tables of a game of up to ``longest`` positions
    on a board of ``npts`` points."""

    cdef int32_t[::1] play_at, plays, stop_at

    def __init__(self, int npts, Py_ssize_t longest):
        self.play_at = np.zeros(npts + 1, dtype=np.int32)
        self.plays = np.zeros(longest + 1, dtype=np.int32)
        self.stop_at = np.zeros(longest + 1, dtype=np.int32)


cdef int _next_play(int j, const int32_t* region, int n, const int32_t* play_at,
                    const int32_t* plays, const int32_t* stop_at) noexcept nogil:
    """The first position from ``j`` on from which a move was played at one of the
    ``n`` points of ``region``, before ``stop_at[j]`` (:func:`_plays`); -1: none."""
    cdef int cont = stop_at[j], k, q, p
    for k in range(n):
        p = region[k]
        for q in range(play_at[p], play_at[p + 1]):
            if plays[q] >= j:
                if plays[q] < cont:
                    cont = plays[q]
                break
    return -1 if cont == stop_at[j] else cont


cdef class Summary:
    """The matches of a :meth:`Kernel.scan` summed up as each game ends: one
    match a position (its lowest placement's row), ``total`` of them in
    ``games`` games, ``ended`` without a continuation; per continuation, by
    its representative move ``m`` (``representatives[colour - 1, point]`` in
    the query's colours and orientation, ``to_query[placement, board
    point]`` the query point), row ``m`` of :attr:`sums`: count, tenuki, wins
    of the query's Black and of its White (``winners`` per store game, 1
    Black, 2 White), and the lowest and highest ``date_ranks`` (-1: none) of
    their games (:data:`gohash.pattern.tally.NO_FIRST` and -1 where none is
    dated), as :func:`gohash.pattern.tally.tally` sums them.  ``kept``
    matches' rows are kept, whole games, until ``wanted`` (-1: all) are."""

    cdef readonly object sums
    cdef int64_t[:, ::1] at
    cdef const int32_t[:, ::1] to_query
    cdef const int64_t[:, ::1] representatives
    cdef const int8_t[::1] winners
    cdef const int32_t[::1] date_ranks
    cdef readonly Py_ssize_t wanted, total, games, ended, kept
    cdef bint fault

    def __init__(self, const int32_t[:, ::1] to_query, const int64_t[:, ::1] representatives,
                 const int8_t[::1] winners, const int32_t[::1] date_ranks, Py_ssize_t wanted):
        npts = to_query.shape[1]
        if representatives.shape[0] != 2 or representatives.shape[1] != npts:
            raise ValueError("the representatives are not one a colour and point")
        if winners.shape[0] != date_ranks.shape[0]:
            raise ValueError("the winners and date ranks differ in length")
        self.sums = np.zeros((2 * npts, 6), dtype=np.int64)
        self.sums[:, 4] = np.iinfo(np.int64).max
        self.sums[:, 5] = -1
        self.at = self.sums
        self.to_query = to_query
        self.representatives = representatives
        self.winners = winners
        self.date_ranks = date_ranks
        self.wanted = wanted
        self.total = self.games = self.ended = self.kept = 0
        self.fault = False

    cdef check(self, int count, int npts, Py_ssize_t games):
        if self.to_query.shape[0] != count or self.to_query.shape[1] != npts:
            raise ValueError("the summary's table of query points is not the matcher's")
        if self.winners.shape[0] < games:
            raise ValueError("the summary's winners and dates miss games of the segment")

    cdef bint add(self, const int32_t[:, ::1] rows, Py_ssize_t start, Py_ssize_t end,
                  Py_ssize_t game, const int8_t[::1] swaps) noexcept nogil:
        """Sums up one game's rows ``rows[start:end]`` (store game ``game``, in
        order of position and placement); True if they are not to be kept."""
        cdef Py_ssize_t r, matches = 0, npts = self.to_query.shape[1]
        cdef int pl, colour, winner, q
        cdef int64_t m
        cdef int32_t rank
        if start == end:
            return False
        winner = self.winners[game]
        rank = self.date_ranks[game]
        for r in range(start, end):
            if r > start and rows[r, 2] == rows[r - 1, 2]:
                continue  # another placement at the same position: one match
            matches += 1
            colour = rows[r, 5]
            if colour == 0:
                self.ended += 1
                continue
            pl = rows[r, 1]
            if colour != 1 and colour != 2:
                self.fault = True
                continue
            if swaps[pl]:
                colour = 3 - colour
            # Checked here, not as the tables are made: a few compares a match.
            q = self.to_query[pl, rows[r, 6]]
            m = self.representatives[colour - 1, q] if 0 <= q < npts else -1
            if not 0 <= m < 2 * npts:
                self.fault = True
                continue
            self.at[m, 0] += 1
            self.at[m, 1] += rows[r, 7]
            if winner == 1 or winner == 2:
                self.at[m, 2 if (winner == 1) != swaps[pl] else 3] += 1
            if rank >= 0 and rank < self.at[m, 4]:
                self.at[m, 4] = rank
            if rank > self.at[m, 5]:
                self.at[m, 5] = rank
        self.total += matches
        self.games += 1
        if self.wanted >= 0 and self.kept >= self.wanted:
            return True
        self.kept += matches
        return False


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

    cdef uint16_t[::1] changes
    cdef Py_ssize_t nchanges
    cdef bint overflow


cdef bint _flat_node(void* ctx, Py_ssize_t node, int32_t move_number, const int32_t* log,
                     Py_ssize_t nlog) noexcept:
    """The replay's visit in :func:`flatten`: the node's changes appended, the
    last marked (:data:`LAST`; a node that changes nothing, one word that
    changes nothing); stops the replay when they are out of room."""
    cdef _Flat f = <_Flat>ctx
    cdef Py_ssize_t j
    if f.nchanges + max(nlog, 1) > f.changes.shape[0]:
        f.overflow = True
        return True
    if nlog == 0:
        f.changes[f.nchanges] = LAST
        f.nchanges += 1
        return False
    for j in range(nlog):
        f.changes[f.nchanges] = <uint16_t>log[j]
        f.nchanges += 1
    f.changes[f.nchanges - 1] |= LAST
    return False


def shift_tables(const int32_t[::1] watch_offsets, const int32_t[::1] watch,
                 const int8_t[::1] watch_codes, const int32_t[:, ::1] slots, int count):
    """The compiled twin of the numpy lists and bitsets of
    :meth:`gohash.pattern.match.Matcher._shifts`, in one pass over the
    watchers (the placements of ``count`` that watch each point, in order,
    and their codes; ``slots[code, change]`` the slot of each change of a
    point's value, -1 none): ``shift``, ``shift_offsets``, ``change_rows`` and
    ``change_bits``, as that method names them.  Raises ValueError for
    watchers that do not fit the placements or the table."""
    cdef Py_ssize_t points = watch_offsets.shape[0] - 1, nslots, p, w, s, j, rows = 0
    cdef int change, local, m, words = (count + 63) // 64
    cdef bint fit = (points >= 0 and watch.shape[0] == watch_codes.shape[0]
                     and slots.shape[1] == 6 and watch_offsets[0] == 0
                     and watch_offsets[points] == watch.shape[0])
    for p in range(points if fit else 0):
        fit = fit and watch_offsets[p + 1] >= watch_offsets[p]
    for w in range(watch.shape[0] if fit else 0):
        fit = fit and 0 <= watch[w] < count and 0 <= watch_codes[w] < slots.shape[0]
    for j in range(slots.shape[0] if fit else 0):
        for change in range(6):
            fit = fit and -1 <= slots[j, change] < 27
    if not fit:
        raise ValueError("the watchers do not fit the placements or the table of slots")
    nslots = points * 27
    offsets_array = np.zeros(nslots + 1, dtype=np.int32)
    cdef int32_t[::1] offsets = offsets_array
    # Each list's length, then its start; then its members, in the watchers'
    # order (by placement), as the stable sort of the numpy twin leaves them.
    for p in range(points):
        for w in range(watch_offsets[p], watch_offsets[p + 1]):
            for change in range(6):
                local = slots[watch_codes[w], change]
                if local >= 0:
                    offsets[p * 27 + local + 1] += 1
    for s in range(nslots):
        offsets[s + 1] += offsets[s]
    shift_array = np.empty(offsets[nslots], dtype=np.int32)
    cursor_array = offsets_array[:nslots].copy()
    cdef int32_t[::1] shift = shift_array, cursor = cursor_array
    for p in range(points):
        for w in range(watch_offsets[p], watch_offsets[p + 1]):
            for change in range(6):
                local = slots[watch_codes[w], change]
                if local >= 0:
                    s = p * 27 + local
                    shift[cursor[s]] = watch[w]
                    cursor[s] += 1
    # A row of bitsets per change (p, old, new) that some list of it holds.
    rows_array = np.full(points * 9, -1, dtype=np.int32)
    cdef int32_t[::1] change_rows = rows_array
    for s in range(points * 9):
        if offsets[s * 3 + 3] > offsets[s * 3]:
            change_rows[s] = rows
            rows += 1
    bits_array = np.zeros((rows, 3, words), dtype=np.uint64)
    cdef uint64_t[:, :, ::1] bits = bits_array
    for s in range(nslots):
        for j in range(offsets[s], offsets[s + 1]):
            m = shift[j]
            bits[change_rows[s // 3], s % 3, m >> 6] |= (<uint64_t>1) << (m & 63)
    return shift_array, offsets_array, rows_array, bits_array


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
    first_array = np.zeros(games, dtype=np.int8)
    nc_array = np.zeros(total, dtype=np.int8)
    np_array = np.full(total, -1, dtype=np.int16)
    cdef int8_t[::1] first_to_move = first_array, next_colour = nc_array
    cdef int16_t[::1] next_point = np_array
    change_offsets_array = np.zeros(games + 1, dtype=np.int64)
    cdef int64_t[::1] change_offsets = change_offsets_array
    removed_array = np.zeros(games * width, dtype=np.uint8)
    cdef uint8_t[::1] removed = removed_array
    cdef _Flat f = _Flat()
    f.changes = np.zeros(total + 64, dtype=np.uint16)
    f.nchanges = 0
    longest = max(2, int(np.max(mains)) + 1) if games else 2
    cdef int8_t[::1] board = np.zeros(npts, dtype=np.int8)
    cdef int8_t[::1] tm = np.zeros(longest, dtype=np.int8), col = np.zeros(longest, dtype=np.int8)
    cdef int16_t[::1] pt = np.zeros(longest, dtype=np.int16)
    cdef uint8_t[::1] st = np.zeros(longest, dtype=np.uint8)
    cdef int32_t[::1] par = np.zeros(longest, dtype=np.int32), mn = np.zeros(longest, dtype=np.int32)
    cdef int32_t[::1] log = np.zeros(MAX_LOG, dtype=np.int32)
    cdef int32_t[::1] s = np.zeros(npts * SCRATCH, dtype=np.int32)
    cdef int p
    neighbours(size, &s[0])
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
        f.overflow = False
        try:
            done = _replay(&data[offsets[g]], offsets[g + 1] - offsets[g], size, m - 1, m,
                           &board[0], &tm[0], &col[0], &pt[0], &st[0], &par[0], &mn[0], &s[0],
                           True, _flat_node, <void*>f, &log[0])
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
        # The replay starts from a setup node; the side to move and move number
        # of the others follow from their moves (_sides), which is all a scan keeps.
        first_to_move[g] = tm[0]
        for k in range(m):
            if k + 1 < m:
                next_colour[n0 + k] = col[k + 1]
                next_point[n0 + k] = pt[k + 1]
        for k in range(first, f.nchanges):
            if (f.changes[k] >> 2) & 3:
                p = (f.changes[k] >> 4) & POINT
                removed[g * width + (p >> 3)] |= 1 << (p & 7)
        g += 1
    change_offsets[games] = f.nchanges
    return (node_offsets_array, first_array, nc_array, np_array, change_offsets_array,
            np.asarray(f.changes)[:f.nchanges].copy(), removed_array)


cdef inline int _next_change(const uint16_t** word, const uint16_t* words_end, int npts,
                             int* p, int* old, int* new) noexcept nogil:
    """The change word at ``word[0]`` read into its point and old and new values,
    and ``word[0]`` moved past it: 1 if it is its node's last, 0 if not, -1
    for a word past the game's words or off the board."""
    cdef uint16_t w
    if word[0] >= words_end:
        return -1
    w = word[0][0]
    word[0] += 1
    p[0] = (w >> 4) & POINT
    new[0] = w & 3
    old[0] = (w >> 2) & 3
    if p[0] >= npts or new[0] == 3 or old[0] == 3:
        return -1
    return w >> 15


def window_hits(const int64_t[::1] node_offsets, const int8_t[::1] next_colour,
                const int16_t[::1] next_point, const int64_t[::1] change_offsets,
                const uint16_t[::1] changes, int size, int side,
                const int32_t[::1] window_points, const int32_t[::1] point_windows,
                const int32_t[::1] point_window_offsets, const int32_t[::1] classes,
                const int8_t[::1] orientations, const int32_t[::1] answered,
                const int8_t[:, :, ::1] lowest, const uint8_t[:, ::1] frames,
                const int32_t[:, ::1] back,
                const int8_t[::1] winners, const int32_t[::1] date_ranks):
    """The first hits of every window content in the games of a segment
    :func:`flatten` ed for ``size``: the windows are the squares of ``side``
    (``window_points[w * side * side + i * side + j]`` the board point of row
    ``i``, column ``j`` of window ``w``, the windows in order of lowest row,
    then column; ``point_windows[point_window_offsets[p] :
    point_window_offsets[p + 1]]`` the windows of point ``p``, each ``w * side
    * side + i * side + j``), a content their points' values as the digits in
    base 3 of a code (point ``i * side + j`` the digit of ``3 ** (i * side +
    j)``), ``classes[code]`` its class (-1: none, the empty window's) and
    ``orientations[code]`` the element ``t`` that maps it onto its class's
    canonical content.  A window hits a content at the first position of a
    game where it holds it: the hit of a pattern query of that content alone
    (no side to move, move limit or sequence) at the placement that puts it on
    that window.

    Without ``answered`` (empty): returns per class the games with a hit.
    With it (``answered[class]``: the number of its answer, -1 none), the
    matches of the answered classes summed up as :class:`Summary` sums a
    query's (one a position), per answer and winner (``winners[g]``, 0
    neither; of ``date_ranks[g]``, -1 none): ``counts[answer, winner]``, the
    matches, games hit and matches of one window without a continuation;
    ``sums[answer, winner, t, m]``, of the matches of one window, by the
    orientation ``t`` of its content and the continuation (``m = side * side *
    (colour is Black) + point``, as played): count, tenuki, wins of Black and
    of White, lowest and highest date rank (int32 max and -1: none).  A
    position where two windows hit one answer's content is the match of the
    lowest placement of a query, which depends on its frame: summed up for
    each element ``u`` that maps a query's content onto the canonical one, in
    that query's frame, where ``frames[answer, u]`` is set (the elements that
    are the lowest to map some image of the content onto it: a query's), as
    ``shared[answer, u, winner, m]`` (``m`` the
    continuation's colour and point in the query's colours and window, ``2 *
    side * side`` none: its count only): of the windows hit there, that of the
    least element ``lowest[answer, t, u]`` (the lowest that maps the query's
    content onto that window's), then window; its points mapped by
    ``back[element]`` (the inverse element's image of each window point),
    colours and wins exchanged by the elements that exchange them.  Raises
    :class:`~gohash.errors.StoredGameError` (``index`` the game in the
    segment) for a change or move off the board."""
    cdef Py_ssize_t games = node_offsets.shape[0] - 1, g, node, n0, positions, k, at, j, best
    cdef int npts = size * size, hh = side * side, ncodes = 1
    cdef int i
    for i in range(hh):
        ncodes *= 3
    cdef Py_ssize_t nwindows = window_points.shape[0] // hh if hh else 0
    if (size <= 0 or side <= 0 or hh > 16 or classes.shape[0] != ncodes
            or orientations.shape[0] != ncodes
            or point_window_offsets.shape[0] != npts + 1
            or point_window_offsets[npts] != point_windows.shape[0]
            or change_offsets.shape[0] != games + 1
            or node_offsets[games] != next_colour.shape[0]
            or next_point.shape[0] != next_colour.shape[0]
            or change_offsets[games] != changes.shape[0]
            or winners.shape[0] != games or date_ranks.shape[0] != games
            or back.shape[0] != 16 or back.shape[1] != hh
            or lowest.shape[1] != 16 or lowest.shape[2] != 16):
        raise ValueError("the window tables or the segment's columns do not agree")
    if window_points.shape[0] and (np.min(window_points) < 0
                                   or np.max(window_points) >= npts):
        raise ValueError("a window point off the board")
    if point_windows.shape[0] and (np.min(point_windows) < 0
                                   or np.max(point_windows) >= nwindows * hh):
        raise ValueError("a point's window that is not one")
    if np.min(orientations) < 0 or np.max(orientations) > 15 or (
            back.shape[0] and (np.min(back) < 0 or np.max(back) >= hh)):
        raise ValueError("an element or a window point that is not one")
    cdef int nclass = int(np.max(classes)) + 1
    cdef int nanswers = 0
    cdef bint summing = answered.shape[0] > 0
    if summing:
        nanswers = max(0, int(np.max(answered)) + 1)
        if answered.shape[0] != nclass or lowest.shape[0] != nanswers or (
                frames.shape[0] != nanswers or frames.shape[1] != 16) or (
                nanswers and (np.min(lowest) < 0 or np.max(lowest) > 15)):
            raise ValueError("the answered classes or their elements are not one a class")
    counts_games = np.zeros(nclass, dtype=np.int64)
    cdef int64_t[::1] class_games = counts_games
    sums_array = np.zeros((nanswers, 3, 16, 2 * hh, 6), dtype=np.int32)
    shared_array = np.zeros((nanswers, 16, 3, 2 * hh + 1, 6), dtype=np.int32)
    for array in (sums_array, shared_array):
        array[..., 4] = np.iinfo(np.int32).max
        array[..., 5] = -1
    cdef int32_t[:, :, :, :, ::1] sums = sums_array
    cdef int32_t[:, :, :, :, ::1] shared = shared_array
    counts_array = np.zeros((nanswers, 3, 3), dtype=np.int64)
    cdef int64_t[:, :, ::1] counts = counts_array
    cdef int32_t[::1] code = np.zeros(max(nwindows, 1), dtype=np.int32)
    cdef int64_t[::1] wstamp = np.full(max(nwindows, 1), -1, dtype=np.int64)
    cdef int32_t[::1] dirty = np.zeros(max(nwindows, 1), dtype=np.int32)
    # Which (window, code) a game met already: a bit each, cleared by the list.
    cdef uint8_t[::1] seen = np.zeros((max(nwindows, 1) * ncodes + 7) // 8, dtype=np.uint8)
    cdef Py_ssize_t longest = int(np.max(np.diff(node_offsets))) if games else 0
    cdef Py_ssize_t room = max(16, nwindows * 4)
    touched_array = np.zeros(room, dtype=np.int64)
    cdef int64_t[::1] touched = touched_array
    # A game's hits: answer, position, window, orientation, continuation's
    # position, colour and window point, and whether it was summed up; and
    # room for those of one answer at one position.
    hits_array = np.zeros((room, 8), dtype=np.int32)
    cdef int32_t[:, ::1] hits = hits_array
    group_array = np.zeros(room, dtype=np.int32)
    cdef int32_t[::1] group = group_array
    cdef int64_t[::1] cstamp = np.full(max(nclass, 1), -1, dtype=np.int64)
    cdef int64_t[:, ::1] hit_game = np.full((max(nanswers, 1), 3), -1, dtype=np.int64)
    cdef _Plays by_point = _Plays(npts, longest)
    cdef int32_t* play_at = &by_point.play_at[0]
    cdef int32_t* plays = &by_point.plays[0]
    cdef int32_t* stop_at = &by_point.stop_at[0]
    cdef Py_ssize_t ntouched, nhits, nd, bit, ngroup
    cdef int64_t tick = 0
    cdef int p, old, new, w, c, cls, ans = 0, cont, colour, local, winner, t, m, u, e, last
    cdef int fault = 0
    cdef int32_t rank
    cdef bint ended
    cdef const uint16_t* word
    cdef const uint16_t* words_end
    cdef const int8_t* ncv
    cdef const int16_t* npv
    cdef int pow3[16]
    pow3[0] = 1
    for i in range(1, 16):
        pow3[i] = pow3[i - 1] * 3
    with nogil:
        for g in range(games):
            n0 = node_offsets[g]
            positions = node_offsets[g + 1] - n0
            if positions <= 0:
                continue
            for w in range(nwindows):
                code[w] = 0
            ntouched = 0
            nhits = 0
            word = &changes[change_offsets[g]]
            words_end = &changes[0] + change_offsets[g + 1]
            for node in range(positions):
                tick += 1
                nd = 0
                ended = False
                while not ended:
                    last = _next_change(&word, words_end, npts, &p, &old, &new)
                    if last < 0:
                        fault = 1
                        break
                    ended = last
                    if old == new:
                        continue
                    for k in range(point_window_offsets[p], point_window_offsets[p + 1]):
                        at = point_windows[k]
                        w = <int>(at // hh)
                        if wstamp[w] != tick:
                            wstamp[w] = tick
                            dirty[nd] = w
                            nd += 1
                        code[w] += (new - old) * pow3[at % hh]
                if fault:
                    break
                for k in range(nd):
                    w = dirty[k]
                    c = code[w]
                    if c < 0 or c >= ncodes:
                        fault = 1
                        break
                    cls = classes[c]
                    if cls < 0:
                        continue
                    if summing:
                        ans = answered[cls]
                        if ans < 0:
                            continue
                    bit = <Py_ssize_t>w * ncodes + c
                    if (seen[bit >> 3] >> (bit & 7)) & 1:
                        continue
                    seen[bit >> 3] |= <uint8_t>(1 << (bit & 7))
                    if ntouched == touched.shape[0]:
                        with gil:
                            touched_array = np.concatenate([touched_array,
                                                            np.zeros_like(touched_array)])
                            touched = touched_array
                    touched[ntouched] = bit
                    ntouched += 1
                    if not summing:
                        if cstamp[cls] != g:
                            cstamp[cls] = g
                            class_games[cls] += 1
                        continue
                    if nhits == hits.shape[0]:
                        with gil:
                            hits_array = np.concatenate([hits_array, np.zeros_like(hits_array)])
                            hits = hits_array
                            group_array = np.zeros(hits.shape[0], dtype=np.int32)
                            group = group_array
                    hits[nhits, 0] = ans
                    hits[nhits, 1] = <int32_t>node
                    hits[nhits, 2] = w
                    hits[nhits, 3] = orientations[c]
                    nhits += 1
                if fault:
                    break
            for k in range(ntouched):
                bit = touched[k]
                seen[bit >> 3] &= <uint8_t>~(1 << (bit & 7))
            if fault or nhits == 0:
                if fault:
                    break
                continue
            ncv = &next_colour[n0]
            npv = &next_point[n0]
            if _plays(ncv, npv, <int>positions, npts, play_at, plays, stop_at):
                fault = 1
                break
            winner = winners[g]
            if winner < 0 or winner > 2:
                winner = 0
            rank = date_ranks[g]
            # Each hit's continuation: the first move played in its window from
            # its position on, before a position none was played from.
            for k in range(nhits):
                cont = _region_move(hits[k, 1], &window_points[hits[k, 2] * hh], hh, ncv, npv,
                                    play_at, plays, stop_at, &colour, &local)
                if cont == -2:
                    fault = 1
                    break
                hits[k, 4] = cont
                hits[k, 5] = colour if cont >= 0 else 0
                hits[k, 6] = local if cont >= 0 else 0
                hits[k, 7] = 0
            if fault:
                break
            # The hits of one answer at one position: a game's hits are in
            # order of position, a position's few.
            k = 0
            while k < nhits:
                if hits[k, 7]:
                    k += 1
                    continue
                ans = hits[k, 0]
                ngroup = _grouped(hits, nhits, k, 7, group)
                counts[ans, winner, 0] += 1
                if hit_game[ans, winner] != g:
                    hit_game[ans, winner] = g
                    counts[ans, winner, 1] += 1
                j = k
                k += 1
                if ngroup == 1:
                    # One window: the same match in any frame, by its orientation.
                    if hits[j, 4] < 0:
                        counts[ans, winner, 2] += 1
                    else:
                        m = (hh if hits[j, 5] == 1 else 0) + hits[j, 6]
                        _summed(&sums[ans, winner, hits[j, 3], m, 0], hits[j, 4] > hits[j, 1],
                                winner, rank)
                    continue
                for u in range(16):
                    if not frames[ans, u]:
                        continue
                    # The lowest placement: the least element, then window.
                    best = group[0]
                    for at in range(1, ngroup):
                        i = group[at]
                        e = lowest[ans, hits[i, 3], u] - lowest[ans, hits[best, 3], u]
                        if e < 0 or (e == 0 and hits[i, 2] < hits[best, 2]):
                            best = i
                    e = lowest[ans, hits[best, 3], u]
                    if hits[best, 4] < 0:
                        shared[ans, u, winner, 2 * hh, 0] += 1
                        continue
                    colour = hits[best, 5] if e < 8 else 3 - hits[best, 5]
                    m = (hh if colour == 1 else 0) + back[e, hits[best, 6]]
                    _summed(&shared[ans, u, winner, m, 0], hits[best, 4] > hits[best, 1],
                            winner if e < 8 or winner == 0 else 3 - winner, rank)
    if fault:
        raise StoredGameError("a change or next move off the board, or more changes "
                              "than its game has", index=int(g))
    if not summing:
        return counts_games
    return sums_array, shared_array, counts_array


cdef Py_ssize_t _grouped(int32_t[:, ::1] hits, Py_ssize_t nhits, Py_ssize_t k, int done,
                         int32_t[::1] group) noexcept nogil:
    """The hits of hit ``k``'s answer at its position (column 0 the answer, 1
    the position; a game's hits in order of position) from ``k`` on, in
    ``group`` and marked in column ``done``: how many."""
    cdef Py_ssize_t at = k, ngroup = 0
    while at < nhits and hits[at, 1] == hits[k, 1]:
        if hits[at, 0] == hits[k, 0]:
            hits[at, done] = 1
            group[ngroup] = <int32_t>at
            ngroup += 1
        at += 1
    return ngroup


cdef inline void _summed(int32_t* row, bint tenuki, int winner, int32_t rank) noexcept nogil:
    """One match with a continuation added to its row: count, tenuki, wins of
    Black and of White (``winner``), lowest and highest date rank."""
    row[0] += 1
    row[1] += tenuki
    if winner == 1:
        row[2] += 1
    elif winner == 2:
        row[3] += 1
    if rank >= 0 and rank < row[4]:
        row[4] = rank
    if rank > row[5]:
        row[5] = rank


cdef inline uint64_t _mixed(uint64_t x) noexcept nogil:
    """A content's code spread over 64 bits (splitmix64's finaliser): where it
    falls in a table of codes."""
    x ^= x >> 30
    x *= <uint64_t>0xBF58476D1CE4E5B9
    x ^= x >> 27
    x *= <uint64_t>0x94D049BB133111EB
    x ^= x >> 31
    return x


cdef int _region_move(int node, const int32_t* region, int n, const int8_t* ncv,
                      const int16_t* npv, const int32_t* play_at, const int32_t* plays,
                      const int32_t* stop_at, int* colour, int* local) noexcept nogil:
    """The continuation of a hit at ``node`` in the ``n`` points of ``region``
    (:func:`_next_play`): its position, -1 none, -2 a move that is not one;
    ``colour`` its colour and ``local`` its point's place in ``region``."""
    cdef int cont = _next_play(node, region, n, play_at, plays, stop_at), i
    if cont < 0:
        return -1
    colour[0] = ncv[cont]
    local[0] = -1
    for i in range(n):
        if region[i] == npv[cont]:
            local[0] = i
    if local[0] < 0 or (colour[0] != 1 and colour[0] != 2):
        return -2
    return cont


cdef int _band_move(int node, int b, int frame, int hh, const int32_t* band_points,
                    const int* mirror_point, const int8_t* ncv, const int16_t* npv,
                    const int32_t* play_at, const int32_t* plays, const int32_t* stop_at,
                    int* m) noexcept nogil:
    """The continuation of a hit at ``node`` of band ``b`` (seen in ``frame``,
    as :func:`band_hits` numbers them): its position, -1 none, -2 a move that
    is not one; ``m`` its move in the canonical frame (``hh * (colour is
    Black) + point``), mirrored and its colour exchanged as the frame is."""
    cdef int colour, local
    cdef int cont = _region_move(node, &band_points[b * hh], hh, ncv, npv, play_at, plays,
                                 stop_at, &colour, &local)
    if cont < 0:
        return cont
    if frame >= 2:
        local = mirror_point[local]
    if frame & 1:
        colour = 3 - colour
    m[0] = (hh if colour == 1 else 0) + local
    return cont


def band_hits(const int64_t[::1] node_offsets, const int8_t[::1] next_colour,
              const int16_t[::1] next_point, const int64_t[::1] change_offsets,
              const uint16_t[::1] changes, int size, int depth, int width,
              const int32_t[::1] band_points, const int32_t[::1] point_bands,
              const int32_t[::1] point_band_offsets, const int8_t[:, ::1] elements,
              const int64_t[::1] answered, const int32_t[::1] slots,
              const uint8_t[::1] by_orientation, const int32_t[::1] shared_slots,
              const uint8_t[:, ::1] frames, const int8_t[:, :, ::1] lowest,
              const int8_t[:, :, ::1] keepers,
              const int8_t[::1] winners, const int32_t[::1] date_ranks):
    """The first hits of every band content in the games of a segment
    :func:`flatten` ed for ``size``: the bands are the rectangles ``depth``
    deep along an edge and ``width`` wide (``band_points[b * depth * width +
    i * width + j]`` the board point ``i`` from the edge and ``j`` along it of
    band ``b`` in that band's frame; ``point_bands[point_band_offsets[p] :
    point_band_offsets[p + 1]]`` the bands of point ``p``, each ``b * depth *
    width + k``).  A band's content is the digits in base 3 of a code (point
    ``k`` of ``3 ** k``) in each of four frames: its own, mirrored along the
    edge (``j`` to ``width - 1 - j``), and those two with colours exchanged;
    ``elements[b, q]`` the element that maps band ``b`` onto the canonical
    edge with frame ``q`` (0 own, 1 own exchanged, 2 mirrored, 3 mirrored
    exchanged).  Its canonical content is the least of the four codes, its
    orientation ``t`` the least element of those that give it.  A band hits a
    content at the first position of a game where it holds it: the hit of a
    pattern query of that content alone (no side to move, move limit or
    sequence) at the placement that puts it on that band.

    Without ``answered`` (empty): returns the canonical codes that some game's
    band held, the number of games that held each and of positions where two
    bands held it (in no order).  With it
    (the canonical codes answered, increasing), their matches summed up as
    :class:`Summary` sums a query's, per answer and winner (``winners[g]``, 0
    neither; of ``date_ranks[g]``, -1 none): ``counts[answer, winner]``, the
    matches, games hit and matches without a continuation, and
    ``sums[slots[answer] + (t if by_orientation[answer] else 0), winner,
    m]``, by the continuation in the canonical frame (``m = depth * width *
    (colour is Black) + point``): count, tenuki, wins of Black and of White in
    that frame's colours, lowest and highest date rank (int32 max and -1:
    none).  A position where two bands hit one answer's content is the match
    of the lowest placement of a query, which depends on its frame: for an
    answer of ``shared_slots`` (-1: none), summed up for each element ``u``
    where ``frames[answer, u]`` is set (a query's frame) as ``shared[slot, u,
    winner, m]`` (``m`` the continuation in the canonical frame of that
    query, ``u`` of its own: ``2 * depth * width`` none, its count only), of
    the bands hit there that of the least element ``lowest[answer, t, u]``,
    then lowest point, mapped by the symmetry ``keepers[answer, t, u]`` of
    the content (0, 4, 8 or 12: ``t . placement . u^-1``); for the others,
    the game is returned as an exception (answer, game) and none of its
    matches of that answer summed up.  Raises
    :class:`~gohash.errors.StoredGameError` (``index`` the game in the
    segment) for a change or move off the board."""
    cdef Py_ssize_t games = node_offsets.shape[0] - 1, g, node, n0, positions, k, at, j
    cdef int npts = size * size, hh = depth * width
    cdef Py_ssize_t nbands = band_points.shape[0] // hh if hh > 0 else 0
    if (size <= 0 or depth <= 0 or width <= 0 or hh > 35 or band_points.shape[0] != nbands * hh
            or nbands >= 128 or elements.shape[0] != nbands or elements.shape[1] != 4
            or point_band_offsets.shape[0] != npts + 1
            or point_band_offsets[npts] != point_bands.shape[0]
            or change_offsets.shape[0] != games + 1
            or node_offsets[games] != next_colour.shape[0]
            or next_point.shape[0] != next_colour.shape[0]
            or change_offsets[games] != changes.shape[0]
            or winners.shape[0] != games or date_ranks.shape[0] != games):
        raise ValueError("the band tables or the segment's columns do not agree")
    if band_points.shape[0] and (np.min(band_points) < 0 or np.max(band_points) >= npts):
        raise ValueError("a band point off the board")
    if point_bands.shape[0] and (np.min(point_bands) < 0
                                 or np.max(point_bands) >= nbands * hh):
        raise ValueError("a point's band that is not one")
    if nbands and (np.min(elements) < 0 or np.max(elements) > 15):
        raise ValueError("an element that is not one")
    cdef Py_ssize_t nanswers = answered.shape[0]
    cdef bint summing = nanswers > 0
    cdef Py_ssize_t nrows = 0
    cdef Py_ssize_t nshared = 0
    if summing:
        if (slots.shape[0] != nanswers or by_orientation.shape[0] != nanswers
                or shared_slots.shape[0] != nanswers
                or np.any(np.diff(answered) <= 0) or np.min(slots) < 0):
            raise ValueError("the answered codes or their slots are not one an answer")
        if (frames.shape[0] != nanswers or frames.shape[1] != 16
                or lowest.shape[0] != nanswers or lowest.shape[1] != 16
                or lowest.shape[2] != 16 or keepers.shape[0] != nanswers
                or keepers.shape[1] != 16 or keepers.shape[2] != 16
                or np.min(lowest) < 0 or np.max(lowest) > 15
                or not np.isin(np.asarray(keepers), [0, 4, 8, 12]).all()):
            raise ValueError("the frames of the answers are not one an answer")
        nshared = int(np.max(shared_slots)) + 1
        nrows = int(np.max(np.asarray(slots) + 16 * (np.asarray(by_orientation) != 0))) + 1
    cdef int64_t pow3[35]
    cdef int64_t mirrored[35]
    cdef int i
    for i in range(hh):
        pow3[i] = 1 if i == 0 else pow3[i - 1] * 3
    for i in range(hh):
        mirrored[i] = pow3[i // width * width + width - 1 - i % width]
    cdef int mirror_point[35]
    for i in range(hh):
        mirror_point[i] = i // width * width + width - 1 - i % width
    # A table of codes (open addressing): in counting, every canonical code met
    # with its games and the last game counted; in summing, the answered ones.
    cdef Py_ssize_t capacity = 1 << 16
    while capacity < 4 * nanswers:
        capacity <<= 1
    table_codes_array = np.full(capacity, -1, dtype=np.int64)
    table_values_array = np.zeros(capacity, dtype=np.int32)
    table_stamps_array = np.full(capacity, -1, dtype=np.int32)
    cdef int64_t[::1] table_codes = table_codes_array
    cdef int32_t[::1] table_values = table_values_array
    cdef int32_t[::1] table_stamps = table_stamps_array
    table_shared_array = np.zeros(capacity, dtype=np.int32)
    cdef int32_t[::1] table_shared = table_shared_array
    # The canonical codes of a position's bands, as counted.
    cdef int64_t[::1] node_codes = np.zeros(max(nbands, 1), dtype=np.int64)
    cdef Py_ssize_t nheld = 0
    cdef Py_ssize_t used = 0, slot, mask = capacity - 1
    for k in range(nanswers):
        slot = <Py_ssize_t>(_mixed(<uint64_t>answered[k]) & <uint64_t>mask)
        while table_codes[slot] >= 0:
            slot = (slot + 1) & mask
        table_codes[slot] = answered[k]
        table_values[slot] = <int32_t>k
    sums_array = np.zeros((nrows, 3, 2 * hh, 6), dtype=np.int32)
    shared_array = np.zeros((max(nshared, 0), 16, 3, 2 * hh + 1, 6), dtype=np.int32)
    for array in (sums_array, shared_array):
        array[..., 4] = np.iinfo(np.int32).max
        array[..., 5] = -1
    cdef int32_t[:, :, :, ::1] sums = sums_array
    cdef int32_t[:, :, :, :, ::1] shared = shared_array
    # Of bands hit at one position, the lowest placement's: the lowest point.
    rank_array = (np.asarray(band_points).reshape(-1, hh).min(axis=1) if nbands
                  else np.zeros(1)).astype(np.int32)
    cdef const int32_t[::1] band_rank = rank_array
    counts_array = np.zeros((nanswers, 3, 3), dtype=np.int64)
    cdef int64_t[:, :, ::1] counts = counts_array
    cdef int64_t[:, ::1] hit_game = np.full((max(nanswers, 1), 3), -1, dtype=np.int64)
    cdef int64_t[::1] left_game = np.full(max(nanswers, 1), -1, dtype=np.int64)
    left_array = np.zeros((16, 2), dtype=np.int64)
    cdef int64_t[:, ::1] left = left_array
    cdef Py_ssize_t nleft = 0
    # Each band's code in its four frames.
    codes_array = np.zeros((max(nbands, 1), 4), dtype=np.int64)
    cdef int64_t[:, ::1] codes = codes_array
    cdef int64_t[::1] bstamp = np.full(max(nbands, 1), -1, dtype=np.int64)
    cdef int32_t[::1] dirty = np.zeros(max(nbands, 1), dtype=np.int32)
    # Which (band, code) a game met already: a small table cleared by its list.
    cdef Py_ssize_t seen_capacity = 1 << 12, seen_mask = seen_capacity - 1
    seen_array = np.full(seen_capacity, -1, dtype=np.int64)
    cdef int64_t[::1] seen = seen_array
    touched_array = np.zeros(seen_capacity // 2, dtype=np.int64)
    cdef int64_t[::1] touched = touched_array
    cdef Py_ssize_t ntouched, nhits, nd
    # A game's hits: answer, position, band, orientation, frame, and whether
    # summed up; and room for those of one answer at one position.
    hits_array = np.zeros((64, 6), dtype=np.int32)
    cdef int32_t[:, ::1] hits = hits_array
    group_array = np.zeros(64, dtype=np.int32)
    cdef int32_t[::1] group = group_array
    cdef Py_ssize_t ngroup, chosen
    cdef Py_ssize_t longest = int(np.max(np.diff(node_offsets))) if games else 0
    cdef _Plays by_point = _Plays(npts, longest)
    cdef int32_t* play_at = &by_point.play_at[0]
    cdef int32_t* plays = &by_point.plays[0]
    cdef int32_t* stop_at = &by_point.stop_at[0]
    cdef int64_t tick = 0, best, pair
    cdef int64_t swapped[3]
    swapped[0] = 0
    swapped[1] = 2
    swapped[2] = 1
    cdef int p, old, new, b, q, t, u, ans, cont, colour, local, winner, m, row, won, last
    cdef int fault = 0
    cdef int32_t rank
    cdef int64_t delta, sdelta
    cdef bint ended
    cdef const uint16_t* word
    cdef const uint16_t* words_end
    cdef const int8_t* ncv
    cdef const int16_t* npv
    with nogil:
        for g in range(games):
            n0 = node_offsets[g]
            positions = node_offsets[g + 1] - n0
            if positions <= 0:
                continue
            for b in range(nbands):
                codes[b, 0] = 0
                codes[b, 1] = 0
                codes[b, 2] = 0
                codes[b, 3] = 0
            ntouched = 0
            nhits = 0
            word = &changes[change_offsets[g]]
            words_end = &changes[0] + change_offsets[g + 1]
            for node in range(positions):
                tick += 1
                nd = 0
                ended = False
                while not ended:
                    last = _next_change(&word, words_end, npts, &p, &old, &new)
                    if last < 0:
                        fault = 1
                        break
                    ended = last
                    if old == new:
                        continue
                    delta = new - old
                    sdelta = swapped[new] - swapped[old]
                    for k in range(point_band_offsets[p], point_band_offsets[p + 1]):
                        at = point_bands[k]
                        b = <int>(at // hh)
                        i = <int>(at % hh)
                        if bstamp[b] != tick:
                            bstamp[b] = tick
                            dirty[nd] = b
                            nd += 1
                        codes[b, 0] += delta * pow3[i]
                        codes[b, 1] += sdelta * pow3[i]
                        codes[b, 2] += delta * mirrored[i]
                        codes[b, 3] += sdelta * mirrored[i]
                if fault:
                    break
                nheld = 0
                for k in range(nd):
                    b = dirty[k]
                    if codes[b, 0] == 0:
                        continue
                    best = codes[b, 0]
                    for q in range(1, 4):
                        if codes[b, q] < best:
                            best = codes[b, q]
                    t = 16
                    j = 0
                    for q in range(4):
                        if codes[b, q] == best and elements[b, q] < t:
                            t = elements[b, q]
                            j = q
                    slot = <Py_ssize_t>(_mixed(<uint64_t>best) & <uint64_t>mask)
                    while table_codes[slot] >= 0 and table_codes[slot] != best:
                        slot = (slot + 1) & mask
                    if not summing:
                        if table_codes[slot] < 0:
                            table_codes[slot] = best
                            used += 1
                        if table_stamps[slot] != g:
                            table_stamps[slot] = <int32_t>g
                            table_values[slot] += 1
                        # Two bands that hold it at this position.
                        for i in range(nheld):
                            if node_codes[i] == best:
                                table_shared[slot] += 1
                                break
                        node_codes[nheld] = best
                        nheld += 1
                        if 2 * used > capacity:
                            with gil:
                                (table_codes_array, table_values_array, table_stamps_array,
                                 table_shared_array) = _grown(
                                    table_codes_array, table_values_array, table_stamps_array,
                                    table_shared_array)
                                table_codes = table_codes_array
                                table_values = table_values_array
                                table_stamps = table_stamps_array
                                table_shared = table_shared_array
                            capacity = table_codes.shape[0]
                            mask = capacity - 1
                        continue
                    if table_codes[slot] < 0:
                        continue
                    ans = <int>table_values[slot]
                    # The band's content as a code of its own frame: once a game.
                    pair = (<int64_t>b << 56) | codes[b, 0]
                    slot = <Py_ssize_t>(_mixed(<uint64_t>pair) & <uint64_t>seen_mask)
                    while seen[slot] >= 0 and seen[slot] != pair:
                        slot = (slot + 1) & seen_mask
                    if seen[slot] == pair:
                        continue
                    if 2 * (ntouched + 1) > seen_capacity:
                        with gil:
                            seen_array, touched_array = _rehashed(seen_array, touched_array,
                                                                  ntouched)
                            seen = seen_array
                            touched = touched_array
                        seen_capacity = seen.shape[0]
                        seen_mask = seen_capacity - 1
                        slot = <Py_ssize_t>(_mixed(<uint64_t>pair) & <uint64_t>seen_mask)
                        while seen[slot] >= 0:
                            slot = (slot + 1) & seen_mask
                    seen[slot] = pair
                    touched[ntouched] = slot
                    ntouched += 1
                    if nhits == hits.shape[0]:
                        with gil:
                            hits_array = np.concatenate([hits_array, np.zeros_like(hits_array)])
                            hits = hits_array
                            group_array = np.zeros(hits.shape[0], dtype=np.int32)
                            group = group_array
                    hits[nhits, 0] = ans
                    hits[nhits, 1] = <int32_t>node
                    hits[nhits, 2] = b
                    hits[nhits, 3] = t
                    hits[nhits, 4] = j
                    nhits += 1
            for k in range(ntouched):
                seen[touched[k]] = -1
            if fault:
                break
            if nhits == 0:
                continue
            # Two hits of one answer at one position, where its positions are not
            # summed up by frame: the game is left out of it.
            for k in range(nhits):
                ans = hits[k, 0]
                hits[k, 5] = 0
                if shared_slots[ans] >= 0 or left_game[ans] == g:
                    continue
                at = k + 1
                while at < nhits and hits[at, 1] == hits[k, 1]:
                    if hits[at, 0] == ans:
                        left_game[ans] = g
                        if nleft == left.shape[0]:
                            with gil:
                                left_array = np.concatenate([left_array,
                                                             np.zeros_like(left_array)])
                                left = left_array
                        left[nleft, 0] = ans
                        left[nleft, 1] = g
                        nleft += 1
                        break
                    at += 1
            ncv = &next_colour[n0]
            npv = &next_point[n0]
            if _plays(ncv, npv, <int>positions, npts, play_at, plays, stop_at):
                fault = 1
                break
            winner = winners[g]
            if winner < 0 or winner > 2:
                winner = 0
            rank = date_ranks[g]
            # The hits of one answer at one position: a game's are in order of
            # position, a position's few.
            k = 0
            while k < nhits:
                ans = hits[k, 0]
                if hits[k, 5] or left_game[ans] == g:
                    k += 1
                    continue
                ngroup = _grouped(hits, nhits, k, 5, group)
                counts[ans, winner, 0] += 1
                if hit_game[ans, winner] != g:
                    hit_game[ans, winner] = g
                    counts[ans, winner, 1] += 1
                j = k
                k += 1
                if ngroup == 1:
                    # One band: the same match in any frame, by its orientation.
                    cont = _band_move(hits[j, 1], hits[j, 2], hits[j, 4], hh, &band_points[0],
                                      mirror_point, ncv, npv, play_at, plays, stop_at, &m)
                    if cont == -2:
                        fault = 1
                        break
                    if cont < 0:
                        counts[ans, winner, 2] += 1
                        continue
                    won = winner if winner == 0 or not (hits[j, 4] & 1) else 3 - winner
                    row = slots[ans] + (hits[j, 3] if by_orientation[ans] else 0)
                    _summed(&sums[row, winner, m, 0], cont > hits[j, 1], won, rank)
                    continue
                for u in range(16):
                    if not frames[ans, u]:
                        continue
                    # The lowest placement: the least element, then lowest point.
                    chosen = group[0]
                    for at in range(1, ngroup):
                        i = group[at]
                        t = lowest[ans, hits[i, 3], u] - lowest[ans, hits[chosen, 3], u]
                        if t < 0 or (t == 0 and band_rank[hits[i, 2]]
                                     < band_rank[hits[chosen, 2]]):
                            chosen = i
                    cont = _band_move(hits[chosen, 1], hits[chosen, 2], hits[chosen, 4], hh,
                                      &band_points[0], mirror_point, ncv, npv, play_at, plays,
                                      stop_at, &m)
                    if cont == -2:
                        fault = 1
                        break
                    row = shared_slots[ans]
                    if cont < 0:
                        shared[row, u, winner, 2 * hh, 0] += 1
                        continue
                    # From the canonical frame to the query's: the content's symmetry.
                    q = keepers[ans, hits[chosen, 3], u]
                    local = m % hh
                    colour = 1 if m >= hh else 2
                    won = winner
                    if hits[chosen, 4] & 1 and won:
                        won = 3 - won
                    if q & 4:
                        local = mirror_point[local]
                    if q & 8:
                        colour = 3 - colour
                        if won:
                            won = 3 - won
                    _summed(&shared[row, u, winner, (hh if colour == 1 else 0) + local, 0],
                            cont > hits[chosen, 1], won, rank)
                if fault:
                    break
            if fault:
                break
    if fault:
        raise StoredGameError("a change or next move off the board, or more changes "
                              "than its game has", index=int(g))
    if not summing:
        held = table_codes_array >= 0
        return table_codes_array[held], table_values_array[held], table_shared_array[held]
    return sums_array, counts_array, left_array[:nleft].copy(), shared_array



def _grown(codes, values, stamps, shared):
    """A table of codes (-1: none) with their values, stamps and counts of
    shared positions, twice as large."""
    capacity = 2 * len(codes)
    new_codes = np.full(capacity, -1, dtype=np.int64)
    new_values = np.zeros(capacity, dtype=np.int32)
    new_stamps = np.full(capacity, -1, dtype=np.int32)
    new_shared = np.zeros(capacity, dtype=np.int32)
    cdef int64_t[::1] c = new_codes
    cdef int32_t[::1] v = new_values
    cdef int32_t[::1] s = new_stamps
    cdef int32_t[::1] h = new_shared
    cdef const int64_t[::1] old_codes = codes
    cdef const int32_t[::1] old_values = values
    cdef const int32_t[::1] old_stamps = stamps
    cdef const int32_t[::1] old_shared = shared
    cdef Py_ssize_t mask = capacity - 1, slot, k
    for k in range(old_codes.shape[0]):
        if old_codes[k] < 0:
            continue
        slot = <Py_ssize_t>(_mixed(<uint64_t>old_codes[k]) & <uint64_t>mask)
        while c[slot] >= 0:
            slot = (slot + 1) & mask
        c[slot] = old_codes[k]
        v[slot] = old_values[k]
        s[slot] = old_stamps[k]
        h[slot] = old_shared[k]
    return new_codes, new_values, new_stamps, new_shared


def _rehashed(seen, touched, Py_ssize_t ntouched):
    """A game's table of (band, code) pairs twice as large, with the same pairs,
    and the list of their slots."""
    capacity = 2 * len(seen)
    new_seen = np.full(capacity, -1, dtype=np.int64)
    new_touched = np.zeros(capacity, dtype=np.int64)
    cdef int64_t[::1] out = new_seen
    cdef int64_t[::1] at = new_touched
    cdef const int64_t[::1] old = seen
    cdef const int64_t[::1] slots = touched
    cdef Py_ssize_t mask = capacity - 1, slot, k
    for k in range(ntouched):
        slot = <Py_ssize_t>(_mixed(<uint64_t>old[slots[k]]) & <uint64_t>mask)
        while out[slot] >= 0:
            slot = (slot + 1) & mask
        out[slot] = old[slots[k]]
        at[k] = slot
    return new_seen, new_touched
