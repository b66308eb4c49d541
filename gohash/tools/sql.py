"""SQL macros for a canon dataset's tables in DuckDB: a ``position`` as a board, a key as hex.

Scope: :data:`DUCKDB_MACROS`, the ``CREATE MACRO`` statements, and
:func:`register`, which runs them on a connection.  They are plain SQL, so
DuckDB's own command line takes them too (docs/large-corpora.md prints them):

- ``gohash_diagram(position)``: the packed frame as ``str(Board)`` draws it
  (``X`` black, ``O`` white, ``.`` empty, top row first, GTP coordinates), so
  ``Board.from_diagram`` reads it back;
- ``gohash_point(position, row, col)``: one point, 0 empty, 1 black, 2 white
  (row 0 the bottom line);
- ``gohash_size(position)``: the board size;
- ``gohash_hex(key)``: a ``hash`` or ``key`` as ``0x`` and lower-case hex, the
  form of the JSON Lines output (16 bytes for regular128, a uint64 otherwise).

No I/O, no imports: the caller brings its DuckDB connection.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DUCKDB_MACROS", "register"]

DUCKDB_MACROS = """\
CREATE OR REPLACE MACRO gohash_size(position) AS ('0x' || hex(position)[1:2])::INTEGER;
CREATE OR REPLACE MACRO gohash_digit(digits, slot) AS
    (('0x' || digits[3 + slot // 2 : 3 + slot // 2])::INTEGER >> (2 * (1 - slot % 2))) & 3;
CREATE OR REPLACE MACRO gohash_point(position, r, c) AS gohash_digit(
    hex(position),
    4 * (octet_length(position) - 1) - gohash_size(position) * gohash_size(position)
        + r * gohash_size(position) + c);
CREATE OR REPLACE MACRO gohash_rows(digits, n) AS array_to_string(
    [lpad((r + 1)::VARCHAR, length(n::VARCHAR)::INTEGER, ' ') || ' ' || array_to_string(
        [substr('.XO', 1 + gohash_digit(digits, 2 * (length(digits) - 2) - n * n + r * n + c), 1)
         for c in range(n)], ' ')
     for r in range(n - 1, -1, -1)]
    || [repeat(' ', length(n::VARCHAR)::INTEGER) || ' ' || array_to_string(
        [CASE WHEN c < 25 THEN substr('ABCDEFGHJKLMNOPQRSTUVWXYZ', c + 1, 1) ELSE 'AA' END
         for c in range(n)], ' ')],
    chr(10));
CREATE OR REPLACE MACRO gohash_diagram(position) AS
    gohash_rows(hex(position), gohash_size(position));
CREATE OR REPLACE MACRO gohash_hex(key) AS
    '0x' || lower(lpad(hex(key), CASE WHEN typeof(key) = 'BLOB' THEN 32 ELSE 16 END, '0'));
"""
"""The macros (``gohash_digit`` and ``gohash_rows`` are their helpers), one statement a line
group; DuckDB 0.10 or later (list comprehensions)."""


def register(connection: Any) -> Any:
    """Define the macros on a DuckDB ``connection`` (replacing earlier ones); returns it."""
    connection.execute(DUCKDB_MACROS)
    return connection
