"""The hits of a pattern's placements in one game, and the games worth replaying.

Scope: :class:`Game` (a game's boards and moves, as the index gives them),
:class:`Matcher` (the placements of a query laid out once as arrays) with
:meth:`Matcher.match`, the compiled kernel ``gohash.pattern._match`` where it
was built and :func:`match_python`, its pure twin, otherwise; and the per-game
bitmaps of points ever black or ever white that pick the candidate games.

A hit of a placement is the first position of the game (0: the start) where
the placement is present -- every point of its region holds what its code
allows -- with the side to move asked for, at most at move ``max_move``, and
followed by the placement's sequence: its moves played next inside the
region, in order, other moves elsewhere in between allowed.  Each placement
hits a game once at most: one that vanishes and comes back is not counted
again.  Its continuation is the next move played inside the region after the
hit (after the sequence), and whether a move elsewhere (or a pass) came first:
a tenuki.

While a game is replayed each placement's key (the hash of its fixed-colour
points' stones) is kept up to date by XOR as points change; only a placement
one of whose constrained points changed, and whose key then equals the key
its pattern requires, is checked point by point.  The key filters; the check
decides.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _native
from ..errors import PatternError
from ..group.coords import sgf_order
from ..group.schemes import KeyScheme
from . import kernel
from .diagram import (
    ANY,
    BLACK,
    BLACK_OR_EMPTY,
    EMPTY,
    WHITE,
    WHITE_OR_EMPTY,
    Placements,
    stone_keys,
)
from .store import Columns, Segment
from .tally import run_starts

__all__ = ["Found", "Game", "Hits", "Matcher", "match_python"]


_FITS = np.array([[c == v if c <= WHITE else
                   (v != WHITE if c == BLACK_OR_EMPTY else v != BLACK if c == WHITE_OR_EMPTY
                    else True) for v in range(3)]
                  for c in range(ANY + 1)], dtype=np.bool_)
"""``_FITS[code, value]``: whether a point of ``value`` (0 empty, 1 black, 2 white)
fits ``code``."""


def _slot_table() -> npt.NDArray[np.int32]:
    """``[code, change]``: for each change ``(old, new)`` of a point's value (the
    six, in order), ``(old * 3 + new) * 3 + kind``, the slot of a placement
    that constrains the point with ``code`` (:meth:`Matcher._shifts`), or -1
    where the change does not concern it."""
    table = np.full((ANY + 1, 6), -1, dtype=np.int32)
    for change, (old, new) in enumerate(itertools.permutations(range(3), 2)):
        before, after = _FITS[:, old], _FITS[:, new]
        kind = np.where(~before & after, 0, np.where(
            before & ~after, 1, np.where(~before & ~after & (old == 0), 2, -1)))
        table[:, change] = np.where(kind >= 0, (old * 3 + new) * 3 + kind, -1)
    return table


_SLOTS = _slot_table()
_BITS = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
"""``_BITS[i]``: bit ``i`` of a 64-bit word."""


@dataclass(frozen=True)
class Game:
    """One game's main line: ``boards[i]`` the flat stones (``row * size + col``,
    row 0 the bottom line; 0 empty, 1 black, 2 white) of its position ``i``,
    the start first; ``move_numbers[i]`` its move number, ``to_move[i]`` the
    side to move there (1, 2); ``next_colour[i]`` the colour of the move played
    from it (0: none, the line ends or a setup node follows) and
    ``next_point[i]`` its point (-1: a pass or none)."""

    boards: npt.NDArray[np.int8]
    move_numbers: npt.NDArray[np.int32]
    to_move: npt.NDArray[np.int8]
    next_colour: npt.NDArray[np.int8]
    next_point: npt.NDArray[np.int32]


@dataclass(frozen=True)
class Hits:
    """The hits in one game: placement ``placement[j]`` (an index into the
    matcher's placements) hit at position ``position[j]``; its continuation was
    played from position ``continuation[j]`` (-1: none), after a move elsewhere
    if ``tenuki[j]``.  In order of position, then placement."""

    placement: npt.NDArray[np.int32]
    position: npt.NDArray[np.int32]
    continuation: npt.NDArray[np.int32]
    tenuki: npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Found:
    """Hits as a match reports them, in one game or many: placement
    ``placement[j]`` hit game ``game[j]`` (an index into the games scanned; 0
    for one game) at position ``position[j]``, of move number
    ``move_number[j]``, ``to_move[j]`` to play; its continuation was
    ``next_colour[j]`` (0: none) at ``next_point[j]``, after a move elsewhere if
    ``tenuki[j]``.  In order of game, position, placement."""

    game: npt.NDArray[np.int32]
    placement: npt.NDArray[np.int32]
    position: npt.NDArray[np.int32]
    move_number: npt.NDArray[np.int32]
    to_move: npt.NDArray[np.int32]
    next_colour: npt.NDArray[np.int32]
    next_point: npt.NDArray[np.int32]
    tenuki: npt.NDArray[np.bool_]

    @classmethod
    def concatenate(cls, parts: list[Found]) -> Found:
        """The hits of ``parts`` one after the other (none: no hits)."""
        def joined(column: str) -> npt.NDArray[Any]:
            arrays = [getattr(p, column) for p in parts]
            if not arrays:
                return np.zeros(0, dtype=np.bool_ if column == "tenuki" else np.int32)
            return np.concatenate(arrays)

        return cls(joined("game"), joined("placement"), joined("position"),
                   joined("move_number"), joined("to_move"), joined("next_colour"),
                   joined("next_point"), joined("tenuki"))

    def rows(self, index: npt.NDArray[Any] | slice) -> Found:
        """The hits at ``index`` (positions, a mask or a slice), in its order."""
        return Found(*(getattr(self, f.name)[index] for f in fields(Found)))

    @classmethod
    def of(cls, hits: Hits, game: Game) -> Found:
        """The hits of one game (``hits`` of :meth:`Matcher.match` on ``game``)."""
        has = hits.continuation >= 0
        cont = np.where(has, hits.continuation, 0)
        at = hits.position
        return cls(
            np.zeros(len(at), dtype=np.int32), hits.placement, at,
            game.move_numbers[at].astype(np.int32), game.to_move[at].astype(np.int32),
            np.where(has, game.next_colour[cont], 0).astype(np.int32),
            np.where(has, game.next_point[cont], -1).astype(np.int32),
            hits.tenuki,
        )


class Matcher:
    """The placements of a query as the kernel reads them, built once per query.

    ``keys`` is the 64-bit XOR scheme the placements' keys were made with.
    ``to_move`` (1 Black, 2 White, 0 either) is the side to move in the query's
    colours; ``max_move`` (-1: no bound) the last move number a hit may have.
    """

    def __init__(
        self, placements: Placements, keys: KeyScheme, *, to_move: int = 0,
        max_move: int = -1,
    ) -> None:
        if not len(placements):
            raise PatternError("a pattern needs at least one placement")
        size = keys.size
        points = size * size
        count, width = placements.points.shape
        self.placements = placements
        self.size = size
        self.to_move = to_move
        self.max_move = max_move
        self.offsets = (np.arange(count + 1) * width).astype(np.int32)
        self.points = placements.points.reshape(-1)
        self.codes = placements.codes.reshape(-1)
        self.targets = placements.keys
        self.zobrist = np.ascontiguousarray(stone_keys(keys)[:, : WHITE + 1])
        which = np.repeat(np.arange(count), width)
        self.masks = np.zeros((count, points), dtype=np.uint8)
        self.masks[which, self.points] = 1
        self.swaps = placements.swaps.astype(np.int8)
        longest = placements.sequences.shape[1]
        self.seq_length = np.full(count, longest, dtype=np.int32)
        self.seq_colours = np.zeros((count, max(longest, 1)), dtype=np.int8)
        self.seq_points = np.zeros((count, max(longest, 1)), dtype=np.int32)
        self.seq_colours[:, :longest] = placements.sequences[:, :, 0]
        self.seq_points[:, :longest] = placements.sequences[:, :, 1]
        # The placements that watch each point: those that constrain it, in order
        # of placement; a fixed-colour point also enters the placement's key.
        constrained = self.codes != ANY
        order = np.argsort(self.points[constrained].astype(np.int16), kind="stable")
        self.watch_offsets = np.zeros(points + 1, dtype=np.int32)
        np.cumsum(np.bincount(self.points[constrained], minlength=points),
                  out=self.watch_offsets[1:])
        self.watch = which[constrained][order].astype(np.int32)
        self.watch_codes = self.codes[constrained][order]
        self.watch_fixed = (self.watch_codes <= WHITE).astype(np.int8)
        self._shifts(points)
        # The stones each placement requires: the games that never had them all
        # are not candidates.  As columns of the inverted filter
        # (gohash.pattern.store.Columns: bit i of black, then of white, in the
        # order of the index's ever bitmaps), one row a placement, padded with
        # the column of all ones.  The same query points are stones in every
        # placement (an exchange of colours keeps a stone a stone).
        first = placements.codes[0]
        stones = np.flatnonzero((first == BLACK) | (first == WHITE))
        bits = (points + 7) // 8 * 8
        self.required_columns = np.full((count, max(1, len(stones))), 2 * bits, dtype=np.intp)
        self.required_columns[:, : len(stones)] = (
            sgf_order(size)[placements.points[:, stones]]
            + (placements.codes[:, stones].astype(np.intp) - 1) * bits)
        # The placements present on the empty board: where a scan starts (all or
        # none: an exchange of colours keeps a code that allows empty one).
        empty = bool(_FITS[first, EMPTY].all())
        self.empty_present = np.arange(count if empty else 0, dtype=np.int32)
        self._kernel = None if kernel.match is None else kernel.match.Kernel(self)

    def _shifts(self, points: int) -> None:
        """The scan's tables of mismatch counters (:meth:`scan`): ``mismatches[pl]``,
        the points of placement ``pl`` the empty board does not fit; and per
        point ``p`` and change of its value from ``old`` to ``new``, slot
        ``s = ((p * 3 + old) * 3 + new) * 3 + kind``, the placements
        ``shift[shift_offsets[s]:shift_offsets[s + 1]]`` that the change makes
        fit at ``p`` (kind 0: one mismatch fewer), unfit (kind 1: one more), and,
        for a stone played (``old`` 0), those it fits neither before nor after
        (kind 2: dead if no stone ever leaves ``p``)."""
        self.mismatches = (~_FITS[self.placements.codes, EMPTY]).sum(axis=1, dtype=np.int32)
        if _native.use_compiled(None, kernel.match):
            # The compiled twin builds the same tables in one pass over the watchers.
            assert kernel.match is not None
            self.shift, self.shift_offsets, self.change_rows, self.change_bits = (
                kernel.match.shift_tables(self.watch_offsets, self.watch, self.watch_codes,
                                          _SLOTS, len(self.mismatches)))
            return
        point = np.repeat(np.arange(points, dtype=np.int32), np.diff(self.watch_offsets))
        # Each watcher's slot under each change of value, where it has one.
        local = _SLOTS[self.watch_codes]
        keep = local >= 0
        slot = (point[:, None] * 27 + local)[keep]
        # Stable, so each list keeps the watchers' order (by placement); 16 bits
        # (26 * 26 * 27 slots at most) sort by radix.
        order = np.argsort(slot.astype(np.int16), kind="stable")
        slot = slot[order]
        self.shift = np.repeat(self.watch, keep.sum(axis=1))[order]
        counts = np.bincount(slot, minlength=points * 27)
        self.shift_offsets = np.zeros(points * 27 + 1, dtype=np.int32)
        np.cumsum(counts, out=self.shift_offsets[1:])
        # The same lists as bitsets over the placements, 64 a word: per change
        # (p, old, new) that concerns some placement, a row of the three kinds,
        # so that a scan visits only the placements still alive in the game
        # (the AND with its bitset of them) instead of every one listed.
        words = (len(self.mismatches) + 63) // 64
        change = slot // 3
        used = change[run_starts(change)]  # slot is sorted
        self.change_rows = np.full(points * 9, -1, dtype=np.int32)
        self.change_rows[used] = np.arange(len(used), dtype=np.int32)
        self.change_bits = np.zeros((len(used), 3, words), dtype=np.uint64)
        # A list holds its placements in order, so the bits of one word of a
        # slot's bitset are a run of the sorted lists: ORed by runs.
        word = slot * words + self.shift // 64
        runs = run_starts(word)
        at = (self.change_rows[change[runs]] * 3 + slot[runs] % 3) * words + word[runs] % words
        self.change_bits.reshape(-1)[at] = np.bitwise_or.reduceat(_BITS[self.shift & 63], runs)

    def alive(self, columns: Columns, start: int, stop: int) -> npt.NDArray[np.uint64]:
        """``[placement, word]``: the bitsets of the games from ``start`` (a
        multiple of 64) to ``stop`` of a store where each placement's stones all
        occur, from the store's inverted filter (:class:`Columns`)."""
        block = columns.table[:, start // 64 : (stop + 63) // 64]
        alive: npt.NDArray[np.uint64] = np.bitwise_and.reduce(block[self.required_columns],
                                                              axis=1)
        return alive

    def match(self, game: Game, *, pure: bool | None = None,
              compiled: bool | None = None) -> Hits:
        """The hits in ``game``: by the compiled kernel or by :func:`match_python`,
        its twin, as ``pure`` says (:func:`gohash._native.use_compiled`);
        ``compiled`` is its deprecated negation."""
        pure = _native.pure_from_compiled(compiled, pure, "Matcher.match")
        if not _native.use_compiled(pure, self._kernel):
            return match_python(self, game)
        assert self._kernel is not None
        placement, position, continuation, tenuki = self._kernel.match(
            game.boards, game.move_numbers, game.to_move, game.next_colour, game.next_point
        )
        return _ordered(placement, position, continuation, tenuki.astype(np.bool_))


    def scan(self, segment: Segment, first: int, alive: npt.NDArray[np.uint64], base: int,
             games: npt.NDArray[np.int64], summary: Any = None) -> tuple[Found, int]:
        """The hits in the games ``games`` (numbers in a store, whose game ``first``
        is ``segment``'s game 0), by the compiled kernel in one call over their
        main lines replayed once (:class:`~gohash.pattern.store.Flat`), following
        in each game only the placements whose bit (game - ``base``) is set in
        ``alive`` (:meth:`alive`); and how many of them had one.
        ``Found.game`` holds store numbers.  The same hits as :meth:`match` on
        each game's boards; with a ``summary`` (the kernel's ``Summary``), the
        matches summed up there and only the rows of the games that reach its
        page kept.  Raises :class:`~gohash.errors.StoredGameError`
        (``index`` a store number) for a segment whose values are off the board,
        and
        :class:`~gohash.errors.PatternError` if the kernel is not built."""
        if self._kernel is None:
            raise PatternError("the compiled pattern kernel gohash.pattern._match is not built")
        flat = segment.flat
        g, pl, at, number, to_move, colour, point, tenuki, candidates = self._kernel.scan(
            flat.node_offsets, flat.first_to_move, flat.next_colour, flat.next_point,
            flat.change_offsets, flat.changes, flat.removed,
            np.ascontiguousarray(alive), base, first, np.ascontiguousarray(games, dtype=np.int64),
            summary)
        return Found(g, pl, at, number, to_move, colour, point, tenuki.astype(np.bool_)), candidates



def _ordered(
    placement: npt.NDArray[np.int32], position: npt.NDArray[np.int32],
    continuation: npt.NDArray[np.int32], tenuki: npt.NDArray[np.bool_],
) -> Hits:
    order = np.lexsort((placement, position))
    return Hits(placement[order], position[order], continuation[order], tenuki[order])


def _fits(code: int, value: int) -> bool:
    if code in (EMPTY, BLACK, WHITE):
        return value == code
    if code == BLACK_OR_EMPTY:
        return value != WHITE
    if code == ANY:
        return True
    return value != BLACK  # WHITE_OR_EMPTY


def match_python(m: Matcher, game: Game) -> Hits:
    """The pure Python twin of the compiled kernel: the same hits, the same order."""
    boards = game.boards
    count = len(m.placements)
    keys = [0] * count
    hit = [False] * count
    pending: dict[int, None] = {}  # present but not hit yet, in order of arrival
    found: list[tuple[int, int, int, bool]] = []
    targets = [int(k) for k in m.targets]
    zobrist = m.zobrist.tolist()
    region_points, region_codes = m.placements.points.tolist(), m.placements.codes.tolist()
    for i in range(boards.shape[0]):
        if m.max_move >= 0 and game.move_numbers[i] > m.max_move:
            break
        board = boards[i].tolist()
        if i == 0:
            dirty = list(range(count))
            for pl in range(count):
                for point, code in zip(region_points[pl], region_codes[pl], strict=True):
                    if code in (EMPTY, BLACK, WHITE):
                        keys[pl] ^= zobrist[point][board[point]]
        else:
            previous = boards[i - 1].tolist()
            touched: dict[int, None] = {}
            for point in range(len(board)):
                old, new = previous[point], board[point]
                if old == new:
                    continue
                delta = zobrist[point][old] ^ zobrist[point][new]
                for w in range(m.watch_offsets[point], m.watch_offsets[point + 1]):
                    pl = int(m.watch[w])
                    if hit[pl]:
                        continue
                    if m.watch_fixed[w]:
                        keys[pl] ^= delta
                    touched[pl] = None
            dirty = list(touched)
        for pl in dirty:
            present = keys[pl] == targets[pl] and all(
                _fits(code, board[point])
                for point, code in zip(region_points[pl], region_codes[pl], strict=True)
            )
            if present:
                pending.setdefault(pl, None)
            else:
                pending.pop(pl, None)
        for pl in list(pending):
            start = _conditions(m, game, pl, i)
            if start >= 0:
                del pending[pl]
                hit[pl] = True
                found.append((pl, i, *_continuation(m, game, pl, start)))
    return _ordered(
        np.array([f[0] for f in found], dtype=np.int32),
        np.array([f[1] for f in found], dtype=np.int32),
        np.array([f[2] for f in found], dtype=np.int32),
        np.array([f[3] for f in found], dtype=np.bool_),
    )


def _conditions(m: Matcher, game: Game, pl: int, i: int) -> int:
    """Where the continuation's search starts if placement ``pl``, present at
    position ``i``, hits there (side to move, sequence); -1 if it does not."""
    if m.to_move:
        want = m.to_move if not m.swaps[pl] else 3 - m.to_move
        if game.to_move[i] != want:
            return -1
    k = i
    for step in range(m.seq_length[pl]):
        while True:
            if k >= len(game.next_colour) or game.next_colour[k] == 0:
                return -1
            point = int(game.next_point[k])
            k += 1
            if point >= 0 and m.masks[pl, point]:
                if (point != m.seq_points[pl, step]
                        or game.next_colour[k - 1] != m.seq_colours[pl, step]):
                    return -1
                break
    return k


def _continuation(m: Matcher, game: Game, pl: int, start: int) -> tuple[int, bool]:
    k = start
    while k < len(game.next_colour) and game.next_colour[k] != 0:
        point = int(game.next_point[k])
        if point >= 0 and m.masks[pl, point]:
            return k, k > start
        k += 1
    return -1, False
