"""The opening explorer on real games (``../shared/corpus/small``: 577 9x9 and 13x13
computer and server games, with passes as ``tt``, handicaps, moves in a row by
one colour): continuations of sampled positions, turned by random symmetries,
equal the brute-force reference of ``tests/support/explorer_reference.py`` (sgfmill
replays, numpy symmetries), with and without filters; every game read again
equals its sgfmill replay."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from gohash.index.filters import Filters
from gohash.index.index import Index
from tests.support.env import CORPUS
from tests.support.explorer_reference import (
    SYMMETRIES,
    Collection,
    check_against_reference,
    date,
    image,
    reference_summary,
    summary,
    winner,
)

SMALL = CORPUS / "small"

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("explorer-corpus") / "small.db"
    with Index(db, create=True) as index:
        summary_ = index.build([str(SMALL)])
    assert summary_.errors == [] and summary_.games == 577
    return db


@pytest.fixture(scope="module")
def corpus() -> Collection:
    return Collection(sorted(SMALL.rglob("*.sgf")))


def test_continuations_of_sampled_positions_equal_brute_force(
    corpus_index: Path, corpus: Collection
) -> None:
    """300 positions of random games (half of them among its first eight, which
    games share), each turned by a random symmetry, and the empty boards; with
    each of the options in turn."""
    rng = random.Random(2024)
    options: list[dict[str, str]] = [{}, {"symmetry": "d4"}, {"to_move": "b"}, {"to_move": "w"}]
    queries = [np.zeros((9, 9), np.int8), np.zeros((13, 13), np.int8)]
    for n in range(300):
        game = rng.choice(corpus.games)
        position = game.positions[rng.randrange(len(game.positions) if n % 2 else 8)]
        queries.append(image(position, *SYMMETRIES[rng.randrange(16)]))
    shared = exchanged = 0
    with Index(corpus_index) as index:
        for n, query in enumerate(queries):
            moves = check_against_reference(index, corpus, query, **options[n % 4])
            shared += moves.total > 1
            exchanged += moves.exchanged_colours > 0
        empty = index.continuations(np.zeros((9, 9), np.int8))
    assert empty.total > 300 and len(empty.moves) > 5
    # The sample holds positions many games share, and colour-exchanged hits.
    assert shared > 60 and exchanged > 20, (shared, exchanged)


def test_filters_on_real_games_equal_brute_force(corpus_index: Path, corpus: Collection) -> None:
    cases = [
        (Filters(player="gnu"), lambda g: "gnu" in (g.root.get("PB", "") + "\n"
                                                    + g.root.get("PW", "")).casefold()),
        (Filters(result="B"), lambda g: winner(g) == "B"),
        (Filters(result="other"), lambda g: winner(g) is None),
        (Filters(date_from="2006", date_to="2008-06"),
         lambda g: (d := date(g)) is not None and "2006" <= d[:7] <= "2008-06"),
        (Filters(handicap=True), lambda g: int(g.root.get("HA", "0")) >= 2),
        (Filters(handicap=False), lambda g: int(g.root.get("HA", "0")) < 2),
    ]
    handicap = next(g for g in corpus.games if int(g.root.get("HA", "0")) >= 2
                    and g.positions[0].any())
    queries = [np.zeros((9, 9), np.int8), np.zeros((13, 13), np.int8), handicap.positions[0],
               handicap.positions[1]]
    with Index(corpus_index) as index:
        for filters, keep in cases:
            found = 0
            for query in queries:
                moves = index.continuations(query, filters=filters)
                ref = corpus.continuations(query, keep=keep)
                assert moves.total == ref.total, filters
                assert summary(moves) == reference_summary(ref)
                found += moves.total
            assert found > 0, filters


def test_every_game_read_again_equals_its_replay(corpus_index: Path, corpus: Collection) -> None:
    by_game = {(g.file, g.index): g for g in corpus.games}
    with Index(corpus_index) as index:
        for game_id, record in index.records().items():
            game = index.game(game_id)
            ref = by_game[(record.file, record.game)]
            assert len(game.positions) == len(ref.positions)
            assert all(np.array_equal(p.stones, q)
                       for p, q in zip(game.positions, ref.positions, strict=True))


def test_the_docs_example_address_opens_a_game_at_its_position(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/explorer.md's viewer address, on the index its build command makes (run
    from the checkout, as the page says), shows the game at the address's
    position: the board of ``moves``, turned back by ``view``."""
    import re
    import urllib.parse

    from gohash.cli import main
    from gohash.group.symmetry import element
    from gohash.index.movelist import parse_steps, replay
    from tests.support.env import ROOT, require_corpus

    require_corpus()
    text = (ROOT / "docs" / "explorer.md").read_text(encoding="utf-8")
    addresses = re.findall(r"http://127\.0\.0\.1:8000/\?(\S*game=\S+)", text)
    assert addresses
    # The index the address is for: the last one built before it.
    before = text[: text.index(addresses[0])]
    build = re.findall(r"^\$ gohash index build games\.db (.+)$", before, re.M)[-1]
    monkeypatch.chdir(ROOT)
    db = tmp_path / "games.db"
    assert main(["index", "build", str(db), *build.split()]) == 0
    with Index(db, read_only=True) as index:
        for address in addresses:
            params = dict(urllib.parse.parse_qsl(address))
            size = int(params["size"])
            board = replay(parse_steps(params["moves"], size), size).board
            game = index.game(int(params["game"]))
            at = game.positions[int(params["at"])]
            shown = element(params["view"]).image_array(at.stones)
            assert np.array_equal(shown, board.to_array()), address
            found = index.find(board, limit=None, to_move=board.to_move)
            assert int(params["game"]) in {m.record.id for m in found.matches}
