"""A game of an index read back: for a viewer, and as SGF without its source file.

Scope: a game's row (:func:`stored_game`) rebuilt for a viewer
(:func:`rebuilt_game`) or exported as SGF (:func:`export_sgf`).
:func:`stored_nodes` reads the index's record of a game (docs/design.md,
"Stored games") into its nodes, and :func:`game_sgf` writes them, with the
root's properties, as an SGF record of its own (FF[4], UTF-8): every node
the index holds, its moves, setup stones and variations, so that any SGF
reader replays it to the positions the index holds.  Comments and properties
the index does not keep are not in it.  :func:`download_name` names such a
record's file.  :func:`read_record` reads a game as recorded again from its
file instead, when the file is there unchanged.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import GohashError, UnknownGameError
from ..group.coords import sgf_letters
from ..metadata import STORED
from ..sgf.extract import game_record, main_line_comments
from ..sgf.sources import source_again
from .games import NO_POINT, TAG_MOVE, TAG_PARENT, TAG_SETUP, replay_game
from .results import RECORD_COLUMNS, GamePosition, GameRecord, Record
from .values import damaged, require_games

__all__ = [
    "StoredNode", "download_name", "export_sgf", "game_sgf", "read_record", "rebuilt_game",
    "root_text", "stored_game", "stored_nodes",
]

MAX_NAME_CHARS = 120
"""The longest file name :func:`download_name` gives, ``.sgf`` included."""
# What file systems refuse or shells trip on in a name, and control characters.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|\ufffd]+')

@dataclass(frozen=True)
class StoredNode:
    """One node of a stored game: its ``parent`` (-1 for node 0), its move
    (``colour`` 1 black, 2 white, 0 none; ``point`` ``row * size + col``, row 0
    the bottom line, None a pass or no move) and, for a node whose position was
    set, ``edits``: each changed point's colour after the node (0 empty), the
    move's stone and captures included."""

    parent: int
    colour: int
    point: int | None
    edits: tuple[tuple[int, int], ...] | None


def stored_nodes(blob: bytes, size: int) -> list[StoredNode]:
    """The nodes of a stored game of a ``size`` board, in stored order (node 0 the
    initial position, whose ``colour`` is the side to move at first).  Raises
    :class:`~gohash.errors.GohashError` on a blob that is not a stored game."""
    if len(blob) % 2:
        raise GohashError("a stored game has an odd number of bytes")
    words = [int.from_bytes(blob[i : i + 2], "little") for i in range(0, len(blob), 2)]
    nodes: list[StoredNode] = []
    parent: int | None = None
    at = 0
    while at < len(words):
        word = words[at]
        tag, colour, point = word >> 12, word >> 10 & 3, word & 1023
        if tag == TAG_PARENT and at + 2 < len(words):
            parent = words[at + 1] | words[at + 2] << 16
            at += 3
            continue
        number = len(nodes)
        up = number - 1 if parent is None else parent
        parent = None
        if not -1 <= up < number or (point != NO_POINT and point >= size * size):
            raise GohashError(f"a stored game's node {number} does not fit its game")
        move = None if point == NO_POINT else point
        if tag == TAG_MOVE and number:
            nodes.append(StoredNode(up, colour, move, None))
            at += 1
        elif tag == TAG_SETUP and at + 1 < len(words):
            count = words[at + 1]
            edits = tuple((e >> 10 & 3, e & 1023) for e in words[at + 2 : at + 2 + count])
            if len(edits) < count or any(p >= size * size for _, p in edits):
                raise GohashError(f"a stored game's node {number} has edits off its board")
            nodes.append(StoredNode(up, colour, move, edits))
            at += 2 + count
        else:
            raise GohashError(f"a stored game's word {at} has tag {tag}, which is no node")
    if not nodes or nodes[0].edits is None:
        raise GohashError("a stored game does not start with its initial position")
    return nodes


def game_sgf(blob: bytes, size: int, root: Mapping[str, str]) -> str:
    """The stored game ``blob`` of a ``size`` board as an SGF record: ``root``'s
    properties (SGF name to text, like ``{"PB": "Lee Sedol"}``), then the nodes.

    A node whose position was set gets ``AB``, ``AW`` and ``AE`` for its
    changed points and its move after them; a point its move's captures
    emptied is among its ``AE``, and so is the move's own point, which any
    reader replays to the same position.  White to move at first is written ``PL[W]``.
    """
    nodes = stored_nodes(blob, size)
    children: list[list[int]] = [[] for _ in nodes]
    for number, node in enumerate(nodes[1:], start=1):
        children[node.parent].append(number)
    head = {"GM": "1", "FF": "4", "CA": "UTF-8", "SZ": str(size), **root}
    if nodes[0].colour == 2:
        head["PL"] = "W"
    text = "(;" + "".join(f"{name}[{_escape(value)}]" for name, value in head.items())
    text += _properties(nodes[0], size)
    # The tree, depth first, from a stack of nodes and brackets: a node with
    # several children opens a variation for each, main line first.
    out = [text]
    stack: list[int | str] = [")"]

    def below(node: int) -> None:
        if len(children[node]) == 1:
            stack.append(children[node][0])
        else:
            stack.extend(x for child in reversed(children[node]) for x in (")", child, "("))

    below(0)
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        else:
            out.append(";" + _properties(nodes[item], size))
            below(item)
    return "".join(out) + "\n"


def _properties(node: StoredNode, size: int) -> str:
    text = ""
    if node.edits is not None:
        groups: dict[str, list[str]] = {"AB": [], "AW": [], "AE": []}
        for colour, point in node.edits:
            if node.colour and point == node.point:
                continue  # the move places it
            groups[("AE", "AB", "AW")[colour]].append(_point(point, size))
        if node.parent >= 0 and node.colour and node.point is not None:
            # The move's point may have held a stone that the node's setup took
            # away (no edit: the point ends as it was): empty it first.
            groups["AE"].append(_point(node.point, size))
        text += "".join(name + "".join(f"[{p}]" for p in sorted(points))
                        for name, points in groups.items() if points)
        if node.parent < 0:
            return text
    if node.colour:
        where = "" if node.point is None else _point(node.point, size)
        text += f"{('B', 'W')[node.colour - 1]}[{where}]"
    return text


def _point(point: int, size: int) -> str:
    return sgf_letters(divmod(point, size), size)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def download_name(record: Record) -> str:
    """The file name of a game's SGF record of its own: its date and players
    (``2016-03-13 Lee Sedol vs AlphaGo.sgf``, one name if it has one), else its source file's name
    (``kgs-2017-01.sgf``, with ``-2`` for its second game and so on), else
    ``game-ID.sgf``.  Characters file systems refuse (``/ \\ : * ? " < > |``,
    control characters, U+FFFD) become ``_``; at most :data:`MAX_NAME_CHARS`."""
    stem = ""
    if record.black or record.white:
        stem = " vs ".join(name for name in (record.black, record.white) if name)
        if record.date:
            stem = f"{record.date} {stem}"
    elif record.file and record.file != "-":
        base = os.path.basename(record.file.rsplit(":", 1)[-1].replace("\\", "/"))
        stem = base[:-4] if base.lower().endswith(".sgf") else base
        if stem and record.game:
            stem += f"-{record.game + 1}"
    stem = " ".join(_UNSAFE.sub("_", stem).split()).strip("._ ")
    if not stem:
        stem = f"game-{record.id}"
    return stem[: MAX_NAME_CHARS - 4].rstrip() + ".sgf"


def read_record(
    record: Record, *, file_sha: str, folders: Sequence[str] = ()
) -> str:
    """Game ``record`` as an SGF record of its own
    (:func:`gohash.sgf.extract.game_record`), read again from its file, which must
    have the SHA-256 ``file_sha``; relative paths are tried as
    :func:`source_again` tries them.  Raises :class:`~gohash.errors.SourceGoneError` if the file is
    gone, :class:`GohashError` if it changed."""
    source = source_again(record.file, file_sha, folders)
    return game_record(source.data, record.file, record.game)


# -- a game of an index, read back ---------------------------------------------------------------


def stored_game(db: sqlite3.Connection, path: str, game_id: int
                ) -> tuple[Record, str, int, int, bytes]:
    """A game's record, its file's SHA-256, and its stored form: nodes, main-line
    positions and the record blob (of the index at ``path``, ``db`` open on it)."""
    require_games(db, "id = ?", (game_id,))
    row = db.execute(
        f"SELECT {RECORD_COLUMNS}, f.sha256, g.nodes, g.positions, g.record FROM games g "
        "JOIN files f ON f.id = g.file_id WHERE g.id = ?",
        (game_id,),
    ).fetchone()
    if row is None:
        raise UnknownGameError(f"the index has no game with id {game_id!r}", file=path)
    return Record.from_row(row[:-4]), *row[-4:]


def rebuilt_game(db: sqlite3.Connection, path: str, game_id: int) -> GameRecord:
    """:meth:`Index.game <gohash.index.index.Index.game>` of the index at ``path``
    (``db`` open on it)."""
    record, file_sha, nodes, main, blob = stored_game(db, path, game_id)
    replayed = replay_game(path, game_id, blob, record.size, nodes, main - 1)
    try:
        source = source_again(record.file, file_sha, _folders(path))
        comments = main_line_comments(source.data, record.file, record.game)
    except GohashError:  # the file is gone or changed, or read leniently
        comments = []
    return GameRecord(record, root_text(record), [
        GamePosition(
            int(replayed.move_number[i]),
            {0: None, 1: "b", 2: "w"}[int(replayed.colour[i])],
            None if replayed.point[i] < 0 else divmod(int(replayed.point[i]), record.size),
            bool(replayed.setup[i]) if i else bool(replayed.boards[0].any()),
            replayed.boards[i].reshape(record.size, record.size),
        )
        for i in range(main)
    ], comments if len(comments) == main else [])


def export_sgf(db: sqlite3.Connection, path: str, game_id: int) -> str:
    """:meth:`Index.sgf <gohash.index.index.Index.sgf>` of the index at ``path``
    (``db`` open on it)."""
    record, file_sha, _, _, blob = stored_game(db, path, game_id)
    try:
        return read_record(record, file_sha=file_sha, folders=_folders(path))
    except GohashError:  # gone or changed: the index's own copy
        pass
    root = root_text(record)
    if record.handicap:
        root["HA"] = str(record.handicap)
    try:
        return game_sgf(blob, record.size, root)
    except GohashError as e:
        raise damaged(path, f"game {game_id}: {e.reason}") from None


def _folders(path: str) -> list[str]:
    """Where relative paths of the index ``path``'s files are tried besides the
    current folder."""
    return [os.path.dirname(os.path.abspath(path))]


def root_text(record: Record) -> dict[str, str]:
    """The root's text properties a record holds, as SGF names them."""
    values = {
        "PB": record.black, "PW": record.white, "BR": record.black_rank,
        "WR": record.white_rank, "RE": record.result, "DT": record.dt, "EV": record.event,
        "KM": None if record.komi is None else f"{record.komi:g}",
        **{f.prop: record.fields.get(f.name) for f in STORED},
    }
    return {name: value for name, value in values.items() if value is not None}
