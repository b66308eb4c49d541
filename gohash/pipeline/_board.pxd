# cython: language_level=3
"""The board primitives the compiled kernels share (gohash/pipeline/_sgf_replay.pyx,
_frames.pyx, _stored_replay.pyx; gohash/pattern/_match.pyx through the last):
the limits of a board, its neighbour table and its one capture routine.

Boards are rows of ``size * size`` points (0 empty, 1 black, 2 white), point
``row * size + col``.  The callers own the arrays; nothing here checks an index.
"""

from libc.stdint cimport int8_t, int32_t

cdef enum:
    MAX_SIZE = 26
    MAX_POINTS = MAX_SIZE * MAX_SIZE
    MAX_PACKED = 1 + (MAX_POINTS + 3) // 4  # Board.position_key's bytes at the largest size
    NB = 5  # int32 a point in a neighbour table: how many, then up to four


cdef inline void neighbours(int size, int32_t* nb) noexcept nogil:
    """Fill ``nb`` (``NB * size * size`` entries) with the neighbour table of a board
    of ``size``: point ``p``'s count at ``nb[NB * p]``, its neighbours after it
    (above, below, left, right: the order captures are found in)."""
    cdef int p, row, col, k
    cdef int32_t* at
    for p in range(size * size):
        row = p // size
        col = p % size
        at = nb + NB * p + 1
        k = 0
        if row > 0:
            at[k] = p - size
            k += 1
        if row < size - 1:
            at[k] = p + size
            k += 1
        if col > 0:
            at[k] = p - 1
            k += 1
        if col < size - 1:
            at[k] = p + 1
            k += 1
        nb[NB * p] = k


cdef inline bint has_liberty(const int8_t* cells, int p, const int32_t* nb) noexcept nogil:
    """Whether point ``p`` has an empty neighbour (a group's quick way out of
    :func:`dead_group`)."""
    cdef const int32_t* at = nb + NB * p
    cdef int k
    for k in range(1, 1 + at[0]):
        if cells[at[k]] == 0:
            return True
    return False


cdef inline int dead_group(const int8_t* cells, int start, const int32_t* nb, int32_t* mark,
                           int32_t gen, int32_t* stones) noexcept nogil:
    """How many stones the group at ``start`` has (they are ``stones[:count]``) if it
    has no liberty, else 0, found at its first liberty.  ``mark`` holds a
    point's last generation visited: ``gen`` must differ from every entry of it
    (the caller counts generations up and resets ``mark`` before they wrap).
    Removing the stones is the caller's: each kernel keeps its own account of
    changes (a hash and an undo log, or a log of changes)."""
    cdef int8_t colour = cells[start]
    cdef int count = 1, i = 0, k, q, r
    cdef const int32_t* at
    stones[0] = start
    mark[start] = gen
    while i < count:
        q = stones[i]
        at = nb + NB * q
        for k in range(1, 1 + at[0]):
            r = at[k]
            if cells[r] == 0:
                return 0
            if cells[r] == colour and mark[r] != gen:
                mark[r] = gen
                stones[count] = r
                count += 1
        i += 1
    return count
