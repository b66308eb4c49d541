"""What the worker-pool tests run in worker processes or a process of their own:
a task whose worker is killed while it sends a large result; a lock another
thread holds while workers start."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

from gohash.pipeline.pool import ordered_map

HELD = threading.Lock()
"""Held by a thread of the test's process while worker processes start, as
SQLite's allocator mutex is by a thread of the server at any instant."""


def held_lock_is_free() -> bool:
    """In a worker: whether it can take :data:`HELD` (a forked copy of a held
    lock stays held: no thread of the child will release it)."""
    free = HELD.acquire(timeout=1.0)
    if free:
        HELD.release()
    return free


def kill_while_sending(folder: str) -> None:
    """Run by :func:`test_a_worker_killed_while_sending_a_large_result`: the
    kill of task 1 at every 5 ms of its life (about 0.1 s)."""
    for step in range(25):
        tasks = [(n, os.path.join(folder, str(step)), step * 0.005 if n == 1 else -1.0)
                 for n in range(4)]
        os.mkdir(tasks[0][1])
        out = list(ordered_map(large, tasks, jobs=2, expected=len(tasks)))
        assert [task for task, _ in out] == tasks
        assert [outcome for _, outcome in out] == [large((n, "", -1)) for n in range(4)]
    print("done")


def large(task: tuple[int, str, float]) -> bytes:
    """30 MB for task 1, a few bytes for the others; the first time, a timer
    SIGKILLs the worker ``delay`` seconds after the task starts: while it makes,
    writes or sends the result, or later."""
    n, folder, delay = task
    marker = Path(folder) / str(n)
    if delay >= 0 and not marker.exists():
        marker.touch()
        timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGKILL))
        timer.daemon = True
        timer.start()
    return bytes([n]) * (30_000_000 if n == 1 else 10)
