"""Ko and superko rules on a walked game: which board plays repeat an earlier position.

Scope: the ko rules of docs/design.md, section "Ko and superko", and the
rulesets that choose them, a visitor for :func:`gohash.sgf.walk.walk_paths` that finds
every violation in a game (:class:`SuperkoVisitor`), and the violations it
reports (:class:`Violation`).  Checking paths, on the compiled core's columns
where it can, is :mod:`gohash.tools.superko`'s.

Every game line keeps its history: all positions since the start, setup
included, each with its exact position (:meth:`~gohash.go.board.Board.position_key`)
in a multimap from position hash to every exact position with that hash.  The
hash only narrows the search; every verdict compares exact positions, so neither
a hash collision nor two positions sharing a hash (Huima's zero sums,
docs/design.md, section "E3") can make or hide a verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from ..errors import GohashError
from ..group.coords import GTP_COLUMNS, gtp, sgf_letters
from ..sgf.walk import BaseVisitor, GameInfo, PositionEvent
from .board import Board
from .rulesets import DEFAULT_RULESET, RULESETS, Ruleset

__all__ = ["KINDS", "SuperkoVisitor", "Violation", "marked_diagram"]

Point = tuple[int, int]

KINDS = {
    "positional": "positional superko",
    "situational": "situational superko",
    "natural": "natural situational superko",
    "simple": "simple ko",
    "no result": "no result",
    "suicide": "suicide",
}
"""Violation kinds: the rule names map to the kind of a repetition under them."""


@dataclass(frozen=True)
class Violation:
    """One move of a record that breaks the ko or suicide rule (or voids the game).

    ``repeats`` is the move number of the latest earlier identical position
    (under the situational rules: situation) and ``cycle`` the number of moves
    since; both are None for suicide.  ``diagram`` shows the board after the
    move, the move's point in brackets.
    """

    file: str
    game: int
    variation: tuple[int, ...]
    move_number: int
    colour: str
    point: Point
    size: int
    kind: str
    repeats: int | None
    cycle: int | None
    diagram: str

    @property
    def move(self) -> str:
        """The move in SGF letters."""
        return sgf_letters(self.point, self.size)

    @property
    def gtp(self) -> str:
        return gtp(self.point, self.size)

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """The JSON Lines object: exactly the documented fields."""
        return {
            "file": self.file,
            "game": self.game,
            "variation": list(self.variation),
            "move_number": self.move_number,
            "colour": self.colour,
            "move": self.move,
            "gtp": self.gtp,
            "kind": self.kind,
            "repeats": self.repeats,
            "cycle": self.cycle,
        }

    def headline(self) -> str:
        """One line: where, who, what, and which earlier position it repeats."""
        where = f"{self.file}, game {self.game}"
        if self.variation:
            where += f", variation {'.'.join(map(str, self.variation))}"
        who = "black" if self.colour == "b" else "white"
        text = f"{where}, move {self.move_number}: {who} {self.gtp}: {self.kind}"
        if self.repeats is not None:
            text += f", recreates the position after move {self.repeats} (cycle {self.cycle})"
        return text


class _Entry(NamedTuple):
    """One position of a game line's history."""

    move_number: int  # as the record counts moves
    position_hash: int
    key: bytes  # the exact position
    to_move: str
    by_play: bool
    ko_point: Point | None
    first: bool  # before the line's first move: its player to move is the first mover


class _History:
    """The positions of one game line: a stack, and a multimap from position hash
    to every exact position with that hash, each to its entries in line order.

    The hash only narrows the search; the exact key (one
    :meth:`~gohash.go.board.Board.position_key` per position, about 2 us) decides,
    so neither a collision nor two positions with one hash can change a verdict.
    Entries are pushed and popped in stack order, so every index list stays
    sorted and popping removes the last element of one.
    """

    def __init__(self) -> None:
        self.entries: list[_Entry] = []
        self.positions: dict[int, dict[bytes, list[int]]] = {}

    def push(self, entry: _Entry) -> None:
        index = len(self.entries)
        self.entries.append(entry)
        self.positions.setdefault(entry.position_hash, {}).setdefault(entry.key, []).append(index)

    def truncate(self, depth: int) -> None:
        """Keep the first ``depth`` entries: the line's positions before an event."""
        entries = self.entries
        while len(entries) > depth:
            entry = entries.pop()
            same_hash = self.positions[entry.position_hash]
            indices = same_hash[entry.key]
            indices.pop()
            if not indices:
                del same_hash[entry.key]
                if not same_hash:
                    del self.positions[entry.position_hash]

    def latest_match(
        self, position_hash: int, key: bytes, to_move: str | None, by_play: bool
    ) -> _Entry | None:
        """The latest entry whose position is exactly ``key`` (and whose player to
        move is ``to_move``, if given; created by a board play, if ``by_play``)."""
        indices = self.positions.get(position_hash, {}).get(key, ())
        for index in reversed(indices):
            entry = self.entries[index]
            if (to_move is None or entry.to_move == to_move) and (
                entry.by_play or not by_play
            ):
                return entry
        return None


def marked_diagram(board: Board, point: Point | None) -> str:
    """The board as ``str(board)`` draws it, with ``point`` in brackets: ``.(X)O``."""
    size = board.size
    width = len(str(size))
    symbols = {None: ".", "b": "X", "w": "O"}
    lines = []
    for row in range(size - 1, -1, -1):
        line = f"{row + 1:>{width}} "
        for col in range(size):
            symbol = symbols[board.get((row, col))]
            if (row, col) == point:
                line = line[:-1] + f"({symbol})"
            else:
                line += symbol + " "
        lines.append(line.rstrip())
    labels = " ".join(GTP_COLUMNS[col] if col < len(GTP_COLUMNS) else "AA" for col in range(size))
    lines.append(" " * width + " " + labels)
    return "\n".join(lines)


class SuperkoVisitor(BaseVisitor):
    """Finds the ko and suicide violations of every game walked.

    Walk with ``board_options=SuperkoVisitor.BOARD_OPTIONS`` (plus a ``scheme``
    if wanted), as :func:`gohash.tools.superko.check` does.  ``violations`` and
    ``errors`` collect, in the order found; an error ends its game, as it does
    in every tool.
    """

    BOARD_OPTIONS: ClassVar[Mapping[str, Any]] = {"simple_ko": False, "suicide_allowed": True}

    def __init__(
        self,
        rules: Ruleset | None = None,
        *,
        rule: str | None = None,
        suicide_allowed: bool | None = None,
    ) -> None:
        # Without rules, each game's own (begin_game); the overrides apply either way.
        self._given = rules
        self._rule = rule
        self._suicide_allowed = suicide_allowed
        self.rules = (rules or RULESETS[DEFAULT_RULESET]).overridden(
            rule=rule, suicide_allowed=suicide_allowed
        )
        self.violations: list[Violation] = []
        self.errors: list[GohashError] = []
        self._history = _History()

    def begin_game(self, info: GameInfo) -> None:
        if self._given is None:
            self.rules = info.ruleset.overridden(
                rule=self._rule, suicide_allowed=self._suicide_allowed
            )
        self._history = _History()

    def end_game(self, info: GameInfo) -> None:
        self._history = _History()

    def handle_error(self, error: GohashError) -> bool:
        self.errors.append(error)
        return False

    def visit_position(self, event: PositionEvent) -> None:
        board = event.board
        history = self._history
        history.truncate(event.depth)
        if event.colour is not None and board.move_number == 1:
            self._first_mover(event.colour)
        by_play = event.point is not None
        entries = history.entries
        if event.colour is not None and not by_play and not event.node_has_setup:
            key = entries[-1].key  # a pass leaves the stones as they were
        else:
            key = board.position_key()
        if by_play:
            assert event.point is not None and event.colour is not None
            kind, earlier = self._judge(event, key)
            if kind is not None:
                self._report(event, kind, earlier)
        history.push(
            _Entry(event.move_number, board.hash, key, board.to_move, by_play, board.ko_point,
                   board.move_number == 0)
        )

    def _judge(self, event: PositionEvent, key: bytes) -> tuple[str | None, int | None]:
        """The kind of violation of the play that led to ``event`` and the move
        number of the position it repeats."""
        point = event.point
        assert point is not None
        board = event.board
        rule = self.rules.rule
        history = self._history
        if board.get(point) is None and not self.rules.suicide_allowed:
            return "suicide", None
        if rule == "simple":
            entries = history.entries
            parent = entries[-1] if entries else None
            if (
                parent is not None
                and not event.node_has_setup
                and parent.ko_point == point
                and parent.to_move == event.colour
            ):
                # The retake restores the position before the ko was taken.
                return KINDS["simple"], entries[-2].move_number
            kind = "no result"
            earlier = history.latest_match(board.hash, key, None, False)
        elif rule == "positional":
            kind = KINDS[rule]
            earlier = history.latest_match(board.hash, key, None, False)
        else:
            kind = KINDS[rule]
            earlier = history.latest_match(board.hash, key, board.to_move, rule == "natural")
        if earlier is None:
            return None, None
        return kind, earlier.move_number

    def _report(self, event: PositionEvent, kind: str, repeats: int | None) -> None:
        point, colour, board = event.point, event.colour, event.board
        assert point is not None and colour is not None
        self.violations.append(
            Violation(
                file=event.file,
                game=event.game,
                variation=event.variation,
                move_number=event.move_number,
                colour=colour,
                point=point,
                size=board.size,
                kind=kind,
                repeats=repeats,
                cycle=None if repeats is None else event.move_number - repeats,
                diagram=marked_diagram(board, point),
            )
        )

    def _first_mover(self, colour: str) -> None:
        """Give the positions before the line's first move the player who makes it.

        The board starts with Black to move and setup does not change that, but
        in a handicap game (or any record that White begins) the setup position
        is a situation with White to move.
        """
        entries = self._history.entries
        for index, entry in enumerate(entries):
            if entry.first and entry.to_move != colour:
                entries[index] = entry._replace(to_move=colour)
