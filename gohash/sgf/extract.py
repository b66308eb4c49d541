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
from .parser import CLOSE, NODE, OPEN, GameText, Properties, encoding_of, game_events

__all__ = ["game_record", "main_line_comments"]

_MOVE = frozenset(("B", "W"))
_SETUP = frozenset(("AB", "AW", "AE"))
_CA = re.compile(r"CA\s*\[[^\]]*\]")
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


def game_record(data: bytes, file: str, game: int) -> str:
    """Game ``game`` (from 0) of the SGF collection ``data`` as an SGF record of its
    own: its text as recorded, decoded by its ``CA`` (without one: UTF-8, else
    ISO-8859-1, as the walker reads it), and labelled ``CA[UTF-8]`` when it was
    not UTF-8 already, so that the text stays right once written as UTF-8.

    Raises :class:`~gohash.errors.SgfError` if ``data`` has no such game or does
    not parse up to its end.
    """
    text, events = _game(data, file, game)
    assert text.end is not None
    raw = data[text.start : text.end]
    root = next(props for kind, props in events if kind == NODE and props is not None)
    encoding = encoding_of(root)
    if encoding in (None, "UTF-8"):
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
    record = _decode(raw, encoding)
    if "CA" in root:
        return _CA.sub("CA[UTF-8]", record, count=1)
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
