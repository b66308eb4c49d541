"""The compiled core and the pure walker build the same index, and audit the same
figures: ``gohash index build`` and ``audit_paths`` with ``GOHASH_PURE=1`` against
the default (compiled) replay, on ``data/sgf`` (quirks, errors, rules, several
sizes) and ``../shared/corpus/small`` (577 real 9x9 and 13x13 games).

Every table of the index is compared row for row, ids included; the audit's JSON
in full, errors included.  The tests first check that the compiled core is built
and replays most of these files, so that they compare two paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from gohash.index.index import Index
from gohash.pipeline.positions import CORE_AVAILABLE, read_positions
from gohash.tools.audit import audit_paths
from tests.support.env import CORPUS, ROOT
from tests.support.indexes import INDEX_TABLES, table_rows

PATHS = [str(ROOT / "data" / "sgf"), str(CORPUS / "small")]
pytestmark = pytest.mark.corpus


def test_the_core_replays_most_of_the_files() -> None:
    assert CORE_AVAILABLE, "the compiled core is not built: pip install -e ."
    files = pure = 0
    for batch in read_positions(PATHS):
        files += len(batch.files)
        pure += batch.pure_files
    assert files > 500 and pure < files // 10, (files, pure)


def build(db: Path, *, jobs: int = 1, suicide_allowed: bool | None = None) -> None:
    with Index(db, create=True) as index:
        summary = index.build(PATHS, jobs=jobs, suicide_allowed=suicide_allowed)
    assert summary.files_indexed > 500 and summary.errors, summary


@pytest.mark.parametrize("suicide_allowed", [None, True])
def test_pure_and_compiled_builds_are_equal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suicide_allowed: bool | None
) -> None:
    build(tmp_path / "compiled.db", suicide_allowed=suicide_allowed)
    with monkeypatch.context() as env:
        env.setenv("GOHASH_PURE", "1")
        build(tmp_path / "pure.db", suicide_allowed=suicide_allowed)
    compiled, pure = table_rows(tmp_path / "compiled.db"), table_rows(tmp_path / "pure.db")
    assert len(compiled["postings"]) > 40_000
    for table in INDEX_TABLES:
        assert compiled[table] == pure[table], table


def test_a_build_in_worker_processes_is_equal(tmp_path: Path) -> None:
    build(tmp_path / "one.db")
    build(tmp_path / "two.db", jobs=2)
    assert table_rows(tmp_path / "one.db") == table_rows(tmp_path / "two.db")


@pytest.mark.parametrize("group", ["full", "d4"])
def test_pure_and_compiled_audits_are_equal(
    monkeypatch: pytest.MonkeyPatch, group: str
) -> None:
    compiled = audit_paths(PATHS, symmetry=group, examples=5)
    with monkeypatch.context() as env:
        env.setenv("GOHASH_PURE", "1")
        pure = audit_paths(PATHS, symmetry=group, examples=5)
    assert compiled.positions > 40_000 and compiled.errors
    assert [str(e) for e in compiled.errors] == [str(e) for e in pure.errors]
    assert compiled.to_json() == pure.to_json()
