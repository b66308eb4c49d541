"""Property tests of the superko checker: a reference, and a hash that collides.

The reference judges every move by scanning the whole history of numpy
position arrays, no hash at all; the checker must agree with it on random ko
fights, under every rule, with suicide allowed or not.  Then the same games
are checked with an 8-bit key scheme whose hashes collide all the time: the
verdicts must not change, which shows that every hash hit is confirmed.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gohash.board import Board
from gohash.schemes import KeyScheme
from gohash.superko import KINDS, RULES, Ruleset, Violation, check
from tests.kofight import RandomGame, Weak8Scheme, random_game, sgf_nodes

Verdict = tuple[int, str, int | None]


def reference(game: RandomGame, rules: Ruleset) -> list[Verdict]:
    """The violations of ``game`` by the definitions of DESIGN section 6, by brute force."""
    board = Board(game.size, simple_ko=False, suicide_allowed=True)
    # (move number, stones, player to move, made by a board play)
    history = [(0, board.to_array().tobytes(), "b", False)]
    found: list[Verdict] = []
    for number, (colour, point) in enumerate(game.moves, start=1):
        if point is None:
            board.pass_(colour)
            history.append((number, board.to_array().tobytes(), board.to_move, False))
            continue
        ko = board.ko_point == point and board.to_move == colour
        board.play(point, colour)
        stones, to_move = board.to_array().tobytes(), board.to_move
        same = [n for n, s, _, _ in history if s == stones]
        same_situation = [n for n, s, t, _ in history if s == stones and t == to_move]
        natural = [n for n, s, t, play in history if s == stones and t == to_move and play]
        if board.get(point) is None and not rules.suicide_allowed:
            found.append((number, "suicide", None))
        elif rules.rule == "simple" and ko:
            found.append((number, KINDS["simple"], number - 2))
        elif rules.rule == "simple" and same:
            found.append((number, "no result", same[-1]))
        else:
            earlier = {"positional": same, "situational": same_situation, "natural": natural}
            if earlier.get(rules.rule):
                found.append((number, KINDS[rules.rule], earlier[rules.rule][-1]))
        history.append((number, stones, to_move, True))
    return found


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


def verdicts(violations: list[Violation]) -> list[Verdict]:
    return [(v.move_number, v.kind, v.repeats) for v in violations]


games = st.builds(
    lambda seed, size, suicide: random_game(
        random.Random(seed), size, max_moves=100, suicide_allowed=suicide
    ),
    st.integers(0, 2**32),
    st.integers(5, 9),
    st.booleans(),
)
rulesets = st.builds(Ruleset, st.just("test"), st.sampled_from(RULES), st.booleans())


@settings(max_examples=60, deadline=None)
@given(games, rulesets)
def test_checker_agrees_with_the_reference(game: RandomGame, rules: Ruleset) -> None:
    (violations,) = checked(game, rules, "huima64")
    assert verdicts(violations) == reference(game, rules)


@settings(max_examples=40, deadline=None)
@given(games, rulesets)
def test_colliding_hash_changes_no_verdict(game: RandomGame, rules: Ruleset) -> None:
    weak, strong = checked(game, rules, Weak8Scheme(game.size), "huima64")
    assert weak == strong


def test_the_weak_hash_really_collides() -> None:
    """On these games a hash-only checker would give false verdicts: plays whose
    8-bit hash equals an earlier position's, though the stones differ."""
    rng = random.Random(5)
    false_hits = 0
    for _ in range(20):
        game = random_game(rng, rng.randint(5, 9), max_moves=100)
        board = Board(game.size, Weak8Scheme(game.size), simple_ko=False)
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
    scheme: str | KeyScheme = Weak8Scheme(size) if weak else "huima64"
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
