"""Continuations summed up on arrays: one tally for pattern search and the index.

Scope: :func:`tally`, which sums occurrences (or tallies of parts) up by group:
how many, how many of them in games Black won and White won, and the range of
their dates as ranks; :func:`run_starts`, where the runs of sorted rows
begin.  What a group is (a next move in the query's orientation, a row of
the index's grouped occurrences) is the caller's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = ["NO_FIRST", "Tally", "run_starts", "tally"]

NO_FIRST = int(np.iinfo(np.int64).max)
"""The ``first`` date rank of a group none of whose games has a date (its ``last`` is -1)."""


class Tally(NamedTuple):
    """Per group: ``occurrences``, ``black_wins`` and ``white_wins`` of
    them in games Black or White won, ``first`` and ``last`` the lowest and
    highest date rank among them (:data:`NO_FIRST` and -1: none dated)."""

    occurrences: npt.NDArray[np.int64]
    black_wins: npt.NDArray[np.int64]
    white_wins: npt.NDArray[np.int64]
    first: npt.NDArray[np.int64]
    last: npt.NDArray[np.int64]


def tally(
    which: npt.NDArray[np.intp], groups: int, black: npt.NDArray[np.generic],
    white: npt.NDArray[np.generic], first: npt.NDArray[np.int64],
    last: npt.NDArray[np.int64] | None = None, count: npt.NDArray[np.int64] | None = None,
) -> Tally:
    """The :class:`Tally` of ``groups`` groups of items, ``which`` each item's group.

    An item is one occurrence (``count`` None; ``black``, ``white`` whether its
    game was won by Black, by White; ``first`` its game's date rank, -1 none,
    ``last`` None) or the tally of a part (``count``, ``black``, ``white``,
    ``first`` and ``last`` its group's), so that tallies of disjoint parts add
    up to the tally of their union."""
    def summed(weights: npt.NDArray[np.generic] | None) -> npt.NDArray[np.int64]:
        return np.bincount(which, weights=weights, minlength=groups).astype(np.int64)

    lowest = np.full(groups, NO_FIRST, dtype=np.int64)
    dated = first >= 0
    np.minimum.at(lowest, which[dated], first[dated])
    highest = np.full(groups, -1, dtype=np.int64)
    np.maximum.at(highest, which, first if last is None else last)
    return Tally(summed(count), summed(black), summed(white), lowest, highest)


def run_starts(*columns: npt.NDArray[np.generic]) -> npt.NDArray[np.intp]:
    """The rows (of ``columns``, of one length) that differ from the row before
    in some column: where each run of equal rows begins, row 0 first (none for
    no rows).  Compares neighbours in place, where ``np.diff(prepend=...)``
    would build and subtract a copy of each column."""
    changed = np.zeros(len(columns[0]), dtype=np.bool_)
    changed[:1] = True
    for column in columns:
        changed[1:] |= column[1:] != column[:-1]
    return np.flatnonzero(changed)
