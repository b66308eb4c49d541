"""Indexes for the pattern search tests: records built into an index, its games'
main lines as pattern search reads them, a position of one turned by any
element, and diagrams of a fully specified corner square."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st

from gohash.group.symmetry import ELEMENTS
from gohash.index.games import replay_boards
from gohash.index.index import Index
from gohash.index.pattern_search import _game_boards
from gohash.pattern.corners import squares
from gohash.pattern.search import PatternQuery


def build_index(tmp_path: Path, paths: list[str]) -> str:
    """An index ``index.db`` in ``tmp_path`` of the records of ``paths``."""
    db = str(tmp_path / "index.db")
    with Index(db, create=True) as index:
        index.build(paths)
    return db


def write_records(folder: Path, stem: str, texts: list[str]) -> list[str]:
    """The SGF ``texts`` written in ``folder`` as ``stem0.sgf``, ``stem1.sgf``, ...:
    their paths."""
    paths = []
    for n, text in enumerate(texts):
        path = folder / f"{stem}{n}.sgf"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


def draw_winners(data: Any, db: str) -> None:
    """A winner (none, Black or White) drawn by hypothesis's ``data`` for every
    game of the index ``db`` (the random records have no results)."""
    with sqlite3.connect(db) as connection:
        for (game_id,) in connection.execute("SELECT id FROM games").fetchall():
            connection.execute("UPDATE games SET winner = ? WHERE id = ?",
                               (data.draw(st.sampled_from([None, "B", "W"])), game_id))
    connection.close()


def record_index(folder: Path, record: Any) -> str:
    """An index in ``folder`` of a random record (:class:`tests.support.sgfgen.Record`),
    written there as ``games.sgf``."""
    path = folder / "games.sgf"
    path.write_text(record.sgf(), encoding="utf-8")
    return build_index(folder, [str(path)])


def positions_of(db: str) -> list[tuple[int, int, int]]:
    """(id, size, positions) of every game of the index ``db``, by id."""
    with Index(db, read_only=True) as index:
        return index._db.execute("SELECT id, size, positions FROM games ORDER BY id").fetchall()


def stored_boards(index: Index, game_id: int) -> Any:
    """Game ``game_id``'s main line as pattern search reads it from the index."""
    size, nodes, positions, blob = index._db.execute(
        "SELECT size, nodes, positions, record FROM games WHERE id = ?", (game_id,)).fetchone()
    return _game_boards(replay_boards(blob, size, nodes, positions - 1), positions)


def corner_diagram(board: list[int], size: int, corner: int, outside: list[str],
                   side: int = 7) -> str:
    """A diagram whose square of ``side`` at ``corner`` holds ``board``'s stones
    there, fully specified; ``outside[p]`` elsewhere."""
    inside = squares(size, side)[corner]
    symbols = [".XO"[board[p]] if inside[p] else outside[p] for p in range(size * size)]
    return "\n".join("".join(symbols[r * size : (r + 1) * size]) for r in reversed(range(size)))


def turned_board(data: Any, db: str, held: list[int], size: int) -> npt.NDArray[np.int8]:
    """A position (flat, values 0, 1, 2) of a game of ``held`` (ids) of the index
    ``db``, drawn by hypothesis's ``data``, turned by a drawn element (colours
    exchanged by those that do); the index's store of ``size`` read first (its
    answers made, under the caller's settings)."""
    with Index(db, read_only=True) as index:
        boards = stored_boards(index, data.draw(st.sampled_from(held))).boards
        index._game_store(size)
    board = boards[data.draw(st.integers(0, len(boards) - 1))]
    g = data.draw(st.sampled_from(ELEMENTS))
    turned = g.image_array(board.reshape(size, size)).reshape(-1)
    turned_colours: npt.NDArray[np.int8] = np.where(turned == 0, 0, 3 - turned).astype(
        np.int8) if g.swap else turned.astype(np.int8)
    return turned_colours


def shape_result(db: str, diagram: str, **options: Any) -> Any:
    """The JSON of a search of ``diagram`` in the index ``db`` but its
    candidates: a window's or band's answers cover every game of their
    segment, the pure path's candidates are the games its filter of stones
    keeps."""
    with Index(db, read_only=True) as index:
        found = index.pattern(diagram, **options).to_json(paths=False)
    del found["candidates"]
    return found


def shape_answers(db: str, diagram: str) -> int:
    """How many segments of the index ``db`` hold an answer of ``diagram``'s
    window or band (none if it is neither)."""
    query = PatternQuery(diagram)
    shape = query.window if query.window is not None else query.band
    with Index(db, read_only=True) as index:
        store = index._game_store(query.size)
    if shape is None:
        return 0
    return sum(block is not None and bool(block.find(shape.key, shape.square))
               for block in store.answers)
