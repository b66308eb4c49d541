"""Looking after an index: ``gohash index info`` and ``remove``, the re-reading of
files an earlier gohash indexed (the parse version stored per file), and indexes
built with ``--variations``, checked against sgfmill's independent replay."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from sgfmill import boards, sgf

import gohash.errors
import gohash.index.aggregates
import gohash.index.store
from gohash.cli import main
from gohash.index.games import replay_boards
from gohash.index.index import Index
from gohash.index.postings import postings_path
from gohash.index.schema import SCHEMA_VERSION, generation
from gohash.version import __version__
from tests.support.env import ROOT
from tests.support.indexes import (
    consistency_problems,
    posting_rows,
    random_game,
    table_dump,
    write_game,
)

DATA = ROOT / "data" / "sgf"
VARIATIONS = DATA / "variations-9x9.sgf"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["index", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def games(tmp_path: Path) -> Path:
    """Five 9x9 games: three in a folder ``sub``, two beside it."""
    rng = random.Random(14)
    folder = tmp_path / "games"
    (folder / "sub").mkdir(parents=True)
    for name in ("a.sgf", "b.sgf", "sub/c.sgf", "sub/d.sgf", "sub/e.sgf"):
        write_game(folder, name, 9, random_game(rng, 9, 30))
    return folder


def test_info_says_what_the_index_holds(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "i.db"
    assert run(capsys, "build", str(db), str(games))[0] == 0
    code, out, err = run(capsys, "info", str(db), "--format", "json")
    assert (code, err) == (0, "")
    info = json.loads(out)
    rows = posting_rows(db)
    occurrences, distinct = len(rows), len({key for key, _, _ in rows})
    assert info == {
        "path": str(db), "format_version": SCHEMA_VERSION, "scheme": "regular128",
        "variations": False, "files": 5, "games": 5, "positions": occurrences,
        "distinct": distinct, "errors": 0, "gohash_versions": {__version__: 5},
        "outdated_files": 0,
    }
    assert occurrences == 5 * 31  # 30 moves and the empty board, in each game
    code, out, err = run(capsys, "info", str(db))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"index {db}",
        f"  format version {SCHEMA_VERSION}, key scheme regular128, main lines only",
        f"  5 files, 5 games, 155 positions ({distinct} distinct up to symmetry), 0 errors",
        f"  indexed by gohash {__version__} (5 files)",
    ]


def test_remove_takes_files_folders_and_archive_members(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "i.db"
    assert run(capsys, "build", str(db), str(games))[0] == 0
    code, out, err = run(capsys, "remove", str(db), str(games / "sub") + "/",
                         str(games / "a.sgf"))
    assert code == 0
    assert out.splitlines() == [str(games / "sub" / n) for n in ("c.sgf", "d.sgf", "e.sgf")] + [
        str(games / "a.sgf")]
    assert err == "gohash index remove: 4 files removed (4 games), 0 errors\n"
    assert consistency_problems(db) == []
    # What is left is what a build of the rest makes: positions only the removed
    # games had are gone too.
    rest = tmp_path / "rest.db"
    with Index(rest, create=True) as index:
        index.build([str(games / "b.sgf")])
    assert table_dump(db) == table_dump(rest)

    # A path not in the index is an error; the others are still removed.
    code, out, err = run(capsys, "remove", str(db), str(games / "a.sgf"), str(games / "b.sgf"))
    assert (code, out) == (2, f"{games / 'b.sgf'}\n")
    assert err.splitlines() == [
        f"gohash index remove: error: {games / 'a.sgf'}: not in the index",
        "gohash index remove: 1 file removed (1 game), 1 error",
    ]
    assert run(capsys, "info", str(db), "--format", "json")[1].count('"files": 0') == 1


def test_remove_takes_the_members_of_an_archive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import zipfile

    archive = tmp_path / "games.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(DATA / "game-9x9.sgf", "x/game-9x9.sgf")
        z.write(DATA / "two-games.sgf", "two-games.sgf")
    db = tmp_path / "i.db"
    assert run(capsys, "build", str(db), str(archive), str(DATA / "game-13x13.sgf"))[0] == 0
    code, out, _ = run(capsys, "remove", str(db), str(archive))
    assert code == 0
    assert out.splitlines() == [f"{archive}:two-games.sgf", f"{archive}:x/game-9x9.sgf"]
    with Index(db) as index:
        assert index.info().files == 1
    assert consistency_problems(db) == []


def test_files_of_another_parse_version_are_read_again(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = tmp_path / "i.db"
    assert run(capsys, "build", str(db), str(games))[0] == 0
    before = table_dump(db)
    # As if the next gohash read records differently.
    monkeypatch.setattr(gohash.index.store, "PARSE_VERSION", gohash.index.store.PARSE_VERSION + 1)
    code, out, _ = run(capsys, "info", str(db))
    assert "  5 files indexed by a gohash that read records differently" in out
    code, _, err = run(capsys, "build", str(db), str(games / "sub"))
    assert code == 0
    assert err.startswith(
        "gohash index build: 3 files indexed (0 replaced, 3 re-read for this gohash), 0 unchanged"
    )
    with Index(db) as index:
        assert index.info().outdated == 2  # the files it was not given
    code, _, err = run(capsys, "build", str(db), str(games))
    assert err.startswith("gohash index build: 2 files indexed (0 replaced, 2 re-read for "
                          "this gohash), 3 unchanged")
    with Index(db) as index:
        assert index.info().outdated == 0
    assert table_dump(db) == before and consistency_problems(db) == []
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT DISTINCT parse_version, gohash_version FROM files").fetchall() \
            == [(gohash.index.store.PARSE_VERSION, __version__)]


# -- variations ----------------------------------------------------------------------------------

Node = tuple[tuple[int, ...], int, npt.NDArray[np.int8]]


def sgfmill_positions(path: Path) -> Iterator[tuple[Node, Node | None]]:
    """Every position of every line of the record, replayed by sgfmill: (line, move
    number, board) of each node with a move or setup and of the root, in the
    walker's naming of lines (the child taken at each branch point, trailing
    zeros left out), with the position it follows on its line (None for the root)."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    size = game.get_size()

    def visit(
        node: sgf.Tree_node, board: boards.Board, choices: tuple[int, ...], move: int,
        before: Node | None,
    ) -> Iterator[tuple[Node, Node | None]]:
        colour, point = node.get_move()
        black, white, empty = node.get_setup_stones()
        here = before
        if colour is not None or black or white or empty or before is None:
            board = board.copy()
            board.apply_setup(black, white, empty)
            if colour is not None:
                move += 1
                if point is not None:
                    board.play(*point, colour)
            stones = np.zeros((size, size), dtype=np.int8)
            for c, (row, col) in board.list_occupied_points():
                stones[row, col] = 1 if c == "b" else 2
            line = choices
            while line and line[-1] == 0:
                line = line[:-1]
            here = (line, move, stones)
            yield here, before
        children = list(node)
        for index, child in enumerate(children):
            branch = (*choices, index) if len(children) > 1 else choices
            yield from visit(child, board, branch, move, here)

    yield from visit(game.get_root(), boards.Board(size), (), 0, None)


def images(board: npt.NDArray[np.int8]) -> list[npt.NDArray[np.int8]]:
    """The 16 images under rotation, reflection and colour exchange, by numpy."""
    swapped = np.where(board == 0, 0, 3 - board).astype(np.int8)
    return [np.rot90(b, k) for b in (board, board.T, swapped, swapped.T) for k in range(4)]


def same_up_to_symmetry(a: npt.NDArray[np.int8], b: npt.NDArray[np.int8]) -> bool:
    return any(np.array_equal(image, b) for image in images(a))


def test_variations_are_found_where_sgfmill_places_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "v.db"
    assert run(capsys, "build", str(db), str(VARIATIONS), "--variations")[0] == 0
    nodes = [node for node, _ in sgfmill_positions(VARIATIONS)]
    assert {line for line, _, _ in nodes} == {(), (0, 1), (1,)}
    with Index(db) as index:
        assert index.variations and index.info().positions == len(nodes)
        for line, move, board in nodes:
            found = index.find(board, limit=None)
            places = {(m.variation, m.move_number) for m in found.matches}
            assert (line, move) in places
            expected = {(l2, m2) for l2, m2, b2 in nodes if same_up_to_symmetry(board, b2)}
            assert places == expected
    # The text and JSON output name the variation.
    only_in_variation = next(b for line, m, b in nodes if line == (1,) and m == 13)
    diagram = "\n".join(" ".join(".XO"[v] for v in row) for row in only_in_variation[::-1])
    code, out, _ = run(capsys, "find", str(db), "--position", diagram, "--format", "json")
    assert code == 0
    assert [(m["variation"], m["move_number"]) for m in json.loads(out)["matches"]] == [([1], 13)]
    code, out, _ = run(capsys, "find", str(db), "--position", diagram)
    assert f"{VARIATIONS}  game 0  variation 1  move 13  identity" in out
    # A main-line index does not hold it.
    plain = tmp_path / "plain.db"
    assert run(capsys, "build", str(plain), str(VARIATIONS))[0] == 0
    code, out, err = run(capsys, "find", str(plain), "--position", diagram)
    assert (code, out) == (0, "") and err.endswith(": 0 occurrences\n")
    assert run(capsys, "info", str(plain), "--format", "json")[1].count('"variations": false')


def test_each_variation_branches_from_the_position_sgfmill_gives(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    with Index(db, create=True, variations=True) as index:
        index.build([str(VARIATIONS)])
    starts = {}
    for (line, move, _), before in sgfmill_positions(VARIATIONS):
        if line and line not in starts:
            assert before is not None
            starts[line] = (move, before)
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT v.path, v.seq, v.parent, g.size, g.nodes, g.record "
                           "FROM variations v JOIN games g ON g.id = v.game_id "
                           "ORDER BY v.seq").fetchall()
    assert [path for path, *_ in rows] == ["0.1", "1"]
    for path, seq, parent, size, nodes, record in rows:
        replayed = replay_boards(record, size, nodes)
        assert replayed.parent[seq] == parent  # the stored game's branch is the table's
        move, (_, before_move, before_board) = starts[tuple(map(int, path.split(".")))]
        assert (int(replayed.move_number[seq]), int(replayed.move_number[parent])) == (
            move, before_move)
        assert same_up_to_symmetry(before_board,
                                   replayed.boards[parent].reshape(size, size))


def test_dupes_compare_main_lines_of_a_variations_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = VARIATIONS.read_text()
    main_only = tmp_path / "main.sgf"
    # The same game with its side lines cut: the main line is all that is left.
    main_only.write_text(text[: text.index("(;B[])")] + "))\n")
    db = tmp_path / "v.db"
    assert run(capsys, "build", str(db), str(VARIATIONS), str(main_only), "--variations")[0] == 0
    code, out, err = run(capsys, "dupes", str(db), "--format", "json")
    assert code == 1
    (group,) = json.loads(out)["groups"]
    assert {r["file"] for r in group["records"]} == {str(VARIATIONS), str(main_only)}
    assert group["positions"] == 41 and err.startswith("gohash index dupes: 1 group")
    # An index keeps what it was created with.
    code, _, err = run(capsys, "build", str(tmp_path / "v.db"), str(main_only))
    assert code == 0
    with Index(db) as index:
        assert index.variations
    plain = tmp_path / "plain.db"
    run(capsys, "build", str(plain), str(main_only))
    code, _, err = run(capsys, "build", str(plain), str(VARIATIONS), "--variations")
    assert code == 2 and "index built without variations" in err


def as_version(db: Path, version: int) -> None:
    """Mark ``db`` as an index of another format version (what upgrade reads of an
    old index, its meta and files tables, is alike in every version); its
    postings, in a table as formats 4 and 5 kept them (and no postings file but
    in format 6); no triggers counting the changes to the games table (format 7)."""
    rows = posting_rows(db)
    with closing(sqlite3.connect(db)) as con:
        for trigger in ("games_inserted", "games_deleted", "games_updated"):
            con.execute(f"DROP TRIGGER {trigger}")
        con.execute("DELETE FROM meta WHERE name = 'generation'")
        if version in (4, 5):
            con.execute("CREATE TABLE postings (key INTEGER NOT NULL, game_id INTEGER NOT NULL "
                        "REFERENCES games(id), seq INTEGER NOT NULL, "
                        "PRIMARY KEY (key, game_id, seq)) WITHOUT ROWID")
            con.executemany("INSERT INTO postings VALUES (?, ?, ?)", rows)
        con.execute(f"PRAGMA user_version = {version}")
        con.commit()
    if version != 6:
        os.remove(postings_path(str(db)))


def upgraded_in_place(db: Path, version: int, games: Path,
                      capsys: pytest.CaptureFixture[str]) -> None:
    """Mark ``db`` as of format ``version`` (:func:`as_version`), see it refused,
    and upgrade it with the files it names gone: in place, from itself."""
    as_version(db, version)
    with pytest.raises(gohash.errors.IndexFileError, match="gohash index upgrade"):
        Index(db)
    for path in games.rglob("*.sgf"):
        path.unlink()
    assert run(capsys, "upgrade", str(db))[0] == 0


def test_upgrade_rebuilds_an_old_index_from_its_files(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "i.db"
    with Index(db, create=True, scheme="huima64", variations=True) as index:
        index.build([str(games)], suicide_allowed=True)
    before = table_dump(db)
    as_version(db, 3)
    with pytest.raises(gohash.errors.IndexFileError, match="gohash index upgrade"):
        Index(db)
    code, out, err = run(capsys, "upgrade", str(db))
    assert (code, out) == (0, "")
    assert err.splitlines()[-1] == (
        f"gohash index upgrade: index {db}: format version {SCHEMA_VERSION}, 5 files, "
        "5 games, 155 positions")
    with Index(db) as index:
        assert (index.scheme_name, index.variations) == ("huima64", True)
        assert index.check() == []
    assert table_dump(db) == before
    with sqlite3.connect(db) as con:
        assert {s for (s,) in con.execute("SELECT suicide FROM files")} == {1}
    con.close()
    code, _, err = run(capsys, "upgrade", str(db))
    assert code == 2 and "nothing to upgrade" in err


def test_upgrade_rebuilds_an_index_of_format_4_with_its_aggregates(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An index of format 4 (no aggregates) is refused, and upgrade gives it, in
    place and without its files, the aggregates a new build of them has."""
    monkeypatch.setattr(gohash.index.aggregates, "AGGREGATE_OCCURRENCES", 2)
    db = tmp_path / "i.db"
    assert run(capsys, "build", str(db), str(games))[0] == 0
    aggregates = ("SELECT a.key, a.size, a.frame, m.colour, m.point, m.swapped, m.to_move, "
                  "m.year, m.games, m.black_wins, m.white_wins, m.first_date, m.last_date "
                  "FROM aggregates a JOIN aggregate_moves m ON m.aggregate_id = a.id")
    with sqlite3.connect(db) as con:
        kept = sorted(con.execute(aggregates))
    con.close()
    assert kept
    before = table_dump(db)
    with sqlite3.connect(db) as con:
        con.execute("DROP TABLE aggregate_moves")
        con.execute("DROP TABLE aggregates")
    con.close()
    upgraded_in_place(db, 4, games, capsys)
    assert table_dump(db) == before
    with sqlite3.connect(db) as con:
        assert sorted(con.execute(aggregates)) == kept
    con.close()
    with Index(db) as index:
        assert index.check() == []


def test_upgrade_moves_the_postings_of_an_index_of_format_5_into_their_file(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Format 5 kept the postings in a table: upgrade drops it and writes the
    postings file from the stored games, in place and without the files."""
    db = tmp_path / "i.db"
    assert run(capsys, "build", str(db), str(games))[0] == 0
    before, postings = table_dump(db), posting_rows(db)
    with Index(db) as index:
        counts = index.counts()
    upgraded_in_place(db, 5, games, capsys)
    with closing(sqlite3.connect(db)) as con:
        tables = con.execute("SELECT name FROM sqlite_master WHERE name = 'postings'")
        assert tables.fetchall() == []
    assert (table_dump(db), posting_rows(db)) == (before, postings)
    with Index(db) as index:
        assert index.counts() == counts
        assert index.check() == []


def test_upgrade_gives_an_index_of_format_6_the_count_of_its_changes(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Format 6 lacked the triggers that count the games table's changes: upgrade
    creates them, in place and without the files, and a change to a games row
    then moves the count."""
    db = tmp_path / "i.db"
    assert run(capsys, "build", str(db), str(games))[0] == 0
    before, postings = table_dump(db), posting_rows(db)
    upgraded_in_place(db, 6, games, capsys)
    assert (table_dump(db), posting_rows(db)) == (before, postings)
    with Index(db) as index:
        assert index.check() == []
        first = generation(index._db)
        assert first is not None
        index._db.execute("UPDATE games SET event = event WHERE id = 1")
        index._db.commit()
        assert generation(index._db) == first + 1


def test_upgrade_leaves_the_index_as_it_was_if_a_file_is_gone(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "i.db"
    assert run(capsys, "build", str(db), str(games))[0] == 0
    as_version(db, 3)
    content = db.read_bytes()
    (games / "a.sgf").unlink()
    code, out, err = run(capsys, "upgrade", str(db))
    assert (code, out) == (2, "")
    assert f"{games / 'a.sgf'}: not found again" in err
    assert err.splitlines()[-1] == f"gohash index upgrade: not upgraded: {db} left as it was"
    assert db.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("i.db")) == ["i.db"]


def test_rows_of_a_pack_repeating_a_path_do_not_replace_each_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hand-made packed part whose two rows say ``x.sgf``: the first is indexed,
    the second is an error (exit 2), never its replacement; so again when the
    pack is built again (the first unchanged)."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from gohash.tools.pack import write_pack

    folder = tmp_path / "games"
    folder.mkdir()
    rng = random.Random(5)
    texts = [write_game(folder, name, 9, random_game(rng, 9, 20)).read_bytes()
             for name in ("a.sgf", "b.sgf")]
    pack = tmp_path / "pack"
    assert not write_pack([str(folder)], str(pack)).errors
    part = pack / json.loads((pack / "_gohash_pack.json").read_text())["parts"][0]
    table = pq.read_table(part)
    assert table.column("data").to_pylist() == texts
    at = table.schema.get_field_index("path")
    pq.write_table(table.set_column(at, table.schema.field("path"),
                                    pa.array(["x.sgf", "x.sgf"], pa.string())), part)
    db = tmp_path / "index.db"
    for indexed in (1, 0):
        code, _, err = run(capsys, "build", str(db), str(pack))
        assert code == 2, err
        assert ("error: x.sgf: a second source of this name, with other contents, in one "
                "build: not indexed (the first is kept)") in err
        assert f"{indexed} file indexed" in err.replace("files indexed", "file indexed")
        with Index(db, read_only=True) as index:
            assert index.counts()["games"] == 1
            assert index.check() == []
        connection = sqlite3.connect(db)
        assert connection.execute("SELECT path, sha256 FROM files").fetchall() == [
            ("x.sgf", hashlib.sha256(texts[0]).hexdigest())]
        connection.close()
