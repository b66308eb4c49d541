# cython: language_level=3
"""The strict SGF scan of the compiled core, shared by gohash/pipeline/_scan.pyx and _sgf_replay.pyx."""

from libc.stdint cimport int8_t, int32_t, uint8_t

cdef enum:
    MAX_VALUE = 1024 * 1024  # gohash.sgf.MAX_VALUE_BYTES
    # The other limits of gohash.sgf and gohash.go.board, met at or before the walker
    # meets them: a file that comes near one goes to the walker, which reports it.
    MAX_NODE_VALUES = 10000  # gohash.sgf.MAX_NODE_VALUES
    MAX_NODE_SETUP = 4 * 26 * 26  # gohash.sgf.MAX_NODE_SETUP_POINTS
    MAX_GAME_SETUP = 1000000  # gohash.sgf.MAX_GAME_SETUP_POINTS
    MAX_SOURCE_SETUP = 10000000  # gohash.sgf.MAX_SOURCE_SETUP_POINTS
    # Nodes on a line of a game (from its root): a line of fewer has fewer undo
    # steps than gohash.go.board.MAX_HISTORY.  Not nodes in all: siblings are undone.
    MAX_GAME_NODES = 200000
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


cdef class Scanner:
    cdef public str reason
    cdef Py_ssize_t nev, nnodes, nsetup, nopen
    cdef object a_ev, a_ncolour, a_na, a_nb, a_nsetup, a_nsetup_end
    cdef object a_stype, a_sa, a_sb, a_children
    # Events: a node's index, CLOSE, or OPEN0 - k for "(" number k.
    cdef int32_t[:] ev
    # Per node: move colour (0, P_B, P_W), move letters (-1 for an empty
    # value), its range of setup entries.
    cdef int8_t[:] n_colour, n_a, n_b
    cdef int32_t[:] n_setup, n_setup_end
    # Per setup entry: P_AB, P_AW or P_AE and the point's letters.
    cdef int8_t[:] s_type, s_a, s_b
    # Per "(": how many "(" it holds directly.
    cdef int32_t[:] children
    cdef int32_t[:] ostack
    # Per open "(": the nodes on the line before it.
    cdef int32_t[:] lstack

    cdef object scan(self, const uint8_t[:] d, object data)
    cdef int _bail(self, str reason) except -1
    cdef _bind(self)
    cdef int _push_event(self, int32_t event) except -1
    cdef int32_t _new_node(self) except -1
    cdef int _new_open(self) except -1
    cdef int _add_setup(self, int kind, int a, int b) except -1
    cdef int _value(self, int kind, int32_t node, int nvals, const uint8_t[:] d,
                    Py_ssize_t start, Py_ssize_t end) except -1
