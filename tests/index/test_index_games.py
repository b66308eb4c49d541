"""Stored games (gohash.index.games): the compiled replay and its pure twin give the
positions the pipeline replayed, on random games (captures, suicide, setup, passes,
branches) and on records of data/sgf and the corpus."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gohash.errors import GohashError
from gohash.go.board import Board
from gohash.group.coords import sgf_order
from gohash.index.build import _plain_records, _stored
from gohash.index.games import (
    EncodedGame,
    encode_game,
    posting_key,
    posting_keys,
    replay_at,
    replay_boards,
    replay_pure,
)
from gohash.pipeline.frames import unpack_frames
from gohash.pipeline.positions import read_positions
from tests.support.env import ROOT, require_corpus

DATA = ROOT / "data" / "sgf"


def random_tree(rng: random.Random, size: int, count: int, branches: float = 0.1) -> tuple[
        list[np.ndarray], list[int], list[int], list[bool], list[int], list[int]]:
    """Positions of ``count`` nodes played with Board (suicide allowed), each node a
    move, a pass or setup, its parent the node before or now and then an earlier one:
    (positions, colours, points, setup flags, parents, sides to move)."""
    boards = [np.zeros(size * size, dtype=np.int8)]
    colours, points, setups, parents, to_move = [0], [-1], [True], [-1], [1]
    for node in range(1, count):
        parent = rng.randrange(node) if rng.random() < branches else node - 1
        board = Board.from_array(boards[parent].reshape(size, size), suicide_allowed=True,
                                 simple_ko=False)
        kind = rng.random()
        colour = rng.choice((1, 2))
        point = -1
        setup = False
        if kind < 0.08:
            black = [divmod(p, size) for p in rng.sample(range(size * size), 3)]
            empty = [divmod(p, size) for p in rng.sample(range(size * size), 2)]
            board.setup(black=black, empty=empty)
            setup = True
            colour = 0 if rng.random() < 0.5 else colour
            if colour:  # a move in the setup node: its stone is in the position
                free = [p for p in range(size * size) if not board.to_array().flat[p]]
                point = rng.choice(free)
                board.play(divmod(point, size), "bw"[colour - 1])
        elif kind < 0.15:
            board.pass_("bw"[colour - 1])
        else:
            free = [p for p in range(size * size) if not board.to_array().flat[p]]
            if not free:
                board.pass_("bw"[colour - 1])
            else:
                point = rng.choice(free)
                board.play(divmod(point, size), "bw"[colour - 1])
        boards.append(board.to_array().reshape(-1).copy())
        colours.append(colour)
        points.append(point)
        setups.append(setup)
        parents.append(parent)
        to_move.append(3 - colour if colour else to_move[parent])
    return boards, colours, points, setups, parents, to_move


def encoded(boards: list[np.ndarray], colours: list[int], points: list[int],
            setups: list[bool], parents: list[int] | None, size: int) -> EncodedGame:
    return encode_game(size, np.array(colours, dtype=np.int8), np.array(points, dtype=np.int16),
                       np.array(setups, dtype=np.bool_), lambda node: boards[node],
                       parent=parents)


@pytest.mark.parametrize("seed", range(12))
def test_random_games_replay_to_their_positions_on_both_paths(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice((5, 9, 13, 19))
    boards, colours, points, setups, parents, to_move = random_tree(rng, size, 300)
    game = encoded(boards, colours, points, setups, parents, size)
    want = np.stack(boards)
    for pure in (False, True):
        replayed = replay_boards(game.blob, size, game.nodes, pure=pure)
        assert (replayed.boards == want).all()
        assert replayed.parent.tolist() == parents
        assert replayed.to_move.tolist() == to_move
        assert replayed.colour.tolist() == colours
        assert replayed.setup.tolist()[1:] == setups[1:]
    # Ever bitmaps: the points a position holds a stone of the colour, or it played.
    order = sgf_order(size)
    for colour, bitmap in ((1, game.ever_black), (2, game.ever_white)):
        held = (want == colour).any(axis=0)
        for node in range(1, len(colours)):
            if colours[node] == colour and points[node] >= 0 and not setups[node]:
                held[points[node]] = True
        bits = np.zeros(size * size, dtype=np.bool_)
        bits[order] = held
        assert bitmap == np.packbits(bits, bitorder="little").tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_replay_at_gives_each_node_asked_for_on_both_paths(seed: int) -> None:
    rng = random.Random(100 + seed)
    size = 9
    games = [random_tree(rng, size, rng.randrange(2, 120), branches=0) for _ in range(6)]
    blobs, nodes, mains = [], [], []
    for boards, colours, points, setups, _, _ in games:
        game = encoded(boards, colours, points, setups, None, size)  # main lines
        blobs.append(game.blob)
        nodes.append(game.nodes)
        mains.append(rng.randrange(1, game.nodes + 1))
    which = sorted(rng.randrange(len(games)) for _ in range(40))
    seq = np.array([rng.randrange(nodes[g]) for g in which], dtype=np.int32)
    at = [replay_at(blobs, size, nodes, mains, np.array(which, dtype=np.int32), seq, pure=p)
          for p in (False, True)]
    for name in ("boards", "to_move", "move_number", "next_colour", "next_point"):
        assert (getattr(at[0], name) == getattr(at[1], name)).all(), name
    for i, (g, s) in enumerate(zip(which, seq.tolist(), strict=True)):
        boards, colours, points, setups, _, _ = games[g]
        assert (at[0].boards[i] == boards[s]).all()
        after = s + 1
        has_next = after < mains[g] and not setups[after] and colours[after] != 0
        assert at[0].next_colour[i] == (colours[after] if has_next else 0)
        assert at[0].next_point[i] == (points[after] if has_next else -1)


@pytest.mark.parametrize("bits", [64, 128])
def test_one_posting_key_is_that_of_the_batch(bits: int) -> None:
    rng = random.Random(bits)
    ints = [0, 1, (1 << bits) - 1, 1 << (bits - 1)] + [rng.getrandbits(bits) for _ in range(50)]
    words = [[k] if bits == 64 else [k >> 64, k & ((1 << 64) - 1)] for k in ints]
    keys = np.array(words, dtype=np.uint64).reshape(len(ints), -1)
    keys = keys[:, 0] if bits == 64 else keys
    for size in (9, 19):
        assert posting_keys(keys, size).tolist() == [posting_key(k, bits, size) for k in ints]


def test_a_blob_that_is_no_stored_game_is_an_error_on_both_paths() -> None:
    for blob in (b"\x00", b"\x00\x00", b"\x00\x10\x05\x00", b"\x00\x14\x00\x00\xff\x03"):
        for pure in (False, True):
            with pytest.raises(GohashError, match="does not replay"):
                replay_boards(blob, 9, 2, pure=pure)


def pipeline_games(inputs: list[str], variations: bool) -> int:
    """Every game of the inputs stored and replayed on both paths: the positions,
    sides to move and move numbers the pipeline gave; the number of games."""
    count = 0
    for batch in read_positions(inputs, packed=True, variations=variations):
        key = (batch.file.astype(np.int64) << 32) | batch.game
        for file, game, size in zip(batch.games.file.tolist(), batch.games.game.tolist(),
                                    batch.games.size.tolist(), strict=True):
            rows = np.flatnonzero(key == (file << 32 | game))
            if not len(rows):
                continue
            low, high = int(rows[0]), int(rows[-1]) + 1
            stones = np.stack([unpack_frames(batch.packed(r), 1, size)[0].reshape(-1)
                               for r in range(low, high)])
            latest: list[int] = []
            parents = []
            for node, depth in enumerate(batch.depth[low:high].tolist()):
                del latest[depth:]
                parents.append(latest[depth - 1] if depth else -1)
                latest.append(node)
            stored = encode_game(size, batch.colour[low:high], batch.point[low:high],
                                 batch.setup[low:high], stones.__getitem__,
                                 parent=parents, first_to_move=int(batch.to_move[low]))
            # The main line's fast path writes what the general one does.
            main = parents == list(range(-1, high - low - 1))
            if main:
                general = encode_game(size, batch.colour[low:high], batch.point[low:high],
                                      batch.setup[low:high], stones.__getitem__,
                                      parent=parents, first_to_move=int(batch.to_move[low]))
                assert encode_game(size, batch.colour[low:high], batch.point[low:high],
                                   batch.setup[low:high], stones.__getitem__,
                                   first_to_move=int(batch.to_move[low])) == general
            for replayed in (replay_boards(stored.blob, size, stored.nodes),
                             replay_pure(stored.blob, size, stored.nodes)):
                assert (replayed.boards == stones).all(), (file, game)
                assert (replayed.to_move == batch.to_move[low:high]).all(), (file, game)
                assert (replayed.move_number == batch.move_number[low:high]).all()
            count += 1
    return count


def test_data_sgf_games_replay_to_the_pipelines_positions() -> None:
    assert pipeline_games([str(DATA)], variations=True) > 20


@pytest.mark.corpus
def test_corpus_games_replay_to_the_pipelines_positions() -> None:
    corpus = require_corpus()
    assert pipeline_games([str(corpus / "small"), str(corpus / "ai-games" / "AlphaGo")],
                          variations=True) > 500


def plain_records_match(inputs: list[str], variations: bool, batch_size: int) -> int:
    """The stored games :func:`gohash.index.build._plain_records` makes at once, byte
    for byte those :func:`~gohash.index.build._stored` makes one at a time
    (:func:`encode_game`); how many it made."""
    made = 0
    for batch in read_positions(inputs, packed=True, variations=variations,
                                batch_size=batch_size):
        row_keys = (batch.file.astype(np.int64) << 32) | batch.game
        game_keys = (batch.games.file.astype(np.int64) << 32) | batch.games.game
        starts = np.searchsorted(row_keys, game_keys, side="left").tolist()
        ends = np.searchsorted(row_keys, game_keys, side="right").tolist()
        main_line = batch.variations.index(()) if () in batch.variations else -1
        off_main = np.flatnonzero(batch.variation != main_line).tolist()
        records = _plain_records(batch, starts, ends, off_main)
        for row, (start, end, size) in enumerate(zip(starts, ends, batch.games.size.tolist(),
                                                     strict=True)):
            main = min([end, *(r for r in off_main if start <= r < end)])
            if row in records:
                assert records[row] == _stored(batch, start, main, end, size), row
                made += 1
            elif end > start:
                # Left to _stored: a root with stones, setup after it, or variations.
                setup_after = batch.setup[start + 1 : end].any()
                assert setup_after or main < end or batch.packed(start)[1:].strip(b"\0")
    return made


@pytest.mark.parametrize("variations", [False, True])
@pytest.mark.parametrize("batch_size", [7, 1 << 14])
def test_plain_games_are_stored_at_once_as_one_at_a_time(variations: bool,
                                                         batch_size: int) -> None:
    assert plain_records_match([str(DATA)], variations, batch_size) > 5


@pytest.mark.corpus
def test_corpus_plain_games_are_stored_at_once_as_one_at_a_time() -> None:
    corpus = require_corpus()
    assert plain_records_match([str(corpus / "small"), str(corpus / "kgs-6d")], False,
                               1 << 14) > 500
