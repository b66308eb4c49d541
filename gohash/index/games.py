"""Games as the index stores them: a compact binary record of every node, replayed.

Scope: :func:`encode_game`, which writes a game's nodes (moves, setup stones,
branches) into the binary form of docs/design.md ("Stored games") with its
"ever black" and "ever white" bitmaps; :func:`replay_boards`, which replays a
stored game into the position of every node (the compiled kernel's
``replay_stored``, ``gohash.pipeline._stored_replay``, or :func:`replay_pure`, its
pure twin on :class:`gohash.go.board.Board`).  Nothing here knows SQL.

A node is a position the index holds: node 0 the initial position (the root's
setup), then one per node of the record with a move or setup stones, in the
order the replay visited them (the main line first, then each variation of an
index built with variations).  Node ``seq`` is the ``seq`` of a posting and of
:attr:`gohash.index.results.Match.seq`.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .. import _native
from ..errors import GohashError, StoredGameError
from ..go.board import Board
from ..group.coords import sgf_order
from ..group.schemes import KeyScheme
from ..group.symmetry import MAX_SIZE
from ..pipeline.frames import frame_batch
from .values import damaged

__all__ = [
    "KEY_BITS",
    "NO_POINT",
    "REPLAY_COLUMNS",
    "TAG_MOVE",
    "TAG_PARENT",
    "TAG_SETUP",
    "EncodedGame",
    "NodesAt",
    "Replayed",
    "encode_game",
    "game_keys",
    "plain_games",
    "posting_key",
    "posting_keys",
    "replay_at",
    "replay_boards",
    "replay_game",
    "replay_pure",
    "setup_nodes",
]

TAG_MOVE = 0
"""A node with a move: ``colour`` plays ``point`` (:data:`NO_POINT`: passes)."""
TAG_SETUP = 1
"""A node whose position is set, then its edits (count, then one word each)."""
TAG_PARENT = 2
"""Not a node: the next node's parent, in the two words that follow."""
NO_POINT = 1023
"""The point field of a pass, or of a setup node without a move."""

Stones = npt.NDArray[np.int8]

KEY_BITS = 48
"""The bits of a canonical key a posting keeps (:func:`posting_keys`)."""


@dataclass(frozen=True)
class EncodedGame:
    """A game in its stored form: ``blob`` (docs/design.md, "Stored games") and
    its ``ever_black`` and ``ever_white`` bitmaps (bit ``i`` for point ``i`` in
    row-major order from the top row, least significant bit first in each
    byte: :func:`sgf_order`), of ``nodes`` nodes."""

    blob: bytes
    ever_black: bytes
    ever_white: bytes
    nodes: int


@dataclass
class Replayed:
    """A stored game replayed: per node (row) its position ``boards[node]`` (flat,
    ``row * size + col``, row 0 the bottom line; 0 empty, 1 black, 2 white), the
    side to move (1, 2), the move of the node (``colour`` 0 none, 1, 2; ``point``
    -1 a pass or none), whether setup stones changed the board (``setup``), its
    ``parent`` node (-1 for node 0) and its move number."""

    boards: npt.NDArray[np.int8]
    to_move: npt.NDArray[np.int8]
    colour: npt.NDArray[np.int8]
    point: npt.NDArray[np.int16]
    setup: npt.NDArray[np.bool_]
    parent: npt.NDArray[np.int32]
    move_number: npt.NDArray[np.int32]

    def __len__(self) -> int:
        return len(self.boards)


_PARENT = struct.Struct("<3H")
"""A :data:`TAG_PARENT` word and the parent's two words."""


def _word(tag: int, colour: int, point: int) -> int:
    return tag << 12 | colour << 10 | point


def encode_game(
    size: int,
    colour: npt.NDArray[np.int8],
    point: npt.NDArray[np.int16],
    setup: npt.NDArray[np.bool_],
    stones: Callable[[int], Stones],
    *,
    parent: Sequence[int] | None = None,
    first_to_move: int = 1,
) -> EncodedGame:
    """The stored form of one game of ``len(colour)`` nodes.

    Per node: the move's ``colour`` (0 none, 1, 2) and ``point`` (``row * size +
    col``; -1 a pass or none), whether setup stones changed the board
    (``setup``), and ``stones(node)``, its exact position (flat), asked for
    only at setup nodes and their parents.  ``parent[node]`` is each node's
    parent (None: a main line, each node's the one before); ``first_to_move``
    the side to move at node 0.  Node 0 is stored as setup (the stones of the
    initial position); a setup node stores the points that differ from its
    parent's position, so a node with setup and a move stores the move's
    colour and point too, and the edits already hold its stone and captures.
    """
    count = len(colour)
    npts = size * size
    points = np.where(point >= 0, point, NO_POINT).astype(np.uint16)
    words = ((colour.astype(np.uint16) << 10) | points).astype("<u2")
    if parent is None and not setup[1:].any():
        # A main line without setup after its root (almost every game): at once.
        first = stones(0)
        changed = np.flatnonzero(first)
        new = first[changed]
        ever = np.zeros(3 * npts, dtype=np.bool_)
        played = (point >= 0) & (colour > 0)
        played[0] = False
        ever[colour[played].astype(np.intp) * npts + point[played]] = True
        ever[new.astype(np.intp) * npts + changed] = True
        root = np.array([_word(TAG_SETUP, first_to_move, NO_POINT), len(changed)], dtype="<u2")
        edits = ((new.astype(np.uint16) << 10) | changed.astype(np.uint16)).astype("<u2")
        # sgf_order is its own inverse: the bit of point p is order[p], and bit j holds
        # point order[j].
        bits = np.packbits(ever.reshape(3, npts)[1:, sgf_order(size)], axis=1,
                           bitorder="little")
        return EncodedGame(root.tobytes() + edits.tobytes() + words[1:].tobytes(),
                           bits[0].tobytes(), bits[1].tobytes(), count)
    marks = np.flatnonzero(setup).tolist()
    if not marks or marks[0] != 0:
        marks.insert(0, 0)
    parents = list(range(-1, count - 1)) if parent is None else list(parent)
    # Branches: nodes whose parent is not the node before them (sets: a tree
    # may have as many branches as nodes).
    branches = {n for n in range(1, count) if parents[n] != n - 1}
    mark_set = set(marks)
    specials = sorted(mark_set | branches)
    order = sgf_order(size)
    ever = np.zeros((3, npts), dtype=np.bool_)
    played = (~setup) & (point >= 0) & (colour > 0)
    ever[colour[played].astype(np.intp), point[played].astype(np.intp)] = True
    parts: list[bytes] = []
    at = 0
    for node in specials:
        parts.append(words[at:node].tobytes())
        at = node + 1
        if node in branches:
            parts.append(_PARENT.pack(_word(TAG_PARENT, 0, 0), parents[node] & 0xFFFF,
                                      parents[node] >> 16))
        if node not in mark_set:
            parts.append(words[node : node + 1].tobytes())
            continue
        after = stones(node)
        before = np.zeros(npts, dtype=np.int8) if node == 0 else stones(parents[node])
        changed = np.flatnonzero(after != before)
        new = after[changed]
        for c in (1, 2):
            ever[c, changed[new == c]] = True
        head = (_word(TAG_SETUP, first_to_move, NO_POINT) if node == 0
                else _word(TAG_SETUP, int(colour[node]), int(points[node])))
        edits = (new.astype(np.uint16) << 10) | changed.astype(np.uint16)
        parts.append(np.array([head, len(changed)], dtype="<u2").tobytes())
        parts.append(edits.astype("<u2").tobytes())
    parts.append(words[at:].astype("<u2").tobytes())
    black = np.zeros(npts, dtype=np.bool_)
    white = np.zeros(npts, dtype=np.bool_)
    black[order] = ever[1]
    white[order] = ever[2]
    return EncodedGame(
        b"".join(parts),
        np.packbits(black, bitorder="little").tobytes(),
        np.packbits(white, bitorder="little").tobytes(),
        count,
    )


def _arrays(nodes: int, size: int) -> Replayed:
    return Replayed(
        np.zeros((nodes, size * size), dtype=np.int8), np.zeros(nodes, dtype=np.int8),
        np.zeros(nodes, dtype=np.int8), np.full(nodes, -1, dtype=np.int16),
        np.zeros(nodes, dtype=np.bool_), np.full(nodes, -1, dtype=np.int32),
        np.zeros(nodes, dtype=np.int32),
    )


def replay_boards(
    blob: bytes, size: int, nodes: int, last: int | None = None, *, pure: bool | None = None
) -> Replayed:
    """Replay a stored game of ``nodes`` nodes (the games table's ``blob``, ``size``
    and ``nodes``) into the position of every node, up to node ``last`` (None:
    all); rows past ``last`` stay empty.  The compiled core replays as ``pure``
    says (:func:`gohash._native.use_compiled`), else :func:`replay_pure`, its
    twin, which gives the same.

    Raises :class:`~gohash.errors.GohashError` on a blob that is not a stored
    game of that size.  Use: confirming a search's candidates on the exact
    position, rebuilding a game for a viewer, recomputing its keys.
    """
    if not _native.use_compiled(pure, _native.stored):
        return replay_pure(blob, size, nodes, last)
    _check_size(size)
    out = _arrays(nodes, size)
    setup = np.zeros(nodes, dtype=np.uint8)
    try:
        done = _native.stored.replay_stored(
            blob, size, nodes - 1 if last is None else last, out.boards, out.to_move,
            out.colour, out.point, setup, out.parent, out.move_number,
        )
    except ValueError as e:
        raise GohashError(f"a stored game does not replay: {e}") from None
    out.setup = setup.view(np.bool_)
    _check_done(done, nodes, last)
    return out


def replay_game(path: str, game_id: int, blob: bytes, size: int, nodes: int, last: int, *,
                pure: bool | None = None) -> Replayed:
    """Game ``game_id``'s stored form replayed to node ``last``
    (:func:`replay_boards`); a blob that does not replay is a damaged index
    (the one at ``path``)."""
    try:
        return replay_boards(blob, size, nodes, last, pure=pure)
    except GohashError as e:
        raise damaged(path, f"game {game_id}: {e.reason}") from None


def _check_size(size: int) -> None:
    """The board size of a stored game, checked before the compiled kernel, which
    trusts it (a damaged games table may hold any number)."""
    if not 2 <= size <= MAX_SIZE:
        raise GohashError(f"a stored game does not replay: board size {size} is not 2 to "
                          f"{MAX_SIZE}")


def _check_done(done: int, nodes: int, last: int | None) -> None:
    want = nodes if last is None else min(last + 1, nodes)
    if done < want:
        raise GohashError(f"a stored game does not replay: {done} nodes of {nodes}")


def replay_pure(blob: bytes, size: int, nodes: int, last: int | None = None) -> Replayed:
    """:func:`replay_boards` on :class:`gohash.go.board.Board` (suicide allowed, no
    ko rule: the build stored legal moves only), never the compiled core."""
    out = _arrays(nodes, size)
    words = np.frombuffer(blob, dtype="<u2").tolist() if len(blob) % 2 == 0 else None
    if words is None:
        raise GohashError("a stored game does not replay: an odd number of bytes")
    stop = nodes - 1 if last is None else min(last, nodes - 1)
    node = 0
    at = 0
    pending = -1
    board: Board | None = None
    npts = size * size
    try:
        while node <= stop and at < len(words):
            word = words[at]
            at += 1
            tag, colour, point = word >> 12, (word >> 10) & 3, word & 1023
            if tag == TAG_PARENT:
                pending = words[at] | words[at + 1] << 16
                at += 2
                if pending >= node:
                    raise GohashError(f"node {node}'s parent {pending} is not an earlier node")
                continue
            if tag not in (TAG_MOVE, TAG_SETUP) or (node == 0 and tag != TAG_SETUP):
                raise GohashError(f"node {node}: tag {tag} out of place")
            parent = -1 if node == 0 else (node - 1 if pending < 0 else pending)
            pending = -1
            if board is None:
                board = Board(size, suicide_allowed=True, simple_ko=False, max_history=None)
            elif parent != node - 1:
                board = Board.from_array(out.boards[parent].reshape(size, size),
                                         suicide_allowed=True, simple_ko=False)
            out.parent[node] = parent
            previous_to_move = int(out.to_move[parent]) if parent >= 0 else 0
            previous_number = int(out.move_number[parent]) if parent >= 0 else 0
            if tag == TAG_MOVE:
                if colour not in (1, 2) or (point != NO_POINT and point >= npts):
                    raise GohashError(f"node {node}: no move (colour {colour}, point {point})")
                name = "bw"[colour - 1]
                if point == NO_POINT:
                    board.pass_(name)
                else:
                    board.play(divmod(point, size), name)
                    out.point[node] = point
                out.colour[node] = colour
                out.to_move[node] = 3 - colour
                out.move_number[node] = previous_number + 1
            else:
                count = words[at]
                edits = words[at + 1 : at + 1 + count]
                at += 1 + count
                if len(edits) != count:
                    raise GohashError("a stored game cut short in a setup node")
                lists: tuple[list[tuple[int, int]], ...] = ([], [], [])
                for edit in edits:
                    code, where = (edit >> 10) & 3, edit & 1023
                    if edit >> 12 or code == 3 or where >= npts:
                        raise GohashError(f"node {node}: setup word {edit:#06x}")
                    lists[code].append(divmod(where, size))
                board.setup(black=lists[1], white=lists[2], empty=lists[0])
                out.setup[node] = True
                if node == 0:
                    if colour not in (1, 2):
                        raise GohashError(f"the side to move at first is {colour}")
                    out.to_move[node] = colour
                else:
                    out.colour[node] = colour
                    if colour and point != NO_POINT:
                        out.point[node] = point
                    out.to_move[node] = 3 - colour if colour else previous_to_move
                    out.move_number[node] = previous_number + (1 if colour else 0)
            out.boards[node] = board.to_array().reshape(-1)
            node += 1
    except IndexError:
        raise GohashError("a stored game cut short") from None
    except GohashError as e:
        raise GohashError(f"a stored game does not replay: {e.reason}") from None
    _check_done(node, nodes, last)
    return out


def game_keys(
    blob: bytes, size: int, nodes: int, keys: KeyScheme, *, pure: bool | None = None
) -> npt.NDArray[np.int64]:
    """The posting key (:func:`posting_keys`) of every node of a
    stored game under the scheme ``keys``: what its build stored, recomputed from
    the positions (to remove its postings, or to check them)."""
    if nodes == 0:
        return np.zeros(0, dtype=np.int64)
    boards = replay_boards(blob, size, nodes, pure=pure).boards
    batch = frame_batch(boards, keys.hash_arrays(boards.reshape(-1, size, size)), keys,
                        frames=False)
    return posting_keys(batch.keys, size)


def posting_keys(
    keys: npt.NDArray[np.uint64], size: int | npt.NDArray[np.integer]
) -> npt.NDArray[np.int64]:
    """Canonical keys as postings store them: the top :data:`KEY_BITS` bits of the
    key (of its high word, for a 128-bit key of shape ``(n, 2)``), as a signed
    integer, exclusive-or the board ``size`` (of each row, or of all): so the
    empty boards of every size (key 0) have keys of their own.  A filter: every
    hit is confirmed on the exact position."""
    words = keys if keys.ndim == 1 else keys[:, 0]
    folded: npt.NDArray[np.int64] = (np.ascontiguousarray(words).view(np.int64) >> (
        64 - KEY_BITS)) ^ np.asarray(size, dtype=np.int64)
    return folded


@dataclass
class NodesAt:
    """What :func:`replay_at` finds at each node asked for: its position (flat),
    side to move (1, 2), move number, and the next move on the main line
    (``next_colour`` 0 none, 1, 2; ``next_point`` -1 a pass or none): the move of
    the node after it if both are on the main line and that node has no setup."""

    boards: npt.NDArray[np.int8]
    to_move: npt.NDArray[np.int8]
    move_number: npt.NDArray[np.int32]
    next_colour: npt.NDArray[np.int8]
    next_point: npt.NDArray[np.int16]


def replay_at(
    blobs: Sequence[bytes], size: int, nodes: Sequence[int], mains: Sequence[int],
    game: npt.NDArray[np.int32], seq: npt.NDArray[np.int32], *, pure: bool | None = None,
) -> NodesAt:
    """Node ``seq[i]`` of stored game ``game[i]`` (an index into ``blobs``, of
    ``nodes[g]`` nodes, the first ``mains[g]`` its main line), for every ``i``;
    the rows of one game together.  Each game is replayed once, as far as its
    rows ask (the compiled kernel's ``replay_at``, or :func:`replay_pure`).  A game
    that does not replay raises :class:`~gohash.errors.StoredGameError`
    (``index`` its place in ``blobs``)."""
    count = len(game)
    out = NodesAt(np.zeros((count, size * size), dtype=np.int8), np.zeros(count, dtype=np.int8),
                  np.zeros(count, dtype=np.int32), np.zeros(count, dtype=np.int8),
                  np.full(count, -1, dtype=np.int16))
    if not count:
        return out
    if _native.use_compiled(pure, _native.stored):
        _check_size(size)
        if not len(nodes) == len(mains) == len(blobs) or len(seq) != count:
            raise ValueError("blobs, nodes and main lines, or games and nodes asked, of "
                             "different lengths")
        if game.min() < 0 or game.max() >= len(blobs):
            raise ValueError(f"no game {game.min() if game.min() < 0 else game.max()}")
        offsets = np.fromiter(itertools.accumulate(map(len, blobs), initial=0), np.int64,
                              len(blobs) + 1)
        try:
            _native.stored.replay_at(
                b"".join(blobs), offsets, size, np.asarray(nodes, dtype=np.int32),
                np.asarray(mains, dtype=np.int32), game.astype(np.int32), seq.astype(np.int32),
                out.boards, out.to_move, out.next_colour, out.next_point, out.move_number)
        except StoredGameError as e:
            raise StoredGameError(f"a stored game does not replay: {e.reason}",
                                  index=e.index) from None
        except ValueError as e:
            raise GohashError(f"a stored game does not replay: {e}") from None
        return out
    bounds = np.flatnonzero(np.diff(game)) + 1
    for rows in np.split(np.arange(count), bounds):
        g = int(game[rows[0]])
        wanted = seq[rows]
        last = min(int(wanted.max()) + 1, nodes[g] - 1)
        try:
            replayed = replay_pure(blobs[g], size, nodes[g], last)
        except GohashError as e:
            raise StoredGameError(e.reason, index=g) from None
        out.boards[rows] = replayed.boards[wanted]
        out.to_move[rows] = replayed.to_move[wanted]
        out.move_number[rows] = replayed.move_number[wanted]
        after = wanted + 1
        has = (after < mains[g]) & (after <= last)
        after = np.minimum(after, last)
        has &= ~replayed.setup[after] & (replayed.colour[after] != 0)
        out.next_colour[rows] = np.where(has, replayed.colour[after], 0)
        out.next_point[rows] = np.where(has, replayed.point[after], -1)
    return out


def setup_nodes(blob: bytes, last: int) -> list[bool]:
    """For nodes 0 to ``last`` of a stored game (fewer if it has fewer), whether
    setup stones changed the position there: node 0 if the initial position
    has stones (a handicap's, or any root setup), a later node if its setup
    changed a point.  Read off the nodes' words, up to ``last`` only."""
    flags: list[bool] = []
    at, end = 0, len(blob) // 2
    while len(flags) <= last and at < end:
        tag = struct.unpack_from("<H", blob, 2 * at)[0] >> 12
        if tag == TAG_PARENT:
            at += 3
        elif tag == TAG_SETUP and at + 1 < end:
            count = struct.unpack_from("<H", blob, 2 * at + 2)[0]
            flags.append(count > 0)
            at += 2 + count
        else:
            flags.append(False)
            at += 1
    return flags


def plain_games(blobs: Sequence[bytes]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """For each stored game, whether it is plain: node 0's setup word and its
    edits, then moves only (no later setup node, no parent word), so that
    :func:`setup_nodes` flags node 0 alone, and only if it has edits; and the
    number of node 0's edits (0 for a game that is not plain).  Read off the
    words of all the games at once; a game that is not plain needs
    :func:`setup_nodes`."""
    count = len(blobs)
    sizes = np.fromiter(map(len, blobs), np.int64, count)
    lengths = sizes // 2
    ends = np.cumsum(lengths)
    starts = ends - lengths
    joined = b"".join(blobs if not (sizes % 2).any() else (b[: len(b) // 2 * 2] for b in blobs))
    words = np.frombuffer(joined, dtype="<u2")
    rooted = lengths >= 2
    first = np.zeros(count, dtype=np.int64)
    edits = np.zeros(count, dtype=np.int64)
    first[rooted] = words[starts[rooted]]
    edits[rooted] = words[starts[rooted] + 1]
    rooted &= first >> 12 == TAG_SETUP
    # Words past node 0's edits that are not moves: a setup node or a parent.
    others = np.flatnonzero(words >> 12 != TAG_MOVE)
    after = np.minimum(starts + 2 + edits, ends)
    plain = rooted & (np.searchsorted(others, ends) == np.searchsorted(others, after))
    return plain, np.where(plain, edits, 0)

def posting_key(key: int, bits: int, size: int) -> int:
    """:func:`posting_keys` of one canonical key of ``bits`` bits (64 or 128), as a
    Python integer: what a search looks up."""
    word = key >> (bits - 64)
    signed = word - (1 << 64) if word >= 1 << 63 else word
    return (signed >> (64 - KEY_BITS)) ^ size


REPLAY_COLUMNS = ("id", "size", "nodes", "positions", "record")
"""The columns of the games table a game's replay reads (checked before it)."""
