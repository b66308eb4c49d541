"""Random games for the board's property tests (hypothesis): plays confined to a
small area, passes, setups and undos, so that captures, kos and suicides are frequent."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from gohash.errors import KoError, SuicideError
from gohash.go.board import Board

Point = tuple[int, int]


@dataclass(frozen=True)
class Game:
    """A random game: board size, the square area its plays use, and the steps.

    Plays confined to a small area fill it quickly, so captures, kos and
    suicides are frequent even on a large board.
    """

    size: int
    area: tuple[int, int, int]  # first row, first col, extent
    steps: list[Step]

    def colour(self, board: Board, step: Step) -> str:
        """Mostly the side to move; one step in eight plays twice in a row, as SGF files may."""
        if step.choice % 8:
            return board.to_move
        return "b" if board.to_move == "w" else "w"

    def candidates(self, board: Board, choice: int, colour: str) -> list[Point]:
        """The empty points of the area, starting at ``choice``.

        One step in two puts first the points that capture, to provoke kos,
        snapbacks and recaptures.
        """
        row0, col0, extent = self.area
        empty = [
            (r, c)
            for r in range(row0, row0 + extent)
            for c in range(col0, col0 + extent)
            if board.get((r, c)) is None
        ]
        start = choice % len(empty) if empty else 0
        points = empty[start:] + empty[:start]
        if choice % 2 == 0:
            points.sort(key=lambda point: not captures(board, point, colour))
        return points

    def setup_lists(self, step: Step) -> tuple[list[Point], list[Point], list[Point]]:
        """AB, AW and AE lists, which may share points or leave groups without liberties."""
        n = self.size * self.size
        lists: tuple[list[Point], list[Point], list[Point]] = ([], [], [])
        for k in range(step.count):
            value = (step.choice + k * step.spread) % n
            lists[(step.spread + k) % 3].append(divmod(value, self.size))
        return lists


@st.composite
def games(draw: st.DrawFn, min_size: int, max_size: int) -> Game:
    size = draw(st.integers(min_size, max_size))
    extent = draw(st.integers(min(size, 2), min(size, 6)))
    row0 = draw(st.integers(0, size - extent))
    col0 = draw(st.integers(0, size - extent))
    return Game(size, (row0, col0, extent), draw(step_lists))


@dataclass(frozen=True)
class Step:
    """One step of a random game: mostly plays, some passes, setups and undos.

    ``choice`` picks the colour (its parity) and the point (the first legal
    empty point of the game's area from ``choice`` on); a setup puts ``count``
    points drawn with stride ``spread`` into AB, AW and AE.
    """

    kind: str
    choice: int
    spread: int
    count: int


step_lists = st.lists(
    st.builds(
        Step,
        st.sampled_from(["play"] * 12 + ["pass", "setup", "undo"]),
        st.integers(0, 10**6),
        st.integers(0, 10**6),
        st.integers(1, 4),
    ),
    min_size=40,
    max_size=300,
)


def captures(board: Board, point: Point, colour: str) -> bool:
    """Whether a play at ``point`` takes stones, or would but for the ko rule."""
    trial = board.copy()
    try:
        return bool(trial.play(point, colour)) and trial.get(point) is not None
    except KoError:
        return True
    except SuicideError:
        return False
