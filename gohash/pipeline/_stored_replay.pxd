# cython: language_level=3
"""The stored-game replay of gohash/pipeline/_stored_replay.pyx, shared with gohash/pattern/_match.pyx."""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t

from ._board cimport NB

cdef enum:
    MAX_LOG = 65535 + 26 * 26 + 1  # a setup node's edits, or a move and its captures
    # int32 a point of the scratch _replay takes: the neighbour table of the game's
    # size first (gohash.pipeline._board.neighbours), then its marks and a stack.
    SCRATCH = NB + 2

ctypedef bint (*Visit)(void* ctx, Py_ssize_t node, int32_t move_number, const int32_t* log,
                       Py_ssize_t nlog) noexcept
# Called after each node replayed, with the points it changed (``point << 4 | old << 2 |
# new``, in order; node 0's from an empty board); True stops the replay.

cdef Py_ssize_t _replay(
    const uint8_t* blob, Py_ssize_t nbytes, int size, Py_ssize_t last, Py_ssize_t nodes,
    int8_t* boards, int8_t* to_move, int8_t* colour, int16_t* point, uint8_t* setup,
    int32_t* parent, int32_t* move_number, int32_t* scratch,
    bint one_board=*, Visit visit=*, void* ctx=*, int32_t* log=*,
) except -1
