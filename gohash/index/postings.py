"""The postings of an index: a sorted file beside it, memory-mapped.

Scope: :class:`PostingsFile`, the file ``DB-postings`` (:func:`postings_path`)
of an index ``DB``: segments of postings ``(key, game id, seq)`` sorted by key,
a sorted run appended at each flush of a build, merged into one segment at
the end of it (:meth:`PostingsFile.compact`), read by memory map;
:func:`live_postings`, the postings of one key whose games the index holds
(:func:`live_postings_many`, of many);
:func:`alive`, the index's games as a table by id; and the passes over every
posting by ranges of keys that counts, ``check``, ``dupes`` and the
aggregates make.  A posting is a candidate only: every one is confirmed on
the game's position.  Design: docs/design.md, ``gohash.index.postings``.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import mmap
import os
import sqlite3
import struct
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from ..errors import DamagedIndexError, IndexFileError
from ..segments import Layout
from .values import damaged

__all__ = ["CHUNK_TOPS", "KEY_OFFSET", "TOPS", "PostingsFile", "Segment", "alive", "held_by",
           "live_postings", "live_postings_many", "postings_path", "ranges"]

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]
Alive = npt.NDArray[np.int64]

KEY_OFFSET = 1 << 47
"""Added to a posting key (48 bits, signed) to make it unsigned: its top 16 bits
are a segment's directory, its low 32 bits a column."""
TOPS = 1 << 16
CHUNK_TOPS = 256
"""Directory entries a pass over the postings of several indexes reads at a
time (the same ranges in each: the shards of a sharded index)."""
CHUNK_POSTINGS = 1 << 20
"""Postings a pass over every posting reads at a time (some 100 MB of working
memory), but for the postings of one directory entry, which are never split.
Canonical keys are the least of 16 images, so they are far from uniform: the
ranges are cut where the directory's counts say, not at equal widths."""
_GAMES_PER_QUERY = 500

# A file: its header, then segments, each a header and its columns (each padded
# to 8 bytes) in this order: the ids of the games it holds (int64, increasing),
# the directory (the distinct top 16 bits of its keys, uint16, increasing, and
# where each one's postings start, int64, one more), the low 32 bits of each
# posting's key (uint32), each posting's game id and seq (little-endian, of the
# segment's widths in bytes).  A segment's header holds the CRC-32 of its
# columns, which `index check` verifies.
_FILE = struct.Struct("<8sII")
_FILE_MAGIC = b"GHPOSTNG"
_FILE_VERSION = 1
_SEGMENT = struct.Struct("<8sQQQBB6xQI4x")
_SEGMENT_MAGIC = b"POSTSEG1"


def postings_path(index: str) -> str:
    """The postings file beside the index file ``index``."""
    return f"{index}-postings"


def _layout(postings: int, games: int, tops: int, game_width: int,
            seq_width: int) -> Layout:
    """A segment's columns."""
    return Layout([("ids", np.int64, games), ("tops", np.uint16, tops),
                   ("starts", _starts_type(postings), tops + 1), ("low", np.uint32, postings),
                   ("game", np.uint8, postings * game_width),
                   ("seq", np.uint8, postings * seq_width)])


def _starts_type(postings: int) -> type[np.unsignedinteger[Any]]:
    """The directory's offsets: 32 bits where they hold a segment's postings."""
    return np.uint32 if postings < 1 << 32 else np.uint64


def _width(values: I64, least: int) -> int:
    """The bytes that hold every value of ``values`` (at least ``least``)."""
    top = int(values.max()) if len(values) else 0
    width = least
    while top >> (8 * width):
        width += 1
    return width


def _pack(values: I64, width: int) -> bytes:
    return values.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :width].tobytes()


def _unpack(raw: U8, width: int) -> I64:
    wide = np.zeros((len(raw) // width, 8), dtype=np.uint8)
    wide[:, :width] = raw.reshape(-1, width)
    return wide.view("<i8").reshape(-1)


@dataclass(frozen=True)
class Segment:
    """A run of postings sorted by key: ``ids`` the games it holds, the directory
    (``tops``, ``starts``), the keys' low 32 bits ``low`` and the games and seqs
    packed ``game_width`` and ``seq_width`` bytes each."""

    ids: I64
    tops: npt.NDArray[np.uint16]
    starts: I64
    low: npt.NDArray[np.uint32]
    game: U8
    seq: U8
    game_width: int
    seq_width: int

    def __len__(self) -> int:
        return len(self.low)

    def range_of(self, key: int) -> tuple[int, int]:
        """The postings of ``key``: a range of the segment."""
        u = key + KEY_OFFSET
        top, low = u >> 32, u & 0xFFFFFFFF
        # Binary searches on memoryviews: a few numpy calls cost more than the search.
        tops, starts, lows = self._views
        i = bisect.bisect_left(tops, top)
        if i == len(tops) or tops[i] != top:
            return 0, 0
        a, b = starts[i], starts[i + 1]
        return bisect.bisect_left(lows, low, a, b), bisect.bisect_right(lows, low, a, b)

    @functools.cached_property
    def _views(self) -> tuple[memoryview, memoryview, memoryview]:
        return self.tops.data, self.starts.data, self.low.data

    @staticmethod
    def values(column: U8, a: int, b: int, width: int) -> list[int]:
        """Values ``a`` to ``b`` of a packed column, as Python integers (the few
        of a lookup without numpy's calls)."""
        if b - a > 32:
            values: list[int] = _unpack(column[a * width : b * width], width).tolist()
            return values
        raw = column[a * width : b * width].tobytes()
        return [int.from_bytes(raw[i : i + width], "little") for i in range(0, len(raw), width)]

    def games(self, a: int, b: int) -> I64:
        return _unpack(self.game[a * self.game_width : b * self.game_width], self.game_width)

    def seqs(self, a: int, b: int) -> I64:
        return _unpack(self.seq[a * self.seq_width : b * self.seq_width], self.seq_width)

    def keys(self, first: int, last: int) -> tuple[I64, int]:
        """The keys (offset by :data:`KEY_OFFSET`) whose top 16 bits are ``first``
        to ``last - 1``, in order, and the place of the first in the segment."""
        i, j = np.searchsorted(self.tops, [first, last]).tolist()
        a, b = int(self.starts[i]), int(self.starts[j])
        tops = np.repeat(self.tops[i:j].astype(np.int64), np.diff(self.starts[i : j + 1]))
        return (tops << 32) | self.low[a:b].astype(np.int64), a

    def chunk(self, first: int, last: int) -> tuple[I64, I64, I64]:
        """The postings whose keys' top 16 bits are ``first`` to ``last - 1``:
        keys (offset by :data:`KEY_OFFSET`), games, seqs, in key order."""
        keys, a = self.keys(first, last)
        return keys, self.games(a, a + len(keys)), self.seqs(a, a + len(keys))

    def at(self, rows: I64) -> tuple[I64, I64]:
        """The games and seqs of the postings ``rows``."""
        return (_unpack(self.game.reshape(-1, self.game_width)[rows].reshape(-1),
                        self.game_width),
                _unpack(self.seq.reshape(-1, self.seq_width)[rows].reshape(-1), self.seq_width))


def _segment_fault(segment: Segment, verify: bool) -> str | None:
    """What is wrong with a segment's directory and ids (which slicing trusts), and
    with ``verify`` its keys' order, if anything."""
    starts, n = segment.starts, len(segment)
    if starts[0] != 0 or starts[-1] != n or np.any(np.diff(starts) <= 0):
        return "its directory does not cut its postings into keys"
    if np.any(np.diff(segment.tops.astype(np.int64)) <= 0):
        return "its directory is not increasing"
    if np.any(np.diff(segment.ids) <= 0) or (len(segment.ids) and segment.ids[0] < 1):
        return "its game ids are not increasing"
    if verify:
        # A range of the directory at a time (its memory).
        for i in range(0, len(segment.tops), CHUNK_TOPS):
            j = min(i + CHUNK_TOPS, len(segment.tops))
            a, b = int(starts[i]), int(starts[j])
            rises = np.diff(segment.low[a:b].astype(np.int64)) >= 0
            rises[starts[i + 1 : j] - a - 1] = True  # where the next key's top begins
            if not rises.all():
                return "its keys are not in order"
            if not held_by(segment.ids, segment.games(a, b)).all():
                return "it holds postings of games it does not list"
    return None


class PostingsFile:
    """The postings file at ``path``: its segments, read by memory map again
    whenever the file changed (a build appends runs, and replaces the file
    when it merges them: readers keep the mapping they have)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._read: tuple[list[Segment], list[str]] = ([], [])

    def segments(self) -> tuple[list[Segment], list[str]]:
        """Its segments (none if there is no file) and its faults (a header or
        shape that is not the format's; the segments before a fault are kept).
        A last segment cut short is none: a build is writing it, or was killed
        while it did, and no game of the index has its postings there (a
        build writes them before it commits their games)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._stamp, self._read = None, ([], [])
            return self._read
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        if stamp != self._stamp:
            segments, faults, _ = self._scan(verify=False)
            self._read, self._stamp = (segments, faults), stamp
        return self._read

    def exists(self) -> bool:
        return os.path.exists(self.path)

    def faults(self) -> list[str]:
        """Every fault of the file, CRCs, the order of keys and a last segment
        cut short included."""
        _, faults, cut = self._scan(verify=True)
        return faults + [f"the postings file {self.path!r}: its last segment is cut short "
                         "(a build killed while it wrote it; the next build drops it)"] * cut

    def usable(self) -> list[Segment]:
        """Its segments; raise :class:`~gohash.errors.DamagedIndexError` if it has a fault."""
        segments, faults = self.segments()
        if faults:
            raise damaged(None, f"{faults[0]}; `gohash index build` writes it again")
        return segments

    def _scan(self, *, verify: bool) -> tuple[list[Segment], list[str], bool]:
        """Its segments, its faults, and whether its last segment is cut short."""
        try:
            with open(self.path, "rb") as f:
                total = os.fstat(f.fileno()).st_size
                if total == 0:
                    return [], [f"the postings file {self.path!r} is empty"], False
                buffer = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError:
            return [], [], False
        except OSError as e:
            return [], [f"the postings file {self.path!r} cannot be read: {e.strerror}"], False
        name = f"the postings file {self.path!r}"
        if total < _FILE.size:
            return [], [f"{name}: {total} bytes, shorter than its header"], False
        magic, version, _ = _FILE.unpack_from(buffer, 0)
        if magic != _FILE_MAGIC or version != _FILE_VERSION:
            return [], [f"{name}: not a postings file of version {_FILE_VERSION} (magic "
                        f"{magic!r}, version {version})"], False
        segments: list[Segment] = []
        at = _FILE.size
        while at < total:
            if at + _SEGMENT.size > total:
                return segments, [], True
            magic, n, games, tops, gw, sw, body, crc = _SEGMENT.unpack_from(buffer, at)
            start = at + _SEGMENT.size
            layout = _layout(n, games, tops, gw, sw)
            if (magic != _SEGMENT_MAGIC or not 1 <= gw <= 8 or not 1 <= sw <= 8
                    or tops > TOPS or body != layout.size):
                return segments, [f"{name}: segment at byte {at:,} is damaged"], False
            if start + body > total:
                return segments, [], True
            if verify and zlib.crc32(memoryview(buffer)[start : start + body]) != crc:
                return segments, [f"{name}: segment at byte {at:,}: CRC mismatch"], False
            columns = layout.views(buffer, start)
            columns["starts"] = columns["starts"].astype(np.int64)  # 65,537 at most
            segment = Segment(**columns, game_width=gw, seq_width=sw)
            fault = _segment_fault(segment, verify)
            if fault:
                return segments, [f"{name}: segment at byte {at:,}: {fault}"], False
            segments.append(segment)
            at = start + body
        return segments, [], False

    # -- reading -------------------------------------------------------------------------------

    def lookup(self, key: int) -> list[tuple[int, int]]:
        """The postings ``(game, seq)`` of ``key`` in every segment, each once, in
        order of game and seq (dead games' included)."""
        found = []
        for segment in self.usable():
            a, b = segment.range_of(key)
            if b > a:
                found.append(list(zip(segment.values(segment.game, a, b, segment.game_width),
                                      segment.values(segment.seq, a, b, segment.seq_width),
                                      strict=True)))
        if len(found) == 1:  # one key's postings are in order of game and seq
            return found[0]
        return sorted({posting for part in found for posting in part})

    def lookup_arrays(self, key: int) -> tuple[I64, I64]:
        """:meth:`lookup` as two arrays, games and seqs (the many postings of a
        frequent position, without a tuple each)."""
        parts = []
        for segment in self.usable():
            a, b = segment.range_of(key)
            if b > a:
                parts.append((segment.games(a, b), segment.seqs(a, b)))
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        if len(parts) == 1:  # one key's postings are in order of game and seq
            return parts[0]
        games, seqs = (np.concatenate([part[c] for part in parts]) for c in range(2))
        order = np.lexsort((seqs, games))
        games, seqs = games[order], seqs[order]
        first = np.ones(len(games), dtype=np.bool_)
        first[1:] = (np.diff(games) != 0) | (np.diff(seqs) != 0)
        return games[first], seqs[first]

    def count(self, key: int) -> int:
        """How many postings of ``key`` the segments hold, dead games' included."""
        return sum(b - a for a, b in (s.range_of(key) for s in self.usable()))

    def chunks(self, live: Alive | None, step: int | None = None
               ) -> Iterator[tuple[I64, I64, I64]]:
        """Every posting of the games in ``live`` (all if None; :func:`alive`), a
        range of keys at a time (some :data:`CHUNK_POSTINGS`, or ``step``
        entries of the directory each), those of every segment together: keys
        (offset by :data:`KEY_OFFSET`), games, seqs, in order of key."""
        segments = self.usable()
        return self._chunks(segments, live, "key", ranges(segments, step))

    @staticmethod
    def _chunks(segments: list[Segment], live: Alive | None, order: str | None,
                bounds: list[int]) -> Iterator[tuple[I64, I64, I64]]:
        """:meth:`chunks` of ``segments`` by the ranges of the directory between
        ``bounds``, in order of key (``"key"``), of key, game and seq
        (``"posting"``) or as they come (None)."""
        # A segment all of whose games are live needs no test a posting.
        whole = [live is None or bool(held_by(live, s.ids).all()) for s in segments]
        for first, last in itertools.pairwise(bounds):
            parts = []
            for segment, kept in zip(segments, whole, strict=True):
                u, games, seqs = segment.chunk(first, last)
                if not kept:
                    assert live is not None
                    keep = held_by(live, games)
                    u, games, seqs = u[keep], games[keep], seqs[keep]
                parts.append((u, games, seqs))
            u, games, seqs = (np.concatenate([p[c] for p in parts]) if parts
                              else np.zeros(0, np.int64) for c in range(3))
            if order is not None and len(segments) > 1:  # one segment is in order
                at = (np.lexsort((seqs, games, u)) if order == "posting"
                      else np.argsort(u, kind="stable"))
                u, games, seqs = u[at], games[at], seqs[at]
            yield u, games, seqs

    def held(self) -> I64:
        """The ids of the games whose postings the file holds."""
        segments = self.usable()
        if not segments:
            return np.zeros(0, np.int64)
        return np.unique(np.concatenate([s.ids for s in segments]))

    def max_id(self) -> int:
        """The greatest game id the file holds postings of (0: none)."""
        return max((int(s.ids[-1]) for s in self.usable() if len(s.ids)), default=0)

    # -- writing -------------------------------------------------------------------------------

    def append(self, ids: I64, keys: I64, games: I64, seqs: I64) -> None:
        """Append a segment: the postings ``(keys, games, seqs)`` (keys as stored)
        of the games ``ids``, sorted here; the file is created if missing."""
        u = keys + KEY_OFFSET
        # A build stages its games' postings in order of game and seq, so one
        # stable sort by key orders them as the sort by key, game and seq would.
        dg, ds = np.diff(games), np.diff(seqs)
        if bool(((dg > 0) | ((dg == 0) & (ds >= 0))).all()):
            order = np.argsort(u, kind="stable")
        else:
            order = np.lexsort((seqs, games, u))
        u, games, seqs = u[order], games[order], seqs[order]
        top = u >> 32
        tops, first = np.unique(top, return_index=True)
        starts = np.append(first, len(u)).astype(np.int64)
        gw, sw = _width(games, 3), _width(seqs, 2)
        values = {"ids": np.unique(ids).astype(np.int64).tobytes(),
                  "tops": tops.astype(np.uint16).tobytes(),
                  "starts": starts.astype(_starts_type(len(u))).tobytes(),
                  "low": (u & 0xFFFFFFFF).astype(np.uint32).tobytes(),
                  "game": _pack(games, gw), "seq": _pack(seqs, sw)}
        layout = _layout(len(u), len(values["ids"]) // 8, len(tops), gw, sw)
        data = layout.body(values)
        header = _SEGMENT.pack(_SEGMENT_MAGIC, len(u), len(values["ids"]) // 8, len(tops), gw, sw,
                               layout.size, zlib.crc32(data))
        try:
            with open(self.path, "ab") as f:
                if not f.tell():
                    f.write(_FILE.pack(_FILE_MAGIC, _FILE_VERSION, 0))
                f.write(header)
                f.write(data)
        except OSError as e:
            raise IndexFileError(f"cannot write the postings file: {e.strerror}",
                                 file=self.path) from None

    def compact(self, live: Alive, *, salvage: bool = False) -> bool:
        """Merge the segments into one holding the postings of the games ``live``
        holds only, written as a new file renamed over the old (readers keep
        the old mapping), a range of keys at a time; nothing if the file is one
        segment of live games already.  ``salvage``: the segments before a fault
        or a last segment cut short, always written.  True if it wrote."""
        try:
            return self._compact(live, salvage)
        except OSError as e:
            raise IndexFileError(f"cannot write the postings file: {e.strerror}",
                                 file=self.path) from None

    def _compact(self, live: Alive, salvage: bool) -> bool:
        segments = self._scan(verify=True)[0] if salvage else self.usable()
        if not segments and not salvage:
            return False
        held = (np.unique(np.concatenate([s.ids for s in segments])) if segments
                else np.zeros(0, np.int64))
        kept = held[held_by(live, held)]
        if len(segments) == 1 and len(kept) == len(held) and not salvage:
            return False
        # First the directory (postings per top), then the columns at their offsets.
        counts = np.zeros(TOPS, dtype=np.int64)
        gmax = smax = 0
        bounds = ranges(segments)
        for u, games, seqs in self._chunks(segments, live, None, bounds):
            counts += np.bincount(u >> 32, minlength=TOPS)
            if len(u):
                gmax, smax = max(gmax, int(games.max())), max(smax, int(seqs.max()))
        tops = np.flatnonzero(counts)
        starts = np.zeros(len(tops) + 1, dtype=np.int64)
        np.cumsum(counts[tops], out=starts[1:])
        n = int(starts[-1])
        gw, sw = _width(np.array([gmax]), 3), _width(np.array([smax]), 2)
        layout = _layout(n, len(kept), len(tops), gw, sw)
        body = layout.size
        at = {name: offset for name, _, _, offset in layout.placed}
        base = _FILE.size + _SEGMENT.size
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            with open(temporary, "w+b") as f:
                f.truncate(base + body)
                fd = f.fileno()
                os.pwrite(fd, _FILE.pack(_FILE_MAGIC, _FILE_VERSION, 0), 0)
                for name, raw in (("ids", kept.astype(np.int64).tobytes()),
                                  ("tops", tops.astype(np.uint16).tobytes()),
                                  ("starts", starts.astype(_starts_type(n)).tobytes())):
                    os.pwrite(fd, raw, base + at[name])
                done = 0
                # Segments of increasing, disjoint ranges of games (a build's runs) are
                # in order of game within a key once stably sorted by key.
                spans = [(int(s.ids[0]), int(s.ids[-1])) for s in segments if len(s.ids)]
                increasing = all(a[1] < b[0] for a, b in itertools.pairwise(spans))
                for u, games, seqs in self._chunks(segments, live,
                                                   "key" if increasing else "posting", bounds):
                    os.pwrite(fd, (u & 0xFFFFFFFF).astype(np.uint32).tobytes(),
                              base + at["low"] + 4 * done)
                    os.pwrite(fd, _pack(games, gw), base + at["game"] + gw * done)
                    os.pwrite(fd, _pack(seqs, sw), base + at["seq"] + sw * done)
                    done += len(u)
                crc = _crc(f, base, body)
                os.pwrite(fd, _SEGMENT.pack(_SEGMENT_MAGIC, n, len(kept), len(tops), gw, sw,
                                            body, crc), _FILE.size)
                f.flush()
                os.fsync(fd)
            os.replace(temporary, self.path)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
        return True

    def remove(self) -> None:
        """Remove the file (to write it again)."""
        try:
            if os.path.exists(self.path):
                os.unlink(self.path)
        except OSError as e:
            raise IndexFileError(f"cannot remove the postings file: {e.strerror}",
                                 file=self.path) from None


def ranges(segments: list[Segment], step: int | None = None) -> list[int]:
    """The bounds of the ranges of the directory a pass over ``segments`` reads:
    each ``step`` entries, or as many as hold some :data:`CHUNK_POSTINGS`
    postings of all of them."""
    if step:
        return [*range(0, TOPS, step), TOPS]
    counts = np.zeros(TOPS, dtype=np.int64)
    for segment in segments:
        counts[segment.tops] += np.diff(segment.starts)
    total = np.cumsum(counts)
    cuts = np.searchsorted(total, np.arange(CHUNK_POSTINGS, int(total[-1]), CHUNK_POSTINGS),
                           side="right")
    return sorted({0, TOPS, *cuts.tolist()})


def _crc(f: BinaryIO, start: int, length: int) -> int:
    """The CRC-32 of ``length`` bytes of ``f`` from ``start``, read a block at a time."""
    crc = 0
    f.seek(start)
    while length > 0:
        block = f.read(min(length, 1 << 24))
        crc = zlib.crc32(block, crc)
        length -= len(block)
    return crc


def held_by(live: Alive, games: I64) -> npt.NDArray[np.bool_]:
    """Which of ``games`` are in ``live`` (sorted ids; no table by id, which a
    tampered id could make as large as it likes)."""
    if not len(live):
        return np.zeros(len(games), dtype=np.bool_)
    at = np.minimum(np.searchsorted(live, games), len(live) - 1)
    found: npt.NDArray[np.bool_] = live[at] == games
    return found


def alive(db: sqlite3.Connection, where: str = "1", params: Sequence[object] = ()) -> Alive:
    """The ids of the games of the index (those of ``where``, a condition on
    ``games``), sorted."""
    return np.array([i for (i,) in db.execute(
        f"SELECT id FROM games WHERE {where} ORDER BY id", params)
        if isinstance(i, int)], dtype=np.int64)


def _no_node(file: PostingsFile, game_id: int, seq: int) -> DamagedIndexError:
    """The error of a posting past its game's last node."""
    return damaged(None, f"the postings file {file.path!r}: game {game_id} has no node {seq}")


def live_postings_many(db: sqlite3.Connection, file: PostingsFile,
                       keys: Sequence[int]) -> list[tuple[I64, I64]]:
    """:func:`live_postings` of each of ``keys`` (no filter) as arrays, games
    and seqs, the ``nodes`` of their games read once for all of them: the
    frequent positions of the opening share their games, and a game's row is
    an SQL lookup."""
    found = [file.lookup_arrays(key) for key in keys]
    ids = np.unique(np.concatenate([games for games, _ in found] or [np.zeros(0, np.int64)]))
    # -1: not in the index; a value of nodes of another type is the row's fault,
    # which reading it says, so it bounds no seq here.
    nodes = np.full(len(ids), -1, dtype=np.int64)
    for start in range(0, len(ids), _GAMES_PER_QUERY):
        chunk = ids[start : start + _GAMES_PER_QUERY].tolist()
        rows = db.execute(f"SELECT id, nodes FROM games WHERE id IN "
                          f"({','.join('?' * len(chunk))})", chunk).fetchall()
        at = np.searchsorted(ids, np.array([game_id for game_id, _ in rows], dtype=np.int64))
        nodes[at] = [n if isinstance(n, int) else np.iinfo(np.int64).max for _, n in rows]
    out = []
    for games, seqs in found:
        held = nodes[np.searchsorted(ids, games)]
        past = np.flatnonzero((held >= 0) & (seqs >= held))
        if len(past):
            raise _no_node(file, int(games[past[0]]), int(seqs[past[0]]))
        kept = held >= 0
        out.append((games[kept], seqs[kept]))
    return out


def live_postings(db: sqlite3.Connection, file: PostingsFile, key: int, join: str = "",
                  condition: str = "1", params: Sequence[object] = ()) -> list[tuple[int, int]]:
    """The postings ``(game id, seq)`` of ``key`` whose games the index holds (those
    of ``condition`` on ``games g``, with ``join``), in order of game and seq.
    Raises :class:`~gohash.errors.DamagedIndexError` for a posting past its game's
    last node."""
    found = file.lookup(key)
    if not found:
        return []
    ids = sorted({game_id for game_id, _ in found})
    kept: dict[int, int] = {}
    for start in range(0, len(ids), _GAMES_PER_QUERY):
        chunk = ids[start : start + _GAMES_PER_QUERY]
        kept.update(db.execute(
            f"SELECT g.id, g.nodes FROM games g {join} "
            f"WHERE g.id IN ({','.join('?' * len(chunk))}) AND {condition}", [*chunk, *params]))
    out = []
    for game_id, seq in found:
        nodes = kept.get(game_id, -1)
        if nodes == -1:
            continue
        # A value of nodes of another type is the row's fault, which reading it says.
        if isinstance(nodes, int) and seq >= nodes:
            raise _no_node(file, game_id, seq)
        out.append((game_id, seq))
    return out
