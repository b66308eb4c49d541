"""Property tests of the superko checker against an independent reference.

The reference knows nothing of gohash's board, hashes or history: it replays a
generated record's description on sgfmill's board (``tests.support.sgfgen.replay``,
every line with all its earlier positions), and judges every board play by the
rules of docs/design.md, section "Ko and superko", comparing the full board with
every earlier position of the line.  The checker must agree with it, verdict for
verdict and error for error, on random records with setup anywhere, passes,
handicap forms, bad properties, illegal moves, one colour moving twice and
variations, under every rule, with suicide allowed or not, under every key
scheme, and under an 8-bit scheme whose hashes collide all the time (so a hash
hit never decides).  Long ko fights (tests/support/kofight.py) go through the same
reference.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gohash.go.board import Board
from gohash.go.ko import Violation
from gohash.go.rulesets import Ruleset
from gohash.group.schemes import SCHEMES, KeyScheme
from gohash.sgf.inputs import Source
from gohash.sgf.walk import walk_source
from gohash.tools.superko import SuperkoVisitor, check
from tests.support import sgfgen
from tests.support.kofight import RandomGame, WeakScheme, random_game, sgf_nodes
from tests.support.superko_reference import Verdict, Where, reference, rulesets
from tests.support.verdict_records import TARGETS, occupied_in_a_variation, pinned, reaches


def checker(
    record: sgfgen.Record, rules: Ruleset, variations: bool, scheme: str | KeyScheme
) -> tuple[list[Verdict], list[Where]]:
    visitor = SuperkoVisitor(rules)
    walk_source(
        Source("gen.sgf", record.sgf().encode()),
        visitor,
        variations=variations,
        board_options={**SuperkoVisitor.BOARD_OPTIONS, "scheme": scheme},
    )
    for v in visitor.violations:
        assert v.cycle == (None if v.repeats is None else v.move_number - v.repeats)
    verdicts = [
        (v.game, v.variation, v.move_number, v.colour, v.point, v.kind, v.repeats)
        for v in visitor.violations
    ]
    errors: list[Where] = [(e.game or 0, e.variation, e.move_number or 0) for e in visitor.errors]
    return verdicts, errors


scheme_names = st.sampled_from([*SCHEMES, "weak8", "weak0"])


def key_scheme(name: str, size: int) -> str | KeyScheme:
    return WeakScheme(size, int(name[4:])) if name.startswith("weak") else name


# An error ends its game: records without faulty moves reach the long fights too.
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.booleans().flatmap(lambda faults: sgfgen.records(same_size=True, faults=faults)),
    rulesets, st.booleans(), scheme_names,
)
def test_checker_agrees_with_the_reference(
    record: sgfgen.Record, rules: Ruleset, variations: bool, scheme: str
) -> None:
    size = record.games[0].size
    assert checker(record, rules, variations, key_scheme(scheme, size)) == reference(
        record, rules, variations
    )


games = st.builds(
    lambda seed, size, suicide: random_game(
        random.Random(seed), size, max_moves=100, suicide_allowed=suicide
    ),
    st.integers(0, 2**32),
    st.integers(5, 9),
    st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(games, rulesets, scheme_names)
def test_checker_agrees_with_the_reference_on_ko_fights(
    game: RandomGame, rules: Ruleset, scheme: str
) -> None:
    """Long fights on small boards, which cycle through kos again and again."""
    record = sgfgen.Record((sgfgen.game_of_moves(game.size, game.moves),))
    expected = reference(record, rules, False)
    assert checker(record, rules, False, key_scheme(scheme, game.size)) == expected
    if game.first_repetition is not None and rules.rule == "positional":
        assert expected[0], "a repetition the reference did not see"


def test_generated_records_reach_every_verdict() -> None:
    """The generator is no idle test: it makes records in which the reference
    finds each kind of violation, in a variation too, and a play on an occupied
    point in a variation (records it made, pinned: tests.support.verdict_records);
    the checker agrees with the reference on each."""
    records = pinned()
    assert records.keys() == {name for name, _, _ in TARGETS} | {"occupied"}
    for name, rules, kind in TARGETS:
        assert reaches(records[name], rules, kind), name
        assert checker(records[name], rules, True, "regular64") == reference(
            records[name], rules, True), name
    assert occupied_in_a_variation(records["occupied"])


def test_the_weak_hash_really_collides() -> None:
    """On these games a hash-only checker would give false verdicts: plays whose
    8-bit hash equals an earlier position's, though the stones differ."""
    rng = random.Random(5)
    false_hits = 0
    for _ in range(20):
        game = random_game(rng, rng.randint(5, 9), max_moves=100)
        board = Board(game.size, WeakScheme(game.size, 8), simple_ko=False)
        seen: dict[int, set[bytes]] = {board.hash: {board.position_key()}}
        for colour, point in game.moves:
            if point is None:
                board.pass_(colour)
                continue
            board.play(point, colour)
            keys = seen.setdefault(board.hash, set())
            false_hits += bool(keys) and board.position_key() not in keys
            keys.add(board.position_key())
    assert false_hits > 100


def checked(
    game: RandomGame, rules: Ruleset, *schemes: str | KeyScheme
) -> list[list[Violation]]:
    """The violations found in ``game`` with each key scheme."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.sgf"
        path.write_text(game.sgf())
        results = [check([str(path)], rules, scheme=scheme) for scheme in schemes]
    assert not any(result.errors for result in results)
    return [result.violations for result in results]


def verdicts(violations: list[Violation]) -> list[tuple[int, str, int | None]]:
    return [(v.move_number, v.kind, v.repeats) for v in violations]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(5, 9), rulesets, st.booleans())
def test_each_variation_is_checked_as_its_own_game(
    seed: int, size: int, rules: Ruleset, weak: bool
) -> None:
    """A tree of two lines that share an opening: with variations, each line's
    verdicts are those of the line checked alone (the opening's only once)."""
    rng = random.Random(seed)
    main = random_game(rng, size, max_moves=60)
    fork = rng.randrange(len(main.moves))
    other = random_game(
        rng, size, max_moves=fork + 30, after_repetition=fork + 30, prefix=main.moves[:fork]
    )
    assert len(other.moves) == fork + 30
    opening, rest, branch = (
        sgf_nodes(size, moves)
        for moves in (main.moves[:fork], main.moves[fork:], other.moves[fork:])
    )
    scheme: str | KeyScheme = WeakScheme(size, 8) if weak else "huima64"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tree.sgf"
        path.write_text(f"(;GM[1]FF[4]SZ[{size}]{opening}({rest})({branch}))\n")
        result = check([str(path)], rules, variations=True, scheme=scheme)
    found = [
        (v.variation, *verdict)
        for v, verdict in zip(result.violations, verdicts(result.violations), strict=True)
    ]
    (alone_main,) = checked(main, rules, scheme)
    (alone_other,) = checked(other, rules, scheme)
    expected = [((), *v) for v in verdicts(alone_main)] + [
        ((1,), *v) for v in verdicts(alone_other) if v[0] > fork
    ]
    assert found == expected
