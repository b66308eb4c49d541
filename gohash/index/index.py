"""A position index of SGF collections in SQLite: search up to symmetry, find duplicate games.

Scope: :class:`Index`, which holds an :class:`~gohash.index.store.IndexFile`
(the database: its schema, opening, building and upkeep) and adds the exact position
search with its filters and the continuations of a position (their
semantics and results are :mod:`gohash.index.view`'s and
:mod:`gohash.index.results`'s), rebuilding an indexed
game from its stored form, and duplicate and prefix detection; and
:func:`position_from_sgf`, which takes a query position from a record.  The
command line (:mod:`gohash.cli.index`) only parses arguments and prints.

Exactness: a search reads the postings of the query's key (48 bits of it),
replays each game they name once, as far as they ask, and keeps a posting
only if the game's position there is one of the query's 16 images; the
element, the side to move and the next move come from that replay.  Dupes
compare the games' key sequences, then the candidates' exact frames.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _native
from .._deprecated import deprecated
from ..errors import GohashError, OptionError, StoredGameError, UnknownGameError
from ..go.board import Board
from ..group.coords import check_position_array
from ..group.schemes import KeyScheme
from ..group.symmetry import ELEMENTS, Element
from ..metadata import STORED
from ..pattern.diagram import Pattern
from ..pattern.match import Found, Game
from ..pattern.search import THREADS, PatternQuery, PatternResult
from ..pattern.store import GameStore
from ..pipeline.frames import (
    Board8,
    SchemeFactory,
    frame_array_and_elements,
    frame_batch,
)
from ..sgf.extract import main_line_comments
from ..sgf.sources import find_inputs, read_input, source_again
from ..sgf.walk import BaseVisitor, GameInfo, PositionEvent, walk_source
from .aggregates import aggregate_rows
from .dupes import Dupes, dupe_candidates, group_dupes, last_positions, position_holders
from .export import download_name, game_sgf, read_record
from .filters import Filters, game_order
from .games import REPLAY_COLUMNS, Replayed, posting_key, replay_boards
from .occurrences import Hits, confirm, read_games, setup_rows
from .patterns import pattern_faults, pattern_path, pattern_store
from .players import (
    CORNER_MOVES,
    OPENING_MOVES,
    PlayerMatch,
    PlayerSummary,
    corner_patterns,
    opening_moves,
    summarize,
)
from .postings import live_postings
from .results import RECORD_COLUMNS, Continuations, FindResult, GamePosition, GameRecord, Record
from .store import BuildSummary, IndexFile, IndexInfo, Removed, database_errors
from .values import damaged, require
from .view import SETUP, ContinuationRow, QueryView, merge_continuations

__all__ = [
    "QUERY_SYMMETRIES",
    "Index",
    "position_from_sgf",
]


QUERY_SYMMETRIES = ("full", "d4")
"""The values of ``symmetry`` in :meth:`Index.find` and :meth:`Index.continuations`:
rotations, reflections and colour exchange, or rotations and reflections only
(:meth:`Index.pattern` also takes ``"none"``, :data:`gohash.pattern.diagram.SYMMETRIES`)."""



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
        # Pattern search's games of each board size, and the version they were read at.
        self._stores: dict[int, tuple[tuple[int, int], GameStore]] = {}

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
        """Files, games, positions (distinct posting keys) and occurrences (postings)."""
        return self.file.counts()

    def sizes(self) -> dict[int, int]:
        """Games per board size."""
        return self.file.sizes()

    def check(self) -> list[str]:
        """Every fault of the index, one line each (:meth:`IndexFile.check
        <gohash.index.store.IndexFile.check>`), and of its pattern files
        (:func:`~gohash.index.patterns.pattern_faults`)."""
        return self.file.check() + pattern_faults(self._db, self.path)

    @database_errors
    def version(self) -> tuple[int, int]:
        """A value that changes whenever the index does: SQLite's ``data_version``
        (commits of other connections, other processes' included) and this
        connection's ``total_changes`` (its own)."""
        return self._db.execute("PRAGMA data_version").fetchone()[0], self._db.total_changes

    # -- searching -----------------------------------------------------------------------------

    def _lookup(
        self, position: Board | npt.ArrayLike, filters: Filters | None,
        columns: str = "",
    ) -> tuple[int, int, list[Element], Hits]:
        """The query's size, key, the elements mapping it onto its frame (lowest
        first), and its confirmed occurrences in the games ``filters`` let
        through (with ``columns`` of their games, ``g``)."""
        size, key, frame, onto = self._frame(position)
        return size, key, onto, self._occurrences(size, key, frame, filters, columns)

    def _frame(self, position: Board | npt.ArrayLike) -> tuple[int, int, Board8, list[Element]]:
        """The query's size, canonical key, frame, and the elements mapping it onto
        its frame (lowest first)."""
        arr = _position_array(position)
        key, frame, onto = frame_array_and_elements(arr, self.keys(arr.shape[0]))
        return arr.shape[0], key, frame, onto

    def _occurrences(
        self, size: int, key: int, frame: Board8, filters: Filters | None, columns: str
    ) -> Hits:
        """The confirmed occurrences of ``frame`` (of canonical ``key``) in the games
        ``filters`` let through, with ``columns`` of their games."""
        condition, params = filters.sql("g") if filters is not None else ("1", [])
        wanted = posting_key(key, self.keys(size).bits, size)
        postings = live_postings(self._db, self.file.postings, wanted,
                                 condition=condition, params=params)
        games = self._games(sorted({game_id for game_id, _ in postings}), columns)
        postings = [p for p in postings if p[0] in games]  # a game removed meanwhile
        # A posting of another size is a key that collides: other stones.
        sizes = {games[game_id][0] for game_id, _ in postings}
        try:
            hits = confirm([p for p in postings if games[p[0]][0] == size], games, size, frame)
        except GohashError as e:
            raise damaged(self.path, e.reason) from None
        hits.rejected += len(sizes - {size})
        return hits

    def _games(self, game_ids: list[int], columns: str) -> dict[int, tuple[Any, ...]]:
        """:func:`~gohash.index.occurrences.read_games` of this index."""
        return read_games(self._db, game_ids, columns)

    @database_errors
    def find(
        self,
        position: Board | npt.ArrayLike,
        *,
        symmetry: str = "full",
        limit: int | None = 100,
        offset: int = 0,
        filters: Filters | None = None,
        to_move: str | None = None,
        order: str | None = None,
        colour_swap: bool | None = None,
    ) -> FindResult:
        """Every occurrence of ``position`` (a Board or an (N, N) array) up to
        ``symmetry`` (:data:`SYMMETRIES`: ``"full"`` rotations, reflections and colour
        exchange, ``"d4"`` rotations and reflections only); confirmed exactly.

        Occurrences come in index order (file, game, move), or by ``order``
        (:func:`~gohash.index.filters.game_order`: ``'date'``, ``'-rank'``, ...)
        and then in index order; ``limit`` (None: all) and ``offset`` page
        through them, and ``total`` counts them all.
        ``filters`` keep the games they let through (:class:`Filters`);
        ``to_move`` (``'b'``/``'w'``) the occurrences with that side to move,
        in the query's colours (None or ``'any'``: either side; ``'query'``: the
        query's, a Board's ``to_move``).  ``colour_swap`` is deprecated:
        ``symmetry="d4"`` for False.

        >>> import os, tempfile
        >>> from gohash import Index, element, position_from_sgf
        >>> index = Index(os.path.join(tempfile.mkdtemp(), "games.db"), create=True)
        >>> print(index.build(["data/sgf/game-9x9.sgf", "data/sgf/game-13x13.sgf"]))
        2 files indexed (0 replaced), 0 unchanged; 2 games, 196 positions; 0 errors
        >>> query = position_from_sgf("data/sgf/game-9x9.sgf", move=4)
        >>> turned = element("rot90_swap").image_array(query.to_array())
        >>> found = index.find(turned)   # rotated, colours exchanged: found all the same
        >>> [(m.record.file, m.move_number, m.element.name) for m in found.matches]
        [('data/sgf/game-9x9.sgf', 4, 'rot270_swap')]
        >>> index.find(turned, symmetry="d4").total
        0
        >>> index.close()
        """
        if colour_swap is not None:
            deprecated("colour_swap=", 'symmetry= ("full" for True, "d4" for False)',
                       "Index.find", depth=2)
            symmetry = "full" if colour_swap else "d4"
        OptionError.check("symmetry", symmetry, QUERY_SYMMETRIES)
        to_move = _side(position, to_move)
        size, key, onto, hits = self._lookup(position, filters)
        view = QueryView(onto, size, colour_swap=symmetry == "full", to_move=to_move)
        allowed = {(sw, tm): view.matches(sw, tm) for sw in (False, True) for tm in (1, 2)}
        keep = [i for i in range(len(hits))
                if allowed[bool(hits.element[i] >= 8), int(hits.to_move[i])]]
        if order is not None:
            keep = self._ordered(keep, hits.game_id, order)
        page = keep[offset:] if limit is None else keep[offset : offset + limit]
        # The records of the page's games only (the others' are never shown).
        records = self._records(sorted({hits.game_id[i] for i in page}))
        lines = self._lines([(hits.game_id[i], int(hits.seq[i])) for i in page
                             if hits.seq[i] >= hits.games[hits.game_id[i]][2]])
        matches = []
        for i in page:
            game_id = hits.game_id[i]
            seq = int(hits.seq[i])
            colour = int(hits.next_colour[i])
            match = view.match(records[game_id], int(hits.move_number[i]), seq,
                               ELEMENTS[int(hits.element[i])], int(hits.to_move[i]), colour,
                               int(hits.next_point[i]) if colour else None)
            line = lines.get((game_id, seq))
            if line:
                match = replace(match, variation=tuple(int(x) for x in line.split(".")))
            matches.append(match)
        return FindResult(key, len(keep), matches, offset, limit, hits.rejected,
                          self.keys(size).bits)

    def _ordered(self, hits: list[int], game_ids: Sequence[int], order: str) -> list[int]:
        """``hits`` (indexes into ``game_ids``) with their games in ``order``
        (:func:`~gohash.index.filters.game_order`), each game's in index order."""
        wanted = sorted({int(game_ids[i]) for i in hits})
        rank = {game_id: n for n, (game_id,) in enumerate(self._db.execute(
            f"SELECT g.id FROM games g WHERE g.id IN (SELECT value FROM json_each(?)) "
            f"ORDER BY {game_order(order)}, g.id", (json.dumps(wanted),)))}
        return sorted(hits, key=lambda i: (rank[int(game_ids[i])], i))

    def _lines(self, nodes: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
        """The path of the variation holding each node off its main line: that of
        the latest variation run starting at or before it."""
        out = {}
        for game_id, seq in nodes:
            require(self._db, "variations", "game_id = ? AND seq <= ?", (game_id, seq))
            row = self._db.execute(
                "SELECT path FROM variations WHERE game_id = ? AND seq <= ? "
                "ORDER BY seq DESC LIMIT 1", (game_id, seq),
            ).fetchone()
            out[game_id, seq] = "" if row is None else row[0]
        return out

    @database_errors
    def continuations(
        self,
        position: Board | npt.ArrayLike,
        *,
        symmetry: str = "full",
        filters: Filters | None = None,
        to_move: str | None = "query",
        limit: int | None = None,
        setup: str = "exclude",
    ) -> Continuations:
        """What was played next wherever ``position`` (a Board or an (N, N) array)
        occurred with the query's side to move, each move seen in the query's
        orientation and colours (:mod:`gohash.index.view` says how), most played
        first.

        ``to_move`` is the side to move kept, in the query's colours: ``'query'``
        (the default) the query's own, ``position.to_move`` for a Board (whose
        side to move is the record's in :func:`position_from_sgf`), either side
        for an array, which has none; ``'b'`` or ``'w'`` that side; ``'any'``
        either side.  None means ``'query'`` here for one more release, with a
        :class:`DeprecationWarning` (elsewhere, and then here, it is ``'any'``).
        ``symmetry`` as in :meth:`find`.
        ``filters`` keep the games they let through.  ``limit`` keeps the most
        played moves only (None: all); the counts cover all.

        ``setup`` (:data:`~gohash.index.view.SETUP`) says what to do with
        the occurrences setup made or ended: the position set up (a handicap's
        stones, any setup node's) or left by setup (the position before a
        setup node, such as the empty board of a game whose handicap stones
        come in its second node), which no one played through: ``"exclude"``
        (the default) leaves them out and counts them in
        :attr:`~gohash.index.results.Continuations.setup_left_out`,
        ``"include"`` counts them with the others, ``"only"`` keeps them alone.
        """
        OptionError.check("symmetry", symmetry, QUERY_SYMMETRIES)
        OptionError.check("setup", setup, SETUP)
        if to_move is None:
            deprecated("to_move=None (the query's side)", "to_move='query'",
                       "Index.continuations", depth=2)
            to_move = "query"
        to_move = _side(position, to_move)
        size, key, frame, onto = self._frame(position)
        view = QueryView(onto, size, colour_swap=symmetry == "full", to_move=to_move)
        allowed = np.array([view.matches(sw, tm) for sw in (False, True) for tm in (1, 2)])
        kept = None if filters is not None else self._aggregated(size, key, frame, setup)
        if kept is None:
            kept = self._recounted(size, key, frame, filters, allowed, setup)
        else:
            rows, other = (
                [row for row in part if allowed[row.swapped * 2 + row.to_move - 1]]
                for part in kept)
            kept = rows, other
        rows, other = kept
        found = merge_continuations(rows, key=key, bits=self.keys(size).bits, view=view,
                                    limit=limit)
        found.setup, found.setup_left_out = setup, sum(row.count for row in other)
        return found

    def _aggregated(self, size: int, key: int, frame: Board8, setup: str
                    ) -> tuple[list[ContinuationRow], list[ContinuationRow]] | None:
        """The continuation rows of the occurrences of ``frame`` that ``setup``
        keeps, and of those it leaves out, as the index keeps them
        (:mod:`gohash.index.aggregates`); None if it keeps none for it."""
        return aggregate_rows(self._db, posting_key(key, self.keys(size).bits, size), size,
                              frame, setup)

    def _recounted(
        self, size: int, key: int, frame: Board8, filters: Filters | None,
        allowed: npt.NDArray[np.bool_], setup: str,
    ) -> tuple[list[ContinuationRow], list[ContinuationRow]]:
        """The continuation rows of the occurrences of ``frame`` that ``filters``
        let through, of the kinds ``allowed``, those ``setup`` keeps and those it
        leaves out: each game replayed."""
        hits = self._occurrences(size, key, frame, filters, ", g.winner, g.date")
        return setup_rows(hits, allowed, setup)

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
        offset: int = 0,
        pure: bool | None = None,
        timeout: float | None = None,
        cancel: threading.Event | None = None,
        compiled: bool | None = None,
    ) -> PatternResult[Record]:
        """Every game of the pattern's board size where ``diagram`` (a pattern
        diagram, :func:`gohash.pattern.diagram.parse_pattern`) occurred on the
        main line, placed up to ``symmetry`` (``"full"``, ``"d4"``, ``"none"``),
        with the continuations in its region (:mod:`gohash.pattern.search`).

        ``to_move`` (``'b'``, ``'w'``, in the query's colours; None or
        ``'any'``: either), ``max_move`` and ``sequence`` restrict the hits
        (:class:`~gohash.pattern.search.PatternQuery`); ``filters`` the games.
        ``limit`` keeps that many matches in index order (None: all) from the
        ``offset``-th (0: the first); the counts and continuations cover all.
        ``pure`` picks the scan (:func:`gohash._native.use_compiled`: None the
        compiled kernel where built unless ``GOHASH_PURE=1``; ``compiled`` is
        its deprecated negation).  ``timeout`` (seconds, None: none) bounds the
        search: past it, :class:`~gohash.errors.QueryTooBroad` says how far it
        got; ``cancel``, once set, stops it with
        :class:`~gohash.errors.QueryCancelled`.

        The games are read from the pattern file beside the index
        (:func:`~gohash.index.patterns.pattern_store`: each main line replayed
        once, written when games are added, memory-mapped), kept while the
        index is unchanged; the inverted filter of the games' ever bitmaps
        picks the candidates, which are scanned in chunks
        (:meth:`~gohash.pattern.search.PatternQuery.search`) by the compiled
        kernel, or else one by one by the pure replay and matcher
        (:func:`~gohash.index.games.replay_pure`,
        :func:`~gohash.pattern.match.match_python`), the scan's twin.  Every
        hit is confirmed on the exact board.

        >>> import os, tempfile
        >>> from gohash import Index
        >>> index = Index(os.path.join(tempfile.mkdtemp(), "games.db"), create=True)
        >>> print(index.build(["data/sgf/game-9x9.sgf", "data/sgf/game-13x13.sgf"]))
        2 files indexed (0 replaced), 0 unchanged; 2 games, 196 positions; 0 errors
        >>> outside = "-" * 9   # a row outside the pattern
        >>> edge = [outside] * 4 + ["-------..", "-------OX", "-------.."] + [outside] * 2
        >>> found = index.pattern("\\n".join(edge))   # 9x9 games, up to symmetry
        >>> found.total, found.placements
        (1, 40)
        >>> match = found.matches[0]
        >>> match.record.file, match.move_number, match.continuation
        ('data/sgf/game-9x9.sgf', 4, ('b', (2, 8)))
        >>> index.close()
        """
        query = PatternQuery(diagram, symmetry=symmetry, to_move=to_move, max_move=max_move,
                             sequence=sequence)
        store = self._game_store(query.size)
        selected = store.live.copy()
        if filters is not None:
            condition, params = filters.sql("g")
            kept = [row[0] for row in self._db.execute(
                f"SELECT g.id FROM games g JOIN files f ON f.id = g.file_id WHERE g.size = ? "
                f"AND {condition}", [query.size, *params])]
            selected &= np.isin(store.ids, kept)
        pure = _native.pure_from_compiled(compiled, pure, "Index.pattern", depth=2)
        compiled = _native.use_compiled(pure, _native.match)
        scan = None if compiled else (lambda games: self._scan_pure(query, store, games))
        try:
            return query.search(store, selected, records=self._records, twin=scan, limit=limit,
                                offset=offset, timeout=timeout, cancel=cancel,
                                threads=THREADS if compiled else 1)
        except StoredGameError as e:  # a value of the file the kernel met
            where, reason = f"game {int(store.ids[e.index])}: ", e.reason
        except ValueError as e:
            if isinstance(e, GohashError):
                raise
            where, reason = "", str(e)  # a shape the kernel refused
        raise damaged(self.path, f"{where}its pattern file "
                                 f"{pattern_path(self.path, query.size)!r} is damaged "
                                 f"({reason}); delete it and the next search rebuilds it")

    def _scan_pure(self, query: PatternQuery, store: GameStore, games: npt.NDArray[np.int64]
                   ) -> Found:
        """:meth:`Matcher.scan <gohash.pattern.match.Matcher.scan>`'s twin: each game
        of ``games`` (store numbers) read from the index, replayed into its
        boards by the pure replay (:meth:`_replay`) and matched by the pure
        matcher."""
        parts = []
        rows = self._games(store.ids[games].tolist(), "")
        for g in games.tolist():
            _, nodes, positions, blob = rows[int(store.ids[g])]
            replayed = self._replay(int(store.ids[g]), blob, store.size, nodes, positions - 1,
                                    pure=True)
            game = _game_boards(replayed, positions)
            found = Found.of(query.matcher.match(game, pure=True), game)
            parts.append(replace(found, game=np.full(len(found.game), g, dtype=np.int32)))
        return Found.concatenate(parts)

    def _game_store(self, size: int) -> GameStore:
        """The games of ``size`` with a position, as pattern search scans them
        (:func:`~gohash.index.patterns.pattern_store`): read once and kept while
        the index is unchanged (:meth:`version`)."""
        version = self.version()
        kept = self._stores.get(size)
        if kept is not None and kept[0] == version:
            return kept[1]
        # Every game of the size and its file: the filters read any column.
        self._require_games("size = ?", (size,))
        store = pattern_store(self._db, self.path, size)
        self._stores[size] = (version, store)
        return store

    def _require_games(self, where: str, params: Sequence[object]) -> None:
        """Raise :class:`~gohash.errors.DamagedIndexError` if a game ``where``
        selects, or its file, holds a value out of its type or range
        (:func:`~gohash.index.values.require`)."""
        require(self._db, "games", where, params)
        require(self._db, "files", f"id IN (SELECT file_id FROM games WHERE {where})", params)

    def _records(self, game_ids: list[int]) -> dict[int, Record]:
        """The records of ``game_ids``, by id."""
        return {game_id: Record.from_row(row[4:])
                for game_id, row in self._games(game_ids, f", {RECORD_COLUMNS}").items()}

    @database_errors
    def game(self, game_id: int) -> GameRecord:
        """A game of the index rebuilt from its stored form, for a viewer: its
        record, its root text (from the games table's columns) and every
        position of its main line as indexed.  The source file is not needed:
        the comments (``C``) are read from it when it is there unchanged, and
        are left out otherwise."""
        record, file_sha, nodes, main, blob = self._stored(game_id)
        replayed = self._replay(game_id, blob, record.size, nodes, main - 1)
        try:
            source = source_again(record.file, file_sha, self._folders())
            comments = main_line_comments(source.data, record.file, record.game)
        except GohashError:  # the file is gone or changed, or read leniently
            comments = []
        return GameRecord(record, _root_text(record), [
            GamePosition(
                int(replayed.move_number[i]),
                {0: None, 1: "b", 2: "w"}[int(replayed.colour[i])],
                None if replayed.point[i] < 0 else divmod(int(replayed.point[i]), record.size),
                bool(replayed.setup[i]) if i else bool(replayed.boards[0].any()),
                replayed.boards[i].reshape(record.size, record.size),
            )
            for i in range(main)
        ], comments if len(comments) == main else [])

    @database_errors
    def sgf(self, game_id: int) -> str:
        """A game of the index as an SGF record of its own, for download: the game
        as recorded, decoded (:func:`gohash.sgf.extract.game_record`), when its
        file is there unchanged; otherwise the game rebuilt from the index
        (:func:`gohash.index.export.game_sgf`: its moves, setup, variations and
        root properties, without comments).  A game id the index does not hold
        raises :class:`~gohash.errors.UnknownGameError`.
        """
        record, file_sha, _, _, blob = self._stored(game_id)
        try:
            return read_record(record, file_sha=file_sha, folders=self._folders())
        except GohashError:  # gone or changed: the index's own copy
            pass
        root = _root_text(record)
        if record.handicap:
            root["HA"] = str(record.handicap)
        try:
            return game_sgf(blob, record.size, root)
        except GohashError as e:
            raise damaged(self.path, f"game {game_id}: {e.reason}") from None

    @database_errors
    def sgf_name(self, game_id: int) -> str:
        """The file name of :meth:`sgf`'s record (:func:`~gohash.index.export.download_name`:
        date and players, or the source file's name)."""
        return download_name(self._stored(game_id)[0])

    def _replay(self, game_id: int, blob: bytes, size: int, nodes: int, last: int, *,
                pure: bool | None = None) -> Replayed:
        """Game ``game_id``'s stored form replayed to node ``last``
        (:func:`~gohash.index.games.replay_boards`); a blob that does not replay
        is a damaged index."""
        try:
            return replay_boards(blob, size, nodes, last, pure=pure)
        except GohashError as e:
            raise damaged(self.path, f"game {game_id}: {e.reason}") from None

    def _folders(self) -> list[str]:
        """Where relative paths of the index's files are tried besides the current folder."""
        return [os.path.dirname(os.path.abspath(self.path))]

    def _stored(self, game_id: int) -> tuple[Record, str, int, int, bytes]:
        """A game's record, its file's SHA-256, and its stored form: nodes, main-line
        positions and the record blob."""
        self._require_games("id = ?", (game_id,))
        row = self._db.execute(
            f"SELECT {RECORD_COLUMNS}, f.sha256, g.nodes, g.positions, g.record FROM games g "
            "JOIN files f ON f.id = g.file_id WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise UnknownGameError(f"the index has no game with id {game_id!r}", file=self.path)
        return Record.from_row(row[:-4]), *row[-4:]

    @database_errors
    def players(self, text: str, *, limit: int | None = 20) -> list[PlayerMatch]:
        """The players whose name as recorded contains ``text`` (case-insensitively:
        Unicode case folding, so ``lee`` finds ``Lee Sedol`` and ``卫平`` finds
        ``聂卫平``), with their games in either colour: a name equal to ``text``
        (case-folded) first, then the most games first, then by name; ``limit``
        of them (None: all)."""
        if not text.strip():
            raise OptionError("a player search needs some text of a name")
        require(self._db, "games", columns=("black", "white"))
        rows = self._db.execute(
            "SELECT name, count(*) FROM (SELECT black AS name FROM games UNION ALL "
            "SELECT white FROM games WHERE white IS NOT black) "
            "WHERE gohash_contains(name, ?) GROUP BY name", (text,),
        ).fetchall()
        folded = text.casefold()
        rows.sort(key=lambda row: (row[0].casefold() != folded, -row[1], row[0]))
        return [PlayerMatch(name, games) for name, games in rows[:limit]]

    @database_errors
    def player(
        self, name: str, *, opening_length: int = OPENING_MOVES, openings: int | None = 10,
        order: str = "-date", corner_length: int = CORNER_MOVES,
    ) -> PlayerSummary:
        """The games of the player called ``name`` (exactly, as recorded, either
        colour), their results by colour and year, their ``openings`` most
        played openings of ``opening_length`` moves up to rotation and reflection
        and as many most played corner patterns of ``corner_length`` moves on each
        game's main line (:func:`~gohash.index.players.corner_patterns`): a
        :class:`~gohash.index.players.PlayerSummary`; ``openings`` None: every one.
        The games come by ``order`` (:func:`~gohash.index.filters.game_order`),
        then in index order."""
        if opening_length < 1:
            raise OptionError(f"opening_length must be at least 1, not {opening_length}")
        if corner_length < 1:
            raise OptionError(f"corner_length must be at least 1, not {corner_length}")
        self._require_games("black = ?1 OR white = ?1", (name,))
        rows = self._db.execute(
            f"SELECT {RECORD_COLUMNS}, g.nodes, g.positions, g.record FROM games g "
            f"JOIN files f ON f.id = g.file_id "
            f"WHERE g.black = ?1 OR g.white = ?1 ORDER BY {game_order(order)}, g.id",
            (name,),
        ).fetchall()
        records, found, corners = [], {}, {}
        for row in rows:
            record = Record.from_row(row[:-3])
            records.append(record)
            nodes, main, blob = row[-3:]
            if main <= min(opening_length, corner_length):
                continue
            # The main line is the first ``main`` nodes.
            replayed = self._replay(record.id, blob, record.size, nodes, main - 1)
            # Openings and corners from the empty board only; the moves of nodes
            # 1..n, in the game's own orientation (element 0).
            if replayed.boards[0].any():
                continue
            if main > opening_length:
                moves = [(0, int(replayed.colour[i]), int(replayed.point[i]))
                         for i in range(1, opening_length + 1)]
                opening = opening_moves(moves, record.size)
                if opening is not None:
                    found[record.id] = opening
            played = [("b" if replayed.colour[i] == 1 else "w",
                       divmod(int(replayed.point[i]), record.size))
                      for i in range(1, main)
                      if replayed.colour[i] in (1, 2) and replayed.point[i] >= 0]
            corners[record.id] = corner_patterns(played, record.size, corner_length)
        return summarize(name, records, found, opening_length=opening_length, limit=openings,
                         corners=corners, corner_length=corner_length)

    # -- duplicates ----------------------------------------------------------------------------

    @database_errors
    def main_frames(self, game_ids: Iterable[int]) -> dict[int, tuple[tuple[bytes, ...], int]]:
        """For each game of ``game_ids``: the frames of its main line, and the
        element mapping its last position onto its frame."""
        out = {}
        for game_id in game_ids:
            require(self._db, "games", "id = ?", (game_id,), REPLAY_COLUMNS)
            size, nodes, main, blob = self._db.execute(
                "SELECT size, nodes, positions, record FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            boards = self._replay(game_id, blob, size, nodes, main - 1).boards[:main]
            keys = self.keys(size)
            batch = frame_batch(boards, keys.hash_arrays(boards.reshape(-1, size, size)), keys)
            assert batch.frames is not None
            out[game_id] = tuple(map(bytes, batch.frames)), int(batch.elements[-1])
        return out

    @database_errors
    def records(self) -> dict[int, Record]:
        """Every game record, by id."""
        self._require_games("1", ())
        return {
            row[0]: Record.from_row(row)
            for row in self._db.execute(
                f"SELECT {RECORD_COLUMNS} FROM games g JOIN files f ON f.id = g.file_id"
            )
        }

    @database_errors
    def dupe_lasts(self, *, min_positions: int = 10) -> list[tuple[int, int, int]]:
        """The game id, last main-line position's posting key and its node of each
        game of ``min_positions`` positions or more, in game id order by size:
        the first half of finding duplicates (:meth:`dupe_holders`)."""
        return last_positions(self._db, self.path, self.keys, min_positions)

    @database_errors
    def dupe_holders(self, lasts: Sequence[tuple[int, int]], *,
                     min_positions: int = 10) -> list[tuple[int, int]]:
        """For each ``(key, node)`` of ``lasts`` (a :meth:`dupe_lasts`' key and
        node, of this index or another), the games of ``min_positions``
        positions or more that hold that key at that node: pairs of its place
        in ``lasts`` and such a game's id.  If a main line is another's, or a
        prefix of it, the other holds its last position there."""
        return position_holders(self._db, self.file.postings, lasts, min_positions)

    @database_errors
    def dupes(self, *, min_positions: int = 10) -> Dupes:
        """Groups of records with the same sequence of positions up to symmetry and
        colour exchange, and groups whose sequence is a proper prefix of another's.

        Records with fewer than ``min_positions`` positions are left out: every
        game starts from the same few positions.  Main lines only are compared
        (:func:`group_dupes`).
        """
        lasts = self.dupe_lasts(min_positions=min_positions)
        held = self.dupe_holders([(key, node) for _, key, node in lasts],
                                 min_positions=min_positions)
        return group_dupes(dupe_candidates([game for game, _, _ in lasts], held),
                           self.main_frames, self._records)


def _root_text(record: Record) -> dict[str, str]:
    """The root's text properties a record holds, as SGF names them."""
    values = {
        "PB": record.black, "PW": record.white, "BR": record.black_rank,
        "WR": record.white_rank, "RE": record.result, "DT": record.dt, "EV": record.event,
        "KM": None if record.komi is None else f"{record.komi:g}",
        **{f.prop: record.fields.get(f.name) for f in STORED},
    }
    return {name: value for name, value in values.items() if value is not None}


def _game_boards(replayed: Replayed, positions: int) -> Game:
    """The main line (its first ``positions`` nodes) of a stored game replayed
    (:func:`~gohash.index.games.replay_boards`) as pattern search reads it
    (:class:`~gohash.pattern.match.Game`): each position's next move is the move
    of the node after it."""
    next_colour = np.zeros(positions, dtype=np.int8)
    next_point = np.full(positions, -1, dtype=np.int32)
    next_colour[:-1] = replayed.colour[1:positions]
    next_point[:-1] = replayed.point[1:positions]
    return Game(replayed.boards[:positions], replayed.move_number[:positions],
                replayed.to_move[:positions], next_colour, next_point)




def _side(position: Board | npt.ArrayLike, to_move: str | None) -> str | None:
    """``to_move`` of a query, ``'query'`` read: the query's side to move (a
    Board's; either side for an array, which has none)."""
    if to_move != "query":
        return to_move
    return position.to_move if isinstance(position, Board) else "any"


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
