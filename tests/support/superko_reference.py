"""An independent superko reference: random records replayed step by step
(tests.support.sgfgen), each play judged against every earlier position under
each ruleset, and a check's result reduced to comparable tuples."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from gohash.go.ko import KINDS
from gohash.go.rulesets import RULES, Ruleset
from gohash.tools.superko import CheckResult
from tests.support import sgfgen

Point = tuple[int, int]


# game, variation, move number, colour, point, kind, repeats
Verdict = tuple[int, tuple[int, ...], int, str, Point, str, int | None]


Where = tuple[int, "tuple[int, ...] | None", int]


def reference(
    record: sgfgen.Record, rules: Ruleset, variations: bool
) -> tuple[list[Verdict], list[Where]]:
    """The verdicts and the errors, in walk order.  An error (a play on an
    occupied point included) ends its game, as in every tool."""
    verdicts: list[Verdict] = []
    errors: list[Where] = []
    ended: set[int] = set()
    for item in sgfgen.replay(record, variations=variations):
        if item.game in ended:
            continue
        if isinstance(item, sgfgen.Fault):
            errors.append((item.game, item.variation, item.move_number))
            ended.add(item.game)
        elif item.point is not None:
            found = judge(item, rules)
            if found is not None:
                assert item.colour is not None
                verdicts.append(
                    (item.game, item.variation, item.move_number, item.colour, item.point, *found)
                )
    return verdicts, errors


rulesets = st.builds(Ruleset, st.just("test"), st.sampled_from(RULES), st.booleans())


def outcome(result: CheckResult) -> tuple[Any, ...]:
    """Everything a check says, errors by type, text and place."""
    summary = result.summary
    return (
        result.violations,
        [(type(e).__name__, str(e), e.file, e.game, e.move_number, e.variation)
         for e in result.errors],
        (summary.files, summary.games, summary.positions, [str(e) for e in summary.errors],
         summary.notes),
    )


def judge(step: sgfgen.Step, rules: Ruleset) -> tuple[str, int | None] | None:
    """The violation of the board play that made ``step``, if any (docs/design.md,
    section "Ko and superko")."""
    assert step.colour is not None and step.point is not None
    line = step.before
    size = round(len(step.stones) ** 0.5)
    row, col = step.point
    if step.stones[row * size + col] is None and not rules.suicide_allowed:
        return "suicide", None
    # The player to move after each position: before the line's first move that
    # move's player, after a move its mover's opponent; setup changes nothing.
    positions = (*line, step)
    player = next(s.colour for s in positions if s.colour is not None)
    to_move: list[str] = []
    for s in positions:
        if s.colour is not None:
            player = "w" if s.colour == "b" else "b"
        to_move.append(player)
    if rules.rule == "simple":
        parent = line[-1]
        if (
            parent.ko == step.point
            and parent.colour is not None
            and parent.colour != step.colour
            and not step.setup
        ):
            return KINDS["simple"], line[-2].move_number
    same = [i for i, s in enumerate(line) if s.stones == step.stones]
    if rules.rule in ("situational", "natural"):
        same = [i for i in same if to_move[i] == to_move[-1]]
    if rules.rule == "natural":
        same = [i for i in same if line[i].point is not None]
    if not same:
        return None
    kind = "no result" if rules.rule == "simple" else KINDS[rules.rule]
    return kind, line[same[-1]].move_number
