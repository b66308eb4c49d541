"""The process pool (:mod:`gohash.pipeline.pool`) with real worker processes that die:
tasks kill their own worker with SIGKILL (as the OOM killer does) once or every
time.  Every task comes out exactly once and in input order; one retried alone
recovers, one that kills its worker again is a WorkerDied; nothing hangs."""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from gohash.errors import GohashError, WorkerDied
from gohash.pipeline.pool import WorkerPool, ordered_map
from tests.support import pool as support
from tests.support.env import ROOT

DIED = "worker process died (killed by signal 9; out of memory?)"
NOTE = re.compile(
    r"a worker process died \(killed by signal 9; out of memory\?\); "
    r"retrying (\d+) unfinished files one at a time"
)

Task = tuple[int, str, str]


def square(task: Task) -> int:
    """``n * n``; mode ``once``: first SIGKILL the worker, the first time only
    (a file in ``folder`` remembers it); ``always``: every time; ``raise``: fail."""
    n, folder, mode = task
    marker = Path(folder) / str(n)
    if mode == "always" or (mode == "once" and not marker.exists()):
        marker.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "raise":
        raise RuntimeError(f"task {n} failed")
    return n * n


def run(
    folder: Path, modes: dict[int, str], count: int = 600, jobs: int = 2
) -> tuple[list[int | WorkerDied], list[str]]:
    """The outcomes of tasks ``0..count-1`` and the death notes."""
    tasks = [(n, str(folder), modes.get(n, "")) for n in range(count)]
    notes: list[str] = []
    out = list(ordered_map(square, tasks, jobs=jobs, expected=count, on_death=notes.append))
    assert multiprocessing.active_children() == []  # every worker is gone
    assert [task for task, _ in out] == tasks  # all, exactly once, in order
    return [outcome for _, outcome in out], notes


def test_results_in_input_order_exactly_once(tmp_path: Path) -> None:
    for count, jobs in ((600, 2), (7, 3), (1, 2)):  # batches of 37, of 1, a lone task
        outcomes, notes = run(tmp_path, {}, count, jobs)
        assert outcomes == [n * n for n in range(count)]
        assert notes == []


def test_a_task_that_kills_its_worker_once_is_retried(tmp_path: Path) -> None:
    # 600 tasks, 2 workers: batches of 37, four in flight.  Task 5 breaks the
    # first pool; task 400, far later, the pool that replaced it.
    outcomes, notes = run(tmp_path, {5: "once", 400: "once"})
    assert outcomes == [n * n for n in range(600)]
    assert len(notes) == 2
    for note in notes:
        match = NOTE.fullmatch(note)
        assert match is not None, note
        assert 37 <= int(match[1]) <= 4 * 37  # the batches in flight, not more
    assert sorted(p.name for p in tmp_path.iterdir()) == ["400", "5"]


def test_a_task_that_kills_every_worker_is_an_error(tmp_path: Path) -> None:
    # Tasks 3 and 40 are in different batches in flight together; 599 is in
    # the last batch.
    outcomes, notes = run(tmp_path, {3: "always", 40: "always", 599: "always"})
    died = {n: outcome for n, outcome in enumerate(outcomes) if isinstance(outcome, WorkerDied)}
    assert sorted(died) == [3, 40, 599]
    for error in died.values():
        assert isinstance(error, GohashError)
        assert error.reason == DIED
        assert str(error.located(file="x.sgf")) == f"x.sgf: {DIED}"
    assert [o for n, o in enumerate(outcomes) if n not in died] == [
        n * n for n in range(600) if n not in died
    ]
    assert len(notes) == 2  # one pool broken by 3 and 40, one by 599
    assert all(NOTE.fullmatch(note) for note in notes)


def squares(tasks: list[Task]) -> list[tuple[int, int]]:
    """:func:`square` of a batch of tasks in one call, each with the batch's length."""
    return [(square(task), len(tasks)) for task in tasks]


def test_batched_function_takes_whole_batches_and_retries_alone(tmp_path: Path) -> None:
    """Batches of 37 in one call each; task 5 kills the worker of its batch once and
    task 300 every time: the batches in flight then are retried task by task."""
    tasks = [(n, str(tmp_path), {5: "once", 300: "always"}.get(n, "")) for n in range(600)]
    notes: list[str] = []
    out = list(ordered_map(squares, tasks, jobs=2, expected=600, on_death=notes.append,
                           batched=True))
    assert [task for task, _ in out] == tasks
    outcomes = dict(enumerate(outcome for _, outcome in out))
    died = outcomes.pop(300)
    assert isinstance(died, WorkerDied) and died.reason == DIED
    assert all(isinstance(o, tuple) for o in outcomes.values())
    assert {n: o[0] for n, o in outcomes.items()} == {n: n * n for n in outcomes}  # type: ignore[index]
    lengths = {n: o[1] for n, o in outcomes.items()}  # type: ignore[index]
    alone = {n for n, length in lengths.items() if length == 1}
    # 600 tasks: 16 batches of 37, then 8.
    assert {lengths[n] for n in lengths if n not in alone} == {37, 8}
    assert all(lengths[n] == 8 for n in range(592, 600) if n not in alone)
    assert 5 in alone and 37 <= len(alone) <= 8 * 37
    assert len(notes) == 2 and all(NOTE.fullmatch(note) for note in notes)
    assert multiprocessing.active_children() == []


def test_an_exception_in_a_task_propagates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temporary = tmp_path / "tmp"  # where the pool keeps its result files
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    tasks = [(n, str(tmp_path), "raise" if n == 50 else "") for n in range(200)]
    results = ordered_map(square, tasks, jobs=2, expected=len(tasks))
    with pytest.raises(RuntimeError, match="task 50 failed"):
        for task, outcome in results:
            assert outcome == task[0] ** 2
    assert multiprocessing.active_children() == []
    assert list(temporary.iterdir()) == []


def test_a_worker_killed_while_sending_a_large_result(tmp_path: Path) -> None:
    # A worker killed while writing a large result into a pipe leaves half a
    # message: the executor's reader then waits forever.  Run in a process of
    # its own, so that a hang fails the test instead of stopping the suite.
    code = ("from tests.support.pool import kill_while_sending; "
            f"kill_while_sending({str(tmp_path)!r})")
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"


@pytest.mark.parametrize("threaded", [False, True])
def test_a_threaded_pool_does_not_copy_the_locks_of_other_threads(
    tmp_path: Path, threaded: bool
) -> None:
    """A worker forked from a process where another thread holds a lock keeps it
    held for ever (``gohash serve``'s game reads deadlocked so in SQLite's
    allocator); a threaded pool's workers come from a fork server and do not."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with support.HELD:
            held.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    pool = WorkerPool(1, str(tmp_path), threaded=threaded, preload=(support.__name__,))
    try:
        free = pool.executor.submit(support.held_lock_is_free).result(timeout=60)
    finally:
        release.set()
        holder.join()
        pool.close()
    assert free is threaded
