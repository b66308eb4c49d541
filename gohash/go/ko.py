"""Ko and superko violations of a record (docs/design.md, section "Ko and superko").

Scope: the kinds of violation (:data:`KINDS`), one violation of a record
(:class:`Violation`) and the diagram that shows it (:func:`marked_diagram`).
Finding them in games (the walker's visitor and its twin on the compiled
core's columns) is :mod:`gohash.tools.superko`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..group.coords import GTP_COLUMNS, gtp, sgf_letters
from .board import Board

__all__ = ["KINDS", "Violation", "marked_diagram"]

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
