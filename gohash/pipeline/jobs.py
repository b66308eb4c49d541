"""The job driver of the batch commands: inputs, tasks, a run here or in workers.

Scope: the one policy of ``gohash canon`` (both outputs, the Dask path's
partitions too), ``superko``, ``audit`` and ``index build`` for what a task is
and who reads it (:func:`input_tasks`), and :func:`run_tasks`, which runs tasks
in this process or in worker processes (:func:`gohash.pipeline.pool.ordered_map`),
in input order either way:

- standard input is read once, here, whole, within the limits of
  :func:`~gohash.sgf.sources.read_input`, and its sources go to workers as bytes
  (a worker has no standard input of ours);
- an archive (zip, tar) is read here member by member within the same limits
  (each member's size, the archive's budget): each member is a task, so one
  archive is spread over the workers (tasks planned in full before any runs
  take it whole: a canon dataset's partitions, an index build's inputs);
- anything else goes as its name (:class:`~gohash.sgf.inputs.Input`): the task reads it;
- progress counts inputs, each once its last task is done;
- a task whose worker died on it, and again alone, is a
  :class:`~gohash.errors.WorkerDied` naming its file: an error (the command
  ends with exit 2), and the run goes on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from ..errors import GohashError, SgfError, WorkerDied
from ..sgf.inputs import Input, Skipped, Source
from ..sgf.sources import read_input
from .pool import MAX_TASKS_PER_BATCH, batches, ordered_map

__all__ = [
    "READ_HERE",
    "UNBOUNDED",
    "Task",
    "Work",
    "input_tasks",
    "run_tasks",
    "task_ends",
    "task_name",
]

T = TypeVar("T")
R = TypeVar("R")

UNBOUNDED = sys.maxsize
"""A ``chunk`` of :func:`run_tasks` that only ``weight`` bounds."""
READ_HERE = ("stdin", "zip", "tar")
"""The kinds of input read in this process, source by source (see the module docstring)."""

Work = Input | Source | SgfError | Skipped | None
"""What a task reads: an input by name, or what this process read of one (a
source, an error met reading it, a note that it was not read, or nothing: an
empty archive)."""
Task = tuple[Work, bool]
"""A task of :func:`input_tasks`: its work, and whether it is its input's last."""


def input_tasks(inputs: Iterable[Input], *, archives: bool = True) -> Iterator[Task]:
    """The tasks of ``inputs``, lazily, each with whether it ends its input; an
    input read here that gives nothing (an empty archive) is one task of
    nothing, so that every input ends once.  ``archives=False`` sends an
    archive by name, for tasks planned in full before any runs (a canon
    dataset's partitions, an index build's inputs), which would otherwise
    hold every member's bytes."""
    for inp in inputs:
        if inp.kind not in READ_HERE or (not archives and inp.kind != "stdin"):
            yield inp, True
            continue
        previous: Work = None
        for source in read_input(inp):
            if previous is not None:
                yield previous, False
            previous = source
        yield previous, True


def task_name(task: tuple[Work | GohashError, object]) -> str | None:
    """The file a task concerns, as errors name it: a task of :func:`input_tasks`,
    or any pair whose first item is what it reads."""
    work = task[0]
    if isinstance(work, GohashError):
        return work.file
    return None if work is None else work.name


def task_ends(task: Task) -> bool:
    """Whether a task of :func:`input_tasks` is its input's last."""
    return task[1]


def run_tasks(
    function: Callable[[list[T]], list[R]],
    tasks: Iterable[T],
    *,
    jobs: int,
    inputs: int,
    here: Callable[[list[T]], list[R]] | None = None,
    chunk: int = MAX_TASKS_PER_BATCH,
    weight: Callable[[T], int] | None = None,
    name: Callable[[T], str | None],
    ends: Callable[[T], bool] | None = None,
    progress: Callable[[int, int], object] | None = None,
    on_death: Callable[[str], object] | None = None,
) -> Iterator[tuple[T, R | WorkerDied]]:
    """``(task, result)`` for every task, in the order of ``tasks``, exactly once.

    ``function`` takes a list of consecutive tasks and returns their results
    (:func:`~gohash.pipeline.pool.each` makes one of a function of a task).
    With ``jobs`` <= 1 it runs here on lists of up to ``chunk`` tasks
    (``here``, if given, instead: a function that may write as it goes); else
    in ``jobs`` worker processes, so it and the tasks must be picklable.
    ``weight`` gives the bytes a task carries from this process; a list stops
    growing at
    :data:`~gohash.pipeline.pool.MAX_BATCH_BYTES` of them.  ``inputs`` counts
    the inputs: ``progress(done, inputs)`` is called as the caller is done
    with each input's last task, which ``ends`` tells (:func:`task_ends`;
    None: every task is an input).  A worker's death is a note for
    ``on_death``; a task that kills its worker twice gets a
    :class:`WorkerDied` located at ``name(task)`` (:func:`task_name`) instead
    of a result.
    """
    results: Iterable[tuple[T, R | WorkerDied]]
    if jobs <= 1:
        results = (
            pair
            for tasks_here in batches(tasks, chunk, weight)
            for pair in zip(tasks_here, (here or function)(tasks_here), strict=True)
        )
    else:
        pooled = ordered_map(function, tasks, jobs=jobs, expected=inputs, weight=weight,
                             on_death=on_death, batched=True)
        results = pooled
    done = 0
    for task, result in results:
        if isinstance(result, WorkerDied):
            result.located(file=name(task))
        yield task, result
        if ends is None or ends(task):
            done += 1
            if progress is not None:
                progress(done, inputs)
