"""Collections and checks for the index tests: random legal games written as SGF,
a key scheme whose hashes collide, dumps of an index's tables, and its
consistency checked table by table."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
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
from gohash.index.postings import KEY_OFFSET, PostingsFile, alive, postings_path

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
}

# Not the generation: a count of the games table's changes from a random start,
# which two indexes of the same games do not share.
_COMPARED = {"meta": "name != 'generation'"}


def posting_rows(db: Path) -> list[tuple[int, int, int]]:
    """The postings ``(key, game_id, seq)`` of the index's games in its postings
    file, in order (those of games removed, which the file keeps until a merge,
    left out)."""
    with closing(sqlite3.connect(db)) as con:
        live = alive(con)
    rows: list[tuple[int, int, int]] = []
    for keys, games, seqs in PostingsFile(postings_path(str(db))).chunks(live):
        rows += zip((keys - KEY_OFFSET).tolist(), games.tolist(), seqs.tolist(), strict=True)
    return sorted(rows)


def rewrite_postings(
    db: Path, change: Callable[[npt.NDArray[np.int64]], npt.NDArray[np.int64]]
) -> None:
    """Write the index's postings file again, one segment of every posting it holds
    (``(key, game_id, seq)`` rows, those of games removed too) as ``change``
    makes them: a file of the right form whose content is wrong."""
    file = PostingsFile(postings_path(str(db)))
    rows = [np.stack([keys - KEY_OFFSET, games, seqs], axis=1)
            for keys, games, seqs in file.chunks(None)]
    changed = change(np.concatenate(rows))
    file.remove()
    file.append(np.unique(changed[:, 1]), changed[:, 0], changed[:, 1], changed[:, 2])


def table_rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table of the index at ``db``, ids included, in a fixed
    order, and its postings (:func:`posting_rows`) as ``"postings"``."""
    with closing(sqlite3.connect(db)) as con:
        rows: dict[str, list[tuple[object, ...]]] = {
            table: con.execute(f"SELECT * FROM {table} WHERE {_COMPARED.get(table, '1')} "
                               f"ORDER BY {order}").fetchall()
            for table, order in INDEX_TABLES.items()}
        # A reference index of the tests keeps them in a table.
        table = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'postings'").fetchone()
        if table:
            rows["postings"] = con.execute(
                "SELECT * FROM postings ORDER BY key, game_id, seq").fetchall()
    if not table:
        rows["postings"] = list(posting_rows(db))
    return rows


def renumbered(rows: dict[str, list[tuple[object, ...]]]) -> dict[str, list[tuple[object, ...]]]:
    """:func:`table_rows` with game ids numbered 1, 2, ... in their order (a build
    never gives a game an id its postings file holds: the ids of games removed
    are skipped until a build merges the file)."""
    number = {row[0]: at for at, row in enumerate(rows["games"], 1)}
    out = dict(rows)
    out["games"] = [(number[r[0]], *r[1:]) for r in rows["games"]]
    out["variations"] = sorted((number[r[0]], *r[1:]) for r in rows["variations"])
    out["postings"] = sorted((r[0], number[r[1]], r[2]) for r in rows["postings"])
    return out


def table_dump(db: Path) -> list[tuple[object, ...]]:
    """The index's content independent of row ids: (file, game, stored game, seq, key)."""
    with closing(sqlite3.connect(db)) as con:
        games = {i: (path, game, record) for i, path, game, record in con.execute(
            "SELECT g.id, f.path, g.game, g.record FROM games g JOIN files f ON f.id = g.file_id")}
    return sorted((*games[game_id], seq, key) for key, game_id, seq in posting_rows(db)
                  if game_id in games)


def consistency_problems(db: Path) -> list[str]:
    """What an interrupted or incremental build must never leave behind."""
    checks = {
        "integrity":
            "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'",
        "files with missing games":
            "SELECT count(*) FROM files f WHERE f.games != "
            "(SELECT count(*) FROM games g WHERE g.file_id = f.id)",
        "orphan variations":
            "SELECT count(*) FROM variations WHERE game_id NOT IN (SELECT id FROM games)",
        "orphan games":
            "SELECT count(*) FROM games WHERE file_id NOT IN (SELECT id FROM files)",
    }
    with closing(sqlite3.connect(db)) as con:
        problems = [name for name, sql in checks.items() if con.execute(sql).fetchone()[0]]
        nodes = dict(con.execute("SELECT id, nodes FROM games"))
    held: dict[int, int] = {}
    for _, game_id, _ in posting_rows(db):
        held[game_id] = held.get(game_id, 0) + 1
    if any(held.get(game_id, 0) != n for game_id, n in nodes.items()):
        problems.append("games with missing postings")
    if PostingsFile(postings_path(str(db))).faults():
        problems.append("a damaged postings file")
    return problems


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
