"""The explorer's move-list notation (gohash.index.movelist): parsing, the short form written
back, replay against sgfmill's board on real games, edits, and clear errors for every
malformed or illegal step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sgfmill import boards, sgf

from gohash.errors import MoveListError
from gohash.go.board import Board
from gohash.group.coords import sgf_letters
from gohash.index.movelist import (
    MAX_STEPS,
    Step,
    edit_steps,
    format_steps,
    parse_point,
    parse_steps,
    replay,
)
from tests.support.env import CORPUS

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def corpus_games(count: int) -> list[Path]:
    """The first ``count`` 19x19 records of kgs-6d and 9x9/13x13 records of small/."""
    kgs = sorted((CORPUS / "kgs-6d").rglob("*.sgf"))[:count]
    small = sorted((CORPUS / "small").rglob("*.sgf"))[:count]
    return kgs + small


def sgfmill_tokens(path: Path) -> tuple[int, list[str], list[list[str | None]]]:
    """A record's main line as a move list with explicit colours, and sgfmill's board
    after each move (rows from the top, '.XO'); None if the record has setup after the
    root or an illegal move, which the test leaves out."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    size = game.get_size()
    board = boards.Board(size)
    black, white, empty = game.get_root().get_setup_stones()
    tokens = [f"B{sgf_letters(p, size)}" for p in sorted(black)]
    tokens += [f"W{sgf_letters(p, size)}" for p in sorted(white)]
    assert not empty
    board.apply_setup(black, white, empty)
    after: list[list[str | None]] = []
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if node.has_setup_stones() or colour is None:
            return size, [], []
        if point is None:
            tokens.append(f"{colour}pass")
        else:
            if board.get(*point) is not None:
                return size, [], []
            board.play(point[0], point[1], colour)
            tokens.append(colour + sgf_letters(point, size))
        after.append(sgfmill_rows(board, size))
    return size, tokens, after


def sgfmill_rows(board: boards.Board, size: int) -> list[str | None]:
    symbol = {None: ".", "b": "X", "w": "O"}
    return [
        "".join(symbol[board.get(row, col)] for col in range(size))
        for row in range(size - 1, -1, -1)
    ]


def rows_of(board_cells: bytes, size: int) -> list[str | None]:
    return [
        "".join(".XO"[board_cells[row * size + col]] for col in range(size))
        for row in range(size - 1, -1, -1)
    ]


@pytest.mark.corpus
def test_replay_equals_sgfmill_on_corpus_games() -> None:
    games = corpus_games(12)
    replayed = 0
    for path in games:
        size, tokens, after = sgfmill_tokens(path)
        if not tokens:
            continue
        # Every prefix, so captures and ko recaptures are checked where they happen.
        for n in range(0, len(after), 7):
            prefix = tokens[: len(tokens) - len(after) + n + 1]
            result = replay(parse_steps(",".join(prefix), size), size)
            assert rows_of(result.board.stones(), size) == after[n], (path, n)
        replayed += 1
    assert replayed >= 20


@pytest.mark.corpus
def test_short_form_round_trips_a_corpus_game() -> None:
    path = corpus_games(1)[0]
    size, tokens, after = sgfmill_tokens(path)
    steps = parse_steps(",".join(tokens), size)
    short = format_steps(steps, size)
    # Alternating colours need no prefix: only the setup and off-turn moves keep one.
    assert sum(1 for t in short.split(",") if t[0] in "bw") < len(tokens) // 10
    assert rows_of(replay(parse_steps(short, size), size).board.stones(), size) == after[-1]
    assert format_steps(parse_steps(short, size), size) == short


@given(st.integers(1, 26), st.data())
def test_point_letters_round_trip(size: int, data: st.DataObject) -> None:
    row = data.draw(st.integers(0, size - 1))
    col = data.draw(st.integers(0, size - 1))
    text = sgf_letters((row, col), size)
    assert text == LETTERS[col] + LETTERS[size - 1 - row]
    assert parse_point(text, size) == (row, col)


steps_strategy = st.lists(
    st.one_of(
        st.builds(Step, st.just("play"), st.sampled_from([None, "b", "w"]),
                  st.tuples(st.integers(0, 8), st.integers(0, 8))),
        st.builds(Step, st.just("pass"), st.sampled_from([None, "b", "w"]), st.none()),
        st.builds(Step, st.just("edit"), st.sampled_from([None, "b", "w"]),
                  st.tuples(st.integers(0, 8), st.integers(0, 8))),
    ),
    max_size=30,
)


@given(steps_strategy)
def test_format_then_parse_keeps_every_step_and_colour(steps: list[Step]) -> None:
    text = format_steps(steps, 9)
    parsed = parse_steps(text, 9)
    # The short form drops colours equal to the side to move, which alternates from
    # black at each play or pass; resolving both lists the same way must agree.
    assert resolved(parsed) == resolved(steps)


def resolved(steps: list[Step]) -> list[Step]:
    to_move = "b"
    out = []
    for step in steps:
        if step.kind == "edit":
            out.append(step)
            continue
        colour = step.colour or to_move
        out.append(Step(step.kind, colour, step.point))
        to_move = "w" if colour == "b" else "b"
    return out


def test_suicide_is_refused_and_named() -> None:
    with pytest.raises(MoveListError, match=r"step 3: black at 'A5' is suicide"):
        replay(parse_steps("Wba,Wab,aa", 5), 5)


def test_simple_ko_is_refused_and_named() -> None:
    # White bc (B3) has black on three sides; black cc takes it with a lone stone
    # whose other neighbours are white: a ko at bc.
    ko = "Bbb,Bac,Bbd,Wcb,Wdc,Wcd,Wbc"
    result = replay(parse_steps(ko + ",cc", 5), 5)
    assert result.board.get(parse_point("bc", 5)) is None
    assert result.captured == {"b": 1, "w": 0}
    assert result.board.ko_point == parse_point("bc", 5)
    assert result.last_play == parse_point("cc", 5)
    with pytest.raises(MoveListError, match=r"step 9: white at 'B3' retakes a ko"):
        replay(parse_steps(ko + ",cc,bc", 5), 5)
    # After a ko threat elsewhere and its answer, the retake is legal.
    retaken = replay(parse_steps(ko + ",cc,ee,ea,bc", 5), 5)
    assert retaken.board.get(parse_point("cc", 5)) is None
    assert retaken.captured == {"b": 1, "w": 1}


def test_edits_place_replace_and_clear_without_changing_the_side_to_move() -> None:
    result = replay(parse_steps("pd,Bdd,Wpd,Edd", 19), 19)
    board = result.board
    assert board.get(parse_point("pd", 19)) == "w"
    assert board.get(parse_point("dd", 19)) is None
    assert board.to_move == "w" and board.move_number == 1
    assert result.last_play is None


def played(size: int, moves: list[tuple[int, int]]) -> Board:
    """The board after ``moves`` played in turn, the illegal ones skipped."""
    board = Board(size)
    for point in moves:
        if board.is_legal(point, board.to_move):
            board.play(point, board.to_move)
    return board


@given(st.integers(2, 9), st.data())
def test_edit_steps_lead_from_one_board_to_the_other(size: int, data: st.DataObject) -> None:
    points = st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)),
                      max_size=3 * size * size)
    before = played(size, data.draw(points)).to_array()
    after = played(size, data.draw(points)).to_array()
    # From the board before, replayed as edits; every step keeps every group a liberty
    # (replay refuses one that does not).
    steps = edit_steps(np.zeros_like(before), before, size)
    steps += edit_steps(before, after, size)
    board = replay(parse_steps(",".join(steps), size), size).board
    assert np.array_equal(board.to_array(), after)
    assert edit_steps(after, after, size) == []


def test_a_stone_that_changes_colour_is_cleared_before_stones_are_placed() -> None:
    # Black A1, White A2 to Black A1, White B1, Black A2: White B1 first would leave
    # Black A1 without liberties (found by the property test above).
    before = np.array([[1, 0], [2, 0]])
    after = np.array([[1, 2], [1, 0]])
    steps = edit_steps(before, after, 2)
    assert steps == ["Eaa", "Wbb", "Baa"]
    board = replay(parse_steps(",".join(edit_steps(np.zeros_like(before), before, 2) + steps),
                               2), 2).board
    assert np.array_equal(board.to_array(), after)


def test_an_edit_that_leaves_a_group_without_liberties_is_refused() -> None:
    with pytest.raises(MoveListError, match=r"step 3: a black stone at 'A9' would leave a "
                       "group without liberties"):
        replay(parse_steps("Wba,Wab,Baa", 9), 9)


@pytest.mark.parametrize(
    ("text", "size", "message"),
    [
        ("pd,zz", 19, r"step 2: 'zz' is not a point of the 19x19 board"),
        ("pd,,dp", 19, r"step 2: '' is not a step"),
        ("pd,PD", 19, r"step 2: 'PD' is not a point"),
        ("p1", 19, r"step 1: 'p1' is not a point \(two letters a-z"),
        ("xpd", 19, r"step 1: 'xpd' is not a step"),
        ("jj", 9, r"step 1: 'jj' is not a point of the 9x9 board"),
        ("Bpd ", 19, r"step 1: 'Bpd ' is not a step"),
        ("passs", 19, r"step 1: 'passs' is not a step"),
        ("pd,pd", 19, r"step 2: white at 'Q16' is occupied"),
        ("bpd,bdd,bpd", 19, r"step 3: black at 'Q16' is occupied"),
    ],
)
def test_bad_move_lists_name_the_step_and_the_reason(text: str, size: int, message: str) -> None:
    with pytest.raises(MoveListError, match=message) as caught:
        replay(parse_steps(text, size), size)
    assert str(caught.value).startswith(message.split(":")[0] + ":")
    assert caught.value.step == int(message.split()[1].rstrip(":"))


def test_too_many_steps_are_refused_before_any_replay() -> None:
    with pytest.raises(MoveListError, match=f"{MAX_STEPS + 1:,} steps; at most {MAX_STEPS:,}"):
        parse_steps(",".join(["pass"] * (MAX_STEPS + 1)), 19)
    assert len(parse_steps(",".join(["pass"] * MAX_STEPS), 19)) == MAX_STEPS


def test_empty_list_is_the_empty_board() -> None:
    result = replay(parse_steps("", 13), 13)
    assert result.board.stones() == bytes(169)
    assert result.board.to_move == "b"
