"""Superko checking of game records: which board plays repeat an earlier position.

Scope: :func:`check` and :func:`check_files`, which judge paths with
:class:`SuperkoVisitor` (a visitor for :func:`gohash.sgf.walk.walk_paths`) or, for
the files the compiled core replays, on :func:`gohash.pipeline.positions.read_positions`
columns; the violations are :mod:`gohash.go.ko`'s.

Every game line keeps its history: all positions since the start, setup
included, each with its exact position (:meth:`~gohash.go.board.Board.position_key`)
in a multimap from position hash to every exact position with that hash.  The
hash only narrows the search; every verdict compares exact positions, so neither
a hash collision nor two positions sharing a hash (Huima's zero sums,
docs/design.md, section "E3") can make or hide a verdict.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar, NamedTuple

import numpy as np
import numpy.typing as npt

from .. import _native
from ..errors import GohashError, WorkerDied
from ..go.board import Board
from ..go.ko import KINDS, Violation, marked_diagram
from ..go.rulesets import DEFAULT_RULESET, RULESETS, Ruleset, record_ruleset
from ..group.schemes import DEFAULT_SCHEME, SCHEMES, KeyScheme
from ..group.symmetry import Point
from ..pipeline.jobs import UNBOUNDED, Task, input_tasks, run_tasks, task_ends, task_name
from ..pipeline.pool import MAX_BATCH_BYTES
from ..pipeline.positions import PositionBatch, read_positions
from ..sgf.inputs import Input, Skipped, Source
from ..sgf.sources import find_inputs, read_input
from ..sgf.walk import BaseVisitor, GameInfo, PositionEvent, WalkSummary, walk_games

__all__ = [
    "CheckResult",
    "FileCheck",
    "SuperkoVisitor",
    "check",
    "check_files",
]

COLUMNS_MAX_GROUP_BYTES = 1024 * 1024
"""Files are judged on columns in groups of about this many bytes (a larger file
alone), so that the visitor can be given the rest of a file the core leaves."""
COLUMNS_BATCH = 1 << 16
"""Positions per batch of columns: memory stays bounded whatever a file holds."""


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
    name): the violations, the input errors (each ends its game, a play on an
    occupied point included), and the counts and notes (``summary``)."""

    file: str
    violations: list[Violation] = field(default_factory=list)
    errors: list[GohashError] = field(default_factory=list)
    summary: WalkSummary = field(default_factory=WalkSummary)


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


def check(
    paths: Iterable[str],
    rules: Ruleset | None = None,
    *,
    rule: str | None = None,
    suicide_allowed: bool | None = None,
    variations: bool = False,
    scheme: str | KeyScheme = DEFAULT_SCHEME,
    pure: bool | None = None,
    jobs: int = 1,
) -> CheckResult:
    """Check every game under ``paths`` (files, folders, archives, ``-``) under
    ``rules``, or each game's ``RU`` if None; ``rule`` and ``suicide_allowed``
    override the ko and suicide rule of either.

    ``pure=True`` walks every file with :class:`SuperkoVisitor`; None (the
    default) judges the files the compiled core replays on their columns,
    unless ``GOHASH_PURE=1`` is set or the core is not built
    (:func:`gohash._native.use_compiled`).  Both give the
    same result.  ``scheme`` is the hash that narrows the search (a
    :class:`~gohash.group.schemes.KeyScheme` object is walked).  ``jobs`` worker
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
    scheme: str | KeyScheme = DEFAULT_SCHEME,
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
    (:func:`gohash.pipeline.pool.ordered_map`); if a worker dies, ``on_death`` gets a
    note, the files in hand are retried one at a time, and a file whose retry
    kills its worker again is an error.  ``progress(done, total)`` is called as
    inputs (the files and archives found under ``paths``) are done.
    """
    pure = not _native.use_compiled(pure, _native.core)
    settings = _Settings(
        rules, rule, suicide_allowed, variations, scheme,
        columns=not pure and isinstance(scheme, str) and scheme in SCHEMES,
    )
    inputs = list(find_inputs(paths))
    # In this process groups are bounded by their bytes only: many small files
    # share one replay's fixed costs.
    for _, outcome in run_tasks(
        partial(_check_tasks, settings=settings), input_tasks(inputs), jobs=jobs,
        inputs=len(inputs), chunk=UNBOUNDED, weight=_task_weight, name=task_name,
        ends=task_ends, progress=progress, on_death=on_death,
    ):
        yield from [_died(outcome)] if isinstance(outcome, WorkerDied) else outcome


@dataclass(frozen=True)
class _Settings:
    """How :func:`check_files` judges, as its worker processes are told."""

    rules: Ruleset | None
    rule: str | None
    suicide_allowed: bool | None
    variations: bool
    scheme: str | KeyScheme
    columns: bool  # the compiled core's columns, where it replays a file


def _task_weight(task: Task) -> int:
    """A task's share of a group: the bytes of its source (of its file, as
    stored, for one read by the task), scaled so that a group of
    :data:`gohash.pipeline.pool.MAX_BATCH_BYTES` holds about
    :data:`COLUMNS_MAX_GROUP_BYTES` of records.  Columns cost some 80 times a
    file's bytes while a group is judged: memory stays bounded."""
    work = task[0]
    scale = MAX_BATCH_BYTES // max(COLUMNS_MAX_GROUP_BYTES, 1)
    if isinstance(work, Source):
        return len(work.data) * scale
    if isinstance(work, Input) and work.kind == "file":
        try:
            return os.stat(work.name).st_size * scale
        except (OSError, ValueError):  # gone: the task says so
            return 0
    return 0


def _check_tasks(tasks: list[Task], settings: _Settings) -> list[list[FileCheck]]:
    """The checks of each task's sources (those it reads, for an input by name),
    in order (in a worker process, or this one): runs of sources on columns,
    a group ending once it holds :data:`COLUMNS_MAX_GROUP_BYTES` (the visitor
    walks what the core leaves), or every source walked with the visitor."""
    checks: list[list[FileCheck]] = [[] for _ in tasks]
    group: list[Source] = []
    owners: list[int] = []  # the task of each source of the group
    data = 0

    def flush() -> None:
        nonlocal data
        for owner, check in zip(owners, _check_columns(group, settings), strict=True):
            checks[owner].append(check)
        group.clear()
        owners.clear()
        data = 0

    for task, (work, _) in enumerate(tasks):
        items = read_input(work) if isinstance(work, Input) else [] if work is None else [work]
        for item in items:
            if settings.columns and isinstance(item, Source):
                group.append(item)
                owners.append(task)
                data += len(item.data)
                if data >= COLUMNS_MAX_GROUP_BYTES:
                    flush()
                continue
            if group:
                flush()
            if isinstance(item, Source):
                checks[task].append(_walk_one(item, settings))
            elif isinstance(item, Skipped):
                checks[task].append(FileCheck(item.name, summary=WalkSummary(notes=[str(item)])))
            else:
                summary = WalkSummary()
                summary.keep_error(item)
                checks[task].append(FileCheck(item.file or "", [], [item], summary))
    if group:
        flush()
    return checks


def _check_columns(group: list[Source], settings: _Settings) -> list[FileCheck]:
    """The checks of files judged together on the core's columns, in order.

    A file's games may span batches, and from the first game the core leaves,
    the walker replays the rest of the file: the visitor walks that part."""
    assert isinstance(settings.scheme, str)
    game_rules = _GameRules(settings.rules, settings.rule, settings.suicide_allowed)
    checks: dict[int, FileCheck] = {}
    walked: set[int] = set()
    # read_positions() numbers the sources it is given from 0, in order.
    for batch in read_positions(
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
    # A source read_positions() has no batch entry for holds nothing to check.
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


def _died(died: WorkerDied) -> FileCheck:
    """The check of a file whose worker died on it twice: an error naming it."""
    name = died.file or ""
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
