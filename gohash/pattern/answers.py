"""Answers: the hits of frequent corner squares, windows and bands, summed up once a segment.

Scope: :class:`SegmentAnswers`, for one segment of a pattern file, every
corner square key that :data:`FREQUENT` of its games hold, every class of
contents of a window anywhere (:mod:`gohash.pattern.windows`) and of a band
along an edge (:mod:`gohash.pattern.bands`) that as many hit, with the hits
of that square, window or band alone summed up as a search sums them, in
its canonical frame (:class:`~gohash.pattern.corners.Square`), and the games
left to scan; :class:`AnswerFile`, the file that keeps them beside the
pattern file.  What the answers are made of is
:func:`gohash.pattern.search.answer_segment`'s; how a search uses them,
:meth:`gohash.pattern.search.PatternQuery.search`'s.
Design: docs/design.md, ``gohash.pattern.answers``.
"""

from __future__ import annotations

import mmap
import os
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..segments import Layout, replacing
from .corners import Square

__all__ = ["ANSWER_COLUMNS", "FREQUENT", "FREQUENT_TO_MOVE", "AnswerFile", "SegmentAnswers",
           "segment_stamp"]

FREQUENT = 256
"""Games of a segment that must hold a corner square's key, or hit a window's
or band's content, for its hits to be summed up ahead: below it, a search scans them."""

FREQUENT_TO_MOVE = 1024
"""Games of a segment that must hold a key for its hits with each side to move
to be summed up too (two scans more a key): below it, such a search scans them."""

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
U32 = npt.NDArray[np.uint32]
U64 = npt.NDArray[np.uint64]
U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class SegmentAnswers:
    """A segment's answers, one a key (``keys``, as its corner postings hold
    them), side to move asked for (``to_move``: 0 any, 1 Black, 2 White, in the
    square's frame; the two sides only for keys :data:`FREQUENT_TO_MOVE` games
    hold) and winner of the key's games (``winners``: 1 Black, 2 White, 0
    neither; one answer for each that some of them have, so that a filter of
    results picks answers), sorted by the three: the square they are of
    (``sides``, ``corners``, ``black``, ``white``: a
    :class:`~gohash.pattern.corners.Square`), its matches, games hit and
    matches without a continuation, the games of the segment whose hits are
    not in them (``exceptions``, from ``exception_offsets``: two placements
    hit one position, whose match depends on the query's frame), and per
    continuation (rows from ``row_offsets``) its move in the square's frame
    (``npts * (colour is Black) + point``, the representative of its images
    under the square's symmetries), count, tenuki, wins of Black and White,
    and a game of the segment with its first and last date (-1: none).
    ``stamp``: :func:`segment_stamp` of what they were made from."""

    stamp: tuple[int, int]
    keys: U32
    to_move: U8
    winners: U8
    sides: U8
    corners: U8
    black: U64
    white: U64
    totals: I64
    games: I64
    ended: I64
    exception_offsets: I64
    exceptions: I32
    row_offsets: I64
    moves: I32
    count: I32
    tenuki: I32
    black_wins: I32
    white_wins: I32
    first_game: I32
    last_game: I32

    def find(self, key: int, square: Square, to_move: int = 0) -> range:
        """The answers of ``key`` with ``to_move`` (one a winner) if they are of the
        stones of ``square``, else none."""
        at = int(np.searchsorted(self.keys, np.uint32(key)))
        end = int(np.searchsorted(self.keys, np.uint32(key), side="right"))
        if at == end or (int(self.sides[at]), int(self.corners[at]), int(self.black[at]),
                         int(self.white[at])) != square.stones:
            return range(0)
        first = at + int(np.searchsorted(self.to_move[at:end], to_move))
        last = at + int(np.searchsorted(self.to_move[at:end], to_move, side="right"))
        return range(first, last)


def segment_stamp(ids: I64, shas: U64, winners: npt.NDArray[np.int8],
                  dates: list[str | None]) -> tuple[int, int]:
    """What a segment's answers are made of: the CRC-32 of its games (ids and
    SHA-256s) and that of the winners and dates the index gives them now."""
    games = zlib.crc32(shas.tobytes(), zlib.crc32(ids.tobytes()))
    text = "\x00".join("\x01" if d is None else d for d in dates).encode("utf-8", "replace")
    return games, zlib.crc32(text, zlib.crc32(np.ascontiguousarray(winners).tobytes()))


# A file: its header, then one block a segment answered, each a header (its
# stamp, its counts of answers, exceptions and rows, the CRC-32 of its body)
# and its columns, each padded to 8 bytes, in _COLUMNS' order.
_FILE = struct.Struct("<8sII")
_FILE_MAGIC = b"GHANSWER"
_FILE_VERSION = 6
_BLOCK = struct.Struct("<8sIIQQQQI4x")
_BLOCK_MAGIC = b"ANSWERS1"
_COLUMNS = (
    ("keys", np.uint32, "a"), ("to_move", np.uint8, "a"), ("winners", np.uint8, "a"),
    ("sides", np.uint8, "a"),
    ("corners", np.uint8, "a"),
    ("black", np.uint64, "a"), ("white", np.uint64, "a"), ("totals", np.int64, "a"),
    ("games", np.int64, "a"), ("ended", np.int64, "a"), ("exception_offsets", np.int64, "a+1"),
    ("exceptions", np.int32, "x"), ("row_offsets", np.int64, "a+1"), ("moves", np.int32, "r"),
    ("count", np.int32, "r"), ("tenuki", np.int32, "r"), ("black_wins", np.int32, "r"),
    ("white_wins", np.int32, "r"), ("first_game", np.int32, "r"), ("last_game", np.int32, "r"),
)


ANSWER_COLUMNS = tuple(name for name, _, _ in _COLUMNS)
"""The columns of :class:`SegmentAnswers` a file keeps (all but its stamp)."""


def _layout(answers: int, exceptions: int, rows: int) -> Layout:
    lengths = {"a": answers, "a+1": answers + 1, "x": exceptions, "r": rows}
    return Layout([(name, dtype, lengths[length]) for name, dtype, length in _COLUMNS])


class AnswerFile:
    """The answers beside a pattern file of board ``size`` (``path``): derived,
    like it; a block a segment, found again by its stamp."""

    def __init__(self, path: str, size: int) -> None:
        self.path = path
        self.size = size

    def read(self) -> list[SegmentAnswers]:
        """Its blocks (none for a missing file, or from the first that is damaged,
        cut short or not of this format on: those are made again)."""
        return self._read()[0]

    def faults(self) -> list[str]:
        """What is wrong with the file: a header not of this format, a block
        damaged or cut short; none for a missing file."""
        return self._read()[1]

    def _read(self) -> tuple[list[SegmentAnswers], list[str]]:
        try:
            with open(self.path, "rb") as f:
                if os.fstat(f.fileno()).st_size < _FILE.size:
                    return [], [f"{self.path}: shorter than its header"]
                buffer = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError:
            return [], []
        magic, version, size = _FILE.unpack_from(buffer, 0)
        if (magic, version, size) != (_FILE_MAGIC, _FILE_VERSION, self.size):
            return [], [f"{self.path}: not an answers file of version {_FILE_VERSION} for "
                        f"{self.size}x{self.size} (magic {magic!r}, version {version}, "
                        f"size {size})"]
        blocks: list[SegmentAnswers] = []
        at, total = _FILE.size, len(buffer)
        while at < total:
            if at + _BLOCK.size > total:
                return blocks, [f"{self.path}: block at byte {at:,} cut short"]
            magic, games, dates, answers, exceptions, rows, body, crc = _BLOCK.unpack_from(
                buffer, at)
            start = at + _BLOCK.size
            layout = _layout(answers, exceptions, rows)
            if (magic != _BLOCK_MAGIC or body != layout.size or start + body > total
                    or zlib.crc32(memoryview(buffer)[start : start + body]) != crc):
                return blocks, [f"{self.path}: block at byte {at:,} is damaged or cut short"]
            columns = layout.views(buffer, start)
            block = SegmentAnswers((games, dates), **columns)
            fault = _block_fault(block)
            if fault is not None:
                return blocks, [f"{self.path}: block at byte {at:,}: {fault}"]
            blocks.append(block)
            at = start + body
        return blocks, []

    def write(self, blocks: Iterable[SegmentAnswers]) -> None:
        """Replace the file with ``blocks`` (a new file renamed over the old), each
        written as it comes."""
        with replacing(self.path) as f:
            f.write(_FILE.pack(_FILE_MAGIC, _FILE_VERSION, self.size))
            for block in blocks:
                values = {name: getattr(block, name) for name in ANSWER_COLUMNS}
                body = _layout(len(block.keys), len(block.exceptions),
                               len(block.moves)).body(values)
                f.write(_BLOCK.pack(_BLOCK_MAGIC, *block.stamp, len(block.keys),
                                    len(block.exceptions), len(block.moves), len(body),
                                    zlib.crc32(body)))
                f.write(body)


def _block_fault(block: SegmentAnswers) -> str | None:
    """What is wrong with a block's offsets and values that a search indexes with."""
    for name, offsets, end in (("exception", block.exception_offsets, len(block.exceptions)),
                               ("row", block.row_offsets, len(block.moves))):
        if offsets[0] != 0 or offsets[-1] != end or np.any(np.diff(offsets) < 0):
            return f"its {name} offsets do not cut its columns into answers"
    order = (block.keys.astype(np.int64) * 4 + block.to_move) * 4 + block.winners
    if len(block.keys) and (np.any(np.diff(order) <= 0) or int(block.winners.max()) > 2
                            or int(block.to_move.max()) > 2):
        return "its keys, sides to move and winners are not increasing"
    if len(block.moves) and (int(block.moves.min()) < 0 or np.any(block.first_game < -1)
                             or np.any(block.last_game < -1)):
        return "a move or a game is negative"
    return None
