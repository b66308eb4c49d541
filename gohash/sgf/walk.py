"""Replaying SGF collections position by position, for visitors to collect.

Scope: the walker.  :func:`walk_paths` reads every game of the given paths (see
:mod:`gohash.sgf` for sources and parsing), replays it on a
:class:`~gohash.go.board.Board` and calls a visitor, in the style of python-chess's
``chess.pgn.BaseVisitor``: the walker replays, visitors decide what to keep.

Positions visited: the initial position (move number 0: the root's setup
included), then the position after every node that has a move (B or W, a pass
included) or setup stones (AB, AW, AE).  Every node with a move counts one move,
played or not, so move numbers are the record's; a setup-only node keeps the
move number of the position before it.  The initial position is visited exactly
once, before the root's own move if it has one, also when the root's setup is in
error.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from typing import Any

from ..errors import (
    GohashError,
    HandicapPlacementError,
    KoError,
    OccupiedPointError,
    SgfError,
    SgfLimitError,
    SgfReadError,
    counted,
    shown_name,
)
from ..go.board import Board
from ..go.rulesets import DEFAULT_RULESET, RULESETS, Ruleset, record_ruleset
from ..group.coords import gtp, sgf_letters, sgf_point_table
from ..group.symmetry import element
from ..metadata import TEXT_PROPERTIES
from .inputs import Skipped, Source
from .parser import (
    NODE,
    OPEN,
    GameText,
    Properties,
    board_size,
    decode_move,
    decode_point_list,
    encoding_of,
    game_events,
    root_text,
)
from .sources import find_inputs, read_input

__all__ = [
    "BaseVisitor",
    "GameInfo",
    "PositionEvent",
    "WalkSummary",
    "fixed_handicap",
    "handicap_placements",
    "walk_games",
    "walk_paths",
    "walk_source",
]

Point = tuple[int, int]
Events = Iterator[tuple[int, Properties | None]]

_SETUP_PROPERTIES = frozenset(("AB", "AW", "AE"))
_SETUP = ("AB", "AW", "AE")  # the order Board.setup takes them in
# Events read ahead, at most, for the main line's first move: the bound on
# what a record can make the walker buffer before it replays.
_LOOKAHEAD = 64
MAX_FILE_ERRORS = 10_000
"""Errors kept for one file: at this many, the rest of the file is skipped with a
limit error (a file of a million broken games must not fill memory)."""
MAX_FILE_NOTES = 10_000
"""Notes kept for one file: past this many, one more says the rest were dropped."""
_GTP_NOTE = "GTP-style coordinates (as SmartGo writes them), read as GoGui reads them"


@dataclass(slots=True)
class PositionEvent:
    """A position reached while walking a game.  ``board`` is live: copy it to keep it.

    ``colour``, ``point``, ``sgf_move`` and ``gtp`` describe the move that led
    here (``point`` None and ``sgf_move`` ``""`` for a pass); all are None for
    the initial position and after a node without a move played.
    ``node_has_setup`` says whether setup stones changed the board since the
    previous position of the line (for the initial position: the root's setup).
    ``depth`` is the number of positions on this line before this one.
    """

    file: str
    game: int
    variation: tuple[int, ...]
    move_number: int
    colour: str | None
    point: Point | None
    sgf_move: str | None
    gtp: str | None
    board: Board
    node_has_setup: bool
    depth: int


@dataclass
class GameInfo:
    """What the root node says about a game, and what the walker noticed.

    ``ruleset`` is the one the record's ``RU`` names (:func:`gohash.go.rulesets.record_ruleset`),
    whatever the caller overrides.
    """

    file: str
    game: int
    size: int
    encoding: str | None
    players: dict[str, str | None]
    result: str | None
    handicap: int
    root: dict[str, str]
    notes: list[str] = field(default_factory=list)
    ruleset: Ruleset = RULESETS[DEFAULT_RULESET]


class BaseVisitor:
    """Does nothing with the positions; subclass and override what you need."""

    def begin_game(self, info: GameInfo) -> None:
        """Called once per game, before its initial position."""

    def visit_position(self, event: PositionEvent) -> None:
        """Called for the initial position and after every node with a move or setup."""

    def end_game(self, info: GameInfo) -> None:
        """Called once per game that began, also when it was abandoned."""

    def handle_error(self, error: GohashError) -> bool:
        """An error in the data, located.  Raise it (the default), or return True
        to go on with the next node of the game, False to abandon the game."""
        raise error


@dataclass
class WalkSummary:
    """Counts of one walk; ``errors`` and ``notes`` in the order they happened."""

    files: int = 0
    games: int = 0
    positions: int = 0
    errors: list[GohashError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def keep_error(self, error: GohashError) -> None:
        """Record an error, without its traceback."""
        # A caught exception holds its traceback, and with it the frames' locals (a
        # board, the parser's state): kilobytes an error, where a file may hold a
        # million of them.  What is kept says where and why, nothing more.
        error.__traceback__ = None
        error.__context__ = None
        error.__cause__ = None
        self.errors.append(error)

    def add(self, other: WalkSummary) -> None:
        self.files += other.files
        self.games += other.games
        self.positions += other.positions
        self.errors += other.errors
        self.notes += other.notes

    def __str__(self) -> str:
        return ", ".join((
            counted(self.files, "file"), counted(self.games, "game"),
            counted(self.positions, "position"), counted(len(self.errors), "error"),
        ))


def handicap_placements(size: int, count: int) -> list[tuple[str, list[Point]]]:
    """The placements of ``count`` handicap stones a record with ``HA`` but no
    ``AB`` may imply, named, in the order the walker tries them.

    First GTP's (:func:`fixed_handicap`; Tygem's too); for 3 stones then the
    Japanese one (KGS's, Sabaki's: the third stone lower right, at Q4 on 19x19)
    and the classical Chinese one (the third on the centre point, where the
    board has one); then each of these turned or mirrored, the board's
    symmetries in a fixed order, each placement once.  So 2, 3, 6 and 7 stones
    have more than one placement (2, 6, 2, 2), the symmetric 4, 5, 8 and 9 one.
    Raises GohashError where GTP defines no fixed handicap.
    """
    stones = fixed_handicap(size, count)
    named = [("GTP fixed handicap", stones)]
    if count == 3:
        low, high = stones[0][0], stones[1][0]
        named.append(("Japanese handicap", [*stones[:2], (low, high)]))
        if size % 2 == 1:
            named.append(("classical Chinese handicap", [*stones[:2], (size // 2,) * 2]))
    placements: list[tuple[str, list[Point]]] = []
    seen: set[frozenset[Point]] = set()
    for turn in _PLACEMENT_TURNS:
        for name, points in named:
            image = [turn.map_point(p, size) for p in points]
            if frozenset(image) not in seen:
                seen.add(frozenset(image))
                turned = turn.name != "identity"
                placements.append((f"{name} (turned or mirrored)" if turned else name, image))
    return placements


_PLACEMENT_TURNS = tuple(element(name) for name in (
    "identity", "transpose", "flip", "flipud", "antitranspose", "rot90", "rot180", "rot270"
))
"""The board maps :func:`handicap_placements` tries, in its order of preference:
the diagonals and mirrors before the turns."""


def fixed_handicap(size: int, count: int) -> list[Point]:
    """GTP's fixed handicap placement (GTP 2 section 4.1.1), as GNU Go places it.

    Defined for 2..9 stones on odd sizes from 9, 2..4 on 7x7 and even sizes
    from 8 (on the fourth lines from 12x12, the third below); raises
    GohashError elsewhere.
    """
    limit = 9 if size % 2 == 1 and size >= 9 else 4 if size >= 7 else 0
    if not 2 <= count <= limit:
        raise GohashError(
            f"GTP defines no fixed handicap of {count} stones on a {size}x{size} board"
        )
    low = 3 if size >= 12 else 2
    high = size - 1 - low
    mid = size // 2
    corners = [(low, low), (high, high), (high, low), (low, high)][: min(count, 4)]
    sides = [(mid, low), (mid, high), (low, mid), (high, mid)]
    stones = corners + sides[: count - 4 - (count % 2) if count > 5 else 0]
    if count >= 5 and count % 2 == 1:
        stones.append((mid, mid))
    return stones


@cache
def _move_table(size: int) -> dict[bytes, tuple[Point | None, str, str]]:
    """For each SGF move value, its point and its SGF and GTP names (made once)."""
    return {
        value: (point, sgf_letters(point, size), gtp(point, size))
        for value, point in sgf_point_table(size).items()
    }


def walk_paths(
    paths: Iterable[str],
    visitor: BaseVisitor,
    *,
    variations: bool = False,
    board_options: dict[str, Any] | None = None,
) -> WalkSummary:
    """Walk every game of every file, folder (``*.sgf``, recursively), archive
    (zip, or tar plain or compressed: :mod:`gohash.sgf.sources`) or ``-`` (standard
    input) in ``paths``.

    ``board_options`` go to :class:`~gohash.go.board.Board` (``scheme``,
    ``suicide_allowed``, ``simple_ko``); without ``suicide_allowed``, each
    game's ``RU`` decides it.
    """
    summary = WalkSummary()
    for inp in find_inputs(paths):
        for source in read_input(inp):
            if isinstance(source, SgfError):
                summary.keep_error(source)
                visitor.handle_error(source)
            else:
                summary.add(
                    walk_source(source, visitor, variations=variations, board_options=board_options)
                )
    return summary


def walk_source(
    source: Source | Skipped,
    visitor: BaseVisitor,
    *,
    variations: bool = False,
    board_options: dict[str, Any] | None = None,
) -> WalkSummary:
    """Walk every game of one SGF file's bytes; an input not read (a pipe found in
    a folder) has none, and a summary of its note only."""
    if isinstance(source, Skipped):
        return WalkSummary(notes=[str(source)])
    summary = WalkSummary(files=1)
    for _ in walk_games(source, visitor, summary, variations=variations,
                        board_options=board_options):
        pass
    return summary


def walk_games(
    source: Source,
    visitor: BaseVisitor,
    summary: WalkSummary,
    *,
    variations: bool = False,
    board_options: dict[str, Any] | None = None,
    first_game: int = 0,
) -> Iterator[int]:
    """Walk the games of one SGF file's bytes from game ``first_game`` on, into
    ``summary``; yields each game's index just before it is walked, so a caller
    can act between two games (end a batch of columns).

    Games before ``first_game`` are read, to find where the next begins, but not
    replayed or counted, and the notes on how the source was read are kept only
    with game 0: the caller had those games replayed elsewhere (the compiled
    core), which it does only for games without errors or notes.
    """
    if first_game == 0:
        summary.notes += (f"{shown_name(source.name)}: {note}" for note in source.notes)
    walker = _GameWalker(source.name, visitor, summary, variations, board_options or {})
    games = game_events(source.data, source.name)
    while True:
        try:
            game = next(games)
            if game.index < first_game:
                for _ in game.events():
                    pass
                continue
        except StopIteration:
            break
        except SgfError as e:  # nothing readable in the file, or nodes outside any game
            walker.report(e)
            break
        yield game.index
        summary.games += 1
        readable = walker.walk_game(game)
        for note in game.notes:
            walker.keep_note(f"{shown_name(source.name)}, game {game.index}: {note}")
        if not readable:
            break
        if len(summary.errors) >= MAX_FILE_ERRORS:
            walker.report(_too_many_errors(game.index))
            break


class _GameWalker:
    """The replay of one file's games; one instance per file."""

    def __init__(
        self,
        file: str,
        visitor: BaseVisitor,
        summary: WalkSummary,
        variations: bool,
        board_options: dict[str, Any],
    ) -> None:
        self.file = file
        self.visitor = visitor
        self.summary = summary
        self.variations = variations
        self.board_options = board_options
        self.text_noted = False

    def report(self, error: GohashError) -> bool:
        self.summary.keep_error(error)
        return self.visitor.handle_error(error.located(file=self.file))

    def keep_note(self, note: str) -> None:
        notes = self.summary.notes
        if len(notes) < MAX_FILE_NOTES:
            notes.append(note)
        elif len(notes) == MAX_FILE_NOTES:
            notes.append(f"{self.file}: more than {MAX_FILE_NOTES:,} notes; the rest are not kept")

    def walk_game(self, game: GameText) -> bool:
        """Replay one game; False if the file cannot be read on (a syntax error)."""
        events = game.events()
        try:
            only_children = _only_children(game) if self.variations else None
            self._replay(game, events, only_children)
        except SgfReadError as e:  # located by _replay_tree after the root node
            self.report(e.located(move_number=0))
            return False
        except _Abandon:
            pass
        try:
            for _ in events:  # the rest of an abandoned game, read to find where it ends
                pass
        except SgfReadError as e:
            self.report(e)
            return False
        return True

    def _root(self, index: int, props: Properties) -> GameInfo:
        size = board_size(props)
        encoding = encoding_of(props)
        root, repaired = root_text(
            {name: props[name][0] for name in TEXT_PROPERTIES if name in props}, encoding
        )
        handicap = 0
        bad_handicap = None
        if "HA" in props:
            raw = props["HA"][0].strip()
            if raw.isdigit() and len(raw) <= 3:
                handicap = int(raw)
            else:
                bad_handicap = raw
        rules, unknown_rules = record_ruleset(root.get("RU"))
        info = GameInfo(
            file=self.file,
            game=index,
            size=size,
            encoding=encoding,
            players={"b": root.get("PB"), "w": root.get("PW")},
            result=root.get("RE"),
            handicap=handicap,
            root=root,
            ruleset=rules,
        )
        if repaired is not None:
            note = f"text is not valid {repaired}"
            if encoding is None:
                note += " (no CA; read as UTF-8: its valid multi-byte sequences say so)"
            note += "; bad bytes shown as U+FFFD"
            info.notes.append(note)
            if not self.text_noted:  # once per file: a collection may repeat it in every game
                self.text_noted = True
                self.keep_note(f"{self.file}, game {info.game}: {note} (noted once per file)")
        if bad_handicap is not None:
            # Seen in real records (HA[7.5]: the komi); HA only matters without AB.
            self._note(info, f"HA[{bad_handicap.decode('latin-1')}] is not a number: ignored")
        if unknown_rules is not None:
            self._note(info, unknown_rules)
        return info

    def _note(self, info: GameInfo, note: str) -> None:
        info.notes.append(note)
        self.keep_note(f"{self.file}, game {info.game}: {note}")

    def _replay(
        self, game: GameText, events: Events, only_children: bytearray | None
    ) -> None:
        index = game.index
        next(events)  # the game's own "("
        kind, root = next(events)
        assert kind == NODE and root is not None  # the parser allows nothing else
        # Where handicap stones come from is decided by the main line's first
        # move: read ahead to it (boundedly), keeping what was read for the replay.
        # A syntax error on the way ends the game before it begins.
        ahead: list[tuple[int, Properties | None]] = []
        opening = _read_to_first_move(events, ahead)
        try:
            info = self._root(index, root)
            options = self.board_options
            if "suicide_allowed" not in options:
                options = {**options, "suicide_allowed": info.ruleset.suicide_allowed}
            board = Board(info.size, **options)
            steps = 0
            if info.handicap >= 2 and "AB" not in root:
                steps = self._handicap(info, board, opening, game, options)
        except GohashError as e:  # the game cannot be replayed at all
            self.report(e.located(game=index, move_number=0))
            return
        self.visitor.begin_game(info)
        try:
            self._replay_tree(
                info, board, chain([(NODE, root)], ahead, events), only_children, steps
            )
        finally:
            self.visitor.end_game(info)

    def _replay_tree(
        self,
        info: GameInfo,
        board: Board,
        events: Events,
        only_children: bytearray | None,
        steps: int,
    ) -> None:
        file, game, size = self.file, info.game, info.size
        visitor, summary, variations = self.visitor, self.summary, self.variations
        table = _move_table(size)
        variation: tuple[int, ...] = ()
        path: list[int] = []
        # Per open "(": board steps, move number and path length to go back to, the
        # number of child trees seen so far, and the positions visited on the line
        # to go back to.  The game's own "(" is read.
        stack: list[list[int]] = [[0, 0, 0, 0, 0]]
        opened = 1  # "(" seen: the index into only_children
        move_number = 0
        visited = 0  # positions visited on the current line: the next event's depth
        is_root = True

        def fail(error: GohashError, number: int) -> None:
            error.file, error.game, error.move_number = file, game, number
            error.variation = variation
            summary.keep_error(error)
            if not visitor.handle_error(error):
                raise _Abandon from None
            if len(summary.errors) >= MAX_FILE_ERRORS:
                raise _too_many_errors(game)

        def visit(
            number: int,
            colour: str | None,
            point: Point | None,
            sgf_move: str | None,
            name: str | None,
            setup: bool,
        ) -> None:
            nonlocal visited
            summary.positions += 1
            visitor.visit_position(
                PositionEvent(
                    file, game, variation, number, colour, point, sgf_move, name, board, setup,
                    visited,
                )
            )
            visited += 1

        try:
            for kind, props in events:
                if kind == NODE:
                    assert props is not None
                    b = props.get("B")
                    w = props.get("W")
                    setup = not props.keys().isdisjoint(_SETUP_PROPERTIES)
                    has_move = b is not None or w is not None
                    if not has_move and not setup and not is_root:
                        continue
                    # A node with a move counts one, played or not: numbers follow the record.
                    move_number += has_move
                    if setup:
                        try:
                            board.setup(
                                *(decode_point_list(props.get(p, []), size) for p in _SETUP)
                            )
                            steps += 1
                        except GohashError as e:
                            fail(e, move_number)
                            setup = has_move = False  # the node in error is skipped whole
                    if is_root:
                        is_root = False
                        visit(0, None, None, None, None, setup)
                        setup = False  # shown in position 0, not again after the root's move
                        if not has_move:
                            continue
                    colour = point = sgf_move = name = None
                    if has_move:
                        try:
                            if b is not None and w is not None:
                                raise SgfError(f"node has both B{b!r} and W{w!r}")
                            colour, values = ("b", b) if b is not None else ("w", w)
                            assert values is not None
                            if len(values) != 1:
                                raise SgfError(f"move {colour.upper()} has {len(values)} values")
                            entry = (
                                table.get(values[0])
                                or table.get(values[0].strip())
                                or self._gtp_move(values[0], info, move_number, colour)
                            )
                            point, sgf_move, name = entry
                            if point is None:
                                board.pass_(colour)
                            else:
                                self._play(board, point, colour, props, info, move_number)
                            steps += 1
                        except GohashError as e:
                            fail(e, move_number)
                            colour = point = sgf_move = name = None
                    if colour is not None or setup:
                        visit(move_number, colour, point, sgf_move, name, setup)
                elif kind == OPEN:
                    parent = stack[-1]
                    child = parent[3]
                    parent[3] += 1
                    stack.append([steps, move_number, len(path), 0, visited])
                    if only_children is not None and not only_children[opened]:
                        path.append(child)
                        variation = _strip(path)
                    opened += 1
                else:
                    saved_steps, move_number, depth, _, visited = stack.pop()
                    if not stack or not variations:  # the end of the game, or of the main line
                        return
                    for _ in range(steps - saved_steps):
                        board.undo()
                    steps = saved_steps
                    if len(path) != depth:
                        del path[depth:]
                        variation = _strip(path)
        except SgfReadError as e:
            # Where the data broke: after the last move read.
            raise e.located(move_number=move_number, variation=variation) from None

    def _play(self, board: Board, point: Point, colour: str, props: Properties,
              info: GameInfo, move_number: int) -> None:
        """Play a move; a ko retake marked ``KO[]`` is played, with a note, as the
        SGF specification says (execute the move even if it is illegal)."""
        try:
            board.play(point, colour)
        except KoError:
            if "KO" not in props:
                raise
            board.play(point, colour, force_ko=True)
            self._note(info, f"move {move_number} {colour.upper()} {gtp(point, info.size)} "
                             "retakes a ko: played, as its KO[] says")

    def _gtp_move(
        self, value: bytes, info: GameInfo, move_number: int, colour: str
    ) -> tuple[Point | None, str, str]:
        """A move that is not SGF letters: GTP-style coordinates (noted once per
        game), or an error."""
        point = decode_move(value, info.size)
        if not any(n.endswith(_GTP_NOTE) for n in info.notes):
            text = value.decode("latin-1")
            self._note(info, f"move {move_number} {colour.upper()}[{text}]: {_GTP_NOTE}")
        return point, sgf_letters(point, info.size), gtp(point, info.size)

    def _handicap(
        self,
        info: GameInfo,
        board: Board,
        opening: str | None,
        game: GameText,
        options: dict[str, Any],
    ) -> int:
        """Place the handicap stones the record implies, if it does (see the
        module's docstring); the number of board steps taken."""
        if opening == "AB":
            return 0
        if opening == "b":
            self._note(
                info,
                f"HA[{info.handicap}] without AB and Black moves first: no stones placed, "
                "Black's moves are the handicap",
            )
            return 0
        conflicts: list[str] = []
        for name, stones in handicap_placements(info.size, info.handicap):
            conflict = _first_conflict(game, info.size, options, stones)
            if conflict is None:
                return self._place(info, board, name, stones, conflicts)
            conflicts.append(conflict)
        raise HandicapPlacementError(
            f"handicap placement unknown: HA[{info.handicap}] without AB, and every known "
            f"placement ({len(conflicts)} tried) has a stone under a move of the main line "
            f"(GTP fixed handicap: {conflicts[0]})"
        )

    def _place(
        self, info: GameInfo, board: Board, name: str, stones: list[Point], conflicts: list[str]
    ) -> int:
        board.setup(black=stones)
        names = " ".join(gtp(p, info.size) for p in stones)
        note = f"HA[{info.handicap}] without AB: placed {name} {names}"
        if conflicts:
            note += f" (GTP fixed handicap has a stone under {conflicts[0]})"
        self._note(info, note)
        return 1


def _first_conflict(
    game: GameText, size: int, options: dict[str, Any], stones: list[Point]
) -> str | None:
    """The first move of the game's main line played on one of ``stones`` while
    it is still there (``"W Q10 at move 1"``), replaying from them as the walker
    replays (a node whose setup is in error skipped, a move in error not
    played); None if there is none.  The game is read afresh, so memory stays
    bounded; what cannot be read is left for the replay to report."""
    board = Board(size, **options)
    board.setup(black=stones)
    live = set(stones)
    table = _move_table(size)
    number = 0
    notes = game.notes  # a second read must not take the notes of the replay's own
    try:
        for kind, props in game.events():
            if kind == OPEN:
                continue
            if props is None:  # the first ")": the main line is over
                break
            b, w = props.get("B"), props.get("W")
            number += b is not None or w is not None
            colour = "b" if b is not None else "w"
            try:
                if not props.keys().isdisjoint(_SETUP_PROPERTIES):
                    board.setup(*(decode_point_list(props.get(p, []), size) for p in _SETUP))
                values = b if b is not None else w
                if values is not None and len(values) == 1 and (b is None or w is None):
                    entry = table.get(values[0]) or table.get(values[0].strip())
                    point = entry[0] if entry else decode_move(values[0], size)
                    if point is None:
                        board.pass_(colour)
                    else:
                        board.play(point, colour)
            except OccupiedPointError as e:
                if e.point in live:
                    return f"{colour.upper()} {gtp(e.point, size)} at move {number}"
            except GohashError:
                pass
            live = {p for p in live if board.get(p) == "b"}
    except SgfError:
        pass
    finally:
        game.notes = notes
    return None


def _too_many_errors(game: int) -> SgfLimitError:
    return SgfLimitError(
        f"more than {MAX_FILE_ERRORS:,} errors in this file: the rest of it is skipped",
        game=game,
    )


class _Abandon(Exception):
    """The visitor chose to abandon the game after an error."""


def _read_to_first_move(events: Events, ahead: list[tuple[int, Properties | None]]) -> str | None:
    """Read the main line after the root, into ``ahead``, up to its first node with
    a move or AB: ``"AB"`` if that node has AB, else the move's colour; None if
    the main line ends first or :data:`_LOOKAHEAD` events bring neither."""
    while len(ahead) < _LOOKAHEAD:
        kind, props = next(events)
        ahead.append((kind, props))
        if kind == NODE:
            assert props is not None
            if "AB" in props:
                return "AB"
            for colour in ("B", "W"):
                if colour in props:
                    return colour.lower()
        elif kind != OPEN:  # the first ")": the main line is over
            return None
    return None


def _strip(path: list[int]) -> tuple[int, ...]:
    end = len(path)
    while end and path[end - 1] == 0:
        end -= 1
    return tuple(path[:end])


def _only_children(game: GameText) -> bytearray:
    """For every "(" of the game in order, whether it is its parent's only child
    tree: such a tree just continues the sequence and is no branch point."""
    flags = bytearray()
    children: list[list[int]] = []
    for kind, _ in game.events():
        if kind == OPEN:
            if children:
                children[-1].append(len(flags))
            flags.append(0)
            children.append([])
        elif kind != NODE:
            mine = children.pop()
            if len(mine) == 1:
                flags[mine[0]] = 1
    return flags
