"""The index's SQLite schema, what its values mean, and its format version.

:data:`SCHEMA` is the DDL of a new index; :data:`SCHEMA_VERSION` (SQLite's
``user_version``) changes with every change to it, and an index of another
version is refused.  :data:`APPLICATION_ID` marks an SQLite file as a gohash
index.  :data:`COLUMN_RULES` says what a value of each column may be beyond
its declared type, for :mod:`gohash.index.check` and every reader;
:func:`statements` splits the DDL into statements, and :func:`generation`
reads the count of changes to the games table that its triggers keep.
"""

from __future__ import annotations

import secrets
import sqlite3

from ..group.symmetry import MAX_SIZE, MIN_SIZE
from ..metadata import STORED

__all__ = [
    "APPLICATION_ID", "COLUMN_RULES", "GENERATION", "INSERT_GAME", "SCHEMA", "SCHEMA_VERSION",
    "SQLITE_HEADER", "first_generation", "generation", "statements",
]

SCHEMA_VERSION = 7
APPLICATION_ID = 0x67686978  # "ghix"
SQLITE_HEADER = b"SQLite format 3\x00"

# The table's fields stored as recorded (gohash.metadata.STORED).
_STORED_COLUMNS = "".join(f"\n    {f.name} TEXT," for f in STORED)

SCHEMA = f"""
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    sha256 TEXT NOT NULL,
    games INTEGER NOT NULL,
    gohash_version TEXT NOT NULL,
    parse_version INTEGER NOT NULL,
    suicide INTEGER
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id),
    game INTEGER NOT NULL,
    size INTEGER NOT NULL,
    black TEXT,
    white TEXT,
    result TEXT,
    sha256 TEXT NOT NULL,
    positions INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    error TEXT,
    black_rank TEXT,
    white_rank TEXT,
    black_level INTEGER,
    white_level INTEGER,
    dt TEXT,
    date TEXT,
    event TEXT,
    komi REAL,
    handicap INTEGER NOT NULL,
    winner TEXT,{_STORED_COLUMNS}
    nodes INTEGER NOT NULL,
    record BLOB NOT NULL,
    ever_black BLOB NOT NULL,
    ever_white BLOB NOT NULL,
    UNIQUE (file_id, game)
);
CREATE TABLE errors (
    file_id INTEGER NOT NULL REFERENCES files(id),
    game INTEGER,
    move INTEGER,
    message TEXT NOT NULL
);
CREATE INDEX errors_by_file ON errors (file_id);
CREATE TABLE variations (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    parent INTEGER NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE aggregates (
    id INTEGER PRIMARY KEY,
    key INTEGER NOT NULL,
    size INTEGER NOT NULL,
    frame BLOB NOT NULL,
    UNIQUE (key, size, frame)
);
CREATE TABLE aggregate_moves (
    aggregate_id INTEGER NOT NULL REFERENCES aggregates(id),
    setup INTEGER NOT NULL,
    colour INTEGER NOT NULL,
    point INTEGER NOT NULL,
    swapped INTEGER NOT NULL,
    to_move INTEGER NOT NULL,
    year INTEGER NOT NULL,
    games INTEGER NOT NULL,
    black_wins INTEGER NOT NULL,
    white_wins INTEGER NOT NULL,
    first_date TEXT,
    last_date TEXT,
    PRIMARY KEY (aggregate_id, setup, colour, point, swapped, to_move, year)
) WITHOUT ROWID;
CREATE TRIGGER games_inserted AFTER INSERT ON games BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE name = 'generation';
END;
CREATE TRIGGER games_deleted AFTER DELETE ON games BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE name = 'generation';
END;
CREATE TRIGGER games_updated AFTER UPDATE ON games BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE name = 'generation';
END;
"""
# The triggers count every change to a games row, whoever makes it, in meta's
# 'generation' (format 7): what is derived from the games table (the pattern
# files' stores, gohash.index.patterns) names the generation it was read at
# and is read again only when the count has moved.

GENERATION = "generation"
"""The meta entry the triggers of :data:`SCHEMA` count the games table's changes
in, from a random start (:func:`first_generation`)."""


def first_generation() -> int:
    """A random start for :data:`GENERATION` (below 2**62): an index made anew
    where another was, its derived files left beside it, never takes up the
    other's count."""
    return secrets.randbits(62)


def statements(schema: str) -> list[str]:
    """The statements of ``schema`` (a trigger's body holds semicolons of its own)."""
    out: list[str] = []
    pending = ""
    for part in schema.split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                out.append(pending.strip())
            pending = ""
    return out


def generation(db: sqlite3.Connection) -> int | None:
    """The count of changes to the games table (:data:`GENERATION`), None where
    it is missing or not a count."""
    row = db.execute("SELECT value FROM meta WHERE name = ?", (GENERATION,)).fetchone()
    try:
        return None if row is None else int(row[0])
    except (TypeError, ValueError):
        return None


# The postings (a key's position occurred in a game at node seq) are in a file
# beside the index (gohash.index.postings); the game's record
# (gohash.index.games) confirms each and gives everything else.
# An aggregate holds a frequent position's canonical frame and the continuation
# rows of all its occurrences (gohash.index.aggregates).

_GAME_COLUMNS = (
    "file_id", "game", "size", "black", "white", "result", "sha256", "positions", "moves",
    "error", "black_rank", "white_rank", "black_level", "white_level", "dt", "date", "event",
    "komi", "handicap", "winner", *(f.name for f in STORED), "nodes", "record", "ever_black",
    "ever_white",
)
INSERT_GAME = (
    f"INSERT INTO games (id, {', '.join(_GAME_COLUMNS)}) "
    f"VALUES ({', '.join('?' * (len(_GAME_COLUMNS) + 1))})"
)
"""A row of the games table, id first, in the order of
:class:`gohash.index.writer.Writer`'s values."""

# ltrim() drops the hexadecimal digits: what is left is not one (a GLOB costs more).
_HEX64 = ("length({c}) = 64 AND ltrim({c}, '0123456789abcdef') = ''", "64 hexadecimal digits")
_COUNT = ("{c} >= 0", "a count (0 or more)")
_SIZE = (f"{{c}} BETWEEN {MIN_SIZE} AND {MAX_SIZE}", f"a board size {MIN_SIZE} to {MAX_SIZE}")
_LEVEL = ("{c} BETWEEN 0 AND 38 OR {c} BETWEEN 101 AND 109", "a rank level (0 to 38, 101 to 109)")
_DATE = ("{c} GLOB '[0-9][0-9][0-9][0-9]' OR {c} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]' "
         "OR {c} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'",
         "a date YYYY, YYYY-MM or YYYY-MM-DD")
_FILE = ("EXISTS (SELECT 1 FROM files f WHERE f.id = {c})", "the id of a file")
_GAME = ("EXISTS (SELECT 1 FROM games g WHERE g.id = {c})", "the id of a game")
_BIT = ("{c} IN (0, 1)", "0 or 1")
_NONE: None = None  # any value of the column's declared type

COLUMN_RULES: dict[str, dict[str, tuple[str, str] | None]] = {
    "meta": {"name": _NONE, "value": _NONE},
    "files": {
        "id": _NONE,
        "path": _NONE,
        "sha256": _HEX64,
        "games": ("{c} = (SELECT count(*) FROM games g WHERE g.file_id = files.id)",
                  "the number of its rows in games"),
        "gohash_version": _NONE,
        "parse_version": ("{c} >= 0", "a parse version (0 or more)"),
        "suicide": _BIT,
    },
    "games": {
        "id": _NONE,
        "file_id": _FILE,
        "game": ("{c} >= 0", "a game's index in its file (0 or more)"),
        "size": _SIZE,
        "black": _NONE,
        "white": _NONE,
        "result": _NONE,
        "sha256": _HEX64,
        "positions": ("{c} >= 0 AND {c} = coalesce((SELECT min(v.seq) FROM variations v "
                      "WHERE v.game_id = games.id), games.nodes)",
                      "its main line's nodes (those before its first variation)"),
        "moves": _COUNT,
        "error": _NONE,
        "black_rank": _NONE,
        "white_rank": _NONE,
        "black_level": _LEVEL,
        "white_level": _LEVEL,
        "dt": _NONE,
        "date": _DATE,
        "event": _NONE,
        # 9e999 is SQLite's infinity; NaN is stored as NULL.
        "komi": ("{c} > -9e999 AND {c} < 9e999", "a finite number"),
        "handicap": ("{c} BETWEEN 0 AND 999", "a handicap (0 to 999)"),
        "winner": ("{c} IN ('B', 'W')", "'B' or 'W'"),
        **{f.name: _NONE for f in STORED},
        "nodes": ("{c} >= 0 AND {c} <= length(games.record) / 2",
                  "a count of nodes its record holds (one word each at least)"),
        "record": ("length({c}) % 2 = 0 AND (length({c}) = 0) = (games.nodes = 0)",
                   "a stored game (an even number of bytes; none only without nodes)"),
        "ever_black": ("length({c}) = (games.size * games.size + 7) / 8",
                       "a bitmap of its board's points"),
        "ever_white": ("length({c}) = (games.size * games.size + 7) / 8",
                       "a bitmap of its board's points"),
    },
    "errors": {
        "file_id": _FILE,
        "game": ("{c} >= 0", "a game's index in its file (0 or more)"),
        "move": ("{c} >= 0", "a move number (0 or more)"),
        "message": _NONE,
    },
    "variations": {
        "game_id": _GAME,
        "seq": ("{c} >= 1 AND {c} < (SELECT g.nodes FROM games g "
                "WHERE g.id = variations.game_id)", "a node of its game"),
        "parent": ("{c} >= 0 AND {c} < variations.seq", "an earlier node"),
        "path": ("{c} != '' AND {c} NOT GLOB '*[^0-9.]*' AND {c} NOT GLOB '.*' "
                 "AND {c} NOT GLOB '*.' AND {c} NOT GLOB '*..*'",
                 "a variation path (numbers joined by '.')"),
    },
    "aggregates": {
        "id": _NONE,
        "key": _NONE,  # the frame's: gohash.index.aggregates checks it
        "size": _SIZE,
        "frame": ("length({c}) = aggregates.size * aggregates.size",
                  "size * size bytes (a position of its board)"),
    },
    "aggregate_moves": {
        "aggregate_id": ("EXISTS (SELECT 1 FROM aggregates a WHERE a.id = {c})",
                         "the id of an aggregate"),
        "setup": _BIT,
        "colour": ("{c} IN (0, 1, 2)", "0 (none), 1 or 2"),
        "point": ("{c} = -2 AND aggregate_moves.colour = 0 OR {c} >= -1 AND {c} < "
                  "(SELECT a.size * a.size FROM aggregates a "
                  "WHERE a.id = aggregate_moves.aggregate_id) AND aggregate_moves.colour != 0",
                  "a point of its board, -1 (a pass) or -2 (no move)"),
        "swapped": _BIT,
        "to_move": ("{c} IN (1, 2)", "1 or 2"),
        "year": ("{c} >= -1", "a year, or -1 (none)"),
        "games": ("{c} >= 1", "a count of games (1 or more)"),
        "black_wins": ("{c} BETWEEN 0 AND aggregate_moves.games", "a count of its games"),
        "white_wins": ("{c} BETWEEN 0 AND aggregate_moves.games - aggregate_moves.black_wins",
                       "a count of its games (with black_wins, at most games)"),
        "first_date": _DATE,
        "last_date": ("(" + _DATE[0] + ") AND {c} >= coalesce(aggregate_moves.first_date, {c})",
                      _DATE[1] + ", not before first_date"),
    },
}
"""What a value of each column of :data:`SCHEMA` may be beyond its declared type
(SQLite's ``typeof``, checked from the DDL, and ``NOT NULL``), by table and
column: an SQL condition a good value meets (``{c}`` the column; the row's
other columns as ``table.column``), and its wording for a fault; None where
any value of the type will do.  References to other tables are conditions
too.  :mod:`gohash.index.check` checks every row by it, and each reader the
rows it reads (:mod:`gohash.index.values`)."""
