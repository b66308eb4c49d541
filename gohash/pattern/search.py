"""A pattern query over many games: its matches and continuations.

Scope: :class:`PatternQuery` (a pattern with its options, placed once) and
:meth:`PatternQuery.result`, which sums the hits of many games
(:class:`~gohash.pattern.match.Found`) up on arrays into a
:class:`PatternResult`: the counts and :class:`PatternContinuation` s of all
matches, and the :class:`PatternMatch` es asked for.  Which games, and their
hits, are the caller's (:meth:`gohash.index.index.Index.pattern`).

Hits at the same position of a game are one match (that of the lowest
placement): a shape that appears in two places at once is one event of the
game.  A move and its images under the pattern's own symmetries (those of
the query's group that map it onto itself) are one continuation, shown at
one of them: Black's if colours may be exchanged, then the last point in
``(row, col)`` order.  Everything a match or a continuation says is in the query's
orientation and colours: the board points of a hit mapped back by its
placement (the inverse of its element, after undoing its offset), colours
exchanged if its element exchanges them.
"""

from __future__ import annotations

import collections
import functools
import itertools
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cache, cached_property
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from .._deprecated import deprecated
from ..errors import OptionError, QueryCancelled, QueryTooBroad
from ..group.coords import move_json
from ..group.schemes import KeyScheme, scheme
from ..group.symmetry import ELEMENTS, Element, Point, gathers, point_images
from . import kernel
from .answers import FREQUENT, FREQUENT_TO_MOVE, SegmentAnswers
from .bands import BAND_SHAPES, band_key, band_query, band_square, band_symmetries, bands
from .corners import (
    CORNER_SCHEME,
    Square,
    canonical_square,
    corner_games,
    corner_query,
    levels,
    placement_corners,
    posting_keys,
    squares,
)
from .diagram import (
    BLACK,
    EMPTY,
    OUTSIDE,
    SYMMETRIES,
    WHITE,
    Pattern,
    Placements,
    parse_pattern,
    placements,
    stone_keys,
    symmetries,
)
from .match import Found, Matcher
from .store import GameStore, Segment
from .tally import NO_FIRST, run_starts, tally
from .windows import (
    WINDOW_SIDES,
    content_square,
    content_symmetries,
    placement_element,
    window_key,
    window_query,
    window_tables,
    windows,
)

__all__ = [
    "PATTERN_SCHEME",
    "MatchRecord",
    "PatternContinuation",
    "PatternMatch",
    "PatternQuery",
    "PatternResult",
    "answer_segment",
]

PATTERN_SCHEME = "regular64"
"""The key scheme of placement keys: 64-bit XOR keys on which all 16 elements
act by a slot permutation (a key only filters, so 64 bits suffice)."""


THREADS = 2
"""Threads a search scans with (the kernel runs without the interpreter lock)."""

CHUNK = 4096
"""Games a thread scans at a time, at most: the unit of the working memory, of
the checks for a deadline and a cancel, and of the inverted filter's work."""

CHUNK_HITS = 1 << 19
"""Hits a chunk may hold, at most (a placement hits a game once at most), where
it keeps them all (every match asked for, or the pure twin's): a query of many
placements scans fewer games at a time, down to 256."""


class MatchRecord(Protocol):
    """What a match needs of its game's record: the board size and its JSON
    (the index gives its :class:`~gohash.index.results.Record`)."""

    @property
    def size(self) -> int: ...

    def to_json(self, *, paths: bool = True) -> dict[str, Any]: ...


R = TypeVar("R", bound=MatchRecord)


@dataclass(frozen=True)
class PatternMatch(Generic[R]):
    """The pattern was present in ``record`` after move ``move_number`` (position
    ``seq`` of the main line, 0 the start), placed by ``element`` and then moved
    by ``offset`` (rows, columns): query point ``q`` at
    ``element.map_point(q) + offset``.  ``to_move`` is the side to move there
    and ``continuation`` the next move played in the pattern's region (colour
    and point; None: none was), both in the query's orientation and colours;
    ``tenuki``: a move elsewhere (or a pass) came before it.  ``continuation``
    is the move as played, seen from the query; :class:`PatternContinuation`
    gathers it with its images under the pattern's symmetries.  ``placements``
    counts the placements that hit there at once (this one the lowest)."""

    record: R
    move_number: int
    element: Element
    offset: Point
    seq: int
    to_move: str
    continuation: tuple[str, Point] | None
    tenuki: bool
    placements: int = 1

    @property
    def colours_exchanged(self) -> bool:
        return self.element.swap

    @property
    def view_offset(self) -> Point:
        """Where the game seen through ``view`` (``element``'s inverse, as a viewer
        shows it) holds the pattern: query point ``q`` at ``q + view_offset``, a
        translation (zero unless the pattern slid)."""
        size = self.record.size
        row, col = self.element.map_point((0, 0), size)
        return self.element.inverse.map_point((row + self.offset[0], col + self.offset[1]), size)

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """The match as JSON (docs/schemas.md, "gohash index pattern"): its game's
        record (:meth:`~gohash.index.results.Record.to_json`, ``paths`` as there),
        then where and how the pattern was placed;
        ``view`` is ``element``'s inverse, which shows the game in the query's
        orientation and colours."""
        size = self.record.size
        return {
            **self.record.to_json(paths=paths),
            "move_number": self.move_number,
            "seq": self.seq,
            "element": self.element.name,
            "view": self.element.inverse.name,
            "offset": list(self.offset),
            "view_offset": list(self.view_offset),
            "colours_exchanged": self.colours_exchanged,
            "to_move": self.to_move,
            "next_move": None if self.continuation is None else move_json(*self.continuation,
                                                                           size),
            "tenuki": self.tenuki,
            "placements": self.placements,
        }


@dataclass(frozen=True)
class PatternContinuation:
    """One next move in the region, in the query's orientation and colours:
    ``count`` matches went on with it, ``tenuki`` of them after a move
    elsewhere; ``black_wins`` and ``white_wins`` count the games won by the
    player of the query's Black or White stones, ``other`` the rest;
    ``first_date`` and ``last_date`` bound the dates of those games that have one.
    ``equivalent`` holds ``point`` and its images under the pattern's
    symmetries that keep ``colour`` (one point for a pattern without any)."""

    colour: str
    point: Point
    equivalent: tuple[Point, ...]
    count: int
    tenuki: int
    black_wins: int
    white_wins: int
    other: int
    first_date: str | None
    last_date: str | None
    size: int

    def to_json(self, size: int | None = None, *, paths: bool = True) -> dict[str, Any]:
        """The continuation as JSON (docs/schemas.md, "gohash index pattern");
        ``paths`` as every ``to_json`` takes it (no paths here); ``size`` is
        deprecated (the board's is :attr:`size`)."""
        if size is not None:
            deprecated("to_json(size)", "to_json()", "PatternContinuation.to_json")
        return {
            **move_json(self.colour, self.point, self.size),
            "equivalent": [list(p) for p in self.equivalent],
            "count": self.count, "tenuki": self.tenuki, "black_wins": self.black_wins,
            "white_wins": self.white_wins, "other": self.other,
            "first_date": self.first_date, "last_date": self.last_date,
        }


@dataclass
class PatternResult(Generic[R]):
    """The answer to a pattern query.

    ``searched`` games were of the pattern's size and let through by the
    filters, ``candidates`` of them kept by the index's filters of stones
    (the others lack a stone every placement needs, or the corner square's
    key; the segments whose answers hold a window's or band's hits count all
    their games), their hits found by replaying them or read from the segments'
    answers (:mod:`gohash.pattern.answers`), ``games`` of them hit.  ``total`` matches in
    all; ``matches`` holds ``limit`` (None: all) of them in index order from
    the ``offset``-th (0: the first).
    ``continuations`` come most played first (then Black's first, then by
    point); ``ended`` matches had no move in the region after them.
    ``placements`` is how many distinct placements the query has.
    """

    pattern: Pattern
    symmetry: str
    placements: int
    searched: int
    candidates: int
    games: int
    total: int
    ended: int
    matches: list[PatternMatch[R]]
    continuations: list[PatternContinuation]
    limit: int | None
    offset: int = 0

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """The result as JSON (docs/schemas.md, "gohash index pattern"); ``paths``
        as in :meth:`~gohash.index.results.Record.to_json`."""
        size = self.pattern.size
        return {
            "size": size,
            "pattern": self.pattern.diagram(),
            "symmetry": self.symmetry,
            "placements": self.placements,
            "searched": self.searched,
            "candidates": self.candidates,
            "games": self.games,
            "total": self.total,
            "ended": self.ended,
            "tenuki": sum(c.tenuki for c in self.continuations),
            "limit": self.limit,
            "offset": self.offset,
            "continuations": [c.to_json() for c in self.continuations],
            "matches": [m.to_json(paths=paths) for m in self.matches],
        }


class PatternQuery:
    """A pattern (a :class:`~gohash.pattern.diagram.Pattern` or a diagram) with its
    options, placed once: ``symmetry`` one of
    :data:`~gohash.pattern.diagram.SYMMETRIES`; ``to_move`` ``'b'``, ``'w'``
    (in the query's colours) or None/``'any'``; ``max_move`` the last move
    number a hit may have (None: any); ``sequence`` the moves that must follow
    (:func:`~gohash.pattern.diagram.parse_sequence`).  ``square``: the canonical
    frame (:class:`~gohash.pattern.corners.Square`) of a query that segments'
    answers may answer (its region a fully specified corner square, a window
    anywhere, :attr:`window`, or a band along an edge, :attr:`band`; all 16
    symmetries, no move limit or sequence; a window or band no side to
    move), else None; ``frame_to_move`` its
    side to move in that frame's colours (0: any)."""

    def __init__(
        self,
        pattern: Pattern | str,
        *,
        symmetry: str = "full",
        to_move: str | None = None,
        max_move: int | None = None,
        sequence: str | Sequence[tuple[str, str]] = (),
    ) -> None:
        if isinstance(pattern, str):
            pattern = parse_pattern(pattern)
        if sequence:
            pattern = pattern.with_sequence(sequence)
        if to_move not in (None, "any", "b", "w"):
            raise OptionError(f"to_move {to_move!r} is not 'b', 'w', 'any' or None")
        if max_move is not None and (isinstance(max_move, bool) or not isinstance(max_move, int)
                                     or max_move < 0):
            raise OptionError(f"max_move {max_move!r} is not a move number (0 or more)")
        OptionError.check("symmetry", symmetry, SYMMETRIES)
        self.pattern = pattern
        self.symmetry = symmetry
        self.size = pattern.size
        self.keys: KeyScheme = scheme(PATTERN_SCHEME, pattern.size)
        self.placements: Placements = placements(pattern, self.keys, symmetry)
        self.symmetries = symmetries(pattern, symmetry)
        # A fully specified corner square: its key picks the games (and, in each,
        # the corners) to scan.
        self.corner = corner_query(pattern)
        self.placement_corners = None if self.corner is None else placement_corners(
            pattern, self.corner[1], self.placements)
        plain = max_move is None and not pattern.sequence and symmetry == "full"
        side = {None: 0, "any": 0, "b": 1, "w": 2}[to_move]
        # A side to move of a pattern that some element maps onto itself with
        # colours exchanged names no side of the frame: not answered.
        self.square = self._square() if plain and not (
            side and any(g.swap for g in self.symmetries)) else None
        self.frame_to_move = 0 if not side or self.square is None else (
            3 - side if self.square.element.swap else side)
        # A window anywhere: its segments' answers hold its hits with any side to move.
        self.window = window_query(pattern) if (
            plain and not side and self.corner is None) else None
        if self.window is not None:
            self.square = self.window.square
        # A band along an edge: the same, its answers those of its shape.
        self.band = band_query(pattern) if (
            plain and not side and self.corner is None and self.window is None) else None
        if self.band is not None:
            self.square = self.band.square
        self.matcher = Matcher(
            self.placements, self.keys,
            to_move=side,
            max_move=-1 if max_move is None else max_move,
        )

    def search(
        self, store: GameStore, selected: npt.NDArray[np.bool_], *,
        records: Callable[[list[int]], Mapping[int, R]],
        twin: Callable[[npt.NDArray[np.int64]], Found] | None = None,
        limit: int | None = None, offset: int = 0, timeout: float | None = None,
        cancel: threading.Event | None = None, threads: int = THREADS,
    ) -> PatternResult[R]:
        """The hits in the games of ``store`` that ``selected`` (one flag a game)
        lets through, summed up: the counts and continuations of all, and
        ``limit`` matches (None: all) from the ``offset``-th, in the store's order,
        their records asked of ``records`` (game ids to records) for those only.

        The candidates (the inverted filter, :class:`~gohash.pattern.store.Columns`,
        and for a pattern with a fully specified corner square the games whose
        corner postings hold its key, :meth:`_corner_filter`) are scanned in
        chunks of :data:`CHUNK` selected games (fewer for a query of many placements
        whose every match is kept: :data:`CHUNK_HITS`) by ``threads`` threads: by
        the compiled kernel, which sums each chunk's matches up as it scans
        (its ``Summary``), or by ``twin`` (candidate games to their hits, the
        pure twin) where given, whose hits are summed up on arrays as each chunk
        ends; only the matches a page may need are kept, so the working
        memory is bounded by a chunk, not by the collection.  Where the
        store's answers hold the hits of a query's square (:meth:`_answered`;
        the kernel's path, a page asked for), those games are not scanned
        for the counts, only the first of them for the page (:meth:`_page`).  Between
        chunks, a ``cancel`` event set raises
        :class:`~gohash.errors.QueryCancelled` and ``timeout`` seconds passed
        :class:`~gohash.errors.QueryTooBroad`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        wanted = None if limit is None else offset + limit
        # The kernel sums a chunk's matches up as it goes and keeps the rows of a
        # page only: a chunk's hits bound its memory where it keeps them all.
        per_chunk = CHUNK if twin is None and wanted is not None else min(
            CHUNK, max(256, CHUNK_HITS // len(self.placements) // 64 * 64))
        narrowed, held, corners = self._corner_filter(store, selected)
        # Games whose hits a segment's answers hold are not scanned for the counts.
        answered, answer_parts = (self._answered(store, selected, held) if twin is None
                                  and wanted is not None else (None, []))
        scanned = narrowed if answered is None else narrowed & ~answered
        corner_bits = None if self.corner is None else _corner_bits(
            store, held, corners, None if answered is None else ~answered[held])
        chunks = _chunks(store, scanned, per_chunk)
        tally = _Tally(self, store)
        stop = threading.Event()
        candidates = [0] * len(chunks)

        def alive_of(start: int, end: int, corners: bool = True) -> npt.NDArray[np.uint64]:
            base = start - start % 64
            alive = self.matcher.alive(store.columns, base, end)
            if corners and corner_bits is not None:
                alive &= corner_bits[self.placement_corners, base // 64 : (end + 63) // 64]
            return alive

        def work(chunk: tuple[int, int, int], mask: npt.NDArray[np.bool_] = scanned
                 ) -> tuple[int, _Part] | None:
            if stop.is_set() or (cancel is not None and cancel.is_set()) or (
                    deadline is not None and time.monotonic() > deadline):
                stop.set()
                return None
            s, start, end = chunk
            base = start - start % 64
            # Answered games (a page's) have no corner bits: all placements
            # followed, the same hits (a corner that never held the key holds
            # none of them).
            alive = alive_of(start, end, mask is scanned)
            games = _candidates(alive, base, start, end, mask)
            if twin is not None:
                return len(games), tally.part(twin(games), wanted)
            summary = tally.summary(wanted)
            found, _ = self.matcher.scan(store.segments[s], int(store.starts[s]), alive, base,
                                         games, summary)
            return len(games), tally.summed(found, summary, wanted)

        parts: list[_Part | None] = [None] * len(chunks)
        if threads > 1 and len(chunks) > 1:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                for i, outcome in enumerate(pool.map(work, chunks)):
                    parts[i] = None if outcome is None else outcome[1]
                    candidates[i] = 0 if outcome is None else outcome[0]
        else:
            for i, chunk in enumerate(chunks):
                outcome = work(chunk)
                parts[i] = None if outcome is None else outcome[1]
                candidates[i] = 0 if outcome is None else outcome[0]
        if answered is not None and wanted is not None and all(p is not None for p in parts):
            page = self._page(store, answered, wanted, work)
            if page is None:
                parts.append(None)
            else:
                parts.extend(page)
        done = [p for p in parts if p is not None]
        if len(done) < len(parts):
            if cancel is not None and cancel.is_set():
                raise QueryCancelled("the pattern search was cancelled")
            scanned_games = sum(candidates)
            remaining = sum(len(_candidates(alive_of(a, b), a - a % 64, a, b, scanned))
                            for (_, a, b), p in zip(chunks, parts, strict=False) if p is None)
            total, hits = scanned_games + remaining, sum(p.total for p in done)
            raise QueryTooBroad(
                f"too broad: narrow the region or add a filter ({scanned_games:,} of {total:,} "
                f"candidate games scanned, {hits:,} hits so far, when the time ran out)",
                scanned=scanned_games, total=total, hits=hits)
        answered_games = 0 if answered is None else int(answered.sum())
        return tally.result(done + answer_parts, records, searched=int(selected.sum()),
                            candidates=sum(candidates) + answered_games, limit=limit,
                            offset=offset)

    def _square(self) -> Square | None:
        """The canonical frame of the query's corner square if its region is that
        square and nothing else (segments' answers may answer it), else None."""
        if self.corner is None:
            return None
        corner, region = self.corner[1], self.pattern.region
        codes = np.array(self.pattern.codes)[list(region)]
        if not ((codes == EMPTY) | (codes == BLACK) | (codes == WHITE)).all():
            return None
        for side in levels(self.size):
            points = np.flatnonzero(squares(self.size, side)[corner])
            if tuple(points.tolist()) == region:
                return canonical_square(self.size, side, corner, codes)
        return None

    def _answered(self, store: GameStore, selected: npt.NDArray[np.bool_],
                  held: npt.NDArray[np.int64]
                  ) -> tuple[npt.NDArray[np.bool_] | None, list[_Part]]:
        """The games whose hits the store's answers hold (one flag a game; None:
        none may) and those answers as parts in the query's frame: a segment's
        answers of the query's square, one a winner of the games that hold the
        square's key (``held``, in order), where the filters keep every game of
        the winners they keep any of (a filter of results, none: they remove
        none of the hits of those answers), the games left out of an answer
        (:class:`SegmentAnswers`) scanned."""
        if self.square is None or not store.answers:
            return None, []
        if self.window is not None or self.band is not None:
            # A window's or band's answers hold the hits of every game of their
            # segment, but those they leave to scan.
            shape = self.window if self.window is not None else self.band
            assert shape is not None
            key, held = shape.key, np.arange(len(store), dtype=np.int64)
        else:
            assert self.corner is not None
            key = self.corner[0]
        answered = np.zeros(len(store), dtype=np.bool_)
        picked: list[tuple[SegmentAnswers, int, int]] = []
        bounds = np.searchsorted(held, store.starts)
        for s, block in enumerate(store.answers):
            found = range(0) if block is None else block.find(key, self.square,
                                                               self.frame_to_move)
            if block is None or not found:
                continue
            start = int(store.starts[s])
            games = held[bounds[s] : bounds[s + 1]]
            kept = selected[games]
            if kept.all():
                used = list(found)
                answered[games] = True
            else:
                # A winner's answer where the filters keep all its games, none
                # where they keep none of them; otherwise the segment is scanned.
                winners = store.winners[games]
                used = [at for at in found if kept[winners == block.winners[at]].any()]
                if not all(kept[winners == block.winners[at]].all() for at in used) or not (
                        np.isin(winners[kept], block.winners[used]).all()):
                    continue
                answered[games[kept]] = True
            for at in used:
                left = block.exceptions[block.exception_offsets[at] :
                                        block.exception_offsets[at + 1]]
                answered[start + left.astype(np.int64)] = False
                picked.append((block, at, start))
        return answered, [self._answer_part(picked, store)] if picked else []

    def _answer_part(self, picked: list[tuple[SegmentAnswers, int, int]],
                     store: GameStore) -> _Part:
        """The answers ``picked`` (a block, the answer's number in it, the store
        number of its segment's game 0) summed up as one :class:`_Part` in the
        query's orientation and colours: each move of the square's frame mapped
        back by the inverse of the element that maps the query's square there,
        then to its representative here."""
        assert self.square is not None

        def rows(column: str, dtype: type = np.int64) -> npt.NDArray[Any]:
            return np.concatenate([getattr(block, column)[
                block.row_offsets[at] : block.row_offsets[at + 1]] for block, at, _ in picked]
                                  ).astype(dtype)

        starts = np.concatenate([np.full(int(block.row_offsets[at + 1] - block.row_offsets[at]),
                                         start, dtype=np.int64) for block, at, start in picked])
        colour, point, swap, kind = self._answer_moves(rows("moves"))
        count = rows("count")
        kept = kind == _CONTINUATION
        colour = np.where(swap, 3 - colour, colour)[kept]
        black_wins, white_wins = rows("black_wins"), rows("white_wins")
        black_wins, white_wins = (np.where(swap, white_wins, black_wins)[kept],
                                  np.where(swap, black_wins, white_wins)[kept])
        ranks = store.date_ranks
        first_game, last_game = rows("first_game")[kept], rows("last_game")[kept]
        starts = starts[kept]
        first = np.where(first_game >= 0, ranks[starts + np.maximum(first_game, 0)], NO_FIRST)
        last = np.where(last_game >= 0, ranks[starts + np.maximum(last_game, 0)], -1)
        none = np.zeros(0, dtype=np.int64)
        return _Part(sum(int(block.totals[at]) for block, at, _ in picked),
                     sum(int(block.games[at]) for block, at, _ in picked),
                     sum(int(block.ended[at]) for block, at, _ in picked)
                     + int(count[kind == _ENDED].sum()),
                     self._representatives[colour - 1, point[kept]].astype(np.int64),
                     count[kept], rows("tenuki")[kept], black_wins, white_wins,
                     first.astype(np.int64), last.astype(np.int64), Found.concatenate([]), none)

    def _answer_moves(self, moves: npt.NDArray[np.int64]
                      ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp],
                                 npt.NDArray[np.bool_], npt.NDArray[np.int8]]:
        """Answers' moves (:class:`SegmentAnswers`) as the colour they were played
        in (1 Black, 2 White), the query point they stand on, whether the
        placement they were played at exchanges colours (the colour and the
        wins are then the other's in the query), and what each row is here
        (:data:`_CONTINUATION`, :data:`_ENDED`: its count of matches without a
        continuation, :data:`_ELSEWHERE`: another frame's).  A corner square's
        moves are in its canonical frame; a window's in that of the window
        they were played in, or, at positions that two windows hit, in the
        frame of each element that maps a query's content onto the canonical
        one (:func:`answer_windows`); a band's in the canonical frame
        (:meth:`_band_moves`)."""
        assert self.square is not None
        if self.band is not None:
            return self._band_moves(moves)
        if self.window is None:
            npts = self.size * self.size
            return (np.where(moves >= npts, 1, 2), self._back_points[moves % npts],
                    np.full(len(moves), self.square.element.swap),
                    np.full(len(moves), _CONTINUATION, dtype=np.int8))
        side, points = self.window.side, self.window.side ** 2
        back, swaps = self._window_frames
        orientation, move = moves // (2 * points), moves % (2 * points)
        shared, kind = _row_kinds(orientation, self.window.square.element)
        local = move % points
        point = np.where(shared, self.window.origin + local // side * self.size + local % side,
                         back[orientation % 16, local])
        return np.where(move >= points, 1, 2), point, swaps[orientation % 16] & ~shared, kind

    def _band_moves(self, moves: npt.NDArray[np.int64]
                    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp],
                               npt.NDArray[np.bool_], npt.NDArray[np.int8]]:
        """:meth:`_answer_moves` of a band's answers: each move in the canonical
        frame (in that frame's colours), with the orientation ``t`` of the band
        it was played in where some element but the identity maps the content
        onto itself, or at a position two bands hit, in the canonical frame
        of each query frame ``u`` (:func:`answer_bands`)."""
        band = self.band
        assert band is not None
        points = band.depth * band.width
        u = band.square.element
        orientation, move = moves // (2 * points), moves % (2 * points)
        back, swaps = self._band_frames
        # A position two bands hit: its rows of each query frame, in that frame.
        shared, kind = _row_kinds(orientation, u)
        point = np.where(shared, band.points[u.index][move % points],
                         back[orientation % 16, move % points])
        return (np.where(move >= points, 1, 2), point,
                np.where(shared, u.swap, swaps[orientation % 16]), kind)

    @cached_property
    def _band_frames(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
        """``[orientation, canonical point]``: the query point of each point of
        the canonical band for a match in a band of that orientation ``t``, and
        ``[orientation]`` whether the canonical frame's colours are the query's
        exchanged.  The match's placement is the lowest of ``t^-1 . s . u``
        (``s`` a symmetry of the canonical content, ``u`` the query's element),
        which maps the query's content onto the band; the canonical frame is
        ``t`` of the band's, so the query's is ``(s . u)^-1`` of it."""
        band = self.band
        assert band is not None
        u = band.square.element
        back = np.zeros((16, band.depth * band.width), dtype=np.intp)
        swaps = np.zeros(16, dtype=np.bool_)
        for t in ELEMENTS:
            g = placement_element(t, u, band.symmetries)
            h = t.compose(g)  # s . u, which maps the query's band onto the canonical edge
            back[t.index] = band.points[h.index]
            swaps[t.index] = h.swap
        return back, swaps

    @cached_property
    def _window_frames(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
        """``[orientation, window point]``: the query point of each point of a
        window whose content the element of that orientation maps onto the
        canonical one, and ``[orientation]`` whether its placement exchanges
        colours.  The placement of a content is the lowest element that maps
        the query's onto it (:func:`~gohash.pattern.diagram.placements` keeps
        one of those that agree): of ``t^-1 . s . u``, ``u`` the query's
        element, ``s`` a symmetry of the canonical content."""
        window = self.window
        assert window is not None
        side, u = window.side, window.square.element
        back = np.zeros((16, side * side), dtype=np.intp)
        swaps = np.zeros(16, dtype=np.bool_)
        for t in ELEMENTS:
            g = placement_element(t, u, window.symmetries)
            local = gathers(side)[g.index]  # the image of each point under g^-1
            back[t.index] = window.origin + local // side * self.size + local % side
            swaps[t.index] = g.swap
        return back, swaps

    def _page(self, store: GameStore, answered: npt.NDArray[np.bool_], wanted: int,
              work: Callable[[tuple[int, int, int], npt.NDArray[np.bool_]],
                             tuple[int, _Part] | None]) -> list[_Part] | None:
        """The matches a page needs of the answered games: the first of them in
        the store's order scanned until they hold ``wanted`` matches (every
        game before the last of them is scanned, answered or not, so the page's
        matches are the first of all), as parts that count nothing; None if the
        time ran out or the search was cancelled."""
        order = np.flatnonzero(answered)
        n = max(wanted, 1)
        while True:
            prefix = np.zeros(len(store), dtype=np.bool_)
            prefix[order[:n]] = True
            outcomes = [work(chunk, prefix) for chunk in _chunks(store, prefix, CHUNK)]
            if any(o is None for o in outcomes):
                return None
            found = [o[1] for o in outcomes if o is not None]
            if sum(p.total for p in found) >= wanted or n >= len(order):
                return [replace(_Part.empty(), kept=p.kept, placed=p.placed) for p in found]
            n *= 2

    def summed(self, store: GameStore, s: int, games: npt.NDArray[np.int64]
               ) -> list[tuple[int, _Part, npt.NDArray[np.int64]]]:
        """The hits of ``games`` (store numbers in segment ``s``, in order) by the
        compiled scan, summed up as a search sums them, by the winner of their
        games (1 Black, 2 White, 0 neither: each of those ``games`` have), but
        for the games where two placements hit one position (whose match is the
        lowest placement's, so depends on the query's frame): those are left
        out and returned (store numbers) with their winner's sum."""
        segment, start = store.segments[s], int(store.starts[s])
        base = int(games[0]) - int(games[0]) % 64
        alive = self.matcher.alive(store.columns, base, int(games[-1]) + 1)
        tally = _Tally(self, store)
        found, _ = self.matcher.scan(segment, start, alive, base, games, tally.summary(None))
        firsts, placed = _firsts(found)
        shared = np.unique(found.game[firsts[placed > 1]]).astype(np.int64)
        winner = store.winners[found.game]
        sums = []
        for w in np.unique(store.winners[games]).tolist():
            keep = (winner == w) & ~np.isin(found.game, shared)
            sums.append((int(w), tally.part(found.rows(keep), 0),
                         shared[store.winners[shared] == w]))
        return sums

    def _corner_filter(self, store: GameStore, selected: npt.NDArray[np.bool_]
                       ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64],
                                  npt.NDArray[np.uint8]]:
        """``selected`` narrowed to the games whose corner postings hold the
        query's corner key (:mod:`gohash.pattern.corners`), those games (in
        order) and the corners that held it in each (bits); ``selected`` and
        none for a query without a fully specified corner square."""
        if self.corner is None:
            return selected, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8)
        games, corners = corner_games(
            [s.corners for s in store.segments], [len(s) for s in store.segments], store.starts,
            self.corner[0])
        narrowed = np.zeros(len(store), dtype=np.bool_)
        narrowed[games] = True
        return selected & narrowed, games, corners

    @cached_property
    def _back_points(self) -> npt.NDArray[np.intp]:
        """The point of the query's frame of each point of its square's canonical
        frame (:attr:`square`)."""
        assert self.square is not None
        return self.square.element.inverse.point_permutation(self.size)

    @cached_property
    def _to_query(self) -> npt.NDArray[np.int32]:
        """``[placement, board point]``: the query point (flat) a placement puts
        there, -1 outside its region."""
        points = self.placements.points
        table = np.full((len(points), self.size * self.size), -1, dtype=np.int32)
        table[np.arange(len(points))[:, None], points] = np.array(self.pattern.region,
                                                                  dtype=np.int32)
        return table

    @cached_property
    def _representatives(self) -> npt.NDArray[np.int64]:
        """``[query colour - 1, query point]``: the move that stands for it and its
        images under the pattern's symmetries, ``npts * (colour is Black) +
        point`` (flat): the greatest, Black's first, then the last point."""
        npts = self.size * self.size
        best = np.full((2, npts), -1, dtype=np.int64)
        points = np.arange(npts)
        for s in self.symmetries:
            image = s.point_permutation(self.size)[points]
            for c in (1, 2):
                mapped = (3 - c) if s.swap else c
                best[c - 1] = np.maximum(best[c - 1], image + npts * (mapped == 1))
        return best

    def _equivalents(self, black: npt.NDArray[np.int64], points: npt.NDArray[np.int64]
                     ) -> list[tuple[Point, ...]]:
        """For each move (Black's where ``black`` is 1, else White's, at the flat
        point of ``points``), its point and the points that the colour there is
        equivalent to (those with the same representative: the pattern's
        symmetries are a group), in ``(row, col)`` order."""
        representatives = self._representatives[1 - black]
        mine = representatives[np.arange(len(points)), points]
        move, point = np.nonzero(representatives == mine[:, None])
        equivalent: list[list[Point]] = [[] for _ in range(len(points))]
        for m, q in zip(move.tolist(), point.tolist(), strict=True):
            equivalent[m].append(divmod(q, self.size))
        return [tuple(e) for e in equivalent]


def _corner_bits(store: GameStore, games: npt.NDArray[np.int64], corners: npt.NDArray[np.uint8],
                 kept: npt.NDArray[np.bool_] | None) -> npt.NDArray[np.uint64]:
    """``[corner, word]``: the bitsets over the store's games (as the inverted
    filter's) of ``games`` (in order) whose ``corners`` (bits) held the query's
    key there, of those ``kept`` flags (None: all)."""
    if kept is not None:
        games, corners = games[kept], corners[kept]
    bits = np.zeros((4, (len(store) + 63) // 64), dtype=np.uint64)
    for c in range(4):
        # The games are in order: each word's bits ORed over its run of games.
        held = games[(corners >> c) & 1 == 1]
        word = held >> 6
        runs = run_starts(word)
        if len(runs):
            bits[c, word[runs]] = np.bitwise_or.reduceat(
                np.left_shift(np.uint64(1), (held & 63).astype(np.uint64)), runs)
    return bits


def _chunks(store: GameStore, selected: npt.NDArray[np.bool_],
            size: int) -> list[tuple[int, int, int]]:
    """The chunks of the store's selected games: (segment, first game, end),
    within one segment, each holding ``size`` selected games (the last of a
    segment fewer), so that a few games picked from many (by a filter, or by
    corner postings) make few chunks: a chunk costs some work of its own."""
    chunks: list[tuple[int, int, int]] = []
    for s in range(len(store.segments)):
        start, end = int(store.starts[s]), int(store.starts[s + 1])
        picked = np.flatnonzero(selected[start:end]) + start
        chunks.extend((s, int(picked[i]), int(picked[min(i + size, len(picked)) - 1]) + 1)
                      for i in range(0, len(picked), size))
    return chunks


def _candidates(alive: npt.NDArray[np.uint64], base: int, start: int, end: int,
                selected: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """The selected games from ``start`` to ``end`` where some placement's bit of
    ``alive`` (:meth:`Matcher.alive <gohash.pattern.match.Matcher.alive>` from
    ``base``) is set."""
    words = np.bitwise_or.reduce(alive, axis=0)
    flags = np.unpackbits(words.view(np.uint8), bitorder="little")[start - base : end - base]
    return np.flatnonzero(flags.astype(np.bool_) & selected[start:end]).astype(np.int64) + start


@dataclass
class _Part:
    """A chunk's hits summed up: matches (one a position), games hit, matches
    without a continuation, and per continuation (a representative move of
    :attr:`PatternQuery._representatives`) its count, tenuki, wins of the
    query's Black and White and first and last date ranks; and the rows of the
    chunk's first matches a page may need (``kept``: a :class:`Found` of them,
    ``placed``: how many placements hit at each)."""

    total: int
    games: int
    ended: int
    moves: npt.NDArray[np.int64]
    count: npt.NDArray[np.int64]
    tenuki: npt.NDArray[np.int64]
    black_wins: npt.NDArray[np.int64]
    white_wins: npt.NDArray[np.int64]
    first: npt.NDArray[np.int64]
    last: npt.NDArray[np.int64]
    kept: Found
    placed: npt.NDArray[np.int64]

    @classmethod
    def empty(cls) -> _Part:
        none = np.zeros(0, dtype=np.int64)
        return cls(0, 0, 0, none, none, none, none, none, none, none, Found.concatenate([]),
                   none)

    @classmethod
    def of_sums(cls, total: int, games: int, ended: int, moves: npt.NDArray[np.int64],
                sums: npt.NDArray[np.int64], kept: Found | None = None,
                placed: npt.NDArray[np.int64] | None = None) -> _Part:
        """A part whose continuations are ``moves`` and their rows of ``sums``
        (count, tenuki, wins of Black and of White, first and last date rank);
        no rows of matches kept unless given."""
        count, tenuki, black_wins, white_wins, first, last = (
            np.ascontiguousarray(sums[:, c]) for c in range(6))
        none = np.zeros(0, dtype=np.int64)
        return cls(total, games, ended, moves.astype(np.int64), count, tenuki, black_wins,
                   white_wins, first, last, Found.concatenate([]) if kept is None else kept,
                   none if placed is None else placed)


BAND_SAMPLE = 4096
"""A segment of more games than this counts its bands' contents in its first
games, this many or an eighth of them, to pick those it sums up."""

# What a row of a window's answers is to a query (PatternQuery._answer_moves).
_CONTINUATION, _ENDED, _ELSEWHERE = 0, 1, 2


def _row_kinds(orientation: npt.NDArray[np.int64], u: Element
               ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int8]]:
    """Of answers' rows of a window or band with these ``orientation`` s, those
    of positions two of them hit (16 and more: their frame's) and what each
    row is to a query of frame ``u``."""
    shared = orientation >= 16
    mine = (orientation - 16) % 16 == u.index
    kind = np.where(~shared, _CONTINUATION, np.where(~mine, _ELSEWHERE, np.where(
        orientation >= 32, _ENDED, _CONTINUATION))).astype(np.int8)
    return shared, kind


def _firsts(found: Found) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]:
    """The rows of ``found`` that are matches, one a position (the lowest
    placement's, the first of its run), and how many placements hit at each."""
    firsts = run_starts(found.game, found.position)
    return firsts, (np.append(firsts[1:], len(found.game)) - firsts).astype(np.int64)


def _kept(found: Found, firsts: npt.NDArray[np.intp], placed: npt.NDArray[np.int64],
          wanted: int | None) -> tuple[Found, npt.NDArray[np.int64]]:
    """The first ``wanted`` matches (None: all) of ``found`` (:func:`_firsts`)
    and their placements."""
    keep = firsts if wanted is None else firsts[:wanted]
    return found.rows(keep), placed[: len(keep)]


class _Tally:
    """Sums up a query's hits chunk by chunk (:meth:`part`) and makes the result
    of the parts (:meth:`result`)."""

    def __init__(self, query: PatternQuery, store: GameStore) -> None:
        self.query = query
        self.store = store
        # Built here, once, not by the threads.
        self.to_query = query._to_query
        self.representatives = np.ascontiguousarray(query._representatives)

    def summary(self, wanted: int | None) -> Any:
        """The kernel's ``Summary`` (:mod:`gohash.pattern._match`) of a chunk, that
        sums its matches up as :meth:`part` does, as the scan finds them."""
        assert kernel.match is not None
        store = self.store
        return kernel.match.Summary(self.to_query, self.representatives, store.winners,
                                    store.date_ranks, -1 if wanted is None else wanted)

    def summed(self, found: Found, summary: Any, wanted: int | None) -> _Part:
        """The :class:`_Part` of a chunk the kernel summed up in ``summary``
        (:meth:`summary`), ``found`` the rows it kept."""
        sums = summary.sums
        played = np.flatnonzero(sums[:, 0])
        firsts, placed = _firsts(found)
        kept, placed = _kept(found, firsts, placed, wanted)
        return _Part.of_sums(summary.total, summary.games, summary.ended, played, sums[played],
                             kept, placed)

    def part(self, found: Found, wanted: int | None) -> _Part:
        """The hits ``found`` of a chunk summed up, the first ``wanted`` matches
        kept (None: all)."""
        store = self.store
        firsts, placed = _firsts(found)
        game = found.game[firsts]
        placement = found.placement[firsts]
        swapped = self.query.matcher.swaps[placement].astype(np.bool_)
        colour = found.next_colour[firsts]
        has = colour > 0
        # Each continuation in the query's orientation and colours, and the
        # representative of it and its images under the pattern's symmetries.
        query_colour = np.where(swapped, 3 - colour, colour)
        query_point = self.to_query[placement[has], found.next_point[firsts][has]]
        moves = self.representatives[query_colour[has] - 1, query_point]
        distinct, which = np.unique(moves, return_inverse=True)
        tenuki = np.bincount(which, weights=found.tenuki[firsts][has], minlength=len(distinct))
        winner = store.winners[game[has]]
        query_winner = np.where(winner == 0, 0, np.where(swapped[has], 3 - winner, winner))
        summed = tally(which, len(distinct), query_winner == 1, query_winner == 2,
                       store.date_ranks[game[has]].astype(np.int64))
        kept, placed = _kept(found, firsts, placed, wanted)
        return _Part(len(firsts), len(np.unique(game)), int(len(firsts) - has.sum()),
                     distinct.astype(np.int64), summed.occurrences, tenuki.astype(np.int64),
                     summed.black_wins, summed.white_wins, summed.first, summed.last, kept,
                     placed)

    def result(self, parts: list[_Part], records: Callable[[list[int]], Mapping[int, R]],
               *, searched: int, candidates: int, limit: int | None,
               offset: int) -> PatternResult[R]:
        """The result of the parts of all chunks, in the store's order."""
        query, store = self.query, self.store
        size = query.size
        npts = size * size
        moves = np.concatenate([p.moves for p in parts]) if parts else np.zeros(0, np.int64)
        distinct, which = np.unique(moves, return_inverse=True)
        n = len(distinct)

        def joined(column: str) -> npt.NDArray[np.int64]:
            return np.concatenate([getattr(p, column) for p in parts]) if parts else moves

        count, black_wins, white_wins, first, last = tally(
            which, n, joined("black_wins"), joined("white_wins"), joined("first"),
            joined("last"), count=joined("count"))
        tenuki = np.bincount(which, weights=joined("tenuki"), minlength=n).astype(np.int64)
        # Most played first, then Black's first, then by point.
        order = np.lexsort((distinct % npts, distinct < npts, -count))
        black, point = np.divmod(distinct[order], npts)
        dates = store.dates
        continuations = [
            PatternContinuation(
                "b" if b else "w", divmod(q, size), same, c, t, bw, ww, c - bw - ww,
                dates[f] if la >= 0 else None, dates[la] if la >= 0 else None, size)
            for b, q, same, c, t, bw, ww, f, la in zip(
                black.tolist(), point.tolist(), query._equivalents(black, point),
                count[order].tolist(), tenuki[order].tolist(), black_wins[order].tolist(),
                white_wins[order].tolist(), first[order].tolist(), last[order].tolist(),
                strict=True)
        ]
        found = Found.concatenate([p.kept for p in parts])
        placed = np.concatenate([p.placed for p in parts]) if parts else np.zeros(0, np.int64)
        # In the store's order: a page's matches of answered games come after the
        # parts that were scanned for their counts.
        order = np.lexsort((found.position, found.game))
        found, placed = found.rows(order), placed[order]
        window = slice(offset, None if limit is None else offset + limit)
        found = found.rows(window)
        ids = store.ids[found.game].tolist()
        known = records(sorted(set(ids)))
        placements = query.placements
        swapped = query.matcher.swaps[found.placement].astype(np.bool_)
        # The side to move and the continuation, in the query's colours and
        # orientation, of the matches kept.
        names = ("", "b", "w")
        to_move = np.where(swapped, 3 - found.to_move, found.to_move).tolist()
        colour = np.where(swapped & (found.next_colour > 0), 3 - found.next_colour,
                          found.next_colour)
        played = self.to_query[found.placement, np.maximum(found.next_point, 0)]
        next_moves = [None if not c else (names[c], divmod(q, size))
                      for c, q in zip(colour.tolist(), played.tolist(), strict=True)]
        elements = [ELEMENTS[e] for e in placements.elements[found.placement].tolist()]
        offsets = [(r, c) for r, c in placements.offsets[found.placement].tolist()]
        matches = [
            PatternMatch(known[game_id], number, element, offset, position, names[side],
                         next_move, tenuki_, placed_)
            for game_id, number, element, offset, position, side, next_move, tenuki_, placed_
            in zip(ids, found.move_number.tolist(), elements, offsets, found.position.tolist(),
                   to_move, next_moves, found.tenuki.tolist(), placed[window].tolist(),
                   strict=True)
        ]
        return PatternResult(
            query.pattern, query.symmetry, len(placements), searched, candidates,
            sum(p.games for p in parts), sum(p.total for p in parts),
            sum(p.ended for p in parts), matches, continuations, limit, offset,
        )


def answer_segment(store: GameStore, s: int, *, frequent: int | None = None,
                   queries: dict[int, PatternQuery | None] | None = None) -> SegmentAnswers:
    """The answers of segment ``s`` of ``store`` (:class:`SegmentAnswers`): for
    each corner key that ``frequent`` of its games hold, the stones of a square
    that held it (the first game's, found again by replaying its corner), the
    hits of a query of that square alone in its canonical frame, summed up by
    :meth:`PatternQuery.summed` over the key's games.  A key whose games' square
    is not the one its query asks for (keys of other stones that collide) is
    left out, and so scanned.  ``frequent``: :data:`~gohash.pattern.answers.FREQUENT`
    if None; ``queries``: the query of each key met before (None: none), for
    the segments of one store, which mostly share their frequent keys (a
    query's hits are exact whatever games it is asked of, so one square a key
    serves them all).  With them, the answers of the segment's windows
    (:func:`answer_windows`) and bands (:func:`answer_bands`), but those
    whose key another answer has.  Needs the compiled kernel."""
    queries = {} if queries is None else queries
    frequent = FREQUENT if frequent is None else frequent
    frequent_to_move = max(frequent, FREQUENT_TO_MOVE)
    segment, start = store.segments[s], int(store.starts[s])
    size, npts = store.size, store.size * store.size
    postings = segment.corners
    runs = run_starts(postings.keys) if len(postings) else np.zeros(0, dtype=np.intp)
    lengths = np.diff(np.append(runs, len(postings)))
    ranks = store.date_ranks[start : start + len(segment)]
    dated, dated_at = np.unique(ranks, return_index=True)
    columns: dict[str, list[Any]] = {name: [] for name in (
        "keys", "to_move", "winners", "sides", "corners", "black", "white", "totals", "games",
        "ended")}
    exceptions: list[npt.NDArray[np.int64]] = []
    rows: list[_Part] = []

    def query_of(key: int, head: int) -> PatternQuery | None:
        square = _held_square(segment, head >> 4, (head & 15 & -(head & 15)).bit_length() - 1,
                              key, size)
        if square is None:
            return None
        codes = np.full(npts, OUTSIDE, dtype=np.int64)
        codes[np.flatnonzero(squares(size, square.side)[square.corner])] = square.colours()
        query = PatternQuery(Pattern(size, tuple(codes.tolist())))
        if (query.corner is None or query.corner[0] != key or query.square is None
                or query.square.stones != square.stones):
            return None
        return query

    def answer(run: int, length: int
               ) -> tuple[int, Square, list[tuple[int, int, _Part, npt.NDArray[np.int64]]]] | None:
        key = int(postings.keys[run])
        entries = postings.entries[run : run + length]
        if key not in queries:
            queries[key] = query_of(key, int(entries[0]))
        query = queries[key]
        if query is None or query.square is None:
            return None
        games = (entries >> np.uint32(4)).astype(np.int64) + start
        sums = [(0, *summed) for summed in query.summed(store, s, games)]
        if length >= frequent_to_move and not any(g.swap for g in query.symmetries):
            # The square's own frame: its query's sides are the frame's.
            for side, name in ((1, "b"), (2, "w")):
                sums += [(side, *summed) for summed in PatternQuery(
                    query.pattern, to_move=name).summed(store, s, games)]
        return key, query.square, sums

    frequent_runs = runs[lengths >= frequent].tolist()
    windowed = answer_windows(store, s, frequent=frequent)
    banded = answer_bands(store, s, frequent=frequent)
    # Two threads: the kernel's scans run without the interpreter lock.
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        answered = list(pool.map(answer, frequent_runs, lengths[lengths >= frequent].tolist()))
    corner_keys = {found[0] for found in answered if found is not None}
    # A window's key that is also a corner's (32 bits of a corner key may be
    # anything) is left out: its games are scanned.
    answered += [found for found in windowed if found[0] not in corner_keys]
    # A band's key is 24 bits of its shape and content: one that another's, a
    # window's or a corner's is too is left out, and so scanned.
    band_keys = collections.Counter(found[0] for found in banded)
    answered += [found for found in banded
                 if found[0] not in corner_keys and band_keys[found[0]] == 1]
    answered.sort(key=lambda found: -1 if found is None else found[0])
    for found in answered:
        if found is None:
            continue
        key, square, sums = found
        for to_move, winner, part, left in sums:
            for name, value in (("keys", key), ("to_move", to_move), ("winners", winner),
                                ("sides", square.side),
                                ("corners", square.corner), ("black", square.black),
                                ("white", square.white), ("totals", part.total),
                                ("games", part.games), ("ended", part.ended)):
                columns[name].append(value)
            exceptions.append(left - start)
            rows.append(part)

    def game_of(rank: npt.NDArray[np.int64], none: npt.NDArray[np.bool_]) -> npt.NDArray[np.int32]:
        at = np.searchsorted(dated, np.where(none, dated[:1] if len(dated) else 0, rank))
        return np.where(none, -1, dated_at[np.minimum(at, len(dated_at) - 1)]).astype(np.int32)

    def joined(name: str) -> npt.NDArray[np.int64]:
        arrays = [getattr(p, name) for p in rows]
        return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)

    first, last = joined("first"), joined("last")
    return SegmentAnswers(
        store.stamps[s],
        np.array(columns["keys"], dtype=np.uint32), np.array(columns["to_move"], dtype=np.uint8),
        np.array(columns["winners"], dtype=np.uint8),
        np.array(columns["sides"], dtype=np.uint8),
        np.array(columns["corners"], dtype=np.uint8), np.array(columns["black"], dtype=np.uint64),
        np.array(columns["white"], dtype=np.uint64), np.array(columns["totals"], dtype=np.int64),
        np.array(columns["games"], dtype=np.int64), np.array(columns["ended"], dtype=np.int64),
        np.cumsum([0] + [len(e) for e in exceptions]).astype(np.int64),
        (np.concatenate(exceptions) if exceptions else np.zeros(0, np.int64)).astype(np.int32),
        np.cumsum([0] + [len(p.moves) for p in rows]).astype(np.int64),
        joined("moves").astype(np.int32), joined("count").astype(np.int32),
        joined("tenuki").astype(np.int32), joined("black_wins").astype(np.int32),
        joined("white_wins").astype(np.int32), game_of(first, first == NO_FIRST),
        game_of(last, last < 0))


def answer_windows(store: GameStore, s: int, *, frequent: int | None = None,
                   threads: int = THREADS) -> list[tuple[int, Square, list[tuple[int, int, _Part,
                                                           npt.NDArray[np.int64]]]]]:
    """The answers of the windows of segment ``s`` of ``store``
    (:mod:`gohash.pattern.windows`), as :func:`answer_segment` makes those of
    corner keys: for each side of :data:`~gohash.pattern.windows.WINDOW_SIDES`
    and class of contents that ``frequent`` of the segment's games hit (a first
    pass of the kernel's ``window_hits`` counts them), the key, the canonical
    content, and per winner that the segment's games have (with any side to
    move) the matches of every game of the segment summed up, none left out.
    A move is held as ``orientation * 2 * points + points * (colour is Black)
    + point``: for a position one window hit, ``orientation`` is the element
    that maps the window's content onto the canonical one, the colour and
    point as played in it (folded into the canonical frame, orientation 0,
    where no element but the identity maps that content onto itself: each
    window maps onto it one way); for a position two windows hit, whose
    match is the lowest placement's, ``16 + u`` for each element ``u`` that is
    the lowest to map one of the content's images onto the canonical one (a
    query's), in that query's colours
    and window, and ``32 + u`` with the count of those without a
    continuation (:meth:`PatternQuery._answer_moves` reads them).  Needs the
    compiled kernel."""
    assert kernel.match is not None
    frequent = FREQUENT if frequent is None else frequent
    flat, winners, ranks, runs = _segment_columns(store, s, threads)
    present = np.unique(winners).tolist()
    out = []
    for side in WINDOW_SIDES:
        tables = window_tables(side)
        npoints = side * side
        with ThreadPoolExecutor(max_workers=threads) as pool:
            held = sum(pool.map(functools.partial(
                _window_pass, flat, store.size, side, answered=np.zeros(0, dtype=np.int32),
                lowest=np.zeros((0, 16, 16), dtype=np.int8),
                frames=np.zeros((0, 16), dtype=np.uint8), winners=winners, ranks=ranks),
                runs))
            classes = np.flatnonzero(held >= frequent)
            if not len(classes):
                continue
            answer_of = np.full(len(held), -1, dtype=np.int32)
            answer_of[classes] = np.arange(len(classes), dtype=np.int32)
            symmetries = [content_symmetries(side, int(tables.canonical[c]))
                          for c in classes.tolist()]
            lowest = np.stack([_placement_elements(own) for own in symmetries])
            # The only frames a position two windows hit is summed up for.
            frames = np.stack([_query_frames(own) for own in symmetries])
            passes = list(pool.map(functools.partial(
                _window_pass, flat, store.size, side, answered=answer_of, lowest=lowest,
                frames=frames, winners=winners, ranks=ranks), runs))
        sums, shared = (_joined_sums([p[k] for p in passes]) for k in (0, 1))
        counts = sum(p[2] for p in passes)
        folding = _folding(side)
        for a, cls in enumerate(classes.tolist()):
            canonical = int(tables.canonical[cls])
            parts = []
            for winner in present:
                once = sums[a, winner].reshape(-1, 6).astype(np.int64)
                played = np.flatnonzero(once[:, 0])
                moves, rows = played, once[played]
                if len(symmetries[a]) == 1:
                    moves, rows = _folded(folding[played], rows,
                                          swapped=played // (2 * npoints) >= 8)
                by_frame, by_frame_rows = _frame_rows(shared[a, :, winner], npoints)
                moves = np.concatenate([moves, by_frame])
                rows = np.concatenate([rows, by_frame_rows])
                rows[:, 4] = np.where(rows[:, 4] == np.iinfo(np.int32).max, NO_FIRST, rows[:, 4])
                total, games, ended = (int(v) for v in counts[a, winner])
                parts.append((0, int(winner), _Part.of_sums(total, games, ended, moves, rows),
                              np.zeros(0, dtype=np.int64)))
            out.append((window_key(side, canonical),
                        content_square(side, canonical, ELEMENTS[0]), parts))
    return out


def answer_bands(store: GameStore, s: int, *, frequent: int | None = None,
                 threads: int = THREADS) -> list[tuple[int, Square, list[tuple[int, int, _Part,
                                                         npt.NDArray[np.int64]]]]]:
    """The answers of the bands of segment ``s`` of ``store``
    (:mod:`gohash.pattern.bands`), as :func:`answer_windows` makes those of
    windows: for each shape of :data:`~gohash.pattern.bands.BAND_SHAPES` and
    canonical content that ``frequent`` of the segment's games hit (a first
    pass of the kernel's ``band_hits`` counts them), the key, the canonical
    content, and per winner that the segment's games have the matches of
    every game of the segment summed up.  A move is held as ``orientation *
    2 * points + points * (colour is Black) + point`` in the canonical frame
    and its colours, ``orientation`` the element that maps the band it was
    played in onto the canonical edge where the content has a symmetry (the
    query's placement depends on it), else 0.  A position two bands hit,
    whose match is the lowest placement's, is summed up, for the contents
    where such positions are one in eight of those counted
    (:data:`SHARED_BANDS` at most), for each element ``u`` that is a query's
    frame as ``16 + u`` (``32 + u`` with the count of those without a
    continuation), in that query's canonical frame; for the others, the
    games with such a position are left out (store numbers: they are
    scanned).  :meth:`PatternQuery._band_moves` reads them.  Needs the
    compiled kernel."""
    assert kernel.match is not None
    frequent = FREQUENT if frequent is None else frequent
    flat, winners, ranks, runs = _segment_columns(store, s, threads)
    segment, start = store.segments[s], int(store.starts[s])
    # The contents that may be frequent, counted in a part of a large segment's
    # games (a band holds some millions of contents a segment): those held by
    # 3/4 of their share of ``frequent`` there; of those, the ones ``frequent``
    # games hit are kept once summed up.
    sample = min(len(segment), max(BAND_SAMPLE, len(segment) // 8))
    least = frequent if sample == len(segment) else max(1, int(
        0.75 * frequent * sample / len(segment)))

    def frequent_codes(shape: tuple[int, int]) -> _BandPlan | None:
        codes, held, shared = _band_pass(flat, store.size, _BandPlan.counting(*shape),
                                         (0, sample), winners=winners, ranks=ranks)
        kept = np.flatnonzero(held >= least)
        order = np.argsort(codes[kept])
        kept = kept[order]
        return _BandPlan.of(*shape, codes[kept], shared[kept] * 8 >= held[kept],
                            shared[kept] / held[kept]) if len(kept) else None

    out = []
    # The shapes counted a thread each, then each summed up by all, the next
    # shape's passes running (without the interpreter lock) while this thread
    # sums up the last one's answers.
    with ThreadPoolExecutor(max_workers=threads) as pool:
        plans = [plan for plan in pool.map(frequent_codes, BAND_SHAPES) if plan is not None]

        def submitted(plan: _BandPlan) -> list[Any]:
            return [pool.submit(_band_pass, flat, store.size, plan, run, winners=winners,
                                ranks=ranks) for run in runs]

        # One shape's passes ahead: what they hold is a shape's sums at a time.
        ahead = submitted(plans[0]) if plans else []
        for i, plan in enumerate(plans):
            passes, ahead = ahead, submitted(plans[i + 1]) if i + 1 < len(plans) else []
            out += _band_answers(plan, [future.result() for future in passes], runs, winners,
                                 start, frequent)
    return out


SHARED_BANDS = 512
"""The answers of a band shape and segment, at most, whose positions two bands
hit at once are summed up for each frame a query may have (those with the
most such positions); the others leave such games to the scan."""


@dataclass(frozen=True)
class _BandPlan:
    """What a pass of the kernel's ``band_hits`` over a band shape is asked: the
    ``answered`` canonical codes (none: it counts), each content's rows by
    orientation or not (``by_orientation``: ``widths`` 16 or 1 from
    ``slots``), and for those whose shared positions are summed up by frame,
    their slot (``shared_slots``, -1 none) and their ``frames``, ``lowest``
    and ``keepers`` tables (``band_hits``)."""

    depth: int
    width: int
    answered: npt.NDArray[np.int64]
    by_orientation: npt.NDArray[np.uint8]
    widths: npt.NDArray[np.int64]
    slots: npt.NDArray[np.int32]
    shared_slots: npt.NDArray[np.int32]
    frames: npt.NDArray[np.uint8]
    lowest: npt.NDArray[np.int8]
    keepers: npt.NDArray[np.int8]

    @classmethod
    def counting(cls, depth: int, width: int) -> _BandPlan:
        none = np.zeros(0, dtype=np.int64)
        return cls(depth, width, none, none.astype(np.uint8), none, none.astype(np.int32),
                   none.astype(np.int32), np.zeros((0, 16), dtype=np.uint8),
                   np.zeros((0, 16, 16), dtype=np.int8), np.zeros((0, 16, 16), dtype=np.int8))

    @classmethod
    def of(cls, depth: int, width: int, answered: npt.NDArray[np.int64],
           shared: npt.NDArray[np.bool_], share: npt.NDArray[np.float64]) -> _BandPlan:
        """The plan of summing ``answered`` up, the positions two bands hit summed
        up by frame for those ``shared`` (the :data:`SHARED_BANDS` of them with
        the greatest ``share`` of such positions)."""
        symmetries = [band_symmetries(depth, width, int(c)) for c in answered.tolist()]
        by_orientation = np.array([len(own) > 1 for own in symmetries], dtype=np.uint8)
        widths = np.where(by_orientation, 16, 1).astype(np.int64)
        slots = (np.cumsum(widths) - widths).astype(np.int32)
        chosen = np.flatnonzero(shared)
        chosen = np.sort(chosen[np.argsort(-share[chosen], kind="stable")][:SHARED_BANDS])
        shared_slots = np.full(len(answered), -1, dtype=np.int32)
        shared_slots[chosen] = np.arange(len(chosen), dtype=np.int32)
        return cls(depth, width, answered, by_orientation, widths, slots, shared_slots,
                   np.stack([_query_frames(own) for own in symmetries]),
                   np.stack([_placement_elements(own) for own in symmetries]),
                   np.stack([_keepers(own) for own in symmetries]))


def _frame_rows(sums: npt.NDArray[np.int32], points: int
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The moves and rows of the sums of positions two windows or bands hit
    (``[u, move, column]``, move ``2 * points`` the matches without a
    continuation), as answers hold them: ``(16 + u) * 2 * points + move``, or
    ``(32 + u) * 2 * points`` with that count."""
    twice = sums.astype(np.int64)
    u, move = np.nonzero(twice[:, :, 0])
    return (np.where(move == 2 * points, (32 + u) * 2 * points, (16 + u) * 2 * points + move),
            twice[u, move])


@cache
def _keepers(symmetries: tuple[Element, ...]) -> npt.NDArray[np.int8]:
    """``[t, u]``: for a content of those ``symmetries``, the symmetry ``t .
    g . u^-1`` the placement ``g`` of a query of frame ``u`` on a content of
    orientation ``t`` (:func:`_placement_elements`) goes through."""
    table = np.array([[t.compose(placement_element(t, u, symmetries)).compose(u.inverse).index
                       for u in ELEMENTS] for t in ELEMENTS], dtype=np.int8)
    table.flags.writeable = False
    return table


def _band_answers(plan: _BandPlan, passes: list[Any], runs: list[tuple[int, int]],
                  winners: npt.NDArray[np.int8], start: int, frequent: int
                  ) -> list[tuple[int, Square, list[tuple[int, int, _Part,
                                                        npt.NDArray[np.int64]]]]]:
    """:func:`answer_bands`' answers of one shape from the kernel's ``passes``
    over the ``runs`` of a segment (whose game 0 is store number ``start``)
    with ``plan``: those of its answered codes that ``frequent`` games hit, a
    part a winner of ``winners``, with the games left to scan."""
    sums = _joined_sums([p[0] for p in passes])
    counts = sum(p[1] for p in passes)
    left = np.concatenate([p[2] + [0, a] for p, (a, _) in zip(passes, runs, strict=True)])
    left = left[np.lexsort((left[:, 1], left[:, 0]))]
    left_at = np.searchsorted(left[:, 0], np.arange(len(plan.answered) + 1))
    shared = _joined_sums([p[3] for p in passes])  # [slot, u, winner, move or none, column]
    points = plan.depth * plan.width
    present = np.unique(winners).tolist()
    out = []
    for a, code in enumerate(plan.answered.tolist()):
        mine = left[left_at[a] : left_at[a + 1], 1]
        if int(counts[a, :, 1].sum()) + len(mine) < frequent:
            continue
        rows_of = sums[plan.slots[a] : plan.slots[a] + plan.widths[a]]  # [t, winner, move, column]
        parts = []
        for winner in present:
            once = rows_of[:, winner].reshape(-1, 6).astype(np.int64)
            moves = np.flatnonzero(once[:, 0])
            rows = once[moves]
            if plan.shared_slots[a] >= 0:
                by_frame, by_frame_rows = _frame_rows(shared[plan.shared_slots[a], :, winner],
                                                      points)
                moves = np.concatenate([moves, by_frame])
                rows = np.concatenate([rows, by_frame_rows])
            rows[:, 4] = np.where(rows[:, 4] == np.iinfo(np.int32).max, NO_FIRST, rows[:, 4])
            total, games, ended = (int(v) for v in counts[a, winner])
            left_out = (mine[winners[mine] == winner] + start).astype(np.int64)
            parts.append((0, int(winner), _Part.of_sums(total, games, ended, moves, rows),
                          left_out))
        out.append((band_key(plan.depth, plan.width, code),
                    band_square(plan.depth, plan.width, code, ELEMENTS[0]), parts))
    return out


def _segment_columns(store: GameStore, s: int, threads: int
                     ) -> tuple[Any, npt.NDArray[np.int8], npt.NDArray[np.int32],
                                list[tuple[int, int]]]:
    """What the kernel's passes over segment ``s`` of ``store`` read: its
    replayed main lines, its games' winners and date ranks, and its games in
    as many runs as ``threads`` (from, to), each a pass of its own without
    the interpreter lock, whose sums add up."""
    segment, start = store.segments[s], int(store.starts[s])
    end = start + len(segment)
    winners = np.ascontiguousarray(store.winners[start:end], dtype=np.int8)
    ranks = np.ascontiguousarray(store.date_ranks[start:end], dtype=np.int32)
    cuts = np.linspace(0, len(segment), threads + 1).astype(np.int64)
    return segment.flat, winners, ranks, [(int(a), int(b)) for a, b in itertools.pairwise(cuts)
                                          if b > a]


def _band_pass(flat: Any, size: int, plan: _BandPlan, run: tuple[int, int],
               winners: npt.NDArray[np.int8], ranks: npt.NDArray[np.int32]) -> Any:
    """The kernel's ``band_hits`` of the bands of ``plan``'s shape, asked what it
    asks, over the games ``run`` (from, to) of a segment's replayed main lines
    ``flat``, their ``winners`` and date ``ranks`` those of the whole segment."""
    assert kernel.match is not None
    a, b = run
    n0, n1 = int(flat.node_offsets[a]), int(flat.node_offsets[b])
    c0, c1 = int(flat.change_offsets[a]), int(flat.change_offsets[b])
    frames = bands(size, plan.depth, plan.width)
    return kernel.match.band_hits(
        flat.node_offsets[a : b + 1] - n0, flat.next_colour[n0:n1], flat.next_point[n0:n1],
        flat.change_offsets[a : b + 1] - c0, flat.changes[c0:c1], size, plan.depth,
        plan.width, frames.points, frames.entries, frames.offsets, frames.elements,
        plan.answered, plan.slots, plan.by_orientation, plan.shared_slots, plan.frames,
        plan.lowest, plan.keepers, winners[a:b], ranks[a:b])


def _window_pass(flat: Any, size: int, side: int, run: tuple[int, int],
                 answered: npt.NDArray[np.int32], lowest: npt.NDArray[np.int8],
                 frames: npt.NDArray[np.uint8], winners: npt.NDArray[np.int8],
                 ranks: npt.NDArray[np.int32]) -> Any:
    """The kernel's ``window_hits`` of windows of ``side`` over the games
    ``run`` (from, to) of a segment's replayed main lines ``flat``, their
    ``winners`` and date ``ranks`` those of the whole segment."""
    assert kernel.match is not None
    a, b = run
    n0, n1 = int(flat.node_offsets[a]), int(flat.node_offsets[b])
    c0, c1 = int(flat.change_offsets[a]), int(flat.change_offsets[b])
    tables = window_tables(side)
    return kernel.match.window_hits(
        flat.node_offsets[a : b + 1] - n0, flat.next_colour[n0:n1], flat.next_point[n0:n1],
        flat.change_offsets[a : b + 1] - c0, flat.changes[c0:c1], size, side,
        *windows(size, side), tables.classes, tables.orientations, answered, lowest, frames,
        _inverse_images(side), winners[a:b], ranks[a:b])


@cache
def _inverse_images(side: int) -> npt.NDArray[np.int32]:
    """``[g, k]``: the image of window point ``k`` under the inverse of element
    ``g`` (:func:`~gohash.group.symmetry.gathers` of a board of the window's
    side), as the kernel reads it."""
    table = gathers(side).astype(np.int32)
    table.flags.writeable = False
    return table


def _joined_sums(parts: list[npt.NDArray[np.int32]]) -> npt.NDArray[np.int32]:
    """Sums of runs of games (last axis: count, tenuki, wins of Black and of
    White, lowest and highest date rank) as one."""
    joined: npt.NDArray[np.int32] = parts[0].copy()
    for part in parts[1:]:
        joined[..., :4] += part[..., :4]
        np.minimum(joined[..., 4], part[..., 4], out=joined[..., 4])
        np.maximum(joined[..., 5], part[..., 5], out=joined[..., 5])
    return joined


@cache
def _query_frames(symmetries: tuple[Element, ...]) -> npt.NDArray[np.uint8]:
    """``[u]``: whether ``u`` is a query's frame for a content of those
    ``symmetries``, the lowest element that maps one of its images (``e`` of
    it) onto it: the least of ``s . e^-1``."""
    frames = np.zeros(16, dtype=np.uint8)
    for e in ELEMENTS:
        frames[min((own.compose(e.inverse) for own in symmetries),
                   key=lambda g: g.index).index] = 1
    frames.flags.writeable = False
    return frames


@cache
def _placement_elements(symmetries: tuple[Element, ...]) -> npt.NDArray[np.int8]:
    """``[t, u]``: the index of :func:`~gohash.pattern.windows.placement_element`
    of ``t`` and ``u`` for a content of those ``symmetries``."""
    table = np.array([[placement_element(t, u, symmetries).index for u in ELEMENTS]
                      for t in ELEMENTS], dtype=np.int8)
    table.flags.writeable = False
    return table


@cache
def _folding(side: int) -> npt.NDArray[np.int64]:
    """``[orientation * 2 * points + move]``: a window's move (``points * (colour
    is Black) + point``) as played in a window whose content the element of
    that orientation maps onto the canonical one, moved into the canonical
    frame: its point's image and colour under that element (orientation 0)."""
    points = side * side
    out = np.zeros(16 * 2 * points, dtype=np.int64)
    for t in ELEMENTS:
        image = point_images(side)[t.index]
        for black in (0, 1):
            mapped = black != t.swap
            out[t.index * 2 * points + black * points + np.arange(points)] = (
                mapped * points + image)
    out.flags.writeable = False
    return out


def _folded(moves: npt.NDArray[np.int64], rows: npt.NDArray[np.int64],
            swapped: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.int64],
                                                    npt.NDArray[np.int64]]:
    """Rows of sums (count, tenuki, wins of Black and of White, first and last
    date rank) of ``moves`` summed up by move, the wins of those ``swapped``
    exchanged (their colours are the other's in the canonical frame)."""
    black_wins = np.where(swapped, rows[:, 3], rows[:, 2])
    white_wins = np.where(swapped, rows[:, 2], rows[:, 3])
    distinct, which = np.unique(moves, return_inverse=True)
    n = len(distinct)
    summed = tally(which, n, black_wins, white_wins, rows[:, 4], rows[:, 5], count=rows[:, 0])
    tenuki = np.bincount(which, weights=rows[:, 1], minlength=n).astype(np.int64)
    return distinct, np.stack([summed.occurrences, tenuki, summed.black_wins,
                               summed.white_wins, summed.first, summed.last], axis=1)


def _held_square(segment: Segment, game: int, corner: int, key: int, size: int
                 ) -> Square | None:
    """The canonical :class:`Square` of the first node of ``game`` (a number in
    ``segment``) after which the square of ``corner`` holds stones whose key (as
    corner postings hold it) is ``key``; None if none does."""
    flat = segment.flat
    words = flat.changes[flat.change_offsets[game] : flat.change_offsets[game + 1]].astype(
        np.int64)
    point, old, new = (words >> 4) & 0x7FF, (words >> 2) & 3, words & 3
    if len(point) and (int(point.max()) >= size * size or int(max(old.max(), new.max())) > 2):
        return None  # a damaged segment: its scan reports it
    zobrist = stone_keys(scheme(CORNER_SCHEME, size))
    last = (words >> 15).astype(np.bool_)  # a node's last change
    for level, side in enumerate(levels(size)):
        inside = squares(size, side)[corner][point]
        # The square's key after each change: the running XOR of its changes.
        running = np.bitwise_xor.accumulate(
            np.where(inside, zobrist[point, old] ^ zobrist[point, new], np.uint64(0)))
        held = np.flatnonzero(last & (running != 0))
        held = held[posting_keys(running[held], size, level) == key]
        if len(held):
            upto = int(held[0]) + 1
            board = np.zeros(size * size, dtype=np.int64)
            # The last change of each point up to there is its value (a node
            # that changes nothing has a word of point 0 that is no change).
            moved = np.flatnonzero(old[:upto] != new[:upto])
            points, at = np.unique(point[moved][::-1], return_index=True)
            board[points] = new[moved][::-1][at]
            return canonical_square(size, side, corner,
                                    board[np.flatnonzero(squares(size, side)[corner])])
    return None
