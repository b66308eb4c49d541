"""The index answers as the storage before it did (differential, tests/support/index_answers.py).

The references in tests/data were written by the index of format version 3
(frames and occurrences) on the same inputs, samples and seed.  Where the
storage since changed a rule on purpose, the comparison says so: continuations
count a game once however often it repeats the position (version 3 counted
every occurrence), so for a sample where some game holds the query twice only
the moves played are compared, not their counts; and the empty boards of
other sizes no longer share the empty board's key, so ``rejected`` (positions
with the key but other stones) is compared for the other samples only.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from tests.support.env import ROOT, require_corpus
from tests.support.index_answers import answers

DATA = ROOT / "tests" / "data"


def _reference(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(gzip.decompress((DATA / name).read_bytes()))
    return loaded


def _repeats(find: dict[str, Any]) -> bool:
    games = [(m[0], m[1]) for m in find["matches"]]
    return len(games) != len(set(games))


def _compare(reference: dict[str, Any], inputs: list[str], variations: bool,
             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the inputs are named from the checkout, as files are stored
    got = answers(inputs, count=0, seed=reference["seed"], variations=variations,
                  samples=reference["samples"])
    got = json.loads(json.dumps(got))  # tuples as the reference holds them: lists
    assert got["dupes"] == reference["dupes"]
    for number, (want, have) in enumerate(zip(reference["answers"], got["answers"],
                                              strict=True)):
        where = f"sample {number}"
        if not any(any(row) for row in reference["samples"][number]["stones"]):
            want["find"]["rejected"] = have["find"]["rejected"]  # the empty board
        assert have["find"] == want["find"], where
        assert have["find_b"] == want["find_b"], where
        for name in ("continuations", "continuations_any_d4"):
            if _repeats(want["find"]):
                moves = sorted((m[0], tuple(m[1] or ())) for m in want[name]["moves"])
                assert sorted((m[0], tuple(m[1] or ())) for m in have[name]["moves"]) == moves
            else:
                assert have[name] == want[name], f"{where} {name}"


@pytest.mark.parametrize("variations", [False, True])
def test_answers_on_data_sgf(variations: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    name = "index-answers-sgf-variations.json.gz" if variations else "index-answers-sgf.json.gz"
    reference = _reference(name)
    _compare(reference, reference["inputs"], variations, monkeypatch)


@pytest.mark.corpus
def test_answers_on_the_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    require_corpus()
    reference = _reference("index-answers-corpus.json.gz")
    _compare(reference, reference["inputs"], False, monkeypatch)
