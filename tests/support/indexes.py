"""Collections and checks for the index tests: random legal games written as SGF,
a key scheme whose hashes collide, dumps of an index's tables, and its
consistency checked table by table."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from gohash.cli import main
from gohash.errors import IllegalMoveError
from gohash.go.board import Board
from gohash.group.schemes import KeyScheme
from gohash.group.symmetry import Element
from gohash.index.find import position_from_sgf

Move = tuple[str, "tuple[int, int] | None"]
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def random_game(rng: random.Random, size: int, moves: int) -> list[Move]:
    """A legal game of ``moves`` moves (captures happen; a few passes)."""
    board = Board(size)
    colour = "b"
    out: list[Move] = []
    for _ in range(moves):
        for _attempt in range(30):
            if rng.random() < 0.02:
                board.pass_(colour)
                out.append((colour, None))
                break
            point = (rng.randrange(size), rng.randrange(size))
            try:
                board.play(point, colour)
            except IllegalMoveError:
                continue
            out.append((colour, point))
            break
        colour = "w" if colour == "b" else "b"
    return out


def transformed(moves: list[Move], g: Element, size: int) -> list[Move]:
    return [(g.map_colour(c), None if p is None else g.map_point(p, size)) for c, p in moves]


def sgf(size: int, moves: list[Move], black: str = "Black", white: str = "White") -> str:
    nodes = "".join(
        f";{c.upper()}[{'' if p is None else LETTERS[p[1]] + LETTERS[size - 1 - p[0]]}]"
        for c, p in moves
    )
    return f"(;GM[1]FF[4]SZ[{size}]PB[{black}]PW[{white}]RE[?]{nodes})\n"


def write_game(folder: Path, name: str, size: int, moves: list[Move]) -> Path:
    path = folder / name
    path.write_text(sgf(size, moves))
    return path


def array_at(path: Path, move: int) -> npt.NDArray[np.int8]:
    return position_from_sgf(str(path), move).to_array()


@cache
def weak_scheme(size: int) -> KeyScheme:
    return WeakScheme(size)


# Every table of an index, with a column order that makes its rows' order unique.
INDEX_TABLES = {
    "meta": "name",
    "files": "id",
    "games": "id",
    "variations": "game_id, seq",
    "errors": "rowid",
    "postings": "key, game_id, seq",
}


def table_rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table of the index at ``db``, ids included, in a fixed order."""
    with closing(sqlite3.connect(db)) as con:
        return {table: con.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
                for table, order in INDEX_TABLES.items()}


def table_dump(db: Path) -> list[tuple[object, ...]]:
    """The index's content independent of row ids: (file, game, stored game, seq, key)."""
    with sqlite3.connect(db) as con:
        return sorted(con.execute(
            "SELECT f.path, g.game, g.record, p.seq, p.key FROM postings p "
            "JOIN games g ON g.id = p.game_id JOIN files f ON f.id = g.file_id"
        ))


def consistency_problems(db: Path) -> list[str]:
    """What an interrupted or incremental build must never leave behind."""
    checks = {
        "integrity":
            "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'",
        "files with missing games":
            "SELECT count(*) FROM files f WHERE f.games != "
            "(SELECT count(*) FROM games g WHERE g.file_id = f.id)",
        "games with missing postings":
            "SELECT count(*) FROM games g WHERE g.nodes != "
            "(SELECT count(*) FROM postings p WHERE p.game_id = g.id)",
        "orphan variations":
            "SELECT count(*) FROM variations WHERE game_id NOT IN (SELECT id FROM games)",
        "orphan games":
            "SELECT count(*) FROM games WHERE file_id NOT IN (SELECT id FROM files)",
        "orphan postings":
            "SELECT count(*) FROM postings WHERE game_id NOT IN (SELECT id FROM games)",
    }
    with sqlite3.connect(db) as con:
        return [name for name, sql in checks.items() if con.execute(sql).fetchone()[0]]


class WeakScheme(KeyScheme):
    """huima64 cut to the lowest bit of every byte: 8 bits, so keys collide all the time.

    Masking every byte alike commutes with the byte permutations, so the
    symmetry theorem still holds and only the exact comparison tells positions apart.
    The key tables are masked, so a :class:`Board` with this scheme hashes weakly too.
    """

    MASK = 0x0101010101010101

    def __init__(self, size: int) -> None:
        super().__init__("huima64", size)
        self.name = "weak8"
        self.black_keys = tuple(k & self.MASK for k in self.black_keys)
        self.white_keys = tuple(k & self.MASK for k in self.white_keys)

    def side_key(self, colour: str) -> int:
        return super().side_key(colour) & self.MASK

    def hash_arrays(
        self, boards: npt.ArrayLike, to_move: str | None = None
    ) -> npt.NDArray[np.uint64]:
        masked: npt.NDArray[np.uint64] = super().hash_arrays(boards, to_move) & np.uint64(self.MASK)
        return masked


def files_indexed(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as con:
            count: int = con.execute("SELECT count(*) FROM files").fetchone()[0]
            return count
    except sqlite3.OperationalError:  # the schema is not committed yet
        return 0


def tamper(db: Path, *statements: str) -> None:
    connection = sqlite3.connect(db)
    for statement in statements:
        connection.execute(statement)
    connection.commit()
    connection.close()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["index", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err
