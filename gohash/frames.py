"""Exact canonical forms ("frames") of Go positions, and of every position of SGF files.

Scope: packing position arrays into bytes, the frame of a position (a canonical
form under G = D4 x colour swap, or under D4 alone, found from its canonical key)
as a scalar function and its numpy batch twin (:func:`frame_batch`, which also
finds each position's exact symmetries), and the replay of SGF sources into
frames (run in worker processes by :mod:`gohash.index`).  Nothing here knows SQL.

Frames.  The canonical key ``K`` of a position ``P`` is the least ``T_g(hash)``
(:meth:`~gohash.schemes.KeyScheme.canonical`); its frame ``X`` is the least
packed image ``pack(t.P)`` over the elements ``t`` that attain ``K``.  For
``Q = g.P`` the attaining elements of ``Q`` are those of ``P`` composed with
``g^-1``, so ``P`` and ``Q`` have the same set of such images and the same frame:
the frame is a canonical form of the class of ``P``, and two positions are images
of each other iff their frames are equal (a frame is an image of its position, so
equal frames need no key to vouch for them).  Usually one element attains the key
and the frame costs one image; positions whose hash some ``T_g`` fixes (the empty
board, symmetric positions, and hashes symmetric by accident, like erratum E3's)
take the least of several, and only they can have a symmetry: ``g.P = P`` gives
``T_g(hash) = hash``.  Their symmetries are found by comparing their images point
by point, never from the key.

Packing is :meth:`gohash.board.Board.position_key`'s: a size byte, then the
points in ``row * size + col`` order as base-4 digits (0 empty, 1 black,
2 white), most significant first; 92 bytes for 19x19.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import numpy.typing as npt

from .errors import GohashError, PositionError
from .schemes import KeyScheme, scheme
from .sgf import Input, Source, read_input
from .symmetry import ELEMENTS, Element, elements_of
from .walk import BaseVisitor, GameInfo, PositionEvent, walk_source

__all__ = [
    "FileFrames",
    "FrameBatch",
    "GameFrames",
    "NamedSchemes",
    "SchemeFactory",
    "SourceError",
    "Task",
    "canonical_frame",
    "canonical_frames",
    "frame_and_elements",
    "frame_batch",
    "input_frames",
    "pack_array",
    "pack_arrays",
    "packed_rows",
    "source_frames",
    "unpack_array",
    "unpack_frames",
    "unpack_rows",
]

SchemeFactory = Callable[[int], KeyScheme]
Board8 = npt.NDArray[np.int8]

_SWAP_COLOURS = np.array([0, 2, 1], dtype=np.int8)


def _packed_length(size: int) -> int:
    return (size * size + 3) // 4


def pack_array(board: npt.ArrayLike) -> bytes:
    """One (N, N) position array packed as :meth:`Board.position_key` packs a board."""
    arr = np.asarray(board)
    size = arr.shape[0]
    value = 0
    for code in arr.reshape(-1).tolist():
        value = 4 * value + int(code)
    return bytes((size,)) + value.to_bytes(_packed_length(size), "big")


def packed_rows(boards: npt.NDArray[np.integer]) -> npt.NDArray[np.uint8]:
    """Positions ``boards[..., N, N]`` packed as rows of bytes ``[..., 1 + ceil(N*N/4)]``;
    row ``i`` holds :func:`pack_array` of position ``i``, and rows compare as the bytes."""
    lead, size = boards.shape[:-2], boards.shape[-1]
    length = _packed_length(size)
    digits = np.zeros((*lead, 4 * length), dtype=np.uint8)
    digits[..., 4 * length - size * size :] = boards.reshape(*lead, size * size)
    out = np.empty((*lead, 1 + length), dtype=np.uint8)
    out[..., 0] = size
    out[..., 1:] = (
        (digits[..., 0::4] << 6) | (digits[..., 1::4] << 4) | (digits[..., 2::4] << 2)
        | digits[..., 3::4]
    )
    return out


def pack_arrays(boards: npt.NDArray[np.integer]) -> list[bytes]:
    """A batch ``boards[B, N, N]`` packed; the twin of :func:`pack_array`."""
    return _row_bytes(packed_rows(boards))


def _row_bytes(rows: npt.NDArray[np.uint8]) -> list[bytes]:
    blob, width = rows.tobytes(), rows.shape[1]
    return [blob[i * width : (i + 1) * width] for i in range(rows.shape[0])]


def unpack_frames(blob: bytes, count: int, size: int) -> Board8:
    """``count`` packed positions of one size, concatenated, as arrays ``(count, N, N)``."""
    width = 1 + _packed_length(size)
    if len(blob) != count * width:
        raise PositionError(f"{len(blob)} bytes do not hold {count} packed {size}x{size} positions")
    rows = np.frombuffer(blob, dtype=np.uint8).reshape(count, width)
    return unpack_rows(rows, size).reshape(count, size, size)


# The four base-4 digits of every byte value, most significant first, as the four
# bytes of one uint32 (in memory order, so a view as int8 gives them back in order).
_DIGITS = (
    ((np.arange(256)[:, np.newaxis] >> np.array([6, 4, 2, 0])) & 3)
    .astype(np.int8).view(np.uint32).reshape(256)
)


def unpack_rows(rows: npt.NDArray[np.uint8], size: int) -> Board8:
    """Packed positions of one size as rows ``[B, 1 + ceil(N*N/4)]`` (what
    :func:`packed_rows` makes) to flat stones ``[B, N*N]``; the inverse of :func:`packed_rows`."""
    # One look-up of four digits per byte: twenty times faster than shifts and masks.
    digits = np.take(_DIGITS, rows[:, 1:]).view(np.int8)
    flat: Board8 = digits.reshape(rows.shape[0], 4 * (rows.shape[1] - 1))[:, -size * size :]
    return flat


def unpack_array(packed: bytes) -> Board8:
    """The ``(N, N)`` array of one packed position; the inverse of :func:`pack_array`."""
    if not packed:
        raise PositionError("an empty byte string is not a packed position")
    board: Board8 = unpack_frames(packed, 1, packed[0])[0]
    return board


def canonical_frame(
    board: npt.ArrayLike, keys: KeyScheme, group: str = "full"
) -> tuple[int, bytes, Element]:
    """The canonical key of a position array over ``group`` ("full" or "d4"), its
    frame, and the lowest element mapping the position onto its frame (see the
    module docstring)."""
    key, frame, onto = frame_and_elements(np.asarray(board, dtype=np.int8), keys, group)
    return key, frame, onto[0]


def frame_and_elements(
    arr: Board8, keys: KeyScheme, group: str = "full"
) -> tuple[int, bytes, list[Element]]:
    """Key, frame, and every element mapping the position onto its frame, lowest first:
    ``onto[0] . s`` for each ``s`` of the position's stabilizer, which lies within the
    elements that attain the key (``s.P = P`` gives ``T_s(hash) = hash``)."""
    key, attaining = keys.canonical(keys.hash_array(arr), group)
    images = pack_arrays(np.stack([t.image_array(arr) for t in attaining]))
    frame = min(images)
    return key, frame, [t for t, image in zip(attaining, images, strict=True) if image == frame]


@cache
def _permutations(size: int) -> npt.NDArray[np.intp]:
    return np.stack([g.point_permutation(size) for g in ELEMENTS])


@cache
def _gathers(size: int) -> npt.NDArray[np.intp]:
    """``image = stones[..., gather[g]]``: the inverse of each point permutation."""
    return np.argsort(_permutations(size), axis=1)


@cache
def _involutions(group: str) -> tuple[Element, ...]:
    # A subgroup other than {identity} holds an element of order 2 (an element of
    # order 4 squares to rot180), so looking for these finds every non-trivial one.
    return tuple(g for g in elements_of(group)[1:] if g.compose(g) is ELEMENTS[0])


def _images(stones: npt.NDArray[np.integer], size: int, count: int) -> Board8:
    """``images[b, g]``: the flat stones ``stones[b]`` mapped by element ``g < count``."""
    # np.take, not stones[:, gathers]: mixing a slice with an index array is 7x slower.
    images: Board8 = np.take(stones, _gathers(size)[:count], axis=1).astype(np.int8)
    images[:, 8:] = np.take(_SWAP_COLOURS, images[:, 8:])
    return images


@dataclass
class FrameBatch:
    """What :func:`frame_batch` finds for a batch of positions.

    ``keys``: canonical keys (the scheme's hash array); ``elements``: index of the
    lowest element mapping each position onto its frame; ``symmetries``: each
    position's exact stabilizer within the group, as a bit mask over the indexes
    of :data:`~gohash.symmetry.ELEMENTS` (bit 0, the identity, always set); only a
    position whose key some ``T_g`` (g not the identity) fixes can have more (the
    theorem: ``g.P = P`` gives ``T_g(key) = key``); ``frames``: the packed frames
    as rows of :func:`packed_rows`, if asked for.
    """

    keys: npt.NDArray[np.uint64]
    elements: npt.NDArray[np.uint8]
    symmetries: npt.NDArray[np.uint16]
    frames: npt.NDArray[np.uint8] | None


Stones = npt.NDArray[np.integer] | Callable[[npt.NDArray[np.intp]], npt.NDArray[np.integer]]
"""Flat stones ``[B, N*N]``, or a function giving those of the rows it is given
(so that a caller holding packed positions unpacks only the rows asked for)."""


def frame_batch(
    stones: Stones,
    hashes: npt.NDArray[np.uint64],
    keys: KeyScheme,
    group: str = "full",
    *,
    frames: bool = True,
) -> FrameBatch:
    """Keys, frame elements, exact symmetries and (with ``frames``) frames of a batch
    of positions: ``stones[B, N*N]`` in ``row * N + col`` order (0 empty, 1 black,
    2 white) and their position hashes under ``keys``.

    One element attains the key of almost every position; its image is the frame,
    and the position has no symmetry.  Only positions whose key a ``T_g`` fixes
    (the empty board, symmetric positions, and hashes that are symmetric by
    accident, as with erratum E3) are compared point by point over the group:
    without ``frames``, only their stones are asked for.
    """

    def stones_at(rows: npt.NDArray[np.intp]) -> npt.NDArray[np.integer]:
        return stones[rows] if isinstance(stones, np.ndarray) else stones(rows)

    size = keys.size
    count = hashes.shape[0]
    elements = elements_of(group)
    canon, which = keys.canonical_array(hashes, group)
    fixed = np.zeros(count, dtype=bool)
    for g in _involutions(group):
        same = keys.transform_array(canon, g) == canon
        fixed |= same if same.ndim == 1 else same.all(axis=1)
    symmetries = np.ones(count, dtype=np.uint16)
    rows = np.flatnonzero(fixed)
    sub = stones_at(rows)
    # Every game starts from the empty board: every element fixes it, so its frame
    # is itself and the identity the lowest element mapping it there.
    empty = ~sub.any(axis=1)
    symmetries[rows[empty]] = (1 << len(elements)) - 1
    which[rows[empty]] = 0
    rows, sub = rows[~empty], sub[~empty]
    if rows.size:
        images = _images(sub, size, len(elements))
        stabilizer = (images == sub[:, np.newaxis, :]).all(axis=2)
        symmetries[rows] = stabilizer.astype(np.uint16) @ (
            np.uint16(1) << np.arange(len(elements), dtype=np.uint16)
        )
        for i, (row, h) in enumerate(zip(rows.tolist(), keys.to_ints(hashes[rows]), strict=True)):
            # The frame: the least image among the elements attaining the key (images
            # compare as their packings do: digits of one length, most significant
            # first), and the lowest of those elements with that image.
            which[row] = min(
                (images[i, g.index].tobytes(), g.index) for g in keys.canonical(h, group)[1]
            )[1]
    packed_frames = None
    if frames:
        every = stones_at(np.arange(count))
        framed = np.empty((count, size * size), dtype=np.int8)
        gathers = _gathers(size)
        for g in np.unique(which).tolist():
            at = which == g
            image = np.take(every[at], gathers[g], axis=1)
            framed[at] = np.take(_SWAP_COLOURS, image) if g >= 8 else image
        packed_frames = packed_rows(framed.reshape(count, size, size))
    return FrameBatch(canon, which, symmetries, packed_frames)


def canonical_frames(
    boards: Board8, keys: KeyScheme, group: str = "full"
) -> tuple[list[int], list[bytes], list[int]]:
    """Canonical keys, frames and element indexes of a batch ``boards[B, N, N]``;
    the twin of :func:`canonical_frame`."""
    count, size = boards.shape[0], boards.shape[-1]
    batch = frame_batch(boards.reshape(count, size * size), keys.hash_arrays(boards), keys, group)
    assert batch.frames is not None
    return keys.to_ints(batch.keys), _row_bytes(batch.frames), batch.elements.tolist()


# -- SGF sources to frames (in worker processes) ---------------------------------------------


@dataclass
class GameFrames:
    """One game's main line: move numbers, canonical keys, frames and the index of
    the element mapping each position onto its frame; ``error``: why it was cut short."""

    game: int
    size: int
    black: str | None
    white: str | None
    result: str | None
    sha256: str = ""
    moves: list[int] = field(default_factory=list)
    packed: list[bytes] = field(default_factory=list)
    keys: list[int] = field(default_factory=list)
    frames: list[bytes] = field(default_factory=list)
    elements: list[int] = field(default_factory=list)
    error: str | None = None


@dataclass
class SourceError:
    """A located error as plain data (exceptions with keyword arguments do not pickle)."""

    game: int | None
    move: int | None
    message: str


@dataclass
class FileFrames:
    """The games of one SGF source; only ``path`` and ``sha256`` if ``unchanged``."""

    path: str
    sha256: str
    unchanged: bool = False
    games: list[GameFrames] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)


class _Collector(BaseVisitor):
    """Keeps the main line of every game as packed positions; collects errors."""

    def __init__(self) -> None:
        self.games: list[GameFrames] = []
        self.errors: list[SourceError] = []

    def begin_game(self, info: GameInfo) -> None:
        players = info.players
        self.games.append(
            GameFrames(info.game, info.size, players.get("b"), players.get("w"), info.result)
        )

    def visit_position(self, event: PositionEvent) -> None:
        game = self.games[-1]
        game.moves.append(event.move_number)
        game.packed.append(event.board.position_key())

    def handle_error(self, error: GohashError) -> bool:
        self.errors.append(SourceError(error.game, error.move_number, str(error)))
        if self.games and error.game == self.games[-1].game:
            self.games[-1].error = str(error)
        return False


def source_frames(
    source: Source, factory: SchemeFactory, suicide_allowed: bool | None = None
) -> FileFrames:
    """Frames of every game of one SGF source; ``sha256`` of a game digests its root
    text fields and its exact positions.  ``suicide_allowed``: for every game, or
    as each game's ``RU`` says if None."""
    collector = _Collector()
    options = {} if suicide_allowed is None else {"suicide_allowed": suicide_allowed}
    walk_source(source, collector, board_options=options)
    for game in collector.games:
        digest = hashlib.sha256(f"{game.size}|{game.black}|{game.white}|{game.result}|".encode())
        blob = b"".join(game.packed)
        digest.update(blob)
        game.sha256 = digest.hexdigest()
        if game.packed:
            keys = factory(game.size)
            boards = unpack_frames(blob, len(game.packed), game.size)
            game.keys, game.frames, game.elements = canonical_frames(boards, keys)
        game.packed = []
    return FileFrames(
        source.name, hashlib.sha256(source.data).hexdigest(), False,
        collector.games, collector.errors,
    )


Task = tuple[Input | Source | GohashError, dict[str, str], SchemeFactory, bool | None]


def input_frames(task: Task) -> list[FileFrames | SourceError]:
    """Frames of every source of one input (in a worker process, or this one).

    ``task`` is the input (or a source or error read beforehand), the SHA-256 of
    its files already indexed, the scheme factory and the suicide override of
    :func:`source_frames`.  Sources with the same SHA-256 as before are only
    marked unchanged; unreadable ones become errors."""
    inp, known, factory, suicide_allowed = task
    out: list[FileFrames | SourceError] = []
    sources: Iterable[Source | GohashError] = (
        read_input(inp) if isinstance(inp, Input) else [inp]
    )
    for source in sources:
        if isinstance(source, GohashError):
            out.append(SourceError(None, None, str(source)))
            continue
        sha = hashlib.sha256(source.data).hexdigest()
        if known.get(source.name) == sha:
            out.append(FileFrames(source.name, sha, unchanged=True))
        else:
            out.append(source_frames(source, factory, suicide_allowed))
    return out


class NamedSchemes:
    """A picklable factory for a named scheme (worker processes get it)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, size: int) -> KeyScheme:
        return scheme(self.name, size)
