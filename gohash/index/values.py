"""The values of an index's rows checked against the schema: its types, ranges and references.

Scope: :func:`value_faults`, the rows of a table whose values are not of
their column's declared type (from the DDL, :data:`~gohash.index.schema.SCHEMA`)
or break its rule (:data:`~gohash.index.schema.COLUMN_RULES`), for
``gohash index check``; :func:`require`, the same check on the rows a reader
is about to use, raising :func:`damaged`, the error every reader raises on
meeting a fault.  Nothing here writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from ..errors import DamagedIndexError
from .schema import COLUMN_RULES, SCHEMA

__all__ = ["damaged", "good_rows", "require", "require_games", "tables", "value_faults"]


def damaged(path: str | None, fault: str) -> DamagedIndexError:
    """The error a search or an opening raises on meeting ``fault`` in the index
    ``path`` (None: the caller's, which :func:`~gohash.index.store.database_errors`
    names)."""
    return DamagedIndexError(
        f"damaged: {fault} (gohash index check lists every fault)", file=path
    )


@dataclass(frozen=True)
class _Column:
    """A column of the schema: the SQLite ``typeof`` of its values, whether it
    may be NULL, and its rule (:data:`~gohash.index.schema.COLUMN_RULES`)."""

    name: str
    kind: str
    nullable: bool
    rule: tuple[str, str] | None


# Declared types as SQLite's typeof() gives the values they hold.
_KINDS = {"INTEGER": "integer", "TEXT": "text", "REAL": "real", "BLOB": "blob"}
_WORDS = {"integer": "an integer", "text": "text", "real": "a number", "blob": "a blob",
          "null": "NULL"}


@cache
def _tables(schema: str) -> dict[str, tuple[str, tuple[_Column, ...]]]:
    """Per table of ``schema``: the SQL that names a row (its primary key, or its
    rowid) and its columns, as the DDL declares them."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(schema)
        tables: dict[str, tuple[str, tuple[_Column, ...]]] = {}
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                   "ORDER BY rowid").fetchall():
            info = db.execute(f"PRAGMA table_info({table})").fetchall()
            rules = COLUMN_RULES.get(table, {})
            columns = tuple(_Column(name, _KINDS[kind.upper()], not notnull and not pk,
                                    rules.get(name))
                            for _, name, kind, notnull, _, pk in info)
            keys = [c[1] for c in sorted(info, key=lambda c: c[5]) if c[5]]
            if keys == ["id"]:
                name = f"'{table.removesuffix('s')} ' || quote(id)"
            elif keys:
                name = f"'{table} ' || " + " || ', ' || ".join(
                    f"'{k} ' || quote({k})" for k in keys)
            else:
                name = f"'{table} row ' || rowid"
            tables[table] = name, columns
        return tables
    finally:
        db.close()


def tables(schema: str = SCHEMA) -> list[str]:
    """The tables of ``schema``, in the order it creates them."""
    return list(_tables(schema))


def _good(column: _Column) -> str:
    """SQL: 1 if the column's value is of its type and meets its rule, else 0."""
    c = column.name
    rule = "1" if column.rule is None else f"coalesce(({column.rule[0].format(c=c)}), 0)"
    return (f"CASE typeof({c}) WHEN 'null' THEN {int(column.nullable)} "
            f"WHEN '{column.kind}' THEN {rule} ELSE 0 END")


def _chosen(table: str, columns: Iterable[str] | None, schema: str) -> list[_Column]:
    wanted = None if columns is None else set(columns)
    return [c for c in _tables(schema)[table][1] if wanted is None or c.name in wanted]


def good_rows(table: str, columns: Iterable[str] | None = None, *, schema: str = SCHEMA) -> str:
    """SQL: true for a row of ``table`` whose values of ``columns`` (None: all)
    are of their type and meet their rules (unqualified column names: use it
    in a query of ``table`` alone)."""
    return " AND ".join(_good(c) for c in _chosen(table, columns, schema)) or "1"


def value_faults(
    db: sqlite3.Connection, table: str, where: str = "1", params: Sequence[object] = (),
    columns: Iterable[str] | None = None, *, schema: str = SCHEMA,
) -> Iterator[str]:
    """The rows of ``table`` that ``where`` (SQL, with ``params``) selects whose
    values of ``columns`` (None: all) are not of their declared type (SQLite's
    ``typeof``), or break their rule (:data:`~gohash.index.schema.COLUMN_RULES`:
    ranges and references), one line each naming the row, the column and the
    value."""
    found = _faults_query(table, where, None if columns is None else tuple(columns), schema)
    if found is None:
        return
    sql, chosen = found
    for where_row, *values in db.execute(sql, params):
        faults = []
        for i, column in enumerate(chosen):
            value, kind, good = values[3 * i : 3 * i + 3]
            if good:
                continue
            if kind == "null":
                faults.append(f"{column.name} is NULL")
            elif kind != column.kind:
                faults.append(f"{column.name} {_shown(value)} is {_WORDS[kind]}, "
                              f"not {_WORDS[column.kind]}")
            else:
                assert column.rule is not None
                faults.append(f"{column.name} {_shown(value)} is not {column.rule[1]}")
        yield f"{where_row}: {'; '.join(faults)}"


# Readers check the rows of every query they make, with a handful of distinct
# statements (an ``IN`` list's length varies): the SQL is made once each.
@lru_cache(maxsize=4096)
def _faults_query(
    table: str, where: str, columns: tuple[str, ...] | None, schema: str
) -> tuple[str, list[_Column]] | None:
    """The statement of :func:`value_faults` and the columns it checks (None: none)."""
    name = _tables(schema)[table][0]
    chosen = _chosen(table, columns, schema)
    if not chosen:
        return None
    goods = [_good(c) for c in chosen]
    picked = ", ".join(f"{c.name}, typeof({c.name}), {good}" for c, good in zip(
        chosen, goods, strict=True))
    return (f"SELECT {name}, {picked} FROM {table} WHERE ({where}) "
            f"AND NOT ({' AND '.join(goods)})", chosen)


def require(
    db: sqlite3.Connection, table: str, where: str = "1", params: Sequence[object] = (),
    columns: Iterable[str] | None = None, *, path: str | None = None,
) -> None:
    """Raise :func:`damaged` (of the index ``path``) on the first fault
    :func:`value_faults` finds: what a reader calls on the rows it reads before
    using their values."""
    fault = next(value_faults(db, table, where, params, columns), None)
    if fault is not None:
        raise damaged(path, fault)


def require_games(db: sqlite3.Connection, where: str, params: Sequence[object]) -> None:
    """Raise :class:`~gohash.errors.DamagedIndexError` if a game ``where``
    selects, or its file, holds a value out of its type or range
    (:func:`require`)."""
    require(db, "games", where, params)
    require(db, "files", f"id IN (SELECT file_id FROM games WHERE {where})", params)


def _shown(value: object) -> str:
    """A value of a fault, short: a blob as ``x'...'``, text and numbers as repr."""
    if isinstance(value, bytes):
        return f"x'{value[:16].hex()}{'...' if len(value) > 16 else ''}'"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
