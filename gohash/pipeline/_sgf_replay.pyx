# cython: language_level=3, boundscheck=True, wraparound=False, cdivision=True
"""The compiled fast path of :func:`gohash.pipeline.positions.read_positions`: clean SGF files only.

Scope: the replay of every game that :mod:`gohash.pipeline._scan` read from a file
(captures, simple ko, suicide, setup, undo back to branch points) with the
position hash of a key scheme and the exact packed position (always: the
Python layer finds exact symmetries and frames from it), written to growing
columns.

The design is a strict fast path.  Anything the core is not sure to do
exactly as :mod:`gohash.sgf.walk` does -- whatever the scan refuses (see
:mod:`gohash.pipeline._scan`), any illegal move, setup that leaves a
group without liberties, a file over 64 MiB -- makes
:meth:`Replayer.scan_file` return None or :meth:`Replayer.replay_game` False
with nothing written, and the Python layer replays that file, or that game and
the rest of its file, with the pure walker.  So errors and notes are always
the walker's own.

Bounds checks stay on, but for a byte copy whose ends are checked and the
board's captures (:mod:`gohash.pipeline._board`), whose indices come from the
neighbour table of the game's size.  The key tables are checked by
:mod:`gohash.pipeline.positions`, which makes them.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy

from ._board cimport MAX_PACKED, MAX_POINTS, MAX_SIZE, NB, dead_group, has_liberty, neighbours
from ._scan cimport MAX_DEPTH, OPEN0, P_AB, P_AE, P_AW, Scanner

import numpy as np

from gohash.errors import StoredGameError

from ._scan import TEXT_PROPERTIES, grown  # TEXT_PROPERTIES: for the Python layer

cdef enum:
    MAX_SOURCE = 64 * 1024 * 1024  # gohash.sgf.MAX_SOURCE_BYTES

cdef uint64_t LOW7 = 0x7F7F7F7F7F7F7F7FULL
cdef uint64_t HIGH1 = 0x8080808080808080ULL


cdef inline uint64_t _byte_add(uint64_t a, uint64_t b) noexcept:
    return ((a & LOW7) + (b & LOW7)) ^ ((a ^ b) & HIGH1)


cdef inline uint64_t _byte_sub(uint64_t a, uint64_t b) noexcept:
    return ((a | HIGH1) - (b & LOW7)) ^ ((a ^ ~b) & HIGH1)


cdef class Replayer:
    """Collects the positions of clean files into columns until :meth:`take`.

    ``keys_for(size)`` returns a scheme's keys as a ``uint64`` array of shape
    ``(2 * size * size, 2)``: black keys then white keys, high and low words
    (the low word 0 for 64-bit schemes).  ``add`` selects byte-wise addition
    instead of XOR.
    """

    cdef bint variations, add
    cdef object keys_for
    cdef list key_cache
    cdef public str reason
    # -- output columns
    cdef Py_ssize_t n, nbytes, mark_n, mark_bytes, mark_paths
    cdef object a_file, a_game, a_var, a_move, a_colour, a_point, a_to_move
    cdef object a_setup, a_size, a_hi, a_lo, a_packed, a_offsets, a_depth
    cdef int32_t[:] o_file, o_game, o_var, o_move, o_depth
    cdef int8_t[:] o_colour, o_to_move
    cdef int16_t[:] o_point
    cdef uint8_t[:] o_setup, o_size, o_packed
    cdef uint64_t[:] o_hi, o_lo
    cdef int64_t[:] o_offsets
    cdef dict path_ids
    cdef list paths
    cdef Scanner scanner
    cdef list games
    cdef int file_id
    # -- the board
    cdef int size, npts, ko, ko_colour, to_move, move_number, visited
    cdef int pad_digits, packed_len
    cdef uint64_t hi, lo
    cdef uint64_t[:, :] keys
    cdef int8_t[:] cells
    cdef uint8_t[:] pk
    cdef int32_t[:] nb, mark, grp
    cdef int32_t gen
    cdef bint logging
    cdef Py_ssize_t nlog
    cdef object a_log_at, a_log_old
    cdef int32_t[:] log_at
    cdef uint8_t[:] log_old
    # -- the branch points open on the way to the current node
    cdef int64_t[:] st_log
    cdef int32_t[:] st_move, st_path, st_seen, st_open, st_ko, st_ko_colour, st_to_move
    cdef int32_t[:] st_visited
    cdef int32_t[:] path
    cdef int path_len
    cdef bint path_dirty
    cdef int32_t path_id

    def __init__(self, keys_for, *, bint variations, bint add, Py_ssize_t capacity):
        self.keys_for = keys_for
        self.variations = variations
        self.add = add
        self.key_cache = [None] * (MAX_SIZE + 1)
        self.reason = ""
        self.games = []
        self._new_columns(max(capacity, 64))
        self.scanner = Scanner()
        self.cells = np.zeros(MAX_POINTS, np.int8)
        self.pk = np.zeros(MAX_PACKED, np.uint8)
        self.nb = np.zeros(NB * MAX_POINTS, np.int32)
        self.mark = np.zeros(MAX_POINTS, np.int32)
        self.grp = np.zeros(MAX_POINTS, np.int32)
        self.gen = 0
        self.size = 0
        self.a_log_at = np.empty(1024, np.int32)
        self.a_log_old = np.empty(1024, np.uint8)
        self.log_at, self.log_old = self.a_log_at, self.a_log_old
        self.st_log = np.empty(MAX_DEPTH + 1, np.int64)
        self.st_move = np.empty(MAX_DEPTH + 1, np.int32)
        self.st_path = np.empty(MAX_DEPTH + 1, np.int32)
        self.st_seen = np.empty(MAX_DEPTH + 1, np.int32)
        self.st_open = np.empty(MAX_DEPTH + 1, np.int32)
        self.st_ko = np.empty(MAX_DEPTH + 1, np.int32)
        self.st_ko_colour = np.empty(MAX_DEPTH + 1, np.int32)
        self.st_to_move = np.empty(MAX_DEPTH + 1, np.int32)
        self.st_visited = np.empty(MAX_DEPTH + 1, np.int32)
        self.path = np.empty(MAX_DEPTH + 1, np.int32)

    # -- columns ----------------------------------------------------------------------------

    cdef _new_columns(self, Py_ssize_t cap):
        self.a_file = np.empty(cap, np.int32)
        self.a_game = np.empty(cap, np.int32)
        self.a_var = np.empty(cap, np.int32)
        self.a_move = np.empty(cap, np.int32)
        self.a_colour = np.empty(cap, np.int8)
        self.a_point = np.empty(cap, np.int16)
        self.a_to_move = np.empty(cap, np.int8)
        self.a_setup = np.empty(cap, np.uint8)
        self.a_size = np.empty(cap, np.uint8)
        self.a_depth = np.empty(cap, np.int32)
        self.a_hi = np.empty(cap, np.uint64)
        self.a_lo = np.empty(cap, np.uint64)
        self.a_offsets = np.zeros(cap + 1, np.int64)
        self.a_packed = np.empty(cap * 92, np.uint8)
        self._bind_columns()
        self.n = self.nbytes = 0
        self.paths = [()]
        self.path_ids = {(): 0}
        self.mark_n = self.mark_bytes = 0
        self.mark_paths = 1

    cdef _bind_columns(self):
        self.o_file, self.o_game, self.o_var = self.a_file, self.a_game, self.a_var
        self.o_move, self.o_colour, self.o_point = self.a_move, self.a_colour, self.a_point
        self.o_to_move, self.o_setup, self.o_size = self.a_to_move, self.a_setup, self.a_size
        self.o_hi, self.o_lo, self.o_offsets = self.a_hi, self.a_lo, self.a_offsets
        self.o_depth = self.a_depth
        self.o_packed = self.a_packed

    cdef _grow_columns(self):
        cdef Py_ssize_t need = self.n + 1
        self.a_file = grown(self.a_file, need)
        self.a_game = grown(self.a_game, need)
        self.a_var = grown(self.a_var, need)
        self.a_move = grown(self.a_move, need)
        self.a_colour = grown(self.a_colour, need)
        self.a_point = grown(self.a_point, need)
        self.a_to_move = grown(self.a_to_move, need)
        self.a_setup = grown(self.a_setup, need)
        self.a_size = grown(self.a_size, need)
        self.a_depth = grown(self.a_depth, need)
        self.a_hi = grown(self.a_hi, need)
        self.a_lo = grown(self.a_lo, need)
        self.a_offsets = grown(self.a_offsets, need + 1)
        self._bind_columns()

    def take(self):
        """The columns collected so far (as a dict of arrays) and the variation paths;
        the collection starts afresh."""
        cdef Py_ssize_t n = self.n
        columns = {
            "file": self.a_file[:n],
            "game": self.a_game[:n],
            "variation": self.a_var[:n],
            "move_number": self.a_move[:n],
            "colour": self.a_colour[:n],
            "point": self.a_point[:n],
            "to_move": self.a_to_move[:n],
            "setup": self.a_setup[:n].view(np.bool_),
            "size": self.a_size[:n],
            "depth": self.a_depth[:n],
            "hash_hi": self.a_hi[:n],
            "hash_lo": self.a_lo[:n],
            "packed_offsets": self.a_offsets[: n + 1],
            "packed": self.a_packed[: self.nbytes],
        }
        paths = self.paths
        self._new_columns(max(n, 64))
        return columns, paths

    def __len__(self):
        return self.n

    def rollback(self):
        """Drop the rows the last :meth:`replay_game` wrote (it does so itself when
        it refuses a game)."""
        self.n = self.mark_n
        self.nbytes = self.mark_bytes
        for p in self.paths[self.mark_paths :]:
            del self.path_ids[p]
        del self.paths[self.mark_paths :]

    # -- one file ---------------------------------------------------------------------------

    def scan_file(self, data, int file_id):
        """Read one file's bytes for :meth:`replay_game`; nothing is written yet.

        Returns for each game its size, HA as a number (0 without), the raw
        CA value or None, and the root's text properties (first values) as
        two dicts by name: those that are printable ASCII without a backslash
        already as ``str`` (SimpleText leaves them as they are), the others as
        raw ``bytes``; or None when the file is not handled, and
        :attr:`reason` says why.
        """
        cdef const uint8_t[:] d = data
        self.reason = ""
        self.games = []
        self.file_id = file_id
        if d.shape[0] > MAX_SOURCE:
            self.reason = "larger than the source limit"
            return None
        games = self.scanner.scan(d, data)
        if games is None:
            self.reason = self.scanner.reason
            return None
        self.games = games
        return [root for _, _, _, root in games]

    def replay_game(self, int index):
        """Replay game ``index`` of the file scanned last into the columns.

        False when the core does not handle the game: its rows are then
        dropped and :attr:`reason` says why.  Games are replayed one call
        each, so the caller can end a batch between two games of a file.
        """
        start, end, size, _ = self.games[index]
        self.mark_n, self.mark_bytes, self.mark_paths = self.n, self.nbytes, len(self.paths)
        self.reason = ""
        if not self._replay_game(start, end, size, index, self.file_id):
            self.rollback()
            return False
        return True

    cdef int _bail(self, str reason) except -1:
        self.reason = reason
        return False


    cdef int _start_board(self, int size) except -1:
        if size != self.size:
            self.size = size
            self.npts = size * size
            neighbours(size, &self.nb[0])
            self.packed_len = (self.npts + 3) // 4
            self.pad_digits = 4 * self.packed_len - self.npts
        keys = self.key_cache[size]
        if keys is None:
            keys = self.key_cache[size] = self.keys_for(size)
        self.keys = keys
        self.cells[: self.npts] = 0
        self.pk[: 1 + self.packed_len] = 0
        self.pk[0] = size
        self.hi = self.lo = 0
        self.ko = -1
        self.ko_colour = 0
        self.to_move = 1
        self.move_number = 0
        self.visited = 0
        self.nlog = 0
        self.logging = self.variations
        return 0

    cdef inline int _toggle(self, int code, int i, bint remove) except -1:
        cdef Py_ssize_t row = (code - 1) * self.npts + i
        if not self.add:
            self.hi ^= self.keys[row, 0]
            self.lo ^= self.keys[row, 1]
        elif remove:
            self.hi = _byte_sub(self.hi, self.keys[row, 0])
        else:
            self.hi = _byte_add(self.hi, self.keys[row, 0])
        return 0

    cdef int _put(self, int i, int code) except -1:
        cdef int old = self.cells[i], digit, shift
        if old == code:
            return 0
        if old:
            self._toggle(old, i, True)
        if code:
            self._toggle(code, i, False)
        self.cells[i] = code
        digit = self.pad_digits + i
        shift = 2 * (3 - (digit & 3))
        self.pk[1 + (digit >> 2)] = (self.pk[1 + (digit >> 2)] & ~(3 << shift)) | (code << shift)
        if self.logging:
            if self.nlog == self.log_at.shape[0]:
                self.a_log_at = grown(self.a_log_at, self.nlog + 1)
                self.a_log_old = grown(self.a_log_old, self.nlog + 1)
                self.log_at, self.log_old = self.a_log_at, self.a_log_old
            self.log_at[self.nlog] = i
            self.log_old[self.nlog] = old
            self.nlog += 1
        return 0

    cdef int _dead(self, int start) except -1:
        """The size of the group at ``start`` (its stones in ``grp``) if it has no
        liberty, else 0 (:func:`gohash.pipeline._board.dead_group`)."""
        self.gen += 1
        if self.gen == 0x7FFFFFFF:
            self.mark[:] = 0
            self.gen = 1
        return dead_group(&self.cells[0], start, &self.nb[0], &self.mark[0], self.gen,
                          &self.grp[0])

    cdef int _play(self, int i, int me) except -1:
        cdef int opp = 3 - me, captured = 0, single = -1, j, q, length, s
        cdef const int8_t* cells = &self.cells[0]
        cdef const int32_t* nb = &self.nb[0]
        cdef const int32_t* at = &self.nb[NB * i]
        if cells[i]:
            return self._bail("occupied point")
        if i == self.ko and me == self.ko_colour:
            return self._bail("ko")
        self._put(i, me)
        for j in range(1, 1 + at[0]):
            q = at[j]
            if cells[q] != opp or has_liberty(cells, q, nb):
                continue
            length = self._dead(q)
            for s in range(length):
                self._put(self.grp[s], 0)
            captured += length
            if length:
                single = self.grp[0]
        if captured == 0 and not has_liberty(cells, i, nb) and self._dead(i):
            return self._bail("suicide")
        self.ko = -1
        if captured == 1:
            self.ko = single
            for j in range(1, 1 + at[0]):
                q = at[j]
                if cells[q] != opp and q != single:
                    self.ko = -1
                    break
            if self.ko >= 0:
                self.ko_colour = opp
        self.to_move = opp
        return True

    cdef int _setup(self, int32_t node) except -1:
        cdef Scanner sc = self.scanner
        cdef int32_t first = sc.n_setup[node], end = sc.n_setup_end[node], e
        cdef int kind, i, j, q, a, b
        cdef const int32_t* at
        for kind in (P_AB, P_AW, P_AE):
            for e in range(first, end):
                if sc.s_type[e] != kind:
                    continue
                a, b = sc.s_a[e], sc.s_b[e]
                if a >= self.size or b >= self.size:
                    return self._bail("setup coordinates")
                self._put((self.size - 1 - b) * self.size + a, kind - P_AB + 1 if kind != P_AE else 0)
        for e in range(first, end):
            i = (self.size - 1 - sc.s_b[e]) * self.size + sc.s_a[e]
            if self.cells[i] and self._dead(i):
                return self._bail("setup leaves a group without liberties")
            at = &self.nb[NB * i]
            for j in range(1, 1 + at[0]):
                q = at[j]
                if self.cells[q] and self._dead(q):
                    return self._bail("setup leaves a group without liberties")
        self.ko = -1
        return True

    cdef int _replay_game(
        self, int32_t ev_start, int32_t ev_end, int size, int game, int file_id
    ) except -1:
        cdef int32_t e, event, node, k, parent
        cdef int depth = 1, colour, point, a, b
        cdef bint is_root = True, setup
        cdef Scanner sc = self.scanner
        self._start_board(size)
        self.path_len = 0
        self.path_id = 0
        self.path_dirty = False
        # The game's own "(": nothing to restore at its end.
        self.st_seen[0] = 0
        self.st_open[0] = OPEN0 - sc.ev[ev_start]
        for e in range(ev_start + 1, ev_end):
            event = sc.ev[e]
            if event >= 0:
                node = event
                colour = sc.n_colour[node]
                setup = sc.n_setup_end[node] > sc.n_setup[node]
                if not (colour or setup or is_root):
                    continue
                if setup and not self._setup(node):
                    return False
                point = -1
                if colour:
                    self.move_number += 1
                    a, b = sc.n_a[node], sc.n_b[node]
                    if a >= 0 and a < size and b < size:
                        point = (size - 1 - b) * size + a
                        if not self._play(point, colour):
                            return False
                    elif a < 0 or (a == 19 and b == 19 and size <= 19):
                        self.ko = -1
                        self.to_move = 3 - colour
                    else:
                        return self._bail("coordinates off the board")
                if is_root:
                    is_root = False
                    self._emit(file_id, game, 0, -1, setup)
                else:
                    self._emit(file_id, game, colour, point, setup)
            elif event <= OPEN0:
                k = OPEN0 - event
                parent = self.st_open[depth - 1]
                self.st_log[depth] = self.nlog
                self.st_move[depth] = self.move_number
                self.st_visited[depth] = self.visited
                self.st_path[depth] = self.path_len
                self.st_seen[depth] = 0
                self.st_open[depth] = k
                self.st_ko[depth] = self.ko
                self.st_ko_colour[depth] = self.ko_colour
                self.st_to_move[depth] = self.to_move
                if self.variations and sc.children[parent] >= 2:
                    self.path[self.path_len] = self.st_seen[depth - 1]
                    self.path_len += 1
                    self.path_dirty = True
                self.st_seen[depth - 1] += 1
                depth += 1
            else:
                depth -= 1
                if depth == 0 or not self.variations:
                    return True
                self.logging = False
                while self.nlog > self.st_log[depth]:
                    self.nlog -= 1
                    self._put(self.log_at[self.nlog], self.log_old[self.nlog])
                self.logging = True
                self.move_number = self.st_move[depth]
                self.visited = self.st_visited[depth]
                self.ko = self.st_ko[depth]
                self.ko_colour = self.st_ko_colour[depth]
                self.to_move = self.st_to_move[depth]
                if self.path_len != self.st_path[depth]:
                    self.path_len = self.st_path[depth]
                    self.path_dirty = True
        return True

    cdef int _emit(self, int file_id, int game, int colour, int point, bint setup) except -1:
        cdef Py_ssize_t r = self.n
        cdef int end, j
        if r == self.o_file.shape[0]:
            self._grow_columns()
        if self.path_dirty:
            end = self.path_len
            while end and self.path[end - 1] == 0:
                end -= 1
            key = tuple([self.path[j] for j in range(end)])
            found = self.path_ids.get(key)
            if found is None:
                found = self.path_ids[key] = len(self.paths)
                self.paths.append(key)
            self.path_id = found
            self.path_dirty = False
        self.o_file[r] = file_id
        self.o_game[r] = game
        self.o_var[r] = self.path_id
        self.o_move[r] = self.move_number
        self.o_colour[r] = colour
        self.o_point[r] = point
        self.o_to_move[r] = self.to_move
        self.o_setup[r] = setup
        self.o_size[r] = self.size
        self.o_depth[r] = self.visited
        self.visited += 1
        self.o_hi[r] = self.hi
        self.o_lo[r] = self.lo
        self._emit_packed(r)
        self.n = r + 1
        return 0

    cdef int _emit_packed(self, Py_ssize_t r) except -1:
        # Apart from _emit: the slice temporaries Cython would make cost every row.
        cdef Py_ssize_t length = 1 + self.packed_len
        if self.nbytes + length > self.o_packed.shape[0]:
            self.a_packed = grown(self.a_packed, self.nbytes + length)
            self.o_packed = self.a_packed
        # Both ends of the copy are checked (the last byte's index too).
        self.o_packed[self.nbytes + length - 1] = self.pk[length - 1]
        memcpy(&self.o_packed[self.nbytes], &self.pk[0], length)
        self.nbytes += length
        self.o_offsets[r + 1] = self.nbytes
        return 0
