"""read_positions() on every real record of ``../shared/corpus/``: the compiled core and the
pure walker agree column for column, error for error, note for note, and the core
leaves only the few unusual files to the walker."""

from __future__ import annotations

import pytest

from gohash.pipeline.positions import read_positions
from tests.support.env import CORPUS
from tests.support.positions import assert_same_as_pure

pytestmark = pytest.mark.corpus


@pytest.mark.parametrize("folder", ["small", "kgs-6d", "ai-games"])
def test_corpus_compiled_equals_pure(folder: str) -> None:
    paths = [str(CORPUS / folder)]
    fast = list(read_positions(paths, pure=False))
    flat = assert_same_as_pure(paths, fast=fast)
    assert len(flat["hash"]) > 40_000
    fallback = sum(b.pure_files for b in fast)
    files = len(list((CORPUS / folder).rglob("*.sgf")))
    # ai-games has its invalid UTF-8 (noted), HA without AB and moves in a row
    # at the start of a game, which the walker replays.
    assert fallback <= {"small": 2, "kgs-6d": 0, "ai-games": 50}[folder], (fallback, files)


def test_corpus_variations_packed_regular128() -> None:
    assert_same_as_pure([str(CORPUS / "small")], variations=True, packed=True,
                        scheme="regular128")
