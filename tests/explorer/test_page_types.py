"""The page's script modules (gohash/explorer/static/*.js) type-check: TypeScript's
``tsc`` reads their JSDoc types (the JSON of docs/schemas.md in types.js) with
gohash/explorer/tsconfig.json (strict, no output).  Skipped without ``tsc`` (Debian's
``node-typescript``), a failure under ``CI=true``; .ci/run installs it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from starlette.testclient import TestClient

from gohash.cli import main
from gohash.explorer.app import create_app
from tests.support.env import ROOT, missing

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
    """``tsc`` run on the project ``config``, in its folder (paths are reported from it)."""
    return subprocess.run([tsc(), "--pretty", "false", "-p", config.name], cwd=config.parent,
                          capture_output=True, text=True, timeout=WAIT, check=False)


def test_every_module_asks_for_the_check() -> None:
    modules = sorted(STATIC.glob("*.js"))
    assert "app.js" in {m.name for m in modules}
    assert [m.name for m in modules if not m.read_text(encoding="utf-8")
            .startswith("// @ts-check\n")] == []


WRONG = """// @ts-check
/** @param {import("./types.js").PositionAnswer} data */
export const visits = (data) => data.continuations.moves[0].visits;
export const board = () => document.getElementById("board").dataset;
"""
"""A module with a field the JSON of an answer does not have, and an element that may be
missing used as one that is there."""


def test_the_check_sees_errors(tmp_path: Path) -> None:
    shutil.copytree(STATIC, tmp_path / "static")
    shutil.copy(EXPLORER / "tsconfig.json", tmp_path)
    (tmp_path / "static" / "wrong.js").write_text(WRONG, encoding="utf-8")
    result = check(tmp_path / "tsconfig.json")
    assert result.returncode != 0
    errors = [line for line in result.stdout.splitlines() if "error TS" in line]
    assert len(errors) == 2 and all(line.startswith("static/wrong.js(") for line in errors)
    assert "'visits'" in errors[0] and "null" in errors[1]


# Real answers of every endpoint, each an object literal of its type in types.js, checked
# with the page: tsc refuses a field the type does not have and a required one the answer
# lacks, so the types say what the server writes (docs/schemas.md).
ANSWERS = [
    ("Info", "/api/info", {}),
    ("PositionAnswer", "/api/position", {"size": "9"}),
    ("PositionAnswer", "/api/position", {"size": "9", "moves": "cc,gg"}),
    ("FindResult", "/api/games", {"size": "9", "moves": "cc"}),
    ("GamePage", "/api/game/1", {"count": "3"}),
    ("GameSteps", "/api/game/1/steps", {"at": "2"}),
    ("PlayerAnswer", "/api/player", {"name": "Alice"}),
    ("PlayersAnswer", "/api/players", {"q": "a"}),
    ("PatternAnswer", "/api/pattern", {"diagram": "\n".join(["*" * 9] * 9)}),
]


def test_the_page_and_the_servers_answers_type_check(tmp_path: Path) -> None:
    tsc()
    db = tmp_path / "index.db"
    assert main(["index", "build", "--quiet", str(db), str(ROOT / "data" / "sgf" /
                                                          "opening-explorer")]) == 0
    lines = ["// @ts-check"]
    with TestClient(create_app(db), base_url="http://localhost") as client:
        for i, (name, path, params) in enumerate(ANSWERS):
            response = client.get(path, params=params)
            assert response.status_code == 200, (path, response.text)
            lines += [f'/** @type {{import("./types.js").{name}}} */',
                      f"export const answer{i} = {json.dumps(response.json())};"]
    shutil.copytree(STATIC, tmp_path / "static")
    shutil.copy(EXPLORER / "tsconfig.json", tmp_path)
    (tmp_path / "static" / "answers.js").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = check(tmp_path / "tsconfig.json")
    assert result.returncode == 0, result.stdout + result.stderr
