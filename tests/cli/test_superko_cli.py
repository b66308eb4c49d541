"""Tests of ``gohash superko``: output formats, options and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gohash.cli import main
from gohash.go.rulesets import RULESETS
from gohash.tools.superko import check
from tests.support.env import ROOT
from tests.support.superko_expected import ERRORS, EXPECTED

RECORDS = ROOT / "data" / "sgf" / "superko"
FIELDS = ["file", "game", "variation", "move_number", "colour", "move", "gtp", "kind",
          "repeats", "cycle"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["superko", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output_names_the_move_and_draws_the_position(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, str(RECORDS / "send-two-return-one.sgf"))
    assert code == 1
    blocks = out.strip().split("\n\n")
    assert len(blocks) == 2
    headline, *diagram = blocks[0].splitlines()
    assert headline == (
        f"{RECORDS / 'send-two-return-one.sgf'}, game 0, move 13: black B1: "
        "positional superko, recreates the position after move 10 (cycle 3)"
    )
    assert diagram[-2:] == ["1 .(X). X . . . . .", "  A B C D E F G H J"]
    assert err == "gohash superko: 1 file, 1 game, 2 violations, 0 errors (rules from RU)\n"


def test_json_lines_have_exactly_the_documented_fields(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "--format", "jsonl", "--ruleset", "aga", str(RECORDS))
    # occupied.sgf's play on an occupied point is an error (exit 2), not a violation.
    assert code == 2
    assert [line for line in err.splitlines() if ": error: " in line] == [
        f"gohash superko: error: {error}" for error in ERRORS["occupied"]
    ]
    records = [json.loads(line) for line in out.splitlines()]
    assert records and all(list(record) == FIELDS for record in records)
    # The verdicts of the hand-made table of test_superko, record by record in
    # file order; the other fields as the library words them.
    assert [
        (Path(r["file"]).stem, r["move_number"], r["kind"], r["repeats"], r["cycle"])
        for r in records
    ] == [(stem, *verdict) for stem in sorted(EXPECTED) for verdict in EXPECTED[stem]["aga"]]
    library = check([str(RECORDS)], RULESETS["aga"])
    assert records == [violation.to_json() for violation in library.violations]


def test_rule_and_suicide_override_the_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    single = str(RECORDS / "suicide-single.sgf")
    assert run(capsys, "--ruleset", "new-zealand", single)[0] == 0
    code, out, _ = run(capsys, "--ruleset", "new-zealand", "--rule", "positional", single)
    assert code == 1 and "positional superko" in out
    code, out, _ = run(capsys, "--ruleset", "new-zealand", "--suicide", "forbidden", single)
    assert code == 1 and ": suicide" in out
    pass_record = str(RECORDS / "pass-ssk-nssk.sgf")
    assert run(capsys, "--rule", "natural", pass_record)[0] == 0


def test_japanese_reports_no_result(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--ruleset", "korean", str(RECORDS / "triple-ko.sgf"))
    assert code == 1
    assert "move 28: white B6: no result, recreates the position after move 22" in out


def test_clean_record_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--ruleset", "aga", str(RECORDS / "psk-not-ssk.sgf")) == (
        0,
        "",
        "gohash superko: 1 file, 1 game, 0 violations, 0 errors (aga: situational superko, "
        "suicide forbidden)\n",
    )


def test_bad_input_exits_two_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.sgf"
    broken.write_text("(;GM[1]SZ[5];B[cc];W[")
    code, out, err = run(capsys, str(broken), str(RECORDS / "triple-ko.sgf"))
    assert code == 2
    assert "move 28" in out  # the other file was still checked
    assert f"gohash superko: error: {broken}" in err and "Traceback" not in err
    assert "1 violation, 1 error" in err


def test_errors_go_to_stderr_in_json_lines_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.sgf"
    code, out, err = run(capsys, "--format", "jsonl", str(missing))
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"gohash superko: error: {missing}: no such file or folder",
        "gohash superko: 0 files, 0 games, 0 violations, 1 error (rules from RU)",
    ]


def test_format_json_is_a_deprecated_spelling_of_jsonl(
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = str(RECORDS / "triple-ko.sgf")
    code, old, err = run(capsys, "--format", "json", record)
    assert code == 1
    assert err.splitlines()[0] == (
        "gohash superko: note: --format json is deprecated and will be removed in the next "
        "release; use --format jsonl"
    )
    assert (code, old) == run(capsys, "--format", "jsonl", record)[:2]


def test_variations_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v.sgf"
    path.write_text(
        "(;GM[1]FF[4]SZ[5];B[bc];W[cc];B[ad];W[bd];B[be];W[dd];B[ea];W[ce]"
        "(;B[ee])(;B[cd];W[];B[];W[bd]))"
    )
    assert run(capsys, str(path))[0] == 0
    code, out, _ = run(capsys, "--variations", "--format", "jsonl", str(path))
    assert code == 1
    assert json.loads(out)["variation"] == [1]
    code, out, _ = run(capsys, "--variations", str(path))
    assert code == 1 and out.startswith(f"{path}, game 0, variation 1, move 12: white B2: ")


def test_jobs_give_the_same_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.sgf"
    broken.write_text("(;GM[1]SZ[5];B[cc];W[")
    data = RECORDS.parent
    for argv in (["--ruleset", "aga"], ["--variations", "--format", "jsonl"]):
        paths = [str(data), str(broken), str(tmp_path / "missing.sgf")]
        single = run(capsys, *argv, *paths)
        assert single[0] == 2 and single[1]
        assert run(capsys, *argv, *paths, "--jobs", "2") == single
