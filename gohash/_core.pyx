# cython: language_level=3, boundscheck=True, wraparound=False, cdivision=True
"""The compiled fast path of :func:`gohash.positions.positions`: clean SGF files only.

Scope: one strict pass over a file's bytes (SGF tokens, the tree's shape, the
values of B, W, AB, AW, AE and of the root's SZ, CA, HA and text properties),
then the replay of every game (captures, simple ko, suicide, setup, undo back
to branch points) with the position hash of a key scheme and the exact packed
position, written to growing columns.

The design is a strict fast path.  Anything this module is not sure to do
exactly as :mod:`gohash.walk` does -- any syntax irregularity or limit, NUL
bytes, lower-case letters in a property name, a value of B/W/AB/AW/AE that is
not two lower-case letters (or an empty move), a point list rectangle, a root
SZ other than 1..26 as plain digits, HA other than plain digits, HA of 2 or
more without AB in the root, a move in the root, any illegal move, two moves in a
row by one colour before the other has moved (handicap played as moves), setup
that leaves a group without liberties, a file over 64 MiB -- makes
:meth:`Replayer.add_file` return None with nothing written, and the Python
layer replays that file with the pure walker.  So errors and notes are always
the walker's own.

Bounds checks stay on; indices into the board arrays come from the
neighbour table of the game's size.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy
from cpython.unicode cimport PyUnicode_DecodeASCII

import numpy as np

cdef enum:
    MAX_SIZE = 26
    MAX_POINTS = MAX_SIZE * MAX_SIZE
    MAX_PACKED = 1 + (MAX_POINTS + 3) // 4
    MAX_VALUE = 1024 * 1024  # gohash.sgf.MAX_VALUE_BYTES
    MAX_SOURCE = 64 * 1024 * 1024  # gohash.sgf.MAX_SOURCE_BYTES
    # Far below the pure reader's 1,000,000: deeper files go to the walker.
    MAX_DEPTH = 10000
    CLOSE = -1
    OPEN0 = -2  # "(" number k is the event OPEN0 - k
    # Kinds of property the replay reads.
    P_OTHER = 0
    P_B = 1
    P_W = 2
    P_AB = 3
    P_AW = 4
    P_AE = 5

cdef uint64_t LOW7 = 0x7F7F7F7F7F7F7F7FULL
cdef uint64_t HIGH1 = 0x8080808080808080ULL

TEXT_PROPERTIES = tuple(
    (name, name.encode("ascii"))
    for name in ("PB", "PW", "BR", "WR", "RE", "KM", "GN", "DT", "EV", "RU")
)
ROOT_PROPERTIES = frozenset(
    (b"SZ", b"CA", b"HA", b"PB", b"PW", b"BR", b"WR", b"RE", b"KM", b"GN", b"DT", b"EV", b"RU")
)


cdef inline bint _is_space(uint8_t c) noexcept:
    # The whitespace of a bytes regex's \s, which the pure parser skips.
    return c == 32 or 9 <= c <= 13


cdef inline uint64_t _byte_add(uint64_t a, uint64_t b) noexcept:
    return ((a & LOW7) + (b & LOW7)) ^ ((a ^ b) & HIGH1)


cdef inline uint64_t _byte_sub(uint64_t a, uint64_t b) noexcept:
    return ((a | HIGH1) - (b & LOW7)) ^ ((a ^ ~b) & HIGH1)


def _grown(array, Py_ssize_t need):
    """A copy of ``array`` with room for at least ``need`` rows."""
    cdef Py_ssize_t cap = max(need, 2 * array.shape[0], 64)
    out = np.empty((cap,) + array.shape[1:], dtype=array.dtype)
    out[: array.shape[0]] = array
    return out


cdef class Replayer:
    """Collects the positions of clean files into columns until :meth:`take`.

    ``keys_for(size)`` returns a scheme's keys as a ``uint64`` array of shape
    ``(2 * size * size, 2)``: black keys then white keys, high and low words
    (the low word 0 for 64-bit schemes).  ``add`` selects byte-wise addition
    instead of XOR.
    """

    cdef bint variations, packed, add
    cdef object keys_for
    cdef list key_cache
    cdef public str reason
    # -- output columns
    cdef Py_ssize_t n, nbytes, mark_n, mark_bytes, mark_paths
    cdef object a_file, a_game, a_var, a_move, a_colour, a_point, a_to_move
    cdef object a_setup, a_size, a_hi, a_lo, a_packed, a_offsets
    cdef int32_t[:] o_file, o_game, o_var, o_move
    cdef int8_t[:] o_colour, o_to_move
    cdef int16_t[:] o_point
    cdef uint8_t[:] o_setup, o_size, o_packed
    cdef uint64_t[:] o_hi, o_lo
    cdef int64_t[:] o_offsets
    cdef dict path_ids
    cdef list paths
    # -- one file's scan
    cdef Py_ssize_t nev, nnodes, nsetup, nopen
    cdef object a_ev, a_ncolour, a_na, a_nb, a_nsetup, a_nsetup_end
    cdef object a_stype, a_sa, a_sb, a_children
    cdef int32_t[:] ev, n_setup, n_setup_end, children
    cdef int8_t[:] n_colour, n_a, n_b, s_type, s_a, s_b
    cdef int32_t[:] ostack
    # -- the board
    cdef int size, npts, ko, ko_colour, to_move, last_mover, movers, move_number
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
    cdef int32_t[:] st_move, st_path, st_seen, st_open, st_ko, st_ko_colour, st_to_move, st_last
    cdef int32_t[:] path
    cdef int path_len
    cdef bint path_dirty
    cdef int32_t path_id

    def __init__(self, keys_for, *, bint variations, bint packed, bint add, Py_ssize_t capacity):
        self.keys_for = keys_for
        self.variations = variations
        self.packed = packed
        self.add = add
        self.key_cache = [None] * (MAX_SIZE + 1)
        self.reason = ""
        self._new_columns(max(capacity, 64))
        self.a_ev = np.empty(1024, np.int32)
        self.a_ncolour = np.empty(512, np.int8)
        self.a_na = np.empty(512, np.int8)
        self.a_nb = np.empty(512, np.int8)
        self.a_nsetup = np.empty(512, np.int32)
        self.a_nsetup_end = np.empty(512, np.int32)
        self.a_stype = np.empty(64, np.int8)
        self.a_sa = np.empty(64, np.int8)
        self.a_sb = np.empty(64, np.int8)
        self.a_children = np.empty(64, np.int32)
        self._bind_scan()
        self.ostack = np.empty(MAX_DEPTH + 1, np.int32)
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
        self.st_last = np.empty(MAX_DEPTH + 1, np.int32)
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
        self.a_hi = np.empty(cap, np.uint64)
        self.a_lo = np.empty(cap, np.uint64)
        self.a_offsets = np.zeros(cap + 1, np.int64)
        self.a_packed = np.empty(cap * 92 if self.packed else 0, np.uint8)
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
        self.o_packed = self.a_packed

    cdef _grow_columns(self):
        cdef Py_ssize_t need = self.n + 1
        self.a_file = _grown(self.a_file, need)
        self.a_game = _grown(self.a_game, need)
        self.a_var = _grown(self.a_var, need)
        self.a_move = _grown(self.a_move, need)
        self.a_colour = _grown(self.a_colour, need)
        self.a_point = _grown(self.a_point, need)
        self.a_to_move = _grown(self.a_to_move, need)
        self.a_setup = _grown(self.a_setup, need)
        self.a_size = _grown(self.a_size, need)
        self.a_hi = _grown(self.a_hi, need)
        self.a_lo = _grown(self.a_lo, need)
        self.a_offsets = _grown(self.a_offsets, need + 1)
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
            "hash_hi": self.a_hi[:n],
            "hash_lo": self.a_lo[:n],
        }
        if self.packed:
            columns["packed_offsets"] = self.a_offsets[: n + 1]
            columns["packed"] = self.a_packed[: self.nbytes]
        paths = self.paths
        self._new_columns(max(n, 64))
        return columns, paths

    def __len__(self):
        return self.n

    def rollback(self):
        """Drop everything the last :meth:`add_file` wrote."""
        self.n = self.mark_n
        self.nbytes = self.mark_bytes
        for p in self.paths[self.mark_paths :]:
            del self.path_ids[p]
        del self.paths[self.mark_paths :]

    # -- one file ---------------------------------------------------------------------------

    def add_file(self, data, int file_id):
        """Replay every game of one file's bytes into the columns.

        Returns for each game its size, HA as a number (0 without), the raw
        CA value or None, and the root's text properties (first values) as
        two dicts by name: those that are printable ASCII without a backslash
        already as ``str`` (SimpleText leaves them as they are), the others as
        raw ``bytes``; or
        None when the file is not handled: nothing is then written and
        :attr:`reason` says why.
        """
        cdef const uint8_t[:] d = data
        self.mark_n, self.mark_bytes, self.mark_paths = self.n, self.nbytes, len(self.paths)
        self.reason = ""
        if d.shape[0] > MAX_SOURCE:
            self.reason = "larger than the source limit"
            return None
        games = self._scan(d, data)
        if games is None:
            return None
        roots = []
        for index, (start, end, root, black_setup) in enumerate(games):
            size = _root_size(root, black_setup)
            if size == 0:
                self.reason = "root SZ, or HA without AB"
                self.rollback()
                return None
            if not self._replay_game(start, end, size, index, file_id):
                self.rollback()
                return None
            roots.append((size, _handicap(root), root.get(b"CA")) + _text(root))
        return roots

    cdef int _bail(self, str reason) except -1:
        self.reason = reason
        return False

    cdef _bind_scan(self):
        self.ev = self.a_ev
        self.n_colour, self.n_a, self.n_b = self.a_ncolour, self.a_na, self.a_nb
        self.n_setup, self.n_setup_end = self.a_nsetup, self.a_nsetup_end
        self.s_type, self.s_a, self.s_b = self.a_stype, self.a_sa, self.a_sb
        self.children = self.a_children

    cdef int _push_event(self, int32_t event) except -1:
        if self.nev == self.ev.shape[0]:
            self.a_ev = _grown(self.a_ev, self.nev + 1)
            self._bind_scan()
        self.ev[self.nev] = event
        self.nev += 1
        return 0

    cdef int32_t _new_node(self) except -1:
        if self.nnodes == self.n_colour.shape[0]:
            need = self.nnodes + 1
            self.a_ncolour = _grown(self.a_ncolour, need)
            self.a_na = _grown(self.a_na, need)
            self.a_nb = _grown(self.a_nb, need)
            self.a_nsetup = _grown(self.a_nsetup, need)
            self.a_nsetup_end = _grown(self.a_nsetup_end, need)
            self._bind_scan()
        cdef int32_t node = <int32_t>self.nnodes
        self.n_colour[node] = 0
        self.n_setup[node] = self.n_setup_end[node] = <int32_t>self.nsetup
        self.nnodes += 1
        return node

    cdef int _new_open(self) except -1:
        if self.nopen == self.children.shape[0]:
            self.a_children = _grown(self.a_children, self.nopen + 1)
            self._bind_scan()
        self.children[self.nopen] = 0
        self.nopen += 1
        return 0

    cdef int _add_setup(self, int kind, int a, int b) except -1:
        if self.nsetup == self.s_type.shape[0]:
            need = self.nsetup + 1
            self.a_stype = _grown(self.a_stype, need)
            self.a_sa = _grown(self.a_sa, need)
            self.a_sb = _grown(self.a_sb, need)
            self._bind_scan()
        self.s_type[self.nsetup] = kind
        self.s_a[self.nsetup] = a
        self.s_b[self.nsetup] = b
        self.nsetup += 1
        return 0

    cdef object _scan(self, const uint8_t[:] d, object data):
        """The games of the file as ``(first event, end event, root properties)``,
        or None (with :attr:`reason`) for anything unusual."""
        cdef Py_ssize_t n = d.shape[0], pos = 0, start, ilen, vstart, first_start, first_end
        cdef int depth, kind, nvals, c
        cdef int32_t node, root, ev_start
        cdef bint need_node, after_child
        cdef const uint8_t* p
        self.nev = self.nnodes = self.nsetup = self.nopen = 0
        games = []
        if n == 0:
            self._bail("no game")
            return None
        # The byte loops read through a pointer: every read is of p[pos] after
        # pos < n is checked (the memoryview's own check would repeat it per byte).
        p = &d[0]
        while True:
            while pos < n and _is_space(p[pos]):
                pos += 1
            if pos == n:
                break
            if p[pos] != 40:  # "("
                self._bail("data outside a game")
                return None
            ev_start = <int32_t>self.nev
            root = node = -1
            depth = 0
            need_node = after_child = False
            props = {}
            while True:
                while pos < n and _is_space(p[pos]):
                    pos += 1
                if pos == n:
                    self._bail("unterminated game")
                    return None
                c = p[pos]
                if c == 40:  # "("
                    if need_node or depth >= MAX_DEPTH:
                        self._bail("empty variation or nesting too deep")
                        return None
                    node = -1
                    if depth > 0:
                        self.children[self.ostack[depth - 1]] += 1
                    self.ostack[depth] = <int32_t>self.nopen
                    self._push_event(OPEN0 - <int32_t>self.nopen)
                    self._new_open()
                    depth += 1
                    need_node, after_child = True, False
                    pos += 1
                elif c == 41:  # ")"
                    if need_node:
                        self._bail("empty variation")
                        return None
                    node = -1
                    depth -= 1
                    self._push_event(CLOSE)
                    after_child = True
                    pos += 1
                    if depth == 0:
                        break
                elif c == 59:  # ";"
                    if after_child:
                        self._bail("node after a variation")
                        return None
                    node = self._new_node()
                    if root < 0:
                        root = node
                    self._push_event(node)
                    need_node = False
                    pos += 1
                elif 65 <= c <= 90:  # "A".."Z"
                    if node < 0:
                        self._bail("property outside a node")
                        return None
                    start = pos
                    while pos < n and 65 <= p[pos] <= 90:
                        pos += 1
                    ilen = pos - start
                    if ilen > 64 or (pos < n and 97 <= p[pos] <= 122):
                        self._bail("property name")
                        return None
                    kind = _kind(d, start, ilen)
                    while pos < n and _is_space(p[pos]):
                        pos += 1
                    if pos == n or p[pos] != 91:  # "["
                        self._bail("property without a value")
                        return None
                    nvals = 0
                    first_start = pos + 1
                    first_end = -1
                    while True:
                        vstart = pos + 1
                        pos = vstart
                        while pos < n and p[pos] != 93:  # "]"
                            if p[pos] == 0:
                                self._bail("NUL byte")
                                return None
                            pos += 2 if p[pos] == 92 else 1  # "\" escapes the next byte
                        if pos >= n:
                            self._bail("unterminated value")
                            return None
                        if first_end < 0:
                            first_end = pos
                        if kind != P_OTHER and not self._value(kind, node, nvals, d, vstart, pos):
                            return None
                        nvals += 1
                        pos += 1
                        while pos < n and _is_space(p[pos]):
                            pos += 1
                        if pos == n or p[pos] != 91:
                            break
                    if pos - start > MAX_VALUE:
                        self._bail("value beyond the limit")
                        return None
                    if node == root and ilen == 2:
                        # The walker reads the first value, of the first occurrence.
                        name = data[start : start + 2]
                        if name in ROOT_PROPERTIES and name not in props:
                            props[name] = data[first_start:first_end]
                    if node == root and (kind == P_B or kind == P_W):
                        self._bail("move in the root")
                        return None
                else:
                    self._bail("unexpected byte")
                    return None
            games.append((ev_start, <int32_t>self.nev, props, _has_black_setup(self, root)))
        if not games:
            self._bail("no game")
            return None
        return games

    cdef int _value(self, int kind, int32_t node, int nvals, const uint8_t[:] d,
                    Py_ssize_t start, Py_ssize_t end) except -1:
        """Record one value of B, W, AB, AW or AE; False (with a reason) if unusual."""
        cdef Py_ssize_t length = end - start
        cdef int a = -1, b = -1
        if length == 2:
            a, b = d[start] - 97, d[start + 1] - 97
            if not (0 <= a < 26 and 0 <= b < 26):
                return self._bail("coordinates")
        elif length != 0 or kind > P_W:
            return self._bail("coordinates")
        if kind <= P_W:
            if nvals or self.n_colour[node]:
                return self._bail("move values")
            self.n_colour[node] = kind
            self.n_a[node], self.n_b[node] = a, b
        else:
            self._add_setup(kind, a, b)
            self.n_setup_end[node] = <int32_t>self.nsetup
        return True

    # -- replay -----------------------------------------------------------------------------

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
        self.last_mover = 0
        self.movers = 0
        self.move_number = 0
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
                self.a_log_at = _grown(self.a_log_at, self.nlog + 1)
                self.a_log_old = _grown(self.a_log_old, self.nlog + 1)
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
        cdef int32_t first = self.n_setup[node], end = self.n_setup_end[node], e
        cdef int kind, i, j, q, a, b
        for kind in (P_AB, P_AW, P_AE):
            for e in range(first, end):
                if self.s_type[e] != kind:
                    continue
                a, b = self.s_a[e], self.s_b[e]
                if a >= self.size or b >= self.size:
                    return self._bail("setup coordinates")
                self._put((self.size - 1 - b) * self.size + a, kind - P_AB + 1 if kind != P_AE else 0)
        for e in range(first, end):
            i = (self.size - 1 - self.s_b[e]) * self.size + self.s_a[e]
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
        self._start_board(size)
        self.path_len = 0
        self.path_id = 0
        self.path_dirty = False
        # The game's own "(": nothing to restore at its end.
        self.st_seen[0] = 0
        self.st_open[0] = OPEN0 - self.ev[ev_start]
        for e in range(ev_start + 1, ev_end):
            event = self.ev[e]
            if event >= 0:
                node = event
                colour = self.n_colour[node]
                setup = self.n_setup_end[node] > self.n_setup[node]
                if not (colour or setup or is_root):
                    continue
                if setup and not self._setup(node):
                    return False
                point = -1
                if colour:
                    self.move_number += 1
                    if colour == self.last_mover and self.movers != 3:
                        return self._bail("two moves in a row by one colour at the start")
                    a, b = self.n_a[node], self.n_b[node]
                    if a >= 0 and a < size and b < size:
                        point = (size - 1 - b) * size + a
                        if not self._play(point, colour):
                            return False
                    elif a < 0 or (a == 19 and b == 19 and size <= 19):
                        self.ko = -1
                        self.to_move = 3 - colour
                    else:
                        return self._bail("coordinates off the board")
                    self.last_mover = colour
                    self.movers |= colour
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
                self.st_path[depth] = self.path_len
                self.st_seen[depth] = 0
                self.st_open[depth] = k
                self.st_ko[depth] = self.ko
                self.st_ko_colour[depth] = self.ko_colour
                self.st_to_move[depth] = self.to_move
                self.st_last[depth] = self.last_mover | self.movers << 2
                if self.variations and self.children[parent] >= 2:
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
                self.ko = self.st_ko[depth]
                self.ko_colour = self.st_ko_colour[depth]
                self.to_move = self.st_to_move[depth]
                self.last_mover = self.st_last[depth] & 3
                self.movers = self.st_last[depth] >> 2
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
        self.o_hi[r] = self.hi
        self.o_lo[r] = self.lo
        if self.packed:
            self._emit_packed(r)
        self.n = r + 1
        return 0

    cdef int _emit_packed(self, Py_ssize_t r) except -1:
        # Apart from _emit: the slice temporaries Cython would make cost every row.
        cdef Py_ssize_t length = 1 + self.packed_len
        if self.nbytes + length > self.o_packed.shape[0]:
            self.a_packed = _grown(self.a_packed, self.nbytes + length)
            self.o_packed = self.a_packed
        # Both ends of the copy are checked (the last byte's index too).
        self.o_packed[self.nbytes + length - 1] = self.pk[length - 1]
        memcpy(&self.o_packed[self.nbytes], &self.pk[0], length)
        self.nbytes += length
        self.o_offsets[r + 1] = self.nbytes
        return 0


cdef int _kind(const uint8_t[:] d, Py_ssize_t start, Py_ssize_t length) except -1:
    cdef uint8_t first = d[start], second
    if length == 1:
        return P_B if first == 66 else P_W if first == 87 else P_OTHER
    if length == 2 and first == 65:  # "A"
        second = d[start + 1]
        return P_AB if second == 66 else P_AW if second == 87 else P_AE if second == 69 else P_OTHER
    return P_OTHER


cdef int _has_black_setup(Replayer self, int32_t root) except -1:
    cdef int32_t e
    for e in range(self.n_setup[root], self.n_setup_end[root]):
        if self.s_type[e] == P_AB:
            return True
    return False


def _root_size(dict root, bint black_setup):
    """The board size of a root as the walker reads it, or 0 where the core leaves
    the game to the walker: SZ not plain digits in 1..26, HA not plain digits,
    or HA of 2 or more without AB in the root (where the walker looks further)."""
    value = root.get(b"SZ", b"19")
    if not (value.isdigit() and len(value) <= 3 and 1 <= int(value) <= MAX_SIZE):
        return 0
    handicap = root.get(b"HA")
    if handicap is not None and not (
        handicap.isdigit() and len(handicap) <= 3 and (black_setup or int(handicap) < 2)
    ):
        return 0
    return int(value)


def _handicap(dict root):
    value = root.get(b"HA")
    return 0 if value is None else int(value)


def _text(dict root):
    """The text properties of a root: plain values as ``str``, others as ``bytes``."""
    plain = {}
    raw = {}
    for name, key in TEXT_PROPERTIES:
        value = root.get(key)
        if value is not None:
            text = _plain(value)
            if text is None:
                raw[name] = value
            else:
                plain[name] = text
    return plain, raw


cdef object _plain(bytes value):
    cdef const unsigned char* p = value
    cdef Py_ssize_t i, n = len(value)
    for i in range(n):  # i < len(value): in range
        if p[i] < 32 or p[i] > 126 or p[i] == 92:
            return None
    return PyUnicode_DecodeASCII(<const char*>p, n, NULL)
