"""Checking a gohash index end to end: ``gohash index check``.

Scope: :func:`check_index`, which lists every way an index's contents differ
from what gohash writes (schema and meaning: :mod:`gohash.index.schema`), and
:func:`frame_faults`, which recomputes keys and frames from stored frames
(also used when an index is opened and when a search meets a frame that is not
the query's).  Nothing here writes.

What is checked: SQLite's own ``integrity_check``; the schema against the one
this gohash creates; the meta table; every value against its range (board
sizes, elements, sides to move, next moves, counts); references between
tables (``foreign_key_check``, and each occurrence's frame of its game's
size); each game's occurrences numbered ``0..n-1`` and its main line and
variations within them; every frame decoding to a position of its size, being
its own frame (canonical), and giving the stored key under the index's key
scheme; and no position stored twice or used by no occurrence.  Not checked:
that the records still replay to the positions stored (the files may be gone;
:meth:`gohash.index.Index.game` checks that for one game).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from ..errors import DamagedIndexError
from ..group.schemes import KeyScheme
from ..group.symmetry import MAX_SIZE, MIN_SIZE
from ..pipeline.frames import bad_packings, frame_batch, unpack_rows
from .records import SqlKey, sql_keys

__all__ = ["OCCURRENCE_FAULT", "check_index", "damaged", "frame_faults"]

SHOWN_PER_CHECK = 10
"""Faults listed per check at most; the rest are counted."""

OCCURRENCE_FAULT = (
    "NOT (typeof({o}.element) = 'integer' AND {o}.element BETWEEN 0 AND 15"
    " AND typeof({o}.to_move) = 'integer' AND {o}.to_move IN (1, 2)"
    " AND typeof({o}.next_colour) = 'integer' AND {o}.next_colour IN (0, 1, 2)"
    " AND ({o}.next_colour = 0 OR typeof({o}.next_point) = 'integer'"
    " AND {o}.next_point BETWEEN -1 AND {last_point}))"
)
"""An SQL condition true of an occurrence (alias ``{o}``) with a value out of range;
``{last_point}`` is the highest point of its board (an expression or ``?``)."""

_FRAME_BATCH = 1 << 15


def damaged(path: str, fault: str) -> DamagedIndexError:
    """The error a search or an opening raises on meeting ``fault`` in the index ``path``."""
    return DamagedIndexError(
        f"damaged: {fault} (gohash index check lists every fault)", file=path
    )


def frame_faults(
    rows: Iterable[tuple[int, SqlKey, bytes]], keys_of: Callable[[int], KeyScheme]
) -> list[tuple[int, str]]:
    """``(id, reason)`` for each stored position ``(id, key, frame)`` whose frame is no
    packed position, is not its own frame, or does not give ``key`` under the scheme
    ``keys_of(size)``."""
    faults: list[tuple[int, str]] = []
    by_size: dict[int, list[tuple[int, SqlKey, bytes]]] = {}
    for position_id, key, frame in rows:
        if not isinstance(frame, bytes) or not frame:
            faults.append((position_id, f"frame {frame!r} is not a packed position"))
        elif not MIN_SIZE <= frame[0] <= MAX_SIZE:
            faults.append((position_id, f"frame of board size {frame[0]}, outside "
                                        f"{MIN_SIZE}..{MAX_SIZE}"))
        else:
            by_size.setdefault(frame[0], []).append((position_id, key, frame))
    for size, group in by_size.items():
        width = 1 + (size * size + 3) // 4
        good = []
        for position_id, key, frame in group:
            if len(frame) != width:
                faults.append((position_id, f"frame of {len(frame)} bytes; a {size}x{size} "
                                            f"position packs into {width}"))
            else:
                good.append((position_id, key, frame))
        if not good:
            continue
        packed = np.frombuffer(b"".join(f for _, _, f in good), dtype=np.uint8).reshape(-1, width)
        bad = bad_packings(packed, size)
        for at in np.flatnonzero(bad).tolist():
            faults.append((good[at][0], f"frame {good[at][2].hex()} does not decode: a "
                                        "digit 3, or a stone outside the board"))
        ok = np.flatnonzero(~bad)
        if not ok.size:
            continue
        keys = keys_of(size)
        stones = unpack_rows(packed[ok], size)
        batch = frame_batch(stones, keys.hash_arrays(stones.reshape(-1, size, size)), keys)
        assert batch.frames is not None
        canonical = (batch.frames == packed[ok]).all(axis=1).tolist()
        for at, key, is_frame in zip(ok.tolist(), sql_keys(batch.keys), canonical, strict=True):
            position_id, stored, _ = good[at]
            if not is_frame:
                faults.append((position_id, "frame is a position but not its own frame "
                                            "(not canonical)"))
            elif stored != key:
                faults.append((position_id, f"key {stored!r} is not the key {key!r} that "
                                            f"its frame gives under {keys.name!r}"))
    return faults


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
    fault = OCCURRENCE_FAULT.format(o="o", last_point="g.size * g.size - 1")
    yield "occurrences", _rows(db, (
        "SELECT 'game ' || o.game_id || ' seq ' || o.seq, 'element', o.element, 'to_move', "
        "o.to_move, 'next_colour', o.next_colour, 'next_point', o.next_point "
        "FROM occurrences o JOIN games g ON g.id = o.game_id "
        f"WHERE {fault}"
    ))
    # Every game's occurrences are numbered 0..n-1; its main line is the first
    # ``positions`` of them (all of them, without variations).
    runs = "count(*) != g.positions" if not variations else "count(*) < g.positions"
    yield "occurrences", _rows(db, (
        "SELECT 'game ' || g.id, 'positions', g.positions, 'occurrences', count(o.seq), "
        "'seq', min(o.seq), max(o.seq) FROM games g LEFT JOIN occurrences o "
        "ON o.game_id = g.id GROUP BY g.id "
        f"HAVING coalesce(min(o.seq) != 0 OR max(o.seq) != count(*) - 1, 0) OR ({runs}) "
        "AND NOT (g.positions = 0 AND count(o.seq) = 0)"
    ))
    yield "occurrences", _rows(db, (
        "SELECT 'game ' || o.game_id || ' seq ' || o.seq, 'board size', g.size, "
        "'position', o.position_id, 'frame size byte', hex(substr(p.frame, 1, 1)) "
        "FROM occurrences o JOIN games g ON g.id = o.game_id "
        "JOIN positions p ON p.id = o.position_id "
        "WHERE hex(substr(p.frame, 1, 1)) != printf('%02X', g.size)"
    ))
    yield "variations", _rows(db, (
        "SELECT 'game ' || v.game_id || ' seq ' || v.seq, 'parent', v.parent, 'path', v.path "
        "FROM variations v "
        "JOIN games g ON g.id = v.game_id WHERE v.seq < g.positions OR v.parent < 0 "
        "OR v.parent >= v.seq OR v.path NOT GLOB '[0-9]*' OR NOT EXISTS "
        "(SELECT 1 FROM occurrences o WHERE o.game_id = v.game_id AND o.seq = v.seq)"
    ))
    yield "positions", _position_faults(db, keys_of)
    yield "positions", (
        f"position {i}: stored again as position {j}" for i, j in db.execute(
            "SELECT min(id), max(id) FROM positions GROUP BY frame HAVING count(*) > 1"
        )
    )
    yield "positions", (
        f"position {i}: no occurrence uses it" for (i,) in db.execute(
            "SELECT id FROM positions p WHERE NOT EXISTS "
            "(SELECT 1 FROM occurrences o WHERE o.position_id = p.id)"
        )
    )


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


def _position_faults(
    db: sqlite3.Connection, keys_of: Callable[[int], KeyScheme]
) -> Iterator[str]:
    cursor = db.execute("SELECT id, key, frame FROM positions ORDER BY id")
    while rows := cursor.fetchmany(_FRAME_BATCH):
        for position_id, reason in frame_faults(rows, keys_of):
            yield f"position {position_id}: {reason}"
