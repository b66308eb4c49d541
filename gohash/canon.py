"""Canonical keys for every position of an SGF collection (``gohash canon``).

Scope: the records of ``gohash canon`` and how they are made.
:class:`CanonVisitor` turns each position the walker reaches into one record,
already formatted as a JSON Lines or CSV line; :func:`canon` runs the walk over
files, folders and archives, in this process or in worker processes (output in
input order either way).  The CLI only parses arguments and prints.

Record fields, in order (:data:`FIELDS`): ``file``, ``game`` (0-based index in
the file), ``variation`` (child indexes at branch points, ``[]`` on the main
line), ``move_number``, ``colour`` (``"b"``, ``"w"`` or null), ``move`` (SGF
letters, ``""`` for a pass, null without a move), ``gtp`` (``"D16"``,
``"pass"`` or null), ``hash`` and ``key`` (``0x`` and zero-padded lower-case
hex of the scheme's width), ``transform`` and ``symmetries``; with
``CanonOptions(position=True)`` (``--position``) also ``position``.

- ``transform``: the lowest element mapping the position onto its canonical
  frame (:mod:`gohash.frames`), the least packed image of the position under the
  elements whose ``T_g`` maps the hash onto the key.  Usually one element
  attains the key; when several do, it is the lowest of those whose image is
  least, not merely the lowest of them.
- ``symmetries``: every element of the group that maps the position onto
  itself, identity first.  Found from the stones, never from the key: the key
  only pre-filters (``g.P = P`` gives ``T_g(key) = key``, so a position whose key
  no ``T_g`` fixes has no symmetry but the identity; the rare others are
  compared point by point).  Under huima64 four black stones on the side star
  points hash to 0 (erratum E3), a key every element fixes; their symmetries
  are the eight board maps, not the colour swaps.
- ``position``: the canonical frame itself, as lower-case hex (no ``0x``) of
  its packing, the packing of :meth:`gohash.board.Board.position_key`: one
  byte holding the board size N, then the N*N points in ``row * N + col``
  order (row 0 the bottom line, col 0 the left) as base-4 digits, 0 empty,
  1 black, 2 white, most significant first, in ``ceil(N*N / 4)`` big-endian
  bytes (zero digits pad the front): the empty 9x9 board is ``09`` and 42
  zeros.  It is the image of the position under ``transform``; two positions
  are images of each other (under the group of ``--symmetry``) iff their
  ``position`` fields are equal, whatever their keys.  Which image is the
  frame depends on the keys, so compare the fields of one scheme and one
  group.  Decode it with ``Board.from_position_key(bytes.fromhex(position))``.

JSON lines are built by hand, not with ``json.dumps`` per record, because this
is the hot path; every string that can hold arbitrary text (the file name) is
escaped with :mod:`json` once per file.  In CSV, lists are space-separated and
null is the empty cell (a pass has ``gtp`` ``pass``).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, partial

import numpy as np

from .errors import GohashError
from .frames import frame_batch
from .pool import WorkerDied, ordered_map
from .schemes import KeyScheme
from .schemes import scheme as get_scheme
from .sgf import Input, SgfError, Source, find_inputs, read_input
from .symmetry import ELEMENTS, Element, elements_of
from .walk import BaseVisitor, GameInfo, PositionEvent, WalkSummary, walk_source

__all__ = ["CSV_HEADER", "FIELDS", "FORMATS", "CanonOptions", "CanonVisitor", "canon"]

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
FORMATS = ("jsonl", "csv")
CSV_HEADER = ",".join(FIELDS) + "\r\n"
"""The CSV header line without ``position``."""

_IDENTITY = ELEMENTS[0]
# Positions per batch of keys: numpy's per-call cost spread thin, memory still small.
_BATCH = 4096


@dataclass(frozen=True)
class CanonOptions:
    """What ``gohash canon`` computes: key scheme, group, variations, format,
    whether suicide is allowed in every game (None: as each game's ``RU`` says),
    and whether records hold the exact canonical ``position``."""

    scheme: str = "huima64"
    group: str = "full"
    variations: bool = False
    format: str = "jsonl"
    suicide_allowed: bool | None = None
    position: bool = False

    def __post_init__(self) -> None:
        elements_of(self.group)  # raises UnknownElementError for a bad group
        get_scheme(self.scheme, 19)  # raises UnknownSchemeError for a bad name
        if self.format not in FORMATS:
            raise GohashError(f"unknown format {self.format!r}; expected jsonl or csv")

    @property
    def fields(self) -> tuple[str, ...]:
        """The fields of a record, in order."""
        return (*FIELDS, "position") if self.position else FIELDS

    @property
    def csv_header(self) -> str:
        return ",".join(self.fields) + "\r\n"


class CanonVisitor(BaseVisitor):
    """Formats one record per position and hands the lines to ``write``; records
    errors (abandoning the game) and hands them to ``on_error``.

    Keys are computed in batches of up to 4096 positions (several games) with
    the scheme's numpy batch functions (:func:`gohash.frames.frame_batch`), ten
    times faster per position than one :meth:`~gohash.schemes.KeyScheme.canonical`
    call each: call :meth:`flush` when the walk is over.  Each position's stones
    are kept beside its hash (:meth:`~gohash.board.Board.stones`), for the exact
    symmetries and the frame.
    """

    def __init__(
        self,
        options: CanonOptions,
        write: Callable[[str], object],
        on_error: Callable[[GohashError], object] | None = None,
    ) -> None:
        self.options = options
        self.write = write
        self.on_error = on_error
        self.csv = options.format == "csv"
        self._group = elements_of(options.group)
        self._file = ""
        self._file_text = ""
        self._variation: tuple[int, ...] = ()
        self._variation_text = "[]"
        self._scheme: KeyScheme | None = None
        self._hex = self._key_hex = ""
        self._heads: list[str] = []
        self._hashes: list[int] = []
        self._stones: list[bytes] = []
        # The line after the key: by element for positions fixed only by the
        # identity, from the stones for the (few) others.
        self._plain_tails = [
            _tail(self.csv, options.position, g, (_IDENTITY,)) for g in self._group
        ]
        self._end = "\r\n" if self.csv else '"}\n'  # after the position

    def begin_game(self, info: GameInfo) -> None:
        if info.file != self._file:
            self._file = info.file
            if self.csv:
                out = io.StringIO()
                csv.writer(out, lineterminator="").writerow([info.file])
                self._file_text = out.getvalue()
            else:
                self._file_text = json.dumps(info.file)
        self._variation = ()
        self._variation_text = "" if self.csv else "[]"

    def visit_position(self, event: PositionEvent) -> None:
        board = event.board
        if board.scheme is not self._scheme:
            self.flush()
            self._scheme = board.scheme
            self._hex = f"0x%0{self._scheme.bits // 4}x"
            self._key_hex = ("," if self.csv else '","key":"') + self._hex
        if event.variation is not self._variation:
            self._variation = event.variation
            if self.csv:
                self._variation_text = " ".join(map(str, event.variation))
            else:
                self._variation_text = json.dumps(list(event.variation))
        colour = event.colour
        if self.csv:
            head = (
                f"{self._file_text},{event.game},{self._variation_text},{event.move_number},"
                f"{colour or ''},{event.sgf_move or ''},{event.gtp or ''},"
            )
        elif colour is None:
            head = (
                f'{{"file":{self._file_text},"game":{event.game},'
                f'"variation":{self._variation_text},"move_number":{event.move_number},'
                f'"colour":null,"move":null,"gtp":null,"hash":"'
            )
        else:
            head = (
                f'{{"file":{self._file_text},"game":{event.game},'
                f'"variation":{self._variation_text},"move_number":{event.move_number},'
                f'"colour":"{colour}","move":"{event.sgf_move}","gtp":"{event.gtp}","hash":"'
            )
        self._heads.append(head)
        self._hashes.append(board.hash)
        self._stones.append(board.stones())
        if len(self._hashes) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        """Compute the keys of the positions kept so far and write their records.
        Call it once the walk is over: records are written in batches."""
        scheme = self._scheme
        hashes = self._hashes
        if not hashes or scheme is None:
            return
        # Board hashes are valid by construction: skip from_ints' per-value checks.
        array = np.array(hashes, np.uint64) if scheme.bits == 64 else scheme.from_ints(hashes)
        stones = np.frombuffer(b"".join(self._stones), dtype=np.uint8).reshape(len(hashes), -1)
        batch = frame_batch(
            stones, array, scheme, self.options.group, frames=self.options.position
        )
        key_ints = scheme.to_ints(batch.keys)
        tails = [self._plain_tails[i] for i in batch.elements.tolist()]
        for i in np.flatnonzero(batch.symmetries != 1).tolist():
            element = self._group[batch.elements[i]]
            bits = int(batch.symmetries[i])
            symmetries = tuple(g for g in self._group if bits >> g.index & 1)
            tails[i] = _tail(self.csv, self.options.position, element, symmetries)
        hexf, keyf = self._hex, self._key_hex
        if batch.frames is None:
            lines = [
                f"{head}{hexf % h}{keyf % k}{tail}"
                for head, h, k, tail in zip(self._heads, hashes, key_ints, tails, strict=True)
            ]
        else:
            end = self._end
            lines = [
                f"{head}{hexf % h}{keyf % k}{tail}{frame.tobytes().hex()}{end}"
                for head, h, k, tail, frame in zip(
                    self._heads, hashes, key_ints, tails, batch.frames, strict=True
                )
            ]
        self.write("".join(lines))
        self._heads = []
        self._hashes = []
        self._stones = []

    def handle_error(self, error: GohashError) -> bool:
        if self.on_error is not None:
            self.on_error(error)
        return False


@cache
def _tail(csv: bool, position: bool, transform: Element, symmetries: tuple[Element, ...]) -> str:
    """The line after the key: the transform and symmetries columns, then the end of
    the line or the start of the position field; made once for each of their few values."""
    names = [e.name for e in symmetries]
    if csv:
        return f",{transform.name},{' '.join(names)}" + ("," if position else "\r\n")
    listed = json.dumps(names, separators=(",", ":"))
    end = ',"position":"' if position else "}\n"
    return f'","transform":"{transform.name}","symmetries":{listed}{end}'


# -- running over inputs, in this process or in workers ----------------------------------

# What a worker sends back for one task: the records, then files, games,
# positions, errors as (reason, file, game, move_number) and notes: plain
# data, all the parent prints.
_Result = tuple[str, int, int, int, list[tuple[str, str | None, int | None, int | None]], list[str]]
# A task: a file for the worker to read, the bytes of an archive member or of
# stdin (read by the parent), an error met while reading, or nothing (an empty
# archive); and whether it is the last task of its input.
_Work = Input | Source | SgfError | None


def _canon_task(
    work: _Work, options: CanonOptions, write: Callable[[str], object] | None = None
) -> _Result:
    """Records of one task: written game by game with ``write`` if given, else
    returned (from a worker process) with the counts."""
    chunks: list[str] = []
    summary = WalkSummary()
    visitor = CanonVisitor(options, write or chunks.append)
    board_options: dict[str, object] = {"scheme": options.scheme}
    if options.suicide_allowed is not None:
        board_options["suicide_allowed"] = options.suicide_allowed
    sources: Iterable[Source | SgfError] = (
        read_input(work) if isinstance(work, Input) else [] if work is None else [work]
    )
    for source in sources:
        if isinstance(source, SgfError):
            summary.errors.append(source)
            continue
        summary.add(
            walk_source(
                source,
                visitor,
                variations=options.variations,
                board_options=board_options,
            )
        )
    visitor.flush()
    errors = [(e.reason, e.file, e.game, e.move_number) for e in summary.errors]
    return "".join(chunks), summary.files, summary.games, summary.positions, errors, summary.notes


def _canon_worker(task: tuple[_Work, bool], options: CanonOptions) -> _Result:
    """:func:`_canon_task` of a task of :func:`_tasks`, in a worker process."""
    return _canon_task(task[0], options)


def _task_bytes(task: tuple[_Work, bool]) -> int:
    """The bytes a task carries to its worker: those of a member read here."""
    return len(task[0].data) if isinstance(task[0], Source) else 0


def _died(work: _Work, died: WorkerDied) -> _Result:
    """The result of a task whose worker died on it: one error naming its file."""
    file = work.name if isinstance(work, Input | Source) else None
    return "", 0, 0, 0, [(died.reason, file, None, None)], []


def _tasks(inputs: list[Input]) -> Iterator[tuple[_Work, bool]]:
    """Files go to workers as names; archives and stdin are read here, member by
    member, so an archive's members are spread over the workers too."""
    for inp in inputs:
        if inp.kind in ("file", "missing"):
            yield inp, True
            continue
        previous: _Work = None
        for source in read_input(inp):
            if previous is not None:
                yield previous, False
            previous = source
        yield previous, True


def canon(
    paths: Iterable[str],
    write: Callable[[str], object],
    options: CanonOptions | None = None,
    *,
    jobs: int = 1,
    on_error: Callable[[GohashError], object] | None = None,
    on_note: Callable[[str], object] | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> WalkSummary:
    """Write the records of every position of ``paths`` with ``write``, in input order.

    ``jobs`` > 1 processes files (and archive members) in that many worker
    processes (:func:`gohash.pool.ordered_map`: batches of up to 64, memory
    bounded by a few batches).  If a worker dies, the files it and the others
    had in hand are retried one at a time, with a note; a file whose retry
    kills its worker again is an error.  Errors and notes go to ``on_error``
    and ``on_note`` in input order, after the records of their file;
    ``progress(done, total)`` is called after each input.
    Returns the summary of the whole run.
    """
    options = options or CanonOptions()
    inputs = list(find_inputs(paths))
    total = WalkSummary()
    done = 0

    def finish(result: _Result, ends_input: bool) -> None:
        nonlocal done
        text, files, games, positions, errors, notes = result
        if text:
            write(text)
        total.files += files
        total.games += games
        total.positions += positions
        for reason, file, game, move_number in errors:
            error = GohashError(reason, file=file, game=game, move_number=move_number)
            total.errors.append(error)
            if on_error is not None:
                on_error(error)
        for note in notes:
            total.notes.append(note)
            if on_note is not None:
                on_note(note)
        if ends_input:
            done += 1
            if progress is not None:
                progress(done, len(inputs))

    if options.format == "csv":
        write(options.csv_header)
    if jobs <= 1:
        for work, ends_input in _tasks(inputs):
            finish(_canon_task(work, options, write), ends_input)
        return total

    def note(message: str) -> None:
        total.notes.append(message)
        if on_note is not None:
            on_note(message)

    results = ordered_map(
        partial(_canon_worker, options=options),
        _tasks(inputs),
        jobs=jobs,
        expected=len(inputs),
        weight=_task_bytes,
        on_death=note,
    )
    for (work, ends_input), result in results:
        finish(_died(work, result) if isinstance(result, WorkerDied) else result, ends_input)
    return total
