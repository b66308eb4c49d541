"""The page's script modules (gohash/explorer/static/*.js) type-check: TypeScript's
``tsc`` reads their JSDoc types (the JSON of docs/schemas.md in types.js) with
gohash/explorer/tsconfig.json (strict, no output).  Skipped without ``tsc`` (Debian's
``node-typescript``), a failure under ``CI=true``; .ci/run installs it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, missing

EXPLORER = ROOT / "gohash" / "explorer"
STATIC = EXPLORER / "static"
WAIT = 300
"""Seconds the checker may take at most before the test fails."""


def tsc() -> str:
    found = shutil.which("tsc")
    if found is None:
        missing("tsc not found (install the Debian package 'node-typescript'; .ci/run does)")
    return found


def check(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tsc(), "--pretty", "false", "-p", str(config)], capture_output=True,
                          text=True, timeout=WAIT, check=False)


def test_every_module_asks_for_the_check() -> None:
    modules = sorted(STATIC.glob("*.js"))
    assert "app.js" in {m.name for m in modules}
    assert [m.name for m in modules if not m.read_text(encoding="utf-8")
            .startswith("// @ts-check\n")] == []


def test_the_page_type_checks() -> None:
    result = check(EXPLORER / "tsconfig.json")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(("module", "error"), [
    # A field the JSON of an answer does not have.
    ("/** @param {import('./types.js').PositionAnswer} data */\n"
     "export const f = (data) => data.continuations.moves[0].visits;\n", "visits"),
    # A possibly missing element used as one that is there.
    ("export const f = () => document.getElementById('board').dataset;\n", "null"),
])
def test_the_check_sees_errors(tmp_path: Path, module: str, error: str) -> None:
    shutil.copytree(STATIC, tmp_path / "static")
    shutil.copy(EXPLORER / "tsconfig.json", tmp_path)
    (tmp_path / "static" / "wrong.js").write_text("// @ts-check\n" + module, encoding="utf-8")
    result = check(tmp_path / "tsconfig.json")
    assert result.returncode != 0
    assert "wrong.js" in result.stdout and error in result.stdout
