"""Tests of the superko checker on the records of data/sgf/superko/.

Each record's expected verdicts under every ruleset are those of its README;
here they are a table.  Also: the marked diagram, rulesets and overrides,
per-line history with variations, and a setup position that White plays from.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gohash.errors import OccupiedPointError, UnknownRuleError
from gohash.go.board import Board
from gohash.go.ko import KINDS, marked_diagram
from gohash.go.rulesets import RULESETS, Ruleset, ruleset
from gohash.tools.superko import check
from tests.support.kofight import WeakScheme
from tests.support.superko_expected import ERRORS, EXPECTED, PSK, RECORDS, Verdict

# Rules in columns: chinese (PSK), aga (SSK), natural (NSSK, suicide forbidden),
# tromp-taylor (PSK, suicide allowed), new-zealand (SSK, suicide allowed), japanese.
COLUMNS: dict[str, Ruleset] = {
    "chinese": RULESETS["chinese"],
    "aga": RULESETS["aga"],
    "natural": ruleset("aga", rule="natural"),
    "tromp-taylor": RULESETS["tromp-taylor"],
    "new-zealand": RULESETS["new-zealand"],
    "japanese": RULESETS["japanese"],
}


def verdicts(path: Path, rules: Ruleset, **options: object) -> list[Verdict]:
    result = check([str(path)], rules, **options)  # type: ignore[arg-type]
    assert [str(e) for e in result.errors] == ERRORS.get(path.stem, [])
    return [(v.move_number, v.kind, v.repeats, v.cycle) for v in result.violations]


def test_every_record_has_expectations() -> None:
    assert {p.stem for p in RECORDS.glob("*.sgf")} == EXPECTED.keys()


@pytest.mark.parametrize("column", COLUMNS)
@pytest.mark.parametrize("record", EXPECTED)
def test_record_verdicts(record: str, column: str) -> None:
    assert verdicts(RECORDS / f"{record}.sgf", COLUMNS[column]) == EXPECTED[record][column]


def test_readme_documents_every_record() -> None:
    readme = (RECORDS / "README.md").read_text()
    for record in EXPECTED:
        assert f"{record}.sgf" in readme


def test_violation_fields_and_headline() -> None:
    (violation,) = check([str(RECORDS / "triple-ko.sgf")]).violations
    assert violation.to_json() == {
        "file": str(RECORDS / "triple-ko.sgf"),
        "game": 0,
        "variation": [],
        "move_number": 28,
        "colour": "w",
        "move": "bd",
        "gtp": "B6",
        "kind": "positional superko",
        "repeats": 22,
        "cycle": 6,
    }
    assert violation.headline().endswith(
        "game 0, move 28: white B6: positional superko, "
        "recreates the position after move 22 (cycle 6)"
    )


def test_diagram_marks_the_move_in_the_repeated_position() -> None:
    (violation,) = check([str(RECORDS / "triple-ko.sgf")]).violations
    assert violation.diagram == "\n".join(
        [
            "9 . . . . . . . . X",
            "8 . . . . . . . . .",
            "7 . X O . . . . . .",
            "6 X(O). O . . . . .",
            "5 . X O . . . . . .",
            "4 . . . . . . . . .",
            "3 . X O . . . X O .",
            "2 X O . O . X . X O",
            "1 . X O . . . X O .",
            "  A B C D E F G H J",
        ]
    )


def test_marked_diagram_reads_back_without_the_marks() -> None:
    board = Board.from_diagram(
        """
        3 . X O
        2 X O .
        1 . X O
          A B C
        """
    )
    text = marked_diagram(board, (1, 1))
    assert text.splitlines()[1] == "2 X(O)."
    assert Board.from_diagram(text.replace("(", " ").replace(")", " ")).to_array().tolist() == (
        board.to_array().tolist()
    )
    assert marked_diagram(board, None) == str(board)


def test_ruleset_overrides_and_errors() -> None:
    assert ruleset() == RULESETS["chinese"]
    assert ruleset("japanese", rule="positional") == Ruleset("japanese", "positional", False)
    assert ruleset("chinese", suicide_allowed=True).suicide_allowed
    with pytest.raises(UnknownRuleError, match="'ing'"):
        ruleset("ing")
    with pytest.raises(UnknownRuleError, match="'super'"):
        ruleset("chinese", rule="super")


def test_ruleset_table_of_the_design() -> None:
    table = {name: (r.rule, r.suicide_allowed) for name, r in RULESETS.items()}
    assert table == {
        "tromp-taylor": ("positional", True),
        "chinese": ("positional", False),
        "aga": ("situational", False),
        "new-zealand": ("situational", True),
        "japanese": ("simple", False),
        "korean": ("simple", False),
    }


# Moves 1-8 build a ko on 5x5: White's B2 inside Black's A2, B1, B3; Black
# takes at C2, inside White's C1, C3, D2.
KO_BUILD = ";B[bc];W[cc];B[ad];W[bd];B[be];W[dd];B[ea];W[ce]"


def test_history_is_per_variation(tmp_path: Path) -> None:
    """A position reached in one variation is no repetition in its sibling."""
    # Main line: Black takes (9), two passes, White retakes (12): the position
    # after move 8 again.  Variation 1 passes first and takes at move 11: the
    # position the main line had after move 9, but new in its own line.
    path = tmp_path / "variations.sgf"
    path.write_text(f"(;GM[1]FF[4]SZ[5]{KO_BUILD}(;B[cd];W[];B[];W[bd])(;B[];W[];B[cd];W[ee]))")
    result = check([str(path)], variations=True)
    assert [(v.variation, v.move_number, v.repeats) for v in result.violations] == [((), 12, 8)]


def test_variations_off_checks_the_main_line_only(tmp_path: Path) -> None:
    path = tmp_path / "variations.sgf"
    path.write_text(f"(;GM[1]FF[4]SZ[5]{KO_BUILD}(;B[ee])(;B[cd];W[];B[];W[bd]))")
    assert check([str(path)]).violations == []
    (violation,) = check([str(path)], variations=True).violations
    assert (violation.variation, violation.move_number, violation.repeats) == ((1,), 12, 8)


def test_nested_variations_forget_the_line_left(tmp_path: Path) -> None:
    """Back at an outer branch point, the inner lines are forgotten too."""
    path = tmp_path / "nested.sgf"
    path.write_text(
        f"(;GM[1]FF[4]SZ[5]{KO_BUILD}"
        "(;B[cd](;W[];B[];W[bd])(;W[ee]))"
        "(;B[];W[];B[cd];W[];B[];W[bd]))"
    )
    result = check([str(path)], variations=True)
    assert [(v.variation, v.move_number, v.repeats) for v in result.violations] == [
        ((), 12, 8),
        ((1,), 14, 10),
    ]


def test_bad_input_is_an_error_and_the_batch_goes_on(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]SZ[5];B[cc];W[zz];B[dd])")
    result = check([str(bad), str(RECORDS / "triple-ko.sgf")])
    assert len(result.errors) == 1
    assert result.errors[0].file == str(bad) and result.errors[0].move_number == 2
    assert [v.move_number for v in result.violations] == [28]


# -- regressions ---------------------------------------------------------------------


def test_regression_zero_sum_setup_is_no_blind_spot(tmp_path: Path) -> None:
    """Under huima64 the four side star points XOR to 0, so the root setup and the
    empty board after AE share a hash: both must stay in the history, each
    confirmed exactly, and move 7 recreates the root position."""
    path = tmp_path / "stars.sgf"
    path.write_text(
        "(;SZ[19]AB[jd][dj][pj][jp];AE[jd][dj][pj][jp];B[jd];W[];B[dj];W[];B[pj];W[];B[jp])"
    )
    weak = (WeakScheme(19, 8), WeakScheme(19, 0))
    for scheme in ("huima64", "huima64-add", "regular64", "regular128", *weak):
        result = check([str(path)], scheme=scheme)
        assert result.errors == []
        assert [(v.move_number, v.kind, v.repeats, v.cycle) for v in result.violations] == [
            (7, PSK, 0, 7)
        ], scheme


def test_regression_root_error_is_no_repetition(tmp_path: Path) -> None:
    """An error in the root setup must not make the walker show the root
    position again after move 1 (it once did: a false superko at move 1)."""
    path = tmp_path / "root-error.sgf"
    path.write_text("(;SZ[9]AB[zz];B[ee];W[cc])")
    result = check([str(path)])
    assert result.violations == []
    (error,) = result.errors
    assert "bad point b'zz'" in str(error) and error.move_number == 0
    path.write_text("(;SZ[9]B[ee];W[cc])")  # a move in the root, no error
    assert check([str(path)]).violations == []


def test_variation_with_setup_repeats_a_position_of_the_shared_history(
    tmp_path: Path,
) -> None:
    """Variation 1 opens with a node that removes White's C1 and plays elsewhere;
    then White plays C1 again, recreating the position after move 8, a
    situation made by a play: the history shared with the main line is there."""
    path = tmp_path / "variation-setup.sgf"
    path.write_text(f"(;GM[1]FF[4]SZ[5]{KO_BUILD}(;B[ee])(;AE[ce]W[ee];AE[ee]W[ce]))")
    for rules in (RULESETS["chinese"], RULESETS["aga"]):
        result = check([str(path)], rules, variations=True)
        assert result.errors == []
        assert [
            (v.variation, v.move_number, v.kind, v.repeats) for v in result.violations
        ] == [((1,), 10, KINDS[rules.rule], 8)]


def test_occupied_point_is_an_error_that_ends_the_game(tmp_path: Path) -> None:
    """In a variation too (the error names it); the violations before it stay, the
    plays after it are not judged, and the next game is checked."""
    path = tmp_path / "occupied.sgf"
    path.write_text(
        f"(;GM[1]FF[4]SZ[5]{KO_BUILD}(;B[cd];W[];B[];W[bd];B[ee])(;B[ee];W[ee];B[cd];W[]))"
        f"(;GM[1]FF[4]SZ[5]{KO_BUILD};B[cd];W[];B[];W[bd])"
    )
    result = check([str(path)], variations=True)
    assert [(v.game, v.variation, v.move_number) for v in result.violations] == [
        (0, (), 12), (1, (), 12)
    ]
    (error,) = result.errors
    assert isinstance(error, OccupiedPointError)
    assert (error.game, error.variation, error.move_number) == (0, (1,), 10)
    assert str(error) == f"{path}, game 0, move 10: white at 'E1' is occupied"
