"""The pattern files beside an index: kept up to date with it, read by pattern search.

Scope: :func:`pattern_store`, the :class:`~gohash.pattern.store.GameStore` of one
board size for :meth:`gohash.index.index.Index.pattern`: the index's games
matched by id and SHA-256 with the segments of the pattern file
(:func:`pattern_path`), the games it lacks replayed and appended, a file that
no longer agrees with the index rebuilt, and the store's own columns kept
beside it (:func:`store_path`) and read instead of the games table while the
index's generation has not moved; and :func:`pattern_faults`, what ``index
check`` reports of those files.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import DamagedIndexError, StoredGameError
from ..metadata import STORED
from ..pattern import kernel
from ..pattern.answers import ANSWER_COLUMNS, AnswerFile, SegmentAnswers
from ..pattern.corners import corner_postings
from ..pattern.search import answer_segment
from ..pattern.store import (
    NO_LEVEL,
    Columns,
    GameStore,
    PatternFile,
    Segment,
    StoreFile,
    Texts,
    flatten,
)
from .schema import generation
from .values import good_rows, require_games

__all__ = ["answers_path", "pattern_faults", "pattern_path", "pattern_store", "store_path"]

SEGMENT_GAMES = 20_000
"""Games replayed and written at a time: the unit of a pattern file's growth,
which bounds the memory that replaying them takes."""

_ROWS = 10_000  # rows fetched at a time

STORE_TEXTS = ("date", "black", "white", "event", *(f.name for f in STORED))
"""The text columns of the games table a store keeps (the filters read them)."""


def pattern_path(index: str, size: int) -> str:
    """The pattern file of board ``size`` beside the index file ``index``."""
    return f"{index}-patterns{size}"


def store_path(index: str, size: int) -> str:
    """The store file (:class:`~gohash.pattern.store.StoreFile`) beside the
    pattern file of board ``size`` of the index file ``index``."""
    return f"{pattern_path(index, size)}-store"


def answers_path(index: str, size: int) -> str:
    """The answers file (:class:`~gohash.pattern.answers.AnswerFile`) beside the
    pattern file of board ``size`` of the index file ``index``."""
    return f"{pattern_path(index, size)}-answers"


def _sha(value: object, game_id: int, index: str) -> int:
    """The first 64 bits of a game's ``sha256`` column (its first 16 hex digits)."""
    try:
        return int(value, 16) if isinstance(value, str) and len(value) == 16 else int("")
    except ValueError:
        raise DamagedIndexError(f"game {game_id}: sha256 {value!r} is not hexadecimal",
                                file=index) from None


@dataclass
class _Games:
    """The index's games of one size with a position, in order of id: ``ids``,
    SHA-256's first 64 bits, and the columns a store keeps of each
    (:class:`~gohash.pattern.store.GameStore`)."""

    ids: npt.NDArray[np.int64]
    shas: npt.NDArray[np.uint64]
    winners: npt.NDArray[np.int8]
    lowest_levels: npt.NDArray[np.int8]
    handicaps: npt.NDArray[np.int16]
    texts: dict[str, list[str | None]]


def _games(db: sqlite3.Connection, size: int, index: str,
           texts: tuple[str, ...] = STORE_TEXTS) -> _Games:
    """The index's games of ``size`` with a position (:class:`_Games`), with the
    text columns ``texts`` (the store's; none where only the games' identities
    are wanted: the text columns are most of what a row reads)."""
    ids, shas, winners, levels, handicaps = [], [], [], [], []
    columns: dict[str, list[str | None]] = {name: [] for name in texts}
    selected = ", ".join(("id", "substr(sha256, 1, 16)", "winner", "black_level", "white_level",
                          "handicap", *texts))
    cursor = db.execute(
        f"SELECT {selected} FROM games WHERE size = ? AND positions > 0 ORDER BY id", (size,))
    while rows := cursor.fetchmany(_ROWS):
        for game_id, sha, winner, black, white, handicap, *values in rows:
            ids.append(game_id)
            shas.append(_sha(sha, game_id, index))
            winners.append({"B": 1, "W": 2}.get(winner, 0))
            known = [v for v in (black, white) if v is not None]
            if not all(isinstance(v, int) and 0 <= v < NO_LEVEL for v in known) or not (
                    isinstance(handicap, int) and 0 <= handicap < 1 << 15):
                raise DamagedIndexError(f"game {game_id}: levels {black!r}, {white!r} or "
                                        f"handicap {handicap!r} out of range", file=index)
            levels.append(min(known, default=NO_LEVEL))
            handicaps.append(handicap)
            for name, value in zip(texts, values, strict=True):
                if value is not None and not isinstance(value, str):
                    raise DamagedIndexError(f"game {game_id}: {name} {value!r} is not text",
                                            file=index)
                columns[name].append(value)
    return _Games(np.array(ids, dtype=np.int64), np.array(shas, dtype=np.uint64),
                  np.array(winners, dtype=np.int8), np.array(levels, dtype=np.int8),
                  np.array(handicaps, dtype=np.int16), columns)


def _segments(db: sqlite3.Connection, index: str, size: int,
              ids: npt.NDArray[np.int64]) -> Iterator[Segment]:
    """The games ``ids`` replayed, :data:`SEGMENT_GAMES` at a time, with their
    corner postings."""
    width = (size * size + 7) // 8
    for start in range(0, len(ids), SEGMENT_GAMES):
        chunk = ids[start : start + SEGMENT_GAMES].tolist()
        rows = []
        for at in range(0, len(chunk), 500):
            part = chunk[at : at + 500]
            rows.extend(db.execute(
                f"SELECT id, positions, ever_black, ever_white, record, "
                f"substr(sha256, 1, 16) FROM games "
                f"WHERE id IN ({','.join('?' * len(part))}) ORDER BY id", part).fetchall())
        for game_id, _, black, white, _, _ in rows:
            if len(black) != width or len(white) != width:
                raise DamagedIndexError(
                    f"game {game_id}: ever bitmaps of {len(black)} and {len(white)} bytes",
                    file=index)
        mains = np.array([row[1] for row in rows], dtype=np.int32)
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(row[4]) for row in rows], out=offsets[1:])
        try:
            flat = flatten(b"".join(row[4] for row in rows), offsets, mains, size)
        except StoredGameError as e:
            raise DamagedIndexError(f"game {rows[e.index][0]}: {e.reason}", file=index) from None
        yield Segment(np.array([row[0] for row in rows], dtype=np.int64),
                      np.array([_sha(row[5], row[0], index) for row in rows],
                               dtype=np.uint64),
                      np.frombuffer(b"".join(row[2] for row in rows), dtype=np.uint8),
                      np.frombuffer(b"".join(row[3] for row in rows), dtype=np.uint8), flat,
                      corner_postings(flat, size))


@contextmanager
def _locked(index: str) -> Iterator[None]:
    """An exclusive ``flock`` on the index file while its pattern files change
    (SQLite's own locks are POSIX record locks, which ``flock`` does not meet)."""
    fd = os.open(index, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _matched(segments: list[Segment], ids: npt.NDArray[np.int64],
             shas: npt.NDArray[np.uint64]) -> tuple[npt.NDArray[np.int64], bool]:
    """For each game of ``ids``, its number over ``segments`` (-1: none holds
    it), and whether every game both hold has the same SHA in both."""
    if not segments or not sum(len(s) for s in segments):
        return np.full(len(ids), -1, dtype=np.int64), True
    held = np.concatenate([s.ids for s in segments])
    held_shas = np.concatenate([s.shas for s in segments])
    # The last copy of a game written twice counts.
    distinct, first_reversed = np.unique(held[::-1], return_index=True)
    last = len(held) - 1 - first_reversed
    at = np.minimum(np.searchsorted(distinct, ids), len(distinct) - 1)
    found = distinct[at] == ids
    number = np.where(found, last[at], -1).astype(np.int64)
    return number, bool(np.all(held_shas[number[found]] == shas[found]))


def pattern_store(db: sqlite3.Connection, index: str, size: int) -> GameStore:
    """The games of ``size`` with a position, as pattern search reads them, from
    the pattern file beside ``index``: the games it lacks replayed and appended
    to it; rebuilt if it is damaged or holds a game the index holds no longer
    as it was (the same id, another SHA-256).  Where the file cannot be written
    (a read-only folder), the games it lacks are kept in memory.

    The store's own columns come from its store file where that was made at the
    index's present generation (:func:`~gohash.index.schema.generation`) from
    the pattern file as it is: then the games table is not read at all.
    Otherwise they are read from the index (its values checked first), and the
    store file made again where the folder is writable."""
    # Read before the games: a store read later is of this generation or a later
    # one, never named by a later generation than its own.
    now = generation(db)
    file = PatternFile(pattern_path(index, size), size)
    state = StoreFile(store_path(index, size), size, STORE_TEXTS)
    if now is not None:
        segments, faults = file.read()
        if not faults and file.identity is not None:
            kept = state.read((now, *file.identity), segments)
            if kept is not None:
                return _answered(index, kept)
    # Every game of the size and its file: the filters read any column.
    require_games(db, "size = ?", (size,))
    store = _read_store(db, index, size, file)
    if now is not None and file.identity is not None:
        with contextlib.suppress(OSError):  # a read-only folder: read again next time
            state.write((now, *file.identity), store)
    return _answered(index, store)


def _answered(index: str, store: GameStore) -> GameStore:
    """``store`` with the answers of its segments
    (:class:`~gohash.pattern.answers.SegmentAnswers`): those of the answers file
    made from the segment's games, winners and dates as they are now, the
    others made (by the compiled scan: none without it) and the file written
    again where the folder is writable."""
    if kernel.match is None:
        return store
    stamps = store.stamps
    file = AnswerFile(answers_path(index, store.size), store.size)
    found = {block.stamp: block for block in file.read()}
    if any(stamp not in found for stamp in stamps):
        queries: dict[int, Any] = {}

        def blocks() -> Iterator[SegmentAnswers]:
            for s, stamp in enumerate(stamps):
                block = found.get(stamp)
                if block is None:
                    try:
                        block = answer_segment(store, s, queries=queries)
                    except StoredGameError:
                        # A damaged segment is left unanswered: a search that scans
                        # the game reports it (with the file's name), as before.
                        continue
                yield block

        try:
            # Each segment's block written as it is made, then all read back
            # mapped: memory holds one segment's answers at a time. No lock: the
            # file is written aside and renamed over the old one.
            file.write(blocks())
            found = {block.stamp: block for block in file.read()}
        except OSError:
            # A read-only folder: made in memory, and again next time.
            found = {block.stamp: block for block in blocks()}
    answers: list[SegmentAnswers | None] = [found.get(stamp) for stamp in stamps]
    store.answers = answers
    return store


def _read_store(db: sqlite3.Connection, index: str, size: int, file: PatternFile) -> GameStore:
    """:func:`pattern_store` from the games table."""
    games = _games(db, size, index)
    ids, shas = games.ids, games.shas
    segments, faults = file.read()
    number, agree = _matched(segments, ids, shas)
    if faults or not agree or (number < 0).any():
        try:
            with _locked(index):
                # Again, under the lock: another process may have written them.
                segments, faults = file.read()
                number, agree = _matched(segments, ids, shas)
                rebuild = bool(faults) or not agree
                if rebuild:
                    file.write([], append=False)
                # One segment at a time: a segment's replay is what memory holds.
                for segment in _segments(db, index, size, ids if rebuild else ids[number < 0]):
                    file.write([segment], append=True)
                segments, faults = file.read()
        except OSError:  # not writable: the games it lacks kept in memory
            rebuild = bool(faults) or not agree
            new = list(_segments(db, index, size, ids if rebuild else ids[number < 0]))
            segments = new if rebuild else segments + new
            faults = []
            file.identity = None  # the store is not the file's
        number, agree = _matched(segments, ids, shas)
        if faults or not agree or (number < 0).any():
            raise DamagedIndexError(f"the pattern file {file.path!r} does not hold the "
                                    f"index's games after it was written", file=index)
    total = sum(len(s) for s in segments)
    live = np.zeros(total, dtype=np.bool_)
    live[number] = True
    all_ids = np.concatenate([s.ids for s in segments]) if segments else np.zeros(0, np.int64)
    columns = Columns(size, [s.ever_black for s in segments], [s.ever_white for s in segments],
                      total)

    def spread(values: npt.NDArray[Any], missing: int) -> npt.NDArray[Any]:
        """Per game of the store: the value of the index's game numbered there."""
        out = np.full(total, missing, dtype=values.dtype)
        out[number] = values
        return out

    texts: dict[str, Texts] = {}
    for name, column in games.texts.items():
        interned = Texts.of(column)
        texts[name] = Texts(interned.data, interned.ends, spread(interned.ranks, -1))
    return GameStore(size, segments, all_ids, live, spread(games.winners, 0),
                     spread(games.lowest_levels, NO_LEVEL), spread(games.handicaps, 0), texts,
                     columns)


def pattern_faults(db: sqlite3.Connection, index: str) -> list[str]:
    """The faults of the pattern files beside ``index``: damaged, or stale (a game
    the index holds now otherwise); a search rebuilds such a file.  A missing
    file is none: the next search writes it."""
    out: list[str] = []
    sizes = f"SELECT DISTINCT size FROM games WHERE {good_rows('games', ['size'])} ORDER BY size"
    for (size,) in db.execute(sizes).fetchall():  # other sizes are the value checks'
        file = PatternFile(pattern_path(index, size), size)
        if not os.path.exists(file.path):
            continue
        faults = file.faults()
        if faults:
            out.extend(f"{fault} (the next pattern search rebuilds it)" for fault in faults)
            continue
        segments, _ = file.read()
        try:
            games = _games(db, size, index, texts=())  # compared by id and SHA-256 only
        except DamagedIndexError as e:
            out.append(f"{file.path}: not compared with the index: {e.reason}")
            continue
        if not _matched(segments, games.ids, games.shas)[1]:
            out.append(f"{file.path}: stale: it holds games the index holds otherwise now "
                       f"(the next pattern search rebuilds it)")
        out.extend(f"{fault} (the next pattern search makes it again)"
                   for fault in StoreFile(store_path(index, size), size, STORE_TEXTS).faults(
                       segments))
        out.extend(_answer_faults(db, index, size))
    return out


def _answer_faults(db: sqlite3.Connection, index: str, size: int) -> list[str]:
    """The faults of the answers file of ``size``: damaged, or a block of a
    segment as it is now that is not what its games give (made again)."""
    answers = AnswerFile(answers_path(index, size), size)
    if not os.path.exists(answers.path) or kernel.match is None:
        return []
    faults = answers.faults()
    if faults:
        return [f"{fault} (the next pattern search makes it again)" for fault in faults]
    # The store as the games table gives it (the pattern file agrees with it).
    store = _read_store(db, index, size, PatternFile(pattern_path(index, size), size))
    blocks = {block.stamp: block for block in answers.read()}
    queries: dict[int, Any] = {}
    out = []
    for s, stamp in enumerate(store.stamps):
        block = blocks.get(stamp)
        if block is None:
            continue
        again = answer_segment(store, s, queries=queries)
        if not all(np.array_equal(getattr(block, name), getattr(again, name))
                   for name in ANSWER_COLUMNS):
            out.append(f"{answers.path}: the answers of segment {s} are not those of its "
                       f"games (delete the file: the next pattern search makes it again)")
    return out
