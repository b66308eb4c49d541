"""A worker process that dies (SIGKILL, as the OOM killer sends) during
``gohash canon --jobs 2`` or ``gohash index build --jobs 2`` (or ``gohash
superko --jobs 2``, on the same pool): no hang, no
traceback.  Killed once, its unfinished files are retried: the output is that
of ``--jobs 1`` (every record once, in order), the index equals a fresh build,
exit 0, with a note.  A file that kills every worker it meets is an error
naming it, exit 2; the rest is complete and the index consistent.  And when
the run itself is killed, its workers exit and remove their result files."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

import gohash.index.build
import gohash.index.records
import gohash.index.store
import gohash.tools.canon
import gohash.tools.superko
from gohash.cli import main
from gohash.index.build import Spooled
from gohash.index.index import Index
from gohash.index.records import Task
from gohash.pipeline.frames import SchemeFactory
from gohash.pipeline.jobs import Task as JobTask
from gohash.sgf.inputs import Input
from gohash.tools.canon import CanonOptions
from tests.support.indexes import (
    consistency_problems,
    files_indexed,
    random_game,
    table_dump,
    write_game,
)

FILES = 300
CLI = "import sys; from gohash.cli import main; sys.exit(main(sys.argv[1:]))"
DIED = "worker process died (killed by signal 9; out of memory?)"
NOTE = re.compile(
    r"a worker process died \(killed by signal 9; out of memory\?\); "
    r"retrying \d+ unfinished files one at a time"
)


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough 19x19 games for a run of a second or two."""
    folder = tmp_path_factory.mktemp("games")
    rng = random.Random(8)
    for n in range(FILES):
        write_game(folder, f"{n:03}.sgf", 19, random_game(rng, 19, 150))
    return folder


def workers(pid: int) -> list[int]:
    children = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children += [int(c) for c in (task / "children").read_text().split()]
    return children


def run_and_kill_a_worker(
    args: list[str], started: Callable[[], bool], tmp_path: Path
) -> tuple[int, str, str]:
    """Run gohash; once ``started()`` and workers are up, SIGKILL one of them.
    Return the exit code, standard output and standard error."""
    stdout, stderr = tmp_path / "stdout", tmp_path / "stderr"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen([sys.executable, "-c", CLI, *args], stdout=out, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while not (started() and workers(process.pid)):
            assert process.poll() is None, "the run ended before a worker could be killed"
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.005)
        os.kill(workers(process.pid)[0], signal.SIGKILL)
        process.wait(timeout=120)  # raises TimeoutExpired if the run hangs
    finally:
        if process.poll() is None:
            for pid in workers(process.pid):
                os.kill(pid, signal.SIGKILL)
            process.kill()
            process.wait()
    return process.returncode, stdout.read_text(), stderr.read_text()


def test_canon_recovers_from_a_killed_worker(collection: Path, tmp_path: Path) -> None:
    expected = subprocess.run(
        [sys.executable, "-c", CLI, "canon", str(collection)], capture_output=True, check=True
    )
    out = tmp_path / "records.jsonl"
    code, _, err = run_and_kill_a_worker(
        ["canon", str(collection), "--jobs", "2", "-o", str(out)],
        lambda: out.exists() and out.stat().st_size > 0,  # records of the first batch are out
        tmp_path,
    )
    assert "Traceback" not in err
    assert code == 0
    assert out.read_bytes() == expected.stdout  # every record once, in input order
    note, summary = err.splitlines()
    assert NOTE.fullmatch(note.removeprefix("gohash canon: note: ")), note
    assert summary == expected.stderr.decode().strip()
    assert summary.endswith(" 0 errors")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (an exited orphan may stay a zombie here)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_workers_of_a_killed_run_exit_and_clean_up(collection: Path, tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"  # where the pool keeps its result files
    temporary.mkdir()
    out = tmp_path / "records.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-c", CLI, "canon", str(collection), "--jobs", "2", "-o", str(out)],
        env={**os.environ, "TMPDIR": str(temporary)}, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not (out.exists() and out.stat().st_size > 0 and len(workers(process.pid)) == 2):
            assert process.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.005)
        orphans = workers(process.pid)
        assert [p.name[:7] for p in temporary.iterdir()] == ["gohash-"]
    finally:
        process.kill()
        process.wait()
    deadline = time.monotonic() + 10
    while any(map(alive, orphans)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in orphans if alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "the workers outlive their parent"
    assert list(temporary.iterdir()) == []


def test_index_build_recovers_from_a_killed_worker(collection: Path, tmp_path: Path) -> None:
    db = tmp_path / "killed.db"
    code, out, err = run_and_kill_a_worker(
        # A commit a file, so that committed files show the build under way (a
        # second's transaction can hold the whole collection).
        ["index", "build", str(db), str(collection), "--jobs", "2", "--files-per-commit", "1"],
        lambda: files_indexed(db) >= 10,
        tmp_path,
    )
    assert "Traceback" not in err
    assert (code, out) == (0, "")
    note, summary, _ = err.splitlines()
    assert NOTE.fullmatch(note.removeprefix("gohash index build: note: ")), note
    assert summary.startswith(
        f"gohash index build: {FILES} files indexed (0 replaced), 0 unchanged; {FILES} games"
    )
    assert consistency_problems(db) == []
    fresh = tmp_path / "fresh.db"
    with Index(fresh, create=True) as index:
        index.build([str(collection)])
    assert table_dump(db) == table_dump(fresh)


# -- a file that kills every worker it meets ------------------------------------------------
# The functions the workers run are replaced by ones that SIGKILL their worker
# on the file "killer": workers are forked, so they inherit the replacement.

REAL_CANON_TASKS = gohash.tools.canon._canon_tasks
REAL_SPOOLED_FRAMES = gohash.index.build.spooled_frames
REAL_CHECK_TASKS = gohash.tools.superko._check_tasks
KILLER = "030-killer.sgf"  # in the middle of the folder


def is_killer(work: object) -> bool:
    return isinstance(work, Input) and Path(work.name).name == KILLER


def killing_canon_tasks(
    tasks: list[JobTask], options: CanonOptions,
    write: Callable[[str], object] | None = None, spool: str | None = None,
) -> list[gohash.tools.canon._Result]:
    if any(is_killer(work) for work, _ in tasks):
        os.kill(os.getpid(), signal.SIGKILL)
    return REAL_CANON_TASKS(tasks, options, write, spool)


def killing_spooled_frames(
    tasks: Sequence[Task], factory: SchemeFactory, suicide_allowed: bool | None,
    variations: bool = False, share: int = 1,
) -> list[Spooled]:
    if any(is_killer(inp) for inp, _ in tasks):
        os.kill(os.getpid(), signal.SIGKILL)
    return REAL_SPOOLED_FRAMES(tasks, factory, suicide_allowed, variations, share)


def killing_check_tasks(
    tasks: list[JobTask], settings: gohash.tools.superko._Settings
) -> list[list[gohash.tools.superko.FileCheck]]:
    if any(is_killer(work) for work, _ in tasks):
        os.kill(os.getpid(), signal.SIGKILL)
    return REAL_CHECK_TASKS(tasks, settings)


@pytest.fixture
def with_killer(collection: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the collection with the killer file, and the killer's path."""
    folder = tmp_path / "games"
    folder.mkdir()
    for path in sorted(collection.iterdir())[:60]:
        (folder / path.name).write_bytes(path.read_bytes())
    killer = folder / KILLER
    killer.write_bytes((collection / "100.sgf").read_bytes())
    return folder, killer


def test_canon_reports_a_file_that_kills_every_worker(
    with_killer: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, killer = with_killer
    others = [str(p) for p in sorted(folder.iterdir()) if p != killer]
    assert main(["canon", *others]) == 0
    expected = capsys.readouterr()
    monkeypatch.setattr(gohash.tools.canon, "_canon_tasks", killing_canon_tasks)
    assert main(["canon", str(folder), "--jobs", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == expected.out  # all the other records, once, in order
    note, error, summary = err.splitlines()
    assert NOTE.fullmatch(note.removeprefix("gohash canon: note: ")), note
    assert error == f"gohash canon: error: {killer}: {DIED}"
    assert summary == expected.err.strip().replace(" 0 errors", " 1 error")


def test_index_build_reports_a_file_that_kills_every_worker(
    with_killer: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    folder, killer = with_killer
    db = tmp_path / "killer.db"
    with monkeypatch.context() as patch:
        patch.setattr(gohash.index.store, "spooled_frames", killing_spooled_frames)
        assert main(["index", "build", str(db), str(folder), "--jobs", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    note, error, summary, _ = err.splitlines()
    assert NOTE.fullmatch(note.removeprefix("gohash index build: note: ")), note
    assert error == f"gohash index build: error: {killer}: {DIED}"
    assert summary.startswith(
        "gohash index build: 60 files indexed (0 replaced), 0 unchanged; 60 games"
    )
    assert summary.endswith("; 1 error")
    assert consistency_problems(db) == []
    others = tmp_path / "others.db"
    with Index(others, create=True) as index:
        index.build([str(p) for p in sorted(folder.iterdir()) if p != killer])
    assert table_dump(db) == table_dump(others)

    # Nothing is lost for good: the next build (here without the killing) indexes it.
    assert main(["index", "build", str(db), str(folder), "--jobs", "2"]) == 0
    assert capsys.readouterr().err.startswith(
        "gohash index build: 1 file indexed (0 replaced), 60 unchanged"
    )
    fresh = tmp_path / "fresh.db"
    with Index(fresh, create=True) as index:
        index.build([str(folder)])
    assert table_dump(db) == table_dump(fresh)


def test_superko_reports_a_file_that_kills_every_worker(
    with_killer: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, killer = with_killer
    others = [str(p) for p in sorted(folder.iterdir()) if p != killer]
    code = main(["superko", *others])
    expected = capsys.readouterr()
    monkeypatch.setattr(gohash.tools.superko, "_check_tasks", killing_check_tasks)
    assert main(["superko", str(folder), "--jobs", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == expected.out  # every other file's violations, once, in order
    note, error, summary = err.splitlines()
    assert NOTE.fullmatch(note.removeprefix("gohash superko: note: ")), note
    assert error == f"gohash superko: error: {killer}: {DIED}"
    assert summary == expected.err.strip().replace(" 0 errors", " 1 error")
    assert code == (1 if expected.out else 0)
