"""Kill an index build mid-run, twice, and resume it: the index must be
consistent after each kill, and the finished index equal to one built in one go
(nothing lost, nothing doubled).  The build kills itself with SIGKILL from its
progress callback, at a file chosen here: no race with a watcher."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gohash.cli import main
from gohash.index.index import Index
from tests.support.indexes import (
    consistency_problems,
    files_indexed,
    random_game,
    table_dump,
    write_game,
)

FILES = 100
BUILD = """\
import os, signal, sys
from gohash.index.index import Index
db, folder, per_commit, kill_at = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def progress(done, total):
    if done == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)

with Index(db, create=True) as index:
    index.build([folder], files_per_commit=per_commit, progress=progress)
"""


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("resume")
    rng = random.Random(4)
    for n in range(FILES):
        write_game(folder, f"{n:03}.sgf", 9, random_game(rng, 9, 60))
    return folder


def build_and_kill(db: Path, collection: Path, kill_at: int, per_commit: int) -> int:
    """Run a build that SIGKILLs itself when its progress reaches ``kill_at`` inputs
    (the first ``kill_at`` files read, the next one not yet); return the files it
    committed."""
    process = subprocess.run(
        [sys.executable, "-c", BUILD, str(db), str(collection), str(per_commit), str(kill_at)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300,
    )
    assert process.returncode == -signal.SIGKILL, process.stderr
    return files_indexed(db)


@pytest.mark.parametrize("per_commit", [1, 25])
def test_killed_build_is_consistent_and_resumes(
    collection: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], per_commit: int
) -> None:
    db = tmp_path / "killed.db"
    # Killed with files in an open transaction: only whole transactions remain.
    first = build_and_kill(db, collection, kill_at=30, per_commit=per_commit)
    assert first == 30 - 30 % per_commit
    assert consistency_problems(db) == []
    # The second build skips the files committed, then indexes 40 more before its kill.
    second = build_and_kill(db, collection, kill_at=first + 40, per_commit=per_commit)
    assert second == first + 40 - 40 % per_commit
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
