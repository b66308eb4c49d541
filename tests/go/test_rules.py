"""Rules from the record: RU spellings, suicide under the game's rules in every
command that replays games (canon, index build, audit, superko), the
``--suicide`` override, and suicide replay checked against sgfmill's board."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards

import gohash
from gohash.cli import main
from gohash.errors import GohashError, UnknownRuleError
from gohash.go import rulesets
from gohash.go.rulesets import RULESETS, Ruleset, record_ruleset
from gohash.index.find import position_from_sgf
from gohash.index.index import Index
from gohash.sgf.inputs import Source
from gohash.sgf.walk import walk_paths, walk_source
from gohash.tools.audit import audit_paths
from gohash.tools.canon import CanonOptions, write_records
from gohash.tools.superko import check
from tests.support.rules import MOVES, NZ, SUICIDE, TT, Point, Positions, sgfmill_positions
from tests.support.sgfgen import sgf_point

# -- RU spellings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ru", "name"),
    [
        ("Chinese", "chinese"),
        ("CHINESE", "chinese"),
        ("Japanese", "japanese"),
        (" japanese ", "japanese"),
        ("Korean", "korean"),
        ("AGA", "aga"),
        ("aga", "aga"),
        ("NZ", "new-zealand"),
        ("New Zealand", "new-zealand"),
        ("new-zealand", "new-zealand"),
        ("Tromp-Taylor", "tromp-taylor"),
        ("Tromp/Taylor", "tromp-taylor"),
        ("tromp taylor", "tromp-taylor"),
        ("TT", "tromp-taylor"),
        ("GOE", "tromp-taylor"),
        ("Ing", "tromp-taylor"),
        ("TT--", "chinese"),
        ("CGOS", "chinese"),
        ("", "chinese"),
    ],
)
def test_ru_spellings_name_the_rulesets(ru: str, name: str) -> None:
    assert record_ruleset(ru) == (RULESETS[name], None)


def test_an_unknown_ru_gets_the_default_and_a_note() -> None:
    assert record_ruleset(None) == (RULESETS["chinese"], None)
    assert record_ruleset("Fair Play") == (
        RULESETS["chinese"],
        "RU[Fair Play] is not a ruleset gohash knows: the default, chinese, applies",
    )
    assert record_ruleset("T T") == record_ruleset("TT")
    assert record_ruleset("T-T-")[1] is not None  # a mark after the last word is kept
    ruleset, note = record_ruleset("x" * 1000)
    assert ruleset == RULESETS["chinese"] and note is not None and len(note) < 120
    visitor = Positions()
    summary = walk_source(Source("t.sgf", b"(;SZ[5]RU[Fair Play];B[aa])"), visitor)
    assert visitor.games[0].ruleset == RULESETS["chinese"]
    assert visitor.games[0].notes == [record_ruleset("Fair Play")[1]]
    assert summary.notes == [f"t.sgf, game 0: {record_ruleset('Fair Play')[1]}"]


def test_one_ruleset_table_for_every_tool() -> None:
    assert gohash.RULESETS is rulesets.RULESETS and gohash.Ruleset is Ruleset
    assert gohash.ruleset("aga", suicide_allowed=True) == Ruleset("aga", "situational", True)
    assert RULESETS["new-zealand"].overridden(rule="natural") == Ruleset(
        "new-zealand", "natural", True
    )
    with pytest.raises(UnknownRuleError, match="'super'"):
        RULESETS["chinese"].overridden(rule="super")


# -- replaying suicide under the record's rules ------------------------------------------------


@pytest.mark.parametrize("path", [NZ, TT])
def test_records_replay_through_suicide_under_their_rules(path: Path) -> None:
    visitor = Positions()
    summary = walk_paths([str(path)], visitor)
    assert visitor.errors == [] and summary.notes == []
    assert visitor.games[0].ruleset.suicide_allowed
    assert [n for n, _ in visitor.positions] == list(range(MOVES[path] + 1))
    assert [p for _, p in visitor.positions] == sgfmill_positions(path)
    before, after = (visitor.positions[SUICIDE[path] + i][1] for i in (-1, 0))
    assert len(after) < len(before)  # the group is gone


@pytest.mark.parametrize("path", [NZ, TT])
def test_suicide_forbidden_overrides_ru(path: Path) -> None:
    visitor = Positions()
    walk_paths([str(path)], visitor, board_options={"suicide_allowed": False})
    (error,) = visitor.errors
    assert error.move_number == SUICIDE[path] and "suicide" in str(error)
    assert visitor.positions[-1][0] == SUICIDE[path] - 1


def test_suicide_allowed_overrides_the_default() -> None:
    data = NZ.read_bytes().replace(b"RU[NZ]", b"")
    visitor = Positions()
    walk_source(Source("t.sgf", data), visitor)
    assert [e.move_number for e in visitor.errors] == [SUICIDE[NZ]]
    visitor = Positions()
    walk_source(Source("t.sgf", data), visitor, board_options={"suicide_allowed": True})
    assert visitor.errors == [] and len(visitor.positions) == MOVES[NZ] + 1


def random_suicide_game(rng: random.Random, size: int, moves: int) -> tuple[str, int]:
    """A random game played on sgfmill's board, preferring suicides, as an SGF
    move sequence; and how many of its suicides removed two stones or more."""
    board = boards.Board(size)
    colour, ko = "b", None
    nodes, multi = [], 0
    for _ in range(moves):
        empty = [(r, c) for r in range(size) for c in range(size)
                 if board.get(r, c) is None and (r, c) != ko]
        suicides = []
        for r, c in empty:
            trial = board.copy()
            trial.play(r, c, colour)
            if trial.get(r, c) is None:
                suicides.append((r, c))
        if suicides and rng.random() < 0.4:
            point: Point | None = rng.choice(suicides)
        elif empty and rng.random() < 0.95:
            point = rng.choice(empty)
        else:
            point = None
        if point is None:
            ko = None
            nodes.append(f";{colour.upper()}[]")
        else:
            before = len(board.list_occupied_points())
            ko = board.play(point[0], point[1], colour)
            if board.get(*point) is None and before - len(board.list_occupied_points()) >= 2:
                multi += 1
            nodes.append(f";{colour.upper()}[{sgf_point(point, size)}]")
        colour = "w" if colour == "b" else "b"
    return "".join(nodes), multi


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([4, 5, 6]), st.sampled_from(["NZ", "Tromp-Taylor"]))
def test_suicide_replay_agrees_with_sgfmill(seed: int, size: int, ru: str) -> None:
    nodes, _ = random_suicide_game(random.Random(seed), size, 60)
    data = f"(;GM[1]FF[4]SZ[{size}]RU[{ru}]{nodes})".encode()
    visitor = Positions()
    walk_source(Source("t.sgf", data), visitor)
    assert visitor.errors == []
    reference = boards.Board(size)
    expected: list[dict[Point, str]] = [{}]
    colour = "b"
    for node in nodes.split(";")[1:]:
        move = node[2:-1]
        if move:
            point = (size - 1 - (ord(move[1]) - 97), ord(move[0]) - 97)
            reference.play(point[0], point[1], colour)
        expected.append({p: c for c, p in reference.list_occupied_points()})
        colour = "w" if colour == "b" else "b"
    assert [p for _, p in visitor.positions] == expected


def test_the_random_games_do_hold_multi_stone_suicides() -> None:
    rng = random.Random(7)
    assert sum(random_suicide_game(rng, 5, 60)[1] for _ in range(20)) >= 5


# -- every command ------------------------------------------------------------------------------


def canon_lines(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["canon", *argv])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_canon_honours_ru_and_the_override(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = canon_lines(capsys, str(NZ), str(TT))
    assert code == 0 and "0 errors" in err
    assert len(lines) == MOVES[NZ] + 1 + MOVES[TT] + 1
    assert json.loads(lines[-1])["move_number"] == MOVES[TT]
    for jobs in ("1", "2"):
        code, lines, err = canon_lines(
            capsys, "--suicide", "forbidden", "--jobs", jobs, str(NZ), str(TT)
        )
        assert code == 2 and len(lines) == SUICIDE[NZ] + SUICIDE[TT]
        assert f"error: {NZ}, game 0, move 9: " in err
        assert f"error: {TT}, game 0, move 6: " in err
    # The library: the same option, spelled as a boolean.
    out: list[str] = []
    summary = write_records([str(NZ)], out.append, CanonOptions(suicide_allowed=False))
    assert [e.move_number for e in summary.errors] == [SUICIDE[NZ]]


def test_canon_says_an_unknown_ru_applies_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "odd.sgf"
    path.write_bytes(NZ.read_bytes().replace(b"RU[NZ]", b"RU[Lunar]"))
    code, lines, err = canon_lines(capsys, str(path))
    assert code == 2 and len(lines) == SUICIDE[NZ]
    assert f"note: {path}, game 0: RU[Lunar] is not a ruleset gohash knows" in err


def test_index_build_honours_ru_and_the_override(tmp_path: Path) -> None:
    with Index(tmp_path / "ru.db", create=True) as index:
        summary = index.build([str(NZ), str(TT)])
        assert summary.errors == []
        assert index.counts()["occurrences"] == MOVES[NZ] + 1 + MOVES[TT] + 1
        after_suicide = position_from_sgf(str(NZ), SUICIDE[NZ])
        assert index.find(after_suicide).total == 1
    with Index(tmp_path / "forbidden.db", create=True) as index:
        summary = index.build([str(NZ), str(TT)], suicide_allowed=False)
        assert len(summary.errors) == 2
        assert index.counts()["occurrences"] == SUICIDE[NZ] + SUICIDE[TT]
    with pytest.raises(GohashError, match="suicide"):
        position_from_sgf(str(NZ), SUICIDE[NZ], suicide_allowed=False)


def test_index_cli_suicide_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "cli.db")
    assert main(["index", "build", db, str(NZ), "--suicide", "forbidden"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "move 9" in err and f"{SUICIDE[NZ]} positions" in err
    other = str(tmp_path / "other.db")
    assert main(["index", "build", other, str(NZ), str(TT), "--jobs", "2"]) == 0
    capsys.readouterr()
    assert main(["index", "find", other, "--sgf", str(NZ), "--move", "9"]) == 0
    assert main(["index", "find", other, "--sgf", str(NZ), "--move", "9",
                 "--suicide", "forbidden"]) == 2
    assert "suicide" in capsys.readouterr().err


def test_audit_honours_ru_and_the_override(capsys: pytest.CaptureFixture[str]) -> None:
    result = audit_paths([str(NZ), str(TT)], ("huima64",))
    assert result.errors == [] and result.positions == MOVES[NZ] + 1 + MOVES[TT] + 1
    result = audit_paths([str(NZ), str(TT)], ("huima64",), suicide_allowed=False)
    assert [e.move_number for e in result.errors] == [SUICIDE[NZ], SUICIDE[TT]]
    assert result.positions == SUICIDE[NZ] + SUICIDE[TT]
    argv = ["audit", "--scheme", "huima64", "--format", "json", str(NZ)]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["collection"]["positions"] == MOVES[NZ] + 1
    assert main([*argv, "--suicide", "forbidden"]) == 2
    assert "suicide" in capsys.readouterr().err


def test_superko_judges_each_game_by_its_ru(tmp_path: Path) -> None:
    paths = [str(NZ), str(TT)]
    assert check(paths).violations == []
    forbidden = check(paths, suicide_allowed=False).violations
    assert [(v.move_number, v.kind) for v in forbidden] == [(9, "suicide"), (6, "suicide")]
    assert [(v.move_number, v.kind) for v in check(paths, RULESETS["chinese"]).violations] == [
        (9, "suicide"),
        (6, "suicide"),
    ]
    # Each game's ko rule comes from RU too: a one-stone suicide recreates the
    # position before it, a PSK violation but no SSK one (the other player is to move).
    verdicts = {}
    for ru in ("NZ", "TT", "AGA"):
        path = tmp_path / f"{ru}.sgf"
        path.write_text(f"(;SZ[5]RU[{ru}];B[cc];W[ba];B[dd];W[ab];B[aa])")
        verdicts[ru] = [(v.move_number, v.kind) for v in check([str(path)]).violations]
    assert verdicts == {
        "NZ": [],
        "TT": [(5, "positional superko")],
        "AGA": [(5, "suicide")],
    }


def test_superko_cli_rules_from_ru_and_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["superko", str(NZ), str(TT)]) == 0
    err = capsys.readouterr().err
    assert err == "gohash superko: 2 files, 2 games, 0 violations, 0 errors (rules from RU)\n"
    odd = tmp_path / "odd.sgf"
    odd.write_bytes(NZ.read_bytes().replace(b"RU[NZ]", b"RU[Lunar]"))
    assert main(["superko", str(odd)]) == 1
    out, err = capsys.readouterr()
    assert "move 9: black B1: suicide" in out
    assert f"note: {odd}, game 0: RU[Lunar] is not a ruleset gohash knows" in err
    assert main(["superko", "--suicide", "forbidden", str(NZ), str(TT)]) == 1
    out, err = capsys.readouterr()
    assert "move 9: black B1: suicide" in out and "move 6: white H9: suicide" in out
    assert "(rules from RU, suicide forbidden)" in err
    assert main(["superko", "--ruleset", "new-zealand", str(TT)]) == 0
    assert "(new-zealand: situational superko, suicide allowed)" in capsys.readouterr().err
