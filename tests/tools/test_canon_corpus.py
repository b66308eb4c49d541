"""``gohash canon`` on real collections (``../shared/corpus/``): every record's hash
equals that of sgfmill's replay of the same game, and the quirks of real records
(no SZ, ``tt`` passes, invalid UTF-8, moves in a row by one colour, setup after the
root, Latin-1 without CA) give correct records, not errors; and the compiled and
pure paths print the same, byte for byte."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from sgfmill import boards, sgf, sgf_grammar

from gohash.cli import main
from gohash.errors import GohashError
from gohash.group.schemes import DEFAULT_SCHEME, scheme
from gohash.tools.canon import CanonOptions, write_records
from tests.support.env import CORPUS, ROOT

DATA = ROOT / "data" / "sgf"

pytestmark = pytest.mark.corpus


def sgfmill_hashes(path: Path) -> list[list[str]]:
    """Per game, the hex hash (default scheme) of every position gohash visits on the main line."""
    games = []
    for tree in sgf_grammar.parse_sgf_collection(path.read_bytes()):
        game = sgf.Sgf_game.from_coarse_game_tree(tree)
        size = game.get_size()
        keys = scheme(DEFAULT_SCHEME, size)
        board = boards.Board(size)
        arrays = []
        for node in game.get_main_sequence():
            has_setup = node.has_setup_stones()
            if has_setup:
                board.apply_setup(*node.get_setup_stones())
            colour, point = node.get_move()
            if point is not None:
                board.play(point[0], point[1], colour)
            if node is game.get_root() or colour is not None or has_setup:
                array = np.zeros((size, size), np.int8)
                for c, (row, col) in board.list_occupied_points():
                    array[row, col] = 1 if c == "b" else 2
                arrays.append(array)
        games.append([keys.hex(h) for h in keys.to_ints(keys.hash_arrays(np.stack(arrays)))])
    return games


def check_against_sgfmill(paths: list[Path]) -> tuple[list[GohashError], list[str]]:
    out: list[str] = []
    errors: list[GohashError] = []
    summary = write_records([str(p) for p in paths], out.append, CanonOptions(),
                            on_error=errors.append)
    records: dict[tuple[str, int], list[str]] = {}
    for line in "".join(out).splitlines():
        record = json.loads(line)
        records.setdefault((record["file"], record["game"]), []).append(record["hash"])
    broken = {(e.file, e.game) for e in errors}
    games = 0
    for path in paths:
        for index, hashes in enumerate(sgfmill_hashes(path)):
            games += 1
            if (str(path), index) not in broken:
                assert records[str(path), index] == hashes, (path, index)
    assert summary.games == games
    return errors, summary.notes


def test_small_boards_collection() -> None:
    paths = sorted((CORPUS / "small").rglob("*.sgf"))
    assert len(paths) == 577
    errors, notes = check_against_sgfmill(paths)
    assert errors == [] and notes == []


def test_ai_games_quirks() -> None:
    paths = sorted((CORPUS / "ai-games").rglob("*.sgf"))
    data = {p: p.read_bytes() for p in paths}
    no_size = [p for p in paths if b"SZ[" not in data[p]]
    tt_passes = [p for p in paths if re.search(rb"[BW]\[tt\]", data[p])]
    bad_utf8 = []
    for p in paths:
        try:
            data[p].decode("utf-8")
        except UnicodeDecodeError:
            bad_utf8.append(p)
    assert (len(no_size), len(tt_passes)) == (149, 41)
    assert len(bad_utf8) >= 15
    sample = sorted(set(no_size[:40] + tt_passes + bad_utf8))
    errors, notes = check_against_sgfmill(sample)
    assert errors == []
    # Invalid bytes in root text are noted; elsewhere (comments) they do not matter.
    noted = {n.split(", game")[0] for n in notes}
    assert noted <= {str(p) for p in bad_utf8}
    assert all("not valid UTF-8" in n for n in notes)


def odd_inputs(folder: Path) -> list[str]:
    """Files the compiled core leaves to the walker, and inputs that are not plain
    files: a zip named .sgf (several sources in one task, one bad), UTF-16 text
    (a note on how it was read), an RU gohash does not know, a truncated file,
    a name CSV must quote, a missing file."""
    folder.mkdir()
    with zipfile.ZipFile(folder / "disguised.sgf", "w") as archive:
        archive.writestr("a.sgf", "(;SZ[9];B[aa];W[bb])")
        archive.writestr("bad.sgf", "(;SZ[9];B[aa];W[aa])")
        archive.writestr("c.sgf", "(;SZ[9]AB[cc];W[dd])")
    (folder / "utf16.sgf").write_bytes("(;SZ[9]PB[J\u00e9r];B[ee])".encode("utf-16"))
    (folder / "lunar.sgf").write_bytes(b"(;SZ[9]RU[Lunar];B[aa];W[bb])")
    (folder / "truncated.sgf").write_bytes(b"(;SZ[9];B[aa](;W[bb]")
    (folder / 'quoted, "name".sgf').write_bytes(b"(;SZ[5]AB[cc];W[aa];B[])")
    return [str(folder), str(folder / "missing.sgf")]


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--format", "csv", "--position", "--symmetry", "d4"],
        ["--variations", "--scheme", "regular128", "--suicide", "forbidden"],
        ["--scheme", "huima64-add", "--position", "--suicide", "allowed", "--jobs", "2"],
    ],
    ids=" ".join,
)
def test_compiled_and_pure_canon_agree(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The output, errors, notes and exit code of ``gohash canon`` are the same
    byte for byte whether positions() replays with the compiled core or the walker
    (GOHASH_PURE=1), on data/sgf, odd inputs and a sample of every corpus folder."""
    sample = [str(p) for folder in ("kgs-6d", "ai-games")
              for p in sorted((CORPUS / folder).rglob("*.sgf"))[::40]]
    paths = [str(DATA), *odd_inputs(tmp_path / "odd"), str(CORPUS / "small"), *sample]
    outputs = []
    for pure in ("0", "1"):
        monkeypatch.setenv("GOHASH_PURE", pure)
        code = main(["canon", *argv, *paths])
        outputs.append((code, *capsys.readouterr()))
    assert outputs[0] == outputs[1]
    code, out, err = outputs[0]
    assert code == 2 and len(out.splitlines()) > 80_000
    assert "error: " in err and "note: " in err
