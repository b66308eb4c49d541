"""Superko checking of game records: which board plays repeat an earlier position.

Scope: the ko rules of docs/design.md, section "Ko and superko", and the
rulesets that choose them, a visitor for :func:`gohash.walk.walk` that finds
every violation in a game (:class:`SuperkoVisitor`), and :func:`check`, which
judges paths with it or, for the files the compiled core replays, on
:func:`gohash.positions.positions` columns.

Every game line keeps its history: all positions since the start, setup
included, each with its exact position (:meth:`~gohash.board.Board.position_key`)
in a multimap from position hash to every exact position with that hash.  The
hash only narrows the search; every verdict compares exact positions, so neither
a hash collision nor two positions sharing a hash (Huima's zero sums,
docs/design.md, section "E3") can make or hide a verdict.

The record is replayed as written (``Board(simple_ko=False,
suicide_allowed=True)``): after an illegal move the checker reports it and goes
on from the position the record shows, so every violation of a game is listed.
A play on an occupied point cannot be played; it is reported and skipped.

Rules (``rule``), for board plays (passes and setup are never violations):

- ``positional``: a play may not recreate any earlier position.
- ``situational``: a play may not recreate an earlier position with the same
  player to move; positions after passes and setup count too.
- ``natural``: as situational, but only situations created by board plays count.
- ``simple``: no immediate recapture of a single-stone ko; any other play that
  recreates an earlier position, whoever is to move, is reported as
  ``"no result"`` (a repetition cycle voids the game under Japanese and Korean
  rules).

Rulesets (:mod:`gohash.rules`, docs/design.md, section "Ko and superko") choose
the ko rule and whether suicide is allowed.  A game is judged under the ruleset
given to the visitor; without one, under the ruleset its ``RU`` names
(``chinese`` if none, or one gohash does not know); the ko rule or suicide rule
given as overrides replaces that ruleset's in either case.

The setup position's player to move is the player of the first move.
Suicide, when forbidden, is reported as ``"suicide"`` (the group is removed,
as the record implies, and the game goes on).  With variations, every line
has its own history: the walker's ``PositionEvent.depth`` says how many of the
positions kept belong to the event's line, so going back to a branch point
forgets exactly the line left.  An occupied play is reported in the variation
the walker located its error in.

:func:`check` gives the same result, faster, from columns.  The core replays
only files whose every game is legal under simple ko with suicide refused (it
leaves any other file to the walker), so in them the only violations are
repetitions.  One sort per batch finds the board plays whose (game, position
hash) an earlier row shares; each is then judged as the visitor judges it, on
the exact packed positions of its line (its ancestors by the ``depth``
column).  Every file the core left is walked with the visitor, so its
verdicts, errors and notes are the visitor's own, and the results of both
kinds of file are merged in reading order.

:func:`check_files` gives them file by file, as groups of files are judged
(in worker processes with ``jobs``), so a long check reports as it goes;
:func:`check` collects them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar, NamedTuple

import numpy as np
import numpy.typing as npt

from .board import Board, OccupiedPointError
from .coords import GTP_COLUMNS, gtp, sgf_letters
from .errors import GohashError
from .pool import MAX_BATCH_BYTES, WorkerDied, batches, ordered_map
from .positions import CORE_AVAILABLE, PositionBatch, positions
from .rules import (
    DEFAULT_RULESET,
    RULES,
    RULESETS,
    Ruleset,
    UnknownRuleError,
    record_ruleset,
    ruleset,
)
from .schemes import SCHEMES, KeyScheme
from .sgf import Input, SgfError, Source, find_inputs, read_input_ends
from .walk import BaseVisitor, GameInfo, PositionEvent, WalkSummary, walk_games

__all__ = [
    "KINDS",
    "RULES",
    "RULESETS",
    "CheckResult",
    "FileCheck",
    "Ruleset",
    "SuperkoVisitor",
    "UnknownRuleError",
    "Violation",
    "check",
    "check_files",
    "marked_diagram",
    "ruleset",
]

Point = tuple[int, int]

COLUMNS_MAX_GROUP_BYTES = 1024 * 1024
"""Files are judged on columns in groups of about this many bytes (a larger file
alone), so that the visitor can be given the rest of a file the core leaves."""
COLUMNS_BATCH = 1 << 16
"""Positions per batch of columns: memory stays bounded whatever a file holds."""

KINDS = {
    "positional": "positional superko",
    "situational": "situational superko",
    "natural": "natural situational superko",
    "simple": "simple ko",
    "no result": "no result",
    "suicide": "suicide",
    "occupied": "occupied",
}
"""Violation kinds: the rule names map to the kind of a repetition under them."""


@dataclass(frozen=True)
class Violation:
    """One illegal (or game-voiding) move of a record.

    ``repeats`` is the move number of the latest earlier identical position
    (under the situational rules: situation) and ``cycle`` the number of moves
    since; both are None for suicide and occupied.  ``diagram`` shows the board
    after the move (for an occupied point: as it stands), the move's point in
    brackets.
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

    def to_json(self) -> dict[str, Any]:
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
    :meth:`~gohash.board.Board.position_key` per position, about 2 us) decides,
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
    if wanted), as :func:`check` does.  ``violations`` and ``errors`` collect,
    in the order found.
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
        self._board: Board | None = None

    def begin_game(self, info: GameInfo) -> None:
        if self._given is None:
            self.rules = info.ruleset.overridden(
                rule=self._rule, suicide_allowed=self._suicide_allowed
            )
        self._history = _History()
        self._board = None

    def end_game(self, info: GameInfo) -> None:
        self._history = _History()
        self._board = None

    def handle_error(self, error: GohashError) -> bool:
        if isinstance(error, OccupiedPointError) and self._board is not None:
            point = error.point
            assert isinstance(point, tuple) and error.colour is not None
            self._report(
                error.file or "",
                error.game or 0,
                error.variation or (),
                error.move_number or 0,
                error.colour,
                point,
                "occupied",
                None,
                self._board,
            )
        else:
            self.errors.append(error)
        return True

    def visit_position(self, event: PositionEvent) -> None:
        board = event.board
        self._board = board
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
                self._report(
                    event.file, event.game, event.variation, event.move_number, event.colour,
                    event.point, kind, earlier, board,
                )
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

    def _report(
        self,
        file: str,
        game: int,
        variation: tuple[int, ...],
        move_number: int,
        colour: str,
        point: Point,
        kind: str,
        repeats: int | None,
        board: Board,
    ) -> None:
        self.violations.append(
            Violation(
                file=file,
                game=game,
                variation=variation,
                move_number=move_number,
                colour=colour,
                point=point,
                size=board.size,
                kind=kind,
                repeats=repeats,
                cycle=None if repeats is None else move_number - repeats,
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


@dataclass
class CheckResult:
    """What :func:`check` found: violations, input errors and the walk's counts."""

    violations: list[Violation] = field(default_factory=list)
    errors: list[GohashError] = field(default_factory=list)
    summary: WalkSummary = field(default_factory=WalkSummary)


@dataclass
class FileCheck:
    """What :func:`check_files` found in one SGF source (a file, an archive
    member, standard input) or in an input it could not read (``file`` its
    name): the violations, the input errors, and the counts and notes
    (``summary``, whose ``errors`` are the walk's: an occupied point is a
    violation there)."""

    file: str
    violations: list[Violation] = field(default_factory=list)
    errors: list[GohashError] = field(default_factory=list)
    summary: WalkSummary = field(default_factory=WalkSummary)


def check(
    paths: Iterable[str],
    rules: Ruleset | None = None,
    *,
    rule: str | None = None,
    suicide_allowed: bool | None = None,
    variations: bool = False,
    scheme: str | KeyScheme = "huima64",
    pure: bool | None = None,
    jobs: int = 1,
) -> CheckResult:
    """Check every game under ``paths`` (files, folders, archives, ``-``) under
    ``rules``, or each game's ``RU`` if None; ``rule`` and ``suicide_allowed``
    override the ko and suicide rule of either.

    ``pure=True`` walks every file with :class:`SuperkoVisitor`; None (the
    default) judges the files the compiled core replays on their columns,
    unless ``GOHASH_PURE=1`` is set or the core is not built.  Both give the
    same result.  ``scheme`` is the hash that narrows the search (a
    :class:`~gohash.schemes.KeyScheme` object is walked).  ``jobs`` worker
    processes check the files (:func:`check_files`); the result is the same.
    """
    result = CheckResult()
    for found in check_files(
        paths, rules, rule=rule, suicide_allowed=suicide_allowed, variations=variations,
        scheme=scheme, pure=pure, jobs=jobs,
    ):
        result.violations += found.violations
        result.errors += found.errors
        result.summary.add(found.summary)
    return result


def check_files(
    paths: Iterable[str],
    rules: Ruleset | None = None,
    *,
    rule: str | None = None,
    suicide_allowed: bool | None = None,
    variations: bool = False,
    scheme: str | KeyScheme = "huima64",
    pure: bool | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
    on_death: Callable[[str], object] | None = None,
) -> Iterator[FileCheck]:
    """:func:`check`, file by file: a :class:`FileCheck` per source, in reading
    order, as soon as its file (and those before it) are checked, so a caller
    can print violations while the rest are checked.

    Files are judged in groups of about :data:`COLUMNS_MAX_GROUP_BYTES` (small
    ones on columns, a large one or any the core leaves walked alone).  ``jobs``
    > 1 checks the groups in that many worker processes
    (:func:`gohash.pool.ordered_map`); if a worker dies, ``on_death`` gets a
    note, the files in hand are retried one at a time, and a file whose retry
    kills its worker again is an error.  ``progress(done, total)`` is called as
    inputs (the files and archives found under ``paths``) are done.
    """
    if pure is None:
        pure = os.environ.get("GOHASH_PURE", "") not in ("", "0") or not CORE_AVAILABLE
    settings = _Settings(
        rules, rule, suicide_allowed, variations, scheme,
        columns=not pure and isinstance(scheme, str) and scheme in SCHEMES,
    )
    inputs = list(find_inputs(paths))
    if jobs > 1:
        results = ordered_map(
            partial(_check_tasks, settings=settings), _tasks(inputs), jobs=jobs,
            expected=len(inputs), weight=_task_weight, on_death=on_death, batched=True,
        )
    else:
        # In this process groups are bounded by their bytes only: many small
        # files share one replay's fixed costs.
        results = (
            pair
            for chunk in batches(_tasks(inputs), sys.maxsize, _task_weight)
            for pair in zip(chunk, _check_tasks(chunk, settings), strict=True)
        )
    done = 0
    for (work, ends_input), outcome in results:
        yield from [_died(work, outcome)] if isinstance(outcome, WorkerDied) else outcome
        if ends_input:
            done += 1
            if progress is not None:
                progress(done, len(inputs))


@dataclass(frozen=True)
class _Settings:
    """How :func:`check_files` judges, as its worker processes are told."""

    rules: Ruleset | None
    rule: str | None
    suicide_allowed: bool | None
    variations: bool
    scheme: str | KeyScheme
    columns: bool  # the compiled core's columns, where it replays a file


_Work = Source | SgfError | None
_Task = tuple[_Work, bool]
"""A source read (an error met reading one, or nothing: an empty archive), and
whether it is the last of its input."""


def _tasks(inputs: list[Input]) -> Iterator[_Task]:
    for inp in inputs:
        yield from read_input_ends(inp)


def _task_weight(task: _Task) -> int:
    """A source's share of a group: its bytes, scaled so that a group of
    :data:`gohash.pool.MAX_BATCH_BYTES` holds about :data:`COLUMNS_MAX_GROUP_BYTES`
    of records.  Columns cost some 80 times a file's bytes while a group is
    judged: memory stays bounded."""
    work = task[0]
    scale = MAX_BATCH_BYTES // max(COLUMNS_MAX_GROUP_BYTES, 1)
    return len(work.data) * scale if isinstance(work, Source) else 0


def _check_tasks(tasks: list[_Task], settings: _Settings) -> list[list[FileCheck]]:
    """The checks of each task's source (none for nothing), in order (in a worker
    process, or this one): runs of files on columns (the visitor walks what
    the core leaves), or every source walked with the visitor."""
    checks: list[list[FileCheck]] = []
    group: list[Source] = []
    for work, _ in tasks:
        if settings.columns and isinstance(work, Source):
            group.append(work)
            continue
        if group:
            checks += ([check] for check in _check_columns(group, settings))
            group = []
        if isinstance(work, Source):
            checks.append([_walk_one(work, settings)])
        elif work is not None:
            summary = WalkSummary()
            summary.keep_error(work)
            checks.append([FileCheck(work.file or "", [], [work], summary)])
        else:
            checks.append([])
    if group:
        checks += ([check] for check in _check_columns(group, settings))
    return checks


def _check_columns(group: list[Source], settings: _Settings) -> list[FileCheck]:
    """The checks of files judged together on the core's columns, in order.

    A file's games may span batches, and from the first game the core leaves,
    the walker replays the rest of the file: the visitor walks that part."""
    assert isinstance(settings.scheme, str)
    game_rules = _GameRules(settings.rules, settings.rule, settings.suicide_allowed)
    checks: dict[int, FileCheck] = {}
    walked: set[int] = set()
    # positions() numbers the sources it is given from 0, in order.
    for batch in positions(
        group, scheme=settings.scheme, variations=settings.variations, packed=True,
        batch_size=COLUMNS_BATCH,
    ):
        found = _column_violations(batch, game_rules)
        # Per file, the games and positions the core replayed: one count each.
        ids = max(batch.files, default=0) + 1
        games = batch.games
        core_games = games.file[_by_core(games.file, games.game, batch.walker_from)]
        games_of = np.bincount(core_games, minlength=ids).tolist()
        rows_of = np.bincount(batch.file[_core_rows(batch)], minlength=ids).tolist()
        for file_id, name in batch.files.items():
            first = batch.walker_from.get(file_id)
            if first == 0:
                if file_id not in checks:
                    checks[file_id] = _walk_one(group[file_id], settings)
                continue
            check = checks.setdefault(file_id, FileCheck(name, summary=WalkSummary(files=1)))
            # The core replays only games the walker would make no note of.
            check.summary.games += games_of[file_id]
            check.summary.positions += rows_of[file_id]
            check.violations += found.get(file_id, [])
            if first is not None and file_id not in walked:
                walked.add(file_id)
                rest = _walk_one(group[file_id], settings, first)
                check.violations += rest.violations
                check.errors += rest.errors
                check.summary.add(rest.summary)
    # A source positions() has no batch entry for holds nothing to check.
    return [checks.get(i) or FileCheck(source.name) for i, source in enumerate(group)]


def _walk_one(source: Source, settings: _Settings, first_game: int = 0) -> FileCheck:
    """The visitor's check of a source, from game ``first_game`` on (the games
    before it were judged on columns: the file is counted there)."""
    visitor = SuperkoVisitor(
        settings.rules, rule=settings.rule, suicide_allowed=settings.suicide_allowed
    )
    board_options = {**SuperkoVisitor.BOARD_OPTIONS, "scheme": settings.scheme}
    summary = WalkSummary(files=1 if first_game == 0 else 0)
    for _ in walk_games(source, visitor, summary, variations=settings.variations,
                        board_options=board_options, first_game=first_game):
        pass
    return FileCheck(source.name, visitor.violations, visitor.errors, summary)


def _died(work: _Work, died: WorkerDied) -> FileCheck:
    """The check of a file whose worker died on it twice: an error naming it."""
    name = work.name if isinstance(work, Source) else getattr(work, "file", None) or ""
    error = GohashError(died.reason, file=name)
    summary = WalkSummary()
    summary.keep_error(error)
    return FileCheck(name, [], [error], summary)


class _GameRules:
    """The rules each game of the columns is judged under: as the visitor's."""

    def __init__(self, rules: Ruleset | None, rule: str | None, suicide: bool | None) -> None:
        self.given = None if rules is None else rules.overridden(rule=rule, suicide_allowed=suicide)
        self.rule, self.suicide = rule, suicide

    def __call__(self, ru: str | None) -> Ruleset:
        if self.given is not None:
            return self.given
        return record_ruleset(ru)[0].overridden(rule=self.rule, suicide_allowed=self.suicide)


# Spreads the game index over the hash's bits, so equal (game, hash) pairs, and
# almost no others, share a sort key.
_MIX = np.uint64(0x9E3779B97F4A7C15)


def _column_violations(
    batch: PositionBatch, game_rules: _GameRules
) -> dict[int, list[Violation]]:
    """The violations of the games the compiled core replayed, by file id, in row order.

    The core replays only games without an illegal move under simple ko with
    suicide refused (it leaves any other file to the walker), so their only
    violations are repetitions: board plays whose position is that of an
    earlier row of their line.  Rows sharing a game and a position hash are
    found by one sort; each such play is then judged as the visitor judges
    it, on exact positions, looking back from the latest earlier row with its
    hash to the first that decides (so a long cycle costs no more than in the
    visitor's multimap).
    """
    n = len(batch)
    core_rows = _core_rows(batch)
    if not core_rows.any():
        return {}
    hashes = batch.hash
    mixed = hashes if hashes.ndim == 1 else hashes[:, 0] ^ (hashes[:, 1] * _MIX)
    starts_game = np.ones(n, dtype=np.bool_)
    starts_game[1:] = (batch.file[1:] != batch.file[:-1]) | (batch.game[1:] != batch.game[:-1])
    sort_key = mixed ^ (np.cumsum(starts_game, dtype=np.uint64) * _MIX)
    # A quick unstable sort finds the few rows whose key another row shares; a
    # stable sort of those alone groups them by key, each group in row order.
    order = np.argsort(sort_key)
    ordered = sort_key[order]
    equal = ordered[1:] == ordered[:-1]
    shared = np.zeros(n, dtype=np.bool_)
    shared[1:] = equal
    shared[:-1] |= equal
    rows = np.sort(order[shared])
    grouped = rows[np.argsort(sort_key[rows], kind="stable")]
    keys = sort_key[grouped]
    first = np.ones(len(grouped), dtype=np.bool_)
    first[1:] = keys[1:] != keys[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(len(grouped)), 0))
    later = np.flatnonzero(~first & (batch.point[grouped] >= 0))
    if len(later) == 0:
        return {}
    later = later[np.argsort(grouped[later])]
    lines = _Lines(batch, np.flatnonzero(starts_game))
    game_row = {
        (f, g): k for k, (f, g) in enumerate(zip(batch.games.file.tolist(),
                                                  batch.games.game.tolist(), strict=True))
    }
    found: dict[int, list[Violation]] = {}
    in_groups = grouped.tolist()
    for at in later.tolist():
        row = in_groups[at]
        file_id = int(batch.file[row])
        if not core_rows[row]:
            continue
        ru = batch.games.text["RU"][game_row[file_id, int(batch.game[row])]]
        earlier = (in_groups[k] for k in range(at - 1, int(group_start[at]) - 1, -1))
        judged = _judge_row(batch, lines, row, earlier, game_rules(ru).rule)
        if judged is not None:
            kind, repeats = judged
            found.setdefault(file_id, []).append(_column_violation(batch, row, kind, repeats))
    return found


def _core_rows(batch: PositionBatch) -> npt.NDArray[np.bool_]:
    """Which rows of the batch the compiled core replayed (the walker the others)."""
    return _by_core(batch.file, batch.game, batch.walker_from)


def _by_core(
    files: npt.NDArray[np.int32], games: npt.NDArray[np.int32], walker_from: dict[int, int]
) -> npt.NDArray[np.bool_]:
    """Which of the games ``(files[i], games[i])`` the compiled core replayed: those
    before the game the walker took each file over from."""
    core = np.ones(len(files), dtype=np.bool_)
    for file_id, first_game in walker_from.items():
        core &= (files != file_id) | (games < first_game)
    return core


class _Lines:
    """The lines of a batch's games: whether a row is on the line of a later one.

    Rows are in pre-order, so a row's line is its game's rows whose subtree
    holds it, a subtree being the row and the rows after it up to the next
    that is no deeper (the ``depth`` column).  Subtree ends are found for a
    game when first asked; a batch without variations has one line a game.
    """

    def __init__(self, batch: PositionBatch, starts: npt.NDArray[np.intp]) -> None:
        self.batch = batch
        self.starts = starts
        self.single = len(batch.variations) == 1
        self.ends: dict[int, list[int]] = {}
        self.first_moves: dict[int, list[int]] = {}

    def game_start(self, row: int) -> int:
        return int(self.starts[np.searchsorted(self.starts, row, side="right") - 1])

    def holds(self, start: int, earlier: int, row: int) -> bool:
        """Whether ``earlier`` (a row of the game starting at ``start``) is on ``row``'s line."""
        if self.single:
            return True
        ends = self.ends.get(start)
        if ends is None:
            ends = self.ends[start] = self._subtree_ends(start)
        return row <= ends[earlier - start]

    def first_mover(self, start: int, row: int) -> int:
        """The colour of the first move on ``row``'s line (``row`` is a board play)."""
        moves = self.first_moves.get(start)
        if moves is None:
            batch = self.batch
            stop = self._game_stop(start)
            span = slice(start, stop)
            moves = (start + np.flatnonzero(
                (batch.move_number[span] == 1) & (batch.colour[span] != 0)
            )).tolist()
            self.first_moves[start] = moves
        found = next(m for m in moves if m == row or (m < row and self.holds(start, m, row)))
        return int(self.batch.colour[found])

    def _game_stop(self, start: int) -> int:
        at = int(np.searchsorted(self.starts, start)) + 1
        return int(self.starts[at]) if at < len(self.starts) else len(self.batch)

    def _subtree_ends(self, start: int) -> list[int]:
        """For each row of the game, the last row of its subtree (absolute)."""
        depth = self.batch.depth[start : self._game_stop(start)].tolist()
        ends = [start + len(depth) - 1] * len(depth)
        open_rows: list[int] = []
        for index, d in enumerate(depth):
            while open_rows and depth[open_rows[-1]] >= d:
                ends[open_rows.pop()] = start + index - 1
            open_rows.append(index)
        return ends


def _judge_row(
    batch: PositionBatch, lines: _Lines, row: int, earlier: Iterable[int], rule: str
) -> tuple[str, int] | None:
    """The kind of violation of the board play at ``row`` and the move number of the
    position it repeats, if any; ``earlier`` are the rows before it that share its
    sort key, latest first."""
    start = lines.game_start(row)
    key = batch.packed(row)
    situational = rule in ("situational", "natural")
    to_move, move_number = batch.to_move, batch.move_number
    mover = None
    for j in earlier:
        if j < start or not lines.holds(start, j, row) or batch.packed(j) != key:
            continue
        if situational:
            if rule == "natural" and batch.point[j] < 0:
                continue
            if move_number[j] == 0:
                # Before the first move, the player to move is the one who makes
                # it (the visitor's _first_mover): the line's move 1.
                if mover is None:
                    mover = lines.first_mover(start, row)
                if mover != to_move[row]:
                    continue
            elif to_move[j] != to_move[row]:
                continue
        return ("no result" if rule == "simple" else KINDS[rule]), int(move_number[j])
    return None
def _column_violation(batch: PositionBatch, row: int, kind: str, repeats: int) -> Violation:
    size = int(batch.size[row])
    point = divmod(int(batch.point[row]), size)
    move_number = int(batch.move_number[row])
    return Violation(
        file=batch.files[int(batch.file[row])],
        game=int(batch.game[row]),
        variation=batch.variations[int(batch.variation[row])],
        move_number=move_number,
        colour="b" if batch.colour[row] == 1 else "w",
        point=point,
        size=size,
        kind=kind,
        repeats=repeats,
        cycle=move_number - repeats,
        diagram=marked_diagram(Board.from_position_key(batch.packed(row)), point),
    )
