"""The query view: the next moves the index finds, seen from the query.

Scope: the options of a continuations query (:data:`SETUP`, :data:`TO_MOVE`),
the occurrences grouped as the index finds them (:class:`ContinuationRow`),
:class:`QueryView`, which maps a frame's next moves back into the query's
orientation and colours, and :func:`merge_continuations`, which sums the rows
up into :class:`~gohash.index.results.Continuations` (docs/design.md,
"gohash.index.view").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import OptionError
from ..group.symmetry import Element, Point
from .results import Continuation, Continuations, Match, Record

__all__ = [
    "SETUP",
    "TO_MOVE",
    "ContinuationRow",
    "QueryView",
    "merge_continuations",
]


SETUP = ("exclude", "include", "only")
"""What continuations do with the occurrences that setup made or ended (a
handicap's stones, the empty board before them): leave them out and count
them (the default), count them with the others, or keep them alone; the
library's ``setup``, the CLI's ``--setup`` and the server's ``setup``."""

TO_MOVE = ("b", "w", "any")
"""The sides to move a search can keep occurrences for, in the query's colours:
Black, White, or either (``"any"``)."""



@dataclass(frozen=True)
class ContinuationRow:
    """Occurrences grouped as the index finds them: by next move as stored
    (``colour`` as recorded, 0 for none; ``point`` in the frame's orientation,
    -1 a pass), whether the occurrence's frame element exchanges colours
    (``swapped``), the side to move as recorded (1, 2) and the year of the
    game; with their games' results and dates."""

    colour: int
    point: int | None
    swapped: bool
    to_move: int
    year: int | None
    count: int
    black_wins: int
    white_wins: int
    first_date: str | None
    last_date: str | None


class QueryView:
    """How the occurrences of a query's frame look from the query.

    ``onto`` lists every element mapping the query onto its frame, lowest
    first (:func:`gohash.pipeline.frames.frame_and_elements`).  An occurrence matches
    the query through ``h = e^-1 . t . g`` for each symmetry ``t`` of the frame
    (module docstring); the views allowed are those of the ``h`` that keep the
    colours unless ``colour_swap``, and that give the side to move ``to_move``
    (``'b'``, ``'w'``; ``'any'`` or None: either).  Of the views allowed, those that keep
    the colours are taken if there are any: so a position that is its own
    colour-exchanged image matches with the same colours, unless only the
    exchanged view gives the side to move asked for.  An occurrence is known
    here by whether its frame element swaps (``swapped``) and its side to move
    as recorded (1, 2): the views depend on nothing else.
    """

    def __init__(
        self, onto: Sequence[Element], size: int, *, colour_swap: bool = True,
        to_move: str | None = None,
    ) -> None:
        if to_move not in (None, *TO_MOVE):
            raise OptionError(f"to_move {to_move!r} is not 'b', 'w', 'any' or None")
        self.element = onto[0]
        self.size = size
        self.colour_swap = colour_swap
        self.to_move = None if to_move == "any" else to_move
        self.frame_symmetries = [t.compose(self.element.inverse) for t in onto]
        self.symmetries = tuple(self.element.inverse.compose(t) for t in onto)
        self._moves: dict[tuple[int, int, bool, int], tuple[str, Point | None, tuple[Point, ...]]]
        self._moves = {}

    def views(self, swapped: bool, to_move: int) -> list[Element]:
        """The frame symmetries ``t`` of the views taken of an occurrence (none: it
        does not match)."""
        g = self.element
        allowed = []
        for t in self.frame_symmetries:
            exchanged = swapped != (t.swap != g.swap)
            seen = to_move if not exchanged else 3 - to_move
            if (self.colour_swap or not exchanged) and (
                self.to_move is None or "bw"[seen - 1] == self.to_move
            ):
                allowed.append(t)
        same = [t for t in allowed if swapped == (t.swap != g.swap)]
        return same or allowed

    def matches(self, swapped: bool, to_move: int) -> bool:
        return bool(self.views(swapped, to_move))

    def exchanged(self, swapped: bool, to_move: int) -> bool:
        """Whether an occurrence that matches does so with colours exchanged."""
        t = self.views(swapped, to_move)[0]
        return swapped != (t.swap != self.element.swap)

    def elements(self, stored: Element, to_move: int) -> list[Element]:
        """The elements mapping the query onto an occurrence (its frame element
        ``stored``) in the views taken."""
        return [stored.inverse.compose(t).compose(self.element)
                for t in self.views(stored.swap, to_move)]

    def condition(self) -> tuple[str, list[int]]:
        """An SQL condition on occurrences ``o`` that keeps those that match, with
        its parameters; ``"1"`` if all do."""
        kinds = [(int(sw), tm) for sw in (False, True) for tm in (1, 2) if self.matches(sw, tm)]
        if len(kinds) == 4:
            return "1", []
        if not kinds:
            return "0", []
        terms = " OR ".join("((o.element >= 8) = ? AND o.to_move = ?)" for _ in kinds)
        return f"({terms})", [value for kind in kinds for value in kind]

    def match(
        self, record: Record, move_number: int, seq: int, stored: Element, to_move: int,
        next_colour: int, next_point: int | None,
    ) -> Match:
        """The :class:`~gohash.index.results.Match` of an occurrence that matches: its frame element
        ``stored``, side to move and next move as the index stores them."""
        exchanged = self.exchanged(stored.swap, to_move)
        next_move = None
        if next_colour and next_point is not None:
            colour, point, _ = self.move(next_colour, next_point, stored.swap, to_move)
            next_move = (colour, point)
        return Match(
            record, move_number, min(self.elements(stored, to_move), key=lambda h: h.index),
            seq, "bw"[(to_move == 2) != exchanged], next_move,
        )

    def move(
        self, colour: int, point: int, swapped: bool, to_move: int
    ) -> tuple[str, Point | None, tuple[Point, ...]]:
        """A stored next move (colour as recorded, 1 or 2; point in the frame's
        orientation, -1 a pass) of a matching occurrence seen from the query:
        its colour, its representative point (None: pass) and the points
        equivalent to it, through ``g^-1 . t^-1`` for the views' ``t``."""
        where = (colour, point, swapped, to_move)
        if where not in self._moves:
            maps = [self.element.inverse.compose(t.inverse) for t in self.views(swapped, to_move)]
            recorded = "b" if colour == 1 else "w"
            # The frame holds the move with its colour exchanged if the occurrence's element swaps.
            stored = recorded if not swapped else ("w" if recorded == "b" else "b")
            colours = {m.map_colour(stored) for m in maps}
            assert len(colours) == 1, "the views agree on colour exchange"
            if point < 0:
                self._moves[where] = (colours.pop(), None, ())
            else:
                at = divmod(point, self.size)
                points = sorted({m.map_point(at, self.size) for m in maps})
                self._moves[where] = (colours.pop(), points[-1], tuple(points))
        return self._moves[where]


def merge_continuations(
    rows: Iterable[ContinuationRow], *, key: int, bits: int, view: QueryView,
    limit: int | None,
) -> Continuations:
    """The continuations of a query (of canonical ``key``, of ``bits`` bits) from
    the index's grouped occurrences (those that match), seen through ``view``."""
    result = Continuations(key, view.size, 0, 0, 0, 0, 0, 0, 0, [], {}, view.symmetries,
                           bits, view.to_move)
    moves: dict[tuple[str, Point | None], _Move] = {}
    for row in rows:
        exchanged = view.exchanged(row.swapped, row.to_move)
        blacks, whites = (row.white_wins, row.black_wins) if exchanged else (
            row.black_wins, row.white_wins)
        result.total += row.count
        result.black_wins += blacks
        result.white_wins += whites
        result.other += row.count - blacks - whites
        if exchanged:
            result.exchanged_colours += row.count
        else:
            result.same_colours += row.count
        if row.year is not None:
            result.years[row.year] = result.years.get(row.year, 0) + row.count
        if row.colour == 0 or row.point is None:
            result.ended += row.count
            continue
        colour, point, equivalent = view.move(row.colour, row.point, row.swapped, row.to_move)
        move = moves.setdefault((colour, point), _Move(colour, point, equivalent))
        move.add(row, blacks, whites, exchanged)
    ordered = sorted(moves.values(), key=lambda m: (
        -m.count, m.colour != "b", m.point is None, m.point or (0, 0)
    ))
    result.moves = [m.result(result.total, view.size) for m in ordered[:limit]]
    result.years = dict(sorted(result.years.items()))
    return result


class _Move:
    """A continuation being summed up."""

    def __init__(self, colour: str, point: Point | None, equivalent: tuple[Point, ...]) -> None:
        self.colour, self.point, self.equivalent = colour, point, equivalent
        self.count = self.black_wins = self.white_wins = self.same = self.exchanged = 0
        self.first: str | None = None
        self.last: str | None = None

    def add(self, row: ContinuationRow, blacks: int, whites: int, exchanged: bool) -> None:
        self.count += row.count
        self.black_wins += blacks
        self.white_wins += whites
        if exchanged:
            self.exchanged += row.count
        else:
            self.same += row.count
        if row.first_date is not None and (self.first is None or row.first_date < self.first):
            self.first = row.first_date
        if row.last_date is not None and (self.last is None or row.last_date > self.last):
            self.last = row.last_date

    def result(self, total: int, size: int) -> Continuation:
        return Continuation(
            self.point, self.colour, self.count, self.count / total, self.black_wins,
            self.white_wins, self.count - self.black_wins - self.white_wins, self.first,
            self.last, self.same, self.exchanged, self.equivalent, size,
        )
