"""The games a pattern search scans: replayed once into a file beside the index, memory-mapped.

Scope: :class:`Flat`, main lines replayed by the compiled core into the points
each node changes, as :meth:`Matcher.scan <gohash.pattern.match.Matcher.scan>`
reads them; :class:`PatternFile`, the derived file that keeps them on disk in
segments of games (appended as games are added, read by memory map so that the
operating system's cache holds them, not the process); :class:`Segment`, one
such run of games; and :class:`GameStore`, the games of one board size a search
reads: the segments, and per game the few columns the summaries need, with the
inverted filter of :class:`Columns`; and :class:`StoreFile`, those columns and
that filter kept beside the pattern file, so that a search after opening reads
none of them again while the index has not changed.  Which games, and whether
a file is still the index's, are the index's (:mod:`gohash.index.patterns`).
"""

from __future__ import annotations

import itertools
import mmap
import os
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cached_property

import numpy as np
import numpy.typing as npt

from ..errors import PatternError
from ..group.coords import sgf_order
from ..segments import Layout, replacing
from . import kernel
from .answers import SegmentAnswers, segment_stamp
from .corners import Postings, corner_postings

__all__ = ["NO_LEVEL", "Columns", "Flat", "GameStore", "PatternFile", "Segment", "StoreFile",
           "Texts", "flatten"]

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I16 = npt.NDArray[np.int16]
I8 = npt.NDArray[np.int8]
U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]

NO_LEVEL = 127
"""A store's lowest level of a game with no rank recorded: above every level."""


@dataclass(frozen=True)
class Flat:
    """Main lines replayed once.  Game ``g``'s positions are nodes
    ``node_offsets[g]`` to ``node_offsets[g + 1]`` of the node columns: the
    next move's colour (0: none) and point (-1: a pass or none);
    ``first_to_move[g]`` is the side to move at its start, from which and its
    moves :meth:`sides` derives the side to move and move number of every
    position.  The changes of game ``g``'s nodes follow one another from
    ``changes[change_offsets[g]]``, each ``last << 15 | point << 4 | old << 2 |
    new`` (points ``row * size + col``, row 0 the bottom line; ``last`` set on a
    node's last change; a node that changes nothing has one word, ``1 << 15``,
    whose old and new are the same).  ``removed``: per game, a
    bitmap (``(size * size + 7) // 8`` bytes, bit ``p % 8`` of byte ``p // 8``) of
    the points a stone ever left in its main line, captured or cleared."""

    node_offsets: I64
    first_to_move: I8
    next_colour: I8
    next_point: I16
    change_offsets: I64
    changes: npt.NDArray[np.uint16]
    removed: U8

    @property
    def nbytes(self) -> int:
        """The bytes its columns take."""
        return sum(getattr(self, f.name).nbytes for f in fields(self))

    def sides(self, g: int) -> tuple[I8, I32]:
        """Game ``g``'s side to move and move number at each position: at the
        start, its :attr:`first_to_move` and 0; after a move (a node whose
        predecessor's next move has a colour), the other side and one more; else
        as before.  The kernel derives the same as it scans (``_sides``)."""
        n0, n1 = int(self.node_offsets[g]), int(self.node_offsets[g + 1])
        if n1 <= n0:
            return np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int32)
        colour = self.next_colour[n0 : n1 - 1].astype(np.int32)
        numbers = np.concatenate([[0], np.cumsum(colour != 0)]).astype(np.int32)
        # The last node at or before each that a move reached (0: none, the start).
        after = np.maximum.accumulate(np.concatenate(
            [[0], np.where(colour != 0, np.arange(1, n1 - n0), 0)]))
        mover = np.concatenate([[0], colour])[after]
        sides = np.where(after == 0, int(self.first_to_move[g]), 3 - mover).astype(np.int8)
        return sides, numbers


def flatten(data: bytes, offsets: I64, mains: I32, size: int) -> Flat:
    """The main lines of stored games replayed once by the compiled core (game
    ``g``'s stored form ``data[offsets[g]:offsets[g + 1]]``, its main line its
    first ``mains[g]`` nodes).  Raises :class:`~gohash.errors.StoredGameError`
    (``index`` the game's place, ``g``) for a stored game that does not replay,
    and :class:`~gohash.errors.PatternError` if the core is not built."""
    if kernel.match is None:
        raise PatternError("the compiled pattern kernel gohash.pattern._match is not built")
    return Flat(*kernel.match.flatten(data, offsets, mains, size))


@dataclass(frozen=True)
class Segment:
    """A run of games in a :class:`PatternFile`: their ids, the first 64 bits of
    their SHA-256 (``shas``; a replaced game is another game), their bitmaps of
    points ever black and ever white (the games table's, one after the other),
    their main lines replayed (:class:`Flat`) and the postings of their corner
    keys (:func:`~gohash.pattern.corners.corner_postings` of ``flat``)."""

    ids: I64
    shas: U64
    ever_black: U8
    ever_white: U8
    flat: Flat
    corners: Postings

    def __len__(self) -> int:
        return len(self.ids)


# A file: its header, then segments, each a header and its columns (each
# padded to 8 bytes) in _COLUMNS' order.  A segment's header holds the CRC-32
# of its columns, which `index check` verifies (and the corner postings against
# the replayed games they come from); a search checks their shapes and the
# kernel every value it indexes with.  Version 2 added the corner postings;
# version 3 keeps next points in 16 bits and no side to move or move number
# a node (they follow from the moves: Flat.sides); version 4 no count of
# changes a node (its last change is marked); version 5 the postings of the
# 5x5 corner squares beside the 7x7 ones (a search trusts the postings to hold
# every square it may ask for).
_FILE = struct.Struct("<8sII")
_FILE_MAGIC = b"GHPATTRN"
_FILE_VERSION = 5
_SEGMENT = struct.Struct("<8sQQQQQI4x")
_SEGMENT_MAGIC = b"SEGMENT4"
# (name, dtype, length): g games, n nodes, c changes, w bitmap bytes a game,
# p corner postings.
_COLUMNS = (
    ("ids", np.int64, "g"), ("shas", np.uint64, "g"), ("node_offsets", np.int64, "g+1"),
    ("change_offsets", np.int64, "g+1"), ("first_to_move", np.int8, "g"),
    ("next_colour", np.int8, "n"), ("next_point", np.int16, "n"),
    ("changes", np.uint16, "c"), ("removed", np.uint8, "gw"), ("ever_black", np.uint8, "gw"),
    ("ever_white", np.uint8, "gw"), ("corner_keys", np.uint32, "p"),
    ("corner_entries", np.uint32, "p"),
)


def _layout(games: int, nodes: int, changes: int, width: int, postings: int) -> Layout:
    """A segment's columns."""
    lengths = {"g": games, "g+1": games + 1, "n": nodes, "c": changes, "gw": games * width,
               "p": postings}
    return Layout([(name, dtype, lengths[length]) for name, dtype, length in _COLUMNS])


class PatternFile:
    """The derived file of one board ``size`` beside an index (``path``): games
    replayed once, in segments appended as games are added.  It holds nothing
    the index does not; deleting it costs one rebuild."""

    def __init__(self, path: str, size: int) -> None:
        self.path = path
        self.size = size
        self.width = (size * size + 7) // 8
        self.identity: tuple[int, int, int] | None = None

    def read(self) -> tuple[list[Segment], list[str]]:
        """Its segments, memory-mapped (none if there is no file), and its faults
        (a file cut short, a header or shape that is not the format's; the
        segments before a fault are kept).  Sets :attr:`identity` to the
        inode, length and modification time (ns) of the file read (None: none)."""
        return self._read(verify=False)

    def faults(self) -> list[str]:
        """Every fault of the file, CRCs included, and corner postings that are not
        those of their segment's games; none for a missing file."""
        return self._read(verify=True)[1]

    def _read(self, *, verify: bool) -> tuple[list[Segment], list[str]]:
        self.identity = None
        try:
            with open(self.path, "rb") as f:
                stat = os.fstat(f.fileno())
                total = stat.st_size
                self.identity = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
                if total == 0:
                    return [], [f"{self.path}: empty"]
                buffer = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError:
            return [], []
        if total < _FILE.size:
            return [], [f"{self.path}: {total} bytes, shorter than its header"]
        magic, version, size = _FILE.unpack_from(buffer, 0)
        if magic != _FILE_MAGIC or version != _FILE_VERSION or size != self.size:
            return [], [f"{self.path}: not a pattern file of version {_FILE_VERSION} for "
                        f"{self.size}x{self.size} (magic {magic!r}, version {version}, "
                        f"size {size})"]
        segments: list[Segment] = []
        at = _FILE.size
        while at < total:
            if at + _SEGMENT.size > total:
                return segments, [f"{self.path}: segment at byte {at:,} cut short"]
            magic, games, nodes, changes, postings, body, crc = _SEGMENT.unpack_from(buffer,
                                                                                     at)
            start = at + _SEGMENT.size
            layout = _layout(games, nodes, changes, self.width, postings)
            if magic != _SEGMENT_MAGIC or body != layout.size or start + body > total:
                return segments, [f"{self.path}: segment at byte {at:,} is damaged or cut "
                                  f"short"]
            if verify and zlib.crc32(memoryview(buffer)[start : start + body]) != crc:
                return segments, [f"{self.path}: segment at byte {at:,}: CRC mismatch"]
            columns = layout.views(buffer, start)
            corners = Postings(columns.pop("corner_keys"), columns.pop("corner_entries"))
            segment = Segment(columns.pop("ids"), columns.pop("shas"), columns.pop("ever_black"),
                              columns.pop("ever_white"), Flat(**columns), corners)
            fault = _shape_fault(segment)
            if not fault and verify:
                fault = _postings_fault(segment, self.size)
            if fault:
                return segments, [f"{self.path}: segment at byte {at:,}: {fault}"]
            segments.append(segment)
            at = start + body
        return segments, []

    def write(self, segments: list[Segment], *, append: bool) -> None:
        """Append ``segments`` to the file (creating it), or replace the file with
        them (a new file renamed over the old, which readers keep mapped)."""
        if append and os.path.exists(self.path):
            with open(self.path, "r+b") as f:
                f.seek(0, os.SEEK_END)
                for segment in segments:
                    self._write_segment(f, segment)
                f.flush()
                os.fsync(f.fileno())
            return
        with replacing(self.path) as f:
            f.write(_FILE.pack(_FILE_MAGIC, _FILE_VERSION, self.size))
            for segment in segments:
                self._write_segment(f, segment)

    def _write_segment(self, f: object, segment: Segment) -> None:
        flat = segment.flat
        values = {"ids": segment.ids, "shas": segment.shas, "ever_black": segment.ever_black,
                  "ever_white": segment.ever_white, "corner_keys": segment.corners.keys,
                  "corner_entries": segment.corners.entries,
                  **{c.name: getattr(flat, c.name) for c in fields(flat)}}
        body = _layout(len(segment), len(flat.next_colour), len(flat.changes), self.width,
                       len(segment.corners)).body(values)
        header = _SEGMENT.pack(_SEGMENT_MAGIC, len(segment), len(flat.next_colour),
                               len(flat.changes), len(segment.corners), len(body),
                               zlib.crc32(body))
        f.write(header)  # type: ignore[attr-defined]
        f.write(body)  # type: ignore[attr-defined]


def _shape_fault(segment: Segment) -> str | None:
    """What is wrong with a segment's offsets (which the kernel trusts) or its
    sides to move at the start, if anything."""
    flat = segment.flat
    for name, offsets, end in (("node", flat.node_offsets, len(flat.next_colour)),
                               ("change", flat.change_offsets, len(flat.changes))):
        if offsets[0] != 0 or offsets[-1] != end or np.any(np.diff(offsets) < 0):
            return f"its {name} offsets do not cut its columns into games"
    if np.any((flat.first_to_move < 0) | (flat.first_to_move > 2)):
        return "a side to move at the start is not 1 or 2"
    if len(segment) and np.any(np.diff(segment.ids) <= 0):
        return "its game ids are not increasing"
    return None


def _postings_fault(segment: Segment, size: int) -> str | None:
    """What is wrong with a segment's corner postings: not those of its replayed
    games (a search finds a key's games by a binary search, so postings out of
    order would lose games, not fail)."""
    try:
        again = corner_postings(segment.flat, size)
    except ValueError as e:
        return f"its corner postings cannot be recomputed: {e}"
    if not (np.array_equal(again.keys, segment.corners.keys)
            and np.array_equal(again.entries, segment.corners.entries)):
        return "its corner postings are not those of its games"
    return None


class Columns:
    """The inverted filter: for every point and colour, the bitset over a store's
    games (bit ``g % 64`` of word ``g // 64``) of those where a stone of that
    colour ever stood there, from the games' ever bitmaps; and one column of all
    ones.  A placement's candidate games are the AND of the columns of its
    stones; a query's, the OR over its placements."""

    def __init__(self, size: int, ever_black: list[U8], ever_white: list[U8],
                 games: int) -> None:
        bits = (size * size + 7) // 8 * 8
        table = np.zeros((2 * bits + 1, (games + 63) // 64 * 8), dtype=np.uint8)
        # In steps of 8 * 1024 games: unpacking all of them at once takes a byte a bit.
        for colour, parts in enumerate((ever_black, ever_white)):
            flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint8)
            rows = flat.reshape(-1, bits // 8)
            for start in range(0, len(rows), 8192):
                block = np.unpackbits(rows[start : start + 8192], axis=1, bitorder="little")
                packed = np.packbits(block.T, axis=1, bitorder="little")
                table[colour * bits : (colour + 1) * bits,
                      start // 8 : start // 8 + packed.shape[1]] = packed
        table[2 * bits] = 0xFF
        self._of(size, table.view(np.uint64))

    @classmethod
    def of_table(cls, size: int, table: U64) -> Columns:
        """The filter whose :attr:`table` (``[2 * bits + 1, words]``) is given."""
        columns = cls.__new__(cls)
        columns._of(size, table)
        return columns

    def _of(self, size: int, table: U64) -> None:
        self.table: U64 = table
        self.bits = (size * size + 7) // 8 * 8
        self.words = table.shape[1]
        self.ones = 2 * self.bits
        self.order = sgf_order(size)


class Texts:
    """A text column of a store's games, interned: its distinct texts, sorted
    (:attr:`values`: UTF-8 in ``data``, value ``i`` ending at byte ``ends[i]``),
    and per game the index of its text among them (``ranks``; -1: none).  The
    values are decoded when first asked for: most searches ask for none."""

    def __init__(self, data: bytes, ends: I64, ranks: I32) -> None:
        self.data = data
        self.ends = ends
        self.ranks = ranks

    @classmethod
    def of(cls, texts: list[str | None]) -> Texts:
        """The column of ``texts`` (None: none)."""
        values = sorted({t for t in texts if t is not None})
        rank = {t: i for i, t in enumerate(values)}
        encoded = [v.encode("utf-8", "surrogatepass") for v in values]
        return cls(b"".join(encoded), np.cumsum([len(e) for e in encoded], dtype=np.int64),
                   np.array([-1 if t is None else rank[t] for t in texts], dtype=np.int32))

    @cached_property
    def values(self) -> list[str]:
        """The distinct texts, sorted."""
        bounds = [0, *self.ends.tolist()]
        return [self.data[a:b].decode("utf-8", "surrogatepass")
                for a, b in itertools.pairwise(bounds)]

    def where(self, test: Callable[[str], bool]) -> npt.NDArray[np.bool_]:
        """Per game, whether its text passes ``test`` (asked once a distinct
        text; False for a game without one)."""
        # The last entry is for rank -1.
        return np.array([test(t) for t in self.values] + [False], dtype=np.bool_)[self.ranks]


@dataclass
class GameStore:
    """The games of one ``size`` a pattern search reads, numbered 0, 1, ... over
    the :attr:`segments` one after the other (``starts[s]``: the number of
    segment ``s``'s first game).  Per game: ``ids``, ``live`` (the index holds
    it now, with a position), ``winners`` 1 (Black), 2 (White) or 0 (neither,
    or unknown), ``lowest_levels`` (the lower of the players' recorded rank
    levels, :data:`NO_LEVEL` if neither is recorded), ``handicaps``, and the
    text columns ``texts`` by name (``date`` among them); and the inverted filter
    :attr:`columns`.  The search reads the winners and dates; the filters
    (:mod:`gohash.index.filters`) read them all."""

    size: int
    segments: list[Segment]
    ids: I64
    live: npt.NDArray[np.bool_]
    winners: I8
    lowest_levels: I8
    handicaps: I16
    texts: dict[str, Texts]
    columns: Columns
    answers: list[SegmentAnswers | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.starts: I64 = np.cumsum([0] + [len(s) for s in self.segments]).astype(np.int64)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def dates(self) -> list[str]:
        """The distinct dates, sorted."""
        return self.texts["date"].values

    @property
    def date_ranks(self) -> I32:
        """Per game, the index of its date in :attr:`dates` (-1: none)."""
        return self.texts["date"].ranks

    @cached_property
    def stamps(self) -> list[tuple[int, int]]:
        """Per segment, :func:`~gohash.pattern.answers.segment_stamp` of its games
        and of the winners and dates this store gives them: what its answers
        are made of."""
        dates, stamps = self.dates, []
        for s, segment in enumerate(self.segments):
            start, end = int(self.starts[s]), int(self.starts[s + 1])
            stamps.append(segment_stamp(segment.ids, segment.shas, self.winners[start:end],
                                        [dates[r] if r >= 0 else None
                                         for r in self.date_ranks[start:end].tolist()]))
        return stamps

    def segment_of(self, g: int) -> int:
        """The segment holding game ``g``."""
        return int(np.searchsorted(self.starts, g, side="right")) - 1

    @property
    def nbytes(self) -> int:
        """The bytes of its segments (on disk, mapped) besides what it holds in memory."""
        return sum(s.flat.nbytes + s.ids.nbytes * 2 + s.ever_black.nbytes * 2
                   for s in self.segments)


# A store file: its header, then live (u1), winners (i1), lowest levels (i1),
# handicaps (i2), each text column's ranks (i4, the columns in order), each
# column's count of distinct values (i8), the values' end offsets (i8) and
# their UTF-8 bytes, and the filter's table (u8), each padded to 8 bytes.  The
# header names what it was made from (the stamp: the index's generation, the
# pattern file's identity) and holds the CRC-32 of the rest.
_STATE = struct.Struct("<8sIIQQQQQQQQI4x")
_STATE_MAGIC = b"GHSTORE1"
_STATE_VERSION = 2


def _state_layout(games: int, texts: int, values: int, text_bytes: int, rows: int,
                  words: int) -> Layout:
    """A store file's columns."""
    return Layout([("live", np.uint8, games), ("winners", np.int8, games),
                   ("lowest_levels", np.int8, games), ("handicaps", np.int16, games),
                   ("ranks", np.int32, texts * games), ("counts", np.int64, texts),
                   ("ends", np.int64, values), ("texts", np.uint8, text_bytes),
                   ("table", np.uint64, rows * words)])


class StoreFile:
    """The columns of a :class:`GameStore` that are not its segments' (``live``,
    ``winners``, ``lowest_levels``, ``handicaps``, the text columns named
    ``texts``, in that order, and the filter's table), kept in a file beside
    the pattern file of board ``size`` (``path``), named by a ``stamp``: what
    they were read from (the index's generation and the pattern file's
    :attr:`PatternFile.identity`).  It holds nothing the index does not; a
    missing, damaged or stale file is made again."""

    def __init__(self, path: str, size: int, texts: tuple[str, ...]) -> None:
        self.path = path
        self.size = size
        self.texts = texts
        self.bits = (size * size + 7) // 8 * 8

    def read(self, stamp: tuple[int, int, int, int], segments: list[Segment]) -> GameStore | None:
        """The store of ``segments`` (those of the pattern file ``stamp`` names),
        if the file was made from ``stamp`` and is sound; else None."""
        store, _ = self._read(stamp, segments)
        return store

    def faults(self, segments: list[Segment]) -> list[str]:
        """What is wrong with the file (none if it is missing) for ``segments``:
        cut short, not of the format, a CRC or a value out of range."""
        return self._read(None, segments)[1]

    def _read(self, stamp: tuple[int, int, int, int] | None,
              segments: list[Segment]) -> tuple[GameStore | None, list[str]]:
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None, []
        if len(data) < _STATE.size:
            return None, [f"{self.path}: {len(data)} bytes, shorter than its header"]
        (magic, version, size, generation, inode, length, mtime, games, values, text_bytes,
         words, crc) = _STATE.unpack_from(data, 0)
        total = sum(len(s) for s in segments)
        layout = _state_layout(games, len(self.texts), values, text_bytes,
                               2 * self.bits + 1, words)
        if (magic != _STATE_MAGIC or version != _STATE_VERSION or size != self.size
                or _STATE.size + layout.size != len(data)):
            return None, [f"{self.path}: not a store file of version {_STATE_VERSION} for "
                          f"{self.size}x{self.size}, or cut short"]
        if zlib.crc32(memoryview(data)[_STATE.size:]) != crc:
            return None, [f"{self.path}: CRC mismatch"]
        if stamp is not None and (generation, inode, length, mtime) != stamp:
            return None, []  # stale: made from another index or pattern file
        if games != total or words != (total + 63) // 64:
            return None, [f"{self.path}: {games:,} games, not the {total:,} of its pattern file"]
        columns = layout.views(data, _STATE.size)
        texts = _texts(self.texts, columns["ranks"].reshape(len(self.texts), games),
                       columns["counts"], columns["ends"], columns["texts"].tobytes(),
                       thorough=stamp is None)
        winners, levels = columns["winners"], columns["lowest_levels"]
        if texts is None or (np.any((winners < 0) | (winners > 2)) or np.any(
                (levels < 0) | (levels > NO_LEVEL)) or np.any(columns["handicaps"] < 0)):
            return None, [f"{self.path}: a winner, level, handicap, text or its rank "
                          f"out of range"]
        ids = np.concatenate([s.ids for s in segments]) if segments else np.zeros(0, np.int64)
        table = columns["table"].reshape(2 * self.bits + 1, words)
        return GameStore(self.size, segments, ids, columns["live"].astype(np.bool_), winners,
                         levels, columns["handicaps"], texts,
                         Columns.of_table(self.size, table)), []

    def write(self, stamp: tuple[int, int, int, int], store: GameStore) -> None:
        """Replace the file with ``store``'s columns, named by ``stamp`` (a new
        file renamed over the old)."""
        columns = [store.texts[name] for name in self.texts]
        data = b"".join(c.data for c in columns)
        bases = np.cumsum([0] + [len(c.data) for c in columns[:-1]], dtype=np.int64)
        ends = np.concatenate([c.ends + base for c, base in zip(columns, bases, strict=True)])
        table = store.columns.table
        body = _state_layout(len(store), len(columns), len(ends), len(data),
                             table.shape[0], table.shape[1]).body(
            {"live": store.live, "winners": store.winners,
             "lowest_levels": store.lowest_levels, "handicaps": store.handicaps,
             "ranks": np.concatenate([c.ranks for c in columns]),
             "counts": [len(c.ends) for c in columns], "ends": ends, "texts": data,
             "table": table})
        header = _STATE.pack(_STATE_MAGIC, _STATE_VERSION, self.size, *stamp, len(store),
                             len(ends), len(data), store.columns.words, zlib.crc32(body))
        with replacing(self.path) as f:
            f.write(header)
            f.write(body)


def _texts(names: tuple[str, ...], ranks: I32, counts: I64, ends: I64, data: bytes, *,
           thorough: bool) -> dict[str, Texts] | None:
    """A store file's text columns, or None if they do not hold together:
    counts or ends out of order, text that is not UTF-8 or a value that does
    not start a character, a rank out of range, dates (all values if
    ``thorough``) not sorted and distinct."""
    if (np.any(counts < 0) or int(counts.sum()) != len(ends) or np.any(np.diff(ends) < 0)
            or (ends[-1] if len(ends) else 0) != len(data) or (len(ends) and ends[0] < 0)):
        return None
    try:  # one decode for all: each value is UTF-8 if each starts a character
        data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None
    blob = np.frombuffer(data, dtype=np.uint8)
    if np.any(blob[ends[ends < len(data)]] & 0xC0 == 0x80):
        return None
    out, first = {}, 0
    for name, count, rank in zip(names, counts.tolist(), ranks, strict=True):
        base = int(ends[first - 1]) if first else 0
        column = ends[first : first + count]
        first += count
        texts = Texts(data[base : int(column[-1]) if count else base], column - base, rank)
        if np.any(rank < -1) or np.any(rank >= count) or (
                (thorough or name == "date")
                and any(a >= b for a, b in itertools.pairwise(texts.values))):
            return None
        out[name] = texts
    return out
