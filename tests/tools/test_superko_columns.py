"""The superko check on read_positions() columns against the visitor walk and the reference.

``check()`` judges the files the compiled core replays on their columns and
walks the others with :class:`~gohash.tools.superko.SuperkoVisitor`; ``pure=True``
walks every file.  Both must give the same violations (diagrams included),
errors, notes and counts, in the same order, and the same command-line
output: on our records, under every ruleset and override, with and without
variations; on generated records (sgfgen: ko fights, setup, variations,
errors), where the independent sgfmill reference of
tests/tools/test_superko_properties.py judges too; on trees of long ko fights; and
with the hash cut to a few bits, so that only the exact positions can decide.
The whole corpus is tests/tools/test_superko_corpus.py's.
"""

from __future__ import annotations

import random
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gohash.cli import main
from gohash.go.board import Board
from gohash.go.ko import KINDS
from gohash.go.rulesets import RULESETS, Ruleset, ruleset
from gohash.pipeline.positions import CORE_AVAILABLE, PositionBatch, read_positions
from gohash.tools import superko
from gohash.tools.superko import CheckResult, check
from tests.support import sgfgen
from tests.support.env import ROOT
from tests.support.kofight import random_game
from tests.support.superko_reference import Verdict, Where, outcome, reference, rulesets

DATA = ROOT / "data" / "sgf"
RECORDS = DATA / "superko"
PSK = KINDS["positional"]
Point = tuple[int, int]

# (ruleset, overrides): each game's RU, every ruleset, and the overrides.
RULES: list[tuple[Ruleset | None, dict[str, Any]]] = [
    (None, {}),
    *((rules, {}) for rules in RULESETS.values()),
    (ruleset("aga", rule="natural"), {}),
    (None, {"rule": "natural"}),
    (None, {"suicide_allowed": True}),
    (RULESETS["new-zealand"], {"suicide_allowed": False, "rule": "positional"}),
]


def assert_paths_agree(paths: list[str], rules: Ruleset | None, **options: Any) -> CheckResult:
    """Columns and visitor give the same result; returns the columns' result."""
    assert CORE_AVAILABLE, "the compiled core is not built: the columns would not be used"
    fast = check(paths, rules, pure=False, **options)
    slow = check(paths, rules, pure=True, **options)
    assert outcome(fast) == outcome(slow)
    return fast


@pytest.mark.parametrize("variations", [False, True])
@pytest.mark.parametrize(("rules", "options"), RULES, ids=str)
def test_data_records(rules: Ruleset | None, options: dict[str, Any], variations: bool) -> None:
    result = assert_paths_agree([str(DATA)], rules, variations=variations, **options)
    assert result.violations and result.summary.notes


def test_repetitions_are_judged_on_columns() -> None:
    """The records whose repetitions the table of tests/tools/test_superko.py pins are the
    core's (so those verdicts come from the columns), and the others the walker's."""
    names = ["triple-ko", "round-robin-ko", "send-two-return-one", "psk-not-ssk",
             "handicap-setup", "pass-ssk-nssk", "suicide-single", "occupied"]
    paths = [str(RECORDS / f"{name}.sgf") for name in names]
    # The columns hold no ko retaken at once, no suicide (not even where RU allows
    # it) and no occupied point: the core leaves such files to the walker.
    (batch,) = read_positions([*paths, str(DATA / "rules" / "tromp-taylor-suicide.sgf")])
    assert batch.pure_file_ids == [5, 6, 7, 8]
    result = assert_paths_agree(paths[:5], RULESETS["chinese"])
    assert [(v.file, v.move_number, v.repeats) for v in result.violations] == [
        (paths[0], 28, 22), (paths[1], 36, 28), (paths[2], 13, 10), (paths[2], 16, 13),
        (paths[3], 13, 10), (paths[4], 4, 0),
    ]


def test_lines_of_a_tree(tmp_path: Path) -> None:
    """A sibling's position is not on a line, and the setup position's player to move
    is the first mover of the line judged, not of the tree's first line."""
    sibling = tmp_path / "sibling.sgf"
    # Child 0 sets up by AB/AE the position that child 1's capture makes.
    sibling.write_bytes(b"(;SZ[9];B[dd];W[ed];B[fd];W[aa];B[ec];W[bb](;AB[ee]AE[ed])(;B[ee]))")
    setup = tmp_path / "setup.sgf"
    setup.write_bytes(
        b"(;SZ[9]AB[cg][gc][gg][fh][gi][hh]AW[hg][ih][hi](;B[aa])(;W[gh];B[];W[];B[hh]))"
    )
    paths = [str(sibling), str(setup)]
    (batch,) = read_positions(paths, variations=True)
    assert batch.pure_file_ids == []
    for rules, kind in [(RULESETS["aga"], KINDS["situational"]), (RULESETS["chinese"], PSK)]:
        result = assert_paths_agree(paths, rules, variations=True)
        assert [(Path(v.file).name, v.variation, v.move_number, v.kind, v.repeats)
                for v in result.violations] == [("setup.sgf", (1,), 4, kind, 0)]


def test_walked_files_and_read_errors_keep_their_places(tmp_path: Path) -> None:
    """Violations in file order, errors in reading order, whichever path judged a file."""
    triple = (RECORDS / "triple-ko.sgf").read_bytes()
    (tmp_path / "a.sgf").write_bytes(triple)
    (tmp_path / "b.sgf").write_bytes(b"(;SZ[5];W[ab];W[ba];B[aa];B[zz];W[bb])")
    (tmp_path / "c.sgf").write_bytes(triple + b"(;SZ[9]RU[Foo];B[ee])")
    (tmp_path / "nothing.sgf").write_bytes(b"no game here")
    with zipfile.ZipFile(tmp_path / "d.zip", "w") as archive:
        archive.writestr("x.sgf", triple)
        archive.writestr("y.sgf", b"(;SZ[99])")
    paths = [str(tmp_path / "a.sgf"), str(tmp_path / "missing.sgf"), str(tmp_path / "b.sgf"),
             str(tmp_path / "nothing.sgf"), str(tmp_path / "c.sgf"), str(tmp_path / "d.zip"),
             str(tmp_path / "missing-too.sgf")]
    for rules in (None, RULESETS["japanese"]):
        result = assert_paths_agree(paths, rules)
        assert [(Path(v.file).name, v.move_number) for v in result.violations] == [
            ("a.sgf", 28), ("b.sgf", 3), ("c.sgf", 28), ("d.zip:x.sgf", 28)
        ]
        assert [Path(e.file or "").name for e in result.errors] == [
            "missing.sgf", "b.sgf", "nothing.sgf", "d.zip:y.sgf", "missing-too.sgf"
        ]
        assert len(result.summary.notes) == 1


@pytest.mark.parametrize(
    "argv",
    [[], ["--variations"], ["--ruleset", "japanese"], ["--format", "json"],
     ["--rule", "situational", "--suicide", "allowed", "--format", "json", "--variations"]],
    ids=str,
)
def test_command_output_is_the_same(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [str(DATA), str(DATA / "missing.sgf")]
    outputs = []
    for pure in ("0", "1"):
        monkeypatch.setenv("GOHASH_PURE", pure)
        code = main(["superko", *argv, *paths])
        outputs.append((code, *capsys.readouterr()))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == 2 and "violations" in outputs[0][2]


def checked_on_columns(
    text: str, rules: Ruleset | None, variations: bool
) -> tuple[CheckResult, list[int]]:
    """The columns' result for one record (asserted equal to the visitor's), and the
    files read_positions() left to the walker."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gen.sgf"
        path.write_text(text, encoding="latin-1")
        result = assert_paths_agree([str(path)], rules, variations=variations)
        walked = [i for b in read_positions([str(path)], variations=variations)
                  for i in b.pure_file_ids]
    return result, walked


def as_verdicts(result: CheckResult) -> tuple[list[Verdict], list[Where]]:
    """In the form of tests/tools/test_superko_properties.py's reference."""
    verdicts = [
        (v.game, v.variation, v.move_number, v.colour, v.point, v.kind, v.repeats)
        for v in result.violations
    ]
    return verdicts, [(e.game or 0, e.variation, e.move_number or 0) for e in result.errors]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sgfgen.records(), rulesets, st.booleans())
def test_generated_records(record: sgfgen.Record, rules: Ruleset, variations: bool) -> None:
    result, _ = checked_on_columns(record.sgf(), rules, variations)
    assert as_verdicts(result) == reference(record, rules, variations)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(5, 9), rulesets)
def test_ko_fight_trees(seed: int, size: int, rules: Ruleset) -> None:
    """Clean games of long ko fights, branching, the second line opening with a
    setup node: every file is the core's, and its verdicts are the reference's."""
    rng = random.Random(seed)
    main_line = random_game(rng, size, max_moves=60)
    fork = rng.randrange(len(main_line.moves))
    other = random_game(rng, size, max_moves=fork + 30, prefix=main_line.moves[:fork])
    board = Board(size)
    for colour, point in main_line.moves[:fork]:
        board.pass_(colour) if point is None else board.play(point, colour)
    empty = [(r, c) for r in range(size) for c in range(size) if board.get((r, c)) is None]
    # Setup that changes nothing keeps every move legal: a setup node all the same.
    setup = sgfgen.Node(empty=(sgfgen.sgf_point(rng.choice(empty), size),))

    def nodes(moves: tuple[tuple[str, Point | None], ...]) -> tuple[sgfgen.Node, ...]:
        return sgfgen.game_of_moves(size, moves).tree.nodes[1:]

    root = sgfgen.game_of_moves(size, ()).root
    tree = sgfgen.Tree(
        (root, *nodes(main_line.moves[:fork])),
        (sgfgen.Tree(nodes(main_line.moves[fork:])),
         sgfgen.Tree((setup, *nodes(other.moves[fork:])))),
    )
    record = sgfgen.Record((sgfgen.Game(size, tree),))
    result, walked = checked_on_columns(record.sgf(), rules, True)
    assert walked == []
    assert as_verdicts(result) == reference(record, rules, True)


@pytest.fixture
def weak_hashes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """read_positions() with every hash cut to its low 3 bits, for check(); yields the
    number of distinct hashes of each batch."""
    seen: list[int] = []

    def weak(*args: Any, **kwargs: Any) -> Iterator[PositionBatch]:
        for batch in read_positions(*args, **kwargs):
            batch.hash = batch.hash & np.uint64(7)
            seen.append(len(np.unique(batch.hash)))
            yield batch

    monkeypatch.setattr(superko, "read_positions", weak)
    yield seen


@pytest.mark.parametrize("variations", [False, True])
def test_weak_hash_decides_nothing(weak_hashes: list[int], variations: bool) -> None:
    """With 8 hash values every position shares its hash with most others: the
    verdicts stay the same, each confirmed on exact positions."""
    for rules, options in RULES:
        assert_paths_agree([str(DATA)], rules, variations=variations, **options)
    rng = random.Random(3)
    for _ in range(10):
        game = random_game(rng, rng.randint(5, 9), max_moves=100)
        for rules in (RULESETS["chinese"], RULESETS["aga"], ruleset("aga", rule="natural")):
            result, walked = checked_on_columns(game.sgf(), rules, False)
            assert walked == []
            if game.first_repetition is not None and rules.rule != "natural":
                assert result.violations
    assert weak_hashes and max(weak_hashes) <= 8


def test_kinds_on_columns_are_the_superko_kinds() -> None:
    """A clean game's repetitions under simple ko are "no result" (the retake of a
    single-stone ko is the core's refusal, judged by the visitor)."""
    text = (RECORDS / "triple-ko.sgf").read_text()
    for rules, kind in [
        (RULESETS["japanese"], "no result"),
        (RULESETS["aga"], KINDS["situational"]),
        (ruleset("aga", rule="natural"), KINDS["natural"]),
    ]:
        result, walked = checked_on_columns(text, rules, False)
        assert walked == [] and [v.kind for v in result.violations] == [kind]


@pytest.mark.parametrize(("group_bytes", "batch"), [(0, 1), (1, 7), (600, 64), (3000, 1 << 16)])
def test_groups_and_batches_of_any_size_give_one_result(
    group_bytes: int, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files go to the columns in groups, cut into batches between games (a
    file's games spanning batches); the result is the same, in reading order,
    whatever the cuts."""
    monkeypatch.setattr(superko, "COLUMNS_MAX_GROUP_BYTES", group_bytes)
    monkeypatch.setattr(superko, "COLUMNS_BATCH", batch)
    for variations in (False, True):
        assert_paths_agree(
            [str(DATA), str(DATA / "missing.sgf"), str(RECORDS)], None, variations=variations
        )


def test_a_collection_file_across_batches_gives_the_records_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One file of the superko records repeated, judged a few games a batch (the
    # core leaves some games to the visitor mid-file): the verdicts are the
    # records' own, once per copy, as the columns judge the single copy.
    monkeypatch.setattr(superko, "COLUMNS_BATCH", 50)
    records = sorted(RECORDS.glob("*.sgf"))
    one = b"".join(p.read_bytes() for p in records)
    copies = 7
    big = tmp_path / "big.sgf"
    big.write_bytes(one * copies)
    small = tmp_path / "small.sgf"
    small.write_bytes(one)
    result = assert_paths_agree([str(small), str(big)], None)
    per_copy = [v for v in result.violations if v.file == str(small)]
    assert per_copy and len(result.violations) == len(per_copy) * (copies + 1)
    assert result.summary.files == 2
