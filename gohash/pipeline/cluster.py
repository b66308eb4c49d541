"""A Dask client for ``--dask ADDRESS``: a scheduler's address, or ``local:N``.

Scope: :func:`dask_client`, which the Dask runs of ``canon`` (:mod:`gohash.tools.dataset`)
and of a sharded index (:mod:`gohash.index.shards`) open their client with, and
:func:`distributed`, the module, or an error saying which extra installs it;
:func:`heap_as_usual`, which a task calls first in a worker.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import importlib
import logging
import os
import sys
from collections.abc import Iterator
from functools import cache
from typing import Any

from ..errors import GohashError

__all__ = ["dask_client", "distributed", "heap_as_usual"]


def distributed() -> Any:
    """``dask.distributed``, as a module of Any (its API is not fully typed)."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise GohashError("--dask needs dask.distributed: pip install 'gohash[dask]'") from None


@contextlib.contextmanager
def dask_client(address: str, *, paths_relative: bool = False) -> Iterator[Any]:
    """A client of the scheduler ``address`` (``tcp://HOST:PORT``), or of a local
    cluster of N one-thread worker processes for ``local:N``, closed (with that
    cluster) on leaving.  ``paths_relative``: the work names relative paths,
    so every worker must run in this folder (checked)."""
    dist = distributed()
    # Closed on leaving, not entered as context managers: a client entered is
    # the "current" client of the context it was entered in, and a server
    # closes it in another (its lifespan's).
    with contextlib.ExitStack() as stack:
        if address.startswith("local:"):
            count = address[len("local:"):]
            if not count.isdigit() or int(count) < 1:
                raise GohashError(f"--dask local:N needs a number of workers N >= 1, "
                                  f"not {address!r}")
            # Dask's own log lines are silenced below CRITICAL: a task's failure
            # reaches the caller as its exception, and a worker's heartbeat that
            # meets the scheduler closing under load printed a traceback at the
            # end of a run that had succeeded.
            cluster = dist.LocalCluster(n_workers=int(count), threads_per_worker=1,
                                        processes=True, dashboard_address=None,
                                        silence_logs=logging.CRITICAL)
            stack.callback(cluster.close)
            client = dist.Client(cluster)
        else:
            try:
                client = dist.Client(address, timeout="20s")
            except (OSError, TimeoutError, ValueError) as e:
                raise GohashError(f"cannot reach the Dask scheduler {address!r}: {e}") from None
        stack.callback(client.close)
        if paths_relative and not address.startswith("local:"):
            _check_folders(client)
        yield client


def _check_folders(client: Any) -> None:
    here = os.getcwd()
    folders: dict[str, str] = client.run(os.getcwd)
    elsewhere = sorted(worker for worker, folder in folders.items() if folder != here)
    if elsewhere:
        raise GohashError(
            f"Dask worker {elsewhere[0]} runs in {folders[elsewhere[0]]!r}, not in {here!r}, "
            "and the inputs are relative paths: give absolute paths, or start the "
            "workers in this folder"
        )


# glibc's mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


@cache
def heap_as_usual() -> None:
    """Undo, once per worker process, what a Dask nanny's MALLOC_TRIM_THRESHOLD_=65536
    does: it also fixes glibc's mmap threshold at 128 KiB, so every column of a
    batch is fresh pages from the kernel, and a task ran 35-45% slower than in a
    process of its own (``benchmarks/dask_cluster.py``).  Blocks up to 32 MiB
    come from the heap again; free heap beyond 64 MiB still goes back to the
    system."""
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ or not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 64 << 20)
    except (OSError, AttributeError):  # not glibc: nothing to undo
        pass
