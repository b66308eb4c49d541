"""A stored game written back as SGF (gohash.index.export), read by sgfmill: the
same positions, node by node, as the index replays (sgfmill's board is the
reference: it shares no code with gohash)."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sgfmill import boards, sgf

from gohash.errors import GohashError
from gohash.index.export import game_sgf, stored_nodes
from gohash.index.games import replay_boards
from gohash.index.index import Index
from tests.support import sgfgen
from tests.support.env import ROOT, require_corpus

DATA = ROOT / "data" / "sgf"


def _build(folder: Path, paths: list[str], variations: bool = False) -> str:
    db = str(folder / "index.db")
    with Index(db, create=True, variations=variations) as index:
        index.build(paths)
    return db


def _sgfmill_positions(text: str, size: int) -> Counter[tuple[int, bytes]]:
    """Every node's position (by depth) as sgfmill replays the record."""
    game = sgf.Sgf_game.from_string(text)
    assert game.get_size() == size
    found: Counter[tuple[int, bytes]] = Counter()
    stack: list[tuple[Any, boards.Board, int]] = [(game.get_root(), boards.Board(size), 0)]
    while stack:
        node, parent, depth = stack.pop()
        board = parent.copy()
        black, white, empty = node.get_setup_stones()
        if black or white or empty:
            board.apply_setup(black, white, empty)
        colour, point = node.get_move()
        if colour is not None and point is not None:
            board.play(point[0], point[1], colour)
        flat = np.zeros(size * size, dtype=np.int8)
        for c, (row, col) in board.list_occupied_points():
            flat[row * size + col] = 1 if c == "b" else 2
        found[depth, flat.tobytes()] += 1
        stack += [(child, board, depth + 1) for child in node]
    return found


def _stored_positions(blob: bytes, size: int, nodes: int) -> Counter[tuple[int, bytes]]:
    replayed = replay_boards(blob, size, nodes)
    depth = [0] * nodes
    for node in range(1, nodes):
        depth[node] = depth[int(replayed.parent[node])] + 1
    return Counter((depth[n], replayed.boards[n].tobytes()) for n in range(nodes))


def _check_index(db: str) -> int:
    checked = 0
    with Index(db, read_only=True) as index:
        for game_id, size, nodes, blob in index._db.execute(
                "SELECT id, size, nodes, record FROM games WHERE positions > 0"):
            text = game_sgf(blob, size, {"PB": "B ]\\ name"})
            assert _sgfmill_positions(text, size) == _stored_positions(blob, size, nodes), (
                game_id, text)
            assert sgf.Sgf_game.from_string(text).get_root().get("PB") == "B ]\\ name"
            checked += 1
    return checked


@pytest.mark.parametrize("variations", [False, True])
def test_every_sample_game_replays_in_sgfmill_as_stored(tmp_path: Path,
                                                        variations: bool) -> None:
    db = _build(tmp_path, [str(DATA)], variations)
    assert _check_index(db) > 20


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), variations=st.booleans())
def test_random_games_replay_in_sgfmill_as_stored(tmp_path_factory: Any, data: Any,
                                                  variations: bool) -> None:
    record = data.draw(sgfgen.records(st.integers(3, 9)))
    folder = tmp_path_factory.mktemp("records")
    path = folder / "games.sgf"
    path.write_text(record.sgf(), encoding="utf-8")
    _check_index(_build(folder, [str(path)], variations))


@pytest.mark.corpus
def test_corpus_games_replay_in_sgfmill_as_stored(tmp_path: Path) -> None:
    files = sorted(require_corpus().rglob("*.sgf"))[::97]
    assert _check_index(_build(tmp_path, [str(p) for p in files], True)) > 50


def test_a_blob_that_is_no_game_is_an_error() -> None:
    for blob in (b"\x01", b"", (0x3000).to_bytes(2, "little"), (0).to_bytes(2, "little")):
        with pytest.raises(GohashError):
            stored_nodes(blob, 9)


def test_download_works_when_the_file_is_gone(tmp_path: Path) -> None:
    record = tmp_path / "game.sgf"
    shutil.copy(DATA / "game-9x9.sgf", record)
    db = _build(tmp_path, [str(record)])
    with Index(db, read_only=True) as index:
        (game_id,) = next(iter(index._db.execute("SELECT id FROM games")))
        as_recorded = index.sgf(game_id)
        record.unlink()
        rebuilt = index.sgf(game_id)
    assert as_recorded.strip() == (DATA / "game-9x9.sgf").read_text(encoding="utf-8").strip()
    original, again = (sgf.Sgf_game.from_string(t) for t in (as_recorded, rebuilt))
    assert [n.get_move() for n in original.get_main_sequence() if n.get_move()[0]] == [
        n.get_move() for n in again.get_main_sequence() if n.get_move()[0]]
    for name in ("PB", "PW", "RE"):
        if original.get_root().has_property(name):
            assert again.get_root().get(name) == original.get_root().get(name)
