"""One vocabulary (issue 33): the same option names and meanings across the index,
pattern search and the pipeline, one ``to_json`` signature, errors by cause, the
result types exported from ``gohash``; the old names work, with a DeprecationWarning."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import gohash
from gohash import Board, Index, OptionError, position_from_sgf
from gohash.pipeline.positions import read_positions
from gohash.tools.audit import CollectionAuditor
from gohash.tools.canon import CanonOptions

DATA = Path(__file__).parent.parent / "data" / "sgf"
GAME = str(DATA / "game-9x9.sgf")
EDGE = "\n".join(["-" * 9] * 4 + ["-------..", "-------OX", "-------.."] + ["-" * 9] * 2)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("vocabulary") / "i.db")
    with Index(path, create=True) as index:
        index.build([GAME, str(DATA / "game-13x13.sgf")])
    return path



def test_result_types_are_exported() -> None:
    for name in ("FindResult", "Match", "Record", "Continuations", "Continuation", "Dupes",
                 "DupeGroup", "PatternResult", "PatternMatch", "PatternContinuation",
                 "PlayerSummary", "GameRecord", "IndexInfo", "OptionError", "PatternError"):
        assert name in gohash.__all__, name
        assert getattr(gohash, name).__name__ == name


def test_find_symmetry_and_its_old_name(db: str) -> None:
    query = position_from_sgf(GAME, move=4)
    swapped = gohash.element("swap").image_array(query.to_array())
    with Index(db, read_only=True) as index, warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert index.find(swapped).total == 1
        assert index.find(swapped, symmetry="d4").total == 0
        with pytest.raises(OptionError, match="symmetry 'd8' is not one of full, d4"):
            index.find(swapped, symmetry="d8")
        for old, new in ((True, "full"), (False, "d4")):
            with pytest.warns(DeprecationWarning, match="colour_swap= is deprecated"):
                assert index.find(swapped, colour_swap=old) == index.find(swapped,
                                                                          symmetry=new)


def test_to_move_none_is_either_side(db: str) -> None:
    board = position_from_sgf(GAME, move=4)
    with Index(db, read_only=True) as index, warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        either = index.find(board, to_move=None)
        assert either == index.find(board, to_move="any") == index.find(board)
        assert index.find(board, to_move="query") == index.find(board, to_move=board.to_move)
        mine = index.continuations(board)
        assert mine == index.continuations(board, to_move="query")
        assert mine.to_move == board.to_move
        assert index.continuations(board, to_move="any").to_move is None
        with pytest.warns(DeprecationWarning, match="to_move=None"):
            assert index.continuations(board, to_move=None) == mine


def test_one_to_json_signature(db: str) -> None:
    board = position_from_sgf(GAME, move=4)
    with Index(db, read_only=True) as index, warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        found = index.find(board)
        moves = index.continuations(board)
        pattern = index.pattern(EDGE)
        player = index.player(found.matches[0].record.black or "")
        game = index.game(found.matches[0].record.id)
        results = [found, found.matches[0], moves, moves.moves[0], pattern,
                   pattern.matches[0], pattern.continuations[0], player, index.dupes(),
                   game.page(gohash.element("identity"), 0, 3), index.info()]
        for result in results:
            assert result.to_json() == result.to_json(paths=True)
            assert "'file'" not in repr(result.to_json(paths=False)), type(result)
        hex_key = index.keys(9).hex(found.key)
        assert found.to_json()["key"] == moves.to_json()["key"] == hex_key
        assert game.page(gohash.element("identity"), 0, 3).to_json()["positions_total"] == len(
            game.positions)
        with pytest.warns(DeprecationWarning):
            assert found.to_json(hex_key) == found.to_json()
        with pytest.warns(DeprecationWarning):
            assert moves.to_json(hex_key) == moves.to_json()
        with pytest.warns(DeprecationWarning):
            assert moves.moves[0].to_json(9) == moves.moves[0].to_json()
        with pytest.warns(DeprecationWarning):
            assert pattern.continuations[0].to_json(9) == pattern.continuations[0].to_json()
        with pytest.warns(DeprecationWarning):
            assert player.to_json(0, 1) == player.page(0, 1).to_json()


def test_bad_options_are_option_errors(db: str) -> None:
    board = Board(9)
    with Index(db, read_only=True) as index:
        for call in (lambda: index.continuations(board, symmetry="none"),
                     lambda: index.continuations(board, setup="all"),
                     lambda: index.find(board, to_move="x"),
                     lambda: index.pattern(EDGE, to_move="query"),
                     lambda: index.pattern(EDGE, symmetry="d8"),
                     lambda: index.pattern(EDGE, max_move=-1),
                     lambda: index.player("x", opening_length=0),
                     lambda: index.find(board, order="nope"),
                     lambda: index.find(board, filters=gohash.Filters(date_from="May"))):
            with pytest.raises(OptionError):
                call()


def test_read_positions_symmetry_and_its_old_name() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        (d4,) = read_positions([GAME], symmetry="d4")
    with pytest.warns(DeprecationWarning, match="group= is deprecated"):
        (old,) = read_positions([GAME], group="d4")
    assert np.array_equal(d4.canonical, old.canonical)


def test_canon_options_and_auditor_symmetry_and_their_old_name() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        options = CanonOptions(symmetry="d4")
        auditor = CollectionAuditor(["regular64"], symmetry="d4")
    assert options.symmetry == "d4" and auditor.group == "d4"
    with pytest.warns(DeprecationWarning, match="group= is deprecated") as caught:
        assert CanonOptions(group="d4") == options
    assert caught[0].filename == __file__
    with pytest.warns(DeprecationWarning, match="CanonOptions.group is deprecated"):
        assert options.group == "d4"
    with pytest.warns(DeprecationWarning, match="group= is deprecated") as caught:
        assert CollectionAuditor(["regular64"], group="d4").group == "d4"
    assert caught[0].filename == __file__


def test_canonical_symmetry_and_its_old_name() -> None:
    board = Board(9, "huima64")
    board.play((2, 2), "b")
    keys = gohash.scheme("huima64", 9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        d4 = board.canonical(symmetry="d4")
        assert board.canonical("d4") == d4 == keys.canonical(board.hash, symmetry="d4")
        frame = gohash.canonical_frame(board.to_array(), keys, symmetry="d4")
    for call, expected in ((lambda: board.canonical(group="d4"), d4),
                           (lambda: keys.canonical(board.hash, group="d4"), d4),
                           (lambda: board.symmetries(group="d4"), board.symmetries("d4")),
                           (lambda: gohash.canonical_frame(board.to_array(), keys, group="d4"),
                            frame)):
        with pytest.warns(DeprecationWarning, match="group= is deprecated") as caught:
            assert call() == expected
        assert caught[0].filename == __file__
