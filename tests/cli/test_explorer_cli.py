"""``gohash index find --continuations`` and the filters on the command line: text
and JSON output on the written records of ``data/sgf/opening-explorer/``, filters
passed through, clear errors, and an old index refused with the rebuild message."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from gohash.cli import main
from tests.support.explorer_reference import EXPLORER, QUERY


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("explorer-cli") / "index.db"
    assert main(["index", "build", str(path), str(EXPLORER)]) == 0
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["index", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_continuations_text(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "find", str(db), "--position", QUERY, "--continuations",
                         "--setup", "include")
    assert code == 0
    # The summary on stderr, the results on stdout, as in every command.  A
    # diagram has no side to move: either side's occurrences count.  The one
    # setup ended (a game whose next node adds stones) is counted as asked.
    assert err.startswith("gohash index find: 9x9 position, either side to move, key 0x")
    assert err.endswith(": 9 occurrences, 1 with colours exchanged; 2 without a next move\n")
    lines = out.splitlines()
    assert lines[0] == "results: B 3, W 2, other 4"
    assert lines[1].split() == ["move", "count", "share", "B", "wins", "W", "wins", "other",
                                "same", "exch", "first", "last"]
    assert lines[2].split() == ["B", "G7", "4", "44.4%", "2", "2", "0", "3", "1", "2016-03-09",
                                "2017-01-05"]
    assert [line.split()[:3] for line in lines[3:6]] == [
        ["B", "G3", "1"], ["B", "pass", "1"], ["W", "G7", "1"]]
    assert lines[6] == "by year: 2001 1, 2016 1, 2017 2, 2018 1, 2019 2, 2020 1"


def test_continuations_answer_for_the_records_side_to_move(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After B E5 W C7 in g1 Black is to move: g6's White move after Black's pass
    (the same stones, White to move) is left out unless --to-move asks for it."""
    sgf = ["find", str(db), "--sgf", str(EXPLORER / "collection.sgf"), "--move", "2",
           "--continuations", "--setup", "include"]
    code, out, err = run(capsys, *sgf)
    assert code == 0
    assert err.startswith("gohash index find: 9x9 position, Black to move, key 0x")
    assert err.endswith(": 8 occurrences, 1 with colours exchanged; 2 without a next move\n")
    lines = out.splitlines()
    assert lines[0] == "results: B 3, W 2, other 3"
    assert [line.split()[:3] for line in lines[2:5]] == [
        ["B", "G7", "4"], ["B", "G3", "1"], ["B", "pass", "1"]]
    assert lines[5].startswith("by year: ")
    code, out, err = run(capsys, *sgf, "--to-move", "any")
    assert code == 0 and "either side to move" in err and ": 9 occurrences" in err
    assert ["W", "G7", "1"] in [line.split()[:3] for line in out.splitlines()]
    code, out, _ = run(capsys, *sgf, "--to-move", "w", "--format", "json")
    assert code == 0
    result = json.loads(out)
    assert (result["to_move"], result["total"]) == ("w", 1)
    assert [(m["colour"], m["gtp"]) for m in result["moves"]] == [("w", "G7")]
    code, out, _ = run(capsys, *sgf, "--format", "json")
    assert json.loads(out)["to_move"] == "b"
    code, out, _ = run(capsys, "find", str(db), "--position", QUERY, "--continuations",
                       "--format", "json")
    assert json.loads(out)["to_move"] == "any"


def test_continuations_json_with_filters(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "find", str(db), "--position", QUERY, "--continuations",
                       "--format", "json", "--date-from", "2017", "--limit", "1")
    assert code == 0
    result = json.loads(out)
    # g1, g3, g5, g6 twice and g9 are dated 2017 or later.
    assert (result["total"], result["ended"], result["exchanged_colours"]) == (6, 1, 1)
    assert result["symmetries"] == ["identity", "antitranspose"]
    first, = result["moves"]
    assert first == {
        "colour": "b", "point": [6, 6], "gtp": "G7", "sgf": "gc",
        "equivalent": [[2, 2], [6, 6]], "count": 2, "share": pytest.approx(2 / 6),
        "black_wins": 2, "white_wins": 0, "other": 0, "first_date": "2017",
        "last_date": "2017-01-05", "same_colours": 1, "exchanged_colours": 1,
    }
    code, out, _ = run(capsys, "find", str(db), "--position", QUERY, "--continuations",
                       "--format", "json", "--symmetry", "d4", "--result", "W",
                       "--player", "judy")
    assert code == 0
    result = json.loads(out)
    assert result["total"] == 1 and result["moves"][0]["gtp"] == "G7"


def test_find_lists_ranks_dates_and_next_moves(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "find", str(db), "--position", QUERY, "--min-rank", "4d",
                         "--event", "CUP")
    assert code == 0
    assert err.splitlines()[0].endswith(": 2 occurrences")  # the summary, on stderr
    lines = out.splitlines()
    assert lines[0].endswith("game 0  move 2  identity  (Alice 5d (B) vs Bob 4d (W), B+R, "
                             "2017-01-05)  next B G7")
    assert lines[1].endswith("(carol P2 (B) vs ALICE 9p (W), Draw, 2018)  next B G3")
    code, out, _ = run(capsys, "find", str(db), "--position", QUERY, "--format", "json",
                       "--handicap", "--limit", "0")
    assert code == 0 and json.loads(out)["total"] == 0  # no finding is no error
    code, out, _ = run(capsys, "find", str(db), "--position", QUERY, "--format", "json",
                       "--no-handicap", "--to-move", "w")
    assert code == 0
    match, = json.loads(out)["matches"]
    assert (match["black"], match["seq"], match["to_move"], match["next_move"]["gtp"],
            match["date"], match["iso_date"], match["winner"], match["komi"],
            match["handicap"]) == ("Alice", 3, "w", "G7", "2019-07", "2019-07", None, None, 0)


@pytest.mark.parametrize(("argv", "message"), [
    (["--date-from", "May 2017"], "date_from 'May 2017' is not a date"),
    (["--min-rank", "strong"], "min_rank 'strong' is not a rank"),
    (["--continuations", "--offset", "3"], "--offset pages through games"),
])
def test_bad_filters_are_one_clear_line(
    db: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, "find", str(db), "--position", QUERY, *argv)
    assert code == 2
    assert err.startswith("gohash index find: error: ") and message in err
    assert len(err.splitlines()) == 1


def test_an_old_index_is_refused_with_the_rebuild_message(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    old = tmp_path / "old.db"
    old.write_bytes(db.read_bytes())
    with sqlite3.connect(old) as con:
        con.execute("PRAGMA user_version = 1")
    code, _, err = run(capsys, "find", str(old), "--position", QUERY, "--continuations")
    assert code == 2 and len(err.splitlines()) == 1
    assert "index schema version 1; this gohash reads version 7 only: rebuild it with " \
        "`gohash index build`" in err
