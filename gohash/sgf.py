"""Reading SGF: where the bytes come from, and the game trees in them.

Scope: the sources of SGF data (files, folders searched recursively for
``*.sgf``, ``.zip`` and ``.tar.gz`` archives read in memory member by member,
standard input as ``-``), size limits for untrusted input, a streaming parser
for SGF collections, and the decoding of the property values the walker needs
(board size, encoding, points, text).  Replaying moves is :mod:`gohash.walk`'s
job.

The grammar is sgfmill's (:mod:`sgfmill.sgf_grammar`): the same tokens, the same
leniency (lower-case letters in property names are dropped, a repeated property
in a node adds values), the same errors (empty variation, property outside a
node, data after the end).  The parser differs in one way: it does not build the
tree.  :func:`game_events` yields the nodes and the parentheses of one game in
file order, which is a pre-order walk of the tree, so the walker can replay
every variation with undo and the memory used is bounded by the input, not by
a tree of Python objects 50 times its size.  Nothing here recurses, so a tree
of any depth is read with constant stack.

Limits (:data:`MAX_SOURCE_BYTES`, :data:`MAX_VALUE_BYTES`, :data:`MAX_DEPTH`):
a file, archive member or standard input larger than 64 MiB is an error for
that source, found before the data is used; a single property larger than
1 MiB, or variations nested more than 1,000,000 deep, is an error for that
game and ends the file.  So the memory a game takes stays within a small
multiple of 64 MiB, whatever its shape.
"""

from __future__ import annotations

import os
import re
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import IO

from sgfmill import sgf_grammar, sgf_properties

from .errors import BoardSizeError, GohashError
from .symmetry import MAX_SIZE, MIN_SIZE

__all__ = [
    "CLOSE",
    "MAX_DEPTH",
    "MAX_SOURCE_BYTES",
    "MAX_VALUE_BYTES",
    "NODE",
    "OPEN",
    "GameText",
    "Input",
    "Properties",
    "SgfError",
    "SgfLimitError",
    "SgfReadError",
    "SgfSyntaxError",
    "Source",
    "board_size",
    "decode_point",
    "decode_point_list",
    "decode_text",
    "encoding_of",
    "find_inputs",
    "game_events",
    "read_input",
]

Point = tuple[int, int]
Properties = dict[str, list[bytes]]

MAX_SOURCE_BYTES = 64 * 1024 * 1024
MAX_VALUE_BYTES = 1024 * 1024
MAX_DEPTH = 1_000_000

# Event kinds yielded by game_events.
NODE, OPEN, CLOSE = 0, 1, 2


class SgfError(GohashError):
    """Malformed SGF data, or a source that cannot be read."""


class SgfReadError(SgfError):
    """Data that cannot be read on: the rest of the file is skipped."""


class SgfSyntaxError(SgfReadError):
    """Data that is not SGF."""


class SgfLimitError(SgfReadError):
    """A source, a property value or a nesting of variations beyond the documented limits."""


# -- sources ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Input:
    """One thing named on the command line, resolved: a file, an archive or stdin.

    ``kind`` is ``"file"``, ``"zip"``, ``"tar"``, ``"stdin"`` or ``"missing"``;
    ``name`` is the path as given or as found under a given folder.  Inputs are
    small and picklable, so worker processes can be sent them.
    """

    kind: str
    name: str


@dataclass(frozen=True)
class Source:
    """The bytes of one SGF file, and the name to report it under."""

    name: str
    data: bytes


def _input_for(path: str) -> Input:
    lower = path.lower()
    if path == "-":
        return Input("stdin", "-")
    if not os.path.exists(path):
        return Input("missing", path)
    if lower.endswith(".zip"):
        return Input("zip", path)
    if lower.endswith((".tar.gz", ".tgz")):
        return Input("tar", path)
    return Input("file", path)


def find_inputs(paths: Iterable[str]) -> Iterator[Input]:
    """Resolve paths: folders become their ``*.sgf`` files (recursively, sorted)."""
    for path in paths:
        if path != "-" and os.path.isdir(path):
            for folder, subfolders, files in os.walk(path):
                subfolders.sort()
                for name in sorted(files):
                    if name.lower().endswith(".sgf"):
                        yield Input("file", os.path.join(folder, name))
        else:
            yield _input_for(path)


def _read_limited(stream: IO[bytes], name: str, limit: int) -> bytes:
    # Read one byte more than allowed: a declared size can lie (a zip bomb), the
    # bytes actually read cannot.
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise SgfLimitError(f"{name!r} is larger than the limit of {limit} bytes", file=name)
    return data


def read_input(inp: Input, *, limit: int = MAX_SOURCE_BYTES) -> Iterator[Source | SgfError]:
    """The SGF sources of one input: one for a file or stdin, one per ``.sgf``
    member of an archive.  A source that cannot be read is yielded as an error
    (so an archive's other members are still read); an archive that cannot be
    opened at all is yielded as one error."""
    name = inp.name
    try:
        if inp.kind == "missing":
            yield SgfError("no such file or folder", file=name)
        elif inp.kind == "stdin":
            yield Source(name, _read_limited(sys.stdin.buffer, "standard input", limit))
        elif inp.kind == "file":
            with open(name, "rb") as f:
                yield Source(name, _read_limited(f, name, limit))
        elif inp.kind == "zip":
            yield from _zip_sources(name, limit)
        else:
            yield from _tar_sources(name, limit)
    except SgfError as e:
        yield e
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError) as e:
        yield SgfError(f"cannot read {name!r}: {e}", file=name)


def _zip_sources(path: str, limit: int) -> Iterator[Source | SgfError]:
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if info.is_dir() or not info.filename.lower().endswith(".sgf"):
                continue
            name = f"{path}:{info.filename}"
            if info.file_size > limit:
                yield SgfLimitError(
                    f"archive member {info.filename!r} is larger than the limit of {limit} bytes",
                    file=name,
                )
                continue
            try:
                with archive.open(info) as member:
                    yield Source(name, _read_limited(member, info.filename, limit))
            except SgfLimitError as e:
                e.file = name
                yield e
            except (OSError, zipfile.BadZipFile, EOFError, ValueError) as e:
                yield SgfError(f"cannot read archive member {info.filename!r}: {e}", file=name)


def _tar_sources(path: str, limit: int) -> Iterator[Source | SgfError]:
    # Stream mode ("r|*"): members are read in order, never extracted to disk.
    with tarfile.open(path, mode="r|*") as archive:
        for info in archive:
            if not info.isfile() or not info.name.lower().endswith(".sgf"):
                continue
            name = f"{path}:{info.name}"
            if info.size > limit:
                yield SgfLimitError(
                    f"archive member {info.name!r} is larger than the limit of {limit} bytes",
                    file=name,
                )
                continue
            member = archive.extractfile(info)
            if member is not None:
                yield Source(name, _read_limited(member, info.name, limit))


# -- the streaming parser -----------------------------------------------------------------

_VALUE = rb"\[([^\\\]]*(?:\\.[^\\\]]*)*)\]"
# One token: the start of a node with a one-valued move (";B[pd]", most nodes
# of a game), a delimiter, or a whole property (identifier, first value, any
# further values), so the common cases cost one match each.
_TOKEN = re.compile(
    rb"\s*(?:;\s*([BW])\[([a-z]{2}|)\](?!\s*\[)|([;()])|([A-Za-z]{1,64})\s*"
    + _VALUE
    + rb"((?:\s*\[[^\\\]]*(?:\\.[^\\\]]*)*\])*))",
    re.DOTALL,
)
_MORE_VALUES = re.compile(rb"\s*" + _VALUE, re.DOTALL)
_GAME_START = re.compile(rb"\(\s*;")
_BLANK = re.compile(rb"\s*\Z")
_OPEN_VALUE = re.compile(rb"\s*[A-Za-z]{1,64}\s*\[")
# Text outside a game that looks like SGF nodes: a game missing its opening
# parenthesis.  Reading on from the next "(;" would silently parse part of it.
_STRAY_NODE = re.compile(rb";\s*[A-Za-z]+\s*\[")
_LOWER = b"abcdefghijklmnopqrstuvwxyz"


def _check_outside(data: bytes, start: int, end: int, file: str) -> None:
    stray = _STRAY_NODE.search(data, start, end)
    if stray:
        quote = data[stray.start() : stray.start() + 24]
        raise SgfError(
            f"SGF nodes outside any game at byte {stray.start()}: {quote!r} "
            "(missing opening parenthesis?)",
            file=file,
        )


class GameText:
    """One game of a collection: where it starts, and its events on demand.

    :meth:`events` may be called more than once (the walker reads the tree's
    shape first when it replays variations); each call parses from the start.
    """

    def __init__(
        self, data: bytes, start: int, file: str, index: int, value_limit: int, depth_limit: int
    ) -> None:
        self.data = data
        self.start = start
        self.file = file
        self.index = index
        self.value_limit = value_limit
        self.depth_limit = depth_limit
        self.end: int | None = None

    def events(self) -> Iterator[tuple[int, Properties | None]]:
        """``(NODE, properties)`` for each node once all its properties are read,
        ``(OPEN, None)`` for ``(`` and ``(CLOSE, None)`` for ``)``, in file order;
        the first event is the OPEN of the game.  A syntax error raises
        :class:`SgfError`; the rest of the file is then unreadable, since where
        this game ends is unknown."""
        return _events(self)


def game_events(
    data: bytes,
    file: str,
    *,
    value_limit: int = MAX_VALUE_BYTES,
    depth_limit: int = MAX_DEPTH,
) -> Iterator[GameText]:
    """The games of an SGF collection, in order.

    Read each game's events to the end before asking for the next game (its
    end is where the next search starts).  Raises SgfError if the data holds no
    game, or SGF nodes outside any game.
    """
    position = 0
    index = 0
    while True:
        start = _GAME_START.search(data, position)
        if start is None:
            _check_outside(data, position, len(data), file)
            if index == 0:
                raise SgfError("no SGF game found (expected '(;')", file=file, game=0)
            return
        _check_outside(data, position, start.start(), file)
        game = GameText(data, start.start(), file, index, value_limit, depth_limit)
        yield game
        if game.end is None:
            raise SgfError(f"game {index} was not read to its end", file=file, game=index)
        position = game.end
        index += 1


def _events(game_text: GameText) -> Iterator[tuple[int, Properties | None]]:
    data, position, file, game = game_text.data, game_text.start, game_text.file, game_text.index
    value_limit, depth_limit = game_text.value_limit, game_text.depth_limit
    match = _TOKEN.match
    more = _MORE_VALUES.finditer
    depth = 0
    props: Properties | None = None
    # After "(" a node must follow; after a ")" that closes a child, only
    # another "(" or ")" may.
    need_node = False
    after_child = False
    while True:
        m = match(data, position)
        if m is None:
            if _BLANK.match(data, position):
                raise SgfSyntaxError(
                    "unexpected end of data: the game is not closed with ')' (truncated file?)",
                    file=file,
                    game=game,
                )
            if _OPEN_VALUE.match(data, position):
                raise SgfSyntaxError(
                    f"unterminated property value at byte {position}: "
                    f"{data[position : position + 24]!r} (truncated file?)",
                    file=file,
                    game=game,
                )
            raise SgfSyntaxError(
                f"unexpected data at byte {position}: {data[position : position + 24]!r}",
                file=file,
                game=game,
            )
        position = m.end()
        colour, move, delimiter, ident, value, rest = m.groups()
        if colour is not None:
            if after_child:
                raise SgfSyntaxError(
                    f"node after a variation at byte {m.start()}", file=file, game=game
                )
            if props is not None:
                yield NODE, props
            props = {"B": [move]} if colour == b"B" else {"W": [move]}
            need_node = False
        elif ident is not None:
            if props is None:
                raise SgfSyntaxError(
                    f"property {ident!r} outside a node at byte {m.start()}", file=file, game=game
                )
            if len(value) > value_limit or len(rest) > value_limit:
                raise SgfLimitError(
                    f"property {ident!r} at byte {m.start()} is larger than the limit of "
                    f"{value_limit} bytes",
                    file=file,
                    game=game,
                )
            name = ident.decode("ascii")
            if not name.isupper():
                name = ident.translate(None, _LOWER).decode("ascii")
            values = [value, *(v.group(1) for v in more(rest))] if rest else [value]
            if name in props:
                props[name] += values
            else:
                props[name] = values
        elif delimiter == b";":
            if after_child:
                raise SgfSyntaxError(
                    f"node after a variation at byte {m.start()}", file=file, game=game
                )
            if props is not None:
                yield NODE, props
            props = {}
            need_node = False
        else:
            if need_node:
                raise SgfSyntaxError(
                    f"empty variation at byte {m.start()}: expected ';' after '('",
                    file=file,
                    game=game,
                )
            if props is not None:
                yield NODE, props
                props = None
            if delimiter == b"(":
                depth += 1
                if depth > depth_limit:
                    raise SgfLimitError(
                        f"variations nested deeper than the limit of {depth_limit} at byte "
                        f"{m.start()}",
                        file=file,
                        game=game,
                    )
                need_node = True
                after_child = False
                yield OPEN, None
            else:
                depth -= 1
                after_child = True
                yield CLOSE, None
                if depth == 0:
                    game_text.end = position
                    return


# -- property values ----------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@cache
def _point_table(size: int) -> dict[bytes, Point | None]:
    table: dict[bytes, Point | None] = {
        (_LETTERS[col] + _LETTERS[size - 1 - row]).encode(): (row, col)
        for row in range(size)
        for col in range(size)
    }
    table[b""] = None
    if size <= 19:
        table[b"tt"] = None
    return table


def decode_point(value: bytes, size: int) -> Point | None:
    """An SGF point or move as ``(row, col)``; None for a pass (``""``, or ``"tt"`` on
    boards up to 19).  Raises SgfError for anything else."""
    try:
        return _point_table(size)[value]
    except KeyError:
        raise SgfError(f"bad coordinates {value!r} for a {size}x{size} board") from None


def decode_point_list(values: list[bytes], size: int) -> list[Point]:
    """The points of a point list (AB, AW, AE), with ``aa:cc`` rectangles expanded."""
    points: list[Point] = []
    table = _point_table(size)
    for value in values:
        point = table.get(value)
        if point is not None:
            points.append(point)
            continue
        first, _, last = value.partition(b":")
        corner1, corner2 = table.get(first), table.get(last)
        if corner1 is None or corner2 is None or not last:
            raise SgfError(f"bad point {value!r} in a point list for a {size}x{size} board")
        rows = range(min(corner1[0], corner2[0]), max(corner1[0], corner2[0]) + 1)
        cols = range(min(corner1[1], corner2[1]), max(corner1[1], corner2[1]) + 1)
        points += [(row, col) for row in rows for col in cols]
    return points


def board_size(props: Properties) -> int:
    """The board size of a root node: 19 without SZ; a clear error for anything but
    a single number in 1..26 (a rectangular ``SZ[19:13]`` included)."""
    values = props.get("SZ")
    if values is None:
        return 19
    raw = values[0].strip()
    if b":" in raw:
        raise BoardSizeError(f"rectangular board SZ[{raw.decode('latin-1')}] is not supported")
    if not raw.isdigit() or len(raw) > 3:
        raise SgfError(f"board size SZ[{raw.decode('latin-1')}] is not a number")
    size = int(raw)
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise BoardSizeError(f"board size SZ[{size}] is outside {MIN_SIZE}..{MAX_SIZE}")
    return size


def encoding_of(props: Properties) -> str | None:
    """The Python codec named by a root node's CA, or None without CA.

    Raises SgfError for an encoding Python does not know, or one that does not
    keep ASCII as ASCII (the SGF syntax itself is ASCII)."""
    values = props.get("CA")
    if values is None:
        return None
    raw = values[0].strip().decode("latin-1")
    try:
        name: str = sgf_properties.normalise_charset_name(raw)
        if "[]();\\".encode(name) != b"[]();\\":
            raise LookupError(raw)
    except (LookupError, UnicodeError):
        raise SgfError(f"unknown or unsupported encoding CA[{raw}]") from None
    return name


def decode_text(value: bytes, encoding: str | None) -> tuple[str, bool]:
    """A SimpleText value as a string, and whether it had to be repaired.

    Without CA, UTF-8 is tried first (what most modern files hold, whatever
    FF[4] says) and ISO-8859-1 is the fallback; bytes invalid in the declared
    encoding become U+FFFD."""
    text = sgf_grammar.simpletext_value(value)
    if encoding is None:
        try:
            return text.decode("utf-8"), False
        except UnicodeDecodeError:
            return text.decode("iso-8859-1"), False
    try:
        return text.decode(encoding), False
    except UnicodeDecodeError:
        return text.decode(encoding, errors="replace"), True
