"""Random games that run into repetitions, for the superko tests.

Scope: a seeded generator of game records on small boards (5x5..9x9) whose
moves obey simple ko (and forbid suicide, unless asked) but ignore superko, biased towards
captures and passes so that ko fights cycle and whole-board positions repeat;
writing such a game as SGF; and a key scheme whose hashes collide all the time.

Finding games that repeat a position takes the generator seconds of replay per
hundred games, so the 200 the GNU Go test plays are pinned in
``tests/data/ko-fights.json`` (:func:`pinned_games`), written by
``python -m tests.support.kofight``; a test checks that the generator still
gives their first games.
"""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import dataclass
from pathlib import Path

from gohash.errors import IllegalMoveError
from gohash.go.board import Board
from gohash.group.schemes import KeyScheme
from tests.support.sgfgen import sgf_point

Point = tuple[int, int]
Move = tuple[str, Point | None]


class WeakScheme(KeyScheme):
    """regular64 cut to its low ``bits`` bits: 256 hash values for 8 bits, so
    positions collide constantly; with 0 bits every position and situation
    hashes to 0, and only exact comparison can tell any two apart."""

    def __init__(self, size: int, bits: int = 8) -> None:
        super().__init__("regular64", size)
        self.name = f"weak{bits}"
        self.weak_mask = (1 << bits) - 1
        self.black_keys = tuple(k & self.weak_mask for k in self.black_keys)
        self.white_keys = tuple(k & self.weak_mask for k in self.white_keys)

    def side_key(self, colour: str) -> int:
        return super().side_key(colour) & self.weak_mask



@dataclass(frozen=True)
class RandomGame:
    size: int
    moves: tuple[Move, ...]
    first_repetition: int | None  # move number of the first play that repeats a position

    def sgf(self) -> str:
        return f"(;GM[1]FF[4]SZ[{self.size}]{sgf_nodes(self.size, self.moves)})\n"


def sgf_nodes(size: int, moves: tuple[Move, ...]) -> str:
    """The moves as a sequence of SGF nodes: ``;B[cc];W[]``.  The letters are the
    test's own (tests.sgfgen), not gohash.group.coords': GNU Go gets the same moves as points."""
    return "".join(
        f";{colour.upper()}[{'' if point is None else sgf_point(point, size)}]"
        for colour, point in moves
    )


def random_game(
    rng: random.Random,
    size: int,
    *,
    max_moves: int = 150,
    after_repetition: int = 8,
    suicide_allowed: bool = False,
    prefix: tuple[Move, ...] = (),
) -> RandomGame:
    """Play until ``after_repetition`` moves past the first positional repetition
    (or ``max_moves``).  Captures are chosen when available with probability 0.7;
    after a single-stone capture the next players pass with probability 0.5
    until one plays: so kos are retaken after passes, and positions repeat.
    With ``suicide_allowed`` suicides are played too (counted as captures).
    The game starts with the moves of ``prefix`` (another game's opening)."""
    board = Board(size, suicide_allowed=suicide_allowed)
    seen = {board.position_key()}
    moves: list[Move] = []
    first: int | None = None
    pass_chance = 0.05

    def play(colour: str, move: Point | None) -> None:
        nonlocal first, pass_chance
        moves.append((colour, move))
        if move is None:
            board.pass_(colour)
            return
        # After a ko capture, pass often: the ko's other side then retakes.
        pass_chance = 0.5 if len(board.play(move, colour)) == 1 else 0.05
        key = board.position_key()
        if key in seen and first is None:
            first = len(moves)
        seen.add(key)

    for colour, move in prefix:
        play(colour, move)
    points = [(row, col) for row in range(size) for col in range(size)]
    while len(moves) < max_moves and (first is None or len(moves) < first + after_repetition):
        colour = board.to_move
        legal: list[Point] = []
        captures: list[Point] = []
        for point in points:
            if board.get(point) is not None:
                continue
            try:
                removed = board.play(point, colour)
            except IllegalMoveError:
                continue
            board.undo()
            (captures if removed else legal).append(point)
        if rng.random() < pass_chance or not (legal or captures):
            play(colour, None)
        elif captures and rng.random() < 0.7:
            play(colour, rng.choice(captures))
        else:
            play(colour, rng.choice(legal + captures))
    return RandomGame(size, tuple(moves), first)


def games_with_repetitions(seed: int, count: int) -> list[RandomGame]:
    """``count`` random games on sizes 5..9 that each contain a repetition."""
    rng = random.Random(seed)
    games: list[RandomGame] = []
    while len(games) < count:
        game = random_game(rng, rng.randint(5, 9))
        if game.first_repetition is not None:
            games.append(game)
    return games


PINNED = Path(__file__).resolve().parents[1] / "data" / "ko-fights.json.gz"
PINNED_SEED = 20261122
PINNED_COUNT = 200


def pinned_games() -> list[RandomGame]:
    """``games_with_repetitions(PINNED_SEED, PINNED_COUNT)``, as pinned in :data:`PINNED`:
    each move its colour and, unless a pass, letters for row and column (``bce``)."""
    pinned = json.loads(gzip.decompress(PINNED.read_bytes()))
    assert pinned["seed"] == PINNED_SEED
    return [
        RandomGame(size, tuple((m[0], (ord(m[1]) - 97, ord(m[2]) - 97) if m[1:] else None)
                               for m in moves.split()), first)
        for size, first, moves in pinned["games"]
    ]


def write_pinned() -> None:
    """Write :data:`PINNED` again, from the generator."""
    games = [
        [g.size, g.first_repetition,
         " ".join(c + ("" if p is None else chr(97 + p[0]) + chr(97 + p[1])) for c, p in g.moves)]
        for g in games_with_repetitions(PINNED_SEED, PINNED_COUNT)
    ]
    text = json.dumps({"seed": PINNED_SEED, "games": games}, indent=0)
    PINNED.write_bytes(gzip.compress(text.encode(), mtime=0))


if __name__ == "__main__":
    write_pinned()
