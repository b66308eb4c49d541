"""One game of an SGF collection as a record of its own, and its main line's comments.

Scope: :func:`game_record`, the text of one game of a source (what the
explorer's "download SGF" serves), and :func:`main_line_comments`, the ``C``
of each position of a game's main line, numbered as the walker
(:mod:`gohash.sgf.walk`) numbers positions.  Both parse with
:func:`gohash.sgf.parser.game_events` under its limits.
"""

from __future__ import annotations

import re

from sgfmill import sgf_grammar

from ..errors import SgfError
from ..metadata import TEXT_PROPERTIES
from .parser import (
    CLOSE,
    NODE,
    OPEN,
    GameText,
    Properties,
    encoding_of,
    game_events,
    text_encoding,
)

__all__ = ["game_record", "main_line_comments"]

_MOVE = frozenset(("B", "W"))
_SETUP = frozenset(("AB", "AW", "AE"))
_ROOT = re.compile(r"\(\s*;?")


Events = list[tuple[int, Properties | None]]


def _game(data: bytes, file: str, game: int) -> tuple[GameText, Events]:
    """Game ``game`` of ``data`` and its events, read to its end."""
    for text in game_events(data, file):
        events = list(text.events())
        if text.index == game:
            return text, events
    raise SgfError(f"the record has no game {game}", file=file, game=game)


def _decode(value: bytes, encoding: str | None) -> str:
    if encoding is None:
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value.decode("iso-8859-1")
    return value.decode(encoding, errors="replace")


# A property's name, or a value with its brackets (escapes inside), or ";" that
# starts a node: the tokens of a game's text, which has parsed already.
_TOKENS = re.compile(rb"([A-Za-z]+)(?=\s*\[)|\[((?:[^\\\]]|\\.)*)\]|(;)", re.DOTALL)
# In a value: an escaped line break (a soft line break, kept as written), an
# escaped byte (the byte), or plain bytes.
_VALUE_PARTS = re.compile(rb"\\(\r\n|\n\r|[\r\n])|\\(.)|([^\\]+)", re.DOTALL)


def _value_text(raw: bytes, encoding: str | None) -> str:
    """A value (between its brackets, escapes as written) decoded as the readers
    decode it, written back with ``\\`` and ``]`` escaped: the escapes are
    undone before decoding, since a byte of a multi-byte character (Shift-JIS,
    Big5, GBK) may be a backslash or bracket that its writer escaped."""
    parts: list[bytes | str] = []
    for soft, escaped, plain in _VALUE_PARTS.findall(raw):
        if soft:
            parts.append(soft.decode("ascii"))
        elif parts and isinstance(parts[-1], bytes):
            parts[-1] += escaped or plain
        else:
            parts.append(escaped or plain)
    whole = b"".join(p for p in parts if isinstance(p, bytes))
    if encoding is None:
        try:
            whole.decode("utf-8")
            encoding = "utf-8"
        except UnicodeDecodeError:
            encoding = "iso-8859-1"
    return "".join(
        "\\" + p if isinstance(p, str)
        else p.decode(encoding, errors="replace").replace("\\", "\\\\").replace("]", "\\]")
        for p in parts
    )


def game_record(data: bytes, file: str, game: int) -> str:
    """Game ``game`` (from 0) of the SGF collection ``data`` as an SGF record of its
    own, labelled ``CA[UTF-8]`` unless it is all ASCII: its text as the readers decode it
    (:func:`gohash.sgf.parser.root_text`): by its ``CA``, bytes invalid there
    replaced by U+FFFD; without one, as UTF-8 with U+FFFD for its invalid bytes
    if the root's text says it is UTF-8 that lost some bytes
    (:func:`~gohash.sgf.parser.text_encoding`), else each value as UTF-8 if
    valid, else ISO-8859-1.  A record already valid UTF-8 under a ``CA`` of
    UTF-8 (or none) is given as it is, ``CA[UTF-8]`` added if it has none.  A
    game without its ``(`` (a file that starts with ``;``) gets one, and its
    ``)`` if it lacked it.

    Raises :class:`~gohash.errors.SgfError` if ``data`` has no such game or does
    not parse up to its end.
    """
    text, events = _game(data, file, game)
    assert text.end is not None
    raw = data[text.start : text.end]
    if text.implied_open:
        raw = b"(" + raw.rstrip() + (b"" if raw.rstrip().endswith(b")") else b")")
    root = next(props for kind, props in events if kind == NODE and props is not None)
    declared = encoding_of(root)
    encoding = text_encoding((root[name][0] for name in TEXT_PROPERTIES if name in root),
                             declared)
    if encoding in (None, "UTF-8"):
        try:
            record = raw.decode("utf-8")
        except UnicodeDecodeError:
            record = None
        if record is not None:
            return record if "CA" in root or record.isascii() else _labelled(record)
    out: list[str] = []
    at = nodes = 0
    ident = b""
    for token in _TOKENS.finditer(raw):
        out.append(raw[at : token.start()].decode("ascii", errors="replace"))
        at = token.end()
        name, value, semicolon = token.groups()
        if semicolon:
            nodes += 1
            out.append(";")
        elif name:
            ident = name
            out.append(name.decode("ascii"))
        elif nodes == 1 and ident == b"CA":
            out.append("[UTF-8]")
        else:
            out.append("[" + _value_text(value, encoding) + "]")
    out.append(raw[at:].decode("ascii", errors="replace"))
    record = "".join(out)
    return record if "CA" in root or record.isascii() else _labelled(record)


def _labelled(record: str) -> str:
    """``record`` with ``CA[UTF-8]`` at the start of its root."""
    opening = _ROOT.match(record)
    assert opening is not None  # game_events starts every game at "(" and a root
    at = opening.end()
    return record[:at] + "CA[UTF-8]" + record[at:]


def main_line_comments(data: bytes, file: str, game: int) -> list[str | None]:
    """The comment (``C``) of each position of game ``game``'s main line: one entry
    per position the walker visits (the root, then each node with a move or
    setup stones), None where there is none.  A node with neither adds its
    comment to the previous position's, as that is the position shown when it
    is read.  Nodes the walker would skip as errors are counted here, so a
    caller compares the length with the positions it has."""
    _, events = _game(data, file, game)
    encoding: str | None = None
    comments: list[str | None] = []
    # Per open "(": whether it is on the main line, and its children seen so far.
    stack: list[list[int]] = []
    for kind, props in events:
        if kind == OPEN:
            on = not stack or (stack[-1][0] == 1 and stack[-1][1] == 0)
            if stack:
                stack[-1][1] += 1
            stack.append([int(on), 0])
        elif kind == CLOSE:
            stack.pop()
        elif props is not None and stack[-1][0]:
            root = not comments
            if root:
                encoding = encoding_of(props)
            comment = None
            if "C" in props:
                comment = "\n".join(
                    _decode(sgf_grammar.text_value(v), encoding) for v in props["C"]
                )
            if root:
                comments.append(comment)
                if not props.keys().isdisjoint(_MOVE):
                    comments.append(None)  # the position after the root's own move
            elif not props.keys().isdisjoint(_MOVE | _SETUP):
                comments.append(comment)
            elif comment is not None:
                last = comments[-1]
                comments[-1] = comment if last is None else last + "\n" + comment
    return comments
