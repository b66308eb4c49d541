"""Audit of collections: merge counting on games whose answer is known, and the CLI.

The four games below are built so that the answer follows from the errata:
9 against 5 handicap stones (E3: huima64 merges them), and the two E4 openings,
whose positions after move 4 differ but hash alike under both huima64
combiners.  Moves 0, 1 and 3 of the openings are images of each other (the
transpose maps cd to dc, qp to pq and fixes pd), so they count once.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

from gohash.cli import main
from gohash.errors import GohashError
from gohash.group.schemes import SCHEMES
from gohash.group.structure import handicap_stones
from gohash.pipeline.positions import read_positions
from gohash.tools.audit import CollectionAuditor, audit_paths
from tests.support.env import CORPUS, ROOT

DATA = ROOT / "data" / "sgf"

GAMES = {
    "nine.sgf": "(;GM[1]FF[4]SZ[19]HA[9]AB[dd][pd][dp][pp][jj][dj][pj][jd][jp])",
    "five.sgf": "(;GM[1]FF[4]SZ[19]HA[5]AB[dd][pd][dp][pp][jj])",
    "e4a.sgf": "(;GM[1]FF[4]SZ[19];B[cd];W[pd];B[qp];W[dq])",
    "e4b.sgf": "(;GM[1]FF[4]SZ[19];B[dc];W[pd];B[pq];W[dq])",
}


@pytest.fixture
def games(tmp_path: Path) -> list[str]:
    paths = []
    for name, text in GAMES.items():
        path = tmp_path / name
        path.write_text(text)
        paths.append(str(path))
    return paths


def test_merges_on_games_with_a_known_answer(games: list[str]) -> None:
    result = audit_paths(games, examples=5)
    assert (result.files, result.games, result.errors) == (4, 4, [])
    assert result.positions == 1 + 1 + 5 + 5
    # nine, five, empty, and after moves 1, 2, 3, 4 one, two, one, two.
    assert result.distinct == 9
    (size,) = result.sizes
    assert size.by_move == [(0, 4, 3), (1, 2, 1), (2, 2, 2), (3, 2, 1), (4, 2, 2)]
    assert size.merged == {"huima64": 2, "huima64-add": 1, "regular64": 0, "regular128": 0}
    assert size.keys == {"huima64": 7, "huima64-add": 8, "regular64": 9, "regular128": 9}
    assert size.merged_keys == size.merged
    # 9 and 5 handicap stones are both D4-symmetric; the E4 openings have no symmetry.
    assert size.merged_symmetric == {
        "huima64": 1,
        "huima64-add": 0,
        "regular64": 0,
        "regular128": 0,
    }
    assert all(v == 0 for v in size.split.values())


def test_merge_examples_show_the_positions_as_played(games: list[str]) -> None:
    result = audit_paths(games, ["huima64"], examples=5)
    examples = result.sizes[0].examples
    assert [[(Path(f).name, g, m) for f, g, m in e.where] for e in examples] == [
        [("nine.sgf", 0, 0), ("five.sgf", 0, 0)],
        [("e4a.sgf", 0, 4), ("e4b.sgf", 0, 4)],
    ]
    nine, five = examples[0].boards
    assert sorted(map(tuple, np.argwhere(nine == 1).tolist())) == sorted(handicap_stones(19, 9))
    assert sorted(map(tuple, np.argwhere(five == 1).tolist())) == sorted(handicap_stones(19, 5))
    a4, b4 = examples[1].boards
    assert (a4[15, 2], a4[3, 16], a4[15, 15], a4[2, 3]) == (1, 1, 2, 2)
    assert (b4[16, 3], b4[2, 15], b4[15, 15], b4[2, 3]) == (1, 1, 2, 2)
    assert examples[0].key.startswith("0x") and len(examples[0].key) == 18
    assert len(audit_paths(games, ["huima64"], examples=1).sizes[0].examples) == 1


def test_d4_group_separates_colour_swapped_positions() -> None:
    auditor = CollectionAuditor(["regular128"], symmetry="d4")
    auditor.locations.append(("built", 0))
    board = np.zeros((9, 9), dtype=np.int8)
    board[2, 3] = 1
    swapped = board * 2
    auditor.add_positions(np.stack([board, swapped, board.T.copy()]), [0, 1, 2], 0)
    assert auditor.result().distinct == 2
    full = CollectionAuditor(["regular128"])
    full.locations.append(("built", 0))
    full.add_positions(np.stack([board, swapped, board.T.copy()]), [0, 1, 2], 0)
    assert full.result().distinct == 1


def test_sizes_are_audited_apart(tmp_path: Path) -> None:
    (tmp_path / "a.sgf").write_text("(;SZ[9];B[cc];W[gg])(;SZ[13];B[cc])")
    result = audit_paths([str(tmp_path)], ["huima64"])
    assert [(s.size, s.positions, s.distinct) for s in result.sizes] == [(9, 3, 3), (13, 2, 2)]
    assert result.games == 2


def test_errors_are_collected_and_the_rest_is_audited(tmp_path: Path, games: list[str]) -> None:
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;SZ[19];B[dd];W[dd];B[ee])")
    result = audit_paths([*games, str(bad)], ["huima64"])
    assert len(result.errors) == 1
    error = result.errors[0]
    assert error.file is not None and error.file.endswith("bad.sgf")
    assert error.move_number == 2
    # The game in error keeps its positions before the error: empty and B dd.
    assert result.positions == 12 + 2


# -- the CLI ----------------------------------------------------------------------------------


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["audit", *argv])
    return code, out.getvalue(), err.getvalue()


def test_cli_text_structure() -> None:
    code, out, err = run_cli("--scheme", "huima64", "--size", "19")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "huima64 on 19x19: 64 bits, combined by xor"
    assert "  centre            1         16           2           2" in lines
    assert "  other           288         64          16          12" in lines
    assert "  GF(2) rank of the 722 keys: 64 of 64" in lines
    assert any(line.startswith("  e3-handicap     4          1             1") for line in lines)
    assert "collection" not in out


def test_cli_text_collection(games: list[str]) -> None:
    code, out, err = run_cli("--scheme", "huima64", "--scheme", "regular64", *games)
    assert code == 1  # huima64 merges distinct positions
    assert err == (
        "gohash audit: 4 files, 4 games, 12 positions, 2 canonical keys merging distinct "
        "positions (in 2 schemes), 0 errors\n"
    )
    assert "collection: 4 files, 4 games, 12 positions, 9 distinct up to 16 symmetries" in out
    assert (
        "  huima64                    7                 2             2            1      0" in out
    )
    assert (
        "  regular64                  9                 0             0            0      0" in out
    )
    assert out.count("\nhuima64 19x19 key 0x") == 2
    # Diagrams side by side, with GTP coordinates.
    assert (
        "16 . . X . . . . . . . . . . . . O . . .    16 . . . . . . . . . . . . . . . O . . ."
        in out
    )
    assert "   A B C D E F G H J K L M N O P Q R S T" in out


def test_cli_json(games: list[str]) -> None:
    code, out, _ = run_cli("--format", "json", "--examples", "1", *games)
    assert code == 1
    (data,) = [json.loads(line) for line in out.splitlines()]  # one document, one line
    assert [s["scheme"] for s in data["structure"]] == list(SCHEMES)
    assert data["structure"][1]["gf2_rank"] is None
    collection = data["collection"]
    assert collection["positions"] == 12 and collection["distinct"] == 9
    assert collection["schemes"]["huima64"] == {
        "keys": 7,
        "merged": 2,
        "merged_keys": 2,
        "merged_symmetric": 1,
        "split": 0,
    }
    assert collection["sizes"][0]["by_move"][0] == {"move_number": 0, "positions": 4, "distinct": 3}
    first = collection["examples"][0]
    assert first["scheme"] == "huima64" and len(first["positions"]) == 2
    rows = first["positions"][0]["rows"]
    assert len(rows) == 19 and rows[3] == "...X.....X.....X..."
    assert collection["errors"] == []
    no_paths = json.loads(run_cli("--format", "json", "--scheme", "regular64")[1])
    assert no_paths["collection"] is None


def test_cli_bad_size_is_an_error_without_traceback() -> None:
    code, out, err = run_cli("--size", "30")
    assert code == 2 and out == ""
    assert err == "gohash audit: error: board size 30 is outside 1..26\n"


def test_cli_negative_examples() -> None:
    code, _, err = run_cli("--examples", "-1")
    assert code == 2
    assert err.splitlines()[-1] == (
        "gohash audit: error: argument --examples: must be at least 0, not -1"
    )


def test_cli_unknown_scheme_is_refused_by_the_parser() -> None:
    code, _, err = run_cli("--scheme", "zobrist")
    assert code == 2
    assert "invalid choice: 'zobrist'" in err


def test_cli_reports_bad_files_and_goes_on(tmp_path: Path, games: list[str]) -> None:
    garbage = tmp_path / "garbage.sgf"
    garbage.write_bytes(b"this is not sgf")
    missing = str(tmp_path / "missing.sgf")
    code, out, err = run_cli("--scheme", "huima64", *games, str(garbage), missing)
    assert code == 2
    assert "12 positions" in out
    only_bad = run_cli("--scheme", "huima64", str(garbage))
    assert only_bad[0] == 2
    assert "collection: 1 file, 0 games, 0 positions" in only_bad[1]
    assert "  no positions" in only_bad[1]
    assert f"gohash audit: error: {garbage}" in err
    assert f"gohash audit: error: {missing}: no such file or folder" in err
    assert err.splitlines()[-1].endswith(", 2 errors")
    assert "Traceback" not in err


def test_main_dispatches_to_audit(games: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--scheme", "regular128", "--format", "json", *games]) == 0  # no merge
    data = json.loads(capsys.readouterr().out)
    assert data["collection"]["schemes"]["regular128"]["merged"] == 0


@pytest.mark.corpus
def test_corpus_small_has_no_splits_and_regular128_merges_nothing() -> None:
    result = audit_paths([str(CORPUS / "small")])
    assert result.positions > 40_000
    for name in SCHEMES:
        assert sum(s.split[name] for s in result.sizes) == 0
    assert result.total("merged", "regular128") == 0


def test_batches_of_another_scheme_or_without_frames_are_refused(games: list[str]) -> None:
    auditor = CollectionAuditor(["regular64", "huima64"])
    with pytest.raises(GohashError, match="packed=True, frames=True"):
        auditor.add_batch(next(read_positions(games, scheme="regular64", packed=True)))
    with pytest.raises(GohashError, match="scheme 'regular64' and group 'full', not 'huima64'"):
        auditor.add_batch(next(read_positions(games, scheme="huima64", packed=True,
                                              frames=True)))
    for batch in read_positions(games, scheme="regular64", packed=True, frames=True, batch_size=3):
        auditor.add_batch(batch)
    assert auditor.result().to_json() == audit_paths(games, ["regular64", "huima64"]).to_json()


def test_jobs_give_the_same_audit(games: list[str], tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.sgf"
    garbage.write_bytes(b"this is not sgf")
    paths = [*games, str(garbage), str(tmp_path / "missing.sgf"), str(DATA)]
    single = audit_paths(paths, ("huima64", "regular64"), variations=True)
    assert single.errors and single.positions > 1000
    assert audit_paths(paths, ("huima64", "regular64"), variations=True, jobs=2).to_json() == \
        single.to_json()
