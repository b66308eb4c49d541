"""Board's rules as a caller asks them (is_legal, legal_moves, superko), its
default key scheme, a user's own key tables, and the package's public face.

Legality is checked against an independent flood fill, superko against a
brute-force replay that keeps every earlier position, and loaded keys against
a tiny Zobrist hasher of its own layout (points from the top left, as many
engines number them).
"""

from __future__ import annotations

import doctest
import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gohash
from gohash.errors import GohashError, SuperkoError
from gohash.go.board import Board
from gohash.group.schemes import DEFAULT_SCHEME, OwnKeys, load_keys

Point = tuple[int, int]


def _neighbours(p: Point, size: int) -> list[Point]:
    r, c = p
    return [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if 0 <= r + dr < size and 0 <= c + dc < size]


def _group(cells: dict[Point, str], p: Point, size: int) -> tuple[set[Point], set[Point]]:
    colour, stones, liberties, todo = cells[p], {p}, set(), [p]
    while todo:
        for n in _neighbours(todo.pop(), size):
            if n not in cells:
                liberties.add(n)
            elif cells[n] == colour and n not in stones:
                stones.add(n)
                todo.append(n)
    return stones, liberties


def _after(cells: dict[Point, str], p: Point, colour: str, size: int,
           suicide: bool) -> dict[Point, str] | None:
    """The stones after ``colour`` plays ``p``, by flood fill; None if illegal
    (occupied, or suicide where it is forbidden).  Ko is the caller's."""
    if p in cells:
        return None
    new = dict(cells)
    new[p] = colour
    for n in _neighbours(p, size):
        if n in new and new[n] != colour:
            stones, liberties = _group(new, n, size)
            if not liberties:
                for s in stones:
                    del new[s]
    stones, liberties = _group(new, p, size)
    if not liberties:
        if not suicide:
            return None
        for s in stones:
            del new[s]
    return new


def _cells(board: Board) -> dict[Point, str]:
    size = board.size
    return {(r, c): colour for r in range(size) for c in range(size)
            if (colour := board.get((r, c))) is not None}


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 6), st.booleans())
def test_is_legal_and_legal_moves_equal_a_flood_fill(seed: int, size: int, suicide: bool) -> None:
    rng = random.Random(seed)
    board = Board(size, suicide_allowed=suicide)
    for _ in range(rng.randint(0, 3 * size * size)):
        colour = board.to_move
        cells = _cells(board)
        points = [(r, c) for r in range(size) for c in range(size)]
        legal = []
        for p in points:
            after = _after(cells, p, colour, size, suicide)
            # A simple ko: a lone stone taking exactly one stone where it would be retaken.
            ko = board.ko_point == p
            if after is not None and not ko:
                legal.append(p)
            assert board.is_legal(p, colour) == (after is not None and not ko), (p, colour)
        assert board.legal_moves() == legal
        assert _cells(board) == cells  # left as it was
        if not legal or rng.random() < 0.05:
            board.pass_(colour)
        else:
            board.play(rng.choice(legal), colour)


def test_ko_and_suicide() -> None:
    # A ko on 4x4: White takes at B2's neighbour, Black may not retake at once.
    board = Board.from_diagram("""
        . X O .
        X O . O
        . X O .
        . . . .
    """, to_move="b")
    assert board.is_legal((2, 2), "b")
    board.play((2, 2), "b")  # takes the white stone at B3 (row 2, col 1)
    assert board.ko_point == (2, 1)
    assert not board.is_legal((2, 1), "w") and (2, 1) not in board.legal_moves("w")
    board.pass_("w")
    board.pass_("b")
    assert board.is_legal((2, 1), "w")
    corner = Board.from_diagram(". X\nX .")
    assert not corner.is_legal((1, 0), "w")
    assert Board.from_array(corner.to_array(), suicide_allowed=True).is_legal((1, 0), "w")
    with pytest.raises(gohash.ColourError):
        corner.is_legal((1, 0), "white")


def _superko_reference(size: int, seed: int, rule: str) -> None:
    """Random play with the simple-ko check off: a move is legal under superko
    iff its position (with the side to move after it, for situational) is none
    of the history's, by a replay that keeps them all."""
    rng = random.Random(seed)
    board = Board(size, simple_ko=False, superko=rule)
    history = [(frozenset(), "b")]

    def seen(cells: dict[Point, str], to_move: str) -> bool:
        key = (frozenset(cells.items()), to_move)
        return any((k if rule == "positional" else (k, t)) == (
            key[0] if rule == "positional" else key) for k, t in history)

    refused = 0
    for _ in range(300):
        colour = board.to_move
        cells = _cells(board)
        legal = []
        for r in range(size):
            for c in range(size):
                after = _after(cells, (r, c), colour, size, False)
                ok = after is not None and not seen(after, "w" if colour == "b" else "b")
                assert board.is_legal((r, c), colour) == ok
                refused += after is not None and not ok
                if ok:
                    legal.append((r, c))
        if not legal or rng.random() < 0.1:
            board.pass_(colour)
        else:
            point = rng.choice(legal)
            board.play(point, colour)
        history.append((frozenset(_cells(board).items()), board.to_move))
        if rng.random() < 0.05:  # undo takes its position back out of the history
            board.undo()
            history.pop()
    assert refused > 0


@pytest.mark.parametrize("rule", ["positional", "situational"])
@pytest.mark.parametrize("seed", range(4))
def test_superko_equals_a_replay_that_keeps_every_position(rule: str, seed: int) -> None:
    _superko_reference(3, seed, rule)


def test_superko_refuses_a_repetition_with_its_own_error() -> None:
    # The ko shape of test_ko_and_suicide, set up, with the simple-ko check off.
    board = Board(4, simple_ko=False, superko="positional")
    board.setup(black=[(3, 1), (2, 0), (1, 1)], white=[(3, 2), (2, 1), (2, 3), (1, 2)])
    board.play((2, 2), "b")  # takes W at B3: the simple ko
    with pytest.raises(SuperkoError, match="white at 'B3' repeats an earlier position"):
        board.play((2, 1), "w")
    assert board.to_array()[2, 2] == 1 and board.get((2, 1)) is None  # left as it was
    assert board.copy().superko == "positional" and not board.copy().is_legal((2, 1), "w")
    board.undo()
    assert board.is_legal((2, 2), "b")
    with pytest.raises(ValueError, match="superko 'japanese' is not one of"):
        Board(9, superko="japanese")
    assert Board(9).superko is None
    assert issubclass(SuperkoError, gohash.KoError)


def test_one_default_scheme() -> None:
    assert Board(19).scheme.name == DEFAULT_SCHEME == "regular128"
    assert Board.from_array(np.zeros((9, 9), np.int8)).scheme.name == DEFAULT_SCHEME
    assert Board(19, "huima64").scheme.name == "huima64"
    # The paper's E3: huima64 hashes the 9-stone handicap as the 5-stone one; the default does not.
    nine = [(3, 3), (3, 9), (3, 15), (9, 3), (9, 9), (9, 15), (15, 3), (15, 9), (15, 15)]
    five = [(3, 3), (3, 15), (9, 9), (15, 3), (15, 15)]
    hashes = {}
    for name in ("huima64", None):
        boards = [Board(19, name), Board(19, name)]
        boards[0].setup(black=nine)
        boards[1].setup(black=five)
        hashes[name] = boards[0].hash == boards[1].hash
    assert hashes == {"huima64": True, None: False}


def _engine_keys(size: int, seed: int) -> list[list[int]]:
    """A tiny engine's Zobrist table: keys[colour][y * size + x], colour 0 black,
    y counted from the top row."""
    rng = random.Random(seed)
    return [[rng.getrandbits(64) for _ in range(size * size)] for _ in range(2)]


def _engine_hash(keys: list[list[int]], board: Board) -> int:
    h = 0
    size = board.size
    for (row, col), colour in _cells(board).items():
        h ^= keys[colour == "w"][(size - 1 - row) * size + col]
    return h


def test_loaded_keys_reproduce_another_engines_hashes(tmp_path: Path) -> None:
    size = 5
    keys = _engine_keys(size, 11)
    side = random.Random(12).getrandbits(64)
    # Into gohash's layout: [colour, row, col], row 0 the bottom line.
    table = np.array([[[keys[c][(size - 1 - r) * size + col] for col in range(size)]
                       for r in range(size)] for c in range(2)], dtype=np.uint64)
    np.save(tmp_path / "engine.npy", table)
    flat = {name: [hex(table[c].reshape(-1)[i]) for i in range(size * size)]
            for c, name in enumerate(("black", "white"))}
    (tmp_path / "engine.json").write_text(json.dumps({**flat, "side": [0, hex(side)]}))
    loaded = [load_keys(tmp_path / "engine.npy"), load_keys(str(tmp_path / "engine.json")),
              load_keys(table, name="mine")]
    assert [k.name for k in loaded] == ["engine.npy", "engine.json", "mine"]
    rng = random.Random(3)
    for own in loaded:
        board = Board(size, own)
        for _ in range(60):
            moves = board.legal_moves()
            if not moves:
                break
            board.play(rng.choice(moves), board.to_move)
            assert board.hash == _engine_hash(keys, board)
        assert board.scheme.hash_array(board.to_array()) == board.hash
        assert own.hash_arrays(board.to_array()[None])[0] == board.hash
    white_to_move = Board(size, loaded[1])
    white_to_move.pass_("b")
    assert white_to_move.situation_hash == side
    with pytest.raises(GohashError, match="no symmetry"):
        Board(size, loaded[0]).canonical()
    with pytest.raises(GohashError, match="no symmetry"):
        loaded[0].transform(0, "rot90")


@pytest.mark.parametrize(("source", "message"), [
    (np.zeros((2, 3, 4), np.uint64), "shape"),
    (np.zeros((2, 3, 3), np.int64), "uint64"),
    (np.zeros((3, 3, 3), np.uint64), "shape"),
])
def test_bad_key_tables(source: np.ndarray, message: str) -> None:
    with pytest.raises(GohashError, match=message):
        load_keys(source)


def test_bad_key_files(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"black": [1, 2], "white": [1, 2]}')
    with pytest.raises(GohashError, match="one black and one white key per point"):
        load_keys(tmp_path / "a.json")
    (tmp_path / "b.json").write_text('{"black": ["zz"], "white": [1]}')
    with pytest.raises(GohashError, match="is not a key table"):
        load_keys(tmp_path / "b.json")
    (tmp_path / "c.json").write_text('{"black": [-1], "white": [1]}')
    with pytest.raises(GohashError, match="not an unsigned 64-bit"):
        load_keys(tmp_path / "c.json")
    with pytest.raises(GohashError, match="cannot read the key table"):
        load_keys(tmp_path / "missing.npy")
    assert isinstance(OwnKeys([1], [2]), OwnKeys)


def test_dir_shows_the_public_names_only() -> None:
    names = dir(gohash)
    assert not {"Any", "TYPE_CHECKING", "importlib", "annotations", "typing"} & set(names)
    assert {"Board", "Index", "scheme", "__version__", "__doc__"} <= set(names)
    assert [n for n in names if not n.startswith("__")] == sorted(gohash.__all__)


def test_rot90_is_numpys_clockwise_turn() -> None:
    import gohash.group.symmetry

    result = doctest.testmod(gohash.group.symmetry)
    assert result.attempted >= 4 and result.failed == 0
    board = np.random.default_rng(1).integers(0, 3, (7, 7))
    assert np.array_equal(gohash.element("rot90").image_array(board), np.rot90(board, -1))
