"""The superko check on every real record of ``../shared/corpus/``: judged on columns
(the compiled core's files) it says exactly what the visitor walk says, under
chinese, aga and japanese, with and without variations.

One walk per variations setting feeds a visitor for each ruleset, as
``check(..., pure=True)`` would one at a time, so the reference costs two walks
(each game's RU is tests/tools/test_superko_columns.py's, on our records).
"""

from __future__ import annotations

import pytest

from gohash.errors import GohashError
from gohash.go.rulesets import RULESETS, Ruleset
from gohash.pipeline.positions import CORE_AVAILABLE
from gohash.sgf.walk import BaseVisitor, GameInfo, PositionEvent, walk_paths
from gohash.tools.superko import CheckResult, SuperkoVisitor, check
from tests.support.env import CORPUS
from tests.support.superko_reference import outcome

pytestmark = pytest.mark.corpus

RULES: dict[str, Ruleset] = {
    "chinese": RULESETS["chinese"],
    "aga": RULESETS["aga"],
    "japanese": RULESETS["japanese"],
}


class Fan(BaseVisitor):
    """Hands the walk to several visitors."""

    def __init__(self, visitors: list[SuperkoVisitor]) -> None:
        self.visitors = visitors

    def begin_game(self, info: GameInfo) -> None:
        for visitor in self.visitors:
            visitor.begin_game(info)

    def visit_position(self, event: PositionEvent) -> None:
        for visitor in self.visitors:
            visitor.visit_position(event)

    def end_game(self, info: GameInfo) -> None:
        for visitor in self.visitors:
            visitor.end_game(info)

    def handle_error(self, error: GohashError) -> bool:
        return all([visitor.handle_error(error) for visitor in self.visitors])


@pytest.mark.parametrize("variations", [False, True])
def test_corpus_columns_equal_visitor(variations: bool) -> None:
    assert CORE_AVAILABLE
    paths = [str(CORPUS)]
    visitors = [SuperkoVisitor(rules) for rules in RULES.values()]
    summary = walk_paths(paths, Fan(visitors), variations=variations,
                   board_options=dict(SuperkoVisitor.BOARD_OPTIONS))
    counts = {}
    for (name, rules), visitor in zip(RULES.items(), visitors, strict=True):
        fast = check(paths, rules, variations=variations, pure=False)
        assert outcome(fast) == outcome(CheckResult(visitor.violations, visitor.errors, summary))
        counts[name] = len(fast.violations)
    # The corpus's real repetitions: 8 recreate an earlier position, 3 a situation
    # (its 13 plays on occupied points are errors, not violations).
    assert counts == {"chinese": 8, "aga": 3, "japanese": 8}
