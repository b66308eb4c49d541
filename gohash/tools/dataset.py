"""``gohash canon --format parquet``: the input in partitions, each written as its own part,
in this process, in worker processes or on a Dask cluster.

Scope: :func:`partitions` (the deterministic split of the input) and
:func:`write_dataset` (the run: the dataset's marker, the partitions' tasks, their
errors and notes in partition order, the summary).  A task is
:func:`gohash.tools.parquet.write_part`; this module hands tasks out, and writes
each partition's ``games`` and ``files`` parts as it reports the partition
(:func:`gohash.tools.parquet.write_files`), when the files before it are known:
``file_id`` numbers the files of the whole input from 0, however the tasks ran.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

import fsspec

from ..errors import GohashError, OutputExistsError, SgfError, WorkerDied
from ..group.schemes import scheme as get_scheme
from ..index.parquet import DATASET_FORMAT, DATASET_MARKER, DATASET_VERSION, dataset_info
from ..pipeline.cluster import dask_client, distributed, heap_as_usual
from ..pipeline.jobs import input_tasks, run_tasks
from ..pipeline.pool import each
from ..sgf.inputs import Input, Source
from ..sgf.pack import PackedSlice, is_pack, slices
from ..sgf.sources import find_inputs
from ..sgf.walk import WalkSummary
from .canon import CanonOptions
from .outputs import REPLACE_HINT, check_not_input
from .parquet import TABLES, Item, Part, PartResult, write_files, write_part

__all__ = ["PARTITION_BYTES", "partitions", "write_dataset"]

PARTITION_BYTES = 8 * 1024 * 1024
"""Bytes of input per partition by default: some 4,000 games, a few seconds' work."""
# Items per partition, at most: a task's message and its file listing stay small.
_MAX_ITEMS = 10_000


def partitions(paths: Iterable[str], partition_bytes: int = PARTITION_BYTES) -> list[Part]:
    """The partitions of the inputs ``paths`` (see the module docstring)."""
    if partition_bytes < 1:
        raise GohashError(f"partition size must be at least 1 byte, not {partition_bytes!r}")
    parts: list[Part] = []
    items: list[Item] = []
    size = 0
    for item, weight in _weighed(paths, partition_bytes):
        if items and (size + weight > partition_bytes or len(items) >= _MAX_ITEMS):
            parts.append(Part(len(parts), tuple(items)))
            items, size = [], 0
        items.append(item)
        size += weight
    if items:
        parts.append(Part(len(parts), tuple(items)))
    return parts


def _weighed(paths: Iterable[str], partition_bytes: int) -> Iterator[tuple[Item, int]]:
    for work, _ in input_tasks(find_inputs(paths), archives=False):
        if isinstance(work, Input) and work.kind == "packed" and os.path.isfile(work.name):
            try:
                yield from ((piece, piece.bytes) for piece in slices(work.name, partition_bytes))
            except GohashError as e:
                yield SgfError(e.reason, file=e.file or work.name), 0
        elif isinstance(work, Input):
            yield work, _size(work.name)
        elif work is not None:
            yield work, len(work.data) if isinstance(work, Source) else 0


def _size(path: str) -> int:
    """The bytes of a regular file, 0 for anything else (one system call)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return 0
    return info.st_size if stat.S_ISREG(info.st_mode) else 0


def write_dataset(
    paths: Iterable[str],
    out: str,
    options: CanonOptions | None = None,
    *,
    partition_bytes: int = PARTITION_BYTES,
    jobs: int = 1,
    dask: str | None = None,
    overwrite: bool = False,
    on_error: Callable[[GohashError], object] | None = None,
    on_note: Callable[[str], object] | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> WalkSummary:
    """Write the canon dataset of ``paths`` at ``out`` (a folder or fsspec URL, missing or
    empty).  An earlier canon dataset there is refused
    (:class:`~gohash.errors.OutputExistsError`, before any input is read) unless
    ``overwrite``, which replaces it; any other folder that is not empty (a packed
    dataset, one of the inputs, files gohash did not write) is refused even then.

    Partitions are written in this process, in ``jobs`` worker processes, or on the
    Dask cluster ``dask`` (see the module docstring).  Errors and notes go to
    ``on_error`` and ``on_note`` in partition order; ``progress(done, total)`` is
    called as partitions finish.  Returns the summary of the whole run.
    """
    options = options or CanonOptions()
    if "://" not in out:
        out = os.path.abspath(out)
    paths = list(paths)
    _check_output(out, paths, overwrite)
    parts = partitions(paths, partition_bytes)
    _begin(out, options, partition_bytes, len(parts))
    total = WalkSummary()
    failed: list[int] = []
    finished: dict[int, PartResult] = {}
    reported = 0
    first_file = 0  # the files of the partitions reported

    def finish(part: Part, outcome: PartResult | BaseException) -> None:
        nonlocal reported, first_file
        if isinstance(outcome, BaseException):
            failed.append(part.number)
            outcome = PartResult(part.number, errors=[_failure(part, outcome)])
        finished[part.number] = outcome
        if progress is not None:
            progress(len(finished), len(parts))
        while reported in finished:  # errors, notes and file numbers in partition order
            result = finished.pop(reported)
            if result.tables:
                try:
                    first_file += write_files(result, out, first_file)
                except OSError as e:
                    failed.append(result.number)
                    result.errors.append(_failure(parts[result.number], e))
            total.add(WalkSummary(result.files, result.games, result.positions,
                                  result.errors, result.notes))
            for error in result.errors:
                if on_error is not None:
                    on_error(error)
            for note in result.notes:
                if on_note is not None:
                    on_note(note)
            reported += 1

    if dask is not None:
        _run_dask(dask, parts, out, options, finish, paths_relative=_relative(parts))
    else:
        run = partial(each, partial(write_part, root=out, options=options))
        for part, outcome in run_tasks(run, parts, jobs=jobs, inputs=len(parts), chunk=1,
                                       name=_names):
            finish(part, outcome)
    _end(out, options, partition_bytes, len(parts), total, sorted(failed))
    return total


def _names(part: Part) -> str:
    """The inputs of a partition, for an error that concerns all of them."""
    names = [_name(item) for item in part.items]
    listed = names[0] if len(names) == 1 else f"{names[0]} ... {names[-1]} ({len(names)} inputs)"
    return f"partition {part.number} ({listed})"


def _name(item: Item) -> str:
    if isinstance(item, SgfError):
        return item.file or "?"
    return item.path if isinstance(item, PackedSlice) else item.name


def _failure(part: Part, error: BaseException) -> GohashError:
    reason = error.reason if isinstance(error, WorkerDied) else str(error) or type(error).__name__
    return GohashError(f"the partition's task failed: {reason}", file=_names(part))


def _relative(parts: list[Part]) -> bool:
    """Whether a task would open a file by a relative name."""
    return any(not os.path.isabs(_name(item)) for part in parts for item in part.items
               if isinstance(item, Input | PackedSlice))


# -- the marker --------------------------------------------------------------------------------


def _info(options: CanonOptions, partition_bytes: int, count: int) -> dict[str, Any]:
    return {
        "format": DATASET_FORMAT, "version": DATASET_VERSION, "complete": False,
        "scheme": options.scheme, "bits": get_scheme(options.scheme, 19).bits,
        "group": options.symmetry, "variations": options.variations,
        "position": options.position, "suicide_allowed": options.suicide_allowed,
        "partition_bytes": partition_bytes, "partitions": count,
        "tables": {table: f"{table}/part-*.parquet" for table in TABLES},
    }


def _write_marker(out: str, info: dict[str, Any]) -> None:
    fs, path = fsspec.core.url_to_fs(out)
    with fs.open(f"{path}/{DATASET_MARKER}", "w") as f:
        json.dump(info, f, indent=1)


def _check_output(out: str, paths: list[str], overwrite: bool) -> None:
    """Refuse ``out`` unless it is missing, an empty folder, or (with ``overwrite``) an
    earlier canon dataset that holds none of ``paths``."""
    check_not_input(out, paths)
    fs, path = fsspec.core.url_to_fs(out)
    if not fs.exists(path):
        return
    if not fs.isdir(path):
        raise OutputExistsError("exists and is not a folder; give a new or empty folder",
                                file=out)
    info = dataset_info(out)
    if info is None:
        if not fs.ls(path):
            return
        kind = "a packed dataset (gohash pack)" if "://" not in out and is_pack(out) else (
            "files gohash did not write")
        raise OutputExistsError(f"a folder holding {kind}, not a canon dataset; "
                                "give a new or empty folder", file=out)
    if not overwrite:
        written = [str(info.get("scheme"))]
        written.append("with --position" if info.get("position") else "without --position")
        if info.get("variations"):
            written.append("--variations")
        if info.get("group") not in (None, "full"):
            written.append(f"--symmetry {info.get('group')}")
        raise OutputExistsError(f"holds a canon dataset ({', '.join(written)}); "
                                f"{REPLACE_HINT}", file=out)


def _begin(out: str, options: CanonOptions, partition_bytes: int, count: int) -> None:
    """Make ``out`` an empty dataset, removing the parts of an earlier one there
    (:func:`_check_output` has allowed it)."""
    fs, path = fsspec.core.url_to_fs(out)
    if fs.exists(path):
        for table in TABLES:
            if fs.exists(f"{path}/{table}"):
                fs.rm(f"{path}/{table}", recursive=True)
    for table in TABLES:
        fs.makedirs(f"{path}/{table}", exist_ok=True)
    _write_marker(out, _info(options, partition_bytes, count))


def _end(out: str, options: CanonOptions, partition_bytes: int, count: int,
         total: WalkSummary, failed: list[int]) -> None:
    """Remove what killed tasks left behind; mark the dataset complete."""
    fs, path = fsspec.core.url_to_fs(out)
    for table in TABLES:
        for name in fs.glob(f"{path}/{table}/.part-*.tmp"):
            fs.rm(name)
    info = _info(options, partition_bytes, count)
    info |= {"complete": not failed, "failed": failed, "files": total.files,
             "games": total.games, "positions": total.positions, "errors": len(total.errors)}
    _write_marker(out, info)


# -- Dask ------------------------------------------------------------------------------------


def _run_dask(address: str, parts: list[Part], out: str, options: CanonOptions,
              finish: Callable[[Part, PartResult | BaseException], None],
              paths_relative: bool) -> None:
    """Every partition as one Dask task; ``finish`` is called as each completes."""
    dist = distributed()
    with dask_client(address, paths_relative=paths_relative) as client:
        token = f"{os.getpid()}-{time.monotonic_ns()}"
        # The keys are ours, so pure=False: a pure map also hashes every item of
        # every partition for a token it does not use, CPU time of this process
        # taken from the workers on a small machine.
        futures = client.map(
            _dask_task, parts, root=out, options=options, pure=False,
            key=[f"gohash-part-{part.number:05d}-{token}" for part in parts],
        )
        by_key = {future.key: part for future, part in zip(futures, parts, strict=True)}
        for future in dist.as_completed(futures):
            part = by_key[future.key]
            try:
                outcome: PartResult | BaseException = future.result()
            except Exception as e:
                outcome = e
            future.release()
            finish(part, outcome)


def _dask_task(part: Part, root: str, options: CanonOptions) -> PartResult:
    """:func:`~gohash.tools.parquet.write_part` in a Dask worker, with the C heap as a
    process of its own has it."""
    heap_as_usual()
    return write_part(part, root, options)
