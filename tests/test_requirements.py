"""What a test needs from outside the project, missing: a skip naming it, a failure in CI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import env, serve_fixtures


@pytest.mark.parametrize(
    ("module", "name", "require", "reason"),
    [
        (env, "CORPUS", env.require_corpus, "the corpus {} is missing"),
        (serve_fixtures, "CHROMIUM", serve_fixtures.require_chromium, "Chromium not found at {}"),
    ],
    ids=["corpus", "chromium"],
)
def test_missing_skips_and_fails_in_ci(
    module: ModuleType, name: str, require: Callable[[], object], reason: str,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "missing"
    monkeypatch.setattr(module, name, path if name == "CORPUS" else str(path))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=reason.format(path)):
        require()
    monkeypatch.setenv("CI", "True")
    with pytest.raises(pytest.fail.Exception, match="CI=true: a failure, not a skip"):
        require()


def test_the_corpus_marker_is_registered(pytestconfig: pytest.Config) -> None:
    markers = pytestconfig.getini("markers")
    assert any(line.startswith("corpus:") for line in markers)
