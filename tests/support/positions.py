"""The compiled and pure paths of ``read_positions`` compared batch by batch, and
the sample records of data/sgf."""

from __future__ import annotations

from typing import Any

import numpy as np

from gohash.pipeline.positions import CORE_AVAILABLE, PositionBatch, read_positions
from tests.support.env import ROOT

DATA = ROOT / "data" / "sgf"
DATA_FILES = sorted(str(p) for p in DATA.rglob("*.sgf"))


def assert_same_as_pure(sources: list[Any], *, fast: list[PositionBatch] | None = None,
                        **options: Any) -> dict[str, Any]:
    """The compiled and the pure path give the same batches; returns them flattened.
    ``fast``: the compiled path's batches, if the caller read them already."""
    assert CORE_AVAILABLE, "the compiled core is not built: nothing to compare"
    if fast is None:
        fast = list(read_positions(sources, pure=False, **options))
    slow = list(read_positions(sources, pure=True, **options))
    assert [len(b) for b in fast] == [len(b) for b in slow]
    assert [b.files for b in fast] == [b.files for b in slow]
    a, b = flatten(fast), flatten(slow)
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert a[key].dtype == b[key].dtype, key
            assert np.array_equal(a[key], b[key]), key
        else:
            assert a[key] == b[key], key
    return a


def flatten(batches: list[PositionBatch]) -> dict[str, Any]:
    """Everything the batches say, with variation ids replaced by their paths and file
    ids by names, so two runs compare whatever their batch boundaries."""
    out: dict[str, Any] = {"errors": [], "notes": [], "games": [], "packed": [],
                           "error_files": [], "note_files": [], "file_games": []}
    columns: dict[str, list[Any]] = {}
    for batch in batches:
        for name, column in batch.columns().items():
            columns.setdefault(name, []).append(column)
        paths = np.empty(len(batch), dtype=object)  # tuples as objects, not a 2-D array
        for row, variation in enumerate(batch.variation.tolist()):
            paths[row] = batch.variations[variation]
        columns.setdefault("path", []).append(paths)
        columns.setdefault("name", []).append(np.array([batch.files[f] for f in batch.file]))
        out["errors"] += [
            (type(e).__name__, str(e), e.file, e.game, e.move_number) for e in batch.errors
        ]
        out["notes"] += batch.notes
        out["error_files"] += [batch.files.get(f) for f in batch.error_files]
        out["note_files"] += [batch.files[f] for f in batch.note_files]
        out["file_games"] += [(batch.files[f], n) for f, n in batch.file_games.items()]
        games = batch.games
        out["games"] += [
            (batch.files[f], g, s, h, tuple(games.text[n][i] for n in sorted(games.text)))
            for i, (f, g, s, h) in enumerate(
                zip(games.file.tolist(), games.game.tolist(), games.size.tolist(),
                    games.handicap.tolist(), strict=True)
            )
        ]
        if batch.packed_data is not None:
            out["packed"] += [batch.packed(i) for i in range(len(batch))]
        if batch.frame_data is not None:
            out.setdefault("frames", []).extend(batch.frame(i) for i in range(len(batch)))
    for name, parts in columns.items():
        out[name] = np.concatenate(parts) if parts else np.empty(0)
    return out
