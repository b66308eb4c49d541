"""The documentation: the Sphinx site builds cleanly, and the code cites only pages that exist.

The site (``docs/``, MyST Markdown) is built here, as CI builds it, with
warnings as errors; its CLI reference must name every subcommand and option of
gohash's own parser.  Every ``gohash`` command shown in a shell example must be
one the parser accepts (tests/test_doc_commands.py runs them all as written).
Docstrings and comments that cite the design notes
cite ``docs/design.md`` (with a section that exists), never a file outside the
repository.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gohash.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CODE_FOLDERS = ("gohash", "tests", "benchmarks", "notebooks", "data")
CODE_SUFFIXES = {".py", ".pyx", ".pxd", ".pyi", ".ipynb", ".md"}

# A page of docs/, optionally followed by a section: docs/design.md, section "E3".
# In a comment the citation may wrap onto a line that starts with "#".
CITATION = re.compile(r'\bdocs/([\w./-]*\w)(?:,\s*(?:#\s*)?section\s+(?:#\s*)?"([^"]+)")?')
# The design notes once lived in a file outside the repository; the word alone
# (not an identifier such as DESIGN_MAPS) is a citation of it.
OUTSIDE_NOTES = re.compile(r"\bDESIGN\b")


def code_files() -> Iterator[Path]:
    for folder in CODE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in CODE_SUFFIXES and path.is_file() and ".venv" not in path.parts:
                yield path


def test_the_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    out = tmp_path / "html"
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(DOCS), str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    # docutils prints some problems itself, as "(WARNING/2)", without failing the build.
    assert run.returncode == 0 and "WARNING" not in run.stderr, run.stderr + run.stdout
    for page in ("index", "install", "tutorial", "library", "commands", "cli", "schemas",
                 "reading-sgf", "design", "schemes", "performance", "api"):
        assert (out / f"{page}.html").is_file(), page
    cli = (out / "cli.html").read_text(encoding="utf-8")
    for words in parser_words(build_parser()):
        assert words in cli, words
    api = (out / "api.html").read_text(encoding="utf-8")
    for name in ("gohash.pipeline.positions.read_positions", "gohash.go.board.Board",
                 "gohash.sgf.walk.walk_paths", "gohash.group.schemes.KeyScheme",
                 "gohash.group.symmetry.Element", "gohash.pipeline.frames.canonical_frame",
                 "gohash.tools.canon.write_records", "gohash.tools.superko.check",
                 "gohash.index.index.Index", "gohash.tools.audit.audit_paths",
                 "gohash.errors.GohashError", "gohash.sgf.parser.game_events",
                 "gohash.sgf.sources.read_input"):
        assert f'id="{name}"' in api, name


def parser_words(parser: argparse.ArgumentParser) -> Iterator[str]:
    """Every subcommand name and option string of ``parser``, recursively."""
    for action in parser._actions:
        yield from action.option_strings
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name
                yield from parser_words(sub)


def test_no_file_cites_design_notes_outside_the_repository() -> None:
    found = []
    for path in code_files():
        if path == Path(__file__).resolve():
            continue  # this file names the pattern it looks for
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE_NOTES.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def headings(page: Path) -> list[str]:
    return [line.lstrip("#").strip() for line in page.read_text(encoding="utf-8").splitlines()
            if re.match(r"#+ ", line)]


def test_every_docs_page_cited_in_the_code_exists() -> None:
    citations = 0
    for path in code_files():
        text = path.read_text(encoding="utf-8")
        for match in CITATION.finditer(text):
            where = f"{path.relative_to(ROOT)}: {match.group(0)!r}"
            page = DOCS / match.group(1)
            assert page.is_file(), where
            section = match.group(2)
            if section is not None:
                assert any(h.startswith(section) for h in headings(page)), where
            citations += 1
    assert citations >= 20  # the design notes are cited throughout


def shell_commands() -> Iterator[tuple[str, str]]:
    """Every ``gohash ...`` line of a ``sh`` code block in the docs, with its page."""
    for page in sorted(DOCS.glob("*.md")):
        in_sh = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                in_sh = not in_sh and line.strip() == "```sh"
            elif in_sh and line.startswith("gohash "):
                yield page.name, line


COMMANDS = list(shell_commands())


def test_the_docs_show_every_subcommand() -> None:
    shown = {shlex.split(line)[1] for _, line in COMMANDS}
    assert shown >= {"canon", "superko", "index", "audit"}


@pytest.mark.parametrize(("page", "line"), COMMANDS)
def test_every_command_shown_is_one_gohash_accepts(
    page: str, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = shlex.split(line, comments=True)[1:]
    try:
        args = build_parser().parse_args(argv)
    except SystemExit:
        pytest.fail(f"{page}: {line!r}: {capsys.readouterr().err}")
    assert callable(args.run)


def test_the_licence_is_the_one_pyproject_names() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^license = \{ text = "MIT" \}$', pyproject, re.MULTILINE)
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License\n")
    assert "Copyright (c) 2026 gohash authors" in licence
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in licence
