"""The job driver (:mod:`gohash.pipeline.jobs`): which inputs are read here and
which by their task, results in input order here and in workers alike, progress
once per input, and a task that kills its worker reported at its file."""

from __future__ import annotations

import io
import os
import signal
import sys
import zipfile
from pathlib import Path

import pytest

from gohash.errors import WorkerDied
from gohash.pipeline.jobs import Task, input_tasks, run_tasks, task_ends, task_name
from gohash.sgf.inputs import Budget, Input, Source
from gohash.sgf.sources import find_inputs

GAME = b"(;SZ[9];B[ee];W[cc])"


@pytest.fixture
def inputs(tmp_path: Path) -> list[str]:
    """A file, an archive of two members and one not SGF, an empty archive, a missing path."""
    (tmp_path / "a.sgf").write_bytes(GAME)
    with zipfile.ZipFile(tmp_path / "two.zip", "w") as z:
        z.writestr("x.sgf", GAME)
        z.writestr("notes.txt", b"not a game")
        z.writestr("y.sgf", GAME)
    with zipfile.ZipFile(tmp_path / "empty.zip", "w"):
        pass
    return [str(tmp_path / name) for name in ("a.sgf", "two.zip", "empty.zip", "gone.sgf")]


def shown(task: Task) -> tuple[str, str | None, bool]:
    work, last = task
    return type(work).__name__, task_name(task), last


def test_files_go_by_name_archives_and_stdin_are_read_here(
    inputs: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(GAME)))
    a, two, _, gone = inputs
    tasks = list(input_tasks(find_inputs([*inputs, "-"])))
    assert [shown(task) for task in tasks] == [
        ("Input", a, True),
        ("Source", f"{two}:x.sgf", False),
        ("Source", f"{two}:y.sgf", True),
        ("NoneType", None, True),  # nothing in it, but it ends once
        ("Input", gone, True),  # its task reads it, and says it is missing
        ("Source", "-", True),
    ]
    stdin = tasks[-1][0]
    assert isinstance(stdin, Source) and stdin.data == GAME


def test_archives_whole_for_tasks_planned_in_full(inputs: list[str]) -> None:
    kinds = [(type(w).__name__, getattr(w, "kind", None))
             for w, _ in input_tasks(find_inputs(inputs), archives=False)]
    assert kinds == [("Input", "file"), ("Input", "zip"), ("Input", "zip"), ("Input", "missing")]


def test_an_archive_read_here_keeps_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gohash.sgf.sources

    with zipfile.ZipFile(tmp_path / "big.zip", "w") as z:
        z.writestr("x.sgf", GAME + b" " * 1000)
        z.writestr("y.sgf", GAME + b" " * 1000)
    monkeypatch.setattr(gohash.sgf.sources, "budget_for", lambda size: Budget(1500, 60))
    tasks = list(input_tasks(find_inputs([str(tmp_path / "big.zip")])))
    assert [type(work).__name__ for work, _ in tasks] == ["Source", "SgfBudgetError"]
    assert tasks[-1][1]  # the error ends the input


def names(tasks: list[Task]) -> list[str | None]:
    """In a worker, or here: each task's file name; a task named ``killer.sgf``
    kills its worker (and every worker it is retried in)."""
    if any((task_name(task) or "").endswith("killer.sgf") for task in tasks):
        os.kill(os.getpid(), signal.SIGKILL)
    return [task_name(task) for task in tasks]


@pytest.mark.parametrize("jobs", [1, 2])
def test_results_in_order_progress_per_input(inputs: list[str], jobs: int) -> None:
    found = list(find_inputs(inputs))
    progress: list[tuple[int, int]] = []
    out = list(run_tasks(names, input_tasks(found), jobs=jobs, inputs=len(found),
                         name=task_name, ends=task_ends,
                         progress=lambda done, total: progress.append((done, total))))
    assert [result for _, result in out] == [task_name(task) for task, _ in out]
    assert [task_name(task) for task, _ in out] == [
        inputs[0], f"{inputs[1]}:x.sgf", f"{inputs[1]}:y.sgf", None, inputs[3]]
    assert progress == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_a_task_that_kills_every_worker_is_an_error_at_its_file(tmp_path: Path) -> None:
    for name in ("a.sgf", "b-killer.sgf", "c.sgf"):
        (tmp_path / name).write_bytes(GAME)
    found = list(find_inputs([str(tmp_path)]))
    notes: list[str] = []
    out = list(run_tasks(names, input_tasks(found), jobs=2, inputs=len(found),
                         name=task_name, on_death=notes.append))
    assert [r for _, r in out][0::2] == [str(tmp_path / "a.sgf"), str(tmp_path / "c.sgf")]
    died = out[1][1]
    assert isinstance(died, WorkerDied) and died.file == str(tmp_path / "b-killer.sgf")
    assert str(died).startswith(f"{tmp_path / 'b-killer.sgf'}: worker process died")
    assert len(notes) == 1 and notes[0].startswith("a worker process died")
    assert isinstance(out[1][0][0], Input)
