"""Every ``gohash`` subcommand follows the same conventions (issue 14).

The parsers are walked through ``gohash.cli.build_parser()`` and every
``--help``: the shared options exist wherever they apply, with one spelling,
the same choices and defaults.  Each subcommand is then run on ``data/sgf``
inputs: exit status 0 clean, 1 findings, 2 errors; results on standard output,
everything else on standard error behind the command's name; plurals; one JSON
document for ``--format json``, one object a line for ``jsonl``; a progress bar
on a terminal only; ``gohash --version``.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import zipfile
from pathlib import Path

import pytest

import gohash.cli.progress
import gohash.tools.superko
from gohash.cli import EXIT_CODES, build_parser, main
from gohash.cli.options import FORMAT_HELP, job_count
from gohash.go.ko import KINDS
from gohash.group.schemes import DEFAULT_SCHEME, SCHEMES
from gohash.pipeline.positions import read_positions
from gohash.version import __version__
from tests.support.env import ROOT

DATA = ROOT / "data" / "sgf"
NINE = str(DATA / "game-9x9.sgf")
RECORDS = DATA / "superko"


def leaves(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every command's parser, by its name: ``gohash canon``, ``gohash index build``..."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: dict[str, argparse.ArgumentParser] = {}
            for sub in action.choices.values():
                found.update(leaves(sub))
            return found
    return {parser.prog: parser}


COMMANDS = leaves(build_parser())
# The shared options, and the commands they belong to.
WALKERS = {"gohash canon", "gohash superko", "gohash index build", "gohash audit"}
SAME_POSITION = {"gohash canon", "gohash index find", "gohash audit"}
# A pattern may also be searched as drawn: its --symmetry has a third choice, none.
PATTERN = {"gohash index pattern"}
SUICIDE = WALKERS | {"gohash index find"}
FORMATS = {
    "gohash canon": ("jsonl", "csv", "parquet"),
    "gohash superko": ("text", "jsonl"),
    "gohash index find": ("text", "json"),
    "gohash index pattern": ("text", "json"),
    "gohash index dupes": ("text", "json"),
    "gohash index info": ("text", "json"),
    "gohash index player": ("text", "json"),
    "gohash audit": ("text", "json"),
}


def options(command: str) -> dict[str, argparse.Action]:
    return {s: a for a in COMMANDS[command]._actions for s in a.option_strings}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_command_is_walked() -> None:
    assert set(COMMANDS) == {
        "gohash canon", "gohash superko", "gohash audit", "gohash index build",
        "gohash index find", "gohash index dupes", "gohash index info", "gohash index check",
        "gohash index remove", "gohash index pattern", "gohash index upgrade",
        "gohash index player",
        "gohash serve", "gohash pack",
    }


@pytest.mark.parametrize("command", ["gohash", *COMMANDS])
def test_every_help_shows_and_states_the_exit_codes(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *command.split()[1:], "--help")
    assert (code, err) == (0, "")
    assert out.startswith(f"usage: {command} ")
    text = " ".join(out.split())
    if command == "gohash":
        assert " ".join(EXIT_CODES.split()) in text
        assert all(name.split()[1] in text for name in COMMANDS)
    else:
        assert "Exit status: 0 done" in text and "2 any error" in text
    assert "--group" not in out and "--no-colour-swap" not in out  # deprecated, hidden
    assert "--version" in out if command == "gohash" else "--version" not in out


def test_shared_options_exist_wherever_they_apply() -> None:
    for command in COMMANDS:
        have = options(command)
        # upgrade rebuilds with the old index's scheme and variations: only --jobs.
        assert ("--jobs" in have) == (command in WALKERS | {"gohash index upgrade"}), command
        assert ("--variations" in have) == (command in WALKERS), command
        assert ("--scheme" in have) == (command in WALKERS), command
        assert ("--symmetry" in have) == (command in SAME_POSITION | PATTERN), command
        assert ("--suicide" in have) == (command in SUICIDE), command
        assert ("--format" in have) == (command in FORMATS), command


def test_shared_options_have_one_definition() -> None:
    def the(option: str, commands: set[str]) -> list[argparse.Action]:
        return [options(c)[option] for c in sorted(commands)]

    for action in the("--jobs", WALKERS):
        assert (action.type, action.default, action.metavar) == (job_count, 1, "N")
        assert action.help == the("--jobs", WALKERS)[0].help
    for action in the("--variations", WALKERS):
        assert (action.nargs, action.const, action.default) == (0, True, False)
    for action in the("--symmetry", SAME_POSITION):
        assert (tuple(action.choices), action.default) == (("d4", "full"), "full")
        assert action.help == the("--symmetry", SAME_POSITION)[0].help
    for action in the("--symmetry", PATTERN):
        assert (tuple(action.choices), action.default) == (("full", "d4", "none"), "full")
    for action in the("--scheme", WALKERS):
        assert tuple(action.choices) == SCHEMES
    # One default key scheme wherever keys are computed.
    assert [options(c)["--scheme"].default for c in ("gohash canon", "gohash superko")] == [
        DEFAULT_SCHEME, DEFAULT_SCHEME]
    for action in the("--suicide", SUICIDE):
        assert (tuple(action.choices), action.default) == (("allowed", "forbidden"), None)
    for command, formats in FORMATS.items():
        action = options(command)["--format"]
        assert action.default == formats[0] and action.metavar == "{" + ",".join(formats) + "}"
        for name in formats:
            if name in FORMAT_HELP:  # each name means the same everywhere
                assert f"{name} ({FORMAT_HELP[name]})" in str(action.help)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--version") == (0, f"gohash {__version__}\n", "")


def check_streams(command: str, out: str, err: str) -> None:
    """Every line of standard error is the command's (argparse's usage aside);
    standard output holds results only."""
    for line in err.splitlines():
        assert line.startswith((f"{command}: ", "usage: ", " ")), line
    assert not any(line.startswith("gohash ") for line in out.splitlines())
    assert "Traceback" not in err


def test_exit_codes_and_streams(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "missing.sgf")
    merging = tmp_path / "e3.sgf"  # huima64 hashes the empty board and these four stones alike
    merging.write_text("(;SZ[19])(;SZ[19]AB[dj][jd][pj][jp])")
    db, dupes = str(tmp_path / "i.db"), str(tmp_path / "dupes.db")
    corner = tmp_path / "corner.txt"
    corner.write_text("\n".join(["---------"] * 6 + ["***------", "..*------", ".X*------"]))
    same = tmp_path / "same"
    same.mkdir()
    for name in ("one.sgf", "two.sgf"):
        (same / name).write_bytes((DATA / "game-13x13.sgf").read_bytes())
    cases: list[tuple[list[str], int]] = [
        (["canon", NINE], 0),
        (["canon", NINE, missing], 2),
        (["superko", "--ruleset", "aga", str(RECORDS / "psk-not-ssk.sgf")], 0),
        (["superko", str(RECORDS / "triple-ko.sgf")], 1),
        (["superko", str(RECORDS / "triple-ko.sgf"), missing], 2),
        (["audit", "--scheme", "regular128", str(merging)], 0),
        (["audit", "--scheme", "huima64", str(merging)], 1),
        (["audit", "--scheme", "huima64", str(merging), missing], 2),
        (["audit", "--size", "30"], 2),
        (["index", "build", db, NINE, str(DATA / "two-games.sgf")], 0),
        (["index", "build", db, missing], 2),
        (["index", "find", db, "--sgf", NINE, "--move", "10"], 0),
        (["index", "find", db, "--position", "X .\n. ."], 0),  # not there: no error either
        (["index", "find", missing, "--sgf", NINE], 2),
        (["index", "pattern", db, str(corner)], 0),
        (["index", "pattern", db, missing], 2),
        (["index", "dupes", db], 0),
        (["index", "build", dupes, str(same)], 0),
        (["index", "dupes", dupes], 1),
        (["index", "info", db], 0),
        (["index", "info", missing], 2),
        (["index", "check", db], 0),
        (["index", "check", missing], 2),
        (["index", "remove", dupes, str(same / "one.sgf")], 0),
        (["index", "dupes", dupes], 0),
        (["index", "remove", dupes, missing], 2),
    ]
    for argv, expected in cases:
        code, out, err = run(capsys, *argv)
        assert code == expected, (argv, err)
        command = "gohash " + " ".join(argv[:2] if argv[0] == "index" else argv[:1])
        check_streams(command, out, err)
        if expected == 2:
            assert f"{command}: error: " in err
        if argv[:2] != ["index", "info"]:
            assert err, argv  # a summary (or an error) on standard error


def test_bad_arguments_exit_2_with_the_command_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "new.db"
    archive = tmp_path / "games.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(NINE, "game-9x9.sgf")
    cases = [
        (["canon", NINE, "--jobs", "0"], "gohash canon: error: argument --jobs: must be at "
         "least 1, not 0"),
        (["superko", NINE, "--jobs", "two"], "gohash superko: error: argument --jobs: 'two' "
         "is not a whole number"),
        (["index", "build", str(db), NINE, "--files-per-commit", "0"],
         "gohash index build: error: argument --files-per-commit: must be at least 1, not 0"),
        (["index", "find", str(db), "--position", "X", "--game", "1"],
         "gohash index find: error: --game goes with --sgf, not --position"),
        (["index", "find", str(db), "--sgf", str(DATA)],
         f"gohash index find: error: --sgf takes one SGF file, not the folder {str(DATA)!r}"),
        (["index", "find", str(db), "--sgf", str(archive)],
         f"gohash index find: error: --sgf takes one SGF file, not the zip archive "
         f"{str(archive)!r}"),
        (["audit", "--symmetry", "d8"], "gohash audit: error: argument --symmetry: invalid "
         "choice: 'd8' (choose from 'd4', 'full')"),
    ]
    for argv, message in cases:
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, ""), argv
        assert err.splitlines()[-1] == message
    assert not db.exists()  # refused before any file is created


def test_one_verdict_per_fact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A play on an occupied point, or off the board, is an error of the record in
    every command and in ``read_positions()``, worded alike: exit 2, the game ends at
    it (superko's suicide at move 5, before the error, stays a violation, and
    its suicide at move 9, after it, is not judged), the next file goes on."""
    occupied = str(RECORDS / "occupied.sgf")
    off = tmp_path / "off.sgf"
    off.write_text("(;SZ[5];B[cc];W[zz];B[dd])")
    errors = [f"{occupied}, game 0, move 7: black at 'C3' is occupied",
              f"{off}, game 0, move 2: bad coordinates b'zz' for a 5x5 board"]
    db = str(tmp_path / "i.db")
    # Suicide allowed, so that the replays reach move 7 (superko judges it instead).
    for argv in (["canon", "--suicide", "allowed"], ["index", "build", db, "--suicide", "allowed"],
                 ["audit", "--scheme", "regular64", "--suicide", "allowed"], ["superko"]):
        code, out, err = run(capsys, *argv, occupied, str(off), NINE)
        command = "gohash " + " ".join(argv[:2] if argv[0] == "index" else argv[:1])
        assert code == 2, argv
        assert [line for line in err.splitlines() if ": error: " in line] == [
            f"{command}: error: {error}" for error in errors
        ]
        check_streams(command, out, err)
    assert out.splitlines()[0] == f"{occupied}, game 0, move 5: black A1: suicide"
    assert out.count("\n\n") == 1  # superko's one violation
    assert [str(e) for batch in read_positions([occupied, str(off)], suicide_allowed=True)
            for e in batch.errors] == errors
    (check,) = gohash.tools.superko.check([occupied]).violations
    assert (check.move_number, check.kind) == (5, "suicide")
    assert "occupied" not in KINDS


def test_plurals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "missing.sgf")
    _, _, err = run(capsys, "canon", NINE, missing)
    assert err.endswith("gohash canon: 1 file, 1 game, 73 positions, 1 error\n")
    _, _, err = run(capsys, "superko", str(RECORDS / "round-robin-ko.sgf"))
    assert "1 file, 1 game, 1 violation, 0 errors" in err
    db = str(tmp_path / "i.db")
    _, _, err = run(capsys, "index", "build", db, NINE)
    assert err.startswith("gohash index build: 1 file indexed (0 replaced), 0 unchanged; "
                          "1 game, 73 positions")
    _, _, err = run(capsys, "index", "find", db, "--sgf", NINE, "--move", "69")
    assert err.endswith(": 1 occurrence\n")


def test_json_is_one_document_and_jsonl_one_object_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "i.db")
    assert run(capsys, "index", "build", db, NINE)[0] == 0
    for argv in (["audit", "--scheme", "regular64", NINE], ["index", "find", db, "--sgf", NINE],
                 ["index", "dupes", db], ["index", "info", db]):
        code, out, _ = run(capsys, *argv, "--format", "json")
        assert code == 0 and out.endswith("}\n") and out.count("\n") == 1, argv
        assert isinstance(json.loads(out), dict)
    for argv in (["canon", NINE], ["superko", str(RECORDS / "triple-ko.sgf"), str(RECORDS)]):
        _, out, _ = run(capsys, *argv, "--format", "jsonl")
        lines = out.splitlines()
        assert len(lines) > 1 and all(isinstance(json.loads(line), dict) for line in lines)


def test_deprecated_spellings_work_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "i.db")
    assert run(capsys, "index", "build", db, NINE)[0] == 0
    audit = ["audit", "--scheme", "regular64", NINE]
    find = ["index", "find", db, "--sgf", NINE]
    superko = ["superko", str(RECORDS / "triple-ko.sgf")]
    pairs = [
        ([*audit, "--group", "d4"], [*audit, "--symmetry", "d4"],
         "gohash audit: note: --group d4 is deprecated and will be removed in the next "
         "release; use --symmetry d4"),
        ([*find, "--no-colour-swap"], [*find, "--symmetry", "d4"],
         "gohash index find: note: --no-colour-swap is deprecated and will be removed in the "
         "next release; use --symmetry d4"),
        ([*superko, "--format", "json"], [*superko, "--format", "jsonl"],
         "gohash superko: note: --format json is deprecated and will be removed in the next "
         "release; use --format jsonl"),
    ]
    for old, new, note in pairs:
        code, out, err = run(capsys, *old)
        assert err.splitlines()[0] == note
        assert (code, out, err.split("\n", 1)[1]) == run(capsys, *new)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("argv", [
    ["canon", NINE, str(DATA / "game-13x13.sgf")],
    ["superko", NINE, str(DATA / "game-13x13.sgf")],
    ["superko", NINE, str(DATA / "game-13x13.sgf"), "--jobs", "2"],
    ["audit", "--scheme", "regular64", NINE, str(DATA / "game-13x13.sgf")],
    ["audit", "--scheme", "regular64", NINE, str(DATA / "game-13x13.sgf"), "--jobs", "2"],
    ["index", "build", "{db}", NINE, str(DATA / "game-13x13.sgf")],
])
def test_a_progress_bar_on_a_terminal_only(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gohash.cli.progress, "REDRAW_SECONDS", 0)  # every step drawn
    for number, (stream, shown) in enumerate([(Terminal(), True), (io.StringIO(), False)]):
        monkeypatch.setattr(sys, "stderr", stream)
        monkeypatch.setattr(sys, "stdout", io.StringIO())
        main([a.format(db=tmp_path / f"{number}.db") for a in argv])
        text = stream.getvalue()
        command = " ".join(argv[:2] if argv[0] == "index" else argv[:1])
        halfway = re.search(
            rf"\rgohash {command}:  50%\|#{{15}} {{15}}\| 1/2 inputs \[\d\d:\d\d<\d\d:\d\d, "
            r"[\d.]+k? inputs/s\]", text)
        assert bool(halfway) == shown
        assert (f"\rgohash {command}: 100%|{'#' * 30}| 2/2 inputs [" in text) == shown
        # A bar is redrawn or cleared before any line, so every line is whole.
        assert not re.search(r"inputs/s\] *[^ \r]", text)
        lines = re.sub(r"\r[^\r\n]*(?=\r)", "", text).replace("\r", "").splitlines()
        assert lines and all(line.startswith("gohash ") for line in lines), lines


def test_superko_prints_each_file_as_it_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The violations of the first file are out before the last file is read."""
    reads: list[str] = []
    real_read_input = gohash.tools.superko.read_input

    def read_input(inp: gohash.tools.superko.Input) -> object:
        reads.append(inp.name)
        return real_read_input(inp)

    written_after: list[int] = []

    class Output(io.StringIO):
        def write(self, text: str) -> int:
            written_after.append(len(reads))
            return super().write(text)

    monkeypatch.setattr(gohash.tools.superko, "read_input", read_input)
    monkeypatch.setattr(gohash.tools.superko, "COLUMNS_MAX_GROUP_BYTES", 1)  # a file a group
    monkeypatch.setattr(sys, "stdout", Output())
    paths = [str(RECORDS / "triple-ko.sgf"), NINE, str(DATA / "game-13x13.sgf")]
    assert main(["superko", "--ruleset", "korean", *paths]) == 1
    assert written_after and written_after[0] == 1 and len(reads) == 3
