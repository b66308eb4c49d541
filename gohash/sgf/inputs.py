"""What is read and what it yields: an :class:`Input` (a file, archive, dataset
part or stdin, resolved) and its :class:`Source` objects (one SGF file's bytes),
with the limits that bound reading one input (:class:`Budget`, :class:`Meter`).
"""

from __future__ import annotations

import io
import os
import stat
import time
from dataclasses import dataclass
from typing import IO, Any, cast

from ..errors import SgfBudgetError, shown_name

__all__ = [
    "BUDGET_EXPANSION",
    "BUDGET_MIN_BYTES",
    "BUDGET_MIN_SECONDS",
    "BUDGET_SECONDS_PER_MIB",
    "CANON_MARKER",
    "MAX_INPUT_NOTES",
    "MAX_SOURCE_BYTES",
    "PACK_MARKER",
    "Budget",
    "Input",
    "Meter",
    "Skipped",
    "Source",
    "budget_for",
    "special_file",
    "special_kind",
]

MAX_SOURCE_BYTES = 64 * 1024 * 1024
MAX_INPUT_NOTES = 10_000
"""Notes kept from one input's records (a packed part's ``notes`` column): past
this many, one more says the rest were dropped."""
BUDGET_EXPANSION = 100
"""Bytes an input's decompression may produce per byte of the input (SGF text
compresses some 5 to 10 times), beyond :data:`BUDGET_MIN_BYTES`."""
BUDGET_MIN_BYTES = 256 * 1024 * 1024
"""Bytes any input's decompression may produce: four sources at the size limit."""
BUDGET_SECONDS_PER_MIB = 1.0
"""CPU seconds an input's decompression may take per MiB of the input (bzip2,
the slowest, takes about a fifth of that), beyond :data:`BUDGET_MIN_SECONDS`."""
BUDGET_MIN_SECONDS = 30.0
"""CPU seconds any input's decompression may take."""


@dataclass(frozen=True)
class Budget:
    """What reading one input may cost: ``bytes`` its decompression produces
    (archive members read or skipped, a packed part's records), and ``seconds``
    of CPU time spent producing them."""

    bytes: int
    seconds: float


def budget_for(size: int) -> Budget:
    """The budget of an input of ``size`` bytes as stored (compressed): at least
    :data:`BUDGET_MIN_BYTES` and :data:`BUDGET_MIN_SECONDS`, more in proportion
    to ``size``, so a large archive of real records is read whole."""
    return Budget(max(BUDGET_MIN_BYTES, BUDGET_EXPANSION * size),
                  max(BUDGET_MIN_SECONDS, BUDGET_SECONDS_PER_MIB * size / (1024 * 1024)))


_SPECIAL = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def special_kind(mode: int) -> str | None:
    """What a file of ``mode`` is when it is neither a regular file nor a folder
    (``"a named pipe (FIFO)"``, ``"a socket"``, a device): something a read may
    wait on for ever; None for a regular file or a folder."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((what for test, what in _SPECIAL if test(mode)), "not a regular file")


def special_file(path: str) -> str | None:
    """:func:`special_kind` of what ``path`` names (symbolic links followed); None
    if nothing is there.  One system call, which opens nothing."""
    try:
        return special_kind(os.stat(path).st_mode)
    except (OSError, ValueError):
        return None


class Meter:
    """What one input's decompression has produced and cost, against its budget.

    Every decompressed stream of the input is read through :meth:`wrap`, and a
    packed part's records are counted with :meth:`charge`: one count per
    input, whatever its archive members or row groups.  CPU time is the
    reading thread's (:func:`time.thread_time`), spent in the stream's reads:
    gzip, bzip2, xz and zip's inflate, and Parquet's, decompress in the thread
    that asks.
    """

    def __init__(self, name: str, budget: Budget) -> None:
        self.name = name
        self.budget = budget
        self.bytes = 0
        self.seconds = 0.0

    def charge(self, count: int, seconds: float) -> None:
        """Count ``count`` bytes produced in ``seconds``; raises
        :class:`SgfBudgetError` once the budget is spent."""
        self.bytes += count
        self.seconds += seconds
        self.afford(0)
        if self.seconds > self.budget.seconds:
            raise SgfBudgetError(
                "the input took more than its budget of "
                f"{self.budget.seconds:g} CPU seconds to decompress: the rest of it is "
                "not read", file=self.name)

    def afford(self, count: int) -> None:
        """Raise :class:`SgfBudgetError` if ``count`` more bytes would go beyond the
        budget (nothing is counted): what is known to cost at least that much is
        refused before it is produced."""
        if self.bytes + count > self.budget.bytes:
            raise SgfBudgetError(
                "the input expands to more than its budget of "
                f"{self.budget.bytes:,} bytes (decompressed, members read or skipped "
                "counted): the rest of it is not read", file=self.name)

    def wrap(self, stream: IO[bytes] | io.BufferedIOBase) -> IO[bytes]:
        """``stream``, its reads counted."""
        return cast(IO[bytes], _Metered(stream, self))


class _Metered(io.RawIOBase):
    """A decompressed stream whose reads are charged to a :class:`Meter`."""

    def __init__(self, stream: IO[bytes] | io.BufferedIOBase, meter: Meter) -> None:
        super().__init__()
        self._stream = stream
        self._meter = meter

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1, /) -> bytes:
        # Not RawIOBase's read, which would allocate ``size`` bytes up front.
        start = time.thread_time()
        data = self._stream.read(size)
        self._meter.charge(len(data), time.thread_time() - start)
        return data

    def readinto(self, buffer: Any, /) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


@dataclass(frozen=True)
class Input:
    """One thing named on the command line, resolved: a file, an archive or stdin.

    ``kind`` is ``"file"``, ``"zip"``, ``"tar"`` (any compression), ``"special"``
    (a pipe, socket or device found in a folder: not read, see
    :class:`Skipped`; ``format`` says which), ``"refused"`` (one named
    as an input: not opened, an error; ``format`` says which), ``"packed"``
    (a part of a packed dataset), ``"canon-parquet"`` (a canon dataset, which
    only ``gohash index build`` reads),
    ``"compressed"`` (one SGF file, gzip, bzip2 or xz), ``"unsupported"`` (an
    archive or compression gohash does not read), ``"stdin"`` or ``"missing"``;
    ``name`` is the path as given or as found under a given folder; ``format``
    names the compression or archive format found by content, if any.  Inputs
    are small and picklable, so worker processes can be sent them.
    """

    kind: str
    name: str
    format: str = ""


@dataclass(frozen=True)
class Skipped:
    """An input found in a folder and not read, because it is no regular file (a
    pipe, whose reading would block, a socket, a device): a note, not an error.
    ``str()`` gives the note: the name, shown escaped, and ``reason``."""

    name: str
    reason: str

    def __str__(self) -> str:
        return f"{shown_name(self.name)}: {self.reason}"


@dataclass(frozen=True)
class Source:
    """The bytes of one SGF file, the name to report it under, and notes on how it
    was read (text decoded from UTF-16, for one)."""

    name: str
    data: bytes
    notes: tuple[str, ...] = ()


PACK_MARKER = "_gohash_pack.json"
"""The file that makes a folder a packed dataset (:mod:`gohash.sgf.pack`)."""
CANON_MARKER = "_gohash_canon.json"
"""The file that makes a folder a canon dataset (:mod:`gohash.index.parquet`)."""
