"""read_positions() on generated records: the compiled core equals the pure walker on
games with captures, kos, passes, setup in any node, variations, the forms of
handicap, moves in a row, several games to a file and malformed bytes; and on
random bytes and mutated real records (no crash, no hang, the same result)."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gohash.group.coords import sgf_letters
from gohash.group.schemes import SCHEMES
from gohash.pipeline.positions import read_positions
from gohash.sgf.inputs import Source
from tests.support.kofight import Move, random_game
from tests.support.positions import DATA_FILES, assert_same_as_pure

SIZES = [1, 2, 3, 5, 7, 9, 13, 19, 20]
JUNK = [b"(", b")", b";", b"[", b"]", b"\\", b"\x00", b"\xff", b" ", b"\xef\xbb\xbf", b"b",
        b"Z", b"B[", b"\xe9", b"(;", b"tt", b"AB[aa:cc]"]
CHECK = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def moves_text(draw: st.DrawFn, size: int, moves: tuple[Move, ...]) -> str:
    """Nodes for ``moves``, passes written as ``[]`` or ``[tt]``, with setup now and then
    (alone or beside a move), a colour changed now and then."""
    nodes = []
    letters = [sgf_letters((r, c), size) for r in range(size) for c in range(size)]
    for colour, point in moves:
        node = ";"
        if draw(st.integers(0, 15)) == 0:
            kind = draw(st.sampled_from(["AB", "AW", "AE"]))
            points = draw(st.lists(st.sampled_from(letters), min_size=1, max_size=3))
            node += kind + "".join(f"[{p}]" for p in points)
            if draw(st.booleans()):
                nodes.append(node)
                node = ";"
        if draw(st.integers(0, 30)) == 0:
            colour = "w" if colour == "b" else "b"
        value = sgf_letters(point, size)
        if point is None and size <= 19 and draw(st.booleans()):
            value = "tt"
        nodes.append(f"{node}{colour.upper()}[{value}]")
    return "".join(nodes)


@st.composite
def records(draw: st.DrawFn) -> bytes:
    size = draw(st.sampled_from(SIZES))
    rng = random.Random(draw(st.integers(0, 2**32)))
    moves = random_game(rng, size, max_moves=draw(st.integers(0, 40))).moves
    root = draw(st.sampled_from(["", "GM[1]FF[4]", "CA[UTF-8]", "CA[ISO-8859-1]PB[J\xe9r]",
                                 "PB[a\\]b]PW[c]", "CA[bogus]", "PB[\xe9]"]))
    root += "" if size == 19 and draw(st.booleans()) else f"SZ[{size}]"
    handicap = draw(st.sampled_from(["", "HA[0]", "HA[2]", "HA[3]AB[aa][bb]", "HA[x]", "HA[1]"]))
    first = ""
    if draw(st.integers(0, 5)) == 0 and size >= 3:
        first = ";AB[bb]AW[ab]"
    text = f"(;{root}{handicap}{first}{moves_text(draw, size, moves)}"
    if moves and draw(st.booleans()):
        # A variation: another continuation from a point of the main line.
        cut = draw(st.integers(0, len(moves)))
        other = random_game(rng, size, max_moves=cut + 10, prefix=moves[:cut]).moves[cut:]
        text = (f"(;{root}{handicap}{first}{moves_text(draw, size, moves[:cut])}"
                f"({moves_text(draw, size, moves[cut:])})({moves_text(draw, size, other)})")
        if not (moves[cut:] and other):
            text += "()" if draw(st.booleans()) else ""
    text += ")\n"
    data = text.encode("latin-1")
    if draw(st.booleans()):
        data += data
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from(JUNK)) + data[at + draw(st.integers(0, 2)):]
    return data


@given(records(), st.sampled_from(SCHEMES), st.booleans(), st.sampled_from([1, 5, 1 << 16]))
@CHECK
def test_generated_records(data: bytes, name: str, variations: bool, batch_size: int) -> None:
    # Small batches cut files between games, and the walker may take a file over
    # from a game the core leaves after the core replayed the games before it.
    assert_same_as_pure([Source("generated.sgf", data)], scheme=name, variations=variations,
                        packed=True, batch_size=batch_size)


@given(st.integers(0, 2**32), st.sampled_from(SIZES))
@settings(max_examples=60, deadline=None)
def test_clean_games_take_the_fast_path(seed: int, size: int) -> None:
    """Legal games (captures, kos, passes) are the core's: no file goes to the walker."""
    game = random_game(random.Random(seed), size, max_moves=80)
    data = game.sgf().encode()
    flat = assert_same_as_pure([Source("clean.sgf", data)], variations=True)
    (batch,) = read_positions([Source("clean.sgf", data)])
    assert batch.pure_files == 0 and len(flat["hash"]) == len(game.moves) + 1


REAL = [Path(p).read_bytes() for p in DATA_FILES]


@given(st.binary(max_size=300))
@CHECK
def test_random_bytes(data: bytes) -> None:
    assert_same_as_pure([Source("random.sgf", data)], variations=True, packed=True)


@given(
    st.sampled_from(REAL),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 3), st.binary(max_size=3)), max_size=4),
    st.booleans(),
)
@CHECK
def test_mutated_real_records(
    data: bytes, edits: list[tuple[float, int, bytes]], variations: bool
) -> None:
    for where, cut, insert in edits:
        at = int(where * len(data))
        data = data[:at] + insert + data[at + cut:]
    assert_same_as_pure([Source("mutated.sgf", data)], variations=variations, packed=True)
