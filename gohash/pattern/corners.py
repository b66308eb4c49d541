"""Canonical corner keys: which games held a fully specified corner, found by key.

Scope: :func:`corner_postings`, a run of replayed games' postings (the key of
each corner square, 7x7 and 5x5 (:data:`SQUARES`), at every node of each main
line, reduced to its canonical form by the key maps ``T_g``, one posting per
key and game, sorted by key);
:func:`corner_query`, the key and corner of a pattern whose corner square is
fully specified; :func:`corner_games`, the games of a store's segments that
hold a key; :func:`placement_corners`, the corner each placement lies in.
Keys only propose games: each is confirmed on the exact stones by the scan.
Design: docs/design.md, ``gohash.pattern.corners``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

import numpy as np
import numpy.typing as npt

from .. import _native as native
from .._native import use_compiled
from ..group.schemes import scheme
from ..group.symmetry import Element
from ..pipeline.columns import canonical_compiled
from .diagram import BLACK, EMPTY, WHITE, Pattern, Placements, stone_keys
from .tally import run_starts

__all__ = ["CORNER", "CORNER_SCHEME", "SALTS", "SQUARES", "Changes", "Postings", "Square",
           "canonical_square", "corner_games", "corner_postings", "corner_query", "levels",
           "placement_corners", "posting_keys", "squares"]

CORNER = 7
"""The side of the largest corner square (Kombilo's corner hash covers the same
7x7); the whole board on boards smaller than that."""

SQUARES = (CORNER, 5)
"""The sides of the corner squares keyed, largest first: a pattern uses the
largest of its corner squares that is fully specified (the 7x7 of a joseki
diagram, the 5x5 of one whose outer ring is left open)."""

SALTS = (0, 0x9E3779B9)
"""XORed into the postings' keys of each square of :data:`SQUARES`: a 5x5
square's stones hash as a 7x7 square holding the same stones and nothing
else, and the salt keeps the two apart (a 7x7 query does not take the games
whose 5x5 only held its stones)."""

CORNER_SCHEME = "regular64"
"""The key scheme of corner keys: 64-bit XOR keys on which all 16 elements act
by a slot permutation, whatever scheme the index itself uses."""

class Changes(Protocol):
    """The columns of replayed main lines that postings are keyed from, as
    :class:`~gohash.pattern.store.Flat` holds them."""

    @property
    def node_offsets(self) -> npt.NDArray[np.int64]: ...
    @property
    def change_offsets(self) -> npt.NDArray[np.int64]: ...
    @property
    def changes(self) -> npt.NDArray[np.uint16]: ...


_GAMES = 4096  # games whose changes are keyed at a time: bounds the working memory
_KEYS = 1 << 17  # keys made canonical at a time: the same


@dataclass(frozen=True)
class Postings:
    """A segment's corner postings, sorted by key, then game: ``keys`` the low 32
    bits of a canonical corner key, ``entries`` ``game << 4 | corners``, the
    game's number in its segment and the bits ``1 << c`` of the corners ``c``
    (:func:`squares`' order) whose square held the key at some node."""

    keys: npt.NDArray[np.uint32]
    entries: npt.NDArray[np.uint32]

    def __len__(self) -> int:
        return len(self.keys)


def levels(size: int) -> tuple[int, ...]:
    """The sides of :data:`SQUARES` keyed on a board of ``size``: each square's
    side is at most the board's, and a smaller square that would be the
    whole board too is left out (its postings would be the larger one's)."""
    return tuple(side for i, side in enumerate(SQUARES)
                 if i == 0 or min(side, size) < min(SQUARES[i - 1], size))


@cache
def squares(size: int, side: int = CORNER) -> npt.NDArray[np.bool_]:
    """``[corner, point]``: whether the flat point (``row * size + col``, row 0 the
    bottom line) lies in the corner's square of ``side`` (at most the board):
    lower left, lower right, upper left, upper right."""
    side = min(side, size)
    inside = np.zeros((4, size, size), dtype=np.bool_)
    for c, (rows, cols) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
        r = slice(size - side, size) if rows else slice(0, side)
        k = slice(size - side, size) if cols else slice(0, side)
        inside[c, r, k] = True
    inside.flags.writeable = False
    return inside.reshape(4, size * size)


def _zobrist(size: int) -> npt.NDArray[np.uint64]:
    """``[point, colour]``: a stone's key in :data:`CORNER_SCHEME` (0 for an
    empty point): the diagram's table of stone keys, whose codes ``EMPTY``,
    ``BLACK`` and ``WHITE`` are the colours 0, 1 and 2 of a change."""
    return stone_keys(scheme(CORNER_SCHEME, size))


def _canonical(keys: npt.NDArray[np.uint64], size: int,
               pure: bool | None = None) -> npt.NDArray[np.uint32]:
    """The low 32 bits of each key's canonical form under all 16 elements (the
    least ``T_g(k)``, :meth:`~gohash.group.schemes.KeyScheme.canonical_array`'s
    keys): by the compiled ``canonical_slots`` of the frames, or (``pure``,
    :func:`~gohash._native.use_compiled`) by numpy.  In the regular
    representation the leading slot of the 16 images is each of the key's 16
    slots once, so both form only the images that lead with the least slot
    (one or two, mostly)."""
    keyed = scheme(CORNER_SCHEME, size)
    if use_compiled(pure, native.frames):
        canon, _, _ = canonical_compiled(native.frames, keys, keyed, "full")
        low: npt.NDArray[np.uint32] = (canon & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        return low
    permutations = np.array(keyed.permutations, dtype=np.intp)
    out = np.zeros(len(keys), dtype=np.uint32)
    for start in range(0, len(keys), _KEYS):
        part = keys[start : start + _KEYS]
        # digits[:, s]: slot s, slot 0 the most significant.
        as_bytes = part.astype(">u8").view(np.uint8).reshape(-1, 8)
        digits = np.empty((len(part), 16), dtype=np.uint8)
        digits[:, 0::2] = as_bytes >> 4
        digits[:, 1::2] = as_bytes & 15
        leading = digits[:, permutations[:, 0]]
        least = np.full(len(part), np.iinfo(np.uint64).max, dtype=np.uint64)
        for g, held in enumerate((leading == leading.min(axis=1, keepdims=True)).T):
            rows = np.flatnonzero(held)
            image = digits[rows][:, permutations[g]]
            packed = np.ascontiguousarray((image[:, 0::2] << 4) | image[:, 1::2])
            least[rows] = np.minimum(least[rows], packed.view(">u8").reshape(-1))
        out[start : start + _KEYS] = (least & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return out


def posting_keys(keys: npt.NDArray[np.uint64], size: int, level: int) -> npt.NDArray[np.uint32]:
    """The keys of corner squares (``keys``, the XOR of their stones, none 0) of
    the level-th side of :func:`levels` as postings hold them: canonical, low
    32 bits, salted."""
    salted: npt.NDArray[np.uint32] = _canonical(keys, size) ^ np.uint32(SALTS[level])
    return salted


def corner_postings(flat: Changes, size: int) -> Postings:
    """The postings of the games of ``flat`` (main lines replayed,
    :class:`~gohash.pattern.store.Flat`): for each game, corner and square of
    :func:`levels`, the key of the corner's square after every node that
    changed it (the empty square's key, 0, left out: every game's start holds
    it), canonical, its square's salt (:data:`SALTS`) XORed in.  Raises
    ValueError for columns that do not agree or a change off the board."""
    npts = size * size
    games = len(flat.node_offsets) - 1
    # Node by node: the changes up to one marked the node's last (bit 15).
    marked = (flat.changes >> 15).astype(np.int64)
    ended = np.concatenate([[0], np.cumsum(marked)])
    if flat.change_offsets[-1] != len(flat.changes) or not np.array_equal(
            ended[flat.change_offsets], flat.node_offsets):
        raise ValueError("its changes do not end once a node, game by game")
    if len(flat.changes) and int((flat.changes & 0x7FFF).max()) >> 4 >= npts:
        raise ValueError("a change off the board")
    zobrist = _zobrist(size)
    keys, entries, salts = [], [], []
    for first in range(0, games, _GAMES):
        last = min(games, first + _GAMES)
        n0 = int(flat.node_offsets[first])
        c0, c1 = int(flat.change_offsets[first]), int(flat.change_offsets[last])
        changes = flat.changes[c0:c1].astype(np.intp)
        point = (changes >> 4) & 0x7FF
        old, new = (changes >> 2) & 3, changes & 3
        delta = zobrist[point, old] ^ zobrist[point, new]
        node = ended[c0:c1] - n0
        changed = old != new  # not a node's word for no change
        game_of_node = np.repeat(np.arange(first, last, dtype=np.uint32),
                                 np.diff(flat.node_offsets[first : last + 1]))
        for level, side in enumerate(levels(size)):
            for c in range(4):
                at = np.flatnonzero(squares(size, side)[c, point] & changed)
                if not len(at):
                    continue
                # A game's key after a change: the XOR of its changes so far, the
                # running XOR of the run cut at the game's first change.
                running = np.bitwise_xor.accumulate(delta[at])
                nodes = node[at]
                game = game_of_node[nodes]
                starts = run_starts(game)
                before = np.concatenate([np.zeros(1, dtype=np.uint64), running])[starts]
                running ^= np.repeat(before, np.diff(np.append(starts, len(at))))
                # After each node: the key after its last change there.
                ends = np.flatnonzero(np.diff(nodes, append=-1) != 0)
                key, game = running[ends], game[ends]
                kept = key != 0
                keys.append(key[kept])
                entries.append(game[kept] << np.uint32(4) | np.uint32(1 << c))
                salts.append(np.full(int(kept.sum()), SALTS[level], dtype=np.uint32))
    if not sum(len(k) for k in keys):
        return Postings(np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.uint32))
    # Sorted by key, then game: one sort of both in a 64-bit word.
    salted = _canonical(np.concatenate(keys), size) ^ np.concatenate(salts)
    both = np.sort(salted.astype(np.uint64) << np.uint64(32) | np.concatenate(entries))
    # One posting a key and game, its corners ORed.
    pairs = both >> np.uint64(4)
    firsts = run_starts(pairs)
    corners = np.bitwise_or.reduceat(both & np.uint64(15), firsts)
    return Postings((both[firsts] >> np.uint64(32)).astype(np.uint32),
                    ((both[firsts] | corners) & np.uint64(0xFFFFFFFF)).astype(np.uint32))


def corner_query(pattern: Pattern) -> tuple[int, int] | None:
    """The key (as :class:`Postings` hold it) and corner of a corner square of
    ``pattern`` whose every point is black, white or empty and some point a
    stone: the first such of the largest square of :func:`levels` that has
    one; None if it has none (an empty square's key, 0, is every game's at
    its start)."""
    codes = np.array(pattern.codes)
    fixed = (codes == EMPTY) | (codes == BLACK) | (codes == WHITE)
    # Every square's key at once: the XOR of the stones of its points (those
    # of a square with a point not fixed are not used).
    stones = _zobrist(pattern.size)[np.arange(len(codes)), np.where(fixed, codes, EMPTY)]
    for level, side in enumerate(levels(pattern.size)):
        inside = squares(pattern.size, side)
        keys = np.bitwise_xor.reduce(np.where(inside, stones, np.uint64(0)), axis=1)
        found = np.flatnonzero(~(inside & ~fixed).any(axis=1) & (keys != 0))
        if len(found):
            c = int(found[0])
            canonical, _ = scheme(CORNER_SCHEME, pattern.size).canonical(int(keys[c]))
            return (canonical & 0xFFFFFFFF) ^ SALTS[level], c
    return None


@dataclass(frozen=True)
class Square:
    """A corner square's stones in their canonical frame: the square of ``side``
    in ``corner`` (:func:`squares`' order) whose points, in flat order, are
    black where bit ``i`` of ``black`` is set and white where that of ``white``
    is; ``element`` maps the square as it was given onto it.  Two squares with
    the same stones up to the 16 elements have the same frame (their keys'
    least image picks the element), so equal frames are the same stones, and
    unequal ones, stones whose keys only collide.  A window's content
    (:mod:`gohash.pattern.windows`) is one too, its corner
    :data:`~gohash.pattern.windows.WINDOW` and its points in rows of its own
    (``element`` then acts on the window as on a board of its side)."""

    side: int
    corner: int
    black: int
    white: int
    element: Element

    @property
    def stones(self) -> tuple[int, int, int, int]:
        """What names the stones, the frame's element aside: side, corner, black, white."""
        return self.side, self.corner, self.black, self.white

    def colours(self) -> npt.NDArray[np.int64]:
        """The colour (0, 1, 2) of each point of the square, in flat order."""
        bits = np.arange(self.side * self.side)
        return ((self.black >> bits) & 1) + 2 * ((self.white >> bits) & 1)


def canonical_square(size: int, side: int, corner: int,
                     colours: npt.NDArray[np.integer]) -> Square:
    """The :class:`Square` of the square of ``side`` in ``corner`` on a board of
    ``size`` whose points (flat order) hold ``colours`` (0, 1, 2; some stone):
    mapped by the first element whose image of its key is the least
    (:meth:`~gohash.group.schemes.KeyScheme.canonical`)."""
    points = np.flatnonzero(squares(size, side)[corner])
    colours = np.asarray(colours, dtype=np.intp)
    key = int(np.bitwise_xor.reduce(_zobrist(size)[points, colours]))
    if key == 0:
        raise ValueError("an empty square has no canonical frame")
    _, elements = scheme(CORNER_SCHEME, size).canonical(key)
    element = elements[0]
    image = np.zeros(size * size, dtype=np.intp)
    for p, c in zip(points.tolist(), colours.tolist(), strict=True):
        row, col = element.map_point(divmod(p, size), size)
        image[row * size + col] = (3 - c if element.swap else c) if c else 0
    # The image of the corner's vertex names the corner (squares may overlap).
    row, col = element.map_point(((corner >> 1) * (size - 1), (corner & 1) * (size - 1)), size)
    to = 0 if side >= size else 2 * (row > 0) + (col > 0)  # a whole board: one square
    values = image[np.flatnonzero(squares(size, side)[to])]
    bits = 1 << np.arange(len(values), dtype=object)
    return Square(min(side, size), to, int(bits[values == 1].sum()), int(bits[values == 2].sum()),
                  element)


def placement_corners(pattern: Pattern, corner: int,
                      placements: Placements) -> npt.NDArray[np.intp]:
    """The corner whose square each placement puts the pattern's square of
    ``corner`` on: that of the image of its corner point (a corner placement
    is not moved, and every element maps corner points onto corner points)."""
    n = pattern.size
    vertices = (0, n - 1, (n - 1) * n, n * n - 1)  # in the order of squares()
    at = pattern.region.index(vertices[corner])
    which = np.full(n * n, -1, dtype=np.intp)
    which[list(vertices)] = np.arange(4)
    return which[placements.points[:, at]]


def corner_games(segments: Sequence[Postings], lengths: Sequence[int],
                 starts: npt.NDArray[np.int64], key: int
                 ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """The games (store numbers: segment ``s``'s game 0 is ``starts[s]``) whose
    postings hold ``key``, and the corners (bits) that held it, in order; a
    binary search in each segment's postings (``segments[s]``, of a segment of
    ``lengths[s]`` games).  Raises ValueError for a posting of a game its
    segment does not have."""
    games, corners = [], []
    for s, postings in enumerate(segments):
        lo, hi = np.searchsorted(postings.keys, np.uint32(key), side="left"), np.searchsorted(
            postings.keys, np.uint32(key), side="right")
        entries = postings.entries[lo:hi]
        game = (entries >> np.uint32(4)).astype(np.int64)
        if len(game) and int(game.max()) >= lengths[s]:
            raise ValueError("a corner posting of a game its segment does not have")
        games.append(game + int(starts[s]))
        corners.append((entries & np.uint32(15)).astype(np.uint8))
    if not games:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    return np.concatenate(games), np.concatenate(corners)
