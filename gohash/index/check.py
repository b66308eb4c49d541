"""Checking a gohash index end to end: ``gohash index check``.

Scope: :func:`check_index`, which lists every way an index's contents differ
from what gohash writes (schema and meaning: :mod:`gohash.index.schema`), and
:func:`damaged`, the error a search raises on meeting a fault.  Nothing here
writes.

What is checked: SQLite's own ``integrity_check``; the schema against the one
this gohash creates; the meta table; every value against its range (board
sizes, counts); references between tables (``foreign_key_check``); each
game's stored form replaying (:mod:`gohash.index.games`) to ``nodes`` nodes,
its main line within them, its ever bitmaps those of its positions; its
postings exactly the keys of its positions under the index's key scheme,
node by node; no posting of a missing node; variations within the game's
nodes; each aggregate's frame canonical, its key the frame's, its rows a
recount of its occurrences (:mod:`gohash.index.aggregates`).  Not checked:
that the source files still hold the games (they may be gone: the index does
not need them).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from ..errors import DamagedIndexError, GohashError
from ..group.schemes import KeyScheme
from ..group.symmetry import MAX_SIZE, MIN_SIZE
from .aggregates import aggregate_faults
from .games import game_keys, replay_boards, sgf_order

__all__ = ["check_index", "damaged"]

SHOWN_PER_CHECK = 10
"""Faults listed per check at most; the rest are counted."""


def damaged(path: str, fault: str) -> DamagedIndexError:
    """The error a search or an opening raises on meeting ``fault`` in the index ``path``."""
    return DamagedIndexError(
        f"damaged: {fault} (gohash index check lists every fault)", file=path
    )


def check_index(
    db: sqlite3.Connection, schema: str, keys_of: Callable[[int], KeyScheme], variations: bool
) -> list[str]:
    """Every fault of the open index ``db`` (empty: none), each a line naming the
    table and row; at most :data:`SHOWN_PER_CHECK` per check, then a count of the
    rest.  ``schema`` is the SQL the index was created with, ``keys_of`` its key
    scheme, ``variations`` whether it holds every variation."""
    faults: list[str] = []
    for name, found in _checks(db, schema, keys_of, variations):
        for shown, fault in enumerate(found):
            if shown == SHOWN_PER_CHECK:
                faults.append(f"{name}: and more (only the first {SHOWN_PER_CHECK} are listed)")
                break
            faults.append(f"{name}: {fault}")
    return faults


def _rows(db: sqlite3.Connection, sql: str) -> Iterator[str]:
    """The rows of ``sql`` as text: its first column names the row, the others
    come in pairs of a label and a value."""
    for where, *pairs in db.execute(sql):
        yield f"{where}: " + ", ".join(
            f"{label} {value!r}" for label, value in zip(pairs[::2], pairs[1::2], strict=True)
        )


def _checks(
    db: sqlite3.Connection, schema: str, keys_of: Callable[[int], KeyScheme], variations: bool
) -> Iterator[tuple[str, Iterable[str]]]:
    yield "sqlite", (
        str(row[0]) for row in db.execute("PRAGMA integrity_check") if row[0] != "ok"
    )
    yield "schema", _schema_faults(db, schema)
    yield "meta", _meta_faults(db)
    yield "references", (
        f"{table} row {rowid} refers to a missing row of {parent}"
        for table, rowid, parent, _ in db.execute("PRAGMA foreign_key_check")
    )
    yield "files", _rows(db, (
        "SELECT 'file ' || f.id, 'path', f.path, 'games', f.games, 'games rows', "
        "(SELECT count(*) FROM games g WHERE g.file_id = f.id) AS n, 'parse_version', "
        "f.parse_version, 'suicide', f.suicide, 'sha256', f.sha256 FROM files f "
        "WHERE typeof(f.games) != 'integer' OR f.games != n "
        "OR typeof(f.parse_version) != 'integer' OR coalesce(f.suicide NOT IN (0, 1), 0) "
        "OR length(f.sha256) != 64"
    ))
    yield "games", _rows(db, (
        "SELECT 'game ' || id, 'size', size, 'positions', positions, 'moves', moves, "
        "'handicap', handicap, 'winner', winner FROM games "
        f"WHERE typeof(size) != 'integer' OR size NOT BETWEEN {MIN_SIZE} AND {MAX_SIZE} "
        "OR typeof(positions) != 'integer' OR positions < 0 "
        "OR typeof(moves) != 'integer' OR moves < 0 "
        "OR typeof(handicap) != 'integer' OR handicap < 0 "
        "OR coalesce(winner NOT IN ('B', 'W'), 0) OR length(sha256) != 64"
    ))
    yield "games", _rows(db, (
        "SELECT 'game ' || id, 'nodes', nodes, 'positions', positions FROM games "
        "WHERE typeof(nodes) != 'integer' OR nodes < positions "
        "OR typeof(record) != 'blob' AND NOT (nodes = 0 AND record = '')"
    ))
    yield "variations", _rows(db, (
        "SELECT 'game ' || v.game_id || ' seq ' || v.seq, 'parent', v.parent, 'path', v.path "
        "FROM variations v "
        "JOIN games g ON g.id = v.game_id WHERE v.seq < g.positions OR v.parent < 0 "
        "OR v.parent >= v.seq OR v.path NOT GLOB '[0-9]*' OR v.seq >= g.nodes"
    ))
    if not variations:
        yield "games", _rows(db, (
            "SELECT 'game ' || id, 'nodes', nodes, 'positions', positions FROM games "
            "WHERE nodes != positions"
        ))
    yield "postings", _posting_faults(db, keys_of)
    yield "aggregates", aggregate_faults(db, keys_of)


def _posting_faults(db: sqlite3.Connection, keys_of: Callable[[int], KeyScheme]) -> Iterator[str]:
    """Each game replayed, its ever bitmaps and postings compared with its positions'."""
    rows = np.array(db.execute("SELECT game_id, seq, key FROM postings").fetchall(),
                    dtype=np.int64).reshape(-1, 3)
    rows = rows[np.lexsort((rows[:, 1], rows[:, 0]))]
    games = rows[:, 0]
    cursor = db.execute("SELECT id, size, nodes, record, ever_black, ever_white FROM games "
                        f"WHERE size BETWEEN {MIN_SIZE} AND {MAX_SIZE} ORDER BY id")
    for game_id, size, nodes, record, ever_black, ever_white in cursor:
        low, high = np.searchsorted(games, [game_id, game_id + 1]).tolist()
        where = f"game {game_id}"
        try:
            replayed = replay_boards(record, size, nodes)
            keys = game_keys(record, size, nodes, keys_of(size))
        except GohashError as e:
            yield f"{where}: {e.reason}"
            continue
        order = sgf_order(size)
        for colour, stored, name in ((1, ever_black, "ever_black"), (2, ever_white, "ever_white")):
            bits = np.zeros(size * size, dtype=np.bool_)
            held = (replayed.boards == colour).any(axis=0)
            played = replayed.point[(replayed.colour == colour) & ~replayed.setup
                                    & (replayed.point >= 0)]
            held[played] = True
            bits[order] = held
            if stored != np.packbits(bits, bitorder="little").tobytes():
                yield f"{where}: {name} is not the points its positions ever hold"
        have = rows[low:high]
        if len(have) != nodes or (have[:, 1] != np.arange(nodes)).any():
            yield f"{where}: postings for nodes {have[:, 1].tolist()[:8]!r}, not 0..{nodes - 1}"
        elif (have[:, 2] != keys).any():
            seq = int(np.flatnonzero(have[:, 2] != keys)[0])
            yield (f"{where} node {seq}: posting key {int(have[seq, 2])!r} is not the key "
                   f"{int(keys[seq])!r} its position gives")
    orphans = np.setdiff1d(np.unique(games), np.array(
        [g for (g,) in db.execute("SELECT id FROM games")], dtype=np.int64))
    for game_id in orphans.tolist()[:SHOWN_PER_CHECK]:
        yield f"game {game_id}: postings of a game the index does not hold"


def _schema_faults(db: sqlite3.Connection, schema: str) -> Iterator[str]:
    expected = sqlite3.connect(":memory:")
    try:
        for statement in schema.split(";"):
            if statement.strip():
                expected.execute(statement)
        want = _schema_of(expected)
    finally:
        expected.close()
    have = _schema_of(db)
    for name in sorted(want.keys() | have.keys()):
        if name not in have:
            yield f"{name}: missing"
        elif name not in want:
            yield f"{name}: not part of a gohash index"
        elif want[name] != have[name]:
            yield f"{name}: defined as {have[name]!r}, not {want[name]!r}"


def _schema_of(db: sqlite3.Connection) -> dict[str, str]:
    return {
        name: re.sub(r"\s+", " ", sql or "").strip()
        for name, sql in db.execute(
            "SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        )
    }


def _meta_faults(db: sqlite3.Connection) -> Iterator[str]:
    meta = dict(db.execute("SELECT name, value FROM meta"))
    for name in ("scheme", "variations", "gohash_version"):
        if name not in meta:
            yield f"no {name!r} entry"
    if meta.get("variations", "0") not in ("0", "1"):
        yield f"variations is {meta['variations']!r}, not '0' or '1'"
