"""A position index of SGF collections in SQLite: search up to symmetry, find duplicate games.

Scope: :class:`Index`, which holds an :class:`~gohash.index.store.IndexFile`
(the database: its schema, opening, building and upkeep) and adds the exact position
search with its filters and the continuations of a position (their
semantics and results are :mod:`gohash.index.queries`'s), reading an indexed game
again, and duplicate and prefix detection; and :func:`position_from_sgf`,
which takes a query position from a record.  The command line
(:mod:`gohash.cli.index`) only parses arguments and prints.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GohashError, UnknownGameError
from ..go.board import Board
from ..group.coords import check_position_array
from ..group.schemes import KeyScheme
from ..group.symmetry import ELEMENTS, Element
from ..pattern.diagram import Pattern
from ..pattern.match import Game, ever_bitmaps
from ..pattern.search import PatternQuery, PatternResult
from ..pipeline.frames import Board8, SchemeFactory, frame_and_elements, gathers, unpack_frames
from ..sgf.sources import find_inputs, read_input
from ..sgf.walk import BaseVisitor, GameInfo, PositionEvent, walk_source
from .check import OCCURRENCE_FAULT, damaged, frame_faults
from .players import OPENING_MOVES, PlayerSummary, opening_moves, summarize
from .queries import (
    RECORD_COLUMNS,
    ContinuationRow,
    Continuations,
    Filters,
    FindResult,
    GameRecord,
    QueryView,
    Record,
    game_order,
    merge_continuations,
    read_game,
    read_record,
)
from .records import sql_keys
from .store import BuildSummary, IndexFile, IndexInfo, Removed, database_errors

__all__ = [
    "DupeGroup",
    "Dupes",
    "Index",
    "Prefix",
    "position_from_sgf",
]


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class DupeGroup:
    """Records with the same sequence of positions up to symmetry; ``elements[i]``
    maps the last position of ``records[0]`` to that of ``records[i]``."""

    records: tuple[Record, ...]
    elements: tuple[Element, ...]
    positions: int

    def to_json(self) -> dict[str, Any]:
        """The group as JSON (docs/schemas.md, "Duplicates"): ``positions``, and its
        ``records`` (:meth:`Record.to_json`), each with its ``element``."""
        return {
            "positions": self.positions,
            "records": [{**r.to_json(), "element": g.name}
                        for r, g in zip(self.records, self.elements, strict=True)],
        }


@dataclass(frozen=True)
class Prefix:
    """Every record of ``shorter`` is a proper prefix of every record of ``longer``."""

    shorter: DupeGroup
    longer: DupeGroup


@dataclass
class Dupes:
    """What :meth:`Index.dupes` found: groups of the same game, and prefixes."""

    groups: list[DupeGroup]
    prefixes: list[Prefix]

    def to_json(self) -> dict[str, Any]:
        """The duplicates as JSON (docs/schemas.md, "Duplicates")."""
        return {
            "groups": [g.to_json() for g in self.groups],
            "prefixes": [{"shorter": p.shorter.to_json(), "longer": p.longer.to_json()}
                         for p in self.prefixes],
        }


class Index:
    """A gohash position index in an SQLite file, searched.

    The arguments open or create its :attr:`file` (an
    :class:`~gohash.index.store.IndexFile`, which documents them); building and
    upkeep are the file's, and are offered here too.  Use as a context manager,
    or call :meth:`close`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = False,
        scheme: str | SchemeFactory | None = None,
        variations: bool | None = None,
        read_only: bool = False,
    ) -> None:
        self.file = IndexFile(path, create=create, scheme=scheme, variations=variations,
                              read_only=read_only)
        self._db = self.file.connection

    @property
    def path(self) -> str:
        return self.file.path

    @property
    def variations(self) -> bool:
        return self.file.variations

    @property
    def scheme_name(self) -> str:
        return self.file.scheme_name

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def keys(self, size: int) -> KeyScheme:
        """The key scheme of the index for one board size."""
        return self.file.keys(size)

    def build(
        self,
        paths: Iterable[str],
        *,
        jobs: int = 1,
        files_per_commit: int | None = None,
        progress: Callable[[int, int], object] | None = None,
        suicide_allowed: bool | None = None,
    ) -> BuildSummary:
        """Index every SGF file of ``paths`` (:meth:`IndexFile.build
        <gohash.index.store.IndexFile.build>`)."""
        return self.file.build(paths, jobs=jobs, files_per_commit=files_per_commit,
                               progress=progress, suicide_allowed=suicide_allowed)

    def remove(self, paths: Iterable[str]) -> Removed:
        """Remove the files of ``paths`` (:meth:`IndexFile.remove
        <gohash.index.store.IndexFile.remove>`)."""
        return self.file.remove(paths)

    def info(self) -> IndexInfo:
        """What the index holds and how it was built (:class:`~gohash.index.store.IndexInfo`)."""
        return self.file.info()

    def counts(self) -> dict[str, int]:
        """Rows per table: files, games, positions (distinct), occurrences."""
        return self.file.counts()

    def sizes(self) -> dict[int, int]:
        """Games per board size."""
        return self.file.sizes()

    def check(self) -> list[str]:
        """Every fault of the index, one line each (:meth:`IndexFile.check
        <gohash.index.store.IndexFile.check>`)."""
        return self.file.check()

    # -- searching -----------------------------------------------------------------------------

    def _lookup(
        self, position: Board | npt.ArrayLike
    ) -> tuple[int, int, list[Element], int | None, int]:
        """The query's size, key, the elements mapping it onto its frame (lowest
        first), the id of its frame in the index (None: absent) and how many
        positions share its key with other stones."""
        arr = _position_array(position)
        keys = self.keys(arr.shape[0])
        key, frame, onto = frame_and_elements(arr, keys)
        rows = self._db.execute(
            "SELECT id, frame FROM positions WHERE key = ?", sql_keys(keys.from_ints([key]))
        ).fetchall()
        ids = [position_id for position_id, stored in rows if stored == frame]
        if len(ids) < len(rows):
            # Another position with this key is a collision only if its frame
            # gives the key: a damaged frame must not pass for one.
            self._check_frames(rows, key)
        return arr.shape[0], key, onto, (ids[0] if ids else None), len(rows) - len(ids)

    def _check_frames(self, rows: list[tuple[int, bytes]], key: int) -> None:
        keys = sql_keys(self.keys(19).from_ints([key]))
        faults = frame_faults([(i, keys[0], frame) for i, frame in rows],
                              lambda size: self.keys(size))
        if faults:
            position_id, reason = faults[0]
            raise damaged(self.path, f"position {position_id}: {reason}")

    def _check_occurrences(self, position_id: int, size: int) -> None:
        """Raise :class:`~gohash.errors.DamagedIndexError` if an occurrence of the
        position holds a value out of range (which a search would misread or fail on)."""
        fault = OCCURRENCE_FAULT.format(o="o", last_point="?")
        row = self._db.execute(
            f"SELECT o.game_id, o.seq, o.element, o.to_move, o.next_colour, o.next_point "
            f"FROM occurrences o WHERE o.position_id = ? AND {fault} LIMIT 1",
            (position_id, size * size - 1),
        ).fetchone()
        if row is not None:
            game_id, seq, *values = row
            raise damaged(self.path, f"game {game_id} seq {seq}: element, side to move, "
                                     f"next colour and point {tuple(values)!r} out of range")

    @staticmethod
    def _where(position_id: int, view: QueryView, filters: Filters | None) -> tuple[str, list[Any]]:
        """The condition on occurrences ``o`` and games ``g`` that picks the
        occurrences of the query seen through ``view`` in the games ``filters``
        let through."""
        matching, params = view.condition()
        where = f"o.position_id = ? AND {matching}"
        params = [position_id, *params]
        if filters is not None:
            condition, more = filters.sql("g")
            where += f" AND {condition}"
            params += more
        return where, params

    @database_errors
    def find(
        self,
        position: Board | npt.ArrayLike,
        *,
        colour_swap: bool = True,
        limit: int | None = 100,
        offset: int = 0,
        filters: Filters | None = None,
        to_move: str | None = None,
        order: str | None = None,
    ) -> FindResult:
        """Every occurrence of ``position`` (a Board or an (N, N) array) up to symmetry
        and, unless ``colour_swap`` is False, colour exchange; confirmed exactly.

        Occurrences come in index order (file, game, move), or by ``order``
        (:func:`~gohash.index.queries.game_order`: ``'date'``, ``'-rank'``, ...)
        and then in index order; ``limit`` (None: all) and ``offset`` page
        through them, and ``total`` counts them all.
        ``filters`` keep the games they let through (:class:`Filters`);
        ``to_move`` (``'b'``/``'w'``) the occurrences with that side to move,
        in the query's colours (None or ``'any'``: either side, whatever the
        query's; unlike :meth:`continuations`, which asks what the player to
        move plays, this asks where the stones stood).
        """
        sort = "" if order is None else game_order(order) + ", "
        size, key, onto, position_id, rejected = self._lookup(position)
        view = QueryView(onto, size, colour_swap=colour_swap, to_move=to_move)
        if position_id is None:
            return FindResult(key, 0, [], offset, limit, rejected)
        self._check_occurrences(position_id, size)
        where, params = self._where(position_id, view, filters)
        join = "JOIN games g ON g.id = o.game_id" if filters is not None else ""
        total = self._db.execute(
            f"SELECT count(*) FROM occurrences o {join} WHERE {where}", params
        ).fetchone()[0]
        matches = []
        for seq, move, stored, stored_to_move, next_colour, next_point, line, *record in (
            self._db.execute(
                f"SELECT o.seq, o.move, o.element, o.to_move, o.next_colour, o.next_point, "
                f"{_LINE}, {RECORD_COLUMNS} FROM occurrences o "
                f"JOIN games g ON g.id = o.game_id JOIN files f ON f.id = g.file_id "
                f"WHERE {where} ORDER BY {sort}o.game_id, o.seq LIMIT ? OFFSET ?",
                [*params, -1 if limit is None else limit, offset],
            )
        ):
            match = view.match(Record.from_row(record), move, seq, ELEMENTS[stored],
                               stored_to_move, next_colour, next_point)
            if line:
                match = replace(match, variation=tuple(int(i) for i in line.split(".")))
            matches.append(match)
        return FindResult(key, total, matches, offset, limit, rejected)

    @database_errors
    def continuations(
        self,
        position: Board | npt.ArrayLike,
        *,
        symmetry: str = "full",
        filters: Filters | None = None,
        to_move: str | None = None,
        limit: int | None = None,
    ) -> Continuations:
        """What was played next wherever ``position`` (a Board or an (N, N) array)
        occurred with the query's side to move, each move seen in the query's
        orientation and colours (:mod:`gohash.index.queries` says how), most played
        first.

        ``to_move`` is the side to move kept, in the query's colours: None (the
        default) the query's own, ``position.to_move`` for a Board (whose side
        to move is the record's in :func:`position_from_sgf`), either side for
        an array, which has none; ``'b'`` or ``'w'`` that side; ``'any'``
        either side.  ``symmetry`` ``"full"`` matches rotations, reflections
        and colour exchange, ``"d4"`` rotations and reflections only.
        ``filters`` keep the games they let through.  ``limit`` keeps the most
        played moves only (None: all); the counts cover all.
        """
        if symmetry not in ("full", "d4"):
            raise GohashError(f"symmetry {symmetry!r} is not 'full' or 'd4'")
        if to_move is None:
            to_move = position.to_move if isinstance(position, Board) else "any"
        size, key, onto, position_id, _ = self._lookup(position)
        view = QueryView(onto, size, colour_swap=symmetry == "full", to_move=to_move)
        if position_id is None:
            return merge_continuations([], key=key, view=view, limit=limit)
        self._check_occurrences(position_id, size)
        where, params = self._where(position_id, view, filters)
        rows = [
            ContinuationRow(colour, point, bool(swapped), *rest)
            for colour, point, swapped, *rest in self._db.execute(
                "SELECT o.next_colour, o.next_point, o.element >= 8, o.to_move, "
                "CAST(substr(g.date, 1, 4) AS INTEGER), count(*), "
                "coalesce(sum(g.winner = 'B'), 0), coalesce(sum(g.winner = 'W'), 0), "
                "min(g.date), max(g.date) "
                f"FROM occurrences o JOIN games g ON g.id = o.game_id WHERE {where} "
                "GROUP BY 1, 2, 3, 4, 5",
                params,
            )
        ]
        return merge_continuations(rows, key=key, view=view, limit=limit)

    @database_errors
    def pattern(
        self,
        diagram: str | Pattern,
        *,
        symmetry: str = "full",
        to_move: str | None = None,
        max_move: int | None = None,
        sequence: str | Sequence[tuple[str, str]] = (),
        filters: Filters | None = None,
        limit: int | None = 100,
        compiled: bool | None = None,
    ) -> PatternResult:
        """Every game of the pattern's board size where ``diagram`` (a pattern
        diagram, :func:`gohash.pattern.diagram.parse_pattern`) occurred on the
        main line, placed up to ``symmetry`` (``"full"``, ``"d4"``, ``"none"``),
        with the continuations in its region (:mod:`gohash.pattern.search`).

        ``to_move`` (``'b'``, ``'w'``, in the query's colours; None or
        ``'any'``: either), ``max_move`` and ``sequence`` restrict the hits
        (:class:`~gohash.pattern.search.PatternQuery`); ``filters`` the games.
        ``limit`` keeps the first matches in index order (None: all); the
        counts and continuations cover all.  ``compiled`` picks the kernel
        (None: the compiled one where built).  Only games whose points ever
        black and ever white hold some placement's stones are replayed (the
        games table's ``ever_black``, ``ever_white`` bitmaps where it has
        them, :func:`gohash.pattern.match.bitmap`'s bits as little-endian
        bytes; else computed from the game's boards), and every hit is
        confirmed on the exact board.
        """
        query = PatternQuery(diagram, symmetry=symmetry, to_move=to_move, max_move=max_move,
                             sequence=sequence)
        # A game whose root was in error has no positions: nothing to search.
        where, params = "g.size = ? AND g.positions > 0", [query.size]
        if filters is not None:
            condition, more = filters.sql("g")
            where += f" AND {condition}"
            params += more
        # Bitmaps stored with the games filter before a game is read; without
        # them, they are computed from its boards.
        stored = {row[1] for row in self._db.execute("PRAGMA table_info(games)")} >= {
            "ever_black", "ever_white"}
        bitmaps = ", g.ever_black, g.ever_white" if stored else ", NULL, NULL"
        rows = self._db.execute(
            f"SELECT {RECORD_COLUMNS}, g.positions{bitmaps} FROM games g "
            f"JOIN files f ON f.id = g.file_id WHERE {where} ORDER BY g.id", params,
        ).fetchall()
        matches = []
        candidates = 0
        for *columns, positions, ever_black, ever_white in rows:
            record = Record.from_row(columns)
            if ever_black is not None and ever_white is not None and not query.candidate(
                    int.from_bytes(ever_black, "little"), int.from_bytes(ever_white, "little")):
                continue
            game = _game_boards(self._db, self.path, record.id, record.size, positions)
            if (ever_black is None or ever_white is None) and not query.candidate(
                    *ever_bitmaps(game.boards, record.size)):
                continue
            candidates += 1
            matches += query.matches(record, game, compiled=compiled)
        return query.result(matches, searched=len(rows), candidates=candidates, limit=limit)

    @database_errors
    def game(self, game_id: int) -> GameRecord:
        """A game of the index read again from its file, for a viewer: its record,
        its root text and every position of its main line as indexed.

        The file is read from its path as indexed (relative paths are tried from
        the current folder, then from the index's); it must be unchanged (the
        same SHA-256), and the game replays to the same positions, with the
        suicide rule of its build, or this raises :class:`GohashError`.
        """
        record, file_sha, suicide, game_sha = self._stored(game_id)
        return read_game(
            record, file_sha=file_sha, game_sha=game_sha,
            suicide_allowed=None if suicide is None else bool(suicide),
            folders=[os.path.dirname(os.path.abspath(self.path))],
        )

    @database_errors
    def sgf(self, game_id: int) -> str:
        """A game of the index as an SGF record of its own, for download: the game
        as recorded, decoded (:func:`gohash.sgf.extract.game_record`).

        It is read again from its file as :meth:`game` reads it: a game id the
        index does not hold raises :class:`~gohash.errors.UnknownGameError`, a
        file no longer there :class:`~gohash.errors.SourceGoneError`, a file
        that changed :class:`GohashError`.
        """
        record, file_sha, _, _ = self._stored(game_id)
        return read_record(record, file_sha=file_sha,
                           folders=[os.path.dirname(os.path.abspath(self.path))])

    def _stored(self, game_id: int) -> tuple[Record, str, int | None, str]:
        """A game's record, its file's SHA-256 and suicide rule, and its own digest."""
        row = self._db.execute(
            f"SELECT {RECORD_COLUMNS}, f.sha256, f.suicide, g.sha256 FROM games g "
            "JOIN files f ON f.id = g.file_id WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise UnknownGameError(f"the index has no game with id {game_id!r}", file=self.path)
        file_sha, suicide, game_sha = row[-3:]
        return Record.from_row(row[:-3]), file_sha, suicide, game_sha

    @database_errors
    def player(
        self, name: str, *, opening_length: int = OPENING_MOVES, openings: int | None = 10,
        order: str = "-date",
    ) -> PlayerSummary:
        """The games of the player called ``name`` (exactly, as recorded, either
        colour), their results by colour and year, and their ``openings`` most
        played openings of ``opening_length`` moves up to rotation and reflection
        (:class:`~gohash.index.players.PlayerSummary`; None: every opening).
        The games come by ``order`` (:func:`~gohash.index.queries.game_order`),
        then in index order."""
        if opening_length < 1:
            raise GohashError(f"opening_length must be at least 1, not {opening_length}")
        records = [
            Record.from_row(row) for row in self._db.execute(
                f"SELECT {RECORD_COLUMNS} FROM games g JOIN files f ON f.id = g.file_id "
                f"WHERE g.black = ?1 OR g.white = ?1 ORDER BY {game_order(order)}, g.id",
                (name,),
            )
        ]
        sizes = {record.id: record.size for record in records}
        empty = {size: self._lookup(np.zeros((size, size), dtype=np.int8))[3]
                 for size in set(sizes.values())}
        stored: dict[int, list[tuple[int, int, int]]] = {}
        starts: dict[int, int] = {}
        # The main line's first positions (an index with variations holds them first).
        for game_id, seq, position_id, element, colour, point in self._db.execute(
            "SELECT o.game_id, o.seq, o.position_id, o.element, o.next_colour, o.next_point "
            "FROM occurrences o JOIN games g ON g.id = o.game_id "
            "WHERE (g.black = ?1 OR g.white = ?1) AND o.seq < ?2 AND o.seq < g.positions "
            "ORDER BY o.game_id, o.seq",
            (name, opening_length),
        ):
            if seq == 0:
                starts[game_id] = position_id
            stored.setdefault(game_id, []).append((element, colour, point))
        found = {}
        for game_id, moves in stored.items():
            if len(moves) != opening_length or starts.get(game_id) != empty[sizes[game_id]]:
                continue
            opening = opening_moves(moves, sizes[game_id])
            if opening is not None:
                found[game_id] = opening
        return summarize(name, records, found, opening_length=opening_length, limit=openings)

    # -- duplicates ----------------------------------------------------------------------------

    @database_errors
    def records(self) -> dict[int, Record]:
        """Every game record, by id."""
        return {
            row[0]: Record.from_row(row)
            for row in self._db.execute(
                f"SELECT {RECORD_COLUMNS} FROM games g JOIN files f ON f.id = g.file_id"
            )
        }

    @database_errors
    def dupes(self, *, min_positions: int = 10) -> Dupes:
        """Groups of records with the same sequence of positions up to symmetry and
        colour exchange, and groups whose sequence is a proper prefix of another's.

        Records with fewer than ``min_positions`` positions are left out: every
        game starts from the same few positions.  Main lines only are compared.
        """
        sequences: dict[int, list[int]] = {}
        last_element: dict[int, int] = {}
        main_lines = (
            "SELECT o.game_id, o.position_id, o.element FROM occurrences o "
            "JOIN games g ON g.id = o.game_id WHERE o.seq < g.positions "
            "ORDER BY o.game_id, o.seq"
            if self.variations
            else "SELECT game_id, position_id, element FROM occurrences ORDER BY game_id, seq"
        )
        for game_id, position_id, stored_element in self._db.execute(main_lines):
            if stored_element not in _ELEMENT_INDEXES:
                raise damaged(self.path, f"game {game_id}: element {stored_element!r} is "
                                         "not 0..15")
            sequences.setdefault(game_id, []).append(position_id)
            last_element[game_id] = stored_element
        by_sequence: dict[tuple[int, ...], list[int]] = {}
        for game_id, sequence in sequences.items():
            if len(sequence) >= min_positions:
                by_sequence.setdefault(tuple(sequence), []).append(game_id)
        records = self.records()

        def group(game_ids: list[int], length: int) -> DupeGroup:
            first = ELEMENTS[last_element[game_ids[0]]]
            return DupeGroup(
                tuple(records[g] for g in game_ids),
                tuple(ELEMENTS[last_element[g]].inverse.compose(first) for g in game_ids),
                length,
            )

        groups = {seq: group(ids, len(seq)) for seq, ids in sorted(by_sequence.items(),
                                                                   key=lambda kv: kv[1][0])}
        prefixes = []
        # In lexicographic order a sequence follows its prefixes, with only
        # sequences that also extend them in between: a stack finds the longest.
        stack: list[tuple[int, ...]] = []
        for seq in sorted(by_sequence):
            while stack and seq[: len(stack[-1])] != stack[-1]:
                stack.pop()
            if stack:
                prefixes.append(Prefix(groups[stack[-1]], groups[seq]))
            stack.append(seq)
        prefixes.sort(key=lambda p: (p.shorter.records[0].id, p.longer.records[0].id))
        return Dupes([g for g in groups.values() if len(g.records) > 1], prefixes)


_ELEMENT_INDEXES = frozenset(range(len(ELEMENTS)))
# The path of the variation holding occurrence o ('' on the main line): that of
# the latest variation run starting at or before it.
_LINE = (
    "CASE WHEN o.seq < g.positions THEN '' ELSE (SELECT v.path FROM variations v "
    "WHERE v.game_id = o.game_id AND v.seq <= o.seq ORDER BY v.seq DESC LIMIT 1) END"
)


def _game_boards(db: sqlite3.Connection, path: str, game_id: int, size: int,
                 positions: int) -> Game:
    """The main line of game ``game_id`` as :class:`~gohash.pattern.match.Game`
    boards, from its occurrences' frames (each mapped back by the inverse of
    its element): the one place pattern search reads positions from the index."""
    rows = db.execute(
        "SELECT o.move, o.element, o.to_move, o.next_colour, coalesce(o.next_point, -1), "
        "p.frame FROM occurrences o JOIN positions p ON p.id = o.position_id "
        "WHERE o.game_id = ? AND o.seq < ? ORDER BY o.seq", (game_id, positions),
    ).fetchall()
    count, n = len(rows), size * size
    if count != positions or count == 0:
        raise damaged(path, f"game {game_id}: {count} of {positions} main-line positions")
    moves, stored, to_move, colours, points, frames = zip(*rows, strict=True)
    elements = np.array(stored, dtype=np.intp)
    if elements.min() < 0 or elements.max() > 15:
        raise damaged(path, f"game {game_id}: an element out of 0..15")
    flat = unpack_frames(b"".join(frames), count, size).reshape(-1)
    # Each frame mapped back by the inverse of its element, colours exchanged
    # back where it exchanges them.
    table = gathers(size)[_INVERSES[elements]] + (np.arange(count) * n)[:, np.newaxis]
    boards = flat[table]
    if boards.max() > 2:
        raise damaged(path, f"game {game_id}: a frame holds a point value 3")
    swapped = elements >= 8
    boards[swapped] = _SWAP_COLOURS[boards[swapped]]
    # A next point is stored in the frame's orientation: gathers[e][frame
    # point] is that point on the board (the inverse of e's permutation).
    at = np.array(points, dtype=np.intp)
    on_board = at >= 0
    at[on_board] = gathers(size)[elements[on_board], at[on_board]]
    return Game(boards, np.array(moves, dtype=np.int32), np.array(to_move, dtype=np.int8),
                np.array(colours, dtype=np.int8), at.astype(np.int32))


_INVERSES = np.array([g.inverse.index for g in ELEMENTS], dtype=np.intp)
_SWAP_COLOURS = np.array([0, 2, 1], dtype=np.int8)


def _position_array(position: Board | npt.ArrayLike) -> Board8:
    if isinstance(position, Board):
        return position.to_array()
    # Not checked: that every group has a liberty; such a position is never found.
    return check_position_array(position, batch=False).astype(np.int8)


# -- query positions from records --------------------------------------------------------------


class _PositionPicker(BaseVisitor):
    def __init__(self, game: int, move: int | None) -> None:
        self.game = game
        self.move = move
        self.found: tuple[bytes, str] | None = None
        self.last_move = -1
        self.games = 0
        self.error: GohashError | None = None

    def begin_game(self, info: GameInfo) -> None:
        self.games += 1

    def visit_position(self, event: PositionEvent) -> None:
        if event.game == self.game:
            self.last_move = event.move_number
            if self.move is None or event.move_number == self.move:
                self.found = event.board.position_key(), event.board.to_move

    def handle_error(self, error: GohashError) -> bool:
        if error.game is None or error.game == self.game:
            self.error = self.error or error
        return False


def position_from_sgf(
    path: str, move: int | None = None, *, game: int = 0, suicide_allowed: bool | None = None
) -> Board:
    """The position of game ``game`` of an SGF file (``-``: standard input) on its main
    line after move ``move`` (None: the last), setup included; suicide allowed as
    ``suicide_allowed`` says, or the game's ``RU`` if None.  The board has no
    history; its side to move is the record's there, as an index stores it:
    Black at first, then the opponent of the last mover."""
    picker = _PositionPicker(game, move)
    options = {} if suicide_allowed is None else {"suicide_allowed": suicide_allowed}
    for inp in find_inputs([path]):
        for source in read_input(inp):
            if isinstance(source, GohashError):
                raise source
            walk_source(source, picker, board_options=options)
    if picker.found is None or (move is not None and move > picker.last_move):
        if picker.error is not None:
            raise picker.error
        if picker.last_move < 0:
            raise GohashError(f"{path!r} has no game {game} (it has {picker.games})", file=path)
        raise GohashError(
            f"move {move!r} is beyond the end of the main line (move {picker.last_move})",
            file=path, game=game,
        )
    key, to_move = picker.found
    return Board.from_array(Board.from_position_key(key).to_array(), to_move=to_move)
