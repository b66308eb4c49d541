"""Notes, grouped: the first of each kind as it comes, then how many there were
of each before the summary; ``--verbose`` every one, ``--quiet`` none; the same
Reporter, and the same two options, for every subcommand."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from gohash.cli import build_parser, main
from gohash.cli.progress import Reporter, note_kind


def _lines(notes: str) -> list[str]:
    stream = io.StringIO()
    report = Reporter("gohash x", stream, notes=notes)  # type: ignore[arg-type]
    report.note("a.sgf, game 0: text is not valid UTF-8")
    report.note("b.sgf, game 3: text is not valid UTF-8")
    report.error("c.sgf, game 0, move 4: black at 'D4' is occupied")
    report.note("a.sgf, game 1: text is not valid UTF-8")
    report.note("d.sgf: a named pipe (FIFO), not a regular file: skipped")
    report.note("a worker process died")
    report.note("a worker process died")
    report.say("4 files, 1 error")
    return stream.getvalue().splitlines()


def test_grouped_by_default() -> None:
    assert _lines("grouped") == [
        "gohash x: note: a.sgf, game 0: text is not valid UTF-8",
        "gohash x: error: c.sgf, game 0, move 4: black at 'D4' is occupied",
        "gohash x: note: d.sgf: a named pipe (FIFO), not a regular file: skipped",
        "gohash x: note: a worker process died",
        "gohash x: note: 2 files: text is not valid UTF-8 (the first shown above; --verbose "
        "shows each)",
        "gohash x: note: 2 times: a worker process died (the first shown above; --verbose "
        "shows each)",
        "gohash x: 4 files, 1 error",
    ]


def test_verbose_and_quiet() -> None:
    verbose = _lines("verbose")
    assert len(verbose) == 8 and sum(": note: " in line for line in verbose) == 6
    assert _lines("quiet") == [
        "gohash x: error: c.sgf, game 0, move 4: black at 'D4' is occupied",
        "gohash x: 4 files, 1 error",
    ]
    with pytest.raises(ValueError, match="notes 'loud' is not one of"):
        Reporter("x", notes="loud")  # type: ignore[arg-type]


@pytest.mark.parametrize(("note", "kind"), [
    ("a.sgf, game 2: HA[x] is not a number: ignored", ("a.sgf", "HA[x] is not a number: ignored")),
    ("set.zip:g 1.sgf: no game", ("set.zip:g 1.sgf", "no game")),
    ("a.sgf, game 2, move 5: why", ("a.sgf", "why")),
    ("no location here", (None, "no location here")),
])
def test_note_kinds(note: str, kind: tuple[str | None, str]) -> None:
    assert note_kind(note) == kind


def _commands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser] if parser.get_default("run") is not None else []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _commands(sub)
    return found


def test_every_subcommand_takes_quiet_and_verbose() -> None:
    commands = _commands(build_parser())
    assert len(commands) >= 12
    for command in commands:
        options = {o for a in command._actions for o in a.option_strings}
        assert {"-q", "--quiet", "-v", "--verbose"} <= options, command.prog


@pytest.mark.parametrize(("argv", "noted"), [
    (["canon"], True), (["superko"], True),
    (["index", "build", "{db}"], False),  # a build keeps the text's notes to itself
])
def test_a_run_of_many_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             argv: list[str], noted: bool) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    for i in range(5):  # Latin-1 names under CA[UTF-8]: one note each
        (folder / f"g{i}.sgf").write_bytes(b"(;CA[UTF-8]SZ[9]PB[M\xfcller];B[ee])")
    command = [a.format(db=tmp_path / "i.db") for a in argv] + [str(folder)]
    counts = {}
    for option in ("", "--quiet", "--verbose"):
        if (tmp_path / "i.db").exists():
            (tmp_path / "i.db").unlink()
        assert main([*command, *([option] if option else [])]) == 0
        err = capsys.readouterr().err.splitlines()
        counts[option] = sum(": note: " in line for line in err)
        if option == "" and noted:
            assert "note: 5 files: text is not valid UTF-8; bad bytes shown as U+FFFD " \
                   "(noted once per file) (the first shown above; --verbose shows each)" in err[1]
    assert counts == ({"": 2, "--quiet": 0, "--verbose": 5} if noted else
                      {"": 0, "--quiet": 0, "--verbose": 0})
