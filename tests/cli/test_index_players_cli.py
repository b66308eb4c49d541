"""Finding players by part of their name (Index.players, ``index player``,
``/api/players``) and asking for a position by its moves (``index find --moves``),
against what the records say and what Index.player and the board give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gohash.cli import main
from gohash.errors import MoveListError
from gohash.go.board import Board
from gohash.index.index import Index
from gohash.index.movelist import play_moves
from gohash.index.players import PlayerMatch, chosen_player
from tests.support.serve_fixtures import build_index

GAMES = [
    ("Lee Sedol", "AlphaGo", "2016-03-13", "W+R"),
    ("AlphaGo", "Lee Sedol", "2016-03-15", "W+R"),
    ("lee changho", "Cho Hunhyun", "1990-01-01", "B+2.5"),
    ("\u8042\u536b\u5e73", "\u9a6c\u6653\u6625", "1995-05-05", "B+R"),
    ("\ufffd?\u536b\u5e73", "\u67ef\u6d01", "2017-01-01", "W+R"),
    ("Ke Jie", "\u67ef\u6d01", "2017-02-02", "B+R"),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("players")
    paths = []
    for i, (black, white, date, result) in enumerate(GAMES):
        path = folder / f"g{i}.sgf"
        path.write_text(f"(;GM[1]FF[4]CA[UTF-8]SZ[19]PB[{black}]PW[{white}]DT[{date}]"
                        f"RE[{result}];B[pd];W[dp];B[pq];W[dd];B[fq])", encoding="utf-8")
        paths.append(path)
    return build_index(folder / "index.db", paths)


def _names(index: Index, text: str) -> list[tuple[str, int]]:
    return [(m.name, m.games) for m in index.players(text, limit=None)]


def test_players_by_part_of_a_name(db: Path) -> None:
    with Index(db, read_only=True) as index:
        # Case-insensitive for Latin, a name equal to the text first, then by games.
        assert _names(index, "lee") == [("Lee Sedol", 2), ("lee changho", 1)]
        assert _names(index, "ALPHAGO") == [("AlphaGo", 2)]
        assert _names(index, "\u536b\u5e73") == [("\u8042\u536b\u5e73", 1),
                                                  ("\ufffd?\u536b\u5e73", 1)]
        assert _names(index, "\u67ef\u6d01") == [("\u67ef\u6d01", 2)]
        assert _names(index, "zzz") == []
        assert index.players("e", limit=2) == index.players("e", limit=None)[:2]
        # Every name holding the text, none that does not: against the records.
        for text in ("e", "Lee", "o", "\u5e73"):
            expected = {n for game in GAMES for n in game[:2] if text.casefold() in n.casefold()}
            assert {m.name for m in index.players(text, limit=None)} == expected


def test_chosen_player() -> None:
    alice, upper = PlayerMatch("Alice", 2), PlayerMatch("ALICE", 1)
    assert chosen_player([alice, upper], "Alice") == "Alice"
    assert chosen_player([alice, upper], "alice") is None
    assert chosen_player([alice], "lic") == "Alice"
    assert chosen_player([alice, PlayerMatch("Malice", 1)], "alice") == "Alice"
    assert chosen_player([], "x") is None


def test_index_player_cli(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", "player", str(db), "sedol", "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    with Index(db, read_only=True) as index:
        assert answer == index.player("Lee Sedol").page(0, 20).to_json()
    assert answer["colours"]["b"] == {"games": 1, "wins": 0, "losses": 1, "other": 0}
    assert [r["date"] for r in answer["games"]["records"]] == ["2016-03-15", "2016-03-13"]
    assert main(["index", "player", str(db), "Sedol"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Lee Sedol\n  as Black: 1 game: 0 won, 1 lost, 0 other\n")
    assert "openings of 4 moves (2 counted):" in out and "2016-03-13" in out
    assert "Lee Sedol: 2 games" in err
    # Several fit: listed, with their games.
    assert main(["index", "player", str(db), "LEE"]) == 0
    out, err = capsys.readouterr()
    assert out == "Lee Sedol  2 games\nlee changho  1 game\n"
    assert "2 players' names hold 'LEE': give one of them" in err
    assert main(["index", "player", str(db), "\u536b\u5e73", "--format", "json"]) == 0
    assert [p["name"] for p in json.loads(capsys.readouterr().out)["players"]] == [
        "\u8042\u536b\u5e73", "\ufffd?\u536b\u5e73"]
    assert main(["index", "player", str(db), "nobody"]) == 2
    assert "no player's name holds 'nobody'" in capsys.readouterr().err


def test_players_endpoint(db: Path) -> None:
    from starlette.testclient import TestClient

    from gohash.explorer.app import create_app

    with TestClient(create_app(db), base_url="http://localhost") as client:
        answer = client.get("/api/players", params={"q": "lee"})
        assert answer.status_code == 200
        assert answer.json() == {"query": "lee", "players": [
            {"name": "Lee Sedol", "games": 2}, {"name": "lee changho", "games": 1}]}
        assert client.get("/api/players", params={"q": "e", "limit": 1}).json()[
            "players"] == [{"name": "Lee Sedol", "games": 2}]
        for params in ({}, {"q": " "}, {"q": "x" * 201}):
            answer = client.get("/api/players", params=params)
            assert answer.status_code == 400 and "q must be part of a name" in answer.text
        # The player page's JSON is the library's.
        page = client.get("/api/player", params={"name": "AlphaGo", "limit": 1}).json()
        with Index(db, read_only=True) as index:
            assert page == index.player("AlphaGo").page(0, 1).to_json(paths=False)


def test_play_moves() -> None:
    board = play_moves("Q16 D4, q3 pass B C16", Board(19))
    assert board.move_number == 5 and board.to_move == "w"
    assert [board.get(p) for p in [(15, 15), (3, 3), (2, 15), (15, 2)]] == ["b", "w", "b", "b"]
    start = Board.from_array(board.to_array(), to_move="w")
    after = play_moves("C3", start)
    assert after.get((2, 2)) == "w" and start.get((2, 2)) is None
    for text, message in [
        ("Q16 Q16", "move 2: white at 'Q16' is occupied"),
        ("Q16 I5", "move 2: 'I5' is not a GTP vertex"),
        ("Q16 Z99", "move 2: vertex 'Z99' is off a 19x19 board"),
        ("B W Q16", "'W' after 'B': a colour needs a move"),
        ("Q16 W", "'W' at the end: a colour needs a move"),
    ]:
        with pytest.raises(MoveListError, match=message):
            play_moves(text, Board(19))


def test_find_by_moves(db: Path, capsys: pytest.CaptureFixture[str],
                       tmp_path: Path) -> None:
    assert main(["index", "find", str(db), "--moves", "Q16 D4 Q3", "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["total"] == len(GAMES) and {m["move_number"] for m in answer["matches"]} == {3}
    assert main(["index", "find", str(db), "--moves", "Q16 D4 Q3", "--continuations",
                 "--format", "json"]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert [(m["colour"], m["gtp"], m["count"]) for m in moves] == [("w", "D16", len(GAMES))]
    # From --sgf's position: the same position as the moves from the empty board.
    record = tmp_path / "q.sgf"
    record.write_text("(;GM[1]SZ[19];B[pd];W[dp])")
    assert main(["index", "find", str(db), "--sgf", str(record), "--moves", "Q3",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == len(GAMES)
    assert main(["index", "find", str(db), "--moves", "", "--size", "9"]) == 0
    assert "0 occurrences" in capsys.readouterr().err
    for argv, message in [
        (["--moves", "Q16 Q16"], "move 2: white at 'Q16' is occupied"),
        ([], "give the position: --sgf FILE, --position DIAGRAM or --moves"),
        (["--position", "...\n...\n...", "--moves", "A1"], "not a --position diagram"),
        (["--size", "9", "--sgf", str(record)], "--size goes with --moves alone"),
        (["--moves", "Q16", "--move", "3"], "--move goes with --sgf"),
    ]:
        assert main(["index", "find", str(db), *argv]) == 2
        assert message in capsys.readouterr().err
