"""Tampered values of every column of the index (issue 31): ``gohash index check``
names each by its type, range or reference, and every reader (find, its
continuations from an aggregate, pattern, dupes, the game, its SGF, the player
page, info, the server's endpoints) turns it into a "damaged" error (exit 2, a
409 with a JSON error over HTTP), never a traceback, a wrong answer or output
that is not JSON."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import gohash.index.aggregates
from gohash.errors import DamagedIndexError
from gohash.explorer.app import create_app
from gohash.index.index import Index
from gohash.index.results import RECORD_COLUMNS
from gohash.index.schema import COLUMN_RULES, SCHEMA
from tests.support.indexes import LETTERS, posting_rows, random_game, run, tamper

SIZE = 9
BRANCH = 12  # the move after which the game has a second variation


def game_text(moves: list[tuple[str, tuple[int, int] | None]]) -> str:
    """The game with every root field the index keeps, and a pass as a second
    variation after move :data:`BRANCH`."""

    def node(colour: str, point: tuple[int, int] | None) -> str:
        where = "" if point is None else LETTERS[point[1]] + LETTERS[SIZE - 1 - point[0]]
        return f";{colour.upper()}[{where}]"

    head = "".join(node(c, p) for c, p in moves[:BRANCH])
    main = "".join(node(c, p) for c, p in moves[BRANCH:])
    other = node(moves[BRANCH][0], None)
    return (f"(;GM[1]FF[4]SZ[{SIZE}]PB[Black]PW[White]BR[3d]WR[2d]DT[2020-05-01]KM[6.5]"
            f"RE[B+R]EV[Cup]GN[one]{head}({main})({other}))\n")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """An index with every variation of two copies of one game (ids 1 and 2, files
    1 and 2), an aggregate of each position of its first nodes (each occurs
    twice) and an error row of file 2; the moves of the game's first 20 moves."""
    folder = tmp_path_factory.mktemp("values")
    moves = random_game(random.Random(7), SIZE, 40)
    text = game_text(moves)
    (folder / "a.sgf").write_text(text)
    (folder / "b.sgf").write_text(text)
    db = folder / "index.db"
    with pytest.MonkeyPatch.context() as m:
        m.setattr(gohash.index.aggregates, "AGGREGATE_OCCURRENCES", 2)
        with Index(db, create=True, variations=True) as index:
            index.build([str(folder / "a.sgf"), str(folder / "b.sgf")])
            assert index.check() == []
    assert table_count(db, "aggregates") > 3
    tamper(db, "INSERT INTO errors (file_id, game, move, message) VALUES (2, 0, 3, 'odd')")
    letters = re.findall(r";[BW]\[([a-i]{2})\]", text)[:20]
    return db, letters


def columns() -> Iterator[tuple[str, str, str, bool]]:
    """Every column of the schema: table, column, declared type, and whether it is
    a rowid (SQLite keeps an integer there)."""
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        info = db.execute(f"PRAGMA table_info({table})").fetchall()
        keys = sum(1 for c in info if c[5])
        for _, name, kind, _, _, pk in info:
            yield table, name, kind, kind == "INTEGER" and pk == 1 and keys == 1
    db.close()


def table_count(db: Path, table: str) -> int:
    connection = sqlite3.connect(db)
    try:
        count: int = connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        return count
    finally:
        connection.close()


# The columns of a game's row and its file's a search's answer reads.
READ = {("games", c) for c in ("file_id", "size", "nodes", "positions", "record")} | {
    ("games" if t == "g" else "files", c)
    for t, c in re.findall(r"\b([gf])\.(\w+)", RECORD_COLUMNS)}
# The aggregate of the position after move 3 (node 3), which the readers ask for.
# (Its key, the posting key of game 2's node 3, replaces the name.)
AGGREGATE = "key_of_node_3"
# The row of each table tampered: game 2's, its file's, its variations', the
# aggregate's and its rows'.
ROWS = {"meta": "name = 'gohash_version'", "files": "id = 2", "games": "id = 2",
        "errors": "file_id = 2", "variations": "game_id = 2", "aggregates": f"key = {AGGREGATE}",
        "aggregate_moves": f"aggregate_id = (SELECT id FROM aggregates WHERE key = {AGGREGATE})"}
# A value of another type than each declared type.
WRONG_TYPE = {"INTEGER": "'x'", "TEXT": "x'6869'", "REAL": "'x'", "BLOB": "'hello'"}
# Values of the right type out of range, or that break a reference.
OUT_OF_RANGE = [
    ("files", "sha256", "'abc'"),
    ("files", "games", "5"),
    ("files", "suicide", "7"),
    ("games", "file_id", "99"),
    ("games", "game", "-1"),
    ("games", "size", "40"),
    ("games", "positions", "positions - 1"),
    ("games", "positions", "positions + 1"),
    ("games", "moves", "-3"),
    ("games", "black_level", "50"),
    ("games", "date", "'May 2020'"),
    ("games", "komi", "9e999"),
    ("games", "komi", "-9e999"),
    ("games", "handicap", "-1"),
    ("games", "winner", "'X'"),
    ("games", "nodes", "1000000000"),
    ("games", "record", "x''"),
    ("games", "record", "substr(record, 1, length(record) - 1)"),
    ("games", "ever_black", "zeroblob(3)"),
    ("errors", "file_id", "99"),
    ("variations", "seq", "nodes_of_2"),
    ("variations", "parent", "seq"),
    ("variations", "path", "'1..2'"),
    ("aggregates", "size", "19"),
    ("aggregates", "frame", "zeroblob(80)"),
    ("aggregate_moves", "aggregate_id", "99"),
    ("aggregate_moves", "setup", "2"),
    ("aggregate_moves", "colour", "3"),
    ("aggregate_moves", "point", "81"),
    ("aggregate_moves", "point", "-2"),
    ("aggregate_moves", "swapped", "5"),
    ("aggregate_moves", "to_move", "0"),
    ("aggregate_moves", "year", "-5"),
    ("aggregate_moves", "games", "0"),
    ("aggregate_moves", "black_wins", "games + 1"),
    ("aggregate_moves", "white_wins", "-1"),
    ("aggregate_moves", "first_date", "'May 2020'"),
    ("aggregate_moves", "last_date", "'1900-01-01'"),
]
# Every column but a rowid (which holds integers only) and meta's names (the
# entries an index needs, whose loss opening reports).
TAMPERED = [(t, c, k) for t, c, k, rowid in columns() if not rowid and (t, c) != ("meta", "name")]
TAMPERINGS = [(t, c, WRONG_TYPE[k]) for t, c, k in TAMPERED] + OUT_OF_RANGE


def test_every_column_of_the_schema_has_a_rule_and_a_tampering() -> None:
    declared = {(t, c) for t, c, *_ in columns()}
    assert declared == {(t, c) for t, rules in COLUMN_RULES.items() for c in rules}
    assert {(t, c) for t, c, _ in TAMPERINGS} == {(t, c) for t, c, _ in TAMPERED}
    assert declared - {(t, c) for t, c, _ in TAMPERED} == {
        ("files", "id"), ("games", "id"), ("aggregates", "id"), ("meta", "name")}


def strict_json(text: str) -> object:
    """``text`` read as JSON, refusing ``Infinity`` and ``NaN`` (not JSON)."""
    def refuse(name: str) -> object:
        raise AssertionError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(("table", "column", "value"), TAMPERINGS,
                         ids=[f"{t}.{c}={v}" for t, c, v in TAMPERINGS])
def test_a_tampered_value_is_a_fault_of_check_and_damaged_for_every_reader(
    pristine: tuple[Path, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    table: str, column: str, value: str,
) -> None:
    source, moves = pristine
    db = tmp_path / "index.db"
    db.write_bytes(source.read_bytes())
    db.with_name("index.db-postings").write_bytes(
        source.with_name("index.db-postings").read_bytes())
    value = value.replace("nodes_of_2", "(SELECT nodes FROM games WHERE id = 2)")
    key = next(k for k, game_id, seq in posting_rows(source) if (game_id, seq) == (2, 3))
    tamper(db, f"UPDATE {table} SET {column} = {value} "
               f"WHERE {ROWS[table].replace(AGGREGATE, str(key))}")
    code, out, err = run(capsys, "check", str(db))
    assert (code, out) == (2, ""), err
    assert "Traceback" not in err
    assert column in err or "damaged" in err, err
    # Game 2 holds the position of move 3 (node 3, its posting tampered) and the
    # pattern: a reader of its row (and its file's) finds the fault; the
    # position's continuations come from its aggregate (one whose key is
    # tampered is not found: they are counted again from the games).
    reads_row = table in ("games", "files") or (table, column) in {
        ("variations", "game_id"), ("variations", "seq")}
    # Find and dupes read a game's record, its stored form and its file's path.
    reads_record = (table, column) in READ or (table, column) in {
        ("variations", "game_id"), ("variations", "seq")}
    reads_aggregate = table in ("aggregates", "aggregate_moves") and (
        (table, column) != ("aggregates", "key"))
    # The pattern search reads every game of its size: not game 2 once it is of another.
    reads_size = reads_row and (table, column) != ("games", "size")
    pattern = tmp_path / "pattern.txt"
    pattern.write_text("\n".join(["*" * SIZE] * SIZE))
    query = ("--format", "json", "--sgf", str(source.parent / "b.sgf"), "--move", "3")
    must_fail = {"find": reads_record, "continuations": reads_aggregate,
                 "pattern": reads_size, "dupes": reads_record}
    for name, argv in [
        ("find", ("find", str(db), *query)),
        ("continuations", ("find", str(db), *query, "--continuations")),
        ("pattern", ("pattern", str(db), "--format", "json", str(pattern))),
        ("dupes", ("dupes", str(db), "--format", "json")),
        ("info", ("info", str(db), "--format", "json")),
    ]:
        code, out, err = run(capsys, *argv)
        assert code in (0, 1, 2) and "Traceback" not in err, (argv, err)
        if code == 2:
            assert "damaged" in err, (argv, err)
        else:
            strict_json(out)
        if must_fail.get(name):
            assert code == 2, (argv, out, err)
    # Removing file 2 reads its row (a copy: the readers below read the index).
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())
    copy.with_name("copy.db-postings").write_bytes(db.with_name("index.db-postings").read_bytes())
    code, _, err = run(capsys, "remove", str(copy), str(source.parent / "b.sgf"))
    assert "Traceback" not in err and code in (0, 2), err
    if (table, column) in {("files", "games"), ("games", "size"), ("games", "nodes"),
                           ("games", "record")}:
        assert code == 2 and "damaged" in err, err
    with Index(db, read_only=True) as index:
        for name, read in (("sgf", lambda: index.sgf(2)), ("game", lambda: index.game(2)),
                           ("player", lambda: index.player("Black")),
                           ("players", lambda: index.players("a"))):
            try:
                read()
            except DamagedIndexError as e:
                assert "damaged" in str(e)
            else:
                # The player pages read the games their names select: maybe not game 2.
                assert not reads_row or name in ("player", "players"), (name, table, column)
                assert name != "players" or (table, column) not in {
                    ("games", "black"), ("games", "white")}, (name, table, column)
    try:
        app = create_app(db)
    except DamagedIndexError:
        return  # gohash serve says so and exits 2
    with TestClient(app, raise_server_exceptions=False, base_url="http://localhost") as client:
        played = ",".join(moves[:3])
        answers = [client.get(url) for url in (
            "/api/info", f"/api/position?size={SIZE}&moves={played}",
            f"/api/games?size={SIZE}&moves={played}",
            "/api/pattern?diagram=" + "%0A".join(["*" * SIZE] * SIZE),
            "/api/player?name=Black", "/api/players?q=a", "/api/game/2",
            "/api/game/2/steps?at=3",
            "/api/game/2/sgf")]
    for response in answers:
        # A damaged index is a 409 (docs/schemas.md), never a 5xx.
        assert response.status_code in (200, 409), (response.url, response.text)
        if response.headers["content-type"].startswith("application/json"):
            answer = strict_json(response.text)
            if response.status_code == 409:
                assert isinstance(answer, dict) and "damaged" in answer["error"], answer
        if (reads_row and "/api/game/" in str(response.url)) or (
                reads_aggregate and "/api/position" in str(response.url)):
            assert response.status_code == 409, (response.url, response.text)
