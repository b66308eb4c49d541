# cython: language_level=3, boundscheck=True, wraparound=False, cdivision=True
"""The strict SGF scan of the compiled core: a file's bytes to games, nodes and moves.

Scope: one pass over a file (SGF tokens, the tree's shape, the values of B, W,
AB, AW, AE, and the root's SZ, CA, HA and text properties) into the arrays
of :class:`Scanner`, which :mod:`gohash.pipeline._sgf_replay` replays.  Anything unusual --
any syntax irregularity or limit of :mod:`gohash.sgf` (and a game of more
nodes than the undo history of :mod:`gohash.go.board` holds), NUL bytes, lower-case
letters in a property name, a value of B/W/AB/AW/AE that is not two
lower-case letters (or an empty move), a point list rectangle, a move in the
root, SZ other than 1..26 as plain digits, HA other than plain digits, HA of 2
or more without an AB before the main line's first move (the walker would
place or note handicap stones) -- ends the scan with a reason, and the file
goes to the pure walker.
"""

from libc.stdint cimport int8_t, int32_t, uint8_t
from cpython.unicode cimport PyUnicode_DecodeASCII

from ._scan cimport (
    MAX_GAME_NODES, MAX_GAME_SETUP, MAX_NODE_SETUP, MAX_NODE_VALUES, MAX_SOURCE_SETUP
)

import numpy as np

from ..metadata import TEXT_PROPERTIES as _TEXT_PROPERTIES

MAX_SIZE = 26
cdef int HANDICAP_LOOKAHEAD = 64  # gohash.sgf.walk._LOOKAHEAD
LIMITS = {
    "node_values": MAX_NODE_VALUES,
    "node_setup_points": MAX_NODE_SETUP,
    "game_setup_points": MAX_GAME_SETUP,
    "source_setup_points": MAX_SOURCE_SETUP,
    "line_nodes": MAX_GAME_NODES,
    "handicap_lookahead": HANDICAP_LOOKAHEAD,
}
"""The limits the scan leaves files to the walker at, for tests to hold against
:mod:`gohash.sgf`'s and :data:`gohash.go.board.MAX_HISTORY`."""
# The text properties come from the one table of game metadata, read at import.
TEXT_PROPERTIES = tuple((name, name.encode("ascii")) for name in _TEXT_PROPERTIES)
ROOT_PROPERTIES = frozenset((b"SZ", b"CA", b"HA") + tuple(key for _, key in TEXT_PROPERTIES))


cdef inline bint _is_space(uint8_t c) noexcept:
    # The whitespace of a bytes regex's \s, which the pure parser skips.
    return c == 32 or 9 <= c <= 13


def grown(array, Py_ssize_t need):
    """A copy of ``array`` with room for at least ``need`` rows."""
    cdef Py_ssize_t cap = max(need, 2 * array.shape[0], 64)
    out = np.empty((cap,) + array.shape[1:], dtype=array.dtype)
    out[: array.shape[0]] = array
    return out


cdef class Scanner:
    """The games, nodes and tree shape of one file at a time (arrays reused)."""

    def __init__(self):
        self.reason = ""
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
        self._bind()
        self.ostack = np.empty(MAX_DEPTH + 1, np.int32)
        self.lstack = np.empty(MAX_DEPTH + 1, np.int32)

    cdef int _bail(self, str reason) except -1:
        self.reason = reason
        return False

    cdef _bind(self):
        self.ev = self.a_ev
        self.n_colour, self.n_a, self.n_b = self.a_ncolour, self.a_na, self.a_nb
        self.n_setup, self.n_setup_end = self.a_nsetup, self.a_nsetup_end
        self.s_type, self.s_a, self.s_b = self.a_stype, self.a_sa, self.a_sb
        self.children = self.a_children

    cdef int _push_event(self, int32_t event) except -1:
        if self.nev == self.ev.shape[0]:
            self.a_ev = grown(self.a_ev, self.nev + 1)
            self._bind()
        self.ev[self.nev] = event
        self.nev += 1
        return 0

    cdef int32_t _new_node(self) except -1:
        if self.nnodes == self.n_colour.shape[0]:
            need = self.nnodes + 1
            self.a_ncolour = grown(self.a_ncolour, need)
            self.a_na = grown(self.a_na, need)
            self.a_nb = grown(self.a_nb, need)
            self.a_nsetup = grown(self.a_nsetup, need)
            self.a_nsetup_end = grown(self.a_nsetup_end, need)
            self._bind()
        cdef int32_t node = <int32_t>self.nnodes
        self.n_colour[node] = 0
        self.n_setup[node] = self.n_setup_end[node] = <int32_t>self.nsetup
        self.nnodes += 1
        return node

    cdef int _new_open(self) except -1:
        if self.nopen == self.children.shape[0]:
            self.a_children = grown(self.a_children, self.nopen + 1)
            self._bind()
        self.children[self.nopen] = 0
        self.nopen += 1
        return 0

    cdef int _add_setup(self, int kind, int a, int b) except -1:
        if self.nsetup == self.s_type.shape[0]:
            need = self.nsetup + 1
            self.a_stype = grown(self.a_stype, need)
            self.a_sa = grown(self.a_sa, need)
            self.a_sb = grown(self.a_sb, need)
            self._bind()
        self.s_type[self.nsetup] = kind
        self.s_a[self.nsetup] = a
        self.s_b[self.nsetup] = b
        self.nsetup += 1
        return 0

    cdef object scan(self, const uint8_t[:] d, object data):
        """The games of the file as ``(first event, end event, size, root)``, or
        None (with :attr:`reason`) for anything unusual.  ``root`` is what
        :meth:`gohash.pipeline._sgf_replay.Replayer.scan_file` returns for the game."""
        cdef Py_ssize_t n = d.shape[0], pos = 0, start, ilen, vstart, first_start, first_end
        cdef Py_ssize_t node_values = 0, game_setup = 0
        cdef int depth, kind, nvals, c
        cdef int32_t node, root, ev_start, line
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
            game_setup = self.nsetup
            root = node = -1
            depth = line = 0
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
                    self.lstack[depth] = line
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
                    line = self.lstack[depth]
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
                    line += 1
                    if line > MAX_GAME_NODES:
                        self._bail("a line of more nodes than the undo history limit")
                        return None
                    node_values = 0
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
                        node_values += 1
                        if node_values >= MAX_NODE_VALUES:
                            self._bail("values in a node beyond the limit")
                            return None
                        pos += 1
                        while pos < n and _is_space(p[pos]):
                            pos += 1
                        if pos == n or p[pos] != 91:
                            break
                    if pos - start > MAX_VALUE:
                        self._bail("value beyond the limit")
                        return None
                    if kind >= P_AB and (
                        self.n_setup_end[node] - self.n_setup[node] >= MAX_NODE_SETUP
                        or self.nsetup - game_setup >= MAX_GAME_SETUP
                        or self.nsetup >= MAX_SOURCE_SETUP
                    ):
                        self._bail("setup points beyond the limit")
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
            size = root_size(props, _has_black_setup(self, root)
                             or _setup_opens(self, ev_start + 2, self.nev))
            if size == 0:
                self._bail("root SZ, or HA without AB")
                return None
            root_info = (size, handicap(props), props.get(b"CA")) + text(props)
            games.append((ev_start, <int32_t>self.nev, size, root_info))
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


cdef int _kind(const uint8_t[:] d, Py_ssize_t start, Py_ssize_t length) except -1:
    cdef uint8_t first = d[start], second
    if length == 1:
        return P_B if first == 66 else P_W if first == 87 else P_OTHER
    if length == 2 and first == 65:  # "A"
        second = d[start + 1]
        return P_AB if second == 66 else P_AW if second == 87 else P_AE if second == 69 else P_OTHER
    return P_OTHER


cdef int _has_black_setup(Scanner self, int32_t root) except -1:
    cdef int32_t e
    for e in range(self.n_setup[root], self.n_setup_end[root]):
        if self.s_type[e] == P_AB:
            return True
    return False


cdef int _setup_opens(Scanner self, Py_ssize_t first, Py_ssize_t end) except -1:
    """Whether the main line after the root (its events from ``first``) comes to a
    node with AB before any node with a move, within the walker's read-ahead of
    :data:`HANDICAP_LOOKAHEAD` events (``gohash.sgf.walk._read_to_first_move``): the
    walker then places no handicap stones and notes nothing."""
    cdef Py_ssize_t e
    cdef int32_t event
    for e in range(first, min(end, first + HANDICAP_LOOKAHEAD)):
        event = self.ev[e]
        if event >= 0:
            if _has_black_setup(self, event):
                return True
            if self.n_colour[event]:
                return False
        elif event == CLOSE:  # the main line is over
            return False
    return False


def root_size(dict root, bint black_setup):
    """The board size of a root as the walker reads it, or 0 where the core leaves
    the game to the walker: SZ not plain digits in 1..26, HA not plain digits,
    or HA of 2 or more where the walker would place GTP's handicap stones or note
    that Black's moves are the handicap: ``black_setup`` says an AB comes first,
    in the root or the main line before its first move."""
    value = root.get(b"SZ", b"19")
    if not (value.isdigit() and len(value) <= 3 and 1 <= int(value) <= MAX_SIZE):
        return 0
    handicap = root.get(b"HA")
    if handicap is not None and not (
        handicap.isdigit() and len(handicap) <= 3 and (black_setup or int(handicap) < 2)
    ):
        return 0
    return int(value)


def handicap(dict root):
    value = root.get(b"HA")
    return 0 if value is None else int(value)


def text(dict root):
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
