"""Where a command writes: earlier output is never replaced silently.

Scope: the checks made before writing anything (``canon -o FILE``, the Parquet
dataset of ``canon``, ``pack``'s dataset; the index of ``index build`` is
checked in :func:`gohash.index.store.build_index`).  An output that already holds
something is refused with :class:`~gohash.errors.OutputExistsError` unless the
caller passes ``overwrite=True`` (``--overwrite``); an output that is one of
the inputs, or holds one, is refused even then.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from ..errors import OutputExistsError

__all__ = ["REPLACE_HINT", "check_file", "check_not_input"]

REPLACE_HINT = "--overwrite replaces it, or give another output"
"""How a refusal ends: the two ways on."""


def check_file(path: str, inputs: Iterable[str], overwrite: bool) -> None:
    """Refuse to write records to ``path`` over earlier output: a regular file that
    is not empty, unless ``overwrite``; one of ``inputs``, always.  A missing or
    empty file, a device or a pipe (``/dev/stdout``) is written as it is."""
    check_not_input(path, inputs)
    try:
        info = os.stat(path)
    except OSError:
        return
    if stat.S_ISREG(info.st_mode) and info.st_size > 0 and not overwrite:
        raise OutputExistsError(f"holds earlier output; {REPLACE_HINT}", file=path)


def check_not_input(path: str, inputs: Iterable[str]) -> None:
    """Refuse the output ``path`` (a file or folder) if it is one of ``inputs`` or a
    folder holding one: writing it would replace what is being read.  URLs and
    standard input are not checked."""
    if "://" in path or not os.path.exists(path):
        return
    out = os.path.realpath(path)
    for name in inputs:
        if name == "-" or "://" in name or not os.path.exists(name):
            continue
        source = os.path.realpath(name)
        if source == out or (os.path.isdir(out) and source.startswith(out + os.sep)):
            raise OutputExistsError(f"is also the input {name!r}; give another output",
                                    file=path)
