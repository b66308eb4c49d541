"""The replay of SGF inputs into what an index stores, in :mod:`gohash.index.store`'s workers.

Scope: :func:`stream_frames` (and :func:`input_frames`, its answer as lists),
the tasks of ``gohash index build``: read inputs
(files, archives, canon datasets, or sources read beforehand), skip the files
whose SHA-256 the index already holds, and replay the others together with
:func:`gohash.pipeline.positions.read_positions` into the
:class:`~gohash.index.records.FileFrames` of :mod:`gohash.index.records`.
In a worker process, :func:`spooled_frames` pickles them to a file as they
come, and :class:`SpoolReader` reads them back one at a time.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import os
import pickle
import struct
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..errors import GohashError, name_text
from ..group.coords import sgf_order
from ..metadata import STORED
from ..pipeline.frames import NamedSchemes, SchemeFactory, unpack_frames
from ..pipeline.pool import SpoolFiles, scratch_folder
from ..pipeline.positions import PositionBatch, read_positions
from ..sgf.inputs import Input, Skipped, Source
from ..sgf.sources import read_input
from .games import NO_POINT, TAG_SETUP, EncodedGame, encode_game, posting_keys
from .records import (
    FileFrames,
    GameFrames,
    SourceError,
    SourceNote,
    Task,
    game_digest,
)

__all__ = [
    "BATCH_POSITIONS",
    "SpoolReader",
    "Spooled",
    "input_frames",
    "spooled_frames",
    "stream_frames",
]

BATCH_POSITIONS = 1 << 14
"""Positions (or games) per batch of :func:`stream_frames`'s replay: with the
sources read, what bounds a build's memory (a long file comes in parts)."""


def input_frames(
    tasks: Sequence[Task],
    factory: SchemeFactory,
    suicide_allowed: bool | None,
    variations: bool = False,
) -> list[list[FileFrames | SourceError | SourceNote]]:
    """What :func:`stream_frames` gives, as a list per task, all in memory."""
    out: list[list[FileFrames | SourceError | SourceNote]] = [[] for _ in tasks]
    for task, item in stream_frames(tasks, factory, suicide_allowed, variations):
        out[task].append(item)
    return out


@dataclass(frozen=True)
class Spooled:
    """Where a worker put a task's items: ``count`` pickles from ``offset`` of the
    file ``path`` it wrote for its batch; ``last`` if no later task of the batch
    has items there, so that the file goes once they are read."""

    path: str
    offset: int
    count: int
    last: bool


def spooled_frames(
    tasks: Sequence[Task],
    factory: SchemeFactory,
    suicide_allowed: bool | None,
    variations: bool = False,
    share: int = 1,
) -> list[Spooled]:
    """In a worker of :func:`gohash.pool.ordered_map`: what :func:`stream_frames`
    gives, each item pickled as it comes to one file of the worker's
    :func:`~gohash.pool.scratch_folder`, and where each task's items are.

    So a worker holds a batch of positions, not its tasks' files whole, and the
    parent reads the items back one at a time (:class:`SpoolReader`): the
    memory of a build in workers is bounded as a build in one process is.
    ``share`` workers replaying at once share one batch (:func:`stream_frames`)."""
    folder = scratch_folder()
    if folder is None:
        raise AssertionError("spooled_frames runs in a worker process of ordered_map")
    fd, path = tempfile.mkstemp(dir=folder, suffix=".frames")
    offsets = [0] * len(tasks)
    counts = [0] * len(tasks)
    with open(fd, "wb") as f:
        for task, item in stream_frames(tasks, factory, suicide_allowed, variations, share):
            if not counts[task]:
                offsets[task] = f.tell()
            pickle.dump(item, f, protocol=pickle.HIGHEST_PROTOCOL)
            counts[task] += 1
    last = max((task for task, count in enumerate(counts) if count), default=-1)
    if last < 0:
        os.remove(path)
    return [
        Spooled(path, offsets[task], counts[task], task == last) for task in range(len(tasks))
    ]


class SpoolReader(SpoolFiles):
    """Reads the items of spooled tasks back, in task order, one at a time."""

    def items(self, spooled: Spooled) -> Iterator[FileFrames | SourceError | SourceNote]:
        """The task's items, each read as it is asked for."""
        if not spooled.count:
            return
        file = self.at(spooled.path, spooled.offset)
        for _ in range(spooled.count):
            try:
                item: FileFrames | SourceError | SourceNote = pickle.load(file)
            except EOFError:
                raise GohashError(f"items of a worker cut short in {spooled.path!r}") from None
            yield item
        self.done(spooled.path, spooled.last)


def stream_frames(
    tasks: Sequence[Task],
    factory: SchemeFactory,
    suicide_allowed: bool | None,
    variations: bool = False,
    share: int = 1,
) -> Iterator[tuple[int, FileFrames | SourceError | SourceNote]]:
    """What every source of each input stores (its games and postings), as
    ``(task number, item)`` in task order, all replayed together: the fixed
    costs of a replay are shared by many small files.  A file's items come as
    soon as it is replayed, a long file's in parts (:class:`FileFrames`), so
    memory is bounded by a batch of :func:`gohash.pipeline.positions.read_positions`
    (and the sources read), not by a file.

    ``factory`` gives the key scheme; ``suicide_allowed`` holds for every game,
    or each game's ``RU`` decides if None; ``variations`` replays every variation.
    With ``share``, a batch is a share of :data:`BATCH_POSITIONS`: that many
    worker processes replaying at once hold about one batch between them.
    Sources with the same SHA-256 as before are only marked unchanged;
    unreadable ones become errors, inputs not read notes."""
    # What to give, in order, as (task, item, file id): -1 for an item given as
    # it is (an error, an unchanged file), else the number of a replayed source.
    queue: deque[tuple[int, FileFrames | SourceError | SourceNote, int]] = deque()
    replayed: dict[int, FileFrames] = {}  # by source number, until their replay begins
    numbers = itertools.count()

    def fresh() -> Iterator[Source]:
        """The sources to replay, read one at a time as the replay asks for them."""
        for task, (inp, known) in enumerate(tasks):
            if isinstance(inp, Input) and inp.kind == "canon-parquet":
                from .parquet import part_frames  # pyarrow, for canon datasets only

                queue.extend((task, item, -1) for item in part_frames(inp.name, known))
                continue
            sources: Iterable[Source | GohashError | Skipped] = (
                read_input(inp) if isinstance(inp, Input) else [inp]
            )
            for source in sources:
                if isinstance(source, GohashError):
                    queue.append((task, SourceError(None, None, str(source)), -1))
                    continue
                if isinstance(source, Skipped):
                    queue.append((task, SourceNote(str(source)), -1))
                    continue
                sha = hashlib.sha256(source.data).hexdigest()
                path = name_text(source.name)  # stored as text, any bytes it held escaped
                item = FileFrames(path, sha, unchanged=known.get(path) == sha)
                if item.unchanged:
                    queue.append((task, item, -1))
                else:
                    file_id = next(numbers)
                    replayed[file_id] = item
                    queue.append((task, item, file_id))
                    yield source

    parts: dict[int, FileFrames] = {}  # the part in hand of each file being replayed
    # A named scheme hashes on the walker's boards; another factory from the
    # exact positions.
    keys: str | SchemeFactory = factory.name if isinstance(factory, NamedSchemes) else factory
    for batch in read_positions(
        fresh(), scheme=keys, packed=True, suicide_allowed=suicide_allowed,
        variations=variations, batch_size=max(1, BATCH_POSITIONS // share),
    ):
        ids = list(batch.files)
        for file_id in ids:
            if file_id not in parts:
                parts[file_id] = replayed.pop(file_id)
        _fill(batch, parts)
        # Every file before the batch's last is whole; the last may go on.
        last = ids[-1] if ids else -1
        while queue and queue[0][2] < last:
            task, entry, file_id = queue.popleft()
            yield task, parts.pop(file_id, entry)
        if queue and queue[0][2] == last and parts[last].games:
            # Given now, as a part; what follows comes in a new one.
            task, held, _ = queue.popleft()
            assert held is parts[last]
            held.more = True
            yield task, held
            parts[last] = FileFrames(held.path, held.sha256, part=held.part + 1)
            queue.appendleft((task, parts[last], last))
    for task, entry, file_id in queue:
        yield task, parts.get(file_id, entry)


def _fill(batch: PositionBatch, items: Mapping[int, FileFrames]) -> None:
    """The games, positions and errors of ``batch`` added to ``items`` (indexed by
    the file ids read_positions() gives): a file's games may span batches."""
    assert batch.packed_offsets is not None and batch.packed_data is not None
    file_ids = batch.file.astype(np.int64)
    # Rows come file by file, game by game: one sorted key finds each game's rows.
    row_keys = (file_ids << 32) | batch.game
    games = batch.games
    game_keys = (games.file.astype(np.int64) << 32) | games.game
    starts = np.searchsorted(row_keys, game_keys, side="left").tolist()
    ends = np.searchsorted(row_keys, game_keys, side="right").tolist()
    ids = list(batch.files)
    file_starts = np.searchsorted(file_ids, [*ids, ids[-1] + 1] if ids else []).tolist()
    keys = posting_keys(batch.canonical, batch.size)
    # Where each file's rows of this batch begin in its FileFrames' keys.
    base: dict[int, int] = {}
    for i, file_id in enumerate(ids):
        item = items[file_id]
        low, high = file_starts[i], file_starts[i + 1]
        base[file_id] = len(item.keys) - low
        item.add_keys(keys[low:high])
    text = games.text
    blacks, whites, results = text["PB"], text["PW"], text["RE"]
    # The main line comes first in a game's rows, then each other variation, each
    # a run of rows of one variation number.
    main_line = batch.variations.index(()) if () in batch.variations else -1
    off_main = np.flatnonzero(batch.variation != main_line).tolist()
    moves = batch.move_number
    records = _plain_records(batch, starts, ends, off_main)
    for row, (file_id, game, size, handicap) in enumerate(zip(
        games.file.tolist(), games.game.tolist(), games.size.tolist(), games.handicap.tolist(),
        strict=True,
    )):
        black, white, result = blacks[row], whites[row], results[row]
        start, end = starts[row], ends[row]
        # The game's first row off the main line, if any, ends its main line.
        first_off = bisect.bisect_left(off_main, start)
        main = min(end, off_main[first_off]) if first_off < len(off_main) else end
        record = records.get(row)
        if record is None and end > start:
            record = _stored(batch, start, main, end, size)
        digest = game_digest(size, black, white, result, b"" if record is None else record.blob)
        items[file_id].games.append(GameFrames(
            game, size, black, white, result, digest,
            int(moves[start:main].max()) if main > start else 0,
            start + base[file_id], end + base[file_id], main - start,
            _lines(batch, start, main, end), black_rank=text["BR"][row],
            white_rank=text["WR"][row], dt=text["DT"][row], event=text["EV"][row],
            komi=text["KM"][row], handicap=handicap,
            stored={f.name: text[f.prop][row] for f in STORED}, record=record,
        ))
    for error, file_id in zip(batch.errors, batch.error_files, strict=True):
        # Sources are read before replay here: every error belongs to a file.
        item = items[file_id]
        item.errors.append(SourceError(error.game, error.move_number, str(error)))
        for game in item.games:
            if game.game == error.game:
                game.error = str(error)


def _plain_records(
    batch: PositionBatch, starts: list[int], ends: list[int], off_main: list[int]
) -> dict[int, EncodedGame]:
    """The stored forms of the batch's plain games, by their row in ``batch.games``:
    those that are a main line only, from an empty board, with no setup after it
    (almost every game), all made at once, byte for byte what
    :func:`~gohash.index.games.encode_game` makes of each (``_stored`` makes
    the others'): the root as a setup node of no edits, then one word a node,
    and the ever bitmaps of the points played."""
    assert batch.packed_offsets is not None and batch.packed_data is not None
    first = np.array(starts, dtype=np.int64)
    last = np.array(ends, dtype=np.int64)
    sizes = batch.games.size.astype(np.int64)
    # Setup after the root, or rows off the main line: not plain.
    setups = np.flatnonzero(batch.setup).tolist() + off_main
    marks = np.zeros(len(batch) + 1, dtype=np.int64)
    np.add.at(marks, np.array(setups, dtype=np.int64) + 1, 1)
    marks = np.cumsum(marks)
    plain = (last > first) & (marks[last] == marks[np.minimum(first + 1, last)])
    offsets, data = batch.packed_offsets, batch.packed_data
    points = np.where(batch.point >= 0, batch.point, NO_POINT).astype(np.uint16)
    words = ((batch.colour.astype(np.uint16) << 10) | points).astype("<u2")
    records: dict[int, EncodedGame] = {}
    for size in np.unique(sizes[plain]).tolist():
        games = np.flatnonzero(plain & (sizes == size))
        npts = size * size
        # Only games whose root is the empty board: no digit set after the size byte.
        roots = data[offsets[first[games], np.newaxis] + np.arange(1, 1 + (npts + 3) // 4)]
        games = games[~roots.any(axis=1)]
        # Every row of these games after the root, and its game.
        lengths = last[games] - first[games] - 1
        begins = np.cumsum(lengths) - lengths
        rows = np.arange(lengths.sum()) + np.repeat(first[games] + 1 - begins, lengths)
        which = np.repeat(np.arange(len(games)), lengths)
        played = (batch.point[rows] >= 0) & (batch.colour[rows] > 0)
        ever = np.zeros((len(games), 3, npts), dtype=np.bool_)
        ever[which[played], batch.colour[rows[played]].astype(np.intp),
             batch.point[rows[played]].astype(np.intp)] = True
        bits = np.packbits(ever[:, 1:, sgf_order(size)], axis=2, bitorder="little")
        heads = ((TAG_SETUP << 12) | (batch.to_move[first[games]].astype(np.uint16) << 10)
                 | NO_POINT).tolist()
        for i, (game, start, end, head) in enumerate(zip(
                games.tolist(), first[games].tolist(), last[games].tolist(), heads, strict=True)):
            records[game] = EncodedGame(
                _HEAD.pack(head, 0) + words[start + 1 : end].tobytes(), bits[i, 0].tobytes(),
                bits[i, 1].tobytes(), end - start)
    return records


_HEAD = struct.Struct("<2H")
"""A root's setup word and its count of edits."""


def _stored(batch: PositionBatch, start: int, main: int, end: int, size: int) -> EncodedGame:
    """The stored form of the game of rows ``start`` to ``end`` (its main line
    up to ``main``): its nodes are its rows, in order."""
    assert batch.packed_offsets is not None and batch.packed_data is not None
    offsets, data = batch.packed_offsets, batch.packed_data

    def stones(node: int) -> npt.NDArray[np.int8]:
        row = start + node
        return unpack_frames(data[offsets[row] : offsets[row + 1]].tobytes(), 1, size).reshape(-1)

    parent = None
    if end > main:
        depth = batch.depth[start:end].tolist()
        latest: list[int] = []
        parent = []
        for node, d in enumerate(depth):
            del latest[d:]
            parent.append(latest[d - 1] if d > 0 else -1)
            latest.append(node)
    return encode_game(size, batch.colour[start:end], batch.point[start:end],
                       batch.setup[start:end], stones, parent=parent,
                       first_to_move=int(batch.to_move[start]))


def _lines(batch: PositionBatch, start: int, main: int, end: int) -> list[tuple[int, int, str]]:
    """The variations of the game of rows ``start`` to ``end`` beyond its main line
    (rows up to ``main``): (first row, the row it branches from, path), rows counted
    from ``start``.  A row's parent is the latest earlier row one shallower."""
    if main == end:
        return []
    variation = batch.variation[start:end].tolist()
    depth = batch.depth[start:end].tolist()
    lines = []
    # The latest row at each depth so far, the main line's first.
    latest = list(range(main - start))
    for row in range(main - start, end - start):
        d = depth[row]
        if variation[row] != variation[row - 1]:
            path = ".".join(map(str, batch.variations[variation[row]]))
            lines.append((row, latest[d - 1], path))
        del latest[d:]
        latest.append(row)
    return lines
