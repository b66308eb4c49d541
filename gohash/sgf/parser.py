"""Reading SGF: the game trees in SGF bytes.

Scope: a streaming parser for SGF collections, the limits that bound what
untrusted input expands to, and the decoding of the property values the
walker needs (board size, encoding, points, moves, text).  Replaying moves is
:mod:`gohash.sgf.walk`'s job.  Sources (files,
folders, archives, standard input, UTF-16 text) are :mod:`gohash.sgf.sources`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sgfmill import sgf_grammar, sgf_properties

from ..errors import BoardSizeError, SgfError, SgfLimitError, SgfSyntaxError
from ..group.coords import GTP_COLUMNS, sgf_point_table
from ..group.symmetry import MAX_SIZE, MIN_SIZE

__all__ = [
    "CLOSE",
    "MAX_DEPTH",
    "MAX_GAME_SETUP_POINTS",
    "MAX_NODE_SETUP_POINTS",
    "MAX_NODE_VALUES",
    "MAX_SOURCE_SETUP_POINTS",
    "MAX_VALUE_BYTES",
    "NODE",
    "OPEN",
    "GameText",
    "Limits",
    "Properties",
    "board_size",
    "decode_move",
    "decode_point",
    "decode_point_list",
    "decode_text",
    "encoding_of",
    "game_events",
    "root_text",
    "text_encoding",
]

Point = tuple[int, int]
Properties = dict[str, list[bytes]]

MAX_VALUE_BYTES = 1024 * 1024
MAX_DEPTH = 200_000
MAX_NODE_VALUES = 10_000
MAX_NODE_SETUP_POINTS = 4 * MAX_SIZE * MAX_SIZE
MAX_GAME_SETUP_POINTS = 1_000_000
MAX_SOURCE_SETUP_POINTS = 10_000_000

# Event kinds yielded by game_events.
NODE, OPEN, CLOSE = 0, 1, 2


# -- the streaming parser -----------------------------------------------------------------

# A value's text: plain bytes, then escapes ("\]") each followed by plain bytes.
# The repetition is bounded because the regex engine keeps state for every
# repetition (some 300 bytes): a value of a million escapes would take 300 MB.
# Values beyond the bounds are read by _read_values.
_BODY = rb"[^\\\]]*(?:\\.[^\\\]]*){0,16}"
# One token: the start of a node with a one-valued move (";B[pd]", most nodes
# of a game), a delimiter, or a whole property (identifier, first value, up to
# 16 further values), so the common cases cost one match each.
_TOKEN = re.compile(
    rb"\s*(?:;\s*([BW])\[([a-z]{2}|)\](?!\s*\[)|([;()])|([A-Za-z]{1,64})\s*\[("
    + _BODY
    + rb")\]((?:\s*\[" + _BODY + rb"\]){0,16})(?!\s*\[))",
    re.DOTALL,
)
_MORE_VALUES = re.compile(rb"\s*\[(" + _BODY + rb")\]", re.DOTALL)
_NEXT_VALUE = re.compile(rb"\s*\[")
_PLAIN = re.compile(rb"[^\\\]]*")
_GAME_START = re.compile(rb"\(\s*(?:;|[A-Z]{1,64}\s*\[)")
_BLANK = re.compile(rb"\s*\Z")
_OPEN_VALUE = re.compile(rb"\s*([A-Za-z]{1,64})\s*\[")
# Text outside a game that looks like SGF nodes: a game missing its opening
# parenthesis.  Reading on from the next "(;" would silently parse part of it.
_STRAY_NODE = re.compile(rb";\s*[A-Za-z]+\s*\[")
_LOWER = b"abcdefghijklmnopqrstuvwxyz"
_SETUP_NAMES = frozenset(("AB", "AW", "AE"))

_NOTE_NO_SEMICOLON = "the root node has no ';' after '(': read as the root"
_NOTE_NO_PARENTHESIS = "the game has no '(' before its root ';': read as if it had one"
_NOTE_NO_CLOSE = "the game has no ')' at its end: read to the end of the file"
# A file that starts with its root node, no "(" before it (some Fox files).
_ROOT_FIRST = re.compile(rb"\s*;\s*[A-Za-z]{1,64}\s*\[")
_NOTE_FF3 = "nodes after a closed variation: read as a further variation, as GoGui reads them"


@dataclass(frozen=True)
class Limits:
    """The limits the parser enforces (see the module docstring); smaller ones for tests."""

    value_bytes: int = MAX_VALUE_BYTES
    depth: int = MAX_DEPTH
    node_values: int = MAX_NODE_VALUES
    node_setup_points: int = MAX_NODE_SETUP_POINTS
    game_setup_points: int = MAX_GAME_SETUP_POINTS
    source_setup_points: int = MAX_SOURCE_SETUP_POINTS


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
    ``notes`` says what was read leniently (a root node without ``;``, nodes
    after a closed variation), once the events have been read.
    """

    def __init__(
        self, data: bytes, start: int, file: str, index: int, limits: Limits, points_before: int,
        *, implied_open: bool = False,
    ) -> None:
        self.data = data
        self.implied_open = implied_open  # starts at its root's ";", with no "(" before it
        self.start = start
        self.file = file
        self.index = index
        self.limits = limits
        self.points_before = points_before  # setup points of the earlier games of the source
        self.end: int | None = None
        self.setup_points = 0
        self.notes: list[str] = []

    def events(self) -> Iterator[tuple[int, Properties | None]]:
        """``(NODE, properties)`` for each node once all its properties are read,
        ``(OPEN, None)`` for ``(`` and ``(CLOSE, None)`` for ``)``, in file order;
        the first event is the OPEN of the game.  A syntax error raises
        :class:`SgfError`; the rest of the file is then unreadable, since where
        this game ends is unknown."""
        return _events(self)


def game_events(data: bytes, file: str, *, limits: Limits = Limits()) -> Iterator[GameText]:
    """The games of an SGF collection, in order.

    Read each game's events to the end before asking for the next game (its
    end is where the next search starts).  Raises SgfError if the data holds no
    game, or SGF nodes outside any game.
    """
    position = 0
    index = 0
    points = 0
    rootless = _ROOT_FIRST.match(data)
    if rootless is not None:
        # As Sabaki and KataGo read it: the game that "(" would have opened.
        game = GameText(data, data.index(b";"), file, 0, limits, 0, implied_open=True)
        yield game
        if game.end is None:
            raise SgfError("game 0 was not read to its end", file=file, game=0)
        position, points, index = game.end, game.setup_points, 1
    while True:
        start = _GAME_START.search(data, position)
        if start is None:
            _check_outside(data, position, len(data), file)
            if index == 0:
                raise SgfError("no SGF game found (expected '(;')", file=file, game=0)
            return
        _check_outside(data, position, start.start(), file)
        game = GameText(data, start.start(), file, index, limits, points)
        yield game
        if game.end is None:
            raise SgfError(f"game {index} was not read to its end", file=file, game=index)
        position = game.end
        points += game.setup_points
        index += 1


def _setup_points(values: list[bytes]) -> int:
    """How many points a point list names, a rectangle ``aa:cc`` counted by its
    area: an upper bound of what :func:`decode_point_list` expands it to."""
    count = 0
    for value in values:
        if len(value) == 5 and value[2] == 58:  # b":"
            count += (abs(value[0] - value[3]) + 1) * (abs(value[1] - value[4]) + 1)
        else:
            count += 1
    return count


def _events(game_text: GameText) -> Iterator[tuple[int, Properties | None]]:
    data, position, file, game = game_text.data, game_text.start, game_text.file, game_text.index
    limits = game_text.limits
    value_limit, depth_limit, values_limit = limits.value_bytes, limits.depth, limits.node_values
    match = _TOKEN.match
    more = _MORE_VALUES.finditer
    notes = game_text.notes = []
    depth = 0
    props: Properties | None = None
    values_in_node = node_points = game_points = 0
    # After "(" a node must follow; after a ")" that closes a child, only
    # another "(" or ")" may, or (as GoGui reads FF[3] files) a node that starts
    # a further child: an implied "(" closed with the enclosing ")".
    need_node = False
    after_child = False
    implied = [0]  # implied "(" per open "(", innermost last
    if game_text.implied_open:
        notes.append(_NOTE_NO_PARENTHESIS)
        depth, need_node = 1, True
        implied.append(0)
        yield OPEN, None
    while True:
        at = position
        m = match(data, position)
        if m is not None:
            position = m.end()
            colour, move, delimiter, ident, value, rest = m.groups()
            values = None
        else:  # a property beyond the token's bounds, or no SGF
            opened = _OPEN_VALUE.match(data, position)
            if opened is None:
                if game_text.implied_open and depth == 1 and _BLANK.match(data, position):
                    notes.append(_NOTE_NO_CLOSE)
                    if props is not None:
                        yield NODE, props
                    yield CLOSE, None
                    game_text.end = len(data)
                    game_text.setup_points = game_points
                    return
                raise _unexpected(data, position, file, game)
            colour = move = delimiter = None
            ident = opened.group(1)
            values, position = _read_values(
                data, opened.end(), values_limit - values_in_node, game_text, ident, at
            )
        if colour is not None or delimiter == b";":
            if props is not None:
                yield NODE, props
            elif after_child:
                depth += 1
                if depth > depth_limit:
                    raise _too_deep(depth_limit, at, file, game)
                implied[-1] += 1
                after_child = False
                if _NOTE_FF3 not in notes:
                    notes.append(_NOTE_FF3)
                yield OPEN, None
            if colour is None:
                props = {}
                values_in_node = node_points = 0
            else:
                props = {"B": [move]} if colour == b"B" else {"W": [move]}
                values_in_node, node_points = 1, 0
            need_node = False
        elif ident is not None:
            if props is None:
                if not (need_node and depth == 1):  # only the root may lack its ";"
                    raise SgfSyntaxError(
                        f"property {ident!r} outside a node at byte {at}",
                        file=file,
                        game=game,
                    )
                notes.append(_NOTE_NO_SEMICOLON)
                props = {}
                values_in_node = node_points = 0
                need_node = False
            name = ident.decode("ascii")
            if not name.isupper():
                name = ident.translate(None, _LOWER).decode("ascii")
            if values is None:
                if len(value) > value_limit or len(rest) > value_limit:
                    raise _too_large(game_text, ident, at)
                values = [value, *(v.group(1) for v in more(rest))] if rest else [value]
            values_in_node += len(values)
            if values_in_node > values_limit:
                raise _too_many(game_text, at)
            if name in _SETUP_NAMES:
                points = _setup_points(values)
                node_points += points
                game_points += points
                _check_setup(node_points, game_points, game_text, at)
            if name in props:
                props[name] += values
            else:
                props[name] = values
        else:
            if need_node:
                raise SgfSyntaxError(
                    f"empty variation at byte {at}: expected ';' after '('",
                    file=file,
                    game=game,
                )
            if props is not None:
                yield NODE, props
                props = None
            if delimiter == b"(":
                depth += 1
                if depth > depth_limit:
                    raise _too_deep(depth_limit, at, file, game)
                implied.append(0)
                need_node = True
                after_child = False
                yield OPEN, None
            else:
                for _ in range(implied.pop() + 1):
                    depth -= 1
                    yield CLOSE, None
                after_child = True
                if depth == 0:
                    game_text.end = position
                    game_text.setup_points = game_points
                    return


def _unexpected(data: bytes, position: int, file: str, game: int) -> SgfSyntaxError:
    if _BLANK.match(data, position):
        return SgfSyntaxError(
            "unexpected end of data: the game is not closed with ')' (truncated file?)",
            file=file,
            game=game,
        )
    return SgfSyntaxError(
        f"unexpected data at byte {position}: {data[position : position + 24]!r}",
        file=file,
        game=game,
    )


def _read_values(
    data: bytes, start: int, room: int, game_text: GameText, ident: bytes, at: int
) -> tuple[list[bytes], int]:
    """The values of a property beyond the token's bounds, the first starting at
    ``start`` (after its "["), and where they end; at most ``room`` values (what
    the node's limit leaves) are read."""
    value, position = _read_value(data, start, game_text, ident, at)
    values = [value]
    while more := _NEXT_VALUE.match(data, position):
        if len(values) >= room:
            raise _too_many(game_text, at)
        value, position = _read_value(data, more.end(), game_text, ident, at)
        values.append(value)
    return values, position


def _too_many(game_text: GameText, at: int) -> SgfLimitError:
    return SgfLimitError(
        f"node at byte {at} has more than the limit of {game_text.limits.node_values:,} "
        "property values",
        file=game_text.file,
        game=game_text.index,
    )


def _read_value(
    data: bytes, start: int, game_text: GameText, ident: bytes, at: int
) -> tuple[bytes, int]:
    """The value starting at ``start`` (after its "["), and where it ends, found
    without the regex engine's state per escape."""
    limit = game_text.limits.value_bytes
    plain = _PLAIN.match
    end = plain(data, start).end()  # type: ignore[union-attr]  # it matches anywhere
    while data[end : end + 1] == b"\\" and end - start <= limit:
        end = plain(data, min(end + 2, len(data))).end()  # type: ignore[union-attr]
    if end - start > limit:
        raise _too_large(game_text, ident, at)
    if data[end : end + 1] != b"]":
        raise SgfSyntaxError(
            f"unterminated property value at byte {at}: {data[at : at + 24]!r} "
            "(truncated file?)",
            file=game_text.file,
            game=game_text.index,
        )
    return data[start:end], end + 1


def _too_large(game_text: GameText, ident: bytes, at: int) -> SgfLimitError:
    return SgfLimitError(
        f"property {ident!r} at byte {at} is larger than the limit of "
        f"{game_text.limits.value_bytes:,} bytes",
        file=game_text.file,
        game=game_text.index,
    )


def _too_deep(limit: int, at: int, file: str, game: int) -> SgfLimitError:
    return SgfLimitError(
        f"variations nested deeper than the limit of {limit:,} at byte {at}", file=file, game=game
    )


def _check_setup(node: int, game: int, game_text: GameText, at: int) -> None:
    limits = game_text.limits
    for count, limit, what in [
        (node, limits.node_setup_points, "node"),
        (game, limits.game_setup_points, "game"),
        (game + game_text.points_before, limits.source_setup_points, "file"),
    ]:
        if count > limit:
            raise SgfLimitError(
                f"the {what} names more than the limit of {limit:,} setup points (AB, AW, AE; "
                f"rectangles counted by area) at byte {at}",
                file=game_text.file,
                game=game_text.index,
            )


# -- property values ----------------------------------------------------------------------

def decode_point(value: bytes, size: int) -> Point | None:
    """An SGF point or move as ``(row, col)``; None for a pass (``""``, or ``"tt"`` on
    boards up to 19).  Raises SgfError for anything else."""
    try:
        return sgf_point_table(size)[value]
    except KeyError:
        raise SgfError(f"bad coordinates {value!r} for a {size}x{size} board") from None


def decode_move(value: bytes, size: int) -> Point | None:
    """A move as ``(row, col)``, None for a pass: SGF letters (as :func:`decode_point`)
    or, for a value that cannot be SGF letters, GTP-style coordinates as SmartGo
    writes them and GoGui reads them: ``R16`` (column letter without I, row
    number from the bottom, either case) or ``pass``.  Raises SgfError for
    anything else."""
    table = sgf_point_table(size)
    if value in table:
        return table[value]
    text = value.strip()
    if text in table:
        return table[text]
    match = _GTP_MOVE.fullmatch(text)
    if match is None:
        if text.lower() == b"pass":
            return None
        raise SgfError(f"bad coordinates {value!r} for a {size}x{size} board")
    letter, digits = match.group(1).upper(), int(match.group(2))
    if letter == b"I":
        raise SgfError(
            f"bad coordinates {value!r} for a {size}x{size} board "
            "(GTP coordinates have no column I)"
        )
    col = GTP_COLUMNS.index(letter.decode("ascii"))
    if not (col < size and 1 <= digits <= size):
        raise SgfError(f"bad coordinates {value!r} for a {size}x{size} board (off the board)")
    return digits - 1, col


_GTP_MOVE = re.compile(rb"([A-Za-z])([0-9]{1,2})")


def decode_point_list(values: list[bytes], size: int) -> list[Point]:
    """The points of a point list (AB, AW, AE), with ``aa:cc`` rectangles expanded;
    an empty value is no point (``AE[]``, as sgfmill reads it)."""
    points: list[Point] = []
    table = sgf_point_table(size)
    for value in values:
        point = table.get(value)
        if point is not None:
            points.append(point)
            continue
        if not value:
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

    UTF-16 and UTF-32 mean UTF-8: such text reaches the parser decoded to UTF-8
    (see :func:`read_input`), or was converted without its CA being changed.
    Raises SgfError for an encoding Python does not know, or another one that
    does not keep ASCII as ASCII (the SGF syntax itself is ASCII)."""
    values = props.get("CA")
    if values is None:
        return None
    raw = values[0].strip().decode("latin-1")
    try:
        name: str = sgf_properties.normalise_charset_name(raw)
        if name.startswith(("UTF-16", "UTF-32")):
            return "UTF-8"
        if "[]();\\".encode(name) != b"[]();\\":
            raise LookupError(raw)
    except (LookupError, UnicodeError, ValueError):  # ValueError: a NUL in the name
        raise SgfError(f"unknown or unsupported encoding CA[{raw!r}]") from None
    return name


_SIMPLETEXT_SPECIAL = re.compile(rb"[\\\t\n\r\f\v]")


def decode_text(value: bytes, encoding: str | None) -> tuple[str, bool]:
    """A SimpleText value as a string, and whether it had to be repaired.

    ``encoding`` None (no CA, and no evidence of UTF-8: see :func:`root_text`):
    UTF-8 is tried first (what most modern files hold, whatever FF[4] says)
    and ISO-8859-1 is the fallback; otherwise bytes invalid in ``encoding``
    become U+FFFD."""
    # Most values (names, ranks, dates) hold no escape and no line break or tab:
    # SimpleText's mapping leaves them as they are.
    text = sgf_grammar.simpletext_value(value) if _SIMPLETEXT_SPECIAL.search(value) else value
    if encoding is None:
        try:
            return text.decode("utf-8"), False
        except UnicodeDecodeError:
            return text.decode("iso-8859-1"), False
    try:
        return text.decode(encoding), False
    except UnicodeDecodeError:
        return text.decode(encoding, errors="replace"), True


def root_text(values: dict[str, bytes], encoding: str | None) -> tuple[dict[str, str], str | None]:
    """The text properties of a root (each name's first value) decoded, and the
    encoding whose invalid bytes became U+FFFD (None if no byte was invalid).

    ``encoding`` is the CA's (:func:`encoding_of`).  Without CA, text that is not
    all valid UTF-8 is judged by its bytes, all values together: at least as
    many bytes in valid 3- and 4-byte UTF-8 sequences (CJK names are made of
    them) as bytes invalid in UTF-8 make it UTF-8 that lost some bytes (Fox
    writes names with a ``?`` in place of a byte or two), decoded as UTF-8
    with U+FFFD for what is invalid, so the valid characters stay searchable;
    less makes it Latin-1 (every value that is not valid UTF-8 read as
    ISO-8859-1, as :func:`decode_text` does).  Valid 2-byte sequences are no
    evidence: Latin-1 and GBK bytes often form them by chance, and longer ones
    rarely (tests/sgf/test_text_encoding.py measures it on real names)."""
    encoding = text_encoding(values.values(), encoding)
    text: dict[str, str] = {}
    repaired = False
    for name, value in values.items():
        text[name], bad = decode_text(value, encoding)
        repaired |= bad
    return text, encoding if repaired else None


def text_encoding(values: Iterable[bytes], encoding: str | None) -> str | None:
    """The encoding a game's text is read in: ``encoding`` (its CA's,
    :func:`encoding_of`), or without one ``"UTF-8"`` if the root's text
    properties ``values`` are UTF-8 that lost some bytes (:func:`root_text`
    says how that is judged), else None: each value UTF-8 if it is valid,
    else ISO-8859-1 (:func:`decode_text`)."""
    if encoding is None and _utf8_with_holes(values):
        return "UTF-8"
    return encoding


def _utf8_with_holes(values: Iterable[bytes]) -> bool:
    valid = invalid = 0
    for value in values:
        if value.isascii():
            continue
        # Each byte invalid in UTF-8 becomes one lone surrogate, U+DC80..U+DCFF.
        for char in value.decode("utf-8", "surrogateescape"):
            code = ord(char)
            if code < 0x80:
                continue
            if 0xDC80 <= code <= 0xDCFF:
                invalid += 1
            elif code >= 0x800:
                valid += 3 if code < 0x10000 else 4
    return invalid > 0 and valid >= invalid
