"""The index's SQLite schema and its format version.

:data:`SCHEMA` is the DDL of a new index; :data:`SCHEMA_VERSION` (SQLite's
``user_version``) changes with every change to it, and an index of another
version is refused.  :data:`APPLICATION_ID` marks an SQLite file as a gohash
index.
"""

from __future__ import annotations

from ..metadata import STORED

__all__ = ["APPLICATION_ID", "INSERT_GAME", "SCHEMA", "SCHEMA_VERSION", "SQLITE_HEADER"]

SCHEMA_VERSION = 5
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
CREATE TABLE postings (
    key INTEGER NOT NULL,
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    PRIMARY KEY (key, game_id, seq)
) WITHOUT ROWID;
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
"""
# A posting says the position of a key occurred in a game at node seq; the
# game's record (gohash.index.games) confirms it and gives everything else.
# An aggregate holds a frequent position's canonical frame and the continuation
# rows of all its occurrences (gohash.index.aggregates).

_GAME_COLUMNS = (
    "file_id", "game", "size", "black", "white", "result", "sha256", "positions", "moves",
    "error", "black_rank", "white_rank", "black_level", "white_level", "dt", "date", "event",
    "komi", "handicap", "winner", *(f.name for f in STORED), "nodes", "record", "ever_black",
    "ever_white",
)
INSERT_GAME = (
    f"INSERT INTO games ({', '.join(_GAME_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_GAME_COLUMNS))})"
)
"""A row of the games table, in the order of :class:`gohash.index.writer.Writer`'s values."""
