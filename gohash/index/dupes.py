"""Duplicate games: the same main line up to symmetry and colour exchange, and prefixes.

Scope: what :meth:`gohash.index.index.Index.dupes` finds (:class:`Dupes`, its
:class:`DupeGroup` s and :class:`Prefix` es) and its steps on an index's
database: each game's last position (:func:`last_positions`), the games that
hold it at that node (:func:`position_holders`), the games that may be duplicates
(:func:`dupe_candidates`) and their groups, compared on exact frames
(:func:`main_frames`, :func:`group_dupes`).  A sharded index chains the same
steps across its shards.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import StoredGameError
from ..group.schemes import KeyScheme
from ..group.symmetry import ELEMENTS, Element
from ..pipeline.frames import frame_batch
from .games import REPLAY_COLUMNS, posting_keys, replay_at, replay_game
from .postings import KEY_OFFSET, PostingsFile, alive, held_by, ranges
from .results import Record
from .values import damaged, require

__all__ = [
    "DUPES_BATCH",
    "DupeGroup",
    "Dupes",
    "Prefix",
    "dupe_candidates",
    "group_dupes",
    "last_positions",
    "main_frames",
    "position_holders",
]

DUPES_BATCH = 4096
"""Games replayed at a time by :func:`last_positions` for their last positions."""


@dataclass(frozen=True)
class DupeGroup:
    """Records with the same sequence of positions up to symmetry; ``elements[i]``
    maps the last position of ``records[0]`` to that of ``records[i]``."""

    records: tuple[Record, ...]
    elements: tuple[Element, ...]
    positions: int

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """The group as JSON (docs/schemas.md, "Duplicates"): ``positions``, and its
        ``records`` (:meth:`~gohash.index.results.Record.to_json`, ``paths`` as
        there), each with its ``element``."""
        return {
            "positions": self.positions,
            "records": [{**r.to_json(paths=paths), "element": g.name}
                        for r, g in zip(self.records, self.elements, strict=True)],
        }


@dataclass(frozen=True)
class Prefix:
    """Every record of ``shorter`` is a proper prefix of every record of ``longer``."""

    shorter: DupeGroup
    longer: DupeGroup


@dataclass
class Dupes:
    """What :meth:`~gohash.index.index.Index.dupes` found: groups of the same game, and prefixes."""

    groups: list[DupeGroup]
    prefixes: list[Prefix]

    def to_json(self, *, paths: bool = True) -> dict[str, Any]:
        """The duplicates as JSON (docs/schemas.md, "Duplicates"); ``paths`` as in
        :meth:`~gohash.index.results.Record.to_json`."""
        return {
            "groups": [g.to_json(paths=paths) for g in self.groups],
            "prefixes": [{"shorter": p.shorter.to_json(paths=paths),
                          "longer": p.longer.to_json(paths=paths)} for p in self.prefixes],
        }


def last_positions(db: sqlite3.Connection, path: str, scheme: Callable[[int], KeyScheme],
                   min_positions: int) -> list[tuple[int, int, int]]:
    """:meth:`~gohash.index.index.Index.dupe_lasts` of the index at ``path``
    (``db`` open on it, ``scheme`` its key scheme by board size)."""
    require(db, "games", "positions >= ?", (min_positions,), REPLAY_COLUMNS)
    lasts: list[tuple[int, int, int]] = []
    for (size,) in db.execute("SELECT DISTINCT size FROM games WHERE positions >= ?",
                              (min_positions,)).fetchall():
        keys = scheme(size)
        cursor = db.execute("SELECT id, nodes, positions, record FROM games "
                            "WHERE size = ? AND positions >= ? ORDER BY id",
                            (size, min_positions))
        while rows := cursor.fetchmany(DUPES_BATCH):
            ids, nodes, mains, blobs = zip(*rows, strict=True)
            last = np.array(mains, dtype=np.int32) - 1
            try:
                at = replay_at(blobs, size, nodes, mains,
                               np.arange(len(rows), dtype=np.int32), last)
            except StoredGameError as e:
                raise damaged(path, f"game {ids[e.index]}: {e.reason}") from None
            boards = at.boards.reshape(-1, size, size)
            batch = frame_batch(at.boards, keys.hash_arrays(boards), keys, frames=False)
            lasts += zip(ids, posting_keys(batch.keys, size).tolist(), last.tolist(),
                         strict=True)
    return lasts


def position_holders(db: sqlite3.Connection, postings: PostingsFile,
                     lasts: Sequence[tuple[int, int]],
                     min_positions: int) -> list[tuple[int, int]]:
    """:meth:`~gohash.index.index.Index.dupe_holders` on the index ``db`` is open
    on, whose postings are ``postings``: one pass over their keys, a range at a
    time, the games and nodes read only where a key is asked for."""
    if not lasts:
        return []
    wanted = np.array(lasts, dtype=np.int64).reshape(-1, 2)
    order = np.argsort(wanted[:, 0], kind="stable")
    keys, nodes = wanted[order, 0] + KEY_OFFSET, wanted[order, 1]
    live = alive(db, "positions >= ?", (min_positions,))
    found: set[tuple[int, int]] = set()
    for segment in postings.usable():
        tops = ranges([segment])
        bounds = np.searchsorted(keys >> 32, tops)
        for at, (first, last) in enumerate(itertools.pairwise(tops)):
            mine = slice(int(bounds[at]), int(bounds[at + 1]))
            if mine.start == mine.stop:
                continue
            held, offset = segment.keys(first, last)
            low = np.searchsorted(held, keys[mine], "left")
            counts = np.searchsorted(held, keys[mine], "right") - low
            which = np.repeat(np.arange(len(low)), counts)
            rows = low[which] + np.arange(len(which)) - np.repeat(np.cumsum(counts) - counts,
                                                                  counts)
            games, seqs = segment.at(offset + rows)
            hit = (seqs == nodes[mine][which]) & held_by(live, games)
            found.update(zip(order[mine][which[hit]].tolist(), games[hit].tolist(),
                             strict=True))
    return sorted(found)


def dupe_candidates(owners: Sequence[int], holders: Iterable[tuple[int, int]]) -> set[int]:
    """The games whose main line may be another's or a proper prefix of another's,
    or have another's as one: those whose last position (at the node it is
    on) another game holds (``holders``: pairs of a place in ``owners``, the
    games of :meth:`~gohash.index.index.Index.dupe_lasts` in order, and a game that
    holds that game's last position, :meth:`~gohash.index.index.Index.dupe_holders`), and
    those games."""
    found: set[int] = set()
    for i, holder in holders:
        if holder != owners[i]:
            found.update((owners[i], holder))
    return found


def group_dupes(
    candidates: set[int],
    frames: Callable[[list[int]], dict[int, tuple[tuple[bytes, ...], int]]],
    records: Callable[[list[int]], dict[int, Record]],
) -> Dupes:
    """The duplicates among the games ``candidates`` (those that may be one:
    :func:`dupe_candidates`), compared on their main lines' exact frames
    (``frames``, :meth:`~gohash.index.index.Index.main_frames`); ``records`` gives the records of
    game ids.  Groups and prefixes come in game id order."""
    sequences: dict[int, tuple[bytes, ...]] = {}
    last_element: dict[int, int] = {}
    for game_id, (sequence, last) in sorted(frames(sorted(candidates)).items()):
        sequences[game_id], last_element[game_id] = sequence, last
    by_sequence: dict[tuple[bytes, ...], list[int]] = {}
    for game_id, sequence in sequences.items():
        by_sequence.setdefault(sequence, []).append(game_id)
    known = records(sorted(candidates))

    def group(game_ids: list[int], length: int) -> DupeGroup:
        first = ELEMENTS[last_element[game_ids[0]]]
        return DupeGroup(
            tuple(known[g] for g in game_ids),
            tuple(ELEMENTS[last_element[g]].inverse.compose(first) for g in game_ids),
            length,
        )

    groups = {seq: group(ids, len(seq)) for seq, ids in sorted(by_sequence.items(),
                                                               key=lambda kv: kv[1][0])}
    prefixes = []
    # In lexicographic order a sequence follows its prefixes, with only
    # sequences that also extend them in between: a stack finds the longest.
    stack: list[tuple[bytes, ...]] = []
    for seq in sorted(by_sequence):
        while stack and seq[: len(stack[-1])] != stack[-1]:
            stack.pop()
        if stack:
            prefixes.append(Prefix(groups[stack[-1]], groups[seq]))
        stack.append(seq)
    prefixes.sort(key=lambda p: (p.shorter.records[0].id, p.longer.records[0].id))
    return Dupes([g for g in groups.values() if len(g.records) > 1], prefixes)


def main_frames(db: sqlite3.Connection, path: str, scheme: Callable[[int], KeyScheme],
                game_ids: Iterable[int]) -> dict[int, tuple[tuple[bytes, ...], int]]:
    """:meth:`~gohash.index.index.Index.main_frames` of the index at ``path``
    (``db`` open on it, ``scheme`` its key scheme by board size)."""
    out = {}
    for game_id in game_ids:
        require(db, "games", "id = ?", (game_id,), REPLAY_COLUMNS)
        size, nodes, main, blob = db.execute(
            "SELECT size, nodes, positions, record FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        boards = replay_game(path, game_id, blob, size, nodes, main - 1).boards[:main]
        keys = scheme(size)
        batch = frame_batch(boards, keys.hash_arrays(boards.reshape(-1, size, size)), keys)
        assert batch.frames is not None
        out[game_id] = tuple(map(bytes, batch.frames)), int(batch.elements[-1])
    return out
