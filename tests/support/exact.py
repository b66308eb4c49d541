"""The exact canonical position, computed independently (numpy's rotations of the
board, every image compared): the reference of the canon and positions tests,
and hypothesis strategies for positions."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st
from sgfmill import boards as sgfmill_boards
from sgfmill import sgf_properties

from gohash.group.schemes import KeyScheme

Array = npt.NDArray[np.integer]
# docs/design.md, section "The 16 elements", in table order: rotations
# counter-clockwise, then the same after a left-right mirror, then all eight again
# with the colours exchanged.
NAMES = (
    "identity", "rot90", "rot180", "rot270", "flip", "transpose", "flipud", "antitranspose",
    "swap", "rot90_swap", "rot180_swap", "rot270_swap", "flip_swap", "transpose_swap",
    "flipud_swap", "antitranspose_swap",
)
GROUPS = {"full": range(16), "d4": range(8)}
SIDE_STARS = [(3, 9), (9, 3), (9, 15), (15, 9)]


def image(board: Array, index: int) -> Array:
    """Element ``index`` applied to ``board[row, col]`` (row 0 the bottom line).

    With row 0 at the bottom, rot90 (x, y) -> (N-1-y, x) moves ``board[r, c]`` to
    ``[c, N-1-r]``: numpy's clockwise quarter turn of the array as stored.  flip
    (x, y) -> (N-1-x, y) reverses the columns.  The rotation comes first.
    """
    out = np.rot90(board, -(index & 3))
    if index & 4:
        out = np.flip(out, axis=1)
    if index & 8:
        out = np.choose(out, [0, 2, 1])
    return np.ascontiguousarray(out, dtype=board.dtype)


def pack(board: Array) -> bytes:
    """The size byte, then base-4 digits in row-major order, most significant first."""
    size = board.shape[0]
    value = int("".join(str(v) for v in board.ravel().tolist()), 4)
    return bytes([size]) + value.to_bytes((size * size + 3) // 4, "big")


def expected(board: Array, keys: KeyScheme, group: str) -> dict[str, object]:
    """Key, symmetries, frame and transform of ``board`` by brute force: every image
    hashed from the key table, the frame the least packed image among the images
    hashing to the key."""
    indexes = GROUPS[group]
    images = {i: image(board, i) for i in indexes}
    hashes = {i: keys.hash_array(images[i]) for i in indexes}
    key = min(hashes.values())
    frame = min(pack(images[i]) for i in indexes if hashes[i] == key)
    return {
        "key": keys.hex(key),
        "symmetries": [NAMES[i] for i in indexes if np.array_equal(images[i], board)],
        "position": frame.hex(),
        "transform": NAMES[min(i for i in indexes if pack(images[i]) == frame)],
    }


def setup_sgf(size: int, positions: list[Array]) -> bytes:
    """One game: the empty root, then one setup node per position, each differing
    from the one before (AE for the stones of the previous position that are gone)."""
    nodes = [f"(;FF[4]SZ[{size}]"]
    before: Array = np.zeros((size, size), np.int8)
    for board in positions:
        node = ";"
        for prop, mask in (
            ("AB", board == 1), ("AW", board == 2), ("AE", (board == 0) & (before != 0))
        ):
            points = [tuple(p) for p in np.argwhere(mask).tolist()]
            if points:
                node += prop + "".join(
                    f"[{sgf_properties.serialise_go_point(p, size).decode()}]" for p in points
                )
        nodes.append(node)
        before = board
    return ("".join(nodes) + ")").encode()


def e3_position() -> Array:
    board = np.zeros((19, 19), np.int8)
    for point in SIDE_STARS:
        board[point] = 1
    return board


@st.composite
def positions(draw: st.DrawFn) -> tuple[int, list[Array]]:
    """A board size and a few legal positions on it; many of them symmetric."""
    size = draw(st.sampled_from([1, 2, 3, 4, 5, 6, 7, 9, 19]))
    boards: list[Array] = []
    for _ in range(draw(st.integers(1, 5))):
        cells = draw(
            st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=size * size, max_size=size * size)
        )
        board: Array = np.array(cells, dtype=np.int8).reshape(size, size)
        which = draw(st.one_of(st.none(), st.integers(0, 15)))
        if which is not None:
            board = symmetrised(board, which)
        board = legal(board)
        if not np.array_equal(board, boards[-1] if boards else 0 * board):
            boards.append(board)  # a node that changes nothing is no setup: not visited
    return size, boards


def legal(board: Array) -> Array:
    """The position sgfmill's setup leaves: every group without liberties removed."""
    size = board.shape[0]
    if size < 2:
        return np.zeros_like(board)  # a lone stone has no liberty
    ref = sgfmill_boards.Board(size)
    black = [tuple(p) for p in np.argwhere(board == 1).tolist()]
    white = [tuple(p) for p in np.argwhere(board == 2).tolist()]
    ref.apply_setup(black, white, [])
    out = np.zeros_like(board)
    for colour, (row, col) in ref.list_occupied_points():
        out[row, col] = 1 if colour == "b" else 2
    return out


def symmetrised(board: Array, index: int) -> Array:
    """A position that element ``index`` maps onto itself, built from ``board``: along
    each orbit of the board map, colours follow by the element's colour map."""
    size = board.shape[0]
    # where[p] = the point (flat index) that the board map sends p to.
    moved = image(np.arange(size * size).reshape(size, size), index & 7).ravel()
    where = np.empty(size * size, dtype=np.intp)
    where[moved] = np.arange(size * size)
    out = np.full(size * size, -1, dtype=np.int8)
    flat = board.ravel()
    for start in range(size * size):
        if out[start] >= 0:
            continue
        orbit = [start]
        while (nxt := int(where[orbit[-1]])) != start:
            orbit.append(nxt)
        colour = int(flat[start])
        if index & 8 and len(orbit) % 2 and colour:
            colour = 0  # an odd orbit cannot alternate colours
        for point in orbit:
            out[point] = colour
            colour = (0, 2, 1)[colour] if index & 8 else colour
    return out.reshape(size, size)


