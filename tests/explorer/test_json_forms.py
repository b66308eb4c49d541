"""One JSON form per result: what ``gohash index ... --format json`` prints and what
``gohash serve`` answers are the same objects (each result's ``to_json``), with the
game metadata under the names of the table in :mod:`gohash.metadata`; on the
written records of ``data/sgf/opening-explorer/``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from gohash.cli import main
from gohash.explorer.answers import MAX_CONTINUATIONS
from gohash.explorer.app import create_app
from gohash.index.index import Index
from gohash.metadata import FIELDS
from tests.support.env import ROOT
from tests.support.explorer_reference import EXPLORER, QUERY
from tests.support.serve_fixtures import LOCAL

MOVES = "ee,cc"  # QUERY, B E5 W C7, as the page's move list
# The same filters as CLI options and as URL parameters.
FILTERS = [
    ([], {}),
    (["--player", "alice"], {"player": "alice"}),
    (["--date-from", "2017", "--result", "other"], {"date_from": "2017", "result": "other"}),
    (["--no-handicap", "--min-rank", "3k"], {"handicap": "no", "min_rank": "3k"}),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("json-forms") / "index.db"
    assert main(["index", "build", str(path), str(EXPLORER)]) == 0
    return path


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db), raise_server_exceptions=False, base_url=LOCAL) as client:
        yield client


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main(["index", *argv])
    out = capsys.readouterr().out
    assert code in (0, 1), argv
    return json.loads(out)


def server_json(client: TestClient, path: str, **params: object) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def without_paths(value: Any) -> Any:
    """``value`` with every record's ``file`` left out, as the server sends it: the
    one difference between the two JSON forms (the server never shows a local path)."""
    if isinstance(value, dict):
        return {key: without_paths(item) for key, item in value.items() if key != "file"}
    if isinstance(value, list):
        return [without_paths(item) for item in value]
    return value


@pytest.mark.parametrize(("options", "params"), FILTERS)
def test_matches_are_the_servers_games(
    db: Path, client: TestClient, capsys: pytest.CaptureFixture[str],
    options: list[str], params: dict[str, str],
) -> None:
    # A diagram has no side to move: the server's turn=0 counts either side too.
    cli = cli_json(capsys, "find", str(db), "--position", QUERY, "--format", "json",
                   "--limit", "20", *options)
    server = server_json(client, "/api/games", size=9, moves=MOVES, turn=0, limit=20, **params)
    assert cli["matches"] == [] or "file" in cli["matches"][0]
    assert without_paths(cli) == server
    assert cli["matches"] or params  # the unfiltered query finds games


@pytest.mark.parametrize(("options", "params"), FILTERS)
def test_continuations_are_the_servers(
    db: Path, client: TestClient, capsys: pytest.CaptureFixture[str],
    options: list[str], params: dict[str, str],
) -> None:
    cli = cli_json(capsys, "find", str(db), "--position", QUERY, "--continuations",
                   "--format", "json", "--limit", str(MAX_CONTINUATIONS), *options)
    answer = server_json(client, "/api/position", size=9, moves=MOVES, turn=0, **params)
    assert cli == answer["continuations"]
    assert answer["games"] == server_json(client, "/api/games", size=9, moves=MOVES, turn=0,
                                          **params)


def test_a_game_is_its_record_everywhere(
    db: Path, client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    matches = cli_json(capsys, "find", str(db), "--position", QUERY, "--format", "json",
                       "--limit", "0")["matches"]
    with Index(db, read_only=True) as index:
        records = index.records()
    assert matches
    for match in matches:
        record = records[match["game_id"]].to_json()
        game = server_json(client, f"/api/game/{match['game_id']}", view=match["view"])
        assert {name: match[name] for name in record} == record
        served = records[match["game_id"]].to_json(paths=False)
        assert {name: game[name] for name in served} == served and "file" not in game
    groups = cli_json(capsys, "dupes", str(db), "--min-positions", "1", "--format", "json")
    for group in groups["groups"]:
        for entry in group["records"]:
            record = records[entry["game_id"]].to_json()
            assert {name: entry[name] for name in record} == record


def test_info_is_the_servers(
    db: Path, client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = cli_json(capsys, "info", str(db), "--format", "json")
    server = server_json(client, "/api/info")
    assert {name: server[name] for name in cli if name != "path"} == without_paths(
        {name: value for name, value in cli.items() if name != "path"})
    assert "path" not in server


def test_a_record_names_its_metadata_as_the_table_does(db: Path) -> None:
    with Index(db, read_only=True) as index:
        record = next(iter(index.records().values()))
    names = list(record.to_json())
    # The fields the index holds (all but RU), in the table's order.
    held = [f.name for f in FIELDS if f.prop != "RU"]
    assert [name for name in names if name in held] == held
    assert record.to_json()["date"] == record.dt and record.to_json()["iso_date"] == record.date


def names(value: object) -> set[str]:
    """Every key of every object in a JSON value (``years`` and ``gohash_versions``
    are keyed by data, not names)."""
    if isinstance(value, dict):
        return {key for key in value}.union(*(
            names(item) for key, item in value.items()
            if key not in ("years", "gohash_versions", "root", "sizes", "captured")))
    if isinstance(value, list):
        return set().union(*(names(item) for item in value))
    return set()


def test_every_name_written_is_documented_in_schemas(
    db: Path, client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    written = set()
    for argv in (["find", "--format", "json", "--limit", "0"],
                 ["find", "--continuations", "--format", "json"]):
        written |= names(cli_json(capsys, argv[0], str(db), "--position", QUERY, *argv[1:]))
    written |= names(cli_json(capsys, "dupes", str(db), "--min-positions", "1", "--format",
                              "json"))
    written |= names(cli_json(capsys, "info", str(db), "--format", "json"))
    position = server_json(client, "/api/position", size=9, moves=MOVES)
    written |= names(position) | names(server_json(client, "/api/info"))
    game_id = position["games"]["matches"][0]["game_id"]
    written |= names(server_json(client, f"/api/game/{game_id}"))
    written |= names(server_json(client, f"/api/game/{game_id}/steps", at=1))
    written |= names(server_json(client, "/api/player",
                                 name=position["games"]["matches"][0]["black"]))
    schemas = (ROOT / "docs" / "schemas.md").read_text()
    assert {name for name in written if f"`{name}`" not in schemas} == set()


def test_to_move_beside_turn(client: TestClient) -> None:
    """The server's position endpoints take to_move as the library names it, and
    turn, its older name: turn=0 is to_move=any, turn=1 (and none) to_move=query."""
    def games(**params: object) -> Any:
        return server_json(client, "/api/games", size=9, moves=MOVES, limit=20, **params)

    assert games(turn=0) == games(to_move="any")
    assert games(turn=1) == games(to_move="query") == games()
    assert games(to_move="b")["total"] + games(to_move="w")["total"] == games(
        to_move="any")["total"]
