"""Kill ``gohash index build`` mid-run, twice, and resume it: the index must be
consistent after each kill, and the finished index equal to one built in one go
(nothing lost, nothing doubled)."""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gohash.cli import main
from gohash.index.index import Index
from tests.test_index import consistency_problems, random_game, table_dump, write_game

FILES = 400
BUILD = "import sys; from gohash.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("resume")
    rng = random.Random(4)
    for n in range(FILES):
        write_game(folder, f"{n:03}.sgf", 9, random_game(rng, 9, 60))
    return folder


def files_indexed(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as con:
            count: int = con.execute("SELECT count(*) FROM files").fetchone()[0]
            return count
    except sqlite3.OperationalError:  # the schema is not committed yet
        return 0


def build_and_kill(db: Path, collection: Path, at_least: int, per_commit: int) -> int:
    """Start a build, SIGKILL it once ``at_least`` files are committed; return the count."""
    process = subprocess.Popen(
        [sys.executable, "-c", BUILD, "index", "build", str(db), str(collection),
         "--files-per-commit", str(per_commit)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while db.exists() is False or files_indexed(db) < at_least:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the build made no progress"
            time.sleep(0.005)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL
    count = files_indexed(db)
    assert at_least <= count < FILES, "the build finished before it was killed"
    return count


@pytest.mark.parametrize("per_commit", [1, 25])
def test_killed_build_is_consistent_and_resumes(
    collection: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], per_commit: int
) -> None:
    db = tmp_path / "killed.db"
    first = build_and_kill(db, collection, at_least=10, per_commit=per_commit)
    assert consistency_problems(db) == []
    assert first % per_commit == 0
    second = build_and_kill(db, collection, at_least=first + 40, per_commit=per_commit)
    assert consistency_problems(db) == []

    assert main(["index", "build", str(db), str(collection)]) == 0
    err = capsys.readouterr().err
    assert f"{FILES - second} files indexed (0 replaced), {second} unchanged" in err
    assert consistency_problems(db) == []

    fresh = tmp_path / "fresh.db"
    with Index(fresh, create=True) as index:
        index.build([str(collection)])
    assert table_dump(db) == table_dump(fresh)
    with Index(db) as index:
        assert index.counts()["files"] == FILES


@pytest.mark.parametrize(("seconds", "committed"), [(0.0, 3), (1e9, 0)])
def test_default_build_commits_the_files_of_a_transactions_age(
    collection: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: float,
    committed: int,
) -> None:
    """Without files_per_commit, a transaction ends at the first file written once it
    is COMMIT_SECONDS old: at 0 each file commits alone, at 1e9 nothing has
    committed when the build is interrupted after three files."""
    from gohash.index import store as indexfile

    monkeypatch.setattr(indexfile, "COMMIT_SECONDS", seconds)

    def interrupt(done: int, total: int) -> None:
        files_seen.append(done)
        if len(files_seen) == 3:
            raise KeyboardInterrupt

    files_seen: list[int] = []
    db = tmp_path / "interrupted.db"
    with Index(str(db), create=True) as index, pytest.raises(KeyboardInterrupt):
        index.build([str(collection)], progress=interrupt)
    assert files_indexed(db) == committed
    assert consistency_problems(db) == []
