"""Audit of the key schemes: their structure, and what their canonical keys merge in real games.

Scope: measurements, no printing.  For one scheme and board size:

- free bits per point class.  A board map ``h`` that fixes a point ``p`` forces
  ``T_h(Z(p)) = Z(p)`` in every scheme (the theorem applied to a one-stone
  position), so a key can only take the values fixed by the slot permutations of
  the stabilizer of ``p``: ``slot_bits`` times the number of slot orbits.  Both
  generators draw exactly that many random bits per point (huima64: 16 at tengen,
  32 on the axes, 48 on the diagonals, 64 elsewhere on odd N).
- the rank over GF(2) of the key set (black and white keys as bit vectors), for
  XOR schemes; byte-wise addition is not linear over GF(2), so no rank is given.
- bits left to the hash of a position that some element fixes (erratum E5).
- structured families of key sets that hash like something else (errata E3 and
  E4): full D4-orbits, 4-point orbits on the axes and on the diagonals, the
  handicap pattern and the E4 pair pattern, each as a pair of positions whose
  hashes are compared.

For a collection of games (:class:`CollectionAuditor`, :func:`audit_paths`, which
reads them with :func:`gohash.positions.positions`, in worker processes if
asked): every
position is reduced to its exact canonical form, its frame
(:mod:`gohash.frames`, the form the index stores), and grouped by that form and
by each scheme's canonical key.  Exactness comes from comparing packed
positions, never from hashes; a scheme's key merges positions when one key
covers several forms.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from .coords import check_position_array, gtp
from .errors import GohashError
from .frames import frame_batch, unpack_array, unpack_rows
from .pool import WorkerDied, ordered_map
from .positions import PositionBatch, positions
from .schemes import SCHEMES, KeyScheme, scheme
from .sgf import Input, SgfError, Source, find_inputs, read_input
from .symmetry import (
    D4,
    ELEMENTS,
    Element,
    Point,
    check_size,
    element,
    elements_of,
    orbits_of_slots,
    point_orbits,
)

__all__ = [
    "FAMILIES",
    "POINT_CLASSES",
    "SCHEME_COLUMNS",
    "CollectionAudit",
    "CollectionAuditor",
    "MergeExample",
    "Pattern",
    "PatternResult",
    "PointClass",
    "SchemeStructure",
    "SizeAudit",
    "audit_paths",
    "e4_openings",
    "fixed_bits",
    "free_bits",
    "gf2_rank",
    "handicap_stones",
    "key_classes",
    "key_rank",
    "pattern_results",
    "patterns",
    "point_class",
    "scheme_structure",
]

POINT_CLASSES = ("centre", "axis", "diagonal", "other")
"""Point classes by their stabilizer in D4: tengen, the two axes through it, the
two diagonals, and every other point (odd N; even N has only the last two)."""
FAMILIES = ("orbit8", "axis4", "diagonal4", "e3-handicap", "e4-pair", "e4-opening")
"""The structured families of :func:`patterns`, in report order."""

Board = npt.NDArray[np.int8]


# -- key structure -----------------------------------------------------------------------


def point_class(point: Point, size: int) -> str:
    """``"centre"``, ``"axis"``, ``"diagonal"`` or ``"other"``."""
    row, col = point
    last = check_size(size) - 1
    on_axis = 2 * row == last or 2 * col == last
    on_diagonal = row == col or row + col == last
    if on_axis and on_diagonal:
        return "centre"
    if on_axis:
        return "axis"
    return "diagonal" if on_diagonal else "other"


def fixed_bits(ks: KeyScheme, elements: Iterable[str | int | Element]) -> int:
    """Bits of a hash that every ``T_g``, ``g`` in ``elements``, leaves unchanged.

    A position fixed by those elements has a hash in that subspace (erratum E5).
    """
    perms = [ks.permutations[0]] + [ks.permutations[element(g).index] for g in elements]
    return ks.slot_bits * len(orbits_of_slots(perms))


def free_bits(ks: KeyScheme, point: Point) -> int:
    """Independent random bits in the black key of ``point``: the bits fixed by the
    slot permutations of the point's stabilizer, which every scheme must respect."""
    return fixed_bits(ks, (g for g in D4 if g.map_point(point, ks.size) == point))


@dataclass(frozen=True)
class PointClass:
    """One point class of a board size: how many points, and the free bits of their keys."""

    name: str
    points: int
    free_bits: int
    example: Point
    orbit_keys: int  # black and white keys of one D4-orbit of the class
    orbit_span: int | None  # their GF(2) rank, least over the class's orbits; None for "add"


def key_classes(ks: KeyScheme) -> list[PointClass]:
    """The point classes present on the scheme's board, in :data:`POINT_CLASSES` order."""
    found: dict[str, list[list[Point]]] = {}
    for orbit in point_orbits(ks.size):
        found.setdefault(point_class(orbit[0], ks.size), []).append(orbit)
    classes = []
    for name in POINT_CLASSES:
        if name in found:
            orbits = found[name]
            points = [p for orbit in orbits for p in orbit]
            bits = {free_bits(ks, p) for p in points}
            # Points of one class share their stabilizer's shape, hence their freedom.
            assert len(bits) == 1, (name, bits)
            span = None
            if ks.combiner == "xor":
                span = min(gf2_rank(ks.stone_key(p, c) for p in o for c in "bw") for o in orbits)
            classes.append(
                PointClass(name, len(points), bits.pop(), points[0], 2 * len(orbits[0]), span)
            )
    return classes


def gf2_rank(vectors: Iterable[int]) -> int:
    """Rank over GF(2) of integers read as bit vectors."""
    basis: dict[int, int] = {}  # leading bit -> basis vector with that leading bit
    for v in vectors:
        while v:
            top = v.bit_length() - 1
            if top not in basis:
                basis[top] = v
                break
            v ^= basis[top]
    return len(basis)


def key_rank(ks: KeyScheme) -> int | None:
    """GF(2) rank of all black and white keys for an XOR scheme; None for addition."""
    if ks.combiner != "xor":
        return None
    return gf2_rank(ks.black_keys + ks.white_keys)


# -- structured families of key sets -----------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    """Two positions whose hashes a structural weakness might make equal.

    ``keys`` is the number of stones in which they differ: the size of the key
    set whose sum decides the question.
    """

    family: str
    first: Board
    second: Board
    keys: int
    description: str


def _stones(size: int, black: Iterable[Point] = (), white: Iterable[Point] = ()) -> Board:
    board = np.zeros((size, size), dtype=np.int8)
    for row, col in black:
        board[row, col] = 1
    for row, col in white:
        board[row, col] = 2
    return board


def handicap_stones(size: int, count: int) -> list[Point]:
    """The 5- or 9-stone handicap of an odd board from 7x7: corner star points and
    tengen, and for 9 also the side star points (the third line below 13x13)."""
    if size % 2 == 0 or size < 7 or count not in (5, 9):
        raise GohashError(f"no {count}-stone handicap pattern on a {size}x{size} board")
    low = 3 if size >= 13 else 2
    high, mid = size - 1 - low, size // 2
    stones = [(low, low), (low, high), (high, low), (high, high), (mid, mid)]
    if count == 9:
        stones += [(mid, low), (mid, high), (low, mid), (high, mid)]
    return stones


def e4_openings(size: int) -> tuple[Board, Board]:
    """Erratum E4's openings: B cd, W pd, B qp, W dq and B dc, W pd, B pq, W dq
    (19x19 names; the same distances from the edges on other sizes from 9x9)."""
    if size < 9:
        raise GohashError(f"the E4 openings need a board of 9x9 or more, not {size}x{size}")
    last = size - 1
    white = [(last - 3, last - 3), (2, 3)]  # pd, dq
    first = _stones(size, black=[(last - 3, 2), (3, last - 2)], white=white)  # cd, qp
    second = _stones(size, black=[(last - 2, 3), (2, last - 3)], white=white)  # dc, pq
    return first, second


def patterns(size: int) -> list[Pattern]:
    """Every instance of the structured families on a board size, families in order:
    ``orbit8``, ``axis4``, ``diagonal4`` (black stones on one D4-orbit against the
    empty board), ``e3-handicap`` (9 against 5 handicap stones), ``e4-pair``
    (``{p, rot180 p}`` against its transpose, one per pair of pairs) and
    ``e4-opening``."""
    size = check_size(size)
    rot180, transpose = ELEMENTS[2], ELEMENTS[5]
    empty = _stones(size)
    found: list[Pattern] = []
    for orbit in point_orbits(size):
        cls = point_class(orbit[0], size)
        family = {8: "orbit8", 4: f"{cls}4"}.get(len(orbit))
        if family is not None:
            where = " ".join(gtp(p, size) for p in orbit)
            found.append(
                Pattern(
                    family,
                    _stones(size, black=orbit),
                    empty,
                    len(orbit),
                    f"black on the D4-orbit {where}",
                )
            )
    if size % 2 and size >= 7:
        nine, five = handicap_stones(size, 9), handicap_stones(size, 5)
        found.append(
            Pattern(
                "e3-handicap",
                _stones(size, black=nine),
                _stones(size, black=five),
                4,
                "9 handicap stones against 5",
            )
        )
    seen: set[frozenset[Point]] = set()
    for orbit in point_orbits(size):
        if len(orbit) != 8:
            continue
        for p in orbit:
            pair = frozenset((p, rot180.map_point(p, size)))
            image = frozenset(transpose.map_point(q, size) for q in pair)
            if pair in seen or image in seen:
                continue
            seen.add(pair)
            a, b = sorted(pair)
            c, d = sorted(image)
            found.append(
                Pattern(
                    "e4-pair",
                    _stones(size, black=pair),
                    _stones(size, black=image),
                    4,
                    f"black {gtp(a, size)} {gtp(b, size)} against {gtp(c, size)} {gtp(d, size)}",
                )
            )
    if size >= 9:
        first, second = e4_openings(size)
        found.append(
            Pattern(
                "e4-opening", first, second, 4, "B cd W pd B qp W dq against B dc W pd B pq W dq"
            )
        )
    return sorted(found, key=lambda p: FAMILIES.index(p.family))


@dataclass(frozen=True)
class PatternResult:
    """How one scheme fares on one family: instances whose two positions hash equal."""

    family: str
    keys: int
    instances: int
    equal: int
    example: str | None  # description of the first instance that hashes equal


def pattern_results(ks: KeyScheme) -> list[PatternResult]:
    """For each family present on the scheme's board size, in :func:`patterns` order."""
    found = patterns(ks.size)
    if not found:
        return []
    families = list(dict.fromkeys(p.family for p in found))
    first = ks.hash_arrays(np.stack([p.first for p in found]))
    second = ks.hash_arrays(np.stack([p.second for p in found]))
    same = (first == second).reshape(len(found), -1).all(axis=1)
    results = []
    for family in families:
        members = [i for i, p in enumerate(found) if p.family == family]
        equal = [i for i in members if same[i]]
        results.append(
            PatternResult(
                family,
                found[members[0]].keys,
                len(members),
                len(equal),
                found[equal[0]].description if equal else None,
            )
        )
    return results


@dataclass(frozen=True)
class SchemeStructure:
    """Everything :func:`scheme_structure` measures for one scheme and size."""

    scheme: str
    size: int
    bits: int
    combiner: str
    classes: list[PointClass]
    rank: int | None
    keys: int
    symmetric_bits: dict[str, int]
    patterns: list[PatternResult]

    @property
    def smallest(self) -> tuple[int, list[str]] | None:
        """The fewest keys whose sum equals another set's (a zero sum under XOR), and
        the families where that many were found; None if no family hashes alike."""
        found = [p for p in self.patterns if p.equal]
        if not found:
            return None
        keys = min(p.keys for p in found)
        return keys, [p.family for p in found if p.keys == keys]

    def to_json(self) -> dict[str, Any]:
        smallest = self.smallest
        return {
            "scheme": self.scheme,
            "size": self.size,
            "bits": self.bits,
            "combiner": self.combiner,
            "point_classes": [asdict(c) for c in self.classes],
            "gf2_rank": self.rank,
            "keys": self.keys,
            "symmetric_position_bits": self.symmetric_bits,
            "smallest_equal": (
                None if smallest is None else {"keys": smallest[0], "families": smallest[1]}
            ),
            "patterns": [asdict(p) for p in self.patterns],
        }


def scheme_structure(name: str, size: int) -> SchemeStructure:
    """Free bits per point class, GF(2) rank, E5 bits and E3/E4 families of a scheme."""
    ks = scheme(name, size)
    symmetric = {"d4": fixed_bits(ks, D4)}
    for g in ELEMENTS[1:]:
        symmetric[g.name] = fixed_bits(ks, [g])
    return SchemeStructure(
        ks.name,
        ks.size,
        ks.bits,
        ks.combiner,
        key_classes(ks),
        key_rank(ks),
        2 * ks.size * ks.size,
        symmetric,
        pattern_results(ks),
    )


# -- collections -------------------------------------------------------------------------


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

    def to_json(self) -> dict[str, Any]:
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

    @property
    def positions(self) -> int:
        return sum(s.positions for s in self.sizes)

    @property
    def distinct(self) -> int:
        return sum(s.distinct for s in self.sizes)

    def total(self, column: str, name: str) -> int:
        """A per-scheme column of :class:`SizeAudit` (``"merged"``...) summed over sizes."""
        return sum(int(getattr(s, column)[name]) for s in self.sizes)

    def to_json(self) -> dict[str, Any]:
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
    :func:`gohash.positions.positions` (:meth:`add_batch`, as :func:`audit_paths`
    reads them) or as arrays (:meth:`add_positions`).

    The exact form is the frame (:mod:`gohash.frames`) under the first scheme of
    ``schemes``: the least packed image among the elements attaining its canonical
    key.  As the theorem holds for every scheme, the frame of any is a canonical
    form, equal for two positions exactly when one is an image of the other; each
    scheme's key comes from the position itself, so ``split`` still checks the
    theorem, the frame's scheme included.
    """

    def __init__(
        self, schemes: Sequence[str] = SCHEMES, *, group: str = "full", examples: int = 3
    ) -> None:
        for name in schemes:
            scheme(name, 19)  # an unknown name fails here, before any replay
        elements_of(group)
        if not schemes:
            raise GohashError("an audit needs at least one key scheme")
        self.schemes = tuple(schemes)
        self.group = group
        self.examples = examples
        self.errors: list[GohashError] = []
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
            raise GohashError("the audit needs positions(..., packed=True, frames=True)")
        if (batch.scheme, batch.group) != (self.schemes[0], self.group):
            raise GohashError(
                f"the audit needs positions of scheme {self.schemes[0]!r} and group "
                f"{self.group!r}, not {batch.scheme!r} and {batch.group!r}"
            )
        self.files += len(batch.files)
        self.errors += batch.errors
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
            self.schemes, self.group, self.files, len(self.locations), sizes, list(self.errors)
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
    group: str = "full",
    examples: int = 3,
    variations: bool = False,
    suicide_allowed: bool | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
    on_death: Callable[[str], object] | None = None,
) -> CollectionAudit:
    """Replay and audit the games of ``paths`` (files, folders, archives); errors are
    kept.  ``suicide_allowed`` holds for every game if given, else each game's ``RU``
    decides.  ``jobs`` > 1 replays the inputs in that many worker processes
    (:func:`gohash.pool.ordered_map`; a worker's death is a note for ``on_death``,
    an input that kills its worker twice an error), with the same result.
    ``progress(done, total)`` is called as inputs are done."""
    auditor = CollectionAuditor(schemes, group=group, examples=examples)
    options: dict[str, Any] = {
        "scheme": auditor.schemes[0], "group": group, "variations": variations,
        "suicide_allowed": suicide_allowed, "packed": True, "frames": True,
    }
    tasks: list[Input | Source] = []
    for inp in find_inputs(paths):
        if inp.kind != "stdin":
            tasks.append(inp)
            continue
        # A worker has no standard input of ours: it is read here.
        for source in read_input(inp):
            if isinstance(source, SgfError):
                auditor.errors.append(source)
            else:
                tasks.append(source)
    done = 0
    if jobs <= 1:
        def counted_tasks() -> Iterator[Input | Source]:
            nonlocal done
            for task in tasks:
                yield task
                done += 1

        for batch in positions(counted_tasks(), **options):
            auditor.add_batch(batch)
            if progress is not None:
                progress(done, len(tasks))
        return auditor.result()
    for task, outcome in ordered_map(
        partial(_replay, **options), tasks, jobs=jobs, expected=len(tasks), weight=_task_bytes,
        on_death=on_death, batched=True,
    ):
        if isinstance(outcome, WorkerDied):
            auditor.errors.append(outcome.located(file=task.name))
        else:
            for batch in outcome:
                auditor.add_batch(batch)
        done += 1
        if progress is not None:
            progress(done, len(tasks))
    return auditor.result()


def _replay(tasks: list[Input | Source], **options: Any) -> list[list[PositionBatch]]:
    """In a worker: the batches of one run of positions() over ``tasks``, as the
    entry of the last task (the others' are empty: a batch holds several)."""
    return [[] for _ in tasks[1:]] + [list(positions(tasks, **options))]


def _task_bytes(task: Input | Source) -> int:
    """The bytes a task carries to its worker: those of standard input, read here."""
    return len(task.data) if isinstance(task, Source) else 0
