"""Checking a gohash index end to end: ``gohash index check``.

Scope: :func:`check_index`, which lists every way an index's contents differ
from what gohash writes (schema and meaning: :mod:`gohash.index.schema`);
:func:`damaged` (:mod:`gohash.index.values`), the error a search raises on
meeting a fault.  Nothing here writes.

What is checked: SQLite's own ``integrity_check``; the schema against the one
this gohash creates; the meta table; every value of every table against its
declared type and its rule (:data:`~gohash.index.schema.COLUMN_RULES`:
ranges, references between tables, a main line's length); each game's
stored form replaying (:mod:`gohash.index.games`) to ``nodes`` nodes, its
main line and last move number those of its record, its ever bitmaps those
of its positions; its postings exactly the keys of its positions under the
index's key scheme, node by node, in the postings file (whose segments'
CRCs, directories and key order are checked first); each aggregate's frame canonical, its key
the frame's, its rows a recount of its occurrences
(:mod:`gohash.index.aggregates`).  A row whose values are of the wrong type
or range is reported as such and not replayed.  Not checked: that the source
files still hold the games (they may be gone: the index does not need them).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GohashError
from ..group.coords import sgf_order
from ..group.schemes import KeyScheme
from .aggregates import aggregate_faults
from .games import game_keys, replay_boards
from .postings import KEY_OFFSET, PostingsFile, alive
from .schema import GENERATION, generation, statements
from .values import damaged, good_rows, tables, value_faults

__all__ = ["check_index", "damaged"]

SHOWN_PER_CHECK = 10
"""Faults listed per check at most; the rest are counted."""
CHECK_GAMES = 20_000
"""Games whose postings are compared at a time."""


def check_index(
    db: sqlite3.Connection, schema: str, keys_of: Callable[[int], KeyScheme], variations: bool,
    postings: PostingsFile,
) -> list[str]:
    """Every fault of the open index ``db`` (empty: none), each a line naming the
    table and row; at most :data:`SHOWN_PER_CHECK` per check, then a count of the
    rest.  ``schema`` is the SQL the index was created with, ``keys_of`` its key
    scheme, ``variations`` whether it holds every variation, ``postings`` its
    postings file."""
    faults: list[str] = []
    for name, found in _checks(db, schema, keys_of, variations, postings):
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
    db: sqlite3.Connection, schema: str, keys_of: Callable[[int], KeyScheme], variations: bool,
    postings: PostingsFile,
) -> Iterator[tuple[str, Iterable[str]]]:
    yield "sqlite", (
        str(row[0]) for row in db.execute("PRAGMA integrity_check") if row[0] != "ok"
    )
    yield "schema", _schema_faults(db, schema)
    yield "meta", _meta_faults(db)
    present = {name for (name,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in tables(schema):
        if table in present:
            yield table, value_faults(db, table, schema=schema)
    if not variations:
        yield "games", _rows(db, (
            "SELECT 'game ' || id, 'nodes', nodes, 'positions', positions FROM games "
            "WHERE nodes != positions"
        ))
    file_faults = postings.faults()
    yield "postings", file_faults or _posting_faults(db, keys_of, postings)
    if not file_faults:
        yield "aggregates", aggregate_faults(db, postings, keys_of, good_rows("aggregates"),
                                             good_rows("aggregate_moves"))


def _posting_faults(db: sqlite3.Connection, keys_of: Callable[[int], KeyScheme],
                    postings: PostingsFile) -> Iterator[str]:
    """Each game replayed, its main line, moves, ever bitmaps and postings compared
    with its positions'; rows with values of the wrong type or range are left to
    the value checks.  The postings file is read once per
    :data:`CHECK_GAMES` games, for theirs (its memory)."""
    live = alive(db)
    cursor = db.execute(
        "SELECT id, size, nodes, positions, moves, record, ever_black, ever_white FROM games "
        f"WHERE {good_rows('games', _REPLAYED)} ORDER BY id")
    while block := cursor.fetchmany(CHECK_GAMES):
        yield from _block_faults(block, _held_postings(postings, live, block[0][0],
                                                       block[-1][0]), keys_of)


def _held_postings(postings: PostingsFile, live: npt.NDArray[np.int64], first: int,
                   last: int) -> npt.NDArray[np.int64]:
    """The postings file's ``(game, seq, key)`` of the games ``first`` to ``last``
    that ``live`` holds, in order of game and seq."""
    parts = []
    for keys, games, seqs in postings.chunks(live):
        mine = (games >= first) & (games <= last)
        parts.append(np.stack([games[mine], seqs[mine], keys[mine] - KEY_OFFSET], axis=1))
    rows = np.concatenate(parts)
    return rows[np.lexsort((rows[:, 1], rows[:, 0]))]


def _block_faults(block: list[Any], rows: npt.NDArray[np.int64],
                  keys_of: Callable[[int], KeyScheme]) -> Iterator[str]:
    games = rows[:, 0]
    for game_id, size, nodes, positions, moves, record, ever_black, ever_white in block:
        low, high = np.searchsorted(games, [game_id, game_id + 1]).tolist()
        where = f"game {game_id}"
        try:
            replayed = replay_boards(record, size, nodes)
            keys = game_keys(record, size, nodes, keys_of(size))
        except GohashError as e:
            yield f"{where}: {e.reason}"
            continue
        branches = np.flatnonzero(replayed.parent[1:] != np.arange(nodes - 1)) + 1
        main = int(branches[0]) if len(branches) else nodes
        last_move = int(replayed.move_number[:main].max()) if main else 0
        if positions != main:
            yield f"{where}: positions {positions!r}, but its main line has {main} nodes"
        elif moves != last_move:
            yield f"{where}: moves {moves!r}, but its main line's last move number is {last_move}"
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


# The columns of a game its replay reads: a game with any of them wrong is not replayed.
_REPLAYED = ("size", "nodes", "positions", "moves", "record", "ever_black", "ever_white")


def _schema_faults(db: sqlite3.Connection, schema: str) -> Iterator[str]:
    expected = sqlite3.connect(":memory:")
    try:
        for statement in statements(schema):
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
    for name in ("scheme", "variations", "gohash_version", GENERATION):
        if name not in meta:
            yield f"no {name!r} entry"
    if GENERATION in meta and generation(db) is None:
        yield f"{GENERATION} is {meta[GENERATION]!r}, not a count"
    if meta.get("variations", "0") not in ("0", "1"):
        yield f"variations is {meta['variations']!r}, not '0' or '1'"
