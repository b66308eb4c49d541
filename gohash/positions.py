"""Positions of whole collections as columns, replayed by a compiled core where it can.

Scope: :func:`positions` reads SGF sources as :func:`gohash.walk.walk` does and
yields :class:`PositionBatch` es: one row per position the walker visits, with
its place (file, game, variation, move number), the move that led to it, the
side to move, the position hash of a key scheme, its canonical key and lowest
transform, and on request the exact packed position; beside them a table of
the games' root properties and the walker's errors and notes.

Two paths give the same batches.  The compiled core (:mod:`gohash._core`)
replays files that it is sure to replay exactly as the walker does, and refuses
anything unusual in a file; every refused file, and every file when the core is
not built or ``GOHASH_PURE=1`` is set (or ``pure=True`` given), is replayed by
the pure walker and converted into the same columns.  Errors and notes are
therefore always the walker's own, in its order.

Batches hold whole files, in the order the sources are read: a batch ends
after the file that brings it to ``batch_size`` positions or more.  Columns
are contiguous numpy arrays, so each converts to Arrow without a copy
(``pyarrow.array(column)``; the packed positions as a ``large_binary`` array
from :attr:`PositionBatch.packed_offsets` and :attr:`PositionBatch.packed_data`).
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .errors import GohashError
from .rules import record_ruleset
from .schemes import KeyScheme, scheme
from .sgf import (
    SgfError,
    Source,
    decode_text,
    encoding_of,
    find_inputs,
    read_input,
)
from .symmetry import elements_of
from .walk import BaseVisitor, GameInfo, PositionEvent, walk_source

if TYPE_CHECKING:
    from ._core import Replayer

try:
    from . import _core
except ImportError as error:  # not built: the pure path serves
    _core = None  # type: ignore[assignment]
    _CORE_MISSING = f"{error}"
else:
    _CORE_MISSING = ""

__all__ = ["CORE_AVAILABLE", "TEXT_PROPERTIES", "GameTable", "PositionBatch", "positions"]

CORE_AVAILABLE = _core is not None
"""Whether the compiled core is built (``GOHASH_PURE=1`` still turns it off)."""

TEXT_PROPERTIES = ("PB", "PW", "BR", "WR", "RE", "KM", "GN", "DT", "EV", "RU")
"""The root text properties of :attr:`GameTable.text`: the walker's ``GameInfo.root``."""

_warned = False

Array = npt.NDArray[Any]


@dataclass
class GameTable:
    """The games of a batch that began (whose root could be read), in order.

    ``text[name]`` holds the decoded root property ``name`` of each game (one of
    :data:`TEXT_PROPERTIES`), None where the root has none.  ``handicap`` is HA
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
    (high word, low word) for 128-bit schemes; ``transform`` is the index in
    :data:`gohash.ELEMENTS` of the lowest element mapping the position to its
    canonical key.  The packed positions (``Board.position_key``) of row ``i``
    are ``packed_data[packed_offsets[i]:packed_offsets[i + 1]]``.  ``depth`` is
    the walker's ``PositionEvent.depth``: how many positions of the row's line
    come before it in its game, so the line of row ``i`` is ``i`` and, going
    back, each latest row of depth one less.
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
    depth: npt.NDArray[np.int32]
    variations: list[tuple[int, ...]]
    games: GameTable
    packed_offsets: npt.NDArray[np.int64] | None = None
    packed_data: npt.NDArray[np.uint8] | None = None
    errors: list[GohashError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pure_file_ids: list[int] = field(default_factory=list)
    """The ids (keys of :attr:`files`) of the files the pure walker replayed, in order."""

    def __len__(self) -> int:
        return len(self.file)

    @property
    def pure_files(self) -> int:
        """How many of the batch's files the pure walker replayed."""
        return len(self.pure_file_ids)

    def packed(self, row: int) -> bytes:
        """The exact position of one row, as ``Board.position_key`` packs it."""
        if self.packed_offsets is None or self.packed_data is None:
            raise GohashError("packed positions were not requested (positions(..., packed=True))")
        start, end = self.packed_offsets[row], self.packed_offsets[row + 1]
        return self.packed_data[start:end].tobytes()

    def columns(self) -> dict[str, Array]:
        """The per-position columns by name (the packed positions excluded)."""
        names = ("file", "game", "variation", "move_number", "colour", "point", "to_move",
                 "setup", "size", "hash", "canonical", "transform", "depth")
        return {name: getattr(self, name) for name in names}


def positions(
    sources: Iterable[str | Source],
    *,
    scheme: str = "huima64",
    variations: bool = False,
    group: str = "full",
    packed: bool = False,
    batch_size: int = 1 << 16,
    pure: bool | None = None,
) -> Iterator[PositionBatch]:
    """Batches of the positions of every game in ``sources``.

    ``sources`` are what :func:`gohash.walk.walk` takes (files, folders searched
    for ``*.sgf``, zip and tar archives, ``-`` for standard input)
    or :class:`gohash.sgf.Source` objects (bytes in memory).  ``scheme`` is a
    key scheme name, ``group`` the canonical keys' group (``"full"`` or
    ``"d4"``), ``variations`` replays every variation as the walker does.
    ``packed=True`` adds the exact packed positions.  ``pure=True`` replays
    every file with the pure walker; None (the default) uses the compiled core
    unless ``GOHASH_PURE=1`` is set or the core is not built.

    A game with an error is abandoned after the positions before it; errors
    and notes come in :attr:`PositionBatch.errors` and :attr:`PositionBatch.notes`.
    """
    _scheme_at(scheme, 19)  # raises UnknownSchemeError for a name it does not know
    elements_of(group)
    if isinstance(sources, str):
        sources = [sources]
    if pure is None:
        pure = os.environ.get("GOHASH_PURE", "") not in ("", "0")
        if not pure and _core is None:
            _warn_missing()
    replayer = None
    if not pure and _core is not None:
        replayer = _core.Replayer(
            _key_table_for(scheme),
            variations=variations,
            packed=packed,
            add=scheme == "huima64-add",
            capacity=batch_size + batch_size // 4,
        )
    builder = _Builder(scheme, group, variations, packed, replayer)
    file_id = 0
    for item in sources:
        for source in _sources_of(item):
            if isinstance(source, SgfError):
                builder.errors.append(source)
                continue
            builder.add(source, file_id)
            file_id += 1
            if builder.count() >= batch_size:
                yield builder.finish()
                builder = _Builder(scheme, group, variations, packed, replayer)
    if builder.files or builder.errors:
        yield builder.finish()


def _sources_of(item: str | Source) -> Iterator[Source | SgfError]:
    if isinstance(item, Source):
        yield item
        return
    for inp in find_inputs([item]):
        yield from read_input(inp)


def _warn_missing() -> None:
    global _warned
    if not _warned:
        _warned = True
        sys.stderr.write(
            f"gohash: the compiled core is not built ({_CORE_MISSING}); "
            "positions() replays on the pure path\n"
        )


@cache
def _scheme_at(name: str, size: int) -> KeyScheme:
    return scheme(name, size)


def _key_table_for(name: str) -> Callable[[int], npt.NDArray[np.uint64]]:
    """The key tables the core takes: black then white keys, high and low words."""

    def keys_for(size: int) -> npt.NDArray[np.uint64]:
        keys = _scheme_at(name, size)
        count = size * size
        table = np.zeros((2 * count, 2), dtype=np.uint64)
        for half, values in enumerate((keys.black_keys, keys.white_keys)):
            array = keys.from_ints(values)
            rows = slice(half * count, (half + 1) * count)
            if array.ndim == 1:
                table[rows, 0] = array
            else:
                table[rows] = array
        return table

    return keys_for


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


_LOW_WORD = (1 << 64) - 1


class _Builder:
    """The pieces of one batch: columns from the core and from the walker, in file order."""

    def __init__(
        self, scheme: str, group: str, variations: bool, packed: bool, replayer: Replayer | None
    ) -> None:
        self.scheme, self.group, self.variations, self.packed = scheme, group, variations, packed
        self.replayer = replayer
        self.pieces: list[tuple[dict[str, Array], list[tuple[int, ...]]]] = []
        self.pieces_rows = 0
        self.files: dict[int, str] = {}
        self.games: list[tuple[int, int, int, int, dict[str, str]]] = []
        self.errors: list[GohashError] = []
        self.notes: list[str] = []
        self.pure_file_ids: list[int] = []

    def count(self) -> int:
        return self.pieces_rows + (len(self.replayer) if self.replayer is not None else 0)

    def add(self, source: Source, file_id: int) -> None:
        self.files[file_id] = source.name
        if self.replayer is not None:
            # A source read with a note (UTF-16 decoded) goes to the walker, which gives it.
            roots = None if source.notes else self.replayer.add_file(source.data, file_id)
            if roots is not None:
                games = _root_rows(roots, file_id)
                if games is not None:
                    self.games += games
                    return
                self.replayer.rollback()
            self._take_core()
        self._add_pure(source, file_id)

    def _take_core(self) -> None:
        if self.replayer is not None and len(self.replayer):
            piece = self.replayer.take()
            self.pieces.append(piece)
            self.pieces_rows += len(piece[0]["file"])

    def _add_pure(self, source: Source, file_id: int) -> None:
        collector = _PureColumns(file_id, self.packed, _scheme_at(self.scheme, 19).bits == 128)
        summary = walk_source(
            source, collector, variations=self.variations, board_options={"scheme": self.scheme}
        )
        self.pure_file_ids.append(file_id)
        self.games += collector.games
        self.errors += summary.errors
        self.notes += summary.notes
        piece = collector.piece()
        self.pieces.append(piece)
        self.pieces_rows += len(piece[0]["file"])

    def finish(self) -> PositionBatch:
        self._take_core()
        columns, paths = _concatenate(self.pieces, self.packed)
        hashes = columns["hash_hi"]
        if _scheme_at(self.scheme, 19).bits == 128:
            hashes = np.stack([hashes, columns["hash_lo"]], axis=1)
        canonical, transform = _canonical(self.scheme, self.group, hashes, columns["size"])
        games = self.games
        batch = PositionBatch(
            scheme=self.scheme,
            group=self.group,
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
            canonical=canonical,
            transform=transform,
            depth=columns["depth"],
            variations=paths,
            games=GameTable(
                file=np.array([g[0] for g in games], dtype=np.int32),
                game=np.array([g[1] for g in games], dtype=np.int32),
                size=np.array([g[2] for g in games], dtype=np.uint8),
                handicap=np.array([g[3] for g in games], dtype=np.int32),
                text={name: [g[4].get(name) for g in games] for name in TEXT_PROPERTIES},
            ),
            packed_offsets=columns.get("packed_offsets"),
            packed_data=columns.get("packed"),
            errors=self.errors,
            notes=self.notes,
            pure_file_ids=self.pure_file_ids,
        )
        return batch


def _root_rows(
    roots: list[tuple[int, int, bytes | None, dict[str, str], dict[str, bytes]]], file_id: int
) -> list[tuple[int, int, int, int, dict[str, str]]] | None:
    """The game rows of a file the core replayed, its root text decoded as the walker
    decodes it; None where the walker would note or refuse something."""
    rows = []
    for index, (size, handicap, ca, text, raw) in enumerate(roots):
        try:
            encoding, ascii_safe = _encoding(ca)
        except SgfError:
            return None
        if not ascii_safe and text:
            raw = {**{name: value.encode("ascii") for name, value in text.items()}, **raw}
            text = {}
        for name, value in raw.items():
            text[name], repaired = decode_text(value, encoding)
            if repaired:
                return None
        if record_ruleset(text.get("RU"))[1] is not None:  # the walker notes an unknown RU
            return None
        rows.append((file_id, index, size, handicap, text))
    return rows


class _PureColumns(BaseVisitor):
    """Collects what the walker visits in one file into the columns of the core."""

    def __init__(self, file_id: int, packed: bool, wide: bool) -> None:
        self.file_id = file_id
        self.packed = packed
        self.shift = 64 if wide else 0
        self.rows: list[tuple[int, int, int, int, int, int, bool, int, int, int, int]] = []
        self.keys: list[bytes] = []
        self.paths: dict[tuple[int, ...], int] = {(): 0}
        self.games: list[tuple[int, int, int, int, dict[str, str]]] = []

    def begin_game(self, info: GameInfo) -> None:
        self.games.append((self.file_id, info.game, info.size, info.handicap, dict(info.root)))

    def visit_position(self, event: PositionEvent) -> None:
        board = event.board
        size = board.size
        point = -1 if event.point is None else event.point[0] * size + event.point[1]
        colour = {None: 0, "b": 1, "w": 2}[event.colour]
        path = self.paths.setdefault(event.variation, len(self.paths))
        self.rows.append(
            (event.game, path, event.move_number, colour, point, 1 if board.to_move == "b" else 2,
             event.node_has_setup, size, board.hash >> self.shift,
             board.hash & _LOW_WORD if self.shift else 0, event.depth)
        )
        if self.packed:
            self.keys.append(board.position_key())

    def handle_error(self, error: GohashError) -> bool:
        return False

    def piece(self) -> tuple[dict[str, Array], list[tuple[int, ...]]]:
        rows = self.rows
        n = len(rows)
        by_column = list(zip(*rows, strict=True)) if rows else [()] * 11
        columns: dict[str, Array] = {
            "file": np.full(n, self.file_id, dtype=np.int32),
            "game": np.array(by_column[0], dtype=np.int32),
            "variation": np.array(by_column[1], dtype=np.int32),
            "move_number": np.array(by_column[2], dtype=np.int32),
            "colour": np.array(by_column[3], dtype=np.int8),
            "point": np.array(by_column[4], dtype=np.int16),
            "to_move": np.array(by_column[5], dtype=np.int8),
            "setup": np.array(by_column[6], dtype=np.bool_),
            "size": np.array(by_column[7], dtype=np.uint8),
            # 64-bit hashes live in the high word, as the core writes them.
            "hash_hi": np.array(by_column[8], dtype=np.uint64),
            "hash_lo": np.array(by_column[9], dtype=np.uint64),
            "depth": np.array(by_column[10], dtype=np.int32),
        }
        if self.packed:
            lengths = np.array([len(k) for k in self.keys], dtype=np.int64)
            columns["packed_offsets"] = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
            columns["packed"] = np.frombuffer(b"".join(self.keys), dtype=np.uint8)
        return columns, list(self.paths)



def _concatenate(
    pieces: list[tuple[dict[str, Array], list[tuple[int, ...]]]], packed: bool
) -> tuple[dict[str, Array], list[tuple[int, ...]]]:
    """One set of columns from the pieces, the variation ids renumbered into one list."""
    if len(pieces) == 1:
        # Ids are already numbered from () on: the piece's arrays serve as they are.
        return pieces[0]
    ids: dict[tuple[int, ...], int] = {(): 0}
    parts: dict[str, list[Array]] = {}
    nbytes = 0
    for columns, piece_paths in pieces:
        renumber = np.array([ids.setdefault(p, len(ids)) for p in piece_paths], dtype=np.int32)
        for name, column in columns.items():
            if name == "variation":
                column = renumber[column]
            elif name == "packed_offsets":
                # Each piece's offsets start at 0: drop it and shift the rest on.
                column = column[1:] + nbytes
                nbytes += len(columns["packed"])
            parts.setdefault(name, []).append(column)
    columns = {}
    for name, column in _PureColumns(0, packed, False).piece()[0].items():
        columns[name] = np.concatenate([*parts.get(name, []), column])
    if packed:
        columns["packed_offsets"] = np.concatenate(
            [np.zeros(1, dtype=np.int64), *parts.get("packed_offsets", [])]
        )
    return columns, list(ids)


def _canonical(
    name: str, group: str, hashes: npt.NDArray[np.uint64], sizes: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint8]]:
    """Canonical keys and lowest elements, by each board size's scheme."""
    canonical = np.empty_like(hashes)
    transform = np.empty(len(hashes), dtype=np.uint8)
    present = np.unique(sizes)
    if len(present) == 1:
        return _scheme_at(name, int(present[0])).canonical_array(hashes, group)
    for size in present.tolist():
        rows = np.flatnonzero(sizes == size)
        canonical[rows], transform[rows] = _scheme_at(name, size).canonical_array(
            hashes[rows], group
        )
    return canonical, transform
