"""The Go board: rules, undo and an incrementally maintained symmetric hash.

Scope: one position and the history that led to it.  :class:`Board` plays
stones with captures, enforces the simple-ko and suicide rules (each can be
relaxed for the superko checker and for rulesets that allow suicide), applies
SGF setup (AB/AW/AE) exactly as ``sgfmill.boards.Board.apply_setup`` does, and
undoes any number of steps.  Every change updates the position hash of the
board's :class:`~gohash.group.schemes.KeyScheme` in O(changed stones), so the hash,
the situation hash and the canonical key are always at hand.

The board converts to and from numpy arrays (0 empty, 1 black, 2 white),
``sgfmill.boards.Board`` and ASCII diagrams, and draws itself as SVG in
notebooks.  Superko, SGF reading and collection indexing live elsewhere.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._deprecated import renamed
from ..errors import (
    BoardSizeError,
    ColourError,
    HistoryLimitError,
    IllegalMoveError,
    KoError,
    OccupiedPointError,
    OffBoardError,
    PositionError,
    SuicideError,
    SuperkoError,
)
from ..group.coords import gtp
from ..group.symmetry import MAX_SIZE, MIN_SIZE, check_size, elements_of

if TYPE_CHECKING:
    import sgfmill.boards

    from ..group.schemes import KeyScheme
    from ..group.symmetry import Element

__all__ = [
    "MAX_HISTORY",
    "SUPERKO",
    "Board",
]

Point = tuple[int, int]

_EMPTY, _BLACK, _WHITE = 0, 1, 2
_CODES = {"b": _BLACK, "w": _WHITE}
_COLOURS = (None, "b", "w")
_COLOUR_NAMES = ("empty", "black", "white")

_SYMBOLS = (".", "X", "O")
_DIAGRAM_CODES = {".": _EMPTY, "+": _EMPTY, "X": _BLACK, "x": _BLACK, "#": _BLACK,
                  "O": _WHITE, "o": _WHITE}
# Identical in every board's SVG, so shared ids in one notebook page do no harm.
_STONE_GRADIENTS = (
    '<defs><radialGradient id="gohash-black" cx="35%" cy="35%" r="65%">'
    '<stop offset="0" stop-color="#666"/><stop offset="1" stop-color="#111"/></radialGradient>'
    '<radialGradient id="gohash-white" cx="35%" cy="35%" r="65%">'
    '<stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#ccc"/></radialGradient>'
    "</defs>"
)
_DIGITS = bytes.maketrans(b"\x00\x01\x02", b"012")

# History records are plain tuples (they are made on every move, so no class):
#   play  (index, removed_colour, removed_indices, prev_ko, prev_ko_colour, prev_hash, prev_to_move)
#   pass  (_PASS, prev_ko, prev_ko_colour, prev_to_move)
#   setup (_SETUP, changes array("H") of index << 2 | old_code, prev_ko, prev_ko_colour,
#          prev_hash, prev_setup_legal)
_PASS = -1
_SETUP = -2
_NO_POINT = -1

SUPERKO = ("positional", "situational")
"""The superko rules a :class:`Board` can keep: no play may repeat an earlier
position (its stones), or an earlier situation (its stones and side to move)."""

MAX_HISTORY = 200_000
"""The default bound of a board's undo history: no real game has a line of so many
moves and setup nodes, and 200,000 steps take some 40 MB."""


@cache
def _geometry(size: int) -> tuple[tuple[Point, ...], dict[Point, int], tuple[tuple[int, ...], ...]]:
    """Points by index, index by point, and neighbour indices by index, for one size."""
    points = tuple((row, col) for row in range(size) for col in range(size))
    index = {point: i for i, point in enumerate(points)}
    neighbours = []
    for row, col in points:
        adjacent = ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        neighbours.append(tuple(index[p] for p in adjacent if p in index))
    return points, index, tuple(neighbours)


def _dead_group(
    cells: bytearray, neighbours: tuple[tuple[int, ...], ...], start: int
) -> list[int] | None:
    """The stones of the group at ``start`` if it has no liberty, else None.

    Stops at the first liberty: most groups next to a move have one nearby.
    """
    colour = cells[start]
    stack = [start]
    group = {start}
    while stack:
        for n in neighbours[stack.pop()]:
            c = cells[n]
            if c == _EMPTY:
                return None
            if c == colour and n not in group:
                group.add(n)
                stack.append(n)
    return list(group)


def _colour_error(colour: object, *, move_number: int | None) -> ColourError:
    return ColourError(f"colour {colour!r} is not 'b' or 'w'", move_number=move_number)


def _resolve_scheme(scheme: str | KeyScheme | None, size: int) -> KeyScheme:
    from ..group.schemes import DEFAULT_SCHEME
    from ..group.schemes import scheme as scheme_named

    if scheme is None:
        scheme = DEFAULT_SCHEME
    if isinstance(scheme, str):
        return scheme_named(scheme, size)
    if scheme.size != size:
        raise BoardSizeError(
            f"key scheme {scheme.name!r} is for size {scheme.size}, the board is {size}x{size}"
        )
    return scheme


class Board:
    """A Go position with its history, its rules and its hash.

    ``Board(19)`` is an empty 19x19 board hashed with the default key scheme,
    the one ``gohash canon`` and a new index use
    (:data:`~gohash.group.schemes.DEFAULT_SCHEME`, regular128);
    ``Board(19, "huima64")`` hashes with Huima's 64-bit XOR scheme, and any
    :class:`~gohash.group.schemes.KeyScheme` of the board's size may be given,
    one of a user's own key tables too (:func:`~gohash.group.schemes.load_keys`).
    ``suicide_allowed=True`` makes a suicide legal: the whole suicided group is
    removed.  ``simple_ko=False`` drops the simple-ko check, for a superko
    checker that judges repetitions itself.  ``ko_point`` is kept either way.
    ``superko`` (:data:`SUPERKO`: ``"positional"`` or ``"situational"``)
    makes a play that repeats an earlier position of the board's history (or
    situation: stones and side to move) illegal, compared stone by stone, the
    hash only finding the candidates; positions reached by a pass or setup are
    remembered, never refused.  ``max_history`` bounds the undo history (the
    memory a board takes): a play, pass or setup beyond it raises
    :class:`HistoryLimitError` and leaves the board unchanged; None for no bound.

    >>> from gohash import Board, element
    >>> board = Board(9)
    >>> board.play((2, 2), "b"), board.play((6, 6), "w")   # (row, col), row 0 the bottom
    ([], [])
    >>> print(board)
    9 . . . . . . . . .
    8 . . . . . . . . .
    7 . . . . . . O . .
    6 . . . . . . . . .
    5 . . . . . . . . .
    4 . . . . . . . . .
    3 . . X . . . . . .
    2 . . . . . . . . .
    1 . . . . . . . . .
      A B C D E F G H J
    >>> board.to_move, board.move_number
    ('b', 2)
    >>> turned = Board.from_array(element("rot90_swap").image_array(board.to_array()))
    >>> turned.canonical()[0] == board.canonical()[0]   # the same key up to symmetry
    True
    >>> board.play((6, 6), "b")
    Traceback (most recent call last):
    ...
    gohash.errors.OccupiedPointError: move 3: black at 'G7' is occupied
    """

    def __init__(
        self,
        size: int,
        scheme: str | KeyScheme | None = None,
        *,
        suicide_allowed: bool = False,
        simple_ko: bool = True,
        superko: str | None = None,
        max_history: int | None = MAX_HISTORY,
    ) -> None:
        if superko is not None and superko not in SUPERKO:
            raise ValueError(f"superko {superko!r} is not one of {', '.join(SUPERKO)} or None")
        self._size = check_size(size)
        self._max_history = sys.maxsize if max_history is None else max_history
        self._scheme = _resolve_scheme(scheme, self._size)
        self.suicide_allowed = suicide_allowed
        self.simple_ko = simple_ko
        self._points, self._index, self._neighbours = _geometry(self._size)
        self._xor = self._scheme.combiner == "xor"
        self._keys = ((), self._scheme.black_keys, self._scheme.white_keys)
        self._cells = bytearray(self._size * self._size)
        self._hash = 0
        self._ko = _NO_POINT
        self._ko_colour = _EMPTY  # the colour that may not retake at _ko
        self._to_move = _BLACK
        self._move_number = 0
        self._last_setup_legal = True
        self._history: list[tuple[Any, ...]] = []
        self._superko = superko
        # Every position (or situation) of the history, exactly, by its hash;
        # and, step by step, the one each step added (undo takes it back).
        self._seen: dict[int, list[bytes]] = {}
        self._seen_log: list[tuple[int, bytes]] = []
        if superko is not None:
            self._remember()

    # -- state ------------------------------------------------------------------------

    @property
    def size(self) -> int:
        return self._size

    @property
    def scheme(self) -> KeyScheme:
        return self._scheme

    @property
    def move_number(self) -> int:
        """Plays and passes so far (setup steps do not count)."""
        return self._move_number

    @property
    def to_move(self) -> str:
        """The player to move next: ``"b"`` at first, then the opponent of the last mover."""
        return "b" if self._to_move == _BLACK else "w"

    @property
    def ko_point(self) -> Point | None:
        """The point where the player to move may not retake a simple ko, if any."""
        return None if self._ko == _NO_POINT else self._points[self._ko]

    @property
    def last_setup_legal(self) -> bool:
        """False if the last setup step left groups without liberties (they were removed)."""
        return self._last_setup_legal

    @property
    def hash(self) -> int:
        """The position hash (stones only) under the board's key scheme."""
        return self._hash

    @property
    def situation_hash(self) -> int:
        """The position hash combined with the key of the side to move."""
        return self._scheme.combine(self._hash, self._scheme.side_key(self.to_move))

    def canonical(self, symmetry: str = "full", *,
                  group: str | None = None) -> tuple[int, tuple[Element, ...]]:
        """The canonical key of the position hash over ``symmetry`` ("full" or "d4";
        ``group`` its deprecated name), and every element whose ``T_g`` maps the
        hash onto it.

        Both come from the hash alone: the elements include every symmetry of the
        position composed with the first, but also any element whose ``T_g``
        happens to fix the hash (erratum E3: four black stones on the side star
        points hash to 0 under huima64).  :meth:`symmetries` is exact.
        """
        return self._scheme.canonical(
            self._hash, renamed(symmetry, group, "group", "symmetry", "Board.canonical"))

    def symmetries(self, symmetry: str = "full", *,
                   group: str | None = None) -> tuple[Element, ...]:
        """The elements of ``symmetry`` ("full" or "d4"; ``group`` its deprecated
        name) that map the stones onto themselves, identity first: compared point
        by point, not by hash."""
        board = self.to_array()
        elements = elements_of(renamed(symmetry, group, "group", "symmetry", "Board.symmetries"))
        return tuple(g for g in elements if np.array_equal(g.image_array(board), board))

    def get(self, point: Point) -> str | None:
        """The colour at ``point`` (``"b"``, ``"w"``) or None if it is empty."""
        return _COLOURS[self._cells[self._point_index(point, None)]]

    @property
    def superko(self) -> str | None:
        """The superko rule the board keeps (:data:`SUPERKO`), or None."""
        return self._superko

    def is_legal(self, point: Point, colour: str) -> bool:
        """Whether ``colour`` (``"b"``, ``"w"``) may play at ``point`` now: the
        point is on the board and empty, and the play is no suicide (unless
        ``suicide_allowed``), no retaking of a simple ko (unless ``simple_ko``
        is off) and no repetition under the board's ``superko``.  The board is
        left as it was.  A colour other than ``"b"`` or ``"w"`` raises
        :class:`ColourError`."""
        try:
            self.play(point, colour)
        except IllegalMoveError:
            return False
        self.undo()
        return True

    def legal_moves(self, colour: str | None = None) -> list[Point]:
        """Every point where ``colour`` (default: the side to move) may play now
        (:meth:`is_legal`), in index order (row 0 first); a pass is always legal
        and not listed."""
        who = self.to_move if colour is None else colour
        return [self._points[i] for i, cell in enumerate(self._cells)
                if cell == _EMPTY and self.is_legal(self._points[i], who)]

    def _situation(self) -> tuple[int, bytes]:
        """The hash and the exact stones (and side to move, for situational
        superko) that the superko rule compares."""
        if self._superko == "situational":
            key = self._scheme.combine(self._hash, self._scheme.side_key(self.to_move))
            return key, bytes(self._cells) + bytes((self._to_move,))
        return self._hash, bytes(self._cells)

    def _remember(self) -> None:
        key, exact = self._situation()
        self._seen.setdefault(key, []).append(exact)
        self._seen_log.append((key, exact))

    def _forget(self) -> None:
        key, exact = self._seen_log.pop()
        same = self._seen[key]
        same.remove(exact)
        if not same:
            del self._seen[key]

    # -- moves --------------------------------------------------------------------------

    def play(self, point: Point, colour: str, *, force_ko: bool = False) -> list[Point]:
        """Play a stone; return the removed stones (captures, or the suicided group).

        Raises a subclass of :class:`IllegalMoveError` and leaves the board
        unchanged if the move is illegal.  ``force_ko`` plays a retake the
        simple-ko rule forbids (a move marked ``KO[]`` in SGF).
        """
        try:
            me = _CODES[colour]
        except (KeyError, TypeError):
            raise _colour_error(colour, move_number=self._move_number + 1) from None
        if len(self._history) >= self._max_history:
            raise self._history_full()
        try:
            index = self._index[point]
        except (KeyError, TypeError):
            raise self._illegal(OffBoardError, point, colour) from None
        cells = self._cells
        if cells[index] != _EMPTY:
            raise self._illegal(OccupiedPointError, point, colour)
        if index == self._ko and me == self._ko_colour and self.simple_ko and not force_ko:
            raise self._illegal(KoError, point, colour)
        neighbours = self._neighbours
        adjacent = neighbours[index]
        opponent = 3 - me
        cells[index] = me
        captured: list[int] = []
        for n in adjacent:
            if cells[n] == opponent:
                # Most groups touching a move have a liberty right beside it: look there
                # before paying for a group search.
                for m in neighbours[n]:
                    if cells[m] == _EMPTY:
                        break
                else:
                    group = _dead_group(cells, neighbours, n)
                    if group is not None:
                        for stone in group:
                            cells[stone] = _EMPTY
                        captured += group
        removed = captured
        removed_colour = opponent
        if not captured:
            for n in adjacent:
                if cells[n] == _EMPTY:
                    break
            else:
                own = _dead_group(cells, neighbours, index)
                if own is not None:
                    if not self.suicide_allowed:
                        cells[index] = _EMPTY
                        raise self._illegal(SuicideError, point, colour)
                    for stone in own:
                        cells[stone] = _EMPTY
                    removed = own
                    removed_colour = me

        h = self._hash
        keys = self._keys
        if self._xor:
            h ^= keys[me][index]
            removed_keys = keys[removed_colour]
            for stone in removed:
                h ^= removed_keys[stone]
        else:
            combine, remove = self._scheme.combine, self._scheme.remove
            h = combine(h, keys[me][index])
            removed_keys = keys[removed_colour]
            for stone in removed:
                h = remove(h, removed_keys[stone])

        if self._superko is not None:
            after = h if self._superko == "positional" else self._scheme.combine(
                h, self._scheme.side_key("b" if opponent == _BLACK else "w"))
            exact = bytes(cells) if self._superko == "positional" else (
                bytes(cells) + bytes((opponent,)))
            if exact in self._seen.get(after, ()):
                for stone in removed:
                    cells[stone] = removed_colour
                cells[index] = _EMPTY
                raise self._illegal(SuperkoError, point, colour)
        self._history.append(
            (index, removed_colour, removed, self._ko, self._ko_colour, self._hash, self._to_move)
        )
        self._hash = h
        self._to_move = opponent
        self._move_number += 1
        # A simple ko: a lone stone with no liberty of its own took exactly one stone.
        if len(captured) == 1 and all(
            cells[n] == opponent or n == captured[0] for n in adjacent
        ):
            self._ko = captured[0]
            self._ko_colour = opponent
        else:
            self._ko = _NO_POINT
        if self._superko is not None:
            self._remember()
        points = self._points
        return [points[stone] for stone in removed]

    def pass_(self, colour: str) -> None:
        """Pass: the move number advances, the opponent moves next, a ko lapses."""
        try:
            me = _CODES[colour]
        except (KeyError, TypeError):
            raise _colour_error(colour, move_number=self._move_number + 1) from None
        if len(self._history) >= self._max_history:
            raise self._history_full()
        self._history.append((_PASS, self._ko, self._ko_colour, self._to_move))
        self._ko = _NO_POINT
        self._to_move = 3 - me
        self._move_number += 1
        if self._superko is not None:
            self._remember()

    def setup(
        self,
        black: Iterable[Point] = (),
        white: Iterable[Point] = (),
        empty: Iterable[Point] = (),
    ) -> list[Point]:
        """Add black and white stones and clear points, as SGF's AB, AW and AE.

        Applied in that order (a point in several lists ends as the last says),
        then every group left without liberties is removed, as
        ``sgfmill.boards.Board.apply_setup`` does; those stones are returned and
        :attr:`last_setup_legal` says whether there were none.  The side to
        move and the move number do not change; a ko lapses.  One undo step.
        """
        if len(self._history) >= self._max_history:
            raise self._history_full()
        steps = ((black, "b", _BLACK), (white, "w", _WHITE), (empty, None, _EMPTY))
        assignments = [
            (self._point_index(point, colour, setup=True), code)
            for points, colour, code in steps
            for point in points
        ]
        cells = self._cells
        keys = self._keys
        scheme = self._scheme
        h = self._hash
        changes = array("H")  # index << 2 | old code: 2 bytes a change, not a tuple's 64
        for index, code in assignments:
            old = cells[index]
            if old != code:
                changes.append(index << 2 | old)
                if old != _EMPTY:
                    h = scheme.remove(h, keys[old][index])
                if code != _EMPTY:
                    h = scheme.combine(h, keys[code][index])
                cells[index] = code
        dead = self._dead_groups()
        for index in dead:
            old = cells[index]
            changes.append(index << 2 | old)
            h = scheme.remove(h, keys[old][index])
            cells[index] = _EMPTY
        self._history.append(
            (_SETUP, changes, self._ko, self._ko_colour, self._hash, self._last_setup_legal)
        )
        self._hash = h
        self._ko = _NO_POINT
        self._last_setup_legal = not dead
        if self._superko is not None:
            self._remember()
        return [self._points[index] for index in sorted(dead)]

    def undo(self) -> None:
        """Take back the last play, pass or setup step.  IndexError if there is none."""
        if not self._history:
            raise IndexError("nothing to undo: the board is at its initial position")
        record = self._history.pop()
        if self._superko is not None:
            self._forget()
        kind = record[0]
        if kind == _PASS:
            _, self._ko, self._ko_colour, self._to_move = record
            self._move_number -= 1
        elif kind == _SETUP:
            _, changes, self._ko, self._ko_colour, self._hash, self._last_setup_legal = record
            cells = self._cells
            for change in reversed(changes):
                cells[change >> 2] = change & 3
        else:
            index, removed_colour, removed, *restored = record
            self._ko, self._ko_colour, self._hash, self._to_move = restored
            cells = self._cells
            for stone in removed:
                cells[stone] = removed_colour
            cells[index] = _EMPTY
            self._move_number -= 1

    def copy(self) -> Board:
        """An independent copy, history included (so it can undo too)."""
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._cells = self._cells[:]
        new._history = self._history[:]
        new._seen = {key: same[:] for key, same in self._seen.items()}
        new._seen_log = self._seen_log[:]
        return new

    # -- exact keys and conversions ----------------------------------------------------

    def stones(self) -> bytes:
        """The points in index order (``row * size + col``), one byte each: 0 empty,
        1 black, 2 white.  A cheap exact copy (about 0.1 us on 19x19) to keep per position."""
        return bytes(self._cells)

    def position_key(self) -> bytes:
        """The exact position, packed: equal keys iff same size and same stones.

        Layout: one byte holding the size, then the points in index order
        (``row * size + col``) as base-4 digits 0/1/2, most significant first,
        in ``ceil(size*size / 4)`` big-endian bytes (91 bytes for 19x19).
        """
        value = int(bytes(self._cells).translate(_DIGITS), 4)
        return bytes((self._size,)) + value.to_bytes(_packed_length(self._size), "big")

    @classmethod
    def from_position_key(cls, key: bytes, scheme: str | KeyScheme | None = None) -> Board:
        """The board (no history, black to move) whose :meth:`position_key` is ``key``."""
        if not key or len(key) != 1 + _packed_length(key[0]):
            raise PositionError(f"position key {key!r} has the wrong length for its size byte")
        size = key[0]
        value = int.from_bytes(key[1:], "big")
        cells = [(value >> (2 * shift)) & 3 for shift in range(size * size - 1, -1, -1)]
        return cls._from_cells(size, cells, scheme, what=f"position key {key!r}")

    def to_array(self) -> npt.NDArray[np.int8]:
        """The stones as an (N, N) int8 array ``a[row, col]``: 0 empty, 1 black, 2 white."""
        array: npt.NDArray[np.int8] = np.frombuffer(self._cells, dtype=np.int8).copy()
        return array.reshape(self._size, self._size)

    @classmethod
    def from_array(
        cls,
        array: npt.ArrayLike,
        scheme: str | KeyScheme | None = None,
        *,
        to_move: str = "b",
        suicide_allowed: bool = False,
        simple_ko: bool = True,
    ) -> Board:
        """A board holding the stones of an (N, N) integer array (0 empty, 1 black, 2 white).

        Raises :class:`PositionError` for a wrong shape or value, or for a
        group without liberties (the array is not a legal position).
        """
        arr = np.asarray(array)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
            raise PositionError(f"position array has shape {arr.shape!r}; expected (N, N)")
        if not np.issubdtype(arr.dtype, np.integer):
            raise PositionError(f"position array has dtype {arr.dtype!r}; expected integers")
        cells = arr.ravel().tolist()
        return cls._from_cells(
            arr.shape[0], cells, scheme, what="position array", to_move=to_move,
            suicide_allowed=suicide_allowed, simple_ko=simple_ko,
        )

    def to_sgfmill(self) -> sgfmill.boards.Board:
        """The position as an ``sgfmill.boards.Board`` (which needs size >= 2)."""
        from sgfmill.boards import Board as SgfmillBoard

        if self._size < 2:
            raise BoardSizeError(f"sgfmill boards start at size 2; this board is {self._size}")
        board = SgfmillBoard(self._size)
        stones: tuple[list[Point], list[Point], list[Point]] = ([], [], [])
        for point, code in zip(self._points, self._cells, strict=True):
            stones[code].append(point)
        board.apply_setup(stones[_BLACK], stones[_WHITE], [])
        return board

    @classmethod
    def from_sgfmill(
        cls, board: sgfmill.boards.Board, scheme: str | KeyScheme | None = None
    ) -> Board:
        """A board (no history, black to move) holding an sgfmill board's stones."""
        size = board.side
        cells = [
            _CODES.get(board.get(row, col), _EMPTY) for row in range(size) for col in range(size)
        ]
        return cls._from_cells(size, cells, scheme, what="sgfmill board")

    @classmethod
    def _from_cells(
        cls,
        size: int,
        cells: list[int],
        scheme: str | KeyScheme | None,
        *,
        what: str,
        to_move: str = "b",
        suicide_allowed: bool = False,
        simple_ko: bool = True,
    ) -> Board:
        board = cls(size, scheme, suicide_allowed=suicide_allowed, simple_ko=simple_ko)
        if to_move not in _CODES:
            raise _colour_error(to_move, move_number=None)
        bad = [value for value in cells if value not in (_EMPTY, _BLACK, _WHITE)]
        if bad:
            raise PositionError(
                f"{what} holds {bad[0]!r}; expected 0 (empty), 1 (black) or 2 (white)"
            )
        board._cells = bytearray(cells)
        dead = board._dead_groups()
        if dead:
            point = board._points[min(dead)]
            raise PositionError(
                f"{what} is not a legal position: the group at "
                f"{gtp(point, size)!r} has no liberties"
            )
        keys = board._keys
        h = 0
        for index, code in enumerate(cells):
            if code != _EMPTY:
                h = board._scheme.combine(h, keys[code][index])
        board._hash = h
        board._to_move = _CODES[to_move]
        return board

    # -- display ------------------------------------------------------------------------

    def __str__(self) -> str:
        """An ASCII diagram: ``X`` black, ``O`` white, ``.`` empty, GTP coordinates.

        Row numbers on the left (top row first), column letters (no I) below.
        :meth:`from_diagram` reads it back.
        """
        size = self._size
        width = len(str(size))
        cells = self._cells
        lines = [
            f"{row + 1:>{width}} "
            + " ".join(_SYMBOLS[cells[row * size + col]] for col in range(size))
            for row in range(size - 1, -1, -1)
        ]
        lines.append(" " * width + " " + " ".join(_column_labels(size)))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"<Board {self._size}x{self._size} {self._scheme.name} move {self._move_number}"
            f" to_move={self.to_move!r} hash={self._scheme.hex(self._hash)}>"
        )

    @classmethod
    def from_diagram(
        cls,
        text: str,
        scheme: str | KeyScheme | None = None,
        *,
        to_move: str = "b",
        suicide_allowed: bool = False,
        simple_ko: bool = True,
    ) -> Board:
        """A board from an ASCII diagram as ``str(board)`` prints it.

        The coordinate labels are optional, spaces between points too; ``X``,
        ``x`` or ``#`` is black, ``O`` or ``o`` white, ``.`` or ``+`` empty.
        The number of rows gives the size.
        """
        rows = _parse_diagram(text)
        size = len(rows)
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise PositionError(f"diagram has {size} rows; expected {MIN_SIZE}..{MAX_SIZE}")
        cells = [code for row in reversed(rows) for code in row]
        return cls._from_cells(
            size, cells, scheme, what="diagram", to_move=to_move,
            suicide_allowed=suicide_allowed, simple_ko=simple_ko,
        )

    def _repr_svg_(self) -> str:
        """A wooden board with stones and coordinates; the last play is marked."""
        size = self._size
        cell, margin = 24, 30
        extent = 2 * margin + (size - 1) * cell

        def xy(row: int, col: int) -> tuple[int, int]:
            return margin + col * cell, margin + (size - 1 - row) * cell

        far = margin + (size - 1) * cell
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{extent}" height="{extent}" '
            f'viewBox="0 0 {extent} {extent}" font-family="sans-serif" font-size="11">',
            f'<rect width="{extent}" height="{extent}" fill="#dcb35c"/>',
            _STONE_GRADIENTS,
        ]
        for i in range(size):
            at = margin + i * cell
            parts.append(f'<line x1="{margin}" y1="{at}" x2="{far}" y2="{at}" stroke="#000"/>')
            parts.append(f'<line x1="{at}" y1="{margin}" x2="{at}" y2="{far}" stroke="#000"/>')
        for i, label in enumerate(_column_labels(size)):
            x, y = xy(i, i)
            for ty in (margin - 14, far + 20):
                parts.append(f'<text x="{x}" y="{ty}" text-anchor="middle">{label}</text>')
            for tx in (margin - 16, far + 16):
                parts.append(f'<text x="{tx}" y="{y + 4}" text-anchor="middle">{i + 1}</text>')
        for row, col in _star_points(size):
            x, y = xy(row, col)
            parts.append(f'<circle cx="{x}" cy="{y}" r="3" fill="#000"/>')
        for (row, col), code in zip(self._points, self._cells, strict=True):
            if code != _EMPTY:
                x, y = xy(row, col)
                fill = "url(#gohash-black)" if code == _BLACK else "url(#gohash-white)"
                parts.append(
                    f'<circle cx="{x}" cy="{y}" r="{cell // 2 - 1}" fill="{fill}" stroke="#000"/>'
                )
        last = self._last_play()
        if last is not None:
            x, y = xy(*self._points[last])
            ring = "#f8f8f8" if self._cells[last] == _BLACK else "#111"
            parts.append(
                f'<circle cx="{x}" cy="{y}" r="{cell // 5}" fill="none" stroke="{ring}" '
                'stroke-width="2"/>'
            )
        parts.append("</svg>")
        return "\n".join(parts)

    def _last_play(self) -> int | None:
        """Index of the stone played by the last step, if that step was a play still on board."""
        if self._history:
            index = self._history[-1][0]
            if isinstance(index, int) and index >= 0 and self._cells[index] != _EMPTY:
                return index
        return None

    # -- helpers ------------------------------------------------------------------------

    def _point_index(self, point: object, colour: str | None, *, setup: bool = False) -> int:
        try:
            return self._index[point]  # type: ignore[index]
        except (KeyError, TypeError):
            raise self._illegal(OffBoardError, point, colour, setup=setup) from None

    def _illegal(
        self,
        kind: type[IllegalMoveError],
        point: object,
        colour: str | None,
        *,
        setup: bool = False,
    ) -> IllegalMoveError:
        if setup:
            who = f"setup of {_COLOUR_NAMES[_CODES.get(colour or '', _EMPTY)]} stone at "
        else:
            who = f"{_COLOUR_NAMES[_CODES[colour]]} at " if colour else ""
        # A point off the board has no GTP name: the caller's input is quoted.
        vertex = point if kind is OffBoardError else gtp(point, self._size)  # type: ignore[arg-type]
        return kind.at(
            f"{who}{vertex!r}",
            size=self._size,
            point=point,
            colour=colour,
            move_number=self._move_number + (not setup),
        )

    def _history_full(self) -> HistoryLimitError:
        return HistoryLimitError(
            f"the board's undo history is at its limit of {self._max_history:,} steps "
            "(plays, passes and setups not undone)",
            move_number=self._move_number,
        )

    def _dead_groups(self) -> list[int]:
        """Every stone of every group without liberties, found before any is removed."""
        cells = self._cells
        neighbours = self._neighbours
        seen: set[int] = set()
        dead: list[int] = []
        for start, colour in enumerate(cells):
            if colour == _EMPTY or start in seen:
                continue
            group = [start]
            seen.add(start)
            alive = False
            for stone in group:  # grows while iterating: a breadth-first flood fill
                for n in neighbours[stone]:
                    c = cells[n]
                    if c == _EMPTY:
                        alive = True
                    elif c == colour and n not in seen:
                        seen.add(n)
                        group.append(n)
            if not alive:
                dead += group
        return dead



def _packed_length(size: int) -> int:
    return (size * size + 3) // 4


def _column_labels(size: int) -> list[str]:
    return [gtp((0, col), size)[:-1] for col in range(size)]


def _star_points(size: int) -> list[Point]:
    """The hoshi drawn on the board: corners and centre, and the sides from 15x15 on."""
    if size < 7:
        return [(size // 2, size // 2)] if size % 2 else []
    edge = 3 if size >= 13 else 2
    lines = [edge, size - 1 - edge]
    centre = size // 2
    points = [(row, col) for row in lines for col in lines]
    if size % 2:
        points.append((centre, centre))
        if size >= 15:
            points += [(centre, edge), (centre, size - 1 - edge), (edge, centre),
                       (size - 1 - edge, centre)]
    return points


def _parse_diagram(text: str) -> list[list[int]]:
    """Rows of point codes, top row first; labels stripped and checked."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    rows: list[list[int]] = []
    numbers: list[int] = []
    for number, tokens in enumerate(lines, start=1):
        if tokens == _column_labels(MAX_SIZE)[: len(tokens)]:
            continue
        if tokens[0].isdigit():
            numbers.append(int(tokens.pop(0)))
        if tokens and tokens[-1].isdigit():
            tokens.pop()
        symbols = "".join(tokens)
        try:
            rows.append([_DIAGRAM_CODES[symbol] for symbol in symbols])
        except KeyError as error:
            raise PositionError(
                f"diagram line {number} {' '.join(lines[number - 1])!r} holds {error.args[0]!r}; "
                "expected X/x/# (black), O/o (white) or ./+ (empty)"
            ) from None
    size = len(rows)
    for row in rows:
        if len(row) != size:
            raise PositionError(
                f"diagram has {size} rows but a row of {len(row)} points; expected a square"
            )
    if numbers and numbers != list(range(size, 0, -1)):
        raise PositionError(f"diagram row numbers {numbers!r} are not {size}..1 top to bottom")
    return rows
