"""Audit of a collection: what the key schemes' canonical keys merge in real games.

Scope: measurements, no printing; the structure of the schemes themselves,
measured without games, is :mod:`gohash.group.structure`'s.

For a collection of games (:class:`CollectionAuditor`, :func:`audit_paths`, which
reads them with :func:`gohash.pipeline.positions.read_positions`, in worker processes if
asked): every
position is reduced to its exact canonical form, its frame
(:mod:`gohash.pipeline.frames`, the form the index stores), and grouped by that form and
by each scheme's canonical key.  Exactness comes from comparing packed
positions, never from hashes; a scheme's key merges positions when one key
covers several forms.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from .._deprecated import deprecated, renamed
from ..errors import GohashError, WorkerDied
from ..group.coords import check_position_array
from ..group.schemes import SCHEMES, scheme
from ..group.symmetry import ELEMENTS, elements_of
from ..pipeline.frames import frame_batch, unpack_array, unpack_rows
from ..pipeline.jobs import Task, input_tasks, run_tasks, task_ends, task_name
from ..pipeline.positions import PositionBatch, read_positions
from ..sgf.inputs import Source
from ..sgf.sources import find_inputs

__all__ = [
    "SCHEME_COLUMNS",
    "CollectionAudit",
    "CollectionAuditor",
    "MergeExample",
    "SizeAudit",
    "audit_paths",
]

Board = npt.NDArray[np.int8]


@dataclass(frozen=True)
class MergeExample:
    """Two positions, distinct up to symmetry, that one scheme's canonical key merges.

    ``where`` gives file, game and move number of each position's first
    occurrence; ``boards`` are the positions as they stood in those games.
    """

    scheme: str
    size: int
    key: str
    where: tuple[tuple[str, int, int], tuple[str, int, int]]
    boards: tuple[Board, Board]

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "size": self.size,
            "key": self.key,
            "positions": [
                {"file": f, "game": g, "move_number": m, "rows": _rows(b)}
                for (f, g, m), b in zip(self.where, self.boards, strict=True)
            ],
        }


def _rows(board: Board) -> list[str]:
    """Top row first, ``X`` black, ``O`` white, ``.`` empty (as ``str(Board)`` without labels)."""
    return ["".join(".XO"[v] for v in row) for row in board[::-1].tolist()]


@dataclass
class SizeAudit:
    """The positions of one board size: counts, per move number, and per scheme."""

    size: int
    positions: int
    distinct: int
    by_move: list[tuple[int, int, int]]  # (move number, positions, distinct up to symmetry)
    keys: dict[str, int]  # scheme -> distinct canonical keys
    merged: dict[str, int]  # scheme -> positions (distinct forms) lost to merging
    merged_keys: dict[str, int]  # scheme -> keys covering two or more forms
    split: dict[str, int]  # scheme -> forms with two or more keys (the theorem says 0)
    # scheme -> merging keys whose positions all have a symmetry: E5 (few bits left)
    merged_symmetric: dict[str, int]
    examples: list[MergeExample]


SCHEME_COLUMNS = ("keys", "merged", "merged_keys", "merged_symmetric", "split")
"""The per-scheme figures of a collection audit, in the order the CLI prints them."""


@dataclass
class CollectionAudit:
    """The result of auditing a collection; :meth:`to_json` is the documented schema."""

    schemes: tuple[str, ...]
    group: str
    files: int
    games: int
    sizes: list[SizeAudit]
    errors: list[GohashError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def positions(self) -> int:
        return sum(s.positions for s in self.sizes)

    @property
    def distinct(self) -> int:
        return sum(s.distinct for s in self.sizes)

    def total(self, column: str, name: str) -> int:
        """A per-scheme column of :class:`SizeAudit` (``"merged"``...) summed over sizes."""
        return sum(int(getattr(s, column)[name]) for s in self.sizes)

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        return {
            "group": self.group,
            "files": self.files,
            "games": self.games,
            "positions": self.positions,
            "distinct": self.distinct,
            "schemes": {
                name: {column: self.total(column, name) for column in SCHEME_COLUMNS}
                for name in self.schemes
            },
            "sizes": [
                {
                    "size": s.size,
                    "positions": s.positions,
                    "distinct": s.distinct,
                    "keys": s.keys,
                    "merged": s.merged,
                    "merged_keys": s.merged_keys,
                    "merged_symmetric": s.merged_symmetric,
                    "split": s.split,
                    "by_move": [
                        {"move_number": m, "positions": n, "distinct": d} for m, n, d in s.by_move
                    ],
                }
                for s in self.sizes
            ],
            "examples": [e.to_json() for s in self.sizes for e in s.examples],
            "errors": [
                {
                    "file": e.file,
                    "game": e.game,
                    "move_number": e.move_number,
                    "error": type(e).__name__,
                    "reason": e.reason,
                }
                for e in self.errors
            ],
            "notes": list(self.notes),
        }


class _SizeBatches:
    """Chunks of per-position data for one board size, appended game by game."""

    def __init__(self, names: Sequence[str]) -> None:
        self.forms: list[npt.NDArray[np.uint8]] = []
        self.elements: list[npt.NDArray[np.uint8]] = []
        self.symmetric: list[npt.NDArray[np.bool_]] = []
        self.moves: list[npt.NDArray[np.int32]] = []
        self.games: list[npt.NDArray[np.int32]] = []
        self.keys: dict[str, list[npt.NDArray[np.uint64]]] = {name: [] for name in names}

    def join(self) -> None:
        """Concatenate the chunks of every column into one."""
        columns: list[list[npt.NDArray[Any]]] = [self.forms, self.elements, self.symmetric]
        for column in [*columns, self.moves, self.games, *self.keys.values()]:
            column[:] = [np.concatenate(column)]


class CollectionAuditor:
    """Collects, for every position, its exact canonical form and every scheme's
    canonical key; :meth:`result` groups them.  Positions come as the batches of
    :func:`gohash.pipeline.positions.read_positions` (:meth:`add_batch`, as :func:`audit_paths`
    reads them) or as arrays (:meth:`add_positions`).

    The exact form is the frame (:mod:`gohash.pipeline.frames`) under the first scheme of
    ``schemes``: the least packed image among the elements attaining its canonical
    key.  As the theorem holds for every scheme, the frame of any is a canonical
    form, equal for two positions exactly when one is an image of the other; each
    scheme's key comes from the position itself, so ``split`` still checks the
    theorem, the frame's scheme included.  ``symmetry`` is the group of the canonical
    keys (``"full"``, ``"d4"``; ``group`` its deprecated name).
    """

    def __init__(
        self, schemes: Sequence[str] = SCHEMES, *, symmetry: str = "full", examples: int = 3,
        group: str | None = None,
    ) -> None:
        symmetry = renamed(symmetry, group, "group", "symmetry", "CollectionAuditor")
        for name in schemes:
            scheme(name, 19)  # an unknown name fails here, before any replay
        elements_of(symmetry)
        if not schemes:
            raise GohashError("an audit needs at least one key scheme")
        self.schemes = tuple(schemes)
        self.group = symmetry
        self.examples = examples
        self.errors: list[GohashError] = []
        self.notes: list[str] = []
        self.files = 0
        self.locations: list[tuple[str, int]] = []
        """File and game number of each game, indexed by the ``game`` of :meth:`add_positions`."""
        self._sizes: dict[int, _SizeBatches] = {}

    def add_batch(self, batch: PositionBatch) -> None:
        """Record the games, positions and errors of a batch of :func:`positions`
        made with ``scheme=schemes[0]``, this audit's group, ``packed=True`` and
        ``frames=True``."""
        offsets, data = batch.packed_offsets, batch.packed_data
        frame_offsets, frame_data = batch.frame_offsets, batch.frame_data
        if offsets is None or data is None or frame_offsets is None or frame_data is None:
            raise GohashError("the audit needs read_positions(..., packed=True, frames=True)")
        if (batch.scheme, batch.group) != (self.schemes[0], self.group):
            raise GohashError(
                f"the audit needs positions of scheme {self.schemes[0]!r} and group "
                f"{self.group!r}, not {batch.scheme!r} and {batch.group!r}"
            )
        self.files += len(batch.files)
        self.errors += batch.errors
        self.notes += batch.notes
        games = batch.games
        base = len(self.locations)
        self.locations += [
            (batch.files[f], g) for f, g in zip(games.file.tolist(), games.game.tolist(),
                                                strict=True)
        ]
        # Rows come file by file, game by game: each row's game by a sorted search.
        game_keys = (games.file.astype(np.int64) << 32) | games.game
        row_keys = (batch.file.astype(np.int64) << 32) | batch.game
        row_games = base + np.searchsorted(game_keys, row_keys)
        for size in np.unique(batch.size).tolist():
            rows = np.flatnonzero(batch.size == size)
            width = 1 + (size * size + 3) // 4
            at = np.arange(width)
            positions = data[offsets[rows, np.newaxis] + at]
            self._store(
                unpack_rows(positions, size).reshape(-1, size, size),
                frame_data[frame_offsets[rows, np.newaxis] + at],
                batch.transform[rows],
                batch.symmetries[rows] != 1,
                batch.move_number[rows],
                row_games[rows],
                batch.canonical[rows],
            )

    def add_positions(
        self, boards: npt.NDArray[np.integer], moves: Sequence[int], game: int
    ) -> None:
        """Record a batch ``(B, N, N)`` of positions of game number ``game``
        (an index into :attr:`locations`)."""
        boards = check_position_array(boards, batch=True)
        count, size = boards.shape[0], boards.shape[-1]
        first = scheme(self.schemes[0], size)
        found = frame_batch(
            boards.reshape(count, size * size), first.hash_arrays(boards), first, self.group
        )
        assert found.frames is not None
        self._store(
            boards, found.frames, found.elements, found.symmetries != 1,
            np.asarray(moves, dtype=np.int32), np.full(count, game, dtype=np.int32), found.keys,
        )

    def _store(
        self,
        boards: npt.NDArray[np.integer],
        forms: npt.NDArray[np.uint8],
        elements: npt.NDArray[np.uint8],
        symmetric: npt.NDArray[np.bool_],
        moves: npt.NDArray[np.integer],
        games: npt.NDArray[np.integer],
        keys: npt.NDArray[np.uint64],
    ) -> None:
        """Positions of one size with their frames, elements onto them, whether they
        have a symmetry, and their canonical keys under the first scheme."""
        size = boards.shape[-1]
        batches = self._sizes.setdefault(size, _SizeBatches(self.schemes))
        batches.forms.append(forms)
        batches.elements.append(elements.astype(np.uint8))
        batches.symmetric.append(symmetric)
        batches.moves.append(moves.astype(np.int32))
        batches.games.append(games.astype(np.int32))
        batches.keys[self.schemes[0]].append(keys)
        for name in self.schemes[1:]:
            ks = scheme(name, size)
            batches.keys[name].append(ks.canonical_array(ks.hash_arrays(boards), self.group)[0])

    def result(self) -> CollectionAudit:
        sizes = [self._size_audit(size, self._sizes[size]) for size in sorted(self._sizes)]
        return CollectionAudit(
            self.schemes, self.group, self.files, len(self.locations), sizes, list(self.errors),
            list(self.notes),
        )

    def _size_audit(self, size: int, batches: _SizeBatches) -> SizeAudit:
        batches.join()
        forms, moves = batches.forms[0], batches.moves[0]
        count = forms.shape[0]
        form_ids = _group_ids(forms)
        distinct = int(form_ids.max()) + 1 if count else 0
        move_pairs = np.unique(np.stack([moves.astype(np.int64), form_ids]), axis=1)
        numbers, totals = np.unique(moves, return_counts=True)
        _, distinct_counts = np.unique(move_pairs[0], return_counts=True)  # same move numbers
        by_move = list(
            zip(numbers.tolist(), totals.tolist(), distinct_counts.tolist(), strict=True)
        )
        audit = SizeAudit(size, count, distinct, by_move, {}, {}, {}, {}, {}, [])
        # Whether each form is fixed by some element but the identity (images of one
        # position have conjugate stabilizers: one occurrence speaks for the form).
        symmetric = batches.symmetric[0][np.unique(form_ids, return_index=True)[1]]
        for name in self.schemes:
            keys = batches.keys[name][0]
            key_ids = _group_ids(keys.reshape(count, -1).view(np.uint8))
            pairs = np.unique(np.stack([key_ids, form_ids]), axis=1)
            audit.keys[name] = int(key_ids.max()) + 1 if count else 0
            audit.merged[name] = pairs.shape[1] - audit.keys[name]
            audit.split[name] = pairs.shape[1] - distinct
            per_key = np.bincount(pairs[0], minlength=audit.keys[name])
            audit.merged_keys[name] = int((per_key > 1).sum())
            merging = per_key[pairs[0]] > 1
            all_symmetric = np.ones(len(per_key), dtype=bool)
            for key_id, form in pairs[:, merging].T.tolist():
                all_symmetric[key_id] &= symmetric[form]
            audit.merged_symmetric[name] = int((all_symmetric & (per_key > 1)).sum())
            audit.examples += self._examples(name, size, batches, keys, key_ids, form_ids, per_key)
        return audit

    def _examples(
        self,
        name: str,
        size: int,
        batches: _SizeBatches,
        keys: npt.NDArray[np.uint64],
        key_ids: npt.NDArray[np.int64],
        form_ids: npt.NDArray[np.int64],
        per_key: npt.NDArray[np.int64],
    ) -> list[MergeExample]:
        """The first merges in walk order: for each merged key, its first two forms."""
        ks = scheme(name, size)
        merged_at = np.flatnonzero(per_key[key_ids] > 1)
        found: list[MergeExample] = []
        first_form: dict[int, int] = {}  # key id -> first position index
        if not merged_at.size or self.examples <= 0:
            return found
        forms, which = batches.forms[0], batches.elements[0]
        moves, games = batches.moves[0], batches.games[0]
        done: set[int] = set()
        for i in merged_at.tolist():
            k = int(key_ids[i])
            if k in done:
                continue
            j = first_form.setdefault(k, i)
            if form_ids[j] == form_ids[i]:
                continue
            done.add(k)
            where = []
            boards = []
            for n in (j, i):
                canonical = unpack_array(forms[n].tobytes())
                # The form is g(position); the position is g^-1 of the form.
                boards.append(
                    ELEMENTS[int(which[n])].inverse.image_array(canonical).astype(np.int8)
                )
                file, game = self.locations[int(games[n])]
                where.append((file, game, int(moves[n])))
            key = ks.hex(ks.to_ints(keys[i : i + 1])[0])
            found.append(
                MergeExample(name, size, key, (where[0], where[1]), (boards[0], boards[1]))
            )
            if len(found) == self.examples:
                break
        return found


def _group_ids(rows: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """Dense ids of equal rows of a 1-d or 2-d array, numbered in sorted order."""
    arr = np.ascontiguousarray(rows)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    as_void = arr.view(np.dtype((np.void, arr.dtype.itemsize * arr.shape[1]))).reshape(-1)
    _, inverse = np.unique(as_void, return_inverse=True)
    ids: npt.NDArray[np.int64] = inverse.reshape(-1).astype(np.int64)
    return ids


def audit_paths(
    paths: Iterable[str],
    schemes: Sequence[str] = SCHEMES,
    *,
    symmetry: str = "full",
    examples: int = 3,
    variations: bool = False,
    suicide_allowed: bool | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
    on_death: Callable[[str], object] | None = None,
    group: str | None = None,
) -> CollectionAudit:
    """Replay and audit the games of ``paths`` (files, folders, archives); errors are
    kept.  ``suicide_allowed`` holds for every game if given, else each game's ``RU``
    decides.  ``jobs`` > 1 replays the inputs in that many worker processes
    (:func:`gohash.pipeline.jobs.run_tasks`; a worker's death is a note for ``on_death``,
    a file that kills its worker twice an error), with the same result.
    ``progress(done, total)`` is called as inputs are done.  ``symmetry`` is the
    group of the canonical keys (``"full"``, ``"d4"``; ``group`` its deprecated name)."""
    if group is not None:
        deprecated("group=", "symmetry=", "audit_paths")
        symmetry = group
    auditor = CollectionAuditor(schemes, symmetry=symmetry, examples=examples)
    options: dict[str, Any] = {
        "scheme": auditor.schemes[0], "symmetry": symmetry, "variations": variations,
        "suicide_allowed": suicide_allowed, "packed": True, "frames": True,
    }
    inputs = list(find_inputs(paths))
    for _, outcome in run_tasks(
        partial(_replay, **options), input_tasks(inputs), jobs=jobs, inputs=len(inputs),
        weight=_task_bytes, name=task_name, ends=task_ends, progress=progress,
        on_death=on_death,
    ):
        if isinstance(outcome, WorkerDied):
            auditor.errors.append(outcome)
        else:
            for batch in outcome:
                auditor.add_batch(batch)
    return auditor.result()


def _replay(tasks: list[Task], **options: Any) -> list[list[PositionBatch]]:
    """The batches of one run of read_positions() over ``tasks``, as the entry of the
    last task (the others' are empty: a batch holds several)."""
    works = [work for work, _ in tasks if work is not None]
    return [[] for _ in tasks[1:]] + [list(read_positions(works, **options))]


def _task_bytes(task: Task) -> int:
    """The bytes a task carries to its worker: those of a source read here."""
    return len(task[0].data) if isinstance(task[0], Source) else 0
