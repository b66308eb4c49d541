"""Where a command writes: earlier output is never replaced silently.

Scope: the checks made before writing anything (``canon -o FILE``, the Parquet
dataset of ``canon``, ``pack``'s dataset; the index of ``index build`` is
checked in :func:`gohash.index.store.build_index`).  An output that already holds
something is refused with :class:`~gohash.errors.OutputExistsError` unless the
caller passes ``overwrite=True`` (``--overwrite``); an output that is one of
the inputs (the same file under any name), or holds one, is refused even then.
:func:`open_records` opens ``-o FILE`` without waiting on a pipe that no
process reads.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from typing import TextIO

from ..errors import GohashError, OutputExistsError
from ..sgf.inputs import special_file

__all__ = ["REPLACE_HINT", "check_file", "check_not_input", "open_records"]

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
    folder holding one: writing it would replace what is being read.  One file is
    known by its device and inode, so a hard link (another name of the same file)
    or a symbolic link is refused as the file itself.  URLs and standard input
    are not checked."""
    if "://" in path:
        return
    try:
        out_info = os.stat(path)
    except (OSError, ValueError):
        return
    out = os.path.realpath(path)
    for name in inputs:
        if name == "-" or "://" in name:
            continue
        try:
            info = os.stat(name)
        except (OSError, ValueError):
            continue
        source = os.path.realpath(name)
        if (info.st_dev, info.st_ino) == (out_info.st_dev, out_info.st_ino) or (
                stat.S_ISDIR(out_info.st_mode) and source.startswith(out + os.sep)):
            raise OutputExistsError(f"is also the input {name!r}; give another output",
                                    file=path)


def open_records(path: str) -> TextIO:
    """``path`` opened to write text records: a file (created or truncated), a
    device (``/dev/null``) or a pipe (``/dev/stdout``) that a process reads.  A
    named pipe that no process reads, or a socket, is an error, at once: opening
    one to write would wait for a reader for ever, or fail."""
    try:
        # Not blocking while opening: a pipe without a reader fails (ENXIO) at once.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NONBLOCK, 0o666)
    except OSError as e:
        what = special_file(path) if e.errno == errno.ENXIO else None
        if what is not None:
            unread = " that no process reads" if what == _FIFO else ""
            raise GohashError(f"cannot write {path!r}: {what}{unread}") from None
        raise GohashError(f"cannot write {path!r}: {e.strerror}") from None
    if _NONBLOCK:
        os.set_blocking(fd, True)
    return open(fd, "w", encoding="utf-8", newline="")


_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_FIFO = "a named pipe (FIFO)"
