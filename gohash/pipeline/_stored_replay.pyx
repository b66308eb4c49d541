# cython: language_level=3, boundscheck=True, wraparound=False, cdivision=True
"""The compiled replay of stored games (the format of docs/design.md, "Stored games"):
the kernel of :func:`gohash.index.games.replay_boards` and
:func:`gohash.index.games.replay_at`, and, through ``_replay``, of
:func:`gohash.pattern.store.flatten`.

Scope: ``_replay`` replays one blob node by node on raw arrays;
:func:`replay_stored` and :func:`replay_at` are its two entries from Python.
The arrays the callers make (their shapes, the board size's range) are
checked by :mod:`gohash.index.games`; what comes from a file -- the blob's
words, the offsets and node counts of the games table, the nodes a posting
names -- is checked here, so that a damaged index raises an error, never
reads or writes out of bounds.
"""

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t
from libc.string cimport memcpy

from ._board cimport NB, dead_group, neighbours

import numpy as np

from gohash.errors import StoredGameError

cdef enum:
    TAG_MOVE = 0
    TAG_SETUP = 1
    TAG_PARENT = 2
    NO_POINT = 1023


cdef inline void _remove(int8_t* cells, int count, int colour, const int32_t* stones,
                         int32_t* log, Py_ssize_t* nlog) noexcept:
    """Take the ``count`` stones of ``colour`` of a dead group off, logged in ``log``
    (if any)."""
    cdef int i
    for i in range(count):
        cells[stones[i]] = 0
    if log != NULL:
        for i in range(count):
            log[nlog[0]] = stones[i] << 4 | colour << 2
            nlog[0] += 1


@cython.boundscheck(False)
cdef Py_ssize_t _replay(
    const uint8_t* blob, Py_ssize_t nbytes, int size, Py_ssize_t last, Py_ssize_t nodes,
    int8_t* boards, int8_t* to_move, int8_t* colour, int16_t* point, uint8_t* setup,
    int32_t* parent, int32_t* move_number, int32_t* scratch,
    bint one_board=False, Visit visit=NULL, void* ctx=NULL, int32_t* log=NULL,
) except -1:
    """The replay of :func:`replay_stored` on raw arrays (rows of ``size * size``
    bytes in ``boards``); ``scratch`` holds :data:`SCRATCH` int32 a point, the
    neighbour table of ``size`` first (:func:`gohash.pipeline._board.neighbours`).

    With ``one_board`` every node is replayed on ``boards``' first row, which
    needs a line without branches (a main line); ``visit`` (with ``ctx``) is
    called after each node with the points it changed, logged in ``log``
    (room for :data:`MAX_LOG` entries)."""
    cdef int npts = size * size
    cdef Py_ssize_t pos = 0, node = 0, pending = -1, par, j, edits, nlog = 0
    cdef int word, tag, c, p, k, r, taken
    cdef int32_t gen = 0
    cdef int8_t* cells
    cdef const int32_t* nb = scratch
    cdef const int32_t* at
    cdef int32_t* mark = scratch + NB * npts
    cdef int32_t* stack = scratch + (NB + 1) * npts
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
                at = nb + NB * p
                for k in range(1, 1 + at[0]):
                    r = at[k]
                    if cells[r] == 3 - c:
                        gen += 1
                        taken = dead_group(cells, r, nb, mark, gen, stack)
                        _remove(cells, taken, 3 - c, stack, log, &nlog)
                gen += 1
                taken = dead_group(cells, p, nb, mark, gen, stack)
                _remove(cells, taken, c, stack, log, &nlog)
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
    that is not an earlier node.

    The caller (:func:`gohash.index.games.replay_boards`) has checked ``size``
    (2 to 26) and made ``boards`` of ``size * size`` columns and the other
    arrays as long as ``boards``."""
    cdef Py_ssize_t nodes = boards.shape[0]
    if nodes == 0 or blob.shape[0] == 0:
        return 0
    cdef int32_t[::1] s = np.zeros(size * size * SCRATCH, dtype=np.int32)
    neighbours(size, &s[0])
    return _replay(&blob[0], blob.shape[0], size, last, nodes, &boards[0, 0], &to_move[0],
                   &colour[0], &point[0], &setup[0], &parent[0], &move_number[0], &s[0])


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
    does not replay, and ValueError for a row that asks for a node its game
    does not have.

    The caller (:func:`gohash.index.games.replay_at`) has checked ``size`` (2 to
    26), that every row names a game (``offsets`` one longer than ``nodes`` and
    ``mains``) and made the other arrays one entry a row, ``boards`` of
    ``size * size`` columns."""
    cdef Py_ssize_t rows = game.shape[0], i = 0, j, first, g, want, done
    cdef int npts = size * size
    cdef int32_t[::1] s = np.zeros(npts * SCRATCH, dtype=np.int32)
    neighbours(size, &s[0])
    cdef Py_ssize_t capacity = 0
    cdef int8_t[:, ::1] b
    cdef int8_t[::1] tm, col
    cdef int16_t[::1] pt
    cdef uint8_t[::1] st
    cdef int32_t[::1] par, mn
    while i < rows:
        g = game[i]
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
                           &b[0, 0], &tm[0], &col[0], &pt[0], &st[0], &par[0], &mn[0], &s[0])
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
