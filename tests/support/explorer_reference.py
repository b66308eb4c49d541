"""An independent reference for the opening explorer's continuations.

Every game's main line is replayed with sgfmill's board (never gohash's);
positions are compared up to the 16 symmetries with numpy alone (``np.rot90``,
``np.fliplr`` and ``3 - v`` for the colour exchange), never with
:mod:`gohash.group.symmetry`; the next move of an occurrence is carried back into
the query's orientation by brute force: every symmetry that maps the query
onto the occurrence gives one image, and the continuation is the set of those
images.  Results, dates and ranks are read from the root with sgfmill and
parsed here, for the forms the test records and the corpus use.

Conventions the reference shares with what it checks (they are the
specification, not the implementation): a position is visited at the root and
after every node with a move or setup stones; the next move of a position is
the move of the next visited node unless that node has setup stones; the side
to move is Black at first, then the opponent of the last mover; among the
symmetries mapping the query onto an occurrence, those that keep the colours
are used if there are any (after keeping only those that give the side to
move asked for, if one is).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from sgfmill import boards, sgf, sgf_grammar

from gohash.index.index import Index
from gohash.index.results import Continuations
from tests.support.env import ROOT

Array = npt.NDArray[np.int8]
Point = tuple[int, int]
Move = tuple[str, "Point | None"]

# (quarter turns, mirrored, colours exchanged): the 16 symmetries, numpy's way.
SYMMETRIES = [(k, f, s) for s in (False, True) for f in (False, True) for k in range(4)]


def image(board: Array, k: int, f: bool, s: bool) -> Array:
    """The image of a position, or of a stack of them (the last two axes)."""
    out = np.rot90(board, k, axes=(-2, -1))
    if f:
        out = np.flip(out, axis=-1)
    if s:
        out = np.where(out > 0, 3 - out, 0)
    return np.ascontiguousarray(out, dtype=np.int8)


def point_image(point: Point, size: int, k: int, f: bool) -> Point:
    marker = np.zeros((size, size), np.int8)
    marker[point] = 1
    row, col = np.argwhere(image(marker, k, f, False) == 1)[0]
    return int(row), int(col)


def point_preimage(point: Point, size: int, k: int, f: bool) -> Point:
    """The point that ``(k, f)`` maps to ``point``: the marker moved back."""
    marker = np.zeros((size, size), np.int8)
    marker[point] = 1
    if f:
        marker = np.fliplr(marker)
    row, col = np.argwhere(np.rot90(marker, -k) == 1)[0]
    back = (int(row), int(col))
    assert point_image(back, size, k, f) == point
    return back


def other(colour: str) -> str:
    return "w" if colour == "b" else "b"


@dataclass
class Game:
    """One replayed main line: positions, the next move after each (None: none),
    the side to move at each, and what the root says."""

    file: str
    index: int
    root: dict[str, str]
    positions: list[Array] = field(default_factory=list)
    next_moves: list[Move | None] = field(default_factory=list)
    to_move: list[str] = field(default_factory=list)
    # Whether setup made the position (changed its stones) or ended it (the next
    # visited node's setup changes stones).
    setup: list[bool] = field(default_factory=list)


def _root_text(root: sgf.Tree_node, name: str) -> str | None:
    if not root.has_property(name):
        return None
    value = root.get(name)
    return str(value)


def replay(path: Path) -> Iterator[Game]:
    """Every game of an SGF file, as gohash's walker visits its main line."""
    for index, tree in enumerate(sgf_grammar.parse_sgf_collection(path.read_bytes())):
        game = sgf.Sgf_game.from_coarse_game_tree(tree)
        size = game.get_size()
        root = game.get_root()
        info = {name: text for name in ("PB", "PW", "BR", "WR", "RE", "DT", "EV", "HA", "GN")
                if (text := _root_text(root, name)) is not None}
        out = Game(str(path), index, info)
        board = boards.Board(size)
        to_move = "b"
        visited: list[tuple[bool, Move | None]] = []  # (setup, move) of each visited node
        changed: list[bool] = []  # whether setup changed the stones there
        for node in game.get_main_sequence():
            has_setup = node.has_setup_stones()
            before = sorted(board.list_occupied_points())
            if has_setup:
                board.apply_setup(*node.get_setup_stones())
            set_up = sorted(board.list_occupied_points()) != before
            colour, point = node.get_move()
            if colour is not None and point is not None:
                board.play(point[0], point[1], colour)
            if colour is not None:
                to_move = other(colour)
            if node is root or colour is not None or has_setup:
                array = np.zeros((size, size), np.int8)
                for c, (row, col) in board.list_occupied_points():
                    array[row, col] = 1 if c == "b" else 2
                out.positions.append(array)
                out.to_move.append(to_move)
                visited.append((has_setup, None if colour is None else (colour, point)))
                changed.append(set_up)
        for i in range(len(visited)):
            nxt = visited[i + 1] if i + 1 < len(visited) else (True, None)
            out.next_moves.append(None if nxt[0] else nxt[1])
            out.setup.append(changed[i] or (i + 1 < len(visited) and changed[i + 1]))
        yield out


def winner(game: Game) -> str | None:
    text = game.root.get("RE", "").strip().upper()
    if text in ("B", "W") or text[:2] in ("B+", "W+"):
        return text[0]
    return None


def date(game: Game) -> str | None:
    """The forms the test records and the corpus use."""
    text = game.root.get("DT")
    if text is None:
        return None
    if m := re.match(r"(\d{4})[-.](\d\d)[-.](\d\d)", text):
        return "-".join(m.groups())
    if m := re.match(r"(\d{4})-(\d\d)(?!\d)", text):
        return "-".join(m.groups())
    if m := re.match(r"\d\d\.\d\d\.(\d{4})$", text):
        return m.group(1)
    if m := re.match(r"(\d{4})$", text):
        return m.group(1)
    raise AssertionError(f"the reference does not read DT {text!r}")


@dataclass
class RefMove:
    """A reference continuation: its colour and the set of points it stands for."""

    count: int = 0
    black_wins: int = 0
    white_wins: int = 0
    same: int = 0
    exchanged: int = 0
    dates: list[str] = field(default_factory=list)


@dataclass
class Reference:
    total: int = 0
    ended: int = 0
    same: int = 0
    exchanged: int = 0
    black_wins: int = 0
    white_wins: int = 0
    years: Counter[int] = field(default_factory=Counter)
    moves: dict[tuple[str, frozenset[Point | None]], RefMove] = field(default_factory=dict)
    occurrences: list[tuple[Game, int, bool]] = field(default_factory=list)
    setup_left_out: int = 0


class Collection:
    """Games replayed once, with each position's canonical bytes for look-up."""

    def __init__(self, paths: Iterable[Path]) -> None:
        self.games = [g for path in paths for g in replay(path)]
        self.by_class: dict[bytes, list[tuple[Game, int]]] = {}
        for game in self.games:
            stack = np.stack(game.positions)
            images = [image(stack, k, f, s) for k, f, s in SYMMETRIES]
            for i in range(len(stack)):
                key = min(bytes([stack.shape[1]]) + im[i].tobytes() for im in images)
                self.by_class.setdefault(key, []).append((game, i))

    def continuations(
        self, query: Array, *, colour_swap: bool = True, to_move: str | None = None,
        keep: object = None, setup: str = "exclude",
    ) -> Reference:
        """The continuations of ``query``; ``keep(game)`` filters games if given;
        ``setup`` as :meth:`gohash.index.index.Index.continuations` takes it."""
        size = query.shape[0]
        key = min(bytes([size]) + image(query, k, f, s).tobytes() for k, f, s in SYMMETRIES)
        ref = Reference()
        for game, i in self.by_class.get(key, []):
            if callable(keep) and not keep(game):
                continue
            position = game.positions[i]
            maps = [(k, f, s) for k, f, s in SYMMETRIES
                    if np.array_equal(image(query, k, f, s), position)]
            assert maps, "same class, so some symmetry maps the query onto it"
            maps = [m for m in maps if colour_swap or not m[2]]
            if to_move is not None:
                maps = [m for m in maps if (other(game.to_move[i]) if m[2]
                                            else game.to_move[i]) == to_move]
            if not maps:
                continue
            if setup != "include" and game.setup[i] != (setup == "only"):
                ref.setup_left_out += 1
                continue
            exchanged = all(s for _, _, s in maps)
            if not exchanged:
                maps = [m for m in maps if not m[2]]
            won = winner(game)
            if won is not None and exchanged:
                won = other(won.lower()).upper()
            ref.total += 1
            ref.occurrences.append((game, i, exchanged))
            ref.black_wins += won == "B"
            ref.white_wins += won == "W"
            ref.exchanged += exchanged
            ref.same += not exchanged
            when = date(game)
            if when is not None:
                ref.years[int(when[:4])] += 1
            nxt = game.next_moves[i]
            if nxt is None:
                ref.ended += 1
                continue
            colour, point = nxt
            seen_colour = other(colour) if exchanged else colour
            points: set[Point | None] = set()
            for k, f, _ in maps:
                points.add(None if point is None else point_preimage(point, size, k, f))
            move = ref.moves.setdefault((seen_colour, frozenset(points)), RefMove())
            move.count += 1
            move.black_wins += won == "B"
            move.white_wins += won == "W"
            move.same += not exchanged
            move.exchanged += exchanged
            if when is not None:
                move.dates.append(when)
        return ref


def summary(moves: Continuations) -> dict[tuple[str, frozenset[object]], tuple[object, ...]]:
    out: dict[tuple[str, frozenset[object]], tuple[object, ...]] = {}
    for m in moves.moves:
        points = frozenset(m.equivalent) if m.point is not None else frozenset([None])
        assert m.point is None or (m.point in m.equivalent and m.point == max(m.equivalent))
        assert m.share == pytest.approx(m.count / moves.total)
        assert m.count == m.same_colours + m.exchanged_colours
        assert m.other == m.count - m.black_wins - m.white_wins
        out[(m.colour, points)] = (m.count, m.black_wins, m.white_wins, m.same_colours,
                                   m.exchanged_colours, m.first_date, m.last_date)
    return out


def reference_summary(ref: Reference) -> dict[tuple[str, frozenset[object]], tuple[object, ...]]:
    return {
        key: (m.count, m.black_wins, m.white_wins, m.same, m.exchanged,
              min(m.dates, default=None), max(m.dates, default=None))
        for key, m in ref.moves.items()
    }


def check_against_reference(
    index: Index, reference: Collection, query: np.ndarray, **options: object
) -> Continuations:
    moves = index.continuations(query, **options)  # type: ignore[arg-type]
    ref = reference.continuations(
        query, colour_swap=options.get("symmetry", "full") == "full",
        to_move=options.get("to_move"),  # type: ignore[arg-type]
        setup=options.get("setup", "exclude"),  # type: ignore[arg-type]
    )
    assert moves.setup_left_out == ref.setup_left_out
    assert (moves.total, moves.ended, moves.same_colours, moves.exchanged_colours,
            moves.black_wins, moves.white_wins) == (
        ref.total, ref.ended, ref.same, ref.exchanged, ref.black_wins, ref.white_wins)
    assert moves.years == dict(sorted(ref.years.items()))
    assert summary(moves) == reference_summary(ref)
    return moves


EXPLORER = ROOT / "data" / "sgf" / "opening-explorer"


# After B E5 W C7 on 9x9 (see data/sgf/opening-explorer/README.md).
QUERY = "\n".join([
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . O . . . . . .",
    ". . . . . . . . .",
    ". . . . X . . . .",
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . . . . . . . .",
])
