"""Canonical keys for every position of an SGF collection (``gohash canon``).

Scope: the records of ``gohash canon`` and how they are made.
:func:`records` formats the columns of :func:`gohash.pipeline.positions.read_positions` (a
compiled core, the pure walker where it refuses a file) as JSON Lines or CSV
lines; :func:`write_records` runs it over files, folders and archives, in this process
or in worker processes (output in input order either way).  The CLI only
parses arguments and prints.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, partial
from typing import IO

import numpy as np
import numpy.typing as npt

from .._deprecated import deprecated, renamed
from ..errors import GohashError, SgfError, WorkerDied, name_text
from ..group.coords import gtp, sgf_letters
from ..group.schemes import DEFAULT_SCHEME
from ..group.schemes import scheme as get_scheme
from ..group.symmetry import ELEMENTS, elements_of
from ..pipeline.jobs import Task, input_tasks, run_tasks, task_ends, task_name
from ..pipeline.pool import MAX_TASKS_PER_BATCH, SpoolFiles, scratch_folder
from ..pipeline.positions import PositionBatch, read_positions
from ..sgf.inputs import Input, Skipped, Source
from ..sgf.sources import find_inputs, read_input
from ..sgf.walk import WalkSummary

__all__ = ["FIELDS", "FORMATS", "CanonOptions", "records", "write_records"]

FIELDS = (
    "file",
    "game",
    "variation",
    "move_number",
    "colour",
    "move",
    "gtp",
    "hash",
    "key",
    "transform",
    "symmetries",
)
"""The fields of a record without ``position``, in order."""
FORMATS = ("jsonl", "csv", "parquet")
"""Output formats; ``parquet``, a dataset folder, is
:func:`gohash.tools.dataset.write_dataset`'s."""

# Positions per batch of read_positions(): numpy's per-call costs spread thin (larger
# batches are no faster), the lines of a batch and their pieces (about 1 KB a
# position) small, which bounds peak memory (benchmarks/canon.py measures it).
_BATCH = 1 << 13
# Tasks (files, archive members) per run of read_positions() in this process (--jobs 1).
_TASKS = 4 * MAX_TASKS_PER_BATCH


@dataclass(frozen=True, init=False)
class CanonOptions:
    """What ``gohash canon`` computes: key scheme (default regular128, whose
    canonical keys merge no distinct positions of the test corpus; huima64 is
    the paper's, see docs/schemes.md), symmetry (the group of the canonical keys:
    ``"full"``, ``"d4"``; ``group`` its deprecated name), variations, format,
    whether suicide is allowed in every game (None: as each game's ``RU`` says),
    and whether records hold the exact canonical ``position``."""

    scheme: str
    symmetry: str
    variations: bool
    format: str
    suicide_allowed: bool | None
    position: bool

    def __init__(
        self, scheme: str = DEFAULT_SCHEME, symmetry: str = "full", variations: bool = False,
        format: str = "jsonl", suicide_allowed: bool | None = None, position: bool = False,
        *, group: str | None = None,
    ) -> None:
        symmetry = renamed(symmetry, group, "group", "symmetry", "CanonOptions")
        for name, value in (("scheme", scheme), ("symmetry", symmetry),
                            ("variations", variations), ("format", format),
                            ("suicide_allowed", suicide_allowed), ("position", position)):
            object.__setattr__(self, name, value)  # frozen
        elements_of(self.symmetry)  # raises UnknownElementError for a bad group
        get_scheme(self.scheme, 19)  # raises UnknownSchemeError for a bad name
        if self.format not in FORMATS:
            raise GohashError(f"unknown format {self.format!r}; expected jsonl, csv or parquet")

    @property
    def group(self) -> str:
        """The deprecated name of :attr:`symmetry`."""
        deprecated("CanonOptions.group", "CanonOptions.symmetry", "CanonOptions")
        return self.symmetry

    @property
    def fields(self) -> tuple[str, ...]:
        """The fields of a record, in order."""
        return (*FIELDS, "position") if self.position else FIELDS

    @property
    def csv_header(self) -> str:
        return ",".join(self.fields) + "\r\n"


# -- lines from columns ---------------------------------------------------------------------


def records(
    batch: PositionBatch, options: CanonOptions, start: int = 0, stop: int | None = None
) -> list[str]:
    """The records of rows ``start:stop`` (all by default) of a batch of
    :func:`gohash.pipeline.positions.read_positions`, one line each (line end included),
    formatted as ``options`` says.  The batch is made with the options' group,
    and with ``frames=True`` if they ask for ``position``."""
    stop = len(batch) if stop is None else min(stop, len(batch))
    count = stop - start
    if count <= 0:
        return []
    as_csv = options.format == "csv"
    rows = slice(start, stop)
    # The line up to the move number, once per run of rows of one game and variation.
    file, game, variation = batch.file[rows], batch.game[rows], batch.variation[rows]
    starts = np.flatnonzero(np.diff(file) | np.diff(game) | np.diff(variation)) + 1
    starts = np.concatenate([np.zeros(1, dtype=np.intp), starts])
    runs = variation[starts].tolist()
    # The paths of these rows only: a batch's list holds every variation of its
    # games, and a game of many variations is written a slice at a time.
    paths = {v: _variation(as_csv, batch.variations[v]) for v in set(runs)}
    leads = [
        _lead(as_csv, batch.files[f], g, paths[v])
        for f, g, v in zip(file[starts].tolist(), game[starts].tolist(), runs, strict=True)
    ]
    lead = np.repeat(np.array(leads, dtype=object), np.diff(starts, append=count)).tolist()
    move = _moves(as_csv, batch.size[rows], batch.colour[rows], batch.point[rows]).tolist()
    middle = _middle(as_csv, batch.hash[rows], batch.canonical[rows])
    tail = _tails(as_csv, options.position, batch.transform[rows], batch.symmetries[rows])
    number = batch.move_number[rows].tolist()
    if not options.position:
        return [
            f"{le}{nu},{mo}{mi}{ta}"
            for le, nu, mo, mi, ta in zip(lead, number, move, middle, tail, strict=True)
        ]
    if batch.frame_offsets is None or batch.frame_data is None:
        raise GohashError("records with position need a batch with frames (frames=True)")
    offsets = batch.frame_offsets[start : stop + 1]
    frames = batch.frame_data[offsets[0] : offsets[-1]].tobytes().hex()
    bounds = (2 * (offsets - offsets[0])).tolist()
    end = "\r\n" if as_csv else '"}\n'
    return [
        f"{le}{nu},{mo}{mi}{ta}{frames[a:b]}{end}"
        for le, nu, mo, mi, ta, a, b in zip(
            lead, number, move, middle, tail, bounds[:-1], bounds[1:], strict=True
        )
    ]


def _lead(as_csv: bool, file: str, game: int, variation: str) -> str:
    """The line up to the move number."""
    file = name_text(file)
    if as_csv:
        # The csv module quotes a field holding a line break only if the line
        # terminator holds it: the terminator is written, then cut.
        out = io.StringIO()
        csv.writer(out, lineterminator="\r\n").writerow([file])
        return f"{out.getvalue()[:-2]},{game},{variation},"
    return f'{{"file":{json.dumps(file)},"game":{game},"variation":{variation},"move_number":'


def _variation(as_csv: bool, path: tuple[int, ...]) -> str:
    return " ".join(map(str, path)) if as_csv else json.dumps(list(path))


@cache
def _move_texts(as_csv: bool, size: int) -> list[str]:
    """The line from the colour to the hash's ``0x`` after a move of either colour
    (black then white) at each point, a pass first: ``2 * (size * size + 1)`` texts."""
    texts = []
    for colour in "bw":
        for index in range(-1, size * size):
            if index < 0:
                move, name = "", "pass"
            else:
                point = divmod(index, size)
                move, name = sgf_letters(point, size), gtp(point, size)
            texts.append(f"{colour},{move},{name},0x" if as_csv else
                         f'"colour":"{colour}","move":"{move}","gtp":"{name}","hash":"0x')
    return texts


def _moves(
    as_csv: bool, sizes: npt.NDArray[np.uint8], colours: npt.NDArray[np.int8],
    points: npt.NDArray[np.int16],
) -> npt.NDArray[np.object_]:
    """The move text of every row: one table of every size present, indexed by numpy."""
    table = [",,,0x" if as_csv else '"colour":null,"move":null,"gtp":null,"hash":"0x']
    base = np.zeros(27, dtype=np.int64)
    for size in np.unique(sizes).tolist():
        base[size] = len(table)
        table += _move_texts(as_csv, size)
    size = sizes.astype(np.int64)
    colour = colours.astype(np.int64)
    index = base[size] + (colour - 1) * (size * size + 1) + points + 1
    texts: npt.NDArray[np.object_] = np.array(table, dtype=object)[np.where(colour, index, 0)]
    return texts


def _tails(
    as_csv: bool, position: bool, transforms: npt.NDArray[np.uint8],
    symmetries: npt.NDArray[np.uint16],
) -> list[str]:
    """The transform and symmetries of every row and what follows them; picked by
    transform for rows without a symmetry, made once for each of the others' values."""
    plain = np.array([_tail(as_csv, position, g, 1) for g in range(len(ELEMENTS))], dtype=object)
    tails: list[str] = plain[transforms].tolist()
    symmetric = np.flatnonzero(symmetries != 1)
    for row, g, bits in zip(symmetric.tolist(), transforms[symmetric].tolist(),
                            symmetries[symmetric].tolist(), strict=True):
        tails[row] = _tail(as_csv, position, g, bits)
    return tails


@cache
def _tail(as_csv: bool, position: bool, transform: int, symmetries: int) -> str:
    """The line after the key: the transform and symmetries (a bit mask over
    :data:`~gohash.group.symmetry.ELEMENTS`) columns, then the end of the line or the
    start of the position field."""
    names = [e.name for e in ELEMENTS if symmetries >> e.index & 1]
    name = ELEMENTS[transform].name
    if as_csv:
        return f",{name},{' '.join(names)}" + ("," if position else "\r\n")
    listed = json.dumps(names, separators=(",", ":"))
    end = ',"position":"' if position else "}\n"
    return f'","transform":"{name}","symmetries":{listed}{end}'


# Two hex digits of every byte value, as one uint16 each (in memory order).
_HEX_DIGITS = np.frombuffer(b"".join(b"%02x" % i for i in range(256)), dtype=np.uint16)


def _middle(
    as_csv: bool, hashes: npt.NDArray[np.uint64], keys: npt.NDArray[np.uint64]
) -> list[str]:
    """The hex of each row's hash and key and what lies between them: one block of
    one width per row, made as bytes by numpy for the whole batch and cut."""
    between = np.frombuffer(b",0x" if as_csv else b'","key":"0x', dtype=np.uint8)
    count = len(hashes)
    digits = 2 * hashes[:1].nbytes  # per hash: 16, or 32 for 128 bits
    width = 2 * digits + len(between)
    block = np.empty((count, width), dtype=np.uint8)
    for values, at in ((hashes, 0), (keys, digits + len(between))):
        octets = values.astype(">u8").view(np.uint8).reshape(count, digits // 2)
        block[:, at : at + digits].view(np.uint16)[:] = _HEX_DIGITS[octets]
    block[:, digits : digits + len(between)] = between
    text = block.tobytes().decode("ascii")
    return [text[i : i + width] for i in range(0, len(text), width)]


# -- running over inputs, in this process or in workers ----------------------------------

BytesWriter = Callable[[bytes | memoryview], object]
"""Writes UTF-8 bytes on; a memoryview it is given is valid during the call only."""


class _Texts:
    """The records of each task, in memory, or with ``spool`` (in a worker) in one
    file of that folder for all the tasks of the batch, each task's a range.

    A worker's records go through a file, not back through the pool's pickled
    results: the parent copies each range on as bytes, where results pickled
    cost it a read, an unpickling copy and fresh memory for every record
    (461 MiB for the corpus of the benchmark), and one file per task cost
    thousands of files.
    """

    def __init__(self, tasks: int, spool: str | None) -> None:
        self.spool = spool
        self.parts: list[list[str]] = [[] for _ in range(tasks)]
        self.ranges = [(0, 0)] * tasks
        self.file: IO[bytes] | None = None
        self.path = ""
        self.last = -1  # the last task with records in the file

    def add(self, task: int, text: str) -> None:
        if self.spool is None:
            self.parts[task].append(text)
            return
        if self.file is None:
            fd, self.path = tempfile.mkstemp(dir=self.spool, suffix=".records")
            self.file = open(fd, "wb")  # noqa: SIM115 (closed in result)
        if task < self.last:
            raise AssertionError(f"records of task {task} after those of task {self.last}")
        data = text.encode("utf-8")
        at = self.file.tell()
        begin = self.ranges[task][0] if task == self.last else at
        self.file.write(data)
        self.ranges[task] = (begin, at + len(data))
        self.last = task

    def result(self, task: int) -> bytes | _Spooled:
        """The task's records: UTF-8 bytes (encoded here, in the worker, so the
        parent can pass them on as they are), or where the batch's file holds them."""
        if self.spool is None:
            return "".join(self.parts[task]).encode("utf-8")
        begin, end = self.ranges[task]
        if begin == end:
            return b""
        if self.file is not None:
            self.file.close()
            self.file = None
        return _Spooled(self.path, begin, end - begin, task == self.last)


@dataclass(frozen=True)
class _Spooled:
    """Where a task's records are: ``length`` bytes from ``offset`` of the file
    ``path`` a worker wrote for its batch; ``last`` if no later task of the batch
    has records there, so that the file goes once they are copied."""

    path: str
    offset: int
    length: int
    last: bool


class _SpoolReader(SpoolFiles):
    """Copies the records of spooled tasks on, in task order, a MiB at a time
    through one buffer, as bytes if ``write_bytes`` takes them (no decoding and
    encoding again)."""

    def __init__(self, write: Callable[[str], object], write_bytes: BytesWriter | None) -> None:
        super().__init__()
        self.write, self.write_bytes = write, write_bytes
        self.buffer = memoryview(bytearray(1 << 20))

    def copy(self, spooled: _Spooled) -> None:
        file = self.at(spooled.path, spooled.offset)
        decoder = codecs.getincrementaldecoder("utf-8")()
        left = spooled.length
        while left:
            got = file.readinto(self.buffer[: min(left, len(self.buffer))])
            if not got:
                raise GohashError(f"records of a worker cut short in {spooled.path!r}")
            if self.write_bytes is not None:
                self.write_bytes(self.buffer[:got])
            else:
                self.write(decoder.decode(self.buffer[:got], final=got == left))
            left -= got
        self.done(spooled.path, spooled.last)


# What a worker sends back for one task: the records, then files, games,
# positions, and its messages in input order, file by file: errors as
# (reason, file, game, move_number), notes as text: plain data, all the
# parent prints.
_Message = tuple[str, str | None, int | None, int | None] | str
_Result = tuple[bytes | _Spooled, int, int, int, list[_Message]]


def _canon_tasks(
    tasks: list[Task], options: CanonOptions, write: Callable[[str], object] | None = None,
    spool: str | None = None,
) -> list[_Result]:
    """The results of consecutive tasks, from one run of read_positions() over their
    sources: the records written with ``write`` as they come if given, else
    each task's records written to a file in folder ``spool`` (from a worker
    process: one file can hold millions of records), whose path its result
    gives, or else returned as text."""
    # For each task in order, its read errors and the ids read_positions() gives its
    # sources (a file found in a folder can be an archive of several).
    slots: list[list[SgfError | Skipped | int]] = [[] for _ in tasks]
    owner: list[int] = []

    def sources() -> Iterator[Source]:
        for task, (work, _) in enumerate(tasks):
            items: Iterable[Source | SgfError | Skipped] = (
                read_input(work) if isinstance(work, Input) else [] if work is None else [work]
            )
            for item in items:
                if isinstance(item, SgfError | Skipped):
                    slots[task].append(item)
                else:
                    slots[task].append(len(owner))
                    owner.append(task)
                    yield item

    texts = _Texts(len(tasks), spool)
    counts = [0] * len(tasks)
    games: dict[int, int] = {}
    errors: dict[int, list[GohashError]] = {}
    notes: dict[int, list[str]] = {}
    for batch in read_positions(
        sources(), scheme=options.scheme, variations=options.variations, symmetry=options.symmetry,
        frames=options.position, suicide_allowed=options.suicide_allowed, batch_size=_BATCH,
    ):
        ids = list(batch.files)
        # Batches end between games, in reading order: a file's rows are one run.
        bounds = np.searchsorted(batch.file, [*ids, ids[-1] + 1]).tolist() if ids else []
        for i, file_id in enumerate(ids):
            counts[owner[file_id]] += bounds[i + 1] - bounds[i]
        # Lines are made a few thousand rows at a time: one game alone can hold
        # hundreds of thousands of positions.
        for start in range(0, len(batch), _BATCH):
            stop = min(start + _BATCH, len(batch))
            lines = records(batch, options, start, stop)
            if write is not None:
                write("".join(lines))
                continue
            for i, file_id in enumerate(ids):
                first, last = max(bounds[i], start), min(bounds[i + 1], stop)
                if first < last:
                    texts.add(owner[file_id], "".join(lines[first - start : last - start]))
        for file_id, count in batch.file_games.items():
            games[file_id] = games.get(file_id, 0) + count
        for error, file_id in zip(batch.errors, batch.error_files, strict=True):
            errors.setdefault(file_id, []).append(error)
        for note, file_id in zip(batch.notes, batch.note_files, strict=True):
            notes.setdefault(file_id, []).append(note)
    results = []
    for task, slot in enumerate(slots):
        # A file's errors, then its notes, file by file: a task of many files (a
        # pack, an archive) says them in the order its files would.
        said: list[_Message] = []
        for item in slot:
            if isinstance(item, SgfError):
                said.append((item.reason, item.file, item.game, item.move_number))
            elif isinstance(item, Skipped):
                said.append(str(item))
            else:
                said += [(e.reason, e.file, e.game, e.move_number) for e in errors.get(item, [])]
                said += notes.get(item, [])
        read = [item for item in slot if isinstance(item, int)]
        results.append((
            texts.result(task), len(read), sum(games[item] for item in read), counts[task], said,
        ))
    return results


def _canon_worker(tasks: list[Task], options: CanonOptions) -> list[_Result]:
    """:func:`_canon_tasks` in a worker process: records go through files in the
    pool's scratch folder."""
    return _canon_tasks(tasks, options, spool=scratch_folder())


def _task_bytes(task: Task) -> int:
    """The bytes a task carries to its worker: those of a source read here."""
    return len(task[0].data) if isinstance(task[0], Source) else 0


def _died(died: WorkerDied) -> _Result:
    """The result of a task whose worker died on it: one error naming its file."""
    return b"", 0, 0, 0, [(died.reason, died.file, None, None)]


def write_records(
    paths: Iterable[str],
    write: Callable[[str], object],
    options: CanonOptions | None = None,
    *,
    jobs: int = 1,
    on_error: Callable[[GohashError], object] | None = None,
    on_note: Callable[[str], object] | None = None,
    progress: Callable[[int, int], object] | None = None,
    write_bytes: BytesWriter | None = None,
) -> WalkSummary:
    """Write the records of every position of ``paths`` with ``write``, in input order.

    Files are replayed by :func:`gohash.pipeline.positions.read_positions` many at a time.
    ``jobs`` > 1 processes files (and archive members) in that many worker
    processes (:func:`gohash.pipeline.jobs.run_tasks`: batches of up to 64, one run of
    read_positions() each, memory bounded by a few batches).  If a worker dies, the
    files it and the others had in hand are retried one at a time, with a note;
    a file whose retry kills its worker again is an error.  Errors and notes go to ``on_error``
    and ``on_note`` in input order, after the records of their file;
    ``progress(done, total)`` is called after each input.  ``write_bytes``, if
    given, writes UTF-8 bytes to the same place, after all that ``write`` was
    given: the records of worker processes then pass through as bytes, which
    spares this process decoding and encoding them again (it may be given a
    memoryview, valid during the call only).
    Returns the summary of the whole run.
    """
    options = options or CanonOptions()
    if options.format == "parquet":
        raise GohashError(
            "Parquet is a dataset folder: gohash.tools.dataset.write_dataset writes it"
        )
    inputs = list(find_inputs(paths))
    total = WalkSummary()
    spooled = _SpoolReader(write, write_bytes)

    def finish(result: _Result) -> None:
        text, files, games, positions, messages = result
        if isinstance(text, _Spooled):
            spooled.copy(text)
        elif text and write_bytes is not None:
            write_bytes(text)
        elif text:
            write(text.decode("utf-8"))
        total.files += files
        total.games += games
        total.positions += positions
        for message in messages:
            if isinstance(message, str):
                note(message)
                continue
            reason, file, game, move_number = message
            error = GohashError(reason, file=file, game=game, move_number=move_number)
            total.errors.append(error)
            if on_error is not None:
                on_error(error)

    def note(message: str) -> None:
        total.notes.append(message)
        if on_note is not None:
            on_note(message)

    if options.format == "csv":
        write(options.csv_header)
    results = run_tasks(
        partial(_canon_worker, options=options), input_tasks(inputs), jobs=jobs,
        inputs=len(inputs), here=partial(_canon_tasks, options=options, write=write),
        chunk=_TASKS, weight=_task_bytes, name=task_name, ends=task_ends, progress=progress,
        on_death=note,
    )
    try:
        for _, outcome in results:
            finish(_died(outcome) if isinstance(outcome, WorkerDied) else outcome)
    finally:
        spooled.close()
    return total
