"""What a test needs from outside the project, missing: a skip naming it, a failure in CI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import conftest, serve_fixtures


def test_missing_corpus_skips_and_fails_in_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conftest, "CORPUS", tmp_path / "corpus")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"the corpus {tmp_path}/corpus is missing"):
        conftest.require_corpus()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true: a failure, not a skip"):
        conftest.require_corpus()
    (tmp_path / "corpus").mkdir()
    assert conftest.require_corpus() == tmp_path / "corpus"


def test_missing_chromium_skips_and_fails_in_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serve_fixtures, "CHROMIUM", str(tmp_path / "chromium"))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"Chromium not found at {tmp_path}"):
        serve_fixtures.require_chromium()
    monkeypatch.setenv("CI", "True")
    with pytest.raises(pytest.fail.Exception, match="Chromium not found"):
        serve_fixtures.require_chromium()


def test_the_corpus_marker_is_registered(pytestconfig: pytest.Config) -> None:
    markers = pytestconfig.getini("markers")
    assert any(line.startswith("corpus:") for line in markers)
