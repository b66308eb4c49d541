"""Differential tests of the superko checker against GNU Go 3.8 over GTP.

GNU Go, started with ``--chinese-rules`` (suicide forbidden) and
``--positional-superko`` or ``--situational-superko``, refuses an illegal
``play``.  For every record it can replay, the first move it refuses must be
the first move gohash reports under the same rules (``chinese`` and ``aga``):
a violation, or a play on an occupied point, which is an error of the record.
The records: every SGF file under data/sgf/ with at most root setup, 200
random games on 5x5..9x9 that contain repetitions (pinned in tests/data), and (when the corpus is
beside the checkout) its small/ part and five real games with repetitions.  GNU Go missing fails the
test in CI and skips it elsewhere (see tests/support/gtp.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from sgfmill import sgf, sgf_grammar

from gohash.errors import OccupiedPointError
from gohash.go.rulesets import RULESETS
from gohash.tools.superko import check
from tests.support import gtp
from tests.support.env import CORPUS, ROOT
from tests.support.gtp import GnuGo, require_gnugo
from tests.support.kofight import PINNED_SEED, games_with_repetitions, pinned_games
from tests.support.sgfgen import sgf_point

Point = tuple[int, int]
Move = tuple[str, Point | None]

DATA = ROOT / "data" / "sgf"
# Real games in which gohash and GNU Go find repetitions: cycles of 3 (PSK only:
# the other player is to move) and of 6 and 8 (both rules), and a record that
# plays on an occupied point again and again.
REAL_REPETITIONS = (
    "kgs-6d/kgs-19-2017-02-new/2017-02-18-10.sgf",
    "kgs-6d/kgs-19-2017-04-new/2017-04-14-5.sgf",
    "ai-games/The_11th_Computer_Go_UEC_Cup/day1/2-Natsukaze-QuinoaIgo-050f280e.sgf",
    "ai-games/The_2nd_World_AI_Go_Open_2018/3-2_AQ_vs_Golaxy-acb01cfa.sgf",
    "ai-games/Sweeper/2016.09.04_2016_vs_syknyk_43772425-3ef59f50.sgf",
)
RULES = {"positional": RULESETS["chinese"], "situational": RULESETS["aga"]}


class Replay(NamedTuple):
    """A record as GNU Go replays it: root setup, fixed handicap, main-line moves."""

    size: int
    black: list[Point]
    white: list[Point]
    fixed_handicap: int  # HA without AB, White first: GTP's fixed placement, as the walker does
    moves: list[Move]


def replayable(path: Path) -> Replay | None:
    """The record's replay, if GNU Go can do it with ``loadsgf`` of the root setup
    (or ``fixed_handicap``) and ``play``: one game, size 2..19, no setup after
    the root, legible to sgfmill."""
    try:
        data = path.read_bytes()
        if len(sgf_grammar.parse_sgf_collection(data)) != 1:
            return None
        game = sgf.Sgf_game.from_bytes(data)
        size = game.get_size()
        root = game.get_root()
        if not 2 <= size <= 19 or root.has_property("AE"):
            return None
        black, white, _ = root.get_setup_stones()
        handicap = root.get("HA") if root.has_property("HA") else 0
        moves: list[Move] = []
        for node in game.get_main_sequence()[1:]:
            if node.has_setup_stones():
                return None
            colour, point = node.get_move()
            if colour is not None:
                moves.append((colour, point))
    except ValueError:
        return None
    # The walker's rule: GTP stones unless AB is given or Black moves first.
    white_first = not moves or moves[0][0] == "w"
    fixed = handicap if handicap >= 2 and not black and white_first else 0
    return Replay(size, sorted(black), sorted(white), fixed, moves)


def gnugo_first_refusal(engine: GnuGo, tmp: Path, replay: Replay) -> int | None:
    size = replay.size
    if replay.black or replay.white:
        ab = "".join(f"[{sgf_point(p, size)}]" for p in replay.black)
        aw = "".join(f"[{sgf_point(p, size)}]" for p in replay.white)
        root = tmp / "root.sgf"
        setup = ("AB" + ab if ab else "") + ("AW" + aw if aw else "")
        root.write_text(f"(;GM[1]FF[4]SZ[{size}]{setup})")
        engine.command(f"loadsgf {root}")
        engine.size = size
    else:
        engine.new_game(size)
        if replay.fixed_handicap:
            engine.command(f"fixed_handicap {replay.fixed_handicap}")
    return engine.first_refusal(replay.moves)


def gohash_first_refusal(path: Path, rule: str) -> int | None:
    """The first move gohash reports in a one-game record: a violation, or a play
    on an occupied point (an error of the record, which ends the game; GNU Go
    refuses it too)."""
    result = check([str(path)], RULES[rule])
    assert all(isinstance(e, OccupiedPointError) for e in result.errors), result.errors
    reported = [v.move_number for v in result.violations]
    reported += [e.move_number for e in result.errors if e.move_number is not None]
    return min(reported, default=None)


def data_records() -> Iterator[Path]:
    return iter(sorted(DATA.rglob("*.sgf")))


@pytest.mark.parametrize("rule", ["positional", "situational"])
def test_gnugo_agrees_on_data_records(rule: str, tmp_path: Path) -> None:
    program = require_gnugo()
    compared: dict[str, int | None] = {}
    with GnuGo(program, rule) as engine:
        for path in data_records():
            record = replayable(path)
            if record is None:
                continue
            expected = gnugo_first_refusal(engine, tmp_path, record)
            assert gohash_first_refusal(path, rule) == expected, path.name
            compared[path.name] = expected
    superko_records = {p.name for p in (DATA / "superko").glob("*.sgf")}
    assert superko_records <= compared.keys()
    clean = {name for name in superko_records if compared[name] is None}
    assert clean == ({"psk-not-ssk.sgf"} if rule == "situational" else set())
    assert len(compared) >= len(superko_records) + 5  # the walker's records too


@pytest.mark.corpus
@pytest.mark.parametrize("rule", ["positional", "situational"])
def test_gnugo_agrees_on_real_games(rule: str, tmp_path: Path) -> None:
    """The small/ part of the corpus (9x9 and 13x13), and real games with repetitions."""
    program = require_gnugo()
    paths = sorted((CORPUS / "small").rglob("*.sgf")) + [CORPUS / p for p in REAL_REPETITIONS]
    compared = refused = 0
    disagreements: list[str] = []
    with GnuGo(program, rule) as engine:
        for path in paths:
            record = replayable(path)
            if record is None:
                continue
            expected = gnugo_first_refusal(engine, tmp_path, record)
            found = gohash_first_refusal(path, rule)
            compared += 1
            refused += expected is not None
            if found != expected:
                disagreements.append(f"{path}: gohash {found}, GNU Go {expected}")
    assert not disagreements, "\n".join(disagreements[:20])
    assert compared >= 500
    assert refused >= {"positional": 5, "situational": 3}[rule]


def test_gnugo_agrees_on_random_ko_fights(tmp_path: Path) -> None:
    """200 random games with repetitions (pinned), both rules, one GNU Go process per rule."""
    program = require_gnugo()
    games = pinned_games()
    disagreements: list[str] = []
    refused = {rule: 0 for rule in RULES}
    with GnuGo(program, "positional") as psk, GnuGo(program, "situational") as ssk:
        for number, game in enumerate(games):
            path = tmp_path / f"game{number}.sgf"
            path.write_text(game.sgf())
            for rule, engine in (("positional", psk), ("situational", ssk)):
                engine.new_game(game.size)
                expected = engine.first_refusal(list(game.moves))
                found = gohash_first_refusal(path, rule)
                refused[rule] += expected is not None
                if found != expected:
                    disagreements.append(f"{path.name} {rule}: gohash {found}, GNU Go {expected}")
    assert not disagreements, "\n".join(disagreements[:20])
    # Every game repeats a position, so GNU Go refuses a move in each under PSK.
    assert refused["positional"] == len(games)
    assert refused["situational"] > 0


def test_the_pinned_ko_fights_are_the_generators() -> None:
    """The pinned games are the generator's (it draws the same games every run):
    their first five, drawn again."""
    games = pinned_games()
    assert len(games) == 200 and all(g.first_repetition is not None for g in games)
    assert games_with_repetitions(PINNED_SEED, 5) == games[:5]


def test_missing_gnugo_fails_in_ci_and_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gtp, "find_gnugo", lambda: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="GNU Go not found"):
        gtp.require_gnugo()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="GNU Go not found"):
        gtp.require_gnugo()
