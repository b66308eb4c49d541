"""Setup is not play: continuations leave out the occurrences that setup made
(handicap stones, a setup node's position) or ended (the empty board before
handicap stones that come in a later node), and count them, unless asked
(``setup="include"``, ``"only"``; the CLI's ``--setup``, the server's ``setup``).

The expected counts come from the records as written here, one kind of game each.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gohash.cli import main
from gohash.errors import GohashError
from gohash.go.board import Board
from gohash.index.games import plain_games, setup_nodes
from gohash.index.index import Index
from tests.support.serve_fixtures import build_index

EVEN = "(;GM[1]SZ[9]RE[B+R];B[ee];W[cc];B[gg])"
HANDICAP_LATER = "(;GM[1]SZ[9]HA[2]RE[W+R];AB[cc][gg];W[ee];B[cg])"
HANDICAP_ROOT = "(;GM[1]SZ[9]HA[2]AB[cc][gg]RE[W+R];W[ce];B[ee])"
# Played to a position, then a stone taken off by setup, then play again.
CORRECTED = "(;GM[1]SZ[9];B[ee];W[cc];AE[cc];W[gc])"
COUNTS = {EVEN: 3, HANDICAP_LATER: 2, HANDICAP_ROOT: 2, CORRECTED: 1}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("setup")
    paths = []
    for record, copies in COUNTS.items():
        for _ in range(copies):
            path = folder / f"g{len(paths)}.sgf"
            path.write_text(record)
            paths.append(path)
    return build_index(folder / "index.db", paths)


def _board(black: str = "", white: str = "", to_move: str = "b") -> Board:
    stones = np.zeros((9, 9), dtype=np.int8)
    for colour, points in ((1, black), (2, white)):
        for letters in points.split():
            stones[8 - (ord(letters[1]) - 97), ord(letters[0]) - 97] = colour
    return Board.from_array(stones, to_move=to_move)


def _counts(index: Index, board: Board, setup: str) -> tuple[int, int, int, dict[str, int]]:
    found = index.continuations(board, symmetry="d4", setup=setup)
    return found.total, found.ended, found.setup_left_out, {
        f"{m.colour}{m.point}": m.count for m in found.moves}


def test_the_empty_board(db: Path) -> None:
    with Index(db, read_only=True) as index:
        empty = Board(9)
        # Even games and the corrected one start with B E5; the later handicap's
        # empty root is left by setup; the root handicap never had an empty board.
        assert _counts(index, empty, "exclude") == (4, 0, 2, {"b(4, 4)": 4})
        assert _counts(index, empty, "include") == (6, 2, 0, {"b(4, 4)": 4})
        assert _counts(index, empty, "only") == (2, 2, 4, {})
        assert index.continuations(empty).setup == "exclude"


def test_handicap_stones(db: Path) -> None:
    with Index(db, read_only=True) as index:
        stones = _board("cc gg")  # Black to move, as the index says after setup
        assert _counts(index, stones, "exclude") == (0, 0, 4, {})
        assert _counts(index, stones, "include") == (4, 0, 0, {"w(4, 4)": 2, "w(6, 4)": 2})
        assert _counts(index, stones, "only") == (4, 0, 0, {"w(4, 4)": 2, "w(6, 4)": 2})
        # After a move from the handicap position: play again.
        after = _board("cc gg", "ee", to_move="b")
        assert _counts(index, after, "exclude") == (2, 0, 0, {"b(6, 6)": 2})


def test_a_setup_node_in_the_middle(db: Path) -> None:
    with Index(db, read_only=True) as index:
        # The corrected game reaches B E5 W C7 by moves, then AE takes C7 off
        # (left by setup), and reaches it again turned (W G7) by a move, its last.
        assert _counts(index, _board("ee", "cc"), "exclude") == (4, 1, 1, {"b(2, 6)": 3})
        assert _counts(index, _board("ee", "cc"), "only") == (1, 1, 4, {})
        # B E5 with Black to move: only the corrected game, after its AE (made by setup).
        alone = _board("ee")
        assert _counts(index, alone, "exclude") == (0, 0, 1, {})
        assert _counts(index, alone, "include") == (1, 0, 0, {"w(6, 6)": 1})
        with pytest.raises(GohashError, match="setup 'some' is not one of exclude"):
            index.continuations(Board(9), setup="some")


def test_setup_nodes_are_the_replays(db: Path) -> None:
    """setup_nodes, read off the stored words, says what the replay of each game says."""
    with Index(db, read_only=True) as index:
        rows = index._db.execute("SELECT id, record, positions FROM games")
        for game_id, blob, positions in rows.fetchall():
            replayed = [p.setup for p in index.game(game_id).positions]
            assert setup_nodes(blob, positions - 1) == replayed
            assert setup_nodes(blob, 0) == replayed[:1]



_WORD = st.tuples(st.sampled_from([0, 0, 0, 0, 1, 2, 3]), st.integers(0, 4095)).map(
    lambda w: w[0] << 12 | w[1])


@given(st.lists(st.integers(0, 4095), max_size=4), st.lists(_WORD, max_size=30),
       st.booleans(), st.integers(0, 40), st.booleans())
def test_a_plain_game_is_set_up_at_node_0_only(
    edits: list[int], words: list[int], rooted: bool, last: int, odd: bool
) -> None:
    """plain_games, read off all the games' words at once, says what setup_nodes
    reads node by node: a plain game's only setup is node 0's, if it has edits."""
    # Not rooted: a move where node 0's setup word must be.
    head = [1 << 12, len(edits), *edits] if rooted else [len(edits)]
    blob = np.array(head + words, dtype="<u2").tobytes() + (b"\x01" if odd else b"")
    plain, counts = plain_games([b"", blob, blob[:3]])
    flags = setup_nodes(blob, last)
    if plain[1]:
        assert counts[1] == len(edits)
        assert flags == [len(edits) > 0] + [False] * (len(flags) - 1)
    assert plain[1] == (rooted and all(w >> 12 == 0 for w in words))
    assert not plain[0] and counts[0] == 0

def test_cli_and_server(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from starlette.testclient import TestClient

    from gohash.explorer.app import create_app

    assert main(["index", "find", str(db), "--moves", "", "--size", "9", "--continuations"]) == 0
    err = capsys.readouterr().err
    assert ("4 occurrences, 0 with colours exchanged; 0 without a next move; 2 occurrences made "
            "or ended by setup left out (--setup include for them too)") in err
    assert main(["index", "find", str(db), "--moves", "", "--size", "9", "--continuations",
                 "--setup", "only", "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["total"], answer["setup"], answer["setup_left_out"]) == (2, "only", 4)
    assert main(["index", "find", str(db), "--moves", "", "--size", "9", "--setup",
                 "include"]) == 2
    assert "--setup goes with --continuations" in capsys.readouterr().err
    with TestClient(create_app(db), base_url="http://localhost") as client:
        for setup, total, left_out in (("exclude", 4, 2), ("include", 6, 0), ("only", 2, 4)):
            found = client.get("/api/position", params={"size": 9, "setup": setup}).json()
            moves = found["continuations"]
            assert (moves["total"], moves["setup_left_out"]) == (total, left_out)
        found = client.get("/api/position", params={"size": 9}).json()["continuations"]
        assert (found["setup"], found["total"]) == ("exclude", 4)
        answer = client.get("/api/position", params={"size": 9, "setup": "all"})
        assert answer.status_code == 400 and "setup must be one of" in answer.text
