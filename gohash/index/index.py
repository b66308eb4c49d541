"""A position index of SGF collections in SQLite: search up to symmetry, find duplicate games.

Scope: :class:`Index`, a facade whose methods state the contracts of the
queries and delegate each family to its module: the database (its schema,
opening, building and upkeep) to the private class of :mod:`gohash.index.store`, the
exact position search and the continuations of a position to
:mod:`gohash.index.find`, pattern search to :mod:`gohash.index.pattern_search`,
a game rebuilt for a viewer or exported as SGF to :mod:`gohash.index.export`,
the players to :mod:`gohash.index.players` and duplicate games to
:mod:`gohash.index.dupes`.  The command line (:mod:`gohash.cli.index`) only
parses arguments and prints.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence

import numpy.typing as npt

from ..go.board import Board
from ..group.schemes import KeyScheme
from ..pattern.diagram import Pattern
from ..pattern.search import PatternResult
from ..pattern.store import GameStore
from ..pipeline.frames import SchemeFactory
from . import find as _find
from .dupes import (
    Dupes,
    dupe_candidates,
    group_dupes,
    last_positions,
    main_frames,
    position_holders,
)
from .export import download_name, export_sgf, rebuilt_game, stored_game
from .filters import Filters
from .occurrences import all_records, read_records
from .pattern_search import game_store, pattern
from .patterns import pattern_faults
from .players import (
    CORNER_MOVES,
    OPENING_MOVES,
    PlayerMatch,
    PlayerSummary,
    find_players,
    player_summary,
)
from .results import Continuations, FindResult, GameRecord, Record
from .store import BuildSummary, IndexInfo, Removed, _IndexFile, database_errors

__all__ = ["Index"]


class Index:
    """A gohash position index in an SQLite file, searched.

    ``Index(path)`` opens an existing index; ``Index(path, create=True)`` also
    creates one (with ``scheme``, default ``regular128``) if the file is missing or
    empty.  ``scheme`` may instead be a factory from board size to
    :class:`~gohash.group.schemes.KeyScheme`, for experiments with other key tables
    (it must be picklable for ``jobs > 1``); the index records its ``name``.
    ``variations=True`` makes a new index store every variation's positions;
    an existing index keeps what it was created with (None), and asking it for
    the other is an error, as for the scheme.
    ``read_only=True`` opens an existing index for searching only (SQLite's
    ``mode=ro``, :func:`~gohash.index.store.read_only_uri`), on a connection any thread may use,
    one at a time: it needs no write access to the index or its folder.
    Opening an index replays its first game's first nodes and recomputes their
    keys, and refuses it (:class:`~gohash.errors.DamagedIndexError`) if its
    postings differ: a damaged index, or a meta table naming another key scheme.
    The database (its opening, building and upkeep) is a private class of
    :mod:`gohash.index.store`; each query family is a module of its own
    (:mod:`gohash.index`).  Use as a context manager, or call :meth:`close`.
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
        self._file = _IndexFile(path, create=create, scheme=scheme, variations=variations,
                                read_only=read_only)
        self._db = self._file.connection
        # Pattern search's games of each board size, and the version they were read at.
        self._stores: dict[int, tuple[tuple[int, int], GameStore]] = {}

    @property
    def path(self) -> str:
        return self._file.path

    @property
    def variations(self) -> bool:
        return self._file.variations

    @property
    def scheme_name(self) -> str:
        return self._file.scheme_name

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def keys(self, size: int) -> KeyScheme:
        """The key scheme of the index for one board size."""
        return self._file.keys(size)

    def build(
        self,
        paths: Iterable[str],
        *,
        jobs: int = 1,
        files_per_commit: int | None = None,
        progress: Callable[[int, int], object] | None = None,
        suicide_allowed: bool | None = None,
    ) -> BuildSummary:
        """Index every SGF file of ``paths`` (files, folders, archives, ``-``, or
        inputs :func:`~gohash.sgf.sources.find_inputs` resolved).

        A file already indexed with the same SHA-256 is skipped; a changed one
        replaces its games.  Whole files are written in one transaction, by
        default those of about a second
        (:data:`~gohash.index.store.COMMIT_SECONDS`; in a large index, those that
        grow it threefold, :data:`~gohash.index.store.COMMIT_GROWTH`), or each
        ``files_per_commit`` files: an interrupted build leaves a consistent
        index that lacks at most the files of the last transaction, and
        running it again completes it.  ``jobs`` worker processes read and replay the files;
        this process writes.  If a worker dies, the inputs in hand are retried
        one at a time (a note says so); one whose retry kills its worker again
        is an error.  ``progress(done, total)`` is called after each input.
        ``suicide_allowed`` holds for every game replayed if given, else each
        game's ``RU`` decides; files skipped as unchanged are not replayed again.
        A file indexed under another parse version
        (:data:`~gohash.index.records.PARSE_VERSION`) is replayed even if unchanged.
        """
        return self._file.build(paths, jobs=jobs, files_per_commit=files_per_commit,
                               progress=progress, suicide_allowed=suicide_allowed)

    def remove(self, paths: Iterable[str]) -> Removed:
        """Remove the files of ``paths`` from the index, in one transaction: a path
        as :meth:`build` was given it names the file of that path, every file under a
        folder, or every member of an archive; the positions no other game has
        go too, and their postings."""
        return self._file.remove(paths)

    def discover_aggregates(self) -> int:
        """Give every position of the first
        :data:`~gohash.index.aggregates.CANDIDATE_NODES` nodes of the index's games
        that is frequent its aggregate (:meth:`Aggregates.discover
        <gohash.index.aggregates.Aggregates.discover>`), as a build of them all
        would; how many were made."""
        return self._file.discover_aggregates()

    def info(self) -> IndexInfo:
        """What the index holds and how it was built (:class:`~gohash.index.store.IndexInfo`)."""
        return self._file.info()

    def counts(self) -> dict[str, int]:
        """Files, games, positions (distinct posting keys) and occurrences (postings)."""
        return self._file.counts()

    def sizes(self) -> dict[int, int]:
        """Games per board size."""
        return self._file.sizes()

    def check(self) -> list[str]:
        """Every fault of the index, one line each (empty: none found), what
        :mod:`gohash.index.check` checks, and of its pattern files
        (:func:`~gohash.index.patterns.pattern_faults`).  Reads every row:
        minutes for an index of millions of games."""
        return self._file.check() + pattern_faults(self._db, self.path)

    @database_errors
    def version(self) -> tuple[int, int]:
        """A value that changes whenever the index does: SQLite's ``data_version``
        (commits of other connections, other processes' included) and this
        connection's ``total_changes`` (its own)."""
        return self._db.execute("PRAGMA data_version").fetchone()[0], self._db.total_changes

    # -- searching -----------------------------------------------------------------------------

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
        ``symmetry`` (:data:`~gohash.index.find.QUERY_SYMMETRIES`: ``"full"``
        rotations, reflections and colour exchange, ``"d4"`` rotations and
        reflections only); confirmed exactly.

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
        return _find.find(self._db, self.path, self.keys, self._file.postings, position,
                          symmetry=symmetry, limit=limit, offset=offset, filters=filters,
                          to_move=to_move, order=order, colour_swap=colour_swap)

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
        side to move is the record's in :func:`~gohash.index.find.position_from_sgf`), either side
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
        return _find.continuations(self._db, self.path, self.keys, self._file.postings,
                                   position, symmetry=symmetry, filters=filters,
                                   to_move=to_move, limit=limit, setup=setup)

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
        return pattern(self._db, self.path, self._game_store, diagram, symmetry=symmetry,
                       to_move=to_move, max_move=max_move, sequence=sequence, filters=filters,
                       limit=limit, offset=offset, pure=pure, timeout=timeout, cancel=cancel,
                       compiled=compiled)

    def _game_store(self, size: int) -> GameStore:
        """The games of ``size`` with a position, as pattern search scans them
        (:func:`~gohash.index.patterns.pattern_store`): read once and kept while
        the index is unchanged (:meth:`version`)."""
        return game_store(self._db, self.path, size, self.version(), self._stores)

    def _records(self, game_ids: list[int]) -> dict[int, Record]:
        """The records of ``game_ids``, by id."""
        return read_records(self._db, game_ids)

    # -- games and players -----------------------------------------------------------------------

    @database_errors
    def game(self, game_id: int) -> GameRecord:
        """A game of the index rebuilt from its stored form, for a viewer: its
        record, its root text (from the games table's columns) and every
        position of its main line as indexed.  The source file is not needed:
        the comments (``C``) are read from it when it is there unchanged, and
        are left out otherwise."""
        return rebuilt_game(self._db, self.path, game_id)

    @database_errors
    def sgf(self, game_id: int) -> str:
        """A game of the index as an SGF record of its own, for download: the game
        as recorded, decoded (:func:`gohash.sgf.extract.game_record`), when its
        file is there unchanged; otherwise the game rebuilt from the index
        (:func:`gohash.index.export.game_sgf`: its moves, setup, variations and
        root properties, without comments).  A game id the index does not hold
        raises :class:`~gohash.errors.UnknownGameError`.
        """
        return export_sgf(self._db, self.path, game_id)

    @database_errors
    def sgf_name(self, game_id: int) -> str:
        """The file name of :meth:`sgf`'s record (:func:`~gohash.index.export.download_name`:
        date and players, or the source file's name)."""
        return download_name(stored_game(self._db, self.path, game_id)[0])

    @database_errors
    def players(self, text: str, *, limit: int | None = 20) -> list[PlayerMatch]:
        """The players whose name as recorded contains ``text`` (case-insensitively:
        Unicode case folding, so ``lee`` finds ``Lee Sedol`` and ``卫平`` finds
        ``聂卫平``), with their games in either colour: a name equal to ``text``
        (case-folded) first, then the most games first, then by name; ``limit``
        of them (None: all)."""
        return find_players(self._db, text, limit=limit)

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
        return player_summary(self._db, self.path, name, opening_length=opening_length,
                              openings=openings, order=order, corner_length=corner_length)

    # -- duplicates ----------------------------------------------------------------------------

    @database_errors
    def main_frames(self, game_ids: Iterable[int]) -> dict[int, tuple[tuple[bytes, ...], int]]:
        """For each game of ``game_ids``: the frames of its main line, and the
        element mapping its last position onto its frame."""
        return main_frames(self._db, self.path, self.keys, game_ids)

    @database_errors
    def records(self) -> dict[int, Record]:
        """Every game record, by id."""
        return all_records(self._db)

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
        return position_holders(self._db, self._file.postings, lasts, min_positions)

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

