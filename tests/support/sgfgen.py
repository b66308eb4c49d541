"""Random SGF records for differential tests: the text, with a description beside it.

Scope: hypothesis strategies (:func:`records`, :func:`games`) that build SGF
collections with what real files hold and what breaks naive replayers: setup
(AB, AW, AE) in any node, the root and a variation's first node included;
passes spelt ``B[]`` and ``B[tt]``; two moves in a row by one colour; the
handicap forms (HA with AB in the root, HA with AB in node 1, HA without AB,
handicap stones played as B moves); bad properties (an off-board point in a
setup list, the root's included, a move off the board, B and W in one node, a
move with two values, ``HA[x]``); plays on occupied points and suicides;
variations nested a few levels (single child trees too); several games in one
file; sizes 2..19.  Moves are chosen on a board kept alongside, preferring
captures, passing after a ko is taken and setting up ko shapes, so that kos
are fought and positions repeat (the ideas of tests/support/kofight.py), and taking
stones back by AE and playing them again, so that setup positions repeat too.

:class:`Record` holds the description: games of :class:`Tree` of
:class:`Node`, every property value as written, and ``Record.sgf()`` the text.
:func:`replay` replays a description as gohash's walker documents it (the
module docstring of gohash.sgf.walk: which positions are visited, how moves are
numbered, what an error skips) on ``sgfmill.boards.Board``, recursively, every
line carrying its own earlier positions: a reference for the walker and for
anything built on it.  The record is played as written, as sgfmill plays it:
suicides remove the group, kos are retaken (the walker with
``board_options={"suicide_allowed": True, "simple_ko": False}``).  It uses
nothing of gohash but the handicap placements
(``gohash.sgf.walk.handicap_placements``: GTP's first, checked against GNU Go by
tests/sgf/test_walk.py, the others against a table written out by hand in
tests/sgf/test_handicap.py); which one a record implies, it finds by its own replay
of the main line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import strategies as st
from sgfmill.boards import Board

from gohash.errors import GohashError
from gohash.sgf.walk import handicap_placements

Point = tuple[int, int]
T = TypeVar("T")
Draw = Callable[[st.SearchStrategy[T]], T]

LETTERS = "abcdefghijklmnopqrstuvwxyz"
SIZES = st.one_of(st.integers(4, 9), st.integers(2, 19))
"""Board sizes: mostly small (where kos are fought), every size 2..19 possible."""


# -- the description ---------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    """One node: setup lists, moves (``(("B", ("cc",)),)`` normally; anything
    else is malformed) and other properties, every value as written."""

    black: tuple[str, ...] = ()
    white: tuple[str, ...] = ()
    empty: tuple[str, ...] = ()
    moves: tuple[tuple[str, tuple[str, ...]], ...] = ()
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def has_setup(self) -> bool:
        return bool(self.black or self.white or self.empty)

    @property
    def has_move(self) -> bool:
        return bool(self.moves)

    def properties(self) -> dict[str, list[bytes]]:
        """The node as sgfmill's parser reads it: name -> raw values."""
        props = {name: [value.encode()] for name, value in self.extra}
        for name, values in (("AB", self.black), ("AW", self.white), ("AE", self.empty)):
            if values:
                props[name] = [value.encode() for value in values]
        for name, values in self.moves:
            props[name] = [value.encode() for value in values]
        return props

    def sgf(self) -> str:
        return ";" + "".join(
            name + "".join(f"[{value.decode()}]" for value in values)
            for name, values in self.properties().items()
        )

    def value(self, name: str) -> str | None:
        return next((value for key, value in self.extra if key == name), None)

    def setup_points(self, size: int) -> tuple[list[Point], list[Point], list[Point]] | None:
        """The AB, AW and AE points (``aa:cc`` rectangles expanded); None if any
        value is not a point of the board."""
        lists: list[list[Point]] = []
        for values in (self.black, self.white, self.empty):
            points: list[Point] = []
            for value in values:
                first, colon, last = value.partition(":")
                corners = [_point(first, size), _point(last, size) if colon else None]
                if corners[0] is None or (colon and corners[1] is None):
                    return None
                (r1, c1), (r2, c2) = corners[0], corners[1] or corners[0]
                points += [
                    (row, col)
                    for row in range(min(r1, r2), max(r1, r2) + 1)
                    for col in range(min(c1, c2), max(c1, c2) + 1)
                ]
            lists.append(points)
        return lists[0], lists[1], lists[2]

    def move(self, size: int) -> tuple[str, Point | None] | None:
        """The node's move as (colour, point; None for a pass); None if malformed."""
        if len(self.moves) != 1 or len(self.moves[0][1]) != 1:
            return None
        name, (value,) = self.moves[0]
        if value == "" or (value == "tt" and size <= 19):
            return name.lower(), None
        point = _point(value, size)
        return None if point is None else (name.lower(), point)


@dataclass(frozen=True)
class Tree:
    """A sequence of nodes and the trees that follow it (one, or a branch)."""

    nodes: tuple[Node, ...]
    children: tuple[Tree, ...] = ()

    def sgf(self) -> str:
        return (
            "("
            + "".join(node.sgf() for node in self.nodes)
            + "".join(child.sgf() for child in self.children)
            + ")"
        )

    def node_count(self) -> int:
        return len(self.nodes) + sum(child.node_count() for child in self.children)


@dataclass(frozen=True)
class Game:
    """One game: its size and its tree, whose first node is the root."""

    size: int
    tree: Tree

    @property
    def root(self) -> Node:
        return self.tree.nodes[0]

    def sgf(self) -> str:
        return self.tree.sgf()


@dataclass(frozen=True)
class Record:
    """A collection: one or more games in one file."""

    games: tuple[Game, ...]

    def sgf(self) -> str:
        return "\n".join(game.sgf() for game in self.games) + "\n"


def sgf_point(point: Point, size: int) -> str:
    row, col = point
    return LETTERS[col] + LETTERS[size - 1 - row]


def _point(value: str, size: int) -> Point | None:
    if len(value) != 2 or any(letter not in LETTERS[:size] for letter in value):
        return None
    return size - 1 - LETTERS.index(value[1]), LETTERS.index(value[0])


def game_of_moves(size: int, moves: tuple[tuple[str, Point | None], ...]) -> Game:
    """A game of plain moves (as tests/support/kofight.py plays them), described."""
    root = Node(extra=(("GM", "1"), ("FF", "4"), ("SZ", str(size))))
    nodes = [
        Node(moves=((colour.upper(), ("" if point is None else sgf_point(point, size),)),))
        for colour, point in moves
    ]
    return Game(size, Tree((root, *nodes)))


# -- the reference replay -----------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Step:
    """A position the walker visits: where, the node's move that was played
    (``colour`` None if none), whether setup changed the board since the line's
    previous position, the stones (row-major, row 0 at the bottom), sgfmill's
    simple-ko point after the move, and the line's earlier positions."""

    game: int
    variation: tuple[int, ...]
    move_number: int
    colour: str | None
    point: Point | None
    setup: bool
    stones: tuple[str | None, ...]
    ko: Point | None
    before: tuple[Step, ...]

    @property
    def depth(self) -> int:
        return len(self.before)


@dataclass(frozen=True)
class Fault:
    """An error the walker reports: ``kind`` is "setup" (a bad setup point),
    "move" (a malformed move), "occupied" (with colour and point) or
    "handicap" (HA without AB on a board GTP gives no placement for) or
    "placement" (HA without AB, every placement under a move)."""

    game: int
    variation: tuple[int, ...] | None
    move_number: int
    kind: str
    colour: str | None = None
    point: Point | None = None


def replay(record: Record, *, variations: bool = True) -> Iterator[Step | Fault]:
    """Every position and error of the record, in the order the walker meets them."""
    for index, game in enumerate(record.games):
        yield from _Replay(index, game, variations).run()


def stones_of(board: Board) -> tuple[str | None, ...]:
    size = board.side
    return tuple(board.get(row, col) for row in range(size) for col in range(size))


# The walker reads at most this many events (nodes and "(") of the main line
# after the root to find where handicap stones come from (walk.py's docstring).
HANDICAP_LOOKAHEAD = 64


def _opening(game: Game) -> str | None:
    """What decides a handicap without AB in the root, as walk.py documents it:
    "AB" if the main line's first node with AB or a move has AB, else that
    move's colour; None if the main line ends, or the look-ahead does, first."""
    events = 0
    tree, nodes = game.tree, game.tree.nodes[1:]
    while True:
        for node in nodes:
            events += 1
            if events > HANDICAP_LOOKAHEAD:
                return None
            if node.black:
                return "AB"
            names = {name for name, _ in node.moves}
            if names & {"B", "W"}:
                return "b" if "B" in names else "w"
        events += 1  # the "(" of the next tree of the main line
        if not tree.children or events > HANDICAP_LOOKAHEAD:
            return None
        tree = tree.children[0]
        nodes = tree.nodes


def _under_a_move(game: Game, stones: list[Point]) -> bool:
    """Whether a move of the main line is played on one of ``stones`` while it is
    still there, the line replayed from them as :class:`_Replay` replays it."""
    board = Board(game.size)
    board.apply_setup(stones, [], [])
    live = set(stones)
    tree: Tree | None = game.tree
    while tree is not None:
        for node in tree.nodes:
            if node.has_setup:
                points = node.setup_points(game.size)
                if points is None:
                    continue
                board.apply_setup(*points)
            move = node.move(game.size) if node.has_move else None
            if move is not None and move[1] is not None:
                if board.get(*move[1]) is None:
                    board.play(*move[1], move[0])
                elif move[1] in live:
                    return True
            live = {p for p in live if board.get(*p) == "b"}
        tree = tree.children[0] if tree.children else None
    return False


@dataclass
class _Replay:
    index: int
    game: Game
    variations: bool

    def run(self) -> Iterator[Step | Fault]:
        game = self.game
        board = Board(game.size)
        raw = (game.root.value("HA") or "").strip()
        handicap = int(raw) if raw.isdigit() and len(raw) <= 3 else 0
        if handicap >= 2 and not game.root.black and _opening(game) not in ("AB", "b"):
            try:
                placements = handicap_placements(game.size, handicap)
            except GohashError:
                yield Fault(self.index, None, 0, "handicap")
                return
            fitting = [stones for _, stones in placements if not _under_a_move(game, stones)]
            if not fitting:
                yield Fault(self.index, None, 0, "placement")
                return
            board.apply_setup(fitting[0], [], [])
        yield from self._line(game.tree, board, 0, (), [], True)

    def _line(
        self,
        tree: Tree,
        board: Board,
        number: int,
        before: tuple[Step, ...],
        path: list[int],
        is_root: bool,
    ) -> Iterator[Step | Fault]:
        variation = _strip(path)
        for node in tree.nodes:
            number, before = yield from self._node(node, board, number, before, variation, is_root)
            is_root = False
        children = tree.children if self.variations else tree.children[:1]
        branch = len(tree.children) >= 2
        for child_index, child in enumerate(children):
            yield from self._line(
                child, board.copy(), number, before,
                [*path, child_index] if branch else path, False,
            )

    def _node(
        self,
        node: Node,
        board: Board,
        number: int,
        before: tuple[Step, ...],
        variation: tuple[int, ...],
        is_root: bool,
    ) -> Iterator[Step | Fault]:
        # A generator returning (move number, line) after the node: see _line.
        if not (node.has_move or node.has_setup or is_root):
            return number, before
        number += node.has_move
        play = node.has_move
        setup = False
        if node.has_setup:
            points = node.setup_points(board.side)
            if points is None:
                yield Fault(self.index, variation, number, "setup")
                play = False
            else:
                board.apply_setup(*points)
                setup = True
        if is_root:
            step = Step(self.index, variation, 0, None, None, setup, stones_of(board), None, before)
            yield step
            before += (step,)
            setup = False
            if not play:
                return number, before
        colour = point = ko = None
        if play:
            move = node.move(board.side)
            if move is None:
                yield Fault(self.index, variation, number, "move")
            elif move[1] is not None and board.get(*move[1]) is not None:
                yield Fault(self.index, variation, number, "occupied", *move)
            else:
                colour, point = move
                if point is not None:
                    ko = board.play(*point, colour)
        if colour is not None or setup:
            step = Step(
                self.index, variation, number, colour, point, setup, stones_of(board), ko, before
            )
            yield step
            before += (step,)
        return number, before


def _strip(path: list[int]) -> tuple[int, ...]:
    end = len(path)
    while end and path[end - 1] == 0:
        end -= 1
    return tuple(path[:end])


# -- the generator ------------------------------------------------------------------------


def _neighbours(point: Point, size: int) -> list[Point]:
    row, col = point
    return [
        (r, c)
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        if 0 <= r < size and 0 <= c < size
    ]


def _liberties(board: Board) -> dict[Point, frozenset[Point]]:
    """Every stone's group's liberties."""
    size = board.side
    result: dict[Point, frozenset[Point]] = {}
    for row in range(size):
        for col in range(size):
            colour = board.get(row, col)
            if colour is None or (row, col) in result:
                continue
            group, stack, libs = {(row, col)}, [(row, col)], set()
            while stack:
                for n in _neighbours(stack.pop(), size):
                    other = board.get(*n)
                    if other is None:
                        libs.add(n)
                    elif other == colour and n not in group:
                        group.add(n)
                        stack.append(n)
            frozen = frozenset(libs)
            result.update(dict.fromkeys(group, frozen))
    return result


def _opponent(colour: str) -> str:
    return "w" if colour == "b" else "b"


@dataclass
class _Generator:
    """Draws one game's nodes, keeping a board of what they do (captures and
    occupied points are chosen on it)."""

    draw: Draw[Any]
    size: int
    budget: int
    max_depth: int
    faults: bool = True  # moves and setup the walker refuses, after the root
    board: Board = field(init=False)
    last: str = "w"  # the colour of the last move
    ko_taken: bool = False
    taken_back: tuple[str, Point] | None = None  # a stone AE removed, to be played again
    after_setup: bool = False  # the last position was made by setup

    def __post_init__(self) -> None:
        self.board = Board(self.size)

    def percent(self) -> int:
        value: int = self.draw(st.integers(0, 99))
        return value

    def chance(self, percent: int) -> bool:
        return self.percent() < percent

    def pick(self, options: list[T]) -> T:
        index: int = self.draw(st.integers(0, len(options) - 1))
        return options[index]

    def points(self, count: int, pool: list[Point] | None = None) -> list[Point]:
        pool = pool or [(r, c) for r in range(self.size) for c in range(self.size)]
        return [self.pick(pool) for _ in range(count)]

    def letters(self, points: list[Point]) -> tuple[str, ...]:
        return tuple(sgf_point(point, self.size) for point in points)

    def off_board(self) -> str:
        return self.pick(["zz", LETTERS[self.size] + "a", "a" + LETTERS[self.size], "a"])

    # -- the game

    def game(self) -> Game:
        root, first = self.root()
        if first and self.chance(25):  # node 1 behind a "(": the walker must look through it
            children = [self.tree(1, first)]
            if self.chance(50):
                children.append(self.tree(1, ()))
            return Game(self.size, Tree((root,), tuple(children)))
        return Game(self.size, self.tree(0, (root, *first)))

    def root(self) -> tuple[Node, list[Node]]:
        """The root node, and the nodes that must follow it (a handicap form's)."""
        extra = [("GM", "1"), ("FF", "4")]
        if self.size != 19 or self.chance(70):
            extra.append(("SZ", str(self.size)))
        form = self.percent()
        count = self.draw(st.integers(2, 9))
        black: tuple[str, ...] = ()
        white: tuple[str, ...] = ()
        moves: tuple[tuple[str, tuple[str, ...]], ...] = ()
        first: list[Node] = []
        if form < 60:  # no handicap; maybe setup, rarely a move in the root
            if self.chance(30):
                black, white = self.setup_stones()
                self.board.apply_setup(*self.decoded(black, white))
                self.after_setup = True
            if self.chance(5):
                moves = self.move_node(self.pick(["b", "w"]), self.empty_point()).moves
        elif form < 67:  # HA with AB in the root
            extra.append(("HA", str(count)))
            black = self.letters(self.points(count))
            self.board.apply_setup(*self.decoded(black, ()))
            self.last = "b"
            self.after_setup = True
        elif form < 73:  # HA with AB in node 1
            extra.append(("HA", str(count)))
            first.append(Node(black=self.letters(self.points(count))))
            self.board.apply_setup(*self.decoded(first[0].black, ()))
            self.last = "b"
            self.after_setup = True
        elif form < 79:  # HA without AB: the walker places the stones the moves fit
            extra.append(("HA", str(count)))
            try:
                placements = handicap_placements(self.size, count)
            except GohashError:
                pass
            else:
                # Any known placement; White's first move on a point of GTP's it
                # leaves free, so that only the moves tell which it was.
                stones = self.pick(placements)[1]
                self.board.apply_setup(stones, [], [])
                self.last = "b"
                free = [p for p in placements[0][1] if p not in stones]
                if free:
                    first.append(self.move_node("w", self.pick(free)))
        elif form < 85:  # HA with the stones played as moves
            extra.append(("HA", str(count)))
            first = [self.move_node("b", self.empty_point()) for _ in range(count)]
        elif form < 91:
            extra.append(("HA", self.pick(["x", "7.5", "", "two"])))
        else:  # an off-board point in the root's setup
            black = (*self.letters(self.points(self.draw(st.integers(0, 3)))), self.off_board())
        return Node(black=black, white=white, moves=moves, extra=tuple(extra)), first

    def decoded(
        self, black: tuple[str, ...], white: tuple[str, ...]
    ) -> tuple[list[Point], list[Point], list[Point]]:
        points = Node(black=black, white=white).setup_points(self.size)
        assert points is not None
        return points

    def tree(self, depth: int, first: tuple[Node, ...] | list[Node]) -> Tree:
        nodes = list(first)
        length = len(nodes) + self.draw(st.integers(0 if nodes else 1, 30))
        while len(nodes) < length and (self.budget > 0 or not nodes):
            nodes.append(self.node())
            self.budget -= 1
        children: list[Tree] = []
        if depth < self.max_depth and self.budget > 0 and self.chance(40):
            count = 1 if self.chance(15) else self.draw(st.integers(2, 3))
            state = (self.board, self.last, self.ko_taken, self.taken_back, self.after_setup)
            for _ in range(count):
                self.board = state[0].copy()
                self.last, self.ko_taken, self.taken_back, self.after_setup = state[1:]
                children.append(self.tree(depth + 1, ()))
        return Tree(tuple(nodes), tuple(children))

    # -- nodes

    def node(self) -> Node:
        colour = self.last if self.chance(8) else _opponent(self.last)
        if self.ko_taken and self.chance(50):
            return self.move_node(colour, None)
        if self.taken_back is not None and self.chance(50):
            # Played again: the position before the AE comes back, by a play.
            colour, point = self.taken_back
            return self.move_node(colour, point)
        # Setup positions in a row (one move count, under a weak hash one hash too),
        # then a play that recreates the first of them.
        if self.after_setup and self.chance(35):
            node = self.take_back()
            if node is not None:
                return node
        kind = self.percent()
        if not self.faults and kind >= 80 and not (86 <= kind < 90 or 94 <= kind < 96):
            kind = 50  # a play on an empty point rather than a move the walker refuses
        if kind < 40:
            return self.move_node(colour, self.capture(colour) or self.empty_point())
        if kind < 62:
            return self.move_node(colour, self.empty_point())
        if kind < 68:
            return self.move_node(colour, None)
        if kind < 72:
            node = self.take_back()
            if node is not None:
                return node
        if kind < 80:  # setup only, or setup with a move (possibly failing)
            node = self.setup_node()
            if self.chance(40):  # and a move: a play, a pass, or one that fails
                move = self.percent() if self.faults else self.draw(st.integers(35, 99))
                if move < 15:
                    moves = ((colour.upper(), (self.off_board(),)),)
                else:
                    point = self.occupied_point() if move < 35 else self.empty_point()
                    moves = self.move_node(colour, None if move > 85 else point).moves
                node = Node(node.black, node.white, node.empty, moves)
            return node
        if kind < 86:
            return self.move_node(colour, self.occupied_point() or self.empty_point())
        if kind < 90:
            return self.move_node(colour, self.suicide(colour) or self.empty_point())
        if kind < 92:
            return Node(moves=((colour.upper(), (self.off_board(),)),))
        if kind < 94:  # setup with an off-board point: the whole node is skipped
            return Node(
                black=(self.off_board(),),
                moves=self.move_node(colour, self.empty_point()).moves if self.chance(50) else (),
            )
        if kind < 96:
            return Node(extra=(("C", "a comment"),))
        if kind < 98:  # B and W in one node
            point = self.letters(self.points(1))
            return Node(moves=(("B", point), ("W", point)))
        return Node(moves=((colour.upper(), self.letters(self.points(2))),))

    def take_back(self) -> Node | None:
        """A stone taken back by AE, as records correct a mistake."""
        stone = self.occupied_point()
        if stone is None:
            return None
        colour = self.board.get(*stone)
        self.board.apply_setup([], [], [stone])
        self.ko_taken = False
        self.taken_back = (colour, stone)
        self.after_setup = True
        return Node(empty=self.letters([stone]))

    def move_node(self, colour: str, point: Point | None) -> Node:
        """A move, and what it does to the board kept alongside."""
        self.ko_taken = False
        self.taken_back = None
        self.after_setup = False
        if point is None:
            value = self.pick(["", "tt"])
            self.last = colour
        else:
            value = sgf_point(point, self.size)
            if self.board.get(*point) is None:
                self.ko_taken = self.board.play(*point, colour) is not None
                self.last = colour
        return Node(moves=((colour.upper(), (value,)),))

    def setup_node(self) -> Node:
        black, white = self.setup_stones()
        occupied = [p for p, colour in self._stones() if colour is not None]
        empty: tuple[str, ...] = ()
        if occupied and self.chance(50):
            empty = self.letters(self.points(self.draw(st.integers(1, 3)), occupied))
        if self.chance(10):
            first, last = self.points(2)
            empty += (f"{sgf_point(first, self.size)}:{sgf_point(last, self.size)}",)
        if not (black or white or empty):
            black = self.letters(self.points(1))
        node = Node(black=black, white=white, empty=empty)
        points = node.setup_points(self.size)
        assert points is not None
        self.board.apply_setup(*points)
        self.ko_taken = False
        self.after_setup = True
        return node

    def setup_stones(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Stones to add: a ko shape, or a few random stones of each colour."""
        if self.size >= 4 and self.chance(40):
            black, white = self.ko_shape()
        else:
            black = self.points(self.draw(st.integers(0, 3)))
            white = self.points(self.draw(st.integers(0, 3)))
        return self.letters(black), self.letters(white)

    def ko_shape(self) -> tuple[list[Point], list[Point]]:
        """The stones of a ko, anywhere, in any orientation, either colour inside."""
        black = [(0, 1), (1, 0), (2, 1)]
        white = [(0, 2), (1, 1), (1, 3), (2, 2)]
        transpose, flip_rows, flip_cols = (self.chance(50) for _ in range(3))
        height, width = (4, 3) if transpose else (3, 4)
        top = self.draw(st.integers(0, self.size - height))
        left = self.draw(st.integers(0, self.size - width))

        def place(points: list[Point]) -> list[Point]:
            placed = []
            for r, c in points:
                if transpose:
                    r, c = c, r
                if flip_rows:
                    r = height - 1 - r
                if flip_cols:
                    c = width - 1 - c
                placed.append((top + r, left + c))
            return placed

        if self.chance(50):
            black, white = white, black
        return place(black), place(white)

    # -- points on the board kept alongside

    def _stones(self) -> list[tuple[Point, str | None]]:
        size = self.size
        return [((r, c), self.board.get(r, c)) for r in range(size) for c in range(size)]

    def empty_point(self) -> Point | None:
        empty = [point for point, colour in self._stones() if colour is None]
        return self.pick(empty) if empty else None

    def occupied_point(self) -> Point | None:
        occupied = [point for point, colour in self._stones() if colour is not None]
        return self.pick(occupied) if occupied else None

    def capture(self, colour: str) -> Point | None:
        liberties = _liberties(self.board)
        opponent = _opponent(colour)
        atari = sorted(
            {next(iter(libs)) for point, libs in liberties.items()
             if len(libs) == 1 and self.board.get(*point) == opponent}
        )
        return self.pick(atari) if atari else None

    def suicide(self, colour: str) -> Point | None:
        """A point where ``colour`` would capture nothing and have no liberty."""
        liberties = _liberties(self.board)
        found = []
        for point, here in self._stones():
            around = _neighbours(point, self.size)
            if here is not None or any(n not in liberties for n in around):
                continue
            if all(
                liberties[n] == {point}
                if self.board.get(*n) == colour
                else liberties[n] != {point}
                for n in around
            ):
                found.append(point)
        return self.pick(found) if found else None


@st.composite
def games(
    draw: Draw[Any],
    sizes: st.SearchStrategy[int] = SIZES,
    *,
    max_nodes: int = 80,
    max_depth: int = 3,
    faults: bool = True,
) -> Game:
    """One game: a root and up to ``max_nodes`` further nodes, variations nested
    up to ``max_depth`` levels; without ``faults``, no node after the root
    holds a move or setup that the walker refuses (an error ends a game in
    every tool, so games without them reach further)."""
    size = draw(sizes)
    generator = _Generator(draw, size, draw(st.integers(0, max_nodes)), max_depth, faults)
    return generator.game()


@st.composite
def records(
    draw: Draw[Any],
    sizes: st.SearchStrategy[int] = SIZES,
    *,
    max_games: int = 3,
    same_size: bool = False,
    max_nodes: int = 80,
    max_depth: int = 3,
    faults: bool = True,
) -> Record:
    """A collection of 1..``max_games`` games (all of one size if ``same_size``;
    ``faults`` as :func:`games`)."""
    count = draw(st.integers(1, max_games))
    if same_size:
        sizes = st.just(draw(sizes))
    return Record(
        tuple(
            draw(games(sizes, max_nodes=max_nodes, max_depth=max_depth, faults=faults))
            for _ in range(count)
        )
    )
