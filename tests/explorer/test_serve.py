"""The explorer's JSON endpoints (gohash.explorer.app) through Starlette's test client: every
endpoint, answers checked against a brute-force search of the games with sgfmill,
the game viewer against the position it was opened from, and bad input of every
kind answered with a 4xx and a message, never a 500.  Also ``gohash serve``'s
command line."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards, sgf
from starlette.applications import Starlette
from starlette.testclient import TestClient

from gohash.cli import main
from gohash.errors import GohashError, IndexFileError
from gohash.explorer.app import create_app
from gohash.explorer.params import MAX_QUERY_BYTES
from gohash.group.coords import sgf_letters
from gohash.index.filters import FILTERS
from gohash.index.index import Index
from gohash.index.movelist import parse_steps, replay
from tests.support.net import free_port
from tests.support.serve_fixtures import (
    DATA,
    LOCAL,
    build_index,
    corpus_games,
    first_answer,
    main_line,
    transforms,
)

Array = npt.NDArray[np.int8]


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """An index of data/sgf and 120 corpus games; the corpus games."""
    games = corpus_games(120)
    db = build_index(tmp_path_factory.mktemp("serve") / "index.db", [DATA, *games])
    return db, games


@pytest.fixture(scope="module")
def client(collection: tuple[Path, list[Path]]) -> Iterator[TestClient]:
    with TestClient(create_app(collection[0]), raise_server_exceptions=False,
                    base_url=LOCAL) as client:
        yield client


@pytest.fixture
def local() -> Iterator[Callable[[Starlette], TestClient]]:
    """Makes test clients of apps, started (their lifespan runs) and stopped after
    the test, so that an app's game-reading workers end with it."""
    with ExitStack() as stack:
        yield lambda app: stack.enter_context(
            TestClient(app, raise_server_exceptions=False, base_url=LOCAL)
        )


def get(client: TestClient, path: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def error(client: TestClient, path: str, status: int, **params: Any) -> str:
    # httpx would replace a query written in ``path`` by an empty ``params``.
    response = client.get(path, params=params) if params else client.get(path)
    assert response.status_code == status, (response.status_code, response.text)
    message: str = response.json()["error"]
    assert message
    return message


# -- a brute-force reference: sgfmill replays, numpy transforms ---------------------------------


@cache
def sgfmill_positions(path: Path) -> tuple[int, list[Array], list[tuple[str, str | None] | None]]:
    """Every main-line position of a record as sgfmill replays it (row 0 at the bottom),
    and the move that follows each (None: none follows)."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    size = game.get_size()
    board = boards.Board(size)
    black, white, _ = game.get_root().get_setup_stones()
    board.apply_setup(black, white, [])
    arrays = [array_of(board)]
    follows: list[tuple[str, str | None] | None] = []
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        assert colour is not None and not node.has_setup_stones(), path
        follows.append((colour, None if point is None else sgf_letters(point, size)))
        if point is not None:
            board.play(point[0], point[1], colour)
        arrays.append(array_of(board))
    follows.append(None)
    return size, arrays, follows


def array_of(board: boards.Board) -> Array:
    codes = {None: 0, "b": 1, "w": 2}
    return np.array([[codes[c] for c in row] for row in board.board], dtype=np.int8)


def apply(board: Array, image: Array, swap: bool) -> Array:
    moved = board.ravel()[image]
    return (3 - moved) % 3 if swap else moved  # type: ignore[no-any-return]


def brute_force(
    query: Array, paths: list[Path], to_move: str | None
) -> tuple[Counter[tuple[str, str | None]], int, set[tuple[str, int, bool]]]:
    """Next moves seen from ``query`` (colour, SGF letters), the occurrences, and per
    occurrence (file name, move number, colours exchanged), for a query without symmetry;
    with ``to_move``, only occurrences with that side to move in the query's colours
    (black at the start of a game, whatever its setup; then the last mover's opponent)."""
    size = query.shape[0]
    maps = transforms(size)
    images = [(apply(query, image, swap), image, swap) for image, swap in maps]
    assert sum(np.array_equal(seen, query) for seen, _, _ in images) == 1, "query has symmetry"
    # Each image by its stones' bytes: one exact comparison per position, not 16.
    by_stones: dict[bytes, list[tuple[Array, bool]]] = {}
    for seen, image, swap in images:
        by_stones.setdefault(np.ascontiguousarray(seen, dtype=np.int8).tobytes(), []).append(
            (image, swap))
    counts: Counter[tuple[str, str | None]] = Counter()
    where = set()
    total = 0
    for path in paths:
        game_size, arrays, follows = sgfmill_positions(path)
        if game_size != size:
            continue
        for number, (array, move) in enumerate(zip(arrays, follows, strict=True)):
            turn = "b" if number == 0 else {"b": "w", "w": "b"}[follows[number - 1][0]]
            for image, swap in by_stones.get(np.ascontiguousarray(array, dtype=np.int8).tobytes(),
                                             []):
                if to_move is not None and to_move != (turn if not swap else
                                                       {"b": "w", "w": "b"}[turn]):
                    continue
                total += 1
                where.add((path.name, number, swap))
                if move is not None:
                    colour, letters = move
                    if swap:
                        colour = "w" if colour == "b" else "b"
                    point = None
                    if letters is not None:
                        row, col = parse(letters, size)
                        point = sgf_letters(divmod(int(image[row, col]), size), size)
                    counts[(colour, point)] += 1
    return counts, total, where


def parse(letters: str, size: int) -> tuple[int, int]:
    return size - 1 - (ord(letters[1]) - 97), ord(letters[0]) - 97


def rows_of(array: Array) -> list[str]:
    return ["".join(".XO"[v] for v in row) for row in array[::-1]]


# -- the endpoints ---------------------------------------------------------------------------------


def test_info_lists_sizes_and_counts(
    client: TestClient, collection: tuple[Path, list[Path]]
) -> None:
    info = get(client, "/api/info")
    with Index(collection[0]) as index:
        held = index.info().to_json(paths=False)
    assert {name: info[name] for name in held} == held
    assert info["sizes"]["19"] >= 120 and {"9", "13"} <= set(info["sizes"])
    assert info["default_size"] == 19
    assert info["scheme"] == "regular128"


def test_page_and_static_files_are_served(client: TestClient) -> None:
    page = client.get("/?size=19&moves=pd")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<svg id="board"' in page.text and "/static/app.js" in page.text
    for name, kind in [("app.js", "javascript"), ("style.css", "text/css")]:
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and kind in response.headers["content-type"]
    assert client.get("/static/../serve.py").status_code == 404
    assert client.get("/static/%2e%2e/serve.py").status_code == 404


@pytest.mark.parametrize("turn", ["0", "1"])
@pytest.mark.parametrize(("game", "moves"), [(0, 3), (5, 4), (17, 5), (0, 4)])
def test_continuations_and_games_equal_a_brute_force_search(
    client: TestClient, collection: tuple[Path, list[Path]], game: int, moves: int, turn: str
) -> None:
    _, games = collection
    size, setup, line = main_line(games[game])
    answer = get(client, "/api/position", size=size, moves=",".join(setup + line[:moves]),
                 limit=200, turn=turn)
    query = np.array([[".XO".index(ch) for ch in row] for row in answer["stones"][::-1]],
                     dtype=np.int8)
    counts, total, where = brute_force(query, games, None if turn == "0" else answer["to_move"])
    assert total >= 1  # the game itself
    found = answer["continuations"]
    got = Counter({(c["colour"], c["sgf"] or None): c["count"] for c in found["moves"]})
    assert got == counts
    assert found["total"] == total
    assert found["to_move"] == ("any" if turn == "0" else answer["to_move"])
    assert found["ended"] == 0
    assert [c["count"] for c in found["moves"]] == sorted(counts.values(), reverse=True)
    matches = answer["games"]["matches"]
    assert answer["games"]["total"] == total == len(matches)
    assert {(m["source"], m["move_number"], m["colours_exchanged"]) for m in matches} == where
    assert answer["to_move"] == ("w" if line[moves - 1][0] == "b" else "b")
    if (game, moves) == (0, 4):  # reached with either side to move: the filter tells them apart
        other = get(client, "/api/position", size=size, moves=",".join(setup + line[:moves]),
                    turn="1" if turn == "0" else "0")
        assert (total > other["continuations"]["total"] > 0) == (turn == "0")
    assert answer["last"] == line[moves - 1][1:]


def test_continuation_letters_and_dates_and_wins(client: TestClient) -> None:
    answer = get(client, "/api/position", size=19, moves="pd,dd")
    for c in answer["continuations"]["moves"]:
        assert c["point"] in c["equivalent"]
        assert c["black_wins"] + c["white_wins"] + c["other"] == c["count"]
        assert c["same_colours"] + c["exchanged_colours"] == c["count"]
        assert c["first_date"] <= c["last_date"]
        assert c["first_date"].startswith("2017-01")
    counts = [c["count"] for c in answer["continuations"]["moves"]]
    assert counts == sorted(counts, reverse=True)
    assert sum(counts) == answer["continuations"]["total"]


def test_empty_board_continuations_mark_every_equivalent_point(client: TestClient) -> None:
    answer = get(client, "/api/position", size=19)
    assert len(answer["continuations"]["symmetries"]) == 16
    first = answer["continuations"]["moves"][0]
    # The 4-4 point and its seven images are one continuation on an empty board.
    assert len(first["equivalent"]) in (4, 8)
    assert answer["moves"] == "" and answer["move_number"] == 0


def test_games_pages_through_the_matches(client: TestClient) -> None:
    everything = get(client, "/api/games", size=19, moves="pd", limit=200)
    assert everything["total"] == len(everything["matches"]) > 25
    pages = [
        get(client, "/api/games", size=19, moves="pd", offset=offset, limit=10)["matches"]
        for offset in range(0, everything["total"], 10)
    ]
    assert [m for page in pages for m in page] == everything["matches"]
    beyond = get(client, "/api/games", size=19, moves="pd", offset=10_000)
    assert beyond["matches"] == [] and beyond["total"] == everything["total"]


def test_filters_narrow_the_games(client: TestClient) -> None:
    everything = get(client, "/api/games", size=19, moves="pd", limit=200)["matches"]
    player = everything[0]["black"]
    narrowed = get(client, "/api/games", size=19, moves="pd", limit=200, player=player.upper())
    assert narrowed["matches"] == [
        m for m in everything
        if player.casefold() in m["black"].casefold() or player.casefold() in m["white"].casefold()
    ]
    assert 0 < narrowed["total"] < len(everything)
    won = get(client, "/api/games", size=19, moves="pd", limit=200, result="B")["matches"]
    assert won and all(m["result"].startswith("B+") for m in won)
    later = get(client, "/api/position", size=19, moves="pd", date_from="2017-01-04")
    assert all(m["iso_date"] >= "2017-01-04" for m in later["games"]["matches"])
    assert later["continuations"]["total"] < len(everything)
    same = get(client, "/api/position", size=19, moves="pd", symmetry="d4")
    assert same["continuations"]["exchanged_colours"] == 0


def test_edits_and_passes_are_positions_too(client: TestClient) -> None:
    answer = get(client, "/api/position", size=19, moves="Bpd,Wdd,Bdp,pass")
    assert answer["to_move"] == "w" and answer["move_number"] == 1
    assert answer["stones"][3][15] == "X" and answer["stones"][3][3] == "O"
    assert answer["last"] is None


def test_moves_are_answered_in_the_short_form(client: TestClient) -> None:
    answer = get(client, "/api/position", size=19, moves="bpd,wdd,bpq")
    assert answer["moves"] == "pd,dd,pq"
    assert get(client, "/api/position", size=19, moves="pd,bdd")["moves"] == "pd,bdd"


def test_captures_and_ko_in_the_answer(client: TestClient) -> None:
    ko = "Bbb,Bac,Bbd,Wcb,Wdc,Wcd,Wbc,cc"
    answer = get(client, "/api/position", size=9, moves=ko)
    assert answer["captured"] == {"b": 1, "w": 0}
    assert answer["ko"] == "bc" and answer["last"] == "cc"


def test_game_viewer_shows_the_query_position_at_the_match(client: TestClient) -> None:
    # A position reached in several orientations: each match, seen through its view,
    # is the query position at its seq.
    answer = get(client, "/api/position", size=19, moves="pd,dp,pp", limit=200)
    matches = answer["games"]["matches"]
    assert matches
    views = set()
    for match in matches[:12]:
        game = get(client, f"/api/game/{match['game_id']}", view=match["view"], count=500)
        assert game["positions"][match["seq"]] == answer["stones"]
        assert game["move_numbers"][match["seq"]] == match["move_number"]
        assert game["colours_exchanged"] == match["colours_exchanged"]
        views.add(match["view"])
        # The game as a move list replays to every one of its positions.
        for i in (0, match["seq"], len(game["positions"]) - 1):
            steps = get(client, f"/api/game/{match['game_id']}/steps", view=match["view"], at=i)
            board = replay(parse_steps(",".join(steps["steps"]), 19), 19).board
            assert rows_of(board.to_array()) == game["positions"][i]
    assert len(views) > 1


def test_game_viewer_identity_is_the_record_as_sgfmill_reads_it(
    client: TestClient, collection: tuple[Path, list[Path]]
) -> None:
    _, games = collection
    answer = get(client, "/api/games", size=19, moves="", limit=200)
    by_file = {m["source"]: m["game_id"] for m in answer["matches"]}
    path = games[3]
    game = get(client, f"/api/game/{by_file[path.name]}", count=500)
    _, arrays, follows = sgfmill_positions(path)
    assert game["positions"] == [rows_of(a) for a in arrays]
    assert game["positions_total"] == len(arrays) and game["start"] == 0
    assert game["last"][1:] == [move[1] for move in follows[:-1] if move is not None]
    assert game["root"]["PB"] == game["black"]


def test_handicap_setup_becomes_edit_steps(client: TestClient) -> None:
    size, setup, _ = main_line(DATA / "handicap-4-19x19.sgf")
    assert len(setup) == 4
    match = get(client, "/api/games", size=size, moves=",".join(setup))["matches"][0]
    assert match["seq"] == 0 and match["handicap"] == 4
    steps = get(client, f"/api/game/{match['game_id']}/steps", view=match["view"], at=0)
    assert sorted(steps["steps"]) == sorted(setup)


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"moves": "pd,zz"}, "step 2: 'zz' is not a point of the 19x19 board"),
        ({"moves": "pd,,dp"}, "step 2: '' is not a step"),
        ({"moves": "p"}, "step 1: 'p' is not a step"),
        ({"moves": "<script>"}, "step 1: '<script>' is not a step"),
        ({"size": "9", "moves": "pd"}, "step 1: 'pd' is not a point of the 9x9 board"),
        ({"moves": "pd,pd"}, "step 2: white at 'Q16' is occupied"),
        ({"size": "9", "moves": "Bbb,Bac,Bbd,Wcb,Wdc,Wcd,Wbc,cc,bc"},
         "step 9: white at 'B7' retakes a ko"),
        ({"size": "9", "moves": "Wba,Wab,aa"}, "step 3: black at 'A9' is suicide"),
        ({"size": "abc"}, "size must be a whole number, not 'abc'"),
        ({"size": "-1"}, "size must be a whole number, not '-1'"),
        ({"size": "0"}, "size must be between 1 and 26, not 0"),
        ({"size": "27"}, "size must be between 1 and 26, not 27"),
        ({"size": "1e3"}, "size must be a whole number"),
        ({"size": "١٩"}, "size must be a whole number"),
        ({"limit": "0"}, "limit must be between 1 and 200, not 0"),
        ({"limit": "99999999999"}, "limit must be a whole number"),
        ({"symmetry": "all"}, "symmetry must be one of full, d4, not 'all'"),
        ({"turn": "yes"}, "turn must be one of 0, 1, not 'yes'"),
        ({"handicap": "maybe"}, "handicap must be one of yes, no, not 'maybe'"),
        ({"date_from": "last week"}, "date_from 'last week' is not a date"),
        ({"date_to": "2017-02-30x"}, "date_to '2017-02-30x' is not a date"),
        ({"result": "draw"}, "result 'draw' is not one of 'B', 'W', 'other'"),
        ({"min_rank": "strong"}, "min_rank 'strong' is not a rank"),
        ({"player": "x" * 201}, "player has 201 characters; at most 200"),
        ({"offset": "1"}, "unknown parameter 'offset'"),
        ({"moves[]": "pd"}, "unknown parameter 'moves[]'"),
    ],
)
def test_bad_positions_and_parameters_get_400(
    client: TestClient, params: dict[str, str], message: str
) -> None:
    assert message in error(client, "/api/position", 400, **params)


@pytest.mark.parametrize(
    ("params", "step", "refusal"),
    [
        ({"moves": "pd,pd"}, 2, "Q16 is occupied"),
        ({"size": "9", "moves": "Bbb,Bac,Bbd,Wcb,Wdc,Wcd,Wbc,cc,bc"}, 9, "B7 retakes a ko"),
        ({"size": "9", "moves": "Wba,Wab,aa"}, 3, "A9 is suicide"),
        ({"size": "9", "moves": "Wba,Wab,Baa"}, 3, "A9 would leave a group without liberties"),
        ({"moves": "pd,zz"}, None, None),
        ({"moves": "pd,,dp"}, None, None),
    ],
)
def test_an_illegal_step_says_why_in_a_few_words(
    client: TestClient, params: dict[str, str], step: int | None, refusal: str | None
) -> None:
    # The page shows ``refusal`` beside the board when the step refused is the click.
    response = client.get("/api/position", params=params)
    assert response.status_code == 400
    body = response.json()
    assert (body.get("step"), body.get("refusal")) == (step, refusal)


def test_junk_query_strings_get_4xx(client: TestClient) -> None:
    for query in ["size=19&size=13", "moves=pd&moves=dp", "%ff%fe=1", "a=%zz", "moves=%00",
                  "&&&=&", "size", "moves=pd%2C%2Cdp", "offset=-5&moves=pd"]:
        for endpoint in ("/api/position", "/api/games"):
            response = client.get(f"{endpoint}?{query}")
            assert 400 <= response.status_code < 500, (endpoint, query, response.text)
            assert response.json()["error"]
    assert "given twice" in error(client, "/api/position?size=19&size=13", 400)
    huge = "moves=" + ",".join(["pass"] * (MAX_QUERY_BYTES // 5 + 1))
    assert "at most" in error(client, f"/api/position?{huge}", 414)
    assert "unknown parameter 'x'" in error(client, "/api/info?x=1", 400)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["size", "moves", "limit", "offset", *(f.name for f in FILTERS),
                         "symmetry", "turn", "x"]),
        st.one_of(st.text(max_size=30), st.from_regex(r"[a-sBWE]{0,3}(,[a-s]{2}){0,8}")),
    ),
    st.sampled_from(["/api/position", "/api/games"]),
)
def test_random_queries_never_get_a_500(
    client: TestClient, params: dict[str, str], endpoint: str
) -> None:
    response = client.get(endpoint, params=params)
    assert response.status_code in (200, 400, 414), response.text
    body = response.json()
    assert ("error" in body) == (response.status_code != 200)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=40), st.text(max_size=20))
def test_random_game_requests_never_get_a_500(client: TestClient, game: str, view: str) -> None:
    response = client.get(f"/api/game/{urllib.parse.quote(game, safe='')}", params={"view": view})
    assert response.status_code in (200, 400, 404), response.text


def test_bad_game_requests(client: TestClient) -> None:
    assert "no game with id 999999" in error(client, "/api/game/999999", 404)
    assert "a game id is a whole number" in error(client, "/api/game/abc", 400)
    assert "a game id is a whole number" in error(client, "/api/game/-1", 400)
    assert "a game id is a whole number" in error(client, "/api/game/" + "9" * 40, 400)
    assert "unknown symmetry element 'sideways'" in error(
        client, "/api/game/1", 400, view="sideways"
    )
    assert "unknown parameter 'path'" in error(client, "/api/game/1?path=/etc/passwd", 400)
    # No route takes a path: a file name where the id goes is no game.
    assert client.get("/api/game/..%2F..%2Fetc%2Fpasswd").status_code == 404
    assert client.get("/api/game/%2Fetc%2Fpasswd").status_code in (400, 404)
    assert client.get("/api/nothing").status_code == 404


def test_game_is_served_after_its_file_changed_or_went(
    tmp_path: Path, local: Callable[[Starlette], TestClient]
) -> None:
    record = tmp_path / "game.sgf"
    shutil.copy(DATA / "game-9x9.sgf", record)
    db = build_index(tmp_path / "index.db", [record])
    client = local(create_app(db))
    game_id = get(client, "/api/games", size=9)["matches"][0]["game_id"]
    served = get(client, f"/api/game/{game_id}")
    assert served["positions"]
    record.write_bytes(record.read_bytes().replace(b"]", b"] ", 1))

    def stored(game: dict[str, Any]) -> dict[str, Any]:
        # The game comes from the index; only its comments are read from the file.
        return {name: value for name, value in game.items() if name != "comments"}

    changed = get(client, f"/api/game/{game_id}")
    assert stored(changed) == stored(served) and changed["comments"] is None
    record.unlink()
    gone = get(client, f"/api/game/{game_id}")
    assert stored(gone) == stored(served) and gone["comments"] is None


def test_download_sgf_is_the_game_as_recorded_or_rebuilt_once_its_file_is_gone(
    tmp_path: Path, local: Callable[[Starlette], TestClient]
) -> None:
    folder = tmp_path / "private-folder"
    folder.mkdir()
    record = folder / "two.sgf"
    first = (DATA / "game-9x9.sgf").read_bytes().strip()
    # A collection of two games, the second in GB2312 with a comment and a node without
    # a move, whose comment belongs to the position before it.
    second = ("(;GM[1]FF[4]CA[GB2312]SZ[9]PB[\u674e\u660c\u9550]PW[W]C[root note]"
              ";B[ee]C[first move];W[cc];C[about cc\\]](;B[gg])(;B[dd]C[variation]))")
    record.write_bytes(first + b"\n" + second.encode("gb2312"))
    db = build_index(tmp_path / "index.db", [record])
    client = local(create_app(db))
    matches = get(client, "/api/games", size=9, limit=10)["matches"]
    by_game = {m["game"]: m["game_id"] for m in matches}
    assert {m["source"] for m in matches} == {"two.sgf"}
    answer = client.get(f"/api/game/{by_game[0]}/sgf")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/x-go-sgf"
    # Named after its players (Index.sgf_name), in ASCII and as UTF-8 (RFC 6266).
    assert answer.headers["content-disposition"] == (
        'attachment; filename="Random Black vs Random White.sgf"; '
        "filename*=UTF-8''Random%20Black%20vs%20Random%20White.sgf")
    assert answer.content == first
    answer = client.get(f"/api/game/{by_game[1]}/sgf")
    assert answer.headers["content-disposition"] == (
        "attachment; filename=\"___ vs W.sgf\"; "
        "filename*=UTF-8''%E6%9D%8E%E6%98%8C%E9%95%90%20vs%20W.sgf")
    game = sgf.Sgf_game.from_bytes(answer.content)
    assert game.get_root().get("PB") == "\u674e\u660c\u9550"
    assert game.get_charset() == "UTF-8"
    assert [node.get_move() for node in game.get_main_sequence()][1:3] == [
        ("b", (4, 4)), ("w", (6, 2))]
    viewed = get(client, f"/api/game/{by_game[1]}")
    assert viewed["black"] == "\u674e\u660c\u9550"
    assert viewed["comments"] == ["root note", "first move", "about cc]", None]
    assert get(client, f"/api/game/{by_game[0]}")["comments"] == [None] * len(
        get(client, f"/api/game/{by_game[0]}")["positions"])

    assert "no game with id 999" in error(client, "/api/game/999/sgf", 404)
    assert "unknown parameter" in error(client, f"/api/game/{by_game[0]}/sgf?view=rot90", 400)
    # Changed or gone, the file is not the record indexed: the download is the
    # game rebuilt from the index (its moves and root properties, no comments).
    record.write_bytes(record.read_bytes() + b" ")
    changed = client.get(f"/api/game/{by_game[1]}/sgf")
    record.unlink()
    gone = client.get(f"/api/game/{by_game[1]}/sgf")
    assert changed.status_code == gone.status_code == 200 and changed.content == gone.content
    rebuilt = sgf.Sgf_game.from_bytes(gone.content)
    assert rebuilt.get_root().get("PB") == "\u674e\u660c\u9550"
    assert [node.get_move() for node in rebuilt.get_main_sequence()][1:3] == [
        ("b", (4, 4)), ("w", (6, 2))]
    assert b"C[" not in gone.content
    # The viewer's game comes from the index; only its comments needed the file.
    assert get(client, f"/api/game/{by_game[1]}")["comments"] is None


def test_no_answer_holds_a_local_path(
    tmp_path: Path, local: Callable[[Starlette], TestClient]
) -> None:
    folder = tmp_path / "home-of-someone"
    shutil.copytree(DATA, folder)
    db = build_index(tmp_path / "index.db", [folder])
    client = local(create_app(db))
    first = get(client, "/api/games", size=19)["matches"][0]
    game_id = first["game_id"]
    answers = [
        client.get("/api/info"),
        client.get("/api/player", params={"name": first["black"], "limit": 200}),
        client.get("/api/games", params={"size": 19, "order": "-date", "limit": 200}),
        client.get("/api/position", params={"size": 19, "limit": 200}),
        client.get("/api/games", params={"size": 9, "limit": 200}),
        client.get(f"/api/game/{game_id}"),
        client.get(f"/api/game/{game_id}/steps", params={"at": 3}),
        client.get("/api/game/999999"),
        client.get("/api/game/999999/sgf"),
        client.get("/api/position", params={"size": 19, "moves": "zz"}),
    ]
    for response in answers:
        assert "home-of-someone" not in response.text, response.text
        assert str(tmp_path) not in response.text, response.text
    assert [r.status_code for r in answers] == [200] * 7 + [404, 404, 400]
    (folder / "game-19x19-no-sz.sgf").unlink()
    for path in ("/api/game/{}", "/api/game/{}/sgf"):
        for m in get(client, "/api/games", size=19, limit=200)["matches"]:
            answer = client.get(path.format(m["game_id"]))
            assert "home-of-someone" not in answer.text and str(tmp_path) not in answer.text


def test_the_index_is_opened_read_only(
    tmp_path: Path, local: Callable[[Starlette], TestClient]
) -> None:
    db = build_index(tmp_path / "index.db", [DATA / "game-9x9.sgf"])
    before = db.read_bytes()
    app = create_app(db)
    client = local(app)
    assert get(client, "/api/position", size=9, moves="ee")["continuations"]["total"] >= 0
    # SQLite itself refuses to write through the app's connection (mode=ro).
    with pytest.raises(IndexFileError, match="attempt to write a readonly database"):
        app.state.index.build([str(DATA / "game-13x13.sgf")])
    assert db.read_bytes() == before
    with pytest.raises(GohashError, match="cannot be created read-only"):
        Index(tmp_path / "new.db", create=True, read_only=True)


def test_an_index_damaged_while_serving_gets_503(
    tmp_path: Path, local: Callable[[Starlette], TestClient]
) -> None:
    db = build_index(tmp_path / "index.db", [DATA / "game-9x9.sgf"])
    client = local(create_app(db))
    game_id = get(client, "/api/games", size=9)["matches"][0]["game_id"]
    with sqlite3.connect(db) as con:  # another process breaks the index under the server
        con.execute("DROP TABLE games")
    for path in ["/api/position?size=9", "/api/games?size=9", f"/api/game/{game_id}"]:
        assert "no such table: games" in error(client, path, 503)


def test_bad_index_files_are_refused_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --port 0: the port is bound first, and 8000 may be taken on a test machine.
    assert main(["serve", str(tmp_path / "missing.db"), "--port", "0"]) == 2
    assert "no such index" in capsys.readouterr().err
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all")
    assert main(["serve", str(junk), "--port", "0"]) == 2
    assert "not an SQLite database" in capsys.readouterr().err
    assert main(["serve", str(junk), "--port", "70000"]) == 2
    assert "argument --port: must be at most 65,535, not 70000" in capsys.readouterr().err


def test_gohash_serve_command_answers_on_localhost(collection: tuple[Path, list[Path]]) -> None:
    port = free_port()
    command = Path(sys.executable).parent / "gohash"
    server = subprocess.Popen(
        [str(command), "serve", str(collection[0]), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert b'"default_size":19' in first_answer(server, f"http://127.0.0.1:{port}/api/info")
    finally:
        server.terminate()
        out, err = server.communicate(timeout=30)
    # The address is a message, on standard error as every command's are.
    assert f"gohash serve: exploring {collection[0]} at http://127.0.0.1:{port}/" in err
    assert out == ""
