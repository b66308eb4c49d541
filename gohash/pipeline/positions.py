"""Positions of whole collections as columns, replayed by a compiled core where it can.

Scope: :func:`read_positions` reads SGF sources as :func:`gohash.sgf.walk.walk_paths` does and
yields :class:`PositionBatch` es: one row per position the walker visits, with
its place (file, game, variation, move number), the move that led to it, the
side to move, the position hash of a key scheme, its canonical key, and from
the exact position its symmetries and the lowest element mapping it onto its
frame (:mod:`gohash.pipeline.frames`); on request the exact packed position and its
packed frame; beside them a table of the games' root properties and the
walker's errors and notes.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache, partial
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import _native
from .._deprecated import deprecated
from ..errors import GohashError, SgfError, shown_name
from ..go.rulesets import record_ruleset
from ..group.schemes import DEFAULT_SCHEME, KeyScheme, scheme
from ..group.symmetry import elements_of
from ..metadata import TEXT_PROPERTIES
from ..sgf.inputs import Input, Skipped, Source
from ..sgf.parser import encoding_of, root_text
from ..sgf.sources import find_inputs, read_input
from ..sgf.walk import WalkSummary, walk_games
from .columns import Exact, PureColumns, concatenate, rehash
from .frames import SchemeFactory

if TYPE_CHECKING:
    from ._sgf_replay import Replayer


__all__ = ["CORE_AVAILABLE", "GameTable", "PositionBatch", "read_positions"]

CORE_AVAILABLE = _native.core is not None
"""Whether the compiled core is built (``GOHASH_PURE=1`` still turns it off)."""

_warned = False

Array = npt.NDArray[Any]


@dataclass
class GameTable:
    """The games of a batch that began (whose root could be read), in order.

    ``text[name]`` holds the decoded root property ``name`` of each game (one of
    :data:`gohash.metadata.TEXT_PROPERTIES`), None where the root has none.  ``handicap`` is HA
    as a number (0 without HA).
    """

    file: npt.NDArray[np.int32]
    game: npt.NDArray[np.int32]
    size: npt.NDArray[np.uint8]
    handicap: npt.NDArray[np.int32]
    text: dict[str, list[str | None]]

    def __len__(self) -> int:
        return len(self.file)


@dataclass
class PositionBatch:
    """Positions of whole files as columns, one row per position.

    ``colour`` is the colour of the move that led here (1 black, 2 white, 0 for
    the initial position and after a setup-only node); ``point`` its point as
    ``row * size + col``, -1 for a pass or no move.  ``to_move`` is 1 or 2.
    ``variation`` indexes :attr:`variations` (0 is ``()``, the main line).
    ``hash``, ``canonical`` are ``uint64`` arrays of shape ``(n,)``, or ``(n, 2)``
    (high word, low word) for 128-bit schemes.  ``transform`` is the index in
    :data:`gohash.ELEMENTS` of the lowest element mapping the position onto its
    frame (its canonical form, :mod:`gohash.pipeline.frames`); ``symmetries`` the exact
    stabilizer of the position within the group, bit ``i`` set for
    ``ELEMENTS[i]`` (bit 0, the identity, always).  The packed position
    (``Board.position_key``) of row ``i`` is
    ``packed_data[packed_offsets[i]:packed_offsets[i + 1]]``, its packed frame
    likewise from ``frame_offsets`` and ``frame_data``.  ``depth`` is the
    walker's ``PositionEvent.depth``: how many positions of the row's line come
    before it in its game, so the line of row ``i`` is ``i`` and, going back,
    each latest row of depth one less.
    """

    scheme: str
    group: str
    files: dict[int, str]
    file: npt.NDArray[np.int32]
    game: npt.NDArray[np.int32]
    variation: npt.NDArray[np.int32]
    move_number: npt.NDArray[np.int32]
    colour: npt.NDArray[np.int8]
    point: npt.NDArray[np.int16]
    to_move: npt.NDArray[np.int8]
    setup: npt.NDArray[np.bool_]
    size: npt.NDArray[np.uint8]
    hash: npt.NDArray[np.uint64]
    canonical: npt.NDArray[np.uint64]
    transform: npt.NDArray[np.uint8]
    symmetries: npt.NDArray[np.uint16]
    depth: npt.NDArray[np.int32]
    variations: list[tuple[int, ...]]
    games: GameTable
    packed_offsets: npt.NDArray[np.int64] | None = None
    packed_data: npt.NDArray[np.uint8] | None = None
    frame_offsets: npt.NDArray[np.int64] | None = None
    frame_data: npt.NDArray[np.uint8] | None = None
    errors: list[GohashError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error_files: list[int] = field(default_factory=list)
    """The file id of each error, -1 for a source that could not be read (no id)."""
    note_files: list[int] = field(default_factory=list)
    """The file id of each note, -1 for an input not read (:class:`gohash.sgf.inputs.Skipped`:
    a pipe found in a folder)."""
    file_games: dict[int, int] = field(default_factory=dict)
    """The games read in each file, as :class:`gohash.sgf.walk.WalkSummary` counts them:
    those abandoned at the root (no rows, not in :attr:`games`) included."""
    walker_from: dict[int, int] = field(default_factory=dict)
    """For each file of the batch the pure walker replayed (in part), the first
    game it replayed: the core replayed the file's games before it.  Rows of
    game ``walker_from[f]`` and later of file ``f`` are the walker's."""

    def __len__(self) -> int:
        return len(self.file)

    @property
    def pure_file_ids(self) -> list[int]:
        """The ids (keys of :attr:`files`) of the files the walker replayed, in part or
        whole, in order."""
        return list(self.walker_from)

    @property
    def pure_files(self) -> int:
        """How many of the batch's files the walker replayed, in part or whole."""
        return len(self.walker_from)

    def packed(self, row: int) -> bytes:
        """The exact position of one row, as ``Board.position_key`` packs it."""
        if self.packed_offsets is None or self.packed_data is None:
            raise GohashError(
                "packed positions were not requested (read_positions(..., packed=True))")
        start, end = self.packed_offsets[row], self.packed_offsets[row + 1]
        return self.packed_data[start:end].tobytes()

    def frame(self, row: int) -> bytes:
        """The packed frame of one row: its position mapped by its ``transform``."""
        if self.frame_offsets is None or self.frame_data is None:
            raise GohashError("frames were not requested (read_positions(..., frames=True))")
        start, end = self.frame_offsets[row], self.frame_offsets[row + 1]
        return self.frame_data[start:end].tobytes()

    def columns(self) -> dict[str, Array]:
        """The per-position columns by name (packed positions and frames excluded)."""
        names = ("file", "game", "variation", "move_number", "colour", "point", "to_move",
                 "setup", "size", "hash", "canonical", "transform", "symmetries", "depth")
        return {name: getattr(self, name) for name in names}


def read_positions(
    sources: Iterable[str | Input | Source | SgfError | Skipped],
    *,
    scheme: str | SchemeFactory = DEFAULT_SCHEME,
    variations: bool = False,
    symmetry: str = "full",
    packed: bool = False,
    frames: bool = False,
    suicide_allowed: bool | None = None,
    batch_size: int = 1 << 16,
    pure: bool | None = None,
    group: str | None = None,
) -> Iterator[PositionBatch]:
    """Batches of the positions of every game in ``sources``.

    ``sources`` are what :func:`gohash.sgf.walk.walk_paths` takes (files, folders searched
    for ``*.sgf``, zip and tar archives, ``-`` for standard input)
    or :class:`gohash.sgf.Input` and :class:`gohash.sgf.Source` objects (inputs
    already found, bytes in memory), and what a source read beforehand gave
    instead (an :class:`~gohash.errors.SgfError`, a
    :class:`~gohash.sgf.inputs.Skipped`: an error and a note, as if read here).  ``scheme`` is a
    key scheme name, or a factory from board size to
    :class:`~gohash.group.schemes.KeyScheme` (:data:`gohash.pipeline.frames.SchemeFactory`);
    ``symmetry`` the group of the canonical keys, symmetries and frames
    (``"full"`` or ``"d4"``; ``group`` is its deprecated name); ``variations``
    replays every variation as the walker does.  ``packed=True`` adds the exact packed positions,
    ``frames=True`` the packed frames.  ``suicide_allowed`` holds for every
    game; None (the default) lets each game's ``RU`` decide, as the walker
    does.  ``pure`` picks the replay (:func:`gohash._native.use_compiled`):
    True the pure walker for every file, None (the default) the compiled core
    where built unless ``GOHASH_PURE=1``.

    A game with an error is abandoned after the positions before it; errors
    and notes come in :attr:`PositionBatch.errors` and :attr:`PositionBatch.notes`
    (a pipe, socket or device found in a folder is not opened: a note).
    """
    keys_of = partial(_scheme_at, scheme) if isinstance(scheme, str) else scheme
    keys_of(19)  # raises UnknownSchemeError for a name it does not know
    if group is not None:
        deprecated("group=", "symmetry=", "read_positions")
        symmetry = group
    elements_of(symmetry)
    if isinstance(sources, str):
        sources = [sources]
    if _native.core is None and _native.wants_compiled(pure):
        _warn_missing()
    replayer = None
    if _native.use_compiled(pure, _native.core):
        # The core never plays a suicide (it leaves the file to the walker), so
        # what it replays is the same under either suicide rule.
        replayer = _native.core.Replayer(
            _key_table_for(keys_of),
            variations=variations,
            add=keys_of(19).combiner == "add",
            capacity=batch_size + batch_size // 4,
        )
    options = _Options(scheme, keys_of, symmetry, variations, packed, frames, suicide_allowed)
    batches = _Batches(options, replayer, batch_size)
    file_id = 0
    for item in sources:
        for source in _sources_of(item):
            if isinstance(source, SgfError):
                batches.builder.errors.append(source)
                batches.builder.error_files.append(-1)
                continue
            if isinstance(source, Skipped):
                batches.builder.notes.append(str(source))
                batches.builder.note_files.append(-1)
                continue
            yield from batches.add(source, file_id)
            file_id += 1
    if batches.builder.files or batches.builder.errors or batches.builder.notes:
        yield batches.builder.finish()


@dataclass(frozen=True)
class _Options:
    """What :func:`read_positions` was asked for."""

    scheme: str | SchemeFactory
    keys_of: SchemeFactory
    group: str
    variations: bool
    packed: bool
    frames: bool
    suicide_allowed: bool | None

    def board_options(self) -> dict[str, object]:
        """The walker's board options: a named scheme hashes on the board; a
        factory's hashes are made from the exact positions
        (:func:`gohash.pipeline.columns.rehash`)."""
        # A factory's boards hash with the 64-bit paper's scheme, the cheapest,
        # whose hashes rehash replaces.
        options: dict[str, object] = {
            "scheme": self.scheme if isinstance(self.scheme, str) else "huima64"}
        if self.suicide_allowed is not None:
            options["suicide_allowed"] = self.suicide_allowed
        return options


def _sources_of(
    item: str | Input | Source | SgfError | Skipped,
) -> Iterator[Source | SgfError | Skipped]:
    if isinstance(item, Source | SgfError | Skipped):
        yield item
    elif isinstance(item, Input):
        yield from read_input(item)
    else:
        for inp in find_inputs([item]):
            yield from read_input(inp)


def _warn_missing() -> None:
    global _warned
    if not _warned:
        _warned = True
        sys.stderr.write(
            f"gohash: the compiled core is not built ({_native.CORE_MISSING}); "
            "read_positions() replays on the pure path\n"
        )


@cache
def _scheme_at(name: str, size: int) -> KeyScheme:
    return scheme(name, size)


def _key_table_for(keys_of: SchemeFactory) -> Callable[[int], npt.NDArray[np.uint64]]:
    """The key tables the core takes, by board size: checked here, the core trusts them."""

    def table(size: int) -> npt.NDArray[np.uint64]:
        keys = keys_of(size)
        if keys.size != size:
            raise ValueError(f"the key scheme for board size {size} is of size {keys.size}")
        return _key_table(keys)

    return table


@cache
def _key_table(keys: KeyScheme) -> npt.NDArray[np.uint64]:
    """Black then white keys, high and low words.  Kept: a table costs as much as
    replaying a few hundred positions, and read_positions() may be called per file."""
    count = keys.size * keys.size
    table = np.zeros((2 * count, 2), dtype=np.uint64)
    for half, values in enumerate((keys.black_keys, keys.white_keys)):
        array = keys.from_ints(values)
        rows = slice(half * count, (half + 1) * count)
        if array.ndim == 1:
            table[rows, 0] = array
        else:
            table[rows] = array
    return table


@cache
def _encoding(raw: bytes | None) -> tuple[str | None, bool]:
    """The walker's encoding of a root's CA value (raises SgfError as it does), and
    whether that encoding decodes printable ASCII to itself."""
    if raw is None:
        return None, True
    name = encoding_of({"CA": [raw]})
    return name, name is not None and codecs.lookup(name).name in _ASCII_CODECS


# Codecs in which printable ASCII bytes are those characters (no shift states):
# where CA names one, the core's plain ASCII text is the walker's decoding.
_ASCII_CODECS = frozenset(
    ("utf-8", "ascii", "iso8859-1", "cp1252", "gb2312", "gbk", "gb18030", "big5", "euc_kr",
     "cp949", "euc_jp")
)


class _Batches:
    """Cuts the positions of the sources into batches, between two games.

    A batch ends before the game that would begin once it holds ``batch_size``
    rows or games: a file's games may span batches, a game never does.  The
    core replays a file game by game; from the first game it leaves, the
    walker replays the rest of the file (the games before it had no error or
    note, or the core would have left them).
    """

    def __init__(self, options: _Options, replayer: Replayer | None, batch_size: int) -> None:
        self.options, self.replayer, self.batch_size = options, replayer, batch_size
        self.builder = _Builder(options, replayer)

    def _full(self, pending: PureColumns | None = None) -> bool:
        builder = self.builder
        rows, games = builder.count(), len(builder.games)
        if pending is not None:
            rows, games = rows + pending.rows(), games + len(pending.games)
        return max(rows, games) >= self.batch_size

    def _next(self, source: Source, file_id: int) -> PositionBatch:
        """The batch so far; the next begins with the file at hand."""
        batch = self.builder.finish()
        self.builder = _Builder(self.options, self.replayer)
        self.builder.files[file_id] = source.name
        return batch

    def add(self, source: Source, file_id: int) -> Iterator[PositionBatch]:
        """Every batch the file completes (the rest stays in :attr:`builder`)."""
        if self._full():
            yield self._next(source, file_id)
        self.builder.files[file_id] = source.name
        first_pure = 0
        roots = None if self.replayer is None else self.replayer.scan_file(source.data, file_id)
        if self.replayer is not None and roots is not None:
            for index, row in enumerate(_root_rows(roots, file_id)):
                if index and self._full():
                    yield self._next(source, file_id)
                if row is None or not self.replayer.replay_game(index):
                    first_pure = index
                    break
                if index == 0:
                    self._source_notes(source, file_id)
                self.builder.games.append(row)
                self.builder.file_games[file_id] = self.builder.file_games.get(file_id, 0) + 1
            else:
                if not roots:
                    self._source_notes(source, file_id)
                return
        yield from self._add_pure(source, file_id, first_pure)

    def _source_notes(self, source: Source, file_id: int) -> None:
        """The walker's notes on how the source was read (UTF-16 decoded), which it
        gives with game 0 when it replays that."""
        self.builder.notes += (f"{shown_name(source.name)}: {note}" for note in source.notes)
        self.builder.note_files += [file_id] * len(source.notes)

    def _add_pure(self, source: Source, file_id: int, first_game: int) -> Iterator[PositionBatch]:
        options = self.options
        collector = PureColumns(file_id, options.keys_of(19).bits == 128)
        summary = WalkSummary(files=1)
        self.builder.walker_from[file_id] = first_game
        walked = walk_games(source, collector, summary, variations=options.variations,
                            board_options=options.board_options(), first_game=first_game)
        for _ in walked:  # between two games
            if self._full(collector):
                self.builder.add_pure(collector, summary, file_id)
                yield self._next(source, file_id)
                self.builder.walker_from[file_id] = first_game
        self.builder.add_pure(collector, summary, file_id)


class _Builder:
    """The pieces of one batch: columns from the core and from the walker, in file order."""

    def __init__(self, options: _Options, replayer: Replayer | None) -> None:
        self.options = options
        self.replayer = replayer
        self.pieces: list[tuple[dict[str, Array], list[tuple[int, ...]]]] = []
        self.pieces_rows = 0
        self.files: dict[int, str] = {}
        self.games: list[tuple[int, int, int, int, dict[str, str]]] = []
        self.errors: list[GohashError] = []
        self.notes: list[str] = []
        self.error_files: list[int] = []
        self.note_files: list[int] = []
        self.file_games: dict[int, int] = {}
        self.walker_from: dict[int, int] = {}

    def count(self) -> int:
        return self.pieces_rows + (len(self.replayer) if self.replayer is not None else 0)

    def _take_core(self) -> None:
        if self.replayer is not None and len(self.replayer):
            piece = self.replayer.take()
            self.pieces.append(piece)
            self.pieces_rows += len(piece[0]["file"])

    def add_pure(self, collector: PureColumns, summary: WalkSummary, file_id: int) -> None:
        """Take what the walker collected since the last call (it starts afresh)."""
        self._take_core()  # the core's rows of the file come first
        games, errors, notes = collector.games, summary.errors, summary.notes
        self.games += games
        self.file_games[file_id] = (
            self.file_games.get(file_id, 0) + summary.games - collector.games_counted
        )
        # Kept as data: a traceback would keep the walker's frames, and the board's
        # undo history (up to 200,000 steps) with them, alive with the batch.
        self.errors += (error.with_traceback(None) for error in errors[collector.errors_taken:])
        self.notes += notes[collector.notes_taken:]
        self.error_files += [file_id] * (len(errors) - collector.errors_taken)
        self.note_files += [file_id] * (len(notes) - collector.notes_taken)
        collector.errors_taken, collector.notes_taken = len(errors), len(notes)
        collector.games_counted = summary.games
        piece = collector.take()
        if not isinstance(self.options.scheme, str):
            rehash(piece[0], self.options.keys_of)
        self.pieces.append(piece)
        self.pieces_rows += len(piece[0]["file"])

    def finish(self) -> PositionBatch:
        self._take_core()
        options = self.options
        columns, paths = concatenate(self.pieces)
        hashes = columns["hash_hi"]
        if options.keys_of(19).bits == 128:
            hashes = np.stack([hashes, columns["hash_lo"]], axis=1)
        # The pure path packs frames with numpy too, so that the differential
        # tests hold the compiled packing to its twin.
        exact = Exact(
            options.keys_of, options.group, options.frames, hashes, columns["size"],
            columns["packed_offsets"], columns["packed"],
            _native.frames if self.replayer is not None else None,
        )
        return PositionBatch(
            scheme=options.keys_of(19).name,
            group=options.group,
            files=self.files,
            file=columns["file"],
            game=columns["game"],
            variation=columns["variation"],
            move_number=columns["move_number"],
            colour=columns["colour"],
            point=columns["point"],
            to_move=columns["to_move"],
            setup=columns["setup"],
            size=columns["size"],
            hash=hashes,
            canonical=exact.canonical,
            transform=exact.transform,
            symmetries=exact.symmetries,
            depth=columns["depth"],
            variations=paths,
            games=_game_table(self.games),
            packed_offsets=columns["packed_offsets"] if options.packed else None,
            packed_data=columns["packed"] if options.packed else None,
            frame_offsets=exact.frame_offsets,
            frame_data=exact.frame_data,
            errors=self.errors,
            notes=self.notes,
            error_files=self.error_files,
            note_files=self.note_files,
            file_games=self.file_games,
            walker_from=self.walker_from,
        )


def _game_table(games: list[tuple[int, int, int, int, dict[str, str]]]) -> GameTable:
    numbers = np.array([g[:4] for g in games], dtype=np.int64).reshape(-1, 4)
    texts = [g[4] for g in games]
    return GameTable(
        file=numbers[:, 0].astype(np.int32),
        game=numbers[:, 1].astype(np.int32),
        size=numbers[:, 2].astype(np.uint8),
        handicap=numbers[:, 3].astype(np.int32),
        text={name: [text.get(name) for text in texts] for name in TEXT_PROPERTIES},
    )


def _root_rows(
    roots: list[tuple[int, int, bytes | None, dict[str, str], dict[str, bytes]]], file_id: int
) -> list[tuple[int, int, int, int, dict[str, str]] | None]:
    """The game rows of a file the core scanned, each root's text decoded as the
    walker decodes it; None for a game whose root the walker would note or
    refuse (it replays that game)."""
    rows: list[tuple[int, int, int, int, dict[str, str]] | None] = []
    for index, (size, handicap, ca, text, raw) in enumerate(roots):
        rows.append(_root_row(index, size, handicap, ca, text, raw, file_id))
    return rows


def _root_row(
    index: int, size: int, handicap: int, ca: bytes | None, text: dict[str, str],
    raw: dict[str, bytes], file_id: int,
) -> tuple[int, int, int, int, dict[str, str]] | None:
    try:
        encoding, ascii_safe = _encoding(ca)
    except SgfError:
        return None
    if not ascii_safe and text:
        raw = {**{name: value.encode("ascii") for name, value in text.items()}, **raw}
        text = {}
    decoded, repaired = root_text(raw, encoding)
    if repaired is not None:
        return None  # the walker notes it
    text.update(decoded)
    if record_ruleset(text.get("RU"))[1] is not None:
        return None  # an RU gohash does not know: the walker notes it
    return (file_id, index, size, handicap, text)
