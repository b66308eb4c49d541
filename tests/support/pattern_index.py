"""Indexes for the pattern search tests: records built into an index, its games'
main lines as pattern search reads them, and diagrams of a fully specified
corner square."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gohash.index.games import replay_boards
from gohash.index.index import Index
from gohash.index.pattern_search import _game_boards
from gohash.pattern.corners import squares


def build_index(tmp_path: Path, paths: list[str]) -> str:
    """An index ``index.db`` in ``tmp_path`` of the records of ``paths``."""
    db = str(tmp_path / "index.db")
    with Index(db, create=True) as index:
        index.build(paths)
    return db


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
