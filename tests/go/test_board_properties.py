"""Property tests of gohash.go.board over random games (hypothesis).

- Differential: random games on random sizes give, after every play, setup
  and undo, the same stones and the same removed stones as
  ``sgfmill.boards.Board``, and every refusal is justified on sgfmill's board.
- Incremental hash: after every play, pass, setup and undo, ``board.hash`` and
  ``board.situation_hash`` equal a from-scratch ``hash_array``, for every scheme.
- Symmetry: the image of a game under any of the 16 elements hashes, after
  every move, to the transformed hash of the original game.
"""

from __future__ import annotations

from dataclasses import dataclass

import sgfmill.boards
from hypothesis import event, given, settings
from hypothesis import strategies as st

from gohash import ELEMENTS, SCHEMES, scheme
from gohash.errors import IllegalMoveError, KoError, SuicideError
from gohash.go.board import Board
from tests.support.boards import Game, Point, games
from tests.support.symmetry import design_map


def stones(board: Board | sgfmill.boards.Board) -> dict[Point, str]:
    if isinstance(board, Board):
        return {
            (r, c): colour
            for r in range(board.size)
            for c in range(board.size)
            if (colour := board.get((r, c))) is not None
        }
    return {point: colour for colour, point in board.list_occupied_points()}


def try_play(
    board: Board, game: Game, choice: int, colour: str
) -> tuple[Point, list[Point]] | None:
    """Play the first legal point of the game's area from ``choice`` on; None if none is."""
    for point in game.candidates(board, choice, colour):
        try:
            return point, board.play(point, colour)
        except (KoError, SuicideError):
            continue
    return None


@settings(max_examples=300, deadline=None)
@given(game=games(2, 19), suicide_allowed=st.booleans())
def test_random_games_agree_with_sgfmill(game: Game, suicide_allowed: bool) -> None:
    board = Board(game.size, suicide_allowed=suicide_allowed)
    mill = sgfmill.boards.Board(game.size)
    mill_ko: Point | None = None
    capturer = ""
    undo_stack: list[tuple[sgfmill.boards.Board, Point | None, str]] = []
    for step in game.steps:
        colour = game.colour(board, step)
        if step.kind == "play":
            before = stones(mill)
            for point in game.candidates(board, step.choice, colour):
                try:
                    removed = board.play(point, colour)
                except IllegalMoveError as error:
                    # Every refusal must be a real ko or a real suicide on sgfmill's board.
                    event(type(error).__name__)
                    if isinstance(error, KoError):
                        assert point == mill_ko and colour != capturer
                    else:
                        assert isinstance(error, SuicideError) and not suicide_allowed
                        trial = mill.copy()
                        trial.play(*point, colour)
                        assert trial.get(*point) is None
                    assert stones(board) == before
                    continue
                undo_stack.append((mill.copy(), mill_ko, capturer))
                mill_ko = mill.play(*point, colour)
                capturer = colour
                assert set(removed) == (before.keys() | {point}) - stones(mill).keys()
                assert board.ko_point == mill_ko
                if removed:
                    event("capture" if board.get(point) else "suicide")
                if board.ko_point:
                    event("ko")
                break
        elif step.kind == "setup":
            black, white, empty = game.setup_lists(step)
            undo_stack.append((mill.copy(), mill_ko, capturer))
            removed = board.setup(black, white, empty)
            # sgfmill applies AB, then AW, then AE, as we do.
            assert board.last_setup_legal == mill.apply_setup(black, white, empty)
            assert board.last_setup_legal == (not removed)
            mill_ko = None
        elif step.kind == "undo" and undo_stack:
            board.undo()
            mill, mill_ko, capturer = undo_stack.pop()
            assert board.ko_point == mill_ko
        assert stones(board) == stones(mill)
    assert stones(board.to_sgfmill()) == stones(mill)
    assert Board.from_sgfmill(mill).position_key() == board.position_key()


@dataclass
class Snapshot:
    key: bytes
    hash: int
    situation: int
    ko: Point | None
    to_move: str
    move_number: int

    @staticmethod
    def of(board: Board) -> Snapshot:
        return Snapshot(board.position_key(), board.hash, board.situation_hash, board.ko_point,
                        board.to_move, board.move_number)


@settings(max_examples=100, deadline=None)
@given(game=games(1, 13), suicide_allowed=st.booleans())
def test_incremental_hash_equals_full_hash_for_every_scheme(
    game: Game, suicide_allowed: bool
) -> None:
    for name in SCHEMES:
        keys = scheme(name, game.size)
        board = Board(game.size, keys, suicide_allowed=suicide_allowed)
        history = [Snapshot.of(board)]
        for step in game.steps:
            colour = game.colour(board, step)
            if step.kind == "play":
                if try_play(board, game, step.choice, colour) is None:
                    continue
            elif step.kind == "pass":
                board.pass_(colour)
            elif step.kind == "setup":
                board.setup(*game.setup_lists(step))
            else:
                if len(history) == 1:
                    continue
                board.undo()
                history.pop()
                assert Snapshot.of(board) == history[-1]
                continue
            history.append(Snapshot.of(board))
            array = board.to_array()
            assert board.hash == keys.hash_array(array)
            assert board.situation_hash == keys.hash_array(array, board.to_move)
        # The exact key and the array round-trip, and rebuild the same hash.
        key = board.position_key()
        assert Board.from_position_key(key, keys).hash == board.hash
        assert Board.from_array(board.to_array(), keys).position_key() == key
        assert Board.from_diagram(str(board), keys).position_key() == key


@settings(max_examples=80, deadline=None)
@given(game=games(1, 13), name=st.sampled_from(SCHEMES))
def test_image_of_a_game_hashes_to_the_transformed_hash(game: Game, name: str) -> None:
    size = game.size
    keys = scheme(name, size)
    original = Board(size, keys, suicide_allowed=True)
    moves: list[tuple[Point | None, str]] = []
    after: list[tuple[int, int, list[Point]]] = []
    for step in game.steps:
        colour = game.colour(original, step)
        if step.kind == "pass":
            original.pass_(colour)
            moves.append((None, colour))
            after.append((original.hash, original.situation_hash, []))
        else:
            played = try_play(original, game, step.choice, colour)
            if played is not None:
                moves.append((played[0], colour))
                after.append((original.hash, original.situation_hash, played[1]))
    # The image game is drawn with the point maps of docs/design.md (tests.support.symmetry); the
    # transform is the scheme's, checked against freshly hashed images in
    # test_schemes.test_symmetry_theorem.
    for g in ELEMENTS:
        image = Board(size, keys, suicide_allowed=True)
        for (point, colour), (h, situation, removed) in zip(moves, after, strict=True):
            image_colour = {"b": "w", "w": "b"}[colour] if g.swap else colour
            if point is None:
                image.pass_(image_colour)
            else:
                image_removed = image.play(design_map(g.name, point, size), image_colour)
                assert sorted(image_removed) == sorted(design_map(g.name, p, size) for p in removed)
            assert image.hash == keys.transform(h, g)
            assert image.situation_hash == keys.transform(situation, g)
