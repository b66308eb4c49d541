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

Bounds checks stay on, but for two byte copies whose ends are checked; indices
into the board arrays come from the neighbour table of the game's size.
"""

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.string cimport memcpy

from ._scan cimport MAX_DEPTH, OPEN0, P_AB, P_AE, P_AW, Scanner

import numpy as np

from gohash.errors import StoredGameError

from ._scan import TEXT_PROPERTIES, grown  # TEXT_PROPERTIES: for the Python layer

cdef enum:
    MAX_SIZE = 26
    MAX_POINTS = MAX_SIZE * MAX_SIZE
    MAX_PACKED = 1 + (MAX_POINTS + 3) // 4
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
    cdef uint8_t[:] cells, pk
    cdef int32_t[:] nb, nbc, mark, grp
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
        self.cells = np.zeros(MAX_POINTS, np.uint8)
        self.pk = np.zeros(MAX_PACKED, np.uint8)
        self.nb = np.zeros(4 * MAX_POINTS, np.int32)
        self.nbc = np.zeros(MAX_POINTS, np.int32)
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
        cdef int i, row, col, k
        if size != self.size:
            self.size = size
            self.npts = size * size
            for i in range(self.npts):
                row, col = i // size, i % size
                k = 0
                if row > 0:
                    self.nb[4 * i + k] = i - size
                    k += 1
                if row < size - 1:
                    self.nb[4 * i + k] = i + size
                    k += 1
                if col > 0:
                    self.nb[4 * i + k] = i - 1
                    k += 1
                if col < size - 1:
                    self.nb[4 * i + k] = i + 1
                    k += 1
                self.nbc[i] = k
            self.packed_len = (self.npts + 3) // 4
            self.pad_digits = 4 * self.packed_len - self.npts
        keys = self.key_cache[size]
        if keys is None:
            keys = self.key_cache[size] = self.keys_for(size)
        if keys.shape != (2 * self.npts, 2):
            raise ValueError(f"key table of shape {keys.shape!r} for size {size}")
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
        liberty, else 0; stops at the first liberty."""
        cdef int colour = self.cells[start], length = 1, k = 0, s, j, q, c
        self.gen += 1
        if self.gen == 0x7FFFFFFF:
            self.mark[:] = 0
            self.gen = 1
        self.mark[start] = self.gen
        self.grp[0] = start
        while k < length:
            s = self.grp[k]
            k += 1
            for j in range(4 * s, 4 * s + self.nbc[s]):
                q = self.nb[j]
                c = self.cells[q]
                if c == 0:
                    return 0
                if c == colour and self.mark[q] != self.gen:
                    self.mark[q] = self.gen
                    self.grp[length] = q
                    length += 1
        return length

    cdef int _play(self, int i, int me) except -1:
        cdef int opp = 3 - me, captured = 0, single = -1, j, m, q, length, s
        cdef bint free
        if self.cells[i]:
            return self._bail("occupied point")
        if i == self.ko and me == self.ko_colour:
            return self._bail("ko")
        self._put(i, me)
        for j in range(4 * i, 4 * i + self.nbc[i]):
            q = self.nb[j]
            if self.cells[q] != opp:
                continue
            free = False
            for m in range(4 * q, 4 * q + self.nbc[q]):
                if self.cells[self.nb[m]] == 0:
                    free = True
                    break
            if free:
                continue
            length = self._dead(q)
            for s in range(length):
                self._put(self.grp[s], 0)
            captured += length
            if length:
                single = self.grp[0]
        if captured == 0:
            free = False
            for j in range(4 * i, 4 * i + self.nbc[i]):
                if self.cells[self.nb[j]] == 0:
                    free = True
                    break
            if not free and self._dead(i):
                return self._bail("suicide")
        self.ko = -1
        if captured == 1:
            self.ko = single
            for j in range(4 * i, 4 * i + self.nbc[i]):
                q = self.nb[j]
                if self.cells[q] != opp and q != single:
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
            for j in range(4 * i, 4 * i + self.nbc[i]):
                q = self.nb[j]
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



# -- frames -----------------------------------------------------------------------------------


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


@cython.boundscheck(False)
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

    Every index is checked once, before it is used (rows, elements, the point
    table, both ends of every packed position), so the inner loops run without
    per-access checks: they are most of the cost of the frames.  A byte is
    unpacked by one table look-up, and each byte of the image is four digits
    gathered through a table of digit indexes made once per call.
    """
    cdef int npts = size * size, length = (npts + 3) // 4, pad = 4 * length - npts
    cdef int k, b, g, zero = 4 * length
    cdef unsigned int v
    cdef Py_ssize_t i, r, src, dst
    cdef uint8_t digits[4 * MAX_PACKED + 1]
    cdef const int32_t* t
    if not 1 <= size <= MAX_SIZE or gathers.shape[1] != npts:
        raise ValueError(f"a point table of {gathers.shape[1]} points for size {size}")
    if which.shape[0] != rows.shape[0] or out_offsets.shape[0] != offsets.shape[0]:
        raise ValueError("rows, elements and offsets of different lengths")
    # Digit j of element g's image is digits[table[g, j]]: the pad digits read
    # the zero after the last digit, whatever the source's pad bits hold.
    table_array = np.empty((gathers.shape[0], 4 * length), dtype=np.int32)
    cdef int32_t[:, ::1] table = table_array
    for g in range(gathers.shape[0]):
        for k in range(pad):
            table[g, k] = zero
        for k in range(npts):
            if not 0 <= gathers[g, k] < npts:
                raise ValueError(f"point table entry {gathers[g, k]} off a {size}x{size} board")
            table[g, pad + k] = pad + gathers[g, k]
    digits[zero] = 0
    for i in range(rows.shape[0]):
        r = rows[i]
        if not 0 <= r < offsets.shape[0] or which[i] >= gathers.shape[0]:
            raise ValueError(f"row {r} or element {which[i]} out of range")
        src = offsets[r] + 1
        dst = out_offsets[r]
        if src < 1 or src + length > data.shape[0] or dst < 0 or dst + 1 + length > out.shape[0]:
            raise ValueError(f"packed position of row {r} out of its buffer")
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


@cython.boundscheck(False)
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
    no symmetry costs a few points per element, not a whole board.
    """
    cdef int npts = size * size, length = (npts + 3) // 4, pad = 4 * length - npts
    cdef int count = gathers.shape[0], k, g, best, a, b, stones
    cdef Py_ssize_t i, r, src
    cdef uint16_t mask
    cdef uint8_t digits[4 * MAX_PACKED]
    cdef uint8_t* cells
    cdef uint8_t swapped[3]
    swapped[0], swapped[1], swapped[2] = 0, 2, 1
    if not 1 <= size <= MAX_SIZE or gathers.shape[1] != npts or not 1 <= count <= 16:
        raise ValueError(f"a point table of {count} x {gathers.shape[1]} points for size {size}")
    if attains.shape[0] != rows.shape[0]:
        raise ValueError("rows and masks of different lengths")
    for g in range(count):
        for k in range(npts):
            if not 0 <= gathers[g, k] < npts:
                raise ValueError(f"point table entry {gathers[g, k]} off a {size}x{size} board")
    symmetries = np.zeros(rows.shape[0], dtype=np.uint16)
    which = np.zeros(rows.shape[0], dtype=np.uint8)
    cdef uint16_t[:] stabilizer = symmetries
    cdef uint8_t[:] lowest = which
    for i in range(rows.shape[0]):
        r = rows[i]
        if not 0 <= r < offsets.shape[0]:
            raise ValueError(f"row {r} out of range")
        src = offsets[r] + 1
        if src < 1 or src + length > data.shape[0]:
            raise ValueError(f"packed position of row {r} out of its buffer")
        if attains[i] == 0 or attains[i] >> count:
            raise ValueError(f"elements {attains[i]:#x} attaining the key of row {r}")
        stones = 0
        _unpack(&data[src], length, digits)
        cells = &digits[pad]
        for k in range(npts):
            if cells[k] == 3:
                raise ValueError(f"packed position of row {r} holds a point of value 3")
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




@cython.boundscheck(False)
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
    schemes, which does it with numpy a whole image at a time.
    """
    cdef Py_ssize_t n = hashes.shape[0], i, ntied = 0
    cdef int words = hashes.shape[1], count = perms.shape[0], g, j, attained
    cdef int per_word = 64 // slot_bits if slot_bits else 0
    cdef uint64_t mask = (1ULL << slot_bits) - 1 if 0 < slot_bits < 64 else 0
    cdef uint64_t hi, lo, best_hi, best_lo
    cdef uint8_t slots[16]
    cdef uint8_t table[16][16]
    if slot_bits not in (4, 8) or words * 64 != 16 * slot_bits:
        raise ValueError(f"{words} words of 16 slots of {slot_bits} bits")
    if not 1 <= count <= 16 or perms.shape[1] != 16:
        raise ValueError(f"a slot table of {count} x {perms.shape[1]}")
    if keys.shape[0] != n or keys.shape[1] != words or lowest.shape[0] != n:
        raise ValueError("hashes, keys and elements of different lengths")
    for g in range(count):
        for j in range(16):
            if not 0 <= perms[g, j] < 16:
                raise ValueError(f"slot table entry {perms[g, j]}")
            table[g][j] = perms[g, j]
    tied_array = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[:] tied = tied_array
    for i in range(n):
        for j in range(16):
            slots[j] = (hashes[i, j // per_word] >> (64 - slot_bits * (j % per_word + 1))) & mask
        best_hi = best_lo = 0
        attained = 0
        for g in range(count):
            hi = lo = 0
            for j in range(per_word):
                hi = (hi << slot_bits) | slots[table[g][j]]
            if words == 2:
                for j in range(per_word, 16):
                    lo = (lo << slot_bits) | slots[table[g][j]]
            if g == 0 or hi < best_hi or (hi == best_hi and lo < best_lo):
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


# -- stored games (gohash.index.games) ------------------------------------------------------

cdef enum:
    TAG_MOVE = 0
    TAG_SETUP = 1
    TAG_PARENT = 2
    NO_POINT = 1023


cdef int _take_dead(int8_t* cells, int start, const int32_t* nb, int32_t* mark, int32_t gen,
                    int32_t* stack) noexcept:
    """Remove the group at ``start`` if it has no liberty; the stones removed."""
    cdef int8_t colour = cells[start]
    cdef int count = 1, i = 0, k, q, r
    stack[0] = start
    mark[start] = gen
    while i < count:
        q = stack[i]
        for k in range(4):
            r = nb[q * 4 + k]
            if r < 0:
                continue
            if cells[r] == 0:
                return 0
            if cells[r] == colour and mark[r] != gen:
                mark[r] = gen
                stack[count] = r
                count += 1
        i += 1
    for i in range(count):
        cells[stack[i]] = 0
    return count


cdef void _neighbours(int size, int32_t* nb) noexcept:
    cdef int p, row, col
    for p in range(size * size):
        row = p // size
        col = p % size
        nb[p * 4] = p - size if row > 0 else -1
        nb[p * 4 + 1] = p + size if row < size - 1 else -1
        nb[p * 4 + 2] = p - 1 if col > 0 else -1
        nb[p * 4 + 3] = p + 1 if col < size - 1 else -1


cdef inline void _log_capture(int count, int colour, const int32_t* stack, int32_t* log,
                              Py_ssize_t* nlog) noexcept:
    cdef int i
    if log != NULL:
        for i in range(count):
            log[nlog[0]] = stack[i] << 4 | colour << 2
            nlog[0] += 1


@cython.boundscheck(False)
cdef Py_ssize_t _replay(
    const uint8_t* blob, Py_ssize_t nbytes, int size, Py_ssize_t last, Py_ssize_t nodes,
    int8_t* boards, int8_t* to_move, int8_t* colour, int16_t* point, uint8_t* setup,
    int32_t* parent, int32_t* move_number, const int32_t* nb, int32_t* mark, int32_t* stack,
    bint one_board=False, Visit visit=NULL, void* ctx=NULL, int32_t* log=NULL,
) except -1:
    """The replay of :func:`replay_stored` on raw arrays (rows of ``size * size``
    bytes in ``boards``); ``mark`` and ``stack`` are scratch of a point each.

    With ``one_board`` every node is replayed on ``boards``' first row, which
    needs a line without branches (a main line); ``visit`` (with ``ctx``) is
    called after each node with the points it changed, logged in ``log``
    (room for :data:`MAX_LOG` entries)."""
    cdef int npts = size * size
    cdef Py_ssize_t pos = 0, node = 0, pending = -1, par, j, edits, nlog = 0
    cdef int word, tag, c, p, k, r, taken
    cdef int32_t gen = 0
    cdef int8_t* cells
    for j in range(npts):
        mark[j] = 0
    if last >= nodes:
        last = nodes - 1
    while node <= last and pos < nbytes:
        if pos + 2 > nbytes:
            raise ValueError(f"cut short at byte {pos}")
        word = blob[pos] | (blob[pos + 1] << 8)
        pos += 2
        tag = word >> 12
        c = (word >> 10) & 3
        p = word & 1023
        if tag == TAG_PARENT:
            if pos + 4 > nbytes:
                raise ValueError(f"cut short at byte {pos}")
            pending = blob[pos] | (blob[pos + 1] << 8) | (
                (<Py_ssize_t>blob[pos + 2]) << 16) | ((<Py_ssize_t>blob[pos + 3]) << 24)
            pos += 4
            if pending >= node:
                raise ValueError(f"node {node}'s parent {pending} is not an earlier node")
            continue
        if tag != TAG_MOVE and tag != TAG_SETUP:
            raise ValueError(f"node {node}: unknown tag {tag} at byte {pos - 2}")
        if node == 0:
            if tag != TAG_SETUP or pending >= 0:
                raise ValueError("it does not begin with its initial position's setup")
            par = -1
        else:
            par = node - 1 if pending < 0 else pending
        pending = -1
        nlog = 0
        if not one_board:
            cells = boards + node * npts
            if par >= 0:
                memcpy(cells, boards + par * npts, npts)
        elif par != node - 1:
            raise ValueError(f"node {node}: a branch, replayed on one board")
        else:
            cells = boards
        if par < 0:
            for j in range(npts):
                cells[j] = 0
        parent[node] = <int32_t>par
        if tag == TAG_MOVE:
            if c == 0 or c == 3 or (p != NO_POINT and p >= npts):
                raise ValueError(f"node {node}: no move (colour {c}, point {p})")
            colour[node] = c
            setup[node] = 0
            to_move[node] = 3 - c
            move_number[node] = move_number[par] + 1
            if p == NO_POINT:
                point[node] = -1
            else:
                if cells[p] != 0:
                    raise ValueError(f"node {node}: a stone played on a stone at point {p}")
                point[node] = p
                cells[p] = c
                if log != NULL:
                    log[0] = p << 4 | c
                    nlog = 1
                for k in range(4):
                    r = nb[p * 4 + k]
                    if r >= 0 and cells[r] == 3 - c:
                        gen += 1
                        taken = _take_dead(cells, r, nb, mark, gen, stack)
                        _log_capture(taken, 3 - c, stack, log, &nlog)
                gen += 1
                taken = _take_dead(cells, p, nb, mark, gen, stack)
                _log_capture(taken, c, stack, log, &nlog)
        else:
            if pos + 2 > nbytes:
                raise ValueError(f"cut short at byte {pos}")
            edits = blob[pos] | (blob[pos + 1] << 8)
            pos += 2
            if pos + 2 * edits > nbytes:
                raise ValueError(f"cut short at byte {pos}")
            for j in range(edits):
                word = blob[pos] | (blob[pos + 1] << 8)
                pos += 2
                k = (word >> 10) & 3
                r = word & 1023
                if k == 3 or r >= npts or (word >> 12) != 0:
                    raise ValueError(f"node {node}: setup word {word:#06x} is not a point's colour")
                if log != NULL and cells[r] != k:
                    log[nlog] = r << 4 | cells[r] << 2 | k
                    nlog += 1
                cells[r] = k
            setup[node] = 1
            if par < 0:
                if c == 0 or c == 3:
                    raise ValueError(f"the side to move at first is {c}, not 1 or 2")
                colour[node] = 0
                point[node] = -1
                to_move[node] = c
                move_number[node] = 0
            else:
                if c == 3 or (c != 0 and p != NO_POINT and p >= npts):
                    raise ValueError(f"node {node}: colour {c}, point {p} is no move")
                colour[node] = c
                point[node] = p if c != 0 and p != NO_POINT else -1
                to_move[node] = 3 - c if c != 0 else to_move[par]
                move_number[node] = move_number[par] + (1 if c != 0 else 0)
        if visit != NULL and visit(ctx, node, move_number[node], log, nlog):
            return node + 1
        node += 1
    return node


def replay_stored(
    const uint8_t[::1] blob, int size, Py_ssize_t last, int8_t[:, ::1] boards,
    int8_t[::1] to_move, int8_t[::1] colour, int16_t[::1] point, uint8_t[::1] setup,
    int32_t[::1] parent, int32_t[::1] move_number,
):
    """Replay a stored game (the format of docs/design.md, "Stored games") node by
    node, nodes 0 to ``last`` (or to the end of ``blob`` or of ``boards``), writing
    each node's position, side to move, move, setup flag, parent and move number
    to row ``node`` of the arrays; the number of nodes replayed.

    A move takes the opponent's groups left without liberties, then its own
    (suicide: the build stored legal moves only, so this is the rule they were
    legal under).  Raise ValueError on a blob that is not a stored game: an
    unknown tag, a point off the board, a stone played on a stone, a parent
    that is not an earlier node."""
    cdef Py_ssize_t nodes = boards.shape[0]
    if size < 2 or size > MAX_SIZE or boards.shape[1] != size * size:
        raise ValueError(f"board size {size} and rows of {boards.shape[1]} points do not agree")
    if min(to_move.shape[0], colour.shape[0], point.shape[0], setup.shape[0],
           parent.shape[0], move_number.shape[0]) < nodes:
        raise ValueError("a column shorter than the boards")
    if nodes == 0 or blob.shape[0] == 0:
        return 0
    scratch = np.zeros(size * size * 6, dtype=np.int32)
    cdef int32_t[::1] s = scratch
    cdef int npts = size * size
    _neighbours(size, &s[0])
    return _replay(&blob[0], blob.shape[0], size, last, nodes, &boards[0, 0], &to_move[0],
                   &colour[0], &point[0], &setup[0], &parent[0], &move_number[0], &s[0],
                   &s[npts * 4], &s[npts * 5])


def replay_at(
    const uint8_t[::1] data, const int64_t[::1] offsets, int size, const int32_t[::1] nodes,
    const int32_t[::1] mains, const int32_t[::1] game, const int32_t[::1] seq,
    int8_t[:, ::1] boards, int8_t[::1] to_move, int8_t[::1] next_colour,
    int16_t[::1] next_point, int32_t[::1] move_number,
):
    """Replay many stored games of one ``size`` for the nodes asked of them: game
    ``g``'s blob is ``data[offsets[g]:offsets[g + 1]]`` of ``nodes[g]`` nodes, the
    first ``mains[g]`` its main line.  Row ``i`` asks for node ``seq[i]`` of game
    ``game[i]`` (rows of a game together, games in any order) and gets its
    position, side to move and move number, and the next move on the main line
    (the move of node ``seq + 1`` if both are on it and that node is no setup:
    colour 0 none, 1, 2; point -1 a pass or none).  Raise
    :class:`~gohash.errors.StoredGameError` (``index`` the game) for a game that
    does not replay, and ValueError for a row that asks for no game's node."""
    cdef Py_ssize_t rows = game.shape[0], i = 0, j, first, g, want, done
    cdef int npts = size * size
    if size < 2 or size > MAX_SIZE or boards.shape[1] != npts:
        raise ValueError(f"board size {size} and rows of {boards.shape[1]} points do not agree")
    if boards.shape[0] < rows or to_move.shape[0] < rows or next_colour.shape[0] < rows or (
            next_point.shape[0] < rows or move_number.shape[0] < rows or seq.shape[0] < rows):
        raise ValueError("a column shorter than the rows asked for")
    scratch = np.zeros(npts * 6, dtype=np.int32)
    cdef int32_t[::1] s = scratch
    _neighbours(size, &s[0])
    cdef Py_ssize_t capacity = 0
    cdef int8_t[:, ::1] b
    cdef int8_t[::1] tm, col
    cdef int16_t[::1] pt
    cdef uint8_t[::1] st
    cdef int32_t[::1] par, mn
    while i < rows:
        g = game[i]
        if g < 0 or g + 1 >= offsets.shape[0] or g >= nodes.shape[0] or g >= mains.shape[0]:
            raise ValueError(f"row {i}: no game {g}")
        first = i
        want = 0
        while i < rows and game[i] == g:
            if seq[i] < 0 or seq[i] >= nodes[g]:
                raise ValueError(f"row {i}: game {g} has no node {seq[i]}")
            if seq[i] + 1 > want:
                want = seq[i] + 1
            i += 1
        if want + 1 <= nodes[g]:
            want += 1  # the node after, for the next move
        if want > capacity:
            capacity = max(want, 2 * capacity, 64)
            b = np.zeros((capacity, npts), dtype=np.int8)
            tm = np.zeros(capacity, dtype=np.int8)
            col = np.zeros(capacity, dtype=np.int8)
            pt = np.zeros(capacity, dtype=np.int16)
            st = np.zeros(capacity, dtype=np.uint8)
            par = np.zeros(capacity, dtype=np.int32)
            mn = np.zeros(capacity, dtype=np.int32)
        if offsets[g + 1] <= offsets[g] or offsets[g + 1] > data.shape[0]:
            raise StoredGameError("it is empty", index=g)
        try:
            done = _replay(&data[offsets[g]], offsets[g + 1] - offsets[g], size, want - 1, want,
                           &b[0, 0], &tm[0], &col[0], &pt[0], &st[0], &par[0], &mn[0], &s[0],
                           &s[npts * 4], &s[npts * 5])
        except ValueError as e:
            raise StoredGameError(str(e), index=g) from None
        if done < want:
            raise StoredGameError(f"{done} nodes replayed of {want}", index=g)
        for j in range(first, i):
            memcpy(&boards[j, 0], &b[seq[j], 0], npts)
            to_move[j] = tm[seq[j]]
            move_number[j] = mn[seq[j]]
            if seq[j] + 1 < mains[g] and seq[j] + 1 < want and st[seq[j] + 1] == 0 and (
                    col[seq[j] + 1] != 0):
                next_colour[j] = col[seq[j] + 1]
                next_point[j] = pt[seq[j] + 1]
            else:
                next_colour[j] = 0
                next_point[j] = -1
    return rows
